# CPack: three Debian packages from one install, split by install COMPONENT.
#   libstenc0        runtime   libstenc.so.0 (what a program built against stenc needs to run)
#   libstenc-dev     dev       headers, libstenc.so, libstenc.a, CMake package, pkg-config file
#   stenc-compiler   compiler  the stenc program and its templates
# `cpack -G DEB` in a build tree writes them; docs/packaging.md says how releases are built.
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)

set(CPACK_PACKAGE_NAME stenc)
set(CPACK_PACKAGE_VENDOR "the stenc developers")
set(CPACK_PACKAGE_CONTACT "stenc developers <stenc@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "stencil compiler and runtime for CPUs and NVIDIA GPUs")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_COMPONENTS_ALL runtime dev compiler)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz) # the fatbins compress about 6:1
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://example.invalid/stenc")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libstenc${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# dpkg-shlibdeps (dpkg-dev) names the libraries' packages: libc, libgomp, libstdc++, and
# libhdf5 when libstenc was built with HDF5.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME libstenc-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# The CMake package's stenc_add_stencils() runs the compiler, and find_package(stenc) needs it.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libstenc${PROJECT_VERSION_MAJOR} (= ${PROJECT_VERSION}), stenc-compiler (= ${PROJECT_VERSION}), libgomp1")
set(CPACK_DEBIAN_COMPILER_PACKAGE_NAME stenc-compiler)
set(CPACK_DEBIAN_COMPILER_PACKAGE_SHLIBDEPS ON)
# Debian's `stenc` (SCSI tape encryption) also installs /usr/bin/stenc.
set(CPACK_DEBIAN_COMPILER_PACKAGE_CONFLICTS "stenc")

set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "stenc runtime library")
set(CPACK_COMPONENT_DEV_DESCRIPTION "stenc development files: headers, static library, CMake package")
set(CPACK_COMPONENT_COMPILER_DESCRIPTION "stenc compiler: .stencil files to C and CUDA kernels")
include(CPack)
