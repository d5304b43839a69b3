/*
 * The environment: every SHOAL_* variable shoal reads, in one table, and
 * what is built from it (runtime/base/env.c): parsing and validation with their
 * error messages, the defaults, shoal_config_init, the settings the runtime
 * keeps beyond shoal_config_t, shoal_env_print, the INFO lines that say
 * where each config field came from, and README.md's table of variables.
 * Hidden from the library's users.
 */
#ifndef SHOAL_ENV_H
#define SHOAL_ENV_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/shoal_instance.h"

/* What a variable holds, and the C type of the settings field it sets. */
typedef enum {
    SHOAL__ENV_KIND_SIZE,   /* size_t: bytes, "4096", "64k", "2G", "512MB" (k m g t, an optional B), in [lo, hi] */
    SHOAL__ENV_KIND_INT,    /* int: a decimal number in [lo, hi] */
    SHOAL__ENV_KIND_DOUBLE, /* double: a finite number in [lo, hi] */
    SHOAL__ENV_KIND_ENUM,   /* int: one of the row's names (case ignored), giving its value */
    SHOAL__ENV_KIND_LIST,   /* unsigned: names separated by commas or blanks, giving the OR of their values */
    SHOAL__ENV_KIND_STRING, /* text (char[]), or what the row's parser makes of it */
    SHOAL__ENV_KIND_BOOL    /* bool: y, yes, 1, on, true or n, no, 0, off, false (case ignored) */
} shoal__env_kind_t;

/* A name an ENUM or LIST variable accepts, and its value. */
typedef struct shoal__env_name {
    const char *name;
    long value;
} shoal__env_name_t;

/*
 * X(NAME, KIND, DEFAULT, VALUES, FIELD, EXPECT, DOC), one row per variable:
 *   NAME     SHOAL_<NAME>; its key is SHOAL__ENV_<NAME>
 *   KIND     SIZE, INT, DOUBLE, ENUM, LIST, STRING or BOOL (above)
 *   DEFAULT  the value when the variable is unset or blank; "": none
 *   VALUES   SHOAL__ENV_RANGE(lo, hi): the bounds of a SIZE, INT or DOUBLE;
 *            SHOAL__ENV_NAMES({"name", value}, ...): what an ENUM or LIST
 *            accepts; SHOAL__ENV_PARSER(fn): a parser of env.c instead of
 *            the kind's; SHOAL__ENV_ANY: no more than the kind says
 *   FIELD    the member of shoal__settings_t it sets: cfg.<field> for a
 *            field of shoal_config_t (shoal_config_init fills those)
 *   EXPECT   what a valid value looks like, in "SHOAL_<NAME>=v is invalid:
 *            expected <EXPECT>"; NULL: said by the kind (ENUM: its names,
 *            BOOL) or by the row's parser
 *   DOC      what it does, in Markdown: README.md's table shows it as it
 *            is, shoal_env_print without the backquotes
 * The order is the order of shoal_env_print and of README.md's table.
 */
#define SHOAL_ENV_TABLE(X)                                                                                             \
    X(HEAP_SIZE, SIZE, "256m", SHOAL__ENV_RANGE(1, SHOAL__HEAP_MAX), cfg.heap_size,                                    \
      "a positive size such as 512m or 2g, at most 256t",                                                              \
      "bytes of symmetric heap per PE (`k`, `m`, `g`, `t` suffixes, an optional `B`), rounded up to 64 (256 on "       \
      "GPUs): the most it holds. A growing GPU heap (the default) takes memory only as blocks need it, and where "     \
      "this is unset its limit is the smallest GPU memory of the PEs; a fixed one (`SHOAL_HEAP_RESERVE=y`) takes "     \
      "this at init; host heaps are sparse (a page is taken when first touched)")                                      \
    X(HEAP_RESERVE, BOOL, "n", SHOAL__ENV_ANY, heap_reserve, NULL,                                                     \
      "`n`: a GPU heap grows, reserving the addresses and mapping memory in chunks as blocks need it, giving back "    \
      "chunks no block uses (where the driver cannot, it takes it all at init and says so at INFO); `y`: it takes "    \
      "all of `SHOAL_HEAP_SIZE` at init, in one allocation shared by CUDA IPC (code that passes heap buffers to "      \
      "`cudaIpcGetMemHandle` needs it)")                                                                               \
    X(HEAP_CHUNK, SIZE, "64m", SHOAL__ENV_RANGE(1 << 20, (size_t)1 << 40), heap_chunk, "a size from 1m to 1t",         \
      "the unit in which a growing GPU heap maps and gives back memory, rounded up to the GPU's allocation "           \
      "granularity (a growth maps the whole chunks a block covers in one allocation)")                                 \
    X(HEAP_KIND, ENUM, "auto",                                                                                         \
      SHOAL__ENV_NAMES({"auto", SHOAL_HEAP_AUTO}, {"host", SHOAL_HEAP_HOST}, {"gpu", SHOAL_HEAP_GPU}), cfg.heap_kind,  \
      NULL, "`auto` (GPU when the PE has one), `host` or `gpu`")                                                       \
    X(CUDA_DEVICE, INT, "-1", SHOAL__ENV_RANGE(-1, 1024), cfg.cuda_device, "-1 or a device number",                    \
      "device of this PE; -1: the current one, or node rank modulo the device count when the application made "        \
      "none current")                                                                                                  \
    X(NODE_SIZE, INT, "0", SHOAL__ENV_RANGE(0, 1L << 30), cfg.node_size, "0 or a positive number of ranks",            \
      "if > 0, consecutive blocks of N ranks act as separate nodes (runs the inter-node path on one machine)")         \
    X(CHECK, ENUM, "basic",                                                                                            \
      SHOAL__ENV_NAMES({"off", SHOAL_CHECK_OFF}, {"basic", SHOAL_CHECK_BASIC}, {"full", SHOAL_CHECK_FULL}), cfg.check, \
      NULL,                                                                                                            \
      "`off` (arguments and the heap's bounds), `basic` (also: each access stays inside one live allocation) or "      \
      "`full` (also reads of data this PE put without a quiet since, and calls from threads the MPI thread level "     \
      "forbids); collectives agree on their sizes in every mode")                                                      \
    X(TIMEOUT, DOUBLE, "300", SHOAL__ENV_RANGE(0, INFINITY), cfg.timeout, "a number of seconds >= 0",                  \
      "seconds a collective waits for its peers; 0 waits forever")                                                     \
    X(WAIT, ENUM, "auto",                                                                                              \
      SHOAL__ENV_NAMES({"auto", SHOAL_WAIT_AUTO}, {"spin", SHOAL_WAIT_SPIN}, {"sleep", SHOAL_WAIT_SLEEP}), cfg.wait,   \
      NULL,                                                                                                            \
      "how a PE waits in a collective: `spin` (spin, then yield), `sleep` (then sleep in the kernel until "            \
      "woken), `auto` (`sleep` when the node has more PEs than CPUs)")                                                 \
    X(TRANSPORT_DISABLE, LIST, "", SHOAL__ENV_PARSER(shoal__env_parse_disable), transport_disable, NULL,               \
      "transports never to use, e.g. `cuda_ipc,shm`")                                                                  \
    X(P2P_LEVEL, ENUM, "SYS",                                                                                          \
      SHOAL__ENV_NAMES({"NVL", SHOAL_PATH_NVL}, {"PIX", SHOAL_PATH_PIX}, {"PXB", SHOAL_PATH_PXB},                      \
                       {"PHB", SHOAL_PATH_PHB}, {"NODE", SHOAL_PATH_NODE}, {"SYS", SHOAL_PATH_SYS}),                   \
      p2p_level, NULL, "worst GPU path `cuda_ipc` may use: `NVL`, `PIX`, `PXB`, `PHB`, `NODE`, `SYS`")                 \
    X(DEVICE_ATOMICS, ENUM, "auto",                                                                                    \
      SHOAL__ENV_NAMES({"auto", SHOAL__DEVICE_ATOMICS_AUTO}, {"proxy", SHOAL__DEVICE_ATOMICS_PROXY}), device_atomics,  \
      NULL,                                                                                                            \
      "kernels' atomics and signals on other PEs: `auto` (native through the peer's mapping where the GPUs have "      \
      "native peer atomics, else through the device proxy); `proxy` (always through the device proxy)")                \
    X(COLL, ENUM, "auto",                                                                                              \
      SHOAL__ENV_NAMES({"auto", SHOAL__COLL_ALGO_AUTO}, {"kernel", SHOAL__COLL_ALGO_KERNEL},                           \
                       {"copy", SHOAL__COLL_ALGO_COPY}, {"transport", SHOAL__COLL_ALGO_TRANSPORT}),                    \
      coll_algo, NULL,                                                                                                 \
      "how team collectives move data (README, Collectives): `auto`; `kernel` (on GPU heaps, one kernel a call); "     \
      "`copy` (on GPU heaps, copy engines and grids between barrier kernels); `transport` (the host, through each "    \
      "pair's transport: no loads and stores into peers' heaps, no kernels)")                                          \
    X(TOPO_FILE, STRING, "", SHOAL__ENV_PARSER(shoal__env_parse_readable), topo_file, "a readable hwloc XML file",     \
      "hwloc XML to load instead of the live machine")                                                                 \
    X(NVML_LIBRARY, STRING, "", SHOAL__ENV_ANY, nvml_library, "the path of a library",                                 \
      "NVML library to load instead of `libnvidia-ml.so.1` (NVLinks, and GPUs where hwloc finds no PCI device)")       \
    X(DEBUG, ENUM, "",                                                                                                 \
      SHOAL__ENV_NAMES({"WARN", SHOAL__LOG_WARN}, {"INFO", SHOAL__LOG_INFO}, {"TRACE", SHOAL__LOG_TRACE}), debug,      \
      NULL,                                                                                                            \
      "`WARN`, `INFO` or `TRACE`; silent when unset. Each failing call logs one `WARN` line with its message; "        \
      "what a later step adds to it (finalize's outcome) comes at `INFO`")                                             \
    X(DEBUG_SUBSYS, LIST, "ALL",                                                                                       \
      SHOAL__ENV_NAMES({"ALL", SHOAL__SUB_ALL}, {"INIT", SHOAL__SUB_INIT}, {"TOPO", SHOAL__SUB_TOPO},                  \
                       {"HEAP", SHOAL__SUB_HEAP}, {"RMA", SHOAL__SUB_RMA}, {"COLL", SHOAL__SUB_COLL},                  \
                       {"CUDA", SHOAL__SUB_CUDA}, {"ENV", SHOAL__SUB_ENV}),                                            \
      debug_subsys, "ALL or a list of INIT,TOPO,HEAP,RMA,COLL,CUDA,ENV",                                               \
      "a list of `INIT` (init, finalize, transports chosen), `TOPO`, `HEAP` (allocations), `RMA` (each put and "       \
      "get, at `TRACE`), `COLL` (each collective, at `TRACE`), `CUDA`, `ENV` (variables set)")                         \
    X(FAULT, STRING, "", SHOAL__ENV_PARSER(shoal__env_parse_fault), fault,                                             \
      "quiet:PE, quiet:PE:N, grow:PE or grow:PE:N (a testing aid), or unset",                                          \
      "a testing aid: `quiet:PE` or `quiet:PE:N` makes PE's first N quiets (default 1, counting those inside "         \
      "barriers, frees and finalize) fail with `SHOAL_ERR_INTERNAL`; `grow:PE` or `grow:PE:N`, PE's first N "          \
      "growths of its heap, as if its memory were full; to see how the other PEs learn of it")                         \
    X(WARN_UNKNOWN_ENV, BOOL, "y", SHOAL__ENV_ANY, warn_unknown, NULL,                                                 \
      "`y`: `shoal_config_init` (and so `shoal_init`) reports each `SHOAL_*` variable shoal does not know on "         \
      "stderr, once per process, with the nearest real name (`SHOAL_HEAPSIZE`: \"did you mean "                        \
      "SHOAL_HEAP_SIZE?\"); `n` silences it")

/* The keys: SHOAL__ENV_HEAP_SIZE, ... (a misspelt one does not compile). */
typedef enum {
#define SHOAL__ENV_KEY(name, kind, def, values, field, expect, doc) SHOAL__ENV_##name,
    SHOAL_ENV_TABLE(SHOAL__ENV_KEY)
#undef SHOAL__ENV_KEY
        SHOAL__ENV_COUNT
} shoal__env_key_t;

/* Longest text a STRING variable holds (a path). */
#define SHOAL__ENV_STRING_MAX 4096

/* SHOAL_FAULT=quiet:PE:N (or grow:PE:N): PE's first N quiets (heap
 * growths) fail; pe -1: none. */
enum { SHOAL__FAULT_QUIET = 0, SHOAL__FAULT_GROW = 1 };
typedef struct shoal__env_fault {
    int kind, pe, count;
} shoal__env_fault_t;

/* Every variable, parsed: the config fields, and what the runtime needs
 * beyond them. An invalid variable leaves its field at the default. */
typedef struct shoal__settings {
    shoal_config_t cfg;                       /* HEAP_SIZE ... WAIT; cfg.env_error: the first invalid variable */
    unsigned transport_disable;               /* 1u << shoal_transport_id_t of each transport never to use */
    int p2p_level;                            /* a shoal_path_t */
    int coll_algo;                            /* SHOAL__COLL_ALGO_* */
    int device_atomics;                       /* SHOAL__DEVICE_ATOMICS_* */
    char topo_file[SHOAL__ENV_STRING_MAX];    /* "": the live machine */
    char nvml_library[SHOAL__ENV_STRING_MAX]; /* "": libnvidia-ml.so.1 */
    int debug;                                /* SHOAL__LOG_* */
    unsigned debug_subsys;                    /* SHOAL__SUB_* bits */
    shoal__env_fault_t fault;
    bool warn_unknown;
    bool heap_reserve; /* SHOAL_HEAP_RESERVE */
    size_t heap_chunk; /* SHOAL_HEAP_CHUNK */
    /* The first invalid variable that sets no config field: shoal_init
     * refuses it even with a config the program made itself. */
    char error[sizeof(((shoal_config_t *)0)->env_error)];
} shoal__settings_t;

/* Parse every variable into *s (defaults for those unset or invalid).
 * SHOAL_SUCCESS, or SHOAL_ERR_ENV with s->cfg.env_error naming the first
 * invalid one. Logs nothing (the logger reads its settings here). */
SHOAL__HIDDEN int shoal__env_load(shoal__settings_t *s);
/* The same for a named instance's settings: where SHOAL_<PREFIX>_<NAME> is
 * set, it stands for SHOAL_<NAME> (the variables shoal__env_per_instance
 * allows; prefix upper case, NULL or "": none). */
SHOAL__HIDDEN int shoal__env_load_named(shoal__settings_t *s, const char *prefix);
/* May SHOAL_<PREFIX>_<NAME> set key for a named instance? (Logging, the
 * unknown-variable report and what the topology code reads are process-wide.) */
SHOAL__HIDDEN bool shoal__env_per_instance(shoal__env_key_t key);
/* The variable that sets key (for prefix): "SHOAL_<PREFIX>_<NAME>" where
 * that is set, else "SHOAL_<NAME>"; into buf. */
SHOAL__HIDDEN const char *shoal__env_var_named(shoal__env_key_t key, const char *prefix, char *buf, size_t len);
SHOAL__HIDDEN const char *shoal__env_value_named(shoal__env_key_t key, const char *prefix);
SHOAL__HIDDEN bool shoal__env_is_set_named(shoal__env_key_t key, const char *prefix);
SHOAL__HIDDEN const char *shoal__env_raw_named(shoal__env_key_t key, const char *prefix);
/* For shoal_init with config cfg: shoal__env_load into *s, and the INFO
 * lines of the variables set and of where each config field came from
 * (the program, which wins over its variable, the variable, or the
 * default); keeps on sh whether the heap size came from the program. */
SHOAL__HIDDEN void shoal__env_for_init(shoal_t sh, const shoal_config_t *cfg, shoal__settings_t *s);
/* Is cfg->name "" or a valid instance name (shoal_config_init_named)? */
SHOAL__HIDDEN bool shoal__config_name_valid(const shoal_config_t *cfg);
/* The variable's value without surrounding blanks; its default when unset
 * or blank. */
SHOAL__HIDDEN const char *shoal__env_value(shoal__env_key_t key);
/* Set to something other than blanks? */
SHOAL__HIDDEN bool shoal__env_is_set(shoal__env_key_t key);
/* README.md's table of variables, in Markdown (tests/unit/test_env_readme.c
 * compares them; `test_env_readme --update README.md` rewrites it). */
SHOAL__HIDDEN void shoal__env_markdown(FILE *out);

/* The parsers of the kinds, shared with the tests. 0 or SHOAL_ERR_ENV;
 * blanks around s are ignored. */
SHOAL__HIDDEN int shoal__parse_size(const char *s, size_t *value_p);
SHOAL__HIDDEN int shoal__parse_int(const char *s, long *value_p);
SHOAL__HIDDEN int shoal__parse_double(const char *s, double *value_p);
/* SHOAL_FAULT: "quiet:PE[:N]" or "grow:PE[:N]" (N >= 1, default 1; *kind_p
 * says which); *pe_p = -1 when unset.
 * SHOAL_ERR_ENV when malformed. */
SHOAL__HIDDEN int shoal__parse_fault(const char *s, int *kind_p, int *pe_p, int *count_p);

/* One row of the table, as runtime/base/env.c builds it. */
typedef int shoal__env_parser_t(const char *v, void *dest, size_t size, char *why, size_t why_len);
typedef struct shoal__env_row {
    const char *name; /* without the SHOAL_ prefix */
    shoal__env_kind_t kind;
    const char *def;
    double lo, hi;                  /* SIZE, INT, DOUBLE */
    const shoal__env_name_t *names; /* ENUM, LIST: ends with a NULL name */
    shoal__env_parser_t *parse;     /* instead of the kind's parser */
    const char *field;              /* "cfg.heap_size", "p2p_level" */
    size_t off, size;               /* of the field in shoal__settings_t */
    const char *expect, *doc;
} shoal__env_row_t;
/* The rows, by key (SHOAL__ENV_COUNT of them). */
extern SHOAL__HIDDEN const shoal__env_row_t shoal__env_rows[];
/* The row of SHOAL_<name> (name without the prefix), or NULL. */
SHOAL__HIDDEN const shoal__env_row_t *shoal__env_find(const char *name);
/* The shoal_config_t field a row sets ("heap_size"), or NULL. */
SHOAL__HIDDEN const char *shoal__env_cfg_field(const shoal__env_row_t *row);
/* The variable as set, blanks and all (NULL: unset). */
SHOAL__HIDDEN const char *shoal__env_raw(shoal__env_key_t key);
/* What the last shoal__env_load of this thread expected of key's invalid
 * value ("" when it was valid). */
SHOAL__HIDDEN const char *shoal__env_invalid(shoal__env_key_t key);
/* y/yes/1/on/true -> 1, n/no/0/off/false -> 0, else -1 (case ignored). */
SHOAL__HIDDEN int shoal__parse_bool(const char *s);

/* What sets the heap size, for messages that suggest changing it:
 * "SHOAL_HEAP_SIZE", or the config field when the program set it. */
SHOAL__HIDDEN const char *shoal__heap_size_knob(shoal_t sh);

#endif /* SHOAL_ENV_H */
