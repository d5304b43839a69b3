/* staged: GPU heaps of one node whose devices cannot reach each other (no
 * peer access, cuda_ipc disabled, or a path beyond SHOAL_P2P_LEVEL). The
 * data goes through the target's staging ring in pinned host memory of
 * the node's shared window (runtime/transport/stage.h), and the target's
 * proxy thread moves it into or out of its heap. CUDA builds only.
 *
 * Threads: tickets are atomic, so several threads may put and get at once;
 * a put raises the last ticket per target (what a quiet waits for) with a
 * compare-and-swap, and a quiet takes it with an exchange. */
#if SHOAL_HAVE_CUDA
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "transport/stage.h"
#include "transport/transport.h"

typedef struct staged_state {
    _Atomic uint64_t *last; /* per PE: my highest nbi put ticket to it, + 1 (0: none) */
} staged_state_t;

static staged_state_t *staged_state(shoal_t sh) { return sh->tp_state[SHOAL_TRANSPORT_STAGED]; }

/* Take the next ticket of pe's ring and wait until its slot is mine. Where
 * PEs of other nodes take tickets of the same rings over MPI
 * (sh->stage->tail_win), this PE does too: MPI's atomics are not atomic
 * with respect to the CPU's on the same counter. */
static int staged_claim(shoal_t sh, const char *call, int pe, shoal__stage_slot_t **slot_p, uint64_t *t_p)
{
    shoal__stage_ring_t *ring = shoal__stage_ring(sh, pe);
    MPI_Win win = sh->stage->tail_win;
    shoal__stage_slot_t *s;
    unsigned spins = 0;
    uint64_t t;

    if (win != MPI_WIN_NULL) {
        uint64_t one = 1;
        int rc =
            MPI_Fetch_and_op(&one, &t, MPI_UINT64_T, pe, (MPI_Aint)offsetof(shoal__stage_ring_t, tail), MPI_SUM, win);
        if (rc == MPI_SUCCESS) rc = MPI_Win_flush(pe, win);
        if (rc != MPI_SUCCESS) return shoal__mpi_error(sh, call, "MPI_Fetch_and_op (staging ticket)", rc);
    } else {
        t = atomic_fetch_add_explicit(&ring->tail, 1, memory_order_relaxed);
    }
    s = &ring->slot[t % SHOAL__STAGE_SLOTS];
    while (atomic_load_explicit(&s->seq, memory_order_acquire) != t) shoal__stage_pause(&spins);
    *slot_p = s;
    *t_p = t;
    return SHOAL_SUCCESS;
}

/* Copy between any memory and a chunk: memcpy between host buffers, the
 * copy engine when one side is on a GPU. */
static int staged_copy(shoal_t sh, const char *call, void *dst, const void *src, size_t n)
{
    if (!shoal__gpu_on_device(src) && !shoal__gpu_on_device(dst)) {
        memcpy(dst, src, n);
        return SHOAL_SUCCESS;
    }
    return shoal__gpu_copy(sh, call, "cudaMemcpy (staging)", dst, src, n);
}

/* Wait until the proxy served put ticket t; a failed slot is recycled here. */
static int staged_wait_put(shoal_t sh, const char *call, int pe, uint64_t t)
{
    shoal__stage_slot_t *slot = &shoal__stage_ring(sh, pe)->slot[t % SHOAL__STAGE_SLOTS];
    unsigned spins = 0;
    while (atomic_load_explicit(&slot->seq, memory_order_acquire) < t + SHOAL__STAGE_SLOTS) {
        /* The state is t's only if seq still says t once it was read. */
        if (atomic_load_explicit(&slot->seq, memory_order_acquire) == t &&
            atomic_load_explicit(&slot->state, memory_order_acquire) == SHOAL__SLOT_FAILED &&
            atomic_load_explicit(&slot->seq, memory_order_acquire) == t) {
            atomic_store_explicit(&slot->state, SHOAL__SLOT_EMPTY, memory_order_relaxed);
            atomic_store_explicit(&slot->seq, t + SHOAL__STAGE_SLOTS, memory_order_release);
            return shoal__error(sh, SHOAL_ERR_CUDA, call,
                                "PE %d failed to copy a staged put into its GPU heap or registered GPU range "
                                "(deregistered?)",
                                pe);
        }
        shoal__stage_pause(&spins);
    }
    return SHOAL_SUCCESS;
}

/* Raise the ticket a quiet waits for (slots are served in order, so the
 * highest covers the rest); another thread may raise it too. */
static void staged_note_last(staged_state_t *st, int pe, uint64_t t)
{
    uint64_t seen = atomic_load_explicit(&st->last[pe], memory_order_relaxed);
    while (seen < t + 1 && !atomic_compare_exchange_weak_explicit(&st->last[pe], &seen, t + 1, memory_order_acq_rel,
                                                                  memory_order_relaxed))
        ;
}

/* Rings wherever some PE of any node needs them: the decision is global,
 * so the node's PEs create them together. */
static int staged_setup(shoal_t sh, bool need)
{
    static const char *call = "shoal_init";
    staged_state_t *st;
    int any = need, rc = SHOAL_SUCCESS;

    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, sh->comm));
    if (!any) return SHOAL_SUCCESS;
    st = calloc(1, sizeof(*st));
    if (st != NULL && (st->last = calloc((size_t)sh->n_pes, sizeof(*st->last))) == NULL) {
        free(st);
        st = NULL;
    }
    sh->tp_state[SHOAL_TRANSPORT_STAGED] = st;
    rc = shoal__stage_acquire(sh, 1u << SHOAL_TRANSPORT_STAGED); /* collective: even where st is missing */
    if (rc == SHOAL_SUCCESS && st == NULL) rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
out:
    return rc;
}

static bool staged_connect(shoal_t sh, int pe)
{
    return staged_state(sh) != NULL && sh->stage != NULL && pe != sh->my_pe && sh->pe_node[pe] == sh->node_id;
}

static void staged_teardown(shoal_t sh)
{
    staged_state_t *st = staged_state(sh);
    shoal__stage_release(sh, 1u << SHOAL_TRANSPORT_STAGED); /* held even where st is missing */
    if (st == NULL) return;
    free(st->last);
    free(st);
    sh->tp_state[SHOAL_TRANSPORT_STAGED] = NULL;
}

static int staged_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    staged_state_t *st = staged_state(sh);
    const char *s = src;
    uint64_t t = 0;
    int rc;

    for (size_t done = 0; done < n; done += SHOAL__STAGE_CHUNK) {
        size_t len = n - done < SHOAL__STAGE_CHUNK ? n - done : SHOAL__STAGE_CHUNK;
        shoal__stage_slot_t *slot;
        rc = staged_claim(sh, call, pe, &slot, &t);
        if (rc != SHOAL_SUCCESS) return rc;
        rc = staged_copy(sh, call, shoal__stage_chunk(sh, pe, t), s + done, len);
        slot->op = SHOAL__STAGE_PUT;
        slot->off = off + done;
        slot->len = rc == SHOAL_SUCCESS ? len : 0; /* a failed copy still releases the slot */
        atomic_store_explicit(&slot->state, SHOAL__SLOT_READY, memory_order_release);
        if (rc != SHOAL_SUCCESS) return rc;
    }
    if (!nbi) return staged_wait_put(sh, call, pe, t);
    staged_note_last(st, pe, t);
    return SHOAL_SUCCESS;
}

static int staged_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    char *d = dst;
    int rc = SHOAL_SUCCESS;
    (void)nbi; /* gets through the host complete before returning */

    for (size_t done = 0; done < n && rc == SHOAL_SUCCESS; done += SHOAL__STAGE_CHUNK) {
        size_t len = n - done < SHOAL__STAGE_CHUNK ? n - done : SHOAL__STAGE_CHUNK;
        shoal__stage_slot_t *slot;
        uint64_t t;
        unsigned spins = 0;
        uint32_t state;
        rc = staged_claim(sh, call, pe, &slot, &t);
        if (rc != SHOAL_SUCCESS) break;
        slot->op = SHOAL__STAGE_GET;
        slot->off = off + done;
        slot->len = len;
        atomic_store_explicit(&slot->state, SHOAL__SLOT_READY, memory_order_release);
        while ((state = atomic_load_explicit(&slot->state, memory_order_acquire)) == SHOAL__SLOT_READY)
            shoal__stage_pause(&spins);
        if (state == SHOAL__SLOT_DONE)
            rc = staged_copy(sh, call, d + done, shoal__stage_chunk(sh, pe, t), len);
        else
            rc = shoal__error(sh, SHOAL_ERR_CUDA, call,
                              "PE %d failed to copy a staged get out of its GPU heap or registered GPU range "
                              "(deregistered?)",
                              pe);
        atomic_store_explicit(&slot->state, SHOAL__SLOT_EMPTY, memory_order_relaxed);
        atomic_store_explicit(&slot->seq, t + SHOAL__STAGE_SLOTS, memory_order_release);
    }
    return rc;
}

/* An atomic in a slot of pe's ring: its proxy runs it on its GPU, after the
 * puts before it (a signal after its data). Without a result it is a put
 * (complete at quiet unless blocking); with one the origin waits for the
 * old value (nbi too: the slot cannot move on before it is read). */
static int staged_amo(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *result, int nbi)
{
    shoal__stage_slot_t *slot;
    uint64_t t;
    char *chunk;
    unsigned spins = 0;
    uint32_t state;
    int rc = staged_claim(sh, call, pe, &slot, &t);

    if (rc != SHOAL_SUCCESS) return rc;
    chunk = shoal__stage_chunk(sh, pe, t);
    memcpy(chunk, a, sizeof(*a));
    slot->op = result != NULL ? SHOAL__STAGE_AMO_FETCH : SHOAL__STAGE_AMO;
    slot->off = off;
    slot->len = a->size;
    atomic_store_explicit(&slot->state, SHOAL__SLOT_READY, memory_order_release);
    if (result == NULL) {
        if (!nbi) return staged_wait_put(sh, call, pe, t);
        staged_note_last(staged_state(sh), pe, t);
        return SHOAL_SUCCESS;
    }
    while ((state = atomic_load_explicit(&slot->state, memory_order_acquire)) == SHOAL__SLOT_READY)
        shoal__stage_pause(&spins);
    if (state == SHOAL__SLOT_DONE)
        memcpy(result, chunk + SHOAL__STAGE_AMO_RESULT, a->size);
    else
        rc = shoal__error(sh, SHOAL_ERR_CUDA, call,
                          "PE %d failed to run a staged atomic on its GPU heap or registered GPU range (deregistered?)",
                          pe);
    atomic_store_explicit(&slot->state, SHOAL__SLOT_EMPTY, memory_order_relaxed);
    atomic_store_explicit(&slot->seq, t + SHOAL__STAGE_SLOTS, memory_order_release);
    return rc;
}

/* My puts are complete once their slots were recycled by the proxies. */
static int staged_quiet(shoal_t sh, const char *call)
{
    staged_state_t *st = staged_state(sh);
    if (st == NULL) return SHOAL_SUCCESS;
    for (int pe = 0; pe < sh->n_pes; pe++) {
        uint64_t t;
        int rc;
        if (sh->pe_node[pe] != sh->node_id) continue;
        /* Cleared only once waited for, and only if no later put raised
         * it meanwhile: another thread's quiet (the device proxy's) at the
         * same time waits for the same ticket rather than returning early. */
        t = atomic_load_explicit(&st->last[pe], memory_order_acquire);
        if (t == 0) continue;
        rc = staged_wait_put(sh, call, pe, t - 1);
        if (rc != SHOAL_SUCCESS) return rc;
        atomic_compare_exchange_strong_explicit(&st->last[pe], &t, 0, memory_order_acq_rel, memory_order_relaxed);
    }
    return SHOAL_SUCCESS;
}

const shoal__tp_ops_t shoal__tp_staged = {
    .name = "staged",
    .id = SHOAL_TRANSPORT_STAGED,
    .heap_kind = SHOAL_HEAP_GPU,
    .setup = staged_setup,
    .connect = staged_connect,
    .teardown = staged_teardown,
    .put = staged_put,
    .get = staged_get,
    .quiet = staged_quiet,
    .amo = staged_amo,
};
#endif
