/* shoal-bench-coll-gpu: shoal's team collectives on a GPU heap's world
 * team, in stream order and inside kernels, against raw CUDA in the same
 * run (and, built with -DSHOAL_BENCH_NVSHMEM and/or -DSHOAL_BENCH_NCCL,
 * against NVSHMEM and NCCL: bench/peers/build.sh).
 *
 * One table per collective, a row per size (8 B, then 16 B to 256 MiB in
 * powers of 4, 64 KiB and 16 MiB among them; --quick: six sizes up to
 * 16 MiB). The size is each PE's buffer: allreduce reduces that many bytes
 * (out of place), allgather gathers that many from each PE (dest n times
 * it), alltoall sends it in n blocks. Bus bandwidth as NCCL's tests count
 * it: allreduce 2(n-1)/n * bytes / t, allgather (n-1)/n * n * bytes / t,
 * alltoall (n-1)/n * bytes / t.
 *
 *   allreduce  shoal_float_sum_reduce_on_stream
 *              vs raw CUDA: the bytes it must send, as cudaMemcpyAsync into
 *              the peers' buffers + a stream flag barrier (below)
 *              [vs nvshmemx_float_sum_reduce_on_stream, ncclAllReduce]
 *   allgather  shoal_float_fcollect_on_stream
 *              vs raw CUDA: my block copied into every peer + flag barrier
 *              [vs nvshmemx_float_fcollect_on_stream, ncclAllGather]
 *   alltoall   shoal_float_alltoall_on_stream
 *              vs raw CUDA: block j copied into PE j + flag barrier
 *              [vs nvshmemx_float_alltoall_on_stream, grouped ncclSend/Recv]
 *   barrier    shoal_team_barrier_on_stream
 *              vs raw CUDA: cuStreamWriteValue32 into each peer's flag,
 *              then cuStreamWaitValue32 on each of mine
 *              [vs nvshmemx_barrier_all_on_stream]
 *   device     one block in one kernel: shoal_dev_float_sum_reduce_block on
 *              1 KiB and 64 KiB, shoal_dev_team_barrier_block
 *              vs raw CUDA: the same algorithm in plain CUDA on IPC-opened
 *              pointers with volatile flags (barrier, my share of the
 *              elements summed over every PE's src and stored into every
 *              PE's dest, barrier)
 *              [vs nvshmemx_float_sum_reduce_block, nvshmemx_barrier_all_block]
 *
 * Stream figures: a warmup that also sizes the batch, then best of 3
 * batches of N calls back to back on one stream, timed with CUDA events
 * (MPI_Barrier before each, the slowest PE's time). Device figures: many
 * iterations inside one kernel, the same way. Every implementation's dest
 * is poisoned (NaN) before each batch and the result of its last batch
 * compared element by element to the expected values, on every PE: a
 * figure whose data is wrong ends the run instead of being printed.
 *
 * The raw references need every PE on one node (CUDA IPC). NVSHMEM wants
 * one PE per GPU and NCCL refuses two ranks on one GPU: where PEs share a
 * GPU their figures are skipped with a note (for the two-GPU machine). The
 * device table needs the PEs' kernels side by side: where PEs share a GPU
 * without MPS it is skipped.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-coll-gpu [--quick] [--iters N]
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"

#include "bench_gpu.h"

#ifdef SHOAL_BENCH_NVSHMEM
#include <nvshmem.h>
#include <nvshmemx.h>
#endif
#ifdef SHOAL_BENCH_NCCL
#include <nccl.h>
#endif

typedef CUresult (*write32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef CUresult (*wait32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

#define MiB ((size_t)1 << 20)
#define RAW_MAX_PES 8        /* the raw references' peer tables */
#define RAW_SLACK (64 << 10) /* raw dst past n * max: the allreduce's rounded chunks */
#define RAW_FLAG_BYTES 4096  /* raw flag words after the raw dst */
#define RAW_STREAM_FLAGS 0   /* word j: PE j's stream-barrier generation */
#define RAW_DEV_FLAGS 64     /* word j: PE j's device-barrier generation */
#define DEV_THREADS 512      /* threads of the device tables' one block */
#define BATCHES 3

enum { IMPL_SHOAL, IMPL_RAW, IMPL_NVSHMEM, IMPL_NCCL, IMPL_COUNT };
static const char *const impl_name[IMPL_COUNT] = {"shoal", "raw CUDA", "NVSHMEM", "NCCL"};
enum { COLL_REDUCE, COLL_FCOLLECT, COLL_ALLTOALL, COLL_BARRIER };
static const char *const coll_name[] = {"allreduce", "allgather", "alltoall", "barrier"};

/* The buffers of one implementation: src (max_bytes) and dst (n *
 * max_bytes), in shoal's heap, a cudaMalloc (raw, NCCL) or NVSHMEM's heap. */
typedef struct impl_bufs {
    int ok;                            /* this implementation runs here */
    float *src;                        /* this PE's source: pat(me, i) */
    float *dst;                        /* this PE's destination */
    char *base;                        /* raw: the allocation holding src, dst and the flags */
    char *peer_base[RAW_MAX_PES];      /* raw: each PE's allocation, mapped here (mine: base) */
    float *peer_src[RAW_MAX_PES];      /* raw: each PE's src, mapped here */
    float *peer_dst[RAW_MAX_PES];      /* raw: each PE's dst, mapped here */
    uint32_t *peer_flags[RAW_MAX_PES]; /* raw: each PE's flag words, mapped here */
    uint32_t *flags;                   /* raw: my flag words (the peers write them) */
} impl_bufs_t;

/* One row's shape: elements per call and the bytes it stands for. */
typedef struct shape {
    size_t nel;   /* reduce: nreduce; fcollect: nelems; alltoall: nelems of a block */
    size_t bytes; /* the row's size: each PE's buffer */
    double bus;   /* bytes for the bus bandwidth */
} shape_t;

/* What a check expects in a dest (expected() below). */
enum { CK_REDUCE, CK_FCOLLECT, CK_ALLTOALL, CK_RAW_REDUCE };
typedef struct check_args {
    int mode;     /* CK_* */
    int me;       /* the checking PE */
    int np;       /* PEs */
    int skip_own; /* raw copies leave my own block alone */
    size_t nel;   /* the shape's nel */
    size_t n;     /* elements of dest to check */
} check_args_t;

static int me, npes;
static shoal_t sh;
static shoal_team_t team;
static cudaStream_t st;
static cudaEvent_t e0, e1;
static write32_fn write32;
static wait32_fn wait32;
static impl_bufs_t impl[IMPL_COUNT];
static size_t max_bytes = 256 * MiB;
static long iters = 1000;
static double batch_s = 0.1;
static int dev_iters = 10000;
static int quick;
static uint32_t raw_stream_gen, raw_dev_gen;
static unsigned long long *d_bad; /* the check kernel's count and first index */
static int *d_st;                 /* the device kernels' failing status, one per implementation */
#ifdef SHOAL_BENCH_NCCL
static ncclComm_t nccl_comm;
#endif

static void fail(const char *what, const char *why)
{
    fprintf(stderr, "shoal-bench-coll-gpu: PE %d: %s: %s\n", me, what, why);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Element i of PE pe's source: an integer in [-2048, 2047], distinct
 * enough between neighbours and PEs that a misplaced block shows, small
 * enough that float sums over PEs are exact in any order. */
static __host__ __device__ float pat(int pe, size_t i)
{
    uint32_t x = (uint32_t)i ^ ((uint32_t)(i >> 32) * 0x9e3779b9u) ^ ((uint32_t)pe * 0x85ebca6bu);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return (float)(int)(x & 4095u) - 2048.0f;
}

/* The value element idx of the checking PE's dest must hold; false where
 * it is not checked (a raw reference's own block, a chunk's tail). */
static __host__ __device__ bool expected(const check_args_t &a, size_t idx, float *want)
{
    switch (a.mode) {
    case CK_REDUCE: {
        float s = 0;
        for (int p = 0; p < a.np; p++) s += pat(p, idx);
        *want = s;
        return true;
    }
    case CK_FCOLLECT:
    case CK_ALLTOALL: {
        int b = (int)(idx / a.nel);
        size_t i = idx % a.nel;
        if (a.skip_own && b == a.me) return false;
        *want = pat(b, a.mode == CK_FCOLLECT ? i : (size_t)a.me * a.nel + i);
        return true;
    }
    default: {
        /* The raw allreduce's copies: np slots of ch elements from the
         * reduce-scatter (PE b's chunk me), then np from the allgather
         * (PE b's chunk b). */
        size_t ch = (a.nel + (size_t)a.np - 1) / (size_t)a.np, per = (size_t)a.np * ch;
        size_t r = idx / per, rem = idx % per, i = rem % ch;
        int b = (int)(rem / ch);
        size_t e = (r == 0 ? (size_t)a.me : (size_t)b) * ch + i;
        if (b == a.me || e >= a.nel) return false;
        *want = pat(b, e);
        return true;
    }
    }
}

__global__ void fill_kernel(float *p, size_t n, int pe)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = pat(pe, i);
}

__global__ void check_kernel(const float *buf, check_args_t a, unsigned long long *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < a.n; i += (size_t)gridDim.x * blockDim.x) {
        float want;
        if (expected(a, i, &want) && !(buf[i] == want)) {
            atomicAdd(&bad[0], 1ull);
            atomicMin(&bad[1], (unsigned long long)i);
        }
    }
}

static unsigned grid_for(size_t n)
{
    size_t g = (n + 255) / 256;
    return g < 1 ? 1 : g > 4096 ? 4096 : (unsigned)g;
}

static const char *size_label(size_t b, char *buf, size_t len)
{
    if (b >= MiB && b % MiB == 0)
        snprintf(buf, len, "%zu MiB", b / MiB);
    else if (b >= 1024 && b % 1024 == 0)
        snprintf(buf, len, "%zu KiB", b / 1024);
    else
        snprintf(buf, len, "%zu B", b);
    return buf;
}

static shape_t shape_of(int c, size_t bytes)
{
    shape_t z = {0, 0, 0};
    double n = (double)npes;
    switch (c) {
    case COLL_REDUCE:
        z.nel = bytes / sizeof(float);
        z.bytes = z.nel * sizeof(float);
        z.bus = 2.0 * (n - 1) / n * (double)z.bytes;
        break;
    case COLL_FCOLLECT:
        z.nel = bytes / sizeof(float);
        z.bytes = z.nel * sizeof(float);
        z.bus = (n - 1) / n * n * (double)z.bytes;
        break;
    case COLL_ALLTOALL:
        z.nel = bytes / sizeof(float) / (size_t)npes;
        if (z.nel == 0) z.nel = 1;
        z.bytes = z.nel * sizeof(float) * (size_t)npes;
        z.bus = (n - 1) / n * (double)z.bytes;
        break;
    default: break;
    }
    return z;
}

/* What impl k's dest holds after collective c of shape z. */
static check_args_t check_of(int k, int c, const shape_t *z)
{
    check_args_t a;
    memset(&a, 0, sizeof(a));
    a.me = me;
    a.np = npes;
    a.nel = z->nel;
    a.skip_own = k == IMPL_RAW;
    switch (c) {
    case COLL_REDUCE:
        if (k == IMPL_RAW) {
            size_t ch = (z->nel + (size_t)npes - 1) / (size_t)npes;
            a.mode = CK_RAW_REDUCE;
            a.n = 2 * (size_t)npes * ch;
        } else {
            a.mode = CK_REDUCE;
            a.n = z->nel;
        }
        break;
    case COLL_FCOLLECT:
        a.mode = CK_FCOLLECT;
        a.n = (size_t)npes * z->nel;
        break;
    case COLL_ALLTOALL:
        a.mode = CK_ALLTOALL;
        a.n = (size_t)npes * z->nel;
        break;
    default: break;
    }
    return a;
}

/* Compare impl k's dest with a; a wrong element ends the run. */
static void check(int k, const check_args_t *a, const char *what)
{
    unsigned long long h[2] = {0, ULLONG_MAX};
    if (a->n == 0) return;
    CUDA_OK(cudaStreamSynchronize(st));
    CUDA_OK(cudaMemcpy(d_bad, h, sizeof(h), cudaMemcpyHostToDevice));
    check_kernel<<<grid_for(a->n), 256, 0, st>>>(impl[k].dst, *a, d_bad);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(st));
    CUDA_OK(cudaMemcpy(h, d_bad, sizeof(h), cudaMemcpyDeviceToHost));
    if (h[0] != 0) {
        float got = 0, want = 0;
        char why[256];
        CUDA_OK(cudaMemcpy(&got, impl[k].dst + h[1], sizeof(got), cudaMemcpyDeviceToHost));
        expected(*a, (size_t)h[1], &want);
        snprintf(why, sizeof(why), "%s: %llu wrong elements of %zu; the first, [%llu], is %g, expected %g", what, h[0],
                 a->n, h[1], (double)got, (double)want);
        fail(impl_name[k], why);
    }
}

static void poison(int k, const check_args_t *a)
{
    if (a->n > 0) CUDA_OK(cudaMemsetAsync(impl[k].dst, 0xff, a->n * sizeof(float), st));
}

/* ---- stream calls ---- */

/* The raw stream barrier: my generation into my word at every peer (after
 * the stream's earlier work, with a system-wide memory barrier: flags 0),
 * then the stream waits until every peer's word here reached it. */
static void raw_stream_barrier(void)
{
    impl_bufs_t *r = &impl[IMPL_RAW];
    uint32_t gen = ++raw_stream_gen;
    for (int i = 1; i < npes; i++) {
        int j = (me + i) % npes;
        if (write32((CUstream)st, (CUdeviceptr)(r->peer_flags[j] + RAW_STREAM_FLAGS + me), gen, 0) != CUDA_SUCCESS)
            fail("cuStreamWriteValue32", "failed");
    }
    for (int i = 1; i < npes; i++) {
        int j = (me + i) % npes;
        if (wait32((CUstream)st, (CUdeviceptr)(r->flags + RAW_STREAM_FLAGS + j), gen, CU_STREAM_WAIT_VALUE_GEQ) !=
            CUDA_SUCCESS)
            fail("cuStreamWaitValue32", "failed");
    }
}

static void raw_copy(float *dst, const float *src, size_t nel)
{
    if (nel > 0) CUDA_OK(cudaMemcpyAsync(dst, src, nel * sizeof(float), cudaMemcpyDeviceToDevice, st));
}

/* The raw floor of collective c: the bytes it sends, copied into the
 * peers' buffers on the copy engines, then one flag barrier. Allreduce:
 * the traffic of a reduce-scatter (my chunk j into PE j's slot me) and an
 * allgather (my chunk me into every PE's second region), without the
 * arithmetic. */
static void raw_call(int c, size_t nel)
{
    impl_bufs_t *r = &impl[IMPL_RAW];
    size_t ch = (nel + (size_t)npes - 1) / (size_t)npes;

    for (int i = 1; i < npes && c != COLL_BARRIER; i++) {
        int j = (me + i) % npes;
        switch (c) {
        case COLL_REDUCE: {
            size_t lo_j = (size_t)j * ch, lo_me = (size_t)me * ch;
            size_t n_j = lo_j < nel ? (nel - lo_j < ch ? nel - lo_j : ch) : 0;
            size_t n_me = lo_me < nel ? (nel - lo_me < ch ? nel - lo_me : ch) : 0;
            raw_copy(r->peer_dst[j] + lo_me, r->src + lo_j, n_j);
            raw_copy(r->peer_dst[j] + (size_t)npes * ch + lo_me, r->src + lo_me, n_me);
            break;
        }
        case COLL_FCOLLECT: raw_copy(r->peer_dst[j] + (size_t)me * nel, r->src, nel); break;
        case COLL_ALLTOALL: raw_copy(r->peer_dst[j] + (size_t)me * nel, r->src + (size_t)j * nel, nel); break;
        default: break;
        }
    }
    raw_stream_barrier();
}

/* Enqueue one call of collective c (nel elements) by impl k on st. */
static void call(int k, int c, size_t nel)
{
    impl_bufs_t *b = &impl[k];

    switch (k) {
    case IMPL_SHOAL:
        switch (c) {
        case COLL_REDUCE: SH_OK(sh, shoal_float_sum_reduce_on_stream(team, b->dst, b->src, nel, st)); break;
        case COLL_FCOLLECT: SH_OK(sh, shoal_float_fcollect_on_stream(team, b->dst, b->src, nel, st)); break;
        case COLL_ALLTOALL: SH_OK(sh, shoal_float_alltoall_on_stream(team, b->dst, b->src, nel, st)); break;
        default: SH_OK(sh, shoal_team_barrier_on_stream(team, st)); break;
        }
        break;
    case IMPL_RAW: raw_call(c, nel); break;
#ifdef SHOAL_BENCH_NVSHMEM
    case IMPL_NVSHMEM: {
        int rc = 0;
        switch (c) {
        case COLL_REDUCE: rc = nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, b->dst, b->src, nel, st); break;
        case COLL_FCOLLECT: rc = nvshmemx_float_fcollect_on_stream(NVSHMEM_TEAM_WORLD, b->dst, b->src, nel, st); break;
        case COLL_ALLTOALL: rc = nvshmemx_float_alltoall_on_stream(NVSHMEM_TEAM_WORLD, b->dst, b->src, nel, st); break;
        default: nvshmemx_barrier_all_on_stream(st); break;
        }
        if (rc != 0) {
            char why[64];
            snprintf(why, sizeof(why), "%s returned %d", coll_name[c], rc);
            fail("NVSHMEM", why);
        }
        break;
    }
#endif
#ifdef SHOAL_BENCH_NCCL
    case IMPL_NCCL: {
        ncclResult_t nr = ncclSuccess;
        switch (c) {
        case COLL_REDUCE: nr = ncclAllReduce(b->src, b->dst, nel, ncclFloat, ncclSum, nccl_comm, st); break;
        case COLL_FCOLLECT: nr = ncclAllGather(b->src, b->dst, nel, ncclFloat, nccl_comm, st); break;
        case COLL_ALLTOALL: {
            ncclResult_t end;
            nr = ncclGroupStart();
            for (int j = 0; j < npes && nr == ncclSuccess; j++) {
                nr = ncclSend(b->src + (size_t)j * nel, nel, ncclFloat, j, nccl_comm, st);
                if (nr == ncclSuccess) nr = ncclRecv(b->dst + (size_t)j * nel, nel, ncclFloat, j, nccl_comm, st);
            }
            end = ncclGroupEnd();
            if (nr == ncclSuccess) nr = end;
            break;
        }
        default: break;
        }
        if (nr != ncclSuccess) fail("NCCL", ncclGetErrorString(nr));
        break;
    }
#endif
    default: break;
    }
}

/* Does impl k run collective c? (NCCL has no barrier.) */
static int runs(int k, int c) { return impl[k].ok && !(k == IMPL_NCCL && c == COLL_BARRIER); }

/* count calls back to back on st, between events, after an MPI_Barrier;
 * dest poisoned first where poison_it. Seconds per call, the slowest PE's. */
static double batch(int k, int c, const shape_t *z, long count, int poison_it)
{
    float ms = 0;
    double t;

    if (poison_it) {
        check_args_t a = check_of(k, c, z);
        poison(k, &a);
    }
    CUDA_OK(cudaStreamSynchronize(st));
    MPI_Barrier(MPI_COMM_WORLD);
    CUDA_OK(cudaEventRecord(e0, st));
    for (long i = 0; i < count; i++) call(k, c, z->nel);
    CUDA_OK(cudaEventRecord(e1, st));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
    t = ms * 1e-3 / (double)count;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

/* ---- output ---- */

static void table_head(const char *title)
{
    if (me != 0) return;
    printf("\n%s\n", title);
    printf("%-14s  %10s %7s  %10s %7s  %10s %7s  %10s %7s %10s %10s %10s\n", "", "shoal us", "GB/s", "raw us", "GB/s",
           "NVSHMEM us", "GB/s", "NCCL us", "GB/s", "vs raw", "vs NVSHMEM", "vs NCCL");
}

/* A row: each implementation's seconds per op (ran[k] 0: not run) and
 * busBw from bus bytes (0: none); the ratios are shoal's time over each
 * reference's. */
static void row(const char *label, const double *t, const int *ran, double bus)
{
    if (me != 0) return;
    printf("%-14s", label);
    for (int k = 0; k < IMPL_COUNT; k++) {
        if (!ran[k]) {
            printf("  %10s %7s", "-", "-");
        } else if (bus > 0) {
            double gbs = bus / t[k] / 1e9;
            printf("  %10.2f %7.*f", t[k] * 1e6, gbs < 10 ? 3 : 1, gbs);
        } else {
            printf("  %10.2f %7s", t[k] * 1e6, "-");
        }
    }
    for (int k = IMPL_RAW; k < IMPL_COUNT; k++)
        if (ran[k] && ran[IMPL_SHOAL])
            printf(" %10.3f", t[IMPL_SHOAL] / t[k]);
        else
            printf(" %10s", "-");
    printf("\n");
    fflush(stdout);
}

/* ---- stream tables ---- */

/* One figure of each implementation for collective c at bytes: warmup
 * and a probe that fixes the batch's count (the same on every PE: the
 * probe's time is the slowest PE's), then the batches, implementations
 * taking turns at going first; then each dest checked. */
static void stream_row(int c, size_t bytes)
{
    shape_t z = shape_of(c, bytes);
    double best[IMPL_COUNT];
    long count[IMPL_COUNT];
    int ran[IMPL_COUNT];
    char label[32];

    for (int k = 0; k < IMPL_COUNT; k++) {
        ran[k] = runs(k, c);
        best[k] = 0;
        count[k] = 0;
        if (!ran[k]) continue;
        long warm = iters < 10 ? iters : 10;
        batch(k, c, &z, 2, 0);
        double per = batch(k, c, &z, warm, 0);
        count[k] = iters;
        if (per * (double)iters > batch_s) count[k] = (long)(batch_s / per);
        if (count[k] < 3) count[k] = 3;
        if (count[k] > iters) count[k] = iters;
        best[k] = 1e30;
    }
    for (int r = 0; r < BATCHES; r++)
        for (int j = 0; j < IMPL_COUNT; j++) {
            int k = (j + r) % IMPL_COUNT;
            if (!ran[k]) continue;
            double t = batch(k, c, &z, count[k], c != COLL_BARRIER);
            if (t < best[k]) best[k] = t;
        }
    for (int k = 0; k < IMPL_COUNT; k++) {
        if (!ran[k] || c == COLL_BARRIER) continue;
        check_args_t a = check_of(k, c, &z);
        char what[64];
        snprintf(what, sizeof(what), "%s of %zu B", coll_name[c], z.bytes);
        check(k, &a, what);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* a PE whose check failed ends the run before PE 0 prints */
    if (c == COLL_BARRIER)
        snprintf(label, sizeof(label), "%d PEs", npes);
    else
        size_label(z.bytes, label, sizeof(label));
    row(label, best, ran, z.bus);
}

static void stream_table(int c, const size_t *sizes, int nsizes)
{
    static const char *const title[] =
        {"allreduce: shoal_float_sum_reduce_on_stream on the world team, out of place; size: each PE's src (and "
         "dest); busBw = 2(n-1)/n * size / t",
         "allgather: shoal_float_fcollect_on_stream on the world team; size: each PE's src (dest: n times it); "
         "busBw = (n-1)/n * n * size / t",
         "alltoall: shoal_float_alltoall_on_stream on the world team; size: each PE's src (and dest), n blocks; "
         "busBw = (n-1)/n * size / t",
         "barrier: shoal_team_barrier_on_stream on the world team (us per barrier)"};
    static const char *const raw_note[] =
        {"raw CUDA: the bytes an allreduce sends (a reduce-scatter's and an allgather's, 2(n-1)/n * size) as "
         "cudaMemcpyAsync into the peers' IPC-opened buffers, no arithmetic, + one stream flag barrier: a floor",
         "raw CUDA: my src as cudaMemcpyAsync into every peer's IPC-opened dest, + one stream flag barrier (no copy "
         "of my own block): a floor",
         "raw CUDA: block j as cudaMemcpyAsync into PE j's IPC-opened dest, + one stream flag barrier (no copy of "
         "my own block): a floor",
         "raw CUDA: cuStreamWriteValue32 into my word at each peer, then cuStreamWaitValue32 on each peer's word "
         "here"};
    static const char *const peers_note[] =
        {"NVSHMEM: nvshmemx_float_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD); NCCL: ncclAllReduce (float, sum)",
         "NVSHMEM: nvshmemx_float_fcollect_on_stream(NVSHMEM_TEAM_WORLD); NCCL: ncclAllGather",
         "NVSHMEM: nvshmemx_float_alltoall_on_stream(NVSHMEM_TEAM_WORLD); NCCL: ncclSend/ncclRecv to and from every "
         "rank in one group",
         "NVSHMEM: nvshmemx_barrier_all_on_stream; NCCL: none"};

    table_head(title[c]);
    for (int s = 0; s < nsizes; s++) stream_row(c, sizes[s]);
    if (me == 0) {
        printf("(%s)\n(%s)\n", raw_note[c], peers_note[c]);
        if (c == COLL_BARRIER)
            printf("data checked: ok (no data: every call's status)\n");
        else
            printf("data checked: ok (each implementation's dest after its last batch, every element, every PE)\n");
        fflush(stdout);
    }
}

/* ---- device table ---- */

/* The raw device reference's view of every PE: plain pointers from IPC. */
typedef struct raw_dev {
    float *src[RAW_MAX_PES];              /* each PE's src */
    float *dst[RAW_MAX_PES];              /* each PE's dst */
    volatile uint32_t *flag[RAW_MAX_PES]; /* each PE's device-barrier words */
    int me, n;                            /* this PE, PEs */
} raw_dev_t;

__global__ void shoal_reduce_kernel(shoal_device_t dev, shoal_dev_team_t t, float *dst, const float *src, size_t nel,
                                    int n_iter, int *status)
{
    int rc = SHOAL_SUCCESS;
    for (int i = 0; i < n_iter; i++) {
        int r = shoal_dev_float_sum_reduce_block(dev, t, dst, src, nel);
        if (r != SHOAL_SUCCESS) rc = r;
    }
    if (threadIdx.x == 0 && rc != SHOAL_SUCCESS) *status = rc;
}

__global__ void shoal_barrier_kernel(shoal_device_t dev, shoal_dev_team_t t, int n_iter, int *status)
{
    int rc = SHOAL_SUCCESS;
    for (int i = 0; i < n_iter; i++) {
        int r = shoal_dev_team_barrier_block(dev, t);
        if (r != SHOAL_SUCCESS) rc = r;
    }
    if (threadIdx.x == 0 && rc != SHOAL_SUCCESS) *status = rc;
}

/* The block's stores before it visible to every PE after it: thread j
 * stores gen into my word at PE j, then waits for PE j's word here. */
static __device__ __forceinline__ void raw_dev_barrier(const raw_dev_t &r, uint32_t gen)
{
    unsigned j = threadIdx.x;
    __syncthreads();
    if (j < (unsigned)r.n && (int)j != r.me) {
        __threadfence_system();
        r.flag[j][r.me] = gen;
        while ((int)(r.flag[r.me][j] - gen) < 0) {
        }
        __threadfence_system();
    }
    __syncthreads();
}

/* shoal's algorithm in plain CUDA: barrier, my share of the elements
 * summed over every PE's src and stored into every PE's dst, barrier. */
__global__ void raw_reduce_kernel(raw_dev_t r, size_t nel, int n_iter, uint32_t gen)
{
    size_t share = ((nel + (size_t)r.n - 1) / (size_t)r.n + 31) / 32 * 32;
    size_t lo = share * (size_t)r.me, hi = lo + share < nel ? lo + share : nel;
    for (int it = 0; it < n_iter; it++) {
        raw_dev_barrier(r, ++gen);
        for (size_t e = lo + threadIdx.x; e < hi; e += blockDim.x) {
            float acc = r.src[0][e];
            for (int k = 1; k < r.n; k++) acc += r.src[k][e];
            for (int k = 0; k < r.n; k++) r.dst[k][e] = acc;
        }
        raw_dev_barrier(r, ++gen);
    }
}

__global__ void raw_barrier_kernel(raw_dev_t r, int n_iter, uint32_t gen)
{
    for (int it = 0; it < n_iter; it++) raw_dev_barrier(r, ++gen);
}

#ifdef SHOAL_BENCH_NVSHMEM
__global__ void nv_reduce_kernel(float *dst, const float *src, size_t nel, int n_iter, int *status)
{
    int rc = 0;
    for (int i = 0; i < n_iter; i++) {
        int r = nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD, dst, src, nel);
        if (r != 0) rc = r;
    }
    if (threadIdx.x == 0 && rc != 0) *status = rc;
}

__global__ void nv_barrier_kernel(int n_iter)
{
    for (int i = 0; i < n_iter; i++) nvshmemx_barrier_all_block();
}
#endif

static shoal_device_t dev;
static shoal_dev_team_t dteam;
static raw_dev_t rdev;

/* One launch of impl k's kernel: n_iter reductions of nel floats (op 0)
 * or barriers (op 1); seconds per op, the slowest PE's. */
static double dev_batch(int k, int op, size_t nel, int n_iter)
{
    float ms = 0;
    double t;

    if (op == 0) CUDA_OK(cudaMemsetAsync(impl[k].dst, 0xff, nel * sizeof(float), st));
    CUDA_OK(cudaStreamSynchronize(st));
    MPI_Barrier(MPI_COMM_WORLD);
    CUDA_OK(cudaEventRecord(e0, st));
    switch (k) {
    case IMPL_SHOAL:
        if (op == 0)
            shoal_reduce_kernel<<<1, DEV_THREADS, 0, st>>>(dev, dteam, impl[k].dst, impl[k].src, nel, n_iter,
                                                           d_st + IMPL_SHOAL);
        else
            shoal_barrier_kernel<<<1, DEV_THREADS, 0, st>>>(dev, dteam, n_iter, d_st + IMPL_SHOAL);
        break;
    case IMPL_RAW:
        if (op == 0) {
            raw_reduce_kernel<<<1, DEV_THREADS, 0, st>>>(rdev, nel, n_iter, raw_dev_gen);
            raw_dev_gen += 2u * (uint32_t)n_iter;
        } else {
            raw_barrier_kernel<<<1, DEV_THREADS, 0, st>>>(rdev, n_iter, raw_dev_gen);
            raw_dev_gen += (uint32_t)n_iter;
        }
        break;
#ifdef SHOAL_BENCH_NVSHMEM
    case IMPL_NVSHMEM: {
        float *d = impl[k].dst;
        const float *s = impl[k].src;
        int *status = d_st + IMPL_NVSHMEM;
        void *rargs[] = {&d, &s, &nel, &n_iter, &status};
        void *bargs[] = {&n_iter};
        int rc =
            op == 0
                ? nvshmemx_collective_launch((const void *)nv_reduce_kernel, dim3(1), dim3(DEV_THREADS), rargs, 0, st)
                : nvshmemx_collective_launch((const void *)nv_barrier_kernel, dim3(1), dim3(DEV_THREADS), bargs, 0, st);
        if (rc != 0) fail("nvshmemx_collective_launch", "failed");
        break;
    }
#endif
    default: break;
    }
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaEventRecord(e1, st));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
    t = ms * 1e-3 / (double)n_iter;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t;
}

/* The statuses the device calls returned: shoal's and NVSHMEM's reduce
 * (op 0) and shoal's barrier. */
static void dev_status(int op)
{
    int h[IMPL_COUNT];
    CUDA_OK(cudaMemcpy(h, d_st, sizeof(h), cudaMemcpyDeviceToHost));
    if (h[IMPL_SHOAL] != 0) {
        char why[160];
        snprintf(why, sizeof(why), "%s returned %d (%s)",
                 op == 0 ? "shoal_dev_float_sum_reduce_block" : "shoal_dev_team_barrier_block", h[IMPL_SHOAL],
                 shoal_strerror(h[IMPL_SHOAL]));
        fail("device", why);
    }
    if (h[IMPL_NVSHMEM] != 0) {
        char why[96];
        snprintf(why, sizeof(why), "nvshmemx_float_sum_reduce_block returned %d", h[IMPL_NVSHMEM]);
        fail("device", why);
    }
}

static void device_table(void)
{
    const size_t sizes[2] = {1024, 64 << 10};
    int shared_no_mps = 0, any = 0, ok = 1, all = 0;

    for (int pe = 0; pe < npes; pe++)
        if (shoal_pe_gpu_shared(sh, pe) == SHOAL_GPU_SHARED) shared_no_mps = 1;
    MPI_Allreduce(&shared_no_mps, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (shoal_device_get(sh, &dev) != SHOAL_SUCCESS || shoal_team_device_get(team, &dteam) != SHOAL_SUCCESS) ok = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    char title[256];
    snprintf(title, sizeof(title),
             "device: one block of %d threads, %d iterations (reduce 64 KiB: %d, barrier: %d) in one kernel, us per "
             "op; reduce: shoal_dev_float_sum_reduce_block, busBw = 2(n-1)/n * size / t; barrier: "
             "shoal_dev_team_barrier_block",
             DEV_THREADS, dev_iters, dev_iters / 4, 2 * dev_iters);
    table_head(title);
    if (any || !all) {
        if (me == 0) {
            printf("skipped: %s\n",
                   any ? "PEs share a GPU without MPS: kernels waiting for each other take turns by time slices "
                         "(start MPS, ../shared/GPU-MACHINE.md)"
                       : "kernels cannot reach every member of the world team (shoal_team_device_get)");
            fflush(stdout);
        }
        return;
    }
    if (impl[IMPL_RAW].ok) {
        memset(&rdev, 0, sizeof(rdev));
        for (int j = 0; j < npes; j++) {
            rdev.src[j] = impl[IMPL_RAW].peer_src[j];
            rdev.dst[j] = impl[IMPL_RAW].peer_dst[j];
            rdev.flag[j] = impl[IMPL_RAW].peer_flags[j] + RAW_DEV_FLAGS;
        }
        rdev.me = me;
        rdev.n = npes;
    }
    CUDA_OK(cudaMemset(d_st, 0, IMPL_COUNT * sizeof(int)));

    for (int op = 0; op < 3; op++) {
        int is_reduce = op < 2, n_iter = op == 0 ? dev_iters : op == 1 ? dev_iters / 4 : 2 * dev_iters;
        size_t nel = is_reduce ? sizes[op] / sizeof(float) : 0;
        double best[IMPL_COUNT];
        int ran[IMPL_COUNT];
        if (n_iter < 1) n_iter = 1;
        for (int k = 0; k < IMPL_COUNT; k++) {
            ran[k] = impl[k].ok && k != IMPL_NCCL;
            best[k] = 1e30;
            if (ran[k]) dev_batch(k, is_reduce ? 0 : 1, nel, n_iter / 10 < 1 ? 1 : n_iter / 10); /* warmup */
        }
        for (int r = 0; r < BATCHES; r++)
            for (int j = 0; j < IMPL_COUNT; j++) {
                int k = (j + r) % IMPL_COUNT;
                if (!ran[k]) continue;
                double t = dev_batch(k, is_reduce ? 0 : 1, nel, n_iter);
                if (t < best[k]) best[k] = t;
            }
        dev_status(is_reduce ? 0 : 1);
        char label[32], sz[16];
        if (is_reduce) {
            shape_t z = shape_of(COLL_REDUCE, sizes[op]);
            for (int k = 0; k < IMPL_COUNT; k++) {
                if (!ran[k]) continue;
                check_args_t a = check_of(IMPL_SHOAL, COLL_REDUCE, &z); /* the whole sum, raw's too */
                check(k, &a, op == 0 ? "device reduce of 1 KiB" : "device reduce of 64 KiB");
            }
            MPI_Barrier(MPI_COMM_WORLD);
            snprintf(label, sizeof(label), "reduce %s", size_label(sizes[op], sz, sizeof(sz)));
            row(label, best, ran, z.bus);
        } else {
            row("barrier", best, ran, 0);
        }
    }
    if (me == 0) {
        printf("(raw CUDA: the same algorithm in plain CUDA on IPC-opened pointers: a barrier of volatile flags, my "
               "share summed over every PE's src and stored into every PE's dest, a barrier)\n");
        printf("(NVSHMEM: nvshmemx_float_sum_reduce_block(NVSHMEM_TEAM_WORLD) and nvshmemx_barrier_all_block, "
               "launched with nvshmemx_collective_launch; NCCL: none)\n");
        printf("data checked: ok (each reduction's dest after its last launch, every element, every PE; the "
               "barriers' status)\n");
        fflush(stdout);
    }
}

/* ---- setup ---- */

/* The raw references: one cudaMalloc holding src, dst and the flag words,
 * opened by every other PE through CUDA IPC. Needs every PE on this node. */
static void raw_setup(void)
{
    impl_bufs_t *r = &impl[IMPL_RAW];
    MPI_Comm node;
    int nsize = 0, ok = 1, all = 0;
    size_t dst_off = max_bytes, flag_off = max_bytes + (size_t)npes * max_bytes + RAW_SLACK;
    cudaIpcMemHandle_t mine, *hs;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    if (nsize != npes || npes > RAW_MAX_PES) {
        if (me == 0)
            printf("raw CUDA: not run: %s\n",
                   nsize != npes ? "the PEs are not all on one node (CUDA IPC)" : "more PEs than its tables hold (8)");
        return;
    }
    CUDA_OK(cudaMalloc((void **)&r->base, flag_off + RAW_FLAG_BYTES));
    CUDA_OK(cudaMemset(r->base + flag_off, 0, RAW_FLAG_BYTES));
    CUDA_OK(cudaDeviceSynchronize());
    r->src = (float *)r->base;
    r->dst = (float *)(r->base + dst_off);
    r->flags = (uint32_t *)(r->base + flag_off);
    CUDA_OK(cudaIpcGetMemHandle(&mine, r->base));
    hs = (cudaIpcMemHandle_t *)calloc((size_t)npes, sizeof(*hs));
    if (hs == NULL) fail("calloc", "no memory");
    MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, hs, (int)sizeof(mine), MPI_BYTE, MPI_COMM_WORLD);
    for (int j = 0; j < npes; j++) {
        void *p = NULL;
        if (j == me) {
            p = r->base;
        } else if (cudaIpcOpenMemHandle(&p, hs[j], cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
            (void)cudaGetLastError();
            ok = 0;
            continue;
        }
        r->peer_base[j] = (char *)p;
        r->peer_src[j] = (float *)p;
        r->peer_dst[j] = (float *)((char *)p + dst_off);
        r->peer_flags[j] = (uint32_t *)((char *)p + flag_off);
    }
    free(hs);
    if (ok) {
        enum cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", (void **)&write32, 12000, cudaEnableDefault, &q) !=
                cudaSuccess ||
            cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void **)&wait32, 12000, cudaEnableDefault, &q) !=
                cudaSuccess ||
            write32 == NULL || wait32 == NULL)
            ok = 0;
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (me == 0) printf("raw CUDA: not run: cudaIpcOpenMemHandle or the stream memory operations failed\n");
        return;
    }
    fill_kernel<<<grid_for(max_bytes / sizeof(float)), 256, 0, st>>>(r->src, max_bytes / sizeof(float), me);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(st));
    r->ok = 1;
}

static void raw_teardown(void)
{
    impl_bufs_t *r = &impl[IMPL_RAW];
    if (r->base == NULL) return;
    for (int j = 0; j < npes; j++)
        if (j != me && r->peer_base[j] != NULL) CUDA_OK(cudaIpcCloseMemHandle(r->peer_base[j]));
    MPI_Barrier(MPI_COMM_WORLD); /* nobody has mine open any more */
    CUDA_OK(cudaFree(r->base));
}

#if defined(SHOAL_BENCH_NVSHMEM) || defined(SHOAL_BENCH_NCCL)
/* 1 on every PE where some PE shares its GPU with another. */
static int gpus_shared(void)
{
    int shared = 0, any = 0;
    for (int pe = 0; pe < npes; pe++)
        if (shoal_pe_gpu_shared(sh, pe) != SHOAL_GPU_SEPARATE) shared = 1;
    MPI_Allreduce(&shared, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}
#endif

#ifdef SHOAL_BENCH_NVSHMEM
/* NVSHMEM beside shoal, as ../shared/GPU-MACHINE.md says: the unique-id
 * bootstrap over MPI, NVLink multicast off unless the environment says,
 * a symmetric heap for src and dst unless the environment sizes it. */
static void nvshmem_setup(void)
{
    int rc;
    nvshmemx_uniqueid_t id;
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    char heap[32];
    impl_bufs_t *b = &impl[IMPL_NVSHMEM];

    if (gpus_shared()) {
        if (me == 0)
            printf("NVSHMEM: skipped: PEs share a GPU here, and NVSHMEM wants one PE per GPU; its figures are for "
                   "the machine with a GPU per PE (nvidia-h200-x2)\n");
        return;
    }
    snprintf(heap, sizeof(heap), "%zu", ((size_t)npes + 1) * max_bytes + 512 * MiB);
    setenv("NVSHMEM_SYMMETRIC_SIZE", heap, 0);
    setenv("NVSHMEM_DISABLE_NVLS", "1", 0);
    memset(&id, 0, sizeof(id));
    if (me == 0 && nvshmemx_get_uniqueid(&id) != 0) memset(&id, 0, sizeof(id));
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    rc = nvshmemx_set_attr_uniqueid_args(me, npes, &id, &attr);
    if (rc == 0) rc = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rc != 0) {
        if (me == 0) printf("NVSHMEM: skipped: nvshmemx_init_attr failed (%d)\n", rc);
        return;
    }
    if (nvshmem_my_pe() != me) fail("NVSHMEM", "its PE numbers differ from the MPI ranks");
    b->src = (float *)nvshmem_malloc(max_bytes);
    b->dst = (float *)nvshmem_malloc((size_t)npes * max_bytes);
    if (b->src == NULL || b->dst == NULL) fail("nvshmem_malloc", "NULL (NVSHMEM_SYMMETRIC_SIZE too small?)");
    fill_kernel<<<grid_for(max_bytes / sizeof(float)), 256, 0, st>>>(b->src, max_bytes / sizeof(float), me);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(st));
    nvshmem_barrier_all();
    b->ok = 1;
    if (me == 0) printf("NVSHMEM %d.%d beside shoal\n", NVSHMEM_MAJOR_VERSION, NVSHMEM_MINOR_VERSION);
}

static void nvshmem_teardown(void)
{
    impl_bufs_t *b = &impl[IMPL_NVSHMEM];
    if (!b->ok) return;
    nvshmem_barrier_all();
    nvshmem_free(b->dst);
    nvshmem_free(b->src);
    nvshmem_finalize();
}
#endif

#ifdef SHOAL_BENCH_NCCL
/* NCCL beside shoal: its communicator from a unique id over MPI, NVLink
 * multicast off unless the environment says. */
static void nccl_setup(void)
{
    ncclUniqueId id;
    ncclResult_t nr = ncclSuccess;
    int ok, all = 0, v = 0;
    impl_bufs_t *b = &impl[IMPL_NCCL];

    if (gpus_shared()) {
        if (me == 0)
            printf("NCCL: skipped: PEs share a GPU here, and NCCL refuses two ranks on one GPU; its figures are for "
                   "the machine with a GPU per PE (nvidia-h200-x2)\n");
        return;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    memset(&id, 0, sizeof(id));
    if (me == 0) nr = ncclGetUniqueId(&id);
    ok = nr == ncclSuccess;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (ok) {
        MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
        nr = ncclCommInitRank(&nccl_comm, npes, id, me);
        ok = nr == ncclSuccess;
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (me == 0) printf("NCCL: skipped: %s\n", ncclGetErrorString(nr));
        if (ok) ncclCommDestroy(nccl_comm);
        return;
    }
    CUDA_OK(cudaMalloc((void **)&b->src, max_bytes));
    CUDA_OK(cudaMalloc((void **)&b->dst, (size_t)npes * max_bytes));
    fill_kernel<<<grid_for(max_bytes / sizeof(float)), 256, 0, st>>>(b->src, max_bytes / sizeof(float), me);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(st));
    b->ok = 1;
    ncclGetVersion(&v);
    if (me == 0) printf("NCCL %d.%d.%d beside shoal\n", v / 10000, v / 100 % 100, v % 100);
}

static void nccl_teardown(void)
{
    impl_bufs_t *b = &impl[IMPL_NCCL];
    if (!b->ok) return;
    CUDA_OK(cudaStreamSynchronize(st));
    ncclCommDestroy(nccl_comm);
    cudaFree(b->dst);
    cudaFree(b->src);
}
#endif

static int parse_args(int argc, char **argv)
{
    long n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            char *end = NULL;
            errno = 0;
            n = strtol(argv[++i], &end, 10);
            if (errno != 0 || *end != '\0' || n < 1 || n > INT_MAX / 4) {
                if (me == 0) fprintf(stderr, "shoal-bench-coll-gpu: --iters wants a count from 1\n");
                return 1;
            }
        } else {
            if (me == 0)
                fprintf(stderr,
                        "shoal-bench-coll-gpu: unknown argument '%s'\n"
                        "usage: mpiexec -n 2 shoal-bench-coll-gpu [--quick] [--iters N]\n",
                        argv[i]);
            return 1;
        }
    }
    if (quick) {
        max_bytes = 16 * MiB;
        iters = 100;
        batch_s = 0.03;
        dev_iters = 1000;
    }
    if (n > 0) iters = n;
    return 0;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    int ndev = 0;
    const char *tp = "-";
    size_t sizes[16];
    int nsizes = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (parse_args(argc, argv) != 0) {
        MPI_Finalize();
        return 1;
    }
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1 || npes < 2) {
        if (me == 0) printf("shoal-bench-coll-gpu: needs GPUs and at least 2 ranks; skipped\n");
        MPI_Finalize();
        return 77;
    }
    if (quick) {
        const size_t q[] = {8, 256, 4096, 64 << 10, MiB, 16 * MiB};
        for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) sizes[nsizes++] = q[i];
    } else {
        sizes[nsizes++] = 8;
        for (size_t b = 16; b <= max_bytes; b *= 4) sizes[nsizes++] = b;
    }
    /* The application picks its device and creates its context first. */
    CUDA_OK(cudaSetDevice(me % ndev));
    CUDA_OK(cudaFree(0));

    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = ((size_t)npes + 1) * max_bytes + 64 * MiB;
    SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &sh));
    SH_OK(sh, shoal_pe_transport(sh, (me + 1) % npes, &tp));
    team = shoal_team_world(sh);
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    CUDA_OK(cudaMalloc((void **)&d_bad, 2 * sizeof(*d_bad)));
    CUDA_OK(cudaMalloc((void **)&d_st, IMPL_COUNT * sizeof(*d_st)));

    {
        impl_bufs_t *b = &impl[IMPL_SHOAL];
        b->src = (float *)shoal_malloc(sh, max_bytes);
        b->dst = (float *)shoal_malloc(sh, (size_t)npes * max_bytes);
        if (b->src == NULL || b->dst == NULL) SH_OK(sh, SHOAL_ERR_NO_MEMORY);
        fill_kernel<<<grid_for(max_bytes / sizeof(float)), 256, 0, st>>>(b->src, max_bytes / sizeof(float), me);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaStreamSynchronize(st));
        b->ok = 1;
    }

    if (me == 0) {
        int shared = shoal_pe_gpu_shared(sh, 1);
        const char *coll = getenv("SHOAL_COLL"), *chk = getenv("SHOAL_CHECK");
        printf("shoal-bench-coll-gpu: %d PEs, the world team; PE 0 -> PE 1 over %s, GPU %d of %d; PE 1's GPU: %s\n",
               npes, tp, shoal_cuda_device(sh), ndev,
               shared == SHOAL_GPU_SEPARATE     ? "another"
               : shared == SHOAL_GPU_SHARED_MPS ? "the same, under MPS"
                                                : "the same, no MPS (barriers are stream memory operations)");
        printf("SHOAL_COLL=%s, SHOAL_CHECK=%s (off: no host meeting per call)\n", coll ? coll : "(auto)",
               chk ? chk : "(default)");
        printf("stream figures: best of %d batches of up to %ld calls back to back on one stream (fewer where a "
               "batch would pass %.2f s), timed with CUDA events after an MPI_Barrier; the slowest PE's time\n",
               BATCHES, iters, batch_s);
        printf("vs X: shoal's time over X's (above 1: shoal is slower)\n");
        fflush(stdout);
    }
    raw_setup();
#ifdef SHOAL_BENCH_NVSHMEM
    nvshmem_setup();
#else
    if (me == 0) printf("NVSHMEM: not built in (bench/peers/build.sh builds the variant that compares)\n");
#endif
#ifdef SHOAL_BENCH_NCCL
    nccl_setup();
#else
    if (me == 0) printf("NCCL: not built in (bench/peers/build.sh builds the variant that compares)\n");
#endif
    SH_OK(sh, shoal_barrier_all(sh));

    for (int c = COLL_REDUCE; c <= COLL_ALLTOALL; c++) stream_table(c, sizes, nsizes);
    {
        size_t none = 0;
        stream_table(COLL_BARRIER, &none, 1);
    }
    device_table();

    CUDA_OK(cudaStreamSynchronize(st));
#ifdef SHOAL_BENCH_NCCL
    nccl_teardown();
#endif
#ifdef SHOAL_BENCH_NVSHMEM
    nvshmem_teardown();
#endif
    raw_teardown();
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, impl[IMPL_SHOAL].dst));
    SH_OK(sh, shoal_free(sh, impl[IMPL_SHOAL].src));
    SH_OK(sh, shoal_finalize(sh));
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    CUDA_OK(cudaStreamDestroy(st));
    cudaFree(d_st);
    cudaFree(d_bad);
    MPI_Finalize();
    return 0;
}
