/* Teams' life: world and node at init, splits (collective over the parent:
 * the PEs agree on the arguments and on free team ids through one
 * non-blocking allgather, bounded by SHOAL_TIMEOUT, before any blocking MPI
 * call; then on the new teams' properties and on success, through bounded
 * non-blocking allreduces), teams made by their members alone (they agree
 * by messages to their lowest member, then as a split's members do),
 * translation, destroy, and the instance's list of teams. A destroyed team's handle stays readable (marked dead) until
 * shoal_finalize, so that calls on it are refused, not undefined. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "team/shoal_team.h"

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
 * progression, the node-local members, what this PE loads and stores (the
 * members then agree on those: shoal__team_agree). */
static int shoal__team_fill(shoal_t sh, struct shoal_team *t, const char *call)
{
    bool *node_seen = calloc((size_t)sh->n_nodes, sizeof(bool));

    t->my_pe = -1;
    t->local = malloc((size_t)t->n_pes * sizeof(int));
    t->local_team = malloc((size_t)t->n_pes * sizeof(int));
    if (t->local == NULL || t->local_team == NULL || node_seen == NULL) {
        free(node_seen);
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for a team of %d PEs", t->n_pes);
    }
    t->start = t->pes[0];
    t->stride = t->n_pes > 1 ? t->pes[1] - t->pes[0] : 0;
    t->strided = true;
    t->ls_host = t->ls_local = sh->heap_kind == SHOAL_HEAP_HOST && sh->coll_algo != SHOAL__COLL_ALGO_TRANSPORT;
    t->ls_gpu = sh->heap_kind == SHOAL_HEAP_GPU;
    t->n_nodes = 0;
    t->n_local = 0;
    for (int i = 0; i < t->n_pes; i++) {
        int pe = t->pes[i];
        bool mapped = sh->peer_base != NULL && sh->peer_base[pe] != NULL;
        if (pe == sh->my_pe) t->my_pe = i;
        if (pe != t->start + i * t->stride) t->strided = false;
        if (!mapped) t->ls_host = t->ls_gpu = false;
        if (sh->pe_node[pe] == sh->node_id) {
            t->local_team[t->n_local] = i;
            t->local[t->n_local++] = sh->pe_node_rank[pe];
            if (!mapped) t->ls_local = false;
        }
        if (!node_seen[sh->pe_node[pe]]) t->n_nodes++;
        node_seen[sh->pe_node[pe]] = true;
    }
    free(node_seen);
    t->gpu_ok = shoal__team_gpu_reachable(t);
    return SHOAL_SUCCESS;
}

/* What the members agree on at creation, each the worst over them: a
 * generation above every slot's (the id may have served other teams:
 * what they left in the slots must not satisfy this team's waits), and
 * whether each PE could make its part and reaches the others as this PE
 * does. MAX over [gen, !ok, !ls_host, !ls_gpu, !ls_local, !gpu_ok]. */
enum {
    SHOAL__AGREE_GEN,
    SHOAL__AGREE_FAIL,
    SHOAL__AGREE_NO_LS_HOST,
    SHOAL__AGREE_NO_LS_GPU,
    SHOAL__AGREE_NO_LS_LOCAL,
    SHOAL__AGREE_NO_GPU,
    SHOAL__AGREE_N
};

/* A bounded non-blocking MPI_MAX allreduce of n uint64_t over comm. */
static int shoal__team_allmax(shoal_t sh, const char *call, MPI_Comm comm, uint64_t *v, int n)
{
    uint64_t *buf = malloc(2 * (size_t)n * sizeof(uint64_t));
    MPI_Request req;
    int rc;

    if (buf == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    memcpy(buf, v, (size_t)n * sizeof(uint64_t));
    rc = MPI_Iallreduce(buf, buf + n, n, MPI_UINT64_T, MPI_MAX, comm, &req);
    if (rc != MPI_SUCCESS) {
        free(buf);
        return shoal__mpi_error(sh, call, "MPI_Iallreduce", rc);
    }
    rc = shoal__wait_mpi(sh, &req, buf);
    if (rc == SHOAL_ERR_MPI) return shoal__error(sh, rc, call, "MPI_Test failed agreeing on a new team");
    if (rc != SHOAL_SUCCESS)
        return shoal__error(sh, rc, call, "timed out after %g s agreeing on a new team with its other members",
                            sh->cfg.timeout);
    memcpy(v, buf + n, (size_t)n * sizeof(uint64_t));
    free(buf);
    return SHOAL_SUCCESS;
}

/* This PE's contribution to the agreement on t (made, filled, GPU words zeroed: ok). */
static void shoal__team_agree_mine(shoal_t sh, const struct shoal_team *t, bool ok, uint64_t *v)
{
    memset(v, 0, SHOAL__AGREE_N * sizeof(uint64_t));
    v[SHOAL__AGREE_FAIL] = !ok;
    if (t == NULL || !ok) return;
    {
        shoal__team_slot_t *slot = shoal__team_slot(sh, t->id, sh->node_rank);
        uint64_t a = atomic_load_explicit(&slot->arrived, memory_order_relaxed) & ~SHOAL__GAVE_UP;
        uint64_t r = atomic_load_explicit(&slot->release, memory_order_relaxed) & ~SHOAL__GAVE_UP;
        v[SHOAL__AGREE_GEN] = a > r ? a : r;
    }
    v[SHOAL__AGREE_NO_LS_HOST] = !t->ls_host;
    v[SHOAL__AGREE_NO_LS_GPU] = !t->ls_gpu;
    v[SHOAL__AGREE_NO_LS_LOCAL] = !t->ls_local;
    v[SHOAL__AGREE_NO_GPU] = !t->gpu_ok;
}

/* Take what the members agreed on: the generation to start from (this
 * PE's slot is set to it: a stale value is never above it), the paths. */
static void shoal__team_agree_take(shoal_t sh, struct shoal_team *t, const uint64_t *v)
{
    shoal__team_slot_t *slot = shoal__team_slot(sh, t->id, sh->node_rank);
    t->gen = v[SHOAL__AGREE_GEN];
    atomic_store_explicit(&slot->arrived, t->gen, memory_order_relaxed);
    atomic_store_explicit(&slot->release, t->gen, memory_order_release);
    t->ls_host = !v[SHOAL__AGREE_NO_LS_HOST];
    t->ls_gpu = !v[SHOAL__AGREE_NO_LS_GPU];
    t->ls_local = !v[SHOAL__AGREE_NO_LS_LOCAL];
    t->gpu_ok = !v[SHOAL__AGREE_NO_GPU];
}

/* Free what t holds (its communicators too where mpi); the struct itself
 * too, unless keep: it then stays, marked dead, on the instance's list of
 * dead teams until shoal_finalize. */
static void shoal__team_release(struct shoal_team *t, bool mpi, bool keep)
{
    if (t == NULL) return;
    (void)shoal__team_gpu_quiesce(t, "shoal_team_destroy"); /* its event, after its GPU work */
    if (mpi && t->owns_comm) {
        if (t->leader != MPI_COMM_NULL) MPI_Comm_free(&t->leader);
        if (t->comm != MPI_COMM_NULL) MPI_Comm_free(&t->comm);
    }
    free(t->pes);
    free(t->local);
    free(t->local_team);
    t->pes = t->local = t->local_team = NULL;
    t->magic = SHOAL__TEAM_DEAD;
    if (keep) {
        t->next = t->sh->dead_teams;
        t->sh->dead_teams = t;
    } else
        free(t);
}
static void shoal__team_free(struct shoal_team *t, bool mpi) { shoal__team_release(t, mpi, false); }

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

/* Init (every PE is here): world and node, on duplicates of the
 * instance's communicators (their meetings' MPI traffic must not match the
 * instance's own collectives); SHOAL_COLL must be one setting for all. */
int shoal__teams_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    struct shoal_team *w = shoal__team_alloc(sh, SHOAL__TEAM_ID_WORLD, sh->n_pes);
    struct shoal_team *nd = shoal__team_alloc(sh, SHOAL__TEAM_ID_NODE, sh->node_size);
    uint64_t vw[SHOAL__AGREE_N], vn[SHOAL__AGREE_N];
    int rc = SHOAL_SUCCESS, algo[2] = {sh->coll_algo, -sh->coll_algo}, all[2];

    if (w == NULL || nd == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for the world and node teams");
        goto fail;
    }
    for (int pe = 0; pe < sh->n_pes; pe++) w->pes[pe] = pe;
    memcpy(nd->pes, sh->node_pes, (size_t)sh->node_size * sizeof(int));
    w->owns_comm = nd->owns_comm = true;
    SHOAL__MPI_TRY(sh, call, rc, fail, MPI_Allreduce(algo, all, 2, MPI_INT, MPI_MAX, sh->comm));
    if (all[0] != -all[1]) {
        rc = shoal__error(sh, SHOAL_ERR_ENV, call,
                          "SHOAL_COLL differs between PEs: every PE must move a collective's data the same way");
        goto fail;
    }
    SHOAL__MPI_TRY(sh, call, rc, fail, MPI_Comm_dup(sh->comm, &w->comm));
    if (sh->leader_comm != MPI_COMM_NULL) SHOAL__MPI_TRY(sh, call, rc, fail, MPI_Comm_dup(sh->leader_comm, &w->leader));
    SHOAL__MPI_TRY(sh, call, rc, fail, MPI_Comm_dup(sh->node_comm, &nd->comm));
    SHOAL__TRY(rc, fail, shoal__team_fill(sh, w, call));
    SHOAL__TRY(rc, fail, shoal__team_fill(sh, nd, call));
    if (w->n_nodes < 2 && w->leader != MPI_COMM_NULL) MPI_Comm_free(&w->leader);
    shoal__team_agree_mine(sh, w, true, vw);
    shoal__team_agree_mine(sh, nd, true, vn);
    SHOAL__MPI_TRY(sh, call, rc, fail, MPI_Allreduce(MPI_IN_PLACE, vw, SHOAL__AGREE_N, MPI_UINT64_T, MPI_MAX, w->comm));
    SHOAL__MPI_TRY(sh, call, rc, fail,
                   MPI_Allreduce(MPI_IN_PLACE, vn, SHOAL__AGREE_N, MPI_UINT64_T, MPI_MAX, nd->comm));
    shoal__team_agree_take(sh, w, vw);
    shoal__team_agree_take(sh, nd, vn);
    shoal__team_link(sh, w);
    shoal__team_link(sh, nd);
    return SHOAL_SUCCESS;
fail:
    shoal__team_free(w, true);
    shoal__team_free(nd, true);
    return rc;
}

void shoal__teams_destroy(shoal_t sh, bool collective)
{
    struct shoal_team *t = sh->teams;
    while (t != NULL) {
        struct shoal_team *next = t->next;
        shoal__team_free(t, collective);
        t = next;
    }
    for (t = sh->dead_teams; t != NULL;) {
        struct shoal_team *next = t->next;
        free(t);
        t = next;
    }
    sh->teams = sh->dead_teams = NULL;
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
    int rc;

    if (all == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    all[parent->n_pes] = *mine; /* the send buffer lives with the receive buffer */
    rc = MPI_Iallgather(&all[parent->n_pes], (int)sizeof(*mine), MPI_BYTE, all, (int)sizeof(*mine), MPI_BYTE,
                        parent->comm, &req);
    if (rc != MPI_SUCCESS) {
        free(all);
        return shoal__mpi_error(sh, call, "MPI_Iallgather", rc);
    }
    rc = shoal__wait_mpi(sh, &req, all);
    if (rc == SHOAL_ERR_MPI) return shoal__error(sh, rc, call, "MPI_Test failed gathering the split's arguments");
    if (rc != SHOAL_SUCCESS) {
        parent->broken = true;
        return shoal__error(sh, rc, call,
                            "timed out after %g s waiting for the parent team's %d PEs to call it: every PE of "
                            "the parent must call the split, with the same arguments",
                            sh->cfg.timeout, parent->n_pes);
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

/* The lowest team id free on every PE of color c (colors[p] of each parent
 * PE), not among those in skip[p] of any of them (NULL: none); -1 if none. */
static int shoal__split_id(const shoal__split_arg_t *all, const int *colors, int n, int c, const uint64_t *skip)
{
    uint64_t used = ((uint64_t)1 << SHOAL__TEAM_ID_WORLD) | ((uint64_t)1 << SHOAL__TEAM_ID_NODE);
    for (int p = 0; p < n; p++)
        if (colors[p] == c) used |= all[p].ids | (skip ? skip[p] : 0);
    for (int id = 0; id < SHOAL_TEAM_MAX; id++)
        if (!(used & ((uint64_t)1 << id))) return id;
    return -1;
}

/* Make this PE's team from comm (its members, numbered in comm's order),
 * with team id id; the team owns comm from here (freed with it, or here
 * where no team was made). Collective over comm; a local failure is not
 * returned here but in *ok_p (false on every member once they agreed: the
 * agreement is the last step), so that every member still takes part in
 * the MPI calls that follow; *mine_p (where not NULL): this PE's own part
 * succeeded (its error is recorded otherwise). */
static void shoal__team_build(shoal_t sh, const char *call, MPI_Comm comm, int id, struct shoal_team **t_p, bool *ok_p,
                              bool *mine_p)
{
    MPI_Group g = MPI_GROUP_NULL, gw = MPI_GROUP_NULL;
    struct shoal_team *t = NULL;
    int rc, n = 0, *ranks = NULL, lead_color = MPI_UNDEFINED;
    bool ok = true;

    if (MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN) != MPI_SUCCESS || MPI_Comm_size(comm, &n) != MPI_SUCCESS)
        ok = false;
    t = ok ? shoal__team_alloc(sh, id, n) : NULL;
    ranks = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    if (t == NULL || ranks == NULL) {
        if (ok) shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for a team of %d PEs", n);
        ok = false;
    }
    if (ok) {
        for (int i = 0; i < n; i++) ranks[i] = i;
        ok = MPI_Comm_group(comm, &g) == MPI_SUCCESS && MPI_Comm_group(sh->comm, &gw) == MPI_SUCCESS &&
             MPI_Group_translate_ranks(g, n, ranks, gw, t->pes) == MPI_SUCCESS;
        if (!ok) shoal__error(sh, SHOAL_ERR_MPI, call, "cannot number the new team's PEs");
    }
    if (ok) ok = shoal__team_fill(sh, t, call) == SHOAL_SUCCESS;
    /* Zeroed before the members agree: no member's first barrier on the
     * GPU writes into words still to be zeroed. */
    if (ok) ok = shoal__team_gpu_reset(t, call) == SHOAL_SUCCESS;
    if (ok && t->n_nodes > 1 && t->local[0] == sh->node_rank) lead_color = 0;
    if (t != NULL) {
        t->comm = comm;
        t->owns_comm = true;
        comm = MPI_COMM_NULL;
    }
    /* Every member, whatever happened here: the leaders' communicator. */
    if (MPI_Comm_split(t != NULL ? t->comm : comm, lead_color, t != NULL ? t->my_pe : 0,
                       t != NULL ? &t->leader : &(MPI_Comm){MPI_COMM_NULL}) != MPI_SUCCESS) {
        if (ok) shoal__error(sh, SHOAL_ERR_MPI, call, "cannot make the new team's leaders' communicator");
        ok = false;
    }
    if (ok && t->leader != MPI_COMM_NULL) MPI_Comm_set_errhandler(t->leader, MPI_ERRORS_RETURN);
    if (mine_p != NULL) *mine_p = ok;
    {
        uint64_t v[SHOAL__AGREE_N];
        shoal__team_agree_mine(sh, t, ok, v);
        rc = shoal__team_allmax(sh, call, t != NULL ? t->comm : comm, v, SHOAL__AGREE_N);
        if (rc != SHOAL_SUCCESS || v[SHOAL__AGREE_FAIL]) ok = false;
        if (ok) shoal__team_agree_take(sh, t, v);
    }
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    if (g != MPI_GROUP_NULL) MPI_Group_free(&g);
    if (gw != MPI_GROUP_NULL) MPI_Group_free(&gw);
    free(ranks);
    *t_p = t;
    *ok_p = ok;
}

/* Make this PE's team of a split: the parent's PEs of my color
 * (MPI_UNDEFINED: none), in parent order, with team id id. Collective over
 * the parent; a local failure is not returned here but in *ok_p (false),
 * so that every member still takes part in the MPI calls that follow. */
static void shoal__split_make(shoal_team_t parent, const char *call, int color, int id, struct shoal_team **t_p,
                              bool *ok_p)
{
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = MPI_Comm_split(parent->comm, color, parent->my_pe, &comm);

    *t_p = NULL;
    *ok_p = rc == MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        shoal__mpi_error(parent->sh, call, "MPI_Comm_split", rc);
    else if (comm != MPI_COMM_NULL)
        shoal__team_build(parent->sh, call, comm, id, t_p, ok_p, NULL);
}

/* Every parent PE made its teams of the split? Bounded; on failure every PE
 * frees what it made, and says why (this PE's error, or another PE's). */
static int shoal__split_finish(shoal_team_t parent, const char *call, struct shoal_team **teams, int n, bool ok,
                               shoal_team_t *outs)
{
    shoal_t sh = parent->sh;
    uint64_t fail = !ok;
    char mine[sizeof(sh->err)];
    int rc;

    snprintf(mine, sizeof(mine), "%s", ok ? "" : shoal_last_error(sh));
    rc = shoal__team_allmax(sh, call, parent->comm, &fail, 1);
    if (rc == SHOAL_SUCCESS && !fail) {
        for (int k = 0; k < n; k++) {
            if (teams[k] != NULL) shoal__team_link(sh, teams[k]);
            outs[k] = teams[k];
        }
        return SHOAL_SUCCESS;
    }
    for (int k = 0; k < n; k++) shoal__team_free(teams[k], rc == SHOAL_SUCCESS);
    if (rc != SHOAL_SUCCESS) {
        parent->broken = true;
        return rc;
    }
    if (!ok) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, NULL, "%s; no team was made", mine);
    return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                        "another PE of the parent team could not make its part of the new team (its own error says "
                        "why); no team was made");
}

int shoal__team_split_strided(shoal_team_t parent, int start, int stride, int size, shoal_team_t *new_p)
{
    static const char *call = "shoal_team_split_strided";
    static const char *const names[3] = {"start", "stride", "size"};
    shoal_t sh = parent->sh;
    shoal__split_arg_t mine = {.a = {start, stride, size}, .ids = sh->team_ids}, *all = NULL;
    struct shoal_team *t = NULL;
    int rc, id, *colors = NULL;
    bool ok = true;

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
    colors = malloc((size_t)parent->n_pes * sizeof(int));
    if (colors == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        goto out;
    }
    for (int p = 0; p < parent->n_pes; p++) {
        long long d = (long long)p - start;
        colors[p] =
            (stride != 0 ? d % stride == 0 && d / stride >= 0 && d / stride < size : d == 0) ? 0 : MPI_UNDEFINED;
    }
    /* An id free on every member (slots and GPU words are per PE). */
    id = shoal__split_id(all, colors, parent->n_pes, 0, NULL);
    if (id < 0) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                          "a PE of the new team is in %d teams already (SHOAL_TEAM_MAX): destroy some first",
                          SHOAL_TEAM_MAX);
        goto out;
    }
    shoal__split_make(parent, call, colors[parent->my_pe], id, &t, &ok);
    rc = shoal__split_finish(parent, call, &t, 1, ok, new_p);
out:
    free(colors);
    free(all);
    return rc;
}

int shoal__team_split_2d(shoal_team_t parent, int xrange, shoal_team_t *xteam_p, shoal_team_t *yteam_p)
{
    static const char *call = "shoal_team_split_2d";
    static const char *const names[3] = {"xrange", "", ""};
    shoal_t sh = parent->sh;
    shoal__split_arg_t mine = {.a = {xrange, 0, 0}, .ids = sh->team_ids}, *all = NULL;
    struct shoal_team *made[2] = {NULL, NULL};
    shoal_team_t outs[2] = {SHOAL_TEAM_INVALID, SHOAL_TEAM_INVALID};
    int rc, n = parent->n_pes, *xc = NULL, *yc = NULL, xid = -1, yid = -1;
    uint64_t *xskip = NULL;
    bool okx = true, oky = true;

    *xteam_p = *yteam_p = SHOAL_TEAM_INVALID;
    if (parent->broken)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call, "an earlier collective on the parent team failed midway");
    SHOAL__TRY(rc, out, shoal__split_gather(parent, call, &mine, &all));
    SHOAL__TRY(rc, out, shoal__split_agree(parent, call, all, names, 1));
    if (xrange < 1) {
        rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "xrange %d: a row holds at least 1 PE", xrange);
        goto out;
    }
    if (xrange > n) xrange = n; /* one row: OpenSHMEM clamps */
    xc = malloc((size_t)n * sizeof(int));
    yc = malloc((size_t)n * sizeof(int));
    xskip = calloc((size_t)n, sizeof(uint64_t));
    if (xc == NULL || yc == NULL || xskip == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        goto out;
    }
    for (int p = 0; p < n; p++) {
        xc[p] = p / xrange;
        yc[p] = p % xrange;
    }
    /* Each row an id free on its members; each column one free on its
     * members and apart from their rows' ids. Every PE finds the same. */
    for (int p = 0; p < n; p++) {
        int id = shoal__split_id(all, xc, n, xc[p], NULL);
        if (id < 0) break;
        xskip[p] = (uint64_t)1 << id;
        if (p == parent->my_pe) xid = id;
    }
    for (int c = 0; c < xrange; c++) {
        int id = shoal__split_id(all, yc, n, c, xskip);
        if (id < 0) {
            xid = -1;
            break;
        }
        if (c == yc[parent->my_pe]) yid = id;
    }
    {
        /* The same verdict everywhere: is there an id for every row and column? */
        bool all_ids = true;
        for (int p = 0; p < n && all_ids; p++) all_ids = shoal__split_id(all, xc, n, xc[p], NULL) >= 0;
        for (int c = 0; c < xrange && all_ids; c++) all_ids = shoal__split_id(all, yc, n, c, xskip) >= 0;
        if (!all_ids) {
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                              "a PE of the new teams is in too many teams already (SHOAL_TEAM_MAX %d, a row's and a "
                              "column's included): destroy some first",
                              SHOAL_TEAM_MAX);
            goto out;
        }
    }
    shoal__split_make(parent, call, xc[parent->my_pe], xid, &made[0], &okx);
    shoal__split_make(parent, call, yc[parent->my_pe], yid, &made[1], &oky);
    rc = shoal__split_finish(parent, call, made, 2, okx && oky, outs);
    *xteam_p = outs[0];
    *yteam_p = outs[1];
out:
    free(xc);
    free(yc);
    free(xskip);
    free(all);
    return rc;
}

/* shoal_team_create_strided: a team that its members make alone (nobody
 * else takes part, so no parent's communicator serves). The members first
 * meet by messages on the world team's communicator: each sends its
 * arguments and the team ids it uses to the lowest member, which waits for
 * every one of them (bounded by SHOAL_TIMEOUT), compares, takes the lowest
 * id free on every member and answers each (a member waits twice as long:
 * the lowest member may come late and still wait its own time). An id free
 * on every member may be in use by PEs outside the team: a team's slots in
 * the node's control window are one per (id, node rank), written by that
 * PE for the team it holds under the id and read by that team's node
 * leaders; its GPU flags are words of each member's own control area,
 * written by that team's members only. A PE holds one team per id, so
 * teams without a common PE never touch each other's words. Then the
 * members make the communicator (MPI_Comm_create_group: collective over
 * them only) and the team, as a split does. */
#define SHOAL__TAG_TEAM_CREATE 0x5f2       /* a member's arguments, to the lowest member */
#define SHOAL__TAG_TEAM_CREATE_REPLY 0x5f3 /* the lowest member's answer */
#define SHOAL__TAG_TEAM_CREATE_COMM 0x5f4  /* MPI_Comm_create_group */

/* The lowest member's answer. */
typedef struct shoal__create_reply {
    int64_t status;  /* SHOAL_SUCCESS, or what every member returns */
    int64_t id;      /* the new team's id */
    int64_t pe;      /* the member whose arguments differ, or the first that never came; -1: none */
    int64_t missing; /* members that never came (-1: the lowest member never answered) */
    int64_t a[3];    /* pe's arguments (a mismatch) */
    int64_t lead[3]; /* the lowest member's */
} shoal__create_reply_t;

/* Has a wait begun at start passed scale * SHOAL_TIMEOUT? */
static bool shoal__create_late(shoal_t sh, double start, double scale)
{
    return sh->cfg.timeout > 0 && shoal__now() - start > sh->cfg.timeout * scale;
}

/* The lowest member: gather the others' arguments, decide, answer. */
static void shoal__create_lead(shoal_t sh, MPI_Comm wc, const int *pes, int n, const shoal__split_arg_t *mine,
                               shoal__create_reply_t *r)
{
    shoal__split_arg_t **got = calloc((size_t)n, sizeof(*got));
    MPI_Request *req = malloc((size_t)n * sizeof(*req));
    uint64_t used = ((uint64_t)1 << SHOAL__TEAM_ID_WORLD) | ((uint64_t)1 << SHOAL__TEAM_ID_NODE) | mine->ids;
    double start = shoal__now();
    unsigned spins = 0, polls = 0;

    memset(r, 0, sizeof(*r));
    r->pe = -1;
    memcpy(r->lead, mine->a, sizeof(r->lead));
    if (got == NULL || req == NULL) {
        r->status = SHOAL_ERR_NO_MEMORY;
        n = 1; /* nobody to wait for or answer */
    }
    for (int k = 1; k < n; k++) {
        req[k] = MPI_REQUEST_NULL;
        got[k] = malloc(sizeof(*got[k]));
        if (got[k] == NULL)
            r->status = SHOAL_ERR_NO_MEMORY;
        else if (MPI_Irecv(got[k], (int)sizeof(*got[k]), MPI_BYTE, pes[k], SHOAL__TAG_TEAM_CREATE, wc, &req[k]) !=
                 MPI_SUCCESS)
            r->status = SHOAL_ERR_MPI;
    }
    for (bool late = false;;) {
        int pending = 0;
        for (int k = 1; k < n; k++) {
            int done = 0;
            if (req[k] == MPI_REQUEST_NULL) continue;
            if (MPI_Test(&req[k], &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
                r->status = SHOAL_ERR_MPI;
                done = 1;
            }
            pending += !done;
        }
        if (pending == 0 || late) break;
        late = (++polls & 255u) == 0 && shoal__create_late(sh, start, 1.0);
        shoal__wait_progress(sh, &spins);
    }
    for (int k = 1; k < n; k++) {
        if (req[k] == MPI_REQUEST_NULL) continue;
        /* Never came: its buffer stays MPI's (a late message may still land). */
        MPI_Cancel(&req[k]);
        shoal__abandon(sh, req[k], got[k]);
        got[k] = NULL;
        if (r->missing++ == 0) r->pe = pes[k];
        if (r->status == SHOAL_SUCCESS) r->status = SHOAL_ERR_TIMEOUT;
    }
    for (int k = 1; k < n && r->status == SHOAL_SUCCESS; k++) {
        if (memcmp(got[k]->a, mine->a, sizeof(mine->a)) != 0) {
            r->status = SHOAL_ERR_NOT_SYMMETRIC;
            r->pe = pes[k];
            memcpy(r->a, got[k]->a, sizeof(r->a));
        }
        used |= got[k]->ids;
    }
    r->id = -1;
    for (int id = 0; id < SHOAL_TEAM_MAX && r->id < 0; id++)
        if (!(used & ((uint64_t)1 << id))) r->id = id;
    if (r->status == SHOAL_SUCCESS && r->id < 0) r->status = SHOAL_ERR_NO_MEMORY;
    /* Answer every member that came (small messages: sent at once). */
    for (int k = 1; k < n; k++) {
        shoal__create_reply_t *copy = got[k] != NULL ? malloc(sizeof(*copy)) : NULL;
        MPI_Request sreq;
        if (copy == NULL) continue; /* that member times out */
        *copy = *r;
        if (MPI_Isend(copy, (int)sizeof(*copy), MPI_BYTE, pes[k], SHOAL__TAG_TEAM_CREATE_REPLY, wc, &sreq) !=
            MPI_SUCCESS)
            free(copy);
        else if (shoal__wait_mpi(sh, &sreq, copy) == SHOAL_SUCCESS)
            free(copy);
    }
    for (int k = 1; k < n; k++) free(got[k]);
    free(got);
    free(req);
}

/* Another member: send my arguments to the lowest member, wait for its answer. */
static void shoal__create_join(shoal_t sh, MPI_Comm wc, int lead, const shoal__split_arg_t *mine,
                               shoal__create_reply_t *r)
{
    struct {
        shoal__split_arg_t arg;
        shoal__create_reply_t reply;
    } *buf = malloc(sizeof(*buf));
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    double start = shoal__now();
    unsigned spins = 0, polls = 0;
    int done = 0;

    memset(r, 0, sizeof(*r));
    r->pe = -1;
    memcpy(r->lead, mine->a, sizeof(r->lead)); /* (what this PE says of the lowest member's, without its answer) */
    if (buf == NULL) {
        r->status = SHOAL_ERR_NO_MEMORY;
        return;
    }
    buf->arg = *mine;
    if (MPI_Irecv(&buf->reply, (int)sizeof(buf->reply), MPI_BYTE, lead, SHOAL__TAG_TEAM_CREATE_REPLY, wc, &req[1]) !=
            MPI_SUCCESS ||
        MPI_Isend(&buf->arg, (int)sizeof(buf->arg), MPI_BYTE, lead, SHOAL__TAG_TEAM_CREATE, wc, &req[0]) !=
            MPI_SUCCESS) {
        r->status = SHOAL_ERR_MPI;
        if (req[1] != MPI_REQUEST_NULL) {
            MPI_Cancel(&req[1]);
            shoal__abandon(sh, req[1], buf);
        } else
            free(buf);
        return;
    }
    while (!done) {
        int sent = 0, got = 0;
        if (MPI_Test(&req[0], &sent, MPI_STATUS_IGNORE) != MPI_SUCCESS ||
            MPI_Test(&req[1], &got, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
            r->status = SHOAL_ERR_MPI;
            break;
        }
        done = sent && got;
        if (!done && (++polls & 255u) == 0 && shoal__create_late(sh, start, 2.0)) {
            r->status = SHOAL_ERR_TIMEOUT;
            r->missing = -1;
            r->pe = lead;
            break;
        }
        if (!done) shoal__wait_progress(sh, &spins);
    }
    if (!done) {
        /* Given up: the buffers stay MPI's. */
        if (req[1] != MPI_REQUEST_NULL) MPI_Cancel(&req[1]);
        shoal__abandon(sh, req[0], NULL);
        shoal__abandon(sh, req[1], buf);
        return;
    }
    *r = buf->reply;
    free(buf);
}

/* What the members learned, as this PE's error (the same on each). */
static int shoal__create_say(shoal_t sh, const char *call, const shoal__create_reply_t *r, int lead)
{
    const int64_t *a = r->lead;

    switch (r->status) {
    case SHOAL_ERR_TIMEOUT:
        if (r->missing < 0)
            return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                                "timed out after %g s waiting for the new team's lowest member, PE %d, to call it: "
                                "every member of the new team must call %s with the same arguments",
                                2 * sh->cfg.timeout, lead, call);
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "timed out after %g s: PE %lld%s of the new team (start %lld, stride %lld, size %lld) "
                            "never called it; every member must call %s with the same arguments; no team was made",
                            sh->cfg.timeout, (long long)r->pe, r->missing > 1 ? " and others" : "", (long long)a[0],
                            (long long)a[1], (long long)a[2], call);
    case SHOAL_ERR_NOT_SYMMETRIC:
        return shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                            "the members passed different arguments (PE %d, the lowest member: start %lld, stride "
                            "%lld, size %lld; PE %lld: start %lld, stride %lld, size %lld); every member must pass the "
                            "same; no team was made",
                            lead, (long long)a[0], (long long)a[1], (long long)a[2], (long long)r->pe,
                            (long long)r->a[0], (long long)r->a[1], (long long)r->a[2]);
    case SHOAL_ERR_NO_MEMORY:
        if (r->id < 0)
            return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                                "no team id is free on every member (SHOAL_TEAM_MAX %d teams a PE, world and node "
                                "included): destroy some first; no team was made",
                                SHOAL_TEAM_MAX);
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory agreeing on a new team");
    default:
        return shoal__error(sh, (int)r->status, call, "the members could not agree on a new team through MPI (%s)",
                            shoal_strerror((int)r->status));
    }
}

int shoal__team_create_strided(shoal_t sh, int start, int stride, int size, shoal_team_t *new_p)
{
    static const char *call = "shoal_team_create_strided";
    shoal_team_t w = shoal__team_world(sh);
    shoal__split_arg_t mine = {.a = {start, stride, size}, .ids = sh->team_ids};
    shoal__create_reply_t r;
    struct shoal_team *t = NULL;
    MPI_Group gw = MPI_GROUP_NULL, g = MPI_GROUP_NULL;
    MPI_Comm comm = MPI_COMM_NULL;
    int rc = SHOAL_SUCCESS, *pes = NULL, me = -1;
    bool ok = false, mine_ok = false;

    *new_p = SHOAL_TEAM_INVALID;
    if (sh->broken || w->broken)
        return shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                            "an earlier collective failed midway, so the PEs are out of step; only shoal_finalize is "
                            "possible");
    /* Checked here alone: a PE with other arguments is told by the lowest member. */
    if (size < 1 || size > sh->n_pes || start < 0 || start >= sh->n_pes || (size > 1 && stride < 1) ||
        (long long)start + (long long)(size - 1) * (size > 1 ? stride : 0) >= sh->n_pes)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "start %d, stride %d, size %d do not name %d PEs of the instance (PEs 0 to %d, stride at "
                            "least 1)",
                            start, stride, size, size, sh->n_pes - 1);
    if (size == 1) stride = 1; /* one PE: any stride names it */
    if (sh->my_pe >= start && (sh->my_pe - start) % stride == 0 && (sh->my_pe - start) / stride < size)
        me = (sh->my_pe - start) / stride;
    if (me < 0)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "PE %d is not one of the PEs start %d, stride %d, size %d: only the new team's members "
                            "call it",
                            sh->my_pe, start, stride, size);
    pes = malloc((size_t)size * sizeof(int));
    if (pes == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for a team of %d PEs", size);
    for (int i = 0; i < size; i++) pes[i] = start + i * stride;
    if (me == 0)
        shoal__create_lead(sh, w->comm, pes, size, &mine, &r);
    else
        shoal__create_join(sh, w->comm, pes[0], &mine, &r);
    if (r.status != SHOAL_SUCCESS) {
        rc = shoal__create_say(sh, call, &r, pes[0]);
        goto out;
    }
    /* Every member agreed and is here: this collective of the members alone ends soon. */
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_group(w->comm, &gw));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Group_incl(gw, size, pes, &g));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Comm_create_group(w->comm, g, SHOAL__TAG_TEAM_CREATE_COMM, &comm));
    shoal__team_build(sh, call, comm, (int)r.id, &t, &ok, &mine_ok);
    comm = MPI_COMM_NULL; /* the team's, or freed */
    if (ok) {
        shoal__team_link(sh, t);
        *new_p = t;
    } else {
        shoal__team_free(t, true);
        rc = mine_ok ? SHOAL_SUCCESS : shoal_last_status(sh);
        if (rc == SHOAL_SUCCESS)
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                              "another member could not make its part of the new team (its own error says why); no "
                              "team was made");
    }
out:
    if (g != MPI_GROUP_NULL) MPI_Group_free(&g);
    if (gw != MPI_GROUP_NULL) MPI_Group_free(&gw);
    free(pes);
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
    /* This PE's GPU work of the team is done (its flags and id may serve
     * the next team); then members meet: nobody frees the team's
     * communicators while a member still uses them. A failed meeting frees
     * this PE's memory only. */
    rc = shoal__team_gpu_quiesce(t, call);
    if (rc != SHOAL_SUCCESS)
        rc = shoal__coll_fail(t, call, SHOAL__TC_KIND(SHOAL__TC_DESTROY, 0, 0), 0, 0, rc);
    else
        rc = shoal__team_meet(t, call, SHOAL__TC_KIND(SHOAL__TC_DESTROY, 0, 0), 0, 0);
    /* Nobody leaves before every member has read the meeting's release:
     * the id may serve a team of other PEs next (one its members make
     * alone waits for none of these), whose first meeting rewrites the
     * node leader's slot. */
    if (rc == SHOAL_SUCCESS && t->n_pes > 1) {
        MPI_Request req;
        rc = MPI_Ibarrier(t->comm, &req) == MPI_SUCCESS ? shoal__wait_mpi(sh, &req, NULL) : SHOAL_ERR_MPI;
        if (rc != SHOAL_SUCCESS) {
            t->broken = true;
            rc = shoal__error(sh, rc, call, "the members could not leave the team together (MPI_Ibarrier: %s)",
                              shoal_strerror(rc));
        }
    }
    for (p = &sh->teams; *p != NULL && *p != t; p = &(*p)->next) continue;
    if (*p == t) *p = t->next;
    sh->team_ids &= ~((uint64_t)1 << t->id);
    shoal__team_release(t, rc == SHOAL_SUCCESS && !t->broken, true);
    return rc;
}
