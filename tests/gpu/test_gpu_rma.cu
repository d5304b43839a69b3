/* GPU heap: every put/get direction over cuda_ipc (host and device sources,
 * peer device targets, gets back), large and unaligned sizes, nbi + quiet,
 * typed p/g, calloc, shoal_ptr stores from a kernel, and stream ordering
 * with a kernel that consumes the data after barrier_all_on_stream. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "shoal.h"
#include "shoal_cuda.h"
#include "common/gpu_check.h"

__global__ void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = (unsigned char)(i * 131u + seed);
}

/* Sum of bytes, into *out (one block of 256 threads). */
__global__ void sum_bytes(const unsigned char *p, size_t n, unsigned long long *out)
{
    __shared__ unsigned long long part[256];
    unsigned long long s = 0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) s += p[i];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long t = 0;
        for (int i = 0; i < 256; i++) t += part[i];
        *out = t;
    }
}

__global__ void store_ints(int *peer, int n, int value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) peer[i] = value + i;
}

static unsigned char pattern(size_t i, unsigned seed) { return (unsigned char)(i * 131u + seed); }

/* Compare n bytes of device memory d with the pattern. */
static void check_device(const void *d, size_t n, unsigned seed, const char *what)
{
    unsigned char *h = (unsigned char *)malloc(n);
    CHECK(h != NULL);
    CUDA_OK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(h[i] == pattern(i, seed), "%s: byte %zu is %u, expected %u", what, i, h[i], pattern(i, seed));
    free(h);
}

int main(int argc, char **argv)
{
    shoal_t sh;
    int me, npes, right, left;
    const size_t big = (size_t)64 << 20;
    const char *name = NULL;
    const char *expect_tp = getenv("SHOAL_TEST_EXPECT_TRANSPORT");

    gpu_test_start(&argc, &argv);
    sh = gpu_test_instance((size_t)512 << 20);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK_EQ_INT(shoal_heap_kind(sh), SHOAL_HEAP_GPU);
    CHECK(shoal_cuda_device(sh) >= 0);
    SH_OK(sh, shoal_pe_transport(sh, right, &name));
    {
        /* Node peers: cuda_ipc (or what the test's environment forces);
         * PEs on other SHOAL_NODE_SIZE nodes: mpi_rma. */
        const char *ns = getenv("SHOAL_NODE_SIZE");
        int node_size = ns ? atoi(ns) : 0;
        bool other_node = node_size > 0 && me / node_size != right / node_size;
        const char *want = other_node ? "mpi_rma" : expect_tp ? expect_tp : "cuda_ipc";
        if (right != me) CHECK_MSG(strcmp(name, want) == 0, "transport to PE %d is %s, expected %s", right, name, want);
    }
    check_note("GPU %d, transport to PE %d: %s", shoal_cuda_device(sh), right, name);
    CHECK_EQ_INT(shoal_device_reachable(sh, right), right == me || strcmp(name, "cuda_ipc") == 0);

    /* Which PEs share this PE's GPU, with MPS or without: the instance's
     * answer against what each PE's own GPU says (UUID, cudaDevAttrMpsEnabled),
     * gathered here. PEs of other (SHOAL_NODE_SIZE) nodes never share. */
    {
        struct gpu_fact {
            unsigned char uuid[16];
            int mps, node;
        } mine, *all = (struct gpu_fact *)malloc(sizeof(struct gpu_fact) * (size_t)npes);
        cudaDeviceProp prop;
        int dev = shoal_cuda_device(sh), sharers = 0;
        CHECK(all != NULL);
        memset(&mine, 0, sizeof(mine));
        CUDA_OK(cudaGetDeviceProperties(&prop, dev));
        memcpy(mine.uuid, prop.uuid.bytes, sizeof(mine.uuid));
        CUDA_OK(cudaDeviceGetAttribute(&mine.mps, cudaDevAttrMpsEnabled, dev));
        mine.node = shoal_pe_node(sh, me);
        CHECK_EQ_INT(MPI_Allgather(&mine, sizeof(mine), MPI_BYTE, all, sizeof(mine), MPI_BYTE, MPI_COMM_WORLD),
                     MPI_SUCCESS);
        for (int pe = 0; pe < npes; pe++) {
            bool same = pe != me && all[pe].node == mine.node && memcmp(all[pe].uuid, mine.uuid, 16) == 0;
            int want = !same ? SHOAL_GPU_SEPARATE : mine.mps && all[pe].mps ? SHOAL_GPU_SHARED_MPS : SHOAL_GPU_SHARED;
            int got = shoal_pe_gpu_shared(sh, pe);
            CHECK_MSG(got == want, "shoal_pe_gpu_shared(PE %d) = %d, expected %d (%s GPU, MPS %d here, %d there)", pe,
                      got, want, same ? "one" : "not one", mine.mps, all[pe].mps);
            sharers += same;
        }
        check_note("%d other PE(s) of this node on this GPU; MPS %s", sharers, mine.mps ? "active" : "not active");
        free(all);
    }

    /* A second, independent instance on the same GPUs: its data stays its own. */
    {
        shoal_config_t cfg2;
        shoal_t sh2;
        shoal_config_init(&cfg2);
        cfg2.heap_kind = SHOAL_HEAP_GPU;
        cfg2.heap_size = (size_t)8 << 20;
        SH_OK(NULL, shoal_init(MPI_COMM_WORLD, &cfg2, &sh2));
        int *a = (int *)shoal_malloc(sh2, 64 * sizeof(int));
        CHECK(a != NULL);
        int v[64], w[64];
        for (int i = 0; i < 64; i++) v[i] = 7000 + me * 64 + i;
        SH_OK(sh2, shoal_int_put(sh2, a, v, 64, right));
        SH_OK(sh2, shoal_barrier_all(sh2));
        SH_OK(sh2, shoal_int_get(sh2, w, a, 64, me));
        for (int i = 0; i < 64; i++) CHECK_EQ_INT(w[i], 7000 + left * 64 + i);
        SH_OK(sh2, shoal_free(sh2, a));
        SH_OK(sh2, shoal_finalize(sh2));
    }

    unsigned char *buf = (unsigned char *)shoal_malloc(sh, big + 64);
    CHECK_MSG(buf != NULL, "shoal_malloc: %s", shoal_last_error(sh));
    unsigned char *hsrc = (unsigned char *)malloc(big + 64), *hdst = (unsigned char *)malloc(big + 64);
    unsigned char *dsrc = NULL;
    CHECK(hsrc && hdst);
    CUDA_OK(cudaMalloc(&dsrc, big + 64));

    /* 1. host source -> peer device, several sizes, unaligned offsets. */
    const size_t sizes[] = {1, 7, 8, 4096 + 3, (size_t)1 << 20, big};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        size_t n = sizes[k], off = (k & 1) ? 3 : 0;
        unsigned seed = (unsigned)(me * 17 + k);
        for (size_t i = 0; i < n; i++) hsrc[i] = pattern(i, seed);
        SH_OK(sh, shoal_put(sh, buf + off, hsrc, n, right));
        SH_OK(sh, shoal_barrier_all(sh));
        check_device(buf + off, n, (unsigned)(left * 17 + k), "host->peer put");
        /* get back what the right neighbour received from me */
        memset(hdst, 0, n);
        SH_OK(sh, shoal_get(sh, hdst, buf + off, n, right));
        for (size_t i = 0; i < n; i++) CHECK_MSG(hdst[i] == pattern(i, seed), "get back: byte %zu", i);
        SH_OK(sh, shoal_barrier_all(sh));
    }

    /* 2. device source -> peer device (nbi + quiet), then device get into device memory. */
    fill<<<256, 256>>>(dsrc, big, 1000u + me);
    CUDA_OK(cudaDeviceSynchronize());
    SH_OK(sh, shoal_put_nbi(sh, buf + 5, dsrc, big - 5, right));
    SH_OK(sh, shoal_quiet(sh));
    SH_OK(sh, shoal_barrier_all(sh));
    check_device(buf + 5, big - 5, 1000u + left, "device->peer put_nbi");
    CUDA_OK(cudaMemset(dsrc, 0, big));
    SH_OK(sh, shoal_get(sh, dsrc, buf + 5, big - 5, right));
    check_device(dsrc, big - 5, 1000u + me, "peer->device get");
    SH_OK(sh, shoal_barrier_all(sh));

    /* 3. typed p/g and calloc on the GPU heap. */
    long *cells = (long *)shoal_calloc(sh, (size_t)npes, sizeof(long));
    CHECK_MSG(cells != NULL, "shoal_calloc: %s", shoal_last_error(sh));
    long zero[64] = {0};
    CUDA_OK(cudaMemcpy(zero, cells, sizeof(long) * (size_t)(npes < 64 ? npes : 64), cudaMemcpyDeviceToHost));
    for (int i = 0; i < npes && i < 64; i++) CHECK_EQ_INT(zero[i], 0);
    SH_OK(sh, shoal_long_p(sh, &cells[me], 1000L * me + 7, right));
    SH_OK(sh, shoal_barrier_all(sh));
    long v = -1;
    SH_OK(sh, shoal_long_g(sh, &v, &cells[left], me));
    CHECK_EQ_INT(v, 1000L * left + 7);
    SH_OK(sh, shoal_long_g(sh, &v, &cells[me], right));
    CHECK_EQ_INT(v, 1000L * me + 7);

    /* 4. shoal_ptr: a kernel stores straight into the peer's heap. */
    int *ints = (int *)shoal_malloc(sh, 1024 * sizeof(int));
    CHECK(ints != NULL);
    int *peer_ints = (int *)shoal_ptr(sh, ints, right);
    if (strcmp(name, "staged") == 0 || strcmp(name, "mpi_rma") == 0)
        CHECK_MSG(peer_ints == NULL, "shoal_ptr over %s must be NULL", name);
    if (strcmp(name, "cuda_ipc") == 0 || right == me) {
        CHECK_MSG(peer_ints != NULL, "shoal_ptr(%d) is NULL over %s", right, name);
        store_ints<<<4, 256>>>(peer_ints, 1024, 100 * me);
        CUDA_OK(cudaDeviceSynchronize());
    }
    /* Every PE meets, whether or not it stored (on two nodes some pairs
     * are mpi_rma); the left neighbour stored here if it reaches us. */
    SH_OK(sh, shoal_barrier_all(sh));
    {
        const char *left_name = NULL;
        SH_OK(sh, shoal_pe_transport(sh, left, &left_name));
        if (strcmp(left_name, "cuda_ipc") == 0 || left == me) {
            int h[1024];
            CUDA_OK(cudaMemcpy(h, ints, sizeof(h), cudaMemcpyDeviceToHost));
            for (int i = 0; i < 1024; i++) CHECK_EQ_INT(h[i], 100 * left + i);
        }
    }

    /* 5. Stream ordering: fill -> put_on_stream -> barrier_on_stream -> a
     * kernel on the receiver sums what arrived; nothing syncs the host between. */
    cudaStream_t st;
    CUDA_OK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    unsigned long long *dsum = NULL, hsum = 0;
    CUDA_OK(cudaMalloc(&dsum, sizeof(*dsum)));
    for (int round = 0; round < 20; round++) {
        size_t n = ((size_t)1 << 20) + (size_t)round * 999;
        unsigned seed = (unsigned)(round * 7 + me);
        fill<<<128, 256, 0, st>>>(dsrc, n, seed);
        SH_OK(sh, shoal_put_on_stream(sh, buf, dsrc, n, right, st));
        SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
        sum_bytes<<<1, 256, 0, st>>>(buf, n, dsum);
        /* nobody may overwrite buf before every PE summed it */
        SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
        CUDA_OK(cudaMemcpyAsync(&hsum, dsum, sizeof(hsum), cudaMemcpyDeviceToHost, st));
        CUDA_OK(cudaStreamSynchronize(st));
        unsigned long long expect = 0;
        for (size_t i = 0; i < n; i++) expect += pattern(i, (unsigned)(round * 7 + left));
        CHECK_MSG(hsum == expect, "round %d: stream-ordered sum %llu, expected %llu", round, hsum, expect);
    }
    /* get_on_stream + typed on stream */
    int *back = NULL;
    CUDA_OK(cudaMalloc(&back, 1024 * sizeof(int)));
    SH_OK(sh, shoal_int_get_on_stream(sh, back, ints, 1024, right, st));
    CUDA_OK(cudaStreamSynchronize(st));
    if (peer_ints != NULL) {
        int h[1024];
        CUDA_OK(cudaMemcpy(h, back, sizeof(h), cudaMemcpyDeviceToHost));
        for (int i = 0; i < 1024; i++) CHECK_EQ_INT(h[i], 100 * me + i);
    }
    /* p on a stream: 4- and 8-byte values travel in stream operations, a
     * 16-byte long double falls back; all land in order before the barrier. */
    double *dv = (double *)shoal_malloc(sh, 4 * sizeof(double));
    CHECK(dv != NULL);
    for (int i = 0; i < 100; i++) {
        SH_OK(sh, shoal_double_p_on_stream(sh, &dv[0], 0.5 * i + me, right, st));
        SH_OK(sh, shoal_int_p_on_stream(sh, (int *)&dv[1], 3 * i + me, right, st));
        SH_OK(sh, shoal_longdouble_p_on_stream(sh, (long double *)&dv[2], (long double)i + me, right, st));
    }
    SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
    CUDA_OK(cudaStreamSynchronize(st));
    {
        double hv[4];
        int iv;
        long double lv;
        CUDA_OK(cudaMemcpy(hv, dv, sizeof(hv), cudaMemcpyDeviceToHost));
        memcpy(&iv, &hv[1], sizeof(iv));
        memcpy(&lv, &hv[2], sizeof(lv));
        CHECK(hv[0] == 0.5 * 99 + left);
        CHECK_EQ_INT(iv, 3 * 99 + left);
        CHECK(lv == (long double)99 + left);
    }
    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, dv));

    /* Mixed-up barriers. One PE in shoal_barrier_all while the others are in the host path of
     * shoal_barrier_all_on_stream (some PE is not reachable by the GPU's
     * stream operations): neither passes the other's barrier, every PE gets
     * the mismatch naming both calls, and the PEs stay in step. */
    {
        bool host_path = false;
        for (int pe = 0; pe < npes; pe++) host_path |= shoal_device_reachable(sh, pe) == 0;
        if (host_path) {
            int brc = me == 0 ? shoal_barrier_all(sh) : shoal_barrier_all_on_stream(sh, st);
            const char *m = shoal_last_error(sh);
            CHECK_EQ_INT(brc, SHOAL_ERR_NOT_SYMMETRIC);
            CHECK_MSG(strstr(m, "PE 0: shoal_barrier_all;") != NULL && strstr(m, "PE 1: shoal_barrier_all_on_stream"),
                      "message: %s", m);
            SH_OK(sh, shoal_barrier_all(sh));
            check_note("barrier_all against barrier_all_on_stream: %s", m);
        } else if (npes > 1) {
            /* On the GPU path the stream barriers meet on the GPU. PE 0
             * makes one more than the others: the next host collective
             * says so on every PE; the others' matching call then lets
             * PE 0's stream go on. */
            if (me == 0) SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
            int brc = shoal_barrier_all(sh);
            const char *m = shoal_last_error(sh);
            CHECK_EQ_INT(brc, SHOAL_ERR_NOT_SYMMETRIC);
            CHECK_MSG(strstr(m, "PE 0: shoal_barrier_all after ") != NULL &&
                          strstr(m, "PE 1: shoal_barrier_all after ") != NULL &&
                          strstr(m, " shoal_barrier_all_on_stream") != NULL,
                      "message: %s", m);
            if (me != 0) SH_OK(sh, shoal_barrier_all_on_stream(sh, st));
            CUDA_OK(cudaStreamSynchronize(st));
            SH_OK(sh, shoal_barrier_all(sh));
            check_note("one barrier_all_on_stream more on PE 0: %s", m);
        }
    }

    /* bad input on the stream API */
    CHECK_EQ_INT(shoal_put_on_stream(sh, hdst, dsrc, 8, right, st), SHOAL_ERR_OUT_OF_BOUNDS);
    CHECK_EQ_INT(shoal_put_on_stream(sh, buf, dsrc, 8, npes, st), SHOAL_ERR_PE);
    CHECK(strstr(shoal_last_error(sh), "shoal_put_on_stream") != NULL);

    SH_OK(sh, shoal_barrier_all(sh));
    SH_OK(sh, shoal_free(sh, ints));
    SH_OK(sh, shoal_free(sh, cells));
    SH_OK(sh, shoal_free(sh, buf));
    SH_OK(sh, shoal_finalize(sh));
    cudaFree(back);
    cudaFree(dsum);
    cudaFree(dsrc);
    cudaStreamDestroy(st);
    free(hsrc);
    free(hdst);
    if (me == 0) printf("test_gpu_rma: %d PEs passed\n", npes);
    MPI_Finalize();
    return 0;
}
