/*
 * mixed_mpi: an MPI application that uses shoal for its halo exchange and
 * keeps using MPI for everything else, on the same communicator.
 *
 * A rod of PEs x N cells relaxes towards its steady temperature (Jacobi:
 * each cell becomes the mean of its neighbours; the left end is held at 1,
 * the right end at 0). Each iteration:
 *   - shoal: each PE puts its boundary cells into its neighbours' halo cells,
 *     then a shoal barrier makes them visible;
 *   - the Jacobi update, on the host;
 *   - MPI: MPI_Allreduce of the residual, and every 25 iterations a token
 *     passed around all ranks with MPI_Send/MPI_Recv.
 * At the end the same computation is repeated with MPI_Sendrecv halos, and
 * the two results must be identical.
 *
 *   mpiexec -n 4 build/examples/mixed_mpi
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "shoal.h"

#define N 32 /* cells per PE */
#define ITERS 400

static int rank, size;

static void check(int status, shoal_t sh, const char *what)
{
    if (status != SHOAL_SUCCESS) {
        fprintf(stderr, "rank %d: %s failed: %s\n", rank, what, shoal_last_error(sh));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* u[0] and u[N + 1] are halos; the rod's ends are fixed halos of the end PEs. */
static void set_ends(double *u)
{
    if (rank == 0) u[0] = 1.0;
    if (rank == size - 1) u[N + 1] = 0.0;
}

/* One Jacobi sweep over u[1..N]; returns this PE's sum of squared changes. */
static double jacobi(double *u)
{
    double next[N + 2], sq = 0.0;
    for (int i = 1; i <= N; i++) {
        next[i] = 0.5 * (u[i - 1] + u[i + 1]);
        sq += (next[i] - u[i]) * (next[i] - u[i]);
    }
    memcpy(u + 1, next + 1, N * sizeof(double));
    return sq;
}

/* MPI point-to-point traffic on the same communicator: a token travels
 * 0 -> 1 -> ... -> size-1 -> 0, each rank adding its rank. */
static void pass_token(int iter)
{
    int token = iter;
    if (size < 2) return;
    if (rank == 0) {
        MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (token != iter + size * (size - 1) / 2) {
            fprintf(stderr, "mixed_mpi: token came back as %d, expected %d\n", token, iter + size * (size - 1) / 2);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    } else {
        MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        token += rank;
        MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
    }
}

/* The shoal version: halos are written by the neighbours with puts. */
static double run_shoal(shoal_t sh, double *result)
{
    double *u = shoal_calloc(sh, N + 2, sizeof(double)); /* symmetric: N cells + 2 halos */
    double residual = 0.0;

    check(u ? SHOAL_SUCCESS : SHOAL_ERR_NO_MEMORY, sh, "shoal_calloc");
    set_ends(u);
    check(shoal_barrier_all(sh), sh, "shoal_barrier_all"); /* everyone initialized */

    for (int it = 0; it < ITERS; it++) {
        double sq;
        if (rank > 0) /* my first cell is my left neighbour's right halo */
            check(shoal_double_p(sh, &u[N + 1], u[1], rank - 1), sh, "shoal_double_p");
        if (rank < size - 1) /* my last cell is my right neighbour's left halo */
            check(shoal_double_p(sh, &u[0], u[N], rank + 1), sh, "shoal_double_p");
        check(shoal_barrier_all(sh), sh, "shoal_barrier_all");

        sq = jacobi(u);

        /* Besides reducing, the Allreduce orders the iterations: nobody gets
         * its result, and puts into a neighbour's halo again, before every PE
         * has finished reading its halos in this sweep. */
        MPI_Allreduce(&sq, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (it % 25 == 0) pass_token(it);
    }
    memcpy(result, u + 1, N * sizeof(double));
    check(shoal_free(sh, u), sh, "shoal_free");
    return sqrt(residual);
}

/* The same computation with MPI only. */
static double run_mpi(double *result)
{
    double u[N + 2] = {0}, residual = 0.0;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    set_ends(u);
    for (int it = 0; it < ITERS; it++) {
        double sq;
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[N + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[N], 1, MPI_DOUBLE, right, 2, &u[0], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sq = jacobi(u);
        MPI_Allreduce(&sq, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    memcpy(result, u + 1, N * sizeof(double));
    return sqrt(residual);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    double with_shoal[N], with_mpi[N], r_shoal, r_mpi;
    int same = 1, all_same = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_HOST; /* the update runs on the host */
    check(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL, "shoal_init");

    r_shoal = run_shoal(sh, with_shoal);
    r_mpi = run_mpi(with_mpi);

    for (int i = 0; i < N; i++) same &= with_shoal[i] == with_mpi[i];
    same &= r_shoal == r_mpi;
    MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);

    check(shoal_finalize(sh), NULL, "shoal_finalize");
    if (rank == 0) {
        if (all_same)
            printf("mixed_mpi: %d iterations, residual %.3e, matches pure MPI\n", ITERS, r_shoal);
        else
            printf("mixed_mpi: %d iterations, residual %.3e, DIFFERS from pure MPI (%.3e)\n", ITERS, r_shoal, r_mpi);
    }
    MPI_Finalize();
    return all_same ? 0 : 1;
}
