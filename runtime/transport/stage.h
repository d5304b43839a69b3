/*
 * The staging rings that the staged transport (node peers) and the
 * staged-over-MPI transport (other nodes) share. CUDA builds only.
 *
 * Every PE owns a ring of slots in pinned host memory of its node's shared
 * window, each with a bounce chunk. An origin takes a ticket (an atomic
 * counter), waits for its slot, fills it (a put copies its data into the
 * chunk) and marks it ready. A proxy thread of the target PE, bound to the
 * target's GPU, serves the slots in ticket order: it copies a put's chunk
 * into its heap, or a get's range out into the chunk, or runs an atomic on
 * its GPU (runtime/heap/gpu_amo.cu). Slots served in order make puts
 * and atomics from one origin land in order (a signal after its data).
 */
#ifndef SHOAL_STAGE_H
#define SHOAL_STAGE_H

#include <pthread.h>
#include <stddef.h>

#include "heap/shoal_gpu.h"

#define SHOAL__STAGE_SLOTS 16
#define SHOAL__STAGE_CHUNK ((size_t)1 << 20)

enum { SHOAL__SLOT_EMPTY = 0, SHOAL__SLOT_READY = 1, SHOAL__SLOT_DONE = 2, SHOAL__SLOT_FAILED = 3 };
/* Slot ops. An atomic's shoal__amo_t sits at the start of its chunk, its
 * old value (AMO_FETCH) at SHOAL__STAGE_AMO_RESULT; one without a result
 * is recycled by the proxy as a put is, one with it waits for its origin
 * as a get does. */
enum { SHOAL__STAGE_PUT = 1, SHOAL__STAGE_GET = 2, SHOAL__STAGE_AMO = 3, SHOAL__STAGE_AMO_FETCH = 4 };
#define SHOAL__STAGE_AMO_RESULT 64

typedef struct shoal__stage_slot {
    _Atomic uint64_t seq;   /* the ticket that may use this slot next */
    _Atomic uint32_t state; /* SHOAL__SLOT_* */
    uint32_t op;            /* SHOAL__STAGE_PUT or SHOAL__STAGE_GET */
    uint64_t off, len;      /* range of the target's heap */
    char pad[SHOAL__CACHELINE - 32];
} shoal__stage_slot_t;

/* One PE's ring, followed by its SHOAL__STAGE_SLOTS bounce chunks. */
typedef struct shoal__stage_ring {
    _Atomic uint64_t tail; /* next ticket */
    char pad0[SHOAL__CACHELINE - 8];
    shoal__stage_slot_t slot[SHOAL__STAGE_SLOTS];
} shoal__stage_ring_t;

#define SHOAL__STAGE_RING_BYTES (((sizeof(shoal__stage_ring_t) + 4095) / 4096) * 4096)
#define SHOAL__STAGE_PE_BYTES (SHOAL__STAGE_RING_BYTES + SHOAL__STAGE_SLOTS * SHOAL__STAGE_CHUNK)

struct shoal_stage {
    unsigned users; /* transports using the rings (bits 1u << id) */
    MPI_Win win;    /* node shared window: every PE's ring and chunks */
    /* The rings exposed to other nodes (staged-over-MPI's window over
     * sh->comm), or MPI_WIN_NULL: node peers then take tickets through it
     * too, MPI's atomics not being atomic with respect to the CPU's. */
    MPI_Win tail_win;
    char *mine;       /* my segment (ring, then chunks) */
    char **ring;      /* per node rank: its segment, mapped here */
    bool *registered; /* per node rank: cudaHostRegister'ed for DMA */
    pthread_t proxy;  /* serves my ring */
    bool proxy_running;
    _Atomic int stop;
    int proxy_device;
    char *heap;          /* my heap, for the proxy */
    uint64_t *amo_value; /* pinned: an atomic's old value, from the proxy's kernel */
};

/* Collective over the node (every PE of the node calls it alike, and takes
 * part in its window and barrier even when it fails): create the rings and
 * start this PE's proxy, or add user (a transport's bit, 1u << id) to
 * those using them. On failure the user still holds them until release. */
SHOAL__HIDDEN int shoal__stage_acquire(shoal_t sh, unsigned user);
/* user is done with the rings (nothing if it did not hold them); the last
 * stops the proxy and frees the rings (collective, unless sh->broken). */
SHOAL__HIDDEN void shoal__stage_release(shoal_t sh, unsigned user);

/* pe's ring (a node peer's), and the chunk of ticket t in it. */
static inline shoal__stage_ring_t *shoal__stage_ring(shoal_t sh, int pe)
{
    return (shoal__stage_ring_t *)sh->stage->ring[sh->pe_node_rank[pe]];
}
static inline char *shoal__stage_chunk(shoal_t sh, int pe, uint64_t t)
{
    return (char *)shoal__stage_ring(sh, pe) + SHOAL__STAGE_RING_BYTES + (t % SHOAL__STAGE_SLOTS) * SHOAL__STAGE_CHUNK;
}
/* Spin, then yield, then sleep a little: waiting on a proxy must not take a
 * core from the application. */
SHOAL__HIDDEN void shoal__stage_pause(unsigned *spins);

#endif /* SHOAL_STAGE_H */
