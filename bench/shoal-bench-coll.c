/*
 * shoal-bench-coll: shoal's collectives on the world team (host heap)
 * against MPI's on a duplicate of MPI_COMM_WORLD, in the same run.
 *
 * Figures, per size n (8 B to 1 MiB by powers of 2, or --max-size):
 *
 *   broadcast  shoal_broadcastmem(world, n bytes, root 0)   vs MPI_Bcast
 *   fcollect   shoal_fcollectmem(world, n bytes per PE)     vs MPI_Allgather
 *   alltoall   shoal_alltoallmem(world, n bytes per block)  vs MPI_Alltoall
 *   sum_reduce shoal_int64_sum_reduce(world, n / 8 int64)   vs MPI_Allreduce(MPI_INT64_T, MPI_SUM)
 *
 * A figure is the time per call of a loop of back-to-back calls on every
 * rank, the slowest rank's, best of several batches; batches run in passes
 * over every figure, shoal's and MPI's side by side and taking turns at
 * going first, so that a burst of other work on the machine hits both
 * alike. A slow figure runs fewer calls per batch (fixed in a warm-up
 * pass). MPI's buffers are private memory (malloc), shoal's symmetric.
 *
 * What is checked, so that no figure times nothing: before the timed
 * passes and after them, each collective of each size runs once through
 * shoal and once through MPI on inputs that differ per PE, and every byte
 * of every PE's result is compared with what it must be.
 *
 * Goals (one node): shoal at most 0.5x MPI's latency up to 4 KiB, and at
 * least MPI's bandwidth (a ratio of times at most 1.0) above 256 KiB. The
 * table marks a ratio that misses its goal with '!'.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-coll [--max-size N] [--iters N] [--batches N] [--quick]
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define BENCH_PROG "shoal-bench-coll"
#include "bench_host.h"
#include "shoal.h"

enum { OP_BCAST, OP_FCOLLECT, OP_ALLTOALL, OP_REDUCE, NOPS };
static const char *const op_name[NOPS] = {"broadcast", "fcollect", "alltoall", "sum_reduce"};
static const char *const mpi_name[NOPS] = {"MPI_Bcast", "MPI_Allgather", "MPI_Alltoall", "MPI_Allreduce"};

#define GOAL_LAT_MAX ((size_t)4 << 10)    /* latency goal: sizes up to this */
#define GOAL_LAT 0.5                      /* shoal / MPI at most */
#define GOAL_BW_ABOVE ((size_t)256 << 10) /* bandwidth goal: sizes above this */
#define GOAL_BW 1.0                       /* shoal / MPI time at most */

typedef struct bench_opts {
    size_t max_size; /* largest n */
    long iters;      /* calls per batch (at most) */
    int batches;     /* batches per figure; the fastest one counts */
    double batch_s;  /* longest a batch should last: slow figures run fewer calls */
    int quick;       /* --quick: a smoke test, rough figures */
} bench_opts_t;

typedef struct bench {
    shoal_t sh;
    shoal_team_t world;
    MPI_Comm comm; /* MPI's collectives: a duplicate of MPI_COMM_WORLD */
    int me, n_pes;
    int oversubscribed; /* more ranks on this host than cores */
    bench_opts_t o;
    size_t span;                  /* bytes of each buffer: max_size * n_pes */
    unsigned char *sh_src;        /* symmetric */
    unsigned char *sh_dst;        /* symmetric */
    unsigned char *m_src, *m_dst; /* private, for MPI */
} bench_t;

/* One figure: an operation at one size, shoal's and MPI's. */
typedef struct bench_fig {
    int op;
    size_t n;
    long count[2];  /* calls per batch, fixed in the warm-up pass */
    double best[2]; /* seconds per call: shoal's, MPI's */
} bench_fig_t;

/* ------------------------------------------------------------ calls */

/* One call of op on n bytes, through shoal (mpi 0) or MPI (mpi 1). */
static void bench_call(bench_t *b, int op, int mpi, size_t n)
{
    int cnt = (int)n;

    if (!mpi) {
        switch (op) {
        case OP_BCAST:
            BENCH_SHOAL(b, shoal_broadcastmem(b->world, b->sh_dst, b->sh_src, n, 0), "shoal_broadcastmem");
            break;
        case OP_FCOLLECT:
            BENCH_SHOAL(b, shoal_fcollectmem(b->world, b->sh_dst, b->sh_src, n), "shoal_fcollectmem");
            break;
        case OP_ALLTOALL:
            BENCH_SHOAL(b, shoal_alltoallmem(b->world, b->sh_dst, b->sh_src, n), "shoal_alltoallmem");
            break;
        default:
            BENCH_SHOAL(b, shoal_int64_sum_reduce(b->world, (int64_t *)b->sh_dst, (const int64_t *)b->sh_src, n / 8),
                        "shoal_int64_sum_reduce");
        }
        return;
    }
    switch (op) {
    case OP_BCAST: BENCH_MPI(b, MPI_Bcast(b->m_dst, cnt, MPI_BYTE, 0, b->comm), "MPI_Bcast"); break;
    case OP_FCOLLECT:
        BENCH_MPI(b, MPI_Allgather(b->m_src, cnt, MPI_BYTE, b->m_dst, cnt, MPI_BYTE, b->comm), "MPI_Allgather");
        break;
    case OP_ALLTOALL:
        BENCH_MPI(b, MPI_Alltoall(b->m_src, cnt, MPI_BYTE, b->m_dst, cnt, MPI_BYTE, b->comm), "MPI_Alltoall");
        break;
    default: BENCH_MPI(b, MPI_Allreduce(b->m_src, b->m_dst, cnt / 8, MPI_INT64_T, MPI_SUM, b->comm), "MPI_Allreduce");
    }
}

/* count calls between two meetings of every rank; the slowest rank's
 * seconds per call, as every rank agrees. */
static double bench_run(bench_t *b, int op, int mpi, size_t n, long count)
{
    double t;

    bench_meet(b->me, b->oversubscribed, 0);
    t = MPI_Wtime();
    for (long i = 0; i < count; i++) bench_call(b, op, mpi, n);
    t = MPI_Wtime() - t;
    BENCH_MPI(b, MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return t / (double)count;
}

/* ------------------------------------------------------------ checks */

/* Byte j of block blk of PE pe's input. */
static unsigned char bench_pat(int pe, int blk, size_t j) { return (unsigned char)(pe * 31 + blk * 7 + j * 13 + 1); }

/* Element k of PE pe's reduction input. */
static int64_t bench_term(int pe, size_t k) { return (int64_t)pe * 1000003 + (int64_t)k; }

/* The inputs of op at n into src (shoal's or MPI's). */
static void bench_inputs(const bench_t *b, int op, size_t n, unsigned char *src)
{
    if (op == OP_REDUCE) {
        for (size_t k = 0; k < n / 8; k++) {
            int64_t v = bench_term(b->me, k);
            memcpy(src + k * 8, &v, 8);
        }
        return;
    }
    for (int blk = 0; blk < (op == OP_ALLTOALL ? b->n_pes : 1); blk++)
        for (size_t j = 0; j < n; j++) src[(size_t)blk * n + j] = bench_pat(b->me, blk, j);
}

/* Whether dst holds op's result at n on this PE; else the first wrong
 * byte's offset in *at. */
static int bench_result_ok(const bench_t *b, int op, size_t n, const unsigned char *dst, size_t *at)
{
    size_t blocks = op == OP_BCAST ? 1 : (size_t)b->n_pes;

    if (op == OP_REDUCE) {
        for (size_t k = 0; k < n / 8; k++) {
            int64_t want = 0, got;
            for (int pe = 0; pe < b->n_pes; pe++) want += bench_term(pe, k);
            memcpy(&got, dst + k * 8, 8);
            if (got != want) {
                *at = k * 8;
                return 0;
            }
        }
        return 1;
    }
    for (size_t blk = 0; blk < blocks; blk++)
        for (size_t j = 0; j < n; j++) {
            int from = op == OP_BCAST ? 0 : (int)blk;
            int part = op == OP_ALLTOALL ? b->me : 0;
            if (dst[blk * n + j] != bench_pat(from, part, j)) {
                *at = blk * n + j;
                return 0;
            }
        }
    return 1;
}

/* op at n, once through shoal and once through MPI, on fresh inputs and
 * zeroed results: every byte of every PE's result checked. */
static void bench_check(bench_t *b, int op, size_t n)
{
    size_t at = 0;
    char why[160];

    for (int mpi = 0; mpi < 2; mpi++) {
        unsigned char *src = mpi ? b->m_src : b->sh_src, *dst = mpi ? b->m_dst : b->sh_dst;
        memset(dst, 0, b->span);
        bench_inputs(b, op, n, src);
        if (op == OP_BCAST && mpi && b->me == 0) memcpy(dst, src, n); /* MPI_Bcast's root sends its buffer */
        /* Every PE's dest is ready before any puts into it. */
        BENCH_SHOAL(b, shoal_team_sync(b->world), "shoal_team_sync");
        bench_call(b, op, mpi, n);
        if (!bench_result_ok(b, op, n, dst, &at)) {
            snprintf(why, sizeof(why), "%zu bytes: byte %zu of PE %d's result is wrong", n, at, b->me);
            BENCH_FAIL(b, mpi ? mpi_name[op] : op_name[op], why);
        }
        /* Every PE checked before the next call writes its dest. */
        bench_meet(b->me, b->oversubscribed, 0);
    }
}

/* ------------------------------------------------------------ passes */

/* Pass 0 warms up and fixes the counts; passes 1.. time a batch of each,
 * shoal and MPI taking turns at going first. */
static void bench_fig_pass(bench_t *b, bench_fig_t *f, int pass)
{
    for (int j = 0; j < 2; j++) {
        int k = (j + pass) % 2;
        if (pass == 0) {
            long warm = b->o.iters / 20 < 1 ? 1 : b->o.iters / 20 > 100 ? 100 : b->o.iters / 20;
            double per = bench_run(b, f->op, k, f->n, warm);
            f->count[k] = bench_batch_count(per, b->o.iters, b->o.batch_s);
            f->best[k] = -1;
            continue;
        }
        bench_keep_best(&f->best[k], bench_run(b, f->op, k, f->n, f->count[k]));
    }
}

/* ------------------------------------------------------------ setup */

static void bench_usage(FILE *out)
{
    fprintf(out, "usage: mpiexec -n N shoal-bench-coll [--max-size N] [--iters N] [--batches N] [--quick]\n"
                 "  --max-size N  largest size, 8 B to 64 MiB, suffixes k, m (default 1m)\n"
                 "  --iters N     calls per batch, at most (default 2000; fewer where a batch would\n"
                 "                pass 0.05 s)\n"
                 "  --batches N   batches per figure, the best counts (default 5)\n"
                 "  --quick       few calls and 3 batches, for smoke tests\n");
}

/* 0 on success, 1 on a bad command line (rank 0 said why), 2 for --help. */
static int bench_parse_args(int argc, char **argv, int me, bench_opts_t *o)
{
    long iters = 0, batches = 0;
    size_t max_size = BENCH_MIB;
    int quick = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val;
        if (strcmp(a, "--quick") == 0) {
            quick = 1;
            continue;
        }
        if (bench_is_help(me, a, bench_usage)) return 2;
        if ((val = bench_opt_value(argc, argv, &i, "--max-size")) != NULL) {
            max_size = bench_parse_size(val);
            if (max_size < 8 || max_size > 64 * BENCH_MIB) {
                if (me == 0) fprintf(stderr, BENCH_PROG ": --max-size wants 8 B to 64 MiB, not '%s'\n", val);
                return 1;
            }
            continue;
        }
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
    o->max_size = max_size;
    o->iters = quick ? 200 : 2000;
    o->batches = quick ? 3 : 5;
    o->batch_s = quick ? 0.01 : 0.05;
    if (iters > 0) o->iters = iters;
    if (batches > 0) o->batches = (int)batches;
    return 0;
}

static void bench_setup(bench_t *b)
{
    b->span = b->o.max_size * (size_t)b->n_pes;
    b->sh_src = shoal_malloc(b->sh, b->span);
    b->sh_dst = shoal_malloc(b->sh, b->span);
    if (b->sh_src == NULL || b->sh_dst == NULL) BENCH_FAIL(b, "shoal_malloc", shoal_last_error(b->sh));
    b->m_src = aligned_alloc(64, b->span);
    b->m_dst = aligned_alloc(64, b->span);
    if (b->m_src == NULL || b->m_dst == NULL) BENCH_FAIL(b, "aligned_alloc", strerror(ENOMEM));
    /* Every page touched once, outside the timed loops. */
    memset(b->sh_src, 1, b->span);
    memset(b->sh_dst, 0, b->span);
    memset(b->m_src, 1, b->span);
    memset(b->m_dst, 0, b->span);
    BENCH_MPI(b, MPI_Comm_dup(MPI_COMM_WORLD, &b->comm), "MPI_Comm_dup");
    BENCH_SHOAL(b, shoal_barrier_all(b->sh), "shoal_barrier_all");
}

static void bench_teardown(bench_t *b)
{
    BENCH_MPI(b, MPI_Comm_free(&b->comm), "MPI_Comm_free");
    BENCH_SHOAL(b, shoal_free(b->sh, b->sh_dst), "shoal_free");
    BENCH_SHOAL(b, shoal_free(b->sh, b->sh_src), "shoal_free");
    free(b->m_src);
    free(b->m_dst);
}

static void bench_header(const bench_t *b, int n_nodes, long cores, int host_ranks)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    const char *node_env = getenv("SHOAL_NODE_SIZE"), *tp = "self";

    bench_mpi_library(b->me, lib);
    if (b->n_pes > 1) BENCH_SHOAL(b, shoal_pe_transport(b->sh, 1, &tp), "shoal_pe_transport");
    if (b->me != 0) return;
    bench_print_versions(lib);
    printf("n_pes %d, nodes %d (SHOAL_NODE_SIZE=%s), %d ranks on %ld cores%s; transport PE 0 -> PE 1: %s\n", b->n_pes,
           n_nodes, node_env ? node_env : "unset", host_ranks, cores, host_ranks > cores ? " (oversubscribed)" : "",
           tp);
    printf("heap host; shoal on the world team, MPI on a duplicate of MPI_COMM_WORLD (private buffers)\n");
    printf("size: bytes broadcast, each PE's bytes gathered (fcollect, MPI_Allgather), bytes per block\n"
           "(alltoall), bytes of int64 reduced (sum_reduce, MPI_Allreduce SUM); times: us per call, slowest rank\n");
    bench_print_batches(b->o.batches, b->o.iters, b->o.batch_s, b->o.quick);
    bench_print_load(cores);
    printf("\n");
    fflush(stdout);
}

/* The goal that applies to size n: GOAL_LAT, GOAL_BW, or 0 for none. */
static double bench_goal(size_t n)
{
    if (n <= GOAL_LAT_MAX) return GOAL_LAT;
    if (n > GOAL_BW_ABOVE) return GOAL_BW;
    return 0;
}

static void bench_table(const bench_fig_t *figs, int nsizes, int n_nodes)
{
    char sz[32];
    int met[2][NOPS] = {{0}}, tried[2][NOPS] = {{0}};
    double worst[2][NOPS] = {{0}};

    printf("%-8s", "size");
    for (int op = 0; op < NOPS; op++) printf(" | %-27s", op_name[op]);
    printf("\n%-8s", "");
    for (int op = 0; op < NOPS; op++) printf(" | %8s %9s %8s", "shoal", mpi_name[op] + 4, "ratio");
    printf("\n");
    for (int s = 0; s < nsizes; s++) {
        size_t n = figs[s * NOPS].n;
        double goal = bench_goal(n);
        bench_size_str(n, sz, sizeof(sz));
        printf("%-8s", sz);
        for (int op = 0; op < NOPS; op++) {
            const bench_fig_t *f = &figs[s * NOPS + op];
            double r = f->best[0] / f->best[1];
            int g = goal == GOAL_LAT ? 0 : 1, miss = goal > 0 && r > goal;
            printf(" | %8.2f %9.2f %7.3f%c", f->best[0] * 1e6, f->best[1] * 1e6, r, miss ? '!' : ' ');
            if (goal > 0) {
                tried[g][op]++;
                met[g][op] += !miss;
                if (r > worst[g][op]) worst[g][op] = r;
            }
        }
        printf("\n");
    }
    printf("\nratio: shoal / MPI time per call ('!': misses its goal)\n");
    printf("goals%s: latency <= %.1fx MPI up to 4 KiB; bandwidth >= %.1fx MPI (time ratio <= %.1f) above 256 KiB\n",
           n_nodes > 1 ? " (set for one node; these PEs span several)" : "", GOAL_LAT, GOAL_BW, GOAL_BW);
    for (int op = 0; op < NOPS; op++) {
        printf("  %-10s latency: ", op_name[op]);
        if (tried[0][op])
            printf("met at %d of %d sizes (worst ratio %.3f)", met[0][op], tried[0][op], worst[0][op]);
        else
            printf("no size measured");
        printf("; bandwidth: ");
        if (tried[1][op])
            printf("met at %d of %d sizes (worst ratio %.3f)\n", met[1][op], tried[1][op], worst[1][op]);
        else
            printf("no size above 256 KiB measured\n");
    }
    printf("data checked: every byte of every PE's result of each collective at each size, through shoal and MPI, "
           "before and after the timed passes: ok\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    bench_t b = {.comm = MPI_COMM_NULL};
    bench_fig_t *figs;
    int rc, host_ranks, nsizes = 0, n_nodes;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    bench_mpi_init(&argc, &argv, &b.me, &b.n_pes);
    rc = bench_parse_args(argc, argv, b.me, &b.o);
    if (rc != 0) {
        MPI_Finalize();
        return rc == 2 ? 0 : 1;
    }
    host_ranks = bench_host_ranks(b.me);
    b.oversubscribed = host_ranks > cores;
    bench_shoal_init(b.me, 2 * b.o.max_size * (size_t)b.n_pes + 4 * BENCH_MIB, &b.sh);
    b.world = shoal_team_world(b.sh);
    if (b.world == SHOAL_TEAM_INVALID) BENCH_FAIL(&b, "shoal_team_world", shoal_last_error(b.sh));
    n_nodes = bench_n_nodes(b.me, b.sh, b.n_pes);
    bench_setup(&b);
    bench_header(&b, n_nodes, cores, host_ranks);

    for (size_t n = 8; n <= b.o.max_size; n *= 2) nsizes++;
    figs = calloc((size_t)nsizes * NOPS, sizeof(*figs));
    if (figs == NULL) BENCH_FAIL(&b, "calloc", strerror(ENOMEM));
    for (int s = 0; s < nsizes; s++)
        for (int op = 0; op < NOPS; op++) {
            figs[s * NOPS + op].op = op;
            figs[s * NOPS + op].n = (size_t)8 << s;
        }

    for (int f = 0; f < nsizes * NOPS; f++) bench_check(&b, figs[f].op, figs[f].n);
    for (int pass = 0; pass <= b.o.batches; pass++)
        for (int f = 0; f < nsizes * NOPS; f++) bench_fig_pass(&b, &figs[f], pass);
    for (int f = 0; f < nsizes * NOPS; f++) bench_check(&b, figs[f].op, figs[f].n);

    if (b.me == 0) bench_table(figs, nsizes, n_nodes);
    free(figs);
    bench_teardown(&b);
    BENCH_SHOAL(&b, shoal_finalize(b.sh), "shoal_finalize");
    MPI_Finalize();
    return 0;
}
