/* Registered memory's table and data path (runtime/heap/shoal_register.h): the
 * ranges this PE registered, sorted by base and looked up for addresses
 * outside the heap, and the operations on them. A PE names its own address;
 * pe's copy is the same offset of pe's range, which MPI reaches through the
 * range's window at pe's displacement (every PE's base differs, and so may
 * where its window starts). Data towards this PE is a copy; atomics go
 * through MPI even there (not on a one-PE instance, which has no window,
 * nor Open MPI 4.1's self compare-and-swap: base/shoal_mpi_quirks.h), and
 * towards node peers, since MPI's accumulate operations are atomic only
 * with each other (README, "One mechanism per word"). Ranges of shoal_register_shared say where node peers' parts are
 * mapped here (shoal__reg_locate): runtime/ops/ copies into those and makes
 * CPU atomics on them itself, and comes here for the rest.
 *
 * Threads: the collective thread changes the table under alloc_lock
 * (write). Puts, gets, atomics, quiets and waits look a range up and use
 * its window under the same lock (read), so that a range cannot go while
 * an operation uses it. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/shoal_mpi_win.h"
#include "heap/shoal_heap.h"
#include "heap/shoal_register.h"
#if SHOAL_HAVE_CUDA
#include "heap/shoal_gpu.h"
#endif

/* MPI counts are ints: move big ranges in pieces. */
#define SHOAL__REG_CHUNK ((size_t)1 << 30)

/* ---------------------------------------------------------------- table */

/* The range holding [p, p + n) (n 0: holding p), or NULL. Under alloc_lock,
 * or from the collective thread. */
static shoal__reg_t *shoal__reg_find(shoal_t sh, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    size_t lo = 0, hi = sh->n_regs, off;
    shoal__reg_t *r;

    /* The last range that starts at or before p. */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((uintptr_t)sh->regs[mid]->base <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return NULL;
    r = sh->regs[lo - 1];
    off = (size_t)(a - (uintptr_t)r->base);
    return r->ready && off < r->size && n <= r->size - off ? r : NULL;
}

int shoal__reg_reserve(shoal_t sh, const char *call)
{
    shoal__reg_t **v;
    size_t cap;

    if (sh->n_regs < sh->cap_regs) return SHOAL_SUCCESS;
    cap = sh->cap_regs ? 2 * sh->cap_regs : 8;
    shoal__alloc_lock(sh, true);
    v = realloc(sh->regs, cap * sizeof(*v));
    if (v != NULL) {
        sh->regs = v;
        sh->cap_regs = cap;
    }
    shoal__alloc_unlock(sh);
    return v != NULL ? SHOAL_SUCCESS : shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
}

void shoal__reg_insert(shoal_t sh, shoal__reg_t *r)
{
    size_t i = 0;

    shoal__alloc_lock(sh, true);
    while (i < sh->n_regs && sh->regs[i]->base < r->base) i++;
    memmove(sh->regs + i + 1, sh->regs + i, (sh->n_regs - i) * sizeof(*sh->regs));
    sh->regs[i] = r;
    if (r->gpu && sh->reg_segs != NULL) sh->reg_segs[r->seg >> SHOAL__REG_SEG_SHIFT].reg = r;
    __atomic_store_n(&sh->n_regs, sh->n_regs + 1, __ATOMIC_RELEASE);
    shoal__alloc_unlock(sh);
}

shoal__reg_t *shoal__reg_remove(shoal_t sh, const void *base)
{
    shoal__reg_t *r = NULL;

    shoal__alloc_lock(sh, true);
    for (size_t i = 0; i < sh->n_regs; i++) {
        if (sh->regs[i]->base != (const char *)base) continue;
        r = sh->regs[i];
        if (r->gpu && sh->reg_segs != NULL) sh->reg_segs[r->seg >> SHOAL__REG_SEG_SHIFT].reg = NULL;
        memmove(sh->regs + i, sh->regs + i + 1, (sh->n_regs - i - 1) * sizeof(*sh->regs));
        __atomic_store_n(&sh->n_regs, sh->n_regs - 1, __ATOMIC_RELEASE);
        break;
    }
    shoal__alloc_unlock(sh);
    return r;
}

uint64_t shoal__reg_id_at(shoal_t sh, const void *base)
{
    shoal__reg_t *r = base != NULL ? shoal__reg_find(sh, base, 0) : NULL;
    return r != NULL && r->base == (const char *)base ? r->id : 0;
}

const shoal__reg_t *shoal__reg_overlap(shoal_t sh, const void *base, size_t size)
{
    uintptr_t b = (uintptr_t)base;

    for (size_t i = 0; i < sh->n_regs; i++) {
        uintptr_t rb = (uintptr_t)sh->regs[i]->base;
        if (rb < b + size && b < rb + sh->regs[i]->size) return sh->regs[i];
    }
    return NULL;
}

/* -------------------------------------------------------------- lookups */

bool shoal__reg_holds(shoal_t sh, const void *p, size_t n)
{
    const shoal__reg_t *r;
    bool found;

    if (__atomic_load_n(&sh->n_regs, __ATOMIC_ACQUIRE) == 0) return false;
    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, p, n);
    found = r != NULL && !r->gpu;
    shoal__alloc_unlock(sh);
    return found;
}

int shoal__reg_locate(shoal_t sh, const void *p, size_t n, int pe, bool amo, char **addr_p)
{
    const shoal__reg_t *r;
    int where = -1;

    if (__atomic_load_n(&sh->n_regs, __ATOMIC_ACQUIRE) == 0) return -1;
    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, p, n);
    if (r != NULL && !r->gpu) {
        size_t off = (size_t)((const char *)p - r->base);
        where = 0;
        if ((unsigned)pe >= (unsigned)sh->n_pes) {
            /* The window's path names the PE. */
        } else if (!amo && pe == sh->my_pe) {
            *addr_p = (char *)p;
            where = 1;
        } else if (r->part_map != NULL && r->part_map[pe] != NULL && (!amo || r->amo_cpu) && off >= r->part_lo[pe] &&
                   off < r->part_hi[pe] && n <= r->part_hi[pe] - off) {
            *addr_p = r->part_map[pe] + (off - r->part_lo[pe]);
            where = 1;
        }
    }
    shoal__alloc_unlock(sh);
    return where;
}

bool shoal__reg_gpu_off(shoal_t sh, const void *p, size_t n, size_t *off_p)
{
    const shoal__reg_t *r;

    if (__atomic_load_n(&sh->n_regs, __ATOMIC_ACQUIRE) == 0) return false;
    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, p, n);
    if (r != NULL && r->gpu) *off_p = (size_t)(r->seg + (uint64_t)((const char *)p - r->base));
    shoal__alloc_unlock(sh);
    return r != NULL && r->gpu;
}

bool shoal__reg_is_gpu(shoal_t sh, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p;
    bool found = false;

    if (__atomic_load_n(&sh->n_regs, __ATOMIC_ACQUIRE) == 0 || p == NULL) return false;
    shoal__alloc_lock(sh, false);
    for (size_t i = 0; i < sh->n_regs && !found; i++) {
        const shoal__reg_t *r = sh->regs[i];
        found = r->gpu && (uintptr_t)r->base < a + n && a < (uintptr_t)r->base + r->size;
    }
    shoal__alloc_unlock(sh);
    return found;
}

char *shoal__reg_seg_addr(shoal_t sh, int pe, uint64_t off, size_t n)
{
    uint64_t k = off >> SHOAL__REG_SEG_SHIFT, in = off & (SHOAL__REG_SEG_BASE - 1);
    struct shoal__reg_seg *segs = __atomic_load_n(&sh->reg_segs, __ATOMIC_ACQUIRE);
    const shoal__reg_t *r;
    char *addr = NULL;

    if (segs == NULL || k == 0 || k > SHOAL__REG_SEG_MAX) return NULL;
    if (pe == sh->my_pe) {
        /* Without a lock: the staging proxy's thread comes here. */
        uint64_t size = __atomic_load_n(&segs[k].size, __ATOMIC_ACQUIRE);
        char *base = __atomic_load_n(&segs[k].base, __ATOMIC_ACQUIRE);
        return base != NULL && in < size && n <= size - in ? base + in : NULL;
    }
    shoal__alloc_lock(sh, false);
    r = segs[k].reg;
    if (r != NULL && r->ready && r->peer[pe] != NULL && in < r->size && n <= r->size - in) addr = r->peer[pe] + in;
    shoal__alloc_unlock(sh);
    return addr;
}

int shoal__reg_seg_publish(shoal_t sh, const char *call, const shoal__reg_t *r)
{
    uint64_t k = r->seg >> SHOAL__REG_SEG_SHIFT;

    if (sh->reg_segs == NULL) {
        struct shoal__reg_seg *segs = calloc(SHOAL__REG_SEG_MAX + 1, sizeof(*segs));
        if (segs == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        __atomic_store_n(&sh->reg_segs, segs, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&sh->reg_segs[k].base, r->base, __ATOMIC_RELEASE);
    __atomic_store_n(&sh->reg_segs[k].size, (uint64_t)r->size, __ATOMIC_RELEASE);
    return SHOAL_SUCCESS;
}

void shoal__reg_seg_withdraw(shoal_t sh, const shoal__reg_t *r)
{
    uint64_t k = r->seg >> SHOAL__REG_SEG_SHIFT;

    if (sh->reg_segs == NULL || k == 0 || k > SHOAL__REG_SEG_MAX) return;
    __atomic_store_n(&sh->reg_segs[k].size, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&sh->reg_segs[k].base, NULL, __ATOMIC_RELEASE);
}

void shoal__reg_segs_free(shoal_t sh)
{
    free(sh->reg_segs);
    sh->reg_segs = NULL;
}

int shoal__reg_range_error(shoal_t sh, const char *call, const char *what, const void *p, size_t n, int pe)
{
    const shoal__reg_t *r;
    char *base = NULL, said[64];
    size_t size = 0, count;
    const char *malloc_name = shoal__say(sh, "shoal_malloc", said, sizeof(said));

    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, p, 0);
    if (r != NULL) base = r->base, size = r->size;
    count = sh->n_regs;
    shoal__alloc_unlock(sh);
    /* An API layer registers the program's globals itself: its programs
     * know them as global and static variables, not registered ranges. */
    if (base == NULL && sh->names != NULL)
        return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                            "%s %p is not symmetric: it is neither in the symmetric heap [%p, %p) nor a global or "
                            "static variable of the program (target PE %d); pass memory from %s",
                            what, p, (void *)sh->heap_base, (void *)(sh->heap_base + sh->heap_size), pe, malloc_name);
    if (base == NULL)
        return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                            "%s %p is not in the symmetric heap [%p, %p) nor in a range registered with "
                            "shoal_register (%zu registered on this PE; target PE %d): pass memory from shoal_malloc, "
                            "or register it on every PE",
                            what, p, (void *)sh->heap_base, (void *)(sh->heap_base + sh->heap_size), count, pe);
    if (n > size - (size_t)((const char *)p - base))
        return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                            "%s range [%p, +%zu) runs %zu bytes past the end of the %zu-byte range registered at %p "
                            "(target PE %d)",
                            what, p, n, n - (size - (size_t)((const char *)p - base)), size, (void *)base, pe);
    return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                        "%s %p is in the %zu-byte range registered at %p, but this call takes symmetric heap memory "
                        "only (%s; target PE %d)",
                        what, p, size, (void *)base, malloc_name, pe);
}

int shoal__reg_target(shoal_t sh, const char *call, const char *what, const void *p, size_t n, int pe, size_t *off_p)
{
    const shoal__reg_t *r;

    if (SHOAL__UNLIKELY((unsigned)pe >= (unsigned)sh->n_pes))
        return shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, p, n);
    if (r != NULL) *off_p = (size_t)((const char *)p - r->base);
    shoal__alloc_unlock(sh);
    return r != NULL ? SHOAL_SUCCESS : shoal__reg_range_error(sh, call, what, p, n, pe);
}

void shoal__reg_where(shoal_t sh, const void *p, char *buf, size_t len)
{
    const shoal__reg_t *r;

    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, p, 0);
    if (r != NULL)
        snprintf(buf, len, "%p (byte %zu of the %zu-byte range registered at %p)", p,
                 (size_t)((const char *)p - r->base), r->size, (void *)r->base);
    else
        snprintf(buf, len, "%p (no longer in a registered range)", p);
    shoal__alloc_unlock(sh);
}

/* ------------------------------------------------------------ data path */

/* Operations to pe on r that only a flush completes were issued: a quiet
 * flushes pe there. Set after issuing (a quiet that sees it completes
 * them); sequentially consistent, so that a quiet of another thread that
 * cleared the marks before finds them set again. */
static void shoal__reg_pending(shoal__reg_t *r, int pe)
{
    if (!__atomic_load_n(&r->pending[pe], __ATOMIC_SEQ_CST)) __atomic_store_n(&r->pending[pe], 1, __ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&r->used, __ATOMIC_SEQ_CST)) __atomic_store_n(&r->used, 1, __ATOMIC_SEQ_CST);
}

int shoal__reg_local(shoal_t sh, const char *call, bool is_put, const void *local)
{
    if (SHOAL__UNLIKELY(local == NULL))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%s buffer is NULL", is_put ? "source" : "destination");
#if SHOAL_HAVE_CUDA
    if (shoal__gpu_on_device(local))
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                            "the %s buffer %p is GPU memory: data moves to and from registered ranges through host "
                            "memory only (stage it there first)",
                            is_put ? "source" : "destination", local);
#endif
    return SHOAL_SUCCESS;
}

/* Bytes off .. off + n of pe's range to or from local, on r's window. A
 * blocking put is complete locally on return (the source may be reused), a
 * blocking get complete; the rest at quiet. */
static int shoal__reg_mpi_move(shoal_t sh, const char *call, shoal__reg_t *r, bool is_put, int pe, size_t off,
                               char *local, size_t n, int nbi)
{
    MPI_Aint disp = r->disp[pe] + (MPI_Aint)off;
    int rc = SHOAL_SUCCESS;

    for (size_t done = 0; done < n; done += SHOAL__REG_CHUNK) {
        int len = (int)(n - done < SHOAL__REG_CHUNK ? n - done : SHOAL__REG_CHUNK);
        if (is_put)
            SHOAL__MPI_TRY(sh, call, rc, out,
                           MPI_Put(local + done, len, MPI_BYTE, pe, disp + (MPI_Aint)done, len, MPI_BYTE, r->win));
        else
            SHOAL__MPI_TRY(sh, call, rc, out,
                           MPI_Get(local + done, len, MPI_BYTE, pe, disp + (MPI_Aint)done, len, MPI_BYTE, r->win));
    }
    if (!is_put && !nbi) {
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, r->win));
        return SHOAL_SUCCESS;
    }
    if (is_put && !nbi) SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush_local(pe, r->win));
out:
    /* Also after a failed piece: the pieces before it may be outstanding. */
    shoal__reg_pending(r, pe);
    return rc;
}

int shoal__reg_rma(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe, int nbi)
{
    const char *remote = is_put ? dest : src;
    char *local = is_put ? (char *)src : dest;
    shoal__reg_t *r;
    size_t off;
    int rc = SHOAL_SUCCESS;

    if (SHOAL__UNLIKELY((unsigned)pe >= (unsigned)sh->n_pes))
        return shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    rc = shoal__reg_local(sh, call, is_put, local);
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, remote, n);
    if (SHOAL__UNLIKELY(r == NULL)) {
        shoal__alloc_unlock(sh);
        return shoal__reg_range_error(sh, call, is_put ? "destination" : "source", remote, n, pe);
    }
    off = (size_t)(remote - r->base);
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA, "%s: %zu bytes %s byte %zu of PE %d's registered range (here at %p)",
               call, n, is_put ? "to" : "from", off, pe, (void *)r->base);
    if (pe != sh->my_pe)
        rc = shoal__reg_mpi_move(sh, call, r, is_put, pe, off, local, n, nbi);
    else if (SHOAL__UNLIKELY((uintptr_t)local < (uintptr_t)remote + n && (uintptr_t)remote < (uintptr_t)local + n))
        rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                          "source and destination overlap: %zu bytes at %p and at %p, byte %zu of this PE's range "
                          "registered at %p",
                          n, (void *)local, (const void *)remote, off, (void *)r->base);
    else
        memcpy(dest, src, n);
    shoal__alloc_unlock(sh);
    return rc;
}

/* A rectangle on r's window as one MPI operation: height rows of width
 * bytes, rpitch apart in pe's range and lpitch apart here
 * (MPI_Type_create_hvector; 8-byte words where every size, pitch and
 * address allows, else bytes). Counts beyond an int go a row at a time. */
static int shoal__reg_mpi_rect(shoal_t sh, const char *call, shoal__reg_t *r, bool is_put, int pe, size_t off,
                               size_t rpitch, char *local, size_t lpitch, size_t width, size_t height)
{
    MPI_Datatype rtype = MPI_DATATYPE_NULL, ltype = MPI_DATATYPE_NULL, lt;
    MPI_Aint disp = r->disp[pe] + (MPI_Aint)off;
    int rc = SHOAL_SUCCESS, lcount;

    if (width > INT_MAX || height > INT_MAX) {
        for (size_t i = 0; i < height && rc == SHOAL_SUCCESS; i++)
            rc = shoal__reg_mpi_move(sh, call, r, is_put, pe, off + i * rpitch, local + i * lpitch, width, 1);
        if (rc == SHOAL_SUCCESS)
            SHOAL__MPI_TRY(sh, call, rc, out, is_put ? MPI_Win_flush_local(pe, r->win) : MPI_Win_flush(pe, r->win));
        goto out;
    }
    SHOAL__MPI_TRY(sh, call, rc, out,
                   shoal__mpi_rect_types(width, height, rpitch, lpitch, (uint64_t)disp | (uintptr_t)local, &rtype,
                                         &ltype, &lt, &lcount));
    if (is_put) {
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Put(local, lcount, lt, pe, disp, 1, rtype, r->win));
        shoal__reg_pending(r, pe);
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush_local(pe, r->win));
    } else {
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Get(local, lcount, lt, pe, disp, 1, rtype, r->win));
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, r->win));
    }
out:
    /* A type may be freed once the operations using it were issued. */
    if (rtype != MPI_DATATYPE_NULL) MPI_Type_free(&rtype);
    if (ltype != MPI_DATATYPE_NULL) MPI_Type_free(&ltype);
    return rc;
}

int shoal__reg_rect(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t rpitch,
                    size_t lpitch, size_t width, size_t height, int pe)
{
    const char *remote = is_put ? dest : src;
    char *local = is_put ? (char *)src : dest;
    size_t span = (height - 1) * rpitch + width, off;
    shoal__reg_t *r;
    int rc = shoal__reg_local(sh, call, is_put, local);

    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, remote, span);
    if (SHOAL__UNLIKELY(r == NULL)) {
        shoal__alloc_unlock(sh);
        return shoal__reg_range_error(sh, call, is_put ? "destination span" : "source span", remote, span, pe);
    }
    off = (size_t)(remote - r->base);
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA,
               "%s: %zu rows of %zu bytes %s byte %zu of PE %d's registered range (pitch %zu there, %zu here)", call,
               height, width, is_put ? "to" : "from", off, pe, rpitch, lpitch);
    if (pe != sh->my_pe) {
        rc = shoal__reg_mpi_rect(sh, call, r, is_put, pe, off, rpitch, local, lpitch, width, height);
    } else {
        size_t dpitch = is_put ? rpitch : lpitch, spitch = is_put ? lpitch : rpitch;
        for (size_t i = 0; i < height; i++) memcpy((char *)dest + i * dpitch, (const char *)src + i * spitch, width);
    }
    shoal__alloc_unlock(sh);
    return rc;
}

int shoal__reg_amo(shoal_t sh, const char *call, const void *target, int pe, const shoal__amo_t *a, void *result)
{
    const char *what = "";
    shoal__reg_t *r;
    int rc = SHOAL_SUCCESS, mrc;

    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, target, a->size);
    if (SHOAL__UNLIKELY(r == NULL)) {
        shoal__alloc_unlock(sh);
        return shoal__reg_range_error(sh, call, "atomic target", target, a->size, pe);
    }
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA, "%s: atomic op %u of %u bytes at byte %zu of PE %d's registered range",
               call, a->op, a->size, (size_t)((const char *)target - r->base), pe);
    if (r->win == MPI_WIN_NULL && !r->gpu) {
        /* A one-PE instance's range has no window: the CPU's atomics are
         * the only ones on its words. */
        shoal__amo_cpu((void *)target, a, result);
    } else {
        if (result == NULL) shoal__reg_pending(r, pe); /* complete at pe only after a flush */
        mrc = shoal__mpi_amo(r->win, pe, r->disp[pe] + ((const char *)target - r->base),
                             pe == sh->my_pe ? (void *)target : NULL, a, result, &what);
        if (mrc != MPI_SUCCESS) rc = shoal__mpi_error(sh, call, what, mrc);
    }
    shoal__alloc_unlock(sh);
    return rc;
}

int shoal__reg_fence(shoal_t sh, const char *call, const void *p, int pe)
{
    shoal__reg_t *r;
    int rc = SHOAL_SUCCESS;

    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, p, 0);
    /* MPI orders neither puts among themselves nor a put and an
     * accumulate: a flush completes what went before, where something
     * went through the window (with MPI_THREAD_MULTIPLE always: another
     * thread's quiet may have taken the mark and not flushed yet). Copies
     * into a node peer's mapped part are complete once made: a fence
     * orders them before what follows. */
    if (r != NULL && !r->gpu && pe != sh->my_pe &&
        (shoal__threads_multiple() || __atomic_load_n(&r->pending[pe], __ATOMIC_SEQ_CST)))
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, r->win));
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
out:
    shoal__alloc_unlock(sh);
    return rc;
}

int shoal__reg_quiet(shoal_t sh, const char *call)
{
    int rc = SHOAL_SUCCESS;

    if (__atomic_load_n(&sh->n_regs, __ATOMIC_ACQUIRE) == 0) return SHOAL_SUCCESS;
    shoal__alloc_lock(sh, false);
    for (size_t i = 0; i < sh->n_regs && rc == SHOAL_SUCCESS; i++) {
        shoal__reg_t *r = sh->regs[i];
        /* A full barrier (a sequentially consistent exchange) whatever it
         * finds: it also orders this PE's copies into node peers' mapped
         * parts, complete once made, before what follows the quiet. */
        if (!__atomic_exchange_n(&r->used, 0, __ATOMIC_SEQ_CST)) continue;
        /* Per target, as runtime/transport/mpi_rma.c does: MPICH 4.0's
         * MPI_Win_flush_all was seen to return before large gets from a
         * shared-memory target had landed. */
        for (int pe = 0; pe < sh->n_pes; pe++) {
            int mrc;
            if (!__atomic_exchange_n(&r->pending[pe], 0, __ATOMIC_SEQ_CST)) continue;
            mrc = MPI_Win_flush(pe, r->win);
            if (mrc != MPI_SUCCESS) {
                shoal__reg_pending(r, pe); /* still outstanding: the next quiet tries again */
                rc = shoal__mpi_error(sh, call, "MPI_Win_flush (a registered range)", mrc);
                break;
            }
        }
    }
    shoal__alloc_unlock(sh);
    return rc;
}

int shoal__reg_sync(shoal_t sh, const char *call, const void *p, size_t n)
{
    shoal__reg_t *r;
    int rc = SHOAL_SUCCESS, mrc;

    shoal__alloc_lock(sh, false);
    r = shoal__reg_find(sh, p, n);
    if (r != NULL && r->win != MPI_WIN_NULL && (mrc = MPI_Win_sync(r->win)) != MPI_SUCCESS)
        rc = shoal__mpi_error(sh, call, "MPI_Win_sync", mrc);
    shoal__alloc_unlock(sh);
    if (r == NULL) return shoal__reg_range_error(sh, call, "ivars", p, n, sh->my_pe);
    return rc;
}

int shoal__reg_sync_all(shoal_t sh, const char *call)
{
    int rc = SHOAL_SUCCESS;

    if (__atomic_load_n(&sh->n_regs, __ATOMIC_ACQUIRE) == 0) return SHOAL_SUCCESS;
    shoal__alloc_lock(sh, false);
    for (size_t i = 0; i < sh->n_regs && rc == SHOAL_SUCCESS; i++) {
        int mrc = sh->regs[i]->win == MPI_WIN_NULL ? MPI_SUCCESS : MPI_Win_sync(sh->regs[i]->win);
        if (mrc != MPI_SUCCESS) rc = shoal__mpi_error(sh, call, "MPI_Win_sync (a registered range)", mrc);
    }
    shoal__alloc_unlock(sh);
    return rc;
}
