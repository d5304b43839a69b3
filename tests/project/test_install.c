/*
 * What `ninja install` lays down is usable on its own: build/install.sh
 * runs with DESTDIR set to a fresh folder, then
 *  - the headers, libraries, pkg-config file and tool are there;
 *  - every header an installed header includes with "..." is installed
 *    beside it (a user's #include <shoal_cuda.h> compiles);
 *  - shoal.pc names the installed include and lib folders;
 *  - the installed shoal-topo runs from its own folder (rpath
 *    $ORIGIN/../lib) and classifies a fixture machine;
 *  - a CMake project of a user's own finds the package (find_package) and
 *    builds against shoal::shoal, shoal::shoal_static and, with CUDA,
 *    shoal::cuda; a newer version than installed is refused;
 *  - programs built with pkg-config (shoal, and shoal-cuda for
 *    shoal_cuda.h) compile, link and run;
 *  - the OpenSHMEM headers (shmem.h, shmem_deprecated.h, pshmem.h, and
 *    mpp/shmem.h, mpp/shmemx.h for programs that include them from there)
 *    serve C and C++ programs built with the installed oshcc and oshc++
 *    and run with oshrun: a profiler built apart as a shared library
 *    intercepts shmem_putmem of a program through the installed
 *    libshoal.so and reaches it through pshmem_putmem; a C++ program
 *    uses the deprecated names and ends without shmem_finalize.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/check.h"

static char root[4096], prefix[4096];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text;
    long n;

    CHECK_MSG(f != NULL, "cannot open %s", path);
    CHECK(fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0);
    text = malloc((size_t)n + 1);
    CHECK(text != NULL && fread(text, 1, (size_t)n, f) == (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

static char *run(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    static char out[1 << 16];
    size_t n;
    int status;

    CHECK_MSG(p != NULL, "popen(%s) failed", cmd);
    n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    status = pclose(p);
    CHECK_MSG(status == 0, "'%s' exited with status %d:\n%s", cmd, status, out);
    return out;
}

static void expect_file(const char *rel)
{
    char path[8192];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", prefix, rel);
    CHECK_MSG(lstat(path, &st) == 0, "%s was not installed", path);
}

/* Every #include "x" of every installed header, in include/ and its
 * folders (mpp/), is installed too, beside the header that includes it. */
static int check_header_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int headers = 0;

    CHECK_MSG(d != NULL, "no %s", dir);
    while ((e = readdir(d)) != NULL) {
        char path[8192 + 256], *text, *p;
        struct stat st;
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        CHECK(stat(path, &st) == 0);
        if (S_ISDIR(st.st_mode)) {
            headers += check_header_dir(path);
            continue;
        }
        text = slurp(path);
        headers++;
        for (p = text; (p = strstr(p, "#include \"")) != NULL;) {
            char name[256], inc[8192 + 512];
            const char *q = p + strlen("#include \""), *end = strchr(q, '"');
            CHECK(end != NULL && (size_t)(end - q) < sizeof(name));
            memcpy(name, q, (size_t)(end - q));
            name[end - q] = '\0';
            snprintf(inc, sizeof(inc), "%s/%s", dir, name);
            CHECK_MSG(stat(inc, &st) == 0, "installed %s includes \"%s\", which is not installed", path, name);
            p = (char *)end;
        }
        free(text);
    }
    closedir(d);
    return headers;
}

static int check_header_closure(void)
{
    char dir[8192];
    snprintf(dir, sizeof(dir), "%s/include", prefix);
    return check_header_dir(dir);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK_MSG(f != NULL, "cannot write %s", path);
    CHECK(fputs(text, f) >= 0);
    CHECK_EQ_INT(fclose(f), 0);
}

/* Programs of a user's own: one on the host API, one on shoal_cuda.h. */
static void write_user_sources(const char *dir)
{
    char path[8192];

    snprintf(path, sizeof(path), "%s/main.c", dir);
    write_file(path,
               "#include <stdio.h>\n#include <shoal.h>\n#include <shoal_topo.h>\n"
               "int main(void) {\n"
               "    printf(\"%s / %s\\n\", shoal_strerror(SHOAL_ERR_INVALID_ARG), shoal_path_name(SHOAL_PATH_NVL));\n"
               "    return 0;\n}\n");
    snprintf(path, sizeof(path), "%s/cuda.c", dir);
    write_file(path, "#include <stdio.h>\n#include <shoal_cuda.h>\n"
                     "int main(void) {\n"
                     "    cudaStream_t s = 0;\n"
                     "    int (*put)(shoal_t, void *, const void *, size_t, int, cudaStream_t) = shoal_put_on_stream;\n"
                     "    printf(\"stream API %s %d\\n\", put != NULL ? \"linked\" : \"missing\", s == 0);\n"
                     "    return 0;\n}\n");
}

/* find_package(shoal) from a CMake project of its own, against the tree
 * installed under DESTDIR (found from the package file's place): the shared
 * and static libraries, and shoal::cuda where shoal was built with CUDA; a
 * version beyond this one is refused. */
static void check_cmake_project(void)
{
    char dir[8192], path[8192 + 64], cmd[1 << 16], *out;
    int cuda;
    struct stat st;

    /* Built with CUDA: shoal-cuda.pc and shoal::cuda exist. */
    snprintf(path, sizeof(path), "%s/lib/pkgconfig/shoal-cuda.pc", prefix);
    cuda = stat(path, &st) == 0;
    expect_file("lib/cmake/shoal/shoalConfig.cmake");
    expect_file("lib/cmake/shoal/shoalConfigVersion.cmake");
    snprintf(dir, sizeof(dir), "%s/project", root);
    CHECK(mkdir(dir, 0755) == 0);
    write_user_sources(dir);
    snprintf(path, sizeof(path), "%s/CMakeLists.txt", dir);
    write_file(path, "cmake_minimum_required(VERSION 3.16)\nproject(use_shoal C)\n"
                     "if(NOT WANT)\n  set(WANT 0.3)\nendif()\n"
                     "find_package(shoal ${WANT} REQUIRED ${COMPS})\n"
                     "add_executable(use_shoal main.c)\ntarget_link_libraries(use_shoal PRIVATE shoal::shoal)\n"
                     "add_executable(use_shoal_static main.c)\n"
                     "target_link_libraries(use_shoal_static PRIVATE shoal::shoal_static)\n"
                     "if(shoal_CUDA_FOUND)\n  add_executable(use_shoal_cuda cuda.c)\n"
                     "  target_link_libraries(use_shoal_cuda PRIVATE shoal::cuda)\nendif()\n");
    snprintf(cmd, sizeof(cmd),
             "cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=%s 2>&1 && cmake --build %s/build 2>&1 && %s/build/use_shoal "
             "&& "
             "%s/build/use_shoal_static",
             dir, dir, prefix, dir, dir, dir);
    out = run(cmd);
    CHECK_CONTAINS(out, "invalid argument / NVL");
    /* The shared program loads the installed library (rpath from CMake). */
    snprintf(cmd, sizeof(cmd), "ldd %s/build/use_shoal 2>&1 | grep libshoal", dir);
    out = run(cmd);
    CHECK_CONTAINS(out, prefix);
    if (cuda) {
        snprintf(cmd, sizeof(cmd), "%s/build/use_shoal_cuda", dir);
        out = run(cmd);
        CHECK_CONTAINS(out, "stream API linked 1");
    }
    /* Versions and components: what is asked against 0.3.x (0.x: same minor). */
    {
        static const struct {
            const char *want, *comps, *needle; /* needle NULL: configures */
        } cases[] = {
            {"9.0", "", "9.0"},
            {"0.1", "", "0.1"},
            {"0.3.5", "", "0.3.5"},
            {"0.1...0.3", "", NULL},
            {"0.4...1.0", "", "0.4...1.0"},
            {"0.3", "COMPONENTS;foo", "shoal has no component foo"},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) + 1; i++) {
            const char *want = i < sizeof(cases) / sizeof(cases[0]) ? cases[i].want : "0.3";
            const char *comps = i < sizeof(cases) / sizeof(cases[0]) ? cases[i].comps : "COMPONENTS;cuda";
            const char *needle = i < sizeof(cases) / sizeof(cases[0]) ? cases[i].needle
                                 : cuda                               ? NULL
                                                                      : "this shoal was built without CUDA";
            snprintf(cmd, sizeof(cmd),
                     "cmake -S %s -B %s/build-v%zu -DCMAKE_PREFIX_PATH=%s '-DWANT=%s' '-DCOMPS=%s' "
                     "2>&1; echo rc=$?",
                     dir, dir, i, prefix, want, comps);
            out = run(cmd);
            if (needle == NULL) {
                CHECK_MSG(strstr(out, "rc=0") != NULL, "find_package(shoal %s %s) failed:\n%s", want, comps, out);
            } else {
                CHECK_MSG(strstr(out, "rc=0") == NULL, "find_package(shoal %s %s) succeeded:\n%s", want, comps, out);
                CHECK_CONTAINS(out, needle);
            }
        }
    }
}

/* Build dir/<src>.c with the flags of pkg-config module <module> of the
 * installed tree, run it, and return its output. */
static char *pc_build_run(const char *dir, const char *src, const char *module)
{
    char cmd[1 << 16];

    snprintf(cmd, sizeof(cmd),
             "export PKG_CONFIG_PATH=%s/lib/pkgconfig; cc -o %s/%s %s/%s.c $(pkg-config --define-prefix "
             "--cflags --libs %s) -Wl,-rpath,%s/lib 2>&1 && %s/%s",
             prefix, dir, src, dir, src, module, prefix, dir, src);
    return run(cmd);
}

/* pkg-config against the installed tree (--define-prefix: the .pc files'
 * own place), shoal-cuda.pc for shoal_cuda.h. */
static void check_pkg_config(void)
{
    char dir[8192], path[8192 + 64];
    struct stat st;

    snprintf(dir, sizeof(dir), "%s/pc", root);
    CHECK(mkdir(dir, 0755) == 0);
    write_user_sources(dir);
    CHECK_CONTAINS(pc_build_run(dir, "main", "shoal"), "invalid argument / NVL");
    snprintf(path, sizeof(path), "%s/lib/pkgconfig/shoal-cuda.pc", prefix);
    if (stat(path, &st) != 0) return; /* built without CUDA */
    CHECK_CONTAINS(pc_build_run(dir, "cuda", "shoal-cuda"), "stream API linked 1");
}

/* OpenSHMEM programs against the installed tree: a profiler of shmem_putmem
 * as a shared library of its own, a C program that it profiles (through
 * <mpp/shmem.h>, started with start_pes, finalized at exit), and a C++
 * program on the deprecated names and pshmem.h, run at 2 PEs. */
static void check_shmem(void)
{
    char dir[8192], path[8192 + 64], cmd[1 << 16], *out;

    snprintf(dir, sizeof(dir), "%s/shmem", root);
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(path, sizeof(path), "%s/prof.c", dir);
    write_file(path, "#include <pshmem.h>\n"
                     "static int calls;\n"
                     "void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)\n"
                     "{\n    calls++;\n    pshmem_putmem(dest, source, nelems, pe);\n}\n"
                     "int prof_putmem_calls(void) { return calls; }\n");
    snprintf(path, sizeof(path), "%s/app.c", dir);
    write_file(path, "#include <stdio.h>\n#include <mpp/shmem.h>\n#include <mpp/shmemx.h>\n"
                     "int prof_putmem_calls(void);\n"
                     "static char buf[16];\n"
                     "int main(void)\n{\n"
                     "    char src[16];\n"
                     "    start_pes(0);\n"
                     "    snprintf(src, sizeof(src), \"from PE %d\", _my_pe());\n"
                     "    shmem_putmem(buf, src, sizeof(src), (_my_pe() + 1) % _num_pes());\n"
                     "    shmem_put64(buf, src, 0, 0); /* inside the library: not counted */\n"
                     "    shmem_barrier_all();\n"
                     "    printf(\"PE %d: %d putmem, %s\\n\", _my_pe(), prof_putmem_calls(), buf);\n"
                     "    return 0;\n}\n");
    snprintf(path, sizeof(path), "%s/cxx.cpp", dir);
    write_file(path, "#include <cstdio>\n#include <mpp/shmem.h>\n#include <pshmem.h>\n"
                     "int main()\n{\n"
                     "    start_pes(0);\n"
                     "    int *c = static_cast<int *>(shmalloc(sizeof(int)));\n"
                     "    *c = 0;\n"
                     "    shmem_barrier_all();\n"
                     "    shmem_int_fadd(c, _my_pe() + 1, 0);\n"
                     "    shmem_barrier_all();\n"
                     "    if (_my_pe() == 0) std::printf(\"C++: %d from %d PEs, %d\\n\", *c, _num_pes(), "
                     "p_my_pe());\n"
                     "    shmem_barrier_all();\n"
                     "    shfree(c);\n"
                     "    return 0;\n}\n");
    snprintf(cmd, sizeof(cmd),
             "cd %s && %s/bin/oshcc -shared -fPIC -o libprof.so prof.c 2>&1 && "
             "%s/bin/oshcc -o app app.c -L. -lprof -Wl,-rpath,%s 2>&1 && %s/bin/oshc++ -o cxx cxx.cpp 2>&1 && "
             "MPIEXEC_TIMEOUT=60 %s/bin/oshrun -n 2 ./app 2>&1 && MPIEXEC_TIMEOUT=60 %s/bin/oshrun -n 2 ./cxx 2>&1",
             dir, prefix, prefix, dir, prefix, prefix, prefix);
    out = run(cmd);
    CHECK_CONTAINS(out, "PE 0: 1 putmem, from PE 1\n");
    CHECK_CONTAINS(out, "PE 1: 1 putmem, from PE 0\n");
    CHECK_CONTAINS(out, "C++: 3 from 2 PEs, 0\n");
    /* The program runs on the installed library. */
    snprintf(cmd, sizeof(cmd), "ldd %s/app 2>&1 | grep libshoal", dir);
    CHECK_CONTAINS(run(cmd), prefix);
}

int main(void)
{
    const char *build = getenv("SHOAL_TEST_BUILDDIR"), *src = getenv("SHOAL_TEST_SRCDIR");
    char cmd[16384], path[8192], *out, *pc;
    int headers;

    CHECK_MSG(build && *build && src && *src,
              "SHOAL_TEST_BUILDDIR and SHOAL_TEST_SRCDIR must be set (ctest sets them)");
    snprintf(root, sizeof(root), "/tmp/shoal-install-XXXXXX");
    CHECK(mkdtemp(root) != NULL);

    snprintf(cmd, sizeof(cmd), "DESTDIR=%s sh %s/install.sh 2>&1", root, build);
    out = run(cmd);
    CHECK_CONTAINS(out, "shoal installed in ");
    CHECK_CONTAINS(out, root);
    /* The prefix inside DESTDIR: where shoal.h landed, minus /include. */
    snprintf(cmd, sizeof(cmd), "find %s -name shoal.h -path '*/include/*'", root);
    out = run(cmd);
    CHECK_MSG(strlen(out) > strlen("/include/shoal.h\n"), "shoal.h not installed under %s", root);
    out[strcspn(out, "\n")] = '\0';
    snprintf(prefix, sizeof(prefix), "%.*s", (int)(strlen(out) - strlen("/include/shoal.h")), out);

    expect_file("include/shoal.h");
    expect_file("include/shoal_topo.h");
    expect_file("lib/libshoal.a");
    expect_file("lib/libshoal.so");
    expect_file("lib/pkgconfig/shoal.pc");
    expect_file("bin/shoal-topo");
    expect_file("include/shmem.h");
    expect_file("include/shmem_deprecated.h");
    expect_file("include/pshmem.h");
    expect_file("include/mpp/shmem.h");
    expect_file("include/mpp/shmemx.h");
    headers = check_header_closure();
    CHECK(headers >= 2);

    snprintf(path, sizeof(path), "%s/lib/pkgconfig/shoal.pc", prefix);
    pc = slurp(path);
    CHECK_CONTAINS(pc, "Cflags: -I${includedir}");
    CHECK_CONTAINS(pc, "Libs: -L${libdir} -lshoal");
    /* prefix= is the configured one, which DESTDIR only prepends to. */
    snprintf(path, sizeof(path), "prefix=%s\n", prefix + strlen(root));
    CHECK_CONTAINS(pc, path);
    free(pc);

    snprintf(cmd, sizeof(cmd), "%s/bin/shoal-topo --input %s/tests/fixtures/topology/h200x2-nv18.xml --json 2>&1",
             prefix, src);
    out = run(cmd);
    CHECK_CONTAINS(out, "\"pairs\"");
    CHECK_CONTAINS(out, "\"path\": \"NVL\"");
    /* The installed tool uses the installed library. */
    snprintf(cmd, sizeof(cmd), "ldd %s/bin/shoal-topo 2>&1 | grep libshoal", prefix);
    out = run(cmd);
    CHECK_CONTAINS(out, prefix);

    check_cmake_project();
    check_pkg_config();
    check_shmem();

    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    CHECK(system(cmd) == 0);
    check_note("installed %d headers, the libraries, shoal.pc, the CMake package, a working shoal-topo and OpenSHMEM "
               "programs (a profiler through pshmem.h, C++, mpp/)",
               headers);
    return 0;
}
