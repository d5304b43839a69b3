/*
 * The tree is formatted as .clang-format says: .ci/format-check lists every
 * C, CUDA and header file clang-format would change and exits 1 if there is
 * one. Skipped (77) where clang-format is not installed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/check.h"

int main(void)
{
    const char *src = getenv("SHOAL_TEST_SRCDIR");
    static char out[1 << 16];
    char cmd[2048];
    size_t n = 0, got;
    int status;
    FILE *p;

    if (src == NULL) {
        printf("SHOAL_TEST_SRCDIR is needed: skipped\n");
        return TEST_SKIP;
    }
    snprintf(cmd, sizeof(cmd), "%s/.ci/format-check 2>&1", src);
    p = popen(cmd, "r");
    CHECK_MSG(p != NULL, "popen(%s)", cmd);
    while (n + 1 < sizeof(out) && (got = fread(out + n, 1, sizeof(out) - n - 1, p)) > 0) n += got;
    out[n] = '\0';
    status = pclose(p);
    printf("%s", out);
    if (strstr(out, "check skipped") != NULL) return TEST_SKIP;
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the tree is not formatted as .clang-format says:\n%s",
              out);
    CHECK_CONTAINS(out, "formatted as .clang-format says");
    return 0;
}
