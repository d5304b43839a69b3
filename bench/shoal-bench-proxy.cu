/* shoal-bench-proxy: kernels' calls through the device proxy against the
 * host API's same calls on the same pair, in the same run: what a kernel
 * pays to reach a PE it cannot load from and store to (another node, no
 * peer access). Run where PE 1 is such a PE for PE 0, under
 * MPI_THREAD_MULTIPLE (the proxy needs it):
 *
 *   SHOAL_NODE_SIZE=1 mpiexec -n 2 build/bench/shoal-bench-proxy [--quick]
 *   SHOAL_TRANSPORT_DISABLE=cuda_ipc mpiexec -n 2 build/bench/shoal-bench-proxy
 *
 * Rows (PE 0 drives, towards PE 1; best of several runs; per operation):
 *   g 8 B, round trip           a kernel's shoal_dev_longlong_g    vs the host's shoal_longlong_g
 *   fetch_add 8 B, round trip   shoal_dev_..._atomic_fetch_add     vs shoal_..._atomic_fetch_add
 *   p 8 B, pipelined + quiet    n p's then shoal_dev_quiet(dev)    vs n shoal_longlong_p then shoal_quiet
 *   put 1 MiB, 64 MiB, blocking shoal_dev_put_block                vs shoal_put (device source)
 *   barrier, every PE           shoal_dev_barrier_all_block        vs shoal_barrier_all
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"

#include "bench_gpu.h"

static int me, npes, reps = 5;

static void row(const char *what, double shoal_v, double ref_v, const char *unit, const char *ref_name)
{
    printf("%-34s kernel (proxy) %9.2f %-4s  %-22s %9.2f %-4s  ratio %.3f\n", what, shoal_v, unit, ref_name, ref_v,
           unit, shoal_v / ref_v);
}
static double best(double a, double b) { return a < b ? a : b; }

__global__ void g_kernel(shoal_device_t dev, long long *w, int iters, int *st)
{
    long long v = 0, sum = 0;
    int rc = 0;
    for (int i = 0; i < iters && rc == 0; i++) {
        rc = shoal_dev_longlong_g(dev, &v, w, 1);
        sum += v;
    }
    *st = rc != 0 ? rc : (sum < 0 ? -1 : 0);
}
__global__ void fadd_kernel(shoal_device_t dev, long long *w, int iters, int *st)
{
    long long old = 0;
    int rc = 0;
    for (int i = 0; i < iters && rc == 0; i++) rc = shoal_dev_longlong_atomic_fetch_add(dev, w, 1, 1, &old);
    *st = rc;
}
__global__ void p_kernel(shoal_device_t dev, long long *w, int iters, int *st)
{
    int rc = 0;
    for (int i = 0; i < iters && rc == 0; i++) rc = shoal_dev_longlong_p(dev, w + (i & 7), i, 1);
    if (rc == 0) rc = shoal_dev_quiet(dev);
    *st = rc;
}
__global__ void put_kernel(shoal_device_t dev, char *dst, const char *src, size_t n, int iters, int *st)
{
    int rc = 0;
    for (int i = 0; i < iters && rc == 0; i++) rc = shoal_dev_put_block(dev, dst, src, n, 1);
    if (threadIdx.x == 0) *st = rc;
}
__global__ void barrier_kernel(shoal_device_t dev, int iters, int *st)
{
    int rc = 0;
    for (int i = 0; i < iters && rc == 0; i++) rc = shoal_dev_barrier_all_block(dev);
    if (threadIdx.x == 0) *st = rc;
}

/* Seconds for one kernel launched by launch(), synchronized. */
template <typename F> static double timed(F launch)
{
    double t0 = MPI_Wtime();
    launch();
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    return MPI_Wtime() - t0;
}

static void check(const int *d_st, const char *what)
{
    int h = 0;
    CUDA_OK(cudaMemcpy(&h, d_st, sizeof(h), cudaMemcpyDeviceToHost));
    if (h != SHOAL_SUCCESS) {
        fprintf(stderr, "shoal-bench-proxy: %s returned %d (%s) on PE %d\n", what, h, shoal_strerror(h), me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    shoal_device_t dev;
    int ndev = 0, quick = 0, provided = 0;
    const size_t MiB = (size_t)1 << 20;

    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1 || npes < 2 || provided != MPI_THREAD_MULTIPLE) {
        if (me == 0) printf("shoal-bench-proxy: needs GPUs, 2 ranks or more and MPI_THREAD_MULTIPLE; skipped\n");
        MPI_Finalize();
        return 77;
    }
    if (quick) reps = 2;
    CUDA_OK(cudaSetDevice(me % ndev));
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = 96 * MiB;
    SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &sh));
    SH_OK(sh, shoal_device_get(sh, &dev));
    const char *tp = "?";
    SH_OK(sh, shoal_pe_transport(sh, 1, &tp));
    /* PE 0 and PE 1 must be out of each other's load/store reach (every PE decides alike). */
    int mine = me > 1 || (!shoal_device_reachable(sh, 1 - me) && dev.proxy.status == SHOAL_SUCCESS), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (me == 0)
            printf("shoal-bench-proxy: PE 1 is %s from PE 0's kernels (%s); run with SHOAL_NODE_SIZE=1 or "
                   "SHOAL_TRANSPORT_DISABLE=cuda_ipc; skipped\n",
                   shoal_device_reachable(sh, 1) ? "load/store reachable" : "out of reach, and there is no proxy",
                   shoal_strerror(dev.proxy.status));
        SH_OK(sh, shoal_finalize(sh));
        MPI_Finalize();
        return 77;
    }
    if (me == 0) printf("shoal-bench-proxy: %d PEs, PE 0 -> PE 1 over %s, through the device proxy\n", npes, tp);

    long long *w = (long long *)shoal_calloc(sh, 16, sizeof(long long));
    const size_t big = 64 * MiB;
    char *dst = (char *)shoal_malloc(sh, big), *src = NULL;
    int *d_st = NULL;
    if (!w || !dst) SH_OK(sh, -1);
    CUDA_OK(cudaMalloc(&src, big));
    CUDA_OK(cudaMalloc(&d_st, sizeof(int)));
    CUDA_OK(cudaMemset(src, 0x5a, big));
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));

    if (me == 0) {
        int iters = quick ? 500 : 5000, piters = quick ? 5000 : 50000, miters = quick ? 20 : 200;
        double ks = 1e9, hs = 1e9, t0;
        long long v = 0;

        for (int r = 0; r < reps; r++) {
            ks = best(ks, timed([&] { g_kernel<<<1, 1>>>(dev, w, iters, d_st); }) / iters);
            t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) SH_OK(sh, shoal_longlong_g(sh, &v, w, 1));
            hs = best(hs, (MPI_Wtime() - t0) / iters);
        }
        check(d_st, "shoal_dev_longlong_g");
        row("g 8 B, round trip", ks * 1e6, hs * 1e6, "us", "host shoal_longlong_g");

        ks = hs = 1e9;
        for (int r = 0; r < reps; r++) {
            ks = best(ks, timed([&] { fadd_kernel<<<1, 1>>>(dev, w + 8, iters, d_st); }) / iters);
            t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) SH_OK(sh, shoal_longlong_atomic_fetch_add(sh, w + 9, 1, 1, &v));
            hs = best(hs, (MPI_Wtime() - t0) / iters);
        }
        check(d_st, "shoal_dev_longlong_atomic_fetch_add");
        row("fetch_add 8 B, round trip", ks * 1e6, hs * 1e6, "us", "host fetch_add");

        ks = hs = 1e9;
        for (int r = 0; r < reps; r++) {
            ks = best(ks, timed([&] { p_kernel<<<1, 1>>>(dev, w, piters, d_st); }) / piters);
            t0 = MPI_Wtime();
            for (int i = 0; i < piters; i++) SH_OK(sh, shoal_longlong_p(sh, w + (i & 7), i, 1));
            SH_OK(sh, shoal_quiet(sh));
            hs = best(hs, (MPI_Wtime() - t0) / piters);
        }
        check(d_st, "shoal_dev_longlong_p");
        row("p 8 B, pipelined, then quiet", ks * 1e6, hs * 1e6, "us", "host shoal_longlong_p");

        /* Blocking puts of 1 MiB and 64 MiB, n of each per repetition. */
        const struct {
            size_t bytes;
            int n;
            const char *what;
        } rows[] = {{MiB, miters, "put 1 MiB, blocking"}, {big, quick ? 2 : 10, "put 64 MiB, blocking"}};
        for (const auto &p : rows) {
            ks = hs = 1e9;
            for (int r = 0; r < reps; r++) {
                ks = best(ks, timed([&] { put_kernel<<<1, 256>>>(dev, dst, src, p.bytes, p.n, d_st); }) / p.n);
                t0 = MPI_Wtime();
                for (int i = 0; i < p.n; i++) SH_OK(sh, shoal_put(sh, dst, src, p.bytes, 1));
                hs = best(hs, (MPI_Wtime() - t0) / p.n);
            }
            check(d_st, "shoal_dev_put_block");
            row(p.what, p.bytes / ks / 1e9, p.bytes / hs / 1e9, "GB/s", "host shoal_put");
        }
    }
    SH_OK(sh, shoal_barrier_all(sh));

    /* every PE: device barriers against the host's */
    {
        int iters = quick ? 200 : 2000;
        double ks = 1e9, hs = 1e9;
        for (int r = 0; r < reps; r++) {
            SH_OK(sh, shoal_barrier_all(sh));
            ks = best(ks, timed([&] { barrier_kernel<<<1, 32>>>(dev, iters, d_st); }) / iters);
            check(d_st, "shoal_dev_barrier_all_block");
            SH_OK(sh, shoal_barrier_all(sh));
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) SH_OK(sh, shoal_barrier_all(sh));
            hs = best(hs, (MPI_Wtime() - t0) / iters);
        }
        char what[64];
        snprintf(what, sizeof(what), "barrier, %d PEs", npes);
        if (me == 0) row(what, ks * 1e6, hs * 1e6, "us", "host shoal_barrier_all");
    }

    /* The puts and p's landed on PE 1. */
    SH_OK(sh, shoal_barrier_all(sh));
    if (me == 1) {
        unsigned char h[2];
        long long c[2];
        CUDA_OK(cudaMemcpy(h, dst + big - 2, 2, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(c, w + 8, sizeof(c), cudaMemcpyDeviceToHost));
        long long want = (long long)reps * (quick ? 500 : 5000);
        if (h[0] != 0x5a || h[1] != 0x5a || c[0] != want || c[1] != want) {
            fprintf(stderr, "shoal-bench-proxy: data check failed (byte %#x, counts %lld %lld, expected %lld)\n", h[0],
                    c[0], c[1], want);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    SH_OK(sh, shoal_barrier_all(sh));
    cudaFree(src);
    cudaFree(d_st);
    SH_OK(sh, shoal_free(sh, dst));
    SH_OK(sh, shoal_free(sh, w));
    SH_OK(sh, shoal_finalize(sh));
    MPI_Finalize();
    return 0;
}
