/* GPU heap state shared by runtime/gpu.c, the cuda_ipc transport and the
 * stream-ordered API. CUDA builds only. */
#ifndef SHOAL_GPU_H
#define SHOAL_GPU_H

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "shoal_device_types.h"
#include "shoal_gpu_share.h"
#include "shoal_internal.h"

/* Bytes behind each PE's heap for its control words: stream-barrier flags,
 * laid out as shoal_device_types.h says. */
#define SHOAL__GPU_CTRL_BYTES ((size_t)64 << 10)
_Static_assert((SHOAL_DEVICE_BARRIER_GEN + 1) * 4 <= (64 << 10), "control area too small");
#define SHOAL__GPU_MAX_FLAG_PES SHOAL_DEVICE_MAX_PES

struct shoal_gpu {
    int device;          /* CUDA ordinal in this process */
    char bus_id[32];     /* its PCI bus id */
    cudaStream_t stream; /* internal copies */
    bool stream_used;    /* copies possibly outstanding on it */
    char *ctrl;          /* my control area (device memory, right after the heap) */
    char **peer_ctrl;    /* per PE: its control area mapped here, or NULL */
    void **opened;       /* per PE: what cudaIpcOpenMemHandle returned, or NULL */
    void *raw;           /* my cudaMalloc'd allocation (heap_base is aligned inside) */
    shoal_topo_t topo;   /* loaded when SHOAL_P2P_LEVEL restricts cuda_ipc */
    struct shoal_stage *stage; /* staged transport (runtime/transport/staged.c), or NULL */
    uint32_t stream_gen; /* generation of the last stream barrier */
    char **dev_peer_base;        /* device copy of peer_base, for kernels (lazy) */
    unsigned int **dev_peer_ctrl; /* device copy of peer_ctrl */
    shoal__gpu_id_t *node_gpus;   /* per node rank: the GPU that PE published (shoal_gpu_share.h) */

    CUresult (*ctx_get_current)(CUcontext *);
    CUresult (*write_value32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
    CUresult (*wait_value32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
    CUresult (*write_value64)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
    CUresult (*batch_mem_op)(CUstream, unsigned int, CUstreamBatchMemOpParams *, unsigned int);
};

SHOAL__HIDDEN int shoal__rma_on_stream(shoal_t sh, const char *call, bool is_put, void *dest, const void *src,
                                       size_t n, int pe, cudaStream_t stream);
/* A 4- or 8-byte value stored into pe's heap in stream order. */
SHOAL__HIDDEN int shoal__p_on_stream(shoal_t sh, const char *call, void *dest, const void *value, size_t n, int pe,
                                     cudaStream_t stream);
SHOAL__HIDDEN int shoal__quiet_on_stream(shoal_t sh, cudaStream_t stream);
SHOAL__HIDDEN int shoal__barrier_all_on_stream(shoal_t sh, cudaStream_t stream);
SHOAL__HIDDEN int shoal__staged_create(shoal_t sh);
SHOAL__HIDDEN void shoal__staged_destroy(shoal_t sh);
SHOAL__HIDDEN int shoal__device_get(shoal_t sh, shoal_device_t *dev_p);
SHOAL__HIDDEN int shoal__cuda_error(shoal_t sh, const char *call, const char *what, cudaError_t err);

#endif /* SHOAL_GPU_H */
