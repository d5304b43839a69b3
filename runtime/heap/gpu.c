/* GPU heap: device memory for this PE's heap and control area, the
 * internal stream, and what each PE publishes of it to its node (the
 * handle that the cuda_ipc transport opens). */
#include <stdlib.h>
#include <string.h>

#include "heap/shoal_gpu_share.h"
#include "heap/shoal_heap.h"
#include "base/shoal_instance.h"

#if !SHOAL_HAVE_CUDA

int shoal__gpu_count(const char **why_p)
{
    if (why_p != NULL) *why_p = "shoal was built without CUDA";
    return 0;
}

int shoal__gpu_probe(shoal_t sh, bool *have_gpu_p)
{
    (void)sh;
    *have_gpu_p = false;
    return SHOAL_SUCCESS;
}

static int shoal__no_cuda(shoal_t sh, const char *call)
{
    return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call, "shoal was built without CUDA");
}

int shoal__heap_gpu_create(shoal_t sh) { return shoal__no_cuda(sh, "shoal_init"); }
int shoal__heap_gpu_plan(shoal_t sh) { return shoal__no_cuda(sh, "shoal_init"); }
void shoal__heap_gpu_destroy(shoal_t sh) { (void)sh; }
bool shoal__heap_gpu_grow_needed(shoal_t sh, size_t lo, size_t hi)
{
    (void)sh;
    (void)lo;
    (void)hi;
    return false;
}
int shoal__heap_gpu_grow(shoal_t sh, const char *call, size_t lo, size_t hi, shoal__grow_report_t *rep)
{
    (void)lo;
    (void)hi;
    (void)rep;
    return shoal__no_cuda(sh, call);
}
int shoal__heap_gpu_grow_share(shoal_t sh, const char *call) { return shoal__no_cuda(sh, call); }
void shoal__heap_gpu_trim(shoal_t sh, size_t lo, size_t hi)
{
    (void)sh;
    (void)lo;
    (void)hi;
}
size_t shoal__heap_gpu_backed(shoal_t sh) { return sh->heap_size; }
size_t shoal__heap_gpu_chunk(shoal_t sh)
{
    (void)sh;
    return 0;
}
int shoal__gpu_memset(shoal_t sh, void *ptr, size_t n)
{
    (void)ptr;
    (void)n;
    return shoal__no_cuda(sh, "shoal_calloc");
}
const char *shoal__gpu_bus_id(shoal_t sh, int pe)
{
    (void)sh, (void)pe;
    return NULL;
}
int shoal__gpu_shared(shoal_t sh, int pe)
{
    (void)sh, (void)pe;
    return SHOAL_GPU_SEPARATE;
}

#else /* SHOAL_HAVE_CUDA */
#include <cuda.h>
#include <cuda_runtime_api.h>

#include "heap/gpu_amo.h"
#include "heap/shoal_gpu.h"
#include "base/shoal_env.h"

bool shoal__gpu_on_device(const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

int shoal__gpu_reg_prepare(shoal_t sh, const char *call, void *base, size_t size, void *handle, uint64_t *delta_p,
                           uint64_t *alloc_p)
{
    struct shoal_gpu *g = sh->gpu;
    struct cudaPointerAttributes a;
    cudaIpcMemHandle_t h;
    CUdeviceptr start = 0;
    size_t len = 0;
    CUresult cr;
    cudaError_t err;

    if (sh->heap_kind != SHOAL_HEAP_GPU || g == NULL)
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                            "%p is GPU memory, and this instance's heap is in host memory: GPU ranges are "
                            "registered on instances with a GPU heap (SHOAL_HEAP_KIND=gpu)",
                            base);
    for (int pe = 0; pe < sh->n_pes; pe++) {
        uintptr_t pb = (uintptr_t)sh->peer_base[pe], b = (uintptr_t)base;
        if (pe != sh->my_pe && pb != 0 && b < pb + sh->heap_size && pb < b + size)
            return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                                "[%p, +%zu) overlaps PE %d's heap as mapped here (shoal_ptr): heap memory is "
                                "symmetric already",
                                base, size, pe);
    }
    err = cudaPointerGetAttributes(&a, base);
    if (err != cudaSuccess) return shoal__cuda_error(sh, call, "cudaPointerGetAttributes", err);
    if (a.type == cudaMemoryTypeManaged)
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                            "%p is managed memory (cudaMallocManaged): GPU ranges must come from cudaMalloc, whose "
                            "memory other processes can map",
                            base);
    if (a.device != g->device)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "%p is memory of GPU %d, and this instance's heap is on GPU %d: register memory of the "
                            "heap's GPU",
                            base, a.device, g->device);
    cr = g->mem_get_address_range(&start, &len, (CUdeviceptr)(uintptr_t)base);
    if (cr != CUDA_SUCCESS)
        return shoal__error(sh, SHOAL_ERR_CUDA, call, "cuMemGetAddressRange(%p) failed with CUresult %d", base,
                            (int)cr);
    if (size > len - ((uintptr_t)base - (uintptr_t)start))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "[%p, +%zu) runs %zu bytes past the end of its GPU allocation [%p, +%zu): a GPU range "
                            "lies inside one cudaMalloc allocation",
                            base, size, size - (len - (size_t)((uintptr_t)base - (uintptr_t)start)),
                            (void *)(uintptr_t)start, len);
    if ((void *)(uintptr_t)start == g->raw)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "[%p, +%zu) is in the allocation of the symmetric heap: heap memory is symmetric already",
                            base, size);
    err = cudaIpcGetMemHandle(&h, (void *)(uintptr_t)start);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call,
                            "the GPU allocation holding %p cannot be shared with other processes "
                            "(cudaIpcGetMemHandle: %s): register memory from cudaMalloc (not cudaMallocAsync pools "
                            "or cuMemCreate)",
                            base, cudaGetErrorString(err));
    }
    _Static_assert(sizeof(h) <= 64, "an IPC handle fits its place");
    memcpy(handle, &h, sizeof(h));
    *delta_p = (uint64_t)((uintptr_t)base - (uintptr_t)start);
    *alloc_p = (uint64_t)start;
    return SHOAL_SUCCESS;
}

int shoal__cuda_error(shoal_t sh, const char *call, const char *what, cudaError_t err)
{
    cudaGetLastError(); /* clear a sticky-free error so later calls start clean */
    return shoal__error(sh, SHOAL_ERR_CUDA, call, "%s failed: %s (%s)", what, cudaGetErrorName(err),
                        cudaGetErrorString(err));
}

/* Driver entry points, found through the runtime: no link against libcuda. */
static int shoal__gpu_entry_points(shoal_t sh, struct shoal_gpu *g)
{
    static const struct {
        const char *name;
        size_t offset;
    } eps[] = {
        {"cuCtxGetCurrent", offsetof(struct shoal_gpu, ctx_get_current)},
        {"cuStreamWriteValue32", offsetof(struct shoal_gpu, write_value32)},
        {"cuStreamWaitValue32", offsetof(struct shoal_gpu, wait_value32)},
        {"cuStreamWriteValue64", offsetof(struct shoal_gpu, write_value64)},
        {"cuStreamWaitValue64", offsetof(struct shoal_gpu, wait_value64)},
        {"cuStreamBatchMemOp", offsetof(struct shoal_gpu, batch_mem_op)},
        {"cuMemGetAddressRange", offsetof(struct shoal_gpu, mem_get_address_range)},
    };
    for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
        enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        void *fn = NULL;
        cudaError_t err = cudaGetDriverEntryPointByVersion(eps[i].name, &fn, 12000, cudaEnableDefault, &q);
        if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || fn == NULL)
            return shoal__error(sh, SHOAL_ERR_CUDA, "shoal_init", "driver entry point %s not found (%s)", eps[i].name,
                                err != cudaSuccess ? cudaGetErrorString(err) : "symbol not found");
        memcpy((char *)g + eps[i].offset, &fn, sizeof(fn));
    }
    return SHOAL_SUCCESS;
}

int shoal__gpu_count(const char **why_p)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);

    /* Without a driver this is an error (35), not 0 devices: both mean no GPU. */
    if (err != cudaSuccess || count == 0) {
        if (why_p != NULL) *why_p = err != cudaSuccess ? cudaGetErrorString(err) : "0 devices";
        cudaGetLastError();
        return 0;
    }
    return count;
}

/* Pick the device: the configured one; else the one the application made
 * current; else, when it made none current, node rank modulo the count. */
int shoal__gpu_probe(shoal_t sh, bool *have_gpu_p)
{
    static const char *call = "shoal_init";
    struct shoal_gpu *g = NULL;
    const char *why = NULL;
    int count = shoal__gpu_count(&why), dev = 0, rc = SHOAL_SUCCESS;
    CUcontext ctx = NULL;

    *have_gpu_p = false;
    if (count == 0) {
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "no GPU: cudaGetDeviceCount: %s", why);
        return SHOAL_SUCCESS;
    }
    g = calloc(1, sizeof(*g));
    if (g == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    sh->gpu = g;
    g->stream = NULL;
    g->amo_lock_ready = pthread_mutex_init(&g->amo_lock, NULL) == 0;
    if (!g->amo_lock_ready) return shoal__error(sh, SHOAL_ERR_SYSTEM, call, "pthread_mutex_init failed");
    SHOAL__TRY(rc, out, shoal__gpu_entry_points(sh, g));
    if (sh->cfg.cuda_device >= 0) {
        if (sh->cfg.cuda_device >= count) {
            rc = shoal__error(sh, SHOAL_ERR_NO_DEVICE, call, "CUDA device %d asked for, but only %d are visible",
                              sh->cfg.cuda_device, count);
            goto out;
        }
        dev = sh->cfg.cuda_device;
    } else if (g->ctx_get_current(&ctx) == CUDA_SUCCESS && ctx != NULL) {
        SHOAL__CUDA_TRY(sh, call, rc, out, cudaGetDevice(&dev));
    } else {
        dev = sh->node_rank % count;
    }
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaSetDevice(dev));
    g->device = dev;
    SHOAL__CUDA_TRY(sh, call, rc, out, cudaDeviceGetPCIBusId(g->bus_id, sizeof(g->bus_id), dev));
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "using CUDA device %d (%s) of %d", dev, g->bus_id, count);
    *have_gpu_p = true;
out:
    return rc;
}

/* This PE's GPU as the node's PEs compare it: bus id, UUID, and whether
 * its context goes through MPS (kernels of PEs sharing a GPU run side by
 * side only then). A query that fails is logged and leaves its part
 * unknown (no UUID: the bus id alone; MPS: taken as not active, which at
 * worst warns needlessly) rather than failing init: this PE must not leave
 * the node's exchange that follows. */
static void shoal__gpu_identify(shoal_t sh, shoal__gpu_id_t *id)
{
    struct shoal_gpu *g = sh->gpu;
    struct cudaDeviceProp prop;
    int mps = 0;
    cudaError_t err;

    memset(id, 0, sizeof(*id));
    memcpy(id->bus_id, g->bus_id, sizeof(id->bus_id));
    err = cudaGetDeviceProperties(&prop, g->device);
    if (err == cudaSuccess) {
        _Static_assert(sizeof(prop.uuid.bytes) == sizeof(id->uuid), "UUID size");
        memcpy(id->uuid, prop.uuid.bytes, sizeof(id->uuid));
    } else {
        cudaGetLastError();
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "GPU %s: cudaGetDeviceProperties: %s; compared by bus id only",
                   g->bus_id, cudaGetErrorString(err));
    }
    /* A driver that does not know the attribute refuses it (cudaErrorInvalidValue). */
    err = cudaDeviceGetAttribute(&mps, cudaDevAttrMpsEnabled, g->device);
    if (err != cudaSuccess) {
        cudaGetLastError();
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA,
                   "GPU %s: cudaDeviceGetAttribute(cudaDevAttrMpsEnabled): %s; MPS taken as not active", g->bus_id,
                   cudaGetErrorString(err));
        mps = 0;
    }
    id->mps = mps != 0;
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "GPU %s: MPS %s", g->bus_id, id->mps ? "active" : "not active");
}

/* Once the node's PEs published their GPUs: the first PE of each GPU that
 * PEs share without MPS warns, naming them (shoal_gpu_share.h). */
static void shoal__gpu_share_log(shoal_t sh)
{
    struct shoal_gpu *g = sh->gpu;
    char msg[768];

    if (shoal__gpu_share_warning(g->node_gpus, sh->node_pes, sh->node_size, sh->node_rank, msg, sizeof(msg)) > 0)
        SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_CUDA, "%s", msg);
    for (int r = 0; r < sh->node_size; r++)
        if (r != sh->node_rank && shoal__gpu_share_kind(g->node_gpus, sh->node_rank, r) != SHOAL_GPU_SEPARATE)
            SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "PE %d shares GPU %s with this PE: %s", sh->node_pes[r],
                       g->bus_id,
                       shoal__gpu_share_kind(g->node_gpus, sh->node_rank, r) == SHOAL_GPU_SHARED_MPS
                           ? "MPS active for both, their kernels run side by side"
                           : "MPS not active for both, their kernels take turns by time slices");
}

int shoal__gpu_shared(shoal_t sh, int pe)
{
    struct shoal_gpu *g = sh->gpu;
    if (sh->heap_kind != SHOAL_HEAP_GPU || g == NULL || g->node_gpus == NULL || sh->pe_node[pe] != sh->node_id)
        return SHOAL_GPU_SEPARATE;
    return shoal__gpu_share_kind(g->node_gpus, sh->node_rank, sh->pe_node_rank[pe]);
}

/* hwloc that cannot see the PCI bus (no sysfs, no hwloc_pci plugin, or
 * components disabled) knows no GPU, NIC or PCIe switch of this node. The node's first
 * PE checks, and only when WARN messages are shown: it costs an hwloc load
 * of the PCI tree. */
static void shoal__gpu_pci_log(shoal_t sh)
{
    int found;

    if (sh->node_rank != 0) return;
    shoal__log_init();
    if (shoal__log_level < SHOAL__LOG_WARN || !(shoal__log_subsys & SHOAL__SUB_TOPO)) return;
    found = shoal_topo_live_pci();
    if (found == 0)
        SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_TOPO,
                   "hwloc finds no PCI device on this node, where PE %d uses GPU %s: hwloc cannot see the PCI bus "
                   "(make /sys visible, install libhwloc-plugins or point HWLOC_PLUGINS_PATH at hwloc_pci.so, and "
                   "keep pci out of HWLOC_COMPONENTS); the topology then takes GPUs and their PCIe paths from NVML "
                   "(shoal-topo shows them)",
                   sh->my_pe, sh->gpu->bus_id);
    else if (found < 0)
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_TOPO, "cannot check hwloc's PCI discovery: %s", shoal_topo_last_error());
}

int shoal__heap_gpu_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    struct shoal_gpu *g = sh->gpu;
    shoal__heap_desc_t *mine = shoal__heap_desc(sh, sh->node_rank);
    shoal__gpu_info_t info;
    void *base = NULL;
    int rc = SHOAL_SUCCESS, prc;
    cudaError_t err;

    memset(mine, 0, sizeof(*mine)); /* kind 0 until the heap exists: a failure shows */
    g->peer_ctrl = calloc((size_t)sh->n_pes, sizeof(char *));
    g->node_gpus = calloc((size_t)sh->node_size, sizeof(*g->node_gpus));
    if (g->peer_ctrl == NULL || g->node_gpus == NULL) {
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        goto publish;
    }
    if (g->vmm != NULL) {
        /* A growing heap: its range reserved, its control area mapped behind
         * it, nothing else taken (runtime/heap/gpu_vmm.c). */
        SHOAL__TRY(rc, publish, shoal__vmm_create(sh, &sh->heap_base, &g->ctrl));
        goto made;
    }
    /* The heap and, behind it, this PE's control area: one allocation, one
     * handle; the heap starts SHOAL__HEAP_BASE_ALIGN-aligned. */
    err = cudaMalloc(&base, sh->heap_size + SHOAL__GPU_CTRL_BYTES + SHOAL__HEAP_BASE_ALIGN);
    if (err != cudaSuccess) {
        size_t free_b = 0, total_b = 0;
        cudaGetLastError();
        cudaMemGetInfo(&free_b, &total_b);
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                          "cannot allocate a GPU heap of %zu bytes on device %d (%s): %s; %zu of %zu bytes free; "
                          "lower %s",
                          sh->heap_size, g->device, g->bus_id, cudaGetErrorString(err), free_b, total_b,
                          shoal__heap_size_knob(sh));
        goto publish;
    }
    g->raw = base;
    sh->heap_base = (char *)(((uintptr_t)base + SHOAL__HEAP_BASE_ALIGN - 1) & ~(uintptr_t)(SHOAL__HEAP_BASE_ALIGN - 1));
    g->ctrl = sh->heap_base + sh->heap_size;
made:
    sh->peer_base[sh->my_pe] = sh->heap_base;
    g->peer_ctrl[sh->my_pe] = g->ctrl;
    SHOAL__CUDA_TRY(sh, call, rc, publish, cudaMemset(g->ctrl, 0, SHOAL__GPU_CTRL_BYTES));
    /* The atomic kernels the staging and device proxies launch while the
     * application's kernels run: loaded now (heap/gpu_amo.h). */
    SHOAL__CUDA_TRY(sh, call, rc, publish, shoal__gpu_kernels_preload());
    /* A blocking stream: it waits for work the application issued before on the
     * legacy default stream (a cudaMemset, a kernel), as a blocking call should. */
    SHOAL__CUDA_TRY(sh, call, rc, publish, cudaStreamCreateWithFlags(&g->stream, cudaStreamDefault));

    /* The handle, the GPU and the offsets, in this PE's record of the
     * node's control window (runtime/base/node.c): the cuda_ipc transport opens
     * peers' heaps from their records. */
    memset(&info, 0, sizeof(info));
    if (g->vmm != NULL) {
        info.vmm = 1;
        snprintf(info.vmm_sock, sizeof(info.vmm_sock), "%s", shoal__vmm_sock_name(sh));
    } else {
        SHOAL__CUDA_TRY(sh, call, rc, publish, cudaIpcGetMemHandle(&info.handle, base));
        info.delta = (uint64_t)(sh->heap_base - (char *)base);
    }
    shoal__gpu_identify(sh, &info.id);
    info.heap_size = sh->heap_size;
    info.device = g->device;
    memcpy(mine->gpu, &info, sizeof(info));
    mine->heap_size = sh->heap_size;
    mine->kind = SHOAL_HEAP_GPU;

publish:
    /* Every PE of the node publishes its record, even one that failed (its
     * record says so): none waits for another in vain. */
    prc = shoal__heap_desc_publish(sh, call);
    if (rc == SHOAL_SUCCESS) rc = prc;
    for (int r = 0; rc == SHOAL_SUCCESS && r < sh->node_size; r++) {
        if (shoal__heap_desc(sh, r)->kind != SHOAL_HEAP_GPU)
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "PE %d could not create its GPU heap", sh->node_pes[r]);
        else
            g->node_gpus[r] = shoal__gpu_node_info(sh, r)->id;
    }
    if (rc == SHOAL_SUCCESS && g->vmm != NULL && sh->node_size > 1) {
        /* Growing heaps: the node's PEs connect their sockets and pass their
         * control areas; chunks follow as the heaps grow. */
        const char **names = calloc((size_t)sh->node_size, sizeof(char *));
        if (names == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        for (int r = 0; r < sh->node_size; r++) names[r] = shoal__gpu_node_info(sh, r)->vmm_sock;
        rc = shoal__vmm_connect(sh, names);
        free(names);
        if (rc == SHOAL_SUCCESS) rc = shoal__vmm_share_ctrl(sh);
    }
    if (rc == SHOAL_SUCCESS) {
        shoal__gpu_share_log(sh);
        shoal__gpu_pci_log(sh);
    }
    return rc;
}

int shoal__heap_gpu_plan(shoal_t sh) { return shoal__vmm_plan(sh); }

void shoal__heap_gpu_destroy(shoal_t sh)
{
    struct shoal_gpu *g = sh->gpu;
    if (g == NULL) return;
    if (g->stream != NULL) {
        cudaStreamSynchronize(g->stream);
        cudaStreamDestroy(g->stream);
    }
    if (g->amo_slots != NULL) cudaFreeHost(g->amo_slots);
    free(g->amo_pending);
    if (g->amo_lock_ready) pthread_mutex_destroy(&g->amo_lock);
    if (g->dev_peer_base != NULL) cudaFree(g->dev_peer_base);
    if (g->dev_peer_ctrl != NULL) cudaFree(g->dev_peer_ctrl);
    if (g->raw != NULL) cudaFree(g->raw);
    shoal__vmm_destroy(sh);
    cudaGetLastError();
    sh->heap_base = NULL;
    free(g->node_gpus);
    free(g->peer_ctrl);
    free(g);
    sh->gpu = NULL;
}

static _Thread_local cudaStream_t shoal__gpu_own_stream;
static _Thread_local uint64_t *shoal__gpu_own_slot;

void shoal__gpu_set_thread_stream(cudaStream_t stream, uint64_t *slot)
{
    shoal__gpu_own_stream = stream;
    shoal__gpu_own_slot = slot;
}
cudaStream_t shoal__gpu_thread_stream(void) { return shoal__gpu_own_stream; }
uint64_t *shoal__gpu_thread_slot(void) { return shoal__gpu_own_slot; }

int shoal__gpu_copy(shoal_t sh, const char *call, const char *what, void *dst, const void *src, size_t n)
{
    cudaStream_t s = shoal__gpu_own_stream;
    cudaError_t err;

    if (s == NULL) {
        err = cudaMemcpy(dst, src, n, cudaMemcpyDefault);
    } else {
        err = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s);
        if (err == cudaSuccess) err = cudaStreamSynchronize(s);
    }
    return err == cudaSuccess ? SHOAL_SUCCESS : shoal__cuda_error(sh, call, what, err);
}

int shoal__gpu_reach_agree(shoal_t sh)
{
    struct shoal_gpu *g = sh->gpu;
    int mine[2] = {sh->n_pes <= SHOAL_DEVICE_MAX_PES, sh->n_pes <= SHOAL_DEVICE_MAX_PES}, all[2];
    int rc;

    for (int pe = 0; pe < sh->n_pes; pe++)
        if (sh->peer_base[pe] == NULL || g->peer_ctrl[pe] == NULL) {
            mine[0] = 0;
            if (sh->pe_node[pe] == sh->node_id) mine[1] = 0;
        }
    rc = MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MIN, sh->comm);
    if (rc != MPI_SUCCESS) return shoal__mpi_error(sh, "shoal_init", "MPI_Allreduce (kernels' reach)", rc);
    g->all_mapped = all[0] != 0;
    g->nodes_mapped = all[1] != 0;
    return SHOAL_SUCCESS;
}

/* The peer tables kernels read, copied to the device once. */
int shoal__device_get(shoal_t sh, shoal_device_t *dev_p)
{
    static const char *call = "shoal_device_get";
    struct shoal_gpu *g = sh->gpu;
    size_t bytes = sizeof(char *) * (size_t)sh->n_pes;
    int rc = SHOAL_SUCCESS;

    if (sh->heap_kind != SHOAL_HEAP_GPU || g == NULL)
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call, "the heap is on the host: kernels need a GPU heap");
    if (g->dev_peer_base == NULL) {
        SHOAL__CUDA_TRY(sh, call, rc, out, cudaMalloc((void **)&g->dev_peer_base, bytes));
        SHOAL__CUDA_TRY(sh, call, rc, out, cudaMalloc((void **)&g->dev_peer_ctrl, bytes));
        SHOAL__CUDA_TRY(sh, call, rc, out, cudaMemcpy(g->dev_peer_base, sh->peer_base, bytes, cudaMemcpyHostToDevice));
        SHOAL__CUDA_TRY(sh, call, rc, out, cudaMemcpy(g->dev_peer_ctrl, g->peer_ctrl, bytes, cudaMemcpyHostToDevice));
    }
    dev_p->my_pe = sh->my_pe;
    dev_p->n_pes = sh->n_pes;
    dev_p->heap_base = sh->heap_base;
    dev_p->heap_size = sh->heap_size;
    dev_p->peer_base = g->dev_peer_base;
    dev_p->peer_ctrl = g->dev_peer_ctrl;
    dev_p->ctrl = (unsigned int *)g->ctrl;
    /* The near window: this PE and the reachable PEs just below it. */
    int first = sh->my_pe;
    while (first > 0 && sh->my_pe - (first - 1) < SHOAL_DEVICE_NEAR_PES && sh->peer_base[first - 1] != NULL) first--;
    dev_p->near_first = first;
    for (int k = 0; k < SHOAL_DEVICE_NEAR_PES; k++) {
        int pe = first + k;
        dev_p->near_base[k] = pe < sh->n_pes ? sh->peer_base[pe] : NULL;
        dev_p->near_ctrl[k] = pe < sh->n_pes ? (unsigned int *)g->peer_ctrl[pe] : NULL;
    }
    dev_p->barrier_ok = g->all_mapped; /* agreed: every PE takes the same barrier */
    /* Until the proxy fills them (api: shoal_device_get): atomics native,
     * no proxy, a node of its own. */
    dev_p->near_amo = ~0u;
    dev_p->peer_amo = NULL;
    dev_p->node_pes = NULL;
    dev_p->node_size = 1;
    dev_p->node_rank = 0;
    dev_p->node_ok = 1;
    memset(&dev_p->proxy, 0, sizeof(dev_p->proxy));
    dev_p->proxy.status = SHOAL_ERR_UNSUPPORTED;
out:
    return rc;
}

int shoal__gpu_memset(shoal_t sh, void *ptr, size_t n)
{
    int rc = SHOAL_SUCCESS;
    SHOAL__CUDA_TRY(sh, "shoal_calloc", rc, out, cudaMemsetAsync(ptr, 0, n, sh->gpu->stream));
    SHOAL__CUDA_TRY(sh, "shoal_calloc", rc, out, cudaStreamSynchronize(sh->gpu->stream));
out:
    return rc;
}

const char *shoal__gpu_bus_id(shoal_t sh, int pe)
{
    struct shoal_gpu *g = sh->gpu;
    if (g == NULL || g->node_gpus == NULL || sh->pe_node[pe] != sh->node_id) return NULL;
    return g->node_gpus[sh->pe_node_rank[pe]].bus_id;
}

#endif
