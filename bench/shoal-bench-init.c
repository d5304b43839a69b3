/*
 * shoal-bench-init: how shoal_init's time grows with the host heap.
 *
 * Every PE creates and finalizes an instance with a host heap of a small
 * and of a large size (default 16 MiB and 1 GiB), and, as the reference in
 * the same run, allocates and frees an MPI_Win_allocate_shared window of
 * the same size per PE on the node's communicator (what MPI itself costs
 * for shared memory of that size). A time is the slowest PE's, the figure
 * the best of the repetitions; the repetitions turn over the sizes and
 * both kinds, so a burst of other work on the machine hits all alike.
 * The goal: init + finalize of the large heap costs at most twice the
 * small one's, i.e. init does not grow with the heap.
 *
 *   mpiexec -n 2 build/bench/shoal-bench-init [--small BYTES] [--large BYTES] [--reps N]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#define BENCH_PROG "shoal-bench-init"
#include "bench_host.h"
#include "shoal.h"

typedef struct bench_opts {
    size_t size[2]; /* the small and the large heap, bytes per PE */
    int reps;       /* repetitions; the fastest one counts */
} bench_opts_t;

/* One size's best times, seconds, slowest PE. */
typedef struct bench_times {
    double init;     /* shoal_init */
    double init_fin; /* shoal_init + shoal_finalize */
    double mpi;      /* MPI_Win_allocate_shared + MPI_Win_free */
} bench_times_t;

static void bench_fail(const char *what, const char *msg)
{
    int me = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    fprintf(stderr, "shoal-bench-init: rank %d: %s failed: %s\n", me, what, msg);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void bench_mpi(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc == MPI_SUCCESS) return;
    MPI_Error_string(rc, msg, &len);
    bench_fail(what, msg);
}

/* The slowest PE's time. */
static double bench_max(double t)
{
    double m = 0;
    bench_mpi(MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
    return m;
}

/* One shoal instance with a host heap of size bytes: init, then finalize. */
static void bench_shoal(size_t size, double *init_p, double *init_fin_p)
{
    shoal_config_t cfg;
    shoal_t sh = NULL;
    double t0, t1, t2;

    shoal_config_init(&cfg);
    if (cfg.env_error[0] != '\0') bench_fail("shoal_config_init", cfg.env_error);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    cfg.heap_size = size;
    bench_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    t0 = MPI_Wtime();
    if (shoal_init(MPI_COMM_WORLD, &cfg, &sh) != SHOAL_SUCCESS) bench_fail("shoal_init", shoal_last_error(NULL));
    t1 = MPI_Wtime();
    if (shoal_finalize(sh) != SHOAL_SUCCESS) bench_fail("shoal_finalize", shoal_last_error(NULL));
    t2 = MPI_Wtime();
    *init_p = bench_max(t1 - t0);
    *init_fin_p = bench_max(t2 - t0);
}

/* The reference: a shared window of size bytes per PE on the node. */
static double bench_mpi_shared(MPI_Comm node, size_t size)
{
    MPI_Info info = MPI_INFO_NULL;
    MPI_Win win = MPI_WIN_NULL;
    void *base = NULL;
    double t0, t1;

    /* As a shared heap would ask for it: a separate segment per PE. */
    bench_mpi(MPI_Info_create(&info), "MPI_Info_create");
    bench_mpi(MPI_Info_set(info, "alloc_shared_noncontig", "true"), "MPI_Info_set");
    bench_mpi(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    t0 = MPI_Wtime();
    bench_mpi(MPI_Win_allocate_shared((MPI_Aint)size, 1, info, node, &base, &win), "MPI_Win_allocate_shared");
    bench_mpi(MPI_Win_free(&win), "MPI_Win_free");
    t1 = MPI_Wtime();
    MPI_Info_free(&info);
    return bench_max(t1 - t0);
}

static void bench_usage(FILE *out)
{
    fprintf(out, "usage: mpiexec -n 2|4 shoal-bench-init [--small BYTES] [--large BYTES] [--reps N]\n"
                 "  --small BYTES  the small host heap per PE, suffixes k, m, g (default 16m)\n"
                 "  --large BYTES  the large host heap per PE (default 1g)\n"
                 "  --reps N       repetitions of each, the best counts (default 3)\n");
}

/* 0 on success, 1 on a bad command line (rank 0 said why), 2 for --help. */
static int bench_parse_args(int argc, char **argv, int me, bench_opts_t *o)
{
    o->size[0] = 16 * BENCH_MIB;
    o->size[1] = 1024 * BENCH_MIB;
    o->reps = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (bench_is_help(me, a, bench_usage)) return 2;
        if ((strcmp(a, "--small") == 0 || strcmp(a, "--large") == 0) && val != NULL) {
            size_t v = bench_parse_size(val);
            i++;
            if (v > 0) {
                o->size[a[2] == 'l'] = v;
                continue;
            }
            if (me == 0) fprintf(stderr, "shoal-bench-init: %s wants a size in bytes (k, m, g), not '%s'\n", a, val);
            return 1;
        }
        if (strcmp(a, "--reps") == 0 && val != NULL) {
            long v = 0;
            i++;
            if (!bench_parse_count(me, "--reps", val, 1000, &v)) return 1;
            o->reps = (int)v;
            continue;
        }
        return bench_unknown_arg(me, a, bench_usage);
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts_t o;
    bench_times_t best[2];
    MPI_Comm node = MPI_COMM_NULL;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], *nl, name[2][32];
    int me = 0, n_pes = 0, node_size = 0, len = 0, rc;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double ratio, ratio_init, ratio_mpi;

    bench_mpi_init(&argc, &argv, &me, &n_pes);
    rc = bench_parse_args(argc, argv, me, &o);
    if (rc != 0) {
        MPI_Finalize();
        return rc == 2 ? 0 : 1;
    }
    bench_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    bench_mpi(MPI_Comm_size(node, &node_size), "MPI_Comm_size");
    MPI_Get_library_version(lib, &len);
    if ((nl = strchr(lib, '\n')) != NULL) *nl = '\0';
    for (int s = 0; s < 2; s++) {
        bench_size_str(o.size[s], name[s], sizeof(name[s]));
        best[s].init = best[s].init_fin = best[s].mpi = 1e300;
    }
    if (me == 0) {
        bench_print_versions(lib);
        printf("n_pes %d, %d on this node, %ld cores; host heaps of %s and %s per PE; best of %d repetitions, "
               "slowest PE\n",
               n_pes, node_size, cores, name[0], name[1], o.reps);
        bench_print_load(cores);
        printf("\n");
        fflush(stdout);
    }

    /* Each repetition measures everything once, the order turning. */
    for (int rep = 0; rep < o.reps; rep++)
        for (int k = 0; k < 4; k++) {
            int step = (k + rep) % 4, s = step / 2;
            if (step % 2 == 0) {
                double init = 0, init_fin = 0;
                bench_shoal(o.size[s], &init, &init_fin);
                if (init < best[s].init) best[s].init = init;
                if (init_fin < best[s].init_fin) best[s].init_fin = init_fin;
            } else {
                double t = bench_mpi_shared(node, o.size[s]);
                if (t < best[s].mpi) best[s].mpi = t;
            }
        }

    if (me == 0) {
        printf("%-22s %12s %18s %28s\n", "host heap per PE", "shoal_init", "init + finalize",
               "MPI_Win_allocate_shared+free");
        for (int s = 0; s < 2; s++)
            printf("%-22s %10.3f ms %15.3f ms %25.3f ms\n", name[s], best[s].init * 1e3, best[s].init_fin * 1e3,
                   best[s].mpi * 1e3);
        ratio_init = best[1].init / best[0].init;
        ratio = best[1].init_fin / best[0].init_fin;
        ratio_mpi = best[1].mpi / best[0].mpi;
        printf("%-22s %12.2fx %17.2fx %27.2fx\n", "ratio large / small", ratio_init, ratio, ratio_mpi);
        printf("\ngoal:\n");
        printf("  %-44s <= 2.00x   measured %.3fx   %s\n", "init + finalize, large heap / small heap", ratio,
               ratio <= 2.0 ? "met" : "MISSED");
        fflush(stdout);
    }
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
