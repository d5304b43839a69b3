/*
 * shoal_register_shared (api/shoal.h, README "Registered memory"): ranges
 * whose whole private writable pages move into shared memory that node
 * peers map, so that they load and store them as they do the host heap;
 * everything else (bytes outside whole pages, other nodes, PEs whose
 * pages could not be shared) goes through the range's MPI window.
 *
 * Which PEs should map a PE's pages: itself, and every PE reached over
 * "shm" (shoal_pe_transport: the same node, shm not disabled). So the same
 * program checks sharing on one node, on simulated nodes
 * (SHOAL_NODE_SIZE=2) and its absence with SHOAL_TRANSPORT_DISABLE=shm.
 *
 * 1. Contents and addresses stay: a static array filled before the call
 *    reads the same after it, at the same address, as do pages never
 *    touched before it (initialized data from the program's file, and
 *    bss of which every third page was written); its pages are then a
 *    shoal-reg object in /proc/self/maps (where node peers exist), and no
 *    such name is left in /dev/shm. shoal_ptr gives node peers' copies (NULL
 *    for the others); a store through it is seen by the owner after a
 *    barrier; put, get, p, g, iput, iget, put_2d and get_2d from every PE,
 *    data checked.
 * 2. Partial pages: a range from byte 100 of a page-aligned array to 100
 *    bytes into its last page: the first and last partial pages are not
 *    mapped (shoal_ptr NULL for peers), the whole pages are; puts and gets
 *    across the edge of the shared part land; fetch_add from every PE on
 *    PE 0's word in the shared part and on its word in the partial first
 *    page at once: totals exact, the values handed out exactly 0 .. n*K-1.
 * 3. Every atomic kind on the right neighbour's shared words, each result
 *    checked; int (4-byte) and uint64 words.
 * 4. put_signal into shared words, wait_until on them; signal_op; a lock
 *    (a long in the shared part) guarding a counter in it: exact total.
 * 5. Deregistration: the pages are private again (no shoal-reg mapping),
 *    their contents kept; registering the same range again shares it again.
 * 6. Fallbacks, each working through the window: a range in a MAP_SHARED
 *    mapping (not private memory), one with a read-only page between two
 *    writable ones, one of less than a page, an mmap'ed private buffer (at
 *    another address on every PE: shared).
 * 7. shoal_register_shared on one PE and shoal_register on the others of
 *    the same size: SHOAL_ERR_NOT_SYMMETRIC on every PE, naming both calls.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>

#include "common/check.h"
#include "heap/shoal_register.h" /* shoal__reg_locate: how each atomic goes */
#include "shoal.h"

static shoal_t sh;
static int me, npes, right, left;
static size_t pg;
static int *reach;      /* reach[pe]: this PE should map pe's shared pages */
static int shared_here; /* this PE's pages should move into shared memory (some node peer maps them) */
static int all_reach;   /* every PE maps every other's shared pages (one node, shm): CPU atomics there */

#define AREA_PAGES 4
static long g_data[2048] __attribute__((aligned(65536))) = {1, 2, 3, 4, 5, 6, 7, 8};
static unsigned char g_area[AREA_PAGES * 65536] __attribute__((aligned(65536)));
static uint64_t g_words[4096] __attribute__((aligned(65536)));
/* Pages nobody touches before the registration: initialized data read
 * from the program's file, and bss of which every third page is written. */
static long g_file[16 * 8192] __attribute__((aligned(65536))) = {[1024] = 5, [9000] = 6, [70000] = 7};
static long g_sparse[16 * 8192] __attribute__((aligned(65536)));

static void barrier(void) { CHECK_OK(shoal_barrier_all(sh), sh); }

/* The /proc/self/maps line of the mapping holding p, into line. */
static void maps_line(const void *p, char *line, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char buf[512];
    CHECK(f != NULL);
    line[0] = '\0';
    while (fgets(buf, sizeof(buf), f) != NULL) {
        unsigned long s, e;
        if (sscanf(buf, "%lx-%lx", &s, &e) == 2 && (uintptr_t)p >= s && (uintptr_t)p < e) {
            snprintf(line, len, "%s", buf);
            break;
        }
    }
    fclose(f);
    CHECK_MSG(line[0] != '\0', "%p is in no mapping", p);
}

static int in_shared_object(const void *p)
{
    char line[512];
    maps_line(p, line, sizeof(line));
    return strstr(line, "/shoal-reg-") != NULL;
}

/* No object name of this process is left in /dev/shm. */
static void no_names_left(void)
{
    char prefix[64];
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    if (d == NULL) return;
    snprintf(prefix, sizeof(prefix), "shoal-reg-%ld-", (long)getpid());
    while ((e = readdir(d)) != NULL) CHECK_MSG(strncmp(e->d_name, prefix, strlen(prefix)) != 0, "%s left", e->d_name);
    closedir(d);
}

/* shoal_ptr for pe's copy of p: mapped (non-NULL) exactly where expected. */
static void expect_ptr(const void *p, int pe, int mapped)
{
    void *q = shoal_ptr(sh, p, pe);
    if (pe == me) {
        CHECK_EQ_PTR(q, p);
        return;
    }
    CHECK_MSG((q != NULL) == (mapped != 0), "shoal_ptr(%p, PE %d) = %p, expected %s", p, pe, q,
              mapped ? "a mapping" : "NULL");
}

/* 1. Contents, addresses, shoal_ptr, and the data calls. */
static void test_contents_and_rma(void)
{
    long *before = g_data, want[2048], got[2048], v;
    int32_t col[16], back[16];

    for (int i = 0; i < 2048; i++) want[i] = i < 8 ? i + 1 : (long)me * 100000 + i;
    for (int i = 8; i < 2048; i++) g_data[i] = want[i];
    for (size_t i = 0; i < sizeof(g_sparse) / sizeof(long); i += 3 * pg / sizeof(long)) g_sparse[i + 1] = me + 1;
    CHECK_OK(shoal_register_shared(sh, g_data, sizeof(g_data)), sh);
    CHECK_OK(shoal_register_shared(sh, g_file, sizeof(g_file)), sh);
    CHECK_OK(shoal_register_shared(sh, g_sparse, sizeof(g_sparse)), sh);
    CHECK_EQ_PTR(g_data, before);
    CHECK_MEM_EQ(g_data, want, sizeof(want));
    /* The untouched pages kept what they held: the file's values, zeros. */
    for (size_t i = 0; i < sizeof(g_file) / sizeof(long); i++)
        CHECK_EQ_INT(g_file[i], i == 1024 ? 5 : i == 9000 ? 6 : i == 70000 ? 7 : 0);
    for (size_t i = 0; i < sizeof(g_sparse) / sizeof(long); i++)
        CHECK_EQ_INT(g_sparse[i], i % (3 * pg / sizeof(long)) == 1 ? me + 1 : 0);
    CHECK_EQ_INT(in_shared_object(g_file + 9000), shared_here);
    CHECK_EQ_INT(in_shared_object(g_sparse + 70000), shared_here);
    barrier();
    {
        long got_file[3], got_sparse;
        CHECK_OK(shoal_long_g(sh, &got_file[0], g_file + 1024, right), sh);
        CHECK_OK(shoal_long_g(sh, &got_file[1], g_file + 9000, right), sh);
        CHECK_OK(shoal_long_g(sh, &got_file[2], g_file + 70000, right), sh);
        CHECK(got_file[0] == 5 && got_file[1] == 6 && got_file[2] == 7);
        CHECK_OK(shoal_long_g(sh, &got_sparse, g_sparse + 3 * pg / sizeof(long) + 1, right), sh);
        CHECK_EQ_INT(got_sparse, right + 1);
        CHECK_OK(shoal_long_g(sh, &got_sparse, g_sparse + pg / sizeof(long) + 1, right), sh);
        CHECK_EQ_INT(got_sparse, 0);
    }
    barrier();
    CHECK_OK(shoal_deregister(sh, g_sparse), sh);
    CHECK_OK(shoal_deregister(sh, g_file), sh);
    for (size_t i = 0; i < sizeof(g_sparse) / sizeof(long); i += 3 * pg / sizeof(long))
        CHECK_EQ_INT(g_sparse[i + 1], me + 1);
    CHECK_EQ_INT(g_file[70000], 7);
    CHECK_EQ_INT(in_shared_object(g_data), shared_here);
    no_names_left();
    for (int pe = 0; pe < npes; pe++) expect_ptr(g_data + 17, pe, reach[pe]);

    /* A store through shoal_ptr into the right neighbour's copy. */
    barrier();
    {
        long *r = shoal_ptr(sh, g_data + 1000, right);
        if (r != NULL)
            *r = -me - 1;
        else
            CHECK_OK(shoal_long_p(sh, g_data + 1000, -me - 1, right), sh);
    }
    barrier();
    CHECK_EQ_INT(g_data[1000], -left - 1);

    /* Gets of every PE's copy, then a put into the right neighbour's. */
    for (int t = 0; t < npes; t++) {
        CHECK_OK(shoal_long_get(sh, got, g_data + 8, 512, t), sh);
        for (int i = 0; i < 512; i++) CHECK_EQ_INT(got[i], (long)t * 100000 + i + 8);
    }
    barrier();
    for (int i = 0; i < 512; i++) want[i] = (long)me * 7 + i;
    CHECK_OK(shoal_long_put(sh, g_data + 1024, want, 512, right), sh);
    CHECK_OK(shoal_long_p(sh, g_data + 1600, 4242 + me, right), sh);
    barrier();
    for (int i = 0; i < 512; i++) CHECK_EQ_INT(g_data[1024 + i], (long)left * 7 + i);
    CHECK_EQ_INT(g_data[1600], 4242 + left);
    CHECK_OK(shoal_long_g(sh, &v, g_data + 1600, right), sh);
    CHECK_EQ_INT(v, 4242 + me);

    /* Strided: a column of 16 ints, every 5th, into the right neighbour;
     * back with iget. 2-D: 8 rows of 24 bytes, 64 apart. */
    barrier();
    for (int i = 0; i < 16; i++) col[i] = me * 1000 + i;
    CHECK_OK(shoal_int32_iput(sh, (int32_t *)(g_data + 1700), col, 5, 1, 16, right), sh);
    barrier();
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(((int32_t *)(g_data + 1700))[5 * i], left * 1000 + i);
    CHECK_OK(shoal_int32_iget(sh, back, (int32_t *)(g_data + 1700), 1, 5, 16, right), sh);
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(back[i], me * 1000 + i);
    {
        unsigned char rows[8 * 24], rback[8 * 24];
        unsigned char *base = (unsigned char *)(g_data + 1800);
        for (int i = 0; i < 8 * 24; i++) rows[i] = (unsigned char)(me * 31 + i);
        barrier();
        CHECK_OK(shoal_put_2d(sh, base, 64, rows, 24, 24, 8, right), sh);
        barrier();
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 24; c++) CHECK_EQ_INT(base[r * 64 + c], (unsigned char)(left * 31 + r * 24 + c));
        CHECK_OK(shoal_get_2d(sh, rback, 24, base, 64, 24, 8, right), sh);
        for (int i = 0; i < 8 * 24; i++) CHECK_EQ_INT(rback[i], (unsigned char)(me * 31 + i));
    }
    barrier();
}

/* 2. Partial first and last pages; mixed atomics counting. */
static void test_partial_pages(void)
{
    enum { K = 500 };
    unsigned char *r0 = g_area + 100, piece[300], got[300];
    size_t size = 3 * pg; /* [100, 3 pages + 100): whole pages 1 and 2 */
    uint64_t *in_part = (uint64_t *)(g_area + pg + 64), *in_head = (uint64_t *)(g_area + 512), mine[2 * K], *all = NULL;

    memset(g_area, 0, sizeof(g_area));
    CHECK_OK(shoal_register_shared(sh, r0, size), sh);
    for (int pe = 0; pe < npes; pe++) {
        expect_ptr(g_area + 200, pe, 0);        /* the first partial page */
        expect_ptr(g_area + pg, pe, reach[pe]); /* the whole pages */
        expect_ptr(g_area + 3 * pg - 1, pe, reach[pe]);
        expect_ptr(g_area + 3 * pg + 50, pe, 0); /* the last partial page */
    }
    CHECK_EQ_INT(in_shared_object(g_area + pg), shared_here);
    CHECK_EQ_INT(in_shared_object(g_area), 0);
    /* One mechanism per word: CPU atomics on a word in its owner's shared
     * pages only where every PE maps every other's (one node, shm), else
     * MPI's for every PE; the partial page's words always MPI's (but with
     * one PE, whose words nobody else reaches). */
    for (int pe = 0; pe < npes; pe++) {
        char *at;
        CHECK_EQ_INT(shoal__reg_locate(sh, in_part, 8, pe, true, &at) > 0, all_reach);
        CHECK_EQ_INT(shoal__reg_locate(sh, in_head, 8, pe, true, &at) > 0, npes == 1);
        CHECK_EQ_INT(shoal__reg_locate(sh, in_part, 8, pe, false, &at) > 0, reach[pe]);
    }

    /* Across the edges of the shared part: [pg - 150, +300) and
     * [3 pg - 150, +240), through the window. */
    for (int i = 0; i < 300; i++) piece[i] = (unsigned char)(me * 13 + i);
    CHECK_OK(shoal_put(sh, g_area + pg - 150, piece, 300, right), sh);
    CHECK_OK(shoal_put(sh, g_area + 3 * pg - 150, piece, 240, right), sh);
    barrier();
    for (int i = 0; i < 300; i++) CHECK_EQ_INT(g_area[pg - 150 + i], (unsigned char)(left * 13 + i));
    for (int i = 0; i < 240; i++) CHECK_EQ_INT(g_area[3 * pg - 150 + i], (unsigned char)(left * 13 + i));
    CHECK_OK(shoal_get(sh, got, g_area + pg - 150, 300, right), sh);
    for (int i = 0; i < 300; i++) CHECK_EQ_INT(got[i], (unsigned char)(me * 13 + i));
    barrier();

    /* Every PE at once: K fetch_adds on PE 0's word in the shared part and
     * on its word in the partial first page. */
    memset(g_area, 0, 4 * pg);
    barrier();
    for (int k = 0; k < K; k++) {
        CHECK_OK(shoal_uint64_atomic_fetch_add(sh, in_part, 1, 0, &mine[k]), sh);
        CHECK_OK(shoal_uint64_atomic_fetch_add(sh, in_head, 1, 0, &mine[K + k]), sh);
    }
    barrier();
    if (me == 0) {
        CHECK_EQ_INT(*in_part, (uint64_t)npes * K);
        CHECK_EQ_INT(*in_head, (uint64_t)npes * K);
        all = malloc(sizeof(uint64_t) * 2 * K * (size_t)npes);
        CHECK(all != NULL);
    }
    CHECK(MPI_Gather(mine, 2 * K, MPI_UINT64_T, all, 2 * K, MPI_UINT64_T, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    if (me == 0) {
        for (int w = 0; w < 2; w++) {
            char *seen = calloc((size_t)npes * K, 1);
            CHECK(seen != NULL);
            for (int p = 0; p < npes; p++)
                for (int k = 0; k < K; k++) {
                    uint64_t v = all[(size_t)p * 2 * K + (size_t)w * K + k];
                    CHECK_MSG(v < (uint64_t)npes * K && !seen[v],
                              "word %d: value %llu handed out twice or out of range", w, (unsigned long long)v);
                    seen[v] = 1;
                }
            free(seen);
        }
        free(all);
    }
    barrier();
    CHECK_OK(shoal_deregister(sh, r0), sh);
    CHECK_EQ_INT(in_shared_object(g_area + pg), 0);
    CHECK_EQ_INT(*in_part, (uint64_t)(me == 0 ? npes * K : 0));
}

/* 3. Every atomic kind on the right neighbour's shared words. */
static void test_atomic_kinds(void)
{
    uint64_t *w = g_words + 8, old = 0;
    int *iw = (int *)(g_words + 16), iold = 0;

    memset(g_words, 0, sizeof(g_words));
    CHECK_OK(shoal_register_shared(sh, g_words, sizeof(g_words)), sh);
    barrier();
    CHECK_OK(shoal_uint64_atomic_set(sh, w, 10, right), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_uint64_atomic_fetch(sh, w, right, &old), sh);
    CHECK_EQ_INT(old, 10);
    CHECK_OK(shoal_uint64_atomic_swap(sh, w, 20, right, &old), sh);
    CHECK_EQ_INT(old, 10);
    CHECK_OK(shoal_uint64_atomic_compare_swap(sh, w, 20, 30, right, &old), sh);
    CHECK_EQ_INT(old, 20);
    CHECK_OK(shoal_uint64_atomic_compare_swap(sh, w, 99, 40, right, &old), sh);
    CHECK_EQ_INT(old, 30);
    CHECK_OK(shoal_uint64_atomic_inc(sh, w, right), sh);
    CHECK_OK(shoal_uint64_atomic_fetch_inc(sh, w, right, &old), sh);
    CHECK_EQ_INT(old, 31);
    CHECK_OK(shoal_uint64_atomic_add(sh, w, 8, right), sh);
    CHECK_OK(shoal_uint64_atomic_fetch_add(sh, w, 2, right, &old), sh);
    CHECK_EQ_INT(old, 40);
    CHECK_OK(shoal_uint64_atomic_and(sh, w, 0x2a, right), sh); /* 42 & 0x2a = 42 */
    CHECK_OK(shoal_uint64_atomic_fetch_and(sh, w, 0xf, right, &old), sh);
    CHECK_EQ_INT(old, 42);
    CHECK_OK(shoal_uint64_atomic_or(sh, w, 0x100, right), sh);
    CHECK_OK(shoal_uint64_atomic_fetch_or(sh, w, 0x1000, right, &old), sh);
    CHECK_EQ_INT(old, 0x10a);
    CHECK_OK(shoal_uint64_atomic_xor(sh, w, 0x3, right), sh);
    CHECK_OK(shoal_uint64_atomic_fetch_xor(sh, w, 0x1000, right, &old), sh);
    CHECK_EQ_INT(old, 0x1109);
    CHECK_OK(shoal_int_atomic_fetch_add(sh, iw, -5, right, &iold), sh);
    CHECK_EQ_INT(iold, 0);
    CHECK_OK(shoal_int_atomic_fetch_add_nbi(sh, iw, -6, right, &iold), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_EQ_INT(iold, -5);
    barrier();
    CHECK_EQ_INT(*w, 0x109);
    CHECK_EQ_INT(*iw, -11);
    barrier();
}

/* 4. Signals, waits and a lock on the shared words (registered in 3). */
static void test_signals_and_lock(void)
{
    uint64_t *sig = g_words + 64, *data = g_words + 128, v[32], seen = 0;
    long *lock = (long *)(g_words + 256), *count = (long *)(g_words + 264);

    barrier();
    for (int round = 1; round <= 5; round++) {
        for (int i = 0; i < 32; i++) v[i] = (uint64_t)me * 1000 + (uint64_t)round * 32 + (uint64_t)i;
        CHECK_OK(shoal_put_signal(sh, data + 32 * (round % 2), v, sizeof(v), sig, (uint64_t)round, SHOAL_SIGNAL_SET,
                                  right),
                 sh);
        CHECK_OK(shoal_signal_wait_until(sh, sig, SHOAL_CMP_GE, (uint64_t)round, &seen), sh);
        for (int i = 0; i < 32; i++)
            CHECK_EQ_INT(data[32 * (round % 2) + i], (uint64_t)left * 1000 + (uint64_t)round * 32 + (uint64_t)i);
        barrier(); /* the next round's data goes into the buffer read now */
    }
    /* signal_op ADD from every PE to PE 0, then an int wait_until. */
    CHECK_OK(shoal_signal_op(sh, sig + 1, 3, SHOAL_SIGNAL_ADD, 0), sh);
    if (me == 0) CHECK_OK(shoal_uint64_wait_until(sh, sig + 1, SHOAL_CMP_EQ, 3 * (uint64_t)npes), sh);
    CHECK_OK(shoal_int_atomic_set(sh, (int *)(g_words + 300), me + 1, right), sh);
    CHECK_OK(shoal_int_wait_until(sh, (int *)(g_words + 300), SHOAL_CMP_EQ, left + 1), sh);
    barrier();

    /* A lock guarding a counter on PE 0, both in the shared pages. */
    *lock = 0;
    *count = 0;
    barrier();
    for (int k = 0; k < 20; k++) {
        long c = 0;
        CHECK_OK(shoal_set_lock(sh, lock), sh);
        CHECK_OK(shoal_long_g(sh, &c, count, 0), sh);
        CHECK_OK(shoal_long_p(sh, count, c + 1, 0), sh);
        CHECK_OK(shoal_clear_lock(sh, lock), sh);
    }
    barrier();
    if (me == 0) CHECK_EQ_INT(*count, 20L * npes);
    barrier();
}

/* 5. Deregistration gives private pages back, and the same range shares
 * again. */
static void test_deregister(void)
{
    uint64_t want[16];

    for (int i = 0; i < 16; i++) want[i] = g_words[8 + i];
    CHECK_OK(shoal_deregister(sh, g_words), sh);
    CHECK_EQ_INT(in_shared_object(g_words), 0);
    CHECK_MEM_EQ(g_words + 8, want, sizeof(want));
    g_words[1000] = 77; /* private memory again: this PE's alone */
    CHECK_OK(shoal_register_shared(sh, g_words, sizeof(g_words)), sh);
    CHECK_EQ_INT(in_shared_object(g_words), shared_here);
    CHECK_EQ_INT(g_words[1000], 77);
    for (int pe = 0; pe < npes; pe++) expect_ptr(g_words + 5, pe, reach[pe]);
    barrier();
    CHECK_OK(shoal_uint64_p(sh, g_words + 1001, (uint64_t)me, right), sh);
    barrier();
    CHECK_EQ_INT(g_words[1001], left);
    CHECK_OK(shoal_deregister(sh, g_words), sh);
}

/* Put to the right neighbour and get back through [p + off, +n) of a
 * registered range, checked. */
static void ring_check(unsigned char *p, size_t n, int seed)
{
    unsigned char *v = malloc(n), *got = malloc(n);
    CHECK(v != NULL && got != NULL);
    for (size_t i = 0; i < n; i++) v[i] = (unsigned char)(me * 7 + seed + (int)i);
    barrier();
    CHECK_OK(shoal_put(sh, p, v, n, right), sh);
    barrier();
    for (size_t i = 0; i < n; i++) CHECK_EQ_INT(p[i], (unsigned char)(left * 7 + seed + (int)i));
    CHECK_OK(shoal_get(sh, got, p, n, right), sh);
    CHECK_MEM_EQ(got, v, n);
    barrier();
    free(v);
    free(got);
}

/* 6. What cannot be shared works through the window; an mmap'ed private
 * buffer is shared. */
static void test_fallbacks(void)
{
    unsigned char *m, *ro, *priv;

    /* Not private memory: a MAP_SHARED mapping stays as it is. */
    m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    CHECK_OK(shoal_register_shared(sh, m, 4 * pg), sh);
    for (int pe = 0; pe < npes; pe++) expect_ptr(m + pg, pe, 0);
    CHECK_EQ_INT(in_shared_object(m), 0);
    ring_check(m + pg - 10, 200, 1);
    CHECK_OK(shoal_deregister(sh, m), sh);
    CHECK(munmap(m, 4 * pg) == 0);

    /* A read-only page between two writable ones. */
    ro = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro != MAP_FAILED);
    CHECK(mprotect(ro + pg, pg, PROT_READ) == 0);
    CHECK_OK(shoal_register_shared(sh, ro, 3 * pg), sh);
    for (int pe = 0; pe < npes; pe++) expect_ptr(ro, pe, 0);
    ring_check(ro + 2 * pg + 8, 100, 2);
    CHECK_OK(shoal_deregister(sh, ro), sh);
    CHECK(munmap(ro, 3 * pg) == 0);

    /* Less than a page. */
    CHECK_OK(shoal_register_shared(sh, g_area + 10, 200), sh);
    for (int pe = 0; pe < npes; pe++) expect_ptr(g_area + 20, pe, 0);
    ring_check(g_area + 10, 200, 3);
    CHECK_OK(shoal_deregister(sh, g_area + 10), sh);

    /* A private buffer at a different offset of its pages on every PE (one
     * to four pages of its own before it): its whole pages shared. */
    priv = mmap(NULL, 16 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(priv != MAP_FAILED);
    {
        unsigned char *b = priv + (size_t)(1 + me % 4) * pg + (size_t)me * 8;
        memset(b, 0x5a, 8 * pg);
        CHECK_OK(shoal_register_shared(sh, b, 8 * pg), sh);
        for (int pe = 0; pe < npes; pe++) expect_ptr(b + 2 * pg, pe, reach[pe]);
        CHECK_MEM_FILLED(b, 0x5a, 8 * pg);
        ring_check(b + pg, 3 * pg, 4);
        ring_check(b, 40, 5);
        CHECK_OK(shoal_deregister(sh, b), sh);
        CHECK_EQ_INT(in_shared_object(b + 2 * pg), 0);
    }
    CHECK(munmap(priv, 16 * pg) == 0);
    no_names_left();
}

/* 7. shoal_register_shared against shoal_register. */
static void test_mismatch(void)
{
    int rc;
    if (npes < 2) return;
    rc = me == 0 ? shoal_register_shared(sh, g_area, pg) : shoal_register(sh, g_area, pg);
    CHECK_STATUS(rc, SHOAL_ERR_NOT_SYMMETRIC, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_register_shared(");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_register(");
    CHECK_EQ_INT(shoal_addr_accessible(sh, g_area, right), 0);
    test_ring_works(sh, 300);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    long sys_pg;

    MPI_Init(&argc, &argv);
    test_config(&cfg, 8u << 20);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    if (!test_init_or_skip(&cfg, &sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    sys_pg = sysconf(_SC_PAGESIZE);
    pg = sys_pg > 0 ? (size_t)sys_pg : 4096;
    CHECK(pg <= 65536);
    reach = calloc((size_t)npes, sizeof(int));
    CHECK(reach != NULL);
    for (int pe = 0; pe < npes; pe++) {
        const char *name = "";
        CHECK_OK(shoal_pe_transport(sh, pe, &name), sh);
        reach[pe] = pe == me || strcmp(name, "shm") == 0;
        shared_here |= pe != me && reach[pe];
    }
    /* reach is symmetric: every PE mapping all of this PE's peers means
     * one node with shm, the same answer on every PE. */
    all_reach = 1;
    for (int pe = 0; pe < npes; pe++) all_reach &= reach[pe];

    test_contents_and_rma();
    test_partial_pages();
    test_atomic_kinds();
    test_signals_and_lock();
    test_deregister();
    test_fallbacks();
    test_mismatch();

    /* Left for shoal_finalize, which gives the pages back. */
    if (me == 0)
        check_note("shoal_register_shared passed on %d PEs (node_size %d; this PE's pages %s)", npes, cfg.node_size,
                   shared_here ? "shared" : "not shared");
    CHECK_OK(shoal_finalize(sh), NULL);
    CHECK_EQ_INT(in_shared_object(g_data), 0);
    CHECK_EQ_INT(g_data[0], 1);
    MPI_Finalize();
    free(reach);
    return 0;
}
