/* shoal_finalize: the last meeting, the agreement of a broken instance's
 * PEs on freeing their MPI objects, and the release of what init created. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/shoal_proxy.h"
#include "heap/shoal_heap.h"
#include "heap/shoal_register.h"
#include "team/shoal_team.h"
#include "ops/shoal_rma.h"
#include "transport/transport.h"
#include "core/shoal_core.h"
#include "ops/shoal_coll.h"

/* A broken instance (PEs out of step after a timeout) can free its MPI
 * objects only if every PE is finalizing it too: MPI_Win_free is collective,
 * and MPICH's MPI_Finalize hangs on a window that was never freed. So the
 * PEs meet once more, in a dissemination barrier of point-to-point messages
 * on the instance's own communicator (no collective there may still be
 * pending), bounded by SHOAL_TIMEOUT. true: everybody is here.
 * Twice, each round with its own tag: a PE that gave up left its first
 * round's sends behind, and a PE arriving after that would take them for
 * an answer; nobody answers its second round, so it gives up too. */
/* One step of it: send to my_pe + dist, receive from my_pe - dist, by end.
 * false: it did not complete; its requests (and msg, which they may still
 * use) are left to MPI. */
static bool shoal__agree_step(shoal_t sh, char *msg, int dist, int tag, double end)
{
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Status st[2];
    unsigned spins = 0;
    int done = 0;

    if (MPI_Irecv(msg + 1, 1, MPI_CHAR, (sh->my_pe - dist % sh->n_pes + sh->n_pes) % sh->n_pes, tag, sh->comm,
                  &req[0]) != MPI_SUCCESS)
        return false;
    if (MPI_Isend(msg, 1, MPI_CHAR, (sh->my_pe + dist) % sh->n_pes, tag, sh->comm, &req[1]) != MPI_SUCCESS) done = -1;
    while (!done) {
        if (MPI_Testall(2, req, &done, st) != MPI_SUCCESS) done = -1;
        if (!done && shoal__now() > end) done = -1;
        if (!done) shoal__wait_pause(&spins);
    }
    if (done > 0) return true;
    if (req[0] != MPI_REQUEST_NULL) {
        MPI_Cancel(&req[0]);
        MPI_Request_free(&req[0]);
    }
    if (req[1] != MPI_REQUEST_NULL) MPI_Request_free(&req[1]);
    return false;
}

static bool shoal__finalize_agree(shoal_t sh)
{
    enum { TAG = 0x5f1 };
    double timeout = sh->cfg.timeout > 0 ? sh->cfg.timeout : 30, end = shoal__now() + timeout;
    char *msg; /* [0] sent, [1] received; left to MPI if abandoned */

    if (sh->comm == MPI_COMM_NULL || sh->my_pe < 0) return false;
    /* Say so in my slot: a node peer whose agreement fails names who was
     * in shoal_finalize and who was not (shoal__finalize_absent). A PE
     * broken before finalize never met in it: this call counts here. */
    if (sh->ctrl != NULL) {
        shoal__pe_slot_t *me = &sh->ctrl->slot[sh->node_rank];
        if (SHOAL__COLL_KIND(atomic_load_explicit(&me->coll, memory_order_relaxed)) != SHOAL__COLL_FINALIZE)
            atomic_store_explicit(&me->calls, ++sh->api_colls, memory_order_relaxed);
        atomic_store_explicit(&me->coll, SHOAL__COLL_FINALIZE, memory_order_release);
    }
    for (int pe = 0; pe < sh->n_pes; pe++)
        if (shoal__pe_gone(sh, pe)) return false; /* it will never come */
    msg = calloc(2, 1);
    if (msg == NULL) return false;
    for (int round = 0; round < 2; round++) {
        for (int dist = 1; dist < sh->n_pes; dist *= 2)
            if (!shoal__agree_step(sh, msg, dist, TAG + round, end)) return false; /* msg stays MPI's */
        /* Everybody was here: the second round gets the whole time again,
         * so that one PE's deadline does not split PEs that all came. */
        end = shoal__now() + timeout;
    }
    free(msg);
    return true;
}

/* The collective part of finalize. When other PEs made another collective
 * call (a mismatch), every PE is still in step and they got the error too:
 * the usual next call is their own shoal_finalize, so wait for it, for at
 * most SHOAL_TIMEOUT in all. Finalize then completes, and returns the
 * mismatch. */
static int shoal__finalize_meet(shoal_t sh)
{
    static const char *call = "shoal_finalize";
    double end = shoal__now() + sh->cfg.timeout;
    char first[sizeof(sh->err)];
    int rc = shoal__rendezvous(sh, call, SHOAL__COLL_FINALIZE, 0), again;

    if (rc != SHOAL_ERR_NOT_SYMMETRIC) return rc;
    snprintf(first, sizeof(first), "%s", shoal_last_error(sh));
    do {
        sh->coll_again = true; /* the same shoal_finalize call, met again */
        again = shoal__rendezvous(sh, call, SHOAL__COLL_FINALIZE, 0);
    } while (again == SHOAL_ERR_NOT_SYMMETRIC && (sh->cfg.timeout <= 0 || shoal__now() < end));
    if (again == SHOAL_ERR_NOT_SYMMETRIC) {
        sh->broken = true; /* still not everybody finalizing: local cleanup */
        return shoal__error(sh, rc, NULL, "%s; the other PEs did not come to shoal_finalize within %g s", first,
                            sh->cfg.timeout);
    }
    if (again != SHOAL_SUCCESS) return again; /* broken (a timeout) */
    return shoal__error(sh, rc, NULL, "%s; shoal_finalize then completed once every PE called it", first);
}

/* After the agreement of a broken instance failed: what this node's
 * control block says of its PEs, in a sentence for the message. The PEs
 * not in shoal_finalize ("PE 3 did not come to shoal_finalize within 2 s"),
 * or, where every PE of the node was in it, that they left before this PE
 * came; other nodes' PEs are not seen from here. */
static void shoal__finalize_absent(shoal_t sh, char *buf, size_t len)
{
    double timeout = sh->cfg.timeout > 0 ? sh->cfg.timeout : 30;
    char tail[64];
    size_t n = 0;
    int absent = 0;

    buf[0] = '\0';
    snprintf(tail, sizeof(tail), " did not come to shoal_finalize within %g s", timeout);
    for (int r = 0; sh->ctrl != NULL && r < sh->node_size; r++) {
        int pe = sh->node_pes[r];
        uint32_t coll = atomic_load_explicit(&sh->ctrl->slot[r].coll, memory_order_acquire);
        if (pe == sh->my_pe || SHOAL__COLL_KIND(coll) == SHOAL__COLL_FINALIZE) continue;
        if (n + strlen(tail) + 24 < len) /* a long list is cut, its end kept */
            n += (size_t)snprintf(buf + n, len - n, "%sPE %d", absent ? ", " : "", pe);
        else if (n + strlen(tail) + 4 < len && buf[n - 1] != '.')
            n += (size_t)snprintf(buf + n, len - n, ", ...");
        absent++;
    }
    if (absent > 0)
        snprintf(buf + n, len - n, "%s", tail);
    else if (sh->n_nodes == 1 && sh->node_size > 1)
        snprintf(buf, len, "the other PEs were in shoal_finalize but had given up waiting (%g s) when this PE came",
                 timeout);
    else
        snprintf(buf, len, "not every PE came to shoal_finalize within %g s", timeout);
}

/* Releases what init created, in reverse. Collective unless the instance
 * is broken (a peer vanished) and the other PEs do not come to finalize it:
 * then only local resources go. */
int shoal__finalize(shoal_t sh)
{
    static const char *call = "shoal_finalize";
    int rc = SHOAL_SUCCESS;

    sh->in_finalize = true;
    if (!sh->broken && sh->pe_tp != NULL) {
        /* A failed quiet still meets the others (they would wait for this
         * PE until the timeout): everything is freed, and the quiet's error
         * is returned. */
        char quiet_msg[sizeof(sh->err)] = "";
        /* What kernels sent through the device proxy first; then it stops. */
        int qrc = shoal__proxy_complete(sh, call);
        shoal__proxy_stop(sh);
        if (qrc == SHOAL_SUCCESS) qrc = shoal__quiet(sh, call);
        if (qrc != SHOAL_SUCCESS) snprintf(quiet_msg, sizeof(quiet_msg), "%s", shoal_last_error(sh));
        rc = shoal__finalize_meet(sh);
        if (rc != SHOAL_SUCCESS && rc != SHOAL_ERR_NOT_SYMMETRIC) sh->broken = true;
        if (rc == SHOAL_SUCCESS && qrc != SHOAL_SUCCESS)
            rc = shoal__error(sh, qrc, NULL, "%s", quiet_msg); /* below: "...everything was freed" */
    }
    if (sh->broken && shoal__finalize_agree(sh)) {
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_INIT, "every PE finalizes the broken instance: collective cleanup");
        sh->broken = false;
    }
    if (rc != SHOAL_SUCCESS && rc != SHOAL_ERR_NOT_SYMMETRIC && sh->comm != MPI_COMM_NULL) {
        /* Finalize's own meeting failed: say what it could free after all. */
        char first[sizeof(sh->err)];
        snprintf(first, sizeof(first), "%s", shoal_last_error(sh));
        if (sh->broken) {
            char why[256];
            shoal__finalize_absent(sh, why, sizeof(why));
            shoal__error(sh, rc, NULL,
                         "%s; then %s: only this PE's memory was freed; its MPI windows and communicators stay, "
                         "and MPI_Finalize may not return",
                         first, why);
        } else
            shoal__error(sh, rc, NULL, "%s; every PE then came to shoal_finalize: everything was freed", first);
    }
    if (sh->broken && rc == SHOAL_SUCCESS && sh->comm != MPI_COMM_NULL) {
        /* Not an error of this call, but the caller must know: MPI objects
         * stay behind, and MPI_Finalize may wait for them. */
        char why[256];
        size_t n = 0;
        int gone = 0;
        for (int pe = 0; pe < sh->n_pes && n < sizeof(why) - 16; pe++)
            if (shoal__pe_gone(sh, pe))
                n += (size_t)snprintf(why + n, sizeof(why) - n, "%sPE %d", gone++ ? ", " : "", pe);
        if (gone)
            snprintf(why + n, sizeof(why) - n, "%s exited or was killed", gone > 1 ? " each" : "");
        else
            shoal__finalize_absent(sh, why, sizeof(why));
        rc = shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                          "the instance was broken by an earlier failure, and %s: only this PE's memory was freed; "
                          "its MPI windows and communicators stay, and MPI_Finalize may not return",
                          why);
    }
    shoal__proxy_stop(sh);
    shoal__registers_free(sh);
    shoal__teams_destroy(sh, !sh->broken);
    shoal__transports_teardown(sh);
    shoal__reg_segs_free(sh); /* after the staging proxy stopped */
    if (sh->gpu != NULL) shoal__heap_gpu_destroy(sh);
    shoal__heap_host_destroy(sh);
    shoal__alloc_fini(&sh->alloc);
    pthread_rwlock_destroy(&sh->alloc_lock);
    shoal__drain_notes(sh);
    shoal__robust_destroy(sh);
    shoal__progress_stop(sh); /* the last wait is over; sh->comm goes next */
    pthread_mutex_destroy(&sh->progress_lock);
    if (!sh->broken) {
        if (sh->ctrl_locked) MPI_Win_unlock_all(sh->ctrl_win);
        if (sh->ctrl_win != MPI_WIN_NULL) MPI_Win_free(&sh->ctrl_win);
        if (sh->leader_comm != MPI_COMM_NULL) MPI_Comm_free(&sh->leader_comm);
        if (sh->node_comm != MPI_COMM_NULL) MPI_Comm_free(&sh->node_comm);
        if (sh->comm != MPI_COMM_NULL) MPI_Comm_free(&sh->comm);
    }
    if (sh->keyval != MPI_KEYVAL_INVALID) {
        /* The attribute stays on MPI_COMM_SELF until MPI_Finalize, where
         * shoal__self_delete finds this handle dead (shoal_init pinned the
         * code it runs). Deleting it here could happen inside MPI_Finalize's
         * own teardown of those attributes, when another library's callback
         * finalizes shoal: MPICH 4.0 walks freed memory then and aborts.
         * Freeing the keyval is allowed while the attribute exists. */
        MPI_Comm_free_keyval(&sh->keyval);
    }
    free(sh->pe_tp);
    free(sh->peer_base);
    free(sh->pe_node);
    free(sh->pe_node_rank);
    free(sh->node_pes);
    sh->pe_tp = NULL;
    sh->peer_base = NULL;
    sh->ctrl = NULL;
    if (rc != SHOAL_SUCCESS) {
        /* The handle is dead from here: its last error moves to the slot
         * that shoal_last_error gives for dead handles and NULL. */
        char msg[sizeof(sh->err)];
        snprintf(msg, sizeof(msg), "%s", shoal_last_error(sh));
        sh->magic = SHOAL__MAGIC_DEAD;
        shoal__error(NULL, rc, NULL, "%s", msg);
    }
    sh->magic = SHOAL__MAGIC_DEAD;
    shoal__error_forget(sh);
    (void)call;
    return rc;
}
