# find_package(stenc) from an installed tree: install the build into a fresh prefix, then
# configure, build and run tests/golden/consumer against it.
set(prefix "${WORK_DIR}/prefix")
set(build "${WORK_DIR}/build")
file(REMOVE_RECURSE "${WORK_DIR}")
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endfunction()
run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(needed lib/cmake/stenc/stencConfig.cmake lib/cmake/stenc/stencConfigVersion.cmake
        lib/cmake/stenc/StencAddStencils.cmake lib/cmake/stenc/StencReferenceTest.cmake
        lib/cmake/stenc/reftest/driver.c share/stenc/templates/c/stencil_c.c.tmpl
        include/stenc/launch.h bin/stenc)
  if(NOT EXISTS "${prefix}/${needed}")
    message(FATAL_ERROR "the install lacks ${needed}")
  endif()
endforeach()
run("configure the consumer" ${CMAKE_COMMAND} -S "${CONSUMER_DIR}" -B "${build}"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER}
    "-DCMAKE_C_FLAGS=${EXTRA_FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${EXTRA_FLAGS}")
run("build the consumer" ${CMAKE_COMMAND} --build "${build}")
run("run the consumer" "${build}/consumer")
if(EXISTS "${build}/consumer_mpi")
  # One rank, no mpirun: Open MPI's singleton start runs a helper process, under which
  # LeakSanitizer's tracer crashes; leaks are checked where the tests run under mpirun
  # (tests/dist), and here only memory errors.
  run("run the MPI consumer" ${CMAKE_COMMAND} -E env ASAN_OPTIONS=detect_leaks=0
      "${build}/consumer_mpi")
endif()
