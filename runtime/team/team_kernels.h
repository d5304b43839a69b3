/* Kernels of the stream-ordered team collectives (runtime/team/team_kernels.cu).
 * CUDA builds only; plain C. */
#ifndef SHOAL_TEAM_KERNELS_H
#define SHOAL_TEAM_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "shoal_device_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The element types the kernels compute on: integers by signedness and
 * size, float and double, CUDA's half and __nv_bfloat16. */
enum {
    SHOAL__KT_I8,
    SHOAL__KT_I16,
    SHOAL__KT_I32,
    SHOAL__KT_I64,
    SHOAL__KT_U8,
    SHOAL__KT_U16,
    SHOAL__KT_U32,
    SHOAL__KT_U64,
    SHOAL__KT_F32,
    SHOAL__KT_F64,
    SHOAL__KT_F16,
    SHOAL__KT_BF16,
    SHOAL__KT_COUNT
};
/* Operators, numbered as runtime/team/shoal_reduce.h's SHOAL__OP_*. */
enum {
    SHOAL__KOP_AND = 1,
    SHOAL__KOP_OR,
    SHOAL__KOP_XOR,
    SHOAL__KOP_MIN,
    SHOAL__KOP_MAX,
    SHOAL__KOP_SUM,
    SHOAL__KOP_PROD
};
/* How a kernel meets the other members. */
enum {
    SHOAL__KM_FUSED = 0, /* one block: barrier, data, barrier */
    SHOAL__KM_DATA = 1   /* many blocks, the data only (barriers enqueued apart) */
};

#define SHOAL__KHIDDEN __attribute__((visibility("hidden")))
/* A barrier of team on stream: one block. */
SHOAL__KHIDDEN cudaError_t shoal__team_barrier_launch(cudaStream_t stream, const shoal_device_t *dev,
                                                      const shoal_dev_team_t *team);
/* broadcast (kind 0), fcollect (1), alltoall (2) of nbytes a block, fused
 * with its closing barrier: one block. */
SHOAL__KHIDDEN cudaError_t shoal__team_push_launch(cudaStream_t stream, const shoal_device_t *dev,
                                                   const shoal_dev_team_t *team, int kind, void *dest, const void *src,
                                                   size_t nbytes, int root);
/* A reduction of n elements of kt with op (mode SHOAL__KM_*); scatter 1:
 * a reduce-scatter of n elements a block (src holds one for each member). */
SHOAL__KHIDDEN cudaError_t shoal__team_reduce_launch(cudaStream_t stream, const shoal_device_t *dev,
                                                     const shoal_dev_team_t *team, int kt, int op, void *dest,
                                                     const void *src, size_t n, int mode, int scatter);
#undef SHOAL__KHIDDEN

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_TEAM_KERNELS_H */
