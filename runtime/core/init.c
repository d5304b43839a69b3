/* shoal_init: checks, then the phases every PE passes together (nodes,
 * control block, heap, transports), each agreed on so that one PE's failure
 * fails init everywhere with its message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/shoal_env.h"
#include "heap/shoal_heap.h"
#include "team/shoal_team.h"
#include "transport/transport.h"
#include "core/shoal_core.h"
#if SHOAL_HAVE_CUDA
#include "heap/shoal_gpu.h"
#endif

/* Every PE must agree on the heap: same size, same kind. Names the outliers. */
static int shoal__check_heap_symmetric(shoal_t sh)
{
    static const char *call = "shoal_init";
    long long mine[2] = {(long long)sh->heap_size, sh->heap_kind}, *all = NULL;
    int rc = SHOAL_SUCCESS, bad = 0;
    char msg[512];
    size_t len = 0;

    all = malloc(2 * sizeof(long long) * (size_t)sh->n_pes);
    if (all == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    SHOAL__MPI_TRY(sh, call, rc, out, MPI_Allgather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, sh->comm));
    msg[0] = '\0';
    for (int p = 0; p < sh->n_pes; p++) {
        if (all[2 * p] == all[0] && all[2 * p + 1] == all[1]) continue;
        if (bad++ == 0)
            len += (size_t)snprintf(msg + len, sizeof(msg) - len, "PE 0 has a %s heap of %lld bytes but",
                                    all[1] == SHOAL_HEAP_GPU ? "GPU" : "host", all[0]);
        if (len < sizeof(msg))
            len += (size_t)snprintf(msg + len, sizeof(msg) - len, " PE %d has %s %lld;", p,
                                    all[2 * p + 1] == SHOAL_HEAP_GPU ? "GPU" : "host", all[2 * p]);
    }
    if (bad)
        rc = shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, call,
                          "the symmetric heap differs between PEs: %s set the same SHOAL_HEAP_SIZE, SHOAL_HEAP_KIND "
                          "and config on every PE",
                          msg);
out:
    free(all);
    return rc;
}

/* Checks what shoal_init is given; nothing is created yet. */
/* What makes taking part in init impossible: checked before anything
 * collective, so a failure is this PE's alone. */
static int shoal__init_check_mpi(MPI_Comm comm)
{
    static const char *call = "shoal_init";
    int flag = 0;

    if (MPI_Initialized(&flag) != MPI_SUCCESS || !flag)
        return shoal__error(NULL, SHOAL_ERR_MPI_STATE, call,
                            "MPI is not initialized: call MPI_Init or MPI_Init_thread before shoal_init");
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag)
        return shoal__error(NULL, SHOAL_ERR_MPI_STATE, call, "MPI is already finalized");
    if (comm == MPI_COMM_NULL) return shoal__error(NULL, SHOAL_ERR_INVALID_ARG, call, "communicator is MPI_COMM_NULL");
    return SHOAL_SUCCESS;
}

/* The configuration: checked once this PE takes part, so that every PE
 * fails alike (one PE's bad value must not leave the others waiting in a
 * collective it never enters). Errors are recorded on sh. */
static int shoal__init_check(shoal_t sh, const shoal_config_t *cfg)
{
    static const char *call = "shoal_init";

    if (cfg->env_error[0] != '\0') return shoal__error(sh, SHOAL_ERR_ENV, call, "%s", cfg->env_error);
    if (!shoal__config_name_valid(cfg))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "config name is invalid: expected \"\" or 1 to %zu letters, digits and underscores "
                            "(shoal_config_init_named sets it)",
                            sizeof(cfg->name) - 1);
    if (cfg->heap_size == 0) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config heap_size is 0");
    if (cfg->check == SHOAL_CHECK_FULL) {
        int level = MPI_THREAD_SINGLE, is_main = 1;
        if (MPI_Query_thread(&level) == MPI_SUCCESS && level == MPI_THREAD_FUNNELED &&
            MPI_Is_thread_main(&is_main) == MPI_SUCCESS && !is_main)
            return shoal__error(sh, SHOAL_ERR_THREAD, call,
                                "called from a thread other than the main one, but MPI was initialized with "
                                "MPI_THREAD_FUNNELED: only the main thread may call shoal");
    }
    if (cfg->heap_size > SHOAL__HEAP_MAX)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config heap_size %zu is over the limit of %zu (256 TiB)",
                            cfg->heap_size, SHOAL__HEAP_MAX);
    if (cfg->heap_kind < SHOAL_HEAP_AUTO || cfg->heap_kind > SHOAL_HEAP_GPU)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config heap_kind %d is not SHOAL_HEAP_AUTO, HOST or GPU",
                            cfg->heap_kind);
    if (cfg->check < SHOAL_CHECK_OFF || cfg->check > SHOAL_CHECK_FULL)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config check %d is not a SHOAL_CHECK_* value",
                            cfg->check);
    if (cfg->wait < SHOAL_WAIT_AUTO || cfg->wait > SHOAL_WAIT_SLEEP)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config wait %d is not a SHOAL_WAIT_* value", cfg->wait);
    if (!(cfg->timeout >= 0))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "config timeout %g is not a number of seconds >= 0 (0: "
                            "wait forever)",
                            cfg->timeout);
    if (cfg->cuda_device < -1)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config cuda_device %d is not -1 or a device number",
                            cfg->cuda_device);
    if (cfg->node_size < 0)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config node_size %d is negative", cfg->node_size);
    return SHOAL_SUCCESS;
}

/* Every PE learns whether any PE failed the phase just run, and which:
 * init's phases are collective, so either all go on or all clean up. */
static int shoal__agree(shoal_t sh, int rc)
{
    struct {
        int status;
        int pe;
    } mine = {rc, sh->my_pe}, worst;

    if (MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MINLOC, sh->comm) != MPI_SUCCESS) {
        sh->broken = true;
        return rc ? rc : shoal__error(sh, SHOAL_ERR_MPI, "shoal_init", "cannot agree on the outcome of init");
    }
    if (worst.status < 0 && rc == SHOAL_SUCCESS)
        return shoal__error(sh, worst.status, "shoal_init", "PE %d failed to initialize (%s); see its message",
                            worst.pe, shoal_strerror(worst.status));
    return worst.status < 0 ? rc : SHOAL_SUCCESS;
}

/* SHOAL_NODE_SIZE (config node_size) splits the communicator: every PE
 * must have the same, or the splits mismatch and hang. */
static int shoal__node_size_agree(shoal_t sh)
{
    int *all = malloc(sizeof(int) * (size_t)sh->n_pes), rc = SHOAL_SUCCESS;

    if (all == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, "shoal_init", "out of memory");
    rc = MPI_Allgather(&sh->cfg.node_size, 1, MPI_INT, all, 1, MPI_INT, sh->comm);
    if (rc != MPI_SUCCESS) {
        free(all);
        return shoal__mpi_error(sh, "shoal_init", "MPI_Allgather", rc);
    }
    for (int pe = 1; pe < sh->n_pes; pe++)
        if (all[pe] != all[0]) {
            rc = shoal__error(sh, SHOAL_ERR_NOT_SYMMETRIC, "shoal_init",
                              "SHOAL_NODE_SIZE (config node_size) differs between PEs: PE 0 has %d, PE %d has %d; "
                              "every PE must use the same",
                              all[0], pe, all[pe]);
            break;
        }
    free(all);
    return rc;
}

#define SHOAL__PHASE(expr)                                                                                             \
    do {                                                                                                               \
        rc = shoal__agree(sh, (expr));                                                                                 \
        if (rc != SHOAL_SUCCESS) goto out;                                                                             \
    } while (0)

int shoal__init(MPI_Comm comm, const shoal_config_t *cfg_in, shoal_t *sh_p)
{
    static const char *call = "shoal_init";
    shoal_config_t cfg_default;
    const shoal_config_t *cfg = cfg_in;
    void *reg = NULL;
    shoal_t sh = NULL;
    shoal__settings_t env;
    size_t heap_align;
    int rc, inter = 0;

    shoal__log_init();
    /* On failure *sh_p is NULL: a later call on it says "instance is NULL"
     * instead of using whatever the variable held. */
    if (sh_p != NULL) *sh_p = NULL;
    if (cfg == NULL) {
        shoal_config_init(&cfg_default);
        cfg = &cfg_default;
    }
    rc = shoal__init_check_mpi(comm);
    if (rc) return rc;

    sh = calloc(1, sizeof(*sh));
    reg = shoal__registry_entry_new();
    if (sh == NULL || reg == NULL) {
        free(sh);
        free(reg);
        return shoal__error(NULL, SHOAL_ERR_NO_MEMORY, call, "cannot allocate an instance");
    }
    sh->magic = SHOAL__MAGIC_LIVE;
    sh->cfg = *cfg;
    {
        /* Writers first: threads putting in a loop must not starve a
         * collective allocation. */
        pthread_rwlockattr_t attr;
        pthread_rwlockattr_init(&attr);
        pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
        pthread_rwlock_init(&sh->alloc_lock, &attr);
        pthread_rwlockattr_destroy(&attr);
    }
    sh->comm = sh->node_comm = sh->leader_comm = MPI_COMM_NULL;
    sh->progress = MPI_REQUEST_NULL;
    sh->ctrl_win = MPI_WIN_NULL;
    sh->keyval = MPI_KEYVAL_INVALID;
    sh->my_pe = -1;

    /* Errors on the caller's communicator are the caller's: a bad handle
     * still goes to its handler. Everything after uses the duplicate. */
    rc = MPI_Comm_dup(comm, &sh->comm);
    if (rc != MPI_SUCCESS) {
        rc = shoal__mpi_error(NULL, call, "MPI_Comm_dup", rc);
        pthread_rwlock_destroy(&sh->alloc_lock);
        free(sh);
        free(reg);
        return rc;
    }
    if (MPI_Comm_set_errhandler(sh->comm, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
        MPI_Comm_test_inter(sh->comm, &inter) != MPI_SUCCESS || inter ||
        MPI_Comm_rank(sh->comm, &sh->my_pe) != MPI_SUCCESS || MPI_Comm_size(sh->comm, &sh->n_pes) != MPI_SUCCESS) {
        MPI_Comm_free(&sh->comm);
        pthread_rwlock_destroy(&sh->alloc_lock);
        free(sh);
        free(reg);
        return shoal__error(NULL, SHOAL_ERR_INVALID_ARG, call, "%s",
                            inter ? "an intercommunicator cannot host an instance" : "cannot query the communicator");
    }
    shoal__log_set_pe(sh->my_pe);
    pthread_mutex_init(&sh->progress_lock, NULL);
    shoal__progress_start(sh);
    /* The SHOAL_* variables, parsed once; where each setting came from (INFO). */
    shoal__env_for_init(sh, cfg, &env);
    sh->disabled = env.transport_disable;
    sh->p2p_level = (shoal_path_t)env.p2p_level;
    sh->coll_algo = env.coll_algo;
    sh->device_atomics = env.device_atomics;
    /* SHOAL_FAULT (a testing aid): this PE's first quiets fail. */
    if (env.fault.pe == sh->my_pe && env.fault.kind == SHOAL__FAULT_QUIET) sh->fault_quiets = env.fault.count;
    if (env.fault.pe == sh->my_pe && env.fault.kind == SHOAL__FAULT_GROW) sh->fault_grows = env.fault.count;
    sh->heap_reserve = env.heap_reserve;
    sh->heap_chunk = env.heap_chunk;

    /* From here every PE of comm takes part: a bad argument on one PE fails
     * init on all of them (naming it), instead of leaving them waiting. */
    rc = SHOAL_SUCCESS;
    if (sh_p == NULL) rc = shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "sh_p is NULL");
    if (rc == SHOAL_SUCCESS) rc = shoal__init_check(sh, cfg);
    /* A variable that sets no config field is refused even with a config
     * the program made without shoal_config_init. */
    if (rc == SHOAL_SUCCESS && env.error[0] != '\0') rc = shoal__error(sh, SHOAL_ERR_ENV, call, "%s", env.error);
    SHOAL__PHASE(rc);
    SHOAL__PHASE(shoal__node_size_agree(sh));

    {
        int level = MPI_THREAD_SINGLE;
        if (MPI_Query_thread(&level) == MPI_SUCCESS) atomic_store(&shoal__thread_level, level);
    }
    SHOAL__PHASE(shoal__nodes_create(sh));
    {
        /* More ranks on this node than CPUs: waits yield at once, and (unless
         * SHOAL_WAIT=spin) the waits of a rendezvous end up asleep, so that
         * the PEs at work get the cores. Every PE of a node decides alike. */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        bool crowded = cpus > 0 && sh->node_size > cpus;
        if (crowded) shoal__spin_limit = 16;
        sh->wait_sleep = sh->cfg.wait == SHOAL_WAIT_SLEEP || (sh->cfg.wait == SHOAL_WAIT_AUTO && crowded);
    }
    SHOAL__PHASE(shoal__ctrl_create(sh));
    SHOAL__PHASE(shoal__robust_create(sh));

    /* Where the heap lives. AUTO takes the GPU when this PE has one. */
    sh->heap_kind = sh->cfg.heap_kind;
    sh->heap_size = sh->cfg.heap_size;
    rc = SHOAL_SUCCESS;
    if (sh->heap_kind != SHOAL_HEAP_HOST) {
        bool have_gpu = false;
        rc = shoal__gpu_probe(sh, &have_gpu);
        if (rc == SHOAL_SUCCESS && !have_gpu && sh->heap_kind == SHOAL_HEAP_GPU)
            rc = shoal__error(sh, SHOAL_ERR_NO_DEVICE, call, "a GPU heap was asked for but this PE has no usable GPU%s",
                              SHOAL_HAVE_CUDA ? "" : " (shoal was built without CUDA)");
        sh->heap_kind = have_gpu ? SHOAL_HEAP_GPU : SHOAL_HEAP_HOST;
    }
    SHOAL__PHASE(rc); /* on every PE, whatever its heap kind: it is collective */
    /* Whole blocks of the allocator's alignment: a heap of 1 byte holds
     * a 1-byte allocation. */
    heap_align = sh->heap_kind == SHOAL_HEAP_GPU ? 256 : 64;
    sh->heap_size = (sh->heap_size + heap_align - 1) & ~(heap_align - 1);
    SHOAL__PHASE(shoal__check_heap_symmetric(sh));
    if (sh->heap_kind == SHOAL_HEAP_GPU) {
        /* Growing or fixed, agreed; a growing heap's default limit. */
        SHOAL__PHASE(shoal__heap_gpu_plan(sh));
        sh->heap_size = (sh->heap_size + heap_align - 1) & ~(heap_align - 1);
    }
    sh->peer_base = calloc((size_t)sh->n_pes, sizeof(char *));
    rc = sh->peer_base ? SHOAL_SUCCESS : shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    if (rc == SHOAL_SUCCESS) rc = shoal__alloc_init(&sh->alloc, sh->heap_size, heap_align);
    SHOAL__PHASE(rc);
    SHOAL__PHASE(sh->heap_kind == SHOAL_HEAP_GPU ? shoal__heap_gpu_create(sh) : shoal__heap_host_create(sh));
    SHOAL__PHASE(shoal__transports_setup(sh));
    SHOAL__PHASE(shoal__transports_agree(sh));
#if SHOAL_HAVE_CUDA
    if (sh->heap_kind == SHOAL_HEAP_GPU) SHOAL__PHASE(shoal__gpu_reach_agree(sh));
#endif
    SHOAL__PHASE(shoal__teams_create(sh));

    SHOAL__PHASE(shoal__registry_hook(sh));
    shoal__registry_add(sh, reg);
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_INIT, "instance ready: %d PEs, %d nodes, %s heap of %zu bytes", sh->n_pes,
               sh->n_nodes, sh->heap_kind == SHOAL_HEAP_GPU ? "GPU" : "host", sh->heap_size);
    *sh_p = sh;
    return SHOAL_SUCCESS;

out:
    /* Every PE agreed to fail (or could not agree: broken), so cleanup is
     * collective where possible. The message moves to the global slot. */
    {
        char msg[sizeof(sh->err)];
        snprintf(msg, sizeof(msg), "%s", shoal_last_error(sh));
        /* sh is freed below: its attribute must go now (init never runs
         * inside MPI_Finalize's teardown), finding it in finalize. */
        sh->in_finalize = true;
        if (sh->attr_set) MPI_Comm_delete_attr(MPI_COMM_SELF, sh->keyval);
        shoal__finalize(sh);
        shoal__error_forget(sh);
        free(sh);
        free(reg);
        shoal__log_set_pe(-1);
        shoal__error(NULL, rc, NULL, "%s", msg);
        return rc;
    }
}
