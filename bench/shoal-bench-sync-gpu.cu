/* shoal-bench-sync-gpu: shoal's point-to-point synchronization on GPU heaps
 * against raw CUDA on the same buffers, in the same run (and, built with
 * -DSHOAL_BENCH_NVSHMEM, against NVSHMEM: bench/nvshmem/build.sh).
 *
 *   fetch_add    host shoal_int64_atomic_fetch_add on PE 1's word
 *                vs a one-thread kernel doing atomicAdd_system on the same
 *                word through the pointer shoal_ptr gives (old value into
 *                pinned host memory) + cudaStreamSynchronize
 *                [vs nvshmem_longlong_atomic_fetch_add from the host]
 *   ping-pong    on a stream, PE 0 shoal_put_signal_on_stream(8 B or 4 KiB,
 *                SET round) to PE 1, whose stream waits with
 *                shoal_signal_wait_until_on_stream(GE round) and answers the
 *                same way; half the round trip, the whole chain enqueued and
 *                then synchronized
 *                vs cudaMemcpyAsync into the peer's buffer +
 *                cuStreamWriteValue64 into the peer's flag + cuStreamWaitValue64
 *                on mine (driver entry points through the runtime, as
 *                runtime/heap/gpu.c finds them: no -lcuda)
 *                [vs nvshmemx_putmem_signal_on_stream +
 *                nvshmemx_signal_wait_until_on_stream]
 *
 * PE 0 and PE 1 measure; other PEs only take part in the collectives. Best
 * of several batches; the ratio is shoal / raw. Checked: every fetch_add's
 * old value, and after every ping-pong batch the bytes each receiver holds
 * (a fresh pattern per batch) and its signal word.
 *
 * Where the peer is not mapped (SHOAL_TRANSPORT_DISABLE=cuda_ipc: staged;
 * SHOAL_NODE_SIZE=1: mpi_rma) the raw references cannot run and only
 * shoal's figures are printed. NVSHMEM wants one PE per GPU: where the PEs
 * share a GPU its figures are skipped with a note (for the two-GPU machine).
 *
 *   mpiexec -n 2 build/bench/shoal-bench-sync-gpu [--quick] [--iters N]
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"

#include "bench_gpu.h"

#ifdef SHOAL_BENCH_NVSHMEM
#include <nvshmem.h>
#include <nvshmemx.h>
#endif

typedef CUresult (*write64_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
typedef CUresult (*wait64_fn)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);

#define PP_MAX 4096 /* largest ping-pong message */

/* What one timed loop does. */
enum { IMPL_SHOAL, IMPL_RAW, IMPL_NVSHMEM, IMPL_COUNT };
static const char *const impl_name[IMPL_COUNT] = {"shoal", "raw CUDA", "NVSHMEM"};

/* The buffers of one implementation: a counter on PE 1, a signal word and
 * a data buffer on each PE (written by the other). */
typedef struct impl_bufs {
    int ok;                   /* this implementation runs here */
    long long *ctr;           /* symmetric counter (the word on PE 1 counts) */
    long long *peer_ctr;      /* raw only, PE 0: PE 1's counter, mapped */
    uint64_t *sig;            /* my signal word (the peer writes it) */
    uint64_t *peer_sig;       /* raw only: the peer's signal word, mapped */
    unsigned char *data;      /* my data buffer (the peer writes it) */
    unsigned char *peer_data; /* raw only: the peer's data buffer, mapped */
    long long ctr_next;       /* PE 0: the counter's value now */
    uint64_t round;           /* PE 0 and 1: the last ping-pong round */
} impl_bufs_t;

static int me, npes;
static shoal_t sh;
static cudaStream_t st;
static unsigned long long *h_old; /* pinned: the raw fetch_add's old value */
static unsigned char *src;        /* device: ping-pong source */
static write64_fn write64;
static wait64_fn wait64;
static impl_bufs_t impl[IMPL_COUNT];
static long iters = 2000;
static int batches = 5;
static double batch_s = 0.2;

static void fail(const char *what, const char *why)
{
    fprintf(stderr, "shoal-bench-sync-gpu: PE %d: %s: %s\n", me, what, why);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

__global__ void raw_fadd_kernel(unsigned long long *word, unsigned long long *old)
{
    *old = atomicAdd_system(word, 1ull);
}

/* count blocking fetch_adds from PE 0 on PE 1's counter; seconds per op
 * on PE 0 (0 elsewhere). */
static double run_fadd(int k, long count)
{
    impl_bufs_t *b = &impl[k];
    double t0;

    if (me != 0) return 0;
    t0 = MPI_Wtime();
    for (long i = 0; i < count; i++) {
        long long old = -1;
        switch (k) {
        case IMPL_SHOAL: SH_OK(sh, shoal_int64_atomic_fetch_add(sh, (int64_t *)b->ctr, 1, 1, (int64_t *)&old)); break;
        case IMPL_RAW:
            raw_fadd_kernel<<<1, 1, 0, st>>>((unsigned long long *)b->peer_ctr, h_old);
            CUDA_OK(cudaStreamSynchronize(st));
            old = (long long)*(volatile unsigned long long *)h_old;
            break;
#ifdef SHOAL_BENCH_NVSHMEM
        case IMPL_NVSHMEM: old = nvshmem_longlong_atomic_fetch_add(b->ctr, 1, 1); break;
#endif
        }
        if (old != b->ctr_next++) {
            char why[96];
            snprintf(why, sizeof(why), "old value %lld, expected %lld", old, b->ctr_next - 1);
            fail(impl_name[k], why);
        }
    }
    return (MPI_Wtime() - t0) / (double)count;
}

/* Enqueue one ping-pong message of n bytes to the peer with round's signal. */
static void pp_send(int k, size_t n, uint64_t round)
{
    impl_bufs_t *b = &impl[k];
    int peer = 1 - me;

    switch (k) {
    case IMPL_SHOAL:
        SH_OK(sh, shoal_put_signal_on_stream(sh, b->data, src, n, b->sig, round, SHOAL_SIGNAL_SET, peer, st));
        break;
    case IMPL_RAW:
        CUDA_OK(cudaMemcpyAsync(b->peer_data, src, n, cudaMemcpyDeviceToDevice, st));
        /* flags 0: the write waits for the stream's earlier work and is
         * preceded by a system-wide memory barrier */
        if (write64((CUstream)st, (CUdeviceptr)b->peer_sig, round, 0) != CUDA_SUCCESS)
            fail("cuStreamWriteValue64", "failed");
        break;
#ifdef SHOAL_BENCH_NVSHMEM
    case IMPL_NVSHMEM:
        nvshmemx_putmem_signal_on_stream(b->data, src, n, b->sig, round, NVSHMEM_SIGNAL_SET, peer, st);
        break;
#endif
    }
}

/* Enqueue a wait until my signal word >= round. */
static void pp_wait(int k, uint64_t round)
{
    impl_bufs_t *b = &impl[k];

    switch (k) {
    case IMPL_SHOAL: SH_OK(sh, shoal_signal_wait_until_on_stream(sh, b->sig, SHOAL_CMP_GE, round, st)); break;
    case IMPL_RAW:
        if (wait64((CUstream)st, (CUdeviceptr)b->sig, round, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
            fail("cuStreamWaitValue64", "failed");
        break;
#ifdef SHOAL_BENCH_NVSHMEM
    case IMPL_NVSHMEM: nvshmemx_signal_wait_until_on_stream(b->sig, NVSHMEM_CMP_GE, round, st); break;
#endif
    }
}

static unsigned char pattern(int pe, unsigned batch) { return (unsigned char)(batch * 37 + pe * 101 + 1); }

/* count rounds of the stream ping-pong of n bytes between PE 0 and PE 1,
 * then each checks what it received and its signal; seconds per half round
 * trip on PE 0. Every PE calls it (the meetings are MPI_COMM_WORLD's). */
static double run_pp(int k, size_t n, long count, unsigned batch)
{
    impl_bufs_t *b = &impl[k];
    double t = 0;

    if (me <= 1) {
        CUDA_OK(cudaMemsetAsync(src, pattern(me, batch), n, st));
        CUDA_OK(cudaStreamSynchronize(st));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me <= 1) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < count; i++) {
            uint64_t round = ++b->round;
            if (me == 1) pp_wait(k, round);
            pp_send(k, n, round);
            if (me == 0) pp_wait(k, round);
        }
        CUDA_OK(cudaStreamSynchronize(st));
        t = (MPI_Wtime() - t0) / (2.0 * (double)count);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me <= 1) {
        unsigned char h[PP_MAX];
        uint64_t sig = 0;
        unsigned char want = pattern(1 - me, batch);
        CUDA_OK(cudaMemcpy(h, b->data, n, cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(&sig, b->sig, sizeof(sig), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++)
            if (h[i] != want) {
                char why[128];
                snprintf(why, sizeof(why), "ping-pong of %zu B: byte %zu is %u, expected %u", n, i, h[i], want);
                fail(impl_name[k], why);
            }
        if (sig != b->round) {
            char why[96];
            snprintf(why, sizeof(why), "signal word %llu after round %llu", (unsigned long long)sig,
                     (unsigned long long)b->round);
            fail(impl_name[k], why);
        }
    }
    return t;
}

/* One figure: impl k's seconds per op for op (0: fetch_add, else the
 * ping-pong of op bytes), as PE 0 measured it, known to every PE. */
static double run(int k, int op, long count, unsigned batch)
{
    double t = op == 0 ? run_fadd(k, count) : run_pp(k, (size_t)op, count, batch);
    MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return t;
}

static void row(const char *what, const double *best)
{
    if (me != 0) return;
    printf("%-34s", what);
    for (int k = 0; k < IMPL_COUNT; k++)
        if (impl[k].ok)
            printf(" %10.3f", best[k] * 1e6);
        else
            printf(" %10s", "-");
    if (impl[IMPL_RAW].ok)
        printf(" %12.3f", best[IMPL_SHOAL] / best[IMPL_RAW]);
    else
        printf(" %12s", "-");
    if (impl[IMPL_NVSHMEM].ok)
        printf(" %14.3f", best[IMPL_SHOAL] / best[IMPL_NVSHMEM]);
    else
        printf(" %14s", "-");
    printf("\n");
    fflush(stdout);
}

#ifdef SHOAL_BENCH_NVSHMEM
/* NVSHMEM beside shoal, as ../shared/GPU-MACHINE.md says: the unique-id
 * bootstrap over MPI. Skipped, with a note, where two PEs share a GPU
 * (NVSHMEM wants one PE per GPU) or where init fails. */
static void nvshmem_setup(void)
{
    int shared = 0, any = 0, rc;
    nvshmemx_uniqueid_t id;
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;

    for (int pe = 0; pe < npes; pe++)
        if (shoal_pe_gpu_shared(sh, pe) != SHOAL_GPU_SEPARATE) shared = 1;
    MPI_Allreduce(&shared, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        if (me == 0)
            printf("NVSHMEM: skipped: PEs share a GPU here, and NVSHMEM wants one PE per GPU; its figures are for "
                   "the machine with a GPU per PE (nvidia-h200-x2)\n");
        return;
    }
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
    impl_bufs_t *b = &impl[IMPL_NVSHMEM];
    b->ctr = (long long *)nvshmem_calloc(1, sizeof(long long));
    b->sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    b->data = (unsigned char *)nvshmem_malloc(PP_MAX);
    if (b->ctr == NULL || b->sig == NULL || b->data == NULL) fail("nvshmem_malloc", "NULL");
    nvshmem_barrier_all();
    b->ok = 1;
    if (me == 0) printf("NVSHMEM %d.%d beside shoal\n", NVSHMEM_MAJOR_VERSION, NVSHMEM_MINOR_VERSION);
}

static void nvshmem_teardown(void)
{
    impl_bufs_t *b = &impl[IMPL_NVSHMEM];
    if (!b->ok) return;
    nvshmem_barrier_all();
    nvshmem_free(b->data);
    nvshmem_free(b->sig);
    nvshmem_free(b->ctr);
    nvshmem_finalize();
}
#endif

static int parse_args(int argc, char **argv)
{
    int quick = 0;
    long n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "--iters") == 0 && i + 1 < argc) {
            char *end = NULL;
            errno = 0;
            n = strtol(argv[++i], &end, 10);
            if (errno != 0 || *end != '\0' || n < 1 || n > LONG_MAX / 64) {
                if (me == 0) fprintf(stderr, "shoal-bench-sync-gpu: --iters wants a count from 1\n");
                return 1;
            }
        } else {
            if (me == 0)
                fprintf(stderr,
                        "shoal-bench-sync-gpu: unknown argument '%s'\n"
                        "usage: mpiexec -n 2 shoal-bench-sync-gpu [--quick] [--iters N]\n",
                        argv[i]);
            return 1;
        }
    }
    if (quick) {
        iters = 300;
        batches = 3;
        batch_s = 0.05;
    }
    if (n > 0) iters = n;
    return 0;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    int ndev = 0;
    const char *tp = "?";

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (parse_args(argc, argv) != 0) {
        MPI_Finalize();
        return 1;
    }
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1 || npes < 2) {
        if (me == 0) printf("shoal-bench-sync-gpu: needs GPUs and at least 2 ranks; skipped\n");
        MPI_Finalize();
        return 77;
    }
    /* The application picks its device and creates its context first. */
    CUDA_OK(cudaSetDevice(me % ndev));
    CUDA_OK(cudaFree(0));

    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = (size_t)64 << 20;
    SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &sh));
    SH_OK(sh, shoal_pe_transport(sh, 1, &tp));
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CUDA_OK(cudaMallocHost(&h_old, sizeof(*h_old)));
    CUDA_OK(cudaMalloc(&src, PP_MAX));

    /* shoal's buffers, and the raw reference's, in shoal's heap. */
    for (int k = IMPL_SHOAL; k <= IMPL_RAW; k++) {
        impl_bufs_t *b = &impl[k];
        b->ctr = (long long *)shoal_calloc(sh, 1, sizeof(long long));
        b->sig = (uint64_t *)shoal_calloc(sh, 1, sizeof(uint64_t));
        b->data = (unsigned char *)shoal_calloc(sh, 1, PP_MAX);
        if (b->ctr == NULL || b->sig == NULL || b->data == NULL) SH_OK(sh, SHOAL_ERR_NO_MEMORY);
    }
    impl[IMPL_SHOAL].ok = 1;
    {
        /* raw CUDA needs PE 1's counter mapped on PE 0, and each peer's
         * flag and buffer mapped on PE 0 and 1 */
        impl_bufs_t *r = &impl[IMPL_RAW];
        int mapped = 1, all = 0;
        if (me <= 1) {
            r->peer_ctr = (long long *)shoal_ptr(sh, r->ctr, 1);
            r->peer_sig = (uint64_t *)shoal_ptr(sh, r->sig, 1 - me);
            r->peer_data = (unsigned char *)shoal_ptr(sh, r->data, 1 - me);
            mapped = r->peer_sig != NULL && r->peer_data != NULL && (me != 0 || r->peer_ctr != NULL);
        }
        MPI_Allreduce(&mapped, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (all) {
            enum cudaDriverEntryPointQueryResult q;
            CUDA_OK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", (void **)&write64, 12000,
                                                     cudaEnableDefault, &q));
            CUDA_OK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue64", (void **)&wait64, 12000, cudaEnableDefault,
                                                     &q));
            r->ok = write64 != NULL && wait64 != NULL;
        }
    }
    SH_OK(sh, shoal_barrier_all(sh));

    if (me == 0) {
        int shared = shoal_pe_gpu_shared(sh, 1);
        printf("shoal-bench-sync-gpu: %d PEs, PE 0 -> PE 1 over %s, GPU %d of %d; PE 1's GPU: %s\n", npes, tp,
               shoal_cuda_device(sh), ndev,
               shared == SHOAL_GPU_SEPARATE     ? "another"
               : shared == SHOAL_GPU_SHARED_MPS ? "the same, under MPS"
                                                : "the same, no MPS (stream waits may take time slices)");
        if (!impl[IMPL_RAW].ok) printf("raw CUDA: not run: PE 1's heap is not mapped here (transport %s)\n", tp);
        printf("best of %d batches of up to %ld ops (fewer where a batch would pass %.2f s)\n", batches, iters,
               batch_s);
    }
#ifdef SHOAL_BENCH_NVSHMEM
    nvshmem_setup();
#else
    if (me == 0) printf("NVSHMEM: not built in (bench/nvshmem/build.sh builds the variant that compares)\n");
#endif

    /* Figures: 0 is fetch_add, else the ping-pong's bytes. Pass 0 warms up
     * and fixes each op's count (the same on every PE); passes 1.. time a
     * batch of each implementation, taking turns at going first. */
    const int ops[] = {0, 8, PP_MAX};
    const int nops = (int)(sizeof(ops) / sizeof(ops[0]));
    double best[3][IMPL_COUNT];
    long count[3][IMPL_COUNT];
    unsigned batch = 0;
    for (int pass = 0; pass <= batches; pass++) {
        for (int f = 0; f < nops; f++) {
            for (int j = 0; j < IMPL_COUNT; j++) {
                int k = (j + pass) % IMPL_COUNT;
                if (!impl[k].ok) continue;
                if (pass == 0) {
                    long warm = iters / 20 < 1 ? 1 : iters / 20 > 100 ? 100 : iters / 20;
                    double per_op = run(k, ops[f], warm, ++batch);
                    count[f][k] = iters;
                    if (per_op * (double)iters > batch_s) count[f][k] = (long)(batch_s / per_op);
                    if (count[f][k] < 1) count[f][k] = 1;
                    best[f][k] = -1;
                    continue;
                }
                double t = run(k, ops[f], count[f][k], ++batch);
                if (best[f][k] < 0 || t < best[f][k]) best[f][k] = t;
            }
        }
    }

    if (me == 0) {
        printf("\n%-34s %10s %10s %10s %12s %14s\n", "us per op", "shoal", "raw CUDA", "NVSHMEM", "shoal/raw",
               "shoal/NVSHMEM");
        row("host fetch_add on PE 1's word", best[0]);
        row("stream ping-pong 8 B, half RTT", best[1]);
        row("stream ping-pong 4 KiB, half RTT", best[2]);
        printf("(raw fetch_add: a one-thread atomicAdd_system kernel + cudaStreamSynchronize; raw ping-pong: "
               "cudaMemcpyAsync + cuStreamWriteValue64 + cuStreamWaitValue64)\n");
        printf("data checked: every fetch_add's old value, each ping-pong batch's bytes and signal: ok\n");
        fflush(stdout);
    }

#ifdef SHOAL_BENCH_NVSHMEM
    nvshmem_teardown();
#endif
    SH_OK(sh, shoal_barrier_all(sh));
    for (int k = IMPL_RAW; k >= IMPL_SHOAL; k--) {
        impl_bufs_t *b = &impl[k];
        SH_OK(sh, shoal_free(sh, b->data));
        SH_OK(sh, shoal_free(sh, b->sig));
        SH_OK(sh, shoal_free(sh, b->ctr));
    }
    SH_OK(sh, shoal_finalize(sh));
    cudaFree(src);
    cudaFreeHost(h_old);
    MPI_Finalize();
    return 0;
}
