/* Put, get and quiet on the host (runtime/ops/rma.c): the checks every
 * transfer passes, and the dispatch to each PE's transport. */
#ifndef SHOAL_RMA_H
#define SHOAL_RMA_H

#include "base/shoal_instance.h"

SHOAL__HIDDEN int shoal__rma(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe,
                             int nbi);
/* The checks every put and get passes, on the host or on a stream (n > 0):
 * pe in range, a local buffer, the remote range inside the heap and (with
 * SHOAL_CHECK basic or full) inside one live allocation, local and remote
 * bytes apart. *off_p: the remote heap offset. */
SHOAL__HIDDEN int shoal__rma_check(shoal_t sh, const char *call, bool is_put, const void *dest, const void *src,
                                   size_t n, int pe, size_t *off_p);
/* Blocking 2-D put or get: height rows of width bytes, row i at
 * dest + i * dpitch and src + i * spitch (pitches in bytes, at least width;
 * the remote side is the symmetric one). The checks of shoal__rma_check on
 * the remote span (first byte to the last row's end), and no local row
 * sharing bytes with a remote one. Goes to the pair's transport as one
 * put_2d/get_2d where it has them, else as a put or get a row. */
SHOAL__HIDDEN int shoal__rma_2d(shoal_t sh, const char *call, bool is_put, void *dest, size_t dpitch, const void *src,
                                size_t spitch, size_t width, size_t height, int pe);
/* Blocking strided put or get (OpenSHMEM iput/iget): nelems elements of
 * elem bytes, dst and sst elements apart (each at least 1, else
 * SHOAL_ERR_INVALID_ARG); the 2-D transfer of nelems rows of one element. */
SHOAL__HIDDEN int shoal__rma_strided(shoal_t sh, const char *call, bool is_put, void *dest, const void *src,
                                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem, int pe);
/* pe in range and [remote, remote + n) a remote range as for a put (in the
 * heap; with SHOAL_CHECK basic or full, in one live allocation); what names
 * it in messages ("destination"). *off_p: its heap offset. */
SHOAL__HIDDEN int shoal__rma_target(shoal_t sh, const char *call, const char *what, const void *remote, size_t n,
                                    int pe, size_t *off_p);
/* After issuing through transport bit (1u << id): a quiet flushes it. */
SHOAL__HIDDEN void shoal__rma_used(shoal_t sh, unsigned bit);
SHOAL__HIDDEN int shoal__quiet(shoal_t sh, const char *call);
/* The same, for the transports whose bits (1u << id) are in mask only. */
SHOAL__HIDDEN int shoal__quiet_mask(shoal_t sh, const char *call, unsigned mask);

#endif /* SHOAL_RMA_H */
