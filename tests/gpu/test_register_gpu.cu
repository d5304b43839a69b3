/* Registered GPU memory (api/shoal.h shoal_register, README "Registered
 * memory"): ranges of the application's own cudaMalloc allocations made
 * symmetric on an instance with a GPU heap, then reached by the RMA,
 * atomic, signal, wait and stream calls like the heap, through whichever
 * transport the pair has (self, cuda_ipc, staged, staged_mpi).
 *
 * Every PE allocates its own buffer (of a size that differs between PEs,
 * so the bases differ) and registers a 300001-byte range starting at an
 * odd offset of it (1 + 24 * PE).
 *
 * 1. Put to the right neighbour from host memory and from GPU memory
 *    (blocking, then _nbi + quiet), odd sizes at odd offsets; every PE
 *    reads its range back and finds the left neighbour's bytes exactly,
 *    and the bytes around them untouched. Gets of the right neighbour's
 *    range into host and GPU memory, blocking and _nbi.
 * 2. iput (a column of a registered grid) and put_2d/get_2d (a block).
 * 3. fetch_add from every PE on PE 0's registered counter, K times each:
 *    the old values handed out are exactly 0 .. n*K-1; compare_swap.
 * 4. put_signal into the right neighbour's range with the signal word in
 *    it too; the receiver waits with shoal_signal_wait_until and finds
 *    every byte. The same on streams (put_signal_on_stream,
 *    signal_wait_until_on_stream), with a stream put before it. p and g,
 *    int wait_until on words set by p and atomic_set, iget, get_on_stream
 *    and signal_op_on_stream, signal_fetch.
 * 5. shoal_ptr: this PE's own base; a peer's copy exactly where the pair's
 *    transport maps it (cuda_ipc), NULL otherwise; loads through it.
 * 6. Two ranges in one allocation (one IPC mapping, counted): both work
 *    (the second used at once, before any barrier: over staged the peer's
 *    proxy must serve it even if the peer has not left shoal_register),
 *    and after one is deregistered the other still does.
 * 7. Mistakes: past a range's end (SHOAL_ERR_OUT_OF_BOUNDS), a range that
 *    runs past its allocation (SHOAL_ERR_INVALID_ARG), managed memory and
 *    GPU memory on a host-heap instance (SHOAL_ERR_UNSUPPORTED), a
 *    collective on a registered GPU range (SHOAL_ERR_UNSUPPORTED), host
 *    memory on PE 0 and GPU memory elsewhere (SHOAL_ERR_NOT_SYMMETRIC,
 *    naming them), an inner address to deregister, under SHOAL_CHECK=full
 *    a get of bytes put with no quiet since (SHOAL_ERR_ORDER), every call
 *    after deregistration (SHOAL_ERR_OUT_OF_BOUNDS).
 * 8. A range still registered at shoal_finalize.
 *
 * SHOAL_TEST_EXPECT_TRANSPORT: the transport towards the right neighbour
 * where the environment forces one. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "common/gpu_check.h"

#define RANGE ((size_t)300001)
#define K 200

static shoal_t sh;
static int me, npes, right, left;
static unsigned char *alloc_; /* this PE's cudaMalloc'ed buffer */
static unsigned char *range_; /* the registered range inside it */
static unsigned char host[RANGE], want[RANGE];

static unsigned char pat(int pe, size_t i, unsigned salt)
{
    return (unsigned char)(i * 31u + (unsigned)pe * 7u + salt);
}

static void read_range(void *dst, const void *src, size_t n) { CUDA_OK(cudaMemcpy(dst, src, n, cudaMemcpyDefault)); }

static void barrier(void) { SH_OK(sh, shoal_barrier_all(sh)); }

static void test_rma(void)
{
    unsigned char *dev_src, *dev_dst;
    const size_t off = 1013, n = 123457;

    CUDA_OK(cudaMalloc((void **)&dev_src, RANGE));
    CUDA_OK(cudaMalloc((void **)&dev_dst, RANGE));
    CUDA_OK(cudaMemset(range_, 0xee, RANGE));
    barrier();
    /* Blocking from host memory, at an odd offset. */
    for (size_t i = 0; i < n; i++) host[i] = pat(me, i, 1);
    SH_OK(sh, shoal_put(sh, range_ + off, host, n, right));
    barrier();
    read_range(host, range_, RANGE);
    memset(want, 0xee, RANGE);
    for (size_t i = 0; i < n; i++) want[off + i] = pat(left, i, 1);
    CHECK_MEM_EQ(host, want, RANGE);
    /* _nbi from GPU memory, the whole range, completed by a quiet. */
    for (size_t i = 0; i < RANGE; i++) host[i] = pat(me, i, 2);
    CUDA_OK(cudaMemcpy(dev_src, host, RANGE, cudaMemcpyHostToDevice));
    SH_OK(sh, shoal_put_nbi(sh, range_, dev_src, RANGE, right));
    SH_OK(sh, shoal_quiet(sh));
    barrier();
    read_range(host, range_, RANGE);
    for (size_t i = 0; i < RANGE; i++) want[i] = pat(left, i, 2);
    CHECK_MEM_EQ(host, want, RANGE);
    /* Gets of the right neighbour's range, into host and GPU memory. */
    memset(host, 0, RANGE);
    SH_OK(sh, shoal_get(sh, host, range_ + 7, RANGE - 7, right));
    for (size_t i = 0; i < RANGE - 7; i++) want[i] = pat(me, i + 7, 2); /* right holds what this PE put */
    CHECK_MEM_EQ(host, want, RANGE - 7);
    CUDA_OK(cudaMemset(dev_dst, 0, RANGE));
    SH_OK(sh, shoal_get_nbi(sh, dev_dst, range_ + 1, 4099, right));
    SH_OK(sh, shoal_quiet(sh));
    read_range(host, dev_dst, 4099);
    for (size_t i = 0; i < 4099; i++) want[i] = pat(me, i + 1, 2);
    CHECK_MEM_EQ(host, want, 4099);
    barrier();
    CUDA_OK(cudaFree(dev_src));
    CUDA_OK(cudaFree(dev_dst));
}

static void test_strided(void)
{
    /* A 16 x 16 int32 grid at the range's 8-aligned offset 7. */
    int32_t *grid = (int32_t *)(void *)(range_ + 7), col[16], blk[4][5], got[16][16];

    CUDA_OK(cudaMemset(range_, 0, RANGE));
    barrier();
    for (int i = 0; i < 16; i++) col[i] = me * 100 + i;
    /* Column me % 16 of the right neighbour's grid. */
    SH_OK(sh, shoal_int32_iput(sh, grid + me % 16, col, 16, 1, 16, right));
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 5; c++) blk[r][c] = 1000 + me * 10 + r * 5 + c;
    /* A 4 x 5 block at row 10, column 8 of the right neighbour's grid. */
    SH_OK(sh,
          shoal_put_2d(sh, grid + 10 * 16 + 8, 16 * sizeof(int32_t), blk, sizeof(blk[0]), sizeof(blk[0]), 4, right));
    barrier();
    read_range(got, grid, sizeof(got));
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) {
            int32_t w = 0;
            if (r >= 10 && r < 14 && c >= 8 && c < 13)
                w = 1000 + left * 10 + (r - 10) * 5 + (c - 8);
            else if (c == left % 16)
                w = left * 100 + r;
            CHECK_MSG(got[r][c] == w, "grid[%d][%d] = %d, want %d", r, c, (int)got[r][c], (int)w);
        }
    /* get_2d of the right neighbour's block back. */
    memset(blk, 0, sizeof(blk));
    SH_OK(sh,
          shoal_get_2d(sh, blk, sizeof(blk[0]), grid + 10 * 16 + 8, 16 * sizeof(int32_t), sizeof(blk[0]), 4, right));
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 5; c++) CHECK_EQ_INT(blk[r][c], 1000 + me * 10 + r * 5 + c);
    barrier();
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

static void test_atomics(void)
{
    uint64_t *counter = (uint64_t *)(void *)(range_ + 15); /* 8-aligned: (1 + 24 * me) + 15 */
    uint64_t olds[K], *all = NULL, v;
    int n = npes * K;

    CUDA_OK(cudaMemset(range_, 0, 64));
    barrier();
    for (int i = 0; i < K; i++) SH_OK(sh, shoal_uint64_atomic_fetch_add(sh, counter, 1, 0, &olds[i]));
    barrier();
    if (me == 0) {
        read_range(&v, counter, 8);
        CHECK_MSG(v == (uint64_t)n, "PE 0's registered counter is %llu, want %d", (unsigned long long)v, n);
        all = (uint64_t *)malloc((size_t)n * sizeof(*all));
        CHECK(all != NULL);
    }
    MPI_Gather(olds, K, MPI_UINT64_T, all, K, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (me == 0) {
        qsort(all, (size_t)n, sizeof(*all), cmp_u64);
        for (int i = 0; i < n; i++)
            CHECK_MSG(all[i] == (uint64_t)i, "old value %d is %llu", i, (unsigned long long)all[i]);
        free(all);
    }
    /* compare_swap increments: each PE adds 10 to its right neighbour. */
    for (int i = 0; i < 10; i++) {
        uint64_t seen = 0, old;
        for (;;) {
            SH_OK(sh, shoal_uint64_atomic_compare_swap(sh, counter, seen, seen + 1, right, &old));
            if (old == seen) break;
            seen = old;
        }
    }
    barrier();
    read_range(&v, counter, 8);
    CHECK_MSG(v == (me == 0 ? (uint64_t)n : 0) + 10, "counter %llu after compare_swap", (unsigned long long)v);
    barrier();
}

static void test_signals(cudaStream_t st)
{
    uint64_t *sig = (uint64_t *)(void *)(range_ + 23); /* 8-aligned */
    unsigned char *data = range_ + 4096;
    const size_t n = 65541;
    unsigned char *dev_src;

    CUDA_OK(cudaMemset(range_, 0, RANGE));
    barrier();
    for (size_t i = 0; i < n; i++) host[i] = pat(me, i, 3);
    SH_OK(sh, shoal_put_signal(sh, data, host, n, sig, 1, SHOAL_SIGNAL_SET, right));
    SH_OK(sh, shoal_signal_wait_until(sh, sig, SHOAL_CMP_EQ, 1, NULL));
    read_range(host, data, n);
    for (size_t i = 0; i < n; i++) want[i] = pat(left, i, 3);
    CHECK_MEM_EQ(host, want, n);
    barrier();
    /* On a stream: a put, then put_signal ADD; the receiver's stream waits. */
    for (size_t i = 0; i < n; i++) host[i] = pat(me, i, 4);
    CUDA_OK(cudaMalloc((void **)&dev_src, n));
    CUDA_OK(cudaMemcpy(dev_src, host, n, cudaMemcpyHostToDevice));
    SH_OK(sh, shoal_put_on_stream(sh, data + n, dev_src, 1000, right, st));
    SH_OK(sh, shoal_put_signal_on_stream(sh, data, dev_src, n, sig, 2, SHOAL_SIGNAL_ADD, right, st));
    SH_OK(sh, shoal_signal_wait_until_on_stream(sh, sig, SHOAL_CMP_GE, 3, st));
    CUDA_OK(cudaStreamSynchronize(st));
    read_range(host, data, n + 1000);
    for (size_t i = 0; i < n; i++) want[i] = pat(left, i, 4);
    for (size_t i = 0; i < 1000; i++) want[n + i] = pat(left, i, 4);
    CHECK_MEM_EQ(host, want, n + 1000);
    barrier();
    /* p and g, a get and a signal_op on the stream, int wait_until, iget. */
    {
        int *word = (int *)(void *)(range_ + 31); /* 4-aligned */
        int seen = 0;
        int32_t col[4] = {0};
        uint64_t sv = 0;
        SH_OK(sh, shoal_int_p(sh, word, 1000 + me, right));
        SH_OK(sh, shoal_int_wait_until(sh, word, SHOAL_CMP_EQ, 1000 + left));
        barrier(); /* the p complete before it is read back */
        SH_OK(sh, shoal_int_g(sh, &seen, word, right));
        CHECK_EQ_INT(seen, 1000 + me);
        barrier();
        SH_OK(sh, shoal_int_atomic_set(sh, word, 7 * left + 1, left));
        SH_OK(sh, shoal_int_wait_until(sh, word, SHOAL_CMP_EQ, 7 * me + 1));
        barrier();
        /* Every 4th int32 of the right neighbour's chunk data. */
        SH_OK(sh, shoal_int32_iget(sh, col, (const int32_t *)(const void *)data, 1, 4, 4, right));
        for (int i = 0; i < 4; i++) {
            int32_t w;
            unsigned char b[4];
            for (int j = 0; j < 4; j++) b[j] = pat(me, (size_t)(16 * i + j), 4);
            memcpy(&w, b, 4);
            CHECK_MSG(col[i] == w, "iget element %d: %d, want %d", i, (int)col[i], (int)w);
        }
        SH_OK(sh, shoal_get_on_stream(sh, dev_src, data, 64, right, st));
        SH_OK(sh, shoal_signal_op_on_stream(sh, sig, 10, SHOAL_SIGNAL_ADD, right, st));
        SH_OK(sh, shoal_signal_wait_until_on_stream(sh, sig, SHOAL_CMP_EQ, 13, st));
        CUDA_OK(cudaStreamSynchronize(st));
        read_range(host, dev_src, 64);
        for (size_t i = 0; i < 64; i++) want[i] = pat(me, i, 4);
        CHECK_MEM_EQ(host, want, 64);
        SH_OK(sh, shoal_signal_fetch(sh, sig, &sv));
        CHECK_MSG(sv == 13, "signal %llu, want 13", (unsigned long long)sv);
        barrier();
    }
    CUDA_OK(cudaFree(dev_src));
}

static void test_ptr(void)
{
    const char *tp = NULL;
    unsigned char *p;
    unsigned char b = 0;

    CUDA_OK(cudaMemset(range_ + 5, 0x40 + me, 1));
    barrier();
    CHECK(shoal_ptr(sh, range_ + 5, me) == range_ + 5);
    CHECK_EQ_INT(shoal_addr_accessible(sh, range_ + 5, right), 1);
    SH_OK(sh, shoal_pe_transport(sh, right, &tp));
    p = (unsigned char *)shoal_ptr(sh, range_ + 5, right);
    if (strcmp(tp, "cuda_ipc") == 0 || strcmp(tp, "self") == 0) {
        CHECK_MSG(p != NULL, "shoal_ptr of PE %d's registered GPU range is NULL over %s", right, tp);
        /* Through the mapping: the byte the right neighbour holds there. */
        read_range(&b, p, 1);
        CHECK_EQ_INT(b, 0x40 + right);
    } else {
        CHECK_MSG(p == NULL, "shoal_ptr of PE %d's registered GPU range is %p over %s, which maps nothing", right,
                  (void *)p, tp);
    }
    barrier();
}

static void test_two_in_one(void)
{
    unsigned char *second = alloc_ + RANGE + 4096 + 3 * me; /* the same allocation, past the first range */
    unsigned char v[5] = {1, 2, 3, 4, 5}, got[5];

    SH_OK(sh, shoal_register(sh, second, 64));
    /* At once: the peer may not have left shoal_register yet. */
    SH_OK(sh, shoal_put(sh, second + 1, v, 5, right));
    SH_OK(sh, shoal_put(sh, range_ + 9, v, 5, right));
    barrier();
    read_range(got, second + 1, 5);
    CHECK_MEM_EQ(got, v, 5);
    SH_OK(sh, shoal_deregister(sh, second));
    /* The first range still reaches the peer (its mapping stays). */
    memset(got, 0, 5);
    SH_OK(sh, shoal_get(sh, got, range_ + 9, 5, right));
    CHECK_MEM_EQ(got, v, 5);
    CHECK_ERR(shoal_put(sh, second + 1, v, 5, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "not in the symmetric heap");
    barrier();
}

static void test_errors(void)
{
    unsigned char src[16] = {0}, *managed = NULL, *other = NULL;
    shoal_config_t cfg;
    shoal_t hsh = NULL;
    uint64_t *sig = (uint64_t *)(void *)(range_ + 23);

    CHECK_ERR(shoal_put(sh, range_ + RANGE - 4, src, 8, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "past the end");
    CHECK_ERR(shoal_get(sh, src, range_ + RANGE - 1, 2, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "past the end");
    CHECK_ERR(shoal_uint64_atomic_add(sh, (uint64_t *)(void *)(range_ + 4), 1, right), SHOAL_ERR_INVALID_ARG, sh,
              "not aligned");
    CHECK_ERR(shoal_put(sh, range_ + 64, range_ + 60, 8, me), SHOAL_ERR_INVALID_ARG, sh, "overlap");
    /* A collective on it. */
    CHECK_ERR(shoal_broadcastmem(shoal_team_world(sh), range_ + 64, range_, 16, 0), SHOAL_ERR_UNSUPPORTED, sh,
              "registered GPU range");
    /* A range past the end of its allocation (on every PE: a local error). */
    CUDA_OK(cudaMalloc((void **)&other, 4096));
    CHECK_ERR(shoal_register(sh, other + 4000, 200), SHOAL_ERR_INVALID_ARG, sh, "past the end of its GPU allocation");
    /* Overlapping a registered range. */
    CHECK_ERR(shoal_register(sh, range_ + 10, 10), SHOAL_ERR_INVALID_ARG, sh, "overlaps");
    /* Managed memory. */
    CUDA_OK(cudaMallocManaged((void **)&managed, 4096, cudaMemAttachGlobal));
    CHECK_ERR(shoal_register(sh, managed, 4096), SHOAL_ERR_UNSUPPORTED, sh, "managed memory");
    /* GPU memory on an instance whose heap is in host memory. */
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    cfg.heap_size = 1 << 20;
    SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &hsh));
    CHECK_ERR(shoal_register(hsh, other, 4096), SHOAL_ERR_UNSUPPORTED, hsh, "SHOAL_HEAP_KIND=gpu");
    SH_OK(hsh, shoal_finalize(hsh));
    /* On one PE only: the others are told which. */
    if (npes > 1) {
        int rc = shoal_register(sh, me == npes - 1 ? (void *)managed : (void *)(other + 64), 128);
        if (me == npes - 1) {
            CHECK_EQ_INT(rc, SHOAL_ERR_UNSUPPORTED);
        } else {
            char expect[64];
            CHECK_EQ_INT(rc, SHOAL_ERR_NOT_SYMMETRIC);
            snprintf(expect, sizeof(expect), "PE %d: shoal_register(128 bytes of GPU memory), which failed there",
                     npes - 1);
            CHECK_CONTAINS(shoal_last_error(sh), expect);
            CHECK_EQ_INT(shoal_addr_accessible(sh, other + 64, me), 0);
        }
    }
    CUDA_OK(cudaFree(managed));
    /* Host memory on PE 0, GPU memory elsewhere: they do not meet as one. */
    if (npes > 1) {
        static unsigned char host_range[128];
        int rc = shoal_register(sh, me == 0 ? (void *)host_range : (void *)(other + 64), 128);
        CHECK_EQ_INT(rc, SHOAL_ERR_NOT_SYMMETRIC);
        CHECK_CONTAINS(shoal_last_error(sh),
                       me == 0 ? "PE 1: shoal_register(128 bytes of GPU memory)" : "PE 0: shoal_register(128 bytes)");
        CHECK_EQ_INT(shoal_addr_accessible(sh, me == 0 ? (void *)host_range : (void *)(other + 64), me), 0);
    }
    /* An inner address of a GPU range is no base to deregister. */
    CHECK_ERR(shoal_deregister(sh, range_ + 8), SHOAL_ERR_INVALID_ARG, sh, "not an address inside the range");
    /* SHOAL_CHECK=full: a get of bytes put with no quiet since. */
    if (getenv("SHOAL_CHECK") != NULL && strcmp(getenv("SHOAL_CHECK"), "full") == 0) {
        SH_OK(sh, shoal_put_nbi(sh, range_ + 100, src, 16, right));
        CHECK_ERR(shoal_get(sh, src, range_ + 104, 4, right), SHOAL_ERR_ORDER, sh, "registered GPU range offset 104");
        SH_OK(sh, shoal_quiet(sh));
        SH_OK(sh, shoal_get(sh, src, range_ + 104, 4, right));
    }
    /* Deregistered: every call is refused. */
    SH_OK(sh, shoal_register(sh, other, 4096));
    barrier();
    SH_OK(sh, shoal_put(sh, other, src, 16, right));
    SH_OK(sh, shoal_deregister(sh, other));
    CHECK_ERR(shoal_put(sh, other, src, 8, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "not in the symmetric heap");
    CHECK_ERR(shoal_get(sh, src, other, 8, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "registered");
    CHECK_ERR(shoal_uint64_atomic_add(sh, (uint64_t *)(void *)other, 1, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "registered");
    CHECK_ERR(shoal_signal_op(sh, (uint64_t *)(void *)other, 1, SHOAL_SIGNAL_ADD, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "registered");
    CHECK_EQ_INT(shoal_addr_accessible(sh, other, me), 0);
    CHECK(shoal_ptr(sh, other, me) == NULL);
    CUDA_OK(cudaFree(other));
    /* The range still registered goes on working. */
    barrier();
    SH_OK(sh, shoal_signal_op(sh, sig, 5, SHOAL_SIGNAL_SET, right));
    SH_OK(sh, shoal_signal_wait_until(sh, sig, SHOAL_CMP_EQ, 5, NULL));
    barrier();
}

int main(int argc, char **argv)
{
    const char *expect = getenv("SHOAL_TEST_EXPECT_TRANSPORT"), *tp = NULL;
    size_t alloc_size;
    cudaStream_t st;

    gpu_test_start(&argc, &argv);
    sh = gpu_test_instance(8u << 20);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    SH_OK(sh, shoal_pe_transport(sh, right, &tp));
    if (expect != NULL && *expect != '\0' && npes > 1)
        CHECK_MSG(strcmp(tp, expect) == 0, "PE %d is reached over %s, want %s", right, tp, expect);
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    /* Sizes differ between PEs: so do the bases. */
    alloc_size = 2 * RANGE + 8192 + 4096 * (size_t)me;
    CUDA_OK(cudaMalloc((void **)&alloc_, alloc_size));
    range_ = alloc_ + 1 + 24 * me;
    SH_OK(sh, shoal_register(sh, range_, RANGE));

    test_rma();
    test_strided();
    test_atomics();
    test_signals(st);
    test_ptr();
    test_two_in_one();
    test_errors();

    /* 8. Left for shoal_finalize. */
    if (me == 0) check_note("registered GPU memory passed on %d PEs (right neighbour over %s)", npes, tp);
    SH_OK(sh, shoal_finalize(sh));
    CUDA_OK(cudaStreamDestroy(st));
    CUDA_OK(cudaFree(alloc_));
    MPI_Finalize();
    return 0;
}
