/*
 * shoal device API, teams: barriers and collectives of a team inside
 * kernels, at warp and block scope. Included by shoal_device.cuh; the rules
 * there hold (scopes, memory model, errors).
 *
 *     shoal_dev_team_t team;
 *     shoal_team_device_get(shoal_team_node(sh), &team);   // shoal_cuda.h
 *     kernel<<<1, 256>>>(dev, team, ...);
 *
 *     __global__ void kernel(shoal_device_t dev, shoal_dev_team_t team, float *x, float *sum)
 *     {
 *         shoal_dev_float_sum_reduce_block(dev, team, sum, x, n);
 *     }
 *
 * One group per PE calls each collective, all its threads with the same
 * arguments (a block for _block, a warp for _warp); every member's group
 * must be running at the same time (kernels co-resident: PEs sharing a GPU
 * need MPS). A team's collectives are called in the same order on every
 * member, one at a time (never two groups of one PE in a collective of the
 * same team at once). Where a member is not load/store reachable (team.ok
 * is 0; shoal_team_device_get allows it where the device proxy runs) they
 * go through the proxy: barriers meet through the members' proxies
 * (after a quiet), pushes to such members are proxied puts, and a
 * reduction fetches their src with proxied gets into this PE's scratch
 * (SHOAL_DEVICE_PROXY_SCRATCH a team) and pushes its share with proxied
 * puts; without a proxy they return its status at once, touching nothing. An
 * argument error on one PE (a bad root, a range outside the heap) is
 * returned there after it met the others in the closing barrier, so
 * nobody waits for it; its part of the data is not moved.
 *
 *   barrier   every member arrives; the group's stores before it are
 *             visible to every member after it
 *   sync      the same (arrival is ordered with the group's stores anyway)
 *   broadcast root's src (nelems) into every member's dest, root's included
 *   fcollect  member i's src (nelems) into block i of every member's dest
 *   alltoall  block j of member i's src into block i of member j's dest
 *   <op>_reduce  element-wise over every member's src into every member's
 *             dest (dest == src allowed): each member combines a share of
 *             the elements from every member's src and stores the result
 *             into every member's dest, between two barriers
 *   <op>_reducescatter  src holds a block of nreduce elements for each
 *             member (team order): member j combines block j of every
 *             member's src into its own dest (nreduce elements; dest must
 *             not overlap src), between two barriers; where some member is
 *             out of load/store reach its block comes by proxied gets into
 *             the scratch, as for a reduction
 * As on the host, dest of broadcast, fcollect and alltoall must not be in
 * use on any member when the first member enters: its data may arrive
 * before its owner enters the call.
 *
 * Types: SHOAL_DEV_COLL_TYPES below; and, or, xor for its integer types.
 * __half and __nv_bfloat16 compute each step with CUDA's correctly
 * rounded half and bfloat16 arithmetic (the host's reductions give the
 * same bits for finite results); min and max compare as those types do.
 */
#ifndef SHOAL_DEVICE_TEAM_CUH
#define SHOAL_DEVICE_TEAM_CUH

/* Element types of the device collectives: X(TYPE, NAME). */
#define SHOAL_DEV_COLL_INT_TYPES(X)                                                                                    \
    X(int, int)                                                                                                        \
    X(long, long)                                                                                                      \
    X(long long, longlong)                                                                                             \
    X(unsigned int, uint)                                                                                              \
    X(unsigned long, ulong)                                                                                            \
    X(unsigned long long, ulonglong)                                                                                   \
    X(int8_t, int8)                                                                                                    \
    X(int16_t, int16)                                                                                                  \
    X(int32_t, int32)                                                                                                  \
    X(int64_t, int64)                                                                                                  \
    X(uint8_t, uint8)                                                                                                  \
    X(uint16_t, uint16)                                                                                                \
    X(uint32_t, uint32)                                                                                                \
    X(uint64_t, uint64)                                                                                                \
    X(size_t, size)                                                                                                    \
    X(ptrdiff_t, ptrdiff)
#define SHOAL_DEV_COLL_TYPES(X)                                                                                        \
    SHOAL_DEV_COLL_INT_TYPES(X)                                                                                        \
    X(float, float)                                                                                                    \
    X(double, double)                                                                                                  \
    SHOAL_DEV_HALF_TYPES(X)

/* Member i's instance PE. */
static __device__ __forceinline__ int shoal_dev_team_pe(const shoal_dev_team_t &team, int i)
{
    return team.start + i * team.stride;
}

/* The team's words in a control area. */
static __device__ __forceinline__ unsigned int *shoal__dev_team_words(unsigned int *ctrl, int id)
{
    return ctrl + SHOAL_DEVICE_TEAM_BASE + (size_t)id * SHOAL_DEVICE_TEAM_WORDS;
}

template <int Scope> static __device__ __forceinline__ bool shoal__dev_sync_or(bool v)
{
    if (Scope == SHOAL__DEV_BLOCK) return __syncthreads_or(v) != 0;
    if (Scope == SHOAL__DEV_WARP) {
        unsigned n = shoal__dev_warp_size();
        return __any_sync(n == 32 ? 0xffffffffu : (1u << n) - 1, v) != 0;
    }
    return v;
}

/* The members' meeting, by the threads of a group, each its share of the
 * peers: a system fence (the group's stores before it, which the group's
 * sync ordered, become visible everywhere), my generation into my flag at
 * each peer, then a wait until each peer's flag here reached it. */
/* A team with members out of load/store reach meets through the proxies:
 * the group's first thread quiets (its PE's proxied operations complete)
 * and asks its proxy for the team's meeting. */
template <int Scope>
static __device__ __forceinline__ int shoal__dev_team_barrier_proxy(const shoal_device_t &dev,
                                                                    const shoal_dev_team_t &team)
{
    int rc = SHOAL_SUCCESS;
    shoal__dev_sync<Scope>();
    if (shoal__dev_rank<Scope>() == 0) {
        int qrc = shoal_dev_quiet(dev);
        shoal_dev_proxy_req_t r =
            shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_BARRIER, dev.my_pe, (const void *)(uintptr_t)team.start,
                                 (const void *)(uintptr_t)team.stride, (size_t)team.n_pes);
        r.sig = (unsigned long long)team.id; /* its own tags: teams meet independently */
        rc = shoal__dev_proxy_call(dev, r, true, NULL);
        if (rc == SHOAL_SUCCESS) rc = qrc;
    }
    return shoal__dev_bcast<Scope>(rc);
}

template <int Scope>
static __device__ __forceinline__ int shoal__dev_team_barrier(const shoal_device_t &dev, const shoal_dev_team_t &team)
{
    if (!team.ok) {
        if (dev.proxy.status != SHOAL_SUCCESS) return dev.proxy.status;
        return shoal__dev_team_barrier_proxy<Scope>(dev, team);
    }
    unsigned rank = shoal__dev_rank<Scope>(), size = shoal__dev_size<Scope>();
    unsigned int *mine = shoal__dev_team_words(dev.ctrl, team.id);
    int n = team.n_pes, me = team.my_pe, qrc = SHOAL_SUCCESS;
    bool late = false;
    unsigned gen = 0;

    /* Proxied operations (atomics without native peer atomics) complete first. */
    if (rank == 0 && shoal__dev_proxy_pending(dev)) qrc = shoal__dev_proxy_quiet(dev);

    /* The group meets (its stores before the flags), then its first thread
     * reads the generation and hands it to the group: another group of
     * this PE may have taken the team's last barrier (in turn, as the rules
     * ask), and its store is seen after the meeting. */
    shoal__dev_sync<Scope>();
    if (Scope == SHOAL__DEV_THREAD) {
        /* A thread alone: in a register (threads of one block may be in
         * barriers of different teams at once). */
        gen = shoal__dev_flag_ref(mine[SHOAL_DEVICE_TEAM_GEN]).load(cuda::memory_order_acquire) + 1;
    } else if (Scope == SHOAL__DEV_WARP) {
        unsigned w = shoal__dev_warp_size();
        if (rank == 0) gen = shoal__dev_flag_ref(mine[SHOAL_DEVICE_TEAM_GEN]).load(cuda::memory_order_acquire) + 1;
        gen = __shfl_sync(w == 32 ? 0xffffffffu : (1u << w) - 1, gen, 0);
    } else {
        __shared__ unsigned shoal__gen_shared;
        if (rank == 0)
            shoal__gen_shared = shoal__dev_flag_ref(mine[SHOAL_DEVICE_TEAM_GEN]).load(cuda::memory_order_acquire) + 1;
        shoal__dev_sync<Scope>();
        gen = shoal__gen_shared;
        shoal__dev_sync<Scope>(); /* read by all before a later barrier's first thread writes it again */
    }
    for (unsigned i = rank; i + 1 < (unsigned)n; i += size) {
        int k = (me + 1 + (int)i) % n;
        unsigned int *peer = shoal__dev_team_words(shoal__dev_peer_ctrl(dev, shoal_dev_team_pe(team, k)), team.id);
        __threadfence_system();
        shoal__dev_flag_ref(peer[SHOAL_DEVICE_TEAM_FLAGS + me]).store(gen, cuda::memory_order_relaxed);
    }
    for (unsigned i = rank; i + 1 < (unsigned)n && !late; i += size) {
        int k = (me + 1 + (int)i) % n;
        shoal__dev_flag_ref flag(mine[SHOAL_DEVICE_TEAM_FLAGS + k]);
#if SHOAL_DEV_TIMEOUT_NS > 0
        unsigned long long start = shoal__dev_now_ns();
        for (unsigned spin = 1; (int)(flag.load(cuda::memory_order_acquire) - gen) < 0 && !late; spin++)
            late = spin % 1024 == 0 && shoal__dev_now_ns() - start > (unsigned long long)(SHOAL_DEV_TIMEOUT_NS);
#else
        while ((int)(flag.load(cuda::memory_order_acquire) - gen) < 0) {
        }
#endif
    }
    if (rank == 0) shoal__dev_flag_ref(mine[SHOAL_DEVICE_TEAM_GEN]).store(gen, cuda::memory_order_release);
    int rc = shoal__dev_sync_or<Scope>(late) ? SHOAL_ERR_TIMEOUT : SHOAL_SUCCESS;
    qrc = shoal__dev_bcast<Scope>(qrc);
    return rc != SHOAL_SUCCESS ? rc : qrc;
}

/* The address of my symmetric [p, p + n) on member k, or an error. */
static __device__ __forceinline__ int shoal__dev_team_addr(const shoal_device_t &dev, const shoal_dev_team_t &team,
                                                           const void *p, size_t n, int k, char **out)
{
    return shoal__dev_translate(dev, p, n, shoal_dev_team_pe(team, k), out);
}

/* Data phases: push copies, then the closing barrier. A local error still
 * meets the others. */
template <int Scope>
static __device__ __forceinline__ int shoal__dev_team_push(const shoal_device_t &dev, const shoal_dev_team_t &team,
                                                           int kind, void *dest, const void *src, size_t nbytes,
                                                           int root)
{
    unsigned rank = shoal__dev_rank<Scope>(), size = shoal__dev_size<Scope>();
    int n = team.n_pes, me = team.my_pe, rc = SHOAL_SUCCESS;

    if (!team.ok && dev.proxy.status != SHOAL_SUCCESS) return dev.proxy.status;
    shoal__dev_sync<Scope>(); /* the group's writes to src, before the copies */
    if (kind == 0 && (unsigned)root >= (unsigned)n) rc = SHOAL_ERR_INVALID_ARG;
    for (int i = 0; i < n && rc == SHOAL_SUCCESS && nbytes > 0; i++) {
        int k = (me + 1 + i) % n;
        char *peer, *to;
        const char *from;
        if (kind == 0) { /* broadcast */
            if (me != root) break;
            to = (char *)dest;
            from = (const char *)src;
        } else if (kind == 1) { /* fcollect */
            to = (char *)dest + (size_t)me * nbytes;
            from = (const char *)src;
        } else { /* alltoall */
            to = (char *)dest + (size_t)me * nbytes;
            from = (const char *)src + (size_t)k * nbytes;
        }
        rc = shoal__dev_team_addr(dev, team, to, nbytes, k, &peer);
        if (rc == SHOAL_SUCCESS)
            shoal__dev_copy(peer, from, nbytes, rank, size);
        else if (rc == SHOAL__DEV_VIA_PROXY) /* completed by the closing barrier's quiet */
            rc = shoal__dev_proxy_group<Scope>(dev,
                                               shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_PUT, shoal_dev_team_pe(team, k),
                                                                    to, from, nbytes),
                                               false, NULL);
    }
    int brc = shoal__dev_team_barrier<Scope>(dev, team);
    return rc != SHOAL_SUCCESS ? rc : brc;
}

/* nelems of T in bytes; a count past the heap gives one past it (the
 * range check then refuses it, without overflow). */
template <typename T>
static __device__ __forceinline__ size_t shoal__dev_team_bytes(const shoal_device_t &dev, size_t nelems)
{
    return nelems > dev.heap_size / sizeof(T) ? (size_t)dev.heap_size + 1 : nelems * sizeof(T);
}

/* Reduction operators. The 16-bit floating types through CUDA's
 * intrinsics, which exist where a program turns their operators off
 * (__CUDA_NO_HALF_OPERATORS__, __CUDA_NO_BFLOAT16_OPERATORS__). */
struct shoal__dev_op_sum {
    template <typename T> static __device__ __forceinline__ T apply(T a, T b) { return a + b; }
    static __device__ __forceinline__ __half apply(__half a, __half b) { return __hadd(a, b); }
    static __device__ __forceinline__ __nv_bfloat16 apply(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
};
struct shoal__dev_op_prod {
    template <typename T> static __device__ __forceinline__ T apply(T a, T b) { return a * b; }
    static __device__ __forceinline__ __half apply(__half a, __half b) { return __hmul(a, b); }
    static __device__ __forceinline__ __nv_bfloat16 apply(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
};
struct shoal__dev_op_min {
    template <typename T> static __device__ __forceinline__ T apply(T a, T b) { return b < a ? b : a; }
    static __device__ __forceinline__ __half apply(__half a, __half b) { return __hlt(b, a) ? b : a; }
    static __device__ __forceinline__ __nv_bfloat16 apply(__nv_bfloat16 a, __nv_bfloat16 b)
    {
        return __hlt(b, a) ? b : a;
    }
};
struct shoal__dev_op_max {
    template <typename T> static __device__ __forceinline__ T apply(T a, T b) { return b > a ? b : a; }
    static __device__ __forceinline__ __half apply(__half a, __half b) { return __hgt(b, a) ? b : a; }
    static __device__ __forceinline__ __nv_bfloat16 apply(__nv_bfloat16 a, __nv_bfloat16 b)
    {
        return __hgt(b, a) ? b : a;
    }
};
struct shoal__dev_op_and {
    template <typename T> static __device__ __forceinline__ T apply(T a, T b) { return a & b; }
};
struct shoal__dev_op_or {
    template <typename T> static __device__ __forceinline__ T apply(T a, T b) { return a | b; }
};
struct shoal__dev_op_xor {
    template <typename T> static __device__ __forceinline__ T apply(T a, T b) { return a ^ b; }
};

/* My share of a reduction of n elements, by thread rank of size (of a
 * group, or of a whole grid): every member's src combined, stored into
 * every member's dest. Shares are multiples of 32 elements. src and dest
 * checked by the caller. */
template <typename T, typename Op>
static __device__ __forceinline__ void shoal__dev_team_reduce_share(const shoal_device_t &dev,
                                                                    const shoal_dev_team_t &team, T *dest, const T *src,
                                                                    size_t n, size_t rank, size_t size)
{
    int np = team.n_pes;
    size_t share = ((n + (size_t)np - 1) / (size_t)np + 31) / 32 * 32;
    size_t lo = share * (size_t)team.my_pe, hi = lo + share < n ? lo + share : n;
    size_t soff = (size_t)((const char *)src - dev.heap_base), doff = (size_t)((char *)dest - dev.heap_base);

    for (size_t e = lo + rank; e < hi; e += size) {
        T acc = ((const T *)(shoal__dev_peer_base(dev, shoal_dev_team_pe(team, 0)) + soff))[e];
        for (int k = 1; k < np; k++)
            acc = Op::apply(acc, ((const T *)(shoal__dev_peer_base(dev, shoal_dev_team_pe(team, k)) + soff))[e]);
        for (int k = 0; k < np; k++) ((T *)(shoal__dev_peer_base(dev, shoal_dev_team_pe(team, k)) + doff))[e] = acc;
    }
}

/* My share of a reduction where some member is out of load/store reach:
 * chunk by chunk, my own src first, then each member's, combined into my
 * dest (a member's src comes by load where it is mapped, else by a proxied
 * get into this team's scratch); then the chunk goes to every member's dest
 * (stores, or proxied puts that the closing barrier completes). Only I
 * touch my share anywhere, so dest == src is fine. Returns a status. */
template <int Scope, typename T, typename Op>
static __device__ __forceinline__ int shoal__dev_team_reduce_proxy(const shoal_device_t &dev,
                                                                   const shoal_dev_team_t &team, T *dest, const T *src,
                                                                   size_t n)
{
    unsigned rank = shoal__dev_rank<Scope>(), size = shoal__dev_size<Scope>();
    int np = team.n_pes, rc = SHOAL_SUCCESS;
    size_t share = ((n + (size_t)np - 1) / (size_t)np + 31) / 32 * 32;
    size_t lo = share * (size_t)team.my_pe, hi = lo + share < n ? lo + share : n;
    size_t soff = (size_t)((const char *)src - dev.heap_base), doff = (size_t)((char *)dest - dev.heap_base);
    size_t chunk = (size_t)SHOAL_DEVICE_PROXY_SCRATCH / sizeof(T);
    T *scratch = (T *)(dev.proxy.scratch + (size_t)team.id * SHOAL_DEVICE_PROXY_SCRATCH);

    for (size_t c = lo; c < hi && rc == SHOAL_SUCCESS; c += chunk) {
        size_t m = hi - c < chunk ? hi - c : chunk;
        for (int i = 0; i < np && rc == SHOAL_SUCCESS; i++) {
            int k = (team.my_pe + i) % np, pe = shoal_dev_team_pe(team, k);
            char *base = shoal__dev_peer_base(dev, pe);
            const T *from = base != NULL ? (const T *)(base + soff) + c : scratch;
            if (base == NULL)
                rc = shoal__dev_proxy_group<Scope>(dev,
                                                   shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_GET, pe, scratch, src + c,
                                                                        m * sizeof(T)),
                                                   true, NULL);
            if (rc != SHOAL_SUCCESS) break;
            for (size_t e = rank; e < m; e += size) dest[c + e] = i == 0 ? from[e] : Op::apply(dest[c + e], from[e]);
            shoal__dev_sync<Scope>(); /* the chunk combined, the scratch free again */
        }
        for (int i = 1; i < np && rc == SHOAL_SUCCESS; i++) {
            int pe = shoal_dev_team_pe(team, (team.my_pe + i) % np);
            char *base = shoal__dev_peer_base(dev, pe);
            if (base != NULL)
                for (size_t e = rank; e < m; e += size) ((T *)(base + doff))[c + e] = dest[c + e];
            else
                rc = shoal__dev_proxy_group<Scope>(dev,
                                                   shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_PUT, pe, dest + c, dest + c,
                                                                        m * sizeof(T)),
                                                   false, NULL);
        }
    }
    return rc;
}

/* src and dest of a reduction inside the heap, apart or equal. */
template <typename T>
static __device__ __forceinline__ int shoal__dev_reduce_check(const shoal_device_t &dev, T *dest, const T *src,
                                                              size_t n)
{
    char *p;
    if (n > dev.heap_size / sizeof(T)) return SHOAL_ERR_OUT_OF_BOUNDS;
    int rc = shoal__dev_translate(dev, src, n * sizeof(T), dev.my_pe, &p);
    if (rc == SHOAL_SUCCESS) rc = shoal__dev_translate(dev, dest, n * sizeof(T), dev.my_pe, &p);
    if (rc == SHOAL_SUCCESS && dest != src && (const T *)dest < src + n && src < (const T *)dest + n)
        rc = SHOAL_ERR_INVALID_ARG;
    return rc;
}

/* Block my_pe of a reduce-scatter (n elements a block), by thread rank of
 * size (of a group, or of a whole grid): every member's block combined
 * into my dest. src and dest checked by the caller. */
template <typename T, typename Op>
static __device__ __forceinline__ void shoal__dev_team_reducescatter_share(const shoal_device_t &dev,
                                                                           const shoal_dev_team_t &team, T *dest,
                                                                           const T *src, size_t n, size_t rank,
                                                                           size_t size)
{
    int np = team.n_pes;
    size_t soff = (size_t)((const char *)(src + (size_t)team.my_pe * n) - dev.heap_base);

    for (size_t e = rank; e < n; e += size) {
        T acc = ((const T *)(shoal__dev_peer_base(dev, shoal_dev_team_pe(team, 0)) + soff))[e];
        for (int k = 1; k < np; k++)
            acc = Op::apply(acc, ((const T *)(shoal__dev_peer_base(dev, shoal_dev_team_pe(team, k)) + soff))[e]);
        dest[e] = acc;
    }
}

/* The same where some member is out of load/store reach: chunk by chunk,
 * my own block first, then each member's (by load where it is mapped,
 * else by a proxied get into this team's scratch), combined into my dest.
 * Nothing is written anywhere but my dest. Returns a status. */
template <int Scope, typename T, typename Op>
static __device__ __forceinline__ int shoal__dev_team_reducescatter_proxy(const shoal_device_t &dev,
                                                                          const shoal_dev_team_t &team, T *dest,
                                                                          const T *src, size_t n)
{
    unsigned rank = shoal__dev_rank<Scope>(), size = shoal__dev_size<Scope>();
    int np = team.n_pes, rc = SHOAL_SUCCESS;
    const T *block = src + (size_t)team.my_pe * n;
    size_t soff = (size_t)((const char *)block - dev.heap_base);
    size_t chunk = (size_t)SHOAL_DEVICE_PROXY_SCRATCH / sizeof(T);
    T *scratch = (T *)(dev.proxy.scratch + (size_t)team.id * SHOAL_DEVICE_PROXY_SCRATCH);

    for (size_t c = 0; c < n && rc == SHOAL_SUCCESS; c += chunk) {
        size_t m = n - c < chunk ? n - c : chunk;
        for (int i = 0; i < np && rc == SHOAL_SUCCESS; i++) {
            int pe = shoal_dev_team_pe(team, (team.my_pe + i) % np);
            char *base = shoal__dev_peer_base(dev, pe);
            const T *from = base != NULL ? (const T *)(base + soff) + c : scratch;
            if (base == NULL)
                rc = shoal__dev_proxy_group<Scope>(dev,
                                                   shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_GET, pe, scratch, block + c,
                                                                        m * sizeof(T)),
                                                   true, NULL);
            if (rc != SHOAL_SUCCESS) break;
            for (size_t e = rank; e < m; e += size) dest[c + e] = i == 0 ? from[e] : Op::apply(dest[c + e], from[e]);
            shoal__dev_sync<Scope>(); /* the chunk combined, the scratch free again */
        }
    }
    return rc;
}

/* A reduce-scatter's src (np blocks of n) and dest (n) inside the heap,
 * apart. */
template <typename T>
static __device__ __forceinline__ int shoal__dev_reducescatter_check(const shoal_device_t &dev, T *dest, const T *src,
                                                                     size_t n, int np)
{
    char *p;
    if (n > dev.heap_size / sizeof(T) / (size_t)np) return SHOAL_ERR_OUT_OF_BOUNDS;
    size_t all = n * (size_t)np;
    int rc = shoal__dev_translate(dev, src, all * sizeof(T), dev.my_pe, &p);
    if (rc == SHOAL_SUCCESS) rc = shoal__dev_translate(dev, dest, n * sizeof(T), dev.my_pe, &p);
    if (rc == SHOAL_SUCCESS && (const T *)dest < src + all && src < (const T *)dest + n) rc = SHOAL_ERR_INVALID_ARG;
    return rc;
}

template <int Scope, typename T, typename Op>
static __device__ __forceinline__ int shoal__dev_team_reducescatter(const shoal_device_t &dev,
                                                                    const shoal_dev_team_t &team, T *dest, const T *src,
                                                                    size_t n)
{
    if (!team.ok && dev.proxy.status != SHOAL_SUCCESS) return dev.proxy.status;
    int rc = shoal__dev_reducescatter_check(dev, dest, src, n, team.n_pes);
    int brc = shoal__dev_team_barrier<Scope>(dev, team); /* every src ready */
    if (rc == SHOAL_SUCCESS && brc == SHOAL_SUCCESS && !team.ok)
        rc = shoal__dev_team_reducescatter_proxy<Scope, T, Op>(dev, team, dest, src, n);
    else if (rc == SHOAL_SUCCESS && brc == SHOAL_SUCCESS)
        shoal__dev_team_reducescatter_share<T, Op>(dev, team, dest, src, n, shoal__dev_rank<Scope>(),
                                                   shoal__dev_size<Scope>());
    int crc = shoal__dev_team_barrier<Scope>(dev, team); /* every src read (and reusable) */
    return rc != SHOAL_SUCCESS ? rc : brc != SHOAL_SUCCESS ? brc : crc;
}

template <int Scope, typename T, typename Op>
static __device__ __forceinline__ int shoal__dev_team_reduce(const shoal_device_t &dev, const shoal_dev_team_t &team,
                                                             T *dest, const T *src, size_t n)
{
    if (!team.ok && dev.proxy.status != SHOAL_SUCCESS) return dev.proxy.status;
    int rc = shoal__dev_reduce_check(dev, dest, src, n);
    int brc = shoal__dev_team_barrier<Scope>(dev, team); /* every src ready */
    if (rc == SHOAL_SUCCESS && brc == SHOAL_SUCCESS && !team.ok)
        rc = shoal__dev_team_reduce_proxy<Scope, T, Op>(dev, team, dest, src, n);
    else if (rc == SHOAL_SUCCESS && brc == SHOAL_SUCCESS)
        shoal__dev_team_reduce_share<T, Op>(dev, team, dest, src, n, shoal__dev_rank<Scope>(),
                                            shoal__dev_size<Scope>());
    int crc = shoal__dev_team_barrier<Scope>(dev, team); /* every dest written, every src read */
    return rc != SHOAL_SUCCESS ? rc : brc != SHOAL_SUCCESS ? brc : crc;
}

#define SHOAL__DEV_TEAM_SCOPES(X) X(_warp, SHOAL__DEV_WARP) X(_block, SHOAL__DEV_BLOCK)

#define SHOAL__DEV_TEAM_SYNC_DEF(SUFFIX, SCOPE)                                                                        \
    static __device__ __forceinline__ int shoal_dev_team_barrier##SUFFIX(const shoal_device_t &dev,                    \
                                                                         const shoal_dev_team_t &team)                 \
    {                                                                                                                  \
        return shoal__dev_team_barrier<SCOPE>(dev, team);                                                              \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_team_sync##SUFFIX(const shoal_device_t &dev,                       \
                                                                      const shoal_dev_team_t &team)                    \
    {                                                                                                                  \
        return shoal__dev_team_barrier<SCOPE>(dev, team);                                                              \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_broadcastmem##SUFFIX(const shoal_device_t &dev,                    \
                                                                         const shoal_dev_team_t &team, void *dest,     \
                                                                         const void *src, size_t nbytes, int root)     \
    {                                                                                                                  \
        return shoal__dev_team_push<SCOPE>(dev, team, 0, dest, src, nbytes, root);                                     \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_fcollectmem##SUFFIX(const shoal_device_t &dev,                     \
                                                                        const shoal_dev_team_t &team, void *dest,      \
                                                                        const void *src, size_t nbytes)                \
    {                                                                                                                  \
        return shoal__dev_team_push<SCOPE>(dev, team, 1, dest, src, nbytes, 0);                                        \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_alltoallmem##SUFFIX(const shoal_device_t &dev,                     \
                                                                        const shoal_dev_team_t &team, void *dest,      \
                                                                        const void *src, size_t nbytes)                \
    {                                                                                                                  \
        return shoal__dev_team_push<SCOPE>(dev, team, 2, dest, src, nbytes, 0);                                        \
    }
SHOAL__DEV_TEAM_SCOPES(SHOAL__DEV_TEAM_SYNC_DEF)
#undef SHOAL__DEV_TEAM_SYNC_DEF

#define SHOAL__DEV_REDUCE1(T, N, OP, SUFFIX, SCOPE)                                                                    \
    static __device__ __forceinline__ int shoal_dev_##N##_##OP##_reduce##SUFFIX(const shoal_device_t &dev,             \
                                                                                const shoal_dev_team_t &team, T *dest, \
                                                                                const T *src, size_t nreduce)          \
    {                                                                                                                  \
        return shoal__dev_team_reduce<SCOPE, T, shoal__dev_op_##OP>(dev, team, dest, src, nreduce);                    \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_##OP##_reducescatter##SUFFIX(const shoal_device_t &dev,      \
                                                                                       const shoal_dev_team_t &team,   \
                                                                                       T *dest, const T *src,          \
                                                                                       size_t nreduce)                 \
    {                                                                                                                  \
        return shoal__dev_team_reducescatter<SCOPE, T, shoal__dev_op_##OP>(dev, team, dest, src, nreduce);             \
    }
#define SHOAL__DEV_COLL_TYPED(T, N, SUFFIX, SCOPE)                                                                     \
    static __device__ __forceinline__ int shoal_dev_##N##_broadcast##SUFFIX(const shoal_device_t &dev,                 \
                                                                            const shoal_dev_team_t &team, T *dest,     \
                                                                            const T *src, size_t nelems, int root)     \
    {                                                                                                                  \
        /* a count past the heap: a byte count the range check refuses, after the barrier still */                     \
        return shoal__dev_team_push<SCOPE>(dev, team, 0, dest, src, shoal__dev_team_bytes<T>(dev, nelems), root);      \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_fcollect##SUFFIX(const shoal_device_t &dev,                  \
                                                                           const shoal_dev_team_t &team, T *dest,      \
                                                                           const T *src, size_t nelems)                \
    {                                                                                                                  \
        return shoal__dev_team_push<SCOPE>(dev, team, 1, dest, src, shoal__dev_team_bytes<T>(dev, nelems), 0);         \
    }                                                                                                                  \
    static __device__ __forceinline__ int shoal_dev_##N##_alltoall##SUFFIX(const shoal_device_t &dev,                  \
                                                                           const shoal_dev_team_t &team, T *dest,      \
                                                                           const T *src, size_t nelems)                \
    {                                                                                                                  \
        return shoal__dev_team_push<SCOPE>(dev, team, 2, dest, src, shoal__dev_team_bytes<T>(dev, nelems), 0);         \
    }                                                                                                                  \
    SHOAL__DEV_REDUCE1(T, N, sum, SUFFIX, SCOPE)                                                                       \
    SHOAL__DEV_REDUCE1(T, N, prod, SUFFIX, SCOPE)                                                                      \
    SHOAL__DEV_REDUCE1(T, N, min, SUFFIX, SCOPE)                                                                       \
    SHOAL__DEV_REDUCE1(T, N, max, SUFFIX, SCOPE)
#define SHOAL__DEV_COLL_BITWISE(T, N, SUFFIX, SCOPE)                                                                   \
    SHOAL__DEV_REDUCE1(T, N, and, SUFFIX, SCOPE)                                                                       \
    SHOAL__DEV_REDUCE1(T, N, or, SUFFIX, SCOPE)                                                                        \
    SHOAL__DEV_REDUCE1(T, N, xor, SUFFIX, SCOPE)
#define SHOAL__DEV_COLL_WARP(T, N) SHOAL__DEV_COLL_TYPED(T, N, _warp, SHOAL__DEV_WARP)
#define SHOAL__DEV_COLL_BLOCK(T, N) SHOAL__DEV_COLL_TYPED(T, N, _block, SHOAL__DEV_BLOCK)
#define SHOAL__DEV_BIT_WARP(T, N) SHOAL__DEV_COLL_BITWISE(T, N, _warp, SHOAL__DEV_WARP)
#define SHOAL__DEV_BIT_BLOCK(T, N) SHOAL__DEV_COLL_BITWISE(T, N, _block, SHOAL__DEV_BLOCK)
SHOAL_DEV_COLL_TYPES(SHOAL__DEV_COLL_WARP)
SHOAL_DEV_COLL_TYPES(SHOAL__DEV_COLL_BLOCK)
SHOAL_DEV_COLL_INT_TYPES(SHOAL__DEV_BIT_WARP)
SHOAL_DEV_COLL_INT_TYPES(SHOAL__DEV_BIT_BLOCK)
#undef SHOAL__DEV_COLL_WARP
#undef SHOAL__DEV_COLL_BLOCK
#undef SHOAL__DEV_BIT_WARP
#undef SHOAL__DEV_BIT_BLOCK
#undef SHOAL__DEV_COLL_BITWISE
#undef SHOAL__DEV_COLL_TYPED
#undef SHOAL__DEV_REDUCE1
#undef SHOAL__DEV_TEAM_SCOPES

#endif /* SHOAL_DEVICE_TEAM_CUH */
