/*
 * Names of paths and transports, and the transport policy: for a pair of
 * PEs, the transports of self, cuda_ipc, shm, staged, mpi_rma that apply
 * and are not disabled, best first (shoal__topo_candidates). shoal_topo_choose,
 * which shoal-topo shows, is the first of them; shoal_init takes the first
 * that connects (runtime/transport/transport.c). It reads the topology model
 * only: whether CUDA really grants peer access is the runtime's business at
 * connect time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strcasecmp under -std=c11 */
#endif
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "topo_error.h"
#include "topo_model.h"
#include "topo_policy.h"

/* Parallel to shoal_path_t, best first. */
static const char *const shoal__path_names[SHOAL_PATH_COUNT] = {
    [SHOAL_PATH_LOC] = "LOC", [SHOAL_PATH_NVL] = "NVL",   [SHOAL_PATH_PIX] = "PIX", [SHOAL_PATH_PXB] = "PXB",
    [SHOAL_PATH_PHB] = "PHB", [SHOAL_PATH_NODE] = "NODE", [SHOAL_PATH_SYS] = "SYS", [SHOAL_PATH_NET] = "NET",
};

/* Parallel to shoal_transport_id_t, in the order the policy tries them. */
static const char *const shoal__transport_names[SHOAL_TRANSPORT_COUNT] = {
    [SHOAL_TRANSPORT_SELF] = "self",     [SHOAL_TRANSPORT_CUDA_IPC] = "cuda_ipc", [SHOAL_TRANSPORT_SHM] = "shm",
    [SHOAL_TRANSPORT_STAGED] = "staged", [SHOAL_TRANSPORT_MPI_RMA] = "mpi_rma",
};

const char *shoal_path_name(shoal_path_t path)
{
    if ((int)path < 0 || path >= SHOAL_PATH_COUNT) return "?";
    return shoal__path_names[path];
}

int shoal_path_parse(const char *name, shoal_path_t *path_p)
{
    if (!name || !path_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_path_parse: NULL argument");
    for (int p = 0; p < SHOAL_PATH_COUNT; p++)
        if (strcasecmp(name, shoal__path_names[p]) == 0) {
            *path_p = (shoal_path_t)p;
            return SHOAL_SUCCESS;
        }
    return shoal__topo_error(SHOAL_ERR_INVALID_ARG,
                             "shoal_path_parse: unknown path type '%s' (expected LOC, NVL, PIX, PXB, PHB, NODE, SYS or "
                             "NET)",
                             name);
}

const char *shoal_transport_name(shoal_transport_id_t tp)
{
    if ((int)tp < 0 || tp >= SHOAL_TRANSPORT_COUNT) return "?";
    return shoal__transport_names[tp];
}

int shoal_transport_parse(const char *name, shoal_transport_id_t *tp_p)
{
    if (!name || !tp_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_transport_parse: NULL argument");
    for (int t = 0; t < SHOAL_TRANSPORT_COUNT; t++)
        if (strcasecmp(name, shoal__transport_names[t]) == 0) {
            *tp_p = (shoal_transport_id_t)t;
            return SHOAL_SUCCESS;
        }
    return shoal__topo_error(SHOAL_ERR_INVALID_ARG,
                             "shoal_transport_parse: unknown transport '%s' (expected self, cuda_ipc, shm, staged or "
                             "mpi_rma)",
                             name);
}

int shoal_topo_parse_p2p_level(const char *s, shoal_path_t *level_p)
{
    if (!s || !level_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "NULL argument");
    for (int level = SHOAL_PATH_NVL; level <= SHOAL_PATH_SYS; level++)
        if (strcasecmp(s, shoal__path_names[level]) == 0) {
            *level_p = (shoal_path_t)level;
            return SHOAL_SUCCESS;
        }
    return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "'%.64s' is not one of NVL, PIX, PXB, PHB, NODE, SYS", s);
}

int shoal_topo_parse_disable(const char *list, unsigned *mask_p)
{
    char buf[256], *save = NULL, *tok;
    unsigned mask = 0;

    if (!list || !mask_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "NULL argument");
    if (strlen(list) >= sizeof(buf))
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "the list is longer than %zu characters", sizeof(buf) - 1);
    memcpy(buf, list, strlen(list) + 1);
    for (tok = strtok_r(buf, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
        shoal_transport_id_t id;
        if (shoal_transport_parse(tok, &id) != SHOAL_SUCCESS)
            return shoal__topo_error(SHOAL_ERR_INVALID_ARG,
                                     "unknown transport '%.32s' (expected cuda_ipc, shm or staged)", tok);
        if (id == SHOAL_TRANSPORT_SELF || id == SHOAL_TRANSPORT_MPI_RMA)
            return shoal__topo_error(SHOAL_ERR_INVALID_ARG,
                                     "transport '%s' cannot be disabled: it is the last resort (only cuda_ipc, shm "
                                     "and staged can)",
                                     tok);
        mask |= 1u << id;
    }
    *mask_p = mask;
    return SHOAL_SUCCESS;
}

/* ---------------------------------------------------------------- policy */

/* The reason being built, appended to piece by piece; truncation is fine. */
typedef struct shoal__why {
    char *buf;
    size_t len, used;
} shoal__why_t;

static void shoal__why_add(shoal__why_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void shoal__why_add(shoal__why_t *w, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (!w->buf || w->used + 1 >= w->len) return;
    va_start(ap, fmt);
    n = vsnprintf(w->buf + w->used, w->len - w->used, fmt, ap);
    va_end(ap);
    if (n > 0) w->used += (size_t)n < w->len - w->used ? (size_t)n : w->len - w->used - 1;
}

/* "GPUs 0-1 joined by 18 NVLinks (NVL)" and the like. */
static void shoal__why_path(shoal__why_t *w, shoal_topo_t topo, int ga, int gb)
{
    int n = topo->n_gpus, links = topo->nvlinks[ga * n + gb];
    shoal_path_t path = (shoal_path_t)topo->paths[ga * n + gb];

    switch (path) {
    case SHOAL_PATH_LOC: shoal__why_add(w, "both on GPU %d (LOC)", ga); return;
    case SHOAL_PATH_NVL:
        shoal__why_add(w, "GPUs %d-%d joined by %d NVLink%s%s (NVL)", ga, gb, links, links == 1 ? "" : "s",
                       topo->nvswitch[ga * n + gb] ? " through NVSwitches" : "");
        return;
    case SHOAL_PATH_PIX: shoal__why_add(w, "GPUs %d-%d behind one PCIe switch (PIX)", ga, gb); return;
    case SHOAL_PATH_PXB: shoal__why_add(w, "GPUs %d-%d across several PCIe switches (PXB)", ga, gb); return;
    case SHOAL_PATH_PHB: shoal__why_add(w, "GPUs %d-%d through a PCIe host bridge (PHB)", ga, gb); return;
    case SHOAL_PATH_NODE:
        shoal__why_add(w, "GPUs %d-%d across PCIe host bridges of one NUMA node (NODE)", ga, gb);
        return;
    default: shoal__why_add(w, "GPUs %d-%d across NUMA nodes (%s)", ga, gb, shoal_path_name(path)); return;
    }
}

static int shoal__enabled(const shoal_topo_policy_t *policy, shoal_transport_id_t tp)
{
    return !(policy->disabled & (1u << tp));
}

/* Add the enabled ones of the candidates, in order, to tps; until the
 * first, note each disabled one skipped. The list ends with
 * SHOAL_TRANSPORT_COUNT. */
static int shoal__take(const shoal_topo_policy_t *policy, shoal__why_t *w, shoal_transport_id_t *tps, int *n_p, ...)
{
    va_list ap;
    int tp;

    va_start(ap, n_p);
    while ((tp = va_arg(ap, int)) != SHOAL_TRANSPORT_COUNT) {
        if (shoal__enabled(policy, (shoal_transport_id_t)tp))
            tps[(*n_p)++] = (shoal_transport_id_t)tp;
        else if (*n_p == 0)
            shoal__why_add(w, "; %s is disabled", shoal__transport_names[tp]);
    }
    va_end(ap);
    return *n_p > 0 ? SHOAL_SUCCESS : SHOAL_ERR_UNSUPPORTED;
}

int shoal__topo_candidates(shoal_topo_t topo, const shoal_topo_policy_t *policy, const shoal_topo_place_t *a,
                           const shoal_topo_place_t *b, shoal_transport_id_t tps[SHOAL_TRANSPORT_COUNT], int *n_p,
                           char *why, size_t why_len)
{
    static const shoal_topo_policy_t defaults = {.p2p_level = SHOAL_PATH_SYS, .disabled = 0};
    shoal__why_t w = {.buf = why, .len = why_len, .used = 0};
    int rc;

    *n_p = 0;
    if (why && why_len) why[0] = '\0';
    if (!policy) policy = &defaults;
    if (a->pe < 0 || b->pe < 0 || a->gpu < -1 || b->gpu < -1)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_choose: bad place (pe %d gpu %d, pe %d gpu %d)",
                                 a->pe, a->gpu, b->pe, b->gpu);

    if ((a->gpu >= 0) != (b->gpu >= 0)) {
        /* shoal_init refuses heaps of different kinds, on one node or not. */
        shoal__why_add(&w, "PE %d has a %s heap and PE %d a %s heap: every PE's heap must be of one kind", a->pe,
                       a->gpu >= 0 ? "GPU" : "host", b->pe, b->gpu >= 0 ? "GPU" : "host");
        goto out_none;
    } else if (a->pe == b->pe && shoal__enabled(policy, SHOAL_TRANSPORT_SELF)) {
        shoal__why_add(&w, "same PE");
        tps[(*n_p)++] = SHOAL_TRANSPORT_SELF;
    } else if (a->node != b->node) {
        shoal__why_add(&w, "different nodes (%d and %d)", a->node, b->node);
        rc = shoal__take(policy, &w, tps, n_p, SHOAL_TRANSPORT_MPI_RMA, SHOAL_TRANSPORT_COUNT);
        if (rc < 0) goto out_none;
    } else if (a->gpu >= 0 && b->gpu >= 0) {
        shoal_path_t path = SHOAL_PATH_SYS;
        shoal__why_add(&w, "same node, ");
        if (topo) {
            if (a->gpu >= topo->n_gpus || b->gpu >= topo->n_gpus)
                return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_choose: GPU %d out of range (%d GPUs)",
                                         a->gpu >= topo->n_gpus ? a->gpu : b->gpu, topo->n_gpus);
            path = (shoal_path_t)topo->paths[a->gpu * topo->n_gpus + b->gpu];
            shoal__why_path(&w, topo, a->gpu, b->gpu);
        } else if (policy->p2p_level >= SHOAL_PATH_SYS) {
            /* Within one node no GPU path is worse than SYS: it need not be known. */
            shoal__why_add(&w, "GPU heaps (any path within a node is at most SYS)");
        } else if (!shoal__enabled(policy, SHOAL_TRANSPORT_CUDA_IPC)) {
            /* Only cuda_ipc cares about the path. */
            shoal__why_add(&w, "GPU heaps (no path looked up: cuda_ipc is disabled)");
            rc = shoal__take(policy, &w, tps, n_p, SHOAL_TRANSPORT_STAGED, SHOAL_TRANSPORT_COUNT);
            if (rc < 0) goto out_none;
            return SHOAL_SUCCESS;
        } else {
            return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_choose: GPU heaps need a topology");
        }
        /* GPU heaps of one node: load/store or the node's staging rings
         * (mpi_rma reaches GPU heaps of other nodes only). */
        if (path <= policy->p2p_level) {
            shoal__why_add(&w, ", within SHOAL_P2P_LEVEL=%s", shoal_path_name(policy->p2p_level));
            rc = shoal__take(policy, &w, tps, n_p, SHOAL_TRANSPORT_CUDA_IPC, SHOAL_TRANSPORT_STAGED,
                             SHOAL_TRANSPORT_COUNT);
        } else {
            shoal__why_add(&w, ", beyond SHOAL_P2P_LEVEL=%s", shoal_path_name(policy->p2p_level));
            rc = shoal__take(policy, &w, tps, n_p, SHOAL_TRANSPORT_STAGED, SHOAL_TRANSPORT_COUNT);
        }
        if (rc < 0) goto out_none;
    } else {
        shoal__why_add(&w, "same node, host heaps");
        rc = shoal__take(policy, &w, tps, n_p, SHOAL_TRANSPORT_SHM, SHOAL_TRANSPORT_MPI_RMA, SHOAL_TRANSPORT_COUNT);
        if (rc < 0) goto out_none;
    }
    return SHOAL_SUCCESS;

out_none:
    return shoal__topo_error(SHOAL_ERR_UNSUPPORTED, "shoal_topo_choose: no transport left from PE %d to PE %d: %s",
                             a->pe, b->pe, why && why_len ? why : "every candidate is disabled");
}

int shoal_topo_choose(shoal_topo_t topo, const shoal_topo_policy_t *policy, const shoal_topo_place_t *a,
                      const shoal_topo_place_t *b, shoal_transport_id_t *tp_p, char *why, size_t why_len)
{
    shoal_transport_id_t tps[SHOAL_TRANSPORT_COUNT];
    int n = 0, rc;

    if (why && why_len) why[0] = '\0';
    if (!a || !b || !tp_p) return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_choose: NULL place or tp_p");
    if (!topo && a->gpu >= 0 && b->gpu >= 0 && a->pe != b->pe && a->node == b->node)
        return shoal__topo_error(SHOAL_ERR_INVALID_ARG, "shoal_topo_choose: GPU heaps need a topology");
    rc = shoal__topo_candidates(topo, policy, a, b, tps, &n, why, why_len);
    if (rc != SHOAL_SUCCESS) return rc;
    *tp_p = tps[0];
    return SHOAL_SUCCESS;
}
