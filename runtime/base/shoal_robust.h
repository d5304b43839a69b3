/*
 * The robustness state kept in each instance (runtime/base/robust.c): what
 * timeout messages need to name a missing PE precisely (its pid, other
 * nodes' control blocks), requests a timeout abandoned, SHOAL_CHECK=full's
 * record of puts not yet completed by a quiet; and the MPI thread level's
 * rules (runtime/base/thread.c).
 */
#ifndef SHOAL_ROBUST_H
#define SHOAL_ROBUST_H

#include <pthread.h>
#include <sys/types.h>

#include "base/shoal_error.h"

/* A byte range of a peer's heap this PE put to. */
typedef struct shoal__range {
    int pe;     /* target PE */
    size_t off; /* heap offset */
    size_t n;   /* bytes */
} shoal__range_t;

/* Most ranges remembered between two quiets; beyond, reads go unchecked. */
#define SHOAL__MAX_PUT_RANGES 4096

typedef struct shoal__robust {
    bool ready;               /* created (shoal__robust_create ran), not yet destroyed */
    int *pe_pid;              /* per PE: its pid if it runs on this host, else 0 */
    MPI_Win diag_win;         /* node control blocks, readable by every PE (several nodes) */
    uint64_t *coll_buf;       /* buffers of the leaders' non-blocking allreduce (16 words);
                                  left to MPI (leaked) when a timeout abandons the request */
    uint64_t *gave_up_note;   /* a node leader that gave up: the generation, sent to the */
    MPI_Request *gave_up_req; /* other leaders (one request each; n_nodes) */
    /* Non-blocking collectives a timeout abandoned, with the buffers MPI
     * may still write: freed at finalize if they completed by then (a late
     * PE's call completes them), else left to MPI. */
    MPI_Request abandoned_req[4];
    void *abandoned_buf[4];
    int n_abandoned;

    /* SHOAL_CHECK=full */
    pthread_mutex_t lock; /* guards puts */
    shoal__range_t *puts; /* puts since the last quiet, in issue order */
    size_t n_puts, cap_puts;
    size_t puts_dropped;              /* ranges ever removed from the front (quiets of any thread) */
    bool puts_overflow;               /* more than SHOAL__MAX_PUT_RANGES: some not recorded */
    _Atomic uintptr_t coll_owner;     /* thread inside a collective (any level) */
    _Atomic(const char *) owner_call; /* the collective coll_owner is in */
} shoal__robust_t;

/* MPI's thread level (MPI_Query_thread at shoal_init); -1 before any init. */
extern SHOAL__HIDDEN _Atomic int shoal__thread_level;
static inline bool shoal__threads_multiple(void)
{
    return atomic_load_explicit(&shoal__thread_level, memory_order_relaxed) == MPI_THREAD_MULTIPLE;
}
/* "MPI_THREAD_SERIALIZED", ... */
SHOAL__HIDDEN const char *shoal__thread_level_name(int level);

/* Collective (in shoal_init, after the node control block exists). */
SHOAL__HIDDEN int shoal__robust_create(shoal_t sh);
/* In shoal_finalize: collective frees unless sh->broken. */
SHOAL__HIDDEN void shoal__robust_destroy(shoal_t sh);
/* A timeout gives up on request, whose buffer buf (malloc'd) MPI may still
 * use: kept until finalize (see shoal__robust_t). */
SHOAL__HIDDEN void shoal__abandon(shoal_t sh, MPI_Request req, void *buf);
/* Is this same-host PE's process gone (exited, killed, a zombie)? */
SHOAL__HIDDEN bool shoal__pe_gone(shoal_t sh, int pe);

/* SHOAL_CHECK=full: enter the instance from this thread. Fails with
 * SHOAL_ERR_THREAD when the MPI thread level forbids this thread being here
 * now (another thread inside below MPI_THREAD_MULTIPLE; another thread in a
 * collective at any level; not the main thread under MPI_THREAD_FUNNELED).
 * *held_p says whether shoal__thread_leave must release. */
SHOAL__HIDDEN int shoal__thread_enter(shoal_t sh, shoal__robust_t *sd, const char *call, bool coll, bool *held_p);
SHOAL__HIDDEN void shoal__thread_leave(shoal__robust_t *sd, bool coll, bool held);

#endif /* SHOAL_ROBUST_H */
