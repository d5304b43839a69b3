/*
 * shoal-topo: what shoal sees of a machine and which transport each pair of
 * PEs would get there.
 *
 *   shoal-topo                      the live machine, as text
 *   shoal-topo --input m.xml --json an hwloc XML, as JSON (topology/README.md)
 *   mpiexec -n 4 shoal-topo         the transports a real instance chose
 *   shoal-topo --env                the SHOAL_* variables, as shoal_init reads them
 *
 * A user of the public library: it includes shoal.h and shoal_topo.h only.
 * Exit status 0 on success, 1 on any error (one line on stderr).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strtok_r, strcasecmp under -std=c11 */
#endif
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "shoal.h"
#include "shoal_topo.h"

#define TOOL "shoal-topo"
#define MAX_PES 4096

typedef struct tool_opts {
    int json;                   /* --json */
    int mpi;                    /* 1: --mpi or launched by mpiexec; 0: --no-mpi or not */
    int probe;                  /* --probe: measure every PE pair through shoal (MPI mode) */
    size_t probe_size;          /* --probe-size BYTES, 0: by heap kind */
    const char *input;          /* --input FILE.xml, or NULL for the live machine */
    const char *export_path;    /* --export FILE.xml */
    int pes;                    /* --pes N, or -1 */
    int *map;                   /* --map G0,G1,...: GPU of each PE (-1: host heap) */
    int n_map;                  /* entries of map, 0 without --map */
    int node_size;              /* --node-size N (or $SHOAL_NODE_SIZE): PEs in nodes of N; 0: one node */
    shoal_topo_policy_t policy; /* from SHOAL_P2P_LEVEL / SHOAL_TRANSPORT_DISABLE, then options */
} tool_opts_t;

/* Where the PEs sit: pe -> GPU (or -1), nodes by --node-size. */
typedef struct tool_place {
    int n_pes;
    int *gpu_of;
    int explicit_placement; /* --pes or --map given */
} tool_place_t;

static int tool_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int tool_fail(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof(line), TOOL ": ");
    va_list ap;

    /* One write: the lines of several ranks do not interleave. */
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
    return 1;
}

static void tool_usage(FILE *out)
{
    fprintf(out, "Usage: " TOOL " [options]\n"
                 "Show the machine as shoal sees it (packages, NUMA nodes, GPUs, NICs), the\n"
                 "path between every GPU pair, and the transport each pair of PEs would use.\n"
                 "\n"
                 "  --input FILE.xml   read an hwloc XML instead of the live machine\n"
                 "                     (default: $SHOAL_TOPO_FILE when set)\n"
                 "  --export FILE.xml  write the topology, NVLink matrix included, as hwloc XML\n"
                 "  --json             print JSON (schema: topology/README.md)\n"
                 "  --pes N            place N PEs on one node, PE i on GPU i %% #GPUs\n"
                 "                     (host heaps when there is no GPU)\n"
                 "  --map G0,G1,...    place PE i on GPU Gi, or all on host heaps (-1 or 'host');\n"
                 "                     PEs may share a GPU\n"
                 "  --node-size N      consecutive blocks of N PEs are separate nodes, as\n"
                 "                     SHOAL_NODE_SIZE makes them (default: $SHOAL_NODE_SIZE,\n"
                 "                     else one node); every node sees the same machine\n"
                 "  --p2p-level LEVEL  worst path cuda_ipc may use: NVL, PIX, PXB, PHB, NODE, SYS\n"
                 "                     (default: $SHOAL_P2P_LEVEL, else SYS)\n"
                 "  --disable LIST     transports never to use: cuda_ipc, shm, staged\n"
                 "                     (default: $SHOAL_TRANSPORT_DISABLE)\n"
                 "  --probe            (MPI mode) measure every PE pair through shoal: put bandwidth\n"
                 "                     at --probe-size bytes (default 64 MiB on GPU heaps, 4 MiB on\n"
                 "                     host heaps) and 8-byte put latency, beside the transport\n"
                 "  --probe-size BYTES size of the bandwidth probe\n"
                 "  --mpi / --no-mpi   force or forbid MPI mode; by default MPI mode is on when\n"
                 "                     launched by mpiexec. In MPI mode every rank starts a shoal\n"
                 "                     instance and rank 0 prints the transport chosen per PE pair.\n"
                 "  --env              print every SHOAL_* variable: its value (INVALID ones marked,\n"
                 "                     with what is expected), its default and what it does\n"
                 "  --help             this text\n"
                 "\n"
                 "Exit status: 0 on success, 1 on error.\n");
}

/* ---------------------------------------------------------------- options */

static int tool_parse_int(const char *s, long lo, long hi, long *v_p)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *v_p = v;
    return 0;
}

static int tool_parse_map(const char *list, tool_opts_t *o)
{
    const char *p = list;
    int n = 1;

    for (const char *c = list; *c; c++) n += *c == ',';
    if (n > MAX_PES) return tool_fail("--map: more than %d PEs", MAX_PES);
    free(o->map);
    o->map = calloc((size_t)n, sizeof(int));
    if (!o->map) return tool_fail("out of memory");
    o->n_map = 0;
    while (o->n_map < n) {
        char item[32];
        size_t len = strcspn(p, ",");
        long v;
        if (len == 0 || len >= sizeof(item)) return tool_fail("--map: empty or overlong entry in '%s'", list);
        memcpy(item, p, len);
        item[len] = '\0';
        if (strcasecmp(item, "host") == 0)
            v = -1;
        else if (tool_parse_int(item, -1, INT_MAX, &v) < 0)
            return tool_fail("--map: '%s' is not a GPU index, -1 or 'host'", item);
        o->map[o->n_map++] = (int)v;
        p += len + (p[len] == ',');
    }
    return 0;
}

/* The value of --opt VALUE or --opt=VALUE; advances *i past it. */
static const char *tool_optarg(int argc, char **argv, int *i, const char *name)
{
    size_t len = strlen(name);

    if (strncmp(argv[*i], name, len) == 0 && argv[*i][len] == '=') return argv[*i] + len + 1;
    if (strcmp(argv[*i], name) != 0) return NULL;
    if (*i + 1 >= argc) return "";
    return argv[++*i];
}

/* Launched by an MPI launcher? (MPICH's hydra, Open MPI, PMIx, Slurm.) */
static int tool_under_mpiexec(void)
{
    static const char *const vars[] = {"PMI_RANK", "PMI_SIZE", "MPI_LOCALNRANKS", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i])) return 1;
    return 0;
}

/* A SHOAL_* variable as the runtime reads it: blanks around the value
 * dropped, and a blank value the same as none (NULL). */
static const char *tool_env(const char *name, char *buf, size_t len)
{
    const char *v = getenv(name), *end;

    if (!v) return NULL;
    while (isspace((unsigned char)*v)) v++;
    end = v + strlen(v);
    while (end > v && isspace((unsigned char)end[-1])) end--;
    if (end == v) return NULL;
    if ((size_t)(end - v) >= len) return getenv(name); /* too long for any valid value: refused as it is */
    memcpy(buf, v, (size_t)(end - v));
    buf[end - v] = '\0';
    return buf;
}

/* 0 to go on, 1 on error, 2 after --help. */
static int tool_parse(int argc, char **argv, tool_opts_t *o)
{
    const char *env, *v;
    int force_mpi = -1, has_model_policy = 0;

    memset(o, 0, sizeof(*o));
    o->pes = -1;
    o->policy.p2p_level = SHOAL_PATH_SYS;
    /* The runtime's own parsers: what it refuses, the tool refuses. */
    char ebuf[512];
    if ((env = tool_env("SHOAL_P2P_LEVEL", ebuf, sizeof(ebuf))) &&
        shoal_topo_parse_p2p_level(env, &o->policy.p2p_level) < 0)
        return tool_fail("SHOAL_P2P_LEVEL: %s", shoal_topo_last_error());
    if ((env = tool_env("SHOAL_TRANSPORT_DISABLE", ebuf, sizeof(ebuf))) &&
        shoal_topo_parse_disable(env, &o->policy.disabled) < 0)
        return tool_fail("SHOAL_TRANSPORT_DISABLE: %s", shoal_topo_last_error());
    if ((env = tool_env("SHOAL_NODE_SIZE", ebuf, sizeof(ebuf)))) {
        long n;
        if (tool_parse_int(env, 0, 1L << 30, &n) < 0)
            return tool_fail("SHOAL_NODE_SIZE: '%s' is not 0 or a positive number of PEs", env);
        o->node_size = (int)n;
    }

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            tool_usage(stdout);
            return 2;
        } else if (strcmp(a, "--json") == 0) {
            o->json = 1;
        } else if (strcmp(a, "--probe") == 0) {
            o->probe = 1;
        } else if ((v = tool_optarg(argc, argv, &i, "--probe-size"))) {
            long n;
            if (tool_parse_int(v, 8, 1L << 30, &n) < 0)
                return tool_fail("--probe-size: '%s' is not a size from 8 to 1073741824", v);
            o->probe_size = (size_t)n;
        } else if (strcmp(a, "--mpi") == 0) {
            force_mpi = 1;
        } else if (strcmp(a, "--no-mpi") == 0) {
            force_mpi = 0;
        } else if ((v = tool_optarg(argc, argv, &i, "--input"))) {
            if (!*v) return tool_fail("--input needs a file name");
            o->input = v;
        } else if ((v = tool_optarg(argc, argv, &i, "--export"))) {
            if (!*v) return tool_fail("--export needs a file name");
            if (strcmp(v, "-") == 0)
                return tool_fail("--export needs a file name ('-' would mix the XML into the report)");
            o->export_path = v;
        } else if ((v = tool_optarg(argc, argv, &i, "--pes"))) {
            long n;
            if (tool_parse_int(v, 1, MAX_PES, &n) < 0)
                return tool_fail("--pes: '%s' is not a count from 1 to %d", v, MAX_PES);
            o->pes = (int)n;
        } else if ((v = tool_optarg(argc, argv, &i, "--map"))) {
            if (tool_parse_map(v, o)) return 1;
        } else if ((v = tool_optarg(argc, argv, &i, "--node-size"))) {
            long n;
            has_model_policy = 1;
            if (tool_parse_int(v, 0, 1L << 30, &n) < 0)
                return tool_fail("--node-size: '%s' is not 0 or a positive number of PEs", v);
            o->node_size = (int)n;
        } else if ((v = tool_optarg(argc, argv, &i, "--p2p-level"))) {
            has_model_policy = 1;
            if (shoal_topo_parse_p2p_level(v, &o->policy.p2p_level) < 0)
                return tool_fail("--p2p-level: %s", shoal_topo_last_error());
        } else if ((v = tool_optarg(argc, argv, &i, "--disable"))) {
            has_model_policy = 1;
            if (shoal_topo_parse_disable(v, &o->policy.disabled) < 0)
                return tool_fail("--disable: %s", shoal_topo_last_error());
        } else {
            return tool_fail("unknown option '%s' (try --help)", a);
        }
    }
    if (o->n_map && o->pes >= 0 && o->pes != o->n_map)
        return tool_fail("--pes %d but --map places %d PEs", o->pes, o->n_map);
    o->mpi = force_mpi >= 0 ? force_mpi : tool_under_mpiexec();
    if (o->probe && !o->mpi) return tool_fail("--probe measures PE pairs: run it under mpiexec");
    if (o->probe_size && !o->probe) return tool_fail("--probe-size goes with --probe");
    if (o->mpi && (o->input || o->export_path || o->pes >= 0 || o->n_map || has_model_policy))
        return tool_fail(
            "--input, --export, --pes, --map, --node-size, --p2p-level and --disable describe a model: run "
            "without mpiexec (or with --no-mpi); under mpiexec the transports are the live instance's "
            "(set SHOAL_P2P_LEVEL, SHOAL_NODE_SIZE or SHOAL_TRANSPORT_DISABLE instead)");
    return 0;
}

static int tool_place(shoal_topo_t topo, const tool_opts_t *o, tool_place_t *pl)
{
    int n_gpus = shoal_topo_n_gpus(topo);

    memset(pl, 0, sizeof(*pl));
    pl->explicit_placement = o->n_map > 0 || o->pes >= 0;
    pl->n_pes = o->n_map ? o->n_map : o->pes >= 0 ? o->pes : n_gpus;
    if (pl->n_pes == 0) return 0;
    pl->gpu_of = calloc((size_t)pl->n_pes, sizeof(int));
    if (!pl->gpu_of) return tool_fail("out of memory");
    for (int pe = 0; pe < pl->n_pes; pe++) {
        if (o->n_map) {
            if (o->map[pe] >= n_gpus)
                return tool_fail("--map: PE %d on GPU %d, but the topology has %d GPU%s", pe, o->map[pe], n_gpus,
                                 n_gpus == 1 ? "" : "s");
            pl->gpu_of[pe] = o->map[pe];
            if (pe > 0 && (pl->gpu_of[pe] < 0) != (pl->gpu_of[0] < 0))
                return tool_fail("--map: PE 0 has a %s heap and PE %d a %s heap; shoal_init refuses heaps of "
                                 "different kinds (SHOAL_HEAP_KIND is the same on every PE)",
                                 pl->gpu_of[0] < 0 ? "host" : "GPU", pe, pl->gpu_of[pe] < 0 ? "host" : "GPU");
        } else {
            pl->gpu_of[pe] = n_gpus ? pe % n_gpus : -1;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- model output */

static const char *tool_plural(int n, const char *one, const char *many) { return n == 1 ? one : many; }

/* JSON string, escaped. */
static void tool_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* "NV18", "PIX", " X " for one matrix cell. */
static void tool_cell(shoal_topo_t topo, int a, int b, char *buf, size_t len)
{
    shoal_path_t path;
    int links;

    if (a == b) {
        snprintf(buf, len, "X");
        return;
    }
    shoal_topo_gpu_path(topo, a, b, &path, &links);
    if (path == SHOAL_PATH_NVL)
        snprintf(buf, len, "NV%d", links);
    else
        snprintf(buf, len, "%s", shoal_path_name(path));
}

static void tool_text_matrix(FILE *out, shoal_topo_t topo)
{
    int n = shoal_topo_n_gpus(topo);
    char cell[16];

    fprintf(out, "%-8s", "");
    for (int b = 0; b < n; b++) {
        snprintf(cell, sizeof(cell), "GPU%d", b);
        fprintf(out, "%-8s", cell);
    }
    fprintf(out, "%-16s%s\n", "CPU Affinity", "NUMA Affinity");
    for (int a = 0; a < n; a++) {
        shoal_topo_gpu_t g;
        shoal_topo_gpu(topo, a, &g);
        snprintf(cell, sizeof(cell), "GPU%d", a);
        fprintf(out, "%-8s", cell);
        for (int b = 0; b < n; b++) {
            tool_cell(topo, a, b, cell, sizeof(cell));
            fprintf(out, "%-8s", cell);
        }
        if (g.numa_node >= 0)
            fprintf(out, "%-16s%d\n", g.cpuset[0] ? g.cpuset : "N/A", g.numa_node);
        else
            fprintf(out, "%-16sN/A\n", g.cpuset[0] ? g.cpuset : "N/A");
    }
    fprintf(out, "\nLegend: X = self, NV# = # NVLinks, PIX = one PCIe switch, PXB = several PCIe switches,\n"
                 "        PHB = a PCIe host bridge, NODE = host bridges of one NUMA node, SYS = across NUMA nodes\n");
}

static void tool_text_gpus(FILE *out, shoal_topo_t topo)
{
    int n = shoal_topo_n_gpus(topo);

    fprintf(out, "\nGPUs:\n");
    for (int i = 0; i < n; i++) {
        shoal_topo_gpu_t g;
        shoal_topo_gpu(topo, i, &g);
        fprintf(out, "  GPU%d  %s  %s", i, g.pci_bus_id, g.name[0] ? g.name : "(unnamed)");
        if (g.nic >= 0) {
            shoal_topo_nic_t nic;
            shoal_topo_nic(topo, g.nic, &nic);
            fprintf(out, "  nearest NIC%d %s%s%s", g.nic, nic.pci_bus_id, nic.pci_bus_id[0] && nic.name[0] ? " " : "",
                    nic.name);
        }
        fputc('\n', out);
    }
}

static void tool_text_nics(FILE *out, shoal_topo_t topo)
{
    int n = shoal_topo_n_nics(topo);

    if (n <= 0) return;
    fprintf(out, "\nNICs:\n");
    for (int i = 0; i < n; i++) {
        shoal_topo_nic_t nic;
        int numa = -1;
        if (shoal_topo_nic(topo, i, &nic) < 0) continue;
        shoal_topo_nic_numa(topo, i, &numa);
        fprintf(out, "  NIC%d  %s  %s", i, nic.pci_bus_id[0] ? nic.pci_bus_id : "(no PCI device)",
                nic.name[0] ? nic.name : "(unnamed)");
        if (numa >= 0) fprintf(out, "  NUMA node %d", numa);
        fputc('\n', out);
    }
}

/* The machine: a summary line, then the GPU matrix and the GPUs (where
 * there are some) and the NICs. Model mode and MPI mode print the same. */
static void tool_text_machine(FILE *out, shoal_topo_t topo)
{
    int n_gpus = shoal_topo_n_gpus(topo), n_nics = shoal_topo_n_nics(topo);
    int pk = shoal_topo_n_packages(topo), nn = shoal_topo_n_numa(topo), cores = shoal_topo_n_cores(topo);

    fprintf(out, "%d %s, %d NUMA %s, %d %s, %d %s, %d %s (NVLink information: %s)\n", pk,
            tool_plural(pk, "package", "packages"), nn, tool_plural(nn, "node", "nodes"), cores,
            tool_plural(cores, "core", "cores"), n_gpus, tool_plural(n_gpus, "GPU", "GPUs"), n_nics,
            tool_plural(n_nics, "NIC", "NICs"), shoal_topo_nvlink_source(topo));
    if (n_gpus > 0) {
        fputc('\n', out);
        tool_text_matrix(out, topo);
        tool_text_gpus(out, topo);
    }
    tool_text_nics(out, topo);
}

/* PEs of one node beyond its cores: a PE waiting in a collective then
 * sleeps in the kernel (SHOAL_WAIT=auto turns to sleep there), and every
 * wake-up costs. where is "one node", "each node" or "node 2"; 1 when it
 * warned. */
static int tool_warn_oversubscribed(FILE *out, const char *where, int pes, int cores)
{
    if (cores <= 0 || pes <= cores) return 0;
    fprintf(out,
            "  %d PEs on %s but %d %s: PEs outnumber cores, so a PE waiting in a collective sleeps in the kernel "
            "(SHOAL_WAIT=auto) and performance suffers; run fewer ranks per node\n",
            pes, where, cores, tool_plural(cores, "core", "cores"));
    return 1;
}

/* One "why" for the pair, plus its transport; 0 or 1 on error. */
static int tool_choose(shoal_topo_t topo, const tool_opts_t *o, int pe_a, int gpu_a, int pe_b, int gpu_b,
                       shoal_transport_id_t *tp_p, char *why, size_t why_len)
{
    int node_a = o->node_size > 0 ? pe_a / o->node_size : 0, node_b = o->node_size > 0 ? pe_b / o->node_size : 0;
    shoal_topo_place_t a = {.pe = pe_a, .node = node_a, .gpu = gpu_a}, b = {.pe = pe_b, .node = node_b, .gpu = gpu_b};

    if (shoal_topo_choose(topo, &o->policy, &a, &b, tp_p, why, why_len) < 0)
        return tool_fail("%s", shoal_topo_last_error());
    return 0;
}

static int tool_text_transports(FILE *out, shoal_topo_t topo, const tool_opts_t *o, const tool_place_t *pl,
                                int *fallbacks_p)
{
    char why[512];

    *fallbacks_p = 0;
    char nodes[48] = "on one node";
    if (o->node_size > 0 && o->node_size < pl->n_pes) snprintf(nodes, sizeof(nodes), "in nodes of %d", o->node_size);
    if (pl->n_pes == 0) {
        /* One PE per GPU, and no GPU: say what a user would get instead. */
        fprintf(out, "\nTransports (no PE placed: one per GPU by default; SHOAL_P2P_LEVEL=%s):\n",
                shoal_path_name(o->policy.p2p_level));
        fprintf(out, "  no GPU: PEs would use host heaps; place some with --pes N or --map host,host\n");
        return 0;
    }
    fprintf(out, "\nTransports (%d %s %s, %s; SHOAL_P2P_LEVEL=%s):\n", pl->n_pes, tool_plural(pl->n_pes, "PE", "PEs"),
            nodes, pl->explicit_placement ? "as placed" : "one per GPU", shoal_path_name(o->policy.p2p_level));
    if (pl->n_pes < 2) {
        fprintf(out, "  a single PE: only self\n");
        return 0;
    }
    for (int a = 0; a < pl->n_pes; a++)
        for (int b = a + 1; b < pl->n_pes; b++) {
            shoal_transport_id_t tp;
            char ga[16], gb[16];
            if (tool_choose(topo, o, a, pl->gpu_of[a], b, pl->gpu_of[b], &tp, why, sizeof(why))) return 1;
            snprintf(ga, sizeof(ga), pl->gpu_of[a] >= 0 ? "GPU%d" : "host", pl->gpu_of[a]);
            snprintf(gb, sizeof(gb), pl->gpu_of[b] >= 0 ? "GPU%d" : "host", pl->gpu_of[b]);
            fprintf(out, "  PE %d (%s) <-> PE %d (%s)  %-9s %s\n", a, ga, b, gb, shoal_transport_name(tp), why);
            if (pl->gpu_of[a] >= 0 && pl->gpu_of[b] >= 0 &&
                (tp == SHOAL_TRANSPORT_STAGED || tp == SHOAL_TRANSPORT_MPI_RMA))
                (*fallbacks_p)++;
        }
    return 0;
}

static int tool_text_warnings(FILE *out, shoal_topo_t topo, const tool_opts_t *o, const tool_place_t *pl)
{
    char bind[256], why[512];
    int n_gpus = shoal_topo_n_gpus(topo), warned = 0, bind_rc;

    fprintf(out, "\nWarnings:\n");
    if (*shoal_topo_warning(topo)) {
        fprintf(out, "  %s\n", shoal_topo_warning(topo));
        warned++;
    }
    bind_rc = shoal_topo_cpubind(topo, bind, sizeof(bind));
    for (int g = 0; g < n_gpus && bind_rc == SHOAL_SUCCESS; g++) {
        shoal_topo_gpu_t gpu;
        int near = shoal_topo_gpu_near_binding(topo, g);
        if (near != 0) continue;
        shoal_topo_gpu(topo, g, &gpu);
        fprintf(out,
                "  GPU%d: its CPUs (%s, NUMA node %d) are outside this process's binding (%s); bind each PE near its "
                "GPU\n",
                g, gpu.cpuset, gpu.numa_node, bind);
        warned++;
    }
    {
        int per_node = o->node_size > 0 && o->node_size < pl->n_pes ? o->node_size : pl->n_pes;
        warned += tool_warn_oversubscribed(out, per_node < pl->n_pes ? "each node" : "one node", per_node,
                                           shoal_topo_n_cores(topo));
    }
    for (int a = 0; a < pl->n_pes; a++)
        for (int b = a + 1; b < pl->n_pes; b++) {
            shoal_transport_id_t tp;
            if (pl->gpu_of[a] < 0 || pl->gpu_of[b] < 0) continue;
            if (tool_choose(topo, o, a, pl->gpu_of[a], b, pl->gpu_of[b], &tp, why, sizeof(why))) return 1;
            if (tp != SHOAL_TRANSPORT_STAGED && tp != SHOAL_TRANSPORT_MPI_RMA) continue;
            fprintf(out, "  PE %d <-> PE %d (GPUs %d-%d) fall back to %s: every transfer goes through host memory\n", a,
                    b, pl->gpu_of[a], pl->gpu_of[b], shoal_transport_name(tp));
            warned++;
        }
    if (!warned) fprintf(out, "  none\n");
    if (bind_rc == SHOAL_ERR_UNSUPPORTED) fprintf(out, "  (CPU binding not checked: the topology comes from a file)\n");
    return 0;
}

static int tool_text(FILE *out, shoal_topo_t topo, const tool_opts_t *o, const tool_place_t *pl)
{
    int fallbacks;

    tool_text_machine(out, topo);
    if (tool_text_transports(out, topo, o, pl, &fallbacks)) return 1;
    return tool_text_warnings(out, topo, o, pl);
}

static int tool_json_pair(FILE *out, shoal_topo_t topo, const tool_opts_t *o, int pe_a, int ga, int pe_b, int gb,
                          int pe_pair)
{
    shoal_transport_id_t tp;
    char why[512];
    shoal_path_t path = SHOAL_PATH_COUNT;
    int links = 0;

    if (tool_choose(topo, o, pe_a, ga, pe_b, gb, &tp, why, sizeof(why))) return 1;
    if (ga >= 0 && gb >= 0) shoal_topo_gpu_path(topo, ga, gb, &path, &links);
    if (pe_pair)
        fprintf(out, "{\"a\": %d, \"b\": %d, \"gpu_a\": %d, \"gpu_b\": %d, ", pe_a, pe_b, ga, gb);
    else
        fprintf(out, "{\"a\": %d, \"b\": %d, ", ga, gb);
    fprintf(out, "\"path\": ");
    if (path == SHOAL_PATH_COUNT)
        fprintf(out, "null");
    else
        tool_json_str(out, shoal_path_name(path));
    fprintf(out, ", \"nvlinks\": %d, \"transport\": ", links);
    tool_json_str(out, shoal_transport_name(tp));
    fprintf(out, ", \"why\": ");
    tool_json_str(out, why);
    fprintf(out, "}");
    return 0;
}

static int tool_json(FILE *out, shoal_topo_t topo, const tool_opts_t *o, const tool_place_t *pl)
{
    int n = shoal_topo_n_gpus(topo), first = 1;

    fprintf(out, "{\n  \"version\": 3,\n");
    fprintf(out, "  \"machine\": {\"packages\": %d, \"numa_nodes\": %d, \"cores\": %d, \"nics\": %d},\n",
            shoal_topo_n_packages(topo), shoal_topo_n_numa(topo), shoal_topo_n_cores(topo), shoal_topo_n_nics(topo));
    fprintf(out, "  \"gpus\": [");
    for (int i = 0; i < n; i++) {
        shoal_topo_gpu_t g;
        shoal_topo_gpu(topo, i, &g);
        fprintf(out, "%s\n    {\"index\": %d, \"pci_bus_id\": ", i ? "," : "", g.index);
        tool_json_str(out, g.pci_bus_id);
        fprintf(out, ", \"name\": ");
        tool_json_str(out, g.name);
        fprintf(out, ", \"numa_node\": %d, \"cpuset\": ", g.numa_node);
        tool_json_str(out, g.cpuset);
        fprintf(out, ", \"nic\": %d}", g.nic);
    }
    fprintf(out, "%s],\n  \"nics\": [", n ? "\n  " : "");
    for (int i = 0; i < shoal_topo_n_nics(topo); i++) {
        shoal_topo_nic_t nic;
        int numa = -1;
        if (shoal_topo_nic(topo, i, &nic) < 0) return tool_fail("%s", shoal_topo_last_error());
        shoal_topo_nic_numa(topo, i, &numa);
        fprintf(out, "%s\n    {\"index\": %d, \"pci_bus_id\": ", i ? "," : "", nic.index);
        tool_json_str(out, nic.pci_bus_id);
        fprintf(out, ", \"name\": ");
        tool_json_str(out, nic.name);
        fprintf(out, ", \"numa_node\": %d}", numa);
    }
    fprintf(out, "%s],\n  \"pairs\": [", shoal_topo_n_nics(topo) > 0 ? "\n  " : "");
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            fprintf(out, "%s\n    ", first ? "" : ",");
            first = 0;
            if (tool_json_pair(out, topo, o, a, a, b, b, 0)) return 1;
        }
    fprintf(out, "%s]", first ? "" : "\n  ");
    fprintf(out, ",\n  \"warning\": ");
    tool_json_str(out, shoal_topo_warning(topo));
    if (pl->explicit_placement) {
        first = 1;
        fprintf(out, ",\n  \"pes\": [");
        for (int pe = 0; pe < pl->n_pes; pe++)
            fprintf(out, "%s{\"pe\": %d, \"gpu\": %d}", pe ? ", " : "", pe, pl->gpu_of[pe]);
        fprintf(out, "],\n  \"pe_pairs\": [");
        for (int a = 0; a < pl->n_pes; a++)
            for (int b = a + 1; b < pl->n_pes; b++) {
                fprintf(out, "%s\n    ", first ? "" : ",");
                first = 0;
                if (tool_json_pair(out, topo, o, a, pl->gpu_of[a], b, pl->gpu_of[b], 1)) return 1;
            }
        fprintf(out, "%s]", first ? "" : "\n  ");
    }
    fprintf(out, "\n}\n");
    return 0;
}

static int tool_model(const tool_opts_t *o)
{
    shoal_topo_t topo = NULL;
    tool_place_t pl;
    int rc;

    if (shoal_topo_load(o->input, &topo) < 0) return tool_fail("%s", shoal_topo_last_error());
    /* On stderr too: seen even where only the JSON is read. */
    if (*shoal_topo_warning(topo)) fprintf(stderr, TOOL ": warning: %s\n", shoal_topo_warning(topo));
    if ((rc = tool_place(topo, o, &pl)) != 0) goto out_place; /* pl is zeroed first */
    if (o->export_path && shoal_topo_export_xml(topo, o->export_path) < 0) {
        rc = tool_fail("%s", shoal_topo_last_error());
        goto out_place;
    }
    rc = o->json ? tool_json(stdout, topo, o, &pl) : tool_text(stdout, topo, o, &pl);
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout)))
        rc = tool_fail("cannot write the output: %s", strerror(errno));
out_place:
    free(pl.gpu_of);
    shoal_topo_destroy(topo);
    return rc;
}

/* Measure every ordered PE pair through shoal itself, one pair at a time:
 * blocking puts of size bytes (bandwidth) and of 8 bytes (latency). Rank 0
 * gets the matrices in bw/lat (n * n; the diagonal is 0). */
static int tool_probe(shoal_t sh, size_t size, double *bw, double *lat)
{
    int n = shoal_n_pes(sh), me = shoal_my_pe(sh), rc = 0;
    double *bw_row = calloc((size_t)n, sizeof(double)), *lat_row = calloc((size_t)n, sizeof(double));
    char *dst = shoal_malloc(sh, size), *src = shoal_malloc(sh, size);

    if (!bw_row || !lat_row || !dst || !src) {
        rc = tool_fail("rank %d: --probe: cannot allocate 2 x %zu bytes (%s); lower --probe-size or raise "
                       "SHOAL_HEAP_SIZE",
                       me, size, shoal_last_error(sh));
        goto out;
    }
    for (int a = 0; a < n && rc == 0; a++)
        for (int b = 0; b < n && rc == 0; b++) {
            if (a == b) continue;
            if (shoal_barrier_all(sh) != SHOAL_SUCCESS) {
                rc = tool_fail("rank %d: --probe: %s", me, shoal_last_error(sh));
                break;
            }
            if (me != a) continue;
            int iters = size >= ((size_t)16 << 20) ? 10 : 50, small = 2000;
            if (shoal_put(sh, dst, src, size, b) != SHOAL_SUCCESS) { /* warm up */
                rc = tool_fail("rank %d: --probe: put to PE %d: %s", me, b, shoal_last_error(sh));
                break;
            }
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) shoal_put(sh, dst, src, size, b);
            double t1 = MPI_Wtime();
            for (int i = 0; i < small; i++) shoal_put(sh, dst, src, 8, b);
            double t2 = MPI_Wtime();
            bw_row[b] = (double)size * iters / (t1 - t0) / 1e9;
            lat_row[b] = (t2 - t1) / small * 1e6;
        }
    if (rc == 0 && shoal_barrier_all(sh) != SHOAL_SUCCESS)
        rc = tool_fail("rank %d: --probe: %s", me, shoal_last_error(sh));
    MPI_Gather(bw_row, n, MPI_DOUBLE, bw, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(lat_row, n, MPI_DOUBLE, lat, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
out:
    if (src) shoal_free(sh, src);
    if (dst) shoal_free(sh, dst);
    free(bw_row);
    free(lat_row);
    return rc;
}

static void tool_print_matrix(const char *title, const double *m, const int *tp, int n, const char *fmt)
{
    printf("\n%s\n%-10s", title, "PE");
    for (int b = 0; b < n; b++) printf("%-20d", b);
    printf("\n");
    for (int a = 0; a < n; a++) {
        printf("%-10d", a);
        for (int b = 0; b < n; b++) {
            char cell[64], num[32];
            if (a == b) {
                snprintf(cell, sizeof(cell), "-");
            } else {
                snprintf(num, sizeof(num), fmt, m[a * n + b]);
                snprintf(cell, sizeof(cell), "%s %s", num,
                         tp[a * n + b] >= 0 ? shoal_transport_name((shoal_transport_id_t)tp[a * n + b]) : "?");
            }
            printf("%-20s", cell);
        }
        printf("\n");
    }
}

/* ---------------------------------------------------------------- MPI mode: PEs sharing a GPU */

/* Every rank's row of shoal_pe_gpu_shared, gathered into *share_p (n * n)
 * on rank 0; NULL elsewhere, and on every rank where no PE shares its GPU.
 * Collective; 0 or 1 (an error, printed). */
static int tool_share_gather(shoal_t sh, int n, int rank, int **share_p)
{
    int *row = calloc((size_t)n, sizeof(int)), *all = NULL, mine = 0, any = 0, rc = 0;

    *share_p = NULL;
    if (row == NULL) rc = tool_fail("rank %d: out of memory", rank); /* still takes part below */
    for (int pe = 0; pe < n && rc == 0; pe++) {
        row[pe] = shoal_pe_gpu_shared(sh, pe);
        if (row[pe] < 0) rc = tool_fail("rank %d: shoal_pe_gpu_shared: %s", rank, shoal_last_error(sh));
        mine |= row[pe] != SHOAL_GPU_SEPARATE;
    }
    /* Rank 0's buffer first: a gather happens only where every rank can
     * take part. Every rank takes part even after a local error. */
    if (rank == 0 && (all = calloc((size_t)n * (size_t)n, sizeof(int))) == NULL)
        rc = tool_fail("rank 0: out of memory");
    {
        int in[2] = {mine, rc != 0}, out[2] = {0, 1};
        if (MPI_Allreduce(in, out, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS)
            rc = tool_fail("rank %d: MPI_Allreduce failed", rank);
        any = out[0] && !out[1];
        if (out[1] && rc == 0) rc = 1; /* another rank failed and said so */
    }
    if (rc == 0 && any && MPI_Gather(row, n, MPI_INT, all, n, MPI_INT, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        rc = tool_fail("rank %d: MPI_Gather failed", rank);
    if (rc == 0 && !any) {
        free(all);
        all = NULL;
    }
    free(row);
    if (rc != 0)
        free(all);
    else
        *share_p = all;
    return rc;
}

/* Rank 0: each group of PEs on one GPU, and whether MPS lets their kernels
 * run side by side (all pairs SHOAL_GPU_SHARED_MPS), as text or JSON (the
 * "gpu_sharing" entry of "mpi": [{"pes": [...], "mps": bool}, ...]). */
static void tool_share_print(const int *share, int n, const int *nodes, int json)
{
    char *seen = calloc((size_t)n, 1);
    int groups = 0;

    if (seen == NULL) return;
    if (json)
        printf(",\n    \"gpu_sharing\": [");
    else
        printf("\nPEs sharing a GPU (kernels of two processes on one GPU run side by side only under MPS):\n");
    for (int a = 0; a < n; a++) {
        int mps = 1, k = 0;
        if (seen[a]) continue;
        for (int b = a + 1; b < n; b++)
            if (share[a * n + b] != SHOAL_GPU_SEPARATE) k++;
        if (k == 0) continue;
        for (int b = a; b < n; b++) {
            if (b != a && share[a * n + b] == SHOAL_GPU_SEPARATE) continue;
            seen[b] = 1;
            for (int c = a; c < n; c++)
                if (c != b && share[a * n + c] != SHOAL_GPU_SEPARATE && share[b * n + c] != SHOAL_GPU_SHARED_MPS)
                    mps = 0;
        }
        if (json)
            printf("%s{\"pes\": [", groups ? ", " : "");
        else
            printf("  PEs ");
        for (int b = a, first = 1; b < n; b++) {
            if (b != a && share[a * n + b] == SHOAL_GPU_SEPARATE) continue;
            printf("%s%d", first ? "" : ", ", b);
            first = 0;
        }
        if (json)
            printf("], \"mps\": %s}", mps ? "true" : "false");
        else if (mps)
            printf(" (node %d): MPS active, their kernels run side by side\n", nodes[a]);
        else
            printf(" (node %d): MPS not active: host and stream-ordered calls work, but their kernels take turns by "
                   "time slices, so kernels that wait for each other crawl; start MPS: nvidia-cuda-mps-control -d\n",
                   nodes[a]);
        groups++;
    }
    if (json) printf("]");
    free(seen);
}

/* ---------------------------------------------------------------- MPI mode */

#define TOOL_BUS_LEN 32 /* a PCI bus id gathered from every rank, NUL included */

/* What rank 0 knows of the PEs: each one's node and GPU, its row of chosen
 * transports, and the live topology of rank 0's node (NULL when it could
 * not be loaded; load_error says why). */
typedef struct tool_live {
    int n;                /* PEs */
    int *tp;              /* n * n: transport from PE row to PE column, -1 unknown */
    int *nodes;           /* node of each PE */
    char *buses;          /* n * TOOL_BUS_LEN: each PE's GPU bus id, "" for a host heap */
    int *gpu;             /* each PE's GPU index in topo; -1 host heap, -2 not in topo */
    shoal_topo_t topo;    /* rank 0's node, as the runtime loads it (SHOAL_TOPO_FILE too) */
    char load_error[512]; /* why topo is NULL */
} tool_live_t;

static const char *tool_tp_name(int tp) { return tp >= 0 ? shoal_transport_name((shoal_transport_id_t)tp) : "?"; }

/* "node 0, GPU1", "node 1, host", "node 0, GPU 0000:19:00.0?" */
static void tool_live_label(const tool_live_t *lv, int pe, char *buf, size_t len)
{
    if (lv->gpu[pe] >= 0)
        snprintf(buf, len, "node %d, GPU%d", lv->nodes[pe], lv->gpu[pe]);
    else if (lv->gpu[pe] == -1)
        snprintf(buf, len, "node %d, host", lv->nodes[pe]);
    else
        snprintf(buf, len, "node %d, GPU %s?", lv->nodes[pe], lv->buses + (size_t)pe * TOOL_BUS_LEN);
}

/* The policy's transport from a to b and its reason, on the live topology
 * with each PE where the instance put it; -1 when it cannot say (why says
 * why). GPUs of other nodes are looked up in this node's topology: every
 * node is taken to be the same machine. */
static int tool_live_policy(const tool_live_t *lv, const tool_opts_t *o, int a, int b, char *why, size_t len)
{
    shoal_topo_place_t pa = {.pe = a, .node = lv->nodes[a], .gpu = lv->gpu[a]};
    shoal_topo_place_t pb = {.pe = b, .node = lv->nodes[b], .gpu = lv->gpu[b]};
    shoal_transport_id_t tp;

    for (int k = 0; k < 2; k++) {
        int pe = k ? b : a;
        if (lv->gpu[pe] != -2) continue;
        if (lv->nodes[a] != lv->nodes[b]) {
            /* Across nodes the policy reads no path: any GPU stands in. */
            if (k)
                pb.gpu = 0;
            else
                pa.gpu = 0;
            continue;
        }
        snprintf(why, len, "PE %d's GPU %s is not in the topology of node %d (%.300s)", pe,
                 lv->buses + (size_t)pe * TOOL_BUS_LEN, lv->nodes[0], lv->topo ? "another machine?" : lv->load_error);
        return -1;
    }
    if (shoal_topo_choose(lv->topo, &o->policy, &pa, &pb, &tp, why, len) < 0) {
        snprintf(why, len, "%s", shoal_topo_last_error());
        return -1;
    }
    return (int)tp;
}

/* Rank 0, text: the transport each pair got and why. */
static void tool_live_text_why(const tool_live_t *lv, const tool_opts_t *o)
{
    int n = lv->n, several_nodes = 0;
    char why[512], la[64], lb[64];

    for (int pe = 1; pe < n; pe++) several_nodes |= lv->nodes[pe] != lv->nodes[0];
    printf("\nWhy: each pair's transport as the instance chose it, and the policy's reason (SHOAL_P2P_LEVEL=%s%s):\n",
           shoal_path_name(o->policy.p2p_level),
           several_nodes ? "; GPUs of every node looked up in node 0's topology" : "");
    if (n < 2) printf("  a single PE: only self\n");
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int chosen = lv->tp[a * n + b], back = lv->tp[b * n + a];
            int policy = tool_live_policy(lv, o, a, b, why, sizeof(why));
            tool_live_label(lv, a, la, sizeof(la));
            tool_live_label(lv, b, lb, sizeof(lb));
            printf("  PE %d (%s) <-> PE %d (%s)  %-9s %s", a, la, b, lb, tool_tp_name(chosen), why);
            if (back != chosen) printf("; PE %d to PE %d: %s", b, a, tool_tp_name(back));
            if (policy >= 0 && policy != chosen)
                printf("; the policy's first choice, %s, did not connect (CUDA refused peer access?)",
                       tool_tp_name(policy));
            printf("\n");
        }
}

/* Rank 0, text: what to know about this placement. */
static void tool_live_text_warnings(const tool_live_t *lv)
{
    int n = lv->n, warned = 0, cores = lv->topo ? shoal_topo_n_cores(lv->topo) : 0;

    printf("\nWarnings:\n");
    if (lv->topo && *shoal_topo_warning(lv->topo)) {
        printf("  %s\n", shoal_topo_warning(lv->topo));
        warned++;
    }
    /* Nodes are numbered 0.. in order of their lowest PE. */
    for (int node = 0, seen = 0; seen < n; node++) {
        int pes = 0;
        char where[32];
        for (int pe = 0; pe < n; pe++) pes += lv->nodes[pe] == node;
        if (pes == 0) break;
        seen += pes;
        snprintf(where, sizeof(where), "node %d", node);
        if (tool_warn_oversubscribed(stdout, where, pes, cores)) warned++;
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int tp = lv->tp[a * n + b];
            if (lv->gpu[a] == -1 || lv->gpu[b] == -1 || lv->nodes[a] != lv->nodes[b]) continue;
            if (tp != SHOAL_TRANSPORT_STAGED) continue;
            printf("  PE %d <-> PE %d fall back to staged: every transfer goes through host memory\n", a, b);
            warned++;
        }
    if (!warned) printf("  none\n");
}

/* Rank 0, JSON: each PE's GPU and every pair a < b with the policy's reason. */
static void tool_live_json(const tool_live_t *lv, const tool_opts_t *o)
{
    int n = lv->n, first = 1;
    char why[512];

    printf(",\n    \"gpus\": [");
    for (int pe = 0; pe < n; pe++) {
        if (lv->gpu[pe] == -2)
            printf("%snull", pe ? ", " : "");
        else
            printf("%s%d", pe ? ", " : "", lv->gpu[pe]);
    }
    printf("],\n    \"pe_pairs\": [");
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            int policy = tool_live_policy(lv, o, a, b, why, sizeof(why));
            printf("%s\n      {\"a\": %d, \"b\": %d, \"transport\": ", first ? "" : ",", a, b);
            first = 0;
            tool_json_str(stdout, tool_tp_name(lv->tp[a * n + b]));
            printf(", \"policy\": ");
            if (policy >= 0)
                tool_json_str(stdout, tool_tp_name(policy));
            else
                printf("null");
            printf(", \"why\": ");
            tool_json_str(stdout, why);
            printf("}");
        }
    printf("%s]", first ? "" : "\n    ");
}

/* A probe matrix as JSON rows; null on the diagonal (no PE measures itself). */
static void tool_json_probe_rows(const double *m, int n)
{
    for (int a = 0; a < n; a++) {
        printf("%s[", a ? ", " : "");
        for (int b = 0; b < n; b++) {
            if (a == b)
                printf("%snull", b ? ", " : "");
            else
                printf("%s%.2f", b ? ", " : "", m[a * n + b]);
        }
        printf("]");
    }
}

/* Every rank asks its instance which transport it uses towards every PE and
 * where its heap lives; rank 0 gathers the rows, loads the live topology,
 * and prints the machine, the matrix and each pair's reason. */
static int tool_mpi(const tool_opts_t *o)
{
    shoal_t sh = NULL;
    int rank = 0, n = 0, me, rc = 0, *row = NULL, node, *share = NULL;
    double *bw = NULL, *lat = NULL;
    size_t probe_size = 0;
    tool_live_t lv;
    char mybus[TOOL_BUS_LEN] = "";
    const char *bus = NULL;

    memset(&lv, 0, sizeof(lv));
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) return tool_fail("MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (shoal_init(MPI_COMM_WORLD, NULL, &sh) != SHOAL_SUCCESS) {
        tool_fail("rank %d: shoal_init: %s", rank, shoal_last_error(NULL));
        MPI_Abort(MPI_COMM_WORLD, 1); /* the other ranks may wait in a collective */
        return 1;
    }
    n = shoal_n_pes(sh);
    me = shoal_my_pe(sh);
    node = shoal_pe_node(sh, me);
    if (shoal_pe_gpu_bus_id(sh, me, &bus) == SHOAL_SUCCESS) snprintf(mybus, sizeof(mybus), "%s", bus);
    row = calloc((size_t)n, sizeof(int));
    if (rank == 0) {
        lv.n = n;
        lv.tp = calloc((size_t)n * (size_t)n, sizeof(int));
        lv.nodes = calloc((size_t)n, sizeof(int));
        lv.gpu = calloc((size_t)n, sizeof(int));
        lv.buses = calloc((size_t)n, TOOL_BUS_LEN);
    }
    if (!row || (rank == 0 && (!lv.tp || !lv.nodes || !lv.gpu || !lv.buses))) {
        tool_fail("rank %d: out of memory", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    for (int pe = 0; pe < n; pe++) {
        const char *name = NULL;
        shoal_transport_id_t tp;
        row[pe] = -1;
        if (shoal_pe_transport(sh, pe, &name) == SHOAL_SUCCESS && name &&
            shoal_transport_parse(name, &tp) == SHOAL_SUCCESS)
            row[pe] = (int)tp;
    }
    /* Rows are in rank order of MPI_COMM_WORLD, which the instance's PEs follow. */
    MPI_Gather(row, n, MPI_INT, lv.tp, n, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(&node, 1, MPI_INT, lv.nodes, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(mybus, TOOL_BUS_LEN, MPI_CHAR, lv.buses, TOOL_BUS_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (tool_share_gather(sh, n, rank, &share) != 0) MPI_Abort(MPI_COMM_WORLD, 1);

    if (rank == 0) {
        /* The machine as the runtime sees it; without it the reasons still
         * come (host heaps need no topology), so a failure is reported, not
         * fatal. */
        if (shoal_topo_load(NULL, &lv.topo) < 0) {
            snprintf(lv.load_error, sizeof(lv.load_error), "%s", shoal_topo_last_error());
            lv.topo = NULL;
        }
        for (int pe = 0; pe < n; pe++) {
            const char *b = lv.buses + (size_t)pe * TOOL_BUS_LEN;
            int g = lv.topo && b[0] ? shoal_topo_gpu_find(lv.topo, b) : -2;
            lv.gpu[pe] = !b[0] ? -1 : g >= 0 ? g : -2;
        }
    }

    if (o->probe) {
        size_t size = o->probe_size                           ? o->probe_size
                      : shoal_heap_kind(sh) == SHOAL_HEAP_GPU ? (size_t)64 << 20
                                                              : (size_t)4 << 20;
        if (rank == 0) {
            bw = calloc((size_t)n * (size_t)n, sizeof(double));
            lat = calloc((size_t)n * (size_t)n, sizeof(double));
            if (!bw || !lat) {
                tool_fail("rank 0: out of memory");
                MPI_Abort(MPI_COMM_WORLD, 1);
                return 1;
            }
        }
        if (tool_probe(sh, size, bw, lat) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
        probe_size = size;
    }

    if (rank == 0) {
        const char *heap = shoal_heap_kind(sh) == SHOAL_HEAP_GPU ? "GPU" : "host";
        int *all = lv.tp, *nodes = lv.nodes;
        if (o->json) {
            printf("{\n  \"version\": 2,\n  \"mpi\": {\"pes\": %d, \"heap\": \"%s\", \"nodes\": [", n, heap);
            for (int pe = 0; pe < n; pe++) printf("%s%d", pe ? ", " : "", nodes[pe]);
            printf("],\n    \"transports\": [");
            for (int a = 0; a < n; a++) {
                printf("%s\n      [", a ? "," : "");
                for (int b = 0; b < n; b++) printf("%s\"%s\"", b ? ", " : "", tool_tp_name(all[a * n + b]));
                printf("]");
            }
            printf("\n    ]");
            tool_live_json(&lv, o);
            if (bw != NULL) {
                printf(",\n    \"probe\": {\"size\": %zu, \"bandwidth_gbs\": [", probe_size);
                tool_json_probe_rows(bw, n);
                printf("], \"latency_us\": [");
                tool_json_probe_rows(lat, n);
                printf("]}");
            }
            if (share != NULL) tool_share_print(share, n, nodes, 1);
            printf("}\n}\n");
        } else {
            if (lv.topo) {
                tool_text_machine(stdout, lv.topo);
                printf("\n");
            } else {
                printf("Machine: not known (%s)\n\n", lv.load_error);
            }
            printf("%d %s, heap on the %s\nTransport chosen from each PE (row) to each PE (column):\n%-10s", n,
                   tool_plural(n, "PE", "PEs"), heap, "PE (node)");
            for (int b = 0; b < n; b++) printf("%-10d", b);
            printf("\n");
            for (int a = 0; a < n; a++) {
                char label[32];
                snprintf(label, sizeof(label), "%d (%d)", a, nodes[a]);
                printf("%-10s", label);
                for (int b = 0; b < n; b++) printf("%-10s", tool_tp_name(all[a * n + b]));
                printf("\n");
            }
            tool_live_text_why(&lv, o);
            if (bw != NULL) {
                char title[128];
                snprintf(title, sizeof(title),
                         "Measured put bandwidth, %zu bytes, GB/s (row to column), and transport:", probe_size);
                tool_print_matrix(title, bw, all, n, "%.1f");
                tool_print_matrix("Measured 8-byte put latency, us (blocking put), and transport:", lat, all, n,
                                  "%.2f");
            }
            if (share != NULL) tool_share_print(share, n, nodes, 0);
            tool_live_text_warnings(&lv);
        }
        fflush(stdout);
    }
    if (shoal_finalize(sh) != SHOAL_SUCCESS)
        rc = tool_fail("rank %d: shoal_finalize: %s", rank, shoal_last_error(NULL));
    free(row);
    free(lv.tp);
    free(lv.nodes);
    free(lv.gpu);
    free(lv.buses);
    if (lv.topo) shoal_topo_destroy(lv.topo);
    free(share);
    free(bw);
    free(lat);
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    tool_opts_t o;
    int rc;

    /* --env before anything reads the environment: it shows invalid values
     * that would make the other modes fail. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--env") == 0) {
            if (argc != 2) return tool_fail("--env takes no other option");
            shoal_env_print(stdout);
            if (fflush(stdout) != 0 || ferror(stdout)) return tool_fail("cannot write the output: %s", strerror(errno));
            return 0;
        }
    rc = tool_parse(argc, argv, &o);

    if (rc == 0) rc = o.mpi ? tool_mpi(&o) : tool_model(&o);
    free(o.map);
    return rc == 2 ? 0 : rc;
}
