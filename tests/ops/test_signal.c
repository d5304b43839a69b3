/*
 * Signals (api/shoal.h, "Point-to-point synchronization"): shoal_put_signal
 * and shoal_put_signal_nbi with SHOAL_SIGNAL_SET and SHOAL_SIGNAL_ADD,
 * shoal_signal_op, shoal_signal_fetch and shoal_signal_wait_until.
 *
 * 1. A pipeline on the ring: for many rounds each PE sends its right
 *    neighbour a chunk (its length and bytes depend on the round) into one
 *    of NBUF slots, each slot with its own signal word; the receiver waits
 *    for the slot's signal and checks every byte of the chunk at once
 *    (whoever sees the signal sees the data), then acknowledges with
 *    shoal_signal_op (ADD) on the sender's word, which the sender waits
 *    for before it reuses the slot. Four passes: SET and ADD, blocking and
 *    _nbi.
 * 2. A fan-in: every other PE puts a chunk to one PE and adds its PE + 1 to
 *    one signal there; that PE waits for the exact sum (EQ, *seen_p that
 *    sum) and checks every chunk; every PE is the target in turn.
 * 3. shoal_signal_op SET and ADD from the left neighbour and from every PE,
 *    read with shoal_signal_fetch; every comparison on a word already
 *    satisfied returns at once with *seen_p the word's value.
 * 4. Mistakes: an unknown op or cmp (SHOAL_ERR_INVALID_ARG), a signal word
 *    or destination outside the heap (SHOAL_ERR_OUT_OF_BOUNDS), a
 *    misaligned signal word (SHOAL_ERR_INVALID_ARG, "align"), a word of a
 *    freed block (SHOAL_ERR_OUT_OF_BOUNDS), a PE out of range
 *    (SHOAL_ERR_PE); nothing written, the signal word included.
 *
 * With the argument "timeout" (run with SHOAL_TIMEOUT=1): a wait on a
 * signal nobody changes gives up with SHOAL_ERR_TIMEOUT within seconds,
 * naming the call, the comparison and the last value seen; an instance
 * whose cfg.timeout is set to 2 s by hand waits that long instead.
 *
 * GPU heaps (SHOAL_HEAP_KIND=gpu; skipped without a GPU) run fewer rounds.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { NBUF = 4, CH = 1000 }; /* pipeline slots, and the largest chunk */
enum { FCH = 96 };            /* fan-in chunk per sender */
/* Signal words of the pipeline: NBUF data signals (written by the left
 * neighbour), then the acknowledgements (written by the right one). */
enum { SIG_ACK = NBUF, SIG_OP, SIG_ADD, SIG_FAN, SIG_LOCAL, SIG_BAD, SIG_PAD, NSIG };

static int me, npes, right, left, host_heap;

static const char *op_name(int op) { return op == SHOAL_SIGNAL_SET ? "SET" : "ADD"; }

/* The chunk of round r of a pass: 1 to CH bytes. */
static size_t chunk_len(int r) { return 1 + ((size_t)r * 131 + (size_t)r * r * 7) % CH; }

static void chunk_pattern(void *dst, size_t n, int sender, int pass, int r)
{
    test_pattern(dst, 0, n, 0x516A1, (uint64_t)sender, (uint64_t)pass * 100000 + (uint64_t)r);
}

static uint64_t sig_read(shoal_t sh, uint64_t *sig)
{
    uint64_t v = UINT64_MAX;
    CHECK_OK(shoal_signal_fetch(sh, sig, &v), sh);
    return v;
}

/* One pass of the pipeline: rounds 1..rounds, op SET or ADD, blocking or nbi. */
static void pipeline(shoal_t sh, unsigned char *buf, uint64_t *sigs, int pass, int op, int nbi, int rounds)
{
    unsigned char(*src)[CH] = malloc(NBUF * CH), *got = malloc(CH), *want = malloc(CH);
    uint64_t zeros[NBUF + 1] = {0}, seen;

    CHECK(src != NULL && got != NULL && want != NULL);
    test_heap_write(sh, sigs, zeros, sizeof(zeros));
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int r = 1; r <= rounds; r++) {
        int slot = (r - 1) % NBUF, use = (r - 1) / NBUF + 1; /* this slot's use-th round */
        size_t n = chunk_len(r);
        uint64_t want_sig = op == SHOAL_SIGNAL_SET ? (uint64_t)r : (uint64_t)use;

        /* Send round r to the right neighbour once it is done with round r - NBUF. */
        if (r > NBUF) {
            seen = 0;
            CHECK_OK(shoal_signal_wait_until(sh, &sigs[SIG_ACK], SHOAL_CMP_GE, (uint64_t)(r - NBUF), &seen), sh);
            CHECK_MSG(seen >= (uint64_t)(r - NBUF) && seen < (uint64_t)r,
                      "pass %d: acknowledgements seen %llu, waiting for %d (round %d)", pass, (unsigned long long)seen,
                      r - NBUF, r);
        }
        if (nbi && slot == 0) CHECK_OK(shoal_quiet(sh), sh); /* the src slots of the last NBUF rounds */
        chunk_pattern(src[slot], n, me, pass, r);
        if (nbi)
            CHECK_OK(shoal_put_signal_nbi(sh, buf + slot * CH, src[slot], n, &sigs[slot],
                                          op == SHOAL_SIGNAL_SET ? (uint64_t)r : 1, op, right),
                     sh);
        else
            CHECK_OK(shoal_put_signal(sh, buf + slot * CH, src[slot], n, &sigs[slot],
                                      op == SHOAL_SIGNAL_SET ? (uint64_t)r : 1, op, right),
                     sh);
        if (!nbi) memset(src[slot], 0xA5, n); /* blocking: src is free again at once */

        /* Receive round r from the left neighbour: once its signal shows,
         * every byte must be there. */
        seen = 0;
        CHECK_OK(shoal_signal_wait_until(sh, &sigs[slot], SHOAL_CMP_GE, want_sig, &seen), sh);
        CHECK_MSG(seen == want_sig, "pass %d (%s%s): slot %d signal seen %llu, expected %llu in round %d", pass,
                  op_name(op), nbi ? ", nbi" : "", slot, (unsigned long long)seen, (unsigned long long)want_sig, r);
        test_heap_read(sh, got, buf + slot * CH, n);
        chunk_pattern(want, n, left, pass, r);
        {
            long long d = check_first_diff(got, want, n);
            CHECK_MSG(d < 0,
                      "pass %d (%s%s), round %d from PE %d: byte %lld of %zu is 0x%02x, expected 0x%02x, once its "
                      "signal (%llu) showed",
                      pass, op_name(op), nbi ? ", nbi" : "", r, left, d, n, d < 0 ? 0 : got[d], d < 0 ? 0 : want[d],
                      (unsigned long long)seen);
        }
        CHECK_OK(shoal_signal_op(sh, &sigs[SIG_ACK], 1, SHOAL_SIGNAL_ADD, left), sh);
    }
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    /* Every word ends where the rounds left it. */
    CHECK_EQ_SIZE(sig_read(sh, &sigs[SIG_ACK]), rounds);
    for (int s = 0; s < NBUF; s++) {
        int last = rounds - ((rounds - 1 - s) % NBUF + NBUF) % NBUF; /* the last round that used slot s */
        uint64_t e = op == SHOAL_SIGNAL_SET ? (uint64_t)last : (uint64_t)((rounds - s + NBUF - 1) / NBUF);
        uint64_t v = sig_read(sh, &sigs[s]);
        CHECK_MSG(v == e, "pass %d (%s): slot %d signal ends at %llu, expected %llu", pass, op_name(op), s,
                  (unsigned long long)v, (unsigned long long)e);
    }
    CHECK_OK(shoal_barrier_all(sh), sh);
    free(src);
    free(got);
    free(want);
}

/* Every other PE puts FCH bytes at its own place of target's fan area
 * and adds its PE + 1 to target's SIG_FAN. */
static void fan_in(shoal_t sh, unsigned char *fan, uint64_t *sigs, int rounds)
{
    unsigned char src[FCH], got[FCH], want[FCH];
    uint64_t zero = 0;

    test_heap_write(sh, &sigs[SIG_FAN], &zero, sizeof(zero));
    CHECK_OK(shoal_barrier_all(sh), sh);
    for (int t = 0; t < npes; t++) {
        uint64_t per_round = (uint64_t)npes * (npes + 1) / 2 - (uint64_t)(t + 1);
        for (int k = 0; k < rounds; k++) {
            int tag = 1000 + t * rounds + k;
            if (me != t) {
                chunk_pattern(src, FCH, me, tag, k);
                if (k % 2)
                    CHECK_OK(shoal_put_signal_nbi(sh, fan + me * FCH, src, FCH, &sigs[SIG_FAN], (uint64_t)me + 1,
                                                  SHOAL_SIGNAL_ADD, t),
                             sh);
                else
                    CHECK_OK(shoal_put_signal(sh, fan + me * FCH, src, FCH, &sigs[SIG_FAN], (uint64_t)me + 1,
                                              SHOAL_SIGNAL_ADD, t),
                             sh);
            } else {
                uint64_t seen = 0, sum = per_round * (uint64_t)(k + 1);
                CHECK_OK(shoal_signal_wait_until(sh, &sigs[SIG_FAN], SHOAL_CMP_EQ, sum, &seen), sh);
                CHECK_MSG(seen == sum, "fan-in to PE %d round %d: seen %llu, expected %llu", t, k,
                          (unsigned long long)seen, (unsigned long long)sum);
                for (int q = 0; q < npes; q++) {
                    if (q == t) continue;
                    test_heap_read(sh, got, fan + q * FCH, FCH);
                    chunk_pattern(want, FCH, q, tag, k);
                    CHECK_MSG(check_first_diff(got, want, FCH) < 0,
                              "fan-in to PE %d round %d: PE %d's chunk differs at byte %lld once the sum showed", t, k,
                              q, check_first_diff(got, want, FCH));
                }
            }
            CHECK_OK(shoal_barrier_all(sh), sh); /* the target checked before the next round overwrites */
        }
        if (me == t) {
            CHECK_EQ_SIZE(sig_read(sh, &sigs[SIG_FAN]), per_round * (uint64_t)rounds);
            test_heap_write(sh, &sigs[SIG_FAN], &zero, sizeof(zero));
        }
        CHECK_OK(shoal_barrier_all(sh), sh);
    }
}

/* signal_op and signal_fetch, and waits that are satisfied already. */
static void ops_and_fetch(shoal_t sh, uint64_t *sigs)
{
    static const struct {
        int cmp;
        uint64_t value;
    } sat[] = {{SHOAL_CMP_EQ, 5}, {SHOAL_CMP_NE, 4}, {SHOAL_CMP_GT, 4},
               {SHOAL_CMP_GE, 5}, {SHOAL_CMP_LT, 6}, {SHOAL_CMP_LE, 5}};
    uint64_t zeros[3] = {0}, v, seen;
    const uint64_t big = (uint64_t)1 << 62;

    test_heap_write(sh, &sigs[SIG_OP], zeros, sizeof(zeros)); /* SIG_OP, SIG_ADD, SIG_FAN */
    CHECK_OK(shoal_barrier_all(sh), sh);
    /* SET from the left neighbour, then (ordered by a quiet) ADD on it. */
    CHECK_OK(shoal_signal_op(sh, &sigs[SIG_OP], big + 1000 + (uint64_t)me, SHOAL_SIGNAL_SET, right), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_signal_op(sh, &sigs[SIG_OP], 7, SHOAL_SIGNAL_ADD, right), sh);
    /* ADD from every PE, every PE a different amount. */
    for (int k = 0; k < npes; k++)
        CHECK_OK(shoal_signal_op(sh, &sigs[SIG_ADD], (uint64_t)(me + 1) << 20, SHOAL_SIGNAL_ADD, (me + k) % npes), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    v = sig_read(sh, &sigs[SIG_OP]);
    CHECK_MSG(v == big + 1007 + (uint64_t)left, "signal_op SET then ADD from PE %d: %llu, expected %llu", left,
              (unsigned long long)v, (unsigned long long)(big + 1007 + (uint64_t)left));
    v = sig_read(sh, &sigs[SIG_ADD]);
    CHECK_MSG(v == ((uint64_t)npes * (npes + 1) / 2) << 20, "signal_op ADD from %d PEs: %llu, expected %llu", npes,
              (unsigned long long)v, (unsigned long long)(((uint64_t)npes * (npes + 1) / 2) << 20));
    /* The waits return the word's value, which has all 64 bits. */
    seen = 0;
    CHECK_OK(shoal_signal_wait_until(sh, &sigs[SIG_OP], SHOAL_CMP_GT, big, &seen), sh);
    CHECK_EQ_SIZE(seen, big + 1007 + (uint64_t)left);
    CHECK_OK(shoal_signal_wait_until(sh, &sigs[SIG_OP], SHOAL_CMP_NE, 0, NULL), sh);

    /* A word of this PE at 5: every comparison that holds returns at once. */
    CHECK_OK(shoal_signal_op(sh, &sigs[SIG_FAN], 5, SHOAL_SIGNAL_SET, me), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_EQ_SIZE(sig_read(sh, &sigs[SIG_FAN]), 5);
    for (size_t i = 0; i < sizeof(sat) / sizeof(sat[0]); i++) {
        seen = 0;
        CHECK_OK(shoal_signal_wait_until(sh, &sigs[SIG_FAN], sat[i].cmp, sat[i].value, &seen), sh);
        CHECK_MSG(seen == 5, "signal_wait_until cmp %d value %llu: seen %llu, expected 5", sat[i].cmp,
                  (unsigned long long)sat[i].value, (unsigned long long)seen);
    }
    /* ADD wraps around 2^64. */
    CHECK_OK(shoal_signal_op(sh, &sigs[SIG_FAN], UINT64_MAX - 1, SHOAL_SIGNAL_ADD, me), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_EQ_SIZE(sig_read(sh, &sigs[SIG_FAN]), 3);
    CHECK_OK(shoal_barrier_all(sh), sh);
}

static void bad_input(shoal_t sh, unsigned char *buf, uint64_t *sigs, int check_level)
{
    uint64_t *freed = shoal_malloc(sh, 64);
    unsigned char src[64], img[64], local_buf[64];
    uint64_t local = 11, v = 0, *mis = (uint64_t *)((char *)&sigs[SIG_BAD] - 4),
             *mis1 = (uint64_t *)((char *)&sigs[SIG_BAD] + 1);
    uint64_t bad0 = 0x1234567800ull + (uint64_t)me;

    CHECK_NONNULL(freed, sh);
    CHECK_OK(shoal_free(sh, freed), sh);
    memset(src, 0x77, sizeof(src));
    test_heap_fill(sh, buf, 0x3C, sizeof(img));
    test_heap_write(sh, &sigs[SIG_BAD], &bad0, sizeof(bad0));
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* An unknown op. */
    CHECK_ERR(shoal_put_signal(sh, buf, src, 64, &sigs[SIG_BAD], 1, 7, right), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_put_signal");
    check_note("op 7: %s", shoal_last_error(sh));
    CHECK_ERR(shoal_put_signal_nbi(sh, buf, src, 64, &sigs[SIG_BAD], 1, -1, right), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_put_signal_nbi");
    CHECK_ERR(shoal_signal_op(sh, &sigs[SIG_BAD], 1, 2, right), SHOAL_ERR_INVALID_ARG, sh, "shoal_signal_op");
    CHECK_ERR(shoal_signal_op(sh, &sigs[SIG_BAD], 1, 7, me), SHOAL_ERR_INVALID_ARG, sh, "shoal_signal_op");
    /* An unknown cmp: refused at once, not waited on. */
    CHECK_ERR(shoal_signal_wait_until(sh, &sigs[SIG_BAD], 6, 0, &v), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_signal_wait_until");
    check_note("cmp 6: %s", shoal_last_error(sh));
    CHECK_ERR(shoal_signal_wait_until(sh, &sigs[SIG_BAD], -1, 0, NULL), SHOAL_ERR_INVALID_ARG, sh,
              "shoal_signal_wait_until");
    /* A signal word outside the heap: on the stack, towards this PE too. */
    CHECK_ERR(shoal_put_signal(sh, buf, src, 64, &local, 1, SHOAL_SIGNAL_SET, right), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "shoal_put_signal");
    check_note("stack signal word: %s", shoal_last_error(sh));
    CHECK_STATUS(shoal_put_signal_nbi(sh, buf, src, 64, &local, 1, SHOAL_SIGNAL_ADD, me), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_signal_op(sh, &local, 5, SHOAL_SIGNAL_SET, me), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_signal_op(sh, &local, 5, SHOAL_SIGNAL_ADD, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_ERR(shoal_signal_fetch(sh, &local, &v), SHOAL_ERR_OUT_OF_BOUNDS, sh, "shoal_signal_fetch");
    CHECK_ERR(shoal_signal_wait_until(sh, &local, SHOAL_CMP_EQ, 11, &v), SHOAL_ERR_OUT_OF_BOUNDS, sh,
              "shoal_signal_wait_until");
    CHECK_EQ_INT(local, 11);
    /* A destination outside the heap: the signal must not change either. */
    CHECK_STATUS(shoal_put_signal(sh, local_buf, src, 64, &sigs[SIG_BAD], 1, SHOAL_SIGNAL_ADD, right),
                 SHOAL_ERR_OUT_OF_BOUNDS, sh);
    CHECK_STATUS(shoal_put_signal_nbi(sh, local_buf, src, 64, &sigs[SIG_BAD], 9, SHOAL_SIGNAL_SET, me),
                 SHOAL_ERR_OUT_OF_BOUNDS, sh);
    /* Misaligned signal words (inside the block). */
    CHECK_ERR(shoal_put_signal(sh, buf, src, 64, mis, 1, SHOAL_SIGNAL_ADD, right), SHOAL_ERR_INVALID_ARG, sh, "align");
    check_note("misaligned signal word: %s", shoal_last_error(sh));
    CHECK_ERR(shoal_put_signal_nbi(sh, buf, src, 64, mis1, 1, SHOAL_SIGNAL_SET, me), SHOAL_ERR_INVALID_ARG, sh,
              "align");
    CHECK_ERR(shoal_signal_op(sh, mis, 1, SHOAL_SIGNAL_ADD, right), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_signal_fetch(sh, mis1, &v), SHOAL_ERR_INVALID_ARG, sh, "align");
    CHECK_ERR(shoal_signal_wait_until(sh, mis, SHOAL_CMP_GE, 0, &v), SHOAL_ERR_INVALID_ARG, sh, "align");
    /* With SHOAL_CHECK basic: a signal word of a freed block (GE 0 would hold). */
    if (check_level >= SHOAL_CHECK_BASIC) {
        CHECK_STATUS(shoal_signal_op(sh, freed, 1, SHOAL_SIGNAL_ADD, right), SHOAL_ERR_OUT_OF_BOUNDS, sh);
        CHECK_STATUS(shoal_signal_fetch(sh, freed, &v), SHOAL_ERR_OUT_OF_BOUNDS, sh);
        CHECK_STATUS(shoal_signal_wait_until(sh, freed, SHOAL_CMP_GE, 0, &v), SHOAL_ERR_OUT_OF_BOUNDS, sh);
        check_note("freed signal word: %s", shoal_last_error(sh));
    }
    /* PEs out of range; a NULL result. */
    CHECK_ERR(shoal_put_signal(sh, buf, src, 64, &sigs[SIG_BAD], 1, SHOAL_SIGNAL_SET, npes), SHOAL_ERR_PE, sh,
              "shoal_put_signal");
    CHECK_STATUS(shoal_put_signal_nbi(sh, buf, src, 64, &sigs[SIG_BAD], 1, SHOAL_SIGNAL_SET, -1), SHOAL_ERR_PE, sh);
    CHECK_STATUS(shoal_signal_op(sh, &sigs[SIG_BAD], 1, SHOAL_SIGNAL_ADD, npes + 2), SHOAL_ERR_PE, sh);
    CHECK_ERR(shoal_signal_fetch(sh, &sigs[SIG_BAD], NULL), SHOAL_ERR_INVALID_ARG, sh, "shoal_signal_fetch");

    /* Nothing was written: the data and the signal words, here and on the
     * neighbour. */
    CHECK_OK(shoal_quiet(sh), sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    test_heap_read(sh, img, buf, sizeof(img));
    CHECK_MEM_FILLED(img, 0x3C, sizeof(img));
    v = sig_read(sh, &sigs[SIG_BAD]);
    CHECK_MSG(v == bad0, "refused signal calls changed PE %d's signal word: %#llx, expected %#llx", me,
              (unsigned long long)v, (unsigned long long)bad0);
    CHECK_EQ_SIZE(sig_read(sh, &sigs[SIG_BAD - 1]), 0); /* the word the misaligned ones straddle */
    CHECK_OK(shoal_barrier_all(sh), sh);
}

/* Wait on a word of this PE that nobody changes: SHOAL_ERR_TIMEOUT after
 * the instance's timeout (lo..hi seconds), naming the condition and the
 * last value seen. */
static void wait_times_out(shoal_t sh, uint64_t *sig, uint64_t at, int cmp, uint64_t value, const char *op,
                           const char *name, double lo, double hi)
{
    char s_at[32], s_value[32];
    uint64_t seen = 0;
    double t0, dt;
    const char *msg;

    CHECK_OK(shoal_signal_op(sh, sig, at, SHOAL_SIGNAL_SET, me), sh);
    CHECK_OK(shoal_quiet(sh), sh);
    t0 = MPI_Wtime();
    CHECK_STATUS(shoal_signal_wait_until(sh, sig, cmp, value, &seen), SHOAL_ERR_TIMEOUT, sh);
    dt = MPI_Wtime() - t0;
    msg = shoal_last_error(sh);
    check_note("signal wait timed out after %.2f s: %s", dt, msg);
    CHECK_MSG(dt >= lo && dt <= hi, "signal_wait_until gave up after %.2f s, expected %.1f to %.1f s", dt, lo, hi);
    snprintf(s_at, sizeof(s_at), "%llu", (unsigned long long)at);
    snprintf(s_value, sizeof(s_value), "%llu", (unsigned long long)value);
    CHECK_CONTAINS(msg, "shoal_signal_wait_until");
    CHECK_CONTAINS(msg, s_at);    /* the last value seen */
    CHECK_CONTAINS(msg, s_value); /* what it waited for */
    CHECK_MSG(test_names_cmp(msg, op, name), "timeout message does not name the comparison (%s or %s): \"%s\"", op,
              name, msg);
}

static int run_timeout(void)
{
    shoal_config_t cfg;
    shoal_t sh, sh2;
    uint64_t *sigs, *sigs2;

    if (!test_init_timeout_or_skip(1u << 20, &sh)) return TEST_SKIP;
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    sigs = shoal_calloc(sh, NSIG, sizeof(uint64_t));
    CHECK_NONNULL(sigs, sh);
    CHECK_OK(shoal_barrier_all(sh), sh);
    wait_times_out(sh, &sigs[SIG_LOCAL], 4242, SHOAL_CMP_GE, 4243, ">=", "CMP_GE", 0.9, 6);
    wait_times_out(sh, &sigs[SIG_LOCAL], 31337, SHOAL_CMP_LT, 17, "<", "CMP_LT", 0.9, 6);
    CHECK_OK(shoal_barrier_all(sh), sh);

    /* The config's field, set by hand, rules over SHOAL_TIMEOUT. */
    test_config(&cfg, 1u << 20);
    cfg.timeout = 2.0;
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &sh2), NULL);
    sigs2 = shoal_calloc(sh2, NSIG, sizeof(uint64_t));
    CHECK_NONNULL(sigs2, sh2);
    CHECK_OK(shoal_barrier_all(sh2), sh2);
    wait_times_out(sh2, &sigs2[SIG_LOCAL], 9001, SHOAL_CMP_EQ, 9002, "==", "CMP_EQ", 1.8, 8);
    /* The instances still work. */
    CHECK_OK(shoal_barrier_all(sh2), sh2);
    CHECK_OK(shoal_signal_op(sh2, &sigs2[SIG_LOCAL], 1, SHOAL_SIGNAL_ADD, (me + 1) % npes), sh2);
    CHECK_OK(shoal_barrier_all(sh2), sh2);
    CHECK_EQ_SIZE(sig_read(sh2, &sigs2[SIG_LOCAL]), 9002);
    CHECK_OK(shoal_free(sh2, sigs2), sh2);
    CHECK_OK(shoal_finalize(sh2), NULL);
    CHECK_OK(shoal_free(sh, sigs), sh);
    if (me == 0) check_note("signal timeouts passed on %d PEs", npes);
    CHECK_OK(shoal_finalize(sh), NULL);
    return 0;
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t sh;
    unsigned char *buf, *fan;
    uint64_t *sigs;
    int rounds, rc;

    MPI_Init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
        rc = run_timeout();
        MPI_Finalize();
        return rc;
    }
    test_config(&cfg, 1u << 20);
    if (cfg.timeout == 0 || cfg.timeout > 30) cfg.timeout = 30; /* a lost signal: an error, not a hang */
    if (!test_init_or_skip(&cfg, &sh)) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    me = shoal_my_pe(sh);
    npes = shoal_n_pes(sh);
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    host_heap = test_heap_is_host(sh);
    /* A PE reached over mpi_rma costs an MPI round trip per atomic (more
     * with ranks sharing cores): the pipeline runs fewer rounds. */
    rounds = !host_heap ? 24 : test_any_pe_over(sh, "mpi_rma") ? 60 : 200;

    buf = shoal_malloc(sh, NBUF * CH);
    fan = shoal_malloc(sh, (size_t)npes * FCH);
    sigs = shoal_calloc(sh, NSIG, sizeof(uint64_t));
    CHECK_NONNULL(buf, sh);
    CHECK_NONNULL(fan, sh);
    CHECK_NONNULL(sigs, sh);

    pipeline(sh, buf, sigs, 0, SHOAL_SIGNAL_SET, 0, rounds);
    pipeline(sh, buf, sigs, 1, SHOAL_SIGNAL_ADD, 1, rounds);
    pipeline(sh, buf, sigs, 2, SHOAL_SIGNAL_SET, 1, rounds / 2);
    pipeline(sh, buf, sigs, 3, SHOAL_SIGNAL_ADD, 0, rounds / 2);
    if (me == 0) check_note("pipeline: %d + %d rounds of SET and ADD, blocking and nbi", rounds * 2, rounds);
    fan_in(sh, fan, sigs, host_heap ? 6 : 2);
    ops_and_fetch(sh, sigs);
    bad_input(sh, buf, sigs, cfg.check);

    CHECK_OK(shoal_free(sh, sigs), sh);
    CHECK_OK(shoal_free(sh, fan), sh);
    CHECK_OK(shoal_free(sh, buf), sh);
    if (me == 0) check_note("signals passed on %d PEs (%s heap)", npes, host_heap ? "host" : "GPU");
    CHECK_OK(shoal_finalize(sh), NULL);
    MPI_Finalize();
    return 0;
}
