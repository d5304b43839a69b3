/* Atomics and signals on the host: check the word once, then hand the
 * operation to the transport that carries pe's atomics (sh->pe_amo: every
 * atomic on one word goes one way, runtime/transport/transport.c says
 * which); a word in a range registered with shoal_register goes through
 * that range's MPI window (runtime/heap/register_rma.c) from every PE,
 * except where the range's atomics are CPU atomics (shoal_register_shared
 * on one node, every part mapped everywhere: shoal__reg_locate) and the
 * word lies in its owner's shared part: there every PE makes a CPU atomic
 * on it, as on a host heap shared by the node. */
#include "ops/shoal_amo.h"
#include "heap/shoal_register.h"
#include "ops/shoal_rma.h"
#include "heap/shoal_heap.h"
#include "transport/transport.h"
#if SHOAL_HAVE_CUDA
#include "heap/shoal_gpu.h"
#endif

static const char *const shoal__amo_names[SHOAL__AMO_OPS] = {
    [SHOAL__AMO_FETCH] = "fetch", [SHOAL__AMO_SET] = "set",
    [SHOAL__AMO_SWAP] = "swap",   [SHOAL__AMO_CSWAP] = "compare_swap",
    [SHOAL__AMO_ADD] = "add",     [SHOAL__AMO_AND] = "and",
    [SHOAL__AMO_OR] = "or",       [SHOAL__AMO_XOR] = "xor",
};

/* Is the word outside the heap, in a registered range? */
static bool shoal__amo_registered(shoal_t sh, const void *target, size_t size)
{
    return SHOAL__UNLIKELY(!shoal__in_heap(sh, target, size)) && shoal__reg_holds(sh, target, size);
}

/* The word: pe in range, inside the heap (and an allocation) or, where reg,
 * a registered range, aligned. */
static int shoal__amo_word(shoal_t sh, const char *call, const char *what, const void *target, size_t size, int pe,
                           bool reg, size_t *off_p)
{
    int rc = reg ? shoal__reg_target(sh, call, what, target, size, pe, off_p)
                 : shoal__rma_target(sh, call, what, target, size, pe, off_p);
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    if (SHOAL__UNLIKELY((uintptr_t)target % size != 0))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "%s %p (%s offset %zu, target PE %d) is not aligned to its %zu bytes: an atomic needs "
                            "a word at a multiple of its size",
                            what, target, reg ? "registered range" : shoal__off_what(*off_p), shoal__off_in(*off_p), pe,
                            size);
    return SHOAL_SUCCESS;
}

/* The atomic through pe's transport of atomics; on a registered word, a
 * CPU atomic where the range's atomics are (shoal__reg_locate), else the
 * range's window. */
static int shoal__amo_issue(shoal_t sh, const char *call, const void *target, int pe, bool reg, size_t off,
                            const shoal__amo_t *a, void *result, int nbi)
{
    const shoal__tp_ops_t *tp;
    int rc;

    if (reg) {
        char *word;
        if (shoal__reg_locate(sh, target, a->size, pe, true, &word) <= 0)
            return shoal__reg_amo(sh, call, target, pe, a, result);
        shoal__amo_cpu(word, a, result);
        return SHOAL_SUCCESS;
    }
    tp = shoal__tp_amo(sh, pe);
    SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA, "%s: %s of %u bytes at heap offset %zu of PE %d over %s", call,
               shoal__amo_names[a->op], a->size, off, pe, tp->name);
    rc = tp->amo(sh, call, pe, off, a, result, nbi);
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
    shoal__rma_used(sh, 1u << tp->id);
    return SHOAL_SUCCESS;
}

static int shoal__amo_do(shoal_t sh, const char *call, const void *target, int pe, const shoal__amo_t *a, void *result,
                         int nbi)
{
    size_t off;
    bool reg;
    int rc;

    if (SHOAL__UNLIKELY(a->op >= SHOAL__AMO_OPS || (a->size != 4 && a->size != 8)))
        return shoal__error(sh, SHOAL_ERR_INTERNAL, call, "atomic op %u on %u bytes", a->op, a->size);
    if (SHOAL__UNLIKELY(result == NULL &&
                        (a->op == SHOAL__AMO_FETCH || a->op == SHOAL__AMO_SWAP || a->op == SHOAL__AMO_CSWAP)))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "the pointer for the fetched value is NULL");
    if (SHOAL__UNLIKELY(!shoal__in_heap(sh, target, a->size))) {
        char *word;
        int where = shoal__reg_locate(sh, target, a->size, pe, true, &word);
        if (where > 0 && (uintptr_t)target % a->size == 0 && (result == NULL || sh->heap_kind == SHOAL_HEAP_HOST)) {
            SHOAL__LOG(SHOAL__LOG_TRACE, SHOAL__SUB_RMA,
                       "%s: %s of %u bytes on PE %d's registered word at %p (%p here)", call, shoal__amo_names[a->op],
                       a->size, pe, target, (void *)word);
            shoal__amo_cpu(word, a, result);
            return SHOAL_SUCCESS;
        }
        reg = where >= 0;
    } else {
        reg = false;
    }
    rc = shoal__amo_word(sh, call, "atomic target", target, a->size, pe, reg, &off);
    if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
#if SHOAL_HAVE_CUDA
    /* The old value wanted in device memory (a GPU heap's word, say): it
     * comes to the host, then a copy takes it there; blocking. */
    if (result != NULL && sh->heap_kind == SHOAL_HEAP_GPU && shoal__gpu_on_device(result)) {
        uint64_t value = 0;
        rc = shoal__amo_issue(sh, call, target, pe, reg, off, a, &value, 0);
        if (SHOAL__UNLIKELY(rc != SHOAL_SUCCESS)) return rc;
        return shoal__gpu_copy(sh, call, "cudaMemcpy (the fetched value)", result, &value, a->size);
    }
#endif
    return shoal__amo_issue(sh, call, target, pe, reg, off, a, result, nbi);
}

int shoal__amo(shoal_t sh, const char *call, const void *target, int pe, const shoal__amo_t *a, void *result, int nbi)
{
    shoal__robust_t *sd;
    bool held = false;
    int rc;

    if (SHOAL__LIKELY(sh->cfg.check != SHOAL_CHECK_FULL) || (sd = shoal__robust(sh)) == NULL)
        return shoal__amo_do(sh, call, target, pe, a, result, nbi);
    /* SHOAL_CHECK=full: the thread rule first, as for puts. */
    rc = shoal__thread_enter(sh, sd, call, false, &held);
    if (rc != SHOAL_SUCCESS) return rc;
    rc = shoal__amo_do(sh, call, target, pe, a, result, nbi);
    shoal__thread_leave(sd, false, held);
    return rc;
}

/* The op, then the atomic that makes the signal change. */
static int shoal__signal_amo(shoal_t sh, const char *call, uint64_t value, int op, shoal__amo_t *a)
{
    if (SHOAL__UNLIKELY(op != SHOAL_SIGNAL_SET && op != SHOAL_SIGNAL_ADD))
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "unknown signal op %d (SHOAL_SIGNAL_SET is %d, SHOAL_SIGNAL_ADD %d)", op, SHOAL_SIGNAL_SET,
                            SHOAL_SIGNAL_ADD);
    *a = (shoal__amo_t){.op = op == SHOAL_SIGNAL_SET ? SHOAL__AMO_SET : SHOAL__AMO_ADD, .size = 8, .operand = value};
    return SHOAL_SUCCESS;
}

/* For the stream-ordered calls: *off_p is the word's offset as the
 * transports take it (heap, or registered GPU range). */
int shoal__signal_prepare(shoal_t sh, const char *call, const uint64_t *sig, uint64_t value, int op, int pe,
                          shoal__amo_t *a, size_t *off_p)
{
    int rc = shoal__signal_amo(sh, call, value, op, a);
    return rc != SHOAL_SUCCESS ? rc : shoal__amo_word(sh, call, "signal", sig, 8, pe, false, off_p);
}

/* The host calls' checks of a signal: the op and the word, in the heap or
 * a registered range. */
static int shoal__signal_check(shoal_t sh, const char *call, const uint64_t *sig, uint64_t value, int op, int pe,
                               shoal__amo_t *a)
{
    size_t off;
    int rc = shoal__signal_amo(sh, call, value, op, a);
    return rc != SHOAL_SUCCESS
               ? rc
               : shoal__amo_word(sh, call, "signal", sig, 8, pe, shoal__amo_registered(sh, sig, 8), &off);
}

int shoal__signal_op(shoal_t sh, const char *call, uint64_t *sig, uint64_t value, int op, int pe)
{
    shoal__amo_t a;
    int rc = shoal__signal_check(sh, call, sig, value, op, pe, &a);
    return rc != SHOAL_SUCCESS ? rc : shoal__amo(sh, call, sig, pe, &a, NULL, 0);
}

/* The data through pe's transport (or the registered range's window), then
 * that path's fence (MPI orders neither puts nor a put and an accumulate),
 * then the signal through the transport of pe's atomics (or its range's
 * window): whoever sees the signal sees the data. Where the data goes
 * through the heap's transport and the signal through a registered range's
 * window, the two are ordered by nothing (a GPU heap's copy may still run
 * when MPI delivers the signal): the transport's operations are completed
 * (a quiet of it) first. */
int shoal__put_signal(shoal_t sh, const char *call, void *dest, const void *src, size_t nbytes, uint64_t *sig,
                      uint64_t value, int op, int pe, int nbi)
{
    const shoal__tp_ops_t *tp;
    shoal__amo_t a;
    int rc;

    /* Both checked before anything moves: the signal here, the data by
     * shoal__rma before it moves any. */
    SHOAL__TRY(rc, out, shoal__signal_check(sh, call, sig, value, op, pe, &a));
    if (nbytes > 0) {
        SHOAL__TRY(rc, out, shoal__rma(sh, call, true, dest, src, nbytes, pe, nbi));
        tp = shoal__tp(sh, pe);
        /* A host registered range's window, or the heap's transports (the
         * heap, and registered GPU ranges). */
        if (!shoal__in_heap(sh, dest, nbytes) && shoal__reg_holds(sh, dest, nbytes))
            SHOAL__TRY(rc, out, shoal__reg_fence(sh, call, dest, pe));
        else if (!shoal__in_heap(sh, sig, 8) && shoal__reg_holds(sh, sig, 8))
            SHOAL__TRY(rc, out, shoal__quiet_mask(sh, call, 1u << tp->id));
        else if (tp->fence != NULL)
            SHOAL__TRY(rc, out, tp->fence(sh, call, pe));
    }
    rc = shoal__amo(sh, call, sig, pe, &a, NULL, nbi);
out:
    return rc;
}
