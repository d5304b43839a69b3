/* The collective rendezvous behind barriers, allocation and finalize:
 * intra-node in shared memory (C11 atomics), then one leader per node over
 * MPI, then release. Every PE publishes which collective it entered and with
 * what argument, so mismatched calls and missing PEs become clear errors.
 *
 * Every wait is bounded by SHOAL_TIMEOUT. A PE that gives up publishes it
 * (SHOAL__GAVE_UP in its slot; a leader releases its node with the
 * failure), so that a PE arriving late fails too instead of completing a
 * collective the others have left. A timeout names the PEs that never
 * arrived, the call each is in, and whether its process is gone; on another
 * node, what that node's control block (read through MPI RMA) says. */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ops/coll_diag.h"
#include "base/shoal_instance.h"
#include "transport/transport.h"
#include "ops/shoal_rma.h"
#include "ops/shoal_coll.h"

/* A node leader that gives up on a collective says so to the other
 * leaders, in a note on the leaders' communicator: a leader arriving later
 * would complete the agreement this one abandoned (MPI matches its
 * allreduce with the request left behind) and pass a collective that
 * nobody else is in. Leaders look for the note while they wait and once
 * the agreement is done. */
#define SHOAL__TAG_GAVE_UP 0x5f0

static void shoal__announce_give_up(shoal_t sh)
{
    shoal__robust_t *sd = shoal__robust(sh);
    int me, n;

    if (sh->n_nodes < 2 || sh->leader_comm == MPI_COMM_NULL || sd == NULL || sd->gave_up_note != NULL) return;
    if (MPI_Comm_rank(sh->leader_comm, &me) != MPI_SUCCESS || MPI_Comm_size(sh->leader_comm, &n) != MPI_SUCCESS) return;
    sd->gave_up_note = malloc(sizeof(uint64_t));
    sd->gave_up_req = malloc((size_t)n * sizeof(MPI_Request));
    if (sd->gave_up_note == NULL || sd->gave_up_req == NULL) {
        free(sd->gave_up_note);
        free(sd->gave_up_req);
        sd->gave_up_note = NULL;
        sd->gave_up_req = NULL;
        return;
    }
    *sd->gave_up_note = sh->gen;
    for (int k = 0; k < n; k++) {
        sd->gave_up_req[k] = MPI_REQUEST_NULL;
        if (k != me && MPI_Isend(sd->gave_up_note, 1, MPI_UINT64_T, k, SHOAL__TAG_GAVE_UP, sh->leader_comm,
                                 &sd->gave_up_req[k]) != MPI_SUCCESS)
            sd->gave_up_req[k] = MPI_REQUEST_NULL;
    }
}

/* Has another node leader given up (its note is here)? */
static bool shoal__leader_gave_up(shoal_t sh)
{
    MPI_Status st;
    uint64_t gen;
    int flag = 0;

    if (MPI_Iprobe(MPI_ANY_SOURCE, SHOAL__TAG_GAVE_UP, sh->leader_comm, &flag, &st) != MPI_SUCCESS || !flag)
        return false;
    MPI_Recv(&gen, 1, MPI_UINT64_T, st.MPI_SOURCE, SHOAL__TAG_GAVE_UP, sh->leader_comm, MPI_STATUS_IGNORE);
    return true;
}

void shoal__drain_notes(shoal_t sh)
{
    if (sh->n_nodes > 1 && sh->leader_comm != MPI_COMM_NULL)
        while (shoal__leader_gave_up(sh)) continue;
}

/* Say in my slot that I gave up on the current collective, and wake the PEs
 * of my node that wait for me; a node leader tells the other leaders. */
static void shoal__give_up(shoal_t sh)
{
    atomic_fetch_or_explicit(&sh->ctrl->slot[sh->node_rank].arrived, SHOAL__GAVE_UP, memory_order_release);
    shoal__waitq_wake(sh, &sh->ctrl->leader_q);
    shoal__waitq_wake(sh, &sh->ctrl->release_q);
    if (sh->node_rank == 0) shoal__announce_give_up(sh);
}

/* What a rendezvous waits for in the control block. */
typedef struct shoal__wait_for {
    _Atomic uint64_t *word;  /* done once *word >= gen */
    _Atomic uint64_t *abort; /* or once *abort has SHOAL__GAVE_UP (may be NULL) */
    uint64_t gen;
} shoal__wait_for_t;

static bool shoal__wait_done(const shoal__wait_for_t *w)
{
    return atomic_load_explicit(w->word, memory_order_acquire) >= w->gen ||
           (w->abort != NULL && (atomic_load_explicit(w->abort, memory_order_acquire) & SHOAL__GAVE_UP));
}

/* Yields before a wait on an oversubscribed node sleeps: a barrier whose
 * PEs are all there completes within them (a sleeper wakes tens of
 * microseconds late), a longer wait leaves the CPU to the PEs at work. */
#define SHOAL__YIELDS_BEFORE_SLEEP 32u

/* Spin, then yield (poking MPI when progress is asked for). true instead,
 * once a wait where waits sleep has spun and yielded enough. */
static bool shoal__wait_step(shoal_t sh, unsigned *spins, bool progress)
{
    bool yielding = *spins >= shoal__spin_limit;

    if (sh->wait_sleep && *spins >= shoal__spin_limit + SHOAL__YIELDS_BEFORE_SLEEP) return true;
    if (progress)
        shoal__wait_progress(sh, spins);
    else
        shoal__wait_pause(spins);
    if (yielding) (*spins)++; /* wait_pause counts spins only */
    return false;
}

/* One step of a wait in the control block, until shoal__wait_done(w): spin,
 * then yield, and on a node with more PEs than CPUs then sleep on q, for at
 * most a millisecond at a time (the caller checks its deadline between
 * steps). */
static void shoal__node_wait(shoal_t sh, unsigned *spins, shoal__waitq_t *q, const shoal__wait_for_t *w)
{
    uint32_t seen;

    if (!shoal__wait_step(sh, spins, true)) return;
    shoal__mpi_progress(sh);
    atomic_fetch_add_explicit(&q->sleepers, 1, memory_order_relaxed);
    seen = atomic_load_explicit(&q->seq, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    if (!shoal__wait_done(w)) shoal__futex_wait(&q->seq, seen, 1000000L);
    atomic_fetch_sub_explicit(&q->sleepers, 1, memory_order_relaxed);
}

/* One step of a wait for MPI (a leader's non-blocking collective): as
 * shoal__wait_pause, then, where waits sleep, naps of 50 us between polls
 * (MPI has no futex to wake this PE through). */
static void shoal__mpi_wait(shoal_t sh, unsigned *spins)
{
    static const struct timespec nap = {0, 50000};

    if (shoal__wait_step(sh, spins, false)) nanosleep(&nap, NULL);
}

/* Timeout bookkeeping of one wait (a leader's intra- and inter-node phases
 * share one). */
typedef struct shoal__deadline {
    double timeout; /* <= 0: forever */
    double start;
    unsigned checks;
} shoal__deadline_t;

static bool shoal__expired(shoal__deadline_t *d)
{
    if (d->timeout <= 0) return false;
    if (++d->checks == 1) {
        d->start = shoal__now();
        return false;
    }
    /* Every 256th check while the wait spins; every check after that,
     * when each one follows a yield or a sleep of up to a millisecond. */
    if (d->checks < 1024 && (d->checks & 255) != 0) return false;
    return shoal__now() - d->start > d->timeout;
}

/* Wait for a non-blocking collective for at most the instance's timeout.
 * false: it did not complete (or failed); the request is abandoned. */
static bool shoal__wait_request(shoal_t sh, MPI_Request *req)
{
    shoal__deadline_t dl = {.timeout = sh->cfg.timeout};
    unsigned spins = 0;
    int done = 0;

    for (;;) {
        if (MPI_Test(req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return false;
        if (done) return true;
        if (shoal__expired(&dl)) return false;
        shoal__mpi_wait(sh, &spins);
    }
}

/* Why a PE gives up on a collective. */
enum {
    SHOAL__TO_WAITED, /* it waited SHOAL_TIMEOUT seconds */
    SHOAL__TO_LEADER, /* its node leader waited, then released the node with the failure */
    SHOAL__TO_LATE    /* a PE it needs had given up already (maybe waiting for it) */
};
/* A node leader releases its node with this verdict when other nodes'
 * leaders gave up before it got through: its PEs are late, not timed out. */
#define SHOAL__VERDICT_LATE (-1000)

/* Give up on the collective at gen: say so in my slot (late PEs then fail
 * too) and explain who is missing. The instance is broken from here. */
static int shoal__timeout_error(shoal_t sh, const char *call, int coll, uint64_t gen, int why)
{
    shoal__who_t *w;
    char what[700], head[128], said[64];
    int rc;

    sh->broken = true;
    /* Look at my node before saying I give up: the PEs that my giving up
     * releases then find the gone processes I found, and say the same. */
    w = shoal__who_local(sh, gen, coll);
    shoal__give_up(sh);
    if (w == NULL)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call, "timed out after %g s in %s", sh->cfg.timeout,
                            shoal__say(sh, shoal__coll_name(coll), said, sizeof(said)));
    shoal__who_say(sh, w, gen, coll, what, sizeof(what));
    if (why == SHOAL__TO_WAITED)
        snprintf(head, sizeof(head), "timed out after %g s in %s", sh->cfg.timeout,
                 shoal__say(sh, shoal__coll_name(coll), said, sizeof(said)));
    else if (why == SHOAL__TO_LEADER)
        snprintf(head, sizeof(head), "timed out after %g s in %s (the node leader, PE %d, gave up)", sh->cfg.timeout,
                 shoal__say(sh, shoal__coll_name(coll), said, sizeof(said)), sh->node_pes[0]);
    else
        snprintf(head, sizeof(head), "cannot complete %s: other PEs gave up on it",
                 shoal__say(sh, shoal__coll_name(coll), said, sizeof(said)));
    rc = shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                      "%s: %severy PE must make the same collective calls in the same order (is this one in a branch "
                      "only some PEs take? did a PE exit?)%s",
                      head, what, coll == SHOAL__COLL_FINALIZE ? "" : "; only shoal_finalize is possible now");
    return rc;
}

/* After a mismatch every PE is here: gather what each called and say it. */
static int shoal__mismatch_error(shoal_t sh, const char *call, int coll, uint64_t arg)
{
    uint64_t *all = malloc(2 * sizeof(*all) * ((size_t)sh->n_pes + 1));
    MPI_Request req;
    char msg[512], one[96];
    size_t n = 0;
    int shown = 0;

    if (all == NULL)
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                            "PEs entered different collectives or passed different arguments");
    all[0] = (uint64_t)coll;
    all[1] = arg;
    if (MPI_Iallgather(all, 2, MPI_UINT64_T, all + 2, 2, MPI_UINT64_T, sh->comm, &req) != MPI_SUCCESS) {
        free(all);
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                            "PEs entered different collectives or passed different arguments");
    }
    if (!shoal__wait_request(sh, &req)) {
        /* all stays MPI's until finalize. A PE gave up between the check and here. */
        shoal__abandon(sh, req, all);
        sh->broken = true;
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                            "PEs entered different collectives or passed different arguments (this PE: %s), and "
                            "some PE stopped answering; the instance can only be finalized now",
                            (shoal__call_str(sh, (uint64_t)coll, arg, one, sizeof(one)), one));
    }
    bool streams_differ = false, failed_there = false;
    for (int p = 1; p < sh->n_pes; p++)
        streams_differ |= SHOAL__COLL_STREAMS(all[2 + 2 * p]) != SHOAL__COLL_STREAMS(all[2]);
    for (int p = 0; p < sh->n_pes; p++) failed_there |= (all[2 + 2 * p] & SHOAL__COLL_FAILED) != 0;
    for (int p = 0; p < sh->n_pes && n < sizeof(msg); p++) {
        const uint64_t *e = all + 2 + 2 * p;
        /* Show PE 0 and every PE that differs from it, up to a screenful. */
        if (p > 0 && e[0] == all[2] && e[1] == all[3]) continue;
        if (shown++ == 12) {
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "; ...");
            break;
        }
        shoal__call_str(sh, e[0], e[1], one, sizeof(one));
        n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sPE %d: %s", p ? "; " : "", p, one);
        if (streams_differ && n < sizeof(msg))
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, " after %u shoal_barrier_all_on_stream",
                                  (unsigned)SHOAL__COLL_STREAMS(e[0]));
    }
    free(all);
    if (failed_there)
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                            "the call failed on some PE before the PEs met (%s; that PE's own error says why); "
                            "%s",
                            msg,
                            shoal__coll_allocates(coll) ? "nothing was allocated or freed" : "no PE went through it");
    return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                        "PEs disagree on a collective call (%s); every PE must make the same collective calls "
                        "with the same sizes, in the same order; %s",
                        msg, shoal__coll_allocates(coll) ? "nothing was allocated or freed" : "no PE went through it");
}

/* Leaders agree across nodes: is everybody in the same call with the same
 * argument? A non-blocking allreduce, polled so the wait can time out.
 * Minimum of (ok, coll, ~coll, arg, ~arg): all equal iff min(x) == ~min(~x).
 * Its buffers live in the instance's robustness state: a timed-out request keeps them. */
static int shoal__inter_node(shoal_t sh, const char *call, int coll, uint64_t arg, int *verdict_p,
                             shoal__deadline_t *dl)
{
    shoal__robust_t *sd = shoal__robust(sh);
    uint64_t local[10], *in = sd && sd->coll_buf ? sd->coll_buf : local, *out = in + 5;
    MPI_Request req;
    unsigned spins = 0, polls = 0;
    int rc = SHOAL_SUCCESS, done = 0;

    in[0] = *verdict_p ? 0 : 1;
    in[1] = (uint64_t)coll;
    in[2] = ~(uint64_t)coll;
    in[3] = arg;
    in[4] = ~arg;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Iallreduce(in, out, 5, MPI_UINT64_T, MPI_MIN, sh->leader_comm, &req));
    for (;;) {
        bool gave_up;
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Test(&req, &done, MPI_STATUS_IGNORE));
        if (done) break;
        /* Another leader gave up: found at the first look, before I came
         * (I am late); later, while I waited (its wait began earlier), and
         * waiting longer is pointless. */
        gave_up = (++polls & 63) == 0 && shoal__leader_gave_up(sh);
        if (gave_up || shoal__expired(dl)) {
            bool late = gave_up && polls == 64;
            /* The request cannot be cancelled: it keeps the buffers. */
            if (in != local) {
                shoal__abandon(sh, req, in);
                sd->coll_buf = NULL;
            }
            *verdict_p = late ? SHOAL__VERDICT_LATE : SHOAL_ERR_TIMEOUT;
            return shoal__timeout_error(sh, call, coll, sh->gen, late ? SHOAL__TO_LATE : SHOAL__TO_WAITED);
        }
        shoal__mpi_wait(sh, &spins);
    }
    /* Done, but maybe against a request some leader abandoned. */
    if (shoal__leader_gave_up(sh)) {
        *verdict_p = SHOAL__VERDICT_LATE;
        return shoal__timeout_error(sh, call, coll, sh->gen, SHOAL__TO_LATE);
    }
    if (out[0] == 0 || out[1] != ~out[2] || out[3] != ~out[4]) *verdict_p = SHOAL_ERR_NOT_SYMMETRIC;
out:
    return rc;
}

/* Release my node with the outcome of generation gen. */
static void shoal__release(shoal_t sh, uint64_t gen, int verdict)
{
    atomic_store_explicit(&sh->ctrl->verdict, verdict, memory_order_relaxed);
    atomic_store_explicit(&sh->ctrl->release, gen, memory_order_release);
    shoal__waitq_wake(sh, &sh->ctrl->release_q);
}

static int shoal__rendezvous_do(shoal_t sh, const char *call, int coll, uint64_t arg, bool again)
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
    /* Fold in the GPU stream barriers (22 bits: coll stays a positive int).
     * Not at finalize, which frees everything whatever streams still wait. */
    if (coll != SHOAL__COLL_FINALIZE) coll |= (int)((sh->stream_barriers & 0x3fffffu) << 8);
    gen = ++sh->gen;
    if (!again) sh->api_colls++; /* not calloc's second meeting, nor finalize's retries */
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_COLL, "%s: collective %llu (%s)", call, (unsigned long long)gen,
               shoal__coll_name(coll));
    me = &c->slot[sh->node_rank];
    atomic_store_explicit(&me->coll, (uint32_t)coll, memory_order_relaxed);
    atomic_store_explicit(&me->arg, arg, memory_order_relaxed);
    atomic_store_explicit(&me->calls, sh->api_colls, memory_order_relaxed);
    atomic_store_explicit(&me->arrived, gen, memory_order_release);

    if (sh->node_rank == 0) {
        for (int r = 1; r < sh->node_size; r++) {
            shoal__pe_slot_t *s = &c->slot[r];
            shoal__wait_for_t wf = {.word = &s->arrived, .gen = gen};
            uint64_t a;
            while ((a = atomic_load_explicit(&s->arrived, memory_order_acquire)) < gen) {
                if (shoal__expired(&dl)) break;
                shoal__node_wait(sh, &spins, &c->leader_q, &wf);
            }
            /* Gone for good (it gave up, maybe waiting for me), or too late. */
            if (a < gen || (a & SHOAL__GAVE_UP)) {
                rc = shoal__timeout_error(sh, call, coll, gen, a < gen ? SHOAL__TO_WAITED : SHOAL__TO_LATE);
                shoal__release(sh, gen, rc);
                return rc;
            }
            if (atomic_load_explicit(&s->coll, memory_order_relaxed) != (uint32_t)coll ||
                atomic_load_explicit(&s->arg, memory_order_relaxed) != arg)
                verdict = SHOAL_ERR_NOT_SYMMETRIC;
        }
        if (sh->n_nodes > 1) {
            rc = shoal__inter_node(sh, call, coll, arg, &verdict, &dl);
            if (rc != SHOAL_SUCCESS) {
                sh->broken = true;
                /* Release the node with the failure so nobody waits forever
                 * (SHOAL__VERDICT_LATE: other nodes gave up before us). */
                shoal__release(sh, gen, verdict == SHOAL__VERDICT_LATE ? verdict : rc);
                return rc;
            }
        }
        shoal__release(sh, gen, verdict);
    } else {
        /* A little longer than the leader, so that a leader that is here
         * decides, and its node agrees. */
        /* A leader that gave up before I even arrived: I am late. */
        shoal__wait_for_t wf = {.word = &c->release, .abort = &c->slot[0].arrived, .gen = gen};
        bool waited = false;
        dl.timeout += dl.timeout < 4 ? dl.timeout / 4 : 1;
        shoal__waitq_wake(sh, &c->leader_q);
        while (atomic_load_explicit(&c->release, memory_order_acquire) < gen) {
            uint64_t lead;
            if (shoal__expired(&dl)) return shoal__timeout_error(sh, call, coll, gen, SHOAL__TO_WAITED);
            lead = atomic_load_explicit(&c->slot[0].arrived, memory_order_relaxed);
            /* Gave up on an earlier collective: it will not release this
             * one. On this one: its release, with the verdict, follows. */
            if ((lead & SHOAL__GAVE_UP) && (lead & ~SHOAL__GAVE_UP) < gen)
                return shoal__timeout_error(sh, call, coll, gen, SHOAL__TO_LATE);
            if (lead & SHOAL__GAVE_UP)
                shoal__wait_pause(&spins);
            else
                shoal__node_wait(sh, &spins, &c->release_q, &wf);
            waited = true;
        }
        verdict = atomic_load_explicit(&c->verdict, memory_order_relaxed);
        if (verdict == SHOAL_ERR_TIMEOUT || verdict == SHOAL__VERDICT_LATE)
            return shoal__timeout_error(sh, call, coll, gen,
                                        waited && verdict == SHOAL_ERR_TIMEOUT ? SHOAL__TO_LEADER : SHOAL__TO_LATE);
    }
    if (verdict == SHOAL_ERR_NOT_SYMMETRIC) return shoal__mismatch_error(sh, call, coll, arg);
    if (verdict != SHOAL_SUCCESS) {
        char said[64];
        sh->broken = true;
        shoal__give_up(sh);
        return shoal__error(sh, verdict, call, "the node leader (PE %d) failed in %s: %s", sh->node_pes[0],
                            shoal__say(sh, shoal__coll_name(coll), said, sizeof(said)), shoal_strerror(verdict));
    }
    return SHOAL_SUCCESS;
}

int shoal__rendezvous(shoal_t sh, const char *call, int coll, uint64_t arg)
{
    shoal__robust_t *sd;
    bool held = false, again = sh->coll_again; /* this call met before: not counted again */
    int rc;

    sh->coll_again = false;
    if (SHOAL__LIKELY(sh->cfg.check != SHOAL_CHECK_FULL) || (sd = shoal__robust(sh)) == NULL)
        return shoal__rendezvous_do(sh, call, coll, arg, again);
    rc = shoal__thread_enter(sh, sd, call, true, &held);
    if (rc != SHOAL_SUCCESS) return rc;
    rc = shoal__rendezvous_do(sh, call, coll, arg, again);
    shoal__thread_leave(sd, true, held);
    return rc;
}

int shoal__barrier_all(shoal_t sh) { return shoal__barrier_as(sh, "shoal_barrier_all", SHOAL__COLL_BARRIER_ALL); }

int shoal__coll_failed_here(shoal_t sh, const char *call, int coll, uint64_t arg, int status)
{
    char saved[sizeof(sh->err)];
    int rc;

    /* A thread that may not be here now must not meet either. */
    if (status == SHOAL_ERR_THREAD) return status;
    snprintf(saved, sizeof(saved), "%s", shoal_last_error(sh));
    rc = shoal__rendezvous(sh, call, coll | SHOAL__COLL_FAILED, arg);
    if (rc == SHOAL_ERR_TIMEOUT || sh->broken) {
        /* The meeting failed too: say so, it decides what is possible now. */
        char then[sizeof(sh->err)];
        snprintf(then, sizeof(then), "%s", shoal_last_error(sh));
        return shoal__error(sh, status, NULL, "%.500s; then, meeting the other PEs: %.500s", saved, then);
    }
    return shoal__error(sh, status, NULL, "%s", saved);
}

/* The host barrier, published as collective coll of API call call: a PE in
 * shoal_barrier_all and one in the host path of shoal_barrier_all_on_stream
 * do not pass each other's barrier, they get the mismatch. */
int shoal__barrier_as(shoal_t sh, const char *call, int coll)
{
    int rc;

    rc = shoal__quiet(sh, call);
    if (rc != SHOAL_SUCCESS) return shoal__coll_failed_here(sh, call, coll, 0, rc);
    rc = shoal__rendezvous(sh, call, coll, 0);
    if (rc != SHOAL_SUCCESS) return rc;
    /* What peers wrote into this heap (MPI RMA, say) becomes visible to its
     * loads. */
    return shoal__transports_sync(sh, call);
}
