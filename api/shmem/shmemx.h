/* OpenSHMEM extensions of shoal (shmem.h has the whole API). */
#ifndef SHMEMX_H
#define SHMEMX_H
#include <stddef.h>

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The symmetric heap on this PE (shoal_heap_stats): bytes in blocks in
 * use, bytes it may take from the machine now (pages under blocks in use
 * on a host heap; chunks mapped on a growing GPU heap), and its limit
 * (SHMEM_SYMMETRIC_SIZE or SHOAL_HEAP_SIZE). Any pointer may be NULL.
 * Returns 0, or nonzero before shmem_init. */
int shmemx_heap_stats(size_t *used, size_t *mapped, size_t *limit);

#ifdef __cplusplus
}
#endif
#endif /* SHMEMX_H */
