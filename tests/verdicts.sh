#!/bin/sh
# Runs a test's command (mpiexec ... program args) and judges the run by the
# verdicts its PEs leave, not by mpiexec's exit status.
#
#   SHOAL_TEST_NP=N tests/verdicts.sh mpiexec -n N program [arg ...]
#
# tests/TESTS selects it with LAUNCHER=tests/verdicts.sh; configure.py sets
# SHOAL_TEST_NP for every MPI test. The command runs with SHOAL_TEST_VERDICTS
# naming a fresh, empty folder of this host (the tests run on one host);
# each PE, once every check of it has passed, writes <folder>/pe<rank>
# containing "pass" (check_verdict_pass() in tests/common/check.c). A PE
# that fails a check aborts before that, and one that crashes or hangs
# (mpiexec's MPIEXEC_TIMEOUT then ends the run) never writes it.
#
# The test passes when PEs 0 to N-1 all wrote "pass", nothing else is in
# the folder, and mpiexec's exit status is 0 or 1: for ranks that end
# without MPI_Finalize (the fault tests), hydra's proxy (MPICH 4.0.2) stores
# exit status 1 for a rank whose PMI socket closes before finalize, which
# overwrites the real status 0 when the proxy happens to reap the process
# before it reads the closed socket; mpiexec, OR-ing the raw statuses, then
# prints "Hangup (signal 1)" and exits 1 although no signal was sent. With
# every PE exiting 0 that OR is 0 or 1, so any other status (255 after
# MPIEXEC_TIMEOUT, a signal's number for a PE killed after its verdict)
# still fails the test, with that status (1 where it is 77).
# Otherwise the test fails, naming the PEs that did not report, with
# mpiexec's exit status when that is non-zero, else 1; 77 (skipped) stays a
# skip only when no PE reported.
set -u

me=verdicts.sh
np=${SHOAL_TEST_NP-}
case $np in
'' | *[!0-9]*)
    echo "$me: SHOAL_TEST_NP must be the number of PEs (got '$np')" >&2
    exit 2
    ;;
esac
if [ "$np" -lt 1 ] || [ $# -lt 1 ]; then
    echo "usage: SHOAL_TEST_NP=N $me mpiexec -n N program [arg ...]  (N >= 1)" >&2
    exit 2
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/shoal-verdicts.XXXXXX") || {
    echo "$me: cannot make a folder for the verdicts" >&2
    exit 1
}
trap 'rm -rf "$dir"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
SHOAL_TEST_VERDICTS=$dir
export SHOAL_TEST_VERDICTS

"$@"
status=$?

missing='' bad='' pe=0 reported=0
while [ "$pe" -lt "$np" ]; do
    if [ ! -f "$dir/pe$pe" ]; then
        missing="$missing $pe"
    else
        reported=$((reported + 1))
        [ "$(cat "$dir/pe$pe")" = pass ] || bad="$bad $pe"
    fi
    pe=$((pe + 1))
done
extra=''
for f in "$dir"/* "$dir"/.*; do
    name=${f##*/}
    case $name in
    . | .. | '*' | '.*') continue ;;
    pe*) n=${name#pe} ;;
    *) n=x ;;
    esac
    case $n in
    '' | *[!0-9]* | 0?*) extra="$extra $name" ;;
    *) [ "$n" -lt "$np" ] || extra="$extra $name" ;;
    esac
done

if [ -z "$missing$bad$extra" ]; then
    case $status in
    0) exit 0 ;;
    1)
        echo "$me: all $np PEs passed every check; mpiexec's exit status 1 (hydra's \"Hangup (signal 1)\" for ranks that end without MPI_Finalize) is not the verdict"
        exit 0
        ;;
    esac
    echo "$me: all $np PEs passed every check, but mpiexec's exit status $status is not 0 or 1: something failed after the verdicts (a PE killed, or MPIEXEC_TIMEOUT)" >&2
    [ "$status" -ne 77 ] || exit 1
    exit "$status"
fi
[ -z "$missing" ] || echo "$me: PEs that never reported that their checks passed:$missing" >&2
[ -z "$bad" ] || echo "$me: PEs whose verdict is not \"pass\":$bad" >&2
[ -z "$extra" ] || echo "$me: unexpected files among the verdicts of $np PEs:$extra" >&2
# 77 (skipped) only when no PE reported: every PE skipped.
if [ "$status" -eq 77 ] && [ "$reported" -eq 0 ]; then
    exit 77
fi
if [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
    exit "$status"
fi
exit 1
