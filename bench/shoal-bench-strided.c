/*
 * shoal-bench-strided: strided puts and gets (OpenSHMEM iput/iget) against
 * MPI RMA with a vector datatype, in the same run. PE 0 moves N int64
 * elements with stride 2 on PE 1's side (contiguous on its own) with
 * shoal_int64_iput / shoal_int64_iget, and with MPI_Put / MPI_Get of an
 * MPI_Type_vector on an MPI_Win_allocate window (lock_all) plus a flush.
 * Best of 5 batches of 20; the data is checked. Run with SHOAL_NODE_SIZE=1
 * to time the mpi_rma transport, without it the shared-memory one.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-strided [N]
 */
#define BENCH_PROG "shoal-bench-strided"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "bench_host.h"
#include "shoal.h"

enum { BATCHES = 5, REPS = 20 };

int main(int argc, char **argv)
{
    int me, n_pes;
    long n = 4096;
    shoal_t sh;
    MPI_Win win;
    MPI_Datatype vec;
    int64_t *d, *wbase, *src, *back;
    double t_sh[2] = {1e30, 1e30}, t_mpi[2] = {1e30, 1e30};
    const char *tp = "";

    bench_mpi_init(&argc, &argv, &me, &n_pes);
    if (argc > 1 && bench_parse_count(me, "N", argv[1], 1 << 24, &n) != 0) return 1;
    if (n_pes < 2) {
        if (me == 0) fprintf(stderr, BENCH_PROG ": needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    bench_shoal_init(me, (size_t)n * 16 + BENCH_MIB, &sh);
    d = shoal_calloc(sh, (size_t)n * 2, sizeof(int64_t));
    src = malloc((size_t)n * sizeof(int64_t));
    back = malloc((size_t)n * sizeof(int64_t));
    if (d == NULL || src == NULL || back == NULL) bench_die(me, "allocation", shoal_last_error(sh));
    for (long i = 0; i < n; i++) src[i] = i * 7 + 1;
    BENCH_MPI_PE(me, MPI_Win_allocate((MPI_Aint)n * 16, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &wbase, &win),
                 "MPI_Win_allocate");
    BENCH_MPI_PE(me, MPI_Win_lock_all(0, win), "MPI_Win_lock_all");
    BENCH_MPI_PE(me, MPI_Type_vector((int)n, 1, 2, MPI_INT64_T, &vec), "MPI_Type_vector");
    BENCH_MPI_PE(me, MPI_Type_commit(&vec), "MPI_Type_commit");
    if (shoal_pe_transport(sh, 1, &tp) != SHOAL_SUCCESS) bench_die(me, "shoal_pe_transport", shoal_last_error(sh));

    for (int batch = 0; batch < BATCHES; batch++) {
        double t;
        if (shoal_barrier_all(sh) != SHOAL_SUCCESS) bench_die(me, "shoal_barrier_all", shoal_last_error(sh));
        if (me == 0) {
            t = MPI_Wtime();
            for (int r = 0; r < REPS; r++)
                if (shoal_int64_iput(sh, d, src, 2, 1, (size_t)n, 1) != SHOAL_SUCCESS)
                    bench_die(me, "shoal_int64_iput", shoal_last_error(sh));
            if (shoal_quiet(sh) != SHOAL_SUCCESS) bench_die(me, "shoal_quiet", shoal_last_error(sh));
            bench_keep_best(&t_sh[0], (MPI_Wtime() - t) / REPS);
            t = MPI_Wtime();
            for (int r = 0; r < REPS; r++)
                if (shoal_int64_iget(sh, back, d, 1, 2, (size_t)n, 1) != SHOAL_SUCCESS)
                    bench_die(me, "shoal_int64_iget", shoal_last_error(sh));
            bench_keep_best(&t_sh[1], (MPI_Wtime() - t) / REPS);
            for (long i = 0; i < n; i++)
                if (back[i] != src[i]) bench_die(me, "shoal_int64_iget", "returned other data than was put");
            t = MPI_Wtime();
            for (int r = 0; r < REPS; r++) {
                BENCH_MPI_PE(me, MPI_Put(src, (int)n, MPI_INT64_T, 1, 0, 1, vec, win), "MPI_Put");
                BENCH_MPI_PE(me, MPI_Win_flush_local(1, win), "MPI_Win_flush_local");
            }
            BENCH_MPI_PE(me, MPI_Win_flush(1, win), "MPI_Win_flush");
            bench_keep_best(&t_mpi[0], (MPI_Wtime() - t) / REPS);
            t = MPI_Wtime();
            for (int r = 0; r < REPS; r++) {
                BENCH_MPI_PE(me, MPI_Get(back, (int)n, MPI_INT64_T, 1, 0, 1, vec, win), "MPI_Get");
                BENCH_MPI_PE(me, MPI_Win_flush(1, win), "MPI_Win_flush");
            }
            bench_keep_best(&t_mpi[1], (MPI_Wtime() - t) / REPS);
            for (long i = 0; i < n; i++)
                if (back[i] != src[i]) bench_die(me, "MPI_Get", "returned other data than was put");
        }
    }
    if (shoal_barrier_all(sh) != SHOAL_SUCCESS) bench_die(me, "shoal_barrier_all", shoal_last_error(sh));
    if (me == 0) {
        printf(BENCH_PROG ": PE 0 -> PE 1 over %s, %ld int64 elements, stride 2 on PE 1; best of %d batches of %d\n",
               tp, n, BATCHES, REPS);
        printf("us per call                 shoal        MPI (vector datatype + flush)   ratio\n");
        printf("iput (blocking; + quiet)    %10.2f   %10.2f                     %6.3f\n", t_sh[0] * 1e6, t_mpi[0] * 1e6,
               t_sh[0] / t_mpi[0]);
        printf("iget                        %10.2f   %10.2f                     %6.3f\n", t_sh[1] * 1e6, t_mpi[1] * 1e6,
               t_sh[1] / t_mpi[1]);
        printf("data checked: every iget and MPI_Get read back what was put: ok\n");
    }
    MPI_Type_free(&vec);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    free(src);
    free(back);
    if (shoal_finalize(sh) != SHOAL_SUCCESS) bench_die(me, "shoal_finalize", shoal_last_error(sh));
    MPI_Finalize();
    return 0;
}
