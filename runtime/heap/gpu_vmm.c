/* A GPU heap that grows (runtime/heap/shoal_gpu.h, "the growing heap"):
 * CUDA's virtual memory management. At init each PE reserves the heap's
 * whole range (its limit, SHOAL_HEAP_SIZE) and maps only its control area,
 * behind the heap; shoal_malloc maps physical chunks (SHOAL_HEAP_CHUNK) as
 * blocks need them, on every PE at once (allocation is collective), and
 * shoal_free gives back the chunks no block uses any more.
 *
 * A growth maps the chunks a block lacks as few allocations ("extents"):
 * each run of missing chunks the block covers whole is one allocation, and
 * a chunk it covers in part (its first and last, which other blocks may
 * share) is one of its own. An extent goes back whole, once no block uses
 * any of it; as the block's whole chunks make it, freeing the block gives
 * it back, as it would give back those chunks one by one. Every PE has the
 * same extents (the same allocator decides the same growths and trims),
 * and a node peer maps each of them with one import.
 *
 * Node peers that load and store each other's heaps (the cuda_ipc
 * transport) map each other's chunks: each chunk is exported as a POSIX
 * file descriptor and passed over a Unix socket between the node's
 * processes (SCM_RIGHTS; abstract names, nothing in the file system), then
 * imported and mapped into a reservation of the peer's whole range here.
 * The heap stays one contiguous range in every process that maps it, so
 * peer_base, the device tables kernels read and the device proxy need no
 * change when it grows.
 *
 * It is the default (SHOAL_HEAP_RESERVE=n). Where the driver or the GPU
 * (MIG, no VMM, no file descriptors), a PE's own socket, node peers in
 * other network namespaces, or SHOAL_HEAP_RESERVE=y rule it
 * out, the heap is the fixed one of runtime/heap/gpu.c: every PE agrees at init
 * (shoal__vmm_plan) and says so at INFO. Node peers whose sockets still
 * cannot reach each other fail init saying so. */
#if SHOAL_HAVE_CUDA
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "heap/shoal_gpu.h"
#include "heap/shoal_heap.h"
#include "base/shoal_env.h"
#include "base/shoal_instance.h"

/* File descriptors a message carries at most (below the kernel's 253). */
#define SHOAL__VMM_BATCH 128

/* A node peer's heap as this process sees it. */
typedef struct shoal__vmm_peer {
    bool open;                          /* mapped here (the cuda_ipc transport opened it) */
    int ctrl_fd;                        /* its control area's descriptor, until cuda_ipc opens it; -1: none */
    CUdeviceptr base;                   /* its reservation here: heap, then control area */
    CUmemGenericAllocationHandle ctrl;  /* its control area, imported at init; 0: none */
    CUmemGenericAllocationHandle *have; /* per extent's first chunk: imported and mapped here, or 0 */
} shoal__vmm_peer_t;

struct shoal__vmm {
    CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*addr_free)(CUdeviceptr, size_t);
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *, unsigned long long);
    CUresult (*release)(CUmemGenericAllocationHandle);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*export_fd)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType, unsigned long long);
    CUresult (*import_fd)(CUmemGenericAllocationHandle *, void *, CUmemAllocationHandleType);
    CUresult (*granularity)(size_t *, const CUmemAllocationProp *, CUmemAllocationGranularity_flags);
    CUresult (*attribute)(int *, CUdevice_attribute, CUdevice);
    CUresult (*error_string)(CUresult, const char **);

    CUmemAllocationProp prop;
    size_t gran;     /* the GPU's allocation granularity */
    size_t chunk;    /* bytes mapped at a time */
    size_t heap_len; /* the heap's range: its limit rounded up to whole chunks */
    size_t ctrl_len; /* the control area behind it, in whole granules */
    size_t n_chunks;
    CUdeviceptr base;                   /* my reservation (heap_len + ctrl_len) */
    CUmemGenericAllocationHandle ctrl;  /* my control area */
    CUmemGenericAllocationHandle *have; /* per extent's first chunk: mine, mapped, or 0 */
    size_t *head;                       /* per chunk: 1 + its extent's first chunk; 0: not mapped */
    size_t *len;                        /* per extent's first chunk: its chunks */
    size_t n_mapped;                    /* chunks mapped */
    size_t *fresh;                      /* extents (first chunks) the last growth mapped, not yet shared */
    size_t n_fresh;
    int listen_fd;           /* my socket, listening until the node's PEs connected */
    uint64_t seq;            /* exchanges with the node so far */
    bool broken;             /* an exchange failed: the heap no longer grows */
    char sock_name[40];      /* its abstract name (without the leading NUL) */
    int *sock;               /* per node rank: connected to that PE; -1 for me */
    shoal__vmm_peer_t *peer; /* per node rank */
};

static const char *shoal__vmm_err(const shoal__vmm_t *v, CUresult r)
{
    const char *s = NULL;
    if (v->error_string == NULL || v->error_string(r, &s) != CUDA_SUCCESS || s == NULL) return "unknown CUresult";
    return s;
}

static int shoal__vmm_cu_error(shoal_t sh, const char *call, const char *what, CUresult r)
{
    return shoal__error(sh, SHOAL_ERR_CUDA, call, "%s failed: %s (CUresult %d)", what, shoal__vmm_err(sh->gpu->vmm, r),
                        (int)r);
}

/* ------------------------------------------------------------ the plan */

/* The driver's entry points and what this GPU offers; false (why in
 * why) where the growing heap cannot be. */
static bool shoal__vmm_probe(shoal_t sh, shoal__vmm_t *v, char *why, size_t len)
{
    static const struct {
        const char *name;
        size_t offset;
    } eps[] = {
        {"cuMemAddressReserve", offsetof(shoal__vmm_t, reserve)},
        {"cuMemAddressFree", offsetof(shoal__vmm_t, addr_free)},
        {"cuMemCreate", offsetof(shoal__vmm_t, create)},
        {"cuMemRelease", offsetof(shoal__vmm_t, release)},
        {"cuMemMap", offsetof(shoal__vmm_t, map)},
        {"cuMemUnmap", offsetof(shoal__vmm_t, unmap)},
        {"cuMemSetAccess", offsetof(shoal__vmm_t, set_access)},
        {"cuMemExportToShareableHandle", offsetof(shoal__vmm_t, export_fd)},
        {"cuMemImportFromShareableHandle", offsetof(shoal__vmm_t, import_fd)},
        {"cuMemGetAllocationGranularity", offsetof(shoal__vmm_t, granularity)},
        {"cuDeviceGetAttribute", offsetof(shoal__vmm_t, attribute)},
        {"cuGetErrorString", offsetof(shoal__vmm_t, error_string)},
    };
    int vmm = 0, fd = 0, rdma = 0;
    CUresult r;

    for (size_t i = 0; i < sizeof(eps) / sizeof(eps[0]); i++) {
        enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
        void *fn = NULL;
        cudaError_t err = cudaGetDriverEntryPointByVersion(eps[i].name, &fn, 12000, cudaEnableDefault, &q);
        if (err != cudaSuccess || q != cudaDriverEntryPointSuccess || fn == NULL) {
            cudaGetLastError();
            snprintf(why, len, "the driver has no %s", eps[i].name);
            return false;
        }
        memcpy((char *)v + eps[i].offset, &fn, sizeof(fn));
    }
    if (v->attribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, sh->gpu->device) != CUDA_SUCCESS ||
        !vmm) {
        snprintf(why, len, "GPU %s has no virtual memory management (MIG, or an old driver)", sh->gpu->bus_id);
        return false;
    }
    if (v->attribute(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, sh->gpu->device) !=
            CUDA_SUCCESS ||
        !fd) {
        snprintf(why, len, "GPU %s cannot share its memory as file descriptors", sh->gpu->bus_id);
        return false;
    }
    memset(&v->prop, 0, sizeof(v->prop));
    v->prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    v->prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    v->prop.location.id = sh->gpu->device;
    v->prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    /* Registrable by RDMA NICs (CUDA-aware MPI, NCCL) where the GPU allows it. */
    if (v->attribute(&rdma, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED, sh->gpu->device) ==
            CUDA_SUCCESS &&
        rdma)
        v->prop.allocFlags.gpuDirectRDMACapable = 1;
    r = v->granularity(&v->gran, &v->prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
    if (r != CUDA_SUCCESS || v->gran == 0) {
        snprintf(why, len, "cuMemGetAllocationGranularity: %s", shoal__vmm_err(v, r));
        return false;
    }
    return true;
}

/* This PE's listening socket, at an abstract name node peers connect to. */
static bool shoal__vmm_listen(shoal__vmm_t *v, int backlog, char *why, size_t len)
{
    static atomic_uint counter;
    struct sockaddr_un a;
    struct timespec ts;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd < 0) {
        snprintf(why, len, "socket(AF_UNIX): %s", strerror(errno));
        return false;
    }
    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(v->sock_name, sizeof(v->sock_name), "shoal-vmm-%ld-%u-%lx", (long)getpid(), atomic_fetch_add(&counter, 1),
             (unsigned long)ts.tv_nsec);
    memset(&a, 0, sizeof(a));
    a.sun_family = AF_UNIX;
    memcpy(a.sun_path + 1, v->sock_name, strlen(v->sock_name)); /* sun_path[0] = 0: abstract */
    if (bind(fd, (struct sockaddr *)&a,
             (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(v->sock_name))) != 0 ||
        listen(fd, backlog) != 0) {
        snprintf(why, len, "a Unix socket for the node's PEs: %s", strerror(errno));
        close(fd);
        return false;
    }
    v->listen_fd = fd;
    return true;
}

static void shoal__vmm_free(shoal__vmm_t *v)
{
    if (v == NULL) return;
    if (v->listen_fd >= 0) close(v->listen_fd);
    free(v->have);
    free(v->head);
    free(v->len);
    free(v->fresh);
    free(v->sock);
    free(v->peer);
    free(v);
}

/* Whether every PE of my node is in my network namespace, where their
 * heap sockets (abstract names) reach each other; collective over the
 * node. A namespace that cannot be read counts as a different one. */
static int shoal__vmm_same_netns(shoal_t sh, bool *same)
{
    struct stat st;
    /* As complements, so that one MIN gives the smallest and the largest. */
    unsigned long long mine[2] = {0, ~0ULL}, all[2] = {0, 0};
    int rc;

    if (stat("/proc/self/ns/net", &st) == 0) {
        unsigned long long id = (unsigned long long)st.st_ino ^ ((unsigned long long)st.st_dev << 40);
        mine[0] = id;
        mine[1] = ~id;
    }
    rc = MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_MIN, sh->node_comm);
    if (rc != MPI_SUCCESS)
        return shoal__mpi_error(sh, "shoal_init", "MPI_Allreduce (the node's network namespaces)", rc);
    *same = all[0] == ~all[1] && all[0] != 0;
    return SHOAL_SUCCESS;
}

int shoal__vmm_plan(shoal_t sh)
{
    static const char *call = "shoal_init";
    struct shoal_gpu *g = sh->gpu;
    shoal__vmm_t *v = NULL;
    char why[256] = "SHOAL_HEAP_RESERVE=y";
    /* [0]: 1 where this PE can grow; [1]: its GPU's memory (the smallest
     * makes the default limit). */
    unsigned long long mine[5] = {0, 0, 0, 0, 0}, all[5] = {0, 0, 0, 0, 0};
    size_t free_b = 0, total_b = 0;
    int rc;

    if (!sh->heap_reserve) {
        v = calloc(1, sizeof(*v));
        if (v == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
        v->listen_fd = -1;
        if (shoal__vmm_probe(sh, v, why, sizeof(why)) && shoal__vmm_listen(v, sh->node_size + 1, why, sizeof(why)))
            mine[0] = 1;
    }
    /* Node peers in other network namespaces (containers that share IPC
     * but not the network) cannot reach each other's sockets: the fixed
     * heap, which CUDA IPC shares, serves them. Every PE of the node asks. */
    if (sh->node_size > 1) {
        bool same = true;
        rc = shoal__vmm_same_netns(sh, &same);
        if (rc != SHOAL_SUCCESS) {
            shoal__vmm_free(v);
            return rc;
        }
        if (!same && mine[0]) {
            mine[0] = 0;
            snprintf(why, sizeof(why),
                     "the node's PEs are in different network namespaces, where the growing heap's sockets cannot "
                     "reach each other");
        }
    }
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
    mine[1] = total_b;
    /* The largest chunk and granularity (as complements: one MIN for all),
     * so that every PE maps the same chunks; and whether every PE may take
     * the default limit (all or none: the limits stay equal). */
    mine[2] = ~(unsigned long long)sh->heap_chunk;
    mine[3] = ~(unsigned long long)(v != NULL ? v->gran : 0);
    mine[4] = !sh->heap_size_from_code && !sh->heap_size_var_set;
    /* Every PE grows, or none does. */
    rc = MPI_Allreduce(mine, all, 5, MPI_UNSIGNED_LONG_LONG, MPI_MIN, sh->comm);
    if (rc != MPI_SUCCESS) {
        shoal__vmm_free(v);
        return shoal__mpi_error(sh, call, "MPI_Allreduce (the GPU heap's plan)", rc);
    }
    if (!all[0]) {
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA, "GPU heap: fixed, %zu bytes taken at init (%s)", sh->heap_size,
                   mine[0] ? "another PE cannot grow its heap" : why);
        shoal__vmm_free(v);
        return SHOAL_SUCCESS;
    }
    g->vmm = v;
    /* SHOAL_HEAP_SIZE unset: the limit is the smallest GPU's memory. */
    if (all[4] && all[1] > sh->heap_size) sh->heap_size = (size_t)all[1];
    v->gran = (size_t)~all[3];
    v->chunk = ((size_t)~all[2] + v->gran - 1) / v->gran * v->gran;
    /* A heap smaller than a chunk maps no more than itself. */
    {
        size_t whole = (sh->heap_size + v->gran - 1) / v->gran * v->gran;
        if (v->chunk > whole) v->chunk = whole;
    }
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_CUDA,
               "GPU heap: growing, limit %zu bytes, chunks of %zu (granularity %zu), nothing taken at init",
               sh->heap_size, v->chunk, v->gran);
    return SHOAL_SUCCESS;
}

/* ------------------------------------------------------------ mapping */

static CUmemAccessDesc shoal__vmm_access(int device)
{
    CUmemAccessDesc d;
    memset(&d, 0, sizeof(d));
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = device;
    d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return d;
}

/* Map handle h at addr (len bytes) for this PE's GPU. */
static CUresult shoal__vmm_map_at(shoal__vmm_t *v, int device, CUdeviceptr addr, size_t len,
                                  CUmemGenericAllocationHandle h)
{
    CUmemAccessDesc d = shoal__vmm_access(device);
    CUresult r = v->map(addr, len, 0, h, 0);
    if (r != CUDA_SUCCESS) return r;
    r = v->set_access(addr, len, &d, 1);
    if (r != CUDA_SUCCESS) v->unmap(addr, len);
    return r;
}

int shoal__vmm_create(shoal_t sh, char **heap_base_p, char **ctrl_p)
{
    static const char *call = "shoal_init";
    struct shoal_gpu *g = sh->gpu;
    shoal__vmm_t *v = g->vmm;
    size_t align = v->gran > SHOAL__HEAP_BASE_ALIGN ? v->gran : SHOAL__HEAP_BASE_ALIGN;
    CUresult r;

    v->heap_len = (sh->heap_size + v->chunk - 1) / v->chunk * v->chunk;
    v->ctrl_len = (SHOAL__GPU_CTRL_BYTES + v->gran - 1) / v->gran * v->gran;
    v->n_chunks = v->heap_len / v->chunk;
    v->have = calloc(v->n_chunks, sizeof(*v->have));
    v->head = calloc(v->n_chunks, sizeof(*v->head));
    v->len = calloc(v->n_chunks, sizeof(*v->len));
    v->fresh = calloc(v->n_chunks, sizeof(*v->fresh));
    v->sock = malloc((size_t)sh->node_size * sizeof(int));
    v->peer = calloc((size_t)sh->node_size, sizeof(*v->peer));
    if (v->have == NULL || v->head == NULL || v->len == NULL || v->fresh == NULL || v->sock == NULL || v->peer == NULL)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    for (int r2 = 0; r2 < sh->node_size; r2++) {
        v->sock[r2] = -1;
        v->peer[r2].ctrl_fd = -1;
    }
    r = v->reserve(&v->base, v->heap_len + v->ctrl_len, align, 0, 0);
    if (r != CUDA_SUCCESS)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                            "cannot reserve %zu bytes of addresses for a growing GPU heap (cuMemAddressReserve: %s); "
                            "lower %s",
                            v->heap_len + v->ctrl_len, shoal__vmm_err(v, r), shoal__heap_size_knob(sh));
    r = v->create(&v->ctrl, v->ctrl_len, &v->prop, 0);
    if (r == CUDA_SUCCESS) {
        r = shoal__vmm_map_at(v, g->device, v->base + v->heap_len, v->ctrl_len, v->ctrl);
        if (r != CUDA_SUCCESS) {
            v->release(v->ctrl);
            v->ctrl = 0;
        }
    } else {
        v->ctrl = 0;
    }
    if (r != CUDA_SUCCESS) return shoal__vmm_cu_error(sh, call, "mapping the GPU heap's control area", r);
    *heap_base_p = (char *)(uintptr_t)v->base;
    *ctrl_p = (char *)(uintptr_t)(v->base + v->heap_len);
    return SHOAL_SUCCESS;
}

/* ------------------------------------------------------------ the node's sockets */

/* Wait for fd to be ready (POLLIN or POLLOUT) up to the instance's timeout. */
static int shoal__vmm_wait(shoal_t sh, int fd, short events)
{
    struct pollfd p = {.fd = fd, .events = events};
    int ms = sh->cfg.timeout > 0 && sh->cfg.timeout < 2e6 ? (int)(sh->cfg.timeout * 1000) : -1, n;
    do {
        n = poll(&p, 1, ms);
    } while (n < 0 && errno == EINTR);
    return n > 0 ? 0 : n == 0 ? ETIMEDOUT : errno;
}

static int shoal__vmm_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k < 0 ? errno : EPIPE;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Connect every pair of the node's PEs: each connects to the higher ranks'
 * sockets (their backlog holds the connection until they accept) and says
 * its rank, then accepts the lower ranks. Collective over the node. */
int shoal__vmm_connect(shoal_t sh, const char *const *names)
{
    static const char *call = "shoal_init";
    shoal__vmm_t *v = sh->gpu->vmm;
    int me = sh->node_rank, err = 0;

    for (int r = me + 1; r < sh->node_size && err == 0; r++) {
        struct sockaddr_un a;
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        size_t nl = strlen(names[r]);
        if (fd < 0) {
            err = errno;
            break;
        }
        memset(&a, 0, sizeof(a));
        a.sun_family = AF_UNIX;
        memcpy(a.sun_path + 1, names[r], nl < sizeof(a.sun_path) - 1 ? nl : sizeof(a.sun_path) - 1);
        if (connect(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + nl)) != 0 ||
            (err = shoal__vmm_write_all(fd, &me, sizeof(me))) != 0) {
            if (err == 0) err = errno;
            close(fd);
            return shoal__error(sh, SHOAL_ERR_SYSTEM, call,
                                "cannot connect to PE %d's socket for sharing its GPU heap (%s): %s; run with "
                                "SHOAL_HEAP_RESERVE=y (a fixed heap, shared by CUDA IPC)",
                                sh->node_pes[r], names[r], strerror(err));
        }
        v->sock[r] = fd;
    }
    for (int k = 0; k < me && err == 0; k++) {
        int fd, who = -1;
        ssize_t got;
        if ((err = shoal__vmm_wait(sh, v->listen_fd, POLLIN)) != 0) break;
        fd = accept4(v->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            err = errno;
            break;
        }
        if ((err = shoal__vmm_wait(sh, fd, POLLIN)) == 0) {
            got = recv(fd, &who, sizeof(who), MSG_WAITALL);
            if (got != (ssize_t)sizeof(who) || who < 0 || who >= me || v->sock[who] >= 0) err = EPROTO;
        }
        if (err != 0) {
            close(fd);
            break;
        }
        v->sock[who] = fd;
    }
    if (err != 0)
        return shoal__error(sh, SHOAL_ERR_SYSTEM, call,
                            "the node's PEs could not connect to share their GPU heaps: %s (PE %d waited for the "
                            "lower node ranks' connections)",
                            strerror(err), sh->my_pe);
    close(v->listen_fd); /* every pair is connected */
    v->listen_fd = -1;
    return SHOAL_SUCCESS;
}

/* One message of the node's exchange: which exchange it belongs to, how
 * many descriptors ride with it, and whether the sender's part failed
 * (then it carries none, and the receiver goes on with the rounds). */
typedef struct shoal__vmm_msg {
    uint64_t seq;
    uint32_t n;
    int32_t status;
} shoal__vmm_msg_t;
typedef union shoal__vmm_ctl {
    char buf[CMSG_SPACE(sizeof(int) * SHOAL__VMM_BATCH)];
    struct cmsghdr align;
} shoal__vmm_ctl_t;

/* Send msg with its msg->n descriptors. */
static int shoal__vmm_send_fds(shoal_t sh, int sock, const shoal__vmm_msg_t *msg, const int *fds)
{
    shoal__vmm_ctl_t ctl;
    shoal__vmm_msg_t copy = *msg;
    struct iovec io = {.iov_base = &copy, .iov_len = sizeof(copy)};
    struct msghdr m;
    ssize_t k;
    int err;

    memset(&m, 0, sizeof(m));
    memset(&ctl, 0, sizeof(ctl));
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    if (msg->n > 0) {
        struct cmsghdr *c;
        m.msg_control = ctl.buf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * msg->n);
        c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * msg->n);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * msg->n);
    }
    if ((err = shoal__vmm_wait(sh, sock, POLLOUT)) != 0) return err;
    do {
        k = sendmsg(sock, &m, MSG_NOSIGNAL);
    } while (k < 0 && errno == EINTR);
    return k == (ssize_t)sizeof(copy) ? 0 : k < 0 ? errno : EPROTO;
}

/* Receive one message into *msg and its descriptors into fds (at most
 * max); EPROTO where it is not this exchange's (seq) or not whole. */
static int shoal__vmm_recv_fds(shoal_t sh, int sock, uint64_t seq, shoal__vmm_msg_t *msg, int *fds, size_t max)
{
    shoal__vmm_ctl_t ctl;
    struct iovec io = {.iov_base = msg, .iov_len = sizeof(*msg)};
    struct msghdr m;
    struct cmsghdr *c;
    size_t got = 0;
    ssize_t k;
    int err;

    memset(&m, 0, sizeof(m));
    memset(msg, 0, sizeof(*msg));
    m.msg_iov = &io;
    m.msg_iovlen = 1;
    m.msg_control = ctl.buf;
    m.msg_controllen = sizeof(ctl.buf);
    if ((err = shoal__vmm_wait(sh, sock, POLLIN)) != 0) return err;
    do {
        k = recvmsg(sock, &m, MSG_WAITALL | MSG_CMSG_CLOEXEC);
    } while (k < 0 && errno == EINTR);
    if (k < 0) return errno;
    for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t nf = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < nf; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
                if (got < max)
                    fds[got++] = fd;
                else
                    close(fd);
            }
        }
    if (k != (ssize_t)sizeof(*msg) || msg->seq != seq || got != msg->n || (m.msg_flags & MSG_CTRUNC)) {
        for (size_t i = 0; i < got; i++) close(fds[i]);
        msg->n = 0;
        return EPROTO;
    }
    return 0;
}

/* What a peer's descriptor becomes here: chunk index c of node rank r
 * (SIZE_MAX: its control area). */
static int shoal__vmm_take(shoal_t sh, const char *call, int r, size_t c, int fd)
{
    struct shoal_gpu *g = sh->gpu;
    shoal__vmm_t *v = g->vmm;
    shoal__vmm_peer_t *p = &v->peer[r];
    CUmemGenericAllocationHandle h = 0;
    CUresult cr;

    if (c == SIZE_MAX) { /* its control area: imported when (and if) cuda_ipc opens the peer */
        if (p->ctrl_fd >= 0) close(p->ctrl_fd);
        p->ctrl_fd = fd;
        return SHOAL_SUCCESS;
    }
    if (!p->open) { /* not mapped here: its chunks are not needed */
        close(fd);
        return SHOAL_SUCCESS;
    }
    cr = v->import_fd(&h, (void *)(uintptr_t)fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(fd);
    if (cr != CUDA_SUCCESS)
        return shoal__vmm_cu_error(sh, call, "cuMemImportFromShareableHandle (a node peer's heap)", cr);
    /* Its extent at c is mine at c (every PE grew alike). */
    cr = shoal__vmm_map_at(v, g->device, p->base + c * v->chunk, v->len[c] * v->chunk, h);
    if (cr != CUDA_SUCCESS) {
        v->release(h);
        return shoal__error(sh, SHOAL_ERR_CUDA, call, "cannot map PE %d's new heap chunks %zu to %zu here: %s",
                            sh->node_pes[r], c, c + v->len[c] - 1, shoal__vmm_err(v, cr));
    }
    p->have[c] = h;
    return SHOAL_SUCCESS;
}

/* Every node PE passes the given handles of its own (extents idx[0..n), or
 * its control area where idx is NULL) to every node peer, which takes
 * them. Pairwise rounds, a batch at a time: at most one batch of
 * descriptors is in flight per pair, and none is held long. Every round
 * runs on every PE whatever failed (a failed part sends an empty message
 * saying so), so nobody waits in vain and nothing stale stays in a
 * socket; a socket that broke breaks the exchange for good. Collective
 * over the node, with the same idx everywhere. */
static int shoal__vmm_share(shoal_t sh, const char *call, const size_t *idx, size_t n)
{
    shoal__vmm_t *v = sh->gpu->vmm;
    int ns = sh->node_size, me = sh->node_rank, rc = SHOAL_SUCCESS;
    /* Descriptors in flight count against the user's RLIMIT_NOFILE on the
     * whole node: each PE's batch shrinks with many PEs. */
    size_t batch = (size_t)(512 / (ns > 0 ? ns : 1));
    int fds[SHOAL__VMM_BATCH], in[SHOAL__VMM_BATCH];
    uint64_t seq = ++v->seq;

    if (v->broken)
        return shoal__error(sh, SHOAL_ERR_SYSTEM, call,
                            "an earlier exchange of GPU heap handles with the node failed: the heap cannot grow "
                            "(free blocks, or run with SHOAL_HEAP_RESERVE=y)");
    if (batch > SHOAL__VMM_BATCH) batch = SHOAL__VMM_BATCH;
    if (batch < 1) batch = 1;
    for (size_t b = 0; b < n && !v->broken; b += batch) {
        size_t m = n - b < batch ? n - b : batch, made = 0;
        for (; made < m && rc == SHOAL_SUCCESS; made++) {
            CUmemGenericAllocationHandle h = idx != NULL ? v->have[idx[b + made]] : v->ctrl;
            CUresult cr = v->export_fd(&fds[made], h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
            if (cr != CUDA_SUCCESS) {
                rc = shoal__vmm_cu_error(sh, call, "cuMemExportToShareableHandle (this PE's heap)", cr);
                break;
            }
        }
        for (int k = 1; k < ns && !v->broken; k++) {
            int to = (me + k) % ns, from = (me - k + ns) % ns, err;
            shoal__vmm_msg_t out = {.seq = seq, .n = rc == SHOAL_SUCCESS ? (uint32_t)m : 0, .status = rc}, got;
            err = shoal__vmm_send_fds(sh, v->sock[to], &out, fds);
            if (err == 0) err = shoal__vmm_recv_fds(sh, v->sock[from], seq, &got, in, m);
            if (err != 0) {
                v->broken = true; /* a socket out of step: no later exchange can trust it */
                if (rc == SHOAL_SUCCESS)
                    rc = shoal__error(sh, SHOAL_ERR_SYSTEM, call,
                                      "passing GPU heap handles to PE %d and from PE %d over the node's sockets: %s",
                                      sh->node_pes[to], sh->node_pes[from], strerror(err));
                break;
            }
            /* A peer whose part failed sent none: its failure reaches every
             * PE through the agreement that follows. */
            for (size_t i = 0; i < got.n; i++) {
                int trc = rc != SHOAL_SUCCESS
                              ? (close(in[i]), rc)
                              : shoal__vmm_take(sh, call, from, idx != NULL ? idx[b + i] : SIZE_MAX, in[i]);
                if (rc == SHOAL_SUCCESS) rc = trc;
            }
            if (got.status != SHOAL_SUCCESS && rc == SHOAL_SUCCESS)
                rc = shoal__error(sh, SHOAL_ERR_SYSTEM, call, "PE %d could not pass its GPU heap handles",
                                  sh->node_pes[from]);
        }
        for (size_t i = 0; i < made; i++) close(fds[i]);
    }
    return rc;
}

int shoal__vmm_share_ctrl(shoal_t sh) { return shoal__vmm_share(sh, "shoal_init", NULL, 1); }

int shoal__vmm_open_peer(shoal_t sh, int r, char **base_p, char **ctrl_p)
{
    static const char *call = "shoal_init";
    struct shoal_gpu *g = sh->gpu;
    shoal__vmm_t *v = g->vmm;
    shoal__vmm_peer_t *p = &v->peer[r];
    size_t align = v->gran > SHOAL__HEAP_BASE_ALIGN ? v->gran : SHOAL__HEAP_BASE_ALIGN;
    CUresult cr;

    if (p->ctrl_fd < 0)
        return shoal__error(sh, SHOAL_ERR_INTERNAL, call, "PE %d's GPU heap control area was not passed here",
                            sh->node_pes[r]);
    cr = v->import_fd(&p->ctrl, (void *)(uintptr_t)p->ctrl_fd, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(p->ctrl_fd);
    p->ctrl_fd = -1;
    if (cr != CUDA_SUCCESS) {
        p->ctrl = 0;
        return shoal__error(sh, SHOAL_ERR_CUDA, call, "cannot import PE %d's GPU heap (GPU %d): %s", sh->node_pes[r],
                            g->device, shoal__vmm_err(v, cr));
    }
    p->have = calloc(v->n_chunks, sizeof(*p->have));
    if (p->have == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory");
    cr = v->reserve(&p->base, v->heap_len + v->ctrl_len, align, 0, 0);
    if (cr != CUDA_SUCCESS)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                            "cannot reserve %zu bytes of addresses for PE %d's growing GPU heap (cuMemAddressReserve: "
                            "%s); lower %s",
                            v->heap_len + v->ctrl_len, sh->node_pes[r], shoal__vmm_err(v, cr),
                            shoal__heap_size_knob(sh));
    cr = shoal__vmm_map_at(v, g->device, p->base + v->heap_len, v->ctrl_len, p->ctrl);
    if (cr != CUDA_SUCCESS) {
        v->addr_free(p->base, v->heap_len + v->ctrl_len);
        p->base = 0;
        return shoal__error(sh, SHOAL_ERR_CUDA, call, "cannot map PE %d's GPU heap here (GPU %d): %s", sh->node_pes[r],
                            g->device, shoal__vmm_err(v, cr));
    }
    p->open = true;
    *base_p = (char *)(uintptr_t)p->base;
    *ctrl_p = (char *)(uintptr_t)(p->base + v->heap_len);
    return SHOAL_SUCCESS;
}

/* ------------------------------------------------------------ growth */

/* runtime/heap/shoal_heap.h's shoal__heap_gpu_*: a fixed heap (no vmm) needs
 * and gives back nothing. */
bool shoal__heap_gpu_grow_needed(shoal_t sh, size_t lo, size_t hi)
{
    shoal__vmm_t *v = sh->gpu != NULL ? sh->gpu->vmm : NULL;
    if (v == NULL) return false;
    for (size_t c = lo / v->chunk; c < v->n_chunks && c * v->chunk < hi; c++)
        if (v->head[c] == 0) return true;
    return false;
}

/* The next extent a growth of [lo, hi) maps, from chunk *c on: its length
 * (0: none left), *c moved past it. A chunk [lo, hi) covers in part is an
 * extent of its own; a run of missing chunks it covers whole, one. */
static size_t shoal__vmm_next_extent(const shoal__vmm_t *v, size_t *c, size_t lo, size_t hi)
{
    size_t end = (hi + v->chunk - 1) / v->chunk, whole_lo = (lo + v->chunk - 1) / v->chunk, whole_hi = hi / v->chunk;
    size_t first, n = 1;

    if (end > v->n_chunks) end = v->n_chunks;
    while (*c < end && v->head[*c] != 0) ++*c;
    if (*c >= end) return 0;
    first = *c;
    if (first >= whole_lo && first < whole_hi)
        while (first + n < whole_hi && v->head[first + n] == 0) n++;
    *c = first + n;
    return n;
}

int shoal__heap_gpu_grow(shoal_t sh, const char *call, size_t lo, size_t hi, shoal__grow_report_t *rep)
{
    struct shoal_gpu *g = sh->gpu;
    shoal__vmm_t *v = g->vmm;
    size_t want = 0, free_b = 0, total_b = 0, c = lo / v->chunk, n;
    CUresult cr = CUDA_SUCCESS;
    bool fault = false;

    v->n_fresh = 0;
    if (v->broken)
        return shoal__error(sh, SHOAL_ERR_HEAP_EXHAUSTED, call,
                            "an earlier exchange of GPU heap handles with the node failed: the heap cannot grow "
                            "(free blocks, or run with SHOAL_HEAP_RESERVE=y)");
    for (size_t k = lo / v->chunk; k < v->n_chunks && k * v->chunk < hi; k++)
        if (v->head[k] == 0) want += v->chunk;
    if (sh->fault_grows > 0) { /* SHOAL_FAULT=grow: as if the GPU were full */
        sh->fault_grows--;
        cr = CUDA_ERROR_OUT_OF_MEMORY;
        fault = true;
    }
    while (cr == CUDA_SUCCESS && (n = shoal__vmm_next_extent(v, &c, lo, hi)) > 0) {
        CUmemGenericAllocationHandle h = 0;
        size_t first = c - n;
        cr = v->create(&h, n * v->chunk, &v->prop, 0);
        if (cr == CUDA_SUCCESS) {
            cr = shoal__vmm_map_at(v, g->device, v->base + first * v->chunk, n * v->chunk, h);
            if (cr != CUDA_SUCCESS) v->release(h);
        }
        if (cr != CUDA_SUCCESS) break;
        v->have[first] = h;
        v->len[first] = n;
        for (size_t k = first; k < first + n; k++) v->head[k] = first + 1;
        v->n_mapped += n;
        v->fresh[v->n_fresh++] = first;
    }
    if (cr == CUDA_SUCCESS) return SHOAL_SUCCESS;
    /* What this growth mapped stays until the block goes back (the trim). */
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
    snprintf(rep->where, sizeof(rep->where), "GPU %s (device %d)", g->bus_id, g->device);
    rep->asked = want;
    rep->avail = free_b;
    v->n_fresh = 0;
    return shoal__error(sh, SHOAL_ERR_HEAP_EXHAUSTED, call,
                        "cannot map %zu more bytes of GPU heap on GPU %s (device %d), %zu of %zu bytes free: %s%s",
                        want, g->bus_id, g->device, free_b, total_b, shoal__vmm_err(v, cr),
                        fault ? " (SHOAL_FAULT)" : "");
}

int shoal__heap_gpu_grow_share(shoal_t sh, const char *call)
{
    shoal__vmm_t *v = sh->gpu->vmm;
    if (v == NULL) return SHOAL_SUCCESS;
    int rc = sh->node_size > 1 ? shoal__vmm_share(sh, call, v->fresh, v->n_fresh) : SHOAL_SUCCESS;
    v->n_fresh = 0;
    return rc;
}

/* Give back the extent at chunk c: every peer's mapping of it here, then
 * mine. */
static void shoal__vmm_drop(shoal_t sh, shoal__vmm_t *v, size_t c)
{
    size_t n = v->len[c];
    for (int r = 0; r < sh->node_size; r++) {
        shoal__vmm_peer_t *p = &v->peer[r];
        if (p->have == NULL || p->have[c] == 0) continue;
        v->unmap(p->base + c * v->chunk, n * v->chunk);
        v->release(p->have[c]);
        p->have[c] = 0;
    }
    v->unmap(v->base + c * v->chunk, n * v->chunk);
    v->release(v->have[c]);
    v->have[c] = 0;
    v->len[c] = 0;
    for (size_t k = c; k < c + n; k++) v->head[k] = 0;
    v->n_mapped -= n;
}

/* Extents wholly inside the free span [lo, hi) go back: mine and my
 * mapping of every peer's (all PEs give back the same ones, in the same
 * free). */
void shoal__heap_gpu_trim(shoal_t sh, size_t lo, size_t hi)
{
    struct shoal_gpu *g = sh->gpu;
    shoal__vmm_t *v = g != NULL ? g->vmm : NULL;
    size_t first, end;
    bool synced = false;

    if (v == NULL) return;
    first = (lo + v->chunk - 1) / v->chunk;
    if (hi >= sh->alloc.size) hi = v->heap_len; /* the tail past the limit holds no block */
    end = hi / v->chunk;
    if (end > v->n_chunks) end = v->n_chunks;
    for (size_t c = first; c < end;) {
        size_t n = v->len[c];
        if (v->head[c] != c + 1) { /* not mapped, or inside an extent that starts before the span */
            c++;
            continue;
        }
        if (c + n > end) break; /* reaches past the span: it stays, and nothing after it is inside */
        /* No copy may still use it: this PE's GPU work ends first (the
         * application's streams too; the driver does not wait in
         * cuMemUnmap). */
        if (!synced) {
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess) { /* the memory goes back all the same: nothing may use it any more */
                SHOAL__LOG(SHOAL__LOG_WARN, SHOAL__SUB_CUDA,
                           "giving back GPU heap memory: cudaDeviceSynchronize failed (%s): %s", cudaGetErrorName(e),
                           cudaGetErrorString(e));
                cudaGetLastError();
            }
        }
        synced = true;
        shoal__vmm_drop(sh, v, c);
        c += n;
    }
    cudaGetLastError();
}

size_t shoal__heap_gpu_backed(shoal_t sh)
{
    shoal__vmm_t *v = sh->gpu != NULL ? sh->gpu->vmm : NULL;
    return v != NULL ? v->n_mapped * v->chunk : sh->heap_size;
}
size_t shoal__heap_gpu_chunk(shoal_t sh) { return sh->gpu != NULL && sh->gpu->vmm != NULL ? sh->gpu->vmm->chunk : 0; }
const char *shoal__vmm_sock_name(shoal_t sh) { return sh->gpu->vmm->sock_name; }

void shoal__vmm_destroy(shoal_t sh)
{
    struct shoal_gpu *g = sh->gpu;
    shoal__vmm_t *v = g->vmm;

    if (v == NULL) return;
    for (int r = 0; v->peer != NULL && r < sh->node_size; r++) {
        shoal__vmm_peer_t *p = &v->peer[r];
        for (size_t c = 0; p->have != NULL && c < v->n_chunks; c++)
            if (p->have[c] != 0) {
                v->unmap(p->base + c * v->chunk, v->len[c] * v->chunk);
                v->release(p->have[c]);
            }
        if (p->open) v->unmap(p->base + v->heap_len, v->ctrl_len);
        if (p->ctrl != 0) v->release(p->ctrl);
        if (p->ctrl_fd >= 0) close(p->ctrl_fd);
        if (p->base != 0) v->addr_free(p->base, v->heap_len + v->ctrl_len);
        free(p->have);
    }
    for (size_t c = 0; v->have != NULL && c < v->n_chunks; c++)
        if (v->have[c] != 0) {
            v->unmap(v->base + c * v->chunk, v->len[c] * v->chunk);
            v->release(v->have[c]);
        }
    if (v->ctrl != 0) {
        v->unmap(v->base + v->heap_len, v->ctrl_len);
        v->release(v->ctrl);
    }
    if (v->base != 0) v->addr_free(v->base, v->heap_len + v->ctrl_len);
    for (int r = 0; v->sock != NULL && r < sh->node_size; r++)
        if (v->sock[r] >= 0) close(v->sock[r]);
    shoal__vmm_free(v);
    g->vmm = NULL;
    cudaGetLastError();
}

#endif /* SHOAL_HAVE_CUDA */
