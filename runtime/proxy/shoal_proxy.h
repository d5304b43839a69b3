/* The device proxy (runtime/proxy/proxy.c): a host thread per PE that
 * serves what its kernels ask of PEs they cannot load from and store to
 * (api/shoal_device_proxy.cuh is the kernels' side). CUDA builds only. */
#ifndef SHOAL_PROXY_H
#define SHOAL_PROXY_H

#include "base/shoal_instance.h"

#if SHOAL_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "shoal_device_types.h"

/* shoal_device_get's part: fill dev's atomics map, node and proxy fields
 * (dev's peer tables are filled already), starting the proxy the first
 * time some PE needs it. Without MPI_THREAD_MULTIPLE there is no proxy:
 * dev->proxy.status says SHOAL_ERR_THREAD and a warning says why, once. */
SHOAL__HIDDEN int shoal__proxy_attach(shoal_t sh, shoal_device_t *dev);
/* Does the device proxy run (made now if shoal_device_get has not yet)?
 * shoal_team_device_get: teams with members out of reach then work. */
SHOAL__HIDDEN bool shoal__proxy_ready(shoal_t sh);
/* The host's side of completion (shoal_quiet, shoal_barrier_all...): wait
 * until every request the kernels posted so far is served (bounded by
 * SHOAL_TIMEOUT, naming the request it waits on), and report the first
 * failure of a request nobody waited for, once. Nothing to do without a
 * proxy. */
SHOAL__HIDDEN int shoal__proxy_drain(shoal_t sh, const char *call);
/* The same in the order of a stream: a one-thread kernel quiets the proxy
 * there (runtime/proxy/proxy_stream.cu). */
SHOAL__HIDDEN int shoal__proxy_quiet_on_stream(shoal_t sh, const char *call, cudaStream_t stream);
/* Stop the thread and free the ring (shoal_finalize, before the transports go). */
SHOAL__HIDDEN void shoal__proxy_stop(shoal_t sh);
#else
static inline int shoal__proxy_drain(shoal_t sh, const char *call)
{
    (void)sh;
    (void)call;
    return SHOAL_SUCCESS;
}
static inline void shoal__proxy_stop(shoal_t sh) { (void)sh; }
#endif

/* The host calls that complete what kernels sent (shoal_quiet,
 * shoal_barrier_all...): drain first where kernels have a proxy. */
static inline int shoal__proxy_complete(shoal_t sh, const char *call)
{
    return SHOAL__LIKELY(sh->proxy == NULL) ? SHOAL_SUCCESS : shoal__proxy_drain(sh, call);
}

#endif /* SHOAL_PROXY_H */
