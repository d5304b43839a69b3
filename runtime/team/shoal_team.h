/* Teams (runtime/team/team.c: their life; runtime/team/team_sync.c: how members
 * meet) and the collectives on them (runtime/team/team_coll.c on the host,
 * runtime/team/team_stream.c on streams). */
#ifndef SHOAL_TEAM_H
#define SHOAL_TEAM_H

#include "shoal_device_types.h"
#include "base/shoal_instance.h"

#define SHOAL__TEAM_MAGIC 0x7465616du /* "team" */
#define SHOAL__TEAM_DEAD 0x64656164u  /* "dead": destroyed, kept until shoal_finalize */
/* Team ids: world and node are fixed, splits take the lowest id free on
 * every PE of the parent. An id names the team's slots in the node's
 * control window and its flags in each GPU's control area. */
#define SHOAL__TEAM_ID_WORLD 0
#define SHOAL__TEAM_ID_NODE 1

struct shoal_team {
    uint32_t magic;
    shoal_t sh;
    int id;                  /* 0 .. SHOAL_TEAM_MAX - 1 */
    int my_pe;               /* this PE's number in the team */
    int n_pes;               /* members */
    int *pes;                /* instance PE of each member, in team order */
    int start;               /* pes[i] == start + i * stride when strided */
    int stride;              /* (0 for a team of one) */
    bool strided;            /* the members are an arithmetic progression of PEs */
    MPI_Comm comm;           /* the members (world's and node's are the instance's) */
    bool owns_comm;          /* comm and leader_comm were made for this team */
    MPI_Comm leader;         /* the team's lowest member of each node, when it spans nodes; else MPI_COMM_NULL */
    int n_nodes;             /* nodes the team spans */
    int n_local;             /* members on this PE's node */
    int *local;              /* their node ranks, in team order; local[0] leads them */
    int *local_team;         /* their team numbers */
    bool ls_host;            /* every member's heap is host memory this PE loads and stores */
    bool ls_gpu;             /* every member's heap is GPU memory mapped here (CUDA IPC) */
    bool ls_call;            /* the collective in progress stores into the members' heaps (ls_host, heap buffers) */
    bool ls_local;           /* every member of this node: a host heap this PE loads and stores */
    bool gpu_ok;             /* the members meet and compute on the GPU (runtime/team/team_stream.c) */
    bool gpu_used;           /* work of the team was enqueued on a GPU */
    void *gpu_event;         /* cudaEvent_t after the team's last GPU work here, or NULL */
    void *gpu_stream;        /* the stream it was on */
    uint64_t gen;            /* meetings so far */
    uint32_t stream_gen;     /* GPU stream barriers of this team so far */
    bool broken;             /* a meeting failed midway: the members are out of step */
    int gpu_mode;            /* GPU heaps: 0 not decided yet, else SHOAL__TEAM_GPU_* (runtime/team/team_stream.c) */
    struct shoal_team *next; /* the instance's teams, oldest first */
};

/* What a member meets in: X(name, call). */
#define SHOAL__TC_MAP(X)                                                                                               \
    X(SYNC, "shoal_team_sync")                                                                                         \
    X(BARRIER, "shoal_team_barrier")                                                                                   \
    X(DESTROY, "shoal_team_destroy")                                                                                   \
    X(BCAST, "broadcast")                                                                                              \
    X(COLLECT, "collect")                                                                                              \
    X(FCOLLECT, "fcollect")                                                                                            \
    X(ALLTOALL, "alltoall")                                                                                            \
    X(ALLTOALLS, "alltoalls")                                                                                          \
    X(REDUCE, "reduce")                                                                                                \
    X(REDUCESCATTER, "reducescatter")                                                                                  \
    X(COUNTS, "collect")                                                                                               \
    X(BARRIER_STREAM, "shoal_team_barrier")
enum {
#define SHOAL__TC_ENUM(name, str) SHOAL__TC_##name,
    SHOAL__TC_MAP(SHOAL__TC_ENUM)
#undef SHOAL__TC_ENUM
        SHOAL__TC_COUNT
};
/* Set in a kind: the call's _on_stream form; the call failed on this PE
 * before the members met (they learn it at once instead of timing out). */
#define SHOAL__TC_STREAM (1u << 24)
#define SHOAL__TC_FAILED (1u << 25)
/* The meeting a collect or fcollect in place (dest == src) makes after
 * copying its block aside, before any member pushes. */
#define SHOAL__TC_IN_PLACE (1u << 26)
#define SHOAL__TC_KIND(tc, dtype, op) ((uint32_t)(tc) | (uint32_t)(dtype) << 8 | (uint32_t)(op) << 16)

/* Teams' life (runtime/team/team.c). */
SHOAL__HIDDEN int shoal__teams_create(shoal_t sh); /* world and node, at init */
SHOAL__HIDDEN void shoal__teams_destroy(shoal_t sh, bool collective);
/* A live team of a live instance. */
static inline bool shoal__team_live(shoal_team_t t)
{
    return t != NULL && t->magic == SHOAL__TEAM_MAGIC && shoal__live(t->sh);
}
SHOAL__HIDDEN shoal_team_t shoal__team_world(shoal_t sh);
SHOAL__HIDDEN shoal_team_t shoal__team_node(shoal_t sh);
/* dest's number of src's PE pe, or -1. */
SHOAL__HIDDEN int shoal__team_translate(shoal_team_t src, int pe, shoal_team_t dest);
SHOAL__HIDDEN int shoal__team_split_strided(shoal_team_t parent, int start, int stride, int size, shoal_team_t *new_p);
SHOAL__HIDDEN int shoal__team_split_2d(shoal_team_t parent, int xrange, shoal_team_t *xteam_p, shoal_team_t *yteam_p);
/* shoal_team_create_strided: made by the members alone (sh's PEs start,
 * start + stride, ..., the caller one of them; stride >= 1 unless size is
 * 1), an id free on every member. */
SHOAL__HIDDEN int shoal__team_create_strided(shoal_t sh, int start, int stride, int size, shoal_team_t *new_p);
SHOAL__HIDDEN int shoal__team_destroy(shoal_team_t t);
/* A new team's GPU flags (runtime/team/team_stream.c): zeroed in this PE's
 * control area, before the members first meet. Nothing on host heaps. */
SHOAL__HIDDEN int shoal__team_gpu_reset(shoal_team_t t, const char *call);
/* Can this PE reach every member on the GPU (kernels and their flags)?
 * The members agree on it at the team's creation. */
SHOAL__HIDDEN bool shoal__team_gpu_reachable(shoal_team_t t);
/* Before a team goes: its GPU work is done on this PE (its flags and id
 * may serve the next team). */
SHOAL__HIDDEN int shoal__team_gpu_quiesce(shoal_team_t t, const char *call);
/* Reductions of teams spanning nodes through their node leaders
 * (runtime/team/team_hier.c): where every member of each node loads and stores
 * the others' host heaps. */
SHOAL__HIDDEN bool shoal__reduce_hier_ok(shoal_team_t t);
SHOAL__HIDDEN int shoal__reduce_hier(shoal_team_t t, const char *call, int dt, int op, void *dest, const void *src,
                                     size_t n);
/* Every public team entry: a live team, else SHOAL_ERR_INVALID_ARG naming the call. */
SHOAL__HIDDEN int shoal__bad_team(shoal_team_t t, const char *call);
#define SHOAL__TEAM_ENTER(t, call)                                                                                     \
    do {                                                                                                               \
        if (SHOAL__UNLIKELY(!shoal__team_live(t))) return shoal__bad_team((t), (call));                                \
        SHOAL__LOG_PE((t)->sh);                                                                                        \
    } while (0)

/* Members meet (runtime/team/team_sync.c): every member enters with the same
 * kind and arguments a, b; SHOAL_ERR_NOT_SYMMETRIC (naming the PEs and what
 * each called) or SHOAL_ERR_TIMEOUT (naming the missing members) otherwise. */
SHOAL__HIDDEN int shoal__team_meet(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b);
/* quiet, meet, then what peers put is visible here. */
SHOAL__HIDDEN int shoal__team_barrier(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b);
/* Every member's count (a collect's nelems) into counts[n_pes], checked
 * and bounded like a meeting. */
SHOAL__HIDDEN int shoal__team_counts(shoal_team_t t, const char *call, uint32_t kind, uint64_t mine, uint64_t *counts);
/* "shoal_int_sum_reduce(nreduce 10)" for kind, a, b. */
SHOAL__HIDDEN void shoal__team_call_str(shoal_t sh, uint32_t kind, uint64_t a, uint64_t b, char *buf, size_t len);

/* One collective call: what every level (host, stream, kernel) is given. */
typedef struct shoal__coll_args {
    int tc;     /* SHOAL__TC_BCAST .. SHOAL__TC_REDUCESCATTER */
    int dt, op; /* element type and operator (runtime/team/shoal_reduce.h) */
    void *dest;
    const void *src;
    size_t nelems;      /* elements of dt */
    int root;           /* broadcast */
    bool keep_root;     /* broadcast: the root's dest is not written (OpenSHMEM's active-set broadcast) */
    ptrdiff_t dst, sst; /* alltoalls */
} shoal__coll_args_t;
/* The host API's collective: on the GPU for GPU heaps where it can
 * (shoal__coll_run_gpu), else on the host. */
SHOAL__HIDDEN int shoal__coll_run(shoal_team_t t, const char *call, const shoal__coll_args_t *a);
/* The host collective a describes. */
SHOAL__HIDDEN int shoal__coll_run_host(shoal_team_t t, const char *call, const shoal__coll_args_t *a);
/* On a stream (runtime/team/team_stream.c, CUDA builds): enqueued on stream
 * where every member's GPU heap is mapped here and the GPU has the type;
 * else SHOAL__COLL_NOT_HERE (nothing done: the host runs it once the
 * stream is idle). */
#define SHOAL__COLL_NOT_HERE 1
SHOAL__HIDDEN int shoal__coll_run_stream(shoal_team_t t, const char *call, const shoal__coll_args_t *a, void *stream);
/* The host API's collective on a GPU heap: on the GPU (an internal stream,
 * waited for) where shoal__coll_run_stream can, else SHOAL__COLL_NOT_HERE. */
SHOAL__HIDDEN int shoal__coll_run_gpu(shoal_team_t t, const char *call, const shoal__coll_args_t *a);
/* The device team of t (shoal_team_device_get); SHOAL_ERR_UNSUPPORTED
 * where kernels cannot reach every member (dt->ok 0). */
SHOAL__HIDDEN int shoal__team_device_fill(shoal_team_t t, shoal_dev_team_t *dt, bool proxy);
/* shoal_team_barrier_on_stream. */
SHOAL__HIDDEN int shoal__team_barrier_on_stream(shoal_team_t t, const char *call, void *stream);
/* The host waits for stream (its errors named as call's). */
SHOAL__HIDDEN int shoal__team_stream_wait(shoal_team_t t, const char *call, void *stream);

/* The host collectives (runtime/team/team_coll.c), dtype and op from
 * runtime/team/shoal_reduce.h; counts in elements of dtype. */
SHOAL__HIDDEN int shoal__coll_bcast(shoal_team_t t, const char *call, int dt, void *dest, const void *src,
                                    size_t nelems, int root, bool keep_root);
SHOAL__HIDDEN int shoal__coll_collect(shoal_team_t t, const char *call, int dt, void *dest, const void *src,
                                      size_t nelems);
SHOAL__HIDDEN int shoal__coll_fcollect(shoal_team_t t, const char *call, int dt, void *dest, const void *src,
                                       size_t nelems);
SHOAL__HIDDEN int shoal__coll_alltoall(shoal_team_t t, const char *call, int dt, void *dest, const void *src,
                                       size_t nelems);
SHOAL__HIDDEN int shoal__coll_alltoalls(shoal_team_t t, const char *call, int dt, void *dest, const void *src,
                                        ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
SHOAL__HIDDEN int shoal__coll_reduce(shoal_team_t t, const char *call, int dt, int op, void *dest, const void *src,
                                     size_t nreduce);
/* src: n_pes blocks of nreduce; block my_pe of every member's src reduced into dest. */
SHOAL__HIDDEN int shoal__coll_reducescatter(shoal_team_t t, const char *call, int dt, int op, void *dest,
                                            const void *src, size_t nreduce);
/* n * m bytes into *out, or an error where it overflows. */
SHOAL__HIDDEN int shoal__coll_bytes(shoal_t sh, const char *call, size_t n, size_t m, size_t *out);
/* dest (dbytes) and src (sbytes) symmetric on this PE and apart (or equal,
 * where in_place_ok); a size of 0 skips its side. */
SHOAL__HIDDEN int shoal__coll_check(shoal_team_t t, const char *call, const void *dest, size_t dbytes, const void *src,
                                    size_t sbytes, bool in_place_ok);
/* A collective's argument error on this PE: meet the members all the same,
 * marked failed, and return status with this PE's message. */
SHOAL__HIDDEN int shoal__coll_fail(shoal_team_t t, const char *call, uint32_t kind, uint64_t a, uint64_t b, int status);

#endif /* SHOAL_TEAM_H */
