/* Put/get dispatch: check the addresses once, then hand the operation to
 * the transport chosen for the target PE at init. */
#include <string.h>

#include "shoal_internal.h"

/* Explains why [ptr, ptr + n) is not a valid remote range. */
static int shoal__range_error(shoal_t sh, const char *call, const char *what, const void *ptr, size_t n, int pe)
{
    uintptr_t p = (uintptr_t)ptr, b = (uintptr_t)sh->heap_base;
    if (p < b || p - b >= sh->heap_size)
        return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                            "%s %p is not in the symmetric heap [%p, %p) (target PE %d): pass memory from "
                            "shoal_malloc",
                            what, ptr, (void *)sh->heap_base, (void *)(sh->heap_base + sh->heap_size), pe);
    return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                        "%s range [%p, +%zu) runs %zu bytes past the end of the symmetric heap (target PE %d)",
                        what, ptr, n, (size_t)(p - b) + n - sh->heap_size, pe);
}

int shoal__rma(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n, int pe, int nbi)
{
    const void *remote = is_put ? dest : src;
    const void *local = is_put ? src : dest;
    const shoal__transport_t *tp;
    size_t off;
    int rc;

    if (SHOAL__UNLIKELY((unsigned)pe >= (unsigned)sh->n_pes))
        return shoal__error(sh, SHOAL_ERR_PE, call, "pe %d is out of range [0, %d)", pe, sh->n_pes);
    if (SHOAL__UNLIKELY(n == 0)) return SHOAL_SUCCESS;
    if (SHOAL__UNLIKELY(local == NULL))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%s buffer is NULL", is_put ? "source" : "destination");
    if (SHOAL__UNLIKELY(!shoal__in_heap(sh, remote, n)))
        return shoal__range_error(sh, call, is_put ? "destination" : "source", remote, n, pe);
    off = (size_t)((const char *)remote - sh->heap_base);
    if (sh->cfg.check >= SHOAL_CHECK_BASIC) {
        size_t user, avail;
        if (SHOAL__UNLIKELY(shoal__alloc_find(&sh->alloc, off, &user, &avail) != SHOAL_SUCCESS))
            return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                                "%s %p (heap offset %zu, target PE %d) is not inside a live allocation",
                                is_put ? "destination" : "source", remote, off, pe);
        if (SHOAL__UNLIKELY(n > avail - (off - user)))
            return shoal__error(sh, SHOAL_ERR_OUT_OF_BOUNDS, call,
                                "%zu bytes at heap offset %zu run %zu bytes past the end of their allocation "
                                "(offset %zu, %zu bytes; target PE %d)",
                                n, off, n - (avail - (off - user)), user, avail, pe);
        if (pe == sh->my_pe) {
            uintptr_t l = (uintptr_t)local, r = (uintptr_t)remote;
            if (SHOAL__UNLIKELY(l < r + n && r < l + n))
                return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                    "source and destination overlap (%p and %p, %zu bytes)", src, dest, n);
        }
    }
    tp = sh->pe_tp[pe];
    rc = is_put ? tp->put(sh, pe, off, src, n, nbi) : tp->get(sh, pe, dest, off, n, nbi);
    if (SHOAL__UNLIKELY(rc < 0)) return rc;
    sh->tp_used |= 1u << tp->id;
    return SHOAL_SUCCESS;
}

int shoal__quiet(shoal_t sh)
{
    unsigned used = sh->tp_used;
    int rc = SHOAL_SUCCESS;

    if (used == 0) return SHOAL_SUCCESS;
    for (int pe_tp = 0; pe_tp < SHOAL_TRANSPORT_COUNT; pe_tp++) {
        const shoal__transport_t *tp = NULL;
        if (!(used & (1u << pe_tp))) continue;
        switch (pe_tp) {
        case SHOAL_TRANSPORT_SELF: tp = &shoal__transport_self; break;
        case SHOAL_TRANSPORT_CUDA_IPC: tp = &shoal__transport_cuda_ipc; break;
        case SHOAL_TRANSPORT_SHM: tp = &shoal__transport_shm; break;
        case SHOAL_TRANSPORT_STAGED: tp = &shoal__transport_staged; break;
        default: tp = &shoal__transport_mpi_rma; break;
        }
        rc = tp->quiet(sh);
        if (rc < 0) return rc;
    }
    sh->tp_used = 0;
    return SHOAL_SUCCESS;
}
