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

/* The wait_until family on a stream: each included element in turn until
 * it satisfies cmp against value (or its own value); then acquire, as
 * above. Status and values given in host memory travel in the launch's
 * parameters, a chunk of SHOAL__WAIT_CHUNK elements a kernel: nothing to
 * allocate or copy (a copy from pageable memory may wait for the stream,
 * which here waits for a peer), and a CUDA graph captures it. Given in
 * device memory, the kernel reads them when it runs. Elements are read
 * volatile: 2-byte words have no system-scope atomic load. */
#define SHOAL__WAIT_CHUNK 256
typedef struct shoal__wait_chunk {
    uint64_t values[SHOAL__WAIT_CHUNK];
    int status[SHOAL__WAIT_CHUNK];
} shoal__wait_chunk_t;

template <typename T>
static __global__ void wait_n_kernel(const T *ivars, unsigned n, int cmp, T value, bool has_status, bool vector,
                                     const int *dstatus, const T *dvalues, shoal__wait_chunk_t c)
{
    for (unsigned i = 0; i < n; i++) {
        int excluded = dstatus != nullptr ? dstatus[i] : has_status ? c.status[i] : 0;
        if (excluded != 0) continue;
        T ref = dvalues != nullptr ? dvalues[i] : vector ? (T)c.values[i] : value;
        while (!shoal__dev_compare<T>(*(const volatile T *)&ivars[i], cmp, ref)) __nanosleep(256);
    }
    __threadfence_system();
}

template <typename T>
static cudaError_t wait_n_start(cudaStream_t stream, const void *ivars, size_t n, const int *status, bool status_dev,
                                int cmp, const void *values, bool values_dev, uint64_t value)
{
    shoal__wait_chunk_t c;
    for (size_t at = 0; at < n; at += SHOAL__WAIT_CHUNK) {
        unsigned m = (unsigned)(n - at < SHOAL__WAIT_CHUNK ? n - at : SHOAL__WAIT_CHUNK);
        for (unsigned i = 0; i < m; i++) {
            c.status[i] = status != nullptr && !status_dev ? status[at + i] : 0;
            c.values[i] = values != nullptr && !values_dev ? (uint64_t)((const T *)values)[at + i] : 0;
        }
        wait_n_kernel<T><<<1, 1, 0, stream>>>((const T *)ivars + at, m, cmp, (T)value, status != nullptr,
                                              values != nullptr, status_dev ? status + at : nullptr,
                                              values_dev ? (const T *)values + at : nullptr, c);
        cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
}

extern "C" cudaError_t shoal__gpu_wait_n_launch(cudaStream_t stream, const void *ivars, size_t n, size_t size,
                                                bool is_signed, const int *status, bool status_dev, int cmp,
                                                const void *values, bool values_dev, uint64_t value)
{
    switch (size * 2 + (is_signed ? 1 : 0)) {
    case 4: return wait_n_start<uint16_t>(stream, ivars, n, status, status_dev, cmp, values, values_dev, value);
    case 5: return wait_n_start<int16_t>(stream, ivars, n, status, status_dev, cmp, values, values_dev, value);
    case 8: return wait_n_start<uint32_t>(stream, ivars, n, status, status_dev, cmp, values, values_dev, value);
    case 9: return wait_n_start<int32_t>(stream, ivars, n, status, status_dev, cmp, values, values_dev, value);
    case 16: return wait_n_start<uint64_t>(stream, ivars, n, status, status_dev, cmp, values, values_dev, value);
    case 17: return wait_n_start<int64_t>(stream, ivars, n, status, status_dev, cmp, values, values_dev, value);
    default: return cudaErrorInvalidValue;
    }
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
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, wait_n_kernel<uint16_t>);
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, wait_n_kernel<int16_t>);
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, wait_n_kernel<uint32_t>);
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, wait_n_kernel<int32_t>);
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, wait_n_kernel<uint64_t>);
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, wait_n_kernel<int64_t>);
    return err;
}
