/* Device signals and waits (shoal_device.cuh): put_signal never lets the
 * receiver see the signal before the data, over many rounds, at thread,
 * warp and block scope, with SHOAL_SIGNAL_SET and SHOAL_SIGNAL_ADD, in both
 * directions at once; wait_until (int, long long, uint64, signal) returns
 * only when the comparison holds and returns the value that satisfied it,
 * for every comparison; test; signal_op ADD from every thread is exact. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "shoal_device.cuh"
#include "common/gpu_check.h"

enum { SC_THREAD, SC_WARP, SC_BLOCK };
static const char *scope_name[] = {"thread", "warp", "block"};

/* Word i of round r from PE pe: the round in the high half. */
static __device__ __forceinline__ unsigned long long stamp(unsigned r, int pe, size_t i)
{
    return ((unsigned long long)r << 32) | ((unsigned long long)pe << 24) | (i & 0xffffff);
}

/* Block 0 sends to right, block 1 receives from left; blockDim 256.
 * Round r: the sender waits until right's receiver acknowledged round r - 1
 * (ack, set by it in my heap), writes round r's stamps to its source buffer,
 * puts them with the signal (SET r, or ADD 1), the receiver waits for
 * sig >= r, checks every word carries round r, then acks r. */
__global__ void put_signal_kernel(shoal_device_t dev, int scope, int op, unsigned rounds, size_t words,
                                  unsigned long long *data, uint64_t *sig, uint64_t *ack, unsigned long long *src,
                                  int right, int left, dev_err_t *err)
{
    unsigned t = threadIdx.x;
    if (blockIdx.x == 0) {
        for (unsigned r = 1; r <= rounds; r++) {
            if (t == 0) shoal_dev_signal_wait_until(ack, SHOAL_CMP_GE, r - 1);
            __syncthreads();
            for (size_t i = t; i < words; i += blockDim.x) src[i] = stamp(r, dev.my_pe, i);
            __syncthreads();
            uint64_t value = op == SHOAL_SIGNAL_SET ? r : 1;
            size_t bytes = words * sizeof(*src);
            int rc = SHOAL_SUCCESS;
            if (scope == SC_BLOCK)
                rc = shoal_dev_put_signal_block(dev, data, src, bytes, sig, value, op, right);
            else if (scope == SC_WARP && t < 32)
                rc = shoal_dev_put_signal_warp(dev, data, src, bytes, sig, value, op, right);
            else if (scope == SC_THREAD && t == 0)
                rc = shoal_dev_put_signal(dev, data, src, bytes, sig, value, op, right);
            DCHECK_EQ(err, rc, SHOAL_SUCCESS);
            __syncthreads();
        }
    } else {
        __shared__ unsigned long long seen;
        for (unsigned r = 1; r <= rounds; r++) {
            if (t == 0) seen = shoal_dev_signal_wait_until(sig, SHOAL_CMP_GE, r);
            __syncthreads();
            DCHECK_EQ(err, seen, r); /* the sender waits for my ack: never ahead */
            for (size_t i = t; i < words; i += blockDim.x) DCHECK_EQ(err, data[i], stamp(r, left, i));
            __syncthreads();
            if (t == 0) DCHECK_EQ(err, shoal_dev_signal_op(dev, ack, r, SHOAL_SIGNAL_SET, left), SHOAL_SUCCESS);
        }
    }
}

/* wait_until: 7 cases per type, each on its own word of my heap, written
 * once by left's writer (after a pause) from init to final; the waiter's
 * comparison is false for init and true for final. */
#define NCASES 7
__constant__ long long case_init[NCASES] = {0, 5, 3, 3, 3, 3, 9};
__constant__ long long case_final[NCASES] = {7, 6, 10, 4, 1, 1, 9};
__constant__ long long case_value[NCASES] = {7, 5, 3, 4, 2, 1, 0};
__constant__ int case_cmp[NCASES] =
    {SHOAL_CMP_EQ, SHOAL_CMP_NE, SHOAL_CMP_GT, SHOAL_CMP_GE, SHOAL_CMP_LT, SHOAL_CMP_LE, 99 /* unknown: at once */};

enum { W_INT, W_LONGLONG, W_UINT64, W_SIGNAL, W_KINDS };

static __device__ unsigned long long now_ns(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ void pause_us(unsigned us)
{
    unsigned long long t0 = now_ns();
    while (now_ns() - t0 < us * 1000ull) __nanosleep(1000);
}

/* Block 0, thread k < NCASES * W_KINDS: waits on case k % NCASES of kind
 * k / NCASES. Block 1, thread 0: after 200 us writes every final value to
 * right with p (the uint64 and signal kinds with signal_op SET), after a
 * fence. */
__global__ void wait_kernel(shoal_device_t dev, int *iw, long long *lw, uint64_t *uw, uint64_t *sw, long long *got,
                            int right, dev_err_t *err)
{
    unsigned t = threadIdx.x;
    if (blockIdx.x == 0) {
        if (t >= NCASES * W_KINDS) return;
        int c = t % NCASES, kind = t / NCASES;
        long long v = 0;
        switch (kind) {
        case W_INT: v = shoal_dev_int_wait_until(&iw[c], case_cmp[c], (int)case_value[c]); break;
        case W_LONGLONG: v = shoal_dev_longlong_wait_until(&lw[c], case_cmp[c], case_value[c]); break;
        case W_UINT64: v = (long long)shoal_dev_uint64_wait_until(&uw[c], case_cmp[c], (uint64_t)case_value[c]); break;
        case W_SIGNAL: v = (long long)shoal_dev_signal_wait_until(&sw[c], case_cmp[c], (uint64_t)case_value[c]); break;
        }
        got[t] = v;
    } else if (t == 0) {
        pause_us(200);
        for (int c = 0; c < NCASES; c++) {
            if (case_init[c] == case_final[c]) continue;
            DCHECK_EQ(err, shoal_dev_int_p(dev, &iw[c], (int)case_final[c], right), SHOAL_SUCCESS);
            DCHECK_EQ(err, shoal_dev_longlong_p(dev, &lw[c], case_final[c], right), SHOAL_SUCCESS);
            shoal_dev_fence();
            DCHECK_EQ(err, shoal_dev_uint64_atomic_set(dev, &uw[c], (uint64_t)case_final[c], right), SHOAL_SUCCESS);
            DCHECK_EQ(err, shoal_dev_signal_op(dev, &sw[c], (uint64_t)case_final[c], SHOAL_SIGNAL_SET, right),
                      SHOAL_SUCCESS);
        }
        shoal_dev_quiet();
    }
}

/* test and signal_fetch on the final values; fill the words with init. */
__global__ void test_kernel(int *iw, long long *lw, uint64_t *uw, uint64_t *sw, dev_err_t *err)
{
    DCHECK_EQ(err, shoal_dev_int_test(&iw[0], SHOAL_CMP_EQ, 7), 1);
    DCHECK_EQ(err, shoal_dev_int_test(&iw[0], SHOAL_CMP_NE, 7), 0);
    DCHECK_EQ(err, shoal_dev_longlong_test(&lw[2], SHOAL_CMP_GT, 9), 1);
    DCHECK_EQ(err, shoal_dev_test(&uw[4], SHOAL_CMP_LT, 1), 0);
    DCHECK_EQ(err, shoal_dev_signal_fetch(&sw[1]), 6);
}
__global__ void init_kernel(int *iw, long long *lw, uint64_t *uw, uint64_t *sw)
{
    for (int c = 0; c < NCASES; c++) {
        iw[c] = (int)case_init[c];
        lw[c] = case_init[c];
        uw[c] = (uint64_t)case_init[c];
        sw[c] = (uint64_t)case_init[c];
    }
}

/* Every thread adds 1 to PE 0's signal with signal_op ADD; thread 0 of each
 * block also puts_signal-adds 1 with 0 bytes of data. */
__global__ void signal_add_kernel(shoal_device_t dev, uint64_t *sig, dev_err_t *err)
{
    DCHECK_EQ(err, shoal_dev_signal_op(dev, sig, 1, SHOAL_SIGNAL_ADD, 0), SHOAL_SUCCESS);
    if (threadIdx.x == 0)
        DCHECK_EQ(err, shoal_dev_put_signal(dev, sig, sig, 0, sig, 1, SHOAL_SIGNAL_ADD, 0), SHOAL_SUCCESS);
}

int main(int argc, char **argv)
{
    shoal_t sh;
    shoal_device_t dev;
    int me, npes, right, left;
    dev_err_t *err = NULL;
    unsigned rounds = 20000;

    gpu_test_start(&argc, &argv);
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], "--rounds") == 0) rounds = (unsigned)atoi(argv[i + 1]);
    sh = gpu_test_instance((size_t)64 << 20);
    gpu_test_need_concurrent_kernels(sh, "put_signal and the waits (a kernel waits for the peer's kernel)");
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    SH_OK(sh, shoal_device_get(sh, &dev));
    CHECK_EQ_INT(shoal_device_reachable(sh, right), 1);
    CUDA_OK(cudaMalloc(&err, sizeof(*err)));
    CUDA_OK(cudaMemset(err, 0, sizeof(*err)));

    /* 1. put_signal ordering */
    {
        const size_t max_words = 8192 + 3; /* 64 KiB + 24 B */
        unsigned long long *data = (unsigned long long *)shoal_malloc(sh, max_words * 8);
        uint64_t *sigs = (uint64_t *)shoal_calloc(sh, 2, sizeof(uint64_t));
        unsigned long long *src = NULL;
        CHECK_MSG(data != NULL && sigs != NULL, "shoal_malloc: %s", shoal_last_error(sh));
        CUDA_OK(cudaMalloc(&src, max_words * 8));
        for (int scope = SC_THREAD; scope <= SC_BLOCK; scope++) {
            for (int op = SHOAL_SIGNAL_SET; op <= SHOAL_SIGNAL_ADD; op++) {
                size_t words = scope == SC_BLOCK ? max_words : scope == SC_WARP ? 1024 + 1 : 128 + 1;
                CUDA_OK(cudaMemset(sigs, 0, 2 * sizeof(uint64_t)));
                CUDA_OK(cudaMemset(data, 0, max_words * 8));
                CUDA_OK(cudaDeviceSynchronize());
                SH_OK(sh, shoal_barrier_all(sh));
                double t0 = MPI_Wtime();
                put_signal_kernel<<<2, 256>>>(dev, scope, op, rounds, words, data, &sigs[0], &sigs[1], src, right, left,
                                              err);
                CUDA_OK(cudaGetLastError());
                CUDA_OK(cudaDeviceSynchronize());
                double t = MPI_Wtime() - t0;
                char what[96];
                snprintf(what, sizeof(what), "put_signal%s%s, %s, %zu bytes", scope == SC_THREAD ? "" : "_",
                         scope == SC_THREAD ? "" : scope_name[scope], op == SHOAL_SIGNAL_SET ? "SET" : "ADD",
                         words * 8);
                check_dev_err(err, what);
                check_note("%s: %u rounds in order (%.2f us a round)", what, rounds, t * 1e6 / rounds);
                SH_OK(sh, shoal_barrier_all(sh));
            }
        }
        cudaFree(src);
        SH_OK(sh, shoal_free(sh, sigs));
        SH_OK(sh, shoal_free(sh, data));
    }

    /* 2. wait_until and test, every comparison */
    {
        int *iw = (int *)shoal_calloc(sh, NCASES, sizeof(int));
        long long *lw = (long long *)shoal_calloc(sh, NCASES, sizeof(long long));
        uint64_t *uw = (uint64_t *)shoal_calloc(sh, NCASES, sizeof(uint64_t));
        uint64_t *sw = (uint64_t *)shoal_calloc(sh, NCASES, sizeof(uint64_t));
        long long *got = NULL, hgot[NCASES * W_KINDS];
        CHECK(iw && lw && uw && sw);
        CUDA_OK(cudaMalloc(&got, sizeof(hgot)));
        init_kernel<<<1, 1>>>(iw, lw, uw, sw);
        CUDA_OK(cudaDeviceSynchronize());
        SH_OK(sh, shoal_barrier_all(sh));
        wait_kernel<<<2, 32 * ((NCASES * W_KINDS + 31) / 32)>>>(dev, iw, lw, uw, sw, got, right, err);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        check_dev_err(err, "wait_until writers");
        CUDA_OK(cudaMemcpy(hgot, got, sizeof(hgot), cudaMemcpyDeviceToHost));
        static const long long final_v[NCASES] = {7, 6, 10, 4, 1, 1, 9};
        static const char *cmp_name[NCASES] = {"EQ", "NE", "GT", "GE", "LT", "LE", "unknown"};
        static const char *kind_name[W_KINDS] = {"int", "longlong", "uint64", "signal"};
        for (int k = 0; k < NCASES * W_KINDS; k++)
            CHECK_MSG(hgot[k] == final_v[k % NCASES], "%s_wait_until %s returned %lld, expected %lld",
                      kind_name[k / NCASES], cmp_name[k % NCASES], hgot[k], final_v[k % NCASES]);
        SH_OK(sh, shoal_barrier_all(sh));
        test_kernel<<<1, 1>>>(iw, lw, uw, sw, err);
        CUDA_OK(cudaDeviceSynchronize());
        check_dev_err(err, "test / signal_fetch");
        check_note("wait_until (int, long long, uint64, signal) x EQ NE GT GE LT LE unknown passed");
        SH_OK(sh, shoal_barrier_all(sh));
        cudaFree(got);
        SH_OK(sh, shoal_free(sh, sw));
        SH_OK(sh, shoal_free(sh, uw));
        SH_OK(sh, shoal_free(sh, lw));
        SH_OK(sh, shoal_free(sh, iw));
    }

    /* 3. signal ADD from every thread of every PE */
    {
        uint64_t *sig = (uint64_t *)shoal_calloc(sh, 1, sizeof(uint64_t)), h = 0;
        CHECK(sig != NULL);
        SH_OK(sh, shoal_barrier_all(sh));
        signal_add_kernel<<<64, 256>>>(dev, sig, err);
        CUDA_OK(cudaDeviceSynchronize());
        check_dev_err(err, "signal ADD");
        SH_OK(sh, shoal_barrier_all(sh));
        if (me == 0) {
            CUDA_OK(cudaMemcpy(&h, sig, sizeof(h), cudaMemcpyDeviceToHost));
            CHECK_EQ_SIZE(h, (uint64_t)npes * 64 * (256 + 1));
        }
        SH_OK(sh, shoal_barrier_all(sh));
        SH_OK(sh, shoal_free(sh, sig));
    }

    cudaFree(err);
    SH_OK(sh, shoal_finalize(sh));
    if (me == 0) printf("test_device_signal: %d PEs passed\n", npes);
    MPI_Finalize();
    return 0;
}
