/* Host heap: one MPI shared window per node, so node peers load and store
 * each other's segments directly (the shm transport). PEs on other nodes
 * reach it through the mpi_rma transport's window. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "shoal_instance.h"

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
static size_t shoal__heap_segment(size_t heap_size) { return shoal__heap_span(heap_size) + SHOAL__HEAP_ALIGN; }

int shoal__heap_host_precheck(shoal_t sh)
{
    static const char *call = "shoal_init";
    const char *dir = "/dev/shm";
    shoal__robust_t *sd = shoal__robust(sh);
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
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot map a host heap of %zu bytes (mmap: %s); lower %s",
                            sh->heap_size, strerror(errno), shoal__heap_size_knob(sh));
    sh->heap_base = shoal__align_up(m);
    end = sh->heap_base + span;
    if (sh->heap_base > m) munmap(m, (size_t)(sh->heap_base - m));
    if (m + len > end) munmap(end, (size_t)(m + len - end));
    return SHOAL_SUCCESS;
}

size_t shoal__heap_host_span(shoal_t sh) { return shoal__heap_span(sh->heap_size); }

int shoal__heap_host_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    MPI_Info info = MPI_INFO_NULL;
    void *base = NULL;
    shoal__heap_desc_t *mine;
    int rc = SHOAL_SUCCESS, prc;

    if (sh->node_size < 2) {
        rc = shoal__heap_host_map_own(sh, call);
        sh->peer_base[sh->my_pe] = sh->heap_base;
        goto out;
    }
    mine = shoal__heap_desc(sh, sh->node_rank);
    memset(mine, 0, sizeof(*mine)); /* kind 0 until the heap exists: a failure shows */
    /* Separate segments per PE: each starts page-aligned on its own. */
    SHOAL__MPI_TRY(sh, call, rc, publish, MPI_Info_create(&info));
    SHOAL__MPI_TRY(sh, call, rc, publish, MPI_Info_set(info, "alloc_shared_noncontig", "true"));
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
        goto publish;
    }
    SHOAL__MPI_TRY(sh, call, rc, publish, MPI_Win_set_errhandler(sh->shm_win, MPI_ERRORS_RETURN));
    /* Each process maps the window at its own addresses: the owner picks
     * the padding that aligns its view, and peers apply the same padding. */
    sh->heap_base = shoal__align_up(base);
    mine->pad = (uint64_t)(sh->heap_base - (char *)base);
    mine->heap_size = sh->heap_size;
    mine->kind = SHOAL_HEAP_HOST;

publish:
    /* Every PE of the node publishes its record, even one that failed (its
     * record says so): none waits for another in vain. */
    prc = shoal__heap_desc_publish(sh, call);
    if (rc == SHOAL_SUCCESS) rc = prc;
    for (int r = 0; rc == SHOAL_SUCCESS && r < sh->node_size; r++) {
        const shoal__heap_desc_t *d = shoal__heap_desc(sh, r);
        MPI_Aint size;
        int disp;
        void *peer;
        if (d->kind != SHOAL_HEAP_HOST) {
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "PE %d could not create its host heap", sh->node_pes[r]);
            break;
        }
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_shared_query(sh->shm_win, r, &size, &disp, &peer));
        sh->peer_base[sh->node_pes[r]] = (char *)peer + d->pad;
    }
    if (rc == SHOAL_SUCCESS) sh->peer_base[sh->my_pe] = sh->heap_base;

out:
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    return rc;
}

void shoal__heap_host_destroy(shoal_t sh)
{
    size_t span = shoal__heap_span(sh->heap_size);

    if (sh->broken) return; /* window frees are collective: peers are gone */
    if (sh->heap_kind != SHOAL_HEAP_HOST) return;
    if (sh->shm_win != MPI_WIN_NULL)
        MPI_Win_free(&sh->shm_win);
    else if (sh->heap_base != NULL)
        munmap(sh->heap_base, span); /* a PE alone on its node */
    sh->heap_base = NULL;
}
