/*
 * PEs of one node whose GPU heaps are on the same GPU, and whether MPS (CUDA
 * Multi-Process Service) lets their kernels run side by side. Without MPS
 * the kernels of two processes on one GPU take turns by time slices: host
 * and stream-ordered calls between such PEs work, but a kernel that waits
 * for a peer's kernel advances only every few milliseconds.
 *
 * The decision is pure (no CUDA, built in every configuration): runtime/heap/gpu.c
 * feeds it what the PEs of the node published at init, and
 * tests/unit/test_gpu_share_unit.c checks it without a GPU.
 */
#ifndef SHOAL_GPU_SHARE_H
#define SHOAL_GPU_SHARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/shoal_instance.h"

/* What a PE publishes to its node about its GPU. */
typedef struct shoal__gpu_id {
    char bus_id[32];        /* PCI bus id, as cudaDeviceGetPCIBusId writes it */
    unsigned char uuid[16]; /* the device's UUID (a MIG instance's own); all zero when unknown */
    int32_t mps;            /* 1: MPS is active for this PE's context; 0: not, or unknown */
} shoal__gpu_id_t;

/* One GPU? By UUID where both are known (MIG instances of one board share
 * its bus id, yet run apart), else by PCI bus id (case aside). */
SHOAL__HIDDEN bool shoal__gpu_same(const shoal__gpu_id_t *a, const shoal__gpu_id_t *b);

/* What entry b of ids is to entry a: SHOAL_GPU_SEPARATE (a == b too),
 * SHOAL_GPU_SHARED_MPS (one GPU, MPS active for both) or SHOAL_GPU_SHARED. */
SHOAL__HIDDEN int shoal__gpu_share_kind(const shoal__gpu_id_t *ids, int a, int b);

/* The warning for the GPU of entry r of the n entries (pes[i]: the PE of
 * entry i, the node's PEs in node-rank order): written into buf (NUL-ended,
 * cut to len) when r is the first of two or more entries on one GPU and MPS
 * is not active for every one of them; it names the PEs, the GPU's bus id,
 * what works and what needs MPS. Returns the length of the whole text (0:
 * nothing to warn about here, so that each GPU is named once per node). */
SHOAL__HIDDEN size_t shoal__gpu_share_warning(const shoal__gpu_id_t *ids, const int *pes, int n, int r, char *buf,
                                              size_t len);

/* The instance's view, for shoal_pe_gpu_shared: SHOAL_GPU_* for pe (in
 * range), SHOAL_GPU_SEPARATE where this PE has no GPU heap (runtime/heap/gpu.c). */
SHOAL__HIDDEN int shoal__gpu_shared(shoal_t sh, int pe);

#endif /* SHOAL_GPU_SHARE_H */
