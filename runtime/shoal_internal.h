/*
 * shoal runtime internals: the instance, the transports' ops table, the
 * allocator, the collective rendezvous, errors and logging (the environment:
 * shoal_env.h). Everything here is hidden from the library's users.
 */
#ifndef SHOAL_INTERNAL_H
#define SHOAL_INTERNAL_H

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
/* Every heap base is aligned to this; shoal_align accepts up to it. */
#define SHOAL__HEAP_BASE_ALIGN ((size_t)2 << 20)
/* The largest heap per PE: 256 TiB (heap, alignment and the node's sum stay
 * far from overflowing MPI_Aint and size_t). */
#define SHOAL__HEAP_MAX ((size_t)1 << 48)

/* ---------------------------------------------------------------- errors */

/* Record an error on sh (or, for NULL, in this thread's global slot):
 * "PE <pe>: <call>: <message>". Logs it at WARN and returns status. */
SHOAL__HIDDEN int shoal__error(shoal_t sh, int status, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Turn an MPI return code into a status, recording MPI's own message. */
SHOAL__HIDDEN int shoal__mpi_error(shoal_t sh, const char *call, const char *what, int mpi_rc);
#define SHOAL__MPI_CHECK(sh, call, expr)                                                 \
    do {                                                                                 \
        int mpi_rc__ = (expr);                                                           \
        if (SHOAL__UNLIKELY(mpi_rc__ != MPI_SUCCESS)) {                                  \
            rc = shoal__mpi_error((sh), (call), #expr, mpi_rc__);                        \
            goto out;                                                                    \
        }                                                                                \
    } while (0)
/* Propagate a failing status; at INFO level log the hop, so a failure prints
 * a short backtrace. */
#define SHOAL__CHECK(expr)                                                               \
    do {                                                                                 \
        rc = (expr);                                                                     \
        if (SHOAL__UNLIKELY(rc < 0)) {                                                   \
            SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_ALL, "%s:%d: %s -> %d", __FILE__,     \
                       __LINE__, #expr, rc);                                             \
            goto out;                                                                    \
        }                                                                                \
    } while (0)

/* ---------------------------------------------------------------- logging */

enum { SHOAL__LOG_NONE = 0, SHOAL__LOG_WARN = 1, SHOAL__LOG_INFO = 2, SHOAL__LOG_TRACE = 3 };

#define SHOAL__SUBSYS_MAP(X)                                                             \
    X(INIT, 0x01)                                                                        \
    X(TOPO, 0x02)                                                                        \
    X(HEAP, 0x04)                                                                        \
    X(RMA, 0x08)                                                                         \
    X(COLL, 0x10)                                                                        \
    X(CUDA, 0x20)                                                                        \
    X(ENV, 0x40)
enum {
#define SHOAL__SUB_ENUM(name, bit) SHOAL__SUB_##name = (bit),
    SHOAL__SUBSYS_MAP(SHOAL__SUB_ENUM)
#undef SHOAL__SUB_ENUM
        SHOAL__SUB_ALL = 0x7f
};

extern SHOAL__HIDDEN int shoal__log_level;      /* -1 until first use */
extern SHOAL__HIDDEN unsigned shoal__log_subsys;
SHOAL__HIDDEN void shoal__log_init(void);
SHOAL__HIDDEN void shoal__log(int level, unsigned subsys, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* PE printed in log prefixes for this thread's current instance (-1: none). */
SHOAL__HIDDEN void shoal__log_set_pe(int pe);
#define SHOAL__LOG(level, subsys, ...)                                                   \
    do {                                                                                 \
        if (SHOAL__UNLIKELY(shoal__log_level != 0)) shoal__log((level), (subsys), __VA_ARGS__); \
    } while (0)

/* ---------------------------------------------------------------- allocator */

/* First-fit allocator over offsets [0, size). Every PE runs the same one on
 * the same requests, so allocations land at the same offsets everywhere. */
typedef struct shoal__block {
    size_t off;  /* start offset */
    size_t size; /* bytes, including alignment padding absorbed at the front */
    size_t user; /* offset returned to the user (>= off) */
    size_t asked; /* bytes the user asked for (used blocks): the bounds RMA checks */
    bool used;
} shoal__block_t;

typedef struct shoal__alloc {
    shoal__block_t *blocks; /* sorted by offset, covering [0, size) */
    size_t n, cap;
    size_t size;
    size_t used; /* bytes in used blocks */
    size_t min_align;
} shoal__alloc_t;

SHOAL__HIDDEN int shoal__alloc_init(shoal__alloc_t *a, size_t size, size_t min_align);
SHOAL__HIDDEN void shoal__alloc_fini(shoal__alloc_t *a);
/* Offset of a new block in *off_p; SHOAL_ERR_HEAP_EXHAUSTED or NO_MEMORY. */
SHOAL__HIDDEN int shoal__alloc_get(shoal__alloc_t *a, size_t size, size_t align, size_t *off_p);
/* Room for `more` table entries, so that the next alloc_get cannot fail for
 * memory (a get splits at most one block): what PEs may disagree on is
 * found before they meet, not after. */
SHOAL__HIDDEN int shoal__alloc_reserve(shoal__alloc_t *a, size_t more);
/* Release the block starting at user offset off; SHOAL_ERR_INVALID_ARG if none. */
SHOAL__HIDDEN int shoal__alloc_put(shoal__alloc_t *a, size_t off);
/* The used block whose asked-for bytes hold offset off: its user offset and
 * the size asked for (not the rounded one: bytes past it are refused). */
SHOAL__HIDDEN int shoal__alloc_find(const shoal__alloc_t *a, size_t off, size_t *user_p, size_t *size_p);
SHOAL__HIDDEN size_t shoal__alloc_largest_free(const shoal__alloc_t *a);

/* ---------------------------------------------------------------- transports */

/* One transport's ops table: runtime/transport/transport.h. */
struct shoal__tp_ops;

/* ---------------------------------------------------------------- collectives */

/* What a PE is waiting in, published for timeout and mismatch messages. */
#define SHOAL__COLL_MAP(X)                                                               \
    X(NONE, "nothing")                                                                   \
    X(BARRIER_ALL, "shoal_barrier_all")                                                  \
    X(SYNC_ALL, "shoal_sync_all")                                                        \
    X(MALLOC, "shoal_malloc")                                                            \
    X(FREE, "shoal_free")                                                                \
    X(FINALIZE, "shoal_finalize")                                                        \
    X(BARRIER_STREAM, "shoal_barrier_all_on_stream")
enum {
#define SHOAL__COLL_ENUM(name, str) SHOAL__COLL_##name,
    SHOAL__COLL_MAP(SHOAL__COLL_ENUM)
#undef SHOAL__COLL_ENUM
        SHOAL__COLL_COUNT
};
/* What a PE publishes for a host collective: the kind (SHOAL__COLL_*) in the
 * low 8 bits, and above it the count of its shoal_barrier_all_on_stream
 * calls that ran on the GPU (which meet on the GPU, not here): a PE that
 * skipped one, or made one more, disagrees at its next host collective
 * instead of leaving streams waiting on each other unseen. */
#define SHOAL__COLL_KIND(coll) ((int)((uint32_t)(coll) & 0xffu))
#define SHOAL__COLL_STREAMS(coll) (((uint32_t)(coll) >> 8) & 0x3fffffu)
/* Bit 30: this PE's part failed before it met the others (see
 * shoal__coll_failed_here). coll stays a positive int. */
#define SHOAL__COLL_FAILED (1 << 30)
SHOAL__HIDDEN const char *shoal__coll_name(int coll);

/* A PE's slot in its node's control block (one cache line each). */
typedef struct shoal__pe_slot {
    _Atomic uint64_t arrived; /* generation of the last rendezvous entered */
    _Atomic uint32_t coll;    /* SHOAL__COLL_* it entered */
    _Atomic uint32_t gone;    /* a node peer found its process gone */
    _Atomic uint64_t arg;     /* its argument (size, offset) for symmetry checks */
    _Atomic uint64_t calls;   /* collective API calls entered since init (the numbers in messages) */
    char pad[SHOAL__CACHELINE - 32];
} shoal__pe_slot_t;

/* Where PEs of a node sleep when they have no core to spin on: a futex
 * word bumped by a waker that saw a sleeper (so the fast path only reads
 * sleepers), and the number of PEs asleep or about to be. */
typedef struct shoal__waitq {
    _Atomic uint32_t seq;
    _Atomic uint32_t sleepers;
} shoal__waitq_t;

/* Per-node control block in the node's shared window. */
typedef struct shoal__node_ctrl {
    _Atomic uint64_t release; /* last generation the leader released */
    _Atomic int32_t verdict;  /* 0, or the status of the released generation */
    shoal__waitq_t release_q; /* PEs waiting for the release sleep here */
    shoal__waitq_t leader_q;  /* the leader waiting for arrivals sleeps here */
    _Atomic uint32_t sleepy;  /* a PE of the node may sleep (SHOAL_WAIT): wake it */
    char pad[SHOAL__CACHELINE - 32];
    shoal__pe_slot_t slot[]; /* node_size slots */
} shoal__node_ctrl_t;

/* All PEs enter with the same (coll, arg); returns 0, SHOAL_ERR_NOT_SYMMETRIC
 * (message names PEs and their calls/arguments) or SHOAL_ERR_TIMEOUT (names
 * the PEs that never arrived). Intra-node in shared memory, leaders over MPI. */
SHOAL__HIDDEN int shoal__rendezvous(shoal_t sh, const char *call, int coll, uint64_t arg);

/* Spin briefly, then yield the CPU: waits never starve oversubscribed ranks. */
SHOAL__HIDDEN void shoal__wait_pause(unsigned *spins);
extern SHOAL__HIDDEN unsigned shoal__spin_limit;
/* The same, and now and then drive MPI's progress engine: a PE waiting in a
 * rendezvous may be the target of a peer's MPI RMA that needs it. */
SHOAL__HIDDEN void shoal__wait_progress(shoal_t sh, unsigned *spins);
SHOAL__HIDDEN double shoal__now(void);

/* ---------------------------------------------------------------- instance */

#define SHOAL__MAGIC_LIVE 0x73686f61u /* "shoa" */
#define SHOAL__MAGIC_DEAD 0x64656164u /* "dead" */

struct shoal_gpu; /* runtime/gpu.c, CUDA builds only */

struct shoal_instance {
    uint32_t magic;
    int my_pe, n_pes;
    shoal_config_t cfg;
    bool heap_size_from_code; /* cfg.heap_size set by the program, not SHOAL_HEAP_SIZE */
    bool heap_size_var_set;   /* SHOAL_HEAP_SIZE is set (and overridden when the above) */
    unsigned disabled;       /* SHOAL_TRANSPORT_DISABLE mask */
    shoal_path_t p2p_level;  /* SHOAL_P2P_LEVEL */

    MPI_Comm comm;        /* duplicate of the user's communicator */
    MPI_Comm node_comm;   /* PEs of my node */
    MPI_Comm leader_comm; /* node leaders; MPI_COMM_NULL elsewhere */
    int node_rank, node_size, node_id, n_nodes;
    int *pe_node;      /* node of every PE */
    int *pe_node_rank; /* node rank of every PE */
    int *node_pes;     /* PEs of my node, by node rank */

    int heap_kind;      /* SHOAL_HEAP_HOST or SHOAL_HEAP_GPU */
    char *heap_base;    /* my heap (host or device address) */
    size_t heap_size;
    char **peer_base;   /* per PE: address to load/store its heap from here, or NULL */
    shoal__alloc_t alloc;
    /* Collectives change alloc while, under MPI_THREAD_MULTIPLE, other
     * threads' puts and gets look blocks up in it (shoal__alloc_lock). */
    pthread_rwlock_t alloc_lock;
    /* Transports (runtime/transport/transport.h). */
    const struct shoal__tp_ops **pe_tp; /* per PE: the one chosen at init */
    unsigned *pe_cands;  /* per PE: the policy's candidates, bits (1u << shoal_transport_id_t) */
    unsigned tp_setup;   /* transports set up (same bits): torn down at finalize */
    unsigned tp_used;    /* transports with operations possibly outstanding (same bits) */
    void *tp_state[SHOAL_TRANSPORT_COUNT]; /* each transport's own state, by id */
    struct shoal_stage *stage; /* the GPU staging rings that staged and staged-over-MPI share, or NULL */
    shoal_topo_t topo;   /* loaded when the policy needs GPU paths (SHOAL_P2P_LEVEL below SYS) */

    MPI_Win shm_win;  /* host heap: the node's shared window (none for a PE alone on its node) */
    MPI_Win ctrl_win; /* node control block */
    shoal__node_ctrl_t *ctrl;
    uint64_t gen;     /* rendezvous generation */
    uint64_t api_colls; /* collective API calls entered: a call that meets twice counts once */
    bool coll_again;    /* the next rendezvous continues the current call (not counted) */
    uint32_t stream_barriers; /* shoal_barrier_all_on_stream calls that ran on the GPU (see SHOAL__COLL_KIND) */
    int fault_quiets;         /* SHOAL_FAULT: this PE's quiets still to fail */
    bool broken;      /* a collective failed midway: finalize locally only */
    bool wait_sleep;  /* more PEs on the node than CPUs: long waits sleep */

    struct shoal_gpu *gpu; /* GPU heap state, or NULL */

    int keyval; /* MPI_COMM_SELF attribute that finalizes us at MPI_Finalize */
    bool in_finalize;
    char creator[192]; /* where shoal_init was called: "function+0x.. (object)" */
    char err[1024]; /* last error */
    int err_status; /* its status (guarded with err) */
};

/* Checks done by the API layer before entering the runtime. */
static inline bool shoal__live(shoal_t sh) { return sh != NULL && sh->magic == SHOAL__MAGIC_LIVE; }
SHOAL__HIDDEN int shoal__bad_instance(shoal_t sh, const char *call);
/* Every public entry: a live instance, else the error for it. With logging
 * on, this thread's log lines name the PE of the instance it is in. */
#define SHOAL__LOG_PE(sh)                                                                \
    do {                                                                                 \
        if (SHOAL__UNLIKELY(shoal__log_level != 0)) shoal__log_set_pe((sh)->my_pe);      \
    } while (0)
#define SHOAL__ENTER(sh, call)                                                           \
    do {                                                                                 \
        if (SHOAL__UNLIKELY(!shoal__live(sh))) return shoal__bad_instance((sh), (call)); \
        SHOAL__LOG_PE(sh);                                                               \
    } while (0)
#define SHOAL__ENTER_NULL(sh, call)                                                      \
    do {                                                                                 \
        if (SHOAL__UNLIKELY(!shoal__live(sh))) {                                         \
            shoal__bad_instance((sh), (call));                                           \
            return NULL;                                                                 \
        }                                                                                \
        SHOAL__LOG_PE(sh);                                                               \
    } while (0)

/* Where ptr lies in my heap: 0 and its offset, or an error naming the call. */
static inline bool shoal__in_heap(shoal_t sh, const void *ptr, size_t n)
{
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)sh->heap_base;
    return p >= b && p - b <= sh->heap_size && n <= sh->heap_size - (p - b);
}

SHOAL__HIDDEN int shoal__init(MPI_Comm comm, const shoal_config_t *cfg, shoal_t *sh_p);
/* Remember where the application created sh (the return address of its
 * shoal_init call), for messages about the instance's life. */
SHOAL__HIDDEN void shoal__note_creator(shoal_t sh, const void *caller);
/* What sets the heap size, for messages that suggest changing it:
 * "SHOAL_HEAP_SIZE", or the config field when the program set it. */
SHOAL__HIDDEN const char *shoal__heap_size_knob(shoal_t sh);
SHOAL__HIDDEN int shoal__finalize(shoal_t sh);
SHOAL__HIDDEN void *shoal__malloc(shoal_t sh, const char *call, size_t size, size_t align, bool zero);
SHOAL__HIDDEN int shoal__free(shoal_t sh, void *ptr);
SHOAL__HIDDEN int shoal__rma(shoal_t sh, const char *call, bool is_put, void *dest, const void *src,
                             size_t n, int pe, int nbi);
/* The checks every put and get passes, on the host or on a stream (n > 0):
 * pe in range, a local buffer, the remote range inside the heap and (with
 * SHOAL_CHECK basic or full) inside one live allocation, local and remote
 * bytes apart. *off_p: the remote heap offset. */
SHOAL__HIDDEN int shoal__rma_check(shoal_t sh, const char *call, bool is_put, const void *dest, const void *src,
                                   size_t n, int pe, size_t *off_p);
SHOAL__HIDDEN int shoal__quiet(shoal_t sh, const char *call);
SHOAL__HIDDEN int shoal__barrier_all(shoal_t sh);
SHOAL__HIDDEN int shoal__barrier_as(shoal_t sh, const char *call, int coll);
/* After this PE's part of collective coll (argument arg) failed with status
 * before it met the others (a quiet, a stream wait, zeroing a calloc'ed
 * block, the allocator's table; the message is set): meet them all the
 * same, marked SHOAL__COLL_FAILED, so that they get the mismatch at once
 * instead of waiting for this PE until the timeout, and keep or give back
 * the same blocks. Returns status with this PE's message (and what the
 * meeting added, if it failed too). A thread-rule failure does not meet. */
SHOAL__HIDDEN int shoal__coll_failed_here(shoal_t sh, const char *call, int coll, uint64_t arg, int status);

/* Host heap (runtime/heap_host.c) and GPU heap (runtime/gpu.c). */
SHOAL__HIDDEN int shoal__heap_host_create(shoal_t sh);
/* Before the collective allocation: does the node's shared memory have room
 * for every PE's heap? (MPICH would otherwise fill /dev/shm for hours.) */
SHOAL__HIDDEN int shoal__heap_host_precheck(shoal_t sh);
SHOAL__HIDDEN void shoal__heap_host_destroy(shoal_t sh);
/* The host heap in whole pages (what a second mapping of it covers). */
SHOAL__HIDDEN size_t shoal__heap_host_span(shoal_t sh);
/* Collective over comm: does this MPI move the base of a window made over
 * part of the memory another window covers (MPI_WIN_BASE not the base it
 * was given), with that other window over the same memory (alias false) or
 * over a second mapping of its pages (alias true, as shoal's own)? Tried on
 * scratch memory; *moved_p is the same on every PE. */
SHOAL__HIDDEN int shoal__win_base_moves(shoal_t sh, const char *call, MPI_Comm comm, bool alias, int *moved_p);
SHOAL__HIDDEN int shoal__gpu_probe(shoal_t sh, bool *have_gpu_p);
SHOAL__HIDDEN int shoal__heap_gpu_create(shoal_t sh);
SHOAL__HIDDEN void shoal__heap_gpu_destroy(shoal_t sh);
SHOAL__HIDDEN int shoal__gpu_memset(shoal_t sh, void *ptr, size_t n);
/* pe's GPU (PCI bus id) as its node published it; NULL for PEs of other
 * nodes, host heaps and builds without CUDA. */
SHOAL__HIDDEN const char *shoal__gpu_bus_id(shoal_t sh, int pe);

#endif /* SHOAL_INTERNAL_H */
