/*
 * Errors are statuses, never exits: shoal_strerror names every status; a NULL
 * instance gives SHOAL_ERR_INVALID_INSTANCE everywhere; a PE out of range
 * gives SHOAL_ERR_PE and a message naming the call and the PE; addresses
 * outside the heap, ranges past its end and lengths that wrap give
 * SHOAL_ERR_OUT_OF_BOUNDS, consistently with shoal_addr_accessible; the
 * instance still works afterwards; shoal_version() == SHOAL_VERSION.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define HEAP (1u << 20)

static const struct {
    int status;
    const char *name;
    const char *desc;
} statuses[] = {
#define STATUS_ENTRY(name, value, desc) {SHOAL_##name, "SHOAL_" #name, desc},
    SHOAL_STATUS_MAP(STATUS_ENTRY)
#undef STATUS_ENTRY
};
enum { NSTATUS = sizeof(statuses) / sizeof(statuses[0]) };

static void test_strerror(void)
{
    for (int i = 0; i < NSTATUS; i++) {
        const char *s = shoal_strerror(statuses[i].status);
        CHECK_MSG(s != NULL && s[0] != '\0', "shoal_strerror(%d) is empty", statuses[i].status);
        CHECK_MSG(strstr(s, statuses[i].name) != NULL, "shoal_strerror(%d) = \"%s\" lacks \"%s\"", statuses[i].status,
                  s, statuses[i].name);
        CHECK_CONTAINS(s, statuses[i].desc);
        for (int j = 0; j < i; j++)
            CHECK_MSG(strcmp(s, shoal_strerror(statuses[j].status)) != 0,
                      "shoal_strerror(%d) == shoal_strerror(%d) = \"%s\"", statuses[i].status, statuses[j].status, s);
    }
    /* unknown values still give a string */
    CHECK(shoal_strerror(-999) != NULL && shoal_strerror(-999)[0] != '\0');
    CHECK(shoal_strerror(1) != NULL && shoal_strerror(1)[0] != '\0');
}

static void test_null_instance(void)
{
    int x = 0, y = 0;
    double d1 = 0, d2 = 0;
    size_t u, f;
    MPI_Comm c;
    const char *name;

    CHECK_STATUS(shoal_put(NULL, &x, &y, sizeof(int), 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_put");
    CHECK_STATUS(shoal_get(NULL, &x, &y, sizeof(int), 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_put_nbi(NULL, &x, &y, sizeof(int), 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_get_nbi(NULL, &x, &y, sizeof(int), 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_int_put(NULL, &x, &y, 1, 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_double_get(NULL, &d1, &d2, 1, 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_int_p(NULL, &x, 1, 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_int_g(NULL, &x, &y, 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_quiet(NULL), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_fence(NULL), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_barrier_all(NULL), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_sync_all(NULL), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_finalize(NULL), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_my_pe(NULL), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_n_pes(NULL), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_comm(NULL, &c), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_heap_kind(NULL), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_heap_usage(NULL, &u, &f), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_free(NULL, &x), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_pe_transport(NULL, 0, &name), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_pe_node(NULL, 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_pe_gpu_shared(NULL, 0), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_STATUS(shoal_pe_gpu_bus_id(NULL, 0, &name), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_EQ_PTR(shoal_malloc(NULL, 64), NULL);
    CHECK_EQ_PTR(shoal_calloc(NULL, 1, 64), NULL);
    CHECK_EQ_PTR(shoal_align(NULL, 64, 64), NULL);
    CHECK_EQ_PTR(shoal_ptr(NULL, &x, 0), NULL);
    CHECK_MSG(shoal_addr_accessible(NULL, &x, 0) <= 0, "shoal_addr_accessible(NULL, ...) says yes");
}

/* status must be SHOAL_ERR_PE and the message must name the call and the PE. */
static void check_pe_error(shoal_t sh, int status, const char *call, int pe)
{
    char pe_str[32];
    snprintf(pe_str, sizeof(pe_str), "%d", pe);
    CHECK_MSG(status == SHOAL_ERR_PE, "%s to pe %d returned %d (%s), expected SHOAL_ERR_PE", call, pe, status,
              shoal_strerror(status));
    CHECK_CONTAINS(shoal_last_error(sh), call);
    CHECK_CONTAINS(shoal_last_error(sh), pe_str);
}

static void test_bad_pe(shoal_t sh, int *buf)
{
    int npes = shoal_n_pes(sh), v = 7, tmp[4] = {0};
    const char *name = NULL;

    check_pe_error(sh, shoal_put(sh, buf, tmp, sizeof(tmp), npes + 1000), "shoal_put", npes + 1000);
    check_pe_error(sh, shoal_get(sh, tmp, buf, sizeof(tmp), -1), "shoal_get", -1);
    check_pe_error(sh, shoal_put_nbi(sh, buf, tmp, sizeof(tmp), npes), "shoal_put_nbi", npes);
    check_pe_error(sh, shoal_get_nbi(sh, tmp, buf, sizeof(tmp), npes + 7), "shoal_get_nbi", npes + 7);
    CHECK_STATUS(shoal_int_p(sh, buf, v, npes), SHOAL_ERR_PE, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_int_p");
    CHECK_STATUS(shoal_int_g(sh, &v, buf, -5), SHOAL_ERR_PE, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_int_g");
    CHECK_STATUS(shoal_long_put(sh, (long *)buf, (long *)tmp, 1, npes), SHOAL_ERR_PE, sh);
    CHECK_STATUS(shoal_pe_transport(sh, npes, &name), SHOAL_ERR_PE, sh);
    CHECK_STATUS(shoal_pe_node(sh, -1), SHOAL_ERR_PE, sh);
    CHECK_STATUS(shoal_pe_gpu_shared(sh, npes), SHOAL_ERR_PE, sh);
    CHECK_EQ_PTR(shoal_ptr(sh, buf, npes), NULL);
    CHECK_EQ_INT(v, 7); /* the failed g left its output alone */
}

static void test_out_of_bounds(shoal_t sh, char *p)
{
    int me = shoal_my_pe(sh), right = (me + 1) % shoal_n_pes(sh), stackvar = 0, v = 0, status;
    char *big = calloc(1, 2 * HEAP + 8);
    size_t lo = 0, hi = 4 * (size_t)HEAP; /* accessible at p + lo, not at p + hi */

    CHECK(big != NULL);
    /* destinations / remote sources outside the heap */
    CHECK_STATUS(shoal_put(sh, &stackvar, &v, sizeof(int), right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_put");
    CHECK_STATUS(shoal_put(sh, &stackvar, &v, sizeof(int), me), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_put_nbi(sh, big, &v, sizeof(int), right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_get(sh, &v, &stackvar, sizeof(int), right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_get");
    CHECK_STATUS(shoal_get_nbi(sh, &v, big, sizeof(int), right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_int_p(sh, &stackvar, 1, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_int_g(sh, &v, &stackvar, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_put(sh, NULL, &v, sizeof(int), right), SHOAL_ERR_OUT_OF_BOUNDS, sh);

    /* ranges that start inside the heap and run past its end, or wrap */
    CHECK_STATUS(shoal_put(sh, p, big, 2 * HEAP, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_get(sh, big, p, 2 * HEAP, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_put(sh, p, big, SIZE_MAX, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_get(sh, big, p, SIZE_MAX - 8, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    /* nelems * sizeof(int) overflows: either status, as long as nothing moves */
    status = shoal_int_put(sh, (int *)p, (int *)big, SIZE_MAX / 2, right);
    CHECK_MSG(status == SHOAL_ERR_OUT_OF_BOUNDS || status == SHOAL_ERR_INVALID_ARG,
              "shoal_int_put of SIZE_MAX / 2 elements returned %d (%s); last error: \"%s\"", status,
              shoal_strerror(status), shoal_last_error(sh));

    /* The heap's end, as shoal_addr_accessible reports it: a range that
     * crosses it by one byte, or starts right at it, is out of bounds. */
    CHECK(shoal_addr_accessible(sh, p, me) > 0);
    CHECK_MSG(shoal_addr_accessible(sh, p + hi, me) == 0,
              "%zu bytes past an allocation in a %u-byte heap is accessible", hi, HEAP);
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (shoal_addr_accessible(sh, p + mid, me) > 0)
            lo = mid;
        else
            hi = mid;
    }
    CHECK_MSG(lo >= 63 && lo < 2 * HEAP,
              "heap ends %zu bytes after a 64-byte allocation in a "
              "%u-byte heap",
              lo + 1, HEAP);
    CHECK_STATUS(shoal_get(sh, big, p + lo, 2, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_put(sh, p + lo, big, 2, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_get(sh, big, p + hi, 1, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_put(sh, p + hi, big, 1, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_get(sh, big, p, hi + 1, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);

    /* the whole allocation and its last byte are fine */
    CHECK_OK(shoal_get(sh, big, p, 64, right), sh);
    CHECK_OK(shoal_get(sh, big, p + 63, 1, right), sh);
    free(big);
}

/* After all those errors, real transfers still work. */
static void check_still_works(shoal_t sh, int *buf)
{
    int me = shoal_my_pe(sh), n = shoal_n_pes(sh), right = (me + 1) % n, left = (me + n - 1) % n;
    int vals[4] = {me + 1, me + 2, me + 3, me + 4}, got[4];

    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_put(sh, buf, vals, sizeof(vals), right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, got, buf, sizeof(got));
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(got[i], left + 1 + i);
    CHECK_OK(shoal_int_g(sh, &got[0], buf + 2, left), sh);
    CHECK_EQ_INT(got[0], (left + n - 1) % n + 3);
    CHECK_OK(shoal_barrier_all(sh), sh);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int *buf;

    MPI_Init(&argc, &argv);
    CHECK_EQ_INT(shoal_version(), SHOAL_VERSION);
    test_strerror();
    test_null_instance();

    test_config(&cfg, HEAP);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    buf = shoal_malloc(sh, 64);
    CHECK_NONNULL(buf, sh);
    CHECK_OK(shoal_barrier_all(sh), sh);

    test_bad_pe(sh, buf);
    test_out_of_bounds(sh, (char *)buf);
    check_still_works(sh, buf);

    CHECK_OK(shoal_free(sh, buf), sh);
    if (shoal_my_pe(sh) == 0) check_note("error statuses and messages passed on %d PEs", shoal_n_pes(sh));
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
