/*
 * shoal: one-sided communication over a symmetric heap, initialized from
 * inside an existing MPI program.
 *
 * Every call that can fail returns 0 (SHOAL_SUCCESS) or a negative status;
 * shoal_last_error() then holds a message naming the PE, the call and the
 * cause. No call exits or aborts the process.
 */
#ifndef SHOAL_H
#define SHOAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SHOAL_VERSION_MAJOR 0
#define SHOAL_VERSION_MINOR 3
#define SHOAL_VERSION_PATCH 0
/* Before 1.0 the ABI may change with the minor version, and the library's
 * soname carries it (libshoal.so.0.3): 0.2 added the near window and
 * barrier_ok to shoal_device_t, 0.3 the name of shoal_config_t. */
/* One integer that orders releases: major * 10000 + minor * 100 + patch. */
#define SHOAL_VERSION (SHOAL_VERSION_MAJOR * 10000 + SHOAL_VERSION_MINOR * 100 + SHOAL_VERSION_PATCH)

#if defined(_WIN32)
#define SHOAL_EXPORT
#else
#define SHOAL_EXPORT __attribute__((visibility("default")))
#endif

/* Statuses: X(name, value, description). 0 is success, errors are negative. */
#define SHOAL_STATUS_MAP(X)                                                                                            \
    X(SUCCESS, 0, "success")                                                                                           \
    X(ERR_INVALID_ARG, -1, "invalid argument")                                                                         \
    X(ERR_INVALID_INSTANCE, -2, "invalid, NULL or finalized instance")                                                 \
    X(ERR_MPI_STATE, -3, "MPI is not initialized or already finalized")                                                \
    X(ERR_MPI, -4, "an MPI call failed")                                                                               \
    X(ERR_CUDA, -5, "a CUDA call failed")                                                                              \
    X(ERR_NO_MEMORY, -6, "out of memory")                                                                              \
    X(ERR_HEAP_EXHAUSTED, -7, "symmetric heap exhausted")                                                              \
    X(ERR_NOT_SYMMETRIC, -8, "collective call with arguments that differ between PEs")                                 \
    X(ERR_OUT_OF_BOUNDS, -9, "address range outside the symmetric heap or allocation")                                 \
    X(ERR_PE, -10, "PE out of range")                                                                                  \
    X(ERR_TIMEOUT, -11, "timed out waiting for other PEs")                                                             \
    X(ERR_UNSUPPORTED, -12, "operation not supported for this PE pair or build")                                       \
    X(ERR_ENV, -13, "invalid environment variable")                                                                    \
    X(ERR_TOPOLOGY, -14, "topology discovery failed")                                                                  \
    X(ERR_SYSTEM, -15, "a system call failed")                                                                         \
    X(ERR_NO_DEVICE, -16, "no usable GPU")                                                                             \
    X(ERR_INTERNAL, -17, "internal error")                                                                             \
    X(ERR_ORDER, -18, "read of data with puts still outstanding")                                                      \
    X(ERR_THREAD, -19, "call from a thread the MPI thread level does not allow")

typedef enum shoal_status {
#define SHOAL__STATUS_ENUM(name, value, desc) SHOAL_##name = (value),
    SHOAL_STATUS_MAP(SHOAL__STATUS_ENUM)
#undef SHOAL__STATUS_ENUM
} shoal_status_t;

/* An instance: one symmetric heap over one communicator. Opaque. */
typedef struct shoal_instance *shoal_t;

/* Where the symmetric heap lives. */
enum {
    SHOAL_HEAP_AUTO = 0, /* on the GPU when the instance has one, else host */
    SHOAL_HEAP_HOST = 1, /* host memory, shared by the PEs of a node */
    SHOAL_HEAP_GPU = 2   /* device memory shared through CUDA IPC */
};

/* How much shoal checks on every call (SHOAL_CHECK). */
enum {
    SHOAL_CHECK_OFF = 0,   /* arguments and heap bounds (collectives always agree on sizes) */
    SHOAL_CHECK_BASIC = 1, /* + each access inside one live allocation (the default) */
    SHOAL_CHECK_FULL = 2   /* + reads of data put without a quiet since; thread-level rules */
};

/* How a PE waits in a collective for its peers (SHOAL_WAIT). */
enum {
    SHOAL_WAIT_AUTO = 0, /* spin, then yield; also sleep when the node has more PEs than CPUs */
    SHOAL_WAIT_SPIN = 1, /* spin, then yield: never sleep */
    SHOAL_WAIT_SLEEP = 2 /* spin, then yield, then sleep in the kernel until woken */
};

/* Instance settings. shoal_config_init fills defaults, then applies SHOAL_*
 * environment variables; the caller may then change any field. */
typedef struct shoal_config {
    size_t heap_size;    /* bytes of symmetric heap per PE */
    int heap_kind;       /* SHOAL_HEAP_AUTO/HOST/GPU */
    int cuda_device;     /* -1: the device current at init, else node rank modulo the device count */
    int node_size;       /* >0: consecutive blocks of this many ranks act as nodes */
    int check;           /* SHOAL_CHECK_* */
    double timeout;      /* seconds a collective waits for peers; 0: forever (negative: refused) */
    int wait;            /* SHOAL_WAIT_*: how a PE waits for its peers */
    char env_error[256]; /* set by shoal_config_init when a SHOAL_* value is invalid */
    char name[32];       /* "" or the instance's name (upper case): see shoal_config_init_named */
} shoal_config_t;

/* The defaults, overridden by the SHOAL_* variables (README, Environment). */
SHOAL_EXPORT void shoal_config_init(shoal_config_t *cfg);
/* The same for an instance of its own name (1 to 31 letters, digits and
 * underscores; case ignored), so that two instances of one process (two
 * plugins, say) are tuned apart: SHOAL_<NAME>_<VARIABLE>, where set, stands
 * for SHOAL_<VARIABLE> for this instance (SHOAL_PLUGIN_HEAP_SIZE=64m for
 * the name "plugin"); every variable but SHOAL_DEBUG, SHOAL_DEBUG_SUBSYS,
 * SHOAL_WARN_UNKNOWN_ENV, SHOAL_TOPO_FILE and SHOAL_NVML_LIBRARY, which are
 * the process's. name NULL or "": as shoal_config_init. An invalid name
 * sets env_error (and no SHOAL_<NAME>_* is read), and shoal_init refuses
 * the config. A name written into cfg.name by hand after shoal_config_init
 * names the instance for the settings shoal_init reads itself
 * (SHOAL_<NAME>_TRANSPORT_DISABLE, _P2P_LEVEL); the config's fields stay
 * what they are: use shoal_config_init_named for those. */
SHOAL_EXPORT void shoal_config_init_named(shoal_config_t *cfg, const char *name);

/* Create an instance over comm (collective over comm). MPI must be
 * initialized; comm is duplicated and never used directly. On failure
 * *sh_p is NULL (and shoal_last_error(NULL) says why). */
SHOAL_EXPORT int shoal_init(MPI_Comm comm, const shoal_config_t *cfg, shoal_t *sh_p);
/* Collective. Completes outstanding operations and releases the heap. */
SHOAL_EXPORT int shoal_finalize(shoal_t sh);

SHOAL_EXPORT int shoal_my_pe(shoal_t sh); /* negative status on a bad instance */
SHOAL_EXPORT int shoal_n_pes(shoal_t sh);
/* The instance's duplicate communicator (for reference; do not free, and
 * send nothing on it: shoal's own messages and its progress receive, a
 * receive from each PE itself, use its tags). */
SHOAL_EXPORT int shoal_comm(shoal_t sh, MPI_Comm *comm_p);
/* SHOAL_HEAP_HOST or SHOAL_HEAP_GPU: where this instance's heap lives. */
SHOAL_EXPORT int shoal_heap_kind(shoal_t sh);

/* Collective symmetric allocation: same size on every PE, in the same order.
 * NULL on error (shoal_last_error says why); size 0 gives NULL and no error.
 * shoal_free is collective too, shoal_free(NULL) included (it frees nothing,
 * but a PE that frees something else meanwhile gets the mismatch). */
SHOAL_EXPORT void *shoal_malloc(shoal_t sh, size_t size);
SHOAL_EXPORT void *shoal_calloc(shoal_t sh, size_t count, size_t size);
SHOAL_EXPORT void *shoal_align(shoal_t sh, size_t alignment, size_t size);
SHOAL_EXPORT int shoal_free(shoal_t sh, void *ptr);
/* Bytes of heap in use and free on this PE. */
SHOAL_EXPORT int shoal_heap_usage(shoal_t sh, size_t *used_p, size_t *free_p);

/* What the heap takes from the machine. A growing heap (a GPU heap on
 * CUDA's virtual memory, the default) maps memory in chunks as blocks need
 * them and gives back chunks no block uses; a fixed GPU heap
 * (SHOAL_HEAP_RESERVE=y) takes its limit at init; a host heap is sparse (a page is taken when
 * first touched, and freed pages go back). */
typedef struct shoal_heap_stats {
    size_t used;   /* bytes in blocks in use */
    size_t mapped; /* bytes that may be backed by memory now: chunks mapped (growing GPU heap), the limit (fixed
                      GPU heap), whole pages under blocks in use (host heap) */
    size_t limit;  /* the most the heap holds (SHOAL_HEAP_SIZE, rounded up) */
    size_t chunk;  /* what a growing GPU heap maps at a time; 0 for a fixed GPU heap and for host heaps (page by
                      page) */
    int growable;  /* 1: memory is taken as blocks need it and given back; 0: taken at init */
} shoal_heap_stats_t;
SHOAL_EXPORT int shoal_heap_stats(shoal_t sh, shoal_heap_stats_t *stats_p);

/* Registered memory: memory outside the heap (globals, statics, malloc'ed
 * buffers; cudaMalloc'ed memory on an instance with a GPU heap) made
 * symmetric. Collective over the instance: every PE
 * calls shoal_register with its own base (bases differ between PEs) and the
 * same size, in the same order as its other collectives. From then on the
 * calls that take symmetric memory take an address in a registered range
 * as they take a heap address: shoal_put, shoal_get and their _nbi, typed,
 * p and g forms, iput, iget, put_2d and get_2d (a strided or 2-D span in
 * one range), the atomics, put_signal, signal_op, signal_fetch,
 * signal_wait_until, the wait_until and test families and the locks. The
 * caller passes its own address; pe's copy is the byte at the same offset
 * of pe's range. An access must lie inside one registered range (else
 * SHOAL_ERR_OUT_OF_BOUNDS); the team collectives and kernels take heap
 * memory only. Host ranges: the stream-ordered calls take heap memory
 * only, and the local buffer of a put or get must be host memory; towards
 * other PEs every access goes through an MPI window of the range's own (as over mpi_rma, a
 * target's MPI progresses while it is inside shoal or MPI calls); towards
 * this PE data is copied, and atomics go through MPI there too, so that
 * all atomics on a registered word are atomic with each other. Completion
 * as for the heap: puts and non-fetching atomics are complete at
 * shoal_quiet, shoal_fence, shoal_barrier_all (and a team barrier), after
 * which the data is visible; put_signal's signal follows its data.
 *   shoal_register: sizes that differ between PEs are SHOAL_ERR_NOT_SYMMETRIC
 *   on every PE, naming the PEs and their sizes, and a PE in another
 *   collective is named too (nothing is registered then). size 0 registers
 *   nothing (the PEs still meet). A NULL base with size > 0, a range that
 *   overlaps the heap or another registered range is SHOAL_ERR_INVALID_ARG
 *   on that PE (SHOAL_ERR_NOT_SYMMETRIC naming it on the others).
 *   GPU ranges (README "Registered memory") go through the heap's own
 *   transports, the stream-ordered calls included, with host or GPU local
 *   buffers: device memory of the instance's GPU inside one cudaMalloc
 *   allocation other than the heap's (else SHOAL_ERR_INVALID_ARG);
 *   managed or IPC-less memory, or any GPU memory on an instance with a
 *   host heap, is SHOAL_ERR_UNSUPPORTED. The memory must stay valid until
 *   shoal_deregister or shoal_finalize (which ends every registration).
 *   shoal_deregister: collective as well, every PE with its base of the same
 *   registration (else SHOAL_ERR_NOT_SYMMETRIC); a base that is not one
 *   this PE registered is SHOAL_ERR_INVALID_ARG. This PE's operations on
 *   the range are complete when it returns; the range is no longer
 *   symmetric (accesses are SHOAL_ERR_OUT_OF_BOUNDS). */
SHOAL_EXPORT int shoal_register(shoal_t sh, void *base, size_t size);
SHOAL_EXPORT int shoal_deregister(shoal_t sh, void *base);
/* shoal_register, and node peers load and store the range as they do the
 * host heap (globals and statics of programs, large static arrays): the
 * whole pages of [base, base + size) that are private writable memory
 * move, at registration, into shared memory mapped over the same
 * addresses (the contents stay; read-only pages at either end, as a
 * program's RELRO, are left out), which the PEs of this node map too.
 * Puts and gets between node peers are then copies, shoal_ptr returns node
 * peers' copies there, and where every PE is on one node and maps every
 * other's pages, atomics on words in those pages are CPU atomics (from
 * every PE: one mechanism per word); else every atomic on the range goes
 * through its MPI window, as with shoal_register. Bytes outside whole
 * pages, PEs of other nodes, and PEs whose pages could not be shared
 * (SHOAL_TRANSPORT_DISABLE=shm, /dev/shm too small for the node's copies,
 * a page that is not private writable memory, a failing mmap: the INFO
 * log says which) go through the MPI window. No other thread may write
 * the range while the call runs (its pages are copied, then replaced). At
 * shoal_deregister and shoal_finalize the pages become private memory
 * again, with their contents. A child made by fork meanwhile shares the
 * pages with its parent. The pages change at both ends: make MPI windows
 * of the program's own over the range after this call, and free them
 * before the range's end. Collective as shoal_register; a PE calling
 * shoal_register meanwhile is SHOAL_ERR_NOT_SYMMETRIC. GPU memory is
 * registered as by shoal_register (its transports share it already). */
SHOAL_EXPORT int shoal_register_shared(shoal_t sh, void *base, size_t size);

/* Is ptr inside this PE's symmetric heap or a range it registered? */
SHOAL_EXPORT int shoal_addr_accessible(shoal_t sh, const void *ptr, int pe);
/* A pointer through which this PE can load/store pe's copy of dest, or NULL
 * (for a registered range: dest itself for this PE, the node peer's copy
 * where shoal_register_shared shares it, else NULL). */
SHOAL_EXPORT void *shoal_ptr(shoal_t sh, const void *dest, int pe);

/* Blocking: put returns when src may be reused; get when dest holds the data. */
SHOAL_EXPORT int shoal_put(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe);
SHOAL_EXPORT int shoal_get(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe);
/* Non-blocking: complete at shoal_quiet (or a barrier); buffers must stay valid. */
SHOAL_EXPORT int shoal_put_nbi(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe);
SHOAL_EXPORT int shoal_get_nbi(shoal_t sh, void *dest, const void *src, size_t nbytes, int pe);
/* Complete every operation this PE issued on this instance. */
SHOAL_EXPORT int shoal_quiet(shoal_t sh);
/* Order puts to each PE: those before the fence land before those after. */
SHOAL_EXPORT int shoal_fence(shoal_t sh);
/* Collective: quiet, then every PE arrives, then every put is visible. */
SHOAL_EXPORT int shoal_barrier_all(shoal_t sh);
/* Collective: every PE arrives; no completion of outstanding operations. */
SHOAL_EXPORT int shoal_sync_all(shoal_t sh);

/* Blocking 2-D put and get, as cudaMemcpy2D: height rows of width bytes,
 * row i at dest + i * dpitch and at src + i * spitch (pitches in bytes, at
 * least width, else SHOAL_ERR_INVALID_ARG). The remote side (dest of a put,
 * src of a get) is the symmetric one: its whole span, from the first byte to
 * the end of the last row, must lie in one allocation. A put returns when
 * src may be reused and is complete at shoal_quiet; a get returns with dest
 * filled. width or height 0 moves nothing. Local rows may interleave with
 * the remote ones (two columns of one grid on this PE) but not share bytes
 * with them. On GPU heaps mapped here (self, cuda_ipc) one copy-engine
 * operation moves the whole rectangle; towards host heaps of other nodes
 * (mpi_rma) one MPI operation with a vector datatype does. */
SHOAL_EXPORT int shoal_put_2d(shoal_t sh, void *dest, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t height, int pe);
SHOAL_EXPORT int shoal_get_2d(shoal_t sh, void *dest, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t height, int pe);

/* Blocking strided put and get of nelems elements of 8 to 128 bits
 * (OpenSHMEM iput/iget): element i at dest + i * dst and src + i * sst,
 * strides in elements. Strides must be at least 1 (OpenSHMEM defines
 * positive strides only; 0 or less is SHOAL_ERR_INVALID_ARG). The remote
 * span, first to last element, must lie in one allocation; what lies
 * between the elements is never touched. Completion as shoal_put_2d and
 * shoal_get_2d, which they are with one element a row. */
#define SHOAL__ISIZED_DECL(BITS)                                                                                       \
    SHOAL_EXPORT int shoal_iput##BITS(shoal_t sh, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,           \
                                      size_t nelems, int pe);                                                          \
    SHOAL_EXPORT int shoal_iget##BITS(shoal_t sh, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,           \
                                      size_t nelems, int pe);
SHOAL__ISIZED_DECL(8)
SHOAL__ISIZED_DECL(16)
SHOAL__ISIZED_DECL(32)
SHOAL__ISIZED_DECL(64)
SHOAL__ISIZED_DECL(128)
#undef SHOAL__ISIZED_DECL

/* OpenSHMEM standard RMA types: X(TYPE, NAME). */
#define SHOAL_RMA_TYPES(X) SHOAL_RMA_STD_TYPES(X) X(long double, longdouble)
/* The same without long double (NVSHMEM's standard RMA types). */
#define SHOAL_RMA_STD_TYPES(X)                                                                                         \
    X(float, float)                                                                                                    \
    X(double, double)                                                                                                  \
    X(char, char)                                                                                                      \
    X(signed char, schar)                                                                                              \
    X(short, short)                                                                                                    \
    X(int, int)                                                                                                        \
    X(long, long)                                                                                                      \
    X(long long, longlong)                                                                                             \
    X(unsigned char, uchar)                                                                                            \
    X(unsigned short, ushort)                                                                                          \
    X(unsigned int, uint)                                                                                              \
    X(unsigned long, ulong)                                                                                            \
    X(unsigned long long, ulonglong)                                                                                   \
    X(int8_t, int8)                                                                                                    \
    X(int16_t, int16)                                                                                                  \
    X(int32_t, int32)                                                                                                  \
    X(int64_t, int64)                                                                                                  \
    X(uint8_t, uint8)                                                                                                  \
    X(uint16_t, uint16)                                                                                                \
    X(uint32_t, uint32)                                                                                                \
    X(uint64_t, uint64)                                                                                                \
    X(size_t, size)                                                                                                    \
    X(ptrdiff_t, ptrdiff)

/* NVSHMEM's 16-bit floating types, which OpenSHMEM does not have (the
 * OpenSHMEM layer, api/shmem, carries none of their calls). C has no such
 * types, so shoal's API carries their bits: shoal_half_t holds an IEEE 754
 * binary16 (CUDA's half, __half), shoal_bfloat16_t a bfloat16 (the high 16
 * bits of a float; CUDA's __nv_bfloat16). Each has the size, alignment and
 * bits of CUDA's type, and is passed and returned by value as CUDA's type
 * is: a pointer to an array of CUDA's type may be cast to one of shoal's.
 * Kernels (shoal_device.cuh) take CUDA's types themselves. They have the
 * RMA calls, the collectives and the arithmetic reductions (min, max, sum,
 * prod), whose every step is computed in float and rounded to the nearest
 * value, ties to even, as CUDA's own half and bfloat16 arithmetic rounds;
 * min and max compare as floats and keep the chosen element's bits.
 * X(TYPE, NAME). */
typedef struct shoal_half {
    uint16_t bits; /* sign, 5 exponent bits, 10 fraction bits */
} shoal_half_t;
typedef struct shoal_bfloat16 {
    uint16_t bits; /* sign, 8 exponent bits, 7 fraction bits */
} shoal_bfloat16_t;
#define SHOAL_HALF_TYPES(X) X(shoal_half_t, half) X(shoal_bfloat16_t, bfloat16)
/* Conversions: to float is exact; from float rounds to the nearest value,
 * ties to even (beyond the largest finite value: infinity), and a NaN
 * stays a NaN (quiet). */
SHOAL_EXPORT shoal_half_t shoal_half_from_float(float value);
SHOAL_EXPORT float shoal_half_to_float(shoal_half_t value);
SHOAL_EXPORT shoal_bfloat16_t shoal_bfloat16_from_float(float value);
SHOAL_EXPORT float shoal_bfloat16_to_float(shoal_bfloat16_t value);

/* Per type: put, get, put_nbi, get_nbi (nelems elements), p and g (one
 * value), and the strided iput and iget (as shoal_iput64: element strides
 * dst and sst, at least 1; blocking). */
#define SHOAL__TYPED_DECL(T, N)                                                                                        \
    SHOAL_EXPORT int shoal_##N##_put(shoal_t sh, T *dest, const T *src, size_t nelems, int pe);                        \
    SHOAL_EXPORT int shoal_##N##_get(shoal_t sh, T *dest, const T *src, size_t nelems, int pe);                        \
    SHOAL_EXPORT int shoal_##N##_put_nbi(shoal_t sh, T *dest, const T *src, size_t nelems, int pe);                    \
    SHOAL_EXPORT int shoal_##N##_get_nbi(shoal_t sh, T *dest, const T *src, size_t nelems, int pe);                    \
    SHOAL_EXPORT int shoal_##N##_p(shoal_t sh, T *dest, T value, int pe);                                              \
    SHOAL_EXPORT int shoal_##N##_g(shoal_t sh, T *value_p, const T *src, int pe);                                      \
    SHOAL_EXPORT int shoal_##N##_iput(shoal_t sh, T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                                      int pe);                                                                         \
    SHOAL_EXPORT int shoal_##N##_iget(shoal_t sh, T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                                      int pe);
SHOAL_RMA_TYPES(SHOAL__TYPED_DECL)
SHOAL_HALF_TYPES(SHOAL__TYPED_DECL)
#undef SHOAL__TYPED_DECL

/* ------------------------------------------------------------------------
 * Point-to-point synchronization: atomics, signals, waits and locks on
 * symmetric memory, on host and GPU heaps, towards every PE whatever its
 * transport, with the semantics of api/shoal_device.cuh (README,
 * "Point-to-point synchronization", says which mechanism carries them).
 * Targets are symmetric (inside the heap and, with SHOAL_CHECK basic or
 * full, inside one allocation; or inside one range registered with
 * shoal_register) and aligned to their size; a bad target, PE, op or cmp
 * is refused with nothing written. */

/* How shoal_signal_op and put_signal change the signal word (also in kernels). */
enum {
    SHOAL_SIGNAL_SET = 0, /* sig = value */
    SHOAL_SIGNAL_ADD = 1  /* sig += value */
};

/* Comparisons of wait_until and test: ivar <cmp> value (also in kernels). */
enum {
    SHOAL_CMP_EQ = 0, /* == */
    SHOAL_CMP_NE = 1, /* != */
    SHOAL_CMP_GT = 2, /* > */
    SHOAL_CMP_GE = 3, /* >= */
    SHOAL_CMP_LT = 4, /* < */
    SHOAL_CMP_LE = 5  /* <= */
};

/* OpenSHMEM's standard atomic types: X(TYPE, NAME). */
#define SHOAL_AMO_TYPES(X)                                                                                             \
    X(int, int)                                                                                                        \
    X(long, long)                                                                                                      \
    X(long long, longlong)                                                                                             \
    X(unsigned int, uint)                                                                                              \
    X(unsigned long, ulong)                                                                                            \
    X(unsigned long long, ulonglong)                                                                                   \
    X(int32_t, int32)                                                                                                  \
    X(int64_t, int64)                                                                                                  \
    X(uint32_t, uint32)                                                                                                \
    X(uint64_t, uint64)                                                                                                \
    X(size_t, size)                                                                                                    \
    X(ptrdiff_t, ptrdiff)
/* The extended types: fetch, set and swap only. */
#define SHOAL_AMO_EXT_TYPES(X)                                                                                         \
    X(float, float)                                                                                                    \
    X(double, double)
/* The bitwise types: and, or, xor as well. */
#define SHOAL_AMO_BITWISE_TYPES(X)                                                                                     \
    X(unsigned int, uint)                                                                                              \
    X(unsigned long, ulong)                                                                                            \
    X(unsigned long long, ulonglong)                                                                                   \
    X(int32_t, int32)                                                                                                  \
    X(int64_t, int64)                                                                                                  \
    X(uint32_t, uint32)                                                                                                \
    X(uint64_t, uint64)
/* The types of wait_until and test. */
#define SHOAL_WAIT_TYPES(X)                                                                                            \
    X(short, short)                                                                                                    \
    X(int, int)                                                                                                        \
    X(long, long)                                                                                                      \
    X(long long, longlong)                                                                                             \
    X(unsigned short, ushort)                                                                                          \
    X(unsigned int, uint)                                                                                              \
    X(unsigned long, ulong)                                                                                            \
    X(unsigned long long, ulonglong)                                                                                   \
    X(int32_t, int32)                                                                                                  \
    X(int64_t, int64)                                                                                                  \
    X(uint32_t, uint32)                                                                                                \
    X(uint64_t, uint64)                                                                                                \
    X(size_t, size)                                                                                                    \
    X(ptrdiff_t, ptrdiff)

/* Atomics on pe's copy of a symmetric word. fetch returns its value, set
 * stores, swap stores and returns the old value, compare_swap stores value
 * where the word equals cond and returns the old value either way. The
 * fetching calls return with *old_p / *value_p filled; their _nbi forms
 * fill it by the next shoal_quiet (the pointer must stay valid until then).
 * The others (set, inc, add, and, or, xor) are complete at shoal_quiet, like
 * a put; shoal_fence orders them with the puts to the same PE. */
#define SHOAL__AMO_EXT_DECL(T, N)                                                                                      \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch(shoal_t sh, const T *src, int pe, T *value_p);                           \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_nbi(shoal_t sh, const T *src, int pe, T *value_p);                       \
    SHOAL_EXPORT int shoal_##N##_atomic_set(shoal_t sh, T *dest, T value, int pe);                                     \
    SHOAL_EXPORT int shoal_##N##_atomic_swap(shoal_t sh, T *dest, T value, int pe, T *old_p);                          \
    SHOAL_EXPORT int shoal_##N##_atomic_swap_nbi(shoal_t sh, T *dest, T value, int pe, T *old_p);
#define SHOAL__AMO_STD_DECL(T, N)                                                                                      \
    SHOAL__AMO_EXT_DECL(T, N)                                                                                          \
    SHOAL_EXPORT int shoal_##N##_atomic_compare_swap(shoal_t sh, T *dest, T cond, T value, int pe, T *old_p);          \
    SHOAL_EXPORT int shoal_##N##_atomic_compare_swap_nbi(shoal_t sh, T *dest, T cond, T value, int pe, T *old_p);      \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_inc(shoal_t sh, T *dest, int pe, T *old_p);                              \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_inc_nbi(shoal_t sh, T *dest, int pe, T *old_p);                          \
    SHOAL_EXPORT int shoal_##N##_atomic_inc(shoal_t sh, T *dest, int pe);                                              \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_add(shoal_t sh, T *dest, T value, int pe, T *old_p);                     \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_add_nbi(shoal_t sh, T *dest, T value, int pe, T *old_p);                 \
    SHOAL_EXPORT int shoal_##N##_atomic_add(shoal_t sh, T *dest, T value, int pe);
#define SHOAL__AMO_BIT_DECL(T, N)                                                                                      \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_and(shoal_t sh, T *dest, T value, int pe, T *old_p);                     \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_and_nbi(shoal_t sh, T *dest, T value, int pe, T *old_p);                 \
    SHOAL_EXPORT int shoal_##N##_atomic_and(shoal_t sh, T *dest, T value, int pe);                                     \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_or(shoal_t sh, T *dest, T value, int pe, T *old_p);                      \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_or_nbi(shoal_t sh, T *dest, T value, int pe, T *old_p);                  \
    SHOAL_EXPORT int shoal_##N##_atomic_or(shoal_t sh, T *dest, T value, int pe);                                      \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_xor(shoal_t sh, T *dest, T value, int pe, T *old_p);                     \
    SHOAL_EXPORT int shoal_##N##_atomic_fetch_xor_nbi(shoal_t sh, T *dest, T value, int pe, T *old_p);                 \
    SHOAL_EXPORT int shoal_##N##_atomic_xor(shoal_t sh, T *dest, T value, int pe);
SHOAL_AMO_TYPES(SHOAL__AMO_STD_DECL)
SHOAL_AMO_EXT_TYPES(SHOAL__AMO_EXT_DECL)
SHOAL_AMO_BITWISE_TYPES(SHOAL__AMO_BIT_DECL)
#undef SHOAL__AMO_EXT_DECL
#undef SHOAL__AMO_STD_DECL
#undef SHOAL__AMO_BIT_DECL

/* Signals: a symmetric uint64_t word (8-byte aligned). put_signal puts
 * nbytes from src to dest on pe, then changes pe's sig by op
 * (SHOAL_SIGNAL_SET or SHOAL_SIGNAL_ADD) with value: whoever sees the
 * signal change sees the data. Blocking: returns when src may be reused;
 * _nbi: src must stay untouched until shoal_quiet. Both are complete at
 * shoal_quiet. */
SHOAL_EXPORT int shoal_put_signal(shoal_t sh, void *dest, const void *src, size_t nbytes, uint64_t *sig, uint64_t value,
                                  int op, int pe);
SHOAL_EXPORT int shoal_put_signal_nbi(shoal_t sh, void *dest, const void *src, size_t nbytes, uint64_t *sig,
                                      uint64_t value, int op, int pe);
/* Change pe's sig by op with value, as put_signal does with no data. */
SHOAL_EXPORT int shoal_signal_op(shoal_t sh, uint64_t *sig, uint64_t value, int op, int pe);
/* This PE's sig, read atomically. */
SHOAL_EXPORT int shoal_signal_fetch(shoal_t sh, const uint64_t *sig, uint64_t *value_p);
/* Wait until this PE's sig <cmp> value; *seen_p (may be NULL): the value
 * that satisfied it. */
SHOAL_EXPORT int shoal_signal_wait_until(shoal_t sh, uint64_t *sig, int cmp, uint64_t value, uint64_t *seen_p);

/* Waits on this PE's symmetric variables that other PEs change (OpenSHMEM
 * 1.5's wait_until and test families; ivar <cmp> value, or values[i] for
 * the _vector forms). status (may be NULL) excludes element i where
 * status[i] is nonzero. wait_until_all returns once every included element
 * satisfies the comparison; _any once one does, its index in *index_p
 * (SIZE_MAX when none is included); _some once at least one does, the
 * indices of all that do in indices[0 .. *count_p) (0 when none is
 * included). The test forms look once and return at once: *flag_p 1 when
 * satisfied (test, test_all: every included element), *index_p (SIZE_MAX:
 * none), *count_p (0: none). A wait gives up after SHOAL_TIMEOUT seconds
 * with SHOAL_ERR_TIMEOUT, naming the variable, the comparison and the last
 * value seen (a missing put or signal, or a wrong flag, on the writer). */
#define SHOAL__WAIT_DECL(T, N)                                                                                         \
    SHOAL_EXPORT int shoal_##N##_wait_until(shoal_t sh, T *ivar, int cmp, T value);                                    \
    SHOAL_EXPORT int shoal_##N##_wait_until_all(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp,       \
                                                T value);                                                              \
    SHOAL_EXPORT int shoal_##N##_wait_until_any(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp,       \
                                                T value, size_t *index_p);                                             \
    SHOAL_EXPORT int shoal_##N##_wait_until_some(shoal_t sh, T *ivars, size_t nelems, size_t *indices,                 \
                                                 const int *status, int cmp, T value, size_t *count_p);                \
    SHOAL_EXPORT int shoal_##N##_wait_until_all_vector(shoal_t sh, T *ivars, size_t nelems, const int *status,         \
                                                       int cmp, const T *values);                                      \
    SHOAL_EXPORT int shoal_##N##_wait_until_any_vector(shoal_t sh, T *ivars, size_t nelems, const int *status,         \
                                                       int cmp, const T *values, size_t *index_p);                     \
    SHOAL_EXPORT int shoal_##N##_wait_until_some_vector(shoal_t sh, T *ivars, size_t nelems, size_t *indices,          \
                                                        const int *status, int cmp, const T *values, size_t *count_p); \
    SHOAL_EXPORT int shoal_##N##_test(shoal_t sh, T *ivar, int cmp, T value, int *flag_p);                             \
    SHOAL_EXPORT int shoal_##N##_test_all(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, T value,    \
                                          int *flag_p);                                                                \
    SHOAL_EXPORT int shoal_##N##_test_any(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp, T value,    \
                                          size_t *index_p);                                                            \
    SHOAL_EXPORT int shoal_##N##_test_some(shoal_t sh, T *ivars, size_t nelems, size_t *indices, const int *status,    \
                                           int cmp, T value, size_t *count_p);                                         \
    SHOAL_EXPORT int shoal_##N##_test_all_vector(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp,      \
                                                 const T *values, int *flag_p);                                        \
    SHOAL_EXPORT int shoal_##N##_test_any_vector(shoal_t sh, T *ivars, size_t nelems, const int *status, int cmp,      \
                                                 const T *values, size_t *index_p);                                    \
    SHOAL_EXPORT int shoal_##N##_test_some_vector(shoal_t sh, T *ivars, size_t nelems, size_t *indices,                \
                                                  const int *status, int cmp, const T *values, size_t *count_p);
SHOAL_WAIT_TYPES(SHOAL__WAIT_DECL)
#undef SHOAL__WAIT_DECL

/* Locks on a symmetric long that every PE set to 0 (OpenSHMEM's
 * set_lock/test_lock/clear_lock): a queue (first come, first served), each
 * waiter watching a word of its own. set_lock returns holding the lock (or
 * SHOAL_ERR_TIMEOUT after SHOAL_TIMEOUT, the queue then broken);
 * test_lock takes it only if free (*got_p 1, else 0); clear_lock completes
 * the holder's puts (a quiet) and hands the lock to the next in line. */
SHOAL_EXPORT int shoal_set_lock(shoal_t sh, long *lock);
SHOAL_EXPORT int shoal_test_lock(shoal_t sh, long *lock, int *got_p);
SHOAL_EXPORT int shoal_clear_lock(shoal_t sh, long *lock);

/* ------------------------------------------------------------------------
 * Teams: ordered subsets of an instance's PEs that collectives run on
 * (OpenSHMEM 1.5 teams). A team's PEs are numbered 0 .. n-1 in the order of
 * their PEs in the parent. shoal_team_world (every PE) and shoal_team_node
 * (the PEs of this PE's node: shared memory, or a SHOAL_NODE_SIZE block)
 * exist from shoal_init to shoal_finalize and are never destroyed. Splits
 * are collective over the parent: every parent PE calls with the same
 * arguments (else SHOAL_ERR_NOT_SYMMETRIC on every PE, naming the PEs and
 * what each passed); a PE outside the new team gets SHOAL_TEAM_INVALID
 * (and SHOAL_SUCCESS). At most SHOAL_TEAM_MAX teams, world and node
 * included, exist on a PE at once. A team lives until shoal_team_destroy
 * (collective over the team) or shoal_finalize. Calls on an invalid team
 * return SHOAL_ERR_INVALID_ARG (-1, as OpenSHMEM's my_pe and n_pes do). */
typedef struct shoal_team *shoal_team_t;
#define SHOAL_TEAM_INVALID ((shoal_team_t)0)
#define SHOAL_TEAM_MAX 64

SHOAL_EXPORT shoal_team_t shoal_team_world(shoal_t sh);
SHOAL_EXPORT shoal_team_t shoal_team_node(shoal_t sh);
/* This PE's number in team, and the team's size. */
SHOAL_EXPORT int shoal_team_my_pe(shoal_team_t team);
SHOAL_EXPORT int shoal_team_n_pes(shoal_team_t team);
/* The number in dest_team of src_team's PE pe, or -1 where it is not a
 * member (or an argument is invalid). */
SHOAL_EXPORT int shoal_team_translate_pe(shoal_team_t src_team, int pe, shoal_team_t dest_team);
/* The instance a team belongs to (NULL for an invalid team). */
SHOAL_EXPORT shoal_t shoal_team_instance(shoal_team_t team);
/* The parent's PEs start, start + stride, ... (size of them; stride may be
 * negative, not 0 unless size is 1). */
SHOAL_EXPORT int shoal_team_split_strided(shoal_team_t parent, int start, int stride, int size, shoal_team_t *new_p);
/* The parent as a grid of rows of xrange PEs (the last row may be short):
 * *xteam_p gets this PE's row, *yteam_p its column. */
SHOAL_EXPORT int shoal_team_split_2d(shoal_team_t parent, int xrange, shoal_team_t *xteam_p, shoal_team_t *yteam_p);
/* A team that its members make alone: the instance's PEs start, start +
 * stride, ... (size of them, in that order; stride at least 1, any for
 * size 1). Collective over those PEs only: each of them calls it with the
 * same arguments, and the other PEs of the instance take no part (they may
 * be in any call meanwhile). The caller must be a member (else
 * SHOAL_ERR_INVALID_ARG, at once, as for arguments naming PEs that do not
 * exist). Members that pass different arguments get
 * SHOAL_ERR_NOT_SYMMETRIC, naming the lowest member's and the other's;
 * members that never call, SHOAL_ERR_TIMEOUT after SHOAL_TIMEOUT, naming
 * one (the lowest member waits for the others, which wait up to twice as
 * long for its answer). The team takes the lowest id free on every member,
 * which teams without a common PE may share. It ends as the others do:
 * shoal_team_destroy (collective over its members) or shoal_finalize. */
SHOAL_EXPORT int shoal_team_create_strided(shoal_t sh, int start, int stride, int size, shoal_team_t *new_p);
/* Collective over the team: every member arrives (no completion of
 * outstanding operations). */
SHOAL_EXPORT int shoal_team_sync(shoal_team_t team);
/* Collective over the team: quiet, every member arrives, every put of the
 * members before it is visible after it. */
SHOAL_EXPORT int shoal_team_barrier(shoal_team_t team);
/* Collective over the team; world and node refuse (SHOAL_ERR_INVALID_ARG). */
SHOAL_EXPORT int shoal_team_destroy(shoal_team_t team);

/* ------------------------------------------------------------------------
 * Collectives on a team (OpenSHMEM 1.5 team-based collectives). Every
 * member calls with the same counts, root, type and op (else
 * SHOAL_ERR_NOT_SYMMETRIC on every member, naming the PEs and what each
 * passed; dest is then undefined) and dest and src symmetric: allocated with
 * shoal_malloc, the same allocation on every member. They return when this
 * PE's dest holds the result and src may be reused. dest of broadcast,
 * collect, fcollect and alltoall(s) must not be in use on any member when
 * the first member enters (puts may reach it before its owner enters the
 * call), and must not overlap src. Sizes of 0 are allowed (the members still
 * meet).
 *   broadcast  nelems elements of root's src (root: a team PE number) into
 *              every member's dest, root's own included
 *   collect    every member's src (its own nelems; they may differ) into
 *              dest, in team order
 *   fcollect   the same with one nelems for all
 *   alltoall   block j (nelems elements) of member i's src into block i of
 *              member j's dest
 *   alltoalls  the same with element strides: element k of a block at
 *              k * sst in src and k * dst in dest (strides at least 1)
 *   <op>_reduce  element-wise reduction of every member's src (nreduce
 *              elements) into every member's dest; dest may equal src
 *              (in place) but not overlap it otherwise
 *   <op>_reducescatter  src holds n_pes blocks of nreduce elements (block
 *              j for team PE j): member j's dest (nreduce elements) gets
 *              the element-wise reduction of block j of every member's
 *              src; dest must not overlap src. */
#define SHOAL__COLL_DECL(T, N)                                                                                         \
    SHOAL_EXPORT int shoal_##N##_broadcast(shoal_team_t team, T *dest, const T *src, size_t nelems, int root);         \
    SHOAL_EXPORT int shoal_##N##_collect(shoal_team_t team, T *dest, const T *src, size_t nelems);                     \
    SHOAL_EXPORT int shoal_##N##_fcollect(shoal_team_t team, T *dest, const T *src, size_t nelems);                    \
    SHOAL_EXPORT int shoal_##N##_alltoall(shoal_team_t team, T *dest, const T *src, size_t nelems);                    \
    SHOAL_EXPORT int shoal_##N##_alltoalls(shoal_team_t team, T *dest, const T *src, ptrdiff_t dst, ptrdiff_t sst,     \
                                           size_t nelems);
SHOAL_RMA_TYPES(SHOAL__COLL_DECL)
SHOAL_HALF_TYPES(SHOAL__COLL_DECL)
#undef SHOAL__COLL_DECL
/* The same on bytes. */
SHOAL_EXPORT int shoal_broadcastmem(shoal_team_t team, void *dest, const void *src, size_t nbytes, int root);
SHOAL_EXPORT int shoal_collectmem(shoal_team_t team, void *dest, const void *src, size_t nbytes);
SHOAL_EXPORT int shoal_fcollectmem(shoal_team_t team, void *dest, const void *src, size_t nbytes);
SHOAL_EXPORT int shoal_alltoallmem(shoal_team_t team, void *dest, const void *src, size_t nbytes);
SHOAL_EXPORT int shoal_alltoallsmem(shoal_team_t team, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                                    size_t nbytes);

/* Reduction types (OpenSHMEM 1.5): X(TYPE, NAME). and, or, xor: */
#define SHOAL_REDUCE_BITWISE_TYPES(X)                                                                                  \
    X(unsigned char, uchar)                                                                                            \
    X(unsigned short, ushort)                                                                                          \
    X(unsigned int, uint)                                                                                              \
    X(unsigned long, ulong)                                                                                            \
    X(unsigned long long, ulonglong)                                                                                   \
    X(int8_t, int8)                                                                                                    \
    X(int16_t, int16)                                                                                                  \
    X(int32_t, int32)                                                                                                  \
    X(int64_t, int64)                                                                                                  \
    X(uint8_t, uint8)                                                                                                  \
    X(uint16_t, uint16)                                                                                                \
    X(uint32_t, uint32)                                                                                                \
    X(uint64_t, uint64)                                                                                                \
    X(size_t, size)
/* min, max, sum, prod (also for SHOAL_HALF_TYPES, a list apart: NVSHMEM's): */
#define SHOAL_REDUCE_ARITH_TYPES(X) SHOAL_REDUCE_ARITH_STD_TYPES(X) X(long double, longdouble)
/* The same without long double (those kernels can reduce too). */
#define SHOAL_REDUCE_ARITH_STD_TYPES(X)                                                                                \
    X(char, char)                                                                                                      \
    X(signed char, schar)                                                                                              \
    X(short, short)                                                                                                    \
    X(int, int)                                                                                                        \
    X(long, long)                                                                                                      \
    X(long long, longlong)                                                                                             \
    X(ptrdiff_t, ptrdiff)                                                                                              \
    SHOAL_REDUCE_BITWISE_TYPES(X)                                                                                      \
    X(float, float)                                                                                                    \
    X(double, double)
/* sum and prod also (C only: C++ has no _Complex): */
#define SHOAL_REDUCE_COMPLEX_TYPES(X)                                                                                  \
    X(double _Complex, complexd)                                                                                       \
    X(float _Complex, complexf)

/* Reduction operators: X(NAME). */
#define SHOAL_REDUCE_BITWISE_OPS(X) X(and) X(or) X(xor)
#define SHOAL_REDUCE_ARITH_OPS(X) X(min) X(max) X(sum) X(prod)
#define SHOAL_REDUCE_COMPLEX_OPS(X) X(sum) X(prod)

#define SHOAL__REDUCE_DECL1(T, N, OP)                                                                                  \
    SHOAL_EXPORT int shoal_##N##_##OP##_reduce(shoal_team_t team, T *dest, const T *src, size_t nreduce);              \
    SHOAL_EXPORT int shoal_##N##_##OP##_reducescatter(shoal_team_t team, T *dest, const T *src, size_t nreduce);
#define SHOAL__REDUCE_BIT_DECL(T, N)                                                                                   \
    SHOAL__REDUCE_DECL1(T, N, and) SHOAL__REDUCE_DECL1(T, N, or) SHOAL__REDUCE_DECL1(T, N, xor)
#define SHOAL__REDUCE_ARITH_DECL(T, N)                                                                                 \
    SHOAL__REDUCE_DECL1(T, N, min)                                                                                     \
    SHOAL__REDUCE_DECL1(T, N, max) SHOAL__REDUCE_DECL1(T, N, sum) SHOAL__REDUCE_DECL1(T, N, prod)
#define SHOAL__REDUCE_CPLX_DECL(T, N) SHOAL__REDUCE_DECL1(T, N, sum) SHOAL__REDUCE_DECL1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(SHOAL__REDUCE_BIT_DECL)
SHOAL_REDUCE_ARITH_TYPES(SHOAL__REDUCE_ARITH_DECL)
SHOAL_HALF_TYPES(SHOAL__REDUCE_ARITH_DECL)
#ifndef __cplusplus
SHOAL_REDUCE_COMPLEX_TYPES(SHOAL__REDUCE_CPLX_DECL)
#endif
#undef SHOAL__REDUCE_BIT_DECL
#undef SHOAL__REDUCE_ARITH_DECL
#undef SHOAL__REDUCE_CPLX_DECL
#undef SHOAL__REDUCE_DECL1

/* Names a status ("SHOAL_ERR_TIMEOUT: timed out waiting for other PEs"). */
SHOAL_EXPORT const char *shoal_strerror(int status);
/* The last error on this instance (or, for NULL, the last error of a call
 * that had no instance, such as a failed shoal_init); "" when none. Per
 * thread: a thread sees its own last error on sh (else the instance's last
 * error); the text stays valid until this thread's next shoal call. */
SHOAL_EXPORT const char *shoal_last_error(shoal_t sh);
/* The status of that same last error (SHOAL_SUCCESS when none): what a call
 * that returns a pointer (shoal_malloc, shoal_calloc, shoal_align: NULL on
 * failure) failed with. Like errno, both keep the last failure's values
 * after later calls succeed: read them right after a failing call. */
SHOAL_EXPORT int shoal_last_status(shoal_t sh);

/* The transport used towards pe: "self", "shm", "cuda_ipc", "staged", "mpi_rma". */
SHOAL_EXPORT int shoal_pe_transport(shoal_t sh, int pe, const char **name_p);
/* The node (0-based, in order of the lowest rank) pe belongs to. */
SHOAL_EXPORT int shoal_pe_node(shoal_t sh, int pe);

/* Whether pe's GPU heap is on this PE's GPU (PEs of one node; one GPU by its
 * UUID, else its PCI bus id). Such PEs work together in every host and
 * stream-ordered call, but the kernels of two processes on one GPU run side
 * by side only under MPS (CUDA Multi-Process Service): without it they take
 * turns by time slices, and a kernel that waits for pe's kernel (a device
 * barrier, a signal wait) advances only every few milliseconds. */
enum {
    SHOAL_GPU_SEPARATE = 0,   /* pe is this PE, or its heap is on another GPU, another node, or the host */
    SHOAL_GPU_SHARED_MPS = 1, /* this PE's GPU, MPS active for both PEs: their kernels run side by side */
    SHOAL_GPU_SHARED = 2      /* this PE's GPU, MPS not active for one of them (or both) */
};
/* SHOAL_GPU_SEPARATE, SHOAL_GPU_SHARED_MPS or SHOAL_GPU_SHARED (a status
 * below 0 on a bad instance or PE). */
SHOAL_EXPORT int shoal_pe_gpu_shared(shoal_t sh, int pe);
/* pe's GPU as its node published it at shoal_init, in *bus_id_p: a PCI bus
 * id ("0000:19:00.0", as CUDA writes it) that shoal_topo_gpu_find maps to the
 * GPU's index in the node's topology; "" for a host heap, a PE of another
 * node, or a build without CUDA. The text lives as long as the instance;
 * *bus_id_p is "" after an error (SHOAL_ERR_PE for a bad pe). */
SHOAL_EXPORT int shoal_pe_gpu_bus_id(shoal_t sh, int pe, const char **bus_id_p);

/* Runtime version (SHOAL_VERSION of the library actually loaded). */
SHOAL_EXPORT int shoal_version(void);
/* Print every SHOAL_* environment variable, its value (marked INVALID, with
 * what is expected, where shoal_init would refuse it) and its doc.
 * `shoal-topo --env` prints the same. */
SHOAL_EXPORT void shoal_env_print(FILE *out);

#ifdef __cplusplus
}
#endif
#endif /* SHOAL_H */
