/* The memory of the symmetric heap: the host heap (runtime/heap/heap_host.c)
 * and the GPU heap (runtime/heap/gpu.c). Allocation on them is
 * runtime/core/malloc.c's. */
#ifndef SHOAL_HEAP_H
#define SHOAL_HEAP_H

#include "base/shoal_amo_op.h"
#include "base/shoal_instance.h"

/* Host heap (runtime/heap/heap_host.c) and GPU heap (runtime/heap/gpu.c). */
SHOAL__HIDDEN int shoal__heap_host_create(shoal_t sh);
/* Before the collective allocation: does the node's shared memory have room
 * for every PE's heap? The heap is sparse: a page touched later beyond what
 * /dev/shm holds would raise SIGBUS in the PE touching it. */
SHOAL__HIDDEN int shoal__heap_host_precheck(shoal_t sh);
SHOAL__HIDDEN void shoal__heap_host_destroy(shoal_t sh);
/* The host heap in whole pages (what a second mapping of it covers). */
SHOAL__HIDDEN size_t shoal__heap_host_span(shoal_t sh);
/* The system's page size (4096 where it cannot be asked). */
SHOAL__HIDDEN size_t shoal__page_size(void);
SHOAL__HIDDEN int shoal__gpu_probe(shoal_t sh, bool *have_gpu_p);
SHOAL__HIDDEN int shoal__heap_gpu_create(shoal_t sh);
SHOAL__HIDDEN void shoal__heap_gpu_destroy(shoal_t sh);
SHOAL__HIDDEN int shoal__gpu_memset(shoal_t sh, void *ptr, size_t n);
/* pe's GPU (PCI bus id) as its node published it; NULL for PEs of other
 * nodes, host heaps and builds without CUDA. */
SHOAL__HIDDEN const char *shoal__gpu_bus_id(shoal_t sh, int pe);

/* An atomic on host memory this process can load and store (self and shm
 * on host heaps): C11 atomics, sequentially consistent
 * (runtime/heap/amo_cpu.c; the transports self and shm, and
 * ops/ on registered ranges mapped here, call it). */
SHOAL__HIDDEN void shoal__amo_cpu(void *word, const shoal__amo_t *a, void *result);

#endif /* SHOAL_HEAP_H */
