/* Registered host ranges shared with node peers (shoal_register_shared,
 * runtime/heap/shoal_register.h): the memory side. A PE's part of a range
 * is the whole pages of it that lie in private writable memory; they move,
 * in place, into a POSIX shared-memory object of the PE's own (named as
 * the host heap's objects are, and unlinked once the node's PEs mapped
 * it), so that node peers load and store them as they do the host heap.
 * The pages keep their addresses and contents, so the program (and the
 * libraries whose copy-relocated variables live in its bss: stdout,
 * environ) notices nothing. At the end they become private memory again.
 *
 * Why whole pages of private writable memory only: a mapping replaces
 * whole pages, so bytes sharing a page with the range but outside it would
 * move too, and a page of a shared mapping or a read-only one (a program's
 * RELRO, which the dynamic linker protects after relocating) must keep
 * what it is. Bytes left out stay on the range's MPI window.
 *
 * The collective side (who maps what, and what the PEs agree on) is
 * runtime/core/register.c's; the data path's use of the mappings is
 * runtime/ops/'s, through shoal__reg_locate. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mremap's MREMAP_FIXED, SEEK_DATA */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "heap/shoal_heap.h"
#include "heap/shoal_register.h"

/* The objects' names: this prefix, the pid, a counter of the process and
 * the clock's nanoseconds (retried when taken), as the host heap's. */
#define SHOAL__SHARE_PREFIX "/shoal-reg-"

/* The pages to share, and which of them a file backs. */
#define SHOAL__SHARE_FILES 8
typedef struct shoal__share_span {
    uintptr_t lo, hi;                      /* the pages: [lo, hi) */
    uintptr_t file[SHOAL__SHARE_FILES][2]; /* parts mapped privately from a file (a program's .data) */
    int n_file;                            /* entries of file; -1: more than fit */
} shoal__share_span_t;

/* Trim the pages [sp->lo, sp->hi) to those in private writable mappings:
 * pages of other kinds at either end are left out (a program's RELRO
 * before its data); one in between, or a hole, fails (false, *why). The
 * stack is left alone (its mapping grows). Notes which parts a file backs
 * (their pages read from it until written), the rest being anonymous. */
static bool shoal__share_pages(shoal__share_span_t *sp, char *why, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    uintptr_t lo = sp->lo, hi = sp->hi, first = 0, end = 0;
    bool ok = true, whole_line = true, after = false;

    if (f == NULL) {
        snprintf(why, len, "cannot read /proc/self/maps (%s)", strerror(errno));
        return false;
    }
    while (ok && fgets(line, sizeof(line), f) != NULL) {
        unsigned long s, e, inode = 0;
        char perms[8] = "";
        bool starts = whole_line, shareable;
        /* A line longer than the buffer goes on in the next read. */
        whole_line = strchr(line, '\n') != NULL;
        if (!starts || sscanf(line, "%lx-%lx %7s %*s %*s %lu", &s, &e, perms, &inode) < 3) continue;
        if (e <= lo || s >= hi) continue;
        shareable = perms[0] == 'r' && perms[1] == 'w' && perms[3] == 'p' && strstr(line, "[stack") == NULL;
        if (!shareable) {
            /* Fine before the first shareable page and after the last. */
            after = first != 0;
            continue;
        }
        if (s < lo) s = lo;
        if (e > hi) e = hi;
        if (first != 0 && (after || s != end)) {
            snprintf(why, len, "the page at %p, between pages of private writable memory, is not one (%s)", (void *)end,
                     after ? "another kind of mapping" : "a hole");
            ok = false;
        }
        if (first == 0) first = s;
        end = e;
        if (inode != 0 && sp->n_file >= 0 && sp->n_file < SHOAL__SHARE_FILES) {
            sp->file[sp->n_file][0] = s;
            sp->file[sp->n_file++][1] = e;
        } else if (inode != 0) {
            sp->n_file = -1;
        }
    }
    fclose(f);
    if (!ok) return false;
    if (first == 0) {
        snprintf(why, len, "none of its whole pages is private writable memory");
        return false;
    }
    sp->lo = first;
    sp->hi = end;
    return true;
}

/* Which pages might hold a nonzero byte, read in batches of
 * /proc/self/pagemap. An anonymous page that is neither in memory nor
 * swapped out was never written (or was dropped): zero, and skipped
 * without touching it, which a scan of a large bss never written would
 * otherwise fault in page by page. Pages of files, and every page where
 * pagemap cannot be read, are read. */
#define SHOAL__SHARE_BATCH 512
typedef struct shoal__share_scan {
    int pm;          /* /proc/self/pagemap, or -1 */
    uintptr_t first; /* the first page of the batch in entry */
    size_t count;    /* entries read */
    uint64_t entry[SHOAL__SHARE_BATCH];
} shoal__share_scan_t;

static bool shoal__share_page_used(const shoal__share_span_t *sp, shoal__share_scan_t *sc, uintptr_t p, size_t pg)
{
    size_t i;

    if (sc->pm < 0 || sp->n_file < 0) return true;
    for (int f = 0; f < sp->n_file; f++)
        if (p >= sp->file[f][0] && p < sp->file[f][1]) return true;
    if (p < sc->first || (p - sc->first) / pg >= sc->count) {
        size_t want = (size_t)((sp->hi - p) / pg);
        ssize_t got;
        if (want > SHOAL__SHARE_BATCH) want = SHOAL__SHARE_BATCH;
        got = pread(sc->pm, sc->entry, want * sizeof(uint64_t), (off_t)(p / pg * sizeof(uint64_t)));
        sc->first = p;
        sc->count = got > 0 ? (size_t)got / sizeof(uint64_t) : 0;
        if (sc->count == 0) return true;
    }
    i = (size_t)((p - sc->first) / pg);
    return (sc->entry[i] >> 62) & 3; /* bit 63: in memory; bit 62: swapped out */
}

/* A new object for this PE's part, sized len (sparse); its fd, or -1 with
 * *why. */
static int shoal__share_create(char *name, size_t name_len, size_t len, char *why, size_t why_len)
{
    static atomic_uint counter;
    int fd = -1;

    for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        snprintf(name, name_len, SHOAL__SHARE_PREFIX "%ld-%u-%lx", (long)getpid(), atomic_fetch_add(&counter, 1),
                 (unsigned long)ts.tv_nsec);
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        snprintf(why, why_len, "cannot create a shared-memory object (shm_open %s: %s)", name,
                 errno == EEXIST ? "16 names in a row were taken" : strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)len) != 0) {
        snprintf(why, why_len, "cannot size the shared-memory object %s to %zu bytes (ftruncate: %s)", name, len,
                 strerror(errno));
        close(fd);
        shm_unlink(name);
        return -1;
    }
    return fd;
}

/* The range's pages hold other variables' bytes too, and under
 * AddressSanitizer the redzones between globals: whole pages are read
 * here without its checks, word by word (a compiler barrier each step
 * keeps the loop from becoming a call to memcpy, which the sanitizer
 * checks). */
#if defined(__GNUC__) || defined(__clang__)
#define SHOAL__NO_ASAN __attribute__((no_sanitize_address))
#else
#define SHOAL__NO_ASAN
#endif

SHOAL__NO_ASAN static bool shoal__share_page_zero(const char *p, size_t pg)
{
    const uint64_t *w = (const uint64_t *)(const void *)p;
    for (size_t i = 0; i < pg / sizeof(*w); i++)
        if (w[i] != 0) return false;
    return true;
}

SHOAL__NO_ASAN static void shoal__share_copy_words(char *dst, const char *src, size_t n)
{
    uint64_t *d = (uint64_t *)(void *)dst;
    const uint64_t *s = (const uint64_t *)(const void *)src;
    for (size_t i = 0; i < n / sizeof(*d); i++) {
        d[i] = s[i];
        __asm__ __volatile__("" ::: "memory");
    }
}

/* The pages of sp into the object fd from offset 0, through a mapping of
 * it: only those holding a nonzero byte, so that the object stays sparse
 * where the range is (a large bss never touched costs nothing). */
static bool shoal__share_copy(int fd, const shoal__share_span_t *sp, size_t pg, char *why, size_t why_len)
{
    size_t len = (size_t)(sp->hi - sp->lo);
    const char *at = (const char *)sp->lo;
    shoal__share_scan_t *sc = malloc(sizeof(*sc));
    char *m = sc != NULL ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;

    if (m == MAP_FAILED) {
        snprintf(why, why_len, "cannot map the shared-memory object to fill it (%s)",
                 sc == NULL ? "out of memory" : strerror(errno));
        free(sc);
        return false;
    }
    sc->pm = open("/proc/self/pagemap", O_RDONLY);
    sc->count = 0;
    for (size_t i = 0; i < len; i += pg)
        if (shoal__share_page_used(sp, sc, sp->lo + i, pg) && !shoal__share_page_zero(at + i, pg))
            shoal__share_copy_words(m + i, at + i, pg);
    if (sc->pm >= 0) close(sc->pm);
    free(sc);
    munmap(m, len);
    return true;
}

void shoal__reg_share_make(shoal_t sh, shoal__reg_t *r, shoal__reg_part_t *part, char *why, size_t len)
{
    size_t pg = shoal__page_size(), span;
    uintptr_t lo = ((uintptr_t)r->base + pg - 1) / pg * pg, hi = ((uintptr_t)r->base + r->size) / pg * pg;
    shoal__share_span_t sp = {.lo = lo, .hi = hi};
    struct statvfs st;
    unsigned long long need, avail;
    char *m;
    int fd;

    memset(part, 0, sizeof(*part));
    if (hi <= lo) {
        snprintf(why, len, "it holds no whole page (%zu bytes from %p; pages of %zu bytes)", r->size, (void *)r->base,
                 pg);
        return;
    }
    if (!shoal__share_pages(&sp, why, len)) return;
    lo = sp.lo;
    hi = sp.hi;
    span = (size_t)(hi - lo);
    /* Every PE of the node makes an object like it, sparse: a page touched
     * later beyond what /dev/shm holds would raise SIGBUS. */
    if (statvfs("/dev/shm", &st) == 0) {
        need = (unsigned long long)span * (unsigned long long)(sh->node_size > 0 ? sh->node_size : 1);
        avail = (unsigned long long)st.f_bavail * st.f_frsize;
        if (need > avail) {
            snprintf(why, len,
                     "the %d PEs of this node would need up to %llu MiB of /dev/shm for their copies, and it has %llu "
                     "MiB free",
                     sh->node_size, need >> 20, avail >> 20);
            return;
        }
    }
    fd = shoal__share_create(part->name, sizeof(part->name), span, why, len);
    if (fd < 0) {
        part->name[0] = '\0';
        return;
    }
    if (!shoal__share_copy(fd, &sp, pg, why, len)) goto fail;
    /* Over the same addresses, in one step: a thread reading the range
     * meanwhile sees the old pages or the new ones, alike. */
    m = mmap((void *)lo, span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (m == MAP_FAILED) {
        snprintf(why, len, "cannot map the shared-memory object over [%p, +%zu) (mmap: %s)", (void *)lo, span,
                 strerror(errno));
        goto fail;
    }
    r->share_fd = fd;
    part->lo = (uint64_t)(lo - (uintptr_t)r->base);
    part->hi = (uint64_t)(hi - (uintptr_t)r->base);
    return;
fail:
    close(fd);
    shm_unlink(part->name);
    part->name[0] = '\0';
}

bool shoal__reg_share_map(shoal_t sh, shoal__reg_t *r, int pe, const shoal__reg_part_t *part, char *why, size_t len)
{
    size_t span = (size_t)(part->hi - part->lo);
    int fd = shm_open(part->name, O_RDWR, 0);
    char *m;

    (void)sh;
    if (fd < 0) {
        snprintf(why, len, "cannot open PE %d's part (shm_open %s: %s)", pe, part->name, strerror(errno));
        return false;
    }
    m = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd); /* the mapping keeps the object */
    if (m == MAP_FAILED) {
        snprintf(why, len, "cannot map PE %d's part, %zu bytes (mmap: %s)", pe, span, strerror(errno));
        return false;
    }
    r->part_map[pe] = m;
    return true;
}

void shoal__reg_share_unlink(const shoal__reg_part_t *part)
{
    if (part->name[0] != '\0') shm_unlink(part->name);
}

/* This PE's pages as private memory again: a private copy made aside
 * (only the object's data: its holes were never written, and read as
 * zero), then moved over the shared pages in one step, so that a thread
 * reading them meanwhile (a copy-relocated stdout) sees the same bytes
 * throughout. The move is the system call itself: UCX's hook of mremap
 * (which MPICH over UCX installs) drops the new address that
 * MREMAP_FIXED needs. A second, empty mremap through the C library then
 * tells such hooks that the range changed, so that a registration cache
 * of the network forgets the shared pages. Where the copy cannot be made
 * the pages stay shared memory of this process alone, which works as
 * well. */
static void shoal__share_restore(shoal_t sh, shoal__reg_t *r)
{
    char *at = r->base + r->part_lo[sh->my_pe];
    size_t span = r->part_hi[sh->my_pe] - r->part_lo[sh->my_pe];
    char *copy = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    off_t d = 0, h;
    long moved;

    if (copy == MAP_FAILED) goto keep;
    while (d < (off_t)span && (d = lseek(r->share_fd, d, SEEK_DATA)) >= 0 && d < (off_t)span) {
        h = lseek(r->share_fd, d, SEEK_HOLE);
        if (h < 0 || h > (off_t)span) h = (off_t)span;
        shoal__share_copy_words(copy + d, at + d, (size_t)(h - d));
        d = h;
    }
    if (d < 0 && errno != ENXIO) shoal__share_copy_words(copy, at, span); /* no SEEK_DATA here: every byte */
    moved = syscall(SYS_mremap, copy, span, span, MREMAP_MAYMOVE | MREMAP_FIXED, at);
    if (moved == (long)(uintptr_t)at) {
        (void)mremap(at, span, span, 0);
        return;
    }
    munmap(copy, span);
keep:
    SHOAL__LOG(SHOAL__LOG_INFO, SHOAL__SUB_RMA,
               "the shared pages [%p, +%zu) of the range registered at %p stay shared memory of this process "
               "(%s)",
               (void *)at, span, (void *)r->base, strerror(errno));
}

void shoal__reg_share_end(shoal_t sh, shoal__reg_t *r)
{
    if (r->part_map == NULL) return;
    for (int pe = 0; pe < sh->n_pes; pe++) {
        if (pe != sh->my_pe && r->part_map[pe] != NULL) munmap(r->part_map[pe], r->part_hi[pe] - r->part_lo[pe]);
        r->part_map[pe] = NULL;
    }
    if (r->share_fd >= 0) {
        shoal__share_restore(sh, r);
        close(r->share_fd);
        r->share_fd = -1;
    }
    r->amo_cpu = false;
}
