# Generate every stencil of stencils/ in float and in double, and compile each kernel with
# -Wall -Wextra -Werror (and -Wshadow -Wpedantic): the generated code must be clean whatever
# the precision.
file(GLOB files ${SOURCE_DIR}/stencils/*.stencil)
foreach(precision float double)
  set(out "${WORK_DIR}/${precision}")
  file(REMOVE_RECURSE "${out}")
  file(MAKE_DIRECTORY "${out}")
  execute_process(COMMAND ${COMPILER} --precision ${precision} --template-dir
                          ${SOURCE_DIR}/templates -o ${out} ${files}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "stenc --precision ${precision} failed (${rc})")
  endif()
  file(GLOB kernels "${out}/*_c.c")
  if(NOT kernels)
    message(FATAL_ERROR "no kernels generated in ${out}")
  endif()
  foreach(kernel IN LISTS kernels)
    execute_process(
      COMMAND ${C_COMPILER} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -Wall -Wextra
              -Werror -Wshadow -Wpedantic -I${SOURCE_DIR}/runtime/include -c ${kernel}
              -o ${kernel}.o
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${kernel} (${precision}) does not compile cleanly")
    endif()
  endforeach()
endforeach()
