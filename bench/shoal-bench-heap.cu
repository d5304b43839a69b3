/*
 * shoal-bench-heap: what the growing GPU heap costs, against references
 * measured in the same run:
 *   init      shoal_init + shoal_finalize with a 1 TiB limit (growing)
 *             vs a 256 MiB fixed heap (SHOAL_HEAP_RESERVE=y)   goal <= 1.1x
 *   growth    shoal_malloc of 1 GiB that maps new chunks (then shoal_free,
 *             which gives them back) vs cudaMalloc + cudaFree of 1 GiB on
 *             the same GPU                                      goal <= 2x
 *             and vs the same through CUDA IPC: cudaMalloc, the handle
 *             to every node peer, each opening every peer's, then
 *             closing and cudaFree (what a symmetric block of node peers
 *             that load and store each other's costs without VMM; report)
 *   put       stream put bandwidth of 64 MiB to the right neighbour on a
 *             heap grown in steps vs on a fixed heap            goal >= 0.98x
 *   dev put   a block's shoal_dev_put_block of 64 MiB, the same pair of
 *             heaps                                             goal >= 0.98x
 * A time is the slowest PE's, the figure the best of the repetitions,
 * alternating the two sides of each ratio.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-heap [--reps N] [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <mpi.h>

#define BENCH_PROG "shoal-bench-heap"
#include "bench_host.h"
#include "bench_gpu.h"
#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"

static int me, npes;

static double slowest(double t)
{
    double m = t;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return m;
}

/* A GPU instance: growing with a limit of limit bytes, or fixed of limit bytes. */
static shoal_t make(size_t limit, bool fixed)
{
    shoal_config_t cfg;
    shoal_t sh = NULL;
    setenv("SHOAL_HEAP_RESERVE", fixed ? "y" : "n", 1);
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = limit;
    SH_OK(sh, shoal_init(MPI_COMM_WORLD, &cfg, &sh));
    return sh;
}

/* A symmetric 1 GiB without VMM: cudaMalloc, its IPC handle to every PE
 * of the node, each opening every peer's; then closed and freed. Seconds,
 * the slowest PE's. */
static double time_ipc_block(MPI_Comm node, size_t n)
{
    int nme = 0, nn = 1;
    void *p = NULL;
    cudaIpcMemHandle_t mine, *all;
    void **peer;

    MPI_Comm_rank(node, &nme);
    MPI_Comm_size(node, &nn);
    all = (cudaIpcMemHandle_t *)calloc((size_t)nn, sizeof(*all));
    peer = (void **)calloc((size_t)nn, sizeof(*peer));
    if (all == NULL || peer == NULL) bench_die(me, "calloc", "out of memory");
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    CUDA_OK(cudaMalloc(&p, n));
    CUDA_OK(cudaIpcGetMemHandle(&mine, p));
    MPI_Allgather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, node);
    for (int j = 0; j < nn; j++)
        if (j != nme) CUDA_OK(cudaIpcOpenMemHandle(&peer[j], all[j], cudaIpcMemLazyEnablePeerAccess));
    MPI_Barrier(node); /* every peer mapped, as after a symmetric malloc */
    for (int j = 0; j < nn; j++)
        if (j != nme) CUDA_OK(cudaIpcCloseMemHandle(peer[j]));
    MPI_Barrier(node); /* nobody frees memory a peer still maps */
    CUDA_OK(cudaFree(p));
    t = slowest(MPI_Wtime() - t);
    free(all);
    free(peer);
    return t;
}

static double time_init(size_t limit, bool fixed)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    shoal_t sh = make(limit, fixed);
    SH_OK(sh, shoal_finalize(sh));
    return slowest(MPI_Wtime() - t);
}

__global__ void k_put(shoal_device_t d, char *dst, const char *src, size_t n, int pe)
{
    shoal_dev_put_block(d, dst, src, n, pe);
    shoal_dev_quiet(d);
}

/* Stream and device put of n bytes to the right neighbour on sh, seconds. */
static void time_puts(shoal_t sh, size_t n, double *stream_s, double *dev_s)
{
    shoal_device_t d;
    int right = (me + 1) % npes;
    char *buf = (char *)shoal_malloc(sh, 2 * n);
    double t;

    if (buf == NULL) bench_die(me, "shoal_malloc", shoal_last_error(sh));
    SH_OK(sh, shoal_device_get(sh, &d));
    CUDA_OK(cudaMemset(buf, 1, 2 * n));
    SH_OK(sh, shoal_barrier_all(sh));
    t = MPI_Wtime();
    SH_OK(sh, shoal_put_on_stream(sh, buf + n, buf, n, right, 0));
    CUDA_OK(cudaStreamSynchronize(0));
    SH_OK(sh, shoal_barrier_all(sh));
    *stream_s = slowest(MPI_Wtime() - t);
    t = MPI_Wtime();
    k_put<<<1, 1024>>>(d, buf + n, buf, n, right);
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));
    *dev_s = slowest(MPI_Wtime() - t);
    SH_OK(sh, shoal_free(sh, buf));
}

int main(int argc, char **argv)
{
    long reps = 5;
    int quick = 0, provided = 0, ndev = 0;
    const size_t gib = (size_t)1 << 30, put_n = (size_t)64 << 20;
    double init_grow = 1e30, init_fixed = 1e30, grow = 1e30, cuda = 1e30, ipc = 1e30;
    MPI_Comm node = MPI_COMM_NULL;
    double put_grown = 1e30, put_fixed = 1e30, dput_grown = 1e30, dput_fixed = 1e30;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
            reps = 2;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atol(argv[++i]);
        } else {
            if (me == 0) fprintf(stderr, "usage: %s [--reps N] [--quick]\n", BENCH_PROG);
            MPI_Finalize();
            return 2;
        }
    }
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        if (me == 0) printf("%s: no GPU: nothing to measure\n", BENCH_PROG);
        MPI_Finalize();
        return 77;
    }
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    for (long r = 0; r < reps; r++) {
        bench_keep_best(&init_fixed, time_init((size_t)256 << 20, true));
        bench_keep_best(&init_grow, time_init((size_t)1 << 40, false));
    }
    {
        /* Growth: a fresh growing heap; each malloc maps 1 GiB, each free gives it back. */
        shoal_t sh = make((size_t)8 << 30, false);
        for (long r = 0; r < reps; r++) {
            void *p = NULL;
            MPI_Barrier(MPI_COMM_WORLD);
            double t = MPI_Wtime();
            CUDA_OK(cudaMalloc(&p, gib));
            CUDA_OK(cudaFree(p));
            bench_keep_best(&cuda, slowest(MPI_Wtime() - t));
            bench_keep_best(&ipc, time_ipc_block(node, gib));
            MPI_Barrier(MPI_COMM_WORLD);
            t = MPI_Wtime();
            p = shoal_malloc(sh, gib);
            if (p == NULL) bench_die(me, "shoal_malloc", shoal_last_error(sh));
            SH_OK(sh, shoal_free(sh, p));
            bench_keep_best(&grow, slowest(MPI_Wtime() - t));
        }
        /* Put on a heap grown in steps: blocks below the one measured. */
        void *steps[4];
        for (int k = 0; k < 4; k++) steps[k] = shoal_malloc(sh, (size_t)(k + 1) * 100 << 20);
        for (long r = 0; r < reps; r++) {
            double s, d;
            time_puts(sh, put_n, &s, &d);
            bench_keep_best(&put_grown, s);
            bench_keep_best(&dput_grown, d);
        }
        for (int k = 3; k >= 0; k--) SH_OK(sh, shoal_free(sh, steps[k]));
        SH_OK(sh, shoal_finalize(sh));
    }
    {
        shoal_t sh = make((size_t)2 << 30, true);
        for (long r = 0; r < reps; r++) {
            double s, d;
            time_puts(sh, put_n, &s, &d);
            bench_keep_best(&put_fixed, s);
            bench_keep_best(&dput_fixed, d);
        }
        SH_OK(sh, shoal_finalize(sh));
    }
    if (me == 0) {
        printf("%s: %d PEs, best of %ld%s\n", BENCH_PROG, npes, reps, quick ? " (--quick)" : "");
        printf("  init+finalize  growing 1 TiB %8.1f ms  fixed 256 MiB %8.1f ms  ratio %.2fx (goal <= 1.1x)\n",
               init_grow * 1e3, init_fixed * 1e3, init_grow / init_fixed);
        printf("  1 GiB          shoal_malloc+free %8.2f ms  cudaMalloc+free %8.2f ms  ratio %.2fx (goal <= 2x)\n",
               grow * 1e3, cuda * 1e3, grow / cuda);
        printf("  1 GiB          shoal_malloc+free %8.2f ms  cudaMalloc+IPC to node peers+free %8.2f ms  ratio %.2fx "
               "(report)\n",
               grow * 1e3, ipc * 1e3, grow / ipc);
        printf("  stream put     grown %8.1f GB/s  fixed %8.1f GB/s  ratio %.3fx (goal >= 0.98x)\n",
               put_n / put_grown / 1e9, put_n / put_fixed / 1e9, put_fixed / put_grown);
        printf("  device put     grown %8.1f GB/s  fixed %8.1f GB/s  ratio %.3fx (goal >= 0.98x)\n",
               put_n / dput_grown / 1e9, put_n / dput_fixed / 1e9, dput_fixed / dput_grown);
    }
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
