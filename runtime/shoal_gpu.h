/* GPU heap state shared by runtime/gpu.c, the GPU transports
 * (runtime/transport/) and the stream-ordered API. CUDA builds only. */
#ifndef SHOAL_GPU_H
#define SHOAL_GPU_H

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>

#include "shoal_amo.h"
#include "shoal_device_types.h"
#include "shoal_gpu_share.h"
#include "shoal_instance.h"

/* Bytes behind each PE's heap for its control words: stream-barrier flags,
 * laid out as shoal_device_types.h says. */
#define SHOAL__GPU_CTRL_BYTES ((size_t)(SHOAL_DEVICE_TEAM_BASE + SHOAL_DEVICE_TEAMS * SHOAL_DEVICE_TEAM_WORDS) * 4)
_Static_assert((SHOAL_DEVICE_BARRIER_GEN + 1) <= SHOAL_DEVICE_TEAM_BASE, "control area too small");
_Static_assert(SHOAL_DEVICE_TEAMS >= SHOAL_TEAM_MAX, "a team's words for every team id");
_Static_assert(SHOAL_DEVICE_TEAM_GEN < SHOAL_DEVICE_TEAM_WORDS, "a team's words");
#define SHOAL__GPU_MAX_FLAG_PES SHOAL_DEVICE_MAX_PES
/* Fetching host atomics with _nbi outstanding at once; one more waits for them. */
#define SHOAL__GPU_AMO_SLOTS 1024

struct shoal_gpu {
    int device;                     /* CUDA ordinal in this process */
    char bus_id[32];                /* its PCI bus id */
    cudaStream_t stream;            /* internal copies */
    _Atomic uint64_t copies_queued; /* non-blocking copies queued on it (runtime/transport/gpu_mapped.c) */
    _Atomic uint64_t copies_done;   /* of those, known complete */
    char *ctrl;                     /* my control area (device memory, right after the heap) */
    char **peer_ctrl;               /* per PE: its control area mapped here, or NULL */
    void *raw;                      /* my cudaMalloc'd allocation (heap_base is aligned inside) */
    uint32_t stream_gen;            /* generation of the last stream barrier */
    char **dev_peer_base;           /* device copy of peer_base, for kernels (lazy) */
    unsigned int **dev_peer_ctrl;   /* device copy of peer_ctrl */
    shoal__gpu_id_t *node_gpus;     /* per node rank: the GPU that PE published (shoal_gpu_share.h) */
    /* Host atomics' old values (runtime/transport/gpu_mapped.c uses them,
     * runtime/gpu.c frees them): pinned slots the kernels write, and the
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
} shoal__gpu_info_t;

_Static_assert(sizeof(shoal__gpu_info_t) <= SHOAL__HEAP_DESC_GPU, "a GPU heap's record fits its place");

/* Node rank r's published GPU heap (after shoal__heap_desc_publish). */
static inline const shoal__gpu_info_t *shoal__gpu_node_info(shoal_t sh, int r)
{
    return (const shoal__gpu_info_t *)shoal__heap_desc(sh, r)->gpu;
}

/* Copies to a GPU heap mapped here (runtime/transport/gpu_mapped.c): the
 * data path of self and cuda_ipc on GPU heaps. */
SHOAL__HIDDEN int shoal__gpu_mapped_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n,
                                        int nbi);
SHOAL__HIDDEN int shoal__gpu_mapped_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi);
/* The same for height rows of width bytes (pitches in bytes): one
 * cudaMemcpy2DAsync on the internal stream. */
SHOAL__HIDDEN int shoal__gpu_mapped_put_2d(shoal_t sh, const char *call, int pe, size_t off, size_t pitch,
                                           const void *src, size_t spitch, size_t width, size_t height, int nbi);
SHOAL__HIDDEN int shoal__gpu_mapped_get_2d(shoal_t sh, const char *call, int pe, void *dst, size_t dpitch, size_t off,
                                           size_t pitch, size_t width, size_t height, int nbi);
/* Complete the internal stream's copies (safe from several threads). */
SHOAL__HIDDEN int shoal__gpu_quiet(shoal_t sh, const char *call);
SHOAL__HIDDEN int shoal__gpu_mapped_put_stream(shoal_t sh, const char *call, int pe, size_t off, const void *src,
                                               size_t n, void *stream);
SHOAL__HIDDEN int shoal__gpu_mapped_get_stream(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n,
                                               void *stream);
SHOAL__HIDDEN int shoal__gpu_mapped_p_stream(shoal_t sh, const char *call, int pe, size_t off, const void *value,
                                             size_t n, void *stream);
SHOAL__HIDDEN int shoal__gpu_quiet_stream(shoal_t sh, const char *call, void *stream);
/* Atomics on a GPU heap mapped here: a one-thread kernel on the internal
 * stream (on the caller's stream for amo_stream). */
SHOAL__HIDDEN int shoal__gpu_mapped_amo(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a,
                                        void *result, int nbi);
SHOAL__HIDDEN int shoal__gpu_mapped_amo_stream(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a,
                                               void *stream);

/* The data path of a transport table over GPU heaps mapped here (self and
 * cuda_ipc): the same functions in both. */
#define SHOAL__TP_GPU_MAPPED_OPS                                                                                       \
    .caps = SHOAL__TP_CAP_MAPPED | SHOAL__TP_CAP_STREAM, .put = shoal__gpu_mapped_put, .get = shoal__gpu_mapped_get,   \
    .quiet = shoal__gpu_quiet, .put_2d = shoal__gpu_mapped_put_2d, .get_2d = shoal__gpu_mapped_get_2d,                 \
    .put_stream = shoal__gpu_mapped_put_stream, .get_stream = shoal__gpu_mapped_get_stream,                            \
    .p_stream = shoal__gpu_mapped_p_stream, .quiet_stream = shoal__gpu_quiet_stream, .amo = shoal__gpu_mapped_amo,     \
    .amo_stream = shoal__gpu_mapped_amo_stream

SHOAL__HIDDEN int shoal__rma_on_stream(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n,
                                       int pe, cudaStream_t stream);
/* A 4- or 8-byte value stored into pe's heap in stream order. */
SHOAL__HIDDEN int shoal__p_on_stream(shoal_t sh, const char *call, void *dest, const void *value, size_t n, int pe,
                                     cudaStream_t stream);
SHOAL__HIDDEN int shoal__quiet_on_stream(shoal_t sh, cudaStream_t stream);
/* put_signal and signal_op in stream order (no data: nbytes 0), and the
 * stream's wait for this PE's signal. */
SHOAL__HIDDEN int shoal__put_signal_on_stream(shoal_t sh, const char *call, void *dest, const void *src, size_t nbytes,
                                              uint64_t *sig, uint64_t value, int op, int pe, cudaStream_t stream);
SHOAL__HIDDEN int shoal__signal_wait_on_stream(shoal_t sh, const char *call, uint64_t *sig, int cmp, uint64_t value,
                                               cudaStream_t stream);
SHOAL__HIDDEN int shoal__barrier_all_on_stream(shoal_t sh, cudaStream_t stream);
SHOAL__HIDDEN int shoal__device_get(shoal_t sh, shoal_device_t *dev_p);
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
 * SHOAL__MPI_TRY, runtime/shoal_error.h). */
#define SHOAL__CUDA_TRY(sh, call, st_, lbl_, expr)                                                                     \
    do {                                                                                                               \
        cudaError_t cuda_rc__ = (expr);                                                                                \
        if (SHOAL__UNLIKELY(cuda_rc__ != cudaSuccess)) {                                                               \
            (st_) = shoal__cuda_error((sh), (call), #expr, cuda_rc__);                                                 \
            goto lbl_;                                                                                                 \
        }                                                                                                              \
    } while (0)

#endif /* SHOAL_GPU_H */
