/* The transport registry and selection: one list of tables, one loop that
 * asks the topology policy for each pair's candidates and takes the first
 * that connects, and the loops that quiet, sync and tear down whatever was
 * set up. */
#include <stdlib.h>
#include <string.h>

#include "topo_policy.h"
#include "transport/transport.h"
#include "heap/shoal_heap.h"
#include "heap/shoal_register.h"

/* Every table, in the policy's order of preference (transport id order);
 * within a heap kind, one table per id. */
static const shoal__tp_ops_t *const shoal__tp_registry[] = {
    &shoal__tp_self_host, /* self.c */
#if SHOAL_HAVE_CUDA
    &shoal__tp_self_gpu, /* self.c */
    &shoal__tp_cuda_ipc, /* cuda_ipc.c */
#endif
    &shoal__tp_shm, /* shm.c */
#if SHOAL_HAVE_CUDA
    &shoal__tp_staged, /* staged.c */
#endif
    &shoal__tp_mpi_rma, /* mpi_rma.c */
#if SHOAL_HAVE_CUDA
    &shoal__tp_staged_mpi, /* staged_mpi.c */
#endif
};
#define SHOAL__TP_REGISTRY_N (sizeof(shoal__tp_registry) / sizeof(shoal__tp_registry[0]))

bool shoal__tp_candidate(shoal_t sh, int pe, shoal_transport_id_t id)
{
    return sh->pe_cands != NULL && (sh->pe_cands[pe] & (1u << id)) != 0;
}

/* Where the policy sees this PE and pe: node, heap kind and, where the
 * policy needs the GPU path (a GPU heap with SHOAL_P2P_LEVEL below SYS),
 * the GPUs' places in the loaded topology. */
static int shoal__tp_place(shoal_t sh, int pe, shoal_topo_place_t *place_p)
{
    place_p->pe = pe;
    place_p->node = sh->pe_node[pe];
    place_p->gpu = -1;
    if (sh->heap_kind != SHOAL_HEAP_GPU) return SHOAL_SUCCESS;
    place_p->gpu = 0; /* a GPU heap; which GPU matters only with a topology */
    if (sh->topo == NULL || sh->pe_node[pe] != sh->node_id) return SHOAL_SUCCESS;
    {
        const char *bus = shoal__gpu_bus_id(sh, pe);
        int g = bus != NULL ? shoal_topo_gpu_find(sh->topo, bus) : -1;
        if (g < 0)
            return shoal__error(sh, SHOAL_ERR_TOPOLOGY, "shoal_init",
                                "PE %d's GPU %s is not in the topology (SHOAL_P2P_LEVEL=%s needs its path): %s", pe,
                                bus != NULL ? bus : "(unknown)", shoal_path_name(sh->p2p_level),
                                shoal_topo_last_error());
        place_p->gpu = g;
    }
    return SHOAL_SUCCESS;
}

/* Every pair's candidates, as the policy lists them (shoal-topo shows the
 * first). A GPU heap below SHOAL_P2P_LEVEL=SYS needs the GPUs' paths: the
 * topology is loaded then (live, or SHOAL_TOPO_FILE). */
static int shoal__tp_candidates(shoal_t sh)
{
    static const char *call = "shoal_init";
    shoal_topo_policy_t policy = {.p2p_level = sh->p2p_level, .disabled = sh->disabled};
    shoal_topo_place_t me, peer;
    int rc = SHOAL_SUCCESS;

    sh->pe_cands = calloc((size_t)sh->n_pes, sizeof(*sh->pe_cands));
    if (sh->pe_cands == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    /* Only cuda_ipc cares about the path (staged takes any pair). */
    if (sh->heap_kind == SHOAL_HEAP_GPU && sh->p2p_level < SHOAL_PATH_SYS && sh->node_size > 1 &&
        !(sh->disabled & (1u << SHOAL_TRANSPORT_CUDA_IPC))) {
        if (shoal_topo_load(NULL, &sh->topo) != SHOAL_SUCCESS)
            return shoal__error(sh, SHOAL_ERR_TOPOLOGY, call, "SHOAL_P2P_LEVEL needs the topology: %s",
                                shoal_topo_last_error());
        if (*shoal_topo_warning(sh->topo))
            SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_TOPO, "SHOAL_P2P_LEVEL: %s", shoal_topo_warning(sh->topo));
    }
    SHOAL__TRY(rc, out, shoal__tp_place(sh, sh->my_pe, &me));
    for (int pe = 0; pe < sh->n_pes; pe++) {
        shoal_transport_id_t ids[SHOAL_TRANSPORT_COUNT];
        char why[384];
        int n = 0, prc;
        SHOAL__TRY(rc, out, shoal__tp_place(sh, pe, &peer));
        prc = shoal__topo_candidates(sh->topo, &policy, &me, &peer, ids, &n, why, sizeof(why));
        if (prc == SHOAL_ERR_UNSUPPORTED)
            return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                                "no transport reaches PE %d (node %d) from this %s heap: %s (SHOAL_TRANSPORT_DISABLE "
                                "is %s)",
                                pe, sh->pe_node[pe], sh->heap_kind == SHOAL_HEAP_GPU ? "GPU" : "host", why,
                                sh->heap_kind != SHOAL_HEAP_GPU ? "set; on one node a host heap needs shm or mpi_rma"
                                : sh->pe_node[pe] == sh->node_id
                                    ? "set; on one node a GPU heap needs cuda_ipc (peer access within "
                                      "SHOAL_P2P_LEVEL) or staged"
                                    : "set");
        if (prc != SHOAL_SUCCESS)
            return shoal__error(sh, SHOAL_ERR_INTERNAL, call, "the transport policy failed for PE %d: %s", pe,
                                shoal_topo_last_error());
        for (int i = 0; i < n; i++) sh->pe_cands[pe] |= 1u << ids[i];
        SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_INIT, "PE %d: policy: %s (%s first)", pe, why,
                   shoal_transport_name(ids[0]));
    }
out:
    return rc;
}

/* The candidates of pe, as "cuda_ipc, staged". */
static void shoal__tp_names(shoal_t sh, int pe, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int id = 0; id < SHOAL_TRANSPORT_COUNT && n < len; id++)
        if (shoal__tp_candidate(sh, pe, (shoal_transport_id_t)id))
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
                                  shoal_transport_name((shoal_transport_id_t)id));
}

/* Every atomic on one word must go one way. A transport whose atomics are
 * atomic only among themselves (SHOAL__TP_CAP_AMO_ALL: MPI's) takes every
 * pair's atomics once it is set up and reaches this PE's peers at all: its
 * setup is collective and agreed (a window where any PE needs it), so every
 * PE decides alike. Elsewhere a pair's atomics take its own transport. */
static int shoal__tp_amo_choose(shoal_t sh)
{
    const shoal__tp_ops_t *all = NULL;

    sh->pe_amo = calloc((size_t)sh->n_pes, sizeof(*sh->pe_amo));
    if (sh->pe_amo == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, "shoal_init", "out of memory");
    for (size_t i = 0; i < SHOAL__TP_REGISTRY_N && all == NULL; i++) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        if (tp->heap_kind == sh->heap_kind && (tp->caps & SHOAL__TP_CAP_AMO_ALL) && (sh->tp_setup & (1u << tp->id)) &&
            tp->connect(sh, sh->my_pe))
            all = tp;
    }
    for (int pe = 0; pe < sh->n_pes; pe++) sh->pe_amo[pe] = all != NULL ? all : sh->pe_tp[pe];
    if (all != NULL)
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_INIT, "atomics: every PE's through %s (some pair takes it)", all->name);
    return SHOAL_SUCCESS;
}

int shoal__transports_setup(shoal_t sh)
{
    static const char *call = "shoal_init";
    int rc = SHOAL_SUCCESS;

    /* Every PE runs every setup (they may be collective), even after its
     * own part failed: the error is agreed on afterwards. */
    sh->pe_tp = calloc((size_t)sh->n_pes, sizeof(*sh->pe_tp));
    if (sh->pe_tp == NULL) rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    if (rc == SHOAL_SUCCESS) rc = shoal__tp_candidates(sh);
    for (size_t i = 0; i < SHOAL__TP_REGISTRY_N; i++) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        bool need = false;
        if (tp->heap_kind != sh->heap_kind) continue;
        for (int pe = 0; rc == SHOAL_SUCCESS && pe < sh->n_pes; pe++)
            need = need || (sh->pe_tp[pe] == NULL && shoal__tp_candidate(sh, pe, tp->id));
        if (tp->setup != NULL) {
            int src = tp->setup(sh, need);
            if (src != SHOAL_SUCCESS && rc == SHOAL_SUCCESS) rc = src;
        }
        sh->tp_setup |= 1u << tp->id;
        for (int pe = 0; rc == SHOAL_SUCCESS && pe < sh->n_pes; pe++)
            if (sh->pe_tp[pe] == NULL && shoal__tp_candidate(sh, pe, tp->id) && tp->connect(sh, pe)) sh->pe_tp[pe] = tp;
    }
    for (int pe = 0; rc == SHOAL_SUCCESS && pe < sh->n_pes; pe++) {
        if (sh->pe_tp[pe] == NULL) {
            char names[96];
            shoal__tp_names(sh, pe, names, sizeof(names));
            return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                                "no transport reaches PE %d (node %d) from this %s heap: the policy allows %s, and "
                                "none connected%s",
                                pe, sh->pe_node[pe], sh->heap_kind == SHOAL_HEAP_GPU ? "GPU" : "host", names,
                                shoal__tp_candidate(sh, pe, SHOAL_TRANSPORT_CUDA_IPC)
                                    ? " (cuda_ipc needs CUDA peer access between the two GPUs)"
                                : sh->heap_kind == SHOAL_HEAP_GPU && sh->pe_node[pe] != sh->node_id
                                    ? " (the staging rings that carry mpi_rma to GPU heaps of other nodes are "
                                      "missing)"
                                    : "");
        }
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_INIT, "PE %d -> %s", pe, sh->pe_tp[pe]->name);
    }
    if (rc == SHOAL_SUCCESS) rc = shoal__tp_amo_choose(sh);
    for (int pe = 0; rc == SHOAL_SUCCESS && pe < sh->n_pes; pe++)
        sh->tp_peers |= 1u << sh->pe_tp[pe]->id | (sh->pe_amo[pe] != NULL ? 1u << sh->pe_amo[pe]->id : 0u);
    return rc;
}

int shoal__transports_agree(shoal_t sh)
{
    unsigned mine = sh->tp_peers;
    int rc = MPI_Allreduce(&mine, &sh->tp_peers, 1, MPI_UNSIGNED, MPI_BOR, sh->comm);
    return rc == MPI_SUCCESS ? SHOAL_SUCCESS
                             : shoal__mpi_error(sh, "shoal_init", "MPI_Allreduce (the transports PEs use)", rc);
}

void shoal__transports_teardown(shoal_t sh)
{
    for (size_t i = SHOAL__TP_REGISTRY_N; i-- > 0;) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        if (tp->heap_kind != sh->heap_kind || !(sh->tp_setup & (1u << tp->id))) continue;
        if (tp->teardown != NULL) tp->teardown(sh);
    }
    sh->tp_setup = 0;
    sh->tp_peers = 0;
    if (sh->topo != NULL) shoal_topo_destroy(sh->topo);
    sh->topo = NULL;
    free(sh->pe_cands);
    sh->pe_cands = NULL;
    free(sh->pe_amo);
    sh->pe_amo = NULL;
}

int shoal__transports_quiet(shoal_t sh, const char *call, unsigned used)
{
    for (size_t i = 0; i < SHOAL__TP_REGISTRY_N; i++) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        int rc;
        if (tp->heap_kind != sh->heap_kind || !(used & (1u << tp->id))) continue;
        rc = tp->quiet(sh, call);
        if (rc < 0) return rc;
    }
    return SHOAL_SUCCESS;
}

int shoal__transports_sync(shoal_t sh, const char *call)
{
    for (size_t i = 0; i < SHOAL__TP_REGISTRY_N; i++) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        int rc;
        if (tp->heap_kind != sh->heap_kind || tp->sync == NULL || !(sh->tp_setup & (1u << tp->id))) continue;
        rc = tp->sync(sh, call);
        if (rc < 0) return rc;
    }
    /* Registered ranges have windows of their own. */
    return shoal__reg_sync_all(sh, call);
}

unsigned shoal__transports_without(shoal_t sh, unsigned used, unsigned caps)
{
    unsigned bits = 0;
    for (size_t i = 0; i < SHOAL__TP_REGISTRY_N; i++) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        if (tp->heap_kind == sh->heap_kind && (used & (1u << tp->id)) && !(tp->caps & caps)) bits |= 1u << tp->id;
    }
    return bits;
}

bool shoal__transports_with(shoal_t sh, unsigned caps)
{
    for (size_t i = 0; i < SHOAL__TP_REGISTRY_N; i++) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        if (tp->heap_kind == sh->heap_kind && (sh->tp_setup & (1u << tp->id)) && (tp->caps & caps) == caps) return true;
    }
    return false;
}

int shoal__transports_quiet_stream(shoal_t sh, const char *call, void *stream)
{
    for (size_t i = 0; i < SHOAL__TP_REGISTRY_N; i++) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        int rc;
        if (tp->heap_kind != sh->heap_kind || !(sh->tp_setup & (1u << tp->id)) || tp->quiet_stream == NULL) continue;
        rc = tp->quiet_stream(sh, call, stream);
        if (rc < 0) return rc;
    }
    return SHOAL_SUCCESS;
}

int shoal__transports_reg_attach(shoal_t sh, const char *call, shoal__reg_t *r)
{
    int rc = SHOAL_SUCCESS;

    /* Every transport's attach runs even after one failed: they may be
     * collective. */
    for (size_t i = 0; i < SHOAL__TP_REGISTRY_N; i++) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        int arc;
        if (tp->heap_kind != sh->heap_kind || !(sh->tp_setup & (1u << tp->id)) || tp->reg_attach == NULL) continue;
        arc = tp->reg_attach(sh, call, r);
        if (arc != SHOAL_SUCCESS && rc == SHOAL_SUCCESS) rc = arc;
    }
    return rc;
}

void shoal__transports_reg_detach(shoal_t sh, shoal__reg_t *r)
{
    for (size_t i = SHOAL__TP_REGISTRY_N; i-- > 0;) {
        const shoal__tp_ops_t *tp = shoal__tp_registry[i];
        if (tp->heap_kind != sh->heap_kind || !(sh->tp_setup & (1u << tp->id)) || tp->reg_detach == NULL) continue;
        tp->reg_detach(sh, r);
    }
}
