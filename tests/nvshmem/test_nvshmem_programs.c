/*
 * NVSHMEM programs written for NVIDIA's library, built and run on shoal
 * unchanged (api/nvshmem/): read from the folder SHOAL_NVSHMEM_PROGRAMS
 * names, ../shared/nvshmem-programs from the source tree by default; the
 * test skips (exit 77), naming the folder, where it is absent. As their
 * users would: shoal installed into a scratch prefix (build/install.sh with
 * DESTDIR), each program compiled with the installed oshcc (which finds the
 * installed nvshmem.h beside shoal.h and links libshoal) and run with the
 * installed oshrun. What counts as passing:
 *   primer    the NVSHMEM primer's program (primer.c): at 2 PEs it exits 0
 *             and PE 1 prints "PE 1 received: 10.0 20.0 30.0 40.0 " once;
 *             it reads its symmetric buffer from the host, so it runs on
 *             the host heap (SHOAL_HEAP_KIND=host, GPU or not)
 *   prk-build the ParRes Kernels' four NVSHMEM transposes (prk/) compile
 *             and link unchanged with the installed shoal-nvcc, with their
 *             own build line (-rdc=true, C++20, cuBLAS); no GPU needed
 *   prk       the same, then each runs (not put: the program misplaces
 *             its blocks for 2 or more PEs, see below) on the GPU heap (prog 10 1024, as
 *             PRK's README runs them) at 2 PEs, at 4 PEs, and at 4 PEs in
 *             two simulated nodes (SHOAL_NODE_SIZE=2: kernels reach the
 *             other node through the device proxy; not the ptr transpose,
 *             whose nvshmem_ptr is NULL there; the get transpose at order
 *             256, see prk_run's caller), and prints "Solution
 *             validates"; without a GPU it skips
 *
 *   test_nvshmem_programs primer|prk-build|prk
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/check.h"
#include "common/programs.h"

#define BUILD_S 300
#define RUN_S 120

static char tmp[64], bin[1024], progs[1024];
static prog_tally_t tally;

/* The four transposes of prk/. */
static const char *const prk_variants[] = {"get", "put", "ptr", "a2a"};

static void run_primer(void)
{
    char cmd[4096], log[1200], exe[1200];
    char *out;
    const char *want = "PE 1 received: 10.0 20.0 30.0 40.0 \n";

    snprintf(exe, sizeof(exe), "%s/primer", tmp);
    snprintf(log, sizeof(log), "%s/primer-build.log", tmp);
    snprintf(cmd, sizeof(cmd), "timeout %d %s/oshcc -o %s %s/primer.c", BUILD_S, bin, exe, progs);
    if (prog_sh(cmd, log) != 0) {
        prog_fail(&tally, "primer", "did not build", log);
        return;
    }
    snprintf(log, sizeof(log), "%s/primer-run.log", tmp);
    snprintf(cmd, sizeof(cmd), "SHOAL_HEAP_KIND=host timeout %d %s/oshrun -n 2 %s", RUN_S, bin, exe);
    if (prog_sh(cmd, log) != 0) {
        prog_fail(&tally, "primer", "exited nonzero at 2 PEs", log);
        return;
    }
    out = prog_read(log);
    if (out == NULL || strstr(out, want) == NULL || strstr(strstr(out, want) + 1, want) != NULL)
        prog_fail(&tally, "primer", "did not print \"PE 1 received: 10.0 20.0 30.0 40.0 \" exactly once", log);
    else
        prog_pass(&tally, "primer (2 PEs)");
    free(out);
}

/* Build transpose-<v>-nvshmem.cu with PRK's own line; true if it built. */
static bool prk_build(const char *v)
{
    char cmd[4096], log[1200], name[64];

    snprintf(name, sizeof(name), "transpose-%s-nvshmem", v);
    snprintf(log, sizeof(log), "%s/%s-build.log", tmp, name);
    snprintf(cmd, sizeof(cmd),
             "cd %s/prk && timeout %d %s/shoal-nvcc -std=c++20 -O3 --extended-lambda -rdc=true -arch=sm_90 "
             "-D_X86INTRIN_H_INCLUDED %s.cu -lcublas -lcublasLt -o %s/%s",
             progs, BUILD_S, bin, name, tmp, name);
    if (prog_sh(cmd, log) != 0) {
        prog_fail(&tally, name, "did not build with shoal-nvcc", log);
        return false;
    }
    return true;
}

/* Run it at np PEs on a matrix of the given order, 10 iterations;
 * node_size > 0 splits the PEs into simulated nodes of that many
 * (SHOAL_NODE_SIZE), which kernels reach through the device proxy. */
static void prk_run(const char *v, int np, int node_size, int order)
{
    char cmd[4096], log[1200], name[64], label[160], env[64] = "";
    char *out;

    snprintf(name, sizeof(name), "transpose-%s-nvshmem", v);
    if (node_size > 0) snprintf(env, sizeof(env), "SHOAL_NODE_SIZE=%d ", node_size);
    snprintf(label, sizeof(label), "%s (%d PEs%s%.0d%s, order %d)", name, np, node_size > 0 ? ", nodes of " : "",
             node_size, node_size > 0 ? " PEs" : "", order);
    snprintf(log, sizeof(log), "%s/%s-run-%d-%d.log", tmp, name, np, node_size);
    snprintf(cmd, sizeof(cmd), "%stimeout %d %s/oshrun -n %d %s/%s 10 %d", env, RUN_S, bin, np, tmp, name, order);
    if (prog_sh(cmd, log) != 0) {
        prog_fail(&tally, label, "exited nonzero", log);
        return;
    }
    out = prog_read(log);
    if (out == NULL || strstr(out, "Solution validates") == NULL)
        prog_fail(&tally, label, "did not print \"Solution validates\"", log);
    else
        prog_pass(&tally, label);
    free(out);
}

int main(int argc, char **argv)
{
    const char *suite = argc > 1 ? argv[1] : "";
    bool prk = strcmp(suite, "prk") == 0, prk_build_only = strcmp(suite, "prk-build") == 0;
    char nvcc[1200];

    CHECK_MSG(argc == 2 && (strcmp(suite, "primer") == 0 || prk || prk_build_only),
              "usage: test_nvshmem_programs primer|prk-build|prk");
    if (!prog_folder("SHOAL_NVSHMEM_PROGRAMS", "../shared/nvshmem-programs", "", "the NVSHMEM programs", progs,
                     sizeof(progs)))
        return TEST_SKIP;
    snprintf(tmp, sizeof(tmp), "/tmp/shoal-nvshmem-XXXXXX");
    CHECK(mkdtemp(tmp) != NULL);
    prog_install(tmp, bin, sizeof(bin));
    if (prk || prk_build_only) {
        /* CUDA programs: shoal-nvcc exists where shoal was built with CUDA. */
        snprintf(nvcc, sizeof(nvcc), "%s/shoal-nvcc", bin);
        if (access(nvcc, X_OK) != 0) {
            check_note("%s: no %s (shoal built without CUDA): skipped", suite, nvcc);
            return TEST_SKIP;
        }
        /* The transposes use cuBLAS, which a minimal CUDA toolkit may lack. */
        char probe[1400], plog[1200];
        snprintf(plog, sizeof(plog), "%s/cublas-probe.log", tmp);
        snprintf(probe, sizeof(probe), "echo '#include <cublas_v2.h>' | %s -x cu -E - > /dev/null", nvcc);
        if (prog_sh(probe, plog) != 0) {
            check_note("%s: the CUDA toolkit has no cuBLAS (cublas_v2.h), which the PRK transposes use: skipped",
                       suite);
            return TEST_SKIP;
        }
        if (prk && !prog_gpu_present()) {
            check_note("prk: no GPU to run the transposes on: skipped (prk-build builds them)");
            return TEST_SKIP;
        }
        check_note("%s from %s/prk, built with %s, in %s", suite, progs, nvcc, tmp);
        for (size_t i = 0; i < sizeof(prk_variants) / sizeof(prk_variants[0]); i++) {
            if (!prk_build(prk_variants[i])) continue;
            if (prk && strcmp(prk_variants[i], "put") == 0) {
                /* The program itself is wrong for more than one PE: each
                 * phase stores block send_to of A into block recv_from of
                 * PE recv_from's B, where B's block me belongs (it
                 * overwrites that PE's own diagonal block, and B's other
                 * blocks stay unwritten), and it stores where the
                 * validation expects B += A^T. It fails the same way on
                 * any NVSHMEM: built, not run. */
                check_note("transpose-put-nvshmem: built; not run (the program misplaces its blocks for 2 or more "
                           "PEs on any NVSHMEM: see tests/nvshmem/test_nvshmem_programs.c)");
                prog_pass(&tally, "transpose-put-nvshmem (built)");
            } else if (prk) {
                prk_run(prk_variants[i], 2, 0, 1024);
                prk_run(prk_variants[i], 4, 0, 1024);
                /* Across nodes nvshmem_ptr is NULL (as with NVIDIA's
                 * NVSHMEM): the ptr transpose needs load/store. The get
                 * transpose's kernels get one element (8 bytes) a thread
                 * at a time, and across nodes each is a proxied round trip
                 * (about 30 us staged over MPI on one host): at order 1024
                 * a PE makes 1.4 million of them (22 * 256^2), minutes of
                 * work; order 256 makes 90 thousand. */
                if (strcmp(prk_variants[i], "get") == 0)
                    prk_run(prk_variants[i], 4, 2, 256);
                else if (strcmp(prk_variants[i], "ptr") != 0)
                    prk_run(prk_variants[i], 4, 2, 1024);
            } else
                prog_pass(&tally, prk_variants[i]);
        }
    } else {
        check_note("%s from %s, built with %s/oshcc, in %s", suite, progs, bin, tmp);
        run_primer();
    }
    CHECK_MSG(prog_done(&tally, "NVSHMEM programs", tmp), "%d of %d NVSHMEM programs failed:%s",
              tally.count - tally.passed, tally.count, tally.failed);
    return 0;
}
