/* Atomics on host memory this process can load and store: the word of
 * self and shm on host heaps, and registered ranges node peers map. Sequentially consistent, so that the data a
 * PE stored before a signal is seen by whoever sees the signal. */
#include "heap/shoal_heap.h"

#define SHOAL__AMO_CPU(T, word, a, result)                                                                             \
    do {                                                                                                               \
        T *w_ = (T *)(word), v_ = (T)(a)->operand, c_ = (T)(a)->compare, old_ = 0;                                     \
        switch ((a)->op) {                                                                                             \
        case SHOAL__AMO_FETCH: old_ = __atomic_load_n(w_, __ATOMIC_SEQ_CST); break;                                    \
        case SHOAL__AMO_SET: __atomic_store_n(w_, v_, __ATOMIC_SEQ_CST); break;                                        \
        case SHOAL__AMO_SWAP: old_ = __atomic_exchange_n(w_, v_, __ATOMIC_SEQ_CST); break;                             \
        case SHOAL__AMO_CSWAP:                                                                                         \
            old_ = c_;                                                                                                 \
            __atomic_compare_exchange_n(w_, &old_, v_, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                     \
            break;                                                                                                     \
        case SHOAL__AMO_ADD: old_ = __atomic_fetch_add(w_, v_, __ATOMIC_SEQ_CST); break;                               \
        case SHOAL__AMO_AND: old_ = __atomic_fetch_and(w_, v_, __ATOMIC_SEQ_CST); break;                               \
        case SHOAL__AMO_OR: old_ = __atomic_fetch_or(w_, v_, __ATOMIC_SEQ_CST); break;                                 \
        case SHOAL__AMO_XOR: old_ = __atomic_fetch_xor(w_, v_, __ATOMIC_SEQ_CST); break;                               \
        default: break;                                                                                                \
        }                                                                                                              \
        if ((result) != NULL) *(T *)(result) = old_;                                                                   \
    } while (0)

void shoal__amo_cpu(void *word, const shoal__amo_t *a, void *result)
{
    if (a->size == 4)
        SHOAL__AMO_CPU(uint32_t, word, a, result);
    else
        SHOAL__AMO_CPU(uint64_t, word, a, result);
}
