/*
 * What the heap's MPI window (transport/mpi_rma.c) and registered ranges'
 * windows (heap/register_rma.c) do alike (runtime/base/mpi_win.c): an
 * atomic on a window, and the MPI types of a rectangle.
 */
#ifndef SHOAL_MPI_WIN_H
#define SHOAL_MPI_WIN_H

#include <mpi.h>

#include "base/shoal_amo_op.h"
#include "base/shoal_base.h"

/* Atomic a on PE pe's word at disp of win, in win's lock_all epoch,
 * completed here: MPI_Compare_and_swap, MPI_Fetch_and_op where result is
 * wanted (then MPI_Win_flush: the old value is in result), else
 * MPI_Accumulate (then MPI_Win_flush_local). self_word: that word in this
 * process where pe is this PE (else NULL), for the MPI that cannot make a
 * compare-and-swap there (SHOAL__MPI_SELF_CAS64: the CPU's then, between
 * two MPI_Win_sync). An MPI error code; *what_p names the failed call. */
SHOAL__HIDDEN int shoal__mpi_amo(MPI_Win win, int pe, MPI_Aint disp, void *self_word, const shoal__amo_t *a,
                                 void *result, const char **what_p);

/* The MPI types of a rectangle: height rows of width bytes, rpitch apart
 * at the target (*rtype) and lpitch apart here (*ltype, or
 * MPI_DATATYPE_NULL where the local rows are contiguous: then *lcount
 * elements of *ltype_or_word). 8-byte words where every size, pitch and
 * address in align_bits allows (MPICH moves those about twice as fast as
 * bytes), else bytes. width and height at most INT_MAX. The committed
 * types are the caller's to free (MPI_DATATYPE_NULL ones excepted), also
 * after an error. An MPI error code. */
SHOAL__HIDDEN int shoal__mpi_rect_types(size_t width, size_t height, size_t rpitch, size_t lpitch, uint64_t align_bits,
                                        MPI_Datatype *rtype, MPI_Datatype *ltype, MPI_Datatype *ltype_or_word,
                                        int *lcount);

#endif /* SHOAL_MPI_WIN_H */
