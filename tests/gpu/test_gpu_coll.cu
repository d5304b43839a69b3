/* Team collectives on GPU heaps: on streams (shoal_cuda.h) and in kernels
 * (shoal_device.cuh), against references computed on the host.
 *
 * 1. On streams, on the world team, the node team and (3 PEs or more) the
 *    even PEs: broadcast (every root), fcollect, alltoall, collect (each PE
 *    its own count), alltoalls, and every reduction operator of int32,
 *    uint64, int8, float and double (sum, prod, min, max; and, or, xor for
 *    the integers), plus a complex and a long double sum (the host's path);
 *    the same reduce-scatters (each member's block of every src);
 *    sizes 0, 1, 37 (one kernel), 100003 (copy engines and grids) and
 *    64 MiB of float (a sum); in place; a root mismatch reported on every PE;
 *    a reduce-scatter in place refused on every PE.
 * 2. A CUDA graph captured once (a kernel that bumps src, a sum reduction,
 *    an fcollect, a sum reduce-scatter of the fcollect's result) and
 *    replayed 20 times, the results checked each time.
 *    Where PEs share a GPU without MPS the capture is refused
 *    (SHOAL_ERR_UNSUPPORTED), which is checked instead.
 * 3. In kernels, block and warp scope, on the world team: barrier,
 *    broadcast, fcollect, alltoall, sum/min/max reductions of float and
 *    int64, float sum/min, int64 max/xor reduce-scatters (0 elements too,
 *    and one in place refused) (needs concurrent kernels: skipped without
 *    MPS where PEs share a GPU). */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

static int me, npes;
static shoal_t sh;
static cudaStream_t st;

/* PE p's element i of a source buffer: small, distinct, exact in float. */
static double val(int p, size_t i, int salt) { return (double)(((i * 7 + (size_t)p * 13 + (size_t)salt) % 23) + 1); }

template <typename T> static void fill_src(T *dev_src, size_t n, int salt)
{
    T *h = (T *)malloc((n ? n : 1) * sizeof(T));
    CHECK(h != NULL);
    for (size_t i = 0; i < n; i++) h[i] = (T)val(me, i, salt);
    /* On st, then waited for: a cudaMemcpy from pageable memory may return
     * before the data reached the device, and st does not wait for it. */
    CUDA_OK(cudaMemcpyAsync(dev_src, h, n * sizeof(T), cudaMemcpyHostToDevice, st));
    CUDA_OK(cudaStreamSynchronize(st));
    free(h);
}

template <typename T> static T *fetch(const T *dev, size_t n)
{
    T *h = (T *)malloc((n ? n : 1) * sizeof(T));
    CHECK(h != NULL);
    CUDA_OK(cudaStreamSynchronize(st));
    CUDA_OK(cudaMemcpy(h, dev, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

enum { OP_SUM, OP_PROD, OP_MIN, OP_MAX, OP_AND, OP_OR, OP_XOR };
static const char *op_names[] = {"sum", "prod", "min", "max", "and", "or", "xor"};

template <typename T> static T ref_op(int op, T a, T b)
{
    switch (op) {
    case OP_SUM: return (T)(a + b);
    case OP_PROD: return (T)(a * b);
    case OP_MIN: return b < a ? b : a;
    default: return b > a ? b : a;
    }
}
template <typename T> static T ref_bit(int op, T a, T b)
{
    return op == OP_AND ? (T)(a & b) : op == OP_OR ? (T)(a | b) : op == OP_XOR ? (T)(a ^ b) : ref_op(op, a, b);
}

/* The members' PEs of team (world numbering). */
static void members(shoal_team_t team, int *pes, int *n)
{
    *n = shoal_team_n_pes(team);
    for (int i = 0; i < *n; i++) pes[i] = shoal_team_translate_pe(team, i, shoal_team_world(sh));
}

typedef int (*reduce_fn)(shoal_team_t, void *, const void *, size_t, cudaStream_t);

#define REDUCE_FN(T, N, OP)                                                                                            \
    [](shoal_team_t t, void *d, const void *s, size_t n, cudaStream_t q) {                                             \
        return shoal_##N##_##OP##_reduce_on_stream(t, (T *)d, (const T *)s, n, q);                                     \
    }

template <typename T, bool BITS>
static void check_reduce(shoal_team_t team, const char *tname, const reduce_fn *fns, int nops, size_t n, bool in_place,
                         T *dsrc, T *ddst)
{
    int pes[64], m;
    members(team, pes, &m);
    for (int op = 0; op < nops; op++) {
        fill_src(dsrc, n, op);
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
        SH_OK(sh, fns[op](team, in_place ? dsrc : ddst, dsrc, n, st));
        T *got = fetch(in_place ? dsrc : ddst, n);
        for (size_t i = 0; i < n; i++) {
            T want = (T)val(pes[0], i, op);
            for (int k = 1; k < m; k++) {
                if constexpr (BITS)
                    want = ref_bit<T>(op, want, (T)val(pes[k], i, op));
                else
                    want = ref_op<T>(op, want, (T)val(pes[k], i, op));
            }
            if (got[i] != want) {
                CHECK_MSG(false, "%s_%s_reduce_on_stream of %zu (team of %d%s): element %zu is %g, want %g", tname,
                          op_names[op], n, m, in_place ? ", in place" : "", i, (double)got[i], (double)want);
                break;
            }
        }
        free(got);
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    }
}

#define RS_FN(T, N, OP)                                                                                                \
    [](shoal_team_t t, void *d, const void *s, size_t n, cudaStream_t q) {                                             \
        return shoal_##N##_##OP##_reducescatter_on_stream(t, (T *)d, (const T *)s, n, q);                              \
    }

/* Reduce-scatters of n elements a block: PE p's src element x is
 * val(p, x), so this member's dest element i wants block my's element i
 * combined over the members. */
template <typename T, bool BITS>
static void check_reducescatter(shoal_team_t team, const char *tname, const reduce_fn *fns, int nops, size_t n, T *dsrc,
                                T *ddst)
{
    int pes[64], m;
    members(team, pes, &m);
    size_t my = (size_t)shoal_team_my_pe(team);
    for (int op = 0; op < nops; op++) {
        fill_src(dsrc, n * (size_t)m, op + 20);
        CUDA_OK(cudaMemsetAsync(ddst, 0x5a, (n + 4) * sizeof(T), st));
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
        SH_OK(sh, fns[op](team, ddst, dsrc, n, st));
        T *got = fetch(ddst, n + 4);
        for (size_t i = 0; i < n; i++) {
            T want = (T)val(pes[0], my * n + i, op + 20);
            for (int k = 1; k < m; k++) {
                if constexpr (BITS)
                    want = ref_bit<T>(op, want, (T)val(pes[k], my * n + i, op + 20));
                else
                    want = ref_op<T>(op, want, (T)val(pes[k], my * n + i, op + 20));
            }
            if (got[i] != want) {
                CHECK_MSG(false,
                          "%s_%s_reducescatter_on_stream of %zu (team of %d, team PE %zu): element %zu is %g, "
                          "want %g",
                          tname, op_names[op], n, m, my, i, (double)got[i], (double)want);
                break;
            }
        }
        /* nothing written past dest */
        const unsigned char *tail = (const unsigned char *)(got + n);
        for (size_t b = 0; b < 4 * sizeof(T); b++)
            if (tail[b] != 0x5a) {
                CHECK_MSG(false, "%s_%s_reducescatter_on_stream of %zu: byte %zu after dest was written", tname,
                          op_names[op], n, b);
                break;
            }
        free(got);
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    }
}

static void stream_data(shoal_team_t team, size_t n, int *buf_src, int *buf_dst)
{
    int pes[64], m;
    members(team, pes, &m);
    int my = shoal_team_my_pe(team);

    /* broadcast from every root */
    for (int root = 0; root < m; root++) {
        fill_src(buf_src, n, root);
        CUDA_OK(cudaMemsetAsync(buf_dst, 0xff, n * sizeof(int), st));
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
        SH_OK(sh, shoal_int_broadcast_on_stream(team, buf_dst, buf_src, n, root, st));
        int *got = fetch(buf_dst, n);
        for (size_t i = 0; i < n; i++)
            if (got[i] != (int)val(pes[root], i, root)) {
                CHECK_MSG(false, "broadcast_on_stream of %zu from root %d: element %zu is %d", n, root, i, got[i]);
                break;
            }
        free(got);
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    }
    /* fcollect */
    fill_src(buf_src, n, 5);
    SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    SH_OK(sh, shoal_int_fcollect_on_stream(team, buf_dst, buf_src, n, st));
    {
        int *got = fetch(buf_dst, n * (size_t)m);
        for (int k = 0; k < m; k++)
            for (size_t i = 0; i < n; i++)
                if (got[(size_t)k * n + i] != (int)val(pes[k], i, 5)) {
                    CHECK_MSG(false, "fcollect_on_stream of %zu: block %d element %zu is %d", n, k, i,
                              got[(size_t)k * n + i]);
                    k = m;
                    break;
                }
        free(got);
    }
    SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    /* alltoall: block j of PE p's src holds val(p, j * n + i) */
    fill_src(buf_src, n * (size_t)m, 6);
    SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    SH_OK(sh, shoal_int_alltoall_on_stream(team, buf_dst, buf_src, n, st));
    {
        int *got = fetch(buf_dst, n * (size_t)m);
        for (int k = 0; k < m; k++)
            for (size_t i = 0; i < n; i++)
                if (got[(size_t)k * n + i] != (int)val(pes[k], (size_t)my * n + i, 6)) {
                    CHECK_MSG(false, "alltoall_on_stream of %zu: block %d element %zu is %d", n, k, i,
                              got[(size_t)k * n + i]);
                    k = m;
                    break;
                }
        free(got);
    }
    SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    /* collect: member k contributes k + 1 elements (less when n is small) */
    {
        size_t mine = n < 2 ? n : (size_t)my % 3 == 0 ? 0 : n / 2 + (size_t)my, total = 0;
        fill_src(buf_src, mine, 7);
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
        SH_OK(sh, shoal_int_collect_on_stream(team, buf_dst, buf_src, mine, st));
        size_t counts[64];
        for (int k = 0; k < m; k++) total += counts[k] = n < 2 ? n : (size_t)k % 3 == 0 ? 0 : n / 2 + (size_t)k;
        int *got = fetch(buf_dst, total);
        size_t at = 0;
        for (int k = 0; k < m; k++)
            for (size_t i = 0; i < counts[k]; i++, at++)
                if (got[at] != (int)val(pes[k], i, 7)) {
                    CHECK_MSG(false, "collect_on_stream: member %d element %zu is %d", k, i, got[at]);
                    k = m;
                    break;
                }
        free(got);
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    }
}

/* Buffers of the stream sections, allocated by every PE (shoal_malloc is
 * collective over the instance, not the team). */
#define MOST_BYTES ((size_t)100003 * 8 * 8)
static int32_t *a, *b;

static void stream_section(shoal_team_t team, const char *name)
{
    static const size_t sizes[] = {0, 1, 37, 100003};
    int m = shoal_team_n_pes(team);
    size_t most = MOST_BYTES / 8;
    CHECK(m <= 8);

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        stream_data(team, n, a, b);
        {
            static const reduce_fn f[] = {REDUCE_FN(int32_t, int32, sum), REDUCE_FN(int32_t, int32, prod),
                                          REDUCE_FN(int32_t, int32, min), REDUCE_FN(int32_t, int32, max),
                                          REDUCE_FN(int32_t, int32, and), REDUCE_FN(int32_t, int32, or),
                                          REDUCE_FN(int32_t, int32, xor)};
            check_reduce<int32_t, true>(team, "int32", f, 7, n, false, a, b);
            check_reduce<int32_t, true>(team, "int32", f, 7, n, true, a, b);
        }
        {
            static const reduce_fn f[] = {REDUCE_FN(uint64_t, uint64, sum), REDUCE_FN(uint64_t, uint64, prod),
                                          REDUCE_FN(uint64_t, uint64, min), REDUCE_FN(uint64_t, uint64, max),
                                          REDUCE_FN(uint64_t, uint64, and), REDUCE_FN(uint64_t, uint64, or),
                                          REDUCE_FN(uint64_t, uint64, xor)};
            check_reduce<uint64_t, true>(team, "uint64", f, 7, n, false, (uint64_t *)a, (uint64_t *)b);
        }
        {
            static const reduce_fn f[] = {REDUCE_FN(int8_t, int8, sum), REDUCE_FN(int8_t, int8, prod),
                                          REDUCE_FN(int8_t, int8, min), REDUCE_FN(int8_t, int8, max),
                                          REDUCE_FN(int8_t, int8, and), REDUCE_FN(int8_t, int8, or),
                                          REDUCE_FN(int8_t, int8, xor)};
            check_reduce<int8_t, true>(team, "int8", f, 7, n, false, (int8_t *)a, (int8_t *)b);
        }
        {
            static const reduce_fn f[] = {REDUCE_FN(float, float, sum), REDUCE_FN(float, float, prod),
                                          REDUCE_FN(float, float, min), REDUCE_FN(float, float, max)};
            check_reduce<float, false>(team, "float", f, 4, n, false, (float *)a, (float *)b);
            check_reduce<float, false>(team, "float", f, 4, n, true, (float *)a, (float *)b);
        }
        {
            static const reduce_fn f[] = {REDUCE_FN(double, double, sum), REDUCE_FN(double, double, prod),
                                          REDUCE_FN(double, double, min), REDUCE_FN(double, double, max)};
            check_reduce<double, false>(team, "double", f, 4, n, false, (double *)a, (double *)b);
        }
        {
            /* long double: the host's path (nvcc has no device long double) */
            static const reduce_fn f[] = {REDUCE_FN(long double, longdouble, sum)};
            if (n * sizeof(long double) <= most * 8)
                check_reduce<long double, false>(team, "longdouble", f, 1, n, false, (long double *)a,
                                                 (long double *)b);
        }
        /* reduce-scatters: src holds m blocks of n (at most 100003 * 8 elements of 8 bytes) */
        {
            static const reduce_fn f[] = {RS_FN(int32_t, int32, sum), RS_FN(int32_t, int32, prod),
                                          RS_FN(int32_t, int32, min), RS_FN(int32_t, int32, max),
                                          RS_FN(int32_t, int32, and), RS_FN(int32_t, int32, or),
                                          RS_FN(int32_t, int32, xor)};
            check_reducescatter<int32_t, true>(team, "int32", f, 7, n, a, b);
        }
        {
            static const reduce_fn f[] = {RS_FN(uint64_t, uint64, sum), RS_FN(uint64_t, uint64, prod),
                                          RS_FN(uint64_t, uint64, min), RS_FN(uint64_t, uint64, max),
                                          RS_FN(uint64_t, uint64, and), RS_FN(uint64_t, uint64, or),
                                          RS_FN(uint64_t, uint64, xor)};
            check_reducescatter<uint64_t, true>(team, "uint64", f, 7, n, (uint64_t *)a, (uint64_t *)b);
        }
        {
            static const reduce_fn f[] = {RS_FN(int8_t, int8, sum), RS_FN(int8_t, int8, prod), RS_FN(int8_t, int8, min),
                                          RS_FN(int8_t, int8, max), RS_FN(int8_t, int8, and),  RS_FN(int8_t, int8, or),
                                          RS_FN(int8_t, int8, xor)};
            check_reducescatter<int8_t, true>(team, "int8", f, 7, n, (int8_t *)a, (int8_t *)b);
        }
        {
            static const reduce_fn f[] = {RS_FN(float, float, sum), RS_FN(float, float, prod), RS_FN(float, float, min),
                                          RS_FN(float, float, max)};
            check_reducescatter<float, false>(team, "float", f, 4, n, (float *)a, (float *)b);
        }
        {
            static const reduce_fn f[] = {RS_FN(double, double, sum), RS_FN(double, double, prod),
                                          RS_FN(double, double, min), RS_FN(double, double, max)};
            check_reducescatter<double, false>(team, "double", f, 4, n, (double *)a, (double *)b);
        }
        {
            /* long double: the host's path */
            static const reduce_fn f[] = {RS_FN(long double, longdouble, sum)};
            if (n * (size_t)m * sizeof(long double) <= MOST_BYTES)
                check_reducescatter<long double, false>(team, "longdouble", f, 1, n, (long double *)a,
                                                        (long double *)b);
        }
    }
    /* a reduce-scatter in place: refused on every member, none waits */
    {
        int rc = shoal_int_sum_reducescatter_on_stream(team, a, a, 3, st);
        CHECK_MSG(rc == SHOAL_ERR_INVALID_ARG && strstr(shoal_last_error(sh), "shoal_int_sum_reducescatter_on_stream"),
                  "a reduce-scatter in place on a stream: %d %s", rc, shoal_last_error(sh));
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    }
    /* alltoalls (the host's path): strides 2 and 3 */
    {
        size_t n = 5;
        int pes[64], mm;
        members(team, pes, &mm);
        fill_src(a, n * 3 * (size_t)mm, 8);
        CUDA_OK(cudaMemset(b, 0, n * 2 * (size_t)mm * sizeof(int)));
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
        SH_OK(sh, shoal_int_alltoalls_on_stream(team, b, a, 2, 3, n, st));
        int *got = fetch(b, n * 2 * (size_t)mm);
        int my = shoal_team_my_pe(team);
        for (int k = 0; k < mm; k++)
            for (size_t i = 0; i < n; i++) {
                int want = (int)val(pes[k], ((size_t)my * n + i) * 3, 8);
                CHECK_MSG(got[((size_t)k * n + i) * 2] == want,
                          "alltoalls_on_stream: block %d element %zu is %d, want %d", k, i,
                          got[((size_t)k * n + i) * 2], want);
            }
        free(got);
        SH_OK(sh, shoal_team_barrier_on_stream(team, st));
    }
    check_note("%s team (%d PEs): stream collectives match the host's reference", name, m);
}

/* 64 MiB of float summed on a stream. */
static void stream_big(void)
{
    size_t n = (size_t)16 << 20;
    float *a = (float *)shoal_malloc(sh, n * sizeof(float));
    CHECK_MSG(a != NULL, "shoal_malloc of 64 MiB: %s", shoal_last_error(sh));
    fill_src(a, n, 3);
    SH_OK(sh, shoal_team_barrier_on_stream(shoal_team_world(sh), st));
    SH_OK(sh, shoal_float_sum_reduce_on_stream(shoal_team_world(sh), a, a, n, st));
    float *got = fetch(a, n);
    for (size_t i = 0; i < n; i += 4099) {
        float want = 0;
        for (int p = 0; p < npes; p++) want += (float)val(p, i, 3);
        if (got[i] != want) {
            CHECK_MSG(false, "64 MiB float sum in place: element %zu is %g, want %g", i, got[i], want);
            break;
        }
    }
    free(got);
    SH_OK(sh, shoal_free(sh, a));
    check_note("64 MiB float sum_reduce_on_stream in place: right");
}

static __global__ void bump(int *p, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) p[i]++;
}

static void graph_section(void)
{
    shoal_team_t w = shoal_team_world(sh);
    size_t n = 1000;
    int *src = (int *)shoal_malloc(sh, n * sizeof(int)), *sum = (int *)shoal_malloc(sh, n * sizeof(int));
    int *all = (int *)shoal_malloc(sh, n * sizeof(int) * (size_t)npes);
    int *rs = (int *)shoal_malloc(sh, n * sizeof(int));
    CHECK(src && sum && all && rs);
    fill_src(src, n, 9);
    SH_OK(sh, shoal_team_barrier_on_stream(w, st));
    CUDA_OK(cudaStreamSynchronize(st));

    bool memops = false;
    for (int p = 0; p < npes; p++) memops |= shoal_pe_gpu_shared(sh, p) == SHOAL_GPU_SHARED;
    int any = memops;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    shoal_dev_team_t dt;
    bool on_gpu = shoal_team_device_get(w, &dt) == SHOAL_SUCCESS;
    cudaGraph_t graph;
    CUDA_OK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
    bump<<<8, 128, 0, st>>>(src, n);
    int rc = shoal_int_sum_reduce_on_stream(w, sum, src, n, st);
    if (rc == SHOAL_SUCCESS) rc = shoal_int_fcollect_on_stream(w, all, src, n, st);
    if (rc == SHOAL_SUCCESS) rc = shoal_int_sum_reducescatter_on_stream(w, rs, all, n / (size_t)npes, st);
    CUDA_OK(cudaStreamEndCapture(st, &graph));
    if (!on_gpu) {
        CHECK_MSG(rc == SHOAL_ERR_UNSUPPORTED && strstr(shoal_last_error(sh), "captur"),
                  "capture of a collective the host runs: %d %s", rc, shoal_last_error(sh));
        check_note("graph: capture refused where the host runs the collective, as documented");
        cudaGraphDestroy(graph);
    } else if (any && npes > 1) {
        CHECK_MSG(rc == SHOAL_ERR_UNSUPPORTED && strstr(shoal_last_error(sh), "MPS"),
                  "capture where PEs share a GPU without MPS: %d %s", rc, shoal_last_error(sh));
        check_note("graph: capture refused where PEs share a GPU without MPS, as documented");
        cudaGraphDestroy(graph);
    } else {
        SH_OK(sh, rc);
        cudaGraphExec_t exec;
        CUDA_OK(cudaGraphInstantiate(&exec, graph, 0));
        for (int it = 1; it <= 20; it++) {
            CUDA_OK(cudaGraphLaunch(exec, st));
            int *s = fetch(sum, n), *a = fetch(all, n * (size_t)npes), *r = fetch(rs, n / (size_t)npes);
            for (size_t i = 0; i < n; i++) {
                int want = 0;
                for (int p = 0; p < npes; p++) want += (int)val(p, i, 9) + it;
                if (s[i] != want) {
                    CHECK_MSG(false, "graph replay %d: sum element %zu is %d, want %d", it, i, s[i], want);
                    break;
                }
            }
            for (int p = 0; p < npes; p++)
                CHECK_MSG(a[(size_t)p * n + 3] == (int)val(p, 3, 9) + it, "graph replay %d: fcollect block %d is %d",
                          it, p, a[(size_t)p * n + 3]);
            /* every PE's all is the same: element x of the fcollect's result, npes times */
            for (size_t i = 0; i < n / (size_t)npes; i++) {
                size_t x = (size_t)me * (n / (size_t)npes) + i;
                int want = npes * ((int)val((int)(x / n), x % n, 9) + it);
                if (r[i] != want) {
                    CHECK_MSG(false, "graph replay %d: reducescatter element %zu is %d, want %d", it, i, r[i], want);
                    break;
                }
            }
            free(s);
            free(a);
            free(r);
            /* every PE checked before the next replay overwrites */
            MPI_Barrier(MPI_COMM_WORLD);
        }
        CUDA_OK(cudaGraphExecDestroy(exec));
        CUDA_OK(cudaGraphDestroy(graph));
        check_note("graph: a captured bump + sum_reduce + fcollect + sum_reducescatter replayed 20 times, right each "
                   "time");
    }
    SH_OK(sh, shoal_free(sh, rs));
    SH_OK(sh, shoal_free(sh, all));
    SH_OK(sh, shoal_free(sh, sum));
    SH_OK(sh, shoal_free(sh, src));
}

/* Kernels: block scope (block 0) then warp scope (warp 0 of block 0). */
static __global__ void device_coll(shoal_device_t dev, shoal_dev_team_t team, float *fs, float *fd, int64_t *is,
                                   int64_t *id, size_t n, int *rcs)
{
    int rc = 0, k = 0;
    rc = shoal_dev_team_barrier_block(dev, team);
    if (threadIdx.x == 0) rcs[k] = rc;
    k++;
    rc = shoal_dev_float_sum_reduce_block(dev, team, fd, fs, n);
    if (threadIdx.x == 0) rcs[k] = rc;
    k++;
    rc = shoal_dev_int64_max_reduce_block(dev, team, id, is, n);
    if (threadIdx.x == 0) rcs[k] = rc;
    k++;
    rc = shoal_dev_team_barrier_block(dev, team);
    k++;
    rc = shoal_dev_int64_min_reduce_block(dev, team, is, is, n); /* in place */
    if (threadIdx.x == 0) rcs[k] = rc;
    k++;
    if (threadIdx.x < 32) {
        rc = shoal_dev_float_max_reduce_warp(dev, team, fd + n, fs, n);
        if (threadIdx.x == 0) rcs[k] = rc;
    }
    k++;
    __syncthreads();
    rc = shoal_dev_float_fcollect_block(dev, team, fd + 2 * n, fs, n);
    if (threadIdx.x == 0) rcs[k] = rc;
    k++;
    rc = shoal_dev_float_broadcast_block(dev, team, fd + 2 * n + n * team.n_pes, fs, n, team.n_pes - 1);
    if (threadIdx.x == 0) rcs[k] = rc;
    k++;
    rc = shoal_dev_team_barrier_block(dev, team);
    rc = shoal_dev_float_alltoall_block(dev, team, fd + 3 * n + n * team.n_pes, fs, 1);
    if (threadIdx.x == 0) rcs[k] = rc;
}

/* Reduce-scatters in kernels: block scope, warp scope (warp 0), 0
 * elements, and one in place, which every member refuses after meeting. */
static __global__ void device_rs(shoal_device_t dev, shoal_dev_team_t team, float *fs, float *fd, int64_t *is,
                                 int64_t *id, size_t n, int *rcs)
{
    int rc = shoal_dev_float_sum_reducescatter_block(dev, team, fd, fs, n);
    if (threadIdx.x == 0) rcs[0] = rc;
    if (threadIdx.x < 32) {
        rc = shoal_dev_int64_max_reducescatter_warp(dev, team, id, is, n);
        if (threadIdx.x == 0) rcs[1] = rc;
    }
    __syncthreads();
    rc = shoal_dev_int64_xor_reducescatter_block(dev, team, id + n, is, n);
    if (threadIdx.x == 0) rcs[2] = rc;
    rc = shoal_dev_float_min_reducescatter_block(dev, team, fd + n, fs, 0);
    if (threadIdx.x == 0) rcs[3] = rc;
    rc = shoal_dev_float_min_reducescatter_block(dev, team, fs + 1, fs, n);
    if (threadIdx.x == 0) rcs[4] = rc;
    rc = shoal_dev_float_min_reducescatter_block(dev, team, fd + n, fs, n);
    if (threadIdx.x == 0) rcs[5] = rc;
}

static void device_rs_section(shoal_device_t dev, shoal_dev_team_t team)
{
    size_t n = 301, all = n * (size_t)npes;
    float *fs = (float *)shoal_malloc(sh, all * sizeof(float)), *fd = (float *)shoal_malloc(sh, 2 * n * sizeof(float));
    int64_t *is = (int64_t *)shoal_malloc(sh, all * 8), *id = (int64_t *)shoal_malloc(sh, 2 * n * 8);
    int *rcs, h[8];
    CHECK(fs && fd && is && id);
    CUDA_OK(cudaMalloc(&rcs, sizeof(h)));
    CUDA_OK(cudaMemset(rcs, 0x7f, sizeof(h)));
    fill_src(fs, all, 11);
    fill_src(is, all, 12);
    SH_OK(sh, shoal_barrier_all(sh));
    device_rs<<<1, 256>>>(dev, team, fs, fd, is, id, n, rcs);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(h, rcs, sizeof(h), cudaMemcpyDeviceToHost));
    for (int k = 0; k < 6; k++)
        CHECK_MSG(h[k] == (k == 4 ? SHOAL_ERR_INVALID_ARG : 0), "device reduce-scatter %d returned %d", k, h[k]);
    SH_OK(sh, shoal_barrier_all(sh));
    float *f = fetch(fd, 2 * n);
    int64_t *i64 = fetch(id, 2 * n);
    for (size_t i = 0; i < n; i++) {
        size_t x = (size_t)me * n + i;
        float s = 0, mn = 1e30f;
        int64_t mx = 0, xr = 0;
        for (int p = 0; p < npes; p++) {
            s += (float)val(p, x, 11);
            mn = (float)val(p, x, 11) < mn ? (float)val(p, x, 11) : mn;
            mx = (int64_t)val(p, x, 12) > mx ? (int64_t)val(p, x, 12) : mx;
            xr ^= (int64_t)val(p, x, 12);
        }
        CHECK_MSG(f[i] == s, "device float sum_reducescatter_block: element %zu is %g, want %g", i, f[i], s);
        CHECK_MSG(f[n + i] == mn, "device float min_reducescatter_block: element %zu is %g, want %g", i, f[n + i], mn);
        CHECK_MSG(i64[i] == mx, "device int64 max_reducescatter_warp: element %zu is %lld, want %lld", i,
                  (long long)i64[i], (long long)mx);
        CHECK_MSG(i64[n + i] == xr, "device int64 xor_reducescatter_block: element %zu is %lld, want %lld", i,
                  (long long)i64[n + i], (long long)xr);
    }
    free(f);
    free(i64);
    cudaFree(rcs);
    SH_OK(sh, shoal_free(sh, id));
    SH_OK(sh, shoal_free(sh, is));
    SH_OK(sh, shoal_free(sh, fd));
    SH_OK(sh, shoal_free(sh, fs));
    check_note("kernels: block and warp reduce-scatters right, 0 elements met, in place refused");
}

static void device_section(void)
{
    shoal_device_t dev;
    shoal_dev_team_t team;
    size_t n = 333;
    SH_OK(sh, shoal_device_get(sh, &dev));
    int rc = shoal_team_device_get(shoal_team_world(sh), &team);
    if (rc == SHOAL_ERR_UNSUPPORTED) {
        CHECK_MSG(team.ok == 0 && strstr(shoal_last_error(sh), "kernels cannot reach"), "%s", shoal_last_error(sh));
        check_note("kernels: the world team is not reachable from kernels here (%s): skipped", shoal_last_error(sh));
        return;
    }
    SH_OK(sh, rc);
    CHECK(team.ok == 1 && team.n_pes == npes && team.my_pe == me);
    float *fs = (float *)shoal_malloc(sh, n * sizeof(float)),
          *fd = (float *)shoal_malloc(sh, n * 8 * sizeof(float) * 8);
    int64_t *is = (int64_t *)shoal_malloc(sh, n * 8), *id = (int64_t *)shoal_malloc(sh, n * 8);
    int *rcs;
    CUDA_OK(cudaMalloc(&rcs, 16 * sizeof(int)));
    CUDA_OK(cudaMemset(rcs, 0x7f, 16 * sizeof(int)));
    fill_src(fs, n, 1);
    fill_src(is, n, 2);
    SH_OK(sh, shoal_barrier_all(sh));
    device_coll<<<1, 256>>>(dev, team, fs, fd, is, id, n, rcs);
    CUDA_OK(cudaDeviceSynchronize());
    int h[16];
    CUDA_OK(cudaMemcpy(h, rcs, sizeof(h), cudaMemcpyDeviceToHost));
    for (int k = 0; k < 9; k++)
        if (k != 3) CHECK_MSG(h[k] == 0, "device collective %d returned %d", k, h[k]);
    SH_OK(sh, shoal_barrier_all(sh));
    float *f = fetch(fd, n * (4 + (size_t)npes) + (size_t)npes);
    int64_t *i64 = fetch(id, n), *imin = fetch(is, n);
    for (size_t i = 0; i < n; i++) {
        float s = 0, mx = 0;
        int64_t m = 0, mn = INT64_MAX;
        for (int p = 0; p < npes; p++) {
            s += (float)val(p, i, 1);
            mx = (float)val(p, i, 1) > mx ? (float)val(p, i, 1) : mx;
            m = (int64_t)val(p, i, 2) > m ? (int64_t)val(p, i, 2) : m;
            mn = (int64_t)val(p, i, 2) < mn ? (int64_t)val(p, i, 2) : mn;
        }
        CHECK_MSG(f[i] == s, "device float sum_reduce_block: element %zu is %g, want %g", i, f[i], s);
        CHECK_MSG(f[n + i] == mx, "device float max_reduce_warp: element %zu is %g, want %g", i, f[n + i], mx);
        CHECK_MSG(i64[i] == m, "device int64 max_reduce_block: element %zu is %lld", i, (long long)i64[i]);
        CHECK_MSG(imin[i] == mn, "device int64 min_reduce_block in place: element %zu is %lld", i, (long long)imin[i]);
        for (int p = 0; p < npes; p++)
            CHECK_MSG(f[2 * n + (size_t)p * n + i] == (float)val(p, i, 1),
                      "device fcollect_block: block %d element %zu", p, i);
        CHECK_MSG(f[2 * n + n * (size_t)npes + i] == (float)val(npes - 1, i, 1),
                  "device broadcast_block from the last PE: element %zu is %g", i, f[2 * n + n * (size_t)npes + i]);
        if (i == 0)
            for (int p = 0; p < npes; p++)
                CHECK_MSG(f[3 * n + n * (size_t)npes + (size_t)p] == (float)val(p, (size_t)me, 1),
                          "device alltoall_block: block %d is %g", p, f[3 * n + n * (size_t)npes + (size_t)p]);
    }
    free(f);
    free(i64);
    free(imin);
    cudaFree(rcs);
    check_note("kernels: block and warp barrier, reductions, fcollect, broadcast, alltoall right");
    device_rs_section(dev, team);
}

int main(int argc, char **argv)
{
    gpu_test_start(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    sh = gpu_test_instance((size_t)512 << 20);
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

    a = (int32_t *)shoal_malloc(sh, MOST_BYTES);
    b = (int32_t *)shoal_malloc(sh, MOST_BYTES);
    CHECK_MSG(a != NULL && b != NULL, "shoal_malloc: %s", shoal_last_error(sh));
    stream_section(shoal_team_world(sh), "world");
    stream_section(shoal_team_node(sh), "node");
    if (npes >= 3) {
        shoal_team_t even = NULL;
        SH_OK(sh, shoal_team_split_strided(shoal_team_world(sh), 0, 2, (npes + 1) / 2, &even));
        if (even != NULL) {
            stream_section(even, "even");
            SH_OK(sh, shoal_team_destroy(even));
        }
        SH_OK(sh, shoal_barrier_all(sh));
    }
    SH_OK(sh, shoal_free(sh, b));
    SH_OK(sh, shoal_free(sh, a));
    stream_big();
    {
        /* a root mismatch is reported on every PE, nobody hangs */
        int *x = (int *)shoal_malloc(sh, 64);
        int rc = shoal_int_broadcast_on_stream(shoal_team_world(sh), x + 4, x, 2, npes > 1 ? me % 2 : 0, st);
        if (npes > 1)
            CHECK_MSG(rc == SHOAL_ERR_NOT_SYMMETRIC && strstr(shoal_last_error(sh), "root"),
                      "a root mismatch on a stream: %d %s", rc, shoal_last_error(sh));
        else
            SH_OK(sh, rc);
        SH_OK(sh, shoal_free(sh, x));
    }
    graph_section();
    CUDA_OK(cudaStreamSynchronize(st));
    gpu_test_need_concurrent_kernels(sh, "the kernels' collectives");
    device_section();
    CUDA_OK(cudaStreamDestroy(st));
    SH_OK(sh, shoal_finalize(sh));
    MPI_Finalize();
    return 0;
}
