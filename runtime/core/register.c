/* shoal_register and shoal_deregister (runtime/heap/shoal_register.h): each PE
 * checks its own arguments, then the PEs meet in the rendezvous of every
 * collective (runtime/ops/coll.c: a PE in another collective, a different size,
 * or one whose arguments failed is named on every PE, and a PE that never
 * comes times out), then each range gets its own MPI window over sh->comm,
 * in a lock_all epoch for the range's life.
 *
 * Where a window really starts: MPICH 4.0.2 over UCX moves a window made at
 * a base that is not 16-byte aligned down to the 16-byte boundary, and one
 * made over memory that another window (or a registration UCX cached)
 * covers down to that one's start; MPI_WIN_BASE then says where it went.
 * So the window is made at the base aligned down to 16, every PE reads
 * MPI_WIN_BASE, and the PEs exchange where their first registered byte is
 * from there (a non-blocking allgather bounded by SHOAL_TIMEOUT), which is
 * also where they agree that every PE's part worked.
 *
 * A GPU range (an instance with a GPU heap) has no window: its transports
 * map the peers' copies where they can (cuda_ipc opens their IPC
 * handles), the staged ones reach them through the peers' proxies, and
 * the same allgather agrees that every PE's part worked. */
#include <stdlib.h>
#include <string.h>

#include "heap/shoal_register.h"
#include "ops/shoal_rma.h"
#include "transport/transport.h"
#if SHOAL_HAVE_CUDA
#include "heap/shoal_gpu.h"
#include "core/shoal_core.h"
#include "ops/shoal_coll.h"
#endif

/* What each PE says of its window, after the displacement. */
enum {
    SHOAL__REG_OK = 0,        /* the window is set up */
    SHOAL__REG_FAILED = 1,    /* the window exists, a later step failed: the PEs free it together */
    SHOAL__REG_NO_WINDOW = 2, /* MPI_Win_create failed: nobody can free the others' windows */
};

/* This PE's arguments, before the PEs meet. *gpu_p: base is GPU memory. */
static int shoal__reg_args(shoal_t sh, const char *call, void *base, size_t size, bool *gpu_p)
{
    uintptr_t b = (uintptr_t)base, h = (uintptr_t)sh->heap_base, m = (uintptr_t)sh->shm_map;
    const shoal__reg_t *o;

    if (size == 0) return SHOAL_SUCCESS;
    if (base == NULL)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "base is NULL with size %zu: pass the first byte of the memory to register (size 0 "
                            "registers nothing)",
                            size);
    if (size - 1 > UINTPTR_MAX - b || size > (size_t)PTRDIFF_MAX - SHOAL__REG_WIN_ALIGN)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "the %zu bytes from %p run past the end of the address space", size, base);
    if (b < h + sh->heap_size && h < b + size)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "[%p, +%zu) overlaps the symmetric heap [%p, %p): heap memory is symmetric already", base,
                            size, (void *)sh->heap_base, (void *)(sh->heap_base + sh->heap_size));
    if (sh->shm_map != NULL && b < m + sh->shm_map_len && m < b + size)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "[%p, +%zu) overlaps the heaps of this node's PEs, mapped here at [%p, %p)", base, size,
                            (void *)sh->shm_map, (void *)(sh->shm_map + sh->shm_map_len));
    if ((o = shoal__reg_overlap(sh, base, size)) != NULL)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "[%p, +%zu) overlaps the %zu bytes registered at %p: registered ranges share no byte "
                            "(deregister that one first)",
                            base, size, o->size, (void *)o->base);
#if SHOAL_HAVE_CUDA
    *gpu_p = shoal__gpu_on_device(base);
    if (*gpu_p && size > SHOAL__REG_SEG_BASE)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%zu bytes of GPU memory: a GPU range holds at most %llu",
                            size, (unsigned long long)SHOAL__REG_SEG_BASE);
#else
    *gpu_p = false;
#endif
    return SHOAL_SUCCESS;
}

/* The meeting's argument: the size, and whether it is GPU memory (PEs
 * that disagree on that are named, as for sizes). */
static uint64_t shoal__reg_arg(size_t size, bool gpu)
{
    return (uint64_t)size | (gpu && size > 0 ? SHOAL__REG_ARG_GPU : 0);
}

/* The lowest segment no live GPU range holds (0: none left). The same on
 * every PE: they register and deregister together. */
static uint64_t shoal__reg_free_seg(shoal_t sh)
{
    for (uint64_t k = 1; k <= SHOAL__REG_SEG_MAX; k++) {
        bool used = false;
        for (size_t i = 0; i < sh->n_regs && !used; i++)
            used = sh->regs[i]->gpu && sh->regs[i]->seg == k << SHOAL__REG_SEG_SHIFT;
        if (!used) return k;
    }
    return 0;
}

static void shoal__reg_free_local(shoal__reg_t *r)
{
    if (r == NULL) return;
    free(r->disp);
    free(r->pending);
    free(r->peer);
    free(r);
}

/* Free r and its window: this PE's operations on it complete at the
 * unlock. Collective (MPI_Win_free) unless sh->broken. */
static int shoal__reg_close(shoal_t sh, const char *call, shoal__reg_t *r)
{
    int rc = SHOAL_SUCCESS, mrc;

    if (r->gpu) {
        shoal__reg_seg_withdraw(sh, r);
        shoal__transports_reg_detach(sh, r);
        shoal__reg_free_local(r);
        return SHOAL_SUCCESS;
    }
    if (!sh->broken && r->locked && (mrc = MPI_Win_unlock_all(r->win)) != MPI_SUCCESS)
        rc = shoal__mpi_error(sh, call, "MPI_Win_unlock_all (a registered range)", mrc);
    /* Broken: peers are out of step, the window is left to MPI. */
    if (!sh->broken && r->win != MPI_WIN_NULL && (mrc = MPI_Win_free(&r->win)) != MPI_SUCCESS && rc == SHOAL_SUCCESS)
        rc = shoal__mpi_error(sh, call, "MPI_Win_free (a registered range)", mrc);
    shoal__reg_free_local(r);
    return rc;
}

/* Every PE's two words (displacement, SHOAL__REG_*) into all[0 .. 2 *
 * n_pes), this PE's from all + 2 * n_pes: a non-blocking allgather over
 * sh->comm, polled for at most SHOAL_TIMEOUT (every PE met and made the
 * window, so only a PE that stopped keeps it waiting). On a failure the
 * instance is broken, and on a timeout *all_p is left to MPI (NULL). */
static int shoal__reg_gather(shoal_t sh, const char *call, size_t size, int64_t **all_p)
{
    int64_t *all = *all_p;
    MPI_Request req;
    double start = shoal__now();
    unsigned spins = 0, polls = 0;
    int done = 0, mrc;

    mrc = MPI_Iallgather(all + 2 * (size_t)sh->n_pes, 2, MPI_INT64_T, all, 2, MPI_INT64_T, sh->comm, &req);
    while (mrc == MPI_SUCCESS && !done) {
        mrc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (mrc != MPI_SUCCESS || done) break;
        if (sh->cfg.timeout > 0 && (++polls & 255) == 0 && shoal__now() - start > sh->cfg.timeout) {
            shoal__abandon(sh, req, all);
            *all_p = NULL;
            sh->broken = true;
            return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                                "timed out after %g s waiting for the other PEs to set up the MPI window of "
                                "shoal_register(%zu bytes), which they all entered; only shoal_finalize is possible "
                                "now",
                                sh->cfg.timeout, size);
        }
        shoal__wait_progress(sh, &spins);
    }
    if (mrc == MPI_SUCCESS) return SHOAL_SUCCESS;
    sh->broken = true;
    return shoal__mpi_error(sh, call, "MPI_Iallgather (the windows of shoal_register)", mrc);
}

/* After the PEs met: r's window, every PE's displacement, and the PEs'
 * agreement that each part worked. all: 2 * n_pes + 2 words. On success r
 * is ready; else this PE's error, or SHOAL_ERR_NOT_SYMMETRIC naming the PE
 * that failed (the window freed where every PE has one). */
static int shoal__reg_open(shoal_t sh, const char *call, shoal__reg_t *r, int64_t **all_p)
{
    size_t shift = (uintptr_t)r->base % SHOAL__REG_WIN_ALIGN;
    char *wbase = r->base - shift;
    int64_t *mine = *all_p + 2 * (size_t)sh->n_pes, *all;
    void *seen = NULL;
    char saved[sizeof(sh->err)] = "";
    int rc = SHOAL_SUCCESS, flag = 0, worst = SHOAL__REG_OK, who = -1, mrc;

    mrc = MPI_Win_create(wbase, (MPI_Aint)(r->size + shift), 1, MPI_INFO_NULL, sh->comm, &r->win);
    if (mrc != MPI_SUCCESS) {
        r->win = MPI_WIN_NULL; /* the handle is undefined after a failure */
        rc = shoal__mpi_error(sh, call, "MPI_Win_create (the range to register)", mrc);
        goto out;
    }
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_set_errhandler(r->win, MPI_ERRORS_RETURN));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_get_attr(r->win, MPI_WIN_BASE, &seen, &flag));
    if (!flag) seen = wbase;
    if ((char *)seen > r->base) {
        rc = shoal__error(sh, SHOAL_ERR_INTERNAL, call,
                          "MPI placed the window of the range registered at %p at %p, past its first byte", r->base,
                          seen);
        goto out;
    }
    if (seen != wbase)
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA,
                   "%s: MPI moved the window of [%p, +%zu) from %p to %p (MPI_WIN_BASE): its displacements count "
                   "from there",
                   call, r->base, r->size, (void *)wbase, seen);
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_lock_all(MPI_MODE_NOCHECK, r->win));
    r->locked = true;
out:
    mine[0] = rc == SHOAL_SUCCESS ? (int64_t)(r->base - (char *)seen) : 0;
    mine[1] = r->win == MPI_WIN_NULL ? SHOAL__REG_NO_WINDOW : rc != SHOAL_SUCCESS ? SHOAL__REG_FAILED : SHOAL__REG_OK;
    /* The id first: a registration that times out keeps it, for finalize. */
    r->id = ++sh->reg_ids;
    if (rc != SHOAL_SUCCESS) snprintf(saved, sizeof(saved), "%s", shoal_last_error(sh));
    mrc = shoal__reg_gather(sh, call, r->size, all_p);
    /* This PE's own failure is what it reports (its message kept). */
    if (mrc != SHOAL_SUCCESS) return rc != SHOAL_SUCCESS ? shoal__error(sh, rc, NULL, "%s", saved) : mrc;
    all = *all_p;
    for (int p = 0; p < sh->n_pes; p++)
        if ((int)all[2 * p + 1] > worst) worst = (int)all[2 * p + 1], who = p;
    if (worst == SHOAL__REG_OK) {
        for (int p = 0; p < sh->n_pes; p++) r->disp[p] = (MPI_Aint)all[2 * p];
        r->ready = true;
        return SHOAL_SUCCESS;
    }
    if (worst == SHOAL__REG_NO_WINDOW) {
        /* MPI_Win_free is collective, and that PE has no window: every
         * other PE's stays (MPI_Finalize may wait for it). */
        sh->broken = true;
        if (rc == SHOAL_SUCCESS)
            rc = shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                              "PE %d could not create the MPI window of shoal_register(%zu bytes) (its own error says "
                              "why): nothing was registered, and the windows of the other PEs cannot be freed; only "
                              "shoal_finalize is possible now",
                              who, r->size);
        return rc;
    }
    if (rc == SHOAL_SUCCESS)
        rc = shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                          "PE %d could not set up the MPI window of shoal_register(%zu bytes) (its own error says "
                          "why): nothing was registered",
                          who, r->size);
    /* Every PE has a window: they free them together. */
    if (r->locked) MPI_Win_unlock_all(r->win);
    r->locked = false;
    MPI_Win_free(&r->win);
    return rc;
}

/* shoal__reg_open for a GPU range: the transports map the peers' copies,
 * then the PEs agree that every PE's part worked (else every PE undoes its
 * own, and SHOAL_ERR_NOT_SYMMETRIC names the PE that failed). */
static int shoal__reg_open_gpu(shoal_t sh, const char *call, shoal__reg_t *r, int64_t **all_p)
{
    int64_t *mine = *all_p + 2 * (size_t)sh->n_pes, *all;
    char saved[sizeof(sh->err)] = "";
    int rc, mrc, who = -1;

    r->id = ++sh->reg_ids;
    r->peer[sh->my_pe] = r->base;
    /* Reachable through this PE's staging proxy from here on: a peer that
     * agrees first may put at once. */
    rc = shoal__reg_seg_publish(sh, call, r);
    /* Every PE attaches (the transports meet their node peers in it). */
    {
        int arc = shoal__transports_reg_attach(sh, call, r);
        if (rc == SHOAL_SUCCESS) rc = arc;
    }
    if (rc != SHOAL_SUCCESS) snprintf(saved, sizeof(saved), "%s", shoal_last_error(sh));
    if (sh->broken) {
        /* The node's PEs fell out of step (an MPI failure): no meeting. */
        shoal__reg_seg_withdraw(sh, r);
        shoal__transports_reg_detach(sh, r);
        return rc;
    }
    mine[0] = 0;
    mine[1] = rc != SHOAL_SUCCESS ? SHOAL__REG_FAILED : SHOAL__REG_OK;
    mrc = shoal__reg_gather(sh, call, r->size, all_p);
    if (mrc != SHOAL_SUCCESS) {
        shoal__reg_seg_withdraw(sh, r);
        shoal__transports_reg_detach(sh, r);
        return rc != SHOAL_SUCCESS ? shoal__error(sh, rc, NULL, "%s", saved) : mrc;
    }
    all = *all_p;
    for (int p = 0; p < sh->n_pes && who < 0; p++)
        if (all[2 * p + 1] != SHOAL__REG_OK) who = p;
    if (who < 0) {
        r->ready = true;
        return SHOAL_SUCCESS;
    }
    shoal__reg_seg_withdraw(sh, r);
    shoal__transports_reg_detach(sh, r);
    if (rc != SHOAL_SUCCESS) return rc;
    return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                        "PE %d could not reach its peers' copies of the GPU range of shoal_register(%zu bytes) (its "
                        "own error says why): nothing was registered",
                        who, r->size);
}

int shoal__register(shoal_t sh, const char *call, void *base, size_t size)
{
    shoal__reg_t *r = NULL;
    int64_t *all = NULL;
    bool gpu = false;
    int rc = SHOAL_SUCCESS;

    rc = shoal__reg_args(sh, call, base, size, &gpu);
    /* Everything this PE needs, before the PEs meet: nothing can fail after
     * the window exists but MPI. */
    if (rc == SHOAL_SUCCESS && size > 0) {
        r = calloc(1, sizeof(*r));
        all = malloc((2 * (size_t)sh->n_pes + 2) * sizeof(*all));
        if (r != NULL) {
            r->win = MPI_WIN_NULL;
            r->base = base;
            r->size = size;
            r->disp = calloc((size_t)sh->n_pes, sizeof(*r->disp));
            r->pending = calloc((size_t)sh->n_pes, sizeof(*r->pending));
        }
        if (r != NULL && gpu) {
            r->gpu = true;
            r->peer = calloc((size_t)sh->n_pes, sizeof(*r->peer));
        }
        if (r == NULL || all == NULL || r->disp == NULL || r->pending == NULL || (gpu && r->peer == NULL))
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
#if SHOAL_HAVE_CUDA
        if (rc == SHOAL_SUCCESS && gpu)
            rc = shoal__gpu_reg_prepare(sh, call, base, size, r->ipc_handle, &r->ipc_delta, &r->ipc_alloc);
#endif
        if (rc == SHOAL_SUCCESS && gpu) {
            uint64_t k = shoal__reg_free_seg(sh);
            if (k == 0)
                rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                                  "%d GPU ranges are registered already, the most at once: deregister one first",
                                  SHOAL__REG_SEG_MAX);
            r->seg = k << SHOAL__REG_SEG_SHIFT;
        }
        if (rc == SHOAL_SUCCESS) rc = shoal__reg_reserve(sh, call);
    }
    if (rc != SHOAL_SUCCESS) {
        rc = shoal__coll_failed_here(sh, call, SHOAL__COLL_REGISTER, shoal__reg_arg(size, gpu), rc);
        goto out;
    }
    SHOAL__TRY(rc, out, shoal__rendezvous(sh, call, SHOAL__COLL_REGISTER, shoal__reg_arg(size, gpu)));
    if (size == 0) goto out;
    rc = gpu ? shoal__reg_open_gpu(sh, call, r, &all) : shoal__reg_open(sh, call, r, &all);
    if (rc == SHOAL_SUCCESS || (all == NULL && r->win != MPI_WIN_NULL)) {
        /* Ready; or timed out with a window, which the other PEs may have
         * made theirs: kept (not ready), so that a shoal_finalize of every
         * PE frees it with theirs. */
        shoal__reg_insert(sh, r);
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA, "%s: [%p, +%zu) is registration %llu%s", call, base, size,
                   (unsigned long long)r->id, r->ready ? "" : " (timed out)");
        r = NULL;
    }
out:
    shoal__reg_free_local(r); /* a window still set is left to MPI (see shoal__reg_open) */
    free(all);
    return rc;
}

int shoal__deregister(shoal_t sh, const char *call, void *base)
{
    uint64_t id = shoal__reg_id_at(sh, base);
    shoal__reg_t *r;
    int rc;

    if (id == 0) {
        char where[160] = "";
        if (base != NULL && (shoal__reg_holds(sh, base, 1) || shoal__reg_is_gpu(sh, base, 1))) {
            shoal__reg_where(sh, base, where, sizeof(where));
            rc =
                shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                             "%s: pass the base that shoal_register was given, not an address inside the range", where);
        } else {
            rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                              "%p is not the base of a range this PE registered (%zu registered here)", base,
                              sh->n_regs);
        }
        return shoal__coll_failed_here(sh, call, SHOAL__COLL_DEREGISTER, 0, rc);
    }
    /* A GPU range has no window whose unlock completes this PE's
     * operations: a quiet does, before the peers stop reaching it. */
    if (shoal__reg_is_gpu(sh, base, 1)) {
        rc = shoal__quiet(sh, call);
        if (rc != SHOAL_SUCCESS) return shoal__coll_failed_here(sh, call, SHOAL__COLL_DEREGISTER, 0, rc);
    }
    rc = shoal__rendezvous(sh, call, SHOAL__COLL_DEREGISTER, id);
    if (rc != SHOAL_SUCCESS) return rc;
    r = shoal__reg_remove(sh, base);
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA, "%s: registration %llu ([%p, +%zu)) ends", call, (unsigned long long)id,
               base, r->size);
    return shoal__reg_close(sh, call, r);
}

void shoal__registers_free(shoal_t sh)
{
    /* Oldest first: MPI_Win_free is collective, and every PE holds the same
     * registrations, sorted here by base, which differs between PEs. */
    while (sh->n_regs > 0) {
        size_t oldest = 0;
        for (size_t i = 1; i < sh->n_regs; i++)
            if (sh->regs[i]->id < sh->regs[oldest]->id) oldest = i;
        shoal__reg_close(sh, "shoal_finalize", shoal__reg_remove(sh, sh->regs[oldest]->base));
    }
    free(sh->regs);
    sh->regs = NULL;
    sh->cap_regs = 0;
}
