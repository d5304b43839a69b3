/*
 * NVSHMEM's extensions (nvshmemx_*) carried by shoal: initialization on an
 * MPI communicator, registered buffers, the stream-ordered calls (where
 * CUDA's runtime header is found). Included by nvshmem.h.
 */
#ifndef SHOAL_NVSHMEMX_H
#define SHOAL_NVSHMEMX_H

#include "nvshmem.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* nvshmemx_init_attr: where the instance lives. */
typedef struct {
    int version;
    void *mpi_comm; /* an MPI_Comm * (NVSHMEMX_INIT_WITH_MPI_COMM): the PEs are its ranks */
    int reserved[14];
} nvshmemx_init_attr_t;
#define NVSHMEMX_INIT_ATTR_INITIALIZER                                                                                 \
    {                                                                                                                  \
        0, NULL, { 0 }                                                                                                 \
    }
#define NVSHMEMX_INIT_THREAD_PES (1u << 0)
#define NVSHMEMX_INIT_WITH_MPI_COMM (1u << 1)
#define NVSHMEMX_INIT_WITH_SHMEM (1u << 2)
#define NVSHMEMX_INIT_WITH_UNIQUEID (1u << 3)
/* 0, or nonzero (after printing why) where flags ask for what shoal does
 * not carry (every flag but NVSHMEMX_INIT_WITH_MPI_COMM). */
int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr);

enum nvshmemx_init_status {
    NVSHMEM_STATUS_NOT_INITIALIZED = 0,
    NVSHMEM_STATUS_IS_BOOTSTRAPPED = 1,
    NVSHMEM_STATUS_IS_INITIALIZED = 2
};
int nvshmemx_init_status(void);

/* Statuses of the calls below that return one (nvshmemx_collective_launch...). */
enum nvshmemx_status {
    NVSHMEMX_SUCCESS = 0,
    NVSHMEMX_ERROR_INVALID_VALUE = 1,
    NVSHMEMX_ERROR_OUT_OF_MEMORY = 2,
    NVSHMEMX_ERROR_NOT_SUPPORTED = 3,
    NVSHMEMX_ERROR_SYMMETRY = 4,
    NVSHMEMX_ERROR_GPU_NOT_SELECTED = 5,
    NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED = 6,
    NVSHMEMX_ERROR_INTERNAL = 7
};

/* The PE's number in NVSHMEMX_TEAM_NODE and its size. */
int nvshmemx_my_pe(nvshmem_team_t team);
int nvshmemx_n_pes(nvshmem_team_t team);

/* The symmetric heap on this PE (shoal_heap_stats, a shoal extension):
 * bytes in blocks in use, bytes it may take now (chunks mapped on a
 * growing GPU heap), and its limit (NVSHMEM_SYMMETRIC_SIZE or
 * SHOAL_HEAP_SIZE; 1 GiB for a fixed heap where neither is set). Any
 * pointer may be NULL. Returns 0, or nonzero (after
 * printing why) before nvshmem_init. */
int nvshmemx_heap_stats(size_t *used, size_t *mapped, size_t *limit);

/* Memory outside the heap made symmetric (collective): shoal_register. */
int nvshmemx_buffer_register(void *addr, size_t length);
int nvshmemx_buffer_unregister(void *addr);

void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

#if defined(__has_include)
#if __has_include(<cuda_runtime_api.h>)
#define SHOAL_NVSHMEM_STREAMS 1
#endif
#endif

#ifdef SHOAL_NVSHMEM_STREAMS
#include <cuda_runtime_api.h>
#include <stdio.h>

/* The most blocks of blockDims (with sharedMem bytes of dynamic shared
 * memory) that nvshmemx_collective_launch can start on the current GPU:
 * blocks resident per SM times its SMs; args is not needed. */
static inline int nvshmemx_collective_launch_query_gridsize(const void *func, dim3 blockDims, void **args,
                                                            size_t sharedMem, int *gridsize)
{
    int dev = 0, sms = 0, per_sm = 0;
    cudaError_t err;
    (void)args;
    if (func == NULL || gridsize == NULL) {
        fprintf(stderr, "nvshmemx_collective_launch_query_gridsize: %s is NULL\n", func == NULL ? "func" : "gridsize");
        return NVSHMEMX_ERROR_INVALID_VALUE;
    }
    err = cudaGetDevice(&dev);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func,
                                                            (int)(blockDims.x * blockDims.y * blockDims.z), sharedMem);
    if (err != cudaSuccess) {
        fprintf(stderr, "nvshmemx_collective_launch_query_gridsize: %s\n", cudaGetErrorString(err));
        cudaGetLastError();
        return NVSHMEMX_ERROR_INTERNAL;
    }
    *gridsize = per_sm * sms;
    return NVSHMEMX_SUCCESS;
}

/* Kernels whose PEs wait for each other inside (device barriers and
 * collectives) need every block of the grid resident at once: a
 * cooperative launch (cudaLaunchCooperativeKernel), which fails rather
 * than start a grid that does not fit. Inline, so that the kernel is
 * looked up in the caller's CUDA runtime, where it is registered. Returns
 * NVSHMEMX_SUCCESS, or NVSHMEMX_ERROR_* after printing why. PEs that share
 * a GPU share its SMs: their grids together must fit (MPS), which no
 * launch can check. */
static inline int nvshmemx_collective_launch(const void *func, dim3 gridDims, dim3 blockDims, void **args,
                                             size_t sharedMem, cudaStream_t stream)
{
    cudaError_t err;
    if (nvshmemx_init_status() != NVSHMEM_STATUS_IS_INITIALIZED) {
        fprintf(stderr, "nvshmemx_collective_launch: called before nvshmem_init (or after nvshmem_finalize)\n");
        return NVSHMEMX_ERROR_GPU_NOT_SELECTED;
    }
    if (func == NULL) {
        fprintf(stderr, "nvshmemx_collective_launch: func is NULL\n");
        return NVSHMEMX_ERROR_INVALID_VALUE;
    }
    if (gridDims.x == 0 || gridDims.y == 0 || gridDims.z == 0) {
        /* A grid of 0: the largest that fits at once. */
        int most = 0, qrc = nvshmemx_collective_launch_query_gridsize(func, blockDims, args, sharedMem, &most);
        if (qrc != NVSHMEMX_SUCCESS) return qrc;
        if (most < 1) {
            fprintf(stderr, "nvshmemx_collective_launch: not one block of %ux%ux%u fits on this GPU\n", blockDims.x,
                    blockDims.y, blockDims.z);
            return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
        }
        gridDims.x = (unsigned)most;
        gridDims.y = gridDims.z = 1;
    }
    err = cudaLaunchCooperativeKernel(func, gridDims, blockDims, args, sharedMem, stream);
    if (err != cudaSuccess) {
        fprintf(stderr,
                "PE %d: nvshmemx_collective_launch: grid %ux%ux%u of blocks %ux%ux%u, %zu bytes of shared memory: "
                "cudaLaunchCooperativeKernel: %s%s\n",
                nvshmem_my_pe(), gridDims.x, gridDims.y, gridDims.z, blockDims.x, blockDims.y, blockDims.z, sharedMem,
                cudaGetErrorString(err),
                err == cudaErrorCooperativeLaunchTooLarge
                    ? " (more blocks than fit at once: nvshmemx_collective_launch_query_gridsize gives the most)"
                    : "");
        cudaGetLastError();
        return NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED;
    }
    return NVSHMEMX_SUCCESS;
}

/* In the order of stream, as shoal_put_on_stream and friends. */
void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);
void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);
#define NVSHMEMX__STREAM_DECL(T, N)                                                                                    \
    void nvshmemx_##N##_put_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream);           \
    void nvshmemx_##N##_get_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream);           \
    void nvshmemx_##N##_p_on_stream(T *dest, T value, int pe, cudaStream_t stream);
NVSHMEM__RMA_TYPES(NVSHMEMX__STREAM_DECL)
#undef NVSHMEMX__STREAM_DECL
/* _nbi on a stream: the same calls (a stream operation never blocks the
 * host where the copy engine carries it). */
void nvshmemx_putmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);
void nvshmemx_getmem_nbi_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);
#define NVSHMEMX__STREAM_NBI_DECL(T, N)                                                                                \
    void nvshmemx_##N##_put_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream);       \
    void nvshmemx_##N##_get_nbi_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream);       \
    void nvshmemx_##N##_put_signal_on_stream(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,              \
                                             uint64_t signal, int sig_op, int pe, cudaStream_t stream);                \
    void nvshmemx_##N##_put_signal_nbi_on_stream(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,          \
                                                 uint64_t signal, int sig_op, int pe, cudaStream_t stream);
NVSHMEM__RMA_TYPES(NVSHMEMX__STREAM_NBI_DECL)
#undef NVSHMEMX__STREAM_NBI_DECL
/* Sized forms on a stream: BITS of 8, 16, 32, 64, 128. */
#define NVSHMEMX__SIZED_STREAM_DECL(BITS)                                                                              \
    void nvshmemx_put##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream);   \
    void nvshmemx_get##BITS##_on_stream(void *dest, const void *source, size_t nelems, int pe, cudaStream_t stream);   \
    void nvshmemx_put##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,                     \
                                            cudaStream_t stream);                                                      \
    void nvshmemx_get##BITS##_nbi_on_stream(void *dest, const void *source, size_t nelems, int pe,                     \
                                            cudaStream_t stream);                                                      \
    void nvshmemx_put##BITS##_signal_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,      \
                                               uint64_t signal, int sig_op, int pe, cudaStream_t stream);              \
    void nvshmemx_put##BITS##_signal_nbi_on_stream(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,  \
                                                   uint64_t signal, int sig_op, int pe, cudaStream_t stream);
NVSHMEMX__SIZED_STREAM_DECL(8)
NVSHMEMX__SIZED_STREAM_DECL(16)
NVSHMEMX__SIZED_STREAM_DECL(32)
NVSHMEMX__SIZED_STREAM_DECL(64)
NVSHMEMX__SIZED_STREAM_DECL(128)
#undef NVSHMEMX__SIZED_STREAM_DECL
void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes, uint64_t *sig_addr, uint64_t signal,
                                      int sig_op, int pe, cudaStream_t stream);
void nvshmemx_putmem_signal_nbi_on_stream(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,
                                          uint64_t signal, int sig_op, int pe, cudaStream_t stream);
/* Waits in stream order: later work on stream waits, the host does not. */
#define NVSHMEMX__WAIT_STREAM_DECL(T, N)                                                                               \
    void nvshmemx_##N##_wait_until_on_stream(T *ivar, int cmp, T cmp_value, cudaStream_t stream);                      \
    void nvshmemx_##N##_wait_until_all_on_stream(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value,     \
                                                 cudaStream_t stream);                                                 \
    void nvshmemx_##N##_wait_until_all_vector_on_stream(T *ivars, size_t nelems, const int *status, int cmp,           \
                                                        T *cmp_values, cudaStream_t stream);
SHOAL_WAIT_TYPES(NVSHMEMX__WAIT_STREAM_DECL)
#undef NVSHMEMX__WAIT_STREAM_DECL
void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, cudaStream_t stream);
void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream);
void nvshmemx_quiet_on_stream(cudaStream_t stream);
void nvshmemx_barrier_all_on_stream(cudaStream_t stream);
void nvshmemx_sync_all_on_stream(cudaStream_t stream);
int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream);
int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream);
int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root,
                                    cudaStream_t stream);
int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                   cudaStream_t stream);
int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                   cudaStream_t stream);
#define NVSHMEMX__COLL_STREAM_DECL(T, N)                                                                               \
    int nvshmemx_##N##_broadcast_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root,  \
                                           cudaStream_t stream);                                                       \
    int nvshmemx_##N##_fcollect_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,                \
                                          cudaStream_t stream);                                                        \
    int nvshmemx_##N##_alltoall_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,                \
                                          cudaStream_t stream);
NVSHMEM__RMA_TYPES(NVSHMEMX__COLL_STREAM_DECL)
#undef NVSHMEMX__COLL_STREAM_DECL
#define NVSHMEMX__REDUCE_STREAM1(T, N, OP)                                                                             \
    int nvshmemx_##N##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nreduce,          \
                                               cudaStream_t stream);                                                   \
    int nvshmemx_##N##_##OP##_reducescatter_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nreduce,   \
                                                      cudaStream_t stream);
#define NVSHMEMX__REDUCE_STREAM_BIT(T, N)                                                                              \
    NVSHMEMX__REDUCE_STREAM1(T, N, and) NVSHMEMX__REDUCE_STREAM1(T, N, or) NVSHMEMX__REDUCE_STREAM1(T, N, xor)
#define NVSHMEMX__REDUCE_STREAM_ARITH(T, N)                                                                            \
    NVSHMEMX__REDUCE_STREAM1(T, N, min)                                                                                \
    NVSHMEMX__REDUCE_STREAM1(T, N, max) NVSHMEMX__REDUCE_STREAM1(T, N, sum) NVSHMEMX__REDUCE_STREAM1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(NVSHMEMX__REDUCE_STREAM_BIT)
SHOAL_REDUCE_ARITH_TYPES(NVSHMEMX__REDUCE_STREAM_ARITH)
NVSHMEM__HALF_TYPES(NVSHMEMX__REDUCE_STREAM_ARITH)
#undef NVSHMEMX__REDUCE_STREAM_BIT
#undef NVSHMEMX__REDUCE_STREAM_ARITH
#undef NVSHMEMX__REDUCE_STREAM1
#endif

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* SHOAL_NVSHMEMX_H */
