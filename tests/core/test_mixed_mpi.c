/*
 * shoal traffic mixed with the application's own MPI traffic on the same
 * communicator. A wildcard receive (MPI_ANY_SOURCE, MPI_ANY_TAG) on
 * MPI_COMM_WORLD stays posted across shoal puts and barriers and must get the
 * application's message, never one of shoal's; Allreduce/Barrier on
 * MPI_COMM_WORLD interleave with outstanding put_nbi; MPI_Iprobe finds no
 * stray message; shoal_init and shoal_finalize leave MPI_COMM_WORLD's error
 * handler as it was (fatal by default, or the application's own).
 * A PE waiting in shoal_barrier_all drives MPI's progress: the barrier
 * completes while a peer is blocked in a large MPI_Send to it, and while a
 * peer's MPI_Win_unlock on an application window (over shoal_malloc
 * memory) needs it.
 * The application's own windows over host heap blocks other than the first
 * (MPI_Win_create) reach exactly their blocks with MPI_Put and MPI_Get, with
 * shoal's RMA window present (SHOAL_NODE_SIZE) or not: every byte of every
 * block is checked, the other blocks untouched, and shoal's own puts and gets
 * see the same bytes. (With shoal's window over the heap itself, MPICH 4.0
 * over UCX delivered such puts at the heap's start, into another block.)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"
#include "transport/transport.h" /* shoal__win_base_moves */

enum { N = 16, ITERS = 100 };

static int wrank, wsize;

static MPI_Errhandler world_errhandler(void)
{
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    return eh; /* compared by handle, then freed by the caller */
}

static void check_errhandler(MPI_Errhandler expected, const char *when)
{
    MPI_Errhandler eh = world_errhandler();
    CHECK_MSG(eh == expected, "MPI_COMM_WORLD's error handler changed %s", when);
    MPI_Errhandler_free(&eh);
}

static void check_no_stray_message(const char *when)
{
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    CHECK_MSG(!flag, "%s: unexpected message on MPI_COMM_WORLD from rank %d tag %d", when, st.MPI_SOURCE, st.MPI_TAG);
}

static int value(int iter, int pe, int i) { return (iter * 1000 + pe) * 100 + i; }

/* ---- the application's MPI windows over host heap blocks ---- */

enum { WB_BLOCKS = 4 };
static const size_t wb_size[WB_BLOCKS] = {1u << 20, 1u << 20, 4096 + 24, 64u << 10};

/* (displacement, length) of the puts into a window of size w: disjoint,
 * at its start, odd places, across a page boundary, at its end. */
typedef struct {
    size_t disp, len;
} wb_range_t;

static int wb_puts(size_t w, wb_range_t *r)
{
    int n = 0;
    r[n++] = (wb_range_t){0, 8};
    r[n++] = (wb_range_t){13, 1};
    r[n++] = (wb_range_t){4093, 3};
    r[n++] = (wb_range_t){8192, 4096};
    if (w >= (1u << 20)) r[n++] = (wb_range_t){65537, 1000};
    r[n++] = (wb_range_t){w - 4096, 4096};
    return n;
}

/* What block b of PE owner holds after the puts of PE owner's left
 * neighbour (pattern (putter, 100 + b) at each range). */
static void wb_expected(unsigned char *img, int owner, int b, int putter, int with_puts)
{
    wb_range_t r[8];
    int n = wb_puts(wb_size[b], r);

    test_pattern(img, 0, wb_size[b], (uint64_t)owner, (uint64_t)b, 7);
    if (!with_puts) return;
    for (int k = 0; k < n; k++)
        test_pattern(img + r[k].disp, r[k].disp, r[k].len, (uint64_t)putter, 100 + (uint64_t)b, 7);
}

static void wb_check_block(const unsigned char *got, const unsigned char *img, size_t n, int pe, int b,
                           const char *when)
{
    long long d = check_first_diff(got, img, n);
    CHECK_MSG(d < 0, "%s: byte %lld of PE %d's block %d (of %zu bytes) is 0x%02x, expected 0x%02x", when, d, pe, b, n,
              got[d], img[d]);
}

static void app_windows_over_heap(const shoal_config_t *base_cfg)
{
    shoal_config_t cfg = *base_cfg;
    shoal_t sh;
    unsigned char *blk[WB_BLOCKS], *img, *buf;
    MPI_Win win[WB_BLOCKS] = {MPI_WIN_NULL, MPI_WIN_NULL, MPI_WIN_NULL, MPI_WIN_NULL};
    const int wins[] = {1, 3}; /* the blocks the application makes windows over */
    int right = (wrank + 1) % wsize, left = (wrank + wsize - 1) % wsize, moved = 1;

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION == 4 && OMPI_MINOR_VERSION <= 1
    if (wsize == 1) {
        /* The application's own MPI_Win_create fails there (test_mpi_defects). */
        check_note("application windows over the heap: skipped at 1 rank (Open MPI 4.1 makes no MPI_Win_create on "
                   "one rank)");
        return;
    }
#endif
    const char *transport = NULL;

    cfg.heap_size = 4u << 20;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    if (!test_heap_is_host(sh)) {
        CHECK_OK(shoal_finalize(sh), NULL);
        if (wrank == 0) check_note("application windows over the heap: skipped (GPU heap)");
        return;
    }
    CHECK_OK(shoal_pe_transport(sh, right, &transport), sh);
    img = malloc(1u << 20);
    buf = malloc(1u << 20);
    CHECK_MSG(img != NULL && buf != NULL, "out of memory");
    for (int b = 0; b < WB_BLOCKS; b++) {
        blk[b] = shoal_malloc(sh, wb_size[b]);
        CHECK_NONNULL(blk[b], sh);
        test_pattern(blk[b], 0, wb_size[b], (uint64_t)wrank, (uint64_t)b, 7);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* Puts through the application's windows, into the right neighbour. */
    for (size_t i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        int b = wins[i];
        void *wbase = NULL;
        int flag = 0;
        MPI_Win_create(blk[b], (MPI_Aint)wb_size[b], 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win[b]);
        MPI_Win_get_attr(win[b], MPI_WIN_BASE, &wbase, &flag);
        CHECK_MSG(flag && wbase == (void *)blk[b],
                  "MPI_WIN_BASE of the window over block %d is %p, not the "
                  "block's address %p",
                  b, wbase, (void *)blk[b]);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win[b]);
    }
    for (size_t i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        int b = wins[i], n;
        wb_range_t r[8];
        n = wb_puts(wb_size[b], r);
        for (int k = 0; k < n; k++) {
            unsigned char *src = buf + r[k].disp;
            test_pattern(src, r[k].disp, r[k].len, (uint64_t)wrank, 100 + (uint64_t)b, 7);
            MPI_Put(src, (int)r[k].len, MPI_BYTE, right, (MPI_Aint)r[k].disp, (int)r[k].len, MPI_BYTE, win[b]);
        }
        MPI_Win_flush(right, win[b]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (size_t i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) MPI_Win_sync(win[wins[i]]);

    /* Every byte of every block of this PE: the puts where they belong,
     * nothing else changed. */
    for (int b = 0; b < WB_BLOCKS; b++) {
        wb_expected(img, wrank, b, left, b == 1 || b == 3);
        wb_check_block(blk[b], img, wb_size[b], wrank, b, "after the application's puts");
    }

    /* Gets through the application's windows, from the left neighbour:
     * the whole block, then pieces at several displacements. */
    for (size_t i = 0; i < sizeof(wins) / sizeof(wins[0]); i++) {
        int b = wins[i];
        size_t w = wb_size[b];
        const wb_range_t g[] = {{0, w}, {0, 64}, {4090, 10}, {8192 - 100, 4296}, {w - 5000, 5000}, {w - 1, 1}};
        wb_expected(img, left, b, (left + wsize - 1) % wsize, 1);
        for (size_t k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
            memset(buf, 0xee, g[k].len);
            MPI_Get(buf, (int)g[k].len, MPI_BYTE, left, (MPI_Aint)g[k].disp, (int)g[k].len, MPI_BYTE, win[b]);
            MPI_Win_flush(left, win[b]);
            CHECK_MSG(check_first_diff(buf, img + g[k].disp, g[k].len) < 0,
                      "MPI_Get of %zu bytes at displacement %zu of PE %d's window over block %d: byte %lld "
                      "differs",
                      g[k].len, g[k].disp, left, b, check_first_diff(buf, img + g[k].disp, g[k].len));
        }
        /* shoal reads the same bytes */
        memset(buf, 0xee, w);
        CHECK_OK(shoal_get(sh, buf, blk[b], w, left), sh);
        wb_check_block(buf, img, w, left, b, "shoal_get after the application's puts");
    }

    /* shoal's puts into block 3, read back through the application's
     * window: the same memory both ways (once every PE's gets are done). */
    MPI_Barrier(MPI_COMM_WORLD);
    test_pattern(buf, 0, wb_size[3], (uint64_t)wrank, 200, 7);
    CHECK_OK(shoal_put(sh, blk[3], buf, wb_size[3], right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    MPI_Win_sync(win[3]);
    test_pattern(img, 0, wb_size[3], (uint64_t)left, 200, 7);
    wb_check_block(blk[3], img, wb_size[3], wrank, 3, "after shoal_put");
    {
        unsigned char *exp3 = malloc(wb_size[3]);
        CHECK_MSG(exp3 != NULL, "out of memory");
        test_pattern(exp3, 0, wb_size[3], (uint64_t)((left + wsize - 1) % wsize), 200, 7);
        memset(buf, 0xee, wb_size[3]);
        MPI_Get(buf, (int)wb_size[3], MPI_BYTE, left, 0, (int)wb_size[3], MPI_BYTE, win[3]);
        MPI_Win_flush(left, win[3]);
        wb_check_block(buf, exp3, wb_size[3], left, 3, "MPI_Get after shoal_put");
        free(exp3);
    }
    /* The blocks no window covers are still as written. */
    for (int b = 0; b < 3; b++) {
        wb_expected(img, wrank, b, left, b == 1);
        wb_check_block(blk[b], img, wb_size[b], wrank, b, "at the end");
    }

    MPI_Barrier(MPI_COMM_WORLD);
    for (int b = WB_BLOCKS - 1; b >= 0; b--) {
        if (win[b] == MPI_WIN_NULL) continue;
        MPI_Win_unlock_all(win[b]);
        MPI_Win_free(&win[b]);
    }

    /* How shoal's window is made keeps an application's window at its base,
     * whatever this MPI does with windows over the same addresses. */
    CHECK_OK(shoal__win_base_moves(sh, "test", MPI_COMM_WORLD, true, &moved), sh);
    CHECK_MSG(moved == 0, "a window over memory that a window over a second mapping of it covers got "
                          "another base");
    CHECK_OK(shoal__win_base_moves(sh, "test", MPI_COMM_WORLD, false, &moved), sh);
    {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        const char *rcache = getenv("UCX_RCACHE_ENABLE");
        bool ucx = MPI_Get_library_version(version, &len) == MPI_SUCCESS && strstr(version, "ch4:ucx") != NULL;
        bool rcache_off = rcache != NULL && (rcache[0] == 'n' || rcache[0] == 'N' || rcache[0] == '0');
        /* Only MPICH over UCX's registration cache is known to move it. */
        if (!ucx || rcache_off)
            CHECK_MSG(moved == 0, "this MPI moves the base of a window over memory another window covers");
        if (wrank == 0)
            check_note("this MPI %s the base of a window over memory another window covers%s",
                       moved ? "moves" : "keeps",
                       moved ? " (shoal's window is over a second mapping of its heap)" : "");
    }

    for (int b = WB_BLOCKS - 1; b >= 0; b--) CHECK_OK(shoal_free(sh, blk[b]), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    free(img);
    free(buf);
    if (wrank == 0)
        check_note("application windows over heap blocks 1 and 3: puts, gets and the other blocks checked "
                   "(to PE %d over %s)",
                   right, transport);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh, sh2;
    MPI_Comm dup;
    int cmp, right, left;
    int *heap;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    right = (wrank + 1) % wsize;
    left = (wrank + wsize - 1) % wsize;
    test_config(&cfg, 1u << 20);

    check_errhandler(MPI_ERRORS_ARE_FATAL, "before shoal_init (MPI default)");
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    check_errhandler(MPI_ERRORS_ARE_FATAL, "by shoal_init");
    CHECK_OK(shoal_comm(sh, &dup), sh);
    MPI_Comm_compare(dup, MPI_COMM_WORLD, &cmp);
    CHECK_MSG(cmp == MPI_CONGRUENT,
              "shoal's communicator vs MPI_COMM_WORLD: %d, expected "
              "MPI_CONGRUENT (a duplicate)",
              cmp);

    /* an application that chose MPI_ERRORS_RETURN keeps it */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh2), NULL);
    check_errhandler(MPI_ERRORS_RETURN, "by shoal_init (was MPI_ERRORS_RETURN)");
    CHECK_OK(shoal_finalize(sh2), NULL);
    check_errhandler(MPI_ERRORS_RETURN, "by shoal_finalize (was MPI_ERRORS_RETURN)");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    heap = shoal_malloc(sh, 2 * N * sizeof(int));
    CHECK_NONNULL(heap, sh);
    MPI_Barrier(MPI_COMM_WORLD);
    check_no_stray_message("after shoal_init and shoal_malloc");
    MPI_Barrier(MPI_COMM_WORLD); /* nobody sends the loop's first message before every rank looked */

    for (int it = 0; it < ITERS; it++) {
        int msg[2] = {it, wrank}, in[2] = {-1, -1}, src[N], got[N];
        int *slot = heap + (it % 2) * N;
        long long sum = 0, total = 0, expect = 0;
        MPI_Request rreq, sreq;
        MPI_Status st;

        /* the application's message: posted before, completed after shoal's traffic */
        MPI_Irecv(in, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq);
        MPI_Isend(msg, 2, MPI_INT, right, 1 + it % 50, MPI_COMM_WORLD, &sreq);

        for (int i = 0; i < N; i++) src[i] = value(it, wrank, i);
        if (it % 3 == 0) {
            /* outstanding put_nbi across an application collective */
            int rank_sum = 0;
            CHECK_OK(shoal_int_put_nbi(sh, slot, src, N, right), sh);
            MPI_Allreduce(&wrank, &rank_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            CHECK_EQ_INT(rank_sum, wsize * (wsize - 1) / 2);
            MPI_Barrier(MPI_COMM_WORLD);
        } else {
            CHECK_OK(shoal_int_put(sh, slot, src, N, right), sh);
        }
        CHECK_OK(shoal_barrier_all(sh), sh);

        test_heap_read(sh, got, slot, sizeof(got));
        for (int i = 0; i < N; i++)
            CHECK_MSG(got[i] == value(it, left, i), "iteration %d: heap[%d] = %d, expected %d", it, i, got[i],
                      value(it, left, i));

        MPI_Wait(&rreq, &st);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        CHECK_MSG(st.MPI_SOURCE == left && st.MPI_TAG == 1 + it % 50 && in[0] == it && in[1] == left,
                  "iteration %d: wildcard receive got {%d, %d} from rank %d tag %d, expected "
                  "{%d, %d} from rank %d tag %d",
                  it, in[0], in[1], st.MPI_SOURCE, st.MPI_TAG, it, left, left, 1 + it % 50);

        /* the values that crossed PEs through shoal, reduced through MPI */
        for (int i = 0; i < N; i++) sum += got[i];
        MPI_Allreduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (int pe = 0; pe < wsize; pe++)
            for (int i = 0; i < N; i++) expect += value(it, pe, i);
        CHECK_MSG(total == expect, "iteration %d: Allreduce of received data %lld, expected %lld", it, total, expect);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    check_no_stray_message("after the loop");

    if (wsize >= 2) {
        enum { BIG = 8 << 20 };
        char *big = malloc(BIG);
        MPI_Request rreq;
        MPI_Win win;
        int *box = shoal_calloc(sh, 1, sizeof(int));

        CHECK_MSG(big != NULL, "out of memory");
        CHECK_NONNULL(box, sh);
        /* Rank 0 blocks in MPI_Send until rank 1's MPI takes the message,
         * while rank 1 waits for rank 0 in the barrier. */
        memset(big, wrank == 0 ? 0x5a : 0, BIG);
        if (wrank == 1) MPI_Irecv(big, BIG, MPI_CHAR, 0, 99, MPI_COMM_WORLD, &rreq);
        if (wrank == 0) MPI_Send(big, BIG, MPI_CHAR, 1, 99, MPI_COMM_WORLD);
        CHECK_OK(shoal_barrier_all(sh), sh);
        if (wrank == 1) {
            MPI_Wait(&rreq, MPI_STATUS_IGNORE);
            CHECK_MSG(big[0] == 0x5a && big[BIG - 1] == 0x5a, "the large message did not arrive");
        }
        /* Rank 0's passive-target epoch on rank 1 needs rank 1's progress. */
        MPI_Win_create(box, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        if (wrank == 0) {
            int v = 4242;
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
            MPI_Put(&v, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
            MPI_Win_unlock(1, win);
        }
        CHECK_OK(shoal_barrier_all(sh), sh);
        if (wrank == 1) CHECK_EQ_INT(*box, 4242);
        MPI_Win_free(&win);
        CHECK_OK(shoal_free(sh, box), sh);
        free(big);
    }

    CHECK_OK(shoal_free(sh, heap), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    check_errhandler(MPI_ERRORS_ARE_FATAL, "by shoal_finalize");
    app_windows_over_heap(&cfg);
    MPI_Barrier(MPI_COMM_WORLD);
    check_no_stray_message("after shoal_finalize");
    if (wrank == 0) check_note("%d iterations of shoal mixed with MPI traffic passed on %d ranks", ITERS, wsize);
    MPI_Finalize();
    return 0;
}
