/* Point-to-point synchronization on GPU heaps, from the host and in stream
 * order (shoal_cuda.h), and host atomics mixed with kernel atomics:
 *
 * 1. A stream pipeline of 50 chunks from PE 0 to PE 1: PE 0's stream puts
 *    chunk i with shoal_put_signal_on_stream (SET), PE 1's stream waits with
 *    shoal_signal_wait_until_on_stream and then runs a kernel that checks
 *    the chunk's bytes; once per comparison the header lists: EQ, GE and GT
 *    (stream memory operations), NE, LT and LE (a one-thread kernel). The
 *    signal rises (EQ, NE, GT, GE) or falls (LT, LE) with the chunks; the
 *    waits only hold once chunk i is there. EQ runs in lockstep, PE 1
 *    acknowledging each chunk with shoal_signal_op_on_stream (SET) and PE
 *    0's stream waiting for that before the next, since a signal that ran
 *    ahead would never again equal the value waited for.
 * 2. shoal_signal_op_on_stream ADD from every PE to PE 0, and one
 *    put_signal_on_stream with ADD each; PE 0's stream waits (EQ) for the
 *    exact total, then a kernel finds every PE's data there.
 * 3. Host and kernel atomics on one word: each PE's kernel adds 1 with
 *    shoal_dev_atomic_add to PE 0's counter (where PE 0 is reachable from
 *    kernels) while its host thread adds with shoal_int64_atomic_add and
 *    shoal_int64_atomic_fetch_add; the total after shoal_barrier_all is
 *    exact and the host's fetched values rise.
 *
 * Where a PE shares its GPU with another without MPS, the kernel-path waits
 * of 1 (NE, LT, LE) are skipped, saying why: the one-thread wait kernel and
 * the peer's work would take turns by time slices. Hosts never block in a
 * plain cudaStreamSynchronize: they poll the stream and keep MPI's progress
 * going, and name what a stream still waits for after 120 s.
 *
 * 4. Typed waits on a stream (shoal_<T>_wait_until{,_all,_all_vector}_on_stream):
 *    the waiter's stream waits for words another PE stores afterwards,
 *    signed and unsigned 2-byte comparisons, an excluded element, a
 *    vector of values; the kernel behind the waits finds the values
 *    stored. Then argument errors, named.
 *
 * SHOAL_TEST_EXPECT_TRANSPORT: the transport towards the peer, where the
 * environment forces one (staged). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

#define CHUNKS 50
#define CHUNK_BYTES ((size_t)64 * 1024 + 24) /* not a multiple of 128: the copies' odd tails */
#define FALL_FROM 1000                       /* LT and LE: the signal starts here and falls */
#define DRAIN_S 60.0

static int me, npes;
static shoal_t sh;
static cudaStream_t st;

static const char *cmp_name(int cmp)
{
    static const char *const names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};
    return cmp >= 0 && cmp < 6 ? names[cmp] : "?";
}

static __host__ __device__ unsigned char chunk_byte(int cmp, unsigned chunk, size_t off)
{
    return (unsigned char)(off * 7u + chunk * 13u + (unsigned)cmp * 29u + 1u);
}

/* The signal PE 0 sets with chunk i, and the value PE 1 waits for. */
static bool falls(int cmp) { return cmp == SHOAL_CMP_LT || cmp == SHOAL_CMP_LE; }
static uint64_t sent_value(int cmp, unsigned i) { return falls(cmp) ? FALL_FROM - (i + 1) : i + 1; }
static uint64_t wait_value(int cmp, unsigned i)
{
    switch (cmp) {
    case SHOAL_CMP_GT: return i;             /* > i: i + 1 or later */
    case SHOAL_CMP_NE: return i;             /* the signal is at least i here, and rises */
    case SHOAL_CMP_LT: return FALL_FROM - i; /* < 1000 - i: 999 - i or lower */
    default: return sent_value(cmp, i);      /* EQ, GE, LE */
    }
}

__global__ void fill_chunks(unsigned char *p, int cmp)
{
    size_t n = CHUNKS * CHUNK_BYTES;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
        p[k] = chunk_byte(cmp, (unsigned)(k / CHUNK_BYTES), k % CHUNK_BYTES);
}

/* After chunk's wait: every byte of it is there. */
__global__ void check_chunk(const unsigned char *p, int cmp, unsigned chunk, dev_err_t *err, unsigned *checked)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < CHUNK_BYTES; k += (size_t)gridDim.x * blockDim.x)
        DCHECK_EQ_AT(err, chunk, p[k], chunk_byte(cmp, chunk, k));
    __syncthreads();
    if (threadIdx.x == 0) atomicAdd(checked, 1u);
}

/* Waits for the stream while keeping MPI's progress going (a peer's
 * operations over MPI may need it); after DRAIN_S seconds fails, naming
 * what: the value of the word the stream waits on, read on the side. */
static void drain(const char *what, const uint64_t *watched)
{
    double t0 = MPI_Wtime();
    for (;;) {
        cudaError_t e = cudaStreamQuery(st);
        int flag = 0;
        if (e == cudaSuccess) return;
        CHECK_MSG(e == cudaErrorNotReady, "%s: cudaStreamQuery: %s", what, cudaGetErrorString(e));
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (MPI_Wtime() - t0 > DRAIN_S) {
            uint64_t v = 0;
            if (watched != NULL) CUDA_OK(cudaMemcpy(&v, watched, sizeof(v), cudaMemcpyDeviceToHost));
            CHECK_MSG(0, "%s: the stream still waits after %.0f s (the word it waits on holds %llu)", what, DRAIN_S,
                      (unsigned long long)v);
        }
        struct timespec nap = {0, 20000};
        nanosleep(&nap, NULL);
    }
}

/* Whether some PE shares its GPU with another without MPS (collective). */
static bool any_shared_without_mps(void)
{
    int mine = 0, any = 0;
    for (int pe = 0; pe < npes; pe++) {
        int k = shoal_pe_gpu_shared(sh, pe);
        CHECK_MSG(k >= 0, "shoal_pe_gpu_shared(%d): %s", pe, shoal_last_error(sh));
        if (k == SHOAL_GPU_SHARED) mine = 1;
    }
    CHECK_EQ_INT(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), MPI_SUCCESS);
    return any != 0;
}

/* ------------------------------------------------------------ 1. pipeline */

static void pipeline(int cmp, unsigned char *data, uint64_t *sigs, unsigned char *src, dev_err_t *err,
                     unsigned *checked)
{
    uint64_t *sig = &sigs[0], *ack = &sigs[1];
    uint64_t init = falls(cmp) ? FALL_FROM : 0, zero = 0;
    bool lockstep = cmp == SHOAL_CMP_EQ;
    double t0;

    /* Fresh words and buffers before PE 0 starts. */
    if (me == 1) {
        CUDA_OK(cudaMemset(data, 0, CHUNKS * CHUNK_BYTES));
        CUDA_OK(cudaMemcpy(sig, &init, sizeof(init), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(err, 0, sizeof(*err)));
        CUDA_OK(cudaMemset(checked, 0, sizeof(*checked)));
    }
    if (me == 0) {
        CUDA_OK(cudaMemcpy(ack, &zero, sizeof(zero), cudaMemcpyHostToDevice));
        fill_chunks<<<128, 256>>>(src, cmp);
        CUDA_OK(cudaGetLastError());
    }
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));

    t0 = MPI_Wtime();
    if (me == 0) {
        for (unsigned i = 0; i < CHUNKS; i++) {
            if (lockstep) SH_OK(sh, shoal_signal_wait_until_on_stream(sh, ack, SHOAL_CMP_GE, i, st));
            SH_OK(sh, shoal_put_signal_on_stream(sh, data + i * CHUNK_BYTES, src + i * CHUNK_BYTES, CHUNK_BYTES, sig,
                                                 sent_value(cmp, i), SHOAL_SIGNAL_SET, 1, st));
        }
        drain("PE 0's puts", lockstep ? ack : NULL);
    } else if (me == 1) {
        for (unsigned i = 0; i < CHUNKS; i++) {
            SH_OK(sh, shoal_signal_wait_until_on_stream(sh, sig, cmp, wait_value(cmp, i), st));
            check_chunk<<<16, 256, 0, st>>>(data + i * CHUNK_BYTES, cmp, i, err, checked);
            CUDA_OK(cudaGetLastError());
            if (lockstep) SH_OK(sh, shoal_signal_op_on_stream(sh, ack, i + 1, SHOAL_SIGNAL_SET, 0, st));
        }
        drain("PE 1's waits and checks", sig);
    }
    double t = MPI_Wtime() - t0;

    if (me == 1) {
        unsigned n = 0;
        uint64_t last = 0;
        char what[64];
        snprintf(what, sizeof(what), "pipeline %s: chunk check", cmp_name(cmp));
        check_dev_err(err, what);
        CUDA_OK(cudaMemcpy(&n, checked, sizeof(n), cudaMemcpyDeviceToHost));
        CHECK_MSG(n == CHUNKS * 16u, "pipeline %s: %u check blocks ran, expected %u", cmp_name(cmp), n, CHUNKS * 16u);
        CUDA_OK(cudaMemcpy(&last, sig, sizeof(last), cudaMemcpyDeviceToHost));
        CHECK_MSG(last == sent_value(cmp, CHUNKS - 1), "pipeline %s: signal ends at %llu, expected %llu", cmp_name(cmp),
                  (unsigned long long)last, (unsigned long long)sent_value(cmp, CHUNKS - 1));
        /* And every byte, read back on the host. */
        unsigned char *h = (unsigned char *)malloc(CHUNKS * CHUNK_BYTES);
        CHECK(h != NULL);
        CUDA_OK(cudaMemcpy(h, data, CHUNKS * CHUNK_BYTES, cudaMemcpyDeviceToHost));
        for (size_t k = 0; k < CHUNKS * CHUNK_BYTES; k++) {
            unsigned c = (unsigned)(k / CHUNK_BYTES);
            CHECK_MSG(h[k] == chunk_byte(cmp, c, k % CHUNK_BYTES), "pipeline %s: chunk %u byte %zu is %u, expected %u",
                      cmp_name(cmp), c, k % CHUNK_BYTES, h[k], chunk_byte(cmp, c, k % CHUNK_BYTES));
        }
        free(h);
        check_note("pipeline %s: %d chunks of %zu B, each checked by a kernel after its wait (%.1f ms)", cmp_name(cmp),
                   CHUNKS, CHUNK_BYTES, t * 1e3);
    }
    SH_OK(sh, shoal_barrier_all(sh)); /* PE 1's last acknowledgement is complete */
    if (me == 0 && lockstep) {
        uint64_t a = 0;
        CUDA_OK(cudaMemcpy(&a, ack, sizeof(a), cudaMemcpyDeviceToHost));
        CHECK_MSG(a == CHUNKS, "pipeline EQ: PE 1's last acknowledgement %llu, expected %d", (unsigned long long)a,
                  CHUNKS);
    }
    SH_OK(sh, shoal_barrier_all(sh));
}

static void test_pipeline(bool shared_no_mps)
{
    static const int cmps[] = {SHOAL_CMP_EQ, SHOAL_CMP_GE, SHOAL_CMP_GT, SHOAL_CMP_NE, SHOAL_CMP_LT, SHOAL_CMP_LE};
    unsigned char *data = (unsigned char *)shoal_malloc(sh, CHUNKS * CHUNK_BYTES);
    uint64_t *sigs = (uint64_t *)shoal_calloc(sh, 2, sizeof(uint64_t));
    unsigned char *src = NULL;
    dev_err_t *err = NULL;
    unsigned *checked = NULL;

    CHECK_MSG(data != NULL && sigs != NULL, "shoal_malloc: %s", shoal_last_error(sh));
    CUDA_OK(cudaMalloc(&src, CHUNKS * CHUNK_BYTES));
    CUDA_OK(cudaMalloc(&err, sizeof(*err)));
    CUDA_OK(cudaMalloc(&checked, sizeof(*checked)));
    for (size_t c = 0; c < sizeof(cmps) / sizeof(cmps[0]); c++) {
        bool kernel_path = cmps[c] == SHOAL_CMP_NE || cmps[c] == SHOAL_CMP_LT || cmps[c] == SHOAL_CMP_LE;
        if (kernel_path && shared_no_mps) {
            if (me == 0)
                check_note("pipeline %s: skipped: PEs share a GPU without MPS, and its wait is a kernel that would "
                           "take turns with the peer's work by time slices (start MPS, see README)",
                           cmp_name(cmps[c]));
            continue;
        }
        pipeline(cmps[c], data, sigs, src, err, checked);
    }
    cudaFree(checked);
    cudaFree(err);
    cudaFree(src);
    SH_OK(sh, shoal_free(sh, sigs));
    SH_OK(sh, shoal_free(sh, data));
}

/* ------------------------------------------------------------ 2. signal ADD */

#define ADDS 100

static unsigned long long stamp(int pe) { return 0x5157000000000000ull + ((unsigned long long)pe << 8) + 0x2a; }

/* After the wait: the signal holds the total, and every PE's slot its stamp. */
__global__ void read_after_wait(const uint64_t *sig, const unsigned long long *slots, int n, unsigned long long *out)
{
    out[0] = *(const volatile uint64_t *)sig;
    for (int pe = 0; pe < n; pe++) out[1 + pe] = ((const volatile unsigned long long *)slots)[pe];
}

static void test_signal_add(void)
{
    uint64_t *sig = (uint64_t *)shoal_calloc(sh, 1, sizeof(uint64_t));
    unsigned long long *slots = (unsigned long long *)shoal_calloc(sh, (size_t)npes, sizeof(unsigned long long));
    unsigned long long *d_stamp = NULL, *d_out = NULL, my_stamp = stamp(me);
    uint64_t total = (uint64_t)ADDS * (uint64_t)npes * (uint64_t)(npes + 1) / 2 + (uint64_t)npes;
    double t0;

    CHECK_MSG(sig != NULL && slots != NULL, "shoal_calloc: %s", shoal_last_error(sh));
    CUDA_OK(cudaMalloc(&d_stamp, sizeof(*d_stamp)));
    CUDA_OK(cudaMalloc(&d_out, sizeof(*d_out) * (1 + (size_t)npes)));
    CUDA_OK(cudaMemcpy(d_stamp, &my_stamp, sizeof(my_stamp), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d_out, 0, sizeof(*d_out) * (1 + (size_t)npes)));
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));

    t0 = MPI_Wtime();
    if (me == 0) {
        /* PE 0's own adds go on a second stream, queued before the wait on
         * the first: a stream wait that only later work of this process
         * can satisfy may hold that work up where CUDA puts both streams
         * on one hardware queue (README, "Waits"). The peers' adds arrive
         * while the stream waits. */
        cudaStream_t st2;
        CUDA_OK(cudaStreamCreateWithFlags(&st2, cudaStreamNonBlocking));
        for (int j = 0; j < ADDS; j++)
            SH_OK(sh, shoal_signal_op_on_stream(sh, sig, (uint64_t)me + 1, SHOAL_SIGNAL_ADD, 0, st2));
        SH_OK(sh,
              shoal_put_signal_on_stream(sh, &slots[me], d_stamp, sizeof(*d_stamp), sig, 1, SHOAL_SIGNAL_ADD, 0, st2));
        SH_OK(sh, shoal_signal_wait_until_on_stream(sh, sig, SHOAL_CMP_EQ, total, st));
        read_after_wait<<<1, 1, 0, st>>>(sig, slots, npes, d_out);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaStreamSynchronize(st2));
        CUDA_OK(cudaStreamDestroy(st2));
        drain("PE 0's wait for the total of the adds", sig);
    } else {
        for (int j = 0; j < ADDS; j++)
            SH_OK(sh, shoal_signal_op_on_stream(sh, sig, (uint64_t)me + 1, SHOAL_SIGNAL_ADD, 0, st));
        SH_OK(sh,
              shoal_put_signal_on_stream(sh, &slots[me], d_stamp, sizeof(*d_stamp), sig, 1, SHOAL_SIGNAL_ADD, 0, st));
        drain("the adds to PE 0", NULL);
    }
    double t = MPI_Wtime() - t0;
    if (me == 0) {
        unsigned long long *h = (unsigned long long *)malloc(sizeof(*h) * (1 + (size_t)npes));
        CHECK(h != NULL);
        CUDA_OK(cudaMemcpy(h, d_out, sizeof(*h) * (1 + (size_t)npes), cudaMemcpyDeviceToHost));
        CHECK_MSG(h[0] == total, "signal ADD: the kernel after the wait saw %llu, expected %llu", h[0],
                  (unsigned long long)total);
        for (int pe = 0; pe < npes; pe++)
            CHECK_MSG(h[1 + pe] == stamp(pe), "signal ADD: PE %d's put_signal data %#llx, expected %#llx", pe,
                      h[1 + pe], stamp(pe));
        free(h);
        check_note("signal_op_on_stream ADD: %d adds + 1 put_signal from each of %d PEs, waited for on a stream: "
                   "exact (%.1f ms)",
                   ADDS, npes, t * 1e3);
    }
    SH_OK(sh, shoal_barrier_all(sh));
    cudaFree(d_out);
    cudaFree(d_stamp);
    SH_OK(sh, shoal_free(sh, slots));
    SH_OK(sh, shoal_free(sh, sig));
}

/* ------------------------------------------------------------ 3. mixed atomics */

#define MIX_BLOCKS 64
#define MIX_THREADS 128
#define MIX_ITERS 20
#define HOST_ADDS 500
#define HOST_VALUE 1000

__global__ void kernel_adds(shoal_device_t dev, int64_t *ctr, dev_err_t *err)
{
    for (int i = 0; i < MIX_ITERS; i++) DCHECK_EQ_AT(err, i, shoal_dev_atomic_add(dev, ctr, 1, 0), SHOAL_SUCCESS);
}

static void test_mixed_atomics(void)
{
    int64_t *ctr = (int64_t *)shoal_calloc(sh, 1, sizeof(int64_t));
    dev_err_t *err = NULL;
    shoal_device_t dev;
    int reach = shoal_device_reachable(sh, 0);
    long long mine = 0, all = 0;
    int64_t prev = -1;

    CHECK_MSG(ctr != NULL, "shoal_calloc: %s", shoal_last_error(sh));
    CHECK(reach == 0 || reach == 1);
    SH_OK(sh, shoal_device_get(sh, &dev));
    CUDA_OK(cudaMalloc(&err, sizeof(*err)));
    CUDA_OK(cudaMemset(err, 0, sizeof(*err)));
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));

    if (reach) {
        kernel_adds<<<MIX_BLOCKS, MIX_THREADS, 0, st>>>(dev, ctr, err);
        CUDA_OK(cudaGetLastError());
        mine += (long long)MIX_BLOCKS * MIX_THREADS * MIX_ITERS;
    }
    /* While the kernel runs: adds, and fetch_adds whose old values must
     * rise by at least this PE's own value each time. */
    for (int j = 0; j < HOST_ADDS; j++) {
        if (j % 2 == 0) {
            SH_OK(sh, shoal_int64_atomic_add(sh, ctr, HOST_VALUE, 0));
        } else {
            int64_t old = -1;
            SH_OK(sh, shoal_int64_atomic_fetch_add(sh, ctr, HOST_VALUE, 0, &old));
            CHECK_MSG(old >= 0 && (prev < 0 || old >= prev + HOST_VALUE),
                      "mixed atomics: fetch_add %d returned %lld after %lld", j, (long long)old, (long long)prev);
            prev = old;
        }
        mine += HOST_VALUE;
    }
    SH_OK(sh, shoal_quiet(sh));
    drain("the kernel's atomics", NULL);
    check_dev_err(err, "mixed atomics: shoal_dev_atomic_add");
    SH_OK(sh, shoal_barrier_all(sh));
    CHECK_EQ_INT(MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    if (me == 0) {
        int64_t got = -1;
        CUDA_OK(cudaMemcpy(&got, ctr, sizeof(got), cudaMemcpyDeviceToHost));
        CHECK_MSG(got == all, "mixed atomics: counter %lld, expected %lld", (long long)got, all);
    }
    check_note("mixed atomics: kernel adds %s, %d host adds of %d beside them; total exact",
               reach ? "on" : "off (PE 0 not reachable from kernels here)", HOST_ADDS, HOST_VALUE);
    SH_OK(sh, shoal_barrier_all(sh));
    cudaFree(err);
    SH_OK(sh, shoal_free(sh, ctr));
}

/* ------------------------------------------------------------ 4. typed waits on a stream */

/* What the waiter's stream finds once every wait passed. */
struct typed_seen {
    short s16;
    unsigned short u16;
    int32_t a32[4];
    uint64_t v64[3];
    int64_t e64;
    int32_t big_sum; /* of the 600-element vector wait's words */
};
#define BIG 600      /* more than one wait kernel's 256 elements */
#define BIG_SKIP 300 /* excluded by status, never stored */

__global__ void read_typed(const short *s16, const unsigned short *u16, const int32_t *a32, const uint64_t *v64,
                           const int64_t *e64, const int32_t *big, typed_seen *out)
{
    out->big_sum = 0;
    for (int i = 0; i < BIG; i++) out->big_sum += ((const volatile int32_t *)big)[i];
    out->s16 = *(const volatile short *)s16;
    out->u16 = *(const volatile unsigned short *)u16;
    for (int i = 0; i < 4; i++) out->a32[i] = ((const volatile int32_t *)a32)[i];
    for (int i = 0; i < 3; i++) out->v64[i] = ((const volatile uint64_t *)v64)[i];
    out->e64 = *(const volatile int64_t *)e64;
}

/* The writer's stores that the typed waits below wait for. */
static void typed_store(short *s16, unsigned short *u16, int32_t *a32, uint64_t *v64, int64_t *e64, int32_t *big,
                        const int32_t *want_a, const uint64_t *want_v, int32_t *big_v, int waiter)
{
    SH_OK(sh, shoal_short_p(sh, s16, -7, waiter));
    SH_OK(sh, shoal_ushort_p(sh, u16, 65001, waiter));
    SH_OK(sh, shoal_int32_put(sh, a32, want_a, 4, waiter));
    SH_OK(sh, shoal_uint64_put(sh, v64, want_v, 3, waiter));
    SH_OK(sh, shoal_int64_p(sh, e64, -3, waiter));
    big_v[BIG_SKIP] = 0;
    SH_OK(sh, shoal_int32_put(sh, big, big_v, BIG, waiter));
    big_v[BIG_SKIP] = BIG_SKIP + 1;
    SH_OK(sh, shoal_quiet(sh));
}

/* The waiter's stream waits (shoal_<T>_wait_until{,_all,_all_vector}_on_stream)
 * for words the writer stores afterwards: a signed 2-byte LT that only a
 * signed comparison passes, an unsigned 2-byte GT that only an unsigned
 * one passes, an int32 _all with one element excluded (it stays 0), a
 * uint64 _all_vector EQ, and an int64 EQ (a stream memory operation). On
 * the GPU path (every peer cuda_ipc or self) the calls return at once and
 * the stream is still waiting before the writer starts; elsewhere each
 * call waits on the host. Then argument errors, named. */
static void test_typed_waits(bool on_gpu)
{
    static const int status[4] = {0, 1, 0, 0};
    static const uint64_t want_v[3] = {5, 6, 7};
    static const int32_t want_a[4] = {10, 0, 11, 12};
    int waiter = npes > 1 ? 1 : 0, writer = 0;
    bool alone = waiter == writer;
    short *s16 = (short *)shoal_calloc(sh, 1, sizeof(short));
    unsigned short *u16 = (unsigned short *)shoal_calloc(sh, 1, sizeof(unsigned short));
    int32_t *a32 = (int32_t *)shoal_calloc(sh, 4, sizeof(int32_t));
    uint64_t *v64 = (uint64_t *)shoal_calloc(sh, 3, sizeof(uint64_t));
    int64_t *e64 = (int64_t *)shoal_calloc(sh, 1, sizeof(int64_t));
    int32_t *big = (int32_t *)shoal_calloc(sh, BIG, sizeof(int32_t)), big_v[BIG];
    typed_seen *d_seen = NULL;
    int token = 0;

    CHECK_MSG(s16 && u16 && a32 && v64 && e64 && big, "shoal_calloc: %s", shoal_last_error(sh));
    for (int i = 0; i < BIG; i++) big_v[i] = i + 1;
    static int big_status[BIG];
    big_status[BIG_SKIP] = 1; /* excluded, in the second kernel's chunk: its word stays 0 */
    CUDA_OK(cudaMalloc(&d_seen, sizeof(*d_seen)));
    CUDA_OK(cudaMemset(d_seen, 0xff, sizeof(*d_seen)));
    if (me == waiter) {
        short nine = 9; /* not < 5: the LT wait below holds until the store */
        CUDA_OK(cudaMemcpy(s16, &nine, sizeof(nine), cudaMemcpyHostToDevice));
    }
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));
    /* One PE: its own stores go first. A stream wait that only this
     * process's later work satisfies may hold that work up (README,
     * "Waits"). */
    if (alone) typed_store(s16, u16, a32, v64, e64, big, want_a, want_v, big_v, waiter);
    if (me == waiter) {
        uint64_t vec[3] = {5, 6, 7};
        SH_OK(sh, shoal_short_wait_until_on_stream(sh, s16, SHOAL_CMP_LT, 5, st));
        SH_OK(sh, shoal_ushort_wait_until_on_stream(sh, u16, SHOAL_CMP_GT, 100, st));
        SH_OK(sh, shoal_int32_wait_until_all_on_stream(sh, a32, 4, status, SHOAL_CMP_GE, 10, st));
        SH_OK(sh, shoal_uint64_wait_until_all_vector_on_stream(sh, v64, 3, NULL, SHOAL_CMP_EQ, vec, st));
        vec[0] = vec[1] = vec[2] = 99; /* read at the call: changing it now changes nothing */
        SH_OK(sh, shoal_int64_wait_until_on_stream(sh, e64, SHOAL_CMP_EQ, -3, st));
        SH_OK(sh, shoal_int32_wait_until_all_vector_on_stream(sh, big, BIG, big_status, SHOAL_CMP_EQ, big_v, st));
        read_typed<<<1, 1, 0, st>>>(s16, u16, a32, v64, e64, big, d_seen);
        CUDA_OK(cudaGetLastError());
        if (on_gpu && !alone) {
            struct timespec nap = {0, 100 * 1000 * 1000};
            nanosleep(&nap, NULL);
            cudaError_t q = cudaStreamQuery(st);
            CHECK_MSG(q == cudaErrorNotReady, "typed stream waits: the stream ran past the waits before any store (%s)",
                      cudaGetErrorString(q));
            CHECK_EQ_INT(MPI_Send(&token, 1, MPI_INT, writer, 77, MPI_COMM_WORLD), MPI_SUCCESS);
        }
    }
    if (me == writer && !alone) {
        if (on_gpu)
            CHECK_EQ_INT(MPI_Recv(&token, 1, MPI_INT, waiter, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
        typed_store(s16, u16, a32, v64, e64, big, want_a, want_v, big_v, waiter);
    }
    if (me == waiter) {
        typed_seen h;
        drain("the typed waits on a stream", NULL);
        CUDA_OK(cudaMemcpy(&h, d_seen, sizeof(h), cudaMemcpyDeviceToHost));
        CHECK_MSG(h.s16 == -7 && h.u16 == 65001, "typed stream waits: short %d, ushort %u after the waits", h.s16,
                  h.u16);
        for (int i = 0; i < 4; i++)
            CHECK_MSG(h.a32[i] == want_a[i], "typed stream waits: int32[%d] %d, expected %d", i, (int)h.a32[i],
                      (int)want_a[i]);
        for (int i = 0; i < 3; i++)
            CHECK_MSG(h.v64[i] == want_v[i], "typed stream waits: uint64[%d] %llu, expected %llu", i,
                      (unsigned long long)h.v64[i], (unsigned long long)want_v[i]);
        CHECK_MSG(h.e64 == -3, "typed stream waits: int64 %lld, expected -3", (long long)h.e64);
        CHECK_MSG(h.big_sum == BIG * (BIG + 1) / 2 - (BIG_SKIP + 1),
                  "typed stream waits: the %d-element vector sums to %d, expected %d", BIG, (int)h.big_sum,
                  BIG * (BIG + 1) / 2 - (BIG_SKIP + 1));
        check_note("typed stream waits (%s): short LT, ushort GT, int32 _all with an excluded element, uint64 "
                   "_all_vector EQ, int64 EQ, int32 _all_vector EQ of 600 with element 300 excluded: each passed once "
                   "PE %d stored%s, with the values stored",
                   on_gpu ? "on the GPU" : "on the host", writer, alone ? " (before the waits: one PE)" : "");
    }
    SH_OK(sh, shoal_barrier_all(sh));
    cudaFree(d_seen);
    {
        int local = 0, rc;
        rc = shoal_int_wait_until_on_stream(sh, &local, SHOAL_CMP_EQ, 1, st);
        CHECK_MSG(rc == SHOAL_ERR_OUT_OF_BOUNDS && strstr(shoal_last_error(sh), "shoal_int_wait_until_on_stream"),
                  "a wait on a stack variable: %s (%s)", shoal_strerror(rc), shoal_last_error(sh));
        rc = shoal_int64_wait_until_all_on_stream(sh, e64, 1, NULL, 42, 0, st);
        CHECK_MSG(rc == SHOAL_ERR_INVALID_ARG && strstr(shoal_last_error(sh), "unknown comparison 42"),
                  "comparison 42: %s (%s)", shoal_strerror(rc), shoal_last_error(sh));
        SH_OK(sh, shoal_uint64_wait_until_all_vector_on_stream(sh, v64, 0, NULL, SHOAL_CMP_EQ, NULL, st));
        check_note("typed stream waits: a stack variable and comparison 42 refused, naming the call; 0 elements: done");
    }
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, big));
    SH_OK(sh, shoal_free(sh, e64));
    SH_OK(sh, shoal_free(sh, v64));
    SH_OK(sh, shoal_free(sh, a32));
    SH_OK(sh, shoal_free(sh, u16));
    SH_OK(sh, shoal_free(sh, s16));
}

/* Whether every peer's transport joins streams (cuda_ipc or self). */
static bool all_peers_on_gpu(void)
{
    for (int pe = 0; pe < npes; pe++) {
        const char *n = NULL;
        SH_OK(sh, shoal_pe_transport(sh, pe, &n));
        if (strcmp(n, "cuda_ipc") != 0 && strcmp(n, "self") != 0) return false;
    }
    return true;
}

int main(int argc, char **argv)
{
    const char *name = "self";
    const char *expect_tp = getenv("SHOAL_TEST_EXPECT_TRANSPORT");

    gpu_test_start(&argc, &argv);
    sh = gpu_test_instance((size_t)64 << 20);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    CHECK_EQ_INT(shoal_heap_kind(sh), SHOAL_HEAP_GPU);
    if (npes > 1) {
        int peer = me == 0 ? 1 : 0;
        const char *ns = getenv("SHOAL_NODE_SIZE");
        int node_size = ns ? atoi(ns) : 0;
        bool other_node = node_size > 0 && me / node_size != peer / node_size;
        const char *want = other_node ? "mpi_rma" : expect_tp ? expect_tp : "cuda_ipc";
        SH_OK(sh, shoal_pe_transport(sh, peer, &name));
        CHECK_MSG(strcmp(name, want) == 0, "transport to PE %d is %s, expected %s", peer, name, want);
    }
    check_note("GPU %d, transport to the peer: %s", shoal_cuda_device(sh), name);
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    bool shared_no_mps = any_shared_without_mps();

    if (npes >= 2)
        test_pipeline(shared_no_mps);
    else
        check_note("pipeline: skipped (needs 2 PEs)");
    test_signal_add();
    test_mixed_atomics();
    test_typed_waits(all_peers_on_gpu());

    CUDA_OK(cudaStreamDestroy(st));
    SH_OK(sh, shoal_finalize(sh));
    if (me == 0) printf("test_gpu_sync: %d PEs passed\n", npes);
    MPI_Finalize();
    return 0;
}
