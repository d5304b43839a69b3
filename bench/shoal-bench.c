/*
 * shoal-bench: shoal against MPI on the same memory, in the same run.
 *
 * PE 0 targets PE 1; rank 0 prints. Each figure is the best of several
 * batches. The batches run in passes over every figure, shoal's and its
 * references' side by side, so a burst of other work on the machine hits
 * both alike and each figure has batches spread over the whole run:
 *
 *   put 8 B        shoal_put           vs MPI_Put + MPI_Win_flush
 *   get 8 B        shoal_get           vs MPI_Get + MPI_Win_flush
 *   put bandwidth  shoal_put           vs MPI_Put + MPI_Win_flush, and memcpy
 *                                         between two private buffers
 *   barrier        shoal_barrier_all   vs MPI_Barrier(MPI_COMM_WORLD)
 *   imbalance      PE 0 works while the others wait in shoal_barrier_all
 *                  vs while they wait in MPI_Barrier: the time PE 0's work
 *                  takes (ranks waiting on a core PE 0 needs slow it down)
 *
 * MPI gets two windows of the size shoal puts into, both locked for all
 * (MPI_Win_lock_all) for the whole run:
 *   "alloc":  MPI_Win_allocate, memory MPI allocates as it sees fit;
 *   "create": MPI_Win_create over a buffer of shoal's own host heap, the
 *             memory shoal writes (as shoal's mpi_rma transport does).
 * Ratios against "MPI" take the faster of the two for each figure.
 * After every batch the bytes that arrived are checked (a fresh pattern
 * each time), so the benchmark cannot silently time nothing.
 * A slow reference (MPI on oversubscribed cores) runs fewer operations per
 * batch rather than for minutes; the count is fixed in a warm-up pass.
 *
 *   mpiexec -n 2 build/bench/shoal-bench [--iters N] [--max-size BYTES] [--quick]
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define BENCH_PROG "shoal-bench"
#include "bench_host.h"
#include "shoal.h"

#define BENCH_LAT_SIZE 8
#define BENCH_GOAL_BW_SIZE (4 * BENCH_MIB)

/* The two MPI windows. */
enum {
    BENCH_WIN_ALLOC,  /* MPI_Win_allocate */
    BENCH_WIN_CREATE, /* MPI_Win_create over shoal heap memory */
    BENCH_WIN_COUNT
};

/* What one timed loop does. */
enum {
    BENCH_SHOAL_PUT,      /* shoal_put into PE 1 */
    BENCH_MPI_PUT_ALLOC,  /* MPI_Put + MPI_Win_flush into PE 1, window "alloc" */
    BENCH_MPI_PUT_CREATE, /* the same through window "create" */
    BENCH_MEMCPY,         /* memcpy between two private buffers */
    BENCH_SHOAL_GET,      /* shoal_get from PE 1 */
    BENCH_MPI_GET_ALLOC,  /* MPI_Get + MPI_Win_flush from PE 1, window "alloc" */
    BENCH_MPI_GET_CREATE, /* the same through window "create" */
    BENCH_SHOAL_BARRIER,  /* shoal_barrier_all (every PE) */
    BENCH_MPI_BARRIER     /* MPI_Barrier on MPI_COMM_WORLD (every PE) */
};

typedef struct bench_opts {
    long iters;         /* operations per latency/barrier batch */
    size_t max_size;    /* largest put of the bandwidth sweep */
    int batches;        /* batches per figure; the fastest one counts */
    double batch_s;     /* longest a batch should last: slow references run fewer ops */
    size_t batch_bytes; /* bytes one bandwidth batch moves (at most iters ops) */
    int quick;          /* --quick: a smoke test, rough figures */
} bench_opts_t;

/* One figure: ops timed side by side on n bytes. */
typedef struct bench_fig {
    int kind; /* BENCH_FIG_* */
    size_t n; /* bytes per op */
    int nops;
    int ops[4];     /* BENCH_SHOAL_PUT, ... */
    long count[4];  /* ops per batch, fixed in the warm-up pass */
    double best[4]; /* seconds per op of the fastest batch */
} bench_fig_t;

enum {
    BENCH_FIG_PUT,      /* 8-byte put latency */
    BENCH_FIG_GET,      /* 8-byte get latency */
    BENCH_FIG_BARRIER,  /* barrier */
    BENCH_FIG_BANDWIDTH /* one size of the put sweep */
};

typedef struct bench {
    shoal_t sh;
    int me; /* rank in MPI_COMM_WORLD == PE */
    int n_pes;
    int oversubscribed; /* more ranks on this host than cores */
    bench_opts_t o;
    unsigned char *sym;                      /* symmetric: shoal's target */
    unsigned char *win_mem[BENCH_WIN_COUNT]; /* the memory under each MPI window */
    MPI_Win win[BENCH_WIN_COUNT];            /* locked for all for the whole run */
    unsigned char *src;                      /* private: put source, memcpy source */
    unsigned char *dst;                      /* private: memcpy and get destination */
    unsigned seed;                           /* pattern of the current batch */
} bench_t;

/* The memcpy reference through a pointer the compiler cannot see through,
 * so a copy whose result goes unread in the loop is never dropped. */
static void *(*volatile bench_memcpy)(void *, const void *, size_t) = memcpy;

/* Every PE meets here outside the timed loops (bench_meet). When ranks
 * outnumber cores, PE 1 yields between polls and the bystanders (PE 2 and
 * up) sleep, so that the origin and the target get the cores while PE 0
 * times a one-sided loop. */
static void bench_sync(const bench_t *b) { bench_meet(b->me, b->oversubscribed, b->me >= 2); }

/* ------------------------------------------------------------ timed loops */

/* Runs op count times back to back and returns the seconds it took. */
static double bench_run(const bench_t *b, int op, size_t n, long count)
{
    shoal_t sh = b->sh;
    MPI_Win win;
    unsigned char *dst;
    double t0 = MPI_Wtime();

    switch (op) {
    case BENCH_SHOAL_PUT:
        for (long i = 0; i < count; i++) BENCH_SHOAL(b, shoal_put(sh, b->sym, b->src, n, 1), "shoal_put");
        break;
    case BENCH_MPI_PUT_ALLOC:
    case BENCH_MPI_PUT_CREATE:
        win = b->win[op == BENCH_MPI_PUT_ALLOC ? BENCH_WIN_ALLOC : BENCH_WIN_CREATE];
        for (long i = 0; i < count; i++) {
            BENCH_MPI(b, MPI_Put(b->src, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win), "MPI_Put");
            BENCH_MPI(b, MPI_Win_flush(1, win), "MPI_Win_flush");
        }
        break;
    case BENCH_MEMCPY:
        for (long i = 0; i < count; i++) bench_memcpy(b->dst, b->src, n);
        break;
    case BENCH_SHOAL_GET:
        for (long i = 0; i < count; i++) BENCH_SHOAL(b, shoal_get(sh, b->dst, b->sym, n, 1), "shoal_get");
        break;
    case BENCH_MPI_GET_ALLOC:
    case BENCH_MPI_GET_CREATE:
        /* Each into its own bytes of dst, so each get is checked on its own. */
        win = b->win[op == BENCH_MPI_GET_ALLOC ? BENCH_WIN_ALLOC : BENCH_WIN_CREATE];
        dst = b->dst + (op == BENCH_MPI_GET_ALLOC ? 64 : 128);
        for (long i = 0; i < count; i++) {
            BENCH_MPI(b, MPI_Get(dst, (int)n, MPI_BYTE, 1, 0, (int)n, MPI_BYTE, win), "MPI_Get");
            BENCH_MPI(b, MPI_Win_flush(1, win), "MPI_Win_flush");
        }
        break;
    case BENCH_SHOAL_BARRIER:
        for (long i = 0; i < count; i++) BENCH_SHOAL(b, shoal_barrier_all(sh), "shoal_barrier_all");
        break;
    case BENCH_MPI_BARRIER:
        for (long i = 0; i < count; i++) BENCH_MPI(b, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
        break;
    }
    return MPI_Wtime() - t0;
}

/* PE 0 does a fixed amount of work while the others wait in a barrier
 * (shoal's, or MPI's); returns how long the work took PE 0. */
static double bench_imbalance(const bench_t *b, int use_shoal)
{
    enum { WORK = 20000000 };
    volatile unsigned long acc = 0;
    double t = 0;

    bench_sync(b);
    if (b->me == 0) {
        double t0 = MPI_Wtime();
        for (unsigned long i = 0; i < WORK; i++) acc += i * 2654435761ul;
        t = MPI_Wtime() - t0;
    }
    if (use_shoal)
        BENCH_SHOAL(b, shoal_barrier_all(b->sh), "shoal_barrier_all");
    else
        BENCH_MPI(b, MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    return t;
}

static int bench_is_collective(int op) { return op == BENCH_SHOAL_BARRIER || op == BENCH_MPI_BARRIER; }

/* Warm op up (a tenth of the nominal count, at most half a batch's time),
 * then say how many ops a batch runs: the nominal count, or fewer when that
 * would last longer than batch_s. Collectives follow rank 0's choices. */
static long bench_calibrate(const bench_t *b, int op, size_t n, long nominal)
{
    int coll = bench_is_collective(op), more = 1;
    long want = nominal / 10 > 0 ? nominal / 10 : 1, chunk = 1, done = 0, count;
    double spent = 0, per_op;

    while (more) {
        spent += bench_run(b, op, n, chunk);
        done += chunk;
        chunk = chunk * 2 < want - done ? chunk * 2 : want - done;
        more = done < want && spent < b->o.batch_s / 2;
        if (coll) BENCH_MPI(b, MPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
    }
    per_op = spent / (double)done;
    count = bench_batch_count(per_op, nominal, b->o.batch_s);
    if (coll) BENCH_MPI(b, MPI_Bcast(&count, 1, MPI_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
    return count;
}

/* ------------------------------------------------------------ data checks */

/* A pattern whose period (251) is no power of two, so shifted or stale
 * data does not pass; seed tells one measurement's bytes from another's. */
static unsigned char bench_byte(size_t i, unsigned seed) { return (unsigned char)((i % 251) * 3 + seed * 41 + 1); }

static void bench_fill(unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) buf[i] = bench_byte(i, seed);
}

/* Checks buf holds the pattern; a mismatch means a figure timed nothing. */
static void bench_verify(const bench_t *b, const char *what, const unsigned char *buf, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != bench_byte(i, seed)) {
            char why[160];
            snprintf(why, sizeof(why), "%zu bytes arrived wrong: byte %zu is %u, expected %u", n, i, buf[i],
                     bench_byte(i, seed));
            BENCH_FAIL(b, what, why);
        }
    }
}

/* PE 1 checks what PE 0's puts of n bytes left in shoal's target and in
 * both windows. */
static void bench_verify_puts(const bench_t *b, size_t n, unsigned seed, const char *what)
{
    static const char *const win_names[BENCH_WIN_COUNT] = {"MPI_Put (MPI_Win_allocate)", "MPI_Put (MPI_Win_create)"};
    char name[96];

    /* shoal's puts are visible after its barrier; MPI's after the origin's
     * flush, a synchronization and MPI_Win_sync at the target. */
    BENCH_SHOAL(b, shoal_barrier_all(b->sh), "shoal_barrier_all");
    if (b->me == 1) {
        snprintf(name, sizeof(name), "%s shoal_put", what);
        bench_verify(b, name, b->sym, n, seed);
        for (int w = 0; w < BENCH_WIN_COUNT; w++) {
            BENCH_MPI(b, MPI_Win_sync(b->win[w]), "MPI_Win_sync");
            snprintf(name, sizeof(name), "%s %s", what, win_names[w]);
            bench_verify(b, name, b->win_mem[w], n, seed);
        }
    }
    bench_sync(b);
}

/* ------------------------------------------------------------ report */

/* One latency line: microseconds per op and shoal's share of the reference's. */
static void bench_line(const char *what, double shoal, double ref)
{
    printf("%-40s %10.3f %10.3f %10.3f\n", what, shoal * 1e6, ref * 1e6, shoal / ref);
}

/* One goal line: met when value is on the right side of limit. */
static void bench_goal(const char *what, double ratio, double limit, int at_most)
{
    int met = at_most ? ratio <= limit : ratio >= limit;
    printf("  %-44s %s %.2fx   measured %.3fx   %s\n", what, at_most ? "<=" : ">=", limit, ratio,
           met ? "met" : "MISSED");
}

/* ------------------------------------------------------------ measurements */

/* One batch of each op of f in pass pass, or (pass 0) the warm-up that
 * fixes the counts. One-sided ops run on PE 0 while the others wait; the
 * op that goes first turns with the pass, so none always runs right after
 * the data checks; every batch is checked by a fresh pattern. */
static void bench_fig_batch(bench_t *b, bench_fig_t *f, int pass)
{
    int coll = bench_is_collective(f->ops[0]);
    size_t n = f->n;
    unsigned seed = ++b->seed;

    if (f->kind == BENCH_FIG_GET && b->me == 1) {
        /* PE 1 writes what the gets must fetch. */
        bench_fill(b->sym, n, seed);
        for (int w = 0; w < BENCH_WIN_COUNT; w++) {
            bench_fill(b->win_mem[w], n, seed);
            BENCH_MPI(b, MPI_Win_sync(b->win[w]), "MPI_Win_sync");
        }
    }
    if (b->me == 0) {
        /* memcpy's destination is left as the last batch left it: its
         * bytes are checked against this batch's pattern after. */
        if (f->kind == BENCH_FIG_GET)
            memset(b->dst, 0, 128 + n);
        else
            bench_fill(b->src, n, seed);
    }
    if (f->kind == BENCH_FIG_GET) BENCH_SHOAL(b, shoal_barrier_all(b->sh), "shoal_barrier_all");
    bench_sync(b);

    if (coll || b->me == 0) {
        for (int j = 0; j < f->nops; j++) {
            int k = (j + pass) % f->nops;
            double t;
            if (pass == 0) {
                f->count[k] = bench_calibrate(b, f->ops[k], n, f->count[k]);
                f->best[k] = -1;
                continue;
            }
            if (coll) bench_sync(b);
            t = bench_run(b, f->ops[k], n, f->count[k]) / (double)f->count[k];
            bench_keep_best(&f->best[k], t);
        }
    }
    bench_sync(b);

    switch (f->kind) {
    case BENCH_FIG_PUT: bench_verify_puts(b, n, seed, "8-byte"); break;
    case BENCH_FIG_BANDWIDTH:
        if (b->me == 0) bench_verify(b, "memcpy", b->dst, n, seed);
        bench_verify_puts(b, n, seed, "bandwidth");
        break;
    case BENCH_FIG_GET:
        if (b->me == 0) {
            bench_verify(b, "8-byte shoal_get", b->dst, n, seed);
            bench_verify(b, "8-byte MPI_Get (MPI_Win_allocate)", b->dst + 64, n, seed);
            bench_verify(b, "8-byte MPI_Get (MPI_Win_create)", b->dst + 128, n, seed);
        }
        bench_sync(b);
        break;
    }
}

/* The figures: put, get, barrier, then the sweep, powers of two from 8
 * bytes and max_size itself if it is none. Returns how many. */
static int bench_figs(const bench_t *b, bench_fig_t *figs, int max)
{
    static const bench_fig_t put = {.kind = BENCH_FIG_PUT,
                                    .n = BENCH_LAT_SIZE,
                                    .nops = 3,
                                    .ops = {BENCH_SHOAL_PUT, BENCH_MPI_PUT_ALLOC, BENCH_MPI_PUT_CREATE}};
    static const bench_fig_t get = {.kind = BENCH_FIG_GET,
                                    .n = BENCH_LAT_SIZE,
                                    .nops = 3,
                                    .ops = {BENCH_SHOAL_GET, BENCH_MPI_GET_ALLOC, BENCH_MPI_GET_CREATE}};
    static const bench_fig_t bar = {.kind = BENCH_FIG_BARRIER,
                                    .nops = 2,
                                    .ops = {BENCH_SHOAL_BARRIER, BENCH_MPI_BARRIER}};
    static const bench_fig_t bw = {.kind = BENCH_FIG_BANDWIDTH,
                                   .nops = 4,
                                   .ops = {BENCH_SHOAL_PUT, BENCH_MEMCPY, BENCH_MPI_PUT_ALLOC, BENCH_MPI_PUT_CREATE}};
    int nf = 0;

    figs[nf++] = put;
    figs[nf++] = get;
    figs[nf++] = bar;
    for (size_t n = BENCH_LAT_SIZE; nf < max; n = n * 2 <= b->o.max_size ? n * 2 : b->o.max_size) {
        /* A bandwidth batch moves batch_bytes, in at most iters puts. */
        long nominal = (long)(b->o.batch_bytes / n);
        if (nominal > b->o.iters) nominal = b->o.iters;
        figs[nf] = bw;
        figs[nf].n = n;
        for (int k = 0; k < 4; k++) figs[nf].count[k] = nominal > 0 ? nominal : 1;
        nf++;
        if (n == b->o.max_size) break;
    }
    for (int f = 0; f < 3; f++)
        for (int k = 0; k < figs[f].nops; k++) figs[f].count[k] = b->o.iters;
    return nf;
}

/* ------------------------------------------------------------ setup */

static void bench_usage(FILE *out)
{
    fprintf(out, "usage: mpiexec -n 2|4 shoal-bench [--iters N] [--max-size BYTES] [--batches N] [--quick]\n"
                 "  --iters N         operations per latency and barrier batch (default 100000)\n"
                 "  --max-size BYTES  largest put of the bandwidth sweep, suffixes k, m, g (default 64m)\n"
                 "  --batches N       batches per figure, the best counts (default 5; more on a busy machine)\n"
                 "  --quick           few iterations and sizes up to 4m, for smoke tests\n");
}

/* 0 on success, 1 on a bad command line (a message was printed by rank 0),
 * 2 for --help. */
static int bench_parse_args(int argc, char **argv, int me, bench_opts_t *o)
{
    long iters = 0, batches = 0;
    size_t max_size = 0;
    int quick = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val;
        if (strcmp(a, "--quick") == 0) {
            quick = 1;
            continue;
        }
        if (bench_is_help(me, a, bench_usage)) return 2;
        if ((val = bench_opt_value(argc, argv, &i, "--iters")) != NULL) {
            if (!bench_parse_count(me, "--iters", val, LONG_MAX, &iters)) return 1;
            continue;
        }
        if ((val = bench_opt_value(argc, argv, &i, "--batches")) != NULL) {
            if (!bench_parse_count(me, "--batches", val, 1000, &batches)) return 1;
            continue;
        }
        if ((val = bench_opt_value(argc, argv, &i, "--max-size")) != NULL) {
            max_size = bench_parse_size(val);
            if (max_size >= BENCH_LAT_SIZE && max_size <= (size_t)INT_MAX) continue;
            if (me == 0)
                fprintf(stderr, "shoal-bench: --max-size wants 8 bytes to 2g - 1 (MPI counts are ints), not '%s'\n",
                        val);
            return 1;
        }
        return bench_unknown_arg(me, a, bench_usage);
    }
    o->quick = quick;
    o->iters = quick ? 1000 : 100000;
    o->max_size = quick ? BENCH_GOAL_BW_SIZE : 64 * BENCH_MIB;
    o->batches = quick ? 3 : 5;
    o->batch_s = quick ? 0.02 : 0.1;
    o->batch_bytes = quick ? 64 * BENCH_MIB : 256 * BENCH_MIB;
    if (iters > 0) o->iters = iters;
    if (batches > 0) o->batches = (int)batches;
    if (max_size > 0) o->max_size = max_size;
    return 0;
}

/* Allocates the targets, the MPI windows and the private buffers. */
static void bench_setup(bench_t *b)
{
    size_t n = b->o.max_size, priv = (n + 2 * 4096 - 1) / 4096 * 4096; /* room for the gets' 128 + 8 */
    void *mem = NULL;

    b->sym = shoal_malloc(b->sh, n);
    if (b->sym == NULL) BENCH_FAIL(b, "shoal_malloc", shoal_last_error(b->sh));
    b->win_mem[BENCH_WIN_CREATE] = shoal_malloc(b->sh, n);
    if (b->win_mem[BENCH_WIN_CREATE] == NULL) BENCH_FAIL(b, "shoal_malloc", shoal_last_error(b->sh));
    BENCH_MPI(b, MPI_Win_allocate((MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &b->win[BENCH_WIN_ALLOC]),
              "MPI_Win_allocate");
    b->win_mem[BENCH_WIN_ALLOC] = mem;
    BENCH_MPI(b,
              MPI_Win_create(b->win_mem[BENCH_WIN_CREATE], (MPI_Aint)n, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                             &b->win[BENCH_WIN_CREATE]),
              "MPI_Win_create");
    memset(b->sym, 0, n); /* touch every page before anything is timed */
    for (int w = 0; w < BENCH_WIN_COUNT; w++) {
        memset(b->win_mem[w], 0, n);
        BENCH_MPI(b, MPI_Win_set_errhandler(b->win[w], MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
        BENCH_MPI(b, MPI_Win_lock_all(MPI_MODE_NOCHECK, b->win[w]), "MPI_Win_lock_all");
    }

    b->src = aligned_alloc(4096, priv);
    b->dst = aligned_alloc(4096, priv);
    if (b->src == NULL || b->dst == NULL) BENCH_FAIL(b, "aligned_alloc", strerror(ENOMEM));
    memset(b->src, 0, priv);
    memset(b->dst, 0, priv);
}

static void bench_teardown(bench_t *b)
{
    for (int w = 0; w < BENCH_WIN_COUNT; w++) {
        BENCH_MPI(b, MPI_Win_unlock_all(b->win[w]), "MPI_Win_unlock_all");
        BENCH_MPI(b, MPI_Win_free(&b->win[w]), "MPI_Win_free");
    }
    BENCH_SHOAL(b, shoal_free(b->sh, b->win_mem[BENCH_WIN_CREATE]), "shoal_free");
    BENCH_SHOAL(b, shoal_free(b->sh, b->sym), "shoal_free");
    free(b->src);
    free(b->dst);
}

/* Nodes in the run, ranks and cores of this host. */
static void bench_topology(bench_t *b, int *n_nodes_p, int *host_ranks_p, long *cores_p)
{
    *n_nodes_p = bench_n_nodes(b->me, b->sh, b->n_pes);
    *host_ranks_p = bench_host_ranks(b->me);
    *cores_p = sysconf(_SC_NPROCESSORS_ONLN);
}

static void bench_header(const bench_t *b, int n_nodes, int host_ranks, long cores)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], maxs[32];
    const char *tp = NULL, *node_env = getenv("SHOAL_NODE_SIZE");
    size_t heap_free = 0, heap_used = 0;

    BENCH_SHOAL(b, shoal_pe_transport(b->sh, 1, &tp), "shoal_pe_transport");
    BENCH_SHOAL(b, shoal_heap_usage(b->sh, &heap_used, &heap_free), "shoal_heap_usage");
    bench_mpi_library(b->me, lib);
    if (b->me != 0) return;
    bench_size_str(b->o.max_size, maxs, sizeof(maxs));
    bench_print_versions(lib);
    printf("n_pes %d, transport PE 0 -> PE 1: %s, nodes %d (SHOAL_NODE_SIZE=%s), %d ranks on %ld cores%s\n", b->n_pes,
           tp, n_nodes, node_env ? node_env : "unset", host_ranks, cores,
           host_ranks > cores ? " (oversubscribed)" : "");
    printf("heap host, %zu MiB per PE; MPI windows of %s, lock_all: \"alloc\" MPI_Win_allocate, "
           "\"create\" MPI_Win_create over a shoal_malloc buffer\n",
           (heap_used + heap_free) / BENCH_MIB, maxs);
    bench_print_batches(b->o.batches, b->o.iters, b->o.batch_s, b->o.quick);
    bench_print_load(cores);
    printf("\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    bench_t b = {.win = {MPI_WIN_NULL, MPI_WIN_NULL}};
    bench_fig_t figs[3 + 8 * sizeof(size_t)];
    double put_mpi = 0, bw_goal = 0;
    int n_nodes, host_ranks, rc, nf;
    long cores;
    const char *tp = NULL;

    bench_mpi_init(&argc, &argv, &b.me, &b.n_pes);
    rc = bench_parse_args(argc, argv, b.me, &b.o);
    if (rc != 0) {
        MPI_Finalize();
        return rc == 2 ? 0 : 1;
    }
    if (b.n_pes < 2) {
        if (b.me == 0) fprintf(stderr, "shoal-bench: needs 2 or more ranks (PE 0 puts into PE 1): mpiexec -n 2\n");
        MPI_Finalize();
        return 1;
    }

    bench_shoal_init(b.me, 2 * b.o.max_size + 4 * BENCH_MIB, &b.sh); /* both targets, alignment, slack */
    bench_topology(&b, &n_nodes, &host_ranks, &cores);
    b.oversubscribed = host_ranks > cores;
    bench_setup(&b);
    bench_header(&b, n_nodes, host_ranks, cores);

    nf = bench_figs(&b, figs, (int)(sizeof(figs) / sizeof(figs[0])));
    for (int pass = 0; pass <= b.o.batches; pass++)
        for (int f = 0; f < nf; f++) bench_fig_batch(&b, &figs[f], pass);

    if (b.me == 0) {
        const double *put = figs[0].best, *get = figs[1].best, *bar = figs[2].best;
        printf("%-40s %10s %10s %10s\n", "latency, us/op: reference", "shoal", "reference", "ratio");
        bench_line("put 8 B: MPI_Put+flush, alloc window", put[0], put[1]);
        bench_line("put 8 B: MPI_Put+flush, create window", put[0], put[2]);
        bench_line("get 8 B: MPI_Get+flush, alloc window", get[0], get[1]);
        bench_line("get 8 B: MPI_Get+flush, create window", get[0], get[2]);
        bench_line("barrier_all: MPI_Barrier", bar[0], bar[1]);
        printf("\n%-9s %9s %9s %9s %10s %13s %10s\n", "put GB/s", "shoal", "memcpy", "MPI alloc", "MPI create",
               "shoal/memcpy", "shoal/MPI");
        for (int f = 3; f < nf; f++) {
            double gbs[4];
            char name[32];
            for (int k = 0; k < 4; k++) gbs[k] = (double)figs[f].n / figs[f].best[k] * 1e-9;
            bench_size_str(figs[f].n, name, sizeof(name));
            printf("%-9s %9.3f %9.3f %9.3f %10.3f %13.3f %10.3f\n", name, gbs[0], gbs[1], gbs[2], gbs[3],
                   gbs[0] / gbs[1], gbs[0] / (gbs[2] > gbs[3] ? gbs[2] : gbs[3]));
            if (figs[f].n == BENCH_GOAL_BW_SIZE) bw_goal = gbs[0] / gbs[1];
        }
        /* The goals are judged against MPI's faster window. */
        put_mpi = put[1] < put[2] ? put[1] : put[2];
        fflush(stdout);
    }

    {
        /* Alternating, the mean of each: how much the waiters get in the
         * worker's way varies from one round to the next. */
        int reps = b.o.quick ? 6 : 20;
        double imb[2] = {0, 0};
        for (int rep = 0; rep < reps; rep++)
            for (int k = 0; k < 2; k++) imb[k] += bench_imbalance(&b, k == 0) / reps;
        if (b.me == 0) {
            printf("\n%-40s %10s %10s %10s\n", "imbalance, ms of PE 0's work: others in", "shoal", "MPI", "ratio");
            printf("%-40s %10.3f %10.3f %10.3f\n", "shoal_barrier_all / MPI_Barrier", imb[0] * 1e3, imb[1] * 1e3,
                   imb[0] / imb[1]);
        }
    }

    BENCH_SHOAL(&b, shoal_pe_transport(b.sh, 1, &tp), "shoal_pe_transport");
    if (b.me == 0) {
        printf("(shoal/MPI: against the faster of the two MPI windows)\n");
        /* The goals are for one node: puts between PEs of a node (shm), a
         * barrier of PEs all on one node. */
        printf("\ngoals (one node; MPI: the faster window)%s:\n",
               b.o.quick ? "; --quick: indicative only, 4 MiB reads low with few puts per batch" : "");
        if (strcmp(tp, "shm") == 0) {
            bench_goal("put 8 B latency / MPI_Put+MPI_Win_flush", figs[0].best[0] / put_mpi, 0.1, 1);
            if (bw_goal > 0)
                bench_goal("put 4 MiB bandwidth / memcpy", bw_goal, 0.9, 0);
            else
                printf("  put 4 MiB bandwidth / memcpy: not measured (--max-size below 4 MiB)\n");
        } else {
            printf("  put goals not checked: PE 0 -> PE 1 goes over %s, not shm\n", tp);
        }
        if (n_nodes != 1)
            printf("  barrier goal not checked: the PEs span %d nodes\n", n_nodes);
        else if (host_ranks > cores)
            bench_goal("barrier_all / MPI_Barrier, oversubscribed", figs[2].best[0] / figs[2].best[1], 0.1, 1);
        else
            bench_goal("barrier_all / MPI_Barrier", figs[2].best[0] / figs[2].best[1], 1.0, 1);
        printf("data checked after every batch: ok\n");
        fflush(stdout);
    }

    bench_teardown(&b);
    BENCH_SHOAL(&b, shoal_finalize(b.sh), "shoal_finalize");
    MPI_Finalize();
    return 0;
}
