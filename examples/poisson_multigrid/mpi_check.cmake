# poisson_mg_mpi on 1, 2, 3 and 4 ranks (CPU; 3 splits at odd indices), agglomerating onto rank 0 from several levels on:
# every "result:" line must be identical (the first run, with ordinary fields on one rank below
# the finest level, is the reference), the residual converged and the max error against the
# exact solution the discretisation error (5.0e-5 at 127^2).
set(reference "")
foreach(run "1;64" "1;1" "2;1" "2;16" "2;1000" "3;1" "4;1" "4;32")
  list(GET run 0 np)
  list(GET run 1 agglomerate)
  execute_process(COMMAND ${MPIRUN} ${NP_FLAG} ${np} ${PROG} --cpu --n 127 --cycles 12
                          --agglomerate ${agglomerate}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "poisson_mg_mpi on ${np} rank(s) failed (${rc}):\n${out}\n${err}")
  endif()
  string(REGEX MATCH "result: [^\n]*" result "${out}")
  string(REGEX MATCH "levels [0-9]+\\.\\. \\(from [0-9]+|all split" where "${out}")
  message(STATUS "${np} rank(s), --agglomerate ${agglomerate} (${where}): ${result}")
  if(NOT result)
    message(FATAL_ERROR "no result line from ${np} rank(s):\n${out}")
  endif()
  if(reference STREQUAL "")
    set(reference "${result}")
    string(REGEX MATCH "max_error=([0-9.e+-]+)" _ "${result}")
    if(NOT CMAKE_MATCH_1 OR CMAKE_MATCH_1 GREATER 6e-5)
      message(FATAL_ERROR "max error ${CMAKE_MATCH_1} too large")
    endif()
    string(REGEX MATCH "rel_residual=([0-9.e+-]+)" _ "${result}")
    if(NOT CMAKE_MATCH_1 OR CMAKE_MATCH_1 GREATER 1e-6)
      message(FATAL_ERROR "relative residual ${CMAKE_MATCH_1} after 12 cycles: not converging")
    endif()
  elseif(NOT result STREQUAL reference)
    message(FATAL_ERROR "${np} rank(s) differ from one:\n  ${result}\n  ${reference}")
  endif()
endforeach()
