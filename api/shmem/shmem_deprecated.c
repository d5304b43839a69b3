/* What OpenSHMEM 1.5 deprecates but still requires
 * (api/shmem/shmem_deprecated.h): start_pes, _my_pe, _num_pes, the sh*
 * memory names, the 1.3 atomic names, shmem_wait and the long-typed
 * shmem_wait_until, and the cache routines. Each routine is the one that
 * replaced it: the setup and memory names call the new routine; the
 * atomics and waits make the new routine's one call into shoal's API
 * themselves, so that an error names the routine the program called. */
#include "shmem_internal.h"

/* ---------------------------------------------------------------- library */

void start_pes(int npes)
{
    (void)npes; /* the PEs are MPI_COMM_WORLD's; OpenSHMEM ignores the count */
    shmem_init();
}

int _my_pe(void)
{
    SHMEM__NEED("_my_pe");
    return shoal_my_pe(shmem__sh);
}

int _num_pes(void)
{
    SHMEM__NEED("_num_pes");
    return shoal_n_pes(shmem__sh);
}

void *shmalloc(size_t size) { return shmem_malloc(size); }
void shfree(void *ptr) { shmem_free(ptr); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }

/* ---------------------------------------------------------------- atomics */

/* OLD: the 1.3 name of shoal's atomic NEW, which returns the old value. */
#define SHMEM__OLD_FETCHING(T, N, OLD, NEW, PARAMS, ARGS)                                                              \
    T shmem_##N##_##OLD(T *dest PARAMS, int pe)                                                                        \
    {                                                                                                                  \
        T old;                                                                                                         \
        SHMEM__NEED("shmem_" #N "_" #OLD);                                                                             \
        SHMEM__OK("shmem_" #N "_" #OLD, shoal_##N##_atomic_##NEW(shmem__sh, dest ARGS, pe, &old));                     \
        return old;                                                                                                    \
    }
/* OLD: the 1.3 name of shoal's atomic NEW, which returns nothing. */
#define SHMEM__OLD_PLAIN(T, N, OLD, NEW, PARAMS, ARGS)                                                                 \
    void shmem_##N##_##OLD(T *dest PARAMS, int pe)                                                                     \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_" #OLD);                                                                             \
        SHMEM__OK("shmem_" #N "_" #OLD, shoal_##N##_atomic_##NEW(shmem__sh, dest ARGS, pe));                           \
    }
#define SHMEM__OLD_P1(T) , T value
#define SHMEM__OLD_A1 , value
#define SHMEM__OLD_P2(T) , T cond, T value
#define SHMEM__OLD_A2 , cond, value
#define SHMEM__OLD_NOTHING

#define SHMEM__OLD_AMO_EXT_DEF(T, N)                                                                                   \
    T shmem_##N##_fetch(const T *source, int pe)                                                                       \
    {                                                                                                                  \
        T v;                                                                                                           \
        SHMEM__NEED("shmem_" #N "_fetch");                                                                             \
        SHMEM__OK("shmem_" #N "_fetch", shoal_##N##_atomic_fetch(shmem__sh, source, pe, &v));                          \
        return v;                                                                                                      \
    }                                                                                                                  \
    SHMEM__OLD_PLAIN(T, N, set, set, SHMEM__OLD_P1(T), SHMEM__OLD_A1)                                                  \
    SHMEM__OLD_FETCHING(T, N, swap, swap, SHMEM__OLD_P1(T), SHMEM__OLD_A1)
#define SHMEM__OLD_AMO_STD_DEF(T, N)                                                                                   \
    SHMEM__OLD_AMO_EXT_DEF(T, N)                                                                                       \
    SHMEM__OLD_FETCHING(T, N, cswap, compare_swap, SHMEM__OLD_P2(T), SHMEM__OLD_A2)                                    \
    SHMEM__OLD_FETCHING(T, N, finc, fetch_inc, SHMEM__OLD_NOTHING, SHMEM__OLD_NOTHING)                                 \
    SHMEM__OLD_PLAIN(T, N, inc, inc, SHMEM__OLD_NOTHING, SHMEM__OLD_NOTHING)                                           \
    SHMEM__OLD_FETCHING(T, N, fadd, fetch_add, SHMEM__OLD_P1(T), SHMEM__OLD_A1)                                        \
    SHMEM__OLD_PLAIN(T, N, add, add, SHMEM__OLD_P1(T), SHMEM__OLD_A1)
SHOAL_AMO_TYPES(SHMEM__OLD_AMO_STD_DEF)
SHOAL_AMO_EXT_TYPES(SHMEM__OLD_AMO_EXT_DEF)

/* ------------------------------------------------------------------ waits */

void shmem_wait(long *ivar, long cmp_value)
{
    SHMEM__NEED("shmem_wait");
    SHMEM__OK("shmem_wait", shoal_long_wait_until(shmem__sh, ivar, SHOAL_CMP_NE, cmp_value));
}

#define SHMEM__OLD_WAIT_DEF(T, N)                                                                                      \
    void shmem_##N##_wait(T *ivar, T cmp_value)                                                                        \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_wait");                                                                              \
        SHMEM__OK("shmem_" #N "_wait", shoal_##N##_wait_until(shmem__sh, ivar, SHOAL_CMP_NE, cmp_value));              \
    }
SHMEM__OLD_WAIT_TYPES(SHMEM__OLD_WAIT_DEF)

/* The parentheses keep C11's generic macro of this name from expanding. */
void(shmem_wait_until)(long *ivar, int cmp, long cmp_value)
{
    SHMEM__NEED("shmem_wait_until");
    SHMEM__OK("shmem_wait_until", shoal_long_wait_until(shmem__sh, ivar, cmp, cmp_value));
}

/* ------------------------------------------------------------------ cache */

void shmem_set_cache_inv(void) {}
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_clear_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }
