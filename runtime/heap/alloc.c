/* First-fit allocator over heap offsets. Deterministic: the same requests
 * give the same offsets on every PE, which is what makes the heap symmetric. */
#include <stdlib.h>
#include <string.h>

#include "base/shoal_instance.h"

static int shoal__alloc_grow(shoal__alloc_t *a)
{
    size_t cap = a->cap ? a->cap * 2 : 64;
    shoal__block_t *b = realloc(a->blocks, cap * sizeof(*b));
    if (b == NULL) return SHOAL_ERR_NO_MEMORY;
    a->blocks = b;
    a->cap = cap;
    return SHOAL_SUCCESS;
}

/* Insert a block at index i, shifting the rest up. */
static int shoal__alloc_insert(shoal__alloc_t *a, size_t i, shoal__block_t blk)
{
    if (a->n == a->cap && shoal__alloc_grow(a) != SHOAL_SUCCESS) return SHOAL_ERR_NO_MEMORY;
    memmove(&a->blocks[i + 1], &a->blocks[i], (a->n - i) * sizeof(*a->blocks));
    a->blocks[i] = blk;
    a->n++;
    return SHOAL_SUCCESS;
}

static void shoal__alloc_remove(shoal__alloc_t *a, size_t i)
{
    memmove(&a->blocks[i], &a->blocks[i + 1], (a->n - i - 1) * sizeof(*a->blocks));
    a->n--;
}

int shoal__alloc_init(shoal__alloc_t *a, size_t size, size_t min_align)
{
    memset(a, 0, sizeof(*a));
    if (min_align == 0 || (min_align & (min_align - 1)) != 0) return SHOAL_ERR_INVALID_ARG;
    a->size = size;
    a->min_align = min_align;
    if (shoal__alloc_grow(a) != SHOAL_SUCCESS) return SHOAL_ERR_NO_MEMORY;
    a->blocks[0] = (shoal__block_t){.off = 0, .size = size, .user = 0, .used = false};
    a->n = 1;
    return SHOAL_SUCCESS;
}

int shoal__alloc_reserve(shoal__alloc_t *a, size_t more)
{
    while (a->cap < a->n + more)
        if (shoal__alloc_grow(a) != SHOAL_SUCCESS) return SHOAL_ERR_NO_MEMORY;
    return SHOAL_SUCCESS;
}

void shoal__alloc_fini(shoal__alloc_t *a)
{
    free(a->blocks);
    memset(a, 0, sizeof(*a));
}

int shoal__alloc_get(shoal__alloc_t *a, size_t size, size_t align, size_t *off_p)
{
    if (align < a->min_align) align = a->min_align;
    size_t asked = size;

    if (size == 0 || (align & (align - 1)) != 0) return SHOAL_ERR_INVALID_ARG;
    /* Round sizes up so every block starts min_align-aligned. */
    if (size > SIZE_MAX - a->min_align) return SHOAL_ERR_HEAP_EXHAUSTED;
    size = (size + a->min_align - 1) & ~(a->min_align - 1);

    for (size_t i = 0; i < a->n; i++) {
        shoal__block_t *b = &a->blocks[i];
        size_t user, pad, need;
        if (b->used) continue;
        user = (b->off + align - 1) & ~(align - 1);
        pad = user - b->off;
        if (pad > b->size || size > b->size - pad) continue;
        need = pad + size;
        if (need < b->size) {
            /* Split: the tail stays free. */
            shoal__block_t tail = {.off = b->off + need, .size = b->size - need, .user = b->off + need, .used = false};
            if (shoal__alloc_insert(a, i + 1, tail) != SHOAL_SUCCESS) return SHOAL_ERR_NO_MEMORY;
            b = &a->blocks[i]; /* the array may have moved */
            b->size = need;
        }
        b->used = true;
        b->user = user;
        b->asked = asked;
        a->used += b->size;
        *off_p = user;
        return SHOAL_SUCCESS;
    }
    return SHOAL_ERR_HEAP_EXHAUSTED;
}

/* Index of the used block whose user offset is off, or of the block holding off. */
static long shoal__alloc_index(const shoal__alloc_t *a, size_t off)
{
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const shoal__block_t *b = &a->blocks[mid];
        if (off < b->off)
            hi = mid;
        else if (off >= b->off + b->size)
            lo = mid + 1;
        else
            return (long)mid;
    }
    return -1;
}

int shoal__alloc_put(shoal__alloc_t *a, size_t off)
{
    long i = shoal__alloc_index(a, off);
    shoal__block_t *b;
    if (i < 0) return SHOAL_ERR_INVALID_ARG;
    b = &a->blocks[i];
    if (!b->used || b->user != off) return SHOAL_ERR_INVALID_ARG;
    b->used = false;
    b->user = b->off;
    a->used -= b->size;
    /* Coalesce with the free neighbours. */
    if ((size_t)i + 1 < a->n && !a->blocks[i + 1].used) {
        b->size += a->blocks[i + 1].size;
        shoal__alloc_remove(a, (size_t)i + 1);
    }
    if (i > 0 && !a->blocks[i - 1].used) {
        a->blocks[i - 1].size += a->blocks[i].size;
        shoal__alloc_remove(a, (size_t)i);
    }
    return SHOAL_SUCCESS;
}

int shoal__alloc_find(const shoal__alloc_t *a, size_t off, size_t *user_p, size_t *size_p)
{
    long i = shoal__alloc_index(a, off);
    const shoal__block_t *b;
    if (i < 0) return SHOAL_ERR_OUT_OF_BOUNDS;
    b = &a->blocks[i];
    if (!b->used || off < b->user || off - b->user >= b->asked) return SHOAL_ERR_OUT_OF_BOUNDS;
    *user_p = b->user;
    *size_p = b->asked;
    return SHOAL_SUCCESS;
}

size_t shoal__alloc_largest_free(const shoal__alloc_t *a)
{
    size_t best = 0;
    for (size_t i = 0; i < a->n; i++)
        if (!a->blocks[i].used && a->blocks[i].size > best) best = a->blocks[i].size;
    return best;
}

int shoal__alloc_span(const shoal__alloc_t *a, size_t off, bool *used_p, size_t *lo_p, size_t *hi_p)
{
    long i = shoal__alloc_index(a, off);
    if (i < 0) return SHOAL_ERR_OUT_OF_BOUNDS;
    *used_p = a->blocks[i].used;
    *lo_p = a->blocks[i].off;
    *hi_p = a->blocks[i].off + a->blocks[i].size;
    return SHOAL_SUCCESS;
}
