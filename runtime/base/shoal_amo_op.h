/* One atomic operation as the transports carry it: plain data that ops/
 * builds, transports, registered ranges' windows and kernels take
 * (runtime/ops/amo.c issues them). C and CUDA. */
#ifndef SHOAL_AMO_OP_H
#define SHOAL_AMO_OP_H

#include <stdint.h>

/* What an atomic does to its word. The transports work on 4- and 8-byte
 * words as bits: signed and unsigned add alike in two's complement, and
 * float and double only fetch, set and swap. */
enum {
    SHOAL__AMO_FETCH = 0, /* read */
    SHOAL__AMO_SET = 1,   /* word = operand */
    SHOAL__AMO_SWAP = 2,  /* word = operand, old returned */
    SHOAL__AMO_CSWAP = 3, /* word = operand where word == compare, old returned */
    SHOAL__AMO_ADD = 4,   /* word += operand */
    SHOAL__AMO_AND = 5,
    SHOAL__AMO_OR = 6,
    SHOAL__AMO_XOR = 7,
    SHOAL__AMO_OPS
};

/* One atomic: op on a size-byte word (4 or 8), the values in the low
 * bytes of operand and compare. Plain data: it travels in staging chunks
 * and kernel arguments. */
typedef struct shoal__amo {
    uint32_t op;
    uint32_t size;
    uint64_t operand;
    uint64_t compare;
} shoal__amo_t;

#endif /* SHOAL_AMO_OP_H */
