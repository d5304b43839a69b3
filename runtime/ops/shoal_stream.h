/* The stream-ordered operations (runtime/ops/gpu_stream.c): puts, gets,
 * values, signals and barriers in the order of a CUDA stream. CUDA builds
 * only. */
#ifndef SHOAL_STREAM_H
#define SHOAL_STREAM_H

#include <cuda_runtime_api.h>

#include "base/shoal_instance.h"
#include "ops/shoal_amo.h"

/* A put (is_put) or get of n bytes with pe in stream order. */
SHOAL__HIDDEN int shoal__rma_on_stream(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n,
                                       int pe, cudaStream_t stream);
/* A 4- or 8-byte value stored into pe's heap in stream order. */
SHOAL__HIDDEN int shoal__p_on_stream(shoal_t sh, const char *call, void *dest, const void *value, size_t n, int pe,
                                     cudaStream_t stream);
SHOAL__HIDDEN int shoal__quiet_on_stream(shoal_t sh, cudaStream_t stream);
/* put_signal and signal_op in stream order (no data: nbytes 0), and the
 * stream's wait for this PE's signal. */
SHOAL__HIDDEN int shoal__put_signal_on_stream(shoal_t sh, const char *call, void *dest, const void *src, size_t nbytes,
                                              uint64_t *sig, uint64_t value, int op, int pe, cudaStream_t stream);
SHOAL__HIDDEN int shoal__signal_wait_on_stream(shoal_t sh, const char *call, uint64_t *sig, int cmp, uint64_t value,
                                               cudaStream_t stream);
/* The stream waits until this PE's ivars satisfy w (a blocking ALL wait:
 * wait_until, wait_until_all, wait_until_all_vector). */
SHOAL__HIDDEN int shoal__wait_on_stream(shoal_t sh, const char *call, const shoal__wait_spec_t *w, cudaStream_t stream);
SHOAL__HIDDEN int shoal__barrier_all_on_stream(shoal_t sh, cudaStream_t stream);

#endif /* SHOAL_STREAM_H */
