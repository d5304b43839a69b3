/*
 * Threads of one PE.
 *
 * test_threads multiple: MPI_THREAD_MULTIPLE; THREADS pthreads per PE each
 * own a disjoint region and, for ROUNDS rounds, put a fresh pattern into its
 * own slot of the right neighbour's heap (blocking put, put_nbi, or p per
 * element), get another thread's stable region of the left neighbour and
 * check it, and quiet now and then, all at once with the other threads.
 * Every thread also makes a bad call each round and must read its own
 * message back. After a barrier every byte of every slot is checked: nothing
 * was lost. With SHOAL_CHECK=full, a collective entered by a second thread
 * while one is inside a collective is SHOAL_ERR_THREAD.
 *
 * test_threads serialized | funneled: below MPI_THREAD_MULTIPLE, with
 * SHOAL_CHECK=full, a call from a second thread while the main thread is
 * inside a barrier (serialized), or any call from a thread other than the
 * main one (funneled), is SHOAL_ERR_THREAD with a message naming the level.
 *
 * With SHOAL_HEAP_KIND=gpu the same runs on GPU heaps, through whichever
 * transport the settings give (cuda_ipc; staged with SHOAL_TRANSPORT_DISABLE=
 * cuda_ipc; staged over MPI with SHOAL_NODE_SIZE=1); skipped without a GPU.
 *
 * Also under MPI_THREAD_MULTIPLE: every thread of every PE adds to one
 * counter on PE 0 and one on its right neighbour with blocking and _nbi
 * fetching atomics and plain adds, all at once; the totals are exact and
 * the tickets drawn from PE 0's counter are all different.
 *
 * And: while the main thread allocates and frees
 * (collectives that change the allocator's table, in a hole just before the
 * buffer in use), the other threads' puts and gets into that buffer all
 * succeed and move the right bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { THREADS = 4, ROUNDS = 60, CHUNK = 1024, STABLE = 4096 };

static shoal_t sh;
static int me, npes, right, left;
static unsigned char *recv_buf; /* [THREADS][ROUNDS][CHUNK]: slots the left neighbour fills */
static unsigned char *stable;   /* [THREADS][STABLE]: written once, read by the right neighbour */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static unsigned char *slot(int t, int r) { return recv_buf + ((size_t)t * ROUNDS + (size_t)r) * CHUNK; }

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg, bad_pe = npes + 100 + t;
    unsigned char *src = malloc((size_t)ROUNDS * CHUNK), *got = malloc(STABLE), *expect = malloc(STABLE);
    char want[48];

    CHECK(src && got && expect);
    snprintf(want, sizeof(want), "pe %d is out of range", bad_pe);
    for (int r = 0; r < ROUNDS; r++) {
        unsigned char *s = src + (size_t)r * CHUNK; /* put_nbi sources stay untouched until the end */
        int other = (t + r) % THREADS, kind = r % 3;

        test_pattern(s, 0, CHUNK, (uint64_t)r, (uint64_t)me, (uint64_t)t);
        if (kind == 0) {
            CHECK_OK(shoal_put(sh, slot(t, r), s, CHUNK, right), sh);
        } else if (kind == 1) {
            CHECK_OK(shoal_put_nbi(sh, slot(t, r), s, CHUNK, right), sh);
        } else {
            const uint64_t *w = (const uint64_t *)s;
            for (int i = 0; i < CHUNK / 8; i++)
                CHECK_OK(shoal_uint64_p(sh, (uint64_t *)slot(t, r) + i, w[i], right), sh);
        }
        /* a stable region of the left neighbour, written by another thread */
        CHECK_OK(shoal_get(sh, got, stable + (size_t)other * STABLE, STABLE, left), sh);
        test_pattern(expect, 0, STABLE, 7777, (uint64_t)left, (uint64_t)other);
        CHECK_MSG(check_first_diff(got, expect, STABLE) < 0, "thread %d round %d: get of pe %d's region %d differs", t,
                  r, left, other);
        /* my own error, whatever the other threads do meanwhile */
        CHECK_STATUS(shoal_put(sh, slot(t, r), s, 8, bad_pe), SHOAL_ERR_PE, sh);
        CHECK_CONTAINS(shoal_last_error(sh), want);
        if (r % 4 == 3) CHECK_OK(shoal_quiet(sh), sh);
    }
    CHECK_OK(shoal_quiet(sh), sh);
    free(src);
    free(got);
    free(expect);
    return NULL;
}

/* A second thread enters while the main thread waits in a barrier that PE 1
 * joins late. Returns what the second thread's call returned. */
typedef struct {
    atomic_int main_in; /* the main thread is about to enter the barrier */
    int status;
    char msg[1024];
    int (*call)(void);
    shoal_t inst; /* whose last error to keep (NULL: sh) */
} intruder_t;

static intruder_t intruder;

static int call_sync_all(void) { return shoal_sync_all(sh); }
static int call_put(void)
{
    int v = 1;
    return shoal_int_put(sh, (int *)recv_buf, &v, 1, me);
}
static int call_quiet(void) { return shoal_quiet(sh); }
static shoal_t sh2; /* a second instance (serialized mode) */
static char *sh2_buf;
static int call_put_sh2(void)
{
    int v = 1;
    return shoal_int_put(sh2, (int *)sh2_buf, &v, 1, me);
}

static void *intrude(void *arg)
{
    (void)arg;
    while (!atomic_load(&intruder.main_in)) sleep_ms(1);
    sleep_ms(300); /* the main thread is inside the barrier by now */
    intruder.status = intruder.call();
    snprintf(intruder.msg, sizeof(intruder.msg), "%s", shoal_last_error(intruder.inst ? intruder.inst : sh));
    return NULL;
}

static void run_intruder(int (*call)(void))
{
    pthread_t th;

    intruder.call = call;
    atomic_store(&intruder.main_in, 0);
    intruder.status = 1;
    if (me == 0) CHECK(pthread_create(&th, NULL, intrude, NULL) == 0);
    if (me == 1) sleep_ms(1200);
    atomic_store(&intruder.main_in, 1);
    CHECK_OK(shoal_barrier_all(sh), sh);
    if (me == 0) CHECK(pthread_join(th, NULL) == 0);
}

static void test_multiple(void)
{
    pthread_t th[THREADS];
    unsigned char *expect = malloc(CHUNK);
    shoal_config_t cfg;

    CHECK(expect != NULL);
    for (int t = 0; t < THREADS; t++) {
        unsigned char *p = malloc(STABLE);
        CHECK(p != NULL);
        test_pattern(p, 0, STABLE, 7777, (uint64_t)me, (uint64_t)t);
        test_heap_write(sh, stable + (size_t)t * STABLE, p, STABLE);
        free(p);
    }
    test_heap_fill(sh, recv_buf, 0, (size_t)THREADS * ROUNDS * CHUNK);
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int t = 0; t < THREADS; t++) CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++) CHECK(pthread_join(th[t], NULL) == 0);
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int t = 0; t < THREADS; t++) {
        for (int r = 0; r < ROUNDS; r++) {
            unsigned char got[CHUNK];
            long long diff;
            test_heap_read(sh, got, slot(t, r), CHUNK);
            test_pattern(expect, 0, CHUNK, (uint64_t)r, (uint64_t)left, (uint64_t)t);
            diff = check_first_diff(got, expect, CHUNK);
            CHECK_MSG(diff < 0, "thread %d of pe %d, round %d (%s): byte %lld lost", t, left, r,
                      r % 3 == 0   ? "put"
                      : r % 3 == 1 ? "put_nbi"
                                   : "p",
                      diff);
        }
    }
    free(expect);
    if (me == 0)
        check_note("%d threads x %d rounds x %d bytes per PE arrived intact on %d PEs", THREADS, ROUNDS, CHUNK, npes);

    shoal_config_init(&cfg);
    if (cfg.check == SHOAL_CHECK_FULL && npes >= 2) {
        run_intruder(call_sync_all);
        if (me == 0) {
            CHECK_STATUS(intruder.status, SHOAL_ERR_THREAD, NULL);
            CHECK_CONTAINS(intruder.msg, "shoal_sync_all");
            CHECK_CONTAINS(intruder.msg, "inside a collective (shoal_barrier_all)");
        }
        /* puts from another thread during a collective are allowed */
        run_intruder(call_put);
        if (me == 0) CHECK_EQ_INT(intruder.status, SHOAL_SUCCESS);
    }
}

/* Atomics from every thread at once. */
enum { AMO_ROUNDS = 100 };
static long long *amo_words;                       /* [0]: PE 0's ticket counter, [1]: the right neighbour's sum */
static long long amo_tickets[THREADS][AMO_ROUNDS]; /* this PE's draws from PE 0's counter */

static void *amo_worker(void *arg)
{
    int t = (int)(intptr_t)arg, rounds = shoal_heap_kind(sh) == SHOAL_HEAP_GPU ? AMO_ROUNDS / 4 : AMO_ROUNDS;
    long long nbi[AMO_ROUNDS];

    for (int r = 0; r < rounds; r++) {
        if (r % 2 == 0) {
            CHECK_OK(shoal_longlong_atomic_fetch_inc(sh, &amo_words[0], 0, &amo_tickets[t][r]), sh);
        } else {
            CHECK_OK(shoal_longlong_atomic_fetch_inc_nbi(sh, &amo_words[0], 0, &nbi[r]), sh);
        }
        CHECK_OK(shoal_longlong_atomic_add(sh, &amo_words[1], (long long)t + 1, right), sh);
    }
    CHECK_OK(shoal_quiet(sh), sh); /* the _nbi tickets are in */
    for (int r = 1; r < rounds; r += 2) amo_tickets[t][r] = nbi[r];
    return NULL;
}

static void test_atomics(void)
{
    pthread_t th[THREADS];
    int rounds = shoal_heap_kind(sh) == SHOAL_HEAP_GPU ? AMO_ROUNDS / 4 : AMO_ROUNDS;
    long long words[2], sum = 0;
    long long *all = malloc(sizeof(long long) * (size_t)npes * THREADS * AMO_ROUNDS);
    char *seen;

    CHECK(all != NULL);
    amo_words = shoal_calloc(sh, 2, sizeof(long long));
    CHECK_NONNULL(amo_words, sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int t = 0; t < THREADS; t++) CHECK(pthread_create(&th[t], NULL, amo_worker, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < THREADS; t++) CHECK(pthread_join(th[t], NULL) == 0);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, words, amo_words, sizeof(words));
    for (int t = 0; t < THREADS; t++) sum += (long long)(t + 1) * rounds;
    CHECK_MSG(words[1] == sum, "pe %d: %d threads of pe %d added %lld, expected %lld", me, THREADS, left, words[1],
              sum);
    if (me == 0)
        CHECK_MSG(words[0] == (long long)npes * THREADS * rounds, "PE 0's counter %lld after %d draws", words[0],
                  npes * THREADS * rounds);
    /* Every draw from PE 0's counter is a different ticket. */
    for (int t = 0; t < THREADS; t++)
        for (int r = 0; r < rounds; r++)
            all[((size_t)me * THREADS + (size_t)t) * (size_t)rounds + (size_t)r] = amo_tickets[t][r];
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, THREADS * rounds, MPI_LONG_LONG, MPI_COMM_WORLD);
    seen = calloc((size_t)npes * THREADS * (size_t)rounds, 1);
    CHECK(seen != NULL);
    for (size_t i = 0; i < (size_t)npes * THREADS * (size_t)rounds; i++) {
        CHECK_MSG(all[i] >= 0 && all[i] < (long long)npes * THREADS * rounds && !seen[all[i]],
                  "ticket %lld drawn twice or out of range", all[i]);
        seen[all[i]] = 1;
    }
    free(seen);
    free(all);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, amo_words), sh);
    if (me == 0)
        check_note("atomics: %d threads x %d rounds per PE on %d PEs: totals exact, every ticket different", THREADS,
                   rounds, npes);
}

static atomic_int race_stop, race_errors;
static int *race_buf; /* [THREADS][64] */

static void *race_worker(void *arg)
{
    int t = (int)(intptr_t)arg, src[64], got[64];
    for (int i = 0; i < 64; i++) src[i] = me * 1000 + t * 64 + i;
    do { /* once at least: the main thread may be done before this starts */
        int *d = race_buf + 64 * t;
        bool ok = shoal_int_put(sh, d, src, 64, right) == SHOAL_SUCCESS &&
                  shoal_int_put_nbi(sh, d, src, 64, right) == SHOAL_SUCCESS && shoal_quiet(sh) == SHOAL_SUCCESS &&
                  shoal_int_get(sh, got, d, 64, right) == SHOAL_SUCCESS && memcmp(got, src, sizeof(got)) == 0;
        if (!ok && atomic_fetch_add(&race_errors, 1) == 0)
            fprintf(stderr, "[pe %d] thread %d: %s\n", me, t, shoal_last_error(sh));
    } while (!atomic_load(&race_stop));
    return NULL;
}

static void test_alloc_race(void)
{
    pthread_t th[THREADS];
    const char *tp = NULL;
    int far, any_far = 0, rounds;
    void *hole;

    /* Between nodes (mpi_rma) the workers spin in MPI_Win_flush, sharing
     * MPI's lock with the collectives: on an oversubscribed machine each
     * collective then takes tens of ms (README, "Threads"), so fewer rounds. */
    CHECK_OK(shoal_pe_transport(sh, right, &tp), sh);
    far = strcmp(tp, "mpi_rma") == 0;
    MPI_Allreduce(&far, &any_far, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    rounds = any_far ? 4 : 300;
    hole = shoal_malloc(sh, 64 << 10);

    CHECK_NONNULL(hole, sh);
    race_buf = shoal_calloc(sh, THREADS * 64, sizeof(int));
    CHECK_NONNULL(race_buf, sh);
    CHECK_OK(shoal_free(sh, hole), sh);
    for (int t = 0; t < THREADS; t++) CHECK(pthread_create(&th[t], NULL, race_worker, (void *)(intptr_t)t) == 0);
    for (int round = 0; round < rounds; round++) {
        void *p[4];
        for (int k = 0; k < 4; k++) {
            p[k] = shoal_malloc(sh, 128 + 64 * (size_t)k);
            CHECK_NONNULL(p[k], sh);
        }
        for (int k = 0; k < 4; k++) CHECK_OK(shoal_free(sh, p[k]), sh);
    }
    atomic_store(&race_stop, 1);
    for (int t = 0; t < THREADS; t++) CHECK(pthread_join(th[t], NULL) == 0);
    CHECK_EQ_INT(atomic_load(&race_errors), 0);
    CHECK_OK(shoal_barrier_all(sh), sh);
    {
        int got[THREADS * 64];
        test_heap_read(sh, got, race_buf, sizeof(got)); /* a GPU heap is not loadable here */
        for (int t = 0; t < THREADS; t++)
            for (int i = 0; i < 64; i++) CHECK_EQ_INT(got[64 * t + i], left * 1000 + t * 64 + i);
    }
    CHECK_OK(shoal_free(sh, race_buf), sh);
}

static void test_serialized(void)
{
    CHECK_MSG(npes >= 2, "run on 2 PEs or more");
    run_intruder(call_put);
    if (me == 0) {
        CHECK_STATUS(intruder.status, SHOAL_ERR_THREAD, NULL);
        check_note("serialized: %s", intruder.msg);
        CHECK_CONTAINS(intruder.msg, "shoal_int_put");
        CHECK_CONTAINS(intruder.msg, "MPI_THREAD_SERIALIZED");
        CHECK_CONTAINS(intruder.msg, "shoal_barrier_all");
    }
    run_intruder(call_quiet);
    if (me == 0) CHECK_STATUS(intruder.status, SHOAL_ERR_THREAD, NULL);
    /* MPI's rule is per process: a call on another instance is refused too. */
    {
        shoal_config_t cfg;
        test_config(&cfg, 1u << 20);
        cfg.check = SHOAL_CHECK_FULL;
        CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh2), NULL);
        sh2_buf = shoal_malloc(sh2, 64);
        CHECK_NONNULL(sh2_buf, sh2);
        intruder.inst = sh2;
        run_intruder(call_put_sh2);
        intruder.inst = NULL;
        if (me == 0) {
            CHECK_STATUS(intruder.status, SHOAL_ERR_THREAD, NULL);
            CHECK_CONTAINS(intruder.msg, "shoal_int_put");
            CHECK_CONTAINS(intruder.msg, "another thread of this process is inside shoal_barrier_all (on this or "
                                         "another instance)");
        }
        CHECK_OK(shoal_free(sh2, sh2_buf), sh2);
        CHECK_OK(shoal_finalize(sh2), NULL);
    }
    /* one at a time, from any thread, is fine */
    if (me == 0) {
        pthread_t th;
        intruder.call = call_quiet;
        atomic_store(&intruder.main_in, 1);
        CHECK(pthread_create(&th, NULL, intrude, NULL) == 0);
        CHECK(pthread_join(th, NULL) == 0);
        CHECK_EQ_INT(intruder.status, SHOAL_SUCCESS);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
}

/* Also finalize and init from that thread: refused, and nothing changed. */
static int funneled_fin_status, funneled_init_status;
static char funneled_fin_msg[512], funneled_init_msg[512];

static void *funneled_call(void *arg)
{
    shoal_config_t cfg;
    shoal_t other = NULL;

    (void)arg;
    intruder.status = shoal_quiet(sh);
    snprintf(intruder.msg, sizeof(intruder.msg), "%s", shoal_last_error(sh));
    funneled_fin_status = shoal_finalize(sh);
    snprintf(funneled_fin_msg, sizeof(funneled_fin_msg), "%s", shoal_last_error(sh));
    if (npes == 1) { /* init is collective: with one PE only it fails alone */
        test_config(&cfg, 1 << 20);
        cfg.check = SHOAL_CHECK_FULL;
        funneled_init_status = shoal_init(MPI_COMM_WORLD, &cfg, &other);
        snprintf(funneled_init_msg, sizeof(funneled_init_msg), "%s", shoal_last_error(NULL));
    }
    return NULL;
}

static void test_funneled(void)
{
    pthread_t th;
    CHECK(pthread_create(&th, NULL, funneled_call, NULL) == 0);
    CHECK(pthread_join(th, NULL) == 0);
    CHECK_STATUS(intruder.status, SHOAL_ERR_THREAD, NULL);
    if (me == 0) check_note("funneled: %s", intruder.msg);
    CHECK_CONTAINS(intruder.msg, "shoal_quiet");
    CHECK_CONTAINS(intruder.msg, "MPI_THREAD_FUNNELED");
    CHECK_STATUS(funneled_fin_status, SHOAL_ERR_THREAD, NULL);
    CHECK_CONTAINS(funneled_fin_msg, "shoal_finalize");
    if (npes == 1) {
        CHECK_STATUS(funneled_init_status, SHOAL_ERR_THREAD, NULL);
        CHECK_CONTAINS(funneled_init_msg, "only the main thread may call shoal");
    }
    CHECK_OK(shoal_quiet(sh), sh); /* the main thread may, and the instance is alive */
    CHECK_OK(shoal_barrier_all(sh), sh);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "multiple";
    int want = strcmp(mode, "serialized") == 0 ? MPI_THREAD_SERIALIZED
               : strcmp(mode, "funneled") == 0 ? MPI_THREAD_FUNNELED
                                               : MPI_THREAD_MULTIPLE;
    int provided = 0;
    shoal_config_t cfg;

    MPI_Init_thread(&argc, &argv, want, &provided);
    if (provided < want) {
        printf("MPI provides thread level %d < %d: skipped\n", provided, want);
        MPI_Finalize();
        return TEST_SKIP;
    }
    test_config(&cfg, 4u << 20);
    if (want != MPI_THREAD_MULTIPLE) cfg.check = SHOAL_CHECK_FULL;
    if (!test_init_or_skip(&cfg, &sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    recv_buf = shoal_malloc(sh, (size_t)THREADS * ROUNDS * CHUNK);
    stable = shoal_malloc(sh, (size_t)THREADS * STABLE);
    CHECK_NONNULL(recv_buf, sh);
    CHECK_NONNULL(stable, sh);

    if (want == MPI_THREAD_MULTIPLE) {
        test_multiple();
        test_atomics();
        test_alloc_race();
    } else if (want == MPI_THREAD_SERIALIZED)
        test_serialized();
    else
        test_funneled();

    CHECK_OK(shoal_free(sh, stable), sh);
    CHECK_OK(shoal_free(sh, recv_buf), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    if (me == 0) check_note("threads (%s) passed on %d PEs", mode, npes);
    MPI_Finalize();
    return 0;
}
