/*
 * One policy: the transport shoal_init gives every PE pair is the one
 * `shoal-topo` shows for the same topology and settings.
 *
 * For every topology fixture (through SHOAL_TOPO_FILE) and the live
 * machine, with several SHOAL_TRANSPORT_DISABLE, SHOAL_NODE_SIZE and (on GPU
 * heaps) SHOAL_P2P_LEVEL settings, every PE starts an instance and reports
 * shoal_pe_transport for every peer; rank 0 runs
 *   shoal-topo --no-mpi [--input F] --map ... --node-size N --p2p-level L --disable D
 * and checks each pair against its "PE a (...) <-> PE b (...)  name" lines.
 * Where the runtime refuses a setting (no transport left), shoal-topo must
 * refuse it too.
 *
 * Host heaps: PEs are "host" in the map; the GPU path cannot matter, so the
 * level stays SYS. GPU heaps: on a fixture, only SYS (the runtime's own GPU
 * is not in the fixture, and at SYS no path is looked up), every PE placed
 * on the fixture's GPU 0 as PEs sharing one GPU; on the live machine, every
 * level, each PE on its own GPU's index in the live topology.
 */
#define _POSIX_C_SOURCE 200809L
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"
#include "base/shoal_instance.h" /* heap kind and each PE's GPU bus id */
#include "shoal_topo.h"
#include "heap/shoal_heap.h"

#define NAME_LEN 16
#define MAX_PES 64

static int me, npes;
static char buses[MAX_PES][32]; /* rank 0: each PE's GPU (PCI bus id), from the first instance */
static int settings_run, pairs_checked, refusals_agreed;

/* The transport shoal-topo gives pair (a, b) in its text, or "" if none. */
static void topo_pairs(char *out, char names[MAX_PES][MAX_PES][NAME_LEN])
{
    for (char *line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        int a, b, n = 0;
        char name[NAME_LEN];
        if (sscanf(line, " PE %d (%*[^)]) <-> PE %d (%*[^)]) %15s%n", &a, &b, name, &n) == 3 && n > 0 && a >= 0 &&
            b >= 0 && a < MAX_PES && b < MAX_PES) {
            snprintf(names[a][b], NAME_LEN, "%s", name);
            snprintf(names[b][a], NAME_LEN, "%s", name);
        }
    }
}

/* Run shoal-topo; its output (stdout and stderr) in out, its exit status back. */
static int run_topo(const char *args, char *out, size_t len)
{
    const char *bdir = getenv("SHOAL_TEST_BUILDDIR");
    char cmd[2048];
    size_t n = 0;
    FILE *p;
    int status;

    snprintf(cmd, sizeof(cmd),
             "env -u PMI_RANK -u PMI_SIZE -u MPI_LOCALNRANKS -u PMI_FD -u PMI_PORT %s/bin/shoal-topo "
             "--no-mpi %s 2>&1",
             bdir ? bdir : "build", args);
    p = popen(cmd, "r");
    CHECK_MSG(p != NULL, "popen(%s)", cmd);
    while (n + 1 < len) {
        size_t got = fread(out + n, 1, len - n - 1, p);
        if (got == 0) break;
        n += got;
    }
    out[n] = '\0';
    status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* One setting: the runtime's choices against shoal-topo's. */
static void agree(const char *file, const char *level, const char *disable, int node_size, int gpu_heap)
{
    static char names[MAX_PES][NAME_LEN], all[MAX_PES * MAX_PES * NAME_LEN];
    static char topo[MAX_PES][MAX_PES][NAME_LEN];
    shoal_config_t cfg;
    shoal_t sh = NULL;
    int rc, any_failed;

    if (file[0])
        setenv("SHOAL_TOPO_FILE", file, 1);
    else
        unsetenv("SHOAL_TOPO_FILE");
    setenv("SHOAL_P2P_LEVEL", level, 1);
    setenv("SHOAL_TRANSPORT_DISABLE", disable, 1);
    {
        char ns[16];
        snprintf(ns, sizeof(ns), "%d", node_size);
        setenv("SHOAL_NODE_SIZE", ns, 1);
    }
    test_config(&cfg, (size_t)1 << 20);
    rc = shoal_init(MPI_COMM_WORLD, &cfg, &sh);
    memset(names, 0, sizeof(names));
    if (rc == SHOAL_SUCCESS) {
        CHECK_EQ_INT(sh->heap_kind == SHOAL_HEAP_GPU, gpu_heap);
        for (int pe = 0; pe < npes; pe++) {
            const char *name = NULL;
            CHECK_EQ_INT(shoal_pe_transport(sh, pe, &name), SHOAL_SUCCESS);
            snprintf(names[pe], NAME_LEN, "%s", name);
        }
    } else {
        /* Refused, naming the pair, the heap and what the policy said. */
        CHECK_CONTAINS(shoal_last_error(NULL), "no transport reaches PE");
        CHECK_CONTAINS(shoal_last_error(NULL), gpu_heap ? "from this GPU heap" : "from this host heap");
        CHECK_CONTAINS(shoal_last_error(NULL), "is disabled");
    }
    any_failed = rc != SHOAL_SUCCESS;
    MPI_Allreduce(MPI_IN_PLACE, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK_MSG(any_failed == (rc != SHOAL_SUCCESS), "shoal_init failed on some PEs only (here: %d)", rc);
    MPI_Gather(names, MAX_PES * NAME_LEN, MPI_CHAR, all, MAX_PES * NAME_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);

    if (me == 0) {
        char args[1024], map[512] = "", out[1 << 16];
        size_t m = 0;
        int trc;
        shoal_topo_t live = NULL;
        if (gpu_heap && !file[0]) CHECK_EQ_INT(shoal_topo_load(NULL, &live), SHOAL_SUCCESS);
        for (int pe = 0; pe < npes; pe++) {
            int g = -1;
            if (gpu_heap) g = live ? shoal_topo_gpu_find(live, buses[pe]) : 0;
            CHECK_MSG(!gpu_heap || g >= 0, "PE %d's GPU %s is not in the live topology", pe, buses[pe]);
            m += (size_t)snprintf(map + m, sizeof(map) - m, "%s%s", pe ? "," : "", "");
            if (g < 0)
                m += (size_t)snprintf(map + m, sizeof(map) - m, "host");
            else
                m += (size_t)snprintf(map + m, sizeof(map) - m, "%d", g);
        }
        if (live) shoal_topo_destroy(live);
        snprintf(args, sizeof(args), "%s%s --map %s --node-size %d --p2p-level %s --disable '%s'",
                 file[0] ? "--input " : "", file, map, node_size, level, disable);
        trc = run_topo(args, out, sizeof(out));
        if (any_failed) {
            CHECK_MSG(trc != 0, "shoal_init refused (%s) but shoal-topo %s chose:\n%s", shoal_last_error(NULL), args,
                      out);
            CHECK_CONTAINS(out, "no transport left");
            refusals_agreed++;
        } else {
            CHECK_MSG(trc == 0, "shoal-topo %s failed:\n%s", args, out);
            memset(topo, 0, sizeof(topo));
            topo_pairs(out, topo);
            for (int a = 0; a < npes; a++)
                for (int b = 0; b < npes; b++) {
                    const char *got = all + ((size_t)a * MAX_PES + (size_t)b) * NAME_LEN;
                    const char *want = a == b ? "self" : topo[a][b];
                    CHECK_MSG(strcmp(got, want) == 0, "PE %d -> PE %d: shoal_init chose '%s', shoal-topo %s shows '%s'",
                              a, b, got, args, want);
                    pairs_checked++;
                }
        }
    }
    settings_run++;
    if (sh != NULL) CHECK_EQ_INT(shoal_finalize(sh), SHOAL_SUCCESS);
}

/* GPUs of a fixture (every PE reads it alike). */
static int fixture_gpus(const char *file)
{
    shoal_topo_t t = NULL;
    int n;
    CHECK_MSG(shoal_topo_load(file, &t) == SHOAL_SUCCESS, "%s: %s", file, shoal_topo_last_error());
    n = shoal_topo_n_gpus(t);
    shoal_topo_destroy(t);
    return n;
}

int main(int argc, char **argv)
{
    static const char *const host_disables[] = {"", "shm"};
    static const char *const gpu_disables[] = {"", "cuda_ipc", "staged", "cuda_ipc,staged"};
    static const char *const levels[] = {"NVL", "PIX", "PXB", "PHB", "NODE", "SYS"};
    const char *src = getenv("SHOAL_TEST_SRCDIR");
    char pattern[1024];
    glob_t g;
    shoal_config_t cfg;
    shoal_t probe = NULL;
    int gpu_heap, node_sizes[3] = {0, 1, 2};

    (void)argc, (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    CHECK(npes <= MAX_PES);
    setenv("SHOAL_WARN_UNKNOWN_ENV", "n", 1);

    /* The heap kind this machine gives. */
    test_config(&cfg, (size_t)1 << 20);
    CHECK_EQ_INT(shoal_init(MPI_COMM_WORLD, &cfg, &probe), SHOAL_SUCCESS);
    gpu_heap = probe->heap_kind == SHOAL_HEAP_GPU;
    {
        char bus[32] = "";
        const char *b = gpu_heap ? shoal__gpu_bus_id(probe, me) : NULL;
        snprintf(bus, sizeof(bus), "%s", b ? b : "");
        MPI_Gather(bus, sizeof(bus), MPI_CHAR, buses, sizeof(bus), MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    CHECK_EQ_INT(shoal_finalize(probe), SHOAL_SUCCESS);

    snprintf(pattern, sizeof(pattern), "%s/tests/fixtures/topology/*.xml", src ? src : ".");
    CHECK_EQ_INT(glob(pattern, 0, NULL, &g), 0);
    for (size_t f = 0; f <= g.gl_pathc; f++) {
        const char *file = f < g.gl_pathc ? g.gl_pathv[f] : ""; /* "": the live machine */
        for (int k = 0; k < 3; k++) {
            int ns = node_sizes[k];
            if (ns >= npes) continue; /* the same as one node */
            if (!gpu_heap) {
                for (size_t d = 0; d < 2; d++) agree(file, "SYS", host_disables[d], ns, 0);
                continue;
            }
            if (file[0] != '\0' && fixture_gpus(file) == 0) continue; /* no GPU to place a GPU heap on */
            for (size_t d = 0; d < 4; d++)
                for (size_t l = 0; l < 6; l++)
                    if (file[0] == '\0' || strcmp(levels[l], "SYS") == 0)
                        agree(file, levels[l], gpu_disables[d], ns, 1);
        }
    }
    globfree(&g);
    if (me == 0)
        check_note("%s heaps: %d settings, %d PE pairs agree with shoal-topo, %d refusals agree",
                   gpu_heap ? "GPU" : "host", settings_run, pairs_checked, refusals_agreed);
    MPI_Finalize();
    return 0;
}
