/* A stream-ordered pipeline between GPUs inside an MPI program: PE 0
 * produces a buffer chunk by chunk and sends each with put_signal on its
 * stream; PE 1's stream waits for each chunk's signal, then a kernel
 * consumes it; nothing waits on the host until the end. Then the PEs
 * check the totals with a sum reduction on the stream and with MPI.
 *
 *   mpiexec -n 2 build/examples/stream_pipeline */
#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>
#include <mpi.h>

#include "shoal.h"
#include "shoal_cuda.h"

#define CHUNKS 16
#define CHUNK 65536 /* floats */

static __global__ void produce(float *chunk, int c)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < CHUNK; i += gridDim.x * blockDim.x)
        chunk[i] = (float)((i + c) % 5);
}

static __global__ void consume(const float *chunk, double *total)
{
    __shared__ double part[256];
    double s = 0;
    for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) s += chunk[i];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int k = 1; k < blockDim.x; k++) s += part[k];
        *total += s;
    }
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    cudaStream_t st;
    int me, n;

    MPI_Init(&argc, &argv);
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_GPU;
    cfg.heap_size = 64 << 20;
    if (shoal_init(MPI_COMM_WORLD, &cfg, &sh) != SHOAL_SUCCESS) {
        fprintf(stderr, "shoal_init: %s\n", shoal_last_error(NULL));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    me = shoal_my_pe(sh);
    n = shoal_n_pes(sh);
    cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    float *buf = (float *)shoal_malloc(sh, sizeof(float) * CHUNK * CHUNKS);
    float *stage = (float *)shoal_malloc(sh, sizeof(float) * CHUNK);
    uint64_t *sig = (uint64_t *)shoal_calloc(sh, CHUNKS, sizeof(uint64_t));
    double *total = (double *)shoal_calloc(sh, 1, sizeof(double)), *all = (double *)shoal_malloc(sh, sizeof(double));
    int peer = 1 % n, rc = SHOAL_SUCCESS;

    for (int c = 0; c < CHUNKS && rc == SHOAL_SUCCESS; c++) {
        if (me == 0) {
            produce<<<32, 256, 0, st>>>(stage, c);
            rc = shoal_put_signal_on_stream(sh, buf + (size_t)c * CHUNK, stage, sizeof(float) * CHUNK, &sig[c], 1,
                                            SHOAL_SIGNAL_SET, peer, st);
        }
        if (me == peer && rc == SHOAL_SUCCESS) {
            rc = shoal_signal_wait_until_on_stream(sh, &sig[c], SHOAL_CMP_EQ, 1, st);
            if (rc == SHOAL_SUCCESS) consume<<<1, 256, 0, st>>>(buf + (size_t)c * CHUNK, total);
        }
    }
    /* every PE's total, summed on the stream */
    if (rc == SHOAL_SUCCESS) rc = shoal_double_sum_reduce_on_stream(shoal_team_world(sh), all, total, 1, st);
    if (rc != SHOAL_SUCCESS) {
        fprintf(stderr, "PE %d: %s\n", me, shoal_last_error(sh));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    cudaStreamSynchronize(st);
    double got = 0, want = 0;
    cudaMemcpy(&got, all, sizeof(double), cudaMemcpyDeviceToHost);
    for (int c = 0; c < CHUNKS; c++)
        for (int i = 0; i < CHUNK; i++) want += (double)((i + c) % 5);
    double mpi_got = 0;
    MPI_Allreduce(&got, &mpi_got, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (me == 0)
        printf("stream_pipeline: %d chunks of %d floats, PE 0 -> PE %d in stream order: total %.0f (%s)\n", CHUNKS,
               CHUNK, peer, got, got == want && mpi_got == want ? "right" : "WRONG");
    shoal_free(sh, all);
    shoal_free(sh, total);
    shoal_free(sh, sig);
    shoal_free(sh, stage);
    shoal_free(sh, buf);
    cudaStreamDestroy(st);
    shoal_finalize(sh);
    MPI_Finalize();
    return got == want ? 0 : 1;
}
