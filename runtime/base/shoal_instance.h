/*
 * The instance (struct shoal_instance), the state every subsystem works
 * on, and the checks every public entry makes. Its life (shoal_init,
 * shoal_finalize, the registry) is runtime/core/'s.
 */
#ifndef SHOAL_INSTANCE_H
#define SHOAL_INSTANCE_H

#include "base/shoal_error.h"
#include "base/shoal_node.h"
#include "base/shoal_robust.h"
#include "base/shoal_wait.h"
#include "heap/shoal_alloc.h" /* the allocator's state (types only) */

/* How an API layer (the OpenSHMEM layer) names shoal's calls, so that
 * messages about its instance name what its program called: rows of
 * {shoal's name, the layer's}, tried in order; a row whose shoal name
 * ends in '_' renames every call with that prefix; a row of NULLs ends
 * them. */
typedef struct shoal__names {
    const char *shoal, *layer;
} shoal__names_t;

/* One transport's ops table: runtime/transport/transport.h. */
struct shoal__tp_ops;

#define SHOAL__MAGIC_LIVE 0x73686f61u /* "shoa" */
#define SHOAL__MAGIC_DEAD 0x64656164u /* "dead" */

struct shoal_gpu;   /* runtime/heap/gpu.c, CUDA builds only */
struct shoal_proxy; /* runtime/proxy/proxy.c, CUDA builds only */

/* SHOAL_DEVICE_ATOMICS: kernels' atomics on mapped peers (runtime/proxy/). */
enum { SHOAL__DEVICE_ATOMICS_AUTO, SHOAL__DEVICE_ATOMICS_PROXY };

/* SHOAL_COLL: how team collectives move data (runtime/team/team_coll.c,
 * runtime/team/team_stream.c). */
enum { SHOAL__COLL_ALGO_AUTO, SHOAL__COLL_ALGO_KERNEL, SHOAL__COLL_ALGO_COPY, SHOAL__COLL_ALGO_TRANSPORT };

struct shoal_instance {
    uint32_t magic;
    int my_pe, n_pes;
    shoal_config_t cfg;
    const shoal__names_t
        *names; /* the API layer that made the instance names shoal's calls so (messages); NULL: shoal's own */
    bool heap_size_from_code; /* cfg.heap_size set by the program, not SHOAL_HEAP_SIZE */
    bool heap_size_var_set;   /* SHOAL_HEAP_SIZE is set (and overridden when the above) */
    char heap_size_var[80];   /* the variable that sets the heap size: SHOAL_HEAP_SIZE or SHOAL_<NAME>_HEAP_SIZE */
    unsigned disabled;        /* SHOAL_TRANSPORT_DISABLE mask */
    shoal_path_t p2p_level;   /* SHOAL_P2P_LEVEL */
    int coll_algo;            /* SHOAL_COLL: SHOAL__COLL_ALGO_* */

    MPI_Comm comm;                 /* duplicate of the user's communicator */
    MPI_Comm node_comm;            /* PEs of my node */
    MPI_Comm leader_comm;          /* node leaders; MPI_COMM_NULL elsewhere */
    MPI_Request progress;          /* a receive from this PE that nothing sends, tested to drive MPI (base/wait.c) */
    pthread_mutex_t progress_lock; /* one thread tests it at a time; the others probe */
    int node_rank, node_size, node_id, n_nodes;
    int *pe_node;      /* node of every PE */
    int *pe_node_rank; /* node rank of every PE */
    int *node_pes;     /* PEs of my node, by node rank */

    int heap_kind;       /* SHOAL_HEAP_HOST or SHOAL_HEAP_GPU */
    char *heap_base;     /* my heap (host or device address) */
    size_t heap_size;    /* the heap's limit: the most it holds */
    bool heap_reserve;   /* SHOAL_HEAP_RESERVE: a GPU heap takes it all at init */
    size_t heap_chunk;   /* SHOAL_HEAP_CHUNK: what a growing GPU heap maps at a time */
    size_t heap_checked; /* host heap: bytes from its start /dev/shm was found to hold for this host's PEs */
    size_t heap_high;    /* the end of the highest block ever allocated */
    char **peer_base;    /* per PE: address to load/store its heap from here, or NULL */
    shoal__alloc_t alloc;
    /* Collectives change alloc and the registered ranges while, under
     * MPI_THREAD_MULTIPLE, other threads' puts and gets look blocks and
     * ranges up in them (shoal__alloc_lock). */
    pthread_rwlock_t alloc_lock;
    /* Registered ranges (runtime/heap/shoal_register.h), sorted by base; n_regs
     * is read without the lock (atomic) to skip the lookup when there is none. */
    struct shoal__reg **regs;
    size_t n_regs, cap_regs;
    uint64_t reg_ids; /* registrations made since init: the last one's id */
    /* This PE's GPU ranges by segment (SHOAL__REG_SEG_MAX + 1 entries, made
     * at the first): read without a lock by the staging proxy. */
    struct shoal__reg_seg *reg_segs;
    /* Transports (runtime/transport/transport.h). */
    const struct shoal__tp_ops **pe_tp;    /* per PE: the one chosen at init */
    const struct shoal__tp_ops **pe_amo;   /* per PE: the one its atomics take (transport.h, CAP_AMO_ALL) */
    unsigned *pe_cands;                    /* per PE: the policy's candidates, bits (1u << shoal_transport_id_t) */
    unsigned tp_setup;                     /* transports set up (same bits): torn down at finalize */
    unsigned tp_peers;                     /* transports any PE's data or atomics take, agreed (same bits) */
    unsigned tp_used;                      /* transports with operations possibly outstanding (same bits) */
    void *tp_state[SHOAL_TRANSPORT_COUNT]; /* each transport's own state, by id (one table per id and heap kind) */
    struct shoal_stage *stage;             /* the GPU staging rings that staged and staged-over-MPI share, or NULL */
    shoal_topo_t topo;                     /* loaded when the policy needs GPU paths (SHOAL_P2P_LEVEL below SYS) */

    char *shm_map;      /* host heap: the node's shared object, mapped whole (NULL for a PE alone on its node) */
    size_t shm_map_len; /* its bytes: a segment per PE of the node */
    MPI_Win ctrl_win;   /* node control window: control block, then heap records (runtime/base/node.c) */
    bool ctrl_locked;   /* ctrl_win's passive epoch is open */
    shoal__node_ctrl_t *ctrl;
    uint64_t gen;             /* rendezvous generation */
    uint64_t api_colls;       /* collective API calls entered: a call that meets twice counts once */
    bool coll_again;          /* the next rendezvous continues the current call (not counted) */
    uint32_t stream_barriers; /* shoal_barrier_all_on_stream calls that ran on the GPU (see SHOAL__COLL_KIND) */
    int fault_quiets;         /* SHOAL_FAULT: this PE's quiets still to fail */
    int fault_grows;          /* SHOAL_FAULT=grow: this PE's heap growths still to fail */
    bool broken;              /* a collective failed midway: finalize locally only */
    bool wait_sleep;          /* more PEs on the node than CPUs: long waits sleep */

    struct shoal_gpu *gpu;     /* GPU heap state, or NULL */
    struct shoal_proxy *proxy; /* the device proxy (runtime/proxy/), made by the first shoal_device_get */
    int device_atomics;        /* SHOAL_DEVICE_ATOMICS: SHOAL__DEVICE_ATOMICS_* */

    struct shoal_team *teams;      /* runtime/team/team.c: world, node, then the splits, oldest first */
    uint64_t team_ids;             /* ids (bits) of the teams this PE is in */
    struct shoal_team *dead_teams; /* destroyed teams' handles, refused until finalize frees them */

    shoal__robust_t robust; /* runtime/base/robust.c (valid while robust.ready) */

    int keyval;    /* MPI_COMM_SELF attribute that finalizes us at MPI_Finalize */
    bool attr_set; /* the attribute is set */
    bool in_finalize;
    char creator[192]; /* where shoal_init was called: "function+0x.. (object)" */
    char err[1024];    /* last error */
    int err_status;    /* its status (guarded with err) */
};

/* Checks done by the API layer before entering the runtime. */
static inline bool shoal__live(shoal_t sh) { return sh != NULL && sh->magic == SHOAL__MAGIC_LIVE; }
/* Every public entry: a live instance, else the error for it. With logging
 * on, this thread's log lines name the PE of the instance it is in. */
#define SHOAL__LOG_PE(sh)                                                                                              \
    do {                                                                                                               \
        if (SHOAL__UNLIKELY(shoal__log_level != 0)) shoal__log_set_pe((sh)->my_pe);                                    \
    } while (0)
#define SHOAL__ENTER(sh, call)                                                                                         \
    do {                                                                                                               \
        if (SHOAL__UNLIKELY(!shoal__live(sh))) return shoal__bad_instance((sh), (call));                               \
        SHOAL__LOG_PE(sh);                                                                                             \
    } while (0)
#define SHOAL__ENTER_NULL(sh, call)                                                                                    \
    do {                                                                                                               \
        if (SHOAL__UNLIKELY(!shoal__live(sh))) {                                                                       \
            shoal__bad_instance((sh), (call));                                                                         \
            return NULL;                                                                                               \
        }                                                                                                              \
        SHOAL__LOG_PE(sh);                                                                                             \
    } while (0)

/* Where ptr lies in my heap: 0 and its offset, or an error naming the call. */
static inline bool shoal__in_heap(shoal_t sh, const void *ptr, size_t n)
{
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)sh->heap_base;
    return p >= b && p - b <= sh->heap_size && n <= sh->heap_size - (p - b);
}

/* The robustness state of a live instance (NULL before it was created). */
static inline shoal__robust_t *shoal__robust(shoal_t sh) { return sh->robust.ready ? &sh->robust : NULL; }

/* The allocator's table, under MPI_THREAD_MULTIPLE only (below it, one
 * thread at a time uses the instance): readers are the RMA range checks,
 * writers the collective allocations. */
static inline void shoal__alloc_lock(shoal_t sh, bool write)
{
    if (!shoal__threads_multiple()) return;
    if (write)
        pthread_rwlock_wrlock(&sh->alloc_lock);
    else
        pthread_rwlock_rdlock(&sh->alloc_lock);
}
static inline void shoal__alloc_unlock(shoal_t sh)
{
    if (shoal__threads_multiple()) pthread_rwlock_unlock(&sh->alloc_lock);
}

#endif /* SHOAL_INSTANCE_H */
