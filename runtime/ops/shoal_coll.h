/* Collectives of the instance (runtime/ops/coll.c, what their messages say:
 * runtime/ops/coll_diag.c): the kinds a PE publishes, the rendezvous and
 * the barriers. */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H

#include "base/shoal_instance.h"

/* "shoal_malloc" for SHOAL__COLL_MALLOC (and the kinds below). */
SHOAL__HIDDEN const char *shoal__coll_name(int coll);

/* All PEs enter with the same (coll, arg); returns 0, SHOAL_ERR_NOT_SYMMETRIC
 * (message names PEs and their calls/arguments) or SHOAL_ERR_TIMEOUT (names
 * the PEs that never arrived). Intra-node in shared memory, leaders over MPI. */
SHOAL__HIDDEN int shoal__rendezvous(shoal_t sh, const char *call, int coll, uint64_t arg);

/* Collective kinds beyond SHOAL__COLL_MAP, published in a PE's slot like
 * the others, so that shoal_malloc, shoal_calloc and shoal_align of the same
 * size on different PEs are told apart (they would land at different
 * offsets). shoal__coll_name names them. */
#define SHOAL__COLL_CALLOC (SHOAL__COLL_COUNT + 0)
#define SHOAL__COLL_ALIGN_BASE (SHOAL__COLL_COUNT + 1) /* + log2(alignment), 0..63 */
#define SHOAL__COLL_ALIGN(log2) (SHOAL__COLL_ALIGN_BASE + (log2))
#define SHOAL__COLL_ALIGN_BAD SHOAL__COLL_ALIGN(63)          /* shoal_align with an invalid alignment */
#define SHOAL__COLL_CALLOC_BAD (SHOAL__COLL_ALIGN_BASE + 64) /* shoal_calloc whose count * size overflows */
/* shoal_free's argument for NULL (offsets are below 2^48). */
#define SHOAL__FREE_NULL ((uint64_t)SIZE_MAX - 1)

/* In shoal_register's argument (its size): the range is GPU memory, so
 * that PEs registering host memory and GPU memory do not meet as one; the
 * call is shoal_register_shared (not shoal_register). */
#define SHOAL__REG_ARG_GPU ((uint64_t)1 << 62)
#define SHOAL__REG_ARG_SHARED ((uint64_t)1 << 61)

SHOAL__HIDDEN int shoal__barrier_all(shoal_t sh);
/* The host barrier, published as collective coll of API call call. */
SHOAL__HIDDEN int shoal__barrier_as(shoal_t sh, const char *call, int coll);
/* After this PE's part of collective coll (argument arg) failed with status
 * before it met the others (a quiet, a stream wait, zeroing a calloc'ed
 * block, the allocator's table; the message is set): meet them all the
 * same, marked SHOAL__COLL_FAILED, so that they get the mismatch at once
 * instead of waiting for this PE until the timeout, and keep or give back
 * the same blocks. Returns status with this PE's message (and what the
 * meeting added, if it failed too). A thread-rule failure does not meet. */
SHOAL__HIDDEN int shoal__coll_failed_here(shoal_t sh, const char *call, int coll, uint64_t arg, int status);
/* Receive the give-up notes other node leaders sent this one (finalize). */
SHOAL__HIDDEN void shoal__drain_notes(shoal_t sh);
#endif /* SHOAL_COLL_H */
