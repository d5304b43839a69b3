/*
 * What OpenSHMEM 1.5 deprecates but still requires (api/shmem/shmem_deprecated.h),
 * every value crossing PEs:
 *
 * 1. start_pes (twice, then shmem_init: both do nothing more), _my_pe,
 *    _num_pes; the _SHMEM_* constants equal their SHMEM_* counterparts
 *    (at compile time; they size arrays and serve the waits below).
 * 2. shmalloc, shmemalign (aligned), shrealloc (keeps contents), shfree:
 *    data the left neighbour put there.
 * 3. The 1.3 atomic names for every type: fetch, set, swap, cswap, finc,
 *    inc, fadd and add on SHOAL_AMO_TYPES, fetch, set and swap on
 *    SHOAL_AMO_EXT_TYPES, from every PE to every PE, on globals and on
 *    shmalloc memory: totals exact, finc's fetched values a permutation of
 *    0..n-1, one cswap winner a PE (the losers saw its value), swap's old
 *    values and the last value together 0..n.
 * 4. Their C11 generic forms, typedefs (int32_t, size_t) included.
 * 5. shmem_wait, shmem_<T>_wait (short, int, long, long long), the long
 *    shmem_wait_until function and the generic macro of that name, each
 *    woken by the left neighbour's put (PE 0 puts late, so PE 1 waits).
 * 6. The cache routines (nothing changes) and shmem_pcontrol at levels 0
 *    to 3, with arguments of several types after the level.
 *
 * The program ends with shmem_finalize; test_shmem_finalize.c checks the
 * implicit finalization of programs that do not call it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/check.h"
#include "shmem.h"

#define MAXPE 16

static int me, npes, right, left;

/* lo <= v <= hi (a call: no warning that an unsigned v is never below 0). */
static int between(long long v, long long lo, long long hi) { return v >= lo && v <= hi; }

/* ------------------------------------------------------------ 1. constants */

_Static_assert(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE, "_SHMEM_SYNC_VALUE");
_Static_assert(_SHMEM_BARRIER_SYNC_SIZE == SHMEM_BARRIER_SYNC_SIZE, "_SHMEM_BARRIER_SYNC_SIZE");
_Static_assert(_SHMEM_BCAST_SYNC_SIZE == SHMEM_BCAST_SYNC_SIZE, "_SHMEM_BCAST_SYNC_SIZE");
_Static_assert(_SHMEM_COLLECT_SYNC_SIZE == SHMEM_COLLECT_SYNC_SIZE, "_SHMEM_COLLECT_SYNC_SIZE");
_Static_assert(_SHMEM_REDUCE_SYNC_SIZE == SHMEM_REDUCE_SYNC_SIZE, "_SHMEM_REDUCE_SYNC_SIZE");
_Static_assert(_SHMEM_REDUCE_MIN_WRKDATA_SIZE == SHMEM_REDUCE_MIN_WRKDATA_SIZE, "_SHMEM_REDUCE_MIN_WRKDATA_SIZE");
_Static_assert(_SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_CMP_NE == SHMEM_CMP_NE, "_SHMEM_CMP_EQ, _NE");
_Static_assert(_SHMEM_CMP_GT == SHMEM_CMP_GT && _SHMEM_CMP_GE == SHMEM_CMP_GE, "_SHMEM_CMP_GT, _GE");
_Static_assert(_SHMEM_CMP_LT == SHMEM_CMP_LT && _SHMEM_CMP_LE == SHMEM_CMP_LE, "_SHMEM_CMP_LT, _LE");

/* As OSU declares them: file-scope arrays sized by the old constants. */
static long psync_bcast[_SHMEM_BCAST_SYNC_SIZE], psync_reduce[_SHMEM_REDUCE_SYNC_SIZE];
static double pwrk[_SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static void test_setup(void)
{
    start_pes(0);
    start_pes(4); /* again: nothing more */
    shmem_init(); /* nor this */
    me = _my_pe();
    npes = _num_pes();
    CHECK_EQ_INT(me, shmem_my_pe());
    CHECK_EQ_INT(npes, shmem_n_pes());
    CHECK(npes >= 1 && npes <= MAXPE);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK_EQ_SIZE(sizeof(psync_bcast) + sizeof(psync_reduce),
                  (SHMEM_BCAST_SYNC_SIZE + SHMEM_REDUCE_SYNC_SIZE) * sizeof(long));
    CHECK_EQ_SIZE(sizeof(pwrk), SHMEM_REDUCE_MIN_WRKDATA_SIZE * sizeof(double));
    for (int i = 0; i < _SHMEM_BCAST_SYNC_SIZE; i++) CHECK_EQ_INT(psync_bcast[i], 0);
}

/* --------------------------------------------------------------- 2. memory */

static unsigned char pat(int pe, size_t i) { return (unsigned char)(pe * 31 + i * 7 + 1); }

static void test_memory(void)
{
    unsigned char src[4000];
    unsigned char *a = shmalloc(1000), *b;
    void *al = shmemalign(256, 512);

    CHECK_MSG(a != NULL && al != NULL, "shmalloc(1000) %p, shmemalign(256, 512) %p", (void *)a, al);
    CHECK_MSG((uintptr_t)al % 256 == 0, "shmemalign(256, 512) gave %p", al);
    for (size_t i = 0; i < sizeof(src); i++) src[i] = pat(me, i);
    shmem_putmem(a, src, 1000, right);
    shmem_putmem(al, src + 1000, 512, right);
    shmem_barrier_all();
    for (size_t i = 0; i < 1000; i++) CHECK_MSG(a[i] == pat(left, i), "shmalloc byte %zu", i);
    for (size_t i = 0; i < 512; i++)
        CHECK_MSG(((unsigned char *)al)[i] == pat(left, 1000 + i), "shmemalign byte %zu", i);
    /* shrealloc keeps what the left neighbour put; its new end takes puts too. */
    b = shrealloc(a, 4000);
    CHECK(b != NULL);
    for (size_t i = 0; i < 1000; i++) CHECK_MSG(b[i] == pat(left, i), "shrealloc kept byte %zu", i);
    shmem_putmem(b + 1000, src + 1000, 3000, right);
    shmem_barrier_all();
    for (size_t i = 1000; i < 4000; i++) CHECK_MSG(b[i] == pat(left, i), "shrealloc byte %zu", i);
    shfree(al);
    shfree(b);
    if (me == 0) check_note("shmalloc, shmemalign, shrealloc, shfree");
}

/* -------------------------------------------------------------- 3. atomics */

/* A word per operation, and a slot per PE for set and for what finc saw. */
enum {
    A_FADD,
    A_FINC,
    A_INC,
    A_ADD,
    A_CSWAP,
    A_WINS,
    A_SWAP,
    A_SWSUM,
    A_FETCH,
    A_SET,
    A_SEEN = A_SET + MAXPE,
    A_LEN = A_SEEN + MAXPE
};

#define AMO_CHK(cond, t, what)                                                                                         \
    CHECK_MSG(cond, "shmem_%s_%s on %s memory of PE %d (from PE %d, %d PEs)", type, what, where, (int)(t), me, npes)

/* w: A_LEN zeroed symmetric words. */
#define AMO_STD_TEST(T, N)                                                                                             \
    static void amo_std_##N(T *w, const char *where)                                                                   \
    {                                                                                                                  \
        static const char *type = #N;                                                                                  \
        const long long tot = (long long)npes * (npes + 1) / 2;                                                        \
        T lost[MAXPE];                                                                                                 \
        w[A_FETCH] = (T)(3 * (me + 1));                                                                                \
        shmem_barrier_all();                                                                                           \
        for (int k = 0; k < npes; k++) {                                                                               \
            int t = (me + k) % npes; /* each PE starts at its own: the PEs spread */                                   \
            T old = shmem_##N##_fadd(&w[A_FADD], (T)(me + 1), t), f, c, s;                                             \
            AMO_CHK(between((long long)old, 0, tot - me - 1), t, "fadd");                                              \
            f = shmem_##N##_finc(&w[A_FINC], t);                                                                       \
            AMO_CHK(between((long long)f, 0, npes - 1), t, "finc");                                                    \
            shmem_##N##_add(&w[A_SEEN + (int)f], (T)1, t);                                                             \
            shmem_##N##_inc(&w[A_INC], t);                                                                             \
            shmem_##N##_add(&w[A_ADD], (T)(me + 1), t);                                                                \
            c = shmem_##N##_cswap(&w[A_CSWAP], (T)0, (T)(me + 1), t);                                                  \
            if (c == 0) shmem_##N##_inc(&w[A_WINS], t);                                                                \
            lost[t] = c;                                                                                               \
            s = shmem_##N##_swap(&w[A_SWAP], (T)(me + 1), t);                                                          \
            shmem_##N##_add(&w[A_SWSUM], s, t);                                                                        \
            AMO_CHK(shmem_##N##_fetch(&w[A_FETCH], t) == (T)(3 * (t + 1)), t, "fetch");                                \
            shmem_##N##_set(&w[A_SET + me], (T)(me + 7), t);                                                           \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
        AMO_CHK(w[A_FADD] == (T)tot, me, "fadd (total)");                                                              \
        AMO_CHK(w[A_FINC] == (T)npes, me, "finc (total)");                                                             \
        for (int v = 0; v < npes; v++) AMO_CHK(w[A_SEEN + v] == (T)1, me, "finc (each value fetched once)");           \
        AMO_CHK(w[A_INC] == (T)npes, me, "inc");                                                                       \
        AMO_CHK(w[A_ADD] == (T)tot, me, "add");                                                                        \
        AMO_CHK(w[A_WINS] == (T)1, me, "cswap (one winner)");                                                          \
        AMO_CHK(between((long long)w[A_CSWAP], 1, npes), me, "cswap (the winner's value)");                            \
        AMO_CHK(between((long long)w[A_SWAP], 1, npes), me, "swap (the last value)");                                  \
        AMO_CHK((long long)w[A_SWSUM] + (long long)w[A_SWAP] == tot, me, "swap (old values and last: 0..n)");          \
        for (int p = 0; p < npes; p++) AMO_CHK(w[A_SET + p] == (T)(p + 7), me, "set");                                 \
        for (int t = 0; t < npes; t++)                                                                                 \
            AMO_CHK(lost[t] == 0 || lost[t] == shmem_##N##_fetch(&w[A_CSWAP], t), t,                                   \
                    "cswap (a loser saw the winner)");                                                                 \
        shmem_barrier_all();                                                                                           \
    }
SHOAL_AMO_TYPES(AMO_STD_TEST)
#undef AMO_STD_TEST

/* fetch, set and swap only: swap's old values are set into the target's
 * slots, and with the last value they are 0..n, each once. */
#define AMO_EXT_TEST(T, N)                                                                                             \
    static void amo_ext_##N(T *w, const char *where)                                                                   \
    {                                                                                                                  \
        static const char *type = #N;                                                                                  \
        unsigned seen = 0;                                                                                             \
        w[A_FETCH] = (T)(3 * (me + 1));                                                                                \
        shmem_barrier_all();                                                                                           \
        for (int k = 0; k < npes; k++) {                                                                               \
            int t = (me + k) % npes;                                                                                   \
            T s = shmem_##N##_swap(&w[A_SWAP], (T)(me + 1), t);                                                        \
            shmem_##N##_set(&w[A_SEEN + me], s, t);                                                                    \
            AMO_CHK(shmem_##N##_fetch(&w[A_FETCH], t) == (T)(3 * (t + 1)), t, "fetch");                                \
            shmem_##N##_set(&w[A_SET + me], (T)(me + 7), t);                                                           \
        }                                                                                                              \
        shmem_barrier_all();                                                                                           \
        for (int p = 0; p <= npes; p++) {                                                                              \
            T v = p < npes ? w[A_SEEN + p] : w[A_SWAP];                                                                \
            AMO_CHK(v >= 0 && v <= npes && v == (T)(int)v && !(seen & (1u << (int)v)), me, "swap (0..n, once each)");  \
            seen |= 1u << (int)v;                                                                                      \
        }                                                                                                              \
        for (int p = 0; p < npes; p++) AMO_CHK(w[A_SET + p] == (T)(p + 7), me, "set");                                 \
        shmem_barrier_all();                                                                                           \
    }
SHOAL_AMO_EXT_TYPES(AMO_EXT_TEST)
#undef AMO_EXT_TEST

#define AMO_GLOBAL(T, N) static T amo_g_##N[A_LEN];
SHOAL_AMO_TYPES(AMO_GLOBAL)
SHOAL_AMO_EXT_TYPES(AMO_GLOBAL)
#undef AMO_GLOBAL

static void test_amo(void)
{
#define AMO_RUN(T, N, KIND)                                                                                            \
    do {                                                                                                               \
        T *h = shmalloc(A_LEN * sizeof(T));                                                                            \
        CHECK(h != NULL);                                                                                              \
        memset(h, 0, A_LEN * sizeof(T));                                                                               \
        shmem_barrier_all();                                                                                           \
        amo_##KIND##_##N(amo_g_##N, "global");                                                                         \
        amo_##KIND##_##N(h, "heap");                                                                                   \
        shfree(h);                                                                                                     \
    } while (0);
#define AMO_RUN_STD(T, N) AMO_RUN(T, N, std)
#define AMO_RUN_EXT(T, N) AMO_RUN(T, N, ext)
    SHOAL_AMO_TYPES(AMO_RUN_STD)
    SHOAL_AMO_EXT_TYPES(AMO_RUN_EXT)
#undef AMO_RUN_STD
#undef AMO_RUN_EXT
#undef AMO_RUN
    if (me == 0) check_note("old atomic names: every type, every PE to every PE, globals and heap");
}

/* ------------------------------------------------------ 4. generic forms */

static int gi;
static long gl;
static long long gll;
static unsigned int gu;
static unsigned long gul;
static unsigned long long gull;
static float gf;
static double gd;
static int32_t g32;
static size_t gsz;

static void test_generic(void)
{
    const float *cf = &gf;

    /* Only the left neighbour changes this PE's words: each old value is 0. */
    CHECK_EQ_INT(shmem_fadd(&gi, 5, right), 0);
    CHECK_EQ_INT(shmem_finc(&gl, right), 0);
    shmem_inc(&gll, right);
    shmem_add(&gu, 3u, right);
    CHECK_EQ_INT(shmem_cswap(&gul, 0ul, (unsigned long)(me + 1), right), 0);
    CHECK_EQ_INT(shmem_swap(&gull, (unsigned long long)(me + 1), right), 0);
    shmem_set(&gf, (float)me + 0.5f, right);
    CHECK(shmem_swap(&gd, (double)me + 0.25, right) == 0.0);
    CHECK_EQ_INT(shmem_fadd(&g32, (int32_t)(me + 2), right), 0); /* int32_t: int's routine */
    shmem_add(&gsz, (size_t)(me + 4), right);                    /* size_t: unsigned long's */
    shmem_barrier_all();
    CHECK_EQ_INT(gi, 5);
    CHECK_EQ_INT(gl, 1);
    CHECK_EQ_INT(gll, 1);
    CHECK_EQ_INT(gu, 3);
    CHECK_EQ_INT(gul, left + 1);
    CHECK_EQ_INT(gull, left + 1);
    CHECK(gf == (float)left + 0.5f);
    CHECK(gd == (double)left + 0.25);
    CHECK_EQ_INT(g32, left + 2);
    CHECK_EQ_SIZE(gsz, (size_t)(left + 4));
    /* What right's words hold now: this PE put them. */
    CHECK(shmem_fetch(cf, right) == (float)me + 0.5f);
    CHECK(shmem_fetch(&gd, right) == (double)me + 0.25);
    CHECK_EQ_INT(shmem_fetch(&gi, right), 5);
    CHECK_EQ_INT(shmem_fetch(&gul, right), me + 1);
    shmem_barrier_all();
    if (me == 0) check_note("C11 generic forms of the old atomic names");
}

/* --------------------------------------------------------------- 5. waits */

static short ws;
static int wi;
static long wl, wl_fn, wl_gen;
static long long wll;

static void test_wait(void)
{
    long *hl = shmalloc(sizeof(long));

    CHECK(hl != NULL);
    *hl = 0;
    shmem_barrier_all();
    if (me == 0) nanosleep(&(struct timespec){0, 200 * 1000 * 1000}, NULL); /* PE 1 waits for it */
    shmem_short_p(&ws, (short)(me + 1), right);
    shmem_int_p(&wi, me + 2, right);
    shmem_long_p(&wl, me + 3, right);
    shmem_longlong_p(&wll, me + 4, right);
    shmem_long_p(hl, me + 5, right);
    shmem_long_p(&wl_fn, me + 10, right);
    shmem_long_p(&wl_gen, me + 20, right);
    shmem_quiet();
    shmem_short_wait(&ws, 0);
    CHECK_EQ_INT(ws, left + 1);
    shmem_int_wait(&wi, 0);
    CHECK_EQ_INT(wi, left + 2);
    shmem_long_wait(&wl, 0);
    CHECK_EQ_INT(wl, left + 3);
    shmem_longlong_wait(&wll, 0);
    CHECK_EQ_INT(wll, left + 4);
    shmem_wait(hl, 0);
    CHECK_EQ_INT(*hl, left + 5);
    (shmem_wait_until)(&wl_fn, _SHMEM_CMP_GE, 10);
    CHECK_EQ_INT(wl_fn, left + 10);
    shmem_wait_until(&wl_gen, _SHMEM_CMP_GT, 19); /* C11: the generic macro, long's routine */
    CHECK_EQ_INT(wl_gen, left + 20);
    /* A second round: waits for a value other than the one held now. */
    shmem_barrier_all();
    shmem_long_p(&wl, 100 + me, right);
    shmem_quiet();
    shmem_wait(&wl, left + 3);
    CHECK_EQ_INT(wl, 100 + left);
    (shmem_wait_until)(&wl, _SHMEM_CMP_EQ, 100 + left);
    shmem_barrier_all();
    shfree(hl);
    if (me == 0) check_note("shmem_wait, shmem_<T>_wait, shmem_wait_until (function and macro)");
}

/* ----------------------------------------------------- 6. cache, pcontrol */

static long cl;

static void test_cache_pcontrol(void)
{
    shmem_long_p(&cl, 1000 + me, right);
    shmem_barrier_all();
    shmem_set_cache_inv();
    shmem_set_cache_line_inv(&cl);
    shmem_clear_cache_inv();
    shmem_clear_cache_line_inv(&cl);
    shmem_udcflush();
    shmem_udcflush_line(&cl);
    CHECK_EQ_INT(cl, 1000 + left);
    CHECK_EQ_INT(shmem_long_g(&cl, right), 1000 + me);
    shmem_pcontrol(0);
    shmem_pcontrol(1);
    shmem_pcontrol(2);
    shmem_pcontrol(3, "user event", 2.5, &cl, 42L);
    shmem_pcontrol(-1, 0);
    shmem_barrier_all();
    if (me == 0) check_note("cache routines, shmem_pcontrol");
}

int main(void)
{
    test_setup();
    test_memory();
    test_amo();
    test_generic();
    test_wait();
    test_cache_pcontrol();
    if (me == 0) check_note("deprecated routines: %d PEs passed", npes);
    shmem_finalize();
    return 0;
}
