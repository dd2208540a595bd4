#!/usr/bin/env bash
# The run tier spread over the GPUs of this host: one shard per GPU (ptxcts-run --shard i/n with
# CUDA_VISIBLE_DEVICES pinned to that GPU), all shards under one run id, each into OUT/shard-<i>/, then merged into
# OUT/results.json (python3 -m results merge). A shard folder is what `report`, `gate` and `diff` read as well.
#   ./ptxcts run --gpus all|LIST --out DIR [ptxcts-run options]     (LIST: CUDA device numbers, e.g. 0,1)
# Each shard's lines come prefixed with its GPU; a closing table gives each shard's cases, wall time and exit, and
# the merged run's classes. Exit: the worst shard's (0 every case as expected, 1 findings, 2 usage, 130/143 when
# interrupted; a merge that fails is 3). With one GPU (or none) it is the plain run tier, unsharded.
set -uo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${PTXCTS_BUILD:-$root/build}
run=$build/harness/run/ptxcts-run
usage() { echo "run --gpus: $*" >&2; exit 2; }
gpus="" out="" args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --gpus) [ $# -ge 2 ] && [ -n "$2" ] || usage "--gpus needs 'all' or a list of CUDA device numbers (0,1)"
            gpus=$2; shift ;;
    --gpus=*) gpus=${1#--gpus=}; [ -n "$gpus" ] || usage "--gpus needs 'all' or a list of CUDA device numbers (0,1)" ;;
    --out) [ $# -ge 2 ] && [ -n "$2" ] || usage "--out needs a folder"; out=$2; shift ;;
    --out=*) out=${1#--out=} ;;
    --shard|--shard=*|--run-id|--run-id=*|--resume|--resume=*)
      usage "'${1%%=*}' is set per shard by --gpus (one shard per GPU, one run id); run ptxcts-run without --gpus to set it" ;;
    *) args+=("$1") ;;
  esac
  shift
done
[ -n "$gpus" ] || usage "--gpus is required"
[ -n "$out" ] || usage "--out DIR is required with --gpus (the shards go to DIR/shard-<i>/)"
ids=()
if [ "$gpus" = all ] && [ -n "${CUDA_VISIBLE_DEVICES+set}" ] && [ -z "${CUDA_VISIBLE_DEVICES//[[:space:]]/}" ]; then
  ids=()   # every device hidden: the plain run tier says so and skips (exit 77), whatever nvidia-smi lists
elif [ "$gpus" = all ]; then
  listed=$(bash "$root/scripts/gpus.sh" --ids) || exit $?   # PTXCTS_NVIDIA_SMI unusable: named there, exit 2
  [ -z "$listed" ] || mapfile -t ids <<< "$listed"
else
  IFS=, read -r -a ids <<< "$gpus"
  for i in "${ids[@]}"; do
    [[ $i =~ ^[0-9]{1,3}$ ]] || usage "--gpus '$gpus': '$i' is not a CUDA device number (expected 'all' or e.g. 0,1)"
  done
  dup=$(printf '%s\n' "${ids[@]}" | sort | uniq -d | head -1)
  [ -z "$dup" ] || usage "--gpus '$gpus': device $dup is named twice"
fi
if [ ${#ids[@]} -gt 1 ] && [ -e "$out" ] && [ -n "$(ls -A "$out" 2>/dev/null)" ]; then
  usage "--out '$out' is not empty (a sharded run writes its shards into a folder of its own)"
fi
[ -x "$run" ] || { echo "run --gpus: $run is not built; run './ptxcts build' first" >&2; exit 2; }
if [ ${#ids[@]} -le 1 ]; then   # one GPU or none: nothing to spread
  [ ${#ids[@]} -eq 1 ] && export CUDA_VISIBLE_DEVICES=${ids[0]}
  exec "$run" --out "$out" "${args[@]+"${args[@]}"}"
fi
mkdir -p "$out" || exit 2
n=${#ids[@]}
run_id=$(date -u +%Y-%m-%dT%H-%M-%S.%3NZ)-gpus$n-run-$$
pids=()
stop() { for p in "${pids[@]}"; do kill -"$1" "$p" 2>/dev/null; done; }
trap 'stop INT' INT
trap 'stop TERM' TERM
t0=$(date +%s.%N)
echo "run --gpus: run $run_id over $n GPUs (${ids[*]}), one shard each, into $out/shard-<i>/"
for k in "${!ids[@]}"; do
  (
    s0=$(date +%s.%N)
    CUDA_VISIBLE_DEVICES=${ids[$k]} "$run" --shard "$k/$n" --run-id "$run_id" --out "$out/shard-$k" \
      "${args[@]+"${args[@]}"}" 2>&1 | (trap '' INT TERM; exec sed -u "s/^/[gpu ${ids[$k]}] /")
    rc=${PIPESTATUS[0]}
    printf '%s %s\n' "$rc" "$(awk -v a="$(date +%s.%N)" -v b="$s0" 'BEGIN{printf "%.1f", a-b}')" > "$out/shard-$k.exit"
    exit "$rc"
  ) &
  pids+=($!)
done
worst=0
for p in "${pids[@]}"; do
  wait "$p"; rc=$?
  [ "$rc" -gt "$worst" ] && worst=$rc
done
wait   # a signal ends a wait early: every shard has written what it judged before the merge reads it
if ! compgen -G "$out/shard-*/results.json" >/dev/null; then   # a usage error, or no GPU: each shard said why
  echo "run --gpus: no shard wrote results (exit $worst; the reason is above)" >&2
  exit "$worst"
fi
wall=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN{printf "%.1f", a-b}')
export PYTHONPATH="$root/generator:$root/harness" PTXCTS_ROOT=$root
mrc=0
python3 -m results merge "$out"/shard-*/ --run-id "$run_id" --out "$out" >/dev/null || mrc=$?
echo
printf '%-8s %-6s %8s %8s %5s\n' shard gpu cases wall_s exit
for k in "${!ids[@]}"; do
  read -r rc secs < "$out/shard-$k.exit" 2>/dev/null || { rc="?"; secs="?"; }
  cases=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["cases"]))' "$out/shard-$k/results.json" 2>/dev/null || echo "-")
  printf '%-8s %-6s %8s %8s %5s\n' "$k/$n" "${ids[$k]}" "$cases" "$secs" "$rc"
done
printf 'run --gpus: %d shards in %.1f s wall' "$n" "$wall"
if [ "$mrc" = 0 ]; then
  python3 - "$out/results.json" <<'EOF'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
c = collections.Counter(x["class"] for x in doc["cases"])
print("; merged: %d cases (%s) -> %s" % (len(doc["cases"]), ", ".join(f"{k} {v}" for k, v in sorted(c.items())), sys.argv[1]))
EOF
else
  echo "; the merge failed (exit $mrc): the shards stay in $out/shard-*/"
  [ "$worst" -lt 2 ] && worst=3
fi
exit "$worst"
