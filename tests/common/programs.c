/* Helpers for tests that build and run programs outside shoal with its
 * installed wrappers: see programs.h. */
#include "programs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "check.h"

/* How much of a failed program's log its report shows. */
#define PROG_TAIL_BYTES 1500
#define PROG_FIRST_ERRORS 6

/* How long the last prog_sh took, in seconds, for the note of a pass. */
static double prog__last_s;

static double prog__now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int prog_sh(const char *cmd, const char *log)
{
    size_t n = strlen(cmd) + strlen(log) + 32;
    char *full = malloc(n);
    double t0 = prog__now();
    int st;

    CHECK(full != NULL);
    snprintf(full, n, "(%s) > '%s' 2>&1", cmd, log);
    st = system(full);
    free(full);
    prog__last_s = prog__now() - t0;
    if (st == -1) return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

void prog_tail(const char *log, char *out, size_t len)
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

char *prog_read(const char *log)
{
    FILE *f = fopen(log, "r");
    char *text = NULL;
    long n;

    if (f == NULL) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)n + 1)) != NULL)
        text[fread(text, 1, (size_t)n, f)] = '\0';
    fclose(f);
    return text;
}

bool prog_folder(const char *var, const char *rel, const char *inside, const char *what, char *where, size_t len)
{
    const char *dir = getenv(var), *src = getenv("SHOAL_TEST_SRCDIR");
    char path[8192];
    struct stat st;

    if (dir != NULL && dir[0] != '\0')
        snprintf(where, len, "%s", dir);
    else
        snprintf(where, len, "%s/%s", src != NULL ? src : ".", rel);
    snprintf(path, sizeof(path), "%s/%s", where, inside != NULL ? inside : "");
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) return true;
    printf("%s are not at %s (no folder %s): skipped; set %s to the folder that holds them\n", what, where, path, var);
    return false;
}

void prog_install(const char *tmp, char *bin, size_t len)
{
    const char *src = getenv("SHOAL_TEST_SRCDIR"), *build = getenv("SHOAL_TEST_BUILDDIR");
    char cmd[8192], log[4096];
    FILE *p;

    CHECK_MSG(src != NULL && build != NULL, "SHOAL_TEST_SRCDIR and SHOAL_TEST_BUILDDIR must be set (ctest sets them)");
    snprintf(log, sizeof(log), "%s/install.log", tmp);
    snprintf(cmd, sizeof(cmd), "cd '%s' && DESTDIR='%s/root' sh '%s/install.sh'", src, tmp, build);
    CHECK_MSG(prog_sh(cmd, log) == 0, "installing shoal into %s/root failed (%s)", tmp, log);
    snprintf(cmd, sizeof(cmd), "dirname \"$(find '%s/root' -path '*/bin/oshcc' | head -1)\"", tmp);
    bin[0] = '\0';
    p = popen(cmd, "r");
    CHECK(p != NULL);
    if (fgets(bin, (int)len, p) == NULL) bin[0] = '\0';
    pclose(p);
    bin[strcspn(bin, "\n")] = '\0';
    CHECK_MSG(bin[0] == '/', "no installed oshcc under %s/root", tmp);
}

void prog_pass(prog_tally_t *t, const char *name)
{
    t->count++;
    t->passed++;
    check_note("%-44s passed (%.1f s)", name, prog__last_s);
}

/* Up to PROG_FIRST_ERRORS lines of text that report an error (a compiler's
 * "error:", the linker's "undefined reference"), with how many there are:
 * a build's end often shows only its last consequence. */
static void prog_first_errors(const char *text, char *out, size_t len)
{
    size_t used = 0;
    int shown = 0, total = 0;

    out[0] = '\0';
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t n = end != NULL ? (size_t)(end - line) : strlen(line);
        char one[4096];

        snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) - 1 ? n : sizeof(one) - 1), line);
        if (strstr(one, "error:") != NULL || strstr(one, "undefined reference") != NULL) {
            total++;
            if (shown < PROG_FIRST_ERRORS && used < len) {
                used += (size_t)snprintf(out + used, len - used, "  %.300s\n", one);
                shown++;
            }
        }
        line = end != NULL ? end + 1 : NULL;
    }
    if (total > shown && used < len) snprintf(out + used, len - used, "  (%d more)\n", total - shown);
}

void prog_fail(prog_tally_t *t, const char *name, const char *why, const char *log)
{
    char end[PROG_TAIL_BYTES + 1], first[4096] = "";
    char *text = log != NULL ? prog_read(log) : NULL;

    t->count++;
    if (t->len < sizeof(t->failed))
        t->len +=
            (size_t)snprintf(t->failed + t->len, sizeof(t->failed) - t->len, "%s%s", t->len > 0 ? ", " : " ", name);
    if (log == NULL) {
        check_note("%-44s FAILED: %s", name, why);
        return;
    }
    if (text != NULL) prog_first_errors(text, first, sizeof(first));
    free(text);
    prog_tail(log, end, sizeof(end));
    check_note("%-44s FAILED: %s\n%s%sthe end of %s:\n%s", name, why, first[0] ? "first errors:\n" : "", first, log,
               end);
}

bool prog_done(const prog_tally_t *t, const char *what, const char *tmp)
{
    char cmd[4200];

    check_note("%d of %d %s passed%s%s", t->passed, t->count, what, t->passed < t->count ? "; failed:" : "",
               t->passed < t->count ? t->failed : "");
    if (t->passed < t->count) {
        check_note("the builds and logs are in %s", tmp);
        return false;
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
    if (system(cmd) != 0) check_note("could not remove %s", tmp);
    return true;
}

bool prog_gpu_present(void)
{
    return system("{ nvidia-smi -L || /usr/local/nvidia/bin/nvidia-smi -L; } 2>/dev/null | grep -q '^GPU '") == 0;
}
