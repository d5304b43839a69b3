/* Unit test of the symmetric-heap allocator: alignment, reuse, coalescing,
 * exhaustion, bad frees, and that the same requests give the same offsets. */
#include <stdio.h>
#include <stdlib.h>

#include "base/shoal_instance.h"

#include "common/expect.h"

int main(void)
{
    shoal__alloc_t a, b;
    size_t o1, o2, o3, o4, user, avail;

    EXPECT(shoal__alloc_init(&a, 4096, 3) == SHOAL_ERR_INVALID_ARG); /* not a power of two */
    EXPECT(shoal__alloc_init(&a, 4096, 64) == SHOAL_SUCCESS);

    /* Sizes round up to the minimum alignment, blocks are contiguous. */
    EXPECT(shoal__alloc_get(&a, 1, 0, &o1) == SHOAL_SUCCESS && o1 == 0);
    EXPECT(shoal__alloc_get(&a, 100, 0, &o2) == SHOAL_SUCCESS && o2 == 64);
    EXPECT(shoal__alloc_get(&a, 64, 1024, &o3) == SHOAL_SUCCESS && o3 == 1024);
    EXPECT(a.used == 64 + 128 + (1024 - 192) + 64);
    EXPECT(shoal__alloc_get(&a, 0, 0, &o4) == SHOAL_ERR_INVALID_ARG);

    /* find: inside a block gives its start and the size asked for; the
     * rounding past it and free space are not found. */
    EXPECT(shoal__alloc_find(&a, o2 + 10, &user, &avail) == SHOAL_SUCCESS && user == o2 && avail == 100);
    EXPECT(shoal__alloc_find(&a, o2 + 99, &user, &avail) == SHOAL_SUCCESS && user == o2 && avail == 100);
    EXPECT(shoal__alloc_find(&a, o2 + 100, &user, &avail) == SHOAL_ERR_OUT_OF_BOUNDS);
    EXPECT(shoal__alloc_find(&a, o1 + 1, &user, &avail) == SHOAL_ERR_OUT_OF_BOUNDS);
    EXPECT(shoal__alloc_find(&a, 3000, &user, &avail) == SHOAL_ERR_OUT_OF_BOUNDS);

    /* Reuse: a freed block is found again by the same request. */
    EXPECT(shoal__alloc_put(&a, o2) == SHOAL_SUCCESS);
    EXPECT(shoal__alloc_put(&a, o2) == SHOAL_ERR_INVALID_ARG);     /* double free */
    EXPECT(shoal__alloc_put(&a, o1 + 8) == SHOAL_ERR_INVALID_ARG); /* not a block start */
    EXPECT(shoal__alloc_get(&a, 100, 0, &o4) == SHOAL_SUCCESS && o4 == o2);

    /* Exhaustion, then coalescing makes the whole heap available again. */
    EXPECT(shoal__alloc_get(&a, 4096, 0, &o4) == SHOAL_ERR_HEAP_EXHAUSTED);
    EXPECT(shoal__alloc_get(&a, (size_t)-1, 0, &o4) == SHOAL_ERR_HEAP_EXHAUSTED);
    EXPECT(shoal__alloc_put(&a, o1) == SHOAL_SUCCESS);
    EXPECT(shoal__alloc_put(&a, o2) == SHOAL_SUCCESS);
    EXPECT(shoal__alloc_put(&a, o3) == SHOAL_SUCCESS);
    EXPECT(a.used == 0 && a.n == 1 && shoal__alloc_largest_free(&a) == 4096);
    EXPECT(shoal__alloc_get(&a, 4096, 0, &o4) == SHOAL_SUCCESS && o4 == 0);
    EXPECT(shoal__alloc_largest_free(&a) == 0);
    shoal__alloc_fini(&a);

    /* Determinism: two allocators fed one random sequence agree on every offset. */
    EXPECT(shoal__alloc_init(&a, 1 << 20, 64) == SHOAL_SUCCESS);
    EXPECT(shoal__alloc_init(&b, 1 << 20, 64) == SHOAL_SUCCESS);
    {
        size_t live_a[64] = {0}, live_b[64] = {0};
        int have[64] = {0};
        srand(7);
        for (int i = 0; i < 20000; i++) {
            int k = rand() % 64;
            if (have[k]) {
                EXPECT(shoal__alloc_put(&a, live_a[k]) == SHOAL_SUCCESS);
                EXPECT(shoal__alloc_put(&b, live_b[k]) == SHOAL_SUCCESS);
                have[k] = 0;
            } else {
                size_t sz = 1 + (size_t)(rand() % 40000), al = (size_t)64 << (rand() % 4);
                int ra = shoal__alloc_get(&a, sz, al, &live_a[k]);
                int rb = shoal__alloc_get(&b, sz, al, &live_b[k]);
                EXPECT(ra == rb);
                if (ra == SHOAL_SUCCESS) {
                    EXPECT(live_a[k] == live_b[k]);
                    EXPECT(live_a[k] % al == 0);
                    EXPECT(live_a[k] + sz <= (1u << 20));
                    have[k] = 1;
                }
            }
        }
    }
    shoal__alloc_fini(&a);
    shoal__alloc_fini(&b);

    if (failures)
        fprintf(stderr, "%d failures\n", failures);
    else
        printf("allocator: all checks passed\n");
    return failures ? 1 : 0;
}
