/* Device atomics (shoal_device.cuh) on PE 0's heap words, from every thread
 * of every PE at once: fetch_add hands out every value exactly once and
 * totals are exact; add with varied values; a compare_swap counter; fetch_or,
 * fetch_and, fetch_xor totals and the old values each thread sees; swap
 * keeps every value; set and fetch on a neighbour; every typed atomic of
 * SHOAL_DEV_AMO_TYPES in a checked sequence. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

#define BLOCKS 128
#define THREADS 256
#define ITERS 100

/* 1. Every thread fetch_adds 1 to PE 0's counter ITERS times and marks the
 * value it got in a local bitmap; adds gid + 1 to a long long and 1 to an
 * int with the non-fetching add. */
__global__ void contention_kernel(shoal_device_t dev, unsigned long long *counter, long long *sum, int *icount,
                                  unsigned *bitmap, unsigned long long total, dev_err_t *err)
{
    unsigned long long gid = (unsigned long long)dev.my_pe * BLOCKS * THREADS + blockIdx.x * THREADS + threadIdx.x;
    for (int i = 0; i < ITERS; i++) {
        unsigned long long old = ~0ull;
        DCHECK_EQ(err, shoal_dev_ulonglong_atomic_fetch_add(dev, counter, 1, 0, &old), SHOAL_SUCCESS);
        if (old < total)
            atomicOr(&bitmap[old / 32], 1u << (old % 32));
        else
            DCHECK_EQ(err, old, total - 1); /* out of range: fail with the value */
        DCHECK_EQ(err, shoal_dev_longlong_atomic_add(dev, sum, (long long)gid + 1, 0), SHOAL_SUCCESS);
        DCHECK_EQ(err, shoal_dev_int_atomic_add(dev, icount, 1, 0), SHOAL_SUCCESS);
    }
}

/* 2. A counter made of compare_swap loops; each success's old value is
 * marked in a bitmap, so none is handed out twice. */
#define CAS_BLOCKS 64
#define CAS_THREADS 128
#define CAS_ITERS 10
__global__ void cas_kernel(shoal_device_t dev, unsigned *counter, unsigned *bitmap, unsigned total, dev_err_t *err)
{
    for (int i = 0; i < CAS_ITERS; i++) {
        unsigned cur = 0, seen = 0;
        DCHECK_EQ(err, shoal_dev_uint_atomic_fetch(dev, counter, 0, &cur), SHOAL_SUCCESS);
        for (;;) {
            int rc = shoal_dev_uint_atomic_compare_swap(dev, counter, cur, cur + 1, 0, &seen);
            if (rc != SHOAL_SUCCESS) {
                DCHECK_EQ(err, rc, SHOAL_SUCCESS);
                return;
            }
            if (seen == cur) break;
            cur = seen;
        }
        if (cur < total)
            atomicOr(&bitmap[cur / 32], 1u << (cur % 32));
        else
            DCHECK_EQ(err, cur, total - 1);
    }
}

/* 3. Bitwise: words[0] (0) gets bit (me * 32 + t) or-ed in; words[1] (all
 * ones) gets it and-ed out; words[2] (0) gets bit t xor-ed by every PE;
 * words[3] (0) gets the PE's bit or-ed in with the 32-bit fetch_or. One
 * block of 64 threads; with 1 or 2 PEs the bits are distinct. */
__global__ void bitwise_kernel(shoal_device_t dev, unsigned long long *words, unsigned *words32, dev_err_t *err)
{
    unsigned t = threadIdx.x;
    unsigned long long mine = 1ull << ((dev.my_pe * 32 + t % 32) % 64), old = 0;
    if (t < 32) {
        DCHECK_EQ(err, shoal_dev_ulonglong_atomic_fetch_or(dev, &words[0], mine, 0, &old), SHOAL_SUCCESS);
        DCHECK_EQ(err, old & mine, 0); /* nobody else sets my bit */
        DCHECK_EQ(err, shoal_dev_ulonglong_atomic_fetch_and(dev, &words[1], ~mine, 0, &old), SHOAL_SUCCESS);
        DCHECK_EQ(err, old & mine, mine); /* nobody else clears it */
        unsigned bit32 = 1u << ((dev.my_pe * 16 + t) % 32);
        unsigned old32 = 0;
        if (t < 16) {
            DCHECK_EQ(err, shoal_dev_uint_atomic_fetch_or(dev, &words32[0], bit32, 0, &old32), SHOAL_SUCCESS);
            DCHECK_EQ(err, old32 & bit32, 0);
        }
    }
    DCHECK_EQ(err, shoal_dev_ulonglong_atomic_fetch_xor(dev, &words[2], 1ull << t, 0, &old), SHOAL_SUCCESS);
    DCHECK_EQ(err, shoal_dev_ulonglong_atomic_xor(dev, &words[3], 1ull << t, 0), SHOAL_SUCCESS);
}

/* 4. swap: each thread swaps its id (1 + global id) into PE 0's word and
 * keeps what it took out. */
#define SWAP_THREADS 512
__global__ void swap_kernel(shoal_device_t dev, unsigned *word, unsigned *taken, dev_err_t *err)
{
    unsigned id = 1 + dev.my_pe * SWAP_THREADS + blockIdx.x * blockDim.x + threadIdx.x, old = 0;
    DCHECK_EQ(err, shoal_dev_uint_atomic_swap(dev, word, id, 0, &old), SHOAL_SUCCESS);
    taken[blockIdx.x * blockDim.x + threadIdx.x] = old;
}

/* 5. set on the right neighbour, then (after a host barrier) fetch. */
__global__ void set_kernel(shoal_device_t dev, long long *cells, int right, dev_err_t *err)
{
    DCHECK_EQ(err, shoal_dev_longlong_atomic_set(dev, &cells[dev.my_pe], 1000 + dev.my_pe, right), SHOAL_SUCCESS);
    DCHECK_EQ(err, shoal_dev_atomic_set(dev, &cells[dev.n_pes + dev.my_pe], -7 - dev.my_pe, right), SHOAL_SUCCESS);
    shoal_dev_quiet();
}
__global__ void fetch_kernel(shoal_device_t dev, long long *cells, int right, int left, dev_err_t *err)
{
    long long v = 0;
    /* what I set on right, read there; what left set here, read locally */
    DCHECK_EQ(err, shoal_dev_longlong_atomic_fetch(dev, &cells[dev.my_pe], right, &v), SHOAL_SUCCESS);
    DCHECK_EQ(err, v, 1000 + dev.my_pe);
    DCHECK_EQ(err, shoal_dev_longlong_atomic_fetch(dev, &cells[left], dev.my_pe, &v), SHOAL_SUCCESS);
    DCHECK_EQ(err, v, 1000 + left);
    DCHECK_EQ(err, shoal_dev_atomic_fetch(dev, &cells[dev.n_pes + left], dev.my_pe, &v), SHOAL_SUCCESS);
    DCHECK_EQ(err, v, -7 - left);
}

/* 6. Every typed atomic of every type: a checked sequence by one thread on
 * its own word at the right neighbour, then a contended fetch_add / add /
 * fetch_inc / inc by all threads of all PEs on shared words at PE 0. */
#define TYPED_THREADS 128
#define TYPED_KERNEL(T, N)                                                                                             \
    __global__ void typed_##N(shoal_device_t dev, T *shared, T *own, int right, dev_err_t *err)                        \
    {                                                                                                                  \
        T old = 0;                                                                                                     \
        DCHECK_EQ(err, shoal_dev_##N##_atomic_fetch_add(dev, &shared[0], (T)1, 0, &old), SHOAL_SUCCESS);               \
        DCHECK_EQ(err, shoal_dev_##N##_atomic_add(dev, &shared[1], (T)2, 0), SHOAL_SUCCESS);                           \
        DCHECK_EQ(err, shoal_dev_##N##_atomic_fetch_inc(dev, &shared[2], 0, &old), SHOAL_SUCCESS);                     \
        DCHECK_EQ(err, shoal_dev_##N##_atomic_inc(dev, &shared[3], 0), SHOAL_SUCCESS);                                 \
        if (threadIdx.x != 0 || blockIdx.x != 0) return; /* one thread owns the sequence */                            \
        T *w = &own[dev.my_pe];                                                                                        \
        DCHECK_EQ(err, shoal_dev_##N##_atomic_set(dev, w, (T)5, right), SHOAL_SUCCESS);                                \
        DCHECK_EQ(err, shoal_dev_##N##_atomic_fetch(dev, w, right, &old), SHOAL_SUCCESS);                              \
        DCHECK_EQ(err, old, 5);                                                                                        \
        shoal_dev_##N##_atomic_fetch_add(dev, w, (T)3, right, &old);                                                   \
        DCHECK_EQ(err, old, 5);                                                                                        \
        shoal_dev_##N##_atomic_compare_swap(dev, w, (T)8, (T)20, right, &old); /* hit */                               \
        DCHECK_EQ(err, old, 8);                                                                                        \
        shoal_dev_##N##_atomic_compare_swap(dev, w, (T)7, (T)1, right, &old); /* miss */                               \
        DCHECK_EQ(err, old, 20);                                                                                       \
        shoal_dev_##N##_atomic_swap(dev, w, (T)9, right, &old);                                                        \
        DCHECK_EQ(err, old, 20);                                                                                       \
        shoal_dev_##N##_atomic_fetch_and(dev, w, (T)12, right, &old); /* 9 & 12 = 8 */                                 \
        DCHECK_EQ(err, old, 9);                                                                                        \
        shoal_dev_##N##_atomic_fetch_or(dev, w, (T)3, right, &old); /* 11 */                                           \
        DCHECK_EQ(err, old, 8);                                                                                        \
        shoal_dev_##N##_atomic_fetch_xor(dev, w, (T)6, right, &old); /* 13 */                                          \
        DCHECK_EQ(err, old, 11);                                                                                       \
        shoal_dev_##N##_atomic_and(dev, w, (T)5, right);       /* 5 */                                                 \
        shoal_dev_##N##_atomic_or(dev, w, (T)2, right);        /* 7 */                                                 \
        shoal_dev_##N##_atomic_xor(dev, w, (T)1, right);       /* 6 */                                                 \
        shoal_dev_##N##_atomic_fetch_inc(dev, w, right, &old); /* 7 */                                                 \
        DCHECK_EQ(err, old, 6);                                                                                        \
        shoal_dev_##N##_atomic_inc(dev, w, right);       /* 8 */                                                       \
        shoal_dev_##N##_atomic_add(dev, w, (T)2, right); /* 10 */                                                      \
        shoal_dev_##N##_atomic_fetch(dev, w, right, &old);                                                             \
        DCHECK_EQ(err, old, 10);                                                                                       \
        /* the generic templates on the same word */                                                                   \
        shoal_dev_atomic_fetch_add(dev, w, 5, right, &old);                                                            \
        DCHECK_EQ(err, old, 10);                                                                                       \
        shoal_dev_atomic_compare_swap(dev, w, 15, 40, right, (T *)NULL);                                               \
        shoal_dev_atomic_fetch(dev, w, right, &old);                                                                   \
        DCHECK_EQ(err, old, 40);                                                                                       \
    }
SHOAL_DEV_AMO_TYPES(TYPED_KERNEL)

static int me, npes, right, left;

/* Every bit of [0, nbits) set in exactly one of the PEs' bitmaps. */
static void check_bitmaps(const unsigned *d_bitmap, size_t nbits, const char *what)
{
    size_t words = (nbits + 31) / 32;
    unsigned *mine = (unsigned *)malloc(words * 4), *all = (unsigned *)malloc(words * 4 * (size_t)npes);
    CHECK(mine != NULL && all != NULL);
    CUDA_OK(cudaMemcpy(mine, d_bitmap, words * 4, cudaMemcpyDeviceToHost));
    MPI_Allgather(mine, (int)words, MPI_UNSIGNED, all, (int)words, MPI_UNSIGNED, MPI_COMM_WORLD);
    for (size_t w = 0; w < words; w++) {
        unsigned any = 0;
        for (int pe = 0; pe < npes; pe++) {
            unsigned b = all[(size_t)pe * words + w];
            CHECK_MSG((any & b) == 0, "%s: value(s) %#x + %zu * 32 handed out twice (PE %d)", what, any & b, w, pe);
            any |= b;
        }
        unsigned want = w + 1 < words || nbits % 32 == 0 ? ~0u : (1u << (nbits % 32)) - 1;
        CHECK_MSG(any == want, "%s: values %#x + %zu * 32 never handed out", what, want & ~any, w);
    }
    free(mine);
    free(all);
}

template <typename T> static T read_word(const T *d)
{
    T v;
    CUDA_OK(cudaMemcpy(&v, d, sizeof(T), cudaMemcpyDeviceToHost));
    return v;
}

#define RUN_TYPED(T, N)                                                                                                \
    {                                                                                                                  \
        T *shared = (T *)shoal_calloc(sh, 4, sizeof(T));                                                               \
        T *own = (T *)shoal_calloc(sh, (size_t)npes, sizeof(T));                                                       \
        CHECK_MSG(shared != NULL && own != NULL, "shoal_calloc: %s", shoal_last_error(sh));                            \
        SH_OK(sh, shoal_barrier_all(sh));                                                                              \
        typed_##N<<<2, TYPED_THREADS>>>(dev, shared, own, right, err);                                                 \
        CUDA_OK(cudaDeviceSynchronize());                                                                              \
        check_dev_err(err, "typed atomics " #N);                                                                       \
        SH_OK(sh, shoal_barrier_all(sh));                                                                              \
        if (me == 0) {                                                                                                 \
            T h[4];                                                                                                    \
            CUDA_OK(cudaMemcpy(h, shared, sizeof(h), cudaMemcpyDeviceToHost));                                         \
            long long n = (long long)npes * 2 * TYPED_THREADS;                                                         \
            CHECK_MSG((long long)h[0] == n && (long long)h[1] == 2 * n && (long long)h[2] == n &&                      \
                          (long long)h[3] == n,                                                                        \
                      #N ": contended totals %lld %lld %lld %lld, expected %lld %lld %lld %lld", (long long)h[0],      \
                      (long long)h[1], (long long)h[2], (long long)h[3], n, 2 * n, n, n);                              \
        }                                                                                                              \
        CHECK_EQ_INT(read_word(&own[left]), 40);                                                                       \
        SH_OK(sh, shoal_barrier_all(sh));                                                                              \
        SH_OK(sh, shoal_free(sh, own));                                                                                \
        SH_OK(sh, shoal_free(sh, shared));                                                                             \
        ntyped++;                                                                                                      \
    }

int main(int argc, char **argv)
{
    shoal_t sh;
    shoal_device_t dev;
    dev_err_t *err = NULL;

    gpu_test_start(&argc, &argv);
    sh = gpu_test_instance((size_t)64 << 20);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    SH_OK(sh, shoal_device_get(sh, &dev));
    CHECK_EQ_INT(shoal_device_reachable(sh, 0), 1);
    CUDA_OK(cudaMalloc(&err, sizeof(*err)));
    CUDA_OK(cudaMemset(err, 0, sizeof(*err)));

    /* 1. contended fetch_add / add */
    {
        unsigned long long total = (unsigned long long)npes * BLOCKS * THREADS * ITERS;
        unsigned long long *counter = (unsigned long long *)shoal_calloc(sh, 1, sizeof(*counter));
        long long *sum = (long long *)shoal_calloc(sh, 1, sizeof(*sum));
        int *icount = (int *)shoal_calloc(sh, 1, sizeof(*icount));
        unsigned *bitmap = NULL;
        CHECK(counter != NULL && sum != NULL && icount != NULL);
        CUDA_OK(cudaMalloc(&bitmap, (total + 31) / 32 * 4));
        CUDA_OK(cudaMemset(bitmap, 0, (total + 31) / 32 * 4));
        CUDA_OK(cudaDeviceSynchronize());
        SH_OK(sh, shoal_barrier_all(sh));
        double t0 = MPI_Wtime();
        contention_kernel<<<BLOCKS, THREADS>>>(dev, counter, sum, icount, bitmap, total, err);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        double t = MPI_Wtime() - t0;
        check_dev_err(err, "contended fetch_add");
        SH_OK(sh, shoal_barrier_all(sh));
        if (me == 0) {
            long long threads = (long long)npes * BLOCKS * THREADS;
            CHECK_EQ_SIZE(read_word(counter), total);
            CHECK_EQ_INT(read_word(sum), (long long)ITERS * threads * (threads + 1) / 2);
            CHECK_EQ_INT(read_word(icount), (long long)total);
        }
        check_bitmaps(bitmap, total, "fetch_add");
        check_note("%llu contended fetch_add + 2 adds from %d PEs: exact (%.1f ms)", total, npes, t * 1e3);
        SH_OK(sh, shoal_barrier_all(sh));
        cudaFree(bitmap);
        SH_OK(sh, shoal_free(sh, icount));
        SH_OK(sh, shoal_free(sh, sum));
        SH_OK(sh, shoal_free(sh, counter));
    }

    /* 2. compare_swap counter */
    {
        unsigned total = (unsigned)npes * CAS_BLOCKS * CAS_THREADS * CAS_ITERS;
        unsigned *counter = (unsigned *)shoal_calloc(sh, 1, sizeof(*counter));
        unsigned *bitmap = NULL;
        CHECK(counter != NULL);
        CUDA_OK(cudaMalloc(&bitmap, (total + 31) / 32 * 4));
        CUDA_OK(cudaMemset(bitmap, 0, (total + 31) / 32 * 4));
        CUDA_OK(cudaDeviceSynchronize());
        SH_OK(sh, shoal_barrier_all(sh));
        cas_kernel<<<CAS_BLOCKS, CAS_THREADS>>>(dev, counter, bitmap, total, err);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        check_dev_err(err, "compare_swap counter");
        SH_OK(sh, shoal_barrier_all(sh));
        if (me == 0) CHECK_EQ_INT(read_word(counter), total);
        check_bitmaps(bitmap, total, "compare_swap");
        check_note("compare_swap counter: %u increments, exact", total);
        SH_OK(sh, shoal_barrier_all(sh));
        cudaFree(bitmap);
        SH_OK(sh, shoal_free(sh, counter));
    }

    /* 3. and / or / xor */
    if (npes <= 2) {
        unsigned long long *words = (unsigned long long *)shoal_calloc(sh, 4, sizeof(*words));
        unsigned *words32 = (unsigned *)shoal_calloc(sh, 1, sizeof(*words32));
        unsigned long long ones = ~0ull;
        CHECK(words != NULL && words32 != NULL);
        CUDA_OK(cudaMemcpy(&words[1], &ones, sizeof(ones), cudaMemcpyHostToDevice));
        SH_OK(sh, shoal_barrier_all(sh));
        bitwise_kernel<<<1, 64>>>(dev, words, words32, err);
        CUDA_OK(cudaDeviceSynchronize());
        check_dev_err(err, "bitwise atomics");
        SH_OK(sh, shoal_barrier_all(sh));
        if (me == 0) {
            unsigned long long used = npes == 2 ? ~0ull : 0xffffffffull, h[4];
            unsigned long long toggled = npes % 2 ? ~0ull : 0; /* bit t xor-ed by each PE */
            CUDA_OK(cudaMemcpy(h, words, sizeof(h), cudaMemcpyDeviceToHost));
            CHECK_MSG(h[0] == used, "fetch_or total %#llx, expected %#llx", h[0], used);
            CHECK_MSG(h[1] == ~used, "fetch_and total %#llx, expected %#llx", h[1], ~used);
            CHECK_MSG(h[2] == toggled, "fetch_xor total %#llx, expected %#llx", h[2], toggled);
            CHECK_MSG(h[3] == toggled, "xor total %#llx, expected %#llx", h[3], toggled);
            CHECK_EQ_SIZE(read_word(words32), npes == 2 ? 0xffffffffull : 0xffffull);
        }
        SH_OK(sh, shoal_barrier_all(sh));
        SH_OK(sh, shoal_free(sh, words32));
        SH_OK(sh, shoal_free(sh, words));
    }

    /* 4. swap: the values taken out plus the last one in are the initial
     * value plus every id, each once */
    {
        unsigned *word = (unsigned *)shoal_calloc(sh, 1, sizeof(*word)), *taken = NULL;
        unsigned n = (unsigned)npes * SWAP_THREADS;
        CHECK(word != NULL);
        CUDA_OK(cudaMalloc(&taken, SWAP_THREADS * sizeof(unsigned)));
        SH_OK(sh, shoal_barrier_all(sh));
        swap_kernel<<<SWAP_THREADS / 128, 128>>>(dev, word, taken, err);
        CUDA_OK(cudaDeviceSynchronize());
        check_dev_err(err, "swap");
        SH_OK(sh, shoal_barrier_all(sh));
        unsigned *mine = (unsigned *)malloc(SWAP_THREADS * sizeof(unsigned)),
                 *all = (unsigned *)malloc(n * sizeof(unsigned));
        char *seen = (char *)calloc(n + 1, 1);
        CHECK(mine && all && seen);
        CUDA_OK(cudaMemcpy(mine, taken, SWAP_THREADS * sizeof(unsigned), cudaMemcpyDeviceToHost));
        MPI_Allgather(mine, SWAP_THREADS, MPI_UNSIGNED, all, SWAP_THREADS, MPI_UNSIGNED, MPI_COMM_WORLD);
        unsigned last = 0;
        if (me == 0) last = read_word(word);
        MPI_Bcast(&last, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
        for (unsigned i = 0; i <= n; i++) {
            unsigned v = i < n ? all[i] : last;
            CHECK_MSG(v <= n, "swap: value %u out of range", v);
            CHECK_MSG(!seen[v], "swap: value %u seen twice", v);
            seen[v] = 1;
        }
        free(seen);
        free(all);
        free(mine);
        cudaFree(taken);
        SH_OK(sh, shoal_free(sh, word));
    }

    /* 5. set, then fetch */
    {
        long long *cells = (long long *)shoal_calloc(sh, 2 * (size_t)npes, sizeof(long long));
        CHECK(cells != NULL);
        SH_OK(sh, shoal_barrier_all(sh));
        set_kernel<<<1, 1>>>(dev, cells, right, err);
        CUDA_OK(cudaDeviceSynchronize());
        SH_OK(sh, shoal_barrier_all(sh));
        fetch_kernel<<<1, 1>>>(dev, cells, right, left, err);
        CUDA_OK(cudaDeviceSynchronize());
        check_dev_err(err, "set / fetch");
        SH_OK(sh, shoal_barrier_all(sh));
        SH_OK(sh, shoal_free(sh, cells));
    }

    /* 6. every typed atomic */
    int ntyped = 0;
    SHOAL_DEV_AMO_TYPES(RUN_TYPED)
    check_note("typed atomics of %d types passed", ntyped);

    cudaFree(err);
    SH_OK(sh, shoal_finalize(sh));
    if (me == 0) printf("test_device_atomic: %d PEs passed\n", npes);
    MPI_Finalize();
    return 0;
}
