/*
 * shoal_finalize after a collective in a branch: every PE's outcome tells
 * one story (run on one node with SHOAL_TIMEOUT=2).
 *
 * 1. Every PE but the last calls shoal_barrier_all; the last goes straight
 *    to shoal_finalize. The barrier fails on the others with the mismatch
 *    (SHOAL_ERR_NOT_SYMMETRIC, naming both calls); their shoal_finalize
 *    then completes, and the last PE's finalize returns the mismatch and
 *    says that shoal_finalize completed once every PE called it.
 * 2. The same, but the last PE comes to shoal_finalize after the others
 *    timed out in the barrier and gave up waiting in their finalize: they
 *    each say that PE <last> did not come to shoal_finalize within 2 s; the
 *    last says that the others gave up, and that they were in
 *    shoal_finalize but had given up waiting when it came. Every PE freed
 *    only its memory (the instance's MPI objects stay), so the PEs end with
 *    _exit(0) after their verdicts (tests/verdicts.sh) instead of waiting
 *    in MPI_Finalize for those objects.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

static int me, npes;

static shoal_t make_instance(void)
{
    shoal_config_t cfg;
    shoal_t sh;
    test_config(&cfg, 1u << 20);
    CHECK_MSG(cfg.timeout == 2, "run with SHOAL_TIMEOUT=2 (timeout is %g)", cfg.timeout);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    return sh;
}

static void test_straight_to_finalize(void)
{
    shoal_t sh = make_instance();
    int last = npes - 1;

    if (me != last) {
        CHECK_STATUS(shoal_barrier_all(sh), SHOAL_ERR_NOT_SYMMETRIC, sh);
        CHECK_CONTAINS(shoal_last_error(sh), "shoal_barrier_all");
        CHECK_CONTAINS(shoal_last_error(sh), "shoal_finalize");
        CHECK_OK(shoal_finalize(sh), sh);
    } else {
        CHECK_STATUS(shoal_finalize(sh), SHOAL_ERR_NOT_SYMMETRIC, NULL);
        CHECK_CONTAINS(shoal_last_error(NULL), "shoal_finalize then completed once every PE called it");
    }
}

static void test_late_to_finalize(void)
{
    shoal_t sh = make_instance();
    int last = npes - 1;
    char who[64];

    snprintf(who, sizeof(who), "PE %d did not come to shoal_finalize within 2 s", last);
    if (me != last) {
        CHECK_STATUS(shoal_barrier_all(sh), SHOAL_ERR_TIMEOUT, sh);
        CHECK_STATUS(shoal_finalize(sh), SHOAL_ERR_TIMEOUT, NULL);
        check_note("finalize: %s", shoal_last_error(NULL));
        CHECK_CONTAINS(shoal_last_error(NULL), "the instance was broken by an earlier failure");
        CHECK_CONTAINS(shoal_last_error(NULL), who);
        CHECK_CONTAINS(shoal_last_error(NULL), "only this PE's memory was freed");
    } else {
        /* The others' barrier (2 s, 2.5 for the leader's node peers) and
         * their finalize's agreement (2 s), with room on a busy machine. */
        struct timespec ts = {9, 0};
        nanosleep(&ts, NULL);
        CHECK_STATUS(shoal_finalize(sh), SHOAL_ERR_TIMEOUT, NULL);
        check_note("late finalize: %s", shoal_last_error(NULL));
        CHECK_CONTAINS(shoal_last_error(NULL), "cannot complete shoal_finalize: other PEs gave up on it");
        /* Each of them in its 2nd collective call: the barrier, then shoal_finalize. */
        CHECK_CONTAINS(shoal_last_error(NULL), "PE 0 (in its 2nd collective, shoal_finalize)");
        CHECK_CONTAINS(shoal_last_error(NULL),
                       "the other PEs were in shoal_finalize but had given up waiting (2 s) when this PE came");
        CHECK_CONTAINS(shoal_last_error(NULL), "only this PE's memory was freed");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    CHECK_MSG(npes >= 2, "run on 2 PEs or more");
    test_straight_to_finalize();
    test_late_to_finalize();
    /* Nobody leaves while another is still finalizing (it would find a
     * process gone, a story of its own). */
    MPI_Barrier(MPI_COMM_WORLD);
    check_verdict_pass();
    fflush(NULL);
    /* MPI_Finalize would wait for the broken instance's MPI objects. The
     * exit_group system call itself: a sanitizer's _exit interceptor would
     * first run a leak check (as tests/core/test_fault.c says). */
    syscall(SYS_exit_group, 0);
    _exit(0);
}
