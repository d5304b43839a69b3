/*
 * shoal_init's failures, each a status with a message and no side effect:
 * before MPI_Init and after MPI_Finalize (SHOAL_ERR_MPI_STATE), an invalid
 * SHOAL_HEAP_SIZE (cfg.env_error, then SHOAL_ERR_ENV), MPI_COMM_NULL, a NULL
 * output and a bad heap kind (SHOAL_ERR_INVALID_ARG). Size suffixes of
 * SHOAL_HEAP_SIZE parse, and the parsed size is the heap's size. The output
 * handle is written only on success.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

/* What a failed shoal_init must leave in its output. */
/* What sh holds before shoal_init: a failed init must overwrite it with NULL. */
#define UNTOUCHED ((shoal_t)(uintptr_t)0x5ea1)

static void check_heap_size_env(const char *value, size_t expected)
{
    shoal_config_t cfg;
    setenv("SHOAL_HEAP_SIZE", value, 1);
    shoal_config_init(&cfg);
    CHECK_MSG(cfg.env_error[0] == '\0', "SHOAL_HEAP_SIZE=%s: env_error \"%s\"", value, cfg.env_error);
    CHECK_MSG(cfg.heap_size == expected, "SHOAL_HEAP_SIZE=%s parsed as %zu, expected %zu", value, cfg.heap_size,
              expected);
}

static void check_bad_env(const char *value)
{
    shoal_config_t cfg;
    shoal_t sh = UNTOUCHED;

    setenv("SHOAL_HEAP_SIZE", value, 1);
    shoal_config_init(&cfg);
    CHECK_CONTAINS(cfg.env_error, "SHOAL_HEAP_SIZE");
    CHECK_CONTAINS(cfg.env_error, value);
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_ENV, NULL);
    CHECK_EQ_PTR(sh, NULL); /* a failed init leaves NULL */
    CHECK_CONTAINS(shoal_last_error(NULL), "SHOAL_HEAP_SIZE");
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh = UNTOUCHED;
    char *p;

    unsetenv("SHOAL_HEAP_SIZE");
    shoal_config_init(&cfg); /* needs no MPI */
    CHECK_EQ_STR(cfg.env_error, "");

    /* before MPI_Init */
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_MPI_STATE, NULL);
    CHECK_EQ_PTR(sh, NULL); /* a failed init leaves NULL */
    CHECK_EQ_INT(shoal_last_status(NULL), SHOAL_ERR_MPI_STATE);
    CHECK_CONTAINS(shoal_last_error(NULL), "MPI");
    CHECK_CONTAINS(shoal_last_error(NULL), "not initialized");

    MPI_Init(&argc, &argv);

    /* invalid environment */
    check_bad_env("abc");
    check_bad_env("12q");
    check_bad_env("64kk");

    /* sizes with and without suffixes */
    check_heap_size_env("64k", 65536);
    check_heap_size_env("4096", 4096);
    check_heap_size_env("2M", 2u << 20);

    /* invalid arguments */
    unsetenv("SHOAL_HEAP_SIZE");
    test_config(&cfg, 0);
    CHECK_STATUS(shoal_init(MPI_COMM_NULL, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_EQ_PTR(sh, NULL); /* a failed init leaves NULL */
    CHECK(shoal_last_error(NULL)[0] != '\0');
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, NULL), SHOAL_ERR_INVALID_ARG, NULL);
    cfg.heap_kind = 99;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_EQ_PTR(sh, NULL); /* a failed init leaves NULL */

    /* after the failures a good init works, and SHOAL_HEAP_SIZE=64k is the heap */
    setenv("SHOAL_HEAP_SIZE", "64k", 1);
    test_config(&cfg, 0);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    CHECK(sh != UNTOUCHED && sh != NULL);
    p = shoal_malloc(sh, 1024);
    CHECK_NONNULL(p, sh);
    CHECK_EQ_PTR(shoal_malloc(sh, 128 * 1024), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "exhausted");
    /* The heap size came from the variable: the message names it. */
    CHECK_CONTAINS(shoal_last_error(sh), "raise SHOAL_HEAP_SIZE");
    CHECK_OK(shoal_free(sh, p), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    unsetenv("SHOAL_HEAP_SIZE");

    MPI_Finalize();

    /* after MPI_Finalize */
    sh = UNTOUCHED;
    shoal_config_init(&cfg);
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_MPI_STATE, NULL);
    CHECK_EQ_PTR(sh, NULL); /* a failed init leaves NULL */
    CHECK_CONTAINS(shoal_last_error(NULL), "finalized");
    printf("init errors passed\n");
    return 0;
}
