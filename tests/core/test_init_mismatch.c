/*
 * shoal_init with a mistake on one PE only: every PE fails alike and at
 * once, instead of the others waiting for ever in a collective the faulty
 * PE never enters. The faulty PE (the last) gets its own message; the others
 * get one naming it. Also the limits every PE hits together: a heap over
 * 256 TiB, and host heaps larger than the node's /dev/shm. After all of it
 * a good init works and data moves.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <sys/statvfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

/* What sh holds before shoal_init: a failed init must overwrite it with NULL. */
#define UNTOUCHED ((shoal_t)(uintptr_t)0x5ea1)

static int me, npes, bad;

/* A small host heap (the limits below are about host memory). */
static void host_config(shoal_config_t *cfg)
{
    test_config(cfg, 1 << 20);
    cfg->heap_kind = SHOAL_HEAP_HOST;
}

/* shoal_init with cfg (sh_p NULL when null_out) must fail with status on
 * every PE: the faulty PE's message holds mine, the others' name it. */
static void expect_all_fail(const shoal_config_t *cfg, int null_out, int status, const char *mine)
{
    shoal_t sh = UNTOUCHED;
    char who[64];

    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, cfg, null_out ? NULL : &sh), status, NULL);
    CHECK_EQ_PTR(sh, null_out ? UNTOUCHED : NULL); /* a failed init leaves NULL where it may write */
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_init");
    if (me == bad) {
        CHECK_CONTAINS(shoal_last_error(NULL), mine);
    } else {
        snprintf(who, sizeof(who), "PE %d failed to initialize", bad);
        CHECK_CONTAINS(shoal_last_error(NULL), who);
    }
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh = UNTOUCHED;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    bad = npes - 1;

    /* One PE's config field is invalid. */
    host_config(&cfg);
    if (me == bad) cfg.heap_size = 0;
    expect_all_fail(&cfg, 0, SHOAL_ERR_INVALID_ARG, "config heap_size is 0");
    host_config(&cfg);
    if (me == bad) cfg.wait = -4;
    expect_all_fail(&cfg, 0, SHOAL_ERR_INVALID_ARG, "config wait -4");

    /* One PE passes no place for the handle. */
    host_config(&cfg);
    expect_all_fail(&cfg, me == bad, SHOAL_ERR_INVALID_ARG, "sh_p is NULL");

    /* One PE's environment is invalid (as shoal_config_init found it). */
    setenv("SHOAL_TIMEOUT", me == bad ? "soon" : "30", 1);
    shoal_config_init(&cfg);
    unsetenv("SHOAL_TIMEOUT");
    cfg.heap_size = 1 << 20;
    cfg.heap_kind = SHOAL_HEAP_HOST;
    expect_all_fail(&cfg, 0, SHOAL_ERR_ENV, "SHOAL_TIMEOUT");

    /* A heap kind asked differently: the GPU probe runs on some PEs only,
     * yet every PE takes the same collective steps. Without a GPU, auto is
     * the host and init succeeds; with one, the kinds differ: all fail. */
    {
        int status, lo = 0, hi = 0;
        host_config(&cfg);
        cfg.heap_kind = me == bad ? SHOAL_HEAP_HOST : SHOAL_HEAP_AUTO;
        status = shoal_init(MPI_COMM_WORLD, &cfg, &sh);
        MPI_Allreduce(&status, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&status, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        CHECK_MSG(lo == hi, "heap kinds asked differently: statuses %d to %d across PEs", lo, hi);
        if (status == SHOAL_SUCCESS) {
            CHECK_EQ_INT(shoal_heap_kind(sh), SHOAL_HEAP_HOST);
            CHECK_OK(shoal_finalize(sh), NULL);
        }
        sh = UNTOUCHED;
    }

    /* Node sizes that differ would split the communicator inconsistently. */
    if (npes > 1) {
        host_config(&cfg);
        cfg.node_size = me == bad ? 1 : 0;
        CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_NOT_SYMMETRIC, NULL);
        CHECK_EQ_PTR(sh, NULL); /* a failed init leaves NULL */
        CHECK_CONTAINS(shoal_last_error(NULL), "SHOAL_NODE_SIZE (config node_size) differs between PEs");
        CHECK_CONTAINS(shoal_last_error(NULL), "PE 0 has 0");
    }

    /* Limits on every PE. */
    host_config(&cfg);
    cfg.heap_size = SIZE_MAX;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "over the limit of");
    setenv("SHOAL_HEAP_SIZE", "17592186044415m", 1); /* wraps size_t + alignment */
    shoal_config_init(&cfg);
    unsetenv("SHOAL_HEAP_SIZE");
    CHECK_CONTAINS(cfg.env_error, "SHOAL_HEAP_SIZE");
    CHECK_CONTAINS(cfg.env_error, "at most 256t");
    if (npes > 1) {
        /* 2 x 128 TiB of host heap: more addresses than a process has. */
        host_config(&cfg);
        cfg.heap_size = (size_t)1 << 47;
        CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_NO_MEMORY, NULL);
        CHECK_EQ_PTR(sh, NULL); /* a failed init leaves NULL */
        CHECK_CONTAINS(shoal_last_error(NULL), "cannot map");
        /* The program set the size: the message names its field. */
        CHECK_CONTAINS(shoal_last_error(NULL), "lower the heap_size field of shoal_config_t");
    }
    if (npes == 4 && getenv("SHOAL_NODE_SIZE") && atoi(getenv("SHOAL_NODE_SIZE")) == 2) {
        /* Simulated nodes of one host share its /dev/shm: a third of it per
         * PE fits a node of 2, not the host's 4. The limit costs nothing at
         * init; a block that large is refused on every PE. */
        struct statvfs st;
        unsigned long long avail = 0;
        if (me == 0 && statvfs("/dev/shm", &st) == 0) avail = (unsigned long long)st.f_bavail * st.f_frsize;
        MPI_Bcast(&avail, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
        if (avail > (3ull << 20)) {
            host_config(&cfg);
            cfg.heap_size = (size_t)(avail / 3);
            CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
            CHECK_EQ_PTR(shoal_malloc(sh, cfg.heap_size - 4096), NULL);
            CHECK_EQ_INT(shoal_last_status(sh), SHOAL_ERR_HEAP_EXHAUSTED);
            CHECK_CONTAINS(shoal_last_error(sh), "the host heaps of the 4 PEs on this host would need");
            CHECK_OK(shoal_finalize(sh), NULL);
        }
    }

    /* Nothing was left behind: a good init works. */
    host_config(&cfg);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    test_ring_works(sh, 100);
    CHECK_OK(shoal_finalize(sh), NULL);
    if (me == 0) check_note("init mistakes on PE %d failed on all %d PEs alike", bad, npes);
    MPI_Finalize();
    return 0;
}
