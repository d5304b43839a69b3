/* The staging rings (runtime/transport/stage.h): their shared window, the
 * proxy thread that serves this PE's ring, and the helpers both staged
 * transports use. CUDA builds only. */
#if SHOAL_HAVE_CUDA
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heap/gpu_amo.h"
#include "heap/shoal_register.h"
#include "transport/stage.h"

void shoal__stage_pause(unsigned *spins)
{
    if (++*spins < 1000) return;
    if (*spins < 5000) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

/* One slot: the copy, or the atomic and its old value into the chunk.
 * Everything on the proxy's own non-blocking stream: work the application
 * queued on its streams (a kernel waiting for this very put's signal) never
 * holds the proxy up. The offset is into the heap, or into a registered
 * GPU range (runtime/heap/shoal_register.h). */
static cudaError_t stage_serve(shoal_t sh, cudaStream_t stream, const shoal__stage_slot_t *s, char *chunk)
{
    struct shoal_stage *st = sh->stage;
    char *at = s->off < SHOAL__REG_SEG_BASE ? st->heap + s->off
                                            : shoal__reg_seg_addr(sh, sh->my_pe, s->off, s->len > 0 ? s->len : 1);
    cudaError_t err;

    if (at == NULL) return cudaErrorInvalidValue; /* a range deregistered under the origin's feet */
    switch (s->op) {
    case SHOAL__STAGE_PUT: err = cudaMemcpyAsync(at, chunk, s->len, cudaMemcpyHostToDevice, stream); break;
    case SHOAL__STAGE_GET: err = cudaMemcpyAsync(chunk, at, s->len, cudaMemcpyDeviceToHost, stream); break;
    default: {
        shoal__amo_t a;
        memcpy(&a, chunk, sizeof(a));
        err = shoal__gpu_amo_launch(stream, at, &a, s->op == SHOAL__STAGE_AMO_FETCH ? st->amo_value : NULL);
        break;
    }
    }
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    if (err == cudaSuccess && s->op == SHOAL__STAGE_AMO_FETCH)
        memcpy(chunk + SHOAL__STAGE_AMO_RESULT, st->amo_value, sizeof(uint64_t));
    return err;
}

static void *stage_proxy(void *arg)
{
    shoal_t sh = arg;
    struct shoal_stage *st = sh->stage;
    shoal__stage_ring_t *ring = (shoal__stage_ring_t *)st->mine;
    char *chunks = st->mine + SHOAL__STAGE_RING_BYTES;
    cudaStream_t stream = NULL;
    uint64_t head = 0;
    unsigned idle = 0;

    if (cudaSetDevice(st->proxy_device) != cudaSuccess ||
        cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        /* Every slot fails from here (the origins say so). */
        cudaGetLastError();
        stream = NULL;
    }
    while (!atomic_load_explicit(&st->stop, memory_order_acquire)) {
        shoal__stage_slot_t *s = &ring->slot[head % SHOAL__STAGE_SLOTS];
        char *chunk = chunks + (head % SHOAL__STAGE_SLOTS) * SHOAL__STAGE_CHUNK;
        cudaError_t err;
        if (atomic_load_explicit(&s->seq, memory_order_acquire) != head ||
            atomic_load_explicit(&s->state, memory_order_acquire) != SHOAL__SLOT_READY) {
            shoal__stage_pause(&idle);
            continue;
        }
        idle = 0;
        err = stream != NULL ? stage_serve(sh, stream, s, chunk) : cudaErrorNotReady;
        if (err != cudaSuccess) cudaGetLastError();
        if ((s->op == SHOAL__STAGE_PUT || s->op == SHOAL__STAGE_AMO) && err == cudaSuccess) {
            /* Nobody waits for the bytes: recycle the slot now. */
            atomic_store_explicit(&s->state, SHOAL__SLOT_EMPTY, memory_order_relaxed);
            atomic_store_explicit(&s->seq, head + SHOAL__STAGE_SLOTS, memory_order_release);
        } else {
            /* A get, a fetching atomic (or a failure): the origin reads the
             * outcome, then recycles. */
            atomic_store_explicit(&s->state, err == cudaSuccess ? SHOAL__SLOT_DONE : SHOAL__SLOT_FAILED,
                                  memory_order_release);
        }
        head++;
    }
    if (stream != NULL) cudaStreamDestroy(stream);
    return NULL;
}

static void stage_free(shoal_t sh)
{
    struct shoal_stage *st = sh->stage;

    if (st->proxy_running) {
        atomic_store_explicit(&st->stop, 1, memory_order_release);
        pthread_join(st->proxy, NULL);
    }
    for (int r = 0; st->registered != NULL && r < sh->node_size; r++)
        if (st->registered[r]) cudaHostUnregister(st->ring[r]);
    if (st->amo_value != NULL) cudaFreeHost(st->amo_value);
    cudaGetLastError();
    if (!sh->broken && st->win != MPI_WIN_NULL) MPI_Win_free(&st->win);
    free(st->registered);
    free(st->ring);
    free(st);
    sh->stage = NULL;
}

int shoal__stage_acquire(shoal_t sh, unsigned user)
{
    static const char *call = "shoal_init";
    struct shoal_stage *st;
    int rc = SHOAL_SUCCESS, n_pinned = 0, brc;
    void *mine = NULL;

    if (sh->stage != NULL) {
        sh->stage->users |= user;
        return SHOAL_SUCCESS;
    }
    st = calloc(1, sizeof(*st));
    if (st == NULL) {
        /* Still take part in the node's window and barrier, with nothing;
         * the window is left to MPI (init fails on every PE from here). */
        MPI_Win win = MPI_WIN_NULL;
        if (MPI_Win_allocate_shared(0, 1, MPI_INFO_NULL, sh->node_comm, &mine, &win) == MPI_SUCCESS)
            MPI_Barrier(sh->node_comm);
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    }
    st->win = MPI_WIN_NULL;
    st->tail_win = MPI_WIN_NULL;
    st->users = user;
    sh->stage = st;
    st->ring = calloc((size_t)sh->node_size, sizeof(char *));
    st->registered = calloc((size_t)sh->node_size, sizeof(bool));
    /* Every PE of the node takes part in the window and the barrier below,
     * even one out of memory: none waits for another in vain. */
    rc = MPI_Win_allocate_shared(st->ring && st->registered ? (MPI_Aint)SHOAL__STAGE_PE_BYTES : 0, 1, MPI_INFO_NULL,
                                 sh->node_comm, &mine, &st->win);
    if (rc != MPI_SUCCESS) {
        st->win = MPI_WIN_NULL;
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot allocate %zu bytes of staging memory per PE",
                          (size_t)SHOAL__STAGE_PE_BYTES);
        goto barrier;
    }
    if (st->ring == NULL || st->registered == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        goto barrier;
    }
    st->mine = mine;
    for (int r = 0; r < sh->node_size; r++) {
        MPI_Aint size;
        int disp;
        SHOAL__MPI_TRY(sh, call, rc, barrier, MPI_Win_shared_query(st->win, r, &size, &disp, &st->ring[r]));
    }
    {
        shoal__stage_ring_t *ring = mine;
        atomic_init(&ring->tail, 0);
        for (int i = 0; i < SHOAL__STAGE_SLOTS; i++) {
            atomic_init(&ring->slot[i].seq, (uint64_t)i);
            atomic_init(&ring->slot[i].state, SHOAL__SLOT_EMPTY);
        }
    }
    for (int r = 0; r < sh->node_size; r++) {
        /* Pinned for DMA; without it still correct, only slower. */
        if (cudaHostRegister(st->ring[r], SHOAL__STAGE_PE_BYTES, cudaHostRegisterPortable) == cudaSuccess)
            st->registered[r] = true, n_pinned++;
        else
            cudaGetLastError();
    }
    st->heap = sh->heap_base;
    st->proxy_device = sh->gpu->device;
    if (cudaMallocHost((void **)&st->amo_value, sizeof(uint64_t)) != cudaSuccess) {
        cudaGetLastError();
        st->amo_value = NULL;
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot allocate pinned host memory for the staging proxy");
        goto barrier;
    }
    atomic_init(&st->stop, 0);

barrier:
    /* Rings initialized before any claim. */
    brc = MPI_Barrier(sh->node_comm);
    if (rc != SHOAL_SUCCESS) return rc; /* the rings stay until release (finalize) */
    if (brc != MPI_SUCCESS) return shoal__mpi_error(sh, call, "MPI_Barrier", brc);
    if (pthread_create(&st->proxy, NULL, stage_proxy, sh) != 0)
        return shoal__error(sh, SHOAL_ERR_SYSTEM, call, "cannot start the staging proxy thread");
    st->proxy_running = true;
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "staging rings: %d slots of %zu bytes per PE, %d of %d pinned",
               SHOAL__STAGE_SLOTS, SHOAL__STAGE_CHUNK, n_pinned, sh->node_size);
    return SHOAL_SUCCESS;
}

void shoal__stage_release(shoal_t sh, unsigned user)
{
    if (sh->stage == NULL || !(sh->stage->users & user)) return;
    sh->stage->users &= ~user;
    if (sh->stage->users == 0) stage_free(sh);
}
#endif
