#!/bin/bash
# shoal's OpenSHMEM layer against Open MPI's own OpenSHMEM (OSHMEM) on the
# OSU micro-benchmarks' OpenSHMEM programs: each program built unchanged
# from the OSU folder twice, with shoal's oshcc (a build configured with
# --mpi=openmpi, installed into a scratch folder) and with Open MPI's
# /usr/bin/oshcc, and run at 2 PEs, the two alternating, ROUNDS times; each
# row prints the median latency of each and the ratio shoal / OSHMEM
# (goal: at most 0.8).
#
#   bench/shoal-vs-oshmem.sh [BUILDDIR [ROUNDS]]   (default build-openmpi, 3)
#
# OSHMEM runs with OMPI_MCA_osc=ucx (with Debian's osc = ^ucx,pt2pt it
# crashes at exit: open-mpi/ompi#11604) and without its compare-and-swap,
# which crashes in 4.1.4 (open-mpi/ompi#11257): the atomics rows skip cswap,
# and OSHMEM has none after it ("none"). The atomics rows are 1 / OSU's
# Million ops/s (its latency column has 0.01 us resolution); the others are
# OSU's latency (also 0.01 us resolution: 0.02 against 0.02 is parity).
# SHOAL_SHMEM_PROGRAMS names the programs' folder (default
# ../shared/shmem-programs).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-openmpi}
rounds=${2:-3}
osu=${SHOAL_SHMEM_PROGRAMS:-$(cd .. && pwd)/shared/shmem-programs}/osu/openshmem
[ -f "$osu/osu_oshm_put.c" ] || { echo "shoal-vs-oshmem: no OSU programs at $osu: skipped" >&2; exit 77; }
grep -q 'Open MPI' "$build/bin/oshrun" || { echo "shoal-vs-oshmem: $build is not built with Open MPI (./configure.py --mpi=openmpi)" >&2; exit 2; }
[ -x /usr/bin/oshcc ] && [ -x /usr/bin/oshrun ] || { echo "shoal-vs-oshmem: Open MPI's oshcc/oshrun not in /usr/bin (openmpi-bin)" >&2; exit 2; }
tmp=$(mktemp -d /tmp/shoal-vs-oshmem.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
DESTDIR=$tmp/root sh "$build/install.sh" >/dev/null
shoal_bin=$(dirname "$(find "$tmp/root" -name oshcc -path '*/bin/*' | head -1)")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
progs="put get atomics barrier broadcast collect fcollect reduce"
for p in $progs; do
    for impl in shoal oshmem; do
        cc=$shoal_bin/oshcc
        [ $impl = oshmem ] && cc=/usr/bin/oshcc
        "$cc" -O2 -I"$osu" -o "$tmp/${impl}_$p" "$osu/osu_oshm_$p.c" "$osu/osu_common.c" -lm 2>"$tmp/cc.log" ||
            { cat "$tmp/cc.log" >&2; echo "shoal-vs-oshmem: $cc could not build osu_oshm_$p" >&2; exit 1; }
    done
done
runs() { # program mode: one line per round of each implementation into $tmp/out
    local p=$1 m=$2
    for r in $(seq "$rounds"); do
        MPIEXEC_TIMEOUT=120 "$shoal_bin/oshrun" -n 2 "$tmp/shoal_$p" $m >"$tmp/out.shoal.$p.$m.$r" 2>&1 || true
        OMPI_MCA_osc=ucx MPIEXEC_TIMEOUT=120 /usr/bin/oshrun -n 2 "$tmp/oshmem_$p" $m >"$tmp/out.oshmem.$p.$m.$r" 2>&1 || true
    done
}
for p in put get atomics; do for m in heap global; do runs $p $m; done; done
for p in barrier broadcast collect fcollect reduce; do runs $p ""; done
echo "shoal-vs-oshmem: 2 PEs, $rounds rounds, median latency in us ($(ompi_info --version 2>/dev/null | head -1))"
/usr/bin/python3 - "$tmp" <<'PY'
import glob, os, re, statistics, sys
tmp = sys.argv[1]
rows = {}
for path in glob.glob(os.path.join(tmp, 'out.*')):
    _, impl, prog, mode, _ = os.path.basename(path).split('.', 4)
    rate = False  # the atomics print Million ops/s, then a latency of 0.01 us resolution
    for line in open(path, errors='replace'):
        w = line.split()
        rate = rate or 'Million ops/s' in line
        if len(w) == 1 and prog == 'barrier':
            w = ['barrier'] + w  # one figure: the average latency
        if len(w) < 2 or w[0].startswith('#') or 'cswap' in w[0]:
            continue
        try:
            v = float(w[1])
        except ValueError:
            continue
        if rate:
            v = 1.0 / v if v > 0 else float('inf')  # us per operation
        if not re.match(r'^([0-9]+|shmem_\w+|barrier)$', w[0]):
            continue
        rows.setdefault((prog, mode, w[0]), {}).setdefault(impl, []).append(v)
worst = 0.0
print('%-9s %-6s %-22s %10s %10s %7s' % ('program', 'memory', 'row', 'shoal', 'OSHMEM', 'ratio'))
def order(k):
    return (k[0], k[1], int(k[2]) if k[2].isdigit() else 0, k[2])
for key in sorted(rows, key=order):
    r = rows[key]
    if 'shoal' not in r or 'oshmem' not in r:
        print('%-9s %-6s %-22s %10s %10s %7s' % (key[0], key[1] or '-', key[2], '-' if 'shoal' not in r else '%.3f' % statistics.median(r['shoal']), 'none' if 'oshmem' not in r else '', ''))
        continue
    s, o = statistics.median(r['shoal']), statistics.median(r['oshmem'])
    ratio = s / o if o > 0 else float('inf') if s > 0 else 1.0
    worst = max(worst, ratio)
    print('%-9s %-6s %-22s %10.3f %10.3f %7.2f' % (key[0], key[1] or '-', key[2], s, o, ratio))
print('worst ratio %.2f (goal <= 0.8)' % worst)
PY
