/*
 * Checks for the GPU tests (CUDA C++): the host assertion helpers of
 * check.h, plus a CUDA call and a shoal call that must succeed.
 */
#ifndef SHOAL_TEST_GPU_CHECK_H
#define SHOAL_TEST_GPU_CHECK_H

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
extern "C" {
#include "common/check.h"
}

/* A CUDA runtime call that must return cudaSuccess. */
#define CUDA_OK(expr)                                                                                                  \
    do {                                                                                                               \
        cudaError_t e_ = (expr);                                                                                       \
        CHECK_MSG(e_ == cudaSuccess, "%s: %s", #expr, cudaGetErrorString(e_));                                         \
    } while (0)

/* A shoal call that must return SHOAL_SUCCESS; prints the instance's last error. */
#define SH_OK(sh, expr)                                                                                                \
    do {                                                                                                               \
        int s_ = (expr);                                                                                               \
        CHECK_MSG(s_ == SHOAL_SUCCESS, "%s: %s: %s", #expr, shoal_strerror(s_), shoal_last_error(sh));                 \
    } while (0)

/* MPI_Init, then, where no GPU is present, MPI_Finalize and the exit
 * status of a skipped test. */
static inline void gpu_test_start(int *argc, char ***argv)
{
    int ndev = 0;
    MPI_Init(argc, argv);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        check_note("no GPU: skipped");
        MPI_Finalize();
        exit(TEST_SKIP);
    }
}

/* An instance on MPI_COMM_WORLD with a GPU heap of heap_size bytes. */
static inline shoal_t gpu_test_instance(size_t heap_size)
{
    shoal_config_t cfg;
    shoal_t sh = NULL;
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = heap_size;
    SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg, &sh));
    return sh;
}

/* For a test whose kernels wait for a peer's kernel (what: what waits):
 * where some PE shares its GPU with another PE without MPS, the kernels of
 * the two only take turns by time slices and such a test crawls into its
 * timeout, so every PE skips it (TEST_SKIP, after finalizing sh and MPI),
 * saying why. Collective over MPI_COMM_WORLD, sh's PEs (gpu_test_instance). */
static inline void gpu_test_need_concurrent_kernels(shoal_t sh, const char *what)
{
    int n = shoal_n_pes(sh), mine = -1, any = -1;

    for (int pe = 0; pe < n; pe++) {
        int k = shoal_pe_gpu_shared(sh, pe);
        CHECK_MSG(k >= 0, "shoal_pe_gpu_shared(%d): %s: %s", pe, shoal_strerror(k), shoal_last_error(sh));
        if (k == SHOAL_GPU_SHARED && mine < 0) mine = pe;
    }
    CHECK_MSG(MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS, "MPI_Allreduce failed");
    if (any < 0) return;
    if (mine >= 0)
        check_note("PE %d shares this PE's GPU without MPS: their kernels take turns by time slices, and %s would "
                   "crawl; skipped (start MPS: nvidia-cuda-mps-control -d, see README)",
                   mine, what);
    else
        check_note("PE %d shares a GPU with another PE without MPS, and %s would crawl there: skipped", any, what);
    SH_OK(sh, shoal_finalize(sh));
    MPI_Finalize();
    exit(TEST_SKIP);
}

/* Checks inside kernels: failures are counted in a dev_err_t in device
 * memory, the first one's line, iteration and values kept; check_dev_err
 * asserts on the host that there were none. */
typedef struct dev_err {
    int count;
    int line;
    unsigned iter;
    long long got, want;
} dev_err_t;

#define DCHECK_EQ_AT(err, i, got_, want_)                                                                              \
    do {                                                                                                               \
        long long g_ = (long long)(got_), w_ = (long long)(want_);                                                     \
        if (g_ != w_ && atomicAdd(&(err)->count, 1) == 0) {                                                            \
            (err)->line = __LINE__;                                                                                    \
            (err)->iter = (i);                                                                                         \
            (err)->got = g_;                                                                                           \
            (err)->want = w_;                                                                                          \
        }                                                                                                              \
    } while (0)
#define DCHECK_EQ(err, got_, want_) DCHECK_EQ_AT(err, 0u, got_, want_)

static inline void check_dev_err(const dev_err_t *d, const char *what)
{
    dev_err_t h;
    CUDA_OK(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost));
    CHECK_MSG(h.count == 0,
              "%s: %d device check(s) failed; first at line %d (iteration %u): got %lld (%#llx), expected %lld (%#llx)",
              what, h.count, h.line, h.iter, h.got, (unsigned long long)h.got, h.want, (unsigned long long)h.want);
}

#endif /* SHOAL_TEST_GPU_CHECK_H */
