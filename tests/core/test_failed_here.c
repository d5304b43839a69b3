/*
 * A collective whose part fails on one PE before the PEs meet. SHOAL_FAULT
 * (quiet:PE:N, set by the test list) makes PE's first N quiets fail; the
 * collectives that quiet first must still meet the others:
 *   - shoal_barrier_all: the faulty PE returns its own error
 *     (SHOAL_ERR_INTERNAL, "injected"), every other PE SHOAL_ERR_NOT_SYMMETRIC
 *     naming it, at once (well within SHOAL_TIMEOUT);
 *   - shoal_free: the same, and the block stays allocated on every PE (the
 *     heaps stay in step: a later free of it works everywhere);
 *   - shoal_finalize: everything is freed, the faulty PE gets the quiet's
 *     error, the others success.
 * Then a malformed SHOAL_FAULT is refused like any bad variable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

static int me, npes, bad_pe;

/* Every PE: status want_bad on the faulty PE, want_other on the others,
 * and a message with the needles. */
static void check_outcome(shoal_t sh, int rc, int want_bad, int want_other, const char *what, double took,
                          double timeout)
{
    const char *m = shoal_last_error(sh);
    char bad_call[64];

    if (me == bad_pe) {
        CHECK_MSG(rc == want_bad, "%s: faulty PE got %d (%s)", what, rc, m);
        CHECK_CONTAINS(m, "injected by SHOAL_FAULT");
    } else {
        CHECK_MSG(rc == want_other, "%s: PE %d got %d (%s)", what, me, rc, m);
        if (want_other != SHOAL_SUCCESS) {
            CHECK_CONTAINS(m, "the call failed on some PE before the PEs met");
            snprintf(bad_call, sizeof(bad_call), "PE %d: %s", bad_pe, what);
            CHECK_CONTAINS(m, bad_call);
            CHECK_CONTAINS(m, "which failed there before the PEs met");
        }
    }
    /* Nobody waited for the timeout. */
    CHECK_MSG(took < timeout / 3, "%s took %.1f s (timeout %.0f s)", what, took, timeout);
    if (me == 0) check_note("%s: %s", what, m);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    size_t used0, used, freeb;
    const char *fault = getenv("SHOAL_FAULT");
    double t0;
    int rc;

    MPI_Init(&argc, &argv);
    CHECK_MSG(fault != NULL && sscanf(fault, "quiet:%d", &bad_pe) == 1, "run with SHOAL_FAULT=quiet:PE:2");
    test_config(&cfg, 1 << 20);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    CHECK_MSG(bad_pe > 0 && bad_pe < npes, "SHOAL_FAULT names PE %d of %d", bad_pe, npes);
    CHECK(cfg.timeout >= 15);

    long *x = shoal_calloc(sh, 4, sizeof(long));
    CHECK_NONNULL(x, sh);
    CHECK_OK(shoal_heap_usage(sh, &used0, &freeb), sh);

    /* 1. barrier: the faulty PE's quiet fails (fault 1 of 2) */
    t0 = MPI_Wtime();
    rc = shoal_barrier_all(sh);
    check_outcome(sh, rc, SHOAL_ERR_INTERNAL, SHOAL_ERR_NOT_SYMMETRIC, "shoal_barrier_all", MPI_Wtime() - t0,
                  cfg.timeout);

    /* 2. free: fault 2 of 2; nobody frees the block */
    t0 = MPI_Wtime();
    rc = shoal_free(sh, x);
    check_outcome(sh, rc, SHOAL_ERR_INTERNAL, SHOAL_ERR_NOT_SYMMETRIC, "shoal_free", MPI_Wtime() - t0, cfg.timeout);
    CHECK_OK(shoal_heap_usage(sh, &used, &freeb), sh);
    CHECK_EQ_SIZE(used, used0);

    /* The PEs are in step: the block is still everyone's, and goes now. */
    CHECK_OK(shoal_long_p(sh, &x[me % 4], 100 + me, (me + 1) % npes), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_ring_works(sh, 70);
    CHECK_OK(shoal_free(sh, x), sh);
    CHECK_OK(shoal_heap_usage(sh, &used, &freeb), sh);
    CHECK_EQ_SIZE(used, 0);
    CHECK_OK(shoal_finalize(sh), NULL);

    /* 3. finalize with a failing quiet: everything is freed all the same. */
    {
        char v[32];
        snprintf(v, sizeof(v), "quiet:%d", bad_pe);
        setenv("SHOAL_FAULT", v, 1);
    }
    test_config(&cfg, 1 << 20);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    t0 = MPI_Wtime();
    rc = shoal_finalize(sh);
    check_outcome(NULL, rc, SHOAL_ERR_INTERNAL, SHOAL_SUCCESS, "shoal_finalize", MPI_Wtime() - t0, cfg.timeout);
    if (me == bad_pe) CHECK_CONTAINS(shoal_last_error(NULL), "everything was freed");

    /* 4. a malformed value is refused, naming the variable */
    setenv("SHOAL_FAULT", "quiet:x", 1);
    shoal_config_init(&cfg);
    CHECK_CONTAINS(cfg.env_error, "SHOAL_FAULT");
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_ENV, NULL);
    unsetenv("SHOAL_FAULT");

    if (me == 0) check_note("collectives failing on PE %d before the meeting passed on %d PEs", bad_pe, npes);
    MPI_Finalize();
    return 0;
}
