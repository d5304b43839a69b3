/*
 * shoal_team_create_strided (api/shoal.h, "Teams"): teams that their
 * members make alone, while the other PEs do other things.
 *
 * 1. Ids are agreed among the members only: PE 0 first holds two teams of
 *    its own (ids 2 and 3), then PEs 0 and 1 make a pair, which takes id 4
 *    (the lowest free on both), while PEs 2 and 3 make theirs with id 2
 *    (free on both of them) and PE 2 alone, at 3 PEs, its own with id 2.
 * 2. The even and the odd PEs make their teams at the same time: both take
 *    id 2, so they share every id-2 word (each PE's slot in its node's
 *    control window, each member's flags in its GPU control area). Both
 *    then run 60 rounds of broadcast, in-place sum, fcollect, sync and
 *    barrier at once; every value crossed PEs and is checked. Numbering and
 *    translation to the world are those of the progression.
 * 3. A team of PEs 1 .. n-1 works while PE 0, outside it, puts into the
 *    members' words meanwhile; a team of one; destroy and make again
 *    SHOAL_TEAM_MAX + 4 times (ids come back).
 * 4. Mistakes, refused at once on the PE that made them: a PE that is not
 *    a member, a stride of 0, PEs past the last, size 0, new_p NULL.
 *    Different arguments (PE 0: size 2, PE 1: size 3) are
 *    SHOAL_ERR_NOT_SYMMETRIC on both, naming both triplets. Teams of one
 *    until no id is free: SHOAL_TEAM_MAX in all, then SHOAL_ERR_NO_MEMORY.
 *
 * With the argument "timeout" (2 PEs, SHOAL_TIMEOUT=1): PE 0 calls while
 * PE 1 does not, and gets SHOAL_ERR_TIMEOUT naming PE 1 within seconds;
 * then both make the team; then PE 1 calls while PE 0 does not, and gets
 * SHOAL_ERR_TIMEOUT naming PE 0, the lowest member.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"
#include "team/shoal_team.h" /* a team's id: what the members agreed on */

enum { NB = 8, ROUNDS = 60 };

static int me, npes;

static long val(int round, int pe, int i) { return 1000L * round + 37L * pe + i + 1; }

/* Part 1. */
static void test_ids(shoal_t sh)
{
    shoal_team_t own[2] = {SHOAL_TEAM_INVALID, SHOAL_TEAM_INVALID}, pair = SHOAL_TEAM_INVALID;

    if (npes < 2) return;
    if (me == 0)
        for (int k = 0; k < 2; k++) {
            CHECK_OK(shoal_team_create_strided(sh, 0, 1, 1, &own[k]), sh);
            CHECK_EQ_INT(own[k]->id, 2 + k);
            CHECK_EQ_INT(shoal_team_n_pes(own[k]), 1);
        }
    if (me < 2) {
        CHECK_OK(shoal_team_create_strided(sh, 0, 1, 2, &pair), sh);
        CHECK_EQ_INT(pair->id, 4); /* 2 and 3 are PE 0's */
    } else if (me < 4 && npes >= 4) {
        CHECK_OK(shoal_team_create_strided(sh, 2, 1, 2, &pair), sh);
        CHECK_EQ_INT(pair->id, 2); /* free on PEs 2 and 3, whatever PE 0 holds */
    } else if (me == 2) {
        CHECK_OK(shoal_team_create_strided(sh, 2, 5, 1, &pair), sh);
        CHECK_EQ_INT(pair->id, 2);
    }
    if (pair != SHOAL_TEAM_INVALID) {
        CHECK_OK(shoal_team_barrier(pair), sh);
        CHECK_OK(shoal_team_destroy(pair), sh);
    }
    for (int k = 0; k < 2; k++)
        if (own[k] != SHOAL_TEAM_INVALID) CHECK_OK(shoal_team_destroy(own[k]), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
}

/* Part 2: rounds of collectives on t (members start + i * stride). */
static void rounds(shoal_t sh, shoal_team_t t, int start, int stride, long *src, long *dst)
{
    int tn = shoal_team_n_pes(t), tme = shoal_team_my_pe(t);
    long v[NB * 16], w[NB * 16];

    CHECK_EQ_INT(tme, (me - start) / stride);
    for (int i = 0; i < tn; i++) {
        CHECK_EQ_INT(shoal_team_translate_pe(t, i, shoal_team_world(sh)), start + i * stride);
        CHECK_EQ_INT(shoal_team_translate_pe(shoal_team_world(sh), start + i * stride, t), i);
    }
    for (int r = 0; r < ROUNDS; r++) {
        int root = r % tn;
        for (int i = 0; i < NB; i++) v[i] = val(r, me, i);
        test_heap_write(sh, src, v, NB * sizeof(long));
        CHECK_OK(shoal_team_sync(t), sh); /* dst read everywhere before it is written again */
        CHECK_OK(shoal_long_broadcast(t, dst, src, NB, root), sh);
        test_heap_read(sh, w, dst, NB * sizeof(long));
        for (int i = 0; i < NB; i++)
            CHECK_MSG(w[i] == val(r, start + root * stride, i), "round %d broadcast element %d: %ld", r, i, w[i]);
        CHECK_OK(shoal_long_sum_reduce(t, src, src, NB), sh); /* in place */
        test_heap_read(sh, w, src, NB * sizeof(long));
        for (int i = 0; i < NB; i++) {
            long sum = 0;
            for (int k = 0; k < tn; k++) sum += val(r, start + k * stride, i);
            CHECK_MSG(w[i] == sum, "round %d sum element %d: %ld, not %ld", r, i, w[i], sum);
        }
        test_heap_write(sh, src, v, NB * sizeof(long));
        CHECK_OK(shoal_team_barrier(t), sh); /* dst read everywhere, src written */
        CHECK_OK(shoal_long_fcollect(t, dst, src, NB), sh);
        test_heap_read(sh, w, dst, (size_t)tn * NB * sizeof(long));
        for (int k = 0; k < tn; k++)
            for (int i = 0; i < NB; i++) CHECK(w[k * NB + i] == val(r, start + k * stride, i));
    }
}

static void test_disjoint(shoal_t sh, long *src, long *dst)
{
    int odd = me % 2, start = odd, size = odd ? npes / 2 : (npes + 1) / 2;
    shoal_team_t t = SHOAL_TEAM_INVALID;

    CHECK_OK(shoal_team_create_strided(sh, start, 2, size, &t), sh);
    CHECK_EQ_INT(shoal_team_n_pes(t), size);
    CHECK_EQ_INT(t->id, 2); /* the evens' and the odds' alike */
    rounds(sh, t, start, 2, src, dst);
    CHECK_OK(shoal_team_destroy(t), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
}

/* Part 3. */
static void test_outsider(shoal_t sh, long *src, long *dst, long *box)
{
    shoal_team_t t = SHOAL_TEAM_INVALID, one = SHOAL_TEAM_INVALID;

    test_heap_fill(sh, box, 0, (size_t)npes * sizeof(long));
    CHECK_OK(shoal_barrier_all(sh), sh);
    if (npes >= 2 && me == 0) {
        /* Outside the team: puts into its members meanwhile. */
        for (int r = 0; r < 50; r++)
            for (int pe = 1; pe < npes; pe++) CHECK_OK(shoal_long_p(sh, &box[r % npes], 7L * r + pe, pe), sh);
        CHECK_OK(shoal_quiet(sh), sh);
    } else if (npes >= 2) {
        CHECK_OK(shoal_team_create_strided(sh, 1, 1, npes - 1, &t), sh);
        rounds(sh, t, 1, 1, src, dst);
        CHECK_OK(shoal_team_destroy(t), sh);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    if (me > 0)
        for (int k = 0; k < npes && k < 50; k++) {
            long got, want = -1;
            for (int r = 0; r < 50; r++)
                if (r % npes == k) want = 7L * r + me;
            test_heap_read(sh, &got, &box[k], sizeof(long));
            CHECK_MSG(got == want, "word %d from PE 0: %ld, not %ld", k, got, want);
        }
    /* A team of one (any stride), then made and destroyed many times. */
    CHECK_OK(shoal_team_create_strided(sh, me, 9, 1, &one), sh);
    CHECK_EQ_INT(shoal_team_my_pe(one), 0);
    CHECK_EQ_INT(shoal_team_translate_pe(one, 0, shoal_team_world(sh)), me);
    rounds(sh, one, me, 1, src, dst);
    CHECK_OK(shoal_team_destroy(one), sh);
    for (int k = 0; k < SHOAL_TEAM_MAX + 4; k++) {
        shoal_team_t w = SHOAL_TEAM_INVALID;
        CHECK_OK(shoal_team_create_strided(sh, 0, 1, npes, &w), sh);
        CHECK_EQ_INT(w->id, 2);
        CHECK_OK(shoal_team_destroy(w), sh);
        CHECK_EQ_INT(shoal_team_n_pes(w), SHOAL_ERR_INVALID_ARG); /* a destroyed handle is refused */
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
}

/* Part 4. */
static void test_mistakes(shoal_t sh)
{
    shoal_team_t t = (shoal_team_t)&t, many[SHOAL_TEAM_MAX];
    int n = 0, rc;

    if (npes > 1) {
        CHECK_ERR(shoal_team_create_strided(sh, (me + 1) % npes, 1, 1, &t), SHOAL_ERR_INVALID_ARG, sh,
                  "is not one of the PEs");
        CHECK(t == SHOAL_TEAM_INVALID);
        CHECK_ERR(shoal_team_create_strided(sh, 0, 0, 2, &t), SHOAL_ERR_INVALID_ARG, sh, "stride 0");
    }
    CHECK_ERR(shoal_team_create_strided(sh, 0, 1, npes + 1, &t), SHOAL_ERR_INVALID_ARG, sh, "do not name");
    CHECK_ERR(shoal_team_create_strided(sh, npes, 1, 1, &t), SHOAL_ERR_INVALID_ARG, sh, "do not name");
    CHECK_ERR(shoal_team_create_strided(sh, 0, 1, 0, &t), SHOAL_ERR_INVALID_ARG, sh, "size 0");
    CHECK_ERR(shoal_team_create_strided(sh, 0, 1, npes, NULL), SHOAL_ERR_INVALID_ARG, sh, "new_p is NULL");
    CHECK_STATUS(shoal_team_create_strided(NULL, 0, 1, 1, &t), SHOAL_ERR_INVALID_INSTANCE, NULL);
    if (npes >= 3 && me < 2) {
        const char *msg;
        CHECK_STATUS(shoal_team_create_strided(sh, 0, 1, me == 0 ? 2 : 3, &t), SHOAL_ERR_NOT_SYMMETRIC, sh);
        msg = shoal_last_error(sh);
        CHECK(t == SHOAL_TEAM_INVALID);
        CHECK_CONTAINS(msg, "different arguments");
        CHECK_CONTAINS(msg, "PE 0, the lowest member: start 0, stride 1, size 2");
        CHECK_CONTAINS(msg, "PE 1: start 0, stride 1, size 3");
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    /* World and node hold two ids: SHOAL_TEAM_MAX - 2 teams of one, no more. */
    while ((rc = shoal_team_create_strided(sh, me, 1, 1, &many[n])) == SHOAL_SUCCESS) n++;
    CHECK_EQ_INT(rc, SHOAL_ERR_NO_MEMORY);
    CHECK_CONTAINS(shoal_last_error(sh), "no team id is free");
    CHECK_EQ_INT(n, SHOAL_TEAM_MAX - 2);
    while (n > 0) CHECK_OK(shoal_team_destroy(many[--n]), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
}

static int run_timeout(void)
{
    shoal_config_t cfg;
    shoal_t sh;
    shoal_team_t t = SHOAL_TEAM_INVALID;
    double t0;

    test_config(&cfg, 1u << 20);
    CHECK_MSG(cfg.timeout == 1.0, "run with SHOAL_TIMEOUT=1 (got %g)", cfg.timeout);
    CHECK_EQ_INT(npes, 2);
    if (!test_init_or_skip(&cfg, &sh)) return TEST_SKIP;
    /* PE 1 stays away: PE 0, the lowest member, gives up naming it. */
    if (me == 0) {
        t0 = MPI_Wtime();
        CHECK_ERR(shoal_team_create_strided(sh, 0, 1, 2, &t), SHOAL_ERR_TIMEOUT, sh, "PE 1 of the new team");
        CHECK_CONTAINS(shoal_last_error(sh), "never called it");
        CHECK(t == SHOAL_TEAM_INVALID);
        CHECK(MPI_Wtime() - t0 < 20);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* Both come: the team works. */
    CHECK_OK(shoal_team_create_strided(sh, 0, 1, 2, &t), sh);
    CHECK_OK(shoal_team_barrier(t), sh);
    CHECK_OK(shoal_team_destroy(t), sh);
    MPI_Barrier(MPI_COMM_WORLD);
    /* PE 0 stays away: PE 1 waits twice the timeout for its answer. */
    if (me == 1) {
        t0 = MPI_Wtime();
        CHECK_ERR(shoal_team_create_strided(sh, 0, 1, 2, &t), SHOAL_ERR_TIMEOUT, sh, "lowest member, PE 0");
        CHECK(MPI_Wtime() - t0 >= 1.5 && MPI_Wtime() - t0 < 20);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(shoal_finalize(sh), NULL);
    if (me == 0) check_note("team_create timeouts passed");
    return 0;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    long *src, *dst, *box;
    int rc = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
        rc = run_timeout();
        MPI_Finalize();
        return rc;
    }
    test_config(&cfg, 4u << 20);
    if (cfg.timeout == 0 || cfg.timeout > 30) cfg.timeout = 30; /* a lost member: an error, not a hang */
    if (!test_init_or_skip(&cfg, &sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    src = shoal_calloc(sh, NB * 16, sizeof(long));
    dst = shoal_calloc(sh, NB * 16, sizeof(long));
    box = shoal_calloc(sh, (size_t)npes, sizeof(long));
    CHECK_NONNULL(src, sh);
    CHECK_NONNULL(dst, sh);
    CHECK_NONNULL(box, sh);

    test_ids(sh);
    test_disjoint(sh, src, dst);
    test_outsider(sh, src, dst, box);
    test_mistakes(sh);

    CHECK_OK(shoal_free(sh, box), sh);
    CHECK_OK(shoal_free(sh, dst), sh);
    CHECK_OK(shoal_free(sh, src), sh);
    if (me == 0) check_note("team_create passed on %d PEs", npes);
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
