/*
 * Collectives that not every PE reaches (run with SHOAL_TIMEOUT=2), each on
 * its own instance:
 *
 * 1. A barrier in a branch the last PE does not take, while it is in no
 *    collective: every other PE gets SHOAL_ERR_TIMEOUT naming that PE and
 *    saying it is in no collective. The missing PE then arrives late and
 *    fails too (the others gave up: the message says so) instead of passing
 *    a barrier nobody else is in. shoal_finalize then works on every PE
 *    (local cleanup), and the handle is a tombstone.
 * 2. The upper half in shoal_sync_all, the lower half in shoal_barrier_all:
 *    every PE gets SHOAL_ERR_NOT_SYMMETRIC naming both calls, and the
 *    instance still works.
 * 3. (3 PEs or more) PE 0 in shoal_barrier_all, PE 1 in shoal_sync_all, the
 *    last PE in none: a timeout on every PE that is in a collective, naming
 *    the last PE; where the message comes from PE 1's node, PE 1's call too.
 *
 * 4. (several nodes) Every PE of the last node late: the others time out;
 *    the late node then fails its barrier too, though its leader completes
 *    the agreement the others abandoned (they left it a note), and every
 *    PE finalizes cleanly. Then the same with the late node skipping the
 *    barrier for shoal_finalize: it fails ("other PEs gave up"), and
 *    finalize still frees everything (MPI_Finalize returns).
 *
 * On simulated nodes (SHOAL_NODE_SIZE) the PEs of a node whose PEs all
 * arrived read the other nodes' control blocks, so they name the PE too.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

static int me, npes;

static shoal_t make_instance(void)
{
    shoal_config_t cfg;
    shoal_t sh;
    test_config(&cfg, 1u << 20);
    CHECK_MSG(cfg.timeout > 0 && cfg.timeout <= 10, "run with SHOAL_TIMEOUT=2 (timeout is %g)", cfg.timeout);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    return sh;
}

static void check_finalized(shoal_t sh)
{
    CHECK_OK(shoal_finalize(sh), sh);
    CHECK_STATUS(shoal_barrier_all(sh), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "instance was finalized");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_barrier_all");
}

static void test_branch(void)
{
    shoal_t sh = make_instance();
    int absent = npes - 1, status;
    char who[32];
    double t0;

    snprintf(who, sizeof(who), "PE %d (", absent);
    /* shoal_calloc meets twice (before and after zeroing): one call. */
    CHECK_NONNULL(shoal_calloc(sh, 8, 8), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    if (me != absent) {
        t0 = MPI_Wtime();
        status = shoal_barrier_all(sh);
        CHECK_STATUS(status, SHOAL_ERR_TIMEOUT, sh);
        CHECK_MSG(MPI_Wtime() - t0 < 8, "timeout took %.1f s", MPI_Wtime() - t0);
        check_note("branch: %s", shoal_last_error(sh));
        CHECK_CONTAINS(shoal_last_error(sh), "shoal_barrier_all");
        CHECK_CONTAINS(shoal_last_error(sh), "timed out after 2 s");
        CHECK_CONTAINS(shoal_last_error(sh), "never arrived");
        CHECK_CONTAINS(shoal_last_error(sh), who);
        CHECK_CONTAINS(shoal_last_error(sh), "not in a collective of this instance");
        /* Each PE's collective calls are numbered since init: the absent
         * PE's last was its 2nd (calloc, then the barrier), this one is in
         * its 3rd. */
        CHECK_CONTAINS(shoal_last_error(sh), "the last it entered was its 2nd, shoal_barrier_all, while this PE is in "
                                             "its 3rd");
        /* broken: the next collective fails at once */
        CHECK_STATUS(shoal_sync_all(sh), SHOAL_ERR_TIMEOUT, sh);
        CHECK_CONTAINS(shoal_last_error(sh), "only shoal_finalize");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the absent PE comes late */
    if (me == absent && npes > 1) {
        CHECK_STATUS(shoal_barrier_all(sh), SHOAL_ERR_TIMEOUT, sh);
        check_note("late: %s", shoal_last_error(sh));
        CHECK_CONTAINS(shoal_last_error(sh), "cannot complete shoal_barrier_all: other PEs gave up");
        CHECK_CONTAINS(shoal_last_error(sh), "gave up waiting");
    }
    check_finalized(sh);
}

static void test_other_collective(void)
{
    shoal_t sh = make_instance();
    int upper = me >= (npes + 1) / 2;
    const char *err;
    int *x;

    CHECK_STATUS(upper ? shoal_sync_all(sh) : shoal_barrier_all(sh), SHOAL_ERR_NOT_SYMMETRIC, sh);
    err = shoal_last_error(sh);
    if (me == 0) check_note("other collective: %s", err);
    CHECK_CONTAINS(err, "PE 0: shoal_barrier_all");
    CHECK_CONTAINS(err, "shoal_sync_all");
    CHECK_CONTAINS(err, upper ? "shoal_sync_all: PEs disagree" : "shoal_barrier_all: PEs disagree");
    /* nothing is broken */
    x = shoal_malloc(sh, 64);
    CHECK_NONNULL(x, sh);
    CHECK_OK(shoal_int_p(sh, x, me, (me + 1) % npes), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, x), sh);
    check_finalized(sh);
}

static void test_mixed(void)
{
    shoal_t sh = make_instance();
    int absent = npes - 1;
    char who[32];

    snprintf(who, sizeof(who), "PE %d (", absent);
    if (me == 0 || me == 1) {
        CHECK_STATUS(me == 0 ? shoal_barrier_all(sh) : shoal_sync_all(sh), SHOAL_ERR_TIMEOUT, sh);
        check_note("mixed: %s", shoal_last_error(sh));
        CHECK_CONTAINS(shoal_last_error(sh), who);
        if (me == 0 && shoal_pe_node(sh, 1) == 0) {
            CHECK_CONTAINS(shoal_last_error(sh), "PEs in another collective: PE 1 (");
            CHECK_CONTAINS(shoal_last_error(sh), "in its 1st collective, shoal_sync_all, while this PE is in its "
                                                 "1st, shoal_barrier_all)");
        }
    } else if (me != absent) {
        CHECK_STATUS(shoal_barrier_all(sh), SHOAL_ERR_TIMEOUT, sh);
        CHECK_CONTAINS(shoal_last_error(sh), who);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == absent) {
        /* Its instance is not broken: finalize tries to meet the others, who
         * gave up; it says so, and cleans up anyway. */
        CHECK_STATUS(shoal_finalize(sh), SHOAL_ERR_TIMEOUT, sh);
        CHECK_CONTAINS(shoal_last_error(sh), "shoal_finalize");
        CHECK_CONTAINS(shoal_last_error(sh), "other PEs gave up");
        CHECK_CONTAINS(shoal_last_error(sh), "every PE then came to shoal_finalize: everything was freed");
        CHECK_STATUS(shoal_finalize(sh), SHOAL_ERR_INVALID_INSTANCE, NULL);
        CHECK_CONTAINS(shoal_last_error(sh), "instance was finalized");
        return;
    }
    check_finalized(sh);
}

static void test_late_node(int skip_to_finalize)
{
    shoal_t sh = make_instance();
    int last = shoal_pe_node(sh, npes - 1), late = shoal_pe_node(sh, me) == last;
    double t0;

    if (last < 1) { /* one node */
        check_finalized(sh);
        return;
    }
    if (!late) {
        CHECK_STATUS(shoal_barrier_all(sh), SHOAL_ERR_TIMEOUT, sh);
        CHECK_CONTAINS(shoal_last_error(sh), "timed out after 2 s");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the last node comes late */
    if (late && !skip_to_finalize) {
        t0 = MPI_Wtime();
        CHECK_STATUS(shoal_barrier_all(sh), SHOAL_ERR_TIMEOUT, sh);
        if (me == npes - 1) check_note("late node: %s", shoal_last_error(sh));
        CHECK_CONTAINS(shoal_last_error(sh), "cannot complete shoal_barrier_all: other PEs gave up");
        CHECK_CONTAINS(shoal_last_error(sh), "gave up waiting");
        CHECK_MSG(MPI_Wtime() - t0 < 1.9, "the late node took %.1f s to fail", MPI_Wtime() - t0);
    }
    if (late && skip_to_finalize) {
        CHECK_STATUS(shoal_finalize(sh), SHOAL_ERR_TIMEOUT, sh);
        CHECK_CONTAINS(shoal_last_error(sh), "cannot complete shoal_finalize: other PEs gave up");
        CHECK_CONTAINS(shoal_last_error(sh), "every PE then came to shoal_finalize: everything was freed");
        CHECK_STATUS(shoal_quiet(sh), SHOAL_ERR_INVALID_INSTANCE, NULL);
        return;
    }
    check_finalized(sh);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);

    test_branch();
    if (npes > 1) test_other_collective();
    if (npes > 2) test_mixed();
    test_late_node(0);
    test_late_node(1);
    if (me == 0) check_note("timeouts and mismatches passed on %d PEs", npes);
    MPI_Finalize();
    return 0;
}
