/*
 * NVSHMEM's host API, carried by shoal (api/nvshmem/README.md): programs
 * written against <nvshmem.h> compile unchanged and run inside an MPI
 * program on shoal. Written from NVSHMEM's public documentation: names,
 * types, constants and semantics; the values of the constants are shoal's.
 *
 * Host calls that return nothing end the job on a failure, as NVSHMEM's
 * do: shoal's message (the PEs and the call) on stderr, then
 * nvshmem_global_exit(1). Calls that return an int (teams, collectives)
 * return nonzero after printing the message.
 *
 * The heap is on the GPU where this PE has one (shoal's GPU heap), else
 * in host memory (shoal's host heap): a program that reads its symmetric
 * buffers from the host, as NVSHMEM's primer does, runs as written on a
 * machine without GPUs. NVSHMEM_SYMMETRIC_SIZE sets its size (where
 * neither it nor SHOAL_HEAP_SIZE is set, NVSHMEM's default of 1 GiB for a
 * fixed heap; a growing one keeps shoal's limit); SHOAL_* variables apply
 * as for shoal.
 *
 * Kernels: compiled by nvcc, this header also declares NVSHMEM's device
 * API (nvshmem_device.cuh), carried by shoal's device API through a
 * per-module copy of the instance's device state that nvshmem_init fills.
 *
 * Not carried: contexts, the unique-id bootstrap, NVLS multimem pointers;
 * README ("NVSHMEM programs") lists every difference.
 */
#ifndef SHOAL_NVSHMEM_H
#define SHOAL_NVSHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "shoal.h"
#include "shoal_device_types.h"

/* NVSHMEM's 16-bit floating types, half (TYPENAME half) and __nv_bfloat16
 * (bfloat16): CUDA's cuda_fp16.h and cuda_bf16.h define them for C++
 * only, so their forms (RMA, collectives, reductions, stream forms) are
 * declared for C++ where those headers are found, and a C program has
 * none. The library defines them in C over shoal_half_t and
 * shoal_bfloat16_t (shoal.h), which CUDA's types match in bits, size,
 * alignment and the way they are passed (SHOAL__NVSHMEM_LIBRARY: only
 * nvshmem_api.c). */
#if defined(__cplusplus) && defined(__has_include)
#if __has_include(<cuda_fp16.h>) && __has_include(<cuda_bf16.h>)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define NVSHMEM__HALF_TYPES(X) X(__half, half) X(__nv_bfloat16, bfloat16)
#endif
#elif !defined(__cplusplus) && defined(SHOAL__NVSHMEM_LIBRARY)
#define NVSHMEM__HALF_TYPES(X) SHOAL_HALF_TYPES(X)
#endif
#ifndef NVSHMEM__HALF_TYPES
#define NVSHMEM__HALF_TYPES(X)
#endif

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* The OpenSHMEM specification the API follows, and the NVSHMEM release
 * whose API this layer carries. */
#define NVSHMEM_MAJOR_VERSION 1
#define NVSHMEM_MINOR_VERSION 3
#define NVSHMEM_VENDOR_MAJOR_VERSION 3
#define NVSHMEM_VENDOR_MINOR_VERSION 0
#define NVSHMEM_VENDOR_PATCH_VERSION 0
#define NVSHMEM_MAX_NAME_LEN 256
#define NVSHMEM_VENDOR_STRING "shoal (NVSHMEM API)"

/* Thread levels (nvshmem_init_thread): MPI's, which the instance's MPI
 * gives. */
enum {
    NVSHMEM_THREAD_SINGLE = 0,
    NVSHMEM_THREAD_FUNNELED = 1,
    NVSHMEM_THREAD_SERIALIZED = 2,
    NVSHMEM_THREAD_MULTIPLE = 3
};

/* Comparisons (wait_until, test, signal_wait_until) and signal ops: shoal's values. */
typedef enum nvshmem_cmp_type {
    NVSHMEM_CMP_EQ = SHOAL_CMP_EQ,
    NVSHMEM_CMP_NE = SHOAL_CMP_NE,
    NVSHMEM_CMP_GT = SHOAL_CMP_GT,
    NVSHMEM_CMP_GE = SHOAL_CMP_GE,
    NVSHMEM_CMP_LT = SHOAL_CMP_LT,
    NVSHMEM_CMP_LE = SHOAL_CMP_LE
} nvshmemx_cmp_type_t;
enum nvshmem_signal_op { NVSHMEM_SIGNAL_SET = SHOAL_SIGNAL_SET, NVSHMEM_SIGNAL_ADD = SHOAL_SIGNAL_ADD };

/* Teams: integers, the same on every PE for the predefined ones; a split
 * team's handle carries a generation, so that a destroyed team's handle
 * stays invalid when its slot is reused. */
typedef int32_t nvshmem_team_t;
#define NVSHMEM_TEAM_INVALID ((nvshmem_team_t)-1)
#define NVSHMEM_TEAM_WORLD ((nvshmem_team_t)0)
#define NVSHMEM_TEAM_SHARED ((nvshmem_team_t)1)          /* the PEs whose heaps nvshmem_ptr reaches from here */
#define NVSHMEMX_TEAM_NODE ((nvshmem_team_t)2)           /* the PEs of this node */
#define NVSHMEMX_TEAM_SAME_MYPE_NODE ((nvshmem_team_t)3) /* one PE per node: those of my node rank */
#define NVSHMEM_TEAM_WORLD_INDEX 0
#define NVSHMEM_TEAM_SHARED_INDEX 1
#define NVSHMEM_TEAM_NODE_INDEX 2
#define NVSHMEM_TEAM_SAME_MYPE_NODE_INDEX 3
/* Team slots: the predefined four and the splits (a handle's low byte). */
#define SHOAL_NVSHMEM_TEAM_SLOTS (SHOAL_TEAM_MAX + 3)

typedef struct nvshmem_team_config {
    int version;
    int num_contexts;
} nvshmem_team_config_t;
#define NVSHMEM_TEAM_CONFIG_MASK_NUM_CONTEXTS (1L << 0)
#define NVSHMEM_TEAM_CONFIG_INITIALIZER                                                                                \
    {                                                                                                                  \
        0, 0                                                                                                           \
    }

/* Initialization and queries. nvshmem_init initializes MPI
 * (MPI_THREAD_MULTIPLE asked for) where the program has not, and then
 * finalizes it in nvshmem_finalize; where it has, the instance lives on
 * MPI_COMM_WORLD (nvshmemx_init_attr: on the communicator given). */
void nvshmem_init(void);
/* As nvshmem_init (MPI initialized here asks for MPI_THREAD_MULTIPLE,
 * which kernels' device proxy needs, whatever requested says); *provided
 * (may be NULL): MPI's thread level. Returns 0. */
int nvshmem_init_thread(int requested, int *provided);
void nvshmem_query_thread(int *provided);
/* Each init is matched by a finalize; the last one ends the instance. */
void nvshmem_finalize(void);
int nvshmem_my_pe(void);
int nvshmem_n_pes(void);
void nvshmem_info_get_version(int *major, int *minor);
void nvshmem_info_get_name(char *name);
/* shoal's own version (NVSHMEM: the vendor's). */
void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch);
#define NVSHMEM_VENDOR_VERSION                                                                                         \
    (NVSHMEM_VENDOR_MAJOR_VERSION * 10000 + NVSHMEM_VENDOR_MINOR_VERSION * 100 + NVSHMEM_VENDOR_PATCH_VERSION)
/* Print nothing more, end every PE of the job with status. */
void nvshmem_global_exit(int status);

/* Symmetric memory: collective, same sizes on every PE. */
void *nvshmem_malloc(size_t size);
void *nvshmem_calloc(size_t count, size_t size);
void *nvshmem_align(size_t alignment, size_t size);
void nvshmem_free(void *ptr);
/* pe's copy of dest mapped here for loads and stores, or NULL. */
void *nvshmem_ptr(const void *dest, int pe);

/* RMA. Types: NVSHMEM's standard RMA types (half and bfloat16 where
 * declared: above). */
#define NVSHMEM__RMA_TYPES(X) SHOAL_RMA_STD_TYPES(X) NVSHMEM__HALF_TYPES(X)

#define NVSHMEM__RMA_DECL(T, N)                                                                                        \
    void nvshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                                           \
    void nvshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                                           \
    void nvshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                                       \
    void nvshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                                       \
    void nvshmem_##N##_p(T *dest, T value, int pe);                                                                    \
    T nvshmem_##N##_g(const T *source, int pe);                                                                        \
    void nvshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);            \
    void nvshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);            \
    void nvshmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
                                  int sig_op, int pe);                                                                 \
    void nvshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                      int sig_op, int pe);
NVSHMEM__RMA_TYPES(NVSHMEM__RMA_DECL)
#undef NVSHMEM__RMA_DECL

/* Sized forms: BITS of 8, 16, 32, 64, 128; counts in elements of BITS/8 bytes. */
#define NVSHMEM__SIZED_DECL(BITS)                                                                                      \
    void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);                                     \
    void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);                                     \
    void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);                               \
    void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);                               \
    void nvshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);      \
    void nvshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);      \
    void nvshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,                 \
                                    uint64_t signal, int sig_op, int pe);                                              \
    void nvshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,             \
                                        uint64_t signal, int sig_op, int pe);
NVSHMEM__SIZED_DECL(8)
NVSHMEM__SIZED_DECL(16)
NVSHMEM__SIZED_DECL(32)
NVSHMEM__SIZED_DECL(64)
NVSHMEM__SIZED_DECL(128)
#undef NVSHMEM__SIZED_DECL

void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe);
void nvshmem_getmem(void *dest, const void *source, size_t bytes, int pe);
void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe);
void nvshmem_getmem_nbi(void *dest, const void *source, size_t bytes, int pe);

/* Signals. */
void nvshmem_putmem_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr, uint64_t signal,
                           int sig_op, int pe);
void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes, uint64_t *sig_addr, uint64_t signal,
                               int sig_op, int pe);
uint64_t nvshmem_signal_fetch(uint64_t *sig_addr);
uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* Atomics: the standard types (all), the extended ones (fetch, set,
 * swap), the bitwise ones (and, or, xor). */
#define NVSHMEM__AMO_EXT_DECL(T, N)                                                                                    \
    T nvshmem_##N##_atomic_fetch(const T *source, int pe);                                                             \
    void nvshmem_##N##_atomic_set(T *dest, T value, int pe);                                                           \
    T nvshmem_##N##_atomic_swap(T *dest, T value, int pe);
#define NVSHMEM__AMO_STD_DECL(T, N)                                                                                    \
    NVSHMEM__AMO_EXT_DECL(T, N)                                                                                        \
    T nvshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                                             \
    T nvshmem_##N##_atomic_fetch_inc(T *dest, int pe);                                                                 \
    void nvshmem_##N##_atomic_inc(T *dest, int pe);                                                                    \
    T nvshmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                                        \
    void nvshmem_##N##_atomic_add(T *dest, T value, int pe);
#define NVSHMEM__AMO_BIT_DECL(T, N)                                                                                    \
    T nvshmem_##N##_atomic_fetch_and(T *dest, T value, int pe);                                                        \
    void nvshmem_##N##_atomic_and(T *dest, T value, int pe);                                                           \
    T nvshmem_##N##_atomic_fetch_or(T *dest, T value, int pe);                                                         \
    void nvshmem_##N##_atomic_or(T *dest, T value, int pe);                                                            \
    T nvshmem_##N##_atomic_fetch_xor(T *dest, T value, int pe);                                                        \
    void nvshmem_##N##_atomic_xor(T *dest, T value, int pe);
SHOAL_AMO_TYPES(NVSHMEM__AMO_STD_DECL)
SHOAL_AMO_EXT_TYPES(NVSHMEM__AMO_EXT_DECL)
SHOAL_AMO_BITWISE_TYPES(NVSHMEM__AMO_BIT_DECL)
#undef NVSHMEM__AMO_EXT_DECL
#undef NVSHMEM__AMO_STD_DECL
#undef NVSHMEM__AMO_BIT_DECL

/* Point-to-point synchronization on this PE's symmetric variables. */
#define NVSHMEM__WAIT_DECL(T, N)                                                                                       \
    void nvshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                                      \
    void nvshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);               \
    size_t nvshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);             \
    size_t nvshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,         \
                                         T cmp_value);                                                                 \
    void nvshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);      \
    size_t nvshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);    \
    size_t nvshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,  \
                                                T *cmp_values);                                                        \
    int nvshmem_##N##_test(T *ivar, int cmp, T cmp_value);                                                             \
    int nvshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);                      \
    size_t nvshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);                   \
    size_t nvshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value); \
    int nvshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);             \
    size_t nvshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values);          \
    size_t nvshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,        \
                                          T *cmp_values);
SHOAL_WAIT_TYPES(NVSHMEM__WAIT_DECL)
#undef NVSHMEM__WAIT_DECL

/* Ordering and completion. */
void nvshmem_quiet(void);
void nvshmem_fence(void);

/* Teams. */
int nvshmem_team_my_pe(nvshmem_team_t team);
int nvshmem_team_n_pes(nvshmem_team_t team);
int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team);
int nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config);
int nvshmem_team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                               const nvshmem_team_config_t *config, long config_mask, nvshmem_team_t *new_team);
int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange, const nvshmem_team_config_t *xaxis_config,
                          long xaxis_mask, nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                          long yaxis_mask, nvshmem_team_t *yaxis_team);
void nvshmem_team_destroy(nvshmem_team_t team);

/* Collectives: every member, same arguments; they return 0, or nonzero
 * after printing shoal's message. */
void nvshmem_barrier_all(void);
int nvshmem_barrier(nvshmem_team_t team);
void nvshmem_sync_all(void);
int nvshmem_team_sync(nvshmem_team_t team);
int nvshmem_sync(nvshmem_team_t team); /* nvshmem_team_sync */
int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems);
int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems);
#define NVSHMEM__COLL_DECL(T, N)                                                                                       \
    int nvshmem_##N##_broadcast(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root);            \
    int nvshmem_##N##_fcollect(nvshmem_team_t team, T *dest, const T *source, size_t nelems);                          \
    int nvshmem_##N##_alltoall(nvshmem_team_t team, T *dest, const T *source, size_t nelems);
NVSHMEM__RMA_TYPES(NVSHMEM__COLL_DECL)
#undef NVSHMEM__COLL_DECL
/* The reductions, and the reduce-scatters: source holds a block of nreduce
 * elements for each member, in team order; member j's dest gets the
 * reduction of block j over every member's source. */
#define NVSHMEM__REDUCE_DECL1(T, N, OP)                                                                                \
    int nvshmem_##N##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, size_t nreduce);                    \
    int nvshmem_##N##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, size_t nreduce);
#define NVSHMEM__REDUCE_BIT_DECL(T, N)                                                                                 \
    NVSHMEM__REDUCE_DECL1(T, N, and) NVSHMEM__REDUCE_DECL1(T, N, or) NVSHMEM__REDUCE_DECL1(T, N, xor)
#define NVSHMEM__REDUCE_ARITH_DECL(T, N)                                                                               \
    NVSHMEM__REDUCE_DECL1(T, N, min)                                                                                   \
    NVSHMEM__REDUCE_DECL1(T, N, max) NVSHMEM__REDUCE_DECL1(T, N, sum) NVSHMEM__REDUCE_DECL1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(NVSHMEM__REDUCE_BIT_DECL)
SHOAL_REDUCE_ARITH_TYPES(NVSHMEM__REDUCE_ARITH_DECL)
NVSHMEM__HALF_TYPES(NVSHMEM__REDUCE_ARITH_DECL)
#undef NVSHMEM__REDUCE_BIT_DECL
#undef NVSHMEM__REDUCE_ARITH_DECL
#undef NVSHMEM__REDUCE_DECL1

/* What kernels find of the process's instance (nvshmem_device.cuh keeps a
 * copy in each CUDA module that includes this header): shoal's device
 * handle and each team slot's. nvshmem_init fills it on the GPU it uses,
 * team splits and destroys update it, nvshmem_finalize clears it. */
typedef struct shoal_nvshmem_device_state {
    int ready;  /* 1 between nvshmem_init and nvshmem_finalize, on a GPU heap */
    int why;    /* not ready: SHOAL_ERR_INVALID_INSTANCE (no instance) or SHOAL_ERR_UNSUPPORTED (host heap) */
    int device; /* the CUDA device the instance uses */
    shoal_device_t dev;
    shoal_dev_team_t teams[SHOAL_NVSHMEM_TEAM_SLOTS];
    unsigned gens[SHOAL_NVSHMEM_TEAM_SLOTS];   /* each slot's generation (a handle's bits 8 and up) */
    int team_status[SHOAL_NVSHMEM_TEAM_SLOTS]; /* SHOAL_SUCCESS: teams[i] usable in kernels; else why not */
} shoal_nvshmem_device_state_t;
/* A module's copier of that state (nvshmem_device.cuh registers one per
 * module at load): called with the new state whenever it changes, and at
 * once where an instance exists; returns a cudaError_t. */
void shoal_nvshmem_device_register(int (*bind)(const shoal_nvshmem_device_state_t *state));
/* The module is being unloaded: its copier is forgotten. */
void shoal_nvshmem_device_unregister(int (*bind)(const shoal_nvshmem_device_state_t *state));

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#include "nvshmemx.h"
#ifdef __CUDACC__
#include "nvshmem_device.cuh"
#endif

#endif /* SHOAL_NVSHMEM_H */
