/* Device RMA (shoal_device.cuh): put, get, put_nbi, get_nbi at thread, warp
 * and block scope, split over many threads, warps (a partial last warp too)
 * and blocks, for odd sizes and every relative alignment of dest and src,
 * with guard bytes around each target; a 32 MiB block put and get; the
 * typed functions of every type (p, g, put/get and their _nbi, _warp and
 * _block variants); long double moved as bytes; shoal_dev_ptr stores. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

enum { OP_PUT, OP_PUT_NBI, OP_GET, OP_GET_NBI, N_OPS };
enum { SC_THREAD, SC_WARP, SC_BLOCK, N_SCOPES };
static const char *op_name[] = {"put", "put_nbi", "get", "get_nbi"};
static const char *scope_name[] = {"thread", "warp", "block"};
/* Launch shape per scope: many threads, 100-thread blocks (a last warp of
 * 4), several blocks. */
static const int scope_grid[] = {2, 2, 3}, scope_block[] = {64, 100, 256};

#define GUARD 64
#define GUARD_BYTE 0xEE

static __device__ int do_rma(const shoal_device_t &dev, int op, int scope, void *dest, const void *src, size_t n,
                             int pe)
{
    switch (scope * N_OPS + op) {
    case SC_THREAD *N_OPS + OP_PUT: return shoal_dev_put(dev, dest, src, n, pe);
    case SC_THREAD *N_OPS + OP_PUT_NBI: return shoal_dev_put_nbi(dev, dest, src, n, pe);
    case SC_THREAD *N_OPS + OP_GET: return shoal_dev_get(dev, dest, src, n, pe);
    case SC_THREAD *N_OPS + OP_GET_NBI: return shoal_dev_get_nbi(dev, dest, src, n, pe);
    case SC_WARP *N_OPS + OP_PUT: return shoal_dev_put_warp(dev, dest, src, n, pe);
    case SC_WARP *N_OPS + OP_PUT_NBI: return shoal_dev_put_nbi_warp(dev, dest, src, n, pe);
    case SC_WARP *N_OPS + OP_GET: return shoal_dev_get_warp(dev, dest, src, n, pe);
    case SC_WARP *N_OPS + OP_GET_NBI: return shoal_dev_get_nbi_warp(dev, dest, src, n, pe);
    case SC_BLOCK *N_OPS + OP_PUT: return shoal_dev_put_block(dev, dest, src, n, pe);
    case SC_BLOCK *N_OPS + OP_PUT_NBI: return shoal_dev_put_nbi_block(dev, dest, src, n, pe);
    case SC_BLOCK *N_OPS + OP_GET: return shoal_dev_get_block(dev, dest, src, n, pe);
    case SC_BLOCK *N_OPS + OP_GET_NBI: return shoal_dev_get_nbi_block(dev, dest, src, n, pe);
    }
    return -1000;
}

/* Each thread, warp or block moves its own slice [lo, hi) of the n bytes:
 * slices have odd sizes and start at odd offsets. status[thread] = result. */
__global__ void rma_kernel(shoal_device_t dev, int op, int scope, char *dest, const char *src, size_t n, int pe,
                           int *status)
{
    unsigned gtid = blockIdx.x * blockDim.x + threadIdx.x, warps = (blockDim.x + 31) / 32;
    size_t chunks, chunk;
    if (scope == SC_THREAD) {
        chunks = (size_t)gridDim.x * blockDim.x;
        chunk = gtid;
    } else if (scope == SC_WARP) {
        chunks = (size_t)gridDim.x * warps;
        chunk = blockIdx.x * warps + threadIdx.x / 32;
    } else {
        chunks = gridDim.x;
        chunk = blockIdx.x;
    }
    size_t lo = n * chunk / chunks, hi = n * (chunk + 1) / chunks;
    int rc = do_rma(dev, op, scope, dest + lo, src + lo, hi - lo, pe);
    if (op == OP_PUT_NBI || op == OP_GET_NBI) shoal_dev_quiet();
    status[gtid] = rc;
}

/* ---- typed functions: every type but long double (no device value) ---- */

#define VALUE_TYPES(X)                                                                                                 \
    X(float, float)                                                                                                    \
    X(double, double)                                                                                                  \
    X(char, char)                                                                                                      \
    X(signed char, schar)                                                                                              \
    X(short, short)                                                                                                    \
    X(int, int)                                                                                                        \
    X(long, long)                                                                                                      \
    X(long long, longlong)                                                                                             \
    X(unsigned char, uchar)                                                                                            \
    X(unsigned short, ushort)                                                                                          \
    X(unsigned int, uint)                                                                                              \
    X(unsigned long, ulong)                                                                                            \
    X(unsigned long long, ulonglong)                                                                                   \
    X(int8_t, int8)                                                                                                    \
    X(int16_t, int16)                                                                                                  \
    X(int32_t, int32)                                                                                                  \
    X(int64_t, int64)                                                                                                  \
    X(uint8_t, uint8)                                                                                                  \
    X(uint16_t, uint16)                                                                                                \
    X(uint32_t, uint32)                                                                                                \
    X(uint64_t, uint64)                                                                                                \
    X(size_t, size)                                                                                                    \
    X(ptrdiff_t, ptrdiff)

#define TN 97  /* elements of each region (odd) */
#define TREG 7 /* regions: one per function */
#define TBLOCK 128

/* Value i of PE pe's data: small, exact in every type. */
#define TVAL(T, pe, i) ((T)((((pe)*31 + (i)*7) % 120) + 1))

/* typed_put_N: on pe's sym, region r gets src through function r;
 * typed_get_N: region r of pe's sym comes back into dst through function r. */
#define TYPED_KERNELS(T, N)                                                                                            \
    __global__ void typed_put_##N(shoal_device_t dev, T *sym, const T *src, int pe, int *st)                           \
    {                                                                                                                  \
        unsigned t = threadIdx.x;                                                                                      \
        if (t == 0) st[0] = shoal_dev_##N##_put(dev, sym + 0 * TN, src, TN, pe);                                       \
        if (t == 0) st[1] = shoal_dev_##N##_put_nbi(dev, sym + 1 * TN, src, TN, pe);                                   \
        if (t < 32) st[2] = shoal_dev_##N##_put_warp(dev, sym + 2 * TN, src, TN, pe);                                  \
        if (t >= 32 && t < 64) st[3] = shoal_dev_##N##_put_nbi_warp(dev, sym + 3 * TN, src, TN, pe);                   \
        int rc = shoal_dev_##N##_put_block(dev, sym + 4 * TN, src, TN, pe);                                            \
        if (t == 0) st[4] = rc;                                                                                        \
        rc = shoal_dev_##N##_put_nbi_block(dev, sym + 5 * TN, src, TN, pe);                                            \
        if (t == 0) st[5] = rc;                                                                                        \
        if (t < TN) {                                                                                                  \
            rc = shoal_dev_##N##_p(dev, sym + 6 * TN + t, src[t], pe);                                                 \
            if (rc != SHOAL_SUCCESS) st[6] = rc;                                                                       \
        }                                                                                                              \
        shoal_dev_quiet();                                                                                             \
    }                                                                                                                  \
    __global__ void typed_get_##N(shoal_device_t dev, T *dst, const T *sym, int pe, int *st)                           \
    {                                                                                                                  \
        unsigned t = threadIdx.x;                                                                                      \
        if (t == 0) st[0] = shoal_dev_##N##_get(dev, dst + 0 * TN, sym + 0 * TN, TN, pe);                              \
        if (t == 0) st[1] = shoal_dev_##N##_get_nbi(dev, dst + 1 * TN, sym + 1 * TN, TN, pe);                          \
        if (t < 32) st[2] = shoal_dev_##N##_get_warp(dev, dst + 2 * TN, sym + 2 * TN, TN, pe);                         \
        if (t >= 32 && t < 64) st[3] = shoal_dev_##N##_get_nbi_warp(dev, dst + 3 * TN, sym + 3 * TN, TN, pe);          \
        int rc = shoal_dev_##N##_get_block(dev, dst + 4 * TN, sym + 4 * TN, TN, pe);                                   \
        if (t == 0) st[4] = rc;                                                                                        \
        rc = shoal_dev_##N##_get_nbi_block(dev, dst + 5 * TN, sym + 5 * TN, TN, pe);                                   \
        if (t == 0) st[5] = rc;                                                                                        \
        if (t < TN) {                                                                                                  \
            rc = shoal_dev_##N##_g(dev, dst + 6 * TN + t, sym + 6 * TN + t, pe);                                       \
            if (rc != SHOAL_SUCCESS) st[6] = rc;                                                                       \
        }                                                                                                              \
        shoal_dev_quiet();                                                                                             \
    }
VALUE_TYPES(TYPED_KERNELS)

#define LD_HOST_SIZE 16 /* sizeof(long double) on the x86-64 host */

/* Generic templates and long double moved as bytes. */
__global__ void generic_kernel(shoal_device_t dev, long *cells, long double *ld_sym, const long double *ld_src, int pe,
                               int *st)
{
    long v = -1;
    st[0] = shoal_dev_p(dev, &cells[0], 4242, pe); /* 4242 converts to long */
    shoal_dev_quiet();
    st[1] = shoal_dev_g(dev, &v, &cells[0], pe);
    st[2] = v == 4242 ? SHOAL_SUCCESS : -2000;
    st[3] = shoal_dev_longdouble_put(dev, ld_sym, ld_src, 5, pe);
    /* device code sizes long double as 8 bytes: offset by the host's size */
    st[4] = shoal_dev_longdouble_put_block(dev, (long double *)((char *)ld_sym + 5 * LD_HOST_SIZE), ld_src, 5, pe);
    shoal_dev_quiet();
}

/* Stores straight through shoal_dev_ptr. */
__global__ void ptr_kernel(shoal_device_t dev, int *sym, int n, int pe, int value, int *st)
{
    int *peer = (int *)shoal_dev_ptr(dev, sym, pe);
    if (peer == NULL) {
        st[0] = -3000;
        return;
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) peer[i] = value + i;
    if (threadIdx.x == 0) st[0] = SHOAL_SUCCESS;
}

static int me, npes, right, left;

static void check_status(const int *d_status, int n, const char *what)
{
    int *h = (int *)malloc(sizeof(int) * (size_t)n);
    CHECK(h != NULL);
    CUDA_OK(cudaMemcpy(h, d_status, sizeof(int) * (size_t)n, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        CHECK_MSG(h[i] == SHOAL_SUCCESS, "%s: thread %d returned %d (%s)", what, i, h[i], shoal_strerror(h[i]));
    free(h);
}

/* Device buffer region [0, off + n + GUARD): the pattern of (pe, kase) at
 * [off, off + n), GUARD_BYTE around it. */
static void check_region(const char *d, size_t off, size_t n, int pe, int kase, const char *what)
{
    size_t total = off + n + GUARD;
    unsigned char *h = (unsigned char *)malloc(total), *want = (unsigned char *)malloc(n + 1);
    CHECK(h != NULL && want != NULL);
    CUDA_OK(cudaMemcpy(h, d, total, cudaMemcpyDeviceToHost));
    test_pattern(want, 0, n, 77, (uint64_t)pe, (uint64_t)kase);
    for (size_t i = 0; i < off; i++)
        CHECK_MSG(h[i] == GUARD_BYTE, "%s: guard byte %zu before the target was overwritten (%#x)", what, off - i,
                  h[i]);
    long long diff = check_first_diff(h + off, want, n);
    CHECK_MSG(diff < 0, "%s: byte %lld of %zu is %#x, expected %#x", what, diff, n, diff < 0 ? 0 : h[off + diff],
              diff < 0 ? 0 : want[diff]);
    for (size_t i = 0; i < GUARD; i++)
        CHECK_MSG(h[off + n + i] == GUARD_BYTE, "%s: guard byte %zu after the target was overwritten (%#x)", what, i,
                  h[off + n + i]);
    free(h);
    free(want);
}

/* Fill a device buffer: guard bytes over [0, off + n + GUARD), the pattern at off. */
static void fill_region(char *d, size_t off, size_t n, int pe, int kase)
{
    unsigned char *h = (unsigned char *)malloc(n + 1);
    CHECK(h != NULL);
    test_pattern(h, 0, n, 77, (uint64_t)pe, (uint64_t)kase);
    CUDA_OK(cudaMemset(d, GUARD_BYTE, off + n + GUARD));
    CUDA_OK(cudaMemcpy(d + off, h, n, cudaMemcpyHostToDevice));
    free(h);
}

/* One case on every PE: op to/from the right neighbour. */
static void run_case(shoal_t sh, const shoal_device_t &dev, int op, int scope, int grid, int block, size_t n,
                     size_t doff, size_t soff, char *sym_dst, char *sym_src, char *loc_src, char *loc_dst,
                     int *d_status, int kase)
{
    char what[160];
    bool is_put = op == OP_PUT || op == OP_PUT_NBI;
    snprintf(what, sizeof(what), "%s_%s of %zu bytes, dest +%zu, src +%zu, <<<%d, %d>>>", op_name[op],
             scope_name[scope], n, doff, soff, grid, block);
    if (is_put) {
        fill_region(loc_src, soff, n, me, kase);
        CUDA_OK(cudaMemset(sym_dst, GUARD_BYTE, doff + n + GUARD));
    } else {
        fill_region(sym_src, soff, n, me, kase);
        CUDA_OK(cudaMemset(loc_dst, GUARD_BYTE, doff + n + GUARD));
    }
    CUDA_OK(cudaMemset(d_status, 0xff, sizeof(int) * (size_t)grid * block));
    CUDA_OK(cudaDeviceSynchronize()); /* the guards are in place before a neighbour writes */
    SH_OK(sh, shoal_barrier_all(sh));
    if (is_put)
        rma_kernel<<<grid, block>>>(dev, op, scope, sym_dst + doff, loc_src + soff, n, right, d_status);
    else
        rma_kernel<<<grid, block>>>(dev, op, scope, loc_dst + doff, sym_src + soff, n, right, d_status);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    check_status(d_status, grid * block, what);
    SH_OK(sh, shoal_barrier_all(sh));
    if (is_put)
        check_region(sym_dst, doff, n, left, kase, what);
    else
        check_region(loc_dst, doff, n, right, kase, what);
    /* nobody refills its source while a neighbour may still read it */
    SH_OK(sh, shoal_barrier_all(sh));
}

#define RUN_TYPED(T, N)                                                                                                \
    {                                                                                                                  \
        T hsrc[TN], hgot[TREG * TN];                                                                                   \
        T *sym = (T *)shoal_malloc(sh, sizeof(T) * TREG * TN);                                                         \
        CHECK_MSG(sym != NULL, "shoal_malloc: %s", shoal_last_error(sh));                                              \
        for (int i = 0; i < TN; i++) hsrc[i] = TVAL(T, me, i);                                                         \
        CUDA_OK(cudaMemcpy(tsrc, hsrc, sizeof(hsrc), cudaMemcpyHostToDevice));                                         \
        CUDA_OK(cudaMemset(sym, 0, sizeof(T) * TREG * TN));                                                            \
        CUDA_OK(cudaMemset(d_status, 0, sizeof(int) * TREG));                                                          \
        CUDA_OK(cudaDeviceSynchronize());                                                                              \
        SH_OK(sh, shoal_barrier_all(sh));                                                                              \
        typed_put_##N<<<1, TBLOCK>>>(dev, sym, (const T *)tsrc, right, d_status);                                      \
        CUDA_OK(cudaDeviceSynchronize());                                                                              \
        check_status(d_status, TREG, "typed put " #N);                                                                 \
        SH_OK(sh, shoal_barrier_all(sh));                                                                              \
        CUDA_OK(cudaMemcpy(hgot, sym, sizeof(hgot), cudaMemcpyDeviceToHost));                                          \
        for (int r = 0; r < TREG; r++)                                                                                 \
            for (int i = 0; i < TN; i++)                                                                               \
                CHECK_MSG(hgot[r * TN + i] == TVAL(T, left, i), "typed put " #N ": region %d element %d", r, i);       \
        /* right's sym holds what I put: get it back */                                                                \
        CUDA_OK(cudaMemset(tdst, 0, sizeof(T) * TREG * TN));                                                           \
        typed_get_##N<<<1, TBLOCK>>>(dev, (T *)tdst, sym, right, d_status);                                            \
        CUDA_OK(cudaDeviceSynchronize());                                                                              \
        check_status(d_status, TREG, "typed get " #N);                                                                 \
        CUDA_OK(cudaMemcpy(hgot, tdst, sizeof(hgot), cudaMemcpyDeviceToHost));                                         \
        for (int r = 0; r < TREG; r++)                                                                                 \
            for (int i = 0; i < TN; i++)                                                                               \
                CHECK_MSG(hgot[r * TN + i] == TVAL(T, me, i), "typed get " #N ": region %d element %d", r, i);         \
        SH_OK(sh, shoal_barrier_all(sh));                                                                              \
        SH_OK(sh, shoal_free(sh, sym));                                                                                \
        ntyped++;                                                                                                      \
    }

int main(int argc, char **argv)
{
    shoal_t sh;
    shoal_device_t dev;
    const size_t max_small = ((size_t)1 << 20) + 7, big = ((size_t)32 << 20) + 5;
    const size_t buf_bytes = big + 256;

    gpu_test_start(&argc, &argv);
    sh = gpu_test_instance((size_t)256 << 20);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    SH_OK(sh, shoal_device_get(sh, &dev));
    CHECK_EQ_INT(dev.my_pe, me);
    CHECK_EQ_INT(dev.n_pes, npes);
    CHECK_EQ_INT(shoal_device_reachable(sh, right), 1);

    char *sym_dst = (char *)shoal_malloc(sh, buf_bytes);
    char *sym_src = (char *)shoal_malloc(sh, buf_bytes);
    CHECK_MSG(sym_dst != NULL && sym_src != NULL, "shoal_malloc: %s", shoal_last_error(sh));
    char *loc_src = NULL, *loc_dst = NULL;
    int *d_status = NULL;
    CUDA_OK(cudaMalloc(&loc_src, buf_bytes));
    CUDA_OK(cudaMalloc(&loc_dst, buf_bytes));
    CUDA_OK(cudaMalloc(&d_status, sizeof(int) * 1024 * 256));

    /* 1. every op and scope, sizes around the vector width, every relative
     * alignment (the widths 16, 8, 4, 2, 1 bytes) */
    const size_t sizes[] = {0, 1, 3, 15, 16, 17, 100, 255, 4096, 4099, 65541, max_small};
    const size_t offs[][2] = {{0, 0}, {3, 3}, {1, 5}, {8, 0}, {2, 6}, {1, 3}, {16, 48}};
    int kase = 0;
    for (int op = 0; op < N_OPS; op++)
        for (int scope = 0; scope < N_SCOPES; scope++)
            for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
                for (size_t o = 0; o < sizeof(offs) / sizeof(offs[0]); o++, kase++)
                    run_case(sh, dev, op, scope, scope_grid[scope], scope_block[scope], sizes[s], offs[o][0],
                             offs[o][1], sym_dst, sym_src, loc_src, loc_dst, d_status, kase);
    check_note("%d cases of put/get/put_nbi/get_nbi x thread/warp/block passed", kase);

    /* 2. big block-scope transfers over many blocks, 1024 threads each */
    run_case(sh, dev, OP_PUT, SC_BLOCK, 132, 1024, big, 3, 3, sym_dst, sym_src, loc_src, loc_dst, d_status, kase++);
    run_case(sh, dev, OP_GET, SC_BLOCK, 132, 1024, big, 16, 0, sym_dst, sym_src, loc_src, loc_dst, d_status, kase++);
    run_case(sh, dev, OP_PUT_NBI, SC_WARP, 64, 256, big, 0, 0, sym_dst, sym_src, loc_src, loc_dst, d_status, kase++);

    /* 3. typed functions of every type */
    void *tsrc = NULL, *tdst = NULL;
    int ntyped = 0;
    CUDA_OK(cudaMalloc(&tsrc, 16 * TN));
    CUDA_OK(cudaMalloc(&tdst, 16 * TREG * TN));
    VALUE_TYPES(RUN_TYPED)
    check_note("typed put/get/p/g and their _nbi/_warp/_block variants of %d types passed", ntyped);

    /* 4. generic p/g templates; long double as bytes (host values, unchanged) */
    {
        long *cells = (long *)shoal_calloc(sh, 4, sizeof(long));
        long double *ld_sym = (long double *)shoal_calloc(sh, 10, sizeof(long double));
        long double ld_h[5], ld_got[10];
        long double *ld_src = NULL;
        CHECK(cells != NULL && ld_sym != NULL);
        for (int i = 0; i < 5; i++) ld_h[i] = (long double)1.0 / (3 + i + me) + (long double)1e-19 * i;
        CUDA_OK(cudaMalloc(&ld_src, sizeof(ld_h)));
        CUDA_OK(cudaMemcpy(ld_src, ld_h, sizeof(ld_h), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(d_status, 0, sizeof(int) * 8));
        SH_OK(sh, shoal_barrier_all(sh));
        generic_kernel<<<1, 64>>>(dev, cells, ld_sym, ld_src, right, d_status);
        CUDA_OK(cudaDeviceSynchronize());
        check_status(d_status, 5, "generic p/g, long double put");
        SH_OK(sh, shoal_barrier_all(sh));
        CUDA_OK(cudaMemcpy(ld_got, ld_sym, sizeof(ld_got), cudaMemcpyDeviceToHost));
        for (int i = 0; i < 10; i++) {
            long double want = (long double)1.0 / (3 + i % 5 + left) + (long double)1e-19 * (i % 5);
            CHECK_MSG(memcmp(&ld_got[i], &want, 10) == 0, "long double %d: %Lg, expected %Lg", i, ld_got[i], want);
        }
        SH_OK(sh, shoal_barrier_all(sh));
        cudaFree(ld_src);
        SH_OK(sh, shoal_free(sh, ld_sym));
        SH_OK(sh, shoal_free(sh, cells));
    }

    /* 5. shoal_dev_ptr: plain stores into the neighbour's heap */
    {
        int *ints = (int *)shoal_malloc(sh, 1000 * sizeof(int)), h[1000];
        CHECK(ints != NULL);
        SH_OK(sh, shoal_barrier_all(sh));
        ptr_kernel<<<1, 256>>>(dev, ints, 1000, right, 100000 * me, d_status);
        CUDA_OK(cudaDeviceSynchronize());
        check_status(d_status, 1, "shoal_dev_ptr");
        SH_OK(sh, shoal_barrier_all(sh));
        CUDA_OK(cudaMemcpy(h, ints, sizeof(h), cudaMemcpyDeviceToHost));
        for (int i = 0; i < 1000; i++) CHECK_EQ_INT(h[i], 100000 * left + i);
        SH_OK(sh, shoal_barrier_all(sh));
        SH_OK(sh, shoal_free(sh, ints));
    }

    /* 6. The near window in the struct agrees with the device arrays, and
     * the arrays alone (a PE outside the window) move the same data. */
    {
        char **base = (char **)calloc((size_t)npes, sizeof(char *));
        unsigned **ctrl = (unsigned **)calloc((size_t)npes, sizeof(unsigned *));
        int all = 1;
        CHECK(base != NULL && ctrl != NULL);
        CUDA_OK(cudaMemcpy(base, dev.peer_base, npes * sizeof(char *), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(ctrl, dev.peer_ctrl, npes * sizeof(unsigned *), cudaMemcpyDeviceToHost));
        CHECK_MSG(dev.near_first <= me && me < dev.near_first + SHOAL_DEVICE_NEAR_PES, "near window [%d, %d) for PE %d",
                  dev.near_first, dev.near_first + SHOAL_DEVICE_NEAR_PES, me);
        for (int k = 0; k < SHOAL_DEVICE_NEAR_PES; k++) {
            int pe = dev.near_first + k;
            CHECK_MSG(dev.near_base[k] == (pe < npes ? base[pe] : NULL), "near_base[%d] %p, PE %d's %p", k,
                      (void *)dev.near_base[k], pe, pe < npes ? (void *)base[pe] : NULL);
            CHECK_MSG(dev.near_ctrl[k] == (pe < npes ? ctrl[pe] : NULL), "near_ctrl[%d] %p, PE %d's %p", k,
                      (void *)dev.near_ctrl[k], pe, pe < npes ? (void *)ctrl[pe] : NULL);
        }
        for (int pe = 0; pe < npes; pe++) all &= shoal_device_reachable(sh, pe) == 1;
        CHECK_EQ_INT(dev.barrier_ok, all);
        free(base);
        free(ctrl);

        shoal_device_t far = dev;
        far.near_first = npes; /* no PE in the window */
        for (int k = 0; k < SHOAL_DEVICE_NEAR_PES; k++) {
            far.near_base[k] = NULL;
            far.near_ctrl[k] = NULL;
        }
        run_case(sh, far, OP_PUT, SC_THREAD, 2, 64, 4099, 1, 5, sym_dst, sym_src, loc_src, loc_dst, d_status, kase++);
        run_case(sh, far, OP_GET, SC_BLOCK, 3, 256, 65541, 16, 48, sym_dst, sym_src, loc_src, loc_dst, d_status,
                 kase++);
        run_case(sh, far, OP_PUT_NBI, SC_WARP, 2, 100, 4096, 0, 0, sym_dst, sym_src, loc_src, loc_dst, d_status,
                 kase++);
        check_note("near window [%d, %d), barrier_ok %d; puts and gets through the device arrays alone passed",
                   dev.near_first, dev.near_first + SHOAL_DEVICE_NEAR_PES, dev.barrier_ok);
    }

    cudaFree(tsrc);
    cudaFree(tdst);
    cudaFree(d_status);
    cudaFree(loc_src);
    cudaFree(loc_dst);
    SH_OK(sh, shoal_free(sh, sym_src));
    SH_OK(sh, shoal_free(sh, sym_dst));
    SH_OK(sh, shoal_finalize(sh));
    if (me == 0) printf("test_device_rma: %d PEs passed\n", npes);
    MPI_Finalize();
    return 0;
}
