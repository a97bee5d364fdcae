#!/usr/bin/env bash
# Build a self-contained, relocatable Open MPI (Debian 12's 4.1.x) from Debian's own .deb files,
# for a machine that has no MPI and no network (the lent GPU machines): programs built here with
# mpicc (libopenmpi-dev) run there under the bundle's mpirun. See docs/mpi_carry.md.
#   scripts/mpi_carry.sh [DIR]        (default carry/mpi; carry/ is git-ignored)
# Makes DIR/root (the unpacked packages), DIR/env.sh (source it there) and DIR.tar.xz.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-carry/mpi}
mkdir -p "$(dirname "$dir")"
dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")
case $(basename "$dir") in /|.|..) echo "mpi_carry.sh: bad DIR $dir" >&2; exit 2;; esac
roots=(openmpi-bin libopenmpi3 openmpi-common)

# Packages not carried. Base system, on every Debian and Ubuntu (essential packages and what
# they pull in: dpkg, apt, util-linux, passwd), or on the target by the brief (glibc, gcc 13's
# runtime libraries: libgcc_s, libstdc++, libatomic):
base='libc6|libgcc-s1|libstdc\+\+6|libatomic1|gcc-[0-9]+-base|zlib1g|debconf|cdebconf|perl.*'
base+='|dpkg|tar|adduser|passwd|install-info|readline-common|libreadline8|libpam.*|libselinux1'
base+='|libaudit.*|libacl1|libbz2-1\.0|liblzma5|libzstd1|libcrypt1|libmd0|libpcre2-8-0|libtinfo6'
base+='|libsemanage.*|libsepol.*|libdb5\.3|libcap-ng0|libcom-err2|libuuid1|libudev1'
# Not needed, with all they pull in: openssh-client (mpirun needs ssh only to start daemons on
# other hosts; it brings Kerberos, OpenSSL and libfido2); libxml2 and libicu72 (36 MiB), wanted
# only by hwloc's libxml XML plugin, whose place hwloc's built-in XML parser takes (that plugin
# is deleted below).
skip="^($base|openssh-client|libxml2|libicu[0-9]+)\$"

apt-cache show "${roots[0]}" >/dev/null 2>&1 || apt-get update >/dev/null
# The dependency graph, walked from the roots without entering skipped packages. Each group of
# alternatives ("a | b") takes its first real package; a virtual package without a candidate
# (<debconf-2.0>, <ssh-client>, <libopencl1>) is skipped.
mapfile -t pkgs < <(
  apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
    --no-replaces --no-enhances "${roots[@]}" |
  awk -v skip="$skip" -v roots="${roots[*]}" '
    /^[^ ]/ { cur = (($1 in hdr) ? "" : $1); hdr[$1] = 1; ingroup = 0; next }
    cur != "" && /^ [ |](Pre)?Depends: / {
      alt = ($1 ~ /^\|/); d = $2
      if (!ingroup) { ng[cur]++; ingroup = 1; first[cur, ng[cur]] = "" }
      if (first[cur, ng[cur]] == "" && d !~ /^</) first[cur, ng[cur]] = d
      if (!alt) ingroup = 0
      next }
    END {
      n = split(roots, q, " "); for (i = 1; i <= n; i++) seen[q[i]] = 1
      for (h = 1; h <= n; h++) {
        p = q[h]; print p
        for (k = 1; k <= ng[p]; k++) {
          d = first[p, k]
          if (d == "" || d ~ skip || (d in seen)) continue
          seen[d] = 1; q[++n] = d
        }
      }
    }')
echo "packages (${#pkgs[@]}): ${pkgs[*]}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
chown _apt "$tmp" 2>/dev/null || true # apt downloads as _apt when it can
(cd "$tmp" && apt-get download -q "${pkgs[@]}" >/dev/null)
rm -rf "$dir" "$dir.tar.xz"
mkdir -p "$dir/root"
for deb in "$tmp"/*.deb; do
  dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >>"$dir/PACKAGES"
  dpkg -x "$deb" "$dir/root"
done
r=$dir/root
lib=$r/usr/lib/x86_64-linux-gnu
rm -rf "$r/usr/share/doc" "$r/usr/share/man" "$r/usr/share/locale" "$r/usr/share/lintian" \
  "$r/usr/share/bug" "$r/usr/share/info"
rm -f "$lib/hwloc/hwloc_xml_libxml.so" # needs libxml2, not carried (above)
# A few packages (libnl) install into /lib: merge it into /usr/lib, as a merged-/usr system
# has it, so that env.sh's LD_LIBRARY_PATH finds them in the bundle.
if [ -d "$r/lib" ]; then cp -a "$r/lib/." "$r/usr/lib/" && rm -rf "${r:?}/lib"; fi
# The names that Debian's alternatives give (update-alternatives does not run under dpkg -x).
ln -sfn mpirun.openmpi "$r/usr/bin/mpirun"
ln -sfn mpiexec.openmpi "$r/usr/bin/mpiexec"
ln -sfn ../libpsm1/libpsm_infinipath.so.1.16 "$lib/libpsm_infinipath.so.1"
# Debian's pmix-mca-params.conf names the system's plugin folder; the default is the bundle's.
sed -i 's|^mca_base_component_path *=.*|# mca_base_component_path: the default, ${libdir}/pmix (env.sh: PMIX_LIBDIR)|' \
  "$lib/pmix2/share/pmix-mca-params.conf"

cat >"$dir/env.sh" <<'ENV'
# Source in bash on the machine that runs the MPI programs:  . carry/mpi/env.sh
# Made by scripts/mpi_carry.sh: Debian 12's Open MPI 4.1 unpacked under root/, found from
# wherever this folder lies. docs/mpi_carry.md says more.
_mpi_root=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/root
_mpi_lib=$_mpi_root/usr/lib/x86_64-linux-gnu
export PATH="$_mpi_root/usr/bin${PATH:+:$PATH}"
export LD_LIBRARY_PATH="$_mpi_lib:$_mpi_lib/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# Open MPI's install folders. Debian configured libdir, pkglibdir (the MCA components) and
# pkgdatadir (help files) under ${prefix}, so OPAL_PREFIX moves them all; its sysconfdir
# (/etc/openmpi: openmpi-mca-params.conf, the default hostfile) is absolute and needs its own.
export OPAL_PREFIX=$_mpi_root/usr
export OPAL_SYSCONFDIR=$_mpi_root/etc/openmpi
# PMIx is Debian's external one, prefix /usr/lib/x86_64-linux-gnu/pmix2. Debian configured its
# libdir (whose pmix/ holds the plugins), datarootdir and sysconfdir (pmix-mca-params.conf) as
# absolute paths, so PMIX_INSTALL_PREFIX alone leaves them in /usr: each needs its variable.
export PMIX_INSTALL_PREFIX=$_mpi_lib/pmix2
export PMIX_LIBDIR=$_mpi_lib/pmix2/lib
export PMIX_DATAROOTDIR=$_mpi_lib/pmix2/share
export PMIX_SYSCONFDIR=$_mpi_lib/pmix2/share
# hwloc's plugins (PCI locality of GPUs and NICs); its folder is compiled in. The GL and OpenCL
# plugins are left out: one probes X displays, the other would start GPU drivers through
# OpenCL inside mpirun; neither helps on a headless machine.
export HWLOC_PLUGINS_PATH=$_mpi_lib/hwloc
export HWLOC_PLUGINS_BLACKLIST=hwloc_gl,hwloc_opencl
export UCX_MODULE_DIR=$_mpi_lib/ucx # only if someone turns UCX back on
# As root, and more processes than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# One host: start processes without ssh (the isolated launcher; the default rsh launcher stops
# mpirun when no ssh or rsh is on PATH, as in containers).
export OMPI_MCA_plm=isolated
# Transports: shared memory (vader) and self only, through the ob1 PML. No UCX (pml ucx, osc
# ucx: probes InfiniBand/RDMA devices that a container or VM lacks, and warns or fails), no
# openib/uct/ofi BTLs (verbs and libfabric, likewise) and no TCP BTL (probes every network
# interface; not needed inside one host). Debian's openmpi-mca-params.conf already says
# pml=^ucx, btl=^uct,openib,ofi, mtl=^ofi, osc=^ucx,pt2pt; these name the choice outright.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_osc=^ucx,pt2pt
# vader's single-copy path (CMA: process_vm_readv) needs ptrace rights that containers often
# withhold ("Read -1, expected ..., errno = 1"); none copies through the shared segment.
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_btl_base_warn_component_unused=0
# NVLink multicast stays off (KINDS.md: it can put the host's shared GPUs out of service).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
unset _mpi_root _mpi_lib
ENV

# Every shared library that a bundled ELF file needs and env.sh's LD_LIBRARY_PATH lacks: each
# must be in the target's base system (glibc, libgcc_s, libstdc++, libatomic, zlib, libudev...).
# (UCX's ucx/ folder counts: it loads its modules from there itself, libuct_ib before the one
# that needs it.)
names=$(ls "$lib" "$lib/pmix2/lib" "$lib/ucx" | sort -u)
ext=$(find "$r" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
  xargs -0 readelf -d 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort -u |
  grep -vxF -f <(echo "$names") || true)
echo "needed from the target system: $(echo "$ext" | tr '\n' ' ')"
(cd "$(dirname "$dir")" && tar cJf "$dir.tar.xz" "$(basename "$dir")")
echo "bundle: $(du -sh "$dir" | cut -f1) in $dir; $(du -sh "$dir.tar.xz" | cut -f1) as $dir.tar.xz"
# The device tool carries 64 MiB a call, the working tree included.
xz_mib=$(( $(stat -c %s "$dir.tar.xz") >> 20 ))
[ "$xz_mib" -lt 60 ] || { echo "mpi_carry.sh: $dir.tar.xz is ${xz_mib} MiB, too big" >&2; exit 1; }
