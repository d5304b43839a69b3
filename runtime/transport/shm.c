/* shm: host heaps of one node. The peer's segment of the node's shared
 * memory object (runtime/heap/heap_host.c) is mapped here, so a put is a copy
 * into it. */
#include <string.h>

#include "transport/transport.h"
#include "heap/shoal_heap.h"

static bool shm_connect(shoal_t sh, int pe)
{
    return pe != sh->my_pe && sh->pe_node[pe] == sh->node_id && sh->peer_base[pe] != NULL;
}

static int shm_put(shoal_t sh, const char *call, int pe, size_t off, const void *src, size_t n, int nbi)
{
    (void)call, (void)nbi; /* complete on return: nothing is ever outstanding */
    memcpy(sh->peer_base[pe] + off, src, n);
    return SHOAL_SUCCESS;
}

static int shm_get(shoal_t sh, const char *call, int pe, void *dst, size_t off, size_t n, int nbi)
{
    (void)call, (void)nbi;
    memcpy(dst, sh->peer_base[pe] + off, n);
    return SHOAL_SUCCESS;
}

static int shm_put_2d(shoal_t sh, const char *call, int pe, size_t off, size_t pitch, const void *src, size_t spitch,
                      size_t width, size_t height, int nbi)
{
    (void)call, (void)nbi;
    shoal__tp_copy_2d(sh->peer_base[pe] + off, pitch, src, spitch, width, height);
    return SHOAL_SUCCESS;
}

static int shm_get_2d(shoal_t sh, const char *call, int pe, void *dst, size_t dpitch, size_t off, size_t pitch,
                      size_t width, size_t height, int nbi)
{
    (void)call, (void)nbi;
    shoal__tp_copy_2d(dst, dpitch, sh->peer_base[pe] + off, pitch, width, height);
    return SHOAL_SUCCESS;
}

static int shm_amo(shoal_t sh, const char *call, int pe, size_t off, const shoal__amo_t *a, void *result, int nbi)
{
    (void)call, (void)nbi; /* complete on return */
    shoal__amo_cpu(sh->peer_base[pe] + off, a, result);
    return SHOAL_SUCCESS;
}

/* Order the copies before what follows (a signal that another transport
 * may carry). */
static int shm_fence(shoal_t sh, const char *call, int pe)
{
    (void)sh, (void)call, (void)pe;
    atomic_thread_fence(memory_order_seq_cst);
    return SHOAL_SUCCESS;
}

/* Stores are complete once issued; order them before what follows. */
static int shm_quiet(shoal_t sh, const char *call)
{
    (void)sh, (void)call;
    atomic_thread_fence(memory_order_seq_cst);
    return SHOAL_SUCCESS;
}

const shoal__tp_ops_t shoal__tp_shm = {
    .name = "shm",
    .id = SHOAL_TRANSPORT_SHM,
    .heap_kind = SHOAL_HEAP_HOST,
    .caps = SHOAL__TP_CAP_MAPPED,
    .connect = shm_connect,
    .put = shm_put,
    .get = shm_get,
    .quiet = shm_quiet,
    .put_2d = shm_put_2d,
    .get_2d = shm_get_2d,
    .amo = shm_amo,
    .fence = shm_fence,
};
