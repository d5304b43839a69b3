#!/bin/bash
# The ParRes Kernels' NVSHMEM transposes (../shared/nvshmem-programs/prk,
# unchanged) built twice from the same sources: against shoal (the installed
# shoal-nvcc) and against NVIDIA's NVSHMEM (its pip package on the GPU
# machine, ../shared/GPU-MACHINE.md), then run side by side in one go at NP
# PEs: each prints its average iteration time, and the script prints
# shoal's time over NVSHMEM's (below 1: shoal is faster). Runs on the GPU
# machine only; NVSHMEM is never a dependency of shoal.
#
#   NV=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem \
#   D=/tmp/d/usr bench/nvshmem/prk-compare.sh [BUILDDIR] [NP] [ITERATIONS] [ORDER]
#
# NV: NVSHMEM (include/, lib/); D: the prefix MPICH was unpacked into
# (default: the system's MPICH); BUILDDIR: shoal's build folder (default
# build, built with ninja); NP: PEs (default 2); the matrix is ORDER x ORDER
# doubles (default 8192), transposed ITERATIONS times (default 20).
# SHOAL_NVSHMEM_PROGRAMS names another folder of the programs; VARIANTS
# picks transposes (default "get ptr a2a": the put transpose misplaces its
# blocks for 2 or more PEs on either runtime, so it never validates); PRK_TIMEOUT bounds each run
# in seconds (default 120). NVSHMEM's
# runs start with its PMI bootstrap under MPICH's mpiexec.hydra, with
# NVSHMEM_REMOTE_TRANSPORT=none and NVLink multicast off. Where PEs share
# a GPU, run MPS: both runtimes then get CUDA_MPS_ACTIVE_THREAD_PERCENTAGE
# = 100 / (PEs per GPU), without which NVSHMEM refuses its stream barrier.
set -euo pipefail
cd "$(dirname "$0")/../.."
src=$(pwd)
build=$(cd "${1:-build}" && pwd)
np=${2:-2}
iters=${3:-20}
order=${4:-8192}
NV=${NV:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${ARCH:-sm_90}
progs=${SHOAL_NVSHMEM_PROGRAMS:-$src/../shared/nvshmem-programs}/prk
variants=${VARIANTS:-get ptr a2a}
run_limit=${PRK_TIMEOUT:-120}

fail() { echo "prk-compare.sh: $*" >&2; exit 1; }
[ -f "$progs/transpose-put-nvshmem.cu" ] || fail "no PRK transposes in $progs (set SHOAL_NVSHMEM_PROGRAMS)"
[ -f "$NV/include/nvshmem.h" ] || fail "no $NV/include/nvshmem.h (set NV)"
host_lib=$(ls "$NV"/lib/libnvshmem_host.so* 2>/dev/null | head -1 || true)
[ -n "$host_lib" ] || fail "no libnvshmem_host.so* in $NV/lib"
[ -f "$build/install.sh" ] || fail "no $build/install.sh (configure and build shoal first)"
if [ -n "${D:-}" ]; then
    mpi_inc=$D/include/x86_64-linux-gnu/mpich mpi_lib=$D/lib/x86_64-linux-gnu mpiexec=$D/bin/mpiexec.hydra
else
    mpi_inc=/usr/include/x86_64-linux-gnu/mpich mpi_lib=/usr/lib/x86_64-linux-gnu mpiexec=$(command -v mpiexec.hydra || true)
fi
[ -f "$mpi_inc/mpi.h" ] || fail "no $mpi_inc/mpi.h (set D to the unpacked MPICH prefix)"
[ -x "$mpiexec" ] || fail "no mpiexec.hydra (set D to the unpacked MPICH prefix)"
cuda_root=$(dirname "$(dirname "$(readlink -f "$NVCC")")")
stubs=
for d in "$cuda_root/lib64/stubs" "$cuda_root/targets/x86_64-linux/lib/stubs"; do
    [ -f "$d/libcuda.so" ] && stubs=$d && break
done

tmp=$(mktemp -d /tmp/shoal-prk-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
DESTDIR=$tmp/root sh "$build/install.sh" > "$tmp/install.log" 2>&1 || fail "installing shoal failed ($tmp/install.log)"
bin=$(dirname "$(find "$tmp/root" -path '*/bin/shoal-nvcc' | head -1)")
[ -x "$bin/shoal-nvcc" ] || fail "no installed shoal-nvcc (shoal built without CUDA?)"
ln -s "$host_lib" "$tmp/libnvshmem_host.so"

# PRK's own build line, with each runtime's compiler and libraries.
flags=(-std=c++20 -O3 --extended-lambda -rdc=true -arch="$ARCH" -D_X86INTRIN_H_INCLUDED)
for v in $variants; do
    name=transpose-$v-nvshmem
    (cd "$progs" && "$bin/shoal-nvcc" "${flags[@]}" "$name.cu" -lcublas -lcublasLt -o "$tmp/$name-shoal") \
        > "$tmp/$name-shoal.log" 2>&1 || { tail -20 "$tmp/$name-shoal.log"; fail "$name: build against shoal failed"; }
    (cd "$progs" && "$NVCC" "${flags[@]}" -I"$NV/include" -I"$mpi_inc" "$name.cu" -o "$tmp/$name-nvshmem" \
        -L"$tmp" -L"$NV/lib" -lnvshmem_host -lnvshmem_device -L"$mpi_lib" -lmpich ${stubs:+-L"$stubs"} -lcuda \
        -lcublas -lcublasLt -Xlinker -rpath -Xlinker "$NV/lib" -Xlinker -rpath -Xlinker "$mpi_lib") \
        > "$tmp/$name-nvshmem.log" 2>&1 || { tail -20 "$tmp/$name-nvshmem.log"; fail "$name: build against NVSHMEM failed"; }
done

# "Rate (MB/s): R Avg time (s): T" -> T; the run must validate.
avg_time() {
    grep -q "Solution validates" "$1" || { tail -20 "$1" >&2; return 1; }
    sed -n 's/.*Avg time (s): *\([0-9.eE+-]*\).*/\1/p' "$1" | tail -1
}
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
# PEs sharing a GPU: NVSHMEM refuses some calls (barrier_all_on_stream)
# unless MPS splits the GPU's threads between them (a sum of at most 100%);
# both runtimes get the same share.
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -gt 0 ] && [ "$np" -gt "$gpus" ] && [ -z "${CUDA_MPS_ACTIVE_THREAD_PERCENTAGE:-}" ]; then
    export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$(( 100 / ((np + gpus - 1) / gpus) ))
    echo "prk-compare.sh: $np PEs on $gpus GPU(s): CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$CUDA_MPS_ACTIVE_THREAD_PERCENTAGE for both"
fi
printf '%-24s %4s %6s %14s %14s %8s\n' transpose PEs order "shoal (ms)" "NVSHMEM (ms)" ratio
rc=0
for v in $variants; do
    name=transpose-$v-nvshmem
    timeout "$run_limit" "$bin/oshrun" -n "$np" "$tmp/$name-shoal" "$iters" "$order" > "$tmp/$v-shoal.out" 2>&1 || true
    LD_LIBRARY_PATH=$NV/lib:${LD_LIBRARY_PATH:-} NVSHMEM_REMOTE_TRANSPORT=none NVSHMEM_BOOTSTRAP=PMI \
        timeout "$run_limit" "$mpiexec" -n "$np" "$tmp/$name-nvshmem" "$iters" "$order" > "$tmp/$v-nvshmem.out" 2>&1 || true
    if ! ts=$(avg_time "$tmp/$v-shoal.out") || [ -z "$ts" ]; then
        echo "$name: the shoal build did not validate:"; tail -15 "$tmp/$v-shoal.out"; rc=1; continue
    fi
    if ! tn=$(avg_time "$tmp/$v-nvshmem.out") || [ -z "$tn" ]; then
        echo "$name: the NVSHMEM build did not validate:"; tail -15 "$tmp/$v-nvshmem.out"; rc=1; continue
    fi
    awk -v n="$name" -v p="$np" -v o="$order" -v s="$ts" -v t="$tn" \
        'BEGIN { printf "%-24s %4d %6d %14.3f %14.3f %8.3f\n", n, p, o, s * 1e3, t * 1e3, s / t }'
done
exit $rc
