/* The host's reduction arithmetic: one loop per type and operator. Sums and
 * products of signed integers are computed on unsigned 64-bit values and
 * converted back, so that they wrap (as the GPU's do) instead of
 * overflowing, which C leaves undefined. The 16-bit floating types (half,
 * bfloat16) are computed in float and rounded back to nearest even: float
 * holds at least twice their precision plus two bits, so that a sum or
 * product rounded to float and then to the 16-bit type is the one rounding
 * of the exact result that CUDA's half and bfloat16 arithmetic makes. */
#include <complex.h>
#include <string.h>

#include "team/shoal_reduce.h"

static const char *const shoal__dt_names[SHOAL__DT_COUNT] = {[SHOAL__DT_MEM] = "mem",
#define SHOAL__DT_NAME(T, N) [SHOAL__DT_##N] = #N,
                                                             SHOAL_RMA_TYPES(SHOAL__DT_NAME)
                                                                 SHOAL_HALF_TYPES(SHOAL__DT_NAME)
                                                                     SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__DT_NAME)
#undef SHOAL__DT_NAME
};
static const size_t shoal__dt_sizes[SHOAL__DT_COUNT] = {[SHOAL__DT_MEM] = 1,
#define SHOAL__DT_SIZE(T, N) [SHOAL__DT_##N] = sizeof(T),
                                                        SHOAL_RMA_TYPES(SHOAL__DT_SIZE) SHOAL_HALF_TYPES(SHOAL__DT_SIZE)
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

/* ------------------------------------------------------------ 16-bit floating types */

static uint32_t shoal__float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u));
    return u;
}

static float shoal__bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof(f));
    return f;
}

uint16_t shoal__half_from_float(float value)
{
    uint32_t x = shoal__float_bits(value), mag = x & 0x7fffffffu, m;
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u), h;
    int e, shift;

    if (mag >= 0x7f800000u) /* infinity, or a NaN: quiet, the fraction's high bits kept */
        return (uint16_t)(sign | 0x7c00u | (mag > 0x7f800000u ? 0x0200u | ((mag >> 13) & 0x03ffu) : 0));
    e = (int)(mag >> 23) - 127;
    if (e > 15) return (uint16_t)(sign | 0x7c00u); /* 2^16 and up: past the largest (65504) by more than half a step */
    m = (mag & 0x007fffffu) | 0x00800000u;         /* 24 bits, the leading one explicit (float subnormals: far below) */
    if (e >= -14) {
        /* A normal half: 11 of the 24 bits stay; a carry out of the fraction raises the exponent (to
         * infinity past 65504), as the encoding's order makes it. */
        h = (uint16_t)(((e + 15) << 10) | ((m >> 13) & 0x03ffu));
        m &= 0x1fffu;
        if (m > 0x1000u || (m == 0x1000u && (h & 1))) h++;
        return (uint16_t)(sign | h);
    }
    /* A subnormal half: units of 2^-24, value = m * 2^(e - 23) = (m >> shift) units and a remainder. */
    shift = -(e + 1);
    if (shift > 24) return sign; /* below 2^-25: rounds to zero */
    h = (uint16_t)(m >> shift);
    m &= (1u << shift) - 1;
    if (m > (1u << (shift - 1)) || (m == (1u << (shift - 1)) && (h & 1))) h++;
    return (uint16_t)(sign | h); /* a carry into bit 10 is the smallest normal, as encoded */
}

float shoal__half_to_float(uint16_t bits)
{
    uint32_t sign = (uint32_t)(bits & 0x8000u) << 16, e = (bits >> 10) & 0x1fu, m = bits & 0x03ffu;

    if (e == 0x1f) /* infinity; a NaN keeps its payload and is quiet, as the GPU's conversion makes it */
        return shoal__bits_float(sign | 0x7f800000u | (m << 13) | (m != 0 ? 0x00400000u : 0u));
    if (e == 0) {
        if (m == 0) return shoal__bits_float(sign);
        /* subnormal: m * 2^-24, normal as a float */
        e = 127 - 14;
        while (!(m & 0x0400u)) {
            m <<= 1;
            e--;
        }
        return shoal__bits_float(sign | (e << 23) | ((m & 0x03ffu) << 13));
    }
    return shoal__bits_float(sign | ((e - 15 + 127) << 23) | (m << 13));
}

uint16_t shoal__bf16_from_float(float value)
{
    uint32_t x = shoal__float_bits(value);

    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x0040u); /* a NaN stays one, quiet */
    /* The high half, rounded on the low half: below 0x8000 down, above up, 0x8000 to the even high half. A
     * carry raises the exponent, past the largest finite value to infinity. */
    return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1)) >> 16);
}

float shoal__bf16_to_float(uint16_t bits) { return shoal__bits_float((uint32_t)bits << 16); }

/* min and max keep the chosen element's bits (b < a: as floats, as the
 * GPU compares them); sum and prod round each step. */
#define SHOAL__APPLY_HALF(T, N, TO, FROM)                                                                              \
    static bool shoal__apply_##N(int op, void *acc, const void *in, size_t n)                                          \
    {                                                                                                                  \
        T *restrict d = acc;                                                                                           \
        const T *restrict s = in;                                                                                      \
        switch (op) {                                                                                                  \
        case SHOAL__OP_min:                                                                                            \
            for (size_t i = 0; i < n; i++)                                                                             \
                if (TO(s[i].bits) < TO(d[i].bits)) d[i] = s[i];                                                        \
            return true;                                                                                               \
        case SHOAL__OP_max:                                                                                            \
            for (size_t i = 0; i < n; i++)                                                                             \
                if (TO(s[i].bits) > TO(d[i].bits)) d[i] = s[i];                                                        \
            return true;                                                                                               \
        case SHOAL__OP_sum:                                                                                            \
            for (size_t i = 0; i < n; i++) d[i].bits = FROM(TO(d[i].bits) + TO(s[i].bits));                            \
            return true;                                                                                               \
        case SHOAL__OP_prod:                                                                                           \
            for (size_t i = 0; i < n; i++) d[i].bits = FROM(TO(d[i].bits) * TO(s[i].bits));                            \
            return true;                                                                                               \
        default: return false;                                                                                         \
        }                                                                                                              \
    }
SHOAL__APPLY_HALF(shoal_half_t, half, shoal__half_to_float, shoal__half_from_float)
SHOAL__APPLY_HALF(shoal_bfloat16_t, bfloat16, shoal__bf16_to_float, shoal__bf16_from_float)
#undef SHOAL__APPLY_HALF

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
            SHOAL_HALF_TYPES(SHOAL__APPLY_ENTRY)
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
    default: return SHOAL__DTC_OTHER; /* long double, half, bfloat16, complex */
    }
}
