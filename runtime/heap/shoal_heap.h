/* The memory of the symmetric heap: the host heap (runtime/heap/heap_host.c)
 * and the GPU heap (runtime/heap/gpu.c). Allocation on them is
 * runtime/core/malloc.c's. */
#ifndef SHOAL_HEAP_H
#define SHOAL_HEAP_H

#include "base/shoal_amo_op.h"
#include "base/shoal_instance.h"

/* Host heap (runtime/heap/heap_host.c) and GPU heap (runtime/heap/gpu.c). */
SHOAL__HIDDEN int shoal__heap_host_create(shoal_t sh);

/* Growth (runtime/core/malloc.c drives it, collectively): what a failed
 * growth reports to every PE. */
typedef struct shoal__grow_report {
    unsigned long long asked; /* bytes the growth needed */
    unsigned long long avail; /* bytes free where it grew */
    char where[64];           /* "/dev/shm", "GPU <bus id> (device N)" */
} shoal__grow_report_t;
/* Host heap: does a block ending at hi reach past what /dev/shm was
 * checked to hold? (The same answer on every PE of the instance.) */
SHOAL__HIDDEN bool shoal__heap_host_grow_needed(shoal_t sh, size_t hi);
/* Check that /dev/shm holds every host PE's heap up to hi: SHOAL_SUCCESS,
 * or SHOAL_ERR_HEAP_EXHAUSTED with the message and *rep filled. */
SHOAL__HIDDEN int shoal__heap_host_grow(shoal_t sh, const char *call, size_t hi, shoal__grow_report_t *rep);
/* Give back the whole pages of the free span [lo, hi). */
SHOAL__HIDDEN void shoal__heap_host_trim(shoal_t sh, size_t lo, size_t hi);
/* Bytes of whole pages under blocks in use (the allocator's lock held). */
SHOAL__HIDDEN size_t shoal__heap_host_backed(shoal_t sh);
/* GPU heap growth (runtime/heap/gpu_vmm.c; stubs in gpu.c without CUDA; a
 * fixed heap needs and gives back nothing): does [lo, hi) need chunks not
 * mapped yet (the same answer on every PE)? Map them here (*rep filled on
 * failure); then, once every PE mapped its own, map the node peers' new
 * chunks (collective over the node); give back the chunks of the free
 * span [lo, hi) that no block uses; bytes mapped now. */
SHOAL__HIDDEN bool shoal__heap_gpu_grow_needed(shoal_t sh, size_t lo, size_t hi);
SHOAL__HIDDEN int shoal__heap_gpu_grow(shoal_t sh, const char *call, size_t lo, size_t hi, shoal__grow_report_t *rep);
SHOAL__HIDDEN int shoal__heap_gpu_grow_share(shoal_t sh, const char *call);
SHOAL__HIDDEN void shoal__heap_gpu_trim(shoal_t sh, size_t lo, size_t hi);
SHOAL__HIDDEN size_t shoal__heap_gpu_backed(shoal_t sh);
/* A growing GPU heap's chunk size; 0 for a fixed one. */
SHOAL__HIDDEN size_t shoal__heap_gpu_chunk(shoal_t sh);
SHOAL__HIDDEN void shoal__heap_host_destroy(shoal_t sh);
/* The host heap in whole pages (what a second mapping of it covers). */
SHOAL__HIDDEN size_t shoal__heap_host_span(shoal_t sh);
/* The system's page size (4096 where it cannot be asked). */
SHOAL__HIDDEN size_t shoal__page_size(void);
/* The GPUs CUDA shows this process: 0 where there is no driver, or shoal
 * was built without CUDA (*why_p, where not NULL, then says why). A PE
 * whose heap kind is auto gets a GPU heap exactly where this is not 0. */
SHOAL__HIDDEN int shoal__gpu_count(const char **why_p);
SHOAL__HIDDEN int shoal__gpu_probe(shoal_t sh, bool *have_gpu_p);
SHOAL__HIDDEN int shoal__heap_gpu_create(shoal_t sh);
/* Growing or fixed (collective, every PE with a GPU heap; the default
 * limit of a growing one): before the allocator is sized. */
SHOAL__HIDDEN int shoal__heap_gpu_plan(shoal_t sh);
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
