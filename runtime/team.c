/* Teams' life: world and node at init, splits (collective over the parent:
 * the PEs agree on the arguments and on a free team id through one
 * non-blocking allgather, bounded by SHOAL_TIMEOUT, before any blocking MPI
 * call), translation, destroy, and the instance's list of teams. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shoal_team.h"

int shoal__bad_team(shoal_team_t t, const char *call)
{
    if (t == NULL)
        return shoal__error(NULL, SHOAL_ERR_INVALID_ARG, call,
                            "the team is SHOAL_TEAM_INVALID (this PE is not in it, or the split that made it failed)");
    if (t->magic != SHOAL__TEAM_MAGIC)
        return shoal__error(NULL, SHOAL_ERR_INVALID_ARG, call, "%p is not a team (destroyed already?)", (void *)t);
    return shoal__bad_instance(t->sh, call);
}

/* Fill the parts of t that follow from its members: my number, the
 * progression, the node-local members, what is load/store reachable. */
static int shoal__team_fill(shoal_t sh, struct shoal_team *t, const char *call)
{
    int prev_node = -1;

    t->my_pe = -1;
    t->local = malloc((size_t)t->n_pes * sizeof(int));
    t->local_team = malloc((size_t)t->n_pes * sizeof(int));
    if (t->local == NULL || t->local_team == NULL)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for a team of %d PEs", t->n_pes);
    t->start = t->pes[0];
    t->stride = t->n_pes > 1 ? t->pes[1] - t->pes[0] : 0;
    t->strided = true;
    t->ls_host = sh->heap_kind == SHOAL_HEAP_HOST && sh->coll_algo != SHOAL__COLL_ALGO_TRANSPORT;
    t->ls_gpu = sh->heap_kind == SHOAL_HEAP_GPU;
    t->n_nodes = 0;
    t->n_local = 0;
    for (int i = 0; i < t->n_pes; i++) {
        int pe = t->pes[i];
        bool seen = false;
        if (pe == sh->my_pe) t->my_pe = i;
        if (pe != t->start + i * t->stride) t->strided = false;
        if (sh->peer_base == NULL || sh->peer_base[pe] == NULL) t->ls_host = t->ls_gpu = false;
        if (sh->pe_node[pe] == sh->node_id) {
            t->local_team[t->n_local] = i;
            t->local[t->n_local++] = sh->pe_node_rank[pe];
        }
        /* Count distinct nodes (members come in PE order within a node). */
        for (int j = 0; j < i && !seen; j++) seen = sh->pe_node[t->pes[j]] == sh->pe_node[pe];
        if (!seen) t->n_nodes++;
        (void)prev_node;
    }
    return SHOAL_SUCCESS;
}

static void shoal__team_free(struct shoal_team *t, bool mpi)
{
    if (t == NULL) return;
    if (mpi && t->owns_comm) {
        if (t->leader != MPI_COMM_NULL) MPI_Comm_free(&t->leader);
        if (t->comm != MPI_COMM_NULL) MPI_Comm_free(&t->comm);
    }
    free(t->pes);
    free(t->local);
    free(t->local_team);
    t->magic = 0;
    free(t);
}

/* Link t at the end of the instance's list and take its id. */
static void shoal__team_link(shoal_t sh, struct shoal_team *t)
{
    struct shoal_team **p = &sh->teams;
    while (*p != NULL) p = &(*p)->next;
    *p = t;
    sh->team_ids |= (uint64_t)1 << t->id;
}

static struct shoal_team *shoal__team_alloc(shoal_t sh, int id, int n)
{
    struct shoal_team *t = calloc(1, sizeof(*t));
    if (t == NULL) return NULL;
    t->pes = malloc((size_t)n * sizeof(int));
    if (t->pes == NULL) {
        free(t);
        return NULL;
    }
    t->magic = SHOAL__TEAM_MAGIC;
    t->sh = sh;
    t->id = id;
    t->n_pes = n;
    t->comm = t->leader = MPI_COMM_NULL;
    return t;
}

int shoal__teams_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    struct shoal_team *w = shoal__team_alloc(sh, SHOAL__TEAM_ID_WORLD, sh->n_pes);
    struct shoal_team *nd = shoal__team_alloc(sh, SHOAL__TEAM_ID_NODE, sh->node_size);
    int rc;

    if (w == NULL || nd == NULL) {
        shoal__team_free(w, false);
        shoal__team_free(nd, false);
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for the world and node teams");
    }
    for (int pe = 0; pe < sh->n_pes; pe++) w->pes[pe] = pe;
    memcpy(nd->pes, sh->node_pes, (size_t)sh->node_size * sizeof(int));
    w->comm = sh->comm;
    w->leader = sh->leader_comm;
    nd->comm = sh->node_comm;
    rc = shoal__team_fill(sh, w, call);
    if (rc == SHOAL_SUCCESS) rc = shoal__team_fill(sh, nd, call);
    if (rc != SHOAL_SUCCESS) {
        shoal__team_free(w, false);
        shoal__team_free(nd, false);
        return rc;
    }
    shoal__team_link(sh, w);
    shoal__team_link(sh, nd);
    return SHOAL_SUCCESS;
}

void shoal__teams_destroy(shoal_t sh, bool collective)
{
    struct shoal_team *t = sh->teams;
    while (t != NULL) {
        struct shoal_team *next = t->next;
        shoal__team_free(t, collective);
        t = next;
    }
    sh->teams = NULL;
    sh->team_ids = 0;
}

shoal_team_t shoal__team_world(shoal_t sh) { return sh->teams; }
shoal_team_t shoal__team_node(shoal_t sh) { return sh->teams != NULL ? sh->teams->next : NULL; }

int shoal__team_translate(shoal_team_t src, int pe, shoal_team_t dest)
{
    int world;
    if (pe < 0 || pe >= src->n_pes) return -1;
    world = src->pes[pe];
    if (dest->strided && dest->stride != 0) {
        int d = world - dest->start;
        if (d % dest->stride != 0) return -1;
        d /= dest->stride;
        return d >= 0 && d < dest->n_pes ? d : -1;
    }
    for (int i = 0; i < dest->n_pes; i++)
        if (dest->pes[i] == world) return i;
    return -1;
}

/* What every parent PE says of a split: the call's arguments, and the team
 * ids in use on it. */
typedef struct shoal__split_arg {
    int64_t a[3];
    uint64_t ids;
} shoal__split_arg_t;

/* Gather every parent PE's split arguments over the parent's
 * communicator, for at most SHOAL_TIMEOUT. *all_p: n_pes entries (free it). */
static int shoal__split_gather(shoal_team_t parent, const char *call, const shoal__split_arg_t *mine,
                               shoal__split_arg_t **all_p)
{
    shoal_t sh = parent->sh;
    shoal__split_arg_t *all = malloc(((size_t)parent->n_pes + 1) * sizeof(*all));
    MPI_Request req;
    double start = shoal__now();
    unsigned spins = 0, polls = 0;
    int done = 0, rc;

    if (all == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    all[parent->n_pes] = *mine; /* the send buffer lives with the receive buffer */
    rc = MPI_Iallgather(&all[parent->n_pes], (int)sizeof(*mine), MPI_BYTE, all, (int)sizeof(*mine), MPI_BYTE,
                        parent->comm, &req);
    if (rc != MPI_SUCCESS) {
        free(all);
        return shoal__mpi_error(sh, call, "MPI_Iallgather", rc);
    }
    for (;;) {
        rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) {
            free(all);
            return shoal__mpi_error(sh, call, "MPI_Test", rc);
        }
        if (done) break;
        if (sh->cfg.timeout > 0 && (++polls & 255) == 0 && shoal__now() - start > sh->cfg.timeout) {
            shoal__abandon(sh, req, all);
            parent->broken = true;
            return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                                "timed out after %g s waiting for the parent team's %d PEs to call it: every PE of "
                                "the parent must call the split, with the same arguments",
                                sh->cfg.timeout, parent->n_pes);
        }
        shoal__wait_progress(sh, &spins);
    }
    *all_p = all;
    return SHOAL_SUCCESS;
}

/* Every parent PE passed the same arguments? Else the error naming them. */
static int shoal__split_agree(shoal_team_t parent, const char *call, const shoal__split_arg_t *all,
                              const char *const names[3], int nargs)
{
    char msg[600];
    size_t n = 0;
    int shown = 0;
    bool same = true;

    for (int p = 1; p < parent->n_pes && same; p++) same = memcmp(all[p].a, all[0].a, sizeof(all[0].a)) == 0;
    if (same) return SHOAL_SUCCESS;
    for (int p = 0; p < parent->n_pes && n < sizeof(msg) - 1; p++) {
        if (p > 0 && memcmp(all[p].a, all[0].a, sizeof(all[0].a)) == 0) continue;
        if (shown++ == 8) {
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, "; ...");
            break;
        }
        n += (size_t)snprintf(msg + n, sizeof(msg) - n, "%sPE %d (parent PE %d):", p ? "; " : "", parent->pes[p], p);
        for (int k = 0; k < nargs && n < sizeof(msg) - 1; k++)
            n += (size_t)snprintf(msg + n, sizeof(msg) - n, " %s %lld", names[k], (long long)all[p].a[k]);
    }
    return shoal__error(parent->sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                        "the parent's PEs passed different arguments (%s); every PE of the parent must pass the "
                        "same; no team was made",
                        msg);
}

/* The lowest team id free on every parent PE (and not one of skip). */
static int shoal__split_id(const shoal__split_arg_t *all, int n, uint64_t skip)
{
    uint64_t used = skip | ((uint64_t)1 << SHOAL__TEAM_ID_WORLD) | ((uint64_t)1 << SHOAL__TEAM_ID_NODE);
    for (int p = 0; p < n; p++) used |= all[p].ids;
    for (int id = 0; id < SHOAL_TEAM_MAX; id++)
        if (!(used & ((uint64_t)1 << id))) return id;
    return -1;
}

/* Make this PE's team of a split: the parent's PEs of my color (MPI_UNDEFINED:
 * none), in parent order. Collective over the parent. */
static int shoal__split_make(shoal_team_t parent, const char *call, int color, int id, shoal_team_t *new_p)
{
    shoal_t sh = parent->sh;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Group g = MPI_GROUP_NULL, gw = MPI_GROUP_NULL;
    struct shoal_team *t = NULL;
    int rc = SHOAL_SUCCESS, n, *ranks = NULL;

    *new_p = SHOAL_TEAM_INVALID;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_split(parent->comm, color, parent->my_pe, &comm));
    if (comm == MPI_COMM_NULL) return SHOAL_SUCCESS;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_size(comm, &n));
    t = shoal__team_alloc(sh, id, n);
    ranks = malloc((size_t)n * sizeof(int));
    if (t == NULL || ranks == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for a team of %d PEs", n);
        goto out;
    }
    for (int i = 0; i < n; i++) ranks[i] = i;
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_group(comm, &g));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_group(sh->comm, &gw));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Group_translate_ranks(g, n, ranks, gw, t->pes));
    t->comm = comm;
    t->owns_comm = true;
    comm = MPI_COMM_NULL;
    SHOAL__TRY(rc, out, shoal__team_fill(sh, t, call));
    if (t->n_nodes > 1) {
        bool lead = t->local[0] == sh->node_rank;
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_split(t->comm, lead ? 0 : MPI_UNDEFINED, t->my_pe, &t->leader));
        if (t->leader != MPI_COMM_NULL)
            SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_set_errhandler(t->leader, MPI_ERRORS_RETURN));
    }
    {
        /* The id may have served another team: its slot starts over, and
         * no member meets before every member's slot did. */
        shoal__team_slot_t *slot = shoal__team_slot(sh, id, sh->node_rank);
        atomic_store_explicit(&slot->arrived, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->release, 0, memory_order_relaxed);
        atomic_store_explicit(&slot->verdict, 0, memory_order_relaxed);
        SHOAL__TRY(rc, out, shoal__team_gpu_reset(t, call));
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Win_sync(sh->ctrl_win));
        SHOAL__MPI_TRY(sh, call, rc, out, MPI_Barrier(t->comm));
    }
    shoal__team_link(sh, t);
    *new_p = t;
    t = NULL;
out:
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    if (g != MPI_GROUP_NULL) MPI_Group_free(&g);
    if (gw != MPI_GROUP_NULL) MPI_Group_free(&gw);
    free(ranks);
    shoal__team_free(t, true);
    return rc;
}

int shoal__team_split_strided(shoal_team_t parent, int start, int stride, int size, shoal_team_t *new_p)
{
    static const char *call = "shoal_team_split_strided";
    static const char *const names[3] = {"start", "stride", "size"};
    shoal_t sh = parent->sh;
    shoal__split_arg_t mine = {.a = {start, stride, size}, .ids = sh->team_ids}, *all = NULL;
    int rc, id, color = MPI_UNDEFINED;

    *new_p = SHOAL_TEAM_INVALID;
    if (parent->broken)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call, "an earlier collective on the parent team failed midway");
    SHOAL__TRY(rc, out, shoal__split_gather(parent, call, &mine, &all));
    SHOAL__TRY(rc, out, shoal__split_agree(parent, call, all, names, 3));
    /* The same checks on every PE, which agree on the arguments: the same verdict. */
    if (size < 1 || size > parent->n_pes || start < 0 || start >= parent->n_pes || (stride == 0 && size > 1) ||
        (long long)start + (long long)(size - 1) * stride < 0 ||
        (long long)start + (long long)(size - 1) * stride >= parent->n_pes) {
        rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                          "start %d, stride %d, size %d do not name %d distinct PEs of the parent team (PEs 0 to %d)",
                          start, stride, size, size, parent->n_pes - 1);
        goto out;
    }
    id = shoal__split_id(all, parent->n_pes, 0);
    if (id < 0) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                          "a PE of the parent team is in %d teams already (SHOAL_TEAM_MAX): destroy some first",
                          SHOAL_TEAM_MAX);
        goto out;
    }
    {
        long long d = (long long)parent->my_pe - start;
        if (stride != 0 ? d % stride == 0 && d / stride >= 0 && d / stride < size : d == 0) color = 0;
    }
    rc = shoal__split_make(parent, call, color, id, new_p);
out:
    free(all);
    return rc;
}

int shoal__team_split_2d(shoal_team_t parent, int xrange, shoal_team_t *xteam_p, shoal_team_t *yteam_p)
{
    static const char *call = "shoal_team_split_2d";
    static const char *const names[3] = {"xrange", "", ""};
    shoal_t sh = parent->sh;
    shoal__split_arg_t mine = {.a = {xrange, 0, 0}, .ids = sh->team_ids}, *all = NULL;
    int rc, xid, yid;

    *xteam_p = *yteam_p = SHOAL_TEAM_INVALID;
    if (parent->broken)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call, "an earlier collective on the parent team failed midway");
    SHOAL__TRY(rc, out, shoal__split_gather(parent, call, &mine, &all));
    SHOAL__TRY(rc, out, shoal__split_agree(parent, call, all, names, 1));
    if (xrange < 1) {
        rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "xrange %d: a row holds at least 1 PE", xrange);
        goto out;
    }
    if (xrange > parent->n_pes) xrange = parent->n_pes; /* one row: OpenSHMEM clamps */
    xid = shoal__split_id(all, parent->n_pes, 0);
    yid = xid < 0 ? -1 : shoal__split_id(all, parent->n_pes, (uint64_t)1 << xid);
    if (yid < 0) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                          "a PE of the parent team is in %d teams already (SHOAL_TEAM_MAX): destroy some first",
                          SHOAL_TEAM_MAX - 1);
        goto out;
    }
    SHOAL__TRY(rc, out, shoal__split_make(parent, call, parent->my_pe / xrange, xid, xteam_p));
    rc = shoal__split_make(parent, call, parent->my_pe % xrange, yid, yteam_p);
out:
    free(all);
    return rc;
}

int shoal__team_destroy(shoal_team_t t)
{
    static const char *call = "shoal_team_destroy";
    shoal_t sh = t->sh;
    struct shoal_team **p;
    int rc;

    if (t->id == SHOAL__TEAM_ID_WORLD || t->id == SHOAL__TEAM_ID_NODE)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "the %s team lives as long as the instance",
                            t->id == SHOAL__TEAM_ID_WORLD ? "world" : "node");
    /* Members meet first: nobody frees the team's communicators while a
     * member still uses them. A failed meeting frees this PE's memory only. */
    rc = shoal__team_meet(t, call, SHOAL__TC_KIND(SHOAL__TC_DESTROY, 0, 0), 0, 0);
    for (p = &sh->teams; *p != NULL && *p != t; p = &(*p)->next) continue;
    if (*p == t) *p = t->next;
    sh->team_ids &= ~((uint64_t)1 << t->id);
    shoal__team_free(t, rc == SHOAL_SUCCESS && !t->broken);
    return rc;
}
