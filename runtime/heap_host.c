/* Host heap: one MPI shared window per node, so node peers load and store
 * each other's segments directly, and an RMA window for PEs on other nodes
 * over a second mapping of the same pages (see shoal__heap_host_alias). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "shoal_check.h"

#define SHOAL__HEAP_ALIGN SHOAL__HEAP_BASE_ALIGN

static char *shoal__align_up(void *p)
{
    return (char *)(((uintptr_t)p + SHOAL__HEAP_ALIGN - 1) & ~(uintptr_t)(SHOAL__HEAP_ALIGN - 1));
}

static size_t shoal__page_size(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? (size_t)pg : 4096;
}

/* The heap in whole pages: what the second mapping covers. */
static size_t shoal__heap_span(size_t heap_size)
{
    size_t pg = shoal__page_size();
    return (heap_size + pg - 1) / pg * pg;
}

/* Bytes each PE takes for its heap: room to align the heap's start. */
static size_t shoal__heap_segment(size_t heap_size)
{
    return shoal__heap_span(heap_size) + SHOAL__HEAP_ALIGN;
}

int shoal__heap_host_precheck(shoal_t sh)
{
    static const char *call = "shoal_init";
    const char *dir = "/dev/shm";
    shoal__side_t *sd = shoal__side(sh);
    struct statvfs st;
    unsigned long long need, avail;
    int *node_size, host_pes = 0;

    /* One PE alone on its node maps private memory of its own; and where
     * there is no /dev/shm, MPI allocates elsewhere and reports failure
     * itself. */
    if (sh->node_size < 2 || statvfs(dir, &st) != 0) return SHOAL_SUCCESS;
    /* Every PE of this host in a shared node, whatever its (simulated)
     * node: they all share one /dev/shm. */
    node_size = calloc((size_t)sh->n_nodes, sizeof(int));
    if (node_size == NULL || sd == NULL || sd->pe_pid == NULL) {
        host_pes = sh->node_size;
    } else {
        for (int p = 0; p < sh->n_pes; p++) node_size[sh->pe_node[p]]++;
        for (int p = 0; p < sh->n_pes; p++) host_pes += sd->pe_pid[p] != 0 && node_size[sh->pe_node[p]] >= 2;
        if (host_pes < sh->node_size) host_pes = sh->node_size;
    }
    free(node_size);
    need = (unsigned long long)host_pes * shoal__heap_segment(sh->heap_size);
    avail = (unsigned long long)st.f_bavail * st.f_frsize;
    if (need <= avail) return SHOAL_SUCCESS;
    return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                        "the host heaps of the %d PEs on this host need %llu MiB of shared memory, and %s has %llu MiB "
                        "free: lower %s, now %zu bytes, or enlarge %s",
                        host_pes, need >> 20, dir, avail >> 20, shoal__heap_size_knob(sh), sh->heap_size, dir);
}

/* A PE alone on its node: MPI would give it private memory, which cannot be
 * mapped a second time. Its heap is a shared anonymous mapping instead, of
 * just the aligned heap (the rest is given back). */
static int shoal__heap_host_map_own(shoal_t sh, const char *call)
{
    size_t span = shoal__heap_span(sh->heap_size), len = shoal__heap_segment(sh->heap_size);
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0), *end;

    if (m == MAP_FAILED)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                            "cannot map a host heap of %zu bytes (mmap: %s); lower %s", sh->heap_size,
                            strerror(errno), shoal__heap_size_knob(sh));
    sh->heap_base = shoal__align_up(m);
    end = sh->heap_base + span;
    if (sh->heap_base > m) munmap(m, (size_t)(sh->heap_base - m));
    if (m + len > end) munmap(end, (size_t)(m + len - end));
    return SHOAL_SUCCESS;
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
static char *shoal__heap_host_alias(shoal_t sh)
{
    void *p = mremap(sh->heap_base, 0, shoal__heap_span(sh->heap_size), MREMAP_MAYMOVE);
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
    if (failed) rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot map %zu bytes to try MPI windows on: %s", len,
                                  strerror(errno));
    /* Every PE takes part in the windows, or none does. */
    SHOAL__MPI_CHECK(sh, call, MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm));
    if (failed) {
        if (rc == SHOAL_SUCCESS) rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "another PE could not map memory");
        goto out;
    }
    /* Window A over all of it (as shoal's), window B over one page inside
     * it at the first mapping's addresses (as an application's). */
    SHOAL__MPI_CHECK(sh, call, MPI_Win_create(outer, (MPI_Aint)len, 1, MPI_INFO_NULL, comm, &wa));
    seen = mem + pg;
    SHOAL__MPI_CHECK(sh, call, MPI_Win_create(seen, (MPI_Aint)pg, 1, MPI_INFO_NULL, comm, &wb));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_get_attr(wb, MPI_WIN_BASE, &base, &flag));
    moved = !flag || base != (void *)seen;
    SHOAL__MPI_CHECK(sh, call, MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_MAX, comm));
    *moved_p = moved;
out:
    if (wb != MPI_WIN_NULL) MPI_Win_free(&wb);
    if (wa != MPI_WIN_NULL) MPI_Win_free(&wa);
    if (outer != NULL && outer != mem) munmap(outer, len);
    if (mem != NULL) munmap(mem, len);
    return rc;
}

int shoal__heap_host_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    MPI_Info info = MPI_INFO_NULL;
    void *base = NULL;
    unsigned long long *pad = NULL;
    int rc = SHOAL_SUCCESS, need[3] = {0, 0, 0}, alias_errno = 0;
    char *alias = NULL;

    if (sh->node_size < 2) {
        rc = shoal__heap_host_map_own(sh, call);
        sh->peer_base[sh->my_pe] = sh->heap_base;
        goto rma;
    }
    /* Separate segments per PE: each starts page-aligned on its own. */
    SHOAL__MPI_CHECK(sh, call, MPI_Info_create(&info));
    SHOAL__MPI_CHECK(sh, call, MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    /* MPI promises no alignment: take more and align every segment, so that
     * shoal_align works up to SHOAL__HEAP_BASE_ALIGN on every PE alike. */
    rc = MPI_Win_allocate_shared((MPI_Aint)shoal__heap_segment(sh->heap_size), 1, info, sh->node_comm, &base,
                                 &sh->shm_win);
    if (rc != MPI_SUCCESS) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                          "cannot allocate a host heap of %zu bytes in shared memory (MPI_Win_allocate_shared "
                          "failed); lower %s or enlarge /dev/shm",
                          sh->heap_size, shoal__heap_size_knob(sh));
        sh->shm_win = MPI_WIN_NULL;
        goto rma;
    }
    SHOAL__MPI_CHECK(sh, call, MPI_Win_set_errhandler(sh->shm_win, MPI_ERRORS_RETURN));
    /* Each process maps the window at its own addresses: the owner picks
     * the padding that aligns its view, and peers apply the same padding. */
    sh->heap_base = shoal__align_up(base);
    {
        unsigned long long mine = (unsigned long long)(sh->heap_base - (char *)base);
        pad = calloc((size_t)sh->node_size, sizeof(*pad));
        if (pad == NULL) {
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
            goto out;
        }
        SHOAL__MPI_CHECK(sh, call, MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, pad, 1, MPI_UNSIGNED_LONG_LONG,
                                                 sh->node_comm));
    }
    for (int r = 0; r < sh->node_size; r++) {
        MPI_Aint size;
        int disp;
        void *peer;
        SHOAL__MPI_CHECK(sh, call, MPI_Win_shared_query(sh->shm_win, r, &size, &disp, &peer));
        sh->peer_base[sh->node_pes[r]] = (char *)peer + pad[r];
    }
    sh->peer_base[sh->my_pe] = sh->heap_base;

rma:
    /* The RMA window exists when some pair needs it: PEs on other nodes, or
     * shm disabled. Every PE must take part in creating it, or none (a PE
     * whose heap failed says so here). */
    need[0] = sh->n_nodes > 1 || (sh->disabled & (1u << SHOAL_TRANSPORT_SHM));
    need[1] = rc != SHOAL_SUCCESS;
    SHOAL__MPI_CHECK(sh, call, MPI_Allreduce(MPI_IN_PLACE, need, 2, MPI_INT, MPI_MAX, sh->comm));
    if (need[1] || !need[0]) goto out; /* a PE failed (it says why), or no window is needed */
    /* Needed somewhere, so here too (each PE exposes its heap): map it twice. */
    alias = shoal__heap_host_alias(sh);
    if (alias == NULL) alias_errno = errno;
    need[2] = alias == NULL ? sh->n_pes - sh->my_pe : 0; /* the lowest such PE wins the max */
    SHOAL__MPI_CHECK(sh, call, MPI_Allreduce(MPI_IN_PLACE, &need[2], 1, MPI_INT, MPI_MAX, sh->comm));
    if (need[2]) {
        /* Some PE could not map its heap twice (an MPI whose shared memory
         * cannot be: huge pages, say). Its window is over the heap itself,
         * which is safe only where MPI keeps the bases it is given. */
        int moved = 0;
        if (alias == NULL)
            SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_INIT,
                       "the RMA window is over the heap itself: mapping it a second time failed (mremap: %s)",
                       strerror(alias_errno));
        rc = shoal__win_base_moves(sh, call, sh->comm, false, &moved);
        if (rc != SHOAL_SUCCESS) goto out;
        if (moved) {
            if (alias == NULL)
                rc = shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                                  "cannot map the host heap a second time for MPI RMA (mremap: %s), and this MPI "
                                  "moves the base of a window made over memory that another window covers (MPICH "
                                  "over UCX with its registration cache does): an application's MPI window over "
                                  "shoal_malloc memory would reach the wrong bytes. Run with UCX_RCACHE_ENABLE=n",
                                  strerror(alias_errno));
            else
                rc = shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                                  "PE %d cannot map its host heap a second time for MPI RMA, and this MPI moves "
                                  "the base of a window made over memory that another window covers (MPICH over "
                                  "UCX with its registration cache does). Run with UCX_RCACHE_ENABLE=n",
                                  sh->n_pes - need[2]);
            goto out;
        }
    }
    sh->rma_base = alias != NULL ? alias : sh->heap_base;
    alias = NULL; /* destroy unmaps it from here on */
    SHOAL__MPI_CHECK(sh, call, MPI_Win_create(sh->rma_base, (MPI_Aint)sh->heap_size, 1, MPI_INFO_NULL, sh->comm,
                                              &sh->rma_win));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_set_errhandler(sh->rma_win, MPI_ERRORS_RETURN));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_lock_all(MPI_MODE_NOCHECK, sh->rma_win));
out:
    if (alias != NULL) munmap(alias, shoal__heap_span(sh->heap_size));
    free(pad);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    return rc;
}

void shoal__heap_host_destroy(shoal_t sh)
{
    size_t span = shoal__heap_span(sh->heap_size);

    if (sh->broken) return; /* window frees are collective: peers are gone */
    if (sh->rma_win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(sh->rma_win);
        MPI_Win_free(&sh->rma_win);
    }
    if (sh->heap_kind != SHOAL_HEAP_HOST) return;
    if (sh->rma_base != NULL && sh->rma_base != sh->heap_base) munmap(sh->rma_base, span);
    sh->rma_base = NULL;
    if (sh->shm_win != MPI_WIN_NULL) MPI_Win_free(&sh->shm_win);
    else if (sh->heap_base != NULL) munmap(sh->heap_base, span); /* a PE alone on its node */
    sh->heap_base = NULL;
}
