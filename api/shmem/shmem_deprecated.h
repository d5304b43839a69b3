/*
 * What OpenSHMEM 1.5 deprecates but still requires, on shoal (included by
 * shmem.h, after the C11 generic interfaces): start_pes and the 1.2 query
 * and memory names, the _SHMEM_* constants, the 1.3 atomic names (typed,
 * and their C11 generic forms), shmem_wait and the long-typed
 * shmem_wait_until, and the cache routines, which do nothing. Each routine
 * is the one that replaced it under its old name.
 *
 * Also here: shmem_pcontrol, the profiling interface's control. Every
 * OpenSHMEM function of the library, these included, has a name-shifted
 * entry pshmem_<name> (p<name> for the names that do not start with
 * shmem_: pstart_pes, p_my_pe, pshmalloc ...), declared in pshmem.h: the
 * library's own shmem_ names are weak, so a profiler defines shmem_x and
 * calls pshmem_x. The library's internal calls go to the pshmem_ entries,
 * so a profiler counts what the program called, once. The C11 generic
 * interfaces are macros over the typed C routines: a profiler intercepts
 * the typed routine they select.
 */
#ifndef SHMEM_DEPRECATED_H
#define SHMEM_DEPRECATED_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The constants' old spellings, equal to the new ones (integer constant
 * expressions: programs size arrays with them). */
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* ---------------------------------------------------------------- library */
/* shmem_init (npes is ignored: the PEs are MPI_COMM_WORLD's); a second
 * call does nothing. A program that never calls shmem_finalize, whether it
 * began with start_pes or shmem_init, is finalized when it exits normally
 * (exit status 0): collectively, so every PE must exit so; MPI is then
 * ended too where the library started it. */
SHMEM_FUNCTION_ATTRIBUTES void start_pes(int npes);
/* shmem_my_pe and shmem_n_pes. */
SHMEM_FUNCTION_ATTRIBUTES int _my_pe(void);
SHMEM_FUNCTION_ATTRIBUTES int _num_pes(void);
/* shmem_malloc, shmem_free, shmem_realloc and shmem_align: collective. */
SHMEM_FUNCTION_ATTRIBUTES void *shmalloc(size_t size);
SHMEM_FUNCTION_ATTRIBUTES void shfree(void *ptr);
SHMEM_FUNCTION_ATTRIBUTES void *shrealloc(void *ptr, size_t size);
SHMEM_FUNCTION_ATTRIBUTES void *shmemalign(size_t alignment, size_t size);

/* ---------------------------------------------------------------- atomics */
/* shmem_<T>_fetch, set and swap (the extended AMO types) are
 * shmem_<T>_atomic_fetch, set and swap; cswap, finc, inc, fadd and add (the
 * standard AMO types) are atomic_compare_swap, fetch_inc, inc, fetch_add
 * and add. None has a context form. */
#define SHMEM__OLD_AMO_EXT_DECL(T, N)                                                                                  \
    SHMEM_FUNCTION_ATTRIBUTES T shmem_##N##_fetch(const T *source, int pe);                                            \
    SHMEM_FUNCTION_ATTRIBUTES void shmem_##N##_set(T *dest, T value, int pe);                                          \
    SHMEM_FUNCTION_ATTRIBUTES T shmem_##N##_swap(T *dest, T value, int pe);
#define SHMEM__OLD_AMO_STD_DECL(T, N)                                                                                  \
    SHMEM__OLD_AMO_EXT_DECL(T, N)                                                                                      \
    SHMEM_FUNCTION_ATTRIBUTES T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                                   \
    SHMEM_FUNCTION_ATTRIBUTES T shmem_##N##_finc(T *dest, int pe);                                                     \
    SHMEM_FUNCTION_ATTRIBUTES void shmem_##N##_inc(T *dest, int pe);                                                   \
    SHMEM_FUNCTION_ATTRIBUTES T shmem_##N##_fadd(T *dest, T value, int pe);                                            \
    SHMEM_FUNCTION_ATTRIBUTES void shmem_##N##_add(T *dest, T value, int pe);
SHOAL_AMO_TYPES(SHMEM__OLD_AMO_STD_DECL)
SHOAL_AMO_EXT_TYPES(SHMEM__OLD_AMO_EXT_DECL)
#undef SHMEM__OLD_AMO_EXT_DECL
#undef SHMEM__OLD_AMO_STD_DECL

/* ------------------------------------------------------------------ waits */
/* The types of shmem_<T>_wait (OpenSHMEM 1.4's list, no more). */
#define SHMEM__OLD_WAIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
/* Wait until *ivar != cmp_value: shmem_<T>_wait_until(ivar, SHMEM_CMP_NE,
 * cmp_value). */
SHMEM_FUNCTION_ATTRIBUTES void shmem_wait(long *ivar, long cmp_value);
#define SHMEM__OLD_WAIT_DECL(T, N) SHMEM_FUNCTION_ATTRIBUTES void shmem_##N##_wait(T *ivar, T cmp_value);
SHMEM__OLD_WAIT_TYPES(SHMEM__OLD_WAIT_DECL)
#undef SHMEM__OLD_WAIT_DECL
/* shmem_long_wait_until under its old name. In C11 shmem_wait_until is the
 * generic macro (shmem_generic.h), which a long * argument resolves to
 * shmem_long_wait_until; the parentheses keep the macro from expanding
 * here, and (shmem_wait_until)(ivar, cmp, value) calls the function. */
SHMEM_FUNCTION_ATTRIBUTES void(shmem_wait_until)(long *ivar, int cmp, long cmp_value);

/* ------------------------------------------------------------------ cache */
/* Cache control of machines whose caches were not coherent with remote
 * writes; shoal's memory is coherent, so they do nothing. */
SHMEM_FUNCTION_ATTRIBUTES void shmem_set_cache_inv(void);
SHMEM_FUNCTION_ATTRIBUTES void shmem_set_cache_line_inv(void *dest);
SHMEM_FUNCTION_ATTRIBUTES void shmem_clear_cache_inv(void);
SHMEM_FUNCTION_ATTRIBUTES void shmem_clear_cache_line_inv(void *dest);
SHMEM_FUNCTION_ATTRIBUTES void shmem_udcflush(void);
SHMEM_FUNCTION_ATTRIBUTES void shmem_udcflush_line(void *dest);

/* -------------------------------------------------------------- profiling */
/* Returns at once, for any level and any further arguments: a profiler
 * that defines shmem_pcontrol gives them a meaning (OpenSHMEM suggests
 * <= 0 off, 1 on, 2 flush its buffers). */
SHMEM_FUNCTION_ATTRIBUTES void shmem_pcontrol(const int level, ...);

#ifdef __cplusplus
}
#endif

/* The old atomic names' C11 generic forms: shmem_fadd(dest, value, pe)
 * picks shmem_<type>_fadd by the type of dest, as shmem_generic.h does for
 * the new names (and with its error for a type of no routine). Each C type
 * is listed once: int32_t, int64_t, size_t and ptrdiff_t are typedefs of
 * them, and _Generic refuses two compatible types. */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

#define SHMEM__OLD_G_STD_TYPES(X, OP)                                                                                  \
    X(int, int, OP)                                                                                                    \
    X(long, long, OP)                                                                                                  \
    X(long long, longlong, OP)                                                                                         \
    X(unsigned int, uint, OP) X(unsigned long, ulong, OP) X(unsigned long long, ulonglong, OP)
#define SHMEM__OLD_G_EXT_TYPES(X, OP) SHMEM__OLD_G_STD_TYPES(X, OP) X(float, float, OP) X(double, double, OP)
#define SHMEM__OLD_G_ASSOC(T, N, OP) T * : shmem_##N##_##OP,
/* fetch reads through a const pointer too. */
#define SHMEM__OLD_G_ASSOC_CONST(T, N, OP) T * : shmem_##N##_##OP, const T * : shmem_##N##_##OP,

#define shmem_fetch(source, ...)                                                                                       \
    _Generic((source), SHMEM__OLD_G_EXT_TYPES(SHMEM__OLD_G_ASSOC_CONST, fetch) default                                 \
             : shmem__generic_no_such_type)(source, __VA_ARGS__)
#define shmem_set(dest, ...)                                                                                           \
    _Generic((dest), SHMEM__OLD_G_EXT_TYPES(SHMEM__OLD_G_ASSOC, set) default                                           \
             : shmem__generic_no_such_type)(dest, __VA_ARGS__)
#define shmem_swap(dest, ...)                                                                                          \
    _Generic((dest), SHMEM__OLD_G_EXT_TYPES(SHMEM__OLD_G_ASSOC, swap) default                                          \
             : shmem__generic_no_such_type)(dest, __VA_ARGS__)
#define shmem_cswap(dest, ...)                                                                                         \
    _Generic((dest), SHMEM__OLD_G_STD_TYPES(SHMEM__OLD_G_ASSOC, cswap) default                                         \
             : shmem__generic_no_such_type)(dest, __VA_ARGS__)
#define shmem_finc(dest, ...)                                                                                          \
    _Generic((dest), SHMEM__OLD_G_STD_TYPES(SHMEM__OLD_G_ASSOC, finc) default                                          \
             : shmem__generic_no_such_type)(dest, __VA_ARGS__)
#define shmem_inc(dest, ...)                                                                                           \
    _Generic((dest), SHMEM__OLD_G_STD_TYPES(SHMEM__OLD_G_ASSOC, inc) default                                           \
             : shmem__generic_no_such_type)(dest, __VA_ARGS__)
#define shmem_fadd(dest, ...)                                                                                          \
    _Generic((dest), SHMEM__OLD_G_STD_TYPES(SHMEM__OLD_G_ASSOC, fadd) default                                          \
             : shmem__generic_no_such_type)(dest, __VA_ARGS__)
#define shmem_add(dest, ...)                                                                                           \
    _Generic((dest), SHMEM__OLD_G_STD_TYPES(SHMEM__OLD_G_ASSOC, add) default                                           \
             : shmem__generic_no_such_type)(dest, __VA_ARGS__)

#endif /* C11 */
#endif /* SHMEM_DEPRECATED_H */
