/*
 * Atomics on symmetric words (api/shoal.h, "Point-to-point
 * synchronization"): every family for every type of its X-macro, towards
 * the right neighbour and towards this PE itself, on host and GPU heaps.
 *
 * 1. Per type: fetch, set, swap (SHOAL_AMO_TYPES and SHOAL_AMO_EXT_TYPES);
 *    compare_swap (failing and succeeding, the old value returned either
 *    way), fetch_inc/inc, fetch_add/add (with a negative operand and the
 *    wrap-around of an unsigned word at its maximum) (SHOAL_AMO_TYPES);
 *    fetch_and/and, fetch_or/or, fetch_xor/xor (SHOAL_AMO_BITWISE_TYPES);
 *    and every _nbi form, whose value is there after shoal_quiet. Each PE
 *    works on a region of its right neighbour's block and a region of its
 *    own; the owner then checks every word of both regions and the guards
 *    around them: what each family left and what it must not have touched.
 * 2. Concurrency: every PE adds to a counter on every PE, many times, with
 *    fetch_add, add and fetch_add_nbi: each counter ends at the exact sum,
 *    and the old values one PE fetched from one counter grow; every PE
 *    takes tickets with fetch_inc from one counter on PE 0: the tickets of
 *    all PEs together are 0 .. total-1, each once.
 * 3. A spin lock made of compare_swap on PE 0 guards a counter that the
 *    holder increments with a plain get and put: the exact total, and the
 *    lock word held the holder's mark for the whole critical section.
 * 4. Mistakes: a misaligned word (SHOAL_ERR_INVALID_ARG, "align"), a word
 *    outside the heap or in a freed block (SHOAL_ERR_OUT_OF_BOUNDS), a PE
 *    out of range (SHOAL_ERR_PE), a NULL result pointer on a fetching call
 *    (SHOAL_ERR_INVALID_ARG): each names the call, and nothing is written.
 *
 * GPU heaps (SHOAL_HEAP_KIND=gpu; skipped without a GPU) make every atomic a
 * kernel launch, so the concurrent loops run fewer times there.
 */
#define _POSIX_C_SOURCE 200809L
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

/* Slots of one region: each family works on its own slots. */
enum { S_FETCH, S_SET, S_SWAP, S_CSWAP, S_INC, S_ADD, S_WRAP, S_AND, S_OR, S_XOR, NSLOT };
/* A block: guard, region 0 (worked on by the left neighbour), guard,
 * region 1 (worked on by this PE), guard. */
enum { R0 = 1, R1 = NSLOT + 2, NALL = 2 * NSLOT + 3 };

static int me, npes, right, left, host_heap;
static int niter, slow; /* concurrent loop length: scaled down on GPU heaps and over mpi_rma */

static int is_bit_slot(int s) { return s == S_AND || s == S_OR || s == S_XOR; }

/* Values: "who" is the owner for the initial words (k 0) and an operator's
 * key for operands. Integers within +-1e6 are exact in every type (wrapped
 * in the unsigned ones, exact in float). */
static long long lval(int who, int slot, int k)
{
    if (k == 0 && (slot == S_INC || slot == S_ADD)) return 100 + 10 * who + slot;
    if (k == 0 && slot == S_WRAP) return -1;
    return (long long)(test_mix64(((uint64_t)(who + 7) << 40) ^ ((uint64_t)slot << 20) ^ (uint64_t)k) % 2000001) -
           1000000;
}

/* Bit patterns for the bitwise slots. */
static uint64_t bval(int who, int slot, int k)
{
    return test_mix64(((uint64_t)(who + 7) << 40) ^ ((uint64_t)slot << 20) ^ (uint64_t)k ^ (0xB17ull << 52));
}

/* The key of the operator of region r of owner's block: region 0 is the
 * left neighbour's, region 1 the owner's own. */
static int op_key(int actor, int region) { return 16 + 2 * actor + region; }

#define INITV(T, owner, s) (is_bit_slot(s) ? (T)bval((owner), (s), 0) : (T)lval((owner), (s), 0))
#define GUARD(T) ((T)lval(-3, 99, 5))

#define CHECK_V(N, what, got, exp, pe)                                                                                 \
    CHECK_MSG((got) == (exp), "shoal_" #N "_atomic_%s towards PE %d: %.21Lg, expected %.21Lg", (what), (pe),           \
              (long double)(got), (long double)(exp))

/* ---- per family: the operations on region d of PE tp, and the words they leave ---- */

/* fetch, set, swap: every type of SHOAL_AMO_TYPES and SHOAL_AMO_EXT_TYPES. */
#define EXT_FAMILY(T, N)                                                                                               \
    static void ext_ops_##N(shoal_t sh, T *d, int tp, int key)                                                         \
    {                                                                                                                  \
        const T a_f = INITV(T, tp, S_FETCH), a_s = INITV(T, tp, S_SWAP);                                               \
        const T x = (T)lval(key, S_SET, 1), y1 = (T)lval(key, S_SWAP, 1), y2 = (T)lval(key, S_SWAP, 2);                \
        T v = (T)(a_f + 1), o = (T)(a_s + 1);                                                                          \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, d + S_FETCH, tp, &v), sh);                                               \
        CHECK_V(N, "fetch", v, a_f, tp);                                                                               \
        v = (T)(a_f + 1);                                                                                              \
        CHECK_OK(shoal_##N##_atomic_fetch_nbi(sh, d + S_FETCH, tp, &v), sh);                                           \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_V(N, "fetch_nbi", v, a_f, tp);                                                                           \
        CHECK_OK(shoal_##N##_atomic_set(sh, d + S_SET, x, tp), sh);                                                    \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, d + S_SET, tp, &v), sh);                                                 \
        CHECK_V(N, "set (fetched back)", v, x, tp);                                                                    \
        CHECK_OK(shoal_##N##_atomic_swap(sh, d + S_SWAP, y1, tp, &o), sh);                                             \
        CHECK_V(N, "swap (old value)", o, a_s, tp);                                                                    \
        o = (T)(y1 + 1);                                                                                               \
        CHECK_OK(shoal_##N##_atomic_swap_nbi(sh, d + S_SWAP, y2, tp, &o), sh);                                         \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_V(N, "swap_nbi (old value)", o, y1, tp);                                                                 \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, d + S_SWAP, tp, &v), sh);                                                \
        CHECK_V(N, "swap_nbi (fetched back)", v, y2, tp);                                                              \
    }                                                                                                                  \
    static T ext_final_##N(int owner, int key, int s)                                                                  \
    {                                                                                                                  \
        if (s == S_SET) return (T)lval(key, S_SET, 1);                                                                 \
        if (s == S_SWAP) return (T)lval(key, S_SWAP, 2);                                                               \
        return INITV(T, owner, s);                                                                                     \
    }

/* compare_swap, fetch_inc/inc, fetch_add/add: SHOAL_AMO_TYPES. */
#define STD_FAMILY(T, N)                                                                                               \
    static T std_add_final_##N(int owner, int key)                                                                     \
    {                                                                                                                  \
        T e = INITV(T, owner, S_ADD);                                                                                  \
        e = (T)(e + (T)(5 + key));                                                                                     \
        e = (T)(e + (T)1000);                                                                                          \
        return (T)(e + (T)-2000);                                                                                      \
    }                                                                                                                  \
    static void std_ops_##N(shoal_t sh, T *d, int tp, int key)                                                         \
    {                                                                                                                  \
        const T a = INITV(T, tp, S_CSWAP), z1 = (T)lval(key, S_CSWAP, 1), z2 = (T)lval(key, S_CSWAP, 2);               \
        const T ai = INITV(T, tp, S_INC), aa = INITV(T, tp, S_ADD);                                                    \
        const T d1 = (T)(5 + key), d2 = (T)1000, d3 = (T)-2000;                                                        \
        T o = (T)(a + 1), v = (T)0;                                                                                    \
        /* compare_swap: a failing one (cond a+1) changes nothing and returns a */                                     \
        CHECK_OK(shoal_##N##_atomic_compare_swap(sh, d + S_CSWAP, (T)(a + 1), z1, tp, &o), sh);                        \
        CHECK_V(N, "compare_swap (failing, old value)", o, a, tp);                                                     \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, d + S_CSWAP, tp, &v), sh);                                               \
        CHECK_V(N, "compare_swap (failing: word unchanged)", v, a, tp);                                                \
        o = (T)(a + 1);                                                                                                \
        CHECK_OK(shoal_##N##_atomic_compare_swap(sh, d + S_CSWAP, a, z1, tp, &o), sh);                                 \
        CHECK_V(N, "compare_swap (succeeding, old value)", o, a, tp);                                                  \
        o = (T)(z1 + 1);                                                                                               \
        CHECK_OK(shoal_##N##_atomic_compare_swap_nbi(sh, d + S_CSWAP, z1, z2, tp, &o), sh);                            \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_V(N, "compare_swap_nbi (succeeding, old value)", o, z1, tp);                                             \
        o = (T)(z2 + 1);                                                                                               \
        CHECK_OK(shoal_##N##_atomic_compare_swap_nbi(sh, d + S_CSWAP, a, z1, tp, &o), sh);                             \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_V(N, "compare_swap_nbi (failing, old value)", o, z2, tp);                                                \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, d + S_CSWAP, tp, &v), sh);                                               \
        CHECK_V(N, "compare_swap_nbi (failing: word unchanged)", v, z2, tp);                                           \
        /* fetch_inc, fetch_inc_nbi, inc */                                                                            \
        o = (T)0;                                                                                                      \
        CHECK_OK(shoal_##N##_atomic_fetch_inc(sh, d + S_INC, tp, &o), sh);                                             \
        CHECK_V(N, "fetch_inc", o, ai, tp);                                                                            \
        o = (T)0;                                                                                                      \
        CHECK_OK(shoal_##N##_atomic_fetch_inc_nbi(sh, d + S_INC, tp, &o), sh);                                         \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_V(N, "fetch_inc_nbi", o, (T)(ai + 1), tp);                                                               \
        CHECK_OK(shoal_##N##_atomic_inc(sh, d + S_INC, tp), sh);                                                       \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, d + S_INC, tp, &v), sh);                                                 \
        CHECK_V(N, "inc (fetched back)", v, (T)(ai + 3), tp);                                                          \
        /* fetch_add, fetch_add_nbi, add of a negative operand (wrapped in unsigned types) */                          \
        o = (T)0;                                                                                                      \
        CHECK_OK(shoal_##N##_atomic_fetch_add(sh, d + S_ADD, d1, tp, &o), sh);                                         \
        CHECK_V(N, "fetch_add", o, aa, tp);                                                                            \
        o = (T)0;                                                                                                      \
        CHECK_OK(shoal_##N##_atomic_fetch_add_nbi(sh, d + S_ADD, d2, tp, &o), sh);                                     \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_V(N, "fetch_add_nbi", o, (T)(aa + d1), tp);                                                              \
        CHECK_OK(shoal_##N##_atomic_add(sh, d + S_ADD, d3, tp), sh);                                                   \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, d + S_ADD, tp, &v), sh);                                                 \
        CHECK_V(N, "add of a negative value (fetched back)", v, std_add_final_##N(tp, key), tp);                       \
        /* -1 (the maximum of an unsigned type) + 2 wraps to 1; a neighbouring word must not see a carry */            \
        CHECK_OK(shoal_##N##_atomic_add(sh, d + S_WRAP, (T)2, tp), sh);                                                \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        o = (T)0;                                                                                                      \
        CHECK_OK(shoal_##N##_atomic_fetch_inc(sh, d + S_WRAP, tp, &o), sh);                                            \
        CHECK_V(N, "add wrapping -1 + 2", o, (T)1, tp);                                                                \
    }                                                                                                                  \
    static T std_final_##N(int owner, int key, int s)                                                                  \
    {                                                                                                                  \
        if (s == S_CSWAP) return (T)lval(key, S_CSWAP, 2);                                                             \
        if (s == S_INC) return (T)(INITV(T, owner, S_INC) + 3);                                                        \
        if (s == S_ADD) return std_add_final_##N(owner, key);                                                          \
        if (s == S_WRAP) return (T)2;                                                                                  \
        return INITV(T, owner, s);                                                                                     \
    }

/* fetch_and/and, fetch_or/or, fetch_xor/xor: SHOAL_AMO_BITWISE_TYPES. */
#define BIT_OP(T, N, OP, SYM, S)                                                                                       \
    do {                                                                                                               \
        const T a = INITV(T, tp, S), m1 = (T)bval(key, S, 1), m2 = (T)bval(key, S, 2), m3 = (T)bval(key, S, 3);        \
        T o = (T)~a, v = (T)~a;                                                                                        \
        CHECK_OK(shoal_##N##_atomic_fetch_##OP(sh, d + S, m1, tp, &o), sh);                                            \
        CHECK_V(N, "fetch_" #OP, o, a, tp);                                                                            \
        o = (T)~a;                                                                                                     \
        CHECK_OK(shoal_##N##_atomic_fetch_##OP##_nbi(sh, d + S, m2, tp, &o), sh);                                      \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_V(N, "fetch_" #OP "_nbi", o, (T)(a SYM m1), tp);                                                         \
        CHECK_OK(shoal_##N##_atomic_##OP(sh, d + S, m3, tp), sh);                                                      \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, d + S, tp, &v), sh);                                                     \
        CHECK_V(N, #OP " (fetched back)", v, (T)((T)((T)(a SYM m1)SYM m2)SYM m3), tp);                                 \
    } while (0)

#define BIT_FAMILY(T, N)                                                                                               \
    static void bit_ops_##N(shoal_t sh, T *d, int tp, int key)                                                         \
    {                                                                                                                  \
        BIT_OP(T, N, and, &, S_AND);                                                                                   \
        BIT_OP(T, N, or, |, S_OR);                                                                                     \
        BIT_OP(T, N, xor, ^, S_XOR);                                                                                   \
    }                                                                                                                  \
    static T bit_final_##N(int owner, int key, int s)                                                                  \
    {                                                                                                                  \
        const T a = INITV(T, owner, s), m1 = (T)bval(key, s, 1), m2 = (T)bval(key, s, 2), m3 = (T)bval(key, s, 3);     \
        if (s == S_AND) return (T)(a & m1 & m2 & m3);                                                                  \
        if (s == S_OR) return (T)(a | m1 | m2 | m3);                                                                   \
        if (s == S_XOR) return (T)(a ^ m1 ^ m2 ^ m3);                                                                  \
        return a;                                                                                                      \
    }

/* One family on one type: a block with both regions, the operations on
 * the right neighbour's region 0 and on this PE's region 1, then the owner
 * checks every word of its block. */
#define FAMILY_TEST(FAM, T, N)                                                                                         \
    static void test_##FAM##_##N(shoal_t sh)                                                                           \
    {                                                                                                                  \
        T *blk = shoal_malloc(sh, NALL * sizeof(T));                                                                   \
        T img[NALL];                                                                                                   \
        CHECK_NONNULL(blk, sh);                                                                                        \
        for (int i = 0; i < NALL; i++) img[i] = GUARD(T);                                                              \
        for (int s = 0; s < NSLOT; s++) img[R0 + s] = img[R1 + s] = INITV(T, me, s);                                   \
        test_heap_write(sh, blk, img, sizeof(img));                                                                    \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        FAM##_ops_##N(sh, blk + R0, right, op_key(me, 0));                                                             \
        FAM##_ops_##N(sh, blk + R1, me, op_key(me, 1));                                                                \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        test_heap_read(sh, img, blk, sizeof(img));                                                                     \
        for (int i = 0; i < NALL; i++) {                                                                               \
            T e = GUARD(T);                                                                                            \
            if (i >= R0 && i < R0 + NSLOT) e = FAM##_final_##N(me, op_key(left, 0), i - R0);                           \
            if (i >= R1 && i < R1 + NSLOT) e = FAM##_final_##N(me, op_key(me, 1), i - R1);                             \
            CHECK_MSG(img[i] == e, #FAM " atomics of type " #N ": word %d of PE %d (%s) = %.21Lg, expected %.21Lg", i, \
                      me,                                                                                              \
                      i < R1 ? (i >= R0 && i < R0 + NSLOT ? "region of the left neighbour" : "guard")                  \
                             : (i < R1 + NSLOT ? "own region" : "guard"),                                              \
                      (long double)img[i], (long double)e);                                                            \
        }                                                                                                              \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        CHECK_OK(shoal_free(sh, blk), sh);                                                                             \
    }

#define EXT_ALL(T, N) EXT_FAMILY(T, N) FAMILY_TEST(ext, T, N)
#define STD_ALL(T, N) STD_FAMILY(T, N) FAMILY_TEST(std, T, N)
#define BIT_ALL(T, N) BIT_FAMILY(T, N) FAMILY_TEST(bit, T, N)
SHOAL_AMO_TYPES(EXT_ALL)
SHOAL_AMO_EXT_TYPES(EXT_ALL)
SHOAL_AMO_TYPES(STD_ALL)
SHOAL_AMO_BITWISE_TYPES(BIT_ALL)

/* ---- concurrency ---- */

/* Every PE adds me+1 to ctr on every PE, niter times each: fetch_add,
 * add and fetch_add_nbi in turn. */
#define CONC_TEST(T, N)                                                                                                \
    static void test_conc_add_##N(shoal_t sh)                                                                          \
    {                                                                                                                  \
        T *ctr = shoal_calloc(sh, 2, sizeof(T)), got[2];                                                               \
        T *prev = malloc(npes * sizeof(T)), *nbi_old = malloc(npes * sizeof(T));                                       \
        const T total = (T)((unsigned long long)niter * npes * (npes + 1) / 2);                                        \
        CHECK_NONNULL(ctr, sh);                                                                                        \
        CHECK(prev != NULL && nbi_old != NULL);                                                                        \
        for (int p = 0; p < npes; p++) prev[p] = (T)0;                                                                 \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        for (int it = 0; it < niter; it++) {                                                                           \
            for (int k = 0; k < npes; k++) {                                                                           \
                int p = (me + k) % npes;                                                                               \
                T o = (T)-1;                                                                                           \
                if (it % 3 == 0) {                                                                                     \
                    CHECK_OK(shoal_##N##_atomic_fetch_add(sh, ctr, (T)(me + 1), p, &o), sh);                           \
                    CHECK_MSG(o < total && (it == 0 || o >= (T)(prev[p] + me + 1)),                                    \
                              "concurrent shoal_" #N "_atomic_fetch_add on PE %d returned %.21Lg after %.21Lg "        \
                              "(total %.21Lg)",                                                                        \
                              p, (long double)o, (long double)prev[p], (long double)total);                            \
                    prev[p] = o;                                                                                       \
                } else if (it % 3 == 1) {                                                                              \
                    CHECK_OK(shoal_##N##_atomic_add(sh, ctr, (T)(me + 1), p), sh);                                     \
                } else {                                                                                               \
                    nbi_old[p] = (T)-1;                                                                                \
                    CHECK_OK(shoal_##N##_atomic_fetch_add_nbi(sh, ctr, (T)(me + 1), p, &nbi_old[p]), sh);              \
                }                                                                                                      \
            }                                                                                                          \
            if (it % 3 == 2) {                                                                                         \
                CHECK_OK(shoal_quiet(sh), sh);                                                                         \
                for (int p = 0; p < npes; p++)                                                                         \
                    CHECK_MSG(nbi_old[p] < total, "shoal_" #N "_atomic_fetch_add_nbi on PE %d returned %.21Lg", p,     \
                              (long double)nbi_old[p]);                                                                \
            }                                                                                                          \
        }                                                                                                              \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        test_heap_read(sh, got, ctr, sizeof(got));                                                                     \
        CHECK_MSG(got[0] == total && got[1] == (T)0,                                                                   \
                  "counter of type " #N " on PE %d after %d rounds of %d PEs: %.21Lg (next word %.21Lg), expected "    \
                  "%.21Lg",                                                                                            \
                  me, niter, npes, (long double)got[0], (long double)got[1], (long double)total);                      \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        CHECK_OK(shoal_free(sh, ctr), sh);                                                                             \
        free(prev);                                                                                                    \
        free(nbi_old);                                                                                                 \
    }
CONC_TEST(int64_t, int64)
CONC_TEST(uint32_t, uint32)
CONC_TEST(int, int)

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Tickets: every PE takes niter of them with fetch_inc (every fourth with
 * fetch_inc_nbi) from one counter on PE 0; together they are 0 .. total-1. */
#define TICKET_TEST(T, N)                                                                                              \
    static void test_tickets_##N(shoal_t sh)                                                                           \
    {                                                                                                                  \
        T *ctr = shoal_calloc(sh, 1, sizeof(T)), *tk = malloc(niter * sizeof(T)), last = (T)0, fin = (T)0;             \
        long long *mine = malloc(niter * sizeof(long long)), *all = malloc((size_t)niter * npes * sizeof(long long));  \
        const long long total = (long long)niter * npes;                                                               \
        CHECK_NONNULL(ctr, sh);                                                                                        \
        CHECK(tk != NULL && mine != NULL && all != NULL);                                                              \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        for (int i = 0; i < niter; i++) {                                                                              \
            tk[i] = (T)-1;                                                                                             \
            if (i % 4 == 3) {                                                                                          \
                CHECK_OK(shoal_##N##_atomic_fetch_inc_nbi(sh, ctr, 0, &tk[i]), sh);                                    \
                continue;                                                                                              \
            }                                                                                                          \
            CHECK_OK(shoal_##N##_atomic_fetch_inc(sh, ctr, 0, &tk[i]), sh);                                            \
            CHECK_MSG(i == 0 || tk[i] > last, "shoal_" #N "_atomic_fetch_inc: ticket %.21Lg after %.21Lg",             \
                      (long double)tk[i], (long double)last);                                                          \
            last = tk[i];                                                                                              \
        }                                                                                                              \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        for (int i = 0; i < niter; i++) mine[i] = (long long)tk[i];                                                    \
        MPI_Allgather(mine, niter, MPI_LONG_LONG, all, niter, MPI_LONG_LONG, MPI_COMM_WORLD);                          \
        qsort(all, (size_t)total, sizeof(long long), cmp_ll);                                                          \
        for (long long i = 0; i < total; i++)                                                                          \
            CHECK_MSG(all[i] == i,                                                                                     \
                      "shoal_" #N "_atomic_fetch_inc tickets of %d PEs x %d: sorted ticket %lld is %lld (a ticket "    \
                      "twice, or one missing)",                                                                        \
                      npes, niter, i, all[i]);                                                                         \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        CHECK_OK(shoal_##N##_atomic_fetch(sh, ctr, 0, &fin), sh);                                                      \
        CHECK_EQ_INT((long long)fin, total);                                                                           \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        CHECK_OK(shoal_free(sh, ctr), sh);                                                                             \
        free(tk);                                                                                                      \
        free(mine);                                                                                                    \
        free(all);                                                                                                     \
    }
TICKET_TEST(int64_t, int64)
TICKET_TEST(unsigned int, uint)

/* A compare_swap spin lock on PE 0 (word 0) guards a counter (word 1)
 * incremented with a plain get and put. */
static void test_cswap_lock(shoal_t sh)
{
    int64_t *w = shoal_calloc(sh, 2, sizeof(int64_t)), got[2];
    const int rounds = !host_heap ? 10 : slow ? 20 : 60;
    long spins = 0;

    CHECK_NONNULL(w, sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int r = 0; r < rounds; r++) {
        int64_t o = -1, c = -1;
        for (;;) {
            CHECK_OK(shoal_int64_atomic_compare_swap(sh, &w[0], 0, me + 1, 0, &o), sh);
            if (o == 0) break;
            CHECK_MSG(o >= 1 && o <= npes, "lock word on PE 0 holds %lld", (long long)o);
            spins++;
            sched_yield();
        }
        CHECK_OK(shoal_int64_g(sh, &c, &w[1], 0), sh);
        CHECK_MSG(c >= r && c < (int64_t)rounds * npes, "counter %lld in round %d", (long long)c, r);
        if (r % 8 == 0) sched_yield(); /* let the others spin on the held lock */
        CHECK_OK(shoal_int64_p(sh, &w[1], c + 1, 0), sh);
        CHECK_OK(shoal_quiet(sh), sh);
        o = -1;
        CHECK_OK(shoal_int64_atomic_compare_swap(sh, &w[0], me + 1, 0, 0, &o), sh);
        CHECK_MSG(o == me + 1, "PE %d held the compare_swap lock, yet its word held %lld at the release", me,
                  (long long)o);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_get(sh, got, w, sizeof(got), 0), sh);
    CHECK_MSG(got[0] == 0 && got[1] == (int64_t)rounds * npes,
              "compare_swap lock: counter %lld after %d rounds of %d PEs (lock word %lld)", (long long)got[1], rounds,
              npes, (long long)got[0]);
    if (me == 0)
        check_note("compare_swap lock: %d x %d increments exact (%ld failed attempts here)", npes, rounds, spins);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, w), sh);
}

/* ---- mistakes ---- */

static void test_bad_input(shoal_t sh, int check_level)
{
    int64_t *w = shoal_malloc(sh, 4 * sizeof(int64_t)), img[4], o = 0, local = 77;
    int64_t *mis = (int64_t *)((char *)&w[1] + 1);
    int32_t *mis32 = (int32_t *)((char *)&w[2] + 2), o32 = 0;
    double *misd = (double *)((char *)&w[2] + 4), od = 0;
    uint64_t *misu = (uint64_t *)((char *)&w[1] + 4), ou = 0;
    int64_t *freed;

    CHECK_NONNULL(w, sh);
    for (int i = 0; i < 4; i++) img[i] = 4000 + 10 * me + i;
    test_heap_write(sh, w, img, sizeof(img));
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* Misaligned words, towards the right neighbour and this PE. */
    CHECK_ERR(shoal_int64_atomic_fetch_add(sh, mis, 1, right, &o), SHOAL_ERR_INVALID_ARG, sh, "align");
    check_note("misaligned int64 fetch_add: %s", shoal_last_error(sh));
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_int64_atomic_fetch_add");
    CHECK_ERR(shoal_int64_atomic_add(sh, mis, 1, me), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_int64_atomic_add");
    CHECK_ERR(shoal_int64_atomic_set(sh, mis, 5, right), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_int64_atomic_compare_swap(sh, mis, 0, 5, right, &o), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_int64_atomic_swap_nbi(sh, mis, 5, right, &o), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_int64_atomic_fetch(sh, mis, me, &o), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_int64_atomic_xor(sh, mis, 5, right), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_uint64_atomic_fetch_or(sh, misu, 5, right, &ou), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_uint64_atomic_fetch_or");
    CHECK_ERR(shoal_int32_atomic_fetch_inc(sh, mis32, right, &o32), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_int32_atomic_fetch_inc");
    CHECK_ERR(shoal_int32_atomic_inc(sh, mis32, me), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_double_atomic_set(sh, misd, 1.5, right), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_double_atomic_set");
    CHECK_ERR(shoal_double_atomic_swap(sh, misd, 1.5, me, &od), SHOAL_ERR_INVALID_ARG, sh, "align");

    /* Words outside the heap: a stack variable (towards this PE too, where
     * a careless path could store into it), a freed block. */
    CHECK_STATUS(shoal_int64_atomic_fetch_add(sh, &local, 1, me, &o), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    check_note("stack word fetch_add: %s", shoal_last_error(sh));
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_int64_atomic_fetch_add");
    CHECK_STATUS(shoal_int64_atomic_set(sh, &local, 5, me), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_int64_atomic_compare_swap(sh, &local, 77, 5, me, &o), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_int64_atomic_inc(sh, &local, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_int64_atomic_fetch_nbi(sh, &local, right, &o), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_int64_atomic_and(sh, &local, 0, me), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_EQ_INT(local, 77);
    freed = shoal_malloc(sh, 64);
    CHECK_NONNULL(freed, sh);
    CHECK_OK(shoal_free(sh, freed), sh);
    if (check_level >= SHOAL_CHECK_BASIC) {
        CHECK_STATUS(shoal_int64_atomic_add(sh, freed, 1, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
        check_note("freed word add: %s", shoal_last_error(sh));
        CHECK_STATUS(shoal_int64_atomic_fetch_inc(sh, freed, me, &o), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    }

    /* PEs out of range. */
    CHECK_STATUS(shoal_int64_atomic_fetch_add(sh, &w[0], 1, npes, &o), SHOAL_ERR_PE, sh);
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_int64_atomic_fetch_add");
    CHECK_STATUS(shoal_int64_atomic_set(sh, &w[0], 1, -1), SHOAL_ERR_PE, sh);
    CHECK_STATUS(shoal_double_atomic_fetch(sh, (double *)&w[0], npes + 3, &od), SHOAL_ERR_PE, sh);
    CHECK_STATUS(shoal_uint32_atomic_xor(sh, (uint32_t *)&w[0], 1, npes), SHOAL_ERR_PE, sh);

    /* NULL result pointers on the fetching calls. */
    CHECK_ERR(shoal_int64_atomic_fetch(sh, &w[0], right, NULL), SHOAL_ERR_INVALID_ARG, sh, "shoal_int64_atomic_fetch");
    check_note("NULL result: %s", shoal_last_error(sh));
    CHECK_STATUS(shoal_int64_atomic_fetch_nbi(sh, &w[0], right, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_swap(sh, &w[0], 1, right, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_swap_nbi(sh, &w[0], 1, me, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_compare_swap(sh, &w[0], 4000 + 10 * right, 1, right, NULL), SHOAL_ERR_INVALID_ARG,
                 sh);
    CHECK_STATUS(shoal_int64_atomic_compare_swap_nbi(sh, &w[0], 4000 + 10 * me, 1, me, NULL), SHOAL_ERR_INVALID_ARG,
                 sh);
    CHECK_STATUS(shoal_int64_atomic_fetch_inc(sh, &w[1], right, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_fetch_inc_nbi(sh, &w[1], me, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_fetch_add(sh, &w[2], 9, right, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_fetch_add_nbi(sh, &w[2], 9, me, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_fetch_and(sh, &w[3], 0, right, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_fetch_or_nbi(sh, &w[3], -1, me, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int64_atomic_fetch_xor(sh, &w[3], 1, right, NULL), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_double_atomic_swap(sh, (double *)&w[0], 2.0, right, NULL), SHOAL_ERR_INVALID_ARG, sh);

    /* Nothing was written, here or on the neighbour; the words still work. */
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, img, w, sizeof(img));
    for (int i = 0; i < 4; i++)
        CHECK_MSG(img[i] == 4000 + 10 * me + i, "refused atomics wrote word %d of PE %d: %lld, expected %d", i, me,
                  (long long)img[i], 4000 + 10 * me + i);
    CHECK_OK(shoal_barrier_all(sh), sh); /* every PE read its words before any changes its neighbour's */
    CHECK_OK(shoal_int64_atomic_fetch_add(sh, &w[0], 1, right, &o), sh);
    CHECK_EQ_INT(o, 4000 + 10 * right);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, w), sh);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int nfam = 0;

    MPI_Init(&argc, &argv);
    test_config(&cfg, 1u << 20);
    if (cfg.timeout == 0 || cfg.timeout > 30) cfg.timeout = 30; /* a lost atomic: an error, not a hang */
    if (!test_init_or_skip(&cfg, &sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    host_heap = test_heap_is_host(sh);
    /* A PE reached over mpi_rma costs an MPI round trip per atomic (more
     * with ranks sharing cores): the loops run fewer times. */
    slow = !host_heap || test_any_pe_over(sh, "mpi_rma");
    niter = !host_heap ? 12 : slow ? 40 : 150;

#define RUN_EXT(T, N)                                                                                                  \
    test_ext_##N(sh);                                                                                                  \
    nfam++;
#define RUN_STD(T, N)                                                                                                  \
    test_std_##N(sh);                                                                                                  \
    nfam++;
#define RUN_BIT(T, N)                                                                                                  \
    test_bit_##N(sh);                                                                                                  \
    nfam++;
    SHOAL_AMO_TYPES(RUN_EXT)
    SHOAL_AMO_EXT_TYPES(RUN_EXT)
    SHOAL_AMO_TYPES(RUN_STD)
    SHOAL_AMO_BITWISE_TYPES(RUN_BIT)
#undef RUN_EXT
#undef RUN_STD
#undef RUN_BIT
    if (me == 0) check_note("%d (family, type) pairs passed", nfam);

    test_conc_add_int64(sh);
    test_conc_add_uint32(sh);
    test_conc_add_int(sh);
    test_tickets_int64(sh);
    test_tickets_uint(sh);
    if (me == 0) check_note("concurrent adds and tickets: %d rounds on %d PEs exact", niter, npes);
    test_cswap_lock(sh);
    test_bad_input(sh, cfg.check);

    if (me == 0) check_note("atomics passed on %d PEs (%s heap)", npes, host_heap ? "host" : "GPU");
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
