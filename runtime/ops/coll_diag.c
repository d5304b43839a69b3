/* What collective messages say: which PEs a timed-out rendezvous misses
 * and what the others are in (this node's control block, other nodes' read
 * through MPI RMA), each PE's call by its number since shoal_init, and the
 * names of the collectives. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/coll_diag.h"
#include "base/shoal_instance.h"
#include "ops/shoal_coll.h"

static const char *const shoal__coll_names[] = {
#define SHOAL__COLL_STR(name, str) str,
    SHOAL__COLL_MAP(SHOAL__COLL_STR)
#undef SHOAL__COLL_STR
};

const char *shoal__coll_name(int coll)
{
    coll = SHOAL__COLL_KIND(coll);
    if (coll == SHOAL__COLL_CALLOC || coll == SHOAL__COLL_CALLOC_BAD) return "shoal_calloc";
    if (coll >= SHOAL__COLL_ALIGN_BASE && coll <= SHOAL__COLL_ALIGN_BAD) return "shoal_align";
    if (coll < 0 || coll >= SHOAL__COLL_COUNT) return "an unknown call";
    return shoal__coll_names[coll];
}

/* ---------------------------------------------------------------- messages */

/* A comma-separated list that stops, with "...", when its buffer is full. */
typedef struct shoal__list {
    char buf[640];
    size_t len;
    int count;
    bool full;
} shoal__list_t;

__attribute__((format(printf, 2, 3))) static void shoal__list_add(shoal__list_t *l, const char *fmt, ...)
{
    char item[160];
    va_list ap;
    int n;

    l->count++;
    if (l->full) return;
    va_start(ap, fmt);
    n = vsnprintf(item, sizeof(item), fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (l->len + (size_t)n + 8 >= sizeof(l->buf)) {
        l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s...", l->len ? ", " : "");
        l->full = true;
        return;
    }
    l->len += (size_t)snprintf(l->buf + l->len, sizeof(l->buf) - l->len, "%s%s", l->len ? ", " : "", item);
}

/* What the rendezvous at generation gen learned about its PEs. */
typedef struct shoal__who {
    shoal__list_t missing; /* never arrived */
    shoal__list_t other;   /* arrived in another collective */
    shoal__list_t gave_up; /* arrived, then gave up (timed out) */
} shoal__who_t;

/* "1st", "2nd", "3rd", "11th", "12th", "23rd": a PE's collectives are
 * numbered from 1 at shoal_init, so that an extra or a missing one shows. */
static const char *shoal__ordinal(uint64_t n, char buf[32])
{
    static const char *const sfx[] = {"th", "st", "nd", "rd"};
    unsigned last = (unsigned)(n % 10), tens = (unsigned)(n % 100 / 10);
    snprintf(buf, 32, "%llu%s", (unsigned long long)n, tens == 1 || last > 3 ? "th" : sfx[last]);
    return buf;
}

/* File PE pe, whose slot holds (arrived, coll, calls), into who. Meetings
 * are compared by generation; calls number the API calls as the program
 * made them (a call that meets twice counts once). */
static void shoal__who_add(shoal_t sh, shoal__who_t *w, int pe, uint64_t arrived, uint32_t coll, uint64_t calls,
                           uint64_t gen, int my_coll)
{
    char node[32] = "", its[32], mine[32];

    if (sh->n_nodes > 1) snprintf(node, sizeof(node), "node %d, ", sh->pe_node[pe]);
    shoal__ordinal(calls, its);
    shoal__ordinal(sh->api_colls, mine);
    if (arrived & SHOAL__GAVE_UP) {
        shoal__list_add(&w->gave_up, "PE %d (%sin its %s collective, %s)", pe, node, its, shoal__coll_name((int)coll));
        return;
    }
    if (arrived >= gen) {
        if (SHOAL__COLL_KIND(coll) != SHOAL__COLL_KIND(my_coll))
            shoal__list_add(&w->other, "PE %d (%sin its %s collective, %s, while this PE is in its %s, %s)", pe, node,
                            its, shoal__coll_name((int)coll), mine, shoal__coll_name(my_coll));
        return;
    }
    if (shoal__pe_gone(sh, pe)) {
        /* Tell the rest of the node, so that every PE of it reports the same. */
        if (sh->pe_node[pe] == sh->node_id)
            atomic_store_explicit(&sh->ctrl->slot[sh->pe_node_rank[pe]].gone, 1, memory_order_release);
        shoal__list_add(&w->missing, "PE %d (%sits process %d has exited or was killed)", pe, node,
                        shoal__robust(sh)->pe_pid[pe]);
    } else if (arrived == 0) {
        shoal__list_add(&w->missing,
                        "PE %d (%snot in a collective of this instance; none since shoal_init, while "
                        "this PE is in its %s)",
                        pe, node, mine);
    } else {
        shoal__list_add(&w->missing,
                        "PE %d (%snot in a collective of this instance; the last it entered was its %s, "
                        "%s, while this PE is in its %s)",
                        pe, node, its, shoal__coll_name((int)coll), mine);
    }
}

/* The PEs of my node, from the control block in shared memory. */
static void shoal__who_local_fill(shoal_t sh, shoal__who_t *w, uint64_t gen, int coll)
{
    for (int r = 0; r < sh->node_size; r++) {
        shoal__pe_slot_t *s = &sh->ctrl->slot[r];
        uint64_t a = atomic_load_explicit(&s->arrived, memory_order_acquire);
        if (sh->node_pes[r] == sh->my_pe) continue;
        shoal__who_add(sh, w, sh->node_pes[r], a, atomic_load_explicit(&s->coll, memory_order_relaxed),
                       atomic_load_explicit(&s->calls, memory_order_relaxed), gen, coll);
    }
}

/* "PEs 2-3, 6" for the PEs of node k. */
static void shoal__node_pes_str(shoal_t sh, int k, char *buf, size_t len)
{
    size_t n = 0;
    int first = -1, count = 0;

    buf[0] = '\0';
    for (int p = 0; p <= sh->n_pes && n < len; p++) {
        bool in = p < sh->n_pes && sh->pe_node[p] == k;
        if (in && first < 0) first = p;
        if (!in && first >= 0) {
            n += (size_t)snprintf(buf + n, len - n, "%s%d", count ? ", " : "", first);
            if (p - 1 > first) n += (size_t)snprintf(buf + n, len - n, "-%d", p - 1);
            count++;
            first = -1;
        }
    }
}

/* The PEs of the other nodes: each node's control block, read from its
 * leader through the diagnostic window, all at once and for at most a
 * second (a leader that is gone may never answer). */
static void shoal__who_remote(shoal_t sh, shoal__who_t *w, uint64_t gen, int coll)
{
    shoal__robust_t *sd = shoal__robust(sh);
    size_t slot0 = offsetof(shoal__node_ctrl_t, slot);
    int n_nodes = sh->n_nodes, pending = 0;
    MPI_Request *req;
    char **buf;
    int *leader, *size;
    double end;

    if (sd == NULL || sd->diag_win == MPI_WIN_NULL) return;
    req = calloc((size_t)n_nodes, sizeof(*req));
    buf = calloc((size_t)n_nodes, sizeof(*buf));
    leader = calloc((size_t)n_nodes, sizeof(*leader));
    size = calloc((size_t)n_nodes, sizeof(*size));
    if (!req || !buf || !leader || !size) goto out;
    for (int p = sh->n_pes - 1; p >= 0; p--) {
        leader[sh->pe_node[p]] = p; /* the lowest PE of a node leads it */
        size[sh->pe_node[p]]++;
    }
    for (int k = 0; k < n_nodes; k++) {
        size_t bytes = slot0 + (size_t)size[k] * sizeof(shoal__pe_slot_t);
        req[k] = MPI_REQUEST_NULL;
        if (k == sh->node_id) continue;
        buf[k] = malloc(bytes);
        if (buf[k] == NULL || MPI_Rget(buf[k], (int)bytes, MPI_BYTE, leader[k], 0, (int)bytes, MPI_BYTE, sd->diag_win,
                                       &req[k]) != MPI_SUCCESS) {
            free(buf[k]);
            buf[k] = NULL;
            req[k] = MPI_REQUEST_NULL;
            continue;
        }
        pending++;
    }
    end = shoal__now() + (sh->cfg.timeout > 0 && sh->cfg.timeout < 1 ? sh->cfg.timeout : 1.0);
    while (pending > 0 && shoal__now() < end) {
        for (int k = 0; k < n_nodes; k++) {
            int done = 0;
            if (req[k] == MPI_REQUEST_NULL) continue;
            if (MPI_Test(&req[k], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                req[k] = MPI_REQUEST_NULL; /* failed: the buffer stays MPI's */
                buf[k] = NULL;
                pending--;
            } else if (done) {
                pending--;
            }
        }
        if (pending > 0) sched_yield();
    }
    for (int k = 0; k < n_nodes; k++) {
        char pes[96];
        if (k == sh->node_id) continue;
        if (buf[k] == NULL || req[k] != MPI_REQUEST_NULL) {
            /* No answer: MPI may still write the buffer, so it is left to it. */
            shoal__node_pes_str(sh, k, pes, sizeof(pes));
            if (shoal__pe_gone(sh, leader[k]))
                shoal__list_add(&w->missing,
                                "PE %d (node %d, its process %d has exited or was killed; the state of "
                                "PEs %s is unknown)",
                                leader[k], k, shoal__robust(sh)->pe_pid[leader[k]], pes);
            else
                shoal__list_add(&w->missing, "PEs %s (node %d; its leader PE %d did not answer)", pes, k, leader[k]);
            buf[k] = NULL;
            continue;
        }
        for (int p = 0; p < sh->n_pes; p++) {
            shoal__pe_slot_t *s;
            if (sh->pe_node[p] != k) continue;
            s = (shoal__pe_slot_t *)(buf[k] + slot0) + sh->pe_node_rank[p];
            shoal__who_add(sh, w, p, atomic_load_explicit(&s->arrived, memory_order_relaxed),
                           atomic_load_explicit(&s->coll, memory_order_relaxed),
                           atomic_load_explicit(&s->calls, memory_order_relaxed), gen, coll);
        }
        free(buf[k]);
    }
out:
    free(req);
    free(buf);
    free(leader);
    free(size);
}

/* "shoal_malloc(1024 bytes)": a PE's call and argument, for mismatch messages. */
/* Does collective coll allocate or free heap memory? */
bool shoal__coll_allocates(int coll)
{
    coll = SHOAL__COLL_KIND(coll);
    return coll == SHOAL__COLL_MALLOC || coll == SHOAL__COLL_FREE || coll >= SHOAL__COLL_COUNT;
}

static void shoal__call_str_kind(uint64_t coll, uint64_t arg, char *buf, size_t len);

/* The call (named as sh's API layer names it), and whether it failed on
 * that PE before the meeting. */
void shoal__call_str(shoal_t sh, uint64_t coll, uint64_t arg, char *buf, size_t len)
{
    char raw[256], said[128];
    size_t name = 0;
    const char *as;

    shoal__call_str_kind(coll, arg, raw, sizeof(raw));
    while (raw[name] != '\0' && raw[name] != '(') name++;
    {
        char fn[128];
        snprintf(fn, sizeof(fn), "%.*s", (int)name, raw);
        as = shoal__say(sh, fn, said, sizeof(said));
        snprintf(buf, len, "%s%s", as, raw + name);
    }
    if (coll & SHOAL__COLL_FAILED) {
        size_t n = strlen(buf);
        if (n < len) snprintf(buf + n, len - n, ", which failed there before the PEs met");
    }
}

static void shoal__call_str_kind(uint64_t coll, uint64_t arg, char *buf, size_t len)
{
    unsigned long long a = (unsigned long long)arg;
    coll = (uint64_t)SHOAL__COLL_KIND(coll);
    if (coll == SHOAL__COLL_MALLOC)
        snprintf(buf, len, "shoal_malloc(%llu bytes)", a);
    else if (coll == SHOAL__COLL_CALLOC_BAD)
        snprintf(buf, len, "shoal_calloc(count * size overflows)");
    else if (coll == SHOAL__COLL_CALLOC)
        snprintf(buf, len, "shoal_calloc(%llu bytes)", a);
    else if (coll == SHOAL__COLL_ALIGN_BAD)
        snprintf(buf, len, "shoal_align(an invalid alignment, %llu bytes)", a);
    else if (coll >= SHOAL__COLL_ALIGN_BASE && coll < SHOAL__COLL_ALIGN_BAD)
        snprintf(buf, len, "shoal_align(%llu, %llu bytes)", 1ull << (coll - SHOAL__COLL_ALIGN_BASE), a);
    else if (coll == SHOAL__COLL_FREE && arg == SHOAL__FREE_NULL)
        snprintf(buf, len, "shoal_free(NULL)");
    else if (coll == SHOAL__COLL_FREE && arg == (uint64_t)SIZE_MAX)
        snprintf(buf, len, "shoal_free(a pointer not from shoal_malloc)");
    else if (coll == SHOAL__COLL_FREE)
        snprintf(buf, len, "shoal_free(heap offset %llu)", a);
    else if (coll == SHOAL__COLL_REGISTER)
        snprintf(buf, len, "%s(%llu bytes%s)",
                 (arg & SHOAL__REG_ARG_SHARED) ? "shoal_register_shared" : "shoal_register",
                 (unsigned long long)(arg & ~(SHOAL__REG_ARG_GPU | SHOAL__REG_ARG_SHARED)),
                 (arg & SHOAL__REG_ARG_GPU) ? " of GPU memory" : "");
    else if (coll == SHOAL__COLL_DEREGISTER && arg == 0)
        snprintf(buf, len, "shoal_deregister(an address that is not a registered base)");
    else if (coll == SHOAL__COLL_DEREGISTER)
        snprintf(buf, len, "shoal_deregister(registration %llu)", a);
    else
        snprintf(buf, len, "%s", shoal__coll_name((int)coll));
}
shoal__who_t *shoal__who_local(shoal_t sh, uint64_t gen, int coll)
{
    shoal__who_t *w = calloc(1, sizeof(*w));
    if (w != NULL) shoal__who_local_fill(sh, w, gen, coll);
    return w;
}

void shoal__who_say(shoal_t sh, shoal__who_t *w, uint64_t gen, int coll, char *what, size_t len)
{
    char pes[96];
    size_t n = 0;

    if (w->missing.count == 0 && sh->n_nodes > 1) {
        if (w->gave_up.count == 0) {
            shoal__node_pes_str(sh, sh->node_id, pes, sizeof(pes));
            n += (size_t)snprintf(what + n, len - n, "every PE of node %d (PEs %s) arrived; ", sh->node_id, pes);
        }
        shoal__who_remote(sh, w, gen, coll);
    }
    if (w->missing.count) n += (size_t)snprintf(what + n, len - n, "PEs that never arrived: %s; ", w->missing.buf);
    if (w->other.count && n < len)
        n += (size_t)snprintf(what + n, len - n, "PEs in another collective: %s; ", w->other.buf);
    if (w->gave_up.count && n < len)
        n += (size_t)snprintf(what + n, len - n,
                              "PEs that gave up waiting (timed out) before this PE got through: %s; ", w->gave_up.buf);
    if (w->missing.count + w->other.count + w->gave_up.count == 0 && n < len)
        n += (size_t)snprintf(what + n, len - n, "no PE was found missing; ");
    free(w);
}
