/* The wait_until and test families: this PE looks at words of its own heap
 * that other PEs change with puts, atomics and signals, until a comparison
 * holds or SHOAL_TIMEOUT passes. A host heap is read with atomic loads
 * (after the transports' sync: MPI_Win_sync where an RMA window carries
 * the writers' operations); a GPU heap through this PE's own transport
 * (the copy engine); words of a registered range with atomic loads after
 * an MPI_Win_sync on its window, or with atomic loads alone where every
 * PE reaches them with loads, stores and CPU atomics (this PE's shared
 * part of a shoal_register_shared range whose atomics are CPU atomics).
 * Waiting keeps MPI's progress engine going. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ops/shoal_amo.h"
#include "heap/shoal_register.h"
#include "ops/shoal_rma.h"
#include "transport/transport.h"

static const char *const shoal__cmp_names[] = {"==", "!=", ">", ">=", "<", "<="};

/* Element i of p (size bytes), widened: signed values sign-extended. */
static uint64_t shoal__wait_elem(const void *p, size_t i, size_t size, bool is_signed)
{
    const char *b = (const char *)p + i * size;
    switch (size) {
    case 2: {
        uint16_t v;
        memcpy(&v, b, 2);
        return is_signed ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, b, 4);
        return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, b, 8);
        return v;
    }
    }
}

static bool shoal__wait_holds(uint64_t v, int cmp, uint64_t ref, bool is_signed)
{
    int c = is_signed ? ((int64_t)v > (int64_t)ref) - ((int64_t)v < (int64_t)ref) : (v > ref) - (v < ref);
    switch (cmp) {
    case SHOAL_CMP_EQ: return c == 0;
    case SHOAL_CMP_NE: return c != 0;
    case SHOAL_CMP_GT: return c > 0;
    case SHOAL_CMP_GE: return c >= 0;
    case SHOAL_CMP_LT: return c < 0;
    default: return c <= 0;
    }
}

/* The words as they are now, into buf (reg: in a registered range, off
 * there, which peers reach with loads and stores alone where mapped; else
 * off in the heap). */
static int shoal__wait_read(shoal_t sh, const char *call, const shoal__wait_spec_t *w, bool reg, bool mapped,
                            size_t off, void *buf)
{
    size_t n = w->nelems * w->size;
    int rc;

    if (mapped)
        rc = SHOAL_SUCCESS;
    else if (reg)
        rc = shoal__reg_sync(sh, call, w->ivars, n);
    else if (sh->heap_kind != SHOAL_HEAP_HOST)
        return shoal__tp(sh, sh->my_pe)->get(sh, call, sh->my_pe, buf, off, n, 0);
    else
        rc = shoal__transports_sync(sh, call);
    if (rc != SHOAL_SUCCESS) return rc;
    for (size_t i = 0; i < w->nelems; i++) {
        const char *p = (const char *)w->ivars + i * w->size;
        char *d = (char *)buf + i * w->size;
        if (w->size == 2) {
            uint16_t v = __atomic_load_n((const uint16_t *)p, __ATOMIC_ACQUIRE);
            memcpy(d, &v, 2);
        } else if (w->size == 4) {
            uint32_t v = __atomic_load_n((const uint32_t *)p, __ATOMIC_ACQUIRE);
            memcpy(d, &v, 4);
        } else {
            uint64_t v = __atomic_load_n((const uint64_t *)p, __ATOMIC_ACQUIRE);
            memcpy(d, &v, 8);
        }
    }
    return SHOAL_SUCCESS;
}

/* Does element i count, and does it hold? */
static bool shoal__wait_included(const shoal__wait_spec_t *w, size_t i) { return !w->status || !w->status[i]; }
static bool shoal__wait_elem_holds(const shoal__wait_spec_t *w, const void *buf, size_t i)
{
    uint64_t v = shoal__wait_elem(buf, i, w->size, w->is_signed);
    uint64_t ref = shoal__wait_elem(w->values, w->vector ? i : 0, w->size, w->is_signed);
    return shoal__wait_holds(v, w->cmp, ref, w->is_signed);
}

/* One look: true when the wait is over (outputs set). *pending_p: an
 * included element that does not hold yet (for the timeout's message). */
static bool shoal__wait_scan(const shoal__wait_spec_t *w, const void *buf, int *flag_p, size_t *index_p,
                             size_t *indices, size_t *count_p, size_t *pending_p)
{
    size_t n = 0, included = 0;

    *pending_p = SIZE_MAX;
    for (size_t i = 0; i < w->nelems; i++) {
        if (!shoal__wait_included(w, i)) continue;
        included++;
        if (!shoal__wait_elem_holds(w, buf, i)) {
            if (*pending_p == SIZE_MAX) *pending_p = i;
            continue;
        }
        if (w->kind == SHOAL__WAIT_ANY) {
            *index_p = i;
            return true;
        }
        if (w->kind == SHOAL__WAIT_SOME) indices[n] = i;
        n++;
    }
    switch (w->kind) {
    case SHOAL__WAIT_ALL:
        if (flag_p) *flag_p = n == included;
        return n == included;
    case SHOAL__WAIT_ANY: *index_p = SIZE_MAX; return included == 0;
    default: *count_p = n; return n > 0 || included == 0;
    }
}

static int shoal__wait_args(shoal_t sh, const char *call, const shoal__wait_spec_t *w, const int *flag_p,
                            const size_t *index_p, const size_t *indices, const size_t *count_p, bool *reg_p,
                            size_t *off_p)
{
    const char *what = w->nelems > 1 ? "ivars" : "ivar";
    size_t n;
    int rc;

    if (SHOAL__UNLIKELY((unsigned)w->cmp > SHOAL_CMP_LE))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "unknown comparison %d (SHOAL_CMP_EQ %d to SHOAL_CMP_LE %d)", w->cmp, SHOAL_CMP_EQ,
                            SHOAL_CMP_LE);
    if (SHOAL__UNLIKELY((w->kind == SHOAL__WAIT_ALL && !w->block && flag_p == NULL) ||
                        (w->kind == SHOAL__WAIT_ANY && index_p == NULL) ||
                        (w->kind == SHOAL__WAIT_SOME && count_p == NULL)))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "the pointer for the result is NULL");
    if (w->nelems == 0) return SHOAL_SUCCESS;
    if (SHOAL__UNLIKELY(w->ivars == NULL)) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "ivars is NULL");
    if (SHOAL__UNLIKELY(w->values == NULL))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "the comparison values are NULL");
    if (SHOAL__UNLIKELY(w->kind == SHOAL__WAIT_SOME && indices == NULL))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "indices is NULL");
    if (SHOAL__UNLIKELY(w->nelems > SIZE_MAX / w->size))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%zu elements overflow", w->nelems);
    /* Symmetric memory of this PE: in the heap and (SHOAL_CHECK basic or
     * full) in one live allocation, as every remote word; or in one
     * registered range. */
    n = w->nelems * w->size;
    *reg_p = !shoal__in_heap(sh, w->ivars, n) && shoal__reg_holds(sh, w->ivars, n);
    rc = *reg_p ? shoal__reg_target(sh, call, what, w->ivars, n, sh->my_pe, off_p)
                : shoal__rma_target(sh, call, what, w->ivars, n, sh->my_pe, off_p);
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    if (SHOAL__UNLIKELY((uintptr_t)w->ivars % w->size != 0))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "ivars %p (%s offset %zu) is not aligned to its %zu bytes",
                            w->ivars, *reg_p ? "registered range" : shoal__off_what(*off_p), shoal__off_in(*off_p),
                            w->size);
    return SHOAL_SUCCESS;
}

/* "heap offset 4104 (byte 8 of the 64-byte allocation at offset 4096)". */
static void shoal__wait_where(shoal_t sh, size_t off, char *buf, size_t len)
{
    size_t user, avail;
    int rc;

    shoal__alloc_lock(sh, false);
    rc = shoal__alloc_find(&sh->alloc, off, &user, &avail);
    shoal__alloc_unlock(sh);
    if (rc == SHOAL_SUCCESS)
        snprintf(buf, len, "heap offset %zu (byte %zu of the %zu-byte allocation at offset %zu)", off, off - user,
                 avail, user);
    else
        snprintf(buf, len, "heap offset %zu (not in a live allocation)", off);
}

static int shoal__wait_timeout(shoal_t sh, const char *call, const shoal__wait_spec_t *w, bool reg, size_t off,
                               const void *buf, size_t i, double waited)
{
    char where[160], seen[32], ref[32];
    uint64_t v = shoal__wait_elem(buf, i, w->size, w->is_signed);
    uint64_t r = shoal__wait_elem(w->values, w->vector ? i : 0, w->size, w->is_signed);

    if (reg || off >= SHOAL__REG_SEG_BASE)
        shoal__reg_where(sh, (const char *)w->ivars + i * w->size, where, sizeof(where));
    else
        shoal__wait_where(sh, off + i * w->size, where, sizeof(where));
    if (w->is_signed) {
        snprintf(seen, sizeof(seen), "%" PRId64, (int64_t)v);
        snprintf(ref, sizeof(ref), "%" PRId64, (int64_t)r);
    } else {
        snprintf(seen, sizeof(seen), "%" PRIu64, v);
        snprintf(ref, sizeof(ref), "%" PRIu64, r);
    }
    return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                        "waited %.1f s (SHOAL_TIMEOUT) for %s%zu-byte word at %s to become %s %s; the last value seen "
                        "was %s. No PE changed it: a put, atomic or signal missing on the writer, or a wrong flag, "
                        "value or comparison",
                        waited, w->nelems > 1 ? "an element of an array: the " : "the ", w->size, where,
                        shoal__cmp_names[w->cmp], ref, seen);
}

static int shoal__wait_do(shoal_t sh, const char *call, const shoal__wait_spec_t *w, int *flag_p, size_t *index_p,
                          size_t *indices, size_t *count_p, void *seen_p)
{
    char small[64];
    void *buf = small;
    size_t off = 0, pending;
    double start = 0, timeout = sh->cfg.timeout;
    unsigned spins = 0, looks = 0;
    bool reg = false, mapped = false, rma;
    char *here;
    int rc = shoal__wait_args(sh, call, w, flag_p, index_p, indices, count_p, &reg, &off);

    if (rc != SHOAL_SUCCESS) return rc;
    /* Words of a registered range that every PE reaches with loads, stores
     * and CPU atomics (a put across the part's edge, through the window,
     * still lands: MPI progresses now and then, as in other waits). */
    mapped = reg && w->nelems > 0 && shoal__reg_locate(sh, w->ivars, w->nelems * w->size, sh->my_pe, true, &here) > 0;
    /* Where peers reach this PE over MPI RMA (a registered range's window),
     * their operations may land only as this PE's MPI makes progress
     * (MPICH's accumulates do): poke it at every look, not now and then as
     * other waits do. */
    rma = (reg && !mapped) || shoal__transports_with(sh, SHOAL__TP_CAP_NEEDS_PROGRESS);
    if (w->nelems == 0) {
        shoal__wait_scan(w, NULL, flag_p, index_p, indices, count_p, &pending);
        return SHOAL_SUCCESS;
    }
    if (w->nelems * w->size > sizeof(small) && (buf = malloc(w->nelems * w->size)) == NULL)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    for (;;) {
        SHOAL__TRY(rc, out, shoal__wait_read(sh, call, w, reg, mapped, off, buf));
        if (shoal__wait_scan(w, buf, flag_p, index_p, indices, count_p, &pending)) break;
        if (!w->block) {
            /* A test that found nothing: MPI progresses once, so that a
             * loop of tests lets the peers' operations land. */
            if (rma) shoal__mpi_progress(sh);
            break;
        }
        /* The clock is read now and then: a look at a host word costs less. */
        if ((looks++ & 63) == 0 && timeout > 0) {
            double now = shoal__now();
            if (start == 0)
                start = now;
            else if (now - start > timeout) {
                rc = shoal__wait_timeout(sh, call, w, reg, off, buf, pending, now - start);
                goto out;
            }
        }
        if (rma) {
            shoal__mpi_progress(sh);
            shoal__wait_pause(&spins);
        } else {
            shoal__wait_progress(sh, &spins);
        }
    }
    if (seen_p != NULL) memcpy(seen_p, buf, w->size);
out:
    if (buf != small) free(buf);
    return rc;
}

int shoal__wait_check(shoal_t sh, const char *call, const shoal__wait_spec_t *w, bool *reg_p)
{
    size_t off;

    *reg_p = false;
    return shoal__wait_args(sh, call, w, NULL, NULL, NULL, NULL, reg_p, &off);
}

int shoal__wait_until(shoal_t sh, const char *call, const shoal__wait_spec_t *w, int *flag_p, size_t *index_p,
                      size_t *indices, size_t *count_p, void *seen_p)
{
    shoal__robust_t *sd;
    bool held = false;
    int rc;

    if (SHOAL__LIKELY(sh->cfg.check != SHOAL_CHECK_FULL) || (sd = shoal__robust(sh)) == NULL)
        return shoal__wait_do(sh, call, w, flag_p, index_p, indices, count_p, seen_p);
    /* SHOAL_CHECK=full: the thread rule first, as for puts and atomics. */
    rc = shoal__thread_enter(sh, sd, call, false, &held);
    if (rc != SHOAL_SUCCESS) return rc;
    rc = shoal__wait_do(sh, call, w, flag_p, index_p, indices, count_p, seen_p);
    shoal__thread_leave(sd, false, held);
    return rc;
}

int shoal__wait_word(shoal_t sh, const char *call, const void *word, size_t size, int cmp, const void *value,
                     bool block, void *seen_p)
{
    static const uint64_t zero = 0;
    int flag;
    shoal__wait_spec_t w = {.ivars = word,
                            .nelems = 1,
                            .size = size,
                            .cmp = block ? cmp : SHOAL_CMP_GE, /* a read: >= 0 holds for any unsigned word */
                            .values = block ? value : &zero,
                            .kind = SHOAL__WAIT_ALL,
                            .block = block};
    return shoal__wait_until(sh, call, &w, &flag, NULL, NULL, NULL, seen_p);
}
