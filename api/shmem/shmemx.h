/* OpenSHMEM extensions of shoal: none yet (shmem.h has the whole API). */
#ifndef SHMEMX_H
#define SHMEMX_H
#include "shmem.h"
#endif /* SHMEMX_H */
