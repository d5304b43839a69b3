/* mpi_rma: PEs on other nodes (or any pair once shm is disabled), through
 * MPI_Put/MPI_Get on the heap's RMA window (over a second mapping of the
 * heap's pages), in one passive-target epoch (lock_all at init) that flushes
 * complete. */
#include <limits.h>

#include "shoal_internal.h"

/* MPI counts are ints: move big ranges in pieces. */
#define SHOAL__RMA_CHUNK ((size_t)1 << 30)

/* A local buffer inside the heap goes to MPI at its address in the heap's
 * second mapping (the same pages): a network that registers local buffers
 * would otherwise cache a registration over the heap's own addresses, which
 * an application's MPI window over heap memory could then be handed
 * (runtime/heap_host.c). */
static const char *mpi_rma_local(shoal_t sh, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, b = (uintptr_t)sh->heap_base;
    if (sh->rma_base == sh->heap_base || a < b || a - b > sh->heap_size || n > sh->heap_size - (a - b))
        return p;
    return sh->rma_base + (a - b);
}

static bool mpi_rma_can_connect(shoal_t sh, int pe)
{
    /* GPU heaps: the staging rings of other nodes, over MPI. A GPU of this
     * node is cuda_ipc's or staged's (shoal_topo_choose agrees). */
    if (sh->heap_kind == SHOAL_HEAP_GPU) return shoal__gpu_rma_ready(sh) && sh->pe_node[pe] != sh->node_id;
    return sh->rma_win != MPI_WIN_NULL;
}

static int mpi_rma_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    const char *s;
    int rc = SHOAL_SUCCESS;

    if (sh->heap_kind == SHOAL_HEAP_GPU) return shoal__gpu_rma_put(sh, call, pe, off, src, n, nbi);
    s = mpi_rma_local(sh, src, n);
    for (size_t done = 0; done < n; done += SHOAL__RMA_CHUNK) {
        int len = (int)(n - done < SHOAL__RMA_CHUNK ? n - done : SHOAL__RMA_CHUNK);
        SHOAL__MPI_CHECK(sh, call, MPI_Put(s + done, len, MPI_BYTE, pe, (MPI_Aint)(off + done), len, MPI_BYTE, sh->rma_win));
    }
    /* Blocking: the source may be reused once the put completed locally. */
    if (!nbi) SHOAL__MPI_CHECK(sh, call, MPI_Win_flush_local(pe, sh->rma_win));
out:
    return rc;
}

static int mpi_rma_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    char *d;
    int rc = SHOAL_SUCCESS;

    if (sh->heap_kind == SHOAL_HEAP_GPU) return shoal__gpu_rma_get(sh, call, pe, dst, off, n, nbi);
    d = (char *)mpi_rma_local(sh, dst, n);
    for (size_t done = 0; done < n; done += SHOAL__RMA_CHUNK) {
        int len = (int)(n - done < SHOAL__RMA_CHUNK ? n - done : SHOAL__RMA_CHUNK);
        SHOAL__MPI_CHECK(sh, call, MPI_Get(d + done, len, MPI_BYTE, pe, (MPI_Aint)(off + done), len, MPI_BYTE, sh->rma_win));
    }
    if (!nbi) SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, sh->rma_win));
out:
    return rc;
}

static int mpi_rma_quiet(shoal_t sh, const char *call)
{
    int rc = SHOAL_SUCCESS;
    if (sh->heap_kind == SHOAL_HEAP_GPU) return shoal__gpu_rma_quiet(sh, call);
    /* Per target: MPICH 4.0's MPI_Win_flush_all was seen to return before
     * large MPI_Get operations to a shared-memory target had landed. */
    for (int pe = 0; pe < sh->n_pes; pe++)
        if (sh->pe_tp[pe] == &shoal__transport_mpi_rma)
            SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, sh->rma_win));
out:
    return rc;
}

const shoal__transport_t shoal__transport_mpi_rma = {
    .name = "mpi_rma",
    .id = SHOAL_TRANSPORT_MPI_RMA,
    .can_connect = mpi_rma_can_connect,
    .put = mpi_rma_put,
    .get = mpi_rma_get,
    .quiet = mpi_rma_quiet,
};
