/* Device API errors (shoal_device.cuh), returned inside the kernel and
 * checked on the host for every thread: a PE out of range gives
 * SHOAL_ERR_PE, a symmetric range outside the heap SHOAL_ERR_OUT_OF_BOUNDS
 * (also straddling its end, or a byte or element count that overflows), a
 * misaligned atomic or an unknown signal op SHOAL_ERR_INVALID_ARG (checked
 * in the kernel, whether the PE is load/store reachable or not), and a PE
 * that is not load/store reachable, where there is no device proxy, the
 * reason there is none (SHOAL_ERR_UNSUPPORTED: the instance needs none;
 * SHOAL_ERR_THREAD: MPI without MPI_THREAD_MULTIPLE, as here), from every
 * kind of call, the barriers included, which return at once instead of
 * waiting; nothing is written on error. The unreachable PE is made by a copy of the
 * device tables with its entries NULL (and is real where the instance has
 * no cuda_ipc: SHOAL_TRANSPORT_DISABLE=cuda_ipc, or SHOAL_NODE_SIZE=1 with
 * the PEs on different simulated nodes). With 2 PEs or more, a barrier that one PE
 * never joins returns SHOAL_ERR_TIMEOUT (built with SHOAL_DEV_TIMEOUT_NS). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#define SHOAL_DEV_TIMEOUT_NS 2000000000ull /* 2 s */
#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

#define LANES 32
#define SYM_BYTES 256
#define SYM_BYTE 0xAB

/* The calls, one a case: st[case * LANES + lane]. */
enum {
    C_PUT_PE_HIGH,
    C_PUT_PE_NEG,
    C_GET_PE,
    C_P_PE,
    C_G_PE,
    C_AMO_PE,
    C_SIGNAL_PE,
    C_PUT_SIGNAL_PE,
    C_PUT_BLOCK_PE,
    C_PUT_WARP_PE,
    C_GET_WARP_PE,
    C_PUT_NBI_PE,
    C_PUT_OUTSIDE,
    C_GET_OUTSIDE,
    C_PUT_STRADDLE,
    C_PUT_BEFORE,
    C_PUT_HUGE,
    C_TYPED_OVERFLOW,
    C_P_OUTSIDE,
    C_G_STRADDLE,
    C_AMO_OUTSIDE,
    C_PUT_BLOCK_OUTSIDE,
    C_GET_WARP_OUTSIDE,
    C_PUT_SIGNAL_SIG_OUTSIDE,
    C_PUT_SIGNAL_DATA_OUTSIDE,
    C_AMO_MISALIGNED,
    C_SIGNAL_BAD_OP,
    C_PUT_SIGNAL_BAD_OP,
    C_PTR,
    N_CASES
};
static const char *case_name[N_CASES] = {"put, pe = n_pes",
                                         "put, pe = -1",
                                         "get, pe = n_pes",
                                         "p, pe = n_pes",
                                         "g, pe = -1",
                                         "atomic, pe = n_pes",
                                         "signal_op, pe = n_pes",
                                         "put_signal, pe = n_pes",
                                         "put_block, pe = n_pes",
                                         "put_warp, pe = n_pes",
                                         "get_warp, pe = -1",
                                         "put_nbi, pe = n_pes",
                                         "put to memory outside the heap",
                                         "get from memory outside the heap",
                                         "put across the heap's end",
                                         "put just before the heap",
                                         "put of SIZE_MAX bytes",
                                         "int put of SIZE_MAX / 2 elements",
                                         "p outside the heap",
                                         "g across the heap's end",
                                         "atomic outside the heap",
                                         "put_block outside the heap",
                                         "get_warp outside the heap",
                                         "put_signal, signal word outside the heap",
                                         "put_signal, data outside the heap",
                                         "misaligned atomic",
                                         "signal_op with an unknown op",
                                         "put_signal with an unknown op",
                                         "shoal_dev_ptr results"};

/* Every lane makes every call (warp and block calls with the same
 * arguments on all lanes). outside: device memory not in the heap. */
__global__ void error_kernel(shoal_device_t dev, char *sym, char *outside, int pe, int *st)
{
    unsigned lane = threadIdx.x;
    int bad = dev.n_pes;
    char *end = dev.heap_base + dev.heap_size;
    uint64_t *sig = (uint64_t *)(sym + SYM_BYTES - 8);
    int v = 0;
    int *r = st + lane;

    r[C_PUT_PE_HIGH * LANES] = shoal_dev_put(dev, sym, outside, 8, bad);
    r[C_PUT_PE_NEG * LANES] = shoal_dev_put(dev, sym, outside, 8, -1);
    r[C_GET_PE * LANES] = shoal_dev_get(dev, outside, sym, 8, bad);
    r[C_P_PE * LANES] = shoal_dev_int_p(dev, (int *)sym, 1, bad);
    r[C_G_PE * LANES] = shoal_dev_int_g(dev, &v, (const int *)sym, -1);
    r[C_AMO_PE * LANES] = shoal_dev_int_atomic_fetch_add(dev, (int *)sym, 1, bad, &v);
    r[C_SIGNAL_PE * LANES] = shoal_dev_signal_op(dev, sig, 1, SHOAL_SIGNAL_SET, bad);
    r[C_PUT_SIGNAL_PE * LANES] = shoal_dev_put_signal(dev, sym, outside, 8, sig, 1, SHOAL_SIGNAL_SET, bad);
    r[C_PUT_BLOCK_PE * LANES] = shoal_dev_put_block(dev, sym, outside, 64, bad);
    r[C_PUT_WARP_PE * LANES] = shoal_dev_put_warp(dev, sym, outside, 64, bad);
    r[C_GET_WARP_PE * LANES] = shoal_dev_get_warp(dev, outside, sym, 64, -1);
    r[C_PUT_NBI_PE * LANES] = shoal_dev_put_nbi(dev, sym, outside, 8, bad);

    r[C_PUT_OUTSIDE * LANES] = shoal_dev_put(dev, outside, sym, 8, pe);
    r[C_GET_OUTSIDE * LANES] = shoal_dev_get(dev, sym + 64, outside, 8, pe);
    r[C_PUT_STRADDLE * LANES] = shoal_dev_put(dev, end - 4, outside, 8, pe);
    r[C_PUT_BEFORE * LANES] = shoal_dev_put(dev, dev.heap_base - 16, outside, 8, pe);
    r[C_PUT_HUGE * LANES] = shoal_dev_put(dev, sym, outside, SIZE_MAX, pe);
    r[C_TYPED_OVERFLOW * LANES] = shoal_dev_int_put(dev, (int *)sym, (const int *)outside, SIZE_MAX / 2, pe);
    r[C_P_OUTSIDE * LANES] = shoal_dev_long_p(dev, (long *)outside, 1, pe);
    r[C_G_STRADDLE * LANES] = shoal_dev_long_g(dev, (long *)outside, (const long *)(end - 4), pe);
    r[C_AMO_OUTSIDE * LANES] = shoal_dev_ulonglong_atomic_add(dev, (unsigned long long *)outside, 1, pe);
    r[C_PUT_BLOCK_OUTSIDE * LANES] = shoal_dev_put_block(dev, outside, sym, 64, pe);
    r[C_GET_WARP_OUTSIDE * LANES] = shoal_dev_get_warp(dev, sym + 64, outside, 64, pe);
    /* these two would write sym on pe if they did not check everything first */
    r[C_PUT_SIGNAL_SIG_OUTSIDE * LANES] =
        shoal_dev_put_signal_block(dev, sym, outside, 64, (uint64_t *)outside, 1, SHOAL_SIGNAL_SET, pe);
    r[C_PUT_SIGNAL_DATA_OUTSIDE * LANES] = shoal_dev_put_signal(dev, outside, sym, 64, sig, 1, SHOAL_SIGNAL_ADD, pe);
    r[C_AMO_MISALIGNED * LANES] = shoal_dev_int_atomic_fetch_add(dev, (int *)(sym + 2), 1, pe, &v);
    r[C_SIGNAL_BAD_OP * LANES] = shoal_dev_signal_op(dev, sig, 1, 7, pe);
    r[C_PUT_SIGNAL_BAD_OP * LANES] = shoal_dev_put_signal_warp(dev, sym, outside, 64, sig, 1, -1, pe);

    /* shoal_dev_ptr: NULL for a bad PE, outside, the heap's end; the
     * answer for sym on pe is checked on the host */
    int ptr_ok = shoal_dev_ptr(dev, sym, bad) == NULL && shoal_dev_ptr(dev, sym, -1) == NULL &&
                 shoal_dev_ptr(dev, outside, pe) == NULL && shoal_dev_ptr(dev, end, pe) == NULL;
    r[C_PTR * LANES] = ptr_ok ? (shoal_dev_ptr(dev, sym, pe) != NULL) : -100;
}

/* Calls towards an unreachable PE (dev's tables say so), the barriers too. */
enum {
    U_PUT,
    U_GET,
    U_P,
    U_G,
    U_AMO,
    U_SIGNAL,
    U_PUT_SIGNAL_BLOCK,
    U_PUT_BLOCK,
    U_BARRIER_BLOCK,
    U_PTR,
    U_PE_FIRST,
    N_UCASES
};
static const char *ucase_name[N_UCASES] = {"put",
                                           "get",
                                           "p",
                                           "g",
                                           "atomic",
                                           "signal_op",
                                           "put_signal_block",
                                           "put_block",
                                           "barrier_all_block",
                                           "shoal_dev_ptr",
                                           "put, pe = n_pes"};
__global__ void unreachable_kernel(shoal_device_t dev, char *sym, char *local, int pe, int *st)
{
    int *r = st + threadIdx.x;
    long v = 0;
    uint64_t *sig = (uint64_t *)(sym + SYM_BYTES - 8);
    r[U_PUT * LANES] = shoal_dev_put(dev, sym, local, 16, pe);
    r[U_GET * LANES] = shoal_dev_get(dev, local, sym, 16, pe);
    r[U_P * LANES] = shoal_dev_long_p(dev, (long *)sym, 5, pe);
    r[U_G * LANES] = shoal_dev_long_g(dev, &v, (const long *)sym, pe);
    r[U_AMO * LANES] = shoal_dev_long_atomic_fetch_add(dev, (long *)sym, 1, pe, &v);
    r[U_SIGNAL * LANES] = shoal_dev_signal_op(dev, sig, 1, SHOAL_SIGNAL_ADD, pe);
    r[U_PUT_SIGNAL_BLOCK * LANES] = shoal_dev_put_signal_block(dev, sym, local, 64, sig, 1, SHOAL_SIGNAL_SET, pe);
    r[U_PUT_BLOCK * LANES] = shoal_dev_put_block(dev, sym, local, 64, pe);
    r[U_BARRIER_BLOCK * LANES] = shoal_dev_barrier_all_block(dev);
    r[U_PTR * LANES] = shoal_dev_ptr(dev, sym, pe) == NULL ? SHOAL_ERR_UNSUPPORTED : SHOAL_SUCCESS;
    r[U_PE_FIRST * LANES] = shoal_dev_put(dev, sym, local, 16, dev.n_pes);
}

/* Grid barrier: status of every thread. */
__global__ void grid_barrier_kernel(shoal_device_t dev, int *st)
{
    st[blockIdx.x * blockDim.x + threadIdx.x] = shoal_dev_barrier_all_grid(dev);
}

/* Block barrier, thread 0's status and the time it took. */
__global__ void block_barrier_kernel(shoal_device_t dev, int *st, unsigned long long *ns)
{
    unsigned long long t0, t1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    int rc = shoal_dev_barrier_all_block(dev);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
    if (threadIdx.x == 0) {
        *st = rc;
        *ns = t1 - t0;
    }
}

static void check_lanes(const int *d_st, int cases, const int *expected, const char *const *names, const char *what)
{
    int *h = (int *)malloc(sizeof(int) * (size_t)cases * LANES);
    CHECK(h != NULL);
    CUDA_OK(cudaMemcpy(h, d_st, sizeof(int) * (size_t)cases * LANES, cudaMemcpyDeviceToHost));
    for (int c = 0; c < cases; c++)
        for (int l = 0; l < LANES; l++)
            CHECK_MSG(h[c * LANES + l] == expected[c], "%s: %s: lane %d returned %d (%s), expected %d (%s)", what,
                      names[c], l, h[c * LANES + l], shoal_strerror(h[c * LANES + l]), expected[c],
                      shoal_strerror(expected[c]));
    free(h);
}

/* A copy of dev whose tables say pe is not load/store reachable. */
static shoal_device_t unreachable_copy(const shoal_device_t &dev, int pe, char ***base_p, unsigned ***ctrl_p)
{
    size_t n = (size_t)dev.n_pes;
    char **base = (char **)malloc(n * sizeof(char *));
    unsigned **ctrl = (unsigned **)malloc(n * sizeof(unsigned *));
    CHECK(base && ctrl);
    CUDA_OK(cudaMemcpy(base, dev.peer_base, n * sizeof(char *), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(ctrl, dev.peer_ctrl, n * sizeof(unsigned *), cudaMemcpyDeviceToHost));
    base[pe] = NULL;
    ctrl[pe] = NULL;
    CUDA_OK(cudaMalloc((void **)base_p, n * sizeof(char *)));
    CUDA_OK(cudaMalloc((void **)ctrl_p, n * sizeof(unsigned *)));
    CUDA_OK(cudaMemcpy(*base_p, base, n * sizeof(char *), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(*ctrl_p, ctrl, n * sizeof(unsigned *), cudaMemcpyHostToDevice));
    free(base);
    free(ctrl);
    shoal_device_t fake = dev;
    fake.peer_base = *base_p;
    fake.peer_ctrl = *ctrl_p;
    unsigned k = (unsigned)(pe - dev.near_first);
    if (k < SHOAL_DEVICE_NEAR_PES) {
        fake.near_base[k] = NULL;
        fake.near_ctrl[k] = NULL;
    }
    fake.barrier_ok = 0;
    return fake;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    shoal_device_t dev;
    int me, npes, right, rc;
    const char *disable = getenv("SHOAL_TRANSPORT_DISABLE"), *node_size = getenv("SHOAL_NODE_SIZE");

    gpu_test_start(&argc, &argv);
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = (size_t)16 << 20;
    rc = shoal_init(MPI_COMM_WORLD, &cfg, &sh);
    if (rc == SHOAL_ERR_UNSUPPORTED &&
        ((disable != NULL && strstr(disable, "cuda_ipc") != NULL) || node_size != NULL)) {
        check_note("GPU heap without cuda_ipc between the PEs not available here (%s): skipped",
                   shoal_last_error(NULL));
        MPI_Finalize();
        return TEST_SKIP;
    }
    SH_OK(NULL, rc);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    SH_OK(sh, shoal_device_get(sh, &dev));
    int reach = shoal_device_reachable(sh, right), all_reach = 1;
    for (int pe = 0; pe < npes; pe++) all_reach &= shoal_device_reachable(sh, pe) == 1;
    const char *tp = "?";
    SH_OK(sh, shoal_pe_transport(sh, right, &tp));
    check_note("PE %d is %sreachable from kernels (%s)", right, reach ? "" : "not ", tp);

    char *sym = (char *)shoal_malloc(sh, SYM_BYTES), *outside = NULL, *local = NULL;
    int *st = NULL;
    CHECK_MSG(sym != NULL, "shoal_malloc: %s", shoal_last_error(sh));
    CUDA_OK(cudaMalloc(&outside, 4096));
    CUDA_OK(cudaMalloc(&local, 4096));
    CUDA_OK(cudaMalloc(&st, sizeof(int) * 64 * LANES));
    CUDA_OK(cudaMemset(sym, SYM_BYTE, SYM_BYTES));
    CUDA_OK(cudaMemset(outside, 0, 4096));
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));

    /* 1. bad PE, bad range, bad argument */
    {
        int expected[N_CASES];
        for (int c = 0; c <= C_PUT_NBI_PE; c++) expected[c] = SHOAL_ERR_PE;
        for (int c = C_PUT_OUTSIDE; c <= C_PUT_SIGNAL_DATA_OUTSIDE; c++) expected[c] = SHOAL_ERR_OUT_OF_BOUNDS;
        /* every argument is checked in the kernel, reachable PE or not */
        expected[C_PUT_SIGNAL_SIG_OUTSIDE] = SHOAL_ERR_OUT_OF_BOUNDS;
        expected[C_AMO_MISALIGNED] = SHOAL_ERR_INVALID_ARG;
        expected[C_SIGNAL_BAD_OP] = SHOAL_ERR_INVALID_ARG;
        expected[C_PUT_SIGNAL_BAD_OP] = SHOAL_ERR_INVALID_ARG;
        expected[C_PTR] = reach;
        CUDA_OK(cudaMemset(st, 0x55, sizeof(int) * N_CASES * LANES));
        error_kernel<<<1, LANES>>>(dev, sym, outside, right, st);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        check_lanes(st, N_CASES, expected, case_name, "errors");
        SH_OK(sh, shoal_barrier_all(sh));
        /* nothing landed: neither in my heap (from left) nor outside it */
        unsigned char h[SYM_BYTES], o[4096];
        CUDA_OK(cudaMemcpy(h, sym, SYM_BYTES, cudaMemcpyDeviceToHost));
        CHECK_MEM_FILLED(h, SYM_BYTE, SYM_BYTES);
        CUDA_OK(cudaMemcpy(o, outside, sizeof(o), cudaMemcpyDeviceToHost));
        CHECK_MEM_FILLED(o, 0, sizeof(o));
        check_note("%d error cases x %d lanes return the right status", N_CASES, LANES);
    }

    /* 2. an unreachable PE without a proxy: each call refuses, barrier
     * included, at once, with the reason there is no proxy */
    CHECK_MSG(dev.proxy.status != SHOAL_SUCCESS, "MPI_Init gives no MPI_THREAD_MULTIPLE, so no proxy runs: %s",
              shoal_strerror(dev.proxy.status));
    CHECK_EQ_INT(dev.proxy.status, reach ? SHOAL_ERR_UNSUPPORTED : SHOAL_ERR_THREAD);
    {
        char **fake_base = NULL;
        unsigned **fake_ctrl = NULL;
        shoal_device_t fake = unreachable_copy(dev, right, &fake_base, &fake_ctrl);
        int expected[N_UCASES];
        for (int c = 0; c < N_UCASES; c++) expected[c] = dev.proxy.status;
        expected[U_PTR] = SHOAL_ERR_UNSUPPORTED; /* shoal_dev_ptr is NULL: the test says so */
        expected[U_PE_FIRST] = SHOAL_ERR_PE;
        CUDA_OK(cudaMemset(st, 0x55, sizeof(int) * N_UCASES * LANES));
        unreachable_kernel<<<1, LANES>>>(fake, sym, local, right, st);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        check_lanes(st, N_UCASES, expected, ucase_name, "unreachable PE (tables)");
        if (!reach) { /* and through the instance's own tables */
            CUDA_OK(cudaMemset(st, 0x55, sizeof(int) * N_UCASES * LANES));
            unreachable_kernel<<<1, LANES>>>(dev, sym, local, right, st);
            CUDA_OK(cudaDeviceSynchronize());
            check_lanes(st, N_UCASES, expected, ucase_name, "unreachable PE (instance)");
        }
        /* the grid barrier, in a cooperative launch, refuses too */
        void *args[] = {&fake, &st};
        CUDA_OK(cudaMemset(st, 0x55, sizeof(int) * 2 * LANES));
        CUDA_OK(cudaLaunchCooperativeKernel((const void *)grid_barrier_kernel, dim3(2), dim3(LANES), args, 0, 0));
        CUDA_OK(cudaDeviceSynchronize());
        int grid_expected[2] = {dev.proxy.status, dev.proxy.status};
        static const char *grid_names[2] = {"grid barrier block 0", "grid barrier block 1"};
        check_lanes(st, 2, grid_expected, grid_names, "unreachable PE");
        cudaFree(fake_base);
        cudaFree(fake_ctrl);
        SH_OK(sh, shoal_barrier_all(sh));
        CUDA_OK(cudaMemcpy(local, sym, SYM_BYTES, cudaMemcpyDeviceToDevice));
        unsigned char h[SYM_BYTES];
        CUDA_OK(cudaMemcpy(h, local, SYM_BYTES, cudaMemcpyDeviceToHost));
        CHECK_MEM_FILLED(h, SYM_BYTE, SYM_BYTES);
        check_note("calls towards an unreachable PE without a proxy return %s", shoal_strerror(dev.proxy.status));
    }

    /* 4. a barrier every PE joins succeeds; one that only PE 0 joins times out */
    if (all_reach) {
        int hst = -1;
        unsigned long long ns = 0, *d_ns = NULL;
        CUDA_OK(cudaMalloc(&d_ns, sizeof(*d_ns)));
        SH_OK(sh, shoal_barrier_all(sh));
        block_barrier_kernel<<<1, 64>>>(dev, st, d_ns);
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(&hst, st, sizeof(int), cudaMemcpyDeviceToHost));
        CHECK_MSG(hst == SHOAL_SUCCESS, "barrier_all_block on every PE returned %d (%s)", hst, shoal_strerror(hst));
        SH_OK(sh, shoal_barrier_all(sh));
        if (npes >= 2 && me == 0) {
            block_barrier_kernel<<<1, 64>>>(dev, st, d_ns);
            CUDA_OK(cudaDeviceSynchronize());
            CUDA_OK(cudaMemcpy(&hst, st, sizeof(int), cudaMemcpyDeviceToHost));
            CUDA_OK(cudaMemcpy(&ns, d_ns, sizeof(ns), cudaMemcpyDeviceToHost));
            CHECK_MSG(hst == SHOAL_ERR_TIMEOUT, "barrier_all_block on PE 0 alone returned %d (%s)", hst,
                      shoal_strerror(hst));
            CHECK_MSG(ns >= 2000000000ull && ns < 30000000000ull, "it timed out after %llu ns, limit 2 s", ns);
            check_note("barrier_all_block on PE 0 alone: SHOAL_ERR_TIMEOUT after %.2f s", ns * 1e-9);
        }
        cudaFree(d_ns);
    }

    SH_OK(sh, shoal_barrier_all(sh));
    cudaFree(st);
    cudaFree(local);
    cudaFree(outside);
    SH_OK(sh, shoal_free(sh, sym));
    SH_OK(sh, shoal_finalize(sh));
    if (me == 0) printf("test_device_errors: %d PEs passed\n", npes);
    MPI_Finalize();
    return 0;
}
