/*
 * shoal-topo, run as a user runs it.
 *
 * For every recorded machine in tests/fixtures/topology/: `--input X.xml
 * --json` must follow the documented schema (topology/README.md), agree
 * pair by pair with the library's own path and policy, and equal X.json
 * byte for byte; the text output must equal X.txt. Then options (--p2p-level,
 * --disable, --map, --pes, --export, SHOAL_TOPO_FILE and the SHOAL_*
 * policy variables), MPI mode as a singleton and under mpiexec
 * ($SHOAL_TEST_MPIEXEC, set by configure.py; skipped without it), and every
 * error: exit status 1, nothing on stdout, one line on stderr, no crash.
 *
 *   test_topo_tool [--regen] [--tool PATH]
 *
 * --regen (or SHOAL_TOPO_REGEN=1) rewrites X.json and X.txt from the tool's
 * output instead of comparing; the other checks still run. The tool is
 * $SHOAL_TEST_BUILDDIR/bin/shoal-topo unless --tool or SHOAL_TOPO_TOOL says.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/check.h"
#include "shoal_topo.h"

static char tool[4096];
static char mpiexec[4096]; /* $SHOAL_TEST_MPIEXEC (configure.py sets it), or "" */
static char fixture_dir[4096];
static int regen;

/* ---------------------------------------------------------------- running the tool */

typedef struct run {
    int status; /* exit status; -signal if killed */
    char *out;  /* stdout */
    char *err;  /* stderr */
} run_t;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f) return NULL;
    CHECK(fseek(f, 0, SEEK_END) == 0);
    n = ftell(f);
    CHECK(n >= 0 && fseek(f, 0, SEEK_SET) == 0);
    buf = malloc((size_t)n + 1);
    CHECK(buf != NULL);
    CHECK(fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void spit(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK_MSG(f != NULL, "cannot write %s: %s", path, strerror(errno));
    CHECK(fputs(text, f) >= 0);
    CHECK(fclose(f) == 0);
}

/* Run the tool with args (NULL-terminated) and env ("VAR=VALUE" sets,
 * "VAR" unsets; NULL-terminated or NULL), under `mpiexec -n np` when np > 0. */
static run_t run_np(int np, const char *const *env, const char *const *args)
{
    char out_path[] = "/tmp/shoal-topo-out-XXXXXX", err_path[] = "/tmp/shoal-topo-err-XXXXXX";
    const char *argv[64];
    int fo = mkstemp(out_path), fe = mkstemp(err_path), n = 0, ws;
    run_t r;
    pid_t pid;

    char np_text[16];

    CHECK(fo >= 0 && fe >= 0);
    if (np > 0) {
        snprintf(np_text, sizeof(np_text), "%d", np);
        argv[n++] = mpiexec;
        argv[n++] = "-n";
        argv[n++] = np_text;
    }
    argv[n++] = tool;
    for (; args && *args && n < 62; args++) argv[n++] = *args;
    argv[n] = NULL;
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        /* Never join the PMI job of a launcher this test may run under. */
        static const char *const scrub[] = {"PMI_RANK",
                                            "PMI_SIZE",
                                            "PMI_FD",
                                            "PMI_PORT",
                                            "MPI_LOCALNRANKS",
                                            "MPI_LOCALRANKID",
                                            "OMPI_COMM_WORLD_SIZE",
                                            "PMIX_RANK",
                                            "SHOAL_TOPO_FILE",
                                            "SHOAL_P2P_LEVEL",
                                            "SHOAL_TRANSPORT_DISABLE"};
        for (size_t i = 0; i < sizeof(scrub) / sizeof(scrub[0]); i++) unsetenv(scrub[i]);
        for (; env && *env; env++) {
            const char *eq = strchr(*env, '=');
            if (eq) {
                char name[128];
                snprintf(name, sizeof(name), "%.*s", (int)(eq - *env), *env);
                setenv(name, eq + 1, 1);
            } else {
                unsetenv(*env);
            }
        }
        if (dup2(fo, 1) < 0 || dup2(fe, 2) < 0) _exit(126);
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    CHECK(waitpid(pid, &ws, 0) == pid);
    close(fo);
    close(fe);
    r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : -WTERMSIG(ws);
    r.out = slurp(out_path);
    r.err = slurp(err_path);
    unlink(out_path);
    unlink(err_path);
    CHECK(r.out && r.err);
    CHECK_MSG(r.status != 127, "cannot run %s: %s", tool, r.err);
    return r;
}

static run_t run_env(const char *const *env, const char *const *args) { return run_np(0, env, args); }

#define RUN(...) run_env(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_ENV(env, ...) run_env((const char *const[]){env, NULL}, (const char *const[]){__VA_ARGS__, NULL})
/* Under mpiexec -n np; env is a NULL-terminated list. */
#define RUN_MPI(np, env, ...) run_np(np, env, (const char *const[]){__VA_ARGS__, NULL})

static void run_free(run_t *r)
{
    free(r->out);
    free(r->err);
}

static const char *fixture(const char *name)
{
    static char paths[8][4096 + 256];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof(paths[0]), "%s/%s", fixture_dir, name);
    return p;
}

static void expect_ok(const run_t *r, const char *what)
{
    CHECK_MSG(r->status == 0, "%s: exit status %d, stderr: %s", what, r->status, r->err);
    CHECK_MSG(r->err[0] == '\0', "%s: unexpected stderr: %s", what, r->err);
}

/* Exit status 1, no output, one line "shoal-topo: ..." containing needle. */
static void expect_fail(run_t r, const char *what, const char *needle)
{
    const char *nl = strchr(r.err, '\n');

    CHECK_MSG(r.status == 1, "%s: exit status %d (want 1; negative: killed by a signal), stderr: %s", what, r.status,
              r.err);
    CHECK_MSG(r.out[0] == '\0', "%s: printed on stdout: %s", what, r.out);
    CHECK_MSG(strncmp(r.err, "shoal-topo: ", 12) == 0, "%s: stderr does not start with 'shoal-topo: ': %s", what,
              r.err);
    CHECK_MSG(nl && nl[1] == '\0', "%s: stderr is not exactly one line: %s", what, r.err);
    CHECK_CONTAINS(r.err, needle);
    run_free(&r);
}

/* ---------------------------------------------------------------- a small JSON reader */

enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jv {
    int type;
    double num;       /* J_NUM, J_BOOL */
    char *str;        /* J_STR */
    int n;            /* J_ARR, J_OBJ: entries */
    struct jv *items; /* J_ARR, J_OBJ: values */
    char **keys;      /* J_OBJ: keys */
} jv_t;

typedef struct jp {
    const char *s, *start;
} jp_t;

#define JFAIL(p, msg) check__fail(__FILE__, __LINE__, "JSON at offset %ld: %s", (long)((p)->s - (p)->start), (msg))

static void jws(jp_t *p)
{
    while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t' || *p->s == '\r') p->s++;
}

static char *jstring(jp_t *p)
{
    size_t cap = 16, n = 0;
    char *out = malloc(cap);

    CHECK(out != NULL);
    if (*p->s != '"') JFAIL(p, "expected a string");
    p->s++;
    while (*p->s != '"') {
        char c = *p->s++;
        if ((unsigned char)c < 0x20) JFAIL(p, "control character in a string");
        if (c == '\\') {
            c = *p->s++;
            switch (c) {
            case '"':
            case '\\':
            case '/': break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u': {
                unsigned v;
                if (sscanf(p->s, "%4x", &v) != 1 || v > 0x7f) JFAIL(p, "unsupported \\u escape");
                c = (char)v;
                p->s += 4;
                break;
            }
            default: JFAIL(p, "bad escape");
            }
        }
        if (n + 2 > cap) CHECK((out = realloc(out, cap *= 2)) != NULL);
        out[n++] = c;
    }
    p->s++;
    out[n] = '\0';
    return out;
}

static void jvalue(jp_t *p, jv_t *v);

static void jpush(jv_t *v, int *cap)
{
    if (v->n == *cap) {
        *cap = *cap ? *cap * 2 : 4;
        CHECK((v->items = realloc(v->items, (size_t)*cap * sizeof(*v->items))) != NULL);
        if (v->type == J_OBJ) CHECK((v->keys = realloc(v->keys, (size_t)*cap * sizeof(*v->keys))) != NULL);
    }
}

static void jvalue(jp_t *p, jv_t *v)
{
    int cap = 0;

    memset(v, 0, sizeof(*v));
    jws(p);
    if (*p->s == '{' || *p->s == '[') {
        char close = *p->s == '{' ? '}' : ']';
        v->type = *p->s == '{' ? J_OBJ : J_ARR;
        p->s++;
        jws(p);
        if (*p->s == close) {
            p->s++;
            return;
        }
        for (;;) {
            jpush(v, &cap);
            if (v->type == J_OBJ) {
                jws(p);
                v->keys[v->n] = jstring(p);
                for (int k = 0; k < v->n; k++)
                    if (strcmp(v->keys[k], v->keys[v->n]) == 0) JFAIL(p, "duplicate key");
                jws(p);
                if (*p->s++ != ':') JFAIL(p, "expected ':'");
            }
            jvalue(p, &v->items[v->n++]);
            jws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            if (*p->s++ != close) JFAIL(p, "expected ',' or a closing bracket");
            return;
        }
    }
    if (*p->s == '"') {
        v->type = J_STR;
        v->str = jstring(p);
    } else if (strncmp(p->s, "null", 4) == 0) {
        v->type = J_NULL;
        p->s += 4;
    } else if (strncmp(p->s, "true", 4) == 0 || strncmp(p->s, "false", 5) == 0) {
        v->type = J_BOOL;
        v->num = *p->s == 't';
        p->s += *p->s == 't' ? 4 : 5;
    } else {
        char *end;
        v->type = J_NUM;
        v->num = strtod(p->s, &end);
        if (end == p->s) JFAIL(p, "unexpected character");
        p->s = end;
    }
}

static jv_t jparse(const char *text)
{
    jp_t p = {.s = text, .start = text};
    jv_t v;

    jvalue(&p, &v);
    jws(&p);
    if (*p.s) JFAIL(&p, "text after the JSON value");
    return v;
}

static void jfree(jv_t *v)
{
    for (int i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
}

static const jv_t *jget(const jv_t *obj, const char *key)
{
    for (int i = 0; obj->type == J_OBJ && i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0) return &obj->items[i];
    return NULL;
}

/* obj must have exactly these keys (NULL-terminated). */
static void jkeys(const jv_t *obj, const char *what, ...)
{
    va_list ap;
    int n = 0;
    const char *k;

    CHECK_MSG(obj && obj->type == J_OBJ, "%s is not an object", what);
    va_start(ap, what);
    while ((k = va_arg(ap, const char *)) != NULL) {
        CHECK_MSG(jget(obj, k) != NULL, "%s has no key \"%s\"", what, k);
        n++;
    }
    va_end(ap);
    CHECK_MSG(obj->n == n, "%s has %d keys, the schema %d", what, obj->n, n);
}

static int jint(const jv_t *obj, const char *key, int lo, int hi, const char *what)
{
    const jv_t *v = jget(obj, key);
    CHECK_MSG(v && v->type == J_NUM && v->num == (double)(int)v->num, "%s.%s is not an integer", what, key);
    CHECK_MSG(v->num >= lo && v->num <= hi, "%s.%s = %g outside [%d, %d]", what, key, v->num, lo, hi);
    return (int)v->num;
}

static const char *jstr(const jv_t *obj, const char *key, const char *what)
{
    const jv_t *v = jget(obj, key);
    CHECK_MSG(v && v->type == J_STR, "%s.%s is not a string", what, key);
    return v->str;
}

static int one_of(const char *s, const char *const *set)
{
    for (; *set; set++)
        if (strcmp(s, *set) == 0) return 1;
    return 0;
}

static int is_bus_id(const char *s)
{
    static const char pattern[] = "hhhh:hh:hh.h";
    if (strlen(s) != sizeof(pattern) - 1) return 0;
    for (size_t i = 0; pattern[i]; i++) {
        int hex = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
        if (pattern[i] == 'h' ? !hex : s[i] != pattern[i]) return 0;
    }
    return 1;
}

static const char *const PATHS[] = {"NVL", "PIX", "PXB", "PHB", "NODE", "SYS", NULL};
static const char *const TRANSPORTS[] = {"cuda_ipc", "staged", "shm", "mpi_rma", NULL};

/* One pair object of "pairs" (pe_pair 0) or "pe_pairs" (pe_pair 1). */
static void check_pair(const jv_t *pr, int pe_pair, int n, int n_gpus, shoal_topo_t topo,
                       const shoal_topo_policy_t *pol, int want_a, int want_b)
{
    char what[64];
    const jv_t *path;
    int a, b, ga, gb, links;
    const char *tp, *why;
    shoal_transport_id_t want_tp;
    shoal_topo_place_t pa, pb;

    snprintf(what, sizeof(what), "%s[%d-%d]", pe_pair ? "pe_pairs" : "pairs", want_a, want_b);
    if (pe_pair)
        jkeys(pr, what, "a", "b", "gpu_a", "gpu_b", "path", "nvlinks", "transport", "why", (char *)NULL);
    else
        jkeys(pr, what, "a", "b", "path", "nvlinks", "transport", "why", (char *)NULL);
    a = jint(pr, "a", 0, n - 1, what);
    b = jint(pr, "b", 0, n - 1, what);
    CHECK_MSG(a == want_a && b == want_b, "%s: pairs out of order: got %d-%d", what, a, b);
    ga = pe_pair ? jint(pr, "gpu_a", -1, n_gpus - 1, what) : a;
    gb = pe_pair ? jint(pr, "gpu_b", -1, n_gpus - 1, what) : b;
    links = jint(pr, "nvlinks", 0, 1000, what);
    tp = jstr(pr, "transport", what);
    why = jstr(pr, "why", what);
    CHECK_MSG(one_of(tp, TRANSPORTS), "%s: transport \"%s\" is not in the schema", what, tp);
    CHECK_MSG(why[0] != '\0', "%s: empty why", what);
    path = jget(pr, "path");

    if (ga >= 0 && gb >= 0) {
        shoal_path_t want_path;
        int want_links;
        CHECK_EQ_INT(shoal_topo_gpu_path(topo, ga, gb, &want_path, &want_links), SHOAL_SUCCESS);
        CHECK_MSG(path->type == J_STR, "%s: path is not a string", what);
        CHECK_MSG(one_of(path->str, PATHS) || (pe_pair && strcmp(path->str, "LOC") == 0),
                  "%s: path \"%s\" not in the schema", what, path->str);
        CHECK_MSG(strcmp(path->str, shoal_path_name(want_path)) == 0 && links == want_links,
                  "%s: tool says %s/%d, the library %s/%d", what, path->str, links, shoal_path_name(want_path),
                  want_links);
        CHECK_MSG((strcmp(path->str, "NVL") == 0) == (links > 0), "%s: NVL exactly when nvlinks > 0", what);
    } else {
        CHECK_MSG(path->type == J_NULL && links == 0, "%s: a host heap has no GPU path", what);
    }
    pa = (shoal_topo_place_t){.pe = a, .node = 0, .gpu = ga};
    pb = (shoal_topo_place_t){.pe = b, .node = 0, .gpu = gb};
    CHECK_EQ_INT(shoal_topo_choose(topo, pol, &pa, &pb, &want_tp, NULL, 0), SHOAL_SUCCESS);
    CHECK_MSG(strcmp(tp, shoal_transport_name(want_tp)) == 0, "%s: tool says %s, the library %s", what, tp,
              shoal_transport_name(want_tp));
}

/* The documented schema, and agreement with the library on every value.
 * n_pes < 0: no placement options were given. */
static void check_json(const char *text, const char *xml, const shoal_topo_policy_t *pol, int n_pes)
{
    static const shoal_topo_policy_t defaults = {.p2p_level = SHOAL_PATH_SYS, .disabled = 0};
    jv_t root = jparse(text);
    const jv_t *machine, *gpus, *pairs;
    shoal_topo_t topo = NULL;
    int n, nics, k = 0;

    if (!pol) pol = &defaults;
    CHECK_MSG(shoal_topo_load(xml, &topo) == SHOAL_SUCCESS, "%s: %s", xml, shoal_topo_last_error());
    if (n_pes < 0)
        jkeys(&root, "top level", "version", "machine", "gpus", "nics", "pairs", "warning", (char *)NULL);
    else
        jkeys(&root, "top level", "version", "machine", "gpus", "nics", "pairs", "warning", "pes", "pe_pairs",
              (char *)NULL);
    CHECK_EQ_INT(jint(&root, "version", 3, 3, "top level"), 3);

    CHECK_EQ_STR(jstr(&root, "warning", "top level"), shoal_topo_warning(topo));
    machine = jget(&root, "machine");
    jkeys(machine, "machine", "packages", "numa_nodes", "cores", "nics", (char *)NULL);
    CHECK_EQ_INT(jint(machine, "packages", 0, 1 << 20, "machine"), shoal_topo_n_packages(topo));
    CHECK_EQ_INT(jint(machine, "numa_nodes", 0, 1 << 20, "machine"), shoal_topo_n_numa(topo));
    CHECK_EQ_INT(jint(machine, "cores", 0, 1 << 20, "machine"), shoal_topo_n_cores(topo));
    nics = jint(machine, "nics", 0, 1 << 20, "machine");
    CHECK_EQ_INT(nics, shoal_topo_n_nics(topo));

    gpus = jget(&root, "gpus");
    CHECK_MSG(gpus->type == J_ARR, "gpus is not an array");
    n = gpus->n;
    CHECK_EQ_INT(n, shoal_topo_n_gpus(topo));
    for (int i = 0; i < n; i++) {
        const jv_t *g = &gpus->items[i];
        shoal_topo_gpu_t want;
        char what[32];
        snprintf(what, sizeof(what), "gpus[%d]", i);
        jkeys(g, what, "index", "pci_bus_id", "name", "numa_node", "cpuset", "nic", (char *)NULL);
        CHECK_EQ_INT(shoal_topo_gpu(topo, i, &want), SHOAL_SUCCESS);
        CHECK_EQ_INT(jint(g, "index", i, i, what), i);
        CHECK_MSG(is_bus_id(jstr(g, "pci_bus_id", what)), "%s.pci_bus_id \"%s\" is not dddd:bb:dd.f", what,
                  jstr(g, "pci_bus_id", what));
        CHECK_EQ_STR(jstr(g, "pci_bus_id", what), want.pci_bus_id);
        CHECK_EQ_STR(jstr(g, "name", what), want.name);
        CHECK_EQ_INT(jint(g, "numa_node", -1, 1 << 20, what), want.numa_node);
        CHECK_EQ_STR(jstr(g, "cpuset", what), want.cpuset);
        CHECK_EQ_INT(jint(g, "nic", -1, nics - 1, what), want.nic);
    }

    {
        const jv_t *list = jget(&root, "nics");
        CHECK_MSG(list->type == J_ARR && list->n == nics, "nics: want %d entries, as machine.nics", nics);
        for (int i = 0; i < nics; i++) {
            const jv_t *e = &list->items[i];
            shoal_topo_nic_t want;
            int numa;
            char what[32];
            snprintf(what, sizeof(what), "nics[%d]", i);
            jkeys(e, what, "index", "pci_bus_id", "name", "numa_node", (char *)NULL);
            CHECK_EQ_INT(shoal_topo_nic(topo, i, &want), SHOAL_SUCCESS);
            CHECK_EQ_INT(shoal_topo_nic_numa(topo, i, &numa), SHOAL_SUCCESS);
            CHECK_EQ_INT(jint(e, "index", i, i, what), i);
            CHECK_MSG(!want.pci_bus_id[0] || is_bus_id(jstr(e, "pci_bus_id", what)),
                      "%s.pci_bus_id \"%s\" is not dddd:bb:dd.f", what, jstr(e, "pci_bus_id", what));
            CHECK_EQ_STR(jstr(e, "pci_bus_id", what), want.pci_bus_id);
            CHECK_EQ_STR(jstr(e, "name", what), want.name);
            CHECK_EQ_INT(jint(e, "numa_node", -1, 1 << 20, what), numa);
        }
    }

    pairs = jget(&root, "pairs");
    CHECK_MSG(pairs->type == J_ARR && pairs->n == n * (n - 1) / 2, "pairs: want %d GPU pairs", n * (n - 1) / 2);
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) check_pair(&pairs->items[k++], 0, n, n, topo, pol, a, b);

    if (n_pes >= 0) {
        const jv_t *pes = jget(&root, "pes"), *pe_pairs = jget(&root, "pe_pairs");
        CHECK_MSG(pes->type == J_ARR && pes->n == n_pes, "pes: want %d entries", n_pes);
        for (int pe = 0; pe < n_pes; pe++) {
            jkeys(&pes->items[pe], "pes[]", "pe", "gpu", (char *)NULL);
            CHECK_EQ_INT(jint(&pes->items[pe], "pe", pe, pe, "pes[]"), pe);
            jint(&pes->items[pe], "gpu", -1, n - 1, "pes[]");
        }
        CHECK_MSG(pe_pairs->type == J_ARR && pe_pairs->n == n_pes * (n_pes - 1) / 2, "pe_pairs: want %d",
                  n_pes * (n_pes - 1) / 2);
        k = 0;
        for (int a = 0; a < n_pes; a++)
            for (int b = a + 1; b < n_pes; b++) check_pair(&pe_pairs->items[k++], 1, n_pes, n, topo, pol, a, b);
    }
    shoal_topo_destroy(topo);
    jfree(&root);
}

/* ---------------------------------------------------------------- expected files */

static void compare_or_regen(const char *got, const char *expected_name, const char *what)
{
    const char *path = fixture(expected_name);
    char *want;

    if (regen) {
        spit(path, got);
        check_note("regenerated %s", path);
        return;
    }
    want = slurp(path);
    CHECK_MSG(want != NULL, "%s: missing %s (run with --regen to create it)", what, path);
    if (strcmp(got, want) != 0) {
        size_t i = 0, line = 1;
        while (got[i] && got[i] == want[i]) line += got[i++] == '\n';
        check__fail(__FILE__, __LINE__,
                    "%s differs from %s at line %zu:\n  got:  %.120s\n  want: %.120s\n(--regen rewrites it if the "
                    "change "
                    "is intended)",
                    what, path, line, got + i, want + i);
    }
    free(want);
}

static const char *const MACHINES[] =
    {"h200x2-nv18",           "h200x2-nvml-export", "h200x2-pcie",       "nvswitch-8gpu", "nvswitch-islands-8gpu",
     "nvswitch-2board-16gpu", "pcie-8gpu",          "nvlink-pairs-4gpu", "cpu-2socket",   NULL};

static void test_fixtures(void)
{
    for (const char *const *m = MACHINES; *m; m++) {
        char xml[256], json[256], txt[256];
        run_t r;
        snprintf(xml, sizeof(xml), "%s.xml", *m);
        snprintf(json, sizeof(json), "%s.json", *m);
        snprintf(txt, sizeof(txt), "%s.txt", *m);

        r = RUN("--input", fixture(xml), "--json");
        expect_ok(&r, xml);
        check_json(r.out, fixture(xml), NULL, -1);
        compare_or_regen(r.out, json, "--json output");
        run_free(&r);

        r = RUN("--input", fixture(xml));
        expect_ok(&r, xml);
        CHECK_CONTAINS(r.out, "Transports");
        compare_or_regen(r.out, txt, "text output");
        run_free(&r);
    }

    /* The generated H200 fixture says what the NVML probe found there. */
    {
        run_t a = RUN("--input", fixture("h200x2-nv18.xml"), "--json");
        run_t b = RUN("--input", fixture("h200x2-nvml-export.xml"), "--json");
        CHECK_EQ_STR(a.out, b.out);
        run_free(&a);
        run_free(&b);
    }
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

static void test_options(void)
{
    const char *pcie = fixture("pcie-8gpu.xml"), *h200 = fixture("h200x2-nv18.xml");
    shoal_topo_policy_t pxb = {.p2p_level = SHOAL_PATH_PXB, .disabled = 0};
    shoal_topo_policy_t no_ipc = {.p2p_level = SHOAL_PATH_SYS, .disabled = 1u << SHOAL_TRANSPORT_CUDA_IPC};
    shoal_topo_policy_t nvl = {.p2p_level = SHOAL_PATH_NVL, .disabled = 0};
    run_t r, r2;

    /* A stricter level: 16 SYS and 4 NODE pairs stage, the rest stay peer-to-peer. */
    r = RUN("--input", pcie, "--json", "--p2p-level", "PXB");
    expect_ok(&r, "--p2p-level PXB");
    check_json(r.out, pcie, &pxb, -1);
    CHECK_EQ_INT(count(r.out, "\"transport\": \"staged\""), 20);
    CHECK_EQ_INT(count(r.out, "\"transport\": \"cuda_ipc\""), 8);
    run_free(&r);
    r = RUN("--input", pcie, "--p2p-level=pxb");
    expect_ok(&r, "--p2p-level=pxb");
    CHECK_EQ_INT(count(r.out, "fall back to staged"), 20);
    CHECK_CONTAINS(r.out, "PE 0 <-> PE 2 (GPUs 0-2) fall back to staged");
    run_free(&r);
    /* The same from the environment. */
    r = RUN_ENV("SHOAL_P2P_LEVEL=PXB", "--input", pcie, "--json");
    expect_ok(&r, "SHOAL_P2P_LEVEL=PXB");
    check_json(r.out, pcie, &pxb, -1);
    run_free(&r);
    r = RUN_ENV("SHOAL_P2P_LEVEL=NVL", "--input", pcie, "--json");
    expect_ok(&r, "SHOAL_P2P_LEVEL=NVL");
    check_json(r.out, pcie, &nvl, -1);
    CHECK_EQ_INT(count(r.out, "\"transport\": \"staged\""), 28);
    run_free(&r);

    r = RUN("--input", h200, "--json", "--disable", "cuda_ipc");
    expect_ok(&r, "--disable cuda_ipc");
    check_json(r.out, h200, &no_ipc, -1);
    CHECK_CONTAINS(r.out, "\"transport\": \"staged\"");
    CHECK_CONTAINS(r.out, "cuda_ipc is disabled");
    run_free(&r);
    r = RUN_ENV("SHOAL_TRANSPORT_DISABLE=cuda_ipc", "--input", h200, "--json");
    expect_ok(&r, "SHOAL_TRANSPORT_DISABLE=cuda_ipc");
    check_json(r.out, h200, &no_ipc, -1);
    run_free(&r);

    /* Nodes of 2 PEs (as SHOAL_NODE_SIZE=2): pairs across them take mpi_rma. */
    r = RUN("--input", h200, "--map", "0,1,0,1", "--node-size", "2");
    expect_ok(&r, "--node-size 2");
    CHECK_CONTAINS(r.out, "Transports (4 PEs in nodes of 2, as placed;");
    CHECK_CONTAINS(r.out, "PE 0 (GPU0) <-> PE 1 (GPU1)  cuda_ipc");
    CHECK_CONTAINS(r.out, "PE 0 (GPU0) <-> PE 2 (GPU0)  mpi_rma   different nodes (0 and 1)");
    CHECK_CONTAINS(r.out, "PE 2 (GPU0) <-> PE 3 (GPU1)  cuda_ipc");
    CHECK_EQ_INT(count(r.out, "mpi_rma   different nodes"), 4);
    run_free(&r);
    r = RUN_ENV("SHOAL_NODE_SIZE=1", "--input", h200, "--map", "host,host");
    expect_ok(&r, "SHOAL_NODE_SIZE=1");
    CHECK_CONTAINS(r.out, "Transports (2 PEs in nodes of 1, as placed;");
    CHECK_CONTAINS(r.out, "PE 0 (host) <-> PE 1 (host)  mpi_rma   different nodes (0 and 1)");
    run_free(&r);
    r = RUN("--input", h200, "--map", "host,host", "--node-size", "0");
    expect_ok(&r, "--node-size 0");
    CHECK_CONTAINS(r.out, "PE 0 (host) <-> PE 1 (host)  shm       same node, host heaps");
    run_free(&r);

    /* Two PEs on GPU 0, one on GPU 1. */
    r = RUN("--input", h200, "--json", "--map", "0,0,1");
    expect_ok(&r, "--map 0,0,1");
    check_json(r.out, h200, NULL, 3);
    CHECK_CONTAINS(r.out, "{\"a\": 0, \"b\": 1, \"gpu_a\": 0, \"gpu_b\": 0, \"path\": \"LOC\", \"nvlinks\": 0, "
                          "\"transport\": \"cuda_ipc\"");
    CHECK_CONTAINS(r.out, "{\"a\": 0, \"b\": 2, \"gpu_a\": 0, \"gpu_b\": 1, \"path\": \"NVL\", \"nvlinks\": 18, "
                          "\"transport\": \"cuda_ipc\"");
    run_free(&r);
    /* A host heap among GPU heaps: refused, as shoal_init refuses it. */
    expect_fail(RUN("--input", h200, "--map", "0,0,1,host"), "--map 0,0,1,host",
                "--map: PE 0 has a GPU heap and PE 3 a host heap; shoal_init refuses heaps of different kinds");
    /* Every PE on a host heap. */
    r = RUN("--input", h200, "--json", "--map", "host,-1");
    expect_ok(&r, "--map host,-1");
    CHECK_CONTAINS(r.out, "\"transport\": \"shm\"");
    run_free(&r);
    /* Blanks around SHOAL_* values are dropped and a blank value is unset,
     * as in the runtime. */
    {
        static const struct {
            const char *env, *machine, *needle;
        } blanks[] = {
            {"SHOAL_P2P_LEVEL= nvl \n", "pcie-8gpu.xml", "beyond SHOAL_P2P_LEVEL=NVL"},
            {"SHOAL_P2P_LEVEL=  ", "pcie-8gpu.xml", "within SHOAL_P2P_LEVEL=SYS"},
            {"SHOAL_TRANSPORT_DISABLE=cuda_ipc\n", "h200x2-nv18.xml", "cuda_ipc is disabled"},
        };
        for (size_t i = 0; i < sizeof(blanks) / sizeof(blanks[0]); i++) {
            r = RUN_ENV(blanks[i].env, "--input", fixture(blanks[i].machine), "--json");
            expect_ok(&r, blanks[i].env);
            CHECK_CONTAINS(r.out, blanks[i].needle);
            run_free(&r);
        }
    }
    /* --pes N wraps around the GPUs; text names each PE's GPU. */
    r = RUN("--input", h200, "--pes", "3");
    expect_ok(&r, "--pes 3");
    CHECK_CONTAINS(r.out, "3 PEs on one node, as placed");
    CHECK_CONTAINS(r.out, "PE 0 (GPU0) <-> PE 2 (GPU0)  cuda_ipc");
    CHECK_CONTAINS(r.out, "PE 1 (GPU1) <-> PE 2 (GPU0)  cuda_ipc");
    run_free(&r);
    /* No GPU: PEs on host heaps use shm. */
    r = RUN("--input", fixture("cpu-2socket.xml"), "--json", "--pes", "3");
    expect_ok(&r, "cpu-2socket --pes 3");
    check_json(r.out, fixture("cpu-2socket.xml"), NULL, 3);
    CHECK_EQ_INT(count(r.out, "\"transport\": \"shm\""), 3);
    run_free(&r);

    /* SHOAL_TOPO_FILE stands in for --input. */
    r = RUN("--input", pcie, "--json");
    r2 = RUN_ENV("SHOAL_TOPO_FILE="
                 "",
                 "--json"); /* empty: the live machine */
    expect_ok(&r2, "SHOAL_TOPO_FILE empty");
    run_free(&r2);
    {
        char env[4096 + 64];
        snprintf(env, sizeof(env), "SHOAL_TOPO_FILE=%s", pcie);
        r2 = RUN_ENV(env, "--json");
        expect_ok(&r2, "SHOAL_TOPO_FILE");
        CHECK_EQ_STR(r2.out, r.out);
        run_free(&r2);
    }
    run_free(&r);
}

/* What a new user found odd: a GPU-less machine said "0 PEs", NICs were
 * counted but not named, and nothing warned of PEs beyond the cores. */
static void test_notes(void)
{
    const char *h200 = fixture("h200x2-nv18.xml"), *cpu = fixture("cpu-2socket.xml");
    static const char oversub[] = "PEs outnumber cores, so a PE waiting in a collective sleeps in the kernel "
                                  "(SHOAL_WAIT=auto) and performance suffers; run fewer ranks per node";
    run_t r;

    r = RUN("--input", cpu);
    expect_ok(&r, "cpu-2socket text");
    CHECK_CONTAINS(r.out, "\nTransports (no PE placed: one per GPU by default; SHOAL_P2P_LEVEL=SYS):\n"
                          "  no GPU: PEs would use host heaps; place some with --pes N or --map host,host\n");
    CHECK_MSG(strstr(r.out, "0 PEs") == NULL, "a GPU-less machine still reads \"0 PEs\":\n%s", r.out);
    CHECK_CONTAINS(r.out, "\nNICs:\n  NIC0  0000:01:00.0  eno1  NUMA node 0\n"
                          "  NIC1  0000:81:00.0  ib0,mlx5_0  NUMA node 1\n");
    run_free(&r);

    r = RUN("--input", h200);
    expect_ok(&r, "h200x2-nv18 text");
    CHECK_CONTAINS(r.out, "\nNICs:\n  NIC0  0000:00:03.0  eth0  NUMA node 0\n");
    run_free(&r);
    r = RUN("--input", h200, "--json");
    expect_ok(&r, "h200x2-nv18 --json");
    CHECK_CONTAINS(r.out, "\"nics\": [\n    {\"index\": 0, \"pci_bus_id\": \"0000:00:03.0\", \"name\": \"eth0\", "
                          "\"numa_node\": 0}\n  ]");
    run_free(&r);

    /* The fixture has 32 cores: 33 PEs on its one node are too many. */
    r = RUN("--input", h200, "--pes", "33");
    expect_ok(&r, "--pes 33");
    CHECK_CONTAINS(r.out, "  33 PEs on one node but 32 cores: ");
    CHECK_CONTAINS(r.out, oversub);
    run_free(&r);
    r = RUN("--input", cpu, "--map",
            "host,host,host,host,host,host,host,host,host,host,host,host,host,host,host,host,"
            "host,host,host,host,host,host,host,host,host,host,host,host,host,host,host,host,host");
    expect_ok(&r, "--map 33 x host");
    CHECK_CONTAINS(r.out, "  33 PEs on one node but 32 cores: ");
    run_free(&r);
    r = RUN("--input", h200, "--pes", "66", "--node-size", "33");
    expect_ok(&r, "--pes 66 --node-size 33");
    CHECK_CONTAINS(r.out, "  33 PEs on each node but 32 cores: ");
    run_free(&r);
    static const char *const fits[][4] = {{"--pes", "32", NULL, NULL}, {"--pes", "64", "--node-size", "32"}};
    for (size_t i = 0; i < sizeof(fits) / sizeof(fits[0]); i++) {
        r = fits[i][2] ? RUN("--input", h200, fits[i][0], fits[i][1], fits[i][2], fits[i][3])
                       : RUN("--input", h200, fits[i][0], fits[i][1]);
        expect_ok(&r, fits[i][1]);
        CHECK_MSG(strstr(r.out, "outnumber") == NULL, "%s PEs fit the 32 cores, but:\n%s", fits[i][1], r.out);
        run_free(&r);
    }
}

/* --export writes an XML that gives the same answers, NVLink included. */
static void test_export(void)
{
    char tmp[] = "/tmp/shoal-topo-export-XXXXXX";
    char path[64];
    const char *src = fixture("nvlink-pairs-4gpu.xml");
    int fd = mkstemp(tmp);
    run_t r, r2;
    char *xml;

    CHECK(fd >= 0);
    close(fd);
    unlink(tmp);
    snprintf(path, sizeof(path), "%s.xml", tmp);
    r = RUN("--input", src, "--json", "--export", path);
    expect_ok(&r, "--export");
    xml = slurp(path);
    CHECK_MSG(xml != NULL, "--export wrote no %s", path);
    CHECK_CONTAINS(xml, "name=\"NVLinkBandwidth\"");
    free(xml);
    r2 = RUN("--input", path, "--json");
    expect_ok(&r2, "--input exported");
    CHECK_EQ_STR(r2.out, r.out);
    run_free(&r);
    run_free(&r2);
    unlink(path);

    expect_fail(RUN("--input", src, "--export", "/nonexistent/dir/out.xml"), "--export to a missing folder",
                "/nonexistent/dir/out.xml");
}

static void test_errors(void)
{
    run_t r;

    expect_fail(RUN("--input", fixture("no-such-machine.xml")), "missing file", "cannot open topology file");
    expect_fail(RUN("--input", fixture("bad/truncated.xml"), "--json"), "truncated XML",
                "not a valid hwloc XML topology");
    expect_fail(RUN("--input", fixture("bad/not-a-topology.xml")), "not a topology", "not a valid hwloc XML topology");
    expect_fail(RUN("--input", fixture("bad/gpu-no-pci.xml")), "GPU without PCI", "no PCI device above it");
    expect_fail(RUN("--input", fixture("bad/no-complete-cpuset.xml")), "no complete_cpuset", "hwloc would crash");
    expect_fail(RUN("--input", fixture("bad")), "a folder", "not a valid hwloc XML topology");
    expect_fail(RUN_ENV("SHOAL_TOPO_FILE=/nonexistent/m.xml", "--json"), "SHOAL_TOPO_FILE missing",
                "/nonexistent/m.xml");
    expect_fail(RUN("--input"), "--input without a file", "--input needs a file name");
    expect_fail(RUN("--bogus"), "unknown option", "unknown option '--bogus'");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--p2p-level", "NV18"), "bad level", "--p2p-level");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--disable", "cuda_ipc,nvlink"), "bad transport",
                "unknown transport 'nvlink'");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--map", "0,9"), "map past the GPUs", "GPU 9");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--map", "0,,1"), "empty map entry", "--map");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--map", "0,x"), "bad map entry", "'x'");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--pes", "0"), "zero PEs", "--pes");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--pes", "2", "--map", "0"), "--pes and --map disagree",
                "--map places 1");
    expect_fail(RUN_ENV("SHOAL_P2P_LEVEL=fast", "--input", fixture("h200x2-nv18.xml")), "bad SHOAL_P2P_LEVEL",
                "SHOAL_P2P_LEVEL: 'fast' is not one of NVL, PIX, PXB, PHB, NODE, SYS");
    /* What the runtime refuses, the tool refuses too. */
    expect_fail(RUN_ENV("SHOAL_P2P_LEVEL=NET", "--input", fixture("h200x2-nv18.xml")), "SHOAL_P2P_LEVEL=NET",
                "'NET' is not one of");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--p2p-level", "LOC"), "--p2p-level LOC",
                "--p2p-level: 'LOC' is not one of");
    expect_fail(RUN_ENV("SHOAL_TRANSPORT_DISABLE=mpi_rma", "--input", fixture("h200x2-nv18.xml")),
                "SHOAL_TRANSPORT_DISABLE=mpi_rma", "SHOAL_TRANSPORT_DISABLE: transport 'mpi_rma' cannot be disabled");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--disable", "self"), "--disable self",
                "--disable: transport 'self' cannot be disabled");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--export", "-"), "--export to stdout", "'-' would mix");
    expect_fail(RUN("--probe-size", "64"), "--probe-size alone", "--probe-size goes with --probe");
    /* Model options mean nothing to the live instance of MPI mode. */
    expect_fail(RUN("--mpi", "--pes", "2"), "--pes under MPI", "describe a model");
    expect_fail(RUN("--mpi", "--input", fixture("h200x2-nv18.xml")), "--input under MPI", "run without mpiexec");
    expect_fail(RUN("--mpi", "--disable", "shm"), "--disable under MPI", "SHOAL_TRANSPORT_DISABLE instead");
    expect_fail(RUN("--mpi", "--node-size", "2"), "--node-size under MPI", "describe a model");
    expect_fail(RUN("--input", fixture("h200x2-nv18.xml"), "--node-size", "-1"), "--node-size -1",
                "--node-size: '-1' is not 0 or a positive number of PEs");
    expect_fail(RUN_ENV("SHOAL_NODE_SIZE=two", "--input", fixture("h200x2-nv18.xml")), "SHOAL_NODE_SIZE=two",
                "SHOAL_NODE_SIZE: 'two' is not 0 or a positive number of PEs");

    r = RUN("--help");
    expect_ok(&r, "--help");
    CHECK_CONTAINS(r.out, "Usage: shoal-topo");
    CHECK_CONTAINS(r.out, "--json");
    CHECK_CONTAINS(r.out, "--map");
    CHECK_CONTAINS(r.out, "--env");
    run_free(&r);

    /* --env: the variables as shoal_init reads them, invalid ones marked,
     * even those that make every other mode fail. */
    r = RUN_ENV("SHOAL_P2P_LEVEL=LOC", "--env");
    expect_ok(&r, "--env");
    CHECK_CONTAINS(r.out, "SHOAL_P2P_LEVEL            LOC        (set, INVALID: expected NVL, PIX, PXB, PHB, NODE or "
                          "SYS; shoal_init fails; default SYS)");
    CHECK_CONTAINS(r.out, "SHOAL_HEAP_SIZE            256m       (default)");
    CHECK_CONTAINS(r.out, "SHOAL_WARN_UNKNOWN_ENV");
    run_free(&r);
    expect_fail(RUN("--env", "--json"), "--env --json", "--env takes no other option");
}

/* The live machine, whatever it is. */
static void test_live(void)
{
    run_t r = RUN("--json");
    expect_ok(&r, "live --json");
    {
        jv_t root = jparse(r.out);
        jkeys(&root, "live", "version", "machine", "gpus", "nics", "pairs", "warning", (char *)NULL);
        jfree(&root);
    }
    run_free(&r);
    r = RUN("--no-mpi");
    expect_ok(&r, "live text");
    CHECK_CONTAINS(r.out, "NUMA node");
    CHECK_MSG(strstr(r.out, "CPU binding not checked") == NULL, "the live machine's binding must be checked");
    run_free(&r);
}

/* MPI mode as a singleton: one PE, which reaches itself with self. */
static void test_mpi_singleton(void)
{
    run_t r = RUN("--mpi");
    expect_ok(&r, "--mpi (singleton)");
    CHECK_CONTAINS(r.out, "1 PE, heap on the");
    CHECK_CONTAINS(r.out, "self");
    /* The machine section of model mode, from the live topology. */
    CHECK_CONTAINS(r.out, " NUMA node");
    CHECK_CONTAINS(r.out, "(NVLink information: ");
    CHECK_CONTAINS(r.out, "\nWhy: each pair's transport as the instance chose it, and the policy's reason "
                          "(SHOAL_P2P_LEVEL=SYS):\n  a single PE: only self\n");
    CHECK_CONTAINS(r.out, "\nWarnings:\n");
    run_free(&r);
    r = RUN("--mpi", "--json");
    expect_ok(&r, "--mpi --json (singleton)");
    {
        jv_t root = jparse(r.out);
        const jv_t *mpi = jget(&root, "mpi");
        jkeys(&root, "mpi output", "version", "mpi", (char *)NULL);
        CHECK_EQ_INT(jint(&root, "version", 2, 2, "mpi output"), 2);
        jkeys(mpi, "mpi", "pes", "heap", "nodes", "transports", "gpus", "pe_pairs", (char *)NULL);
        CHECK_EQ_INT(jint(mpi, "pes", 1, 1, "mpi"), 1);
        CHECK_EQ_STR(jget(mpi, "transports")->items[0].items[0].str, "self");
        CHECK_EQ_INT(jget(mpi, "pe_pairs")->n, 0);
        jfree(&root);
    }
    run_free(&r);
    /* A PE does not measure itself: null, not 0.00, on the diagonal. */
    r = RUN("--mpi", "--json", "--probe", "--probe-size", "64");
    expect_ok(&r, "--mpi --json --probe (singleton)");
    CHECK_CONTAINS(r.out, "\"bandwidth_gbs\": [[null]], \"latency_us\": [[null]]");
    run_free(&r);
}

/* MPI mode under mpiexec (SHOAL_TEST_MPIEXEC, which configure.py sets): the
 * machine section, each pair's transport with the policy's reason, null on
 * the probe's diagonal, and the warning for more PEs than cores. */
static void test_mpi_launched(void)
{
    static const char *const host[] = {"SHOAL_HEAP_KIND=host", "MPIEXEC_TIMEOUT=60", NULL};
    static const char *const nodes1[] = {"SHOAL_HEAP_KIND=host", "SHOAL_NODE_SIZE=1", "MPIEXEC_TIMEOUT=60", NULL};
    char topo_env[4096 + 64];
    const char *cpu_env[] = {"SHOAL_HEAP_KIND=host", "MPIEXEC_TIMEOUT=60", topo_env, NULL};
    shoal_topo_t live = NULL;
    run_t r;

    if (!mpiexec[0]) {
        check_note("SHOAL_TEST_MPIEXEC unset: shoal-topo under mpiexec not tested");
        return;
    }
    r = RUN_MPI(2, host, "--mpi");
    expect_ok(&r, "mpiexec -n 2 shoal-topo");
    CHECK_CONTAINS(r.out, "(NVLink information: ");
    CHECK_CONTAINS(r.out, "2 PEs, heap on the host\nTransport chosen from each PE (row) to each PE (column):\n");
    CHECK_CONTAINS(r.out, "0 (0)     self      shm");
    CHECK_CONTAINS(r.out, "\nWhy: each pair's transport as the instance chose it, and the policy's reason "
                          "(SHOAL_P2P_LEVEL=SYS):\n"
                          "  PE 0 (node 0, host) <-> PE 1 (node 0, host)  shm       same node, host heaps\n");
    run_free(&r);

    r = RUN_MPI(2, nodes1, "--mpi");
    expect_ok(&r, "mpiexec -n 2 shoal-topo, SHOAL_NODE_SIZE=1");
    CHECK_CONTAINS(r.out, "; GPUs of every node looked up in node 0's topology):\n"
                          "  PE 0 (node 0, host) <-> PE 1 (node 1, host)  mpi_rma   different nodes (0 and 1)\n");
    run_free(&r);

    /* The machine as the runtime loads it: SHOAL_TOPO_FILE too. */
    snprintf(topo_env, sizeof(topo_env), "SHOAL_TOPO_FILE=%s", fixture("cpu-2socket.xml"));
    r = RUN_MPI(2, cpu_env, "--mpi");
    expect_ok(&r, "mpiexec -n 2 shoal-topo, SHOAL_TOPO_FILE");
    CHECK_CONTAINS(r.out, "2 packages, 2 NUMA nodes, 32 cores, 0 GPUs, 2 NICs (NVLink information: none)\n\nNICs:\n"
                          "  NIC0  0000:01:00.0  eno1  NUMA node 0\n");
    run_free(&r);

    r = RUN_MPI(2, host, "--mpi", "--json", "--probe", "--probe-size", "4096");
    expect_ok(&r, "mpiexec -n 2 shoal-topo --json --probe");
    {
        jv_t root = jparse(r.out);
        const jv_t *mpi = jget(&root, "mpi"), *probe, *pairs;
        CHECK_EQ_INT(jint(&root, "version", 2, 2, "mpi output"), 2);
        jkeys(mpi, "mpi", "pes", "heap", "nodes", "transports", "gpus", "pe_pairs", "probe", (char *)NULL);
        probe = jget(mpi, "probe");
        for (int m = 0; m < 2; m++) {
            const jv_t *rows = jget(probe, m ? "latency_us" : "bandwidth_gbs");
            CHECK_MSG(rows && rows->type == J_ARR && rows->n == 2, "probe matrix %d is not 2 rows", m);
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++)
                    CHECK_MSG(rows->items[a].items[b].type == (a == b ? J_NULL : J_NUM), "probe[%d][%d]: want %s", a, b,
                              a == b ? "null" : "a number");
        }
        pairs = jget(mpi, "pe_pairs");
        CHECK_EQ_INT(pairs->n, 1);
        jkeys(&pairs->items[0], "pe_pairs[0]", "a", "b", "transport", "policy", "why", (char *)NULL);
        CHECK_EQ_STR(jstr(&pairs->items[0], "transport", "pe_pairs[0]"), "shm");
        CHECK_EQ_STR(jstr(&pairs->items[0], "policy", "pe_pairs[0]"), "shm");
        CHECK_EQ_STR(jstr(&pairs->items[0], "why", "pe_pairs[0]"), "same node, host heaps");
        jfree(&root);
    }
    run_free(&r);

    /* One rank more than this machine's cores, where that stays small. */
    CHECK_EQ_INT(shoal_topo_load(NULL, &live), SHOAL_SUCCESS);
    {
        int cores = shoal_topo_n_cores(live);
        shoal_topo_destroy(live);
        if (cores < 1 || cores > 7) {
            check_note("%d cores: the oversubscription warning under mpiexec is not tested", cores);
            return;
        }
        char want[64];
        r = RUN_MPI(cores + 1, host, "--mpi");
        expect_ok(&r, "mpiexec -n cores+1 shoal-topo");
        snprintf(want, sizeof(want), "  %d PEs on node 0 but %d core", cores + 1, cores);
        CHECK_CONTAINS(r.out, want);
        CHECK_CONTAINS(r.out, "PEs outnumber cores, so a PE waiting in a collective sleeps in the kernel "
                              "(SHOAL_WAIT=auto) and performance suffers; run fewer ranks per node");
        run_free(&r);
    }
}

int main(int argc, char **argv)
{
    const char *src = getenv("SHOAL_TEST_SRCDIR"), *build = getenv("SHOAL_TEST_BUILDDIR"),
               *env_tool = getenv("SHOAL_TOPO_TOOL");
    const char *e = getenv("SHOAL_TOPO_REGEN"), *env_mpiexec = getenv("SHOAL_TEST_MPIEXEC");
    struct stat st;

    regen = e && strcmp(e, "1") == 0;
    if (env_mpiexec && *env_mpiexec) snprintf(mpiexec, sizeof(mpiexec), "%s", env_mpiexec);
    if (env_tool && *env_tool)
        snprintf(tool, sizeof(tool), "%s", env_tool);
    else if (build && *build)
        snprintf(tool, sizeof(tool), "%s/bin/shoal-topo", build);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--regen") == 0)
            regen = 1;
        else if (strcmp(argv[i], "--tool") == 0 && i + 1 < argc)
            snprintf(tool, sizeof(tool), "%s", argv[++i]);
        else
            check__fail(__FILE__, __LINE__, "usage: %s [--regen] [--tool PATH]", argv[0]);
    }
    CHECK_MSG(src && *src, "SHOAL_TEST_SRCDIR must name the source tree (ctest sets it)");
    CHECK_MSG(tool[0] && stat(tool, &st) == 0, "no shoal-topo at '%s': set SHOAL_TEST_BUILDDIR or pass --tool", tool);
    snprintf(fixture_dir, sizeof(fixture_dir), "%s/tests/fixtures/topology", src);
    unsetenv("SHOAL_TOPO_FILE");

    test_fixtures();
    test_options();
    test_notes();
    test_export();
    test_errors();
    test_live();
    test_mpi_singleton();
    test_mpi_launched();
    check_note("shoal-topo: all checks passed%s", regen ? " (expected files regenerated)" : "");
    return 0;
}
