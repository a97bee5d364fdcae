# A broken template: the compiler must fail, name the template file and line, and leave no
# output behind (not even the files whose templates were fine).
set(templates "${WORK_DIR}/templates")
set(out "${WORK_DIR}/out")
file(REMOVE_RECURSE "${WORK_DIR}")
file(COPY "${SOURCE_DIR}/templates/" DESTINATION "${templates}")
file(MAKE_DIRECTORY "${out}")
# Line 3 of the kernel template now uses a variable emit.c does not provide.
file(READ "${templates}/c/stencil_c.c.tmpl" text)
string(REGEX REPLACE "^([^\n]*\n[^\n]*\n)" "\\1{{no_such_variable}}\n" text "${text}")
file(WRITE "${templates}/c/stencil_c.c.tmpl" "${text}")
execute_process(COMMAND ${COMPILER} --template-dir ${templates} -o ${out}
                        ${SOURCE_DIR}/stencils/heat3d.stencil
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "stenc succeeded with a broken template")
endif()
if(NOT err MATCHES "c/stencil_c\\.c\\.tmpl:3: error: unknown variable 'no_such_variable'")
  message(FATAL_ERROR "the diagnostic does not name the template and line:\n${err}")
endif()
file(GLOB left "${out}/*")
if(left)
  message(FATAL_ERROR "partial output left behind: ${left}")
endif()
message(STATUS "broken template reported as: ${err}")
