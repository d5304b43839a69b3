/*
 * SHOAL_DEBUG and SHOAL_DEBUG_SUBSYS. Run with SHOAL_DEBUG=TRACE and
 * SHOAL_DEBUG_SUBSYS=RMA,ENV: each PE captures its own stderr, puts one
 * int into its right neighbour, reads it back after a barrier, and checks
 * that the log names the variables set, the put (bytes, offset, target,
 * transport, PE prefix), and nothing of the subsystems not selected
 * (INIT, HEAP, COLL), though init, an allocation and barriers ran. A
 * second instance numbers the PEs backwards: its put's line carries its
 * own PE number, the first instance's put its own.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh, sh2;
    MPI_Comm rev;
    long *rbox, lme;
    FILE *cap;
    char *log, host[64];
    const char *tp = NULL;
    int *box, me, npes, right, left, got = -1, saved;
    long n;

    MPI_Init(&argc, &argv);
    CHECK_MSG(getenv("SHOAL_DEBUG") && strcmp(getenv("SHOAL_DEBUG"), "TRACE") == 0 && getenv("SHOAL_DEBUG_SUBSYS") &&
                  strcmp(getenv("SHOAL_DEBUG_SUBSYS"), "RMA,ENV") == 0,
              "run with SHOAL_DEBUG=TRACE SHOAL_DEBUG_SUBSYS=RMA,ENV");
    cap = tmpfile();
    CHECK(cap != NULL);
    fflush(stderr);
    saved = dup(STDERR_FILENO);
    CHECK(saved >= 0 && dup2(fileno(cap), STDERR_FILENO) == STDERR_FILENO);

    test_config(&cfg, 1 << 20);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, npes - me, &rev) == MPI_SUCCESS);
    CHECK_OK(shoal_init(rev, &cfg, &sh2), NULL);
    CHECK_EQ_INT(shoal_my_pe(sh2), npes - 1 - me);
    rbox = shoal_calloc(sh2, 1, sizeof(long));
    CHECK_NONNULL(rbox, sh2);
    right = (me + 1) % npes;
    lme = me;
    left = (me + npes - 1) % npes;
    box = shoal_calloc(sh, 4, sizeof(int));
    CHECK_NONNULL(box, sh);
    CHECK_OK(shoal_long_put(sh2, rbox, &lme, 1, shoal_my_pe(sh2)), sh2);
    CHECK_OK(shoal_int_put(sh, box + 2, &me, 1, right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_int_get(sh, &got, box + 2, 1, me), sh);
    CHECK_OK(shoal_pe_transport(sh, right, &tp), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, box), sh);
    CHECK_OK(shoal_free(sh2, rbox), sh2);
    CHECK_OK(shoal_finalize(sh2), NULL);
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Comm_free(&rev);

    fflush(stderr);
    CHECK(dup2(saved, STDERR_FILENO) == STDERR_FILENO);
    close(saved);
    CHECK(fseek(cap, 0, SEEK_END) == 0 && (n = ftell(cap)) > 0 && fseek(cap, 0, SEEK_SET) == 0);
    log = malloc((size_t)n + 1);
    CHECK(log != NULL && fread(log, 1, (size_t)n, cap) == (size_t)n);
    log[n] = '\0';
    fclose(cap);

    CHECK_EQ_INT(got, left);
    CHECK_MSG(gethostname(host, sizeof(host)) == 0, "gethostname failed");
    host[sizeof(host) - 1] = '\0';
    CHECK_CONTAINS(log, host);
    CHECK_CONTAINS(log, "shoal INFO SHOAL_DEBUG=TRACE (default unset)");
    CHECK_CONTAINS(log, "shoal INFO SHOAL_DEBUG_SUBSYS=RMA,ENV (default ALL)");
    /* The offset is within the heap, not of the allocation: only its tail is
     * known here, so check the line up to the offset and after it. */
    {
        const char *line;
        char head[128], tail[96];
        snprintf(head, sizeof(head), ":%d shoal TRACE shoal_int_put: 4 bytes to heap offset ", me);
        snprintf(tail, sizeof(tail), " of PE %d over %s\n", right, tp);
        line = strstr(log, head);
        CHECK_MSG(line != NULL, "no '%s' in the log:\n%s", head, log);
        CHECK_MSG(strstr(line, tail) != NULL && strstr(line, tail) < strchr(line, '\n') + 1,
                  "the put line lacks '%s':\n%s", tail, log);
    }
    CHECK_CONTAINS(log, "shoal TRACE shoal_int_get: 4 bytes from heap offset ");
    {
        char line[96];
        snprintf(line, sizeof(line), ":%d shoal TRACE shoal_long_put: 8 bytes to heap offset ", npes - 1 - me);
        CHECK_MSG(strstr(log, line) != NULL, "no '%s' in the log:\n%s", line, log);
    }
    /* Subsystems not selected stay silent. */
    CHECK_MSG(strstr(log, "collective") == NULL, "COLL logged though not selected:\n%s", log);
    CHECK_MSG(strstr(log, "instance ready") == NULL, "INIT logged though not selected:\n%s", log);
    CHECK_MSG(strstr(log, "-> offset") == NULL, "HEAP logged though not selected:\n%s", log);
    free(log);
    if (me == 0) check_note("log of %d PEs: selected subsystems only, put lines name target and transport", npes);
    MPI_Finalize();
    return 0;
}
