/* self: the PE's own heap. A plain copy on a host heap; on a GPU heap, the
 * copy engine (the instance's internal stream, or the caller's stream). */
#include <string.h>

#include "heap/shoal_heap.h"
#include "transport/transport.h"

static bool self_connect(shoal_t sh, int pe) { return pe == sh->my_pe; }

static int self_host_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    (void)call, (void)pe, (void)nbi; /* complete on return */
    memcpy(sh->heap_base + off, src, n);
    return SHOAL_SUCCESS;
}

static int self_host_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    (void)call, (void)pe, (void)nbi;
    memcpy(dst, sh->heap_base + off, n);
    return SHOAL_SUCCESS;
}

static int self_host_put_2d(shoal_t sh, const char *call, int pe, size_t off, size_t pitch, const void *src,
                            size_t spitch, size_t width, size_t height, int nbi)
{
    (void)call, (void)pe, (void)nbi;
    shoal__tp_copy_2d(sh->heap_base + off, pitch, src, spitch, width, height);
    return SHOAL_SUCCESS;
}

static int self_host_get_2d(shoal_t sh, const char *call, int pe, void *dst, size_t dpitch, size_t off, size_t pitch,
                            size_t width, size_t height, int nbi)
{
    (void)call, (void)pe, (void)nbi;
    shoal__tp_copy_2d(dst, dpitch, sh->heap_base + off, pitch, width, height);
    return SHOAL_SUCCESS;
}

static int self_host_amo(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *result, int nbi)
{
    (void)call, (void)pe, (void)nbi; /* complete on return */
    shoal__amo_cpu(sh->heap_base + off, a, result);
    return SHOAL_SUCCESS;
}

static int self_host_quiet(shoal_t sh, const char *call)
{
    (void)sh, (void)call;
    return SHOAL_SUCCESS;
}

const shoal__tp_ops_t shoal__tp_self_host = {
    .name = "self",
    .id = SHOAL_TRANSPORT_SELF,
    .heap_kind = SHOAL_HEAP_HOST,
    .caps = SHOAL__TP_CAP_MAPPED,
    .connect = self_connect,
    .put = self_host_put,
    .get = self_host_get,
    .quiet = self_host_quiet,
    .put_2d = self_host_put_2d,
    .get_2d = self_host_get_2d,
    .amo = self_host_amo,
};

#if SHOAL_HAVE_CUDA
#include "heap/shoal_gpu.h"
#include "transport/gpu_mapped.h"

/* The GPU heap's own bytes go through the same copy paths as a peer's
 * mapped heap (runtime/transport/gpu_mapped.c). */
const shoal__tp_ops_t shoal__tp_self_gpu = {
    .name = "self",
    .id = SHOAL_TRANSPORT_SELF,
    .heap_kind = SHOAL_HEAP_GPU,
    .connect = self_connect,
    SHOAL__TP_GPU_MAPPED_OPS,
};
#endif
