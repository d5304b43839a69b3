#!/bin/bash
# Build shoal's libFuzzer targets with clang and run each for a bounded time.
#
#   fuzz/run.sh [-t SECONDS] [-o DIR] [--build-only] [TARGET ...]
#
# TARGET: env (fuzz/fuzz_env.c: environment parsers, shoal_config_init) or
# topo (fuzz/fuzz_topo.c: shoal_topo_load on hwloc XML); default both.
# -t: seconds per target (default 20). -o: work folder (default
# build-fuzz; must not be in the source tree's git-tracked folders).
#
# The sources the targets reach are compiled again here, by clang with
# -fsanitize=fuzzer-no-link and ASan/UBSan, host-only (no CUDA). The seeds in fuzz/corpus/TARGET (and,
# for topo, the recorded machines in tests/fixtures/topology) are copied into
# DIR/corpus/TARGET, which grows; a crash leaves its input in
# DIR/artifacts/TARGET and makes this script fail. Without clang (or its
# libFuzzer runtime) it says so and exits 0: fuzzing is optional.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=20
out=build-fuzz
build_only=0
targets=()
while [ $# -gt 0 ]; do
    case "$1" in
    -t) seconds=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --build-only) build_only=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    env|topo) targets+=("$1"); shift ;;
    *) echo "fuzz/run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ ${#targets[@]} -gt 0 ] || targets=(env topo)

clang=${CLANG:-}
if [ -z "$clang" ]; then
    for c in clang clang-16 clang-15 clang-14; do
        if command -v "$c" >/dev/null; then clang=$c; break; fi
    done
fi
if [ -z "$clang" ]; then
    echo "fuzz: clang not found (Debian package clang): fuzzing skipped"
    exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return (int)(d && n > 99999); }' >"$probe/p.c"
if ! "$clang" -fsanitize=fuzzer "$probe/p.c" -o "$probe/p" 2>/dev/null; then
    echo "fuzz: $clang cannot link -fsanitize=fuzzer (libFuzzer runtime missing): fuzzing skipped"
    exit 0
fi

mpi_cflags=$(mpicc -show | tr ' ' '\n' | grep -E '^-(I|D)' | tr '\n' ' ')
mpi_libs=$(mpicc -show | tr ' ' '\n' | grep -E '^-(L|l|Wl)' | tr '\n' ' ')
hwloc_cflags=$(pkg-config --cflags hwloc 2>/dev/null || true)
hwloc_libs=$(pkg-config --libs hwloc 2>/dev/null || echo -lhwloc)
san=(-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
cflags=(-std=c11 -D_GNU_SOURCE -O1 -g -DSHOAL_HAVE_CUDA=0 -Iapi -Iruntime -Itopology "${san[@]}")

# The part of the library the targets reach (environment, errors, logging,
# topology), instrumented; the rest is not linked in, so not compiled.
mkdir -p "$out/obj"
sources=$(ls runtime/base/env.c runtime/base/config.c runtime/base/error.c runtime/base/log.c topology/*.c | grep -v 'topology/shoal-topo.c')
echo "fuzz: compiling the library with $("$clang" --version | head -1)"
newest_header=$(ls -t api/*.h runtime/*/*.h topology/*.h | head -1)
objs=()
for s in $sources; do
    o="$out/obj/$(echo "$s" | tr / _).o"
    objs+=("$o")
    [ "$o" -nt "$s" ] && [ "$o" -nt "$newest_header" ] && [ "$o" -nt "$0" ] && continue
    # shellcheck disable=SC2086
    "$clang" "${cflags[@]}" -fsanitize=fuzzer-no-link $mpi_cflags $hwloc_cflags -c "$s" -o "$o" &
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || exit 1; done
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n || exit 1; done
rm -f "$out/libshoal-fuzz.a"
ar crs "$out/libshoal-fuzz.a" "${objs[@]}"

status=0
for t in "${targets[@]}"; do
    # shellcheck disable=SC2086
    "$clang" "${cflags[@]}" -fsanitize=fuzzer $mpi_cflags fuzz/fuzz_$t.c "$out/libshoal-fuzz.a" $mpi_libs $hwloc_libs \
        -lpthread -ldl -lm -o "$out/fuzz_$t"
    echo "fuzz: built $out/fuzz_$t"
    [ "$build_only" = 1 ] && continue
    mkdir -p "$out/corpus/$t" "$out/artifacts/$t"
    cp -n fuzz/corpus/$t/* "$out/corpus/$t/" 2>/dev/null || true
    extra=()
    [ "$t" = topo ] && extra=(tests/fixtures/topology)
    dict=()
    [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
    echo "fuzz: running $t for $seconds s"
    # Leaks: hwloc's own are suppressed (tests/lsan.supp). Unlike the MPI
    # tests, nothing here needs the slow unwinder (5 times fewer runs).
    if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp:print_suppressions=0 \
        UBSAN_OPTIONS=print_stacktrace=1 \
        "$out/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$out/artifacts/$t/" "${dict[@]}" \
        "$out/corpus/$t" fuzz/corpus/$t "${extra[@]}" >"$out/fuzz_$t.log" 2>&1; then
        echo "fuzz: $t FAILED; the input is in $out/artifacts/$t/, the log in $out/fuzz_$t.log:"
        grep -E 'ERROR|SUMMARY|fuzz_(env|topo):|^#[0-9]+ .*(DONE|pulse)' "$out/fuzz_$t.log" | tail -n 20 || true
        status=1
        continue
    fi
    grep -E '^stat::number_of_executed_units|^stat::new_units_added|^Done' "$out/fuzz_$t.log" | tr '\n' ' ' |
        sed "s/^/fuzz: $t passed: /"
    echo
done
exit $status
