/* shoal-bench-device: the device API (shoal_device.cuh) against raw CUDA
 * kernels on the same buffers, in the same run. The raw references store,
 * load and update atomically through the peer pointer shoal_ptr gives (the
 * same IPC mapping the device API uses). Each figure is one kernel launch
 * doing many iterations, timed with CUDA events; the best of several runs.
 * PE 0 drives the one-sided rows towards PE 1; both take part in the
 * ping-pong and every PE in the barriers.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-device [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"

#include "bench_gpu.h"

static int me, npes;
static int reps = 5;

static void row(const char *what, double shoal_v, double ref_v, const char *unit, const char *ref_name)
{
    if (me != 0) return;
    if (ref_v > 0)
        printf("%-44s shoal %9.2f %-5s  %-26s %9.2f %-5s  ratio %.3f\n", what, shoal_v, unit, ref_name, ref_v, unit,
               shoal_v / ref_v);
    else
        printf("%-44s shoal %9.2f %-5s\n", what, shoal_v, unit);
    fflush(stdout);
}

static double best(double a, double b) { return a < b ? a : b; }

/* ---- kernels: shoal and raw side by side ---- */

/* Each block puts its 16-byte-aligned slice of n bytes, iters times. */
__global__ void put_block_kernel(shoal_device_t dev, char *dst, const char *src, size_t n, int iters, int pe, int *st)
{
    size_t per = (n / gridDim.x) & ~(size_t)15, lo = per * blockIdx.x;
    size_t hi = blockIdx.x == gridDim.x - 1 ? n : lo + per;
    int rc = SHOAL_SUCCESS;
    for (int i = 0; i < iters; i++) rc |= shoal_dev_put_block(dev, dst + lo, src + lo, hi - lo, pe);
    shoal_dev_quiet();
    if (threadIdx.x == 0 && rc != SHOAL_SUCCESS) *st = rc;
}

/* The plain copy kernel: grid-stride 16-byte stores into the peer pointer. */
__global__ void raw_copy_kernel(uint4 *peer, const uint4 *src, size_t nvec, int iters)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (int it = 0; it < iters; it++)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < nvec; i += stride) peer[i] = src[i];
}

/* PE 0 stores i into PE 1's flag and waits for PE 1 to store it back. */
__global__ void pingpong_kernel(shoal_device_t dev, uint64_t *flag, int iters, int other, int *st)
{
    int rc = SHOAL_SUCCESS;
    for (int i = 1; i <= iters; i++) {
        if (dev.my_pe == 0) {
            rc |= shoal_dev_uint64_p(dev, flag, (uint64_t)i, other);
            shoal_dev_uint64_wait_until(flag, SHOAL_CMP_GE, (uint64_t)i);
        } else {
            shoal_dev_uint64_wait_until(flag, SHOAL_CMP_GE, (uint64_t)i);
            rc |= shoal_dev_uint64_p(dev, flag, (uint64_t)i, other);
        }
    }
    if (rc != SHOAL_SUCCESS) *st = rc;
}

__global__ void raw_pingpong_kernel(volatile uint64_t *peer_flag, volatile uint64_t *my_flag, int iters, int me_)
{
    for (int i = 1; i <= iters; i++) {
        if (me_ == 0) {
            *peer_flag = (uint64_t)i;
            while (*my_flag < (uint64_t)i) {
            }
        } else {
            while (*my_flag < (uint64_t)i) {
            }
            *peer_flag = (uint64_t)i;
        }
    }
}

__global__ void barrier_block_kernel(shoal_device_t dev, int iters, int *st)
{
    int rc = SHOAL_SUCCESS;
    for (int i = 0; i < iters; i++) rc |= shoal_dev_barrier_all_block(dev);
    if (threadIdx.x == 0 && rc != SHOAL_SUCCESS) *st = rc;
}

__global__ void barrier_grid_kernel(shoal_device_t dev, int iters, int *st)
{
    int rc = SHOAL_SUCCESS;
    for (int i = 0; i < iters; i++) rc |= shoal_dev_barrier_all_grid(dev);
    if (threadIdx.x == 0 && blockIdx.x == 0 && rc != SHOAL_SUCCESS) *st = rc;
}

/* Dependent fetch_adds: each increment depends on the value the last one
 * returned (always 1, which the compiler cannot know), so one at a time. */
__global__ void fetch_add_kernel(shoal_device_t dev, unsigned long long *word, int iters, int pe,
                                 unsigned long long *out, int *st)
{
    unsigned long long inc = 1, old = 0, sum = 0;
    int rc = SHOAL_SUCCESS;
    for (int i = 0; i < iters; i++) {
        rc |= shoal_dev_ulonglong_atomic_fetch_add(dev, word, inc, pe, &old);
        sum += old;
        inc = 1 + (old >> 63);
    }
    *out = sum;
    if (rc != SHOAL_SUCCESS) *st = rc;
}

__global__ void raw_fetch_add_kernel(unsigned long long *peer_word, int iters, unsigned long long *out)
{
    unsigned long long inc = 1, old = 0, sum = 0;
    for (int i = 0; i < iters; i++) {
        old = atomicAdd_system(peer_word, inc);
        sum += old;
        inc = 1 + (old >> 63);
    }
    *out = sum;
}

/* Seconds one launch took, between events around it on st. */
static cudaEvent_t e0, e1;
static double elapsed(cudaStream_t st)
{
    float ms = 0;
    CUDA_OK(cudaEventRecord(e1, st));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1e-3;
}

static void check_status(const int *d_st, const char *what)
{
    int h = 0;
    CUDA_OK(cudaMemcpy(&h, d_st, sizeof(h), cudaMemcpyDeviceToHost));
    if (h != SHOAL_SUCCESS) {
        fprintf(stderr, "shoal-bench-device: %s returned %d (%s) on PE %d\n", what, h, shoal_strerror(h), me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    shoal_device_t dev;
    int ndev = 0, quick = 0, sms = 0;
    const size_t MiB = (size_t)1 << 20, big = 256 * MiB;
    cudaStream_t st;

    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1 || npes < 2) {
        if (me == 0) printf("shoal-bench-device: needs GPUs and at least 2 ranks; skipped\n");
        MPI_Finalize();
        return 77;
    }
    if (quick) reps = 2;
    CUDA_OK(cudaSetDevice(me % ndev));
    CUDA_OK(cudaFree(0));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, me % ndev));

    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = big + 64 * MiB;
    SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &sh));
    SH_OK(sh, shoal_device_get(sh, &dev));
    const char *tp = "?";
    SH_OK(sh, shoal_pe_transport(sh, 1, &tp));
    if (me == 0)
        printf("shoal-bench-device: %d PEs, PE 0 -> PE 1 over %s, GPU %d, %d SMs\n", npes, tp, shoal_cuda_device(sh),
               sms);
    if (!shoal_device_reachable(sh, 1) || !shoal_device_reachable(sh, 0)) {
        if (me == 0) printf("shoal-bench-device: PE 0 and PE 1 are not load/store reachable; skipped\n");
        SH_OK(sh, shoal_finalize(sh));
        MPI_Finalize();
        return 77;
    }

    char *dst = (char *)shoal_malloc(sh, big);
    uint64_t *flags = (uint64_t *)shoal_calloc(sh, 64, sizeof(uint64_t));
    if (!dst || !flags) SH_OK(sh, -1);
    char *src = NULL;
    int *d_st = NULL;
    unsigned long long *d_out = NULL;
    CUDA_OK(cudaMalloc(&src, big));
    CUDA_OK(cudaMemset(src, 0x5a, big));
    CUDA_OK(cudaMalloc(&d_st, sizeof(int)));
    CUDA_OK(cudaMemset(d_st, 0, sizeof(int)));
    CUDA_OK(cudaMalloc(&d_out, sizeof(*d_out)));
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    CUDA_OK(cudaDeviceSynchronize());

    /* 1. block put, spread over every SM, against the plain copy kernel */
    if (me == 0) {
        char *peer = (char *)shoal_ptr(sh, dst, 1);
        const size_t sizes[] = {big, 16 * MiB};
        int blocks = 4 * sms, threads = 512;
        for (int k = 0; k < 2; k++) {
            size_t n = sizes[k];
            int iters = n == big ? (quick ? 4 : 10) : (quick ? 50 : 200);
            double ts = 1e9, tr = 1e9;
            for (int r = 0; r < reps; r++) {
                CUDA_OK(cudaEventRecord(e0, st));
                raw_copy_kernel<<<blocks, threads, 0, st>>>((uint4 *)peer, (const uint4 *)src, n / 16, iters);
                tr = best(tr, elapsed(st) / iters);
                CUDA_OK(cudaEventRecord(e0, st));
                put_block_kernel<<<blocks, threads, 0, st>>>(dev, dst, src, n, iters, 1, d_st);
                ts = best(ts, elapsed(st) / iters);
            }
            CUDA_OK(cudaGetLastError());
            check_status(d_st, "shoal_dev_put_block");
            char what[64];
            snprintf(what, sizeof(what), "block put, %zu MiB, %d blocks x %d", n / MiB, blocks, threads);
            row(what, n / ts / 1e9, n / tr / 1e9, "GB/s", "raw copy kernel");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. p + wait_until ping-pong between PE 0 and PE 1 */
    if (me < 2) {
        int other = 1 - me, iters = quick ? 10000 : 100000;
        uint64_t *peer_flag = (uint64_t *)shoal_ptr(sh, &flags[1], other);
        double ts = 1e9, tr = 1e9;
        for (int r = 0; r < reps; r++) {
            CUDA_OK(cudaMemsetAsync(flags, 0, 2 * sizeof(uint64_t), st));
            CUDA_OK(cudaStreamSynchronize(st));
            MPI_Barrier(MPI_COMM_WORLD);
            CUDA_OK(cudaEventRecord(e0, st));
            raw_pingpong_kernel<<<1, 1, 0, st>>>(peer_flag, &flags[1], iters, me);
            tr = best(tr, elapsed(st) / iters);
            MPI_Barrier(MPI_COMM_WORLD);
            CUDA_OK(cudaEventRecord(e0, st));
            pingpong_kernel<<<1, 1, 0, st>>>(dev, &flags[0], iters, other, d_st);
            ts = best(ts, elapsed(st) / iters);
        }
        CUDA_OK(cudaGetLastError());
        check_status(d_st, "shoal_dev_uint64_p");
        row("p + wait_until ping-pong, round trip", ts * 1e6, tr * 1e6, "us", "raw volatile flag");
    } else {
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. barrier_all from a kernel: one block per PE, and a whole cooperative grid */
    {
        int iters = quick ? 10000 : 100000, coop = 0, per_sm = 0;
        double tb = 1e9, tg = 1e9;
        CUDA_OK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, shoal_cuda_device(sh)));
        CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, barrier_grid_kernel, 256, 0));
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            CUDA_OK(cudaEventRecord(e0, st));
            barrier_block_kernel<<<1, 128, 0, st>>>(dev, iters, d_st);
            double t = elapsed(st) / iters;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            tb = best(tb, t);
            if (coop && per_sm > 0) {
                int grid_iters = iters / 10;
                void *args[] = {&dev, &grid_iters, &d_st};
                MPI_Barrier(MPI_COMM_WORLD);
                CUDA_OK(cudaEventRecord(e0, st));
                CUDA_OK(
                    cudaLaunchCooperativeKernel((const void *)barrier_grid_kernel, dim3(sms), dim3(256), args, 0, st));
                t = elapsed(st) / grid_iters;
                MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                tg = best(tg, t);
            }
        }
        CUDA_OK(cudaGetLastError());
        check_status(d_st, "shoal_dev_barrier_all");
        char what[64];
        snprintf(what, sizeof(what), "barrier_all_block, %d PEs", npes);
        row(what, tb * 1e6, 0, "us", "");
        if (tg < 1e9) {
            snprintf(what, sizeof(what), "barrier_all_grid, %d PEs, %d blocks", npes, sms);
            row(what, tg * 1e6, 0, "us", "");
        }
    }

    /* 4. fetch_add on a word of PE 1, round trip */
    if (me == 0) {
        int iters = quick ? 10000 : 100000;
        unsigned long long *peer_word = (unsigned long long *)shoal_ptr(sh, &flags[8], 1);
        double ts = 1e9, tr = 1e9;
        for (int r = 0; r < reps; r++) {
            CUDA_OK(cudaEventRecord(e0, st));
            raw_fetch_add_kernel<<<1, 1, 0, st>>>(peer_word, iters, d_out);
            tr = best(tr, elapsed(st) / iters);
            CUDA_OK(cudaEventRecord(e0, st));
            fetch_add_kernel<<<1, 1, 0, st>>>(dev, (unsigned long long *)&flags[8], iters, 1, d_out, d_st);
            ts = best(ts, elapsed(st) / iters);
        }
        CUDA_OK(cudaGetLastError());
        check_status(d_st, "shoal_dev_ulonglong_atomic_fetch_add");
        row("fetch_add on a peer word, round trip", ts * 1e6, tr * 1e6, "us", "raw atomicAdd_system");
    }

    /* The block puts moved the bytes; the fetch_adds counted. */
    SH_OK(sh, shoal_barrier_all(sh));
    if (me == 1) {
        unsigned char h[4];
        unsigned long long count = 0;
        CUDA_OK(cudaMemcpy(h, dst + big - 4, 4, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(&count, &flags[8], sizeof(count), cudaMemcpyDeviceToHost));
        unsigned long long want = 2ull * reps * (quick ? 10000 : 100000);
        if (h[0] != 0x5a || h[3] != 0x5a || count != want) {
            fprintf(stderr, "shoal-bench-device: data check failed (byte %#x, count %llu, expected %llu)\n", h[0],
                    count, want);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    SH_OK(sh, shoal_barrier_all(sh));
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    CUDA_OK(cudaStreamDestroy(st));
    cudaFree(d_out);
    cudaFree(d_st);
    cudaFree(src);
    SH_OK(sh, shoal_free(sh, flags));
    SH_OK(sh, shoal_free(sh, dst));
    SH_OK(sh, shoal_finalize(sh));
    MPI_Finalize();
    return 0;
}
