/*
 * shoal device API: one-sided communication from inside CUDA kernels.
 * Header-only CUDA C++ (nvcc, sm_70 or newer; built here with -std=c++17
 * -arch=sm_90): every function is static __device__ __forceinline__.
 *
 * A kernel receives a shoal_device_t by value, filled on the host:
 *
 *     shoal_device_t dev;
 *     shoal_device_get(sh, &dev);              // shoal_cuda.h, GPU heap only
 *     kernel<<<grid, block>>>(dev, ...);
 *
 *     __global__ void kernel(shoal_device_t dev, int *buf)   // buf: symmetric
 *     {
 *         int rc = shoal_dev_int_put_block(dev, buf, src, n, peer);
 *         ...
 *     }
 *
 * Every operation on a PE whose heap is mapped here by CUDA IPC (NVLink or
 * PCIe) is a plain load, store or atomic through the peer's base + (ptr -
 * dev.heap_base): nothing goes through the host. Every other PE (other
 * nodes, GPUs without peer access, and atomics where the pair has no
 * native peer atomics, or everywhere with SHOAL_DEVICE_ATOMICS=proxy) is
 * reached through the device proxy: the call becomes a request in a ring
 * of pinned host memory that a thread of this PE serves through the host
 * data path (shoal_device_proxy.cuh; README, "Kernels and the device
 * proxy"). Same calls, same semantics, microseconds instead of nanoseconds.
 * The proxy needs MPI_THREAD_MULTIPLE. The base comes
 * from dev.near_base for the PEs of the near window, else from the device
 * array dev.peer_base; the struct is filled by shoal_device_get and is not
 * meant to be edited. Keep dev a
 * kernel parameter (pass it on by reference, not copied into a local):
 * the addresses of the PEs near this one (SHOAL_DEVICE_NEAR_PES, the GPUs
 * of a node) are then read from the constant cache, not from memory.
 *
 * Errors. Calls that address a PE return a status from shoal.h and do
 * nothing on error; they never hang or drop data silently:
 *   SHOAL_ERR_PE             pe is outside [0, n_pes)
 *   SHOAL_ERR_OUT_OF_BOUNDS  the symmetric range is not inside the heap
 *   SHOAL_ERR_INVALID_ARG    misaligned atomic or signal word, unknown op
 *   SHOAL_ERR_THREAD         pe needs the proxy, and there is none: MPI
 *                            was initialized without MPI_THREAD_MULTIPLE
 *   SHOAL_ERR_UNSUPPORTED    pe needs the proxy, and this handle has none
 *                            (a copy of dev whose tables were edited)
 *   SHOAL_ERR_TIMEOUT        a proxied call waited past SHOAL_DEV_TIMEOUT_NS
 *   (any)                    a proxied call that waits for its answer
 *                            (blocking put/get, g, fetching atomics,
 *                            put_signal with data) returns the host's status
 * The argument checks come first, in that order (put_signal: dest's, then
 * the signal word's, then the op), whether pe is mapped or proxied. The symmetric address is the one checked (dest of a
 * put, src of a get); the local side may be any device memory. Atomic and
 * signal words must be aligned to their size.
 *
 * Scopes. Plain names are thread-scope: the calling thread does the whole
 * operation, independently of its neighbours. _warp and _block variants
 * move one region with the whole group: every thread of the warp (of the
 * block) must call with the same arguments, and all get the same status.
 * They synchronize the group on entry (so data the group just wrote to src
 * is seen) and, except the _nbi ones, on exit (so src may be reused and the
 * data a get brought is visible to the whole group). A partial last warp of
 * a block is a group of its threads. Copies use 16-byte loads and stores
 * when dest and src are equally aligned modulo 16, else the widest width
 * their relative alignment allows (8, 4, 2, 1 bytes).
 *
 * Memory model (in PTX terms, system scope, because the peer is another GPU):
 *  - put returns when src may be reused; the data is visible to the target
 *    only after a later shoal_dev_quiet (or a barrier) followed by whatever
 *    synchronization the target observes. get returns with the data in dest.
 *  - _nbi: stores issued, complete at shoal_dev_quiet; for _nbi_warp and
 *    _nbi_block also synchronize the group before reusing src or reading
 *    dest.
 *  - shoal_dev_quiet(dev): __threadfence_system() (fence.sc.sys): every
 *    memory operation of the calling thread before it is ordered before
 *    every one after it, for all observers, including peer GPUs; and, while
 *    proxied operations are outstanding, a round trip through the proxy
 *    that completes every one this PE's kernels issued before it (it
 *    returns the first error of one nobody waited for). shoal_dev_quiet()
 *    without the handle is the fence alone (load/store operations only).
 *  - shoal_dev_fence(dev): fence.acq_rel.sys, orders the thread's puts
 *    (stores) before its later ones, to every PE, without the sequentially
 *    consistent total order of quiet; cheaper, enough for "data, then
 *    flag"; with proxied operations outstanding it also posts a fence
 *    request (the host completes what it served before it). After a
 *    kernel ended, shoal_quiet, shoal_barrier_all and the on-stream
 *    barrier and quiet complete what it sent through the proxy.
 *  - Atomics are relaxed, system scope, performed at the memory of the
 *    target GPU; they need native peer atomics (NVLink; PCIe peers generally
 *    have none). Order them with other operations with fence/quiet.
 *  - put_signal is data, then signal: the data stores, __threadfence_system,
 *    then the signal store or add with release semantics; a receiver that
 *    sees the signal (shoal_dev_signal_wait_until, which acquires) sees the
 *    data. Signal words are uint64_t in the symmetric heap.
 *  - wait_until polls a word of the local heap with system-scope acquire
 *    loads: what the writer stored before its release (a signal, or a p
 *    after a fence) is visible after it returns. test is one such load. An
 *    unknown cmp is treated as already satisfied (it returns at once).
 *
 * Barriers. shoal_dev_barrier_all_block: exactly one block per PE calls it,
 * all its threads; every PE's block must be running at the same time (the
 * PEs' kernels co-resident), or it waits forever. It acts as quiet plus
 * arrival: stores issued before it by any thread of the block are visible
 * to every PE after it (the block meets, then one thread fences at system
 * scope, signals every PE and waits for their signals). shoal_dev_barrier_all_grid: every thread of a
 * cooperative launch (cudaLaunchCooperativeKernel) calls it; orders the
 * stores of the whole grid. Outside a cooperative launch its behaviour is
 * undefined (CUDA offers no reliable way to tell such a launch). Where
 * some PE is not load/store reachable (dev.barrier_ok is 0) the barrier is
 * hierarchical: the leader thread quiets (proxied operations complete),
 * the node's PEs meet through their control words, the node's leader
 * meets the other nodes' leaders through its proxy and releases the node;
 * where the node itself is not all mapped, every PE meets through its
 * proxy. Without a proxy they return its status (SHOAL_ERR_THREAD) at once,
 * before touching any flag. Compile with
 * -DSHOAL_DEV_TIMEOUT_NS=<ns> to make a barrier that waits longer than that
 * return SHOAL_ERR_TIMEOUT (the grid variant reports it to block 0's thread
 * 0 only); the default 0 waits forever. Both variants share one
 * generation per PE (control words SHOAL_DEVICE_BARRIER_FLAGS.. and _GEN,
 * apart from the stream barrier's): every PE calls the device barriers in
 * the same sequence, and one at a time (never two blocks or two kernels of
 * one PE inside a device barrier at once). Mixing them with
 * shoal_barrier_all_on_stream between kernels is fine.
 *
 * Types. Typed RMA functions shoal_dev_<N>_put/get/p/g... come from
 * SHOAL_RMA_TYPES in shoal.h and SHOAL_DEV_HALF_TYPES below: the 16-bit
 * floating types as CUDA's own __half and __nv_bfloat16 (cuda_fp16.h,
 * cuda_bf16.h), whose bits are those of shoal_half_t and
 * shoal_bfloat16_t on the host. long double: nvcc has no device long double
 * (it is treated as double), so its bulk functions move the host's bytes
 * unchanged (counting the host's element size), while
 * shoal_dev_longdouble_p/g are refused at compile time. Pointer arithmetic
 * on long double * in device code also uses 8 bytes: offset such pointers
 * on the host.
 * Atomics and wait_until exist for the 4- and 8-byte integer types of
 * SHOAL_DEV_AMO_TYPES below, and as templates (shoal_dev_atomic_fetch_add
 * etc.) for any 4- or 8-byte integer type.
 */
#ifndef SHOAL_DEVICE_CUH
#define SHOAL_DEVICE_CUH

#if !defined(__CUDACC__)
#error "shoal_device.cuh is CUDA: compile with nvcc"
#endif

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda/std/type_traits>

#include "shoal.h"
#include "shoal_device_types.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700
#error "shoal_device.cuh needs sm_70 or newer (system-scope fences and atomics)"
#endif

#ifndef SHOAL_DEV_TIMEOUT_NS
#define SHOAL_DEV_TIMEOUT_NS 0 /* barrier wait limit in ns; 0: forever */
#endif

/* A header of static functions: those a file does not call are fine, and
 * long double inside the bulk copies is only ever moved as bytes. */
#pragma nv_diagnostic push
#pragma nv_diag_suppress 177   /* function declared but never referenced */
#pragma nv_diag_suppress 20208 /* 'long double' is treated as 'double' in device code */

/* SHOAL_SIGNAL_* and SHOAL_CMP_* come from shoal.h (host and kernels alike). */

/* Types with atomics and wait_until: X(TYPE, NAME), 4- and 8-byte
 * integers; the host API's standard atomic types (shoal.h). */
#define SHOAL_DEV_AMO_TYPES(X) SHOAL_AMO_TYPES(X)

/* The 16-bit floating types in kernels: X(TYPE, NAME), CUDA's types (the
 * host API's SHOAL_HALF_TYPES: the same bits in shoal_half_t and
 * shoal_bfloat16_t). Typed RMA, and the collectives and min, max, sum and
 * prod reductions of shoal_device_team.cuh. */
#define SHOAL_DEV_HALF_TYPES(X) X(__half, half) X(__nv_bfloat16, bfloat16)

/* ------------------------------------------------------------ internals */

/* T in a parameter that must not take part in template deduction, so that
 * shoal_dev_p(dev, long_ptr, 1, pe) takes the 1 as a long. */
template <typename T> struct shoal__dev_same {
    typedef T type;
};

enum { SHOAL__DEV_THREAD = 0, SHOAL__DEV_WARP = 1, SHOAL__DEV_BLOCK = 2 };

typedef cuda::atomic_ref<unsigned int, cuda::thread_scope_system> shoal__dev_flag_ref;

/* pe's heap and control area as mapped here (pe in range). PEs of the near
 * window come from the struct itself, a kernel parameter read through the
 * constant cache; the others from the device arrays, a global load that an
 * acquire (which invalidates L1) sends to L2 each time. */
static __device__ __forceinline__ char *shoal__dev_peer_base(const shoal_device_t &dev, int pe)
{
    unsigned k = (unsigned)pe - (unsigned)dev.near_first;
    return k < SHOAL_DEVICE_NEAR_PES ? dev.near_base[k] : dev.peer_base[pe];
}
static __device__ __forceinline__ unsigned int *shoal__dev_peer_ctrl(const shoal_device_t &dev, int pe)
{
    unsigned k = (unsigned)pe - (unsigned)dev.near_first;
    return k < SHOAL_DEVICE_NEAR_PES ? dev.near_ctrl[k] : dev.peer_ctrl[pe];
}

/* Not an error: the range is fine, but pe is reached through the proxy. */
#define SHOAL__DEV_VIA_PROXY 1

/* Atomics through pe's mapping are native (pe in range, mapped). */
static __device__ __forceinline__ bool shoal__dev_peer_amo(const shoal_device_t &dev, int pe)
{
    unsigned k = (unsigned)pe - (unsigned)dev.near_first;
    return k < SHOAL_DEVICE_NEAR_PES ? (dev.near_amo >> k) & 1u : dev.peer_amo == NULL || dev.peer_amo[pe] != 0;
}

/* The peer address of [addr, addr + nbytes) of the symmetric heap on pe,
 * or SHOAL__DEV_VIA_PROXY where pe is not load/store reachable. */
static __device__ __forceinline__ int shoal__dev_translate(const shoal_device_t &dev, const void *addr, size_t nbytes,
                                                           int pe, char **peer_p)
{
    uintptr_t a = (uintptr_t)addr, base = (uintptr_t)dev.heap_base;
    char *peer_base;

    if ((unsigned)pe >= (unsigned)dev.n_pes) return SHOAL_ERR_PE;
    if (a < base || a - base > dev.heap_size || nbytes > dev.heap_size - (a - base)) return SHOAL_ERR_OUT_OF_BOUNDS;
    peer_base = shoal__dev_peer_base(dev, pe);
    if (peer_base == NULL) return SHOAL__DEV_VIA_PROXY;
    *peer_p = peer_base + (a - base);
    return SHOAL_SUCCESS;
}

/* The calling thread's rank in the block, and the block's size. */
static __device__ __forceinline__ unsigned shoal__dev_block_rank(void)
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
static __device__ __forceinline__ unsigned shoal__dev_block_size(void) { return blockDim.x * blockDim.y * blockDim.z; }

/* Warps are cut from the block's linear thread order; the last may be partial. */
static __device__ __forceinline__ unsigned shoal__dev_warp_size(void)
{
    unsigned first = shoal__dev_block_rank() & ~31u, left = shoal__dev_block_size() - first;
    return left < 32 ? left : 32;
}

template <int Scope> static __device__ __forceinline__ unsigned shoal__dev_rank(void)
{
    return Scope == SHOAL__DEV_BLOCK  ? shoal__dev_block_rank()
           : Scope == SHOAL__DEV_WARP ? (shoal__dev_block_rank() & 31u)
                                      : 0;
}
template <int Scope> static __device__ __forceinline__ unsigned shoal__dev_size(void)
{
    return Scope == SHOAL__DEV_BLOCK ? shoal__dev_block_size() : Scope == SHOAL__DEV_WARP ? shoal__dev_warp_size() : 1;
}
template <int Scope> static __device__ __forceinline__ void shoal__dev_sync(void)
{
    if (Scope == SHOAL__DEV_BLOCK) {
        __syncthreads();
    } else if (Scope == SHOAL__DEV_WARP) {
        unsigned n = shoal__dev_warp_size();
        __syncwarp(n == 32 ? 0xffffffffu : (1u << n) - 1);
    }
}

static __device__ __forceinline__ unsigned long long shoal__dev_now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

#include "shoal_device_proxy.cuh"

/* Copy n bytes as words of W: bytes up to dst's W boundary, words up to its
 * 128-byte boundary, then W words (four in flight per thread), then the
 * tail words and bytes. dst and src must be
 * equally aligned modulo sizeof(W). Thread rank of size copies its share. */
template <typename W>
static __device__ __forceinline__ void shoal__dev_copy_as(char *dst, const char *src, size_t n, unsigned rank,
                                                          unsigned size)
{
    const size_t w = sizeof(W), step = size;
    size_t head = (w - ((uintptr_t)dst & (w - 1))) & (w - 1);
    if (head > n) head = n;
    for (size_t j = rank; j < head; j += step) dst[j] = src[j];

    W *d = (W *)(dst + head);
    const W *s = (const W *)(src + head);
    size_t nw = (n - head) / w, i;
    /* Words up to dst's 128-byte boundary, so that each warp of the main
     * loop stores whole 128-byte lines (a misaligned stream costs about 5%
     * over NVLink). */
    size_t lead = ((128 - ((uintptr_t)d & 127)) & 127) / w;
    if (lead > nw) lead = nw;
    for (i = rank; i < lead; i += step) d[i] = s[i];
    d += lead;
    s += lead;
    nw -= lead;
    i = rank;
    for (; i + 3 * step < nw; i += 4 * step) {
        W a = s[i], b = s[i + step], c = s[i + 2 * step], e = s[i + 3 * step];
        d[i] = a;
        d[i + step] = b;
        d[i + 2 * step] = c;
        d[i + 3 * step] = e;
    }
    for (; i < nw; i += step) d[i] = s[i];
    for (size_t j = head + (lead + nw) * w + rank; j < n; j += step) dst[j] = src[j];
}

/* The widest copy the relative alignment of dst and src allows. */
static __device__ __forceinline__ void shoal__dev_copy(void *dst, const void *src, size_t n, unsigned rank,
                                                       unsigned size)
{
    uintptr_t rel = (uintptr_t)dst ^ (uintptr_t)src;
    char *d = (char *)dst;
    const char *s = (const char *)src;

    if ((rel & 15) == 0)
        shoal__dev_copy_as<uint4>(d, s, n, rank, size);
    else if ((rel & 7) == 0)
        shoal__dev_copy_as<unsigned long long>(d, s, n, rank, size);
    else if ((rel & 3) == 0)
        shoal__dev_copy_as<unsigned int>(d, s, n, rank, size);
    else if ((rel & 1) == 0)
        shoal__dev_copy_as<unsigned short>(d, s, n, rank, size);
    else
        shoal__dev_copy_as<unsigned char>(d, s, n, rank, size);
}

/* The host cannot read or write a thread's local memory (a kernel's local
 * variables) nor a block's shared memory: a proxied put or get whose local
 * buffer is there moves 8 bytes a request, the bytes inside the requests
 * (p, served in order) or their answers (g): a round trip per 8 bytes
 * for a get, so large buffers belong in global memory. The group's first
 * thread makes them (the group met before); at warp and block scope the
 * buffer must be shared memory (each thread's local memory is its own:
 * SHOAL_ERR_INVALID_ARG). */
static __device__ __noinline__ int shoal__dev_proxy_rma_by_value(const shoal_device_t &dev, bool is_put, void *dest,
                                                                 const void *src, size_t nbytes, int pe)
{
    int rc = SHOAL_SUCCESS;
    for (size_t at = 0; at < nbytes && rc == SHOAL_SUCCESS; at += 8) {
        size_t m = nbytes - at < 8 ? nbytes - at : 8;
        unsigned long long v = 0;
        if (is_put) {
            memcpy(&v, (const char *)src + at, m);
            shoal_dev_proxy_req_t r = shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_P, pe, (char *)dest + at, NULL, m);
            r.value = v;
            rc = shoal__dev_proxy_call(dev, r, false, NULL);
        } else {
            rc = shoal__dev_proxy_call(dev,
                                       shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_G, pe, NULL, (const char *)src + at, m),
                                       true, &v);
            if (rc == SHOAL_SUCCESS) memcpy((char *)dest + at, &v, m);
        }
    }
    return rc;
}

/* Is p where the host reaches it (global memory: device, managed, mapped host)? */
static __device__ __forceinline__ bool shoal__dev_host_reaches(const void *p) { return __isGlobal(p) != 0; }

/* put (is_put) or get of nbytes with the group Scope; nbi: no exit sync. */
template <int Scope>
static __device__ __forceinline__ int shoal__dev_rma(const shoal_device_t &dev, bool is_put, bool nbi, void *dest,
                                                     const void *src, size_t nbytes, int pe)
{
    char *peer;
    int rc = shoal__dev_translate(dev, is_put ? (const void *)dest : src, nbytes, pe, &peer);
    if (rc == SHOAL__DEV_VIA_PROXY && nbytes > 0 && !shoal__dev_host_reaches(is_put ? src : (const void *)dest)) {
        /* A group's buffer must be one buffer: shared memory, not each
         * thread's own local memory. */
        if (Scope != SHOAL__DEV_THREAD && __isLocal(is_put ? src : (const void *)dest)) return SHOAL_ERR_INVALID_ARG;
        shoal__dev_sync<Scope>();
        if (shoal__dev_rank<Scope>() == 0) rc = shoal__dev_proxy_rma_by_value(dev, is_put, dest, src, nbytes, pe);
        rc = shoal__dev_bcast<Scope>(rc);
        shoal__dev_sync<Scope>(); /* a get's bytes, seen by the whole group */
        return rc;
    }
    if (rc == SHOAL__DEV_VIA_PROXY)
        return shoal__dev_proxy_group<Scope>(dev,
                                             shoal__dev_proxy_req(is_put ? SHOAL_DEVICE_PROXY_PUT
                                                                         : SHOAL_DEVICE_PROXY_GET,
                                                                  pe, dest, src, nbytes),
                                             !nbi, NULL);
    if (rc != SHOAL_SUCCESS) return rc;
    shoal__dev_sync<Scope>();
    shoal__dev_copy(is_put ? (void *)peer : dest, is_put ? src : (const void *)peer, nbytes, shoal__dev_rank<Scope>(),
                    shoal__dev_size<Scope>());
    if (!nbi) shoal__dev_sync<Scope>();
    return SHOAL_SUCCESS;
}

/* nelems elements of size elem, refusing a count whose byte size overflows. */
template <int Scope>
static __device__ __forceinline__ int shoal__dev_rma_elems(const shoal_device_t &dev, bool is_put, bool nbi, void *dest,
                                                           const void *src, size_t nelems, size_t elem, int pe)
{
    if (nelems > dev.heap_size / elem) {
        /* More than the heap holds: a bad PE first, then out of bounds, as for bytes. */
        if ((unsigned)pe >= (unsigned)dev.n_pes) return SHOAL_ERR_PE;
        return SHOAL_ERR_OUT_OF_BOUNDS;
    }
    return shoal__dev_rma<Scope>(dev, is_put, nbi, dest, src, nelems * elem, pe);
}

/* The peer address of an atomic word: inside the heap and aligned to its size. */
template <typename T>
static __device__ __forceinline__ int shoal__dev_amo_target(const shoal_device_t &dev, const T *addr, int pe,
                                                            T **peer_p)
{
    static_assert(cuda::std::is_integral<T>::value && (sizeof(T) == 4 || sizeof(T) == 8),
                  "shoal device atomics work on 4- and 8-byte integers");
    char *peer;
    int rc = shoal__dev_translate(dev, addr, sizeof(T), pe, &peer);
    if (rc < SHOAL_SUCCESS) return rc;
    if ((uintptr_t)addr % sizeof(T) != 0) return SHOAL_ERR_INVALID_ARG;
    if (rc == SHOAL__DEV_VIA_PROXY || !shoal__dev_peer_amo(dev, pe)) return SHOAL__DEV_VIA_PROXY;
    *peer_p = (T *)peer;
    return SHOAL_SUCCESS;
}

template <typename T> static __device__ __forceinline__ bool shoal__dev_compare(T a, int cmp, T b)
{
    switch (cmp) {
    case SHOAL_CMP_EQ: return a == b;
    case SHOAL_CMP_NE: return a != b;
    case SHOAL_CMP_GT: return a > b;
    case SHOAL_CMP_GE: return a >= b;
    case SHOAL_CMP_LT: return a < b;
    case SHOAL_CMP_LE: return a <= b;
    default: return true; /* unknown: never wait on it */
    }
}

/* Store or add the signal, releasing what this thread (and, through the
 * group's barrier before it, its group) wrote. */
static __device__ __forceinline__ void shoal__dev_signal_store(uint64_t *peer_sig, uint64_t value, int op)
{
    cuda::atomic_ref<uint64_t, cuda::thread_scope_system> s(*peer_sig);
    if (op == SHOAL_SIGNAL_SET)
        s.store(value, cuda::memory_order_release);
    else
        s.fetch_add(value, cuda::memory_order_release);
}

/* ------------------------------------------------------------ addresses, ordering */

/* pe's copy of the symmetric object at ptr, mapped here for loads and
 * stores; NULL if pe is out of range, ptr is not inside the heap, or pe is
 * not load/store reachable. */
static __device__ __forceinline__ void *shoal_dev_ptr(const shoal_device_t &dev, const void *ptr, int pe)
{
    char *peer;
    return shoal__dev_translate(dev, ptr, 1, pe, &peer) == SHOAL_SUCCESS ? peer : NULL;
}

/* Complete (order before everything after) every load/store operation of
 * this thread. Operations that went through the proxy need the form with
 * the handle. */
static __device__ __forceinline__ void shoal_dev_quiet(void) { __threadfence_system(); }

/* Order this thread's load/store puts: those before land before those
 * after, at every PE. Proxied ones need the form with the handle. */
static __device__ __forceinline__ void shoal_dev_fence(void) { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

/* Quiet with the handle: the thread's load/store operations, and every
 * proxied one this PE's kernels issued before it (one round trip to the
 * host, only while some are outstanding). Returns the first error of a
 * proxied operation without an answer (_nbi, p, atomics without result,
 * signals) since the last quiet, or SHOAL_SUCCESS. */
static __device__ __forceinline__ int shoal_dev_quiet(const shoal_device_t &dev)
{
    int rc = shoal__dev_proxy_pending(dev) ? shoal__dev_proxy_quiet(dev) : SHOAL_SUCCESS;
    __threadfence_system();
    return rc;
}

/* Fence with the handle: also orders this PE's proxied puts, atomics and
 * signals before its later operations, proxied or load/store, to each PE:
 * while some are outstanding it waits until the host completed them (a
 * later store to a mapped PE must not overtake an earlier proxied atomic
 * on it). */
static __device__ __forceinline__ int shoal_dev_fence(const shoal_device_t &dev)
{
    int rc = SHOAL_SUCCESS;
    if (shoal__dev_proxy_pending(dev))
        rc = shoal__dev_proxy_call(dev, shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_FENCE, dev.my_pe, NULL, NULL, 0), true,
                                   NULL);
    asm volatile("fence.acq_rel.sys;" ::: "memory");
    return rc;
}

/* ------------------------------------------------------------ RMA, bytes */

#define SHOAL__DEV_RMA_BYTES(SUFFIX, SCOPE)                                                                            \
    static __device__ __forceinline__ int shoal_dev_put##SUFFIX(const shoal_device_t &dev, void *dest,                 \
                                                                const void *src, size_t nbytes, int pe)                \
    {                                                                                                                  \
        return shoal__dev_rma<SCOPE>(dev, true, false, dest, src, nbytes, pe);                                         \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_get##SUFFIX(const shoal_device_t &dev, void *dest,                 \
                                                                const void *src, size_t nbytes, int pe)                \
    {                                                                                                                  \
        return shoal__dev_rma<SCOPE>(dev, false, false, dest, src, nbytes, pe);                                        \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_put_nbi##SUFFIX(const shoal_device_t &dev, void *dest,             \
                                                                    const void *src, size_t nbytes, int pe)            \
    {                                                                                                                  \
        return shoal__dev_rma<SCOPE>(dev, true, true, dest, src, nbytes, pe);                                          \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_get_nbi##SUFFIX(const shoal_device_t &dev, void *dest,             \
                                                                    const void *src, size_t nbytes, int pe)            \
    {                                                                                                                  \
        return shoal__dev_rma<SCOPE>(dev, false, true, dest, src, nbytes, pe);                                         \
    }

/* put: nbytes from local src to pe's dest (symmetric). get: from pe's src
 * (symmetric) to local dest. shoal_dev_put, _get, _put_nbi, _get_nbi and
 * the same with _warp and _block. */
SHOAL__DEV_RMA_BYTES(, SHOAL__DEV_THREAD)
SHOAL__DEV_RMA_BYTES(_warp, SHOAL__DEV_WARP)
SHOAL__DEV_RMA_BYTES(_block, SHOAL__DEV_BLOCK)
#undef SHOAL__DEV_RMA_BYTES

/* ------------------------------------------------------------ single elements */

/* Store value into pe's *dest (a volatile store: one store of sizeof(T)). */
template <typename T, int Lazy = 0>
static __device__ __forceinline__ int shoal_dev_p(const shoal_device_t &dev, T *dest,
                                                  typename shoal__dev_same<T>::type value, int pe)
{
    static_assert(!cuda::std::is_same<T, long double>::value,
                  "no device long double (nvcc treats it as double): move long double data with put/get");
    char *peer;
    int rc = shoal__dev_translate(dev, dest, sizeof(T), pe, &peer);
    if (rc == SHOAL__DEV_VIA_PROXY) {
        /* The value travels in the request: nothing to wait for. */
        shoal_dev_proxy_req_t r = shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_P, pe, dest, NULL, sizeof(T));
        memcpy(&r.value, &value, sizeof(T));
        return shoal__dev_proxy_call(dev, r, false, NULL);
    }
    if (rc != SHOAL_SUCCESS) return rc;
    *(volatile T *)peer = value;
    return SHOAL_SUCCESS;
}

/* Load pe's *src into *value_p (a volatile load); *value_p is set only on success. */
template <typename T, int Lazy = 0>
static __device__ __forceinline__ int shoal_dev_g(const shoal_device_t &dev, T *value_p, const T *src, int pe)
{
    static_assert(!cuda::std::is_same<T, long double>::value,
                  "no device long double (nvcc treats it as double): move long double data with put/get");
    char *peer;
    int rc = shoal__dev_translate(dev, src, sizeof(T), pe, &peer);
    if (rc == SHOAL__DEV_VIA_PROXY) {
        unsigned long long v = 0;
        rc = shoal__dev_proxy_call(dev, shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_G, pe, NULL, src, sizeof(T)), true, &v);
        if (rc == SHOAL_SUCCESS) memcpy(value_p, &v, sizeof(T));
        return rc;
    }
    if (rc != SHOAL_SUCCESS) return rc;
    *value_p = *(const volatile T *)peer;
    return SHOAL_SUCCESS;
}

/* ------------------------------------------------------------ RMA, typed */

/* Bytes of one element as the host lays it out: device code treats long
 * double as double (8 bytes), but the heap holds the host's long doubles. */
template <typename T> struct shoal__dev_elem_size {
    static constexpr size_t value = sizeof(T);
};
template <> struct shoal__dev_elem_size<long double> {
#ifdef __SIZEOF_LONG_DOUBLE__
    static constexpr size_t value = __SIZEOF_LONG_DOUBLE__;
#else
    static constexpr size_t value = 16;
#endif
};

#define SHOAL__DEV_TYPED_SCOPE(T, N, SUFFIX, SCOPE)                                                                    \
    static __device__ __forceinline__ int shoal_dev_##N##_put##SUFFIX(const shoal_device_t &dev, T *dest,              \
                                                                      const T *src, size_t nelems, int pe)             \
    {                                                                                                                  \
        return shoal__dev_rma_elems<SCOPE>(dev, true, false, dest, src, nelems, shoal__dev_elem_size<T>::value, pe);   \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_get##SUFFIX(const shoal_device_t &dev, T *dest,              \
                                                                      const T *src, size_t nelems, int pe)             \
    {                                                                                                                  \
        return shoal__dev_rma_elems<SCOPE>(dev, false, false, dest, src, nelems, shoal__dev_elem_size<T>::value, pe);  \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_put_nbi##SUFFIX(const shoal_device_t &dev, T *dest,          \
                                                                          const T *src, size_t nelems, int pe)         \
    {                                                                                                                  \
        return shoal__dev_rma_elems<SCOPE>(dev, true, true, dest, src, nelems, shoal__dev_elem_size<T>::value, pe);    \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_get_nbi##SUFFIX(const shoal_device_t &dev, T *dest,          \
                                                                          const T *src, size_t nelems, int pe)         \
    {                                                                                                                  \
        return shoal__dev_rma_elems<SCOPE>(dev, false, true, dest, src, nelems, shoal__dev_elem_size<T>::value, pe);   \
    }

/* shoal_dev_<N>_put/get/put_nbi/get_nbi[_warp|_block] (counts in elements)
 * and shoal_dev_<N>_p/g. p and g are templates with a defaulted parameter
 * only so that the long double pair is refused where it is used. */
#define SHOAL__DEV_TYPED(T, N)                                                                                         \
    SHOAL__DEV_TYPED_SCOPE(T, N, , SHOAL__DEV_THREAD)                                                                  \
    SHOAL__DEV_TYPED_SCOPE(T, N, _warp, SHOAL__DEV_WARP)                                                               \
    SHOAL__DEV_TYPED_SCOPE(T, N, _block, SHOAL__DEV_BLOCK)                                                             \
    template <int Lazy = 0>                                                                                            \
    static __device__ __forceinline__ int shoal_dev_##N##_p(const shoal_device_t &dev, T *dest, T value, int pe)       \
    {                                                                                                                  \
        return shoal_dev_p<T, Lazy>(dev, dest, value, pe);                                                             \
    }                                                                                                                  \
    template <int Lazy = 0>                                                                                            \
    static __device__ __forceinline__ int shoal_dev_##N##_g(const shoal_device_t &dev, T *value_p, const T *src,       \
                                                            int pe)                                                    \
    {                                                                                                                  \
        return shoal_dev_g<T, Lazy>(dev, value_p, src, pe);                                                            \
    }
SHOAL_RMA_TYPES(SHOAL__DEV_TYPED)
SHOAL_DEV_HALF_TYPES(SHOAL__DEV_TYPED)
#undef SHOAL__DEV_TYPED
#undef SHOAL__DEV_TYPED_SCOPE

/* ------------------------------------------------------------ atomics */

/* Each returns a status; fetching ones store the old value in *fetched_p
 * (on success; fetched_p may be NULL). Relaxed, system scope. */

/* The atomic op (SHOAL_DEVICE_AMO_*) on pe's *dest through the proxy;
 * fetch: wait for the old value. */
template <typename T>
static __device__ __forceinline__ int shoal__dev_amo_proxy(const shoal_device_t &dev, int op, const T *dest, T value,
                                                           T cond, int pe, T *fetched_p, bool fetch)
{
    shoal_dev_proxy_req_t r = shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_AMO, pe, dest, NULL, sizeof(T));
    unsigned long long v = 0;
    r.arg = (unsigned short)(op | (sizeof(T) << 8));
    r.value = (unsigned long long)value;
    r.cond = (unsigned long long)cond;
    int rc = shoal__dev_proxy_call(dev, r, fetch, &v);
    if (rc == SHOAL_SUCCESS && fetch && fetched_p != NULL) *fetched_p = (T)v;
    return rc;
}

template <typename T>
static __device__ __forceinline__ int shoal_dev_atomic_fetch(const shoal_device_t &dev, const T *src, int pe,
                                                             T *value_p)
{
    T *p;
    int rc = shoal__dev_amo_target(dev, src, pe, &p);
    if (rc == SHOAL__DEV_VIA_PROXY)
        return shoal__dev_amo_proxy<T>(dev, SHOAL_DEVICE_AMO_FETCH, src, 0, 0, pe, value_p, true);
    if (rc != SHOAL_SUCCESS) return rc;
    *value_p = cuda::atomic_ref<T, cuda::thread_scope_system>(*p).load(cuda::memory_order_relaxed);
    return SHOAL_SUCCESS;
}

template <typename T>
static __device__ __forceinline__ int shoal_dev_atomic_set(const shoal_device_t &dev, T *dest,
                                                           typename shoal__dev_same<T>::type value, int pe)
{
    T *p;
    int rc = shoal__dev_amo_target(dev, dest, pe, &p);
    if (rc == SHOAL__DEV_VIA_PROXY)
        return shoal__dev_amo_proxy<T>(dev, SHOAL_DEVICE_AMO_SET, dest, value, 0, pe, NULL, false);
    if (rc != SHOAL_SUCCESS) return rc;
    cuda::atomic_ref<T, cuda::thread_scope_system>(*p).store(value, cuda::memory_order_relaxed);
    return SHOAL_SUCCESS;
}

template <typename T>
static __device__ __forceinline__ int shoal_dev_atomic_swap(const shoal_device_t &dev, T *dest,
                                                            typename shoal__dev_same<T>::type value, int pe,
                                                            T *fetched_p)
{
    T *p;
    int rc = shoal__dev_amo_target(dev, dest, pe, &p);
    if (rc == SHOAL__DEV_VIA_PROXY)
        return shoal__dev_amo_proxy<T>(dev, SHOAL_DEVICE_AMO_SWAP, dest, value, 0, pe, fetched_p, true);
    if (rc != SHOAL_SUCCESS) return rc;
    T old = cuda::atomic_ref<T, cuda::thread_scope_system>(*p).exchange(value, cuda::memory_order_relaxed);
    if (fetched_p != NULL) *fetched_p = old;
    return SHOAL_SUCCESS;
}

/* If pe's *dest == cond, make it value; *fetched_p gets the old value either way. */
template <typename T>
static __device__ __forceinline__ int shoal_dev_atomic_compare_swap(const shoal_device_t &dev, T *dest,
                                                                    typename shoal__dev_same<T>::type cond,
                                                                    typename shoal__dev_same<T>::type value, int pe,
                                                                    T *fetched_p)
{
    T *p;
    int rc = shoal__dev_amo_target(dev, dest, pe, &p);
    if (rc == SHOAL__DEV_VIA_PROXY)
        return shoal__dev_amo_proxy<T>(dev, SHOAL_DEVICE_AMO_CSWAP, dest, value, cond, pe, fetched_p, true);
    if (rc != SHOAL_SUCCESS) return rc;
    T old = cond;
    cuda::atomic_ref<T, cuda::thread_scope_system>(*p).compare_exchange_strong(old, value, cuda::memory_order_relaxed);
    if (fetched_p != NULL) *fetched_p = old;
    return SHOAL_SUCCESS;
}

/* shoal_dev_atomic_fetch_OP (old value to *fetched_p) and shoal_dev_atomic_OP. */
#define SHOAL_DEVICE_AMO_OP(OP, CODE)                                                                                  \
    template <typename T>                                                                                              \
    static __device__ __forceinline__ int shoal_dev_atomic_fetch_##OP(const shoal_device_t &dev, T *dest,              \
                                                                      typename shoal__dev_same<T>::type value, int pe, \
                                                                      T *fetched_p)                                    \
    {                                                                                                                  \
        T *p;                                                                                                          \
        int rc = shoal__dev_amo_target(dev, dest, pe, &p);                                                             \
        if (rc == SHOAL__DEV_VIA_PROXY)                                                                                \
            return shoal__dev_amo_proxy<T>(dev, CODE, dest, value, 0, pe, fetched_p, true);                            \
        if (rc != SHOAL_SUCCESS) return rc;                                                                            \
        T old = cuda::atomic_ref<T, cuda::thread_scope_system>(*p).fetch_##OP(value, cuda::memory_order_relaxed);      \
        if (fetched_p != NULL) *fetched_p = old;                                                                       \
        return SHOAL_SUCCESS;                                                                                          \
    }                                                                                                                  \
    template <typename T>                                                                                              \
    static __device__ __forceinline__ int shoal_dev_atomic_##OP(const shoal_device_t &dev, T *dest,                    \
                                                                typename shoal__dev_same<T>::type value, int pe)       \
    {                                                                                                                  \
        T *p;                                                                                                          \
        int rc = shoal__dev_amo_target(dev, dest, pe, &p);                                                             \
        if (rc == SHOAL__DEV_VIA_PROXY) return shoal__dev_amo_proxy<T>(dev, CODE, dest, value, 0, pe, NULL, false);    \
        if (rc != SHOAL_SUCCESS) return rc;                                                                            \
        cuda::atomic_ref<T, cuda::thread_scope_system>(*p).fetch_##OP(value, cuda::memory_order_relaxed);              \
        return SHOAL_SUCCESS;                                                                                          \
    }
SHOAL_DEVICE_AMO_OP(add, SHOAL_DEVICE_AMO_ADD)
SHOAL_DEVICE_AMO_OP(and, SHOAL_DEVICE_AMO_AND)
SHOAL_DEVICE_AMO_OP(or, SHOAL_DEVICE_AMO_OR)
SHOAL_DEVICE_AMO_OP(xor, SHOAL_DEVICE_AMO_XOR)
#undef SHOAL_DEVICE_AMO_OP

template <typename T>
static __device__ __forceinline__ int shoal_dev_atomic_fetch_inc(const shoal_device_t &dev, T *dest, int pe,
                                                                 T *fetched_p)
{
    return shoal_dev_atomic_fetch_add(dev, dest, (T)1, pe, fetched_p);
}
template <typename T>
static __device__ __forceinline__ int shoal_dev_atomic_inc(const shoal_device_t &dev, T *dest, int pe)
{
    return shoal_dev_atomic_add(dev, dest, (T)1, pe);
}

/* ------------------------------------------------------------ waiting on local words */

/* Wait until *ivar (a word of this PE's heap) <cmp> value; returns the value
 * that satisfied it. Acquires: stores released before the writer's store
 * are visible afterwards. */
template <typename T>
static __device__ __forceinline__ T shoal_dev_wait_until(T *ivar, int cmp, typename shoal__dev_same<T>::type value)
{
    /* An acquire load per poll (ld.acquire.sys) costs no more than a relaxed
     * one, and ends the wait a fence (a full round to memory) sooner. */
    cuda::atomic_ref<T, cuda::thread_scope_system> w(*ivar);
    T v = w.load(cuda::memory_order_acquire);
    while (!shoal__dev_compare<T>(v, cmp, value)) v = w.load(cuda::memory_order_acquire);
    return v;
}

/* 1 if *ivar <cmp> value now (acquiring when it does), else 0. */
template <typename T>
static __device__ __forceinline__ int shoal_dev_test(T *ivar, int cmp, typename shoal__dev_same<T>::type value)
{
    T v = cuda::atomic_ref<T, cuda::thread_scope_system>(*ivar).load(cuda::memory_order_acquire);
    return shoal__dev_compare<T>(v, cmp, value) ? 1 : 0;
}

/* ------------------------------------------------------------ atomics and waits, typed */

#define SHOAL_DEVICE_AMO_TYPED_OP(T, N, OP)                                                                            \
    static __device__ __forceinline__ int shoal_dev_##N##_atomic_fetch_##OP(const shoal_device_t &dev, T *dest,        \
                                                                            T value, int pe, T *fetched_p)             \
    {                                                                                                                  \
        return shoal_dev_atomic_fetch_##OP<T>(dev, dest, value, pe, fetched_p);                                        \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_atomic_##OP(const shoal_device_t &dev, T *dest, T value,     \
                                                                      int pe)                                          \
    {                                                                                                                  \
        return shoal_dev_atomic_##OP<T>(dev, dest, value, pe);                                                         \
    }

/* shoal_dev_<N>_atomic_fetch, _set, _swap, _compare_swap, _fetch_add/_add,
 * _fetch_inc/_inc, _fetch_and/_and, _fetch_or/_or, _fetch_xor/_xor;
 * shoal_dev_<N>_wait_until, shoal_dev_<N>_test. */
#define SHOAL_DEVICE_AMO_TYPED(T, N)                                                                                   \
    static __device__ __forceinline__ int shoal_dev_##N##_atomic_fetch(const shoal_device_t &dev, const T *src,        \
                                                                       int pe, T *value_p)                             \
    {                                                                                                                  \
        return shoal_dev_atomic_fetch<T>(dev, src, pe, value_p);                                                       \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_atomic_set(const shoal_device_t &dev, T *dest, T value,      \
                                                                     int pe)                                           \
    {                                                                                                                  \
        return shoal_dev_atomic_set<T>(dev, dest, value, pe);                                                          \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_atomic_swap(const shoal_device_t &dev, T *dest, T value,     \
                                                                      int pe, T *fetched_p)                            \
    {                                                                                                                  \
        return shoal_dev_atomic_swap<T>(dev, dest, value, pe, fetched_p);                                              \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_atomic_compare_swap(const shoal_device_t &dev, T *dest,      \
                                                                              T cond, T value, int pe, T *fetched_p)   \
    {                                                                                                                  \
        return shoal_dev_atomic_compare_swap<T>(dev, dest, cond, value, pe, fetched_p);                                \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_atomic_fetch_inc(const shoal_device_t &dev, T *dest, int pe, \
                                                                           T *fetched_p)                               \
    {                                                                                                                  \
        return shoal_dev_atomic_fetch_inc<T>(dev, dest, pe, fetched_p);                                                \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_atomic_inc(const shoal_device_t &dev, T *dest, int pe)       \
    {                                                                                                                  \
        return shoal_dev_atomic_inc<T>(dev, dest, pe);                                                                 \
    }                                                                                                                  \
    SHOAL_DEVICE_AMO_TYPED_OP(T, N, add)                                                                               \
    SHOAL_DEVICE_AMO_TYPED_OP(T, N, and)                                                                               \
    SHOAL_DEVICE_AMO_TYPED_OP(T, N, or)                                                                                \
    SHOAL_DEVICE_AMO_TYPED_OP(T, N, xor)                                                                               \
    static __device__ __forceinline__ T shoal_dev_##N##_wait_until(T *ivar, int cmp, T value)                          \
    {                                                                                                                  \
        return shoal_dev_wait_until<T>(ivar, cmp, value);                                                              \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_test(T *ivar, int cmp, T value)                              \
    {                                                                                                                  \
        return shoal_dev_test<T>(ivar, cmp, value);                                                                    \
    }
SHOAL_DEV_AMO_TYPES(SHOAL_DEVICE_AMO_TYPED)
#undef SHOAL_DEVICE_AMO_TYPED
#undef SHOAL_DEVICE_AMO_TYPED_OP

/* ------------------------------------------------------------ signals */

/* Set (SHOAL_SIGNAL_SET) or add to (SHOAL_SIGNAL_ADD) pe's signal word *sig,
 * with release semantics: this thread's earlier stores are visible first. */
static __device__ __forceinline__ int shoal_dev_signal_op(const shoal_device_t &dev, uint64_t *sig, uint64_t value,
                                                          int op, int pe)
{
    uint64_t *p;
    int rc = shoal__dev_amo_target(dev, sig, pe, &p);
    if (rc < SHOAL_SUCCESS) return rc;
    if (op != SHOAL_SIGNAL_SET && op != SHOAL_SIGNAL_ADD) return SHOAL_ERR_INVALID_ARG;
    if (rc == SHOAL__DEV_VIA_PROXY) {
        shoal_dev_proxy_req_t r = shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_SIGNAL, pe, NULL, NULL, 0);
        r.arg = (unsigned short)op;
        r.value = value;
        r.sig = (unsigned long long)(uintptr_t)sig;
        return shoal__dev_proxy_call(dev, r, false, NULL);
    }
    shoal__dev_signal_store(p, value, op);
    return SHOAL_SUCCESS;
}

/* The local signal word's value now (an acquiring load). */
static __device__ __forceinline__ uint64_t shoal_dev_signal_fetch(uint64_t *sig)
{
    return cuda::atomic_ref<uint64_t, cuda::thread_scope_system>(*sig).load(cuda::memory_order_acquire);
}

/* Wait until the local signal word <cmp> value; returns the value seen. */
static __device__ __forceinline__ uint64_t shoal_dev_signal_wait_until(uint64_t *sig, int cmp, uint64_t value)
{
    return shoal_dev_wait_until<uint64_t>(sig, cmp, value);
}

/* Both ranges are checked before anything is stored: an error moves nothing. */
template <int Scope>
static __device__ __forceinline__ int shoal__dev_put_signal(const shoal_device_t &dev, void *dest, const void *src,
                                                            size_t nbytes, uint64_t *sig, uint64_t value, int op,
                                                            int pe)
{
    char *peer;
    uint64_t *peer_sig;
    int rc = shoal__dev_translate(dev, dest, nbytes, pe, &peer), src_rc = rc;
    if (rc >= SHOAL_SUCCESS) rc = shoal__dev_amo_target(dev, sig, pe, &peer_sig);
    if (rc >= SHOAL_SUCCESS && op != SHOAL_SIGNAL_SET && op != SHOAL_SIGNAL_ADD) rc = SHOAL_ERR_INVALID_ARG;
    if (rc < SHOAL_SUCCESS) return rc;
    if (src_rc == SHOAL__DEV_VIA_PROXY || rc == SHOAL__DEV_VIA_PROXY) {
        /* Data and signal both through the proxy (the host orders them),
         * even where only the signal needs it. Blocking: src is read
         * before the group goes on. */
        shoal_dev_proxy_req_t r = shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_SIGNAL, pe, dest, src, nbytes);
        r.arg = (unsigned short)op;
        r.value = value;
        r.sig = (unsigned long long)(uintptr_t)sig;
        if (nbytes > 0 && !shoal__dev_host_reaches(src)) {
            /* src in local or shared memory: the data by value, a fence
             * (the data complete at the target), then the signal alone. */
            if (Scope != SHOAL__DEV_THREAD && __isLocal(src)) return SHOAL_ERR_INVALID_ARG;
            shoal__dev_sync<Scope>();
            if (shoal__dev_rank<Scope>() == 0) {
                rc = shoal__dev_proxy_rma_by_value(dev, true, dest, src, nbytes, pe);
                if (rc == SHOAL_SUCCESS)
                    rc = shoal__dev_proxy_call(dev,
                                               shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_FENCE, dev.my_pe, NULL, NULL, 0),
                                               false, NULL);
                r.dest = r.src = 0;
                r.nbytes = 0;
                if (rc == SHOAL_SUCCESS) rc = shoal__dev_proxy_call(dev, r, false, NULL);
            }
            return shoal__dev_bcast<Scope>(rc);
        }
        return shoal__dev_proxy_group<Scope>(dev, r, nbytes > 0, NULL);
    }
    shoal__dev_sync<Scope>();
    shoal__dev_copy(peer, src, nbytes, shoal__dev_rank<Scope>(), shoal__dev_size<Scope>());
    __threadfence_system();
    shoal__dev_sync<Scope>();
    if (shoal__dev_rank<Scope>() == 0) shoal__dev_signal_store(peer_sig, value, op);
    return SHOAL_SUCCESS;
}

/* Put nbytes to pe, then signal it (op on pe's *sig): whoever sees the
 * signal sees the data. _warp, _block: the group moves the data, its first
 * thread signals once. */
static __device__ __forceinline__ int shoal_dev_put_signal(const shoal_device_t &dev, void *dest, const void *src,
                                                           size_t nbytes, uint64_t *sig, uint64_t value, int op, int pe)
{
    return shoal__dev_put_signal<SHOAL__DEV_THREAD>(dev, dest, src, nbytes, sig, value, op, pe);
}
static __device__ __forceinline__ int shoal_dev_put_signal_warp(const shoal_device_t &dev, void *dest, const void *src,
                                                                size_t nbytes, uint64_t *sig, uint64_t value, int op,
                                                                int pe)
{
    return shoal__dev_put_signal<SHOAL__DEV_WARP>(dev, dest, src, nbytes, sig, value, op, pe);
}
static __device__ __forceinline__ int shoal_dev_put_signal_block(const shoal_device_t &dev, void *dest, const void *src,
                                                                 size_t nbytes, uint64_t *sig, uint64_t value, int op,
                                                                 int pe)
{
    return shoal__dev_put_signal<SHOAL__DEV_BLOCK>(dev, dest, src, nbytes, sig, value, op, pe);
}

/* ------------------------------------------------------------ barriers */

/* The PE phase, by one thread, with gen = this PE's generation + 1 (read
 * before the block met, so that its load is off the critical path): a
 * system fence (the block's earlier stores, which this thread observed
 * through the block's barrier, become visible everywhere: cumulativity),
 * store gen into my flag slot at every peer, then wait with acquire loads
 * until every peer's flag in my control area reached it. Generations wrap;
 * PEs are never more than one apart, so a signed difference compares them. */
static __device__ __forceinline__ int shoal__dev_barrier_pes(const shoal_device_t &dev, unsigned gen)
{
    int n = dev.n_pes, me = dev.my_pe;
    /* Proxied operations (atomics without native peer atomics) first. */
    int qrc = shoal_dev_quiet(dev);

    shoal__dev_flag_ref(dev.ctrl[SHOAL_DEVICE_BARRIER_GEN]).store(gen, cuda::memory_order_relaxed);
    for (int i = 1; i < n; i++) {
        int pe = me + i < n ? me + i : me + i - n;
        shoal__dev_flag_ref(shoal__dev_peer_ctrl(dev, pe)[SHOAL_DEVICE_BARRIER_FLAGS + me])
            .store(gen, cuda::memory_order_relaxed);
    }
    for (int i = 1; i < n; i++) {
        int pe = me + i < n ? me + i : me + i - n;
        shoal__dev_flag_ref flag(dev.ctrl[SHOAL_DEVICE_BARRIER_FLAGS + pe]);
#if SHOAL_DEV_TIMEOUT_NS > 0
        unsigned long long start = shoal__dev_now_ns();
        for (unsigned spin = 1; (int)(flag.load(cuda::memory_order_acquire) - gen) < 0; spin++)
            if (spin % 1024 == 0 && shoal__dev_now_ns() - start > (unsigned long long)(SHOAL_DEV_TIMEOUT_NS))
                return SHOAL_ERR_TIMEOUT;
#else
        while ((int)(flag.load(cuda::memory_order_acquire) - gen) < 0) {
        }
#endif
    }
    return qrc;
}

/* Wait until the control word w reached gen (a signed difference); false
 * after SHOAL_DEV_TIMEOUT_NS. */
static __device__ __forceinline__ bool shoal__dev_flag_wait(unsigned int *w, unsigned gen)
{
    shoal__dev_flag_ref flag(*w);
#if SHOAL_DEV_TIMEOUT_NS > 0
    unsigned long long start = shoal__dev_now_ns();
    for (unsigned spin = 1; (int)(flag.load(cuda::memory_order_acquire) - gen) < 0; spin++)
        if (spin % 1024 == 0 && shoal__dev_now_ns() - start > (unsigned long long)(SHOAL_DEV_TIMEOUT_NS)) return false;
#else
    while ((int)(flag.load(cuda::memory_order_acquire) - gen) < 0) {
    }
#endif
    return true;
}

/* The PE phase where some PE is out of load/store reach, by one thread:
 * quiet (this PE's proxied operations complete), then, where the whole
 * node is reachable, the node's PEs meet through their control words, its
 * leader meets the other nodes' leaders through the proxy and releases
 * the node (with the meeting's status); else every PE meets through its
 * proxy. */
static __device__ __noinline__ int shoal__dev_barrier_hier(const shoal_device_t &dev, unsigned gen)
{
    int qrc = shoal_dev_quiet(dev), rc = SHOAL_SUCCESS, me = dev.my_pe;

    shoal__dev_flag_ref(dev.ctrl[SHOAL_DEVICE_BARRIER_GEN]).store(gen, cuda::memory_order_relaxed);
    if (!dev.node_ok) {
        /* Every PE: a team of all (first PE 0, stride 1), group SHOAL_DEVICE_TEAMS. */
        shoal_dev_proxy_req_t r =
            shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_BARRIER, me, NULL, (const void *)(uintptr_t)1, dev.n_pes);
        r.sig = SHOAL_DEVICE_TEAMS;
        rc = shoal__dev_proxy_call(dev, r, true, NULL);
        return rc != SHOAL_SUCCESS ? rc : qrc;
    }
    for (int k = 0; k < dev.node_size; k++)
        if (k != dev.node_rank)
            shoal__dev_flag_ref(shoal__dev_peer_ctrl(dev, dev.node_pes[k])[SHOAL_DEVICE_BARRIER_FLAGS + me])
                .store(gen, cuda::memory_order_relaxed);
    for (int k = 0; k < dev.node_size; k++)
        if (k != dev.node_rank && !shoal__dev_flag_wait(&dev.ctrl[SHOAL_DEVICE_BARRIER_FLAGS + dev.node_pes[k]], gen))
            return SHOAL_ERR_TIMEOUT;
    if (dev.node_rank == 0) {
        shoal_dev_proxy_req_t r = shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_BARRIER, me, NULL, NULL, 0);
        r.arg = SHOAL_DEVICE_PROXY_LEADERS;
        rc = shoal__dev_proxy_call(dev, r, true, NULL);
        for (int k = 1; k < dev.node_size; k++) {
            unsigned int *peer = shoal__dev_peer_ctrl(dev, dev.node_pes[k]);
            shoal__dev_flag_ref(peer[SHOAL_DEVICE_BARRIER_STATUS]).store((unsigned)rc, cuda::memory_order_relaxed);
            shoal__dev_flag_ref(peer[SHOAL_DEVICE_BARRIER_RELEASE]).store(gen, cuda::memory_order_release);
        }
    } else {
        if (!shoal__dev_flag_wait(&dev.ctrl[SHOAL_DEVICE_BARRIER_RELEASE], gen)) return SHOAL_ERR_TIMEOUT;
        rc = (int)shoal__dev_flag_ref(dev.ctrl[SHOAL_DEVICE_BARRIER_STATUS]).load(cuda::memory_order_relaxed);
    }
    return rc != SHOAL_SUCCESS ? rc : qrc;
}

/* This PE's next device-barrier generation. */
static __device__ __forceinline__ unsigned shoal__dev_barrier_next(const shoal_device_t &dev)
{
    return shoal__dev_flag_ref(dev.ctrl[SHOAL_DEVICE_BARRIER_GEN]).load(cuda::memory_order_relaxed) + 1;
}

/* Barrier over all PEs, called by every thread of one block per PE. */
static __device__ __forceinline__ int shoal_dev_barrier_all_block(const shoal_device_t &dev)
{
    unsigned gen = 0;
    int rc = SHOAL_SUCCESS;

    if (!dev.barrier_ok && dev.proxy.status != SHOAL_SUCCESS) return dev.proxy.status;
    bool leader = shoal__dev_block_rank() == 0;
    if (leader) gen = shoal__dev_barrier_next(dev);
    __syncthreads(); /* the block's earlier stores, before the leader's fence */
    if (leader) rc = dev.barrier_ok ? shoal__dev_barrier_pes(dev, gen) : shoal__dev_barrier_hier(dev, gen);
    return shoal__dev_bcast<SHOAL__DEV_BLOCK>(rc);
}

/* Barrier over all PEs, called by every thread of a cooperative launch:
 * grid sync, block 0's first thread runs the PE phase, grid sync. */
static __device__ __forceinline__ int shoal_dev_barrier_all_grid(const shoal_device_t &dev)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    unsigned gen = 0;
    int rc = SHOAL_SUCCESS;

    /* is_valid() is true in ordinary launches too on recent CUDA: a grid
     * barrier outside a cooperative launch cannot be detected (see the rules). */
    if (!grid.is_valid()) return SHOAL_ERR_UNSUPPORTED;
    if (!dev.barrier_ok && dev.proxy.status != SHOAL_SUCCESS) return dev.proxy.status;
    bool leader = shoal__dev_block_rank() == 0 && blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0;
    grid.sync(); /* the grid's earlier stores, before the leader's fence */
    /* The generation is read after the grid met: another block of this
     * grid may have been in a block barrier until then. */
    if (leader) gen = shoal__dev_barrier_next(dev);
    if (leader) rc = dev.barrier_ok ? shoal__dev_barrier_pes(dev, gen) : shoal__dev_barrier_hier(dev, gen);
    grid.sync();
    return rc;
}

/* Teams: barriers and collectives in kernels. */
#include "shoal_device_team.cuh"

#pragma nv_diagnostic pop

#endif /* SHOAL_DEVICE_CUH */
