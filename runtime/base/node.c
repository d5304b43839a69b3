/* A node's PEs: splitting the communicator into nodes (shared memory, or
 * SHOAL_NODE_SIZE blocks), their leaders, and the node's control window:
 * the control block the rendezvous runs on, then each PE's description of
 * its heap, which the heaps and transports of the node read, then the
 * teams' slots, then the teams' inline buffers (runtime/base/shoal_node.h). */
#include <stdlib.h>
#include <string.h>

#include "base/shoal_instance.h"

/* Bytes of the team slots of a node: SHOAL_TEAM_MAX ids, a slot per PE. */
static size_t shoal__team_slots_bytes(shoal_t sh)
{
    return (size_t)SHOAL_TEAM_MAX * (size_t)sh->node_size * sizeof(shoal__team_slot_t);
}
/* Bytes of the teams' inline buffers: two per team slot. */
static size_t shoal__team_inline_bytes(shoal_t sh)
{
    return (size_t)SHOAL_TEAM_MAX * (size_t)sh->node_size * 2 * SHOAL__TEAM_INLINE;
}
/* Bytes of the node's control block (its slots included): what other
 * nodes may read of the control window. */
static size_t shoal__node_ctrl_bytes(shoal_t sh)
{
    size_t b = sizeof(shoal__node_ctrl_t) + (size_t)sh->node_size * sizeof(shoal__pe_slot_t);
    return (b + SHOAL__CACHELINE - 1) / SHOAL__CACHELINE * SHOAL__CACHELINE;
}

/* Split comm into nodes: PEs sharing memory, cut into blocks of node_size
 * consecutive ranks when SHOAL_NODE_SIZE asks for it. */
int shoal__nodes_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    MPI_Comm by_block = MPI_COMM_NULL;
    MPI_Group g_node = MPI_GROUP_NULL, g_comm = MPI_GROUP_NULL;
    int *leaders = NULL;
    int rc = SHOAL_SUCCESS, zero = 0, leader;

    if (sh->cfg.node_size > 0) {
        SHOAL__MPI_TRY(sh, call, rc, out,
                       MPI_Comm_split(sh->comm, sh->my_pe / sh->cfg.node_size, sh->my_pe, &by_block));
        SHOAL__MPI_TRY(sh, call, rc, out,
                       MPI_Comm_split_type(by_block, MPI_COMM_TYPE_SHARED, sh->my_pe, MPI_INFO_NULL, &sh->node_comm));
    } else {
        SHOAL__MPI_TRY(sh, call, rc, out,
                       MPI_Comm_split_type(sh->comm, MPI_COMM_TYPE_SHARED, sh->my_pe, MPI_INFO_NULL, &sh->node_comm));
    }
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_set_errhandler(sh->node_comm, MPI_ERRORS_RETURN));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_rank(sh->node_comm, &sh->node_rank));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_size(sh->node_comm, &sh->node_size));

    /* A node is named by its lowest PE (node rank 0, since we split by rank). */
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_group(sh->node_comm, &g_node));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_group(sh->comm, &g_comm));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Group_translate_ranks(g_node, 1, &zero, g_comm, &leader));

    sh->pe_node = calloc((size_t)sh->n_pes, sizeof(int));
    sh->pe_node_rank = calloc((size_t)sh->n_pes, sizeof(int));
    sh->node_pes = calloc((size_t)sh->node_size, sizeof(int));
    leaders = calloc((size_t)sh->n_pes, sizeof(int));
    if (!sh->pe_node || !sh->pe_node_rank || !sh->node_pes || !leaders) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot allocate the PE tables for %d PEs", sh->n_pes);
        goto out;
    }
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, sh->comm));
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Allgather(&sh->node_rank, 1, MPI_INT, sh->pe_node_rank, 1, MPI_INT, sh->comm));
    /* Number nodes in order of their leaders: PE p leads a node iff leaders[p] == p. */
    sh->n_nodes = 0;
    for (int p = 0; p < sh->n_pes; p++) {
        if (leaders[p] == p) sh->pe_node[p] = sh->n_nodes++;
    }
    for (int p = 0; p < sh->n_pes; p++) {
        sh->pe_node[p] = sh->pe_node[leaders[p]];
        if (leaders[p] == leader) sh->node_pes[sh->pe_node_rank[p]] = p;
    }
    sh->node_id = sh->pe_node[sh->my_pe];
    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Comm_split(sh->comm, sh->node_rank == 0 ? 0 : MPI_UNDEFINED, sh->my_pe, &sh->leader_comm));
    if (sh->leader_comm != MPI_COMM_NULL)
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_set_errhandler(sh->leader_comm, MPI_ERRORS_RETURN));
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_INIT, "node %d of %d, node rank %d of %d", sh->node_id, sh->n_nodes,
               sh->node_rank, sh->node_size);
out:
    free(leaders);
    if (g_node != MPI_GROUP_NULL) MPI_Group_free(&g_node);
    if (g_comm != MPI_GROUP_NULL) MPI_Group_free(&g_comm);
    if (by_block != MPI_COMM_NULL) MPI_Comm_free(&by_block);
    return rc;
}

/* The node's control block: one shared window, all of it on node rank 0. */
int shoal__ctrl_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    MPI_Aint size = 0;
    int disp = 0, rc = SHOAL_SUCCESS;
    void *base = NULL;
    size_t bytes = shoal__node_ctrl_bytes(sh) + (size_t)sh->node_size * sizeof(shoal__heap_desc_t) +
                   shoal__team_slots_bytes(sh) + shoal__team_inline_bytes(sh);

    SHOAL__MPI_TRY(sh, call, rc, out,
                   MPI_Win_allocate_shared(sh->node_rank == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL, sh->node_comm,
                                           &base, &sh->ctrl_win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_shared_query(sh->ctrl_win, 0, &size, &disp, &base));
    /* One passive epoch for the window's life: MPI_Win_sync, which makes
     * plain stores into it visible to the node's other processes, needs one. */
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_lock_all(MPI_MODE_NOCHECK, sh->ctrl_win));
    sh->ctrl_locked = true;
    sh->ctrl = base;
    if (sh->node_rank == 0) {
        atomic_init(&sh->ctrl->release, 0);
        atomic_init(&sh->ctrl->verdict, 0);
        atomic_init(&sh->ctrl->release_q.seq, 0);
        atomic_init(&sh->ctrl->release_q.sleepers, 0);
        atomic_init(&sh->ctrl->leader_q.seq, 0);
        atomic_init(&sh->ctrl->leader_q.sleepers, 0);
        atomic_init(&sh->ctrl->sleepy, 0);
        for (int r = 0; r < sh->node_size; r++) {
            atomic_init(&sh->ctrl->slot[r].arrived, 0);
            atomic_init(&sh->ctrl->slot[r].coll, SHOAL__COLL_NONE);
            atomic_init(&sh->ctrl->slot[r].arg, 0);
            atomic_init(&sh->ctrl->slot[r].gone, 0);
        }
        memset(shoal__team_slot(sh, 0, 0), 0, shoal__team_slots_bytes(sh));
    }
    /* Nobody touches the block before its owner initialized it. */
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Barrier(sh->node_comm));
    /* Before any rendezvous: a PE that may sleep makes every waker look. */
    if (sh->wait_sleep) atomic_store_explicit(&sh->ctrl->sleepy, 1, memory_order_relaxed);
out:
    return rc;
}

shoal__heap_desc_t *shoal__heap_desc(shoal_t sh, int node_rank)
{
    return (shoal__heap_desc_t *)((char *)sh->ctrl + shoal__node_ctrl_bytes(sh)) + node_rank;
}

int shoal__heap_desc_publish(shoal_t sh, const char *call)
{
    int rc = SHOAL_SUCCESS;

    /* The unified model's pattern for shared windows: my stores reach
     * memory (sync), everybody's have (barrier), and my loads see theirs
     * (sync). Reading a peer's record without the second sync is what once
     * returned stale bytes. */
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_sync(sh->ctrl_win));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Barrier(sh->node_comm));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_sync(sh->ctrl_win));
out:
    return rc;
}

shoal__team_slot_t *shoal__team_slot(shoal_t sh, int id, int node_rank)
{
    char *base = (char *)shoal__heap_desc(sh, sh->node_size); /* right after the heap records */
    return (shoal__team_slot_t *)base + (size_t)id * (size_t)sh->node_size + (size_t)node_rank;
}

void *shoal__team_inline(shoal_t sh, int id, int node_rank, uint64_t gen)
{
    char *base = (char *)shoal__team_slot(sh, 0, 0) + shoal__team_slots_bytes(sh); /* right after the slots */
    size_t i = ((size_t)id * (size_t)sh->node_size + (size_t)node_rank) * 2 + (size_t)(gen & 1);
    return base + i * SHOAL__TEAM_INLINE;
}
