/* staged-over-MPI (shown as mpi_rma): GPU heaps of PEs on other nodes.
 * The target's staging ring (runtime/transport/stage.h), reached over MPI
 * RMA: the ticket is an MPI fetch-and-add on the target's tail, the slot
 * words are read and written with MPI atomics, the chunk is moved with
 * MPI_Put/MPI_Get. The target's proxy serves the slot as for a node peer.
 * Device memory on this side goes through a pinned bounce chunk. CUDA
 * builds only.
 *
 * Threads: tickets are MPI atomics; the bounce chunk is taken by one
 * thread at a time; a put raises the last ticket per target with a
 * compare-and-swap, and a quiet takes it with an exchange. */
#if SHOAL_HAVE_CUDA
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "transport/stage.h"
#include "transport/transport.h"

typedef struct staged_mpi_state {
    MPI_Win win;  /* every PE's ring over sh->comm */
    char *bounce; /* pinned host chunk for copies from/to device memory */
    pthread_mutex_t bounce_lock;
    _Atomic uint64_t *last; /* per PE: my highest nbi put ticket to it, + 1 (0: none) */
} staged_mpi_state_t;

/* Its state sits in the slot of the id the policy knows it by. */
static staged_mpi_state_t *staged_mpi_state(shoal_t sh) { return sh->tp_state[SHOAL_TRANSPORT_MPI_RMA]; }

#define SLOT_DISP(t, field)                                                                                            \
    ((MPI_Aint)(offsetof(shoal__stage_ring_t, slot) + ((t) % SHOAL__STAGE_SLOTS) * sizeof(shoal__stage_slot_t) +       \
                offsetof(shoal__stage_slot_t, field)))
#define CHUNK_DISP(t) ((MPI_Aint)(SHOAL__STAGE_RING_BYTES + ((t) % SHOAL__STAGE_SLOTS) * SHOAL__STAGE_CHUNK))

static int remote_u64(shoal_t sh, const char *call, int pe, MPI_Aint disp, uint64_t *value_p)
{
    int rc = SHOAL_SUCCESS;
    uint64_t dummy = 0;
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Fetch_and_op(&dummy, value_p, MPI_UINT64_T, pe, disp, MPI_NO_OP, staged_mpi_state(sh)->win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, staged_mpi_state(sh)->win));
out:
    return rc;
}

static int remote_u32(shoal_t sh, const char *call, int pe, MPI_Aint disp, uint32_t *value_p)
{
    int rc = SHOAL_SUCCESS;
    uint32_t dummy = 0;
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Fetch_and_op(&dummy, value_p, MPI_UINT32_T, pe, disp, MPI_NO_OP, staged_mpi_state(sh)->win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, staged_mpi_state(sh)->win));
out:
    return rc;
}

/* Store with an MPI atomic (so that a concurrent atomic read sees all or nothing), then flush. */
static int remote_set(shoal_t sh, const char *call, int pe, MPI_Aint disp, const void *value, MPI_Datatype type)
{
    int rc = SHOAL_SUCCESS;
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Accumulate(value, 1, type, pe, disp, 1, type, MPI_REPLACE, staged_mpi_state(sh)->win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, staged_mpi_state(sh)->win));
out:
    return rc;
}

/* A ticket of pe's ring, once its slot is mine. */
static int remote_claim(shoal_t sh, const char *call, int pe, uint64_t *t_p)
{
    staged_mpi_state_t *st = staged_mpi_state(sh);
    uint64_t one = 1, t = 0, seq = 0;
    unsigned spins = 0;
    int rc = SHOAL_SUCCESS;
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Fetch_and_op(&one, &t, MPI_UINT64_T, pe, (MPI_Aint)offsetof(shoal__stage_ring_t, tail), MPI_SUM,
                                    st->win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, st->win));
    for (;;) {
        SHOAL__TRY(rc, out, remote_u64(sh, call, pe, SLOT_DISP(t, seq), &seq));
        if (seq == t) break;
        shoal__stage_pause(&spins);
    }
    *t_p = t;
out:
    return rc;
}

/* Fill the claimed slot t of pe and mark it ready. */
static int remote_post(shoal_t sh, const char *call, int pe, uint64_t t, uint32_t op, size_t off, size_t len)
{
    staged_mpi_state_t *st = staged_mpi_state(sh);
    uint64_t words[2] = {off, len};
    uint32_t ready = SHOAL__SLOT_READY;
    int rc = SHOAL_SUCCESS;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Put(&op, 1, MPI_UINT32_T, pe, SLOT_DISP(t, op), 1, MPI_UINT32_T, st->win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Put(words, 2, MPI_UINT64_T, pe, SLOT_DISP(t, off), 2, MPI_UINT64_T, st->win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_flush(pe, st->win));
    SHOAL__TRY(rc, out, remote_set(sh, call, pe, SLOT_DISP(t, state), &ready, MPI_UINT32_T));
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
        SHOAL__TRY(rc, out, remote_u64(sh, call, pe, SLOT_DISP(t, seq), &seq));
        if (seq >= t + SHOAL__STAGE_SLOTS) break;
        SHOAL__TRY(rc, out, remote_u32(sh, call, pe, SLOT_DISP(t, state), &state));
        /* The state read after seq may already be a later ticket's: it is
         * t's only if seq still says t. */
        if (seq == t && state == SHOAL__SLOT_FAILED)
            SHOAL__TRY(rc, out, remote_u64(sh, call, pe, SLOT_DISP(t, seq), &seq));
        if (seq == t && state == SHOAL__SLOT_FAILED) {
            uint32_t empty = SHOAL__SLOT_EMPTY;
            uint64_t next = t + SHOAL__STAGE_SLOTS;
            remote_set(sh, call, pe, SLOT_DISP(t, state), &empty, MPI_UINT32_T);
            remote_set(sh, call, pe, SLOT_DISP(t, seq), &next, MPI_UINT64_T);
            return shoal__error(sh, SHOAL_ERR_CUDA, call,
                                "PE %d failed to copy a put into its GPU heap or registered GPU range (deregistered?)",
                                pe);
        }
        shoal__stage_pause(&spins);
    }
out:
    return rc;
}

static int staged_mpi_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    staged_mpi_state_t *st = staged_mpi_state(sh);
    const char *s = src;
    bool on_dev = shoal__gpu_on_device(src);
    uint64_t t = 0, seen;
    int rc = SHOAL_SUCCESS;

    for (size_t done = 0; done < n; done += SHOAL__STAGE_CHUNK) {
        size_t len = n - done < SHOAL__STAGE_CHUNK ? n - done : SHOAL__STAGE_CHUNK;
        int prc = SHOAL_SUCCESS;
        SHOAL__TRY(rc, out, remote_claim(sh, call, pe, &t));
        if (on_dev) {
            /* One bounce chunk per PE: one thread at a time, until the data left it. */
            pthread_mutex_lock(&st->bounce_lock);
            rc = shoal__gpu_copy(sh, call, "cudaMemcpy (to the bounce buffer)", st->bounce, s + done, len);
            if (rc != SHOAL_SUCCESS) len = 0; /* still post the slot, so the ring moves on */
            if (len > 0) prc = MPI_Put(st->bounce, (int)len, MPI_BYTE, pe, CHUNK_DISP(t), (int)len, MPI_BYTE, st->win);
            if (len > 0 && prc == MPI_SUCCESS) prc = MPI_Win_flush(pe, st->win);
            pthread_mutex_unlock(&st->bounce_lock);
        } else if (len > 0) {
            prc = MPI_Put(s + done, (int)len, MPI_BYTE, pe, CHUNK_DISP(t), (int)len, MPI_BYTE, st->win);
            if (prc == MPI_SUCCESS) prc = MPI_Win_flush(pe, st->win);
        }
        if (prc != MPI_SUCCESS) {
            rc = shoal__mpi_error(sh, call, "MPI_Put (staging chunk)", prc);
            len = 0; /* the claimed slot is posted empty all the same: the ring moves on */
        }
        /* A failure above keeps its status: the post's own only if it fails too. */
        prc = remote_post(sh, call, pe, t, SHOAL__STAGE_PUT, off + done, len);
        if (rc == SHOAL_SUCCESS) rc = prc;
        if (rc != SHOAL_SUCCESS) goto out;
    }
    if (!nbi) return remote_wait_put(sh, call, pe, t);
    seen = atomic_load_explicit(&st->last[pe], memory_order_relaxed);
    while (seen < t + 1 && !atomic_compare_exchange_weak_explicit(&st->last[pe], &seen, t + 1, memory_order_acq_rel,
                                                                  memory_order_relaxed))
        ;
out:
    return rc;
}

static int staged_mpi_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    staged_mpi_state_t *st = staged_mpi_state(sh);
    char *d = dst;
    bool on_dev = shoal__gpu_on_device(dst);
    int rc = SHOAL_SUCCESS;
    (void)nbi; /* complete before returning */

    for (size_t done = 0; done < n; done += SHOAL__STAGE_CHUNK) {
        size_t len = n - done < SHOAL__STAGE_CHUNK ? n - done : SHOAL__STAGE_CHUNK;
        uint64_t t = 0, next;
        uint32_t state = SHOAL__SLOT_READY, empty = SHOAL__SLOT_EMPTY;
        unsigned spins = 0;
        SHOAL__TRY(rc, out, remote_claim(sh, call, pe, &t));
        SHOAL__TRY(rc, out, remote_post(sh, call, pe, t, SHOAL__STAGE_GET, off + done, len));
        while (state == SHOAL__SLOT_READY) {
            SHOAL__TRY(rc, out, remote_u32(sh, call, pe, SLOT_DISP(t, state), &state));
            if (state == SHOAL__SLOT_READY) shoal__stage_pause(&spins);
        }
        if (state == SHOAL__SLOT_DONE) {
            int grc;
            if (on_dev) pthread_mutex_lock(&st->bounce_lock);
            grc = MPI_Get(on_dev ? (void *)st->bounce : (void *)(d + done), (int)len, MPI_BYTE, pe, CHUNK_DISP(t),
                          (int)len, MPI_BYTE, st->win);
            if (grc == MPI_SUCCESS) grc = MPI_Win_flush(pe, st->win);
            if (grc != MPI_SUCCESS) {
                rc = shoal__mpi_error(sh, call, "MPI_Get (staging chunk)", grc);
            } else if (on_dev) {
                rc = shoal__gpu_copy(sh, call, "cudaMemcpy (from the bounce buffer)", d + done, st->bounce, len);
            }
            if (on_dev) pthread_mutex_unlock(&st->bounce_lock);
        } else {
            rc = shoal__error(sh, SHOAL_ERR_CUDA, call,
                              "PE %d failed to copy a get out of its GPU heap or registered GPU range (deregistered?)",
                              pe);
        }
        next = t + SHOAL__STAGE_SLOTS;
        {
            /* Recycle the slot whatever happened; the first failure is the one returned. */
            int src = remote_set(sh, call, pe, SLOT_DISP(t, state), &empty, MPI_UINT32_T);
            if (src == SHOAL_SUCCESS) src = remote_set(sh, call, pe, SLOT_DISP(t, seq), &next, MPI_UINT64_T);
            if (rc == SHOAL_SUCCESS) rc = src;
        }
        if (rc != SHOAL_SUCCESS) goto out;
    }
out:
    return rc;
}

/* An atomic in a slot of pe's ring, over MPI: its descriptor into the
 * chunk, the slot posted; the target's proxy runs it on its GPU after the
 * puts before it. Without a result it is a put (complete at quiet unless
 * blocking); with one the origin waits for the old value (nbi too). */
static int staged_mpi_amo(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *result,
                          int nbi)
{
    staged_mpi_state_t *st = staged_mpi_state(sh);
    uint64_t t = 0, seen, next, value = 0;
    uint32_t state = SHOAL__SLOT_READY, empty = SHOAL__SLOT_EMPTY;
    unsigned spins = 0;
    int rc = SHOAL_SUCCESS, prc;

    SHOAL__TRY(rc, out, remote_claim(sh, call, pe, &t));
    prc = MPI_Put(a, (int)sizeof(*a), MPI_BYTE, pe, CHUNK_DISP(t), (int)sizeof(*a), MPI_BYTE, st->win);
    if (prc == MPI_SUCCESS) prc = MPI_Win_flush(pe, st->win);
    if (prc != MPI_SUCCESS) {
        /* The claimed slot is posted as an empty put all the same: the ring moves on. */
        rc = shoal__mpi_error(sh, call, "MPI_Put (atomic descriptor)", prc);
        remote_post(sh, call, pe, t, SHOAL__STAGE_PUT, off, 0);
        goto out;
    }
    SHOAL__TRY(rc, out,
               remote_post(sh, call, pe, t, result != NULL ? SHOAL__STAGE_AMO_FETCH : SHOAL__STAGE_AMO, off, a->size));
    if (result == NULL) {
        if (!nbi) return remote_wait_put(sh, call, pe, t);
        seen = atomic_load_explicit(&st->last[pe], memory_order_relaxed);
        while (seen < t + 1 && !atomic_compare_exchange_weak_explicit(&st->last[pe], &seen, t + 1, memory_order_acq_rel,
                                                                      memory_order_relaxed))
            ;
        return SHOAL_SUCCESS;
    }
    while (state == SHOAL__SLOT_READY) {
        SHOAL__TRY(rc, out, remote_u32(sh, call, pe, SLOT_DISP(t, state), &state));
        if (state == SHOAL__SLOT_READY) shoal__stage_pause(&spins);
    }
    if (state == SHOAL__SLOT_DONE) {
        rc = remote_u64(sh, call, pe, CHUNK_DISP(t) + SHOAL__STAGE_AMO_RESULT, &value);
        if (rc == SHOAL_SUCCESS) memcpy(result, &value, a->size);
    } else {
        rc = shoal__error(sh, SHOAL_ERR_CUDA, call,
                          "PE %d failed to run an atomic on its GPU heap or registered GPU range (deregistered?)", pe);
    }
    next = t + SHOAL__STAGE_SLOTS;
    {
        int src = remote_set(sh, call, pe, SLOT_DISP(t, state), &empty, MPI_UINT32_T);
        if (src == SHOAL_SUCCESS) src = remote_set(sh, call, pe, SLOT_DISP(t, seq), &next, MPI_UINT64_T);
        if (rc == SHOAL_SUCCESS) rc = src;
    }
out:
    return rc;
}

static int staged_mpi_quiet(shoal_t sh, const char *call)
{
    staged_mpi_state_t *st = staged_mpi_state(sh);
    if (st == NULL || st->win == MPI_WIN_NULL) return SHOAL_SUCCESS;
    for (int pe = 0; pe < sh->n_pes; pe++) {
        uint64_t t;
        int rc;
        if (sh->pe_node[pe] == sh->node_id) continue;
        /* Cleared only once waited for, and only if no later put raised
         * it meanwhile: a quiet of another thread (the device proxy's)
         * that runs at the same time waits for the same ticket rather
         * than finding none and returning early. */
        t = atomic_load_explicit(&st->last[pe], memory_order_acquire);
        if (t == 0) continue;
        rc = remote_wait_put(sh, call, pe, t - 1);
        if (rc != SHOAL_SUCCESS) return rc;
        atomic_compare_exchange_strong_explicit(&st->last[pe], &t, 0, memory_order_acq_rel, memory_order_relaxed);
    }
    return SHOAL_SUCCESS;
}

/* Collective over sh->comm: where some PE has a peer on another node,
 * every PE's ring is exposed in one window (each PE is a target). */
static int staged_mpi_setup(shoal_t sh, bool need)
{
    static const char *call = "shoal_init";
    staged_mpi_state_t *st;
    int any = need, rc = SHOAL_SUCCESS, failed;

    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, sh->comm));
    if (!any) return SHOAL_SUCCESS;
    st = calloc(1, sizeof(*st));
    if (st != NULL && (st->last = calloc((size_t)sh->n_pes, sizeof(*st->last))) == NULL) {
        free(st);
        st = NULL;
    }
    if (st != NULL) {
        st->win = MPI_WIN_NULL;
        pthread_mutex_init(&st->bounce_lock, NULL);
        sh->tp_state[SHOAL_TRANSPORT_MPI_RMA] = st;
    }
    rc = shoal__stage_acquire(sh, 1u << SHOAL_TRANSPORT_MPI_RMA); /* collective over the node */
    failed = rc != SHOAL_SUCCESS || st == NULL;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, sh->comm));
    if (failed) {
        if (rc == SHOAL_SUCCESS)
            rc = st == NULL
                     ? shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory")
                     : shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "another PE could not set up its staging ring");
        goto out;
    }
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Win_create(sh->stage->mine, (MPI_Aint)SHOAL__STAGE_PE_BYTES, 1, MPI_INFO_NULL, sh->comm,
                                  &st->win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_set_errhandler(st->win, MPI_ERRORS_RETURN));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_lock_all(MPI_MODE_NOCHECK, st->win));
    sh->stage->tail_win = st->win; /* node peers take their tickets through MPI too */
    if (cudaMallocHost((void **)&st->bounce, SHOAL__STAGE_CHUNK) != cudaSuccess) {
        cudaGetLastError();
        st->bounce = NULL;
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot allocate %zu bytes of pinned host memory",
                          SHOAL__STAGE_CHUNK);
    }
out:
    return rc;
}

static bool staged_mpi_connect(shoal_t sh, int pe)
{
    const staged_mpi_state_t *st = staged_mpi_state(sh);
    return st != NULL && st->win != MPI_WIN_NULL && sh->pe_node[pe] != sh->node_id;
}

static void staged_mpi_teardown(shoal_t sh)
{
    staged_mpi_state_t *st = staged_mpi_state(sh);
    if (st == NULL) {
        shoal__stage_release(sh, 1u << SHOAL_TRANSPORT_MPI_RMA); /* held even where st is missing */
        return;
    }
    if (sh->stage != NULL) sh->stage->tail_win = MPI_WIN_NULL;
    if (!sh->broken && st->win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(st->win);
        MPI_Win_free(&st->win);
    }
    if (st->bounce != NULL) cudaFreeHost(st->bounce);
    shoal__stage_release(sh, 1u << SHOAL_TRANSPORT_MPI_RMA);
    pthread_mutex_destroy(&st->bounce_lock);
    free(st->last);
    free(st);
    sh->tp_state[SHOAL_TRANSPORT_MPI_RMA] = NULL;
}

const shoal__tp_ops_t shoal__tp_staged_mpi = {
    .name = "mpi_rma",
    .id = SHOAL_TRANSPORT_MPI_RMA,
    .heap_kind = SHOAL_HEAP_GPU,
    .caps = SHOAL__TP_CAP_NEEDS_PROGRESS,
    .setup = staged_mpi_setup,
    .connect = staged_mpi_connect,
    .teardown = staged_mpi_teardown,
    .put = staged_mpi_put,
    .get = staged_mpi_get,
    .quiet = staged_mpi_quiet,
    .amo = staged_mpi_amo,
};
#endif
