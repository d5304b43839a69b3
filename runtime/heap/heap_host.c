/* Host heap: one POSIX shared-memory object per node, which every PE of the
 * node maps whole, so node peers load and store each other's segments
 * directly (the shm transport). PEs on other nodes reach it through the
 * mpi_rma transport's window. The object is sized sparsely and nothing
 * touches its pages at init, nor probes them: MPICH 4.0's
 * MPI_Win_allocate_shared looks for addresses free in every process with a
 * failing msync per page of the node's segment (a million calls for 2 GiB),
 * which made shoal_init take seconds per GiB.
 *
 * NUMA: a page lands on the node of whoever writes it first, normally the
 * PE that owns the segment (its shoal_calloc zeroing, or its own stores);
 * a peer's put into a page its owner never touched places that page near
 * the peer instead. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "base/shoal_instance.h"
#include "base/shoal_env.h"
#include "heap/shoal_heap.h"

#define SHOAL__HEAP_ALIGN SHOAL__HEAP_BASE_ALIGN

/* The object's name: "/" SHOAL__SHM_PREFIX, the leader's pid, a counter
 * of the process and the clock's nanoseconds (retried when taken). */
#define SHOAL__SHM_PREFIX "shoal-"
#define SHOAL__SHM_NAME_MAX 64

static char *shoal__align_up(void *p)
{
    return (char *)(((uintptr_t)p + SHOAL__HEAP_ALIGN - 1) & ~(uintptr_t)(SHOAL__HEAP_ALIGN - 1));
}

size_t shoal__page_size(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? (size_t)pg : 4096;
}

/* The heap in whole pages: what the second mapping covers. */
static size_t shoal__heap_span(size_t heap_size)
{
    size_t pg = shoal__page_size();
    return (heap_size + pg - 1) / pg * pg;
}

/* Bytes each PE's segment takes in the node's object: the heap rounded up
 * to the base alignment, so that every segment at a fixed offset starts
 * aligned wherever the mapping starts aligned. */
static size_t shoal__heap_segment(size_t heap_size)
{
    return (shoal__heap_span(heap_size) + SHOAL__HEAP_ALIGN - 1) & ~(SHOAL__HEAP_ALIGN - 1);
}

/* The PEs of this host whose host heaps live in /dev/shm: every PE of a
 * shared node, whatever its (simulated) node, since they all share one
 * /dev/shm. */
static int shoal__heap_host_pes(shoal_t sh)
{
    shoal__robust_t *sd = shoal__robust(sh);
    int *node_size = calloc((size_t)sh->n_nodes, sizeof(int)), host_pes = 0;

    if (node_size == NULL || sd == NULL || sd->pe_pid == NULL) {
        host_pes = sh->node_size;
    } else {
        for (int p = 0; p < sh->n_pes; p++) node_size[sh->pe_node[p]]++;
        for (int p = 0; p < sh->n_pes; p++) host_pes += sd->pe_pid[p] != 0 && node_size[sh->pe_node[p]] >= 2;
        if (host_pes < sh->node_size) host_pes = sh->node_size;
    }
    free(node_size);
    return host_pes;
}

/* How far past a block's end a check reaches: a series of small blocks
 * meets the other PEs for the check once per step, not once per block. */
#define SHOAL__HEAP_CHECK_STEP ((size_t)64 << 20)

/* The same answer on every PE: heap_checked moves alike everywhere (a
 * failed check is undone on all). */
bool shoal__heap_host_grow_needed(shoal_t sh, size_t hi) { return shoal__heap_span(hi) > sh->heap_checked; }

/* The heaps are sparse: nothing is taken when the heap's limit is set, and
 * a page is taken when first touched. A page touched beyond what /dev/shm
 * holds would raise SIGBUS in whoever touched it, so a block that reaches
 * past what was checked before is checked first: every host PE's heap up
 * to its end must fit in what /dev/shm has free. (One PE alone on its
 * node maps anonymous memory of its own, and is not checked.) */
int shoal__heap_host_grow(shoal_t sh, const char *call, size_t hi, shoal__grow_report_t *rep)
{
    const char *dir = "/dev/shm";
    struct statvfs st;
    unsigned long long more, avail;
    size_t span = shoal__heap_span(hi), limit = shoal__heap_span(sh->heap_size);
    int host_pes;

    size_t exact = span;
    bool fault = sh->fault_grows > 0; /* SHOAL_FAULT=grow: as if /dev/shm were full */

    if (fault) sh->fault_grows--;
    /* A step ahead, within the limit (the exact end where that does not fit). */
    if (span < limit) span = limit - span > SHOAL__HEAP_CHECK_STEP ? span + SHOAL__HEAP_CHECK_STEP : limit;
    if ((sh->node_size < 2 || statvfs(dir, &st) != 0) && !fault) { /* anonymous memory of its own, or no /dev/shm */
        sh->heap_checked = span;
        return SHOAL_SUCCESS;
    }
    host_pes = shoal__heap_host_pes(sh);
    avail = fault ? 0 : (unsigned long long)st.f_bavail * st.f_frsize;
    more = (unsigned long long)host_pes * (span - sh->heap_checked);
    if (more > avail && exact < span) {
        span = exact;
        more = (unsigned long long)host_pes * (span - sh->heap_checked);
    }
    snprintf(rep->where, sizeof(rep->where), "%s", dir);
    rep->asked = more;
    rep->avail = avail;
    if (more > avail) {
        return shoal__error(sh, SHOAL_ERR_HEAP_EXHAUSTED, call,
                            "the host heaps of the %d PEs on this host would need %llu MiB more of %s, which has "
                            "%llu MiB free%s: free blocks, or enlarge %s",
                            host_pes, more >> 20, dir, avail >> 20, fault ? " (SHOAL_FAULT: taken as none)" : "", dir);
    }
    sh->heap_checked = span;
    return SHOAL_SUCCESS;
}

/* Pages no block uses any more go back to the system: the whole pages of
 * the free span [lo, hi), removed from the node's object (or this PE's
 * anonymous memory); they read as zero when touched again. */
void shoal__heap_host_trim(shoal_t sh, size_t lo, size_t hi)
{
    static bool said;
    size_t pg = shoal__page_size(), plo = (lo + pg - 1) / pg * pg, phi = hi / pg * pg;

    if (phi <= plo || sh->heap_base == NULL) return;
    /* Where mpi_rma's window covers the heap, MPI may have registered (pinned)
     * its pages with the network: a removed page would leave the window on
     * the old one. The pages then stay. */
    if (sh->tp_state[SHOAL_TRANSPORT_MPI_RMA] != NULL) return;
    if (madvise(sh->heap_base + plo, phi - plo, MADV_REMOVE) != 0 && !said) {
        said = true;
        SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_HEAP, "freed host heap pages stay taken: madvise(MADV_REMOVE): %s",
                   strerror(errno));
    }
}

/* Bytes of whole pages under blocks in use: the most the heap can take
 * (where freed pages stay, those under any block ever allocated). */
size_t shoal__heap_host_backed(shoal_t sh)
{
    size_t pg = shoal__page_size(), total = 0, last = 0;
    if (sh->tp_state[SHOAL_TRANSPORT_MPI_RMA] != NULL) return shoal__heap_span(sh->heap_high);
    for (size_t i = 0; i < sh->alloc.n; i++) {
        const shoal__block_t *b = &sh->alloc.blocks[i];
        size_t lo, hi;
        if (!b->used) continue;
        lo = b->off / pg * pg;
        hi = (b->off + b->size + pg - 1) / pg * pg;
        if (lo < last) lo = last; /* a page shared with the block before */
        if (hi > lo) total += hi - lo;
        if (hi > last) last = hi;
    }
    return total;
}

/* A PE alone on its node: its heap is a shared anonymous mapping (shared,
 * so that it can be mapped a second time), of just the aligned heap (the
 * rest is given back). */
static int shoal__heap_host_map_own(shoal_t sh, const char *call)
{
    size_t span = shoal__heap_span(sh->heap_size), len = span + SHOAL__HEAP_ALIGN;
    char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0), *end;

    if (m == MAP_FAILED)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "cannot map a host heap of %zu bytes (mmap: %s); lower %s",
                            sh->heap_size, strerror(errno), shoal__heap_size_knob(sh));
    sh->heap_base = shoal__align_up(m);
    end = sh->heap_base + span;
    if (sh->heap_base > m) munmap(m, (size_t)(sh->heap_base - m));
    if (m + len > end) munmap(end, (size_t)(m + len - end));
    return SHOAL_SUCCESS;
}

size_t shoal__heap_host_span(shoal_t sh) { return shoal__heap_span(sh->heap_size); }

/* The node leader: a new object of len bytes, sparse (ftruncate allocates
 * no page). Its descriptor in *fd_p, -1 on failure (recorded on sh). */
static int shoal__heap_shm_create(shoal_t sh, const char *call, const char *name, size_t len, int *fd_p)
{
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);

    *fd_p = -1;
    if (fd < 0 && errno == EEXIST) return 1; /* a name taken (another pid namespace): the caller tries another */
    if (fd < 0)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                            "cannot create the node's shared memory for %d host heaps of %zu bytes (shm_open %s: %s); "
                            "lower %s or check /dev/shm",
                            sh->node_size, sh->heap_size, name, strerror(errno), shoal__heap_size_knob(sh));
    if (ftruncate(fd, (off_t)len) != 0) {
        int err = errno;
        close(fd);
        shm_unlink(name);
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                            "cannot size the node's shared memory to %zu bytes for %d host heaps of %zu bytes "
                            "(ftruncate: %s); lower %s or enlarge /dev/shm",
                            len, sh->node_size, sh->heap_size, strerror(err), shoal__heap_size_knob(sh));
    }
    *fd_p = fd;
    return SHOAL_SUCCESS;
}

/* Every PE of the node: the whole object, mapped at an address aligned to
 * SHOAL__HEAP_ALIGN (a reservation, then the object over its aligned part),
 * so that every segment starts aligned. The mapping in *map_p. */
static int shoal__heap_shm_map(shoal_t sh, const char *call, const char *name, int fd, size_t len, char **map_p)
{
    int own_fd = fd < 0, err;
    char *res, *at, *m;

    *map_p = NULL;
    if (own_fd) fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                            "cannot open the node's shared memory for %d host heaps of %zu bytes (shm_open %s: %s); "
                            "lower %s or check /dev/shm",
                            sh->node_size, sh->heap_size, name, strerror(errno), shoal__heap_size_knob(sh));
    res = mmap(NULL, len + SHOAL__HEAP_ALIGN, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    m = MAP_FAILED;
    if (res != MAP_FAILED) {
        at = shoal__align_up(res);
        m = mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
        err = errno;
        if (m == MAP_FAILED) {
            munmap(res, len + SHOAL__HEAP_ALIGN);
        } else {
            if (at > res) munmap(res, (size_t)(at - res));
            if (res + len + SHOAL__HEAP_ALIGN > at + len) munmap(at + len, (size_t)(res + SHOAL__HEAP_ALIGN - at));
        }
    } else {
        err = errno;
    }
    if (own_fd) close(fd); /* the mapping keeps the object */
    if (m == MAP_FAILED)
        return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                            "cannot map the node's %d host heaps of %zu bytes, %zu bytes in all (mmap: %s); lower %s",
                            sh->node_size, sh->heap_size, len, strerror(err), shoal__heap_size_knob(sh));
    *map_p = m;
    return SHOAL_SUCCESS;
}

int shoal__heap_host_create(shoal_t sh)
{
    static const char *call = "shoal_init";
    static atomic_uint counter;
    size_t seg = shoal__heap_segment(sh->heap_size), len;
    shoal__heap_desc_t *mine;
    char name[SHOAL__SHM_NAME_MAX] = "", *map = NULL;
    int rc = SHOAL_SUCCESS, prc, fd = -1, created = 0;

    if (sh->node_size < 2) {
        rc = shoal__heap_host_map_own(sh, call);
        sh->peer_base[sh->my_pe] = sh->heap_base;
        return rc;
    }
    mine = shoal__heap_desc(sh, sh->node_rank);
    memset(mine, 0, sizeof(*mine)); /* kind 0 until the heap exists: a failure shows */
    len = seg * (size_t)sh->node_size;
    if (len / (size_t)sh->node_size != seg)
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call,
                          "%d host heaps of %zu bytes overflow the address space; lower %s", sh->node_size,
                          sh->heap_size, shoal__heap_size_knob(sh));
    /* The leader creates the object and names it to the others; an empty
     * name says it could not. */
    if (rc == SHOAL_SUCCESS && sh->node_rank == 0) {
        /* pid, a counter of the process and the clock's nanoseconds: unique
         * on the host unless pid namespaces share /dev/shm, hence the retries. */
        for (int attempt = 0; attempt < 16; attempt++) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            snprintf(name, sizeof(name), "/" SHOAL__SHM_PREFIX "%ld-%u-%lx", (long)getpid(),
                     atomic_fetch_add(&counter, 1), (unsigned long)ts.tv_nsec);
            rc = shoal__heap_shm_create(sh, call, name, len, &fd);
            if (rc != 1) break;
        }
        if (rc == 1)
            rc = shoal__error(sh, SHOAL_ERR_SYSTEM, call,
                              "cannot create the node's shared memory: 16 names in a row were taken in /dev/shm");
        created = rc == SHOAL_SUCCESS;
        if (!created) name[0] = '\0';
    }
    prc = MPI_Bcast(name, (int)sizeof(name), MPI_CHAR, 0, sh->node_comm);
    if (prc != MPI_SUCCESS && rc == SHOAL_SUCCESS) rc = shoal__mpi_error(sh, call, "MPI_Bcast", prc);
    if (rc == SHOAL_SUCCESS && name[0] == '\0')
        rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "PE %d could not create the node's shared memory",
                          sh->node_pes[0]);
    if (rc == SHOAL_SUCCESS) rc = shoal__heap_shm_map(sh, call, name, fd, len, &map);
    if (rc == SHOAL_SUCCESS) {
        /* Segments at fixed offsets of the one object: every PE computes
         * every base itself, so the record carries no padding. */
        sh->heap_base = map + (size_t)sh->node_rank * seg;
        mine->heap_size = sh->heap_size;
        mine->kind = SHOAL_HEAP_HOST;
    }

    /* Every PE of the node publishes its record, even one that failed (its
     * record says so): none waits for another in vain. After it every PE
     * has mapped the object or given up, so the leader removes its name:
     * nothing is left in /dev/shm, whatever becomes of the processes. */
    prc = shoal__heap_desc_publish(sh, call);
    if (rc == SHOAL_SUCCESS) rc = prc;
    if (created) shm_unlink(name);
    for (int r = 0; rc == SHOAL_SUCCESS && r < sh->node_size; r++) {
        if (shoal__heap_desc(sh, r)->kind != SHOAL_HEAP_HOST) {
            rc = shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "PE %d could not create its host heap", sh->node_pes[r]);
            break;
        }
        sh->peer_base[sh->node_pes[r]] = map + (size_t)r * seg;
    }
    if (rc == SHOAL_SUCCESS) {
        sh->shm_map = map;
        sh->shm_map_len = len;
    } else {
        if (map != NULL) munmap(map, len);
        for (int r = 0; r < sh->node_size; r++) sh->peer_base[sh->node_pes[r]] = NULL;
        sh->heap_base = NULL;
    }
    if (fd >= 0) close(fd);
    return rc;
}

void shoal__heap_host_destroy(shoal_t sh)
{
    /* A broken instance leaves its heap mapped: MPI windows over it (or
     * over its second mapping) stay behind with MPI, which peers may still
     * reach. */
    if (sh->broken) return;
    if (sh->heap_kind != SHOAL_HEAP_HOST) return;
    if (sh->shm_map != NULL)
        munmap(sh->shm_map, sh->shm_map_len);
    else if (sh->heap_base != NULL)
        munmap(sh->heap_base, shoal__heap_span(sh->heap_size)); /* a PE alone on its node */
    sh->shm_map = NULL;
    sh->heap_base = NULL;
}
