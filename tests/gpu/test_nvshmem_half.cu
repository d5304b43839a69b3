/* NVSHMEM's half and bfloat16 host forms (api/nvshmem/nvshmem.h), called
 * from C++ with CUDA's own __half and __nv_bfloat16, on the host heap
 * (SHOAL_HEAP_KIND=host: no GPU needed). The library defines these forms
 * in C over shoal_half_t and shoal_bfloat16_t; called here with CUDA's
 * types, passed and returned by value, they check that both agree on the
 * calling convention. Every value is exact and checked by its bits:
 *   - p to the right neighbour and g from it; put, put_nbi and iput into
 *     it, get, get_nbi and iget from it; put_signal and put_signal_nbi
 *     with signal_wait_until, around the ring;
 *   - broadcast (from the last PE), fcollect, alltoall on the world;
 *   - sum, prod, min and max reductions and reduce-scatters, and sums that
 *     round (member 0's 1 or its successor plus member 1's half step: ties,
 *     to the even neighbour, down then up; the other members give 0), on
 *     the world and on the even PEs' team.
 * Built by nvcc (C++ with cuda_fp16.h and cuda_bf16.h) where CUDA is. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "nvshmem.h"
#include "nvshmemx.h"
extern "C" {
#include "common/check.h"
}

template <typename T> static uint16_t bits(T v)
{
    uint16_t u;
    static_assert(sizeof(T) == 2, "a 16-bit type");
    memcpy(&u, &v, sizeof(u));
    return u;
}

template <typename T> static T of_bits(uint16_t u)
{
    T v;
    memcpy(&v, &u, sizeof(v));
    return v;
}

static float tof(__half v) { return __half2float(v); }
static float tof(__nv_bfloat16 v) { return __bfloat162float(v); }

/* X(T, N, MK: from float, ONE: 1's bits, TIE: half a step of 1 (2^-11,
 * 2^-8)). */
#define HALF_TYPES(X)                                                                                                  \
    X(__half, half, __float2half, 0x3c00, 0x1000)                                                                      \
    X(__nv_bfloat16, bfloat16, __float2bfloat16, 0x3f80, 0x3b80)

#define EXPECT(N, what, got, want)                                                                                     \
    CHECK_MSG(bits(got) == bits(want), "nvshmem_" #N "_%s: %g (bits %#06x), expected %g (bits %#06x)", what,           \
              (double)tof(got), bits(got), (double)tof(want), bits(want))

#define HALF_CHECKS(T, N, MK, ONE, TIE)                                                                                  \
    /* RMA around the ring. */                                                                                           \
    static void rma_##N(int me, int n)                                                                                   \
    {                                                                                                                    \
        int right = (me + 1) % n, left = (me + n - 1) % n;                                                               \
        T *a = (T *)nvshmem_calloc(64, sizeof(T)), mine[8], got[8];                                                      \
        uint64_t *sig = (uint64_t *)nvshmem_calloc(2, sizeof(uint64_t));                                                 \
        CHECK(a != NULL && sig != NULL);                                                                                 \
        for (int k = 0; k < 8; k++) mine[k] = MK(me * 8 + k + 0.5f);                                                     \
        nvshmem_##N##_p(&a[0], MK(me + 0.25f), right);                                                                   \
        nvshmem_##N##_put(a + 8, mine, 8, right);                                                                        \
        nvshmem_##N##_put_nbi(a + 16, mine, 8, right);                                                                   \
        nvshmem_##N##_iput(a + 24, mine, 2, 2, 4, right); /* mine[0, 2, 4, 6] to a[24, 26, 28, 30] */                    \
        nvshmem_quiet();                                                                                                 \
        nvshmem_barrier_all();                                                                                           \
        EXPECT(N, "p", a[0], MK(left + 0.25f));                                                                          \
        EXPECT(N, "g", nvshmem_##N##_g(&a[0], right), MK(me + 0.25f));                                                   \
        for (int k = 0; k < 8; k++) {                                                                                    \
            EXPECT(N, "put", a[8 + k], MK(left * 8 + k + 0.5f));                                                         \
            EXPECT(N, "put_nbi", a[16 + k], MK(left * 8 + k + 0.5f));                                                    \
            EXPECT(N, "iput", a[24 + k], k % 2 ? of_bits<T>(0) : MK(left * 8 + k + 0.5f));                               \
        }                                                                                                                \
        /* right's a[8..24) came from me */                                                                              \
        nvshmem_##N##_get(got, a + 8, 8, right);                                                                         \
        for (int k = 0; k < 8; k++) EXPECT(N, "get", got[k], mine[k]);                                                   \
        memset(got, 0, sizeof(got));                                                                                     \
        nvshmem_##N##_get_nbi(got, a + 16, 8, right);                                                                    \
        nvshmem_quiet();                                                                                                 \
        for (int k = 0; k < 8; k++) EXPECT(N, "get_nbi", got[k], mine[k]);                                               \
        nvshmem_##N##_iget(got, a + 8, 1, 2, 4, right);                                                                  \
        for (int k = 0; k < 4; k++) EXPECT(N, "iget", got[k], mine[2 * k]);                                              \
        nvshmem_barrier_all();                                                                                           \
        nvshmem_##N##_put_signal(a + 32, mine, 8, &sig[0], (uint64_t)me + 1, NVSHMEM_SIGNAL_SET, right);                 \
        nvshmem_##N##_put_signal_nbi(a + 40, mine + 4, 4, &sig[1], 5, NVSHMEM_SIGNAL_ADD, right);                        \
        CHECK(nvshmem_signal_wait_until(&sig[0], NVSHMEM_CMP_EQ, (uint64_t)left + 1) == (uint64_t)left + 1);             \
        CHECK(nvshmem_signal_wait_until(&sig[1], NVSHMEM_CMP_EQ, 5) == 5);                                               \
        for (int k = 0; k < 8; k++) EXPECT(N, "put_signal", a[32 + k], MK(left * 8 + k + 0.5f));                         \
        for (int k = 0; k < 4; k++) EXPECT(N, "put_signal_nbi", a[40 + k], MK(left * 8 + 4 + k + 0.5f));                 \
        nvshmem_barrier_all();                                                                                           \
        nvshmem_free(sig);                                                                                               \
        nvshmem_free(a);                                                                                                 \
    }                                                                                                                    \
                                                                                                                         \
    /* broadcast, fcollect, alltoall on the world. */                                                                    \
    static void moves_##N(int me, int n)                                                                                 \
    {                                                                                                                    \
        T *s = (T *)nvshmem_malloc(16 * sizeof(T)), *d = (T *)nvshmem_malloc(16 * (size_t)n * sizeof(T));                \
        CHECK(s != NULL && d != NULL);                                                                                   \
        for (int k = 0; k < 16; k++) s[k] = MK(me * 16 + k);                                                             \
        nvshmem_barrier_all();                                                                                           \
        CHECK_EQ_INT(nvshmem_##N##_broadcast(NVSHMEM_TEAM_WORLD, d, s, 4, n - 1), 0);                                    \
        for (int k = 0; k < 4; k++) EXPECT(N, "broadcast", d[k], MK((n - 1) * 16 + k));                                  \
        nvshmem_sync_all();                                                                                              \
        CHECK_EQ_INT(nvshmem_##N##_fcollect(NVSHMEM_TEAM_WORLD, d, s, 4), 0);                                            \
        for (int i = 0; i < n; i++)                                                                                      \
            for (int k = 0; k < 4; k++) EXPECT(N, "fcollect", d[i * 4 + k], MK(i * 16 + k));                             \
        nvshmem_sync_all();                                                                                              \
        CHECK_EQ_INT(nvshmem_##N##_alltoall(NVSHMEM_TEAM_WORLD, d, s, 2), 0);                                            \
        for (int i = 0; i < n; i++)                                                                                      \
            for (int k = 0; k < 2; k++) EXPECT(N, "alltoall", d[i * 2 + k], MK(i * 16 + me * 2 + k));                    \
        nvshmem_barrier_all();                                                                                           \
        nvshmem_free(d);                                                                                                 \
        nvshmem_free(s);                                                                                                 \
    }                                                                                                                    \
                                                                                                                         \
    /* Reductions on team (every PE allocates; members reduce). Member i                                               \
     * gives i + k (sum), 2 or i + 1 (prod), (3i + k) mod 5 - 2 (min, max). */ \
    static void reduce_##N(nvshmem_team_t team)                                                                          \
    {                                                                                                                    \
        T *s = (T *)nvshmem_malloc(16 * sizeof(T)), *d = (T *)nvshmem_malloc(16 * sizeof(T));                            \
        int tm = nvshmem_team_my_pe(team), tn = nvshmem_team_n_pes(team);                                                \
        CHECK(s != NULL && d != NULL);                                                                                   \
        if (team != NVSHMEM_TEAM_INVALID) {                                                                              \
            for (int k = 0; k < 4; k++) s[k] = MK(tm + k);                                                               \
            CHECK_EQ_INT(nvshmem_##N##_sum_reduce(team, d, s, 4), 0);                                                    \
            for (int k = 0; k < 4; k++) EXPECT(N, "sum_reduce", d[k], MK(tn *(tn - 1) / 2 + tn * k));                    \
            for (int k = 0; k < 4; k++) s[k] = MK(k == 0 ? 2 : tm + 1);                                                  \
            CHECK_EQ_INT(nvshmem_##N##_prod_reduce(team, d, s, 4), 0);                                                   \
            float f = 1;                                                                                                 \
            for (int i = 1; i <= tn; i++) f *= (float)i;                                                                 \
            EXPECT(N, "prod_reduce", d[0], MK((float)(1 << tn)));                                                        \
            for (int k = 1; k < 4; k++) EXPECT(N, "prod_reduce", d[k], MK(f));                                           \
            for (int k = 0; k < 4; k++) s[k] = MK((float)((3 * tm + k) % 5 - 2));                                        \
            CHECK_EQ_INT(nvshmem_##N##_min_reduce(team, d, s, 4), 0);                                                    \
            for (int k = 0; k < 4; k++) {                                                                                \
                int lo = 9;                                                                                              \
                for (int i = 0; i < tn; i++) lo = (3 * i + k) % 5 - 2 < lo ? (3 * i + k) % 5 - 2 : lo;                   \
                EXPECT(N, "min_reduce", d[k], MK((float)lo));                                                            \
            }                                                                                                            \
            CHECK_EQ_INT(nvshmem_##N##_max_reduce(team, d, s, 4), 0);                                                    \
            for (int k = 0; k < 4; k++) {                                                                                \
                int hi = -9;                                                                                             \
                for (int i = 0; i < tn; i++) hi = (3 * i + k) % 5 - 2 > hi ? (3 * i + k) % 5 - 2 : hi;                   \
                EXPECT(N, "max_reduce", d[k], MK((float)hi));                                                            \
            }                                                                                                            \
            /* rounding: 1 + half a step, (1 + a step) + half a step: ties to the even neighbour */                      \
            s[0] = tm == 0 ? of_bits<T>(ONE) : tm == 1 ? of_bits<T>(TIE) : MK(0.0f);                                     \
            s[1] = tm == 0 ? of_bits<T>(ONE + 1) : tm == 1 ? of_bits<T>(TIE) : MK(0.0f);                                 \
            CHECK_EQ_INT(nvshmem_##N##_sum_reduce(team, d, s, 2), 0);                                                    \
            EXPECT(N, "sum_reduce (a tie, down)", d[0], of_bits<T>(ONE));                                                \
            EXPECT(N, "sum_reduce (a tie, up)", d[1], of_bits<T>(tn == 1 ? ONE + 1 : ONE + 2));                          \
            /* reduce-scatters: block j of member i holds i + j + k (sum), (i + 2j + k) mod 7 (max) */                   \
            for (int j = 0; j < tn; j++)                                                                                 \
                for (int k = 0; k < 2; k++) s[j * 2 + k] = MK(tm + j + k);                                               \
            CHECK_EQ_INT(nvshmem_##N##_sum_reducescatter(team, d, s, 2), 0);                                             \
            for (int k = 0; k < 2; k++) EXPECT(N, "sum_reducescatter", d[k], MK(tn *(tn - 1) / 2 + tn * (tm + k)));      \
            for (int j = 0; j < tn; j++)                                                                                 \
                for (int k = 0; k < 2; k++) s[j * 2 + k] = MK((float)((tm + 2 * j + k) % 7));                            \
            CHECK_EQ_INT(nvshmem_##N##_max_reducescatter(team, d, s, 2), 0);                                             \
            for (int k = 0; k < 2; k++) {                                                                                \
                int hi = 0;                                                                                              \
                for (int i = 0; i < tn; i++) hi = (i + 2 * tm + k) % 7 > hi ? (i + 2 * tm + k) % 7 : hi;                 \
                EXPECT(N, "max_reducescatter", d[k], MK((float)hi));                                                     \
            }                                                                                                            \
        }                                                                                                                \
        nvshmem_barrier_all();                                                                                           \
        nvshmem_free(d);                                                                                                 \
        nvshmem_free(s);                                                                                                 \
    }
HALF_TYPES(HALF_CHECKS)
#undef HALF_CHECKS

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    setenv("SHOAL_HEAP_KIND", "host", 0);
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    nvshmem_team_t even = NVSHMEM_TEAM_INVALID;
    CHECK_EQ_INT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &even), 0);
#define RUN(T, N, MK, ONE, TIE)                                                                                        \
    rma_##N(me, n);                                                                                                    \
    moves_##N(me, n);                                                                                                  \
    reduce_##N(NVSHMEM_TEAM_WORLD);                                                                                    \
    reduce_##N(even);
    HALF_TYPES(RUN)
#undef RUN
    if (even != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(even);
    if (me == 0)
        check_note("half and bfloat16 from C++ on %d PEs: RMA, broadcast, fcollect, alltoall, reductions and "
                   "reduce-scatters (exact, and ties rounded to even): ok",
                   n);
    nvshmem_finalize();
    return 0;
}
