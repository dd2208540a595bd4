#!/usr/bin/env bash
# The main job on a fresh machine: set up, generate, build, compile tier everywhere, run tier where a GPU is
# present, results under results/<run-id>/ and the coverage report beside them.
set -euo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
export PATH="$PATH:/usr/local/cuda/bin"
./ptxcts setup
./ptxcts gen
./ptxcts build
stamp=$(date -u +%Y-%m-%dT%H-%M-%SZ)
runs=()
./ptxcts compile --out "results/$stamp-compile" && runs+=("results/$stamp-compile") || runs+=("results/$stamp-compile")
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  ./ptxcts run --out "results/$stamp-run" || true
  runs+=("results/$stamp-run")
else
  echo "all: no GPU here: the run tier is skipped (its cases are reported as skipped by ctest -L run)"
fi
./ptxcts report "${runs[@]}" --out "results/$stamp-report"
# The regression gate against the committed baselines (results/baselines/), where one exists for the run.
for run in "${runs[@]}"; do
  [ -f "$run/results.json" ] || continue
  ./ptxcts gate "$run" || echo "all: the gate reports exit $? for $run (1 regression, 3 no or malformed baseline/waivers)"
done
echo "all: results in ${runs[*]}; report in results/$stamp-report/"
