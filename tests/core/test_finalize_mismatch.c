/*
 * shoal_finalize on some PEs while the others make another collective call:
 * everybody gets SHOAL_ERR_NOT_SYMMETRIC naming both calls, and once the
 * others call shoal_finalize too the instance is finalized cleanly on every
 * PE (no timeout, no hang in MPI_Finalize). Both orders: PE 0 finalizes
 * while the others barrier, then PE 0 allocates while the others finalize.
 * A third instance then works, and MPI_Finalize returns.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

static int me, npes;

static shoal_t fresh(void)
{
    shoal_config_t cfg;
    shoal_t sh;
    test_config(&cfg, 1 << 20);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    return sh;
}

/* The PEs that did not finalize first: their call failed; now they finalize. */
static void late_finalize(shoal_t sh)
{
    CHECK_OK(shoal_finalize(sh), NULL);
    CHECK_STATUS(shoal_quiet(sh), SHOAL_ERR_INVALID_INSTANCE, NULL);
}

int main(int argc, char **argv)
{
    shoal_t sh;
    double t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    CHECK_MSG(npes >= 2, "needs 2 PEs or more");

    /* PE 0 finalizes, the others are in a barrier. */
    sh = fresh();
    t0 = MPI_Wtime();
    if (me == 0) {
        CHECK_STATUS(shoal_finalize(sh), SHOAL_ERR_NOT_SYMMETRIC, NULL);
        CHECK_CONTAINS(shoal_last_error(NULL), "shoal_finalize");
        CHECK_CONTAINS(shoal_last_error(NULL), "shoal_barrier_all");
        CHECK_CONTAINS(shoal_last_error(NULL), "completed once every PE called it");
        CHECK_STATUS(shoal_quiet(sh), SHOAL_ERR_INVALID_INSTANCE, NULL);
    } else {
        CHECK_STATUS(shoal_barrier_all(sh), SHOAL_ERR_NOT_SYMMETRIC, sh);
        CHECK_CONTAINS(shoal_last_error(sh), "PE 0: shoal_finalize");
        late_finalize(sh);
    }
    CHECK_MSG(MPI_Wtime() - t0 < 5, "finalize after a mismatch took %.1f s", MPI_Wtime() - t0);

    /* PE 0 allocates, the others finalize. */
    sh = fresh();
    t0 = MPI_Wtime();
    if (me == 0) {
        CHECK_EQ_PTR(shoal_malloc(sh, 64), NULL);
        CHECK_CONTAINS(shoal_last_error(sh), "shoal_malloc(64 bytes)");
        CHECK_CONTAINS(shoal_last_error(sh), "shoal_finalize");
        late_finalize(sh);
    } else {
        CHECK_STATUS(shoal_finalize(sh), SHOAL_ERR_NOT_SYMMETRIC, NULL);
        CHECK_CONTAINS(shoal_last_error(NULL), "completed once every PE called it");
    }
    CHECK_MSG(MPI_Wtime() - t0 < 5, "finalize after a mismatch took %.1f s", MPI_Wtime() - t0);

    /* Both were freed collectively: a new instance works, MPI_Finalize returns. */
    sh = fresh();
    test_ring_works(sh, 7);
    CHECK_OK(shoal_finalize(sh), NULL);
    if (me == 0) check_note("finalize mismatches resolved on %d PEs", npes);
    MPI_Finalize();
    return 0;
}
