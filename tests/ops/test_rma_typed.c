/*
 * Every typed RMA call (put, get, put_nbi, get_nbi, p, g) for every type of
 * SHOAL_RMA_TYPES and SHOAL_HALF_TYPES moves the right values to and from a
 * neighbour on a ring.
 *
 * Values are 64-bit hashes of (sender, index, operation) converted to the
 * type, so a truncated, mis-sized, misplaced or missing element shows, and
 * the guard elements around each destination must stay untouched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { NE = 13 }; /* elements per transfer: odd, not a power of two */

/* Which transfer a value belongs to. */
enum { V_SRC, V_PUT, V_NBI, V_P, V_SENTINEL };

static uint64_t value_bits(int pe, int i, int op)
{
    return test_mix64(((uint64_t)pe << 40) ^ ((uint64_t)op << 32) ^ (uint64_t)i);
}

/* Symmetric layout of one type's areas; each has a guard element at either end. */
#define AREA(base, k) ((base) + (size_t)(k) * (NE + 2) + 1)

/*
 * test_<name>: for one type T.
 *   src:   my values, read by neighbours with get, get_nbi and g
 *   put:   written by the left neighbour with put (elements 1..NE-2 only)
 *   nbi:   written by the left neighbour with put_nbi
 *   p:     written by the left neighbour element by element with p
 */
#define TYPED_TEST_AS(T, N, MK, EQ, SHOW)                                                                              \
    static void test_##N(shoal_t sh)                                                                                   \
    {                                                                                                                  \
        int me = shoal_my_pe(sh), n = shoal_n_pes(sh);                                                                 \
        int right = (me + 1) % n, left = (me + n - 1) % n;                                                             \
        size_t total = 4 * (NE + 2);                                                                                   \
        T *heap = shoal_malloc(sh, total * sizeof(T));                                                                 \
        T *init = malloc(total * sizeof(T)), *got = malloc(total * sizeof(T));                                         \
        T buf_put[NE], buf_nbi[NE], buf_get[NE], buf_gnbi[NE];                                                         \
        const T sentinel = MK(T, value_bits(-1, 0, V_SENTINEL));                                                       \
                                                                                                                       \
        CHECK_NONNULL(heap, sh);                                                                                       \
        CHECK(init != NULL && got != NULL);                                                                            \
        for (size_t i = 0; i < total; i++) init[i] = sentinel;                                                         \
        for (int i = 0; i < NE; i++) AREA(init, 0)[i] = MK(T, value_bits(me, i, V_SRC));                               \
        test_heap_write(sh, heap, init, total * sizeof(T));                                                            \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
                                                                                                                       \
        /* puts into the right neighbour */                                                                            \
        for (int i = 0; i < NE; i++) {                                                                                 \
            buf_put[i] = MK(T, value_bits(me, i, V_PUT));                                                              \
            buf_nbi[i] = MK(T, value_bits(me, i, V_NBI));                                                              \
        }                                                                                                              \
        CHECK_OK(shoal_##N##_put(sh, AREA(heap, 1) + 1, buf_put + 1, NE - 2, right), sh);                              \
        CHECK_OK(shoal_##N##_put_nbi(sh, AREA(heap, 2), buf_nbi, NE, right), sh);                                      \
        for (int i = 0; i < NE; i++)                                                                                   \
            CHECK_OK(shoal_##N##_p(sh, AREA(heap, 3) + i, MK(T, value_bits(me, i, V_P)), right), sh);                  \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                           \
                                                                                                                       \
        /* what the left neighbour put into me */                                                                      \
        test_heap_read(sh, got, heap, total * sizeof(T));                                                              \
        for (int k = 0; k < 4; k++) {                                                                                  \
            CHECK_MSG(EQ(AREA(got, k)[-1], sentinel) && EQ(AREA(got, k)[NE], sentinel),                                \
                      #N ": guard around area %d overwritten", k);                                                     \
        }                                                                                                              \
        for (int i = 0; i < NE; i++) {                                                                                 \
            T e_src = MK(T, value_bits(me, i, V_SRC));                                                                 \
            T e_put = (i == 0 || i == NE - 1) ? sentinel : MK(T, value_bits(left, i, V_PUT));                          \
            T e_nbi = MK(T, value_bits(left, i, V_NBI)), e_p = MK(T, value_bits(left, i, V_P));                        \
            CHECK_MSG(EQ(AREA(got, 0)[i], e_src), #N " src[%d] changed: %.21Lg != %.21Lg", i, SHOW(AREA(got, 0)[i]),   \
                      SHOW(e_src));                                                                                    \
            CHECK_MSG(EQ(AREA(got, 1)[i], e_put), "shoal_" #N "_put from pe %d: [%d] = %.21Lg, expected %.21Lg", left, \
                      i, SHOW(AREA(got, 1)[i]), SHOW(e_put));                                                          \
            CHECK_MSG(EQ(AREA(got, 2)[i], e_nbi), "shoal_" #N "_put_nbi from pe %d: [%d] = %.21Lg, expected %.21Lg",   \
                      left, i, SHOW(AREA(got, 2)[i]), SHOW(e_nbi));                                                    \
            CHECK_MSG(EQ(AREA(got, 3)[i], e_p), "shoal_" #N "_p from pe %d: [%d] = %.21Lg, expected %.21Lg", left, i,  \
                      SHOW(AREA(got, 3)[i]), SHOW(e_p));                                                               \
        }                                                                                                              \
                                                                                                                       \
        /* gets from the right (blocking, g) and the left (nbi) neighbour's src */                                     \
        for (int i = 0; i < NE; i++) buf_get[i] = buf_gnbi[i] = sentinel;                                              \
        CHECK_OK(shoal_##N##_get(sh, buf_get, AREA(heap, 0), NE, right), sh);                                          \
        CHECK_OK(shoal_##N##_get_nbi(sh, buf_gnbi + 1, AREA(heap, 0) + 1, NE - 2, left), sh);                          \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                 \
        for (int i = 0; i < NE; i++) {                                                                                 \
            T e_get = MK(T, value_bits(right, i, V_SRC)), v = sentinel;                                                \
            T e_gnbi = (i == 0 || i == NE - 1) ? sentinel : MK(T, value_bits(left, i, V_SRC));                         \
            CHECK_OK(shoal_##N##_g(sh, &v, AREA(heap, 0) + i, right), sh);                                             \
            CHECK_MSG(EQ(buf_get[i], e_get), "shoal_" #N "_get from pe %d: [%d] = %.21Lg, expected %.21Lg", right, i,  \
                      SHOW(buf_get[i]), SHOW(e_get));                                                                  \
            CHECK_MSG(EQ(buf_gnbi[i], e_gnbi), "shoal_" #N "_get_nbi from pe %d: [%d] = %.21Lg, expected %.21Lg",      \
                      left, i, SHOW(buf_gnbi[i]), SHOW(e_gnbi));                                                       \
            CHECK_MSG(EQ(v, e_get), "shoal_" #N "_g from pe %d: [%d] = %.21Lg, expected %.21Lg", right, i, SHOW(v),    \
                      SHOW(e_get));                                                                                    \
        }                                                                                                              \
                                                                                                                       \
        CHECK_OK(shoal_barrier_all(sh), sh); /* neighbours are done reading my src */                                  \
        CHECK_OK(shoal_free(sh, heap), sh);                                                                            \
        free(init);                                                                                                    \
        free(got);                                                                                                     \
    }
/* The arithmetic types: values as they convert; the 16-bit floating ones:
 * their bits (shown as a number). */
#define AS_NUM(T, u) ((T)(u))
#define EQ_NUM(a, b) ((a) == (b))
#define SHOW_NUM(x) ((long double)(x))
#define AS_BITS(T, u) ((T){(uint16_t)(u)})
#define EQ_BITS(a, b) ((a).bits == (b).bits)
#define SHOW_BITS(x) ((long double)(x).bits)
#define TYPED_TEST(T, N) TYPED_TEST_AS(T, N, AS_NUM, EQ_NUM, SHOW_NUM)
#define HALF_TEST(T, N) TYPED_TEST_AS(T, N, AS_BITS, EQ_BITS, SHOW_BITS)
SHOAL_RMA_TYPES(TYPED_TEST)
SHOAL_HALF_TYPES(HALF_TEST)
#undef TYPED_TEST
#undef HALF_TEST
#undef TYPED_TEST_AS

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int ntypes = 0;

    MPI_Init(&argc, &argv);
    test_config(&cfg, 0);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);

#define RUN_TYPED_TEST(T, N)                                                                                           \
    test_##N(sh);                                                                                                      \
    ntypes++;
    SHOAL_RMA_TYPES(RUN_TYPED_TEST)
    SHOAL_HALF_TYPES(RUN_TYPED_TEST)
#undef RUN_TYPED_TEST

    if (shoal_my_pe(sh) == 0)
        check_note("typed put/get/put_nbi/get_nbi/p/g: %d types passed on %d PEs", ntypes, shoal_n_pes(sh));
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
