/* Checks shared by the GPU benchmarks: a failed CUDA or shoal call prints
 * where and why, then ends every rank. */
#ifndef SHOAL_BENCH_GPU_H
#define SHOAL_BENCH_GPU_H

#include <stdio.h>

#include <cuda_runtime.h>

#include "shoal.h"

#define CUDA_OK(expr)                                                                                                  \
    do {                                                                                                               \
        cudaError_t e_ = (expr);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, cudaGetErrorString(e_));                     \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                              \
        }                                                                                                              \
    } while (0)
#define SH_OK(sh, expr)                                                                                                \
    do {                                                                                                               \
        int s_ = (expr);                                                                                               \
        if (s_ != SHOAL_SUCCESS) {                                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr, shoal_last_error(sh));                       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                              \
        }                                                                                                              \
    } while (0)

#endif /* SHOAL_BENCH_GPU_H */
