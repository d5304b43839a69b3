/*
 * host: an MPI program that loads a shoal-based plugin with dlopen and gives
 * it half of its ranks, while it keeps using MPI_COMM_WORLD itself.
 *
 *   mpiexec -n 4 build/examples/plugin_host [plugin-dir]
 *
 * The plugin is SHOAL_PLUGIN_DIR "/libshoal_plugin.so" (the build defines
 * SHOAL_PLUGIN_DIR), or in the folder given as the first argument.
 */
#include <dlfcn.h>
#include <stdio.h>

#include <mpi.h>

#include "plugin.h"

#ifndef SHOAL_PLUGIN_DIR
#define SHOAL_PLUGIN_DIR "."
#endif

int main(int argc, char **argv)
{
    char path[4096];
    void *lib;
    plugin_init_fn p_init;
    plugin_run_fn p_run;
    plugin_finalize_fn p_finalize;
    MPI_Comm half;
    int rank, size, color, hrank, hsize, result = -1, sum = 0, ok;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    snprintf(path, sizeof(path), "%s/libshoal_plugin.so", argc > 1 ? argv[1] : SHOAL_PLUGIN_DIR);
    lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "host: dlopen: %s\n", dlerror());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* POSIX: a data pointer from dlsym may be converted to a function pointer */
    *(void **)&p_init = dlsym(lib, "plugin_init");
    *(void **)&p_run = dlsym(lib, "plugin_run");
    *(void **)&p_finalize = dlsym(lib, "plugin_finalize");
    if (!p_init || !p_run || !p_finalize) {
        fprintf(stderr, "host: %s lacks plugin_init/run/finalize\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    /* the plugin gets half of the ranks: the lower half, or the upper one */
    color = rank < size / 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Comm_rank(half, &hrank);
    MPI_Comm_size(half, &hsize);

    if (p_init(half) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    /* the host's own MPI traffic, while the plugin's instance is alive */
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (p_run(&result) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (p_finalize() != 0) MPI_Abort(MPI_COMM_WORLD, 1);

    {
        int want_sum = size * (size - 1) / 2;
        int want_result = hsize * (hsize + 1) * (2 * hsize + 1) / 6; /* sum of (pe + 1)^2 */
        int mine_ok = sum == want_sum && result == want_result;
        MPI_Allreduce(&mine_ok, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        if (rank == 0) printf("host: MPI_Allreduce over %d ranks = %d (expected %d)\n", size, sum, want_sum);
        MPI_Barrier(MPI_COMM_WORLD);
        if (hrank == 0)
            printf("host: plugin on half %d (%d ranks) = %d (expected %d)\n", color, hsize, result, want_result);
    }

    MPI_Comm_free(&half);
    dlclose(lib);
    MPI_Finalize();
    if (!ok && rank == 0) fprintf(stderr, "host: wrong result\n");
    return ok ? 0 : 1;
}
