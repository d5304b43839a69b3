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
#define CUDA_OK(expr)                                                                    \
    do {                                                                                 \
        cudaError_t e_ = (expr);                                                         \
        CHECK_MSG(e_ == cudaSuccess, "%s: %s", #expr, cudaGetErrorString(e_));           \
    } while (0)

/* A shoal call that must return SHOAL_SUCCESS; prints the instance's last error. */
#define SH_OK(sh, expr)                                                                  \
    do {                                                                                 \
        int s_ = (expr);                                                                 \
        CHECK_MSG(s_ == SHOAL_SUCCESS, "%s: %s: %s", #expr, shoal_strerror(s_), shoal_last_error(sh)); \
    } while (0)

#endif /* SHOAL_TEST_GPU_CHECK_H */
