/* Copies to a GPU heap mapped in this process: this PE's own (self) or a
 * peer's opened through CUDA IPC (cuda_ipc). Both transports' tables point
 * here. Host-ordered copies run on the instance's internal stream; the
 * stream-ordered ones on the caller's stream.
 *
 * Threads: several threads may copy and quiet at once. The internal stream
 * is a CUDA object safe for that; whether it may hold unfinished copies is
 * an atomic flag, raised after a copy is queued and dropped by a quiet only
 * before it synchronizes, so a quiet never misses a copy queued before it. */
#if SHOAL_HAVE_CUDA
#include <string.h>

#include "shoal_gpu.h"
#include "transport.h"

static int gpu_mapped_copy(shoal_t sh, const char *call, void *dst, const void *src, size_t n, int nbi)
{
    struct shoal_gpu *g = sh->gpu;
    cudaError_t err = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, g->stream);

    if (SHOAL__UNLIKELY(err != cudaSuccess)) return shoal__cuda_error(sh, call, "cudaMemcpyAsync", err);
    if (nbi) {
        atomic_store_explicit(&g->stream_used, 1, memory_order_release);
        return SHOAL_SUCCESS;
    }
    err = cudaStreamSynchronize(g->stream);
    if (SHOAL__UNLIKELY(err != cudaSuccess)) return shoal__cuda_error(sh, call, "cudaStreamSynchronize", err);
    return SHOAL_SUCCESS;
}

int shoal__gpu_mapped_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    return gpu_mapped_copy(sh, call, sh->peer_base[pe] + off, src, n, nbi);
}

int shoal__gpu_mapped_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    return gpu_mapped_copy(sh, call, dst, sh->peer_base[pe] + off, n, nbi);
}

int shoal__gpu_quiet(shoal_t sh, const char *call)
{
    struct shoal_gpu *g = sh->gpu;
    cudaError_t err;

    if (g == NULL || !atomic_exchange_explicit(&g->stream_used, 0, memory_order_acq_rel)) return SHOAL_SUCCESS;
    err = cudaStreamSynchronize(g->stream);
    if (err != cudaSuccess) {
        atomic_store_explicit(&g->stream_used, 1, memory_order_release); /* still owed */
        return shoal__cuda_error(sh, call, "cudaStreamSynchronize(internal stream)", err);
    }
    return SHOAL_SUCCESS;
}

int shoal__gpu_mapped_put_stream(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n,
                                 void *stream)
{
    cudaError_t err = cudaMemcpyAsync(sh->peer_base[pe] + off, src, n, cudaMemcpyDefault, (cudaStream_t)stream);
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, "cudaMemcpyAsync(on stream)", err);
}

int shoal__gpu_mapped_get_stream(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, void *stream)
{
    cudaError_t err = cudaMemcpyAsync(dst, sh->peer_base[pe] + off, n, cudaMemcpyDefault, (cudaStream_t)stream);
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, "cudaMemcpyAsync(on stream)", err);
}

/* The value travels in the stream operation itself: no copy engine, no
 * source buffer to keep alive. */
int shoal__gpu_mapped_p_stream(shoal_t sh, const char *call, int pe, size_t off, const void *value, size_t n,
                               void *stream)
{
    struct shoal_gpu *g = sh->gpu;
    char *peer = sh->peer_base[pe] + off;
    CUresult cr;

    if (n == 8) {
        uint64_t v;
        memcpy(&v, value, 8);
        cr = g->write_value64((CUstream)stream, (CUdeviceptr)peer, v, CU_STREAM_WRITE_VALUE_DEFAULT);
    } else {
        uint32_t v;
        memcpy(&v, value, 4);
        cr = g->write_value32((CUstream)stream, (CUdeviceptr)peer, v, CU_STREAM_WRITE_VALUE_DEFAULT);
    }
    if (cr != CUDA_SUCCESS)
        return shoal__error(sh, SHOAL_ERR_CUDA, call, "cuStreamWriteValue failed with CUresult %d", (int)cr);
    return SHOAL_SUCCESS;
}

/* stream waits for the internal stream's copies (an event joins them). */
int shoal__gpu_quiet_stream(shoal_t sh, const char *call, void *stream)
{
    struct shoal_gpu *g = sh->gpu;
    cudaEvent_t ev = NULL;
    cudaError_t err;

    if (g == NULL || !atomic_load_explicit(&g->stream_used, memory_order_acquire)) return SHOAL_SUCCESS;
    err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventRecord(ev, g->stream);
    if (err == cudaSuccess) err = cudaStreamWaitEvent((cudaStream_t)stream, ev, 0);
    if (ev != NULL) cudaEventDestroy(ev);
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, "joining the internal stream", err);
}
#endif
