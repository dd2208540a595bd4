#!/usr/bin/env bash
# The main job on a fresh machine: set up (offline where everything is present), generate, build, the compile
# tier (ptxas and nvJitLink verdicts of the toolchain; on a GPU also the driver JIT's), the front-end and lowering
# tiers, the run tier where a GPU is present, the report of all of them, and the regression gate of each run
# against its committed baseline.
#   ./ptxcts all [--toolchain NAME|PATH]          one toolchain (default $PTXCTS_TOOLCHAIN, else the CUDA toolkit)
#   ./ptxcts all --toolchains 12.4,...,13.5        the compile tier over the toolchain matrix instead (./ptxcts matrix)
#   ./ptxcts all --wheels DIR                      set up offline from a folder of wheels (default $PTXCTS_WHEELS)
#   ./ptxcts all --family LIST                     the tiers on these families only (a short run, e.g. for a test;
#                                                  its gates then judge a part of each baseline: gate --partial)
# Three lanes run side by side, all started as soon as the kernels are generated: the CPU lane (compile tier, then
# the front-end tier) and the lowering lane (lowering tier) -- they need no build, and run at a lower CPU priority,
# `nice`, so that the device lane's own CPU work is not queued behind theirs; side by side, neither waits for the
# other's last, slowest modules -- and, on a GPU, the device lane (the driver JIT's compile verdicts, which need no
# build either; then the run tier, once ptxcts-run is built; then the run tier over LLVM's kernels). Only ptxcts-run
# is built: no tier of this job runs the rest of the harness (the test binaries: `./ptxcts test` builds them), and
# on a runner the lanes keep every core busy. Each tier's lines are prefixed with its lane. The report and the
# gates, side by side, follow the lanes. results/<stamp>-all.tsv records each step's seconds, exit and start, and each run's gate verdict
# (./ptxcts devcheck reads it); every gate's verdict is also <run>/gate.json.
# Exit: 0 when every run was gated and passed, the GPU part included; 1 when a gate found regressions, or a run could
# not be gated (no baseline for it, or a malformed file), or a tier did not finish; 77 when the CPU part passed but
# the GPU part was skipped (no GPU here, CUDA_VISIBLE_DEVICES empty, a GPU step that exited 77: the step table
# records it); 2 usage; 130/143 interrupted.
set -uo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
export PATH="$PATH:/usr/local/cuda/bin"
toolchain=() matrix="" wheels=${PTXCTS_WHEELS:-} family=()
source "$(dirname "${BASH_SOURCE[0]}")/lists.sh"
while [ $# -gt 0 ]; do
  case "$1" in
    --toolchain) [ $# -ge 2 ] && [ -n "$2" ] || { echo "all: --toolchain needs NAME|PATH" >&2; exit 2; }
                 toolchain=(--toolchain "$2"); shift ;;
    --toolchains) [ $# -ge 2 ] && [ -n "$2" ] || { echo "all: --toolchains needs a list" >&2; exit 2; }
                  check_list all --toolchains toolchain "$2"
                  matrix=$2; shift ;;
    --wheels) [ $# -ge 2 ] && [ -n "$2" ] || { echo "all: --wheels needs a folder" >&2; exit 2; }
              wheels=$2; shift ;;
    --family) [ $# -ge 2 ] && [ -n "$2" ] || { echo "all: --family needs a list of families" >&2; exit 2; }
              family+=(--family "$2"); shift ;;
    *) echo "all: unknown option '$1' (known: --toolchain NAME|PATH, --toolchains LIST, --wheels DIR," \
            "--family LIST)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$wheels" ] && [ ! -d "$wheels" ]; then
  echo "all: --wheels '$wheels' (or PTXCTS_WHEELS): no such folder" >&2; exit 2
fi
t0ns=$(date +%s%N) t0=$(( t0ns / 1000000000 ))
step() { echo "all: [$(( $(date +%s) - t0 )) s] $*"; }
if [ ${#toolchain[@]} -gt 0 ]; then   # an unknown toolchain is a usage error before anything starts
  ./ptxcts toolchains resolve "${toolchain[1]}" >/dev/null || exit 2
fi
stamp=$(date -u +%Y-%m-%dT%H-%M-%SZ)
mkdir -p results
tsv="results/$stamp-all.tsv"
printf 'kind\tname\tseconds\texit\tstart\n' > "$tsv"
# timed NAME CMD...: run a step, record its seconds, exit and start (seconds after all's own) in the TSV, return its
# exit. A step interrupted by a signal (130, 143) ends the shell that ran it (a lane, or all): nothing after it starts.
timed() {
  local name=$1 s ms r at
  shift
  s=$(date +%s%N)
  run_step "$@"
  r=$?
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  at=$(( (s - t0ns) / 100000000 ))
  printf 'step\t%s\t%d.%d\t%d\t%d.%d\n' "$name" $((ms / 1000)) $((ms % 1000 / 100)) "$r" $((at / 10)) $((at % 10)) >> "$tsv"
  case $r in 130|143) exit "$r" ;; esac
  return $r
}
lanes=()
# SIGINT/SIGTERM: each tier running now writes what it judged, marked partial; the trap waits for both lanes'
# tiers before it ends (scripts/stopping.sh; docs/CLI.md, "Signals"). Every step runs through `timed` (`run_step`),
# so that the trap runs at once. The device lane may be waiting for ptxcts-run's build (run_ready): it is told the
# build will not come. A lane's shell, stopped by a signal, waits for its tier, then ends (step_traps); a step that
# ends 130/143 ends its lane (timed). The lanes' line prefixers ignore both signals: they end when their lane does,
# and none of its last lines is lost (nor its tier cut off by a closed pipe).
source "$root/scripts/stopping.sh"
no_build() {
  [ -n "${lane_dir:-}" ] && [ ! -f "$lane_dir/run_ready" ] && echo 1 > "$lane_dir/run_ready"
}
STOP_HOOK=no_build
trap 'stop_verb all SIGINT' INT
trap 'stop_verb all SIGTERM' TERM
setup_args=()
[ -n "$wheels" ] && setup_args=(--wheels "$wheels")
bash "$root/scripts/gpus.sh" --ids > /dev/null || exit $?   # PTXCTS_NVIDIA_SMI unusable: said before any step
timed setup ./ptxcts setup "${setup_args[@]+"${setup_args[@]}"}" || exit $?
timed gen ./ptxcts gen || exit $?
gpu=0   # the GPUs of this host as the run tier and ctest count them (scripts/gpus.sh; PTXCTS_NVIDIA_SMI honoured)
no_gpu="no GPU here (nvidia-smi lists none)"
if [ -n "${CUDA_VISIBLE_DEVICES+set}" ] && [ -z "${CUDA_VISIBLE_DEVICES//[[:space:]]/}" ]; then
  no_gpu="CUDA_VISIBLE_DEVICES is set but empty: it hides every device"
elif [ -n "$(bash "$root/scripts/gpus.sh" --ids 2>/dev/null)" ]; then
  gpu=1 no_gpu=""
fi
# the front-ends installed here, in the order their tiers run (harness/frontend/README.md); llvm-22 is the one setup
# installs, the others run where someone installed them (./ptxcts frontend install NAME)
# (signals ignored while it asks: a quick question, never a KeyboardInterrupt traceback; stopping.sh, py)
frontends=$( trap '' INT TERM; PYTHONPATH="$root/generator:$root/harness" exec python3 -c 'import frontend
print(" ".join(n for n in ("llvm-22", "llvm-triton", "triton", "cute-dsl") if frontend.installed_dir(n)))' ) || frontends=""
lane_dir=$(mktemp -d "${TMPDIR:-/tmp}/ptxcts-all.XXXXXX")
# ran LANE RUN: a tier wrote RUN (results.json there): it is reported and gated
ran() { [ -f "$2/results.json" ] && echo "$2" >> "$lane_dir/$1"; }

# The Triton installed on this machine for this Python (a runner's own, beside PyTorch; ./ptxcts frontend
# find-triton), judged as --frontend triton=SITE (its results name its version), paired with ptxas 13.5 where that
# toolchain is installed, else with this machine's. Gated where results/baselines/frontend/<its name>.json.gz
# exists from a run of the same pairing; else its own exit decides (0: every judged case passes or is a reviewed
# finding), written to $lane_dir/triton_installed for the end of all.
# baseline_pairing FILE: the ptxas a front-end baseline was paired with (its source run's), empty without one
baseline_pairing() {
  [ -f "$1" ] && python3 -c 'import gzip, json, sys
print((json.load(gzip.open(sys.argv[1]))["source"].get("toolchain") or {}).get("paired_ptxas") or "")' "$1" 2>/dev/null
}
installed_triton_tier() {
  local site name tc=() r=0
  read -r site name _ < <(trap '' INT TERM; ./ptxcts frontend find-triton 2>/dev/null) || true
  if [ -z "${site:-}" ]; then
    step "no Triton installed for this Python (./ptxcts frontend find-triton): not judged"
    return
  fi
  ./ptxcts toolchains resolve 13.5 > /dev/null 2>&1 ||
    tc=(--toolchain "$(./ptxcts toolchains resolve --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["name"])')")
  step "front-end tier ($name, the Triton installed here: $site${tc[1]:+, paired with ${tc[1]}})"
  timed frontend-triton-installed ./ptxcts frontend run --frontend "triton=$site" "${tc[@]+"${tc[@]}"}" --quiet \
    "${family[@]+"${family[@]}"}" --out "results/$stamp-frontend-triton-installed" || r=$?
  # its baseline holds the classes of one pairing: a run paired with another ptxas takes its own verdict
  if [ "$(baseline_pairing "results/baselines/frontend/$name.json.gz")" = "${tc[1]:-13.5}" ]; then
    ran cpu "results/$stamp-frontend-triton-installed"
  else
    echo "$r $name results/$stamp-frontend-triton-installed" > "$lane_dir/triton_installed"
  fi
}

cpu_lane() {
  step_traps   # a signal: the lane waits for its tier, then ends (scripts/stopping.sh)
  renice -n 10 -p "$BASHPID" >/dev/null 2>&1   # the lane's shell first: every tier it starts inherits the priority
  if [ -n "$matrix" ]; then
    step "compile tier over the toolchains $matrix"
    timed matrix ./ptxcts matrix --toolchains "$matrix" "${family[@]+"${family[@]}"}" --out "results/$stamp-matrix"
    for d in "results/$stamp-matrix"/*/; do ran cpu "${d%/}"; done
  else
    step "compile tier (ptxas, nvJitLink)"
    timed compile ./ptxcts compile "${toolchain[@]+"${toolchain[@]}"}" --verdicts ptxas,nvjitlink --quiet \
      "${family[@]+"${family[@]}"}" --out "results/$stamp-compile"
    ran cpu "results/$stamp-compile"
  fi
  case " $frontends " in
    *" llvm-22 "*) ;;
    *) step "front-end llvm-22 not installed: the front-end tier is skipped (./ptxcts frontend install llvm-22 [--wheels DIR])" ;;
  esac
  for fe in $frontends; do   # each paired with its ptxas (toolchains/frontends.toml); one step name for the gate
    step "front-end tier ($fe, paired with its ptxas)"
    timed frontend ./ptxcts frontend run --frontend "$fe" --quiet "${family[@]+"${family[@]}"}" \
      --out "results/$stamp-frontend-$fe"
    ran cpu "results/$stamp-frontend-$fe"
  done
  installed_triton_tier
  step "CPU lane done"
}

lower_lane() {
  step_traps   # a signal: the lane waits for its tier, then ends (scripts/stopping.sh)
  renice -n 10 -p "$BASHPID" >/dev/null 2>&1   # as the CPU lane
  step "lowering tier (SASS of every valid form, judged by the lowering rules; no GPU needed)"
  timed lower ./ptxcts lower "${toolchain[@]+"${toolchain[@]}"}" --quiet "${family[@]+"${family[@]}"}" \
    --out "results/$stamp-lower"
  # gated below with the others (./ptxcts gate hands it to ./ptxcts lower --gate)
  ran lower "results/$stamp-lower" || echo "all: the lowering tier did not finish"
  step "lowering lane done"
}

# The front-ends' whole kernels (harness/frontend/whole): for the Triton installed for this Python (a runner's own),
# the pinned Triton and the pinned CuTe DSL where installed, written here by that front-end and run on this GPU, each
# judged by the bytes it leaves against the reference model's. No baseline: every kernel must pass (whole-run's exit);
# the verdicts are written to $lane_dir/whole for the end of all.
whole_kernels() {
  local fes=() site fe n d r
  site=$(trap '' INT TERM; ./ptxcts frontend find-triton --path-only 2>/dev/null) || site=""
  [ -n "$site" ] && fes+=("triton=$site")
  [[ " $frontends " == *" triton "* ]] && fes+=(triton)
  [[ " $frontends " == *" cute-dsl "* ]] && fes+=(cute-dsl)
  if [ ${#fes[@]} = 0 ]; then
    step "no Triton or CuTe DSL here (installed for this Python or pinned): no front-end's whole kernels are run"
    return
  fi
  # whole-write asks the reference model (ptxcts-ref) for the expected bytes; all's build made only ptxcts-run
  if ! timed build-ref ./ptxcts build --target ptxcts-ref; then
    for fe in "${fes[@]}"; do echo "3 ${fe%%=*} ptxcts-ref-did-not-build" >> "$lane_dir/whole"; done
    return
  fi
  for fe in "${fes[@]}"; do
    case "$fe" in
      triton) n=triton-pinned ;;
      cute-dsl) n=cute-dsl-pinned ;;
      *) n=triton-installed ;;
    esac
    d="results/$stamp-whole-$n"
    step "whole kernels of $fe, written here and run on this GPU"
    r=0
    timed "whole-write-$n" ./ptxcts frontend whole-write --frontend "$fe" --quiet --out "$d/kernels" || r=$?
    if [ $r = 0 ]; then
      timed "whole-run-$n" ./ptxcts frontend whole-run "$d/kernels" --out "$d" > "$d.log" 2>&1 || r=$?
      head -1 "$d/summary.txt" 2>/dev/null
      tail -1 "$d/summary.txt" 2>/dev/null
    fi
    echo "$r $n $d" >> "$lane_dir/whole"
  done
}

gpu_lane() {
  step_traps   # a signal: the lane waits for its tier, then ends (scripts/stopping.sh)
  step "compile tier (the driver's JIT on this GPU)"   # the driver's verdicts belong to this device: gated per device
  timed compile-driver ./ptxcts compile "${toolchain[@]+"${toolchain[@]}"}" --verdicts driver --quiet \
    "${family[@]+"${family[@]}"}" --out "results/$stamp-compile-driver"
  ran gpu "results/$stamp-compile-driver"
  # the run tier needs ptxcts-run: built in the main shell beside the lanes; it writes run_ready (its exit) when done
  while [ ! -f "$lane_dir/run_ready" ]; do sleep 0.2; done
  if [ "$(cat "$lane_dir/run_ready")" != 0 ]; then
    step "ptxcts-run did not build: the run tier is skipped"
    return
  fi
  step "run tier"
  # one shard per GPU of this host, merged into one run (scripts/run_gpus.sh; with one GPU the plain run tier)
  timed run ./ptxcts run --gpus all "${toolchain[@]+"${toolchain[@]}"}" --quiet "${family[@]+"${family[@]}"}" \
    --out "results/$stamp-run"
  ran gpu "results/$stamp-run"
  # The same cases with kernels LLVM wrote whole (harness/frontend/silicon.py): from llvm-22 where it is
  # installed, else from modules prebuilt elsewhere into build/fe-llvm/<target>.
  local fe_source=()
  if [[ " $frontends " == *" llvm-22 "* ]]; then
    fe_source=(--frontend llvm-22)
  elif [ -f build/fe-llvm/sm_90/index.json ]; then
    fe_source=(--modules build/fe-llvm)
  fi
  if [ ${#fe_source[@]} -gt 0 ]; then
    step "run tier, kernels written by llvm-22 (${fe_source[*]}), against the hand-written classes"
    timed run-llvm-22 ./ptxcts run "${fe_source[@]}" --quiet "${family[@]+"${family[@]}"}" \
      --out "results/$stamp-run-llvm-22"
    if ran gpu "results/$stamp-run-llvm-22"; then
      local crc=0
      ./ptxcts frontend compare "results/$stamp-run-llvm-22" --against "results/$stamp-run" \
        --json "results/$stamp-run-llvm-22/compare.json" > "results/$stamp-run-llvm-22/compare.txt" || crc=$?
      tail -2 "results/$stamp-run-llvm-22/compare.txt"
      [ $crc = 0 ] || echo "all: llvm-22's kernels differ from the hand-written ones: results/$stamp-run-llvm-22/compare.txt"
    fi
  else
    step "no llvm-22 and no prebuilt build/fe-llvm: the front-end's kernels are not run on silicon"
  fi
  whole_kernels
  step "device lane done"
}

# The CPU and lowering lanes and the driver JIT need only the generated kernels and the toolchain: they start now,
# beside the build of ptxcts-run (the device lane waits for it).
cpu_lane > >(trap '' INT TERM; exec sed -u 's/^/[cpu] /') 2>&1 &
lanes+=($!)
lower_lane > >(trap '' INT TERM; exec sed -u 's/^/[low] /') 2>&1 &
lanes+=($!)
if [ $gpu = 1 ]; then
  gpu_lane > >(trap '' INT TERM; exec sed -u 's/^/[gpu] /') 2>&1 &
  lanes+=($!)
else
  step "$no_gpu: the device lane (driver JIT, run tier) is skipped, exit 77 at the end (ctest -L run reports its cases as skipped)"
  printf 'step\tdevice-lane\t0.0\t77\t%s\n' "$(( ($(date +%s) - t0) ))" >> "$tsv"   # recorded: skipped, not passed
fi
build_rc=0
timed build-run ./ptxcts build --target ptxcts-run || build_rc=$?
echo "$build_rc" > "$lane_dir/run_ready"
for p in "${lanes[@]}"; do wait "$p"; done
if [ $build_rc != 0 ]; then
  rm -rf "$lane_dir"
  echo "all: the build failed (exit $build_rc)" >&2
  exit "$build_rc"
fi
runs=()
for lane in cpu lower gpu; do
  [ -f "$lane_dir/$lane" ] && mapfile -t -O ${#runs[@]} runs < "$lane_dir/$lane"
done
triton_installed=$(cat "$lane_dir/triton_installed" 2>/dev/null) || triton_installed=""
whole=$(cat "$lane_dir/whole" 2>/dev/null) || whole=""
rm -rf "$lane_dir"
# The report, and beside it the regression gate of each run against the committed baselines (results/baselines/),
# per run and toolchain; each gate's verdict is <run>/gate.json, its lines <run>/gate.txt, printed in turn after.
step "report and gates"
whole_args=()   # the whole kernels a whole-run judged (results.jsonl there) get the report's section of their own
while read -r r name run; do
  [ -n "$name" ] && [ -f "$run/results.jsonl" ] && whole_args+=(--whole "$run")
done <<< "$whole"
timed report ./ptxcts report "${runs[@]}" "${whole_args[@]+"${whole_args[@]}"}" --out "results/$stamp-report" &
report_pid=$!
gate_pids=()
for run in "${runs[@]}"; do
  ./ptxcts gate "$run" ${family[0]+--partial} --list 20 --json "$run/gate.json" > "$run/gate.txt" 2>&1 &
  gate_pids+=($!)
done
rc=0
for k in "${!runs[@]}"; do
  run=${runs[$k]}
  wait "${gate_pids[$k]}"
  r=$?
  cat "$run/gate.txt"
  printf 'gate\t%s\t\t%d\t\n' "$run" "$r" >> "$tsv"
  case $r in
    0) ;;
    1) echo "all: the gate found regressions in $run"; rc=1 ;;
    *) echo "all: the gate could not judge $run (exit $r: no baseline for it, a baseline of another device or" \
            "driver, or a malformed file)"; rc=1 ;;
  esac
done
if [ -n "$triton_installed" ]; then   # the installed Triton without a baseline: its own verdict
  read -r r name run <<< "$triton_installed"
  case $r in
    0) echo "all: $name (the Triton installed here): every judged case passes or is a reviewed finding ($run)" ;;
    *) echo "all: $name (the Triton installed here): exit $r, see $run (no baseline to gate it:" \
            "results/baselines/frontend/$name.json.gz)"; rc=1 ;;
  esac
fi
while read -r r name run; do   # the front-ends' whole kernels: every kernel passes, or all is red
  [ -n "$name" ] || continue
  case $r in
    0) echo "all: $name's whole kernels: every kernel passed on this GPU ($run/summary.txt)" ;;
    *) echo "all: $name's whole kernels: exit $r, see $run/summary.txt and $run.log"; rc=1 ;;
  esac
done <<< "$whole"
wait "$report_pid" || echo "all: the report exited $?"
step "done: results in ${runs[*]}; report in results/$stamp-report/report.html; steps and gates in $tsv"
# No green without a GPU (docs/CLI.md, "./ptxcts all"): a finding decides first (1); else a GPU part that was
# skipped -- no GPU here, or a GPU step that exited 77 (its driver failed) -- makes the whole 77, never 0.
skipped=$(awk -F'\t' '$1 == "step" && $4 == 77 { printf "%s%s", sep, $2; sep = ", " }' "$tsv")
if [ $rc = 0 ] && [ -n "$skipped" ]; then
  echo "all: the tiers that ran passed their gates, but a part was skipped ($skipped${no_gpu:+: $no_gpu}):" \
       "exit 77, not a pass (steps in $tsv)"
  rc=77
fi
exit $rc
