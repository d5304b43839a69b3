/*
 * State kept beside an instance for the robustness checks: the MPI thread
 * level, SHOAL_CHECK=full's record of puts not yet completed by a quiet and
 * its one-thread-at-a-time check, and what timeout messages need to name a
 * missing PE precisely (its pid, other nodes' control blocks).
 *
 * It lives beside struct shoal_instance (found by shoal__side) rather than
 * in it because runtime/shoal_internal.h is shared with the GPU work; the
 * fields can move into the instance later without changing the callers.
 */
#ifndef SHOAL_CHECK_H
#define SHOAL_CHECK_H

#include <pthread.h>
#include <sys/types.h>

#include "shoal_internal.h"

/* Collective kinds beyond SHOAL__COLL_MAP, published in a PE's slot like
 * the others, so that shoal_malloc, shoal_calloc and shoal_align of the same
 * size on different PEs are told apart (they would land at different
 * offsets). shoal__coll_name names them. */
#define SHOAL__COLL_CALLOC (SHOAL__COLL_COUNT + 0)
#define SHOAL__COLL_ALIGN_BASE (SHOAL__COLL_COUNT + 1) /* + log2(alignment), 0..63 */
#define SHOAL__COLL_ALIGN(log2) (SHOAL__COLL_ALIGN_BASE + (log2))
#define SHOAL__COLL_ALIGN_BAD SHOAL__COLL_ALIGN(63) /* shoal_align with an invalid alignment */
#define SHOAL__COLL_CALLOC_BAD (SHOAL__COLL_ALIGN_BASE + 64) /* shoal_calloc whose count * size overflows */
/* shoal_free's argument for NULL (offsets are below 2^48). */
#define SHOAL__FREE_NULL ((uint64_t)SIZE_MAX - 1)

/* Set in a PE's slot->arrived when it gave up on a collective (timeout):
 * it will not come back, and whoever meets it in a rendezvous fails too.
 * slot->coll keeps the collective it was in. */
#define SHOAL__GAVE_UP ((uint64_t)1 << 63)

/* A byte range of a peer's heap this PE put to. */
typedef struct shoal__range {
    int pe;     /* target PE */
    size_t off; /* heap offset */
    size_t n;   /* bytes */
} shoal__range_t;

/* Most ranges remembered between two quiets; beyond, reads go unchecked. */
#define SHOAL__MAX_PUT_RANGES 4096

typedef struct shoal__side {
    _Atomic(shoal_t) sh;       /* the instance; NULL: free, reused by the next init */
    struct shoal__side *next;  /* every side state ever made (never freed) */

    int *pe_pid;               /* per PE: its pid if it runs on this host, else 0 */
    MPI_Win diag_win;          /* node control blocks, readable by every PE (several nodes) */
    uint64_t *coll_buf;        /* buffers of the leaders' non-blocking allreduce (16 words);
                                  left to MPI (leaked) when a timeout abandons the request */
    uint64_t *gave_up_note;    /* a node leader that gave up: the generation, sent to the */
    MPI_Request *gave_up_req;  /* other leaders (one request each; n_nodes) */
    /* Non-blocking collectives a timeout abandoned, with the buffers MPI
     * may still write: freed at finalize if they completed by then (a late
     * PE's call completes them), else left to MPI. */
    MPI_Request abandoned_req[4];
    void *abandoned_buf[4];
    int n_abandoned;

    /* SHOAL_CHECK=full */
    pthread_mutex_t lock;       /* guards puts */
    shoal__range_t *puts;       /* puts since the last quiet, in issue order */
    size_t n_puts, cap_puts;
    size_t puts_dropped;        /* ranges ever removed from the front (quiets of any thread) */
    bool puts_overflow;         /* more than SHOAL__MAX_PUT_RANGES: some not recorded */
    _Atomic uintptr_t coll_owner; /* thread inside a collective (any level) */
    _Atomic(const char *) owner_call; /* the collective coll_owner is in */
} shoal__side_t;

/* MPI's thread level (MPI_Query_thread at shoal_init); -1 before any init. */
extern SHOAL__HIDDEN _Atomic int shoal__thread_level;
static inline bool shoal__threads_multiple(void)
{
    return atomic_load_explicit(&shoal__thread_level, memory_order_relaxed) == MPI_THREAD_MULTIPLE;
}
/* The allocator's table, under MPI_THREAD_MULTIPLE only (below it, one
 * thread at a time uses the instance): readers are the RMA range checks,
 * writers the collective allocations. */
static inline void shoal__alloc_lock(shoal_t sh, bool write)
{
    if (!shoal__threads_multiple()) return;
    if (write) pthread_rwlock_wrlock(&sh->alloc_lock);
    else pthread_rwlock_rdlock(&sh->alloc_lock);
}
static inline void shoal__alloc_unlock(shoal_t sh)
{
    if (shoal__threads_multiple()) pthread_rwlock_unlock(&sh->alloc_lock);
}

/* "MPI_THREAD_SERIALIZED", ... */
SHOAL__HIDDEN const char *shoal__thread_level_name(int level);

/* The side state of a live instance (NULL if it has none). */
SHOAL__HIDDEN shoal__side_t *shoal__side(shoal_t sh);
/* Collective (in shoal_init, after the node control block exists). */
SHOAL__HIDDEN int shoal__side_create(shoal_t sh);
/* In shoal_finalize: collective frees unless sh->broken. */
SHOAL__HIDDEN void shoal__side_destroy(shoal_t sh);
/* A timeout gives up on request, whose buffer buf (malloc'd) MPI may still
 * use: kept until finalize (see shoal__side_t). */
SHOAL__HIDDEN void shoal__abandon(shoal_t sh, MPI_Request req, void *buf);
/* Receive the give-up notes other node leaders sent this one (finalize). */
SHOAL__HIDDEN void shoal__drain_notes(shoal_t sh);

/* SHOAL_CHECK=full: enter the instance from this thread. Fails with
 * SHOAL_ERR_THREAD when the MPI thread level forbids this thread being here
 * now (another thread inside below MPI_THREAD_MULTIPLE; another thread in a
 * collective at any level; not the main thread under MPI_THREAD_FUNNELED).
 * *held_p says whether shoal__side_leave must release. */
SHOAL__HIDDEN int shoal__side_enter(shoal_t sh, shoal__side_t *sd, const char *call, bool coll, bool *held_p);
SHOAL__HIDDEN void shoal__side_leave(shoal__side_t *sd, bool coll, bool held);

/* Is this same-host PE's process gone (exited, killed, a zombie)? */
SHOAL__HIDDEN bool shoal__pe_gone(shoal_t sh, int pe);

/* Forget this thread's last error on sh (sh is about to be freed). */
SHOAL__HIDDEN void shoal__error_forget(shoal_t sh);

#endif /* SHOAL_CHECK_H */
