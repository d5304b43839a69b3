/* The growing GPU heap (runtime/heap/gpu_vmm.c), checked against values
 * computed here:
 *   - at init nothing is mapped (shoal_heap_stats), and the GPU's free
 *     memory (cudaMemGetInfo) does not drop by the limit;
 *   - blocks of odd sizes, most straddling chunk boundaries, allocated in
 *     steps up to GiBs per PE: each written by a kernel, a third of it put
 *     to the right neighbour on a stream and another third by a kernel's
 *     device put, read back exactly by a kernel; the GPU's free memory drops
 *     by what the PEs sharing it allocated, and stats.mapped follows;
 *   - freeing gives the chunks back (mapped 0, free memory back), and the
 *     heap grows again;
 *   - a CUDA graph that captured a put keeps working after the heap grew.
 * "fault" (SHOAL_FAULT=grow:PE): PE's growth fails, every PE gets NULL,
 * SHOAL_ERR_HEAP_EXHAUSTED and a message naming PE and its GPU.
 * "fixed" (SHOAL_HEAP_RESERVE=y): the same data checks on the fixed heap;
 * stats say it does not grow and holds its limit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

#define STEPS 6

static shoal_t sh;
static shoal_device_t dev;
static int me, npes, right, left, gpu_pes;

static __host__ __device__ unsigned char pat(int pe, int k, size_t i)
{
    return (unsigned char)(pe * 29 + k * 11 + i * 7 + 3);
}

__global__ void k_fill(unsigned char *p, size_t n, int pe, int k)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = pat(pe, k, i);
}

/* Mismatches of p[0, n) against pe's pattern (index i of the source). */
__global__ void k_check(const unsigned char *p, size_t n, int pe, int k, unsigned long long *bad)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        if (p[i] != pat(pe, k, i)) atomicAdd(bad, 1ull);
}

/* One block: my first third into the right neighbour's last third. */
__global__ void k_put(shoal_device_t d, unsigned char *dst, const unsigned char *src, size_t n, int pe, int *rc)
{
    int r = shoal_dev_put_block(d, dst, src, n, pe);
    if (threadIdx.x == 0) *rc = r;
    shoal_dev_quiet(d);
}

static size_t gpu_free(void)
{
    size_t f = 0, t = 0;
    CUDA_OK(cudaMemGetInfo(&f, &t));
    return f;
}

static shoal_heap_stats_t stats(void)
{
    shoal_heap_stats_t s;
    SH_OK(sh, shoal_heap_stats(sh, &s));
    return s;
}

/* Write, cross and check one block of n bytes (step k). */
static void exercise(unsigned char *b, size_t n, int k, unsigned long long *bad, int *drc)
{
    size_t t = n / 3;
    unsigned long long nb = 0;
    int rc = 0;

    k_fill<<<256, 256>>>(b, t, me, k);
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_put_on_stream(sh, b + t, b, t, right, 0));
    k_put<<<1, 256>>>(dev, b + 2 * t, b, t, right, drc);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(&rc, drc, sizeof(rc), cudaMemcpyDeviceToHost));
    CHECK_MSG(rc == SHOAL_SUCCESS, "step %d: device put: %s", k, shoal_strerror(rc));
    SH_OK(sh, shoal_barrier_all(sh));
    CUDA_OK(cudaMemset(bad, 0, sizeof(*bad)));
    k_check<<<256, 256>>>(b + t, t, left, k, bad);
    k_check<<<256, 256>>>(b + 2 * t, t, left, k, bad);
    CUDA_OK(cudaMemcpy(&nb, bad, sizeof(nb), cudaMemcpyDeviceToHost));
    CHECK_MSG(nb == 0, "step %d: %llu of %zu bytes from PE %d wrong", k, nb, 2 * t, left);
}

static void grow(bool fixed)
{
    /* Odd sizes past several chunks; 2.4 GiB per PE in all. */
    static const size_t mib = (size_t)1 << 20;
    const size_t sizes[STEPS] = {3 * mib + 5, 100 * mib + 4097, 333 * mib + 3,
                                 512 * mib,   700 * mib + 77,   777 * mib + 1};
    unsigned char *b[STEPS];
    unsigned long long *bad = NULL;
    int *drc = NULL;
    size_t total = 0, free0, free1;
    shoal_heap_stats_t s = stats();

    CUDA_OK(cudaMalloc(&bad, sizeof(*bad)));
    CUDA_OK(cudaMalloc(&drc, sizeof(*drc)));
    if (fixed) {
        CHECK_MSG(s.growable == 0 && s.chunk == 0 && s.mapped == s.limit, "fixed heap: growable %d, mapped %zu of %zu",
                  s.growable, s.mapped, s.limit);
    } else {
        CHECK_MSG(s.growable == 1 && s.chunk > 0 && s.mapped == 0 && s.used == 0,
                  "growing heap at init: growable %d, chunk %zu, mapped %zu", s.growable, s.chunk, s.mapped);
    }
    SH_OK(sh, shoal_barrier_all(sh));
    free0 = gpu_free();
    SH_OK(sh, shoal_barrier_all(sh));
    for (int k = 0; k < STEPS; k++) {
        b[k] = (unsigned char *)shoal_malloc(sh, sizes[k]);
        CHECK_MSG(b[k] != NULL, "step %d: shoal_malloc(%zu): %s", k, sizes[k], shoal_last_error(sh));
        total += sizes[k];
        exercise(b[k], sizes[k], k, bad, drc);
        s = stats();
        if (!fixed)
            CHECK_MSG(s.mapped >= s.used && s.mapped < s.used + 2 * (k + 1) * s.chunk,
                      "step %d: mapped %zu for %zu used (chunks of %zu)", k, s.mapped, s.used, s.chunk);
    }
    SH_OK(sh, shoal_barrier_all(sh));
    free1 = gpu_free();
    SH_OK(sh, shoal_barrier_all(sh));
    if (!fixed)
        CHECK_MSG(free0 - free1 >= (size_t)(0.95 * (double)total * gpu_pes),
                  "the GPU's free memory fell by %zu for %zu allocated by each of %d PEs on it", free0 - free1, total,
                  gpu_pes);
    check_note("%zu bytes per PE in %d steps crossed exactly; the GPU's free memory fell by %zu (%d PEs on it)", total,
               STEPS, free0 - free1, gpu_pes);
    /* A block between two live ones: the chunks it covers whole are one
     * allocation (the driver's range of a byte in its middle), and freeing
     * it gives back exactly that allocation. */
    if (!fixed) {
        typedef int (*range_fn)(unsigned long long *, size_t *, unsigned long long);
        enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        void *fn = NULL;
        unsigned long long base = 0, mid = (unsigned long long)(uintptr_t)(b[3] + sizes[3] / 2);
        unsigned long long lo = (unsigned long long)(uintptr_t)b[3], hi = lo + sizes[3];
        size_t len = 0, before = stats().mapped, after;
        CUDA_OK(cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &fn, 12000, cudaEnableDefault, &q));
        CHECK(q == cudaDriverEntryPointSuccess && fn != NULL);
        CHECK_MSG(((range_fn)fn)(&base, &len, mid) == 0, "cuMemGetAddressRange of a byte in a block failed");
        CHECK_MSG(len > s.chunk && len % s.chunk == 0 && base >= lo && base - lo < s.chunk && base + len <= hi &&
                      hi - (base + len) < s.chunk,
                  "a block of %zu at %#llx: its middle lies in an allocation of %zu at %#llx (chunks of %zu)", sizes[3],
                  lo, len, base, s.chunk);
        SH_OK(sh, shoal_free(sh, b[3]));
        after = stats().mapped;
        CHECK_MSG(before - after == len,
                  "freeing a block of %zu between two live ones: mapped %zu -> %zu, not %zu less", sizes[3], before,
                  after, len);
        b[3] = NULL;
    }
    for (int k = STEPS - 1; k >= 0; k--)
        if (b[k] != NULL) SH_OK(sh, shoal_free(sh, b[k]));
    SH_OK(sh, shoal_barrier_all(sh));
    if (!fixed) {
        size_t free2 = gpu_free();
        s = stats();
        CHECK_MSG(s.mapped == 0, "every block freed, %zu bytes still mapped", s.mapped);
        CHECK_MSG(free2 + (free0 - free1) / 20 >= free0, "after the frees the GPU has %zu free, %zu before the blocks",
                  free2, free0);
        check_note("after the frees: %zu bytes free (%zu before the blocks)", free2, free0);
    }
    SH_OK(sh, shoal_barrier_all(sh));
    /* And again. */
    unsigned char *again = (unsigned char *)shoal_malloc(sh, sizes[4]);
    CHECK(again != NULL);
    exercise(again, sizes[4], 9, bad, drc);
    SH_OK(sh, shoal_free(sh, again));
    CUDA_OK(cudaFree(bad));
    CUDA_OK(cudaFree(drc));
}

/* A graph that captured a put still works once the heap grew under it. */
static void graph_after_growth(void)
{
    const size_t n = (size_t)8 << 20;
    unsigned char *x = (unsigned char *)shoal_malloc(sh, n), *big;
    unsigned long long *bad = NULL, nb = 0;
    cudaStream_t s;
    cudaGraph_t g;
    cudaGraphExec_t ge;
    const char *tp = "?";

    int capturable, all = 0;

    CHECK(x != NULL);
    SH_OK(sh, shoal_pe_transport(sh, right, &tp));
    capturable = strcmp(tp, "cuda_ipc") == 0 || strcmp(tp, "self") == 0;
    /* Every PE skips, or none does: the allocations below are collective. */
    CHECK(MPI_Allreduce(&capturable, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (!all) {
        check_note("a PE's right neighbour is not reached by copies (here: %s), which a graph could capture: graph "
                   "check skipped",
                   tp);
        SH_OK(sh, shoal_free(sh, x));
        return;
    }
    CUDA_OK(cudaMalloc(&bad, sizeof(*bad)));
    CUDA_OK(cudaStreamCreate(&s));
    k_fill<<<64, 256>>>(x, n / 2, me, 5);
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    SH_OK(sh, shoal_put_on_stream(sh, x + n / 2, x, n / 2, right, s));
    CUDA_OK(cudaStreamEndCapture(s, &g));
    CUDA_OK(cudaGraphInstantiate(&ge, g, 0));
    /* The heap grows by a GiB (new chunks everywhere), then the graph runs. */
    big = (unsigned char *)shoal_malloc(sh, (size_t)1 << 30);
    CHECK_MSG(big != NULL, "%s", shoal_last_error(sh));
    SH_OK(sh, shoal_barrier_all(sh));
    CUDA_OK(cudaGraphLaunch(ge, s));
    CUDA_OK(cudaStreamSynchronize(s));
    SH_OK(sh, shoal_barrier_all(sh));
    CUDA_OK(cudaMemset(bad, 0, sizeof(*bad)));
    k_check<<<64, 256>>>(x + n / 2, n / 2, left, 5, bad);
    CUDA_OK(cudaMemcpy(&nb, bad, sizeof(nb), cudaMemcpyDeviceToHost));
    CHECK_MSG(nb == 0, "the graph's put after growth: %llu bytes wrong", nb);
    CUDA_OK(cudaGraphExecDestroy(ge));
    CUDA_OK(cudaGraphDestroy(g));
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaFree(bad));
    SH_OK(sh, shoal_free(sh, big));
    SH_OK(sh, shoal_free(sh, x));
    check_note("a captured put replayed after a 1 GiB growth: ok");
}

static void growth_fails(void)
{
    const char *f = getenv("SHOAL_FAULT");
    int bad = f != NULL && strncmp(f, "grow:", 5) == 0 ? atoi(f + 5) : -1;
    char want[64];
    void *p;

    CHECK_MSG(bad >= 0, "run with SHOAL_FAULT=grow:PE");
    p = shoal_malloc(sh, (size_t)256 << 20);
    CHECK_MSG(p == NULL, "PE %d's failed growth gave %p", bad, p);
    CHECK_EQ_INT(shoal_last_status(sh), SHOAL_ERR_HEAP_EXHAUSTED);
    snprintf(want, sizeof(want), "PE %d could not take memory", bad);
    CHECK_MSG(strstr(shoal_last_error(sh), want) != NULL && strstr(shoal_last_error(sh), "GPU ") != NULL,
              "message \"%s\" names neither PE %d nor its GPU", shoal_last_error(sh), bad);
    CHECK_MSG(stats().used == 0 && stats().mapped == 0, "after the failed growth: used %zu, mapped %zu", stats().used,
              stats().mapped);
    check_note("every PE: %s", shoal_last_error(sh));
    p = shoal_malloc(sh, (size_t)256 << 20);
    CHECK_MSG(p != NULL, "after the failed growth: %s", shoal_last_error(sh));
    SH_OK(sh, shoal_free(sh, p));
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int provided = 0, ndev = 0;
    shoal_config_t cfg;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        check_note("no GPU: skipped");
        MPI_Finalize();
        return TEST_SKIP;
    }
    shoal_config_init(&cfg); /* SHOAL_HEAP_SIZE, _RESERVE, _CHUNK from the test's line */
    cfg.heap_kind = SHOAL_HEAP_GPU;
    SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &sh));
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    gpu_pes = 1;
    for (int pe = 0; pe < npes; pe++)
        if (pe != me && shoal_pe_gpu_shared(sh, pe) != SHOAL_GPU_SEPARATE) gpu_pes++;
    SH_OK(sh, shoal_device_get(sh, &dev));
    if (strcmp(mode, "fault") == 0) {
        growth_fails();
    } else {
        grow(strcmp(mode, "fixed") == 0);
        graph_after_growth();
    }
    SH_OK(sh, shoal_finalize(sh));
    MPI_Finalize();
    return 0;
}
