/*
 * The stream-ordered API (shoal_cuda.h) on a host heap, which runs without
 * a GPU (and without a CUDA driver): the calls act like the host ones, and
 * check their arguments like them, before any wait on the stream.
 *   - a put running past the end of its allocation, into a freed block, or
 *     overlapping its own source: refused, naming the call, nothing moved;
 *   - put, typed put, p (4, 8 and 16 bytes) and get on stream 0 move the
 *     values to the right neighbour and back;
 *   - shoal_barrier_all_on_stream completes them, and is a collective of its
 *     own (a PE in shoal_barrier_all meanwhile gets the mismatch).
 * Skipped in builds without CUDA.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"
#if SHOAL_HAVE_CUDA
#include "shoal_cuda.h"
#endif

int main(int argc, char **argv)
{
#if !SHOAL_HAVE_CUDA
    (void)argc;
    (void)argv;
    return TEST_SKIP;
#else
    shoal_config_t cfg;
    shoal_t sh;
    int me, npes, right, left;
    const cudaStream_t st = 0;

    MPI_Init(&argc, &argv);
    test_config(&cfg, 1 << 20);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    char *buf = shoal_malloc(sh, 64), *gone = shoal_malloc(sh, 64);
    long *cells = shoal_calloc(sh, 8, sizeof(long));
    char src[128], got[64];
    CHECK_NONNULL(buf, sh);
    CHECK_NONNULL(gone, sh);
    CHECK_NONNULL(cells, sh);
    CHECK_OK(shoal_free(sh, gone), sh);
    for (int i = 0; i < 128; i++) src[i] = (char)(me * 16 + i);
    test_heap_fill(sh, buf, 0, 64);
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* Bad input: the host API's checks, whatever the stream. */
    CHECK_STATUS(shoal_put_on_stream(sh, buf + 32, src, 64, right, st), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_put_on_stream");
    CHECK_CONTAINS(shoal_last_error(sh), "run 32 bytes past the end of their allocation");
    CHECK_STATUS(shoal_get_on_stream(sh, got, gone, 8, right, st), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "not inside a live allocation");
    CHECK_STATUS(shoal_int_p_on_stream(sh, (int *)(buf + 62), 7, right, st), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_int_p_on_stream");
    CHECK_STATUS(shoal_put_on_stream(sh, buf + 8, buf, 16, me, st), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "overlap");
    CHECK_STATUS(shoal_put_on_stream(sh, buf, NULL, 8, right, st), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_put_on_stream(sh, buf, src, 8, npes, st), SHOAL_ERR_PE, sh);
    CHECK_OK(shoal_put_on_stream(sh, buf, src, 0, right, st), sh);

    /* Nothing of the refused calls landed; the good ones do. */
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, got, buf, 64);
    CHECK_MEM_FILLED(got, 0, 64);
    CHECK_OK(shoal_barrier_all(sh), sh); /* read before the neighbour's good put below */
    CHECK_OK(shoal_put_on_stream(sh, buf, src, 64, right, st), sh);
    CHECK_OK(shoal_long_p_on_stream(sh, &cells[0], 1000L + me, right, st), sh);
    CHECK_OK(shoal_int_p_on_stream(sh, (int *)&cells[1], 2000 + me, right, st), sh);
    CHECK_OK(shoal_longdouble_p_on_stream(sh, (long double *)&cells[2], 0.5L + me, right, st), sh);
    CHECK_OK(shoal_long_put_on_stream(sh, &cells[4], (long[]){3000L + me, 4000L + me}, 2, right, st), sh);
    CHECK_OK(shoal_barrier_all_on_stream(sh, st), sh);
    test_heap_read(sh, got, buf, 64);
    for (int i = 0; i < 64; i++) CHECK_EQ_INT(got[i], (char)(left * 16 + i));
    {
        long c[8];
        int iv;
        long double ld;
        test_heap_read(sh, c, cells, sizeof(c));
        memcpy(&iv, &c[1], sizeof(iv));
        memcpy(&ld, &c[2], sizeof(ld));
        CHECK_EQ_INT(c[0], 1000L + left);
        CHECK_EQ_INT(iv, 2000 + left);
        CHECK(ld == 0.5L + left);
        CHECK_EQ_INT(c[4], 3000L + left);
        CHECK_EQ_INT(c[5], 4000L + left);
    }
    /* get from the right neighbour: what this PE put there */
    CHECK_OK(shoal_get_on_stream(sh, got, buf, 64, right, st), sh);
    CHECK_OK(shoal_quiet_on_stream(sh, st), sh);
    for (int i = 0; i < 64; i++) CHECK_EQ_INT(got[i], (char)(me * 16 + i));

    /* The host path of the stream barrier is its own collective. */
    CHECK_OK(shoal_barrier_all(sh), sh);
    int rc = me == 0 ? shoal_barrier_all(sh) : shoal_barrier_all_on_stream(sh, st), all = 0;
    MPI_Allreduce((int[]){rc == SHOAL_ERR_NOT_SYMMETRIC}, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    CHECK_MSG(all, "barrier against barrier_all_on_stream: here %d (%s)", rc, shoal_last_error(sh));
    CHECK_CONTAINS(shoal_last_error(sh), "PE 0: shoal_barrier_all; PE 1: shoal_barrier_all_on_stream");
    CHECK_CONTAINS(shoal_last_error(sh), "no PE went through it");
    test_ring_works(sh, 50);

    CHECK_OK(shoal_free(sh, cells), sh);
    CHECK_OK(shoal_free(sh, buf), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    if (me == 0) check_note("stream API on a host heap: %d PEs passed", npes);
    MPI_Finalize();
    return 0;
#endif
}
