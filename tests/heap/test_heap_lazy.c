/*
 * The host heap is mapped, not touched, at init: with a 1 GiB heap per PE,
 * the node's shared memory has allocated almost none of its pages right
 * after shoal_init (what tmpfs says the object holds), and almost none is
 * resident (mincore over my heap and the node peers' I map). The node's memory is a shared
 * object of /dev/shm ("shoal-<pid>-...") that is already unlinked when init
 * returns: no name of a PE of this run is left there, and the heap's
 * mapping reads "(deleted)". Where mpi_rma reaches other nodes, the heap is
 * mapped a second time (its window's). Then data crosses PEs in a block at
 * the heap's end, and those pages (only) become resident. Before all of
 * it, a node leader that cannot map the heaps fails init everywhere,
 * saying why, and leaves nothing in /dev/shm.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

#define HEAP ((size_t)1 << 30)
#define TAIL ((size_t)256 << 10) /* the block at the heap's end */
#define TAG 7

static shoal_t sh;
static int me, npes;
static size_t page;

/* Resident pages among those [p, p + n) overlaps. */
static size_t resident_pages(const void *p, size_t n)
{
    uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(page - 1), hi = ((uintptr_t)p + n + page - 1) & ~(uintptr_t)(page - 1);
    size_t pages = (size_t)(hi - lo) / page, count = 0;
    unsigned char *vec = malloc(pages);

    CHECK(vec != NULL);
    CHECK_MSG(mincore((void *)lo, (size_t)(hi - lo), vec) == 0, "mincore(%p, %zu) failed", (void *)lo,
              (size_t)(hi - lo));
    for (size_t i = 0; i < pages; i++) count += vec[i] & 1;
    free(vec);
    return count;
}

/* How many pages [p, p + n) overlaps. */
static size_t pages_of(const void *p, size_t n)
{
    uintptr_t lo = (uintptr_t)p & ~(uintptr_t)(page - 1), hi = ((uintptr_t)p + n + page - 1) & ~(uintptr_t)(page - 1);
    return (size_t)(hi - lo) / page;
}

/* Entries of /dev/shm named after one of the PEs' pids ("shoal-<pid>-"). */
static int leftovers(const long *pids, char *first, size_t len)
{
    DIR *d = opendir("/dev/shm");
    struct dirent *e;
    int n = 0;

    if (d == NULL) return 0;
    while ((e = readdir(d)) != NULL)
        for (int p = 0; p < npes; p++) {
            char prefix[64];
            snprintf(prefix, sizeof(prefix), "shoal-%ld-", pids[p]);
            if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
            if (n++ == 0) snprintf(first, len, "%s", e->d_name);
        }
    closedir(d);
    return n;
}

/* The /proc/self/maps lines that map the object holding addr: how many,
 * and the object's path in path. 0 when addr is in no file mapping. */
static int object_mappings(const void *addr, char *path, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int n = 0;

    CHECK(f != NULL);
    path[0] = '\0';
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi;
        char *name = strchr(line, '/');
        if (sscanf(line, "%lx-%lx", &lo, &hi) != 2 || name == NULL) continue;
        name[strcspn(name, "\n")] = '\0';
        if ((uintptr_t)addr >= lo && (uintptr_t)addr < hi) snprintf(path, len, "%s", name);
    }
    rewind(f);
    while (path[0] != '\0' && fgets(line, sizeof(line), f) != NULL) {
        char *name = strchr(line, '/');
        if (name == NULL) continue;
        name[strcspn(name, "\n")] = '\0';
        n += strcmp(name, path) == 0;
    }
    fclose(f);
    return n;
}

/* Bytes the shared object holding addr has allocated (tmpfs counts pages
 * allocated but never written too, which mincore does not show: MPICH's
 * shared windows were such); -1 where /proc does not say. */
static long long object_bytes(const void *addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512], link[128] = "";
    struct stat st;

    CHECK(f != NULL);
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && (uintptr_t)addr >= lo && (uintptr_t)addr < hi)
            snprintf(link, sizeof(link), "/proc/self/map_files/%lx-%lx", lo, hi);
    }
    fclose(f);
    if (link[0] == '\0' || stat(link, &st) != 0) return -1;
    return (long long)st.st_blocks * 512;
}

/* This process's address space, bytes (VmSize). */
static unsigned long long vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    unsigned long long kb = 0;

    CHECK(f != NULL);
    while (fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1) break;
    fclose(f);
    return kb << 10;
}

/* PE 0 (a node leader: it creates the node's object) cannot map the heaps:
 * its address space is limited to 256 MiB more than it uses. init fails on
 * every PE, PE 0's message names mmap and the knob, nobody hangs, and the
 * object PE 0 created is gone from /dev/shm. */
static void test_map_fails(const long *pids)
{
    shoal_config_t cfg;
    shoal_t bad = (shoal_t)&cfg;
    struct rlimit old, low;
    char name[256];

    test_config(&cfg, HEAP);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    CHECK(getrlimit(RLIMIT_AS, &old) == 0);
    low = old;
    if (me == 0) {
        low.rlim_cur = (rlim_t)(vm_size() + (256u << 20));
        CHECK(setrlimit(RLIMIT_AS, &low) == 0);
    }
    CHECK_STATUS(shoal_init(MPI_COMM_WORLD, &cfg, &bad), SHOAL_ERR_NO_MEMORY, NULL);
    if (me == 0) CHECK(setrlimit(RLIMIT_AS, &old) == 0);
    CHECK_EQ_PTR(bad, NULL);
    if (me == 0) {
        CHECK_CONTAINS(shoal_last_error(NULL), "mmap: ");
        CHECK_CONTAINS(shoal_last_error(NULL), "lower the heap_size field of shoal_config_t");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MSG(leftovers(pids, name, sizeof(name)) == 0, "/dev/shm/%s is left behind after a failed shoal_init", name);
}

/* The PEs of my node as the runtime numbers them (SHOAL_NODE_SIZE). */
static int my_node_size(void)
{
    const char *ns = getenv("SHOAL_NODE_SIZE");
    int *node_of = malloc(sizeof(int) * (size_t)npes), n = 0;

    CHECK(node_of != NULL);
    test_expected_nodes(MPI_COMM_WORLD, ns ? atoi(ns) : 0, node_of);
    for (int p = 0; p < npes; p++) n += node_of[p] == node_of[me];
    free(node_of);
    return n;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    long *pids, pid = (long)getpid();
    char name[256], path[256];
    unsigned long long avail = 0;
    size_t used, freeb, res, res_init, res_peer = 0, heap_pages;
    unsigned char *big, *tail, *src, *got;
    long long held;
    int node_size, right, left, rma = 0, maps;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    page = (size_t)sysconf(_SC_PAGESIZE);
    heap_pages = HEAP / page;
    pids = malloc(sizeof(long) * (size_t)npes);
    CHECK(pids != NULL);
    MPI_Allgather(&pid, 1, MPI_LONG, pids, 1, MPI_LONG, MPI_COMM_WORLD);
    node_size = my_node_size();

    /* Every PE's heap must fit /dev/shm (init checks): else skip. */
    if (me == 0) {
        struct statvfs st;
        if (statvfs("/dev/shm", &st) == 0) avail = (unsigned long long)st.f_bavail * st.f_frsize;
    }
    MPI_Bcast(&avail, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (avail < (unsigned long long)npes * HEAP + (64u << 20)) {
        if (me == 0) check_note("skipped: /dev/shm has %llu MiB free, %d heaps of 1 GiB need more", avail >> 20, npes);
        MPI_Finalize();
        return TEST_SKIP;
    }

    test_map_fails(pids);
    test_config(&cfg, HEAP);
    cfg.heap_kind = SHOAL_HEAP_HOST;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    /* No name of ours is left in /dev/shm, once every PE's init returned. */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MSG(leftovers(pids, name, sizeof(name)) == 0, "/dev/shm/%s is left behind after shoal_init", name);

    /* Nearly the whole heap in one block, then one at its end. Allocating
     * touches nothing. */
    CHECK_OK(shoal_heap_usage(sh, &used, &freeb), sh);
    CHECK_MSG(freeb > TAIL + (4u << 20), "a fresh 1 GiB heap has %zu bytes free", freeb);
    big = shoal_malloc(sh, freeb - TAIL - (1u << 20));
    tail = shoal_malloc(sh, TAIL);
    CHECK_NONNULL(big, sh);
    CHECK_NONNULL(tail, sh);
    CHECK_MSG(tail > big, "the last block (%p) is not after the big one (%p)", (void *)tail, (void *)big);

    /* Right after init the object holding my heap (and my node peers')
     * has allocated almost none of its pages either. */
    held = object_bytes(tail);
    if (held >= 0)
        CHECK_MSG(held < (long long)(HEAP / 64) * node_size,
                  "the heap's shared memory holds %lld bytes right after shoal_init (%d heaps of 1 GiB)", held,
                  node_size);
    else if (me == 0)
        check_note("/proc/self/map_files does not say what the heap's object holds: not checked");

    /* Right after init: almost nothing resident, here or on node peers
     * (a 1/64 of the heap would be 16 MiB: far more than init may touch). */
    res_init = resident_pages(big, (size_t)(tail + TAIL - big));
    CHECK_MSG(res_init * 64 < heap_pages, "%zu of the heap's %zu pages are resident right after shoal_init", res_init,
              heap_pages);
    for (int p = 0; p < npes; p++) {
        unsigned char *peer = shoal_ptr(sh, big, p);
        size_t r;
        if (p == me || peer == NULL) continue;
        r = resident_pages(peer, (size_t)(tail + TAIL - big));
        if (r > res_peer) res_peer = r;
        CHECK_MSG(r * 64 < heap_pages, "%zu of PE %d's heap's %zu pages are resident after shoal_init", r, p,
                  heap_pages);
    }

    /* The heap is the shared object, its name gone; with mpi_rma, its
     * window is over a second mapping of it. */
    for (int p = 0; p < npes; p++) {
        const char *tp = NULL;
        CHECK_OK(shoal_pe_transport(sh, p, &tp), sh);
        rma |= strcmp(tp, "mpi_rma") == 0;
    }
    maps = object_mappings(tail, path, sizeof(path));
    if (node_size >= 2) {
        CHECK_MSG(strncmp(path, "/dev/shm/shoal-", 15) == 0 && strstr(path, "(deleted)") != NULL,
                  "the heap is mapped from '%s', not an unlinked /dev/shm/shoal-* object", path);
        CHECK_MSG(maps >= 1 + rma, "the heap's object '%s' is mapped %d times (mpi_rma: %d)", path, maps, rma);
    }

    /* Data crosses PEs at the heap's end: my pattern into the right
     * neighbour's last block; after a barrier, my own holds the left
     * one's, and a get of the right one's returns what I put there. */
    src = malloc(TAIL);
    got = malloc(TAIL);
    CHECK(src && got);
    test_pattern(src, 0, TAIL, TAG, (uint64_t)me, (uint64_t)right);
    CHECK_OK(shoal_put(sh, tail, src, TAIL, right), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_pattern(got, 0, TAIL, TAG, (uint64_t)left, (uint64_t)me);
    CHECK_MEM_EQ(tail, got, TAIL);
    CHECK_OK(shoal_get(sh, got, tail, TAIL, right), sh);
    CHECK_MEM_EQ(got, src, TAIL);
    /* The block that data reached is resident now (mincore sees pages),
     * the rest of the heap still is not. */
    CHECK_EQ_SIZE(resident_pages(tail, TAIL), pages_of(tail, TAIL));
    res = resident_pages(big, (size_t)(tail - big));
    CHECK_MSG(res * 64 < heap_pages, "%zu of the heap's pages are resident after the puts", res);
    CHECK_OK(shoal_barrier_all(sh), sh);

    CHECK_OK(shoal_finalize(sh), NULL);
    CHECK_MSG(leftovers(pids, name, sizeof(name)) == 0, "/dev/shm/%s is left behind after shoal_finalize", name);
    if (me == 0)
        check_note("1 GiB heaps: %zu pages resident here and at most %zu on a peer after init; nodes of %d; %s",
                   res_init, res_peer, node_size, rma ? "mpi_rma over a second mapping" : "no mpi_rma");
    free(src);
    free(got);
    free(pids);
    MPI_Finalize();
    return 0;
}
