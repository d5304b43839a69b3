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
# The GPU examples: built where nvcc was found, run where a GPU is present.
if [ ! -x "$build/examples/stream_pipeline" ]; then
    echo
    echo "==== GPU examples skipped: shoal was built without CUDA"
elif ! nvidia-smi -L >/dev/null 2>&1; then
    echo
    echo "==== GPU examples skipped: no GPU here (nvidia-smi -L finds none)"
else
    run "$mpiexec" -n 2 "$build/examples/stream_pipeline"
    run "$mpiexec" -n 2 "$build/examples/allreduce_device"
fi
run "$build/bin/shoal-topo"
run "$mpiexec" -n 2 "$build/bin/shoal-topo" --probe
echo
echo "==== all examples passed"
