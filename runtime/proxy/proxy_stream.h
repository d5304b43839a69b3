/* The device proxy's quiet as a stream operation (runtime/proxy/proxy_stream.cu).
 * CUDA builds only; C and CUDA C++. */
#ifndef SHOAL_PROXY_STREAM_H
#define SHOAL_PROXY_STREAM_H

#include <cuda_runtime_api.h>

#include "shoal_device_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Queue on stream a one-thread kernel that quiets dev's proxy: what
 * kernels before it in the stream sent through the proxy is complete
 * before what follows. Returns the launch's error. */
__attribute__((visibility("hidden"))) cudaError_t shoal__proxy_quiet_launch(const shoal_device_t *dev,
                                                                            cudaStream_t stream);
/* Load the kernel now (CUDA's lazy loading would make its first launch wait
 * for running kernels). */
__attribute__((visibility("hidden"))) cudaError_t shoal__proxy_kernels_preload(void);

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_PROXY_STREAM_H */
