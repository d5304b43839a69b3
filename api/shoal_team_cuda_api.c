/* The public team API on streams and for kernels (api/shoal_cuda.h):
 * checks, then the runtime; where the GPU cannot run a collective, the host
 * waits for the stream and runs it. */
#include <string.h>

#include "proxy/shoal_proxy.h"
#include "team/shoal_reduce.h"
#include "team/shoal_team.h"

#if SHOAL_HAVE_CUDA
#include "shoal_cuda.h"

int shoal_team_device_get(shoal_team_t team, shoal_dev_team_t *team_p)
{
    if (team_p != NULL) memset(team_p, 0, sizeof(*team_p)); /* ok 0 whatever happens */
    SHOAL__TEAM_ENTER(team, "shoal_team_device_get");
    if (team_p == NULL) return shoal__error(team->sh, SHOAL_ERR_INVALID_ARG, "shoal_team_device_get", "team_p is NULL");
    /* Members out of load/store reach: through the device proxy, where it runs. */
    return shoal__team_device_fill(team, team_p, shoal__proxy_ready(team->sh));
}

int shoal_team_barrier_on_stream(shoal_team_t team, cudaStream_t stream)
{
    SHOAL__TEAM_ENTER(team, "shoal_team_barrier_on_stream");
    int rc = shoal__proxy_quiet_on_stream(team->sh, "shoal_team_barrier_on_stream", stream);
    return rc == SHOAL_SUCCESS ? shoal__team_barrier_on_stream(team, "shoal_team_barrier_on_stream", stream) : rc;
}

/* On the GPU where it can; else the host, once the stream is idle. */
static int shoal__coll_stream_api(shoal_team_t t, const char *call, const shoal__coll_args_t *a, cudaStream_t stream)
{
    int rc = shoal__coll_run_stream(t, call, a, stream);
    if (rc != SHOAL__COLL_NOT_HERE) return rc;
    rc = shoal__team_stream_wait(t, call, stream);
    if (rc != SHOAL_SUCCESS) return shoal__coll_fail(t, call, SHOAL__TC_KIND(a->tc, a->dt, a->op), a->nelems, 0, rc);
    return shoal__coll_run_host(t, call, a);
}

#define SHOAL__COLL_STREAM_DEF(T, N)                                                                                   \
    int shoal_##N##_broadcast_on_stream(shoal_team_t team, T *dest, const T *src, size_t nelems, int root,             \
                                        cudaStream_t stream)                                                           \
    {                                                                                                                  \
        shoal__coll_args_t a =                                                                                         \
            {.tc = SHOAL__TC_BCAST, .dt = SHOAL__DT_##N, .dest = dest, .src = src, .nelems = nelems, .root = root};    \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_broadcast_on_stream");                                                   \
        return shoal__coll_stream_api(team, "shoal_" #N "_broadcast_on_stream", &a, stream);                           \
    }                                                                                                                  \
    int shoal_##N##_collect_on_stream(shoal_team_t team, T *dest, const T *src, size_t nelems, cudaStream_t stream)    \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = SHOAL__TC_COLLECT,                                                               \
                                .dt = SHOAL__DT_##N,                                                                   \
                                .dest = dest,                                                                          \
                                .src = src,                                                                            \
                                .nelems = nelems};                                                                     \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_collect_on_stream");                                                     \
        return shoal__coll_stream_api(team, "shoal_" #N "_collect_on_stream", &a, stream);                             \
    }                                                                                                                  \
    int shoal_##N##_fcollect_on_stream(shoal_team_t team, T *dest, const T *src, size_t nelems, cudaStream_t stream)   \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = SHOAL__TC_FCOLLECT,                                                              \
                                .dt = SHOAL__DT_##N,                                                                   \
                                .dest = dest,                                                                          \
                                .src = src,                                                                            \
                                .nelems = nelems};                                                                     \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_fcollect_on_stream");                                                    \
        return shoal__coll_stream_api(team, "shoal_" #N "_fcollect_on_stream", &a, stream);                            \
    }                                                                                                                  \
    int shoal_##N##_alltoall_on_stream(shoal_team_t team, T *dest, const T *src, size_t nelems, cudaStream_t stream)   \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = SHOAL__TC_ALLTOALL,                                                              \
                                .dt = SHOAL__DT_##N,                                                                   \
                                .dest = dest,                                                                          \
                                .src = src,                                                                            \
                                .nelems = nelems};                                                                     \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_alltoall_on_stream");                                                    \
        return shoal__coll_stream_api(team, "shoal_" #N "_alltoall_on_stream", &a, stream);                            \
    }                                                                                                                  \
    int shoal_##N##_alltoalls_on_stream(shoal_team_t team, T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst,        \
                                        size_t nelems, cudaStream_t stream)                                            \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = SHOAL__TC_ALLTOALLS,                                                             \
                                .dt = SHOAL__DT_##N,                                                                   \
                                .dest = dest,                                                                          \
                                .src = src,                                                                            \
                                .nelems = nelems,                                                                      \
                                .dst = dst,                                                                            \
                                .sst = sst};                                                                           \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_alltoalls_on_stream");                                                   \
        return shoal__coll_stream_api(team, "shoal_" #N "_alltoalls_on_stream", &a, stream);                           \
    }
SHOAL_RMA_TYPES(SHOAL__COLL_STREAM_DEF)
SHOAL_HALF_TYPES(SHOAL__COLL_STREAM_DEF)
#undef SHOAL__COLL_STREAM_DEF

#define SHOAL__COLLMEM_STREAM_DEF(NAME, TC)                                                                            \
    int shoal_##NAME##mem_on_stream(shoal_team_t team, void *dest, const void *src, size_t nbytes,                     \
                                    cudaStream_t stream)                                                               \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = TC, .dest = dest, .src = src, .nelems = nbytes};                                 \
        SHOAL__TEAM_ENTER(team, "shoal_" #NAME "mem_on_stream");                                                       \
        return shoal__coll_stream_api(team, "shoal_" #NAME "mem_on_stream", &a, stream);                               \
    }
SHOAL__COLLMEM_STREAM_DEF(collect, SHOAL__TC_COLLECT)
SHOAL__COLLMEM_STREAM_DEF(fcollect, SHOAL__TC_FCOLLECT)
SHOAL__COLLMEM_STREAM_DEF(alltoall, SHOAL__TC_ALLTOALL)
#undef SHOAL__COLLMEM_STREAM_DEF

int shoal_broadcastmem_on_stream(shoal_team_t team, void *dest, const void *src, size_t nbytes, int root,
                                 cudaStream_t stream)
{
    shoal__coll_args_t a = {.tc = SHOAL__TC_BCAST, .dest = dest, .src = src, .nelems = nbytes, .root = root};
    SHOAL__TEAM_ENTER(team, "shoal_broadcastmem_on_stream");
    return shoal__coll_stream_api(team, "shoal_broadcastmem_on_stream", &a, stream);
}

int shoal_alltoallsmem_on_stream(shoal_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                 size_t nbytes, cudaStream_t stream)
{
    shoal__coll_args_t a =
        {.tc = SHOAL__TC_ALLTOALLS, .dest = dest, .src = src, .nelems = nbytes, .dst = dst, .sst = sst};
    SHOAL__TEAM_ENTER(team, "shoal_alltoallsmem_on_stream");
    return shoal__coll_stream_api(team, "shoal_alltoallsmem_on_stream", &a, stream);
}

/* A reduction (TC REDUCE, NAME reduce) or reduce-scatter on a stream. */
#define SHOAL__REDUCE_STREAM_DEF2(T, N, OP, TC, NAME)                                                                  \
    int shoal_##N##_##OP##_##NAME##_on_stream(shoal_team_t team, T *dest, const T *src, size_t nreduce,                \
                                              cudaStream_t stream)                                                     \
    {                                                                                                                  \
        shoal__coll_args_t a =                                                                                         \
            {.tc = TC, .dt = SHOAL__DT_##N, .op = SHOAL__OP_##OP, .dest = dest, .src = src, .nelems = nreduce};        \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_" #OP "_" #NAME "_on_stream");                                           \
        return shoal__coll_stream_api(team, "shoal_" #N "_" #OP "_" #NAME "_on_stream", &a, stream);                   \
    }
#define SHOAL__REDUCE_STREAM_DEF1(T, N, OP)                                                                            \
    SHOAL__REDUCE_STREAM_DEF2(T, N, OP, SHOAL__TC_REDUCE, reduce)                                                      \
    SHOAL__REDUCE_STREAM_DEF2(T, N, OP, SHOAL__TC_REDUCESCATTER, reducescatter)
#define SHOAL__REDUCE_STREAM_BIT(T, N)                                                                                 \
    SHOAL__REDUCE_STREAM_DEF1(T, N, and) SHOAL__REDUCE_STREAM_DEF1(T, N, or) SHOAL__REDUCE_STREAM_DEF1(T, N, xor)
#define SHOAL__REDUCE_STREAM_ARITH(T, N)                                                                               \
    SHOAL__REDUCE_STREAM_DEF1(T, N, min)                                                                               \
    SHOAL__REDUCE_STREAM_DEF1(T, N, max) SHOAL__REDUCE_STREAM_DEF1(T, N, sum) SHOAL__REDUCE_STREAM_DEF1(T, N, prod)
#define SHOAL__REDUCE_STREAM_CPLX(T, N) SHOAL__REDUCE_STREAM_DEF1(T, N, sum) SHOAL__REDUCE_STREAM_DEF1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(SHOAL__REDUCE_STREAM_BIT)
SHOAL_REDUCE_ARITH_TYPES(SHOAL__REDUCE_STREAM_ARITH)
SHOAL_HALF_TYPES(SHOAL__REDUCE_STREAM_ARITH)
SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__REDUCE_STREAM_CPLX)
#endif
