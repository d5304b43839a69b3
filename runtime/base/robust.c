/* What the robustness checks keep in each instance: every same-host PE's
 * pid (is its process gone?), the window through which a timed-out PE reads
 * other nodes' control blocks, the requests a timeout abandoned, and
 * SHOAL_CHECK=full's record of puts not yet completed by a quiet. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/shoal_instance.h"

/* pid of every PE that runs on this host (0 elsewhere), so that a timeout can
 * tell a PE that is elsewhere in the program from one whose process is gone.
 * Hosts are MPI's shared-memory domains, whatever SHOAL_NODE_SIZE says. */
static int shoal__pids_gather(shoal_t sh, shoal__robust_t *sd)
{
    static const char *call = "shoal_init";
    MPI_Comm host = MPI_COMM_NULL;
    MPI_Group g_host = MPI_GROUP_NULL, g_comm = MPI_GROUP_NULL;
    int mine[2] = {(int)getpid(), 0}, *all = NULL, zero = 0, rc = SHOAL_SUCCESS;
    bool visible = true;

    all = malloc(2 * sizeof(int) * (size_t)sh->n_pes);
    if (all == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Comm_split_type(sh->comm, MPI_COMM_TYPE_SHARED, sh->my_pe, MPI_INFO_NULL, &host));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_group(host, &g_host));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_group(sh->comm, &g_comm));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Group_translate_ranks(g_host, 1, &zero, g_comm, &mine[1]));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, sh->comm));
    for (int p = 0; p < sh->n_pes; p++) {
        sd->pe_pid[p] = all[2 * p + 1] == mine[1] ? all[2 * p] : 0;
        /* Another pid namespace on one host (containers): no liveness checks. */
        if (sd->pe_pid[p] > 0 && kill((pid_t)sd->pe_pid[p], 0) != 0 && errno == ESRCH) visible = false;
    }
    if (!visible) memset(sd->pe_pid, 0, sizeof(int) * (size_t)sh->n_pes);
out:
    free(all);
    if (g_host != MPI_GROUP_NULL) MPI_Group_free(&g_host);
    if (g_comm != MPI_GROUP_NULL) MPI_Group_free(&g_comm);
    if (host != MPI_COMM_NULL) MPI_Comm_free(&host);
    return rc;
}

int shoal__robust_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    shoal__robust_t *sd = &sh->robust;
    int rc = SHOAL_SUCCESS;

    memset(sd, 0, sizeof(*sd));
    pthread_mutex_init(&sd->lock, NULL);
    sd->ready = true; /* from here shoal__robust_destroy cleans up */
    sd->diag_win = MPI_WIN_NULL;
    sd->gave_up_note = NULL;
    sd->gave_up_req = NULL;
    sd->n_abandoned = 0;
    sd->n_puts = 0;
    sd->puts_dropped = 0;
    sd->puts_overflow = false;
    atomic_store(&sd->coll_owner, 0);
    atomic_store(&sd->owner_call, NULL);
    sd->pe_pid = calloc((size_t)sh->n_pes, sizeof(int));
    sd->coll_buf = calloc(16, sizeof(uint64_t));
    if (sd->pe_pid == NULL || sd->coll_buf == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        goto out;
    }
    SHOAL__TRY(rc, out, shoal__pids_gather(sh, sd));
    /* With several nodes, a PE that times out reads the other nodes'
     * control blocks to name who is missing there. */
    if (sh->n_nodes > 1) {
        MPI_Aint bytes = sh->node_rank == 0
                             ? (MPI_Aint)(sizeof(shoal__node_ctrl_t) + (size_t)sh->node_size * sizeof(shoal__pe_slot_t))
                             : 0;
        SHOAL__MPI_TRY(sh, call, rc, out,
                       MPI_Win_create(sh->node_rank == 0 ? (void *)sh->ctrl : NULL, bytes, 1, MPI_INFO_NULL, sh->comm,
                                      &sd->diag_win));
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_set_errhandler(sd->diag_win, MPI_ERRORS_RETURN));
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_lock_all(MPI_MODE_NOCHECK, sd->diag_win));
    }
out:
    return rc;
}

void shoal__abandon(shoal_t sh, MPI_Request req, void *buf)
{
    shoal__robust_t *sd = shoal__robust(sh);

    if (sd == NULL || sd->n_abandoned == (int)(sizeof(sd->abandoned_req) / sizeof(sd->abandoned_req[0])))
        return; /* left to MPI for good */
    sd->abandoned_req[sd->n_abandoned] = req;
    sd->abandoned_buf[sd->n_abandoned++] = buf;
}

void shoal__robust_destroy(shoal_t sh)
{
    shoal__robust_t *sd = shoal__robust(sh);

    if (sd == NULL) return;
    if (sd->diag_win != MPI_WIN_NULL && !sh->broken) {
        MPI_Win_unlock_all(sd->diag_win);
        MPI_Win_free(&sd->diag_win);
    }
    sd->diag_win = MPI_WIN_NULL; /* broken: left to MPI, peers are out of step */
    if (sd->gave_up_req != NULL) {
        /* The notes to the other leaders: the buffer stays MPI's until
         * every send completed. */
        int n = 0, pending = 0;
        if (sh->leader_comm != MPI_COMM_NULL) MPI_Comm_size(sh->leader_comm, &n);
        for (int k = 0; k < n; k++) {
            int done = 0;
            if (sd->gave_up_req[k] == MPI_REQUEST_NULL) continue;
            if (MPI_Test(&sd->gave_up_req[k], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || !done) {
                if (sd->gave_up_req[k] != MPI_REQUEST_NULL) MPI_Request_free(&sd->gave_up_req[k]);
                pending++;
            }
        }
        if (pending == 0) free(sd->gave_up_note);
        free(sd->gave_up_req);
        sd->gave_up_note = NULL;
        sd->gave_up_req = NULL;
    }
    for (int i = 0; i < sd->n_abandoned; i++) {
        int done = 0;
        if (MPI_Test(&sd->abandoned_req[i], &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done)
            free(sd->abandoned_buf[i]);
    }
    sd->n_abandoned = 0;
    free(sd->pe_pid);
    /* A broken instance may have left an allreduce on these: MPI keeps them. */
    if (!sh->broken) free(sd->coll_buf);
    free(sd->puts);
    sd->pe_pid = NULL;
    sd->coll_buf = NULL;
    sd->puts = NULL;
    sd->n_puts = sd->cap_puts = 0;
    pthread_mutex_destroy(&sd->lock);
    sd->ready = false;
}

bool shoal__pe_gone(shoal_t sh, int pe)
{
    shoal__robust_t *sd = shoal__robust(sh);
    char path[64], buf[512], *paren;
    FILE *f;
    size_t n;
    pid_t pid;

    if (sd == NULL || sd->pe_pid == NULL || (unsigned)pe >= (unsigned)sh->n_pes || sd->pe_pid[pe] <= 0) return false;
    /* A node peer found it gone already. */
    if (sh->ctrl != NULL && sh->pe_node != NULL && sh->pe_node[pe] == sh->node_id &&
        atomic_load_explicit(&sh->ctrl->slot[sh->pe_node_rank[pe]].gone, memory_order_acquire))
        return true;
    pid = (pid_t)sd->pe_pid[pe];
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    /* Exited but not yet reaped by its launcher: state Z (or X). */
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    f = fopen(path, "r");
    if (f == NULL) return kill(pid, 0) != 0 && errno == ESRCH; /* reaped since (not: no /proc) */
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    paren = strrchr(buf, ')');
    if (paren == NULL || paren[1] != ' ') return false;
    if (paren[2] == 'Z' || paren[2] == 'X') return true;
    /* Still tearing itself down (exit_group called, not yet a zombie: its
     * memory can take seconds to unmap on a busy machine): the kernel's
     * PF_EXITING bit in the flags, the 9th field. */
    {
        char state;
        unsigned flags = 0;
        if (sscanf(paren + 2, "%c %*d %*d %*d %*d %*d %u", &state, &flags) == 2 && (flags & 0x4u)) return true;
    }
    return false;
}
