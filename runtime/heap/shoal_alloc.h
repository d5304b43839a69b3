/* The symmetric allocator (runtime/heap/alloc.c). */
#ifndef SHOAL_ALLOC_H
#define SHOAL_ALLOC_H

#include "base/shoal_base.h"

/* First-fit allocator over offsets [0, size). Every PE runs the same one on
 * the same requests, so allocations land at the same offsets everywhere. */
typedef struct shoal__block {
    size_t off;   /* start offset */
    size_t size;  /* bytes, including alignment padding absorbed at the front */
    size_t user;  /* offset returned to the user (>= off) */
    size_t asked; /* bytes the user asked for (used blocks): the bounds RMA checks */
    bool used;
} shoal__block_t;

typedef struct shoal__alloc {
    shoal__block_t *blocks; /* sorted by offset, covering [0, size) */
    size_t n, cap;
    size_t size;
    size_t used; /* bytes in used blocks */
    size_t min_align;
} shoal__alloc_t;

SHOAL__HIDDEN int shoal__alloc_init(shoal__alloc_t *a, size_t size, size_t min_align);
SHOAL__HIDDEN void shoal__alloc_fini(shoal__alloc_t *a);
/* Offset of a new block in *off_p; SHOAL_ERR_HEAP_EXHAUSTED or NO_MEMORY. */
SHOAL__HIDDEN int shoal__alloc_get(shoal__alloc_t *a, size_t size, size_t align, size_t *off_p);
/* Room for `more` table entries, so that the next alloc_get cannot fail for
 * memory (a get splits at most one block): what PEs may disagree on is
 * found before they meet, not after. */
SHOAL__HIDDEN int shoal__alloc_reserve(shoal__alloc_t *a, size_t more);
/* Release the block starting at user offset off; SHOAL_ERR_INVALID_ARG if none. */
SHOAL__HIDDEN int shoal__alloc_put(shoal__alloc_t *a, size_t off);
/* The used block whose asked-for bytes hold offset off: its user offset and
 * the size asked for (not the rounded one: bytes past it are refused). */
SHOAL__HIDDEN int shoal__alloc_find(const shoal__alloc_t *a, size_t off, size_t *user_p, size_t *size_p);
SHOAL__HIDDEN size_t shoal__alloc_largest_free(const shoal__alloc_t *a);
/* The block holding offset off: used or free, and its extent [*lo_p, *hi_p)
 * (a free one coalesced with its free neighbours). */
SHOAL__HIDDEN int shoal__alloc_span(const shoal__alloc_t *a, size_t off, bool *used_p, size_t *lo_p, size_t *hi_p);

#endif /* SHOAL_ALLOC_H */
