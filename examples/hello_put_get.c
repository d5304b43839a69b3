/*
 * hello_put_get: the smallest shoal program.
 *
 * Every PE allocates 4 floats on the symmetric heap; PE 0 writes
 * {10, 20, 30, 40} into PE 1's copy; after a barrier PE 1 prints them.
 *
 *   mpiexec -n 2 build/examples/hello_put_get
 */
#include <stdio.h>

#include <mpi.h>

#include "shoal.h"

/* shoal calls return 0 or a negative status; shoal_last_error says why. */
static void check(int status, shoal_t sh, const char *what)
{
    if (status != SHOAL_SUCCESS) {
        fprintf(stderr, "%s failed: %s\n", what, shoal_last_error(sh));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    float *data;
    int me, npes, ok = 1;

    MPI_Init(&argc, &argv); /* the application owns MPI */
    shoal_config_init(&cfg);
    check(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL, "shoal_init");
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);

    /* Collective: the same size on every PE, so data sits at the same place
     * in every PE's heap. */
    data = shoal_malloc(sh, 4 * sizeof(float));
    check(data ? SHOAL_SUCCESS : SHOAL_ERR_NO_MEMORY, sh, "shoal_malloc");

    if (npes < 2) {
        printf("hello_put_get: only 1 PE; run with mpiexec -n 2 to see PE 0 write into PE 1\n");
    } else if (me == 0) {
        float values[4] = {10, 20, 30, 40};
        check(shoal_float_put(sh, data, values, 4, 1), sh, "shoal_float_put"); /* into PE 1 */
    }

    /* After the barrier PE 0's put is complete and visible on PE 1. */
    check(shoal_barrier_all(sh), sh, "shoal_barrier_all");

    if (npes >= 2 && me == 1) {
        /* Read our own copy with a get from ourselves: this works whether the
         * heap is in host memory or on a GPU, where the host cannot load it. */
        float got[4];
        check(shoal_float_get(sh, got, data, 4, me), sh, "shoal_float_get");
        printf("PE 1 received: %.1f %.1f %.1f %.1f\n", got[0], got[1], got[2], got[3]);
        ok = got[0] == 10 && got[1] == 20 && got[2] == 30 && got[3] == 40;
    }

    check(shoal_free(sh, data), sh, "shoal_free");
    check(shoal_finalize(sh), NULL, "shoal_finalize");
    MPI_Finalize();
    return ok ? 0 : 1;
}
