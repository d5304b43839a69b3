/* The kernels of the stream-ordered team collectives: the device API's
 * block-scope barrier and collectives (api/shoal_device_team.cuh), launched
 * as one block where the data is small (one kernel: barrier, data,
 * barrier), and its reduction (or reduce-scatter) share as a grid where it
 * is large (the barriers then enqueued apart, as one-block kernels). */
#include <stdint.h>

#include "shoal_device.cuh"
#include "team/team_kernels.h"

/* Threads of a one-block kernel, and the most blocks of a grid. */
#define SHOAL__K_THREADS 512
#define SHOAL__K_MAX_BLOCKS 264

static __global__ void team_barrier_kernel(shoal_device_t dev, shoal_dev_team_t team)
{
    (void)shoal__dev_team_barrier<SHOAL__DEV_BLOCK>(dev, team);
}

static __global__ void team_push_kernel(shoal_device_t dev, shoal_dev_team_t team, int kind, void *dest,
                                        const void *src, size_t nbytes, int root)
{
    (void)shoal__dev_team_push<SHOAL__DEV_BLOCK>(dev, team, kind, dest, src, nbytes, root);
}

/* Scatter: a reduce-scatter (n elements a block), else a reduction. */
template <typename T, typename Op, bool Scatter>
static __global__ void team_reduce_kernel(shoal_device_t dev, shoal_dev_team_t team, T *dest, const T *src, size_t n,
                                          int mode)
{
    if (mode == SHOAL__KM_FUSED) {
        if (Scatter)
            (void)shoal__dev_team_reducescatter<SHOAL__DEV_BLOCK, T, Op>(dev, team, dest, src, n);
        else
            (void)shoal__dev_team_reduce<SHOAL__DEV_BLOCK, T, Op>(dev, team, dest, src, n);
        return;
    }
    size_t rank = (size_t)blockIdx.x * blockDim.x + threadIdx.x, size = (size_t)gridDim.x * blockDim.x;
    if (Scatter)
        shoal__dev_team_reducescatter_share<T, Op>(dev, team, dest, src, n, rank, size);
    else
        shoal__dev_team_reduce_share<T, Op>(dev, team, dest, src, n, rank, size);
}

extern "C" cudaError_t shoal__team_barrier_launch(cudaStream_t stream, const shoal_device_t *dev,
                                                  const shoal_dev_team_t *team)
{
    team_barrier_kernel<<<1, 32, 0, stream>>>(*dev, *team);
    return cudaGetLastError();
}

extern "C" cudaError_t shoal__team_push_launch(cudaStream_t stream, const shoal_device_t *dev,
                                               const shoal_dev_team_t *team, int kind, void *dest, const void *src,
                                               size_t nbytes, int root)
{
    team_push_kernel<<<1, SHOAL__K_THREADS, 0, stream>>>(*dev, *team, kind, dest, src, nbytes, root);
    return cudaGetLastError();
}

template <typename T, typename Op>
static cudaError_t team_reduce_go(cudaStream_t stream, const shoal_device_t *dev, const shoal_dev_team_t *team,
                                  void *dest, const void *src, size_t n, int mode, int scatter)
{
    unsigned blocks = 1;
    if (mode == SHOAL__KM_DATA) {
        /* The elements this PE combines: a share of a reduction, a whole block of a reduce-scatter. */
        size_t share = scatter ? n : (n + (size_t)team->n_pes - 1) / (size_t)team->n_pes;
        size_t want = (share + SHOAL__K_THREADS * 4 - 1) / (SHOAL__K_THREADS * 4);
        blocks = want < 1 ? 1 : want > SHOAL__K_MAX_BLOCKS ? SHOAL__K_MAX_BLOCKS : (unsigned)want;
    }
    if (scatter)
        team_reduce_kernel<T, Op, true>
            <<<blocks, SHOAL__K_THREADS, 0, stream>>>(*dev, *team, (T *)dest, (const T *)src, n, mode);
    else
        team_reduce_kernel<T, Op, false>
            <<<blocks, SHOAL__K_THREADS, 0, stream>>>(*dev, *team, (T *)dest, (const T *)src, n, mode);
    return cudaGetLastError();
}

template <typename T>
static cudaError_t team_reduce_arith(cudaStream_t stream, const shoal_device_t *dev, const shoal_dev_team_t *team,
                                     int op, void *dest, const void *src, size_t n, int mode, int scatter)
{
    switch (op) {
    case SHOAL__KOP_MIN: return team_reduce_go<T, shoal__dev_op_min>(stream, dev, team, dest, src, n, mode, scatter);
    case SHOAL__KOP_MAX: return team_reduce_go<T, shoal__dev_op_max>(stream, dev, team, dest, src, n, mode, scatter);
    case SHOAL__KOP_SUM: return team_reduce_go<T, shoal__dev_op_sum>(stream, dev, team, dest, src, n, mode, scatter);
    case SHOAL__KOP_PROD: return team_reduce_go<T, shoal__dev_op_prod>(stream, dev, team, dest, src, n, mode, scatter);
    default: return cudaErrorInvalidValue;
    }
}

template <typename T>
static cudaError_t team_reduce_int(cudaStream_t stream, const shoal_device_t *dev, const shoal_dev_team_t *team, int op,
                                   void *dest, const void *src, size_t n, int mode, int scatter)
{
    switch (op) {
    case SHOAL__KOP_AND: return team_reduce_go<T, shoal__dev_op_and>(stream, dev, team, dest, src, n, mode, scatter);
    case SHOAL__KOP_OR: return team_reduce_go<T, shoal__dev_op_or>(stream, dev, team, dest, src, n, mode, scatter);
    case SHOAL__KOP_XOR: return team_reduce_go<T, shoal__dev_op_xor>(stream, dev, team, dest, src, n, mode, scatter);
    default: return team_reduce_arith<T>(stream, dev, team, op, dest, src, n, mode, scatter);
    }
}

extern "C" cudaError_t shoal__team_reduce_launch(cudaStream_t stream, const shoal_device_t *dev,
                                                 const shoal_dev_team_t *team, int kt, int op, void *dest,
                                                 const void *src, size_t n, int mode, int scatter)
{
    switch (kt) {
    case SHOAL__KT_I8: return team_reduce_int<int8_t>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_I16: return team_reduce_int<int16_t>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_I32: return team_reduce_int<int32_t>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_I64: return team_reduce_int<int64_t>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_U8: return team_reduce_int<uint8_t>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_U16: return team_reduce_int<uint16_t>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_U32: return team_reduce_int<uint32_t>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_U64: return team_reduce_int<uint64_t>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_F32: return team_reduce_arith<float>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_F64: return team_reduce_arith<double>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_F16: return team_reduce_arith<__half>(stream, dev, team, op, dest, src, n, mode, scatter);
    case SHOAL__KT_BF16: return team_reduce_arith<__nv_bfloat16>(stream, dev, team, op, dest, src, n, mode, scatter);
    default: return cudaErrorInvalidValue;
    }
}
