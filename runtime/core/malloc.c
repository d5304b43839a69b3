/* Collective allocation on the symmetric heap. The rendezvous checks that
 * every PE made the same call (shoal_malloc, shoal_calloc, or shoal_align
 * with the same alignment) for the same size, or freed the same block,
 * before the deterministic allocator runs, so offsets stay identical
 * everywhere; on a mismatch nothing is allocated or freed anywhere. */
#include <string.h>

#include "base/shoal_instance.h"
#include "heap/shoal_heap.h"
#include "ops/shoal_rma.h"
#include "core/shoal_core.h"
#include "ops/shoal_coll.h"
#include "base/shoal_env.h"

/* The collective kind of an allocation: calls that would place a block
 * differently must not pass the symmetry check together. */
static int shoal__malloc_coll(size_t align, bool zero)
{
    int log2 = 0;
    if (zero) return SHOAL__COLL_CALLOC;
    if (align == 0) return SHOAL__COLL_MALLOC;
    while (((size_t)1 << log2) < align && log2 < 62) log2++;
    return SHOAL__COLL_ALIGN(log2);
}

void *shoal__malloc(shoal_t sh, const char *call, size_t size, size_t align, bool zero)
{
    int coll = shoal__malloc_coll(align, zero);
    size_t off = 0;
    int rc, status;

    /* Room in the allocator's table first: after the meeting, a PE must not
     * fail where the others succeed. */
    shoal__alloc_lock(sh, true);
    status = size == 0 ? SHOAL_SUCCESS : shoal__alloc_reserve(&sh->alloc, 1);
    shoal__alloc_unlock(sh);
    if (status != SHOAL_SUCCESS) {
        shoal__error(sh, status, call, "out of memory for the allocator's table");
        shoal__coll_failed_here(sh, call, coll, (uint64_t)size, status);
        return NULL;
    }
    rc = shoal__rendezvous(sh, call, coll, (uint64_t)size);
    if (rc != SHOAL_SUCCESS) return NULL;
    if (size == 0) return NULL;
    shoal__alloc_lock(sh, true);
    status = shoal__alloc_get(&sh->alloc, size, align, &off);
    if (status == SHOAL_ERR_HEAP_EXHAUSTED)
        shoal__error(sh, status, call,
                     "symmetric heap exhausted: %zu bytes asked, %zu of %zu in use, largest free block %zu; "
                     "raise %s",
                     size, sh->alloc.used, sh->alloc.size, shoal__alloc_largest_free(&sh->alloc),
                     shoal__heap_size_knob(sh));
    shoal__alloc_unlock(sh);
    if (status == SHOAL_ERR_HEAP_EXHAUSTED) return NULL;
    if (status != SHOAL_SUCCESS) {
        shoal__error(sh, status, call, "cannot allocate %zu bytes: %s", size, shoal_strerror(status));
        return NULL;
    }
    if (zero) {
        int zrc = SHOAL_SUCCESS;
        if (sh->heap_kind == SHOAL_HEAP_GPU)
            zrc = shoal__gpu_memset(sh, sh->heap_base + off, size);
        else
            memset(sh->heap_base + off, 0, size);
        /* Nobody may put into it before every PE zeroed its copy. Every PE
         * meets, a failed zeroing marked: all keep the block or all give it
         * back, so offsets stay the same everywhere. */
        sh->coll_again = true; /* the same shoal_calloc call, met again */
        rc = zrc == SHOAL_SUCCESS ? shoal__rendezvous(sh, call, coll, size)
                                  : shoal__coll_failed_here(sh, call, coll, size, zrc);
        if (rc != SHOAL_SUCCESS) {
            shoal__alloc_lock(sh, true);
            shoal__alloc_put(&sh->alloc, off);
            shoal__alloc_unlock(sh);
            return NULL;
        }
    }
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_HEAP, "%s(%zu) -> offset %zu", call, size, off);
    return sh->heap_base + off;
}

int shoal__free(shoal_t sh, void *ptr)
{
    static const char *call = "shoal_free";
    char said[64];
    size_t off;
    int rc;

    /* A bad pointer still enters the rendezvous (as offset "none"), so a
     * PE that frees something else gets a clear mismatch, not a hang; so
     * does NULL (collective, frees nothing). */
    off = ptr == NULL ? SHOAL__FREE_NULL : SIZE_MAX;
    if (ptr != NULL && shoal__in_heap(sh, ptr, 1)) {
        size_t user, avail, o = (size_t)((char *)ptr - sh->heap_base);
        shoal__alloc_lock(sh, false);
        if (shoal__alloc_find(&sh->alloc, o, &user, &avail) == SHOAL_SUCCESS && user == o) off = o;
        shoal__alloc_unlock(sh);
    }
    /* Quiet first: nothing of mine may still be landing in the block. */
    rc = shoal__quiet(sh, call);
    if (rc != SHOAL_SUCCESS) return shoal__coll_failed_here(sh, call, SHOAL__COLL_FREE, off, rc); /* nobody frees it */
    rc = shoal__rendezvous(sh, call, SHOAL__COLL_FREE, off);
    if (rc != SHOAL_SUCCESS || off == SHOAL__FREE_NULL) return rc;
    if (off == SIZE_MAX)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "%p was not returned by %s, or was already freed", ptr,
                            shoal__say(sh, "shoal_malloc", said, sizeof(said)));
    shoal__alloc_lock(sh, true);
    rc = shoal__alloc_put(&sh->alloc, off);
    shoal__alloc_unlock(sh);
    return rc;
}
