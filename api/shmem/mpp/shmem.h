/* <mpp/shmem.h>: where OpenSHMEM 1.0 programs include shmem.h from
 * (deprecated in 1.1, still required by 1.5): the same header. */
#ifndef SHMEM_MPP_SHMEM_H
#define SHMEM_MPP_SHMEM_H
#include "../shmem.h"
#endif /* SHMEM_MPP_SHMEM_H */
