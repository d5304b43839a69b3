/*
 * The transport layer: how this PE reaches each peer's heap.
 *
 * A transport is one ops table (shoal__tp_ops_t) for one kind of heap: it
 * owns its whole life, from setup at shoal_init (windows, IPC handles,
 * staging rings) through the data path to teardown at shoal_finalize. The
 * registry (transport.c) lists every table once, in the order the topology
 * policy prefers them; selection asks the policy (topology/policy.c, the
 * code shoal-topo shows) which transports may join each pair, then takes
 * the first one that connects. Everything outside runtime/transport/ asks
 * about a pair through capability flags, never through transport ids.
 */
#ifndef SHOAL_TRANSPORT_H
#define SHOAL_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "base/shoal_amo_op.h"
#include "base/shoal_instance.h"
#include "heap/shoal_register.h"

/* What a transport can do beyond put, get and quiet. */
enum {
    /* The peer's heap is mapped in this process (sh->peer_base[pe]): plain
     * loads and stores reach it, shoal_ptr returns it, kernels use it. */
    SHOAL__TP_CAP_MAPPED = 1u << 0,
    /* put_stream, get_stream, p_stream and quiet_stream run in the order of
     * a CUDA stream, on the GPU, without the host waiting. */
    SHOAL__TP_CAP_STREAM = 1u << 1,
    /* Its atomics are atomic only among themselves (MPI's accumulate
     * operations are not atomic with respect to CPU atomics on the same
     * memory): where any pair of the instance takes it, every pair's
     * atomics take it, so that all atomics on one word go one way. */
    SHOAL__TP_CAP_AMO_ALL = 1u << 2,
    /* Peers reach this PE's memory through MPI RMA: their operations may
     * land only as this PE's MPI makes progress (MPICH's accumulates do),
     * so a PE waiting on its own words must keep calling into MPI. */
    SHOAL__TP_CAP_NEEDS_PROGRESS = 1u << 3,
};

/* Offsets are into the target PE's heap, or (GPU heaps, from
 * SHOAL__REG_SEG_BASE up) into one of its registered GPU ranges
 * (runtime/heap/shoal_register.h; shoal__tp_addr translates both); call is the
 * API call on whose behalf (for messages). nbi: 0 = blocking (returns when src is reusable
 * or dst filled), 1 = complete at quiet. stream is a cudaStream_t. */
typedef struct shoal__tp_ops {
    const char *name;        /* as shoal_pe_transport and shoal-topo show it */
    shoal_transport_id_t id; /* the policy's name for it; one table per id and heap kind */
    int heap_kind;           /* SHOAL_HEAP_HOST or SHOAL_HEAP_GPU: the heaps it serves */
    unsigned caps;           /* SHOAL__TP_CAP_* */

    /* Collective over sh->comm, on every PE, in registry order: create what
     * the transport needs. need: some peer of this PE may take it (the
     * policy lists it and no earlier transport connected). A transport
     * that creates MPI objects agrees with the other PEs on whether any
     * needs it. NULL: nothing to create. */
    int (*setup)(shoal_t sh, bool need);
    /* After setup: does this transport reach pe? */
    bool (*connect)(shoal_t sh, int pe);
    /* Undo setup; collective frees only unless sh->broken. NULL: nothing. */
    void (*teardown)(shoal_t sh);

    int (*put)(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi);
    int (*get)(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi);
    /* Complete every operation this PE issued through the transport. Under
     * MPI_THREAD_MULTIPLE runtime/ops/rma.c calls it under a lock, one flush
     * at a time. */
    int (*quiet)(shoal_t sh, const char *call);
    /* After a barrier: make what peers wrote into this PE's heap through
     * the transport visible to its loads. NULL: nothing to do. */
    int (*sync)(shoal_t sh, const char *call);

    /* Optional (NULL: not offered; runtime/ops/rma.c then moves the rows one
     * put or get each): height rows of width bytes, row i at off + i * pitch
     * of the target's heap and at src + i * spitch (put) or dst + i * dpitch
     * (get) here; width > 0, height > 0, every pitch >= width, and the rows
     * checked to lie in the heap. nbi as for put and get. */
    int (*put_2d)(shoal_t sh, const char *call, int pe, size_t off, size_t pitch, const void *src, size_t spitch,
                  size_t width, size_t height, int nbi);
    int (*get_2d)(shoal_t sh, const char *call, int pe, void *dst, size_t dpitch, size_t off, size_t pitch,
                  size_t width, size_t height, int nbi);

    /* The atomic a on pe's word at heap offset off (inside the heap,
     * aligned to a->size). result: a->size bytes for the old value, or
     * NULL. nbi: the old value may arrive by the next quiet (else it is
     * there on return); an atomic without result is complete at quiet. */
    int (*amo)(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *result, int nbi);
    /* Order what this PE issued to pe so far before what it issues to pe
     * next (put_signal's data before its signal). NULL: issue order is
     * delivery order already. */
    int (*fence)(shoal_t sh, const char *call, int pe);

    /* SHOAL__TP_CAP_STREAM only. p_stream stores a 4- or 8-byte value
     * (aligned) carried in the stream operation itself. quiet_stream makes
     * stream wait for what put/get issued with nbi. */
    int (*put_stream)(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, void *stream);
    int (*get_stream)(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, void *stream);
    int (*p_stream)(shoal_t sh, const char *call, int pe, size_t off, const void *value, size_t n, void *stream);
    int (*quiet_stream)(shoal_t sh, const char *call, void *stream);
    /* An atomic without result (a->op neither FETCH, SWAP nor CSWAP), in
     * the order of stream, after what the stream did before. */
    int (*amo_stream)(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *stream);

    /* Optional, for a transport that maps peers' GPU memory: collective
     * over the instance, on every PE of a GPU heap (each transport decides
     * with its node peers whether it has anything to do, the same way on
     * every PE): map the peers' copies of the registered GPU range r into
     * r->peer[]. A failure is this PE's (the caller tells the others).
     * detach undoes it (not collective); after a failed attach too. */
    int (*reg_attach)(shoal_t sh, const char *call, shoal__reg_t *r);
    void (*reg_detach)(shoal_t sh, shoal__reg_t *r);
} shoal__tp_ops_t;

/* The tables (runtime/transport/<name>.c). */
extern SHOAL__HIDDEN const shoal__tp_ops_t shoal__tp_self_host;
extern SHOAL__HIDDEN const shoal__tp_ops_t shoal__tp_shm;
extern SHOAL__HIDDEN const shoal__tp_ops_t shoal__tp_mpi_rma;
#if SHOAL_HAVE_CUDA
extern SHOAL__HIDDEN const shoal__tp_ops_t shoal__tp_self_gpu;
extern SHOAL__HIDDEN const shoal__tp_ops_t shoal__tp_cuda_ipc;
extern SHOAL__HIDDEN const shoal__tp_ops_t shoal__tp_staged;
extern SHOAL__HIDDEN const shoal__tp_ops_t shoal__tp_staged_mpi;
#endif

/* Collective, after the heap exists: ask the policy for every pair's
 * candidates, set the transports up in registry order and give every PE
 * the first candidate that connects (sh->pe_tp). An error names the pair
 * that nothing reaches, with the policy's reason. */
SHOAL__HIDDEN int shoal__transports_setup(shoal_t sh);
/* Collective, after every PE's setup succeeded: sh->tp_peers becomes the
 * transports any PE uses (a pair's choice may differ by direction: what
 * writes into this PE counts too). */
SHOAL__HIDDEN int shoal__transports_agree(shoal_t sh);
/* Tear down what setup created, in reverse order (before the heap goes). */
SHOAL__HIDDEN void shoal__transports_teardown(shoal_t sh);
/* Complete the operations of the transports whose bits (1u << id) are in used. */
SHOAL__HIDDEN int shoal__transports_quiet(shoal_t sh, const char *call, unsigned used);
/* The bits of used whose transports (of this heap kind) lack every one of caps. */
SHOAL__HIDDEN unsigned shoal__transports_without(shoal_t sh, unsigned used, unsigned caps);
/* Has this instance set up a transport with every capability in caps? */
SHOAL__HIDDEN bool shoal__transports_with(shoal_t sh, unsigned caps);
/* Make stream wait for the non-blocking operations of every stream-capable
 * transport set up here. */
SHOAL__HIDDEN int shoal__transports_quiet_stream(shoal_t sh, const char *call, void *stream);
/* After a barrier: every transport's sync, and the windows of registered
 * ranges (runtime/heap/shoal_register.h). */
SHOAL__HIDDEN int shoal__transports_sync(shoal_t sh, const char *call);
/* Every transport's reg_attach for the GPU range r (in registry order), or
 * reg_detach (reverse order). */
SHOAL__HIDDEN int shoal__transports_reg_attach(shoal_t sh, const char *call, shoal__reg_t *r);
SHOAL__HIDDEN void shoal__transports_reg_detach(shoal_t sh, shoal__reg_t *r);
/* Is pe in the policy's candidates for this PE's pair with it (setup uses
 * it to decide which peers to prepare)? */
SHOAL__HIDDEN bool shoal__tp_candidate(shoal_t sh, int pe, shoal_transport_id_t id);

/* Collective over comm (mpi_rma.c, which needs the answer): does this MPI move the base of a window made over
 * part of the memory another window covers (MPI_WIN_BASE not the base it
 * was given), with that other window over the same memory (alias false) or
 * over a second mapping of its pages (alias true, as shoal's own)? Tried on
 * scratch memory; *moved_p is the same on every PE. */
SHOAL__HIDDEN int shoal__win_base_moves(shoal_t sh, const char *call, MPI_Comm comm, bool alias, int *moved_p);

/* height rows of width bytes between host memory both sides can load and
 * store (self and shm on host heaps): a row at a time, one copy when both
 * sides are contiguous. */
static inline void shoal__tp_copy_2d(char *dst, size_t dpitch, const char *src, size_t spitch, size_t width,
                                     size_t height)
{
    if (dpitch == width && spitch == width) {
        memcpy(dst, src, width * height);
        return;
    }
    for (size_t i = 0; i < height; i++) memcpy(dst + i * dpitch, src + i * spitch, width);
}

/* Where byte off of pe's heap or registered GPU range is mapped in this
 * process, or NULL (not mapped here, or no such registered range). */
static inline char *shoal__tp_addr(shoal_t sh, int pe, size_t off)
{
    if (SHOAL__LIKELY(off < SHOAL__REG_SEG_BASE)) return sh->peer_base[pe] != NULL ? sh->peer_base[pe] + off : NULL;
    return shoal__reg_seg_addr(sh, pe, off, 1);
}

/* The transport chosen for pe, and what it can do. */
static inline const shoal__tp_ops_t *shoal__tp(shoal_t sh, int pe) { return sh->pe_tp[pe]; }
/* The transport that carries atomics to pe (SHOAL__TP_CAP_AMO_ALL). */
static inline const shoal__tp_ops_t *shoal__tp_amo(shoal_t sh, int pe) { return sh->pe_amo[pe]; }
static inline bool shoal__tp_can(shoal_t sh, int pe, unsigned caps)
{
    return sh->pe_tp != NULL && (sh->pe_tp[pe]->caps & caps) == caps;
}

#endif /* SHOAL_TRANSPORT_H */
