/*
 * shoal-bench-shmem: the OpenSHMEM layer (api/shmem/shmem.h) against shoal's
 * native API on the same instance, and against MPI RMA, in the same run.
 *
 * The program starts MPI itself (MPI_Init), then shmem_init joins it;
 * shmem_shoal() gives the instance under the layer, which the native
 * figures use, so both go through the same heap and transports and differ
 * only by the layer's cost. PE 0 targets PE 1; rank 0 prints. Figures:
 *
 *   put      shmem_putmem + shmem_quiet  vs shoal_put + shoal_quiet
 *            vs MPI_Put + MPI_Win_flush
 *   get      shmem_getmem  vs shoal_get  vs MPI_Get + MPI_Win_flush
 *   barrier  shmem_barrier_all  vs shoal_barrier_all  vs MPI_Barrier
 *
 * at 8 B to 1 MiB (powers of 4, and 1 MiB; --quick: 8 B, 512 B, 32 KiB,
 * 1 MiB). A second table times globals (data and bss, which shmem_init
 * registers) against the heap, the same call on a global long of this
 * program and on a long from shmem_malloc, PE 0 -> PE 1:
 *
 *   put        shmem_putmem of 8 B + shmem_quiet
 *   get        shmem_getmem of 8 B
 *   add        shmem_long_atomic_add (the batch ends with shmem_quiet)
 *   fetch_add  shmem_long_atomic_fetch_add
 *
 * printing global / heap for each (the goal: at most 1.5). --globals runs
 * that table alone. shmem's and shoal's puts and gets use one buffer from
 * shmem_malloc; MPI's one MPI_Win_allocate window of the same size, locked
 * for all (MPI_Win_lock_all) for the whole run. The goal is shmem / native
 * <= 1.05 on every line: the layer adds no more than 5%.
 *
 * Each figure is the best of several batches. The batches run in passes
 * over every figure, and within a figure the three implementations take
 * turns at going first, so a burst of other work on the machine hits them
 * alike. Batches are short (at most 10000 ops, 0.02 s or 64 MiB), so that
 * on a busy machine some of them run between two preemptions. shmem's and
 * shoal's batches of a figure run the same number of operations (the
 * smaller of their warm-up counts); a slow MPI runs fewer rather than for
 * minutes.
 *
 * Every batch, warm-ups included, moves a fresh pattern, and what crossed
 * is checked after it: PE 1 checks the bytes the puts left in its buffer
 * (or window), PE 0 those the gets brought back; so no figure times
 * nothing.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-shmem [--iters N] [--batches N] [--quick] [--globals]
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define BENCH_PROG "shoal-bench-shmem"
#include "bench_host.h"
#include "shmem.h"
#include "shoal.h"

#define BENCH_MAX_SIZE BENCH_MIB         /* the largest put and get, and the buffers' size */
#define BENCH_BW_MIN ((size_t)64 * 1024) /* GB/s are printed from this size up */
#define BENCH_GOAL 1.05                  /* shmem / native at most this */
#define BENCH_MAX_FIGS 32
#define BENCH_GLOBAL_GOAL 1.5 /* global / heap at most this */

/* The three implementations of each figure, in the table's order. */
enum { IMPL_SHMEM, IMPL_NATIVE, IMPL_MPI, IMPL_COUNT };

/* What a figure measures. */
enum {
    FIG_PUT,    /* put of n bytes to PE 1, completed */
    FIG_GET,    /* get of n bytes from PE 1 */
    FIG_BARRIER /* every PE */
};

/* One figure: the three implementations of one kind on n bytes. */
typedef struct bench_fig {
    int kind;                /* FIG_* */
    size_t n;                /* bytes per op; 0 for the barrier */
    long nominal;            /* ops per batch before the warm-up */
    long count[IMPL_COUNT];  /* ops per batch, fixed in the warm-up pass */
    double best[IMPL_COUNT]; /* seconds per op of the fastest batch (rank 0's) */
} bench_fig_t;

typedef struct bench_opts {
    long iters;         /* operations per batch, at most */
    int batches;        /* batches per figure; the fastest one counts */
    double batch_s;     /* longest a batch should last: slow references run fewer ops */
    size_t batch_bytes; /* bytes one put or get batch moves, at most */
    int quick;          /* --quick: a smoke test, rough figures */
    int globals;        /* --globals: the globals-vs-heap table alone */
} bench_opts_t;

typedef struct bench {
    shoal_t sh; /* shmem_shoal(): the layer's instance */
    int me;     /* rank in MPI_COMM_WORLD == PE */
    int n_pes;
    int oversubscribed; /* more ranks on this host than cores */
    bench_opts_t o;
    unsigned char *sym;     /* shmem_malloc: shmem's and shoal's puts' target, their gets' source */
    unsigned char *win_mem; /* the MPI window's memory on this rank */
    MPI_Win win;            /* locked for all for the whole run */
    unsigned char *src;     /* private: the puts' source */
    unsigned char *dst;     /* private: the gets' destination */
    unsigned seed;          /* the pattern of the current batch */
    long *heap_word;        /* shmem_malloc: the heap's word of the globals table */
} bench_t;

static const char *const bench_impl_names[IMPL_COUNT] = {"shmem", "native", "MPI"};

/* What each implementation of each kind calls, for messages. */
static const char *const bench_calls[3][IMPL_COUNT] = {
    {"shmem_putmem + shmem_quiet", "shoal_put + shoal_quiet", "MPI_Put + MPI_Win_flush"},
    {"shmem_getmem", "shoal_get", "MPI_Get + MPI_Win_flush"},
    {"shmem_barrier_all", "shoal_barrier_all", "MPI_Barrier"},
};

/* Every PE meets here outside the timed loops (bench_meet), PE 1 polling
 * MPI as MPI_Barrier would: MPI's passive target may need its progress.
 * When ranks outnumber cores, PE 1 yields between polls and the
 * bystanders (PE 2 and up) sleep, so that the origin and the target get
 * the cores. */
static void bench_sync(const bench_t *b) { bench_meet(b->me, b->oversubscribed, b->me >= 2); }

/* ------------------------------------------------------------ timed loops */

/* Runs impl's op of kind count times back to back (PE 0 alone for puts and
 * gets, every PE for the barrier); returns the seconds it took. */
static double bench_run(const bench_t *b, int kind, int impl, size_t n, long count)
{
    shoal_t sh = b->sh;
    double t0 = MPI_Wtime();

    switch (kind) {
    case FIG_PUT:
        switch (impl) {
        case IMPL_SHMEM:
            for (long i = 0; i < count; i++) {
                shmem_putmem(b->sym, b->src, n, 1);
                shmem_quiet();
            }
            break;
        case IMPL_NATIVE:
            for (long i = 0; i < count; i++) {
                BENCH_SHOAL(b, shoal_put(sh, b->sym, b->src, n, 1), "shoal_put");
                BENCH_SHOAL(b, shoal_quiet(sh), "shoal_quiet");
            }
            break;
        default:
            for (long i = 0; i < count; i++) {
                BENCH_MPI(b, MPI_Put(b->src, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, b->win), "MPI_Put");
                BENCH_MPI(b, MPI_Win_flush(1, b->win), "MPI_Win_flush");
            }
            break;
        }
        break;
    case FIG_GET:
        switch (impl) {
        case IMPL_SHMEM:
            for (long i = 0; i < count; i++) shmem_getmem(b->dst, b->sym, n, 1);
            break;
        case IMPL_NATIVE:
            for (long i = 0; i < count; i++) BENCH_SHOAL(b, shoal_get(sh, b->dst, b->sym, n, 1), "shoal_get");
            break;
        default:
            for (long i = 0; i < count; i++) {
                BENCH_MPI(b, MPI_Get(b->dst, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, b->win), "MPI_Get");
                BENCH_MPI(b, MPI_Win_flush(1, b->win), "MPI_Win_flush");
            }
            break;
        }
        break;
    default:
        switch (impl) {
        case IMPL_SHMEM:
            for (long i = 0; i < count; i++) shmem_barrier_all();
            break;
        case IMPL_NATIVE:
            for (long i = 0; i < count; i++) BENCH_SHOAL(b, shoal_barrier_all(sh), "shoal_barrier_all");
            break;
        default:
            for (long i = 0; i < count; i++) BENCH_MPI(b, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
            break;
        }
        break;
    }
    return MPI_Wtime() - t0;
}

/* ------------------------------------------------------------ data checks */

/* A pattern whose period (251) is no power of two, so shifted or stale
 * data does not pass; seed tells one batch's bytes from another's. */
static unsigned char bench_byte(size_t i, unsigned seed) { return (unsigned char)((i % 251) * 3 + seed * 41 + 1); }

static void bench_fill(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) buf[i] = bench_byte(i, seed);
}

/* Checks that buf holds batch seed's pattern: else what the batch of impl
 * timed did not move the data, and the run ends. */
static void bench_verify(const bench_t *b, int kind, int impl, const unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        if (__builtin_expect(buf[i] != bench_byte(i, seed), 0)) {
            char what[96], why[160];
            snprintf(what, sizeof(what), "%s (%zu bytes, data check on PE %d)", bench_calls[kind][impl], n, b->me);
            snprintf(why, sizeof(why), "byte %zu is %u, expected %u", i, buf[i], bench_byte(i, seed));
            BENCH_FAIL(b, what, why);
        }
    }
}

/* ------------------------------------------------------------ batches */

/* One batch of impl's op of f, count ops: a fresh pattern is put in place
 * (PE 0's source for puts, PE 1's buffer or window for gets), every PE
 * meets, the ops run, and the bytes that crossed are checked (by PE 1 for
 * puts, by PE 0 for gets). Returns rank 0's seconds per op. */
static double bench_batch(bench_t *b, const bench_fig_t *f, int impl, long count)
{
    size_t n = f->n;
    unsigned seed = ++b->seed;
    int runs = f->kind == FIG_BARRIER || b->me == 0;
    double t = 0;

    if (f->kind == FIG_PUT && b->me == 0) bench_fill(b->src, n, seed);
    if (f->kind == FIG_GET && b->me == 0) memset(b->dst, 0, n);
    if (f->kind == FIG_GET && b->me == 1) {
        bench_fill(impl == IMPL_MPI ? b->win_mem : b->sym, n, seed);
        if (impl == IMPL_MPI) BENCH_MPI(b, MPI_Win_sync(b->win), "MPI_Win_sync");
    }
    /* PE 1's stores reach PE 0's gets through shoal's barrier (heap) or the
     * window's synchronization and the meeting (MPI). */
    BENCH_SHOAL(b, shoal_barrier_all(b->sh), "shoal_barrier_all");
    bench_sync(b);

    if (runs) t = bench_run(b, f->kind, impl, n, count);
    bench_sync(b);

    if (f->kind == FIG_PUT) {
        /* Completed puts (quiet, flush) are visible to PE 1 after a
         * barrier, and MPI's after MPI_Win_sync at the target. */
        BENCH_SHOAL(b, shoal_barrier_all(b->sh), "shoal_barrier_all");
        if (b->me == 1) {
            if (impl == IMPL_MPI) BENCH_MPI(b, MPI_Win_sync(b->win), "MPI_Win_sync");
            bench_verify(b, f->kind, impl, impl == IMPL_MPI ? b->win_mem : b->sym, n, seed);
        }
    }
    if (f->kind == FIG_GET && b->me == 0) bench_verify(b, f->kind, impl, b->dst, n, seed);
    bench_sync(b);
    return t / (double)count;
}

/* Warm impl's op of f up with a twentieth of the nominal count (1 to 200
 * ops), then say how many ops a batch runs: the nominal count, or fewer
 * where that would last longer than batch_s. Every rank gets rank 0's
 * count. */
static long bench_calibrate(bench_t *b, const bench_fig_t *f, int impl)
{
    long warm = f->nominal / 20, count;
    double per_op;

    if (warm < 1) warm = 1;
    if (warm > 200) warm = 200;
    per_op = bench_batch(b, f, impl, warm);
    count = bench_batch_count(per_op, f->nominal, b->o.batch_s);
    BENCH_MPI(b, MPI_Bcast(&count, 1, MPI_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return count;
}

/* Pass 0 warms up and fixes the counts (shmem's and shoal's the same: the
 * smaller); passes 1.. time one batch of each implementation, the one
 * that goes first turning with the pass. */
static void bench_fig_pass(bench_t *b, bench_fig_t *f, int pass)
{
    for (int j = 0; j < IMPL_COUNT; j++) {
        int k = (j + pass) % IMPL_COUNT;
        if (pass == 0) {
            f->count[k] = bench_calibrate(b, f, k);
            f->best[k] = -1;
            continue;
        }
        bench_keep_best(&f->best[k], bench_batch(b, f, k, f->count[k]));
    }
    if (pass == 0) {
        long c = f->count[IMPL_SHMEM] < f->count[IMPL_NATIVE] ? f->count[IMPL_SHMEM] : f->count[IMPL_NATIVE];
        f->count[IMPL_SHMEM] = f->count[IMPL_NATIVE] = c;
    }
}

/* The figures: puts then gets at each size (8 B times powers of 4, 64 on
 * --quick, then BENCH_MAX_SIZE), then the barrier. Returns how many. */
static int bench_figs(const bench_t *b, bench_fig_t *figs)
{
    size_t step = b->o.quick ? 64 : 4;
    int nf = 0;

    for (int kind = FIG_PUT; kind <= FIG_GET; kind++) {
        for (size_t n = 8;; n = n * step < BENCH_MAX_SIZE ? n * step : BENCH_MAX_SIZE) {
            long nominal = (long)(b->o.batch_bytes / n);
            if (nominal > b->o.iters) nominal = b->o.iters;
            if (nominal < 1) nominal = 1;
            figs[nf++] = (bench_fig_t){.kind = kind, .n = n, .nominal = nominal};
            if (n == BENCH_MAX_SIZE) break;
        }
    }
    figs[nf++] = (bench_fig_t){.kind = FIG_BARRIER, .nominal = b->o.iters};
    return nf;
}

/* ------------------------------------------------------------ globals */

/* The global word of the globals table: in this program's bss, symmetric
 * because shmem_init registers the program's data and bss. The heap's
 * word is b->heap_word. */
static long bench_global_word[8] __attribute__((aligned(64)));

enum { GOP_PUT, GOP_GET, GOP_ADD, GOP_FADD, GOP_COUNT };
enum { WHERE_GLOBAL, WHERE_HEAP, WHERE_COUNT };

static const char *const bench_gop_names[GOP_COUNT] = {"put 8 B", "get 8 B", "atomic add", "atomic fetch_add"};
static const char *const bench_gop_calls[GOP_COUNT] = {"shmem_putmem + shmem_quiet", "shmem_getmem",
                                                       "shmem_long_atomic_add", "shmem_long_atomic_fetch_add"};

/* One line of the table: both places' best seconds per op. */
typedef struct bench_gfig {
    long count;               /* ops per batch (the smaller warm-up count of the two) */
    double best[WHERE_COUNT]; /* seconds per op of the fastest batch */
} bench_gfig_t;

/* count ops of op on where's word of PE 1 (PE 0 only); seconds taken. The
 * value PE 0 got back (the last get or fetch) in *last_p. */
static double bench_grun(bench_t *b, int op, int where, long count, long *last_p)
{
    long *w = where == WHERE_GLOBAL ? bench_global_word : b->heap_word, v = 0, src = (long)b->seed;
    double t0 = MPI_Wtime();

    switch (op) {
    case GOP_PUT:
        for (long i = 0; i < count; i++) {
            shmem_putmem(w, &src, sizeof(src), 1);
            shmem_quiet();
        }
        break;
    case GOP_GET:
        for (long i = 0; i < count; i++) shmem_getmem(&v, w, sizeof(v), 1);
        break;
    case GOP_ADD:
        for (long i = 0; i < count; i++) shmem_long_atomic_add(w, 1, 1);
        shmem_quiet();
        break;
    default:
        for (long i = 0; i < count; i++) v = shmem_long_atomic_fetch_add(w, 1, 1);
        break;
    }
    t0 = MPI_Wtime() - t0;
    *last_p = v;
    return t0;
}

/* One batch: PE 1 sets its word (the batch's seed for a get, else 0), every
 * PE meets, PE 0 runs the ops, and what crossed is checked: PE 1's word
 * after puts (the seed) and atomics (count), PE 0's last get (the seed) or
 * fetch (count - 1). Rank 0's seconds per op. */
static double bench_gbatch(bench_t *b, int op, int where, long count)
{
    long *w = where == WHERE_GLOBAL ? bench_global_word : b->heap_word, last = -1, want;
    double t = 0;
    char what[128], why[128];

    b->seed++;
    if (b->me == 1) *w = op == GOP_GET ? (long)b->seed : 0;
    shmem_barrier_all();
    bench_sync(b);
    if (b->me == 0) t = bench_grun(b, op, where, count, &last);
    bench_sync(b);
    shmem_barrier_all();
    snprintf(what, sizeof(what), "%s on a %s word (data check on PE %d)", bench_gop_calls[op],
             where == WHERE_GLOBAL ? "global" : "heap", b->me);
    if (b->me == 1 && op != GOP_GET) {
        want = op == GOP_PUT ? (long)b->seed : count;
        if (*w != want) {
            snprintf(why, sizeof(why), "PE 1's word is %ld, expected %ld", *w, want);
            BENCH_FAIL(b, what, why);
        }
    }
    if (b->me == 0 && (op == GOP_GET || op == GOP_FADD)) {
        want = op == GOP_GET ? (long)b->seed : count - 1;
        if (last != want) {
            snprintf(why, sizeof(why), "PE 0 got %ld, expected %ld", last, want);
            BENCH_FAIL(b, what, why);
        }
    }
    bench_sync(b);
    return t / (double)count;
}

/* The globals table: a warm-up pass fixes each line's count, then each
 * pass times a batch of both places, the one that goes first turning with
 * the pass. Rank 0 prints. */
static void bench_globals(bench_t *b)
{
    bench_gfig_t g[GOP_COUNT];
    long nominal = b->o.iters;
    int met = 0;

    for (int op = 0; op < GOP_COUNT; op++) {
        long c[WHERE_COUNT];
        for (int where = 0; where < WHERE_COUNT; where++) {
            double per_op = bench_gbatch(b, op, where, nominal / 20 > 0 ? nominal / 20 : 1);
            c[where] = bench_batch_count(per_op, nominal, b->o.batch_s);
            BENCH_MPI(b, MPI_Bcast(&c[where], 1, MPI_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
        }
        g[op].count = c[WHERE_GLOBAL] < c[WHERE_HEAP] ? c[WHERE_GLOBAL] : c[WHERE_HEAP];
        g[op].best[WHERE_GLOBAL] = g[op].best[WHERE_HEAP] = -1;
    }
    for (int pass = 1; pass <= b->o.batches; pass++)
        for (int op = 0; op < GOP_COUNT; op++)
            for (int j = 0; j < WHERE_COUNT; j++) {
                int where = (j + pass) % WHERE_COUNT;
                bench_keep_best(&g[op].best[where], bench_gbatch(b, op, where, g[op].count));
            }
    if (b->me != 0) return;
    printf("\nglobals (a long in this program's bss, registered by shmem_init) vs the heap (shmem_malloc), "
           "PE 0 -> PE 1:\n");
    printf("%-18s %-30s %10s %10s %12s  %s\n", "op", "call", "global us", "heap us", "global/heap", "<= 1.5");
    for (int op = 0; op < GOP_COUNT; op++) {
        double r = g[op].best[WHERE_GLOBAL] / g[op].best[WHERE_HEAP];
        met += r <= BENCH_GLOBAL_GOAL;
        printf("%-18s %-30s %10.3f %10.3f %12.3f  %s\n", bench_gop_names[op], bench_gop_calls[op],
               g[op].best[WHERE_GLOBAL] * 1e6, g[op].best[WHERE_HEAP] * 1e6, r, r <= BENCH_GLOBAL_GOAL ? "yes" : "no");
    }
    printf("goal global / heap <= %.1f on every line: %s (%d of %d lines)\n", BENCH_GLOBAL_GOAL,
           met == GOP_COUNT ? "met" : "MISSED", met, GOP_COUNT);
    printf("data checked: PE 1's word after every put and atomic batch, PE 0's last get and fetch: ok\n");
    fflush(stdout);
}

/* ------------------------------------------------------------ report */

static void bench_header(const bench_t *b, long cores, int host_ranks)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], tp[32] = "";
    const char *name = "?";

    if (b->me == 0) {
        BENCH_SHOAL(b, shoal_pe_transport(b->sh, 1, &name), "shoal_pe_transport");
        snprintf(tp, sizeof(tp), "%s", name);
    }
    bench_mpi_library(b->me, lib);
    if (b->me != 0) return;
    bench_print_versions(lib);
    printf("n_pes %d, %d ranks on %ld cores%s; transport PE 0 -> PE 1: %s\n", b->n_pes, host_ranks, cores,
           host_ranks > cores ? " (oversubscribed)" : "", tp);
    printf("MPI_Init, then shmem_init; native = shoal's API on shmem_shoal()'s instance, on the same %zu-byte "
           "shmem_malloc buffer;\nMPI: one MPI_Win_allocate window of %zu bytes in lock_all\n",
           (size_t)BENCH_MAX_SIZE, (size_t)BENCH_MAX_SIZE);
    bench_print_batches(b->o.batches, b->o.iters, b->o.batch_s, b->o.quick);
    printf("put and get batches move at most %zu MiB; shmem's and native batches run the same count\n",
           b->o.batch_bytes / BENCH_MIB);
    bench_print_load(cores);
    fflush(stdout);
}

/* One table line: microseconds per op of the three, GB/s from BENCH_BW_MIN
 * up, the ratios, and whether shmem / native meets the goal. */
static void bench_line(const bench_fig_t *f)
{
    static const char *const kinds[] = {"put", "get", "barrier"};
    double r_native = f->best[IMPL_SHMEM] / f->best[IMPL_NATIVE], r_mpi = f->best[IMPL_SHMEM] / f->best[IMPL_MPI];
    char size[32] = "-", gbs[IMPL_COUNT][16];

    if (f->kind != FIG_BARRIER) bench_size_str(f->n, size, sizeof(size));
    for (int k = 0; k < IMPL_COUNT; k++) {
        if (f->n >= BENCH_BW_MIN)
            snprintf(gbs[k], sizeof(gbs[k]), "%.2f", (double)f->n / f->best[k] / 1e9);
        else
            snprintf(gbs[k], sizeof(gbs[k]), "-");
    }
    printf("%-8s %-8s %10.3f %10.3f %10.3f %7s %7s %7s %13.3f %10.3f  %s\n", kinds[f->kind], size,
           f->best[IMPL_SHMEM] * 1e6, f->best[IMPL_NATIVE] * 1e6, f->best[IMPL_MPI] * 1e6, gbs[IMPL_SHMEM],
           gbs[IMPL_NATIVE], gbs[IMPL_MPI], r_native, r_mpi, r_native <= BENCH_GOAL ? "yes" : "no");
}

static void bench_report(const bench_t *b, const bench_fig_t *figs, int nf, long cores)
{
    double load[1], worst = 0;
    int met = 0, worst_f = 0;

    printf("\n%-8s %-8s %10s %10s %10s %7s %7s %7s %13s %10s  %s\n", "op", "size", "shmem us", "native us", "MPI us",
           "shmem", "native", "MPI", "shmem/native", "shmem/MPI", "<= 1.05");
    printf("%-8s %-8s %10s %10s %10s %7s %7s %7s\n", "", "", "", "", "", "GB/s", "GB/s", "GB/s");
    for (int f = 0; f < nf; f++) {
        double r = figs[f].best[IMPL_SHMEM] / figs[f].best[IMPL_NATIVE];
        if (f > 0 && figs[f].kind != figs[f - 1].kind) printf("\n");
        bench_line(&figs[f]);
        if (r <= BENCH_GOAL) met++;
        if (r > worst) {
            worst = r;
            worst_f = f;
        }
    }
    printf("\ngoal shmem / native <= %.2f on every line: %s (%d of %d lines; worst %.3f, %s", BENCH_GOAL,
           met == nf ? "met" : "MISSED", met, nf, worst, bench_calls[figs[worst_f].kind][IMPL_SHMEM]);
    if (figs[worst_f].kind != FIG_BARRIER) {
        char size[32];
        bench_size_str(figs[worst_f].n, size, sizeof(size));
        printf(" %s", size);
    }
    printf(")%s\n", b->o.quick ? "; --quick: indicative only" : "");
    printf("data checked: every batch's bytes, on PE 1 after the puts and on PE 0 after the gets, for %s, %s "
           "and %s: ok\n",
           bench_impl_names[IMPL_SHMEM], bench_impl_names[IMPL_NATIVE], bench_impl_names[IMPL_MPI]);
    if (getloadavg(load, 1) == 1) printf("load average at end %.2f on %ld cores\n", load[0], cores);
    fflush(stdout);
}

/* ------------------------------------------------------------ setup */

static void bench_usage(FILE *out)
{
    fprintf(out, "usage: mpiexec -n 2 shoal-bench-shmem [--iters N] [--batches N] [--quick]\n"
                 "  --iters N    operations per batch, at most (default 10000; fewer where a batch would\n"
                 "               pass 0.02 s or move more than 64 MiB)\n"
                 "  --batches N  batches per figure, the best counts (default 5)\n"
                 "  --quick      4 sizes, few operations and 3 batches, for smoke tests\n"
                 "  --globals    only the table of globals against the heap\n");
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
        if (strcmp(a, "--globals") == 0) {
            o->globals = 1;
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
    o->iters = quick ? 2000 : 10000;
    o->batches = quick ? 3 : 5;
    o->batch_s = quick ? 0.005 : 0.02;
    o->batch_bytes = quick ? 16 * BENCH_MIB : 64 * BENCH_MIB;
    if (iters > 0) o->iters = iters;
    if (batches > 0) o->batches = (int)batches;
    return 0;
}

static void bench_setup(bench_t *b)
{
    void *mem = NULL;

    b->sym = shmem_malloc(BENCH_MAX_SIZE);
    b->heap_word = shmem_malloc(64);
    if (b->sym == NULL || b->heap_word == NULL) BENCH_FAIL(b, "shmem_malloc", shoal_last_error(b->sh));
    memset(b->heap_word, 0, 64);
    memset(b->sym, 0, BENCH_MAX_SIZE);
    BENCH_MPI(b, MPI_Win_allocate(BENCH_MAX_SIZE, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &b->win), "MPI_Win_allocate");
    b->win_mem = mem;
    memset(b->win_mem, 0, BENCH_MAX_SIZE);
    BENCH_MPI(b, MPI_Win_set_errhandler(b->win, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
    BENCH_MPI(b, MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win), "MPI_Win_lock_all");
    b->src = aligned_alloc(64, BENCH_MAX_SIZE);
    b->dst = aligned_alloc(64, BENCH_MAX_SIZE);
    if (b->src == NULL || b->dst == NULL) BENCH_FAIL(b, "aligned_alloc", strerror(ENOMEM));
    memset(b->src, 0, BENCH_MAX_SIZE);
    memset(b->dst, 0, BENCH_MAX_SIZE);
    /* Every PE's buffers are zero before anyone touches them. */
    shmem_barrier_all();
    bench_sync(b);
}

static void bench_teardown(bench_t *b)
{
    BENCH_MPI(b, MPI_Win_unlock_all(b->win), "MPI_Win_unlock_all");
    BENCH_MPI(b, MPI_Win_free(&b->win), "MPI_Win_free");
    shmem_free(b->heap_word);
    shmem_free(b->sym);
    free(b->src);
    free(b->dst);
}

int main(int argc, char **argv)
{
    bench_t b = {.win = MPI_WIN_NULL};
    bench_fig_t figs[BENCH_MAX_FIGS];
    int rc, host_ranks, nf;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    bench_mpi_init(&argc, &argv, &b.me, &b.n_pes);
    rc = bench_parse_args(argc, argv, b.me, &b.o);
    if (rc != 0) {
        MPI_Finalize();
        return rc == 2 ? 0 : 1;
    }
    if (b.n_pes < 2) {
        if (b.me == 0) fprintf(stderr, BENCH_PROG ": needs 2 or more ranks (PE 0 and PE 1): mpiexec -n 2\n");
        MPI_Finalize();
        return 1;
    }
    host_ranks = bench_host_ranks(b.me);
    b.oversubscribed = host_ranks > cores;

    /* MPI is up: shmem_init joins it (and shmem_finalize leaves it to us). */
    shmem_init();
    b.sh = shmem_shoal();
    if (b.sh == NULL) BENCH_FAIL(&b, "shmem_shoal", "no instance after shmem_init");
    if (shmem_my_pe() != b.me || shmem_n_pes() != b.n_pes)
        BENCH_FAIL(&b, "shmem_init", "PE numbers differ from MPI_COMM_WORLD's ranks");
    bench_setup(&b);
    bench_header(&b, cores, host_ranks);

    if (!b.o.globals) {
        nf = bench_figs(&b, figs);
        for (int pass = 0; pass <= b.o.batches; pass++)
            for (int f = 0; f < nf; f++) bench_fig_pass(&b, &figs[f], pass);
        if (b.me == 0) bench_report(&b, figs, nf, cores);
    }
    bench_globals(&b);

    bench_teardown(&b);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
