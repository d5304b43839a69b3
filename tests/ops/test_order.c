/*
 * SHOAL_CHECK=full: reading bytes this PE put to a PE before a quiet or a
 * barrier completed the put is SHOAL_ERR_ORDER ("read of data with puts
 * still outstanding"), with a message naming the call, the PE, both ranges
 * and the fix; nothing is read then. Covered: get, get_nbi and g after
 * put_nbi, put and p; reads that do not overlap, or go to another PE, pass;
 * shoal_quiet, shoal_fence and shoal_barrier_all complete the puts, while
 * shoal_sync_all does not; puts to this PE itself; thousands of puts
 * between quiets (merged, or past the record's limit: no false error).
 * Every value read after the completion is the value put. With
 * SHOAL_CHECK=basic the same reads are not checked.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { N = 256 };

static int me, npes, right, left;

static void check_order_error(shoal_t sh, int status, const char *call)
{
    char pe[32];
    snprintf(pe, sizeof(pe), "of PE %d", right);
    CHECK_STATUS(status, SHOAL_ERR_ORDER, sh);
    CHECK_CONTAINS(shoal_last_error(sh), call);
    CHECK_CONTAINS(shoal_last_error(sh), pe);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_quiet or shoal_barrier_all");
    CHECK_CONTAINS(shoal_last_error(sh), "SHOAL_CHECK=full");
    CHECK_CONTAINS(shoal_strerror(status), "puts still outstanding");
}

static void test_full(shoal_t sh)
{
    int *x = shoal_malloc(sh, N * sizeof(int)), *y = shoal_malloc(sh, N * sizeof(int));
    int vals[N], got[N], v = -1;

    CHECK_NONNULL(x, sh);
    CHECK_NONNULL(y, sh);
    for (int i = 0; i < N; i++) vals[i] = me * 10000 + i;
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* put_nbi, then reads of the same bytes */
    CHECK_OK(shoal_int_put_nbi(sh, x, vals, 64, right), sh);
    got[0] = -7;
    check_order_error(sh, shoal_int_get(sh, got, x + 32, 8, right), "shoal_int_get");
    CHECK_EQ_INT(got[0], -7); /* nothing was read */
    CHECK_CONTAINS(shoal_last_error(sh), "put 256 bytes at offset");
    check_order_error(sh, shoal_get_nbi(sh, got, x + 63, sizeof(int), right), "shoal_get_nbi");
    check_order_error(sh, shoal_int_g(sh, &v, x, right), "shoal_int_g");
    /* reads beside the range, or from another PE's copy, are fine */
    CHECK_OK(shoal_int_get(sh, got, x + 64, 8, right), sh);
    CHECK_OK(shoal_int_get(sh, got, y, 8, right), sh);
    if (left != right) CHECK_OK(shoal_int_get(sh, got, x, 64, left), sh);
    /* quiet completes: the read now sees the put */
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_int_get(sh, got, x, 64, right), sh);
    CHECK_MEM_EQ(got, vals, 64 * sizeof(int));

    /* blocking put and p: complete at the target only after quiet too */
    CHECK_OK(shoal_int_put(sh, x + 100, vals + 100, 10, right), sh);
    check_order_error(sh, shoal_int_get(sh, got, x + 105, 1, right), "shoal_int_get");
    CHECK_OK(shoal_fence(sh), sh);
    CHECK_OK(shoal_int_get(sh, got, x + 100, 10, right), sh);
    CHECK_MEM_EQ(got, vals + 100, 10 * sizeof(int));
    CHECK_OK(shoal_int_p(sh, x + 200, 4242, right), sh);
    check_order_error(sh, shoal_int_g(sh, &v, x + 200, right), "shoal_int_g");

    /* a barrier completes; sync_all does not */
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_int_g(sh, &v, x + 200, right), sh);
    CHECK_EQ_INT(v, 4242);
    CHECK_OK(shoal_int_put_nbi(sh, y, vals, N, right), sh);
    CHECK_OK(shoal_sync_all(sh), sh);
    check_order_error(sh, shoal_int_get(sh, got, y + N - 1, 1, right), "shoal_int_get");
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_int_get(sh, got, y, N, right), sh);
    CHECK_MEM_EQ(got, vals, sizeof(vals));
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, y), sh);
    CHECK_OK(shoal_free(sh, x), sh);
}

/* Puts to this PE itself are tracked alike. */
static void test_self(shoal_t sh)
{
    int *x = shoal_malloc(sh, N * sizeof(int)), got = 0;
    char msg[32];

    CHECK_NONNULL(x, sh);
    CHECK_OK(shoal_int_p(sh, x + 5, 55, me), sh);
    CHECK_STATUS(shoal_int_g(sh, &got, x + 5, me), SHOAL_ERR_ORDER, sh);
    snprintf(msg, sizeof(msg), "of PE %d", me);
    CHECK_CONTAINS(shoal_last_error(sh), msg);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_int_g(sh, &got, x + 5, me), sh);
    CHECK_EQ_INT(got, 55);
    CHECK_OK(shoal_free(sh, x), sh);
}

/* Many puts between two quiets. */
static void test_many(shoal_t sh)
{
    enum { M = 6000 };
    int *x = shoal_malloc(sh, 2 * M * sizeof(int)), got;

    CHECK_NONNULL(x, sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    /* consecutive elements merge into one range */
    for (int i = 0; i < M; i++) CHECK_OK(shoal_int_p(sh, x + i, i, right), sh);
    CHECK_STATUS(shoal_int_g(sh, &got, x + M / 2, right), SHOAL_ERR_ORDER, sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_int_g(sh, &got, x + M / 2, right), sh);
    CHECK_EQ_INT(got, M / 2);
    /* every other element: more ranges than recorded; the first ones are
     * still caught, and elements between them are never flagged */
    for (int i = 0; i < M; i++) CHECK_OK(shoal_int_p(sh, x + 2 * i, -i, right), sh);
    CHECK_STATUS(shoal_int_g(sh, &got, x + 2, right), SHOAL_ERR_ORDER, sh);
    for (int i = 0; i < M; i += 97) CHECK_OK(shoal_int_g(sh, &got, x + 2 * i + 1, right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int i = 0; i < M; i += 97) {
        CHECK_OK(shoal_int_g(sh, &got, x + 2 * i, right), sh);
        CHECK_EQ_INT(got, -i);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, x), sh);
}

/* SHOAL_CHECK=basic: no tracking. */
static void test_basic(shoal_t sh)
{
    int *x = shoal_malloc(sh, N * sizeof(int)), got[8], vals[8] = {1, 2, 3, 4, 5, 6, 7, 8};

    CHECK_NONNULL(x, sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_int_put_nbi(sh, x, vals, 8, right), sh);
    CHECK_OK(shoal_int_get(sh, got, x, 8, right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, x), sh);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    test_config(&cfg, 1u << 20);
    cfg.check = SHOAL_CHECK_FULL;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    test_full(sh);
    test_self(sh);
    test_many(sh);
    CHECK_OK(shoal_finalize(sh), NULL);

    cfg.check = SHOAL_CHECK_BASIC;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    test_basic(sh);
    CHECK_OK(shoal_finalize(sh), NULL);

    if (me == 0) check_note("read-before-completion checks passed on %d PEs", npes);
    MPI_Finalize();
    return 0;
}
