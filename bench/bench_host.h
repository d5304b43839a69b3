/* Helpers shared by the host benchmarks (shoal-bench, shoal-bench-sync,
 * shoal-bench-init): sizes and counts on the command line and in the report,
 * failures, the meeting of every PE outside the timed loops, the figures'
 * batches, and the report's header lines.
 *
 * Define BENCH_PROG, the program's name in messages, before including this
 * header. The macros that take b take the program's bench_t: b->me is this
 * PE (its rank in MPI_COMM_WORLD), b->sh the shoal instance. */
#ifndef SHOAL_BENCH_HOST_H
#define SHOAL_BENCH_HOST_H

#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "shoal.h"

#ifndef BENCH_PROG
#error "define BENCH_PROG, the program's name in messages, before including bench_host.h"
#endif

#define BENCH_MIB ((size_t)1 << 20)

/* ------------------------------------------------------------ failures */

/* Says on stderr that what failed on PE me, and why, and ends the run. */
static inline void bench_die(int me, const char *what, const char *why)
{
    fprintf(stderr, BENCH_PROG ": PE %d: %s failed: %s\n", me, what, why);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* bench_die with MPI's words for the error code rc. */
static inline void bench_mpi_die(int me, const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) snprintf(msg, sizeof(msg), "MPI error %d", rc);
    bench_die(me, what, msg);
}

#define BENCH_FAIL(b, what, why) bench_die((b)->me, (what), (why))

/* A shoal call that must succeed; else sh's last error ends the run. */
#define BENCH_SHOAL(b, call, what)                                                                                     \
    do {                                                                                                               \
        int bench_rc_ = (call);                                                                                        \
        if (__builtin_expect(bench_rc_ != SHOAL_SUCCESS, 0)) bench_die((b)->me, (what), shoal_last_error((b)->sh));    \
    } while (0)

/* An MPI call (on PE me) that must return MPI_SUCCESS; else MPI's words for
 * the error end the run. */
#define BENCH_MPI_PE(me, call, what)                                                                                   \
    do {                                                                                                               \
        int bench_rc_ = (call);                                                                                        \
        if (__builtin_expect(bench_rc_ != MPI_SUCCESS, 0)) bench_mpi_die((me), (what), bench_rc_);                     \
    } while (0)

#define BENCH_MPI(b, call, what) BENCH_MPI_PE((b)->me, call, what)

/* ------------------------------------------------------------ command line */

/* MPI_Init, this rank (*me_p) and the number of ranks (*n_pes_p) in
 * MPI_COMM_WORLD, whose MPI errors return from then on. */
static inline void bench_mpi_init(int *argc_p, char ***argv_p, int *me_p, int *n_pes_p)
{
    MPI_Init(argc_p, argv_p);
    MPI_Comm_rank(MPI_COMM_WORLD, me_p);
    MPI_Comm_size(MPI_COMM_WORLD, n_pes_p);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
}

/* "64m" -> 67108864 (suffixes k, m, g, either case); 0 on a malformed or
 * overflowing value. */
static inline size_t bench_parse_size(const char *s)
{
    char *end = NULL;
    unsigned long long v;
    int shift = 0;

    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0 || end == s) return 0;
    if (*end == 'k' || *end == 'K') shift = 10;
    if (*end == 'm' || *end == 'M') shift = 20;
    if (*end == 'g' || *end == 'G') shift = 30;
    if (shift != 0) end++;
    if (*end != '\0' || v > (~0ULL >> shift)) return 0;
    return (size_t)(v << shift);
}

/* The value val of option opt, a count from 1 to max: 1 and *v_p set, or
 * 0 (rank me 0 said why on stderr). */
static inline int bench_parse_count(int me, const char *opt, const char *val, long max, long *v_p)
{
    char *end = NULL;
    long v;

    errno = 0;
    v = strtol(val, &end, 10);
    if (errno == 0 && end != val && *end == '\0' && v > 0 && v <= max) {
        *v_p = v;
        return 1;
    }
    if (me == 0) fprintf(stderr, BENCH_PROG ": %s wants a count from 1 to %ld, not '%s'\n", opt, max, val);
    return 0;
}

/* The value of option opt given as argv[*i_p]: "opt VALUE" (then *i_p
 * moves on to VALUE) or "opt=VALUE"; NULL where argv[*i_p] is neither, or
 * opt comes last with no value. */
static inline const char *bench_opt_value(int argc, char **argv, int *i_p, const char *opt)
{
    const char *a = argv[*i_p];
    size_t n = strlen(opt);

    if (strcmp(a, opt) == 0 && *i_p + 1 < argc) return argv[++*i_p];
    if (strncmp(a, opt, n) == 0 && a[n] == '=') return a + n + 1;
    return NULL;
}

/* Whether argument a asks for help (-h, --help); rank me 0 then prints the
 * usage on stdout. */
static inline int bench_is_help(int me, const char *a, void (*usage)(FILE *))
{
    if (strcmp(a, "-h") != 0 && strcmp(a, "--help") != 0) return 0;
    if (me == 0) usage(stdout);
    return 1;
}

/* Argument a is none the program knows: rank me 0 says so with the usage
 * on stderr. Returns 1, a bad command line. */
static inline int bench_unknown_arg(int me, const char *a, void (*usage)(FILE *))
{
    if (me == 0) {
        fprintf(stderr, BENCH_PROG ": unknown argument '%s'\n", a);
        usage(stderr);
    }
    return 1;
}

/* ------------------------------------------------------------ setup */

/* shoal_init over MPI_COMM_WORLD with a host heap of heap_size bytes per PE
 * (the environment's settings for the rest); a failure ends the run. */
static inline void bench_shoal_init(int me, size_t heap_size, shoal_t *sh_p)
{
    shoal_config_t cfg;

    shoal_config_init(&cfg);
    if (cfg.env_error[0] != '\0') bench_die(me, "shoal_config_init", cfg.env_error);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    cfg.heap_size = heap_size;
    if (shoal_init(MPI_COMM_WORLD, &cfg, sh_p) != SHOAL_SUCCESS) bench_die(me, "shoal_init", shoal_last_error(NULL));
}

/* The ranks on this host (MPI_COMM_TYPE_SHARED). */
static inline int bench_host_ranks(int me)
{
    MPI_Comm host;
    int n = 0;

    BENCH_MPI_PE(me, MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host),
                 "MPI_Comm_split_type");
    BENCH_MPI_PE(me, MPI_Comm_size(host, &n), "MPI_Comm_size");
    BENCH_MPI_PE(me, MPI_Comm_free(&host), "MPI_Comm_free");
    return n;
}

/* The nodes the n_pes PEs of sh span, as shoal numbers them. */
static inline int bench_n_nodes(int me, shoal_t sh, int n_pes)
{
    int n_nodes = 0;

    for (int pe = 0; pe < n_pes; pe++) {
        int node = shoal_pe_node(sh, pe);
        if (node < 0) bench_die(me, "shoal_pe_node", shoal_last_error(sh));
        if (node + 1 > n_nodes) n_nodes = node + 1;
    }
    return n_nodes;
}

/* Every PE meets here outside the timed loops. Waiting ranks poll MPI, as
 * MPI_Barrier would: MPICH's passive target (and shoal's mpi_rma transport
 * over it) needs the target's progress to complete a flush. When ranks
 * outnumber cores (oversubscribed), a bystander (a rank that takes no part
 * in the loop being timed) sleeps between polls and the others yield, so
 * that the ranks being timed get the cores. */
static inline void bench_meet(int me, int oversubscribed, int bystander)
{
    const struct timespec nap = {0, 100000};
    MPI_Request req;
    int done = 0;

    BENCH_MPI_PE(me, MPI_Ibarrier(MPI_COMM_WORLD, &req), "MPI_Ibarrier");
    for (;;) {
        BENCH_MPI_PE(me, MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) break;
        if (oversubscribed && bystander)
            nanosleep(&nap, NULL);
        else if (oversubscribed)
            sched_yield();
    }
}

/* ------------------------------------------------------------ batches */

/* How many ops a batch runs, given the seconds per op of the warm-up: the
 * nominal count, or fewer where that would last longer than batch_s; at
 * least 1. */
static inline long bench_batch_count(double per_op, long nominal, double batch_s)
{
    long count = nominal;
    if (per_op * (double)nominal > batch_s) count = (long)(batch_s / per_op);
    if (count < 1) count = 1;
    return count;
}

/* A figure's best is the fastest of its batches: t, if faster than *best
 * or if *best is still negative (no batch yet). */
static inline void bench_keep_best(double *best, double t)
{
    if (*best < 0 || t < *best) *best = t;
}

/* ------------------------------------------------------------ report */

/* "1 GiB", "64 MiB", "4 KiB", "100 B": the largest unit that divides n. */
static inline void bench_size_str(size_t n, char *buf, size_t len)
{
    if (n >= ((size_t)1 << 30) && n % ((size_t)1 << 30) == 0)
        snprintf(buf, len, "%zu GiB", n >> 30);
    else if (n >= BENCH_MIB && n % BENCH_MIB == 0)
        snprintf(buf, len, "%zu MiB", n / BENCH_MIB);
    else if (n >= 1024 && n % 1024 == 0)
        snprintf(buf, len, "%zu KiB", n / 1024);
    else
        snprintf(buf, len, "%zu B", n);
}

/* MPI's library version (MPI_Get_library_version), its first line only. */
static inline void bench_mpi_library(int me, char lib[MPI_MAX_LIBRARY_VERSION_STRING])
{
    char *nl;
    int len = 0;

    BENCH_MPI_PE(me, MPI_Get_library_version(lib, &len), "MPI_Get_library_version");
    if ((nl = strchr(lib, '\n')) != NULL) *nl = '\0';
}

/* The report's first line: the program, shoal's version, MPI's (lib). */
static inline void bench_print_versions(const char *lib)
{
    int v = shoal_version();
    printf(BENCH_PROG ": shoal %d.%d.%d against %s\n", v / 10000, v / 100 % 100, v % 100, lib);
}

/* How each figure is taken: the best of batches batches of at most iters
 * ops, fewer where a batch would pass batch_s seconds. */
static inline void bench_print_batches(int batches, long iters, double batch_s, int quick)
{
    printf("best of %d batches; up to %ld ops per batch, fewer where a batch would pass %.2f s%s\n", batches, iters,
           batch_s, quick ? " (--quick: rough figures)" : "");
}

/* Other work on the cores skews every figure: say how busy they were. */
static inline void bench_print_load(long cores)
{
    double load[1];
    if (getloadavg(load, 1) == 1)
        printf("load average at start %.2f on %ld cores%s\n", load[0], cores,
               load[0] > 0.5 * (double)cores ? " (busy machine: figures are noisy)" : "");
}

#endif /* SHOAL_BENCH_HOST_H */
