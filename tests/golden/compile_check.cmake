# Generate .stencil files in float and in double and compile every kernel with warnings as
# errors: each C kernel and OpenCL host file with each of C_COMPILERS (-Wall -Wextra -Werror -Wshadow -Wpedantic),
# each CUDA file with CUDA_COMPILER when given (-Werror all-warnings). The generated code must
# be clean whatever the precision and the compiler.
#   -DCOMPILER=stenc -DSOURCE_DIR=... -DWORK_DIR=... -DFILES="glob;glob" -DC_COMPILERS="cc;..."
#   [-DCUDA_COMPILER=nvcc] [-DPRECISIONS="float;double"|own]  (own: each stencil's type)
set(files "")
foreach(pattern IN LISTS FILES)
  file(GLOB matched ${pattern})
  list(APPEND files ${matched})
endforeach()
if(NOT files)
  message(FATAL_ERROR "no .stencil files match ${FILES}")
endif()
set(targets c,opencl)
if(CUDA_COMPILER)
  set(targets c,cuda,opencl)
endif()
if(NOT PRECISIONS)
  set(PRECISIONS float double)
endif()
foreach(precision IN LISTS PRECISIONS)
  set(out "${WORK_DIR}/${precision}")
  file(REMOVE_RECURSE "${out}")
  file(MAKE_DIRECTORY "${out}")
  set(override --precision ${precision})
  if(precision STREQUAL "own")
    set(override "")
  endif()
  execute_process(COMMAND ${COMPILER} --target ${targets} ${override} -w
                          --template-dir ${SOURCE_DIR}/templates -o ${out} ${files}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "stenc --precision ${precision} failed (${rc})")
  endif()
  file(GLOB kernels "${out}/*_c.c" "${out}/*_opencl.c")
  if(NOT kernels)
    message(FATAL_ERROR "no kernels generated in ${out}")
  endif()
  foreach(cc IN LISTS C_COMPILERS)
    foreach(kernel IN LISTS kernels)
      execute_process(
        COMMAND ${cc} -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -fopenmp -Wall -Wextra -Werror
                -Wshadow -Wpedantic -I${SOURCE_DIR}/runtime/include -I${out} -c ${kernel}
                -o ${kernel}.o
        RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${kernel} (${precision}) does not compile cleanly with ${cc}")
      endif()
    endforeach()
  endforeach()
  if(CUDA_COMPILER)
    file(GLOB cuda_files "${out}/*_cuda.cu")
    foreach(cu IN LISTS cuda_files)
      execute_process(
        COMMAND ${CUDA_COMPILER} -std=c++17 -arch=sm_90 -fmad=false -Werror all-warnings
                -Xcompiler=-Wall,-Wextra -I${SOURCE_DIR}/runtime/include -I${out} -c ${cu}
                -o ${cu}.o
        RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${cu} (${precision}) does not compile cleanly with nvcc")
      endif()
    endforeach()
  endif()
endforeach()
