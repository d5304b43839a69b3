/* Element types and reduction operators of the collectives
 * (runtime/team/reduce.c): one table of each, and the host's arithmetic. */
#ifndef SHOAL_REDUCE_H
#define SHOAL_REDUCE_H

#include "base/shoal_base.h"

/* Element types: bytes (the *mem calls), every RMA type, the 16-bit
 * floating ones, the complex ones. */
enum {
    SHOAL__DT_MEM = 0,
#define SHOAL__DT_ENUM(T, N) SHOAL__DT_##N,
    SHOAL_RMA_TYPES(SHOAL__DT_ENUM) SHOAL_HALF_TYPES(SHOAL__DT_ENUM) SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__DT_ENUM)
#undef SHOAL__DT_ENUM
        SHOAL__DT_COUNT
};
/* Operators (lower case, as in the API's names); 0: none. */
enum {
    SHOAL__OP_none = 0,
#define SHOAL__OP_ENUM(name) SHOAL__OP_##name,
    SHOAL_REDUCE_BITWISE_OPS(SHOAL__OP_ENUM) SHOAL_REDUCE_ARITH_OPS(SHOAL__OP_ENUM)
#undef SHOAL__OP_ENUM
        SHOAL__OP_COUNT
};

/* "int", "complexd"; "mem" for bytes. */
SHOAL__HIDDEN const char *shoal__dt_name(int dtype);
/* Bytes of an element (1 for bytes). */
SHOAL__HIDDEN size_t shoal__dt_size(int dtype);
/* What an element is: SHOAL__DTC_* (char by the platform's signedness). */
enum { SHOAL__DTC_MEM, SHOAL__DTC_SIGNED, SHOAL__DTC_UNSIGNED, SHOAL__DTC_FLOAT, SHOAL__DTC_OTHER };
SHOAL__HIDDEN int shoal__dt_class(int dtype);
/* "sum", ...; "" for none. */
SHOAL__HIDDEN const char *shoal__op_name(int op);
/* acc[i] = acc[i] <op> in[i] for i < n (integers wrap, as two's
 * complement does). false: op is not defined on dtype (nothing done). */
SHOAL__HIDDEN bool shoal__reduce_apply(int dtype, int op, void *acc, const void *in, size_t n);

/* The bits of a binary16 (half) or a bfloat16 and float: to float is
 * exact; from float rounds to nearest, ties to even, overflows to
 * infinity, and keeps a NaN a NaN (its quiet bit set). */
SHOAL__HIDDEN uint16_t shoal__half_from_float(float value);
SHOAL__HIDDEN float shoal__half_to_float(uint16_t bits);
SHOAL__HIDDEN uint16_t shoal__bf16_from_float(float value);
SHOAL__HIDDEN float shoal__bf16_to_float(uint16_t bits);

#endif /* SHOAL_REDUCE_H */
