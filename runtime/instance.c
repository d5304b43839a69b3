/* Instance lifecycle: bootstrap on the caller's communicator, node
 * discovery, heap creation, transport selection, finalize (also from
 * MPI_Finalize through an attribute on MPI_COMM_SELF). */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shoal_check.h"
#include "shoal_env.h"
#include "transport/transport.h"

/* Every instance ever created stays on this list: a finalized handle keeps
 * its (small) struct, marked dead, so later calls on it fail cleanly
 * instead of touching freed memory. */
static pthread_mutex_t shoal__registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shoal__reg {
    shoal_t sh;
    struct shoal__reg *next;
} *shoal__registry;

static void shoal__registry_add_locked(struct shoal__reg *r, shoal_t sh)
{
    r->sh = sh;
    r->next = shoal__registry;
    shoal__registry = r;
}

_Atomic int shoal__thread_level = -1;

const char *shoal__thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "an unknown MPI thread level";
    }
}

/* ---------------------------------------------------------------- side state */

/* Every side state ever made, newest first; entries are never freed (like
 * finalized instances), only handed to the next instance, so lookups walk
 * the list without a lock. */
static _Atomic(shoal__side_t *) shoal__sides;
/* One address per thread: who is inside an instance. */
static _Thread_local char shoal__thread_token;
/* Last lookup of this thread. */
static _Thread_local struct {
    shoal_t sh;
    shoal__side_t *sd;
} shoal__side_cache;

shoal__side_t *shoal__side(shoal_t sh)
{
    shoal__side_t *sd = shoal__side_cache.sd;

    if (sd != NULL && shoal__side_cache.sh == sh && atomic_load_explicit(&sd->sh, memory_order_acquire) == sh)
        return sd;
    for (sd = atomic_load_explicit(&shoal__sides, memory_order_acquire); sd; sd = sd->next) {
        if (atomic_load_explicit(&sd->sh, memory_order_acquire) == sh) {
            shoal__side_cache.sh = sh;
            shoal__side_cache.sd = sd;
            return sd;
        }
    }
    return NULL;
}

/* A free entry, or a new one on the list, now owned by sh. */
static shoal__side_t *shoal__side_claim(shoal_t sh)
{
    shoal__side_t *sd;

    for (sd = atomic_load_explicit(&shoal__sides, memory_order_acquire); sd; sd = sd->next) {
        shoal_t none = NULL;
        if (atomic_compare_exchange_strong(&sd->sh, &none, sh)) return sd;
    }
    sd = calloc(1, sizeof(*sd));
    if (sd == NULL) return NULL;
    pthread_mutex_init(&sd->lock, NULL);
    atomic_init(&sd->sh, sh);
    sd->next = atomic_load_explicit(&shoal__sides, memory_order_relaxed);
    while (!atomic_compare_exchange_weak(&shoal__sides, &sd->next, sd)) {
    }
    return sd;
}

/* When the library is unloaded (dlclose of a plugin that brought it, or
 * exit, after the application's atexit handlers), no handle can be used any
 * more: free finalized instances and unused side states, so that they are
 * not leaks. Live instances stay: finalizing them is the application's job. */
__attribute__((destructor)) static void shoal__unload(void)
{
    struct shoal__reg **link = &shoal__registry;
    shoal__side_t *sd, *next, *keep = NULL;

    pthread_mutex_lock(&shoal__registry_lock);
    while (*link != NULL) {
        struct shoal__reg *r = *link;
        if (r->sh->magic != SHOAL__MAGIC_DEAD) {
            link = &r->next;
            continue;
        }
        *link = r->next;
        free(r->sh);
        free(r);
    }
    pthread_mutex_unlock(&shoal__registry_lock);
    for (sd = atomic_load(&shoal__sides); sd != NULL; sd = next) {
        next = sd->next;
        if (atomic_load(&sd->sh) != NULL) {
            sd->next = keep;
            keep = sd;
            continue;
        }
        pthread_mutex_destroy(&sd->lock);
        free(sd);
    }
    atomic_store(&shoal__sides, keep);
    shoal__side_cache.sd = NULL;
    shoal__side_cache.sh = NULL;
}

/* pid of every PE that runs on this host (0 elsewhere), so that a timeout can
 * tell a PE that is elsewhere in the program from one whose process is gone.
 * Hosts are MPI's shared-memory domains, whatever SHOAL_NODE_SIZE says. */
static int shoal__pids_gather(shoal_t sh, shoal__side_t *sd)
{
    static const char *call = "shoal_init";
    MPI_Comm host = MPI_COMM_NULL;
    MPI_Group g_host = MPI_GROUP_NULL, g_comm = MPI_GROUP_NULL;
    int mine[2] = {(int)getpid(), 0}, *all = NULL, zero = 0, rc = SHOAL_SUCCESS;
    bool visible = true;

    all = malloc(2 * sizeof(int) * (size_t)sh->n_pes);
    if (all == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_split_type(sh->comm, MPI_COMM_TYPE_SHARED, sh->my_pe, MPI_INFO_NULL, &host));
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_group(host, &g_host));
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_group(sh->comm, &g_comm));
    SHOAL__MPI_CHECK(sh, call, MPI_Group_translate_ranks(g_host, 1, &zero, g_comm, &mine[1]));
    SHOAL__MPI_CHECK(sh, call, MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, sh->comm));
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

int shoal__side_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    shoal__side_t *sd = shoal__side_claim(sh);
    int rc = SHOAL_SUCCESS;

    if (sd == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
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
    SHOAL__CHECK(shoal__pids_gather(sh, sd));
    /* With several nodes, a PE that times out reads the other nodes'
     * control blocks to name who is missing there. */
    if (sh->n_nodes > 1) {
        MPI_Aint bytes = sh->node_rank == 0 ? (MPI_Aint)(sizeof(shoal__node_ctrl_t) +
                                                         (size_t)sh->node_size * sizeof(shoal__pe_slot_t))
                                            : 0;
        SHOAL__MPI_CHECK(sh, call, MPI_Win_create(sh->node_rank == 0 ? (void *)sh->ctrl : NULL, bytes, 1, MPI_INFO_NULL,
                                                  sh->comm, &sd->diag_win));
        SHOAL__MPI_CHECK(sh, call, MPI_Win_set_errhandler(sd->diag_win, MPI_ERRORS_RETURN));
        SHOAL__MPI_CHECK(sh, call, MPI_Win_lock_all(MPI_MODE_NOCHECK, sd->diag_win));
    }
out:
    return rc;
}

void shoal__abandon(shoal_t sh, MPI_Request req, void *buf)
{
    shoal__side_t *sd = shoal__side(sh);

    if (sd == NULL || sd->n_abandoned == (int)(sizeof(sd->abandoned_req) / sizeof(sd->abandoned_req[0])))
        return; /* left to MPI for good */
    sd->abandoned_req[sd->n_abandoned] = req;
    sd->abandoned_buf[sd->n_abandoned++] = buf;
}

void shoal__side_destroy(shoal_t sh)
{
    shoal__side_t *sd = shoal__side(sh);

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
    atomic_store_explicit(&sd->sh, NULL, memory_order_release);
}

/* Below MPI_THREAD_MULTIPLE one thread at a time may be inside MPI in the
 * whole process, so the owner is the process's, whatever the instance. */
static _Atomic uintptr_t shoal__proc_owner;
static _Atomic(const char *) shoal__proc_owner_call;

int shoal__side_enter(shoal_t sh, shoal__side_t *sd, const char *call, bool coll, bool *held_p)
{
    uintptr_t me = (uintptr_t)&shoal__thread_token, cur = 0;
    int level = atomic_load_explicit(&shoal__thread_level, memory_order_relaxed);
    bool multiple = level == MPI_THREAD_MULTIPLE;
    _Atomic uintptr_t *owner = multiple ? &sd->coll_owner : &shoal__proc_owner;
    _Atomic(const char *) *owner_call = multiple ? &sd->owner_call : &shoal__proc_owner_call;

    *held_p = false;
    if (level == MPI_THREAD_FUNNELED || level == MPI_THREAD_SINGLE) {
        int is_main = 1;
        MPI_Is_thread_main(&is_main);
        if (!is_main)
            return shoal__error(sh, SHOAL_ERR_THREAD, call,
                                "called from a thread other than the main one, but MPI was initialized with %s: only "
                                "the main thread may call shoal (or use MPI_THREAD_SERIALIZED or "
                                "MPI_THREAD_MULTIPLE)",
                                shoal__thread_level_name(level));
    }
    if (multiple && !coll) return SHOAL_SUCCESS;
    if (!atomic_compare_exchange_strong(owner, &cur, me)) {
        const char *other = atomic_load(owner_call);
        if (cur == me) return SHOAL_SUCCESS; /* nested, e.g. a barrier's quiet */
        if (multiple)
            return shoal__error(sh, SHOAL_ERR_THREAD, call,
                                "another thread of this PE is inside a collective (%s) on this instance: collectives "
                                "must be called by one thread at a time, in the same order on every PE",
                                other ? other : "?");
        return shoal__error(sh, SHOAL_ERR_THREAD, call,
                            "another thread of this process is inside %s (on this or another instance) at the same "
                            "time, but MPI was initialized with %s, which allows one thread at a time in MPI: "
                            "serialize the calls, or initialize MPI with MPI_THREAD_MULTIPLE (threads may then put, "
                            "get and quiet at once)",
                            other ? other : "a shoal call", shoal__thread_level_name(level));
    }
    atomic_store(owner_call, call);
    *held_p = true;
    return SHOAL_SUCCESS;
}

void shoal__side_leave(shoal__side_t *sd, bool coll, bool held)
{
    if (!held) return;
    if (shoal__threads_multiple() && coll)
        atomic_store_explicit(&sd->coll_owner, 0, memory_order_release);
    else
        atomic_store_explicit(&shoal__proc_owner, 0, memory_order_release);
}

bool shoal__pe_gone(shoal_t sh, int pe)
{
    shoal__side_t *sd = shoal__side(sh);
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
    return paren != NULL && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

const char *shoal__heap_size_knob(shoal_t sh)
{
    if (!sh->heap_size_from_code) return "SHOAL_HEAP_SIZE";
    return sh->heap_size_var_set ? "the heap_size field of shoal_config_t (set by the program, which overrides "
                                   "SHOAL_HEAP_SIZE)"
                                 : "the heap_size field of shoal_config_t (set by the program)";
}

void shoal__note_creator(shoal_t sh, const void *caller)
{
    Dl_info info;
    const char *obj, *slash;

    memset(&info, 0, sizeof(info));
    if (caller == NULL || dladdr(caller, &info) == 0) {
        snprintf(sh->creator, sizeof(sh->creator), "%p", caller);
        return;
    }
    obj = info.dli_fname ? info.dli_fname : "?";
    slash = strrchr(obj, '/');
    obj = slash ? slash + 1 : obj;
    if (info.dli_sname != NULL)
        snprintf(sh->creator, sizeof(sh->creator), "%s+0x%lx in %s", info.dli_sname,
                 (unsigned long)((const char *)caller - (const char *)info.dli_saddr), obj);
    else
        snprintf(sh->creator, sizeof(sh->creator), "%s+0x%lx", obj,
                 (unsigned long)((const char *)caller - (const char *)info.dli_fbase));
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: finalize whatever
 * the application left alive, while MPI still works, and say so. */
static int shoal__self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    shoal_t sh = value;
    (void)comm;
    (void)keyval;
    (void)extra;
    if (shoal__live(sh) && !sh->in_finalize) {
        SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_INIT,
                   "an instance of %d PE%s (PE %d here; created by the shoal_init call at %s) was not finalized "
                   "before MPI_Finalize: shoal finalizes it now, collectively; call shoal_finalize on every PE "
                   "before MPI_Finalize",
                   sh->n_pes, sh->n_pes == 1 ? "" : "s", sh->my_pe, sh->creator[0] ? sh->creator : "an unknown place");
        shoal__finalize(sh);
    }
    return MPI_SUCCESS;
}

/* MPI_COMM_SELF keeps shoal__self_delete until MPI_Finalize, even after
 * the instance is finalized: the object holding it (libshoal.so, or a
 * plugin that linked libshoal.a) must stay mapped after a dlclose. */
static void shoal__pin_once(void)
{
    Dl_info info;
    void *self;

    if (dladdr((void *)shoal__self_delete, &info) == 0 || info.dli_fname == NULL) return;
    /* NULL for the main program (never unloaded anyway). */
    self = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_INIT, "%s stays loaded until exit%s", info.dli_fname,
               self ? "" : " (the program itself)");
}

static void shoal__pin_code(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, shoal__pin_once);
}

/* Split comm into nodes: PEs sharing memory, cut into blocks of node_size
 * consecutive ranks when SHOAL_NODE_SIZE asks for it. */
static int shoal__nodes_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    MPI_Comm by_block = MPI_COMM_NULL;
    MPI_Group g_node = MPI_GROUP_NULL, g_comm = MPI_GROUP_NULL;
    int *leaders = NULL;
    int rc = SHOAL_SUCCESS, zero = 0, leader;

    if (sh->cfg.node_size > 0) {
        SHOAL__MPI_CHECK(sh, call, MPI_Comm_split(sh->comm, sh->my_pe / sh->cfg.node_size, sh->my_pe, &by_block));
        SHOAL__MPI_CHECK(sh, call, MPI_Comm_split_type(by_block, MPI_COMM_TYPE_SHARED, sh->my_pe, MPI_INFO_NULL, &sh->node_comm));
    } else {
        SHOAL__MPI_CHECK(sh, call, MPI_Comm_split_type(sh->comm, MPI_COMM_TYPE_SHARED, sh->my_pe, MPI_INFO_NULL, &sh->node_comm));
    }
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_set_errhandler(sh->node_comm, MPI_ERRORS_RETURN));
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_rank(sh->node_comm, &sh->node_rank));
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_size(sh->node_comm, &sh->node_size));

    /* A node is named by its lowest PE (node rank 0, since we split by rank). */
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_group(sh->node_comm, &g_node));
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_group(sh->comm, &g_comm));
    SHOAL__MPI_CHECK(sh, call, MPI_Group_translate_ranks(g_node, 1, &zero, g_comm, &leader));

    sh->pe_node = calloc((size_t)sh->n_pes, sizeof(int));
    sh->pe_node_rank = calloc((size_t)sh->n_pes, sizeof(int));
    sh->node_pes = calloc((size_t)sh->node_size, sizeof(int));
    leaders = calloc((size_t)sh->n_pes, sizeof(int));
    if (!sh->pe_node || !sh->pe_node_rank || !sh->node_pes || !leaders) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot allocate the PE tables for %d PEs", sh->n_pes);
        goto out;
    }
    SHOAL__MPI_CHECK(sh, call, MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, sh->comm));
    SHOAL__MPI_CHECK(sh, call, MPI_Allgather(&sh->node_rank, 1, MPI_INT, sh->pe_node_rank, 1, MPI_INT, sh->comm));
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
    SHOAL__MPI_CHECK(sh, call, MPI_Comm_split(sh->comm, sh->node_rank == 0 ? 0 : MPI_UNDEFINED, sh->my_pe, &sh->leader_comm));
    if (sh->leader_comm != MPI_COMM_NULL)
        SHOAL__MPI_CHECK(sh, call, MPI_Comm_set_errhandler(sh->leader_comm, MPI_ERRORS_RETURN));
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
static int shoal__ctrl_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    MPI_Aint size = 0;
    int disp = 0, rc = SHOAL_SUCCESS;
    void *base = NULL;
    size_t bytes = sizeof(shoal__node_ctrl_t) + (size_t)sh->node_size * sizeof(shoal__pe_slot_t);

    SHOAL__MPI_CHECK(sh, call, MPI_Win_allocate_shared(sh->node_rank == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL,
                                                       sh->node_comm, &base, &sh->ctrl_win));
    SHOAL__MPI_CHECK(sh, call, MPI_Win_shared_query(sh->ctrl_win, 0, &size, &disp, &base));
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
    }
    /* Nobody touches the block before its owner initialized it. */
    SHOAL__MPI_CHECK(sh, call, MPI_Barrier(sh->node_comm));
    /* Before any rendezvous: a PE that may sleep makes every waker look. */
    if (sh->wait_sleep) atomic_store_explicit(&sh->ctrl->sleepy, 1, memory_order_relaxed);
out:
    return rc;
}

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
    SHOAL__MPI_CHECK(sh, call, MPI_Allgather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, sh->comm));
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
    if (comm == MPI_COMM_NULL)
        return shoal__error(NULL, SHOAL_ERR_INVALID_ARG, call, "communicator is MPI_COMM_NULL");
    return SHOAL_SUCCESS;
}

/* The configuration: checked once this PE takes part, so that every PE
 * fails alike (one PE's bad value must not leave the others waiting in a
 * collective it never enters). Errors are recorded on sh. */
static int shoal__init_check(shoal_t sh, const shoal_config_t *cfg)
{
    static const char *call = "shoal_init";

    if (cfg->env_error[0] != '\0') return shoal__error(sh, SHOAL_ERR_ENV, call, "%s", cfg->env_error);
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
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config check %d is not a SHOAL_CHECK_* value", cfg->check);
    if (cfg->wait < SHOAL_WAIT_AUTO || cfg->wait > SHOAL_WAIT_SLEEP)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config wait %d is not a SHOAL_WAIT_* value", cfg->wait);
    if (!(cfg->timeout >= 0))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "config timeout %g is not a number of seconds >= 0 (0: "
                            "wait forever)", cfg->timeout);
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

#define SHOAL__PHASE(expr)                                                               \
    do {                                                                                 \
        rc = shoal__agree(sh, (expr));                                                   \
        if (rc != SHOAL_SUCCESS) goto out;                                               \
    } while (0)

int shoal__init(MPI_Comm comm, const shoal_config_t *cfg_in, shoal_t *sh_p)
{
    static const char *call = "shoal_init";
    shoal_config_t cfg_default;
    const shoal_config_t *cfg = cfg_in;
    struct shoal__reg *reg = NULL;
    shoal_t sh = NULL;
    shoal__settings_t env;
    size_t heap_align;
    int rc, inter = 0;
    bool attr_set = false;

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
    reg = calloc(1, sizeof(*reg));
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
    sh->shm_win = sh->ctrl_win = MPI_WIN_NULL;
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
    /* The SHOAL_* variables, parsed once; where each setting came from (INFO). */
    shoal__env_for_init(sh, cfg, &env);
    sh->disabled = env.transport_disable;
    sh->p2p_level = (shoal_path_t)env.p2p_level;
    /* SHOAL_FAULT (a testing aid): this PE's first quiets fail. */
    if (env.fault.pe == sh->my_pe) sh->fault_quiets = env.fault.count;

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
    SHOAL__PHASE(shoal__side_create(sh));

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
    if (sh->heap_kind == SHOAL_HEAP_HOST) SHOAL__PHASE(shoal__heap_host_precheck(sh));
    sh->peer_base = calloc((size_t)sh->n_pes, sizeof(char *));
    rc = sh->peer_base ? SHOAL_SUCCESS : shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    if (rc == SHOAL_SUCCESS)
        rc = shoal__alloc_init(&sh->alloc, sh->heap_size, heap_align);
    SHOAL__PHASE(rc);
    SHOAL__PHASE(sh->heap_kind == SHOAL_HEAP_GPU ? shoal__heap_gpu_create(sh) : shoal__heap_host_create(sh));
    SHOAL__PHASE(shoal__transports_setup(sh));

    shoal__pin_code();
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, shoal__self_delete, &sh->keyval, NULL);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, sh->keyval, sh);
    attr_set = rc == MPI_SUCCESS;
    SHOAL__PHASE(rc == MPI_SUCCESS ? SHOAL_SUCCESS : shoal__mpi_error(sh, call, "MPI_Comm_set_attr", rc));

    pthread_mutex_lock(&shoal__registry_lock);
    shoal__registry_add_locked(reg, sh);
    pthread_mutex_unlock(&shoal__registry_lock);
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
        if (attr_set) MPI_Comm_delete_attr(MPI_COMM_SELF, sh->keyval);
        shoal__finalize(sh);
        shoal__error_forget(sh);
        free(sh);
        free(reg);
        shoal__log_set_pe(-1);
        shoal__error(NULL, rc, NULL, "%s", msg);
        return rc;
    }
}

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
        int qrc = shoal__quiet(sh, call);
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
        if (sh->broken)
            shoal__error(sh, rc, NULL, "%s; not every PE came to shoal_finalize within %g s: only this PE's memory "
                         "was freed; its MPI windows and communicators stay, and MPI_Finalize may not return",
                         first, sh->cfg.timeout > 0 ? sh->cfg.timeout : 30);
        else
            shoal__error(sh, rc, NULL, "%s; every PE then came to shoal_finalize: everything was freed", first);
    }
    if (sh->broken && rc == SHOAL_SUCCESS && sh->comm != MPI_COMM_NULL) {
        /* Not an error of this call, but the caller must know: MPI objects
         * stay behind, and MPI_Finalize may wait for them. */
        char why[160];
        size_t n = 0;
        int gone = 0;
        for (int pe = 0; pe < sh->n_pes && n < sizeof(why) - 16; pe++)
            if (shoal__pe_gone(sh, pe))
                n += (size_t)snprintf(why + n, sizeof(why) - n, "%sPE %d", gone++ ? ", " : "", pe);
        if (gone)
            snprintf(why + n, sizeof(why) - n, "%s exited or was killed", gone > 1 ? " each" : "");
        else
            snprintf(why, sizeof(why), "not every PE came to shoal_finalize within %g s",
                     sh->cfg.timeout > 0 ? sh->cfg.timeout : 30);
        rc = shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                          "the instance was broken by an earlier failure, and %s: only this PE's memory was freed; "
                          "its MPI windows and communicators stay, and MPI_Finalize may not return",
                          why);
    }
    shoal__transports_teardown(sh);
    if (sh->gpu != NULL) shoal__heap_gpu_destroy(sh);
    shoal__heap_host_destroy(sh);
    shoal__alloc_fini(&sh->alloc);
    pthread_rwlock_destroy(&sh->alloc_lock);
    shoal__drain_notes(sh);
    shoal__side_destroy(sh);
    if (!sh->broken) {
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
