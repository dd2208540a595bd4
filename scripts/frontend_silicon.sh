#!/usr/bin/env bash
# The front-ends' run-tier kernels on silicon, in two halves (harness/frontend/README.md, "On silicon").
#
#   scripts/frontend_silicon.sh write DIR [--ptx V] [FRONTEND...]
#       on a machine where the front-ends are installed (a GPU runner may have none): for each front-end (default:
#       every installed one of triton, cute-dsl, llvm-triton, llvm-22; `triton=PATH` writes DIR/triton-named: a
#       Triton of your own, e.g. the runner's), `./ptxcts modules --frontend F --target T
#       --ptx V --valid-only --max-entries 16` (V: the run's toolchain's PTX ISA, default 9.0) into DIR/F/T, T = sm_90, sm_90a, sm_80 (the targets the run tier
#       loads on an sm_90 device: sm_90, then sm_90a for a kernel sm_90 lacks, sm_80 for the JIT of an older target)
#   scripts/frontend_silicon.sh run DIR OUT [--toolchain T]
#       on the GPU: for each DIR/F, `./ptxcts run --modules DIR/F` into OUT/run-F (each folder checked first by
#       `./ptxcts frontend check-modules`: made from this tree), then `./ptxcts frontend compare` against the
#       hand-written run-tier baseline of this device (OUT/run-F/compare.txt, compare.json); results.json and
#       junit.xml gzipped; one line per front-end in OUT/summary.tsv (front-end, run exit, compare exit,
#       seconds). Exit 0 when every compare found no difference, 1 when one differs or a run could not be
#       compared, 2 on a usage error.
set -uo pipefail
cd "$(dirname "$0")/.."
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 2 ] || usage
verb=$1 dir=$2
shift 2
case $verb in
  write)
    ptx=9.0
    if [ "${1:-}" = --ptx ] && [ -n "${2:-}" ]; then ptx=$2; shift 2; fi
    fes=("$@")
    if [ ${#fes[@]} = 0 ]; then
      for f in triton cute-dsl llvm-triton llvm-22; do
        python3 -c "import sys; sys.path[:0] = ['harness', 'generator']
from frontend import installed_dir; sys.exit(0 if installed_dir('$f') else 1)" && fes+=("$f")
      done
    fi
    [ ${#fes[@]} -gt 0 ] || { echo "frontend_silicon: no front-end installed here (./ptxcts frontend install NAME)" >&2; exit 2; }
    rc=0
    mkdir -p "$dir"
    for f in "${fes[@]}"; do
      n=$f
      [[ $f == triton=* ]] && n=triton-named
      for t in sm_90 sm_90a sm_80; do
        t0=$(date +%s.%N)
        rm -rf "${dir:?}/$n/$t"
        log=$dir/$n.$t.log
        ./ptxcts modules --frontend "$f" --target "$t" --ptx "$ptx" --valid-only --max-entries 16 --quiet \
          --out "$dir/$n/$t" > "$log" 2>&1 || { rc=$?; echo "frontend_silicon: $f $t failed (exit $rc): $log" >&2; continue; }
        printf '%-12s %-7s %s (%.1f s)\n' "$n" "$t" "$(tail -1 "$log")" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')"
        rm -f "$log"
      done
    done
    exit $rc ;;
  run)
    out=${1:-}
    [ -n "$out" ] || usage
    shift
    tc=(--toolchain 13.0)
    if [ "${1:-}" = --toolchain ] && [ -n "${2:-}" ]; then tc=(--toolchain "$2"); shift 2; fi
    [ $# = 0 ] || usage
    [ -d "$dir" ] || { echo "frontend_silicon: $dir: no such folder (write it with: scripts/frontend_silicon.sh write $dir)" >&2; exit 2; }
    mkdir -p "$out"
    rc=0
    printf 'frontend\trun_exit\tcompare_exit\tseconds\n' > "$out/summary.tsv"
    for d in "$dir"/*/; do
      [ -f "$d/sm_90/index.json" ] || [ -f "$d/sm_90a/index.json" ] || continue
      f=$(basename "$d")
      t0=$(date +%s)
      r=0 c=-
      ./ptxcts run --modules "$dir/$f" "${tc[@]}" --quiet --out "$out/run-$f" > "$out/run-$f.log" 2>&1 || r=$?
      tail -4 "$out/run-$f.log"
      if [ -f "$out/run-$f/results.json" ]; then
        c=0
        ./ptxcts frontend compare "$out/run-$f" --json "$out/run-$f/compare.json" > "$out/run-$f/compare.txt" 2>&1 || c=$?
        tail -3 "$out/run-$f/compare.txt"
        [ $c = 0 ] || rc=1
        gzip -f "$out/run-$f/results.json" "$out/run-$f/junit.xml" 2>/dev/null   # a few MB, not tens
      else
        echo "frontend_silicon: $f: the run wrote no results (exit $r): $out/run-$f.log"
        rc=1
      fi
      printf '%s\t%s\t%s\t%s\n' "$f" "$r" "$c" "$(( $(date +%s) - t0 ))" >> "$out/summary.tsv"
    done
    cat "$out/summary.tsv"
    exit $rc ;;
  *) usage ;;
esac
