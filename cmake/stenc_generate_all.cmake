# cmake -DCOMPILER=stenc -DSOURCE_DIR=<stenc source> -DOUT_DIR=dir -P stenc_generate_all.cmake
#
# Compile every stencils/*.stencil into OUT_DIR the way generated/ is made: every target, the
# source tree's templates, and #line paths relative to the source tree ("stencils/x.stencil")
# so that the output does not depend on where the checkout lives. OUT_DIR is replaced whole,
# so files of deleted stencils disappear. Used by the `regenerate` target and the golden test.
foreach(var COMPILER SOURCE_DIR OUT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "stenc_generate_all.cmake: -D${var}=... is required")
  endif()
endforeach()

file(GLOB files RELATIVE ${SOURCE_DIR} ${SOURCE_DIR}/stencils/*.stencil)
list(SORT files)
set(staging "${OUT_DIR}.staging")
file(REMOVE_RECURSE "${staging}")
file(MAKE_DIRECTORY "${staging}")
execute_process(
  COMMAND ${COMPILER} --target c,cuda,opencl --template-dir templates -o ${staging} ${files}
  WORKING_DIRECTORY ${SOURCE_DIR}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(REMOVE_RECURSE "${staging}")
  message(FATAL_ERROR "stenc failed (${rc}) on ${files}")
endif()
# Keep OUT_DIR itself (it may hold a README); replace the generated sources in it.
file(GLOB old "${OUT_DIR}/*.h" "${OUT_DIR}/*.c" "${OUT_DIR}/*.cu")
if(old)
  file(REMOVE ${old})
endif()
file(GLOB new "${staging}/*")
file(COPY ${new} DESTINATION "${OUT_DIR}")
file(REMOVE_RECURSE "${staging}")
