/* Point-to-point synchronization on the host (runtime/ops/amo.c, runtime/
 * wait_until.c, runtime/ops/lock.c): one atomic operation as the transports
 * see it, and the entry points the public API calls. */
#ifndef SHOAL_AMO_H
#define SHOAL_AMO_H

#include <stdint.h>

#include "base/shoal_amo_op.h"

#ifndef __CUDACC__
#include "base/shoal_instance.h"

/* The atomic a on pe's copy of the symmetric word at target. result (size
 * bytes) receives the old value; NULL for an atomic that returns nothing
 * (then SHOAL__AMO_FETCH, SWAP and CSWAP are refused). nbi: a fetched
 * value may arrive by the next quiet. Checks pe, the word (in the heap,
 * in an allocation with SHOAL_CHECK basic or full, aligned to its size)
 * and result; nothing happens on error. */
SHOAL__HIDDEN int shoal__amo(shoal_t sh, const char *call, const void *target, int pe, const shoal__amo_t *a,
                             void *result, int nbi);
/* put_signal: nbytes from src to dest on pe, then the signal change
 * (SHOAL_SIGNAL_SET or _ADD) on pe's sig, ordered after the data. */
SHOAL__HIDDEN int shoal__put_signal(shoal_t sh, const char *call, void *dest, const void *src, size_t nbytes,
                                    uint64_t *sig, uint64_t value, int op, int pe, int nbi);
/* The signal change alone. */
SHOAL__HIDDEN int shoal__signal_op(shoal_t sh, const char *call, uint64_t *sig, uint64_t value, int op, int pe);
/* The checks of a signal change (op known, pe in range, sig a symmetric
 * 8-byte-aligned word), then the atomic that makes it in *a and sig's heap
 * offset in *off_p. */
SHOAL__HIDDEN int shoal__signal_prepare(shoal_t sh, const char *call, const uint64_t *sig, uint64_t value, int op,
                                        int pe, shoal__amo_t *a, size_t *off_p);

/* What the wait_until and test families look for. */
enum {
    SHOAL__WAIT_ALL = 0,  /* every included element (wait_until: one element) */
    SHOAL__WAIT_ANY = 1,  /* one, its index out */
    SHOAL__WAIT_SOME = 2, /* all that are satisfied, at least one, their indices out */
};
/* One wait or test over nelems elements of size bytes (2, 4 or 8; signed or
 * not) at ivars in this PE's heap: status (NULL: all included), cmp, and
 * the values to compare with (one, or one per element with vector). block:
 * wait (up to the instance's timeout), else look once. Out: *flag_p (ALL),
 * *index_p (ANY, SIZE_MAX for none), indices and *count_p (SOME); the ones
 * not used may be NULL. seen_p (may be NULL): the last value read of
 * element 0 (signal_wait_until). */
typedef struct shoal__wait_spec {
    const void *ivars;
    size_t nelems, size;
    bool is_signed;
    const int *status;
    int cmp;
    const void *values; /* size bytes each */
    bool vector;
    int kind; /* SHOAL__WAIT_* */
    bool block;
} shoal__wait_spec_t;
/* The spec of a wait on nelems elements of size bytes (sgn: signed). */
static inline shoal__wait_spec_t shoal__wait_spec(const void *ivars, size_t nelems, size_t size, bool sgn,
                                                  const int *status, int cmp, const void *values, bool vector, int kind,
                                                  bool block)
{
    shoal__wait_spec_t w = {.ivars = ivars,
                            .nelems = nelems,
                            .size = size,
                            .is_signed = sgn,
                            .status = status,
                            .cmp = cmp,
                            .values = values,
                            .vector = vector,
                            .kind = kind,
                            .block = block};
    return w;
}
/* Is the integer type T signed? (Not "< 0": always false, says
 * -Wtype-limits, for unsigned T.) */
#define SHOAL__SIGNED(T) ((T)-1 < (T)1)
SHOAL__HIDDEN int shoal__wait_until(shoal_t sh, const char *call, const shoal__wait_spec_t *w, int *flag_p,
                                    size_t *index_p, size_t *indices, size_t *count_p, void *seen_p);
/* The argument checks of shoal__wait_until alone, for a blocking ALL wait
 * made elsewhere (on a stream): *reg_p tells whether ivars lies in a
 * registered range rather than the heap. */
SHOAL__HIDDEN int shoal__wait_check(shoal_t sh, const char *call, const shoal__wait_spec_t *w, bool *reg_p);
/* One unsigned word of size bytes at word (this PE's heap): wait until
 * word <cmp> *value (block), or only read it (!block, no comparison);
 * seen_p (may be NULL): the value read last. */
SHOAL__HIDDEN int shoal__wait_word(shoal_t sh, const char *call, const void *word, size_t size, int cmp,
                                   const void *value, bool block, void *seen_p);

/* Locks (runtime/ops/lock.c). */
SHOAL__HIDDEN int shoal__set_lock(shoal_t sh, const char *call, long *lock);
SHOAL__HIDDEN int shoal__test_lock(shoal_t sh, const char *call, long *lock, int *got_p);
SHOAL__HIDDEN int shoal__clear_lock(shoal_t sh, const char *call, long *lock);
#endif

#endif /* SHOAL_AMO_H */
