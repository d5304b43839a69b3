/* The device proxy: what kernels ask of PEs they have no load/store path
 * to, served by a host thread of the issuing PE through the host data path
 * (runtime/ops/): the staging rings for node peers without peer access,
 * MPI for other nodes, the atomic kernels for peers without native peer
 * atomics. The ring's protocol is in api/shoal_device_proxy.cuh.
 *
 * The thread serves tickets in order, each request blocking (a put's
 * source is read before the next request), so one PE's requests land in
 * the order its threads took their tickets; fence and quiet complete
 * everything served before them (the transports' quiet). Barriers do not hold the
 * ring up: a barrier starts its first round and the thread goes on
 * serving; its rounds progress between requests (two members' barriers
 * of different teams may be served in either order).
 *
 * The thread calls MPI, so it exists only under MPI_THREAD_MULTIPLE.
 * CUDA builds only. */
#if SHOAL_HAVE_CUDA
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap/shoal_gpu.h"
#include "heap/shoal_heap.h"
#include "ops/shoal_amo.h"
#include "ops/shoal_rma.h"
#include "proxy/proxy_stream.h"
#include "proxy/shoal_proxy.h"
#include "transport/transport.h"

#define PROXY_SAME_AMO(OP) ((int)SHOAL_DEVICE_AMO_##OP == (int)SHOAL__AMO_##OP)
_Static_assert(PROXY_SAME_AMO(FETCH) && PROXY_SAME_AMO(SET) && PROXY_SAME_AMO(SWAP) && PROXY_SAME_AMO(CSWAP) &&
                   PROXY_SAME_AMO(ADD) && PROXY_SAME_AMO(AND) && PROXY_SAME_AMO(OR) && PROXY_SAME_AMO(XOR),
               "kernels number atomics as the host does");

/* Barrier groups: a team id (< SHOAL_DEVICE_TEAMS), all PEs, the leaders. */
#define PROXY_GROUP_ALL SHOAL_DEVICE_TEAMS
#define PROXY_GROUP_LEADERS (SHOAL_DEVICE_TEAMS + 1)
#define PROXY_GROUPS (SHOAL_DEVICE_TEAMS + 2)
/* Tags of the barrier rounds on sh->comm: one per group and round. */
#define PROXY_TAG(group, round) (0x1000 + (group)*32 + (round))

/* A barrier in progress: a dissemination over its members, a round at a time. */
typedef struct proxy_meet {
    bool active;
    uint64_t ticket;             /* the request to answer */
    int start, stride, size, me; /* member i is start + i * stride, or leaders[i] */
    bool leaders;
    int round, rounds;
    MPI_Request req[2];
    double end; /* SHOAL_TIMEOUT */
    char sbuf, rbuf;
} proxy_meet_t;

struct shoal_proxy {
    shoal_dev_proxy_req_t *slots; /* host address of the ring */
    char *dev_words;              /* device memory: tail, quieted, broken */
    uint64_t *pinned;             /* pinned host memory: [0] the thread's atomic result, [1] broken (kernels set it) */
    char *scratch;                /* device memory: per team id */
    unsigned char *peer_amo;      /* device array */
    unsigned char *amo;           /* its host copy */
    int *node_pes;                /* device array */
    int *leaders;                 /* the lowest PE of each node, ascending */
    int n_leaders, my_leader;     /* my index among them, or -1 */
    shoal_device_t dev;           /* as shoal_device_get gives it (the stream quiet's kernel) */
    bool needed;                  /* some request may come */
    int status;                   /* dev.proxy.status */
    int device;
    cudaStream_t stream; /* the thread's copies */
    pthread_t thread;
    bool running;
    _Atomic int stop;
    _Atomic uint64_t served; /* tickets served (the next one to look at) */
    _Atomic int meets;       /* barriers in progress */
    proxy_meet_t meet[PROXY_GROUPS];
    bool dead[PROXY_GROUPS]; /* a barrier of the group timed out: its late messages could match the next */
    /* The first failure of a request nobody waited for: for the next
     * device quiet (status) and the next host drain (status and message). */
    pthread_mutex_t lock;
    int dev_error;
    int host_error;
    char host_msg[512];
    bool warned;
};

static struct shoal_proxy *proxy_of(shoal_t sh) { return sh->proxy; }

/* What a request is, for messages: "shoal_dev_put of 64 bytes to PE 3". */
static const char *proxy_op_name(const shoal_dev_proxy_req_t *r)
{
    static const char *const amo[] = {"shoal_dev_atomic_fetch",        "shoal_dev_atomic_set", "shoal_dev_atomic_swap",
                                      "shoal_dev_atomic_compare_swap", "shoal_dev_atomic_add", "shoal_dev_atomic_and",
                                      "shoal_dev_atomic_or",           "shoal_dev_atomic_xor"};
    bool ack = (r->op & SHOAL_DEVICE_PROXY_ACK) != 0;
    switch (r->op & 0xff) {
    case SHOAL_DEVICE_PROXY_PUT: return ack ? "shoal_dev_put (device proxy)" : "shoal_dev_put_nbi (device proxy)";
    case SHOAL_DEVICE_PROXY_GET: return ack ? "shoal_dev_get (device proxy)" : "shoal_dev_get_nbi (device proxy)";
    case SHOAL_DEVICE_PROXY_P: return "shoal_dev_p (device proxy)";
    case SHOAL_DEVICE_PROXY_G: return "shoal_dev_g (device proxy)";
    case SHOAL_DEVICE_PROXY_AMO: return (r->arg & 0xff) < 8 ? amo[r->arg & 0xff] : "a device atomic";
    case SHOAL_DEVICE_PROXY_SIGNAL:
        return r->nbytes > 0 ? "shoal_dev_put_signal (device proxy)" : "shoal_dev_signal_op (device proxy)";
    case SHOAL_DEVICE_PROXY_FENCE: return "shoal_dev_fence (device proxy)";
    case SHOAL_DEVICE_PROXY_QUIET: return "shoal_dev_quiet (device proxy)";
    case SHOAL_DEVICE_PROXY_BARRIER: return "a device barrier (device proxy)";
    default: return "an unknown device proxy request";
    }
}

/* Keep the first failure of an unanswered request for both sides. */
static void proxy_note_error(shoal_t sh, struct shoal_proxy *px, int status)
{
    pthread_mutex_lock(&px->lock);
    if (px->dev_error == SHOAL_SUCCESS) px->dev_error = status;
    if (px->host_error == SHOAL_SUCCESS) {
        px->host_error = status;
        snprintf(px->host_msg, sizeof(px->host_msg), "%s", shoal_last_error(sh));
    }
    pthread_mutex_unlock(&px->lock);
}

/* Complete what this thread issued. Its operations were blocking, so only
 * transports whose blocking calls are not yet complete at the target (the
 * staging rings: the target's staging thread still copies) have work; the
 * transports' quiet is called directly, leaving the ops layer's record of
 * the application's own outstanding operations (and its lock, which an
 * application thread may hold while it waits for the GPU) alone. */
static int proxy_quiet(shoal_t sh, const char *call) { return shoal__transports_quiet(sh, call, sh->tp_setup); }

/* ------------------------------------------------------------ barriers */

static int meet_member(shoal_t sh, const proxy_meet_t *m, int i)
{
    struct shoal_proxy *px = proxy_of(sh);
    return m->leaders ? px->leaders[i] : m->start + i * m->stride;
}

/* Post round m->round's send and receive. */
static int meet_post(shoal_t sh, proxy_meet_t *m, int group, const char *call)
{
    int dist = 1 << m->round;
    int to = meet_member(sh, m, (m->me + dist) % m->size);
    int from = meet_member(sh, m, (m->me - dist % m->size + m->size) % m->size);
    int rc = MPI_Irecv(&m->rbuf, 1, MPI_CHAR, from, PROXY_TAG(group, m->round), sh->comm, &m->req[0]);
    if (rc == MPI_SUCCESS) rc = MPI_Isend(&m->sbuf, 1, MPI_CHAR, to, PROXY_TAG(group, m->round), sh->comm, &m->req[1]);
    return rc == MPI_SUCCESS ? SHOAL_SUCCESS : shoal__mpi_error(sh, call, "MPI_Isend/MPI_Irecv (device barrier)", rc);
}

/* Withdraw a barrier's requests: the receive is cancelled, the send (one
 * byte) is left to MPI. */
static void meet_cancel(proxy_meet_t *m)
{
    if (m->req[0] != MPI_REQUEST_NULL && MPI_Cancel(&m->req[0]) == MPI_SUCCESS) MPI_Wait(&m->req[0], MPI_STATUS_IGNORE);
    if (m->req[1] != MPI_REQUEST_NULL) MPI_Request_free(&m->req[1]);
    m->req[0] = m->req[1] = MPI_REQUEST_NULL;
}

static void proxy_answer(struct shoal_proxy *px, uint64_t t, int status, uint64_t value)
{
    shoal_dev_proxy_req_t *s = &px->slots[t % SHOAL_DEVICE_PROXY_SLOTS];
    s->value = value;
    s->cond = (unsigned long long)(long long)status;
    __atomic_store_n(&s->state, (t << 2) | SHOAL_DEVICE_PROXY_DONE, __ATOMIC_RELEASE);
}

static void meet_end(shoal_t sh, struct shoal_proxy *px, proxy_meet_t *m, int status)
{
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_COLL, "device barrier (ticket %llu) of %d PEs%s: %s after %d of %d rounds",
               (unsigned long long)m->ticket, m->size, m->leaders ? " (the nodes' leaders)" : "",
               shoal_strerror(status), m->round, m->rounds);
    /* The host hears of a failed barrier too (its next drain says it). */
    if (status != SHOAL_SUCCESS) proxy_note_error(sh, px, status);
    proxy_answer(px, m->ticket, status, 0);
    m->active = false;
    atomic_fetch_sub_explicit(&px->meets, 1, memory_order_release);
}

/* Move a barrier on: its rounds as far as they complete now. */
static void meet_progress(shoal_t sh, struct shoal_proxy *px, int group)
{
    static const char *call = "a device barrier (device proxy)";
    proxy_meet_t *m = &px->meet[group];
    int done = 0, rc;

    while (m->active) {
        MPI_Status st[2];
        if (MPI_Testall(2, m->req, &done, st) != MPI_SUCCESS) {
            meet_end(sh, px, m, shoal__error(sh, SHOAL_ERR_MPI, call, "MPI_Testall failed"));
            return;
        }
        if (!done) {
            if (sh->cfg.timeout > 0 && shoal__now() > m->end) {
                int from = meet_member(sh, m, (m->me - (1 << m->round) % m->size + m->size) % m->size);
                meet_cancel(m);
                px->dead[group] = true;
                meet_end(sh, px, m,
                         shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                                      "timed out after %g s in round %d of %d of the device barrier of %d PEs "
                                      "(%s): PE %d never arrived; every member's kernel must call the barrier",
                                      sh->cfg.timeout, m->round + 1, m->rounds, m->size,
                                      m->leaders ? "the nodes' leaders" : "a team or all PEs", from));
            }
            return;
        }
        if (++m->round == m->rounds) {
            meet_end(sh, px, m, SHOAL_SUCCESS);
            return;
        }
        rc = meet_post(sh, m, group, call);
        if (rc != SHOAL_SUCCESS) {
            meet_end(sh, px, m, rc);
            return;
        }
    }
}

/* A barrier request: quiet (what this PE sent is complete), then the first
 * round; answered when the last round completes. Returns 1 when it stays
 * in progress, else the status to answer now. */
static int meet_start(shoal_t sh, struct shoal_proxy *px, const shoal_dev_proxy_req_t *r, uint64_t t)
{
    static const char *call = "a device barrier (device proxy)";
    bool leaders = r->arg == SHOAL_DEVICE_PROXY_LEADERS;
    int start = (int)r->dest, stride = (int)r->src, size = (int)r->nbytes, group, me, rc;
    proxy_meet_t *m;

    if (leaders) {
        if (px->my_leader < 0)
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                "the nodes' barrier was asked by a PE that leads none");
        group = PROXY_GROUP_LEADERS;
        size = px->n_leaders;
        me = px->my_leader;
    } else {
        if (size < 1 || stride < 1 || start < 0 || (long)start + (long)(size - 1) * stride >= sh->n_pes ||
            sh->my_pe < start || (sh->my_pe - start) % stride != 0 || (sh->my_pe - start) / stride >= size)
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                "a barrier of %d PEs from PE %d by %d that PE %d is not in", size, start, stride,
                                sh->my_pe);
        me = (sh->my_pe - start) / stride;
        /* A team's id, or PROXY_GROUP_ALL for the world's device barrier. */
        if (r->sig > PROXY_GROUP_ALL)
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "barrier group %llu", (unsigned long long)r->sig);
        group = (int)r->sig;
    }
    rc = proxy_quiet(sh, call);
    if (rc != SHOAL_SUCCESS) return rc;
    if (size == 1) return SHOAL_SUCCESS;
    if (px->dead[group])
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "an earlier device barrier of this %s timed out: its members no longer agree on the "
                            "barriers' order",
                            leaders ? "instance's nodes" : "team");
    m = &px->meet[group];
    if (m->active)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "two device barriers of the same team at once on PE %d (a team's collectives are called "
                            "one at a time)",
                            sh->my_pe);
    *m = (proxy_meet_t){.active = true,
                        .ticket = t,
                        .start = start,
                        .stride = stride,
                        .size = size,
                        .me = me,
                        .leaders = leaders,
                        .round = 0,
                        .req = {MPI_REQUEST_NULL, MPI_REQUEST_NULL},
                        .end = shoal__now() + sh->cfg.timeout};
    for (m->rounds = 0; (1 << m->rounds) < size; m->rounds++)
        ;
    rc = meet_post(sh, m, group, call);
    if (rc != SHOAL_SUCCESS) {
        meet_cancel(m);
        m->active = false;
        return rc;
    }
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_COLL, "device barrier (ticket %llu) of %d PEs%s, group %d: started",
               (unsigned long long)t, size, leaders ? " (the nodes' leaders)" : "", group);
    atomic_fetch_add_explicit(&px->meets, 1, memory_order_acq_rel);
    meet_progress(sh, px, group);
    return 1;
}

/* ------------------------------------------------------------ serving */

/* One request through the host data path; *value gets an answer's value.
 * Returns its status, or 1 for a barrier still in progress. */
static int proxy_serve(shoal_t sh, struct shoal_proxy *px, const shoal_dev_proxy_req_t *r, uint64_t t, uint64_t *value)
{
    const char *call = proxy_op_name(r);
    bool ack = (r->op & SHOAL_DEVICE_PROXY_ACK) != 0;
    void *dest = (void *)(uintptr_t)r->dest;
    const void *src = (const void *)(uintptr_t)r->src;
    int rc;

    switch (r->op & 0xff) {
    case SHOAL_DEVICE_PROXY_PUT: return shoal__rma(sh, call, true, dest, src, r->nbytes, r->pe, 0);
    case SHOAL_DEVICE_PROXY_GET: return shoal__rma(sh, call, false, dest, src, r->nbytes, r->pe, 0);
    case SHOAL_DEVICE_PROXY_P: {
        uint64_t v = r->value; /* the value's bytes first (little-endian, as the GPU) */
        if (r->nbytes == 0 || r->nbytes > sizeof(v))
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "an element of %llu bytes",
                                (unsigned long long)r->nbytes);
        return shoal__rma(sh, call, true, dest, &v, r->nbytes, r->pe, 0);
    }
    case SHOAL_DEVICE_PROXY_G: {
        uint64_t v = 0;
        if (r->nbytes == 0 || r->nbytes > sizeof(v))
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "an element of %llu bytes",
                                (unsigned long long)r->nbytes);
        rc = shoal__rma(sh, call, false, &v, src, r->nbytes, r->pe, 0);
        *value = v;
        return rc;
    }
    case SHOAL_DEVICE_PROXY_AMO: {
        shoal__amo_t a = {.op = r->arg & 0xffu, .size = r->arg >> 8, .operand = r->value, .compare = r->cond};
        uint64_t old = 0;
        if (a.op >= SHOAL__AMO_OPS || (a.size != 4 && a.size != 8))
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "unknown atomic %u of %u bytes", a.op, a.size);
        rc = shoal__amo(sh, call, dest, r->pe, &a, ack ? &old : NULL, 0);
        *value = old;
        return rc;
    }
    case SHOAL_DEVICE_PROXY_SIGNAL:
        if (r->nbytes > 0)
            return shoal__put_signal(sh, call, dest, src, r->nbytes, (uint64_t *)(uintptr_t)r->sig, r->value, r->arg,
                                     r->pe, 0);
        return shoal__signal_op(sh, call, (uint64_t *)(uintptr_t)r->sig, r->value, r->arg, r->pe);
    case SHOAL_DEVICE_PROXY_FENCE: return proxy_quiet(sh, call);
    case SHOAL_DEVICE_PROXY_QUIET:
        rc = proxy_quiet(sh, call);
        pthread_mutex_lock(&px->lock);
        if (rc == SHOAL_SUCCESS) rc = px->dev_error;
        px->dev_error = SHOAL_SUCCESS;
        pthread_mutex_unlock(&px->lock);
        return rc;
    case SHOAL_DEVICE_PROXY_BARRIER: return meet_start(sh, px, r, t);
    default: return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "request %u", (unsigned)r->op);
    }
}

#define PROXY_SLEEPY 10000 /* idle polls before the thread sleeps between them */

/* Spin, yield, then sleep briefly: an idle proxy must not take a core. */
static void proxy_pause(unsigned *idle)
{
    if (++*idle < 2000) return;
    if (*idle < PROXY_SLEEPY) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

static void *proxy_main(void *arg)
{
    shoal_t sh = arg;
    struct shoal_proxy *px = proxy_of(sh);
    uint64_t head = 0;
    unsigned idle = 0;

    shoal__log_set_pe(sh->my_pe);
    cudaSetDevice(px->device);
    shoal__gpu_set_thread_stream(px->stream, &px->pinned[0]);
    while (!atomic_load_explicit(&px->stop, memory_order_acquire)) {
        shoal_dev_proxy_req_t *s = &px->slots[head % SHOAL_DEVICE_PROXY_SLOTS], r;
        uint64_t value = 0;
        int rc;

        if (atomic_load_explicit(&px->meets, memory_order_acquire) > 0)
            for (int g = 0; g < PROXY_GROUPS; g++)
                if (px->meet[g].active) meet_progress(sh, px, g);
        if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != ((head << 2) | SHOAL_DEVICE_PROXY_POSTED)) {
            proxy_pause(&idle);
            if (idle % 64 == 0 || idle >= PROXY_SLEEPY) {
                /* Peers' operations into this PE may need its MPI to
                 * progress (MPI RMA that MPI carries as messages is
                 * served by the target's progress): once asleep, at
                 * every wake. */
                shoal__mpi_progress(sh);
            }
            continue;
        }
        idle = 0;
        memcpy(&r, s, sizeof(r));
        rc = proxy_serve(sh, px, &r, head, &value);
        if (rc == 1) {
            /* A barrier in progress: answered when it completes. */
        } else if (r.op & SHOAL_DEVICE_PROXY_ACK) {
            proxy_answer(px, head, rc, value);
        } else {
            if (rc != SHOAL_SUCCESS) proxy_note_error(sh, px, rc);
            __atomic_store_n(&s->state, ((head + SHOAL_DEVICE_PROXY_SLOTS) << 2) | SHOAL_DEVICE_PROXY_FREE,
                             __ATOMIC_RELEASE);
        }
        head++;
        atomic_store_explicit(&px->served, head, memory_order_release);
    }
    return NULL;
}

/* ------------------------------------------------------------ life */

/* Does some pair need the proxy: a PE out of load/store reach, or a mapped
 * one whose atomics cannot be native? */
static bool proxy_needed(shoal_t sh, const unsigned char *amo)
{
    for (int pe = 0; pe < sh->n_pes; pe++)
        if (sh->peer_base[pe] == NULL || !amo[pe]) return true;
    return false;
}

/* Are atomics through the mapping of pe native here? The same GPU, or a
 * peer GPU with native peer atomics (NVLink; PCIe generally not). */
static unsigned char proxy_amo_native(shoal_t sh, int pe)
{
    const char *bus;
    int mine = sh->gpu->device, other = -1, ok = 0;

    if (pe == sh->my_pe) return 1;
    if (sh->peer_base[pe] == NULL || sh->device_atomics == SHOAL__DEVICE_ATOMICS_PROXY) return 0;
    if (shoal__gpu_shared(sh, pe)) return 1;
    bus = shoal__gpu_bus_id(sh, pe);
    if (bus == NULL || cudaDeviceGetByPCIBusId(&other, bus) != cudaSuccess) {
        cudaGetLastError();
        return 1; /* not visible here: as the mapping itself, trusted */
    }
    if (cudaDeviceGetP2PAttribute(&ok, cudaDevP2PAttrNativeAtomicSupported, mine, other) != cudaSuccess) {
        cudaGetLastError();
        return 1;
    }
    return ok ? 1 : 0;
}

static void proxy_free(shoal_t sh)
{
    struct shoal_proxy *px = proxy_of(sh);
    if (px == NULL) return;
    if (px->slots != NULL) cudaFreeHost(px->slots);
    if (px->pinned != NULL) cudaFreeHost(px->pinned);
    if (px->dev_words != NULL) cudaFree(px->dev_words);
    if (px->scratch != NULL) cudaFree(px->scratch);
    if (px->peer_amo != NULL) cudaFree(px->peer_amo);
    if (px->node_pes != NULL) cudaFree(px->node_pes);
    if (px->stream != NULL) cudaStreamDestroy(px->stream);
    cudaGetLastError();
    pthread_mutex_destroy(&px->lock);
    free(px->leaders);
    free(px->amo);
    free(px);
    sh->proxy = NULL;
}

/* The first shoal_device_get: the atomics map, the node's PEs, and, where
 * needed and possible, the ring and its thread. */
static int proxy_create(shoal_t sh, const char *call)
{
    struct shoal_proxy *px = calloc(1, sizeof(*px));
    unsigned char *amo = NULL;
    shoal_dev_proxy_req_t *dev_slots = NULL;
    unsigned int *broken_host = NULL;
    int rc = SHOAL_SUCCESS;

    if (px == NULL || (amo = calloc((size_t)sh->n_pes, 1)) == NULL) {
        free(amo);
        free(px);
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    }
    pthread_mutex_init(&px->lock, NULL);
    sh->proxy = px;
    px->device = sh->gpu->device;
    px->my_leader = -1;
    px->amo = amo;
    for (int pe = 0; pe < sh->n_pes; pe++) amo[pe] = proxy_amo_native(sh, pe);
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaMalloc((void **)&px->peer_amo, (size_t)sh->n_pes));
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaMemcpy(px->peer_amo, amo, (size_t)sh->n_pes, cudaMemcpyHostToDevice));
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaMalloc((void **)&px->node_pes, sizeof(int) * (size_t)sh->node_size));
    SHOAL__CUDA_TRY(sh, call, rc, out,
                    cudaMemcpy(px->node_pes, sh->node_pes, sizeof(int) * (size_t)sh->node_size,
                               cudaMemcpyHostToDevice));
    px->needed = proxy_needed(sh, amo);
    px->status = SHOAL_ERR_UNSUPPORTED;
    if (!px->needed) goto out;
    if (!shoal__threads_multiple()) {
        px->status = SHOAL_ERR_THREAD;
        SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_CUDA,
                   "PE %d: kernels reach some PEs only through the device proxy, a thread that calls MPI, but MPI "
                   "was initialized with %s: their device calls to those PEs return SHOAL_ERR_THREAD (initialize MPI "
                   "with MPI_Init_thread(MPI_THREAD_MULTIPLE), or use the host API for those PEs)",
                   sh->my_pe, shoal__thread_level_name(atomic_load(&shoal__thread_level)));
        goto out;
    }
    /* The nodes' leaders, for hierarchical device barriers. */
    px->leaders = malloc(sizeof(int) * (size_t)sh->n_nodes);
    if (px->leaders == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        goto out;
    }
    for (int pe = 0; pe < sh->n_pes; pe++)
        if (sh->pe_node_rank[pe] == 0) {
            if (pe == sh->my_pe) px->my_leader = px->n_leaders;
            px->leaders[px->n_leaders++] = pe;
        }
    SHOAL__CUDA_TRY(sh, call, rc, out,
                    cudaHostAlloc((void **)&px->slots, sizeof(shoal_dev_proxy_req_t) * SHOAL_DEVICE_PROXY_SLOTS,
                                  cudaHostAllocMapped | cudaHostAllocPortable));
    memset(px->slots, 0, sizeof(shoal_dev_proxy_req_t) * SHOAL_DEVICE_PROXY_SLOTS);
    for (uint64_t i = 0; i < SHOAL_DEVICE_PROXY_SLOTS; i++) px->slots[i].state = (i << 2) | SHOAL_DEVICE_PROXY_FREE;
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaHostGetDevicePointer((void **)&dev_slots, px->slots, 0));
    SHOAL__CUDA_TRY(sh, call, rc, out,
                    cudaHostAlloc((void **)&px->pinned, 64, cudaHostAllocMapped | cudaHostAllocPortable));
    memset(px->pinned, 0, 64);
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaHostGetDevicePointer((void **)&broken_host, &px->pinned[1], 0));
    SHOAL__CUDA_TRY(sh, call, rc, out, shoal__proxy_kernels_preload());
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaMalloc((void **)&px->dev_words, 64));
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaMemset(px->dev_words, 0, 64));
    SHOAL__CUDA_TRY(sh, call, rc, out,
                    cudaMalloc((void **)&px->scratch, (size_t)SHOAL_DEVICE_TEAMS * SHOAL_DEVICE_PROXY_SCRATCH));
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaStreamCreateWithFlags(&px->stream, cudaStreamNonBlocking));
    atomic_init(&px->stop, 0);
    atomic_init(&px->served, 0);
    atomic_init(&px->meets, 0);
    if (pthread_create(&px->thread, NULL, proxy_main, sh) != 0) {
        rc = shoal__error(sh, SHOAL_ERR_SYSTEM, call, "cannot start the device proxy thread");
        goto out;
    }
    px->running = true;
    px->status = SHOAL_SUCCESS;
    px->dev.proxy.slots = dev_slots;
    px->dev.proxy.tail = (unsigned long long *)px->dev_words;
    px->dev.proxy.quieted = (unsigned long long *)(px->dev_words + 8);
    px->dev.proxy.broken = (unsigned int *)(px->dev_words + 16);
    px->dev.proxy.broken_host = broken_host;
    px->dev.proxy.scratch = px->scratch;
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "device proxy: %d request slots, %d node leader(s)",
               SHOAL_DEVICE_PROXY_SLOTS, px->n_leaders);
out:
    if (rc != SHOAL_SUCCESS) {
        proxy_free(sh);
        return rc;
    }
    return SHOAL_SUCCESS;
}

int shoal__proxy_attach(shoal_t sh, shoal_device_t *dev)
{
    static const char *call = "shoal_device_get";
    struct shoal_proxy *px;
    int rc;

    if (sh->proxy == NULL) {
        rc = proxy_create(sh, call);
        if (rc != SHOAL_SUCCESS) return rc;
    }
    px = proxy_of(sh);
    dev->peer_amo = px->peer_amo;
    dev->near_amo = 0;
    for (int k = 0; k < SHOAL_DEVICE_NEAR_PES; k++)
        if (dev->near_first + k < sh->n_pes && px->amo[dev->near_first + k]) dev->near_amo |= 1u << k;
    dev->node_pes = px->node_pes;
    dev->node_size = sh->node_size;
    dev->node_rank = sh->node_rank;
    dev->node_ok = sh->gpu->nodes_mapped; /* agreed at init: every PE takes the same barrier */
    dev->proxy = px->dev.proxy;
    dev->proxy.status = px->status;
    px->dev = *dev;
    return SHOAL_SUCCESS;
}

bool shoal__proxy_ready(shoal_t sh)
{
    if (sh->heap_kind != SHOAL_HEAP_GPU || sh->gpu == NULL) return false;
    if (sh->proxy == NULL && proxy_create(sh, "shoal_team_device_get") != SHOAL_SUCCESS) return false;
    return proxy_of(sh)->status == SHOAL_SUCCESS;
}

int shoal__proxy_drain(shoal_t sh, const char *call)
{
    struct shoal_proxy *px = proxy_of(sh);
    double end;
    unsigned spins = 0;
    int rc = SHOAL_SUCCESS;

    if (px == NULL || !px->running) return SHOAL_SUCCESS;
    end = shoal__now() + sh->cfg.timeout;
    for (;;) {
        uint64_t h = atomic_load_explicit(&px->served, memory_order_acquire);
        shoal_dev_proxy_req_t *s = &px->slots[h % SHOAL_DEVICE_PROXY_SLOTS];
        uint64_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
        /* Done when ticket h was never posted: its slot still holds an
         * older ticket (an answer not yet read) or is free for h. A slot
         * already answered (DONE h) or freed for h + SLOTS means the proxy
         * served h and has not yet published served: look again. Barriers
         * in progress are not waited for: each quieted before it met, and
         * its kernel waits for it. */
        if (((st >> 2) < h || st == ((h << 2) | SHOAL_DEVICE_PROXY_FREE)) &&
            atomic_load_explicit(&px->served, memory_order_acquire) == h)
            break;
        if (__atomic_load_n((volatile unsigned *)&px->pinned[1], __ATOMIC_ACQUIRE) != 0)
            return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                                "a kernel gave up waiting on the device proxy (SHOAL_DEV_TIMEOUT_NS) and left a "
                                "request it took unposted: the proxy cannot serve past it (request %llu), and every "
                                "later kernel call through it fails",
                                (unsigned long long)h);
        if (sh->cfg.timeout > 0 && shoal__now() > end) {
            shoal_dev_proxy_req_t r;
            memcpy(&r, s, sizeof(r));
            return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                                "timed out after %g s waiting for the device proxy: it is still on %s (PE %d, %llu "
                                "bytes), the kernels' request %llu",
                                sh->cfg.timeout, proxy_op_name(&r), r.pe, (unsigned long long)r.nbytes,
                                (unsigned long long)h);
        }
        shoal__wait_pause(&spins);
    }
    pthread_mutex_lock(&px->lock);
    if (px->host_error != SHOAL_SUCCESS) {
        char msg[sizeof(px->host_msg)];
        int status = px->host_error;
        memcpy(msg, px->host_msg, sizeof(msg));
        px->host_error = SHOAL_SUCCESS;
        pthread_mutex_unlock(&px->lock);
        return shoal__error(sh, status, call, "a kernel's operation through the device proxy failed: %s", msg);
    }
    pthread_mutex_unlock(&px->lock);
    return rc;
}

int shoal__proxy_quiet_on_stream(shoal_t sh, const char *call, cudaStream_t stream)
{
    struct shoal_proxy *px = proxy_of(sh);
    cudaError_t err;

    if (px == NULL || !px->running) return SHOAL_SUCCESS;
    err = shoal__proxy_quiet_launch(&px->dev, stream);
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, "launching the device proxy's quiet", err);
}

void shoal__proxy_stop(shoal_t sh)
{
    struct shoal_proxy *px = proxy_of(sh);
    if (px == NULL) return;
    if (px->running) {
        atomic_store_explicit(&px->stop, 1, memory_order_release);
        pthread_join(px->thread, NULL);
        px->running = false;
        /* Barriers still in progress: withdrawn, their kernels answered. */
        for (int g = 0; g < PROXY_GROUPS; g++)
            if (px->meet[g].active) {
                meet_cancel(&px->meet[g]);
                proxy_answer(px, px->meet[g].ticket, SHOAL_ERR_TIMEOUT, 0);
                px->meet[g].active = false;
            }
    }
    proxy_free(sh);
}
#endif
