/* Nodes and their control window (runtime/base/node.c): the node
 * communicator and leaders, each node's control block (a slot per PE),
 * each PE's heap record, and the team slots, in one shared window. */
#ifndef SHOAL_NODE_H
#define SHOAL_NODE_H

#include <stdint.h>

#include "base/shoal_base.h"
#include "base/shoal_wait.h"

/* What a PE is waiting in, published for timeout and mismatch messages. */
#define SHOAL__COLL_MAP(X)                                                                                             \
    X(NONE, "nothing")                                                                                                 \
    X(BARRIER_ALL, "shoal_barrier_all")                                                                                \
    X(SYNC_ALL, "shoal_sync_all")                                                                                      \
    X(MALLOC, "shoal_malloc")                                                                                          \
    X(FREE, "shoal_free")                                                                                              \
    X(FINALIZE, "shoal_finalize")                                                                                      \
    X(BARRIER_STREAM, "shoal_barrier_all_on_stream")                                                                   \
    X(REGISTER, "shoal_register")                                                                                      \
    X(DEREGISTER, "shoal_deregister")
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
#define SHOAL__COLL_KIND(coll) ((int)((uint32_t)(coll) % 256u))
#define SHOAL__COLL_STREAMS(coll) (((uint32_t)(coll) >> 8) & 0x3fffffu)
/* Bit 30: this PE's part failed before it met the others (see
 * shoal__coll_failed_here). coll stays a positive int. */
#define SHOAL__COLL_FAILED (1 << 30)
/* Set in a PE's slot->arrived when it gave up on a collective (timeout):
 * it will not come back, and whoever meets it in a rendezvous fails too.
 * slot->coll keeps the collective it was in. */
#define SHOAL__GAVE_UP ((uint64_t)1 << 63)

/* A PE's slot in its node's control block (one cache line each). */
typedef struct shoal__pe_slot {
    _Atomic uint64_t arrived; /* generation of the last rendezvous entered */
    _Atomic uint32_t coll;    /* SHOAL__COLL_* it entered */
    _Atomic uint32_t gone;    /* a node peer found its process gone */
    _Atomic uint64_t arg;     /* its argument (size, offset) for symmetry checks */
    _Atomic uint64_t calls;   /* collective API calls entered since init (the numbers in messages) */
    char pad[SHOAL__CACHELINE - 32];
} shoal__pe_slot_t;

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

/* Collective in shoal_init: split the
 * communicator into nodes and leaders; create the node's control window. */
SHOAL__HIDDEN int shoal__nodes_create(shoal_t sh);
SHOAL__HIDDEN int shoal__ctrl_create(shoal_t sh);

/* What each PE says of its heap to its node, in the control window after
 * the control block: the one place where the node's heaps are described.
 * A PE fills its own record, then the node publishes them together. */
#define SHOAL__HEAP_DESC_GPU 224
typedef struct shoal__heap_desc {
    uint64_t kind;      /* SHOAL_HEAP_HOST or SHOAL_HEAP_GPU */
    uint64_t heap_size; /* bytes */
    uint64_t reserved[2];
    unsigned char gpu[SHOAL__HEAP_DESC_GPU]; /* GPU heap: runtime/heap/gpu.c's record (IPC handle, GPU, offsets) */
} shoal__heap_desc_t;
_Static_assert(sizeof(shoal__heap_desc_t) % SHOAL__CACHELINE == 0, "one record, whole cache lines");

/* Node rank r's record. */
SHOAL__HIDDEN shoal__heap_desc_t *shoal__heap_desc(shoal_t sh, int node_rank);
/* Collective over the node, once each PE wrote its own record: every
 * record is visible to every PE of the node after it. */
SHOAL__HIDDEN int shoal__heap_desc_publish(shoal_t sh, const char *call);

/* A member's slot in its node's control window, per team id: what it
 * entered and with what arguments, and, on the members' node leader, the
 * release and its verdict. */
typedef struct shoal__team_slot {
    _Atomic uint64_t arrived; /* generation of the last meeting entered (SHOAL__GAVE_UP: gave up) */
    _Atomic uint64_t release; /* leader: last generation released */
    _Atomic int32_t verdict;  /* leader: its status */
    uint32_t kind;            /* SHOAL__TC_* | dtype << 8 | op << 16 */
    uint64_t a, b;            /* its arguments */
    uint64_t count;           /* its count in a collect on one node (shoal__team_counts) */
    char pad[SHOAL__CACHELINE - 48];
} shoal__team_slot_t;
_Static_assert(sizeof(shoal__team_slot_t) == SHOAL__CACHELINE, "one cache line a slot");

/* Node rank node_rank's slot for team id (runtime/base/node.c: the window's layout). */
SHOAL__HIDDEN shoal__team_slot_t *shoal__team_slot(shoal_t sh, int id, int node_rank);

/* Bytes a member carries with a meeting of a team on one node (a small
 * reduction's operand): two buffers per slot, used by meetings of odd and
 * even generation in turn, so that a member writes one again only after
 * every member arrived in the meeting between, done reading it. */
#define SHOAL__TEAM_INLINE 256
/* Node rank r's buffer for the team's meeting of generation gen. */
SHOAL__HIDDEN void *shoal__team_inline(shoal_t sh, int id, int node_rank, uint64_t gen);

#endif /* SHOAL_NODE_H */
