/*
 * The NVSHMEM layer's host API (api/nvshmem/nvshmem.h) on shoal, checked
 * against values computed here, on the host heap (SHOAL_HEAP_KIND=host):
 *   init      nvshmem_init initializes MPI itself (MPI_THREAD_MULTIPLE) and
 *             nvshmem_finalize finalizes it; PE numbers are MPI's; RMA of
 *             typed, sized and byte forms, p/g, strided, nbi; every atomic
 *             kind from every PE; put_signal and signal_wait_until in a
 *             ring; wait_until and test; teams (split_strided, split_2d,
 *             translate, my_pe, n_pes, destroy) and collectives (barrier,
 *             sync, broadcast, fcollect, alltoall, reductions,
 *             reduce-scatters) on the world and on splits; a reduce-scatter
 *             in place refused (nonzero)
 *   comm      the program initializes MPI, and nvshmemx_init_attr puts the
 *             instance on half of MPI_COMM_WORLD (NVSHMEMX_INIT_WITH_MPI_COMM):
 *             the halves are separate jobs to NVSHMEM; MPI stays initialized
 *
 *   test_nvshmem init|comm
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "common/check.h"

/* The node's size as the test's environment makes it. */
static int node_size(int n)
{
    const char *ns = getenv("SHOAL_NODE_SIZE");
    int k = ns != NULL && atoi(ns) > 0 ? atoi(ns) : n;
    return k < n ? k : n;
}

/* The rest of the API: predefined teams, memory, sized and byte RMA,
 * signals, the wait and test families, bitwise atomics, the mem
 * collectives, stale team handles, a second init. */
static void check_more(int me, int n, int right, int left)
{
    int ns = node_size(n);
    CHECK_EQ_INT(nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE), ns);
    CHECK_EQ_INT(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE), me % ns);
    CHECK_EQ_INT(nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED), ns); /* host heaps on shm: all reach each other */
    CHECK_EQ_INT(nvshmem_team_n_pes(NVSHMEMX_TEAM_SAME_MYPE_NODE), n / ns);
    CHECK_EQ_INT(nvshmem_team_my_pe(NVSHMEMX_TEAM_SAME_MYPE_NODE), me / ns);
    CHECK_EQ_INT(nvshmem_sync(NVSHMEMX_TEAM_SAME_MYPE_NODE), 0);

    uint64_t *u = nvshmem_calloc(16, sizeof(uint64_t));
    unsigned char *b = nvshmem_calloc(64, 1);
    CHECK(u != NULL && b != NULL);
    /* nvshmem_ptr: a node peer's copy (shm), NULL for another node's */
    uint64_t *rp = nvshmem_ptr(u, right);
    CHECK((rp != NULL) == (right / ns == me / ns));
    CHECK(nvshmem_ptr(u, me) == u);
    unsigned char bytes[8] = {1, 2, 3, 4, 5, 6, 7, (unsigned char)me};
    nvshmem_put8(b, bytes, 8, right);
    nvshmem_put64(u + 8, &u[15], 1, right); /* zero, 8 bytes */
    nvshmem_putmem_signal(b + 8, bytes, 8, u, 5, NVSHMEM_SIGNAL_SET, right);
    nvshmemx_signal_op(u + 1, 3, NVSHMEM_SIGNAL_ADD, right);
    nvshmem_uint64_atomic_fetch_xor(u + 2, 0xf0, right);
    CHECK(nvshmem_uint64_atomic_fetch_and(u + 3, 0, right) == 0);
    nvshmem_barrier_all();
    CHECK(u[0] == 5 && u[1] == 3 && u[2] == 0xf0 && u[8] == 0);
    CHECK(b[7] == left && b[15] == left && b[0] == 1 && b[8] == 1);
    unsigned char g[8];
    nvshmem_getmem_nbi(g, b, 8, right);
    nvshmem_quiet();
    CHECK(g[7] == me);
    /* wait_until_any/some and the test families on u[4..7], set by left */
    nvshmem_barrier_all();
    nvshmem_uint64_p(u + 6, 9, right);
    size_t i = nvshmem_uint64_wait_until_any(u + 4, 4, NULL, NVSHMEM_CMP_EQ, 9);
    CHECK(i == 2);
    size_t idx[4], cnt = nvshmem_uint64_wait_until_some(u + 4, 4, idx, NULL, NVSHMEM_CMP_NE, 0);
    CHECK(cnt == 1 && idx[0] == 2);
    uint64_t want[4] = {0, 0, 9, 0};
    CHECK(nvshmem_uint64_test_all_vector(u + 4, 4, NULL, NVSHMEM_CMP_EQ, want) == 1);
    int status[4] = {0, 0, 1, 0};
    CHECK(nvshmem_uint64_test_any(u + 4, 4, status, NVSHMEM_CMP_EQ, 9) == SIZE_MAX);
    /* mem collectives and a min reduction */
    int *src = nvshmem_malloc(4 * (size_t)n * sizeof(int)), *dst = nvshmem_malloc(4 * (size_t)n * sizeof(int));
    CHECK(src != NULL && dst != NULL);
    for (int k = 0; k < 4 * n; k++) src[k] = me * 100 + k;
    nvshmem_barrier_all();
    CHECK_EQ_INT(nvshmem_fcollectmem(NVSHMEM_TEAM_WORLD, dst, src, sizeof(int)), 0);
    for (int k = 0; k < n; k++) CHECK_EQ_INT(dst[k], k * 100);
    nvshmem_sync_all();
    CHECK_EQ_INT(nvshmem_broadcastmem(NVSHMEM_TEAM_WORLD, dst, src, 2 * sizeof(int), 0), 0);
    CHECK_EQ_INT(dst[1], 1);
    nvshmem_sync_all();
    CHECK_EQ_INT(nvshmem_alltoallmem(NVSHMEM_TEAM_WORLD, dst, src, sizeof(int)), 0);
    for (int k = 0; k < n; k++) CHECK_EQ_INT(dst[k], k * 100 + me);
    nvshmem_sync_all();
    CHECK_EQ_INT(nvshmem_int_min_reduce(NVSHMEM_TEAM_WORLD, dst, src, 3), 0);
    CHECK_EQ_INT(dst[2], 2);
    nvshmem_sync_all();

    /* a destroyed team's handle stays invalid when its slot is reused */
    nvshmem_team_t a = NVSHMEM_TEAM_INVALID, c = NVSHMEM_TEAM_INVALID;
    CHECK_EQ_INT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &a), 0);
    nvshmem_team_destroy(a);
    CHECK_EQ_INT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &c), 0);
    CHECK(a != c && (a & 0xff) == (c & 0xff));
    CHECK_EQ_INT(nvshmem_team_n_pes(a), -1);
    CHECK_EQ_INT(nvshmem_team_n_pes(c), n);
    nvshmem_team_destroy(c);

    /* a second init: counted, matched by a finalize; another communicator refused */
    nvshmem_init();
    nvshmem_finalize();
    CHECK_EQ_INT(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
    if (n > 1) {
        MPI_Comm self = MPI_COMM_SELF;
        nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
        attr.mpi_comm = &self;
        CHECK(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0);
    }
    nvshmem_barrier_all();
    nvshmem_free(dst);
    nvshmem_free(src);
    nvshmem_free(b);
    nvshmem_free(u);
}

static void check_world(int me, int n)
{
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* RMA: typed, sized, bytes, p/g, strided, nbi */
    int *a = nvshmem_malloc(16 * sizeof(int));
    double *d = nvshmem_calloc(4, sizeof(double));
    long *s = nvshmem_align(256, 8 * sizeof(long));
    size_t used = 0, mapped = 0, limit = 0;
    CHECK(a != NULL && d != NULL && s != NULL && ((uintptr_t)s & 255) == 0);
    CHECK_EQ_INT(nvshmemx_heap_stats(&used, &mapped, &limit), 0);
    CHECK_MSG(used >= 16 * sizeof(int) + 4 * sizeof(double) + 8 * sizeof(long) && mapped >= used && limit >= mapped,
              "nvshmemx_heap_stats: used %zu, mapped %zu, limit %zu", used, mapped, limit);
    if (getenv("NVSHMEM_SYMMETRIC_SIZE") == NULL && getenv("SHOAL_HEAP_SIZE") == NULL)
        CHECK_MSG(limit == (size_t)1 << 30, "the heap's limit is %zu with no size set, not NVSHMEM's 1 GiB", limit);
    int v[16];
    for (int i = 0; i < 16; i++) v[i] = me * 100 + i;
    nvshmem_int_put(a, v, 8, right);
    nvshmem_put32(a + 8, v + 8, 4, right);
    nvshmem_putmem_nbi(a + 12, v + 12, 4 * sizeof(int), right);
    nvshmem_double_p(d + 1, 0.5 + me, right);
    nvshmem_quiet();
    nvshmem_barrier_all();
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(a[i], left * 100 + i);
    CHECK(d[1] == 0.5 + left);
    CHECK(nvshmem_double_g(d + 1, right) == 0.5 + me);
    int got[16];
    nvshmem_int_get(got, a, 16, right);
    for (int i = 0; i < 16; i++) CHECK_EQ_INT(got[i], me * 100 + i);
    long sv[4] = {1 + me, 2 + me, 3 + me, 4 + me};
    nvshmem_long_iput(s, sv, 2, 1, 4, right); /* s[0], s[2], s[4], s[6] */
    nvshmem_barrier_all();
    for (int i = 0; i < 4; i++) CHECK(s[2 * i] == i + 1 + left);
    long sg[4];
    nvshmem_long_iget(sg, s, 1, 2, 4, right);
    for (int i = 0; i < 4; i++) CHECK(sg[i] == i + 1 + me);
    nvshmem_barrier_all();

    /* atomics: every PE on PE 0's words */
    long long *w = nvshmem_calloc(8, sizeof(long long));
    CHECK(w != NULL);
    long long old = nvshmem_longlong_atomic_fetch_add(&w[0], 10, 0);
    CHECK(old % 10 == 0 && old < 10LL * n);
    nvshmem_longlong_atomic_inc(&w[1], 0);
    nvshmem_uint64_atomic_or((uint64_t *)&w[2], 1ULL << me, 0);
    if (me == n - 1) {
        nvshmem_longlong_atomic_set(&w[3], 77, 0);
        CHECK(nvshmem_longlong_atomic_swap(&w[3], 88, 0) == 77);
        CHECK(nvshmem_longlong_atomic_compare_swap(&w[3], 88, 99, 0) == 88);
        CHECK(nvshmem_longlong_atomic_fetch(&w[3], 0) == 99);
        CHECK(nvshmem_double_atomic_swap((double *)&w[4], 2.5, 0) == 0.0);
    }
    nvshmem_barrier_all();
    if (me == 0) {
        CHECK(w[0] == 10LL * n && w[1] == n && (uint64_t)w[2] == (n >= 64 ? ~0ULL : (1ULL << n) - 1) && w[3] == 99);
        double x;
        memcpy(&x, &w[4], sizeof(x));
        CHECK(x == 2.5);
    }

    /* signals: a ring of put_signal, waited on */
    uint64_t *sig = nvshmem_calloc(1, sizeof(uint64_t));
    int *ring = nvshmem_malloc(64 * sizeof(int));
    CHECK(sig != NULL && ring != NULL);
    nvshmem_barrier_all();
    for (int r = 0; r < 5; r++) {
        int data[8];
        for (int i = 0; i < 8; i++) data[i] = me * 1000 + r * 10 + i;
        nvshmem_int_put_signal(ring + 8 * r, data, 8, sig, 1, NVSHMEM_SIGNAL_ADD, right);
        CHECK(nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)r + 1) >= (uint64_t)r + 1);
        for (int i = 0; i < 8; i++) CHECK_EQ_INT(ring[8 * r + i], left * 1000 + r * 10 + i);
    }
    CHECK(nvshmem_signal_fetch(sig) == 5);

    /* wait_until and test on a flag from left */
    int *flag = nvshmem_calloc(1, sizeof(int));
    nvshmem_barrier_all();
    CHECK_EQ_INT(nvshmem_int_test(flag, NVSHMEM_CMP_EQ, 7), 0);
    nvshmem_sync_all(); /* everybody looked before anybody sets it */
    nvshmem_int_p(flag, 7, right);
    nvshmem_int_wait_until(flag, NVSHMEM_CMP_EQ, 7);
    CHECK_EQ_INT(nvshmem_int_test(flag, NVSHMEM_CMP_EQ, 7), 1);

    /* collectives on the world */
    int *src = nvshmem_malloc(4 * (size_t)n * sizeof(int)), *dst = nvshmem_malloc(4 * (size_t)n * sizeof(int));
    CHECK(src != NULL && dst != NULL);
    for (int i = 0; i < 4 * n; i++) src[i] = me * 10000 + i;
    nvshmem_barrier_all();
    CHECK_EQ_INT(nvshmem_int_sum_reduce(NVSHMEM_TEAM_WORLD, dst, src, 4), 0);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(dst[i], 10000 * n * (n - 1) / 2 + n * i);
    /* dest read: a sync before the next collective writes it (its data may come early) */
    CHECK_EQ_INT(nvshmem_team_sync(NVSHMEM_TEAM_WORLD), 0);
    CHECK_EQ_INT(nvshmem_int_broadcast(NVSHMEM_TEAM_WORLD, dst, src, 4, n - 1), 0);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(dst[i], (n - 1) * 10000 + i);
    CHECK_EQ_INT(nvshmem_team_sync(NVSHMEM_TEAM_WORLD), 0);
    CHECK_EQ_INT(nvshmem_int_fcollect(NVSHMEM_TEAM_WORLD, dst, src, 2), 0);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 2; i++) CHECK_EQ_INT(dst[2 * k + i], k * 10000 + i);
    CHECK_EQ_INT(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0); /* as team_sync, with quiet */
    CHECK_EQ_INT(nvshmem_int_alltoall(NVSHMEM_TEAM_WORLD, dst, src, 2), 0);
    for (int k = 0; k < n; k++)
        for (int i = 0; i < 2; i++) CHECK_EQ_INT(dst[2 * k + i], k * 10000 + 2 * me + i);
    nvshmem_sync_all();
    /* block me (src[2 * me + i]) of every PE's src, summed and or-ed */
    CHECK_EQ_INT(nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, dst, src, 2), 0);
    for (int i = 0; i < 2; i++) CHECK_EQ_INT(dst[i], 10000 * n * (n - 1) / 2 + n * (2 * me + i));
    CHECK_EQ_INT(nvshmem_team_sync(NVSHMEM_TEAM_WORLD), 0);
    CHECK_EQ_INT(nvshmem_uint_or_reducescatter(NVSHMEM_TEAM_WORLD, (unsigned *)dst, (const unsigned *)src, 1), 0);
    int bor = 0;
    for (int k = 0; k < n; k++) bor |= k * 10000 + me;
    CHECK_EQ_INT(dst[0], bor);
    CHECK_EQ_INT(nvshmem_team_sync(NVSHMEM_TEAM_WORLD), 0);
    CHECK_EQ_INT(nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, dst, src, 0), 0);
    /* in place (dest == source): refused on every PE, each with its own message */
    CHECK(nvshmem_int_sum_reducescatter(NVSHMEM_TEAM_WORLD, src, src, 1) != 0);
    nvshmem_sync_all();
    check_more(me, n, right, left);

    /* teams: the even PEs, and a 2-D split */
    nvshmem_team_t even = NVSHMEM_TEAM_INVALID, xt = NVSHMEM_TEAM_INVALID, yt = NVSHMEM_TEAM_INVALID;
    CHECK_EQ_INT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even), 0);
    if (me % 2 == 0) {
        CHECK(even != NVSHMEM_TEAM_INVALID);
        CHECK_EQ_INT(nvshmem_team_my_pe(even), me / 2);
        CHECK_EQ_INT(nvshmem_team_n_pes(even), (n + 1) / 2);
        CHECK_EQ_INT(nvshmem_team_translate_pe(even, nvshmem_team_my_pe(even), NVSHMEM_TEAM_WORLD), me);
        nvshmem_team_config_t cfg;
        CHECK_EQ_INT(nvshmem_team_get_config(even, &cfg), 0);
        long *ls = (long *)src, *ld = (long *)dst, want = 0;
        ls[0] = 10L * me;
        CHECK_EQ_INT(nvshmem_long_max_reduce(even, ld, ls, 1), 0);
        for (int k = 0; k < n; k += 2) want = 10L * k;
        CHECK(ld[0] == want);
        CHECK_EQ_INT(nvshmem_barrier(even), 0);
        nvshmem_team_destroy(even);
    } else {
        CHECK(even == NVSHMEM_TEAM_INVALID);
    }
    for (int i = 0; i < 4 * n; i++) src[i] = me * 10000 + i; /* the even PEs wrote longs over it */
    nvshmem_barrier_all();
    CHECK_EQ_INT(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt), 0);
    CHECK(xt != NVSHMEM_TEAM_INVALID && yt != NVSHMEM_TEAM_INVALID);
    CHECK_EQ_INT(nvshmem_team_my_pe(xt), me % 2);
    CHECK_EQ_INT(nvshmem_team_my_pe(yt), me / 2);
    CHECK_EQ_INT(nvshmem_int_sum_reduce(yt, dst, src, 1), 0);
    int want = 0;
    for (int k = me % 2; k < n; k += 2) want += k * 10000;
    CHECK_EQ_INT(dst[0], want);
    /* the column's reduce-scatter: block me / 2 of its members' src */
    CHECK_EQ_INT(nvshmem_team_sync(yt), 0);
    CHECK_EQ_INT(nvshmem_int_max_reducescatter(yt, dst, src, 2), 0);
    want = 0;
    for (int k = me % 2; k < n; k += 2) want = k * 10000 + 2 * (me / 2) + 1;
    CHECK_EQ_INT(dst[0], want - 1);
    CHECK_EQ_INT(dst[1], want);
    nvshmem_team_destroy(xt);
    nvshmem_team_destroy(yt);
    CHECK_EQ_INT(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID), -1);

    nvshmem_barrier_all();
    nvshmem_free(src);
    nvshmem_free(dst);
    nvshmem_free(flag);
    nvshmem_free(ring);
    nvshmem_free(sig);
    nvshmem_free(w);
    nvshmem_free(s);
    nvshmem_free(d);
    nvshmem_free(a);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int init = 0, fin = 0, rank = 0, size = 0;

    CHECK_MSG(strcmp(mode, "init") == 0 || strcmp(mode, "comm") == 0 || strcmp(mode, "env") == 0,
              "usage: test_nvshmem init|comm|env");
    if (strcmp(mode, "env") == 0) {
        /* NVSHMEM_VERSION and NVSHMEM_INFO (the test's environment sets
         * them, NVSHMEM_SYMMETRIC_SIZE=48m and NVSHMEM_DISABLE_NVLS=1):
         * PE 0's init output, read back from a file standing in for stdout. */
        char path[] = "/tmp/shoal-nvenv-XXXXXX", buf[65536] = "";
        int fd = mkstemp(path), saved = dup(1);
        size_t used = 0, limit = 0;
        CHECK(fd >= 0 && saved >= 0);
        fflush(stdout);
        CHECK(dup2(fd, 1) == 1);
        nvshmem_init();
        fflush(stdout);
        CHECK(dup2(saved, 1) == 1);
        close(saved);
        CHECK(lseek(fd, 0, SEEK_SET) == 0);
        ssize_t got = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        unlink(path);
        buf[got > 0 ? got : 0] = '\0';
        CHECK_EQ_INT(nvshmemx_heap_stats(&used, NULL, &limit), 0);
        CHECK_MSG(limit == (size_t)48 << 20, "NVSHMEM_SYMMETRIC_SIZE=48m: the heap's limit is %zu", limit);
        if (nvshmem_my_pe() == 0) {
            CHECK_CONTAINS(buf, "NVSHMEM 3.0.0's API (OpenSHMEM 1.3), carried by shoal");
            CHECK_CONTAINS(buf, "NVSHMEM_SYMMETRIC_SIZE=48m: the symmetric heap's size");
            CHECK_CONTAINS(buf, "NVSHMEM_DISABLE_NVLS=1: ignored: shoal has no such setting");
            CHECK_CONTAINS(buf, "SHOAL_HEAP_SIZE"); /* shoal's own settings follow */
            check_note("NVSHMEM_INFO: version, each NVSHMEM variable with what shoal does, shoal's settings");
        } else
            CHECK_MSG(buf[0] == '\0', "PE %d printed at init: %.200s", nvshmem_my_pe(), buf);
        check_verdict_pass();
        nvshmem_finalize();
        return 0;
    }
    if (strcmp(mode, "init") == 0) {
        int major = 0, minor = -1, level = 0, provided = -1;
        char name[NVSHMEM_MAX_NAME_LEN];
        CHECK_EQ_INT(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
        CHECK_EQ_INT(nvshmem_init_thread(NVSHMEM_THREAD_SERIALIZED, &provided), 0);
        CHECK_EQ_INT(provided, NVSHMEM_THREAD_MULTIPLE);
        MPI_Initialized(&init);
        CHECK_MSG(init, "nvshmem_init did not initialize MPI");
        MPI_Query_thread(&level);
        CHECK_EQ_INT(level, MPI_THREAD_MULTIPLE);
        CHECK_EQ_INT(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK_EQ_INT(nvshmem_my_pe(), rank);
        CHECK_EQ_INT(nvshmem_n_pes(), size);
        nvshmem_info_get_version(&major, &minor);
        CHECK_EQ_INT(major, NVSHMEM_MAJOR_VERSION);
        nvshmem_info_get_name(name);
        CHECK_CONTAINS(name, "shoal");
        check_world(nvshmem_my_pe(), nvshmem_n_pes());
        if (rank == 0) check_note("nvshmem_init on MPI it started: %d PEs passed", size);
        check_verdict_pass();
        nvshmem_finalize();
        MPI_Finalized(&fin);
        CHECK_MSG(fin, "nvshmem_finalize did not finalize the MPI nvshmem_init started");
        return 0;
    }
    /* comm: the program's own MPI, the instance on half of it */
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half) == MPI_SUCCESS);
    nvshmemx_init_attr_t attr;
    memset(&attr, 0, sizeof(attr));
    attr.mpi_comm = &half;
    CHECK_EQ_INT(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr), 0);
    int hr = 0, hs = 0;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    CHECK_EQ_INT(nvshmem_my_pe(), hr);
    CHECK_EQ_INT(nvshmem_n_pes(), hs);
    check_world(hr, hs);
    /* a flag an unsupported bootstrap asks for: refused, with a message */
    CHECK(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0);
    nvshmem_finalize();
    MPI_Finalized(&fin);
    CHECK_MSG(!fin, "nvshmem_finalize finalized the program's MPI");
    if (rank == 0) check_note("nvshmemx_init_attr on halves of %d ranks passed", size);
    check_verdict_pass();
    MPI_Comm_free(&half);
    MPI_Finalize();
    return 0;
}
