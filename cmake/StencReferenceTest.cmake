# stenc_add_reference_test(NAME name STENCIL file.stencil FUNCTION fn
#                          [REFERENCE source.c ...] [LINK_LIBRARIES lib ...]
#                          [STENCIL_NAME s] [TARGETS c cuda] [PRECISION float|double]
#                          [SIZES 13x7x5 ...]
#                          [ABS x] [REL x] [ULP n] [REDUCE_ABS x] [REDUCE_REL x] [REDUCE_ULP n]
#                          [RANGE lo hi] [SCALARS v ...] [SEED n] [WARMUP n] [REPEAT n]
#                          [LABELS label ...])
#
# Register the ctest `name`: the program `name` runs stencil `s` of `file.stencil`, generated
# for TARGETS (default c, and cuda when the project has the CUDA language and stenc was built
# with it), and the reference function `fn` (stenc_reftest_fn, stenc/reftest.h) on the same
# random data at every size, on the C kernel and on every CUDA variant (skipped without a
# device); it compares every point of every array, bitwise unless a tolerance is given, times
# both and prints a table. A mismatch fails the test and names the first mismatching point.
# Call enable_testing() first. See docs/reference-tests.md.
include_guard(GLOBAL)
include("${CMAKE_CURRENT_LIST_DIR}/StencAddStencils.cmake")

function(stenc_add_reference_test)
  set(one NAME STENCIL STENCIL_NAME FUNCTION PRECISION ABS REL ULP REDUCE_ABS REDUCE_REL
          REDUCE_ULP SEED WARMUP REPEAT)
  set(multi REFERENCE LINK_LIBRARIES TARGETS SIZES RANGE SCALARS LABELS)
  cmake_parse_arguments(ARG "" "${one}" "${multi}" ${ARGN})
  set(fn stenc_add_reference_test)
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAME OR NOT ARG_STENCIL OR NOT ARG_FUNCTION)
    message(FATAL_ERROR "${fn}: NAME, STENCIL and FUNCTION are required")
  endif()
  set(fn "${fn}(${ARG_NAME})")
  if(NOT ARG_FUNCTION MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "${fn}: FUNCTION '${ARG_FUNCTION}' is not a C identifier")
  endif()

  get_filename_component(stencil_file "${ARG_STENCIL}" ABSOLUTE)
  _stenc_stencil_names("${stencil_file}" names)
  if(ARG_STENCIL_NAME)
    if(NOT ARG_STENCIL_NAME IN_LIST names)
      message(FATAL_ERROR "${fn}: no stencil '${ARG_STENCIL_NAME}' in ${stencil_file} "
                          "(it has: ${names})")
    endif()
    set(stencil ${ARG_STENCIL_NAME})
  else()
    list(LENGTH names count)
    if(NOT count EQUAL 1)
      message(FATAL_ERROR "${fn}: ${stencil_file} has the stencils '${names}': name one with "
                          "STENCIL_NAME")
    endif()
    set(stencil ${names})
  endif()

  # The driver's options; it checks the values, since only it knows the stencil's dims.
  set(args "")
  foreach(size IN LISTS ARG_SIZES)
    if(NOT size MATCHES "^[1-9][0-9]*(x[1-9][0-9]*)?(x[1-9][0-9]*)?$")
      message(FATAL_ERROR "${fn}: SIZES: '${size}' is not N, NxN or NxNxN")
    endif()
    list(APPEND args --size ${size})
  endforeach()
  foreach(opt ABS REL ULP REDUCE_ABS REDUCE_REL REDUCE_ULP SEED WARMUP REPEAT)
    if(DEFINED ARG_${opt})
      string(TOLOWER "--${opt}" flag)
      string(REPLACE "_" "-" flag "${flag}")
      list(APPEND args ${flag} ${ARG_${opt}})
    endif()
  endforeach()
  if(DEFINED ARG_RANGE)
    list(LENGTH ARG_RANGE count)
    if(NOT count EQUAL 2)
      message(FATAL_ERROR "${fn}: RANGE takes two values, lo and hi")
    endif()
    list(APPEND args --range ${ARG_RANGE})
  endif()
  foreach(value IN LISTS ARG_SCALARS)
    list(APPEND args --scalar ${value})
  endforeach()

  if(NOT ARG_TARGETS)
    set(ARG_TARGETS c)
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(STENC_HAVE_CUDA AND "CUDA" IN_LIST languages)
      list(APPEND ARG_TARGETS cuda)
    endif()
  endif()
  set(precision "")
  if(ARG_PRECISION)
    set(precision PRECISION ${ARG_PRECISION})
  endif()

  # The test's own copy of the generated code, so that it picks its targets and precision.
  # Both sides are compiled without FMA contraction (which GCC applies by default outside
  # ISO C mode when the target has FMA): the stencil's rounding is then one thing, and a
  # bitwise comparison means something. CUDA code is built with -fmad=false already.
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${ARG_NAME}_reftest")
  set(library ${ARG_NAME}_stencils)
  stenc_add_stencils(TARGET ${library} FILES "${stencil_file}" TARGETS ${ARG_TARGETS}
                     ${precision} OUTPUT_DIR "${dir}/generated")
  set(no_contract
      "$<$<AND:$<COMPILE_LANGUAGE:C>,$<C_COMPILER_ID:GNU,Clang,AppleClang>>:-ffp-contract=off>")
  target_compile_options(${library} PRIVATE ${no_contract})

  # The table of the stencil comes from its generated header, after the compiler ran; the
  # library target orders the two (and re-runs this when the generated code changes).
  set(module "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/reftest")
  foreach(file driver.c driver.h describe.cmake subject.c.in)
    if(NOT EXISTS "${module}/${file}")
      message(FATAL_ERROR "${fn}: ${module}/${file} is missing: the reftest/ folder must be "
                          "installed beside StencReferenceTest.cmake")
    endif()
  endforeach()
  set(subject "${dir}/${ARG_NAME}_subject.c")
  add_custom_command(
    OUTPUT "${subject}"
    COMMAND ${CMAKE_COMMAND} "-DHEADER=${dir}/generated/${stencil}.h" -DSTENCIL=${stencil}
            -DFUNCTION=${ARG_FUNCTION} "-DTEMPLATE=${module}/subject.c.in" "-DOUTPUT=${subject}"
            -P "${module}/describe.cmake"
    DEPENDS ${library} "${module}/describe.cmake" "${module}/subject.c.in"
    COMMENT "stenc: describing ${stencil} for the reference test ${ARG_NAME}"
    VERBATIM)

  add_executable(${ARG_NAME} "${subject}" "${module}/driver.c" ${ARG_REFERENCE})
  target_include_directories(${ARG_NAME} PRIVATE "${module}")
  target_link_libraries(${ARG_NAME} PRIVATE ${library} ${ARG_LINK_LIBRARIES})
  target_compile_options(${ARG_NAME} PRIVATE ${no_contract})
  add_test(NAME ${ARG_NAME} COMMAND ${ARG_NAME} ${args})
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "stenc_reftest;${ARG_LABELS}")
endfunction()
