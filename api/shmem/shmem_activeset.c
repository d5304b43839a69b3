/* OpenSHMEM 1.5's active-set collectives (api/shmem/shmem_activeset.h) on
 * shoal's teams. An active set is a team that only its members take part
 * in making (shoal_team_create_strided: a split would need every PE of a
 * parent), made the first time this PE uses the set and kept per triplet
 * until shmem_finalize, whose shoal_finalize ends it; the whole world is
 * the world team. Each routine then runs shoal's team collective
 * (runtime/team) under its own OpenSHMEM name, so that errors name it:
 * the broadcasts with keep_root (the root's dest is not written, and may
 * be its source), the reductions with their int nreduce checked. pSync and
 * pWrk are never touched. */
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "shmem_internal.h"
#include "base/shoal_instance.h"
#include "team/shoal_reduce.h"
#include "team/shoal_team.h"

/* The teams of the active sets this PE used, by triplet (a set of one PE
 * is kept with logPE_stride 0: every stride names it), in the instance
 * shmem__epoch numbered shmem__aset_epoch (the teams of an earlier one
 * ended with it, at shmem_finalize). Few: each is a team of this PE's, and
 * a PE has at most SHOAL_TEAM_MAX. */
typedef struct shmem__aset {
    int start, log_stride, size;
    shoal_team_t team;
} shmem__aset_t;
static shmem__aset_t *shmem__asets;
static size_t shmem__n_asets, shmem__cap_asets;
static unsigned long shmem__aset_epoch;
static pthread_mutex_t shmem__aset_lock = PTHREAD_MUTEX_INITIALIZER; /* guards the list and its epoch */

/* An active set's triplet that is not one, or leaves this PE out: the
 * job stops (these routines have no status to return). */
static void shmem__aset_bad(const char *call, int start, int log_stride, int size, const char *why)
{
    shoal_t sh = shmem__sh;
    shmem__die(call, shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                  "the active set PE_start %d, logPE_stride %d, PE_size %d %s; every member of an "
                                  "active set passes the same triplet, and only members call",
                                  start, log_stride, size, why));
}

/* The team of the active set (start, log_stride, size), made on its first
 * use here; its members call alike. */
static shoal_team_t shmem__aset_team(const char *call, int start, int log_stride, int size)
{
    shoal_t sh;
    shoal_team_t t = SHOAL_TEAM_INVALID;
    long long stride, last, d;
    char why[160];
    int rc;

    SHMEM__NEED(call);
    sh = shmem__sh;
    if (start < 0 || log_stride < 0 || size < 1)
        shmem__aset_bad(call, start, log_stride, size,
                        "is not a set of PEs (PE_start and logPE_stride at least 0, PE_size at least 1)");
    /* A set of one PE has no stride; beyond 2^30 no second PE exists. */
    stride = size == 1 ? 1 : log_stride < 31 ? 1LL << log_stride : LLONG_MAX;
    last = stride == LLONG_MAX ? LLONG_MAX : start + (long long)(size - 1) * stride;
    if (last >= sh->n_pes) {
        if (stride == LLONG_MAX)
            snprintf(why, sizeof(why), "names PEs past the last PE (%d)", sh->n_pes - 1);
        else
            snprintf(why, sizeof(why), "names PEs %d to %lld, past the last PE (%d)", start, last, sh->n_pes - 1);
        shmem__aset_bad(call, start, log_stride, size, why);
    }
    d = (long long)sh->my_pe - start;
    if (d < 0 || d % stride != 0 || d / stride >= size) {
        snprintf(why, sizeof(why), "(PEs %d to %lld, every %lld) does not hold PE %d, which called it", start, last,
                 stride, sh->my_pe);
        shmem__aset_bad(call, start, log_stride, size, why);
    }
    if (start == 0 && size == sh->n_pes) return shmem__team_world;
    if (size == 1) log_stride = 0;
    pthread_mutex_lock(&shmem__aset_lock);
    if (shmem__aset_epoch != shmem__epoch) { /* a new instance: the teams kept went with the last one */
        shmem__n_asets = 0;
        shmem__aset_epoch = shmem__epoch;
    }
    for (size_t i = 0; i < shmem__n_asets && t == SHOAL_TEAM_INVALID; i++)
        if (shmem__asets[i].start == start && shmem__asets[i].log_stride == log_stride && shmem__asets[i].size == size)
            t = shmem__asets[i].team;
    if (t == SHOAL_TEAM_INVALID && shmem__n_asets == shmem__cap_asets) {
        size_t cap = shmem__cap_asets ? 2 * shmem__cap_asets : 8;
        shmem__aset_t *v = realloc(shmem__asets, cap * sizeof(*v));
        if (v == NULL) {
            pthread_mutex_unlock(&shmem__aset_lock);
            shmem__die(call, shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for an active set's team"));
        }
        shmem__asets = v;
        shmem__cap_asets = cap;
    }
    if (t == SHOAL_TEAM_INVALID) {
        /* The members make it together, each at its first use of the set. */
        rc = shoal_team_create_strided(sh, start, (int)stride, size, &t);
        if (rc != SHOAL_SUCCESS) {
            pthread_mutex_unlock(&shmem__aset_lock);
            /* The triplet as the program gave it: shoal's message speaks of
             * the team (its stride is 2^logPE_stride). */
            fprintf(stderr,
                    "%s: PE %d: the active set PE_start %d, logPE_stride %d, PE_size %d could not be formed (each "
                    "distinct active set is a team kept until shmem_finalize; %d teams at most, the program's own "
                    "included):\n",
                    call, shoal_my_pe(sh), start, log_stride, size, SHOAL_TEAM_MAX - 2);
            shmem__die(call, rc);
        }
        shmem__asets[shmem__n_asets++] = (shmem__aset_t){start, log_stride, size, t};
    }
    pthread_mutex_unlock(&shmem__aset_lock);
    return t;
}

/* A collective on the active set's team, under the routine's name. */
static int shmem__aset_run(shoal_team_t t, const char *call, const shoal__coll_args_t *a)
{
    SHOAL__TEAM_ENTER(t, call);
    return shoal__coll_run(t, call, a);
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    static const char *call = "shmem_barrier";
    shoal_team_t t = shmem__aset_team(call, PE_start, logPE_stride, PE_size);
    (void)pSync;
    SHMEM__OK(call, shoal__team_barrier(t, call, SHOAL__TC_KIND(SHOAL__TC_BARRIER, 0, 0), 0, 0));
}

void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    static const char *call = "shmem_sync";
    shoal_team_t t = shmem__aset_team(call, PE_start, logPE_stride, PE_size);
    (void)pSync;
    SHMEM__OK(call, shoal__team_meet(t, call, SHOAL__TC_KIND(SHOAL__TC_SYNC, 0, 0), 0, 0));
}

/* An active-set collective a on the set's team, named call in messages. */
static void shmem__aset_coll(const char *call, int PE_start, int logPE_stride, int PE_size, shoal__coll_args_t a)
{
    SHMEM__OK(call, shmem__aset_run(shmem__aset_team(call, PE_start, logPE_stride, PE_size), call, &a));
}

/* Elements of 32 or 64 bits; pSync is never used (see the file's head).
 * A broadcast leaves the root's dest alone (keep_root). */
#define SHMEM__ASET_DEF(BITS)                                                                                          \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root, int PE_start,               \
                               int logPE_stride, int PE_size, long *pSync)                                             \
    {                                                                                                                  \
        (void)pSync;                                                                                                   \
        shmem__aset_coll("shmem_broadcast" #BITS, PE_start, logPE_stride, PE_size,                                     \
                         (shoal__coll_args_t){.tc = SHOAL__TC_BCAST,                                                   \
                                              .dt = SHOAL__DT_uint##BITS,                                              \
                                              .dest = dest,                                                            \
                                              .src = source,                                                           \
                                              .nelems = nelems,                                                        \
                                              .root = PE_root,                                                         \
                                              .keep_root = true});                                                     \
    }                                                                                                                  \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,            \
                             int PE_size, long *pSync)                                                                 \
    {                                                                                                                  \
        (void)pSync;                                                                                                   \
        shmem__aset_coll("shmem_collect" #BITS, PE_start, logPE_stride, PE_size,                                       \
                         (shoal__coll_args_t){.tc = SHOAL__TC_COLLECT,                                                 \
                                              .dt = SHOAL__DT_uint##BITS,                                              \
                                              .dest = dest,                                                            \
                                              .src = source,                                                           \
                                              .nelems = nelems});                                                      \
    }                                                                                                                  \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,           \
                              int PE_size, long *pSync)                                                                \
    {                                                                                                                  \
        (void)pSync;                                                                                                   \
        shmem__aset_coll("shmem_fcollect" #BITS, PE_start, logPE_stride, PE_size,                                      \
                         (shoal__coll_args_t){.tc = SHOAL__TC_FCOLLECT,                                                \
                                              .dt = SHOAL__DT_uint##BITS,                                              \
                                              .dest = dest,                                                            \
                                              .src = source,                                                           \
                                              .nelems = nelems});                                                      \
    }                                                                                                                  \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start, int logPE_stride,           \
                              int PE_size, long *pSync)                                                                \
    {                                                                                                                  \
        (void)pSync;                                                                                                   \
        shmem__aset_coll("shmem_alltoall" #BITS, PE_start, logPE_stride, PE_size,                                      \
                         (shoal__coll_args_t){.tc = SHOAL__TC_ALLTOALL,                                                \
                                              .dt = SHOAL__DT_uint##BITS,                                              \
                                              .dest = dest,                                                            \
                                              .src = source,                                                           \
                                              .nelems = nelems});                                                      \
    }                                                                                                                  \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,            \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)                               \
    {                                                                                                                  \
        (void)pSync;                                                                                                   \
        shmem__aset_coll("shmem_alltoalls" #BITS, PE_start, logPE_stride, PE_size,                                     \
                         (shoal__coll_args_t){.tc = SHOAL__TC_ALLTOALLS,                                               \
                                              .dt = SHOAL__DT_uint##BITS,                                              \
                                              .dest = dest,                                                            \
                                              .src = source,                                                           \
                                              .nelems = nelems,                                                        \
                                              .dst = dst,                                                              \
                                              .sst = sst});                                                            \
    }
SHMEM__ASET_DEF(32)
SHMEM__ASET_DEF(64)
#undef SHMEM__ASET_DEF

/* A reduction of nreduce elements of type dt with operator op. */
static void shmem__to_all(const char *call, int dt, int op, void *dest, const void *source, int nreduce, int PE_start,
                          int logPE_stride, int PE_size)
{
    if (nreduce < 0)
        shmem__die(call,
                   shoal__error(shmem__sh, SHOAL_ERR_INVALID_ARG, call, "nreduce %d: at least 0 elements", nreduce));
    shmem__aset_coll(call, PE_start, logPE_stride, PE_size,
                     (shoal__coll_args_t){.tc = SHOAL__TC_REDUCE,
                                          .dt = dt,
                                          .op = op,
                                          .dest = dest,
                                          .src = source,
                                          .nelems = (size_t)nreduce});
}

#define SHMEM__TO_ALL_DEF1(T, N, OP)                                                                                   \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start, int logPE_stride, int PE_size, \
                                   T *pWrk, long *pSync)                                                               \
    {                                                                                                                  \
        (void)pWrk;                                                                                                    \
        (void)pSync;                                                                                                   \
        shmem__to_all("shmem_" #N "_" #OP "_to_all", SHOAL__DT_##N, SHOAL__OP_##OP, dest, source, nreduce, PE_start,   \
                      logPE_stride, PE_size);                                                                          \
    }
#define SHMEM__TO_ALL_BIT_DEF(T, N)                                                                                    \
    SHMEM__TO_ALL_DEF1(T, N, and) SHMEM__TO_ALL_DEF1(T, N, or) SHMEM__TO_ALL_DEF1(T, N, xor)
#define SHMEM__TO_ALL_ARITH_DEF(T, N)                                                                                  \
    SHMEM__TO_ALL_DEF1(T, N, min)                                                                                      \
    SHMEM__TO_ALL_DEF1(T, N, max) SHMEM__TO_ALL_DEF1(T, N, sum) SHMEM__TO_ALL_DEF1(T, N, prod)
#define SHMEM__TO_ALL_CPLX_DEF(T, N) SHMEM__TO_ALL_DEF1(T, N, sum) SHMEM__TO_ALL_DEF1(T, N, prod)
SHMEM__TO_ALL_BIT_TYPES(SHMEM__TO_ALL_BIT_DEF)
SHMEM__TO_ALL_ARITH_TYPES(SHMEM__TO_ALL_ARITH_DEF)
SHMEM__TO_ALL_COMPLEX_TYPES(SHMEM__TO_ALL_CPLX_DEF)
