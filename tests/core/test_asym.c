/*
 * Asymmetric collective allocation calls, each reported on every PE as
 * SHOAL_ERR_NOT_SYMMETRIC with a message naming the PEs and what each
 * called, with nothing allocated or freed anywhere, and the heap usable
 * afterwards:
 *   shoal_malloc with different sizes; shoal_calloc with different sizes;
 *   shoal_malloc on some PEs and shoal_calloc of the same size on others;
 *   shoal_align and shoal_malloc of the same size (different offsets would
 *   follow); two different alignments; shoal_free of different blocks;
 *   shoal_free of a block on some PEs and of a non-heap pointer on others;
 *   shoal_free(NULL) on one PE; shoal_calloc whose count * size overflows
 *   on one PE only, and against shoal_calloc(1, SIZE_MAX); shoal_align
 *   with an invalid alignment on one PE only.
 * Then the same mistakes made by every PE alike: freeing a pointer twice or
 * one never allocated (SHOAL_ERR_INVALID_ARG, collective, no hang). Last,
 * collectives that allocate nothing: a barrier against shoal_sync_all, and
 * against shoal_malloc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define HEAP (1u << 20)

static shoal_t sh;
static int me, npes;
static size_t used0;

/* Every PE got NULL (or the status), the message names what each called,
 * and the heap holds exactly what it held before. */
static void check_everywhere(int failed_here, const char *what, const char *need1, const char *need2)
{
    int all = 0;
    size_t used, freeb;

    MPI_Allreduce(&failed_here, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    CHECK_MSG(all, "%s: not every PE failed (here: %s; \"%s\")", what, failed_here ? "failed" : "succeeded",
              shoal_last_error(sh));
    if (me == 0) check_note("%s: %s", what, shoal_last_error(sh));
    CHECK_CONTAINS(shoal_last_error(sh), "PEs disagree on a collective call");
    CHECK_CONTAINS(shoal_last_error(sh), "PE 0: ");
    CHECK_CONTAINS(shoal_last_error(sh), need1);
    CHECK_CONTAINS(shoal_last_error(sh), need2);
    CHECK_CONTAINS(shoal_last_error(sh), "nothing was allocated or freed");
    CHECK_OK(shoal_heap_usage(sh, &used, &freeb), sh);
    CHECK_EQ_SIZE(used, used0);
}

static void check_usable(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes, got[4], vals[4] = {me, me + 1, me + 2, me + 3};
    int *x = shoal_malloc(sh, sizeof(vals));

    CHECK_NONNULL(x, sh);
    CHECK_OK(shoal_put(sh, x, vals, sizeof(vals), right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, got, x, sizeof(got));
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(got[i], left + i);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, x), sh);
}

static void test_allocs(void)
{
    int last = me == npes - 1;
    char last_pe[32];
    void *p;

    snprintf(last_pe, sizeof(last_pe), "PE %d: ", npes - 1);

    p = shoal_malloc(sh, last ? 2048 : 1024);
    check_everywhere(p == NULL, "malloc sizes", "shoal_malloc(1024 bytes)", "shoal_malloc(2048 bytes)");
    CHECK_CONTAINS(shoal_last_error(sh), last_pe);

    p = shoal_calloc(sh, last ? 3 : 2, 100);
    check_everywhere(p == NULL, "calloc sizes", "shoal_calloc(200 bytes)", "shoal_calloc(300 bytes)");

    p = last ? shoal_calloc(sh, 1, 512) : shoal_malloc(sh, 512);
    check_everywhere(p == NULL, "malloc vs calloc", "shoal_malloc(512 bytes)", "shoal_calloc(512 bytes)");

    p = last ? shoal_align(sh, 4096, 100) : shoal_malloc(sh, 100);
    check_everywhere(p == NULL, "align vs malloc", "shoal_malloc(100 bytes)", "shoal_align(4096, 100 bytes)");

    p = shoal_align(sh, last ? 256 : 128, 64);
    check_everywhere(p == NULL, "two alignments", "shoal_align(128, 64 bytes)", "shoal_align(256, 64 bytes)");

    p = shoal_calloc(sh, last ? SIZE_MAX / 2 : 2, last ? 4 : 2);
    check_everywhere(p == NULL, "calloc overflow on one PE", "shoal_calloc(4 bytes)", "overflows");

    /* An overflowing product and a real SIZE_MAX request are different calls. */
    p = shoal_calloc(sh, last ? SIZE_MAX / 2 + 1 : 1, last ? 2 : SIZE_MAX);
    check_everywhere(p == NULL, "calloc overflow vs calloc(SIZE_MAX)", "shoal_calloc(18446744073709551615 bytes)",
                     "shoal_calloc(count * size overflows)");

    p = shoal_align(sh, last ? 3 : 8, 64);
    check_everywhere(p == NULL, "bad alignment on one PE", "shoal_align(8, 64 bytes)", "invalid alignment");
    check_usable();
}

static void test_frees(void)
{
    char *a = shoal_malloc(sh, 256), *b = shoal_malloc(sh, 256);
    int last = me == npes - 1, stackvar = 0;
    size_t used, freeb;

    CHECK_NONNULL(a, sh);
    CHECK_NONNULL(b, sh);
    CHECK_OK(shoal_heap_usage(sh, &used0, &freeb), sh); /* a and b count from here */

    check_everywhere(shoal_free(sh, last ? b : a) == SHOAL_ERR_NOT_SYMMETRIC, "free of different blocks",
                     "shoal_free(heap offset", "shoal_free(heap offset");
    check_everywhere(shoal_free(sh, last ? (void *)&stackvar : (void *)a) == SHOAL_ERR_NOT_SYMMETRIC,
                     "free of a non-heap pointer on one PE", "shoal_free(heap offset",
                     "shoal_free(a pointer not from shoal_malloc)");
    /* shoal_free(NULL) is collective too: it frees nothing, but the PEs stay in step */
    check_everywhere(shoal_free(sh, last ? NULL : (void *)a) == SHOAL_ERR_NOT_SYMMETRIC, "free(NULL) on one PE",
                     "shoal_free(heap offset", "shoal_free(NULL)");
    CHECK_OK(shoal_free(sh, NULL), sh);
    /* both blocks are still there and still work */
    CHECK_OK(shoal_char_p(sh, a + 255, 'a', (me + 1) % npes), sh);
    CHECK_OK(shoal_char_p(sh, b + 255, 'b', (me + 1) % npes), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);

    CHECK_OK(shoal_free(sh, a), sh);
    CHECK_OK(shoal_free(sh, b), sh);
    /* the same mistake on every PE: an error, collective, and no hang */
    CHECK_STATUS(shoal_free(sh, a), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "was not returned by shoal_malloc, or was already freed");
    CHECK_STATUS(shoal_free(sh, &stackvar), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_free");
    CHECK_OK(shoal_heap_usage(sh, &used, &freeb), sh);
    CHECK_EQ_SIZE(used + 2 * 256, used0);
    CHECK_OK(shoal_heap_usage(sh, &used0, &freeb), sh);
    check_usable();
}

/* Collectives that allocate nothing, mixed: shoal_barrier_all on the last
 * PE, shoal_sync_all on the others, then a barrier against a malloc. Every
 * PE gets the mismatch naming both calls; nobody goes through. */
static void test_barriers(void)
{
    int last = me == npes - 1, rc, all = 0;
    void *p = NULL;

    rc = last ? shoal_barrier_all(sh) : shoal_sync_all(sh);
    MPI_Allreduce((int[]){rc == SHOAL_ERR_NOT_SYMMETRIC}, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    CHECK_MSG(all, "barrier against sync_all: here %d (%s)", rc, shoal_last_error(sh));
    CHECK_CONTAINS(shoal_last_error(sh), "PE 0: shoal_sync_all");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_barrier_all");
    CHECK_CONTAINS(shoal_last_error(sh), "no PE went through it");
    if (me == 0) check_note("barrier against sync_all: %s", shoal_last_error(sh));

    if (last)
        rc = shoal_barrier_all(sh);
    else
        rc = (p = shoal_malloc(sh, 64)) != NULL                                          ? SHOAL_SUCCESS
             : strstr(shoal_last_error(sh), "PEs disagree on a collective call") != NULL ? SHOAL_ERR_NOT_SYMMETRIC
                                                                                         : -1;
    MPI_Allreduce((int[]){rc == SHOAL_ERR_NOT_SYMMETRIC}, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    CHECK_MSG(all, "barrier against malloc: here %d (%s)", rc, shoal_last_error(sh));
    CHECK_CONTAINS(shoal_last_error(sh), "PE 0: shoal_malloc(64 bytes)");
    CHECK_CONTAINS(shoal_last_error(sh), last ? "no PE went through it" : "nothing was allocated or freed");
    CHECK(p == NULL);
    check_usable();
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    size_t freeb;

    MPI_Init(&argc, &argv);
    test_config(&cfg, HEAP);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    CHECK_MSG(npes >= 2, "run on 2 PEs or more");
    CHECK_OK(shoal_heap_usage(sh, &used0, &freeb), sh);

    test_allocs();
    test_frees();
    test_barriers();

    if (me == 0) check_note("asymmetric allocation calls passed on %d PEs", npes);
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
