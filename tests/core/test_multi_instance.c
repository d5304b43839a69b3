/*
 * Several instances in one process: two on MPI_COMM_WORLD at once and one on
 * an even/odd split of it. Each has its own heap and its own PE numbering;
 * data and barriers of one never touch another; finalizing one leaves the
 * others working; the last one is left alive at MPI_Finalize, which must
 * clean it up and still let the program exit 0. A fourth instance belongs
 * to a "plugin" that finalizes it from its own MPI_COMM_SELF delete
 * callback, inside MPI_Finalize's attribute teardown: that must work too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <mpi.h>

#include "common/check.h"
#include "shoal.h"

enum { N = 64 };

static int wrank, wsize;

/* The plugin's instance, finalized by its MPI_COMM_SELF attribute. */
static shoal_t plugin_sh;
static int plugin_rc = 1;
static int plugin_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    plugin_rc = shoal_finalize(plugin_sh);
    return MPI_SUCCESS;
}

static int value(int round, int pe, int which, int i) { return ((round * 16 + which) * 1000 + pe) * 100 + i; }

/* Put round data through sh into `to`; the caller barriers, then check_from. */
static void put_round(shoal_t sh, int *buf, int round, int which, int to)
{
    int src[N];
    for (int i = 0; i < N; i++) src[i] = value(round, shoal_my_pe(sh), which, i);
    CHECK_OK(shoal_int_put(sh, buf, src, N, to), sh);
}

static void check_from(shoal_t sh, const int *buf, int round, int which, int from)
{
    int got[N];
    test_heap_read(sh, got, buf, sizeof(got));
    for (int i = 0; i < N; i++)
        CHECK_MSG(got[i] == value(round, from, which, i),
                  "instance %c, round %d: [%d] = %d, expected %d (from pe %d of that instance)", 'A' + which, round, i,
                  got[i], value(round, from, which, i), from);
}

static void check_instance_comm(shoal_t sh, MPI_Comm parent)
{
    MPI_Comm c;
    int cmp;
    CHECK_OK(shoal_comm(sh, &c), sh);
    MPI_Comm_compare(c, parent, &cmp);
    CHECK_MSG(cmp == MPI_CONGRUENT,
              "shoal_comm vs the comm given to shoal_init: %d, expected "
              "MPI_CONGRUENT (%d)",
              cmp, MPI_CONGRUENT);
}

int main(int argc, char **argv)
{
    shoal_config_t cfg;
    shoal_t a, b, s;
    MPI_Comm sub, ca, cb;
    int srank, ssize, cmp, round = 0;
    int *buf_a, *buf_b, *buf_s;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    test_config(&cfg, 1u << 20);

    /* two instances on the same communicator */
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &a), NULL);
    CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &b), NULL);
    CHECK(a != b);
    CHECK_EQ_INT(shoal_my_pe(a), wrank);
    CHECK_EQ_INT(shoal_my_pe(b), wrank);
    CHECK_EQ_INT(shoal_n_pes(a), wsize);
    CHECK_EQ_INT(shoal_n_pes(b), wsize);
    check_instance_comm(a, MPI_COMM_WORLD);
    check_instance_comm(b, MPI_COMM_WORLD);
    CHECK_OK(shoal_comm(a, &ca), a);
    CHECK_OK(shoal_comm(b, &cb), b);
    MPI_Comm_compare(ca, cb, &cmp);
    CHECK_MSG(cmp != MPI_IDENT, "two instances share one communicator");

    buf_a = shoal_malloc(a, N * sizeof(int));
    buf_b = shoal_malloc(b, N * sizeof(int));
    CHECK_NONNULL(buf_a, a);
    CHECK_NONNULL(buf_b, b);
    CHECK(shoal_addr_accessible(a, buf_a, wrank) > 0);
    CHECK(shoal_addr_accessible(b, buf_b, wrank) > 0);
    CHECK_MSG(shoal_addr_accessible(a, buf_b, wrank) == 0, "B's allocation is inside A's heap");
    CHECK_MSG(shoal_addr_accessible(b, buf_a, wrank) == 0, "A's allocation is inside B's heap");
    CHECK_EQ_PTR(shoal_ptr(a, buf_b, wrank), NULL);
    CHECK_STATUS(shoal_free(a, buf_b), SHOAL_ERR_INVALID_ARG, a);

    /* opposite directions on the two instances; barriers in either order */
    for (int r = 0; r < 10; r++, round++) {
        put_round(a, buf_a, round, 0, (wrank + 1) % wsize);
        put_round(b, buf_b, round, 1, (wrank + wsize - 1) % wsize);
        if (r % 2) {
            CHECK_OK(shoal_barrier_all(b), b);
            CHECK_OK(shoal_barrier_all(a), a);
        } else {
            CHECK_OK(shoal_barrier_all(a), a);
            CHECK_OK(shoal_barrier_all(b), b);
        }
        check_from(a, buf_a, round, 0, (wrank + wsize - 1) % wsize);
        check_from(b, buf_b, round, 1, (wrank + 1) % wsize);
        CHECK_OK(shoal_barrier_all(a), a); /* before the next round overwrites */
    }

    /* a third instance on an even/odd split */
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &sub);
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);
    CHECK_OK(shoal_init(sub, &cfg, &s), NULL);
    CHECK_EQ_INT(shoal_my_pe(s), srank);
    CHECK_EQ_INT(shoal_n_pes(s), ssize);
    check_instance_comm(s, sub);
    CHECK_STATUS(shoal_put(s, buf_a, &srank, sizeof(int), 0), SHOAL_ERR_OUT_OF_BOUNDS, s);
    buf_s = shoal_malloc(s, N * sizeof(int));
    CHECK_NONNULL(buf_s, s);
    CHECK_STATUS(shoal_put(s, buf_s, &srank, sizeof(int), ssize), SHOAL_ERR_PE, s);

    for (int r = 0; r < 10; r++, round++) {
        put_round(s, buf_s, round, 2, (srank + 1) % ssize);
        put_round(a, buf_a, round, 0, (wrank + 1) % wsize);
        put_round(b, buf_b, round, 1, (wrank + 1) % wsize);
        CHECK_OK(shoal_barrier_all(s), s);
        CHECK_OK(shoal_barrier_all(b), b);
        CHECK_OK(shoal_barrier_all(a), a);
        check_from(s, buf_s, round, 2, (srank + ssize - 1) % ssize);
        check_from(a, buf_a, round, 0, (wrank + wsize - 1) % wsize);
        check_from(b, buf_b, round, 1, (wrank + wsize - 1) % wsize);
        CHECK_OK(shoal_barrier_all(a), a); /* covers s's members too */
    }

    /* finalize B: A and S keep working */
    CHECK_OK(shoal_free(b, buf_b), b);
    CHECK_OK(shoal_finalize(b), NULL);
    for (int r = 0; r < 10; r++, round++) {
        put_round(a, buf_a, round, 0, (wrank + wsize - 1) % wsize);
        put_round(s, buf_s, round, 2, (srank + ssize - 1) % ssize);
        CHECK_OK(shoal_barrier_all(a), a);
        CHECK_OK(shoal_barrier_all(s), s);
        check_from(a, buf_a, round, 0, (wrank + 1) % wsize);
        check_from(s, buf_s, round, 2, (srank + 1) % ssize);
        CHECK_OK(shoal_barrier_all(a), a);
    }

    /* finalize A; S survives the parent communicator's free and is left for
     * MPI_Finalize to clean up */
    CHECK_OK(shoal_finalize(a), NULL);
    MPI_Comm_free(&sub);
    for (int r = 0; r < 5; r++, round++) {
        put_round(s, buf_s, round, 2, (srank + 1) % ssize);
        CHECK_OK(shoal_barrier_all(s), s);
        check_from(s, buf_s, round, 2, (srank + ssize - 1) % ssize);
        CHECK_OK(shoal_barrier_all(s), s);
    }
    {
        int keyval;
        test_config(&cfg, 1 << 20);
        CHECK_OK(shoal_init(MPI_COMM_WORLD, &cfg, &plugin_sh), NULL);
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, plugin_delete, &keyval, NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL);
    }
    if (wrank == 0) check_note("3 instances passed; leaving one on the split communicator to MPI_Finalize");
    /* Under SHOAL_DEBUG=WARN (tests/TESTS: multi_instance_2_warn) the
     * instance left alive is named in a WARN: catch this PE's stderr. */
    {
        const char *dbg = getenv("SHOAL_DEBUG");
        int warn = dbg != NULL && strcasecmp(dbg, "WARN") == 0, saved = -1, fd = -1;
        char path[] = "/tmp/shoal-left-alive-XXXXXX", text[8192] = "", want[128];
        if (warn) {
            fflush(stderr);
            CHECK((fd = mkstemp(path)) >= 0 && (saved = dup(2)) >= 0 && dup2(fd, 2) == 2);
        }
        MPI_Finalize();
        if (warn) {
            ssize_t n;
            fflush(stderr);
            dup2(saved, 2);
            n = pread(fd, text, sizeof(text) - 1, 0);
            text[n > 0 ? n : 0] = '\0';
            close(fd);
            unlink(path);
            snprintf(want, sizeof(want), "an instance of %d PE%s (PE %d here; created by the shoal_init call at ",
                     ssize, ssize == 1 ? "" : "s", srank);
            CHECK_CONTAINS(text, want);
            CHECK_CONTAINS(text, "test_multi_instance");
            CHECK_CONTAINS(text, "was not finalized before MPI_Finalize");
            CHECK_MSG(strstr(strstr(text, want) + 1, want) == NULL, "warned twice:\n%s", text);
        }
    }
    CHECK_MSG(plugin_rc == 0, "shoal_finalize from an MPI_COMM_SELF delete callback returned %d", plugin_rc);
    return 0;
}
