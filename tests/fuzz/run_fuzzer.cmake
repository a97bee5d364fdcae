# ctest's libFuzzer smoke run: SECONDS of fuzz_pipeline on a fresh copy of the seed corpus (the
# seed corpus itself is not modified). Artifacts (crash-*, leak-*, timeout-*) stay in WORK.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
file(COPY ${CORPUS}/ DESTINATION ${WORK}/corpus)
execute_process(COMMAND ${FUZZER} -max_total_time=${SECONDS} -dict=${DICT} -timeout=20
                        -rss_limit_mb=2048 -max_len=8192 -print_final_stats=1
                        -artifact_prefix=${WORK}/ ${WORK}/corpus
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "libFuzzer found a failure (status ${rc}); the input is in ${WORK}")
endif()
