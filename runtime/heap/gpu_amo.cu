/* The kernels behind host atomics and stream waits on GPU heaps: one
 * thread each. The host cannot load a peer GPU's memory, so an atomic
 * asked for on the host runs on a GPU, where it is atomic with the
 * kernels' own atomics on the same word (api/shoal_device.cuh uses the
 * same system-scope atomics). Used by the GPU-mapped data path (self and
 * cuda_ipc) and by the staging proxy (staged, staged-over-MPI). */
#include <cuda/atomic>
#include <stdint.h>

#include "heap/gpu_amo.h"
#include "shoal_device.cuh" /* the comparisons of wait_until, as kernels make them */

template <typename T> static __device__ T amo_apply(T *word, const shoal__amo_t &a)
{
    cuda::atomic_ref<T, cuda::thread_scope_system> w(*word);
    T v = (T)a.operand, c = (T)a.compare;
    switch (a.op) {
    case SHOAL__AMO_FETCH: return w.load(cuda::memory_order_seq_cst);
    case SHOAL__AMO_SET: w.store(v, cuda::memory_order_seq_cst); return 0;
    case SHOAL__AMO_SWAP: return w.exchange(v, cuda::memory_order_seq_cst);
    case SHOAL__AMO_CSWAP: w.compare_exchange_strong(c, v, cuda::memory_order_seq_cst); return c;
    case SHOAL__AMO_ADD: return w.fetch_add(v, cuda::memory_order_seq_cst);
    case SHOAL__AMO_AND: return w.fetch_and(v, cuda::memory_order_seq_cst);
    case SHOAL__AMO_OR: return w.fetch_or(v, cuda::memory_order_seq_cst);
    case SHOAL__AMO_XOR: return w.fetch_xor(v, cuda::memory_order_seq_cst);
    default: return 0;
    }
}

/* What this stream did before (a put_signal's data) is visible before the
 * atomic; the old value goes to result (pinned host or device memory). */
static __global__ void amo_kernel(void *word, shoal__amo_t a, void *result)
{
    __threadfence_system();
    if (a.size == 4) {
        uint32_t old = amo_apply((uint32_t *)word, a);
        if (result != nullptr) *(volatile uint32_t *)result = old;
    } else {
        uint64_t old = amo_apply((uint64_t *)word, a);
        if (result != nullptr) *(volatile uint64_t *)result = old;
    }
    __threadfence_system();
}

/* Spin (with short sleeps, leaving the SM's issue slots to others) until
 * the word satisfies cmp; acquire, so the stream's later work sees what
 * the writer stored before it. */
static __global__ void wait_kernel(const uint64_t *word, int cmp, uint64_t value)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system> w(*(uint64_t *)word);
    while (!shoal__dev_compare<uint64_t>(w.load(cuda::memory_order_acquire), cmp, value)) __nanosleep(256);
}

extern "C" cudaError_t shoal__gpu_amo_launch(cudaStream_t stream, void *word, const shoal__amo_t *a, void *result)
{
    amo_kernel<<<1, 1, 0, stream>>>(word, *a, result);
    return cudaGetLastError();
}

extern "C" cudaError_t shoal__gpu_wait_launch(cudaStream_t stream, const uint64_t *word, int cmp, uint64_t value)
{
    wait_kernel<<<1, 1, 0, stream>>>(word, cmp, value);
    return cudaGetLastError();
}

cudaError_t shoal__gpu_kernels_preload(void)
{
    struct cudaFuncAttributes attr;
    cudaError_t err = cudaFuncGetAttributes(&attr, amo_kernel);
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, wait_kernel);
    return err;
}
