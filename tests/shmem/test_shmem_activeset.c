/*
 * OpenSHMEM 1.5's active-set collectives (api/shmem/shmem_activeset.h):
 * every routine, every type and operator, on several active sets, with
 * values that crossed PEs checked against a reference computed here.
 *
 * Rounds of sets, each run on shmem_malloc memory and on globals (the
 * program's registered data): the whole world; the even and the odd PEs
 * at once (logPE_stride 1, the odd set without PE 0); PEs 1 .. n-1 while
 * PE 0, outside the set, puts and adds into the members meanwhile; every
 * PE alone (a set of one, logPE_stride 3); PEs 0-1 and 2 .. n-1 at once.
 * In each set:
 *  - shmem_barrier: values put to the next member before it are there
 *    after it; shmem_sync: stores made visible; both back to back on the
 *    same pSync;
 *  - broadcast32/64 from the first and the last member: every other
 *    member's dest holds the root's source, the root's dest keeps its
 *    sentinel; in place (dest == source, as PRK and OSU call it); nelems 0;
 *  - collect32/64 with counts that differ (0 among them), fcollect32/64,
 *    alltoall32/64, alltoalls32/64 (dst 2, sst 3: the gaps keep their
 *    sentinels);
 *  - every shmem_<T>_<op>_to_all (and, or, xor on short, int, long, long
 *    long; min, max on those and float, double, long double; sum, prod on
 *    those and complexd, complexf), once into another array and once in
 *    place; a 3000-element sum; nreduce 0 writes nothing.
 * pSync and pWrk keep what the program put there. Afterwards the
 * team-based complex reductions (shmem_complex{f,d}_{sum,prod}_reduce and
 * the C11 shmem_sum_reduce / shmem_prod_reduce) on the world and on the
 * even PEs' team.
 *
 * "bad" (no MPI ranks): runs this program under mpiexec at 2 PEs once per
 * mistake (a triplet that is no set, names PEs past the last, leaves the
 * caller out; a negative nreduce): the job must stop (exit status not 0)
 * with a message naming the routine, the PE and the cause.
 */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mpi.h>

#include "common/check.h"
#include "shmem.h"

enum { NR = 5, NE = 6, BIG = 3000, BUF = 32768 };

static int me, npes;
static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long psync2[SHMEM_BARRIER_SYNC_SIZE];
static _Alignas(64) unsigned char pwrk[4096];
static _Alignas(64) unsigned char g_a[BUF], g_b[BUF];
static long side[64];   /* what PE 0 puts into the members while outside their set */
static long side_count; /* and adds to */

/* An active set, and this PE's number in it. */
typedef struct aset {
    int start, log, size;
} aset_t;
static int set_pe(const aset_t *s, int i) { return s->start + (i << s->log); }
static int set_me(const aset_t *s) { return (me - s->start) >> s->log; }

/* A check naming the set and the memory (s and where in scope). */
#define SET_CHK(cond, fmt, ...)                                                                                        \
    CHECK_MSG(cond, "set (%d, %d, %d) on %s: " fmt, s->start, s->log, s->size, where, ##__VA_ARGS__)

/* Symmetric memory through the layer (heap on the GPU, or globals). */
static void sym_put(void *sym, const void *v, size_t n)
{
    shmem_putmem(sym, v, n, me);
    shmem_quiet();
}
static void sym_get(void *v, const void *sym, size_t n) { shmem_getmem(v, sym, n, me); }
static void sym_fill(void *sym, int byte, size_t n)
{
    static unsigned char tmp[BUF];
    memset(tmp, byte, n);
    sym_put(sym, tmp, n);
}

static uint64_t word(int pe, int i, int salt)
{
    return 0x9e3779b97f4a7c15ULL * (uint64_t)(pe * 131 + i * 7 + salt + 1);
}

/* ------------------------------------------------------- barrier, sync */
static void test_barrier(const aset_t *s, unsigned char *a, const char *where)
{
    int r = set_me(s), n = s->size, next = set_pe(s, (r + 1) % n), prev = set_pe(s, (r + n - 1) % n);
    int got[2];

    sym_fill(a, 0, 2 * sizeof(int));
    shmem_barrier(s->start, s->log, s->size, psync2); /* every member's word zeroed */
    shmem_int_p((int *)a, 100 + me, next);
    shmem_barrier(s->start, s->log, s->size, psync2); /* the put is complete and visible */
    sym_get(got, a, sizeof(int));
    SET_CHK(got[0] == 100 + prev, "shmem_barrier: %d from PE %d, not %d", got[0], prev, 100 + prev);
    /* Back to back on one pSync; then a store made visible by shmem_sync. */
    shmem_barrier(s->start, s->log, s->size, psync2);
    shmem_sync(s->start, s->log, s->size, psync2);
    got[1] = 200 + me;
    sym_put(a + sizeof(int), &got[1], sizeof(int));
    shmem_sync(s->start, s->log, s->size, psync2);
    SET_CHK(shmem_int_g((int *)a + 1, next) == 200 + next, "shmem_sync: PE %d's store", next);
    shmem_sync(s->start, s->log, s->size, psync2); /* read before anyone writes a again */
}

/* -------------------------------------------------- the data movers */
#define MOVERS(BITS)                                                                                                   \
    static void test_movers##BITS(const aset_t *s, unsigned char *a, unsigned char *b, const char *where)              \
    {                                                                                                                  \
        typedef uint##BITS##_t T;                                                                                      \
        const T sent = (T)0x5a5a5a5a5a5a5a5aULL;                                                                       \
        int r = set_me(s), n = s->size, roots[2] = {0, n - 1}, off;                                                    \
        T *d = (T *)a, *src = (T *)b, v[BUF / 8], w[BUF / 8];                                                          \
        for (int k = 0; k < 2; k++) { /* broadcast into another array, then in place */                                \
            int root = roots[k];                                                                                       \
            for (int i = 0; i < NE; i++) v[i] = (T)word(me, i, BITS + k);                                              \
            sym_put(src, v, NE * sizeof(T));                                                                           \
            sym_fill(d, 0x5a, NE * sizeof(T));                                                                         \
            shmem_sync(s->start, s->log, s->size, psync);                                                              \
            shmem_broadcast##BITS(d, src, NE, root, s->start, s->log, s->size, psync);                                 \
            sym_get(w, d, NE * sizeof(T));                                                                             \
            for (int i = 0; i < NE; i++)                                                                               \
                SET_CHK(w[i] == (r == root ? sent : (T)word(set_pe(s, root), i, BITS + k)),                            \
                        "broadcast" #BITS " root %d element %d (the root's dest is not written)", root, i);            \
            shmem_sync(s->start, s->log, s->size, psync);                                                              \
            shmem_broadcast##BITS(src, src, NE, root, s->start, s->log, s->size, psync);                               \
            sym_get(w, src, NE * sizeof(T));                                                                           \
            for (int i = 0; i < NE; i++)                                                                               \
                SET_CHK(w[i] == (T)word(set_pe(s, root), i, BITS + k), "broadcast" #BITS " in place element %d", i);   \
        }                                                                                                              \
        shmem_sync(s->start, s->log, s->size, psync);                                                                  \
        shmem_broadcast##BITS(d, src, 0, 0, s->start, s->log, s->size, psync);                                         \
        sym_get(w, d, sizeof(T));                                                                                      \
        SET_CHK(w[0] == (r == n - 1 ? sent : (T)word(set_pe(s, n - 1), 0, BITS + 1)),                                  \
                "broadcast" #BITS " of 0 wrote");                                                                      \
        /* collect: member i gives i % 3 elements */                                                                   \
        for (int i = 0; i < 3; i++) v[i] = (T)word(me, i, 40 + BITS);                                                  \
        sym_put(src, v, 3 * sizeof(T));                                                                                \
        sym_fill(d, 0x5a, (size_t)(3 * n + 2) * sizeof(T));                                                            \
        shmem_sync(s->start, s->log, s->size, psync);                                                                  \
        shmem_collect##BITS(d, src, (size_t)(r % 3), s->start, s->log, s->size, psync);                                \
        sym_get(w, d, (size_t)(3 * n + 2) * sizeof(T));                                                                \
        off = 0;                                                                                                       \
        for (int i = 0; i < n; i++)                                                                                    \
            for (int e = 0; e < i % 3; e++, off++)                                                                     \
                SET_CHK(w[off] == (T)word(set_pe(s, i), e, 40 + BITS), "collect" #BITS " member %d element %d", i, e); \
        SET_CHK(w[off] == sent, "collect" #BITS " wrote past the %d elements", off);                                   \
        /* fcollect */                                                                                                 \
        for (int i = 0; i < NE; i++) v[i] = (T)word(me, i, 50 + BITS);                                                 \
        sym_put(src, v, NE * sizeof(T));                                                                               \
        shmem_sync(s->start, s->log, s->size, psync);                                                                  \
        shmem_fcollect##BITS(d, src, NE, s->start, s->log, s->size, psync);                                            \
        sym_get(w, d, (size_t)(n * NE) * sizeof(T));                                                                   \
        for (int i = 0; i < n; i++)                                                                                    \
            for (int e = 0; e < NE; e++)                                                                               \
                SET_CHK(w[i * NE + e] == (T)word(set_pe(s, i), e, 50 + BITS), "fcollect" #BITS " %d.%d", i, e);        \
        /* alltoall: block j of member i goes to block i of member j */                                                \
        for (int j = 0; j < n; j++)                                                                                    \
            for (int e = 0; e < NE; e++) v[j * NE + e] = (T)word(me * 64 + j, e, 60 + BITS);                           \
        sym_put(src, v, (size_t)(n * NE) * sizeof(T));                                                                 \
        shmem_sync(s->start, s->log, s->size, psync);                                                                  \
        shmem_alltoall##BITS(d, src, NE, s->start, s->log, s->size, psync);                                            \
        sym_get(w, d, (size_t)(n * NE) * sizeof(T));                                                                   \
        for (int i = 0; i < n; i++)                                                                                    \
            for (int e = 0; e < NE; e++)                                                                               \
                SET_CHK(w[i * NE + e] == (T)word(set_pe(s, i) * 64 + r, e, 60 + BITS), "alltoall" #BITS " %d.%d", i,   \
                        e);                                                                                            \
        /* alltoalls: 3 elements a pair, dest stride 2, source stride 3 */                                             \
        for (int k = 0; k < 3 * 3 * n; k++) v[k] = (T)0xbadULL;                                                        \
        for (int j = 0; j < n; j++)                                                                                    \
            for (int e = 0; e < 3; e++) v[3 * (j * 3 + e)] = (T)word(me * 64 + j, e, 70 + BITS);                       \
        sym_put(src, v, (size_t)(9 * n) * sizeof(T));                                                                  \
        sym_fill(d, 0x5a, (size_t)(6 * n) * sizeof(T));                                                                \
        shmem_sync(s->start, s->log, s->size, psync);                                                                  \
        shmem_alltoalls##BITS(d, src, 2, 3, 3, s->start, s->log, s->size, psync);                                      \
        sym_get(w, d, (size_t)(6 * n) * sizeof(T));                                                                    \
        for (int k = 0; k < 6 * n; k++) {                                                                              \
            int i = k / 6, e = (k / 2) % 3;                                                                            \
            SET_CHK(w[k] == (k % 2 ? sent : (T)word(set_pe(s, i) * 64 + r, e, 70 + BITS)), "alltoalls" #BITS " %d",    \
                    k);                                                                                                \
        }                                                                                                              \
        shmem_sync(s->start, s->log, s->size, psync); /* read before anyone writes a again */                          \
    }
MOVERS(32)
MOVERS(64)

/* ---------------------------------------------------------- reductions */
/* Each member's element i of operator op. */
#define V_ARITH(T, pe, i, op)                                                                                          \
    ((op) == 2 ? (T)((pe) + (i) + 1) : (op) == 3 ? (T)(1 + ((pe) + (i)) % 3) : (T)(((pe)*7 + (i)*3) % 11 - 5))
#define V_BIT(T, pe, i) ((T)(0x5a ^ ((pe)*0x13 + (i)*0x29) ^ ((pe) << 9)))
#define V_CPLX(T, pe, i, op) ((op) == 2 ? (T)((pe) + 1 + (i)*I) : (T)(1 + ((pe) + (i)) % 2 + ((pe) % 2) * I))

/* One reduction twice: into a, and in place in b. */
#define TO_ALL_CALL(T, N, OP, nred)                                                                                    \
    do {                                                                                                               \
        sym_put(b, v, (size_t)(nred) * sizeof(T));                                                                     \
        shmem_sync(s->start, s->log, s->size, psync);                                                                  \
        shmem_##N##_##OP##_to_all((T *)a, (T *)b, nred, s->start, s->log, s->size, (T *)pwrk, psync);                  \
        sym_get(got, a, (size_t)(nred) * sizeof(T));                                                                   \
        for (int i = 0; i < (nred); i++) SET_CHK(got[i] == want[i], "shmem_" #N "_" #OP "_to_all element %d", i);      \
        shmem_##N##_##OP##_to_all((T *)b, (T *)b, nred, s->start, s->log, s->size, (T *)pwrk, psync);                  \
        sym_get(got, b, (size_t)(nred) * sizeof(T));                                                                   \
        for (int i = 0; i < (nred); i++)                                                                               \
            SET_CHK(got[i] == want[i], "shmem_" #N "_" #OP "_to_all in place element %d", i);                          \
        shmem_sync(s->start, s->log, s->size, psync); /* read before anyone writes a again */                          \
    } while (0)

#define TO_ALL_ARITH(T, N)                                                                                             \
    static void to_all_##N(const aset_t *s, unsigned char *a, unsigned char *b, const char *where)                     \
    {                                                                                                                  \
        T v[NR], want[NR], got[NR];                                                                                    \
        for (int op = 0; op < 4; op++) {                                                                               \
            for (int i = 0; i < NR; i++) {                                                                             \
                v[i] = V_ARITH(T, me, i, op);                                                                          \
                for (int k = 0; k < s->size; k++) {                                                                    \
                    T x = V_ARITH(T, set_pe(s, k), i, op);                                                             \
                    if (k == 0)                                                                                        \
                        want[i] = x;                                                                                   \
                    else if (op == 0)                                                                                  \
                        want[i] = x < want[i] ? x : want[i];                                                           \
                    else if (op == 1)                                                                                  \
                        want[i] = x > want[i] ? x : want[i];                                                           \
                    else if (op == 2)                                                                                  \
                        want[i] = (T)(want[i] + x);                                                                    \
                    else                                                                                               \
                        want[i] = (T)(want[i] * x);                                                                    \
                }                                                                                                      \
            }                                                                                                          \
            if (op == 0) TO_ALL_CALL(T, N, min, NR);                                                                   \
            if (op == 1) TO_ALL_CALL(T, N, max, NR);                                                                   \
            if (op == 2) TO_ALL_CALL(T, N, sum, NR);                                                                   \
            if (op == 3) TO_ALL_CALL(T, N, prod, NR);                                                                  \
        }                                                                                                              \
    }
#define TO_ALL_BIT(T, N)                                                                                               \
    static void to_all_bit_##N(const aset_t *s, unsigned char *a, unsigned char *b, const char *where)                 \
    {                                                                                                                  \
        T v[NR], want[NR], got[NR];                                                                                    \
        for (int op = 0; op < 3; op++) {                                                                               \
            for (int i = 0; i < NR; i++) {                                                                             \
                v[i] = V_BIT(T, me, i);                                                                                \
                want[i] = V_BIT(T, set_pe(s, 0), i);                                                                   \
                for (int k = 1; k < s->size; k++) {                                                                    \
                    T x = V_BIT(T, set_pe(s, k), i);                                                                   \
                    want[i] = (T)(op == 0 ? want[i] & x : op == 1 ? want[i] | x : want[i] ^ x);                        \
                }                                                                                                      \
            }                                                                                                          \
            if (op == 0) TO_ALL_CALL(T, N, and, NR);                                                                   \
            if (op == 1) TO_ALL_CALL(T, N, or, NR);                                                                    \
            if (op == 2) TO_ALL_CALL(T, N, xor, NR);                                                                   \
        }                                                                                                              \
    }
#define TO_ALL_CPLX(T, N)                                                                                              \
    static void to_all_##N(const aset_t *s, unsigned char *a, unsigned char *b, const char *where)                     \
    {                                                                                                                  \
        T v[NR], want[NR], got[NR];                                                                                    \
        for (int op = 2; op < 4; op++) {                                                                               \
            for (int i = 0; i < NR; i++) {                                                                             \
                v[i] = V_CPLX(T, me, i, op);                                                                           \
                want[i] = V_CPLX(T, set_pe(s, 0), i, op);                                                              \
                for (int k = 1; k < s->size; k++) {                                                                    \
                    T x = V_CPLX(T, set_pe(s, k), i, op);                                                              \
                    want[i] = op == 2 ? want[i] + x : want[i] * x;                                                     \
                }                                                                                                      \
            }                                                                                                          \
            if (op == 2) TO_ALL_CALL(T, N, sum, NR);                                                                   \
            if (op == 3) TO_ALL_CALL(T, N, prod, NR);                                                                  \
        }                                                                                                              \
    }
TO_ALL_ARITH(short, short)
TO_ALL_ARITH(int, int)
TO_ALL_ARITH(long, long)
TO_ALL_ARITH(long long, longlong)
TO_ALL_ARITH(float, float)
TO_ALL_ARITH(double, double)
TO_ALL_ARITH(long double, longdouble)
TO_ALL_BIT(short, short)
TO_ALL_BIT(int, int)
TO_ALL_BIT(long, long)
TO_ALL_BIT(long long, longlong)
TO_ALL_CPLX(double _Complex, complexd)
TO_ALL_CPLX(float _Complex, complexf)

static void test_to_all(const aset_t *s, unsigned char *a, unsigned char *b, const char *where)
{
    static double v[BIG], got[BIG];
    double one;

    to_all_short(s, a, b, where);
    to_all_int(s, a, b, where);
    to_all_long(s, a, b, where);
    to_all_longlong(s, a, b, where);
    to_all_float(s, a, b, where);
    to_all_double(s, a, b, where);
    to_all_longdouble(s, a, b, where);
    to_all_bit_short(s, a, b, where);
    to_all_bit_int(s, a, b, where);
    to_all_bit_long(s, a, b, where);
    to_all_bit_longlong(s, a, b, where);
    to_all_complexd(s, a, b, where);
    to_all_complexf(s, a, b, where);
    /* Many elements, in place. */
    for (int i = 0; i < BIG; i++) v[i] = me * 0.5 + i;
    sym_put(b, v, sizeof(v));
    shmem_sync(s->start, s->log, s->size, psync);
    shmem_double_sum_to_all((double *)b, (double *)b, BIG, s->start, s->log, s->size, (double *)pwrk, psync);
    sym_get(got, b, sizeof(got));
    for (int i = 0; i < BIG; i++) {
        double want = 0;
        for (int k = 0; k < s->size; k++) want += set_pe(s, k) * 0.5 + i;
        SET_CHK(got[i] == want, "shmem_double_sum_to_all of %d, element %d: %g, not %g", BIG, i, got[i], want);
    }
    /* nreduce 0: dest untouched. */
    one = -3.5;
    sym_put(a, &one, sizeof(one));
    shmem_sync(s->start, s->log, s->size, psync);
    shmem_double_max_to_all((double *)a, (double *)b, 0, s->start, s->log, s->size, (double *)pwrk, psync);
    sym_get(&one, a, sizeof(one));
    SET_CHK(one == -3.5, "shmem_double_max_to_all of 0 elements wrote %g", one);
    shmem_sync(s->start, s->log, s->size, psync);
}

static void suite(const aset_t *s, unsigned char *a, unsigned char *b, const char *where)
{
    test_barrier(s, a, where);
    test_movers32(s, a, b, where);
    test_movers64(s, a, b, where);
    test_to_all(s, a, b, where);
}

/* Sets of one round: the set this PE is in, if any. */
static int round_set(int round, aset_t *s)
{
    switch (round) {
    case 0: *s = (aset_t){0, 0, npes}; return 1;
    case 1: *s = me % 2 ? (aset_t){1, 1, npes / 2} : (aset_t){0, 1, (npes + 1) / 2}; return 1;
    case 2: *s = (aset_t){1, 0, npes - 1}; return npes > 1 && me > 0;
    case 3: *s = (aset_t){me, 3, 1}; return 1;
    default: *s = me < 2 ? (aset_t){0, 0, npes < 2 ? npes : 2} : (aset_t){2, 0, npes - 2}; return 1;
    }
}

static void outsider(void)
{
    for (int r = 0; r < 200; r++)
        for (int pe = 1; pe < npes; pe++) {
            shmem_long_p(&side[r % 64], 1000L * r + pe, pe);
            shmem_long_atomic_add(&side_count, r, pe);
        }
    shmem_quiet();
}

static void outsider_check(void)
{
    for (int k = 0; k < 64; k++) {
        long want = 0;
        for (int r = 0; r < 200; r++)
            if (r % 64 == k) want = 1000L * r + me;
        CHECK_MSG(side[k] == want, "PE 0's put %d, while outside the set: %ld, not %ld", k, side[k], want);
    }
    CHECK_EQ_INT(side_count, 199 * 200 / 2);
}

static void test_rounds(unsigned char *ha, unsigned char *hb)
{
    for (int round = 0; round < 5; round++)
        for (int mem = 0; mem < 2; mem++) {
            aset_t s;
            memset(side, 0, sizeof(side));
            side_count = 0;
            shmem_barrier_all();
            if (round_set(round, &s))
                suite(&s, mem ? g_a : ha, mem ? g_b : hb, mem ? "globals" : "the heap");
            else if (round == 2)
                outsider();
            shmem_barrier_all();
            if (round == 2 && me > 0 && npes > 1) outsider_check();
        }
    for (size_t i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++) CHECK_EQ_INT(psync[i], SHMEM_SYNC_VALUE);
    for (size_t i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++) CHECK_EQ_INT(psync2[i], SHMEM_SYNC_VALUE);
    for (size_t i = 0; i < sizeof(pwrk); i++) CHECK_EQ_INT(pwrk[i], (unsigned char)(i * 7 + 3));
}

/* ------------------------------------------- team-based complex reductions */
static void complex_team(shmem_team_t team, unsigned char *a, unsigned char *b)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    double _Complex vd[NR], gd[NR], sd[NR], pd[NR];
    float _Complex vf[NR], gf[NR], sf[NR], pf[NR];

    for (int i = 0; i < NR; i++) {
        vd[i] = (tme + 1) + (i - 2) * I;
        vf[i] = (float)(1 + (tme + i) % 2) + (float)(tme % 2) * I;
        sd[i] = 0;
        pf[i] = 1;
        sf[i] = 0;
        pd[i] = 1;
        for (int k = 0; k < tn; k++) {
            sd[i] += (k + 1) + (i - 2) * I;
            pd[i] *= (k + 1) + (i - 2) * I;
            sf[i] += (float)(1 + (k + i) % 2) + (float)(k % 2) * I;
            pf[i] *= (float)(1 + (k + i) % 2) + (float)(k % 2) * I;
        }
    }
    sym_put(b, vd, sizeof(vd));
    shmem_team_sync(team);
    CHECK_EQ_INT(shmem_complexd_sum_reduce(team, (double _Complex *)a, (double _Complex *)b, NR), 0);
    sym_get(gd, a, sizeof(gd));
    for (int i = 0; i < NR; i++) CHECK_MSG(gd[i] == sd[i], "shmem_complexd_sum_reduce element %d", i);
    CHECK_EQ_INT(shmem_prod_reduce(team, (double _Complex *)a, (double _Complex *)b, NR), 0); /* C11 generic */
    sym_get(gd, a, sizeof(gd));
    for (int i = 0; i < NR; i++) CHECK_MSG(gd[i] == pd[i], "shmem_prod_reduce (complexd) element %d", i);
    shmem_team_sync(team);
    sym_put(b, vf, sizeof(vf));
    shmem_team_sync(team);
    CHECK_EQ_INT(shmem_sum_reduce(team, (float _Complex *)a, (float _Complex *)b, NR), 0); /* C11 generic */
    sym_get(gf, a, sizeof(gf));
    for (int i = 0; i < NR; i++) CHECK_MSG(gf[i] == sf[i], "shmem_sum_reduce (complexf) element %d", i);
    CHECK_EQ_INT(shmem_complexf_prod_reduce(team, (float _Complex *)b, (float _Complex *)b, NR), 0); /* in place */
    sym_get(gf, b, sizeof(gf));
    for (int i = 0; i < NR; i++) CHECK_MSG(gf[i] == pf[i], "shmem_complexf_prod_reduce element %d", i);
    CHECK_EQ_INT(shmem_complexd_prod_reduce(team, (double _Complex *)a, (double _Complex *)a, 0), 0);
    CHECK_EQ_INT(shmem_complexf_sum_reduce(team, (float _Complex *)a, (float _Complex *)b, 0), 0);
    shmem_team_sync(team);
}

static void test_complex_teams(unsigned char *ha, unsigned char *hb)
{
    shmem_team_t evens = SHMEM_TEAM_INVALID;
    complex_team(SHMEM_TEAM_WORLD, ha, hb);
    complex_team(SHMEM_TEAM_WORLD, g_a, g_b);
    CHECK_EQ_INT(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens), 0);
    if (evens != SHMEM_TEAM_INVALID) {
        complex_team(evens, ha, hb);
        shmem_team_destroy(evens);
    }
    shmem_barrier_all();
}

/* ------------------------------------------------------------- mistakes */
static const struct bad {
    const char *name, *expect[3];
} bads[] = {
    {"start", {"shmem_barrier: PE ", "PE_start -1, logPE_stride 0, PE_size 2 is not a set of PEs", ""}},
    {"stride", {"shmem_sync: PE ", "logPE_stride -1", "is not a set of PEs"}},
    {"size", {"shmem_int_sum_to_all: PE ", "PE_size 0 is not a set of PEs", ""}},
    {"past", {"shmem_broadcast64: PE ", "names PEs 0 to 2, past the last PE (1)", ""}},
    {"member", {"shmem_fcollect32: PE ", "does not hold PE ", "which called it"}},
    {"nreduce", {"shmem_double_max_to_all: PE ", "nreduce -1", ""}},
};

/* Each PE's stderr into dir/pe<rank>: mpiexec may end the job before it
 * passed on what an aborting PE wrote. */
static void bad_child(const char *name, const char *dir)
{
    static long buf[8];
    char path[512];
    const char *rank = test_launcher_rank();
    snprintf(path, sizeof(path), "%s/pe%s", dir, rank ? rank : "x");
    CHECK(freopen(path, "w", stderr) != NULL);
    shmem_init();
    me = shmem_my_pe();
    if (strcmp(name, "start") == 0) shmem_barrier(-1, 0, 2, psync);
    if (strcmp(name, "stride") == 0) shmem_sync(0, -1, 2, psync);
    if (strcmp(name, "size") == 0) shmem_int_sum_to_all((int *)buf, (int *)buf, 1, 0, 0, 0, (int *)pwrk, psync);
    if (strcmp(name, "past") == 0) shmem_broadcast64(buf, buf + 2, 1, 0, 0, 1, 2, psync);
    if (strcmp(name, "member") == 0) shmem_fcollect32(buf, buf + 4, 1, 1 - me, 0, 1, psync);
    if (strcmp(name, "nreduce") == 0)
        shmem_double_max_to_all((double *)buf, (double *)buf, -1, 0, 0, 2, (double *)pwrk, psync);
    printf("%s: the call returned\n", name);
    shmem_finalize();
}

/* What the job wrote: its output, then each PE's stderr. */
static void bad_output(const char *dir, FILE *p, char *out, size_t len)
{
    size_t n = fread(out, 1, len - 1, p);
    for (int pe = 0; pe < 2; pe++) {
        char path[512];
        FILE *f;
        snprintf(path, sizeof(path), "%s/pe%d", dir, pe);
        if ((f = fopen(path, "r")) == NULL) continue;
        n += fread(out + n, 1, len - 1 - n, f);
        fclose(f);
        remove(path);
    }
    out[n] = '\0';
}

static int run_bad(const char *self)
{
    const char *mpiexec = getenv("SHOAL_TEST_MPIEXEC");
    char cmd[4096], out[16384], dir[] = "/tmp/shoal-activeset-XXXXXX";
    FILE *p;
    int st;

    CHECK(mkdtemp(dir) != NULL);
    for (size_t k = 0; k < sizeof(bads) / sizeof(bads[0]); k++) {
        snprintf(cmd, sizeof(cmd), "MPIEXEC_TIMEOUT=60 %s -n 2 %s bad-child %s %s 2>&1", mpiexec ? mpiexec : "mpiexec",
                 self, bads[k].name, dir);
        p = popen(cmd, "r");
        CHECK_MSG(p != NULL, "popen(%s)", cmd);
        bad_output(dir, p, out, sizeof(out));
        st = pclose(p);
        CHECK_MSG(!(WIFEXITED(st) && WEXITSTATUS(st) == 0), "%s: the job went on (exit 0): %s", bads[k].name, out);
        for (int e = 0; e < 3; e++) CHECK_CONTAINS(out, bads[k].expect[e]);
        CHECK_CONTAINS(out, "SHOAL_ERR_INVALID_ARG");
        CHECK_MSG(strstr(out, "the call returned") == NULL, "%s: %s", bads[k].name, out);
    }
    rmdir(dir);
    check_note("active-set mistakes stop the job, named");
    return 0;
}

int main(int argc, char **argv)
{
    unsigned char *ha, *hb;

    if (argc > 3 && strcmp(argv[1], "bad-child") == 0) {
        bad_child(argv[2], argv[3]);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "bad") == 0) return run_bad(argv[0]);
    MPI_Init(&argc, &argv);
    {
        /* A GPU heap where none can be had: skipped, before shmem_init aborts. */
        const char *kind = getenv("SHOAL_HEAP_KIND");
        if (kind != NULL && strcmp(kind, "gpu") == 0) {
            shoal_config_t cfg;
            shoal_t sh;
            test_config(&cfg, 1 << 20);
            if (!test_init_or_skip(&cfg, &sh)) {
                MPI_Finalize();
                return TEST_SKIP;
            }
            CHECK_OK(shoal_finalize(sh), NULL);
        }
    }
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    CHECK(npes <= 16);
    for (size_t i = 0; i < sizeof(pwrk); i++) pwrk[i] = (unsigned char)(i * 7 + 3);
    ha = shmem_malloc(BUF);
    hb = shmem_malloc(BUF);
    CHECK(ha != NULL && hb != NULL);
    test_rounds(ha, hb);
    test_complex_teams(ha, hb);
    shmem_free(ha);
    shmem_free(hb);
    if (me == 0) check_note("active-set collectives passed on %d PEs", npes);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
