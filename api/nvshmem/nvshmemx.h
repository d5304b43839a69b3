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
typedef struct nvshmemx_init_attr {
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

/* The PE's number in NVSHMEMX_TEAM_NODE and its size. */
int nvshmemx_my_pe(nvshmem_team_t team);
int nvshmemx_n_pes(nvshmem_team_t team);

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

/* In the order of stream, as shoal_put_on_stream and friends. */
void nvshmemx_putmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);
void nvshmemx_getmem_on_stream(void *dest, const void *source, size_t bytes, int pe, cudaStream_t stream);
#define NVSHMEMX__STREAM_DECL(T, N)                                                                                    \
    void nvshmemx_##N##_put_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream);           \
    void nvshmemx_##N##_get_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream);           \
    void nvshmemx_##N##_p_on_stream(T *dest, T value, int pe, cudaStream_t stream);
NVSHMEM__RMA_TYPES(NVSHMEMX__STREAM_DECL)
#undef NVSHMEMX__STREAM_DECL
void nvshmemx_putmem_signal_on_stream(void *dest, const void *source, size_t bytes, uint64_t *sig_addr, uint64_t signal,
                                      int sig_op, int pe, cudaStream_t stream);
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
                                               cudaStream_t stream);
#define NVSHMEMX__REDUCE_STREAM_BIT(T, N)                                                                              \
    NVSHMEMX__REDUCE_STREAM1(T, N, and) NVSHMEMX__REDUCE_STREAM1(T, N, or) NVSHMEMX__REDUCE_STREAM1(T, N, xor)
#define NVSHMEMX__REDUCE_STREAM_ARITH(T, N)                                                                            \
    NVSHMEMX__REDUCE_STREAM1(T, N, min)                                                                                \
    NVSHMEMX__REDUCE_STREAM1(T, N, max) NVSHMEMX__REDUCE_STREAM1(T, N, sum) NVSHMEMX__REDUCE_STREAM1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(NVSHMEMX__REDUCE_STREAM_BIT)
SHOAL_REDUCE_ARITH_TYPES(NVSHMEMX__REDUCE_STREAM_ARITH)
#undef NVSHMEMX__REDUCE_STREAM_BIT
#undef NVSHMEMX__REDUCE_STREAM_ARITH
#undef NVSHMEMX__REDUCE_STREAM1
#endif

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* SHOAL_NVSHMEMX_H */
