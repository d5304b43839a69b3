/* Kernels for host atomics and stream waits on GPU heaps
 * (runtime/heap/gpu_amo.cu). CUDA builds only. */
#ifndef SHOAL_GPU_AMO_H
#define SHOAL_GPU_AMO_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/shoal_amo_op.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Queue a on the word at word (device memory of this GPU or a peer's mapped
 * here) on stream; result (device or pinned host memory, or NULL) gets the
 * old value. Returns the launch's error. */
__attribute__((visibility("hidden"))) cudaError_t shoal__gpu_amo_launch(cudaStream_t stream, void *word,
                                                                        const shoal__amo_t *a, void *result);
/* Load this file's kernels now. Under CUDA's lazy module loading (the
 * default) the first launch of a kernel loads it, and loading waits for
 * the kernels running on the GPU: a proxy's first atomic would then wait
 * for the very kernel that asked for it. */
__attribute__((visibility("hidden"))) cudaError_t shoal__gpu_kernels_preload(void);
/* Queue a wait on stream until the uint64_t at word <cmp> value (SHOAL_CMP_*). */
__attribute__((visibility("hidden"))) cudaError_t shoal__gpu_wait_launch(cudaStream_t stream, const uint64_t *word,
                                                                         int cmp, uint64_t value);

/* Queue a wait on stream until each of the n elements of size bytes (2, 4
 * or 8; signed or not) at ivars whose status is 0 (status NULL: all)
 * <cmp> value, or values[i] (values non-NULL: n elements of size bytes).
 * status and values in host memory (_dev false) are read before the call
 * returns; in device memory (_dev true), by the wait when it runs. */
__attribute__((visibility("hidden"))) cudaError_t shoal__gpu_wait_n_launch(cudaStream_t stream, const void *ivars,
                                                                           size_t n, size_t size, bool is_signed,
                                                                           const int *status, bool status_dev, int cmp,
                                                                           const void *values, bool values_dev,
                                                                           uint64_t value);

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_GPU_AMO_H */
