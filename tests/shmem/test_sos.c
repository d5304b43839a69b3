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

#include "common/check.h"
#include "common/programs.h"

#define PER_PROGRAM_S 180

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv)
{
    const char *filter = argc > 2 ? argv[2] : "";
    char tmp[] = "/tmp/shoal-sos-XXXXXX", cmd[32768], log[8192], bin[4096], where[3000], unit[4096], inc[4096];
    char *names[128], what[192];
    prog_tally_t tally = {0};
    int np = argc > 1 ? atoi(argv[1]) : 2, count = 0;
    DIR *d;
    struct dirent *e;

    CHECK_MSG(np >= 1, "usage: test_sos NP [name filter]");
    if (!prog_folder("SHOAL_SOS_TESTS", "../shared/sos-tests", "unit",
                     "the OpenSHMEM community's unit tests (tests-sos's unit/ and include/)", where, sizeof(where)))
        return TEST_SKIP;
    snprintf(unit, sizeof(unit), "%s/unit", where);
    snprintf(inc, sizeof(inc), "%s/include", where);
    CHECK(mkdtemp(tmp) != NULL);
    prog_install(tmp, bin, sizeof(bin));

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
        char exe[4096], why[2048];
        bool cxx = strstr(names[i], ".cpp") != NULL;
        int rc;

        snprintf(exe, sizeof(exe), "%s/%.*s", tmp, (int)(strcspn(names[i], ".")), names[i]);
        snprintf(log, sizeof(log), "%s.build.log", exe);
        snprintf(cmd, sizeof(cmd), "'%s/%s' -I'%s' '%s/%s' -o '%s'", bin, cxx ? "oshc++" : "oshcc", inc, unit, names[i],
                 exe);
        rc = prog_sh(cmd, log);
        if (rc == 0) {
            snprintf(log, sizeof(log), "%s.run.log", exe);
            snprintf(cmd, sizeof(cmd), "MPIEXEC_TIMEOUT=%d timeout %d '%s/oshrun' -n %d '%s'", PER_PROGRAM_S,
                     PER_PROGRAM_S + 10, bin, np, exe);
            rc = prog_sh(cmd, log);
            snprintf(why, sizeof(why), "exited with %d", rc);
        } else
            snprintf(why, sizeof(why), "did not build (%d)", rc);
        snprintf(what, sizeof(what), "%s at %d PEs", names[i], np);
        if (rc == 0)
            prog_pass(&tally, what);
        else
            prog_fail(&tally, what, why, log);
    }
    snprintf(what, sizeof(what), "OpenSHMEM unit tests at %d PEs", np);
    CHECK_MSG(prog_done(&tally, what, tmp), "%d of %d OpenSHMEM unit tests failed at %d PEs:%s", count - tally.passed,
              count, np, tally.failed);
    return 0;
}
