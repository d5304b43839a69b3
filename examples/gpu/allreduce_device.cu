/* A sum all-reduce made inside a kernel, next to the compute that produces
 * its input: each PE's block computes a vector, reduces it with the PEs of
 * its node (shoal_dev_float_sum_reduce_block: one kernel, no host round
 * trip), and scales the result, all in one launch.
 *
 *   mpiexec -n 2 build/examples/allreduce_device
 *
 * The PEs' kernels wait for each other inside the reduction, so they must
 * run at the same time: PEs sharing one GPU need MPS (nvidia-cuda-mps-control
 * -d); without it this example says so and stops. */
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>
#include <mpi.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"

#define N 4096

static __global__ void compute_and_reduce(shoal_device_t dev, shoal_dev_team_t team, float *x, float *sum, int *status)
{
    /* "compute": this PE's contribution */
    for (int i = threadIdx.x; i < N; i += blockDim.x) x[i] = (float)(team.my_pe + 1) * (float)(i % 7);
    int rc = shoal_dev_float_sum_reduce_block(dev, team, sum, x, N);
    /* use the result right away: the mean over the team */
    for (int i = threadIdx.x; i < N; i += blockDim.x) sum[i] /= (float)team.n_pes;
    if (threadIdx.x == 0) *status = rc;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int me, n, rc;

    MPI_Init(&argc, &argv);
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = 16 << 20;
    rc = shoal_init(MPI_COMM_WORLD, &cfg, &sh);
    if (rc != SHOAL_SUCCESS) {
        fprintf(stderr, "shoal_init: %s\n", shoal_last_error(NULL));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    me = shoal_my_pe(sh);
    n = shoal_n_pes(sh);
    int shared = 0;
    for (int pe = 0; pe < n; pe++) shared |= shoal_pe_gpu_shared(sh, pe) == SHOAL_GPU_SHARED;
    MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    shoal_team_t node = shoal_team_node(sh);
    shoal_dev_team_t team;
    shoal_device_t dev;
    if (shared || shoal_team_device_get(node, &team) != SHOAL_SUCCESS || shoal_device_get(sh, &dev) != SHOAL_SUCCESS) {
        if (me == 0)
            printf("allreduce_device: %s\n", shared ? "PEs share a GPU without MPS: start MPS to run kernels that "
                                                      "wait for each other (skipped)"
                                                    : shoal_last_error(sh));
        shoal_finalize(sh);
        MPI_Finalize();
        return 0;
    }
    float *x = (float *)shoal_malloc(sh, N * sizeof(float)), *sum = (float *)shoal_malloc(sh, N * sizeof(float));
    int *status;
    cudaMalloc(&status, sizeof(int));
    compute_and_reduce<<<1, 512>>>(dev, team, x, sum, status);
    if (cudaDeviceSynchronize() != cudaSuccess) MPI_Abort(MPI_COMM_WORLD, 1);
    float h[8];
    int st = -1;
    cudaMemcpy(h, sum, sizeof(h), cudaMemcpyDeviceToHost);
    cudaMemcpy(&st, status, sizeof(int), cudaMemcpyDeviceToHost);
    /* mean of (k + 1) * (i % 7) over the node's k = 0 .. m-1 */
    int m = shoal_team_n_pes(node), bad = st != SHOAL_SUCCESS;
    for (int i = 0; i < 8; i++) bad |= h[i] != (float)(m + 1) / 2.0f * (float)(i % 7);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD); /* the application's own MPI, mixed in */
    if (me == 0)
        printf("allreduce_device: %d PEs of the node reduced %d floats in one kernel: %s (sum[3] / %d = %g)\n", m, N,
               any ? "WRONG" : "right", m, h[3]);
    shoal_free(sh, sum);
    shoal_free(sh, x);
    cudaFree(status);
    shoal_finalize(sh);
    MPI_Finalize();
    return any;
}
