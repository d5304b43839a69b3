/*
 * Waits on symmetric variables (api/shoal.h, "Point-to-point
 * synchronization"): for every type of SHOAL_WAIT_TYPES, wait_until,
 * wait_until_all/_any/_some and their _vector forms, and the test forms.
 *
 * 1. Every comparison (EQ NE GT GE LT LE) on values a peer put, negative
 *    ones included (signed types compare as signed, unsigned ones as
 *    unsigned: -5 is then a large value): shoal_<T>_test against the
 *    comparison computed here in the type, and test_all/_any/_some and
 *    their _vector forms with status arrays that exclude elements, down to
 *    all of them and nelems 0 (test_all 1, _any SIZE_MAX, _some 0; the
 *    waits return at once with the same answers).
 * 2. Real waits: PEs pair up across the halves of the job (with two
 *    simulated nodes the pairs span them). The waiter sets its variables,
 *    checks that the condition does not hold yet, tells its partner (an MPI
 *    message), and waits; the partner sleeps, then stores values with
 *    shoal_<T>_p (also shoal_<T>_atomic_set for the atomic types), some of
 *    them not yet satisfying and some into excluded elements, which must
 *    not end the wait (_any must name the included element). When the wait
 *    returns, the elements it relied on satisfy the condition; once the
 *    partner is done, the variables hold exactly what it stored. With one
 *    PE (or the odd PE out) the PE stores the values itself first.
 * 3. Mistakes: an unknown cmp (SHOAL_ERR_INVALID_ARG, at once), a
 *    misaligned variable (SHOAL_ERR_INVALID_ARG, "align"), a variable
 *    outside the heap, in a freed block or an array past its allocation
 *    (SHOAL_ERR_OUT_OF_BOUNDS).
 *
 * With the argument "timeout" (run with SHOAL_TIMEOUT=1): a wait that
 * nobody satisfies returns SHOAL_ERR_TIMEOUT within seconds, naming the
 * call, the variable (its heap offset or allocation), the comparison and
 * the last value seen.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { NV = 6, NT = 10 }; /* variables of the real waits; pairs of the comparison table */
enum { K_ONE, K_ALL, K_ANY, K_SOME, K_ALLV, K_ANYV, K_SOMEV };
enum { ROLE_SELF, ROLE_WAIT, ROLE_WRITE };
enum { TAG_GO = 71, TAG_DONE = 72 };
#define INIT 10

static int me, npes, partner, host_heap;
static const char *cmp_names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};

/* (value stored, value compared with) of the comparison table */
static const long long pairs[NT][2] = {{5, 5},   {4, 5},   {6, 5},  {-5, 0}, {0, -5},
                                       {-5, -3}, {-3, -5}, {-1, 1}, {1, -1}, {0, 0}};

static void nap_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* One real wait: the kind of call, the comparison, the variable (K_ONE) or
 * the excluded ones, the value(s), the partner's stores in order, and the
 * included elements satisfied at the end (for _any: the one). */
typedef struct wcase {
    int kind, cmp, idx, nw;
    long long value, values[NV];
    unsigned excl, want;
    struct {
        int idx;
        long long val;
    } w[NV];
} wcase_t;

static void add_w(wcase_t *k, int idx, long long val)
{
    k->w[k->nw].idx = idx;
    k->w[k->nw].val = val;
    k->nw++;
}

/* Case c for a signed (sgn 1) or unsigned type; 0 past the last. Every
 * variable starts at INIT (10), which satisfies none of the conditions. */
static int make_case(int c, int sgn, wcase_t *k)
{
    memset(k, 0, sizeof(*k));
    switch (c) {
    case 0:
        k->kind = K_ONE, k->idx = 0, k->cmp = SHOAL_CMP_EQ, k->value = 7;
        add_w(k, 0, 7);
        break;
    case 1:
        k->kind = K_ONE, k->idx = 1, k->cmp = SHOAL_CMP_NE, k->value = INIT;
        add_w(k, 1, 11);
        break;
    case 2:
        k->kind = K_ONE, k->idx = 2, k->cmp = SHOAL_CMP_GT, k->value = INIT;
        add_w(k, 2, INIT); /* a store that changes nothing */
        add_w(k, 2, 12);
        break;
    case 3:
        k->kind = K_ONE, k->idx = 3, k->cmp = SHOAL_CMP_GE, k->value = 12;
        add_w(k, 3, 11); /* not yet */
        add_w(k, 3, 12);
        break;
    case 4: /* signed: wait until ivar < 0, a peer puts -5 */
        k->kind = K_ONE, k->idx = 4, k->cmp = SHOAL_CMP_LT, k->value = sgn ? 0 : 5;
        add_w(k, 4, sgn ? -5 : 3);
        break;
    case 5:
        k->kind = K_ONE, k->idx = 5, k->cmp = SHOAL_CMP_LE, k->value = sgn ? -1 : 9;
        add_w(k, 5, sgn ? 1 : 10); /* not yet */
        add_w(k, 5, sgn ? -7 : 9);
        break;
    case 6: /* all but the excluded 1 and 4, which never satisfy */
        k->kind = K_ALL, k->cmp = SHOAL_CMP_GE, k->value = 20, k->excl = 1u << 1 | 1u << 4;
        add_w(k, 0, 20);
        add_w(k, 2, 25);
        add_w(k, 3, 30);
        add_w(k, 5, 21);
        break;
    case 7: /* the excluded 0 satisfies first: _any must wait for 3 */
        k->kind = K_ANY, k->cmp = SHOAL_CMP_EQ, k->value = 33, k->excl = 1u << 0, k->want = 1u << 3;
        add_w(k, 0, 33);
        add_w(k, 3, 33);
        break;
    case 8:
        k->kind = K_SOME, k->cmp = SHOAL_CMP_NE, k->value = INIT, k->excl = 1u << 5, k->want = 1u << 2 | 1u << 4;
        add_w(k, 5, 99);
        add_w(k, 2, 50);
        add_w(k, 4, 60);
        break;
    case 9: /* values[i] = 10 - i: element 0 holds already */
        k->kind = K_ALLV, k->cmp = SHOAL_CMP_LE;
        for (int i = 0; i < NV; i++) k->values[i] = INIT - i;
        for (int i = 1; i < NV; i++) add_w(k, i, sgn ? -10 - i : 9 - i);
        break;
    case 10:
        k->kind = K_ANYV, k->cmp = SHOAL_CMP_GT, k->excl = 1u << 2, k->want = 1u << 5;
        for (int i = 0; i < NV; i++) k->values[i] = INIT + i;
        add_w(k, 2, 100);
        add_w(k, 5, 100);
        break;
    case 11:
        k->kind = K_SOMEV, k->cmp = SHOAL_CMP_EQ, k->want = 1u << 1 | 1u << 3;
        for (int i = 0; i < NV; i++) k->values[i] = 3 * i;
        add_w(k, 1, 3);
        add_w(k, 3, 9);
        break;
    default: return 0;
    }
    return 1;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* The indices in idx[0..n) as a bit set, sorted in place; -1 on a
 * duplicate or an index out of range. */
static long long index_set(size_t *idx, size_t n, size_t nelems)
{
    unsigned long long set = 0;
    qsort(idx, n, sizeof(size_t), cmp_size);
    for (size_t i = 0; i < n; i++) {
        if (idx[i] >= nelems || (i > 0 && idx[i] == idx[i - 1])) return -1;
        set |= 1ull << idx[i];
    }
    return (long long)set;
}

#define WAIT_TEST(T, N)                                                                                                \
    static int sat_##N(T x, int cmp, T v)                                                                              \
    {                                                                                                                  \
        switch (cmp) {                                                                                                 \
        case SHOAL_CMP_EQ: return x == v;                                                                              \
        case SHOAL_CMP_NE: return x != v;                                                                              \
        case SHOAL_CMP_GT: return x > v;                                                                               \
        case SHOAL_CMP_GE: return x >= v;                                                                              \
        case SHOAL_CMP_LT: return x < v;                                                                               \
        default: return x <= v;                                                                                        \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* The included elements of x[0..n) that satisfy cmp against v (or vv[i]), as a bit set. */                        \
    static unsigned sat_set_##N(const T *x, size_t n, const int *st, int cmp, T v, const T *vv)                        \
    {                                                                                                                  \
        unsigned set = 0;                                                                                              \
        for (size_t i = 0; i < n; i++)                                                                                 \
            if (!(st && st[i]) && sat_##N(x[i], cmp, vv ? vv[i] : v)) set |= 1u << i;                                  \
        return set;                                                                                                    \
    }                                                                                                                  \
    static unsigned incl_set_##N(size_t n, const int *st)                                                              \
    {                                                                                                                  \
        unsigned set = 0;                                                                                              \
        for (size_t i = 0; i < n; i++)                                                                                 \
            if (!(st && st[i])) set |= 1u << i;                                                                        \
        return set;                                                                                                    \
    }                                                                                                                  \
                                                                                                                       \
    /* The test forms (and the waits where they return at once) on iv[0..n),                                        \
     * whose values x[] this PE knows. */  \
    static void check_forms_##N(shoal_t sh, T *iv, const T *x, size_t n, const int *st, int cmp, T v, const T *vv,     \
                                const char *what)                                                                      \
    {                                                                                                                  \
        unsigned want = sat_set_##N(x, n, st, cmp, v, vv), incl = incl_set_##N(n, st);                                 \
        int flag = -1;                                                                                                 \
        size_t index = 7777, count = 7777, idx[NT];                                                                    \
        long long set;                                                                                                 \
        /* test_all */                                                                                                 \
        if (vv)                                                                                                        \
            CHECK_OK(shoal_##N##_test_all_vector(sh, iv, n, st, cmp, vv, &flag), sh);                                  \
        else                                                                                                           \
            CHECK_OK(shoal_##N##_test_all(sh, iv, n, st, cmp, v, &flag), sh);                                          \
        CHECK_MSG(flag == (want == incl), "shoal_" #N "_test_all%s (%s, cmp %s): flag %d, expected %d",                \
                  vv ? "_vector" : "", what, cmp_names[cmp], flag, want == incl);                                      \
        if (want == incl) {                                                                                            \
            if (vv)                                                                                                    \
                CHECK_OK(shoal_##N##_wait_until_all_vector(sh, iv, n, st, cmp, vv), sh);                               \
            else                                                                                                       \
                CHECK_OK(shoal_##N##_wait_until_all(sh, iv, n, st, cmp, v), sh);                                       \
        }                                                                                                              \
        /* test_any */                                                                                                 \
        if (vv)                                                                                                        \
            CHECK_OK(shoal_##N##_test_any_vector(sh, iv, n, st, cmp, vv, &index), sh);                                 \
        else                                                                                                           \
            CHECK_OK(shoal_##N##_test_any(sh, iv, n, st, cmp, v, &index), sh);                                         \
        CHECK_MSG(want ? (index < n && (want >> index & 1)) : index == SIZE_MAX,                                       \
                  "shoal_" #N "_test_any%s (%s, cmp %s): index %zu, satisfied set %#x", vv ? "_vector" : "", what,     \
                  cmp_names[cmp], index, want);                                                                        \
        if (want || incl == 0) {                                                                                       \
            index = 7777;                                                                                              \
            if (vv)                                                                                                    \
                CHECK_OK(shoal_##N##_wait_until_any_vector(sh, iv, n, st, cmp, vv, &index), sh);                       \
            else                                                                                                       \
                CHECK_OK(shoal_##N##_wait_until_any(sh, iv, n, st, cmp, v, &index), sh);                               \
            CHECK_MSG(want ? (index < n && (want >> index & 1)) : index == SIZE_MAX,                                   \
                      "shoal_" #N "_wait_until_any%s (%s, cmp %s): index %zu, satisfied set %#x", vv ? "_vector" : "", \
                      what, cmp_names[cmp], index, want);                                                              \
        }                                                                                                              \
        /* test_some */                                                                                                \
        if (vv)                                                                                                        \
            CHECK_OK(shoal_##N##_test_some_vector(sh, iv, n, idx, st, cmp, vv, &count), sh);                           \
        else                                                                                                           \
            CHECK_OK(shoal_##N##_test_some(sh, iv, n, idx, st, cmp, v, &count), sh);                                   \
        set = count <= n ? index_set(idx, count, n) : -2;                                                              \
        CHECK_MSG(set == (long long)want, "shoal_" #N "_test_some%s (%s, cmp %s): count %zu, set %#llx, expected %#x", \
                  vv ? "_vector" : "", what, cmp_names[cmp], count, (unsigned long long)set, want);                    \
        if (want || incl == 0) {                                                                                       \
            count = 7777;                                                                                              \
            if (vv)                                                                                                    \
                CHECK_OK(shoal_##N##_wait_until_some_vector(sh, iv, n, idx, st, cmp, vv, &count), sh);                 \
            else                                                                                                       \
                CHECK_OK(shoal_##N##_wait_until_some(sh, iv, n, idx, st, cmp, v, &count), sh);                         \
            set = count <= n ? index_set(idx, count, n) : -2;                                                          \
            CHECK_MSG(set == (long long)want,                                                                          \
                      "shoal_" #N "_wait_until_some%s (%s, cmp %s): count %zu, set %#llx, expected %#x",               \
                      vv ? "_vector" : "", what, cmp_names[cmp], count, (unsigned long long)set, want);                \
        }                                                                                                              \
    }                                                                                                                  \
                                                                                                                       \
    /* Part 1: the comparison table, stored by the partner (or this PE). */                                            \
    static void table_##N(shoal_t sh, T *iv)                                                                           \
    {                                                                                                                  \
        T x[NT], vals[NT], vals1[NT];                                                                                  \
        int even[NT], all[NT], flag;                                                                                   \
        const int to = partner < 0 ? me : partner;                                                                     \
        size_t index, count, idx[NT];                                                                                  \
        for (int i = 0; i < NT; i++) {                                                                                 \
            x[i] = (T)pairs[i][0];                                                                                     \
            vals[i] = (T)pairs[i][1];                                                                                  \
            vals1[i] = (T)(pairs[i][1] + 1);                                                                           \
            even[i] = i % 2 == 0;                                                                                      \
            all[i] = 1;                                                                                                \
            CHECK_OK(shoal_##N##_p(sh, iv + i, x[i], to), sh);                                                         \
        }                                                                                                              \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
        for (int i = 0; i < NT; i++) {                                                                                 \
            for (int c = 0; c < 6; c++) {                                                                              \
                flag = -1;                                                                                             \
                CHECK_OK(shoal_##N##_test(sh, iv + i, c, vals[i], &flag), sh);                                         \
                CHECK_MSG(flag == sat_##N(x[i], c, vals[i]),                                                           \
                          "shoal_" #N "_test: %.21Lg %s %.21Lg gave %d, expected %d (stored by PE %d)",                \
                          (long double)x[i], cmp_names[c], (long double)vals[i], flag, sat_##N(x[i], c, vals[i]),      \
                          partner < 0 ? me : partner);                                                                 \
                if (flag == 1) CHECK_OK(shoal_##N##_wait_until(sh, iv + i, c, vals[i]), sh);                           \
            }                                                                                                          \
        }                                                                                                              \
        for (int c = 0; c < 6; c++) {                                                                                  \
            static const long long scalars[] = {5, 0, -5};                                                             \
            for (int s = 0; s < 3; s++) {                                                                              \
                check_forms_##N(sh, iv, x, NT, NULL, c, (T)scalars[s], NULL, "no status");                             \
                check_forms_##N(sh, iv, x, NT, even, c, (T)scalars[s], NULL, "even excluded");                         \
                check_forms_##N(sh, iv, x, NT, all, c, (T)scalars[s], NULL, "all excluded");                           \
                check_forms_##N(sh, iv, x, 0, NULL, c, (T)scalars[s], NULL, "nelems 0");                               \
            }                                                                                                          \
            check_forms_##N(sh, iv, x, NT, NULL, c, (T)0, vals, "vector, no status");                                  \
            check_forms_##N(sh, iv, x, NT, even, c, (T)0, vals1, "vector + 1, even excluded");                         \
            check_forms_##N(sh, iv, x, NT, all, c, (T)0, vals, "vector, all excluded");                                \
            check_forms_##N(sh, iv, x, 0, all, c, (T)0, vals, "vector, nelems 0");                                     \
        }                                                                                                              \
        /* all excluded / nelems 0, spelled out */                                                                     \
        flag = 0, index = 0, count = 5;                                                                                \
        CHECK_OK(shoal_##N##_test_all(sh, iv, NT, all, SHOAL_CMP_EQ, (T)12345, &flag), sh);                            \
        CHECK_OK(shoal_##N##_wait_until_any(sh, iv, NT, all, SHOAL_CMP_EQ, (T)12345, &index), sh);                     \
        CHECK_OK(shoal_##N##_wait_until_some(sh, iv, 0, idx, NULL, SHOAL_CMP_EQ, (T)12345, &count), sh);               \
        CHECK_MSG(flag == 1 && index == SIZE_MAX && count == 0,                                                        \
                  #N ": all excluded / nelems 0: test_all %d, wait_until_any %zu, wait_until_some %zu", flag, index,   \
                  count);                                                                                              \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
    }                                                                                                                  \
                                                                                                                       \
    /* Part 2: one real wait; setter stores a value on a PE (shoal_<T>_p or atomic_set). */                            \
    static void run_case_##N(shoal_t sh, T *iv, int c, const wcase_t *k, int role,                                     \
                             int (*setter)(shoal_t, T *, T, int), const char *how)                                     \
    {                                                                                                                  \
        T img[NV], want_img[NV], vals[NV];                                                                             \
        int status[NV], flag = -1, token = c;                                                                          \
        const int *st = k->excl ? status : NULL;                                                                       \
        const T *vv = k->kind >= K_ALLV ? vals : NULL;                                                                 \
        const T v = (T)k->value;                                                                                       \
        size_t index = 7777, count = 7777, idx[NV];                                                                    \
        unsigned incl, rel = 0;                                                                                        \
        long long set;                                                                                                 \
        if (role == ROLE_WRITE) {                                                                                      \
            MPI_Recv(&token, 1, MPI_INT, partner, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);                          \
            CHECK_EQ_INT(token, c);                                                                                    \
            nap_us(2000);                                                                                              \
            for (int j = 0; j < k->nw; j++) {                                                                          \
                if (j) nap_us(500);                                                                                    \
                CHECK_OK(setter(sh, iv + k->w[j].idx, (T)k->w[j].val, partner), sh);                                   \
                CHECK_OK(shoal_quiet(sh), sh);                                                                         \
            }                                                                                                          \
            MPI_Send(&token, 1, MPI_INT, partner, TAG_DONE, MPI_COMM_WORLD);                                           \
            return;                                                                                                    \
        }                                                                                                              \
        for (int i = 0; i < NV; i++) {                                                                                 \
            img[i] = want_img[i] = (T)INIT;                                                                            \
            vals[i] = (T)k->values[i];                                                                                 \
            status[i] = (int)(k->excl >> i & 1);                                                                       \
        }                                                                                                              \
        for (int j = 0; j < k->nw; j++) want_img[k->w[j].idx] = (T)k->w[j].val;                                        \
        incl = incl_set_##N(NV, st);                                                                                   \
        test_heap_write(sh, iv, img, sizeof(img));                                                                     \
        /* The condition does not hold yet. */                                                                         \
        if (k->kind == K_ONE) {                                                                                        \
            CHECK_OK(shoal_##N##_test(sh, iv + k->idx, k->cmp, v, &flag), sh);                                         \
            CHECK_MSG(flag == 0, #N " case %d: shoal_" #N "_test holds before the store (flag %d)", c, flag);          \
        } else {                                                                                                       \
            unsigned pre = sat_set_##N(img, NV, st, k->cmp, v, vv);                                                    \
            CHECK_MSG(k->kind == K_ALL || k->kind == K_ALLV ? pre != incl : pre == 0,                                  \
                      #N " case %d: holds before the store", c);                                                       \
            check_forms_##N(sh, iv, img, NV, st, k->cmp, v, vv, "before the stores");                                  \
        }                                                                                                              \
        if (role == ROLE_SELF) {                                                                                       \
            for (int j = 0; j < k->nw; j++) CHECK_OK(setter(sh, iv + k->w[j].idx, (T)k->w[j].val, me), sh);            \
            CHECK_OK(shoal_quiet(sh), sh);                                                                             \
        } else {                                                                                                       \
            MPI_Send(&token, 1, MPI_INT, partner, TAG_GO, MPI_COMM_WORLD);                                             \
        }                                                                                                              \
        switch (k->kind) {                                                                                             \
        case K_ONE:                                                                                                    \
            CHECK_OK(shoal_##N##_wait_until(sh, iv + k->idx, k->cmp, v), sh);                                          \
            rel = 1u << k->idx;                                                                                        \
            break;                                                                                                     \
        case K_ALL:                                                                                                    \
            CHECK_OK(shoal_##N##_wait_until_all(sh, iv, NV, st, k->cmp, v), sh);                                       \
            rel = incl;                                                                                                \
            break;                                                                                                     \
        case K_ALLV:                                                                                                   \
            CHECK_OK(shoal_##N##_wait_until_all_vector(sh, iv, NV, st, k->cmp, vals), sh);                             \
            rel = incl;                                                                                                \
            break;                                                                                                     \
        case K_ANY:                                                                                                    \
        case K_ANYV:                                                                                                   \
            if (k->kind == K_ANY)                                                                                      \
                CHECK_OK(shoal_##N##_wait_until_any(sh, iv, NV, st, k->cmp, v, &index), sh);                           \
            else                                                                                                       \
                CHECK_OK(shoal_##N##_wait_until_any_vector(sh, iv, NV, st, k->cmp, vals, &index), sh);                 \
            CHECK_MSG(index < NV && (k->want >> index & 1),                                                            \
                      #N " case %d: shoal_" #N "_wait_until_any%s returned index %zu, expected the included element "  \
                         "set %#x (stores by %s)",                                                                     \
                      c, vv ? "_vector" : "", index, k->want, how);                                                    \
            rel = 1u << index;                                                                                         \
            break;                                                                                                     \
        default:                                                                                                       \
            if (k->kind == K_SOME)                                                                                     \
                CHECK_OK(shoal_##N##_wait_until_some(sh, iv, NV, idx, st, k->cmp, v, &count), sh);                     \
            else                                                                                                       \
                CHECK_OK(shoal_##N##_wait_until_some_vector(sh, iv, NV, idx, st, k->cmp, vals, &count), sh);           \
            set = count <= NV ? index_set(idx, count, NV) : -2;                                                        \
            CHECK_MSG(count >= 1 && set >= 0 && ((unsigned)set & ~k->want) == 0 &&                                     \
                          (role != ROLE_SELF || (unsigned)set == k->want),                                             \
                      #N " case %d: shoal_" #N "_wait_until_some%s returned %zu indices (set %#llx), expected a "      \
                         "part of %#x (stores by %s)",                                                                 \
                      c, vv ? "_vector" : "", count, (unsigned long long)set, k->want, how);                           \
            rel = (unsigned)set;                                                                                       \
            break;                                                                                                     \
        }                                                                                                              \
        /* What the wait relied on holds now (stores only move towards it). */                                         \
        test_heap_read(sh, img, iv, sizeof(img));                                                                      \
        for (int i = 0; i < NV; i++)                                                                                   \
            if (rel >> i & 1)                                                                                          \
                CHECK_MSG(sat_##N(img[i], k->cmp, vv ? vals[i] : v),                                                   \
                          #N " case %d: the wait returned, yet element %d = %.21Lg is not %s %.21Lg", c, i,            \
                          (long double)img[i], cmp_names[k->cmp], (long double)(vv ? vals[i] : v));                    \
        if (role == ROLE_WAIT) {                                                                                       \
            MPI_Recv(&token, 1, MPI_INT, partner, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);                        \
            CHECK_EQ_INT(token, c);                                                                                    \
        }                                                                                                              \
        /* Every store arrived, and nothing else changed. */                                                           \
        test_heap_read(sh, img, iv, sizeof(img));                                                                      \
        for (int i = 0; i < NV; i++)                                                                                   \
            CHECK_MSG(img[i] == want_img[i], #N " case %d: element %d = %.21Lg after PE %d's %s, expected %.21Lg", c,  \
                      i, (long double)img[i], role == ROLE_SELF ? me : partner, how, (long double)want_img[i]);        \
        if (k->kind != K_ONE) check_forms_##N(sh, iv, img, NV, st, k->cmp, v, vv, "after the stores");                 \
    }                                                                                                                  \
                                                                                                                       \
    static void waits_##N(shoal_t sh, T *iv, int (*setter)(shoal_t, T *, T, int), const char *how, unsigned cases)     \
    {                                                                                                                  \
        const int sgn = (T)-1 < (T)1, h = npes / 2;                                                                    \
        wcase_t k;                                                                                                     \
        for (int phase = 0; phase < 2; phase++) {                                                                      \
            int role = partner < 0 ? ROLE_SELF : ((me < h) == (phase == 0) ? ROLE_WAIT : ROLE_WRITE);                  \
            if (role == ROLE_SELF && phase == 1) break;                                                                \
            for (int c = 0; make_case(c, sgn, &k); c++)                                                                \
                if (cases >> c & 1) run_case_##N(sh, iv, c, &k, role, setter, how);                                    \
        }                                                                                                              \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
    }                                                                                                                  \
                                                                                                                       \
    static void test_##N(shoal_t sh)                                                                                   \
    {                                                                                                                  \
        T *iv = shoal_malloc(sh, (NV + NT) * sizeof(T));                                                               \
        CHECK_NONNULL(iv, sh);                                                                                         \
        table_##N(sh, iv + NV);                                                                                        \
        waits_##N(sh, iv, shoal_##N##_p, "shoal_" #N "_p", ~0u);                                                       \
        CHECK_OK(shoal_free(sh, iv), sh);                                                                              \
    }
SHOAL_WAIT_TYPES(WAIT_TEST)

/* The atomic types: the stores are shoal_<T>_atomic_set. */
#define WAIT_AMO_TEST(T, N)                                                                                            \
    static void test_amo_##N(shoal_t sh)                                                                               \
    {                                                                                                                  \
        T *iv = shoal_malloc(sh, NV * sizeof(T));                                                                      \
        CHECK_NONNULL(iv, sh);                                                                                         \
        waits_##N(sh, iv, shoal_##N##_atomic_set, "shoal_" #N "_atomic_set", 1u << 3 | 1u << 4 | 1u << 7 | 1u << 9);   \
        CHECK_OK(shoal_free(sh, iv), sh);                                                                              \
    }
SHOAL_AMO_TYPES(WAIT_AMO_TEST)

static void bad_input(shoal_t sh, int check_level)
{
    int *ib = shoal_malloc(sh, 4 * sizeof(int)), img[4] = {INIT, INIT, INIT, INIT}, local[4] = {INIT, INIT, INIT, INIT};
    int flag = -1, status[5] = {0};
    long long *lb = shoal_malloc(sh, 2 * sizeof(long long));
    short *sb = shoal_malloc(sh, 4 * sizeof(short));
    size_t index = 0, count = 0, idx[5];
    long *freed = shoal_malloc(sh, 64);

    CHECK_NONNULL(freed, sh);
    CHECK_OK(shoal_free(sh, freed), sh);
    CHECK_NONNULL(ib, sh);
    CHECK_NONNULL(lb, sh);
    CHECK_NONNULL(sb, sh);
    test_heap_write(sh, ib, img, sizeof(img));
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* Unknown comparisons: refused at once (EQ 10 would hold). */
    CHECK_ERR(shoal_int_wait_until(sh, ib, 6, INIT), SHOAL_ERR_INVALID_ARG, sh, "shoal_int_wait_until");
    check_note("cmp 6: %s", shoal_last_error(sh));
    CHECK_ERR(shoal_int_test(sh, ib, -1, INIT, &flag), SHOAL_ERR_INVALID_ARG, sh, "shoal_int_test");
    CHECK_ERR(shoal_int_wait_until_all(sh, ib, 4, NULL, 99, INIT), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_int_wait_until_all");
    CHECK_STATUS(shoal_int_wait_until_any(sh, ib, 4, NULL, 6, INIT, &index), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int_wait_until_some_vector(sh, ib, 4, idx, NULL, -3, img, &count), SHOAL_ERR_INVALID_ARG, sh);
    CHECK_STATUS(shoal_int_test_some(sh, ib, 4, idx, NULL, 6, INIT, &count), SHOAL_ERR_INVALID_ARG, sh);
    /* Misaligned variables, inside their blocks. */
    CHECK_ERR(shoal_int_wait_until(sh, (int *)((char *)ib + 1), SHOAL_CMP_NE, 0), SHOAL_ERR_INVALID_ARG, sh, "align");
    check_note("misaligned int: %s", shoal_last_error(sh));
    CHECK_ERR(shoal_int_test(sh, (int *)((char *)ib + 2), SHOAL_CMP_NE, 0, &flag), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_longlong_wait_until_all(sh, (long long *)((char *)lb + 4), 1, NULL, SHOAL_CMP_GE, 0),
              SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_short_wait_until(sh, (short *)((char *)sb + 1), SHOAL_CMP_GE, 0), SHOAL_ERR_INVALID_ARG, sh,
              "align");
    /* Outside the heap: the stack (EQ 10 would hold), an array past its block. */
    CHECK_ERR(shoal_int_wait_until(sh, local, SHOAL_CMP_EQ, INIT), SHOAL_ERR_OUT_OF_BOUNDS, sh, "shoal_int_wait_until");
    check_note("stack variable: %s", shoal_last_error(sh));
    CHECK_STATUS(shoal_int_test(sh, local, SHOAL_CMP_EQ, INIT, &flag), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_int_wait_until_any(sh, local, 4, NULL, SHOAL_CMP_EQ, INIT, &index), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    if (check_level >= SHOAL_CHECK_BASIC) {
        /* With SHOAL_CHECK basic: inside one live allocation. The test forms
         * first (they return at once), then a word of a freed block (NE
         * 12345 would hold), then a wait on an array that runs past its
         * block (its 4 elements in the block hold). */
        CHECK_STATUS(shoal_int_test_any(sh, ib + 1, 4, NULL, SHOAL_CMP_EQ, INIT, &index), SHOAL_ERR_OUT_OF_BOUNDS, sh);
        check_note("array past its block: %s", shoal_last_error(sh));
        CHECK_STATUS(shoal_int_test_all(sh, ib, 5, status, SHOAL_CMP_EQ, INIT, &flag), SHOAL_ERR_OUT_OF_BOUNDS, sh);
        CHECK_STATUS(shoal_int_test(sh, (int *)freed, SHOAL_CMP_NE, 12345, &flag), SHOAL_ERR_OUT_OF_BOUNDS, sh);
        CHECK_STATUS(shoal_int_wait_until(sh, (int *)freed, SHOAL_CMP_NE, 12345), SHOAL_ERR_OUT_OF_BOUNDS, sh);
        check_note("freed word: %s", shoal_last_error(sh));
        CHECK_STATUS(shoal_int_wait_until_all(sh, ib, 5, status, SHOAL_CMP_EQ, INIT), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, img, ib, sizeof(img));
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(img[i], INIT);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, sb), sh);
    CHECK_OK(shoal_free(sh, lb), sh);
    CHECK_OK(shoal_free(sh, ib), sh);
}

static void check_timeout_msg(shoal_t sh, double t0, const char *call, const char *last, const char *value,
                              const char *op, const char *name)
{
    double dt = MPI_Wtime() - t0;
    const char *msg = shoal_last_error(sh);

    check_note("%s timed out after %.2f s: %s", call, dt, msg);
    CHECK_MSG(dt >= 0.9 && dt <= 6, "%s gave up after %.2f s, expected about 1 s (SHOAL_TIMEOUT=1)", call, dt);
    CHECK_CONTAINS(msg, call);
    CHECK_CONTAINS(msg, last);
    CHECK_CONTAINS(msg, value);
    CHECK_MSG(test_names_cmp(msg, op, name), "timeout message does not name the comparison (%s or %s): \"%s\"", op,
              name, msg);
    CHECK_MSG(check_strcasestr(msg, "offset") || check_strcasestr(msg, "alloc"),
              "timeout message names neither the heap offset nor the allocation: \"%s\"", msg);
}

static int run_timeout(void)
{
    shoal_t sh;
    int *ti, vi[8] = {0};
    uint64_t *tu, vu[4] = {1, 2, 3, 4};
    size_t index = 5;
    double t0;

    if (!test_init_timeout_or_skip(1u << 20, &sh)) return TEST_SKIP;
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    ti = shoal_calloc(sh, 8, sizeof(int));
    tu = shoal_calloc(sh, 4, sizeof(uint64_t));
    CHECK_NONNULL(ti, sh);
    CHECK_NONNULL(tu, sh);
    vi[3] = 4242;
    test_heap_write(sh, ti, vi, sizeof(vi));
    test_heap_write(sh, tu, vu, sizeof(vu));
    CHECK_OK(shoal_barrier_all(sh), sh);

    t0 = MPI_Wtime();
    CHECK_STATUS(shoal_int_wait_until(sh, &ti[3], SHOAL_CMP_GT, 5000), SHOAL_ERR_TIMEOUT, sh);
    check_timeout_msg(sh, t0, "shoal_int_wait_until", "4242", "5000", ">", "CMP_GT");
    t0 = MPI_Wtime();
    CHECK_STATUS(shoal_uint64_wait_until_any(sh, tu, 4, NULL, SHOAL_CMP_EQ, 99, &index), SHOAL_ERR_TIMEOUT, sh);
    check_timeout_msg(sh, t0, "shoal_uint64_wait_until_any", "1", "99", "==", "CMP_EQ");
    t0 = MPI_Wtime();
    CHECK_STATUS(shoal_int_wait_until_all(sh, ti, 8, NULL, SHOAL_CMP_LE, 100), SHOAL_ERR_TIMEOUT, sh);
    check_timeout_msg(sh, t0, "shoal_int_wait_until_all", "4242", "100", "<=", "CMP_LE");

    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, tu), sh);
    CHECK_OK(shoal_free(sh, ti), sh);
    if (me == 0) check_note("wait timeouts passed on %d PEs", npes);
    CHECK_OK(shoal_finalize(sh), NULL);
    return 0;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int ntypes = 0, rc;

    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
        rc = run_timeout();
        MPI_Finalize();
        return rc;
    }
    test_config(&cfg, 1u << 20);
    if (cfg.timeout == 0 || cfg.timeout > 20) cfg.timeout = 20; /* a wait that misses its store: an error */
    if (!test_init_or_skip(&cfg, &sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    host_heap = test_heap_is_host(sh);
    /* Partners across the halves; with one PE, or the odd one out, none. */
    if (npes == 1 || (npes % 2 && me == npes - 1))
        partner = -1;
    else
        partner = me < npes / 2 ? me + npes / 2 : me - npes / 2;

#define RUN_WAIT(T, N)                                                                                                 \
    test_##N(sh);                                                                                                      \
    ntypes++;
    SHOAL_WAIT_TYPES(RUN_WAIT)
#undef RUN_WAIT
#define RUN_AMO(T, N) test_amo_##N(sh);
    SHOAL_AMO_TYPES(RUN_AMO)
#undef RUN_AMO
    bad_input(sh, cfg.check);

    if (me == 0)
        check_note("wait_until and test: %d types passed on %d PEs (%s heap)", ntypes, npes,
                   host_heap ? "host" : "GPU");
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
