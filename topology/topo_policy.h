/*
 * The transport policy as the runtime uses it (topology/policy.c): every
 * transport that may join a pair, best first. shoal_topo_choose, which
 * shoal-topo shows, is the first of them; shoal_init takes the first that
 * connects. Hidden from the library's users.
 */
#ifndef SHOAL_TOPO_POLICY_H
#define SHOAL_TOPO_POLICY_H

#include <stddef.h>

#include "shoal_topo.h"

/* The enabled candidates from a to b, best first, into tps (*n_p of them,
 * at least 1 on success); why as shoal_topo_choose gives it. topo may be
 * NULL where no GPU path matters: host heaps, other nodes, or GPU heaps of
 * one node under SHOAL_P2P_LEVEL=SYS (no path within a node is worse).
 * SHOAL_ERR_UNSUPPORTED (with shoal_topo_last_error) when none is left. */
__attribute__((visibility("hidden"))) int shoal__topo_candidates(shoal_topo_t topo, const shoal_topo_policy_t *policy,
                                                                 const shoal_topo_place_t *a,
                                                                 const shoal_topo_place_t *b,
                                                                 shoal_transport_id_t tps[SHOAL_TRANSPORT_COUNT],
                                                                 int *n_p, char *why, size_t why_len);

#endif /* SHOAL_TOPO_POLICY_H */
