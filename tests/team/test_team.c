/*
 * Teams (api/shoal.h, "Teams"): the world and node teams, strided and 2-D
 * splits, translation, sync and barrier, destroy, and the mistakes.
 *
 * 1. World and node: each PE's number and the sizes, the node team's PEs
 *    those test_expected_nodes finds (SHOAL_NODE_SIZE blocks or the
 *    shared-memory nodes); shoal_team_translate_pe between them both ways,
 *    -1 for a PE that is not a member, out of range, an invalid team, or a
 *    team of another instance.
 * 2. shoal_team_split_strided of the world (stride 1, 2, 2 from PE 1, a
 *    negative stride, teams of one) and of a split team: the members are
 *    the parent's PEs named, numbered in the parent's order, translated to
 *    the parent and the world both ways; a PE outside the new team gets
 *    SHOAL_TEAM_INVALID with SHOAL_SUCCESS, and every call on that handle
 *    returns SHOAL_ERR_INVALID_ARG (my_pe and n_pes that value too).
 *    Arguments that name no team (the same on every PE) are refused on
 *    every PE with SHOAL_ERR_INVALID_ARG and no team.
 * 3. shoal_team_split_2d for every xrange from 1 to n_pes + 1: the x team
 *    is this PE's row (row my / xrange, its size xrange but for a short
 *    last row), the y team its column (my % xrange), numbered as the
 *    formula says, translated back to the world.
 * 4. Sync and barrier on every team made: values put to the right
 *    neighbour in the team before shoal_team_barrier are there after it;
 *    a member that comes 150 ms late holds the others in shoal_team_sync
 *    and in shoal_team_barrier (they cannot leave before it came); the
 *    disjoint row teams of a 2-D split meet at once.
 * 5. Destroy and create 3 * SHOAL_TEAM_MAX times in a loop (ids come
 *    back; calls on a destroyed handle are refused); SHOAL_TEAM_MAX teams at once, world and node included, and not
 *    one more (a 2-D split, which needs two, is refused with one left);
 *    destroying the world or node team is refused.
 * 6. Splits with different arguments on one PE: SHOAL_ERR_NOT_SYMMETRIC on
 *    every PE, the message naming the PEs (their world and parent numbers)
 *    and what each passed; the parent still works. Different calls on a
 *    team (sync against barrier) are named the same way.
 *
 * With the argument "timeout" (run with SHOAL_TIMEOUT=1): the last PE
 * skips a shoal_team_sync of a split team, then PE 0 (the members' node
 * leader) one of another; the others get SHOAL_ERR_TIMEOUT within seconds,
 * naming the PE where it shares their node (else the team's other node);
 * the team is then broken (the next sync fails at once), the late PE fails
 * at once too, saying the others gave up, every PE can destroy the team,
 * and the world team and a new split work.
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
static int *node_of; /* node_of[pe]: the node test_expected_nodes finds */
static long *box;    /* symmetric words the barrier checks put into */

enum { NBOX = 16 };

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Every call on an invalid team handle returns SHOAL_ERR_INVALID_ARG (or
 * -1, or NULL), naming the call. */
static void check_invalid_team(shoal_t sh, shoal_team_t t)
{
    shoal_team_t w = shoal_team_world(sh), nt = w, x = w, y = w;
    int v = 7;

    CHECK_EQ_INT(shoal_team_my_pe(t), SHOAL_ERR_INVALID_ARG);
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_team_my_pe");
    CHECK_CONTAINS(shoal_last_error(NULL), "SHOAL_TEAM_INVALID");
    CHECK_EQ_INT(shoal_team_n_pes(t), SHOAL_ERR_INVALID_ARG);
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_team_n_pes");
    CHECK_STATUS(shoal_team_sync(t), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_team_sync");
    CHECK_STATUS(shoal_team_barrier(t), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_team_barrier");
    CHECK_STATUS(shoal_team_destroy(t), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_team_destroy");
    CHECK_STATUS(shoal_team_split_strided(t, 0, 1, 1, &nt), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK(nt == SHOAL_TEAM_INVALID);
    CHECK_STATUS(shoal_team_split_2d(t, 1, &x, &y), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK(x == SHOAL_TEAM_INVALID && y == SHOAL_TEAM_INVALID);
    CHECK_STATUS(shoal_int_broadcast(t, (int *)&box[NBOX - 1], &v, 1, 0), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_int_broadcast");
    CHECK_STATUS(shoal_int_sum_reduce(t, (int *)&box[NBOX - 1], (int *)&box[NBOX - 2], 1), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_EQ_INT(shoal_team_translate_pe(t, 0, w), -1);
    CHECK_EQ_INT(shoal_team_translate_pe(w, 0, t), -1);
    CHECK(shoal_team_instance(t) == NULL);
}

/* ------------------------------------------------------------ world and node */

static void test_world_node(shoal_t sh)
{
    shoal_team_t w = shoal_team_world(sh), nd = shoal_team_node(sh);
    int *node_idx = malloc(sizeof(int) * (size_t)npes), *node_pe = malloc(sizeof(int) * (size_t)npes);
    int nn = 0;
    shoal_config_t cfg;
    shoal_t sh2 = NULL;

    CHECK(node_idx != NULL && node_pe != NULL);
    CHECK(w != SHOAL_TEAM_INVALID && nd != SHOAL_TEAM_INVALID && w != nd);
    CHECK(shoal_team_world(sh) == w); /* the same handle every time */
    CHECK_EQ_INT(shoal_team_my_pe(w), me);
    CHECK_EQ_INT(shoal_team_n_pes(w), npes);
    CHECK(shoal_team_instance(w) == sh && shoal_team_instance(nd) == sh);
    for (int pe = 0; pe < npes; pe++) {
        CHECK_EQ_INT(shoal_pe_node(sh, pe), node_of[pe]);
        node_idx[pe] = -1;
        if (node_of[pe] == node_of[me]) {
            node_pe[nn] = pe;
            node_idx[pe] = nn++;
        }
    }
    CHECK_EQ_INT(shoal_team_n_pes(nd), nn);
    CHECK_EQ_INT(shoal_team_my_pe(nd), node_idx[me]);
    for (int pe = -2; pe < npes + 2; pe++) {
        int in = pe >= 0 && pe < npes;
        CHECK_EQ_INT(shoal_team_translate_pe(w, pe, nd), in ? node_idx[pe] : -1);
        CHECK_EQ_INT(shoal_team_translate_pe(w, pe, w), in ? pe : -1);
    }
    for (int i = -1; i <= nn; i++) {
        CHECK_EQ_INT(shoal_team_translate_pe(nd, i, w), i >= 0 && i < nn ? node_pe[i] : -1);
        CHECK_EQ_INT(shoal_team_translate_pe(nd, i, nd), i >= 0 && i < nn ? i : -1);
    }
    check_invalid_team(sh, SHOAL_TEAM_INVALID);

    /* A team of another instance translates to nothing. */
    test_config(&cfg, 1u << 20);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh2), NULL);
    CHECK_EQ_INT(shoal_team_n_pes(shoal_team_world(sh2)), npes);
    CHECK_EQ_INT(shoal_team_translate_pe(w, 0, shoal_team_world(sh2)), -1);
    CHECK_EQ_INT(shoal_team_translate_pe(shoal_team_world(sh2), me, w), -1);
    CHECK_OK(shoal_finalize(sh2), NULL);
    /* A finalized instance's teams are gone with it. */
    CHECK(shoal_team_world(sh2) == SHOAL_TEAM_INVALID);

    /* Destroying world or node is refused; both still work. */
    CHECK_ERR(shoal_team_destroy(w), SHOAL_ERR_INVALID_ARG, sh, "world");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_team_destroy");
    CHECK_ERR(shoal_team_destroy(nd), SHOAL_ERR_INVALID_ARG, sh, "node");
    CHECK_OK(shoal_team_sync(w), sh);
    CHECK_OK(shoal_team_sync(nd), sh);
    CHECK_OK(shoal_team_barrier(nd), sh);
    CHECK_OK(shoal_team_barrier(w), sh);
    free(node_idx);
    free(node_pe);
}

/* ------------------------------------------------------------ sync and barrier */

/* Each member puts a value to its right neighbour in the team (box[slot]);
 * after shoal_team_barrier every member holds its left neighbour's. Then
 * the member late_pe comes 150 ms late to a sync and to a barrier: the
 * others wait for it. */
static void check_meetings(shoal_t sh, shoal_team_t t, int slot, int late_pe)
{
    shoal_team_t w = shoal_team_world(sh);
    int tm = shoal_team_my_pe(t), tn = shoal_team_n_pes(t);
    int right = shoal_team_translate_pe(t, (tm + 1) % tn, w);
    long got = -1, want;

    CHECK(tm >= 0 && tn >= 1 && right >= 0);
    for (int round = 1; round <= 3; round++) {
        CHECK_OK(shoal_long_p(sh, &box[slot], 1000L * round + tm, right), sh);
        CHECK_OK(shoal_team_barrier(t), sh);
        test_heap_read(sh, &got, &box[slot], sizeof(got));
        want = 1000L * round + (tm + tn - 1) % tn;
        CHECK_MSG(got == want, "round %d: team PE %d of %d holds %ld after shoal_team_barrier, expected %ld", round, tm,
                  tn, got, want);
        CHECK_OK(shoal_team_sync(t), sh); /* every member read before the next round's puts */
    }
    if (late_pe >= tn) return;
    for (int kind = 0; kind < 2; kind++) {
        double t0 = MPI_Wtime(), dt;
        if (tm == late_pe) sleep_ms(150);
        CHECK_OK(kind == 0 ? shoal_team_sync(t) : shoal_team_barrier(t), sh);
        dt = MPI_Wtime() - t0;
        if (tm != late_pe)
            CHECK_MSG(dt > 0.1, "team PE %d left shoal_team_%s after %.3f s, before team PE %d came (150 ms late)", tm,
                      kind == 0 ? "sync" : "barrier", dt, late_pe);
    }
}

/* ------------------------------------------------------------ splits */

/* The parent's PEs start + k * stride (k < size) in ascending order. */
static int strided_members(int start, int stride, int size, int *mem)
{
    for (int k = 0; k < size; k++) mem[k] = start + k * stride;
    for (int i = 1; i < size; i++)
        for (int j = i; j > 0 && mem[j - 1] > mem[j]; j--) {
            int x = mem[j];
            mem[j] = mem[j - 1];
            mem[j - 1] = x;
        }
    return size;
}

/* A team t made of the parent's PEs mem[0 .. size) (ascending), as this PE
 * sees it: SHOAL_TEAM_INVALID where it is not one of them; else its number,
 * size, instance and translations to the parent and the world. */
static void check_members(shoal_t sh, shoal_team_t parent, shoal_team_t t, const int *mem, int size)
{
    shoal_team_t w = shoal_team_world(sh);
    int pm = shoal_team_my_pe(parent), pn = shoal_team_n_pes(parent), idx = -1;

    for (int i = 0; i < size; i++)
        if (mem[i] == pm) idx = i;
    if (idx < 0) {
        CHECK_MSG(t == SHOAL_TEAM_INVALID, "parent PE %d is not a member but got a team", pm);
        check_invalid_team(sh, t);
        return;
    }
    CHECK_MSG(t != SHOAL_TEAM_INVALID, "parent PE %d is a member but got SHOAL_TEAM_INVALID", pm);
    CHECK_EQ_INT(shoal_team_my_pe(t), idx);
    CHECK_EQ_INT(shoal_team_n_pes(t), size);
    CHECK(shoal_team_instance(t) == sh);
    CHECK_EQ_INT(shoal_team_translate_pe(t, idx, w), me);
    for (int i = 0; i < size; i++) {
        CHECK_EQ_INT(shoal_team_translate_pe(t, i, parent), mem[i]);
        CHECK_EQ_INT(shoal_team_translate_pe(t, i, w), shoal_team_translate_pe(parent, mem[i], w));
        CHECK_EQ_INT(shoal_team_translate_pe(t, i, t), i);
    }
    CHECK_EQ_INT(shoal_team_translate_pe(t, size, parent), -1);
    CHECK_EQ_INT(shoal_team_translate_pe(t, -1, parent), -1);
    for (int p = 0; p < pn; p++) {
        int want = -1;
        for (int i = 0; i < size; i++)
            if (mem[i] == p) want = i;
        CHECK_EQ_INT(shoal_team_translate_pe(parent, p, t), want);
    }
    CHECK_EQ_INT(shoal_team_translate_pe(w, me, t), idx);
}

/* Split parent (whose members call) into start, stride, size and check it. */
static shoal_team_t split_check(shoal_t sh, shoal_team_t parent, int start, int stride, int size)
{
    shoal_team_t t = shoal_team_world(sh); /* overwritten: SHOAL_TEAM_INVALID for non-members */
    int *mem = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));

    CHECK(mem != NULL);
    CHECK_OK(shoal_team_split_strided(parent, start, stride, size, &t), sh);
    strided_members(start, stride, size, mem);
    check_members(sh, parent, t, mem, size);
    free(mem);
    return t;
}

static void test_strided(shoal_t sh)
{
    shoal_team_t w = shoal_team_world(sh), all, even, odd = SHOAL_TEAM_INVALID, rev, one, sub;
    int slot = 0;

    all = split_check(sh, w, 0, 1, npes);
    check_meetings(sh, all, slot++, npes - 1);
    even = split_check(sh, w, 0, 2, (npes + 1) / 2);
    if (npes >= 2) odd = split_check(sh, w, 1, 2, npes / 2);
    /* Even and odd PEs meet at once in two teams. */
    if (even != SHOAL_TEAM_INVALID) check_meetings(sh, even, slot, 0);
    if (odd != SHOAL_TEAM_INVALID) check_meetings(sh, odd, slot, shoal_team_n_pes(odd) - 1);
    slot++;
    CHECK_OK(shoal_team_barrier(w), sh);
    /* A negative stride: the last PE and every third below it, numbered in
     * the world's order. */
    rev = split_check(sh, w, npes - 1, -3, (npes + 2) / 3);
    if (rev != SHOAL_TEAM_INVALID) check_meetings(sh, rev, slot, 0);
    slot++;
    CHECK_OK(shoal_team_barrier(w), sh);
    /* Teams of one: stride 0, and any stride with size 1. */
    for (int pe = 0; pe < npes; pe++) {
        one = split_check(sh, w, pe, pe % 2 ? 0 : 5, 1);
        if (one != SHOAL_TEAM_INVALID) {
            check_meetings(sh, one, slot, 1);
            CHECK_OK(shoal_team_destroy(one), sh);
        }
    }
    slot++;
    /* A split of a split: every other member of the even team. */
    if (even != SHOAL_TEAM_INVALID) {
        int en = shoal_team_n_pes(even);
        sub = split_check(sh, even, en - 1, -2, (en + 1) / 2);
        if (sub != SHOAL_TEAM_INVALID) {
            check_meetings(sh, sub, slot, shoal_team_n_pes(sub) - 1);
            CHECK_OK(shoal_team_destroy(sub), sh);
        }
    }
    slot++;
    CHECK_OK(shoal_team_barrier(w), sh);

    /* Arguments that name no team: refused on every PE, no team. */
    {
        const int bad[][3] = {{0, 1, 0}, {0, 1, npes + 1}, {npes, 1, 1}, {-1, 1, 1}, {npes - 1, 1, 2},
                              {0, 0, 2}, {0, -1, 2},       {1, npes, 2}, {0, 1, -3}, {npes - 1, -1, npes + 1}};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            shoal_team_t t = w;
            CHECK_STATUS(shoal_team_split_strided(w, bad[i][0], bad[i][1], bad[i][2], &t), SHOAL_ERR_INVALID_ARG, sh);
            CHECK_CONTAINS(shoal_last_error(sh), "shoal_team_split_strided");
            CHECK_MSG(t == SHOAL_TEAM_INVALID, "a refused split (start %d, stride %d, size %d) gave a team", bad[i][0],
                      bad[i][1], bad[i][2]);
        }
        CHECK_ERR(shoal_team_split_strided(w, 0, 1, 1, NULL), SHOAL_ERR_INVALID_ARG, sh, "new_p");
    }
    CHECK_OK(shoal_team_sync(w), sh);

    CHECK_OK(shoal_team_destroy(all), sh);
    if (even != SHOAL_TEAM_INVALID) CHECK_OK(shoal_team_destroy(even), sh);
    if (odd != SHOAL_TEAM_INVALID) CHECK_OK(shoal_team_destroy(odd), sh);
    if (rev != SHOAL_TEAM_INVALID) CHECK_OK(shoal_team_destroy(rev), sh);
    CHECK_OK(shoal_team_barrier(w), sh);
    if (me == 0) check_note("strided splits passed");
}

/* Split parent (all of whose PEs call) into rows of xrange: check both. */
static void split_2d_check(shoal_t sh, shoal_team_t parent, int xrange)
{
    shoal_team_t x = SHOAL_TEAM_INVALID, y = SHOAL_TEAM_INVALID;
    int pm = shoal_team_my_pe(parent), pn = shoal_team_n_pes(parent), xr = xrange > pn ? pn : xrange;
    int row = pm / xr, col = pm % xr, nx, ny, *mem = malloc(sizeof(int) * (size_t)pn);

    CHECK(mem != NULL);
    CHECK_OK(shoal_team_split_2d(parent, xrange, &x, &y), sh);
    CHECK(x != SHOAL_TEAM_INVALID && y != SHOAL_TEAM_INVALID && x != y);
    /* Row row holds xr PEs, the last one what is left. */
    nx = pn - row * xr < xr ? pn - row * xr : xr;
    ny = (pn - col + xr - 1) / xr;
    CHECK_EQ_INT(shoal_team_n_pes(x), nx);
    CHECK_EQ_INT(shoal_team_my_pe(x), col);
    CHECK_EQ_INT(shoal_team_n_pes(y), ny);
    CHECK_EQ_INT(shoal_team_my_pe(y), row);
    for (int i = 0; i < nx; i++) mem[i] = row * xr + i;
    check_members(sh, parent, x, mem, nx);
    for (int j = 0; j < ny; j++) mem[j] = col + j * xr;
    check_members(sh, parent, y, mem, ny);
    /* Every row meets at once, then every column. */
    check_meetings(sh, x, 6, nx - 1);
    check_meetings(sh, y, 7, 0);
    CHECK_OK(shoal_team_destroy(x), sh);
    CHECK_OK(shoal_team_destroy(y), sh);
    free(mem);
}

static void test_2d(shoal_t sh)
{
    shoal_team_t w = shoal_team_world(sh), even;
    shoal_team_t x = w, y = w;

    for (int xrange = 1; xrange <= npes + 1; xrange++) {
        split_2d_check(sh, w, xrange);
        CHECK_OK(shoal_team_barrier(w), sh);
    }
    /* Of a split team: the even PEs in rows of 2. */
    even = split_check(sh, w, 0, 2, (npes + 1) / 2);
    if (even != SHOAL_TEAM_INVALID) {
        split_2d_check(sh, even, 2);
        CHECK_OK(shoal_team_destroy(even), sh);
    }
    CHECK_OK(shoal_team_barrier(w), sh);
    CHECK_ERR(shoal_team_split_2d(w, 0, &x, &y), SHOAL_ERR_INVALID_ARG, sh, "xrange 0");
    CHECK(x == SHOAL_TEAM_INVALID && y == SHOAL_TEAM_INVALID);
    x = y = w;
    CHECK_ERR(shoal_team_split_2d(w, -2, &x, &y), SHOAL_ERR_INVALID_ARG, sh, "shoal_team_split_2d");
    CHECK(x == SHOAL_TEAM_INVALID && y == SHOAL_TEAM_INVALID);
    CHECK_ERR(shoal_team_split_2d(w, 1, &x, NULL), SHOAL_ERR_INVALID_ARG, sh, "yteam_p");
    CHECK_OK(shoal_team_sync(w), sh);
    if (me == 0) check_note("2-D splits passed (xrange 1 to %d)", npes + 1);
}

/* ------------------------------------------------------------ life */

static void test_life(shoal_t sh)
{
    shoal_team_t w = shoal_team_world(sh), held[SHOAL_TEAM_MAX], t = SHOAL_TEAM_INVALID, x, y;
    int nheld = 0;

    /* Create and destroy far more teams than can live at once. */
    for (int i = 0; i < 3 * SHOAL_TEAM_MAX; i++) {
        switch (i % 3) {
        case 0: t = split_check(sh, w, 0, 1, npes); break;
        case 1: t = split_check(sh, w, i % npes, 1, 1); break;
        default:
            x = y = SHOAL_TEAM_INVALID;
            CHECK_OK(shoal_team_split_2d(w, 2, &x, &y), sh);
            CHECK_EQ_INT(shoal_team_my_pe(x), me % 2);
            CHECK_EQ_INT(shoal_team_my_pe(y), me / 2);
            CHECK_OK(shoal_team_sync(x), sh);
            CHECK_OK(shoal_team_destroy(x), sh);
            t = y;
        }
        if (t == SHOAL_TEAM_INVALID) continue;
        CHECK_OK(shoal_team_sync(t), sh);
        CHECK_OK(shoal_team_destroy(t), sh);
        /* A destroyed team's handle is refused, not undefined. */
        CHECK_EQ_INT(shoal_team_my_pe(t), SHOAL_ERR_INVALID_ARG);
        CHECK_CONTAINS(shoal_last_error(NULL), "destroyed");
        CHECK_ERR(shoal_team_sync(t), SHOAL_ERR_INVALID_ARG, NULL, "shoal_team_sync");
        CHECK_STATUS(shoal_team_destroy(t), SHOAL_ERR_INVALID_ARG, NULL);
        CHECK_EQ_INT(shoal_team_translate_pe(t, 0, w), -1);
        CHECK(shoal_team_instance(t) == NULL);
    }
    CHECK_OK(shoal_team_barrier(w), sh);

    /* SHOAL_TEAM_MAX at once, world and node included. */
    for (nheld = 0; nheld < SHOAL_TEAM_MAX - 2; nheld++) {
        held[nheld] = SHOAL_TEAM_INVALID;
        CHECK_OK(shoal_team_split_strided(w, 0, 1, npes, &held[nheld]), sh);
        CHECK(held[nheld] != SHOAL_TEAM_INVALID);
    }
    t = w;
    CHECK_ERR(shoal_team_split_strided(w, 0, 1, npes, &t), SHOAL_ERR_NO_MEMORY, sh, "SHOAL_TEAM_MAX");
    CHECK(t == SHOAL_TEAM_INVALID);
    /* The oldest and the newest ones still work. */
    CHECK_OK(shoal_team_barrier(held[0]), sh);
    CHECK_OK(shoal_team_barrier(held[nheld - 1]), sh);
    /* One id free: a 2-D split needs two. */
    CHECK_OK(shoal_team_destroy(held[--nheld]), sh);
    x = y = w;
    CHECK_ERR(shoal_team_split_2d(w, 1, &x, &y), SHOAL_ERR_NO_MEMORY, sh, "SHOAL_TEAM_MAX");
    CHECK(x == SHOAL_TEAM_INVALID && y == SHOAL_TEAM_INVALID);
    held[nheld] = split_check(sh, w, 0, 1, npes);
    nheld++;
    while (nheld > 0) CHECK_OK(shoal_team_destroy(held[--nheld]), sh);
    CHECK_OK(shoal_team_split_2d(w, 1, &x, &y), sh);
    CHECK_OK(shoal_team_sync(x), sh);
    CHECK_OK(shoal_team_sync(y), sh);
    CHECK_OK(shoal_team_destroy(x), sh);
    CHECK_OK(shoal_team_destroy(y), sh);
    CHECK_OK(shoal_team_barrier(w), sh);
    if (me == 0) check_note("%d teams made and destroyed, %d at once", 3 * SHOAL_TEAM_MAX, SHOAL_TEAM_MAX);
}

/* ------------------------------------------------------------ mismatches */

static void test_mismatch(shoal_t sh)
{
    shoal_team_t w = shoal_team_world(sh), t, x, y, even;
    int odd = npes - 1;
    const char *msg;
    char a[96], b[96];

    if (npes < 2) return;
    /* One PE passes another size. */
    t = w;
    CHECK_STATUS(shoal_team_split_strided(w, 0, 1, me == odd ? npes - 1 : npes, &t), SHOAL_ERR_NOT_SYMMETRIC, sh);
    CHECK(t == SHOAL_TEAM_INVALID);
    msg = shoal_last_error(sh);
    if (me == 0) check_note("split mismatch: %s", msg);
    CHECK_CONTAINS(msg, "shoal_team_split_strided");
    snprintf(a, sizeof(a), "PE 0 (parent PE 0): start 0 stride 1 size %d", npes);
    snprintf(b, sizeof(b), "PE %d (parent PE %d): start 0 stride 1 size %d", odd, odd, npes - 1);
    CHECK_CONTAINS(msg, a);
    CHECK_CONTAINS(msg, b);
    /* The others agree with PE 0 and are not named. */
    if (npes > 2) {
        snprintf(a, sizeof(a), "PE %d (parent", npes - 2);
        CHECK_MSG(strstr(msg, a) == NULL, "the message names a PE that passed PE 0's arguments: %s", msg);
    }
    CHECK_OK(shoal_team_sync(w), sh);

    /* 2-D: one PE another xrange. */
    x = y = w;
    CHECK_STATUS(shoal_team_split_2d(w, me == odd ? 1 : 2, &x, &y), SHOAL_ERR_NOT_SYMMETRIC, sh);
    CHECK(x == SHOAL_TEAM_INVALID && y == SHOAL_TEAM_INVALID);
    msg = shoal_last_error(sh);
    CHECK_CONTAINS(msg, "shoal_team_split_2d");
    CHECK_CONTAINS(msg, "PE 0 (parent PE 0): xrange 2");
    snprintf(b, sizeof(b), "PE %d (parent PE %d): xrange 1", odd, odd);
    CHECK_CONTAINS(msg, b);

    /* A split of a split: messages give world and parent numbers. */
    even = split_check(sh, w, 0, 2, (npes + 1) / 2);
    if (even != SHOAL_TEAM_INVALID && shoal_team_n_pes(even) >= 2) {
        int en = shoal_team_n_pes(even), em = shoal_team_my_pe(even);
        t = w;
        CHECK_STATUS(shoal_team_split_strided(even, em == en - 1 ? 1 : 0, 1, 1, &t), SHOAL_ERR_NOT_SYMMETRIC, sh);
        CHECK(t == SHOAL_TEAM_INVALID);
        msg = shoal_last_error(sh);
        snprintf(b, sizeof(b), "PE %d (parent PE %d): start 1 stride 1 size 1", 2 * (en - 1), en - 1);
        CHECK_CONTAINS(msg, "PE 0 (parent PE 0): start 0 stride 1 size 1");
        CHECK_CONTAINS(msg, b);
        /* Different calls on a team: sync against barrier. */
        CHECK_STATUS(em == en - 1 ? shoal_team_barrier(even) : shoal_team_sync(even), SHOAL_ERR_NOT_SYMMETRIC, sh);
        msg = shoal_last_error(sh);
        if (em == 0) check_note("call mismatch: %s", msg);
        snprintf(b, sizeof(b), "PE %d (team PE %d): shoal_team_barrier", 2 * (en - 1), en - 1);
        CHECK_CONTAINS(msg, "PE 0 (team PE 0): shoal_team_sync");
        CHECK_CONTAINS(msg, b);
        /* The team still works. */
        check_meetings(sh, even, 8, en - 1);
    }
    if (even != SHOAL_TEAM_INVALID) CHECK_OK(shoal_team_destroy(even), sh);
    /* The world still works, and makes teams. */
    CHECK_OK(shoal_team_barrier(w), sh);
    t = split_check(sh, w, 0, 1, npes);
    check_meetings(sh, t, 9, 0);
    CHECK_OK(shoal_team_destroy(t), sh);
    if (me == 0) check_note("mismatches passed");
}

/* ------------------------------------------------------------ timeout */

/* On team t (SHOAL_TEAM_INVALID where this PE is not a member), the member
 * absent (a world PE) skips a sync: the others time out, naming it where it
 * shares their node; the team is broken; absent, coming late, fails at
 * once saying the others gave up; every member destroys the team. */
static void timeout_case(shoal_t sh, shoal_team_t t, int absent)
{
    shoal_team_t w = shoal_team_world(sh);
    int absent_team = shoal_team_translate_pe(w, absent, t);
    double t0, dt;
    const char *msg;
    char who[64];

    CHECK_OK(shoal_team_sync(w), sh);
    if (t != SHOAL_TEAM_INVALID) CHECK_OK(shoal_team_sync(t), sh);
    if (t != SHOAL_TEAM_INVALID && me != absent) {
        t0 = MPI_Wtime();
        CHECK_STATUS(shoal_team_sync(t), SHOAL_ERR_TIMEOUT, sh);
        dt = MPI_Wtime() - t0;
        msg = shoal_last_error(sh);
        check_note("team timeout after %.2f s: %s", dt, msg);
        CHECK_MSG(dt > 0.9 && dt < 8, "shoal_team_sync gave up after %.2f s (SHOAL_TIMEOUT=1)", dt);
        CHECK_CONTAINS(msg, "shoal_team_sync");
        CHECK_CONTAINS(msg, "timed out after 1 s");
        if (node_of[me] == node_of[absent]) {
            snprintf(who, sizeof(who), "waiting for PE %d (team PE %d)", absent, absent_team);
            CHECK_CONTAINS(msg, who);
        } else {
            CHECK_CONTAINS(msg, "on the team's other 1 node");
        }
        /* Broken: the next meeting fails at once. */
        t0 = MPI_Wtime();
        CHECK_ERR(shoal_team_sync(t), SHOAL_ERR_TIMEOUT, sh, "only shoal_team_destroy");
        CHECK_MSG(MPI_Wtime() - t0 < 0.5, "a sync on a broken team took %.2f s", MPI_Wtime() - t0);
        CHECK_ERR(shoal_int_sum_reduce(t, (int *)box, (int *)box + 1, 1), SHOAL_ERR_TIMEOUT, sh, "failed midway");
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the absent PE comes late */
    if (me == absent) {
        t0 = MPI_Wtime();
        CHECK_STATUS(shoal_team_sync(t), SHOAL_ERR_TIMEOUT, sh);
        msg = shoal_last_error(sh);
        check_note("late: %s", msg);
        CHECK_CONTAINS(msg, "cannot complete shoal_team_sync");
        CHECK_CONTAINS(msg, "the other members gave up on it");
        CHECK_MSG(MPI_Wtime() - t0 < 0.5, "the late PE's sync took %.2f s after the others gave up", MPI_Wtime() - t0);
    }
    /* Each member lets its handle go (the team is out of step: the call
     * says so), and nothing else is broken. */
    if (t != SHOAL_TEAM_INVALID) CHECK_STATUS(shoal_team_destroy(t), SHOAL_ERR_TIMEOUT, sh);
    CHECK_OK(shoal_team_sync(w), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
}

static int run_timeout(void)
{
    shoal_t sh;
    shoal_team_t w, t;

    if (!test_init_timeout_or_skip(1u << 20, &sh)) return TEST_SKIP;
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    w = shoal_team_world(sh);
    box = shoal_calloc(sh, NBOX, sizeof(long));
    CHECK_NONNULL(box, sh);
    if (npes < 2) {
        CHECK_OK(shoal_free(sh, box), sh);
        CHECK_OK(shoal_finalize(sh), NULL);
        check_note("a timeout needs 2 PEs: skipped");
        return TEST_SKIP;
    }
    /* The last PE, not its node's first, skips a sync of a team of every
     * PE but PE 0 (of every PE where there are 2): team numbers differ
     * from world numbers. */
    timeout_case(sh, split_check(sh, w, npes > 2 ? 1 : 0, 1, npes > 2 ? npes - 1 : npes), npes - 1);
    /* PE 0, its node's first (the members' leader), skips one. */
    timeout_case(sh, split_check(sh, w, 0, 1, npes), 0);
    /* A new team works. */
    t = split_check(sh, w, 0, 1, npes);
    check_meetings(sh, t, 0, npes - 1);
    CHECK_OK(shoal_team_destroy(t), sh);
    CHECK_OK(shoal_free(sh, box), sh);
    if (me == 0) check_note("team timeouts passed on %d PEs", npes);
    CHECK_OK(shoal_finalize(sh), NULL);
    return 0;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    test_config(&cfg, 1u << 20);
    node_of = malloc(sizeof(int) * (size_t)npes);
    CHECK(node_of != NULL);
    test_expected_nodes(MPI_COMM_WORLD, cfg.node_size, node_of);
    if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
        rc = run_timeout();
        free(node_of);
        MPI_Finalize();
        return rc;
    }
    if (cfg.timeout == 0 || cfg.timeout > 30) cfg.timeout = 30; /* a lost member: an error, not a hang */
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    box = shoal_calloc(sh, NBOX, sizeof(long));
    CHECK_NONNULL(box, sh);

    test_world_node(sh);
    test_strided(sh);
    test_2d(sh);
    test_life(sh);
    test_mismatch(sh);

    CHECK_OK(shoal_free(sh, box), sh);
    if (me == 0) check_note("teams passed on %d PEs", npes);
    CHECK_OK(shoal_finalize(sh), NULL);
    free(node_of);
    MPI_Finalize();
    return 0;
}
