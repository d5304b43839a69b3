/* The public host API: argument checks, then one call into the runtime. */
#include <string.h>

#include "proxy/shoal_proxy.h"
#include "base/shoal_instance.h"
#include "transport/transport.h"
#include "heap/shoal_gpu_share.h"
#include "heap/shoal_heap.h"
#include "heap/shoal_register.h"
#include "ops/shoal_rma.h"
#include "core/shoal_core.h"
#include "ops/shoal_coll.h"

int shoal_init(MPI_Comm comm, const shoal_config_t *cfg, shoal_t *sh_p)
{
    int rc = shoal__init(comm, cfg, sh_p);
    if (rc == SHOAL_SUCCESS) shoal__note_creator(*sh_p, __builtin_return_address(0));
    return rc;
}

int shoal_finalize(shoal_t sh)
{
    int flag = 0;
    SHOAL__ENTER(sh, "shoal_finalize");
    if (MPI_Finalized(&flag) == MPI_SUCCESS && flag)
        return shoal__error(sh, SHOAL_ERR_MPI_STATE, "shoal_finalize", "MPI is already finalized");
    if (sh->cfg.check == SHOAL_CHECK_FULL) {
        /* The thread rule first: a finalize from a thread the MPI thread
         * level forbids must change nothing. */
        shoal__robust_t *sd = shoal__robust(sh);
        bool held = false;
        int rc = sd ? shoal__thread_enter(sh, sd, "shoal_finalize", true, &held) : SHOAL_SUCCESS;
        if (rc != SHOAL_SUCCESS) return rc;
        if (sd) shoal__thread_leave(sd, true, held);
    }
    return shoal__finalize(sh);
}

int shoal_my_pe(shoal_t sh)
{
    SHOAL__ENTER(sh, "shoal_my_pe");
    return sh->my_pe;
}

int shoal_n_pes(shoal_t sh)
{
    SHOAL__ENTER(sh, "shoal_n_pes");
    return sh->n_pes;
}

int shoal_comm(shoal_t sh, MPI_Comm *comm_p)
{
    SHOAL__ENTER(sh, "shoal_comm");
    if (comm_p == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_comm", "comm_p is NULL");
    *comm_p = sh->comm;
    return SHOAL_SUCCESS;
}

int shoal_heap_kind(shoal_t sh)
{
    SHOAL__ENTER(sh, "shoal_heap_kind");
    return sh->heap_kind;
}

void *shoal_malloc(shoal_t sh, size_t size)
{
    SHOAL__ENTER_NULL(sh, "shoal_malloc");
    return shoal__malloc(sh, "shoal_malloc", size, 0, false);
}

void *shoal_calloc(shoal_t sh, size_t count, size_t size)
{
    SHOAL__ENTER_NULL(sh, "shoal_calloc");
    if (size != 0 && count > SIZE_MAX / size) {
        /* Still collective: a PE whose peers asked for a real size learns of the mismatch. */
        if (shoal__rendezvous(sh, "shoal_calloc", SHOAL__COLL_CALLOC_BAD, 0) == SHOAL_SUCCESS)
            shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_calloc", "count %zu times size %zu overflows", count, size);
        return NULL;
    }
    return shoal__malloc(sh, "shoal_calloc", count * size, 0, true);
}

void *shoal_align(shoal_t sh, size_t alignment, size_t size)
{
    SHOAL__ENTER_NULL(sh, "shoal_align");
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > SHOAL__HEAP_BASE_ALIGN) {
        if (shoal__rendezvous(sh, "shoal_align", SHOAL__COLL_ALIGN_BAD, (uint64_t)size) == SHOAL_SUCCESS)
            shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_align", "alignment %zu is not a power of two up to %zu",
                         alignment, SHOAL__HEAP_BASE_ALIGN);
        return NULL;
    }
    return shoal__malloc(sh, "shoal_align", size, alignment, false);
}

int shoal_free(shoal_t sh, void *ptr)
{
    SHOAL__ENTER(sh, "shoal_free");
    return shoal__free(sh, ptr);
}

int shoal_register(shoal_t sh, void *base, size_t size)
{
    SHOAL__ENTER(sh, "shoal_register");
    return shoal__register(sh, "shoal_register", base, size, false);
}

int shoal_register_shared(shoal_t sh, void *base, size_t size)
{
    SHOAL__ENTER(sh, "shoal_register_shared");
    return shoal__register(sh, "shoal_register_shared", base, size, true);
}

int shoal_deregister(shoal_t sh, void *base)
{
    SHOAL__ENTER(sh, "shoal_deregister");
    return shoal__deregister(sh, "shoal_deregister", base);
}

int shoal_heap_usage(shoal_t sh, size_t *used_p, size_t *free_p)
{
    SHOAL__ENTER(sh, "shoal_heap_usage");
    shoal__alloc_lock(sh, false);
    if (used_p) *used_p = sh->alloc.used;
    if (free_p) *free_p = sh->alloc.size - sh->alloc.used;
    shoal__alloc_unlock(sh);
    return SHOAL_SUCCESS;
}

int shoal_heap_stats(shoal_t sh, shoal_heap_stats_t *stats_p)
{
    SHOAL__ENTER(sh, "shoal_heap_stats");
    if (stats_p == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_heap_stats", "stats_p is NULL");
    memset(stats_p, 0, sizeof(*stats_p));
    shoal__alloc_lock(sh, false);
    stats_p->used = sh->alloc.used;
    stats_p->limit = sh->alloc.size;
    if (sh->heap_kind == SHOAL_HEAP_GPU) {
        stats_p->mapped = shoal__heap_gpu_backed(sh);
        stats_p->chunk = shoal__heap_gpu_chunk(sh);
        stats_p->growable = stats_p->chunk != 0;
    } else {
        stats_p->mapped = shoal__heap_host_backed(sh);
        stats_p->growable = 1;
    }
    shoal__alloc_unlock(sh);
    return SHOAL_SUCCESS;
}

int shoal_addr_accessible(shoal_t sh, const void *ptr, int pe)
{
    SHOAL__ENTER(sh, "shoal_addr_accessible");
    if ((unsigned)pe >= (unsigned)sh->n_pes)
        return shoal__error(sh, SHOAL_ERR_PE, "shoal_addr_accessible", "pe %d is out of range [0, %d)", pe, sh->n_pes);
    return ptr != NULL && (shoal__in_heap(sh, ptr, 1) || shoal__reg_holds(sh, ptr, 1) || shoal__reg_is_gpu(sh, ptr, 1));
}

void *shoal_ptr(shoal_t sh, const void *dest, int pe)
{
    SHOAL__ENTER_NULL(sh, "shoal_ptr");
    if ((unsigned)pe >= (unsigned)sh->n_pes) {
        shoal__error(sh, SHOAL_ERR_PE, "shoal_ptr", "pe %d is out of range [0, %d)", pe, sh->n_pes);
        return NULL;
    }
    /* A registered host range: this PE's own address, or a node peer's
     * shared part mapped here (shoal_register_shared); other copies are
     * not mapped here (NULL, and no error). A registered GPU range: where
     * the pair's transport maps it (this PE, cuda_ipc peers). */
    if (dest != NULL && !shoal__in_heap(sh, dest, 1)) {
        char *mapped;
        int where = shoal__reg_locate(sh, dest, 1, pe, false, &mapped);
        if (where >= 0) return where > 0 ? mapped : NULL;
    }
    {
        size_t off;
        if (dest != NULL && !shoal__in_heap(sh, dest, 1) && shoal__reg_gpu_off(sh, dest, 1, &off))
            return shoal__tp_can(sh, pe, SHOAL__TP_CAP_MAPPED) ? shoal__tp_addr(sh, pe, off) : NULL;
    }
    if (dest == NULL || !shoal__in_heap(sh, dest, 1)) {
        shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, "shoal_ptr",
                     "%p is not in the symmetric heap nor in a registered range", dest);
        return NULL;
    }
    if (sh->cfg.check >= SHOAL_CHECK_BASIC) {
        size_t off = (size_t)((const char *)dest - sh->heap_base), user, avail;
        int found;
        shoal__alloc_lock(sh, false);
        found = shoal__alloc_find(&sh->alloc, off, &user, &avail) == SHOAL_SUCCESS;
        shoal__alloc_unlock(sh);
        if (!found) {
            shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, "shoal_ptr",
                         "%p (heap offset %zu) is not inside a live allocation", dest, off);
            return NULL;
        }
    }
    /* Only where the pair's transport is itself load/store (self, shm,
     * cuda_ipc): not where SHOAL_TRANSPORT_DISABLE chose another. Else NULL,
     * and no error. */
    if (sh->peer_base[pe] == NULL || !shoal__tp_can(sh, pe, SHOAL__TP_CAP_MAPPED)) return NULL;
    return sh->peer_base[pe] + ((const char *)dest - sh->heap_base);
}

int shoal_put(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe)
{
    SHOAL__ENTER(sh, "shoal_put");
    return shoal__rma(sh, "shoal_put", true, dest, src, nbytes, pe, 0);
}

int shoal_get(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe)
{
    SHOAL__ENTER(sh, "shoal_get");
    return shoal__rma(sh, "shoal_get", false, dest, src, nbytes, pe, 0);
}

int shoal_put_nbi(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe)
{
    SHOAL__ENTER(sh, "shoal_put_nbi");
    return shoal__rma(sh, "shoal_put_nbi", true, dest, src, nbytes, pe, 1);
}

int shoal_get_nbi(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe)
{
    SHOAL__ENTER(sh, "shoal_get_nbi");
    return shoal__rma(sh, "shoal_get_nbi", false, dest, src, nbytes, pe, 1);
}

int shoal_put_2d(shoal_t sh, void *dest, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                 int pe)
{
    SHOAL__ENTER(sh, "shoal_put_2d");
    return shoal__rma_2d(sh, "shoal_put_2d", true, dest, dpitch, src, spitch, width, height, pe);
}

int shoal_get_2d(shoal_t sh, void *dest, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                 int pe)
{
    SHOAL__ENTER(sh, "shoal_get_2d");
    return shoal__rma_2d(sh, "shoal_get_2d", false, dest, dpitch, src, spitch, width, height, pe);
}

/* The sized strided calls: elements of BITS / 8 bytes. */
#define SHOAL__ISIZED_DEF(BITS)                                                                                        \
    int shoal_iput##BITS(shoal_t sh, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_iput" #BITS);                                                                          \
        return shoal__rma_strided(sh, "shoal_iput" #BITS, true, dest, src, dst, sst, nelems, BITS / 8, pe);            \
    }                                                                                                                  \
    int shoal_iget##BITS(shoal_t sh, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe) \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_iget" #BITS);                                                                          \
        return shoal__rma_strided(sh, "shoal_iget" #BITS, false, dest, src, dst, sst, nelems, BITS / 8, pe);           \
    }
SHOAL__ISIZED_DEF(8)
SHOAL__ISIZED_DEF(16)
SHOAL__ISIZED_DEF(32)
SHOAL__ISIZED_DEF(64)
SHOAL__ISIZED_DEF(128)
#undef SHOAL__ISIZED_DEF

int shoal_quiet(shoal_t sh)
{
    SHOAL__ENTER(sh, "shoal_quiet");
    int rc = shoal__proxy_complete(sh, "shoal_quiet");
    return rc == SHOAL_SUCCESS ? shoal__quiet(sh, "shoal_quiet") : rc;
}

/* Ordering is delivered by completing: simple and always correct. */
int shoal_fence(shoal_t sh)
{
    SHOAL__ENTER(sh, "shoal_fence");
    int rc = shoal__proxy_complete(sh, "shoal_fence");
    return rc == SHOAL_SUCCESS ? shoal__quiet(sh, "shoal_fence") : rc;
}

int shoal_barrier_all(shoal_t sh)
{
    SHOAL__ENTER(sh, "shoal_barrier_all");
    /* A failed drain still meets the others (they would wait for this PE). */
    int prc = shoal__proxy_complete(sh, "shoal_barrier_all"), rc = shoal__barrier_all(sh);
    return prc != SHOAL_SUCCESS ? prc : rc;
}

int shoal_sync_all(shoal_t sh)
{
    SHOAL__ENTER(sh, "shoal_sync_all");
    return shoal__rendezvous(sh, "shoal_sync_all", SHOAL__COLL_SYNC_ALL, 0);
}

int shoal_pe_transport(shoal_t sh, int pe, const char **name_p)
{
    SHOAL__ENTER(sh, "shoal_pe_transport");
    if ((unsigned)pe >= (unsigned)sh->n_pes)
        return shoal__error(sh, SHOAL_ERR_PE, "shoal_pe_transport", "pe %d is out of range [0, %d)", pe, sh->n_pes);
    if (name_p == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_pe_transport", "name_p is NULL");
    *name_p = shoal__tp(sh, pe)->name;
    return SHOAL_SUCCESS;
}

int shoal_pe_node(shoal_t sh, int pe)
{
    SHOAL__ENTER(sh, "shoal_pe_node");
    if ((unsigned)pe >= (unsigned)sh->n_pes)
        return shoal__error(sh, SHOAL_ERR_PE, "shoal_pe_node", "pe %d is out of range [0, %d)", pe, sh->n_pes);
    return sh->pe_node[pe];
}

int shoal_pe_gpu_shared(shoal_t sh, int pe)
{
    SHOAL__ENTER(sh, "shoal_pe_gpu_shared");
    if ((unsigned)pe >= (unsigned)sh->n_pes)
        return shoal__error(sh, SHOAL_ERR_PE, "shoal_pe_gpu_shared", "pe %d is out of range [0, %d)", pe, sh->n_pes);
    return shoal__gpu_shared(sh, pe);
}

int shoal_pe_gpu_bus_id(shoal_t sh, int pe, const char **bus_id_p)
{
    const char *bus;

    if (bus_id_p) *bus_id_p = "";
    SHOAL__ENTER(sh, "shoal_pe_gpu_bus_id");
    if (!bus_id_p) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_pe_gpu_bus_id", "bus_id_p is NULL");
    if ((unsigned)pe >= (unsigned)sh->n_pes)
        return shoal__error(sh, SHOAL_ERR_PE, "shoal_pe_gpu_bus_id", "pe %d is out of range [0, %d)", pe, sh->n_pes);
    bus = shoal__gpu_bus_id(sh, pe);
    *bus_id_p = bus ? bus : "";
    return SHOAL_SUCCESS;
}

/* The typed families: one line each into the byte-level entry points. */
#define SHOAL__TYPED_DEF(T, N)                                                                                         \
    int shoal_##N##_put(shoal_t sh, T *dest, const T *src, size_t nelems, int pe)                                      \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_put");                                                                          \
        if (nelems > SIZE_MAX / sizeof(T))                                                                             \
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_" #N "_put", "%zu elements overflow", nelems);       \
        return shoal__rma(sh, "shoal_" #N "_put", true, dest, src, nelems * sizeof(T), pe, 0);                         \
    }                                                                                                                  \
    int shoal_##N##_get(shoal_t sh, T *dest, const T *src, size_t nelems, int pe)                                      \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_get");                                                                          \
        if (nelems > SIZE_MAX / sizeof(T))                                                                             \
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_" #N "_get", "%zu elements overflow", nelems);       \
        return shoal__rma(sh, "shoal_" #N "_get", false, dest, src, nelems * sizeof(T), pe, 0);                        \
    }                                                                                                                  \
    int shoal_##N##_put_nbi(shoal_t sh, T *dest, const T *src, size_t nelems, int pe)                                  \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_put_nbi");                                                                      \
        if (nelems > SIZE_MAX / sizeof(T))                                                                             \
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_" #N "_put_nbi", "%zu elements overflow", nelems);   \
        return shoal__rma(sh, "shoal_" #N "_put_nbi", true, dest, src, nelems * sizeof(T), pe, 1);                     \
    }                                                                                                                  \
    int shoal_##N##_get_nbi(shoal_t sh, T *dest, const T *src, size_t nelems, int pe)                                  \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_get_nbi");                                                                      \
        if (nelems > SIZE_MAX / sizeof(T))                                                                             \
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, "shoal_" #N "_get_nbi", "%zu elements overflow", nelems);   \
        return shoal__rma(sh, "shoal_" #N "_get_nbi", false, dest, src, nelems * sizeof(T), pe, 1);                    \
    }                                                                                                                  \
    int shoal_##N##_p(shoal_t sh, T *dest, T value, int pe)                                                            \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_p");                                                                            \
        return shoal__rma(sh, "shoal_" #N "_p", true, dest, &value, sizeof(T), pe, 0);                                 \
    }                                                                                                                  \
    int shoal_##N##_g(shoal_t sh, T *value_p, const T *src, int pe)                                                    \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_g");                                                                            \
        return shoal__rma(sh, "shoal_" #N "_g", false, value_p, src, sizeof(T), pe, 0);                                \
    }                                                                                                                  \
    int shoal_##N##_iput(shoal_t sh, T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)       \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_iput");                                                                         \
        return shoal__rma_strided(sh, "shoal_" #N "_iput", true, dest, src, dst, sst, nelems, sizeof(T), pe);          \
    }                                                                                                                  \
    int shoal_##N##_iget(shoal_t sh, T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)       \
    {                                                                                                                  \
        SHOAL__ENTER(sh, "shoal_" #N "_iget");                                                                         \
        return shoal__rma_strided(sh, "shoal_" #N "_iget", false, dest, src, dst, sst, nelems, sizeof(T), pe);         \
    }
SHOAL_RMA_TYPES(SHOAL__TYPED_DEF)
SHOAL_HALF_TYPES(SHOAL__TYPED_DEF)
#undef SHOAL__TYPED_DEF
