/*
 * shoal-bench-shmem-coll: what the OpenSHMEM layer costs over shoal's native
 * API on the operations the OSU OpenSHMEM benchmarks time beyond put and get
 * (shoal-bench-shmem has those): atomics, a message rate of small
 * non-blocking puts, barrier, broadcast, collect, fcollect and a sum
 * reduction. Each row runs the OpenSHMEM routine and the native call it
 * maps to on the same shmem_malloc buffers of shmem_shoal()'s instance, in
 * alternating batches (the machine is shared: the ratio is measured in one
 * run), and prints the best batch of each and shmem/native (goal: at most
 * 1.05). Every row's data is checked after it ran.
 *
 *   oshrun -n 2 shoal-bench-shmem-coll [--quick]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem.h"
#include "shoal.h"

enum { SHMEM, NATIVE, IMPLS };

typedef struct {
    shoal_t sh;
    shoal_team_t world;
    int me, n, right;
    long *word;          /* symmetric: the atomics' target */
    char *src, *dst;     /* symmetric: 1 MiB each */
    long *red_s, *red_d; /* symmetric: reduction operands */
} bench_t;

static void die(const bench_t *b, const char *what)
{
    fprintf(stderr, "shoal-bench-shmem-coll: PE %d: %s failed: %s\n", b->me, what, shoal_last_error(b->sh));
    shmem_global_exit(1);
}

#define NATIVE_OK(b, call)                                                                                             \
    do {                                                                                                               \
        if ((call) != SHOAL_SUCCESS) die((b), #call);                                                                  \
    } while (0)
#define SHMEM_OK(b, call)                                                                                              \
    do {                                                                                                               \
        if ((call) != 0) die((b), #call);                                                                              \
    } while (0)

/* One row: op(b, impl, size) runs once; size is the row's bytes or elements. */
typedef void bench_op_t(bench_t *b, int impl, size_t size);

static void op_fetch_add(bench_t *b, int impl, size_t size)
{
    long old = 0;
    (void)size;
    if (impl == SHMEM)
        old = shmem_long_atomic_fetch_add(b->word, 1, b->right);
    else
        NATIVE_OK(b, shoal_long_atomic_fetch_add(b->sh, b->word, 1, b->right, &old));
    if (old < 0) die(b, "fetch_add (a negative count)");
}

static void op_add(bench_t *b, int impl, size_t size)
{
    (void)size;
    if (impl == SHMEM)
        shmem_long_atomic_add(b->word, 1, b->right);
    else
        NATIVE_OK(b, shoal_long_atomic_add(b->sh, b->word, 1, b->right));
}

/* 64 non-blocking puts of size bytes, then a quiet (OSU put_mr's window). */
static void op_put_mr(bench_t *b, int impl, size_t size)
{
    for (int k = 0; k < 64; k++) {
        char *d = b->dst + (size_t)k * size;
        if (impl == SHMEM)
            shmem_putmem_nbi(d, b->src, size, b->right);
        else
            NATIVE_OK(b, shoal_put_nbi(b->sh, d, b->src, size, b->right));
    }
    if (impl == SHMEM)
        shmem_quiet();
    else
        NATIVE_OK(b, shoal_quiet(b->sh));
}

static void op_barrier(bench_t *b, int impl, size_t size)
{
    (void)size;
    if (impl == SHMEM)
        shmem_barrier_all();
    else
        NATIVE_OK(b, shoal_barrier_all(b->sh));
}

static void op_bcast(bench_t *b, int impl, size_t size)
{
    if (impl == SHMEM)
        SHMEM_OK(b, shmem_broadcastmem(SHMEM_TEAM_WORLD, b->dst, b->src, size, 0));
    else
        NATIVE_OK(b, shoal_broadcastmem(b->world, b->dst, b->src, size, 0));
}

static void op_collect(bench_t *b, int impl, size_t size)
{
    if (impl == SHMEM)
        SHMEM_OK(b, shmem_collectmem(SHMEM_TEAM_WORLD, b->dst, b->src, size));
    else
        NATIVE_OK(b, shoal_collectmem(b->world, b->dst, b->src, size));
}

static void op_fcollect(bench_t *b, int impl, size_t size)
{
    if (impl == SHMEM)
        SHMEM_OK(b, shmem_fcollectmem(SHMEM_TEAM_WORLD, b->dst, b->src, size));
    else
        NATIVE_OK(b, shoal_fcollectmem(b->world, b->dst, b->src, size));
}

static void op_reduce(bench_t *b, int impl, size_t size)
{
    if (impl == SHMEM)
        SHMEM_OK(b, shmem_long_sum_reduce(SHMEM_TEAM_WORLD, b->red_d, b->red_s, size));
    else
        NATIVE_OK(b, shoal_long_sum_reduce(b->world, b->red_d, b->red_s, size));
}

/* What each row's run left behind, checked after it: a collective's dest
 * holds every member's block; an atomic row's counts arrive whole. */
static void check_row(bench_t *b, const char *name, bench_op_t *op, size_t size, long runs)
{
    if (op == op_bcast)
        for (size_t i = 0; i < size; i++)
            if (b->dst[i] != (char)(i * 7 + 1)) die(b, "broadcast's data check");
    if (op == op_fcollect || op == op_collect)
        for (int p = 0; p < b->n; p++)
            for (size_t i = 0; i < size; i++)
                if (b->dst[(size_t)p * size + i] != (char)(i * 7 + 1 + p)) die(b, "collect's data check");
    if (op == op_reduce)
        for (size_t i = 0; i < size; i++)
            if (b->red_d[i] != (long)b->n * (long)(b->n - 1) / 2 + (long)b->n * (long)i) die(b, "reduce's check");
    if (op == op_fetch_add || op == op_add) {
        shmem_barrier_all();
        if (*b->word != runs) {
            fprintf(stderr, "PE %d: %s: the word counts %ld, not %ld\n", b->me, name, *b->word, runs);
            die(b, "atomic count check");
        }
    }
}

/* Fill the operands the way check_row expects (src differs per PE only
 * for the gathers). */
static void fill(bench_t *b, bench_op_t *op, size_t size)
{
    int root_data = op == op_bcast;
    for (size_t i = 0; i < size && i < ((size_t)1 << 20); i++) b->src[i] = (char)(i * 7 + 1 + (root_data ? 0 : b->me));
    for (size_t i = 0; i < size && i < 4096; i++) b->red_s[i] = b->me + (long)i;
    *b->word = 0;
    shmem_barrier_all();
}

/* The seconds of count runs of op by impl, every PE together. */
static double batch(bench_t *b, bench_op_t *op, int impl, size_t size, long count)
{
    double t;
    shmem_barrier_all();
    t = MPI_Wtime();
    for (long k = 0; k < count; k++) op(b, impl, size);
    if (op == op_add) shmem_quiet();
    t = MPI_Wtime() - t;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return t / (double)count;
}

static void row(bench_t *b, const char *name, bench_op_t *op, size_t size, long count, int rounds)
{
    double best[IMPLS] = {1e30, 1e30};
    long runs = 0;

    fill(b, op, size);
    for (int r = 0; r < rounds; r++)
        for (int impl = 0; impl < IMPLS; impl++) {
            double t = batch(b, op, (r + impl) % 2, size, count);
            int which = (r + impl) % 2;
            if (t < best[which]) best[which] = t;
            runs += count;
        }
    check_row(b, name, op, size, (op == op_fetch_add || op == op_add) ? runs : 0);
    if (b->me == 0)
        printf("%-28s shmem %9.2f us   native %9.2f us   ratio %.3f\n", name, best[SHMEM] * 1e6, best[NATIVE] * 1e6,
               best[SHMEM] / best[NATIVE]);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    bench_t b = {0};
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0, rounds = quick ? 3 : 7;
    long small = quick ? 2000 : 10000, coll = quick ? 300 : 2000;

    shmem_init();
    b.sh = shmem_shoal();
    b.world = shoal_team_world(b.sh);
    b.me = shmem_my_pe();
    b.n = shmem_n_pes();
    b.right = (b.me + 1) % b.n;
    b.word = shmem_malloc(64);
    b.src = shmem_malloc((size_t)1 << 20);
    b.dst = shmem_malloc((size_t)b.n << 20);
    b.red_s = shmem_malloc(4096 * sizeof(long));
    b.red_d = shmem_malloc(4096 * sizeof(long));
    if (b.word == NULL || b.src == NULL || b.dst == NULL || b.red_s == NULL || b.red_d == NULL) die(&b, "shmem_malloc");
    if (b.me == 0)
        printf("shoal-bench-shmem-coll: %d PEs, %s heap; best of %d batches each; ratio = shmem / native\n", b.n,
               getenv("SHOAL_HEAP_KIND") != NULL ? getenv("SHOAL_HEAP_KIND") : "host", rounds);
    row(&b, "atomic fetch_add (long)", op_fetch_add, 8, small, rounds);
    row(&b, "atomic add (long)", op_add, 8, small, rounds);
    row(&b, "put_mr 8 B x 64 + quiet", op_put_mr, 8, small / 10, rounds);
    row(&b, "barrier_all", op_barrier, 0, coll, rounds);
    row(&b, "broadcast 8 B", op_bcast, 8, coll, rounds);
    row(&b, "broadcast 64 KiB", op_bcast, 65536, coll / 10, rounds);
    row(&b, "collect 8 B", op_collect, 8, coll, rounds);
    row(&b, "fcollect 8 B", op_fcollect, 8, coll, rounds);
    row(&b, "fcollect 64 KiB", op_fcollect, 65536, coll / 10, rounds);
    row(&b, "sum_reduce long x 1", op_reduce, 1, coll, rounds);
    row(&b, "sum_reduce long x 1024", op_reduce, 1024, coll / 10, rounds);
    shmem_free(b.red_d);
    shmem_free(b.red_s);
    shmem_free(b.dst);
    shmem_free(b.src);
    shmem_free(b.word);
    shmem_finalize();
    return 0;
}
