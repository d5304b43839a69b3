/* Atomics and rectangles on an MPI window (runtime/base/shoal_mpi_win.h). */
#include <limits.h>

#include "base/shoal_mpi_quirks.h"
#include "base/shoal_mpi_win.h"

int shoal__mpi_amo(MPI_Win win, int pe, MPI_Aint disp, void *self_word, const shoal__amo_t *a, void *result,
                   const char **what_p)
{
    static const MPI_Op ops[SHOAL__AMO_OPS] = {
        [SHOAL__AMO_FETCH] = MPI_NO_OP, [SHOAL__AMO_SET] = MPI_REPLACE, [SHOAL__AMO_SWAP] = MPI_REPLACE,
        [SHOAL__AMO_ADD] = MPI_SUM,     [SHOAL__AMO_AND] = MPI_BAND,    [SHOAL__AMO_OR] = MPI_BOR,
        [SHOAL__AMO_XOR] = MPI_BXOR,
    };
    MPI_Datatype type = a->size == 4 ? MPI_UINT32_T : MPI_UINT64_T;
    /* The operand lives on this frame until the flush below. */
    union {
        uint32_t u32;
        uint64_t u64;
    } operand, compare;
    int rc;

    if (a->size == 4)
        operand.u32 = (uint32_t)a->operand, compare.u32 = (uint32_t)a->compare;
    else
        operand.u64 = a->operand, compare.u64 = a->compare;
    if (a->op == SHOAL__AMO_CSWAP && a->size == 8 && self_word != NULL &&
        (shoal__mpi_quirks() & SHOAL__MPI_SELF_CAS64)) {
        uint64_t old = compare.u64;
        *what_p = "MPI_Win_sync";
        if ((rc = MPI_Win_sync(win)) != MPI_SUCCESS) return rc;
        __atomic_compare_exchange_n((uint64_t *)self_word, &old, operand.u64, false, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        __builtin_memcpy(result, &old, sizeof(old)); /* the old value, swapped or not */
        return MPI_Win_sync(win);
    }
    if (a->op == SHOAL__AMO_CSWAP) {
        *what_p = "MPI_Compare_and_swap";
        rc = MPI_Compare_and_swap(&operand, &compare, result, type, pe, disp, win);
    } else if (result != NULL) {
        *what_p = "MPI_Fetch_and_op";
        rc = MPI_Fetch_and_op(&operand, result, type, pe, disp, ops[a->op], win);
    } else {
        *what_p = "MPI_Accumulate";
        rc = MPI_Accumulate(&operand, 1, type, pe, disp, 1, type, ops[a->op], win);
    }
    if (rc != MPI_SUCCESS) return rc;
    *what_p = result != NULL ? "MPI_Win_flush" : "MPI_Win_flush_local";
    return result != NULL ? MPI_Win_flush(pe, win) : MPI_Win_flush_local(pe, win);
}

int shoal__mpi_rect_types(size_t width, size_t height, size_t rpitch, size_t lpitch, uint64_t align_bits,
                          MPI_Datatype *rtype, MPI_Datatype *ltype, MPI_Datatype *ltype_or_word, int *lcount)
{
    MPI_Datatype word = MPI_BYTE;
    size_t wsize = 1;
    int rc;

    *rtype = *ltype = MPI_DATATYPE_NULL;
    if ((width | rpitch | lpitch | align_bits) % 8 == 0) word = MPI_UINT64_T, wsize = 8;
    *ltype_or_word = word;
    *lcount = 1;
    if ((rc = MPI_Type_create_hvector((int)height, (int)(width / wsize), (MPI_Aint)rpitch, word, rtype)) !=
            MPI_SUCCESS ||
        (rc = MPI_Type_commit(rtype)) != MPI_SUCCESS)
        return rc;
    /* A contiguous local side (a strided put from a plain array) needs no
     * type of its own. */
    if (lpitch == width && width * height / wsize <= INT_MAX) {
        *lcount = (int)(width * height / wsize);
        return MPI_SUCCESS;
    }
    if ((rc = MPI_Type_create_hvector((int)height, (int)(width / wsize), (MPI_Aint)lpitch, word, ltype)) !=
            MPI_SUCCESS ||
        (rc = MPI_Type_commit(ltype)) != MPI_SUCCESS)
        return rc;
    *ltype_or_word = *ltype;
    return MPI_SUCCESS;
}
