/*
 * The byte API: shoal_put/get/put_nbi/get_nbi of 1 byte to a few MiB at
 * unaligned offsets, get from every PE, put and get to self, zero-byte
 * transfers, puts from a heap source; shoal_ptr (load/store access exactly for
 * self and shm peers), shoal_addr_accessible, and the transport and node the
 * runtime picked for every PE pair against what SHOAL_NODE_SIZE implies.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define GUARD 8 /* bytes checked untouched on either side of a put */
#define MAX_PUT ((3u << 20) + 5)
#define SRC_SIZE ((1u << 20) + 17)
#define SENTINEL 0xA5
#define TAG_PUT 1 /* pattern families */
#define TAG_SRC 2

static shoal_t sh;
static int me, npes, right, left;

/* Every size at every offset: the right neighbour's region gets my pattern,
 * guards stay untouched. Odd rounds use put_nbi (completed by the barrier). */
static void test_put_sizes(unsigned char *region)
{
    static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 63, 64, 65, 4095, 4096, 4097, 65549, 1u << 20, MAX_PUT};
    static const size_t offsets[] = {0, 1, 3, 7};
    unsigned char *src = malloc(MAX_PUT + 8), *got = malloc(MAX_PUT + 4 * GUARD);
    unsigned char *expect = malloc(MAX_PUT);
    int round = 0;

    CHECK(src && got && expect);
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        for (size_t oi = 0; oi < sizeof(offsets) / sizeof(offsets[0]); oi++, round++) {
            size_t size = sizes[si], off = offsets[oi], span = GUARD + off + size + GUARD;
            unsigned char *s = src + (oi * 3) % 8; /* unaligned source too */
            long long diff;

            test_heap_fill(sh, region, SENTINEL, span);
            CHECK_OK(shoal_barrier_all(sh), sh);
            test_pattern(s, 0, size, TAG_PUT, (uint64_t)me, size * 8 + off);
            if (round % 2)
                CHECK_OK(shoal_put_nbi(sh, region + GUARD + off, s, size, right), sh);
            else
                CHECK_OK(shoal_put(sh, region + GUARD + off, s, size, right), sh);
            CHECK_OK(shoal_barrier_all(sh), sh);

            test_heap_read(sh, got, region, span);
            test_pattern(expect, 0, size, TAG_PUT, (uint64_t)left, size * 8 + off);
            CHECK_MEM_FILLED(got, SENTINEL, GUARD + off);
            diff = check_first_diff(got + GUARD + off, expect, size);
            CHECK_MSG(diff < 0,
                      "%s of %zu bytes at offset %zu from pe %d: first difference at "
                      "byte %lld",
                      round % 2 ? "shoal_put_nbi" : "shoal_put", size, off, left, diff);
            CHECK_MEM_FILLED(got + GUARD + off + size, SENTINEL, GUARD);
        }
    }
    free(src);
    free(got);
    free(expect);
}

/* Get ranges of every PE's src region, blocking and non-blocking. */
static void test_get_every_pe(unsigned char *srcheap)
{
    static const size_t ranges[][2] = {{0, 1}, {1, 7}, {5, 4093}, {13, 65539}, {0, SRC_SIZE}};
    enum { NR = sizeof(ranges) / sizeof(ranges[0]) };
    unsigned char *mine = malloc(SRC_SIZE), *expect = malloc(SRC_SIZE);
    unsigned char **nbi = calloc((size_t)npes * NR, sizeof(*nbi));
    unsigned char *got = malloc(SRC_SIZE + 1);

    CHECK(mine && expect && nbi && got);
    test_pattern(mine, 0, SRC_SIZE, TAG_SRC, (uint64_t)me, 0);
    test_heap_write(sh, srcheap, mine, SRC_SIZE);
    CHECK_OK(shoal_barrier_all(sh), sh);

    for (int pe = 0; pe < npes; pe++) {
        for (int r = 0; r < NR; r++) {
            size_t off = ranges[r][0], len = ranges[r][1];
            long long diff;
            memset(got, SENTINEL, len + 1);
            CHECK_OK(shoal_get(sh, got + 1, srcheap + off, len, pe), sh); /* unaligned dest */
            test_pattern(expect, off, len, TAG_SRC, (uint64_t)pe, 0);
            CHECK_MSG(got[0] == SENTINEL, "shoal_get from pe %d wrote before its dest", pe);
            diff = check_first_diff(got + 1, expect, len);
            CHECK_MSG(diff < 0,
                      "shoal_get of %zu bytes at offset %zu from pe %d: first "
                      "difference at byte %lld",
                      len, off, pe, diff);

            nbi[pe * NR + r] = malloc(len);
            CHECK(nbi[pe * NR + r] != NULL);
            CHECK_OK(shoal_get_nbi(sh, nbi[pe * NR + r], srcheap + off, len, pe), sh);
        }
    }
    CHECK_OK(shoal_quiet(sh), sh);
    for (int pe = 0; pe < npes; pe++) {
        for (int r = 0; r < NR; r++) {
            size_t off = ranges[r][0], len = ranges[r][1];
            long long diff;
            test_pattern(expect, off, len, TAG_SRC, (uint64_t)pe, 0);
            diff = check_first_diff(nbi[pe * NR + r], expect, len);
            CHECK_MSG(diff < 0,
                      "shoal_get_nbi of %zu bytes at offset %zu from pe %d: first "
                      "difference at byte %lld",
                      len, off, pe, diff);
            free(nbi[pe * NR + r]);
        }
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    free(mine);
    free(expect);
    free(nbi);
    free(got);
}

/* Put and get to myself; zero-byte transfers; a put whose source is the heap. */
static void test_self_zero_heapsrc(unsigned char *region, unsigned char *srcheap)
{
    enum { N = 1000 };
    unsigned char data[N], got[N], expect[N];

    test_pattern(data, 0, N, TAG_PUT, (uint64_t)me, 12345);
    CHECK_OK(shoal_put(sh, region + 3, data, N, me), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    test_heap_read(sh, got, region + 3, N);
    CHECK_MEM_EQ(got, data, N);
    memset(got, 0, N);
    CHECK_OK(shoal_get(sh, got, region + 3, N, me), sh);
    CHECK_MEM_EQ(got, data, N);

    /* zero bytes: success, nothing moves */
    CHECK_OK(shoal_put(sh, region + 3, data + 1, 0, right), sh);
    CHECK_OK(shoal_put_nbi(sh, region + 3, data + 1, 0, right), sh);
    CHECK_OK(shoal_get(sh, got, region + 3, 0, right), sh);
    CHECK_OK(shoal_get_nbi(sh, got, region + 3, 0, right), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_MEM_EQ(got, data, N);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, got, region + 3, N);
    CHECK_MEM_EQ(got, data, N);
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* source inside the heap (my src region still holds TAG_SRC pattern) */
    CHECK_OK(shoal_put(sh, region, srcheap + 3, N, right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, got, region, N);
    test_pattern(expect, 3, N, TAG_SRC, (uint64_t)left, 0);
    CHECK_MEM_EQ(got, expect, N);
    CHECK_OK(shoal_barrier_all(sh), sh);
}

/* The transport of every pair, its node, and shoal_ptr/addr_accessible. */
static void test_transports_and_ptr(const shoal_config_t *cfg, unsigned char *region, unsigned char *small)
{
    enum { NI = 16 };
    int *node_of = malloc(sizeof(int) * (size_t)npes);
    int host = test_heap_is_host(sh), stackvar = 0;
    const char *disabled = getenv("SHOAL_TRANSPORT_DISABLE");
    int shm_off = disabled && check_strcasestr(disabled, "shm");
    int vals[NI], got[NI];
    int *to_right;

    CHECK(node_of != NULL);
    test_expected_nodes(MPI_COMM_WORLD, cfg->node_size, node_of);
    for (int pe = 0; pe < npes; pe++) {
        const char *name = NULL;
        int same_node = node_of[pe] == node_of[me];
        void *p;

        CHECK_OK(shoal_pe_transport(sh, pe, &name), sh);
        CHECK(name != NULL);
        CHECK_EQ_INT(shoal_pe_node(sh, pe), node_of[pe]);
        if (pe == me) {
            CHECK_EQ_STR(name, "self");
        } else if (!same_node || (host && shm_off)) {
            CHECK_MSG(strcmp(name, "mpi_rma") == 0,
                      "pe %d -> pe %d (nodes %d, %d; node_size %d): transport \"%s\", expected mpi_rma", me, pe,
                      node_of[me], node_of[pe], cfg->node_size, name);
        } else if (host) {
            CHECK_MSG(strcmp(name, "shm") == 0,
                      "pe %d -> pe %d (same node %d, node_size %d): transport \"%s\", expected shm", me, pe,
                      node_of[me], cfg->node_size, name);
        } else {
            CHECK_MSG(strcmp(name, "cuda_ipc") == 0 || strcmp(name, "staged") == 0,
                      "pe %d -> pe %d (same node, GPU heap): transport \"%s\"", me, pe, name);
        }

        CHECK_MSG(shoal_addr_accessible(sh, region, pe) > 0, "shoal_addr_accessible(heap address, pe %d) = %d", pe,
                  shoal_addr_accessible(sh, region, pe));
        CHECK_EQ_INT(shoal_addr_accessible(sh, &stackvar, pe), 0);
        CHECK_EQ_PTR(shoal_ptr(sh, &stackvar, pe), NULL);

        if (!host) continue;
        p = shoal_ptr(sh, region, pe);
        if (pe == me)
            CHECK_EQ_PTR(p, region);
        else if (strcmp(name, "shm") == 0)
            CHECK_MSG(p != NULL, "shoal_ptr to shm peer %d is NULL", pe);
        else /* another node, or shm disabled: not load/store */
            CHECK_MSG(p == NULL, "shoal_ptr to pe %d on node %d (from node %d) over %s is %p, expected NULL", pe,
                      node_of[pe], node_of[me], name, p);
    }
    CHECK_EQ_PTR(shoal_ptr(sh, region, npes), NULL);
    CHECK_EQ_PTR(shoal_ptr(sh, region, -1), NULL);
    free(node_of);

    /* Stores through shoal_ptr (or a put where there is none) are visible
     * to the owner after a barrier, and loads through it see the owner's data. */
    for (int i = 0; i < NI; i++) vals[i] = me * 1000 + i + 1;
    test_heap_fill(sh, small, 0, sizeof(vals));
    CHECK_OK(shoal_barrier_all(sh), sh);
    to_right = host ? shoal_ptr(sh, small, right) : NULL;
    if (to_right)
        memcpy(to_right, vals, sizeof(vals));
    else
        CHECK_OK(shoal_put(sh, small, vals, sizeof(vals), right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, got, small, sizeof(got));
    for (int i = 0; i < NI; i++)
        CHECK_MSG(got[i] == left * 1000 + i + 1, "%s from pe %d: [%d] = %d, expected %d",
                  to_right ? "store through shoal_ptr" : "shoal_put", left, i, got[i], left * 1000 + i + 1);
    for (int pe = 0; host && pe < npes; pe++) {
        const int *theirs = shoal_ptr(sh, small, pe);
        int their_left = (pe + npes - 1) % npes;
        if (!theirs) continue;
        for (int i = 0; i < NI; i++)
            CHECK_MSG(theirs[i] == their_left * 1000 + i + 1, "load through shoal_ptr(pe %d)[%d] = %d, expected %d", pe,
                      i, theirs[i], their_left * 1000 + i + 1);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    unsigned char *region, *srcheap, *small;

    MPI_Init(&argc, &argv);
    test_config(&cfg, 16u << 20);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    region = shoal_malloc(sh, MAX_PUT + 4 * GUARD);
    srcheap = shoal_malloc(sh, SRC_SIZE);
    small = shoal_malloc(sh, 64);
    CHECK_NONNULL(region, sh);
    CHECK_NONNULL(srcheap, sh);
    CHECK_NONNULL(small, sh);

    test_transports_and_ptr(&cfg, region, small);
    test_put_sizes(region);
    test_get_every_pe(srcheap);
    test_self_zero_heapsrc(region, srcheap);

    CHECK_OK(shoal_free(sh, small), sh);
    CHECK_OK(shoal_free(sh, srcheap), sh);
    CHECK_OK(shoal_free(sh, region), sh);
    if (me == 0)
        check_note("byte put/get, shoal_ptr and transports passed on %d PEs (node_size %d)", npes, cfg.node_size);
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
