/* The collectives on the host. Two ways, chosen per team:
 *  - every member's heap is host memory this PE loads and stores (a host
 *    heap, the members on one node: team->ls_host): data moves by memcpy
 *    into the members' heaps, and a reduction splits the elements among
 *    the members, each combining its share from every member's src and
 *    storing the result into every member's dest (one pass, in place safe:
 *    an element is read and written by its owner only);
 *  - otherwise (members on other nodes, GPU heaps, staged peers): puts and
 *    gets through each pair's transport, a reduction gathering every
 *    member's src into a buffer here.
 * A small reduction on one node goes in one meeting: each member's src
 * travels in its team slot's buffer, and each member combines them all.
 * A reduce-scatter is a reduction of one block per member: each combines
 * block my_pe of every member's src into its own dest (loads, or gets).
 * Broadcast, collect, fcollect and alltoall(s) push into the members' dest
 * and end with a team barrier, which also checks that every member made
 * the same call; a reduction (and a reduce-scatter) meets before (every
 * src is ready, the call agreed) and after (every read of src is done).
 * In place (dest == src, the same array; symmetric, so on every member
 * alike): a broadcast's root skips its own copy; a collect or fcollect
 * first copies its block aside and meets the others, since their pushes
 * land in the array it sends from. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "team/shoal_reduce.h"
#include "heap/shoal_register.h"
#include "ops/shoal_rma.h"
#include "team/shoal_team.h"

/* Elements a reduction step combines at a time (a buffer of this many). */
#define SHOAL__REDUCE_STEP_BYTES ((size_t)64 << 10)

int shoal__coll_fail(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b, int status)
{
    shoal_t sh = t->sh;
    char saved[sizeof(sh->err)];

    snprintf(saved, sizeof(saved), "%s", shoal_last_error(sh));
    (void)shoal__team_meet(t, call, kind | SHOAL__TC_FAILED, a, b);
    return shoal__error(sh, status, NULL, "%s", saved);
}

int shoal__coll_bytes(shoal_t sh, const char *call, size_t n, size_t m, size_t *out)
{
    if (m != 0 && n > SIZE_MAX / m)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%zu elements of %zu bytes overflow size_t", n, m);
    *out = n * m;
    return SHOAL_SUCCESS;
}

int shoal__coll_check(shoal_team_t t, const char *call, const void *dest, size_t dbytes, const void *src, size_t sbytes,
                      bool in_place_ok)
{
    shoal_t sh = t->sh;
    size_t off;
    int rc;

    if (dbytes > 0 && dest == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "dest is NULL");
    if (sbytes > 0 && src == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "src is NULL");
    /* Heap memory, or a registered host range (reached through the
     * transports). */
    bool gpu_d = dbytes > 0 && !shoal__in_heap(sh, dest, 1) && shoal__reg_is_gpu(sh, dest, dbytes);
    if (gpu_d || (sbytes > 0 && !shoal__in_heap(sh, src, 1) && shoal__reg_is_gpu(sh, src, sbytes)))
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                            "%s %p is in a registered GPU range: collectives take symmetric heap memory or "
                            "registered host memory (put, get, atomics and signals reach registered GPU ranges)",
                            gpu_d ? "dest" : "src", gpu_d ? dest : src);
    if (dbytes > 0)
        SHOAL__TRY(rc, out,
                   shoal__in_heap(sh, dest, 1) ? shoal__rma_target(sh, call, "dest", dest, dbytes, sh->my_pe, &off)
                                               : shoal__reg_target(sh, call, "dest", dest, dbytes, sh->my_pe, &off));
    if (sbytes > 0)
        SHOAL__TRY(rc, out,
                   shoal__in_heap(sh, src, 1) ? shoal__rma_target(sh, call, "src", src, sbytes, sh->my_pe, &off)
                                              : shoal__reg_target(sh, call, "src", src, sbytes, sh->my_pe, &off));
    if (dbytes > 0 && sbytes > 0 && !(in_place_ok && dest == src)) {
        uintptr_t d = (uintptr_t)dest, s = (uintptr_t)src;
        if (d < s + sbytes && s < d + dbytes)
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "dest [%p, +%zu) and src [%p, +%zu) overlap%s", dest,
                                dbytes, src, sbytes, in_place_ok ? " (only dest == src, in place, is allowed)" : "");
    }
    return SHOAL_SUCCESS;
out:
    return rc;
}

/* pe's copy of my symmetric address p, for loads and stores (ls_host). */
static inline char *shoal__peer_addr(shoal_t sh, const void *p, int pe)
{
    return sh->peer_base[pe] + ((const char *)p - sh->heap_base);
}

/* Whether this call moves data by loads and stores into the members'
 * heaps (t->ls_call): where the team can, and dest and src are in the heap
 * (registered memory, which the same addresses on every PE name, goes
 * through the transports). */
static void shoal__coll_direct(shoal_team_t t, const void *dest, const void *src)
{
    shoal_t sh = t->sh;
    t->ls_call =
        t->ls_host && (dest == NULL || shoal__in_heap(sh, dest, 1)) && (src == NULL || shoal__in_heap(sh, src, 1));
}

/* The meeting that ends a collective's pushes (and begins a reduction):
 * where every member's heap is stored into directly, the members' meeting
 * alone (their stores are ordered with it); else a team barrier, whose
 * quiet completes this PE's puts and whose transports' sync makes the
 * others' visible here. */
static int shoal__coll_meet(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b)
{
    if (t->ls_call) return shoal__team_meet(t, call, kind, a, b);
    return shoal__team_barrier(t, call, kind, a, b);
}

/* Put n bytes of src to member i's dest (non-blocking through a transport,
 * a copy where ls_host). */
static int shoal__coll_put(shoal_team_t t, const char *call, void *dest, const void *src, size_t n, int i)
{
    shoal_t sh = t->sh;
    if (n == 0) return SHOAL_SUCCESS;
    if (t->ls_call) {
        memcpy(shoal__peer_addr(sh, dest, t->pes[i]), src, n);
        return SHOAL_SUCCESS;
    }
    return shoal__rma(sh, call, true, dest, src, n, t->pes[i], 1);
}

/* keep_root: the root's dest is neither written nor checked (OpenSHMEM's
 * active-set broadcast); kind says so, so that such a call meeting a team
 * broadcast is a mismatch. */
int shoal__coll_bcast(shoal_team_t t, const char *call, int dt, void *dest, const void *src, size_t nelems, int root,
                      bool keep_root)
{
    shoal_t sh = t->sh;
    uint32_t kind = SHOAL__TC_KIND(SHOAL__TC_BCAST, dt, keep_root ? 1 : 0);
    bool skip = keep_root && t->my_pe == root; /* this PE's dest is left alone */
    size_t bytes = 0;
    int rc;

    shoal__coll_direct(t, dest, src);
    if (root < 0 || root >= t->n_pes) {
        rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "root %d is not a PE of the team (0 to %d)", root,
                          t->n_pes - 1);
        return shoal__coll_fail(t, call, kind, nelems, (uint64_t)root, rc);
    }
    rc = shoal__coll_bytes(sh, call, nelems, shoal__dt_size(dt), &bytes);
    if (rc == SHOAL_SUCCESS)
        rc = shoal__coll_check(t, call, skip ? NULL : dest, skip ? 0 : bytes, t->my_pe == root ? src : NULL,
                               t->my_pe == root ? bytes : 0, true);
    if (rc != SHOAL_SUCCESS) return shoal__coll_fail(t, call, kind, nelems, (uint64_t)root, rc);
    if (t->my_pe == root) /* in place (the root's dest is its src already), or keep_root */
        for (int k = 0; k < t->n_pes - (skip || dest == src) && rc == SHOAL_SUCCESS; k++)
            rc = shoal__coll_put(t, call, dest, src, bytes, (root + 1 + k) % t->n_pes);
    if (rc != SHOAL_SUCCESS) return shoal__coll_fail(t, call, kind, nelems, (uint64_t)root, rc);
    return shoal__coll_meet(t, call, kind, nelems, (uint64_t)root);
}

/* My block (mine bytes of src) into every member's dest at my_off. In
 * place (dest == src), the block is first copied aside (a get from this PE:
 * the heap may be GPU memory) and the members meet as kind's in-place step
 * before anyone pushes, since the others' blocks land in the array this PE
 * sends from; the block then goes to this PE's own dest too. *met_p: that
 * meeting failed, so the caller must not meet again to report it (the
 * others, having met, do not come to a second meeting). */
static int shoal__coll_gather_push(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, char *dest,
                                   const void *src, size_t mine, size_t my_off, bool *met_p)
{
    shoal_t sh = t->sh;
    void *aside = NULL;
    int rc = SHOAL_SUCCESS;

    if (dest == src) {
        if (mine > 0 && (aside = malloc(mine)) == NULL)
            return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory (%zu bytes, in place)", mine);
        if (mine > 0) rc = shoal__rma(sh, call, false, aside, src, mine, sh->my_pe, 0);
        if (rc == SHOAL_SUCCESS) rc = shoal__quiet(sh, call);
        if (rc != SHOAL_SUCCESS) goto out;
        /* The others' failures from here on are theirs: the meeting names them. */
        rc = shoal__team_meet(t, call, kind | SHOAL__TC_IN_PLACE, a, 0);
        if (rc != SHOAL_SUCCESS) {
            *met_p = true;
            goto out;
        }
        src = aside;
    }
    for (int k = 0; k < t->n_pes && rc == SHOAL_SUCCESS; k++)
        rc = shoal__coll_put(t, call, dest + my_off, src, mine, (t->my_pe + 1 + k) % t->n_pes);
    if (aside != NULL && rc == SHOAL_SUCCESS) rc = shoal__quiet(sh, call); /* the puts read aside */
out:
    free(aside);
    return rc;
}

int shoal__coll_fcollect(shoal_team_t t, const char *call, int dt, void *dest, const void *src, size_t nelems)
{
    shoal_t sh = t->sh;
    uint32_t kind = SHOAL__TC_KIND(SHOAL__TC_FCOLLECT, dt, 0);
    size_t bytes = 0, all = 0;
    bool met = false;
    int rc;

    shoal__coll_direct(t, dest, src);
    rc = shoal__coll_bytes(sh, call, nelems, shoal__dt_size(dt), &bytes);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_bytes(sh, call, bytes, (size_t)t->n_pes, &all);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_check(t, call, dest, all, src, bytes, true);
    if (rc == SHOAL_SUCCESS)
        rc = shoal__coll_gather_push(t, call, kind, nelems, dest, src, bytes, (size_t)t->my_pe * bytes, &met);
    if (rc != SHOAL_SUCCESS) return met ? rc : shoal__coll_fail(t, call, kind, nelems, 0, rc);
    return shoal__coll_meet(t, call, kind, nelems, 0);
}

int shoal__coll_collect(shoal_team_t t, const char *call, int dt, void *dest, const void *src, size_t nelems)
{
    shoal_t sh = t->sh;
    uint32_t kind = SHOAL__TC_KIND(SHOAL__TC_COLLECT, dt, 0);
    size_t es = shoal__dt_size(dt), mine = 0, off = 0, total = 0;
    uint64_t *counts = malloc((size_t)t->n_pes * sizeof(uint64_t));
    bool met = false;
    int rc;

    shoal__coll_direct(t, dest, src);
    if (counts == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        return shoal__coll_fail(t, call, SHOAL__TC_KIND(SHOAL__TC_COUNTS, dt, 0), 0, 0, rc);
    }
    rc = shoal__coll_bytes(sh, call, nelems, es, &mine);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_check(t, call, NULL, 0, src, mine, false);
    if (rc != SHOAL_SUCCESS) {
        free(counts);
        return shoal__coll_fail(t, call, SHOAL__TC_KIND(SHOAL__TC_COUNTS, dt, 0), 0, 0, rc);
    }
    rc = shoal__team_counts(t, call, SHOAL__TC_KIND(SHOAL__TC_COUNTS, dt, 0), nelems, counts);
    if (rc != SHOAL_SUCCESS) goto out;
    /* Every member computes the same offsets and total: the same verdict. */
    for (int i = 0; i < t->n_pes; i++) {
        if (i == t->my_pe) off = total;
        if (counts[i] > (SIZE_MAX - total) / es) {
            rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "the members' counts add up past size_t");
            break;
        }
        total += counts[i] * es;
    }
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_check(t, call, dest, total, src, mine, true);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_gather_push(t, call, kind, total, dest, src, mine, off, &met);
    if (rc != SHOAL_SUCCESS) {
        if (!met) rc = shoal__coll_fail(t, call, kind, total, 0, rc);
        goto out;
    }
    rc = shoal__coll_meet(t, call, kind, total, 0);
out:
    free(counts);
    return rc;
}

int shoal__coll_alltoall(shoal_team_t t, const char *call, int dt, void *dest, const void *src, size_t nelems)
{
    shoal_t sh = t->sh;
    uint32_t kind = SHOAL__TC_KIND(SHOAL__TC_ALLTOALL, dt, 0);
    size_t bytes = 0, all = 0;
    int rc;

    shoal__coll_direct(t, dest, src);
    rc = shoal__coll_bytes(sh, call, nelems, shoal__dt_size(dt), &bytes);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_bytes(sh, call, bytes, (size_t)t->n_pes, &all);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_check(t, call, dest, all, src, all, false);
    for (int k = 0; k < t->n_pes && rc == SHOAL_SUCCESS; k++) {
        int j = (t->my_pe + 1 + k) % t->n_pes;
        rc = shoal__coll_put(t, call, (char *)dest + (size_t)t->my_pe * bytes, (const char *)src + (size_t)j * bytes,
                             bytes, j);
    }
    if (rc != SHOAL_SUCCESS) return shoal__coll_fail(t, call, kind, nelems, 0, rc);
    return shoal__coll_meet(t, call, kind, nelems, 0);
}

int shoal__coll_alltoalls(shoal_team_t t, const char *call, int dt, void *dest, const void *src, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems)
{
    shoal_t sh = t->sh;
    uint32_t kind = SHOAL__TC_KIND(SHOAL__TC_ALLTOALLS, dt, 0);
    uint64_t strides = (uint64_t)(uint32_t)dst << 32 | (uint32_t)sst;
    size_t es = shoal__dt_size(dt), dspan = 0, sspan = 0, n = 0;
    int rc = SHOAL_SUCCESS;

    shoal__coll_direct(t, dest, src);
    if (dst < 1 || sst < 1 || dst > INT32_MAX || sst > INT32_MAX)
        rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "strides dst %td and sst %td: each from 1 to %d", dst, sst,
                          INT32_MAX);
    /* A block of nelems at stride st spans ((nelems - 1) * st + 1) elements;
     * n_pes blocks follow each other nelems * st elements apart. */
    if (rc == SHOAL_SUCCESS && nelems > 0) {
        size_t all = 0; /* the elements of every block, without overflow */
        rc = shoal__coll_bytes(sh, call, nelems, (size_t)t->n_pes, &all);
        if (rc == SHOAL_SUCCESS) rc = shoal__coll_bytes(sh, call, all - 1, (size_t)dst, &n);
        if (rc == SHOAL_SUCCESS && n == SIZE_MAX) rc = shoal__coll_bytes(sh, call, SIZE_MAX, 2, &n);
        if (rc == SHOAL_SUCCESS) rc = shoal__coll_bytes(sh, call, n + 1, es, &dspan);
        if (rc == SHOAL_SUCCESS) rc = shoal__coll_bytes(sh, call, all - 1, (size_t)sst, &n);
        if (rc == SHOAL_SUCCESS && n == SIZE_MAX) rc = shoal__coll_bytes(sh, call, SIZE_MAX, 2, &n);
        if (rc == SHOAL_SUCCESS) rc = shoal__coll_bytes(sh, call, n + 1, es, &sspan);
        if (rc == SHOAL_SUCCESS) rc = shoal__coll_check(t, call, dest, dspan, src, sspan, false);
    }
    for (int k = 0; k < t->n_pes && rc == SHOAL_SUCCESS && nelems > 0; k++) {
        int j = (t->my_pe + 1 + k) % t->n_pes;
        char *d = (char *)dest + (size_t)t->my_pe * nelems * (size_t)dst * es;
        const char *s = (const char *)src + (size_t)j * nelems * (size_t)sst * es;
        if (t->ls_call) {
            char *pd = shoal__peer_addr(sh, d, t->pes[j]);
            for (size_t e = 0; e < nelems; e++) memcpy(pd + e * (size_t)dst * es, s + e * (size_t)sst * es, es);
        } else
            rc = shoal__rma_2d(sh, call, true, d, (size_t)dst * es, s, (size_t)sst * es, es, nelems, t->pes[j]);
    }
    if (rc != SHOAL_SUCCESS) return shoal__coll_fail(t, call, kind, nelems, strides, rc);
    return shoal__coll_meet(t, call, kind, nelems, strides);
}

/* m elements at src of every member (loaded here), combined into buf. */
static void shoal__reduce_combine_ls(shoal_team_t t, int dt, int op, char *buf, const char *src, size_t m)
{
    memcpy(buf, shoal__peer_addr(t->sh, src, t->pes[0]), m * shoal__dt_size(dt));
    for (int i = 1; i < t->n_pes; i++) shoal__reduce_apply(dt, op, buf, shoal__peer_addr(t->sh, src, t->pes[i]), m);
}

/* A reduction's buffers: buf of a step, and acc of bytes where members'
 * heaps are reached through the transports (*acc_p NULL where loaded). */
static int shoal__reduce_buffers(shoal_team_t t, const char *call, size_t bytes, char **acc_p, char **buf_p)
{
    *buf_p = malloc(SHOAL__REDUCE_STEP_BYTES);
    if (!t->ls_call) *acc_p = malloc(bytes);
    if (*buf_p == NULL || (!t->ls_call && *acc_p == NULL))
        return shoal__error(t->sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for a reduction buffer of %zu bytes",
                            t->ls_call ? (size_t)SHOAL__REDUCE_STEP_BYTES : bytes);
    return SHOAL_SUCCESS;
}

/* Reduction where every member's heap is loaded and stored here: my share
 * of the elements, combined from every member's src, into every member's
 * dest. Shares are whole cache lines. */
static int shoal__reduce_ls(shoal_team_t t, int dt, int op, char *dest, const char *src, size_t n, char *buf)
{
    shoal_t sh = t->sh;
    size_t es = shoal__dt_size(dt), line = SHOAL__CACHELINE / es ? SHOAL__CACHELINE / es : 1;
    size_t share = (n + (size_t)t->n_pes - 1) / (size_t)t->n_pes, lo, hi, step = SHOAL__REDUCE_STEP_BYTES / es;

    share = (share + line - 1) / line * line;
    lo = share * (size_t)t->my_pe;
    hi = lo + share < n ? lo + share : n;
    for (size_t at = lo; at < hi; at += step) {
        size_t m = hi - at < step ? hi - at : step, b = at * es;
        shoal__reduce_combine_ls(t, dt, op, buf, src + b, m);
        for (int k = 0; k < t->n_pes; k++) memcpy(shoal__peer_addr(sh, dest + b, t->pes[k]), buf, m * es);
    }
    return SHOAL_SUCCESS;
}

/* Whether a reduction of bytes goes inline: every member on this node
 * (t->local names them all), heaps loaded here, an operand that fits a
 * slot's buffer. */
static bool shoal__reduce_inline_ok(shoal_team_t t, size_t bytes)
{
    return t->ls_call && t->n_local == t->n_pes && bytes > 0 && bytes <= SHOAL__TEAM_INLINE;
}

/* A small reduction in one meeting: each member copies its src into its
 * slot's buffer for the meeting, the members meet (which checks the call
 * too), and each combines every member's copy, in team order (the same
 * result on every member), into its own dest. No member reads a src after
 * the meeting, so none needs a second one. */
static int shoal__reduce_inline(shoal_team_t t, const char *call, uint32_t kind, int dt, int op, char *dest,
                                const char *src, size_t n)
{
    shoal_t sh = t->sh;
    size_t bytes = n * shoal__dt_size(dt);
    uint64_t gen = t->gen + 1; /* the meeting below's */
    _Alignas(SHOAL__CACHELINE) char acc[SHOAL__TEAM_INLINE];
    int rc;

    /* A broken team's meeting fails at once: its buffers may still be
     * read by a member stalled in the last reduction, so leave them. */
    if (t->broken || sh->broken) return shoal__team_meet(t, call, kind, n, 0);
    memcpy(shoal__team_inline(sh, t->id, sh->node_rank, gen), src, bytes);
    rc = shoal__team_meet(t, call, kind, n, 0);
    if (rc != SHOAL_SUCCESS) return rc;
    memcpy(acc, shoal__team_inline(sh, t->id, t->local[0], gen), bytes);
    for (int k = 1; k < t->n_pes; k++)
        shoal__reduce_apply(dt, op, acc, shoal__team_inline(sh, t->id, t->local[k], gen), n);
    memcpy(dest, acc, bytes);
    return SHOAL_SUCCESS;
}

/* Reduction through the transports: every member's src into acc here, a
 * step at a time; dest written after the members met again. */
static int shoal__reduce_gather(shoal_team_t t, const char *call, int dt, int op, const char *src, size_t n, char *acc,
                                char *buf)
{
    shoal_t sh = t->sh;
    size_t es = shoal__dt_size(dt), step = SHOAL__REDUCE_STEP_BYTES / es;
    int rc = SHOAL_SUCCESS;

    for (size_t at = 0; at < n && rc == SHOAL_SUCCESS; at += step) {
        size_t m = n - at < step ? n - at : step, b = at * es;
        rc = shoal__rma(sh, call, false, acc + b, src + b, m * es, t->pes[0], 0);
        for (int i = 1; i < t->n_pes && rc == SHOAL_SUCCESS; i++) {
            rc = shoal__rma(sh, call, false, buf, src + b, m * es, t->pes[i], 0);
            if (rc == SHOAL_SUCCESS) shoal__reduce_apply(dt, op, acc + b, buf, m);
        }
    }
    return rc;
}

int shoal__coll_reduce(shoal_team_t t, const char *call, int dt, int op, void *dest, const void *src, size_t nreduce)
{
    shoal_t sh = t->sh;
    uint32_t kind = SHOAL__TC_KIND(SHOAL__TC_REDUCE, dt, op);
    size_t bytes = 0, es = shoal__dt_size(dt);
    char *acc = NULL, *buf = NULL;
    bool hier; /* through the node leaders (runtime/team/team_hier.c) */
    int rc;

    shoal__coll_direct(t, dest, src);
    hier = shoal__reduce_hier_ok(t) && shoal__in_heap(sh, dest, 1) && shoal__in_heap(sh, src, 1);
    rc = shoal__coll_bytes(sh, call, nreduce, es, &bytes);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_check(t, call, dest, bytes, src, bytes, true);
    if (rc == SHOAL_SUCCESS && shoal__reduce_inline_ok(t, bytes))
        return shoal__reduce_inline(t, call, kind, dt, op, dest, src, nreduce);
    if (rc == SHOAL_SUCCESS && bytes > 0 && !hier) rc = shoal__reduce_buffers(t, call, bytes, &acc, &buf);
    if (rc != SHOAL_SUCCESS) {
        rc = shoal__coll_fail(t, call, kind, nreduce, 0, rc);
        goto out;
    }
    /* Every src is ready (its owner's puts to it complete), the call agreed. */
    SHOAL__TRY(rc, out, shoal__coll_meet(t, call, kind, nreduce, 0));
    if (bytes == 0) goto out;
    if (hier)
        rc = shoal__reduce_hier(t, call, dt, op, dest, src, nreduce);
    else if (t->ls_call)
        rc = shoal__reduce_ls(t, dt, op, dest, src, nreduce, buf);
    else
        rc = shoal__reduce_gather(t, call, dt, op, src, nreduce, acc, buf);
    if (rc != SHOAL_SUCCESS) {
        rc = shoal__coll_fail(t, call, kind, nreduce, 0, rc);
        goto out;
    }
    /* Every read of every src is done (and, ls_host or hier, every dest written). */
    SHOAL__TRY(rc, out, shoal__team_meet(t, call, kind, nreduce, 0));
    if (!t->ls_call && !hier) rc = shoal__rma(sh, call, true, dest, acc, bytes, sh->my_pe, 0);
out:
    free(acc);
    free(buf);
    return rc;
}

/* Reduce-scatter where every member's heap is loaded and stored here:
 * block my_pe of every member's src (n elements at src), combined a step
 * at a time in buf, into my dest. */
static void shoal__reducescatter_ls(shoal_team_t t, int dt, int op, char *dest, const char *src, size_t n, char *buf)
{
    size_t es = shoal__dt_size(dt), step = SHOAL__REDUCE_STEP_BYTES / es;

    for (size_t at = 0; at < n; at += step) {
        size_t m = n - at < step ? n - at : step, b = at * es;
        shoal__reduce_combine_ls(t, dt, op, buf, src + b, m);
        memcpy(dest + b, buf, m * es);
    }
}

/* Like a reduction, between two meetings: every member reads block my_pe
 * of the others' src (loads where ls_call, else gets into acc, dest then
 * written after the second meeting, once every read of this PE's src is
 * done). dest and src never overlap, so no element is read after its
 * owner wrote it. */
int shoal__coll_reducescatter(shoal_team_t t, const char *call, int dt, int op, void *dest, const void *src,
                              size_t nreduce)
{
    shoal_t sh = t->sh;
    uint32_t kind = SHOAL__TC_KIND(SHOAL__TC_REDUCESCATTER, dt, op);
    size_t bytes = 0, all = 0, es = shoal__dt_size(dt);
    const char *block; /* block my_pe of src, on every member alike */
    char *acc = NULL, *buf = NULL;
    int rc;

    shoal__coll_direct(t, dest, src);
    rc = shoal__coll_bytes(sh, call, nreduce, es, &bytes);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_bytes(sh, call, bytes, (size_t)t->n_pes, &all);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_check(t, call, dest, bytes, src, all, false);
    if (rc == SHOAL_SUCCESS && bytes > 0) rc = shoal__reduce_buffers(t, call, bytes, &acc, &buf);
    if (rc != SHOAL_SUCCESS) {
        rc = shoal__coll_fail(t, call, kind, nreduce, 0, rc);
        goto out;
    }
    /* Every src is ready (its owner's puts to it complete), the call agreed. */
    SHOAL__TRY(rc, out, shoal__coll_meet(t, call, kind, nreduce, 0));
    if (bytes == 0) goto out;
    block = (const char *)src + (size_t)t->my_pe * bytes;
    if (t->ls_call)
        shoal__reducescatter_ls(t, dt, op, dest, block, nreduce, buf);
    else
        rc = shoal__reduce_gather(t, call, dt, op, block, nreduce, acc, buf);
    if (rc != SHOAL_SUCCESS) {
        rc = shoal__coll_fail(t, call, kind, nreduce, 0, rc);
        goto out;
    }
    /* Every read of every src is done: src may be reused on return. */
    SHOAL__TRY(rc, out, shoal__team_meet(t, call, kind, nreduce, 0));
    if (!t->ls_call) rc = shoal__rma(sh, call, true, dest, acc, bytes, sh->my_pe, 0);
out:
    free(acc);
    free(buf);
    return rc;
}

int shoal__coll_run_host(shoal_team_t t, const char *call, const shoal__coll_args_t *a)
{
    switch (a->tc) {
    case SHOAL__TC_BCAST: return shoal__coll_bcast(t, call, a->dt, a->dest, a->src, a->nelems, a->root, a->keep_root);
    case SHOAL__TC_COLLECT: return shoal__coll_collect(t, call, a->dt, a->dest, a->src, a->nelems);
    case SHOAL__TC_FCOLLECT: return shoal__coll_fcollect(t, call, a->dt, a->dest, a->src, a->nelems);
    case SHOAL__TC_ALLTOALL: return shoal__coll_alltoall(t, call, a->dt, a->dest, a->src, a->nelems);
    case SHOAL__TC_ALLTOALLS: return shoal__coll_alltoalls(t, call, a->dt, a->dest, a->src, a->dst, a->sst, a->nelems);
    case SHOAL__TC_REDUCE: return shoal__coll_reduce(t, call, a->dt, a->op, a->dest, a->src, a->nelems);
    case SHOAL__TC_REDUCESCATTER: return shoal__coll_reducescatter(t, call, a->dt, a->op, a->dest, a->src, a->nelems);
    default: return shoal__error(t->sh, SHOAL_ERR_INTERNAL, call, "unknown collective %d", a->tc);
    }
}
