/*
 * shoal device API, the proxy's device side: a kernel thread's request to
 * the host thread of its PE (runtime/proxy/), for the PEs it has no
 * load/store path to. Included by shoal_device.cuh; internal.
 *
 * A request takes a ticket (an atomic add on a counter in device memory),
 * waits until the ticket's slot of the ring (pinned host memory) is free
 * for it, fills the slot and posts it with a release store. The host serves
 * tickets in order. A request without an answer leaves the slot to the
 * host, which frees it once served; one with an answer (a blocking put or
 * get, g, a fetching atomic, quiet, a barrier) waits for the host's DONE,
 * reads the answer and frees the slot itself. A full ring makes the next
 * requests wait for their slot (back-pressure): nothing is dropped or
 * overwritten. With SHOAL_DEV_TIMEOUT_NS > 0 a wait that takes longer
 * returns SHOAL_ERR_TIMEOUT and marks the ring broken (its ticket is never
 * served): every later request of this PE then fails at once.
 */
#ifndef SHOAL_DEVICE_PROXY_CUH
#define SHOAL_DEVICE_PROXY_CUH

typedef cuda::atomic_ref<unsigned long long, cuda::thread_scope_system> shoal__dev_state_ref;

/* Has the wait that started at start run past SHOAL_DEV_TIMEOUT_NS? Looked
 * at every 256 polls; the poll backs off with a short sleep (the host
 * answers in microseconds; polling pinned memory crosses PCIe). */
static __device__ __forceinline__ bool shoal__dev_proxy_late(unsigned long long start, unsigned *spin)
{
    (*spin)++;
    if (*spin > 64) __nanosleep(*spin > 1024 ? 1000 : 100);
#if SHOAL_DEV_TIMEOUT_NS > 0
    return *spin % 256 == 0 && shoal__dev_now_ns() - start > (unsigned long long)(SHOAL_DEV_TIMEOUT_NS);
#else
    (void)start;
    return false;
#endif
}

/* A wait past SHOAL_DEV_TIMEOUT_NS: the ring is broken (a ticket taken and
 * never posted stops the host; an answer never read keeps its slot), for
 * this PE's kernels (device word) and its host (pinned word). */
static __device__ __noinline__ int shoal__dev_proxy_give_up(const shoal_dev_proxy_t &px)
{
    atomicExch(px.broken, 1u);
    cuda::atomic_ref<unsigned int, cuda::thread_scope_system>(*px.broken_host).store(1u, cuda::memory_order_release);
    return SHOAL_ERR_TIMEOUT;
}

/* One request by the calling thread: r's fields (its state ignored). ack:
 * wait for the answer; *value_p (may be NULL) gets its value. Returns the
 * request's status (ack), SHOAL_SUCCESS once posted (no ack), or why no
 * proxy took it. Not inlined: the load/store path stays small. */
static __device__ __noinline__ int shoal__dev_proxy_call(const shoal_device_t &dev, const shoal_dev_proxy_req_t &r,
                                                         bool ack, unsigned long long *value_p,
                                                         unsigned long long *ticket_p = NULL)
{
    const shoal_dev_proxy_t &px = dev.proxy;
    unsigned long long start = 0, t;
    unsigned spin = 0;

    if (px.status != SHOAL_SUCCESS) return px.status;
    if (cuda::atomic_ref<unsigned int, cuda::thread_scope_device>(*px.broken).load(cuda::memory_order_relaxed))
        return SHOAL_ERR_TIMEOUT;
#if SHOAL_DEV_TIMEOUT_NS > 0
    start = shoal__dev_now_ns();
#endif
    t = atomicAdd(px.tail, 1ULL);
    if (ticket_p != NULL) *ticket_p = t;
    shoal_dev_proxy_req_t *s = &px.slots[t % SHOAL_DEVICE_PROXY_SLOTS];
    shoal__dev_state_ref state(s->state);
    while (state.load(cuda::memory_order_acquire) != ((t << 2) | SHOAL_DEVICE_PROXY_FREE)) {
        if (shoal__dev_proxy_late(start, &spin)) return shoal__dev_proxy_give_up(px);
    }
    s->op = (unsigned short)(r.op | (ack ? SHOAL_DEVICE_PROXY_ACK : 0));
    s->arg = r.arg;
    s->pe = r.pe;
    s->dest = r.dest;
    s->src = r.src;
    s->nbytes = r.nbytes;
    s->value = r.value;
    s->cond = r.cond;
    s->sig = r.sig;
    /* The thread's (and, through its group's sync, the group's) writes to
     * the data the host will copy, then the request: both visible to the
     * host and its copy engines before the post. */
    __threadfence_system();
    state.store((t << 2) | SHOAL_DEVICE_PROXY_POSTED, cuda::memory_order_release);
    if (!ack) return SHOAL_SUCCESS;
    spin = 0;
    while (state.load(cuda::memory_order_acquire) != ((t << 2) | SHOAL_DEVICE_PROXY_DONE)) {
        if (shoal__dev_proxy_late(start, &spin)) return shoal__dev_proxy_give_up(px);
    }
    int status = (int)(long long)s->cond;
    if (value_p != NULL) *value_p = s->value;
    state.store(((t + SHOAL_DEVICE_PROXY_SLOTS) << 2) | SHOAL_DEVICE_PROXY_FREE, cuda::memory_order_release);
    return status;
}

/* A request with the fields that most need. */
static __device__ __forceinline__ shoal_dev_proxy_req_t shoal__dev_proxy_req(unsigned op, int pe, const void *dest,
                                                                             const void *src, size_t nbytes)
{
    shoal_dev_proxy_req_t r;
    r.state = 0;
    r.op = (unsigned short)op;
    r.arg = 0;
    r.pe = pe;
    r.dest = (unsigned long long)(uintptr_t)dest;
    r.src = (unsigned long long)(uintptr_t)src;
    r.nbytes = nbytes;
    r.value = 0;
    r.cond = 0;
    r.sig = 0;
    return r;
}

/* The status rc of the group's first thread, to every thread of the group. */
template <int Scope> static __device__ __forceinline__ int shoal__dev_bcast(int rc)
{
    if (Scope == SHOAL__DEV_BLOCK) {
        __shared__ int shoal__bcast_shared;
        if (shoal__dev_block_rank() == 0) shoal__bcast_shared = rc;
        __syncthreads();
        rc = shoal__bcast_shared;
        __syncthreads(); /* read by all before a later call's first thread writes it */
        return rc;
    }
    if (Scope == SHOAL__DEV_WARP) {
        unsigned n = shoal__dev_warp_size();
        return __shfl_sync(n == 32 ? 0xffffffffu : (1u << n) - 1, rc, 0);
    }
    return rc;
}

/* A request by the group: its first thread makes it (after the group met,
 * so that the group's writes to src are in), the status goes to all. */
template <int Scope>
static __device__ __forceinline__ int shoal__dev_proxy_group(const shoal_device_t &dev, const shoal_dev_proxy_req_t &r,
                                                             bool ack, unsigned long long *value_p)
{
    int rc = SHOAL_SUCCESS;
    shoal__dev_sync<Scope>();
    if (shoal__dev_rank<Scope>() == 0) rc = shoal__dev_proxy_call(dev, r, ack, value_p);
    return shoal__dev_bcast<Scope>(rc);
}

/* Are proxied requests outstanding (taken before now and not known complete)? */
static __device__ __forceinline__ bool shoal__dev_proxy_pending(const shoal_device_t &dev)
{
    if (dev.proxy.slots == NULL) return false;
    unsigned long long t = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*dev.proxy.tail)
                               .load(cuda::memory_order_relaxed);
    unsigned long long q = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*dev.proxy.quieted)
                               .load(cuda::memory_order_relaxed);
    return t > q;
}

/* Quiet through the proxy: every request taken before this one is served
 * (the host serves in order) and complete; answers the first error of an
 * unanswered request since the last quiet. */
static __device__ __noinline__ int shoal__dev_proxy_quiet(const shoal_device_t &dev)
{
    unsigned long long t = 0;
    int rc = shoal__dev_proxy_call(dev, shoal__dev_proxy_req(SHOAL_DEVICE_PROXY_QUIET, dev.my_pe, NULL, NULL, 0), true,
                                   NULL, &t);
    /* Everything up to its own ticket is complete (released: see pending). */
    if (rc == SHOAL_SUCCESS)
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_system>(*dev.proxy.quieted)
            .fetch_max(t + 1, cuda::memory_order_release);
    return rc;
}

#endif /* SHOAL_DEVICE_PROXY_CUH */
