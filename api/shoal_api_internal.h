/* What api/'s entry points offer the API layers beside them (api/shmem/),
 * so that a layer's routine runs shoal's checks and dispatch under its own
 * name: messages then name the call the program made. */
#ifndef SHOAL_API_INTERNAL_H
#define SHOAL_API_INTERNAL_H

#include "team/shoal_team.h"

/* A team collective (a: what, on which elements) as the public calls run
 * it: on the GPU for GPU heaps where every member's heap is mapped here,
 * else on the host. t must be live (the caller checked it); call names
 * the routine in messages. Returns a status. */
SHOAL__HIDDEN int shoal__coll_api(shoal_team_t t, const char *call, const shoal__coll_args_t *a);

#endif /* SHOAL_API_INTERNAL_H */
