/*
 * Random traffic, checked byte for byte. Each round every PE makes 4 puts
 * (blocking or nbi, 1 byte to 16 KiB) to random PEs at random offsets inside
 * its own slot of the target's region; everything is derived from
 * (seed, round, sender, op), so every receiver recomputes what all senders
 * did, keeps a shadow copy of its region, and after each barrier compares
 * every byte of the region with it.
 *
 * Usage: test_stress [rounds [seed]]   (default 500 rounds, seed 20240601)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum {
    OPS = 4, /* puts per PE per round, op j writes quarter j of a slot */
    QUARTER = 16 * 1024,
    SLOT = OPS * QUARTER /* one per sender in every PE's region */
};

/* One put of one sender in one round. */
typedef struct op {
    int target;
    int nbi;
    size_t off; /* from the start of the sender's slot */
    size_t len;
} op_t;

static op_t make_op(uint64_t seed, int round, int sender, int j, int npes)
{
    test_rng_t rng;
    op_t op;
    uint64_t cls;

    test_rng_seed(&rng, seed, (uint64_t)round, (uint64_t)sender * OPS + (uint64_t)j);
    op.target = (int)test_rng_below(&rng, (uint64_t)npes);
    op.nbi = (int)test_rng_below(&rng, 2);
    cls = test_rng_below(&rng, 10);
    if (cls < 5)
        op.len = 1 + test_rng_below(&rng, 64);
    else if (cls < 8)
        op.len = 65 + test_rng_below(&rng, 2048 - 64);
    else
        op.len = 1 + test_rng_below(&rng, QUARTER);
    op.off = (size_t)j * QUARTER + test_rng_below(&rng, QUARTER - op.len + 1);
    return op;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int me, npes, rounds;
    uint64_t seed;
    size_t region_size;
    unsigned char *region, *shadow[2], *got, *src[OPS];
    long long nputs = 0, nbytes = 0;
    double t0;

    MPI_Init(&argc, &argv);
    rounds = argc > 1 ? atoi(argv[1]) : 500;
    seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 20240601u;
    test_config(&cfg, 4u << 20);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL);
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    region_size = (size_t)npes * SLOT;

    /* two regions, used by alternate rounds: senders of round r+1 write the
     * other one while receivers still check round r */
    region = shoal_calloc(sh, 2, region_size);
    CHECK_NONNULL(region, sh);
    shadow[0] = calloc(1, region_size);
    shadow[1] = calloc(1, region_size);
    got = malloc(region_size);
    CHECK(shadow[0] && shadow[1] && got);
    for (int j = 0; j < OPS; j++) {
        src[j] = malloc(QUARTER);
        CHECK(src[j] != NULL);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    t0 = MPI_Wtime();

    for (int r = 0; r < rounds; r++) {
        int parity = r % 2;
        unsigned char *mine = region + (size_t)parity * region_size;

        for (int j = 0; j < OPS; j++) {
            op_t op = make_op(seed, r, me, j, npes);
            unsigned char *dest = mine + (size_t)me * SLOT + op.off;
            test_pattern(src[j], 0, op.len, seed, (uint64_t)r, (uint64_t)me * OPS + (uint64_t)j);
            if (op.nbi)
                CHECK_OK(shoal_put_nbi(sh, dest, src[j], op.len, op.target), sh);
            else
                CHECK_OK(shoal_put(sh, dest, src[j], op.len, op.target), sh);
            nputs++;
            nbytes += (long long)op.len;
        }
        if (r % 7 == 3) CHECK_OK(shoal_quiet(sh), sh);
        CHECK_OK(shoal_barrier_all(sh), sh);

        /* what every sender must have written into me this round */
        for (int s = 0; s < npes; s++) {
            for (int j = 0; j < OPS; j++) {
                op_t op = make_op(seed, r, s, j, npes);
                if (op.target == me)
                    test_pattern(shadow[parity] + (size_t)s * SLOT + op.off, 0, op.len, seed, (uint64_t)r,
                                 (uint64_t)s * OPS + (uint64_t)j);
            }
        }
        test_heap_read(sh, got, mine, region_size);
        if (memcmp(got, shadow[parity], region_size) != 0) {
            size_t k = 0;
            while (got[k] == shadow[parity][k]) k++;
            CHECK_MSG(0,
                      "seed %llu round %d: byte %zu of the slot of sender pe %d (quarter %zu) "
                      "is 0x%02x, expected 0x%02x",
                      (unsigned long long)seed, r, k % SLOT, (int)(k / SLOT), (k % SLOT) / QUARTER, got[k],
                      shadow[parity][k]);
        }
    }
    CHECK_OK(shoal_barrier_all(sh), sh);

    if (me == 0)
        check_note("%d rounds, %lld puts, %lld bytes from pe 0 verified on %d PEs in %.1f s", rounds, nputs, nbytes,
                   npes, MPI_Wtime() - t0);
    CHECK_OK(shoal_free(sh, region), sh);
    CHECK_OK(shoal_finalize(sh), NULL);
    for (int j = 0; j < OPS; j++) free(src[j]);
    free(shadow[0]);
    free(shadow[1]);
    free(got);
    MPI_Finalize();
    return 0;
}
