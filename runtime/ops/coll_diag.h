/* Collective diagnostics (runtime/ops/coll_diag.c), for the rendezvous in
 * runtime/ops/coll.c: who a rendezvous misses, and how a PE's call reads. */
#ifndef SHOAL_COLL_DIAG_H
#define SHOAL_COLL_DIAG_H

#include "base/shoal_instance.h"

/* What a rendezvous learned about its PEs. */
typedef struct shoal__who shoal__who_t;

/* What this node's control block says of the PEs of the rendezvous at
 * generation gen of collective coll (malloc'd; NULL when out of memory). */
SHOAL__HIDDEN shoal__who_t *shoal__who_local(shoal_t sh, uint64_t gen, int coll);
/* With several nodes, add what their control blocks say; then write the
 * sentence naming the PEs missing, in another collective, or given up
 * into what. Frees w. */
SHOAL__HIDDEN void shoal__who_say(shoal_t sh, shoal__who_t *w, uint64_t gen, int coll, char *what, size_t len);
/* "shoal_malloc(1024 bytes)": a PE's call and argument. */
SHOAL__HIDDEN void shoal__call_str(shoal_t sh, uint64_t coll, uint64_t arg, char *buf, size_t len);
/* Does collective coll allocate or free heap memory? */
SHOAL__HIDDEN bool shoal__coll_allocates(int coll);

#endif /* SHOAL_COLL_DIAG_H */
