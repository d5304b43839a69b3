/*
 * How PEs wait for a late peer (SHOAL_WAIT). In each round one PE sleeps
 * 300 ms before it enters shoal_barrier_all, after a put into its right
 * neighbour; every PE checks after the barrier the value its left neighbour
 * put, so data crosses PEs through every barrier. The put is completed
 * (shoal_quiet) before the timed wait: only the barrier's wait is timed.
 *
 * Usage: test_wait sleep|spin
 *   sleep: run with SHOAL_WAIT=sleep. The PEs that wait must leave their
 *          CPU alone: the process CPU time they use during the wait is
 *          checked to be under half the wall time (a spinning or yielding
 *          wait uses all of it).
 *   spin:  run with SHOAL_WAIT=spin; the CPU share is reported only (it
 *          depends on what else the machine runs).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define ROUNDS 3
#define LATE_NS 300000000L

static double cpu_now(void)
{
    struct timespec ts;
    CHECK_MSG(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0, "clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    const struct timespec late = {LATE_NS / 1000000000L, LATE_NS % 1000000000L};
    shoal_config_t cfg;
    shoal_t sh;
    long *box;
    int me, npes, sleep_mode;
    double worst = 0;

    MPI_Init(&argc, &argv);
    CHECK_MSG(argc == 2 && (strcmp(argv[1], "sleep") == 0 || strcmp(argv[1], "spin") == 0),
              "usage: test_wait sleep|spin");
    sleep_mode = strcmp(argv[1], "sleep") == 0;
    shoal_config_init(&cfg);
    CHECK_MSG(cfg.env_error[0] == '\0', "%s", cfg.env_error);
    CHECK_EQ_INT(cfg.wait, sleep_mode ? SHOAL_WAIT_SLEEP : SHOAL_WAIT_SPIN);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    cfg.heap_size = 1 << 20;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    box = shoal_calloc(sh, 1, sizeof(long));
    CHECK_NONNULL(box, sh);

    for (int round = 0; round < ROUNDS; round++) {
        int late_pe = round % npes, left = (me + npes - 1) % npes;
        long value = 1000L * round + me, got = -1;
        double w0, c0, wall, cpu;

        CHECK_OK(shoal_long_p(sh, box, value, (me + 1) % npes), sh);
        /* Before the timed wait: between simulated nodes a flush spins in
         * MPI until its target (maybe the late PE) makes progress. */
        CHECK_OK(shoal_quiet(sh), sh);
        if (me == late_pe) nanosleep(&late, NULL);
        w0 = MPI_Wtime();
        c0 = cpu_now();
        CHECK_OK(shoal_barrier_all(sh), sh);
        wall = MPI_Wtime() - w0;
        cpu = cpu_now() - c0;
        CHECK_OK(shoal_long_g(sh, &got, box, me), sh);
        CHECK_MSG(got == 1000L * round + left, "round %d: PE %d holds %ld, expected %ld from PE %d", round, me, got,
                  1000L * round + left, left);
        /* Nobody may put again before everybody read. */
        CHECK_OK(shoal_barrier_all(sh), sh);
        if (me != late_pe && wall > 0.1 && cpu / wall > worst) worst = cpu / wall;
    }
    if (sleep_mode)
        CHECK_MSG(worst < 0.5, "PE %d used %.0f%% of a CPU waiting in shoal_barrier_all with SHOAL_WAIT=sleep", me,
                  100 * worst);
    if (me == 0)
        check_note("SHOAL_WAIT=%s: a waiting PE used at most %.1f%% of a CPU (PE 0's figure)", argv[1], 100 * worst);
    CHECK_OK(shoal_free(sh, box), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
