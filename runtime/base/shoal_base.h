/*
 * What every runtime file uses: symbol visibility, branch hints, the
 * limits of a heap. Hidden from the library's users, as is every header
 * of runtime/.
 */
#ifndef SHOAL_BASE_H
#define SHOAL_BASE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shoal.h"
#include "shoal_topo.h"

#ifndef SHOAL_HAVE_CUDA
#define SHOAL_HAVE_CUDA 0
#endif

#define SHOAL__HIDDEN __attribute__((visibility("hidden")))
#define SHOAL__LIKELY(x) __builtin_expect(!!(x), 1)
#define SHOAL__UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SHOAL__CACHELINE 64
/* Every heap base is aligned to this; shoal_align accepts up to it
 * (OpenSHMEM programs ask shmem_align for up to 8 MiB). */
#define SHOAL__HEAP_BASE_ALIGN ((size_t)8 << 20)
/* The largest heap per PE: 256 TiB (heap, alignment and the node's sum stay
 * far from overflowing MPI_Aint and size_t). */
#define SHOAL__HEAP_MAX ((size_t)1 << 48)

#endif /* SHOAL_BASE_H */
