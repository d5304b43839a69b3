/*
 * OpenSHMEM 1.5's active-set collectives (deprecated in 1.5, still
 * required), included by shmem.h. An active set is the PEs PE_start,
 * PE_start + 2^logPE_stride, ... (PE_size of them); only its members call,
 * each with the same triplet, and PE_root of a broadcast is a number in
 * the set (0 .. PE_size - 1). shmem_barrier is shmem_quiet, then the
 * members meet; shmem_sync meets them without the quiet. The broadcasts
 * leave the root's dest alone; collect's nelems may differ between PEs;
 * alltoalls' strides count elements. The reductions take nreduce >= 0
 * elements, dest and source the same array or apart.
 *
 * pSync and pWrk are never read nor written (they stay as the program set
 * them, which is what OpenSHMEM asks back), so the SHMEM_*_SYNC_SIZE
 * constants are 1. A triplet that names PEs that do not exist, or does not
 * name the calling PE, stops the job with a message naming the call and
 * the PE (as every error of these routines, which have no status). Each
 * set is a team of shoal's (shoal_team_create_strided), made by the
 * members the first time they use the set and kept until shmem_finalize:
 * a PE is in at most SHOAL_TEAM_MAX teams, the sets it uses included.
 */
#ifndef SHMEM_ACTIVESET_H
#define SHMEM_ACTIVESET_H

#include <stddef.h>

#include "shoal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reductions' types: X(TYPE, TYPENAME). and, or, xor: */
#define SHMEM__TO_ALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
/* min, max, sum, prod: */
#define SHMEM__TO_ALL_ARITH_TYPES(X)                                                                                   \
    SHMEM__TO_ALL_BIT_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
/* sum and prod also (C only: C++ has no _Complex): */
#define SHMEM__TO_ALL_COMPLEX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

SHOAL_EXPORT void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
SHOAL_EXPORT void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);

/* Elements of 32 and 64 bits. */
#define SHMEM__ASET_DECL(BITS)                                                                                         \
    SHOAL_EXPORT void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,  \
                                            int logPE_stride, int PE_size, long *pSync);                               \
    SHOAL_EXPORT void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,                 \
                                          int logPE_stride, int PE_size, long *pSync);                                 \
    SHOAL_EXPORT void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,                \
                                           int logPE_stride, int PE_size, long *pSync);                                \
    SHOAL_EXPORT void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,                \
                                           int logPE_stride, int PE_size, long *pSync);                                \
    SHOAL_EXPORT void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,              \
                                            size_t nelems, int PE_start, int logPE_stride, int PE_size, long *pSync);
SHMEM__ASET_DECL(32)
SHMEM__ASET_DECL(64)
#undef SHMEM__ASET_DECL

#define SHMEM__TO_ALL_DECL1(T, N, OP)                                                                                  \
    SHOAL_EXPORT void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, \
                                                int PE_size, T *pWrk, long *pSync);
#define SHMEM__TO_ALL_BIT_DECL(T, N)                                                                                   \
    SHMEM__TO_ALL_DECL1(T, N, and) SHMEM__TO_ALL_DECL1(T, N, or) SHMEM__TO_ALL_DECL1(T, N, xor)
#define SHMEM__TO_ALL_ARITH_DECL(T, N)                                                                                 \
    SHMEM__TO_ALL_DECL1(T, N, min)                                                                                     \
    SHMEM__TO_ALL_DECL1(T, N, max) SHMEM__TO_ALL_DECL1(T, N, sum) SHMEM__TO_ALL_DECL1(T, N, prod)
#define SHMEM__TO_ALL_CPLX_DECL(T, N) SHMEM__TO_ALL_DECL1(T, N, sum) SHMEM__TO_ALL_DECL1(T, N, prod)
SHMEM__TO_ALL_BIT_TYPES(SHMEM__TO_ALL_BIT_DECL)
SHMEM__TO_ALL_ARITH_TYPES(SHMEM__TO_ALL_ARITH_DECL)
#ifndef __cplusplus
SHMEM__TO_ALL_COMPLEX_TYPES(SHMEM__TO_ALL_CPLX_DECL)
#endif
#undef SHMEM__TO_ALL_BIT_DECL
#undef SHMEM__TO_ALL_ARITH_DECL
#undef SHMEM__TO_ALL_CPLX_DECL
#undef SHMEM__TO_ALL_DECL1

#ifdef __cplusplus
}
#endif
#endif /* SHMEM_ACTIVESET_H */
