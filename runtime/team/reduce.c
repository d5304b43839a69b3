/* The host's reduction arithmetic: one loop per type and operator. Sums and
 * products of signed integers are computed on unsigned 64-bit values and
 * converted back, so that they wrap (as the GPU's do) instead of
 * overflowing, which C leaves undefined. */
#include <complex.h>

#include "team/shoal_reduce.h"

static const char *const shoal__dt_names[SHOAL__DT_COUNT] = {[SHOAL__DT_MEM] = "mem",
#define SHOAL__DT_NAME(T, N) [SHOAL__DT_##N] = #N,
                                                             SHOAL_RMA_TYPES(SHOAL__DT_NAME)
                                                                 SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__DT_NAME)
#undef SHOAL__DT_NAME
};
static const size_t shoal__dt_sizes[SHOAL__DT_COUNT] = {[SHOAL__DT_MEM] = 1,
#define SHOAL__DT_SIZE(T, N) [SHOAL__DT_##N] = sizeof(T),
                                                        SHOAL_RMA_TYPES(SHOAL__DT_SIZE)
                                                            SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__DT_SIZE)
#undef SHOAL__DT_SIZE
};
static const char *const shoal__op_names[SHOAL__OP_COUNT] = {[SHOAL__OP_none] = "",
#define SHOAL__OP_NAME(name) [SHOAL__OP_##name] = #name,
                                                             SHOAL_REDUCE_BITWISE_OPS(SHOAL__OP_NAME)
                                                                 SHOAL_REDUCE_ARITH_OPS(SHOAL__OP_NAME)
#undef SHOAL__OP_NAME
};

const char *shoal__dt_name(int dtype) { return dtype >= 0 && dtype < SHOAL__DT_COUNT ? shoal__dt_names[dtype] : "?"; }
size_t shoal__dt_size(int dtype) { return dtype >= 0 && dtype < SHOAL__DT_COUNT ? shoal__dt_sizes[dtype] : 1; }
const char *shoal__op_name(int op) { return op >= 0 && op < SHOAL__OP_COUNT ? shoal__op_names[op] : "?"; }

#define SHOAL__LOOP(T, expr)                                                                                           \
    do {                                                                                                               \
        T *restrict d = acc;                                                                                           \
        const T *restrict s = in;                                                                                      \
        for (size_t i = 0; i < n; i++) d[i] = (expr);                                                                  \
    } while (0)
#define SHOAL__MINMAX_CASES(T)                                                                                         \
    case SHOAL__OP_min: SHOAL__LOOP(T, s[i] < d[i] ? s[i] : d[i]); return true;                                        \
    case SHOAL__OP_max: SHOAL__LOOP(T, s[i] > d[i] ? s[i] : d[i]); return true;

/* Integer types: every operator. */
#define SHOAL__APPLY_INT(T, N)                                                                                         \
    static bool shoal__apply_##N(int op, void *acc, const void *in, size_t n)                                          \
    {                                                                                                                  \
        switch (op) {                                                                                                  \
        case SHOAL__OP_and: SHOAL__LOOP(T, d[i] & s[i]); return true;                                                  \
        case SHOAL__OP_or: SHOAL__LOOP(T, d[i] | s[i]); return true;                                                   \
        case SHOAL__OP_xor:                                                                                            \
            SHOAL__LOOP(T, d[i] ^ s[i]);                                                                               \
            return true;                                                                                               \
            SHOAL__MINMAX_CASES(T)                                                                                     \
        case SHOAL__OP_sum: SHOAL__LOOP(T, (T)((uint64_t)d[i] + (uint64_t)s[i])); return true;                         \
        case SHOAL__OP_prod: SHOAL__LOOP(T, (T)((uint64_t)d[i] * (uint64_t)s[i])); return true;                        \
        default: return false;                                                                                         \
        }                                                                                                              \
    }
/* Floating types: min, max, sum, prod. */
#define SHOAL__APPLY_FLOAT(T, N)                                                                                       \
    static bool shoal__apply_##N(int op, void *acc, const void *in, size_t n)                                          \
    {                                                                                                                  \
        switch (op) {                                                                                                  \
            SHOAL__MINMAX_CASES(T)                                                                                     \
        case SHOAL__OP_sum: SHOAL__LOOP(T, d[i] + s[i]); return true;                                                  \
        case SHOAL__OP_prod: SHOAL__LOOP(T, d[i] * s[i]); return true;                                                 \
        default: return false;                                                                                         \
        }                                                                                                              \
    }
/* Complex types: sum, prod. */
#define SHOAL__APPLY_CPLX(T, N)                                                                                        \
    static bool shoal__apply_##N(int op, void *acc, const void *in, size_t n)                                          \
    {                                                                                                                  \
        switch (op) {                                                                                                  \
        case SHOAL__OP_sum: SHOAL__LOOP(T, d[i] + s[i]); return true;                                                  \
        case SHOAL__OP_prod: SHOAL__LOOP(T, d[i] * s[i]); return true;                                                 \
        default: return false;                                                                                         \
        }                                                                                                              \
    }

/* Which loops each type gets: the integer types are the bitwise ones and the signed ones. */
SHOAL__APPLY_FLOAT(float, float)
SHOAL__APPLY_FLOAT(double, double)
SHOAL__APPLY_FLOAT(long double, longdouble)
#define SHOAL__INT_TYPES(X)                                                                                            \
    X(char, char)                                                                                                      \
    X(signed char, schar)                                                                                              \
    X(short, short)                                                                                                    \
    X(int, int)                                                                                                        \
    X(long, long)                                                                                                      \
    X(long long, longlong)                                                                                             \
    X(ptrdiff_t, ptrdiff)                                                                                              \
    SHOAL_REDUCE_BITWISE_TYPES(X)
SHOAL__INT_TYPES(SHOAL__APPLY_INT)
SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__APPLY_CPLX)

typedef bool (*shoal__apply_fn)(int op, void *acc, const void *in, size_t n);
static const shoal__apply_fn shoal__apply[SHOAL__DT_COUNT] = {
#define SHOAL__APPLY_ENTRY(T, N) [SHOAL__DT_##N] = shoal__apply_##N,
    SHOAL__INT_TYPES(SHOAL__APPLY_ENTRY) SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__APPLY_ENTRY) SHOAL__APPLY_ENTRY(float, float)
        SHOAL__APPLY_ENTRY(double, double) SHOAL__APPLY_ENTRY(long double, longdouble)
#undef SHOAL__APPLY_ENTRY
};

bool shoal__reduce_apply(int dtype, int op, void *acc, const void *in, size_t n)
{
    if (dtype <= SHOAL__DT_MEM || dtype >= SHOAL__DT_COUNT || shoal__apply[dtype] == NULL) return false;
    return shoal__apply[dtype](op, acc, in, n);
}

int shoal__dt_class(int dtype)
{
    switch (dtype) {
    case SHOAL__DT_MEM: return SHOAL__DTC_MEM;
    case SHOAL__DT_float:
    case SHOAL__DT_double: return SHOAL__DTC_FLOAT;
#define SHOAL__DT_SIGNEDNESS(T, N)                                                                                     \
    case SHOAL__DT_##N: return (T)-1 > (T)0 ? SHOAL__DTC_UNSIGNED : SHOAL__DTC_SIGNED;
        SHOAL__INT_TYPES(SHOAL__DT_SIGNEDNESS)
#undef SHOAL__DT_SIGNEDNESS
    default: return SHOAL__DTC_OTHER; /* long double, complex */
    }
}
