#!/bin/bash
# Builds the NVSHMEM comparison of bench/shoal-bench-sync-gpu.cu (compiled
# with -DSHOAL_BENCH_NVSHMEM) on the GPU machine, beside shoal's own build:
# NVSHMEM is never a dependency of shoal, so configure.py does not build it.
# NVSHMEM's pip package has no unversioned libnvshmem_host.so: the link goes
# through a symlink in a temporary folder, and the program finds the real
# library at run time through rpath (or LD_LIBRARY_PATH).
#
#   NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem \
#   D=/tmp/d/usr bench/nvshmem/build.sh [BUILDDIR]
#
# NV: NVSHMEM (include/, lib/); D: the prefix MPICH was unpacked into
# (../shared/GPU-MACHINE.md; default: the system's MPICH); BUILDDIR: shoal's
# build folder (default build), whose lib/libshoal.so must be built first
# (ninja). Writes BUILDDIR/bench/shoal-bench-sync-gpu-nvshmem. Run it with
#
#   LD_LIBRARY_PATH=$NV/lib:$LD_LIBRARY_PATH NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_DISABLE_NVLS=1 \
#   mpiexec.hydra -genv NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME lo -n 2 BUILDDIR/bench/shoal-bench-sync-gpu-nvshmem
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
NV=${NV:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}

[ -f "$NV/include/nvshmem.h" ] || { echo "build.sh: no $NV/include/nvshmem.h (set NV)" >&2; exit 1; }
host_lib=$(ls "$NV"/lib/libnvshmem_host.so* 2>/dev/null | head -1)
[ -n "$host_lib" ] || { echo "build.sh: no libnvshmem_host.so* in $NV/lib" >&2; exit 1; }
[ -f "$NV/lib/libnvshmem_device.a" ] || { echo "build.sh: no libnvshmem_device.a in $NV/lib" >&2; exit 1; }
[ -e "$build/lib/libshoal.so" ] || { echo "build.sh: no $build/lib/libshoal.so (run ninja first)" >&2; exit 1; }

if [ -n "${D:-}" ]; then
    mpi_inc=$D/include/x86_64-linux-gnu/mpich
    mpi_lib=$D/lib/x86_64-linux-gnu
else
    mpi_inc=/usr/include/x86_64-linux-gnu/mpich
    mpi_lib=/usr/lib/x86_64-linux-gnu
fi
[ -f "$mpi_inc/mpi.h" ] || { echo "build.sh: no $mpi_inc/mpi.h (set D to the unpacked MPICH prefix)" >&2; exit 1; }

# The driver library for -lcuda: the system's, else the toolkit's stub.
cuda_root=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
stubs=
for d in "$cuda_root/lib64/stubs" "$cuda_root/targets/x86_64-linux/lib/stubs"; do
    [ -f "$d/libcuda.so" ] && stubs=$d && break
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s "$host_lib" "$tmp/libnvshmem_host.so"

out=$build/bench/shoal-bench-sync-gpu-nvshmem
mkdir -p "$build/bench"
set -x
"$NVCC" -std=c++17 -O2 -g -rdc=true -arch="$ARCH" -DSHOAL_HAVE_CUDA=1 -DSHOAL_BENCH_NVSHMEM \
    -Iapi -Ibench -I"$NV/include" -I"$mpi_inc" \
    bench/shoal-bench-sync-gpu.cu -o "$out" \
    -L"$tmp" -L"$NV/lib" -lnvshmem_host -lnvshmem_device \
    -L"$build/lib" -lshoal -L"$mpi_lib" -lmpich ${stubs:+-L"$stubs"} -lcuda \
    -Xlinker -rpath -Xlinker "$build/lib" -Xlinker -rpath -Xlinker "$NV/lib" -Xlinker -rpath -Xlinker "$mpi_lib"
set +x
echo "build.sh: built $out"
