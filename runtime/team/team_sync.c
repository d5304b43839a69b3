/* How a team's members meet: each publishes what it entered (kind and two
 * arguments) in its slot of the node's control window; the lowest member of
 * each node (its leader) waits for the others of the node and compares;
 * leaders of a team that spans nodes agree through one non-blocking
 * allreduce on the team's leader communicator; then each leader releases
 * its node's members with the verdict. Every wait is bounded by
 * SHOAL_TIMEOUT; a mismatch is explained by gathering every member's call.
 * A meeting that fails midway leaves the team broken (its members out of
 * step): later collectives on it fail at once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "team/shoal_reduce.h"
#include "ops/shoal_rma.h"
#include "team/shoal_team.h"
#include "transport/transport.h"

static const char *const shoal__tc_names[SHOAL__TC_COUNT] = {
#define SHOAL__TC_NAME(name, str) [SHOAL__TC_##name] = str,
    SHOAL__TC_MAP(SHOAL__TC_NAME)
#undef SHOAL__TC_NAME
};

void shoal__team_call_str(shoal_t sh, uint32_t kind, uint64_t a, uint64_t b, char *buf, size_t len)
{
    char raw[96], said[128];
    int tc = (int)(kind & 0xffu), dt = (int)((kind >> 8) & 0xffu), op = (int)((kind >> 16) & 0xffu);
    const char *sfx = (kind & SHOAL__TC_STREAM) ? "_on_stream" : "";
    const char *name = tc < SHOAL__TC_COUNT ? shoal__tc_names[tc] : "?";
    char fn[96];
    unsigned long long ua = (unsigned long long)a;

    if (dt == SHOAL__DT_MEM)
        snprintf(raw, sizeof(raw), "shoal_%smem%s", name, sfx);
    else if (tc == SHOAL__TC_REDUCE || tc == SHOAL__TC_REDUCESCATTER)
        snprintf(raw, sizeof(raw), "shoal_%s_%s_%s%s", shoal__dt_name(dt), shoal__op_name(op), name, sfx);
    else
        snprintf(raw, sizeof(raw), "shoal_%s_%s%s", shoal__dt_name(dt), name, sfx);
    snprintf(fn, sizeof(fn), "%s", shoal__say(sh, raw, said, sizeof(said)));
    switch (tc) {
    case SHOAL__TC_SYNC:
    case SHOAL__TC_BARRIER:
    case SHOAL__TC_DESTROY:
    case SHOAL__TC_BARRIER_STREAM: snprintf(buf, len, "%s%s", name, sfx); break;
    case SHOAL__TC_BCAST: /* op 1: the root's dest is not written (OpenSHMEM's active-set broadcast) */
        snprintf(buf, len, "%s(nelems %llu, root %llu%s)", fn, ua, (unsigned long long)b,
                 op == 1 ? ", root's dest kept" : "");
        break;
    case SHOAL__TC_COLLECT:
    case SHOAL__TC_COUNTS: snprintf(buf, len, "%s", fn); break;
    case SHOAL__TC_ALLTOALLS:
        snprintf(buf, len, "%s(nelems %llu, dst %d, sst %d)", fn, ua, (int)(int32_t)(b >> 32), (int)(int32_t)b);
        break;
    case SHOAL__TC_REDUCE:
    case SHOAL__TC_REDUCESCATTER: snprintf(buf, len, "%s(nreduce %llu)", fn, ua); break;
    default: snprintf(buf, len, "%s(nelems %llu)", fn, ua); break;
    }
    if (kind & SHOAL__TC_IN_PLACE) {
        size_t n = strlen(buf);
        if (n < len) snprintf(buf + n, len - n, " in place");
    }
    if (kind & SHOAL__TC_FAILED) {
        size_t n = strlen(buf);
        if (n < len) snprintf(buf + n, len - n, ", failed on this PE before the members met");
    }
}

/* A wait's deadline: SHOAL_TIMEOUT (times scale), looked at every 256 polls. */
typedef struct shoal__team_deadline {
    double start, limit;
    unsigned polls;
} shoal__team_deadline_t;

static void shoal__deadline_init(shoal__team_deadline_t *d, shoal_t sh, double scale)
{
    d->start = shoal__now();
    d->limit = sh->cfg.timeout * scale;
    d->polls = 0;
}

static bool shoal__deadline_passed(shoal__team_deadline_t *d)
{
    if (d->limit <= 0 || (++d->polls & 255u) != 0) return false;
    return shoal__now() - d->start > d->limit;
}

/* "PE 4 (team PE 2)", and whether its process is gone. */
static size_t shoal__say_member(shoal_team_t t, int i, char *buf, size_t len)
{
    return (size_t)snprintf(buf, len, "PE %d (team PE %d%s)", t->pes[i], i,
                            shoal__pe_gone(t->sh, t->pes[i]) ? ", its process is gone" : "");
}

/* Why a meeting failed: this PE waited its time, its node leader gave
 * up, or this PE came after the others had given up on the meeting. */
enum { SHOAL__TEAM_TO_WAITED, SHOAL__TEAM_TO_LEADER, SHOAL__TEAM_TO_LATE };

/* Give up on meeting gen: the members out of step from here. */
static int shoal__team_timeout(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b, uint64_t gen,
                               int why)
{
    shoal_t sh = t->sh;
    char what[96], who[512];
    size_t n = 0;
    int shown = 0;

    t->broken = true;
    atomic_fetch_or_explicit(&shoal__team_slot(sh, t->id, sh->node_rank)->arrived, SHOAL__GAVE_UP,
                             memory_order_release);
    shoal__team_call_str(sh, kind, a, b, what, sizeof(what));
    if (why == SHOAL__TEAM_TO_LATE)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "cannot complete %s on a team of %d PEs: the other members gave up on it (after %g s) "
                            "before this PE came; every member must make the same collective calls on the team in "
                            "the same order; the team can only be destroyed now",
                            what, t->n_pes, sh->cfg.timeout);
    who[0] = 0;
    for (int k = 0; k < t->n_local && n < sizeof(who) - 64; k++) {
        uint64_t got = atomic_load_explicit(&shoal__team_slot(sh, t->id, t->local[k])->arrived, memory_order_acquire);
        if ((got & ~SHOAL__GAVE_UP) >= gen) continue;
        if (shown++ == 8) {
            n += (size_t)snprintf(who + n, sizeof(who) - n, ", ...");
            break;
        }
        n += (size_t)snprintf(who + n, sizeof(who) - n, "%s", shown > 1 ? ", " : "");
        n += shoal__say_member(t, t->local_team[k], who + n, sizeof(who) - n);
    }
    if (n == 0 && t->n_nodes > 1)
        snprintf(who, sizeof(who), "members on the team's other %d node%s", t->n_nodes - 1, t->n_nodes > 2 ? "s" : "");
    else if (n == 0)
        snprintf(who, sizeof(who), "the members' node leader, PE %d, which gave up", t->pes[t->local_team[0]]);
    return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                        "timed out after %g s in %s on a team of %d PEs%s: still waiting for %s; every member must "
                        "make the same collective calls on the team in the same order; the team can only be "
                        "destroyed now",
                        sh->cfg.timeout, what, t->n_pes,
                        why == SHOAL__TEAM_TO_LEADER ? " (the node leader gave up)" : "", who);
}

/* After a mismatch every member is here: gather what each called, say it. */
static int shoal__team_mismatch(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b)
{
    shoal_t sh = t->sh;
    uint64_t *all = malloc(3 * sizeof(uint64_t) * ((size_t)t->n_pes + 1));
    MPI_Request req;
    char msg[640], one[128];
    size_t n = 0;
    int shown = 0;
    bool failed = false;

    if (all == NULL)
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call, "the team's members made different collective calls");
    all[0] = kind;
    all[1] = a;
    all[2] = b;
    if (MPI_Iallgather(all, 3, MPI_UINT64_T, all + 3, 3, MPI_UINT64_T, t->comm, &req) != MPI_SUCCESS) {
        free(all);
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call, "the team's members made different collective calls");
    }
    if (shoal__wait_mpi(sh, &req, all) != SHOAL_SUCCESS) {
        t->broken = true;
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                            "the team's members made different collective calls, and some member stopped "
                            "answering; the team can only be destroyed now");
    }
    for (int i = 0; i < t->n_pes; i++) failed |= (all[3 + 3 * i] & SHOAL__TC_FAILED) != 0;
    for (int i = 0; i < t->n_pes && n < sizeof(msg) - 1; i++) {
        const uint64_t *e = all + 3 + 3 * i;
        if (i > 0 && e[0] == all[3] && e[1] == all[4] && e[2] == all[5]) continue;
        if (shown++ == 8) {
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "; ...");
            break;
        }
        shoal__team_call_str(sh, (uint32_t)e[0], e[1], e[2], one, sizeof(one));
        n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sPE %d (team PE %d): %s", i ? "; " : "", t->pes[i], i, one);
    }
    free(all);
    if (failed)
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                            "the call failed on a member before the members met (%s; that PE's own error says "
                            "why); the call did not complete on any member (what it moved before is undefined)",
                            msg);
    return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                        "the team's %d members disagree on a collective call (%s); every member must make the "
                        "same collective calls on the team, with the same counts, root, type and operator, in the "
                        "same order; dest is undefined",
                        t->n_pes, msg);
}

/* A node leader that gives up on a meeting says so to the team's other
 * leaders, in a note on the leaders' communicator: a leader arriving later
 * would otherwise complete the allreduce this one abandoned and release its
 * node into a meeting nobody else finished. Leaders look for notes while
 * they wait and once the allreduce is done. */
#define SHOAL__TAG_TEAM_GAVE_UP 0x5f1

static void shoal__team_announce(shoal_team_t t)
{
    int me, n;

    if (t->leader == MPI_COMM_NULL || MPI_Comm_rank(t->leader, &me) != MPI_SUCCESS ||
        MPI_Comm_size(t->leader, &n) != MPI_SUCCESS)
        return;
    for (int k = 0; k < n; k++) {
        uint64_t *note;
        MPI_Request req;
        if (k == me || (note = malloc(sizeof(*note))) == NULL) continue;
        *note = t->gen;
        if (MPI_Isend(note, 1, MPI_UINT64_T, k, SHOAL__TAG_TEAM_GAVE_UP, t->leader, &req) == MPI_SUCCESS)
            shoal__abandon(t->sh, req, note); /* MPI keeps the note until it is received or the team goes */
        else
            free(note);
    }
}

/* Has another leader of the team given up (its note is here)? */
static bool shoal__team_noted(shoal_team_t t)
{
    MPI_Status st;
    uint64_t gen;
    int flag = 0;

    if (t->leader == MPI_COMM_NULL ||
        MPI_Iprobe(MPI_ANY_SOURCE, SHOAL__TAG_TEAM_GAVE_UP, t->leader, &flag, &st) != MPI_SUCCESS || !flag)
        return false;
    MPI_Recv(&gen, 1, MPI_UINT64_T, st.MPI_SOURCE, SHOAL__TAG_TEAM_GAVE_UP, t->leader, MPI_STATUS_IGNORE);
    return true;
}

/* Node leaders of the team agree across nodes (min of each value and of
 * its complement: all equal iff min(x) == ~min(~x)). */
static int shoal__team_leaders(shoal_team_t t, uint32_t kind, uint64_t a, uint64_t b, int verdict)
{
    shoal_t sh = t->sh;
    uint64_t *in = malloc(14 * sizeof(uint64_t)), *out;
    shoal__team_deadline_t d;
    MPI_Request req;

    if (in == NULL) return SHOAL_ERR_NO_MEMORY;
    out = in + 7;
    in[0] = verdict == SHOAL_SUCCESS ? 1 : 0;
    in[1] = kind;
    in[2] = ~(uint64_t)kind;
    in[3] = a;
    in[4] = ~a;
    in[5] = b;
    in[6] = ~b;
    if (MPI_Iallreduce(in, out, 7, MPI_UINT64_T, MPI_MIN, t->leader, &req) != MPI_SUCCESS) {
        free(in);
        return SHOAL_ERR_MPI;
    }
    shoal__deadline_init(&d, sh, 1.0);
    for (unsigned spins = 0, polls = 0;;) {
        int done = 0;
        if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return SHOAL_ERR_MPI;
        if (done) break;
        /* another leader gave up: waiting longer is pointless */
        if (((++polls & 63) == 0 && shoal__team_noted(t)) || shoal__deadline_passed(&d)) {
            shoal__abandon(sh, req, in);
            shoal__team_announce(t);
            return SHOAL_ERR_TIMEOUT;
        }
        shoal__wait_pause(&spins);
    }
    /* done, but maybe against a request some leader abandoned */
    if (shoal__team_noted(t)) {
        free(in);
        return SHOAL_ERR_TIMEOUT;
    }
    verdict = out[0] == 0 || out[1] != ~out[2] || out[3] != ~out[4] || out[5] != ~out[6] ? SHOAL_ERR_NOT_SYMMETRIC
                                                                                         : SHOAL_SUCCESS;
    free(in);
    return verdict;
}

/* The leader's release word: the last generation released, or that
 * generation with SHOAL__GAVE_UP where a member gave up on it before the
 * release. One compare-and-swap decides which came first, so a meeting ends
 * the same way for every member of the node. */
#define SHOAL__RELEASED(r) ((r) & ~SHOAL__GAVE_UP)

int shoal__team_meet(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b)
{
    shoal_t sh = t->sh;
    shoal__team_slot_t *me, *lead;
    shoal__team_deadline_t d;
    unsigned spins = 0;
    uint64_t gen, rel;
    int verdict = SHOAL_SUCCESS;
    bool late = false; /* members had given up on this meeting before this PE came */

    if (t->broken || sh->broken)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "an earlier collective on this %s failed midway, so its members are out of step; "
                            "only %s is possible",
                            t->broken ? "team" : "instance", t->broken ? "shoal_team_destroy" : "shoal_finalize");
    if (t->n_pes == 1) return (kind & SHOAL__TC_FAILED) ? SHOAL_ERR_NOT_SYMMETRIC : SHOAL_SUCCESS;
    gen = ++t->gen;
    me = shoal__team_slot(sh, t->id, sh->node_rank);
    lead = shoal__team_slot(sh, t->id, t->local[0]);
    me->kind = kind;
    me->a = a;
    me->b = b;
    atomic_store_explicit(&me->arrived, gen, memory_order_release);
    if (me == lead) {
        uint64_t expect = gen - 1;
        shoal__deadline_init(&d, sh, 1.0);
        for (int k = 1; k < t->n_local && verdict != SHOAL_ERR_TIMEOUT; k++) {
            shoal__team_slot_t *s = shoal__team_slot(sh, t->id, t->local[k]);
            uint64_t got;
            while ((got = atomic_load_explicit(&s->arrived, memory_order_acquire)) < gen) {
                if (shoal__deadline_passed(&d)) break;
                shoal__wait_progress(sh, &spins);
            }
            if (got < gen || (got & SHOAL__GAVE_UP)) {
                late = got >= gen; /* it came, waited for this leader, and gave up */
                verdict = SHOAL_ERR_TIMEOUT;
            } else if (s->kind != kind || s->a != a || s->b != b)
                verdict = SHOAL_ERR_NOT_SYMMETRIC;
        }
        if (verdict != SHOAL_ERR_TIMEOUT && t->n_nodes > 1) verdict = shoal__team_leaders(t, kind, a, b, verdict);
        atomic_store_explicit(&lead->verdict, verdict, memory_order_relaxed);
        /* Release, unless a member of the node gave up first. */
        if (!atomic_compare_exchange_strong_explicit(&lead->release, &expect, gen, memory_order_acq_rel,
                                                     memory_order_acquire)) {
            late = true;
            verdict = SHOAL_ERR_TIMEOUT;
        }
        if (verdict == SHOAL_ERR_TIMEOUT) {
            if (t->n_nodes > 1 && late) shoal__team_announce(t);
            return shoal__team_timeout(t, call, kind, a, b, gen, late ? SHOAL__TEAM_TO_LATE : SHOAL__TEAM_TO_WAITED);
        }
        if (verdict == SHOAL_ERR_MPI || verdict == SHOAL_ERR_NO_MEMORY) {
            t->broken = true;
            return shoal__error(sh, verdict, call, "the node leaders could not agree through MPI");
        }
    } else {
        /* The leader's own wait, and, across nodes, the leaders'
         * agreement: a member waits for both, and a little longer. */
        shoal__deadline_init(&d, sh, t->n_nodes > 1 ? 2.25 : 1.25);
        /* Released at the first look with a timeout: the leader had given
         * up waiting before this PE came. */
        late = SHOAL__RELEASED(atomic_load_explicit(&lead->release, memory_order_acquire)) >= gen;
        while (SHOAL__RELEASED(rel = atomic_load_explicit(&lead->release, memory_order_acquire)) < gen) {
            if (shoal__deadline_passed(&d)) {
                uint64_t expect = gen - 1;
                /* Give up, unless the release came first. */
                if (atomic_compare_exchange_strong_explicit(&lead->release, &expect, gen | SHOAL__GAVE_UP,
                                                            memory_order_acq_rel, memory_order_acquire))
                    return shoal__team_timeout(t, call, kind, a, b, gen, SHOAL__TEAM_TO_WAITED);
                rel = expect;
                break;
            }
            shoal__wait_progress(sh, &spins);
        }
        verdict = atomic_load_explicit(&lead->verdict, memory_order_relaxed);
        if (rel & SHOAL__GAVE_UP) verdict = SHOAL_ERR_TIMEOUT; /* another member gave up on it */
        if (verdict == SHOAL_ERR_TIMEOUT)
            return shoal__team_timeout(t, call, kind, a, b, gen, late ? SHOAL__TEAM_TO_LATE : SHOAL__TEAM_TO_LEADER);
        if (verdict != SHOAL_SUCCESS && verdict != SHOAL_ERR_NOT_SYMMETRIC) {
            t->broken = true;
            return shoal__error(sh, verdict, call, "the members' node leader (PE %d) failed: %s",
                                t->pes[t->local_team[0]], shoal_strerror(verdict));
        }
    }
    if (verdict == SHOAL_ERR_NOT_SYMMETRIC || (kind & SHOAL__TC_FAILED))
        return shoal__team_mismatch(t, call, kind, a, b);
    return SHOAL_SUCCESS;
}

int shoal__team_barrier(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b)
{
    shoal_t sh = t->sh;
    int rc = shoal__quiet(sh, call);

    if (rc != SHOAL_SUCCESS) {
        /* Meet all the same, marked failed: the others learn it at once. */
        char saved[sizeof(sh->err)];
        snprintf(saved, sizeof(saved), "%s", shoal_last_error(sh));
        shoal__team_meet(t, call, kind | SHOAL__TC_FAILED, a, b);
        return shoal__error(sh, rc, NULL, "%s", saved);
    }
    rc = shoal__team_meet(t, call, kind, a, b);
    if (rc != SHOAL_SUCCESS) return rc;
    return shoal__transports_sync(sh, call);
}

int shoal__team_counts(shoal_team_t t, const char *call, uint32_t kind, uint64_t mine, uint64_t *counts)
{
    shoal_t sh = t->sh;
    uint64_t *buf;
    MPI_Request req;
    int rc;

    if (t->n_pes == 1) {
        rc = shoal__team_meet(t, call, kind, 0, 0);
        counts[0] = mine;
        return rc;
    }
    if (t->n_nodes == 1) {
        /* One node: the counts travel in the members' slots with the
         * meeting (written before arriving, read after the release). The
         * collect meets again before any member can write its next count,
         * and no member leaves that meeting before every member arrived
         * in it, done reading these. */
        shoal__team_slot(sh, t->id, sh->node_rank)->count = mine;
        rc = shoal__team_meet(t, call, kind, 0, 0);
        if (rc != SHOAL_SUCCESS) return rc;
        for (int k = 0; k < t->n_local; k++) counts[t->local_team[k]] = shoal__team_slot(sh, t->id, t->local[k])->count;
        return SHOAL_SUCCESS;
    }
    /* Meet first: the members are all in this call, so the gather completes. */
    rc = shoal__team_meet(t, call, kind, 0, 0);
    if (rc != SHOAL_SUCCESS) return rc;
    buf = malloc(((size_t)t->n_pes + 1) * sizeof(uint64_t));
    if (buf == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    buf[t->n_pes] = mine;
    rc = MPI_Iallgather(buf + t->n_pes, 1, MPI_UINT64_T, buf, 1, MPI_UINT64_T, t->comm, &req);
    if (rc != MPI_SUCCESS) {
        free(buf);
        t->broken = true;
        return shoal__mpi_error(sh, call, "MPI_Iallgather", rc);
    }
    if (shoal__wait_mpi(sh, &req, buf) != SHOAL_SUCCESS) {
        t->broken = true;
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "timed out after %g s gathering the members' counts; the team can only be destroyed now",
                            sh->cfg.timeout);
    }
    memcpy(counts, buf, (size_t)t->n_pes * sizeof(uint64_t));
    free(buf);
    return SHOAL_SUCCESS;
}
