/* <mpp/shmemx.h>: where OpenSHMEM 1.0 programs include shmemx.h from
 * (deprecated in 1.1, still required by 1.5): the same header. */
#ifndef SHMEM_MPP_SHMEMX_H
#define SHMEM_MPP_SHMEMX_H
#include "../shmemx.h"
#endif /* SHMEM_MPP_SHMEMX_H */
