#!/usr/bin/env bash
# Run every example and the topology tool, stopping at the first failure.
#
#   examples/run.sh [builddir]     (default: build; `ninja run` passes it)
set -euo pipefail

build=${1:-build}
export MPIEXEC_TIMEOUT=60 # a hung example fails instead of waiting forever
mpiexec=${MPIEXEC:-mpiexec}

run() {
    echo
    echo "==== $*"
    "$@"
}

for np in 2 4; do
    run "$mpiexec" -n "$np" "$build/examples/hello_put_get"
done
run "$mpiexec" -n 4 "$build/examples/mixed_mpi"
run "$mpiexec" -n 4 "$build/examples/pipeline"
run "$mpiexec" -n 4 "$build/examples/plugin_host" "$build/examples"
run "$build/bin/shoal-topo"
run "$mpiexec" -n 2 "$build/bin/shoal-topo" --probe
echo
echo "==== all examples passed"
