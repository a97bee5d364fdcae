# What every example's CMakeLists.txt includes first, so that the same file builds in the stenc
# tree and as a project of its own (a copy of the example's folder with this common/ folder
# beside it, or STENC_EXAMPLES_COMMON pointing at one; see docs/examples.md):
#   - standalone (the example's folder is the top of the build): the C settings of the stenc
#     tree, find_package(stenc), the CUDA language when stenc was built with CUDA, and the
#     example's ctests;
#   - both: the target example_common (this folder's headers and stenc::stenc) and
#     STENC_EXAMPLE_TARGETS, the stenc_add_stencils() targets to build (c, and cuda with nvcc).
if(CMAKE_SOURCE_DIR STREQUAL CMAKE_CURRENT_SOURCE_DIR)
  set(CMAKE_C_STANDARD 11)
  set(CMAKE_C_STANDARD_REQUIRED ON)
  set(CMAKE_C_EXTENSIONS OFF)
  add_compile_definitions($<$<COMPILE_LANGUAGE:C>:_POSIX_C_SOURCE=200809L>)
  add_compile_options("$<$<COMPILE_LANGUAGE:C,CXX>:-Wall;-Wextra>")
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    set(CMAKE_BUILD_TYPE Release CACHE STRING "Build type" FORCE)
  endif()
  find_package(stenc 0.1 REQUIRED)
  # A libstenc built with CUDA expects its users' CUDA halves (Nelder-Mead solvers, kernels of
  # the examples' own), and the generated kernels run on the GPU only when built by nvcc.
  if(STENC_HAVE_CUDA)
    include(CheckLanguage)
    check_language(CUDA)
    if(NOT CMAKE_CUDA_COMPILER)
      message(FATAL_ERROR "this stenc was built with CUDA: its examples need nvcc as well")
    endif()
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES) # override on the command line
      if(STENC_CUDA_ARCHITECTURES) # the GPUs libstenc was built for, where stenc says
        set(CMAKE_CUDA_ARCHITECTURES ${STENC_CUDA_ARCHITECTURES})
      else()
        set(CMAKE_CUDA_ARCHITECTURES 90) # the stenc tree's default
      endif()
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
  endif()
  enable_testing()
  set(STENC_BUILD_TESTS ON)
endif()

if(NOT TARGET example_common) # in the tree every example includes this file
  add_library(example_common INTERFACE)
  target_include_directories(example_common INTERFACE ${CMAKE_CURRENT_LIST_DIR})
  target_link_libraries(example_common INTERFACE stenc::stenc)
endif()

set(STENC_EXAMPLE_TARGETS c)
if(STENC_HAVE_CUDA)
  list(APPEND STENC_EXAMPLE_TARGETS cuda)
endif()
