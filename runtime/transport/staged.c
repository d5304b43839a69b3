/* staged: GPU heaps of one node without peer access, through pinned host
 * memory. Not available yet: such pairs are refused at init with a message
 * saying so, rather than silently falling back. */
#include "shoal_internal.h"

static bool staged_can_connect(shoal_t sh, int pe)
{
    (void)sh, (void)pe;
    return false;
}

static int staged_put(shoal_t sh, int pe, size_t off, const void *src, size_t n, int nbi)
{
    (void)off, (void)src, (void)n, (void)nbi;
    return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, "shoal_put", "the staged transport to PE %d is not available", pe);
}

static int staged_get(shoal_t sh, int pe, void *dst, size_t off, size_t n, int nbi)
{
    (void)off, (void)dst, (void)n, (void)nbi;
    return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, "shoal_get", "the staged transport to PE %d is not available", pe);
}

static int staged_quiet(shoal_t sh)
{
    (void)sh;
    return SHOAL_SUCCESS;
}

const shoal__transport_t shoal__transport_staged = {
    .name = "staged",
    .id = SHOAL_TRANSPORT_STAGED,
    .can_connect = staged_can_connect,
    .put = staged_put,
    .get = staged_get,
    .quiet = staged_quiet,
};
