/*
 * OpenSHMEM programs written for other implementations, built and run on
 * shoal unchanged: the Parallel Research Kernels' SHMEM kernels, the OSU
 * micro-benchmarks' OpenSHMEM programs and shmem4py (Python bindings built
 * with cffi), its tests and its demos. They are not part of shoal: they are
 * read from the folder SHOAL_SHMEM_PROGRAMS names, ../shared/shmem-programs
 * from the source tree by default (prk/, osu/, shmem4py/), and the test
 * skips (exit 77), naming the folder, where the suite's part is absent.
 *
 * As their users would: shoal is installed into a scratch prefix
 * (build/install.sh with DESTDIR), each program is built with the installed
 * oshcc by its own build (PRK's Makefiles, shmem4py's setup.py; OSU's
 * sources compiled directly) in a copy under the scratch folder, since those
 * builds write into their source folders, and run with the installed oshrun
 * under a time limit of its own. What counts as passing:
 *   prk       stencil, transpose and p2p, in their default builds and with
 *             SPLITFENCE=1, BARRIER_SYNCH=1, SYNCHRONOUS=1, print "Solution
 *             validates" and exit 0; transpose_a2a, which hands private
 *             (posix_memalign) buffers to shmem_double_alltoall, must
 *             fail with a message naming that routine, saying its memory
 *             is not symmetric and pointing at shmem_malloc
 *   osu       every osu_oshm_* program (put, get, put_mr and atomics with
 *             heap and with global memory; the collectives) exits 0 with
 *             its whole result table (the title, the column line, rows of
 *             finite numbers up to the last message size or operation)
 *   shmem4py  every module of shmem4py's test/ passes under unittest
 *   shmem4py_demo  every demo (demo/ and demo/api/) exits 0
 * Every program is tried; the test fails naming each one that did not build
 * or pass, with its first errors and the end of its log.
 *
 *   test_shmem_programs SUITE NP[,NP...]
 */
#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/programs.h"

/* Time limits, in seconds, of one build and of one run of a program. */
#define BUILD_S 600
#define PRK_RUN_S 180
#define OSU_RUN_S 180
#define S4P_BUILD_S 1200
#define S4P_MODULE_S 300
#define S4P_DEMO_S 120

/* Debian's Python, which python3-cffi and python3-numpy serve (another
 * python3 may come first on PATH). */
#define PYTHON "/usr/bin/python3"

/* The scratch folder, the installed wrappers' folder, the programs' folder. */
static char tmp[64], bin[1024], progs[1024];
static int nps[8], n_np;
static prog_tally_t tally;

/* The command that runs the program and arguments run in dir at np PEs
 * under limit seconds: hydra ends the job at MPIEXEC_TIMEOUT, and timeout
 * backs it up (it signals its whole process group: a make and the launcher
 * it started, say). */
static void launch(char *cmd, size_t len, const char *dir, int limit, int np, const char *run)
{
    snprintf(cmd, len, "cd '%s' && MPIEXEC_TIMEOUT=%d timeout -k 10 %d '%s/oshrun' -n %d %s", dir, limit, limit + 10,
             bin, np, run);
}

/* Did the run that exited with rc, its output in log, hit its time limit:
 * timeout's status, or hydra's MPIEXEC_TIMEOUT (whose status a make in
 * between turns into its own)? */
static bool timed_out(int rc, const char *log)
{
    char *text;
    bool hit;

    if (rc == 124 || rc == 128 + 9 || rc == 128 + 15) return true;
    text = prog_read(log);
    hit = text != NULL && strstr(text, "APPLICATION TIMED OUT") != NULL;
    free(text);
    return hit;
}

/* Why a run that exited with rc failed: its time limit, or its status. */
static void exit_reason(char *why, size_t len, int rc, int limit, const char *log)
{
    if (timed_out(rc, log))
        snprintf(why, len, "did not finish within %d s (exit status %d)", limit, rc);
    else
        snprintf(why, len, "exited with %d", rc);
}

/* ---------------------------------------------------------------- PRK */

/* A kernel, a build of it (a Makefile variable, or NULL for the default
 * build), its arguments (orders that 2, 3 and 4 PEs divide), and whether it
 * must fail on its private buffers. */
static const struct prk {
    const char *dir, *program, *knob, *args;
    bool must_fail;
} prk[] = {
    {"Stencil", "stencil", NULL, "10 1000", false},
    {"Stencil", "stencil", "SPLITFENCE=1", "10 1000", false},
    {"Transpose", "transpose", NULL, "10 960", false},
    {"Transpose", "transpose", "BARRIER_SYNCH=1", "10 960", false},
    {"Synch_p2p", "p2p", NULL, "10 1000 100", false},
    {"Synch_p2p", "p2p", "SYNCHRONOUS=1", "10 1000 100", false},
    {"Transpose", "transpose_a2a", NULL, "10 960", true},
};

/* transpose_a2a's run: failed, not timed out, with a message that names
 * shmem_double_alltoall, says the memory is not symmetric and points at
 * shmem_malloc (the routine may abort the job, or return an error that the
 * kernel ignores and then fail its own check). Writes what is missing to
 * why and returns false where the run is not so. */
static bool prk_a2a_failed(int rc, const char *log, char *why, size_t len)
{
    char *text = prog_read(log);
    bool ok = false;

    if (text == NULL)
        snprintf(why, len, "no log");
    else if (rc == 0 || strstr(text, "Solution validates") != NULL)
        snprintf(why, len, "ran to the end (exit status %d) with private buffers in shmem_double_alltoall", rc);
    else if (timed_out(rc, log))
        exit_reason(why, len, rc, PRK_RUN_S, log);
    else if (strstr(text, "shmem_double_alltoall") == NULL)
        snprintf(why, len, "failed (exit status %d) without naming shmem_double_alltoall", rc);
    else if (check_strcasestr(text, "symmetric") == NULL || strstr(text, "shmem_malloc") == NULL)
        snprintf(why, len, "failed (exit status %d) without saying the memory is not symmetric (and shmem_malloc's is)",
                 rc);
    else
        ok = true;
    free(text);
    return ok;
}

static void run_prk(void)
{
    char cmd[32768], log[512], dir[256], name[256], why[512];

    for (size_t i = 0; i < sizeof(prk) / sizeof(prk[0]); i++) {
        const struct prk *k = &prk[i];
        int rc;

        /* A copy per build: make does not track flags, and the build writes
         * common/make.defs and its objects into the tree. */
        snprintf(dir, sizeof(dir), "%s/prk-%s%s%s", tmp, k->program, k->knob ? "-" : "", k->knob ? k->knob : "");
        snprintf(log, sizeof(log), "%s.build.log", dir);
        snprintf(cmd, sizeof(cmd),
                 "cp -r '%s/prk' '%s' && chmod -R u+w '%s' && "
                 "printf 'SHMEMCC=%s/oshcc\\nDEFAULT_OPT_FLAGS=-O3\\n' > '%s/common/make.defs' && "
                 "cd '%s/SHMEM/%s' && timeout %d make %s PROGRAM=%s %s",
                 progs, dir, dir, bin, dir, dir, k->dir, BUILD_S, k->program, k->program, k->knob ? k->knob : "");
        rc = prog_sh(cmd, log);
        for (int j = 0; j < n_np; j++) {
            snprintf(name, sizeof(name), "%s%s%s%s at %d PEs", k->program, k->knob ? " " : "", k->knob ? k->knob : "",
                     k->must_fail ? " (must fail: private buffers)" : "", nps[j]);
            if (rc != 0) {
                snprintf(why, sizeof(why), "did not build (make exited with %d%s)", rc,
                         j > 0 ? "; its log is above" : "");
                prog_fail(&tally, name, why, j > 0 ? NULL : log);
                continue;
            }
            {
                char rlog[512], run[512], sub[512];
                int rrc;
                char *text;

                snprintf(rlog, sizeof(rlog), "%s.run%d.log", dir, nps[j]);
                snprintf(sub, sizeof(sub), "%s/SHMEM/%s", dir, k->dir);
                snprintf(run, sizeof(run), "./%s %s", k->program, k->args);
                launch(cmd, sizeof(cmd), sub, PRK_RUN_S, nps[j], run);
                rrc = prog_sh(cmd, rlog);
                if (k->must_fail) {
                    if (prk_a2a_failed(rrc, rlog, why, sizeof(why)))
                        prog_pass(&tally, name);
                    else
                        prog_fail(&tally, name, why, rlog);
                    continue;
                }
                text = prog_read(rlog);
                if (rrc == 0 && text != NULL && strstr(text, "Solution validates") != NULL)
                    prog_pass(&tally, name);
                else if (rrc == 0)
                    prog_fail(&tally, name, "exited with 0 but did not print \"Solution validates\"", rlog);
                else {
                    exit_reason(why, sizeof(why), rrc, PRK_RUN_S, rlog);
                    prog_fail(&tally, name, why, rlog);
                }
                free(text);
            }
        }
    }
}

/* ---------------------------------------------------------------- OSU */

/* A program, its memory argument (NULL: none), the title and the column
 * line of its table, and the first word of the table's last row (NULL: any
 * row; the barrier's table is one number). */
static const struct osu {
    const char *program, *memory, *title, *columns, *last;
} osu[] = {
    {"put", "heap", "Put Test", "# Size", "1048576"},
    {"put", "global", "Put Test", "# Size", "1048576"},
    {"get", "heap", "Get Test", "# Size", "1048576"},
    {"get", "global", "Get Test", "# Size", "1048576"},
    {"put_mr", "heap", "Put Message Rate Test", "# Size", "4194304"},
    {"put_mr", "global", "Put Message Rate Test", "# Size", "4194304"},
    {"atomics", "heap", "Atomic Operation Rate Test", "# Operation", "shmem_longlong_swap"},
    {"atomics", "global", "Atomic Operation Rate Test", "# Operation", "shmem_longlong_swap"},
    {"barrier", NULL, "Barrier Latency Test", "# Avg Latency(us)", NULL},
    {"broadcast", NULL, "Broadcast Latency Test", "# Size", "1048576"},
    {"collect", NULL, "Collect Latency Test", "# Size", "1048576"},
    {"fcollect", NULL, "FCollect Latency Test", "# Size", "1048576"},
    {"reduce", NULL, "Reduce Latency Test", "# Size", "1048576"},
};

/* A row of a table: a size (a number) or an operation (shmem_...), then
 * finite numbers; or, for the barrier, one finite number. Its first word
 * goes to first. */
static bool osu_row(const char *line, size_t n, char *first, size_t len)
{
    char buf[512], *save = NULL, *tok;
    int words = 0;
    bool named = false;

    if (n >= sizeof(buf)) return false;
    memcpy(buf, line, n);
    buf[n] = '\0';
    for (tok = strtok_r(buf, " \t\r", &save); tok != NULL; tok = strtok_r(NULL, " \t\r", &save), words++) {
        char *end;
        double v;

        if (words == 0 && strncmp(tok, "shmem_", 6) == 0) {
            named = true;
            snprintf(first, len, "%s", tok);
            continue;
        }
        v = strtod(tok, &end);
        if (end == tok || *end != '\0' || !isfinite(v)) return false;
        if (words == 0) snprintf(first, len, "%s", tok);
    }
    return named ? words >= 2 : words >= 1;
}

/* The log holds the program's whole table; else why says what is wrong. */
static bool osu_table(const struct osu *o, const char *log, char *why, size_t len)
{
    char *text = prog_read(log), title[128], last[128] = "";
    const char *at, *line;
    int rows = 0;
    bool ok = false;

    snprintf(title, sizeof(title), "# OSU OpenSHMEM %s", o->title);
    if (text == NULL)
        snprintf(why, len, "no log");
    else if ((at = strstr(text, title)) == NULL)
        snprintf(why, len, "exited with 0, but its output has no \"%s\" title", title);
    else if ((at = strstr(at, o->columns)) == NULL)
        snprintf(why, len, "exited with 0, but its table has no \"%s\" column line", o->columns);
    else {
        /* Lines another PE wrote in between are not rows, and are passed. */
        for (line = strchr(at, '\n'); line != NULL && line[1] != '\0'; line = strchr(line + 1, '\n')) {
            const char *end = strchr(line + 1, '\n');
            size_t n = end != NULL ? (size_t)(end - line - 1) : strlen(line + 1);
            char first[128];

            if (osu_row(line + 1, n, first, sizeof(first))) {
                rows++;
                snprintf(last, sizeof(last), "%s", first);
            }
        }
        if (rows == 0)
            snprintf(why, len, "exited with 0, but its table has no row of finite numbers");
        else if (o->last != NULL && strcmp(last, o->last) != 0)
            snprintf(why, len, "exited with 0, but its table ends at \"%s\", not \"%s\"", last, o->last);
        else
            ok = true;
    }
    free(text);
    return ok;
}

static void run_osu(void)
{
    char cmd[32768], log[512], src[1100], name[256], why[512];
    int built[sizeof(osu) / sizeof(osu[0])];

    /* The sources are compiled where they are: this build writes only the
     * program, into the scratch folder. */
    snprintf(src, sizeof(src), "%s/osu/openshmem", progs);
    for (size_t i = 0; i < sizeof(osu) / sizeof(osu[0]); i++) {
        const struct osu *o = &osu[i];

        if (i > 0 && strcmp(o->program, osu[i - 1].program) == 0) {
            built[i] = built[i - 1];
            continue;
        }
        snprintf(log, sizeof(log), "%s/osu_oshm_%s.build.log", tmp, o->program);
        snprintf(cmd, sizeof(cmd),
                 "cd '%s' && timeout %d '%s/oshcc' -I'%s' -o osu_oshm_%s '%s/osu_oshm_%s.c' '%s/osu_common.c'", tmp,
                 BUILD_S, bin, src, o->program, src, o->program, src);
        built[i] = prog_sh(cmd, log);
    }
    for (size_t i = 0; i < sizeof(osu) / sizeof(osu[0]); i++) {
        const struct osu *o = &osu[i];

        for (int j = 0; j < n_np; j++) {
            char run[256];
            int rc;

            snprintf(name, sizeof(name), "osu_oshm_%s%s%s at %d PEs", o->program, o->memory ? " " : "",
                     o->memory ? o->memory : "", nps[j]);
            if (built[i] != 0) {
                /* The build's log once, for the program's first run. */
                bool shown = j > 0 || (i > 0 && strcmp(o->program, osu[i - 1].program) == 0);
                snprintf(log, sizeof(log), "%s/osu_oshm_%s.build.log", tmp, o->program);
                snprintf(why, sizeof(why), "did not build (oshcc exited with %d%s)", built[i],
                         shown ? "; its log is above" : "");
                prog_fail(&tally, name, why, shown ? NULL : log);
                continue;
            }
            snprintf(log, sizeof(log), "%s/osu_oshm_%s%s%s.run%d.log", tmp, o->program, o->memory ? "-" : "",
                     o->memory ? o->memory : "", nps[j]);
            snprintf(run, sizeof(run), "./osu_oshm_%s %s", o->program, o->memory ? o->memory : "");
            launch(cmd, sizeof(cmd), tmp, OSU_RUN_S, nps[j], run);
            rc = prog_sh(cmd, log);
            if (rc != 0) {
                exit_reason(why, sizeof(why), rc, OSU_RUN_S, log);
                prog_fail(&tally, name, why, log);
            } else if (!osu_table(o, log, why, sizeof(why)))
                prog_fail(&tally, name, why, log);
            else
                prog_pass(&tally, name);
        }
    }
}

/* ---------------------------------------------------------------- shmem4py */

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The names in dir that start with prefix and end in ".py", sorted, into
 * names (at most max); how many. */
static int py_files(const char *dir, const char *prefix, char **names, int max)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (d == NULL) return 0;
    while ((e = readdir(d)) != NULL && n < max) {
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".py") == 0 && strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(names[0]), cmp_names);
    return n;
}

/* Build shmem4py in a copy with the installed oshcc; false (reported) where
 * it did not build. */
static bool s4p_build(const char *copy)
{
    char cmd[32768], log[2048], why[256];
    int rc;

    snprintf(log, sizeof(log), "%s/python.log", tmp);
    rc = prog_sh(PYTHON " -c 'import cffi, numpy, setuptools'", log);
    if (rc != 0) {
        prog_fail(&tally, "shmem4py",
                  PYTHON " lacks cffi, numpy or setuptools: install Debian's python3-cffi, python3-numpy, "
                         "python3-setuptools (.ci/install-deps does)",
                  log);
        return false;
    }
    snprintf(log, sizeof(log), "%s.build.log", copy);
    snprintf(cmd, sizeof(cmd),
             "cp -r '%s/shmem4py' '%s' && chmod -R u+w '%s' && cd '%s' && "
             "OSHCC='%s/oshcc' timeout %d " PYTHON " setup.py build_ext --inplace",
             progs, copy, copy, copy, bin, S4P_BUILD_S);
    rc = prog_sh(cmd, log);
    if (rc == 0) return true;
    snprintf(why, sizeof(why), "did not build (setup.py build_ext exited with %d)", rc);
    prog_fail(&tally, "shmem4py", why, log);
    return false;
}

/* shmem4py's tests, a module at a time, as its makefile runs them
 * (`make test-N`, its launcher and python given as make variables). */
static void run_s4p_tests(const char *copy)
{
    char *mods[64], testdir[1300];
    int n;

    snprintf(testdir, sizeof(testdir), "%s/test", copy);
    n = py_files(testdir, "test_", mods, 64);
    if (n == 0) prog_fail(&tally, "shmem4py tests", "no test_*.py in its test/", NULL);
    for (int j = 0; j < n_np; j++)
        for (int i = 0; i < n; i++) {
            char cmd[32768], log[512], name[256], why[512];
            char *text;
            int rc, ran = 0, oks = 0;

            snprintf(name, sizeof(name), "shmem4py %s at %d PEs", mods[i], nps[j]);
            snprintf(log, sizeof(log), "%s/%.*s.%d.log", tmp, (int)strlen(mods[i]) - 3, mods[i], nps[j]);
            snprintf(cmd, sizeof(cmd),
                     "cd '%s' && PYTHONPATH='%s/src' MPIEXEC_TIMEOUT=%d timeout -k 10 %d make test-%d python=" PYTHON
                     " OSHRUN='%s/oshrun' opt='-p %s'",
                     copy, copy, S4P_MODULE_S, S4P_MODULE_S + 10, nps[j], bin, mods[i]);
            rc = prog_sh(cmd, log);
            text = prog_read(log);
            /* Every PE reports "Ran N tests" and "OK" (their lines may mix). */
            for (const char *p = text; p != NULL && (p = strstr(p, "Ran ")) != NULL; p++)
                ran += isdigit(p[4]) && p[4] != '0';
            for (const char *p = text; p != NULL && (p = strstr(p, "OK")) != NULL; p++) oks++;
            if (rc != 0) {
                exit_reason(why, sizeof(why), rc, S4P_MODULE_S, log);
                prog_fail(&tally, name, why, log);
            } else if (text == NULL || ran < nps[j] || oks < nps[j] || strstr(text, "FAILED") != NULL)
                prog_fail(&tally, name, "exited with 0, but not every PE ran its tests and said OK", log);
            else
                prog_pass(&tally, name);
            free(text);
        }
    for (int i = 0; i < n; i++) free(mods[i]);
}

/* shmem4py's demos in demo/ and demo/api/, each as demo's makefile runs
 * it (`make test-NAME-N`). */
static void run_s4p_demos(const char *copy)
{
    static const char *const dirs[] = {"demo", "demo/api"};
    int total = 0;

    for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
        char *demos[64], dir[1300];
        int n;

        snprintf(dir, sizeof(dir), "%s/%s", copy, dirs[d]);
        n = py_files(dir, "", demos, 64);
        total += n;
        for (int j = 0; j < n_np; j++)
            for (int i = 0; i < n; i++) {
                char cmd[32768], log[512], name[300], why[512], stem[256];
                int rc;

                snprintf(stem, sizeof(stem), "%.*s", (int)strlen(demos[i]) - 3, demos[i]);
                snprintf(name, sizeof(name), "shmem4py %s/%s at %d PEs", dirs[d], demos[i], nps[j]);
                snprintf(log, sizeof(log), "%s/%s-%s.%d.log", tmp, d == 0 ? "demo" : "demo-api", stem, nps[j]);
                snprintf(cmd, sizeof(cmd),
                         "cd '%s' && PYTHONPATH='%s/src' MPIEXEC_TIMEOUT=%d timeout -k 10 %d make test-%s-%d "
                         "python=" PYTHON " OSHRUN='%s/oshrun'",
                         dir, copy, S4P_DEMO_S, S4P_DEMO_S + 10, stem, nps[j], bin);
                rc = prog_sh(cmd, log);
                if (rc == 0)
                    prog_pass(&tally, name);
                else {
                    exit_reason(why, sizeof(why), rc, S4P_DEMO_S, log);
                    prog_fail(&tally, name, why, log);
                }
            }
        for (int i = 0; i < n; i++) free(demos[i]);
    }
    if (total == 0) prog_fail(&tally, "shmem4py demos", "no *.py in its demo/ or demo/api/", NULL);
}

int main(int argc, char **argv)
{
    const char *suite = argc > 1 ? argv[1] : "";
    bool s4p = strcmp(suite, "shmem4py") == 0 || strcmp(suite, "shmem4py_demo") == 0;
    const char *part = s4p ? "shmem4py" : suite;
    char what[128];

    CHECK_MSG(argc == 3 && (strcmp(suite, "prk") == 0 || strcmp(suite, "osu") == 0 || s4p),
              "usage: test_shmem_programs prk|osu|shmem4py|shmem4py_demo NP[,NP...]");
    for (const char *p = argv[2]; *p != '\0' && n_np < 8; p += strspn(p, ",")) {
        char *end;
        long np = strtol(p, &end, 10);
        CHECK_MSG(end != p && np >= 1 && np <= 64, "bad PE count in '%s'", argv[2]);
        nps[n_np++] = (int)np;
        p = end;
    }
    CHECK_MSG(n_np > 0, "no PE count in '%s'", argv[2]);
    if (!prog_folder("SHOAL_SHMEM_PROGRAMS", "../shared/shmem-programs", part,
                     "the OpenSHMEM programs (prk/, osu/, shmem4py/)", progs, sizeof(progs)))
        return TEST_SKIP;

    snprintf(tmp, sizeof(tmp), "/tmp/shoal-%s-XXXXXX", suite);
    CHECK(mkdtemp(tmp) != NULL);
    prog_install(tmp, bin, sizeof(bin));
    check_note("%s from %s/%s, built with %s/oshcc, in %s", suite, progs, part, bin, tmp);

    if (strcmp(suite, "prk") == 0)
        run_prk();
    else if (strcmp(suite, "osu") == 0)
        run_osu();
    else {
        char copy[1200];
        snprintf(copy, sizeof(copy), "%s/shmem4py", tmp);
        if (s4p_build(copy)) {
            if (strcmp(suite, "shmem4py") == 0)
                run_s4p_tests(copy);
            else
                run_s4p_demos(copy);
        }
    }
    snprintf(what, sizeof(what), "%s programs", suite);
    CHECK_MSG(prog_done(&tally, what, tmp), "%d of %d %s failed:%s", tally.count - tally.passed, tally.count, what,
              tally.failed);
    return 0;
}
