/* shoal_register and shoal_deregister (runtime/heap/shoal_register.h): each PE
 * checks its own arguments, then the PEs meet in the rendezvous of every
 * collective (runtime/ops/coll.c: a PE in another collective, a different size,
 * or one whose arguments failed is named on every PE, and a PE that never
 * comes times out), then each range gets its own MPI window over sh->comm,
 * in a lock_all epoch for the range's life; alone (one PE), none: copies and
 * CPU atomics reach it (Open MPI 4.1 makes no window on one rank).
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
 * the same allgather agrees that every PE's part worked.
 *
 * A host range of shoal_register_shared is shared first, before its
 * window exists (the window then covers the memory as it stays): each PE
 * moves its part (runtime/heap/register_share.c) into an object of its own,
 * the node's PEs tell each other the names (a bounded allgather over the
 * node), each maps its node peers' parts, and the allgather above also
 * says whether every PE mapped every node peer's part: only then, and on
 * one node, are atomics on the parts CPU atomics (one mechanism per word,
 * decided alike on every PE); else all of the range's atomics stay on its
 * window. Each PE removes its object's name after that allgather, when
 * every node peer has mapped it. Where a part cannot be made or mapped,
 * the range works as shoal_register's, and the INFO log says why. */
#include <stdlib.h>
#include <string.h>

#include "core/shoal_core.h"
#include "heap/shoal_register.h"
#include "ops/shoal_coll.h"
#include "ops/shoal_rma.h"
#include "transport/transport.h"
#if SHOAL_HAVE_CUDA
#include "heap/shoal_gpu.h"
#endif

/* What each PE says of its window, after the displacement. */
enum {
    SHOAL__REG_OK = 0,        /* the window is set up */
    SHOAL__REG_FAILED = 1,    /* the window exists, a later step failed: the PEs free it together */
    SHOAL__REG_NO_WINDOW = 2, /* MPI_Win_create failed: nobody can free the others' windows */
};

/* Words each PE gives the allgather after the window: the displacement,
 * SHOAL__REG_OK.., and (shoal_register_shared) SHOAL__REG_MAPPED_ALL. */
#define SHOAL__REG_WORDS 3
#define SHOAL__REG_MAPPED_ALL 1 /* this PE mapped the part of every node peer that has one */

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

/* The meeting's argument: the size, whether it is GPU memory and whether
 * shoal_register_shared was called (PEs that disagree on either are named,
 * as for sizes). */
static uint64_t shoal__reg_arg(size_t size, bool gpu, bool shared)
{
    return (uint64_t)size | (gpu && size > 0 ? SHOAL__REG_ARG_GPU : 0) | (shared ? SHOAL__REG_ARG_SHARED : 0);
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
    free(r->part_lo);
    free(r->part_hi);
    free(r->part_map);
    free(r->parts);
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
    /* Once the window is freed nothing reaches the pages through MPI, and
     * every PE met here: the parts can go. Broken: peers may still write
     * into this PE's part, which stays. */
    if (!sh->broken) shoal__reg_share_end(sh, r);
    shoal__reg_free_local(r);
    return rc;
}

/* A non-blocking allgather over comm (n processes) of bytes bytes each,
 * from buf + n * bytes into buf, polled for at most SHOAL_TIMEOUT (every
 * PE met, so only a PE that stopped keeps it waiting); what names the
 * step in messages. On a failure the instance is broken, and on a timeout
 * buf is left to MPI (*abandoned_p). */
static int shoal__reg_allgather(shoal_t sh, const char *call, MPI_Comm comm, int n, size_t bytes, void *buf,
                                bool *abandoned_p, const char *what, size_t size)
{
    MPI_Request req;
    double start = shoal__now();
    unsigned spins = 0, polls = 0;
    int done = 0, mrc;

    *abandoned_p = false;
    mrc = MPI_Iallgather((char *)buf + (size_t)n * bytes, (int)bytes, MPI_BYTE, buf, (int)bytes, MPI_BYTE, comm, &req);
    while (mrc == MPI_SUCCESS && !done) {
        mrc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (mrc != MPI_SUCCESS || done) break;
        if (sh->cfg.timeout > 0 && (++polls & 255) == 0 && shoal__now() - start > sh->cfg.timeout) {
            shoal__abandon(sh, req, buf);
            *abandoned_p = true;
            sh->broken = true;
            return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                                "timed out after %g s waiting for the other PEs to set up %s of %s(%zu bytes), "
                                "which they all entered; only shoal_finalize is possible now",
                                sh->cfg.timeout, what, call, size);
        }
        shoal__wait_progress(sh, &spins);
    }
    if (mrc == MPI_SUCCESS) return SHOAL_SUCCESS;
    sh->broken = true;
    return shoal__mpi_error(sh, call, "MPI_Iallgather (the windows of shoal_register)", mrc);
}

/* Every PE's SHOAL__REG_WORDS words (displacement, SHOAL__REG_*, sharing)
 * into all[0 .. SHOAL__REG_WORDS * n_pes), this PE's from there on, over
 * sh->comm. On a timeout *all_p is left to MPI (NULL). */
static int shoal__reg_gather(shoal_t sh, const char *call, size_t size, int64_t **all_p)
{
    bool abandoned;
    int rc = shoal__reg_allgather(sh, call, sh->comm, sh->n_pes, SHOAL__REG_WORDS * sizeof(int64_t), *all_p, &abandoned,
                                  "the MPI window", size);
    if (abandoned) *all_p = NULL;
    return rc;
}

/* Is r to be shared with node peers here? NULL where it is, else why not
 * (for the INFO log). */
static const char *shoal__reg_share_refused(shoal_t sh)
{
    if (sh->disabled & (1u << SHOAL_TRANSPORT_SHM)) return "SHOAL_TRANSPORT_DISABLE has shm";
    if (sh->n_pes > 1 && sh->node_size < 2) return "no other PE is on this PE's node";
    return NULL;
}

/* shoal_register_shared, before r's window exists: this PE's part into an
 * object of its own (*mine describes it), the parts' names exchanged
 * between the node's PEs, and every node peer's part mapped here.
 * *flags_p: SHOAL__REG_MAPPED_ALL where this PE took part and mapped every
 * node peer's part. Fails only where the node's exchange does (the
 * instance is broken then); anything else leaves the range to its window
 * and says why at INFO. */
static int shoal__reg_share_setup(shoal_t sh, const char *call, shoal__reg_t *r, shoal__reg_part_t *mine,
                                  int64_t *flags_p)
{
    const char *refused = shoal__reg_share_refused(sh);
    char why[256] = "";
    bool abandoned = false, mapped_all = refused == NULL;
    int rc = SHOAL_SUCCESS, me = sh->my_pe, peers = 0;

    memset(mine, 0, sizeof(*mine));
    *flags_p = 0;
    if (sh->n_pes == 1) {
        /* Nobody else: every word is this PE's alone, and its atomics CPU
         * atomics. */
        r->part_lo[me] = 0;
        r->part_hi[me] = r->size;
        r->part_map[me] = r->base;
        *flags_p = SHOAL__REG_MAPPED_ALL;
        return SHOAL_SUCCESS;
    }
    if (refused == NULL) {
        shoal__reg_share_make(sh, r, mine, why, sizeof(why));
        if (mine->name[0] == '\0')
            SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA,
                       "%s: [%p, +%zu): node peers reach this PE's copy through its MPI window: %s", call, r->base,
                       r->size, why);
        else
            r->part_lo[me] = (size_t)mine->lo, r->part_hi[me] = (size_t)mine->hi, r->part_map[me] = r->base + mine->lo;
    }
    if (sh->node_size > 1) {
        /* The exchange's buffer came with r (shoal__register): nothing to
         * allocate here, where a PE that failed would leave its node peers
         * waiting. */
        shoal__reg_part_t *parts = r->parts;
        parts[sh->node_size] = *mine;
        rc = shoal__reg_allgather(sh, call, sh->node_comm, sh->node_size, sizeof(*parts), parts, &abandoned,
                                  "the shared pages", r->size);
        if (abandoned) r->parts = NULL;
        if (rc != SHOAL_SUCCESS) return rc;
        for (int nr = 0; nr < sh->node_size; nr++) {
            int pe = sh->node_pes[nr];
            shoal__reg_part_t *p = &parts[nr];
            p->name[sizeof(p->name) - 1] = '\0';
            if (pe == me || refused != NULL || p->name[0] == '\0' || p->lo >= p->hi || p->hi > r->size) continue;
            if (!shoal__reg_share_map(sh, r, pe, p, why, sizeof(why))) {
                SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA,
                           "%s: [%p, +%zu): PE %d's copy is reached through the MPI window: %s", call, r->base, r->size,
                           pe, why);
                mapped_all = false;
                continue;
            }
            r->part_lo[pe] = (size_t)p->lo;
            r->part_hi[pe] = (size_t)p->hi;
            peers++;
        }
    }
    if (refused != NULL)
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA,
                   "%s: [%p, +%zu) is not shared with node peers (%s): its MPI window carries every access", call,
                   r->base, r->size, refused);
    else
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA,
                   "%s: [%p, +%zu): this PE's bytes [%zu, %zu) are in shared memory; the parts of %d of its %d node "
                   "peers are mapped here",
                   call, r->base, r->size, r->part_lo[me], r->part_hi[me], peers, sh->node_size - 1);
    if (mapped_all) *flags_p = SHOAL__REG_MAPPED_ALL;
    return SHOAL_SUCCESS;
}

/* After the PEs met: the shared pages (shoal_register_shared), r's
 * window, every PE's displacement, and the PEs' agreement that each part
 * worked (and on how atomics go). all: SHOAL__REG_WORDS * (n_pes + 1)
 * words. On success r is ready; else this PE's error, or
 * SHOAL_ERR_NOT_SYMMETRIC naming the PE that failed (the window freed
 * where every PE has one, and the pages private again). */
static int shoal__reg_open(shoal_t sh, const char *call, shoal__reg_t *r, int64_t **all_p)
{
    size_t shift = (uintptr_t)r->base % SHOAL__REG_WIN_ALIGN;
    char *wbase = r->base - shift;
    int64_t *mine = *all_p + SHOAL__REG_WORDS * (size_t)sh->n_pes, *all, flags = 0;
    shoal__reg_part_t part;
    void *seen = NULL;
    char saved[sizeof(sh->err)] = "";
    int rc = SHOAL_SUCCESS, flag = 0, worst = SHOAL__REG_OK, who = -1, mrc;

    memset(&part, 0, sizeof(part));
    /* The shared pages first: the window then covers the memory as it
     * stays (MPI may register it with the network). */
    if (r->shared) {
        rc = shoal__reg_share_setup(sh, call, r, &part, &flags);
        if (rc != SHOAL_SUCCESS) {
            /* The node's exchange failed (the instance is broken): no
             * meeting follows. */
            shoal__reg_share_unlink(&part);
            shoal__reg_share_end(sh, r);
            return rc;
        }
    }
    if (sh->n_pes == 1) {
        /* Alone, the PE reaches its range by copies and CPU atomics: no
         * window (Open MPI 4.1 cannot make one on one rank, README "MPI
         * libraries"). */
        r->win = MPI_WIN_NULL;
        seen = wbase;
        goto out;
    }
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
    mine[1] = r->win == MPI_WIN_NULL && sh->n_pes > 1 ? SHOAL__REG_NO_WINDOW
              : rc != SHOAL_SUCCESS                   ? SHOAL__REG_FAILED
                                                      : SHOAL__REG_OK;
    mine[2] = flags;
    /* The id first: a registration that times out keeps it, for finalize. */
    r->id = ++sh->reg_ids;
    if (rc != SHOAL_SUCCESS) snprintf(saved, sizeof(saved), "%s", shoal_last_error(sh));
    mrc = shoal__reg_gather(sh, call, r->size, all_p);
    /* Every node peer has mapped this PE's part by now, or given up: its
     * name can go (the mappings keep the object), whatever follows. */
    shoal__reg_share_unlink(&part);
    /* This PE's own failure is what it reports (its message kept). */
    if (mrc != SHOAL_SUCCESS) return rc != SHOAL_SUCCESS ? shoal__error(sh, rc, NULL, "%s", saved) : mrc;
    all = *all_p;
    for (int p = 0; p < sh->n_pes; p++)
        if ((int)all[SHOAL__REG_WORDS * p + 1] > worst) worst = (int)all[SHOAL__REG_WORDS * p + 1], who = p;
    if (worst == SHOAL__REG_OK) {
        for (int p = 0; p < sh->n_pes; p++) r->disp[p] = (MPI_Aint)all[SHOAL__REG_WORDS * p];
        if (r->shared) {
            /* CPU atomics only where every PE reaches every other PE's part
             * with loads and stores: all on one node, every part mapped
             * everywhere. The same answer on every PE. */
            bool cpu = sh->n_nodes == 1;
            for (int p = 0; p < sh->n_pes && cpu; p++) cpu = all[SHOAL__REG_WORDS * p + 2] & SHOAL__REG_MAPPED_ALL;
            r->amo_cpu = cpu;
            SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA, "%s: [%p, +%zu): atomics on it go %s", call, r->base, r->size,
                       cpu               ? "through CPU atomics where a word is in its owner's shared pages, through "
                                           "the MPI window elsewhere"
                       : sh->n_nodes > 1 ? "through the MPI window, from every PE (PEs of other nodes reach it only so)"
                                         : "through the MPI window, from every PE (some PE does not map every other "
                                           "PE's shared pages)");
        }
        r->ready = true;
        return SHOAL_SUCCESS;
    }
    if (worst == SHOAL__REG_NO_WINDOW) {
        /* MPI_Win_free is collective, and that PE has no window: every
         * other PE's stays (MPI_Finalize may wait for it). */
        sh->broken = true;
        if (rc == SHOAL_SUCCESS)
            rc = shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                              "PE %d could not create the MPI window of %s(%zu bytes) (its own error says why): "
                              "nothing was registered, and the windows of the other PEs cannot be freed; only "
                              "shoal_finalize is possible now",
                              who, call, r->size);
        return rc;
    }
    if (rc == SHOAL_SUCCESS)
        rc = shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                          "PE %d could not set up the MPI window of %s(%zu bytes) (its own error says why): nothing "
                          "was registered",
                          who, call, r->size);
    /* Every PE has a window: they free them together, then the parts go. */
    if (r->locked) MPI_Win_unlock_all(r->win);
    r->locked = false;
    if (r->win != MPI_WIN_NULL) MPI_Win_free(&r->win);
    shoal__reg_share_end(sh, r);
    return rc;
}

/* shoal__reg_open for a GPU range: the transports map the peers' copies,
 * then the PEs agree that every PE's part worked (else every PE undoes its
 * own, and SHOAL_ERR_NOT_SYMMETRIC names the PE that failed). */
static int shoal__reg_open_gpu(shoal_t sh, const char *call, shoal__reg_t *r, int64_t **all_p)
{
    int64_t *mine = *all_p + SHOAL__REG_WORDS * (size_t)sh->n_pes, *all;
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
    mine[2] = 0;
    mrc = shoal__reg_gather(sh, call, r->size, all_p);
    if (mrc != SHOAL_SUCCESS) {
        shoal__reg_seg_withdraw(sh, r);
        shoal__transports_reg_detach(sh, r);
        return rc != SHOAL_SUCCESS ? shoal__error(sh, rc, NULL, "%s", saved) : mrc;
    }
    all = *all_p;
    for (int p = 0; p < sh->n_pes && who < 0; p++)
        if (all[SHOAL__REG_WORDS * p + 1] != SHOAL__REG_OK) who = p;
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

int shoal__register(shoal_t sh, const char *call, void *base, size_t size, bool shared)
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
        all = malloc(SHOAL__REG_WORDS * ((size_t)sh->n_pes + 1) * sizeof(*all));
        if (r != NULL) {
            r->win = MPI_WIN_NULL;
            r->share_fd = -1;
            r->base = base;
            r->size = size;
            r->disp = calloc((size_t)sh->n_pes, sizeof(*r->disp));
            r->pending = calloc((size_t)sh->n_pes, sizeof(*r->pending));
        }
        if (r != NULL && gpu) {
            r->gpu = true;
            r->peer = calloc((size_t)sh->n_pes, sizeof(*r->peer));
        }
        if (r != NULL && shared && !gpu) {
            /* GPU ranges are shared through the heap's transports already. */
            r->shared = true;
            r->part_lo = calloc((size_t)sh->n_pes, sizeof(*r->part_lo));
            r->part_hi = calloc((size_t)sh->n_pes, sizeof(*r->part_hi));
            r->part_map = calloc((size_t)sh->n_pes, sizeof(*r->part_map));
            r->parts = calloc((size_t)sh->node_size + 1, sizeof(*r->parts));
        }
        if (r == NULL || all == NULL || r->disp == NULL || r->pending == NULL || (gpu && r->peer == NULL) ||
            (r->shared && (r->part_lo == NULL || r->part_hi == NULL || r->part_map == NULL || r->parts == NULL)))
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
        rc = shoal__coll_failed_here(sh, call, SHOAL__COLL_REGISTER, shoal__reg_arg(size, gpu, shared), rc);
        goto out;
    }
    SHOAL__TRY(rc, out, shoal__rendezvous(sh, call, SHOAL__COLL_REGISTER, shoal__reg_arg(size, gpu, shared)));
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
