/*
 * Bad input that tests/core/test_errors.c and tests/core/test_init_errors.c do not
 * cover, each checked for its status and its message:
 *   RMA: zero sizes (success, nothing moves, even at a bad address), NULL
 *   local buffers, heap addresses outside any allocation, ranges past an
 *   allocation's end, SIZE_MAX bytes and SIZE_MAX elements, source and
 *   destination overlapping on this PE (put and get);
 *   allocation: shoal_malloc(SIZE_MAX), calloc overflow, bad alignments,
 *   shoal_free of interior, never-allocated and already-freed pointers;
 *   queries with PEs out of range and NULL outputs;
 *   a corrupt handle, and every call on a finalized one (the tombstone:
 *   SHOAL_ERR_INVALID_INSTANCE, "instance was finalized", the call named),
 *   finalizing twice;
 *   the environment: each SHOAL_* variable with an invalid value makes
 *   shoal_init (with a NULL config, which reads the environment) fail with
 *   SHOAL_ERR_ENV naming the variable; invalid config fields.
 * The instance keeps working between the mistakes.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define HEAP (1u << 20)

static int me, npes, right;

static void test_rma(shoal_t sh, char *p)
{
    char local[256], stackvar[8];
    int status;

    memset(local, 0x11, sizeof(local));
    /* zero bytes: success, wherever they point */
    CHECK_OK(shoal_put(sh, p, local, 0, right), sh);
    CHECK_OK(shoal_get(sh, local, p, 0, right), sh);
    CHECK_OK(shoal_put(sh, stackvar, local, 0, right), sh);
    CHECK_OK(shoal_put_nbi(sh, NULL, NULL, 0, right), sh);
    CHECK_OK(shoal_int_get(sh, NULL, NULL, 0, right), sh);
    /* but the PE is still checked */
    CHECK_ERR(shoal_put(sh, p, local, 0, npes), SHOAL_ERR_PE, sh, "out of range");

    CHECK_ERR(shoal_put(sh, p, NULL, 8, right), SHOAL_ERR_INVALID_ARG, sh, "source buffer is NULL");
    CHECK_ERR(shoal_get(sh, NULL, p, 8, right), SHOAL_ERR_INVALID_ARG, sh, "destination buffer is NULL");
    CHECK_ERR(shoal_get(sh, local, NULL, 8, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "not in the symmetric heap");

    /* in the heap, but in no allocation: past the 256-byte block */
    CHECK_ERR(shoal_put(sh, p + 4096, local, 8, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "not inside a live allocation");
    /* starts inside, runs past the block's end */
    CHECK_ERR(shoal_put(sh, p + 200, local, 100, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "past the end of their allocation");
    CHECK_CONTAINS(shoal_last_error(sh), "run 44 bytes past");
    CHECK_ERR(shoal_get_nbi(sh, local, p + 255, 2, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "past the end");
    CHECK_OK(shoal_get(sh, local, p + 255, 1, right), sh);
    /* SIZE_MAX bytes: past the heap; SIZE_MAX elements: the byte count overflows */
    CHECK_ERR(shoal_put(sh, p, local, SIZE_MAX, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "past the end of the symmetric heap");
    CHECK_ERR(shoal_get(sh, local, p + 8, SIZE_MAX - 4, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "symmetric heap");
    CHECK_ERR(shoal_double_put(sh, (double *)p, (double *)local, SIZE_MAX, right), SHOAL_ERR_INVALID_ARG, sh,
              "elements overflow");
    CHECK_ERR(shoal_uint64_get_nbi(sh, (uint64_t *)local, (uint64_t *)p, SIZE_MAX / 4, right), SHOAL_ERR_INVALID_ARG,
              sh, "shoal_uint64_get_nbi");

    /* source and destination overlap on this PE */
    CHECK_ERR(shoal_put(sh, p + 8, p, 16, me), SHOAL_ERR_INVALID_ARG, sh, "overlap");
    CHECK_ERR(shoal_get(sh, p, p + 4, 16, me), SHOAL_ERR_INVALID_ARG, sh, "overlap");
    CHECK_OK(shoal_put(sh, p + 16, p, 16, me), sh); /* adjacent is fine */
    status = shoal_put(sh, p + 64, p + 64, 1, me);
    CHECK_STATUS(status, SHOAL_ERR_INVALID_ARG, sh);
    /* ... or with the target's bytes mapped here (a node peer's copy) */
    {
        char *mapped = shoal_ptr(sh, p, right);
        if (mapped != NULL && right != me) {
            CHECK_ERR(shoal_put(sh, p + 4, mapped, 16, right), SHOAL_ERR_INVALID_ARG, sh, "overlap");
            CHECK_CONTAINS(shoal_last_error(sh), "mapped here by shoal_ptr");
            CHECK_ERR(shoal_get(sh, mapped + 8, p, 16, right), SHOAL_ERR_INVALID_ARG, sh, "overlap");
            CHECK_OK(shoal_put(sh, p + 16, mapped, 16, right), sh); /* adjacent is fine */
        }
    }
}

static void test_alloc(shoal_t sh)
{
    char *q;
    int stackvar;

    CHECK_EQ_PTR(shoal_malloc(sh, SIZE_MAX), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "exhausted");
    CHECK_CONTAINS(shoal_last_error(sh), "18446744073709551615 bytes asked");
    CHECK_EQ_PTR(shoal_malloc(sh, SIZE_MAX - 10), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "exhausted");
    CHECK_EQ_PTR(shoal_calloc(sh, SIZE_MAX, 2), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "overflows");
    CHECK_EQ_PTR(shoal_align(sh, 0, 64), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "not a power of two");
    CHECK_EQ_PTR(shoal_align(sh, (size_t)16 << 20, 64), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "not a power of two up to");

    /* The bounds are the bytes asked for, not the allocator's rounding. */
    q = shoal_malloc(sh, 10);
    CHECK_NONNULL(q, sh);
    {
        char bytes[16] = "0123456789abcde";
        CHECK_OK(shoal_put(sh, q, bytes, 10, right), sh);
        CHECK_ERR(shoal_put(sh, q, bytes, 11, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "run 1 bytes past the end");
        CHECK_CONTAINS(shoal_last_error(sh), ", 10 bytes; target PE");
        CHECK_ERR(shoal_get(sh, bytes, q + 10, 1, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "not inside a live allocation");
        CHECK(shoal_ptr(sh, q + 9, me) == q + 9);
        CHECK_EQ_PTR(shoal_ptr(sh, q + 10, me), NULL);
        CHECK_CONTAINS(shoal_last_error(sh), "not inside a live allocation");
    }
    CHECK_OK(shoal_free(sh, q), sh);

    q = shoal_malloc(sh, 128);
    CHECK_NONNULL(q, sh);
    CHECK_ERR(shoal_free(sh, q + 1), SHOAL_ERR_INVALID_ARG, sh, "was not returned by shoal_malloc");
    CHECK_ERR(shoal_free(sh, &stackvar), SHOAL_ERR_INVALID_ARG, sh, "was not returned by shoal_malloc");
    CHECK_OK(shoal_free(sh, q), sh);
    CHECK_ERR(shoal_free(sh, q), SHOAL_ERR_INVALID_ARG, sh, "or was already freed");
    CHECK_OK(shoal_free(sh, NULL), sh);
}

static void test_queries(shoal_t sh, char *p)
{
    CHECK_ERR(shoal_addr_accessible(sh, p, npes), SHOAL_ERR_PE, sh, "shoal_addr_accessible");
    CHECK_ERR(shoal_pe_node(sh, npes + 5), SHOAL_ERR_PE, sh, "shoal_pe_node");
    CHECK_ERR(shoal_pe_gpu_shared(sh, -1), SHOAL_ERR_PE, sh, "shoal_pe_gpu_shared");
    for (int pe = 0; pe < npes; pe++) {
        /* a host heap shares no GPU; a PE never shares with itself */
        int k = shoal_pe_gpu_shared(sh, pe);
        CHECK_MSG(k == SHOAL_GPU_SEPARATE || (shoal_heap_kind(sh) == SHOAL_HEAP_GPU && pe != me &&
                                              (k == SHOAL_GPU_SHARED_MPS || k == SHOAL_GPU_SHARED)),
                  "shoal_pe_gpu_shared(%d) = %d", pe, k);
    }
    {
        /* A host heap names no GPU; a GPU heap names this PE's own, and
         * that of every PE of its node, but none of another node. */
        const char *bus = NULL;
        CHECK_ERR(shoal_pe_gpu_bus_id(sh, npes, &bus), SHOAL_ERR_PE, sh, "shoal_pe_gpu_bus_id");
        CHECK_EQ_STR(bus, "");
        CHECK_ERR(shoal_pe_gpu_bus_id(sh, 0, NULL), SHOAL_ERR_INVALID_ARG, sh, "bus_id_p is NULL");
        for (int pe = 0; pe < npes; pe++) {
            bus = NULL;
            CHECK_OK(shoal_pe_gpu_bus_id(sh, pe, &bus), sh);
            CHECK_MSG(bus != NULL, "shoal_pe_gpu_bus_id(%d) left NULL", pe);
            if (shoal_heap_kind(sh) != SHOAL_HEAP_GPU || shoal_pe_node(sh, pe) != shoal_pe_node(sh, me))
                CHECK_EQ_STR(bus, "");
            else if (pe == me)
                CHECK_MSG(bus[0] != '\0', "a GPU heap without a GPU bus id");
        }
    }
    CHECK_ERR(shoal_pe_transport(sh, 0, NULL), SHOAL_ERR_INVALID_ARG, sh, "name_p is NULL");
    CHECK_ERR(shoal_comm(sh, NULL), SHOAL_ERR_INVALID_ARG, sh, "comm_p is NULL");
    CHECK_EQ_PTR(shoal_ptr(sh, NULL, me), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "not in the symmetric heap");
    CHECK_EQ_PTR(shoal_ptr(sh, p + 4096, me), NULL); /* in the heap, in no allocation */
    CHECK_CONTAINS(shoal_last_error(sh), "not inside a live allocation");
    CHECK_EQ_INT(shoal_addr_accessible(sh, NULL, me), 0);
    CHECK_OK(shoal_heap_usage(sh, NULL, NULL), sh);
}

/* The instance still moves data. */
static void check_works(shoal_t sh, char *p)
{
    char v = (char)('a' + me), got = 0;
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_char_p(sh, p + 100, v, right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_char_g(sh, &got, p + 100, right), sh);
    CHECK_EQ_INT(got, 'a' + me); /* right's copy holds what its left neighbour, me, put */
    CHECK_OK(shoal_barrier_all(sh), sh);
}

/* Every call on a finalized handle fails cleanly and names itself. */
static void test_tombstone(shoal_t sh)
{
    int x = 0;
    size_t u;
    MPI_Comm c;
    const char *name;

#define DEAD(expr, call)                                                                                               \
    do {                                                                                                               \
        CHECK_STATUS((expr), SHOAL_ERR_INVALID_INSTANCE, NULL);                                                        \
        CHECK_CONTAINS(shoal_last_error(sh), call ": instance was finalized");                                         \
        CHECK_CONTAINS(shoal_last_error(NULL), call ": instance was finalized");                                       \
    } while (0)
    DEAD(shoal_finalize(sh), "shoal_finalize");
    DEAD(shoal_my_pe(sh), "shoal_my_pe");
    DEAD(shoal_n_pes(sh), "shoal_n_pes");
    DEAD(shoal_comm(sh, &c), "shoal_comm");
    DEAD(shoal_heap_kind(sh), "shoal_heap_kind");
    DEAD(shoal_heap_usage(sh, &u, &u), "shoal_heap_usage");
    DEAD(shoal_put(sh, &x, &x, 4, 0), "shoal_put");
    DEAD(shoal_get(sh, &x, &x, 4, 0), "shoal_get");
    DEAD(shoal_put_nbi(sh, &x, &x, 4, 0), "shoal_put_nbi");
    DEAD(shoal_get_nbi(sh, &x, &x, 4, 0), "shoal_get_nbi");
    DEAD(shoal_int_p(sh, &x, 1, 0), "shoal_int_p");
    DEAD(shoal_long_g(sh, (long *)&u, (long *)&u, 0), "shoal_long_g");
    DEAD(shoal_quiet(sh), "shoal_quiet");
    DEAD(shoal_fence(sh), "shoal_fence");
    DEAD(shoal_barrier_all(sh), "shoal_barrier_all");
    DEAD(shoal_sync_all(sh), "shoal_sync_all");
    DEAD(shoal_free(sh, &x), "shoal_free");
    DEAD(shoal_pe_transport(sh, 0, &name), "shoal_pe_transport");
    DEAD(shoal_pe_node(sh, 0), "shoal_pe_node");
    DEAD(shoal_pe_gpu_shared(sh, 0), "shoal_pe_gpu_shared");
    {
        const char *bus = NULL;
        DEAD(shoal_pe_gpu_bus_id(sh, 0, &bus), "shoal_pe_gpu_bus_id");
        CHECK_EQ_STR(bus, "");
    }
    DEAD(shoal_addr_accessible(sh, &x, 0), "shoal_addr_accessible");
    CHECK_EQ_PTR(shoal_malloc(sh, 64), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_malloc: instance was finalized");
    CHECK_EQ_PTR(shoal_calloc(sh, 1, 64), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_calloc: instance was finalized");
    CHECK_EQ_PTR(shoal_align(sh, 64, 64), NULL);
    CHECK_EQ_PTR(shoal_ptr(sh, &x, 0), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_ptr: instance was finalized");
#undef DEAD
}

/* A handle that was never an instance. */
static void test_corrupt(void)
{
    uint64_t junk[512];
    memset(junk, 0xab, sizeof(junk));
    CHECK_STATUS(shoal_quiet((shoal_t)junk), SHOAL_ERR_INVALID_INSTANCE, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "not a shoal instance");
    CHECK_STATUS(shoal_barrier_all((shoal_t)junk), SHOAL_ERR_INVALID_INSTANCE, NULL);
}

static void check_env_refused(const char *var, const char *value)
{
    shoal_t sh = NULL;
    setenv(var, value, 1);
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, NULL, &sh), SHOAL_ERR_ENV, NULL);
    CHECK_EQ_PTR(sh, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "shoal_init");
    CHECK_CONTAINS(shoal_last_error(NULL), var);
    CHECK_CONTAINS(shoal_last_error(NULL), "is invalid: expected");
    unsetenv(var);
}

static void test_env(void)
{
    static const struct {
        const char *var, *value;
    } bad[] = {
        {"SHOAL_HEAP_SIZE", "abc"},
        {"SHOAL_HEAP_SIZE", "0"},
        {"SHOAL_HEAP_SIZE", "-5m"},
        {"SHOAL_HEAP_SIZE", "64k                                                              junk"},
        {"SHOAL_HEAP_SIZE", "99999999999t"},
        {"SHOAL_TIMEOUT", "-1"},
        {"SHOAL_TIMEOUT", "nan"},
        {"SHOAL_TIMEOUT", "1e999"},
        {"SHOAL_TIMEOUT", "2s"},
        {"SHOAL_CHECK", "paranoid"},
        {"SHOAL_HEAP_KIND", "tpu"},
        {"SHOAL_NODE_SIZE", "-2"},
        {"SHOAL_NODE_SIZE", "two"},
        {"SHOAL_CUDA_DEVICE", "-7"},
        {"SHOAL_TRANSPORT_DISABLE", "shm,nvlink"},
        {"SHOAL_TRANSPORT_DISABLE", "mpi_rma"},
        {"SHOAL_P2P_LEVEL", "FAST"},
        {"SHOAL_WAIT", "block"},
        {"SHOAL_DEBUG", "verbose"},
        {"SHOAL_DEBUG_SUBSYS", "INIT,bogus"},
        {"SHOAL_TOPO_FILE", "/nonexistent/topology.xml"},
    };
    shoal_config_t cfg;
    shoal_t sh = NULL;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) check_env_refused(bad[i].var, bad[i].value);

    /* invalid config fields: SHOAL_ERR_INVALID_ARG naming the field */
    test_config(&cfg, 0);
    cfg.timeout = -1;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "timeout");
    test_config(&cfg, 0);
    cfg.timeout = NAN;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "is not a number of seconds >= 0");
    test_config(&cfg, 0);
    cfg.cuda_device = -7;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "cuda_device -7 is not -1 or a device number");
    test_config(&cfg, 0);
    cfg.check = 7;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "check 7");
    test_config(&cfg, 0);
    cfg.wait = 3;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "wait 3 is not a SHOAL_WAIT_* value");
    test_config(&cfg, 0);
    cfg.node_size = -1;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "node_size");
    test_config(&cfg, 0);
    cfg.heap_size = 0;
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &sh), SHOAL_ERR_INVALID_ARG, NULL);
    CHECK_CONTAINS(shoal_last_error(NULL), "heap_size is 0");
    CHECK_EQ_PTR(sh, NULL);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    char *p;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    right = (me + 1) % npes;

    test_env();
    test_corrupt();

    test_config(&cfg, HEAP);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    p = shoal_malloc(sh, 256);
    CHECK_NONNULL(p, sh);
    check_works(sh, p);
    test_rma(sh, p);
    check_works(sh, p);
    test_alloc(sh);
    test_queries(sh, p);
    check_works(sh, p);
    CHECK_OK(shoal_free(sh, p), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    test_tombstone(sh);

    /* A heap of 1 byte is rounded up to the allocator's 64: it holds 1 byte. */
    test_config(&cfg, 1);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    p = shoal_malloc(sh, 1);
    CHECK_NONNULL(p, sh);
    CHECK_EQ_PTR(shoal_malloc(sh, 1), NULL);
    CHECK_CONTAINS(shoal_last_error(sh), "exhausted");
    CHECK_OK(shoal_free(sh, p), sh);
    CHECK_OK(shoal_finalize(sh), NULL);

    /* SHOAL_CHECK=off drops the allocation checks, not the argument checks. */
    test_config(&cfg, HEAP);
    cfg.check = SHOAL_CHECK_OFF;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    p = shoal_malloc(sh, 256);
    CHECK_NONNULL(p, sh);
    CHECK_ERR(shoal_put(sh, p + 8, p, 16, me), SHOAL_ERR_INVALID_ARG, sh, "overlap");
    CHECK_ERR(shoal_put(sh, p, p, 8, npes), SHOAL_ERR_PE, sh, "out of range");
    CHECK_ERR(shoal_get(sh, NULL, p, 8, right), SHOAL_ERR_INVALID_ARG, sh, "destination buffer is NULL");
    check_works(sh, p);
    CHECK_OK(shoal_free(sh, p), sh);
    CHECK_OK(shoal_finalize(sh), NULL);

    if (me == 0) check_note("bad input passed on %d PEs", npes);
    MPI_Finalize();
    return 0;
}
