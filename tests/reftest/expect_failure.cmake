# A reference test that must fail: run PROGRAM with ARGS and pass only when it exits with
# status 1 (a mismatch, not a crash or a bad command line) and its output matches every
# regular expression in EXPECT (a list).
#   cmake -DPROGRAM=exe "-DARGS=--size;13x7x5" "-DEXPECT=re1;re2" -P expect_failure.cmake
cmake_minimum_required(VERSION 3.22) # policies for -P mode (IN_LIST)
execute_process(COMMAND "${PROGRAM}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE out)
message("${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} passed, but its reference is wrong: the test cannot fail")
endif()
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "${PROGRAM} ended with '${rc}', not with status 1 (a mismatch)")
endif()
foreach(re IN LISTS EXPECT)
  if(NOT out MATCHES "${re}")
    message(FATAL_ERROR "${PROGRAM} failed (${rc}) but its output does not match '${re}'")
  endif()
endforeach()
message("${PROGRAM} failed as it should (exit status ${rc}), naming the mismatch")
