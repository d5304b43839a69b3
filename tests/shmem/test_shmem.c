/*
 * The OpenSHMEM 1.5 layer (api/shmem/shmem.h) where the community's programs
 * (tests/sos) do not reach: every value crosses PEs and is checked against
 * a reference computed here.
 *
 * 1. RMA for every type of SHOAL_RMA_TYPES, on a global array and on
 *    shmem_calloc memory: put, get, put_nbi, get_nbi, p, g, iput, iget,
 *    each blocking and through SHMEM_CTX_DEFAULT; sized put8..put128 with
 *    their get, nbi, iput and iget forms; putmem/getmem (+nbi, + ctx).
 * 2. Atomics for every type and op of SHOAL_AMO_TYPES, _EXT_TYPES and
 *    _BITWISE_TYPES (plain, ctx, _nbi fetching forms), from every PE to
 *    every PE, totals exact; fetch_inc's fetched values a permutation.
 * 3. put_signal: typed, sized, mem, nbi, ctx, SET (ring) and ADD (all to
 *    all) with signal_wait_until and signal_fetch.
 * 4. wait_until / test for every type of SHOAL_WAIT_TYPES and every
 *    comparison; _all/_any/_some and their _vector forms, with status masks
 *    (and all masked); test is 0 before the writer may write.
 * 5. Teams: get_config (a team's num_contexts as created), split_strided (a
 *    negative stride refused), split_2d, translate_pe, team
 *    contexts (their PE numbers are the team's), ctx_get_team; collectives
 *    on the world, the even PEs and the 2-D rows: broadcast, collect
 *    (counts per PE differ, 0 among them), fcollect, alltoall, alltoalls
 *    (strides 2 and 3), reductions in place for several types, all ops.
 * 6. Four threads, each with its own context (SHMEM_THREAD_MULTIPLE; the
 *    part is skipped when it is not provided): puts and atomics, ctx_quiet.
 * 7. Memory: realloc keeps contents, calloc zeroes, align, malloc with
 *    hints, shmem_ptr, addr_accessible (global, heap, stack); info and
 *    query_thread.
 * 8. The C11 generic forms, with and without a leading SHMEM_CTX_DEFAULT.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/check.h"
#include "shmem.h"
#include "shmemx.h"

#define NE 8 /* elements per segment */
#define SEGS 7
#define MAXPE 16

static int me, npes, right, left, provided;

static int vi(int pe, int i, int k) { return 1 + (pe * 7 + i * 3 + k * 11) % 97; }

/* ------------------------------------------------------------------ 1. RMA */

#define RMA_GLOBAL(T, N) static T rma_g_##N[SEGS * NE];
SHOAL_RMA_TYPES(RMA_GLOBAL)
#undef RMA_GLOBAL

#define RMA_CHK(cond, seg, i) CHECK_MSG(cond, "type %s on %s: segment %d element %d", type, where, (int)(seg), (int)(i))

/* sym: SEGS*NE zeroed symmetric elements. Segments: 0 put, 1 ctx put,
 * 2 put_nbi, 3 ctx put_nbi, 4 p and ctx p, 5 iput and ctx iput
 * interleaved, 6 iput with gaps (stride 2 of source stride 3). */
#define RMA_TEST(T, N)                                                                                                 \
    static void rma_##N(T *sym, const char *where)                                                                     \
    {                                                                                                                  \
        static const char *type = #N;                                                                                  \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                                           \
        T src[SEGS * NE], dst[SEGS * NE];                                                                              \
        for (int s = 0; s < SEGS; s++)                                                                                 \
            for (int i = 0; i < NE; i++) src[s * NE + i] = (T)vi(me, i, s);                                            \
        memset(dst, 0, sizeof(dst));                                                                                   \
        shmem_##N##_put(sym, src, NE, right);                                                                          \
        shmem_ctx_##N##_put(ctx, sym + NE, src + NE, NE, right);                                                       \
        shmem_##N##_put_nbi(sym + 2 * NE, src + 2 * NE, NE, right);                                                    \
        shmem_ctx_##N##_put_nbi(ctx, sym + 3 * NE, src + 3 * NE, NE, right);                                           \
        shmem_ctx_quiet(ctx);                                                                                          \
        shmem_##N##_p(sym + 4 * NE, src[4 * NE], right);                                                               \
        shmem_ctx_##N##_p(ctx, sym + 4 * NE + 1, src[4 * NE + 1], right);                                              \
        shmem_##N##_iput(sym + 5 * NE, src + 5 * NE, 2, 1, NE / 2, right);                                             \
        shmem_ctx_##N##_iput(ctx, sym + 5 * NE + 1, src + 5 * NE + NE / 2, 2, 1, NE / 2, right);                       \
        shmem_##N##_iput(sym + 6 * NE, src + 6 * NE, 2, 3, 3, right);                                                  \
        shmem_barrier_all();                                                                                           \
        for (int s = 0; s < 4; s++)                                                                                    \
            for (int i = 0; i < NE; i++) RMA_CHK(sym[s * NE + i] == (T)vi(left, i, s), s, i);                          \
        for (int i = 0; i < NE; i++) RMA_CHK(sym[4 * NE + i] == (T)(i < 2 ? vi(left, i, 4) : 0), 4, i);                \
        for (int k = 0; k < NE / 2; k++) {                                                                             \
            RMA_CHK(sym[5 * NE + 2 * k] == (T)vi(left, k, 5), 5, 2 * k);                                               \
            RMA_CHK(sym[5 * NE + 2 * k + 1] == (T)vi(left, NE / 2 + k, 5), 5, 2 * k + 1);                              \
        }                                                                                                              \
        for (int i = 0; i < NE; i++)                                                                                   \
            RMA_CHK(sym[6 * NE + i] == (T)((i % 2 == 0 && i < 6) ? vi(left, 3 * (i / 2), 6) : 0), 6, i);               \
        /* right's copy holds what this PE put there */                                                                \
        shmem_##N##_get(dst, sym, NE, right);                                                                          \
        shmem_ctx_##N##_get(ctx, dst + NE, sym + NE, NE, right);                                                       \
        shmem_##N##_get_nbi(dst + 2 * NE, sym + 2 * NE, NE, right);                                                    \
        shmem_ctx_##N##_get_nbi(ctx, dst + 3 * NE, sym + 3 * NE, NE, right);                                           \
        shmem_quiet();                                                                                                 \
        shmem_ctx_quiet(ctx);                                                                                          \
        for (int s = 0; s < 4; s++)                                                                                    \
            for (int i = 0; i < NE; i++) RMA_CHK(dst[s * NE + i] == (T)vi(me, i, s), 10 + s, i);                       \
        RMA_CHK(shmem_##N##_g(sym + 4 * NE, right) == (T)vi(me, 0, 4), 14, 0);                                         \
        RMA_CHK(shmem_ctx_##N##_g(ctx, sym + 4 * NE + 1, right) == (T)vi(me, 1, 4), 14, 1);                            \
        shmem_##N##_iget(dst + 5 * NE, sym + 5 * NE, 1, 2, NE / 2, right);                                             \
        shmem_ctx_##N##_iget(ctx, dst + 6 * NE, sym + 5 * NE + 1, 2, 2, NE / 2, right);                                \
        for (int k = 0; k < NE / 2; k++) {                                                                             \
            RMA_CHK(dst[5 * NE + k] == (T)vi(me, k, 5), 15, k);                                                        \
            RMA_CHK(dst[6 * NE + 2 * k] == (T)vi(me, NE / 2 + k, 5), 16, 2 * k);                                       \
            RMA_CHK(dst[6 * NE + 2 * k + 1] == (T)0, 16, 2 * k + 1);                                                   \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
    }
SHOAL_RMA_TYPES(RMA_TEST)
#undef RMA_TEST

static void test_rma(void)
{
#define RMA_RUN(T, N)                                                                                                  \
    do {                                                                                                               \
        T *h = shmem_calloc(SEGS * NE, sizeof(T));                                                                     \
        CHECK(h != NULL);                                                                                              \
        rma_##N(rma_g_##N, "global");                                                                                  \
        rma_##N(h, "heap");                                                                                            \
        shmem_free(h);                                                                                                 \
    } while (0);
    SHOAL_RMA_TYPES(RMA_RUN)
#undef RMA_RUN
}

/* Sized: segments of 128 bytes: 0 put, 1 ctx put, 2 put_nbi, 3 ctx
 * put_nbi (4 elements each), 4 iput (slots 0, 2, 4) and ctx iput (1, 3). */
#define SZ_SEG 128
static _Alignas(16) unsigned char sized_g[8 * SZ_SEG];

static unsigned char bv(int pe, int seg, int b) { return (unsigned char)(pe * 31 + seg * 17 + b * 5 + 1); }

#define SZ_CHK(cond, seg, b) CHECK_MSG(cond, "%d-bit on %s: segment %d byte %d", bits, where, (int)(seg), (int)(b))

#define SIZED_TEST(BITS)                                                                                               \
    static void sized_##BITS(unsigned char *sym, const char *where)                                                    \
    {                                                                                                                  \
        const int bits = BITS, e = BITS / 8;                                                                           \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                                           \
        _Alignas(16) unsigned char src[5 * SZ_SEG], dst[5 * SZ_SEG];                                                   \
        for (int s = 0; s < 5; s++)                                                                                    \
            for (int b = 0; b < SZ_SEG; b++) src[s * SZ_SEG + b] = bv(me, s, b);                                       \
        memset(dst, 0, sizeof(dst));                                                                                   \
        memset(sym, 0, 5 * SZ_SEG);                                                                                    \
        shmem_barrier_all();                                                                                           \
        shmem_put##BITS(sym, src, 4, right);                                                                           \
        shmem_ctx_put##BITS(ctx, sym + SZ_SEG, src + SZ_SEG, 4, right);                                                \
        shmem_put##BITS##_nbi(sym + 2 * SZ_SEG, src + 2 * SZ_SEG, 4, right);                                           \
        shmem_ctx_put##BITS##_nbi(ctx, sym + 3 * SZ_SEG, src + 3 * SZ_SEG, 4, right);                                  \
        shmem_iput##BITS(sym + 4 * SZ_SEG, src + 4 * SZ_SEG, 2, 1, 3, right);                                          \
        shmem_ctx_iput##BITS(ctx, sym + 4 * SZ_SEG + e, src + 4 * SZ_SEG + 3 * e, 2, 1, 2, right);                     \
        shmem_barrier_all();                                                                                           \
        for (int s = 0; s < 4; s++)                                                                                    \
            for (int b = 0; b < SZ_SEG; b++) SZ_CHK(sym[s * SZ_SEG + b] == (b < 4 * e ? bv(left, s, b) : 0), s, b);    \
        for (int b = 0; b < SZ_SEG; b++) {                                                                             \
            int slot = b / e, k = slot % 2 == 0 ? slot / 2 : 3 + slot / 2;                                             \
            SZ_CHK(sym[4 * SZ_SEG + b] == (slot < 5 ? bv(left, 4, k * e + b % e) : 0), 4, b);                          \
        }                                                                                                              \
        shmem_get##BITS(dst, sym, 4, right);                                                                           \
        shmem_ctx_get##BITS(ctx, dst + SZ_SEG, sym + SZ_SEG, 4, right);                                                \
        shmem_get##BITS##_nbi(dst + 2 * SZ_SEG, sym + 2 * SZ_SEG, 4, right);                                           \
        shmem_ctx_get##BITS##_nbi(ctx, dst + 3 * SZ_SEG, sym + 3 * SZ_SEG, 4, right);                                  \
        shmem_quiet();                                                                                                 \
        for (int s = 0; s < 4; s++)                                                                                    \
            for (int b = 0; b < SZ_SEG; b++) SZ_CHK(dst[s * SZ_SEG + b] == (b < 4 * e ? bv(me, s, b) : 0), 10 + s, b); \
        memset(dst, 0, sizeof(dst));                                                                                   \
        shmem_iget##BITS(dst, sym + 4 * SZ_SEG, 1, 2, 3, right);                                                       \
        shmem_ctx_iget##BITS(ctx, dst + SZ_SEG, sym + 4 * SZ_SEG + e, 2, 2, 2, right);                                 \
        for (int b = 0; b < 3 * e; b++) SZ_CHK(dst[b] == bv(me, 4, b), 14, b);                                         \
        SZ_CHK(dst[3 * e] == 0, 14, 3 * e);                                                                            \
        for (int b = 0; b < 4 * e; b++) {                                                                              \
            int slot = b / e;                                                                                          \
            SZ_CHK(dst[SZ_SEG + b] == (slot % 2 == 0 ? bv(me, 4, (3 + slot / 2) * e + b % e) : 0), 15, b);             \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
    }
#define SIZES(X) X(8) X(16) X(32) X(64) X(128)
SIZES(SIZED_TEST)

/* putmem/getmem (+nbi, + ctx), 37 bytes (odd) at odd offsets. */
static void mem_test(unsigned char *sym, const char *where)
{
    const int bits = 0, L = 37;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    unsigned char src[4 * SZ_SEG], dst[4 * SZ_SEG];
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < SZ_SEG; b++) src[s * SZ_SEG + b] = bv(me, 20 + s, b);
    memset(dst, 0, sizeof(dst));
    memset(sym, 0, 4 * SZ_SEG);
    shmem_barrier_all();
    shmem_putmem(sym + 1, src, L, right);
    shmem_ctx_putmem(ctx, sym + SZ_SEG + 1, src + SZ_SEG, L, right);
    shmem_putmem_nbi(sym + 2 * SZ_SEG + 1, src + 2 * SZ_SEG, L, right);
    shmem_ctx_putmem_nbi(ctx, sym + 3 * SZ_SEG + 1, src + 3 * SZ_SEG, L, right);
    shmem_barrier_all();
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < SZ_SEG; b++)
            SZ_CHK(sym[s * SZ_SEG + b] == ((b >= 1 && b <= L) ? bv(left, 20 + s, b - 1) : 0), s, b);
    shmem_getmem(dst, sym + 1, L, right);
    shmem_ctx_getmem(ctx, dst + SZ_SEG, sym + SZ_SEG + 1, L, right);
    shmem_getmem_nbi(dst + 2 * SZ_SEG, sym + 2 * SZ_SEG + 1, L, right);
    shmem_ctx_getmem_nbi(ctx, dst + 3 * SZ_SEG, sym + 3 * SZ_SEG + 1, L, right);
    shmem_quiet();
    for (int s = 0; s < 4; s++)
        for (int b = 0; b < SZ_SEG; b++) SZ_CHK(dst[s * SZ_SEG + b] == (b < L ? bv(me, 20 + s, b) : 0), 10 + s, b);
    shmem_barrier_all();
}

static void test_sized(void)
{
    unsigned char *h = shmem_calloc(8 * SZ_SEG, 1);
    CHECK(h != NULL);
#define SIZED_RUN(BITS)                                                                                                \
    sized_##BITS(sized_g, "global");                                                                                   \
    sized_##BITS(h, "heap");
    SIZES(SIZED_RUN)
#undef SIZED_RUN
    mem_test(sized_g, "global");
    mem_test(h, "heap");
    shmem_free(h);
}

/* -------------------------------------------------------------- 2. atomics */

#define AMO_SLOTS 8
#define AMO_GLOBAL(T, N) static T amo_g_##N[AMO_SLOTS];
SHOAL_AMO_TYPES(AMO_GLOBAL)
SHOAL_AMO_EXT_TYPES(AMO_GLOBAL)
#undef AMO_GLOBAL
#define BIT_GLOBAL(T, N) static T bit_g_##N[4];
SHOAL_AMO_BITWISE_TYPES(BIT_GLOBAL)
#undef BIT_GLOBAL
static long perm_g[4 * MAXPE];

static int in_range(long long v, long long hi) { return v >= 0 && v <= hi; }

#define AMO_CHK(cond, what) CHECK_MSG(cond, "atomic %s %s on %s", type, what, where)

/* fetch, set, swap (+ nbi, ctx) around the ring on slots 4 and 5: every type. */
#define AMO_RING(T, N)                                                                                                 \
    static void amo_ring_##N(T *a, const char *where)                                                                  \
    {                                                                                                                  \
        static const char *type = #N;                                                                                  \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                                           \
        T x = 0, y = 0;                                                                                                \
        shmem_##N##_atomic_set(&a[4], (T)vi(me, 0, 0), right);                                                         \
        shmem_ctx_##N##_atomic_set(ctx, &a[5], (T)vi(me, 1, 0), right);                                                \
        shmem_barrier_all();                                                                                           \
        AMO_CHK(a[4] == (T)vi(left, 0, 0) && a[5] == (T)vi(left, 1, 0), "set");                                        \
        shmem_barrier_all(); /* before right's swaps change it */                                                      \
        AMO_CHK(shmem_##N##_atomic_fetch(&a[4], right) == (T)vi(me, 0, 0), "fetch");                                   \
        AMO_CHK(shmem_ctx_##N##_atomic_fetch(ctx, &a[5], right) == (T)vi(me, 1, 0), "ctx fetch");                      \
        shmem_##N##_atomic_fetch_nbi(&x, &a[4], right);                                                                \
        shmem_ctx_##N##_atomic_fetch_nbi(ctx, &y, &a[5], right);                                                       \
        shmem_quiet();                                                                                                 \
        AMO_CHK(x == (T)vi(me, 0, 0) && y == (T)vi(me, 1, 0), "fetch_nbi");                                            \
        AMO_CHK(shmem_##N##_atomic_swap(&a[4], (T)vi(me, 2, 0), right) == (T)vi(me, 0, 0), "swap");                    \
        AMO_CHK(shmem_ctx_##N##_atomic_swap(ctx, &a[5], (T)vi(me, 3, 0), right) == (T)vi(me, 1, 0), "ctx swap");       \
        shmem_##N##_atomic_swap_nbi(&x, &a[4], (T)vi(me, 4, 0), right);                                                \
        shmem_ctx_##N##_atomic_swap_nbi(ctx, &y, &a[5], (T)vi(me, 5, 0), right);                                       \
        shmem_ctx_quiet(ctx);                                                                                          \
        AMO_CHK(x == (T)vi(me, 2, 0) && y == (T)vi(me, 3, 0), "swap_nbi");                                             \
        shmem_barrier_all();                                                                                           \
        AMO_CHK(a[4] == (T)vi(left, 4, 0) && a[5] == (T)vi(left, 5, 0), "swap result");                                \
        shmem_barrier_all();                                                                                           \
    }
SHOAL_AMO_TYPES(AMO_RING)
SHOAL_AMO_EXT_TYPES(AMO_RING)
#undef AMO_RING

/* add, fetch_add, inc, fetch_inc from every PE to every PE (slots 0-3),
 * compare_swap around the ring (slot 6). */
#define AMO_STD(T, N)                                                                                                  \
    static void amo_std_##N(T *a, const char *where)                                                                   \
    {                                                                                                                  \
        static const char *type = #N;                                                                                  \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                                           \
        const long tri = (long)npes * (npes + 1) / 2;                                                                  \
        T fa[MAXPE][2], fi[MAXPE][4], x = 0, f;                                                                        \
        for (int t = 0; t < npes; t++) {                                                                               \
            shmem_##N##_atomic_add(&a[0], (T)(me + 1), t);                                                             \
            shmem_ctx_##N##_atomic_add(ctx, &a[0], (T)(me + 1), t);                                                    \
            f = shmem_##N##_atomic_fetch_add(&a[1], (T)(me + 1), t);                                                   \
            AMO_CHK(in_range((long long)f, 4 * tri - (me + 1)), "fetch_add");                                          \
            f = shmem_ctx_##N##_atomic_fetch_add(ctx, &a[1], (T)(me + 1), t);                                          \
            AMO_CHK(in_range((long long)f, 4 * tri - (me + 1)), "ctx fetch_add");                                      \
            shmem_##N##_atomic_fetch_add_nbi(&fa[t][0], &a[1], (T)(me + 1), t);                                        \
            shmem_ctx_##N##_atomic_fetch_add_nbi(ctx, &fa[t][1], &a[1], (T)(me + 1), t);                               \
            fi[t][0] = shmem_##N##_atomic_fetch_inc(&a[2], t);                                                         \
            fi[t][1] = shmem_ctx_##N##_atomic_fetch_inc(ctx, &a[2], t);                                                \
            shmem_##N##_atomic_fetch_inc_nbi(&fi[t][2], &a[2], t);                                                     \
            shmem_ctx_##N##_atomic_fetch_inc_nbi(ctx, &fi[t][3], &a[2], t);                                            \
            shmem_##N##_atomic_inc(&a[3], t);                                                                          \
            shmem_ctx_##N##_atomic_inc(ctx, &a[3], t);                                                                 \
        }                                                                                                              \
        shmem_quiet();                                                                                                 \
        shmem_ctx_quiet(ctx);                                                                                          \
        for (int t = 0; t < npes; t++) {                                                                               \
            long v[4];                                                                                                 \
            for (int j = 0; j < 2; j++) AMO_CHK(in_range((long long)fa[t][j], 4 * tri - (me + 1)), "fetch_add_nbi");   \
            for (int j = 0; j < 4; j++) v[j] = (long)fi[t][j];                                                         \
            shmem_long_put(&perm_g[4 * me], v, 4, t);                                                                  \
        }                                                                                                              \
        /* compare_swap on right's slot 6 (0 everywhere so far) */                                                     \
        AMO_CHK(shmem_##N##_atomic_compare_swap(&a[6], 0, (T)vi(me, 0, 1), right) == 0, "compare_swap");               \
        AMO_CHK(shmem_##N##_atomic_compare_swap(&a[6], 0, (T)99, right) == (T)vi(me, 0, 1), "compare_swap (fails)");   \
        AMO_CHK(shmem_ctx_##N##_atomic_compare_swap(ctx, &a[6], (T)vi(me, 0, 1), (T)vi(me, 1, 1), right) ==            \
                    (T)vi(me, 0, 1),                                                                                   \
                "ctx compare_swap");                                                                                   \
        shmem_##N##_atomic_compare_swap_nbi(&x, &a[6], (T)vi(me, 1, 1), (T)vi(me, 2, 1), right);                       \
        shmem_quiet();                                                                                                 \
        AMO_CHK(x == (T)vi(me, 1, 1), "compare_swap_nbi");                                                             \
        shmem_ctx_##N##_atomic_compare_swap_nbi(ctx, &x, &a[6], (T)vi(me, 2, 1), (T)vi(me, 3, 1), right);              \
        shmem_ctx_quiet(ctx);                                                                                          \
        AMO_CHK(x == (T)vi(me, 2, 1), "ctx compare_swap_nbi");                                                         \
        shmem_barrier_all();                                                                                           \
        AMO_CHK((long)a[0] == 2 * tri, "add total");                                                                   \
        AMO_CHK((long)a[1] == 4 * tri, "fetch_add total");                                                             \
        AMO_CHK((long)a[2] == 4 * npes, "fetch_inc total");                                                            \
        AMO_CHK((long)a[3] == 2 * npes, "inc total");                                                                  \
        AMO_CHK(a[6] == (T)vi(left, 3, 1), "compare_swap result");                                                     \
        {                                                                                                              \
            char seen[4 * MAXPE] = {0};                                                                                \
            for (int k = 0; k < 4 * npes; k++) {                                                                       \
                AMO_CHK(perm_g[k] >= 0 && perm_g[k] < 4 * npes && !seen[perm_g[k]], "fetch_inc permutation");          \
                seen[perm_g[k]] = 1;                                                                                   \
            }                                                                                                          \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
    }
SHOAL_AMO_TYPES(AMO_STD)
#undef AMO_STD

/* and, or, xor (+ fetch, nbi, ctx) from every PE to every PE: PE p's
 * form j changes bit p + 5j only, so every fetched value is checked too. */
#define AMO_BIT(T, N)                                                                                                  \
    static void amo_bit_##N(T *b, const char *where)                                                                   \
    {                                                                                                                  \
        static const char *type = #N;                                                                                  \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                                           \
        T fo[MAXPE][2], fx[MAXPE][2], fn[MAXPE][2], f, mask = 0;                                                       \
        T bit[6];                                                                                                      \
        for (int j = 0; j < 6; j++) bit[j] = (T)((T)1 << (me + 5 * j));                                                \
        for (int p = 0; p < npes; p++)                                                                                 \
            for (int j = 0; j < 6; j++) mask |= (T)((T)1 << (p + 5 * j));                                              \
        b[0] = 0;                                                                                                      \
        b[1] = 0;                                                                                                      \
        b[2] = (T) ~(T)0;                                                                                              \
        shmem_barrier_all();                                                                                           \
        for (int t = 0; t < npes; t++) {                                                                               \
            shmem_##N##_atomic_or(&b[0], bit[0], t);                                                                   \
            shmem_ctx_##N##_atomic_or(ctx, &b[0], bit[1], t);                                                          \
            f = shmem_##N##_atomic_fetch_or(&b[0], bit[2], t);                                                         \
            AMO_CHK(!(f & bit[2]), "fetch_or");                                                                        \
            f = shmem_ctx_##N##_atomic_fetch_or(ctx, &b[0], bit[3], t);                                                \
            AMO_CHK(!(f & bit[3]), "ctx fetch_or");                                                                    \
            shmem_##N##_atomic_fetch_or_nbi(&fo[t][0], &b[0], bit[4], t);                                              \
            shmem_ctx_##N##_atomic_fetch_or_nbi(ctx, &fo[t][1], &b[0], bit[5], t);                                     \
            shmem_##N##_atomic_xor(&b[1], bit[0], t);                                                                  \
            shmem_ctx_##N##_atomic_xor(ctx, &b[1], bit[1], t);                                                         \
            f = shmem_##N##_atomic_fetch_xor(&b[1], bit[2], t);                                                        \
            AMO_CHK(!(f & bit[2]), "fetch_xor");                                                                       \
            f = shmem_ctx_##N##_atomic_fetch_xor(ctx, &b[1], bit[3], t);                                               \
            AMO_CHK(!(f & bit[3]), "ctx fetch_xor");                                                                   \
            shmem_##N##_atomic_fetch_xor_nbi(&fx[t][0], &b[1], bit[4], t);                                             \
            shmem_ctx_##N##_atomic_fetch_xor_nbi(ctx, &fx[t][1], &b[1], bit[5], t);                                    \
            shmem_##N##_atomic_and(&b[2], (T)~bit[0], t);                                                              \
            shmem_ctx_##N##_atomic_and(ctx, &b[2], (T)~bit[1], t);                                                     \
            f = shmem_##N##_atomic_fetch_and(&b[2], (T)~bit[2], t);                                                    \
            AMO_CHK((f & bit[2]) != 0, "fetch_and");                                                                   \
            f = shmem_ctx_##N##_atomic_fetch_and(ctx, &b[2], (T)~bit[3], t);                                           \
            AMO_CHK((f & bit[3]) != 0, "ctx fetch_and");                                                               \
            shmem_##N##_atomic_fetch_and_nbi(&fn[t][0], &b[2], (T)~bit[4], t);                                         \
            shmem_ctx_##N##_atomic_fetch_and_nbi(ctx, &fn[t][1], &b[2], (T)~bit[5], t);                                \
        }                                                                                                              \
        shmem_quiet();                                                                                                 \
        for (int t = 0; t < npes; t++)                                                                                 \
            for (int j = 0; j < 2; j++) {                                                                              \
                AMO_CHK(!(fo[t][j] & bit[4 + j]), "fetch_or_nbi");                                                     \
                AMO_CHK(!(fx[t][j] & bit[4 + j]), "fetch_xor_nbi");                                                    \
                AMO_CHK((fn[t][j] & bit[4 + j]) != 0, "fetch_and_nbi");                                                \
            }                                                                                                          \
        shmem_barrier_all();                                                                                           \
        AMO_CHK(b[0] == mask, "or total");                                                                             \
        AMO_CHK(b[1] == mask, "xor total");                                                                            \
        AMO_CHK(b[2] == (T)~mask, "and total");                                                                        \
        shmem_barrier_all();                                                                                           \
    }
SHOAL_AMO_BITWISE_TYPES(AMO_BIT)
#undef AMO_BIT

static void test_amo(void)
{
#define AMO_RUN_STD(T, N)                                                                                              \
    do {                                                                                                               \
        T *h = shmem_calloc(AMO_SLOTS, sizeof(T));                                                                     \
        CHECK(h != NULL);                                                                                              \
        amo_std_##N(amo_g_##N, "global");                                                                              \
        amo_std_##N(h, "heap");                                                                                        \
        amo_ring_##N(amo_g_##N, "global");                                                                             \
        amo_ring_##N(h, "heap");                                                                                       \
        shmem_free(h);                                                                                                 \
    } while (0);
#define AMO_RUN_EXT(T, N)                                                                                              \
    do {                                                                                                               \
        T *h = shmem_calloc(AMO_SLOTS, sizeof(T));                                                                     \
        CHECK(h != NULL);                                                                                              \
        amo_ring_##N(amo_g_##N, "global");                                                                             \
        amo_ring_##N(h, "heap");                                                                                       \
        shmem_free(h);                                                                                                 \
    } while (0);
#define AMO_RUN_BIT(T, N)                                                                                              \
    do {                                                                                                               \
        T *h = shmem_calloc(4, sizeof(T));                                                                             \
        CHECK(h != NULL);                                                                                              \
        amo_bit_##N(bit_g_##N, "global");                                                                              \
        amo_bit_##N(h, "heap");                                                                                        \
        shmem_free(h);                                                                                                 \
    } while (0);
    SHOAL_AMO_TYPES(AMO_RUN_STD)
    SHOAL_AMO_EXT_TYPES(AMO_RUN_EXT)
    if (npes <= 5) {
        SHOAL_AMO_BITWISE_TYPES(AMO_RUN_BIT)
    }
#undef AMO_RUN_STD
#undef AMO_RUN_EXT
#undef AMO_RUN_BIT
}

/* -------------------------------------------------------------- 3. signals */

static long sig_long_g[NE];
static int sig_int_g[NE];
static uint32_t sig_u32_g[NE];
static unsigned char sig_mem_g[40];
static uint64_t sig_add64_g[MAXPE * NE];
static unsigned char sig_addmem_g[MAXPE * 40];
static double sig_addd_g[MAXPE * NE];
static uint16_t sig_add16_g[MAXPE * NE];
static uint64_t sig_w[8];

static void test_signal(void)
{
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    long sl[NE];
    int si[NE];
    uint32_t s32[NE];
    unsigned char sm[40];
    uint64_t s64[NE];
    double sd[NE];
    uint16_t s16[NE];
    const uint64_t tri = (uint64_t)npes * (npes + 1) / 2;
    for (int i = 0; i < NE; i++) {
        sl[i] = vi(me, i, 30);
        si[i] = vi(me, i, 31);
        s32[i] = (uint32_t)vi(me, i, 32);
        s64[i] = (uint64_t)vi(me, i, 33) << 33;
        sd[i] = vi(me, i, 34) + 0.5;
        s16[i] = (uint16_t)vi(me, i, 35);
    }
    for (int b = 0; b < 40; b++) sm[b] = bv(me, 36, b);
    /* SET around the ring */
    shmem_long_put_signal(sig_long_g, sl, NE, &sig_w[0], 1000 + me, SHMEM_SIGNAL_SET, right);
    shmem_ctx_int_put_signal_nbi(ctx, sig_int_g, si, NE, &sig_w[1], 2000 + me, SHMEM_SIGNAL_SET, right);
    shmem_put32_signal(sig_u32_g, s32, NE, &sig_w[2], 3000 + me, SHMEM_SIGNAL_SET, right);
    shmem_putmem_signal_nbi(sig_mem_g, sm, 40, &sig_w[3], 4000 + me, SHMEM_SIGNAL_SET, right);
    /* ADD from every PE to every PE */
    for (int t = 0; t < npes; t++) {
        shmem_put64_signal(&sig_add64_g[me * NE], s64, NE, &sig_w[4], me + 1, SHMEM_SIGNAL_ADD, t);
        shmem_ctx_putmem_signal(ctx, &sig_addmem_g[me * 40], sm, 40, &sig_w[5], me + 1, SHMEM_SIGNAL_ADD, t);
        shmem_double_put_signal_nbi(&sig_addd_g[me * NE], sd, NE, &sig_w[6], me + 1, SHMEM_SIGNAL_ADD, t);
        shmem_ctx_put16_signal_nbi(ctx, &sig_add16_g[me * NE], s16, NE, &sig_w[7], me + 1, SHMEM_SIGNAL_ADD, t);
    }
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK_EQ_INT(shmem_signal_wait_until(&sig_w[0], SHMEM_CMP_EQ, 1000 + left), 1000 + left);
    CHECK_EQ_INT(shmem_signal_wait_until(&sig_w[1], SHMEM_CMP_GE, 2000), 2000 + left);
    CHECK_EQ_INT(shmem_signal_wait_until(&sig_w[2], SHMEM_CMP_GT, 2999), 3000 + left);
    CHECK_EQ_INT(shmem_signal_wait_until(&sig_w[3], SHMEM_CMP_NE, 0), 4000 + left);
    for (int k = 4; k < 8; k++) {
        CHECK_EQ_INT(shmem_signal_wait_until(&sig_w[k], SHMEM_CMP_EQ, tri), tri);
        CHECK_EQ_INT(shmem_signal_fetch(&sig_w[k]), tri);
    }
    for (int k = 0; k < 4; k++) CHECK_EQ_INT(shmem_signal_fetch(&sig_w[k]), 1000 * (k + 1) + left);
    for (int i = 0; i < NE; i++) {
        CHECK_EQ_INT(sig_long_g[i], vi(left, i, 30));
        CHECK_EQ_INT(sig_int_g[i], vi(left, i, 31));
        CHECK_EQ_INT(sig_u32_g[i], vi(left, i, 32));
    }
    for (int b = 0; b < 40; b++) CHECK_EQ_INT(sig_mem_g[b], bv(left, 36, b));
    for (int p = 0; p < npes; p++) {
        for (int i = 0; i < NE; i++) {
            CHECK_EQ_SIZE(sig_add64_g[p * NE + i], (uint64_t)vi(p, i, 33) << 33);
            CHECK(sig_addd_g[p * NE + i] == vi(p, i, 34) + 0.5);
            CHECK_EQ_INT(sig_add16_g[p * NE + i], vi(p, i, 35));
        }
        for (int b = 0; b < 40; b++) CHECK_EQ_INT(sig_addmem_g[p * 40 + b], bv(p, 36, b));
    }
    shmem_barrier_all();
}

/* ----------------------------------------------------------------- 4. waits */

#define WAIT_GLOBAL(T, N) static T wait_s_##N[NE], wait_v_##N[NE];
SHOAL_WAIT_TYPES(WAIT_GLOBAL)
#undef WAIT_GLOBAL

#define WAIT_CHK(cond, what) CHECK_MSG(cond, "wait %s cmp %d round %d: %s", wtype, cm, round, what)

/* Two rounds: 0 -> 10 (EQ, NE, GT, GE) and 50 -> 10 (LT, LE); scalar forms
 * on ws (all become 10), vector forms on wv (element i becomes 10 + i). */
#define WAIT_TEST(T, N)                                                                                                \
    static void wait_##N(void)                                                                                         \
    {                                                                                                                  \
        static const char *wtype = #N;                                                                                 \
        T *ws = wait_s_##N, *wv = wait_v_##N;                                                                          \
        int st[NE], none[NE], all[NE];                                                                                 \
        size_t idx[NE];                                                                                                \
        for (int i = 0; i < NE; i++) {                                                                                 \
            st[i] = i % 3 == 1; /* 1, 4, 7 excluded */                                                                 \
            none[i] = 0;                                                                                               \
            all[i] = 1;                                                                                                \
        }                                                                                                              \
        for (int round = 0; round < 2; round++) {                                                                      \
            static const int cmps[2][4] = {{SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE},                   \
                                           {SHMEM_CMP_LT, SHMEM_CMP_LE, -1, -1}};                                      \
            T init = (T)(round ? 50 : 0);                                                                              \
            for (int i = 0; i < NE; i++) ws[i] = wv[i] = init;                                                         \
            shmem_barrier_all();                                                                                       \
            for (int ci = 0; ci < 4 && cmps[round][ci] >= 0; ci++) {                                                   \
                int cm = cmps[round][ci];                                                                              \
                T s = (T)(cm == SHMEM_CMP_NE ? 0 : cm == SHMEM_CMP_GT ? 9 : cm == SHMEM_CMP_LT ? 11 : 10), vv[NE];     \
                for (int i = 0; i < NE; i++) vv[i] = (T)(cm == SHMEM_CMP_NE ? 0 : s + i);                              \
                WAIT_CHK(shmem_##N##_test(&ws[0], cm, s) == 0, "test before");                                         \
                WAIT_CHK(shmem_##N##_test_all(ws, NE, st, cm, s) == 0, "test_all before");                             \
                WAIT_CHK(shmem_##N##_test_any(ws, NE, st, cm, s) == SIZE_MAX, "test_any before");                      \
                WAIT_CHK(shmem_##N##_test_some(ws, NE, idx, NULL, cm, s) == 0, "test_some before");                    \
                WAIT_CHK(shmem_##N##_test_all_vector(wv, NE, NULL, cm, vv) == 0, "test_all_vector before");            \
                WAIT_CHK(shmem_##N##_test_any_vector(wv, NE, st, cm, vv) == SIZE_MAX, "test_any_vector before");       \
                WAIT_CHK(shmem_##N##_test_some_vector(wv, NE, idx, st, cm, vv) == 0, "test_some_vector before");       \
                WAIT_CHK(shmem_##N##_test_any(ws, NE, all, cm, init) == SIZE_MAX, "test_any all masked");              \
                WAIT_CHK(shmem_##N##_wait_until_any(ws, NE, all, cm, s) == SIZE_MAX, "wait_until_any all masked");     \
            }                                                                                                          \
            {                                                                                                          \
                int cm = SHMEM_CMP_EQ;                                                                                 \
                WAIT_CHK(shmem_##N##_test(&ws[0], cm, init) == 1, "test of the value there");                          \
            }                                                                                                          \
            shmem_barrier_all();                                                                                       \
            for (int i = NE - 1; i >= 0; i--) {                                                                        \
                shmem_##N##_p(&wv[i], (T)(10 + i), right);                                                             \
                shmem_##N##_p(&ws[i], (T)10, right);                                                                   \
            }                                                                                                          \
            shmem_quiet();                                                                                             \
            for (int ci = 0; ci < 4 && cmps[round][ci] >= 0; ci++) {                                                   \
                int cm = cmps[round][ci];                                                                              \
                T s = (T)(cm == SHMEM_CMP_NE ? 0 : cm == SHMEM_CMP_GT ? 9 : cm == SHMEM_CMP_LT ? 11 : 10), vv[NE];     \
                size_t k, cnt;                                                                                         \
                for (int i = 0; i < NE; i++) vv[i] = (T)(cm == SHMEM_CMP_NE ? 0 : s + i);                              \
                shmem_##N##_wait_until(&ws[NE - 1], cm, s);                                                            \
                k = shmem_##N##_wait_until_any(ws, NE, st, cm, s);                                                     \
                WAIT_CHK(k < NE && !st[k] && shmem_##N##_test(&ws[k], cm, s), "wait_until_any");                       \
                cnt = shmem_##N##_wait_until_some(ws, NE, idx, st, cm, s);                                             \
                WAIT_CHK(cnt >= 1 && cnt <= NE, "wait_until_some count");                                              \
                for (size_t j = 0; j < cnt; j++) WAIT_CHK(idx[j] < NE && !st[idx[j]], "wait_until_some index");        \
                shmem_##N##_wait_until_all(ws, NE, NULL, cm, s);                                                       \
                k = shmem_##N##_wait_until_any_vector(wv, NE, st, cm, vv);                                             \
                WAIT_CHK(k < NE && !st[k], "wait_until_any_vector");                                                   \
                cnt = shmem_##N##_wait_until_some_vector(wv, NE, idx, st, cm, vv);                                     \
                WAIT_CHK(cnt >= 1 && cnt <= NE, "wait_until_some_vector count");                                       \
                shmem_##N##_wait_until_all_vector(wv, NE, none, cm, vv);                                               \
                for (int i = 0; i < NE; i++) WAIT_CHK(ws[i] == (T)10 && wv[i] == (T)(10 + i), "values");               \
                WAIT_CHK(shmem_##N##_test(&ws[0], cm, s) == 1, "test");                                                \
                WAIT_CHK(shmem_##N##_test_all(ws, NE, st, cm, s) == 1, "test_all");                                    \
                WAIT_CHK(shmem_##N##_test_all(ws, NE, all, cm, init) == 1, "test_all all masked");                     \
                k = shmem_##N##_test_any(ws, NE, st, cm, s);                                                           \
                WAIT_CHK(k < NE && !st[k], "test_any");                                                                \
                cnt = shmem_##N##_test_some(ws, NE, idx, st, cm, s);                                                   \
                WAIT_CHK(cnt == 5, "test_some count");                                                                 \
                for (size_t j = 0, i = 0; i < NE; i++)                                                                 \
                    if (!st[i]) WAIT_CHK(idx[j++] == i, "test_some indices");                                          \
                WAIT_CHK(shmem_##N##_test_all_vector(wv, NE, NULL, cm, vv) == 1, "test_all_vector");                   \
                k = shmem_##N##_test_any_vector(wv, NE, st, cm, vv);                                                   \
                WAIT_CHK(k < NE && !st[k], "test_any_vector");                                                         \
                cnt = shmem_##N##_test_some_vector(wv, NE, idx, st, cm, vv);                                           \
                WAIT_CHK(cnt == 5, "test_some_vector count");                                                          \
                for (size_t j = 0, i = 0; i < NE; i++)                                                                 \
                    if (!st[i]) WAIT_CHK(idx[j++] == i, "test_some_vector indices");                                   \
                /* one element off its value: the vector test fails there */                                           \
                vv[2] = (T)(cm == SHMEM_CMP_NE ? 12 : cm == SHMEM_CMP_LT || cm == SHMEM_CMP_LE ? 5 : 50);              \
                WAIT_CHK(shmem_##N##_test_all_vector(wv, NE, NULL, cm, vv) == 0, "test_all_vector, one off");          \
                WAIT_CHK(shmem_##N##_test_some_vector(wv, NE, idx, NULL, cm, vv) == NE - 1,                            \
                         "test_some_vector, one off");                                                                 \
            }                                                                                                          \
            shmem_barrier_all();                                                                                       \
        }                                                                                                              \
    }
SHOAL_WAIT_TYPES(WAIT_TEST)
#undef WAIT_TEST

static void test_wait(void)
{
#define WAIT_RUN(T, N) wait_##N();
    SHOAL_WAIT_TYPES(WAIT_RUN)
#undef WAIT_RUN
}

/* ------------------------------------------------ 5. teams and collectives */

static int team_g[4];

static int cv(int r, int i, int salt) { return 1 + (r * 13 + i * 5 + salt * 3) % 101; }

#define RED_CHK(cond, what) CHECK_MSG(cond, "reduction %s on team of %d, element %d", what, tn, i)

/* Reductions in place (dest == src) on buf, one slot of NE per call. */
#define RED_ARITH(T, N, slot)                                                                                          \
    do {                                                                                                               \
        T *b = (T *)(buf + (slot)*4 * NE * 16);                                                                        \
        for (int op = 0; op < 4; op++) {                                                                               \
            T *d = b + op * NE;                                                                                        \
            for (int i = 0; i < NE; i++) d[i] = (T)(1 + (tme + i) % 3 + (op < 2 ? tme * i % 7 : 0));                   \
        }                                                                                                              \
        CHECK_EQ_INT(shmem_##N##_min_reduce(team, b, b, NE), 0);                                                       \
        CHECK_EQ_INT(shmem_##N##_max_reduce(team, b + NE, b + NE, NE), 0);                                             \
        CHECK_EQ_INT(shmem_##N##_sum_reduce(team, b + 2 * NE, b + 2 * NE, NE), 0);                                     \
        CHECK_EQ_INT(shmem_##N##_prod_reduce(team, b + 3 * NE, b + 3 * NE, NE), 0);                                    \
        for (int i = 0; i < NE; i++) {                                                                                 \
            T mn = 0, mx = 0, sum = 0, prod = 1;                                                                       \
            for (int r = 0; r < tn; r++) {                                                                             \
                T v = (T)(1 + (r + i) % 3 + r * i % 7), w = (T)(1 + (r + i) % 3);                                      \
                if (r == 0 || v < mn) mn = v;                                                                          \
                if (r == 0 || v > mx) mx = v;                                                                          \
                sum = (T)(sum + w);                                                                                    \
                prod = (T)(prod * w);                                                                                  \
            }                                                                                                          \
            RED_CHK(b[i] == mn, #N " min");                                                                            \
            RED_CHK(b[NE + i] == mx, #N " max");                                                                       \
            RED_CHK(b[2 * NE + i] == sum, #N " sum");                                                                  \
            RED_CHK(b[3 * NE + i] == prod, #N " prod");                                                                \
        }                                                                                                              \
    } while (0)

#define RED_BIT(T, N, slot)                                                                                            \
    do {                                                                                                               \
        T *b = (T *)(buf + (slot)*4 * NE * 16);                                                                        \
        for (int op = 0; op < 3; op++)                                                                                 \
            for (int i = 0; i < NE; i++) b[op * NE + i] = (T)(0xF0u ^ (unsigned)(tme * 0x25 + i * 0x13));              \
        CHECK_EQ_INT(shmem_##N##_and_reduce(team, b, b, NE), 0);                                                       \
        CHECK_EQ_INT(shmem_##N##_or_reduce(team, b + NE, b + NE, NE), 0);                                              \
        CHECK_EQ_INT(shmem_##N##_xor_reduce(team, b + 2 * NE, b + 2 * NE, NE), 0);                                     \
        for (int i = 0; i < NE; i++) {                                                                                 \
            T a = (T) ~(T)0, o = 0, x = 0;                                                                             \
            for (int r = 0; r < tn; r++) {                                                                             \
                T v = (T)(0xF0u ^ (unsigned)(r * 0x25 + i * 0x13));                                                    \
                a &= v;                                                                                                \
                o |= v;                                                                                                \
                x ^= v;                                                                                                \
            }                                                                                                          \
            RED_CHK(b[i] == a, #N " and");                                                                             \
            RED_CHK(b[NE + i] == o, #N " or");                                                                         \
            RED_CHK(b[2 * NE + i] == x, #N " xor");                                                                    \
        }                                                                                                              \
    } while (0)

/* buf, dst, src: symmetric, 64 KiB each; every member of team calls. A
 * collective may write a member's dest before that member calls it
 * (OpenSHMEM: dest must be ready when any PE calls), so a team sync
 * comes between filling dest with sentinels and each call. */
static void collectives(shmem_team_t team, char *buf, char *dstb, char *srcb)
{
    int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team), off;
    /* broadcast from the last member: every dest, root's own included */
    {
        int *src = (int *)srcb, *dst = (int *)dstb, root = tn - 1;
        for (int i = 0; i < NE; i++) {
            src[i] = cv(tme, i, 1);
            dst[i] = -1;
        }
        shmem_team_sync(team); /* dest ready, its last results read everywhere */
        CHECK_EQ_INT(shmem_int_broadcast(team, dst, src, NE, root), 0);
        for (int i = 0; i < NE; i++) CHECK_EQ_INT(dst[i], cv(root, i, 1));
    }
    /* collect: member r gives (2r) % 5 elements (0 among them at 5 members or 0) */
    {
        long *src = (long *)srcb, *dst = (long *)dstb;
        int cnt = (2 * tme) % 5;
        for (int i = 0; i < 5; i++) src[i] = cv(tme, i, 2);
        for (int i = 0; i < 5 * tn + 4; i++) dst[i] = -7;
        shmem_team_sync(team); /* dest ready, its last results read everywhere */
        CHECK_EQ_INT(shmem_long_collect(team, dst, src, (size_t)cnt), 0);
        off = 0;
        for (int r = 0; r < tn; r++)
            for (int i = 0; i < (2 * r) % 5; i++, off++)
                CHECK_MSG(dst[off] == cv(r, i, 2), "collect: member %d element %d", r, i);
        CHECK_EQ_INT(dst[off], -7);
    }
    /* fcollect */
    {
        double *src = (double *)srcb, *dst = (double *)dstb;
        for (int i = 0; i < NE; i++) src[i] = cv(tme, i, 3) + 0.25;
        shmem_team_sync(team); /* dest ready, its last results read everywhere */
        CHECK_EQ_INT(shmem_double_fcollect(team, dst, src, NE), 0);
        for (int r = 0; r < tn; r++)
            for (int i = 0; i < NE; i++) CHECK(dst[r * NE + i] == cv(r, i, 3) + 0.25);
    }
    /* alltoall */
    {
        int32_t *src = (int32_t *)srcb, *dst = (int32_t *)dstb;
        for (int r = 0; r < tn; r++)
            for (int i = 0; i < NE; i++) src[r * NE + i] = cv(tme * tn + r, i, 4);
        shmem_team_sync(team); /* dest ready, its last results read everywhere */
        CHECK_EQ_INT(shmem_int32_alltoall(team, dst, src, NE), 0);
        for (int r = 0; r < tn; r++)
            for (int i = 0; i < NE; i++) CHECK_EQ_INT(dst[r * NE + i], cv(r * tn + tme, i, 4));
    }
    /* alltoalls: dest stride 2, source stride 3, 3 elements per pair */
    {
        uint64_t *src = (uint64_t *)srcb, *dst = (uint64_t *)dstb;
        const int ne = 3, ds = 2, ss = 3;
        for (int k = 0; k < ss * ne * tn; k++) src[k] = 0xbadbadULL;
        for (int k = 0; k < ds * ne * tn; k++) dst[k] = 0xdeadULL;
        for (int r = 0; r < tn; r++)
            for (int k = 0; k < ne; k++) src[ss * (r * ne + k)] = (uint64_t)cv(tme * tn + r, k, 5) << 20;
        shmem_team_sync(team); /* dest ready, its last results read everywhere */
        CHECK_EQ_INT(shmem_uint64_alltoalls(team, dst, src, ds, ss, ne), 0);
        for (int k = 0; k < ds * ne * tn; k++) {
            int r = k / ds / ne, e = (k / ds) % ne;
            if (k % ds == 0)
                CHECK_MSG(dst[k] == (uint64_t)cv(r * tn + tme, e, 5) << 20, "alltoalls element %d", k);
            else
                CHECK_MSG(dst[k] == 0xdeadULL, "alltoalls gap %d written", k);
        }
    }
    /* In place (dest == source, the same array): a broadcast's root keeps
     * its data; collect and fcollect gather every member's leading block. */
    {
        long *a = (long *)dstb;
        int root = tn / 2;
        for (int i = 0; i < NE; i++) a[i] = tme == root ? cv(tme, i, 6) : -3;
        shmem_team_sync(team);
        CHECK_EQ_INT(shmem_long_broadcast(team, a, a, NE, root), 0);
        for (int i = 0; i < NE; i++) CHECK_MSG(a[i] == cv(root, i, 6), "in-place broadcast element %d", i);
    }
    {
        int *a = (int *)dstb;
        for (int i = 0; i < NE * tn; i++) a[i] = i < NE ? cv(tme, i, 7) : -4;
        shmem_team_sync(team);
        CHECK_EQ_INT(shmem_int_fcollect(team, a, a, NE), 0);
        for (int r = 0; r < tn; r++)
            for (int i = 0; i < NE; i++)
                CHECK_MSG(a[r * NE + i] == cv(r, i, 7), "in-place fcollect: member %d element %d", r, i);
    }
    {
        short *a = (short *)dstb;
        int cnt = 1 + tme % 3, at = 0;
        for (int i = 0; i < 3 * tn; i++) a[i] = (short)(i < cnt ? cv(tme, i, 8) : -5);
        shmem_team_sync(team);
        CHECK_EQ_INT(shmem_short_collect(team, a, a, (size_t)cnt), 0);
        for (int r = 0; r < tn; r++)
            for (int i = 0; i < 1 + r % 3; i++, at++)
                CHECK_MSG(a[at] == cv(r, i, 8), "in-place collect: member %d element %d", r, i);
    }
    RED_ARITH(int, int, 0);
    RED_ARITH(long, long, 1);
    RED_ARITH(double, double, 2);
    RED_ARITH(float, float, 3);
    RED_ARITH(short, short, 4);
    RED_ARITH(uint64_t, uint64, 5);
    RED_BIT(unsigned int, uint, 6);
    RED_BIT(uint8_t, uint8, 7);
    RED_BIT(int64_t, int64, 8);
    RED_BIT(unsigned long long, ulonglong, 9);
    shmem_team_sync(team);
}

/* A ring through a team context: PE numbers are the team's. */
static void team_ctx_ring(shmem_team_t team)
{
    int tme = shmem_team_my_pe(team), tn = shmem_team_n_pes(team);
    int tr = (tme + 1) % tn, tl = (tme + tn - 1) % tn;
    shmem_ctx_t tctx = SHMEM_CTX_INVALID;
    shmem_team_t got = SHMEM_TEAM_INVALID;
    CHECK_EQ_INT(shmem_team_create_ctx(team, 0, &tctx), 0);
    CHECK(tctx != SHMEM_CTX_INVALID);
    CHECK_EQ_INT(shmem_ctx_get_team(tctx, &got), 0);
    CHECK(got == team);
    team_g[0] = team_g[1] = 0;
    shmem_team_sync(team);
    shmem_ctx_int_p(tctx, &team_g[0], 500 + me, tr);
    shmem_ctx_int_atomic_add(tctx, &team_g[1], me + 1, 0);
    shmem_ctx_quiet(tctx);
    shmem_team_sync(team);
    CHECK_EQ_INT(team_g[0], 500 + shmem_team_translate_pe(team, tl, SHMEM_TEAM_WORLD));
    CHECK_EQ_INT(shmem_ctx_int_g(tctx, &team_g[0], tr), 500 + me);
    if (tme == 0) {
        int want = 0;
        for (int r = 0; r < tn; r++) want += shmem_team_translate_pe(team, r, SHMEM_TEAM_WORLD) + 1;
        CHECK_EQ_INT(team_g[1], want);
    }
    shmem_team_sync(team);
    shmem_ctx_destroy(tctx);
}

static void test_teams(void)
{
    shmem_team_config_t cfg = {0};
    shmem_team_t even = SHMEM_TEAM_INVALID, xt = SHMEM_TEAM_INVALID, yt = SHMEM_TEAM_INVALID, got;
    char *buf = shmem_malloc(64 * 1024), *dstb = shmem_malloc(64 * 1024), *srcb = shmem_malloc(64 * 1024);
    int row = me / 2, col = me % 2;
    CHECK(buf != NULL && dstb != NULL && srcb != NULL);
    CHECK_EQ_INT(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
    CHECK(cfg.num_contexts >= 0);
    CHECK_EQ_INT(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
    CHECK_EQ_INT(shmem_team_n_pes(SHMEM_TEAM_WORLD), npes);
    CHECK_EQ_INT(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &got), 0);
    CHECK(got == SHMEM_TEAM_WORLD);
    /* A negative stride: start is the team's lowest PE, so it is refused. */
    if (npes > 1) {
        got = SHMEM_TEAM_WORLD;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &got) != 0);
        CHECK(got == SHMEM_TEAM_INVALID);
    }
    cfg.num_contexts = 3;
    CHECK_EQ_INT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &even),
                 0);
    cfg.num_contexts = -1;
    if (me % 2 == 0) {
        CHECK(even != SHMEM_TEAM_INVALID);
        CHECK_EQ_INT(shmem_team_my_pe(even), me / 2);
        CHECK_EQ_INT(shmem_team_n_pes(even), (npes + 1) / 2);
        CHECK_EQ_INT(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &cfg), 0);
        CHECK_EQ_INT(cfg.num_contexts, 3); /* as it was created */
        for (int k = 0; k < (npes + 1) / 2; k++)
            CHECK_EQ_INT(shmem_team_translate_pe(even, k, SHMEM_TEAM_WORLD), 2 * k);
        CHECK_EQ_INT(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, even), me / 2);
        if (npes > 1) CHECK_EQ_INT(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, even), -1);
    } else {
        CHECK(even == SHMEM_TEAM_INVALID);
        CHECK_EQ_INT(shmem_team_my_pe(even), -1);
        CHECK_EQ_INT(shmem_team_n_pes(even), -1);
    }
    CHECK_EQ_INT(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &xt, NULL, 0, &yt), 0);
    CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID);
    CHECK_EQ_INT(shmem_team_my_pe(xt), col);
    CHECK_EQ_INT(shmem_team_n_pes(xt), npes - 2 * row < 2 ? npes - 2 * row : 2);
    CHECK_EQ_INT(shmem_team_my_pe(yt), row);
    CHECK_EQ_INT(shmem_team_n_pes(yt), (npes - col + 1) / 2);
    CHECK_EQ_INT(shmem_team_translate_pe(xt, 0, SHMEM_TEAM_WORLD), 2 * row);
    CHECK_EQ_INT(shmem_team_translate_pe(yt, 0, SHMEM_TEAM_WORLD), col);
    CHECK_EQ_INT(shmem_team_translate_pe(xt, col, yt), row);

    team_ctx_ring(SHMEM_TEAM_WORLD);
    if (even != SHMEM_TEAM_INVALID) team_ctx_ring(even);
    shmem_barrier_all();
    team_ctx_ring(yt);
    shmem_barrier_all();

    /* A PE outside a team gets SHMEM_CTX_INVALID from its context creation;
     * quiet, fence and destroy on it do nothing (no abort). */
    {
        shmem_ctx_t c = SHMEM_CTX_DEFAULT;
        CHECK_EQ_INT(shmem_team_create_ctx(even, 0, &c) != 0, even == SHMEM_TEAM_INVALID);
        if (even == SHMEM_TEAM_INVALID) CHECK(c == SHMEM_CTX_INVALID);
        shmem_ctx_quiet(SHMEM_CTX_INVALID);
        shmem_ctx_fence(SHMEM_CTX_INVALID);
        shmem_ctx_destroy(c);
    }
    /* A collective returns nonzero instead of ending the job, and its
     * message names the OpenSHMEM routine and OpenSHMEM's allocator:
     * private (stack) memory is not symmetric. */
    {
        double priv_d[4] = {0}, priv_s[4] = {0};
        const char *msg;
        CHECK(shmem_double_alltoall(SHMEM_TEAM_WORLD, priv_d, priv_s, 4 / (npes < 4 ? npes : 4)) != 0);
        msg = shoal_last_error(shmem_shoal());
        CHECK_CONTAINS(msg, "shmem_double_alltoall");
        CHECK_CONTAINS(msg, "shmem_malloc");
        CHECK_MSG(strstr(msg, "shoal_") == NULL, "the message names shoal's calls: %s", msg);
        CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0);
        shmem_barrier_all();
    }
    collectives(SHMEM_TEAM_WORLD, buf, dstb, srcb);
    shmem_barrier_all();
    if (even != SHMEM_TEAM_INVALID) collectives(even, buf, dstb, srcb);
    shmem_barrier_all();
    collectives(xt, buf, dstb, srcb);
    shmem_barrier_all();
    shmem_team_destroy(even);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    shmem_free(buf);
    shmem_free(dstb);
    shmem_free(srcb);
}

/* ---------------------------------------------------------------- 6. threads */

#define NTHREADS 4
#define THR_ITERS 10
static int thr_data_g[NTHREADS][NE];
static uint64_t thr_cnt_g;

static void *thr_main(void *arg)
{
    int tid = (int)(intptr_t)arg, src[NE];
    shmem_ctx_t c = SHMEM_CTX_INVALID;
    CHECK_EQ_INT(shmem_ctx_create(SHMEM_CTX_PRIVATE, &c), 0);
    for (int i = 0; i < NE; i++) src[i] = vi(me, i, 40 + tid);
    shmem_ctx_int_put_nbi(c, thr_data_g[tid], src, NE, right);
    for (int k = 0; k < THR_ITERS; k++) {
        shmem_ctx_uint64_atomic_add(c, &thr_cnt_g, (uint64_t)(tid + 1), right);
        uint64_t f = shmem_ctx_uint64_atomic_fetch_add(c, &thr_cnt_g, 100, left);
        CHECK(f <= (uint64_t)THR_ITERS * (10 + 100 * NTHREADS));
    }
    shmem_ctx_quiet(c);
    shmem_ctx_destroy(c);
    return NULL;
}

static void test_threads(void)
{
    pthread_t th[NTHREADS];
    if (provided < SHMEM_THREAD_MULTIPLE) {
        if (me == 0) check_note("SHMEM_THREAD_MULTIPLE not provided (%d): threads part skipped", provided);
        return;
    }
    shmem_barrier_all();
    for (int t = 0; t < NTHREADS; t++) CHECK(pthread_create(&th[t], NULL, thr_main, (void *)(intptr_t)t) == 0);
    for (int t = 0; t < NTHREADS; t++) CHECK(pthread_join(th[t], NULL) == 0);
    shmem_barrier_all();
    for (int t = 0; t < NTHREADS; t++)
        for (int i = 0; i < NE; i++) CHECK_EQ_INT(thr_data_g[t][i], vi(left, i, 40 + t));
    /* left adds 1+2+3+4 per iteration, right 100 per thread and iteration */
    CHECK_EQ_SIZE(thr_cnt_g, (uint64_t)THR_ITERS * (10 + 100 * NTHREADS));
    shmem_barrier_all();
}

/* ----------------------------------------------------------------- 7. memory */

static int mem_glob_g[4];

static void test_memory(void)
{
    int stack_var = 0, major = 0, minor = 0, q = -1;
    char name[SHMEM_MAX_NAME_LEN];
    int *a = shmem_malloc(100 * sizeof(int));
    unsigned char *d;
    long *hint;
    size_t used = 0, mapped = 0, limit = 0;
    CHECK(a != NULL);
    /* shmemx_heap_stats: the block is in use, its pages may be taken */
    CHECK_EQ_INT(shmemx_heap_stats(&used, &mapped, &limit), 0);
    CHECK_MSG(used >= 100 * sizeof(int) && mapped >= used && limit >= mapped,
              "shmemx_heap_stats: used %zu, mapped %zu, limit %zu", used, mapped, limit);
    for (int i = 0; i < 100; i++) a[i] = vi(me, i, 50);
    a = shmem_realloc(a, 5000 * sizeof(int));
    CHECK(a != NULL);
    for (int i = 0; i < 100; i++) CHECK_EQ_INT(a[i], vi(me, i, 50));
    a = shmem_realloc(a, 10 * sizeof(int));
    CHECK(a != NULL);
    for (int i = 0; i < 10; i++) CHECK_EQ_INT(a[i], vi(me, i, 50));
    /* calloc of memory that was just dirtied and freed */
    d = shmem_malloc(4096);
    CHECK(d != NULL);
    memset(d, 0xab, 4096);
    shmem_free(d);
    d = shmem_calloc(512, 8);
    CHECK(d != NULL);
    for (int b = 0; b < 4096; b++) CHECK_EQ_INT(d[b], 0);
    shmem_free(d);
    /* Up to 2^23, the largest alignment OpenSHMEM test suites ask for. */
    for (size_t al = 8; al <= ((size_t)1 << 23); al *= 2) {
        void *p = shmem_align(al, 100);
        CHECK(p != NULL);
        CHECK_MSG((uintptr_t)p % al == 0, "shmem_align(%zu) gave %p", al, p);
        shmem_free(p);
    }
    hint = shmem_malloc_with_hints(256, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(hint != NULL);
    hint[0] = 0;
    hint[1] = 1000 + me;
    shmem_barrier_all();
    shmem_long_atomic_inc(&hint[0], right);
    shmem_barrier_all();
    CHECK_EQ_INT(hint[0], 1);
    /* shmem_ptr: self gives the address; node peers' heaps are reachable */
    CHECK_EQ_PTR(shmem_ptr(hint, me), hint);
    CHECK_EQ_PTR(shmem_ptr(mem_glob_g, me), mem_glob_g);
    for (int k = 0; k < shmem_team_n_pes(SHMEM_TEAM_SHARED); k++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, k, SHMEM_TEAM_WORLD);
        long *p = shmem_ptr(hint, w);
        CHECK_MSG(p != NULL, "shmem_ptr(heap, %d): NULL for a PE of the node", w);
        CHECK_EQ_INT(p[1], 1000 + w);
    }
    for (int pe = 0; pe < npes; pe++) {
        CHECK_EQ_INT(shmem_addr_accessible(mem_glob_g, pe), 1);
        CHECK_EQ_INT(shmem_addr_accessible(hint, pe), 1);
        CHECK_EQ_INT(shmem_addr_accessible(&stack_var, pe), 0);
        CHECK_EQ_INT(shmem_pe_accessible(pe), 1);
    }
    CHECK_EQ_INT(shmem_pe_accessible(npes), 0);
    shmem_barrier_all();
    shmem_free(hint);
    shmem_free(a);
    shmem_info_get_version(&major, &minor);
    CHECK_EQ_INT(major, 1);
    CHECK_EQ_INT(minor, 5);
    memset(name, 'x', sizeof(name));
    shmem_info_get_name(name);
    CHECK(strlen(name) < SHMEM_MAX_NAME_LEN);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0);
    shmem_query_thread(&q);
    CHECK_EQ_INT(q, provided);
}

/* ---------------------------------------------------------------- 8. generic */

static int gen_i_g[NE];
static double gen_d_g[NE];
static long gen_l_g[2];
static float gen_f_g[2];
static long gen_cnt_g;
static unsigned int gen_ucnt_g;
static int gen_flag_g;
static long gen_rl_g[NE];
static double gen_rd_g[NE];

static void test_generic(void)
{
    int si[NE], di[NE];
    double sd[NE], dd[NE];
    long rl[NE];
    for (int i = 0; i < NE; i++) {
        si[i] = vi(me, i, 60);
        sd[i] = vi(me, i, 61) * 0.5;
    }
    shmem_put(gen_i_g, si, NE, right);
    shmem_put(SHMEM_CTX_DEFAULT, gen_d_g, sd, NE, right);
    shmem_p(&gen_l_g[0], (long)vi(me, 0, 62), right);
    shmem_p(SHMEM_CTX_DEFAULT, &gen_l_g[1], (long)vi(me, 1, 62), right);
    shmem_p(&gen_f_g[0], 0.25f * vi(me, 0, 63), right);
    shmem_p(SHMEM_CTX_DEFAULT, &gen_f_g[1], 0.25f * vi(me, 1, 63), right);
    shmem_atomic_fetch_add(&gen_cnt_g, 1L, 0);
    shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, &gen_cnt_g, 2L, 0);
    shmem_atomic_fetch_add(&gen_ucnt_g, 5u, npes - 1);
    shmem_barrier_all();
    for (int i = 0; i < NE; i++) {
        CHECK_EQ_INT(gen_i_g[i], vi(left, i, 60));
        CHECK(gen_d_g[i] == vi(left, i, 61) * 0.5);
    }
    CHECK_EQ_INT(gen_l_g[0], vi(left, 0, 62));
    CHECK_EQ_INT(gen_l_g[1], vi(left, 1, 62));
    CHECK(gen_f_g[0] == 0.25f * vi(left, 0, 63) && gen_f_g[1] == 0.25f * vi(left, 1, 63));
    if (me == 0) CHECK_EQ_INT(gen_cnt_g, 3L * npes);
    if (me == npes - 1) CHECK_EQ_INT(gen_ucnt_g, 5u * npes);
    shmem_get(di, gen_i_g, NE, right);
    shmem_get(SHMEM_CTX_DEFAULT, dd, gen_d_g, NE, right);
    for (int i = 0; i < NE; i++) {
        CHECK_EQ_INT(di[i], vi(me, i, 60));
        CHECK(dd[i] == vi(me, i, 61) * 0.5);
    }
    CHECK_EQ_INT(shmem_g(&gen_l_g[0], right), vi(me, 0, 62));
    CHECK_EQ_INT(shmem_g(SHMEM_CTX_DEFAULT, &gen_l_g[1], right), vi(me, 1, 62));
    CHECK(shmem_g(&gen_f_g[1], right) == 0.25f * vi(me, 1, 63));
    CHECK_EQ_INT(shmem_atomic_fetch_add(&gen_cnt_g, 0L, 0), 3L * npes);
    shmem_barrier_all();
    /* wait_until: the left neighbour raises the flag, then adds to the counter */
    shmem_p(&gen_flag_g, me + 1, right);
    shmem_wait_until(&gen_flag_g, SHMEM_CMP_EQ, left + 1);
    shmem_barrier_all();
    if (me == 0) {
        shmem_atomic_fetch_add(&gen_cnt_g, 7L, 0);
        shmem_wait_until(&gen_cnt_g, SHMEM_CMP_GE, 3L * npes + 7);
    }
    /* sum_reduce on globals: long in place, double into another array */
    for (int i = 0; i < NE; i++) {
        gen_rl_g[i] = (long)(me + 1) * (i + 1) << 32;
        gen_rd_g[i] = vi(me, i, 64) * 0.5;
    }
    CHECK_EQ_INT(shmem_sum_reduce(SHMEM_TEAM_WORLD, gen_rl_g, gen_rl_g, NE), 0);
    CHECK_EQ_INT(shmem_sum_reduce(SHMEM_TEAM_WORLD, gen_d_g, gen_rd_g, NE), 0);
    for (int i = 0; i < NE; i++) {
        double want = 0;
        rl[i] = (long)npes * (npes + 1) / 2 * (i + 1) << 32;
        CHECK_EQ_INT(gen_rl_g[i], rl[i]);
        for (int p = 0; p < npes; p++) want += vi(p, i, 64) * 0.5;
        CHECK(gen_d_g[i] == want);
        CHECK(gen_rd_g[i] == vi(me, i, 64) * 0.5);
    }
    shmem_barrier_all();
}

int main(void)
{
    CHECK_EQ_INT(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided), 0);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= MAXPE);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    test_memory();
    test_rma();
    test_sized();
    test_amo();
    test_signal();
    test_wait();
    test_teams();
    test_generic();
    test_threads();
    if (me == 0) check_note("shmem: %d PEs passed", npes);
    shmem_finalize();
    return 0;
}
