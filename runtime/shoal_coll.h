/* Collectives (runtime/coll.c): the kinds a PE publishes, the node's
 * control block, the rendezvous, barriers; and the waits they use
 * (runtime/wait.c). */
#ifndef SHOAL_COLL_H
#define SHOAL_COLL_H

#include "shoal_error.h"

/* What a PE is waiting in, published for timeout and mismatch messages. */
#define SHOAL__COLL_MAP(X)                                                                                             \
    X(NONE, "nothing")                                                                                                 \
    X(BARRIER_ALL, "shoal_barrier_all")                                                                                \
    X(SYNC_ALL, "shoal_sync_all")                                                                                      \
    X(MALLOC, "shoal_malloc")                                                                                          \
    X(FREE, "shoal_free")                                                                                              \
    X(FINALIZE, "shoal_finalize")                                                                                      \
    X(BARRIER_STREAM, "shoal_barrier_all_on_stream")                                                                   \
    X(REGISTER, "shoal_register")                                                                                      \
    X(DEREGISTER, "shoal_deregister")
enum {
#define SHOAL__COLL_ENUM(name, str) SHOAL__COLL_##name,
    SHOAL__COLL_MAP(SHOAL__COLL_ENUM)
#undef SHOAL__COLL_ENUM
        SHOAL__COLL_COUNT
};
/* What a PE publishes for a host collective: the kind (SHOAL__COLL_*) in the
 * low 8 bits, and above it the count of its shoal_barrier_all_on_stream
 * calls that ran on the GPU (which meet on the GPU, not here): a PE that
 * skipped one, or made one more, disagrees at its next host collective
 * instead of leaving streams waiting on each other unseen. */
#define SHOAL__COLL_KIND(coll) ((int)((uint32_t)(coll) % 256u))
#define SHOAL__COLL_STREAMS(coll) (((uint32_t)(coll) >> 8) & 0x3fffffu)
/* Bit 30: this PE's part failed before it met the others (see
 * shoal__coll_failed_here). coll stays a positive int. */
#define SHOAL__COLL_FAILED (1 << 30)
SHOAL__HIDDEN const char *shoal__coll_name(int coll);

/* A PE's slot in its node's control block (one cache line each). */
typedef struct shoal__pe_slot {
    _Atomic uint64_t arrived; /* generation of the last rendezvous entered */
    _Atomic uint32_t coll;    /* SHOAL__COLL_* it entered */
    _Atomic uint32_t gone;    /* a node peer found its process gone */
    _Atomic uint64_t arg;     /* its argument (size, offset) for symmetry checks */
    _Atomic uint64_t calls;   /* collective API calls entered since init (the numbers in messages) */
    char pad[SHOAL__CACHELINE - 32];
} shoal__pe_slot_t;

/* Where PEs of a node sleep when they have no core to spin on: a futex
 * word bumped by a waker that saw a sleeper (so the fast path only reads
 * sleepers), and the number of PEs asleep or about to be. */
typedef struct shoal__waitq {
    _Atomic uint32_t seq;
    _Atomic uint32_t sleepers;
} shoal__waitq_t;

/* Per-node control block in the node's shared window. */
typedef struct shoal__node_ctrl {
    _Atomic uint64_t release; /* last generation the leader released */
    _Atomic int32_t verdict;  /* 0, or the status of the released generation */
    shoal__waitq_t release_q; /* PEs waiting for the release sleep here */
    shoal__waitq_t leader_q;  /* the leader waiting for arrivals sleeps here */
    _Atomic uint32_t sleepy;  /* a PE of the node may sleep (SHOAL_WAIT): wake it */
    char pad[SHOAL__CACHELINE - 32];
    shoal__pe_slot_t slot[]; /* node_size slots */
} shoal__node_ctrl_t;

/* All PEs enter with the same (coll, arg); returns 0, SHOAL_ERR_NOT_SYMMETRIC
 * (message names PEs and their calls/arguments) or SHOAL_ERR_TIMEOUT (names
 * the PEs that never arrived). Intra-node in shared memory, leaders over MPI. */
SHOAL__HIDDEN int shoal__rendezvous(shoal_t sh, const char *call, int coll, uint64_t arg);

/* Spin briefly, then yield the CPU: waits never starve oversubscribed ranks. */
SHOAL__HIDDEN void shoal__wait_pause(unsigned *spins);
extern SHOAL__HIDDEN unsigned shoal__spin_limit;
/* The same, and now and then drive MPI's progress engine: a PE waiting in a
 * rendezvous may be the target of a peer's MPI RMA that needs it. */
SHOAL__HIDDEN void shoal__wait_progress(shoal_t sh, unsigned *spins);
SHOAL__HIDDEN double shoal__now(void);

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

/* Set in a PE's slot->arrived when it gave up on a collective (timeout):
 * it will not come back, and whoever meets it in a rendezvous fails too.
 * slot->coll keeps the collective it was in. */
#define SHOAL__GAVE_UP ((uint64_t)1 << 63)
/* In shoal_register's argument (its size): the range is GPU memory, so
 * that PEs registering host memory and GPU memory do not meet as one. */
#define SHOAL__REG_ARG_GPU ((uint64_t)1 << 62)

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
/* A futex wait on a word of the node's shared control block (at most
 * max_ns), and waking the PEs asleep on q. */
SHOAL__HIDDEN void shoal__futex_wait(_Atomic uint32_t *word, uint32_t seen, long max_ns);
SHOAL__HIDDEN void shoal__waitq_wake(shoal_t sh, shoal__waitq_t *q);

#endif /* SHOAL_COLL_H */
