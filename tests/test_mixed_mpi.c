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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

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
    CHECK_MSG(!flag, "%s: unexpected message on MPI_COMM_WORLD from rank %d tag %d", when,
              st.MPI_SOURCE, st.MPI_TAG);
}

static int value(int iter, int pe, int i)
{
    return (iter * 1000 + pe) * 100 + i;
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
    CHECK_MSG(cmp == MPI_CONGRUENT, "shoal's communicator vs MPI_COMM_WORLD: %d, expected "
              "MPI_CONGRUENT (a duplicate)", cmp);

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

        for (int i = 0; i < N; i++)
            src[i] = value(it, wrank, i);
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
            CHECK_MSG(got[i] == value(it, left, i), "iteration %d: heap[%d] = %d, expected %d", it,
                      i, got[i], value(it, left, i));

        MPI_Wait(&rreq, &st);
        MPI_Wait(&sreq, MPI_STATUS_IGNORE);
        CHECK_MSG(st.MPI_SOURCE == left && st.MPI_TAG == 1 + it % 50 && in[0] == it && in[1] == left,
                  "iteration %d: wildcard receive got {%d, %d} from rank %d tag %d, expected "
                  "{%d, %d} from rank %d tag %d", it, in[0], in[1], st.MPI_SOURCE, st.MPI_TAG, it,
                  left, left, 1 + it % 50);

        /* the values that crossed PEs through shoal, reduced through MPI */
        for (int i = 0; i < N; i++)
            sum += got[i];
        MPI_Allreduce(&sum, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (int pe = 0; pe < wsize; pe++)
            for (int i = 0; i < N; i++)
                expect += value(it, pe, i);
        CHECK_MSG(total == expect, "iteration %d: Allreduce of received data %lld, expected %lld",
                  it, total, expect);
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
    MPI_Barrier(MPI_COMM_WORLD);
    check_no_stray_message("after shoal_finalize");
    if (wrank == 0)
        check_note("%d iterations of shoal mixed with MPI traffic passed on %d ranks", ITERS, wsize);
    MPI_Finalize();
    return 0;
}
