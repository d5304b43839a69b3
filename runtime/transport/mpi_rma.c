/* mpi_rma: host heaps of PEs on other nodes (or any pair once shm is
 * disabled), through MPI_Put/MPI_Get on an RMA window over a second mapping
 * of the heap's pages, in one passive-target epoch (lock_all at setup)
 * that flushes complete. Setup creates the window wherever some pair takes
 * this transport; every PE then exposes its heap in it. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/shoal_mpi_win.h"
#include "transport/transport.h"
#include "heap/shoal_heap.h"

/* MPI counts are ints: move big ranges in pieces. */
#define SHOAL__RMA_CHUNK ((size_t)1 << 30)

typedef struct mpi_rma_state {
    MPI_Win win; /* the heap, for PEs that take this transport */
    char *base;  /* what win exposes: the heap's pages mapped a second time, or the heap itself where that failed */
} mpi_rma_state_t;

static mpi_rma_state_t *mpi_rma_state(shoal_t sh) { return sh->tp_state[SHOAL_TRANSPORT_MPI_RMA]; }

/* A local buffer inside the heap goes to MPI at its address in the heap's
 * second mapping (the same pages): a network that registers local buffers
 * would otherwise cache a registration over the heap's own addresses, which
 * an application's MPI window over heap memory could then be handed. */
static const char *mpi_rma_local(shoal_t sh, const mpi_rma_state_t *st, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)sh->heap_base;
    if (st->base == sh->heap_base || a < b || a - b > sh->heap_size || n > sh->heap_size - (a - b)) return p;
    return st->base + (a - b);
}

/* The heap's pages mapped a second time, at other addresses (NULL, with
 * errno, where that cannot be done: the memory is not a shared mapping).
 *
 * Why: MPICH 4.0 over UCX takes a window's base from the UCX memory handle
 * it registers, and UCX's registration cache hands out a cached region that
 * already covers the range (aligned to 16 bytes). Were shoal's window over
 * the heap itself, an application's MPI_Win_create over a shoal_malloc block
 * would get the base of shoal's window: its puts and gets would reach the
 * heap's start, another allocation. Over the second mapping, no region that
 * shoal registers covers the heap's own addresses. */
static char *mpi_rma_alias(shoal_t sh)
{
    void *p = mremap(sh->heap_base, 0, shoal__heap_host_span(sh), MREMAP_MAYMOVE);
    return p == MAP_FAILED ? NULL : p;
}

int shoal__win_base_moves(shoal_t sh, const char *call, MPI_Comm comm, bool alias, int *moved_p)
{
    size_t pg = shoal__page_size(), len = 4 * pg;
    char *mem, *seen = NULL, *outer = NULL;
    MPI_Win wa = MPI_WIN_NULL, wb = MPI_WIN_NULL;
    int rc = SHOAL_SUCCESS, failed = 0, moved = 0, flag = 0;
    void *base = NULL;

    *moved_p = 0;
    mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) {
        mem = NULL;
        failed = 1;
    } else if (alias) {
        void *p = mremap(mem, 0, len, MREMAP_MAYMOVE);
        outer = p == MAP_FAILED ? NULL : p;
        failed = outer == NULL;
    } else {
        outer = mem;
    }
    if (failed)
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot map %zu bytes to try MPI windows on: %s", len,
                          strerror(errno));
    /* Every PE takes part in the windows, or none does. */
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
    if (failed) {
        if (rc == SHOAL_SUCCESS) rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "another PE could not map memory");
        goto out;
    }
    /* Window A over all of it (as shoal's), window B over one page inside
     * it at the first mapping's addresses (as an application's). */
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_create(outer, (MPI_Aint)len, 1, MPI_INFO_NULL, comm, &wa));
    seen = mem + pg;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_create(seen, (MPI_Aint)pg, 1, MPI_INFO_NULL, comm, &wb));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_get_attr(wb, MPI_WIN_BASE, &base, &flag));
    moved = !flag || base != (void *)seen;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_MAX, comm));
    *moved_p = moved;
out:
    if (wb != MPI_WIN_NULL) MPI_Win_free(&wb);
    if (wa != MPI_WIN_NULL) MPI_Win_free(&wa);
    if (outer != NULL && outer != mem) munmap(outer, len);
    if (mem != NULL) munmap(mem, len);
    return rc;
}

/* Some PE could not map its heap twice (an MPI whose shared memory cannot
 * be: huge pages, say). Its window is over the heap itself, which is safe
 * only where MPI keeps the bases it is given. */
static int mpi_rma_check_bases(shoal_t sh, const char *call, const char *alias, int alias_errno, int first_failed)
{
    int moved = 0, rc;

    if (alias == NULL)
        SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_INIT,
                   "the RMA window is over the heap itself: mapping it a second time failed (mremap: %s)",
                   strerror(alias_errno));
    rc = shoal__win_base_moves(sh, call, sh->comm, false, &moved);
    if (rc != SHOAL_SUCCESS || !moved) return rc;
    if (alias == NULL)
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                            "cannot map the host heap a second time for MPI RMA (mremap: %s), and this MPI moves the "
                            "base of a window made over memory that another window covers (MPICH over UCX with its "
                            "registration cache does): an application's MPI window over shoal_malloc memory would "
                            "reach the wrong bytes. Run with UCX_RCACHE_ENABLE=n",
                            strerror(alias_errno));
    return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                        "PE %d cannot map its host heap a second time for MPI RMA, and this MPI moves the base of a "
                        "window made over memory that another window covers (MPICH over UCX with its registration "
                        "cache does). Run with UCX_RCACHE_ENABLE=n",
                        first_failed);
}

static int mpi_rma_setup(shoal_t sh, bool need)
{
    static const char *call = "shoal_init";
    mpi_rma_state_t *st = NULL;
    int rc = SHOAL_SUCCESS, any = need, failed, alias_errno = 0;
    char *alias = NULL;

    /* Every PE takes part in the window, or none. */
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, sh->comm));
    if (!any) return SHOAL_SUCCESS;
    st = calloc(1, sizeof(*st));
    if (st != NULL) {
        st->win = MPI_WIN_NULL;
        sh->tp_state[SHOAL_TRANSPORT_MPI_RMA] = st;
        alias = mpi_rma_alias(sh);
        if (alias == NULL) alias_errno = errno;
    }
    /* The lowest PE that failed wins the max. */
    failed = st == NULL ? 2 * sh->n_pes - sh->my_pe : alias == NULL ? sh->n_pes - sh->my_pe : 0;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, sh->comm));
    if (failed > sh->n_pes) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "PE %d is out of memory", 2 * sh->n_pes - failed);
        goto out;
    }
    if (failed) SHOAL__TRY(rc, out, mpi_rma_check_bases(sh, call, alias, alias_errno, sh->n_pes - failed));
    st->base = alias != NULL ? alias : sh->heap_base;
    alias = NULL; /* teardown unmaps it from here on */
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Win_create(st->base, (MPI_Aint)sh->heap_size, 1, MPI_INFO_NULL, sh->comm, &st->win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_set_errhandler(st->win, MPI_ERRORS_RETURN));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_lock_all(MPI_MODE_NOCHECK, st->win));
out:
    if (alias != NULL) munmap(alias, shoal__heap_host_span(sh));
    return rc;
}

static bool mpi_rma_connect(shoal_t sh, int pe)
{
    const mpi_rma_state_t *st = mpi_rma_state(sh);
    (void)pe;
    return st != NULL && st->win != MPI_WIN_NULL;
}

static void mpi_rma_teardown(shoal_t sh)
{
    mpi_rma_state_t *st = mpi_rma_state(sh);

    if (st == NULL) return;
    if (sh->broken) return; /* window frees are collective: peers are gone (the state stays with the window) */
    if (st->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(st->win);
        MPI_Win_free(&st->win);
    }
    if (st->base != NULL && st->base != sh->heap_base) munmap(st->base, shoal__heap_host_span(sh));
    free(st);
    sh->tp_state[SHOAL_TRANSPORT_MPI_RMA] = NULL;
}

static int mpi_rma_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    const mpi_rma_state_t *st = mpi_rma_state(sh);
    const char *s = mpi_rma_local(sh, st, src, n);
    int rc = SHOAL_SUCCESS;

    for (size_t done = 0; done < n; done += SHOAL__RMA_CHUNK) {
        int len = (int)(n - done < SHOAL__RMA_CHUNK ? n - done : SHOAL__RMA_CHUNK);
        SHOAL__MPI_TRY(sh, call, rc, out,
                       MPI_Put(s + done, len, MPI_BYTE, pe, (MPI_Aint)(off + done), len, MPI_BYTE, st->win));
    }
    /* Blocking: the source may be reused once the put completed locally. */
    if (!nbi) SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush_local(pe, st->win));
out:
    return rc;
}

static int mpi_rma_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    const mpi_rma_state_t *st = mpi_rma_state(sh);
    char *d = (char *)mpi_rma_local(sh, st, dst, n);
    int rc = SHOAL_SUCCESS;

    for (size_t done = 0; done < n; done += SHOAL__RMA_CHUNK) {
        int len = (int)(n - done < SHOAL__RMA_CHUNK ? n - done : SHOAL__RMA_CHUNK);
        SHOAL__MPI_TRY(sh, call, rc, out,
                       MPI_Get(d + done, len, MPI_BYTE, pe, (MPI_Aint)(off + done), len, MPI_BYTE, st->win));
    }
    if (!nbi) SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, st->win));
out:
    return rc;
}

/* A rectangle as one MPI operation: height rows of width bytes, pitch
 * apart, on each side (MPI_Type_create_hvector). The rows are 8-byte words
 * where every size, pitch and address allows (MPICH moves those about
 * twice as fast as bytes), else bytes. Counts beyond an int go a row at a
 * time. */
static int mpi_rma_rect(shoal_t sh, const char *call, bool is_put, int pe, size_t off, size_t rpitch, void *local,
                        size_t lpitch, size_t width, size_t height, int nbi)
{
    const mpi_rma_state_t *st = mpi_rma_state(sh);
    MPI_Datatype rtype = MPI_DATATYPE_NULL, ltype = MPI_DATATYPE_NULL, lt;
    char *l;
    int rc = SHOAL_SUCCESS, lcount;

    if (width > INT_MAX || height > INT_MAX) {
        for (size_t i = 0; i < height && rc == SHOAL_SUCCESS; i++)
            rc = is_put ? mpi_rma_put(sh, call, pe, off + i * rpitch, (char *)local + i * lpitch, width, 1)
                        : mpi_rma_get(sh, call, pe, (char *)local + i * lpitch, off + i * rpitch, width, 1);
        if (rc == SHOAL_SUCCESS && !nbi)
            SHOAL__MPI_TRY(sh, call, rc, out, is_put ? MPI_Win_flush_local(pe, st->win) : MPI_Win_flush(pe, st->win));
        goto out;
    }
    l = (char *)mpi_rma_local(sh, st, local, (height - 1) * lpitch + width);
    SHOAL__MPI_TRY(sh, call, rc, out,
                   shoal__mpi_rect_types(width, height, rpitch, lpitch, off | (uintptr_t)l, &rtype, &ltype, &lt,
                                         &lcount));
    if (is_put) {
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Put(l, lcount, lt, pe, (MPI_Aint)off, 1, rtype, st->win));
        if (!nbi) SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush_local(pe, st->win));
    } else {
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Get(l, lcount, lt, pe, (MPI_Aint)off, 1, rtype, st->win));
        if (!nbi) SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, st->win));
    }
out:
    /* A type may be freed once the operations using it were issued. */
    if (rtype != MPI_DATATYPE_NULL) MPI_Type_free(&rtype);
    if (ltype != MPI_DATATYPE_NULL) MPI_Type_free(&ltype);
    return rc;
}

static int mpi_rma_put_2d(shoal_t sh, const char *call, int pe, size_t off, size_t pitch, const void *src,
                          size_t spitch, size_t width, size_t height, int nbi)
{
    return mpi_rma_rect(sh, call, true, pe, off, pitch, (void *)src, spitch, width, height, nbi);
}

static int mpi_rma_get_2d(shoal_t sh, const char *call, int pe, void *dst, size_t dpitch, size_t off, size_t pitch,
                          size_t width, size_t height, int nbi)
{
    return mpi_rma_rect(sh, call, false, pe, off, pitch, dst, dpitch, width, height, nbi);
}

/* Atomics through MPI's accumulate operations on the window: atomic with
 * respect to each other whatever the origin's node, which is why every
 * pair's atomics come here once the window exists (SHOAL__TP_CAP_AMO_ALL).
 * Every atomic completes here at least locally (shoal__mpi_amo: its
 * operand lives on the stack); nbi changes nothing. */
static int mpi_rma_amo(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *result, int nbi)
{
    const mpi_rma_state_t *st = mpi_rma_state(sh);
    void *res = result != NULL ? (void *)mpi_rma_local(sh, st, result, a->size) : NULL;
    const char *what = "";
    int rc = shoal__mpi_amo(st->win, pe, (MPI_Aint)off, pe == sh->my_pe ? st->base + off : NULL, a, res, &what);
    (void)nbi;
    return rc == MPI_SUCCESS ? SHOAL_SUCCESS : shoal__mpi_error(sh, call, what, rc);
}

/* MPI orders neither puts among themselves nor puts and accumulates: a
 * flush completes what went before. */
static int mpi_rma_fence(shoal_t sh, const char *call, int pe)
{
    const mpi_rma_state_t *st = mpi_rma_state(sh);
    int rc = MPI_Win_flush(pe, st->win);
    return rc == MPI_SUCCESS ? SHOAL_SUCCESS : shoal__mpi_error(sh, call, "MPI_Win_flush", rc);
}

static int mpi_rma_quiet(shoal_t sh, const char *call)
{
    const mpi_rma_state_t *st = mpi_rma_state(sh);
    int rc = SHOAL_SUCCESS;

    /* Per target: MPICH 4.0's MPI_Win_flush_all was seen to return before
     * large MPI_Get operations to a shared-memory target had landed. The
     * PEs of this transport, and those whose atomics it carries. */
    for (int pe = 0; pe < sh->n_pes; pe++)
        if (sh->pe_tp[pe] == &shoal__tp_mpi_rma || (sh->pe_amo != NULL && sh->pe_amo[pe] == &shoal__tp_mpi_rma))
            SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, st->win));
out:
    return rc;
}

/* Remote puts through MPI RMA completed at their origin's flush; make them
 * visible to this PE's plain loads (MPI's unified model). */
static int mpi_rma_sync(shoal_t sh, const char *call)
{
    const mpi_rma_state_t *st = mpi_rma_state(sh);
    int rc;

    if (st == NULL || st->win == MPI_WIN_NULL) return SHOAL_SUCCESS;
    rc = MPI_Win_sync(st->win);
    return rc == MPI_SUCCESS ? SHOAL_SUCCESS : shoal__mpi_error(sh, call, "MPI_Win_sync", rc);
}

const shoal__tp_ops_t shoal__tp_mpi_rma = {
    .name = "mpi_rma",
    .id = SHOAL_TRANSPORT_MPI_RMA,
    .heap_kind = SHOAL_HEAP_HOST,
    .caps = SHOAL__TP_CAP_AMO_ALL | SHOAL__TP_CAP_NEEDS_PROGRESS,
    .setup = mpi_rma_setup,
    .connect = mpi_rma_connect,
    .teardown = mpi_rma_teardown,
    .put = mpi_rma_put,
    .get = mpi_rma_get,
    .quiet = mpi_rma_quiet,
    .sync = mpi_rma_sync,
    .put_2d = mpi_rma_put_2d,
    .get_2d = mpi_rma_get_2d,
    .amo = mpi_rma_amo,
    .fence = mpi_rma_fence,
};
