/* Collectives of teams on GPU heaps, in stream order: where every
 * member's heap is mapped here (CUDA IPC, one node) and the GPU computes
 * on the type. The members meet on the GPU: small collectives are one
 * kernel of one block (api/shoal_device_team.cuh: the data then a
 * barrier; a reduction or reduce-scatter between two barriers); large
 * ones move data on the copy engines (broadcast, fcollect, alltoall) or
 * in a grid (reductions, reduce-scatters), between barriers enqueued
 * apart. A barrier is a one-block kernel whose generation lives on the
 * GPU, so a captured sequence replays in a CUDA graph; where two members
 * share a GPU without MPS (their kernels take turns by time slices, and a
 * kernel that waits for the other would crawl), it is stream memory
 * operations instead, whose generation the host counts: such teams cannot
 * be captured. The host meets the members once per call (with SHOAL_CHECK
 * basic or full, and always for the host API) to check that they made the
 * same call; it does not wait for the stream. A team's work on different
 * streams is chained by an event, so that its barriers' generations are
 * taken in the order of the calls. */
#include <string.h>

#include "team/shoal_reduce.h"
#include "team/shoal_team.h"

#if !SHOAL_HAVE_CUDA
int shoal__team_gpu_reset(shoal_team_t t, const char *call)
{
    (void)t;
    (void)call;
    return SHOAL_SUCCESS;
}
bool shoal__team_gpu_reachable(shoal_team_t t)
{
    (void)t;
    return false;
}
int shoal__team_gpu_quiesce(shoal_team_t t, const char *call)
{
    (void)t;
    (void)call;
    return SHOAL_SUCCESS;
}
#else
#include "heap/shoal_gpu.h"
#include "team/team_kernels.h"
#include "ops/shoal_stream.h"

/* Up to these bytes a collective is one kernel of one block (measured on
 * an H200, BENCHMARKS.md): what a member pushes (broadcast, fcollect,
 * alltoall: one block copies faster than two copy-engine launches and a
 * barrier kernel up to there), what a member reduces (a block's loads of
 * every member's src fall behind a grid's beyond it: a reduction's nreduce
 * elements, a reduce-scatter's n_pes blocks, as many loads). */
#define SHOAL__COLL_FUSED_PUSH ((size_t)512 << 10)
#define SHOAL__COLL_FUSED_REDUCE ((size_t)32 << 10)

enum {
    SHOAL__TEAM_GPU_KERNELS = 1, /* barriers are kernels (graph-safe) */
    SHOAL__TEAM_GPU_MEMOPS = 2   /* barriers are stream memory operations */
};

_Static_assert((int)SHOAL__KOP_AND == (int)SHOAL__OP_and && (int)SHOAL__KOP_PROD == (int)SHOAL__OP_prod,
               "the kernels' operator numbers");

int shoal__team_gpu_reset(shoal_team_t t, const char *call)
{
    shoal_t sh = t->sh;
    struct shoal_gpu *g = sh->gpu;
    int rc = SHOAL_SUCCESS;

    if (sh->heap_kind != SHOAL_HEAP_GPU || g == NULL || g->ctrl == NULL) return SHOAL_SUCCESS;
    SHOAL__CUDA_TRY(sh, call, rc, out,
                    cudaMemsetAsync(g->ctrl + (size_t)(SHOAL_DEVICE_TEAM_BASE + t->id * SHOAL_DEVICE_TEAM_WORDS) * 4, 0,
                                    SHOAL_DEVICE_TEAM_WORDS * 4, g->stream));
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaStreamSynchronize(g->stream));
out:
    return rc;
}

/* Why kernels cannot reach every member from here, or NULL. */
static const char *shoal__team_gpu_why_not(shoal_team_t t)
{
    shoal_t sh = t->sh;
    if (sh->heap_kind != SHOAL_HEAP_GPU || sh->gpu == NULL) return "the heap is on the host";
    if (!t->ls_gpu) return "some member's GPU heap is not mapped here (another node, or no peer access)";
    for (int i = 0; i < t->n_pes; i++)
        if (sh->gpu->peer_ctrl[t->pes[i]] == NULL)
            return "some member's control area is not mapped here (another node, or no peer access)";
    if (!t->strided) return "its PEs are not a progression start + i * stride";
    if (t->n_pes > SHOAL_DEVICE_TEAM_PES) return "it has more members than SHOAL_DEVICE_TEAM_PES";
    return NULL;
}

bool shoal__team_gpu_reachable(shoal_team_t t) { return shoal__team_gpu_why_not(t) == NULL; }

/* The members agreed at creation that every one of them reaches the
 * others on the GPU. */
static bool shoal__team_on_gpu(shoal_team_t t) { return t->gpu_ok; }

/* Kernels or memory operations: the same answer on every member (it
 * depends on what the node published of each member's GPU). */
static int shoal__team_gpu_mode(shoal_team_t t)
{
    shoal_t sh = t->sh;
    if (t->gpu_mode != 0) return t->gpu_mode;
    t->gpu_mode = SHOAL__TEAM_GPU_KERNELS;
    for (int i = 0; i < t->n_pes; i++)
        for (int j = i + 1; j < t->n_pes; j++)
            if (shoal__gpu_share_kind(sh->gpu->node_gpus, sh->pe_node_rank[t->pes[i]], sh->pe_node_rank[t->pes[j]]) ==
                SHOAL_GPU_SHARED)
                t->gpu_mode = SHOAL__TEAM_GPU_MEMOPS;
    return t->gpu_mode;
}

int shoal__team_device_fill(shoal_team_t t, shoal_dev_team_t *dt, bool proxy)
{
    memset(dt, 0, sizeof(*dt));
    dt->my_pe = t->my_pe;
    dt->n_pes = t->n_pes;
    dt->start = t->start;
    dt->stride = t->stride;
    dt->id = t->id;
    dt->ok = shoal__team_on_gpu(t);
    if (!dt->ok && !proxy) {
        const char *why = shoal__team_gpu_why_not(t);
        return shoal__error(t->sh, SHOAL_ERR_UNSUPPORTED, "shoal_team_device_get",
                            "kernels cannot reach every member of this team of %d PEs: %s", t->n_pes,
                            why ? why : "another member cannot reach every member from its GPU");
    }
    return SHOAL_SUCCESS;
}

static bool shoal__capturing(cudaStream_t stream)
{
    enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
    return cudaStreamIsCapturing(stream, &cap) != cudaSuccess || cap != cudaStreamCaptureStatusNone;
}

/* Wait for an event or a stream (query is cudaEventQuery or
 * cudaStreamQuery on it) for at most SHOAL_TIMEOUT, keeping MPI's progress
 * going (a peer's stream may wait for this PE's MPI). */
static int shoal__team_gpu_wait(shoal_team_t t, const char *call, const char *what, cudaError_t (*query)(void *),
                                void *obj)
{
    shoal_t sh = t->sh;
    double start = shoal__now();
    unsigned spins = 0, polls = 0;
    cudaError_t err;

    while ((err = query(obj)) == cudaErrorNotReady) {
        if (sh->cfg.timeout > 0 && (++polls & 255) == 0 && shoal__now() - start > sh->cfg.timeout) {
            t->broken = true;
            return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                                "timed out after %g s waiting for %s (a team collective on it waits for another "
                                "member's GPU work that never came?); the team can only be destroyed now",
                                sh->cfg.timeout, what);
        }
        shoal__wait_progress(sh, &spins);
    }
    if (err != cudaSuccess) return shoal__cuda_error(sh, call, what, err);
    return SHOAL_SUCCESS;
}
static cudaError_t shoal__query_stream(void *s) { return cudaStreamQuery((cudaStream_t)s); }
static cudaError_t shoal__query_event(void *e) { return cudaEventQuery((cudaEvent_t)e); }

int shoal__team_stream_wait(shoal_team_t t, const char *call, void *stream)
{
    if (shoal__capturing((cudaStream_t)stream))
        return shoal__error(t->sh, SHOAL_ERR_UNSUPPORTED, call,
                            "the stream is being captured, but this collective runs on the host once the stream is "
                            "idle (collect, alltoalls, reductions of long double and complex, or members the GPU "
                            "cannot reach): call it outside the capture");
    return shoal__team_gpu_wait(t, call, "the stream", shoal__query_stream, stream);
}

int shoal__team_gpu_quiesce(shoal_team_t t, const char *call)
{
    int rc = SHOAL_SUCCESS;
    if (t->gpu_event == NULL) return SHOAL_SUCCESS;
    rc = shoal__team_gpu_wait(t, call, "the team's GPU work", shoal__query_event, t->gpu_event);
    cudaEventDestroy((cudaEvent_t)t->gpu_event);
    t->gpu_event = NULL;
    return rc;
}

/* Before enqueuing the team's work on stream: after its work on another
 * stream (outside captures: a capture cannot wait for work outside it). */
static int shoal__team_gpu_enter(shoal_team_t t, const char *call, cudaStream_t stream)
{
    int rc = SHOAL_SUCCESS;
    if (t->gpu_event == NULL || t->gpu_stream == (void *)stream || shoal__capturing(stream)) return SHOAL_SUCCESS;
    SHOAL__CUDA_TRY(t->sh, call, rc, out, cudaStreamWaitEvent(stream, (cudaEvent_t)t->gpu_event, 0));
out:
    return rc;
}

/* After it: the point the team's next work on another stream waits for. */
static int shoal__team_gpu_leave(shoal_team_t t, const char *call, cudaStream_t stream)
{
    int rc = SHOAL_SUCCESS;
    t->gpu_used = true;
    if (shoal__capturing(stream)) return SHOAL_SUCCESS;
    if (t->gpu_event == NULL) {
        cudaEvent_t ev;
        SHOAL__CUDA_TRY(t->sh, call, rc, out, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
        t->gpu_event = ev;
    }
    SHOAL__CUDA_TRY(t->sh, call, rc, out, cudaEventRecord((cudaEvent_t)t->gpu_event, stream));
    t->gpu_stream = stream;
out:
    return rc;
}

/* The members meet on stream: memory operations (my generation into my
 * flag at every member, then waits on every member's flag here). */
static int shoal__team_memops_barrier(shoal_team_t t, const char *call, cudaStream_t stream)
{
    shoal_t sh = t->sh;
    struct shoal_gpu *g = sh->gpu;
    CUstreamBatchMemOpParams ops[64];
    size_t words = (size_t)(SHOAL_DEVICE_TEAM_BASE + t->id * SHOAL_DEVICE_TEAM_WORDS + SHOAL_DEVICE_TEAM_STREAM_FLAGS);
    uint32_t gen = ++t->stream_gen;
    unsigned nops = 0;
    CUresult cr;

    for (int phase = 0; phase < 2; phase++)
        for (int i = 0; i < t->n_pes; i++) {
            CUstreamBatchMemOpParams *op;
            if (i == t->my_pe) continue;
            if (nops == sizeof(ops) / sizeof(ops[0])) {
                cr = g->batch_mem_op(stream, nops, ops, 0);
                if (cr != CUDA_SUCCESS) goto fail;
                nops = 0;
            }
            op = &ops[nops++];
            memset(op, 0, sizeof(*op));
            if (phase == 0) {
                op->writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
                op->writeValue.address = (CUdeviceptr)(g->peer_ctrl[t->pes[i]] + 4 * (words + (size_t)t->my_pe));
                op->writeValue.value = gen;
                op->writeValue.flags = CU_STREAM_WRITE_VALUE_DEFAULT;
            } else {
                op->waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
                op->waitValue.address = (CUdeviceptr)(g->ctrl + 4 * (words + (size_t)i));
                op->waitValue.value = gen;
                op->waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
            }
        }
    if (nops > 0) {
        cr = g->batch_mem_op(stream, nops, ops, 0);
        if (cr != CUDA_SUCCESS) goto fail;
    }
    return SHOAL_SUCCESS;
fail:
    t->broken = true; /* part of the barrier may be enqueued */
    return shoal__error(sh, SHOAL_ERR_CUDA, call, "cuStreamBatchMemOp failed with CUresult %d", (int)cr);
}

/* The device's view of the instance and the team, for launches. */
static int shoal__team_launch_args(shoal_team_t t, shoal_device_t *dev, shoal_dev_team_t *dt)
{
    int rc;
    /* Only teams every member maps come here (ok): no proxy, no atomics map. */
    memset(dev, 0, sizeof(*dev));
    dev->proxy.status = SHOAL_ERR_UNSUPPORTED;
    rc = shoal__device_get(t->sh, dev);
    if (rc == SHOAL_SUCCESS) rc = shoal__team_device_fill(t, dt, false);
    return rc;
}

static int shoal__team_launched(shoal_team_t t, const char *call, cudaError_t err)
{
    if (err == cudaSuccess) return SHOAL_SUCCESS;
    t->broken = true; /* the others' kernels may wait for this one */
    return shoal__cuda_error(t->sh, call, "launching a team kernel", err);
}

static int shoal__team_gpu_barrier(shoal_team_t t, const char *call, cudaStream_t stream)
{
    shoal_device_t dev;
    shoal_dev_team_t dt;
    int rc;

    if (t->n_pes == 1) return SHOAL_SUCCESS;
    if (shoal__team_gpu_mode(t) == SHOAL__TEAM_GPU_MEMOPS) return shoal__team_memops_barrier(t, call, stream);
    rc = shoal__team_launch_args(t, &dev, &dt);
    if (rc != SHOAL_SUCCESS) return rc;
    return shoal__team_launched(t, call, shoal__team_barrier_launch(stream, &dev, &dt));
}

/* A member whose arguments were refused, where members do not meet on the
 * host (SHOAL_CHECK=off): it still enqueues the barriers the call has, so
 * that the others' streams do not wait for it forever. */
static void shoal__team_gpu_skip(shoal_team_t t, const char *call, cudaStream_t stream, int barriers)
{
    char saved[sizeof(t->sh->err)];
    snprintf(saved, sizeof(saved), "%s", shoal_last_error(t->sh));
    for (int k = 0; k < barriers; k++)
        if (shoal__team_gpu_barrier(t, call, stream) != SHOAL_SUCCESS) break;
    shoal__error(t->sh, t->sh->err_status, NULL, "%s", saved);
}

/* The kernels' type for dt, or -1. */
static int shoal__team_kt(int dt)
{
    size_t s = shoal__dt_size(dt);
    int c = shoal__dt_class(dt), lg = s == 1 ? 0 : s == 2 ? 1 : s == 4 ? 2 : s == 8 ? 3 : -1;
    if (dt == SHOAL__DT_half) return SHOAL__KT_F16;
    if (dt == SHOAL__DT_bfloat16) return SHOAL__KT_BF16;
    if (lg < 0) return -1;
    if (c == SHOAL__DTC_SIGNED) return SHOAL__KT_I8 + lg;
    if (c == SHOAL__DTC_UNSIGNED) return SHOAL__KT_U8 + lg;
    if (c == SHOAL__DTC_FLOAT) return s == 4 ? SHOAL__KT_F32 : s == 8 ? SHOAL__KT_F64 : -1;
    return -1;
}

/* Copy-engine pushes: member i's block of bytes at dest + doff[i] from
 * src + soff[i] (NULL: 0), rows of width es at pitches (alltoalls) when
 * rows > 0. */
static int shoal__team_ce_push(shoal_team_t t, const char *call, cudaStream_t stream, char *dest, size_t doff_base,
                               const char *src, size_t bytes, bool per_member_src)
{
    shoal_t sh = t->sh;
    int rc = SHOAL_SUCCESS;

    if (bytes == 0) return SHOAL_SUCCESS;
    for (int k = 0; k < t->n_pes; k++) {
        int i = (t->my_pe + 1 + k) % t->n_pes;
        char *peer = sh->peer_base[t->pes[i]] + (dest + doff_base - sh->heap_base);
        const char *s = per_member_src ? src + (size_t)i * bytes : src;
        if (peer == s) continue; /* a broadcast's root in place */
        SHOAL__CUDA_TRY(sh, call, rc, out, cudaMemcpyAsync(peer, s, bytes, cudaMemcpyDeviceToDevice, stream));
    }
out:
    return rc;
}

/* The collective a describes, on stream. on_stream: the _on_stream call
 * (else the host API's, on the internal stream), which meets the other
 * members on the host only with SHOAL_CHECK basic or full. */
static int shoal__coll_stream_do(shoal_team_t t, const char *call, const shoal__coll_args_t *a, cudaStream_t stream,
                                 bool on_stream)
{
    shoal_t sh = t->sh;
    uint32_t kind = SHOAL__TC_KIND(a->tc, a->dt, a->op) | (on_stream ? SHOAL__TC_STREAM : 0);
    size_t es = shoal__dt_size(a->dt), bytes = 0, all = 0;
    uint64_t b = 0;
    bool reduces = a->tc == SHOAL__TC_REDUCE || a->tc == SHOAL__TC_REDUCESCATTER;
    int kt = shoal__team_kt(a->dt), rc = SHOAL_SUCCESS, barriers = reduces ? 2 : 1;
    bool meet = !on_stream || sh->cfg.check != SHOAL_CHECK_OFF, fused;
    shoal_device_t dev;
    shoal_dev_team_t dt;

    /* A collect or fcollect in place copies its block aside on the host
     * path; a broadcast that keeps the root's dest (keep_root) runs there. */
    if (!shoal__team_on_gpu(t) || (reduces && kt < 0) ||
        (a->tc == SHOAL__TC_FCOLLECT && a->dest != NULL && a->dest == a->src) || a->keep_root ||
        (a->dest != NULL && !shoal__in_heap(sh, a->dest, 1)) || (a->src != NULL && !shoal__in_heap(sh, a->src, 1)) ||
        sh->coll_algo == SHOAL__COLL_ALGO_TRANSPORT || a->tc == SHOAL__TC_COLLECT || a->tc == SHOAL__TC_ALLTOALLS)
        return SHOAL__COLL_NOT_HERE;
    if (t->broken)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "an earlier collective on this team failed midway, so its members are out of step; only "
                            "shoal_team_destroy is possible");
    if (a->tc == SHOAL__TC_BCAST) b = (uint64_t)(int64_t)a->root;

    /* Arguments, as on the host. */
    rc = shoal__coll_bytes(sh, call, a->nelems, es, &bytes);
    if (rc == SHOAL_SUCCESS) rc = shoal__coll_bytes(sh, call, bytes, (size_t)t->n_pes, &all);
    if (rc == SHOAL_SUCCESS && shoal__capturing(stream) && shoal__team_gpu_mode(t) == SHOAL__TEAM_GPU_MEMOPS)
        rc = shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                          "the stream is being captured, but members of this team share a GPU without MPS: their "
                          "barriers are stream memory operations counted on the host, which a graph would replay "
                          "with stale counts; start MPS, or call it outside the capture");
    if (rc == SHOAL_SUCCESS) switch (a->tc) {
        case SHOAL__TC_BCAST:
            if (a->root < 0 || a->root >= t->n_pes)
                rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "root %d is not a PE of the team (0 to %d)", a->root,
                                  t->n_pes - 1);
            else
                rc = shoal__coll_check(t, call, a->dest, bytes, t->my_pe == a->root ? a->src : NULL,
                                       t->my_pe == a->root ? bytes : 0, true);
            break;
        case SHOAL__TC_FCOLLECT: rc = shoal__coll_check(t, call, a->dest, all, a->src, bytes, false); break;
        case SHOAL__TC_ALLTOALL: rc = shoal__coll_check(t, call, a->dest, all, a->src, all, false); break;
        case SHOAL__TC_REDUCESCATTER: rc = shoal__coll_check(t, call, a->dest, bytes, a->src, all, false); break;
        default: rc = shoal__coll_check(t, call, a->dest, bytes, a->src, bytes, true); break; /* reduce */
        }
    if (rc == SHOAL_SUCCESS) rc = shoal__team_launch_args(t, &dev, &dt);
    if (rc == SHOAL_SUCCESS) rc = shoal__team_gpu_enter(t, call, stream);
    if (rc != SHOAL_SUCCESS) {
        if (meet) return shoal__coll_fail(t, call, kind, a->nelems, b, rc);
        shoal__team_gpu_skip(t, call, stream, barriers);
        return rc;
    }
    if (meet) SHOAL__TRY(rc, out, shoal__team_meet(t, call, kind, a->nelems, b));

    /* What a member reduces (a reduction's nreduce elements, a
     * reduce-scatter's n_pes blocks) or pushes (every member's block). */
    size_t work = a->tc == SHOAL__TC_REDUCE ? bytes : all;
    fused = shoal__team_gpu_mode(t) == SHOAL__TEAM_GPU_KERNELS &&
            (sh->coll_algo == SHOAL__COLL_ALGO_KERNEL ||
             (sh->coll_algo == SHOAL__COLL_ALGO_AUTO &&
              work <= (reduces ? SHOAL__COLL_FUSED_REDUCE : SHOAL__COLL_FUSED_PUSH)));
    if (!reduces) {
        int k = a->tc == SHOAL__TC_BCAST ? 0 : a->tc == SHOAL__TC_FCOLLECT ? 1 : 2;
        if (fused) {
            rc = shoal__team_launched(t, call,
                                      shoal__team_push_launch(stream, &dev, &dt, k, a->dest, a->src, bytes, a->root));
        } else {
            if (k == 0 && t->my_pe == a->root)
                rc = shoal__team_ce_push(t, call, stream, a->dest, 0, a->src, bytes, false);
            else if (k == 1)
                rc = shoal__team_ce_push(t, call, stream, a->dest, (size_t)t->my_pe * bytes, a->src, bytes, false);
            else if (k == 2)
                rc = shoal__team_ce_push(t, call, stream, a->dest, (size_t)t->my_pe * bytes, a->src, bytes, true);
            if (rc == SHOAL_SUCCESS)
                rc = shoal__team_gpu_barrier(t, call, stream);
            else
                t->broken = true; /* the others wait for this PE's barrier */
        }
    } else if (bytes == 0) {
        rc = shoal__team_gpu_barrier(t, call, stream);
        if (rc == SHOAL_SUCCESS) rc = shoal__team_gpu_barrier(t, call, stream);
    } else if (fused) {
        rc = shoal__team_launched(t, call,
                                  shoal__team_reduce_launch(stream, &dev, &dt, kt, a->op, a->dest, a->src, a->nelems,
                                                            SHOAL__KM_FUSED, a->tc == SHOAL__TC_REDUCESCATTER));
    } else {
        SHOAL__TRY(rc, out, shoal__team_gpu_barrier(t, call, stream));
        SHOAL__TRY(rc, out,
                   shoal__team_launched(t, call,
                                        shoal__team_reduce_launch(stream, &dev, &dt, kt, a->op, a->dest, a->src,
                                                                  a->nelems, SHOAL__KM_DATA,
                                                                  a->tc == SHOAL__TC_REDUCESCATTER)));
        rc = shoal__team_gpu_barrier(t, call, stream);
    }
    if (rc == SHOAL_SUCCESS) rc = shoal__team_gpu_leave(t, call, stream);
out:
    return rc;
}

int shoal__coll_run_stream(shoal_team_t t, const char *call, const shoal__coll_args_t *a, void *stream)
{
    return shoal__coll_stream_do(t, call, a, (cudaStream_t)stream, true);
}

int shoal__coll_run_gpu(shoal_team_t t, const char *call, const shoal__coll_args_t *a)
{
    shoal_t sh = t->sh;
    int rc;

    if (sh->gpu == NULL) return SHOAL__COLL_NOT_HERE;
    /* The internal stream: after the copies this PE's host calls queued
     * there, and after the application's work on the legacy stream. */
    rc = shoal__coll_stream_do(t, call, a, sh->gpu->stream, false);
    if (rc != SHOAL_SUCCESS) return rc;
    return shoal__team_gpu_wait(t, call, "the instance's internal stream", shoal__query_stream, sh->gpu->stream);
}

int shoal__team_barrier_on_stream(shoal_team_t t, const char *call, void *stream_v)
{
    cudaStream_t stream = (cudaStream_t)stream_v;
    uint32_t kind = SHOAL__TC_KIND(SHOAL__TC_BARRIER_STREAM, 0, 0) | SHOAL__TC_STREAM;
    bool meet = t->sh->cfg.check != SHOAL_CHECK_OFF;
    int rc;

    if (!shoal__team_on_gpu(t) || t->sh->coll_algo == SHOAL__COLL_ALGO_TRANSPORT) {
        /* Members the GPU cannot reach: the host waits, then meets them. */
        rc = shoal__team_stream_wait(t, call, stream);
        if (rc != SHOAL_SUCCESS) return shoal__coll_fail(t, call, kind, 0, 0, rc);
        return shoal__team_barrier(t, call, kind, 0, 0);
    }
    if (t->broken)
        return shoal__error(t->sh, SHOAL_ERR_TIMEOUT, call,
                            "an earlier collective on this team failed midway, so its members are out of step; only "
                            "shoal_team_destroy is possible");
    rc = shoal__quiet_on_stream(t->sh, stream);
    if (rc == SHOAL_SUCCESS && shoal__capturing(stream) && shoal__team_gpu_mode(t) == SHOAL__TEAM_GPU_MEMOPS)
        rc = shoal__error(t->sh, SHOAL_ERR_UNSUPPORTED, call,
                          "the stream is being captured, but members of this team share a GPU without MPS: their "
                          "barriers are stream memory operations counted on the host, which a graph would replay "
                          "with stale counts; start MPS, or call it outside the capture");
    if (rc == SHOAL_SUCCESS) rc = shoal__team_gpu_enter(t, call, stream);
    if (rc != SHOAL_SUCCESS) {
        if (meet) return shoal__coll_fail(t, call, kind, 0, 0, rc);
        shoal__team_gpu_skip(t, call, stream, 1);
        return rc;
    }
    if (meet) SHOAL__TRY(rc, out, shoal__team_meet(t, call, kind, 0, 0));
    rc = shoal__team_gpu_barrier(t, call, stream);
    if (rc == SHOAL_SUCCESS) rc = shoal__team_gpu_leave(t, call, stream);
out:
    return rc;
}
#endif

int shoal__coll_run(shoal_team_t t, const char *call, const shoal__coll_args_t *a)
{
#if SHOAL_HAVE_CUDA
    if (t->sh->heap_kind == SHOAL_HEAP_GPU) {
        int rc = shoal__coll_run_gpu(t, call, a);
        if (rc != SHOAL__COLL_NOT_HERE) return rc;
    }
#endif
    return shoal__coll_run_host(t, call, a);
}
