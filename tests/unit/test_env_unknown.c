/*
 * SHOAL_* variables shoal does not know: shoal_config_init reports each on
 * stderr, once per process, with the nearest real name when one is close
 * (a slip of the keyboard), and says nothing under SHOAL_WARN_UNKNOWN_ENV=n;
 * an invalid SHOAL_WARN_UNKNOWN_ENV is an invalid variable like any other.
 * Each case runs in a child process of its own (the report is once per
 * process), its stderr captured in a file.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/check.h"
#include "shoal.h"

/* Run shoal_config_init twice in a child with these variables set ("NAME=value"
 * strings, NULL-terminated); its stderr, and cfg.env_error, into out. */
static void child_report(const char *const *vars, char *out, size_t len)
{
    char path[] = "/tmp/shoal-env-unknown-XXXXXX";
    int fd = mkstemp(path), status;
    pid_t pid;
    FILE *f;
    size_t n;

    CHECK(fd >= 0);
    pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        shoal_config_t cfg;
        if (dup2(fd, 2) < 0) _exit(3);
        for (const char *const *v = vars; *v; v++) {
            char *copy = strdup(*v), *eq = strchr(copy, '=');
            *eq = '\0';
            if (setenv(copy, eq + 1, 1) != 0) _exit(4);
        }
        shoal_config_init(&cfg);
        shoal_config_init(&cfg); /* once per process */
        fprintf(stderr, "env_error=[%s]\n", cfg.env_error);
        fflush(stderr);
        _exit(0);
    }
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    f = fdopen(fd, "r");
    CHECK(f != NULL && fseek(f, 0, SEEK_SET) == 0);
    n = fread(out, 1, len - 1, f);
    out[n] = '\0';
    fclose(f);
    unlink(path);
}

static int count(const char *text, const char *needle)
{
    int k = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) k++;
    return k;
}

int main(void)
{
    static const char *const slips[] = {"SHOAL_WARN_UNKNOWN_ENV=y",
                                        "SHOAL_HEAPSIZE=1g",
                                        "SHOAL_TIMOUT=3",
                                        "SHOAL_heap_kind=host",
                                        "SHOAL_ZZZZZZZZZZZZ=1",
                                        "SHOAL_HEAP_SIZE=64m",
                                        "SHOAL_PLUGIN_HEAP_SIZE=32m",
                                        "SHOAL_MY_LIB_TIMEOUT=9",
                                        "SHOAL_PLUGIN_DEBUG=INFO",
                                        NULL};
    static const char *const quiet[] = {"SHOAL_WARN_UNKNOWN_ENV=n", "SHOAL_HEAPSIZE=1g", NULL};
    static const char *const bad[] = {"SHOAL_WARN_UNKNOWN_ENV=maybe", NULL};
    char out[8192];

    /* The harness's own variables would be reported: this test names its own. */
    unsetenv("SHOAL_TEST_SRCDIR");
    unsetenv("SHOAL_TEST_BUILDDIR");
    unsetenv("SHOAL_TEST_MPIEXEC");
    unsetenv("SHOAL_WARN_UNKNOWN_ENV");

    child_report(slips, out, sizeof(out));
    CHECK_CONTAINS(out, "shoal: SHOAL_HEAPSIZE is not a shoal variable and is ignored; did you mean SHOAL_HEAP_SIZE?");
    CHECK_CONTAINS(out, "shoal: SHOAL_TIMOUT is not a shoal variable and is ignored; did you mean SHOAL_TIMEOUT?");
    /* Names are case-sensitive, as getenv is; the suggestion ignores case. */
    CHECK_CONTAINS(out, "SHOAL_heap_kind is not a shoal variable and is ignored; did you mean SHOAL_HEAP_KIND?");
    CHECK_CONTAINS(out, "SHOAL_ZZZZZZZZZZZZ is not a shoal variable and is ignored (shoal_env_print lists them;");
    CHECK_CONTAINS(out, "SHOAL_WARN_UNKNOWN_ENV=n silences this");
    /* A named instance's variables (shoal_config_init_named) are real; one
     * that no instance may set by name (SHOAL_DEBUG is the process's) is not. */
    CHECK_CONTAINS(out, "SHOAL_PLUGIN_DEBUG is not a shoal variable");
    CHECK_EQ_INT(count(out, "is not a shoal variable"), 5); /* once each, real ones never */
    CHECK_CONTAINS(out, "env_error=[]");

    child_report(quiet, out, sizeof(out));
    CHECK_EQ_INT(count(out, "is not a shoal variable"), 0);
    CHECK_CONTAINS(out, "env_error=[]");

    child_report(bad, out, sizeof(out));
    CHECK_CONTAINS(out, "env_error=[SHOAL_WARN_UNKNOWN_ENV=maybe is invalid: expected y or n (yes/no, 1/0, on/off, "
                        "true/false)]");
    check_note("unknown SHOAL_* variables: reported once with the nearest name, silenced by n");
    return 0;
}
