# stenc_add_stencils(TARGET name FILES a.stencil ... [TARGETS c cuda opencl]
#                    [PRECISION float|double]
#                    [OUTPUT_DIR dir] [CUDA_ARCHITECTURES archs...] [RUNTIME target])
#
# Compile .stencil files with the stenc compiler at build time and build the generated code
# into a static library `name` that links stenc::stenc and exposes the generated headers
# (#include "NAME.h" for every `stencil NAME` block). TARGETS defaults to c; PRECISION
# overrides the type declared in the files; OUTPUT_DIR defaults to
# ${CMAKE_CURRENT_BINARY_DIR}/<name>_generated. The generated CUDA is built for
# CUDA_ARCHITECTURES when given, else for the project's CMAKE_CUDA_ARCHITECTURES when the
# project chose them, else for the GPU generations libstenc was built for. RUNTIME is the
# libstenc the library links: stenc::stenc (the default; shared when installed) or
# stenc::stenc_static, which a program using stenc::stenc_mpi needs (one runtime per
# program). See docs/build-integration.md.
include_guard(GLOBAL)

# The template root: the installed package sets the property before including this file; in
# the source tree it is the templates/ folder beside this one.
get_property(_stenc_tdir_set GLOBAL PROPERTY STENC_TEMPLATE_DIR SET)
if(NOT _stenc_tdir_set)
  get_filename_component(_stenc_tdir "${CMAKE_CURRENT_LIST_DIR}/../templates" ABSOLUTE)
  set_property(GLOBAL PROPERTY STENC_TEMPLATE_DIR "${_stenc_tdir}")
endif()

# Did the project choose CMAKE_CUDA_ARCHITECTURES? CMake fills it with nvcc's own default
# (sm_75 for CUDA 13) when a project leaves it unset, so a value equal to that default counts as
# unset. nvcc names its default in a dry run, which compiles nothing.
function(_stenc_project_chose_cuda_architectures out_var)
  get_property(default GLOBAL PROPERTY _STENC_NVCC_DEFAULT_ARCH)
  if(NOT default)
    set(probe "${CMAKE_BINARY_DIR}/CMakeFiles/stenc_arch_probe.cu")
    file(WRITE "${probe}" "")
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --dryrun -c "${probe}" -o probe.o
                    OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
    if(rc EQUAL 0 AND out MATCHES "arch=sm_([0-9]+a?)")
      set(default "${CMAKE_MATCH_1}")
    else()
      set(default "unknown")
    endif()
    set_property(GLOBAL PROPERTY _STENC_NVCC_DEFAULT_ARCH "${default}")
  endif()
  set(chose TRUE)
  if(CMAKE_CUDA_ARCHITECTURES MATCHES "^${default}(-real)?$")
    set(chose FALSE)
  endif()
  set(${out_var} ${chose} PARENT_SCOPE)
endfunction()

# The names of the `stencil NAME {` blocks of one file, comments removed first.
function(_stenc_stencil_names file out_var)
  file(READ "${file}" text)
  string(REGEX REPLACE "#[^\n]*" "" text "${text}")
  string(REGEX REPLACE "//[^\n]*" "" text "${text}")
  string(REGEX REPLACE "/\\*([^*]|\\*+[^*/])*\\*+/" "" text "${text}")
  string(REGEX MATCHALL "(^|[^A-Za-z0-9_])stencil[ \t\r\n]+[A-Za-z_][A-Za-z0-9_]*[ \t\r\n]*{"
         blocks "${text}")
  set(names "")
  foreach(block IN LISTS blocks)
    string(REGEX REPLACE ".*stencil[ \t\r\n]+([A-Za-z_][A-Za-z0-9_]*).*" "\\1" name "${block}")
    list(APPEND names ${name})
  endforeach()
  set(${out_var} ${names} PARENT_SCOPE)
endfunction()

function(stenc_add_stencils)
  cmake_parse_arguments(ARG "" "TARGET;PRECISION;OUTPUT_DIR;RUNTIME"
                        "FILES;TARGETS;CUDA_ARCHITECTURES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "stenc_add_stencils: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_TARGET OR NOT ARG_FILES)
    message(FATAL_ERROR "stenc_add_stencils: TARGET and FILES are required")
  endif()
  if(NOT ARG_TARGETS)
    set(ARG_TARGETS c)
  endif()
  foreach(t IN LISTS ARG_TARGETS)
    if(NOT t MATCHES "^(c|cuda|opencl)$")
      message(FATAL_ERROR "stenc_add_stencils(${ARG_TARGET}): unknown target '${t}' (c, cuda, "
                          "opencl)")
    endif()
  endforeach()
  # cuda needs nvcc in this project: a clear error rather than a library that cannot build.
  if("cuda" IN_LIST ARG_TARGETS)
    get_property(_stenc_langs GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT "CUDA" IN_LIST _stenc_langs)
      message(FATAL_ERROR "stenc_add_stencils(${ARG_TARGET}): TARGETS cuda needs the CUDA "
                          "language (enable_language(CUDA) with nvcc found); drop cuda for a "
                          "CPU-only build")
    endif()
    if(NOT "c" IN_LIST ARG_TARGETS)
      list(APPEND ARG_TARGETS c) # the launcher and the host kernel live in NAME_c.c
    endif()
  endif()
  # opencl's files are C, built with any libstenc: they run where libstenc has OpenCL
  # (STENC_DEVICE_OPENCL); elsewhere the context cannot be made (STENC_ERR_NO_DEVICE).
  if("opencl" IN_LIST ARG_TARGETS AND NOT "c" IN_LIST ARG_TARGETS)
    list(APPEND ARG_TARGETS c) # the launcher and the host kernel live in NAME_c.c
  endif()
  if(ARG_PRECISION AND NOT ARG_PRECISION MATCHES "^(float|double)$")
    message(FATAL_ERROR "stenc_add_stencils(${ARG_TARGET}): PRECISION must be float or double")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TARGET}_generated")
  endif()
  if(NOT TARGET stenc::stenc_compiler)
    message(FATAL_ERROR "stenc_add_stencils: no stenc::stenc_compiler (find_package(stenc))")
  endif()
  get_target_property(compiler_real stenc::stenc_compiler ALIASED_TARGET)
  if(compiler_real)
    set(compiler_dep ${compiler_real}) # in-tree: rebuild outputs when the compiler changes
  else()
    set(compiler_dep $<TARGET_FILE:stenc::stenc_compiler>)
  endif()
  get_property(template_dir GLOBAL PROPERTY STENC_TEMPLATE_DIR)
  file(GLOB_RECURSE template_files CONFIGURE_DEPENDS "${template_dir}/*.tmpl")

  set(options --template-dir "${template_dir}" -o "${ARG_OUTPUT_DIR}")
  foreach(t IN LISTS ARG_TARGETS)
    list(APPEND options --target ${t})
  endforeach()
  if(ARG_PRECISION)
    list(APPEND options --precision ${ARG_PRECISION})
  endif()

  set(sources "")
  set(headers "")
  foreach(file IN LISTS ARG_FILES)
    get_filename_component(file "${file}" ABSOLUTE)
    # A new `stencil` block in a file means new outputs: configure again.
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
    _stenc_stencil_names("${file}" names)
    if(NOT names)
      message(FATAL_ERROR "stenc_add_stencils(${ARG_TARGET}): no 'stencil NAME {' in ${file}")
    endif()
    set(outputs "")
    foreach(name IN LISTS names)
      list(APPEND outputs "${ARG_OUTPUT_DIR}/${name}.h")
      list(APPEND headers "${ARG_OUTPUT_DIR}/${name}.h")
      if("c" IN_LIST ARG_TARGETS)
        list(APPEND outputs "${ARG_OUTPUT_DIR}/${name}_c.c")
        list(APPEND sources "${ARG_OUTPUT_DIR}/${name}_c.c")
      endif()
      if("cuda" IN_LIST ARG_TARGETS)
        list(APPEND outputs "${ARG_OUTPUT_DIR}/${name}_cuda.cu")
        list(APPEND sources "${ARG_OUTPUT_DIR}/${name}_cuda.cu")
      endif()
      if("opencl" IN_LIST ARG_TARGETS)
        list(APPEND outputs "${ARG_OUTPUT_DIR}/${name}_opencl.c")
        list(APPEND sources "${ARG_OUTPUT_DIR}/${name}_opencl.c")
      endif()
    endforeach()
    get_filename_component(shown "${file}" NAME)
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${CMAKE_COMMAND} -E make_directory "${ARG_OUTPUT_DIR}"
      COMMAND stenc::stenc_compiler ${options} "${file}"
      DEPENDS "${file}" ${compiler_dep} ${template_files}
      COMMENT "stenc: generating ${names} from ${shown}"
      VERBATIM)
  endforeach()

  add_library(${ARG_TARGET} STATIC ${sources} ${headers})
  if("cuda" IN_LIST ARG_TARGETS)
    # No FMA contraction: the CUDA kernels then round exactly like the C ones (bit-identical
    # results, see docs/cuda.md). The stencils are memory-bound, so this costs nothing.
    target_compile_options(${ARG_TARGET} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-fmad=false>)
    set(archs ${ARG_CUDA_ARCHITECTURES})
    if(NOT archs)
      _stenc_project_chose_cuda_architectures(chose)
      get_property(archs GLOBAL PROPERTY STENC_CUDA_ARCHITECTURES)
      if(chose OR NOT archs)
        set(archs ${CMAKE_CUDA_ARCHITECTURES})
      endif()
    endif()
    set_target_properties(${ARG_TARGET} PROPERTIES CUDA_ARCHITECTURES "${archs}")
  endif()
  set_target_properties(${ARG_TARGET} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${ARG_TARGET} PUBLIC "$<BUILD_INTERFACE:${ARG_OUTPUT_DIR}>")
  if(NOT ARG_RUNTIME)
    set(ARG_RUNTIME stenc::stenc)
  endif()
  if(NOT TARGET ${ARG_RUNTIME})
    message(FATAL_ERROR "stenc_add_stencils: RUNTIME ${ARG_RUNTIME} is not a target "
                        "(stenc::stenc_static needs find_package(stenc COMPONENTS static))")
  endif()
  target_link_libraries(${ARG_TARGET} PUBLIC ${ARG_RUNTIME})
endfunction()
