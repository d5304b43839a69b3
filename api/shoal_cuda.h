/*
 * shoal stream-ordered host API: operations enqueued on a CUDA stream,
 * ordered with the application's own work on it. Needs the CUDA runtime
 * headers; include after (or instead of) shoal.h.
 */
#ifndef SHOAL_CUDA_H
#define SHOAL_CUDA_H

#include <cuda_runtime_api.h>

#include "shoal.h"
#include "shoal_device_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CUDA device this PE's instance uses (-1 for a host heap). */
SHOAL_EXPORT int shoal_cuda_device(shoal_t sh);

/* Fill *dev for kernels (shoal_device.cuh). GPU heap only. The tables it
 * points to live as long as the instance. The first call starts the
 * device proxy where some PE needs it (not load/store reachable, or
 * atomics without native peer atomics): under MPI_THREAD_MULTIPLE only;
 * otherwise dev->proxy.status is SHOAL_ERR_THREAD, kernels' calls to those
 * PEs return it, and a warning says so once. */
SHOAL_EXPORT int shoal_device_get(shoal_t sh, shoal_device_t *dev_p);
/* 1 if kernels of this PE can load/store pe's heap (cuda_ipc or self), else
 * 0 (kernels then reach pe through the device proxy). */
SHOAL_EXPORT int shoal_device_reachable(shoal_t sh, int pe);

/* Enqueue a copy to/from pe's heap on stream. Over cuda_ipc (and self) the
 * copy runs on the copy engine in stream order and returns at once; towards
 * a PE reached otherwise the call first waits for the stream, then moves the
 * data before returning. src/dest may be host or device memory. */
SHOAL_EXPORT int shoal_put_on_stream(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe,
                                     cudaStream_t stream);
SHOAL_EXPORT int shoal_get_on_stream(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe,
                                     cudaStream_t stream);
/* Work enqueued on stream after this waits for every operation this PE
 * issued on the host (blocking and nbi) to complete. Stream operations are
 * ordered by their own stream: a put enqueued on stream A is not waited
 * for by a quiet, barrier or shoal_free on stream B or on the host; join A
 * first (an event, or a quiet enqueued on A), and never shoal_free a block
 * that a stream operation still writes or reads. */
SHOAL_EXPORT int shoal_quiet_on_stream(shoal_t sh, cudaStream_t stream);
/* Collective, ordered on stream: work after it on any PE's stream sees every
 * put enqueued before it on every PE. Between node-local GPUs it runs on the
 * GPU through flags in peer memory (no host round trip); otherwise the host
 * waits for the stream and runs the host barrier, as a call of its own: a
 * PE in shoal_barrier_all meanwhile gets SHOAL_ERR_NOT_SYMMETRIC, as do the
 * others. On the GPU path the PEs meet on the GPU, and each host collective
 * (barrier, allocation) checks that every PE made as many of these calls:
 * one more or one fewer on some PE gives SHOAL_ERR_NOT_SYMMETRIC on every
 * PE (the streams involved wait until the missing call is made). */
SHOAL_EXPORT int shoal_barrier_all_on_stream(shoal_t sh, cudaStream_t stream);

/* Typed: put/get of nelems elements on a stream, and p: one value stored in
 * stream order. A 4- or 8-byte p travels inside the stream operation (the
 * value is taken at the call; no copy engine); other sizes wait for the
 * stream and put at once. */
/* Point-to-point synchronization in stream order (GPU heaps). put_signal:
 * the data, then the signal change (SHOAL_SIGNAL_SET or _ADD), as the
 * stream reaches them; signal_op: the signal change alone. With a peer
 * whose transport cannot join a stream (staged, mpi_rma), the host waits
 * for the stream and does the host call. signal_wait_until: the stream
 * waits until this PE's sig <cmp> value, the host does not (a stream
 * memory operation for EQ, GE and GT, else a one-thread kernel; a stream
 * wait never times out; CUDA compares GE and GT cyclically: a value
 * more than 2^63 past the other counts as below it; never wait on the
 * legacy default stream 0, which shoal's host calls on a GPU heap follow,
 * README "Waits"). On a host heap, and for the wait in an instance
 * with staged or mpi_rma GPU peers, each waits for the stream, then acts
 * as the host call. */
SHOAL_EXPORT int shoal_put_signal_on_stream(shoal_t sh, void *dest, const void *src, size_t nbytes, uint64_t *sig,
                                            uint64_t value, int op, int pe, cudaStream_t stream);
SHOAL_EXPORT int shoal_signal_op_on_stream(shoal_t sh, uint64_t *sig, uint64_t value, int op, int pe,
                                           cudaStream_t stream);
SHOAL_EXPORT int shoal_signal_wait_until_on_stream(shoal_t sh, uint64_t *sig, int cmp, uint64_t value,
                                                   cudaStream_t stream);

/* The wait_until family in stream order (SHOAL_WAIT_TYPES): work enqueued
 * on stream after the call waits until this PE's ivar <cmp> value (all
 * included elements for _all, each against values[i] for _all_vector;
 * status as in api/shoal.h); the host does not wait. On the GPU (a GPU
 * heap, or a registered GPU range, every PE's transport joining streams)
 * one 4- or 8-byte element compared EQ is a stream memory operation, the
 * rest one-thread kernels of up to 256 elements. status and values may be
 * host memory, read at the call (reusable at once; the waits can be
 * captured in a CUDA graph), or device memory, read when the stream
 * reaches the wait (as NVSHMEM does). Elsewhere the host waits for the
 * stream, then makes the host wait (up to SHOAL_TIMEOUT; refused inside a
 * capture). A stream wait never times out; never wait on the legacy
 * default stream 0 (README "Waits"). */
#define SHOAL__WAIT_STREAM_DECL(T, N)                                                                                  \
    SHOAL_EXPORT int shoal_##N##_wait_until_on_stream(shoal_t sh, T *ivar, int cmp, T value, cudaStream_t stream);     \
    SHOAL_EXPORT int shoal_##N##_wait_until_all_on_stream(shoal_t sh, T *ivars, size_t nelems, const int *status,      \
                                                          int cmp, T value, cudaStream_t stream);                      \
    SHOAL_EXPORT int shoal_##N##_wait_until_all_vector_on_stream(shoal_t sh, T *ivars, size_t nelems,                  \
                                                                 const int *status, int cmp, const T *values,          \
                                                                 cudaStream_t stream);
SHOAL_WAIT_TYPES(SHOAL__WAIT_STREAM_DECL)
#undef SHOAL__WAIT_STREAM_DECL

#define SHOAL__TYPED_STREAM_DECL(T, N)                                                                                 \
    SHOAL_EXPORT int shoal_##N##_put_on_stream(shoal_t sh, T *dest, const T *src, size_t nelems, int pe,               \
                                               cudaStream_t stream);                                                   \
    SHOAL_EXPORT int shoal_##N##_get_on_stream(shoal_t sh, T *dest, const T *src, size_t nelems, int pe,               \
                                               cudaStream_t stream);                                                   \
    SHOAL_EXPORT int shoal_##N##_p_on_stream(shoal_t sh, T *dest, T value, int pe, cudaStream_t stream);
SHOAL_RMA_TYPES(SHOAL__TYPED_STREAM_DECL)
SHOAL_HALF_TYPES(SHOAL__TYPED_STREAM_DECL)
#undef SHOAL__TYPED_STREAM_DECL

/* ------------------------------------------------------------------------
 * Teams on streams and in kernels (GPU heaps). */

/* Fill *team_p for kernels (shoal_device.cuh, shoal_dev_team_*). Where
 * kernels cannot load/store every member (another node, no peer access,
 * more than SHOAL_DEVICE_TEAM_PES members) team_p->ok is 0: the team's
 * kernel collectives then go through the device proxy where it runs, and
 * the call returns SHOAL_ERR_UNSUPPORTED where it does not. */
SHOAL_EXPORT int shoal_team_device_get(shoal_team_t team, shoal_dev_team_t *team_p);

/* The team's collectives (api/shoal.h, same arguments and rules) enqueued
 * on stream: asynchronous to the host, ordered with the application's work
 * on stream, capturable in a CUDA graph once the buffers exist. Where
 * every member's GPU heap is mapped here (CUDA IPC: the PEs of a node) the
 * members meet on the GPU: broadcast, fcollect, alltoall, the reductions
 * and the reduce-scatters are kernels and copy-engine copies (README,
 * "Collectives", says which when). Otherwise, and for collect and
 * alltoalls, and for reductions and reduce-scatters of the types the GPU
 * does not compute on (long double, complex), the host waits for stream (at most SHOAL_TIMEOUT) and runs the
 * host collective before returning (refused inside a capture). With
 * SHOAL_CHECK basic or full (the default) the host also meets the members
 * once per call to check that they made the same call (it does not wait
 * for their streams); SHOAL_CHECK=off skips it. Members sharing a GPU
 * without MPS meet through stream memory operations, which cannot be
 * captured (SHOAL_ERR_UNSUPPORTED inside a capture). */
SHOAL_EXPORT int shoal_team_barrier_on_stream(shoal_team_t team, cudaStream_t stream);
#define SHOAL__COLL_STREAM_DECL(T, N)                                                                                  \
    SHOAL_EXPORT int shoal_##N##_broadcast_on_stream(shoal_team_t team, T *dest, const T *src, size_t nelems,          \
                                                     int root, cudaStream_t stream);                                   \
    SHOAL_EXPORT int shoal_##N##_collect_on_stream(shoal_team_t team, T *dest, const T *src, size_t nelems,            \
                                                   cudaStream_t stream);                                               \
    SHOAL_EXPORT int shoal_##N##_fcollect_on_stream(shoal_team_t team, T *dest, const T *src, size_t nelems,           \
                                                    cudaStream_t stream);                                              \
    SHOAL_EXPORT int shoal_##N##_alltoall_on_stream(shoal_team_t team, T *dest, const T *src, size_t nelems,           \
                                                    cudaStream_t stream);                                              \
    SHOAL_EXPORT int shoal_##N##_alltoalls_on_stream(shoal_team_t team, T *dest, const T *src, ptrdiff_t dst,          \
                                                     ptrdiff_t sst, size_t nelems, cudaStream_t stream);
SHOAL_RMA_TYPES(SHOAL__COLL_STREAM_DECL)
SHOAL_HALF_TYPES(SHOAL__COLL_STREAM_DECL)
#undef SHOAL__COLL_STREAM_DECL
SHOAL_EXPORT int shoal_broadcastmem_on_stream(shoal_team_t team, void *dest, const void *src, size_t nbytes, int root,
                                              cudaStream_t stream);
SHOAL_EXPORT int shoal_collectmem_on_stream(shoal_team_t team, void *dest, const void *src, size_t nbytes,
                                            cudaStream_t stream);
SHOAL_EXPORT int shoal_fcollectmem_on_stream(shoal_team_t team, void *dest, const void *src, size_t nbytes,
                                             cudaStream_t stream);
SHOAL_EXPORT int shoal_alltoallmem_on_stream(shoal_team_t team, void *dest, const void *src, size_t nbytes,
                                             cudaStream_t stream);
SHOAL_EXPORT int shoal_alltoallsmem_on_stream(shoal_team_t team, void *dest, const void *src, ptrdiff_t dst,
                                              ptrdiff_t sst, size_t nbytes, cudaStream_t stream);
#define SHOAL__REDUCE_STREAM_DECL1(T, N, OP)                                                                           \
    SHOAL_EXPORT int shoal_##N##_##OP##_reduce_on_stream(shoal_team_t team, T *dest, const T *src, size_t nreduce,     \
                                                         cudaStream_t stream);                                         \
    SHOAL_EXPORT int shoal_##N##_##OP##_reducescatter_on_stream(shoal_team_t team, T *dest, const T *src,              \
                                                                size_t nreduce, cudaStream_t stream);
#define SHOAL__REDUCE_STREAM_BIT(T, N)                                                                                 \
    SHOAL__REDUCE_STREAM_DECL1(T, N, and) SHOAL__REDUCE_STREAM_DECL1(T, N, or) SHOAL__REDUCE_STREAM_DECL1(T, N, xor)
#define SHOAL__REDUCE_STREAM_ARITH(T, N)                                                                               \
    SHOAL__REDUCE_STREAM_DECL1(T, N, min)                                                                              \
    SHOAL__REDUCE_STREAM_DECL1(T, N, max)                                                                              \
    SHOAL__REDUCE_STREAM_DECL1(T, N, sum) SHOAL__REDUCE_STREAM_DECL1(T, N, prod)
#define SHOAL__REDUCE_STREAM_CPLX(T, N) SHOAL__REDUCE_STREAM_DECL1(T, N, sum) SHOAL__REDUCE_STREAM_DECL1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(SHOAL__REDUCE_STREAM_BIT)
SHOAL_REDUCE_ARITH_TYPES(SHOAL__REDUCE_STREAM_ARITH)
SHOAL_HALF_TYPES(SHOAL__REDUCE_STREAM_ARITH)
#ifndef __cplusplus
SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__REDUCE_STREAM_CPLX)
#endif
#undef SHOAL__REDUCE_STREAM_BIT
#undef SHOAL__REDUCE_STREAM_ARITH
#undef SHOAL__REDUCE_STREAM_CPLX
#undef SHOAL__REDUCE_STREAM_DECL1

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_CUDA_H */
