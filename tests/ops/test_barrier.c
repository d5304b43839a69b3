/*
 * Barrier visibility, over many rounds: every PE puts the round's data into
 * its right neighbour (put, put_nbi without quiet, element-wise p; every 5th
 * round also 512 KiB with put_nbi; now and then after a late PE sleeps), then
 * shoal_barrier_all (or shoal_quiet + shoal_sync_all), and checks that its own
 * heap holds its left neighbour's data of this very round.
 *
 * Then shoal_fence: put A, fence, put a flag; after a barrier both are there,
 * and where the neighbour is reached through shared memory the receiver polls
 * the flag without any barrier and must then find A already in place.
 *
 * Usage: test_barrier [rounds]   (default 300)
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { SMALL_N = 32, BIG = 512 * 1024, FENCE_N = 1024 };

static shoal_t sh;
static int me, npes, right, left;

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int small_value(int round, int pe, int i) { return round * 100000 + pe * 100 + i + 1; }

static void test_rounds(int rounds)
{
    int *small = shoal_malloc(sh, 2 * SMALL_N * sizeof(int)); /* [slot][i] */
    unsigned char *big = shoal_malloc(sh, 2 * BIG);
    int src_small[2][SMALL_N], got_small[SMALL_N];
    unsigned char *src_big = malloc(2 * BIG), *got_big = malloc(BIG), *expect_big = malloc(BIG);
    int late_rounds = 0;

    CHECK_NONNULL(small, sh);
    CHECK_NONNULL(big, sh);
    CHECK(src_big && got_big && expect_big);
    test_heap_fill(sh, small, 0, 2 * SMALL_N * sizeof(int));
    CHECK_OK(shoal_barrier_all(sh), sh);

    for (int r = 0; r < rounds; r++) {
        /* Double buffering: my left neighbour's round r+1 puts land in the
         * other slot while I check this one; its round r+2 puts wait for
         * barrier r+1, which I reach only after checking. */
        int slot = r % 2, kind = r % 3, with_big = r % 5 == 0, late = r % 37 == 5;
        int use_sync = r % 4 == 3;
        int *dst = small + slot * SMALL_N;

        if (late && me == (r / 37) % npes) {
            sleep_ms(20); /* everyone else waits in the barrier for my puts */
            late_rounds++;
        }
        for (int i = 0; i < SMALL_N; i++) src_small[slot][i] = small_value(r, me, i);
        if (kind == 0) {
            CHECK_OK(shoal_int_put(sh, dst, src_small[slot], SMALL_N, right), sh);
        } else if (kind == 1) {
            CHECK_OK(shoal_int_put_nbi(sh, dst, src_small[slot], SMALL_N, right), sh);
        } else {
            for (int i = 0; i < SMALL_N; i++) CHECK_OK(shoal_int_p(sh, dst + i, src_small[slot][i], right), sh);
        }
        if (with_big) {
            test_pattern(src_big + slot * BIG, 0, BIG, (uint64_t)r, (uint64_t)me, 7);
            CHECK_OK(shoal_put_nbi(sh, big + slot * BIG, src_big + slot * BIG, BIG, right), sh);
        }
        if (use_sync) {
            CHECK_OK(shoal_quiet(sh), sh);
            CHECK_OK(shoal_sync_all(sh), sh);
        } else {
            CHECK_OK(shoal_barrier_all(sh), sh);
        }

        test_heap_read(sh, got_small, dst, sizeof(got_small));
        for (int i = 0; i < SMALL_N; i++)
            CHECK_MSG(got_small[i] == small_value(r, left, i), "round %d (%s, %s): [%d] = %d, expected %d from pe %d",
                      r,
                      kind == 0   ? "put"
                      : kind == 1 ? "put_nbi"
                                  : "p",
                      use_sync ? "quiet+sync_all" : "barrier_all", i, got_small[i], small_value(r, left, i), left);
        if (with_big) {
            test_heap_read(sh, got_big, big + slot * BIG, BIG);
            test_pattern(expect_big, 0, BIG, (uint64_t)r, (uint64_t)left, 7);
            long long diff = check_first_diff(got_big, expect_big, BIG);
            CHECK_MSG(diff < 0,
                      "round %d: 512 KiB put_nbi from pe %d not complete after %s: first "
                      "difference at byte %lld",
                      r, left, use_sync ? "quiet+sync_all" : "barrier_all", diff);
        }
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, big), sh);
    CHECK_OK(shoal_free(sh, small), sh);
    free(src_big);
    free(got_big);
    free(expect_big);
    if (me == 0) check_note("%d barrier rounds passed (%d with pe 0 late)", rounds, late_rounds);
}

/* put A, fence, put flag: after a barrier both are there. */
static void test_fence_barrier(void)
{
    enum { K = 20 };
    int *a = shoal_malloc(sh, K * FENCE_N * sizeof(int)), *flag = shoal_malloc(sh, K * sizeof(int));
    int *src = malloc(K * FENCE_N * sizeof(int)), got[FENCE_N], gotflag[K];

    CHECK_NONNULL(a, sh);
    CHECK_NONNULL(flag, sh);
    CHECK(src != NULL);
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < FENCE_N; i++) src[k * FENCE_N + i] = small_value(k, me, i);
        CHECK_OK(shoal_int_put_nbi(sh, a + k * FENCE_N, src + k * FENCE_N, FENCE_N, right), sh);
        CHECK_OK(shoal_fence(sh), sh);
        CHECK_OK(shoal_int_p(sh, flag + k, k + 1, right), sh);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, gotflag, flag, sizeof(gotflag));
    for (int k = 0; k < K; k++) {
        CHECK_EQ_INT(gotflag[k], k + 1);
        test_heap_read(sh, got, a + k * FENCE_N, sizeof(got));
        for (int i = 0; i < FENCE_N; i++)
            CHECK_MSG(got[i] == small_value(k, left, i), "fence batch %d: [%d] = %d, expected %d", k, i, got[i],
                      small_value(k, left, i));
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, flag), sh);
    CHECK_OK(shoal_free(sh, a), sh);
    free(src);
}

/* Does pe reach me through loads and stores (host heap, shm)? */
static int is_shm_pair(int pe)
{
    const char *name = NULL;
    CHECK_OK(shoal_pe_transport(sh, pe, &name), sh);
    return test_heap_is_host(sh) && strcmp(name, "shm") == 0;
}

/*
 * Ordering without a barrier, where it can be observed: the sender puts A,
 * fences, puts the round number into a flag; the receiver spins on its own
 * flag and, once it sees the round, A must already hold that round's data.
 */
static void test_fence_polling(void)
{
    enum { ROUNDS = 200 };
    int send = npes > 1 && is_shm_pair(right), recv = npes > 1 && is_shm_pair(left);
    int *a = shoal_malloc(sh, FENCE_N * sizeof(int)), *flag = shoal_malloc(sh, sizeof(int));
    int src[FENCE_N];
    int polled = 0;

    CHECK_NONNULL(a, sh);
    CHECK_NONNULL(flag, sh);
    test_heap_fill(sh, flag, 0, sizeof(int));
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int r = 1; r <= ROUNDS; r++) {
        if (send) {
            for (int i = 0; i < FENCE_N; i++) src[i] = small_value(r, me, i);
            CHECK_OK(shoal_int_put_nbi(sh, a, src, FENCE_N, right), sh);
            CHECK_OK(shoal_fence(sh), sh);
            CHECK_OK(shoal_int_p(sh, flag, r, right), sh);
        }
        if (recv) {
            volatile int *f = flag;
            double t0 = MPI_Wtime();
            int seen;
            while ((seen = *f) != r) {
                CHECK_MSG(seen == r - 1, "fence polling round %d: flag = %d", r, seen);
                CHECK_MSG(MPI_Wtime() - t0 < 30.0, "fence polling round %d: flag from pe %d never arrived", r, left);
                sched_yield(); /* ranks may outnumber cores */
            }
            atomic_thread_fence(memory_order_acquire);
            for (int i = 0; i < FENCE_N; i++)
                CHECK_MSG(a[i] == small_value(r, left, i),
                          "round %d: flag seen but data put before shoal_fence is not: "
                          "[%d] = %d, expected %d",
                          r, i, a[i], small_value(r, left, i));
            polled++;
        }
        CHECK_OK(shoal_barrier_all(sh), sh); /* the sender reuses A next round */
    }
    CHECK_OK(shoal_free(sh, flag), sh);
    CHECK_OK(shoal_free(sh, a), sh);
    if (me == 0) check_note("fence: %d polled rounds on pe 0 (0 where the left neighbour is not shm)", polled);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    int rounds = argc > 1 ? atoi(argv[1]) : 300;

    MPI_Init(&argc, &argv);
    test_config(&cfg, 4u << 20);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    test_rounds(rounds);
    test_fence_barrier();
    test_fence_polling();

    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
