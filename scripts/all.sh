#!/usr/bin/env bash
# The main job on a fresh machine: set up (offline where everything is present), generate, build, the compile
# tier (ptxas and nvJitLink verdicts of the toolchain; on a GPU also the driver JIT's), the run tier where a GPU is
# present, the report of all of them, and the regression gate of each run against its committed baseline.
#   ./ptxcts all [--toolchain NAME|PATH]          one toolchain (default $PTXCTS_TOOLCHAIN, else the CUDA toolkit)
#   ./ptxcts all --toolchains 12.4,...,13.5        the compile tier over the toolchain matrix instead (./ptxcts matrix)
set -uo pipefail
# SIGINT/SIGTERM reach the whole group (./ptxcts forwards them): the tier running now writes what it judged,
# marked partial. With a trap, bash waits for that foreground tier before it ends (docs/CLI.md, "Signals").
trap 'echo "all: interrupted by SIGINT" >&2; exit 130' INT
trap 'echo "all: interrupted by SIGTERM" >&2; exit 143' TERM
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
export PATH="$PATH:/usr/local/cuda/bin"
toolchain=() matrix=""
while [ $# -gt 0 ]; do
  case "$1" in
    --toolchain) [ $# -ge 2 ] && [ -n "$2" ] || { echo "all: --toolchain needs NAME|PATH" >&2; exit 2; }
                 toolchain=(--toolchain "$2"); shift ;;
    --toolchains) [ $# -ge 2 ] && [ -n "$2" ] || { echo "all: --toolchains needs a list" >&2; exit 2; }
                  matrix=$2; shift ;;
    *) echo "all: unknown option '$1' (known: --toolchain NAME|PATH, --toolchains LIST)" >&2; exit 2 ;;
  esac
  shift
done
t0=$(date +%s)
step() { echo "all: [$(( $(date +%s) - t0 )) s] $*"; }
if [ ${#toolchain[@]} -gt 0 ]; then   # an unknown toolchain is a usage error before anything starts
  ./ptxcts toolchains resolve "${toolchain[1]}" >/dev/null || exit 2
fi
./ptxcts setup || exit $?
./ptxcts gen || exit $?
./ptxcts build || exit $?
stamp=$(date -u +%Y-%m-%dT%H-%M-%SZ)
gpu=0
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && gpu=1
runs=()
if [ -n "$matrix" ]; then
  step "compile tier over the toolchains $matrix"
  ./ptxcts matrix --toolchains "$matrix" --out "results/$stamp-matrix"
  for d in "results/$stamp-matrix"/*/; do [ -f "$d/results.json" ] && runs+=("${d%/}"); done
else
  step "compile tier (ptxas, nvJitLink)"
  ./ptxcts compile "${toolchain[@]}" --verdicts ptxas,nvjitlink --quiet --out "results/$stamp-compile"
  [ -f "results/$stamp-compile/results.json" ] && runs+=("results/$stamp-compile")
  if [ $gpu = 1 ]; then   # the driver's verdicts belong to this device: a run of their own, gated per device
    step "compile tier (the driver's JIT on this GPU)"
    ./ptxcts compile "${toolchain[@]}" --verdicts driver --quiet --out "results/$stamp-compile-driver"
    [ -f "results/$stamp-compile-driver/results.json" ] && runs+=("results/$stamp-compile-driver")
  fi
fi
if PYTHONPATH="$root/generator:$root/harness" python3 -c 'import sys, frontend; sys.exit(0 if frontend.installed_dir("llvm-22") else 1)'; then
  step "front-end tier (llvm-22, paired with its ptxas)"
  ./ptxcts frontend run --frontend llvm-22 --quiet --out "results/$stamp-frontend-llvm-22"
  [ -f "results/$stamp-frontend-llvm-22/results.json" ] && runs+=("results/$stamp-frontend-llvm-22")
else
  step "front-end llvm-22 not installed: the front-end tier is skipped (./ptxcts frontend install llvm-22)"
fi
if [ $gpu = 1 ]; then
  step "run tier"
  # one shard per GPU of this host, merged into one run (scripts/run_gpus.sh; with one GPU the plain run tier)
  ./ptxcts run --gpus all "${toolchain[@]}" --quiet --out "results/$stamp-run"
  [ -f "results/$stamp-run/results.json" ] && runs+=("results/$stamp-run")
  # The same cases with kernels LLVM wrote whole (harness/frontend/silicon.py): from llvm-22 where it is
  # installed, else from modules prebuilt elsewhere into build/fe-llvm/<target>.
  fe_source=()
  if PYTHONPATH="$root/generator:$root/harness" python3 -c 'import sys, frontend; sys.exit(0 if frontend.installed_dir("llvm-22") else 1)'; then
    fe_source=(--frontend llvm-22)
  elif [ -f build/fe-llvm/sm_90/index.json ]; then
    fe_source=(--modules build/fe-llvm)
  fi
  if [ ${#fe_source[@]} -gt 0 ]; then
    step "run tier, kernels written by llvm-22 (${fe_source[*]}), against the hand-written classes"
    ./ptxcts run "${fe_source[@]}" --quiet --out "results/$stamp-run-llvm-22"
    if [ -f "results/$stamp-run-llvm-22/results.json" ]; then
      runs+=("results/$stamp-run-llvm-22")
      crc=0
      ./ptxcts frontend compare "results/$stamp-run-llvm-22" --against "results/$stamp-run" \
        --json "results/$stamp-run-llvm-22/compare.json" > "results/$stamp-run-llvm-22/compare.txt" || crc=$?
      tail -2 "results/$stamp-run-llvm-22/compare.txt"
      [ $crc = 0 ] || echo "all: llvm-22's kernels differ from the hand-written ones: results/$stamp-run-llvm-22/compare.txt"
    fi
  else
    step "no llvm-22 and no prebuilt build/fe-llvm: the front-end's kernels are not run on silicon"
  fi
else
  step "no GPU here: the run tier is skipped (ctest -L run reports its cases as skipped)"
fi
step "lowering tier (SASS of every valid form, judged by the lowering rules; no GPU needed)"
lrc=0
./ptxcts lower "${toolchain[@]}" --quiet --out "results/$stamp-lower" || lrc=$?
if [ -f "results/$stamp-lower/results.json" ]; then
  runs+=("results/$stamp-lower")   # gated below with the others (./ptxcts gate hands it to ./ptxcts lower --gate)
else
  echo "all: the lowering tier did not finish (exit $lrc)"
fi
step "report"
./ptxcts report "${runs[@]}" --out "results/$stamp-report" || echo "all: the report exited $?"
# The regression gate against the committed baselines (results/baselines/), per run and toolchain.
rc=0
for run in "${runs[@]}"; do
  ./ptxcts gate "$run" --list 20
  r=$?
  case $r in
    0) ;;
    1) echo "all: the gate found regressions in $run"; rc=1 ;;
    *) echo "all: the gate could not judge $run (exit $r: no baseline for it, or a malformed file)" ;;
  esac
done
step "done: results in ${runs[*]}; report in results/$stamp-report/report.html"
exit $rc
