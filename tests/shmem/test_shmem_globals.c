/*
 * Globals and statics under the OpenSHMEM layer: shmem_init registers the
 * program's data and bss with shoal_register_shared, so that the PEs of a
 * node reach each other's globals with loads and stores, and PEs of other
 * nodes through MPI. Every value crosses PEs and is checked.
 *
 * Which PEs map a PE's globals: itself and the PEs of SHMEM_TEAM_SHARED,
 * unless SHOAL_TRANSPORT_DISABLE names shm (then only itself): shmem_ptr
 * says so for each global used here.
 *
 * 1. Initialized data and statics keep their values through shmem_init;
 *    printf, snprintf, getenv, setenv work after it (stdout and environ
 *    may be copied into the program's bss).
 * 2. RMA on globals and statics: put, get, p, g, iput, iget, put_nbi,
 *    getmem_nbi, to the right neighbour and from every PE.
 * 3. Every atomic kind on the right neighbour's globals (int, long,
 *    uint64 bitwise, double fetch/set/swap; ctx and _nbi forms), each
 *    result checked.
 * 4. Every PE at once on PE 0's global counters (node peers and other
 *    nodes together): fetch_add, inc and add on a global long, fetch_inc
 *    on a function's static: totals exact, fetched values exactly
 *    0 .. n*K-1.
 * 5. put_signal ring with signal_wait_until, an add on a signal word with
 *    signal_fetch; wait_until and wait_until_all on globals set by atomics
 *    and puts; test.
 * 6. A lock (a global long) guarding a counter (a global) on PE 0.
 * 7. shmem_ptr: a store through it into each node peer's global, seen by
 *    that peer after a barrier; NULL for PEs of other nodes (and for every
 *    other PE without shm).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "shmem.h"

#define MAXPE 64
#define K 100

extern char **environ;

static int me, npes, right, left, no_shm;

/* Initialized data and bss, globals and statics. */
long g_init[64] = {11, 22, 33, 44};
static double s_init[8] = {1.5, 2.5, 3.5};
long g_arr[256];
static int s_ints[64];
static char s_bytes[1000];
double g_dbl[4];
int g_int[8];
long g_long[8];
uint64_t g_u64[8];
long g_counter, g_counter_inc, g_counter_add;
long g_fetched[MAXPE * K];
long g_lock, g_locked_count;
uint64_t g_sig[2];
long g_sigdata[2][32];
long g_flags[MAXPE];
long g_slots[MAXPE];

/* Should this PE load and store pe's globals? */
static int mapped(int pe)
{
    if (pe == me) return 1;
    return !no_shm && shmem_team_translate_pe(SHMEM_TEAM_WORLD, pe, SHMEM_TEAM_SHARED) >= 0;
}

static void expect_ptr(const void *p, int pe)
{
    void *q = shmem_ptr(p, pe);
    CHECK_MSG((q != NULL) == (mapped(pe) != 0), "shmem_ptr(%p, PE %d) = %p, expected %s", p, pe, q,
              mapped(pe) ? "a mapping" : "NULL");
    if (pe == me) CHECK_EQ_PTR(q, p);
}

/* 1. Data kept, the C library's variables working. */
static void test_data_and_libc(void)
{
    char buf[64], name[32];
    const char *path = getenv("PATH");

    CHECK_EQ_INT(g_init[0], 11);
    CHECK_EQ_INT(g_init[3], 44);
    CHECK(s_init[2] == 3.5);
    CHECK(printf("[pe %d] printf after shmem_init\n", me) > 0);
    CHECK(fflush(stdout) == 0);
    CHECK(snprintf(buf, sizeof(buf), "%d-%s", me, "x") > 0);
    CHECK_EQ_STR(buf + (me >= 10 ? 3 : 2), "x");
    CHECK(path != NULL && environ != NULL && environ[0] != NULL);
    snprintf(name, sizeof(name), "SHOAL_TEST_GLOBALS_%d", me);
    CHECK(setenv(name, "kept", 1) == 0);
    CHECK_EQ_STR(getenv(name), "kept");
    CHECK(shmem_addr_accessible(g_init, right));
    for (int pe = 0; pe < npes; pe++) {
        expect_ptr(g_init, pe);
        expect_ptr(&s_bytes[999], pe);
        expect_ptr(&g_slots[0], pe);
    }
    shmem_barrier_all();
}

/* 2. RMA. */
static void test_rma(void)
{
    long v[256], got[256];
    int iv[16], ib[16];
    char bytes[1000];

    for (int i = 0; i < 256; i++) v[i] = me * 10000L + i;
    for (int i = 0; i < 256; i++) g_arr[i] = v[i];
    shmem_barrier_all();
    for (int t = 0; t < npes; t++) {
        shmem_long_get(got, g_arr, 256, t);
        for (int i = 0; i < 256; i++) CHECK_EQ_INT(got[i], t * 10000L + i);
    }
    shmem_barrier_all();
    for (int i = 0; i < 256; i++) v[i] = me * 7L + i;
    shmem_long_put(g_arr, v, 128, right);
    shmem_long_put_nbi(g_arr + 128, v + 128, 128, right);
    shmem_long_p(&g_init[10], 5000 + me, right);
    shmem_double_p(&s_init[5], 0.25 * me, right);
    for (int i = 0; i < 1000; i++) bytes[i] = (char)(me * 3 + i);
    shmem_putmem(s_bytes, bytes, 1000, right);
    for (int i = 0; i < 16; i++) iv[i] = me * 100 + i;
    shmem_int_iput(s_ints, iv, 3, 1, 16, right);
    shmem_barrier_all();
    for (int i = 0; i < 256; i++) CHECK_EQ_INT(g_arr[i], left * 7L + i);
    CHECK_EQ_INT(g_init[10], 5000 + left);
    CHECK(s_init[5] == 0.25 * left);
    for (int i = 0; i < 1000; i++) CHECK_EQ_INT(s_bytes[i], (char)(left * 3 + i));
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(s_ints[3 * i], left * 100 + i);
    CHECK_EQ_INT(shmem_long_g(&g_init[10], right), 5000 + me);
    CHECK(shmem_double_g(&s_init[5], right) == 0.25 * me);
    shmem_int_iget(ib, s_ints, 1, 3, 16, right);
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(ib[i], me * 100 + i);
    memset(bytes, 0, sizeof(bytes));
    shmem_getmem_nbi(bytes, s_bytes, 1000, right);
    shmem_quiet();
    for (int i = 0; i < 1000; i++) CHECK_EQ_INT(bytes[i], (char)(me * 3 + i));
    shmem_barrier_all();
}

/* 3. Every atomic kind on the right neighbour's globals. */
static void test_atomic_kinds(void)
{
    int *i = &g_int[1];
    long *l = &g_long[2], lf = 0;
    uint64_t *u = &g_u64[3];
    double *d = &g_dbl[1];

    shmem_int_atomic_set(i, 5, right);
    shmem_quiet();
    CHECK_EQ_INT(shmem_int_atomic_fetch(i, right), 5);
    CHECK_EQ_INT(shmem_int_atomic_swap(i, 6, right), 5);
    CHECK_EQ_INT(shmem_int_atomic_compare_swap(i, 6, 7, right), 6);
    CHECK_EQ_INT(shmem_int_atomic_compare_swap(i, 100, 8, right), 7);
    shmem_int_atomic_inc(i, right);
    CHECK_EQ_INT(shmem_int_atomic_fetch_inc(i, right), 8);
    shmem_int_atomic_add(i, 10, right);
    CHECK_EQ_INT(shmem_int_atomic_fetch_add(i, -1, right), 19);

    shmem_ctx_long_atomic_set(SHMEM_CTX_DEFAULT, l, 1000, right);
    shmem_ctx_long_atomic_add(SHMEM_CTX_DEFAULT, l, 1, right);
    shmem_long_atomic_fetch_add_nbi(&lf, l, 2, right);
    shmem_quiet();
    CHECK_EQ_INT(lf, 1001);
    shmem_long_atomic_fetch_inc_nbi(&lf, l, right);
    shmem_quiet();
    CHECK_EQ_INT(lf, 1003);

    shmem_uint64_atomic_set(u, 0xf0, right);
    shmem_uint64_atomic_and(u, 0x3c, right); /* 0x30 */
    CHECK_EQ_INT(shmem_uint64_atomic_fetch_and(u, 0x10, right), 0x30);
    shmem_uint64_atomic_or(u, 0x101, right); /* 0x111 */
    CHECK_EQ_INT(shmem_uint64_atomic_fetch_or(u, 0x2, right), 0x111);
    shmem_uint64_atomic_xor(u, 0x3, right); /* 0x110 */
    CHECK_EQ_INT(shmem_uint64_atomic_fetch_xor(u, 0x10, right), 0x110);

    shmem_double_atomic_set(d, 2.5, right);
    shmem_quiet();
    CHECK(shmem_double_atomic_fetch(d, right) == 2.5);
    CHECK(shmem_double_atomic_swap(d, -4.0, right) == 2.5);
    shmem_barrier_all();
    CHECK_EQ_INT(*i, 18);
    CHECK_EQ_INT(*l, 1004);
    CHECK_EQ_INT(*u, 0x100);
    CHECK(*d == -4.0);
    shmem_barrier_all();
}

/* A function's static counter: symmetric as every static. */
static long *static_counter(void)
{
    static long count;
    return &count;
}

/* 4. Every PE at once on PE 0's counters. */
static void test_mixed_atomics(void)
{
    long mine[K];

    for (int k = 0; k < K; k++) {
        mine[k] = shmem_long_atomic_fetch_add(&g_counter, 1, 0);
        shmem_long_atomic_inc(&g_counter_inc, 0);
        shmem_long_atomic_add(&g_counter_add, 3, 0);
        (void)shmem_long_atomic_fetch_inc(static_counter(), 0);
    }
    shmem_long_put(&g_fetched[me * K], mine, K, 0);
    shmem_barrier_all();
    if (me == 0) {
        char seen[MAXPE * K];
        CHECK_EQ_INT(g_counter, (long)npes * K);
        CHECK_EQ_INT(g_counter_inc, (long)npes * K);
        CHECK_EQ_INT(g_counter_add, 3L * npes * K);
        CHECK_EQ_INT(*static_counter(), (long)npes * K);
        memset(seen, 0, sizeof(seen));
        for (int j = 0; j < npes * K; j++) {
            long v = g_fetched[j];
            CHECK_MSG(v >= 0 && v < (long)npes * K && !seen[v], "fetched value %ld out of range or twice", v);
            seen[v] = 1;
        }
    }
    shmem_barrier_all();
}

/* 5. Signals and waits. */
static void test_signals_and_waits(void)
{
    long v[32];
    int status[MAXPE];

    for (int round = 1; round <= 4; round++) {
        for (int i = 0; i < 32; i++) v[i] = me * 1000L + round * 32 + i;
        shmem_long_put_signal(g_sigdata[round % 2], v, 32, &g_sig[0], (uint64_t)round, SHMEM_SIGNAL_SET, right);
        CHECK(shmem_signal_wait_until(&g_sig[0], SHMEM_CMP_GE, (uint64_t)round) >= (uint64_t)round);
        for (int i = 0; i < 32; i++) CHECK_EQ_INT(g_sigdata[round % 2][i], left * 1000L + round * 32 + i);
        shmem_barrier_all();
    }
    shmem_uint64_atomic_add(&g_sig[1], 2, 0);
    if (me == 0) {
        shmem_uint64_wait_until(&g_sig[1], SHMEM_CMP_EQ, 2 * (uint64_t)npes);
        CHECK_EQ_INT(shmem_signal_fetch(&g_sig[1]), 2 * npes);
    }
    /* Every PE flags itself at PE 0 (an atomic on some, a put on others). */
    if (me % 2)
        shmem_long_atomic_set(&g_flags[me], 1, 0);
    else
        shmem_long_p(&g_flags[me], 1, 0);
    shmem_quiet();
    if (me == 0) {
        for (int p = 0; p < npes; p++) status[p] = 0;
        shmem_long_wait_until_all(g_flags, (size_t)npes, status, SHMEM_CMP_EQ, 1);
        for (int p = 0; p < npes; p++) CHECK_EQ_INT(g_flags[p], 1);
    }
    shmem_barrier_all();
    CHECK_EQ_INT(shmem_long_test(&g_flags[0], SHMEM_CMP_EQ, 0), me == 0 ? 0 : 1);
    shmem_barrier_all();
}

/* 6. A lock guarding a counter on PE 0. */
static void test_lock(void)
{
    for (int k = 0; k < 20; k++) {
        shmem_set_lock(&g_lock);
        shmem_long_p(&g_locked_count, shmem_long_g(&g_locked_count, 0) + 1, 0);
        shmem_clear_lock(&g_lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK_EQ_INT(g_locked_count, 20L * npes);
    shmem_barrier_all();
}

/* 7. Stores through shmem_ptr into node peers' globals. */
static void test_shmem_ptr(void)
{
    int stored = 0;

    for (int pe = 0; pe < npes; pe++) {
        long *p = shmem_ptr(&g_slots[me], pe);
        expect_ptr(&g_slots[me], pe);
        if (p != NULL) {
            *p = 1000 + me;
            stored++;
        }
    }
    shmem_barrier_all();
    /* PE q stored into this PE's slot q where it maps this PE's globals,
     * which is where this PE maps q's (the same node, shm alike). */
    for (int q = 0; q < npes; q++) CHECK_EQ_INT(g_slots[q], mapped(q) ? 1000 + q : 0);
    if (me == 0) check_note("stored through shmem_ptr into %d of %d PEs' globals", stored, npes);
    shmem_barrier_all();
}

int main(void)
{
    const char *dis;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPE);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    dis = getenv("SHOAL_TRANSPORT_DISABLE");
    no_shm = dis != NULL && strstr(dis, "shm") != NULL;

    test_data_and_libc();
    test_rma();
    test_atomic_kinds();
    test_mixed_atomics();
    test_signals_and_waits();
    test_lock();
    test_shmem_ptr();

    if (me == 0) check_note("globals passed on %d PEs%s", npes, no_shm ? " (shm disabled)" : "");
    shmem_finalize();
    /* The pages are private again, with their contents. */
    CHECK_EQ_INT(g_init[0], 11);
    CHECK(printf("[pe %d] printf after shmem_finalize\n", me) > 0);
    return 0;
}
