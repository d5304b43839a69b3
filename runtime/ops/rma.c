/* Put/get dispatch: check the addresses once, then hand the operation to
 * the transport chosen for the target PE at init; a remote address in a
 * range registered with shoal_register is copied here where the target's
 * copy is mapped (this PE's own; a node peer's shared part, from
 * shoal_register_shared) and goes to runtime/heap/register_rma.c (its MPI
 * window) otherwise.
 *
 * Threads (MPI_THREAD_MULTIPLE): several threads of a PE may put, get and
 * quiet at once. The transports are safe for it (runtime/transport/
 * says how each is); what is shared here is sh->tp_used, the transports that may
 * have operations outstanding. Setting a bit is atomic; a quiet takes the
 * bits and flushes them under a lock, so a quiet never returns while another
 * thread's flush, which took its bits, is still running.
 *
 * SHOAL_CHECK=full also remembers the ranges this PE put to since its last
 * quiet, and refuses a get of bytes still in one of them (SHOAL_ERR_ORDER);
 * and it checks that the MPI thread level allows the calling thread to be
 * here now (SHOAL_ERR_THREAD). Other levels pay one predictable branch. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/shoal_instance.h"
#include "heap/shoal_register.h"
#include "transport/transport.h"

/* Quiets under MPI_THREAD_MULTIPLE, striped by instance. */
#define SHOAL__QUIET_LOCKS 16
static pthread_mutex_t shoal__quiet_locks[SHOAL__QUIET_LOCKS] = {
    [0 ... SHOAL__QUIET_LOCKS - 1] = PTHREAD_MUTEX_INITIALIZER,
};

/* Explains why [ptr, ptr + n) is not a valid remote range (outside the
 * heap: what registered ranges say of it). */
static int shoal__range_error(shoal_t sh, const char *call, const char *what, const void *ptr, size_t n, int pe)
{
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)sh->heap_base;
    if (p < b || p - b >= sh->heap_size) return shoal__reg_range_error(sh, call, what, ptr, n, pe);
    return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                        "%s range [%p, +%zu) runs %zu bytes past the end of the symmetric heap (target PE %d)", what,
                        ptr, n, n - (size_t)(sh->heap_size - (p - b)), pe);
}

/* The remote range [remote, remote + n) inside the heap and (SHOAL_CHECK
 * basic or full) inside one live allocation; *off_p: its heap offset. what
 * names it ("destination"); span, when not NULL, says which bytes a strided
 * or 2-D range covers. */
static int shoal__remote_check(shoal_t sh, const char *call, const char *what, const char *span, const void *remote,
                               size_t n, int pe, size_t *off_p)
{
    size_t off;
    int rc;

    if (SHOAL__UNLIKELY(!shoal__in_heap(sh, remote, n))) {
        /* A registered GPU range: the heap's transports reach it. */
        if (shoal__reg_gpu_off(sh, remote, n, off_p)) return SHOAL_SUCCESS;
        return shoal__range_error(sh, call, what, remote, n, pe);
    }
    off = (size_t)((const char *)remote - sh->heap_base);
    if (sh->cfg.check >= SHOAL_CHECK_BASIC) {
        size_t user, avail;
        shoal__alloc_lock(sh, false);
        rc = shoal__alloc_find(&sh->alloc, off, &user, &avail);
        shoal__alloc_unlock(sh);
        if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS))
            return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                                "%s %p (heap offset %zu, target PE %d) is not inside a live allocation", what, remote,
                                off, pe);
        if (SHOAL__UNLIKELY(n > avail - (off - user)))
            return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                                "%s%s%s%zu bytes at heap offset %zu run %zu bytes past the end of their allocation "
                                "(offset %zu, %zu bytes; target PE %d)",
                                span ? what : "", span ? span : "", span ? ": " : "", n, off,
                                n - (avail - (off - user)), user, avail, pe);
    }
    *off_p = off;
    return SHOAL_SUCCESS;
}

int shoal__rma_check(shoal_t sh, const char *call, bool is_put, const void *dest, const void *src, size_t n, int pe,
                     size_t *off_p)
{
    const void *remote = is_put ? dest : src;
    const void *local = is_put ? src : dest;
    size_t off;
    int rc;

    if (SHOAL__UNLIKELY((unsigned)pe >= (unsigned)sh->n_pes))
        return shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    if (SHOAL__UNLIKELY(local == NULL))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%s buffer is NULL", is_put ? "source" : "destination");
    rc = shoal__remote_check(sh, call, is_put ? "destination" : "source", NULL, remote, n, pe, &off);
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    /* The local buffer may be the target's bytes themselves: this PE's heap,
     * or a peer's mapped through shoal_ptr. */
    uintptr_t r = (uintptr_t)shoal__tp_addr(sh, pe, off);
    if (r != 0) {
        uintptr_t l = (uintptr_t)local;
        if (SHOAL__UNLIKELY(l < r + n && r < l + n))
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                "source and destination overlap: %zu bytes at %p and at %p, which is %s offset "
                                "%zu of PE %d%s",
                                n, local, (void *)r, shoal__off_what(off), shoal__off_in(off), pe,
                                pe == sh->my_pe ? "" : " (mapped here by shoal_ptr)");
    }
    *off_p = off;
    return SHOAL_SUCCESS;
}

int shoal__rma_target(shoal_t sh, const char *call, const char *what, const void *remote, size_t n, int pe,
                      size_t *off_p)
{
    if (SHOAL__UNLIKELY((unsigned)pe >= (unsigned)sh->n_pes))
        return shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    return shoal__remote_check(sh, call, what, NULL, remote, n, pe, off_p);
}

void shoal__rma_used(shoal_t sh, unsigned bit)
{
    if (!(__atomic_load_n(&sh->tp_used, __ATOMIC_SEQ_CST) & bit))
        __atomic_fetch_or(&sh->tp_used, bit, __ATOMIC_SEQ_CST);
}

/* A put or get of n bytes between local and pe's copy of a registered
 * range, mapped here at mapped: a copy, complete on return (what follows
 * a quiet or fence is ordered after it by their barriers). The local
 * buffer is checked as the window's path checks it (host memory only on a
 * GPU heap instance, where it may be device memory). */
static int shoal__reg_copy(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe,
                           char *mapped)
{
    const char *local = is_put ? src : dest;
    uintptr_t l = (uintptr_t)local, m = (uintptr_t)mapped;

    if (SHOAL__UNLIKELY(local == NULL || sh->heap_kind != SHOAL_HEAP_HOST)) {
        int rc = shoal__reg_local(sh, call, is_put, local);
        if (rc != SHOAL_SUCCESS) return rc;
    }
    if (SHOAL__UNLIKELY(l < m + n && m < l + n))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "source and destination overlap: %zu bytes at %p and at %p, PE %d's copy of the registered "
                            "range at %p%s",
                            n, local, (void *)mapped, pe, is_put ? dest : src,
                            pe == sh->my_pe ? "" : " (mapped here by shoal_ptr)");
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA, "%s: %zu bytes %s PE %d's registered range at %p (mapped here at %p)",
               call, n, is_put ? "to" : "from", pe, is_put ? dest : src, (void *)mapped);
    if (is_put)
        memcpy(mapped, src, n);
    else
        memcpy(dest, mapped, n);
    return SHOAL_SUCCESS;
}

static inline int shoal__rma_do(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n,
                                int pe, int nbi)
{
    const void *remote = is_put ? dest : src;
    const shoal__tp_ops_t *tp;
    size_t off;
    int rc;

    /* Zero bytes: nothing to check but the PE (shoal__rma_check checks it
     * first otherwise). */
    if (SHOAL__UNLIKELY(n == 0))
        return (unsigned)pe < (unsigned)sh->n_pes
                   ? SHOAL_SUCCESS
                   : shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    if (SHOAL__UNLIKELY(!shoal__in_heap(sh, remote, n))) {
        char *mapped;
        int where = shoal__reg_locate(sh, remote, n, pe, false, &mapped);
        if (where > 0) return shoal__reg_copy(sh, call, is_put, dest, src, n, pe, mapped);
        if (where == 0) return shoal__reg_rma(sh, call, is_put, dest, src, n, pe, nbi);
    }
    rc = shoal__rma_check(sh, call, is_put, dest, src, n, pe, &off);
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    tp = shoal__tp(sh, pe);
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA, "%s: %zu bytes %s heap offset %zu of PE %d over %s", call, n,
               is_put ? "to" : "from", off, pe, tp->name);
    rc = is_put ? tp->put(sh, call, pe, off, src, n, nbi) : tp->get(sh, call, pe, dest, off, n, nbi);
    if (SHOAL__UNLIKELY(rc < 0)) return rc;
    /* Set after issuing: a quiet that finds the bit set flushes this operation. */
    shoal__rma_used(sh, 1u << tp->id);
    return SHOAL_SUCCESS;
}

/* SHOAL_CHECK=full: a get of bytes this PE put to the same PE with no quiet
 * since may read old data (puts complete at quiet or a barrier). The bytes
 * read are height rows of width bytes, pitch apart, from off (a plain get:
 * one row); each row is checked, so that bytes between strided elements
 * never count as read. */
static int shoal__check_read(shoal_t sh, shoal__robust_t *sd, const char *call, int pe, size_t off, size_t pitch,
                             size_t width, size_t height)
{
    int rc = SHOAL_SUCCESS;

    if (pitch == width) width *= height, height = 1;
    pthread_mutex_lock(&sd->lock);
    for (size_t row = 0; row < height && rc == SHOAL_SUCCESS; row++) {
        size_t o = off + row * pitch;
        for (size_t i = sd->n_puts; i-- > 0;) {
            const shoal__range_t *r = &sd->puts[i];
            if (r->pe != pe || o >= r->off + r->n || r->off >= o + width) continue;
            rc = shoal__error(sh, SHOAL_ERR_ORDER, call,
                              "reads %zu bytes at %s offset %zu of PE %d, but this PE put %zu bytes at offset %zu "
                              "there and has not called shoal_quiet or shoal_barrier_all since: a put is complete "
                              "only after one, so the read may return old data (found by SHOAL_CHECK=full)",
                              width, shoal__off_what(o), shoal__off_in(o), pe, r->n, shoal__off_in(r->off));
            break;
        }
    }
    pthread_mutex_unlock(&sd->lock);
    return rc;
}

/* Remember [off, off + n) of pe (under sd->lock); consecutive puts to one
 * buffer merge. False when the record is full. */
static bool shoal__track_range(shoal__robust_t *sd, int pe, size_t off, size_t n)
{
    if (sd->n_puts > 0) {
        shoal__range_t *last = &sd->puts[sd->n_puts - 1];
        if (last->pe == pe && off <= last->off + last->n && last->off <= off + n) {
            size_t end = off + n > last->off + last->n ? off + n : last->off + last->n;
            if (off < last->off) last->off = off;
            last->n = end - last->off;
            return true;
        }
    }
    if (sd->n_puts == sd->cap_puts) {
        size_t cap = sd->cap_puts ? 2 * sd->cap_puts : 64;
        shoal__range_t *p = cap <= SHOAL__MAX_PUT_RANGES ? realloc(sd->puts, cap * sizeof(*p)) : NULL;
        if (p == NULL) {
            sd->puts_overflow = true; /* unchecked from here to the next quiet */
            return false;
        }
        sd->puts = p;
        sd->cap_puts = cap;
    }
    sd->puts[sd->n_puts++] = (shoal__range_t){.pe = pe, .off = off, .n = n};
    return true;
}

/* Remember the rows a put wrote (a plain put: one row), each row exactly:
 * a read of the bytes between strided elements is no error. */
static void shoal__track_put(shoal__robust_t *sd, int pe, size_t off, size_t pitch, size_t width, size_t height)
{
    if (pitch == width) width *= height, height = 1;
    pthread_mutex_lock(&sd->lock);
    for (size_t row = 0; row < height; row++)
        if (!shoal__track_range(sd, pe, off + row * pitch, width)) break;
    pthread_mutex_unlock(&sd->lock);
}

static int shoal__rma_full(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe,
                           int nbi)
{
    shoal__robust_t *sd = shoal__robust(sh);
    const void *remote = is_put ? dest : src;
    bool held = false, valid;
    size_t off;
    int rc;

    if (sd == NULL) return shoal__rma_do(sh, call, is_put, dest, src, n, pe, nbi);
    rc = shoal__thread_enter(sh, sd, call, false, &held);
    if (rc != SHOAL_SUCCESS) return rc;
    /* The heap and registered GPU ranges (by their transport offsets);
     * host ranges go through MPI windows, outside this record. */
    off = 0;
    valid = (unsigned)pe < (unsigned)sh->n_pes && n > 0 &&
            (shoal__in_heap(sh, remote, n) ? (off = (size_t)((const char *)remote - sh->heap_base), true)
                                           : shoal__reg_gpu_off(sh, remote, n, &off));
    if (valid && !is_put) rc = shoal__check_read(sh, sd, call, pe, off, n, n, 1);
    if (rc == SHOAL_SUCCESS) rc = shoal__rma_do(sh, call, is_put, dest, src, n, pe, nbi);
    if (rc == SHOAL_SUCCESS && valid && is_put) shoal__track_put(sd, pe, off, n, n, 1);
    shoal__thread_leave(sd, false, held);
    return rc;
}

int shoal__rma(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe, int nbi)
{
    if (SHOAL__UNLIKELY(sh->cfg.check == SHOAL_CHECK_FULL))
        return shoal__rma_full(sh, call, is_put, dest, src, n, pe, nbi);
    return shoal__rma_do(sh, call, is_put, dest, src, n, pe, nbi);
}

/* A strided or 2-D transfer: height rows of width bytes, rpitch apart in
 * the target's heap and lpitch apart here. A strided call (elem > 0: its
 * element size) is one element a row; elem only changes what messages say. */
typedef struct shoal__rect {
    size_t rpitch, lpitch; /* bytes from one row's start to the next: remote, local */
    size_t width, height;  /* bytes a row; rows */
    size_t elem;           /* 0: a 2-D call; else the element size of a strided one */
} shoal__rect_t;

/* Bytes from the first row's start to the last row's end, or false when
 * that overflows size_t. */
static bool shoal__rect_span(const shoal__rect_t *rc, size_t pitch, size_t *span_p)
{
    if (rc->height - 1 > (SIZE_MAX - rc->width) / pitch) return false;
    *span_p = (rc->height - 1) * pitch + rc->width;
    return true;
}

/* Do a row of the local rows (from l) and one of the remote rows (from r)
 * share a byte? Row i of either covers [start + i * pitch, + width). For
 * each local row, the first remote row that does not end before it is the
 * only one to look at: the others start later still. */
static bool shoal__rows_overlap(uintptr_t l, uintptr_t r, const shoal__rect_t *rc)
{
    size_t w = rc->width;

    for (size_t i = 0; i < rc->height; i++) {
        uintptr_t a = l + i * rc->lpitch, j;
        if (a + w <= r) continue;
        if (a < r + w) return true;
        j = (a - r - w) / rc->rpitch + 1;
        if (j < rc->height && r + j * rc->rpitch < a + w) return true;
    }
    return false;
}

/* The checks of shoal__rma_check for a rectangle: pe, pitches, buffers,
 * the remote span (first byte to the last row's end) inside one live
 * allocation or one registered range (*reg_p; *mapped_p: where pe's copy of
 * the span is mapped here, or NULL), no local row sharing bytes with a
 * remote one. *off_p: the remote heap offset (or offset in the registered
 * range); *empty_p: nothing to move (no buffer checked). */
static int shoal__rect_check(shoal_t sh, const char *call, bool is_put, const void *dest, const void *src,
                             const shoal__rect_t *rc, int pe, size_t *off_p, bool *empty_p, bool *reg_p,
                             char **mapped_p)
{
    const void *remote = is_put ? dest : src, *local = is_put ? src : dest;
    const char *rwhat = is_put ? "destination" : "source", *lwhat = is_put ? "source" : "destination";
    size_t rspan, lspan, off;
    int status;

    *empty_p = false;
    if (SHOAL__UNLIKELY((unsigned)pe >= (unsigned)sh->n_pes))
        return shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    if (SHOAL__UNLIKELY(rc->elem == 0 && (rc->rpitch < rc->width || rc->lpitch < rc->width))) {
        size_t dpitch = is_put ? rc->rpitch : rc->lpitch, spitch = is_put ? rc->lpitch : rc->rpitch;
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "%s %zu is less than width %zu: a pitch is the distance in bytes from one row's start to "
                            "the next, at least the row's width",
                            dpitch < rc->width ? "dpitch" : "spitch", dpitch < rc->width ? dpitch : spitch, rc->width);
    }
    if (rc->width == 0 || rc->height == 0) {
        *empty_p = true;
        return SHOAL_SUCCESS;
    }
    if (SHOAL__UNLIKELY(local == NULL))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%s buffer is NULL", lwhat);
    if (SHOAL__UNLIKELY(remote == NULL))
        return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call, "%s is NULL, not in the symmetric heap", rwhat);
    for (int side = 0; side < 2; side++) {
        size_t pitch = side ? rc->lpitch : rc->rpitch, *span = side ? &lspan : &rspan;
        const char *what = side ? lwhat : rwhat;
        if (SHOAL__UNLIKELY(!shoal__rect_span(rc, pitch, span))) {
            if (rc->elem)
                return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                    "%zu elements %zu apart (the %s stride times %zu bytes) span more than SIZE_MAX "
                                    "bytes",
                                    rc->height, pitch, what, rc->elem);
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                "%zu rows of %zu bytes, %zu bytes apart, span more than SIZE_MAX bytes at the %s",
                                rc->height, rc->width, pitch, what);
        }
    }
    if (SHOAL__UNLIKELY(lspan - 1 > UINTPTR_MAX - (uintptr_t)local))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "the %s's %zu bytes from %p run past the end of the address space", lwhat, lspan, local);
    *reg_p = !shoal__in_heap(sh, remote, rspan) && shoal__reg_holds(sh, remote, rspan);
    if (*reg_p)
        status = shoal__reg_target(sh, call, is_put ? "destination span" : "source span", remote, rspan, pe, &off);
    else
        status = shoal__remote_check(sh, call, is_put ? "destination span" : "source span",
                                     rc->elem ? " (first to last element)" : " (first byte to the end of the last row)",
                                     remote, rspan, pe, &off);
    if (SHOAL__UNLIKELY(status != SHOAL_SUCCESS)) return status;
    *mapped_p = NULL;
    if (*reg_p && shoal__reg_locate(sh, remote, rspan, pe, false, mapped_p) <= 0) *mapped_p = NULL;
    /* As for a put: the local rows may be the target's bytes (this PE's heap
     * or registered range, or a peer's heap or shared part mapped by
     * shoal_ptr). Spans may interleave without sharing a byte (two columns
     * of one grid), so rows decide. */
    uintptr_t r = *reg_p ? (uintptr_t)*mapped_p : (uintptr_t)shoal__tp_addr(sh, pe, off);
    if (r != 0) {
        uintptr_t l = (uintptr_t)local;
        if (SHOAL__UNLIKELY(l < r + rspan && r < l + lspan && shoal__rows_overlap(l, r, rc)))
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                "source and destination overlap: %s %s at %p share bytes with those at %p, which is "
                                "%s offset %zu of PE %d%s",
                                rc->elem ? "the elements" : "the rows", is_put ? "read" : "written", local, (void *)r,
                                *reg_p ? "registered range" : shoal__off_what(off), shoal__off_in(off), pe,
                                pe == sh->my_pe ? "" : " (mapped here by shoal_ptr)");
    }
    *off_p = off;
    return SHOAL_SUCCESS;
}

/* Move the checked rectangle: one put or get when both sides are
 * contiguous, else the transport's put_2d/get_2d, else a blocking put or
 * get a row (each row complete locally before the next, as a blocking put
 * needs no more). */
static int shoal__rect_move(shoal_t sh, const char *call, bool is_put, void *dest, const void *src,
                            const shoal__rect_t *rc, int pe, size_t off)
{
    const shoal__tp_ops_t *tp = shoal__tp(sh, pe);
    size_t w = rc->width, h = rc->height;
    int status = SHOAL_SUCCESS;

    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA,
               "%s: %zu rows of %zu bytes %s heap offset %zu of PE %d (pitch %zu there, %zu here) over %s", call, h, w,
               is_put ? "to" : "from", off, pe, rc->rpitch, rc->lpitch, tp->name);
    if (rc->rpitch == w && rc->lpitch == w)
        status = is_put ? tp->put(sh, call, pe, off, src, w * h, 0) : tp->get(sh, call, pe, dest, off, w * h, 0);
    else if (is_put && tp->put_2d != NULL)
        status = tp->put_2d(sh, call, pe, off, rc->rpitch, src, rc->lpitch, w, h, 0);
    else if (!is_put && tp->get_2d != NULL)
        status = tp->get_2d(sh, call, pe, dest, rc->lpitch, off, rc->rpitch, w, h, 0);
    else
        for (size_t i = 0; i < h && status >= 0; i++) {
            size_t o = off + i * rc->rpitch, l = i * rc->lpitch;
            status = is_put ? tp->put(sh, call, pe, o, (const char *)src + l, w, 0)
                            : tp->get(sh, call, pe, (char *)dest + l, o, w, 0);
        }
    /* Set even after a failed row: the rows before it may be outstanding. */
    shoal__rma_used(sh, 1u << tp->id);
    return status < 0 ? status : SHOAL_SUCCESS;
}

static int shoal__rma_rect(shoal_t sh, const char *call, bool is_put, void *dest, const void *src,
                           const shoal__rect_t *rc, int pe)
{
    shoal__robust_t *sd = NULL;
    bool held = false, empty, reg = false;
    char *mapped = NULL;
    size_t off = 0;
    int status;

    if (SHOAL__UNLIKELY(sh->cfg.check == SHOAL_CHECK_FULL) && (sd = shoal__robust(sh)) != NULL) {
        status = shoal__thread_enter(sh, sd, call, false, &held);
        if (status != SHOAL_SUCCESS) return status;
    }
    status = shoal__rect_check(sh, call, is_put, dest, src, rc, pe, &off, &empty, &reg, &mapped);
    if (status == SHOAL_SUCCESS && !empty && reg && mapped != NULL) {
        /* A registered range mapped here (this PE's, a node peer's shared
         * part): a copy a row, complete on return. */
        const void *local = is_put ? src : dest;
        if (local == NULL || sh->heap_kind != SHOAL_HEAP_HOST) status = shoal__reg_local(sh, call, is_put, local);
        if (status == SHOAL_SUCCESS && is_put)
            shoal__tp_copy_2d(mapped, rc->rpitch, src, rc->lpitch, rc->width, rc->height);
        else if (status == SHOAL_SUCCESS)
            shoal__tp_copy_2d(dest, rc->lpitch, mapped, rc->rpitch, rc->width, rc->height);
    } else if (status == SHOAL_SUCCESS && !empty && reg) {
        /* A registered range (SHOAL_CHECK=full records heap puts only). */
        status = shoal__reg_rect(sh, call, is_put, dest, src, rc->rpitch, rc->lpitch, rc->width, rc->height, pe);
    } else if (status == SHOAL_SUCCESS && !empty) {
        if (sd != NULL && !is_put) status = shoal__check_read(sh, sd, call, pe, off, rc->rpitch, rc->width, rc->height);
        if (status == SHOAL_SUCCESS) status = shoal__rect_move(sh, call, is_put, dest, src, rc, pe, off);
        if (status == SHOAL_SUCCESS && sd != NULL && is_put)
            shoal__track_put(sd, pe, off, rc->rpitch, rc->width, rc->height);
    }
    if (sd != NULL) shoal__thread_leave(sd, false, held);
    return status;
}

int shoal__rma_2d(shoal_t sh, const char *call, bool is_put, void *dest, size_t dpitch, const void *src, size_t spitch,
                  size_t width, size_t height, int pe)
{
    shoal__rect_t rc = {.rpitch = is_put ? dpitch : spitch,
                        .lpitch = is_put ? spitch : dpitch,
                        .width = width,
                        .height = height};
    return shoal__rma_rect(sh, call, is_put, dest, src, &rc, pe);
}

int shoal__rma_strided(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems, size_t elem, int pe)
{
    shoal__rect_t rc = {.width = elem, .height = nelems, .elem = elem};
    size_t dpitch, spitch;

    if (SHOAL__UNLIKELY(dst < 1 || sst < 1))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "%s stride %s = %td is not positive: strides count elements, 1 for contiguous ones",
                            dst < 1 ? "destination" : "source", dst < 1 ? "dst" : "sst", dst < 1 ? dst : sst);
    if (SHOAL__UNLIKELY((size_t)dst > SIZE_MAX / elem || (size_t)sst > SIZE_MAX / elem))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%s stride %td of %zu-byte elements overflows size_t",
                            (size_t)dst > SIZE_MAX / elem ? "destination" : "source",
                            (size_t)dst > SIZE_MAX / elem ? dst : sst, elem);
    dpitch = (size_t)dst * elem;
    spitch = (size_t)sst * elem;
    rc.rpitch = is_put ? dpitch : spitch;
    rc.lpitch = is_put ? spitch : dpitch;
    return shoal__rma_rect(sh, call, is_put, dest, src, &rc, pe);
}

/* Flush the transports whose bits are in mask and in tp_used, and the
 * windows of registered ranges. */
static int shoal__quiet_do(shoal_t sh, const char *call, unsigned mask)
{
    pthread_mutex_t *lock;
    unsigned used;
    int rc;

    if (!shoal__threads_multiple()) {
        /* One thread at a time: nobody sets bits while we flush. */
        used = sh->tp_used & mask;
        rc = used ? shoal__transports_quiet(sh, call, used) : SHOAL_SUCCESS;
        if (rc == SHOAL_SUCCESS) sh->tp_used &= ~used;
        /* And the windows of registered ranges. */
        return rc == SHOAL_SUCCESS ? shoal__reg_quiet(sh, call) : rc;
    }
    /* Take the bits before flushing: a put issued during the flush sets its
     * bit again. Under the lock: a quiet that finds no bits left waits for the
     * flush that took them. */
    lock = &shoal__quiet_locks[((uintptr_t)sh / SHOAL__CACHELINE) % SHOAL__QUIET_LOCKS];
    pthread_mutex_lock(lock);
    used = __atomic_fetch_and(&sh->tp_used, ~mask, __ATOMIC_SEQ_CST) & mask;
    rc = used ? shoal__transports_quiet(sh, call, used) : SHOAL_SUCCESS;
    if (rc != SHOAL_SUCCESS) __atomic_fetch_or(&sh->tp_used, used, __ATOMIC_SEQ_CST);
    if (rc == SHOAL_SUCCESS) rc = shoal__reg_quiet(sh, call);
    pthread_mutex_unlock(lock);
    return rc;
}

/* SHOAL_CHECK=full: the puts recorded before the flush began are complete.
 * Positions count from the first range ever recorded, so that quiets of
 * several threads at once drop each range once. */
static int shoal__quiet_full(shoal_t sh, const char *call, shoal__robust_t *sd, unsigned mask)
{
    size_t end, drop;
    bool held = false;
    int rc = shoal__thread_enter(sh, sd, call, false, &held);

    if (rc != SHOAL_SUCCESS) return rc;
    pthread_mutex_lock(&sd->lock);
    end = sd->puts_dropped + sd->n_puts;
    pthread_mutex_unlock(&sd->lock);
    rc = shoal__quiet_do(sh, call, mask);
    if (rc == SHOAL_SUCCESS) {
        pthread_mutex_lock(&sd->lock);
        drop = end > sd->puts_dropped ? end - sd->puts_dropped : 0;
        if (drop > sd->n_puts) drop = sd->n_puts;
        if (drop > 0) {
            memmove(sd->puts, sd->puts + drop, (sd->n_puts - drop) * sizeof(*sd->puts));
            sd->n_puts -= drop;
            sd->puts_dropped += drop;
        }
        if (sd->n_puts == 0) sd->puts_overflow = false;
        pthread_mutex_unlock(&sd->lock);
    }
    shoal__thread_leave(sd, false, held);
    return rc;
}

int shoal__quiet_mask(shoal_t sh, const char *call, unsigned mask)
{
    if (SHOAL__UNLIKELY(sh->fault_quiets > 0)) {
        sh->fault_quiets--;
        return shoal__error(sh, SHOAL_ERR_INTERNAL, call, "quiet failed (injected by SHOAL_FAULT)");
    }
    if (SHOAL__UNLIKELY(sh->cfg.check == SHOAL_CHECK_FULL)) {
        shoal__robust_t *sd = shoal__robust(sh);
        if (sd != NULL) return shoal__quiet_full(sh, call, sd, mask);
    }
    return shoal__quiet_do(sh, call, mask);
}

int shoal__quiet(shoal_t sh, const char *call) { return shoal__quiet_mask(sh, call, ~0u); }
