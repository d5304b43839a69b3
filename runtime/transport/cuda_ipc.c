/* cuda_ipc: GPU heaps of one node whose devices reach each other (NVLink or
 * PCIe peer access). Setup opens each such peer's heap with
 * cudaIpcOpenMemHandle from the handle it published (runtime/gpu.c); a put
 * or get is then a copy-engine copy (runtime/transport/gpu_mapped.c), and
 * the data never touches the host. Which peers may use it is the policy's
 * decision (SHOAL_P2P_LEVEL, SHOAL_TRANSPORT_DISABLE); whether CUDA grants
 * the access is asked here. */
#if SHOAL_HAVE_CUDA
#include <stdlib.h>

#include "shoal_gpu.h"
#include "transport.h"

/* Open peer pe's heap (node rank r) if CUDA lets this device reach it. */
static int cuda_ipc_open(shoal_t sh, int pe, const shoal__gpu_info_t *info, void **opened_p)
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
    void **opened;
    int rc = SHOAL_SUCCESS;

    if (!need) return SHOAL_SUCCESS;
    opened = calloc((size_t)sh->n_pes, sizeof(void *));
    if (opened == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, "shoal_init", "out of memory");
    sh->tp_state[SHOAL_TRANSPORT_CUDA_IPC] = opened;
    for (int r = 0; r < sh->node_size && rc == SHOAL_SUCCESS; r++) {
        int pe = sh->node_pes[r];
        if (pe != sh->my_pe && shoal__tp_candidate(sh, pe, SHOAL_TRANSPORT_CUDA_IPC))
            rc = cuda_ipc_open(sh, pe, shoal__gpu_node_info(sh, r), &opened[pe]);
    }
    return rc;
}

static bool cuda_ipc_connect(shoal_t sh, int pe)
{
    void **opened = sh->tp_state[SHOAL_TRANSPORT_CUDA_IPC];
    return opened != NULL && opened[pe] != NULL;
}

static void cuda_ipc_teardown(shoal_t sh)
{
    void **opened = sh->tp_state[SHOAL_TRANSPORT_CUDA_IPC];
    if (opened == NULL) return;
    /* No copy of the internal stream may still use a mapping. */
    if (sh->gpu->stream != NULL) cudaStreamSynchronize(sh->gpu->stream);
    for (int pe = 0; pe < sh->n_pes; pe++)
        if (opened[pe] != NULL) {
            cudaIpcCloseMemHandle(opened[pe]);
            sh->peer_base[pe] = NULL;
            sh->gpu->peer_ctrl[pe] = NULL;
        }
    cudaGetLastError();
    free(opened);
    sh->tp_state[SHOAL_TRANSPORT_CUDA_IPC] = NULL;
}

const shoal__tp_ops_t shoal__tp_cuda_ipc = {
    .name = "cuda_ipc",
    .id = SHOAL_TRANSPORT_CUDA_IPC,
    .heap_kind = SHOAL_HEAP_GPU,
    .setup = cuda_ipc_setup,
    .connect = cuda_ipc_connect,
    .teardown = cuda_ipc_teardown,
    SHOAL__TP_GPU_MAPPED_OPS,
};
#endif
