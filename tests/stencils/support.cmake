# The reference kernels and the stencil descriptions, for tests/stencils, bench/cpu and
# examples/heat. Included by each of them; defines the targets once.
#   stenc_reference      hand-written kernels (tests/stencils/reference/)
#   stenc_stencil_cases  the stencil table; with the generated launchers when stenc_stencils
#                        exists (STENC_HAVE_GENERATED=1), else without them
if(NOT TARGET stenc_reference)
  set(_dir ${CMAKE_CURRENT_LIST_DIR})
  add_library(stenc_reference STATIC
    ${_dir}/reference/ref_common.c ${_dir}/reference/ref_heat3d.c
    ${_dir}/reference/ref_poisson2d.c ${_dir}/reference/ref_varcoef27.c
    ${_dir}/reference/ref_life.c ${_dir}/reference/ref_euler_flux.c
    ${_dir}/reference/ref_wave_r2.c ${_dir}/reference/ref_solvers.c)
  target_include_directories(stenc_reference PUBLIC ${_dir}/reference)
  target_link_libraries(stenc_reference PUBLIC stenc::stenc OpenMP::OpenMP_C m)

  add_library(stenc_stencil_cases STATIC ${_dir}/stencil_cases.c)
  target_include_directories(stenc_stencil_cases PUBLIC ${_dir})
  target_link_libraries(stenc_stencil_cases PUBLIC stenc_reference)
  if(TARGET stenc_stencils)
    target_sources(stenc_stencil_cases PRIVATE ${_dir}/stencil_cases_generated.c)
    target_link_libraries(stenc_stencil_cases PUBLIC stenc_stencils)
    target_compile_definitions(stenc_stencil_cases PUBLIC STENC_HAVE_GENERATED=1)
  else()
    target_sources(stenc_stencil_cases PRIVATE ${_dir}/stencil_cases_none.c)
  endif()
endif()
