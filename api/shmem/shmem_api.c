/* OpenSHMEM 1.5 on shoal (api/shmem/shmem.h): the library's life (init joins an
 * MPI program or starts MPI itself; finalize ends MPI only then, and runs
 * at exit where the program does not call it), memory, teams and
 * contexts. The communication routines are in api/shmem/shmem_ops.c.
 * A shoal error in a routine that OpenSHMEM defines without a status
 * prints shoal's message and aborts the job (shmem__die). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shmem.h"
#include "shmemx.h"
#include "shmem_internal.h"
#include "base/shoal_instance.h"

SHMEM__HIDDEN shoal_t shmem__sh;
SHMEM__HIDDEN unsigned long shmem__epoch;
shmem_team_t shmem__team_world, shmem__team_shared;
struct shmem__ctx shmem__ctx_default = {.magic = SHMEM__CTX_MAGIC};
static int shmem__mpi_ours;  /* shmem_init started MPI: shmem_finalize ends it */
static int shmem__finalized; /* shmem_finalize ran */
static int shmem__provided = SHMEM_THREAD_SINGLE;

void shmem__die(const char *call, int status)
{
    fprintf(stderr, "%s: %s (%s)\n", call, shoal_last_error(shmem__sh), shoal_strerror(status));
    fflush(stderr);
    fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
    abort(); /* MPI_Abort returned: not in an MPI job */
}

/* What shoal's messages about the layer's instance call shoal's calls: the
 * OpenSHMEM routine a program called (shoal_put is shmem_putmem, ...),
 * else the same name with OpenSHMEM's prefix (shoal_double_put). */
static const shoal__names_t shmem__names[] = {
    {"shoal_put", "shmem_putmem"},
    {"shoal_get", "shmem_getmem"},
    {"shoal_put_nbi", "shmem_putmem_nbi"},
    {"shoal_get_nbi", "shmem_getmem_nbi"},
    {"shoal_put_signal", "shmem_putmem_signal"},
    {"shoal_put_signal_nbi", "shmem_putmem_signal_nbi"},
    {"shoal_register", "shmem_init (registering the program's globals)"},
    {"shoal_register_shared", "shmem_init (registering the program's globals)"},
    {"shoal_deregister", "shmem_finalize (deregistering the program's globals)"},
    {"shoal_team_barrier", "shmem_team_sync"},
    {"shoal_", "shmem_"},
    {NULL, NULL},
};

int shmem__fail(const char *call, int status)
{
    fprintf(stderr, "%s: %s (%s)\n", call, shoal_last_error(shmem__sh), shoal_strerror(status));
    fflush(stderr);
    return status;
}

void shmem__uninit(const char *call)
{
    fprintf(stderr, "%s: OpenSHMEM is not initialized%s\n", call,
            shmem__finalized ? " any more (shmem_finalize ran)" : ": call shmem_init first");
    fflush(stderr);
    abort();
}

/* "64m", "2G", "512kB", "4096": bytes, or 0 where it is not such a size. */
static size_t shmem__parse_size(const char *v)
{
    char *end;
    double x = strtod(v, &end);
    size_t mult = 1;

    if (end == v || x < 0) return 0;
    switch (*end) {
    case 'k':
    case 'K':
        mult = (size_t)1 << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mult = (size_t)1 << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mult = (size_t)1 << 30;
        end++;
        break;
    case 't':
    case 'T':
        mult = (size_t)1 << 40;
        end++;
        break;
    default: break;
    }
    if (*end == 'b' || *end == 'B') end++;
    if (*end != '\0') return 0;
    /* Past 2^62 bytes (or NaN) is no size: the conversion would be undefined. */
    if (!(x * (double)mult < 4611686018427387904.0)) return 0;
    return (size_t)(x * (double)mult);
}

static int shmem__mpi_level(int shmem_level)
{
    switch (shmem_level) {
    case SHMEM_THREAD_SINGLE: return MPI_THREAD_SINGLE;
    case SHMEM_THREAD_FUNNELED: return MPI_THREAD_FUNNELED;
    case SHMEM_THREAD_SERIALIZED: return MPI_THREAD_SERIALIZED;
    default: return MPI_THREAD_MULTIPLE;
    }
}

static int shmem__shmem_level(int mpi_level)
{
    switch (mpi_level) {
    case MPI_THREAD_SINGLE: return SHMEM_THREAD_SINGLE;
    case MPI_THREAD_FUNNELED: return SHMEM_THREAD_FUNNELED;
    case MPI_THREAD_SERIALIZED: return SHMEM_THREAD_SERIALIZED;
    default: return SHMEM_THREAD_MULTIPLE;
    }
}

/* The program's writable segments (data, bss): registered, so that its
 * globals and statics are symmetric. The main program is the first object
 * dl_iterate_phdr reports. GNU ld makes one writable PT_LOAD of them; lld
 * two (the RELRO part, .got and .data.rel.ro, then .data and .bss): every
 * one is registered, with shoal_register_shared, so that node peers reach
 * the globals with loads and stores. Each is widened to whole pages: the
 * segment's first and last pages belong to its mapping alone (the kernel
 * starts the brk heap on a later page), so the pages where the first and
 * last globals live are shared too; segments that then share a page are
 * one range. */
#define SHMEM__MAX_SEGS 8
typedef struct shmem__segs {
    struct {
        char *base;
        size_t size;
    } seg[SHMEM__MAX_SEGS];
    int n;
} shmem__segs_t;

static int shmem__find_data(struct dl_phdr_info *info, size_t size, void *arg)
{
    shmem__segs_t *segs = arg;
    long sys_pg = sysconf(_SC_PAGESIZE);
    uintptr_t pg = sys_pg > 0 ? (uintptr_t)sys_pg : 4096;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum && segs->n < SHMEM__MAX_SEGS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz > 0) {
            uintptr_t lo = (uintptr_t)(info->dlpi_addr + ph->p_vaddr) / pg * pg;
            uintptr_t hi = ((uintptr_t)(info->dlpi_addr + ph->p_vaddr + ph->p_memsz) + pg - 1) / pg * pg;
            if (segs->n > 0 && lo < (uintptr_t)(segs->seg[segs->n - 1].base + segs->seg[segs->n - 1].size)) {
                /* The page of the previous segment's end (segments come in
                 * address order): one range. */
                char *prev = segs->seg[segs->n - 1].base;
                if (hi > (uintptr_t)(prev + segs->seg[segs->n - 1].size))
                    segs->seg[segs->n - 1].size = (size_t)(hi - (uintptr_t)prev);
                continue;
            }
            segs->seg[segs->n].base = (char *)lo;
            segs->seg[segs->n].size = (size_t)(hi - lo);
            segs->n++;
        }
    }
    return 1; /* the main program only */
}

/* Implicit finalization, which OpenSHMEM 1.5 keeps for programs that never
 * call shmem_finalize (start_pes' among them): at a normal exit, as
 * shmem_finalize does it (collectively; MPI ended where shmem_init started
 * it). A PE that exits with another status finalizes nothing: the others
 * may never come to meet it (mpiexec takes them down); nor can it be done
 * once the program ended MPI itself. on_exit gives that status (atexit
 * where the C library has no on_exit). */
/* The process that called shmem_init: a child made by fork inherits the
 * exit handler, but not the PE (its MPI is a copy it must not finalize). */
static pid_t shmem__pid;

static void shmem__exit_finalize(int status, void *arg)
{
    int done = 0;
    (void)arg;
    if (shmem__sh == NULL || status != 0 || getpid() != shmem__pid) return;
    if (MPI_Finalized(&done) != MPI_SUCCESS || done) return;
    shmem_finalize();
}
#ifndef __GLIBC__
static void shmem__exit_finalize_any(void) { shmem__exit_finalize(0, NULL); }
#endif

static void shmem__start(int requested)
{
    static int exit_hooked; /* shmem__exit_finalize registered (once per process) */
    shoal_config_t cfg;
    shmem__segs_t segs = {.n = 0};
    const char *v, *var;
    int inited = 0, level = MPI_THREAD_SINGLE, rank = 0, rc;

    if (shmem__sh != NULL) return; /* called again: nothing more */
    if (MPI_Initialized(&inited) != MPI_SUCCESS) inited = 0;
    if (!inited) {
        if (MPI_Init_thread(NULL, NULL, shmem__mpi_level(requested), &level) != MPI_SUCCESS) {
            fprintf(stderr, "shmem_init: MPI_Init_thread failed\n");
            abort();
        }
        shmem__mpi_ours = 1;
    } else if (MPI_Query_thread(&level) != MPI_SUCCESS)
        level = MPI_THREAD_SINGLE;
    shmem__provided = shmem__shmem_level(level);
    /* Before shoal_init: SHMEM_INFO explains the variables also where one
     * of them makes it fail. World rank 0 is PE 0. */
    if (MPI_Comm_rank(MPI_COMM_WORLD, &rank) == MPI_SUCCESS) shmem__env_report(rank);
    if (shmem__env("SHMEM_DEBUG", NULL) != NULL && getenv("SHOAL_DEBUG") == NULL) setenv("SHOAL_DEBUG", "INFO", 0);
    shoal_config_init(&cfg);
    if (getenv("SHOAL_HEAP_KIND") == NULL) cfg.heap_kind = SHOAL_HEAP_HOST; /* SHMEM programs read their heap */
    if ((v = shmem__env("SHMEM_SYMMETRIC_SIZE", &var)) != NULL) {
        size_t n = shmem__parse_size(v);
        if (n == 0) {
            fprintf(stderr, "shmem_init: PE %d: %s=%s is not a size (such as 512m or 2g)\n", rank, var, v);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        cfg.heap_size = n;
    }
    rc = shoal_init(MPI_COMM_WORLD, &cfg, &shmem__sh);
    if (rc != SHOAL_SUCCESS) {
        fprintf(stderr, "shmem_init: %s\n", shoal_last_error(NULL));
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    shmem__sh->names = shmem__names; /* messages name OpenSHMEM's calls */
    shmem__pid = getpid();
    shmem__epoch++;
    shmem__team_world = shoal_team_world(shmem__sh);
    shmem__team_shared = shoal_team_node(shmem__sh);
    shmem__ctx_default.sh = shmem__sh;
    shmem__ctx_default.team = shmem__team_world;
    dl_iterate_phdr(shmem__find_data, &segs);
    for (int i = 0; i < segs.n; i++) {
        rc = shoal_register_shared(shmem__sh, segs.seg[i].base, segs.seg[i].size);
        if (rc != SHOAL_SUCCESS) shmem__die("shmem_init (registering the program's data)", rc);
    }
    if (!exit_hooked) {
        exit_hooked = 1;
#ifdef __GLIBC__
        on_exit(shmem__exit_finalize, NULL);
#else
        atexit(shmem__exit_finalize_any);
#endif
    }
}

void shmem_init(void) { shmem__start(SHMEM_THREAD_SINGLE); }

int shmem_init_thread(int requested, int *provided)
{
    shmem__start(requested);
    if (provided != NULL) *provided = shmem__provided;
    return 0;
}

void shmem_query_thread(int *provided)
{
    if (provided != NULL) *provided = shmem__provided;
}

static void shmem__team_cfgs_clear(void);

void shmem_finalize(void)
{
    int rc;
    if (shmem__sh == NULL) return; /* not initialized, or finalized already */
    rc = shoal_finalize(shmem__sh);
    shmem__sh = NULL;
    shmem__team_world = shmem__team_shared = SHMEM_TEAM_INVALID;
    shmem__team_cfgs_clear();
    shmem__finalized = 1;
    if (rc != SHOAL_SUCCESS) {
        fprintf(stderr, "shmem_finalize: %s\n", shoal_last_error(NULL));
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (shmem__mpi_ours) MPI_Finalize();
}

void shmem_global_exit(int status)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, status);
    exit(status);
}

shoal_t shmem_shoal(void) { return shmem__sh; }

int shmem_my_pe(void)
{
    SHMEM__NEED("shmem_my_pe");
    return shoal_my_pe(shmem__sh);
}

int shmem_n_pes(void)
{
    SHMEM__NEED("shmem_n_pes");
    return shoal_n_pes(shmem__sh);
}

int shmem_pe_accessible(int pe)
{
    SHMEM__NEED("shmem_pe_accessible");
    return pe >= 0 && pe < shoal_n_pes(shmem__sh);
}

int shmem_addr_accessible(const void *addr, int pe)
{
    SHMEM__NEED("shmem_addr_accessible");
    return shmem_pe_accessible(pe) && shoal_addr_accessible(shmem__sh, addr, pe) == 1;
}

/* pe's copy of dest where this PE can load and store it: heap memory and
 * globals (shared by shmem_init's shoal_register_shared) of the PEs of
 * this node. */
void *shmem_ptr(const void *dest, int pe)
{
    SHMEM__NEED("shmem_ptr");
    if (pe == shoal_my_pe(shmem__sh) && shmem_addr_accessible(dest, pe)) return (void *)dest;
    return shoal_ptr(shmem__sh, dest, pe);
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major != NULL) *major = SHMEM_MAJOR_VERSION;
    if (minor != NULL) *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name != NULL) snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

/* ----------------------------------------------------------------- memory */

int shmemx_heap_stats(size_t *used, size_t *mapped, size_t *limit)
{
    shoal_heap_stats_t st;
    int rc;
    if (shmem__sh == NULL) return SHOAL_ERR_INVALID_INSTANCE;
    rc = shoal_heap_stats(shmem__sh, &st);
    if (rc != SHOAL_SUCCESS) return rc;
    if (used) *used = st.used;
    if (mapped) *mapped = st.mapped;
    if (limit) *limit = st.limit;
    return 0;
}

void *shmem_malloc(size_t size)
{
    SHMEM__NEED("shmem_malloc");
    return shoal_malloc(shmem__sh, size);
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints; /* every block serves atomics and signals alike */
    SHMEM__NEED("shmem_malloc_with_hints");
    return shoal_malloc(shmem__sh, size);
}

void *shmem_calloc(size_t count, size_t size)
{
    SHMEM__NEED("shmem_calloc");
    return shoal_calloc(shmem__sh, count, size);
}

void *shmem_align(size_t alignment, size_t size)
{
    SHMEM__NEED("shmem_align");
    return shoal_align(shmem__sh, alignment, size);
}

void shmem_free(void *ptr)
{
    SHMEM__NEED("shmem_free");
    SHMEM__OK("shmem_free", shoal_free(shmem__sh, ptr));
}

/* Collective: a new block, this PE's bytes copied over (up to the smaller
 * size), the old one freed. */
void *shmem_realloc(void *ptr, size_t size)
{
    shoal_t sh = shmem__sh;
    size_t user = 0, old = 0;
    void *p;

    SHMEM__NEED("shmem_realloc");
    if (ptr == NULL) return shoal_malloc(sh, size);
    if (size == 0) {
        SHMEM__OK("shmem_realloc", shoal_free(sh, ptr));
        return NULL;
    }
    if (shoal__in_heap(sh, ptr, 1)) {
        shoal__alloc_lock(sh, false);
        if (shoal__alloc_find(&sh->alloc, (size_t)((char *)ptr - sh->heap_base), &user, &old) != SHOAL_SUCCESS) old = 0;
        shoal__alloc_unlock(sh);
    }
    if (old == 0 || user != (size_t)((char *)ptr - sh->heap_base)) {
        fprintf(stderr, "shmem_realloc: %p is not a block of the symmetric heap\n", ptr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    p = shoal_malloc(sh, size);
    if (p == NULL) return NULL; /* every PE fails alike; ptr stays */
    memcpy(p, ptr, old < size ? old : size);
    SHMEM__OK("shmem_realloc", shoal_free(sh, ptr));
    return p;
}

/* ------------------------------------------------------------------ teams */

int shmem_team_my_pe(shmem_team_t team) { return team == SHMEM_TEAM_INVALID ? -1 : shoal_team_my_pe(team); }
int shmem_team_n_pes(shmem_team_t team) { return team == SHMEM_TEAM_INVALID ? -1 : shoal_team_n_pes(team); }

/* The num_contexts each team was created with (shmem_team_get_config
 * gives it back): a short list, teams being few. */
static struct shmem__team_cfg {
    shmem_team_t team;
    int num_contexts;
} * shmem__team_cfgs;
static size_t shmem__n_team_cfgs, shmem__cap_team_cfgs;
static pthread_mutex_t shmem__team_cfg_lock = PTHREAD_MUTEX_INITIALIZER;

/* Remember a new team's config (where its mask has
 * SHMEM_TEAM_NUM_CONTEXTS). Out of memory for that, get_config says 0
 * contexts: the team stays (destroying it on one PE would leave the others
 * in a team this one left). */
static void shmem__team_cfg_keep(shmem_team_t team, const shmem_team_config_t *config, long mask)
{
    bool ok = true;
    if (team == SHMEM_TEAM_INVALID || config == NULL || !(mask & SHMEM_TEAM_NUM_CONTEXTS)) return;
    pthread_mutex_lock(&shmem__team_cfg_lock);
    if (shmem__n_team_cfgs == shmem__cap_team_cfgs) {
        size_t cap = shmem__cap_team_cfgs ? 2 * shmem__cap_team_cfgs : 8;
        struct shmem__team_cfg *v = realloc(shmem__team_cfgs, cap * sizeof(*v));
        if (v != NULL) shmem__team_cfgs = v, shmem__cap_team_cfgs = cap;
        ok = v != NULL;
    }
    if (ok) shmem__team_cfgs[shmem__n_team_cfgs++] = (struct shmem__team_cfg){team, config->num_contexts};
    pthread_mutex_unlock(&shmem__team_cfg_lock);
}

/* team's num_contexts (0: none given), forgotten where forget. */
static int shmem__team_cfg_find(shmem_team_t team, bool forget)
{
    int n = 0;
    pthread_mutex_lock(&shmem__team_cfg_lock);
    for (size_t i = 0; i < shmem__n_team_cfgs; i++) {
        if (shmem__team_cfgs[i].team != team) continue;
        n = shmem__team_cfgs[i].num_contexts;
        if (forget) shmem__team_cfgs[i] = shmem__team_cfgs[--shmem__n_team_cfgs];
        break;
    }
    pthread_mutex_unlock(&shmem__team_cfg_lock);
    return n;
}

static void shmem__team_cfgs_clear(void)
{
    pthread_mutex_lock(&shmem__team_cfg_lock);
    free(shmem__team_cfgs);
    shmem__team_cfgs = NULL;
    shmem__n_team_cfgs = shmem__cap_team_cfgs = 0;
    pthread_mutex_unlock(&shmem__team_cfg_lock);
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (team == SHMEM_TEAM_INVALID || config == NULL) return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS) config->num_contexts = shmem__team_cfg_find(team, false);
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID) return -1;
    return shoal_team_translate_pe(src_team, src_pe, dest_team);
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask, shmem_team_t *new_team)
{
    if (new_team != NULL) *new_team = SHMEM_TEAM_INVALID;
    /* start is the lowest PE of the new team (OpenSHMEM 1.5): the stride
     * cannot go down. */
    if (parent_team == SHMEM_TEAM_INVALID || new_team == NULL || stride < 0) return -1;
    if (shoal_team_split_strided(parent_team, start, stride, size, new_team) != SHOAL_SUCCESS) return -1;
    shmem__team_cfg_keep(*new_team, config, config_mask);
    return 0;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange, const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config, long yaxis_mask,
                        shmem_team_t *yaxis_team)
{
    if (xaxis_team != NULL) *xaxis_team = SHMEM_TEAM_INVALID;
    if (yaxis_team != NULL) *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID || xaxis_team == NULL || yaxis_team == NULL) return -1;
    if (shoal_team_split_2d(parent_team, xrange, xaxis_team, yaxis_team) != SHOAL_SUCCESS) return -1;
    shmem__team_cfg_keep(*xaxis_team, xaxis_config, xaxis_mask);
    shmem__team_cfg_keep(*yaxis_team, yaxis_config, yaxis_mask);
    return 0;
}

void shmem_team_destroy(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID || team == shmem__team_world || team == shmem__team_shared) return;
    (void)shmem__team_cfg_find(team, true);
    SHMEM__OK("shmem_team_destroy", shoal_team_destroy(team));
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    int world;
    SHMEM__NEED("shmem_team_ptr");
    if (team == SHMEM_TEAM_INVALID) return NULL;
    world = shoal_team_translate_pe(team, pe, shmem__team_world);
    return world < 0 ? NULL : shmem_ptr(dest, world);
}

int shmem_team_sync(shmem_team_t team)
{
    SHMEM__NEED("shmem_team_sync");
    if (team == SHMEM_TEAM_INVALID) return -1;
    return SHMEM__RET("shmem_team_sync", shoal_team_sync(team));
}

/* --------------------------------------------------------------- contexts */

int shmem_ctx_create(long options, shmem_ctx_t *ctx) { return shmem_team_create_ctx(shmem__team_world, options, ctx); }

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    struct shmem__ctx *c;
    if (ctx != NULL) *ctx = SHMEM_CTX_INVALID;
    if (shmem__sh == NULL || team == SHMEM_TEAM_INVALID || ctx == NULL) return -1;
    c = calloc(1, sizeof(*c));
    if (c == NULL) return -1;
    c->magic = SHMEM__CTX_MAGIC;
    c->sh = shmem__sh;
    c->team = team;
    c->options = options;
    *ctx = c;
    return 0;
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID || ctx == SHMEM_CTX_DEFAULT) return;
    if (ctx->magic != SHMEM__CTX_MAGIC) {
        fprintf(stderr, "shmem_ctx_destroy: %p is not a context (destroyed already?)\n", (void *)ctx);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    SHMEM__OK("shmem_ctx_destroy", shoal_quiet(ctx->sh)); /* its operations complete */
    ctx->magic = 0;
    free(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    if (team == NULL) return -1;
    if (ctx == SHMEM_CTX_INVALID || ctx->magic != SHMEM__CTX_MAGIC) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx == SHMEM_CTX_DEFAULT ? shmem__team_world : ctx->team;
    return 0;
}
