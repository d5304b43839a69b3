/* Assertion helpers for shoal's tests: see check.h. */
#include "check.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static int check__mpi_up(void)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    return init && !fin;
}

int check_pe(void)
{
    int rank = -1;
    if (check__mpi_up()) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* End the run: every rank, so that no peer waits forever in a collective. */
CHECK__NORETURN static void check__die(void)
{
    fflush(stdout);
    fflush(stderr);
    if (check__mpi_up()) MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* Print the report as one write, so that reports of several ranks do not
 * interleave, then end the run. */
CHECK__NORETURN static void check__report(const char *file, int line, const char *expr, const char *fmt, va_list ap)
{
    char msg[2048];
    int len;

    len = snprintf(msg, sizeof(msg), "%s:%d: pe %d: ", file, line, check_pe());
    if (expr && len >= 0 && (size_t)len < sizeof(msg))
        len += snprintf(msg + len, sizeof(msg) - (size_t)len, "CHECK(%s) failed: ", expr);
    if (len >= 0 && (size_t)len < sizeof(msg)) len += vsnprintf(msg + len, sizeof(msg) - (size_t)len, fmt, ap);
    if (len < 0 || (size_t)len >= sizeof(msg) - 1) len = (int)sizeof(msg) - 2;
    msg[len] = '\n';
    msg[len + 1] = '\0';
    fflush(stdout);
    fputs(msg, stderr);
    check__die();
}

void check__fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    check__report(file, line, NULL, fmt, ap);
}

void check__fail_msg(const char *file, int line, const char *expr, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    check__report(file, line, expr, fmt, ap);
}

void check_note(const char *fmt, ...)
{
    va_list ap;
    printf("[pe %d] ", check_pe());
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

void check_verdict_pass(void)
{
    static const char verdict[] = "pass\n";
    const char *dir = getenv("SHOAL_TEST_VERDICTS");
    char path[4096];
    size_t done = 0;
    int fd, len, pe = check_pe();

    if (!dir || !*dir) return; /* not run under tests/verdicts.sh: mpiexec's status is the verdict */
    CHECK_MSG(pe >= 0, "a verdict needs MPI to be up (the PE names its file)");
    len = snprintf(path, sizeof(path), "%s/pe%d", dir, pe);
    CHECK_MSG(len > 0 && (size_t)len < sizeof(path), "verdict path too long: %s/pe%d", dir, pe);
    /* O_EXCL: a PE reports once, into a folder made for this run. */
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    CHECK_MSG(fd >= 0, "open(%s): %s", path, strerror(errno));
    while (done < sizeof(verdict) - 1) {
        ssize_t n = write(fd, verdict + done, sizeof(verdict) - 1 - done);
        if (n < 0 && errno == EINTR) continue;
        CHECK_MSG(n > 0, "write(%s): %s", path, n < 0 ? strerror(errno) : "wrote nothing");
        done += (size_t)n;
    }
    CHECK_MSG(close(fd) == 0, "close(%s): %s", path, strerror(errno));
}

const char *check_strcasestr(const char *haystack, const char *needle)
{
    size_t n;
    if (!haystack || !needle) return NULL;
    n = strlen(needle);
    for (const char *h = haystack;; h++) {
        size_t i = 0;
        while (i < n && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i])) i++;
        if (i == n) return h;
        if (!*h) return NULL;
    }
}

void check__fail_status(const char *file, int line, const char *expr, int got, int expected, shoal_t sh)
{
    check__fail(file, line, "%s returned %d (%s), expected %d (%s); last error: \"%s\"", expr, got, shoal_strerror(got),
                expected, shoal_strerror(expected), shoal_last_error(sh));
}

void check__mem_eq(const char *file, int line, const char *what, const void *got, const void *expected, size_t n)
{
    const unsigned char *g = got, *e = expected;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++) {
        if (g[i] != e[i]) {
            if (bad == 0) first = i;
            bad++;
        }
    }
    if (bad)
        check__fail(file, line, "%s: %zu of %zu bytes differ, first at offset %zu: got 0x%02x expected 0x%02x", what,
                    bad, n, first, g[first], e[first]);
}

long long check_first_diff(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    if (memcmp(a, b, n) == 0) return -1;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i]) return (long long)i;
    return -1;
}

void check__mem_filled(const char *file, int line, const char *what, const void *p, int byte, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++) {
        if (c[i] != (unsigned char)byte)
            check__fail(file, line, "%s: byte %zu of %zu is 0x%02x, expected 0x%02x", what, i, n, c[i],
                        (unsigned char)byte);
    }
}

void test_config(shoal_config_t *cfg, size_t heap_size)
{
    shoal_config_init(cfg);
    CHECK_MSG(cfg->env_error[0] == '\0', "environment: %s", cfg->env_error);
    if (heap_size) cfg->heap_size = heap_size;
}

int test_init_or_skip(const shoal_config_t *cfg, shoal_t *sh_p)
{
    int rc = shoal_init(MPI_COMM_WORLD, cfg, sh_p);
    if (rc == SHOAL_ERR_NO_DEVICE && cfg->heap_kind == SHOAL_HEAP_GPU) {
        printf("no GPU for the GPU heap asked for: skipped\n");
        return 0;
    }
    CHECK_OK(rc, NULL);
    return 1;
}

int test_heap_is_host(shoal_t sh)
{
    int kind = shoal_heap_kind(sh);
    CHECK_MSG(kind == SHOAL_HEAP_HOST || kind == SHOAL_HEAP_GPU, "shoal_heap_kind returned %d", kind);
    return kind == SHOAL_HEAP_HOST;
}

int test_any_pe_over(shoal_t sh, const char *name)
{
    int n = shoal_n_pes(sh);
    for (int pe = 0; pe < n; pe++) {
        const char *tp = NULL;
        CHECK_OK(shoal_pe_transport(sh, pe, &tp), sh);
        if (strcmp(tp, name) == 0) return 1;
    }
    return 0;
}

int test_init_timeout_or_skip(size_t heap_size, shoal_t *sh_p)
{
    shoal_config_t cfg;

    test_config(&cfg, heap_size);
    CHECK_MSG(cfg.timeout == 1, "run with SHOAL_TIMEOUT=1 (timeout is %g)", cfg.timeout);
    return test_init_or_skip(&cfg, sh_p);
}

int test_names_cmp(const char *msg, const char *op, const char *name)
{
    return check_strcasestr(msg, op) != NULL || check_strcasestr(msg, name) != NULL;
}

void test_heap_read(shoal_t sh, void *dst, const void *heap_src, size_t n)
{
    if (test_heap_is_host(sh))
        memcpy(dst, heap_src, n);
    else
        CHECK_OK(shoal_get(sh, dst, heap_src, n, shoal_my_pe(sh)), sh);
}

void test_heap_write(shoal_t sh, void *heap_dst, const void *src, size_t n)
{
    if (test_heap_is_host(sh)) {
        memcpy(heap_dst, src, n);
    } else {
        CHECK_OK(shoal_put(sh, heap_dst, src, n, shoal_my_pe(sh)), sh);
        CHECK_OK(shoal_quiet(sh), sh);
    }
}

void test_ring_works(shoal_t sh, long base)
{
    int me = shoal_my_pe(sh), npes = shoal_n_pes(sh);
    long *box = shoal_calloc(sh, 1, sizeof(long)), got = -1;

    CHECK_NONNULL(box, sh);
    CHECK_OK(shoal_long_p(sh, box, base + me, (me + 1) % npes), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_long_g(sh, &got, box, me), sh);
    CHECK_MSG(got == base + (me + npes - 1) % npes, "PE %d holds %ld, expected %ld from its left neighbour", me, got,
              base + (me + npes - 1) % npes);
    CHECK_OK(shoal_free(sh, box), sh);
}

void test_heap_fill(shoal_t sh, void *heap_dst, int byte, size_t n)
{
    void *tmp;
    if (test_heap_is_host(sh)) {
        memset(heap_dst, byte, n);
        return;
    }
    tmp = malloc(n ? n : 1);
    CHECK(tmp != NULL);
    memset(tmp, byte, n);
    test_heap_write(sh, heap_dst, tmp, n);
    free(tmp);
}

void test_expected_nodes(MPI_Comm comm, int node_size, int *node_of)
{
    int rank, size, leader, *leaders;
    MPI_Comm node;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (node_size > 0) {
        for (int pe = 0; pe < size; pe++) node_of[pe] = pe / node_size;
        return;
    }
    /* Real nodes: each rank learns the lowest rank of its node; nodes are
     * numbered by that rank, ascending. */
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    leader = rank;
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    leaders = malloc(sizeof(int) * (size_t)size);
    CHECK(leaders != NULL);
    MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, comm);
    for (int pe = 0; pe < size; pe++) {
        int index = 0;
        for (int q = 0; q < size; q++) /* count distinct leaders below mine */
            if (leaders[q] == q && q < leaders[pe]) index++;
        node_of[pe] = index;
    }
    free(leaders);
}

uint64_t test_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

void test_rng_seed(test_rng_t *rng, uint64_t a, uint64_t b, uint64_t c)
{
    rng->state = test_mix64(test_mix64(test_mix64(a) ^ b) ^ c);
}

uint64_t test_rng_next(test_rng_t *rng)
{
    rng->state += 0x9e3779b97f4a7c15ULL;
    return test_mix64(rng->state);
}

uint64_t test_rng_below(test_rng_t *rng, uint64_t bound) { return test_rng_next(rng) % bound; }

void test_pattern(void *dst, size_t start, size_t n, uint64_t a, uint64_t b, uint64_t c)
{
    unsigned char *d = dst;
    uint64_t seed = test_mix64(test_mix64(test_mix64(a) ^ b) ^ c);
    size_t j = start, end = start + n;

    while (j < end) {
        uint64_t word = test_mix64(seed ^ (uint64_t)(j / 8));
        size_t k = j % 8;
        for (; k < 8 && j < end; k++, j++) *d++ = (unsigned char)(word >> (8 * k));
    }
}

const char *test_launcher_rank(void)
{
    static const char *const vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i]) != NULL) return getenv(vars[i]);
    return NULL;
}
