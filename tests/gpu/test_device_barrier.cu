/* Device barriers (shoal_device.cuh) under 10^5 iterations in one kernel:
 * each iteration every thread stores the iteration number into the right
 * neighbour's heap, the PEs meet at the barrier, and every thread checks it
 * sees the left neighbour's value of that iteration, written by another
 * thread (another block for the grid barrier): no skipped or stale values.
 * shoal_dev_barrier_all_block with one block per PE, then the grid variant
 * in a cooperative launch, then the block variant again (the generation
 * carries over launches and variants, and the stream barrier in between
 * does not disturb it), and once more reaching the peers through the device
 * arrays instead of the struct's near window; last, both barriers mixed in
 * one cooperative launch.
 *
 *   test_device_barrier [--iters N]   (default 100000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

/* A broken barrier fails the test with SHOAL_ERR_TIMEOUT instead of hanging. */
#define SHOAL_DEV_TIMEOUT_NS 60000000000ull
#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

/* What thread t of PE pe stores in iteration i. */
static __device__ __forceinline__ unsigned long long stamp(unsigned i, int pe, unsigned t)
{
    return ((unsigned long long)i << 32) | ((unsigned long long)pe << 20) | t;
}

/* One block per PE. box: 2 slots of blockDim words; iteration i uses slot
 * i & 1, so right may run one iteration ahead (it writes the other slot)
 * but never two. */
__global__ void block_barrier_kernel(shoal_device_t dev, unsigned long long *box, unsigned first, unsigned iters,
                                     int right, int left, dev_err_t *err)
{
    unsigned t = threadIdx.x, n = blockDim.x, u = (t + 37) % n;
    for (unsigned i = first; i < first + iters; i++) {
        unsigned long long *slot = box + (size_t)(i & 1) * n;
        DCHECK_EQ_AT(err, i, shoal_dev_p(dev, &slot[t], stamp(i, dev.my_pe, t), right), SHOAL_SUCCESS);
        DCHECK_EQ_AT(err, i, shoal_dev_barrier_all_block(dev), SHOAL_SUCCESS);
        DCHECK_EQ_AT(err, i, slot[u], stamp(i, left, u));
    }
}

/* Every thread of a cooperative launch; it reads a slot another block of
 * the left neighbour wrote. */
__global__ void grid_barrier_kernel(shoal_device_t dev, unsigned long long *box, unsigned first, unsigned iters,
                                    int right, int left, dev_err_t *err)
{
    unsigned n = gridDim.x * blockDim.x, g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned u = (g + blockDim.x * (gridDim.x / 2) + 1) % n;
    for (unsigned i = first; i < first + iters; i++) {
        unsigned long long *slot = box + (size_t)(i & 1) * n;
        DCHECK_EQ_AT(err, i, shoal_dev_p(dev, &slot[g], stamp(i, dev.my_pe, g), right), SHOAL_SUCCESS);
        DCHECK_EQ_AT(err, i, shoal_dev_barrier_all_grid(dev), SHOAL_SUCCESS);
        DCHECK_EQ_AT(err, i, slot[u], stamp(i, left, u));
    }
}

/* A cooperative launch mixing both barriers: each round the last block
 * alone goes through a block barrier, then the whole grid through a grid
 * barrier (so the grid barrier's leader, block 0, may arrive while the last
 * block is still in its block barrier). Block rounds use blk (2 slots of
 * blockDim words), grid rounds grd (2 slots of one word per thread). */
__global__ void mixed_barrier_kernel(shoal_device_t dev, unsigned long long *blk, unsigned long long *grd,
                                     unsigned first, unsigned rounds, int right, int left, dev_err_t *err)
{
    unsigned n = gridDim.x * blockDim.x, g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned t = threadIdx.x, u = (t + 37) % blockDim.x, ug = (g + blockDim.x * (gridDim.x / 2) + 1) % n;
    for (unsigned i = first; i < first + rounds; i++) {
        if (blockIdx.x == gridDim.x - 1) {
            unsigned long long *slot = blk + (size_t)(i & 1) * blockDim.x;
            DCHECK_EQ_AT(err, i, shoal_dev_p(dev, &slot[t], stamp(i, dev.my_pe, t), right), SHOAL_SUCCESS);
            DCHECK_EQ_AT(err, i, shoal_dev_barrier_all_block(dev), SHOAL_SUCCESS);
            DCHECK_EQ_AT(err, i, slot[u], stamp(i, left, u));
        }
        unsigned long long *slot = grd + (size_t)(i & 1) * n;
        DCHECK_EQ_AT(err, i, shoal_dev_p(dev, &slot[g], stamp(i, dev.my_pe, g), right), SHOAL_SUCCESS);
        DCHECK_EQ_AT(err, i, shoal_dev_barrier_all_grid(dev), SHOAL_SUCCESS);
        DCHECK_EQ_AT(err, i, slot[ug], stamp(i, left, ug));
    }
}

int main(int argc, char **argv)
{
    shoal_t sh;
    shoal_device_t dev;
    int me, npes, right, left, coop = 0, sms = 0, per_sm = 0;
    unsigned iters = 100000;
    const int block_threads = 256;
    dev_err_t *err = NULL;

    gpu_test_start(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--iters") == 0) iters = (unsigned)atoi(argv[i + 1]);
    sh = gpu_test_instance((size_t)64 << 20);
    gpu_test_need_concurrent_kernels(sh, "the device barriers (every PE's kernel waits for the others')");
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    SH_OK(sh, shoal_device_get(sh, &dev));
    CUDA_OK(cudaMalloc(&err, sizeof(*err)));
    CUDA_OK(cudaMemset(err, 0, sizeof(*err)));
    int cuda_dev = shoal_cuda_device(sh);
    CUDA_OK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, cuda_dev));
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, cuda_dev));
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_barrier_kernel, block_threads, 0));
    CHECK_MSG(coop && per_sm > 0, "device %d: no cooperative launch (%d) or no room for the kernel (%d)", cuda_dev,
              coop, per_sm);
    int grid = sms; /* one block per SM: every SM takes part */

    /* box: 2 slots of one word per thread of the grid kernel */
    size_t words = 2 * (size_t)grid * block_threads;
    unsigned long long *box = (unsigned long long *)shoal_calloc(sh, words, sizeof(unsigned long long));
    CHECK_MSG(box != NULL, "shoal_calloc: %s", shoal_last_error(sh));
    cudaStream_t st;
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    unsigned next = 0;

    /* 1. block barrier */
    SH_OK(sh, shoal_barrier_all(sh));
    double t0 = MPI_Wtime();
    block_barrier_kernel<<<1, block_threads, 0, st>>>(dev, box, next, iters, right, left, err);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(st));
    double t = MPI_Wtime() - t0;
    next += iters;
    check_dev_err(err, "shoal_dev_barrier_all_block");
    check_note("shoal_dev_barrier_all_block: %u iterations, %d PEs, %.2f us each", iters, npes, t * 1e6 / iters);

    /* the stream barrier between kernels uses other flags */
    SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
    SH_OK(sh, shoal_barrier_all_on_stream(sh, st));

    /* 2. grid barrier, cooperative launch over every SM */
    {
        unsigned first = next;
        void *args[] = {&dev, &box, &first, &iters, &right, &left, &err};
        SH_OK(sh, shoal_barrier_all(sh));
        t0 = MPI_Wtime();
        CUDA_OK(cudaLaunchCooperativeKernel((const void *)grid_barrier_kernel, dim3(grid), dim3(block_threads), args, 0,
                                            st));
        CUDA_OK(cudaStreamSynchronize(st));
        t = MPI_Wtime() - t0;
        next += iters;
        check_dev_err(err, "shoal_dev_barrier_all_grid");
        check_note("shoal_dev_barrier_all_grid: %u iterations, %d blocks x %d threads, %d PEs, %.2f us each", iters,
                   grid, block_threads, npes, t * 1e6 / iters);
    }

    /* 3. the block barrier again: generations continue */
    SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
    block_barrier_kernel<<<1, 128, 0, st>>>(dev, box, next, 1001, right, left, err);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(st));
    check_dev_err(err, "shoal_dev_barrier_all_block after the grid barrier");
    next += 1001;

    /* 4. the block barrier with the peers' flags reached through the device
     * arrays alone (no PE in the struct's near window) */
    {
        shoal_device_t far = dev;
        far.near_first = npes;
        for (int k = 0; k < SHOAL_DEVICE_NEAR_PES; k++) {
            far.near_base[k] = NULL;
            far.near_ctrl[k] = NULL;
        }
        block_barrier_kernel<<<1, 64, 0, st>>>(far, box, next, 1001, right, left, err);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaStreamSynchronize(st));
        check_dev_err(err, "shoal_dev_barrier_all_block through the device arrays");
    }

    /* 5. both barriers in one cooperative launch */
    {
        unsigned long long *blk = (unsigned long long *)shoal_calloc(sh, 2 * (size_t)block_threads, 8);
        unsigned long long *grd = (unsigned long long *)shoal_calloc(sh, 2 * (size_t)grid * block_threads, 8);
        unsigned first = 0, rounds = iters < 2000 ? iters : 2000;
        void *args[] = {&dev, &blk, &grd, &first, &rounds, &right, &left, &err};
        CHECK_MSG(blk != NULL && grd != NULL, "shoal_calloc: %s", shoal_last_error(sh));
        SH_OK(sh, shoal_barrier_all(sh));
        CUDA_OK(cudaLaunchCooperativeKernel((const void *)mixed_barrier_kernel, dim3(grid), dim3(block_threads), args,
                                            0, st));
        CUDA_OK(cudaStreamSynchronize(st));
        check_dev_err(err, "shoal_dev_barrier_all_block then shoal_dev_barrier_all_grid in one cooperative launch");
        check_note("%u rounds of a block barrier by the last block, then a grid barrier", rounds);
        SH_OK(sh, shoal_barrier_all(sh));
        SH_OK(sh, shoal_free(sh, grd));
        SH_OK(sh, shoal_free(sh, blk));
    }

    SH_OK(sh, shoal_barrier_all(sh));
    CUDA_OK(cudaStreamDestroy(st));
    cudaFree(err);
    SH_OK(sh, shoal_free(sh, box));
    SH_OK(sh, shoal_finalize(sh));
    if (me == 0) printf("test_device_barrier: %d PEs passed\n", npes);
    MPI_Finalize();
    return 0;
}
