#!/usr/bin/env bash
# The run tier's GPU job (a GPU runner, or the device tool): one call builds and exercises everything of the run
# tier that needs a GPU, prints a compact summary, and leaves logs and results under $1 (default /tmp/ptxcts-gpu):
#   1. build (Release) and the run tier's CPU tests (ctest -L run, labels batch/judge/cli)
#   2. the whole tier, both load paths, plus the driver's JIT of the sm_80 modules (toolchain in the header)
#   3. the isolation self-test: a planted trap, hang and wrong byte cost exactly their own cases
#   4. SIGINT in the middle of a real run: exit 130, partial results, no worker left; then --resume completes it
#   5. CTest over every GPU (scripts/gpus.sh resource spec, -j <GPUs>): the run tests green with the reviewed
#      interleave traps as known findings; the per-test results shards merged into one document
# Extra ptxcts-run options for the full run: $PTXCTS_GPU_ARGS. Until `./ptxcts toolchains resolve --json`
# exists, the toolchain comes from harness/run/tests/toolchain_standin.py (said in the summary).
set -uo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
out=${1:-/tmp/ptxcts-gpu}
export PTXCTS_ROOT=$root PTXCTS_BUILD=${PTXCTS_BUILD:-$root/build}
mkdir -p "$out"
rm -rf "$out/full" "$out/inject-crash" "$out/inject-hang" "$out/inject-fail" "$out/interrupt" "$out/ctest-results" "$out/merged"
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
t0=$(date +%s)
{ cmake -S "$root" -B "$PTXCTS_BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release &&
  cmake --build "$PTXCTS_BUILD" -j "$(nproc)"; } > "$out/build.log" 2>&1 ||
  { tail -n 40 "$out/build.log"; exit 2; }
echo "gpu_check: built in $(( $(date +%s) - t0 )) s"
if ! "$root/ptxcts" toolchains resolve --json > "$out/toolchain.json" 2> "$out/toolchain.err"; then
  export PTXCTS_TOOLCHAIN_RESOLVER="python3 $root/harness/run/tests/toolchain_standin.py"
  echo "gpu_check: ./ptxcts toolchains resolve --json failed ($(head -c 200 "$out/toolchain.err")); using the stand-in resolver"
fi
ctest --test-dir "$PTXCTS_BUILD" -L 'batch|judge|cli|build' --output-on-failure > "$out/cpu-tests.log" 2>&1
echo "gpu_check: CPU tests of the run tier: $(grep -E 'tests passed|tests failed' "$out/cpu-tests.log" | tail -1)"

run=$PTXCTS_BUILD/harness/run/ptxcts-run
t1=$(date +%s)
# shellcheck disable=SC2086
"$run" --lower-targets sm_80 --jobs 12 --out "$out/full" ${PTXCTS_GPU_ARGS:-} > "$out/full.log" 2>&1
rc=$?
echo "gpu_check: full tier in $(( $(date +%s) - t1 )) s (exit $rc)"
grep -m1 '^run: .* case(s) x' "$out/full.log"
grep -A40 '^family' "$out/full.log" | sed '/^results:/q' | grep -v '^    replay' | grep -v '^\(fail\|spec_divergence\|crash\|timeout\|compile_error\) ' || true
ls -d "$PTXCTS_BUILD"/harness/run/modules/*/ 2>/dev/null | sed 's/^/gpu_check: module cache: /'

# Isolation self-test on one family, cubin path.
PTXCTS_RUN_INJECT='crash:#size_48.align_16' "$run" --family cp.async.bulk --load-path cubin --quiet --out "$out/inject-crash" > "$out/inject-crash.log" 2>&1
PTXCTS_RUN_INJECT='hang:shared_cta.global.mbarrier_complete_tx_bytes#size_272' "$run" --family cp.async.bulk --load-path cubin --quiet --timeout 2 --out "$out/inject-hang" > "$out/inject-hang.log" 2>&1
PTXCTS_RUN_INJECT='fail:#size_4096.align_16' "$run" --family cp.async.bulk --load-path cubin --quiet --out "$out/inject-fail" > "$out/inject-fail.log" 2>&1

# Interrupt a real run (SIGINT after 4 s of a long family), then resume it.
"$run" --family cp.reduce.async.bulk --load-path both --lower-targets none --jobs 4 --quiet --out "$out/interrupt" > "$out/interrupt.log" 2>&1 &
pid=$!
sleep 4; kill -INT "$pid"; wait "$pid"; irc=$?
left=$(pgrep -f -- "--log-dir $out/interrupt" | wc -l)
cp "$out/interrupt/results.json" "$out/interrupt-partial.json" 2>/dev/null
"$run" --resume "$out/interrupt" --jobs 4 --quiet > "$out/resume.log" 2>&1
rrc=$?

# CTest over the GPUs of this host: one GPU per run test, the results shards merged.
"$root/scripts/gpus.sh" "$out/gpus.json" 2> "$out/gpus.log"
ngpu=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['local'][0]['gpus']))" "$out/gpus.json")
t2=$(date +%s)
PTXCTS_RUN_RESULTS=$out/ctest-results ctest --test-dir "$PTXCTS_BUILD" -L run -LE 'batch|judge|cli' \
  --resource-spec-file "$out/gpus.json" -j "$(( ngpu > 0 ? ngpu : 1 ))" -V > "$out/ctest.log" 2>&1
crc=$?
echo "gpu_check: ctest -L run over $ngpu GPU(s) in $(( $(date +%s) - t2 )) s (exit $crc): $(grep -E 'tests passed|tests failed' "$out/ctest.log" | tail -1)"
grep -h 'run: known findings: [1-9]' "$out/ctest.log" | sed 's/^[0-9]*: //' | sort | uniq -c | sed 's/^/gpu_check: /'
grep -E '^\s+[0-9]+ - run\..*\((Failed|Timeout|Not Run)\)' "$out/ctest.log" | head -20
grep -h 'CUDA_VISIBLE_DEVICES\|CTEST_RESOURCE_GROUP_0_GPUS' "$out/ctest.log" | head -3
PYTHONPATH=$root/generator:$root/harness python3 -m results merge --out "$out/merged" --run-id ctest-merged \
  "$out"/ctest-results/*/ > "$out/merge.log" 2>&1
mrc=$?
echo "gpu_check: merge of $(ls -d "$out"/ctest-results/*/ 2>/dev/null | wc -l) ctest shards: exit $mrc ($(tail -c 300 "$out/merge.log" | tr '\n' ' '))"

python3 - "$out" "$irc" "$left" "$rrc" <<'PY'
import json, sys, collections
out, irc, left, rrc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
for kind, want in (("crash", "crash"), ("hang", "timeout"), ("fail", "fail")):
    try:
        cases = json.load(open(f"{out}/inject-{kind}/results.json"))["cases"]
    except OSError as e:
        print(f"isolation self-test {kind}: no results ({e})"); continue
    planted = [c for c in cases if c["class"] == want]
    other = collections.Counter(c["class"] for c in cases if c["class"] != want)
    print(f"isolation self-test {kind}: {len(planted)} case(s) {want}, the other {sum(other.values())}: {dict(other)}"
          f"; e.g. {planted[0]['id'] + ': ' + planted[0]['message'][:160] if planted else '-'}")
try:
    p = json.load(open(f"{out}/interrupt-partial.json"))
    r = json.load(open(f"{out}/interrupt/results.json"))
    pc = collections.Counter(c["class"] for c in p["cases"])
    rc = collections.Counter(c["class"] for c in r["cases"])
    print(f"interrupt: exit {irc} (want 130), workers left {left} (want 0), partial {p.get('partial')}, {dict(pc)}")
    print(f"resume: exit {rrc}, same run_id {r['run_id'] == p['run_id']}, partial {'partial' in r}, "
          f"{len(r['cases'])} cases (was {len(p['cases'])}): {dict(rc)}")
except (OSError, ValueError, KeyError) as e:
    print(f"interrupt/resume: no results ({e})")
try:
    doc = json.load(open(f"{out}/full/results.json"))
    print(f"toolchain recorded: {doc['toolchain']}")
    print(f"results.json: {sum(1 for _ in open(f'{out}/full/results.json'))} lines for {len(doc['cases'])} cases")
except (OSError, ValueError, KeyError) as e:
    print(f"full run: no results ({e})")
PY
