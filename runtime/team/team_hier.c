/* Reductions of teams that span nodes, on host heaps: the node's leader
 * (its lowest member) combines the node's members' src through shared
 * memory, the leaders combine their nodes' results with one non-blocking
 * MPI allreduce (bounded by SHOAL_TIMEOUT), and each leader stores the
 * result into its node's members' dest. Data crosses the network once per
 * node, instead of once per pair of members. MPI reduces with an operator
 * of shoal's own over a byte type that carries the element type and the
 * operator as an attribute, so every type and operator of the host path
 * (complex, long double) takes the same road. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "team/shoal_reduce.h"
#include "team/shoal_team.h"

/* What the byte type of a reduction carries: shoal's element type and operator. */
typedef struct shoal__hier_what {
    int dt, op;
    size_t n; /* elements in one block */
} shoal__hier_what_t;

static pthread_once_t shoal__hier_once = PTHREAD_ONCE_INIT;
static MPI_Op shoal__hier_op = MPI_OP_NULL;
static int shoal__hier_key = MPI_KEYVAL_INVALID;

static void shoal__hier_apply(void *in, void *inout, int *len, MPI_Datatype *type)
{
    shoal__hier_what_t *w = NULL;
    int found = 0;

    if (MPI_Type_get_attr(*type, shoal__hier_key, &w, &found) != MPI_SUCCESS || !found || w == NULL) return;
    /* one element of the byte type holds the whole block: len counts blocks */
    (void)shoal__reduce_apply(w->dt, w->op, inout, in, (size_t)*len * w->n);
}

static void shoal__hier_init(void)
{
    if (MPI_Op_create(shoal__hier_apply, 1, &shoal__hier_op) != MPI_SUCCESS) shoal__hier_op = MPI_OP_NULL;
    if (MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &shoal__hier_key, NULL) != MPI_SUCCESS)
        shoal__hier_key = MPI_KEYVAL_INVALID;
}

bool shoal__reduce_hier_ok(shoal_team_t t)
{
    return t->n_nodes > 1 && t->ls_local && t->sh->heap_kind == SHOAL_HEAP_HOST;
}

/* pe's copy of my symmetric address p (a member of my node). */
static inline char *shoal__hier_addr(shoal_t sh, const void *p, int pe)
{
    return sh->peer_base[pe] + ((const char *)p - sh->heap_base);
}

int shoal__reduce_hier(shoal_team_t t, const char *call, int dt, int op, void *dest, const void *src, size_t n)
{
    shoal_t sh = t->sh;
    size_t es = shoal__dt_size(dt), bytes = n * es;
    shoal__hier_what_t what = {dt, op, n};
    MPI_Datatype block = MPI_DATATYPE_NULL;
    MPI_Request req;
    char *part = NULL;
    int rc = SHOAL_SUCCESS;

    if (t->local[0] != sh->node_rank || bytes == 0) return SHOAL_SUCCESS; /* the leader works; the others wait */
    pthread_once(&shoal__hier_once, shoal__hier_init);
    if (shoal__hier_op == MPI_OP_NULL || shoal__hier_key == MPI_KEYVAL_INVALID)
        return shoal__error(sh, SHOAL_ERR_MPI, call, "cannot create the MPI operator of shoal's reductions");
    if (bytes > (size_t)INT32_MAX)
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                            "a reduction of %zu bytes across nodes: at most 2 GiB a call (one MPI block)", bytes);
    /* part: twice the bytes, the send half and the receive half (a
     * request abandoned at a timeout keeps both). */
    part = malloc(2 * bytes);
    if (part == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory for %zu bytes", 2 * bytes);
    memcpy(part, shoal__hier_addr(sh, src, t->pes[t->local_team[0]]), bytes);
    for (int k = 1; k < t->n_local; k++)
        (void)shoal__reduce_apply(dt, op, part, shoal__hier_addr(sh, src, t->pes[t->local_team[k]]), n);

    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Type_contiguous((int)bytes, MPI_BYTE, &block));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Type_commit(&block));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Type_set_attr(block, shoal__hier_key, &what));
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Iallreduce(part, part + bytes, 1, block, shoal__hier_op, t->leader, &req));
    rc = shoal__wait_mpi(sh, &req, part);
    if (rc != SHOAL_SUCCESS) {
        part = NULL; /* freed, or MPI's */
        t->broken = true;
        rc = rc == SHOAL_ERR_MPI ? shoal__error(sh, rc, call, "MPI_Test failed combining the nodes' results")
                                 : shoal__error(sh, rc, call,
                                                "timed out after %g s combining the %d nodes' results of a reduction "
                                                "(another node's leader stopped answering); the team can only be "
                                                "destroyed now",
                                                sh->cfg.timeout, t->n_nodes);
        goto out;
    }
    for (int k = 0; k < t->n_local; k++)
        memcpy(shoal__hier_addr(sh, dest, t->pes[t->local_team[k]]), part + bytes, bytes);
out:
    if (block != MPI_DATATYPE_NULL) MPI_Type_free(&block);
    free(part);
    return rc;
}
