/* Put, get and quiet on the host (runtime/rma.c): the checks every
 * transfer passes, and the dispatch to each PE's transport. */
#ifndef SHOAL_RMA_H
#define SHOAL_RMA_H

#include "shoal_instance.h"

SHOAL__HIDDEN int shoal__rma(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe,
                             int nbi);
/* The checks every put and get passes, on the host or on a stream (n > 0):
 * pe in range, a local buffer, the remote range inside the heap and (with
 * SHOAL_CHECK basic or full) inside one live allocation, local and remote
 * bytes apart. *off_p: the remote heap offset. */
SHOAL__HIDDEN int shoal__rma_check(shoal_t sh, const char *call, bool is_put, const void *dest, const void *src,
                                   size_t n, int pe, size_t *off_p);
SHOAL__HIDDEN int shoal__quiet(shoal_t sh, const char *call);
/* The same, for the transports whose bits (1u << id) are in mask only. */
SHOAL__HIDDEN int shoal__quiet_mask(shoal_t sh, const char *call, unsigned mask);

#endif /* SHOAL_RMA_H */
