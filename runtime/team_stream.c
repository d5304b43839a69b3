/* Collectives of teams on GPU heaps, in stream order. */
#include "shoal_team.h"

int shoal__team_gpu_reset(shoal_team_t t, const char *call)
{
    (void)t;
    (void)call;
    return SHOAL_SUCCESS;
}

int shoal__coll_run_stream(shoal_team_t t, const char *call, const shoal__coll_args_t *a, void *stream)
{
    (void)t;
    (void)call;
    (void)a;
    (void)stream;
    return SHOAL__COLL_NOT_HERE;
}

int shoal__coll_run_gpu(shoal_team_t t, const char *call, const shoal__coll_args_t *a)
{
    (void)t;
    (void)call;
    (void)a;
    return SHOAL__COLL_NOT_HERE;
}
