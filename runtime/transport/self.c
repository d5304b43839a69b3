/* self: the PE's own heap. A plain copy on the host heap; the copy engine
 * (internal stream) on the GPU heap. */
#include <string.h>

#include "shoal_internal.h"

static bool self_can_connect(shoal_t sh, int pe) { return pe == sh->my_pe; }

static int self_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    (void)pe;
    if (sh->heap_kind == SHOAL_HEAP_GPU) return shoal__gpu_copy(sh, call, sh->heap_base + off, src, n, nbi);
    memcpy(sh->heap_base + off, src, n);
    return SHOAL_SUCCESS;
}

static int self_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    (void)pe;
    if (sh->heap_kind == SHOAL_HEAP_GPU) return shoal__gpu_copy(sh, call, dst, sh->heap_base + off, n, nbi);
    memcpy(dst, sh->heap_base + off, n);
    return SHOAL_SUCCESS;
}

static int self_quiet(shoal_t sh, const char *call)
{
    if (sh->heap_kind == SHOAL_HEAP_GPU) return shoal__gpu_quiet(sh, call);
    return SHOAL_SUCCESS;
}

const shoal__transport_t shoal__transport_self = {
    .name = "self",
    .id = SHOAL_TRANSPORT_SELF,
    .can_connect = self_can_connect,
    .put = self_put,
    .get = self_get,
    .quiet = self_quiet,
};
