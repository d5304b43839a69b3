/* Locks on a symmetric long (OpenSHMEM's set_lock, test_lock, clear_lock):
 * a queue of waiters, first come first served, each watching a word of its
 * own heap instead of hammering one word with compare-and-swaps.
 *
 * The long's two 32-bit halves, on every PE:
 *  - tail (the half at the lower address), used on PE 0 only: 0 when the
 *    lock is free, else the last PE in line + 1;
 *  - mine: bits 0-29 the PE behind this one + 1 (0: none yet), bit 30 set
 *    while this PE holds the lock, bit 31 set when the PE before this one
 *    hands the lock over.
 * set_lock clears mine, swaps itself into PE 0's tail, and if someone was
 * there writes itself into that PE's mine, then waits on its own mine for
 * bit 31; it marks mine held. clear_lock (refused where mine is not held)
 * hands over to the PE named in mine, or, if none, takes itself out of the
 * tail with a compare-and-swap (and waits for the PE that swapped in
 * meanwhile to name itself); then clears mine, which nobody else writes
 * from then on. Every step is an atomic that returns a value, so it is
 * complete when the call returns, whatever the transport.
 *
 * The queue has one place per PE, so threads of one PE (MPI_THREAD_MULTIPLE)
 * first take a token of this process for the lock (a semaphore of one: the
 * lock is the PE's, so another thread of it may clear it and give the token
 * back): one thread at a time waits in the queue or holds the lock, and the
 * others wait here, as OpenSHMEM's threads of a PE expect. */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include "ops/shoal_amo.h"
#include "heap/shoal_register.h"
#include "ops/shoal_rma.h"

_Static_assert(sizeof(long) == 8, "a lock's long holds two 32-bit halves");

#define SHOAL__LOCK_HOME 0
#define SHOAL__LOCK_GRANTED 0x80000000u
#define SHOAL__LOCK_HELD 0x40000000u
#define SHOAL__LOCK_NEXT 0x3fffffffu

static uint32_t *shoal__lock_tail(long *lock) { return (uint32_t *)lock; }
static uint32_t *shoal__lock_mine(long *lock) { return (uint32_t *)lock + 1; }

/* A 32-bit atomic on pe's half that returns the old value. */
static int shoal__lock_amo(shoal_t sh, const char *call, uint32_t *half, int pe, uint32_t op, uint32_t operand,
                           uint32_t compare, uint32_t *old_p)
{
    shoal__amo_t a = {.op = op, .size = 4, .operand = operand, .compare = compare};
    return shoal__amo(sh, call, half, pe, &a, old_p, 0);
}

/* The lock: a symmetric long (in the heap or a registered range), 8-byte
 * aligned. */
static int shoal__lock_check(shoal_t sh, const char *call, long *lock)
{
    size_t off;
    bool reg;
    int rc;

    if (lock == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "lock is NULL");
    if ((uint32_t)sh->n_pes >= SHOAL__LOCK_NEXT)
        return shoal__error(sh, SHOAL_ERR_UNSUPPORTED, call, "locks name at most %u PEs; this instance has %d",
                            SHOAL__LOCK_NEXT - 1, sh->n_pes);
    reg = !shoal__in_heap(sh, lock, sizeof(long)) && shoal__reg_holds(sh, lock, sizeof(long));
    rc = reg ? shoal__reg_target(sh, call, "lock", lock, sizeof(long), SHOAL__LOCK_HOME, &off)
             : shoal__rma_target(sh, call, "lock", lock, sizeof(long), SHOAL__LOCK_HOME, &off);
    if (rc != SHOAL_SUCCESS) return rc;
    if ((uintptr_t)lock % sizeof(long) != 0)
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "lock %p (%s offset %zu) is not aligned to 8 bytes",
                            (void *)lock, reg ? "registered range" : shoal__off_what(off), shoal__off_in(off));
    return SHOAL_SUCCESS;
}

/* This PE's own half as it is now, read where it lives (an atomic load, or
 * a copy from a GPU heap) rather than with an atomic that travels. */
static int shoal__lock_read_mine(shoal_t sh, const char *call, long *lock, uint32_t *mine_p)
{
    return shoal__wait_word(sh, call, shoal__lock_mine(lock), 4, 0, NULL, false, mine_p);
}

/* "heap offset 4096", or where in its registered range the lock is. */
static void shoal__lock_where(shoal_t sh, long *lock, char *buf, size_t len)
{
    if (shoal__in_heap(sh, lock, sizeof(long)))
        snprintf(buf, len, "heap offset %zu", (size_t)((char *)lock - sh->heap_base));
    else
        shoal__reg_where(sh, lock, buf, len);
}

/* Wait until this PE's mine <cmp> value; a timeout names the lock. */
static int shoal__lock_wait(shoal_t sh, const char *call, long *lock, int cmp, uint32_t value, const char *why)
{
    int rc = shoal__wait_word(sh, call, shoal__lock_mine(lock), 4, cmp, &value, true, NULL);
    char where[160];

    if (rc == SHOAL_ERR_TIMEOUT) {
        /* The wait's own message says how long and what it saw; it is
         * copied first (the new message goes where it is). */
        char seen[sizeof(sh->err)];
        snprintf(seen, sizeof(seen), "%s", shoal_last_error(sh));
        shoal__lock_where(sh, lock, where, sizeof(where));
        rc = shoal__error(sh, SHOAL_ERR_TIMEOUT, call,
                          "gave up (SHOAL_TIMEOUT) waiting %s of the lock at %s; this lock's queue is broken from "
                          "here (%s)",
                          why, where, seen);
    }
    return rc;
}

/* Before set_lock and test_lock: a lock this PE can ask for (checked, not
 * held here already), and mine cleared for the queue. */
static int shoal__lock_join(shoal_t sh, const char *call, long *lock)
{
    uint32_t mine;
    char where[160];
    int rc;

    SHOAL__TRY(rc, out, shoal__lock_check(sh, call, lock));
    SHOAL__TRY(rc, out, shoal__lock_read_mine(sh, call, lock, &mine));
    if (mine & SHOAL__LOCK_HELD) {
        shoal__lock_where(sh, lock, where, sizeof(where));
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "this PE already holds the lock at %s (locks do not nest)",
                            where);
    }
    rc = shoal__lock_amo(sh, call, shoal__lock_mine(lock), sh->my_pe, SHOAL__AMO_SWAP, 0, 0, &mine);
out:
    return rc;
}

static int shoal__lock_set_pe(shoal_t sh, const char *call, long *lock)
{
    uint32_t me = (uint32_t)sh->my_pe + 1, old;
    int rc;

    SHOAL__TRY(rc, out, shoal__lock_join(sh, call, lock));
    SHOAL__TRY(rc, out,
               shoal__lock_amo(sh, call, shoal__lock_tail(lock), SHOAL__LOCK_HOME, SHOAL__AMO_SWAP, me, 0, &old));
    if (old != 0) {
        /* In line behind PE old - 1: tell it, then wait for the hand-over. */
        SHOAL__TRY(rc, out,
                   shoal__lock_amo(sh, call, shoal__lock_mine(lock), (int)old - 1, SHOAL__AMO_OR, me, 0, &old));
        SHOAL__TRY(rc, out, shoal__lock_wait(sh, call, lock, SHOAL_CMP_GE, SHOAL__LOCK_GRANTED, "for the hand-over"));
    }
    rc = shoal__lock_amo(sh, call, shoal__lock_mine(lock), sh->my_pe, SHOAL__AMO_OR, SHOAL__LOCK_HELD, 0, &old);
out:
    return rc;
}

static int shoal__lock_test_pe(shoal_t sh, const char *call, long *lock, int *got_p)
{
    uint32_t me = (uint32_t)sh->my_pe + 1, old;
    int rc;

    if (got_p == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "got_p is NULL");
    SHOAL__TRY(rc, out, shoal__lock_join(sh, call, lock));
    *got_p = 0;
    SHOAL__TRY(rc, out,
               shoal__lock_amo(sh, call, shoal__lock_tail(lock), SHOAL__LOCK_HOME, SHOAL__AMO_CSWAP, me, 0, &old));
    if (old == 0)
        SHOAL__TRY(rc, out,
                   shoal__lock_amo(sh, call, shoal__lock_mine(lock), sh->my_pe, SHOAL__AMO_OR, SHOAL__LOCK_HELD, 0,
                                   &old));
    *got_p = old == 0;
out:
    return rc;
}

static int shoal__lock_clear_pe(shoal_t sh, const char *call, long *lock)
{
    uint32_t me = (uint32_t)sh->my_pe + 1, mine, old;
    char where[160];
    int rc;

    SHOAL__TRY(rc, out, shoal__lock_check(sh, call, lock));
    SHOAL__TRY(rc, out, shoal__lock_read_mine(sh, call, lock, &mine));
    if (!(mine & SHOAL__LOCK_HELD)) {
        shoal__lock_where(sh, lock, where, sizeof(where));
        return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call,
                            "this PE does not hold the lock at %s (shoal_set_lock or shoal_test_lock takes it)", where);
    }
    /* What the holder wrote in the critical section is complete first. */
    SHOAL__TRY(rc, out, shoal__quiet(sh, call));
    if ((mine & SHOAL__LOCK_NEXT) == 0) {
        SHOAL__TRY(rc, out,
                   shoal__lock_amo(sh, call, shoal__lock_tail(lock), SHOAL__LOCK_HOME, SHOAL__AMO_CSWAP, 0, me, &old));
        if (old != me) {
            /* Someone swapped in behind this PE and is about to name itself. */
            SHOAL__TRY(rc, out,
                       shoal__lock_wait(sh, call, lock, SHOAL_CMP_GT, mine, "for the next PE in line to show"));
            SHOAL__TRY(rc, out,
                       shoal__lock_amo(sh, call, shoal__lock_mine(lock), sh->my_pe, SHOAL__AMO_FETCH, 0, 0, &mine));
        }
    }
    if (mine & SHOAL__LOCK_NEXT)
        SHOAL__TRY(rc, out,
                   shoal__lock_amo(sh, call, shoal__lock_mine(lock), (int)(mine & SHOAL__LOCK_NEXT) - 1, SHOAL__AMO_OR,
                                   SHOAL__LOCK_GRANTED, 0, &old));
    /* Handed over, or out of the queue: nobody writes mine any more. */
    rc = shoal__lock_amo(sh, call, shoal__lock_mine(lock), sh->my_pe, SHOAL__AMO_SWAP, 0, 0, &old);
out:
    return rc;
}

/* ------------------------------------------------- threads of one PE */

/* The token of one lock (an instance's symmetric long), made at its first
 * use by a thread and kept until the process ends (a few bytes a lock;
 * reachable from the list). */
typedef struct shoal__lock_local {
    shoal_t sh;
    const long *lock;
    sem_t token;
    struct shoal__lock_local *next;
} shoal__lock_local_t;

static pthread_mutex_t shoal__lock_locals_guard = PTHREAD_MUTEX_INITIALIZER;
static shoal__lock_local_t *shoal__lock_locals;

/* lock's token, or NULL where threads need none (below MPI_THREAD_MULTIPLE,
 * only one thread calls shoal); out of memory is recorded. */
static int shoal__lock_local(shoal_t sh, const char *call, const long *lock, sem_t **m_p)
{
    shoal__lock_local_t *l;

    *m_p = NULL;
    if (!shoal__threads_multiple()) return SHOAL_SUCCESS;
    pthread_mutex_lock(&shoal__lock_locals_guard);
    for (l = shoal__lock_locals; l != NULL && !(l->sh == sh && l->lock == lock); l = l->next) {
    }
    if (l == NULL && (l = calloc(1, sizeof(*l))) != NULL) {
        if (sem_init(&l->token, 0, 1) != 0) {
            free(l);
            l = NULL;
        } else {
            l->sh = sh;
            l->lock = lock;
            l->next = shoal__lock_locals;
            shoal__lock_locals = l;
        }
    }
    pthread_mutex_unlock(&shoal__lock_locals_guard);
    if (l == NULL) return shoal__error(sh, SHOAL_ERR_NO_MEMORY, call, "out of memory (a lock's token for its threads)");
    *m_p = &l->token;
    return SHOAL_SUCCESS;
}

int shoal__set_lock(shoal_t sh, const char *call, long *lock)
{
    sem_t *m;
    int rc = shoal__lock_local(sh, call, lock, &m);

    if (rc != SHOAL_SUCCESS) return rc;
    if (m != NULL)
        while (sem_wait(m) != 0 && errno == EINTR) {
        }
    rc = shoal__lock_set_pe(sh, call, lock);
    if (rc != SHOAL_SUCCESS && m != NULL) sem_post(m);
    return rc;
}

int shoal__test_lock(shoal_t sh, const char *call, long *lock, int *got_p)
{
    sem_t *m;
    int rc;

    if (got_p == NULL) return shoal__error(sh, SHOAL_ERR_INVALID_ARG, call, "got_p is NULL");
    rc = shoal__lock_local(sh, call, lock, &m);
    if (rc != SHOAL_SUCCESS) return rc;
    if (m != NULL && sem_trywait(m) != 0) {
        *got_p = 0; /* another thread of this PE has it */
        return SHOAL_SUCCESS;
    }
    rc = shoal__lock_test_pe(sh, call, lock, got_p);
    if ((rc != SHOAL_SUCCESS || !*got_p) && m != NULL) sem_post(m);
    return rc;
}

int shoal__clear_lock(shoal_t sh, const char *call, long *lock)
{
    sem_t *m;
    int rc = shoal__lock_local(sh, call, lock, &m);

    if (rc != SHOAL_SUCCESS) return rc;
    rc = shoal__lock_clear_pe(sh, call, lock);
    /* The token goes back only where this PE did hold the lock (else clear
     * is refused before it changes anything, and the token is not taken). */
    if (m != NULL && rc != SHOAL_ERR_INVALID_ARG) sem_post(m);
    return rc;
}
