#!/usr/bin/env bash
# Install stenc's build dependencies on Debian/Ubuntu when they are missing, and the packages
# named as arguments (scripts/test.sh --parallel-hdf5 adds the MPI build of HDF5). As root it
# runs apt-get itself; otherwise it prints the exact command and fails.
set -euo pipefail
packages=(cmake gcc g++ make pkg-config flex bison libcmocka-dev libgsl-dev
          # field I/O: HDF5, and the independent readers its tests check files with
          libhdf5-dev hdf5-tools python3-numpy python3-h5py
          # bench/plot.sh (the ctest bench_plot)
          gnuplot-nox
          # cpack's .deb packages: dpkg-shlibdeps names their library dependencies
          dpkg-dev
          # distributed fields (libstenc_mpi) and their tests under mpirun
          libopenmpi-dev openmpi-bin
          # the OpenCL backend: headers, the ICD loader, and PoCL's CPU device for its tests
          opencl-headers ocl-icd-opencl-dev pocl-opencl-icd
          "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
cmd="apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "stenc needs: ${missing[*]}" >&2
  echo "run as root:  $cmd" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
