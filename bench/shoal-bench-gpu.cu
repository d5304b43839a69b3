/* shoal-bench-gpu: shoal's GPU heap against raw CUDA on the same buffers,
 * in the same run. The raw reference copies with cudaMemcpyAsync between
 * the same IPC-opened buffers shoal uses (shoal_ptr gives the peer's
 * mapping), and orders its stream barrier with raw stream memory operations
 * on flags in peer memory. PE 0 drives; every PE takes part in barriers.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-gpu [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"

#include "bench_gpu.h"

typedef CUresult (*write32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);
typedef CUresult (*wait32_fn)(CUstream, CUdeviceptr, cuuint32_t, unsigned int);

static int me, npes;
static int reps = 5;

static void row(const char *what, double shoal_v, double ref_v, const char *unit, const char *ref_name)
{
    if (me != 0) return;
    if (ref_v > 0)
        printf("%-40s shoal %9.2f %-5s  %-24s %9.2f %-5s  ratio %.3f\n", what, shoal_v, unit, ref_name, ref_v, unit,
               shoal_v / ref_v);
    else
        printf("%-40s shoal %9.2f %-5s\n", what, shoal_v, unit);
    fflush(stdout);
}

static double best(double a, double b) { return a < b ? a : b; }

/* Seconds per shoal_put_on_stream of n bytes to PE 1, iters in a row on
 * st, timed by events on st. */
static double put_stream_s(shoal_t sh, cudaStream_t st, cudaEvent_t e0, cudaEvent_t e1, void *dest, const void *src,
                           size_t n, int iters)
{
    float ms;
    CUDA_OK(cudaEventRecord(e0, st));
    for (int i = 0; i < iters; i++) SH_OK(sh, shoal_put_on_stream(sh, dest, src, n, 1, st));
    CUDA_OK(cudaEventRecord(e1, st));
    CUDA_OK(cudaEventSynchronize(e1));
    CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1e-3 / iters;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int ndev = 0, quick = 0;
    const size_t GiB = (size_t)1 << 30;
    cudaStream_t st;

    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1 || npes < 2) {
        if (me == 0) printf("shoal-bench-gpu: needs GPUs and at least 2 ranks; skipped\n");
        MPI_Finalize();
        return 77;
    }
    if (quick) reps = 2;
    /* The application picks its device and creates its context first. */
    CUDA_OK(cudaSetDevice(me % ndev));
    CUDA_OK(cudaFree(0));

    /* shoal_init with a 2 GiB heap (timed alone, then finalized). */
    {
        double t_init = 1e9;
        int growable = 0;
        for (int r = 0; r < 3; r++) {
            shoal_t tmp;
            shoal_config_init(&cfg);
            cfg.heap_kind = SHOAL_HEAP_GPU;
            cfg.heap_size = 2 * GiB;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &tmp));
            double t = MPI_Wtime() - t0, tmax;
            MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            t_init = best(t_init, tmax);
            shoal_heap_stats_t hs;
            SH_OK(tmp, shoal_heap_stats(tmp, &hs));
            growable = hs.growable;
            SH_OK(tmp, shoal_finalize(tmp));
        }
        /* A growing heap (the default) takes nothing at init; a fixed one its limit. */
        row(growable ? "shoal_init, 2 GiB GPU heap (growing)" : "shoal_init, 2 GiB GPU heap (fixed)", t_init * 1e3, 0,
            "ms", "");
    }

    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = 2 * GiB + ((size_t)64 << 20);
    SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &sh));
    const char *tp = "?";
    SH_OK(sh, shoal_pe_transport(sh, 1, &tp));
    if (me == 0) printf("shoal-bench-gpu: %d PEs, PE 0 -> PE 1 over %s, GPU %d\n", npes, tp, shoal_cuda_device(sh));

    char *dst = (char *)shoal_malloc(sh, GiB);
    char *flags = (char *)shoal_calloc(sh, 64, sizeof(uint32_t));
    if (!dst || !flags) SH_OK(sh, -1);
    char *src = NULL;
    CUDA_OK(cudaMalloc(&src, GiB));
    CUDA_OK(cudaMemset(src, 0x5a, GiB));
    char *peer = (char *)shoal_ptr(sh, dst, 1);
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    char *hbuf = NULL;
    CUDA_OK(cudaMallocHost(&hbuf, 64));
    memset(hbuf, 1, 64);

    if (me == 0 && peer != NULL) {
        /* Bandwidth on the stream: 1 GiB and 2 MiB (pipelined). */
        const size_t sizes[] = {GiB, (size_t)2 << 20};
        for (int k = 0; k < 2; k++) {
            size_t n = sizes[k];
            int iters = n >= GiB ? 10 : 500;
            double ts = 1e9, tr = 1e9;
            for (int r = 0; r < reps; r++) {
                float ms;
                CUDA_OK(cudaEventRecord(e0, st));
                for (int i = 0; i < iters; i++) CUDA_OK(cudaMemcpyAsync(peer, src, n, cudaMemcpyDeviceToDevice, st));
                CUDA_OK(cudaEventRecord(e1, st));
                CUDA_OK(cudaEventSynchronize(e1));
                CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
                tr = best(tr, ms * 1e-3 / iters);
                ts = best(ts, put_stream_s(sh, st, e0, e1, dst, src, n, iters));
            }
            char what[64];
            snprintf(what, sizeof(what), "put on stream, %s", n >= GiB ? "1 GiB" : "2 MiB");
            row(what, n / ts / 1e9, n / tr / 1e9, "GB/s", "raw cudaMemcpyAsync");
        }
        /* 8 B pipelined on the stream: host time per enqueued op. */
        {
            int iters = quick ? 2000 : 20000;
            double ts = 1e9, tr = 1e9;
            for (int r = 0; r < reps; r++) {
                double t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++) CUDA_OK(cudaMemcpyAsync(peer, hbuf, 8, cudaMemcpyDefault, st));
                CUDA_OK(cudaStreamSynchronize(st));
                tr = best(tr, (MPI_Wtime() - t0) / iters);
                t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++) SH_OK(sh, shoal_put_on_stream(sh, dst, hbuf, 8, 1, st));
                CUDA_OK(cudaStreamSynchronize(st));
                ts = best(ts, (MPI_Wtime() - t0) / iters);
            }
            row("put on stream, 8 B, pipelined", ts * 1e6, tr * 1e6, "us", "raw cudaMemcpyAsync");
            double tp = 1e9;
            for (int r = 0; r < reps; r++) {
                double t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++)
                    SH_OK(sh, shoal_uint64_p_on_stream(sh, (uint64_t *)dst, (uint64_t)i, 1, st));
                CUDA_OK(cudaStreamSynchronize(st));
                tp = best(tp, (MPI_Wtime() - t0) / iters);
            }
            row("p on stream (uint64), pipelined", tp * 1e6, tr * 1e6, "us", "raw cudaMemcpyAsync 8 B");
        }
        /* Blocking put and get of 8 B. */
        {
            int iters = quick ? 1000 : 10000;
            double ts = 1e9, tr = 1e9, tg = 1e9, trg = 1e9;
            for (int r = 0; r < reps; r++) {
                double t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++) {
                    CUDA_OK(cudaMemcpyAsync(peer, hbuf, 8, cudaMemcpyDefault, st));
                    CUDA_OK(cudaStreamSynchronize(st));
                }
                tr = best(tr, (MPI_Wtime() - t0) / iters);
                t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++) SH_OK(sh, shoal_put(sh, dst, hbuf, 8, 1));
                ts = best(ts, (MPI_Wtime() - t0) / iters);
                t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++) {
                    CUDA_OK(cudaMemcpyAsync(hbuf, peer, 8, cudaMemcpyDefault, st));
                    CUDA_OK(cudaStreamSynchronize(st));
                }
                trg = best(trg, (MPI_Wtime() - t0) / iters);
                t0 = MPI_Wtime();
                for (int i = 0; i < iters; i++) SH_OK(sh, shoal_get(sh, hbuf, dst, 8, 1));
                tg = best(tg, (MPI_Wtime() - t0) / iters);
            }
            row("blocking put (put + quiet), 8 B", ts * 1e6, tr * 1e6, "us", "raw memcpy + sync");
            row("blocking get, 8 B", tg * 1e6, trg * 1e6, "us", "raw memcpy + sync");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Host barrier against MPI_Barrier. */
    {
        int iters = quick ? 2000 : 20000;
        double ts = 1e9, tm = 1e9;
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) MPI_Barrier(MPI_COMM_WORLD);
            double t = (MPI_Wtime() - t0) / iters;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            tm = best(tm, t);
            SH_OK(sh, shoal_barrier_all(sh));
            t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) SH_OK(sh, shoal_barrier_all(sh));
            t = (MPI_Wtime() - t0) / iters;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            ts = best(ts, t);
        }
        row("barrier_all (host)", ts * 1e6, tm * 1e6, "us", "MPI_Barrier");
    }

    /* Stream barrier against raw stream memory operations on peer flags. */
    if (npes == 2 && peer != NULL) {
        write32_fn write32 = NULL;
        wait32_fn wait32 = NULL;
        enum cudaDriverEntryPointQueryResult q;
        CUDA_OK(
            cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", (void **)&write32, 12000, cudaEnableDefault, &q));
        CUDA_OK(
            cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void **)&wait32, 12000, cudaEnableDefault, &q));
        int other = 1 - me;
        uint32_t *peer_flag = (uint32_t *)shoal_ptr(sh, flags, other) + me;
        uint32_t *my_flag = (uint32_t *)flags + other;
        int iters = quick ? 1000 : 10000;
        double ts = 1e9, tr = 1e9;
        uint32_t gen = 0;
        for (int r = 0; r < reps; r++) {
            SH_OK(sh, shoal_barrier_all(sh));
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                gen++;
                if (write32(st, (CUdeviceptr)peer_flag, gen, 0) != CUDA_SUCCESS ||
                    wait32(st, (CUdeviceptr)my_flag, gen, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
                    MPI_Abort(MPI_COMM_WORLD, 2);
            }
            CUDA_OK(cudaStreamSynchronize(st));
            double t = (MPI_Wtime() - t0) / iters;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            tr = best(tr, t);
            SH_OK(sh, shoal_barrier_all(sh));
            t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
            CUDA_OK(cudaStreamSynchronize(st));
            t = (MPI_Wtime() - t0) / iters;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            ts = best(ts, t);
        }
        row("barrier_all_on_stream, 2 PEs", ts * 1e6, tr * 1e6, "us", "raw stream memops");
    }
    /* Registered GPU memory (shoal_register of the application's own
     * cudaMalloc buffer) against the heap, same sizes, same run: what the
     * translation of a registered range's offsets costs. */
    {
        const size_t RB = (size_t)64 << 20;
        char *reg = NULL;
        CUDA_OK(cudaMalloc(&reg, RB));
        SH_OK(sh, shoal_register(sh, reg, RB));
        SH_OK(sh, shoal_barrier_all(sh));
        if (me == 0) {
            const size_t n = (size_t)2 << 20;
            int iters = quick ? 100 : 500, small = quick ? 2000 : 20000;
            double th = 1e9, tg = 1e9, sh8 = 1e9, sg8 = 1e9, bh = 1e9, bg = 1e9;
            for (int r = 0; r < reps; r++) {
                th = best(th, put_stream_s(sh, st, e0, e1, dst, src, n, iters));
                tg = best(tg, put_stream_s(sh, st, e0, e1, reg, src, n, iters));
                double t0 = MPI_Wtime();
                for (int i = 0; i < small; i++) SH_OK(sh, shoal_put_on_stream(sh, dst, hbuf, 8, 1, st));
                CUDA_OK(cudaStreamSynchronize(st));
                sh8 = best(sh8, (MPI_Wtime() - t0) / small);
                t0 = MPI_Wtime();
                for (int i = 0; i < small; i++) SH_OK(sh, shoal_put_on_stream(sh, reg, hbuf, 8, 1, st));
                CUDA_OK(cudaStreamSynchronize(st));
                sg8 = best(sg8, (MPI_Wtime() - t0) / small);
                t0 = MPI_Wtime();
                for (int i = 0; i < small / 10; i++) SH_OK(sh, shoal_put(sh, dst, hbuf, 8, 1));
                bh = best(bh, (MPI_Wtime() - t0) / (small / 10));
                t0 = MPI_Wtime();
                for (int i = 0; i < small / 10; i++) SH_OK(sh, shoal_put(sh, reg, hbuf, 8, 1));
                bg = best(bg, (MPI_Wtime() - t0) / (small / 10));
            }
            row("registered: put on stream, 2 MiB", n / tg / 1e9, n / th / 1e9, "GB/s", "the same into the heap");
            row("registered: put on stream, 8 B, pipelined", sg8 * 1e6, sh8 * 1e6, "us", "the same into the heap");
            row("registered: blocking put, 8 B", bg * 1e6, bh * 1e6, "us", "the same into the heap");
        }
        SH_OK(sh, shoal_barrier_all(sh));
        if (me == 1) {
            unsigned char h[2];
            CUDA_OK(cudaMemcpy(h, reg + ((size_t)2 << 20) - 2, 2, cudaMemcpyDeviceToHost));
            if (h[0] != 0x5a || h[1] != 0x5a) {
                fprintf(stderr, "shoal-bench-gpu: registered data check failed (%x)\n", h[0]);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        SH_OK(sh, shoal_deregister(sh, reg));
        CUDA_OK(cudaFree(reg));
    }
    /* Check that the bandwidth loop moved the bytes. */
    SH_OK(sh, shoal_barrier_all(sh));
    if (me == 1) {
        unsigned char h[4];
        CUDA_OK(cudaMemcpy(h, dst + GiB - 4, 4, cudaMemcpyDeviceToHost));
        if (h[0] != 0x5a || h[3] != 0x5a) {
            fprintf(stderr, "shoal-bench-gpu: data check failed (%x)\n", h[0]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    SH_OK(sh, shoal_free(sh, flags));
    SH_OK(sh, shoal_free(sh, dst));
    SH_OK(sh, shoal_finalize(sh));
    cudaFree(src);
    cudaFreeHost(hbuf);
    MPI_Finalize();
    return 0;
}
