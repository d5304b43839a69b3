/*
 * The OpenSHMEM profiling interface (pshmem.h): this program is its own
 * profiler. It defines shmem_putmem, shmem_ctx_putmem, shmem_int_fadd (an
 * old name) and shmem_pcontrol, each counting its calls and passing them on
 * to the pshmem_ entry; linked against libshoal.a, whose own shmem_ names
 * are weak, its definitions win. Checked, with the data crossing PEs:
 *
 * - each of the program's calls reaches the profiler once, and the library
 *   through it (the data arrives, the totals are exact);
 * - the library's calls between its own routines bypass the profiler:
 *   shmem_put64 and shmem_ctx_put64 (which call shmem_ctx_putmem inside)
 *   and shmem_int_atomic_fetch_add count nothing;
 * - a routine the profiler leaves alone is its pshmem_ entry (one address),
 *   the replaced ones are not; the 1.2 names' entries (p_my_pe, pshmalloc)
 *   work;
 * - shmem_pcontrol: the profiler's gets the level and the arguments after
 *   it; the library's (pshmem_pcontrol) does nothing.
 *
 * tests/project/test_install.c checks the same through the installed
 * libshoal.so, with a profiler compiled apart from the program.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/check.h"
#include "pshmem.h"

static int n_putmem, n_ctx_putmem, n_fadd, n_pcontrol, last_level, last_arg;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    n_putmem++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe)
{
    n_ctx_putmem++;
    pshmem_ctx_putmem(ctx, dest, source, nelems, pe);
}

int shmem_int_fadd(int *dest, int value, int pe)
{
    n_fadd++;
    return pshmem_int_fadd(dest, value, pe);
}

void shmem_pcontrol(const int level, ...)
{
    va_list ap;
    n_pcontrol++;
    last_level = level;
    if (level > 2) { /* profiler-defined levels read what follows */
        va_start(ap, level);
        last_arg = va_arg(ap, int);
        va_end(ap);
    }
}

static char buf[256];
static int counter;

int main(void)
{
    char src[256];
    int me, npes, right, left;
    void (*getmem)(void *, const void *, size_t, int) = shmem_getmem;
    void (*putmem)(void *, const void *, size_t, int) = shmem_putmem;
    int (*my_pe)(void) = _my_pe;
    long *h;

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    for (int i = 0; i < 256; i++) src[i] = (char)(me * 13 + i);

    shmem_putmem(buf, src, 64, right);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, buf + 64, src + 64, 64, right);
    CHECK_EQ_INT(n_putmem, 1);
    CHECK_EQ_INT(n_ctx_putmem, 1);
    /* Inside the library these call shmem_ctx_putmem: the profiler's count stays. */
    shmem_put64(buf + 128, src + 128, 8, right);
    shmem_ctx_put64(SHMEM_CTX_DEFAULT, buf + 192, src + 192, 8, right);
    CHECK_EQ_INT(n_ctx_putmem, 1);
    CHECK_EQ_INT(n_putmem, 1);
    shmem_barrier_all();
    for (int i = 0; i < 256; i++) CHECK_MSG(buf[i] == (char)(left * 13 + i), "byte %d from PE %d", i, left);

    /* Every PE adds to PE 0's counter, through the profiler and past it. */
    CHECK(shmem_int_fadd(&counter, me + 1, 0) >= 0);
    (void)shmem_int_atomic_fetch_add(&counter, 100, 0);
    CHECK_EQ_INT(n_fadd, 1);
    shmem_barrier_all();
    if (me == 0) CHECK_EQ_INT(counter, npes * (npes + 1) / 2 + 100 * npes);

    /* One address for what the profiler left alone, two for what it replaced. */
    CHECK(getmem == pshmem_getmem);
    CHECK(putmem != pshmem_putmem);
    CHECK(my_pe == p_my_pe);
    CHECK_EQ_INT(p_my_pe(), me);
    CHECK_EQ_INT(p_num_pes(), npes);
    CHECK_EQ_INT(pshmem_n_pes(), npes);
    h = pshmalloc(sizeof(long));
    CHECK(h != NULL);
    pshmem_long_p(h, 7 + me, right);
    shmem_barrier_all();
    CHECK_EQ_INT(*h, 7 + left);
    CHECK_EQ_INT(pshmem_long_g(h, right), 7 + me);
    shmem_barrier_all();
    pshfree(h);

    shmem_pcontrol(1);
    shmem_pcontrol(3, 42, "event");
    CHECK_EQ_INT(n_pcontrol, 2);
    CHECK_EQ_INT(last_level, 3);
    CHECK_EQ_INT(last_arg, 42);
    pshmem_pcontrol(2, "ignored", 1.0);
    CHECK_EQ_INT(n_pcontrol, 2);

    shmem_barrier_all();
    if (me == 0) check_note("pshmem: %d PEs, the profiler saw each of the program's calls once", npes);
    shmem_finalize();
    return 0;
}
