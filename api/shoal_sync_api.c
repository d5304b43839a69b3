/* The public point-to-point synchronization API (api/shoal.h): atomics,
 * signals, waits and locks, each family written once over its type table,
 * one call into the runtime each. */
#include <string.h>

#include "ops/shoal_amo.h"
#include "base/shoal_instance.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "shoal's atomics carry 4-byte values in the low bytes of a 64-bit word (little-endian hosts)"
#endif

/* A value's bits, zero-extended (a float's bits, not its value). */
static inline uint64_t shoal__bits(const void *p, size_t n)
{
    uint64_t b = 0;
    memcpy(&b, p, n);
    return b;
}
#define SHOAL__BITS(T, v) shoal__bits(&(T){(v)}, sizeof(T))

/* nbi: 0 (an atomic without result), 1 (_nbi: the result by the next
 * quiet) or SHOAL__FETCH_NOW (the result on return); a fetching call's
 * result pointer must not be NULL. */
#define SHOAL__FETCH_NOW 2
static int shoal__amo_call(shoal_t sh, const char *call, const void *target, int pe, uint32_t op, size_t size,
                           uint64_t operand, uint64_t compare, void *result, int nbi)
{
    shoal__amo_t a = {.op = op, .size = (uint32_t)size, .operand = operand, .compare = compare};
    if (nbi != 0 && result == NULL)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "the pointer for the fetched value is NULL");
    return shoal__amo(sh, call, target, pe, &a, result, nbi & 1);
}

/* fetch, set, swap: every atomic type. */
#define SHOAL__AMO_EXT_DEF(T, N)                                                                                       \
    int shoal_##N##_atomic_fetch(shoal_t sh, const T *src, int pe, T *value_p)                                         \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_fetch");                                                                 \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_fetch", src, pe, SHOAL__AMO_FETCH, sizeof(T), 0, 0, value_p,   \
                               SHOAL__FETCH_NOW);                                                                      \
    }                                                                                                                  \
    int shoal_##N##_atomic_fetch_nbi(shoal_t sh, const T *src, int pe, T *value_p)                                     \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_fetch_nbi");                                                             \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_fetch_nbi", src, pe, SHOAL__AMO_FETCH, sizeof(T), 0, 0,        \
                               value_p, 1);                                                                            \
    }                                                                                                                  \
    int shoal_##N##_atomic_set(shoal_t sh, T *dest, T value, int pe)                                                   \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_set");                                                                   \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_set", dest, pe, SHOAL__AMO_SET, sizeof(T),                     \
                               SHOAL__BITS(T, value), 0, NULL, 0);                                                     \
    }                                                                                                                  \
    int shoal_##N##_atomic_swap(shoal_t sh, T *dest, T value, int pe, T *old_p)                                        \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_swap");                                                                  \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_swap", dest, pe, SHOAL__AMO_SWAP, sizeof(T),                   \
                               SHOAL__BITS(T, value), 0, old_p, SHOAL__FETCH_NOW);                                     \
    }                                                                                                                  \
    int shoal_##N##_atomic_swap_nbi(shoal_t sh, T *dest, T value, int pe, T *old_p)                                    \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_swap_nbi");                                                              \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_swap_nbi", dest, pe, SHOAL__AMO_SWAP, sizeof(T),               \
                               SHOAL__BITS(T, value), 0, old_p, 1);                                                    \
    }

/* An operation with an operand, fetching (and _nbi) and not. */
#define SHOAL__AMO_OP_DEF(T, N, NAME, OP)                                                                              \
    int shoal_##N##_atomic_fetch_##NAME(shoal_t sh, T *dest, T value, int pe, T *old_p)                                \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_fetch_" #NAME);                                                          \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_fetch_" #NAME, dest, pe, OP, sizeof(T), SHOAL__BITS(T, value), \
                               0, old_p, SHOAL__FETCH_NOW);                                                            \
    }                                                                                                                  \
    int shoal_##N##_atomic_fetch_##NAME##_nbi(shoal_t sh, T *dest, T value, int pe, T *old_p)                          \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_fetch_" #NAME "_nbi");                                                   \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_fetch_" #NAME "_nbi", dest, pe, OP, sizeof(T),                 \
                               SHOAL__BITS(T, value), 0, old_p, 1);                                                    \
    }                                                                                                                  \
    int shoal_##N##_atomic_##NAME(shoal_t sh, T *dest, T value, int pe)                                                \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_" #NAME);                                                                \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_" #NAME, dest, pe, OP, sizeof(T), SHOAL__BITS(T, value), 0,    \
                               NULL, 0);                                                                               \
    }

/* The standard types: the above, compare_swap, inc and add. */
#define SHOAL__AMO_STD_DEF(T, N)                                                                                       \
    SHOAL__AMO_EXT_DEF(T, N)                                                                                           \
    SHOAL__AMO_OP_DEF(T, N, add, SHOAL__AMO_ADD)                                                                       \
    int shoal_##N##_atomic_compare_swap(shoal_t sh, T *dest, T cond, T value, int pe, T *old_p)                        \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_compare_swap");                                                          \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_compare_swap", dest, pe, SHOAL__AMO_CSWAP, sizeof(T),          \
                               SHOAL__BITS(T, value), SHOAL__BITS(T, cond), old_p, SHOAL__FETCH_NOW);                  \
    }                                                                                                                  \
    int shoal_##N##_atomic_compare_swap_nbi(shoal_t sh, T *dest, T cond, T value, int pe, T *old_p)                    \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_compare_swap_nbi");                                                      \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_compare_swap_nbi", dest, pe, SHOAL__AMO_CSWAP, sizeof(T),      \
                               SHOAL__BITS(T, value), SHOAL__BITS(T, cond), old_p, 1);                                 \
    }                                                                                                                  \
    int shoal_##N##_atomic_fetch_inc(shoal_t sh, T *dest, int pe, T *old_p)                                            \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_fetch_inc");                                                             \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_fetch_inc", dest, pe, SHOAL__AMO_ADD, sizeof(T), 1, 0, old_p,  \
                               SHOAL__FETCH_NOW);                                                                      \
    }                                                                                                                  \
    int shoal_##N##_atomic_fetch_inc_nbi(shoal_t sh, T *dest, int pe, T *old_p)                                        \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_fetch_inc_nbi");                                                         \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_fetch_inc_nbi", dest, pe, SHOAL__AMO_ADD, sizeof(T), 1, 0,     \
                               old_p, 1);                                                                              \
    }                                                                                                                  \
    int shoal_##N##_atomic_inc(shoal_t sh, T *dest, int pe)                                                            \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_atomic_inc");                                                                   \
        return shoal__amo_call(sh, "shoal_" #N "_atomic_inc", dest, pe, SHOAL__AMO_ADD, sizeof(T), 1, 0, NULL, 0);     \
    }

#define SHOAL__AMO_BIT_DEF(T, N)                                                                                       \
    SHOAL__AMO_OP_DEF(T, N, and, SHOAL__AMO_AND)                                                                       \
    SHOAL__AMO_OP_DEF(T, N, or, SHOAL__AMO_OR)                                                                         \
    SHOAL__AMO_OP_DEF(T, N, xor, SHOAL__AMO_XOR)

SHOAL_AMO_TYPES(SHOAL__AMO_STD_DEF)
SHOAL_AMO_EXT_TYPES(SHOAL__AMO_EXT_DEF)
SHOAL_AMO_BITWISE_TYPES(SHOAL__AMO_BIT_DEF)

int shoal_put_signal(shoal_t sh, void *dest, const void *src, size_t nbytes, uint64_t *sig, uint64_t value, int op,
                     int pe)
{
    SHOAL__ENTER(sh, "shoal_put_signal");
    return shoal__put_signal(sh, "shoal_put_signal", dest, src, nbytes, sig, value, op, pe, 0);
}

int shoal_put_signal_nbi(shoal_t sh, void *dest, const void *src, size_t nbytes, uint64_t *sig, uint64_t value, int op,
                         int pe)
{
    SHOAL__ENTER(sh, "shoal_put_signal_nbi");
    return shoal__put_signal(sh, "shoal_put_signal_nbi", dest, src, nbytes, sig, value, op, pe, 1);
}

int shoal_signal_op(shoal_t sh, uint64_t *sig, uint64_t value, int op, int pe)
{
    SHOAL__ENTER(sh, "shoal_signal_op");
    return shoal__signal_op(sh, "shoal_signal_op", sig, value, op, pe);
}

int shoal_signal_fetch(shoal_t sh, const uint64_t *sig, uint64_t *value_p)
{
    SHOAL__ENTER(sh, "shoal_signal_fetch");
    return shoal__amo_call(sh, "shoal_signal_fetch", sig, sh->my_pe, SHOAL__AMO_FETCH, 8, 0, 0, value_p,
                           SHOAL__FETCH_NOW);
}

int shoal_signal_wait_until(shoal_t sh, uint64_t *sig, int cmp, uint64_t value, uint64_t *seen_p)
{
    SHOAL__ENTER(sh, "shoal_signal_wait_until");
    return shoal__wait_word(sh, "shoal_signal_wait_until", sig, 8, cmp, &value, true, seen_p);
}

/* One wait or test of the family. */
static int shoal__wait_call(shoal_t sh, const char *call, const void *ivars, size_t nelems, size_t size, bool sgn,
                            const int *status, int cmp, const void *values, bool vector, int kind, bool block,
                            int *flag_p, size_t *index_p, size_t *indices, size_t *count_p)
{
    shoal__wait_spec_t w = shoal__wait_spec(ivars, nelems, size, sgn, status, cmp, values, vector, kind, block);
    return shoal__wait_until(sh, call, &w, flag_p, index_p, indices, count_p, NULL);
}

#define SHOAL__WAIT_DEF(T, N)                                                                                          \
    int shoal_##N##_wait_until(shoal_t sh, T *ivar, int cmp, T value)                                                  \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until");                                                                   \
        return shoal__wait_call(sh, "shoal_" #N "_wait_until", ivar, 1, sizeof(T), SHOAL__SIGNED(T), NULL, cmp,        \
                                &value, false, SHOAL__WAIT_ALL, true, NULL, NULL, NULL, NULL);                         \
    }                                                                                                                  \
    int shoal_##N##_wait_until_all(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, T value)           \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_all");                                                               \
        return shoal__wait_call(sh, "shoal_" #N "_wait_until_all", ivars, nelems, sizeof(T), SHOAL__SIGNED(T), status, \
                                cmp, &value, false, SHOAL__WAIT_ALL, true, NULL, NULL, NULL, NULL);                    \
    }                                                                                                                  \
    int shoal_##N##_wait_until_any(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, T value,           \
                                   size_t *index_p)                                                                    \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_any");                                                               \
        return shoal__wait_call(sh, "shoal_" #N "_wait_until_any", ivars, nelems, sizeof(T), SHOAL__SIGNED(T), status, \
                                cmp, &value, false, SHOAL__WAIT_ANY, true, NULL, index_p, NULL, NULL);                 \
    }                                                                                                                  \
    int shoal_##N##_wait_until_some(shoal_t sh, T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,  \
                                    T value, size_t *count_p)                                                          \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_some");                                                              \
        return shoal__wait_call(sh, "shoal_" #N "_wait_until_some", ivars, nelems, sizeof(T), SHOAL__SIGNED(T),        \
                                status, cmp, &value, false, SHOAL__WAIT_SOME, true, NULL, NULL, indices, count_p);     \
    }                                                                                                                  \
    int shoal_##N##_wait_until_all_vector(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp,             \
                                          const T *values)                                                             \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_all_vector");                                                        \
        return shoal__wait_call(sh, "shoal_" #N "_wait_until_all_vector", ivars, nelems, sizeof(T), SHOAL__SIGNED(T),  \
                                status, cmp, values, true, SHOAL__WAIT_ALL, true, NULL, NULL, NULL, NULL);             \
    }                                                                                                                  \
    int shoal_##N##_wait_until_any_vector(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp,             \
                                          const T *values, size_t *index_p)                                            \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_any_vector");                                                        \
        return shoal__wait_call(sh, "shoal_" #N "_wait_until_any_vector", ivars, nelems, sizeof(T), SHOAL__SIGNED(T),  \
                                status, cmp, values, true, SHOAL__WAIT_ANY, true, NULL, index_p, NULL, NULL);          \
    }                                                                                                                  \
    int shoal_##N##_wait_until_some_vector(shoal_t sh, T *ivars, size_t nelems, size_t *indices, const int *status,    \
                                           int cmp, const T *values, size_t *count_p)                                  \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_some_vector");                                                       \
        return shoal__wait_call(sh, "shoal_" #N "_wait_until_some_vector", ivars, nelems, sizeof(T), SHOAL__SIGNED(T), \
                                status, cmp, values, true, SHOAL__WAIT_SOME, true, NULL, NULL, indices, count_p);      \
    }                                                                                                                  \
    int shoal_##N##_test(shoal_t sh, T *ivar, int cmp, T value, int *flag_p)                                           \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_test");                                                                         \
        return shoal__wait_call(sh, "shoal_" #N "_test", ivar, 1, sizeof(T), SHOAL__SIGNED(T), NULL, cmp, &value,      \
                                false, SHOAL__WAIT_ALL, false, flag_p, NULL, NULL, NULL);                              \
    }                                                                                                                  \
    int shoal_##N##_test_all(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, T value, int *flag_p)    \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_test_all");                                                                     \
        return shoal__wait_call(sh, "shoal_" #N "_test_all", ivars, nelems, sizeof(T), SHOAL__SIGNED(T), status, cmp,  \
                                &value, false, SHOAL__WAIT_ALL, false, flag_p, NULL, NULL, NULL);                      \
    }                                                                                                                  \
    int shoal_##N##_test_any(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, T value,                 \
                             size_t *index_p)                                                                          \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_test_any");                                                                     \
        return shoal__wait_call(sh, "shoal_" #N "_test_any", ivars, nelems, sizeof(T), SHOAL__SIGNED(T), status, cmp,  \
                                &value, false, SHOAL__WAIT_ANY, false, NULL, index_p, NULL, NULL);                     \
    }                                                                                                                  \
    int shoal_##N##_test_some(shoal_t sh, T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,        \
                              T value, size_t *count_p)                                                                \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_test_some");                                                                    \
        return shoal__wait_call(sh, "shoal_" #N "_test_some", ivars, nelems, sizeof(T), SHOAL__SIGNED(T), status, cmp, \
                                &value, false, SHOAL__WAIT_SOME, false, NULL, NULL, indices, count_p);                 \
    }                                                                                                                  \
    int shoal_##N##_test_all_vector(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, const T *values,  \
                                    int *flag_p)                                                                       \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_test_all_vector");                                                              \
        return shoal__wait_call(sh, "shoal_" #N "_test_all_vector", ivars, nelems, sizeof(T), SHOAL__SIGNED(T),        \
                                status, cmp, values, true, SHOAL__WAIT_ALL, false, flag_p, NULL, NULL, NULL);          \
    }                                                                                                                  \
    int shoal_##N##_test_any_vector(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, const T *values,  \
                                    size_t *index_p)                                                                   \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_test_any_vector");                                                              \
        return shoal__wait_call(sh, "shoal_" #N "_test_any_vector", ivars, nelems, sizeof(T), SHOAL__SIGNED(T),        \
                                status, cmp, values, true, SHOAL__WAIT_ANY, false, NULL, index_p, NULL, NULL);         \
    }                                                                                                                  \
    int shoal_##N##_test_some_vector(shoal_t sh, T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, \
                                     const T *values, size_t *count_p)                                                 \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_test_some_vector");                                                             \
        return shoal__wait_call(sh, "shoal_" #N "_test_some_vector", ivars, nelems, sizeof(T), SHOAL__SIGNED(T),       \
                                status, cmp, values, true, SHOAL__WAIT_SOME, false, NULL, NULL, indices, count_p);     \
    }
SHOAL_WAIT_TYPES(SHOAL__WAIT_DEF)

int shoal_set_lock(shoal_t sh, long *lock)
{
    SHOAL__ENTER(sh, "shoal_set_lock");
    return shoal__set_lock(sh, "shoal_set_lock", lock);
}

int shoal_test_lock(shoal_t sh, long *lock, int *got_p)
{
    SHOAL__ENTER(sh, "shoal_test_lock");
    return shoal__test_lock(sh, "shoal_test_lock", lock, got_p);
}

int shoal_clear_lock(shoal_t sh, long *lock)
{
    SHOAL__ENTER(sh, "shoal_clear_lock");
    return shoal__clear_lock(sh, "shoal_clear_lock", lock);
}
