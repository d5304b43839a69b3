/* Copies to a GPU heap mapped in this process: this PE's own (self) or a
 * peer's opened through CUDA IPC (cuda_ipc). Both transports' tables point
 * here. Host-ordered copies run on the instance's internal stream; the
 * stream-ordered ones on the caller's stream.
 *
 * Threads: several threads may copy and quiet at once. The internal stream
 * is a CUDA object safe for that. Two counters say what it may still hold:
 * copies queued (bumped after each non-blocking copy is queued) and copies
 * known complete (raised by a quiet to the count it saw before it
 * synchronized). A quiet, or a stream's join, that finds them equal has
 * nothing to wait for; otherwise it waits for everything queued before it. */
#if SHOAL_HAVE_CUDA
#include <stdlib.h>
#include <string.h>

#include "heap/gpu_amo.h"
#include "heap/shoal_gpu.h"
#include "transport/transport.h"
#include "transport/gpu_mapped.h"

/* Where pe's byte off (heap, or registered GPU range) is mapped here. */
static inline int gpu_mapped_at(shoal_t sh, const char *call, int pe, size_t off, char **p)
{
    *p = shoal__tp_addr(sh, pe, off);
    if (SHOAL__LIKELY(*p != NULL)) return SHOAL_SUCCESS;
    return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                        "registered GPU range %llu of PE %d is not mapped here (deregistered while in use?)",
                        (unsigned long long)(off >> SHOAL__REG_SEG_SHIFT), pe);
}

/* Queued on the internal stream: done, or wait for it (blocking). */
static int gpu_mapped_queued(shoal_t sh, const char *call, int nbi)
{
    struct shoal_gpu *g = sh->gpu;
    cudaError_t err;

    if (nbi && shoal__gpu_thread_stream() == NULL) {
        atomic_fetch_add_explicit(&g->copies_queued, 1, memory_order_acq_rel);
        return SHOAL_SUCCESS;
    }
    err = cudaStreamSynchronize(shoal__gpu_stream(sh));
    if (SHOAL__UNLIKELY(err != cudaSuccess)) return shoal__cuda_error(sh, call, "cudaStreamSynchronize", err);
    return SHOAL_SUCCESS;
}

static int gpu_mapped_copy(shoal_t sh, const char *call, void *dst, const void *src, size_t n, int nbi)
{
    cudaError_t err = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, shoal__gpu_stream(sh));

    if (SHOAL__UNLIKELY(err != cudaSuccess)) return shoal__cuda_error(sh, call, "cudaMemcpyAsync", err);
    return gpu_mapped_queued(sh, call, nbi);
}

/* One copy-engine operation for the whole rectangle. A pitch beyond the
 * device's limit (cudaDevAttrMaxPitch) is refused by CUDA with
 * cudaErrorInvalidPitchValue before anything is queued: the rows then go as
 * one copy each, on the same stream. */
static int gpu_mapped_copy_2d(shoal_t sh, const char *call, char *dst, size_t dpitch, const char *src, size_t spitch,
                              size_t width, size_t height, int nbi)
{
    cudaStream_t stream = shoal__gpu_stream(sh);
    cudaError_t err = cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, cudaMemcpyDefault, stream);

    if (SHOAL__UNLIKELY(err == cudaErrorInvalidPitchValue)) {
        cudaGetLastError();
        err = cudaSuccess;
        for (size_t i = 0; i < height && err == cudaSuccess; i++)
            err = cudaMemcpyAsync(dst + i * dpitch, src + i * spitch, width, cudaMemcpyDefault, stream);
        if (SHOAL__UNLIKELY(err != cudaSuccess)) {
            /* The rows already queued finish before this call returns:
             * after a failure nothing may still read src or write dst. */
            int rc = shoal__cuda_error(sh, call, "cudaMemcpyAsync(row of a 2-D copy)", err);
            cudaStreamSynchronize(stream);
            return rc;
        }
    } else if (SHOAL__UNLIKELY(err != cudaSuccess)) {
        return shoal__cuda_error(sh, call, "cudaMemcpy2DAsync", err);
    }
    return gpu_mapped_queued(sh, call, nbi);
}

int shoal__gpu_mapped_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    char *p;
    int rc = gpu_mapped_at(sh, call, pe, off, &p);
    return SHOAL__LIKELY(rc == SHOAL_SUCCESS) ? gpu_mapped_copy(sh, call, p, src, n, nbi) : rc;
}

int shoal__gpu_mapped_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    char *p;
    int rc = gpu_mapped_at(sh, call, pe, off, &p);
    return SHOAL__LIKELY(rc == SHOAL_SUCCESS) ? gpu_mapped_copy(sh, call, dst, p, n, nbi) : rc;
}

int shoal__gpu_mapped_put_2d(shoal_t sh, const char *call, int pe, size_t off, size_t pitch, const void *src,
                             size_t spitch, size_t width, size_t height, int nbi)
{
    char *p;
    int rc = gpu_mapped_at(sh, call, pe, off, &p);
    return rc == SHOAL_SUCCESS ? gpu_mapped_copy_2d(sh, call, p, pitch, src, spitch, width, height, nbi) : rc;
}

int shoal__gpu_mapped_get_2d(shoal_t sh, const char *call, int pe, void *dst, size_t dpitch, size_t off, size_t pitch,
                             size_t width, size_t height, int nbi)
{
    char *p;
    int rc = gpu_mapped_at(sh, call, pe, off, &p);
    return rc == SHOAL_SUCCESS ? gpu_mapped_copy_2d(sh, call, dst, dpitch, p, pitch, width, height, nbi) : rc;
}

/* Under amo_lock: wait for the internal stream, then hand every pending
 * old value to its destination. */
static int gpu_amo_drain(shoal_t sh, const char *call)
{
    struct shoal_gpu *g = sh->gpu;
    cudaError_t err = cudaStreamSynchronize(g->stream);

    if (err != cudaSuccess) return shoal__cuda_error(sh, call, "cudaStreamSynchronize(internal stream)", err);
    for (size_t i = 0; i < g->amo_n_pending; i++)
        memcpy(g->amo_pending[i].dst, &g->amo_slots[i], g->amo_pending[i].size);
    __atomic_store_n(&g->amo_n_pending, 0, __ATOMIC_RELEASE);
    return SHOAL_SUCCESS;
}

int shoal__gpu_quiet(shoal_t sh, const char *call)
{
    struct shoal_gpu *g = sh->gpu;
    uint64_t queued, done;
    cudaError_t err;

    /* A thread with its own stream (the device proxy) issued only blocking
     * operations here: nothing of its own to wait for, and the internal
     * stream may be held up behind the very kernel it serves. */
    if (g == NULL || shoal__gpu_thread_stream() != NULL) return SHOAL_SUCCESS;
    /* Fetching atomics with _nbi first: their values are part of the quiet
     * (read without the lock: a thread racing this quiet is not before it). */
    if (__atomic_load_n(&g->amo_n_pending, __ATOMIC_ACQUIRE) > 0) {
        int rc;
        pthread_mutex_lock(&g->amo_lock);
        rc = gpu_amo_drain(sh, call);
        pthread_mutex_unlock(&g->amo_lock);
        if (rc != SHOAL_SUCCESS) return rc;
    }
    queued = atomic_load_explicit(&g->copies_queued, memory_order_acquire);
    done = atomic_load_explicit(&g->copies_done, memory_order_acquire);
    if (queued == done) return SHOAL_SUCCESS;
    err = cudaStreamSynchronize(g->stream);
    if (err != cudaSuccess) return shoal__cuda_error(sh, call, "cudaStreamSynchronize(internal stream)", err);
    /* Everything queued before the sync is done; another quiet may have
     * raised the count further already. */
    while (done < queued && !atomic_compare_exchange_weak_explicit(&g->copies_done, &done, queued, memory_order_acq_rel,
                                                                   memory_order_acquire))
        ;
    return SHOAL_SUCCESS;
}

int shoal__gpu_mapped_put_stream(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n,
                                 void *stream)
{
    char *p;
    int rc = gpu_mapped_at(sh, call, pe, off, &p);
    cudaError_t err;
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    err = cudaMemcpyAsync(p, src, n, cudaMemcpyDefault, (cudaStream_t)stream);
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, "cudaMemcpyAsync(on stream)", err);
}

int shoal__gpu_mapped_get_stream(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, void *stream)
{
    char *p;
    int rc = gpu_mapped_at(sh, call, pe, off, &p);
    cudaError_t err;
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    err = cudaMemcpyAsync(dst, p, n, cudaMemcpyDefault, (cudaStream_t)stream);
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, "cudaMemcpyAsync(on stream)", err);
}

/* The value travels in the stream operation itself: no copy engine, no
 * source buffer to keep alive. */
int shoal__gpu_mapped_p_stream(shoal_t sh, const char *call, int pe, size_t off, const void *value, size_t n,
                               void *stream)
{
    struct shoal_gpu *g = sh->gpu;
    char *peer;
    CUresult cr;
    int rc = gpu_mapped_at(sh, call, pe, off, &peer);

    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
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

    if (g == NULL || atomic_load_explicit(&g->copies_queued, memory_order_acquire) ==
                         atomic_load_explicit(&g->copies_done, memory_order_acquire))
        return SHOAL_SUCCESS;
    err = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (err == cudaSuccess) err = cudaEventRecord(ev, g->stream);
    if (err == cudaSuccess) err = cudaStreamWaitEvent((cudaStream_t)stream, ev, 0);
    if (ev != NULL) cudaEventDestroy(ev);
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, "joining the internal stream", err);
}
/* Host atomics: a one-thread kernel on the internal stream, after the
 * copies queued there (runtime/heap/gpu_amo.cu). One without a result
 * is complete at quiet, as a non-blocking put. A fetching one writes its
 * old value into a pinned slot: a blocking call waits for the stream and
 * reads it; an _nbi one leaves it for the next quiet (pending), and waits
 * for the others first when every slot is taken. */
int shoal__gpu_mapped_amo(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *result,
                          int nbi)
{
    struct shoal_gpu *g = sh->gpu;
    char *word;
    cudaError_t err;
    size_t slot;
    int rc = gpu_mapped_at(sh, call, pe, off, &word);

    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    if (shoal__gpu_thread_stream() != NULL) {
        /* A thread with its own stream and slot: blocking, no lock. */
        uint64_t *own = shoal__gpu_thread_slot();
        err = shoal__gpu_amo_launch(shoal__gpu_thread_stream(), word, a, result != NULL ? own : NULL);
        if (err == cudaSuccess) err = cudaStreamSynchronize(shoal__gpu_thread_stream());
        if (err != cudaSuccess) return shoal__cuda_error(sh, call, "launching the atomic kernel", err);
        if (result != NULL) memcpy(result, own, a->size);
        return SHOAL_SUCCESS;
    }
    if (result == NULL) {
        err = shoal__gpu_amo_launch(g->stream, word, a, NULL);
        if (err != cudaSuccess) return shoal__cuda_error(sh, call, "launching the atomic kernel", err);
        return gpu_mapped_queued(sh, call, 1);
    }
    pthread_mutex_lock(&g->amo_lock);
    if (g->amo_slots == NULL) {
        err = cudaMallocHost((void **)&g->amo_slots, (SHOAL__GPU_AMO_SLOTS + 1) * sizeof(uint64_t));
        if (err != cudaSuccess) {
            g->amo_slots = NULL;
            rc = shoal__cuda_error(sh, call, "cudaMallocHost(atomic results)", err);
            goto out;
        }
        g->amo_pending = calloc(SHOAL__GPU_AMO_SLOTS, sizeof(*g->amo_pending));
        if (g->amo_pending == NULL) {
            cudaFreeHost(g->amo_slots);
            g->amo_slots = NULL;
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
            goto out;
        }
    }
    if (nbi && g->amo_n_pending == SHOAL__GPU_AMO_SLOTS) SHOAL__TRY(rc, out, gpu_amo_drain(sh, call));
    slot = nbi ? g->amo_n_pending : SHOAL__GPU_AMO_SLOTS;
    err = shoal__gpu_amo_launch(g->stream, word, a, &g->amo_slots[slot]);
    if (err != cudaSuccess) {
        rc = shoal__cuda_error(sh, call, "launching the atomic kernel", err);
        goto out;
    }
    if (nbi) {
        g->amo_pending[slot] = (struct shoal__gpu_amo_pending){.dst = result, .size = a->size};
        __atomic_store_n(&g->amo_n_pending, slot + 1, __ATOMIC_RELEASE);
        goto out;
    }
    /* Blocking: the stream drains, the pending values with it. */
    SHOAL__TRY(rc, out, gpu_amo_drain(sh, call));
    memcpy(result, &g->amo_slots[slot], a->size);
out:
    pthread_mutex_unlock(&g->amo_lock);
    return rc;
}

/* In the caller's stream, after what it did before. A set is a stream
 * memory operation (with its memory barrier) where the driver has 64-bit
 * ones; the rest, and a set where it has not, a one-thread kernel. */
int shoal__gpu_mapped_amo_stream(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *stream)
{
    struct shoal_gpu *g = sh->gpu;
    char *word;
    cudaError_t err;
    int rc = gpu_mapped_at(sh, call, pe, off, &word);

    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    if (a->op == SHOAL__AMO_SET && a->size == 8 &&
        g->write_value64((CUstream)stream, (CUdeviceptr)word, a->operand, CU_STREAM_WRITE_VALUE_DEFAULT) ==
            CUDA_SUCCESS)
        return SHOAL_SUCCESS;
    err = shoal__gpu_amo_launch((cudaStream_t)stream, word, a, NULL);
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, "launching the atomic kernel", err);
}
#endif
