/*
 * Calls between the library's files and folders go one way: .ci/call-graph
 * reads the built objects of api/, runtime/ (every subsystem folder) and
 * topology/, lists which file calls which and which folder calls which,
 * and exits 1 naming any cycle between files or any call up its LAYERS
 * (api/shmem -> api -> runtime/core -> team -> ops -> transport -> heap ->
 * base; topology beside them). This test runs it and checks that it found
 * the files and folders, no cycle and no call against the layers, and that
 * the transports are reached only through their tables: no file outside
 * runtime/transport/ calls into one of them.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/check.h"

int main(void)
{
    const char *src = getenv("SHOAL_TEST_SRCDIR"), *bld = getenv("SHOAL_TEST_BUILDDIR");
    static char out[1 << 20];
    char cmd[4096], *line;
    size_t n = 0;
    int status, files = 0;
    FILE *p;

    if (src == NULL || bld == NULL) {
        printf("SHOAL_TEST_SRCDIR and SHOAL_TEST_BUILDDIR are needed: skipped\n");
        return TEST_SKIP;
    }
    snprintf(cmd, sizeof(cmd), "python3 %s/.ci/call-graph %s/obj/api %s/obj/runtime %s/obj/topology 2>&1", src, bld,
             bld, bld);
    p = popen(cmd, "r");
    CHECK_MSG(p != NULL, "popen(%s)", cmd);
    while (n + 1 < sizeof(out) && (status = (int)fread(out + n, 1, sizeof(out) - n - 1, p)) > 0) n += (size_t)status;
    out[n] = '\0';
    status = pclose(p);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed:\n%s", cmd, out);
    CHECK_CONTAINS(out, "cycles: none");
    CHECK_CONTAINS(out, "against the layers: none");
    /* The files and folders it saw, and what calls the transports' files. */
    CHECK_CONTAINS(out, "runtime/transport/transport.c ->");
    CHECK_CONTAINS(out, "runtime/ops/rma.c ->");
    CHECK_CONTAINS(out, "topology/policy.c ->");
    CHECK_CONTAINS(out, "\n  api -> ");
    CHECK_CONTAINS(out, "\n  runtime/core -> ");
    CHECK_CONTAINS(out, "\n  runtime/ops -> ");
    for (line = strtok(out, "\n"); line != NULL; line = strtok(NULL, "\n")) {
        const char *arrow = strstr(line, " -> ");
        if (arrow == NULL) continue;
        files++;
        if (strncmp(line, "runtime/transport/", 18) == 0) continue;
        /* transport.h's registry functions are the layer's entry points. */
        for (const char *c = strstr(arrow, "runtime/transport/"); c != NULL; c = strstr(c + 1, "runtime/transport/"))
            CHECK_MSG(strncmp(c, "runtime/transport/transport.c(", 30) == 0,
                      "a file outside runtime/transport/ calls into a transport directly: %s", line);
    }
    CHECK_MSG(files >= 30, "only %d files in the call graph", files);
    printf("%d files, no call cycle, no call up the layers, transports reached through their tables\n", files);
    return 0;
}
