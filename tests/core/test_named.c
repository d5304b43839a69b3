/*
 * Named instances: shoal_config_init_named(cfg, "plugin") reads
 * SHOAL_PLUGIN_<VARIABLE> where set, instead of SHOAL_<VARIABLE>, so that
 * two instances of one process are tuned apart. Run with SHOAL_HEAP_SIZE=1m,
 * SHOAL_PLUGIN_HEAP_SIZE=3m, SHOAL_PLUGIN_TIMEOUT=7 and
 * SHOAL_PLUGIN_TRANSPORT_DISABLE=shm (tests/TESTS):
 *
 * - the named config has the named values, the plain one the global ones,
 *   and both instances work side by side (data crosses PEs on each); the
 *   named one reaches its node peers over mpi_rma (shm disabled for it
 *   alone), the plain one over shm;
 * - an invalid named value names its own variable, and shoal_init refuses
 *   it; an invalid name is refused (from shoal_config_init_named, and when
 *   set by hand in the config).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

int main(int argc, char **argv)
{
    shoal_config_t named, plain;
    shoal_t a = NULL, b = NULL;
    size_t used, free_b;
    int me, npes;
    const char *tp;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    CHECK_MSG(getenv("SHOAL_PLUGIN_HEAP_SIZE") && getenv("SHOAL_HEAP_SIZE"),
              "run with SHOAL_HEAP_SIZE=1m SHOAL_PLUGIN_HEAP_SIZE=3m SHOAL_PLUGIN_TIMEOUT=7 "
              "SHOAL_PLUGIN_TRANSPORT_DISABLE=shm");

    shoal_config_init_named(&named, "plugin");
    shoal_config_init(&plain);
    CHECK_EQ_STR(named.env_error, "");
    CHECK_EQ_STR(named.name, "PLUGIN");
    CHECK_EQ_SIZE(named.heap_size, (size_t)3 << 20);
    CHECK(named.timeout == 7);
    CHECK_EQ_STR(plain.name, "");
    CHECK_EQ_SIZE(plain.heap_size, (size_t)1 << 20);
    CHECK(plain.timeout != 7);

    named.heap_kind = plain.heap_kind = SHOAL_HEAP_HOST;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &named, &a), NULL);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &plain, &b), NULL);
    /* Each heap has its own size: free bytes of a fresh heap. */
    CHECK_OK(shoal_heap_usage(a, &used, &free_b), a);
    CHECK_MSG(used + free_b >= (size_t)3 << 20, "named heap of %zu bytes", used + free_b);
    CHECK_OK(shoal_heap_usage(b, &used, &free_b), b);
    CHECK_MSG(used + free_b < (size_t)2 << 20, "plain heap of %zu bytes", used + free_b);
    if (npes > 1) {
        int peer = (me + 1) % npes;
        CHECK_OK(shoal_pe_transport(a, peer, &tp), a);
        CHECK_EQ_STR(tp, "mpi_rma"); /* SHOAL_PLUGIN_TRANSPORT_DISABLE=shm, for it alone */
        CHECK_OK(shoal_pe_transport(b, peer, &tp), b);
        CHECK_EQ_STR(tp, "shm");
    }
    test_ring_works(a, 1000);
    test_ring_works(b, 2000);
    CHECK_OK(shoal_finalize(b), NULL);
    CHECK_OK(shoal_finalize(a), NULL);

    /* An invalid value of the named variable names it; init refuses it. */
    setenv("SHOAL_PLUGIN_HEAP_SIZE", "abc", 1);
    shoal_config_init_named(&named, "Plugin");
    CHECK_CONTAINS(named.env_error, "SHOAL_PLUGIN_HEAP_SIZE=abc is invalid");
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &named, &a), SHOAL_ERR_ENV, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "SHOAL_PLUGIN_HEAP_SIZE=abc is invalid");
    CHECK(a == NULL);
    setenv("SHOAL_PLUGIN_HEAP_SIZE", "3m", 1);

    /* Invalid names. */
    setenv("SHOAL_MY_HEAP_SIZE", "5m", 1); /* what the valid start of the name would read */
    shoal_config_init_named(&named, "my plugin");
    CHECK_CONTAINS(named.env_error, "the instance name 'my plugin' is invalid");
    CHECK_EQ_SIZE(named.heap_size, (size_t)1 << 20); /* no variable of an invalid name is read */
    CHECK_EQ_STR(named.name, "");
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &named, &a), SHOAL_ERR_ENV, NULL);
    shoal_config_init(&plain);
    snprintf(plain.name, sizeof(plain.name), "a-b");
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &plain, &a), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "config name is invalid");

    if (me == 0) check_note("named instances: SHOAL_PLUGIN_* tuned the named instance apart");
    MPI_Finalize();
    return 0;
}
