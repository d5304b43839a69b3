/*
 * NVSHMEM's device API, carried by shoal's (shoal_device.cuh): included by
 * nvshmem.h where nvcc compiles it. Written from NVSHMEM's public
 * documentation; kernels call NVSHMEM's names with no handle argument.
 *
 * The state. NVSHMEM's device calls take no shoal_device_t, so each CUDA
 * module keeps a copy of the process's (shoal__nv_state): with -rdc=true
 * one per device link (an inline variable in global memory, which the
 * device linker merges), else one per .cu file (in constant memory). Each file that includes this
 * header registers a copier when it is loaded (and withdraws it when it is
 * unloaded). nvshmem_init fills every registered copy on the instance's GPU,
 * team splits and destroys update them, nvshmem_finalize clears them; a
 * module loaded later (dlopen) is filled at the next NVSHMEM host call.
 * Kernels in any module, plain launches, cooperative launches or CUDA
 * graphs, read it at run time. Like shoal_device.cuh, this needs C++17.
 *
 * Functions with a host form too (nvshmem_putmem, nvshmem_quiet...) are
 * the host declarations of nvshmem.h, given a device body in the device
 * pass only (the host pass calls the library); device-only ones (the
 * _warp and _block forms) are defined in both passes.
 *
 * Errors. NVSHMEM's device calls return nothing: a call shoal refuses (a PE
 * out of range, memory outside the heap, a proxied call that failed or
 * timed out, the state not filled on this GPU) prints shoal's status, the
 * call and the PEs from the first thread of the calling group, then traps
 * (the kernel ends with cudaErrorLaunchFailure at the next synchronization).
 * Team collectives return an int: nonzero after the same message, no trap.
 *
 * Semantics are shoal's device API's (shoal_device.cuh): load/store where
 * the peer's heap is mapped, the device proxy elsewhere (other nodes,
 * staged pairs, atomics without native peer atomics). Thread-scope
 * collectives and barriers are one thread per PE; _warp and _block forms
 * are the whole warp or block, same arguments. README ("NVSHMEM programs")
 * lists the differences from NVSHMEM.
 */
#ifndef SHOAL_NVSHMEM_DEVICE_CUH
#define SHOAL_NVSHMEM_DEVICE_CUH

#if !defined(__CUDACC__)
#error "nvshmem_device.cuh is CUDA: compile with nvcc (nvshmem.h includes it there)"
#endif

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "shoal_device.cuh"

/* A host function given a device body in the device pass (the pattern
 * above) is "redeclared with __host__ __device__": intended. */
#pragma nv_diagnostic push
#pragma nv_diag_suppress 20040

#ifdef __CUDACC_RDC__
/* One per device link: an inline variable the device linker merges. (In
 * global memory: nvlink 13 crashes on inline __constant__ variables of
 * this size in 30 or more objects.) */
inline __device__ shoal_nvshmem_device_state_t shoal__nv_state;
#else
static __constant__ shoal_nvshmem_device_state_t shoal__nv_state;
#endif

/* On a stream of its own that does not wait for the legacy stream: a
 * kernel that runs while the state changes (it waits on the host, say)
 * does not hold the copy up. */
static int shoal__nv_bind(const shoal_nvshmem_device_state_t *state)
{
    cudaStream_t s = NULL;
    cudaError_t err = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    if (err == cudaSuccess)
        err = cudaMemcpyToSymbolAsync(shoal__nv_state, state, sizeof(*state), 0, cudaMemcpyHostToDevice, s);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    if (s != NULL) cudaStreamDestroy(s);
    return (int)err;
}

__attribute__((constructor)) static void shoal__nv_register(void) { shoal_nvshmem_device_register(shoal__nv_bind); }
__attribute__((destructor)) static void shoal__nv_unregister(void) { shoal_nvshmem_device_unregister(shoal__nv_bind); }

/* ------------------------------------------------------------ internals */

static __device__ __forceinline__ const char *shoal__nv_strerror(int rc)
{
    switch (rc) {
#define SHOAL__NV_STATUS_CASE(name, value, desc)                                                                       \
    case value: return "SHOAL_" #name " (" desc ")";
        SHOAL_STATUS_MAP(SHOAL__NV_STATUS_CASE)
#undef SHOAL__NV_STATUS_CASE
    }
    return "unknown status";
}

/* The message (the group's first thread) and the trap (every thread). */
static __device__ __noinline__ void shoal__nv_fail(const char *call, int pe, int rc, bool say)
{
    if (say) {
        if (!shoal__nv_state.ready)
            printf("shoal: %s in a kernel: NVSHMEM's device state is not set on this GPU (called before nvshmem_init, "
                   "after nvshmem_finalize, on a host heap, or on a GPU other than the instance's, device %d)\n",
                   call, shoal__nv_state.device);
        else if (pe >= 0)
            printf("shoal: PE %d: %s (PE %d) in a kernel: %s\n", shoal__nv_state.dev.my_pe, call, pe,
                   shoal__nv_strerror(rc));
        else
            printf("shoal: PE %d: %s in a kernel: %s\n", shoal__nv_state.dev.my_pe, call, shoal__nv_strerror(rc));
    }
    __trap();
}

/* Runs EXPR (a shoal status, with `dev` the instance's device handle) at
 * scope SCOPE; a failure traps with the message. */
#define SHOAL__NV_RUN(SCOPE, CALL, PE, EXPR)                                                                           \
    do {                                                                                                               \
        if (!shoal__nv_state.ready)                                                                                    \
            shoal__nv_fail((CALL), -1, SHOAL_ERR_INVALID_INSTANCE, shoal__dev_rank<SCOPE>() == 0);                     \
        const shoal_device_t &dev = shoal__nv_state.dev;                                                               \
        int nv_rc_ = (EXPR);                                                                                           \
        if (nv_rc_ != SHOAL_SUCCESS) shoal__nv_fail((CALL), (PE), nv_rc_, shoal__dev_rank<SCOPE>() == 0);              \
    } while (0)

/* The team of a handle, or NULL with *rc_p set. */
static __device__ __forceinline__ const shoal_dev_team_t *shoal__nv_team(nvshmem_team_t team, int *rc_p)
{
    int slot = team & 0xff;
    if (!shoal__nv_state.ready) {
        *rc_p = SHOAL_ERR_INVALID_INSTANCE;
        return NULL;
    }
    if (team < 0 || slot >= SHOAL_NVSHMEM_TEAM_SLOTS || (unsigned)team >> 8 != shoal__nv_state.gens[slot] ||
        shoal__nv_state.teams[slot].n_pes <= 0) {
        *rc_p = SHOAL_ERR_INVALID_ARG;
        return NULL;
    }
    *rc_p = shoal__nv_state.team_status[slot];
    return *rc_p == SHOAL_SUCCESS ? &shoal__nv_state.teams[slot] : NULL;
}

/* A team collective at SCOPE: EXPR with `dev` and `team` (a reference);
 * returns 0, or the status after the message. */
#define SHOAL__NV_TEAM_RUN(SCOPE, CALL, TEAM, EXPR)                                                                    \
    do {                                                                                                               \
        int nv_rc_;                                                                                                    \
        const shoal_dev_team_t *nv_team_ = shoal__nv_team((TEAM), &nv_rc_);                                            \
        if (nv_team_ != NULL) {                                                                                        \
            const shoal_device_t &dev = shoal__nv_state.dev;                                                           \
            const shoal_dev_team_t &team = *nv_team_;                                                                  \
            nv_rc_ = (EXPR);                                                                                           \
        }                                                                                                              \
        if (nv_rc_ != SHOAL_SUCCESS && shoal__dev_rank<SCOPE>() == 0) {                                                \
            if (!shoal__nv_state.ready)                                                                                \
                printf("shoal: %s in a kernel: NVSHMEM's device state is not set on this GPU\n", (CALL));              \
            else                                                                                                       \
                printf("shoal: PE %d: %s (team %d) in a kernel: %s\n", shoal__nv_state.dev.my_pe, (CALL), (int)(TEAM), \
                       shoal__nv_strerror(nv_rc_));                                                                    \
        }                                                                                                              \
        return nv_rc_ == SHOAL_SUCCESS ? 0 : nv_rc_;                                                                   \
    } while (0)

/* Acquiring loads of the words waits poll: atomic for 4 and 8 bytes; a
 * volatile load and a fence for the 2-byte types. */
template <typename T, size_t Size = sizeof(T)> struct shoal__nv_load {
    static __device__ __forceinline__ T get(T *p)
    {
        return cuda::atomic_ref<T, cuda::thread_scope_system>(*p).load(cuda::memory_order_acquire);
    }
};
template <typename T> struct shoal__nv_load<T, 2> {
    static __device__ __forceinline__ T get(T *p)
    {
        T v = *(volatile T *)p;
        __threadfence_system();
        return v;
    }
};
template <typename T> static __device__ __forceinline__ bool shoal__nv_ok(T *ivar, int cmp, T value)
{
    return shoal__dev_compare<T>(shoal__nv_load<T>::get(ivar), cmp, value);
}
#define SHOAL__NV_SKIP(status, i) ((status) != NULL && (status)[i] != 0)

/* OpenSHMEM's wait and test families on a vector of words, one value or
 * one per word (vals != NULL). */
template <typename T>
static __device__ __forceinline__ size_t shoal__nv_test_any(T *ivars, size_t n, const int *status, int cmp, T value,
                                                            const T *vals)
{
    for (size_t i = 0; i < n; i++)
        if (!SHOAL__NV_SKIP(status, i) && shoal__nv_ok<T>(&ivars[i], cmp, vals != NULL ? vals[i] : value)) return i;
    return SIZE_MAX;
}
template <typename T>
static __device__ __forceinline__ int shoal__nv_test_all(T *ivars, size_t n, const int *status, int cmp, T value,
                                                         const T *vals)
{
    for (size_t i = 0; i < n; i++)
        if (!SHOAL__NV_SKIP(status, i) && !shoal__nv_ok<T>(&ivars[i], cmp, vals != NULL ? vals[i] : value)) return 0;
    return 1;
}
template <typename T>
static __device__ __forceinline__ size_t shoal__nv_test_some(T *ivars, size_t n, size_t *indices, const int *status,
                                                             int cmp, T value, const T *vals)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!SHOAL__NV_SKIP(status, i) && shoal__nv_ok<T>(&ivars[i], cmp, vals != NULL ? vals[i] : value))
            indices[k++] = i;
    return k;
}
/* Every word excluded: the waits return at once (SIZE_MAX, 0). */
static __device__ __forceinline__ bool shoal__nv_all_skipped(size_t n, const int *status)
{
    for (size_t i = 0; i < n; i++)
        if (!SHOAL__NV_SKIP(status, i)) return false;
    return true;
}
template <typename T>
static __device__ __forceinline__ void shoal__nv_wait_all(T *ivars, size_t n, const int *status, int cmp, T value,
                                                          const T *vals)
{
    for (size_t i = 0; i < n; i++)
        if (!SHOAL__NV_SKIP(status, i))
            while (!shoal__nv_ok<T>(&ivars[i], cmp, vals != NULL ? vals[i] : value)) {
            }
}
template <typename T>
static __device__ __forceinline__ size_t shoal__nv_wait_any(T *ivars, size_t n, const int *status, int cmp, T value,
                                                            const T *vals)
{
    if (shoal__nv_all_skipped(n, status)) return SIZE_MAX;
    for (;;) {
        size_t i = shoal__nv_test_any<T>(ivars, n, status, cmp, value, vals);
        if (i != SIZE_MAX) return i;
    }
}
template <typename T>
static __device__ __forceinline__ size_t shoal__nv_wait_some(T *ivars, size_t n, size_t *indices, const int *status,
                                                             int cmp, T value, const T *vals)
{
    if (shoal__nv_all_skipped(n, status)) return 0;
    for (;;) {
        size_t k = shoal__nv_test_some<T>(ivars, n, indices, status, cmp, value, vals);
        if (k > 0) return k;
    }
}

/* nelems of size bytes; a count whose bytes overflow becomes SIZE_MAX,
 * which the range check refuses. */
static __device__ __forceinline__ size_t shoal__nv_bytes(size_t nelems, size_t size)
{
    return nelems > SIZE_MAX / size ? SIZE_MAX : nelems * size;
}

/* The lowest (worst: errors are negative) status of the group's threads. */
template <int Scope> static __device__ __forceinline__ int shoal__nv_group_min(int v)
{
    if (Scope == SHOAL__DEV_WARP) {
        unsigned w = shoal__dev_warp_size();
        return __reduce_min_sync(w == 32 ? 0xffffffffu : (1u << w) - 1, v);
    }
    if (Scope == SHOAL__DEV_BLOCK) {
        __shared__ int shoal__nv_min;
        if (shoal__dev_block_rank() == 0) shoal__nv_min = 0;
        __syncthreads();
        if (v < 0) atomicMin(&shoal__nv_min, v);
        __syncthreads();
        v = shoal__nv_min;
        __syncthreads(); /* read by all before the next call resets it */
    }
    return v;
}

/* Strided RMA by a group: its threads share the elements. */
template <int Scope>
static __device__ __forceinline__ int shoal__nv_strided_group(const shoal_device_t &dev, bool is_put, void *dest,
                                                              const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                                              size_t nelems, size_t size, int pe)
{
    int rc = SHOAL_SUCCESS;
    unsigned n = shoal__dev_size<Scope>();
    shoal__dev_sync<Scope>(); /* the group's writes to src first */
    for (size_t i = shoal__dev_rank<Scope>(); i < nelems && rc == SHOAL_SUCCESS; i += n) {
        char *d = (char *)dest + (ptrdiff_t)i * dst * (ptrdiff_t)size;
        const char *s = (const char *)src + (ptrdiff_t)i * sst * (ptrdiff_t)size;
        rc = is_put ? shoal_dev_put(dev, d, s, size, pe) : shoal_dev_get(dev, d, s, size, pe);
    }
    return shoal__nv_group_min<Scope>(rc);
}

/* The world team's barrier at scope Scope; a refusal traps with the message. */
template <int Scope> static __device__ __forceinline__ void shoal__nv_barrier_world(const char *call)
{
    int rc;
    const shoal_dev_team_t *t = shoal__nv_team(NVSHMEM_TEAM_WORLD, &rc);
    if (t != NULL) rc = shoal__dev_team_barrier<Scope>(shoal__nv_state.dev, *t);
    if (rc != SHOAL_SUCCESS) shoal__nv_fail(call, -1, rc, shoal__dev_rank<Scope>() == 0);
}

/* Atomics of the extended types (float, double): fetch, set and swap on
 * the same bits as an unsigned integer of their size. */
template <typename T> struct shoal__nv_bits {
    typedef typename cuda::std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type type;
};

/* ------------------------------------------------------------ device-only forms */

extern "C" {

/* _warp and _block RMA: bytes, sized, typed. */
#define SHOAL__NV_RMA_GROUP(SUFFIX, SCOPE)                                                                             \
    __device__ __forceinline__ void nvshmemx_putmem##SUFFIX(void *dest, const void *source, size_t bytes, int pe)      \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_putmem" #SUFFIX, pe, shoal_dev_put##SUFFIX(dev, dest, source, bytes, pe));      \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_getmem##SUFFIX(void *dest, const void *source, size_t bytes, int pe)      \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_getmem" #SUFFIX, pe, shoal_dev_get##SUFFIX(dev, dest, source, bytes, pe));      \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_putmem_nbi##SUFFIX(void *dest, const void *source, size_t bytes, int pe)  \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_putmem_nbi" #SUFFIX, pe,                                                        \
                      shoal_dev_put_nbi##SUFFIX(dev, dest, source, bytes, pe));                                        \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_getmem_nbi##SUFFIX(void *dest, const void *source, size_t bytes, int pe)  \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_getmem_nbi" #SUFFIX, pe,                                                        \
                      shoal_dev_get_nbi##SUFFIX(dev, dest, source, bytes, pe));                                        \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_putmem_signal##SUFFIX(void *dest, const void *source, size_t bytes,       \
                                                                   uint64_t *sig_addr, uint64_t signal, int sig_op,    \
                                                                   int pe)                                             \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_putmem_signal" #SUFFIX, pe,                                                     \
                      shoal_dev_put_signal##SUFFIX(dev, dest, source, bytes, sig_addr, signal, sig_op, pe));           \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_putmem_signal_nbi##SUFFIX(void *dest, const void *source, size_t bytes,   \
                                                                       uint64_t *sig_addr, uint64_t signal,            \
                                                                       int sig_op, int pe)                             \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_putmem_signal_nbi" #SUFFIX, pe,                                                 \
                      shoal_dev_put_signal##SUFFIX(dev, dest, source, bytes, sig_addr, signal, sig_op, pe));           \
    }
SHOAL__NV_RMA_GROUP(_warp, SHOAL__DEV_WARP)
SHOAL__NV_RMA_GROUP(_block, SHOAL__DEV_BLOCK)
#undef SHOAL__NV_RMA_GROUP

#define SHOAL__NV_SIZED_GROUP1(BITS, SUFFIX, SCOPE)                                                                    \
    __device__ __forceinline__ void nvshmemx_put##BITS##SUFFIX(void *dest, const void *source, size_t nelems, int pe)  \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_put" #BITS #SUFFIX, pe,                                                         \
                      shoal_dev_put##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), pe));                \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_get##BITS##SUFFIX(void *dest, const void *source, size_t nelems, int pe)  \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_get" #BITS #SUFFIX, pe,                                                         \
                      shoal_dev_get##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), pe));                \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_put##BITS##_nbi##SUFFIX(void *dest, const void *source, size_t nelems,    \
                                                                     int pe)                                           \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_put" #BITS "_nbi" #SUFFIX, pe,                                                  \
                      shoal_dev_put_nbi##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), pe));            \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_get##BITS##_nbi##SUFFIX(void *dest, const void *source, size_t nelems,    \
                                                                     int pe)                                           \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_get" #BITS "_nbi" #SUFFIX, pe,                                                  \
                      shoal_dev_get_nbi##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), pe));            \
    }
#define SHOAL__NV_SIZED_GROUP(BITS)                                                                                    \
    SHOAL__NV_SIZED_GROUP1(BITS, _warp, SHOAL__DEV_WARP) SHOAL__NV_SIZED_GROUP1(BITS, _block, SHOAL__DEV_BLOCK)
SHOAL__NV_SIZED_GROUP(8)
SHOAL__NV_SIZED_GROUP(16)
SHOAL__NV_SIZED_GROUP(32)
SHOAL__NV_SIZED_GROUP(64)
SHOAL__NV_SIZED_GROUP(128)
#undef SHOAL__NV_SIZED_GROUP
#undef SHOAL__NV_SIZED_GROUP1

#define SHOAL__NV_TYPED_GROUP1(T, N, SUFFIX, SCOPE)                                                                    \
    __device__ __forceinline__ void nvshmemx_##N##_put##SUFFIX(T *dest, const T *source, size_t nelems, int pe)        \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_" #N "_put" #SUFFIX, pe,                                                        \
                      shoal_dev_put##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), pe));               \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_##N##_get##SUFFIX(T *dest, const T *source, size_t nelems, int pe)        \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_" #N "_get" #SUFFIX, pe,                                                        \
                      shoal_dev_get##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), pe));               \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_##N##_put_nbi##SUFFIX(T *dest, const T *source, size_t nelems, int pe)    \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_" #N "_put_nbi" #SUFFIX, pe,                                                    \
                      shoal_dev_put_nbi##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), pe));           \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_##N##_get_nbi##SUFFIX(T *dest, const T *source, size_t nelems, int pe)    \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_" #N "_get_nbi" #SUFFIX, pe,                                                    \
                      shoal_dev_get_nbi##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), pe));           \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_##N##_put_signal##SUFFIX(T *dest, const T *source, size_t nelems,         \
                                                                      uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                                                      int pe)                                          \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_" #N "_put_signal" #SUFFIX, pe,                                                 \
                      shoal_dev_put_signal##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), sig_addr,    \
                                                   signal, sig_op, pe));                                               \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_##N##_put_signal_nbi##SUFFIX(T *dest, const T *source, size_t nelems,     \
                                                                          uint64_t *sig_addr, uint64_t signal,         \
                                                                          int sig_op, int pe)                          \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_" #N "_put_signal_nbi" #SUFFIX, pe,                                             \
                      shoal_dev_put_signal##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), sig_addr,    \
                                                   signal, sig_op, pe));                                               \
    }
#define SHOAL__NV_TYPED_GROUP(T, N)                                                                                    \
    SHOAL__NV_TYPED_GROUP1(T, N, _warp, SHOAL__DEV_WARP) SHOAL__NV_TYPED_GROUP1(T, N, _block, SHOAL__DEV_BLOCK)
NVSHMEM__RMA_TYPES(SHOAL__NV_TYPED_GROUP)
#undef SHOAL__NV_TYPED_GROUP
#undef SHOAL__NV_TYPED_GROUP1

/* _warp and _block strided RMA (typed and sized) and sized put_signal. */
#define SHOAL__NV_STRIDED_GROUP1(NAME, T, SIZE, SUFFIX, SCOPE)                                                         \
    __device__ __forceinline__ void nvshmemx_##NAME##_iput##SUFFIX(T *dest, const T *source, ptrdiff_t dst,            \
                                                                   ptrdiff_t sst, size_t nelems, int pe)               \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_" #NAME "_iput" #SUFFIX, pe,                                                    \
                      shoal__nv_strided_group<SCOPE>(dev, true, dest, source, dst, sst, nelems, SIZE, pe));            \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_##NAME##_iget##SUFFIX(T *dest, const T *source, ptrdiff_t dst,            \
                                                                   ptrdiff_t sst, size_t nelems, int pe)               \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_" #NAME "_iget" #SUFFIX, pe,                                                    \
                      shoal__nv_strided_group<SCOPE>(dev, false, dest, source, dst, sst, nelems, SIZE, pe));           \
    }
#define SHOAL__NV_STRIDED_TYPED(T, N)                                                                                  \
    SHOAL__NV_STRIDED_GROUP1(N, T, sizeof(T), _warp, SHOAL__DEV_WARP)                                                  \
    SHOAL__NV_STRIDED_GROUP1(N, T, sizeof(T), _block, SHOAL__DEV_BLOCK)
NVSHMEM__RMA_TYPES(SHOAL__NV_STRIDED_TYPED)
#undef SHOAL__NV_STRIDED_TYPED
#undef SHOAL__NV_STRIDED_GROUP1

/* The sized ones are nvshmemx_iputBITS_warp (no underscore before BITS). */
#define SHOAL__NV_SIZED_MORE1(BITS, SUFFIX, SCOPE)                                                                     \
    __device__ __forceinline__ void nvshmemx_iput##BITS##SUFFIX(void *dest, const void *source, ptrdiff_t dst,         \
                                                                ptrdiff_t sst, size_t nelems, int pe)                  \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_iput" #BITS #SUFFIX, pe,                                                        \
                      shoal__nv_strided_group<SCOPE>(dev, true, dest, source, dst, sst, nelems, BITS / 8, pe));        \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_iget##BITS##SUFFIX(void *dest, const void *source, ptrdiff_t dst,         \
                                                                ptrdiff_t sst, size_t nelems, int pe)                  \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_iget" #BITS #SUFFIX, pe,                                                        \
                      shoal__nv_strided_group<SCOPE>(dev, false, dest, source, dst, sst, nelems, BITS / 8, pe));       \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_put##BITS##_signal##SUFFIX(void *dest, const void *source, size_t nelems, \
                                                                        uint64_t *sig_addr, uint64_t signal,           \
                                                                        int sig_op, int pe)                            \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_put" #BITS "_signal" #SUFFIX, pe,                                               \
                      shoal_dev_put_signal##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), sig_addr,     \
                                                   signal, sig_op, pe));                                               \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_put##BITS##_signal_nbi##SUFFIX(void *dest, const void *source,            \
                                                                            size_t nelems, uint64_t *sig_addr,         \
                                                                            uint64_t signal, int sig_op, int pe)       \
    {                                                                                                                  \
        SHOAL__NV_RUN(SCOPE, "nvshmemx_put" #BITS "_signal_nbi" #SUFFIX, pe,                                           \
                      shoal_dev_put_signal##SUFFIX(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), sig_addr,     \
                                                   signal, sig_op, pe));                                               \
    }
#define SHOAL__NV_SIZED_MORE(BITS)                                                                                     \
    SHOAL__NV_SIZED_MORE1(BITS, _warp, SHOAL__DEV_WARP) SHOAL__NV_SIZED_MORE1(BITS, _block, SHOAL__DEV_BLOCK)
SHOAL__NV_SIZED_MORE(8)
SHOAL__NV_SIZED_MORE(16)
SHOAL__NV_SIZED_MORE(32)
SHOAL__NV_SIZED_MORE(64)
SHOAL__NV_SIZED_MORE(128)
#undef SHOAL__NV_SIZED_MORE
#undef SHOAL__NV_SIZED_MORE1

/* _warp and _block barriers and collectives. */
#define SHOAL__NV_COLL_GROUP(SUFFIX, SCOPE)                                                                            \
    __device__ __forceinline__ void nvshmemx_barrier_all##SUFFIX(void)                                                 \
    {                                                                                                                  \
        shoal__nv_barrier_world<SCOPE>("nvshmemx_barrier_all" #SUFFIX);                                                \
    }                                                                                                                  \
    __device__ __forceinline__ void nvshmemx_sync_all##SUFFIX(void)                                                    \
    {                                                                                                                  \
        shoal__nv_barrier_world<SCOPE>("nvshmemx_sync_all" #SUFFIX);                                                   \
    }                                                                                                                  \
    __device__ __forceinline__ int nvshmemx_barrier##SUFFIX(nvshmem_team_t team_h)                                     \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, "nvshmemx_barrier" #SUFFIX, team_h, shoal__dev_team_barrier<SCOPE>(dev, team));      \
    }                                                                                                                  \
    __device__ __forceinline__ int nvshmemx_team_sync##SUFFIX(nvshmem_team_t team_h)                                   \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, "nvshmemx_team_sync" #SUFFIX, team_h, shoal__dev_team_barrier<SCOPE>(dev, team));    \
    }                                                                                                                  \
    __device__ __forceinline__ int nvshmemx_sync##SUFFIX(nvshmem_team_t team_h)                                        \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, "nvshmemx_sync" #SUFFIX, team_h, shoal__dev_team_barrier<SCOPE>(dev, team));         \
    }                                                                                                                  \
    __device__ __forceinline__ int nvshmemx_broadcastmem##SUFFIX(nvshmem_team_t team_h, void *dest,                    \
                                                                 const void *source, size_t nelems, int PE_root)       \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, "nvshmemx_broadcastmem" #SUFFIX, team_h,                                             \
                           shoal__dev_team_push<SCOPE>(dev, team, 0, dest, source,                                     \
                                                       shoal__dev_team_bytes<char>(dev, nelems), PE_root));            \
    }                                                                                                                  \
    __device__ __forceinline__ int nvshmemx_fcollectmem##SUFFIX(nvshmem_team_t team_h, void *dest, const void *source, \
                                                                size_t nelems)                                         \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, "nvshmemx_fcollectmem" #SUFFIX, team_h,                                              \
                           shoal__dev_team_push<SCOPE>(dev, team, 1, dest, source,                                     \
                                                       shoal__dev_team_bytes<char>(dev, nelems), 0));                  \
    }                                                                                                                  \
    __device__ __forceinline__ int nvshmemx_alltoallmem##SUFFIX(nvshmem_team_t team_h, void *dest, const void *source, \
                                                                size_t nelems)                                         \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, "nvshmemx_alltoallmem" #SUFFIX, team_h,                                              \
                           shoal__dev_team_push<SCOPE>(dev, team, 2, dest, source,                                     \
                                                       shoal__dev_team_bytes<char>(dev, nelems), 0));                  \
    }
SHOAL__NV_COLL_GROUP(_warp, SHOAL__DEV_WARP)
SHOAL__NV_COLL_GROUP(_block, SHOAL__DEV_BLOCK)
#undef SHOAL__NV_COLL_GROUP

/* Typed collectives and reductions at every scope: PREFIX names the
 * thread form (nvshmem_) and the group forms (nvshmemx_). */
#define SHOAL__NV_COLL_TYPED(QUAL, PREFIX, T, N, SUFFIX, SCOPE)                                                        \
    QUAL int PREFIX##N##_broadcast##SUFFIX(nvshmem_team_t team_h, T *dest, const T *source, size_t nelems,             \
                                           int PE_root)                                                                \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, #PREFIX #N "_broadcast" #SUFFIX, team_h,                                             \
                           shoal__dev_team_push<SCOPE>(dev, team, 0, dest, source,                                     \
                                                       shoal__dev_team_bytes<T>(dev, nelems), PE_root));               \
    }                                                                                                                  \
    QUAL int PREFIX##N##_fcollect##SUFFIX(nvshmem_team_t team_h, T *dest, const T *source, size_t nelems)              \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, #PREFIX #N "_fcollect" #SUFFIX, team_h,                                              \
                           shoal__dev_team_push<SCOPE>(dev, team, 1, dest, source,                                     \
                                                       shoal__dev_team_bytes<T>(dev, nelems), 0));                     \
    }                                                                                                                  \
    QUAL int PREFIX##N##_alltoall##SUFFIX(nvshmem_team_t team_h, T *dest, const T *source, size_t nelems)              \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, #PREFIX #N "_alltoall" #SUFFIX, team_h,                                              \
                           shoal__dev_team_push<SCOPE>(dev, team, 2, dest, source,                                     \
                                                       shoal__dev_team_bytes<T>(dev, nelems), 0));                     \
    }
#define SHOAL__NV_REDUCE1(QUAL, PREFIX, T, N, OP, SUFFIX, SCOPE)                                                       \
    QUAL int PREFIX##N##_##OP##_reduce##SUFFIX(nvshmem_team_t team_h, T *dest, const T *source, size_t nreduce)        \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, #PREFIX #N "_" #OP "_reduce" #SUFFIX, team_h,                                        \
                           (shoal__dev_team_reduce<SCOPE, T, shoal__dev_op_##OP>(dev, team, dest, source, nreduce)));  \
    }                                                                                                                  \
    QUAL int PREFIX##N##_##OP##_reducescatter##SUFFIX(nvshmem_team_t team_h, T *dest, const T *source, size_t nreduce) \
    {                                                                                                                  \
        SHOAL__NV_TEAM_RUN(SCOPE, #PREFIX #N "_" #OP "_reducescatter" #SUFFIX, team_h,                                 \
                           (shoal__dev_team_reducescatter<SCOPE, T, shoal__dev_op_##OP>(dev, team, dest, source,       \
                                                                                        nreduce)));                    \
    }
#define SHOAL__NV_REDUCE_ARITH(QUAL, PREFIX, T, N, SUFFIX, SCOPE)                                                      \
    SHOAL__NV_REDUCE1(QUAL, PREFIX, T, N, sum, SUFFIX, SCOPE)                                                          \
    SHOAL__NV_REDUCE1(QUAL, PREFIX, T, N, prod, SUFFIX, SCOPE)                                                         \
    SHOAL__NV_REDUCE1(QUAL, PREFIX, T, N, min, SUFFIX, SCOPE)                                                          \
    SHOAL__NV_REDUCE1(QUAL, PREFIX, T, N, max, SUFFIX, SCOPE)
#define SHOAL__NV_REDUCE_BIT(QUAL, PREFIX, T, N, SUFFIX, SCOPE)                                                        \
    SHOAL__NV_REDUCE1(QUAL, PREFIX, T, N, and, SUFFIX, SCOPE)                                                          \
    SHOAL__NV_REDUCE1(QUAL, PREFIX, T, N, or, SUFFIX, SCOPE)                                                           \
    SHOAL__NV_REDUCE1(QUAL, PREFIX, T, N, xor, SUFFIX, SCOPE)

#define SHOAL__NV_DEV __device__ __forceinline__
#define SHOAL__NV_COLL_W(T, N) SHOAL__NV_COLL_TYPED(SHOAL__NV_DEV, nvshmemx_, T, N, _warp, SHOAL__DEV_WARP)
#define SHOAL__NV_COLL_B(T, N) SHOAL__NV_COLL_TYPED(SHOAL__NV_DEV, nvshmemx_, T, N, _block, SHOAL__DEV_BLOCK)
#define SHOAL__NV_ARITH_W(T, N) SHOAL__NV_REDUCE_ARITH(SHOAL__NV_DEV, nvshmemx_, T, N, _warp, SHOAL__DEV_WARP)
#define SHOAL__NV_ARITH_B(T, N) SHOAL__NV_REDUCE_ARITH(SHOAL__NV_DEV, nvshmemx_, T, N, _block, SHOAL__DEV_BLOCK)
#define SHOAL__NV_BIT_W(T, N) SHOAL__NV_REDUCE_BIT(SHOAL__NV_DEV, nvshmemx_, T, N, _warp, SHOAL__DEV_WARP)
#define SHOAL__NV_BIT_B(T, N) SHOAL__NV_REDUCE_BIT(SHOAL__NV_DEV, nvshmemx_, T, N, _block, SHOAL__DEV_BLOCK)
NVSHMEM__RMA_TYPES(SHOAL__NV_COLL_W)
NVSHMEM__RMA_TYPES(SHOAL__NV_COLL_B)
SHOAL_REDUCE_ARITH_STD_TYPES(SHOAL__NV_ARITH_W)
NVSHMEM__HALF_TYPES(SHOAL__NV_ARITH_W)
SHOAL_REDUCE_ARITH_STD_TYPES(SHOAL__NV_ARITH_B)
NVSHMEM__HALF_TYPES(SHOAL__NV_ARITH_B)
SHOAL_REDUCE_BITWISE_TYPES(SHOAL__NV_BIT_W)
SHOAL_REDUCE_BITWISE_TYPES(SHOAL__NV_BIT_B)
#undef SHOAL__NV_COLL_W
#undef SHOAL__NV_COLL_B
#undef SHOAL__NV_ARITH_W
#undef SHOAL__NV_ARITH_B
#undef SHOAL__NV_BIT_W
#undef SHOAL__NV_BIT_B

/* ------------------------------------------------------------ forms with a host twin: device bodies */

#ifdef __CUDA_ARCH__
#define SHOAL__NV_HD __host__ __device__ __forceinline__

SHOAL__NV_HD void nvshmem_info_get_version(int *major, int *minor)
{
    if (major) *major = NVSHMEM_MAJOR_VERSION;
    if (minor) *minor = NVSHMEM_MINOR_VERSION;
}
SHOAL__NV_HD void nvshmem_info_get_name(char *name)
{
    const char *s = NVSHMEM_VENDOR_STRING;
    int i = 0;
    if (name == NULL) return;
    for (; s[i] != '\0' && i < NVSHMEM_MAX_NAME_LEN - 1; i++) name[i] = s[i];
    name[i] = '\0';
}
SHOAL__NV_HD void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch)
{
    if (major) *major = NVSHMEM_VENDOR_MAJOR_VERSION;
    if (minor) *minor = NVSHMEM_VENDOR_MINOR_VERSION;
    if (patch) *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}
SHOAL__NV_HD int nvshmem_my_pe(void) { return shoal__nv_state.ready ? shoal__nv_state.dev.my_pe : -1; }
SHOAL__NV_HD int nvshmem_n_pes(void) { return shoal__nv_state.ready ? shoal__nv_state.dev.n_pes : -1; }
SHOAL__NV_HD int nvshmem_team_my_pe(nvshmem_team_t team_h)
{
    int rc;
    const shoal_dev_team_t *t = shoal__nv_team(team_h, &rc);
    return t != NULL ? t->my_pe : -1;
}
SHOAL__NV_HD int nvshmem_team_n_pes(nvshmem_team_t team_h)
{
    int rc;
    const shoal_dev_team_t *t = shoal__nv_team(team_h, &rc);
    return t != NULL ? t->n_pes : -1;
}
SHOAL__NV_HD int nvshmemx_my_pe(nvshmem_team_t team_h) { return nvshmem_team_my_pe(team_h); }
SHOAL__NV_HD int nvshmemx_n_pes(nvshmem_team_t team_h) { return nvshmem_team_n_pes(team_h); }
SHOAL__NV_HD int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team)
{
    int rc;
    const shoal_dev_team_t *s = shoal__nv_team(src_team, &rc), *d = shoal__nv_team(dest_team, &rc);
    if (s == NULL || d == NULL || src_pe < 0 || src_pe >= s->n_pes) return -1;
    int pe = s->start + src_pe * s->stride, k = pe - d->start;
    if (d->n_pes == 1) return k == 0 ? 0 : -1; /* a one-member team's stride is 0 */
    if (d->stride <= 0 || k < 0 || k % d->stride != 0 || k / d->stride >= d->n_pes) return -1;
    return k / d->stride;
}
SHOAL__NV_HD void *nvshmem_ptr(const void *dest, int pe)
{
    return shoal__nv_state.ready ? shoal_dev_ptr(shoal__nv_state.dev, dest, pe) : NULL;
}
SHOAL__NV_HD void nvshmem_quiet(void) { SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_quiet", -1, shoal_dev_quiet(dev)); }
SHOAL__NV_HD void nvshmem_fence(void) { SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_fence", -1, shoal_dev_fence(dev)); }

/* RMA: bytes, sized, typed. */
SHOAL__NV_HD void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe)
{
    SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_putmem", pe, shoal_dev_put(dev, dest, source, bytes, pe));
}
SHOAL__NV_HD void nvshmem_getmem(void *dest, const void *source, size_t bytes, int pe)
{
    SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_getmem", pe, shoal_dev_get(dev, dest, source, bytes, pe));
}
SHOAL__NV_HD void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{
    SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_putmem_nbi", pe, shoal_dev_put_nbi(dev, dest, source, bytes, pe));
}
SHOAL__NV_HD void nvshmem_getmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{
    SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_getmem_nbi", pe, shoal_dev_get_nbi(dev, dest, source, bytes, pe));
}
#define SHOAL__NV_SIZED(BITS)                                                                                          \
    SHOAL__NV_HD void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)                         \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_put" #BITS, pe,                                                      \
                      shoal_dev_put(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), pe));                        \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)                         \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_get" #BITS, pe,                                                      \
                      shoal_dev_get(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), pe));                        \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)                   \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_put" #BITS "_nbi", pe,                                               \
                      shoal_dev_put_nbi(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), pe));                    \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)                   \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_get" #BITS "_nbi", pe,                                               \
                      shoal_dev_get_nbi(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), pe));                    \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                                         int pe)                                                                       \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_iput" #BITS, pe,                                                     \
                      shoal__nv_strided_group<SHOAL__DEV_THREAD>(dev, true, dest, source, dst, sst, nelems, BITS / 8,  \
                                                                 pe));                                                 \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                                         int pe)                                                                       \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_iget" #BITS, pe,                                                     \
                      shoal__nv_strided_group<SHOAL__DEV_THREAD>(dev, false, dest, source, dst, sst, nelems, BITS / 8, \
                                                                 pe));                                                 \
    }
SHOAL__NV_SIZED(8)
SHOAL__NV_SIZED(16)
SHOAL__NV_SIZED(32)
SHOAL__NV_SIZED(64)
SHOAL__NV_SIZED(128)
#undef SHOAL__NV_SIZED

/* Sized put_signal, one thread. */
#define SHOAL__NV_SIZED_SIGNAL(BITS)                                                                                   \
    SHOAL__NV_HD void nvshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,    \
                                                 uint64_t signal, int sig_op, int pe)                                  \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_put" #BITS "_signal", pe,                                            \
                      shoal_dev_put_signal(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), sig_addr, signal,     \
                                           sig_op, pe));                                                               \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,                    \
                                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)          \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_put" #BITS "_signal_nbi", pe,                                        \
                      shoal_dev_put_signal(dev, dest, source, shoal__nv_bytes(nelems, BITS / 8), sig_addr, signal,     \
                                           sig_op, pe));                                                               \
    }
SHOAL__NV_SIZED_SIGNAL(8)
SHOAL__NV_SIZED_SIGNAL(16)
SHOAL__NV_SIZED_SIGNAL(32)
SHOAL__NV_SIZED_SIGNAL(64)
SHOAL__NV_SIZED_SIGNAL(128)
#undef SHOAL__NV_SIZED_SIGNAL

#define SHOAL__NV_TYPED(T, N)                                                                                          \
    SHOAL__NV_HD void nvshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                               \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_put", pe,                                                     \
                      shoal_dev_put(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), pe));                       \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                               \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_get", pe,                                                     \
                      shoal_dev_get(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), pe));                       \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                           \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_put_nbi", pe,                                                 \
                      shoal_dev_put_nbi(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), pe));                   \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                           \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_get_nbi", pe,                                                 \
                      shoal_dev_get_nbi(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), pe));                   \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_p(T *dest, T value, int pe)                                                        \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_p", pe, shoal_dev_p<T>(dev, dest, value, pe));                \
    }                                                                                                                  \
    SHOAL__NV_HD T nvshmem_##N##_g(const T *source, int pe)                                                            \
    {                                                                                                                  \
        T v{};                                                                                                         \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_g", pe, shoal_dev_g<T>(dev, &v, source, pe));                 \
        return v;                                                                                                      \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,        \
                                         int pe)                                                                       \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_iput", pe,                                                    \
                      shoal__nv_strided_group<SHOAL__DEV_THREAD>(dev, true, dest, source, dst, sst, nelems, sizeof(T), \
                                                                 pe));                                                 \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,        \
                                         int pe)                                                                       \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_iget", pe,                                                    \
                      shoal__nv_strided_group<SHOAL__DEV_THREAD>(dev, false, dest, source, dst, sst, nelems,           \
                                                                 sizeof(T), pe));                                      \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,            \
                                               uint64_t signal, int sig_op, int pe)                                    \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_put_signal", pe,                                              \
                      shoal_dev_put_signal(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), sig_addr, signal,    \
                                           sig_op, pe));                                                               \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,        \
                                                   uint64_t signal, int sig_op, int pe)                                \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_put_signal_nbi", pe,                                          \
                      shoal_dev_put_signal(dev, dest, source, shoal__nv_bytes(nelems, sizeof(T)), sig_addr, signal,    \
                                           sig_op, pe));                                                               \
    }
NVSHMEM__RMA_TYPES(SHOAL__NV_TYPED)
#undef SHOAL__NV_TYPED

/* Signals. */
SHOAL__NV_HD void nvshmem_putmem_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                        uint64_t signal, int sig_op, int pe)
{
    SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_putmem_signal", pe,
                  shoal_dev_put_signal(dev, dest, source, bytes, sig_addr, signal, sig_op, pe));
}
SHOAL__NV_HD void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                            uint64_t signal, int sig_op, int pe)
{
    SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_putmem_signal_nbi", pe,
                  shoal_dev_put_signal(dev, dest, source, bytes, sig_addr, signal, sig_op, pe));
}
SHOAL__NV_HD void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmemx_signal_op", pe, shoal_dev_signal_op(dev, sig_addr, signal, sig_op, pe));
}
SHOAL__NV_HD uint64_t nvshmem_signal_fetch(uint64_t *sig_addr) { return shoal_dev_signal_fetch(sig_addr); }
SHOAL__NV_HD uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    return shoal_dev_signal_wait_until(sig_addr, cmp, cmp_value);
}

/* Atomics. */
#define SHOAL__NV_AMO_OP(T, N, OP)                                                                                     \
    SHOAL__NV_HD T nvshmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe)                                           \
    {                                                                                                                  \
        T old = 0;                                                                                                     \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_atomic_fetch_" #OP, pe,                                       \
                      shoal_dev_atomic_fetch_##OP<T>(dev, dest, value, pe, &old));                                     \
        return old;                                                                                                    \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_atomic_##OP(T *dest, T value, int pe)                                              \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_atomic_" #OP, pe,                                             \
                      shoal_dev_atomic_##OP<T>(dev, dest, value, pe));                                                 \
    }
/* fetch, set, swap through the bits of U (T itself for the integer types). */
#define SHOAL__NV_AMO_EXT(T, N, U)                                                                                     \
    SHOAL__NV_HD T nvshmem_##N##_atomic_fetch(const T *source, int pe)                                                 \
    {                                                                                                                  \
        U v = 0;                                                                                                       \
        T out;                                                                                                         \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_atomic_fetch", pe,                                            \
                      shoal_dev_atomic_fetch<U>(dev, (const U *)source, pe, &v));                                      \
        memcpy(&out, &v, sizeof(T));                                                                                   \
        return out;                                                                                                    \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_atomic_set(T *dest, T value, int pe)                                               \
    {                                                                                                                  \
        U v;                                                                                                           \
        memcpy(&v, &value, sizeof(T));                                                                                 \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_atomic_set", pe,                                              \
                      shoal_dev_atomic_set<U>(dev, (U *)dest, v, pe));                                                 \
    }                                                                                                                  \
    SHOAL__NV_HD T nvshmem_##N##_atomic_swap(T *dest, T value, int pe)                                                 \
    {                                                                                                                  \
        U v, old = 0;                                                                                                  \
        T out;                                                                                                         \
        memcpy(&v, &value, sizeof(T));                                                                                 \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_atomic_swap", pe,                                             \
                      shoal_dev_atomic_swap<U>(dev, (U *)dest, v, pe, &old));                                          \
        memcpy(&out, &old, sizeof(T));                                                                                 \
        return out;                                                                                                    \
    }
#define SHOAL__NV_AMO_STD(T, N)                                                                                        \
    SHOAL__NV_AMO_EXT(T, N, T)                                                                                         \
    SHOAL__NV_HD T nvshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)                                 \
    {                                                                                                                  \
        T old = 0;                                                                                                     \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_atomic_compare_swap", pe,                                     \
                      shoal_dev_atomic_compare_swap<T>(dev, dest, cond, value, pe, &old));                             \
        return old;                                                                                                    \
    }                                                                                                                  \
    SHOAL__NV_HD T nvshmem_##N##_atomic_fetch_inc(T *dest, int pe)                                                     \
    {                                                                                                                  \
        T old = 0;                                                                                                     \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_atomic_fetch_inc", pe,                                        \
                      shoal_dev_atomic_fetch_inc<T>(dev, dest, pe, &old));                                             \
        return old;                                                                                                    \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_atomic_inc(T *dest, int pe)                                                        \
    {                                                                                                                  \
        SHOAL__NV_RUN(SHOAL__DEV_THREAD, "nvshmem_" #N "_atomic_inc", pe, shoal_dev_atomic_inc<T>(dev, dest, pe));     \
    }                                                                                                                  \
    SHOAL__NV_AMO_OP(T, N, add)
#define SHOAL__NV_AMO_FLOAT(T, N) SHOAL__NV_AMO_EXT(T, N, typename shoal__nv_bits<T>::type)
#define SHOAL__NV_AMO_BIT(T, N) SHOAL__NV_AMO_OP(T, N, and) SHOAL__NV_AMO_OP(T, N, or) SHOAL__NV_AMO_OP(T, N, xor)
SHOAL_AMO_TYPES(SHOAL__NV_AMO_STD)
SHOAL_AMO_EXT_TYPES(SHOAL__NV_AMO_FLOAT)
SHOAL_AMO_BITWISE_TYPES(SHOAL__NV_AMO_BIT)
#undef SHOAL__NV_AMO_STD
#undef SHOAL__NV_AMO_FLOAT
#undef SHOAL__NV_AMO_BIT
#undef SHOAL__NV_AMO_EXT
#undef SHOAL__NV_AMO_OP

/* Waits and tests on this PE's words. */
#define SHOAL__NV_WAIT(T, N)                                                                                           \
    SHOAL__NV_HD void nvshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                          \
    {                                                                                                                  \
        while (!shoal__nv_ok<T>(ivar, cmp, cmp_value)) {                                                               \
        }                                                                                                              \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)   \
    {                                                                                                                  \
        shoal__nv_wait_all<T>(ivars, nelems, status, cmp, cmp_value, NULL);                                            \
    }                                                                                                                  \
    SHOAL__NV_HD size_t nvshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
    {                                                                                                                  \
        return shoal__nv_wait_any<T>(ivars, nelems, status, cmp, cmp_value, NULL);                                     \
    }                                                                                                                  \
    SHOAL__NV_HD size_t nvshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status,     \
                                                      int cmp, T cmp_value)                                            \
    {                                                                                                                  \
        return shoal__nv_wait_some<T>(ivars, nelems, indices, status, cmp, cmp_value, NULL);                           \
    }                                                                                                                  \
    SHOAL__NV_HD void nvshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,         \
                                                          T *cmp_values)                                               \
    {                                                                                                                  \
        shoal__nv_wait_all<T>(ivars, nelems, status, cmp, 0, cmp_values);                                              \
    }                                                                                                                  \
    SHOAL__NV_HD size_t nvshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,       \
                                                            T *cmp_values)                                             \
    {                                                                                                                  \
        return shoal__nv_wait_any<T>(ivars, nelems, status, cmp, 0, cmp_values);                                       \
    }                                                                                                                  \
    SHOAL__NV_HD size_t nvshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,                 \
                                                             const int *status, int cmp, T *cmp_values)                \
    {                                                                                                                  \
        return shoal__nv_wait_some<T>(ivars, nelems, indices, status, cmp, 0, cmp_values);                             \
    }                                                                                                                  \
    SHOAL__NV_HD int nvshmem_##N##_test(T *ivar, int cmp, T cmp_value)                                                 \
    {                                                                                                                  \
        return shoal__nv_ok<T>(ivar, cmp, cmp_value) ? 1 : 0;                                                          \
    }                                                                                                                  \
    SHOAL__NV_HD int nvshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)          \
    {                                                                                                                  \
        return shoal__nv_test_all<T>(ivars, nelems, status, cmp, cmp_value, NULL);                                     \
    }                                                                                                                  \
    SHOAL__NV_HD size_t nvshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)       \
    {                                                                                                                  \
        return shoal__nv_test_any<T>(ivars, nelems, status, cmp, cmp_value, NULL);                                     \
    }                                                                                                                  \
    SHOAL__NV_HD size_t nvshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,  \
                                                T cmp_value)                                                           \
    {                                                                                                                  \
        return shoal__nv_test_some<T>(ivars, nelems, indices, status, cmp, cmp_value, NULL);                           \
    }                                                                                                                  \
    SHOAL__NV_HD int nvshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values) \
    {                                                                                                                  \
        return shoal__nv_test_all<T>(ivars, nelems, status, cmp, 0, cmp_values);                                       \
    }                                                                                                                  \
    SHOAL__NV_HD size_t nvshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,             \
                                                      T *cmp_values)                                                   \
    {                                                                                                                  \
        return shoal__nv_test_any<T>(ivars, nelems, status, cmp, 0, cmp_values);                                       \
    }                                                                                                                  \
    SHOAL__NV_HD size_t nvshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status,    \
                                                       int cmp, T *cmp_values)                                         \
    {                                                                                                                  \
        return shoal__nv_test_some<T>(ivars, nelems, indices, status, cmp, 0, cmp_values);                             \
    }
SHOAL_WAIT_TYPES(SHOAL__NV_WAIT)
#undef SHOAL__NV_WAIT

/* Barriers and collectives, one thread per PE. */
SHOAL__NV_HD void nvshmem_barrier_all(void) { shoal__nv_barrier_world<SHOAL__DEV_THREAD>("nvshmem_barrier_all"); }
SHOAL__NV_HD void nvshmem_sync_all(void) { shoal__nv_barrier_world<SHOAL__DEV_THREAD>("nvshmem_sync_all"); }
SHOAL__NV_HD int nvshmem_barrier(nvshmem_team_t team_h)
{
    SHOAL__NV_TEAM_RUN(SHOAL__DEV_THREAD, "nvshmem_barrier", team_h,
                       shoal__dev_team_barrier<SHOAL__DEV_THREAD>(dev, team));
}
SHOAL__NV_HD int nvshmem_team_sync(nvshmem_team_t team_h)
{
    SHOAL__NV_TEAM_RUN(SHOAL__DEV_THREAD, "nvshmem_team_sync", team_h,
                       shoal__dev_team_barrier<SHOAL__DEV_THREAD>(dev, team));
}
SHOAL__NV_HD int nvshmem_sync(nvshmem_team_t team_h)
{
    SHOAL__NV_TEAM_RUN(SHOAL__DEV_THREAD, "nvshmem_sync", team_h,
                       shoal__dev_team_barrier<SHOAL__DEV_THREAD>(dev, team));
}
SHOAL__NV_HD int nvshmem_broadcastmem(nvshmem_team_t team_h, void *dest, const void *source, size_t nelems, int PE_root)
{
    SHOAL__NV_TEAM_RUN(SHOAL__DEV_THREAD, "nvshmem_broadcastmem", team_h,
                       shoal__dev_team_push<SHOAL__DEV_THREAD>(dev, team, 0, dest, source,
                                                               shoal__dev_team_bytes<char>(dev, nelems), PE_root));
}
SHOAL__NV_HD int nvshmem_fcollectmem(nvshmem_team_t team_h, void *dest, const void *source, size_t nelems)
{
    SHOAL__NV_TEAM_RUN(SHOAL__DEV_THREAD, "nvshmem_fcollectmem", team_h,
                       shoal__dev_team_push<SHOAL__DEV_THREAD>(dev, team, 1, dest, source,
                                                               shoal__dev_team_bytes<char>(dev, nelems), 0));
}
SHOAL__NV_HD int nvshmem_alltoallmem(nvshmem_team_t team_h, void *dest, const void *source, size_t nelems)
{
    SHOAL__NV_TEAM_RUN(SHOAL__DEV_THREAD, "nvshmem_alltoallmem", team_h,
                       shoal__dev_team_push<SHOAL__DEV_THREAD>(dev, team, 2, dest, source,
                                                               shoal__dev_team_bytes<char>(dev, nelems), 0));
}
#define SHOAL__NV_COLL_T(T, N) SHOAL__NV_COLL_TYPED(SHOAL__NV_HD, nvshmem_, T, N, , SHOAL__DEV_THREAD)
#define SHOAL__NV_ARITH_T(T, N) SHOAL__NV_REDUCE_ARITH(SHOAL__NV_HD, nvshmem_, T, N, , SHOAL__DEV_THREAD)
#define SHOAL__NV_BIT_T(T, N) SHOAL__NV_REDUCE_BIT(SHOAL__NV_HD, nvshmem_, T, N, , SHOAL__DEV_THREAD)
NVSHMEM__RMA_TYPES(SHOAL__NV_COLL_T)
SHOAL_REDUCE_ARITH_STD_TYPES(SHOAL__NV_ARITH_T)
NVSHMEM__HALF_TYPES(SHOAL__NV_ARITH_T)
SHOAL_REDUCE_BITWISE_TYPES(SHOAL__NV_BIT_T)
#undef SHOAL__NV_COLL_T
#undef SHOAL__NV_ARITH_T
#undef SHOAL__NV_BIT_T

#undef SHOAL__NV_HD
#endif /* __CUDA_ARCH__ */

#undef SHOAL__NV_DEV
#undef SHOAL__NV_REDUCE_BIT
#undef SHOAL__NV_REDUCE_ARITH
#undef SHOAL__NV_REDUCE1
#undef SHOAL__NV_COLL_TYPED
} /* extern "C" */

#pragma nv_diagnostic pop

#endif /* SHOAL_NVSHMEM_DEVICE_CUH */
