/* Waiting without starving anyone: spin, then yield; poke MPI's progress
 * engine while waiting; sleep on a futex in the node's shared control block
 * when PEs outnumber CPUs. */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/shoal_instance.h"

double shoal__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Spin for a while (lowest latency when every PE has a core), then yield
 * (ranks oversubscribing the cores must let the one we wait for run). */
/* Spins before a wait starts yielding: lowered at init when a node has more
 * ranks than CPUs, where spinning only keeps the awaited rank off its core. */
unsigned shoal__spin_limit = 2000;

void shoal__wait_pause(unsigned *spins)
{
    if (*spins < shoal__spin_limit) {
        (*spins)++;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
    } else {
        sched_yield();
    }
}

void shoal__wait_progress(shoal_t sh, unsigned *spins)
{
    /* Poke MPI's progress engine while waiting, windows or not: a peer may
     * be blocked in the application's own MPI call (a large MPI_Send, an
     * MPI_Win_unlock) until this PE's MPI answers it. After the first 63
     * spins (a barrier whose PEs are all there never pays for it), then
     * every 64 spins, and at every yield (spins stops counting there). */
    if ((*spins & 63) == 63 || *spins >= shoal__spin_limit) shoal__mpi_progress(sh);
    shoal__wait_pause(spins);
}

void shoal__mpi_progress(shoal_t sh)
{
    int flag = 0;
    if (pthread_mutex_trylock(&sh->progress_lock) == 0) {
        bool have = sh->progress != MPI_REQUEST_NULL;
        /* Completed only by a message nobody sends: then it is gone, and
         * probes take over. */
        if (have) MPI_Test(&sh->progress, &flag, MPI_STATUS_IGNORE);
        pthread_mutex_unlock(&sh->progress_lock);
        if (have) return;
    }
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, sh->comm, &flag, MPI_STATUS_IGNORE);
}

/* A receive of nothing from this PE itself: no message of any peer can
 * match it. Without it (the post failed), progress is probes. */
void shoal__progress_start(shoal_t sh)
{
    static char none;
    MPI_Request req = MPI_REQUEST_NULL;
    if (MPI_Irecv(&none, 0, MPI_BYTE, sh->my_pe, SHOAL__TAG_PROGRESS, sh->comm, &req) != MPI_SUCCESS)
        req = MPI_REQUEST_NULL;
    pthread_mutex_lock(&sh->progress_lock);
    sh->progress = req;
    pthread_mutex_unlock(&sh->progress_lock);
}

/* Before sh->comm is freed, once no thread of the instance waits. */
void shoal__progress_stop(shoal_t sh)
{
    pthread_mutex_lock(&sh->progress_lock);
    if (sh->progress != MPI_REQUEST_NULL) {
        if (MPI_Cancel(&sh->progress) == MPI_SUCCESS)
            MPI_Wait(&sh->progress, MPI_STATUS_IGNORE);
        else
            MPI_Request_free(&sh->progress); /* it receives nothing, into nothing */
        sh->progress = MPI_REQUEST_NULL;
    }
    pthread_mutex_unlock(&sh->progress_lock);
}

/* The control block lives in a MAP_SHARED window: shared futexes (no
 * FUTEX_PRIVATE_FLAG), so that processes wake each other. */
void shoal__futex_wait(_Atomic uint32_t *word, uint32_t seen, long max_ns)
{
    struct timespec ts = {.tv_sec = max_ns / 1000000000L, .tv_nsec = max_ns % 1000000000L};
    /* EAGAIN (the word moved), EINTR and ETIMEDOUT all mean: look again. */
    (void)syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, seen, &ts, NULL, 0);
}

/* Wake whoever sleeps on q, after the store they wait for; a fence and a
 * load when nobody does, and one load on a node whose PEs never sleep. */
void shoal__waitq_wake(shoal_t sh, shoal__waitq_t *q)
{
    if (!atomic_load_explicit(&sh->ctrl->sleepy, memory_order_relaxed)) return;
    /* Pairs with the fence in shoal__node_wait: either the sleeper sees the
     * store this wake follows, or this sees the sleeper. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&q->sleepers, memory_order_relaxed) == 0) return;
    atomic_fetch_add_explicit(&q->seq, 1, memory_order_release);
    (void)syscall(SYS_futex, (uint32_t *)&q->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

int shoal__wait_mpi(shoal_t sh, MPI_Request *req, void *buf)
{
    /* The deadline is looked at every 256 polls: the clock costs more than a test. */
    double start = shoal__now(), limit = sh->cfg.timeout;
    unsigned spins = 0, polls = 0;
    int done = 0;

    for (;;) {
        if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            free(buf);
            return SHOAL_ERR_MPI;
        }
        if (done) return SHOAL_SUCCESS;
        if (limit > 0 && (++polls & 255u) == 0 && shoal__now() - start > limit) {
            shoal__abandon(sh, *req, buf);
            return SHOAL_ERR_TIMEOUT;
        }
        shoal__wait_progress(sh, &spins);
    }
}
