/* OpenSHMEM 1.5's communication routines on shoal (api/shmem/shmem.h): RMA,
 * signals, atomics, waits, locks, ordering and collectives, each family
 * written once over shoal's type tables, each routine one call into
 * shoal's native API. A context's PE numbers are its team's. */
#include <stdio.h>
#include <stdlib.h>

#include "shmem_internal.h"
#include "team/shoal_reduce.h"
#include "team/shoal_team.h"
#include "base/shoal_instance.h"
#include "ops/shoal_rma.h"

/* The instance PE of ctx's PE pe. */
static inline int shmem__pe(shmem_ctx_t ctx, int pe, const char *call)
{
    if (__builtin_expect(ctx == SHMEM_CTX_INVALID || ctx->magic != SHMEM__CTX_MAGIC, 0)) {
        fprintf(stderr, "%s: %p is not a context (SHMEM_CTX_INVALID, or destroyed)\n", call, (void *)ctx);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    SHMEM__NEED(call);
    if (ctx == SHMEM_CTX_DEFAULT || ctx->team == shmem__team_world) return pe;
    return shoal_team_translate_pe(ctx->team, pe, shmem__team_world);
}
/* The byte-wise puts and gets call shoal's data path directly, with the
 * checks of shoal_put's entry made here (one call less on the layer's
 * hottest path), and errors name the OpenSHMEM call. */
static inline int shmem__rma(const char *call, bool is_put, void *dest, const void *source, size_t nelems, int pe,
                             int nbi)
{
    SHOAL__ENTER(shmem__sh, call);
    return shoal__rma(shmem__sh, call, is_put, dest, source, nelems, pe, nbi);
}

#define SHMEM__DEF_PE(call, pe) shmem__pe(SHMEM_CTX_DEFAULT, (pe), (call))

/* ------------------------------------------------------------------- RMA */

#define SHMEM__RMA_DEF(T, N)                                                                                           \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)                         \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_put";                                                                  \
        SHMEM__OK(call, shoal_##N##_put(shmem__sh, dest, source, nelems, shmem__pe(ctx, pe, call)));                   \
    }                                                                                                                  \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                                              \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_put");                                                                               \
        SHMEM__OK("shmem_" #N "_put", shoal_##N##_put(shmem__sh, dest, source, nelems, pe));                           \
    }                                                                                                                  \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)                         \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_get";                                                                  \
        SHMEM__OK(call, shoal_##N##_get(shmem__sh, dest, source, nelems, shmem__pe(ctx, pe, call)));                   \
    }                                                                                                                  \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                                              \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_get");                                                                               \
        SHMEM__OK("shmem_" #N "_get", shoal_##N##_get(shmem__sh, dest, source, nelems, pe));                           \
    }                                                                                                                  \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)                     \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_put_nbi";                                                              \
        SHMEM__OK(call, shoal_##N##_put_nbi(shmem__sh, dest, source, nelems, shmem__pe(ctx, pe, call)));               \
    }                                                                                                                  \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                                          \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_put_nbi");                                                                           \
        SHMEM__OK("shmem_" #N "_put_nbi", shoal_##N##_put_nbi(shmem__sh, dest, source, nelems, pe));                   \
    }                                                                                                                  \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe)                     \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_get_nbi";                                                              \
        SHMEM__OK(call, shoal_##N##_get_nbi(shmem__sh, dest, source, nelems, shmem__pe(ctx, pe, call)));               \
    }                                                                                                                  \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                                          \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_get_nbi");                                                                           \
        SHMEM__OK("shmem_" #N "_get_nbi", shoal_##N##_get_nbi(shmem__sh, dest, source, nelems, pe));                   \
    }                                                                                                                  \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                                                  \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_p";                                                                    \
        SHMEM__OK(call, shoal_##N##_p(shmem__sh, dest, value, shmem__pe(ctx, pe, call)));                              \
    }                                                                                                                  \
    void shmem_##N##_p(T *dest, T value, int pe) { shmem_ctx_##N##_p(SHMEM_CTX_DEFAULT, dest, value, pe); }            \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                                                      \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_g";                                                                    \
        T v;                                                                                                           \
        SHMEM__OK(call, shoal_##N##_g(shmem__sh, &v, source, shmem__pe(ctx, pe, call)));                               \
        return v;                                                                                                      \
    }                                                                                                                  \
    T shmem_##N##_g(const T *source, int pe) { return shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, source, pe); }              \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                              int pe)                                                                                  \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_iput";                                                                 \
        SHMEM__OK(call, shoal_##N##_iput(shmem__sh, dest, source, dst, sst, nelems, shmem__pe(ctx, pe, call)));        \
    }                                                                                                                  \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)               \
    {                                                                                                                  \
        shmem_ctx_##N##_iput(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);                                   \
    }                                                                                                                  \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,  \
                              int pe)                                                                                  \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_iget";                                                                 \
        SHMEM__OK(call, shoal_##N##_iget(shmem__sh, dest, source, dst, sst, nelems, shmem__pe(ctx, pe, call)));        \
    }                                                                                                                  \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)               \
    {                                                                                                                  \
        shmem_ctx_##N##_iget(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);                                   \
    }                                                                                                                  \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,      \
                                    uint64_t signal, int sig_op, int pe)                                               \
    {                                                                                                                  \
        shmem_ctx_putmem_signal(ctx, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);                  \
    }                                                                                                                  \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,          \
                                int sig_op, int pe)                                                                    \
    {                                                                                                                  \
        shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);    \
    }                                                                                                                  \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, uint64_t *sig_addr,  \
                                        uint64_t signal, int sig_op, int pe)                                           \
    {                                                                                                                  \
        shmem_ctx_putmem_signal_nbi(ctx, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe);              \
    }                                                                                                                  \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,      \
                                    int sig_op, int pe)                                                                \
    {                                                                                                                  \
        shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op,     \
                                    pe);                                                                               \
    }
SHOAL_RMA_TYPES(SHMEM__RMA_DEF)
#undef SHMEM__RMA_DEF

/* Bytes. */
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    static const char *call = "shmem_putmem";
    SHMEM__OK(call, shmem__rma(call, true, dest, source, nelems, shmem__pe(ctx, pe, call), 0));
}
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    SHMEM__NEED("shmem_putmem");
    SHMEM__OK("shmem_putmem", shmem__rma("shmem_putmem", true, dest, source, nelems, pe, 0));
}
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    static const char *call = "shmem_getmem";
    SHMEM__OK(call, shmem__rma(call, false, dest, source, nelems, shmem__pe(ctx, pe, call), 0));
}
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    SHMEM__NEED("shmem_getmem");
    SHMEM__OK("shmem_getmem", shmem__rma("shmem_getmem", false, dest, source, nelems, pe, 0));
}
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    static const char *call = "shmem_putmem_nbi";
    SHMEM__OK(call, shmem__rma(call, true, dest, source, nelems, shmem__pe(ctx, pe, call), 1));
}
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    SHMEM__NEED("shmem_putmem_nbi");
    SHMEM__OK("shmem_putmem_nbi", shmem__rma("shmem_putmem_nbi", true, dest, source, nelems, pe, 1));
}
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    static const char *call = "shmem_getmem_nbi";
    SHMEM__OK(call, shmem__rma(call, false, dest, source, nelems, shmem__pe(ctx, pe, call), 1));
}
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    SHMEM__NEED("shmem_getmem_nbi");
    SHMEM__OK("shmem_getmem_nbi", shmem__rma("shmem_getmem_nbi", false, dest, source, nelems, pe, 1));
}
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe)
{
    static const char *call = "shmem_putmem_signal";
    SHMEM__OK(call,
              shoal_put_signal(shmem__sh, dest, source, nelems, sig_addr, signal, sig_op, shmem__pe(ctx, pe, call)));
}
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op,
                         int pe)
{
    shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal, sig_op, pe);
}
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                 uint64_t signal, int sig_op, int pe)
{
    static const char *call = "shmem_putmem_signal_nbi";
    SHMEM__OK(call, shoal_put_signal_nbi(shmem__sh, dest, source, nelems, sig_addr, signal, sig_op,
                                         shmem__pe(ctx, pe, call)));
}
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe)
{
    shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal, sig_op, pe);
}

/* Sized: bytes of BITS-bit elements; strided through shoal's iputBITS. */
#define SHMEM__SIZED_DEF(BITS)                                                                                         \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)                   \
    {                                                                                                                  \
        shmem_ctx_putmem(ctx, dest, source, nelems *(BITS / 8), pe);                                                   \
    }                                                                                                                  \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)                                        \
    {                                                                                                                  \
        shmem_ctx_putmem(SHMEM_CTX_DEFAULT, dest, source, nelems *(BITS / 8), pe);                                     \
    }                                                                                                                  \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)                   \
    {                                                                                                                  \
        shmem_ctx_getmem(ctx, dest, source, nelems *(BITS / 8), pe);                                                   \
    }                                                                                                                  \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)                                        \
    {                                                                                                                  \
        shmem_ctx_getmem(SHMEM_CTX_DEFAULT, dest, source, nelems *(BITS / 8), pe);                                     \
    }                                                                                                                  \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)             \
    {                                                                                                                  \
        shmem_ctx_putmem_nbi(ctx, dest, source, nelems *(BITS / 8), pe);                                               \
    }                                                                                                                  \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)                                  \
    {                                                                                                                  \
        shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems *(BITS / 8), pe);                                 \
    }                                                                                                                  \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)             \
    {                                                                                                                  \
        shmem_ctx_getmem_nbi(ctx, dest, source, nelems *(BITS / 8), pe);                                               \
    }                                                                                                                  \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)                                  \
    {                                                                                                                  \
        shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems *(BITS / 8), pe);                                 \
    }                                                                                                                  \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,           \
                              size_t nelems, int pe)                                                                   \
    {                                                                                                                  \
        static const char *call = "shmem_iput" #BITS;                                                                  \
        SHMEM__OK(call, shoal_iput##BITS(shmem__sh, dest, source, dst, sst, nelems, shmem__pe(ctx, pe, call)));        \
    }                                                                                                                  \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                                                  \
        shmem_ctx_iput##BITS(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);                                   \
    }                                                                                                                  \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,           \
                              size_t nelems, int pe)                                                                   \
    {                                                                                                                  \
        static const char *call = "shmem_iget" #BITS;                                                                  \
        SHMEM__OK(call, shoal_iget##BITS(shmem__sh, dest, source, dst, sst, nelems, shmem__pe(ctx, pe, call)));        \
    }                                                                                                                  \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)         \
    {                                                                                                                  \
        shmem_ctx_iget##BITS(SHMEM_CTX_DEFAULT, dest, source, dst, sst, nelems, pe);                                   \
    }                                                                                                                  \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,                  \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                         \
    {                                                                                                                  \
        shmem_ctx_putmem_signal(ctx, dest, source, nelems *(BITS / 8), sig_addr, signal, sig_op, pe);                  \
    }                                                                                                                  \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                  int sig_op, int pe)                                                                  \
    {                                                                                                                  \
        shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, dest, source, nelems *(BITS / 8), sig_addr, signal, sig_op, pe);    \
    }                                                                                                                  \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,              \
                                          uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)                     \
    {                                                                                                                  \
        shmem_ctx_putmem_signal_nbi(ctx, dest, source, nelems *(BITS / 8), sig_addr, signal, sig_op, pe);              \
    }                                                                                                                  \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,               \
                                      uint64_t signal, int sig_op, int pe)                                             \
    {                                                                                                                  \
        shmem_ctx_putmem_signal_nbi(SHMEM_CTX_DEFAULT, dest, source, nelems *(BITS / 8), sig_addr, signal, sig_op,     \
                                    pe);                                                                               \
    }
SHMEM__SIZES(SHMEM__SIZED_DEF)
#undef SHMEM__SIZED_DEF

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t v = 0;
    SHMEM__NEED("shmem_signal_fetch");
    SHMEM__OK("shmem_signal_fetch", shoal_signal_fetch(shmem__sh, sig_addr, &v));
    return v;
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    uint64_t seen = 0;
    SHMEM__NEED("shmem_signal_wait_until");
    SHMEM__OK("shmem_signal_wait_until", shoal_signal_wait_until(shmem__sh, sig_addr, cmp, cmp_value, &seen));
    return seen;
}

/* --------------------------------------------------------------- atomics */

/* A fetching atomic with its result: blocking (T f(...)) and _nbi (into *fetch). */
#define SHMEM__AMO_FETCHING(T, N, OP, PARAMS, ARGS)                                                                    \
    T shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest PARAMS, int pe)                                             \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_atomic_" #OP;                                                          \
        T old;                                                                                                         \
        SHMEM__OK(call, shoal_##N##_atomic_##OP(shmem__sh, dest ARGS, shmem__pe(ctx, pe, call), &old));                \
        return old;                                                                                                    \
    }                                                                                                                  \
    T shmem_##N##_atomic_##OP(T *dest PARAMS, int pe)                                                                  \
    {                                                                                                                  \
        return shmem_ctx_##N##_atomic_##OP(SHMEM_CTX_DEFAULT, dest ARGS, pe);                                          \
    }                                                                                                                  \
    void shmem_ctx_##N##_atomic_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest PARAMS, int pe)                          \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_atomic_" #OP "_nbi";                                                   \
        SHMEM__OK(call, shoal_##N##_atomic_##OP##_nbi(shmem__sh, dest ARGS, shmem__pe(ctx, pe, call), fetch));         \
    }                                                                                                                  \
    void shmem_##N##_atomic_##OP##_nbi(T *fetch, T *dest PARAMS, int pe)                                               \
    {                                                                                                                  \
        shmem_ctx_##N##_atomic_##OP##_nbi(SHMEM_CTX_DEFAULT, fetch, dest ARGS, pe);                                    \
    }
/* A non-fetching atomic. */
#define SHMEM__AMO_PLAIN(T, N, OP, PARAMS, ARGS)                                                                       \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest PARAMS, int pe)                                          \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_atomic_" #OP;                                                          \
        SHMEM__OK(call, shoal_##N##_atomic_##OP(shmem__sh, dest ARGS, shmem__pe(ctx, pe, call)));                      \
    }                                                                                                                  \
    void shmem_##N##_atomic_##OP(T *dest PARAMS, int pe)                                                               \
    {                                                                                                                  \
        shmem_ctx_##N##_atomic_##OP(SHMEM_CTX_DEFAULT, dest ARGS, pe);                                                 \
    }
#define SHMEM__P1(T) , T value
#define SHMEM__A1 , value
#define SHMEM__P2(T) , T cond, T value
#define SHMEM__A2 , cond, value
#define SHMEM__NOTHING

#define SHMEM__AMO_EXT_DEF(T, N)                                                                                       \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe)                                           \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_atomic_fetch";                                                         \
        T v;                                                                                                           \
        SHMEM__OK(call, shoal_##N##_atomic_fetch(shmem__sh, source, shmem__pe(ctx, pe, call), &v));                    \
        return v;                                                                                                      \
    }                                                                                                                  \
    T shmem_##N##_atomic_fetch(const T *source, int pe)                                                                \
    {                                                                                                                  \
        return shmem_ctx_##N##_atomic_fetch(SHMEM_CTX_DEFAULT, source, pe);                                            \
    }                                                                                                                  \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe)                          \
    {                                                                                                                  \
        static const char *call = "shmem_" #N "_atomic_fetch_nbi";                                                     \
        SHMEM__OK(call, shoal_##N##_atomic_fetch_nbi(shmem__sh, source, shmem__pe(ctx, pe, call), fetch));             \
    }                                                                                                                  \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)                                               \
    {                                                                                                                  \
        shmem_ctx_##N##_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, fetch, source, pe);                                        \
    }                                                                                                                  \
    SHMEM__AMO_PLAIN(T, N, set, SHMEM__P1(T), SHMEM__A1)                                                               \
    SHMEM__AMO_FETCHING(T, N, swap, SHMEM__P1(T), SHMEM__A1)
#define SHMEM__AMO_STD_DEF(T, N)                                                                                       \
    SHMEM__AMO_EXT_DEF(T, N)                                                                                           \
    SHMEM__AMO_FETCHING(T, N, compare_swap, SHMEM__P2(T), SHMEM__A2)                                                   \
    SHMEM__AMO_FETCHING(T, N, fetch_inc, SHMEM__NOTHING, SHMEM__NOTHING)                                               \
    SHMEM__AMO_PLAIN(T, N, inc, SHMEM__NOTHING, SHMEM__NOTHING)                                                        \
    SHMEM__AMO_FETCHING(T, N, fetch_add, SHMEM__P1(T), SHMEM__A1)                                                      \
    SHMEM__AMO_PLAIN(T, N, add, SHMEM__P1(T), SHMEM__A1)
#define SHMEM__AMO_BIT_DEF(T, N)                                                                                       \
    SHMEM__AMO_FETCHING(T, N, fetch_and, SHMEM__P1(T), SHMEM__A1)                                                      \
    SHMEM__AMO_PLAIN(T, N, and, SHMEM__P1(T), SHMEM__A1)                                                               \
    SHMEM__AMO_FETCHING(T, N, fetch_or, SHMEM__P1(T), SHMEM__A1)                                                       \
    SHMEM__AMO_PLAIN(T, N, or, SHMEM__P1(T), SHMEM__A1)                                                                \
    SHMEM__AMO_FETCHING(T, N, fetch_xor, SHMEM__P1(T), SHMEM__A1)                                                      \
    SHMEM__AMO_PLAIN(T, N, xor, SHMEM__P1(T), SHMEM__A1)
SHOAL_AMO_TYPES(SHMEM__AMO_STD_DEF)
SHOAL_AMO_EXT_TYPES(SHMEM__AMO_EXT_DEF)
SHOAL_AMO_BITWISE_TYPES(SHMEM__AMO_BIT_DEF)

/* ------------------------------------------------------ wait_until, test */

#define SHMEM__WAIT_DEF(T, N)                                                                                          \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                                         \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_wait_until");                                                                        \
        SHMEM__OK("shmem_" #N "_wait_until", shoal_##N##_wait_until(shmem__sh, ivar, cmp, cmp_value));                 \
    }                                                                                                                  \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)                  \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_wait_until_all");                                                                    \
        SHMEM__OK("shmem_" #N "_wait_until_all",                                                                       \
                  shoal_##N##_wait_until_all(shmem__sh, ivars, nelems, status, cmp, cmp_value));                       \
    }                                                                                                                  \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)                \
    {                                                                                                                  \
        size_t i = SIZE_MAX;                                                                                           \
        SHMEM__NEED("shmem_" #N "_wait_until_any");                                                                    \
        SHMEM__OK("shmem_" #N "_wait_until_any",                                                                       \
                  shoal_##N##_wait_until_any(shmem__sh, ivars, nelems, status, cmp, cmp_value, &i));                   \
        return i;                                                                                                      \
    }                                                                                                                  \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,           \
                                       T cmp_value)                                                                    \
    {                                                                                                                  \
        size_t c = 0;                                                                                                  \
        SHMEM__NEED("shmem_" #N "_wait_until_some");                                                                   \
        SHMEM__OK("shmem_" #N "_wait_until_some",                                                                      \
                  shoal_##N##_wait_until_some(shmem__sh, ivars, nelems, indices, status, cmp, cmp_value, &c));         \
        return c;                                                                                                      \
    }                                                                                                                  \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values)   \
    {                                                                                                                  \
        SHMEM__NEED("shmem_" #N "_wait_until_all_vector");                                                             \
        SHMEM__OK("shmem_" #N "_wait_until_all_vector",                                                                \
                  shoal_##N##_wait_until_all_vector(shmem__sh, ivars, nelems, status, cmp, cmp_values));               \
    }                                                                                                                  \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values) \
    {                                                                                                                  \
        size_t i = SIZE_MAX;                                                                                           \
        SHMEM__NEED("shmem_" #N "_wait_until_any_vector");                                                             \
        SHMEM__OK("shmem_" #N "_wait_until_any_vector",                                                                \
                  shoal_##N##_wait_until_any_vector(shmem__sh, ivars, nelems, status, cmp, cmp_values, &i));           \
        return i;                                                                                                      \
    }                                                                                                                  \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,    \
                                              const T *cmp_values)                                                     \
    {                                                                                                                  \
        size_t c = 0;                                                                                                  \
        SHMEM__NEED("shmem_" #N "_wait_until_some_vector");                                                            \
        SHMEM__OK("shmem_" #N "_wait_until_some_vector",                                                               \
                  shoal_##N##_wait_until_some_vector(shmem__sh, ivars, nelems, indices, status, cmp, cmp_values, &c)); \
        return c;                                                                                                      \
    }                                                                                                                  \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                                                \
    {                                                                                                                  \
        int f = 0;                                                                                                     \
        SHMEM__NEED("shmem_" #N "_test");                                                                              \
        SHMEM__OK("shmem_" #N "_test", shoal_##N##_test(shmem__sh, ivar, cmp, cmp_value, &f));                         \
        return f;                                                                                                      \
    }                                                                                                                  \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)                         \
    {                                                                                                                  \
        int f = 0;                                                                                                     \
        SHMEM__NEED("shmem_" #N "_test_all");                                                                          \
        SHMEM__OK("shmem_" #N "_test_all",                                                                             \
                  shoal_##N##_test_all(shmem__sh, ivars, nelems, status, cmp, cmp_value, &f));                         \
        return f;                                                                                                      \
    }                                                                                                                  \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)                      \
    {                                                                                                                  \
        size_t i = SIZE_MAX;                                                                                           \
        SHMEM__NEED("shmem_" #N "_test_any");                                                                          \
        SHMEM__OK("shmem_" #N "_test_any",                                                                             \
                  shoal_##N##_test_any(shmem__sh, ivars, nelems, status, cmp, cmp_value, &i));                         \
        return i;                                                                                                      \
    }                                                                                                                  \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp, T cmp_value)    \
    {                                                                                                                  \
        size_t c = 0;                                                                                                  \
        SHMEM__NEED("shmem_" #N "_test_some");                                                                         \
        SHMEM__OK("shmem_" #N "_test_some",                                                                            \
                  shoal_##N##_test_some(shmem__sh, ivars, nelems, indices, status, cmp, cmp_value, &c));               \
        return c;                                                                                                      \
    }                                                                                                                  \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values)          \
    {                                                                                                                  \
        int f = 0;                                                                                                     \
        SHMEM__NEED("shmem_" #N "_test_all_vector");                                                                   \
        SHMEM__OK("shmem_" #N "_test_all_vector",                                                                      \
                  shoal_##N##_test_all_vector(shmem__sh, ivars, nelems, status, cmp, cmp_values, &f));                 \
        return f;                                                                                                      \
    }                                                                                                                  \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp, const T *cmp_values)       \
    {                                                                                                                  \
        size_t i = SIZE_MAX;                                                                                           \
        SHMEM__NEED("shmem_" #N "_test_any_vector");                                                                   \
        SHMEM__OK("shmem_" #N "_test_any_vector",                                                                      \
                  shoal_##N##_test_any_vector(shmem__sh, ivars, nelems, status, cmp, cmp_values, &i));                 \
        return i;                                                                                                      \
    }                                                                                                                  \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices, const int *status, int cmp,          \
                                        const T *cmp_values)                                                           \
    {                                                                                                                  \
        size_t c = 0;                                                                                                  \
        SHMEM__NEED("shmem_" #N "_test_some_vector");                                                                  \
        SHMEM__OK("shmem_" #N "_test_some_vector",                                                                     \
                  shoal_##N##_test_some_vector(shmem__sh, ivars, nelems, indices, status, cmp, cmp_values, &c));       \
        return c;                                                                                                      \
    }
SHOAL_WAIT_TYPES(SHMEM__WAIT_DEF)
#undef SHMEM__WAIT_DEF

/* ------------------------------------------------------------------ locks */

void shmem_set_lock(long *lock)
{
    SHMEM__NEED("shmem_set_lock");
    SHMEM__OK("shmem_set_lock", shoal_set_lock(shmem__sh, lock));
}

int shmem_test_lock(long *lock)
{
    int got = 0;
    SHMEM__NEED("shmem_test_lock");
    SHMEM__OK("shmem_test_lock", shoal_test_lock(shmem__sh, lock, &got));
    return got ? 0 : 1; /* OpenSHMEM: 0 when this call took it */
}

void shmem_clear_lock(long *lock)
{
    SHMEM__NEED("shmem_clear_lock");
    SHMEM__OK("shmem_clear_lock", shoal_clear_lock(shmem__sh, lock));
}

/* --------------------------------------------------------------- ordering */

void shmem_quiet(void)
{
    SHMEM__NEED("shmem_quiet");
    SHMEM__OK("shmem_quiet", shoal_quiet(shmem__sh));
}

/* A context's quiet completes its operations (and, sharing the default
 * context's progress, every other of this PE's). SHMEM_CTX_INVALID (what
 * shmem_team_create_ctx gives a PE outside its team) has no operations:
 * its quiet and fence do nothing. */
void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID) return;
    (void)shmem__pe(ctx, 0, "shmem_ctx_quiet");
    shmem_quiet();
}

void shmem_fence(void)
{
    SHMEM__NEED("shmem_fence");
    SHMEM__OK("shmem_fence", shoal_fence(shmem__sh));
}

void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID) return;
    (void)shmem__pe(ctx, 0, "shmem_ctx_fence");
    shmem_fence();
}

void shmem_barrier_all(void)
{
    SHMEM__NEED("shmem_barrier_all");
    SHMEM__OK("shmem_barrier_all", shoal_barrier_all(shmem__sh));
}

void shmem_sync_all(void)
{
    SHMEM__NEED("shmem_sync_all");
    SHMEM__OK("shmem_sync_all", shoal_sync_all(shmem__sh));
}

/* ------------------------------------------------------------ collectives */

/* The team collectives return a status (1.5: zero on success, nonzero
 * otherwise) instead of ending the job: SHMEM_TEAM_INVALID is -1 without
 * a message; a failure prints shoal's message, which names the OpenSHMEM
 * routine, and returns its status. Each runs shoal's collective under the
 * routine's own name. */
static int shmem__coll(shmem_team_t team, const char *call, shoal__coll_args_t a)
{
    SHMEM__NEED(call);
    if (team == SHMEM_TEAM_INVALID) return -1;
    if (!shoal__team_live(team)) return shmem__fail(call, shoal__bad_team(team, call));
    return SHMEM__RET(call, shoal__coll_run(team, call, &a));
}

#define SHMEM__COLL_DEF(T, N)                                                                                          \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems, int PE_root)                 \
    {                                                                                                                  \
        return shmem__coll(team, "shmem_" #N "_broadcast",                                                             \
                           (shoal__coll_args_t){.tc = SHOAL__TC_BCAST,                                                 \
                                                .dt = SHOAL__DT_##N,                                                   \
                                                .dest = dest,                                                          \
                                                .src = source,                                                         \
                                                .nelems = nelems,                                                      \
                                                .root = PE_root});                                                     \
    }                                                                                                                  \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)                                \
    {                                                                                                                  \
        return shmem__coll(team, "shmem_" #N "_collect",                                                               \
                           (shoal__coll_args_t){.tc = SHOAL__TC_COLLECT,                                               \
                                                .dt = SHOAL__DT_##N,                                                   \
                                                .dest = dest,                                                          \
                                                .src = source,                                                         \
                                                .nelems = nelems});                                                    \
    }                                                                                                                  \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)                               \
    {                                                                                                                  \
        return shmem__coll(team, "shmem_" #N "_fcollect",                                                              \
                           (shoal__coll_args_t){.tc = SHOAL__TC_FCOLLECT,                                              \
                                                .dt = SHOAL__DT_##N,                                                   \
                                                .dest = dest,                                                          \
                                                .src = source,                                                         \
                                                .nelems = nelems});                                                    \
    }                                                                                                                  \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)                               \
    {                                                                                                                  \
        return shmem__coll(team, "shmem_" #N "_alltoall",                                                              \
                           (shoal__coll_args_t){.tc = SHOAL__TC_ALLTOALL,                                              \
                                                .dt = SHOAL__DT_##N,                                                   \
                                                .dest = dest,                                                          \
                                                .src = source,                                                         \
                                                .nelems = nelems});                                                    \
    }                                                                                                                  \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,               \
                              size_t nelems)                                                                           \
    {                                                                                                                  \
        return shmem__coll(team, "shmem_" #N "_alltoalls",                                                             \
                           (shoal__coll_args_t){.tc = SHOAL__TC_ALLTOALLS,                                             \
                                                .dt = SHOAL__DT_##N,                                                   \
                                                .dest = dest,                                                          \
                                                .src = source,                                                         \
                                                .nelems = nelems,                                                      \
                                                .dst = dst,                                                            \
                                                .sst = sst});                                                          \
    }
SHOAL_RMA_TYPES(SHMEM__COLL_DEF)
#undef SHMEM__COLL_DEF

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems, int PE_root)
{
    return shmem__coll(team, "shmem_broadcastmem",
                       (shoal__coll_args_t){.tc = SHOAL__TC_BCAST,
                                            .dest = dest,
                                            .src = source,
                                            .nelems = nelems,
                                            .root = PE_root});
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmem__coll(team, "shmem_collectmem",
                       (shoal__coll_args_t){.tc = SHOAL__TC_COLLECT, .dest = dest, .src = source, .nelems = nelems});
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmem__coll(team, "shmem_fcollectmem",
                       (shoal__coll_args_t){.tc = SHOAL__TC_FCOLLECT, .dest = dest, .src = source, .nelems = nelems});
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return shmem__coll(team, "shmem_alltoallmem",
                       (shoal__coll_args_t){.tc = SHOAL__TC_ALLTOALL, .dest = dest, .src = source, .nelems = nelems});
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems)
{
    return shmem__coll(team, "shmem_alltoallsmem",
                       (shoal__coll_args_t){.tc = SHOAL__TC_ALLTOALLS,
                                            .dest = dest,
                                            .src = source,
                                            .nelems = nelems,
                                            .dst = dst,
                                            .sst = sst});
}

#define SHMEM__REDUCE_DEF1(T, N, OP)                                                                                   \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)                         \
    {                                                                                                                  \
        return shmem__coll(team, "shmem_" #N "_" #OP "_reduce",                                                        \
                           (shoal__coll_args_t){.tc = SHOAL__TC_REDUCE,                                                \
                                                .dt = SHOAL__DT_##N,                                                   \
                                                .op = SHOAL__OP_##OP,                                                  \
                                                .dest = dest,                                                          \
                                                .src = source,                                                         \
                                                .nelems = nreduce});                                                   \
    }
#define SHMEM__REDUCE_BIT_DEF(T, N)                                                                                    \
    SHMEM__REDUCE_DEF1(T, N, and) SHMEM__REDUCE_DEF1(T, N, or) SHMEM__REDUCE_DEF1(T, N, xor)
#define SHMEM__REDUCE_ARITH_DEF(T, N)                                                                                  \
    SHMEM__REDUCE_DEF1(T, N, min)                                                                                      \
    SHMEM__REDUCE_DEF1(T, N, max) SHMEM__REDUCE_DEF1(T, N, sum) SHMEM__REDUCE_DEF1(T, N, prod)
#define SHMEM__REDUCE_CPLX_DEF(T, N) SHMEM__REDUCE_DEF1(T, N, sum) SHMEM__REDUCE_DEF1(T, N, prod)
SHOAL_REDUCE_BITWISE_TYPES(SHMEM__REDUCE_BIT_DEF)
SHOAL_REDUCE_ARITH_TYPES(SHMEM__REDUCE_ARITH_DEF)
SHOAL_REDUCE_COMPLEX_TYPES(SHMEM__REDUCE_CPLX_DEF)
