/*
 * Implicit finalization and the OpenSHMEM environment variables of the
 * OpenSHMEM layer. Run without arguments, the program launches itself
 * under mpiexec ($SHOAL_TEST_MPIEXEC; skipped without it) as OpenSHMEM
 * programs at 1 and 2 PEs, and judges their output and exit status:
 *
 * 1. A program that starts with start_pes, or with shmem_init, puts into
 *    its right neighbour's global with no quiet or barrier, and returns
 *    from main without shmem_finalize: it exits 0 and every PE is finalized
 *    at exit (an exit handler of the program, registered before start_pes
 *    and so run after the library's, finds MPI finalized, and the put of
 *    the left neighbour landed: implicit finalization completed it). A
 *    program that calls shmem_finalize does the same, finalized once.
 * 2. SHMEM_VERSION and SMA_VERSION print the version once (PE 0 only);
 *    SMA_INFO prints the variables, what they do and their values, and
 *    shoal's; SMA_SYMMETRIC_SIZE sizes the heap, and SHMEM_SYMMETRIC_SIZE
 *    wins where both are set; an invalid SMA_SYMMETRIC_SIZE is refused,
 *    naming that variable; SMA_DEBUG turns on shoal's INFO log.
 *
 *   test_shmem_finalize child start_pes|init|finalize|heap   (one PE's part)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/check.h"
#include "shmem.h"

/* ------------------------------------------------------- the child program */

static int child_pe = -1;
static int mark; /* the left neighbour's put, which finalization completes */

/* Registered before the library's handler: runs after it. */
static void child_exit_report(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    printf("[exit] pe %d mpi_finalized=%d mark=%d\n", child_pe, fin, mark);
    fflush(stdout);
}

static int child(const char *mode)
{
    int n;

    atexit(child_exit_report);
    if (strcmp(mode, "start_pes") == 0)
        start_pes(0);
    else
        shmem_init();
    child_pe = shmem_my_pe();
    n = shmem_n_pes();
    if (strcmp(mode, "heap") == 0) {
        size_t used = 0, avail = 0;
        CHECK_OK(shoal_heap_usage(shmem_shoal(), &used, &avail), shmem_shoal());
        printf("[heap] pe %d bytes %zu\n", child_pe, used + avail);
    }
    shmem_int_p(&mark, 100 + child_pe, (child_pe + 1) % n); /* no quiet, no barrier */
    if (strcmp(mode, "finalize") == 0 || strcmp(mode, "heap") == 0) shmem_finalize();
    return 0;
}

/* ------------------------------------------------------------- the driver */

static char self[4096], mpiexec[4096];

/* Run np PEs of this program as child mode, with env (VAR=VALUE ...) and
 * none of the OpenSHMEM variables inherited; output (stdout and stderr) in
 * out. Its exit status. */
static int launch(int np, const char *env, const char *mode, char *out, size_t len)
{
    char cmd[16384];
    FILE *p;
    size_t n = 0, got;
    int st;

    snprintf(cmd, sizeof(cmd),
             "env -u SHMEM_VERSION -u SHMEM_INFO -u SHMEM_SYMMETRIC_SIZE -u SHMEM_DEBUG -u SMA_VERSION -u SMA_INFO "
             "-u SMA_SYMMETRIC_SIZE -u SMA_DEBUG -u SHOAL_DEBUG MPIEXEC_TIMEOUT=60 %s '%s' -n %d '%s' child %s 2>&1",
             env, mpiexec, np, self, mode);
    p = popen(cmd, "r");
    CHECK_MSG(p != NULL, "popen(%s)", cmd);
    while (n + 1 < len && (got = fread(out + n, 1, len - n - 1, p)) > 0) n += got;
    out[n] = '\0';
    st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static int count(const char *hay, const char *needle)
{
    int c = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle)) c++;
    return c;
}

static void check_finalized(int np, const char *mode)
{
    static char out[1 << 16];
    int rc = launch(np, "", mode, out, sizeof(out));

    CHECK_MSG(rc == 0, "%d PEs, %s, exit status %d:\n%s", np, mode, rc, out);
    for (int pe = 0; pe < np; pe++) {
        char want[128];
        snprintf(want, sizeof(want), "[exit] pe %d mpi_finalized=1 mark=%d\n", pe, 100 + (pe + np - 1) % np);
        CHECK_MSG(count(out, want) == 1, "%d PEs, %s: want \"%s\" once in:\n%s", np, mode, want, out);
    }
    CHECK_MSG(strstr(out, "on shoal") == NULL, "%d PEs, %s: a version printed unasked:\n%s", np, mode, out);
    check_note("%d PEs, %s: exit status 0, every PE finalized at exit, the last put landed", np, mode);
}

/* The heap size a 2-PE run reports with env; -1 where it failed (its output in out). */
static long long heap_bytes(const char *env, char *out, size_t len)
{
    unsigned long long b0 = 0, b1 = 0;
    const char *p0, *p1;
    if (launch(2, env, "heap", out, len) != 0) return -1;
    p0 = strstr(out, "[heap] pe 0 bytes ");
    p1 = strstr(out, "[heap] pe 1 bytes ");
    CHECK_MSG(p0 && p1 && sscanf(p0, "[heap] pe 0 bytes %llu", &b0) == 1 &&
                  sscanf(p1, "[heap] pe 1 bytes %llu", &b1) == 1,
              "%s: no heap sizes in:\n%s", env, out);
    CHECK_MSG(b0 == b1, "%s: PEs report heaps of %llu and %llu bytes", env, b0, b1);
    return (long long)b0;
}

static void check_env(void)
{
    static char out[1 << 18];
    const char *version = "shoal OpenSHMEM: OpenSHMEM 1.5 on shoal ";
    long long b;

    CHECK_EQ_INT(launch(2, "SMA_VERSION=1", "finalize", out, sizeof(out)), 0);
    CHECK_MSG(count(out, version) == 1, "SMA_VERSION: want the version once (PE 0) in:\n%s", out);
    CHECK_EQ_INT(launch(2, "SHMEM_VERSION=yes", "finalize", out, sizeof(out)), 0);
    CHECK_MSG(count(out, version) == 1, "SHMEM_VERSION: want the version once (PE 0) in:\n%s", out);

    CHECK_EQ_INT(launch(2, "SMA_INFO=1 SMA_SYMMETRIC_SIZE=40m SHMEM_DEBUG=", "finalize", out, sizeof(out)), 0);
    CHECK_MSG(count(out, "OpenSHMEM environment variables") == 1, "SMA_INFO: want the list once in:\n%s", out);
    CHECK_MSG(count(out, version) == 1, "SMA_INFO: want the version once in:\n%s", out);
    CHECK_CONTAINS(out, "now SMA_INFO=1\n");
    CHECK_CONTAINS(out, "now SMA_SYMMETRIC_SIZE=40m\n");
    CHECK_CONTAINS(out, "now SHMEM_DEBUG=\n");
    CHECK_CONTAINS(out, "now unset (nor SMA_VERSION)\n");
    CHECK_CONTAINS(out, "wins over SHOAL_HEAP_SIZE");
    CHECK_CONTAINS(out, "SHOAL_TIMEOUT"); /* shoal's own variables follow */

    b = heap_bytes("SMA_SYMMETRIC_SIZE=48m", out, sizeof(out));
    CHECK_MSG(b >= 48ll << 20 && b < 49ll << 20, "SMA_SYMMETRIC_SIZE=48m: heap of %lld bytes:\n%s", b, out);
    b = heap_bytes("SMA_SYMMETRIC_SIZE=48m SHMEM_SYMMETRIC_SIZE=40m", out, sizeof(out));
    CHECK_MSG(b >= 40ll << 20 && b < 41ll << 20, "SHMEM_SYMMETRIC_SIZE=40m over SMA_: heap of %lld bytes:\n%s", b, out);
    CHECK_MSG(launch(2, "SMA_SYMMETRIC_SIZE=12q", "finalize", out, sizeof(out)) != 0,
              "SMA_SYMMETRIC_SIZE=12q accepted:\n%s", out);
    CHECK_CONTAINS(out, "SMA_SYMMETRIC_SIZE=12q is not a size");

    CHECK_EQ_INT(launch(1, "SMA_DEBUG=1", "finalize", out, sizeof(out)), 0);
    CHECK_CONTAINS(out, "INFO");
    CHECK_EQ_INT(launch(1, "", "finalize", out, sizeof(out)), 0);
    CHECK_MSG(strstr(out, "INFO") == NULL, "shoal's INFO log without SMA_DEBUG:\n%s", out);
    check_note("SHMEM_VERSION, SMA_VERSION, SMA_INFO, SMA_SYMMETRIC_SIZE (SHMEM_* wins), SMA_DEBUG");
}

int main(int argc, char **argv)
{
    const char *m = getenv("SHOAL_TEST_MPIEXEC");
    ssize_t n;

    if (argc == 3 && strcmp(argv[1], "child") == 0) return child(argv[2]);
    if (m == NULL || m[0] == '\0') {
        printf("SHOAL_TEST_MPIEXEC unset (ctest sets it): skipped\n");
        return TEST_SKIP;
    }
    snprintf(mpiexec, sizeof(mpiexec), "%s", m);
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    CHECK(n > 0);
    self[n] = '\0';
    for (int np = 1; np <= 2; np++) {
        check_finalized(np, "start_pes");
        check_finalized(np, "init");
        check_finalized(np, "finalize");
    }
    check_env();
    return 0;
}
