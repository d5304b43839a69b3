/*
 * A heap whose limit costs nothing: a host heap with a 64 GiB limit per PE
 * (SHOAL_HEAP_SIZE from the test's line) takes no page at init
 * (shoal_heap_stats: nothing mapped; mincore: nothing resident), blocks of
 * odd sizes allocated in steps past 256 MiB are written by their owners,
 * put to the next PE and read back exactly, their pages become resident
 * (and only those), and freeing gives the pages back (mincore: none
 * resident; stats: nothing mapped); the heap then grows again, and
 * freed-and-reused memory reads as the new data. shoal_heap_stats reports
 * used, mapped and the limit.
 *
 * With "fault" (SHOAL_FAULT=grow:PE on the line): PE's first growth fails,
 * as if /dev/shm were full: the allocation returns NULL on every PE with
 * SHOAL_ERR_HEAP_EXHAUSTED and a message naming that PE, nothing is
 * allocated anywhere, and the next allocation succeeds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define STEPS 5
#define WATCH ((size_t)1 << 30) /* the heap's first GiB, watched with mincore */

static shoal_t sh;
static int me, npes;
static char *base;

/* Bytes of [base, base + WATCH) resident in this process. */
static size_t resident(void)
{
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = WATCH / pg, count = 0;
    unsigned char *v = malloc(n);
    CHECK(v != NULL);
    CHECK_MSG(mincore(base, WATCH, v) == 0, "mincore failed");
    for (size_t i = 0; i < n; i++) count += v[i] & 1;
    free(v);
    return count * pg;
}

static shoal_heap_stats_t stats(void)
{
    shoal_heap_stats_t s;
    CHECK_OK(shoal_heap_stats(sh, &s), sh);
    return s;
}

static unsigned char pat(int pe, int step, size_t i) { return (unsigned char)(pe * 31 + step * 7 + i * 13 + 1); }

static void grow_and_give_back(void)
{
    /* Odd sizes: the blocks do not end on page boundaries. */
    static const size_t sizes[STEPS] = {(size_t)48 << 20, ((size_t)64 << 20) + 4097, ((size_t)32 << 20) + 3,
                                        (size_t)96 << 20, ((size_t)17 << 20) + 12345};
    unsigned char *blk[STEPS], *got = malloc(sizes[3]), *mine = malloc(sizes[3]);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t total = 0;
    shoal_heap_stats_t s = stats();

    CHECK(got != NULL && mine != NULL);
    CHECK_MSG(s.limit >= ((size_t)64 << 30), "limit %zu, want at least 64 GiB", s.limit);
    CHECK_MSG(s.used == 0 && s.mapped <= 4096 && s.growable == 1 && s.chunk == 0,
              "a fresh host heap (the 64-byte probe freed): used %zu, mapped %zu, growable %d, chunk %zu", s.used,
              s.mapped, s.growable, s.chunk);
    CHECK_MSG(resident() < ((size_t)2 << 20), "%zu bytes of the heap resident right after init", resident());
    for (int k = 0; k < STEPS; k++) {
        blk[k] = shoal_malloc(sh, sizes[k]);
        CHECK_MSG(blk[k] != NULL, "step %d: shoal_malloc(%zu): %s", k, sizes[k], shoal_last_error(sh));
        total += sizes[k];
        for (size_t i = 0; i < sizes[k]; i++) blk[k][i] = (unsigned char)~pat(me, k, i); /* touched by me first */
        for (size_t i = 0; i < sizes[k]; i++) mine[i] = pat(me, k, i);
        CHECK_OK(shoal_barrier_all(sh), sh);
        /* mine -> the right neighbour's copy: what I hold now is the left's */
        CHECK_OK(shoal_put(sh, blk[k], mine, sizes[k], right), sh);
        CHECK_OK(shoal_barrier_all(sh), sh);
        for (size_t i = 0; i < sizes[k]; i += 4093)
            CHECK_MSG(blk[k][i] == pat(left, k, i), "step %d [%zu] = %u, want %u", k, i, blk[k][i], pat(left, k, i));
        CHECK_MSG(blk[k][sizes[k] - 1] == pat(left, k, sizes[k] - 1), "step %d: the last byte", k);
        s = stats();
        CHECK_MSG(s.used >= total && s.mapped >= s.used && s.mapped < s.used + ((size_t)(k + 1) << 13),
                  "step %d: used %zu, mapped %zu, %zu asked in all", k, s.used, s.mapped, total);
    }
    CHECK_MSG(resident() >= total, "%zu bytes resident after writing %zu", resident(), total);
    /* A get from the left of the largest block, into private memory. */
    CHECK_OK(shoal_get(sh, got, blk[3], sizes[3], left), sh);
    for (size_t i = 0; i < sizes[3]; i += 511) CHECK_MSG(got[i] == pat((left + npes - 1) % npes, 3, i), "get [%zu]", i);
    CHECK_OK(shoal_barrier_all(sh), sh); /* every get done before the frees */

    /* Give it all back: the pages go with the blocks, except where mpi_rma's
     * window covers the heap (MPI may have pinned them for the network). */
    int rma = 0;
    for (int pe = 0; pe < npes; pe++) {
        const char *tp = "";
        CHECK_OK(shoal_pe_transport(sh, pe, &tp), sh);
        rma |= strcmp(tp, "mpi_rma") == 0;
    }
    for (int k = STEPS - 1; k >= 0; k--) CHECK_OK(shoal_free(sh, blk[k]), sh);
    s = stats();
    if (rma) {
        CHECK_MSG(s.used == 0 && s.mapped >= total, "all freed, pages kept: used %zu, mapped %zu", s.used, s.mapped);
        CHECK_MSG(resident() >= total, "%zu bytes resident after the frees, pages kept", resident());
    } else {
        CHECK_MSG(s.used == 0 && s.mapped == 0, "all freed: used %zu, mapped %zu", s.used, s.mapped);
        CHECK_MSG(resident() < ((size_t)2 << 20), "%zu bytes still resident after every block was freed", resident());
    }

    check_note("%zu bytes in %d steps written, crossed and read back; resident after the frees: %zu bytes", total,
               STEPS, resident());

    /* And again: the same offsets, the new data, then zeroes from calloc. */
    unsigned char *again = shoal_malloc(sh, sizes[1]);
    CHECK(again == blk[0]); /* first fit: the heap's start */
    memset(again, 0x5a, sizes[1]);
    CHECK_OK(shoal_free(sh, again), sh);
    unsigned char *zero = shoal_calloc(sh, 1, sizes[1]);
    CHECK(zero != NULL);
    for (size_t i = 0; i < sizes[1]; i += 4096) CHECK_MSG(zero[i] == 0, "calloc'ed [%zu] = %u", i, zero[i]);
    CHECK_OK(shoal_free(sh, zero), sh);
    free(got);
    free(mine);
}

/* SHOAL_FAULT=grow:PE: PE's first growth fails; every PE gets the error. */
static void growth_fails(void)
{
    const char *f = getenv("SHOAL_FAULT");
    int bad = f != NULL ? atoi(f + 5) : -1;
    char want[64];
    void *p;

    CHECK_MSG(f != NULL && strncmp(f, "grow:", 5) == 0, "run with SHOAL_FAULT=grow:PE");
    p = shoal_malloc(sh, (size_t)8 << 20);
    CHECK_MSG(p == NULL, "the growth that PE %d failed gave %p", bad, p);
    CHECK_EQ_INT(shoal_last_status(sh), SHOAL_ERR_HEAP_EXHAUSTED);
    snprintf(want, sizeof(want), "PE %d could not take memory", bad);
    CHECK_MSG(strstr(shoal_last_error(sh), want) != NULL && strstr(shoal_last_error(sh), "/dev/shm") != NULL,
              "message \"%s\" does not name PE %d and /dev/shm", shoal_last_error(sh), bad);
    shoal_heap_stats_t s = stats();
    CHECK_MSG(s.used == 0, "%zu bytes in use after the failed growth", s.used);
    check_note("every PE: %s", shoal_last_error(sh));
    /* The fault was one growth: the next one works. */
    p = shoal_malloc(sh, (size_t)8 << 20);
    CHECK_MSG(p != NULL, "after the failed growth: %s", shoal_last_error(sh));
    CHECK_OK(shoal_free(sh, p), sh);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;

    MPI_Init(&argc, &argv);
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    if (argc > 1 && strcmp(argv[1], "fault") == 0) {
        growth_fails();
    } else {
        /* The heap's start: the first block of a fresh heap. */
        char *p = shoal_malloc(sh, 64);
        CHECK(p != NULL);
        base = p;
        CHECK_OK(shoal_free(sh, p), sh);
        grow_and_give_back();
    }
    CHECK_OK(shoal_finalize(sh), sh);
    MPI_Finalize();
    return 0;
}
