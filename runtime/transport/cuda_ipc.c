/* cuda_ipc: GPU heaps of one node whose devices reach each other (NVLink or
 * PCIe peer access). Setup opens each such peer's heap with
 * cudaIpcOpenMemHandle from the handle it published (runtime/heap/gpu.c); a put
 * or get is then a copy-engine copy (runtime/transport/gpu_mapped.c), and
 * the data never touches the host. Which peers may use it is the policy's
 * decision (SHOAL_P2P_LEVEL, SHOAL_TRANSPORT_DISABLE); whether CUDA grants
 * the access is asked here.
 *
 * Registered GPU ranges (runtime/heap/shoal_register.h) are opened the same
 * way when they are registered: the node's PEs exchange their ranges'
 * handles, and each opens those of its cuda_ipc peers. Several ranges may
 * lie in one peer allocation, which is opened once (counted). */
#if SHOAL_HAVE_CUDA
#include <stdlib.h>
#include <string.h>

#include "heap/shoal_gpu.h"
#include "transport/transport.h"
#include "transport/gpu_mapped.h"

/* One peer allocation holding registered GPU ranges, mapped here. */
typedef struct cuda_ipc_map {
    int pe;
    uint64_t alloc; /* where it starts in pe's process */
    char *ptr;      /* where it is mapped here */
    unsigned refs;  /* registered ranges in it */
} cuda_ipc_map_t;

typedef struct cuda_ipc_state {
    void **opened; /* per PE: its heap's allocation mapped here, or NULL */
    cuda_ipc_map_t *maps;
    size_t n_maps, cap_maps;
} cuda_ipc_state_t;

/* What each PE of the node says of a range being registered. */
typedef struct cuda_ipc_reg_info {
    char handle[64];
    uint64_t delta, alloc;
} cuda_ipc_reg_info_t;

static cuda_ipc_state_t *cuda_ipc_state(shoal_t sh) { return sh->tp_state[SHOAL_TRANSPORT_CUDA_IPC]; }

/* Open peer pe's heap (node rank r) if CUDA lets this device reach it: a
 * fixed heap by its IPC handle, a growing one by mapping the chunks it
 * passes over the node's sockets (runtime/heap/gpu_vmm.c). */
static int cuda_ipc_open(shoal_t sh, int pe, int r, const shoal__gpu_info_t *info, void **opened_p)
{
    static const char *call = "shoal_init";
    struct shoal_gpu *g = sh->gpu;
    int peer_dev = -1, can = 0;
    void *ptr = NULL;
    cudaError_t err;

    if (cudaDeviceGetByPCIBusId(&peer_dev, info->id.bus_id) != cudaSuccess) {
        cudaGetLastError();
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "PE %d's GPU %s is not visible here: no cuda_ipc", pe,
                   info->id.bus_id);
        return SHOAL_SUCCESS;
    }
    if (peer_dev != g->device) {
        err = cudaDeviceCanAccessPeer(&can, g->device, peer_dev);
        if (err != cudaSuccess) return shoal__cuda_error(sh, call, "cudaDeviceCanAccessPeer", err);
        if (!can) {
            SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "GPU %d cannot access GPU %d (PE %d): no cuda_ipc", g->device,
                       peer_dev, pe);
            return SHOAL_SUCCESS;
        }
    }
    if (g->vmm != NULL) {
        char *base = NULL, *ctrl = NULL;
        int rc = shoal__vmm_open_peer(sh, r, &base, &ctrl);
        if (rc != SHOAL_SUCCESS) return rc;
        *opened_p = base; /* closed by the heap (shoal__vmm_destroy) */
        sh->peer_base[pe] = base;
        g->peer_ctrl[pe] = ctrl;
        return SHOAL_SUCCESS;
    }
    err = cudaIpcOpenMemHandle(&ptr, info->handle, cudaIpcMemLazyEnablePeerAccess);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return shoal__error(sh, SHOAL_ERR_CUDA, call, "cannot open PE %d's heap (GPU %s) with cudaIpcOpenMemHandle: %s",
                            pe, info->id.bus_id, cudaGetErrorString(err));
    }
    *opened_p = ptr;
    sh->peer_base[pe] = (char *)ptr + info->delta;
    g->peer_ctrl[pe] = sh->peer_base[pe] + info->heap_size;
    return SHOAL_SUCCESS;
}

static int cuda_ipc_setup(shoal_t sh, bool need)
{
    cuda_ipc_state_t *st;
    int rc = SHOAL_SUCCESS;

    if (!need) return SHOAL_SUCCESS;
    st = calloc(1, sizeof(*st));
    if (st != NULL) st->opened = calloc((size_t)sh->n_pes, sizeof(void *));
    if (st == NULL || st->opened == NULL) {
        free(st);
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, "shoal_init", "out of memory");
    }
    sh->tp_state[SHOAL_TRANSPORT_CUDA_IPC] = st;
    for (int r = 0; r < sh->node_size && rc == SHOAL_SUCCESS; r++) {
        int pe = sh->node_pes[r];
        if (pe != sh->my_pe && shoal__tp_candidate(sh, pe, SHOAL_TRANSPORT_CUDA_IPC))
            rc = cuda_ipc_open(sh, pe, r, shoal__gpu_node_info(sh, r), &st->opened[pe]);
    }
    return rc;
}

static bool cuda_ipc_connect(shoal_t sh, int pe)
{
    cuda_ipc_state_t *st = cuda_ipc_state(sh);
    return st != NULL && st->opened[pe] != NULL;
}

static void cuda_ipc_teardown(shoal_t sh)
{
    cuda_ipc_state_t *st = cuda_ipc_state(sh);
    if (st == NULL) return;
    /* No copy of the internal stream may still use a mapping. */
    if (sh->gpu->stream != NULL) cudaStreamSynchronize(sh->gpu->stream);
    for (int pe = 0; pe < sh->n_pes; pe++)
        if (st->opened[pe] != NULL) {
            if (sh->gpu->vmm == NULL) cudaIpcCloseMemHandle(st->opened[pe]);
            sh->peer_base[pe] = NULL;
            sh->gpu->peer_ctrl[pe] = NULL;
        }
    /* Ranges still registered went before (shoal__registers_free). */
    for (size_t i = 0; i < st->n_maps; i++) cudaIpcCloseMemHandle(st->maps[i].ptr);
    cudaGetLastError();
    free(st->maps);
    free(st->opened);
    free(st);
    sh->tp_state[SHOAL_TRANSPORT_CUDA_IPC] = NULL;
}

/* pe's allocation at alloc, mapped here: the one opened already (one more
 * range in it), or opened now from handle. */
static int cuda_ipc_map(shoal_t sh, const char *call, cuda_ipc_state_t *st, int pe, const cuda_ipc_reg_info_t *in,
                        char **ptr_p)
{
    cudaIpcMemHandle_t h;
    void *ptr = NULL;
    cudaError_t err;

    for (size_t i = 0; i < st->n_maps; i++)
        if (st->maps[i].pe == pe && st->maps[i].alloc == in->alloc) {
            st->maps[i].refs++;
            *ptr_p = st->maps[i].ptr;
            return SHOAL_SUCCESS;
        }
    if (st->n_maps == st->cap_maps) {
        size_t cap = st->cap_maps ? 2 * st->cap_maps : 8;
        cuda_ipc_map_t *m = realloc(st->maps, cap * sizeof(*m));
        if (m == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        st->maps = m;
        st->cap_maps = cap;
    }
    memcpy(&h, in->handle, sizeof(h));
    err = cudaIpcOpenMemHandle(&ptr, h, cudaIpcMemLazyEnablePeerAccess);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return shoal__error(sh, SHOAL_ERR_CUDA, call,
                            "cannot open PE %d's registered GPU range (its allocation at 0x%llx) with "
                            "cudaIpcOpenMemHandle: %s",
                            pe, (unsigned long long)in->alloc, cudaGetErrorString(err));
    }
    st->maps[st->n_maps++] = (cuda_ipc_map_t){.pe = pe, .alloc = in->alloc, .ptr = ptr, .refs = 1};
    *ptr_p = ptr;
    return SHOAL_SUCCESS;
}

/* Every PE of the node takes part (the exchange is over node_comm), also
 * one that reaches no peer through cuda_ipc: a non-blocking allgather,
 * waited for at most SHOAL_TIMEOUT (every PE of the node met in the
 * rendezvous, so only one that stopped keeps it waiting). */
static int cuda_ipc_reg_attach(shoal_t sh, const char *call, shoal__reg_t *r)
{
    cuda_ipc_state_t *st = cuda_ipc_state(sh);
    cuda_ipc_reg_info_t *all;
    MPI_Request req;
    int rc = SHOAL_SUCCESS, mrc;
    size_t n = (size_t)sh->node_size;

    if (sh->node_size < 2) return SHOAL_SUCCESS;
    all = malloc((n + 1) * sizeof(*all)); /* every node rank's, then this PE's */
    if (all == NULL) {
        sh->broken = true; /* the node's other PEs wait for this one in vain */
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    }
    memcpy(all[n].handle, r->ipc_handle, sizeof(all[n].handle));
    all[n].delta = r->ipc_delta;
    all[n].alloc = r->ipc_alloc;
    mrc = MPI_Iallgather(&all[n], (int)sizeof(*all), MPI_BYTE, all, (int)sizeof(*all), MPI_BYTE, sh->node_comm, &req);
    if (mrc == MPI_SUCCESS)
        mrc = shoal__wait_mpi(sh, &req, all);
    else
        free(all);
    if (mrc != SHOAL_SUCCESS && mrc != MPI_SUCCESS) {
        sh->broken = true;
        return shoal__error(sh, mrc == SHOAL_ERR_TIMEOUT ? SHOAL_ERR_TIMEOUT : SHOAL_ERR_MPI, call,
                            "exchanging the IPC handles of a registered GPU range with this node's PEs %s; only "
                            "shoal_finalize is possible now",
                            mrc == SHOAL_ERR_TIMEOUT ? "timed out (SHOAL_TIMEOUT)" : "failed in MPI");
    }
    for (int i = 0; i < sh->node_size && st != NULL; i++) {
        int pe = sh->node_pes[i];
        char *ptr = NULL;
        if (pe == sh->my_pe || sh->pe_tp[pe] != &shoal__tp_cuda_ipc) continue;
        rc = cuda_ipc_map(sh, call, st, pe, &all[i], &ptr);
        if (rc != SHOAL_SUCCESS) break;
        r->peer[pe] = ptr + all[i].delta;
    }
    free(all);
    return rc;
}

static void cuda_ipc_reg_detach(shoal_t sh, shoal__reg_t *r)
{
    cuda_ipc_state_t *st = cuda_ipc_state(sh);

    if (st == NULL) return;
    /* No copy of the internal stream may still use a mapping. */
    if (sh->gpu->stream != NULL) cudaStreamSynchronize(sh->gpu->stream);
    for (int pe = 0; pe < sh->n_pes; pe++) {
        size_t best = st->n_maps;
        if (pe == sh->my_pe || r->peer[pe] == NULL || sh->pe_tp[pe] != &shoal__tp_cuda_ipc) continue;
        /* The mapping holding it: pe's that starts last at or before it
         * (one peer's allocations do not overlap). */
        for (size_t i = 0; i < st->n_maps; i++)
            if (st->maps[i].pe == pe && st->maps[i].ptr <= r->peer[pe] &&
                (best == st->n_maps || st->maps[i].ptr > st->maps[best].ptr))
                best = i;
        r->peer[pe] = NULL;
        if (best == st->n_maps || --st->maps[best].refs > 0) continue;
        cudaIpcCloseMemHandle(st->maps[best].ptr);
        cudaGetLastError();
        st->maps[best] = st->maps[--st->n_maps];
    }
}

const shoal__tp_ops_t shoal__tp_cuda_ipc = {
    .name = "cuda_ipc",
    .id = SHOAL_TRANSPORT_CUDA_IPC,
    .heap_kind = SHOAL_HEAP_GPU,
    .setup = cuda_ipc_setup,
    .connect = cuda_ipc_connect,
    .teardown = cuda_ipc_teardown,
    .reg_attach = cuda_ipc_reg_attach,
    .reg_detach = cuda_ipc_reg_detach,
    SHOAL__TP_GPU_MAPPED_OPS,
};
#endif
