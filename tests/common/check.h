/*
 * Assertion helpers for shoal's tests.
 *
 * A failed check prints file:line, the PE (the MPI_COMM_WORLD rank, or -1
 * outside MPI), the expression and the values, then ends the whole run: with
 * MPI_Abort(MPI_COMM_WORLD, 1) while MPI is up, so that mpiexec does not wait
 * on ranks blocked in a collective, else with exit(1).
 *
 * Tests return 0 on success; TEST_SKIP (77) marks a test skipped.
 *
 * Include as "common/check.h" from tests/<name>.c and link tests/common/check.c.
 */
#ifndef SHOAL_TEST_CHECK_H
#define SHOAL_TEST_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shoal.h"

#define TEST_SKIP 77

#if defined(__GNUC__)
#define CHECK__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define CHECK__NORETURN __attribute__((noreturn))
#else
#define CHECK__PRINTF(f, a)
#define CHECK__NORETURN
#endif

/* Report a failed check and end the run. */
CHECK__NORETURN void check__fail(const char *file, int line, const char *fmt, ...) CHECK__PRINTF(3, 4);
/* Print a progress note, prefixed with the PE ("[pe 1] ..."), to stdout. */
void check_note(const char *fmt, ...) CHECK__PRINTF(1, 2);
/* The PE that messages name: the MPI_COMM_WORLD rank, -1 outside MPI. */
int check_pe(void);
/* This PE's verdict for tests/verdicts.sh (tests/TESTS: LAUNCHER=), which
 * judges a run by its PEs' verdicts instead of mpiexec's exit status: when
 * SHOAL_TEST_VERDICTS names a folder, write <folder>/pe<rank> containing
 * "pass" (a failure to write it is a failed check); else do nothing. Call it
 * last, once every check of this PE has passed: a PE that fails a check,
 * dies or hangs never writes one. */
void check_verdict_pass(void);
/* Case-insensitive strstr; NULL haystack never matches. */
const char *check_strcasestr(const char *haystack, const char *needle);

/* The condition must hold. */
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) check__fail(__FILE__, __LINE__, "CHECK(%s) failed", #cond);                                       \
    } while (0)

/* The condition must hold; on failure print a printf-style explanation. */
#define CHECK_MSG(cond, ...)                                                                                           \
    do {                                                                                                               \
        if (!(cond)) check__fail_msg(__FILE__, __LINE__, #cond, __VA_ARGS__);                                          \
    } while (0)
CHECK__NORETURN void check__fail_msg(const char *file, int line, const char *expr, const char *fmt, ...)
    CHECK__PRINTF(4, 5);

#define CHECK_EQ_INT(a, b)                                                                                             \
    do {                                                                                                               \
        long long check__a = (long long)(a), check__b = (long long)(b);                                                \
        if (check__a != check__b)                                                                                      \
            check__fail(__FILE__, __LINE__, "CHECK_EQ_INT(%s, %s) failed: %lld != %lld", #a, #b, check__a, check__b);  \
    } while (0)

#define CHECK_EQ_SIZE(a, b)                                                                                            \
    do {                                                                                                               \
        unsigned long long check__a = (unsigned long long)(a);                                                         \
        unsigned long long check__b = (unsigned long long)(b);                                                         \
        if (check__a != check__b)                                                                                      \
            check__fail(__FILE__, __LINE__, "CHECK_EQ_SIZE(%s, %s) failed: %llu != %llu", #a, #b, check__a, check__b); \
    } while (0)

#define CHECK_EQ_PTR(a, b)                                                                                             \
    do {                                                                                                               \
        const void *check__a = (a), *check__b = (b);                                                                   \
        if (check__a != check__b)                                                                                      \
            check__fail(__FILE__, __LINE__, "CHECK_EQ_PTR(%s, %s) failed: %p != %p", #a, #b, check__a, check__b);      \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                                                             \
    do {                                                                                                               \
        const char *check__a = (a), *check__b = (b);                                                                   \
        if (!check__a || !check__b || strcmp(check__a, check__b) != 0)                                                 \
            check__fail(__FILE__, __LINE__, "CHECK_EQ_STR(%s, %s) failed: \"%s\" != \"%s\"", #a, #b,                   \
                        check__a ? check__a : "(null)", check__b ? check__b : "(null)");                               \
    } while (0)

/* haystack must contain needle, ignoring case. */
#define CHECK_CONTAINS(haystack, needle)                                                                               \
    do {                                                                                                               \
        const char *check__h = (haystack), *check__n = (needle);                                                       \
        if (!check_strcasestr(check__h, check__n))                                                                     \
            check__fail(__FILE__, __LINE__, "CHECK_CONTAINS(%s, %s) failed: \"%s\" does not contain \"%s\"",           \
                        #haystack, #needle, check__h ? check__h : "(null)", check__n);                                 \
    } while (0)

/* n bytes at got must equal those at expected; names the first difference. */
#define CHECK_MEM_EQ(got, expected, n) check__mem_eq(__FILE__, __LINE__, #got, (got), (expected), (n))
void check__mem_eq(const char *file, int line, const char *what, const void *got, const void *expected, size_t n);

/* Offset of the first byte where a and b differ, or -1 if they are equal. */
long long check_first_diff(const void *a, const void *b, size_t n);

/* n bytes at p must all be byte. */
#define CHECK_MEM_FILLED(p, byte, n) check__mem_filled(__FILE__, __LINE__, #p, (p), (byte), (n))
void check__mem_filled(const char *file, int line, const char *what, const void *p, int byte, size_t n);

/* A shoal call must succeed; prints the status and sh's last error. */
#define CHECK_OK(expr, sh)                                                                                             \
    do {                                                                                                               \
        int check__s = (expr);                                                                                         \
        if (check__s != SHOAL_SUCCESS) check__fail_status(__FILE__, __LINE__, #expr, check__s, SHOAL_SUCCESS, (sh));   \
    } while (0)

/* A shoal call must return exactly `expected`. */
#define CHECK_STATUS(expr, expected, sh)                                                                               \
    do {                                                                                                               \
        int check__s = (expr);                                                                                         \
        if (check__s != (expected)) check__fail_status(__FILE__, __LINE__, #expr, check__s, (expected), (sh));         \
    } while (0)
CHECK__NORETURN void check__fail_status(const char *file, int line, const char *expr, int got, int expected,
                                        shoal_t sh);

/* A shoal call must return exactly `status`, and sh's last error must
 * contain text (ignoring case). */
#define CHECK_ERR(expr, status, sh, text)                                                                              \
    do {                                                                                                               \
        CHECK_STATUS((expr), (status), (sh));                                                                          \
        CHECK_CONTAINS(shoal_last_error(sh), (text));                                                                  \
    } while (0)

/* An allocation must succeed; prints sh's last error. */
#define CHECK_NONNULL(ptr, sh)                                                                                         \
    do {                                                                                                               \
        if ((ptr) == NULL)                                                                                             \
            check__fail(__FILE__, __LINE__, "%s is NULL; last error: \"%s\"", #ptr, shoal_last_error(sh));             \
    } while (0)

/* ---- helpers shared by the MPI tests ---- */

/* shoal_config_init with a heap of heap_size bytes (0: keep the default);
 * fails the test if the environment was invalid. */
void test_config(shoal_config_t *cfg, size_t heap_size);

/* shoal_init over MPI_COMM_WORLD, which must succeed; 0 (and nothing
 * created) where a GPU heap was asked for (SHOAL_HEAP_KIND=gpu) and there is
 * no GPU: the caller then finalizes MPI and returns TEST_SKIP. */
int test_init_or_skip(const shoal_config_t *cfg, shoal_t *sh_p);
/* This process's rank as its launcher says before MPI_Init (hydra's
 * PMI_RANK, Open MPI's OMPI_COMM_WORLD_RANK), or NULL outside a launcher. */
const char *test_launcher_rank(void);

/* Does this instance's heap live in host memory (directly loadable)? */
int test_heap_is_host(shoal_t sh);

/* Does this PE reach some PE (itself included) over the transport named
 * name ("mpi_rma", "shm", ...), as shoal_pe_transport says? Local: no
 * other PE takes part. */
int test_any_pe_over(shoal_t sh, const char *name);

/* For the "timeout" mode of a test, run with SHOAL_TIMEOUT=1:
 * test_config with a heap of heap_size bytes, whose timeout must be that
 * 1 s, then test_init_or_skip (0: skipped, nothing created). */
int test_init_timeout_or_skip(size_t heap_size, shoal_t *sh_p);

/* Does msg name a comparison, as its C operator (op, "<=") or its
 * SHOAL_CMP_ name (name, "CMP_LE"), ignoring case? */
int test_names_cmp(const char *msg, const char *op, const char *name);

/* Copy between a host buffer and this PE's own heap. Host heap: memcpy; GPU
 * heap: a get/put to this PE itself. Tests use these to set up and check the
 * local heap, so they run on both heap kinds. */
void test_heap_read(shoal_t sh, void *dst, const void *heap_src, size_t n);
void test_heap_write(shoal_t sh, void *heap_dst, const void *src, size_t n);
void test_heap_fill(shoal_t sh, void *heap_dst, int byte, size_t n);
/* The instance works end to end (collective): a fresh calloc, a long put
 * to the right neighbour, a barrier, the left neighbour's value (base +
 * its PE) read back, the block freed. */
void test_ring_works(shoal_t sh, long base);

/* node_of[pe] for the n PEs of comm as the runtime should number them:
 * blocks of node_size ranks when node_size > 0, else the shared-memory nodes
 * (MPI_Comm_split_type), numbered in order of their lowest rank. */
void test_expected_nodes(MPI_Comm comm, int node_size, int *node_of);

/* Deterministic pseudo-random numbers (splitmix64) so that a receiver can
 * recompute what a sender wrote. */
uint64_t test_mix64(uint64_t x);
typedef struct test_rng {
    uint64_t state;
} test_rng_t;
void test_rng_seed(test_rng_t *rng, uint64_t a, uint64_t b, uint64_t c);
uint64_t test_rng_next(test_rng_t *rng);
/* Uniform in [0, bound) (bound > 0). */
uint64_t test_rng_below(test_rng_t *rng, uint64_t bound);
/* Bytes [start, start + n) of the pattern named by (a, b, c): byte j of a
 * pattern depends only on (a, b, c, j), so any sub-range can be recomputed. */
void test_pattern(void *dst, size_t start, size_t n, uint64_t a, uint64_t b, uint64_t c);

#endif /* SHOAL_TEST_CHECK_H */
