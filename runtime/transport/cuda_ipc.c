/* cuda_ipc: GPU heaps of one node whose devices reach each other (NVLink or
 * PCIe peer access). The peer's heap was opened at init with
 * cudaIpcOpenMemHandle; a put or get is a copy-engine copy on the
 * instance's internal stream, and the data never touches the host. */
#include "shoal_internal.h"

static bool cuda_ipc_can_connect(shoal_t sh, int pe)
{
    return sh->heap_kind == SHOAL_HEAP_GPU && pe != sh->my_pe && sh->pe_node[pe] == sh->node_id &&
           sh->peer_base[pe] != NULL;
}

static int cuda_ipc_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    return shoal__gpu_copy(sh, call, sh->peer_base[pe] + off, src, n, nbi);
}

static int cuda_ipc_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    return shoal__gpu_copy(sh, call, dst, sh->peer_base[pe] + off, n, nbi);
}

static int cuda_ipc_quiet(shoal_t sh, const char *call) { return shoal__gpu_quiet(sh, call); }

const shoal__transport_t shoal__transport_cuda_ipc = {
    .name = "cuda_ipc",
    .id = SHOAL_TRANSPORT_CUDA_IPC,
    .can_connect = cuda_ipc_can_connect,
    .put = cuda_ipc_put,
    .get = cuda_ipc_get,
    .quiet = cuda_ipc_quiet,
};
