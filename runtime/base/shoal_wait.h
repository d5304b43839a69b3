/* Waiting without starving anyone (runtime/base/wait.c): spin, then
 * yield; keep MPI's progress; sleep on a futex of the node's control
 * block when PEs outnumber CPUs; bounded waits for MPI requests. */
#ifndef SHOAL_WAIT_H
#define SHOAL_WAIT_H

#include <mpi.h>
#include <stdint.h>

#include "base/shoal_base.h"

/* Where PEs of a node sleep when they have no core to spin on: a futex
 * word bumped by a waker that saw a sleeper (so the fast path only reads
 * sleepers), and the number of PEs asleep or about to be. */
typedef struct shoal__waitq {
    _Atomic uint32_t seq;
    _Atomic uint32_t sleepers;
} shoal__waitq_t;

/* Spin briefly, then yield the CPU: waits never starve oversubscribed ranks. */
SHOAL__HIDDEN void shoal__wait_pause(unsigned *spins);
extern SHOAL__HIDDEN unsigned shoal__spin_limit;
/* The same, and now and then drive MPI's progress engine: a PE waiting in a
 * rendezvous may be the target of a peer's MPI RMA that needs it. */
SHOAL__HIDDEN void shoal__wait_progress(shoal_t sh, unsigned *spins);

/* MPI's progress engine, once. An MPI may carry RMA as messages served by
 * the target's progress (MPICH over UCX does so for atomics on memory UCX
 * cannot map), and MPI_Iprobe need not run it: testing a pending request
 * must. So each instance keeps a receive from its own PE that nothing
 * sends (posted at init on sh->comm, tag SHOAL__TAG_PROGRESS, withdrawn at
 * finalize), and whichever thread gets its lock tests it; the others, or
 * an instance without one, probe. Any thread may call it. */
#define SHOAL__TAG_PROGRESS 0x5f8
SHOAL__HIDDEN void shoal__mpi_progress(shoal_t sh);
SHOAL__HIDDEN void shoal__progress_start(shoal_t sh);
SHOAL__HIDDEN void shoal__progress_stop(shoal_t sh);
SHOAL__HIDDEN double shoal__now(void);

/* A futex wait on a word of the node's shared control block (at most
 * max_ns), and waking the PEs asleep on q. */
SHOAL__HIDDEN void shoal__futex_wait(_Atomic uint32_t *word, uint32_t seen, long max_ns);
SHOAL__HIDDEN void shoal__waitq_wake(shoal_t sh, shoal__waitq_t *q);

/* Wait for a non-blocking MPI call for at most SHOAL_TIMEOUT,
 * keeping MPI's progress: SHOAL_SUCCESS; SHOAL_ERR_TIMEOUT (req and buf are
 * MPI's from then on: abandoned); SHOAL_ERR_MPI (MPI_Test failed: buf
 * freed). Nothing is recorded: the caller says what it waited for. */
SHOAL__HIDDEN int shoal__wait_mpi(shoal_t sh, MPI_Request *req, void *buf);

#endif /* SHOAL_WAIT_H */
