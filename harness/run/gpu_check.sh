#!/usr/bin/env bash
# The run tier's GPU job (a GPU runner, or the device tool): build, run the whole tier (both load paths, plus the
# driver's JIT of the sm_80 modules), then the isolation self-test: a planted trap, hang and wrong byte must
# cost exactly their own cases (crash, timeout, fail) and nothing else. Prints a summary; logs and results
# under $1 (default /tmp/ptxcts-gpu). Extra ptxcts-run options for the full run: $PTXCTS_GPU_ARGS.
set -uo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
out=${1:-/tmp/ptxcts-gpu}
export PTXCTS_ROOT=$root PTXCTS_BUILD=${PTXCTS_BUILD:-$root/build}
mkdir -p "$out"
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
t0=$(date +%s)
{ cmake -S "$root" -B "$PTXCTS_BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release &&
  cmake --build "$PTXCTS_BUILD" -j "$(nproc)" --target ptxcts-run ptxcts-run-tests; } > "$out/build.log" 2>&1 ||
  { tail -n 40 "$out/build.log"; exit 2; }
echo "gpu_check: built in $(( $(date +%s) - t0 )) s"
run=$PTXCTS_BUILD/harness/run/ptxcts-run
t1=$(date +%s)
# shellcheck disable=SC2086
"$run" --lower-targets sm_80 --jobs 12 --out "$out/full" ${PTXCTS_GPU_ARGS:-} > "$out/full.log" 2>&1
rc=$?
echo "gpu_check: full tier in $(( $(date +%s) - t1 )) s (exit $rc)"
grep -A40 '^family' "$out/full.log" | sed '/^results:/q' | grep -v '^    replay' | grep -v '^\(fail\|spec_divergence\|crash\|timeout\|compile_error\) ' || true
# Isolation self-test on one family, cubin path.
PTXCTS_RUN_INJECT='crash:#size_48.align_16' "$run" --family cp.async.bulk --load-path cubin --quiet --out "$out/inject-crash" > "$out/inject-crash.log" 2>&1
PTXCTS_RUN_INJECT='hang:shared_cta.global.mbarrier_complete_tx_bytes#size_272' "$run" --family cp.async.bulk --load-path cubin --quiet --timeout 2 --out "$out/inject-hang" > "$out/inject-hang.log" 2>&1
PTXCTS_RUN_INJECT='fail:#size_4096.align_16' "$run" --family cp.async.bulk --load-path cubin --quiet --out "$out/inject-fail" > "$out/inject-fail.log" 2>&1
python3 - "$out" <<'PY'
import json, sys, collections
out = sys.argv[1]
for kind, want in (("crash", "crash"), ("hang", "timeout"), ("fail", "fail")):
    try:
        cases = json.load(open(f"{out}/inject-{kind}/results.json"))["cases"]
    except OSError as e:
        print(f"isolation self-test {kind}: no results ({e})"); continue
    planted = [c for c in cases if c["class"] == want]
    other = collections.Counter(c["class"] for c in cases if c["class"] != want)
    print(f"isolation self-test {kind}: {len(planted)} case(s) {want}, the other {sum(other.values())}: {dict(other)}"
          f"; e.g. {planted[0]['id'] + ': ' + planted[0]['message'][:160] if planted else '-'}")
PY
