/*
 * Collectives on teams (api/shoal.h, "Collectives on a team"), each result
 * checked against a reference computed here from the inputs every member
 * is known to give (its values depend on its team number, the element and
 * a salt that changes with every call), on the world team, the node team,
 * the even PEs (a stride-2 split) and both teams of a 2-D split (rows of 3
 * from 4 PEs, else of 2: a short last row, teams of one).
 *
 * 1. Data movement for every type of SHOAL_RMA_TYPES and SHOAL_HALF_TYPES and the *mem forms
 *    (bytes), 0, 1 and 37 elements: broadcast (roots 0, the last member,
 *    the middle one; root's own dest included), fcollect, collect (counts
 *    that differ per member, 0 among them, and all 0), alltoall, alltoalls
 *    with strides 1/1 and 3/2 (the elements between the strided ones are
 *    never touched, nor read). Every element of dest, and the bytes after
 *    the result, are checked.
 * 2. Reductions for every type and operator of SHOAL_REDUCE_BITWISE_TYPES
 *    (and, or, xor), SHOAL_REDUCE_ARITH_TYPES and SHOAL_HALF_TYPES (min,
 *    max, sum, prod) and SHOAL_REDUCE_COMPLEX_TYPES (sum, prod), 0, 1 and
 *    37 elements and 37 in
 *    place (dest == src); inputs not all equal, chosen so that sums and
 *    products are exact (64-bit integers beyond 32 bits), so a wrong
 *    operator, a missing member or a member counted twice shows; src is
 *    left as it was. Reduce-scatters of the same types and operators, 0, 1
 *    and 37 elements a block: each member's dest against the reduction of
 *    its block of every member's src, src unchanged. The 16-bit floating
 *    types' rounding, bits against bits worked out by hand: sums and
 *    products of members 0 and 1 (the others giving 0, 1, or for min and
 *    max infinities that never win) that tie to even both ways, round up
 *    past half a step, overflow to infinity (a tie at 65520) or stay
 *    finite, reach or leave the subnormals, underflow to zero on a tie;
 *    min and max with -infinity. On world alone, PE 0: every finite half
 *    and bfloat16 goes to float and back unchanged, NaNs stay NaNs.
 * 3. World only: 64 MiB: an int64 sum reduction, an int64 broadcast from the
 *    last PE, a double fcollect filling 64 MiB, an int64 sum reduce-scatter
 *    of 64 MiB of src (steps of the host's buffer).
 * 4. Mismatches on the world team and the even team: different nelems,
 *    roots, operators, types, strides, calls (a reduce against a
 *    reduce-scatter, a reduce-scatter's nreduce): SHOAL_ERR_NOT_SYMMETRIC on
 *    every member, naming the first and the odd member (world and team
 *    numbers) and their calls; the team works after each.
 * 5. Argument errors on one member (a root out of range, NULL dest, dest
 *    outside the heap or past its allocation, overlapping dest and src, a
 *    reduce-scatter in place or with src (n_pes blocks) past its
 *    allocation, a stride of 0, NULL src): that member gets its error, the others
 *    SHOAL_ERR_NOT_SYMMETRIC naming it, nobody waits; on every member at
 *    once (a bad root, strides of 0, a reduce-scatter whose n_pes blocks
 *    overflow size_t): every member its error. The team works after each.
 *
 * SHOAL_HEAP_KIND=gpu runs it on GPU heaps (skipped without a GPU).
 */
#define _POSIX_C_SOURCE 200809L
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define BIG ((size_t)64 << 20)        /* the large collectives' bytes */
#define BUF (BIG + ((size_t)1 << 16)) /* each symmetric buffer */
enum { GUARD = 5 };                   /* elements after a result that must stay untouched */
#define SENT 0xA5                     /* the byte dest is filled with before a call */

static int me, npes, check_level;
/* Changes with every call, in step on a team's members: no call can pass
 * on an earlier one's data. */
static int salt = 1;

/* One team under test. */
typedef struct ctx {
    shoal_t sh;
    shoal_team_t team;
    const char *tname;           /* for messages */
    int tm, tn;                  /* this PE's team number, the team's size */
    char *src, *dst;             /* symmetric, BUF bytes each */
    unsigned char *hs, *hd, *hr; /* host scratch, BUF bytes each */
} ctx_t;

static void sync_team(ctx_t *c) { CHECK_OK(shoal_team_sync(c->team), c->sh); }

/* bytes [off, off + len) of the dest read back (c->hd) are still SENT. */
static void check_untouched(ctx_t *c, const char *what, const char *tname, size_t off, size_t len)
{
    for (size_t b = off; b < off + len; b++)
        CHECK_MSG(c->hd[b] == SENT, "%s on team %s (team PE %d of %d): byte %zu of dest was written (0x%02x)", what,
                  tname, c->tm, c->tn, b, c->hd[b]);
}

/* ------------------------------------------------------------ data movement */

/* The value member i gives for block j, element k (1 to 120: exact in
 * every type; 127 marks what must not be copied). */
static long long mval(int i, int j, size_t k, int s)
{
    return 1 + (long long)(test_mix64(((uint64_t)(i + 1) << 48) ^ ((uint64_t)(j + 1) << 36) ^ ((uint64_t)s << 24) ^
                                      (uint64_t)k) %
                           120);
}
#define POISON 127

typedef struct mtype {
    const char *name;
    size_t size;
    void (*set)(void *p, long long v);
    int (*eq)(const void *p, long long v);
    long double (*get)(const void *p);
    int (*bcast)(shoal_team_t, void *, const void *, size_t, int);
    int (*collect)(shoal_team_t, void *, const void *, size_t);
    int (*fcollect)(shoal_team_t, void *, const void *, size_t);
    int (*alltoall)(shoal_team_t, void *, const void *, size_t);
    int (*alltoalls)(shoal_team_t, void *, const void *, ptrdiff_t, ptrdiff_t, size_t);
} mtype_t;

#define MOVE_VALS(T, N)                                                                                                \
    static void mset_##N(void *p, long long v) { *(T *)p = (T)v; }                                                     \
    static int meq_##N(const void *p, long long v) { return *(const T *)p == (T)v; }                                   \
    static long double mget_##N(const void *p) { return (long double)*(const T *)p; }
/* The 16-bit floating types: their bits (every value used is exact). */
#define MOVE_VALS_HALF(T, N)                                                                                           \
    static void mset_##N(void *p, long long v) { *(T *)p = shoal_##N##_from_float((float)v); }                         \
    static int meq_##N(const void *p, long long v)                                                                     \
    {                                                                                                                  \
        return ((const T *)p)->bits == shoal_##N##_from_float((float)v).bits;                                          \
    }                                                                                                                  \
    static long double mget_##N(const void *p) { return shoal_##N##_to_float(*(const T *)p); }
#define MOVE_FNS(T, N)                                                                                                 \
    static int mbcast_##N(shoal_team_t t, void *d, const void *s, size_t n, int root)                                  \
    {                                                                                                                  \
        return shoal_##N##_broadcast(t, (T *)d, (const T *)s, n, root);                                                \
    }                                                                                                                  \
    static int mcollect_##N(shoal_team_t t, void *d, const void *s, size_t n)                                          \
    {                                                                                                                  \
        return shoal_##N##_collect(t, (T *)d, (const T *)s, n);                                                        \
    }                                                                                                                  \
    static int mfcollect_##N(shoal_team_t t, void *d, const void *s, size_t n)                                         \
    {                                                                                                                  \
        return shoal_##N##_fcollect(t, (T *)d, (const T *)s, n);                                                       \
    }                                                                                                                  \
    static int malltoall_##N(shoal_team_t t, void *d, const void *s, size_t n)                                         \
    {                                                                                                                  \
        return shoal_##N##_alltoall(t, (T *)d, (const T *)s, n);                                                       \
    }                                                                                                                  \
    static int malltoalls_##N(shoal_team_t t, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n)          \
    {                                                                                                                  \
        return shoal_##N##_alltoalls(t, (T *)d, (const T *)s, dst, sst, n);                                            \
    }
SHOAL_RMA_TYPES(MOVE_VALS)
SHOAL_RMA_TYPES(MOVE_FNS)
SHOAL_HALF_TYPES(MOVE_VALS_HALF)
SHOAL_HALF_TYPES(MOVE_FNS)
MOVE_VALS(unsigned char, bytes) /* the *mem forms' values; their calls are the API's */
#undef MOVE_FNS
#undef MOVE_VALS
#undef MOVE_VALS_HALF

#define MOVE_ENTRY(T, N)                                                                                               \
    {#N,         sizeof(T),    mset_##N,      meq_##N,       mget_##N,                                                 \
     mbcast_##N, mcollect_##N, mfcollect_##N, malltoall_##N, malltoalls_##N},
static const mtype_t mtypes[] = {
    SHOAL_RMA_TYPES(MOVE_ENTRY)
        SHOAL_HALF_TYPES(MOVE_ENTRY){"mem", 1, mset_bytes, meq_bytes, mget_bytes, shoal_broadcastmem, shoal_collectmem,
                                     shoal_fcollectmem, shoal_alltoallmem, shoal_alltoallsmem},
};
#undef MOVE_ENTRY

static const mtype_t *mtype(const char *name)
{
    for (size_t i = 0; i < sizeof(mtypes) / sizeof(mtypes[0]); i++)
        if (strcmp(mtypes[i].name, name) == 0) return &mtypes[i];
    check__fail(__FILE__, __LINE__, "no type %s", name);
}

/* Element at index idx of the dest read back must be v. */
static void check_elem(ctx_t *c, const mtype_t *ty, const char *what, size_t n, size_t idx, long long v)
{
    const void *p = c->hd + idx * ty->size;
    if (!ty->eq(p, v))
        check__fail(__FILE__, __LINE__,
                    "shoal_%s_%s(nelems %zu) on team %s (team PE %d of %d): dest element %zu is %.21Lg, expected %lld",
                    ty->name, what, n, c->tname, c->tm, c->tn, idx, ty->get(p), v);
}

static void m_bcast(ctx_t *c, const mtype_t *ty, size_t n, int root)
{
    size_t es = ty->size;
    int s = salt++;

    for (size_t k = 0; k < n; k++) ty->set(c->hs + k * es, mval(c->tm, 0, k, s));
    test_heap_write(c->sh, c->src, c->hs, n * es);
    test_heap_fill(c->sh, c->dst, SENT, (n + GUARD) * es);
    sync_team(c); /* every dest is ready before any member's puts */
    CHECK_OK(ty->bcast(c->team, c->dst, c->src, n, root), c->sh);
    test_heap_read(c->sh, c->hd, c->dst, (n + GUARD) * es);
    for (size_t k = 0; k < n; k++) check_elem(c, ty, "broadcast", n, k, mval(root, 0, k, s));
    check_untouched(c, "broadcast", c->tname, n * es, GUARD * es);
}

static void m_fcollect(ctx_t *c, const mtype_t *ty, size_t n)
{
    size_t es = ty->size, all = n * (size_t)c->tn;
    int s = salt++;

    for (size_t k = 0; k < n; k++) ty->set(c->hs + k * es, mval(c->tm, 0, k, s));
    test_heap_write(c->sh, c->src, c->hs, n * es);
    test_heap_fill(c->sh, c->dst, SENT, (all + GUARD) * es);
    sync_team(c);
    CHECK_OK(ty->fcollect(c->team, c->dst, c->src, n), c->sh);
    test_heap_read(c->sh, c->hd, c->dst, (all + GUARD) * es);
    for (int i = 0; i < c->tn; i++)
        for (size_t k = 0; k < n; k++) check_elem(c, ty, "fcollect", n, (size_t)i * n + k, mval(i, 0, k, s));
    check_untouched(c, "fcollect", c->tname, all * es, GUARD * es);
}

/* Member i's count in a collect of size n: n + i, but 0 for members 1, 4,
 * 7, ...; all 0 for n 0. */
static size_t collect_count(size_t n, int i) { return n == 0 || i % 3 == 1 ? 0 : n + (size_t)i; }

static void m_collect(ctx_t *c, const mtype_t *ty, size_t n)
{
    size_t es = ty->size, mine = collect_count(n, c->tm), total = 0, at = 0;
    int s = salt++;

    for (int i = 0; i < c->tn; i++) total += collect_count(n, i);
    for (size_t k = 0; k < mine; k++) ty->set(c->hs + k * es, mval(c->tm, 0, k, s));
    test_heap_write(c->sh, c->src, c->hs, mine * es);
    test_heap_fill(c->sh, c->dst, SENT, (total + GUARD) * es);
    sync_team(c);
    CHECK_OK(ty->collect(c->team, c->dst, c->src, mine), c->sh);
    test_heap_read(c->sh, c->hd, c->dst, (total + GUARD) * es);
    for (int i = 0; i < c->tn; i++)
        for (size_t k = 0; k < collect_count(n, i); k++) check_elem(c, ty, "collect", mine, at++, mval(i, 0, k, s));
    check_untouched(c, "collect", c->tname, total * es, GUARD * es);
}

/* Collects back to back, no barrier between them, each member's count
 * changing every round, each round into its own part of dest: on one node
 * the counts travel with the meeting in the members' slots, which a member
 * a round ahead must not overwrite while a slower member still reads
 * them. Checked after the last. */
static void collect_rounds(ctx_t *c)
{
    enum { ROUNDS = 64, MAXC = 5 };
    size_t part = (size_t)c->tn * MAXC; /* longs of dest per round */
    long *src = (long *)c->src, *dst = (long *)c->dst, *got = (long *)c->hd, v[MAXC];

    test_heap_fill(c->sh, dst, SENT, ROUNDS * part * sizeof(long));
    sync_team(c);
    for (int r = 0; r < ROUNDS; r++) {
        size_t mine = (size_t)(r * 7 + c->tm) % MAXC;
        for (size_t k = 0; k < mine; k++) v[k] = r * 1000L + c->tm * 10L + (long)k;
        test_heap_write(c->sh, src, v, mine * sizeof(long));
        CHECK_OK(shoal_long_collect(c->team, dst + (size_t)r * part, src, mine), c->sh);
    }
    test_heap_read(c->sh, got, dst, ROUNDS * part * sizeof(long));
    for (int r = 0; r < ROUNDS; r++) {
        size_t at = (size_t)r * part;
        for (int i = 0; i < c->tn; i++)
            for (size_t k = 0; k < (size_t)(r * 7 + i) % MAXC; k++, at++)
                CHECK_MSG(got[at] == r * 1000L + i * 10L + (long)k,
                          "team %s: back-to-back collect round %d: dest element %zu is %ld, expected %ld (member %d's "
                          "element %zu)",
                          c->tname, r, at - (size_t)r * part, got[at], r * 1000L + i * 10L + (long)k, i, k);
    }
}

static void m_alltoall(ctx_t *c, const mtype_t *ty, size_t n)
{
    size_t es = ty->size, all = n * (size_t)c->tn;
    int s = salt++;

    for (int j = 0; j < c->tn; j++)
        for (size_t k = 0; k < n; k++) ty->set(c->hs + ((size_t)j * n + k) * es, mval(c->tm, j, k, s));
    test_heap_write(c->sh, c->src, c->hs, all * es);
    test_heap_fill(c->sh, c->dst, SENT, (all + GUARD) * es);
    sync_team(c);
    CHECK_OK(ty->alltoall(c->team, c->dst, c->src, n), c->sh);
    test_heap_read(c->sh, c->hd, c->dst, (all + GUARD) * es);
    for (int i = 0; i < c->tn; i++)
        for (size_t k = 0; k < n; k++) check_elem(c, ty, "alltoall", n, (size_t)i * n + k, mval(i, c->tm, k, s));
    check_untouched(c, "alltoall", c->tname, all * es, GUARD * es);
}

/* Block j, element k at (j * n + k) * sst in src and (i * n + k) * dst in
 * member j's dest; src's other elements hold POISON, dest's other bytes
 * must stay SENT. */
static void m_alltoalls(ctx_t *c, const mtype_t *ty, size_t n, ptrdiff_t dst, ptrdiff_t sst)
{
    size_t es = ty->size, all = n * (size_t)c->tn;
    size_t sspan = all ? (all - 1) * (size_t)sst + 1 : 0, dspan = all ? (all - 1) * (size_t)dst + 1 : 0;
    char what[48];
    int s = salt++;

    snprintf(what, sizeof(what), "alltoalls(dst %td, sst %td)", dst, sst);
    for (size_t e = 0; e < sspan; e++) ty->set(c->hs + e * es, POISON);
    for (int j = 0; j < c->tn; j++)
        for (size_t k = 0; k < n; k++) ty->set(c->hs + ((size_t)j * n + k) * (size_t)sst * es, mval(c->tm, j, k, s));
    test_heap_write(c->sh, c->src, c->hs, sspan * es);
    test_heap_fill(c->sh, c->dst, SENT, (dspan + GUARD) * es);
    sync_team(c);
    CHECK_OK(ty->alltoalls(c->team, c->dst, c->src, dst, sst, n), c->sh);
    test_heap_read(c->sh, c->hd, c->dst, (dspan + GUARD) * es);
    for (int i = 0; i < c->tn; i++)
        for (size_t k = 0; k < n; k++) {
            size_t e = ((size_t)i * n + k) * (size_t)dst;
            check_elem(c, ty, what, n, e, mval(i, c->tm, k, s));
            if (k + 1 < n || i + 1 < c->tn) check_untouched(c, what, c->tname, (e + 1) * es, ((size_t)dst - 1) * es);
        }
    check_untouched(c, what, c->tname, dspan * es, GUARD * es);
}

static void test_moves(ctx_t *c)
{
    static const size_t sizes[] = {0, 1, 37};
    int roots[3];

    roots[0] = 0;
    roots[1] = c->tn - 1;
    roots[2] = c->tn / 2;
    for (size_t t = 0; t < sizeof(mtypes) / sizeof(mtypes[0]); t++) {
        const mtype_t *ty = &mtypes[t];
        for (int z = 0; z < 3; z++) {
            size_t n = sizes[z];
            m_bcast(c, ty, n, roots[z]);
            m_fcollect(c, ty, n);
            m_collect(c, ty, n);
            m_alltoall(c, ty, n);
            m_alltoalls(c, ty, n, 1, 1);
            m_alltoalls(c, ty, n, 3, 2);
        }
    }
    /* Every root, once. */
    for (int root = 0; root < c->tn; root++) m_bcast(c, mtype("mem"), 13, root);
    collect_rounds(c);
}

/* ------------------------------------------------------------ reductions */

enum { OP_AND, OP_OR, OP_XOR, OP_MIN, OP_MAX, OP_SUM, OP_PROD };

typedef struct rcase {
    const char *type, *op;
    size_t size;
    int opk;
    /* member i's element k */
    void (*gen)(void *p, int opk, int i, size_t k, int s);
    /* *acc = *acc <op> *in, as the reference */
    void (*comb)(int opk, void *acc, const void *in);
    int (*eq)(const void *a, const void *b);
    void (*str)(const void *p, char *buf, size_t len);
    int (*fn)(shoal_team_t, void *, const void *, size_t);
    int (*rsfn)(shoal_team_t, void *, const void *, size_t); /* the reduce-scatter */
} rcase_t;

static uint64_t rhash(int opk, int i, size_t k, int s)
{
    return test_mix64(((uint64_t)(i + 1) << 48) ^ ((uint64_t)opk << 40) ^ ((uint64_t)s << 32) ^ (uint64_t)k);
}

/* Bitwise: and sees mostly ones, or mostly zeros, so that neither result
 * is all one value. */
#define RED_BIT(T, N)                                                                                                  \
    static void rbgen_##N(void *p, int opk, int i, size_t k, int s)                                                    \
    {                                                                                                                  \
        uint64_t h = rhash(opk, i, k, s), h2 = test_mix64(h);                                                          \
        *(T *)p = (T)(opk == OP_AND ? ~(h & h2) : opk == OP_OR ? h & h2 : h);                                          \
    }                                                                                                                  \
    static void rbcomb_##N(int opk, void *acc, const void *in)                                                         \
    {                                                                                                                  \
        T *a = acc, b = *(const T *)in;                                                                                \
        *a = (T)(opk == OP_AND ? *a & b : opk == OP_OR ? *a | b : *a ^ b);                                             \
    }                                                                                                                  \
    static int rbeq_##N(const void *a, const void *b) { return *(const T *)a == *(const T *)b; }                       \
    static void rbstr_##N(const void *p, char *buf, size_t len)                                                        \
    {                                                                                                                  \
        snprintf(buf, len, "%#llx", (unsigned long long)*(const T *)p);                                                \
    }
SHOAL_REDUCE_BITWISE_TYPES(RED_BIT)

/* Arithmetic: min and max over -50..50 (0..100 unsigned); sums of terms
 * within +-30 (0..60 unsigned); products of factors -2, -1, 1, 2, 3 (1, 2,
 * 3 unsigned); members past the 4th give terms of 0 or 1 and factors of
 * +-1, so that no result leaves the smallest type. 64-bit integers scale
 * min, max and sum by 2^36 and products by up to 4000, beyond 32 bits. */
#define RED_ARITH(T, N)                                                                                                \
    static void ragen_##N(void *p, int opk, int i, size_t k, int s)                                                    \
    {                                                                                                                  \
        uint64_t h = rhash(opk, i, k, s);                                                                              \
        int sgn = (T)-1 < (T)1, wide = (T)0.5 == (T)0 && sizeof(T) >= 8;                                               \
        T scale = (T)(wide ? 68719476736.0 : 1.0);                                                                     \
        long long v;                                                                                                   \
        if (opk == OP_MIN || opk == OP_MAX) {                                                                          \
            v = (long long)(h % 101) - (sgn ? 50 : 0);                                                                 \
        } else if (opk == OP_SUM) {                                                                                    \
            v = i < 4 ? (long long)(h % 61) - (sgn ? 30 : 0) : (long long)(h % 2);                                     \
        } else {                                                                                                       \
            static const long long fs[] = {-2, -1, 1, 2, 3}, fu[] = {1, 2, 3};                                         \
            v = i >= 4 ? (sgn && h % 2 ? -1 : 1) : sgn ? fs[h % 5] : fu[h % 3];                                        \
            scale = (T)(wide && i < 4 ? 1.0 + (double)((h >> 8) % 4000) : 1.0);                                        \
        }                                                                                                              \
        *(T *)p = (T)v * scale;                                                                                        \
    }                                                                                                                  \
    static void racomb_##N(int opk, void *acc, const void *in)                                                         \
    {                                                                                                                  \
        T *a = acc, b = *(const T *)in;                                                                                \
        switch (opk) {                                                                                                 \
        case OP_MIN: *a = b < *a ? b : *a; break;                                                                      \
        case OP_MAX: *a = b > *a ? b : *a; break;                                                                      \
        case OP_SUM: *a = (T)(*a + b); break;                                                                          \
        default: *a = (T)(*a * b); break;                                                                              \
        }                                                                                                              \
    }                                                                                                                  \
    static int raeq_##N(const void *a, const void *b) { return *(const T *)a == *(const T *)b; }                       \
    static void rastr_##N(const void *p, char *buf, size_t len)                                                        \
    {                                                                                                                  \
        snprintf(buf, len, "%.21Lg", (long double)*(const T *)p);                                                      \
    }
SHOAL_REDUCE_ARITH_TYPES(RED_ARITH)

/* Complex: sums of parts within +-20; products of parts -2..2 (not both
 * 0), members past the 4th giving 1 or i. */
#define RED_CPLX(T, N)                                                                                                 \
    static void rcgen_##N(void *p, int opk, int i, size_t k, int s)                                                    \
    {                                                                                                                  \
        uint64_t h = rhash(opk, i, k, s);                                                                              \
        double re, im;                                                                                                 \
        if (opk == OP_SUM) {                                                                                           \
            re = (double)(long long)(h % 41) - 20;                                                                     \
            im = (double)(long long)((h >> 16) % 41) - 20;                                                             \
        } else if (i >= 4) {                                                                                           \
            re = h % 2 ? 1 : 0;                                                                                        \
            im = h % 2 ? 0 : 1;                                                                                        \
        } else {                                                                                                       \
            re = (double)(long long)(h % 5) - 2;                                                                       \
            im = (double)(long long)((h >> 16) % 5) - 2;                                                               \
            if (re == 0 && im == 0) re = 1;                                                                            \
        }                                                                                                              \
        *(T *)p = (T)re + (T)im * (T)I;                                                                                \
    }                                                                                                                  \
    static void rccomb_##N(int opk, void *acc, const void *in)                                                         \
    {                                                                                                                  \
        T *a = acc, b = *(const T *)in;                                                                                \
        *a = opk == OP_SUM ? *a + b : *a * b;                                                                          \
    }                                                                                                                  \
    static int rceq_##N(const void *a, const void *b) { return *(const T *)a == *(const T *)b; }                       \
    static void rcstr_##N(const void *p, char *buf, size_t len)                                                        \
    {                                                                                                                  \
        snprintf(buf, len, "%g%+gi", (double)creal(*(const T *)p), (double)cimag(*(const T *)p));                      \
    }
SHOAL_REDUCE_COMPLEX_TYPES(RED_CPLX)

/* The 16-bit floating types: the integer cases' signed values, small
 * enough that every sum and product is exact in bfloat16 too (the
 * reference rounds as the library does, never here: r_half checks the
 * rounding itself). */
#define RED_HALF(T, N)                                                                                                 \
    static void rhgen_##N(void *p, int opk, int i, size_t k, int s)                                                    \
    {                                                                                                                  \
        static const long long fs[] = {-2, -1, 1, 2, 3};                                                               \
        uint64_t h = rhash(opk, i, k, s);                                                                              \
        long long v;                                                                                                   \
        if (opk == OP_MIN || opk == OP_MAX)                                                                            \
            v = (long long)(h % 101) - 50;                                                                             \
        else if (opk == OP_SUM)                                                                                        \
            v = i < 4 ? (long long)(h % 61) - 30 : (long long)(h % 2);                                                 \
        else                                                                                                           \
            v = i >= 4 ? (h % 2 ? -1 : 1) : fs[h % 5];                                                                 \
        *(T *)p = shoal_##N##_from_float((float)v);                                                                    \
    }                                                                                                                  \
    static void rhcomb_##N(int opk, void *acc, const void *in)                                                         \
    {                                                                                                                  \
        float a = shoal_##N##_to_float(*(const T *)acc), b = shoal_##N##_to_float(*(const T *)in);                     \
        float r = opk == OP_MIN ? (b < a ? b : a) : opk == OP_MAX ? (b > a ? b : a) : opk == OP_SUM ? a + b : a * b;   \
        *(T *)acc = shoal_##N##_from_float(r);                                                                         \
    }                                                                                                                  \
    static int rheq_##N(const void *a, const void *b) { return ((const T *)a)->bits == ((const T *)b)->bits; }         \
    static void rhstr_##N(const void *p, char *buf, size_t len)                                                        \
    {                                                                                                                  \
        snprintf(buf, len, "%.9g (bits %#06x)", (double)shoal_##N##_to_float(*(const T *)p), ((const T *)p)->bits);    \
    }
SHOAL_HALF_TYPES(RED_HALF)

#define RED_FN(T, N, OP)                                                                                               \
    static int rfn_##N##_##OP(shoal_team_t t, void *d, const void *s, size_t n)                                        \
    {                                                                                                                  \
        return shoal_##N##_##OP##_reduce(t, (T *)d, (const T *)s, n);                                                  \
    }                                                                                                                  \
    static int rsfn_##N##_##OP(shoal_team_t t, void *d, const void *s, size_t n)                                       \
    {                                                                                                                  \
        return shoal_##N##_##OP##_reducescatter(t, (T *)d, (const T *)s, n);                                           \
    }
#define RED_FN_BIT(T, N) RED_FN(T, N, and) RED_FN(T, N, or) RED_FN(T, N, xor)
#define RED_FN_ARITH(T, N) RED_FN(T, N, min) RED_FN(T, N, max) RED_FN(T, N, sum) RED_FN(T, N, prod)
#define RED_FN_CPLX(T, N) RED_FN(T, N, sum) RED_FN(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(RED_FN_BIT)
SHOAL_REDUCE_ARITH_TYPES(RED_FN_ARITH)
SHOAL_HALF_TYPES(RED_FN_ARITH)
SHOAL_REDUCE_COMPLEX_TYPES(RED_FN_CPLX)

#define RC(T, N, OP, K, F)                                                                                             \
    {#N, #OP, sizeof(T), K, F##gen_##N, F##comb_##N, F##eq_##N, F##str_##N, rfn_##N##_##OP, rsfn_##N##_##OP},
#define RC_BIT(T, N) RC(T, N, and, OP_AND, rb) RC(T, N, or, OP_OR, rb) RC(T, N, xor, OP_XOR, rb)
#define RC_ARITH(T, N)                                                                                                 \
    RC(T, N, min, OP_MIN, ra) RC(T, N, max, OP_MAX, ra) RC(T, N, sum, OP_SUM, ra) RC(T, N, prod, OP_PROD, ra)
#define RC_HALF(T, N)                                                                                                  \
    RC(T, N, min, OP_MIN, rh) RC(T, N, max, OP_MAX, rh) RC(T, N, sum, OP_SUM, rh) RC(T, N, prod, OP_PROD, rh)
#define RC_CPLX(T, N) RC(T, N, sum, OP_SUM, rc) RC(T, N, prod, OP_PROD, rc)
static const rcase_t rcases[] = {SHOAL_REDUCE_BITWISE_TYPES(RC_BIT) SHOAL_REDUCE_ARITH_TYPES(RC_ARITH)
                                     SHOAL_HALF_TYPES(RC_HALF) SHOAL_REDUCE_COMPLEX_TYPES(RC_CPLX)};
#define NRCASES (sizeof(rcases) / sizeof(rcases[0]))

static const rcase_t *rcase(const char *type, const char *op)
{
    for (size_t i = 0; i < NRCASES; i++)
        if (strcmp(rcases[i].type, type) == 0 && strcmp(rcases[i].op, op) == 0) return &rcases[i];
    check__fail(__FILE__, __LINE__, "no reduction %s %s", type, op);
}

/* One reduction of n elements (in place: dest == src), checked against
 * the reference: every element, the bytes after them, src unchanged. */
static void r_run(ctx_t *c, const rcase_t *r, size_t n, int in_place)
{
    size_t es = r->size;
    unsigned char tmp[32];
    char got[96], want[96];
    char *dest = c->dst, *src = in_place ? c->dst : c->src;
    int s = salt++, distinct = 0;

    for (size_t k = 0; k < n; k++) {
        r->gen(c->hs + k * es, r->opk, c->tm, k, s);
        r->gen(c->hr + k * es, r->opk, 0, k, s);
        for (int i = 1; i < c->tn; i++) {
            r->gen(tmp, r->opk, i, k, s);
            r->comb(r->opk, c->hr + k * es, tmp);
        }
        if (k > 0 && !r->eq(c->hr + k * es, c->hr)) distinct = 1;
    }
    CHECK_MSG(n < 8 || distinct, "the reference of shoal_%s_%s_reduce is one value throughout", r->type, r->op);
    test_heap_fill(c->sh, c->dst, SENT, (n + GUARD) * es);
    test_heap_write(c->sh, src, c->hs, n * es);
    sync_team(c); /* every src is written (the reduction does not need it, the check after does) */
    CHECK_OK(r->fn(c->team, dest, src, n), c->sh);
    test_heap_read(c->sh, c->hd, c->dst, (n + GUARD) * es);
    for (size_t k = 0; k < n; k++)
        if (!r->eq(c->hd + k * es, c->hr + k * es)) {
            r->str(c->hd + k * es, got, sizeof(got));
            r->str(c->hr + k * es, want, sizeof(want));
            check__fail(__FILE__, __LINE__,
                        "shoal_%s_%s_reduce(nreduce %zu%s) on team %s (team PE %d of %d): element %zu is %s, expected "
                        "%s",
                        r->type, r->op, n, in_place ? ", in place" : "", c->tname, c->tm, c->tn, k, got, want);
        }
    check_untouched(c, "reduce", c->tname, n * es, GUARD * es);
    if (!in_place && n > 0) {
        test_heap_read(c->sh, c->hd, c->src, n * es);
        CHECK_MSG(memcmp(c->hd, c->hs, n * es) == 0, "shoal_%s_%s_reduce changed src on team %s", r->type, r->op,
                  c->tname);
    }
}

/* One reduce-scatter of n elements a block: member i's src holds tn
 * blocks, element k of block j its value for index j * n + k; this
 * member's dest must hold its block's reduction over every member. Every
 * element, the bytes after them, src unchanged. */
static void rs_run(ctx_t *c, const rcase_t *r, size_t n)
{
    size_t es = r->size, all = n * (size_t)c->tn, mine = n * (size_t)c->tm;
    unsigned char tmp[32];
    char got[96], want[96];
    int s = salt++, distinct = 0;

    for (size_t e = 0; e < all; e++) r->gen(c->hs + e * es, r->opk, c->tm, e, s);
    for (size_t k = 0; k < n; k++) {
        r->gen(c->hr + k * es, r->opk, 0, mine + k, s);
        for (int i = 1; i < c->tn; i++) {
            r->gen(tmp, r->opk, i, mine + k, s);
            r->comb(r->opk, c->hr + k * es, tmp);
        }
        if (k > 0 && !r->eq(c->hr + k * es, c->hr)) distinct = 1;
    }
    CHECK_MSG(n < 8 || distinct, "the reference of shoal_%s_%s_reducescatter is one value throughout", r->type, r->op);
    test_heap_fill(c->sh, c->dst, SENT, (n + GUARD) * es);
    test_heap_write(c->sh, c->src, c->hs, all * es);
    sync_team(c);
    CHECK_OK(r->rsfn(c->team, c->dst, c->src, n), c->sh);
    test_heap_read(c->sh, c->hd, c->dst, (n + GUARD) * es);
    for (size_t k = 0; k < n; k++)
        if (!r->eq(c->hd + k * es, c->hr + k * es)) {
            r->str(c->hd + k * es, got, sizeof(got));
            r->str(c->hr + k * es, want, sizeof(want));
            check__fail(__FILE__, __LINE__,
                        "shoal_%s_%s_reducescatter(nreduce %zu) on team %s (team PE %d of %d): element %zu is %s, "
                        "expected %s",
                        r->type, r->op, n, c->tname, c->tm, c->tn, k, got, want);
        }
    check_untouched(c, "reducescatter", c->tname, n * es, GUARD * es);
    if (all > 0) {
        test_heap_read(c->sh, c->hd, c->src, all * es);
        CHECK_MSG(memcmp(c->hd, c->hs, all * es) == 0, "shoal_%s_%s_reducescatter changed src on team %s", r->type,
                  r->op, c->tname);
    }
}

/* The 16-bit floating types' rounding: member 0 gives first, member 1
 * second, the others other (neutral: 0 for sum, 1 for prod, an infinity
 * that never wins min or max), so that the result, want, is one rounding
 * of first <op> second whatever the order of the members (first alone on a
 * team of one). Bits worked out by hand. */
typedef struct hround {
    const char *type, *op;
    uint16_t first, second, other, want;
    const char *why;
} hround_t;
static const hround_t hrounds[] = {
    {"half", "sum", 0x3c00, 0x1000, 0x0000, 0x3c00, "1 + 2^-11: a tie, down to 1 (even)"},
    {"half", "sum", 0x3c01, 0x1000, 0x0000, 0x3c02, "(1 + 2^-10) + 2^-11: a tie, up to 1 + 2^-9 (even)"},
    {"half", "sum", 0x3c00, 0x1200, 0x0000, 0x3c01, "1 + 1.5 * 2^-11: past half a step, up"},
    {"half", "sum", 0x7bff, 0x4c00, 0x0000, 0x7c00, "65504 + 16: a tie at 65520, to infinity"},
    {"half", "sum", 0x7bff, 0x4800, 0x0000, 0x7bff, "65504 + 8: stays 65504"},
    {"half", "sum", 0x0001, 0x0001, 0x0000, 0x0002, "2^-24 + 2^-24: subnormals"},
    {"half", "sum", 0x03ff, 0x0001, 0x0000, 0x0400, "the largest subnormal + 2^-24: the smallest normal"},
    {"half", "prod", 0x3c01, 0x3c01, 0x3c00, 0x3c02, "(1 + 2^-10)^2 = 1 + 2^-9 + 2^-20: down"},
    {"half", "prod", 0x4200, 0x3555, 0x3c00, 0x3c00, "3 * 1365/4096 = 1 - 2^-12: a tie, up to 1 (even)"},
    {"half", "prod", 0x0400, 0x3800, 0x3c00, 0x0200, "2^-14 * 0.5: a subnormal"},
    {"half", "prod", 0x0001, 0x3800, 0x3c00, 0x0000, "2^-24 * 0.5: a tie, to 0 (even)"},
    {"half", "prod", 0x0001, 0x3a00, 0x3c00, 0x0001, "2^-24 * 0.75: up to 2^-24"},
    {"half", "min", 0xfc00, 0x4500, 0x7c00, 0xfc00, "min(-inf, 5)"},
    {"half", "max", 0xfc00, 0x4500, 0xfc00, 0x4500, "max(-inf, 5)"},
    {"bfloat16", "sum", 0x3f80, 0x3b80, 0x0000, 0x3f80, "1 + 2^-8: a tie, down to 1 (even)"},
    {"bfloat16", "sum", 0x3f81, 0x3b80, 0x0000, 0x3f82, "(1 + 2^-7) + 2^-8: a tie, up (even)"},
    {"bfloat16", "sum", 0x3f80, 0x3bc0, 0x0000, 0x3f81, "1 + 1.5 * 2^-8: past half a step, up"},
    {"bfloat16", "sum", 0x7f7f, 0x7b80, 0x0000, 0x7f80, "the largest + 2^120 = 2^128: infinity"},
    {"bfloat16", "prod", 0x3f81, 0x3f81, 0x3f80, 0x3f82, "(1 + 2^-7)^2 = 1 + 2^-6 + 2^-14: down"},
    {"bfloat16", "prod", 0x0001, 0x3f00, 0x3f80, 0x0000, "2^-133 * 0.5: a tie, to 0 (even)"},
    {"bfloat16", "prod", 0x0003, 0x3f00, 0x3f80, 0x0002, "3 * 2^-133 * 0.5: a tie, up to 2 * 2^-133 (even)"},
    {"bfloat16", "min", 0xff80, 0x40a0, 0x7f80, 0xff80, "min(-inf, 5)"},
    {"bfloat16", "max", 0xff80, 0x40a0, 0xff80, 0x40a0, "max(-inf, 5)"},
};

static void r_half(ctx_t *c)
{
    for (size_t h = 0; h < sizeof(hrounds) / sizeof(hrounds[0]); h++) {
        const hround_t *x = &hrounds[h];
        const rcase_t *r = rcase(x->type, x->op);
        uint16_t mine = c->tm == 0   ? x->first
                        : c->tm == 1 ? x->second
                                     : x->other,
                 want = c->tn == 1 ? x->first : x->want;
        uint16_t *hs = (uint16_t *)c->hs, *hd = (uint16_t *)c->hd;
        size_t n = c->tn > 3 ? (size_t)c->tn : 3;

        /* A reduction of 3 elements, and a reduce-scatter of 1 a block (mine for every block). */
        for (size_t k = 0; k < n; k++) hs[k] = mine;
        test_heap_write(c->sh, c->src, hs, n * sizeof(uint16_t));
        test_heap_fill(c->sh, c->dst, SENT, 4 * sizeof(uint16_t));
        sync_team(c);
        CHECK_OK(r->fn(c->team, c->dst, c->src, 3), c->sh);
        test_heap_read(c->sh, hd, c->dst, 3 * sizeof(uint16_t));
        for (int k = 0; k < 3; k++)
            CHECK_MSG(hd[k] == want, "shoal_%s_%s_reduce on team %s (%d PEs), %s: element %d is %#06x, expected %#06x",
                      x->type, x->op, c->tname, c->tn, x->why, k, hd[k], want);
        test_heap_fill(c->sh, c->dst, SENT, 4 * sizeof(uint16_t));
        sync_team(c);
        CHECK_OK(r->rsfn(c->team, c->dst, c->src, 1), c->sh);
        test_heap_read(c->sh, hd, c->dst, sizeof(uint16_t));
        CHECK_MSG(hd[0] == want, "shoal_%s_%s_reducescatter on team %s (%d PEs), %s: %#06x, expected %#06x", x->type,
                  x->op, c->tname, c->tn, x->why, hd[0], want);
    }
}

/* Every finite half and bfloat16 to float and back is itself; NaNs
 * (quiet or signalling) stay NaNs both ways. */
static void check_half_conversions(void)
{
    for (uint32_t u = 0; u < 0x10000; u++) {
        shoal_half_t h = {(uint16_t)u};
        shoal_bfloat16_t b = {(uint16_t)u};
        if ((u & 0x7c00) != 0x7c00 || (u & 0x03ff) == 0)
            CHECK_MSG(shoal_half_from_float(shoal_half_to_float(h)).bits == u, "half %#06x to float and back: %#06x", u,
                      shoal_half_from_float(shoal_half_to_float(h)).bits);
        else
            CHECK_MSG(shoal_half_to_float(h) != shoal_half_to_float(h), "half NaN %#06x to float: not a NaN", u);
        if ((u & 0x7f80) != 0x7f80 || (u & 0x007f) == 0)
            CHECK_MSG(shoal_bfloat16_from_float(shoal_bfloat16_to_float(b)).bits == u,
                      "bfloat16 %#06x to float and back: %#06x", u,
                      shoal_bfloat16_from_float(shoal_bfloat16_to_float(b)).bits);
        else
            CHECK_MSG(shoal_bfloat16_to_float(b) != shoal_bfloat16_to_float(b),
                      "bfloat16 NaN %#06x to float: not a NaN", u);
    }
    /* A signalling NaN whose payload lies in the bits a 16-bit type drops: still a NaN. */
    uint32_t snan = 0x7f800001u;
    float f;
    memcpy(&f, &snan, sizeof(f));
    CHECK_MSG((shoal_half_from_float(f).bits & 0x7fff) > 0x7c00, "half of a NaN: %#06x", shoal_half_from_float(f).bits);
    CHECK_MSG(shoal_bfloat16_from_float(f).bits == 0x7fc0, "bfloat16 of a NaN: %#06x",
              shoal_bfloat16_from_float(f).bits);
    CHECK_EQ_INT(shoal_half_from_float(-0.0f).bits, 0x8000);
    CHECK_EQ_INT(shoal_half_from_float(1e-8f).bits, 0x0000); /* below 2^-25 */
    CHECK_EQ_INT(shoal_half_from_float(65519.0f).bits, 0x7bff);
    CHECK_EQ_INT(shoal_bfloat16_from_float(3.4028235e38f).bits, 0x7f80); /* float's largest: a bfloat16 infinity */
}

/* Reductions back to back with nothing between them: a member writes its
 * next src as soon as its call returns, while the others may still be in
 * theirs. Sizes on both sides of the one-meeting (inline) limit, 8 B to
 * 512 B, in place and not; every round checked on every member. */
static void r_rounds(ctx_t *c)
{
    static const size_t ns[] = {1, 4, 31, 32, 33, 64};
    long long hs[64], hd[64];
    int rounds = c->tn > 2 ? 240 : 600;

    sync_team(c);
    for (int r = 0; r < rounds; r++) {
        size_t n = ns[r % 6];
        int in_place = (r / 6) % 2;
        long long *dest = (long long *)c->dst, *src = in_place ? dest : (long long *)c->src;
        for (size_t k = 0; k < n; k++) hs[k] = (long long)r * 1000003 + (long long)c->tm * 7919 + (long long)k;
        test_heap_write(c->sh, src, hs, n * sizeof(long long));
        CHECK_OK(shoal_longlong_sum_reduce(c->team, dest, src, n), c->sh);
        test_heap_read(c->sh, hd, dest, n * sizeof(long long));
        for (size_t k = 0; k < n; k++) {
            long long want =
                (long long)c->tn * ((long long)r * 1000003 + (long long)k) + 7919LL * c->tn * (c->tn - 1) / 2;
            if (hd[k] != want)
                check__fail(__FILE__, __LINE__,
                            "round %d: shoal_longlong_sum_reduce(nreduce %zu%s) on team %s (team PE %d of %d): "
                            "element %zu is %lld, expected %lld",
                            r, n, in_place ? ", in place" : "", c->tname, c->tm, c->tn, k, hd[k], want);
        }
    }
    salt += rounds;
}

static void test_reductions(ctx_t *c)
{
    r_rounds(c);
    r_half(c);
    for (size_t i = 0; i < NRCASES; i++) {
        r_run(c, &rcases[i], 0, 0);
        r_run(c, &rcases[i], 1, 0);
        r_run(c, &rcases[i], 37, 0);
        r_run(c, &rcases[i], 37, 1);
        rs_run(c, &rcases[i], 0);
        rs_run(c, &rcases[i], 1);
        rs_run(c, &rcases[i], 37);
    }
}

/* ------------------------------------------------------------ 64 MiB */

static void test_big(ctx_t *c)
{
    const mtype_t *i64 = mtype("int64"), *dbl = mtype("double");
    double t0 = MPI_Wtime();

    r_run(c, rcase("int64", "sum"), BIG / sizeof(int64_t), 0);
    m_bcast(c, i64, BIG / sizeof(int64_t), c->tn - 1);
    m_fcollect(c, dbl, BIG / sizeof(double) / (size_t)c->tn);
    rs_run(c, rcase("int64", "sum"), BIG / sizeof(int64_t) / (size_t)c->tn);
    if (me == 0)
        check_note("64 MiB sum_reduce, broadcast, fcollect and sum_reducescatter on %s: %.2f s", c->tname,
                   MPI_Wtime() - t0);
}

/* ------------------------------------------------------------ mismatches */

/* The team still works: a broadcast from its last member. The next call
 * may write dest at once (the mistakes' calls): every member checked it. */
static void team_works(ctx_t *c)
{
    m_bcast(c, mtype("int"), 9, c->tn - 1);
    sync_team(c);
}

/* rc is SHOAL_ERR_NOT_SYMMETRIC, and the message names the first member
 * with first and the last with last (its world and team numbers). */
static void expect_mismatch(ctx_t *c, int rc, const char *first, const char *last)
{
    shoal_team_t w = shoal_team_world(c->sh);
    const char *msg = shoal_last_error(c->sh);
    char a[192], b[192];

    CHECK_STATUS(rc, SHOAL_ERR_NOT_SYMMETRIC, c->sh);
    snprintf(a, sizeof(a), "PE %d (team PE 0): %s", shoal_team_translate_pe(c->team, 0, w), first);
    snprintf(b, sizeof(b), "PE %d (team PE %d): %s", shoal_team_translate_pe(c->team, c->tn - 1, w), c->tn - 1, last);
    CHECK_CONTAINS(msg, a);
    CHECK_CONTAINS(msg, b);
    sync_team(c);
    team_works(c);
}

static void test_mismatch(ctx_t *c)
{
    int odd = c->tm == c->tn - 1, *d = (int *)c->dst, *s = (int *)c->src;
    char a[96], b[96];

    if (c->tn < 2) return;
    sync_team(c);
    expect_mismatch(c, shoal_int_broadcast(c->team, d, s, odd ? 11 : 10, 0), "shoal_int_broadcast(nelems 10, root 0)",
                    "shoal_int_broadcast(nelems 11, root 0)");
    if (c->tm == 0) check_note("broadcast mismatch on %s: %s", c->tname, shoal_last_error(c->sh));
    expect_mismatch(c, shoal_int_broadcast(c->team, d, s, 4, odd ? 1 : 0), "shoal_int_broadcast(nelems 4, root 0)",
                    "shoal_int_broadcast(nelems 4, root 1)");
    expect_mismatch(c, odd ? shoal_int_max_reduce(c->team, d, s, 8) : shoal_int_sum_reduce(c->team, d, s, 8),
                    "shoal_int_sum_reduce(nreduce 8)", "shoal_int_max_reduce(nreduce 8)");
    expect_mismatch(c,
                    odd ? shoal_long_sum_reduce(c->team, (long *)d, (long *)s, 8)
                        : shoal_int_sum_reduce(c->team, d, s, 8),
                    "shoal_int_sum_reduce(nreduce 8)", "shoal_long_sum_reduce(nreduce 8)");
    expect_mismatch(c, shoal_int_sum_reduce(c->team, d, s, odd ? 7 : 8), "shoal_int_sum_reduce(nreduce 8)",
                    "shoal_int_sum_reduce(nreduce 7)");
    /* 256 B goes in one meeting, 260 B in two: still named, not a hang. */
    expect_mismatch(c, shoal_int_sum_reduce(c->team, d, s, odd ? 65 : 64), "shoal_int_sum_reduce(nreduce 64)",
                    "shoal_int_sum_reduce(nreduce 65)");
    expect_mismatch(c, shoal_int_sum_reducescatter(c->team, d, s, odd ? 7 : 8),
                    "shoal_int_sum_reducescatter(nreduce 8)", "shoal_int_sum_reducescatter(nreduce 7)");
    if (c->tm == 0) check_note("reducescatter mismatch on %s: %s", c->tname, shoal_last_error(c->sh));
    expect_mismatch(c, odd ? shoal_int_sum_reducescatter(c->team, d, s, 8) : shoal_int_sum_reduce(c->team, d, s, 8),
                    "shoal_int_sum_reduce(nreduce 8)", "shoal_int_sum_reducescatter(nreduce 8)");
    expect_mismatch(c,
                    odd ? shoal_double_max_reducescatter(c->team, (double *)d, (double *)s, 8)
                        : shoal_double_min_reducescatter(c->team, (double *)d, (double *)s, 8),
                    "shoal_double_min_reducescatter(nreduce 8)", "shoal_double_max_reducescatter(nreduce 8)");
    expect_mismatch(c,
                    odd ? shoal_double_fcollect(c->team, (double *)d, (double *)s, 4)
                        : shoal_int_fcollect(c->team, d, s, 4),
                    "shoal_int_fcollect(nelems 4)", "shoal_double_fcollect(nelems 4)");
    expect_mismatch(c, odd ? shoal_fcollectmem(c->team, d, s, 4) : shoal_alltoallmem(c->team, d, s, 4),
                    "shoal_alltoallmem(nelems 4)", "shoal_fcollectmem(nelems 4)");
    expect_mismatch(c, shoal_int_alltoalls(c->team, d, s, odd ? 2 : 1, 1, 3),
                    "shoal_int_alltoalls(nelems 3, dst 1, sst 1)", "shoal_int_alltoalls(nelems 3, dst 2, sst 1)");
    expect_mismatch(c, odd ? shoal_int_collect(c->team, d, s, 2) : shoal_int_fcollect(c->team, d, s, 2),
                    "shoal_int_fcollect(nelems 2)", "shoal_int_collect");
    snprintf(a, sizeof(a), "shoal_int_collect");
    snprintf(b, sizeof(b), "shoal_team_sync");
    expect_mismatch(c, odd ? shoal_team_sync(c->team) : shoal_int_collect(c->team, d, s, 2), a, b);
    if (c->tm == 0) check_note("mismatches named on %s", c->tname);
}

/* Member bad got its own error (status, containing text), the others
 * SHOAL_ERR_NOT_SYMMETRIC naming it and its call (call_text); then the
 * team works. bad -1: every member got its own error. */
static void expect_bad(ctx_t *c, int rc, int bad, int status, const char *text, const char *call_text)
{
    shoal_team_t w = shoal_team_world(c->sh);
    const char *msg = shoal_last_error(c->sh);
    char who[192];

    if (bad < 0 || c->tm == bad) {
        CHECK_STATUS(rc, status, c->sh);
        CHECK_CONTAINS(msg, text);
    } else {
        CHECK_STATUS(rc, SHOAL_ERR_NOT_SYMMETRIC, c->sh);
        snprintf(who, sizeof(who), "PE %d (team PE %d): %s", shoal_team_translate_pe(c->team, bad, w), bad, call_text);
        CHECK_CONTAINS(msg, who);
        CHECK_CONTAINS(msg, "failed on this PE before the members met");
    }
    sync_team(c);
    team_works(c);
}

static void test_bad_args(ctx_t *c)
{
    int last = c->tn - 1, *d = (int *)c->dst, *s = (int *)c->src;
    int *outside = malloc(4096);
    char what[96];

    CHECK(outside != NULL);
    sync_team(c);
    /* A root out of range on member 0 (the members' leader). */
    snprintf(what, sizeof(what), "shoal_int_broadcast(nelems 4, root %d)", c->tn);
    expect_bad(c, shoal_int_broadcast(c->team, d, s, 4, c->tm == 0 ? c->tn : 0), 0, SHOAL_ERR_INVALID_ARG,
               "is not a PE of the team", what);
    if (c->tm == 0) check_note("bad root on %s: %s", c->tname, shoal_last_error(c->sh));
    if (c->tm == last && last > 0) check_note("... and on another member: %s", shoal_last_error(c->sh));
    expect_bad(c, shoal_int_broadcast(c->team, c->tm == last ? NULL : d, s, 4, 0), last, SHOAL_ERR_INVALID_ARG,
               "dest is NULL", "shoal_int_broadcast(nelems 4, root 0)");
    expect_bad(c, shoal_int_fcollect(c->team, c->tm == last ? outside : d, s, 4), last, SHOAL_ERR_OUT_OF_BOUNDS, "dest",
               "shoal_int_fcollect(nelems 4)");
    /* dest running past the end of its allocation (SHOAL_CHECK=off checks
     * the heap's bounds only). */
    if (check_level >= SHOAL_CHECK_BASIC)
        expect_bad(c, shoal_int_fcollect(c->team, c->tm == last ? (int *)(c->dst + BUF - 8) : d, s, 4), last,
                   SHOAL_ERR_OUT_OF_BOUNDS, "past the end", "shoal_int_fcollect(nelems 4)");
    expect_bad(c, shoal_int_fcollect(c->team, c->tm == last ? s + 1 : d, s, 4), last, SHOAL_ERR_INVALID_ARG, "overlap",
               "shoal_int_fcollect(nelems 4)");
    expect_bad(c, shoal_int_sum_reduce(c->team, c->tm == 0 ? s + 2 : d, s, 4), 0, SHOAL_ERR_INVALID_ARG,
               "only dest == src", "shoal_int_sum_reduce(nreduce 4)");
    expect_bad(c, shoal_int_sum_reduce(c->team, d, c->tm == last ? outside : s, 4), last, SHOAL_ERR_OUT_OF_BOUNDS,
               "src", "shoal_int_sum_reduce(nreduce 4)");
    /* A reduce-scatter's dest inside src (block 0, or in place), src's
     * n_pes blocks past its allocation. */
    expect_bad(c, shoal_int_sum_reducescatter(c->team, c->tm == 0 ? s + 2 : d, s, 4), 0, SHOAL_ERR_INVALID_ARG,
               "shoal_int_sum_reducescatter: dest [", "shoal_int_sum_reducescatter(nreduce 4)");
    if (c->tm == 0) check_note("reducescatter overlap on %s: %s", c->tname, shoal_last_error(c->sh));
    expect_bad(c, shoal_int_sum_reducescatter(c->team, c->tm == last ? s : d, s, 4), last, SHOAL_ERR_INVALID_ARG,
               "overlap", "shoal_int_sum_reducescatter(nreduce 4)");
    if (check_level >= SHOAL_CHECK_BASIC)
        expect_bad(c, shoal_int_sum_reducescatter(c->team, d, c->tm == last ? (int *)(c->src + BUF - 8) : s, 4), last,
                   SHOAL_ERR_OUT_OF_BOUNDS, "past the end", "shoal_int_sum_reducescatter(nreduce 4)");
    expect_bad(c, shoal_int_alltoalls(c->team, d, s, 1, c->tm == last ? 0 : 1, 2), last, SHOAL_ERR_INVALID_ARG,
               "strides", "shoal_int_alltoalls(nelems 2, dst 1, sst 0)");
    expect_bad(c, shoal_int_collect(c->team, d, c->tm == last ? NULL : s, 3), last, SHOAL_ERR_INVALID_ARG,
               "src is NULL", "shoal_int_collect");
    /* Every member wrong alike: each gets its own error. */
    expect_bad(c, shoal_int_broadcast(c->team, d, s, 4, -1), -1, SHOAL_ERR_INVALID_ARG, "root -1", NULL);
    expect_bad(c, shoal_alltoallsmem(c->team, d, s, 0, 0, 4), -1, SHOAL_ERR_INVALID_ARG, "strides", NULL);
    /* nreduce * 4 bytes fits, n_pes blocks of it do not (one block, for a team of one). */
    expect_bad(c, shoal_int_sum_reducescatter(c->team, d, s, SIZE_MAX / 4 / (size_t)c->tn + 1), -1,
               SHOAL_ERR_INVALID_ARG, "overflow size_t", NULL);
    /* An invalid team. */
    CHECK_ERR(shoal_int_broadcast(SHOAL_TEAM_INVALID, d, s, 1, 0), SHOAL_ERR_INVALID_ARG, NULL, "SHOAL_TEAM_INVALID");
    free(outside);
    if (c->tm == 0) check_note("argument errors on %s passed", c->tname);
}

/* ------------------------------------------------------------ main */

static void run_team(ctx_t *c, shoal_team_t t, const char *name, int big, int mistakes)
{
    double t0 = MPI_Wtime();
    int salt0;

    c->team = t;
    c->tname = name;
    /* Members of a team went through the same calls since; other PEs not. */
    MPI_Allreduce(MPI_IN_PLACE, &salt, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    salt0 = salt;
    if (t != SHOAL_TEAM_INVALID) {
        c->tm = shoal_team_my_pe(t);
        c->tn = shoal_team_n_pes(t);
        CHECK(c->tm >= 0 && c->tn >= 1);
        test_moves(c);
        test_reductions(c);
        if (big) test_big(c);
        if (mistakes) {
            test_mismatch(c);
            test_bad_args(c);
        }
        if (c->tm == 0)
            check_note("team %s (%d PEs): every collective passed (%d calls, %.3f s)", name, c->tn, salt - salt0,
                       MPI_Wtime() - t0);
    }
    /* Teams share the buffers: every member of every team is done. */
    CHECK_OK(shoal_barrier_all(c->sh), c->sh);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_team_t w, even = SHOAL_TEAM_INVALID, x = SHOAL_TEAM_INVALID, y = SHOAL_TEAM_INVALID;
    ctx_t c;
    int xrange;

    (void)argc;
    (void)argv;
    MPI_Init(&argc, &argv);
    test_config(&cfg, 2 * BUF + ((size_t)8 << 20));
    if (cfg.timeout == 0 || cfg.timeout > 30) cfg.timeout = 30; /* a lost member: an error, not a hang */
    check_level = cfg.check;
    memset(&c, 0, sizeof(c));
    if (!test_init_or_skip(&cfg, &c.sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    me = shoal_my_pe(c.sh);
    npes = shoal_n_pes(c.sh);
    c.src = shoal_malloc(c.sh, BUF);
    c.dst = shoal_malloc(c.sh, BUF);
    CHECK_NONNULL(c.src, c.sh);
    CHECK_NONNULL(c.dst, c.sh);
    c.hs = malloc(BUF);
    c.hd = malloc(BUF);
    c.hr = malloc(BUF);
    CHECK(c.hs != NULL && c.hd != NULL && c.hr != NULL);
    if (me == 0)
        check_note("%zu reductions (type, operator) and %zu data types, on a %s heap", NRCASES,
                   sizeof(mtypes) / sizeof(mtypes[0]), test_heap_is_host(c.sh) ? "host" : "GPU");

    if (me == 0) check_half_conversions();
    w = shoal_team_world(c.sh);
    CHECK_OK(shoal_team_split_strided(w, 0, 2, (npes + 1) / 2, &even), c.sh);
    xrange = npes >= 4 ? 3 : 2;
    CHECK_OK(shoal_team_split_2d(w, xrange, &x, &y), c.sh);

    run_team(&c, w, "world", 1, 1);
    run_team(&c, shoal_team_node(c.sh), "node", 0, 0);
    run_team(&c, even, "even (stride 2)", 0, 1);
    run_team(&c, x, "2-D row", 0, 0);
    run_team(&c, y, "2-D column", 0, 1);

    if (even != SHOAL_TEAM_INVALID) CHECK_OK(shoal_team_destroy(even), c.sh);
    CHECK_OK(shoal_team_destroy(x), c.sh);
    CHECK_OK(shoal_team_destroy(y), c.sh);
    CHECK_OK(shoal_free(c.sh, c.dst), c.sh);
    CHECK_OK(shoal_free(c.sh, c.src), c.sh);
    free(c.hs);
    free(c.hd);
    free(c.hr);
    if (me == 0) check_note("collectives passed on %d PEs", npes);
    CHECK_OK(shoal_finalize(c.sh), NULL);
    MPI_Finalize();
    return 0;
}
