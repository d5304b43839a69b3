/* NVSHMEM's host API over shoal's (api/nvshmem/nvshmem.h, nvshmemx.h): one
 * instance per process, teams as small integers, and the NVSHMEM
 * convention for errors (print, end the job). */
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* nvshmem.h declares the half and bfloat16 forms in C for this file only,
 * over shoal's types (CUDA's are C++'s). */
#define SHOAL__NVSHMEM_LIBRARY 1
#include "nvshmem.h"
#include "base/shoal_env.h"
#include "heap/shoal_heap.h"

#if SHOAL_HAVE_CUDA
#include "shoal_cuda.h"
#endif

#define NV__HIDDEN __attribute__((visibility("hidden")))
/* Team slots: the three predefined ones, then the splits. */
#define NV__TEAMS SHOAL_NVSHMEM_TEAM_SLOTS

static shoal_t nv__sh;
static MPI_Comm nv__comm = MPI_COMM_NULL; /* the communicator it lives on (a second init must name the same) */
static atomic_bool nv__pending;           /* a CUDA module registered after init waits for its copy of the state */
static int nv__inits;                     /* inits not yet matched by a finalize */
static int nv__mpi_ours;                  /* nvshmem_init initialized MPI: the last nvshmem_finalize ends it */
static shoal_team_t nv__teams[NV__TEAMS];
static unsigned nv__gens[NV__TEAMS]; /* a slot's generation: in its handles' bits 8 and up */
#define NV__PREDEFINED 4             /* world, shared, node, same-my-PE-node */

void nvshmem_global_exit(int status)
{
    int init = 0, fin = 0;
    fflush(stdout);
    fflush(stderr);
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    /* The whole job: MPI_Abort on a sub-communicator may end only the caller. */
    if (init && !fin) MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

/* A failed call that returns nothing: shoal's message, then the job ends. */
static void nv__die(const char *call, int status) __attribute__((noreturn));
static void nv__die(const char *call, int status)
{
    const char *msg = shoal_last_error(nv__sh);
    fprintf(stderr, "%s: %s (%s)\n", call, msg[0] ? msg : shoal_last_error(NULL), shoal_strerror(status));
    nvshmem_global_exit(1);
    abort();
}

/* The same for an error found here, with its own message. */
static void nv__die_msg(const char *call, const char *msg) __attribute__((noreturn));
static void nv__die_msg(const char *call, const char *msg)
{
    fprintf(stderr, "PE %d: %s: %s\n", nv__sh != NULL ? shoal_my_pe(nv__sh) : -1, call, msg);
    nvshmem_global_exit(1);
    abort();
}

static void nv__publish(void);

static void nv__need(const char *call)
{
    if (__builtin_expect(nv__sh == NULL, 0)) {
        fprintf(stderr, "%s: called before nvshmem_init (or after nvshmem_finalize)\n", call);
        nvshmem_global_exit(1);
    }
    /* A module loaded since the last call gets its copy of the state. */
    if (__builtin_expect(atomic_load_explicit(&nv__pending, memory_order_relaxed), 0) &&
        atomic_exchange(&nv__pending, false))
        nv__publish();
}

#define NV__OK(call, expr)                                                                                             \
    do {                                                                                                               \
        int nv_rc__ = (expr);                                                                                          \
        if (__builtin_expect(nv_rc__ != SHOAL_SUCCESS, 0)) nv__die((call), nv_rc__);                                   \
    } while (0)

/* A failed call that returns an int: shoal's message, nonzero. */
static int nv__ret(const char *call, int status)
{
    if (__builtin_expect(status == SHOAL_SUCCESS, 1)) return 0;
    fprintf(stderr, "%s: %s (%s)\n", call, shoal_last_error(nv__sh), shoal_strerror(status));
    return status;
}

/* The shoal team of an NVSHMEM handle (its slot, then the slot's
 * generation), or SHOAL_TEAM_INVALID. */
static shoal_team_t nv__team(nvshmem_team_t t)
{
    int slot = t & 0xff;
    if (nv__sh == NULL || t < 0 || slot >= NV__TEAMS || (unsigned)t >> 8 != nv__gens[slot]) return SHOAL_TEAM_INVALID;
    return nv__teams[slot];
}

/* ------------------------------------------------------------ kernels' state */

/* Each CUDA module that includes nvshmem.h registers a copier of the
 * device state (nvshmem_device.cuh); the copies follow nv__state. */
#define NV__BINDERS 256
static pthread_mutex_t nv__bind_lock = PTHREAD_MUTEX_INITIALIZER;
static int (*nv__binders[NV__BINDERS])(const shoal_nvshmem_device_state_t *);
static int nv__nbinders;
static shoal_nvshmem_device_state_t nv__state = {.why = SHOAL_ERR_INVALID_INSTANCE, .device = -1};
static bool nv__state_filled; /* nv__state describes the instance (filled when a module first needs it) */
static bool nv__copies_ready; /* the modules' copies hold a ready state (to be cleared at finalize) */

/* Copy the state into one module, on the instance's GPU; a failure is
 * reported (that module's kernels then trap, saying the state is not set). */
static void nv__bind_one(int (*bind)(const shoal_nvshmem_device_state_t *))
{
    int rc = bind(&nv__state);
    if (rc != 0)
        fprintf(stderr,
                "shoal: NVSHMEM: could not give a CUDA module the device state (cudaMemcpyToSymbol: CUDA error %d); "
                "its kernels' NVSHMEM calls will trap\n",
                rc);
}

#if SHOAL_HAVE_CUDA
/* Slot's team as kernels see it. */
static void nv__state_team(int slot)
{
    memset(&nv__state.teams[slot], 0, sizeof(nv__state.teams[slot]));
    nv__state.gens[slot] = nv__gens[slot];
    nv__state.team_status[slot] = SHOAL_ERR_INVALID_ARG;
    if (nv__teams[slot] != SHOAL_TEAM_INVALID)
        nv__state.team_status[slot] = shoal_team_device_get(nv__teams[slot], &nv__state.teams[slot]);
}
#endif

/* Describe the instance for kernels: shoal's device handle (GPU heap only;
 * it starts the device proxy where a PE needs it) and every team slot. */
static void nv__state_fill(void)
{
    memset(&nv__state, 0, sizeof(nv__state));
    nv__state.why = SHOAL_ERR_INVALID_INSTANCE;
    nv__state.device = -1;
    nv__state_filled = true;
    if (nv__sh == NULL) return;
#if SHOAL_HAVE_CUDA
    nv__state.device = shoal_cuda_device(nv__sh);
    if (nv__state.device < 0 || shoal_device_get(nv__sh, &nv__state.dev) != SHOAL_SUCCESS) {
        nv__state.why = SHOAL_ERR_UNSUPPORTED;
        return;
    }
    for (int i = 0; i < NV__TEAMS; i++) nv__state_team(i);
    nv__state.ready = 1;
    nv__state.why = SHOAL_SUCCESS;
#else
    nv__state.why = SHOAL_ERR_UNSUPPORTED;
#endif
}

/* Every module's copy follows nv__state (filled first where it is not).
 * The copies go to the instance's GPU: the CUDA runtime of each module
 * follows the thread's current device, set here for the call. */
static void nv__publish(void)
{
    pthread_mutex_lock(&nv__bind_lock);
    if (nv__nbinders > 0 && !nv__state_filled) nv__state_fill();
    /* Nothing to give (no GPU heap) and nothing to clear: no CUDA call at all. */
    if (nv__nbinders > 0 && (nv__state.ready || nv__copies_ready)) {
#if SHOAL_HAVE_CUDA
        int prev = -1;
        bool moved = false;
        if (nv__state.device >= 0 && cudaGetDevice(&prev) == cudaSuccess && prev != nv__state.device)
            moved = cudaSetDevice(nv__state.device) == cudaSuccess;
#endif
        for (int i = 0; i < nv__nbinders; i++) nv__bind_one(nv__binders[i]);
        nv__copies_ready = nv__state.ready != 0;
#if SHOAL_HAVE_CUDA
        if (moved) cudaSetDevice(prev);
        cudaGetLastError();
#endif
    }
    pthread_mutex_unlock(&nv__bind_lock);
}

/* A team slot changed (split, destroy): the copies learn it. */
static void nv__publish_team(int slot)
{
#if SHOAL_HAVE_CUDA
    if (nv__state_filled && nv__state.ready) nv__state_team(slot);
#else
    (void)slot;
#endif
    nv__publish();
}

void shoal_nvshmem_device_register(int (*bind)(const shoal_nvshmem_device_state_t *state))
{
    bool now;
    if (bind == NULL) return;
    pthread_mutex_lock(&nv__bind_lock);
    if (nv__nbinders == NV__BINDERS) {
        pthread_mutex_unlock(&nv__bind_lock);
        fprintf(stderr,
                "shoal: NVSHMEM: more than %d CUDA modules include nvshmem.h; the kernels of the %dth and "
                "later ones will trap on NVSHMEM calls\n",
                NV__BINDERS, NV__BINDERS + 1);
        return;
    }
    nv__binders[nv__nbinders++] = bind;
    /* A module loaded after nvshmem_init: its constructor runs before CUDA
     * knows its variables, so it is filled at the next host call. */
    now = nv__sh != NULL;
    pthread_mutex_unlock(&nv__bind_lock);
    if (now) atomic_store(&nv__pending, true);
}

void shoal_nvshmem_device_unregister(int (*bind)(const shoal_nvshmem_device_state_t *state))
{
    pthread_mutex_lock(&nv__bind_lock);
    for (int i = 0; i < nv__nbinders; i++)
        if (nv__binders[i] == bind) {
            nv__binders[i] = nv__binders[--nv__nbinders];
            break;
        }
    pthread_mutex_unlock(&nv__bind_lock);
}

/* ------------------------------------------------------------ life */

/* NVSHMEM's default heap size: programs written for NVSHMEM count on it. */
#define NV__HEAP_DEFAULT ((size_t)1 << 30)

/* NVSHMEM_SYMMETRIC_SIZE, where SHOAL_HEAP_SIZE does not say otherwise;
 * where neither is set, NVSHMEM's default for a heap whose limit is what it
 * may take (a fixed GPU heap, mapped whole at init) and for a host heap
 * (sparse: the limit costs nothing). A growing GPU heap, the default,
 * keeps shoal's limit: the GPU's memory. */
static void nv__heap_size(shoal_config_t *cfg)
{
    const char *v = getenv("NVSHMEM_SYMMETRIC_SIZE"), *mine = getenv("SHOAL_HEAP_SIZE");
    size_t bytes = 0;
    if (mine != NULL && mine[0] != '\0') return;
    if (v == NULL || v[0] == '\0') {
        shoal__settings_t env;
        /* The heap goes on a GPU as shoal_init decides it (heap/shoal_heap.h). */
        bool gpu = cfg->heap_kind != SHOAL_HEAP_HOST && shoal__gpu_count(NULL) > 0;
        if (shoal__env_load(&env) != SHOAL_SUCCESS || env.heap_reserve || !gpu) cfg->heap_size = NV__HEAP_DEFAULT;
        return;
    }
    if (shoal__parse_size(v, &bytes) != SHOAL_SUCCESS || bytes == 0) {
        fprintf(stderr, "nvshmem_init: NVSHMEM_SYMMETRIC_SIZE=%s is not a size (bytes, or with k, m, g, t)\n", v);
        nvshmem_global_exit(1);
    }
    cfg->heap_size = bytes;
}

/* The NVSHMEM variables shoal reads, and what each does: X(NAME, WHAT).
 * Every other NVSHMEM_* variable is ignored (NVSHMEM_INFO lists them). */
#define NV__ENV(X)                                                                                                     \
    X("NVSHMEM_SYMMETRIC_SIZE", "the symmetric heap's size (SHOAL_HEAP_SIZE wins where set)")                          \
    X("NVSHMEM_VERSION", "PE 0 prints the version at init")                                                            \
    X("NVSHMEM_INFO", "PE 0 prints the NVSHMEM variables set, what shoal does with each, and shoal's settings")

static bool nv__env_true(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && (strcmp(v, "1") == 0 || strcasecmp(v, "y") == 0 || strcasecmp(v, "yes") == 0 ||
                         strcasecmp(v, "true") == 0 || strcasecmp(v, "on") == 0);
}

/* At init, on PE 0: NVSHMEM_VERSION and NVSHMEM_INFO. */
static void nv__env_report(void)
{
    extern char **environ;
#define NV__ENV_NAME(N, W) N,
#define NV__ENV_WHAT(N, W) W,
    static const char *const names[] = {NV__ENV(NV__ENV_NAME)}, *const whats[] = {NV__ENV(NV__ENV_WHAT)};
#undef NV__ENV_NAME
#undef NV__ENV_WHAT

    if (shoal_my_pe(nv__sh) != 0) return;
    if (nv__env_true("NVSHMEM_VERSION") || nv__env_true("NVSHMEM_INFO"))
        printf("%s: NVSHMEM %d.%d.%d's API (OpenSHMEM %d.%d), carried by shoal %d.%d.%d\n", NVSHMEM_VENDOR_STRING,
               NVSHMEM_VENDOR_MAJOR_VERSION, NVSHMEM_VENDOR_MINOR_VERSION, NVSHMEM_VENDOR_PATCH_VERSION,
               NVSHMEM_MAJOR_VERSION, NVSHMEM_MINOR_VERSION, SHOAL_VERSION_MAJOR, SHOAL_VERSION_MINOR,
               SHOAL_VERSION_PATCH);
    if (!nv__env_true("NVSHMEM_INFO")) return;
    printf("NVSHMEM variables set:\n");
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *what = "ignored: shoal has no such setting (SHOAL_* variables below)";
        size_t len = strcspn(*e, "=");
        if (strncmp(*e, "NVSHMEM_", 8) != 0) continue;
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (strlen(names[i]) == len && strncmp(*e, names[i], len) == 0) what = whats[i];
        printf("  %s: %s\n", *e, what);
    }
    shoal_env_print(stdout);
    fflush(stdout);
}

/* NVSHMEM_TEAM_SHARED: the PEs whose heaps nvshmem_ptr reaches from here
 * (the node where all reach each other, as shm and cuda_ipc do; else
 * this PE alone); NVSHMEMX_TEAM_SAME_MYPE_NODE: the PEs of my node rank,
 * where nodes are equal and consecutive (else invalid). Every PE decides
 * alike (collective). */
static void nv__teams_make(void)
{
    static const char *call = "nvshmem_init";
    shoal_team_t node = shoal_team_node(nv__sh), t = SHOAL_TEAM_INVALID;
    int me = shoal_my_pe(nv__sh), n = shoal_n_pes(nv__sh), ns = shoal_team_n_pes(node), all = 1, mine = 1, rc;
    char *probe = shoal_malloc(nv__sh, 64);

    if (probe == NULL) nv__die(call, shoal_last_status(nv__sh));
    for (int i = 0; i < ns; i++)
        if (shoal_ptr(nv__sh, probe, shoal_team_translate_pe(node, i, shoal_team_world(nv__sh))) == NULL) mine = 0;
    rc = MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, nv__comm);
    if (rc != MPI_SUCCESS) nv__die_msg(call, "MPI_Allreduce failed");
    NV__OK(call, shoal_free(nv__sh, probe));
    if (all) {
        nv__teams[NVSHMEM_TEAM_SHARED] = node;
    } else {
        NV__OK(call, shoal_team_create_strided(nv__sh, me, 1, 1, &t));
        nv__teams[NVSHMEM_TEAM_SHARED] = t;
    }
    for (int pe = 0; pe < n && all >= 0; pe++)
        if (n % ns != 0 || shoal_pe_node(nv__sh, pe) != pe / ns) all = -1;
    if (all >= 0) {
        t = SHOAL_TEAM_INVALID;
        NV__OK(call, shoal_team_create_strided(nv__sh, me % ns, ns, n / ns, &t));
        nv__teams[NVSHMEMX_TEAM_SAME_MYPE_NODE] = t;
    }
}

/* comm_given: nvshmemx_init_attr named comm (a second init must name the
 * instance's); nvshmem_init joins the instance there is. */
static int nv__start(const char *call, MPI_Comm comm, bool comm_given)
{
    shoal_config_t cfg;
    int rc;

    if (nv__sh != NULL) {
        /* Again: the same communicator, or refused. */
        int same = MPI_UNEQUAL;
        if (comm_given &&
            (MPI_Comm_compare(comm, nv__comm, &same) != MPI_SUCCESS || (same != MPI_IDENT && same != MPI_CONGRUENT))) {
            fprintf(stderr,
                    "%s: NVSHMEM is initialized already, on another communicator (one instance per process; "
                    "call nvshmem_finalize first)\n",
                    call);
            return SHOAL_ERR_INVALID_ARG;
        }
        nv__inits++;
        return 0;
    }
    shoal_config_init(&cfg);
    nv__heap_size(&cfg);
    rc = shoal_init(comm, &cfg, &nv__sh);
    if (rc != SHOAL_SUCCESS) {
        fprintf(stderr, "%s: %s (%s)\n", call, shoal_last_error(NULL), shoal_strerror(rc));
        nv__sh = NULL;
        nvshmem_global_exit(1);
    }
    nv__comm = comm;
    nv__inits = 1;
    memset(nv__teams, 0, sizeof(nv__teams));
    for (int i = 0; i < NV__TEAMS; i++) nv__gens[i]++; /* handles of an earlier instance stay invalid */
    for (int i = 0; i < NV__PREDEFINED; i++) nv__gens[i] = 0;
    nv__teams[NVSHMEM_TEAM_WORLD] = shoal_team_world(nv__sh);
    nv__teams[NVSHMEMX_TEAM_NODE] = shoal_team_node(nv__sh);
    nv__teams_make();
    nv__state_filled = false;
    nv__publish();
    nv__env_report();
    return 0;
}

void nvshmem_init(void)
{
    int init = 0;
    MPI_Initialized(&init);
    if (!init) {
        /* The device proxy needs MPI_THREAD_MULTIPLE. */
        int provided = 0;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
            fprintf(stderr, "nvshmem_init: MPI_Init_thread failed\n");
            exit(1);
        }
        nv__mpi_ours = 1;
    }
    nv__start("nvshmem_init", MPI_COMM_WORLD, false);
}

int nvshmem_init_thread(int requested, int *provided)
{
    (void)requested;
    nvshmem_init();
    nvshmem_query_thread(provided);
    return 0;
}

void nvshmem_query_thread(int *provided)
{
    int level = NVSHMEM_THREAD_SINGLE;
    if (provided == NULL) return;
    MPI_Query_thread(&level);
    *provided = level == MPI_THREAD_MULTIPLE     ? NVSHMEM_THREAD_MULTIPLE
                : level == MPI_THREAD_SERIALIZED ? NVSHMEM_THREAD_SERIALIZED
                : level == MPI_THREAD_FUNNELED   ? NVSHMEM_THREAD_FUNNELED
                                                 : NVSHMEM_THREAD_SINGLE;
}

int nvshmemx_init_attr(unsigned int flags, nvshmemx_init_attr_t *attr)
{
    int init = 0;
    if (flags & ~NVSHMEMX_INIT_WITH_MPI_COMM) {
        fprintf(stderr,
                "nvshmemx_init_attr: flags %#x: shoal carries NVSHMEMX_INIT_WITH_MPI_COMM only (an MPI program's own "
                "communicator); call nvshmem_init or pass the communicator\n",
                flags);
        return SHOAL_ERR_UNSUPPORTED;
    }
    if (!(flags & NVSHMEMX_INIT_WITH_MPI_COMM)) {
        nvshmem_init();
        return 0;
    }
    MPI_Initialized(&init);
    if (!init || attr == NULL || attr->mpi_comm == NULL) {
        fprintf(stderr, "nvshmemx_init_attr: NVSHMEMX_INIT_WITH_MPI_COMM needs MPI initialized and attr->mpi_comm set "
                        "to the address of an MPI_Comm\n");
        return SHOAL_ERR_INVALID_ARG;
    }
    return nv__start("nvshmemx_init_attr", *(MPI_Comm *)attr->mpi_comm, true);
}

int nvshmemx_init_status(void)
{
    return nv__sh != NULL ? NVSHMEM_STATUS_IS_INITIALIZED : NVSHMEM_STATUS_NOT_INITIALIZED;
}

void nvshmem_finalize(void)
{
    shoal_t sh = nv__sh;
    int rc;
    if (nv__sh == NULL) return;
    if (--nv__inits > 0) return; /* an earlier init is not finalized yet */
    /* Kernels launched from now on trap, saying so, instead of using a dead heap. */
    nv__sh = NULL;
    nv__state_fill();
    nv__publish();
    rc = shoal_finalize(sh);
    if (rc != SHOAL_SUCCESS) {
        fprintf(stderr, "nvshmem_finalize: %s\n", shoal_last_error(NULL));
        nvshmem_global_exit(1);
    }
    nv__comm = MPI_COMM_NULL;
    if (nv__mpi_ours) {
        MPI_Finalize();
        nv__mpi_ours = 0;
    }
}

int nvshmem_my_pe(void) { return nv__sh != NULL ? shoal_my_pe(nv__sh) : -1; }
int nvshmem_n_pes(void) { return nv__sh != NULL ? shoal_n_pes(nv__sh) : -1; }

void nvshmem_info_get_version(int *major, int *minor)
{
    if (major) *major = NVSHMEM_MAJOR_VERSION;
    if (minor) *minor = NVSHMEM_MINOR_VERSION;
}

void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch)
{
    if (major) *major = NVSHMEM_VENDOR_MAJOR_VERSION;
    if (minor) *minor = NVSHMEM_VENDOR_MINOR_VERSION;
    if (patch) *patch = NVSHMEM_VENDOR_PATCH_VERSION;
}

void nvshmem_info_get_name(char *name)
{
    if (name) snprintf(name, NVSHMEM_MAX_NAME_LEN, "%s", NVSHMEM_VENDOR_STRING);
}

/* ------------------------------------------------------------ memory */

static void *nv__mem(const char *call, void *p)
{
    if (p == NULL && shoal_last_status(nv__sh) != SHOAL_SUCCESS) nv__die(call, shoal_last_status(nv__sh));
    return p;
}

void *nvshmem_malloc(size_t size)
{
    nv__need("nvshmem_malloc");
    return nv__mem("nvshmem_malloc", shoal_malloc(nv__sh, size));
}

void *nvshmem_calloc(size_t count, size_t size)
{
    nv__need("nvshmem_calloc");
    return nv__mem("nvshmem_calloc", shoal_calloc(nv__sh, count, size));
}

void *nvshmem_align(size_t alignment, size_t size)
{
    nv__need("nvshmem_align");
    return nv__mem("nvshmem_align", shoal_align(nv__sh, alignment, size));
}

void nvshmem_free(void *ptr)
{
    nv__need("nvshmem_free");
    if (ptr != NULL) NV__OK("nvshmem_free", shoal_free(nv__sh, ptr));
}

void *nvshmem_ptr(const void *dest, int pe)
{
    nv__need("nvshmem_ptr");
    return shoal_ptr(nv__sh, dest, pe);
}

int nvshmemx_heap_stats(size_t *used, size_t *mapped, size_t *limit)
{
    shoal_heap_stats_t st;
    if (nv__sh == NULL) {
        fprintf(stderr, "nvshmemx_heap_stats: called before nvshmem_init (or after nvshmem_finalize)\n");
        return SHOAL_ERR_INVALID_INSTANCE;
    }
    int rc = shoal_heap_stats(nv__sh, &st);
    if (rc != SHOAL_SUCCESS) return nv__ret("nvshmemx_heap_stats", rc);
    if (used) *used = st.used;
    if (mapped) *mapped = st.mapped;
    if (limit) *limit = st.limit;
    return 0;
}

int nvshmemx_buffer_register(void *addr, size_t length)
{
    nv__need("nvshmemx_buffer_register");
    return nv__ret("nvshmemx_buffer_register", shoal_register(nv__sh, addr, length));
}

int nvshmemx_buffer_unregister(void *addr)
{
    nv__need("nvshmemx_buffer_unregister");
    return nv__ret("nvshmemx_buffer_unregister", shoal_deregister(nv__sh, addr));
}

/* ------------------------------------------------------------ RMA */

#define NV__RMA_DEF(T, N)                                                                                              \
    void nvshmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                                            \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_put");                                                                                \
        NV__OK("nvshmem_" #N "_put", shoal_##N##_put(nv__sh, dest, source, nelems, pe));                               \
    }                                                                                                                  \
    void nvshmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                                            \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_get");                                                                                \
        NV__OK("nvshmem_" #N "_get", shoal_##N##_get(nv__sh, dest, source, nelems, pe));                               \
    }                                                                                                                  \
    void nvshmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                                        \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_put_nbi");                                                                            \
        NV__OK("nvshmem_" #N "_put_nbi", shoal_##N##_put_nbi(nv__sh, dest, source, nelems, pe));                       \
    }                                                                                                                  \
    void nvshmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                                        \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_get_nbi");                                                                            \
        NV__OK("nvshmem_" #N "_get_nbi", shoal_##N##_get_nbi(nv__sh, dest, source, nelems, pe));                       \
    }                                                                                                                  \
    void nvshmem_##N##_p(T *dest, T value, int pe)                                                                     \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_p");                                                                                  \
        NV__OK("nvshmem_" #N "_p", shoal_##N##_p(nv__sh, dest, value, pe));                                            \
    }                                                                                                                  \
    T nvshmem_##N##_g(const T *source, int pe)                                                                         \
    {                                                                                                                  \
        T v;                                                                                                           \
        nv__need("nvshmem_" #N "_g");                                                                                  \
        NV__OK("nvshmem_" #N "_g", shoal_##N##_g(nv__sh, &v, source, pe));                                             \
        return v;                                                                                                      \
    }                                                                                                                  \
    void nvshmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)             \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_iput");                                                                               \
        NV__OK("nvshmem_" #N "_iput", shoal_##N##_iput(nv__sh, dest, source, dst, sst, nelems, pe));                   \
    }                                                                                                                  \
    void nvshmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)             \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_iget");                                                                               \
        NV__OK("nvshmem_" #N "_iget", shoal_##N##_iget(nv__sh, dest, source, dst, sst, nelems, pe));                   \
    }                                                                                                                  \
    void nvshmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,        \
                                  int sig_op, int pe)                                                                  \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_put_signal");                                                                         \
        if (nelems > SIZE_MAX / sizeof(T)) nv__die_msg("nvshmem_" #N "_put_signal", "nelems overflows a size_t");      \
        NV__OK("nvshmem_" #N "_put_signal",                                                                            \
               shoal_put_signal(nv__sh, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe));              \
    }                                                                                                                  \
    void nvshmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                      int sig_op, int pe)                                                              \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_put_signal_nbi");                                                                     \
        if (nelems > SIZE_MAX / sizeof(T)) nv__die_msg("nvshmem_" #N "_put_signal_nbi", "nelems overflows a size_t");  \
        NV__OK("nvshmem_" #N "_put_signal_nbi",                                                                        \
               shoal_put_signal_nbi(nv__sh, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe));          \
    }
NVSHMEM__RMA_TYPES(NV__RMA_DEF)
#undef NV__RMA_DEF

/* nelems of BITS/8 bytes in bytes, refusing an overflow. */
static size_t nv__bytes(const char *call, size_t nelems, size_t size)
{
    if (nelems > SIZE_MAX / size) nv__die_msg(call, "nelems overflows a size_t");
    return nelems * size;
}

#define NV__SIZED_DEF(BITS)                                                                                            \
    void nvshmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)                                      \
    {                                                                                                                  \
        nv__need("nvshmem_put" #BITS);                                                                                 \
        NV__OK("nvshmem_put" #BITS,                                                                                    \
               shoal_put(nv__sh, dest, source, nv__bytes("nvshmem_put" #BITS, nelems, BITS / 8), pe));                 \
    }                                                                                                                  \
    void nvshmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)                                      \
    {                                                                                                                  \
        nv__need("nvshmem_get" #BITS);                                                                                 \
        NV__OK("nvshmem_get" #BITS,                                                                                    \
               shoal_get(nv__sh, dest, source, nv__bytes("nvshmem_get" #BITS, nelems, BITS / 8), pe));                 \
    }                                                                                                                  \
    void nvshmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)                                \
    {                                                                                                                  \
        nv__need("nvshmem_put" #BITS "_nbi");                                                                          \
        NV__OK("nvshmem_put" #BITS "_nbi",                                                                             \
               shoal_put_nbi(nv__sh, dest, source, nv__bytes("nvshmem_put" #BITS "_nbi", nelems, BITS / 8), pe));      \
    }                                                                                                                  \
    void nvshmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)                                \
    {                                                                                                                  \
        nv__need("nvshmem_get" #BITS "_nbi");                                                                          \
        NV__OK("nvshmem_get" #BITS "_nbi",                                                                             \
               shoal_get_nbi(nv__sh, dest, source, nv__bytes("nvshmem_get" #BITS "_nbi", nelems, BITS / 8), pe));      \
    }                                                                                                                  \
    void nvshmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)       \
    {                                                                                                                  \
        nv__need("nvshmem_iput" #BITS);                                                                                \
        NV__OK("nvshmem_iput" #BITS, shoal_iput##BITS(nv__sh, dest, source, dst, sst, nelems, pe));                    \
    }                                                                                                                  \
    void nvshmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)       \
    {                                                                                                                  \
        nv__need("nvshmem_iget" #BITS);                                                                                \
        NV__OK("nvshmem_iget" #BITS, shoal_iget##BITS(nv__sh, dest, source, dst, sst, nelems, pe));                    \
    }
#define NV__SIZED_SIGNAL_DEF(BITS)                                                                                     \
    void nvshmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,                 \
                                    uint64_t signal, int sig_op, int pe)                                               \
    {                                                                                                                  \
        nv__need("nvshmem_put" #BITS "_signal");                                                                       \
        NV__OK("nvshmem_put" #BITS "_signal",                                                                          \
               shoal_put_signal(nv__sh, dest, source, nv__bytes("nvshmem_put" #BITS "_signal", nelems, BITS / 8),      \
                                sig_addr, signal, sig_op, pe));                                                        \
    }                                                                                                                  \
    void nvshmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,             \
                                        uint64_t signal, int sig_op, int pe)                                           \
    {                                                                                                                  \
        nv__need("nvshmem_put" #BITS "_signal_nbi");                                                                   \
        NV__OK("nvshmem_put" #BITS "_signal_nbi",                                                                      \
               shoal_put_signal_nbi(nv__sh, dest, source,                                                              \
                                    nv__bytes("nvshmem_put" #BITS "_signal_nbi", nelems, BITS / 8), sig_addr, signal,  \
                                    sig_op, pe));                                                                      \
    }
NV__SIZED_SIGNAL_DEF(8)
NV__SIZED_SIGNAL_DEF(16)
NV__SIZED_SIGNAL_DEF(32)
NV__SIZED_SIGNAL_DEF(64)
NV__SIZED_SIGNAL_DEF(128)
#undef NV__SIZED_SIGNAL_DEF

NV__SIZED_DEF(8)
NV__SIZED_DEF(16)
NV__SIZED_DEF(32)
NV__SIZED_DEF(64)
NV__SIZED_DEF(128)
#undef NV__SIZED_DEF

void nvshmem_putmem(void *dest, const void *source, size_t bytes, int pe)
{
    nv__need("nvshmem_putmem");
    NV__OK("nvshmem_putmem", shoal_put(nv__sh, dest, source, bytes, pe));
}

void nvshmem_getmem(void *dest, const void *source, size_t bytes, int pe)
{
    nv__need("nvshmem_getmem");
    NV__OK("nvshmem_getmem", shoal_get(nv__sh, dest, source, bytes, pe));
}

void nvshmem_putmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{
    nv__need("nvshmem_putmem_nbi");
    NV__OK("nvshmem_putmem_nbi", shoal_put_nbi(nv__sh, dest, source, bytes, pe));
}

void nvshmem_getmem_nbi(void *dest, const void *source, size_t bytes, int pe)
{
    nv__need("nvshmem_getmem_nbi");
    NV__OK("nvshmem_getmem_nbi", shoal_get_nbi(nv__sh, dest, source, bytes, pe));
}

/* ------------------------------------------------------------ signals */

void nvshmem_putmem_signal(void *dest, const void *source, size_t bytes, uint64_t *sig_addr, uint64_t signal,
                           int sig_op, int pe)
{
    nv__need("nvshmem_putmem_signal");
    NV__OK("nvshmem_putmem_signal", shoal_put_signal(nv__sh, dest, source, bytes, sig_addr, signal, sig_op, pe));
}

void nvshmem_putmem_signal_nbi(void *dest, const void *source, size_t bytes, uint64_t *sig_addr, uint64_t signal,
                               int sig_op, int pe)
{
    nv__need("nvshmem_putmem_signal_nbi");
    NV__OK("nvshmem_putmem_signal_nbi",
           shoal_put_signal_nbi(nv__sh, dest, source, bytes, sig_addr, signal, sig_op, pe));
}

void nvshmemx_signal_op(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    nv__need("nvshmemx_signal_op");
    NV__OK("nvshmemx_signal_op", shoal_signal_op(nv__sh, sig_addr, signal, sig_op, pe));
}

uint64_t nvshmem_signal_fetch(uint64_t *sig_addr)
{
    uint64_t v = 0;
    nv__need("nvshmem_signal_fetch");
    NV__OK("nvshmem_signal_fetch", shoal_signal_fetch(nv__sh, sig_addr, &v));
    return v;
}

uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    uint64_t v = 0;
    nv__need("nvshmem_signal_wait_until");
    NV__OK("nvshmem_signal_wait_until", shoal_signal_wait_until(nv__sh, sig_addr, cmp, cmp_value, &v));
    return v;
}

/* ------------------------------------------------------------ atomics */

#define NV__AMO_EXT_DEF(T, N)                                                                                          \
    T nvshmem_##N##_atomic_fetch(const T *source, int pe)                                                              \
    {                                                                                                                  \
        T v;                                                                                                           \
        nv__need("nvshmem_" #N "_atomic_fetch");                                                                       \
        NV__OK("nvshmem_" #N "_atomic_fetch", shoal_##N##_atomic_fetch(nv__sh, source, pe, &v));                       \
        return v;                                                                                                      \
    }                                                                                                                  \
    void nvshmem_##N##_atomic_set(T *dest, T value, int pe)                                                            \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_atomic_set");                                                                         \
        NV__OK("nvshmem_" #N "_atomic_set", shoal_##N##_atomic_set(nv__sh, dest, value, pe));                          \
    }                                                                                                                  \
    T nvshmem_##N##_atomic_swap(T *dest, T value, int pe)                                                              \
    {                                                                                                                  \
        T v;                                                                                                           \
        nv__need("nvshmem_" #N "_atomic_swap");                                                                        \
        NV__OK("nvshmem_" #N "_atomic_swap", shoal_##N##_atomic_swap(nv__sh, dest, value, pe, &v));                    \
        return v;                                                                                                      \
    }
#define NV__AMO_FETCH_OP(T, N, OP)                                                                                     \
    T nvshmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe)                                                        \
    {                                                                                                                  \
        T v;                                                                                                           \
        nv__need("nvshmem_" #N "_atomic_fetch_" #OP);                                                                  \
        NV__OK("nvshmem_" #N "_atomic_fetch_" #OP, shoal_##N##_atomic_fetch_##OP(nv__sh, dest, value, pe, &v));        \
        return v;                                                                                                      \
    }                                                                                                                  \
    void nvshmem_##N##_atomic_##OP(T *dest, T value, int pe)                                                           \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_atomic_" #OP);                                                                        \
        NV__OK("nvshmem_" #N "_atomic_" #OP, shoal_##N##_atomic_##OP(nv__sh, dest, value, pe));                        \
    }
#define NV__AMO_STD_DEF(T, N)                                                                                          \
    NV__AMO_EXT_DEF(T, N)                                                                                              \
    T nvshmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe)                                              \
    {                                                                                                                  \
        T v;                                                                                                           \
        nv__need("nvshmem_" #N "_atomic_compare_swap");                                                                \
        NV__OK("nvshmem_" #N "_atomic_compare_swap",                                                                   \
               shoal_##N##_atomic_compare_swap(nv__sh, dest, cond, value, pe, &v));                                    \
        return v;                                                                                                      \
    }                                                                                                                  \
    T nvshmem_##N##_atomic_fetch_inc(T *dest, int pe)                                                                  \
    {                                                                                                                  \
        T v;                                                                                                           \
        nv__need("nvshmem_" #N "_atomic_fetch_inc");                                                                   \
        NV__OK("nvshmem_" #N "_atomic_fetch_inc", shoal_##N##_atomic_fetch_inc(nv__sh, dest, pe, &v));                 \
        return v;                                                                                                      \
    }                                                                                                                  \
    void nvshmem_##N##_atomic_inc(T *dest, int pe)                                                                     \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_atomic_inc");                                                                         \
        NV__OK("nvshmem_" #N "_atomic_inc", shoal_##N##_atomic_inc(nv__sh, dest, pe));                                 \
    }                                                                                                                  \
    NV__AMO_FETCH_OP(T, N, add)
#define NV__AMO_BIT_DEF(T, N) NV__AMO_FETCH_OP(T, N, and) NV__AMO_FETCH_OP(T, N, or) NV__AMO_FETCH_OP(T, N, xor)
SHOAL_AMO_TYPES(NV__AMO_STD_DEF)
SHOAL_AMO_EXT_TYPES(NV__AMO_EXT_DEF)
SHOAL_AMO_BITWISE_TYPES(NV__AMO_BIT_DEF)
#undef NV__AMO_EXT_DEF
#undef NV__AMO_STD_DEF
#undef NV__AMO_BIT_DEF
#undef NV__AMO_FETCH_OP

/* ------------------------------------------------------------ waits */

#define NV__WAIT_DEF(T, N)                                                                                             \
    void nvshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                                       \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_wait_until");                                                                         \
        NV__OK("nvshmem_" #N "_wait_until", shoal_##N##_wait_until(nv__sh, ivar, cmp, cmp_value));                     \
    }                                                                                                                  \
    void nvshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)                \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_wait_until_all");                                                                     \
        NV__OK("nvshmem_" #N "_wait_until_all",                                                                        \
               shoal_##N##_wait_until_all(nv__sh, ivars, nelems, status, cmp, cmp_value));                             \
    }                                                                                                                  \
    size_t nvshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)              \
    {                                                                                                                  \
        size_t i = SIZE_MAX;                                                                                           \
        nv__need("nvshmem_" #N "_wait_until_any");                                                                     \
        NV__OK("nvshmem_" #N "_wait_until_any",                                                                        \
               shoal_##N##_wait_until_any(nv__sh, ivars, nelems, status, cmp, cmp_value, &i));                         \
        return i;                                                                                                      \
    }                                                                                                                  \
    size_t nvshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,         \
                                         T cmp_value)                                                                  \
    {                                                                                                                  \
        size_t n = 0;                                                                                                  \
        nv__need("nvshmem_" #N "_wait_until_some");                                                                    \
        NV__OK("nvshmem_" #N "_wait_until_some",                                                                       \
               shoal_##N##_wait_until_some(nv__sh, ivars, nelems, indices, status, cmp, cmp_value, &n));               \
        return n;                                                                                                      \
    }                                                                                                                  \
    void nvshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values)       \
    {                                                                                                                  \
        nv__need("nvshmem_" #N "_wait_until_all_vector");                                                              \
        NV__OK("nvshmem_" #N "_wait_until_all_vector",                                                                 \
               shoal_##N##_wait_until_all_vector(nv__sh, ivars, nelems, status, cmp, cmp_values));                     \
    }                                                                                                                  \
    size_t nvshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values)     \
    {                                                                                                                  \
        size_t i = SIZE_MAX;                                                                                           \
        nv__need("nvshmem_" #N "_wait_until_any_vector");                                                              \
        NV__OK("nvshmem_" #N "_wait_until_any_vector",                                                                 \
               shoal_##N##_wait_until_any_vector(nv__sh, ivars, nelems, status, cmp, cmp_values, &i));                 \
        return i;                                                                                                      \
    }                                                                                                                  \
    size_t nvshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,  \
                                                T *cmp_values)                                                         \
    {                                                                                                                  \
        size_t n = 0;                                                                                                  \
        nv__need("nvshmem_" #N "_wait_until_some_vector");                                                             \
        NV__OK("nvshmem_" #N "_wait_until_some_vector",                                                                \
               shoal_##N##_wait_until_some_vector(nv__sh, ivars, nelems, indices, status, cmp, cmp_values, &n));       \
        return n;                                                                                                      \
    }                                                                                                                  \
    int nvshmem_##N##_test(T *ivar, int cmp, T cmp_value)                                                              \
    {                                                                                                                  \
        int f = 0;                                                                                                     \
        nv__need("nvshmem_" #N "_test");                                                                               \
        NV__OK("nvshmem_" #N "_test", shoal_##N##_test(nv__sh, ivar, cmp, cmp_value, &f));                             \
        return f;                                                                                                      \
    }                                                                                                                  \
    int nvshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)                       \
    {                                                                                                                  \
        int f = 0;                                                                                                     \
        nv__need("nvshmem_" #N "_test_all");                                                                           \
        NV__OK("nvshmem_" #N "_test_all", shoal_##N##_test_all(nv__sh, ivars, nelems, status, cmp, cmp_value, &f));    \
        return f;                                                                                                      \
    }                                                                                                                  \
    size_t nvshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)                    \
    {                                                                                                                  \
        size_t i = SIZE_MAX;                                                                                           \
        nv__need("nvshmem_" #N "_test_any");                                                                           \
        NV__OK("nvshmem_" #N "_test_any", shoal_##N##_test_any(nv__sh, ivars, nelems, status, cmp, cmp_value, &i));    \
        return i;                                                                                                      \
    }                                                                                                                  \
    size_t nvshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value)  \
    {                                                                                                                  \
        size_t n = 0;                                                                                                  \
        nv__need("nvshmem_" #N "_test_some");                                                                          \
        NV__OK("nvshmem_" #N "_test_some",                                                                             \
               shoal_##N##_test_some(nv__sh, ivars, nelems, indices, status, cmp, cmp_value, &n));                     \
        return n;                                                                                                      \
    }
#define NV__TESTV_DEF(T, N)                                                                                            \
    int nvshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values)              \
    {                                                                                                                  \
        int f = 0;                                                                                                     \
        nv__need("nvshmem_" #N "_test_all_vector");                                                                    \
        NV__OK("nvshmem_" #N "_test_all_vector",                                                                       \
               shoal_##N##_test_all_vector(nv__sh, ivars, nelems, status, cmp, cmp_values, &f));                       \
        return f;                                                                                                      \
    }                                                                                                                  \
    size_t nvshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, T *cmp_values)           \
    {                                                                                                                  \
        size_t i = SIZE_MAX;                                                                                           \
        nv__need("nvshmem_" #N "_test_any_vector");                                                                    \
        NV__OK("nvshmem_" #N "_test_any_vector",                                                                       \
               shoal_##N##_test_any_vector(nv__sh, ivars, nelems, status, cmp, cmp_values, &i));                       \
        return i;                                                                                                      \
    }                                                                                                                  \
    size_t nvshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,        \
                                          T *cmp_values)                                                               \
    {                                                                                                                  \
        size_t n = 0;                                                                                                  \
        nv__need("nvshmem_" #N "_test_some_vector");                                                                   \
        NV__OK("nvshmem_" #N "_test_some_vector",                                                                      \
               shoal_##N##_test_some_vector(nv__sh, ivars, nelems, indices, status, cmp, cmp_values, &n));             \
        return n;                                                                                                      \
    }
SHOAL_WAIT_TYPES(NV__WAIT_DEF)
SHOAL_WAIT_TYPES(NV__TESTV_DEF)
#undef NV__TESTV_DEF
#undef NV__WAIT_DEF

void nvshmem_quiet(void)
{
    nv__need("nvshmem_quiet");
    NV__OK("nvshmem_quiet", shoal_quiet(nv__sh));
}

void nvshmem_fence(void)
{
    nv__need("nvshmem_fence");
    NV__OK("nvshmem_fence", shoal_fence(nv__sh));
}

/* ------------------------------------------------------------ teams */

int nvshmem_team_my_pe(nvshmem_team_t team)
{
    shoal_team_t t = nv__team(team);
    return t == SHOAL_TEAM_INVALID ? -1 : shoal_team_my_pe(t);
}

int nvshmem_team_n_pes(nvshmem_team_t team)
{
    shoal_team_t t = nv__team(team);
    return t == SHOAL_TEAM_INVALID ? -1 : shoal_team_n_pes(t);
}

int nvshmemx_my_pe(nvshmem_team_t team) { return nvshmem_team_my_pe(team); }
int nvshmemx_n_pes(nvshmem_team_t team) { return nvshmem_team_n_pes(team); }

int nvshmem_team_translate_pe(nvshmem_team_t src_team, int src_pe, nvshmem_team_t dest_team)
{
    shoal_team_t s = nv__team(src_team), d = nv__team(dest_team);
    return s == SHOAL_TEAM_INVALID || d == SHOAL_TEAM_INVALID ? -1 : shoal_team_translate_pe(s, src_pe, d);
}

int nvshmem_team_get_config(nvshmem_team_t team, nvshmem_team_config_t *config)
{
    if (nv__team(team) == SHOAL_TEAM_INVALID || config == NULL) {
        fprintf(stderr, "nvshmem_team_get_config: %s\n", config == NULL ? "config is NULL" : "not a valid team");
        return SHOAL_ERR_INVALID_ARG;
    }
    config->num_contexts = 0;
    return 0;
}

/* A free slot for a new team, or -1. */
static int nv__team_slot(void)
{
    for (int i = NV__PREDEFINED; i < NV__TEAMS; i++)
        if (nv__teams[i] == SHOAL_TEAM_INVALID) return i;
    return -1;
}

/* The handle of slot's team. */
static nvshmem_team_t nv__handle(int slot) { return (nvshmem_team_t)(slot | (int)(nv__gens[slot] << 8)); }

int nvshmem_team_split_strided(nvshmem_team_t parent_team, int start, int stride, int size,
                               const nvshmem_team_config_t *config, long config_mask, nvshmem_team_t *new_team)
{
    static const char *call = "nvshmem_team_split_strided";
    shoal_team_t p = nv__team(parent_team), t = SHOAL_TEAM_INVALID;
    int slot, rc;
    (void)config;
    (void)config_mask;
    if (new_team != NULL) *new_team = NVSHMEM_TEAM_INVALID;
    if (p == SHOAL_TEAM_INVALID) {
        fprintf(stderr, "%s: the parent team is not valid\n", call);
        return SHOAL_ERR_INVALID_ARG;
    }
    /* The split is collective: a NULL new_team still takes part, then fails. */
    slot = nv__team_slot();
    rc = shoal_team_split_strided(p, start, stride, size, &t);
    if (rc != SHOAL_SUCCESS) return nv__ret(call, rc);
    if (new_team == NULL) {
        if (t != SHOAL_TEAM_INVALID) shoal_team_destroy(t);
        fprintf(stderr, "%s: new_team is NULL\n", call);
        return SHOAL_ERR_INVALID_ARG;
    }
    if (t == SHOAL_TEAM_INVALID) return 0; /* not a member */
    if (slot < 0) {
        fprintf(stderr, "%s: more than %d teams at once\n", call, NV__TEAMS - NV__PREDEFINED);
        return SHOAL_ERR_INVALID_ARG;
    }
    nv__teams[slot] = t;
    *new_team = nv__handle(slot);
    nv__publish_team(slot);
    return 0;
}

int nvshmem_team_split_2d(nvshmem_team_t parent_team, int xrange, const nvshmem_team_config_t *xaxis_config,
                          long xaxis_mask, nvshmem_team_t *xaxis_team, const nvshmem_team_config_t *yaxis_config,
                          long yaxis_mask, nvshmem_team_t *yaxis_team)
{
    static const char *call = "nvshmem_team_split_2d";
    shoal_team_t p = nv__team(parent_team), x = SHOAL_TEAM_INVALID, y = SHOAL_TEAM_INVALID;
    int rc;
    (void)xaxis_config;
    (void)xaxis_mask;
    (void)yaxis_config;
    (void)yaxis_mask;
    if (xaxis_team != NULL) *xaxis_team = NVSHMEM_TEAM_INVALID;
    if (yaxis_team != NULL) *yaxis_team = NVSHMEM_TEAM_INVALID;
    if (p == SHOAL_TEAM_INVALID || xaxis_team == NULL || yaxis_team == NULL) {
        fprintf(stderr, "%s: %s\n", call,
                p == SHOAL_TEAM_INVALID ? "the parent team is not valid" : "a team pointer is NULL");
        return SHOAL_ERR_INVALID_ARG;
    }
    rc = shoal_team_split_2d(p, xrange, &x, &y);
    if (rc != SHOAL_SUCCESS) return nv__ret(call, rc);
    if (x != SHOAL_TEAM_INVALID) {
        int s = nv__team_slot();
        if (s < 0) return nv__ret(call, SHOAL_ERR_INVALID_ARG);
        nv__teams[s] = x;
        *xaxis_team = nv__handle(s);
        nv__publish_team(s);
    }
    if (y != SHOAL_TEAM_INVALID) {
        int s = nv__team_slot();
        if (s < 0) return nv__ret(call, SHOAL_ERR_INVALID_ARG);
        nv__teams[s] = y;
        *yaxis_team = nv__handle(s);
        nv__publish_team(s);
    }
    return 0;
}

void nvshmem_team_destroy(nvshmem_team_t team)
{
    shoal_team_t t = nv__team(team);
    if (team == NVSHMEM_TEAM_INVALID || (t != SHOAL_TEAM_INVALID && team < NV__PREDEFINED)) return; /* nothing */
    if (t == SHOAL_TEAM_INVALID) {
        fprintf(stderr, "nvshmem_team_destroy: team %d is not a valid team of this PE (destroyed already?)\n",
                (int)team);
        return;
    }
    NV__OK("nvshmem_team_destroy", shoal_team_destroy(t));
    nv__teams[team & 0xff] = SHOAL_TEAM_INVALID;
    nv__gens[team & 0xff]++;
    nv__publish_team(team & 0xff);
}

/* ------------------------------------------------------------ collectives */

#define NV__TEAM_OR_FAIL(call, team, t)                                                                                \
    shoal_team_t t = nv__team(team);                                                                                   \
    if (t == SHOAL_TEAM_INVALID) {                                                                                     \
        fprintf(stderr, "%s: team %d is not a valid team of this PE\n", (call), (int)(team));                          \
        return SHOAL_ERR_INVALID_ARG;                                                                                  \
    }

void nvshmem_barrier_all(void)
{
    nv__need("nvshmem_barrier_all");
    NV__OK("nvshmem_barrier_all", shoal_barrier_all(nv__sh));
}

void nvshmem_sync_all(void)
{
    nv__need("nvshmem_sync_all");
    NV__OK("nvshmem_sync_all", shoal_sync_all(nv__sh));
}

int nvshmem_barrier(nvshmem_team_t team)
{
    NV__TEAM_OR_FAIL("nvshmem_barrier", team, t);
    return nv__ret("nvshmem_barrier", shoal_team_barrier(t));
}

int nvshmem_team_sync(nvshmem_team_t team)
{
    NV__TEAM_OR_FAIL("nvshmem_team_sync", team, t);
    return nv__ret("nvshmem_team_sync", shoal_team_sync(t));
}

int nvshmem_sync(nvshmem_team_t team) { return nvshmem_team_sync(team); }

int nvshmem_broadcastmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    NV__TEAM_OR_FAIL("nvshmem_broadcastmem", team, t);
    return nv__ret("nvshmem_broadcastmem", shoal_broadcastmem(t, dest, source, nelems, PE_root));
}

int nvshmem_fcollectmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    NV__TEAM_OR_FAIL("nvshmem_fcollectmem", team, t);
    return nv__ret("nvshmem_fcollectmem", shoal_fcollectmem(t, dest, source, nelems));
}

int nvshmem_alltoallmem(nvshmem_team_t team, void *dest, const void *source, size_t nelems)
{
    NV__TEAM_OR_FAIL("nvshmem_alltoallmem", team, t);
    return nv__ret("nvshmem_alltoallmem", shoal_alltoallmem(t, dest, source, nelems));
}

#define NV__COLL_DEF(T, N)                                                                                             \
    int nvshmem_##N##_broadcast(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root)             \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmem_" #N "_broadcast", team, t);                                                         \
        return nv__ret("nvshmem_" #N "_broadcast", shoal_##N##_broadcast(t, dest, source, nelems, PE_root));           \
    }                                                                                                                  \
    int nvshmem_##N##_fcollect(nvshmem_team_t team, T *dest, const T *source, size_t nelems)                           \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmem_" #N "_fcollect", team, t);                                                          \
        return nv__ret("nvshmem_" #N "_fcollect", shoal_##N##_fcollect(t, dest, source, nelems));                      \
    }                                                                                                                  \
    int nvshmem_##N##_alltoall(nvshmem_team_t team, T *dest, const T *source, size_t nelems)                           \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmem_" #N "_alltoall", team, t);                                                          \
        return nv__ret("nvshmem_" #N "_alltoall", shoal_##N##_alltoall(t, dest, source, nelems));                      \
    }
NVSHMEM__RMA_TYPES(NV__COLL_DEF)
#undef NV__COLL_DEF

#define NV__REDUCE_DEF1(T, N, OP)                                                                                      \
    int nvshmem_##N##_##OP##_reduce(nvshmem_team_t team, T *dest, const T *source, size_t nreduce)                     \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmem_" #N "_" #OP "_reduce", team, t);                                                    \
        return nv__ret("nvshmem_" #N "_" #OP "_reduce", shoal_##N##_##OP##_reduce(t, dest, source, nreduce));          \
    }                                                                                                                  \
    int nvshmem_##N##_##OP##_reducescatter(nvshmem_team_t team, T *dest, const T *source, size_t nreduce)              \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmem_" #N "_" #OP "_reducescatter", team, t);                                             \
        return nv__ret("nvshmem_" #N "_" #OP "_reducescatter",                                                         \
                       shoal_##N##_##OP##_reducescatter(t, dest, source, nreduce));                                    \
    }
#define NV__REDUCE_BIT_DEF(T, N) NV__REDUCE_DEF1(T, N, and) NV__REDUCE_DEF1(T, N, or) NV__REDUCE_DEF1(T, N, xor)
#define NV__REDUCE_ARITH_DEF(T, N)                                                                                     \
    NV__REDUCE_DEF1(T, N, min) NV__REDUCE_DEF1(T, N, max) NV__REDUCE_DEF1(T, N, sum) NV__REDUCE_DEF1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(NV__REDUCE_BIT_DEF)
SHOAL_REDUCE_ARITH_TYPES(NV__REDUCE_ARITH_DEF)
NVSHMEM__HALF_TYPES(NV__REDUCE_ARITH_DEF)
#undef NV__REDUCE_BIT_DEF
#undef NV__REDUCE_ARITH_DEF
#undef NV__REDUCE_DEF1

/* ------------------------------------------------------------ streams */

#if SHOAL_HAVE_CUDA && defined(SHOAL_NVSHMEM_STREAMS)
/* RMA on a stream. An _nbi form is the same stream operation (it never
 * blocks the host where the copy engine carries it). SUFFIX: nothing or
 * _nbi. */
#define NV__MEM_STREAM_DEF(SUFFIX)                                                                                     \
    void nvshmemx_putmem##SUFFIX##_on_stream(void *dest, const void *source, size_t bytes, int pe,                     \
                                             cudaStream_t stream)                                                      \
    {                                                                                                                  \
        static const char *call = "nvshmemx_putmem" #SUFFIX "_on_stream";                                              \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_put_on_stream(nv__sh, dest, source, bytes, pe, stream));                                    \
    }                                                                                                                  \
    void nvshmemx_getmem##SUFFIX##_on_stream(void *dest, const void *source, size_t bytes, int pe,                     \
                                             cudaStream_t stream)                                                      \
    {                                                                                                                  \
        static const char *call = "nvshmemx_getmem" #SUFFIX "_on_stream";                                              \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_get_on_stream(nv__sh, dest, source, bytes, pe, stream));                                    \
    }                                                                                                                  \
    void nvshmemx_putmem_signal##SUFFIX##_on_stream(void *dest, const void *source, size_t bytes, uint64_t *sig_addr,  \
                                                    uint64_t signal, int sig_op, int pe, cudaStream_t stream)          \
    {                                                                                                                  \
        static const char *call = "nvshmemx_putmem_signal" #SUFFIX "_on_stream";                                       \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_put_signal_on_stream(nv__sh, dest, source, bytes, sig_addr, signal, sig_op, pe, stream));   \
    }
NV__MEM_STREAM_DEF()
NV__MEM_STREAM_DEF(_nbi)
#undef NV__MEM_STREAM_DEF

#define NV__TYPED_STREAM_DEF(T, N, SUFFIX)                                                                             \
    void nvshmemx_##N##_put##SUFFIX##_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream)  \
    {                                                                                                                  \
        static const char *call = "nvshmemx_" #N "_put" #SUFFIX "_on_stream";                                          \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_##N##_put_on_stream(nv__sh, dest, source, nelems, pe, stream));                             \
    }                                                                                                                  \
    void nvshmemx_##N##_get##SUFFIX##_on_stream(T *dest, const T *source, size_t nelems, int pe, cudaStream_t stream)  \
    {                                                                                                                  \
        static const char *call = "nvshmemx_" #N "_get" #SUFFIX "_on_stream";                                          \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_##N##_get_on_stream(nv__sh, dest, source, nelems, pe, stream));                             \
    }                                                                                                                  \
    void nvshmemx_##N##_put_signal##SUFFIX##_on_stream(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,    \
                                                       uint64_t signal, int sig_op, int pe, cudaStream_t stream)       \
    {                                                                                                                  \
        static const char *call = "nvshmemx_" #N "_put_signal" #SUFFIX "_on_stream";                                   \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_put_signal_on_stream(nv__sh, dest, source, nv__bytes(call, nelems, sizeof(T)), sig_addr,    \
                                                signal, sig_op, pe, stream));                                          \
    }
#define NV__STREAM_DEF(T, N)                                                                                           \
    NV__TYPED_STREAM_DEF(T, N, )                                                                                       \
    NV__TYPED_STREAM_DEF(T, N, _nbi)                                                                                   \
    void nvshmemx_##N##_p_on_stream(T *dest, T value, int pe, cudaStream_t stream)                                     \
    {                                                                                                                  \
        nv__need("nvshmemx_" #N "_p_on_stream");                                                                       \
        NV__OK("nvshmemx_" #N "_p_on_stream", shoal_##N##_p_on_stream(nv__sh, dest, value, pe, stream));               \
    }
NVSHMEM__RMA_TYPES(NV__STREAM_DEF)
#undef NV__STREAM_DEF
#undef NV__TYPED_STREAM_DEF

/* Sized forms: BITS of 8 to 128, counts in elements of BITS/8 bytes. */
#define NV__SIZED_STREAM1(BITS, SUFFIX)                                                                                \
    void nvshmemx_put##BITS##SUFFIX##_on_stream(void *dest, const void *source, size_t nelems, int pe,                 \
                                                cudaStream_t stream)                                                   \
    {                                                                                                                  \
        static const char *call = "nvshmemx_put" #BITS #SUFFIX "_on_stream";                                           \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_put_on_stream(nv__sh, dest, source, nv__bytes(call, nelems, BITS / 8), pe, stream));        \
    }                                                                                                                  \
    void nvshmemx_get##BITS##SUFFIX##_on_stream(void *dest, const void *source, size_t nelems, int pe,                 \
                                                cudaStream_t stream)                                                   \
    {                                                                                                                  \
        static const char *call = "nvshmemx_get" #BITS #SUFFIX "_on_stream";                                           \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_get_on_stream(nv__sh, dest, source, nv__bytes(call, nelems, BITS / 8), pe, stream));        \
    }                                                                                                                  \
    void nvshmemx_put##BITS##_signal##SUFFIX##_on_stream(void *dest, const void *source, size_t nelems,                \
                                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe,      \
                                                         cudaStream_t stream)                                          \
    {                                                                                                                  \
        static const char *call = "nvshmemx_put" #BITS "_signal" #SUFFIX "_on_stream";                                 \
        nv__need(call);                                                                                                \
        NV__OK(call, shoal_put_signal_on_stream(nv__sh, dest, source, nv__bytes(call, nelems, BITS / 8), sig_addr,     \
                                                signal, sig_op, pe, stream));                                          \
    }
#define NV__SIZED_STREAM_DEF(BITS) NV__SIZED_STREAM1(BITS, ) NV__SIZED_STREAM1(BITS, _nbi)
NV__SIZED_STREAM_DEF(8)
NV__SIZED_STREAM_DEF(16)
NV__SIZED_STREAM_DEF(32)
NV__SIZED_STREAM_DEF(64)
NV__SIZED_STREAM_DEF(128)
#undef NV__SIZED_STREAM_DEF
#undef NV__SIZED_STREAM1

#define NV__WAIT_STREAM_DEF(T, N)                                                                                      \
    void nvshmemx_##N##_wait_until_on_stream(T *ivar, int cmp, T cmp_value, cudaStream_t stream)                       \
    {                                                                                                                  \
        nv__need("nvshmemx_" #N "_wait_until_on_stream");                                                              \
        NV__OK("nvshmemx_" #N "_wait_until_on_stream",                                                                 \
               shoal_##N##_wait_until_on_stream(nv__sh, ivar, cmp, cmp_value, stream));                                \
    }                                                                                                                  \
    void nvshmemx_##N##_wait_until_all_on_stream(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value,     \
                                                 cudaStream_t stream)                                                  \
    {                                                                                                                  \
        nv__need("nvshmemx_" #N "_wait_until_all_on_stream");                                                          \
        NV__OK("nvshmemx_" #N "_wait_until_all_on_stream",                                                             \
               shoal_##N##_wait_until_all_on_stream(nv__sh, ivars, nelems, status, cmp, cmp_value, stream));           \
    }                                                                                                                  \
    void nvshmemx_##N##_wait_until_all_vector_on_stream(T *ivars, size_t nelems, const int *status, int cmp,           \
                                                        T *cmp_values, cudaStream_t stream)                            \
    {                                                                                                                  \
        nv__need("nvshmemx_" #N "_wait_until_all_vector_on_stream");                                                   \
        NV__OK("nvshmemx_" #N "_wait_until_all_vector_on_stream",                                                      \
               shoal_##N##_wait_until_all_vector_on_stream(nv__sh, ivars, nelems, status, cmp, cmp_values, stream));   \
    }
SHOAL_WAIT_TYPES(NV__WAIT_STREAM_DEF)
#undef NV__WAIT_STREAM_DEF

void nvshmemx_signal_op_on_stream(uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, cudaStream_t stream)
{
    nv__need("nvshmemx_signal_op_on_stream");
    NV__OK("nvshmemx_signal_op_on_stream", shoal_signal_op_on_stream(nv__sh, sig_addr, signal, sig_op, pe, stream));
}

void nvshmemx_signal_wait_until_on_stream(uint64_t *sig_addr, int cmp, uint64_t cmp_value, cudaStream_t stream)
{
    nv__need("nvshmemx_signal_wait_until_on_stream");
    NV__OK("nvshmemx_signal_wait_until_on_stream",
           shoal_signal_wait_until_on_stream(nv__sh, sig_addr, cmp, cmp_value, stream));
}

void nvshmemx_quiet_on_stream(cudaStream_t stream)
{
    nv__need("nvshmemx_quiet_on_stream");
    NV__OK("nvshmemx_quiet_on_stream", shoal_quiet_on_stream(nv__sh, stream));
}

void nvshmemx_barrier_all_on_stream(cudaStream_t stream)
{
    nv__need("nvshmemx_barrier_all_on_stream");
    NV__OK("nvshmemx_barrier_all_on_stream", shoal_barrier_all_on_stream(nv__sh, stream));
}

void nvshmemx_sync_all_on_stream(cudaStream_t stream)
{
    nv__need("nvshmemx_sync_all_on_stream");
    NV__OK("nvshmemx_sync_all_on_stream", shoal_barrier_all_on_stream(nv__sh, stream));
}

int nvshmemx_barrier_on_stream(nvshmem_team_t team, cudaStream_t stream)
{
    NV__TEAM_OR_FAIL("nvshmemx_barrier_on_stream", team, t);
    return nv__ret("nvshmemx_barrier_on_stream", shoal_team_barrier_on_stream(t, stream));
}

int nvshmemx_team_sync_on_stream(nvshmem_team_t team, cudaStream_t stream)
{
    NV__TEAM_OR_FAIL("nvshmemx_team_sync_on_stream", team, t);
    return nv__ret("nvshmemx_team_sync_on_stream", shoal_team_barrier_on_stream(t, stream));
}

int nvshmemx_broadcastmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root,
                                    cudaStream_t stream)
{
    NV__TEAM_OR_FAIL("nvshmemx_broadcastmem_on_stream", team, t);
    return nv__ret("nvshmemx_broadcastmem_on_stream",
                   shoal_broadcastmem_on_stream(t, dest, source, nelems, PE_root, stream));
}

int nvshmemx_fcollectmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                   cudaStream_t stream)
{
    NV__TEAM_OR_FAIL("nvshmemx_fcollectmem_on_stream", team, t);
    return nv__ret("nvshmemx_fcollectmem_on_stream", shoal_fcollectmem_on_stream(t, dest, source, nelems, stream));
}

int nvshmemx_alltoallmem_on_stream(nvshmem_team_t team, void *dest, const void *source, size_t nelems,
                                   cudaStream_t stream)
{
    NV__TEAM_OR_FAIL("nvshmemx_alltoallmem_on_stream", team, t);
    return nv__ret("nvshmemx_alltoallmem_on_stream", shoal_alltoallmem_on_stream(t, dest, source, nelems, stream));
}

#define NV__COLL_STREAM_DEF(T, N)                                                                                      \
    int nvshmemx_##N##_broadcast_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root,  \
                                           cudaStream_t stream)                                                        \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmemx_" #N "_broadcast_on_stream", team, t);                                              \
        return nv__ret("nvshmemx_" #N "_broadcast_on_stream",                                                          \
                       shoal_##N##_broadcast_on_stream(t, dest, source, nelems, PE_root, stream));                     \
    }                                                                                                                  \
    int nvshmemx_##N##_fcollect_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,                \
                                          cudaStream_t stream)                                                         \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmemx_" #N "_fcollect_on_stream", team, t);                                               \
        return nv__ret("nvshmemx_" #N "_fcollect_on_stream",                                                           \
                       shoal_##N##_fcollect_on_stream(t, dest, source, nelems, stream));                               \
    }                                                                                                                  \
    int nvshmemx_##N##_alltoall_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nelems,                \
                                          cudaStream_t stream)                                                         \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmemx_" #N "_alltoall_on_stream", team, t);                                               \
        return nv__ret("nvshmemx_" #N "_alltoall_on_stream",                                                           \
                       shoal_##N##_alltoall_on_stream(t, dest, source, nelems, stream));                               \
    }
NVSHMEM__RMA_TYPES(NV__COLL_STREAM_DEF)
#undef NV__COLL_STREAM_DEF
#define NV__REDUCE_STREAM1(T, N, OP)                                                                                   \
    int nvshmemx_##N##_##OP##_reduce_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nreduce,          \
                                               cudaStream_t stream)                                                    \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmemx_" #N "_" #OP "_reduce_on_stream", team, t);                                         \
        return nv__ret("nvshmemx_" #N "_" #OP "_reduce_on_stream",                                                     \
                       shoal_##N##_##OP##_reduce_on_stream(t, dest, source, nreduce, stream));                         \
    }                                                                                                                  \
    int nvshmemx_##N##_##OP##_reducescatter_on_stream(nvshmem_team_t team, T *dest, const T *source, size_t nreduce,   \
                                                      cudaStream_t stream)                                             \
    {                                                                                                                  \
        NV__TEAM_OR_FAIL("nvshmemx_" #N "_" #OP "_reducescatter_on_stream", team, t);                                  \
        return nv__ret("nvshmemx_" #N "_" #OP "_reducescatter_on_stream",                                              \
                       shoal_##N##_##OP##_reducescatter_on_stream(t, dest, source, nreduce, stream));                  \
    }
#define NV__REDUCE_STREAM_BIT(T, N)                                                                                    \
    NV__REDUCE_STREAM1(T, N, and) NV__REDUCE_STREAM1(T, N, or) NV__REDUCE_STREAM1(T, N, xor)
#define NV__REDUCE_STREAM_ARITH(T, N)                                                                                  \
    NV__REDUCE_STREAM1(T, N, min)                                                                                      \
    NV__REDUCE_STREAM1(T, N, max) NV__REDUCE_STREAM1(T, N, sum) NV__REDUCE_STREAM1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(NV__REDUCE_STREAM_BIT)
SHOAL_REDUCE_ARITH_TYPES(NV__REDUCE_STREAM_ARITH)
NVSHMEM__HALF_TYPES(NV__REDUCE_STREAM_ARITH)
#undef NV__REDUCE_STREAM_BIT
#undef NV__REDUCE_STREAM_ARITH
#undef NV__REDUCE_STREAM1
#endif
