/*
 * Strided and 2-D transfers: shoal_<T>_iput/iget for every type of
 * SHOAL_RMA_TYPES, the sized shoal_iput<N>/iget<N>, shoal_put_2d and
 * shoal_get_2d, between neighbours on a ring.
 *
 * Each type moves columns of a row-major grid, as a 2-D Jacobi solver's
 * halo exchange does: a column of its own grid (the heap as the local side)
 * into the right neighbour's halo column, columns from local arrays with
 * other strides, and columns of the right neighbour's grid back with iget.
 * The 2-D calls move sub-rectangles with different pitches on both sides.
 * Every element that crossed PEs is checked, and so is every element
 * between them: none may change. Then the mistakes, each with its status
 * and message (naming the call): strides below 1, a pitch below the width,
 * spans past their allocation or the heap, spans that overflow, NULL
 * buffers, a PE out of range, local rows that share bytes with the remote
 * ones; and, with SHOAL_CHECK=full, a strided read of elements put without
 * a quiet (while elements between them are free to read).
 *
 * The heap is only read and written through the API (tests/common), so the
 * test runs on GPU heaps too (SHOAL_HEAP_KIND=gpu: skipped where there is
 * no GPU).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { NR = 9, NC = 6 };   /* grid rows and columns */
enum { SST = 3, LDS = 2 }; /* element strides of a local iput source and a local iget destination */
enum { RH = 16, RP = 40 }; /* 2-D areas: rows and pitch in bytes (3 areas: 30 x 64 bytes) */
enum { V_GRID, V_LOC, V_ROWS, V_SENTINEL };

static int me, npes, right, left;

static uint64_t value_bits(int pe, int i, int op)
{
    return test_mix64(((uint64_t)(pe + 1) << 40) ^ ((uint64_t)op << 32) ^ (uint64_t)i);
}

/* Grid areas of one type's allocation: G is each PE's grid (read by its
 * neighbours, a local source for its own iputs), P receives the left
 * neighbour's iputs, Q this PE's igets. */
#define AREA_G(b) (b)
#define AREA_P(b) ((b) + NR * NC)
#define AREA_Q(b) ((b) + 2 * NR * NC)

#define STRIDED_TEST(T, N)                                                                                               \
    static void test_##N(shoal_t sh)                                                                                     \
    {                                                                                                                    \
        const size_t total = 3 * NR * NC;                                                                                \
        const T sentinel = (T)value_bits(-2, 0, V_SENTINEL);                                                             \
        T *heap = shoal_malloc(sh, total * sizeof(T));                                                                   \
        T *img = malloc(total * sizeof(T));                                                                              \
        T loc[NR * SST], col[NR * LDS];                                                                                  \
                                                                                                                         \
        CHECK_NONNULL(heap, sh);                                                                                         \
        CHECK(img != NULL);                                                                                              \
        for (size_t i = 0; i < total; i++) img[i] = i < NR * NC ? (T)value_bits(me, (int)i, V_GRID) : sentinel;          \
        test_heap_write(sh, heap, img, total * sizeof(T));                                                               \
        for (int i = 0; i < NR * SST; i++) loc[i] = i % SST == 0 ? (T)value_bits(me, i / SST, V_LOC) : sentinel;         \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                             \
                                                                                                                         \
        /* Into the right neighbour's P: my grid's column NC-2 (the heap as the                                        \
         * source) into its halo column 0; rows 1..NR-2 of its column 3 from a                                         \
         * local array of stride SST; every other row of its column NC-1 from                                          \
         * the contiguous start of my grid's row 0. */ \
        CHECK_OK(shoal_##N##_iput(sh, AREA_P(heap), AREA_G(heap) + NC - 2, NC, NC, NR, right), sh);                      \
        CHECK_OK(shoal_##N##_iput(sh, AREA_P(heap) + NC + 3, loc, NC, SST, NR - 2, right), sh);                          \
        CHECK_OK(shoal_##N##_iput(sh, AREA_P(heap) + NC - 1, AREA_G(heap), 2 * NC, 1, (NR + 1) / 2, right), sh);         \
        CHECK_OK(shoal_quiet(sh), sh);                                                                                   \
        CHECK_OK(shoal_barrier_all(sh), sh);                                                                             \
                                                                                                                         \
        test_heap_read(sh, img, heap, total * sizeof(T));                                                                \
        for (int i = 0; i < NR * NC; i++) {                                                                              \
            int r = i / NC, c = i % NC;                                                                                  \
            T e = sentinel;                                                                                              \
            if (c == 0) e = (T)value_bits(left, r * NC + NC - 2, V_GRID);                                                \
            if (c == 3 && r >= 1 && r <= NR - 2) e = (T)value_bits(left, r - 1, V_LOC);                                  \
            if (c == NC - 1 && r % 2 == 0) e = (T)value_bits(left, r / 2, V_GRID);                                       \
            CHECK_MSG(AREA_P(img)[i] == e, "shoal_" #N "_iput from PE %d: row %d column %d = %.21Lg, expected %.21Lg",   \
                      left, r, c, (long double)AREA_P(img)[i], (long double)e);                                          \
            CHECK_MSG(AREA_G(img)[i] == (T)value_bits(me, i, V_GRID), #N ": my grid changed at row %d column %d", r,     \
                      c);                                                                                                \
        }                                                                                                                \
                                                                                                                         \
        /* From the right neighbour's grid: column 1 into a local array of                                             \
         * stride LDS; column NC-2 into my Q's column NC-1 (the heap as the                                            \
         * destination); rows 0, 3, 6 of its column 2 into Q's column 0, rows                                          \
         * 0..2. */ \
        for (int i = 0; i < NR * LDS; i++) col[i] = sentinel;                                                            \
        CHECK_OK(shoal_##N##_iget(sh, col, AREA_G(heap) + 1, LDS, NC, NR, right), sh);                                   \
        CHECK_OK(shoal_##N##_iget(sh, AREA_Q(heap) + NC - 1, AREA_G(heap) + NC - 2, NC, NC, NR, right), sh);             \
        CHECK_OK(shoal_##N##_iget(sh, AREA_Q(heap), AREA_G(heap) + 2, NC, 3 * NC, 3, right), sh);                        \
        for (int i = 0; i < NR * LDS; i++) {                                                                             \
            T e = i % LDS == 0 ? (T)value_bits(right, (i / LDS) * NC + 1, V_GRID) : sentinel;                            \
            CHECK_MSG(col[i] == e, "shoal_" #N "_iget from PE %d: local [%d] = %.21Lg, expected %.21Lg", right, i,       \
                      (long double)col[i], (long double)e);                                                              \
        }                                                                                                                \
        test_heap_read(sh, img, heap, total * sizeof(T));                                                                \
        for (int i = 0; i < NR * NC; i++) {                                                                              \
            int r = i / NC, c = i % NC;                                                                                  \
            T e = sentinel;                                                                                              \
            if (c == NC - 1) e = (T)value_bits(right, r * NC + NC - 2, V_GRID);                                          \
            if (c == 0 && r < 3) e = (T)value_bits(right, 3 * r * NC + 2, V_GRID);                                       \
            CHECK_MSG(AREA_Q(img)[i] == e, "shoal_" #N "_iget from PE %d: row %d column %d = %.21Lg, expected %.21Lg",   \
                      right, r, c, (long double)AREA_Q(img)[i], (long double)e);                                         \
        }                                                                                                                \
                                                                                                                         \
        CHECK_OK(shoal_barrier_all(sh), sh); /* neighbours are done reading my grid */                                   \
        CHECK_OK(shoal_free(sh, heap), sh);                                                                              \
        free(img);                                                                                                       \
    }
SHOAL_RMA_TYPES(STRIDED_TEST)
#undef STRIDED_TEST

/* Row r of pe's pattern in the 2-D areas (bytes [r * RP, + RP)). */
static void rows_pattern(void *dst, int pe, int tag, size_t start, size_t n)
{
    test_pattern(dst, start, n, 4242, (uint64_t)pe, (uint64_t)tag);
}

/* The 2-D calls and the sized strided ones. R receives the left
 * neighbour's puts, S holds each PE's pattern (read by the left
 * neighbour's gets), W is for transfers within this PE. */
static void test_2d(shoal_t sh)
{
    const size_t area = RH * RP;
    unsigned char *heap = shoal_malloc(sh, 3 * area), *R = heap, *S = heap + area, *W = heap + 2 * area;
    unsigned char img[3 * RH * RP], exp[RH * RP], src[6 * 17], dst[7 * 23], sized[64], want[64];
    uint64_t wide[8];

    CHECK_NONNULL(heap, sh);
    memset(img, 0xEE, area);
    rows_pattern(img + area, me, V_ROWS, 0, area);
    rows_pattern(img + 2 * area, me, V_GRID, 0, area);
    test_heap_write(sh, heap, img, 3 * area);
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* A 13 x 6 rectangle from a local buffer of pitch 17 to (row 2, byte 5)
     * of the right neighbour's R (pitch RP); a whole last row (pitch = width
     * on both sides: one contiguous put); ten bytes into every third byte of
     * its row 0 (iput8). */
    rows_pattern(src, me, V_LOC, 0, sizeof(src));
    CHECK_OK(shoal_put_2d(sh, R + 2 * RP + 5, RP, src, 17, 13, 6, right), sh);
    CHECK_OK(shoal_put_2d(sh, R + (RH - 1) * RP, RP, S + RP, RP, RP, 1, right), sh);
    CHECK_OK(shoal_iput8(sh, R, src, 3, 1, 10, right), sh);
    /* iput64 of every other word of my pattern into the words of row 1 after byte 8. */
    CHECK_OK(shoal_iput64(sh, R + RP + 8, S, 1, 2, 3, right), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);

    {
        unsigned char lsrc[6 * 17], lS[RH * RP];
        rows_pattern(lsrc, left, V_LOC, 0, sizeof(lsrc));
        rows_pattern(lS, left, V_ROWS, 0, sizeof(lS));
        memset(exp, 0xEE, sizeof(exp));
        for (int r = 0; r < 6; r++) memcpy(exp + (2 + r) * RP + 5, lsrc + r * 17, 13);
        memcpy(exp + (RH - 1) * RP, lS + RP, RP);
        for (int i = 0; i < 10; i++) exp[i * 3] = lsrc[i];
        for (int i = 0; i < 3; i++) memcpy(exp + RP + 8 + i * 8, lS + i * 16, 8);
    }
    test_heap_read(sh, img, heap, 3 * area);
    for (size_t i = 0; i < area; i++)
        CHECK_MSG(img[i] == exp[i],
                  "shoal_put_2d/iput from PE %d: byte %zu (row %zu, byte %zu) = 0x%02x, expected 0x%02x", left, i,
                  i / RP, i % RP, img[i], exp[i]);

    /* An 11 x 7 rectangle at (row 1, byte 3) of the right neighbour's S
     * into a local buffer of pitch 23; iget128 of every other 16 bytes of its
     * S into a contiguous buffer; a 5 x 4 rectangle of its S into my W at
     * (row 5, byte 30), pitch RP both sides. */
    {
        unsigned char rS[RH * RP], wexp[RH * RP];
        rows_pattern(rS, right, V_ROWS, 0, sizeof(rS));
        memset(dst, 0xCC, sizeof(dst));
        CHECK_OK(shoal_get_2d(sh, dst, 23, S + RP + 3, RP, 11, 7, right), sh);
        for (size_t i = 0; i < sizeof(dst); i++) {
            size_t r = i / 23, c = i % 23;
            unsigned char e = c < 11 ? rS[(1 + r) * RP + 3 + c] : 0xCC;
            CHECK_MSG(dst[i] == e,
                      "shoal_get_2d from PE %d: local byte %zu (row %zu, byte %zu) = 0x%02x, expected 0x%02x", right, i,
                      r, c, dst[i], e);
        }
        memset(sized, 0xCC, sizeof(sized));
        CHECK_OK(shoal_iget128(sh, sized, S, 1, 2, 4, right), sh);
        for (int i = 0; i < 4; i++) memcpy(want + 16 * i, rS + 32 * i, 16);
        CHECK_MEM_EQ(sized, want, sizeof(sized));

        CHECK_OK(shoal_get_2d(sh, W + 5 * RP + 30, RP, S + 2 * RP + 1, RP, 5, 4, right), sh);
        rows_pattern(wexp, me, V_GRID, 0, sizeof(wexp));
        for (int r = 0; r < 4; r++) memcpy(wexp + (5 + r) * RP + 30, rS + (2 + r) * RP + 1, 5);
        test_heap_read(sh, img, heap, 3 * area);
        CHECK_MEM_EQ(img + 2 * area, wexp, sizeof(wexp));
    }

    /* Within this PE: rows and elements may interleave (columns of one
     * grid) but not share bytes. */
    {
        unsigned char wexp[RH * RP];
        memcpy(wexp, img + 2 * area, sizeof(wexp));
        CHECK_OK(shoal_put_2d(sh, W + 8, RP, W, RP, 8, 4, me), sh);
        for (int r = 0; r < 4; r++) memcpy(wexp + r * RP + 8, wexp + r * RP, 8);
        CHECK_OK(shoal_iget32(sh, W + 4 * RP + 4, W + 4 * RP, 2, 2, 5, me), sh);
        for (int i = 0; i < 5; i++) memcpy(wexp + 4 * RP + 4 + 8 * i, wexp + 4 * RP + 8 * i, 4);
        CHECK_OK(shoal_quiet(sh), sh);
        test_heap_read(sh, img, heap, 3 * area);
        CHECK_MEM_EQ(img + 2 * area, wexp, sizeof(wexp));
        CHECK_ERR(shoal_put_2d(sh, W + 4, RP, W, RP, 8, 3, me), SHOAL_ERR_INVALID_ARG, sh, "overlap");
        CHECK_CONTAINS(shoal_last_error(sh), "shoal_put_2d");
        CHECK_ERR(shoal_get_2d(sh, W + RP, RP, W, 2 * RP, 8, 2, me), SHOAL_ERR_INVALID_ARG, sh, "overlap");
        CHECK_ERR(shoal_iget32(sh, W + 4, W, 1, 2, 5, me), SHOAL_ERR_INVALID_ARG, sh, "shoal_iget32");
        CHECK_CONTAINS(shoal_last_error(sh), "overlap");
        test_heap_read(sh, img, heap, 3 * area);
        CHECK_MEM_EQ(img + 2 * area, wexp, sizeof(wexp)); /* the refused calls moved nothing */
    }

    /* The mistakes; the right neighbour's areas are the targets. */
    memset(wide, 0, sizeof(wide));
    CHECK_ERR(shoal_uint64_iput(sh, (uint64_t *)R, wide, 0, 1, 4, right), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_uint64_iput: destination stride dst = 0 is not positive");
    CHECK_ERR(shoal_int_iget(sh, (int *)sized, (int *)S, 1, -2, 4, right), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_int_iget: source stride sst = -2 is not positive");
    CHECK_ERR(shoal_iput16(sh, R, wide, 1, 0, 4, right), SHOAL_ERR_INVALID_ARG, sh, "sst = 0");
    CHECK_ERR(shoal_double_iput(sh, (double *)R, (double *)wide, PTRDIFF_MAX, 1, 2, right), SHOAL_ERR_INVALID_ARG, sh,
              "overflows size_t");
    CHECK_ERR(shoal_iput8(sh, R, wide, 2, 1, SIZE_MAX, right), SHOAL_ERR_INVALID_ARG, sh,
              "span more than SIZE_MAX bytes");
    CHECK_ERR(shoal_put_2d(sh, R, 4, src, 17, 8, 2, right), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_put_2d: dpitch 4 is less than width 8");
    CHECK_ERR(shoal_get_2d(sh, dst, 23, S, 7, 8, 2, right), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_get_2d: spitch 7 is less than width 8");
    CHECK_ERR(shoal_put_2d(sh, R, SIZE_MAX / 2, src, 17, 8, 3, right), SHOAL_ERR_INVALID_ARG, sh, "SIZE_MAX");
    /* The last row (element) runs past the block: the span is checked, first
     * byte to the last row's end. */
    CHECK_ERR(shoal_put_2d(sh, W + RP + 5, RP, src, 17, 13, RH, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "run 18 bytes past the end of their allocation");
    CHECK_CONTAINS(shoal_last_error(sh), "shoal_put_2d");
    CHECK_CONTAINS(shoal_last_error(sh), "destination span");
    CHECK_ERR(shoal_uint64_iget(sh, wide, (uint64_t *)(W + RP * RH - 8), 1, 1, 2, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "shoal_uint64_iget");
    CHECK_CONTAINS(shoal_last_error(sh), "run 8 bytes past the end of their allocation");
    CHECK_CONTAINS(shoal_last_error(sh), "source span (first to last element)");
    CHECK_ERR(shoal_short_iput(sh, (short *)R, (short *)wide, 1000, 1, 4, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "shoal_short_iput");
    CHECK_ERR(shoal_get_2d(sh, dst, 23, exp, RP, 8, 2, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "shoal_get_2d: source span");
    CHECK_CONTAINS(shoal_last_error(sh), "not in the symmetric heap");
    /* NULL buffers, a PE out of range */
    CHECK_ERR(shoal_int_iput(sh, (int *)R, NULL, 1, 1, 2, right), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_int_iput: source buffer is NULL");
    CHECK_ERR(shoal_iget64(sh, NULL, S, 1, 1, 2, right), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_iget64: destination buffer is NULL");
    CHECK_ERR(shoal_put_2d(sh, NULL, RP, src, 17, 8, 2, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "shoal_put_2d: destination is NULL");
    CHECK_ERR(shoal_get_2d(sh, dst, 23, NULL, RP, 8, 2, right), SHOAL_ERR_OUT_OF_BOUNDS, sh, "source is NULL");
    CHECK_ERR(shoal_float_iget(sh, (float *)sized, (float *)S, 1, 1, 2, npes), SHOAL_ERR_PE, sh,
              "shoal_float_iget: pe");
    CHECK_ERR(shoal_put_2d(sh, R, RP, src, 17, 8, 2, -1), SHOAL_ERR_PE, sh, "out of range");
    /* Nothing to move: success, wherever the buffers point (the PE and the
     * strides are still checked). */
    CHECK_OK(shoal_int_iput(sh, NULL, NULL, 1, 1, 0, right), sh);
    CHECK_OK(shoal_get_2d(sh, NULL, 8, NULL, 8, 8, 0, right), sh);
    CHECK_OK(shoal_put_2d(sh, NULL, 0, NULL, 0, 0, 5, right), sh);
    CHECK_ERR(shoal_int_iget(sh, NULL, NULL, 0, 1, 0, right), SHOAL_ERR_INVALID_ARG, sh, "dst = 0");
    CHECK_ERR(shoal_iget8(sh, NULL, NULL, 1, 1, 0, npes), SHOAL_ERR_PE, sh, "out of range");

    /* The refused calls moved nothing. */
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, img, heap, area);
    CHECK_MEM_EQ(img, exp, area);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, heap), sh);
}

/* SHOAL_CHECK=full: a strided read of elements put without a quiet since is
 * refused; the elements between them were never put, and read freely. */
static void test_full(shoal_t sh)
{
    int *grid = shoal_calloc(sh, NR * NC, sizeof(int)), col[NR];

    CHECK_NONNULL(grid, sh);
    for (int i = 0; i < NR; i++) col[i] = me * 100 + i;
    CHECK_OK(shoal_int_iput(sh, grid + 1, col, NC, 1, NR, right), sh);
    CHECK_ERR(shoal_int_iget(sh, col, grid + 1 + 2 * NC, 1, NC, 2, right), SHOAL_ERR_ORDER, sh, "shoal_int_iget");
    CHECK_ERR(shoal_get_2d(sh, col, 8, grid, NC * sizeof(int), 8, 3, right), SHOAL_ERR_ORDER, sh, "shoal_get_2d");
    CHECK_OK(shoal_int_iget(sh, col, grid + 2, 1, NC, NR, right), sh);
    CHECK_OK(shoal_get_2d(sh, col, 4, grid, NC * sizeof(int), 4, NR, right), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_int_iget(sh, col, grid + 1, 1, NC, NR, right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    CHECK_OK(shoal_free(sh, grid), sh);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int ntypes = 0;

    MPI_Init(&argc, &argv);
    test_config(&cfg, 1u << 20);
    if (!test_init_or_skip(&cfg, &sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

#define RUN_STRIDED_TEST(T, N)                                                                                         \
    test_##N(sh);                                                                                                      \
    ntypes++;
    SHOAL_RMA_TYPES(RUN_STRIDED_TEST)
#undef RUN_STRIDED_TEST
    test_2d(sh);
    if (cfg.check == SHOAL_CHECK_FULL) test_full(sh);

    if (me == 0)
        check_note("iput/iget: %d types, put_2d/get_2d, sized and mistakes passed on %d PEs (%s heap%s)", ntypes, npes,
                   shoal_heap_kind(sh) == SHOAL_HEAP_GPU ? "GPU" : "host",
                   cfg.check == SHOAL_CHECK_FULL ? ", SHOAL_CHECK=full" : "");
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
