/* Host heap: one MPI shared window per node, so node peers load and store
 * each other's segments directly, and an RMA window over the same memory
 * for PEs on other nodes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "shoal_check.h"

#define SHOAL__HEAP_ALIGN SHOAL__HEAP_BASE_ALIGN

static char *shoal__align_up(void *p)
{
    return (char *)(((uintptr_t)p + SHOAL__HEAP_ALIGN - 1) & ~(uintptr_t)(SHOAL__HEAP_ALIGN - 1));
}

int shoal__heap_host_precheck(shoal_t sh)
{
    static const char *call = "shoal_init";
    const char *dir = "/dev/shm";
    shoal__side_t *sd = shoal__side(sh);
    struct statvfs st;
    unsigned long long need, avail;
    int *node_size, host_pes = 0;

    /* One PE alone on its node may get private memory; and where there is
     * no /dev/shm, MPI allocates elsewhere and reports failure itself. */
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
    need = (unsigned long long)host_pes * (sh->heap_size + SHOAL__HEAP_ALIGN);
    avail = (unsigned long long)st.f_bavail * st.f_frsize;
    if (need <= avail) return SHOAL_SUCCESS;
    return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                        "the host heaps of the %d PEs on this host need %llu MiB of shared memory, and %s has %llu MiB "
                        "free: lower SHOAL_HEAP_SIZE (now %zu bytes) or enlarge %s",
                        host_pes, need >> 20, dir, avail >> 20, sh->heap_size, dir);
}

int shoal__heap_host_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    MPI_Info info = MPI_INFO_NULL;
    void *base = NULL;
    unsigned long long *pad = NULL;
    int rc = SHOAL_SUCCESS, need_rma = 0, any_rma = 0;

    /* Separate segments per PE: each starts page-aligned on its own. */
    SHOAL__MPI_CHECK(sh, call, MPI_Info_create(&info));
    SHOAL__MPI_CHECK(sh, call, MPI_Info_set(info, "alloc_shared_noncontig", "true"));
    /* MPI promises no alignment: take more and align every segment, so that
     * shoal_align works up to SHOAL__HEAP_BASE_ALIGN on every PE alike. */
    rc = MPI_Win_allocate_shared((MPI_Aint)(sh->heap_size + SHOAL__HEAP_ALIGN), 1, info, sh->node_comm, &base,
                                 &sh->shm_win);
    if (rc != MPI_SUCCESS) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                          "cannot allocate a host heap of %zu bytes in shared memory (MPI_Win_allocate_shared "
                          "failed); lower SHOAL_HEAP_SIZE or enlarge /dev/shm",
                          sh->heap_size);
        sh->shm_win = MPI_WIN_NULL;
        goto out;
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

    /* The RMA window exists when some pair needs it: PEs on other nodes, or
     * shm disabled. Every PE must take part in creating it. */
    need_rma = sh->n_nodes > 1 || (sh->disabled & (1u << SHOAL_TRANSPORT_SHM));
    SHOAL__MPI_CHECK(sh, call, MPI_Allreduce(&need_rma, &any_rma, 1, MPI_INT, MPI_MAX, sh->comm));
    if (any_rma) {
        SHOAL__MPI_CHECK(sh, call, MPI_Win_create(sh->heap_base, (MPI_Aint)sh->heap_size, 1, MPI_INFO_NULL, sh->comm,
                                                  &sh->rma_win));
        SHOAL__MPI_CHECK(sh, call, MPI_Win_set_errhandler(sh->rma_win, MPI_ERRORS_RETURN));
        SHOAL__MPI_CHECK(sh, call, MPI_Win_lock_all(MPI_MODE_NOCHECK, sh->rma_win));
        sh->rma_base = sh->heap_base;
    }
out:
    free(pad);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    return rc;
}

void shoal__heap_host_destroy(shoal_t sh)
{
    if (sh->broken) return; /* window frees are collective: peers are gone */
    if (sh->rma_win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(sh->rma_win);
        MPI_Win_free(&sh->rma_win);
    }
    if (sh->shm_win != MPI_WIN_NULL) MPI_Win_free(&sh->shm_win);
    sh->heap_base = NULL;
}
