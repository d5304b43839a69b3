/*
 * shoal-bench-sync: shoal's point-to-point synchronization (atomics,
 * put_signal with signal waits, locks) against MPI RMA on the same machine,
 * in the same run.
 *
 * Figures (PE 0 drives towards PE 1 unless said otherwise; rank 0 prints):
 *
 *   fetch_add    shoal_int64_atomic_fetch_add to PE 1 (blocking)
 *                vs MPI_Fetch_and_op(MPI_SUM, MPI_INT64_T) + MPI_Win_flush
 *   add          shoal_int64_atomic_add + shoal_quiet
 *                vs MPI_Accumulate(MPI_SUM, MPI_INT64_T) + MPI_Win_flush
 *   ping-pong    PE 0 shoal_put_signal(8 B or 4 KiB, SHOAL_SIGNAL_SET, round)
 *                to PE 1, which waits with shoal_signal_wait_until(GE round)
 *                and answers the same way; half the round trip
 *                vs MPI_Put of the data + flush, MPI_Put of a flag + flush,
 *                the peer polling its flag with MPI_Win_sync, a volatile
 *                load and MPI_Iprobe (for progress), in the same window
 *   lock         shoal_set_lock + shoal_clear_lock, uncontended (the last
 *                PE alone) and contended (every PE), per acquisition
 *                vs MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank 0) + MPI_Win_unlock
 *                on the same window (its lock_all epoch closed meanwhile)
 *
 * The MPI window is one MPI_Win_allocate, locked for all
 * (MPI_Win_lock_all) for the whole run except while the lock figures use it.
 * Each figure is the best of several batches; the batches run in passes
 * over every figure, shoal's and MPI's side by side, so a burst of other
 * work on the machine hits both alike. A slow reference (MPI on
 * oversubscribed cores) runs fewer operations per batch; the count is fixed
 * in a warm-up pass.
 *
 * What is checked, so that no figure times nothing: every fetch_add's old
 * value (PE 0 alone updates the word), the word's total after each batch
 * (fetched by PE 0); every ping-pong message's first and last 8 bytes carry
 * the round the signal announced (the data arrived before the signal); the
 * locks exclude each other: before and after the timed passes, every PE
 * increments a counter on PE 0 with a get and a put under the lock, and the
 * counter ends exact (shoal's lock and MPI's alike).
 *
 * The goal of fetch_add/MPI depends on what carries the host atomics, which
 * the header prints with the transport PE 0 -> PE 1: C11 atomics where
 * every pair is shm (one node) <= 0.2; MPI atomics on shoal's window where
 * some pair is over mpi_rma (SHOAL_NODE_SIZE=1, or several nodes; then for
 * node peers too) <= 1.2.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-sync [--iters N] [--batches N] [--quick]
 *   SHOAL_NODE_SIZE=1 mpiexec -n 2 build/bench/shoal-bench-sync --quick
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define BENCH_PROG "shoal-bench-sync"
#include "bench_host.h"
#include "shoal.h"

#define BENCH_PP_MAX 4096 /* largest ping-pong message */

/* The MPI window's layout (bytes), the same on every rank. */
enum {
    WIN_AMO = 0,   /* int64: MPI_Fetch_and_op / MPI_Accumulate target on rank 1 */
    WIN_LOCK = 8,  /* int64: counter on rank 0 incremented under MPI_Win_lock */
    WIN_FLAG = 16, /* int64: ping-pong flag, written by the peer */
    WIN_DATA = 64, /* BENCH_PP_MAX bytes: ping-pong data, written by the peer */
    WIN_SIZE = WIN_DATA + BENCH_PP_MAX
};

/* What one timed loop does. */
enum {
    OP_SH_FADD,  /* shoal_int64_atomic_fetch_add to PE 1 */
    OP_MPI_FADD, /* MPI_Fetch_and_op + MPI_Win_flush to rank 1 */
    OP_SH_ADD,   /* shoal_int64_atomic_add + shoal_quiet to PE 1 */
    OP_MPI_ADD,  /* MPI_Accumulate + MPI_Win_flush to rank 1 */
    OP_SH_PP,    /* put_signal ping-pong between PE 0 and PE 1 */
    OP_MPI_PP,   /* MPI_Put + flush, flag put + flush, polled flag */
    OP_SH_LOCK1, /* set_lock + clear_lock, the last PE alone */
    OP_MPI_LOCK1,
    OP_SH_LOCKN, /* the same, every PE at once */
    OP_MPI_LOCKN,
    OP_COUNT
};

/* A figure: shoal's op and MPI's on n bytes. */
typedef struct bench_fig {
    const char *name; /* what is measured */
    const char *ref;  /* the MPI reference */
    int ops[2];       /* shoal's, MPI's */
    size_t n;         /* ping-pong bytes (0 for the others) */
    long count[2];    /* ops per batch, fixed in the warm-up pass */
    double best[2];   /* seconds per op of the fastest batch */
    double goal;      /* shoal/MPI at most this; 0: no goal */
} bench_fig_t;

typedef struct bench_opts {
    long iters;     /* operations per batch (at most) */
    int batches;    /* batches per figure; the fastest one counts */
    double batch_s; /* longest a batch should last: slow references run fewer ops */
    long checks;    /* lock acquisitions per PE in each exclusion check */
    int quick;      /* --quick: a smoke test, rough figures */
} bench_opts_t;

typedef struct bench {
    shoal_t sh;
    int me, n_pes;
    int oversubscribed; /* more ranks on this host than cores */
    bench_opts_t o;
    int64_t *amo;            /* symmetric: [0] atomics target (PE 1), [1] lock counter (PE 0) */
    uint64_t *sig;           /* symmetric: ping-pong signal, written by the peer */
    unsigned char *data;     /* symmetric: ping-pong data, written by the peer */
    long *lock;              /* symmetric: shoal's lock */
    unsigned char *src;      /* private: ping-pong source */
    unsigned char *win_mem;  /* the MPI window's memory on this rank */
    MPI_Win win;             /* locked for all, except around the lock figures */
    int64_t sh_amo_next;     /* PE 0: the value shoal's atomics word holds now */
    int64_t mpi_amo_next;    /* PE 0: the same for the window's word */
    uint64_t sh_round;       /* PE 0 and 1: the last ping-pong round through shoal */
    uint64_t mpi_round;      /* and through MPI */
    int64_t lock_increments; /* PE 0: what each lock counter must hold */
} bench_t;

/* Every PE meets here outside the timed loops (bench_meet); the ranks that
 * take no part in the current loop (bystander, 1) sleep between polls when
 * ranks outnumber cores. */
static void bench_sync(const bench_t *b, int bystander) { bench_meet(b->me, b->oversubscribed, bystander); }

/* ------------------------------------------------------------ timed loops */

/* The rank that times op (the others' times are not used), and whether
 * rank me takes part in it. */
static int bench_root(const bench_t *b, int op) { return op == OP_SH_LOCK1 || op == OP_MPI_LOCK1 ? b->n_pes - 1 : 0; }

static int bench_takes_part(const bench_t *b, int op)
{
    switch (op) {
    case OP_SH_PP:
    case OP_MPI_PP: return b->me <= 1;
    case OP_SH_LOCKN:
    case OP_MPI_LOCKN: return 1;
    default: return b->me == bench_root(b, op);
    }
}

static void bench_stamp(unsigned char *buf, size_t n, uint64_t round)
{
    memcpy(buf, &round, 8);
    memcpy(buf + n - 8, &round, 8);
}

/* What arrived with round's signal must carry round at both ends. */
static void bench_check_stamp(const bench_t *b, const char *what, const volatile unsigned char *buf, size_t n,
                              uint64_t round)
{
    uint64_t first, last;
    memcpy(&first, (const void *)buf, 8);
    memcpy(&last, (const void *)(buf + n - 8), 8);
    if (__builtin_expect(first != round || last != round, 0)) {
        char why[192];
        snprintf(why, sizeof(why), "round %llu's %zu bytes not there when its signal was: first word %llu, last %llu",
                 (unsigned long long)round, n, (unsigned long long)first, (unsigned long long)last);
        BENCH_FAIL(b, what, why);
    }
}

/* shoal's ping-pong: count rounds from PE 0 to PE 1 and back. */
static void bench_shoal_pp(bench_t *b, size_t n, long count)
{
    shoal_t sh = b->sh;
    int peer = 1 - b->me;
    uint64_t seen = 0;

    for (long i = 0; i < count; i++) {
        uint64_t round = ++b->sh_round;
        if (b->me == 1) {
            BENCH_SHOAL(b, shoal_signal_wait_until(sh, b->sig, SHOAL_CMP_GE, round, &seen), "shoal_signal_wait_until");
            bench_check_stamp(b, "put_signal ping-pong (PE 0 -> 1)", b->data, n, round);
        }
        bench_stamp(b->src, n, round);
        BENCH_SHOAL(b, shoal_put_signal(sh, b->data, b->src, n, b->sig, round, SHOAL_SIGNAL_SET, peer),
                    "shoal_put_signal");
        if (b->me == 0) {
            BENCH_SHOAL(b, shoal_signal_wait_until(sh, b->sig, SHOAL_CMP_GE, round, &seen), "shoal_signal_wait_until");
            bench_check_stamp(b, "put_signal ping-pong (PE 1 -> 0)", b->data, n, round);
        }
        if (__builtin_expect(seen != round, 0)) {
            char why[96];
            snprintf(why, sizeof(why), "saw %llu, the peer sent %llu", (unsigned long long)seen,
                     (unsigned long long)round);
            BENCH_FAIL(b, "shoal_signal_wait_until's seen value", why);
        }
    }
}

/* Waits until this rank's window flag reaches round. */
static void bench_mpi_wait_flag(const bench_t *b, uint64_t round)
{
    const volatile int64_t *flag = (const volatile int64_t *)(b->win_mem + WIN_FLAG);
    int probed = 0;

    for (;;) {
        BENCH_MPI(b, MPI_Win_sync(b->win), "MPI_Win_sync");
        if ((uint64_t)*flag >= round) break;
        BENCH_MPI(b, MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &probed, MPI_STATUS_IGNORE), "MPI_Iprobe");
    }
}

/* MPI's ping-pong on the window: data, flush, flag, flush. */
static void bench_mpi_pp(bench_t *b, size_t n, long count)
{
    int peer = 1 - b->me;

    for (long i = 0; i < count; i++) {
        int64_t round = (int64_t)++b->mpi_round;
        if (b->me == 1) {
            bench_mpi_wait_flag(b, (uint64_t)round);
            bench_check_stamp(b, "MPI ping-pong (rank 0 -> 1)", b->win_mem + WIN_DATA, n, (uint64_t)round);
        }
        bench_stamp(b->src, n, (uint64_t)round);
        BENCH_MPI(b, MPI_Put(b->src, (int)n, MPI_BYTE, peer, WIN_DATA, (int)n, MPI_BYTE, b->win), "MPI_Put");
        BENCH_MPI(b, MPI_Win_flush(peer, b->win), "MPI_Win_flush");
        BENCH_MPI(b, MPI_Put(&round, 1, MPI_INT64_T, peer, WIN_FLAG, 1, MPI_INT64_T, b->win), "MPI_Put");
        BENCH_MPI(b, MPI_Win_flush(peer, b->win), "MPI_Win_flush");
        if (b->me == 0) {
            bench_mpi_wait_flag(b, (uint64_t)round);
            bench_check_stamp(b, "MPI ping-pong (rank 1 -> 0)", b->win_mem + WIN_DATA, n, (uint64_t)round);
        }
    }
}

/* Runs op count times (on the ranks that take part) between two meetings
 * of every rank; returns the seconds per operation as every rank agrees:
 * the root's time, or the slowest rank's for the contended lock; the
 * ping-pong counts half a round trip, the contended lock divides by every
 * PE's acquisitions. */
static double bench_run(bench_t *b, int op, size_t n, long count)
{
    shoal_t sh = b->sh;
    int part = bench_takes_part(b, op), is_mpi_lock = op == OP_MPI_LOCK1 || op == OP_MPI_LOCKN;
    double t = 0, t0;
    int64_t old = 0, one = 1;

    /* MPI_Win_lock cannot be mixed with the lock_all epoch (opened with
     * MPI_MODE_NOCHECK, which promises no conflicting lock). */
    if (is_mpi_lock) BENCH_MPI(b, MPI_Win_unlock_all(b->win), "MPI_Win_unlock_all");
    bench_sync(b, !part);
    t0 = MPI_Wtime();
    if (part) {
        switch (op) {
        case OP_SH_FADD:
            for (long i = 0; i < count; i++) {
                BENCH_SHOAL(b, shoal_int64_atomic_fetch_add(sh, &b->amo[0], 1, 1, &old),
                            "shoal_int64_atomic_fetch_add");
                if (__builtin_expect(old != b->sh_amo_next++, 0))
                    BENCH_FAIL(b, "shoal_int64_atomic_fetch_add", "returned a wrong old value");
            }
            break;
        case OP_MPI_FADD:
            for (long i = 0; i < count; i++) {
                BENCH_MPI(b, MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, WIN_AMO, MPI_SUM, b->win),
                          "MPI_Fetch_and_op");
                BENCH_MPI(b, MPI_Win_flush(1, b->win), "MPI_Win_flush");
                if (__builtin_expect(old != b->mpi_amo_next++, 0))
                    BENCH_FAIL(b, "MPI_Fetch_and_op", "returned a wrong old value");
            }
            break;
        case OP_SH_ADD:
            for (long i = 0; i < count; i++) {
                BENCH_SHOAL(b, shoal_int64_atomic_add(sh, &b->amo[0], 1, 1), "shoal_int64_atomic_add");
                BENCH_SHOAL(b, shoal_quiet(sh), "shoal_quiet");
            }
            b->sh_amo_next += count;
            break;
        case OP_MPI_ADD:
            for (long i = 0; i < count; i++) {
                BENCH_MPI(b, MPI_Accumulate(&one, 1, MPI_INT64_T, 1, WIN_AMO, 1, MPI_INT64_T, MPI_SUM, b->win),
                          "MPI_Accumulate");
                BENCH_MPI(b, MPI_Win_flush(1, b->win), "MPI_Win_flush");
            }
            b->mpi_amo_next += count;
            break;
        case OP_SH_PP: bench_shoal_pp(b, n, count); break;
        case OP_MPI_PP: bench_mpi_pp(b, n, count); break;
        case OP_SH_LOCK1:
        case OP_SH_LOCKN:
            for (long i = 0; i < count; i++) {
                BENCH_SHOAL(b, shoal_set_lock(sh, b->lock), "shoal_set_lock");
                BENCH_SHOAL(b, shoal_clear_lock(sh, b->lock), "shoal_clear_lock");
            }
            break;
        case OP_MPI_LOCK1:
        case OP_MPI_LOCKN:
            for (long i = 0; i < count; i++) {
                BENCH_MPI(b, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, b->win), "MPI_Win_lock");
                BENCH_MPI(b, MPI_Win_unlock(0, b->win), "MPI_Win_unlock");
            }
            break;
        }
        t = MPI_Wtime() - t0;
    }
    bench_sync(b, !part);
    if (is_mpi_lock) BENCH_MPI(b, MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win), "MPI_Win_lock_all");

    if (op == OP_SH_LOCKN || op == OP_MPI_LOCKN) {
        BENCH_MPI(b, MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
        return t / ((double)count * b->n_pes);
    }
    BENCH_MPI(b, MPI_Bcast(&t, 1, MPI_DOUBLE, bench_root(b, op), MPI_COMM_WORLD), "MPI_Bcast");
    return op == OP_SH_PP || op == OP_MPI_PP ? t / (2.0 * (double)count) : t / (double)count;
}

/* ------------------------------------------------------------ checks */

/* PE 0 reads both atomics words on PE 1 (outside the timed loops): each
 * holds what the fetch_adds and adds so far made it. */
static void bench_check_amo(bench_t *b)
{
    int64_t v = -1, noop = 0;

    if (b->me == 0) {
        BENCH_SHOAL(b, shoal_int64_atomic_fetch(b->sh, &b->amo[0], 1, &v), "shoal_int64_atomic_fetch");
        if (v != b->sh_amo_next) BENCH_FAIL(b, "shoal atomics", "PE 1's word does not hold the total of the adds");
        BENCH_MPI(b, MPI_Fetch_and_op(&noop, &v, MPI_INT64_T, 1, WIN_AMO, MPI_NO_OP, b->win), "MPI_Fetch_and_op");
        BENCH_MPI(b, MPI_Win_flush(1, b->win), "MPI_Win_flush");
        if (v != b->mpi_amo_next) BENCH_FAIL(b, "MPI atomics", "rank 1's word does not hold the total of the adds");
    }
    bench_sync(b, b->me != 0);
}

/* The locks exclude each other: every PE increments a counter on PE 0
 * checks times under shoal's lock (shoal_int64_g, then shoal_int64_p:
 * clear_lock must complete the put before the next holder reads), and a
 * word of rank 0's window under MPI_Win_lock (MPI_Get, flush, MPI_Put);
 * both counters must end exact. */
static void bench_check_locks(bench_t *b)
{
    shoal_t sh = b->sh;
    int64_t v = 0;
    double t_sh, t_mpi;

    bench_sync(b, 0);
    t_sh = MPI_Wtime();
    for (long i = 0; i < b->o.checks; i++) {
        BENCH_SHOAL(b, shoal_set_lock(sh, b->lock), "shoal_set_lock");
        BENCH_SHOAL(b, shoal_int64_g(sh, &v, &b->amo[1], 0), "shoal_int64_g");
        BENCH_SHOAL(b, shoal_int64_p(sh, &b->amo[1], v + 1, 0), "shoal_int64_p");
        BENCH_SHOAL(b, shoal_clear_lock(sh, b->lock), "shoal_clear_lock");
    }
    t_sh = MPI_Wtime() - t_sh;
    BENCH_MPI(b, MPI_Win_unlock_all(b->win), "MPI_Win_unlock_all");
    bench_sync(b, 0);
    t_mpi = MPI_Wtime();
    for (long i = 0; i < b->o.checks; i++) {
        BENCH_MPI(b, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, b->win), "MPI_Win_lock");
        BENCH_MPI(b, MPI_Get(&v, 1, MPI_INT64_T, 0, WIN_LOCK, 1, MPI_INT64_T, b->win), "MPI_Get");
        BENCH_MPI(b, MPI_Win_flush(0, b->win), "MPI_Win_flush");
        v++;
        BENCH_MPI(b, MPI_Put(&v, 1, MPI_INT64_T, 0, WIN_LOCK, 1, MPI_INT64_T, b->win), "MPI_Put");
        BENCH_MPI(b, MPI_Win_unlock(0, b->win), "MPI_Win_unlock");
    }
    t_mpi = MPI_Wtime() - t_mpi;
    bench_sync(b, 0);
    BENCH_MPI(b, MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win), "MPI_Win_lock_all");
    BENCH_SHOAL(b, shoal_barrier_all(sh), "shoal_barrier_all");
    BENCH_MPI(b, MPI_Allreduce(MPI_IN_PLACE, &t_sh, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    BENCH_MPI(b, MPI_Allreduce(MPI_IN_PLACE, &t_mpi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    b->lock_increments += b->o.checks * b->n_pes;
    if (b->me == 0) {
        int64_t got_sh = *(volatile int64_t *)&b->amo[1], got_mpi;
        BENCH_MPI(b, MPI_Win_sync(b->win), "MPI_Win_sync");
        got_mpi = *(volatile int64_t *)(b->win_mem + WIN_LOCK);
        if (got_sh != b->lock_increments || got_mpi != b->lock_increments) {
            char why[160];
            snprintf(why, sizeof(why),
                     "counters incremented under the locks hold %lld (shoal) and %lld (MPI), not %lld",
                     (long long)got_sh, (long long)got_mpi, (long long)b->lock_increments);
            BENCH_FAIL(b, "lock exclusion check", why);
        }
        printf("lock exclusion check: %ld get+put increments per PE under each lock, counters exact "
               "(shoal %.3f us, MPI %.3f us per acquisition)\n",
               b->o.checks, t_sh / ((double)b->o.checks * b->n_pes) * 1e6,
               t_mpi / ((double)b->o.checks * b->n_pes) * 1e6);
        fflush(stdout);
    }
    bench_sync(b, 0);
}

/* ------------------------------------------------------------ passes */

/* Warm op up with a twentieth of the nominal count (1 to 200 ops), then
 * say how many ops a batch runs: iters, or fewer where that would last
 * longer than batch_s. Every rank computes the same count. */
static long bench_calibrate(bench_t *b, int op, size_t n)
{
    long warm = b->o.iters / 20;
    double per_op;

    if (warm < 1) warm = 1;
    if (warm > 200) warm = 200;
    per_op = bench_run(b, op, n, warm);
    return bench_batch_count(per_op, b->o.iters, b->o.batch_s);
}

/* Pass 0 warms up and fixes the counts; passes 1.. time a batch of each
 * op, taking turns at going first. */
static void bench_fig_pass(bench_t *b, bench_fig_t *f, int pass)
{
    for (int j = 0; j < 2; j++) {
        int k = (j + pass) % 2;
        double t;
        if (pass == 0) {
            f->count[k] = bench_calibrate(b, f->ops[k], f->n);
            f->best[k] = -1;
            continue;
        }
        t = bench_run(b, f->ops[k], f->n, f->count[k]);
        bench_keep_best(&f->best[k], t);
    }
    if (f->ops[0] == OP_SH_FADD || f->ops[0] == OP_SH_ADD) bench_check_amo(b);
}

/* ------------------------------------------------------------ setup */

static void bench_usage(FILE *out)
{
    fprintf(out, "usage: mpiexec -n 2 shoal-bench-sync [--iters N] [--batches N] [--quick]\n"
                 "  --iters N    operations per batch, at most (default 20000; fewer where a batch would\n"
                 "               pass 0.1 s)\n"
                 "  --batches N  batches per figure, the best counts (default 5)\n"
                 "  --quick      few operations and 3 batches, for smoke tests\n");
}

/* 0 on success, 1 on a bad command line (a message was printed by rank 0),
 * 2 for --help. */
static int bench_parse_args(int argc, char **argv, int me, bench_opts_t *o)
{
    long iters = 0, batches = 0;
    int quick = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val;
        if (strcmp(a, "--quick") == 0) {
            quick = 1;
            continue;
        }
        if (bench_is_help(me, a, bench_usage)) return 2;
        if ((val = bench_opt_value(argc, argv, &i, "--iters")) != NULL) {
            if (!bench_parse_count(me, "--iters", val, LONG_MAX / 64, &iters)) return 1;
            continue;
        }
        if ((val = bench_opt_value(argc, argv, &i, "--batches")) != NULL) {
            if (!bench_parse_count(me, "--batches", val, 1000, &batches)) return 1;
            continue;
        }
        return bench_unknown_arg(me, a, bench_usage);
    }
    o->quick = quick;
    o->iters = quick ? 1000 : 20000;
    o->batches = quick ? 3 : 5;
    o->batch_s = quick ? 0.02 : 0.1;
    o->checks = quick ? 200 : 2000;
    if (iters > 0) o->iters = iters;
    if (batches > 0) o->batches = (int)batches;
    return 0;
}

static void bench_setup(bench_t *b)
{
    void *mem = NULL;

    b->amo = shoal_calloc(b->sh, 2, sizeof(int64_t));
    b->sig = shoal_calloc(b->sh, 1, sizeof(uint64_t));
    b->data = shoal_calloc(b->sh, 1, BENCH_PP_MAX);
    b->lock = shoal_calloc(b->sh, 1, sizeof(long));
    if (b->amo == NULL || b->sig == NULL || b->data == NULL || b->lock == NULL)
        BENCH_FAIL(b, "shoal_calloc", shoal_last_error(b->sh));
    BENCH_MPI(b, MPI_Win_allocate(WIN_SIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &b->win), "MPI_Win_allocate");
    b->win_mem = mem;
    memset(b->win_mem, 0, WIN_SIZE);
    BENCH_MPI(b, MPI_Win_set_errhandler(b->win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
    BENCH_MPI(b, MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win), "MPI_Win_lock_all");
    b->src = aligned_alloc(64, BENCH_PP_MAX);
    if (b->src == NULL) BENCH_FAIL(b, "aligned_alloc", strerror(ENOMEM));
    for (size_t i = 0; i < BENCH_PP_MAX; i++) b->src[i] = (unsigned char)(i * 7 + 3);
    /* Every PE's words are zero before anyone touches them. */
    BENCH_SHOAL(b, shoal_barrier_all(b->sh), "shoal_barrier_all");
    bench_sync(b, 0);
}

static void bench_teardown(bench_t *b)
{
    BENCH_MPI(b, MPI_Win_unlock_all(b->win), "MPI_Win_unlock_all");
    BENCH_MPI(b, MPI_Win_free(&b->win), "MPI_Win_free");
    BENCH_SHOAL(b, shoal_free(b->sh, b->lock), "shoal_free");
    BENCH_SHOAL(b, shoal_free(b->sh, b->data), "shoal_free");
    BENCH_SHOAL(b, shoal_free(b->sh, b->sig), "shoal_free");
    BENCH_SHOAL(b, shoal_free(b->sh, b->amo), "shoal_free");
    free(b->src);
}

/* The transport PE from uses towards PE to, as PE from knows it; every rank
 * learns it. */
static void bench_transport(const bench_t *b, int from, int to, char *name, size_t len)
{
    const char *tp = "?";
    char buf[32] = "";
    if (b->me == from) {
        BENCH_SHOAL(b, shoal_pe_transport(b->sh, to, &tp), "shoal_pe_transport");
        snprintf(buf, sizeof(buf), "%s", tp);
    }
    BENCH_MPI(b, MPI_Bcast(buf, (int)sizeof(buf), MPI_CHAR, from, MPI_COMM_WORLD), "MPI_Bcast");
    snprintf(name, len, "%s", buf);
}

/* Whether some pair of PEs goes over mpi_rma (collective): then every
 * host atomic of the instance, node peers' included, is an MPI atomic on
 * shoal's window (README, "One mechanism per word"). */
static int bench_any_mpi_rma(const bench_t *b)
{
    int mine = 0, any = 0;
    for (int pe = 0; pe < b->n_pes; pe++) {
        const char *tp = "?";
        BENCH_SHOAL(b, shoal_pe_transport(b->sh, pe, &tp), "shoal_pe_transport");
        if (strcmp(tp, "mpi_rma") == 0) mine = 1;
    }
    BENCH_MPI(b, MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return any;
}

static void bench_header(bench_t *b, const char *tp01, const char *tp_lock, const char *amo, long cores, int host_ranks)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    const char *node_env = getenv("SHOAL_NODE_SIZE");
    int n_nodes = bench_n_nodes(b->me, b->sh, b->n_pes);

    bench_mpi_library(b->me, lib);
    if (b->me != 0) return;
    bench_print_versions(lib);
    printf("n_pes %d, nodes %d (SHOAL_NODE_SIZE=%s), %d ranks on %ld cores%s\n", b->n_pes, n_nodes,
           node_env ? node_env : "unset", host_ranks, cores, host_ranks > cores ? " (oversubscribed)" : "");
    printf("transport PE 0 -> PE 1: %s; PE %d -> PE 0 (the uncontended lock): %s\n", tp01, b->n_pes - 1, tp_lock);
    printf("host atomics (every pair): %s\n", amo);
    printf("heap host; MPI: one MPI_Win_allocate window of %d B in lock_all (closed around MPI_Win_lock)\n",
           (int)WIN_SIZE);
    bench_print_batches(b->o.batches, b->o.iters, b->o.batch_s, b->o.quick);
    bench_print_load(cores);
    printf("\n");
    fflush(stdout);
}

/* One table line: microseconds per op, the ratio, and the goal if any. */
static void bench_line(const bench_fig_t *f)
{
    double ratio = f->best[0] / f->best[1];
    char goal[16] = "-", met[8] = "-";
    if (f->goal > 0) {
        snprintf(goal, sizeof(goal), "<= %.1f", f->goal);
        snprintf(met, sizeof(met), "%s", ratio <= f->goal ? "yes" : "no");
    }
    printf("%-30s %-36s %9.3f %9.3f %8.4f  %-7s %s\n", f->name, f->ref, f->best[0] * 1e6, f->best[1] * 1e6, ratio, goal,
           met);
}

int main(int argc, char **argv)
{
    bench_t b = {.win = MPI_WIN_NULL};
    char tp01[32], tp_lock[32];
    int rc, host_ranks;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    bench_mpi_init(&argc, &argv, &b.me, &b.n_pes);
    rc = bench_parse_args(argc, argv, b.me, &b.o);
    if (rc != 0) {
        MPI_Finalize();
        return rc == 2 ? 0 : 1;
    }
    if (b.n_pes < 2) {
        if (b.me == 0) fprintf(stderr, "shoal-bench-sync: needs 2 or more ranks (PE 0 and PE 1): mpiexec -n 2\n");
        MPI_Finalize();
        return 1;
    }
    host_ranks = bench_host_ranks(b.me);
    b.oversubscribed = host_ranks > cores;

    bench_shoal_init(b.me, 4 * BENCH_MIB, &b.sh);
    bench_setup(&b);
    bench_transport(&b, 0, 1, tp01, sizeof(tp01));
    bench_transport(&b, b.n_pes - 1, 0, tp_lock, sizeof(tp_lock));
    /* The fetch_add goal follows what carries the atomics: CPU atomics on
     * the node's shared heap (shm) 0.2x MPI, MPI atomics (mpi_rma) 1.2x. */
    int amo_mpi = bench_any_mpi_rma(&b), amo_shm = !amo_mpi && strcmp(tp01, "shm") == 0;
    const char *amo = amo_mpi   ? "mpi_rma: MPI atomics on shoal's window (some pair is over mpi_rma)"
                      : amo_shm ? "shm: C11 atomics on the node's shared heap"
                                : tp01;
    double fadd_goal = amo_mpi ? 1.2 : amo_shm ? 0.2 : 0;
    bench_header(&b, tp01, tp_lock, amo, cores, host_ranks);

    bench_fig_t figs[] = {
        {"fetch_add int64, blocking",
         "MPI_Fetch_and_op(SUM) + flush",
         {OP_SH_FADD, OP_MPI_FADD},
         0,
         {0},
         {0},
         fadd_goal},
        {"add int64 + quiet", "MPI_Accumulate(SUM) + flush", {OP_SH_ADD, OP_MPI_ADD}, 0, {0}, {0}, 0},
        {"put_signal ping-pong, 8 B", "MPI_Put+flush, flag put+flush", {OP_SH_PP, OP_MPI_PP}, 8, {0}, {0}, 0},
        {"put_signal ping-pong, 4 KiB", "MPI_Put+flush, flag put+flush", {OP_SH_PP, OP_MPI_PP}, 4096, {0}, {0}, 0},
        {"lock, uncontended", "MPI_Win_lock(EXCLUSIVE) + unlock", {OP_SH_LOCK1, OP_MPI_LOCK1}, 0, {0}, {0}, 0},
        {"lock, contended (all PEs)", "MPI_Win_lock(EXCLUSIVE) + unlock", {OP_SH_LOCKN, OP_MPI_LOCKN}, 0, {0}, {0}, 0},
    };
    const int nf = (int)(sizeof(figs) / sizeof(figs[0]));

    bench_check_locks(&b);
    for (int pass = 0; pass <= b.o.batches; pass++)
        for (int f = 0; f < nf; f++) bench_fig_pass(&b, &figs[f], pass);
    bench_check_locks(&b);

    if (b.me == 0) {
        printf("\n%-30s %-36s %9s %9s %8s  %-7s %s\n", "us per op (PE 0 -> PE 1)", "MPI reference", "shoal", "MPI",
               "ratio", "goal", "met");
        for (int f = 0; f < 2; f++) bench_line(&figs[f]);
        printf("\nhalf round trip, us\n");
        for (int f = 2; f < 4; f++) bench_line(&figs[f]);
        printf("\nus per acquisition\n");
        printf("  (uncontended: PE %d alone; contended: %d PEs, the slowest PE's time / all acquisitions;\n"
               "   locks on PE 0's word and rank 0's window)\n",
               b.n_pes - 1, b.n_pes);
        for (int f = 4; f < nf; f++) bench_line(&figs[f]);
        printf("\ngoal of fetch_add / MPI_Fetch_and_op: ");
        if (fadd_goal > 0)
            printf("%s <= %.1f: %s (measured %.4f)%s\n", amo_mpi ? "mpi_rma" : "shm", fadd_goal,
                   figs[0].best[0] / figs[0].best[1] <= fadd_goal ? "met yes" : "met no",
                   figs[0].best[0] / figs[0].best[1], b.o.quick ? "; --quick: indicative only" : "");
        else
            printf("none for %s (goals: shm <= 0.2, mpi_rma <= 1.2)\n", tp01);
        printf("data checked: every fetch_add's old value, the atomics totals after every batch, every "
               "ping-pong round's data, the locks' exclusion: ok\n");
        fflush(stdout);
    }

    bench_teardown(&b);
    BENCH_SHOAL(&b, shoal_finalize(b.sh), "shoal_finalize");
    MPI_Finalize();
    return 0;
}
