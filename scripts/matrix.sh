#!/usr/bin/env bash
# The toolchain matrix: the compile tier (ptxas + nvJitLink verdicts) of every toolchain in the list, one report
# with the toolchains as columns, and the differences between each toolchain and the one before it.
#   ./ptxcts matrix [--toolchains 12.4,12.8,12.9,13.0,13.2,13.5] [--verdicts ptxas,nvjitlink] [--out DIR]
#                   [--wheels DIR] [-j N] [--family LIST]
# --family LIST: only these families (as the compile tier's --family; a short matrix, e.g. for a test)
# Toolchains that are not installed are installed first (needs network, or --wheels DIR). Writes DIR/<name>/
# (one compile run per toolchain), DIR/diff/<A>_to_<B>.md, DIR/report/ and DIR/matrix.md (classes per toolchain
# and load path). Exit 0 when every run finished, 1 when a run failed to finish, 2 on a usage error.
set -uo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# SIGINT/SIGTERM: the tier running now writes what it judged, marked partial; matrix waits for it, then ends
# (scripts/stopping.sh). Every long step runs through `run_step`, so that the trap runs at once.
source "$root/scripts/stopping.sh"
trap 'stop_verb matrix SIGINT' INT
trap 'stop_verb matrix SIGTERM' TERM
cd "$root"
toolchains=12.4,12.8,12.9,13.0,13.2,13.5 verdicts=ptxas,nvjitlink out="" wheels=() jobs=() family=()
source "$(dirname "${BASH_SOURCE[0]}")/lists.sh"
while [ $# -gt 0 ]; do
  case "$1" in
    --toolchains|--verdicts|--out|--wheels|-j|--family)
      [ $# -ge 2 ] && [ -n "$2" ] || { echo "matrix: $1 needs a value" >&2; exit 2; }
      case "$1" in
        --toolchains) toolchains=$2 ;; --verdicts) verdicts=$2 ;; --out) out=$2 ;;
        --wheels) [ -d "$2" ] || { echo "matrix: --wheels '$2': no such folder (a folder of toolchain wheels)" >&2
                                   exit 2; }
                  wheels=(--wheels "$2") ;;
        -j) jobs=(-j "$2") ;; --family) family+=(--family "$2") ;;
      esac
      shift ;;
    *) echo "matrix: unknown option '$1' (known: --toolchains LIST, --verdicts LIST, --out DIR, --wheels DIR, -j N," \
            "--family LIST)" >&2
       exit 2 ;;
  esac
  shift
done
# a name twice would compile the whole tier again into the folder of its first run (refused there, hours later)
check_list matrix --toolchains toolchain "$toolchains"
IFS=, read -r -a names <<< "$toolchains"
if [ ${#jobs[@]} -gt 0 ] && ! [[ ${jobs[1]} =~ ^[1-9][0-9]*$ ]]; then
  echo "matrix: -j '${jobs[1]}': expected a number of parallel compiler calls, 1 or more" >&2; exit 2
fi
check_list matrix --verdicts verdict "$verdicts" ptxas nvjitlink driver
out=${out:-results/$(date -u +%Y-%m-%dT%H-%M-%SZ)-matrix}
if [ -e "$out" ] && [ ! -d "$out" ]; then
  echo "matrix: --out $out is a file, not a folder (the matrix writes a folder per toolchain into it)" >&2; exit 2
fi
if [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  echo "matrix: --out $out exists and is not empty: choose another folder" >&2; exit 2
fi
export PTXCTS_ROOT=$root PYTHONPATH="$root/generator:$root/harness"
for n in "${names[@]}"; do   # validates every name before any long work starts (and before --out is made)
  run_step py toolchains resolve "$n" >/dev/null 2>&1 || run_step py toolchains install "$n" "${wheels[@]}" || exit 2
done
mkdir -p "$out/diff"
t0=$(date +%s) rc=0 runs=()
for n in "${names[@]}"; do
  t1=$(date +%s)
  run_step py compile --toolchain "$n" --verdicts "$verdicts" --out "$out/$n" --quiet "${jobs[@]}" "${family[@]}" \
    > "$out/$n.log" 2>&1
  r=$?
  echo "matrix: toolchain $n: compile tier exit $r in $(( $(date +%s) - t1 )) s (log $out/$n.log)"
  # stopped by a signal sent to it alone: its partial document is written; the next toolchain is not started
  case $r in 130|143) echo "matrix: interrupted (the compile tier of $n exited $r)" >&2; exit "$r" ;; esac
  # exit 1 means cases failed (they are the matrix's content); anything else means the run did not finish. A
  # usage error (2) or a malformed file (3) is the same for every toolchain: said once, the matrix stops there
  if [ $r = 2 ] || [ $r = 3 ]; then
    echo "matrix: toolchain $n: $(grep -m1 '^compile: \|error:' "$out/$n.log" || tail -1 "$out/$n.log")" >&2
    exit $r
  fi
  [ $r -le 1 ] && runs+=("$out/$n") || rc=1
done
prev=""
for run in "${runs[@]}"; do
  n=$(basename "$run")
  [ -n "$prev" ] && run_step py results diff "$prev" "$run" --examples 3 \
      --markdown "$out/diff/$(basename "$prev")_to_$n.md" --json "$out/diff/$(basename "$prev")_to_$n.json" >/dev/null
  prev=$run
done
run_step py results report "${runs[@]}" --out "$out/report" --baselines none >/dev/null || rc=1
( trap '' INT TERM; exec python3 - "$out" "${runs[@]}" ) <<'PY' > "$out/matrix.md"
import collections, json, os, sys
out, runs = sys.argv[1], sys.argv[2:]
classes = ("pass", "fail", "compile_error", "spec_divergence", "beyond_chapter", "not_supported", "crash", "timeout",
           "skipped")
print("# Toolchain matrix: compile tier\n")
print("| toolchain | ptxas | load path | cases | " + " | ".join(classes) + " |")
print("|---|---|---|---:|" + "---:|" * len(classes))
for run in runs:
    doc = json.load(open(os.path.join(run, "results.json")))
    by = collections.defaultdict(collections.Counter)
    for c in doc["cases"]:
        by[c["load_path"]][c["class"]] += 1
    for lp, k in sorted(by.items()):
        tc = doc["toolchain"]
        print(f"| {tc.get('name')} | {tc.get('ptxas')} | {lp} | {sum(k.values())} | "
              + " | ".join(str(k[c]) for c in classes) + " |")
print("\nDifferences between consecutive toolchains: diff/*.md; the report: report/report.html.")
PY
echo "matrix: ${#runs[@]} toolchain(s) in $(( $(date +%s) - t0 )) s; $out/matrix.md, $out/diff/, $out/report/"
cat "$out/matrix.md"
exit $rc
