/* staged: GPU heaps of one node whose devices cannot reach each other (no
 * peer access, cuda_ipc disabled, or a path beyond SHOAL_P2P_LEVEL). The
 * data goes through pinned host memory in the node's shared window.
 *
 * Every PE owns a ring of slots there, each with a bounce chunk. An origin
 * takes a ticket (an atomic counter), waits for its slot, fills it (a put
 * copies its data into the chunk) and marks it ready. A proxy thread of the
 * target PE, bound to the target's GPU, serves the slots in ticket order:
 * it copies a put's chunk into its heap, or a get's range out into the
 * chunk. Slots served in order make puts from one origin land in order. */
#include <pthread.h>
#include <stddef.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "shoal_internal.h"

#if !SHOAL_HAVE_CUDA

static bool staged_can_connect(shoal_t sh, int pe)
{
    (void)sh, (void)pe;
    return false;
}
static int staged_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    (void)off, (void)src, (void)n, (void)nbi;
    return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call, "no staged transport to PE %d without CUDA", pe);
}
static int staged_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    (void)off, (void)dst, (void)n, (void)nbi;
    return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call, "no staged transport to PE %d without CUDA", pe);
}
static int staged_quiet(shoal_t sh, const char *call)
{
    (void)sh, (void)call;
    return SHOAL_SUCCESS;
}

#else
#include "shoal_gpu.h"

#define STAGE_SLOTS 16
#define STAGE_CHUNK ((size_t)1 << 20)

enum { SLOT_EMPTY = 0, SLOT_READY = 1, SLOT_DONE = 2, SLOT_FAILED = 3 };
enum { OP_PUT = 1, OP_GET = 2 };

typedef struct stage_slot {
    _Atomic uint64_t seq;   /* the ticket that may use this slot next */
    _Atomic uint32_t state; /* SLOT_* */
    uint32_t op;            /* OP_PUT or OP_GET */
    uint64_t off, len;      /* range of the target's heap */
    char pad[SHOAL__CACHELINE - 32];
} stage_slot_t;

/* One PE's ring, followed by its STAGE_SLOTS bounce chunks. */
typedef struct stage_ring {
    _Atomic uint64_t tail; /* next ticket */
    char pad0[SHOAL__CACHELINE - 8];
    stage_slot_t slot[STAGE_SLOTS];
} stage_ring_t;

#define STAGE_RING_BYTES (((sizeof(stage_ring_t) + 4095) / 4096) * 4096)
#define STAGE_PE_BYTES (STAGE_RING_BYTES + STAGE_SLOTS * STAGE_CHUNK)

struct shoal_stage {
    MPI_Win win;             /* node shared window: every PE's ring and chunks */
    char **ring;             /* per node rank: its segment (ring, then chunks), mapped here */
    bool *registered;        /* per node rank: cudaHostRegister'ed for DMA */
    pthread_t proxy;         /* serves my ring */
    bool proxy_running;
    _Atomic int stop;
    uint64_t *last;          /* per PE: my last put ticket to it, + 1 (0: none) */
    int proxy_device;
    char *heap;              /* my heap, for the proxy */
    MPI_Win rma_win;         /* every PE's ring over sh->comm, for PEs on other nodes */
    char *bounce;            /* pinned host chunk for inter-node copies from/to device memory */
};

static stage_ring_t *stage_ring(shoal_t sh, int pe)
{
    return (stage_ring_t *)sh->gpu->stage->ring[sh->pe_node_rank[pe]];
}

static char *stage_chunk(shoal_t sh, int pe, uint64_t ticket)
{
    return (char *)stage_ring(sh, pe) + STAGE_RING_BYTES + (ticket % STAGE_SLOTS) * STAGE_CHUNK;
}

/* Spin, then yield, then sleep a little: the proxy thread must not take a
 * core from the application when idle. */
static void stage_pause(unsigned *spins)
{
    if (++*spins < 1000) return;
    if (*spins < 5000) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

static void *stage_proxy(void *arg)
{
    shoal_t sh = arg;
    struct shoal_stage *st = sh->gpu->stage;
    stage_ring_t *ring = stage_ring(sh, sh->my_pe);
    char *chunks = (char *)ring + STAGE_RING_BYTES;
    uint64_t head = 0;
    unsigned idle = 0;

    if (cudaSetDevice(st->proxy_device) != cudaSuccess) return NULL;
    while (!atomic_load_explicit(&st->stop, memory_order_acquire)) {
        stage_slot_t *s = &ring->slot[head % STAGE_SLOTS];
        char *chunk = chunks + (head % STAGE_SLOTS) * STAGE_CHUNK;
        cudaError_t err;
        if (atomic_load_explicit(&s->seq, memory_order_acquire) != head ||
            atomic_load_explicit(&s->state, memory_order_acquire) != SLOT_READY) {
            stage_pause(&idle);
            continue;
        }
        idle = 0;
        if (s->op == OP_PUT)
            err = cudaMemcpy(st->heap + s->off, chunk, s->len, cudaMemcpyHostToDevice);
        else
            err = cudaMemcpy(chunk, st->heap + s->off, s->len, cudaMemcpyDeviceToHost);
        if (err != cudaSuccess) cudaGetLastError();
        if (s->op == OP_PUT && err == cudaSuccess) {
            /* Nobody waits for the bytes: recycle the slot now. */
            atomic_store_explicit(&s->state, SLOT_EMPTY, memory_order_relaxed);
            atomic_store_explicit(&s->seq, head + STAGE_SLOTS, memory_order_release);
        } else {
            /* A get (or a failure): the origin reads the outcome, then recycles. */
            atomic_store_explicit(&s->state, err == cudaSuccess ? SLOT_DONE : SLOT_FAILED, memory_order_release);
        }
        head++;
    }
    return NULL;
}

/* Take the next ticket of pe's ring and wait until its slot is mine. */
static uint64_t stage_claim(shoal_t sh, int pe, stage_slot_t **slot_p)
{
    stage_ring_t *ring = stage_ring(sh, pe);
    uint64_t t = atomic_fetch_add_explicit(&ring->tail, 1, memory_order_relaxed);
    stage_slot_t *s = &ring->slot[t % STAGE_SLOTS];
    unsigned spins = 0;
    while (atomic_load_explicit(&s->seq, memory_order_acquire) != t) stage_pause(&spins);
    *slot_p = s;
    return t;
}

static bool stage_on_device(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

/* Copy between any memory and a chunk: memcpy between host buffers, the
 * copy engine when one side is on a GPU. */
static int stage_copy(shoal_t sh, const char *call, void *dst, const void *src, size_t n)
{
    cudaError_t err;
    if (!stage_on_device(src) && !stage_on_device(dst)) {
        memcpy(dst, src, n);
        return SHOAL_SUCCESS;
    }
    err = cudaMemcpy(dst, src, n, cudaMemcpyDefault);
    if (err != cudaSuccess) return shoal__cuda_error(sh, call, "cudaMemcpy (staging)", err);
    return SHOAL_SUCCESS;
}

/* Wait until the proxy served put ticket t; a failed slot is recycled here. */
static int stage_wait_put(shoal_t sh, const char *call, int pe, uint64_t t)
{
    stage_slot_t *slot = &stage_ring(sh, pe)->slot[t % STAGE_SLOTS];
    unsigned spins = 0;
    while (atomic_load_explicit(&slot->seq, memory_order_acquire) < t + STAGE_SLOTS) {
        if (atomic_load_explicit(&slot->seq, memory_order_acquire) == t &&
            atomic_load_explicit(&slot->state, memory_order_acquire) == SLOT_FAILED) {
            atomic_store_explicit(&slot->state, SLOT_EMPTY, memory_order_relaxed);
            atomic_store_explicit(&slot->seq, t + STAGE_SLOTS, memory_order_release);
            return shoal__error(sh, SHOAL_ERR_CUDA, call, "PE %d failed to copy a staged put into its GPU heap", pe);
        }
        stage_pause(&spins);
    }
    return SHOAL_SUCCESS;
}

static bool staged_can_connect(shoal_t sh, int pe)
{
    return sh->heap_kind == SHOAL_HEAP_GPU && sh->gpu != NULL && sh->gpu->stage != NULL && pe != sh->my_pe &&
           sh->pe_node[pe] == sh->node_id;
}

static int staged_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    struct shoal_stage *st = sh->gpu->stage;
    const char *s = src;
    uint64_t t = 0;
    int rc;

    for (size_t done = 0; done < n; done += STAGE_CHUNK) {
        size_t len = n - done < STAGE_CHUNK ? n - done : STAGE_CHUNK;
        stage_slot_t *slot;
        t = stage_claim(sh, pe, &slot);
        rc = stage_copy(sh, call, stage_chunk(sh, pe, t), s + done, len);
        slot->op = OP_PUT;
        slot->off = off + done;
        slot->len = rc == SHOAL_SUCCESS ? len : 0; /* a failed copy still releases the slot */
        atomic_store_explicit(&slot->state, SLOT_READY, memory_order_release);
        if (rc != SHOAL_SUCCESS) return rc;
    }
    st->last[pe] = t + 1;
    if (nbi) return SHOAL_SUCCESS;
    st->last[pe] = 0;
    return stage_wait_put(sh, call, pe, t);
}

static int staged_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    char *d = dst;
    int rc = SHOAL_SUCCESS;
    (void)nbi; /* gets through the host complete before returning */

    for (size_t done = 0; done < n && rc == SHOAL_SUCCESS; done += STAGE_CHUNK) {
        size_t len = n - done < STAGE_CHUNK ? n - done : STAGE_CHUNK;
        stage_slot_t *slot;
        uint64_t t = stage_claim(sh, pe, &slot);
        unsigned spins = 0;
        uint32_t state;
        slot->op = OP_GET;
        slot->off = off + done;
        slot->len = len;
        atomic_store_explicit(&slot->state, SLOT_READY, memory_order_release);
        while ((state = atomic_load_explicit(&slot->state, memory_order_acquire)) == SLOT_READY) stage_pause(&spins);
        if (state == SLOT_DONE)
            rc = stage_copy(sh, call, d + done, stage_chunk(sh, pe, t), len);
        else
            rc = shoal__error(sh, SHOAL_ERR_CUDA, call, "PE %d failed to copy a staged get out of its heap", pe);
        atomic_store_explicit(&slot->state, SLOT_EMPTY, memory_order_relaxed);
        atomic_store_explicit(&slot->seq, t + STAGE_SLOTS, memory_order_release);
    }
    return rc;
}

/* My puts are complete once their slots were recycled by the proxies. */
static int staged_quiet(shoal_t sh, const char *call)
{
    struct shoal_stage *st = sh->gpu != NULL ? sh->gpu->stage : NULL;
    if (st == NULL) return SHOAL_SUCCESS;
    for (int pe = 0; pe < sh->n_pes; pe++) {
        uint64_t t = st->last[pe];
        int rc;
        if (t == 0 || sh->pe_node[pe] != sh->node_id) continue;
        st->last[pe] = 0;
        rc = stage_wait_put(sh, call, pe, t - 1);
        if (rc != SHOAL_SUCCESS) return rc;
    }
    return SHOAL_SUCCESS;
}

/* ---------------------------------------------------------------- other nodes
 * The same rings, reached over MPI RMA: the ticket is an MPI fetch-and-add
 * on the target's tail, the slot words are read and written with MPI
 * atomics, the chunk is moved with MPI_Put/MPI_Get. The target's proxy
 * serves the slot as for a node peer. */

#define SLOT_DISP(t, field) ((MPI_Aint)(offsetof(stage_ring_t, slot) + ((t) % STAGE_SLOTS) * sizeof(stage_slot_t) + \
                                        offsetof(stage_slot_t, field)))
#define CHUNK_DISP(t) ((MPI_Aint)(STAGE_RING_BYTES + ((t) % STAGE_SLOTS) * STAGE_CHUNK))

static int remote_u64(shoal_t sh, const char *call, int pe, MPI_Aint disp, uint64_t *value_p)
{
    int rc = SHOAL_SUCCESS;
    uint64_t dummy = 0;
    SHOAL__MPI_CHECK(sh, call, MPI_Fetch_and_op(&dummy, value_p, MPI_UINT64_T, pe, disp, MPI_NO_OP, sh->gpu->stage->rma_win));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, sh->gpu->stage->rma_win));
out:
    return rc;
}

static int remote_u32(shoal_t sh, const char *call, int pe, MPI_Aint disp, uint32_t *value_p)
{
    int rc = SHOAL_SUCCESS;
    uint32_t dummy = 0;
    SHOAL__MPI_CHECK(sh, call, MPI_Fetch_and_op(&dummy, value_p, MPI_UINT32_T, pe, disp, MPI_NO_OP, sh->gpu->stage->rma_win));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, sh->gpu->stage->rma_win));
out:
    return rc;
}

/* Store with an MPI atomic (so that a concurrent atomic read sees all or nothing), then flush. */
static int remote_set(shoal_t sh, const char *call, int pe, MPI_Aint disp, const void *value, MPI_Datatype type)
{
    int rc = SHOAL_SUCCESS;
    SHOAL__MPI_CHECK(sh, call, MPI_Accumulate(value, 1, type, pe, disp, 1, type, MPI_REPLACE, sh->gpu->stage->rma_win));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, sh->gpu->stage->rma_win));
out:
    return rc;
}

/* A ticket of pe's ring, once its slot is mine. */
static int remote_claim(shoal_t sh, const char *call, int pe, uint64_t *t_p)
{
    struct shoal_stage *st = sh->gpu->stage;
    uint64_t one = 1, t = 0, seq = 0;
    unsigned spins = 0;
    int rc = SHOAL_SUCCESS;
    SHOAL__MPI_CHECK(sh, call, MPI_Fetch_and_op(&one, &t, MPI_UINT64_T, pe, (MPI_Aint)offsetof(stage_ring_t, tail), MPI_SUM,
                                                st->rma_win));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, st->rma_win));
    for (;;) {
        SHOAL__CHECK(remote_u64(sh, call, pe, SLOT_DISP(t, seq), &seq));
        if (seq == t) break;
        stage_pause(&spins);
    }
    *t_p = t;
out:
    return rc;
}

/* Fill the claimed slot t of pe and mark it ready. */
static int remote_post(shoal_t sh, const char *call, int pe, uint64_t t, uint32_t op, size_t off, size_t len)
{
    struct shoal_stage *st = sh->gpu->stage;
    uint64_t words[2] = {off, len};
    uint32_t ready = SLOT_READY;
    int rc = SHOAL_SUCCESS;
    SHOAL__MPI_CHECK(sh, call, MPI_Put(&op, 1, MPI_UINT32_T, pe, SLOT_DISP(t, op), 1, MPI_UINT32_T, st->rma_win));
    SHOAL__MPI_CHECK(sh, call, MPI_Put(words, 2, MPI_UINT64_T, pe, SLOT_DISP(t, off), 2, MPI_UINT64_T, st->rma_win));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, st->rma_win));
    SHOAL__CHECK(remote_set(sh, call, pe, SLOT_DISP(t, state), &ready, MPI_UINT32_T));
out:
    return rc;
}

/* Wait until the proxy of pe served put ticket t. */
static int remote_wait_put(shoal_t sh, const char *call, int pe, uint64_t t)
{
    uint64_t seq = 0;
    uint32_t state = 0;
    unsigned spins = 0;
    int rc = SHOAL_SUCCESS;
    for (;;) {
        SHOAL__CHECK(remote_u64(sh, call, pe, SLOT_DISP(t, seq), &seq));
        if (seq >= t + STAGE_SLOTS) break;
        SHOAL__CHECK(remote_u32(sh, call, pe, SLOT_DISP(t, state), &state));
        if (seq == t && state == SLOT_FAILED) {
            uint32_t empty = SLOT_EMPTY;
            uint64_t next = t + STAGE_SLOTS;
            remote_set(sh, call, pe, SLOT_DISP(t, state), &empty, MPI_UINT32_T);
            remote_set(sh, call, pe, SLOT_DISP(t, seq), &next, MPI_UINT64_T);
            return shoal__error(sh, SHOAL_ERR_CUDA, call, "PE %d failed to copy a put into its GPU heap", pe);
        }
        stage_pause(&spins);
    }
out:
    return rc;
}

int shoal__gpu_rma_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    struct shoal_stage *st = sh->gpu->stage;
    const char *s = src;
    bool on_dev = stage_on_device(src);
    uint64_t t = 0;
    int rc = SHOAL_SUCCESS;

    for (size_t done = 0; done < n; done += STAGE_CHUNK) {
        size_t len = n - done < STAGE_CHUNK ? n - done : STAGE_CHUNK;
        const void *from = s + done;
        SHOAL__CHECK(remote_claim(sh, call, pe, &t));
        if (on_dev) {
            cudaError_t err = cudaMemcpy(st->bounce, s + done, len, cudaMemcpyDeviceToHost);
            if (err != cudaSuccess) {
                rc = shoal__cuda_error(sh, call, "cudaMemcpy (to the bounce buffer)", err);
                len = 0; /* still post the slot, so the ring moves on */
            }
            from = st->bounce;
        }
        if (len > 0) {
            SHOAL__MPI_CHECK(sh, call, MPI_Put(from, (int)len, MPI_BYTE, pe, CHUNK_DISP(t), (int)len, MPI_BYTE, st->rma_win));
            SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, st->rma_win));
        }
        SHOAL__CHECK(remote_post(sh, call, pe, t, OP_PUT, off + done, len));
        if (rc != SHOAL_SUCCESS) goto out;
    }
    st->last[pe] = t + 1;
    if (!nbi) {
        st->last[pe] = 0;
        rc = remote_wait_put(sh, call, pe, t);
    }
out:
    return rc;
}

int shoal__gpu_rma_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    struct shoal_stage *st = sh->gpu->stage;
    char *d = dst;
    bool on_dev = stage_on_device(dst);
    int rc = SHOAL_SUCCESS;
    (void)nbi; /* complete before returning */

    for (size_t done = 0; done < n; done += STAGE_CHUNK) {
        size_t len = n - done < STAGE_CHUNK ? n - done : STAGE_CHUNK;
        uint64_t t = 0, next;
        uint32_t state = SLOT_READY, empty = SLOT_EMPTY;
        unsigned spins = 0;
        SHOAL__CHECK(remote_claim(sh, call, pe, &t));
        SHOAL__CHECK(remote_post(sh, call, pe, t, OP_GET, off + done, len));
        while (state == SLOT_READY) {
            SHOAL__CHECK(remote_u32(sh, call, pe, SLOT_DISP(t, state), &state));
            if (state == SLOT_READY) stage_pause(&spins);
        }
        if (state == SLOT_DONE) {
            void *to = on_dev ? (void *)st->bounce : (void *)(d + done);
            SHOAL__MPI_CHECK(sh, call, MPI_Get(to, (int)len, MPI_BYTE, pe, CHUNK_DISP(t), (int)len, MPI_BYTE, st->rma_win));
            SHOAL__MPI_CHECK(sh, call, MPI_Win_flush(pe, st->rma_win));
            if (on_dev) {
                cudaError_t err = cudaMemcpy(d + done, st->bounce, len, cudaMemcpyHostToDevice);
                if (err != cudaSuccess) rc = shoal__cuda_error(sh, call, "cudaMemcpy (from the bounce buffer)", err);
            }
        } else {
            rc = shoal__error(sh, SHOAL_ERR_CUDA, call, "PE %d failed to copy a get out of its GPU heap", pe);
        }
        next = t + STAGE_SLOTS;
        SHOAL__CHECK(remote_set(sh, call, pe, SLOT_DISP(t, state), &empty, MPI_UINT32_T));
        SHOAL__CHECK(remote_set(sh, call, pe, SLOT_DISP(t, seq), &next, MPI_UINT64_T));
        if (rc != SHOAL_SUCCESS) goto out;
    }
out:
    return rc;
}

int shoal__gpu_rma_quiet(shoal_t sh, const char *call)
{
    struct shoal_stage *st = sh->gpu != NULL ? sh->gpu->stage : NULL;
    if (st == NULL || st->rma_win == MPI_WIN_NULL) return SHOAL_SUCCESS;
    for (int pe = 0; pe < sh->n_pes; pe++) {
        uint64_t t = st->last[pe];
        int rc;
        if (t == 0 || sh->pe_node[pe] == sh->node_id) continue;
        st->last[pe] = 0;
        rc = remote_wait_put(sh, call, pe, t - 1);
        if (rc != SHOAL_SUCCESS) return rc;
    }
    return SHOAL_SUCCESS;
}

bool shoal__gpu_rma_ready(shoal_t sh)
{
    return sh->gpu != NULL && sh->gpu->stage != NULL && sh->gpu->stage->rma_win != MPI_WIN_NULL;
}

/* Collective over the node. Creates the rings when some pair of the node
 * needs them, and starts this PE's proxy. */
int shoal__staged_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    struct shoal_gpu *g = sh->gpu;
    struct shoal_stage *st = NULL;
    int need = 0, any = 0, rc = SHOAL_SUCCESS, n_pinned = 0;
    void *mine = NULL;

    if (!(sh->disabled & (1u << SHOAL_TRANSPORT_STAGED)))
        for (int r = 0; r < sh->node_size; r++)
            if (sh->node_pes[r] != sh->my_pe && sh->peer_base[sh->node_pes[r]] == NULL) need = 1;
    /* PEs on other nodes reach my GPU heap through the same ring, over MPI. */
    if (sh->n_nodes > 1) need = 1;
    SHOAL__MPI_CHECK(sh, call, MPI_Allreduce(&need, &any, 1, MPI_INT, MPI_MAX, sh->comm));
    if (!any) return SHOAL_SUCCESS;

    st = calloc(1, sizeof(*st));
    if (st == NULL || (st->last = calloc((size_t)sh->n_pes, sizeof(uint64_t))) == NULL ||
        (st->ring = calloc((size_t)sh->node_size, sizeof(char *))) == NULL ||
        (st->registered = calloc((size_t)sh->node_size, sizeof(bool))) == NULL) {
        if (st) free(st->ring), free(st->last);
        free(st);
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    }
    st->win = st->rma_win = MPI_WIN_NULL;
    g->stage = st;
    rc = MPI_Win_allocate_shared((MPI_Aint)STAGE_PE_BYTES, 1, MPI_INFO_NULL, sh->node_comm, &mine, &st->win);
    if (rc != MPI_SUCCESS) {
        st->win = MPI_WIN_NULL;
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot allocate %zu bytes of staging memory per PE",
                          (size_t)STAGE_PE_BYTES);
        goto out;
    }
    for (int r = 0; r < sh->node_size; r++) {
        MPI_Aint size;
        int disp;
        SHOAL__MPI_CHECK(sh, call, MPI_Win_shared_query(st->win, r, &size, &disp, &st->ring[r]));
    }
    {
        stage_ring_t *ring = mine;
        atomic_init(&ring->tail, 0);
        for (int i = 0; i < STAGE_SLOTS; i++) {
            atomic_init(&ring->slot[i].seq, (uint64_t)i);
            atomic_init(&ring->slot[i].state, SLOT_EMPTY);
        }
    }
    for (int r = 0; r < sh->node_size; r++) {
        /* Pinned for DMA; without it still correct, only slower. */
        if (cudaHostRegister(st->ring[r], STAGE_PE_BYTES, cudaHostRegisterPortable) == cudaSuccess)
            st->registered[r] = true, n_pinned++;
        else
            cudaGetLastError();
    }
    if (sh->n_nodes > 1) {
        SHOAL__MPI_CHECK(sh, call, MPI_Win_create(mine, (MPI_Aint)STAGE_PE_BYTES, 1, MPI_INFO_NULL, sh->comm, &st->rma_win));
        SHOAL__MPI_CHECK(sh, call, MPI_Win_set_errhandler(st->rma_win, MPI_ERRORS_RETURN));
        SHOAL__MPI_CHECK(sh, call, MPI_Win_lock_all(MPI_MODE_NOCHECK, st->rma_win));
        if (cudaMallocHost((void **)&st->bounce, STAGE_CHUNK) != cudaSuccess) {
            cudaGetLastError();
            st->bounce = NULL;
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot allocate %zu bytes of pinned host memory",
                              STAGE_CHUNK);
            goto out;
        }
        sh->progress_win = st->rma_win;
    }
    st->heap = sh->heap_base;
    st->proxy_device = g->device;
    atomic_init(&st->stop, 0);
    SHOAL__MPI_CHECK(sh, call, MPI_Barrier(sh->node_comm)); /* rings initialized before any claim */
    if (pthread_create(&st->proxy, NULL, stage_proxy, sh) != 0) {
        rc = shoal__error(sh, SHOAL_ERR_SYSTEM, call, "cannot start the staging proxy thread");
        goto out;
    }
    st->proxy_running = true;
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "staged transport: %d slots of %zu bytes per PE, %d of %d pinned",
               STAGE_SLOTS, STAGE_CHUNK, n_pinned, sh->node_size);
out:
    return rc;
}

void shoal__staged_destroy(shoal_t sh)
{
    struct shoal_stage *st = sh->gpu != NULL ? sh->gpu->stage : NULL;
    if (st == NULL) return;
    if (st->proxy_running) {
        atomic_store_explicit(&st->stop, 1, memory_order_release);
        pthread_join(st->proxy, NULL);
    }
    for (int r = 0; r < sh->node_size; r++)
        if (st->registered[r]) cudaHostUnregister(st->ring[r]);
    if (!sh->broken && st->rma_win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(st->rma_win);
        MPI_Win_free(&st->rma_win);
    }
    sh->progress_win = MPI_WIN_NULL;
    if (st->bounce != NULL) cudaFreeHost(st->bounce);
    if (!sh->broken && st->win != MPI_WIN_NULL) MPI_Win_free(&st->win);
    free(st->registered);
    free(st->ring);
    free(st->last);
    free(st);
    sh->gpu->stage = NULL;
}
#endif

const shoal__transport_t shoal__transport_staged = {
    .name = "staged",
    .id = SHOAL_TRANSPORT_STAGED,
    .can_connect = staged_can_connect,
    .put = staged_put,
    .get = staged_get,
    .quiet = staged_quiet,
};
