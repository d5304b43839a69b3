/*
 * NVSHMEM programs written for NVIDIA's library, built and run on shoal
 * unchanged (api/nvshmem/): read from the folder SHOAL_NVSHMEM_PROGRAMS
 * names, ../shared/nvshmem-programs from the source tree by default; the
 * test skips (exit 77), naming the folder, where it is absent. As their
 * users would: shoal installed into a scratch prefix (build/install.sh with
 * DESTDIR), each program compiled with the installed oshcc (which finds the
 * installed nvshmem.h beside shoal.h and links libshoal) and run with the
 * installed oshrun. What counts as passing:
 *   primer    the NVSHMEM primer's program (primer.c): at 2 PEs it exits 0
 *             and PE 1 prints "PE 1 received: 10.0 20.0 30.0 40.0 " once;
 *             it reads its symmetric buffer from the host, so it runs on
 *             the host heap (SHOAL_HEAP_KIND=host, GPU or not)
 *
 *   test_nvshmem_programs primer
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"
#include "common/programs.h"

#define BUILD_S 300
#define RUN_S 120

static char tmp[64], bin[1024], progs[1024];
static prog_tally_t tally;

static void run_primer(void)
{
    char cmd[4096], log[1200], exe[1200];
    char *out;
    const char *want = "PE 1 received: 10.0 20.0 30.0 40.0 \n";

    snprintf(exe, sizeof(exe), "%s/primer", tmp);
    snprintf(log, sizeof(log), "%s/primer-build.log", tmp);
    snprintf(cmd, sizeof(cmd), "timeout %d %s/oshcc -o %s %s/primer.c", BUILD_S, bin, exe, progs);
    if (prog_sh(cmd, log) != 0) {
        prog_fail(&tally, "primer", "did not build", log);
        return;
    }
    snprintf(log, sizeof(log), "%s/primer-run.log", tmp);
    snprintf(cmd, sizeof(cmd), "SHOAL_HEAP_KIND=host timeout %d %s/oshrun -n 2 %s", RUN_S, bin, exe);
    if (prog_sh(cmd, log) != 0) {
        prog_fail(&tally, "primer", "exited nonzero at 2 PEs", log);
        return;
    }
    out = prog_read(log);
    if (out == NULL || strstr(out, want) == NULL || strstr(strstr(out, want) + 1, want) != NULL)
        prog_fail(&tally, "primer", "did not print \"PE 1 received: 10.0 20.0 30.0 40.0 \" exactly once", log);
    else
        prog_pass(&tally, "primer (2 PEs)");
    free(out);
}

int main(int argc, char **argv)
{
    const char *suite = argc > 1 ? argv[1] : "";

    CHECK_MSG(argc == 2 && strcmp(suite, "primer") == 0, "usage: test_nvshmem_programs primer");
    if (!prog_folder("SHOAL_NVSHMEM_PROGRAMS", "../shared/nvshmem-programs", "", "the NVSHMEM programs", progs,
                     sizeof(progs)))
        return TEST_SKIP;
    snprintf(tmp, sizeof(tmp), "/tmp/shoal-nvshmem-XXXXXX");
    CHECK(mkdtemp(tmp) != NULL);
    prog_install(tmp, bin, sizeof(bin));
    check_note("%s from %s, built with %s/oshcc, in %s", suite, progs, bin, tmp);
    run_primer();
    CHECK_MSG(prog_done(&tally, "NVSHMEM programs", tmp), "%d of %d NVSHMEM programs failed:%s",
              tally.count - tally.passed, tally.count, tally.failed);
    return 0;
}
