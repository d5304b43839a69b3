/*
 * pipeline: point-to-point synchronization without barriers.
 *
 * 1. A ring of producers and consumers: each PE sends CHUNKS chunks to its
 *    right neighbour with shoal_put_signal (the data, then the chunk's
 *    number in the neighbour's signal word) and reads what its left
 *    neighbour sent once shoal_signal_wait_until sees the number. The
 *    consumer hands the buffer back with shoal_signal_op, so the producer
 *    never overwrites a chunk that was not read yet.
 * 2. A shared work queue: PEs take task numbers from a counter on PE 0
 *    with shoal_long_atomic_fetch_inc until none are left, and add their
 *    results into PE 0's total with shoal_long_atomic_add.
 * 3. A lock: each PE appends its number to a log on PE 0 under
 *    shoal_set_lock / shoal_clear_lock.
 *
 *   mpiexec -n 4 build/examples/pipeline
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "shoal.h"

#define CHUNK 256 /* longs a chunk */
#define CHUNKS 64
#define TASKS 1000

static void check(int status, shoal_t sh, const char *what)
{
    if (status != SHOAL_SUCCESS) {
        fprintf(stderr, "%s failed: %s\n", what, shoal_last_error(sh));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    int me, npes, ok = 1;

    MPI_Init(&argc, &argv);
    shoal_config_init(&cfg);
    cfg.heap_kind = SHOAL_HEAP_HOST; /* this PE reads its heap with plain loads below */
    check(shoal_init(MPI_COMM_WORLD, &cfg, &sh), NULL, "shoal_init");
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);

    long *inbox = shoal_malloc(sh, CHUNK * sizeof(long));
    uint64_t *arrived = shoal_calloc(sh, 2, sizeof(uint64_t)); /* [0]: chunk number in inbox, [1]: chunks read */
    long *counters = shoal_calloc(sh, 3, sizeof(long));        /* on PE 0: next task, total, lock */
    int *log = shoal_calloc(sh, (size_t)npes, sizeof(int));    /* on PE 0: who took the lock, in order */
    check(inbox && arrived && counters && log ? SHOAL_SUCCESS : SHOAL_ERR_NO_MEMORY, sh, "allocation");
    check(shoal_barrier_all(sh), sh, "shoal_barrier_all"); /* every PE's words are zero */

    /* 1. The ring. */
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    long chunk[CHUNK], sum = 0, expect = 0;
    for (uint64_t c = 1; c <= CHUNKS; c++) {
        for (int i = 0; i < CHUNK; i++) chunk[i] = (long)(me * 1000000 + (int)c * CHUNK + i);
        /* Wait until the right neighbour read the previous chunk, then send. */
        check(shoal_signal_wait_until(sh, &arrived[1], SHOAL_CMP_GE, c - 1, NULL), sh, "waiting for the ack");
        check(shoal_put_signal(sh, inbox, chunk, sizeof(chunk), &arrived[0], c, SHOAL_SIGNAL_SET, right), sh,
              "shoal_put_signal");
        /* Take chunk c from the left neighbour: its data is there once the number is. */
        check(shoal_signal_wait_until(sh, &arrived[0], SHOAL_CMP_EQ, c, NULL), sh, "waiting for a chunk");
        for (int i = 0; i < CHUNK; i++) {
            sum += inbox[i];
            expect += (long)(left * 1000000 + (int)c * CHUNK + i);
        }
        check(shoal_signal_op(sh, &arrived[1], 1, SHOAL_SIGNAL_ADD, left), sh, "shoal_signal_op");
    }
    check(shoal_quiet(sh), sh, "shoal_quiet");
    if (sum != expect) {
        printf("PE %d: the ring's chunks summed to %ld, expected %ld\n", me, sum, expect);
        ok = 0;
    }

    /* 2. The work queue. */
    long task, done = 0;
    for (;;) {
        check(shoal_long_atomic_fetch_inc(sh, &counters[0], 0, &task), sh, "shoal_long_atomic_fetch_inc");
        if (task >= TASKS) break;
        check(shoal_long_atomic_add(sh, &counters[1], task * task, 0), sh, "shoal_long_atomic_add");
        done++;
    }

    /* 3. The lock: append my number to PE 0's log. */
    check(shoal_set_lock(sh, &counters[2]), sh, "shoal_set_lock");
    int n_logged;
    for (n_logged = 0; n_logged < npes; n_logged++) {
        int who;
        check(shoal_int_g(sh, &who, &log[n_logged], 0), sh, "shoal_int_g");
        if (who == 0) break;
    }
    check(shoal_int_p(sh, &log[n_logged], me + 1, 0), sh, "shoal_int_p");
    check(shoal_clear_lock(sh, &counters[2]), sh, "shoal_clear_lock"); /* completes the put first */

    check(shoal_barrier_all(sh), sh, "shoal_barrier_all");
    if (me == 0) {
        long total = 0, want = 0;
        int seen = 0;
        for (long t = 0; t < TASKS; t++) want += t * t;
        check(shoal_long_atomic_fetch(sh, &counters[1], 0, &total), sh, "shoal_long_atomic_fetch");
        for (int i = 0; i < npes; i++) seen += log[i] != 0;
        printf("pipeline: %d PEs passed %d chunks each around the ring; the work queue's %d tasks summed to %ld "
               "(expected %ld); %d PEs took the lock, in the order",
               npes, CHUNKS, TASKS, total, want, seen);
        for (int i = 0; i < npes; i++) printf(" %d", log[i] - 1);
        printf("\n");
        if (total != want || seen != npes) ok = 0;
    }
    printf("PE %d: %ld tasks taken\n", me, done);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(shoal_finalize(sh), NULL, "shoal_finalize");
    MPI_Finalize();
    return ok ? 0 : 1;
}
