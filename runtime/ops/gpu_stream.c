/* Stream-ordered operations: copies on the caller's stream, and the
 * stream barrier built from stream memory operations on peer flags. */
#include <stdlib.h>
#include <string.h>

#include "base/shoal_instance.h"

#if SHOAL_HAVE_CUDA
#include "ops/shoal_amo.h"
#include "heap/shoal_gpu.h"
#include "heap/shoal_register.h"
#include "ops/shoal_rma.h"
#include "heap/gpu_amo.h"
#include "transport/transport.h"
#include "ops/shoal_stream.h"
#include "ops/shoal_coll.h"

/* Before a put or get that cannot be stream-ordered: wait for the stream.
 * A host heap in a process without a usable CUDA driver or device has no
 * stream work to wait for (the call then acts like the host one). */
static int shoal__stream_wait(shoal_t sh, const char *call, cudaStream_t stream)
{
    cudaError_t e = cudaStreamSynchronize(stream);
    if (e == cudaSuccess) return SHOAL_SUCCESS;
    if (sh->gpu == NULL && (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorStubLibrary)) {
        (void)cudaGetLastError();
        return SHOAL_SUCCESS;
    }
    return shoal__cuda_error(sh, call, "cudaStreamSynchronize(stream)", e);
}

static int shoal__rma_on_stream_do(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n,
                                   int pe, cudaStream_t stream)
{
    int rc = SHOAL_SUCCESS;
    size_t off;

    if (SHOAL__UNLIKELY((unsigned)pe >= (unsigned)sh->n_pes))
        return shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    if (SHOAL__UNLIKELY(n == 0)) return SHOAL_SUCCESS;
    /* The host API's checks (allocation bounds, overlap), before any wait. */
    SHOAL__TRY(rc, out, shoal__rma_check(sh, call, is_put, dest, src, n, pe, &off));
    if (SHOAL__UNLIKELY(!shoal__tp_can(sh, pe, SHOAL__TP_CAP_STREAM))) {
        /* Not stream-capable: wait for the stream, then move the data now. */
        SHOAL__TRY(rc, out, shoal__stream_wait(sh, call, stream));
        return shoal__rma(sh, call, is_put, dest, src, n, pe, 0);
    }
    if (is_put) return shoal__tp(sh, pe)->put_stream(sh, call, pe, off, src, n, stream);
    return shoal__tp(sh, pe)->get_stream(sh, call, pe, dest, off, n, stream);
out:
    return rc;
}

/* A 4- or 8-byte value travels in the stream operation itself: no copy
 * engine, no source buffer to keep alive. Other sizes wait for the stream
 * and put at once. */
static int shoal__p_on_stream_do(shoal_t sh, const char *call, void *dest, const void *value, size_t n, int pe,
                                 cudaStream_t stream)
{
    int rc = SHOAL_SUCCESS;
    size_t off;

    if (SHOAL__UNLIKELY((unsigned)pe >= (unsigned)sh->n_pes))
        return shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    SHOAL__TRY(rc, out, shoal__rma_check(sh, call, true, dest, value, n, pe, &off));
    if (SHOAL__UNLIKELY(!shoal__tp_can(sh, pe, SHOAL__TP_CAP_STREAM) || (n != 4 && n != 8) ||
                        ((uintptr_t)dest % n) != 0)) {
        SHOAL__TRY(rc, out, shoal__stream_wait(sh, call, stream));
        return shoal__rma(sh, call, true, dest, value, n, pe, 0);
    }
    return shoal__tp(sh, pe)->p_stream(sh, call, pe, off, value, n, stream);
out:
    return rc;
}

/* SHOAL_CHECK=full: the thread rule first, as for the host calls (and no
 * look at the allocator's table from a thread that may not be here). */
static int shoal__stream_enter(shoal_t sh, const char *call, shoal__robust_t **sd_p, bool *held_p)
{
    *held_p = false;
    *sd_p = SHOAL__UNLIKELY(sh->cfg.check == SHOAL_CHECK_FULL) ? shoal__robust(sh) : NULL;
    return *sd_p ? shoal__thread_enter(sh, *sd_p, call, false, held_p) : SHOAL_SUCCESS;
}

int shoal__rma_on_stream(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe,
                         cudaStream_t stream)
{
    shoal__robust_t *sd;
    bool held;
    int rc = shoal__stream_enter(sh, call, &sd, &held);

    if (rc != SHOAL_SUCCESS) return rc;
    rc = shoal__rma_on_stream_do(sh, call, is_put, dest, src, n, pe, stream);
    if (sd) shoal__thread_leave(sd, false, held);
    return rc;
}

int shoal__p_on_stream(shoal_t sh, const char *call, void *dest, const void *value, size_t n, int pe,
                       cudaStream_t stream)
{
    shoal__robust_t *sd;
    bool held;
    int rc = shoal__stream_enter(sh, call, &sd, &held);

    if (rc != SHOAL_SUCCESS) return rc;
    rc = shoal__p_on_stream_do(sh, call, dest, value, n, pe, stream);
    if (sd) shoal__thread_leave(sd, false, held);
    return rc;
}

int shoal__quiet_on_stream(shoal_t sh, cudaStream_t stream)
{
    static const char *call = "shoal_quiet_on_stream";
    unsigned host = shoal__transports_without(sh, ~0u, SHOAL__TP_CAP_STREAM);
    int rc = SHOAL_SUCCESS;

    /* Operations of transports that cannot join a stream complete now (a
     * quiet of their bits, which waits for another thread's flush that took
     * them); the others' join the stream. */
    if (host) SHOAL__TRY(rc, out, shoal__quiet_mask(sh, call, host));
    SHOAL__TRY(rc, out, shoal__transports_quiet_stream(sh, call, stream));
out:
    return rc;
}

/* The data on the stream, then the signal: a stream memory operation (a
 * set) or a one-thread kernel (an add), both after the copy in stream
 * order. A pair whose transport cannot join a stream: the host waits for
 * the stream, then does the host call. */
static int shoal__put_signal_on_stream_do(shoal_t sh, const char *call, void *dest, const void *src, size_t n,
                                          uint64_t *sig, uint64_t value, int op, int pe, cudaStream_t stream)
{
    const shoal__tp_ops_t *tp;
    shoal__amo_t a;
    size_t off;
    int rc = SHOAL_SUCCESS;

    SHOAL__TRY(rc, out, shoal__signal_prepare(sh, call, sig, value, op, pe, &a, &off));
    tp = shoal__tp(sh, pe);
    if (!shoal__tp_can(sh, pe, SHOAL__TP_CAP_STREAM) || tp->amo_stream == NULL || shoal__tp_amo(sh, pe) != tp) {
        if (n > 0) {
            size_t doff;
            SHOAL__TRY(rc, out, shoal__rma_check(sh, call, true, dest, src, n, pe, &doff));
        }
        SHOAL__TRY(rc, out, shoal__stream_wait(sh, call, stream));
        return shoal__put_signal(sh, call, dest, src, n, sig, value, op, pe, 0);
    }
    if (n > 0) SHOAL__TRY(rc, out, shoal__rma_on_stream_do(sh, call, true, dest, src, n, pe, stream));
    rc = tp->amo_stream(sh, call, pe, off, &a, stream);
out:
    return rc;
}

int shoal__put_signal_on_stream(shoal_t sh, const char *call, void *dest, const void *src, size_t nbytes, uint64_t *sig,
                                uint64_t value, int op, int pe, cudaStream_t stream)
{
    shoal__robust_t *sd;
    bool held;
    int rc = shoal__stream_enter(sh, call, &sd, &held);

    if (rc != SHOAL_SUCCESS) return rc;
    rc = shoal__put_signal_on_stream_do(sh, call, dest, src, nbytes, sig, value, op, pe, stream);
    if (sd) shoal__thread_leave(sd, false, held);
    return rc;
}

/* The stream waits for this PE's sig: a stream memory operation for EQ, GE
 * and GT (CUDA compares cyclically: a value more than 2^63 past the other
 * counts as below it), a one-thread kernel for the others. A host heap, or
 * staging peers: the host waits for the stream, then for the signal. */
int shoal__signal_wait_on_stream(shoal_t sh, const char *call, uint64_t *sig, int cmp, uint64_t value,
                                 cudaStream_t stream)
{
    struct shoal_gpu *g = sh->gpu;
    CUresult cr = CUDA_ERROR_NOT_SUPPORTED;
    cudaError_t err;
    size_t off;
    int rc = SHOAL_SUCCESS;

    if ((unsigned)cmp > SHOAL_CMP_LE)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "unknown comparison %d (SHOAL_CMP_EQ %d to SHOAL_CMP_LE %d)", cmp, SHOAL_CMP_EQ,
                            SHOAL_CMP_LE);
    SHOAL__TRY(rc, out, shoal__rma_target(sh, call, "signal", sig, 8, sh->my_pe, &off));
    if ((uintptr_t)sig % 8 != 0)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "signal %p (%s offset %zu) is not aligned to 8 bytes",
                            (void *)sig, shoal__off_what(off), shoal__off_in(off));
    /* A host heap; or GPU peers whose data and signals this process's
     * staging proxy moves (staged, mpi_rma): a stream wait could hold the
     * proxy's own copies up (where CUDA puts its stream and this one on one
     * hardware queue), so the host waits instead. */
    if (sh->heap_kind != SHOAL_HEAP_GPU || g == NULL ||
        shoal__transports_without(sh, sh->tp_peers, SHOAL__TP_CAP_STREAM)) {
        SHOAL__TRY(rc, out, shoal__stream_wait(sh, call, stream));
        return shoal__wait_word(sh, call, sig, 8, cmp, &value, true, NULL);
    }
    if (cmp == SHOAL_CMP_EQ)
        cr = g->wait_value64(stream, (CUdeviceptr)sig, value, CU_STREAM_WAIT_VALUE_EQ);
    else if (cmp == SHOAL_CMP_GE)
        cr = g->wait_value64(stream, (CUdeviceptr)sig, value, CU_STREAM_WAIT_VALUE_GEQ);
    else if (cmp == SHOAL_CMP_GT && value != UINT64_MAX)
        cr = g->wait_value64(stream, (CUdeviceptr)sig, value + 1, CU_STREAM_WAIT_VALUE_GEQ);
    if (cr == CUDA_SUCCESS) return SHOAL_SUCCESS;
    /* The other comparisons, or a driver without 64-bit stream waits. */
    err = shoal__gpu_wait_launch(stream, sig, cmp, value);
    if (err != cudaSuccess) return shoal__cuda_error(sh, call, "launching the signal wait kernel", err);
out:
    return rc;
}

/* The host side of a stream wait: wait for the stream (refused inside a
 * capture, which it would break), then make the host wait. status and
 * values in device memory are read then, as the stream would have. */
static int shoal__wait_on_stream_host(shoal_t sh, const char *call, const shoal__wait_spec_t *w, bool status_dev,
                                      bool values_dev, cudaStream_t stream)
{
    enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    shoal__wait_spec_t h = *w;
    void *copy = NULL;
    size_t sbytes = status_dev ? w->nelems * sizeof(int) : 0, vbytes = values_dev ? w->nelems * w->size : 0;
    int rc;

    if (cudaStreamIsCapturing(stream, &cap) == cudaSuccess && cap != cudaStreamCaptureStatusNone)
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                            "this wait is made on the host (a host heap, or staged or mpi_rma peers), which cannot "
                            "be captured in a CUDA graph");
    cudaGetLastError();
    SHOAL__TRY(rc, out, shoal__stream_wait(sh, call, stream));
    if (sbytes + vbytes > 0) {
        if ((copy = malloc(sbytes + vbytes)) == NULL)
            return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for the wait's status and values");
        cudaError_t err = cudaSuccess;
        if (sbytes > 0) err = cudaMemcpy(copy, w->status, sbytes, cudaMemcpyDefault);
        if (err == cudaSuccess && vbytes > 0)
            err = cudaMemcpy((char *)copy + sbytes, w->values, vbytes, cudaMemcpyDefault);
        if (err != cudaSuccess) {
            free(copy);
            return shoal__cuda_error(sh, call, "reading the wait's status and values from device memory", err);
        }
        if (sbytes > 0) h.status = copy;
        if (vbytes > 0) h.values = (char *)copy + sbytes;
    }
    rc = shoal__wait_until(sh, call, &h, NULL, NULL, NULL, NULL, NULL);
    free(copy);
out:
    return rc;
}

/* The wait_until family on a stream (w: a blocking ALL wait). On the GPU
 * where ivars is GPU memory and every PE's transport joins streams: a
 * stream memory operation for one 4- or 8-byte element compared EQ (exact,
 * unlike CUDA's cyclic GE), else one-thread kernels that carry status and
 * the vector's values in their parameters (host memory) or read them when
 * they run (device memory). Otherwise the host waits for the stream, then
 * makes the host wait. */
int shoal__wait_on_stream(shoal_t sh, const char *call, const shoal__wait_spec_t *w, cudaStream_t stream)
{
    struct shoal_gpu *g = sh->gpu;
    uint64_t value = 0;
    cudaError_t err;
    bool reg, status_dev, values_dev;
    int rc;

    SHOAL__TRY(rc, out, shoal__wait_check(sh, call, w, &reg));
    if (w->nelems == 0) return SHOAL_SUCCESS;
    status_dev = w->status != NULL && shoal__gpu_on_device(w->status);
    values_dev = w->vector && shoal__gpu_on_device(w->values);
    if (sh->heap_kind != SHOAL_HEAP_GPU || g == NULL ||
        (reg && !shoal__reg_is_gpu(sh, w->ivars, w->nelems * w->size)) ||
        shoal__transports_without(sh, sh->tp_peers, SHOAL__TP_CAP_STREAM))
        return shoal__wait_on_stream_host(sh, call, w, status_dev, values_dev, stream);
    if (!w->vector) memcpy(&value, w->values, w->size); /* little-endian: the low bytes */
    if (w->nelems == 1 && w->status == NULL && !w->vector && w->cmp == SHOAL_CMP_EQ && w->size >= 4) {
        CUresult cr = w->size == 8
                          ? g->wait_value64(stream, (CUdeviceptr)w->ivars, value, CU_STREAM_WAIT_VALUE_EQ)
                          : g->wait_value32(stream, (CUdeviceptr)w->ivars, (cuuint32_t)value, CU_STREAM_WAIT_VALUE_EQ);
        if (cr == CUDA_SUCCESS) return SHOAL_SUCCESS;
    }
    err = shoal__gpu_wait_n_launch(stream, w->ivars, w->nelems, w->size, w->is_signed, w->status, status_dev, w->cmp,
                                   w->vector ? w->values : NULL, values_dev, value);
    if (err != cudaSuccess) return shoal__cuda_error(sh, call, "launching the wait kernel", err);
out:
    return rc;
}

/* Every node-local PE reachable through cuda_ipc: the barrier can run on the GPU. */
static bool shoal__stream_barrier_on_gpu(shoal_t sh)
{
    if (sh->gpu == NULL || sh->n_nodes != 1 || sh->n_pes > SHOAL__GPU_MAX_FLAG_PES) return false;
    for (int pe = 0; pe < sh->n_pes; pe++)
        if (sh->gpu->peer_ctrl[pe] == NULL) return false;
    return true;
}

int shoal__barrier_all_on_stream(shoal_t sh, cudaStream_t stream)
{
    static const char *call = "shoal_barrier_all_on_stream";
    struct shoal_gpu *g = sh->gpu;
    CUstreamBatchMemOpParams ops[64];
    unsigned nops = 0;
    uint32_t gen;
    int rc = SHOAL_SUCCESS;
    CUresult cr;

    if (!shoal__stream_barrier_on_gpu(sh)) {
        rc = shoal__stream_wait(sh, call, stream);
        if (rc != SHOAL_SUCCESS) return shoal__coll_failed_here(sh, call, SHOAL__COLL_BARRIER_STREAM, 0, rc);
        return shoal__barrier_as(sh, call, SHOAL__COLL_BARRIER_STREAM);
    }
    SHOAL__TRY(rc, out, shoal__quiet_on_stream(sh, stream));
    /* Flag word i of PE p's control area: the last generation PE i reached. */
    gen = ++g->stream_gen;
    if (sh->n_pes == 2) {
        /* One write and one wait: two plain stream memory operations cost
         * less than a batch of two. */
        int peer = 1 - sh->my_pe;
        cr = g->write_value32(stream, (CUdeviceptr)(g->peer_ctrl[peer] + sizeof(uint32_t) * (size_t)sh->my_pe), gen,
                              CU_STREAM_WRITE_VALUE_DEFAULT);
        if (cr == CUDA_SUCCESS)
            cr = g->wait_value32(stream, (CUdeviceptr)(g->ctrl + sizeof(uint32_t) * (size_t)peer), gen,
                                 CU_STREAM_WAIT_VALUE_GEQ);
        if (cr != CUDA_SUCCESS) goto driver_fail;
        sh->stream_barriers++; /* counted once enqueued (see SHOAL__COLL_KIND) */
        return SHOAL_SUCCESS;
    }
    /* Phase 0 writes my generation into every peer's flag for me; phase 1
     * waits for every peer's flag in my area. Batched, 64 operations a call. */
    for (int phase = 0; phase < 2; phase++)
        for (int pe = 0; pe < sh->n_pes; pe++) {
            CUstreamBatchMemOpParams *op;
            if (pe == sh->my_pe) continue;
            if (nops == sizeof(ops) / sizeof(ops[0])) {
                cr = g->batch_mem_op(stream, nops, ops, 0);
                if (cr != CUDA_SUCCESS) goto driver_fail;
                nops = 0;
            }
            op = &ops[nops++];
            memset(op, 0, sizeof(*op));
            if (phase == 0) {
                op->writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
                op->writeValue.address = (CUdeviceptr)(g->peer_ctrl[pe] + sizeof(uint32_t) * (size_t)sh->my_pe);
                op->writeValue.value = gen;
                op->writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
            } else {
                op->waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
                op->waitValue.address = (CUdeviceptr)(g->ctrl + sizeof(uint32_t) * (size_t)pe);
                op->waitValue.value = gen;
                op->waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
            }
        }
    if (nops > 0) {
        cr = g->batch_mem_op(stream, nops, ops, 0);
        if (cr != CUDA_SUCCESS) goto driver_fail;
    }
    sh->stream_barriers++;
out:
    return rc;
driver_fail:
    return shoal__error(sh, SHOAL_ERR_CUDA, call, "cuStreamBatchMemOp failed with CUresult %d", (int)cr);
}
#endif
