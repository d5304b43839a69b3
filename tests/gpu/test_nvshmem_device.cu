/* NVSHMEM's device API (api/nvshmem/nvshmem_device.cuh): kernels written
 * against <nvshmem.h> with no handle, on shoal's instance. Every value is
 * checked against one computed here:
 *   - nvshmem_my_pe/n_pes/team_my_pe/team_n_pes/ptr in a kernel equal the
 *     host's;
 *   - thread putmem/getmem/p/g, typed and sized put/get, iput/iget, _nbi
 *     with quiet, _warp and _block putmem, across the ring, byte for byte;
 *   - atomics: fetch_add from every PE's kernel onto PE 0 (none lost),
 *     compare_swap, float swap, bitwise fetch_or;
 *   - putmem_signal rings waited on with signal_wait_until in the kernel,
 *     wait_until_any/some and test_all on a vector of words;
 *   - barrier_all (thread, block) rounds, team barrier, broadcast, fcollect,
 *     alltoall, sum/max reductions and sum/max/min reduce-scatters (block,
 *     warp, thread) in kernels on NVSHMEM_TEAM_WORLD and on a split team,
 *     started with nvshmemx_collective_launch (its grid-size query must
 *     allow the grid);
 *   - the stream forms: _nbi, sized and signalled puts and an _nbi get on a
 *     stream, uint64 and int vector waits on it, a stream barrier;
 *   - half and bfloat16 (values exact, checked by their bits): p, g, put,
 *     get (thread), put_nbi_block and get_nbi_warp across the ring; in
 *     collective launches on each team sum reductions (block, warp) with
 *     two ties rounded to even, max reductions (thread, block) and a sum
 *     reduce-scatter; on the world a put, sum reductions and a max
 *     reduction on a stream;
 *   - the state follows nvshmem_team_split_strided and nvshmem_team_destroy.
 * Every PE pair a kernel cannot load/store (SHOAL_NODE_SIZE=1) goes through
 * the device proxy: the same checks pass.
 * With "trap": a kernel's nvshmem_int_p to PE n_pes traps, and prints the
 * call, the PEs and SHOAL_ERR_PE (read back from this process's stdout). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "common/gpu_check.h"

#define N 1000    /* ints per PE in the RMA checks */
#define ROUNDS 50 /* barrier and signal rounds */
#define RED 3000  /* reduction length */

static __host__ __device__ int val(int pe, int i) { return pe * 100003 + i * 7 + 1; }

/* Queries, and thread-scope RMA towards the right neighbour. */
__global__ void k_thread(int *sym, int *got, long long *q, void *ptr_probe, dev_err_t *err)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    q[0] = me;
    q[1] = n;
    q[2] = nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD);
    q[3] = nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD);
    q[4] = (long long)(uintptr_t)nvshmem_ptr(ptr_probe, right);
    q[5] = nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, right, NVSHMEM_TEAM_WORLD);
    int major = 0, minor = 0;
    nvshmem_info_get_version(&major, &minor);
    q[6] = major * 100 + minor;
    /* mine -> right's block 0 (putmem), block 1 (int_put), block 2 (put32_nbi + quiet) */
    nvshmem_putmem(sym, sym + 4 * N, N * sizeof(int), right);
    nvshmem_int_put(sym + N, sym + 4 * N, N, right);
    nvshmem_put32_nbi(sym + 2 * N, sym + 4 * N, N, right);
    nvshmem_quiet();
    /* strided: every other element of mine into right's block 3 */
    nvshmem_int_iput(sym + 3 * N, sym + 4 * N, 2, 2, N / 2, right);
    nvshmem_int_p(sym + 3 * N + 1, -me, right);
    nvshmem_quiet();
    nvshmem_barrier_all();
    /* get left's source block, g one element, iget the even ones */
    nvshmem_getmem(got, sym + 4 * N, N * sizeof(int), left);
    DCHECK_EQ(err, nvshmem_int_g(sym + 4 * N + 5, left), val(left, 5));
    DCHECK_EQ(err, nvshmem_int_g(sym + 3 * N + 1, me), -left);
    nvshmem_int_iget(got + N, sym + 4 * N, 1, 2, N / 2, left);
    nvshmem_barrier_all();
}

/* Warp and block forms: block 0's warp puts to the right, then the whole
 * block puts a second copy, then a block barrier. */
__global__ void k_group(int *sym)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), right = (me + 1) % n;
    if (threadIdx.x < 32) nvshmemx_putmem_warp(sym, sym + 4 * N, N * sizeof(int), right);
    __syncthreads();
    nvshmemx_int_put_nbi_block(sym + N, sym + 4 * N, N, right);
    /* even elements of mine into the right's block 2, by the whole block */
    nvshmemx_int_iput_block(sym + 2 * N, sym + 4 * N, 2, 2, N / 2, right);
    nvshmemx_barrier_all_block();
}

/* Atomics on PE 0's words, from every PE. */
__global__ void k_atomic(unsigned long long *ctr, int *cas, float *fl, unsigned int *bits, int iters, dev_err_t *err)
{
    int me = nvshmem_my_pe();
    for (int i = 0; i < iters; i++) nvshmem_ulonglong_atomic_add(ctr, 1ull, 0);
    unsigned long long before = nvshmem_ulonglong_atomic_fetch_add(ctr, 0ull, 0);
    DCHECK_EQ(err, before >= (unsigned long long)iters, 1);
    /* one PE wins the compare_swap from 0 */
    int old = nvshmem_int_atomic_compare_swap(cas, 0, me + 1, 0);
    if (old != 0) DCHECK_EQ(err, old >= 1 && old <= nvshmem_n_pes(), 1);
    nvshmem_uint_atomic_fetch_or(bits, 1u << me, 0);
    float prev = nvshmem_float_atomic_swap(fl, (float)me + 0.5f, 0);
    DCHECK_EQ(err, prev == -1.0f || (prev >= 0.5f && prev <= nvshmem_n_pes()), 1);
    nvshmem_quiet();
    nvshmem_barrier_all();
}

/* Signal ring: in each round put a value to the right with its signal,
 * wait for the left's. Then a vector of words: each PE sets word me at
 * every PE; wait_until_any/some, test_all. */
__global__ void k_signal(long *data, uint64_t *sig, int *words, dev_err_t *err)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    for (int r = 1; r <= ROUNDS; r++) {
        long v = (long)me * 1000 + r;
        if (r % 2)
            nvshmem_putmem_signal(data + (r & 1), &v, sizeof(v), sig, (uint64_t)r, NVSHMEM_SIGNAL_SET, right);
        else
            nvshmem_put64_signal(data + (r & 1), &v, 1, sig, (uint64_t)r, NVSHMEM_SIGNAL_SET, right);
        uint64_t s = nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, (uint64_t)r);
        DCHECK_EQ_AT(err, r, s >= (uint64_t)r, 1);
        DCHECK_EQ_AT(err, r, data[r & 1], (long)left * 1000 + r);
        nvshmem_barrier_all(); /* the slot is read before the next round's put lands */
    }
    for (int pe = 0; pe < n; pe++) nvshmem_int_atomic_set(&words[me], me + 1, pe);
    size_t idx[64];
    size_t any = nvshmem_int_wait_until_any(words, n, NULL, NVSHMEM_CMP_GT, 0);
    DCHECK_EQ(err, any < (size_t)n, 1);
    size_t some = nvshmem_int_wait_until_some(words, n, idx, NULL, NVSHMEM_CMP_GT, 0);
    DCHECK_EQ(err, some >= 1 && some <= (size_t)n, 1);
    nvshmem_int_wait_until_all(words, n, NULL, NVSHMEM_CMP_GT, 0);
    DCHECK_EQ(err, nvshmem_int_test_all(words, n, NULL, NVSHMEM_CMP_GT, 0), 1);
    DCHECK_EQ(err, nvshmem_int_test(&words[me], NVSHMEM_CMP_EQ, me + 1), 1);
    nvshmem_barrier_all();
}

/* Collectives in one cooperative launch of one block: on team (WORLD or
 * a split), broadcast from member 0, fcollect, alltoall, sum and max;
 * reduce-scatters of alltoall's src: sum (block), max (warp), min
 * (thread, blocks of 4). */
__global__ void k_coll(nvshmem_team_t team, int *bsrc, int *bdst, int *fdst, int *asrc, int *adst, double *rsrc,
                       double *rdst, int *rmax, int *rsdst)
{
    int rc = nvshmemx_int_broadcast_block(team, bdst, bsrc, 64, 0);
    rc |= nvshmemx_int_fcollect_block(team, fdst, bsrc, 64);
    rc |= nvshmemx_int_alltoall_block(team, adst, asrc, 16);
    rc |= nvshmemx_double_sum_reduce_block(team, rdst, rsrc, RED);
    if (threadIdx.x == 0) rc |= nvshmem_int_max_reduce(team, rmax, rmax, 1);
    __syncthreads();
    rc |= nvshmemx_int_sum_reducescatter_block(team, rsdst, asrc, 16);
    if (threadIdx.x < 32) rc |= nvshmemx_int_max_reducescatter_warp(team, rsdst + 16, asrc, 16);
    __syncthreads();
    if (threadIdx.x == 0) rc |= nvshmem_int_min_reducescatter(team, rsdst + 32, asrc, 4);
    __syncthreads();
    rc |= nvshmemx_barrier_block(team);
    if (rc != 0 && threadIdx.x == 0) rmax[1] = rc;
}

__global__ void k_bad_p(int *sym, int n) { nvshmem_int_p(sym, 1, n); }

/* The 16-bit floating types: element k of PE pe's source, exact in both. */
static float hval(int pe, int k) { return (float)(pe * 8 + k) + 0.5f; }

template <typename T> static uint16_t hbits(T v)
{
    uint16_t u;
    memcpy(&u, &v, sizeof(u));
    return u;
}

/* half and bfloat16 RMA, per type 64 elements: [0, 8) my source; [8] p,
 * [16, 24) put, [24, 32) put_nbi_block from the left; [32] g and
 * [33, 41) get, [48, 56) get_nbi_warp of the left's source. */
#define HALF_PUTS(N, P)                                                                                                \
    if (threadIdx.x == 0) {                                                                                            \
        nvshmem_##N##_p(P + 8, P[0], right);                                                                           \
        nvshmem_##N##_put(P + 16, P, 8, right);                                                                        \
    }                                                                                                                  \
    nvshmemx_##N##_put_nbi_block(P + 24, P, 8, right);
#define HALF_GETS(N, P)                                                                                                \
    if (threadIdx.x == 0) {                                                                                            \
        P[32] = nvshmem_##N##_g(P, left);                                                                              \
        nvshmem_##N##_get(P + 33, P, 8, left);                                                                         \
    }                                                                                                                  \
    if (threadIdx.x < 32) nvshmemx_##N##_get_nbi_warp(P + 48, P, 8, left);
__global__ void k_half(__half *a, __nv_bfloat16 *b)
{
    int me = nvshmem_my_pe(), n = nvshmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
    HALF_PUTS(half, a)
    HALF_PUTS(bfloat16, b)
    __syncthreads();
    if (threadIdx.x == 0) {
        nvshmem_quiet();
        nvshmem_barrier_all();
    }
    __syncthreads();
    HALF_GETS(half, a)
    HALF_GETS(bfloat16, b)
    __syncthreads();
    if (threadIdx.x == 0) nvshmem_quiet();
}
#undef HALF_PUTS
#undef HALF_GETS

/* Reductions of half (a) and bfloat16 (b) on team in one block: [0, 4)
 * sums (block for half, warp for bfloat16), [8, 12) maxima (thread for
 * half, block for bfloat16), [16, 18) a bfloat16 sum reduce-scatter
 * (block) of src [16, 16 + 2 n). */
__global__ void k_half_coll(nvshmem_team_t team, __half *as, __half *ad, __nv_bfloat16 *bs, __nv_bfloat16 *bd, int *rc)
{
    int r = nvshmemx_half_sum_reduce_block(team, ad, as, 4);
    if (threadIdx.x < 32) r |= nvshmemx_bfloat16_sum_reduce_warp(team, bd, bs, 4);
    __syncthreads();
    if (threadIdx.x == 0) r |= nvshmem_half_max_reduce(team, ad + 8, as + 8, 4);
    __syncthreads();
    r |= nvshmemx_bfloat16_max_reduce_block(team, bd + 8, bs + 8, 4);
    r |= nvshmemx_bfloat16_sum_reducescatter_block(team, bd + 16, bs + 16, 2);
    if (r != 0) atomicOr(rc, 1);
}

static int me, npes;

static void check_thread_rma(void)
{
    int *sym = (int *)nvshmem_malloc(5 * N * sizeof(int)), *got = NULL, h[2 * N], src[N];
    long long *q = NULL, hq[7];
    dev_err_t *err = NULL;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;

    CHECK(sym != NULL);
    for (int i = 0; i < N; i++) src[i] = val(me, i);
    CUDA_OK(cudaMemset(sym, 0, 4 * N * sizeof(int)));
    CUDA_OK(cudaMemcpy(sym + 4 * N, src, sizeof(src), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&got, 2 * N * sizeof(int)));
    CUDA_OK(cudaMalloc(&q, sizeof(hq)));
    CUDA_OK(cudaMalloc(&err, sizeof(*err)));
    CUDA_OK(cudaMemset(err, 0, sizeof(*err)));
    nvshmem_barrier_all();
    k_thread<<<1, 1>>>(sym, got, q, sym, err);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(err, "thread RMA kernel");
    CUDA_OK(cudaMemcpy(hq, q, sizeof(hq), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT((int)hq[0], me);
    CHECK_EQ_INT((int)hq[1], npes);
    CHECK_EQ_INT((int)hq[2], nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD));
    CHECK_EQ_INT((int)hq[3], npes);
    CHECK_MSG((void *)(uintptr_t)hq[4] == nvshmem_ptr(sym, right), "device nvshmem_ptr %p, host %p",
              (void *)(uintptr_t)hq[4], nvshmem_ptr(sym, right));
    CHECK_EQ_INT((int)hq[5], right);
    CHECK_EQ_INT((int)hq[6], NVSHMEM_MAJOR_VERSION * 100 + NVSHMEM_MINOR_VERSION);
    /* what left put into my blocks 0-3 */
    for (int b = 0; b < 3; b++) {
        CUDA_OK(cudaMemcpy(h, sym + b * N, N * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            CHECK_MSG(h[i] == val(left, i), "block %d [%d] = %d, want %d", b, i, h[i], val(left, i));
    }
    CUDA_OK(cudaMemcpy(h, sym + 3 * N, N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i += 2) CHECK_MSG(h[i] == val(left, i), "iput [%d] = %d, want %d", i, h[i], val(left, i));
    CHECK_EQ_INT(h[1], -left);
    CUDA_OK(cudaMemcpy(h, got, 2 * N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) CHECK_MSG(h[i] == val(left, i), "getmem [%d] = %d, want %d", i, h[i], val(left, i));
    for (int i = 0; i < N / 2; i++)
        CHECK_MSG(h[N + i] == val(left, 2 * i), "iget [%d] = %d, want %d", i, h[N + i], val(left, 2 * i));

    /* warp and block forms */
    CUDA_OK(cudaMemset(sym, 0, 3 * N * sizeof(int)));
    nvshmem_barrier_all();
    k_group<<<1, 128>>>(sym);
    CUDA_OK(cudaDeviceSynchronize());
    for (int b = 0; b < 2; b++) {
        CUDA_OK(cudaMemcpy(h, sym + b * N, N * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            CHECK_MSG(h[i] == val(left, i), "group block %d [%d] = %d, want %d", b, i, h[i], val(left, i));
    }
    CUDA_OK(cudaMemcpy(h, sym + 2 * N, N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        CHECK_MSG(h[i] == (i % 2 ? 0 : val(left, i)), "iput_block [%d] = %d, want %d", i, h[i],
                  i % 2 ? 0 : val(left, i));
    nvshmem_barrier_all();
    nvshmem_free(sym);
    CUDA_OK(cudaFree(got));
    CUDA_OK(cudaFree(q));
    CUDA_OK(cudaFree(err));
    check_note("thread, warp and block RMA to PE %d (%s): ok", right,
               nvshmem_ptr(sym, right) != NULL ? "load/store" : "device proxy");
}

/* The stream forms: _nbi, sized and signalled puts, an _nbi get, waits on
 * the stream (uint64 signal EQ, int vector EQ); then a stream barrier, and
 * every block holds the left neighbour's data. */
static void check_stream_forms(void)
{
    int *sym = (int *)nvshmem_malloc(8 * N * sizeof(int)), *src = NULL, h[N], hs[N];
    uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t)), hsig = 0;
    int *flags = (int *)nvshmem_calloc(2, sizeof(int));
    int right = (me + 1) % npes, left = (me + npes - 1) % npes, want_flags[2] = {4, 9}, *d_want = NULL;
    cudaStream_t s;

    CHECK(sym != NULL && sig != NULL && flags != NULL);
    for (int i = 0; i < N; i++) hs[i] = val(me, i);
    CUDA_OK(cudaMalloc(&src, sizeof(hs)));
    CUDA_OK(cudaMemcpy(src, hs, sizeof(hs), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(sym, 0, 8 * N * sizeof(int)));
    CUDA_OK(cudaMemcpy(sym + 4 * N, hs, sizeof(hs), cudaMemcpyHostToDevice));
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_OK(cudaMalloc(&d_want, sizeof(want_flags)));
    CUDA_OK(cudaMemcpy(d_want, want_flags, sizeof(want_flags), cudaMemcpyHostToDevice));
    CUDA_OK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    nvshmemx_int_put_nbi_on_stream(sym, src, N, right, s);
    nvshmemx_put32_on_stream(sym + N, src, N, right, s);
    nvshmemx_put64_nbi_on_stream(sym + 2 * N, src, N / 2, right, s);
    nvshmemx_get32_nbi_on_stream(sym + 3 * N, sym + 4 * N, N, left, s);
    nvshmemx_int_put_signal_on_stream(sym + 5 * N, src, N, sig, 1, NVSHMEM_SIGNAL_ADD, right, s);
    nvshmemx_put16_signal_nbi_on_stream(sym + 6 * N, src, 2 * N, sig, 1, NVSHMEM_SIGNAL_ADD, right, s);
    nvshmemx_putmem_signal_nbi_on_stream(sym + 7 * N, src, N * sizeof(int), sig, 1, NVSHMEM_SIGNAL_ADD, right, s);
    nvshmemx_int_p_on_stream(&flags[0], want_flags[0], right, s);
    nvshmemx_int_p_on_stream(&flags[1], want_flags[1], right, s);
    nvshmemx_uint64_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, 3, s);
    /* cmp_values in device memory, as NVSHMEM programs pass them: read when the wait runs */
    nvshmemx_int_wait_until_all_vector_on_stream(flags, 2, NULL, NVSHMEM_CMP_EQ, d_want, s);
    nvshmemx_barrier_all_on_stream(s);
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaMemcpy(&hsig, sig, sizeof(hsig), cudaMemcpyDeviceToHost));
    CHECK_MSG(hsig == 3, "stream forms: the signal is %llu after three signalled puts, expected 3",
              (unsigned long long)hsig);
    CUDA_OK(cudaMemcpy(h, flags, 2 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_MSG(h[0] == 4 && h[1] == 9, "stream forms: flags %d %d, expected 4 9", h[0], h[1]);
    for (int b = 0; b < 8; b++) {
        if (b == 4) continue; /* my own source block */
        CUDA_OK(cudaMemcpy(h, sym + b * N, N * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++)
            CHECK_MSG(h[i] == val(left, i), "stream forms: block %d [%d] = %d, want %d", b, i, h[i], val(left, i));
    }
    nvshmem_barrier_all();
    CUDA_OK(cudaStreamDestroy(s));
    CUDA_OK(cudaFree(src));
    CUDA_OK(cudaFree(d_want));
    nvshmem_free(flags);
    nvshmem_free(sig);
    nvshmem_free(sym);
    check_note("stream forms to PE %d: int_put_nbi, put32, put64_nbi, get32_nbi, int_put_signal, put16_signal_nbi, "
               "putmem_signal_nbi, then uint64 wait_until and int wait_until_all_vector on the stream: ok",
               right);
}

static void check_atomics_signals(void)
{
    const int iters = 500;
    struct words {
        unsigned long long ctr;
        int cas;
        float fl;
        unsigned int bits;
    } *w = (struct words *)nvshmem_calloc(1, sizeof(struct words)), hw;
    long *data = (long *)nvshmem_calloc(2, sizeof(long));
    uint64_t *sig = (uint64_t *)nvshmem_calloc(1, sizeof(uint64_t));
    int *words = (int *)nvshmem_calloc(64, sizeof(int));
    dev_err_t *err = NULL;
    float minus1 = -1.0f;

    CHECK(w != NULL && data != NULL && sig != NULL && words != NULL && npes <= 32);
    CUDA_OK(cudaMemcpy(&w->fl, &minus1, sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMalloc(&err, sizeof(*err)));
    CUDA_OK(cudaMemset(err, 0, sizeof(*err)));
    nvshmem_barrier_all();
    k_atomic<<<1, 1>>>(&w->ctr, &w->cas, &w->fl, &w->bits, iters, err);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(err, "atomics kernel");
    if (me == 0) {
        CUDA_OK(cudaMemcpy(&hw, w, sizeof(hw), cudaMemcpyDeviceToHost));
        CHECK_MSG(hw.ctr == (unsigned long long)iters * npes, "fetch_add storm: %llu, want %llu", hw.ctr,
                  (unsigned long long)iters * npes);
        CHECK_MSG(hw.cas >= 1 && hw.cas <= npes, "compare_swap: %d", hw.cas);
        CHECK_MSG(hw.bits == (npes == 32 ? ~0u : (1u << npes) - 1), "fetch_or bits %#x", hw.bits);
        CHECK_MSG(hw.fl >= 0.5f && hw.fl < npes, "float swap left %g", hw.fl);
    }
    k_signal<<<1, 1>>>(data, sig, words, err);
    CUDA_OK(cudaDeviceSynchronize());
    check_dev_err(err, "signal kernel");
    nvshmem_barrier_all();
    nvshmem_free(words);
    nvshmem_free(sig);
    nvshmem_free(data);
    nvshmem_free(w);
    CUDA_OK(cudaFree(err));
    check_note("atomics from %d PEs (%d adds each), %d signal rounds, vector waits: ok", npes, iters, ROUNDS);
}

/* Collectives on team by collective launch: every PE calls (the heap's
 * allocations are collective over the world), the members run the kernel. */
static void check_coll(nvshmem_team_t team, const char *what)
{
    int nt = nvshmem_team_n_pes(team), mt = nvshmem_team_my_pe(team);
    int *bsrc = (int *)nvshmem_malloc(64 * sizeof(int)), *bdst = (int *)nvshmem_malloc(64 * sizeof(int));
    int *fdst = (int *)nvshmem_malloc(64 * npes * sizeof(int)), *asrc = (int *)nvshmem_malloc(16 * npes * sizeof(int));
    int *adst = (int *)nvshmem_malloc(16 * npes * sizeof(int)), *rmax = (int *)nvshmem_malloc(2 * sizeof(int));
    double *rsrc = (double *)nvshmem_malloc(RED * sizeof(double)),
           *rdst = (double *)nvshmem_malloc(RED * sizeof(double));
    int *rsdst = (int *)nvshmem_malloc(36 * sizeof(int));
    int hb[64], hf[64 * 64], ha[16 * 64], hm[2] = {mt * 3 + 1, 0}, hs[36], grid = 0;
    double hr[RED];

    CHECK(npes <= 64);
    if (team != NVSHMEM_TEAM_INVALID) { /* a member */
        CHECK(nt >= 1 && mt >= 0);
        for (int i = 0; i < 64; i++) hb[i] = val(mt, i);
        for (int i = 0; i < 16 * nt; i++) ha[i] = val(mt, i);
        for (int i = 0; i < RED; i++) hr[i] = mt + i * 0.5;
        CUDA_OK(cudaMemcpy(bsrc, hb, sizeof(hb), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(asrc, ha, 16 * nt * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(rsrc, hr, sizeof(hr), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(rmax, hm, sizeof(hm), cudaMemcpyHostToDevice));
    }
    nvshmem_barrier_all(); /* every PE: members' sources are ready */
    if (team != NVSHMEM_TEAM_INVALID) {
        void *args[] = {&team, &bsrc, &bdst, &fdst, &asrc, &adst, &rsrc, &rdst, &rmax, &rsdst};
        CHECK_EQ_INT(nvshmemx_collective_launch_query_gridsize((const void *)k_coll, dim3(256), args, 0, &grid),
                     NVSHMEMX_SUCCESS);
        CHECK_MSG(grid >= 1, "query_gridsize gave %d", grid);
        CHECK_EQ_INT(nvshmemx_collective_launch((const void *)k_coll, dim3(1), dim3(256), args, 0, 0),
                     NVSHMEMX_SUCCESS);
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(hm, rmax, sizeof(hm), cudaMemcpyDeviceToHost));
        CHECK_MSG(hm[1] == 0, "%s: a collective returned %d in the kernel", what, hm[1]);
        CHECK_EQ_INT(hm[0], (nt - 1) * 3 + 1);
        CUDA_OK(cudaMemcpy(hb, bdst, sizeof(hb), cudaMemcpyDeviceToHost));
        for (int i = 0; i < 64; i++) CHECK_MSG(hb[i] == val(0, i), "%s broadcast [%d] = %d", what, i, hb[i]);
        CUDA_OK(cudaMemcpy(hf, fdst, 64 * nt * sizeof(int), cudaMemcpyDeviceToHost));
        for (int k = 0; k < nt; k++)
            for (int i = 0; i < 64; i++) CHECK_MSG(hf[k * 64 + i] == val(k, i), "%s fcollect [%d][%d]", what, k, i);
        CUDA_OK(cudaMemcpy(ha, adst, 16 * nt * sizeof(int), cudaMemcpyDeviceToHost));
        for (int k = 0; k < nt; k++)
            for (int i = 0; i < 16; i++)
                CHECK_MSG(ha[k * 16 + i] == val(k, mt * 16 + i), "%s alltoall [%d][%d] = %d", what, k, i,
                          ha[k * 16 + i]);
        CUDA_OK(cudaMemcpy(hr, rdst, sizeof(hr), cudaMemcpyDeviceToHost));
        for (int i = 0; i < RED; i++) {
            double want = nt * (nt - 1) / 2.0 + nt * i * 0.5;
            CHECK_MSG(hr[i] == want, "%s sum [%d] = %g, want %g", what, i, hr[i], want);
        }
        /* block mt of every member's asrc (val grows with the member) */
        CUDA_OK(cudaMemcpy(hs, rsdst, sizeof(hs), cudaMemcpyDeviceToHost));
        for (int i = 0; i < 16; i++) {
            int sum = 0;
            for (int k = 0; k < nt; k++) sum += val(k, mt * 16 + i);
            CHECK_MSG(hs[i] == sum, "%s sum_reducescatter_block [%d] = %d, want %d", what, i, hs[i], sum);
            CHECK_MSG(hs[16 + i] == val(nt - 1, mt * 16 + i), "%s max_reducescatter_warp [%d] = %d, want %d", what, i,
                      hs[16 + i], val(nt - 1, mt * 16 + i));
        }
        for (int i = 0; i < 4; i++)
            CHECK_MSG(hs[32 + i] == val(0, mt * 4 + i), "%s min_reducescatter [%d] = %d, want %d", what, i, hs[32 + i],
                      val(0, mt * 4 + i));
        check_note("%s (%d members): kernel broadcast, fcollect, alltoall, sum and max reductions, reduce-scatters: ok",
                   what, nt);
    }
    nvshmem_barrier_all();
    nvshmem_free(rsdst);
    nvshmem_free(rdst);
    nvshmem_free(rsrc);
    nvshmem_free(rmax);
    nvshmem_free(adst);
    nvshmem_free(asrc);
    nvshmem_free(fdst);
    nvshmem_free(bdst);
    nvshmem_free(bsrc);
}

/* half and bfloat16 in kernels: RMA across the ring (every PE), then
 * reductions on team (its members) by collective launch, and on the world
 * a put and reductions on a stream. Member i's sources, at k: sums [0, 2)
 * i + k; [2] 1 from member 0 plus half a step of 1 from member 1, [3] one
 * step more than 1 plus half a step (ties: down to 1, up to 1 + 2 steps;
 * the members past 1 give 0); maxima [8, 12) (3i + k) mod 5 - 2; the
 * reduce-scatter's block j, element k: i + j + k. */
#define HALF_SRC(P, MK, ONE_UP, TIE)                                                                                   \
    for (int k = 0; k < 2; k++) P[k] = MK((float)(mt + k));                                                            \
    P[2] = MK(mt == 0 ? 1.0f : mt == 1 ? TIE : 0.0f);                                                                  \
    P[3] = MK(mt == 0 ? ONE_UP : mt == 1 ? TIE : 0.0f);                                                                \
    for (int k = 0; k < 4; k++) P[8 + k] = MK((float)((3 * mt + k) % 5 - 2));                                          \
    for (int j = 0; j < nt; j++)                                                                                       \
        for (int k = 0; k < 2; k++) P[16 + j * 2 + k] = MK((float)(mt + j + k));
/* The sums at P + sum, the maxima at P + max (unless -1). */
#define HALF_WANT(P, MK, ONE_UP, UP2, sum, max, what)                                                                  \
    for (int k = 0; k < 4; k++) {                                                                                      \
        int hi = -9;                                                                                                   \
        for (int i = 0; i < nt; i++) hi = (3 * i + k) % 5 - 2 > hi ? (3 * i + k) % 5 - 2 : hi;                         \
        float want = k < 2 ? (float)(nt * (nt - 1) / 2 + nt * k) : k == 2 ? 1.0f : nt == 1 ? ONE_UP : UP2;             \
        CHECK_MSG(hbits(P[sum + k]) == hbits(MK(want)), "%s: " #MK " sum [%d] is %#06x, want %#06x", what, k,          \
                  hbits(P[sum + k]), hbits(MK(want)));                                                                 \
        if (max >= 0)                                                                                                  \
            CHECK_MSG(hbits(P[max + k]) == hbits(MK((float)hi)), "%s: " #MK " max [%d] is %#06x, want %d", what, k,    \
                      hbits(P[max + k]), hi);                                                                          \
    }

/* 1 + 2^-10 and 1 + 2^-9 (half), 1 + 2^-7 and 1 + 2^-6 (bfloat16), half a step of 1: 2^-11, 2^-8. */
#define HALF_UP 1.0009765625f
#define HALF_UP2 1.001953125f
#define HALF_TIE 0.00048828125f
#define BF16_UP 1.0078125f
#define BF16_UP2 1.015625f
#define BF16_TIE 0.00390625f

static void check_half(nvshmem_team_t team, const char *what)
{
    enum { SRC = 16 + 2 * 64 };
    int nt = nvshmem_team_n_pes(team), mt = nvshmem_team_my_pe(team), right = (me + 1) % npes,
        left = (me + npes - 1) % npes, *rc = NULL, hrc = 0;
    __half *a = (__half *)nvshmem_calloc(64, sizeof(__half)), *as = (__half *)nvshmem_malloc(SRC * sizeof(__half)),
           *ad = (__half *)nvshmem_malloc(64 * sizeof(__half)), ah[SRC], ag[64];
    __nv_bfloat16 *b = (__nv_bfloat16 *)nvshmem_calloc(64, sizeof(__nv_bfloat16)),
                  *bs = (__nv_bfloat16 *)nvshmem_malloc(SRC * sizeof(__nv_bfloat16)),
                  *bd = (__nv_bfloat16 *)nvshmem_malloc(64 * sizeof(__nv_bfloat16)), bh[SRC], bg[64];

    CHECK(a != NULL && as != NULL && ad != NULL && b != NULL && bs != NULL && bd != NULL && npes <= 64);
    /* RMA, every PE: puts came from the left, gets read the left's source */
    for (int k = 0; k < 8; k++) {
        ah[k] = __float2half(hval(me, k));
        bh[k] = __float2bfloat16(hval(me, k));
    }
    CUDA_OK(cudaMemcpy(a, ah, 8 * sizeof(__half), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(b, bh, 8 * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
    nvshmem_barrier_all();
    k_half<<<1, 64>>>(a, b);
    CUDA_OK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    CUDA_OK(cudaMemcpy(ag, a, sizeof(ag), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(bg, b, sizeof(bg), cudaMemcpyDeviceToHost));
    for (int w = 0; w < 6; w++) {
        static const int at[] = {8, 32, 16, 24, 33, 48}, len[] = {1, 1, 8, 8, 8, 8};
        for (int k = 0; k < len[w]; k++) {
            CHECK_MSG(hbits(ag[at[w] + k]) == hbits(__float2half(hval(left, k))), "half RMA: [%d] is %#06x, want %g",
                      at[w] + k, hbits(ag[at[w] + k]), (double)hval(left, k));
            CHECK_MSG(hbits(bg[at[w] + k]) == hbits(__float2bfloat16(hval(left, k))),
                      "bfloat16 RMA: [%d] is %#06x, want %g", at[w] + k, hbits(bg[at[w] + k]), (double)hval(left, k));
        }
    }

    /* reductions on team, by its members */
    CUDA_OK(cudaMalloc(&rc, sizeof(int)));
    CUDA_OK(cudaMemset(rc, 0, sizeof(int)));
    if (team != NVSHMEM_TEAM_INVALID) {
        HALF_SRC(ah, __float2half, HALF_UP, HALF_TIE)
        HALF_SRC(bh, __float2bfloat16, BF16_UP, BF16_TIE)
        CUDA_OK(cudaMemcpy(as, ah, sizeof(ah), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemcpy(bs, bh, sizeof(bh), cudaMemcpyHostToDevice));
    }
    nvshmem_barrier_all(); /* every member's sources are ready */
    if (team != NVSHMEM_TEAM_INVALID) {
        void *args[] = {&team, &as, &ad, &bs, &bd, &rc};
        CHECK_EQ_INT(nvshmemx_collective_launch((const void *)k_half_coll, dim3(1), dim3(128), args, 0, 0),
                     NVSHMEMX_SUCCESS);
        CUDA_OK(cudaDeviceSynchronize());
        CUDA_OK(cudaMemcpy(&hrc, rc, sizeof(int), cudaMemcpyDeviceToHost));
        CHECK_MSG(hrc == 0, "%s: a half or bfloat16 collective returned nonzero in the kernel", what);
        CUDA_OK(cudaMemcpy(ag, ad, sizeof(ag), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(bg, bd, sizeof(bg), cudaMemcpyDeviceToHost));
        HALF_WANT(ag, __float2half, HALF_UP, HALF_UP2, 0, 8, what)
        HALF_WANT(bg, __float2bfloat16, BF16_UP, BF16_UP2, 0, 8, what)
        for (int k = 0; k < 2; k++)
            CHECK_MSG(hbits(bg[16 + k]) == hbits(__float2bfloat16((float)(nt * (nt - 1) / 2 + nt * (mt + k)))),
                      "%s: bfloat16 sum_reducescatter_block [%d] is %#06x", what, k, hbits(bg[16 + k]));
    }
    nvshmem_barrier_all();
    if (team == NVSHMEM_TEAM_WORLD) {
        /* on a stream: a put to the right, sums of the same sources (the stream's kernels), a maximum */
        cudaStream_t s;
        CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        nvshmemx_half_put_on_stream(ad + 40, as, 2, right, s);
        CHECK_EQ_INT(nvshmemx_half_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, ad + 32, as, 4, s), 0);
        CHECK_EQ_INT(nvshmemx_bfloat16_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, bd + 32, bs, 4, s), 0);
        CHECK_EQ_INT(nvshmemx_bfloat16_max_reduce_on_stream(NVSHMEM_TEAM_WORLD, bd + 40, bs + 8, 4, s), 0);
        nvshmemx_barrier_all_on_stream(s);
        CUDA_OK(cudaStreamSynchronize(s));
        CUDA_OK(cudaStreamDestroy(s));
        CUDA_OK(cudaMemcpy(ag, ad, sizeof(ag), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(bg, bd, sizeof(bg), cudaMemcpyDeviceToHost));
        HALF_WANT(ag, __float2half, HALF_UP, HALF_UP2, 32, -1, "on a stream")
        HALF_WANT(bg, __float2bfloat16, BF16_UP, BF16_UP2, 32, 40, "on a stream")
        for (int k = 0; k < 2; k++)
            CHECK_MSG(hbits(ag[40 + k]) == hbits(__float2half((float)(left + k))),
                      "half_put_on_stream: [%d] is %#06x, want %d", k, hbits(ag[40 + k]), left + k);
    }
    nvshmem_barrier_all();
    CUDA_OK(cudaFree(rc));
    nvshmem_free(bd);
    nvshmem_free(bs);
    nvshmem_free(b);
    nvshmem_free(ad);
    nvshmem_free(as);
    nvshmem_free(a);
    if (team != NVSHMEM_TEAM_INVALID)
        check_note("%s (%d members): half and bfloat16 RMA, reductions (ties rounded to even) and a reduce-scatter in "
                   "kernels%s: ok",
                   what, nt, team == NVSHMEM_TEAM_WORLD ? ", a put and reductions on a stream" : "");
}
#undef HALF_SRC
#undef HALF_WANT

/* A kernel's refused call traps and says why; stdout goes to a file meanwhile. */
static void check_trap(int *sym)
{
    char path[] = "/tmp/shoal-nvtrap-XXXXXX", buf[4096] = "", want[160];
    int fd = mkstemp(path), saved = dup(1);

    CHECK(fd >= 0 && saved >= 0);
    fflush(stdout);
    CHECK(dup2(fd, 1) == 1);
    k_bad_p<<<1, 1>>>(sym, npes);
    cudaError_t e = cudaDeviceSynchronize();
    fflush(stdout);
    CHECK(dup2(saved, 1) == 1);
    CHECK(pread(fd, buf, sizeof(buf) - 1, 0) >= 0);
    close(fd);
    unlink(path);
    CHECK_MSG(e != cudaSuccess, "the kernel did not trap");
    snprintf(want, sizeof(want), "shoal: PE %d: nvshmem_int_p (PE %d) in a kernel: SHOAL_ERR_PE", me, npes);
    CHECK_MSG(strstr(buf, want) != NULL, "the kernel printed \"%s\", not \"%s\"", buf, want);
    check_note("trapped with: %s", strtok(buf, "\n"));
}

int main(int argc, char **argv)
{
    bool trap = argc > 1 && strcmp(argv[1], "trap") == 0;
    int provided = 0, ndev = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
        check_note("no GPU: skipped");
        MPI_Finalize();
        return TEST_SKIP;
    }
    if (provided != MPI_THREAD_MULTIPLE) {
        check_note("MPI gives no MPI_THREAD_MULTIPLE (the device proxy needs it): skipped");
        MPI_Finalize();
        return TEST_SKIP;
    }
    {
        /* PEs that wait for each other in kernels must run side by side. */
        shoal_t probe = gpu_test_instance((size_t)1 << 20);
        gpu_test_need_concurrent_kernels(probe, "a kernel barrier");
        SH_OK(probe, shoal_finalize(probe));
    }
    setenv("NVSHMEM_SYMMETRIC_SIZE", "256M", 0);
    nvshmem_init(); /* joins the MPI the program started */
    me = nvshmem_my_pe();
    npes = nvshmem_n_pes();
    CHECK_EQ_INT(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
    if (trap) {
        /* One PE traps: where PEs share a GPU under MPS, a client's trap
         * ends every client's context, so a second trap could not print. */
        int *sym = (int *)nvshmem_malloc(sizeof(int));
        CHECK(sym != NULL);
        nvshmem_barrier_all();
        if (me == npes - 1)
            check_trap(sym);
        else
            check_note("the trap is PE %d's (one PE traps: under MPS a trap ends every client's context)", npes - 1);
        /* The context is gone after a trap: end without nvshmem_finalize. */
        CHECK_EQ_INT(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
        MPI_Finalize();
        return 0;
    }
    check_thread_rma();
    check_stream_forms();
    check_atomics_signals();
    check_coll(NVSHMEM_TEAM_WORLD, "NVSHMEM_TEAM_WORLD");
    check_half(NVSHMEM_TEAM_WORLD, "NVSHMEM_TEAM_WORLD");
    if (npes >= 2) {
        /* The even PEs: the kernels' copy of the state must learn the team. */
        nvshmem_team_t even = NVSHMEM_TEAM_INVALID;
        CHECK_EQ_INT(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even), 0);
        CHECK_MSG((even != NVSHMEM_TEAM_INVALID) == (me % 2 == 0), "PE %d: split handle %d", me, (int)even);
        check_coll(even, "the even PEs' team");
        check_half(even, "the even PEs' team");
        if (even != NVSHMEM_TEAM_INVALID) nvshmem_team_destroy(even);
        nvshmem_barrier_all();
    }
    nvshmem_finalize();
    MPI_Finalize();
    return 0;
}
