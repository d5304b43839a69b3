#!/bin/bash
# Builds the peer comparison of bench/shoal-bench-coll-gpu.cu on the GPU
# machine, beside shoal's own build: NVSHMEM (-DSHOAL_BENCH_NVSHMEM) and
# NCCL (-DSHOAL_BENCH_NCCL), each compiled in where found. Neither is ever a
# dependency of shoal, so configure.py does not build this variant.
# PyTorch's pip packages carry both without the unversioned library names
# (libnvshmem_host.so, libnccl.so): the link goes through symlinks in a
# temporary folder, and the program finds the real libraries at run time
# through rpath (or LD_LIBRARY_PATH).
#
#   NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem \
#   NCCL=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl \
#   D=/tmp/d/usr bench/peers/build.sh [BUILDDIR]
#
# NV: NVSHMEM (include/, lib/); NCCL: NCCL (include/, lib/); either set to
# "none" leaves it out (and one not found is left out with a note); D: the
# prefix MPICH was unpacked into (../shared/GPU-MACHINE.md; default: the
# system's MPICH); BUILDDIR: shoal's build folder (default build), whose
# lib/libshoal.so must be built first (ninja). Writes
# BUILDDIR/bench/shoal-bench-coll-gpu-peers. Both want a GPU per PE (the
# two-GPU machine, nvidia-h200-x2); where PEs share a GPU the program skips
# them with a note. Run it with NVLink multicast off:
#
#   LD_LIBRARY_PATH=$NV/lib:$NCCL/lib:$LD_LIBRARY_PATH NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_DISABLE_NVLS=1 \
#   NCCL_NVLS_ENABLE=0 mpiexec.hydra -genv NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME lo -n 2 \
#   BUILDDIR/bench/shoal-bench-coll-gpu-peers [--quick]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=$(cd "${1:-build}" && pwd)
site=/opt/torch/.venv/lib/python3.12/site-packages/nvidia
NV=${NV:-$site/nvshmem}
NCCL=${NCCL:-$site/nccl}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}

[ -e "$build/lib/libshoal.so" ] || { echo "build.sh: no $build/lib/libshoal.so (run ninja first)" >&2; exit 1; }
if [ -n "${D:-}" ]; then
    mpi_inc=$D/include/x86_64-linux-gnu/mpich
    mpi_lib=$D/lib/x86_64-linux-gnu
else
    mpi_inc=/usr/include/x86_64-linux-gnu/mpich
    mpi_lib=/usr/lib/x86_64-linux-gnu
fi
[ -f "$mpi_inc/mpi.h" ] || { echo "build.sh: no $mpi_inc/mpi.h (set D to the unpacked MPICH prefix)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
defs=() incs=() libs=() rpaths=() rdc=-rdc=false

# NVSHMEM: the host library through a symlink, the device library static;
# its device calls need relocatable device code.
if [ "$NV" != none ]; then
    host_lib=$(ls "$NV"/lib/libnvshmem_host.so* 2>/dev/null | head -1 || true)
    if [ -f "$NV/include/nvshmem.h" ] && [ -n "$host_lib" ] && [ -f "$NV/lib/libnvshmem_device.a" ]; then
        ln -s "$host_lib" "$tmp/libnvshmem_host.so"
        defs+=(-DSHOAL_BENCH_NVSHMEM)
        incs+=(-I"$NV/include")
        libs+=(-lnvshmem_host -lnvshmem_device)
        rpaths+=("$NV/lib")
        rdc=-rdc=true
    else
        echo "build.sh: NVSHMEM left out: no include/nvshmem.h, lib/libnvshmem_host.so* and lib/libnvshmem_device.a in $NV (set NV)" >&2
        NV=none
    fi
fi
# NCCL: libnccl.so.2 through a symlink.
if [ "$NCCL" != none ]; then
    nccl_lib=$(ls "$NCCL"/lib/libnccl.so* 2>/dev/null | head -1 || true)
    if [ -f "$NCCL/include/nccl.h" ] && [ -n "$nccl_lib" ]; then
        [ -e "$tmp/libnccl.so" ] || ln -s "$nccl_lib" "$tmp/libnccl.so"
        defs+=(-DSHOAL_BENCH_NCCL)
        incs+=(-I"$NCCL/include")
        libs+=(-lnccl)
        rpaths+=("$NCCL/lib")
    else
        echo "build.sh: NCCL left out: no include/nccl.h and lib/libnccl.so* in $NCCL (set NCCL)" >&2
        NCCL=none
    fi
fi
[ ${#defs[@]} -gt 0 ] || { echo "build.sh: neither NVSHMEM nor NCCL found: nothing to compare (ninja builds the plain bench)" >&2; exit 1; }

# The driver library for -lcuda: the system's, else the toolkit's stub.
cuda_root=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
stubs=
for d in "$cuda_root/lib64/stubs" "$cuda_root/targets/x86_64-linux/lib/stubs"; do
    [ -f "$d/libcuda.so" ] && stubs=$d && break
done

rpath_flags=()
for d in "$build/lib" "${rpaths[@]}" "$mpi_lib"; do rpath_flags+=(-Xlinker -rpath -Xlinker "$d"); done
lib_dirs=(-L"$tmp")
for d in "${rpaths[@]}"; do lib_dirs+=(-L"$d"); done

out=$build/bench/shoal-bench-coll-gpu-peers
mkdir -p "$build/bench"
set -x
"$NVCC" -std=c++17 -O2 -g $rdc -arch="$ARCH" -DSHOAL_HAVE_CUDA=1 "${defs[@]}" \
    -Iapi -Ibench "${incs[@]}" -I"$mpi_inc" \
    bench/shoal-bench-coll-gpu.cu -o "$out" \
    "${lib_dirs[@]}" "${libs[@]}" \
    -L"$build/lib" -lshoal -L"$mpi_lib" -lmpich ${stubs:+-L"$stubs"} -lcuda \
    "${rpath_flags[@]}"
set +x
echo "build.sh: built $out (NVSHMEM: $([ "$NV" = none ] && echo no || echo "$NV"); NCCL: $([ "$NCCL" = none ] && echo no || echo "$NCCL"))"
