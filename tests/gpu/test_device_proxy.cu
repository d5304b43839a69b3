/* The device proxy (runtime/proxy/): kernels reach PEs they have no
 * load/store path to. Run where some pair goes through it: other
 * (simulated) nodes (SHOAL_NODE_SIZE), no peer access
 * (SHOAL_TRANSPORT_DISABLE=cuda_ipc), or every atomic through it
 * (SHOAL_DEVICE_ATOMICS=proxy); everything is checked against values
 * computed here:
 *   - put/get at thread, warp and block scope, blocking and _nbi, sizes
 *     from 1 byte to 64 MiB at an odd offset, byte for byte;
 *   - p/g of every size, every atomic op, fetch_add storms from every PE's
 *     kernel at every PE while the host adds too (no update lost);
 *   - put_signal rings waited on in the kernel, fence ordering over many
 *     rounds, a full ring (16384 requests at once: back-pressure);
 *   - device barriers (block, grid) across nodes, the world team's
 *     barrier, broadcast, fcollect, alltoall and reductions larger than the
 *     proxy's scratch;
 *   - requests still outstanding when the kernel ends, completed by
 *     shoal_quiet and by shoal_barrier_all_on_stream;
 *   - a barrier one PE never joins: the kernel and the host say
 *     SHOAL_ERR_TIMEOUT, naming the PE.
 * With --single MPI is initialized without MPI_THREAD_MULTIPLE: there is no
 * proxy, and calls to the PEs that need it return SHOAL_ERR_THREAD. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#define SHOAL_DEV_TIMEOUT_NS 60000000000ull /* 60 s: longer than the host's SHOAL_TIMEOUT here */
#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

static int me, npes, right, left;
static shoal_t sh;
static shoal_device_t dev;
static dev_err_t *derr;

static __host__ __device__ unsigned char pattern(size_t i, int pe) { return (unsigned char)(i * 131u + pe * 17u + 1u); }

enum { OP_PUT, OP_PUT_NBI, OP_GET, OP_GET_NBI };
enum { SC_THREAD, SC_WARP, SC_BLOCK };
static const char *op_name[] = {"put", "put_nbi", "get", "get_nbi"};
static const char *sc_name[] = {"thread", "warp", "block"};

__global__ void rma_kernel(shoal_device_t dev, int scope, int op, char *dst, const char *src, size_t n, int pe,
                           dev_err_t *err)
{
    int rc = SHOAL_SUCCESS;
    bool in = scope == SC_BLOCK || (scope == SC_WARP && threadIdx.x < 32) || (scope == SC_THREAD && threadIdx.x == 0);
    if (!in) return;
    if (scope == SC_THREAD) {
        if (op == OP_PUT) rc = shoal_dev_put(dev, dst, src, n, pe);
        if (op == OP_PUT_NBI) rc = shoal_dev_put_nbi(dev, dst, src, n, pe);
        if (op == OP_GET) rc = shoal_dev_get(dev, dst, src, n, pe);
        if (op == OP_GET_NBI) rc = shoal_dev_get_nbi(dev, dst, src, n, pe);
    } else if (scope == SC_WARP) {
        if (op == OP_PUT) rc = shoal_dev_put_warp(dev, dst, src, n, pe);
        if (op == OP_PUT_NBI) rc = shoal_dev_put_nbi_warp(dev, dst, src, n, pe);
        if (op == OP_GET) rc = shoal_dev_get_warp(dev, dst, src, n, pe);
        if (op == OP_GET_NBI) rc = shoal_dev_get_nbi_warp(dev, dst, src, n, pe);
    } else {
        if (op == OP_PUT) rc = shoal_dev_put_block(dev, dst, src, n, pe);
        if (op == OP_PUT_NBI) rc = shoal_dev_put_nbi_block(dev, dst, src, n, pe);
        if (op == OP_GET) rc = shoal_dev_get_block(dev, dst, src, n, pe);
        if (op == OP_GET_NBI) rc = shoal_dev_get_nbi_block(dev, dst, src, n, pe);
    }
    DCHECK_EQ(err, rc, SHOAL_SUCCESS);
    DCHECK_EQ(err, shoal_dev_quiet(dev), SHOAL_SUCCESS);
}

/* Every RMA form towards right (puts) and from right (gets). */
static void test_rma(void)
{
    static const size_t sizes[] = {1, 7, 4099, ((size_t)1 << 20) + 3, (size_t)64 << 20};
    size_t max = sizes[4] + 64;
    char *sym = (char *)shoal_malloc(sh, max), *local = NULL;
    unsigned char *h = (unsigned char *)malloc(max), *want = (unsigned char *)malloc(max);
    CHECK(sym != NULL && h != NULL && want != NULL);
    CUDA_OK(cudaMalloc(&local, max));
    for (int si = 0; si < 5; si++) {
        size_t n = sizes[si], off = 3;
        for (int op = 0; op < 4; op++)
            for (int sc = 0; sc < 3; sc++) {
                bool is_put = op == OP_PUT || op == OP_PUT_NBI;
                if (n > ((size_t)8 << 20) && sc != SC_BLOCK) continue; /* the largest at block scope */
                /* puts: my pattern from local into right's sym; gets: right's
                 * sym (its pattern) into my local */
                for (size_t i = 0; i < n; i++) want[i] = pattern(i, is_put ? me : right);
                for (size_t i = 0; i < n; i++) h[i] = pattern(i, me);
                CUDA_OK(cudaMemset(sym, 0, max));
                CUDA_OK(cudaMemset(local, 0, max));
                CUDA_OK(cudaMemcpy((is_put ? local : sym) + off, h, n, cudaMemcpyHostToDevice));
                CUDA_OK(cudaDeviceSynchronize());
                SH_OK(sh, shoal_barrier_all(sh));
                rma_kernel<<<1, 128>>>(dev, sc, op, is_put ? sym + off : local + off, is_put ? local + off : sym + off,
                                       n, right, derr);
                CUDA_OK(cudaDeviceSynchronize());
                check_dev_err(derr, op_name[op]);
                SH_OK(sh, shoal_barrier_all(sh));
                /* puts landed in my sym from left: left's pattern */
                if (is_put)
                    for (size_t i = 0; i < n; i++) want[i] = pattern(i, left);
                CUDA_OK(cudaMemcpy(h, (is_put ? sym : local), n + 2 * off, cudaMemcpyDeviceToHost));
                CHECK_MSG(h[0] == 0 && h[off - 1] == 0 && h[off + n] == 0, "%s %s of %zu bytes wrote outside its range",
                          op_name[op], sc_name[sc], n);
                CHECK_MSG(memcmp(h + off, want, n) == 0, "%s %s of %zu bytes: data differs", op_name[op], sc_name[sc],
                          n);
            }
    }
    check_note("put, put_nbi, get, get_nbi at thread, warp and block scope, 1 B to 64 MiB, to PE %d: byte for byte",
               right);
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, sym));
    cudaFree(local);
    free(h);
    free(want);
}

/* p and g of 1, 2, 4 and 8 bytes, then every atomic op once. */
__global__ void pg_amo_kernel(shoal_device_t dev, char *slots, long long *words, int pe, int me, dev_err_t *err)
{
    DCHECK_EQ(err, shoal_dev_char_p(dev, (char *)slots, (char)(me + 1), pe), 0);
    DCHECK_EQ(err, shoal_dev_short_p(dev, (short *)(slots + 2), (short)(1000 + me), pe), 0);
    DCHECK_EQ(err, shoal_dev_int_p(dev, (int *)(slots + 4), 100000 + me, pe), 0);
    DCHECK_EQ(err, shoal_dev_double_p(dev, (double *)(slots + 8), 0.5 + me, pe), 0);
    DCHECK_EQ(err, shoal_dev_quiet(dev), 0);
    /* the values right's kernel put into right's own slots + 16 */
    char c = 0;
    short s = 0;
    int i = 0;
    double d = 0;
    DCHECK_EQ(err, shoal_dev_char_g(dev, &c, (const char *)(slots + 16), pe), 0);
    DCHECK_EQ(err, shoal_dev_short_g(dev, &s, (const short *)(slots + 18), pe), 0);
    DCHECK_EQ(err, shoal_dev_int_g(dev, &i, (const int *)(slots + 20), pe), 0);
    DCHECK_EQ(err, shoal_dev_double_g(dev, &d, (const double *)(slots + 24), pe), 0);
    DCHECK_EQ(err, c, (char)(pe + 1));
    DCHECK_EQ(err, s, 2000 + pe);
    DCHECK_EQ(err, i, 200000 + pe);
    DCHECK_EQ(err, (long long)(d * 4), (long long)((1.25 + pe) * 4));
    /* atomics on words[0..7] of pe (each starts at 100 + k) */
    long long old = -1, want = 100;
    DCHECK_EQ(err, shoal_dev_longlong_atomic_fetch(dev, &words[0], pe, &old), 0);
    DCHECK_EQ(err, old, want);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_set(dev, &words[1], 7, pe), 0);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_swap(dev, &words[2], 9, pe, &old), 0);
    DCHECK_EQ(err, old, 102);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_compare_swap(dev, &words[3], 103, 33, pe, &old), 0);
    DCHECK_EQ(err, old, 103);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_compare_swap(dev, &words[3], 103, 44, pe, &old), 0);
    DCHECK_EQ(err, old, 33);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_fetch_and(dev, &words[4], 0x6, pe, &old), 0);
    DCHECK_EQ(err, old, 104);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_or(dev, &words[5], 0x100, pe), 0);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_xor(dev, &words[6], 0xff, pe), 0);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_fetch_inc(dev, &words[7], pe, &old), 0);
    DCHECK_EQ(err, old, 107);
    int old32 = 0;
    DCHECK_EQ(err, shoal_dev_int_atomic_fetch_xor(dev, (int *)&words[8], 0x0f, pe, &old32), 0);
    DCHECK_EQ(err, old32, 108);
    DCHECK_EQ(err, shoal_dev_quiet(dev), 0);
}

static void test_pg_amo(void)
{
    char *slots = (char *)shoal_calloc(sh, 1, 64);
    long long *words = (long long *)shoal_malloc(sh, 16 * sizeof(long long)), w[16];
    CHECK(slots != NULL && words != NULL);
    char mine[16];
    memset(mine, 0, sizeof(mine));
    mine[0] = (char)(me + 1);
    short s = (short)(2000 + me);
    int i = 200000 + me;
    double d = 1.25 + me;
    memcpy(mine + 2, &s, 2);
    memcpy(mine + 4, &i, 4);
    memcpy(mine + 8, &d, 8);
    CUDA_OK(cudaMemcpy(slots + 16, mine, 16, cudaMemcpyHostToDevice));
    for (int k = 0; k < 16; k++) w[k] = 100 + k;
    CUDA_OK(cudaMemcpy(words, w, sizeof(w), cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));
    pg_amo_kernel<<<1, 1>>>(dev, slots, words, right, me, derr);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(derr, "p, g and atomics");
    SH_OK(sh, shoal_barrier_all(sh));
    char got[16];
    CUDA_OK(cudaMemcpy(got, slots, 16, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(w, words, sizeof(w), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(got[0], left + 1);
    memcpy(&s, got + 2, 2);
    memcpy(&i, got + 4, 4);
    memcpy(&d, got + 8, 8);
    CHECK_EQ_INT(s, 1000 + left);
    CHECK_EQ_INT(i, 100000 + left);
    CHECK(d == 0.5 + left);
    CHECK(w[0] == 100 && w[1] == 7 && w[2] == 9 && w[3] == 33 && w[4] == (104 & 6) && w[5] == (105 | 0x100) &&
          w[6] == (106 ^ 0xff) && w[7] == 108);
    int w8;
    memcpy(&w8, &w[8], 4);
    CHECK_EQ_INT(w8, 108 ^ 0x0f);
    check_note("p/g of 1, 2, 4, 8 bytes and every atomic op with PE %d", right);
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, slots));
    SH_OK(sh, shoal_free(sh, words));
}

/* Every thread adds 1 to every PE's counters, iters times (fetching for
 * the 4-byte one, not for the 8-byte one). */
__global__ void storm_kernel(shoal_device_t dev, int *c32, long long *c64, int iters, dev_err_t *err)
{
    for (int i = 0; i < iters; i++)
        for (int k = 0; k < dev.n_pes; k++) {
            int pe = (dev.my_pe + k) % dev.n_pes, old = -1;
            DCHECK_EQ(err, shoal_dev_int_atomic_fetch_add(dev, c32, 1, pe, &old), 0);
            DCHECK_EQ(err, old >= 0, 1);
            DCHECK_EQ(err, shoal_dev_longlong_atomic_add(dev, c64, 1, pe), 0);
        }
    DCHECK_EQ(err, shoal_dev_quiet(dev), 0);
}

static void test_storm(void)
{
    const int blocks = 4, threads = 64, iters = 8, host_adds = 200;
    int *c32 = (int *)shoal_calloc(sh, 1, 64);
    long long *c64 = (long long *)(c32 + 2);
    cudaStream_t st;
    CHECK(c32 != NULL);
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    SH_OK(sh, shoal_barrier_all(sh));
    storm_kernel<<<blocks, threads, 0, st>>>(dev, c32, c64, iters, derr);
    CUDA_OK(cudaGetLastError());
    /* the host adds at once, to every PE */
    for (int i = 0; i < host_adds; i++)
        for (int pe = 0; pe < npes; pe++) SH_OK(sh, shoal_longlong_atomic_add(sh, c64, 1, pe));
    SH_OK(sh, shoal_quiet(sh));
    CUDA_OK(cudaStreamSynchronize(st));
    check_dev_err(derr, "atomic storm");
    SH_OK(sh, shoal_barrier_all(sh));
    int h32 = 0;
    long long h64 = 0;
    CUDA_OK(cudaMemcpy(&h32, c32, 4, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(&h64, c64, 8, cudaMemcpyDeviceToHost));
    long long k = (long long)npes * blocks * threads * iters;
    CHECK_MSG(h32 == k, "fetch_add: %d, expected %lld", h32, k);
    CHECK_MSG(h64 == k + (long long)npes * host_adds, "add: %lld, expected %lld", h64, k + (long long)npes * host_adds);
    check_note("%lld kernel fetch_adds and %lld adds (%d from hosts) per PE, none lost", k, k + npes * host_adds,
               npes * host_adds);
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, c32));
    cudaStreamDestroy(st);
}

/* A ring: round r, put_signal (block) of my round's data to right, wait for
 * left's round r, check it in the kernel. */
__global__ void ring_kernel(shoal_device_t dev, char *data, uint64_t *sig, size_t chunk, int rounds, int left,
                            dev_err_t *err)
{
    for (int r = 0; r < rounds; r++) {
        char *mine = data + (size_t)(rounds + r) * chunk; /* my source for round r */
        for (size_t i = threadIdx.x; i < chunk; i += blockDim.x) mine[i] = (char)(r * 7 + dev.my_pe + i);
        int rc = shoal_dev_put_signal_block(dev, data + (size_t)r * chunk, mine, chunk, sig, 1, SHOAL_SIGNAL_ADD,
                                            (dev.my_pe + 1) % dev.n_pes);
        DCHECK_EQ_AT(err, r, rc, 0);
        if (threadIdx.x == 0) shoal_dev_signal_wait_until(sig, SHOAL_CMP_GE, (uint64_t)r + 1);
        __syncthreads();
        for (size_t i = threadIdx.x; i < chunk; i += blockDim.x)
            DCHECK_EQ_AT(err, r, data[(size_t)r * chunk + i], (char)(r * 7 + left + i));
    }
    DCHECK_EQ(err, shoal_dev_quiet(dev), 0);
}

/* Fence: data (an atomic set: through the proxy where atomics are) then
 * flag (a p: a store where pe is mapped), rounds times; whoever sees flag
 * i sees data >= i. */
__global__ void fence_kernel(shoal_device_t dev, long long *data, long long *flag, int rounds, dev_err_t *err)
{
    int pe = (dev.my_pe + 1) % dev.n_pes;
    for (int i = 1; i <= rounds; i++) {
        DCHECK_EQ_AT(err, i, shoal_dev_longlong_atomic_set(dev, data, i, pe), 0);
        DCHECK_EQ_AT(err, i, shoal_dev_fence(dev), 0);
        DCHECK_EQ_AT(err, i, shoal_dev_longlong_p(dev, flag, i, pe), 0);
        /* what left sent: its flag, then its data, read in that order */
        long long f = cuda::atomic_ref<long long, cuda::thread_scope_system>(*flag).load(cuda::memory_order_acquire);
        long long d = cuda::atomic_ref<long long, cuda::thread_scope_system>(*data).load(cuda::memory_order_acquire);
        if (d < f) DCHECK_EQ_AT(err, i, d, f);
    }
    shoal_dev_longlong_wait_until(flag, SHOAL_CMP_EQ, rounds);
    DCHECK_EQ(err, *(volatile long long *)data, rounds);
    DCHECK_EQ(err, shoal_dev_quiet(dev), 0);
}

static void test_signal_fence(void)
{
    const size_t chunk = 4099;
    const int rounds = 16, frounds = 2000;
    char *data = (char *)shoal_malloc(sh, 2 * rounds * chunk);
    uint64_t *sig = (uint64_t *)shoal_calloc(sh, 4, sizeof(uint64_t));
    CHECK(data != NULL && sig != NULL);
    SH_OK(sh, shoal_barrier_all(sh));
    ring_kernel<<<1, 256>>>(dev, data, sig, chunk, rounds, left, derr);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(derr, "put_signal ring");
    check_note("put_signal_block ring of %d rounds of %zu bytes, waited on and checked in the kernel", rounds, chunk);
    SH_OK(sh, shoal_barrier_all(sh));
    fence_kernel<<<1, 1>>>(dev, (long long *)(sig + 2), (long long *)(sig + 3), frounds, derr);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(derr, "fence ordering");
    check_note("fence: %d rounds of data, fence, flag to PE %d: data never behind the flag", frounds, right);
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, data));
    SH_OK(sh, shoal_free(sh, sig));
}

/* A full ring: every thread puts 4 values without waiting (p), far more
 * requests than slots. */
__global__ void flood_kernel(shoal_device_t dev, int *arr, int pe, dev_err_t *err)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x;
    for (int k = 0; k < 4; k++)
        DCHECK_EQ(err, shoal_dev_int_p(dev, &arr[k * n + id], dev.my_pe * 1000000 + k * n + id, pe), 0);
}

/* Outstanding at kernel end: big _nbi puts, no quiet in the kernel. */
__global__ void nbi_end_kernel(shoal_device_t dev, char *dst, const char *src, size_t n, int pe, dev_err_t *err)
{
    DCHECK_EQ(err, shoal_dev_put_nbi_block(dev, dst, src, n, pe), 0);
}

static void test_flood_and_end(void)
{
    const int blocks = 4, threads = 1024, n = blocks * threads;
    int *arr = (int *)shoal_calloc(sh, 4 * (size_t)n, sizeof(int)), *h = (int *)malloc(sizeof(int) * 4 * n);
    CHECK(arr != NULL && h != NULL);
    SH_OK(sh, shoal_barrier_all(sh));
    flood_kernel<<<blocks, threads>>>(dev, arr, right, derr);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(derr, "flood");
    SH_OK(sh, shoal_quiet(sh)); /* the host completes what the kernel left */
    SH_OK(sh, shoal_barrier_all(sh));
    CUDA_OK(cudaMemcpy(h, arr, sizeof(int) * 4 * n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4 * n; i++) CHECK_MSG(h[i] == left * 1000000 + i, "flood: arr[%d] = %d", i, h[i]);
    check_note("%d p's at once through %d slots: none lost, completed by shoal_quiet after the kernel", 4 * n,
               SHOAL_DEVICE_PROXY_SLOTS);

    /* _nbi puts outstanding when the kernel ends, then the on-stream barrier */
    size_t bytes = (size_t)8 << 20;
    char *sym = (char *)shoal_malloc(sh, bytes), *local = NULL;
    unsigned char *hb = (unsigned char *)malloc(bytes);
    cudaStream_t st;
    CHECK(sym != NULL && hb != NULL);
    CUDA_OK(cudaMalloc(&local, bytes));
    for (size_t i = 0; i < bytes; i++) hb[i] = pattern(i, me);
    CUDA_OK(cudaMemcpy(local, hb, bytes, cudaMemcpyHostToDevice));
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    SH_OK(sh, shoal_barrier_all(sh));
    nbi_end_kernel<<<1, 256, 0, st>>>(dev, sym, local, bytes, right, derr);
    SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
    CUDA_OK(cudaStreamSynchronize(st));
    check_dev_err(derr, "nbi at kernel end");
    CUDA_OK(cudaMemcpy(hb, sym, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bytes; i++) CHECK_MSG(hb[i] == pattern(i, left), "nbi at kernel end: byte %zu", i);
    check_note("put_nbi_block of %zu bytes outstanding at kernel end, completed by shoal_barrier_all_on_stream", bytes);
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, sym));
    SH_OK(sh, shoal_free(sh, arr));
    cudaFree(local);
    cudaStreamDestroy(st);
    free(hb);
    free(h);
}

/* Barriers: each round, p my round to right, barrier, read left's. */
__global__ void barrier_kernel(shoal_device_t dev, int *slot, int rounds, int left, dev_err_t *err)
{
    for (int r = 1; r <= rounds; r++) {
        int right = (dev.my_pe + 1) % dev.n_pes;
        if (threadIdx.x == 0) {
            DCHECK_EQ_AT(err, r, shoal_dev_int_p(dev, slot + (r & 1), r, right), 0);
            /* an atomic too: through the proxy where atomics are */
            DCHECK_EQ_AT(err, r, shoal_dev_int_atomic_add(dev, slot + 2, 1, right), 0);
        }
        int rc = shoal_dev_barrier_all_block(dev);
        DCHECK_EQ_AT(err, r, rc, 0);
        if (threadIdx.x == 0) DCHECK_EQ_AT(err, r, *(volatile int *)(slot + (r & 1)), r);
        if (threadIdx.x == 0) DCHECK_EQ_AT(err, r, *(volatile int *)(slot + 2), r);
        rc = shoal_dev_barrier_all_block(dev); /* read before the next round's p */
        DCHECK_EQ_AT(err, r, rc, 0);
    }
}

__global__ void grid_kernel(shoal_device_t dev, int *slot, int rounds, dev_err_t *err)
{
    for (int r = 1; r <= rounds; r++) {
        if (blockIdx.x == 1 && threadIdx.x == 0)
            DCHECK_EQ_AT(err, r, shoal_dev_int_p(dev, slot + (r & 1), r + 1000, (dev.my_pe + 1) % dev.n_pes), 0);
        DCHECK_EQ_AT(err, r, shoal_dev_barrier_all_grid(dev), 0);
        if (threadIdx.x == 0) DCHECK_EQ_AT(err, r, *(volatile int *)(slot + (r & 1)), r + 1000);
        DCHECK_EQ_AT(err, r, shoal_dev_barrier_all_grid(dev), 0);
    }
}

template <typename T> __device__ T elem(int pe, size_t i) { return (T)((pe + 1) * 3 + (long long)(i % 1000)); }

__global__ void team_kernel(shoal_device_t dev, shoal_dev_team_t team, char *buf, size_t n, int root, dev_err_t *err)
{
    int np = team.n_pes, me = team.my_pe;
    double *src = (double *)buf, *dst = src + n * np;
    for (size_t i = threadIdx.x; i < n * np; i += blockDim.x) src[i] = elem<double>(me, i);
    __syncthreads();
    /* broadcast of n doubles from root */
    DCHECK_EQ(err, shoal_dev_double_broadcast_block(dev, team, dst, src, n, root), 0);
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) DCHECK_EQ_AT(err, i, dst[i], elem<double>(root, i));
    DCHECK_EQ(err, shoal_dev_team_sync_block(dev, team), 0);
    /* fcollect: member k's first n into block k */
    DCHECK_EQ(err, shoal_dev_double_fcollect_block(dev, team, dst, src, n), 0);
    for (size_t i = threadIdx.x; i < n * np; i += blockDim.x)
        DCHECK_EQ_AT(err, i, dst[i], elem<double>((int)(i / n), i % n));
    DCHECK_EQ(err, shoal_dev_team_barrier_block(dev, team), 0);
    /* alltoall: block j of member k's src into block k of member j's dst */
    DCHECK_EQ(err, shoal_dev_double_alltoall_block(dev, team, dst, src, n), 0);
    for (size_t i = threadIdx.x; i < n * np; i += blockDim.x)
        DCHECK_EQ_AT(err, i, dst[i], elem<double>((int)(i / n), (size_t)me * n + i % n));
    DCHECK_EQ(err, shoal_dev_team_barrier_block(dev, team), 0);
    /* sum, and max of long long in place */
    DCHECK_EQ(err, shoal_dev_double_sum_reduce_block(dev, team, dst, src, n * np), 0);
    for (size_t i = threadIdx.x; i < n * np; i += blockDim.x) {
        double want = 0;
        for (int k = 0; k < np; k++) want += elem<double>(k, i);
        DCHECK_EQ_AT(err, i, dst[i], want);
    }
    DCHECK_EQ(err, shoal_dev_team_barrier_block(dev, team), 0);
    long long *l = (long long *)dst;
    for (size_t i = threadIdx.x; i < n * np; i += blockDim.x) l[i] = elem<long long>(me, i) * (me % 2 ? -1 : 1);
    DCHECK_EQ(err, shoal_dev_longlong_max_reduce_block(dev, team, l, l, n * np), 0);
    for (size_t i = threadIdx.x; i < n * np; i += blockDim.x) {
        long long want = -(1ll << 60);
        for (int k = 0; k < np; k++) {
            long long v = elem<long long>(k, i) * (k % 2 ? -1 : 1);
            want = v > want ? v : want;
        }
        DCHECK_EQ_AT(err, i, l[i], want);
    }
}

static void test_barriers_teams(void)
{
    const int rounds = 300;
    int *slot = (int *)shoal_calloc(sh, 4, sizeof(int));
    CHECK(slot != NULL);
    SH_OK(sh, shoal_barrier_all(sh));
    barrier_kernel<<<1, 128>>>(dev, slot, rounds, left, derr);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(derr, "block barrier");
    SH_OK(sh, shoal_barrier_all(sh));
    void *args[] = {&dev, &slot, (void *)&rounds, &derr};
    int grid_rounds = 50;
    args[2] = &grid_rounds;
    CUDA_OK(cudaLaunchCooperativeKernel((const void *)grid_kernel, dim3(2), dim3(64), args, 0, 0));
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(derr, "grid barrier");
    check_note("%d block barriers and %d grid barriers across all %d PEs, each ordering a proxied p", 2 * rounds,
               2 * grid_rounds, npes);
    SH_OK(sh, shoal_barrier_all(sh));

    shoal_dev_team_t team;
    SH_OK(sh, shoal_team_device_get(shoal_team_world(sh), &team));
    /* 20000 doubles per member: larger than the proxy's scratch per team */
    size_t n = 20000;
    char *buf = (char *)shoal_malloc(sh, 2 * n * (size_t)npes * sizeof(double));
    CHECK(buf != NULL);
    SH_OK(sh, shoal_barrier_all(sh));
    team_kernel<<<1, 256>>>(dev, team, buf, n, npes - 1, derr);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(derr, "team collectives");
    check_note("world team (ok=%d): barrier, sync, broadcast, fcollect, alltoall, sum and in-place max of %zu "
               "elements per member",
               team.ok, n);
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, buf));
    SH_OK(sh, shoal_free(sh, slot));
}

/* Only PE 0's kernel enters the barrier: it must come back with a timeout. */
__global__ void lonely_kernel(shoal_device_t dev, int *st) { *st = shoal_dev_barrier_all_block(dev); }

/* The PEs of node 0 (PE 0 alone where there is one node) enter a device
 * barrier the others never join: node 0's leader meets the other nodes
 * through its proxy, which gives up after SHOAL_TIMEOUT; every kernel
 * that entered gets SHOAL_ERR_TIMEOUT, and PE 0's host hears why. Where
 * every PE is load/store reachable the barrier never goes through the
 * proxy (it would wait for SHOAL_DEV_TIMEOUT_NS): skipped there. */
static void test_timeout(void)
{
    int *st = NULL, h = -1;
    int nodes = 1;
    for (int pe = 0; pe < npes; pe++) nodes = shoal_pe_node(sh, pe) + 1 > nodes ? shoal_pe_node(sh, pe) + 1 : nodes;
    bool in = nodes > 1 ? shoal_pe_node(sh, me) == 0 : me == 0;
    if (dev.barrier_ok) {
        check_note("every PE is load/store reachable: the barrier timeout is the device's own (test_device_errors)");
        return;
    }
    CUDA_OK(cudaMalloc(&st, sizeof(int)));
    SH_OK(sh, shoal_barrier_all(sh));
    if (in) {
        lonely_kernel<<<1, 32>>>(dev, st);
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(&h, st, sizeof(int), cudaMemcpyDeviceToHost));
        CHECK_MSG(h == SHOAL_ERR_TIMEOUT, "a barrier only node 0 entered returned %d (%s)", h, shoal_strerror(h));
    }
    if (me == 0) {
        int rc = shoal_quiet(sh);
        CHECK_MSG(rc == SHOAL_ERR_TIMEOUT, "shoal_quiet after it: %d (%s)", rc, shoal_strerror(rc));
        SH_OK(sh, shoal_quiet(sh)); /* said once */
        CHECK_CONTAINS(shoal_last_error(sh), "device barrier");
        CHECK_CONTAINS(shoal_last_error(sh), "never arrived");
        check_note("a device barrier only node 0 entered: SHOAL_ERR_TIMEOUT in its kernels; the host says: %s",
                   shoal_last_error(sh));
    }
    /* The others wait here (no timeout) until node 0 is done: then every PE finalizes together. */
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    cudaFree(st);
}

int main(int argc, char **argv)
{
    bool single = argc > 1 && strcmp(argv[1], "--single") == 0;
    int provided = 0, ndev = 0;

    if (single)
        MPI_Init(&argc, &argv);
    else
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        check_note("no GPU: skipped");
        MPI_Finalize();
        return TEST_SKIP;
    }
    if (!single && provided != MPI_THREAD_MULTIPLE) {
        check_note("MPI gives no MPI_THREAD_MULTIPLE: skipped");
        MPI_Finalize();
        return TEST_SKIP;
    }
    sh = gpu_test_instance((size_t)192 << 20);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    SH_OK(sh, shoal_device_get(sh, &dev));
    CUDA_OK(cudaMalloc(&derr, sizeof(*derr)));
    CUDA_OK(cudaMemset(derr, 0, sizeof(*derr)));
    int reach = shoal_device_reachable(sh, right);
    const char *tp = "?";
    SH_OK(sh, shoal_pe_transport(sh, right, &tp));
    check_note("PE %d: transport %s, %sload/store reachable from kernels; proxy: %s", right, tp, reach ? "" : "not ",
               shoal_strerror(dev.proxy.status));
    if (single) {
        /* No proxy without MPI_THREAD_MULTIPLE: a clear status, at once. */
        int *st = NULL, h = 0;
        CHECK_MSG(!reach, "--single needs a PE out of reach");
        CHECK_EQ_INT(dev.proxy.status, SHOAL_ERR_THREAD);
        CUDA_OK(cudaMalloc(&st, sizeof(int)));
        char *sym = (char *)shoal_malloc(sh, 64);
        CHECK(sym != NULL);
        rma_kernel<<<1, 32>>>(dev, SC_THREAD, OP_PUT, sym, sym, 8, right, derr);
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(&h, &derr->got, sizeof(int), cudaMemcpyDeviceToHost));
        CHECK_EQ_INT(h, SHOAL_ERR_THREAD);
        check_note("without MPI_THREAD_MULTIPLE: no proxy, a put to PE %d returns SHOAL_ERR_THREAD", right);
        SH_OK(sh, shoal_free(sh, sym));
        cudaFree(st);
    } else {
        CHECK_MSG(dev.proxy.status == SHOAL_SUCCESS, "the proxy does not run: %s", shoal_strerror(dev.proxy.status));
        gpu_test_need_concurrent_kernels(sh, "the device proxy test (kernels wait for each other)");
        test_rma();
        test_pg_amo();
        test_storm();
        test_signal_fence();
        test_flood_and_end();
        test_barriers_teams();
        test_timeout();
    }
    cudaFree(derr);
    SH_OK(sh, shoal_finalize(sh));
    if (me == 0) printf("test_device_proxy: %d PEs passed\n", npes);
    MPI_Finalize();
    return 0;
}
