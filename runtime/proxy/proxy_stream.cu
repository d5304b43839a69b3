/* The device proxy's quiet in the order of a stream (proxy_stream.h). */
#include "shoal_device.cuh"
#include "proxy/proxy_stream.h"

static __global__ void shoal__proxy_quiet_kernel(shoal_device_t dev) { (void)shoal_dev_quiet(dev); }

cudaError_t shoal__proxy_quiet_launch(const shoal_device_t *dev, cudaStream_t stream)
{
    shoal__proxy_quiet_kernel<<<1, 1, 0, stream>>>(*dev);
    return cudaGetLastError();
}

cudaError_t shoal__proxy_kernels_preload(void)
{
    struct cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, shoal__proxy_quiet_kernel);
}
