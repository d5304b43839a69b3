/*
 * Locks (api/shoal.h, "Point-to-point synchronization"): shoal_set_lock,
 * shoal_test_lock and shoal_clear_lock on symmetric longs set to 0.
 *
 * 1. Mutual exclusion: every PE takes two locks in turn many times; under
 *    each it counts itself in the lock's occupancy word on PE 0 (fetch_inc:
 *    it must find 0, and 1 when it leaves), reads a counter on PE 0 with a get, yields, puts counter + 1
 *    and, under the first lock, appends its PE to a log on PE 0: both
 *    counters end exact, every PE appears in the log as often as it took
 *    the lock.
 * 2. First come, first served: one PE holds the lock while the others ask
 *    for it one after another, 40 ms apart; the holder then releases and at
 *    once asks again. The log must read holder, the others in the order
 *    they asked, holder: the releaser does not jump the queue. Every PE is
 *    the holder in turn (up to 4).
 * 3. shoal_test_lock: *got_p 1 on a free lock (then held), 0 on every other
 *    PE while it is held (MPI messages order the PEs), 1 again after the
 *    holder clears it.
 * 4. Mistakes: a lock outside the heap (SHOAL_ERR_OUT_OF_BOUNDS), a
 *    misaligned one (SHOAL_ERR_INVALID_ARG, "align"); nothing written.
 *
 * With the argument "timeout" (run with SHOAL_TIMEOUT=1, 2 PEs or more):
 * a PE that waits for a lock another PE keeps gets SHOAL_ERR_TIMEOUT within
 * seconds, naming shoal_set_lock, in a message that is not garbled.
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { STAGGER_MS = 40 };
/* Words of the data block on PE 0. */
enum { D_COUNT0, D_COUNT1, D_OCC0, D_OCC1, D_FIFO, D_LOG };

static int me, npes, host_heap;

/* Pass ms milliseconds inside MPI (polling it): over mpi_rma a request
 * reaches PE 0's queue only as PE 0's MPI makes progress (README, "Locks"),
 * and PE 0 naps here while the others queue up. */
static void nap_ms(long ms)
{
    double end = MPI_Wtime() + (double)ms / 1000;
    while (MPI_Wtime() < end) {
        int flag;
        struct timespec ts = {0, 100000};
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        nanosleep(&ts, NULL);
    }
}

/* Under a lock: append this PE to the log that word `count` of d (on PE 0)
 * counts; returns the entry's position. */
static long log_append(shoal_t sh, long *d, int count, long *logbase)
{
    long n = -1;
    CHECK_OK(shoal_long_g(sh, &n, &d[count], 0), sh);
    CHECK_OK(shoal_long_p(sh, &logbase[n], me, 0), sh);
    CHECK_OK(shoal_long_p(sh, &d[count], n + 1, 0), sh);
    return n;
}

static void test_mutex(shoal_t sh, long *locks, int rounds)
{
    long *d = shoal_calloc(sh, D_LOG + (size_t)rounds * npes, sizeof(long));
    long *img = malloc((D_LOG + (size_t)rounds * npes) * sizeof(long));
    long *per_pe = calloc(npes, sizeof(long));

    CHECK_NONNULL(d, sh);
    CHECK(img != NULL && per_pe != NULL);
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int r = 0; r < 2 * rounds; r++) {
        int which = r % 2;
        long *lock = &locks[which], c = -1, occ = -1;
        CHECK_OK(shoal_set_lock(sh, lock), sh);
        CHECK_OK(shoal_long_atomic_fetch_inc(sh, &d[D_OCC0 + which], 0, &occ), sh);
        CHECK_MSG(occ == 0, "PE %d took lock %d, yet %ld PEs were inside it", me, which, occ);
        CHECK_OK(shoal_long_g(sh, &c, &d[D_COUNT0 + which], 0), sh);
        if (r % 5 == 0) sched_yield(); /* let the others queue up */
        CHECK_OK(shoal_long_p(sh, &d[D_COUNT0 + which], c + 1, 0), sh);
        if (which == 0) log_append(sh, d, D_FIFO, d + D_LOG);
        CHECK_OK(shoal_long_atomic_fetch_add(sh, &d[D_OCC0 + which], -1, 0, &occ), sh);
        CHECK_MSG(occ == 1, "PE %d leaving lock %d found %ld PEs inside it", me, which, occ);
        CHECK_OK(shoal_clear_lock(sh, lock), sh);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    if (me == 0) {
        test_heap_read(sh, img, d, (D_LOG + (size_t)rounds * npes) * sizeof(long));
        CHECK_MSG(img[D_COUNT0] == (long)rounds * npes && img[D_COUNT1] == (long)rounds * npes,
                  "counters under the locks: %ld and %ld, expected %ld each", img[D_COUNT0], img[D_COUNT1],
                  (long)rounds * npes);
        CHECK_EQ_INT(img[D_OCC0], 0);
        CHECK_EQ_INT(img[D_OCC1], 0);
        CHECK_EQ_INT(img[D_FIFO], (long)rounds * npes);
        for (long i = 0; i < (long)rounds * npes; i++) {
            long pe = img[D_LOG + i];
            CHECK_MSG(pe >= 0 && pe < npes, "log entry %ld is %ld", i, pe);
            per_pe[pe]++;
        }
        for (int pe = 0; pe < npes; pe++)
            CHECK_MSG(per_pe[pe] == rounds, "PE %d appears %ld times in the log of lock 0, expected %d", pe, per_pe[pe],
                      rounds);
        check_note("mutual exclusion: %d PEs x %d rounds on two locks", npes, rounds);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, d), sh);
    free(img);
    free(per_pe);
}

/* The holder keeps the lock while the others queue in PE order after it;
 * it releases and asks again: it must come last. */
static void test_fifo(shoal_t sh, long *locks)
{
    long *d = shoal_calloc(sh, D_LOG + (size_t)npes + 1, sizeof(long));
    long img[D_LOG + 5];
    int holders = npes < 4 ? npes : 4;

    CHECK_NONNULL(d, sh);
    if (npes > 4) {
        CHECK_OK(shoal_free(sh, d), sh);
        return;
    }
    for (int h = 0; h < holders; h++) {
        int go = 0;
        long zero[D_LOG + 5] = {0};
        if (me == 0) test_heap_write(sh, d, zero, (D_LOG + (size_t)npes + 1) * sizeof(long));
        CHECK_OK(shoal_barrier_all(sh), sh);
        if (me == h) {
            CHECK_OK(shoal_set_lock(sh, &locks[2]), sh);
            log_append(sh, d, D_FIFO, d + D_LOG);
            go = 1;
        }
        MPI_Bcast(&go, 1, MPI_INT, h, MPI_COMM_WORLD); /* the holder holds it */
        CHECK_EQ_INT(go, 1);
        if (me == h) {
            nap_ms((long)STAGGER_MS * (npes + 1)); /* every other PE asks meanwhile */
            CHECK_OK(shoal_clear_lock(sh, &locks[2]), sh);
            CHECK_OK(shoal_set_lock(sh, &locks[2]), sh);
            log_append(sh, d, D_FIFO, d + D_LOG);
            CHECK_OK(shoal_clear_lock(sh, &locks[2]), sh);
        } else {
            int rank = (me - h - 1 + npes) % npes; /* 0 for the PE after the holder */
            nap_ms((long)STAGGER_MS * (rank + 1) - STAGGER_MS / 2);
            CHECK_OK(shoal_set_lock(sh, &locks[2]), sh);
            log_append(sh, d, D_FIFO, d + D_LOG);
            CHECK_OK(shoal_clear_lock(sh, &locks[2]), sh);
        }
        CHECK_OK(shoal_barrier_all(sh), sh);
        if (me == 0) {
            char seq[64] = "", expect[64] = "";
            int ok = 1;
            test_heap_read(sh, img, d, (D_LOG + (size_t)npes + 1) * sizeof(long));
            CHECK_EQ_INT(img[D_FIFO], npes + 1);
            for (int i = 0; i <= npes; i++) {
                long e = i == npes ? h : (h + i) % npes;
                snprintf(seq + strlen(seq), sizeof(seq) - strlen(seq), " %ld", img[D_LOG + i]);
                snprintf(expect + strlen(expect), sizeof(expect) - strlen(expect), " %ld", e);
                if (img[D_LOG + i] != e) ok = 0;
            }
            CHECK_MSG(ok, "lock queue with PE %d holding, the others asking in turn %d ms apart: order%s, expected%s",
                      h, STAGGER_MS, seq, expect);
        }
        CHECK_OK(shoal_barrier_all(sh), sh);
    }
    if (me == 0) check_note("first come, first served: %d holders on %d PEs", holders, npes);
    CHECK_OK(shoal_free(sh, d), sh);
}

static void test_trylock(shoal_t sh, long *locks)
{
    long *lock = &locks[3];
    int got = -1;

    if (npes == 1) {
        CHECK_OK(shoal_test_lock(sh, lock, &got), sh);
        CHECK_EQ_INT(got, 1);
        CHECK_OK(shoal_clear_lock(sh, lock), sh);
        got = -1;
        CHECK_OK(shoal_test_lock(sh, lock, &got), sh);
        CHECK_EQ_INT(got, 1);
        CHECK_OK(shoal_clear_lock(sh, lock), sh);
        CHECK_OK(shoal_set_lock(sh, lock), sh);
        CHECK_OK(shoal_clear_lock(sh, lock), sh);
        return;
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int h = 0; h < 2; h++) {
        /* h takes the free lock */
        if (me == h) {
            got = -1;
            CHECK_OK(shoal_test_lock(sh, lock, &got), sh);
            CHECK_MSG(got == 1, "shoal_test_lock on a free lock: got %d", got);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        /* every other PE finds it held */
        if (me != h) {
            got = -1;
            CHECK_OK(shoal_test_lock(sh, lock, &got), sh);
            CHECK_MSG(got == 0, "shoal_test_lock while PE %d holds the lock: got %d", h, got);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == h) CHECK_OK(shoal_clear_lock(sh, lock), sh);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    /* Free again: PE 1 takes it with test_lock, PE 0 then waits in set_lock. */
    if (me == 1) {
        got = -1;
        CHECK_OK(shoal_test_lock(sh, lock, &got), sh);
        CHECK_EQ_INT(got, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) {
        nap_ms(20);
        CHECK_OK(shoal_clear_lock(sh, lock), sh);
    }
    if (me == 0) {
        CHECK_OK(shoal_set_lock(sh, lock), sh);
        CHECK_OK(shoal_clear_lock(sh, lock), sh);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    if (me == 0) check_note("shoal_test_lock: free, held elsewhere, free again");
}

static void bad_input(shoal_t sh, long *locks)
{
    long local = 0, img[4];
    long *mis = (long *)((char *)&locks[4] + 1);
    int got = -1;

    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_ERR(shoal_set_lock(sh, &local), SHOAL_ERR_OUT_OF_BOUNDS, sh, "shoal_set_lock");
    check_note("stack lock: %s", shoal_last_error(sh));
    CHECK_ERR(shoal_test_lock(sh, &local, &got), SHOAL_ERR_OUT_OF_BOUNDS, sh, "shoal_test_lock");
    CHECK_ERR(shoal_clear_lock(sh, &local), SHOAL_ERR_OUT_OF_BOUNDS, sh, "shoal_clear_lock");
    CHECK_EQ_INT(local, 0);
    CHECK_EQ_INT(got, -1); /* nothing written on error */
    /* A clear by a PE that does not hold the lock, while PE 0 holds it, and
     * a second set by the holder: refused, the holder undisturbed. */
    if (me == 0) CHECK_OK(shoal_set_lock(sh, &locks[5]), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    if (me != 0) {
        CHECK_ERR(shoal_clear_lock(sh, &locks[5]), SHOAL_ERR_INVALID_ARG, sh, "does not hold");
        check_note("stray clear: %s", shoal_last_error(sh));
        CHECK_OK(shoal_test_lock(sh, &locks[5], &got), sh);
        CHECK_EQ_INT(got, 0);
    } else {
        CHECK_ERR(shoal_set_lock(sh, &locks[5]), SHOAL_ERR_INVALID_ARG, sh, "already holds");
        CHECK_ERR(shoal_test_lock(sh, &locks[5], &got), SHOAL_ERR_INVALID_ARG, sh, "already holds");
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    if (me == 0) CHECK_OK(shoal_clear_lock(sh, &locks[5]), sh);
    CHECK_ERR(shoal_clear_lock(sh, &locks[5]), SHOAL_ERR_INVALID_ARG, sh, "does not hold"); /* twice, or never */
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_ERR(shoal_set_lock(sh, mis), SHOAL_ERR_INVALID_ARG, sh, "align");
    check_note("misaligned lock: %s", shoal_last_error(sh));
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_set_lock");
    CHECK_ERR(shoal_test_lock(sh, mis, &got), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_clear_lock(sh, mis), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, img, &locks[4], sizeof(img));
    for (int i = 0; i < 4; i++) CHECK_MSG(img[i] == 0, "refused lock calls wrote word %d: %ld", 4 + i, img[i]);
    CHECK_OK(shoal_barrier_all(sh), sh); /* every PE read before any takes the lock below */
    /* The locks still work. */
    CHECK_OK(shoal_set_lock(sh, &locks[4]), sh);
    CHECK_OK(shoal_clear_lock(sh, &locks[4]), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
}

static int run_timeout(void)
{
    shoal_t sh;
    long *lock;
    double t0, dt;

    if (!test_init_timeout_or_skip(1u << 20, &sh)) return TEST_SKIP;
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    lock = shoal_calloc(sh, 2, sizeof(long));
    CHECK_NONNULL(lock, sh);
    if (npes >= 2) {
        if (me == 0) CHECK_OK(shoal_set_lock(sh, lock), sh);
        MPI_Barrier(MPI_COMM_WORLD);
        if (me == 1) {
            t0 = MPI_Wtime();
            CHECK_STATUS(shoal_set_lock(sh, lock), SHOAL_ERR_TIMEOUT, sh);
            dt = MPI_Wtime() - t0;
            check_note("set_lock timed out after %.2f s: %s", dt, shoal_last_error(sh));
            CHECK_MSG(dt >= 0.9 && dt <= 6, "shoal_set_lock gave up after %.2f s, expected about 1 s", dt);
            CHECK_CONTAINS(shoal_last_error(sh), "shoal_set_lock");
            {
                /* One story, told once: the message does not hold a copy of its own start. */
                const char *msg = shoal_last_error(sh);
                char head[41];
                snprintf(head, sizeof(head), "%s", msg);
                CHECK_MSG(strlen(msg) > 40 && strstr(msg + 1, head) == NULL,
                          "the set_lock timeout message repeats its own start (overwritten while formatted?): \"%s\"",
                          msg);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
        /* The queue is broken: PE 0 keeps the lock to the end. */
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    return 0;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    long *locks;
    int rc;

    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
        rc = run_timeout();
        MPI_Finalize();
        return rc;
    }
    test_config(&cfg, 1u << 20);
    if (cfg.timeout == 0 || cfg.timeout > 30) cfg.timeout = 30; /* a lost hand-over: an error, not a hang */
    if (!test_init_or_skip(&cfg, &sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    host_heap = test_heap_is_host(sh);
    locks = shoal_calloc(sh, 8, sizeof(long));
    CHECK_NONNULL(locks, sh);
    CHECK_OK(shoal_barrier_all(sh), sh);

    test_mutex(sh, locks, host_heap ? 40 : 8);
    test_fifo(sh, locks);
    test_trylock(sh, locks);
    bad_input(sh, locks);

    CHECK_OK(shoal_free(sh, locks), sh);
    if (me == 0) check_note("locks passed on %d PEs (%s heap)", npes, host_heap ? "host" : "GPU");
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
