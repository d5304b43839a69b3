/* Put/get dispatch: check the addresses once, then hand the operation to
 * the transport chosen for the target PE at init.
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

#include "shoal_instance.h"
#include "transport/transport.h"

/* Quiets under MPI_THREAD_MULTIPLE, striped by instance. */
#define SHOAL__QUIET_LOCKS 16
static pthread_mutex_t shoal__quiet_locks[SHOAL__QUIET_LOCKS] = {
    [0 ... SHOAL__QUIET_LOCKS - 1] = PTHREAD_MUTEX_INITIALIZER,
};

/* Explains why [ptr, ptr + n) is not a valid remote range. */
static int shoal__range_error(shoal_t sh, const char *call, const char *what, const void *ptr, size_t n, int pe)
{
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)sh->heap_base;
    if (p < b || p - b >= sh->heap_size)
        return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                            "%s %p is not in the symmetric heap [%p, %p) (target PE %d): pass memory from "
                            "shoal_malloc",
                            what, ptr, (void *)sh->heap_base, (void *)(sh->heap_base + sh->heap_size), pe);
    return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                        "%s range [%p, +%zu) runs %zu bytes past the end of the symmetric heap (target PE %d)", what,
                        ptr, n, n - (size_t)(sh->heap_size - (p - b)), pe);
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
    if (SHOAL__UNLIKELY(!shoal__in_heap(sh, remote, n)))
        return shoal__range_error(sh, call, is_put ? "destination" : "source", remote, n, pe);
    off = (size_t)((const char *)remote - sh->heap_base);
    if (sh->cfg.check >= SHOAL_CHECK_BASIC) {
        size_t user, avail;
        shoal__alloc_lock(sh, false);
        rc = shoal__alloc_find(&sh->alloc, off, &user, &avail);
        shoal__alloc_unlock(sh);
        if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS))
            return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                                "%s %p (heap offset %zu, target PE %d) is not inside a live allocation",
                                is_put ? "destination" : "source", remote, off, pe);
        if (SHOAL__UNLIKELY(n > avail - (off - user)))
            return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                                "%zu bytes at heap offset %zu run %zu bytes past the end of their allocation "
                                "(offset %zu, %zu bytes; target PE %d)",
                                n, off, n - (avail - (off - user)), user, avail, pe);
    }
    /* The local buffer may be the target's bytes themselves: this PE's heap,
     * or a peer's mapped through shoal_ptr. */
    if (sh->peer_base[pe] != NULL) {
        uintptr_t l = (uintptr_t)local, r = (uintptr_t)(sh->peer_base[pe] + off);
        if (SHOAL__UNLIKELY(l < r + n && r < l + n))
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                "source and destination overlap: %zu bytes at %p and at %p, which is heap offset "
                                "%zu of PE %d%s",
                                n, local, (void *)r, off, pe, pe == sh->my_pe ? "" : " (mapped here by shoal_ptr)");
    }
    *off_p = off;
    return SHOAL_SUCCESS;
}

static inline int shoal__rma_do(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n,
                                int pe, int nbi)
{
    const shoal__tp_ops_t *tp;
    unsigned bit;
    size_t off;
    int rc;

    /* Zero bytes: nothing to check but the PE (shoal__rma_check checks it
     * first otherwise). */
    if (SHOAL__UNLIKELY(n == 0))
        return (unsigned)pe < (unsigned)sh->n_pes
                   ? SHOAL_SUCCESS
                   : shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    rc = shoal__rma_check(sh, call, is_put, dest, src, n, pe, &off);
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    tp = shoal__tp(sh, pe);
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA, "%s: %zu bytes %s heap offset %zu of PE %d over %s", call, n,
               is_put ? "to" : "from", off, pe, tp->name);
    rc = is_put ? tp->put(sh, call, pe, off, src, n, nbi) : tp->get(sh, call, pe, dest, off, n, nbi);
    if (SHOAL__UNLIKELY(rc < 0)) return rc;
    /* Set after issuing: a quiet that finds the bit set flushes this operation. */
    bit = 1u << tp->id;
    if (!(__atomic_load_n(&sh->tp_used, __ATOMIC_SEQ_CST) & bit))
        __atomic_fetch_or(&sh->tp_used, bit, __ATOMIC_SEQ_CST);
    return SHOAL_SUCCESS;
}

/* SHOAL_CHECK=full: a get of bytes this PE put to the same PE with no quiet
 * since may read old data (puts complete at quiet or a barrier). */
static int shoal__check_read(shoal_t sh, shoal__robust_t *sd, const char *call, int pe, size_t off, size_t n)
{
    int rc = SHOAL_SUCCESS;

    pthread_mutex_lock(&sd->lock);
    for (size_t i = sd->n_puts; i-- > 0;) {
        const shoal__range_t *r = &sd->puts[i];
        if (r->pe != pe || off >= r->off + r->n || r->off >= off + n) continue;
        rc = shoal__error(sh, SHOAL_ERR_ORDER, call,
                          "reads %zu bytes at heap offset %zu of PE %d, but this PE put %zu bytes at offset %zu there "
                          "and has not called shoal_quiet or shoal_barrier_all since: a put is complete only after "
                          "one, so the read may return old data (found by SHOAL_CHECK=full)",
                          n, off, pe, r->n, r->off);
        break;
    }
    pthread_mutex_unlock(&sd->lock);
    return rc;
}

/* Remember [off, off + n) of pe; consecutive puts to one buffer merge. */
static void shoal__track_put(shoal__robust_t *sd, int pe, size_t off, size_t n)
{
    pthread_mutex_lock(&sd->lock);
    if (sd->n_puts > 0) {
        shoal__range_t *last = &sd->puts[sd->n_puts - 1];
        if (last->pe == pe && off <= last->off + last->n && last->off <= off + n) {
            size_t end = off + n > last->off + last->n ? off + n : last->off + last->n;
            if (off < last->off) last->off = off;
            last->n = end - last->off;
            goto out;
        }
    }
    if (sd->n_puts == sd->cap_puts) {
        size_t cap = sd->cap_puts ? 2 * sd->cap_puts : 64;
        shoal__range_t *p = cap <= SHOAL__MAX_PUT_RANGES ? realloc(sd->puts, cap * sizeof(*p)) : NULL;
        if (p == NULL) {
            sd->puts_overflow = true; /* unchecked from here to the next quiet */
            goto out;
        }
        sd->puts = p;
        sd->cap_puts = cap;
    }
    sd->puts[sd->n_puts++] = (shoal__range_t){.pe = pe, .off = off, .n = n};
out:
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
    valid = (unsigned)pe < (unsigned)sh->n_pes && n > 0 && shoal__in_heap(sh, remote, n);
    off = valid ? (size_t)((const char *)remote - sh->heap_base) : 0;
    if (valid && !is_put) rc = shoal__check_read(sh, sd, call, pe, off, n);
    if (rc == SHOAL_SUCCESS) rc = shoal__rma_do(sh, call, is_put, dest, src, n, pe, nbi);
    if (rc == SHOAL_SUCCESS && valid && is_put) shoal__track_put(sd, pe, off, n);
    shoal__thread_leave(sd, false, held);
    return rc;
}

int shoal__rma(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe, int nbi)
{
    if (SHOAL__UNLIKELY(sh->cfg.check == SHOAL_CHECK_FULL))
        return shoal__rma_full(sh, call, is_put, dest, src, n, pe, nbi);
    return shoal__rma_do(sh, call, is_put, dest, src, n, pe, nbi);
}

/* Flush the transports whose bits are in mask and in tp_used. */
static int shoal__quiet_do(shoal_t sh, const char *call, unsigned mask)
{
    pthread_mutex_t *lock;
    unsigned used;
    int rc;

    if (!shoal__threads_multiple()) {
        /* One thread at a time: nobody sets bits while we flush. */
        used = sh->tp_used & mask;
        if (used == 0) return SHOAL_SUCCESS;
        rc = shoal__transports_quiet(sh, call, used);
        if (rc == SHOAL_SUCCESS) sh->tp_used &= ~used;
        return rc;
    }
    /* Take the bits before flushing: a put issued during the flush sets its
     * bit again. Under the lock: a quiet that finds no bits left waits for the
     * flush that took them. */
    lock = &shoal__quiet_locks[((uintptr_t)sh / SHOAL__CACHELINE) % SHOAL__QUIET_LOCKS];
    pthread_mutex_lock(lock);
    used = __atomic_fetch_and(&sh->tp_used, ~mask, __ATOMIC_SEQ_CST) & mask;
    rc = used ? shoal__transports_quiet(sh, call, used) : SHOAL_SUCCESS;
    if (rc != SHOAL_SUCCESS) __atomic_fetch_or(&sh->tp_used, used, __ATOMIC_SEQ_CST);
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
