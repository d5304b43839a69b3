/* The public stream-ordered API (api/shoal_cuda.h): checks, then the runtime. */
#include "base/shoal_instance.h"

#if SHOAL_HAVE_CUDA
#include "shoal_cuda.h"
#include "heap/shoal_gpu.h"
#include "transport/transport.h"
#include "ops/shoal_stream.h"
#include "proxy/shoal_proxy.h"

int shoal_cuda_device(shoal_t sh)
{
    SHOAL__ENTER(sh, "shoal_cuda_device");
    return sh->gpu != NULL && sh->heap_kind == SHOAL_HEAP_GPU ? sh->gpu->device : -1;
}

int shoal_device_get(shoal_t sh, shoal_device_t *dev_p)
{
    SHOAL__ENTER(sh, "shoal_device_get");
    if (dev_p == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_device_get", "dev_p is NULL");
    int rc = shoal__device_get(sh, dev_p);
    return rc == SHOAL_SUCCESS ? shoal__proxy_attach(sh, dev_p) : rc;
}

int shoal_device_reachable(shoal_t sh, int pe)
{
    SHOAL__ENTER(sh, "shoal_device_reachable");
    if ((unsigned)pe >= (unsigned)sh->n_pes)
        return shoal__error(sh, SHOAL_ERR_PE, "shoal_device_reachable", "pe %d is out of range [0, %d)", pe, sh->n_pes);
    return sh->heap_kind == SHOAL_HEAP_GPU && shoal__tp_can(sh, pe, SHOAL__TP_CAP_MAPPED);
}

int shoal_put_on_stream(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe, cudaStream_t stream)
{
    SHOAL__ENTER(sh, "shoal_put_on_stream");
    return shoal__rma_on_stream(sh, "shoal_put_on_stream", true, dest, src, nbytes, pe, stream);
}

int shoal_get_on_stream(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe, cudaStream_t stream)
{
    SHOAL__ENTER(sh, "shoal_get_on_stream");
    return shoal__rma_on_stream(sh, "shoal_get_on_stream", false, dest, src, nbytes, pe, stream);
}

int shoal_quiet_on_stream(shoal_t sh, cudaStream_t stream)
{
    SHOAL__ENTER(sh, "shoal_quiet_on_stream");
    int rc = shoal__proxy_quiet_on_stream(sh, "shoal_quiet_on_stream", stream);
    return rc == SHOAL_SUCCESS ? shoal__quiet_on_stream(sh, stream) : rc;
}

int shoal_barrier_all_on_stream(shoal_t sh, cudaStream_t stream)
{
    SHOAL__ENTER(sh, "shoal_barrier_all_on_stream");
    int rc = shoal__proxy_quiet_on_stream(sh, "shoal_barrier_all_on_stream", stream);
    return rc == SHOAL_SUCCESS ? shoal__barrier_all_on_stream(sh, stream) : rc;
}

int shoal_put_signal_on_stream(shoal_t sh, void *dest, const void *src, size_t nbytes, uint64_t *sig, uint64_t value,
                               int op, int pe, cudaStream_t stream)
{
    SHOAL__ENTER(sh, "shoal_put_signal_on_stream");
    return shoal__put_signal_on_stream(sh, "shoal_put_signal_on_stream", dest, src, nbytes, sig, value, op, pe, stream);
}

int shoal_signal_op_on_stream(shoal_t sh, uint64_t *sig, uint64_t value, int op, int pe, cudaStream_t stream)
{
    SHOAL__ENTER(sh, "shoal_signal_op_on_stream");
    return shoal__put_signal_on_stream(sh, "shoal_signal_op_on_stream", NULL, NULL, 0, sig, value, op, pe, stream);
}

int shoal_signal_wait_until_on_stream(shoal_t sh, uint64_t *sig, int cmp, uint64_t value, cudaStream_t stream)
{
    SHOAL__ENTER(sh, "shoal_signal_wait_until_on_stream");
    return shoal__signal_wait_on_stream(sh, "shoal_signal_wait_until_on_stream", sig, cmp, value, stream);
}

static int shoal__wait_stream_call(shoal_t sh, const char *call, const void *ivars, size_t nelems, size_t size,
                                   bool sgn, const int *status, int cmp, const void *values, bool vector,
                                   cudaStream_t stream)
{
    shoal__wait_spec_t w =
        shoal__wait_spec(ivars, nelems, size, sgn, status, cmp, values, vector, SHOAL__WAIT_ALL, true);
    return shoal__wait_on_stream(sh, call, &w, stream);
}

#define SHOAL__WAIT_STREAM_DEF(T, N)                                                                                   \
    int shoal_##N##_wait_until_on_stream(shoal_t sh, T *ivar, int cmp, T value, cudaStream_t stream)                   \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_on_stream");                                                         \
        return shoal__wait_stream_call(sh, "shoal_" #N "_wait_until_on_stream", ivar, 1, sizeof(T), SHOAL__SIGNED(T),  \
                                       NULL, cmp, &value, false, stream);                                              \
    }                                                                                                                  \
    int shoal_##N##_wait_until_all_on_stream(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, T value, \
                                             cudaStream_t stream)                                                      \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_all_on_stream");                                                     \
        return shoal__wait_stream_call(sh, "shoal_" #N "_wait_until_all_on_stream", ivars, nelems, sizeof(T),          \
                                       SHOAL__SIGNED(T), status, cmp, &value, false, stream);                          \
    }                                                                                                                  \
    int shoal_##N##_wait_until_all_vector_on_stream(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp,   \
                                                    const T *values, cudaStream_t stream)                              \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_wait_until_all_vector_on_stream");                                              \
        return shoal__wait_stream_call(sh, "shoal_" #N "_wait_until_all_vector_on_stream", ivars, nelems, sizeof(T),   \
                                       SHOAL__SIGNED(T), status, cmp, values, true, stream);                           \
    }
SHOAL_WAIT_TYPES(SHOAL__WAIT_STREAM_DEF)
#undef SHOAL__WAIT_STREAM_DEF

#define SHOAL__TYPED_STREAM_DEF(T, N)                                                                                  \
    int shoal_##N##_put_on_stream(shoal_t sh, T *dest, const T *src, size_t nelems, int pe, cudaStream_t stream)       \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_put_on_stream");                                                                \
        if (nelems > SIZE_MAX / sizeof(T))                                                                             \
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_" #N "_put_on_stream", "%zu elements overflow",      \
                                nelems);                                                                               \
        return shoal__rma_on_stream(sh, "shoal_" #N "_put_on_stream", true, dest, src, nelems * sizeof(T), pe,         \
                                    stream);                                                                           \
    }                                                                                                                  \
    int shoal_##N##_get_on_stream(shoal_t sh, T *dest, const T *src, size_t nelems, int pe, cudaStream_t stream)       \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_get_on_stream");                                                                \
        if (nelems > SIZE_MAX / sizeof(T))                                                                             \
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_" #N "_get_on_stream", "%zu elements overflow",      \
                                nelems);                                                                               \
        return shoal__rma_on_stream(sh, "shoal_" #N "_get_on_stream", false, dest, src, nelems * sizeof(T), pe,        \
                                    stream);                                                                           \
    }                                                                                                                  \
    int shoal_##N##_p_on_stream(shoal_t sh, T *dest, T value, int pe, cudaStream_t stream)                             \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_p_on_stream");                                                                  \
        return shoal__p_on_stream(sh, "shoal_" #N "_p_on_stream", dest, &value, sizeof(T), pe, stream);                \
    }
SHOAL_RMA_TYPES(SHOAL__TYPED_STREAM_DEF)
SHOAL_HALF_TYPES(SHOAL__TYPED_STREAM_DEF)
#undef SHOAL__TYPED_STREAM_DEF
#endif
