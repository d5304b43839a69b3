/* The collective rendezvous behind barriers, allocation and finalize:
 * intra-node in shared memory (C11 atomics), then one leader per node over
 * MPI, then release. Every PE publishes which collective it entered and with
 * what argument, so mismatched calls and missing PEs become clear errors. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shoal_internal.h"

static const char *const shoal__coll_names[] = {
#define SHOAL__COLL_STR(name, str) str,
    SHOAL__COLL_MAP(SHOAL__COLL_STR)
#undef SHOAL__COLL_STR
};

const char *shoal__coll_name(int coll)
{
    if (coll < 0 || coll >= SHOAL__COLL_COUNT) return "an unknown call";
    return shoal__coll_names[coll];
}

double shoal__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Spin for a while (lowest latency when every PE has a core), then yield
 * (ranks oversubscribing the cores must let the one we wait for run). */
void shoal__wait_pause(unsigned *spins)
{
    if (*spins < 2000) {
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
    /* spins stops counting once waits yield; poke MPI from the first
     * iteration of every yield, and every 64 spins before. */
    if (sh->rma_win != MPI_WIN_NULL && ((*spins & 63) == 0 || *spins >= 2000)) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, sh->comm, &flag, MPI_STATUS_IGNORE);
    }
    shoal__wait_pause(spins);
}

/* Timeout bookkeeping of one wait. */
typedef struct shoal__deadline {
    double timeout; /* <= 0: forever */
    double start;
    unsigned checks;
} shoal__deadline_t;

static bool shoal__expired(shoal__deadline_t *d)
{
    if (d->timeout <= 0 || (++d->checks & 255) != 0) return false;
    if (d->start == 0) {
        d->start = shoal__now();
        return false;
    }
    return shoal__now() - d->start > d->timeout;
}

/* Names the node PEs that never arrived at generation gen, with the last
 * collective each entered, e.g. "PE 3 (last in shoal_malloc)". */
static size_t shoal__missing(shoal_t sh, uint64_t gen, char *buf, size_t len)
{
    size_t n = 0;
    int count = 0;
    buf[0] = '\0';
    for (int r = 0; r < sh->node_size; r++) {
        shoal__pe_slot_t *s = &sh->ctrl->slot[r];
        uint64_t a = atomic_load_explicit(&s->arrived, memory_order_acquire);
        if (a >= gen) continue;
        if (n < len)
            n += (size_t)snprintf(buf + n, len - n, "%sPE %d (%s%s)", count ? ", " : "", sh->node_pes[r],
                                  a == 0 ? "never entered a collective" : "last in ",
                                  a == 0 ? "" : shoal__coll_name((int)atomic_load(&s->coll)));
        count++;
    }
    return (size_t)count;
}

static int shoal__timeout_error(shoal_t sh, const char *call, int coll, uint64_t gen, bool inter)
{
    char who[384];
    size_t missing = shoal__missing(sh, gen, who, sizeof(who));
    sh->broken = true;
    if (missing)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "timed out after %g s in %s: PEs that never arrived: %s; a collective must be "
                            "called by every PE (is it inside a branch only some PEs take?)",
                            sh->cfg.timeout, shoal__coll_name(coll), who);
    return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                        "timed out after %g s in %s: every PE of node %d arrived, but %s on other nodes did not; "
                        "a collective must be called by every PE",
                        sh->cfg.timeout, shoal__coll_name(coll), sh->node_id,
                        inter ? "some PEs" : "the node leader waits for PEs");
}

/* After a mismatch every PE is here: gather what each called and say it. */
static int shoal__mismatch_error(shoal_t sh, const char *call, int coll, uint64_t arg)
{
    unsigned long long mine[2] = {(unsigned long long)coll, (unsigned long long)arg}, *all;
    char msg[512];
    size_t n = 0;
    int shown = 0;

    all = malloc(2 * sizeof(*all) * (size_t)sh->n_pes);
    if (all == NULL || MPI_Allgather(mine, 2, MPI_UNSIGNED_LONG_LONG, all, 2, MPI_UNSIGNED_LONG_LONG, sh->comm) != MPI_SUCCESS) {
        free(all);
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                            "PEs entered different collectives or passed different arguments");
    }
    for (int p = 0; p < sh->n_pes && n < sizeof(msg); p++) {
        /* Show PE 0 and every PE that differs from it, up to a screenful. */
        if (p > 0 && all[2 * p] == all[0] && all[2 * p + 1] == all[1]) continue;
        if (shown++ == 12) {
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "; ...");
            break;
        }
        if (all[2 * p] == SHOAL__COLL_MALLOC)
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sPE %d: %s(%llu bytes)", p ? "; " : "", p,
                                  shoal__coll_name((int)all[2 * p]), all[2 * p + 1]);
        else if (all[2 * p] == SHOAL__COLL_FREE && all[2 * p + 1] == (unsigned long long)SIZE_MAX)
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sPE %d: %s(a pointer not from shoal_malloc)",
                                  p ? "; " : "", p, shoal__coll_name((int)all[2 * p]));
        else if (all[2 * p] == SHOAL__COLL_FREE)
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sPE %d: %s(heap offset %llu)", p ? "; " : "", p,
                                  shoal__coll_name((int)all[2 * p]), all[2 * p + 1]);
        else
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sPE %d: %s", p ? "; " : "", p,
                                  shoal__coll_name((int)all[2 * p]));
    }
    free(all);
    return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                        "PEs disagree on a collective call (%s); every PE must make the same collective calls "
                        "with the same sizes, in the same order",
                        msg);
}

/* Leaders agree across nodes: is everybody in the same call with the same
 * argument? A non-blocking allreduce, polled so the wait can time out. */
static int shoal__inter_node(shoal_t sh, const char *call, int coll, uint64_t arg, int *verdict_p)
{
    long long in[5] = {*verdict_p ? -1 : 0, coll, -(long long)coll, (long long)arg, -(long long)arg}, out[5];
    shoal__deadline_t dl = {.timeout = sh->cfg.timeout};
    MPI_Request req;
    unsigned spins = 0;
    int rc = SHOAL_SUCCESS, done = 0;

    SHOAL__MPI_CHECK(sh, call, MPI_Iallreduce(in, out, 5, MPI_LONG_LONG, MPI_MIN, sh->leader_comm, &req));
    for (;;) {
        SHOAL__MPI_CHECK(sh, call, MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        if (done) break;
        if (shoal__expired(&dl)) {
            /* The request cannot be cancelled; the instance is broken from here. */
            return shoal__timeout_error(sh, call, coll, sh->gen, true);
        }
        shoal__wait_pause(&spins);
    }
    if (out[0] < 0 || out[1] != -out[2] || out[3] != -out[4]) *verdict_p = SHOAL_ERR_NOT_SYMMETRIC;
out:
    return rc;
}

int shoal__rendezvous(shoal_t sh, const char *call, int coll, uint64_t arg)
{
    shoal__node_ctrl_t *c = sh->ctrl;
    shoal__pe_slot_t *me;
    shoal__deadline_t dl = {.timeout = sh->cfg.timeout};
    uint64_t gen;
    unsigned spins = 0;
    int verdict = SHOAL_SUCCESS, rc;

    if (sh->broken)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "an earlier collective failed midway, so PEs are out of step; only shoal_finalize "
                            "(local cleanup) is possible");
    gen = ++sh->gen;
    me = &c->slot[sh->node_rank];
    atomic_store_explicit(&me->coll, (uint32_t)coll, memory_order_relaxed);
    atomic_store_explicit(&me->arg, arg, memory_order_relaxed);
    atomic_store_explicit(&me->arrived, gen, memory_order_release);

    if (sh->node_rank == 0) {
        for (int r = 1; r < sh->node_size; r++) {
            shoal__pe_slot_t *s = &c->slot[r];
            while (atomic_load_explicit(&s->arrived, memory_order_acquire) < gen) {
                if (shoal__expired(&dl)) return shoal__timeout_error(sh, call, coll, gen, false);
                shoal__wait_progress(sh, &spins);
            }
            if (atomic_load_explicit(&s->coll, memory_order_relaxed) != (uint32_t)coll ||
                atomic_load_explicit(&s->arg, memory_order_relaxed) != arg)
                verdict = SHOAL_ERR_NOT_SYMMETRIC;
        }
        if (sh->n_nodes > 1) {
            rc = shoal__inter_node(sh, call, coll, arg, &verdict);
            if (rc != SHOAL_SUCCESS) {
                sh->broken = true;
                /* Release the node with the failure so nobody waits forever. */
                atomic_store_explicit(&c->verdict, rc, memory_order_relaxed);
                atomic_store_explicit(&c->release, gen, memory_order_release);
                return rc;
            }
        }
        atomic_store_explicit(&c->verdict, verdict, memory_order_relaxed);
        atomic_store_explicit(&c->release, gen, memory_order_release);
    } else {
        while (atomic_load_explicit(&c->release, memory_order_acquire) < gen) {
            if (shoal__expired(&dl)) return shoal__timeout_error(sh, call, coll, gen, false);
            shoal__wait_progress(sh, &spins);
        }
        verdict = atomic_load_explicit(&c->verdict, memory_order_relaxed);
    }
    if (verdict == SHOAL_ERR_NOT_SYMMETRIC) return shoal__mismatch_error(sh, call, coll, arg);
    if (verdict != SHOAL_SUCCESS) {
        sh->broken = true;
        return shoal__error(sh, verdict, call, "the node leader (PE %d) failed in %s: %s", sh->node_pes[0],
                            shoal__coll_name(coll), shoal_strerror(verdict));
    }
    return SHOAL_SUCCESS;
}

int shoal__barrier_all(shoal_t sh)
{
    static const char *call = "shoal_barrier_all";
    int rc;

    rc = shoal__quiet(sh);
    if (rc != SHOAL_SUCCESS) return rc;
    rc = shoal__rendezvous(sh, call, SHOAL__COLL_BARRIER_ALL, 0);
    if (rc != SHOAL_SUCCESS) return rc;
    /* Remote puts through MPI RMA completed at their origin's flush; make
     * them visible to this PE's plain loads (MPI's unified model). */
    if (sh->rma_win != MPI_WIN_NULL) {
        rc = MPI_Win_sync(sh->rma_win);
        if (rc != MPI_SUCCESS) return shoal__mpi_error(sh, call, "MPI_Win_sync", rc);
    }
    return SHOAL_SUCCESS;
}
