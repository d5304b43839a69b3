/* The public team and collective API (api/shoal.h): checks, then the
 * runtime; each family written once over its type table. A collective on a
 * GPU heap runs on the GPU where every member's heap is mapped here. */
#include "proxy/shoal_proxy.h"
#include "team/shoal_reduce.h"
#include "team/shoal_team.h"

shoal_team_t shoal_team_world(shoal_t sh)
{
    SHOAL__ENTER_NULL(sh, "shoal_team_world");
    return shoal__team_world(sh);
}

shoal_team_t shoal_team_node(shoal_t sh)
{
    SHOAL__ENTER_NULL(sh, "shoal_team_node");
    return shoal__team_node(sh);
}

int shoal_team_my_pe(shoal_team_t team)
{
    SHOAL__TEAM_ENTER(team, "shoal_team_my_pe");
    return team->my_pe;
}

int shoal_team_n_pes(shoal_team_t team)
{
    SHOAL__TEAM_ENTER(team, "shoal_team_n_pes");
    return team->n_pes;
}

shoal_t shoal_team_instance(shoal_team_t team) { return shoal__team_live(team) ? team->sh : NULL; }

int shoal_team_translate_pe(shoal_team_t src_team, int pe, shoal_team_t dest_team)
{
    if (!shoal__team_live(src_team) || !shoal__team_live(dest_team) || src_team->sh != dest_team->sh) return -1;
    return shoal__team_translate(src_team, pe, dest_team);
}

int shoal_team_split_strided(shoal_team_t parent, int start, int stride, int size, shoal_team_t *new_p)
{
    static const char *call = "shoal_team_split_strided";
    if (new_p != NULL) *new_p = SHOAL_TEAM_INVALID;
    SHOAL__TEAM_ENTER(parent, call);
    if (new_p == NULL) return shoal__error(parent->sh, SHOAL_ERR_INVALID_ARG, call, "new_p is NULL");
    return shoal__team_split_strided(parent, start, stride, size, new_p);
}

int shoal_team_split_2d(shoal_team_t parent, int xrange, shoal_team_t *xteam_p, shoal_team_t *yteam_p)
{
    static const char *call = "shoal_team_split_2d";
    if (xteam_p != NULL) *xteam_p = SHOAL_TEAM_INVALID;
    if (yteam_p != NULL) *yteam_p = SHOAL_TEAM_INVALID;
    SHOAL__TEAM_ENTER(parent, call);
    if (xteam_p == NULL || yteam_p == NULL)
        return shoal__error(parent->sh, SHOAL_ERR_INVALID_ARG, call, "%s is NULL", xteam_p ? "yteam_p" : "xteam_p");
    return shoal__team_split_2d(parent, xrange, xteam_p, yteam_p);
}

int shoal_team_create_strided(shoal_t sh, int start, int stride, int size, shoal_team_t *new_p)
{
    static const char *call = "shoal_team_create_strided";
    if (new_p != NULL) *new_p = SHOAL_TEAM_INVALID;
    SHOAL__ENTER(sh, call);
    if (new_p == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "new_p is NULL");
    return shoal__team_create_strided(sh, start, stride, size, new_p);
}

int shoal_team_sync(shoal_team_t team)
{
    SHOAL__TEAM_ENTER(team, "shoal_team_sync");
    return shoal__team_meet(team, "shoal_team_sync", SHOAL__TC_KIND(SHOAL__TC_SYNC, 0, 0), 0, 0);
}

int shoal_team_barrier(shoal_team_t team)
{
    SHOAL__TEAM_ENTER(team, "shoal_team_barrier");
    int prc = shoal__proxy_complete(team->sh, "shoal_team_barrier");
    int rc = shoal__team_barrier(team, "shoal_team_barrier", SHOAL__TC_KIND(SHOAL__TC_BARRIER, 0, 0), 0, 0);
    return prc != SHOAL_SUCCESS ? prc : rc;
}

int shoal_team_destroy(shoal_team_t team)
{
    SHOAL__TEAM_ENTER(team, "shoal_team_destroy");
    return shoal__team_destroy(team);
}

#define SHOAL__COLL_DEF(T, N)                                                                                          \
    int shoal_##N##_broadcast(shoal_team_t team, T *dest, const T *src, size_t nelems, int root)                       \
    {                                                                                                                  \
        shoal__coll_args_t a =                                                                                         \
            {.tc = SHOAL__TC_BCAST, .dt = SHOAL__DT_##N, .dest = dest, .src = src, .nelems = nelems, .root = root};    \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_broadcast");                                                             \
        return shoal__coll_run(team, "shoal_" #N "_broadcast", &a);                                                    \
    }                                                                                                                  \
    int shoal_##N##_collect(shoal_team_t team, T *dest, const T *src, size_t nelems)                                   \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = SHOAL__TC_COLLECT,                                                               \
                                .dt = SHOAL__DT_##N,                                                                   \
                                .dest = dest,                                                                          \
                                .src = src,                                                                            \
                                .nelems = nelems};                                                                     \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_collect");                                                               \
        return shoal__coll_run(team, "shoal_" #N "_collect", &a);                                                      \
    }                                                                                                                  \
    int shoal_##N##_fcollect(shoal_team_t team, T *dest, const T *src, size_t nelems)                                  \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = SHOAL__TC_FCOLLECT,                                                              \
                                .dt = SHOAL__DT_##N,                                                                   \
                                .dest = dest,                                                                          \
                                .src = src,                                                                            \
                                .nelems = nelems};                                                                     \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_fcollect");                                                              \
        return shoal__coll_run(team, "shoal_" #N "_fcollect", &a);                                                     \
    }                                                                                                                  \
    int shoal_##N##_alltoall(shoal_team_t team, T *dest, const T *src, size_t nelems)                                  \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = SHOAL__TC_ALLTOALL,                                                              \
                                .dt = SHOAL__DT_##N,                                                                   \
                                .dest = dest,                                                                          \
                                .src = src,                                                                            \
                                .nelems = nelems};                                                                     \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_alltoall");                                                              \
        return shoal__coll_run(team, "shoal_" #N "_alltoall", &a);                                                     \
    }                                                                                                                  \
    int shoal_##N##_alltoalls(shoal_team_t team, T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)   \
    {                                                                                                                  \
        shoal__coll_args_t a = {.tc = SHOAL__TC_ALLTOALLS,                                                             \
                                .dt = SHOAL__DT_##N,                                                                   \
                                .dest = dest,                                                                          \
                                .src = src,                                                                            \
                                .nelems = nelems,                                                                      \
                                .dst = dst,                                                                            \
                                .sst = sst};                                                                           \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_alltoalls");                                                             \
        return shoal__coll_run(team, "shoal_" #N "_alltoalls", &a);                                                    \
    }
SHOAL_RMA_TYPES(SHOAL__COLL_DEF)
SHOAL_HALF_TYPES(SHOAL__COLL_DEF)
#undef SHOAL__COLL_DEF

int shoal_broadcastmem(shoal_team_t team, void *dest, const void *src, size_t nbytes, int root)
{
    shoal__coll_args_t a = {.tc = SHOAL__TC_BCAST, .dest = dest, .src = src, .nelems = nbytes, .root = root};
    SHOAL__TEAM_ENTER(team, "shoal_broadcastmem");
    return shoal__coll_run(team, "shoal_broadcastmem", &a);
}

int shoal_collectmem(shoal_team_t team, void *dest, const void *src, size_t nbytes)
{
    shoal__coll_args_t a = {.tc = SHOAL__TC_COLLECT, .dest = dest, .src = src, .nelems = nbytes};
    SHOAL__TEAM_ENTER(team, "shoal_collectmem");
    return shoal__coll_run(team, "shoal_collectmem", &a);
}

int shoal_fcollectmem(shoal_team_t team, void *dest, const void *src, size_t nbytes)
{
    shoal__coll_args_t a = {.tc = SHOAL__TC_FCOLLECT, .dest = dest, .src = src, .nelems = nbytes};
    SHOAL__TEAM_ENTER(team, "shoal_fcollectmem");
    return shoal__coll_run(team, "shoal_fcollectmem", &a);
}

int shoal_alltoallmem(shoal_team_t team, void *dest, const void *src, size_t nbytes)
{
    shoal__coll_args_t a = {.tc = SHOAL__TC_ALLTOALL, .dest = dest, .src = src, .nelems = nbytes};
    SHOAL__TEAM_ENTER(team, "shoal_alltoallmem");
    return shoal__coll_run(team, "shoal_alltoallmem", &a);
}

int shoal_alltoallsmem(shoal_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nbytes)
{
    shoal__coll_args_t a =
        {.tc = SHOAL__TC_ALLTOALLS, .dest = dest, .src = src, .nelems = nbytes, .dst = dst, .sst = sst};
    SHOAL__TEAM_ENTER(team, "shoal_alltoallsmem");
    return shoal__coll_run(team, "shoal_alltoallsmem", &a);
}

/* A reduction (TC REDUCE, NAME reduce) or reduce-scatter. */
#define SHOAL__REDUCE_DEF2(T, N, OP, TC, NAME)                                                                         \
    int shoal_##N##_##OP##_##NAME(shoal_team_t team, T *dest, const T *src, size_t nreduce)                            \
    {                                                                                                                  \
        shoal__coll_args_t a =                                                                                         \
            {.tc = TC, .dt = SHOAL__DT_##N, .op = SHOAL__OP_##OP, .dest = dest, .src = src, .nelems = nreduce};        \
        SHOAL__TEAM_ENTER(team, "shoal_" #N "_" #OP "_" #NAME);                                                        \
        return shoal__coll_run(team, "shoal_" #N "_" #OP "_" #NAME, &a);                                               \
    }
#define SHOAL__REDUCE_DEF1(T, N, OP)                                                                                   \
    SHOAL__REDUCE_DEF2(T, N, OP, SHOAL__TC_REDUCE, reduce)                                                             \
    SHOAL__REDUCE_DEF2(T, N, OP, SHOAL__TC_REDUCESCATTER, reducescatter)
#define SHOAL__REDUCE_BIT_DEF(T, N)                                                                                    \
    SHOAL__REDUCE_DEF1(T, N, and) SHOAL__REDUCE_DEF1(T, N, or) SHOAL__REDUCE_DEF1(T, N, xor)
#define SHOAL__REDUCE_ARITH_DEF(T, N)                                                                                  \
    SHOAL__REDUCE_DEF1(T, N, min)                                                                                      \
    SHOAL__REDUCE_DEF1(T, N, max) SHOAL__REDUCE_DEF1(T, N, sum) SHOAL__REDUCE_DEF1(T, N, prod)
#define SHOAL__REDUCE_CPLX_DEF(T, N) SHOAL__REDUCE_DEF1(T, N, sum) SHOAL__REDUCE_DEF1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(SHOAL__REDUCE_BIT_DEF)
SHOAL_REDUCE_ARITH_TYPES(SHOAL__REDUCE_ARITH_DEF)
SHOAL_HALF_TYPES(SHOAL__REDUCE_ARITH_DEF)
SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__REDUCE_CPLX_DEF)

/* The 16-bit floating types' conversions: the host reductions' own. */
shoal_half_t shoal_half_from_float(float value) { return (shoal_half_t){shoal__half_from_float(value)}; }
float shoal_half_to_float(shoal_half_t value) { return shoal__half_to_float(value.bits); }
shoal_bfloat16_t shoal_bfloat16_from_float(float value) { return (shoal_bfloat16_t){shoal__bf16_from_float(value)}; }
float shoal_bfloat16_to_float(shoal_bfloat16_t value) { return shoal__bf16_to_float(value.bits); }
