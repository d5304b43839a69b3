/* Collective allocation on the symmetric heap. The rendezvous checks that
 * every PE made the same call (shoal_malloc, shoal_calloc, or shoal_align
 * with the same alignment) for the same size, or freed the same block,
 * before the deterministic allocator runs, so offsets stay identical
 * everywhere; on a mismatch nothing is allocated or freed anywhere. */
#include <mpi.h>
#include <stdio.h>
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

/* After a growth on every PE: each learns whether every PE's part
 * succeeded. Where one failed, the lowest such PE's status and report
 * reach every PE, which all say the same. */
static int shoal__grow_agree(shoal_t sh, const char *call, int status, const shoal__grow_report_t *rep, size_t size)
{
    struct {
        int status;
        shoal__grow_report_t rep;
        char why[400];
    } msg;
    int key = status == SHOAL_SUCCESS ? sh->n_pes : sh->my_pe, first = sh->n_pes, prc;

    prc = MPI_Allreduce(&key, &first, 1, MPI_INT, MPI_MIN, sh->comm);
    if (prc != MPI_SUCCESS) return shoal__mpi_error(sh, call, "MPI_Allreduce (the heap's growth)", prc);
    if (first == sh->n_pes) return SHOAL_SUCCESS;
    memset(&msg, 0, sizeof(msg));
    if (first == sh->my_pe) {
        msg.status = status;
        msg.rep = *rep;
        /* Its own message, without the "PE n: call: " that this one repeats. */
        const char *why = shoal_last_error(sh), *at = strstr(why, call);
        if (at != NULL && strncmp(at + strlen(call), ": ", 2) == 0) why = at + strlen(call) + 2;
        snprintf(msg.why, sizeof(msg.why), "%s", why);
    }
    prc = MPI_Bcast(&msg, (int)sizeof(msg), MPI_BYTE, first, sh->comm);
    if (prc != MPI_SUCCESS) return shoal__mpi_error(sh, call, "MPI_Bcast (the heap's growth)", prc);
    if (msg.rep.where[0] == '\0') /* not a lack of memory: the node's exchange of new chunks */
        return shoal__error(sh, msg.status, call,
                            "PE %d could not share the new memory under a block of %zu bytes with its node; nothing "
                            "was allocated on any PE (PE %d: %s)",
                            first, size, first, msg.why);
    return shoal__error(sh, msg.status, call,
                        "PE %d could not take memory under a block of %zu bytes: %s had %llu bytes free and %llu more "
                        "were needed; nothing was allocated on any PE (PE %d: %s)",
                        first, size, msg.rep.where, msg.rep.avail, msg.rep.asked, first, msg.why);
}

/* Memory under the block [lo, hi) on every PE: a growing GPU heap maps the
 * chunks it lacks, a host heap checks /dev/shm. Every PE decides alike
 * whether anything is needed (the same allocator, the same chunks), so
 * only a growth meets. */
static int shoal__malloc_back(shoal_t sh, const char *call, size_t lo, size_t hi)
{
    shoal__grow_report_t rep;
    bool gpu = sh->heap_kind == SHOAL_HEAP_GPU;
    size_t checked = sh->heap_checked;
    int rc;

    if (gpu ? !shoal__heap_gpu_grow_needed(sh, lo, hi) : !shoal__heap_host_grow_needed(sh, hi)) return SHOAL_SUCCESS;
    memset(&rep, 0, sizeof(rep));
    rc = gpu ? shoal__heap_gpu_grow(sh, call, lo, hi, &rep) : shoal__heap_host_grow(sh, call, hi, &rep);
    if (rc != SHOAL_SUCCESS && rep.where[0] == '\0') snprintf(rep.where, sizeof(rep.where), "its heap");
    rc = shoal__grow_agree(sh, call, rc, &rep, hi - lo);
    /* Given up everywhere: every PE forgets its part, so that they all
     * still decide alike next time (the caller's trim unmaps the chunks). */
    if (rc != SHOAL_SUCCESS) sh->heap_checked = checked;
    if (rc == SHOAL_SUCCESS && gpu) {
        /* Every PE has its new chunks: the node peers map each other's. */
        rc = shoal__heap_gpu_grow_share(sh, call);
        memset(&rep, 0, sizeof(rep));
        rc = shoal__grow_agree(sh, call, rc, &rep, hi - lo);
    }
    return rc;
}

/* What no block uses any more around offset off (a block just freed, or
 * given back) goes back to the system. */
static void shoal__heap_trim(shoal_t sh, size_t off)
{
    size_t lo = 0, hi = 0;
    bool used = true;
    shoal__alloc_lock(sh, false);
    int rc = shoal__alloc_span(&sh->alloc, off, &used, &lo, &hi);
    shoal__alloc_unlock(sh);
    if (rc != SHOAL_SUCCESS || used) return;
    if (sh->heap_kind == SHOAL_HEAP_GPU)
        shoal__heap_gpu_trim(sh, lo, hi);
    else
        shoal__heap_host_trim(sh, lo, hi);
}

/* Every PE gives the block at off back (a failed growth or zeroing). */
static void shoal__malloc_undo(shoal_t sh, size_t off)
{
    shoal__alloc_lock(sh, true);
    shoal__alloc_put(&sh->alloc, off);
    shoal__alloc_unlock(sh);
    shoal__heap_trim(sh, off);
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
    if (status == SHOAL_SUCCESS) {
        bool used;
        size_t lo, hi;
        status = shoal__alloc_span(&sh->alloc, off, &used, &lo, &hi);
        shoal__alloc_unlock(sh);
        /* Outside the allocator's lock: growth meets the other PEs. */
        if (status == SHOAL_SUCCESS) status = shoal__malloc_back(sh, call, lo, hi);
        if (status == SHOAL_SUCCESS && hi > sh->heap_high) sh->heap_high = hi;
        if (status != SHOAL_SUCCESS) {
            shoal__malloc_undo(sh, off);
            return NULL;
        }
    } else {
        shoal__alloc_unlock(sh);
    }
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
            shoal__malloc_undo(sh, off);
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
    if (rc == SHOAL_SUCCESS) shoal__heap_trim(sh, off);
    return rc;
}
