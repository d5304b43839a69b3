/* Registered memory: ranges outside the heap that every PE registered
 * together with shoal_register, each PE at its own address and all of the
 * same size. Host ranges (globals, statics, malloc'ed buffers) are reached
 * through an MPI window each; GPU ranges (cudaMalloc, on instances with a
 * GPU heap) through the GPU heap's own transports, which address them by a
 * segment offset past the heap's (SHOAL__REG_SEG_BASE) and translate it
 * with shoal__reg_seg_addr.
 * runtime/core/register.c holds the collective calls (the PEs' meeting, each
 * range's MPI window made and freed); runtime/heap/register_rma.c the table of
 * ranges, its lookups, and the data path over their windows that the RMA,
 * atomic and wait calls take for an address in a registered range. Split
 * so: the data path is called from runtime/ops/rma.c, which the meetings of
 * runtime/ops/coll.c call (a quiet), so it must not call them back.
 * Host ranges of shoal_register_shared also move their whole pages into
 * shared memory that node peers map (runtime/heap/register_share.c); where
 * a peer's copy is mapped here, runtime/ops/ copies and makes CPU atomics
 * itself (shoal__reg_locate says where), and comes here for the rest. */
#ifndef SHOAL_REGISTER_H
#define SHOAL_REGISTER_H

#include "base/shoal_amo_op.h"
#include "base/shoal_instance.h"

/* MPICH 4.0.2 over UCX moves a window made at a base that is not 16-byte
 * aligned down to the 16-byte boundary (every remote access lands base %
 * 16 bytes low): each range's window starts at its base aligned down to
 * this, and the displacements count from there. */
#define SHOAL__REG_WIN_ALIGN 16

/* A GPU range's bytes, as the transports see them: segment k (1, 2, ...:
 * the lowest free among the live GPU ranges, the same on every PE, which
 * register and deregister in the same order) is the offsets [k <<
 * SHOAL__REG_SEG_SHIFT, +size), past any heap offset (heaps are at most
 * SHOAL__HEAP_MAX, GPU ranges at most SHOAL__REG_SEG_BASE bytes). */
#define SHOAL__REG_SEG_SHIFT 48
#define SHOAL__REG_SEG_BASE ((uint64_t)1 << SHOAL__REG_SEG_SHIFT)
#define SHOAL__REG_SEG_MAX 4095 /* live GPU ranges at once */
_Static_assert(SHOAL__REG_SEG_BASE >= SHOAL__HEAP_MAX, "segment offsets lie past every heap offset");

/* For messages: what an offset the transports take counts from ("heap",
 * "registered GPU range"), and which byte of that it is. */
static inline const char *shoal__off_what(size_t off)
{
    return off < SHOAL__REG_SEG_BASE ? "heap" : "registered GPU range";
}
static inline size_t shoal__off_in(size_t off) { return off & (SHOAL__REG_SEG_BASE - 1); }

/* sh->reg_segs[k]: this PE's GPU range of segment k. base and size are
 * published (release) before the PEs agree on a new range, so that the
 * staging proxy, which reads them without a lock (atomic loads), serves a
 * peer that is quicker to agree; reg is set while the range is in the
 * table (under alloc_lock, write). */
struct shoal__reg_seg {
    char *base;
    uint64_t size; /* 0: no range */
    struct shoal__reg *reg;
};

/* One registered range as this PE sees it. Made and freed by the
 * collectives (one thread); read by any thread under alloc_lock. */
typedef struct shoal__reg {
    char *base;       /* this PE's first registered byte */
    size_t size;      /* bytes, the same on every PE */
    uint64_t id;      /* 1, 2, ...: the instance's registrations in order, the same on every PE */
    MPI_Win win;      /* over [base aligned down to SHOAL__REG_WIN_ALIGN, base + size) on every PE; MPI_WIN_NULL
                         for GPU ranges and on a one-PE instance */
    MPI_Aint *disp;   /* per PE: where its first registered byte is in win (from the window's real base) */
    uint8_t *pending; /* per PE: operations that only a flush completes may be outstanding (atomic) */
    uint8_t used;     /* some pending[] is set (atomic): a quiet looks at this range */
    bool locked;      /* win's lock_all epoch is open */
    bool ready;       /* the PEs agreed on it; false: a registration that timed out, its window kept for
                          shoal_finalize to free (lookups skip it) */
    /* GPU ranges (no window). */
    bool gpu;            /* GPU memory, reached through the heap's transports */
    uint64_t seg;        /* its segment << SHOAL__REG_SEG_SHIFT: its first byte as a transport offset */
    char **peer;         /* per PE: its first byte mapped in this process (this PE: base; cuda_ipc peers: opened
                          IPC mapping), else NULL */
    char ipc_handle[64]; /* cudaIpcMemHandle_t of the allocation holding base */
    uint64_t ipc_delta;  /* base - that allocation's base */
    uint64_t ipc_alloc;  /* that allocation's base (which mapping a peer may share between ranges) */
    /* Host ranges of shoal_register_shared: each PE's part (the whole
     * writable pages of its range) lives in a shared-memory object of its
     * own, mapped over the same addresses, which its node peers map too. */
    bool shared;     /* asked for with shoal_register_shared */
    bool amo_cpu;    /* every PE maps every other PE's part (one node): an atomic on a word in its owner's part is a
                        CPU atomic from every PE; else every atomic on the range goes through the window */
    int share_fd;    /* this PE's object, kept to restore the pages at the end (its holes are zero), or -1 */
    size_t *part_lo; /* per PE: its part is the bytes [part_lo, part_hi) of its range (equal: none); known for this
                        PE and its node peers */
    size_t *part_hi;
    char **part_map; /* per PE: its part mapped here (this PE: base + part_lo; node peers: their object), or NULL */
    struct shoal__reg_part *parts; /* node_size + 1 entries: the node's exchange of parts (made before the PEs meet) */
} shoal__reg_t;

/* What a PE says of its part to its node peers: the object's name ("" when
 * it has none) and which bytes of its range it holds. */
typedef struct shoal__reg_part {
    char name[48];
    uint64_t lo, hi;
} shoal__reg_part_t;

/* ---- runtime/core/register.c: the collectives ---- */

/* ---- runtime/heap/register_share.c: host ranges shared with node peers ---- */

/* This PE's part of r (a host range of shoal_register_shared): its whole
 * pages that lie in private writable memory (read-only pages at either
 * end, such as a program's RELRO, are left out), copied into a new
 * shared-memory object that is then mapped over the same addresses: the
 * contents and addresses stay, and node peers can map the object by the
 * name written into *part. Call it before anything else (an MPI window)
 * covers the range, while no other thread writes it. Where it cannot (no
 * whole page, a page that is not private writable memory, /dev/shm too
 * small, a system call failing), part->name is "" and *why says why (for
 * the INFO log); nothing changed then. */
SHOAL__HIDDEN void shoal__reg_share_make(shoal_t sh, shoal__reg_t *r, shoal__reg_part_t *part, char *why, size_t len);
/* Map node peer pe's part, which it described in *part (a name), into
 * r->part_map[pe]; false (and *why) where it cannot. */
SHOAL__HIDDEN bool shoal__reg_share_map(shoal_t sh, shoal__reg_t *r, int pe, const shoal__reg_part_t *part, char *why,
                                        size_t len);
/* Remove the name of this PE's object, once every node peer that maps it
 * did (the object lives on in the mappings). */
SHOAL__HIDDEN void shoal__reg_share_unlink(const shoal__reg_part_t *part);
/* The end of r's sharing, once nobody reaches the range any more (its
 * window freed): unmap the peers' parts, and make this PE's pages private
 * memory again, with their contents. */
SHOAL__HIDDEN void shoal__reg_share_end(shoal_t sh, shoal__reg_t *r);

/* ---- runtime/heap/register_rma.c: the table ---- */

/* Room in the table for one more range (before the PEs meet, so that
 * nothing fails after the window exists). */
SHOAL__HIDDEN int shoal__reg_reserve(shoal_t sh, const char *call);
/* Add r (complete) to the table, where shoal__reg_reserve made room; or
 * take the one at base out of it and return it (NULL: none). The
 * collective thread only. */
SHOAL__HIDDEN void shoal__reg_insert(shoal_t sh, shoal__reg_t *r);
SHOAL__HIDDEN shoal__reg_t *shoal__reg_remove(shoal_t sh, const void *base);
/* The registration whose base is base (its id), or 0. */
SHOAL__HIDDEN uint64_t shoal__reg_id_at(shoal_t sh, const void *base);
/* A registered range sharing a byte with [base, base + size), or NULL (for
 * the checks of shoal_register; the collective thread only). */
SHOAL__HIDDEN const shoal__reg_t *shoal__reg_overlap(shoal_t sh, const void *base, size_t size);

/* ---- runtime/heap/register_rma.c: lookups ---- */

/* Is [p, p + n) inside one host range this PE registered (reached
 * through its window)? The hooks of rma.c, amo.c, wait_until.c and lock.c
 * ask it for an address outside the heap. GPU ranges answer false: they
 * take the heap's path with the offset shoal__reg_gpu_off gives. */
SHOAL__HIDDEN bool shoal__reg_holds(shoal_t sh, const void *p, size_t n);
/* Where pe's copy of [p, p + n) (this PE's address) can be loaded and
 * stored here: 1, and the address in *addr_p, where p is in a host range
 * and pe's copy is mapped here (this PE's own copy; a node peer's part of
 * a shoal_register_shared range, the whole span inside it); 0 where p is in
 * a host range reached through its window; -1 where p is in no host range
 * (GPU ranges, unregistered memory). For atomics (amo), 1 only where the
 * range's atomics are CPU atomics (amo_cpu) and the word lies in pe's part,
 * so that every PE reaches that word the same way. pe must be valid (else
 * 0: the window path names the error). */
SHOAL__HIDDEN int shoal__reg_locate(shoal_t sh, const void *p, size_t n, int pe, bool amo, char **addr_p);
/* Is [p, p + n) inside one GPU range this PE registered? *off_p: its
 * segment offset (SHOAL__REG_SEG_BASE and above), which the heap's
 * transports take as they take heap offsets. */
SHOAL__HIDDEN bool shoal__reg_gpu_off(shoal_t sh, const void *p, size_t n, size_t *off_p);
/* Where n bytes at segment offset off of PE pe's GPU range are mapped in
 * this process (pe's registered base there plus the offset), or NULL: no
 * such range, past its end, or pe's range not mapped here. */
SHOAL__HIDDEN char *shoal__reg_seg_addr(shoal_t sh, int pe, uint64_t off, size_t n);
/* Publish r (a GPU range of this PE) in sh->reg_segs for the staging
 * proxy, before the PEs agree on it; withdraw it (when they do not, or at
 * its end). The collective thread only. Free the table in shoal_finalize,
 * after the transports (the proxy) are gone. */
SHOAL__HIDDEN int shoal__reg_seg_publish(shoal_t sh, const char *call, const shoal__reg_t *r);
SHOAL__HIDDEN void shoal__reg_seg_withdraw(shoal_t sh, const shoal__reg_t *r);
SHOAL__HIDDEN void shoal__reg_segs_free(shoal_t sh);
/* Is any byte of [p, p + n) in a GPU range this PE registered? */
SHOAL__HIDDEN bool shoal__reg_is_gpu(shoal_t sh, const void *p, size_t n);
/* pe in range and [p, p + n) inside one registered range, as
 * shoal__rma_target for the heap; what names it in messages. *off_p: its
 * offset in the range. */
SHOAL__HIDDEN int shoal__reg_target(shoal_t sh, const char *call, const char *what, const void *p, size_t n, int pe,
                                    size_t *off_p);
/* Why [p, p + n) (not in the heap) is no valid target of call: in no
 * registered range, running past the end of one, or in one while call takes
 * the heap only. Records and returns SHOAL_ERR_OUT_OF_BOUNDS. */
SHOAL__HIDDEN int shoal__reg_range_error(shoal_t sh, const char *call, const char *what, const void *p, size_t n,
                                         int pe);
/* "byte 8 of the 64-byte range registered at 0x..." for p, into buf. */
SHOAL__HIDDEN void shoal__reg_where(shoal_t sh, const void *p, char *buf, size_t len);

/* ---- runtime/heap/register_rma.c: the data path (checks included) ---- */

/* The local buffer of a put or get on a registered host range: not NULL,
 * and host memory (MPI moves host memory here, no CUDA-aware MPI is
 * assumed, and copies load and store): GPU memory is
 * SHOAL_ERR_UNSUPPORTED. */
SHOAL__HIDDEN int shoal__reg_local(shoal_t sh, const char *call, bool is_put, const void *local);

/* Put or get of n > 0 bytes whose remote side (dest of a put, src of a
 * get) is this PE's address in a registered range; pe's copy is reached
 * at the same offset of its range. Towards this PE a copy; else MPI_Put or
 * MPI_Get on the range's window (blocking: a put complete locally, a get
 * complete; nbi: complete at quiet). The local side must be host memory
 * (GPU memory: SHOAL_ERR_UNSUPPORTED). */
SHOAL__HIDDEN int shoal__reg_rma(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t n,
                                 int pe, int nbi);
/* Blocking 2-D put or get, as shoal__rma_2d, whose checked remote span
 * (first byte to the end of the last row) lies in one registered range:
 * one MPI operation with vector datatypes (a row at a time beyond int
 * counts), a copy a row towards this PE. */
SHOAL__HIDDEN int shoal__reg_rect(shoal_t sh, const char *call, bool is_put, void *dest, const void *src, size_t rpitch,
                                  size_t lpitch, size_t width, size_t height, int pe);
/* The atomic a on pe's copy of the registered word at target (checked:
 * pe, range, alignment). Always through MPI's accumulate operations on the
 * range's window, towards this PE and node peers too, so that every atomic
 * on the word is atomic with the others. result as for shoal__amo; a
 * fetching atomic is complete on return, the others at quiet. */
SHOAL__HIDDEN int shoal__reg_amo(shoal_t sh, const char *call, const void *target, int pe, const shoal__amo_t *a,
                                 void *result);
/* What this PE issued to pe in the range holding p lands before what it
 * issues next (put_signal's data before its signal): a flush where
 * operations through the window may be outstanding, and a fence. */
SHOAL__HIDDEN int shoal__reg_fence(shoal_t sh, const char *call, const void *p, int pe);
/* Complete every operation this PE issued on any registered range (a
 * flush of each target with operations outstanding). */
SHOAL__HIDDEN int shoal__reg_quiet(shoal_t sh, const char *call);
/* Make what peers wrote into [p, p + n) (in one registered range) visible
 * to this PE's loads: MPI_Win_sync on its window. */
SHOAL__HIDDEN int shoal__reg_sync(shoal_t sh, const char *call, const void *p, size_t n);
/* The same for every registered range (after a barrier). */
SHOAL__HIDDEN int shoal__reg_sync_all(shoal_t sh, const char *call);

#endif /* SHOAL_REGISTER_H */
