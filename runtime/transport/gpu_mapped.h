/* The data path over GPU heaps mapped in this process
 * (runtime/transport/gpu_mapped.c): what self and cuda_ipc do on GPU
 * heaps. CUDA builds only. */
#ifndef SHOAL_GPU_MAPPED_H
#define SHOAL_GPU_MAPPED_H

#include "base/shoal_amo_op.h"
#include "heap/shoal_gpu.h"

/* Copies to a GPU heap mapped here (runtime/transport/gpu_mapped.c): the
 * data path of self and cuda_ipc on GPU heaps. */
SHOAL__HIDDEN int shoal__gpu_mapped_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n,
                                        int nbi);
SHOAL__HIDDEN int shoal__gpu_mapped_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi);
/* The same for height rows of width bytes (pitches in bytes): one
 * cudaMemcpy2DAsync on the internal stream. */
SHOAL__HIDDEN int shoal__gpu_mapped_put_2d(shoal_t sh, const char *call, int pe, size_t off, size_t pitch,
                                           const void *src, size_t spitch, size_t width, size_t height, int nbi);
SHOAL__HIDDEN int shoal__gpu_mapped_get_2d(shoal_t sh, const char *call, int pe, void *dst, size_t dpitch, size_t off,
                                           size_t pitch, size_t width, size_t height, int nbi);
/* Complete the internal stream's copies (safe from several threads). */
SHOAL__HIDDEN int shoal__gpu_quiet(shoal_t sh, const char *call);
SHOAL__HIDDEN int shoal__gpu_mapped_put_stream(shoal_t sh, const char *call, int pe, size_t off, const void *src,
                                               size_t n, void *stream);
SHOAL__HIDDEN int shoal__gpu_mapped_get_stream(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n,
                                               void *stream);
SHOAL__HIDDEN int shoal__gpu_mapped_p_stream(shoal_t sh, const char *call, int pe, size_t off, const void *value,
                                             size_t n, void *stream);
SHOAL__HIDDEN int shoal__gpu_quiet_stream(shoal_t sh, const char *call, void *stream);
/* Atomics on a GPU heap mapped here: a one-thread kernel on the internal
 * stream (on the caller's stream for amo_stream). */
SHOAL__HIDDEN int shoal__gpu_mapped_amo(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a,
                                        void *result, int nbi);
SHOAL__HIDDEN int shoal__gpu_mapped_amo_stream(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a,
                                               void *stream);

/* The data path of a transport table over GPU heaps mapped here (self and
 * cuda_ipc): the same functions in both. */
#define SHOAL__TP_GPU_MAPPED_OPS                                                                                       \
    .caps = SHOAL__TP_CAP_MAPPED | SHOAL__TP_CAP_STREAM, .put = shoal__gpu_mapped_put, .get = shoal__gpu_mapped_get,   \
    .quiet = shoal__gpu_quiet, .put_2d = shoal__gpu_mapped_put_2d, .get_2d = shoal__gpu_mapped_get_2d,                 \
    .put_stream = shoal__gpu_mapped_put_stream, .get_stream = shoal__gpu_mapped_get_stream,                            \
    .p_stream = shoal__gpu_mapped_p_stream, .quiet_stream = shoal__gpu_quiet_stream, .amo = shoal__gpu_mapped_amo,     \
    .amo_stream = shoal__gpu_mapped_amo_stream

#endif /* SHOAL_GPU_MAPPED_H */
