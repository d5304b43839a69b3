/*
 * The OpenSHMEM community's unit tests against shoal's OpenSHMEM layer.
 * They are not part of shoal: they are read from the folder
 * SHOAL_SOS_TESTS names (its unit/ and include/), ../shared/sos-tests from
 * the source tree by default, and the test skips (exit 77), naming the
 * folder, where it is absent. They run as that suite runs them: shoal is installed into a
 * scratch prefix (build/install.sh with DESTDIR), every program is built
 * with the installed oshcc (C) or oshc++ (C++) and run with the installed
 * oshrun at the number of PEs given as the argument; a program passes
 * when it exits 0 within its time. Every program is tried; the test fails
 * naming each program that did not build or pass, with the end of its
 * output.
 *
 *   test_sos NP [REGEX-free name filter: a substring of the program's name]
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/check.h"

#define PER_PROGRAM_S 180

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Run cmd (through sh), its output into log; its exit status. */
static int sh(const char *cmd, const char *log)
{
    char full[49152];
    int st;
    snprintf(full, sizeof(full), "(%s) > '%s' 2>&1", cmd, log);
    st = system(full);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The last lines of a log, for a failure's report. */
static void tail_of(const char *log, char *out, size_t len)
{
    FILE *f = fopen(log, "r");
    long n;
    size_t got;

    out[0] = '\0';
    if (f == NULL) return;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, n > (long)len - 1 ? n - (long)len + 1 : 0, SEEK_SET);
    got = fread(out, 1, len - 1, f);
    out[got] = '\0';
    fclose(f);
}

int main(int argc, char **argv)
{
    const char *src = getenv("SHOAL_TEST_SRCDIR"), *build = getenv("SHOAL_TEST_BUILDDIR");
    const char *filter = argc > 2 ? argv[2] : "";
    char tmp[] = "/tmp/shoal-sos-XXXXXX", cmd[32768], log[8192], bin[4096], unit[4096], inc[4096];
    char *names[128], failed[1 << 15] = "";
    size_t nf = 0;
    int np = argc > 1 ? atoi(argv[1]) : 2, count = 0, passed = 0;
    DIR *d;
    struct dirent *e;

    CHECK_MSG(src != NULL && build != NULL, "SHOAL_TEST_SRCDIR and SHOAL_TEST_BUILDDIR must be set (ctest sets them)");
    CHECK_MSG(np >= 1, "usage: test_sos NP [name filter]");
    CHECK(mkdtemp(tmp) != NULL);
    {
        const char *dir = getenv("SHOAL_SOS_TESTS");
        char where[3000];
        struct stat st;

        if (dir != NULL && dir[0] != '\0')
            snprintf(where, sizeof(where), "%s", dir);
        else
            snprintf(where, sizeof(where), "%s/../shared/sos-tests", src);
        snprintf(unit, sizeof(unit), "%s/unit", where);
        snprintf(inc, sizeof(inc), "%s/include", where);
        if (stat(unit, &st) != 0 || !S_ISDIR(st.st_mode)) {
            printf("the OpenSHMEM community's unit tests are not at %s (no %s): skipped; set SHOAL_SOS_TESTS to the "
                   "folder that holds them (tests-sos's unit/ and include/)\n",
                   where, unit);
            rmdir(tmp);
            return TEST_SKIP;
        }
    }

    /* Install, and find the installed wrappers. */
    snprintf(log, sizeof(log), "%s/install.log", tmp);
    snprintf(cmd, sizeof(cmd), "cd '%s' && DESTDIR='%s/root' sh '%s/install.sh'", src, tmp, build);
    CHECK_MSG(sh(cmd, log) == 0, "installing shoal into %s/root failed (%s)", tmp, log);
    snprintf(cmd, sizeof(cmd), "dirname \"$(find '%s/root' -path '*/bin/oshcc' | head -1)\"", tmp);
    {
        FILE *p = popen(cmd, "r");
        CHECK(p != NULL && fgets(bin, sizeof(bin), p) != NULL);
        pclose(p);
        bin[strcspn(bin, "\n")] = '\0';
    }
    CHECK_MSG(bin[0] == '/', "no installed oshcc under %s/root", tmp);

    d = opendir(unit);
    CHECK_MSG(d != NULL, "cannot open %s", unit);
    while ((e = readdir(d)) != NULL && count < 128) {
        size_t l = strlen(e->d_name);
        bool c = l > 2 && strcmp(e->d_name + l - 2, ".c") == 0, cxx = l > 4 && strcmp(e->d_name + l - 4, ".cpp") == 0;
        if ((c || cxx) && strstr(e->d_name, filter) != NULL) names[count++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, (size_t)count, sizeof(names[0]), cmp_names);
    CHECK_MSG(count > 0, "no test program in %s matches '%s'", unit, filter);

    for (int i = 0; i < count; i++) {
        char exe[4096], what[2048];
        bool cxx = strstr(names[i], ".cpp") != NULL;
        int rc;

        snprintf(exe, sizeof(exe), "%s/%.*s", tmp, (int)(strcspn(names[i], ".")), names[i]);
        snprintf(log, sizeof(log), "%s.build.log", exe);
        snprintf(cmd, sizeof(cmd), "'%s/%s' -I'%s' '%s/%s' -o '%s'", bin, cxx ? "oshc++" : "oshcc", inc, unit, names[i],
                 exe);
        rc = sh(cmd, log);
        if (rc == 0) {
            snprintf(log, sizeof(log), "%s.run.log", exe);
            snprintf(cmd, sizeof(cmd), "MPIEXEC_TIMEOUT=%d timeout %d '%s/oshrun' -n %d '%s'", PER_PROGRAM_S,
                     PER_PROGRAM_S + 10, bin, np, exe);
            rc = sh(cmd, log);
            snprintf(what, sizeof(what), "exited with %d", rc);
        } else
            snprintf(what, sizeof(what), "did not build (%d)", rc);
        if (rc == 0) {
            passed++;
            check_note("%-40s passed at %d PEs", names[i], np);
            continue;
        }
        {
            char end[1200];
            tail_of(log, end, sizeof(end));
            check_note("%-40s FAILED at %d PEs: %s; the end of %s:\n%s", names[i], np, what, log, end);
            nf += (size_t)snprintf(failed + nf, sizeof(failed) - nf > 0 ? sizeof(failed) - nf : 0, " %s", names[i]);
        }
    }
    check_note("%d of %d OpenSHMEM unit tests passed at %d PEs%s%s", passed, count, np,
               passed < count ? "; failed:" : "", failed);
    CHECK_MSG(passed == count, "%d of %d OpenSHMEM unit tests failed at %d PEs:%s", count - passed, count, np, failed);
    /* Keep the scratch folder only where something failed (its logs). */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    if (system(cmd) != 0) check_note("could not remove %s", tmp);
    return 0;
}
