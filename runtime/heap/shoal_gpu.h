/* The GPU heap (runtime/heap/gpu.c): its state, shared with the GPU
 * transports (runtime/transport/) and the stream-ordered API
 * (runtime/ops/gpu_stream.c). CUDA builds only. */
#ifndef SHOAL_GPU_H
#define SHOAL_GPU_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>

#include "shoal_device_types.h"
#include "heap/shoal_gpu_share.h"
#include "heap/shoal_heap.h"
#include "base/shoal_instance.h"

/* Bytes behind each PE's heap for its control words: stream-barrier flags,
 * laid out as shoal_device_types.h says. */
#define SHOAL__GPU_CTRL_BYTES ((size_t)(SHOAL_DEVICE_TEAM_BASE + SHOAL_DEVICE_TEAMS * SHOAL_DEVICE_TEAM_WORDS) * 4)
_Static_assert((SHOAL_DEVICE_BARRIER_STATUS + 1) <= SHOAL_DEVICE_TEAM_BASE, "control area too small");
_Static_assert(SHOAL_DEVICE_TEAMS >= SHOAL_TEAM_MAX, "a team's words for every team id");
_Static_assert(SHOAL_DEVICE_TEAM_GEN < SHOAL_DEVICE_TEAM_WORDS, "a team's words");
#define SHOAL__GPU_MAX_FLAG_PES SHOAL_DEVICE_MAX_PES
/* Fetching host atomics with _nbi outstanding at once; one more waits for them. */
#define SHOAL__GPU_AMO_SLOTS 1024

/* A growing heap's state (runtime/heap/gpu_vmm.c); NULL for a fixed heap. */
typedef struct shoal__vmm shoal__vmm_t;

struct shoal_gpu {
    int device;                     /* CUDA ordinal in this process */
    shoal__vmm_t *vmm;              /* the heap grows (CUDA's virtual memory); NULL: one cudaMalloc */
    char bus_id[32];                /* its PCI bus id */
    cudaStream_t stream;            /* internal copies */
    _Atomic uint64_t copies_queued; /* non-blocking copies queued on it (runtime/transport/gpu_mapped.c) */
    _Atomic uint64_t copies_done;   /* of those, known complete */
    char *ctrl;                     /* my control area (device memory, right after the heap) */
    char **peer_ctrl;               /* per PE: its control area mapped here, or NULL */
    void *raw;                      /* my cudaMalloc'd allocation (heap_base is aligned inside) */
    uint32_t stream_gen;            /* generation of the last stream barrier */
    /* Agreed by every PE at init (shoal__gpu_reach_agree): every PE maps
     * every PE's heap (kernels' barriers are flat), and every node's PEs
     * map each other's (kernels' barriers are hierarchical; else every PE
     * meets through its device proxy). */
    bool all_mapped, nodes_mapped;
    char **dev_peer_base;         /* device copy of peer_base, for kernels (lazy) */
    unsigned int **dev_peer_ctrl; /* device copy of peer_ctrl */
    shoal__gpu_id_t *node_gpus;   /* per node rank: the GPU that PE published (shoal_gpu_share.h) */
    /* Host atomics' old values (runtime/transport/gpu_mapped.c uses them,
     * runtime/heap/gpu.c frees them): pinned slots the kernels write, and the
     * nbi ones still to hand over. */
    pthread_mutex_t amo_lock;
    uint64_t *amo_slots; /* SHOAL__GPU_AMO_SLOTS + 1 (the last: blocking calls) */
    struct shoal__gpu_amo_pending {
        void *dst;
        uint32_t size;
    } * amo_pending;      /* per slot: where its value goes */
    size_t amo_n_pending; /* slots [0, n) in use */
    bool amo_lock_ready;

    CUresult (*ctx_get_current)(CUcontext *);
    CUresult (*write_value32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
    CUresult (*wait_value32)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
    CUresult (*write_value64)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
    CUresult (*wait_value64)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
    CUresult (*batch_mem_op)(CUstream, unsigned int, CUstreamBatchMemOpParams *, unsigned int);
    CUresult (*mem_get_address_range)(CUdeviceptr *, size_t *, CUdeviceptr);
};

/* What each PE publishes of its GPU heap to its node at init. */
typedef struct shoal__gpu_info {
    cudaIpcMemHandle_t handle; /* of the heap allocation (heap + control area) */
    shoal__gpu_id_t id;        /* its GPU: PCI bus id, UUID, MPS active */
    uint64_t heap_size;
    uint64_t delta; /* heap base minus allocation base */
    int32_t device;
    int32_t vmm;       /* 1: a growing heap, shared over the node's sockets (no IPC handle) */
    char vmm_sock[40]; /* its socket's abstract name */
} shoal__gpu_info_t;

_Static_assert(sizeof(shoal__gpu_info_t) <= SHOAL__HEAP_DESC_GPU, "a GPU heap's record fits its place");

/* The growing heap (runtime/heap/gpu_vmm.c). shoal__vmm_plan, collective
 * at init: every PE grows its heap (g->vmm set; SHOAL_HEAP_SIZE unset: the
 * limit becomes the smallest GPU's memory) or none does (INFO says why).
 * create: reserve the range, map the control area. connect: the node's
 * PEs connect their sockets (names: per node rank); share_ctrl: pass the
 * control areas' handles (both collective over the node). open_peer: map
 * node rank r's heap here (the cuda_ipc transport). Growth and trim are
 * runtime/heap/shoal_heap.h's shoal__heap_gpu_*, defined in gpu_vmm.c. */
SHOAL__HIDDEN int shoal__vmm_plan(shoal_t sh);
SHOAL__HIDDEN int shoal__vmm_create(shoal_t sh, char **heap_base_p, char **ctrl_p);
SHOAL__HIDDEN int shoal__vmm_connect(shoal_t sh, const char *const *names);
SHOAL__HIDDEN int shoal__vmm_share_ctrl(shoal_t sh);
SHOAL__HIDDEN int shoal__vmm_open_peer(shoal_t sh, int r, char **base_p, char **ctrl_p);
SHOAL__HIDDEN const char *shoal__vmm_sock_name(shoal_t sh);
SHOAL__HIDDEN void shoal__vmm_destroy(shoal_t sh);

/* Node rank r's published GPU heap (after shoal__heap_desc_publish). */
static inline const shoal__gpu_info_t *shoal__gpu_node_info(shoal_t sh, int r)
{
    return (const shoal__gpu_info_t *)shoal__heap_desc(sh, r)->gpu;
}

SHOAL__HIDDEN int shoal__device_get(shoal_t sh, shoal_device_t *dev_p);
/* Collective, after the transports connected: agree all_mapped and
 * nodes_mapped, so that every PE's kernels take the same kind of barrier. */
SHOAL__HIDDEN int shoal__gpu_reach_agree(shoal_t sh);
/* The stream the calling thread's internal copies and atomic kernels use:
 * the heap's blocking stream, which waits for the application's earlier
 * work on the legacy default stream, as a blocking call should; or, in a
 * thread that set its own (the device proxy, which must never wait for the
 * kernels it serves), that one, and every operation it issues is then
 * complete on return. */
SHOAL__HIDDEN void shoal__gpu_set_thread_stream(cudaStream_t stream, uint64_t *slot);
SHOAL__HIDDEN cudaStream_t shoal__gpu_thread_stream(void);
/* That thread's pinned word for an atomic's old value (its atomics take no
 * lock the application's threads hold). */
SHOAL__HIDDEN uint64_t *shoal__gpu_thread_slot(void);
static inline cudaStream_t shoal__gpu_stream(shoal_t sh)
{
    cudaStream_t s = shoal__gpu_thread_stream();
    return s != NULL ? s : sh->gpu->stream;
}
/* n bytes between any two buffers (one of them on the GPU), complete on
 * return: cudaMemcpy, or on the thread's own stream where it set one. what
 * names the copy in an error. */
SHOAL__HIDDEN int shoal__gpu_copy(shoal_t sh, const char *call, const char *what, void *dst, const void *src, size_t n);
SHOAL__HIDDEN int shoal__cuda_error(shoal_t sh, const char *call, const char *what, cudaError_t err);
/* Is p device (or managed) memory? */
SHOAL__HIDDEN bool shoal__gpu_on_device(const void *p);
/* shoal_register of GPU memory: [base, base + size) must be device memory
 * of this instance's GPU (not managed), inside one cudaMalloc allocation
 * other than the heap's. handle (64 bytes): that allocation's IPC handle;
 * *delta_p: base minus its start; *alloc_p: its start. */
SHOAL__HIDDEN int shoal__gpu_reg_prepare(shoal_t sh, const char *call, void *base, size_t size, void *handle,
                                         uint64_t *delta_p, uint64_t *alloc_p);
/* expr returns a cudaError_t: CUDA's message is recorded on sh, naming the
 * API call call; st_ gets the status and control goes to lbl_ (as
 * SHOAL__MPI_TRY, runtime/base/shoal_error.h). */
#define SHOAL__CUDA_TRY(sh, call, st_, lbl_, expr)                                                                     \
    do {                                                                                                               \
        cudaError_t cuda_rc__ = (expr);                                                                                \
        if (SHOAL__UNLIKELY(cuda_rc__ != cudaSuccess)) {                                                               \
            (st_) = shoal__cuda_error((sh), (call), #expr, cuda_rc__);                                                 \
            goto lbl_;                                                                                                 \
        }                                                                                                              \
    } while (0)

#endif /* SHOAL_GPU_H */
