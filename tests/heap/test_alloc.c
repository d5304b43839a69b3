/*
 * The symmetric allocator on a 1 MiB heap: malloc/free/reuse, symmetric
 * offsets on every PE, calloc zeroes reused memory, shoal_align, heap usage
 * accounting, exhaustion (NULL + "exhausted", heap usable afterwards),
 * malloc(0), asymmetric sizes (SHOAL_ERR_NOT_SYMMETRIC: NULL on every PE, the
 * message names the sizes), shoal_free of non-heap pointers.
 */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define HEAP (1u << 20)

static shoal_t sh;
static int me, npes;
static size_t used0, free0;

static void usage(size_t *used_p, size_t *free_p) { CHECK_OK(shoal_heap_usage(sh, used_p, free_p), sh); }

/* This PE's value of x must equal PE 0's. */
static void check_same_everywhere(long long x, const char *what)
{
    long long x0 = x;
    MPI_Bcast(&x0, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    CHECK_MSG(x == x0, "%s: %lld here, %lld on pe 0", what, x, x0);
}

static void test_zero_sizes(void)
{
    CHECK_EQ_STR(shoal_last_error(sh), "");
    CHECK_EQ_PTR(shoal_malloc(sh, 0), NULL);
    CHECK_EQ_PTR(shoal_calloc(sh, 0, 8), NULL);
    CHECK_EQ_PTR(shoal_calloc(sh, 8, 0), NULL);
    CHECK_MSG(shoal_last_error(sh)[0] == '\0', "size 0 set an error: \"%s\"", shoal_last_error(sh));
}

static void test_usage_and_reuse(void)
{
    size_t used, freeb;
    char *p, *q, *a, *b, *c;

    usage(&used0, &free0);
    CHECK_MSG(used0 + free0 <= HEAP && free0 >= HEAP / 2, "fresh 1 MiB heap: used %zu + free %zu", used0, free0);

    p = shoal_malloc(sh, 1000);
    CHECK_NONNULL(p, sh);
    CHECK(shoal_addr_accessible(sh, p, me) > 0);
    usage(&used, &freeb);
    CHECK_MSG(used >= used0 + 1000 && freeb + 1000 <= free0,
              "after malloc(1000): used %zu (was %zu), free %zu (was %zu)", used, used0, freeb, free0);
    CHECK_OK(shoal_free(sh, p), sh);
    usage(&used, &freeb);
    CHECK_EQ_SIZE(used, used0);
    CHECK_EQ_SIZE(freeb, free0);

    /* free then malloc of the same size gives the same address back */
    p = shoal_malloc(sh, 4096);
    CHECK_NONNULL(p, sh);
    CHECK_OK(shoal_free(sh, p), sh);
    q = shoal_malloc(sh, 4096);
    CHECK_EQ_PTR(q, p);
    CHECK_OK(shoal_free(sh, q), sh);

    /* distinct, non-overlapping, aligned for any type, same offsets on every PE */
    a = shoal_malloc(sh, 100);
    b = shoal_malloc(sh, 5000);
    c = shoal_malloc(sh, 33);
    CHECK_NONNULL(a, sh);
    CHECK_NONNULL(b, sh);
    CHECK_NONNULL(c, sh);
    CHECK_MSG(b >= a + 100 || a >= b + 5000, "a=%p (100 B) and b=%p (5000 B) overlap", (void *)a, (void *)b);
    CHECK_MSG(c >= a + 100 || a >= c + 33, "a=%p (100 B) and c=%p (33 B) overlap", (void *)a, (void *)c);
    CHECK_MSG(c >= b + 5000 || b >= c + 33, "b=%p (5000 B) and c=%p (33 B) overlap", (void *)b, (void *)c);
    CHECK_MSG((uintptr_t)a % alignof(max_align_t) == 0 && (uintptr_t)b % alignof(max_align_t) == 0 &&
                  (uintptr_t)c % alignof(max_align_t) == 0,
              "shoal_malloc not aligned to %zu: %p %p %p", alignof(max_align_t), (void *)a, (void *)b, (void *)c);
    check_same_everywhere((long long)(b - a), "offset of 2nd allocation from 1st");
    check_same_everywhere((long long)(c - a), "offset of 3rd allocation from 1st");
    CHECK_OK(shoal_free(sh, b), sh); /* out of order */
    CHECK_OK(shoal_free(sh, a), sh);
    CHECK_OK(shoal_free(sh, c), sh);
    usage(&used, &freeb);
    CHECK_EQ_SIZE(used, used0);
    CHECK_EQ_SIZE(freeb, free0);
}

static void test_calloc(void)
{
    enum { N = 64 * 1024 };
    unsigned char *dirty = shoal_malloc(sh, N), *z, *got = malloc(N);

    CHECK_NONNULL(dirty, sh);
    CHECK(got != NULL);
    test_heap_fill(sh, dirty, 0xFF, N);
    CHECK_OK(shoal_free(sh, dirty), sh);
    z = shoal_calloc(sh, 1024, 64); /* most likely the same, dirty, block */
    CHECK_NONNULL(z, sh);
    test_heap_read(sh, got, z, N);
    CHECK_MEM_FILLED(got, 0, N);
    CHECK_OK(shoal_free(sh, z), sh);
    CHECK_EQ_PTR(shoal_calloc(sh, SIZE_MAX / 2, 4), NULL); /* count * size overflows */
    CHECK_MSG(shoal_last_error(sh)[0] != '\0', "overflowing calloc returned NULL but set no error");
    CHECK_MSG(shoal_last_status(sh) < 0, "overflowing calloc: status %d", shoal_last_status(sh));
    free(got);
}

static void test_align(void)
{
    static const size_t aligns[] = {1, 8, 16, 64, 256, 4096, 65536};
    enum { NA = sizeof(aligns) / sizeof(aligns[0]) };
    char *p[NA];
    size_t used, freeb;

    for (int i = 0; i < NA; i++) {
        p[i] = shoal_align(sh, aligns[i], 100 + (size_t)i);
        CHECK_NONNULL(p[i], sh);
        CHECK_MSG((uintptr_t)p[i] % aligns[i] == 0, "shoal_align(%zu) = %p", aligns[i], (void *)p[i]);
        if (i > 0) check_same_everywhere((long long)(p[i] - p[0]), "offset of an aligned allocation");
    }
    for (int i = NA - 1; i >= 0; i--) CHECK_OK(shoal_free(sh, p[i]), sh);
    usage(&used, &freeb);
    CHECK_EQ_SIZE(used, used0);
    CHECK_EQ_SIZE(freeb, free0);

    CHECK_EQ_PTR(shoal_align(sh, 3, 100), NULL); /* not a power of two */
    CHECK_MSG(shoal_last_error(sh)[0] != '\0', "shoal_align(3, 100) returned NULL but set no error");
}

/* The heap still moves data: my right neighbour gets my values. */
static void check_heap_usable(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes, vals[8], got[8];
    int *x = shoal_malloc(sh, sizeof(vals));

    CHECK_NONNULL(x, sh);
    for (int i = 0; i < 8; i++) vals[i] = me * 10 + i;
    CHECK_OK(shoal_put(sh, x, vals, sizeof(vals), right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, got, x, sizeof(got));
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(got[i], left * 10 + i);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, x), sh);
}

static void test_exhaustion(void)
{
    enum { BLOCK = 64 * 1024, MAXB = HEAP / BLOCK + 1 };
    void *blocks[MAXB];
    int nb = 0;
    size_t used, freeb;
    char *big;

    CHECK_EQ_PTR(shoal_malloc(sh, 2 * HEAP), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "exhausted");
    CHECK_EQ_INT(shoal_last_status(sh), SHOAL_ERR_HEAP_EXHAUSTED);
    /* This test sets cfg.heap_size itself: the message names that field. */
    CHECK_CONTAINS(shoal_last_error(sh), "raise the heap_size field of shoal_config_t (set by the program");
    usage(&used, &freeb);
    CHECK_EQ_SIZE(used, used0);
    CHECK_EQ_SIZE(freeb, free0);
    CHECK_EQ_PTR(shoal_malloc(sh, SIZE_MAX), NULL);
    CHECK_MSG(shoal_last_error(sh)[0] != '\0', "malloc(SIZE_MAX) returned NULL but set no error");

    for (;;) {
        void *b = shoal_malloc(sh, BLOCK);
        if (!b) break;
        CHECK_MSG(nb < MAXB, "%d blocks of %d bytes from a %u-byte heap", nb + 1, BLOCK, HEAP);
        blocks[nb++] = b;
    }
    CHECK_CONTAINS(shoal_last_error(sh), "exhausted");
    CHECK_MSG(nb >= (int)(free0 / BLOCK) - 1 && nb >= 1, "only %d blocks of %d bytes fit into %zu free bytes", nb,
              BLOCK, free0);
    check_same_everywhere(nb, "number of blocks until exhaustion");
    usage(&used, &freeb);
    CHECK_MSG(freeb < 2 * BLOCK, "malloc(%d) failed with %zu bytes free", BLOCK, freeb);
    for (int i = 0; i < nb; i += 2) /* free in a scattered order */
        CHECK_OK(shoal_free(sh, blocks[i]), sh);
    for (int i = 1; i < nb; i += 2) CHECK_OK(shoal_free(sh, blocks[i]), sh);
    usage(&used, &freeb);
    CHECK_EQ_SIZE(used, used0);
    CHECK_EQ_SIZE(freeb, free0);

    /* the freed blocks merged back: one allocation of most of the heap fits */
    big = shoal_malloc(sh, free0 * 3 / 4);
    CHECK_NONNULL(big, sh);
    CHECK_OK(shoal_free(sh, big), sh);
    check_heap_usable();
}

static void test_asymmetric(void)
{
    size_t mine = me == 0 ? 1024 : 2048, used, freeb;
    void *p;
    int null_everywhere = 0, is_null;
    const char *err;

    if (npes < 2) return;
    p = shoal_malloc(sh, mine);
    is_null = p == NULL;
    MPI_Allreduce(&is_null, &null_everywhere, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    CHECK_MSG(null_everywhere, "asymmetric malloc (pe 0: 1024, others: 2048) returned %p here", p);
    err = shoal_last_error(sh);
    CHECK_CONTAINS(err, "1024");
    CHECK_CONTAINS(err, "2048");
    CHECK_CONTAINS(err, "shoal_malloc");
    usage(&used, &freeb);
    CHECK_EQ_SIZE(used, used0);
    CHECK_EQ_SIZE(freeb, free0);
    check_heap_usable();
}

static void test_free_errors(void)
{
    int stackvar = 0;
    void *hp = malloc(64);
    char *p = shoal_malloc(sh, 256);

    CHECK_NONNULL(p, sh);
    CHECK_STATUS(shoal_free(sh, &stackvar), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_free(sh, hp), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_free(sh, p + 8), SHOAL_ERR_INVALID_ARG, sh); /* inside, not a start */
    CHECK_OK(shoal_free(sh, NULL), sh);
    CHECK_OK(shoal_free(sh, p), sh);
    free(hp);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    size_t used, freeb;

    MPI_Init(&argc, &argv);
    test_config(&cfg, HEAP);
    cfg.check = SHOAL_CHECK_BASIC; /* symmetric size checks on */
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);

    test_zero_sizes();
    test_usage_and_reuse();
    test_calloc();
    test_align();
    test_exhaustion();
    test_asymmetric();
    test_free_errors();

    usage(&used, &freeb);
    CHECK_EQ_SIZE(used, used0);
    CHECK_EQ_SIZE(freeb, free0);
    if (me == 0) check_note("allocator passed on %d PEs (used %zu, free %zu of %u)", npes, used0, free0, HEAP);
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
