/*
 * OpenSHMEM 1.5 on shoal (C and C++, no Fortran; what 1.5 deprecates but
 * still requires, and shmem_pcontrol, are in shmem_deprecated.h, the
 * profiling interface's pshmem_ names in pshmem.h). Every routine is a
 * thin call into shoal's native API (shoal.h) on one default instance that
 * shmem_init creates on MPI_COMM_WORLD, with its heap on the host.
 * Routines that OpenSHMEM defines without a return value stop the job on
 * an error: they print shoal's message (PE, call, cause) on stderr and
 * call MPI_Abort, as other implementations do; shoal's own API keeps
 * returning statuses.
 *
 * Globals and statics are symmetric: shmem_init registers the program's
 * data and bss segments (shoal_register), so they can be the symmetric
 * address of any routine, as memory from shmem_malloc can.
 *
 * Build and run with the wrappers installed beside shoal: oshcc (C11),
 * oshc++ and oshrun (mpiexec).
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "shoal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "shoal OpenSHMEM"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
/* shmem4py and other tools recognise an implementation by its macros, and
 * a complete 1.5 one (teams, contexts, signals, typed collectives,
 * shmem_pcontrol) by these two, which Sandia OpenSHMEM defines: without
 * them shmem4py declares stand-ins of its own for much of the API, which
 * clash with these declarations. SHMEM_FUNCTION_ATTRIBUTES is the
 * attribute of the layer's declarations (shmem_deprecated.h, pshmem.h):
 * exported from libshoal.so, which hides what it does not export. */
#define SHMEM_DEF_H
#define SHMEM_FUNCTION_ATTRIBUTES SHOAL_EXPORT

enum { SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED, SHMEM_THREAD_SERIALIZED, SHMEM_THREAD_MULTIPLE };

#define SHMEM_CMP_EQ SHOAL_CMP_EQ
#define SHMEM_CMP_NE SHOAL_CMP_NE
#define SHMEM_CMP_GT SHOAL_CMP_GT
#define SHMEM_CMP_GE SHOAL_CMP_GE
#define SHMEM_CMP_LT SHOAL_CMP_LT
#define SHMEM_CMP_LE SHOAL_CMP_LE
#define SHMEM_SIGNAL_SET SHOAL_SIGNAL_SET
#define SHMEM_SIGNAL_ADD SHOAL_SIGNAL_ADD

/* Constants of deprecated routines that programs still name. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 1
#define SHMEM_BCAST_SYNC_SIZE 1
#define SHMEM_REDUCE_SYNC_SIZE 1
#define SHMEM_BARRIER_SYNC_SIZE 1
#define SHMEM_COLLECT_SYNC_SIZE 1
#define SHMEM_ALLTOALL_SYNC_SIZE 1
#define SHMEM_ALLTOALLS_SYNC_SIZE 1
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1

/* Memory hints (shmem_malloc_with_hints): accepted, not needed. */
#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

/* Context options. */
#define SHMEM_CTX_PRIVATE 1L
#define SHMEM_CTX_SERIALIZED 2L
#define SHMEM_CTX_NOSTORE 4L

/* Teams: shoal's teams. SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED (the PEs
 * of this PE's node, whose memory shmem_ptr reaches) exist after shmem_init. */
typedef shoal_team_t shmem_team_t;
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS 1L
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
SHOAL_EXPORT extern shmem_team_t shmem__team_world, shmem__team_shared;
#define SHMEM_TEAM_WORLD shmem__team_world
#define SHMEM_TEAM_SHARED shmem__team_shared

/* Contexts: a context orders and completes (shmem_ctx_quiet) its own
 * operations; contexts share the default context's progress. */
typedef struct shmem__ctx *shmem_ctx_t;
SHOAL_EXPORT extern struct shmem__ctx shmem__ctx_default;
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)&shmem__ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

/* ---------------------------------------------------------------- library */
SHOAL_EXPORT void shmem_init(void);
SHOAL_EXPORT int shmem_init_thread(int requested, int *provided);
SHOAL_EXPORT void shmem_finalize(void);
SHOAL_EXPORT void shmem_global_exit(int status);
SHOAL_EXPORT int shmem_my_pe(void);
SHOAL_EXPORT int shmem_n_pes(void);
SHOAL_EXPORT int shmem_pe_accessible(int pe);
SHOAL_EXPORT int shmem_addr_accessible(const void *addr, int pe);
SHOAL_EXPORT void *shmem_ptr(const void *dest, int pe);
SHOAL_EXPORT void shmem_info_get_version(int *major, int *minor);
SHOAL_EXPORT void shmem_info_get_name(char *name);
SHOAL_EXPORT void shmem_query_thread(int *provided);
/* The shoal instance under the layer (for mixing with shoal's own API). */
SHOAL_EXPORT shoal_t shmem_shoal(void);

/* ----------------------------------------------------------------- memory */
SHOAL_EXPORT void *shmem_malloc(size_t size);
SHOAL_EXPORT void *shmem_malloc_with_hints(size_t size, long hints);
SHOAL_EXPORT void *shmem_calloc(size_t count, size_t size);
SHOAL_EXPORT void *shmem_align(size_t alignment, size_t size);
SHOAL_EXPORT void *shmem_realloc(void *ptr, size_t size);
SHOAL_EXPORT void shmem_free(void *ptr);

/* ------------------------------------------------------------------ teams */
SHOAL_EXPORT int shmem_team_my_pe(shmem_team_t team);
SHOAL_EXPORT int shmem_team_n_pes(shmem_team_t team);
SHOAL_EXPORT int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
SHOAL_EXPORT int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
SHOAL_EXPORT int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                                          const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team);
SHOAL_EXPORT int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config,
                                     long xaxis_mask, shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                                     long yaxis_mask, shmem_team_t *yaxis_team);
SHOAL_EXPORT void shmem_team_destroy(shmem_team_t team);
/* team's PE pe's copy of dest, where this PE can load and store it (shmem_ptr). */
SHOAL_EXPORT void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

/* --------------------------------------------------------------- contexts */
SHOAL_EXPORT int shmem_ctx_create(long options, shmem_ctx_t *ctx);
SHOAL_EXPORT int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
SHOAL_EXPORT void shmem_ctx_destroy(shmem_ctx_t ctx);
SHOAL_EXPORT int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ------------------------------------------------------- ordering, barriers */
SHOAL_EXPORT void shmem_quiet(void);
SHOAL_EXPORT void shmem_ctx_quiet(shmem_ctx_t ctx);
SHOAL_EXPORT void shmem_fence(void);
SHOAL_EXPORT void shmem_ctx_fence(shmem_ctx_t ctx);
SHOAL_EXPORT void shmem_barrier_all(void);
SHOAL_EXPORT void shmem_sync_all(void);
SHOAL_EXPORT int shmem_team_sync(shmem_team_t team);

/* -------------------------------------------------------------------- RMA */
/* Typed: every OpenSHMEM standard RMA type (SHOAL_RMA_TYPES). */
#define SHMEM__RMA_DECL(T, N)                                                                                          \
    SHOAL_EXPORT void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                                \
    SHOAL_EXPORT void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);           \
    SHOAL_EXPORT void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                                \
    SHOAL_EXPORT void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);           \
    SHOAL_EXPORT void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                            \
    SHOAL_EXPORT void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);       \
    SHOAL_EXPORT void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                            \
    SHOAL_EXPORT void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe);       \
    SHOAL_EXPORT void shmem_##N##_p(T *dest, T value, int pe);                                                         \
    SHOAL_EXPORT void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                                    \
    SHOAL_EXPORT T shmem_##N##_g(const T *source, int pe);                                                             \
    SHOAL_EXPORT T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                                        \
    SHOAL_EXPORT void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHOAL_EXPORT void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                           size_t nelems, int pe);                                                     \
    SHOAL_EXPORT void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe); \
    SHOAL_EXPORT void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                           size_t nelems, int pe);                                                     \
    SHOAL_EXPORT void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,              \
                                             uint64_t signal, int sig_op, int pe);                                     \
    SHOAL_EXPORT void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,             \
                                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);             \
    SHOAL_EXPORT void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,          \
                                                 uint64_t signal, int sig_op, int pe);                                 \
    SHOAL_EXPORT void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,         \
                                                     uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHOAL_RMA_TYPES(SHMEM__RMA_DECL)
#undef SHMEM__RMA_DECL

/* Sized: 8, 16, 32, 64 and 128 bits, and mem (bytes). */
#define SHMEM__SIZES(X) X(8) X(16) X(32) X(64) X(128)
#define SHMEM__SIZED_DECL(BITS)                                                                                        \
    SHOAL_EXPORT void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);                          \
    SHOAL_EXPORT void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);     \
    SHOAL_EXPORT void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);                          \
    SHOAL_EXPORT void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);     \
    SHOAL_EXPORT void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);                    \
    SHOAL_EXPORT void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,        \
                                                int pe);                                                               \
    SHOAL_EXPORT void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);                    \
    SHOAL_EXPORT void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,        \
                                                int pe);                                                               \
    SHOAL_EXPORT void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,    \
                                       int pe);                                                                        \
    SHOAL_EXPORT void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,             \
                                           ptrdiff_t sst, size_t nelems, int pe);                                      \
    SHOAL_EXPORT void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,    \
                                       int pe);                                                                        \
    SHOAL_EXPORT void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,             \
                                           ptrdiff_t sst, size_t nelems, int pe);                                      \
    SHOAL_EXPORT void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,      \
                                               uint64_t signal, int sig_op, int pe);                                   \
    SHOAL_EXPORT void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,     \
                                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);           \
    SHOAL_EXPORT void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,  \
                                                   uint64_t signal, int sig_op, int pe);                               \
    SHOAL_EXPORT void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, \
                                                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHMEM__SIZES(SHMEM__SIZED_DECL)
#undef SHMEM__SIZED_DECL
SHOAL_EXPORT void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
SHOAL_EXPORT void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHOAL_EXPORT void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
SHOAL_EXPORT void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHOAL_EXPORT void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHOAL_EXPORT void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHOAL_EXPORT void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
SHOAL_EXPORT void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
SHOAL_EXPORT void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                      uint64_t signal, int sig_op, int pe);
SHOAL_EXPORT void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHOAL_EXPORT void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                          uint64_t signal, int sig_op, int pe);
SHOAL_EXPORT void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                              uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
SHOAL_EXPORT uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
SHOAL_EXPORT uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---------------------------------------------------------------- atomics */
#define SHMEM__AMO_EXT_DECL(T, N)                                                                                      \
    SHOAL_EXPORT T shmem_##N##_atomic_fetch(const T *source, int pe);                                                  \
    SHOAL_EXPORT T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                             \
    SHOAL_EXPORT void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                                 \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe);            \
    SHOAL_EXPORT void shmem_##N##_atomic_set(T *dest, T value, int pe);                                                \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                           \
    SHOAL_EXPORT T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                                  \
    SHOAL_EXPORT T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                             \
    SHOAL_EXPORT void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                                 \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define SHMEM__AMO_STD_DECL(T, N)                                                                                      \
    SHMEM__AMO_EXT_DECL(T, N)                                                                                          \
    SHOAL_EXPORT T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                                  \
    SHOAL_EXPORT T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);             \
    SHOAL_EXPORT void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);                 \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond, T value,     \
                                                              int pe);                                                 \
    SHOAL_EXPORT T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                                      \
    SHOAL_EXPORT T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                                 \
    SHOAL_EXPORT void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                                     \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);                \
    SHOAL_EXPORT void shmem_##N##_atomic_inc(T *dest, int pe);                                                         \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                                    \
    SHOAL_EXPORT T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                             \
    SHOAL_EXPORT T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);                        \
    SHOAL_EXPORT void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                            \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);       \
    SHOAL_EXPORT void shmem_##N##_atomic_add(T *dest, T value, int pe);                                                \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);
#define SHMEM__AMO_BIT_DECL1(T, N, OP)                                                                                 \
    SHOAL_EXPORT T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                            \
    SHOAL_EXPORT T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);                       \
    SHOAL_EXPORT void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);                         \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);    \
    SHOAL_EXPORT void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                               \
    SHOAL_EXPORT void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);
#define SHMEM__AMO_BIT_DECL(T, N)                                                                                      \
    SHMEM__AMO_BIT_DECL1(T, N, and) SHMEM__AMO_BIT_DECL1(T, N, or) SHMEM__AMO_BIT_DECL1(T, N, xor)
SHOAL_AMO_TYPES(SHMEM__AMO_STD_DECL)
SHOAL_AMO_EXT_TYPES(SHMEM__AMO_EXT_DECL)
SHOAL_AMO_BITWISE_TYPES(SHMEM__AMO_BIT_DECL)
#undef SHMEM__AMO_EXT_DECL
#undef SHMEM__AMO_STD_DECL
#undef SHMEM__AMO_BIT_DECL1
#undef SHMEM__AMO_BIT_DECL

/* ------------------------------------------------------ wait_until, test */
#define SHMEM__WAIT_DECL(T, N)                                                                                         \
    SHOAL_EXPORT void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                           \
    SHOAL_EXPORT void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);    \
    SHOAL_EXPORT size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);  \
    SHOAL_EXPORT size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status,       \
                                                    int cmp, T cmp_value);                                             \
    SHOAL_EXPORT void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,           \
                                                        const T *cmp_values);                                          \
    SHOAL_EXPORT size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp,         \
                                                          const T *cmp_values);                                        \
    SHOAL_EXPORT size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,                   \
                                                           const int *status, int cmp, const T *cmp_values);           \
    SHOAL_EXPORT int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                                  \
    SHOAL_EXPORT int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);           \
    SHOAL_EXPORT size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value);        \
    SHOAL_EXPORT size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,    \
                                              T cmp_value);                                                            \
    SHOAL_EXPORT int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,                  \
                                                 const T *cmp_values);                                                 \
    SHOAL_EXPORT size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,               \
                                                    const T *cmp_values);                                              \
    SHOAL_EXPORT size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status,      \
                                                     int cmp, const T *cmp_values);
SHOAL_WAIT_TYPES(SHMEM__WAIT_DECL)
#undef SHMEM__WAIT_DECL

/* ----------------------------------------------------------------- locks */
SHOAL_EXPORT void shmem_set_lock(long *lock);
SHOAL_EXPORT int shmem_test_lock(long *lock);
SHOAL_EXPORT void shmem_clear_lock(long *lock);

/* ----------------------------------------------------------- collectives */
#define SHMEM__COLL_DECL(T, N)                                                                                         \
    SHOAL_EXPORT int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root);   \
    SHOAL_EXPORT int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);                  \
    SHOAL_EXPORT int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);                 \
    SHOAL_EXPORT int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);                 \
    SHOAL_EXPORT int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,  \
                                           size_t nelems);
SHOAL_RMA_TYPES(SHMEM__COLL_DECL)
#undef SHMEM__COLL_DECL
SHOAL_EXPORT int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root);
SHOAL_EXPORT int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHOAL_EXPORT int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHOAL_EXPORT int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
SHOAL_EXPORT int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,
                                    size_t nelems);
#define SHMEM__REDUCE_DECL1(T, N, OP)                                                                                  \
    SHOAL_EXPORT int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEM__REDUCE_BIT_DECL(T, N)                                                                                   \
    SHMEM__REDUCE_DECL1(T, N, and) SHMEM__REDUCE_DECL1(T, N, or) SHMEM__REDUCE_DECL1(T, N, xor)
#define SHMEM__REDUCE_ARITH_DECL(T, N)                                                                                 \
    SHMEM__REDUCE_DECL1(T, N, min)                                                                                     \
    SHMEM__REDUCE_DECL1(T, N, max) SHMEM__REDUCE_DECL1(T, N, sum) SHMEM__REDUCE_DECL1(T, N, prod)
#define SHMEM__REDUCE_CPLX_DECL(T, N) SHMEM__REDUCE_DECL1(T, N, sum) SHMEM__REDUCE_DECL1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(SHMEM__REDUCE_BIT_DECL)
SHOAL_REDUCE_ARITH_TYPES(SHMEM__REDUCE_ARITH_DECL)
#ifndef __cplusplus
SHOAL_REDUCE_COMPLEX_TYPES(SHMEM__REDUCE_CPLX_DECL)
#endif
#undef SHMEM__REDUCE_BIT_DECL
#undef SHMEM__REDUCE_ARITH_DECL
#undef SHMEM__REDUCE_CPLX_DECL
#undef SHMEM__REDUCE_DECL1

#ifdef __cplusplus
}
#endif

/* The type-generic interfaces: C11 _Generic (shmem_generic.h), C++ overloads. */
#include "shmem_generic.h"
#include "shmem_deprecated.h"
#include "shmem_activeset.h"

#endif /* SHMEM_H */
