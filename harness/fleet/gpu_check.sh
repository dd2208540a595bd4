#!/usr/bin/env bash
# The fleet on a GPU host with two or more GPUs (e.g. nvidia-h200-x2): the run tier as a Slurm array of one task per
# GPU (a private single-node cluster, the host's /dev/nvidia* as GRES) against `./ptxcts run --gpus all` on the same
# host, and whether the two give the same classes (`./ptxcts diff` of the merged array run and the --gpus run).
#
#   bash harness/fleet/gpu_check.sh --fetch-debs build-debs     # on a machine with apt: the Debian 12 packages
#   bash harness/fleet/gpu_check.sh OUT [--debs build-debs] [run options, e.g. --family cp.async.bulk]
#
# The GPU host needs root; Slurm comes from the packages installed there, else from --debs (dpkg -i: a GPU host
# without a network). Where Slurm cannot run there, it says why and exits 77. Writes OUT/summary.txt, the fleet's
# results tree OUT/fleet/ and the --gpus run OUT/gpus-all/. Exit 0: same classes; 1: they differ; 2: usage.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pkgs=(slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge libmunge2 libhwloc15 liblua5.1-0)
if [ "${1-}" = --fetch-debs ]; then
  [ $# -eq 2 ] || { echo "gpu_check: --fetch-debs DIR" >&2; exit 2; }
  mkdir -p "$2" && cd "$2" && apt-get download "${pkgs[@]}" && ls -la && exit 0
  exit 2
fi
[ $# -ge 1 ] || { echo "usage: gpu_check.sh OUT [--debs DIR] [run options]" >&2; exit 2; }
out=$(mkdir -p "$1" && cd "$1" && pwd); shift
debs=""
if [ "${1-}" = --debs ]; then debs=$(cd "$2" && pwd); shift 2; fi
args=("$@")
say() { echo "gpu_check: $*" | tee -a "$out/summary.txt"; }
skip() { say "SKIP: $*"; exit 77; }
: > "$out/summary.txt"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
[ "$ngpu" -ge 2 ] || skip "this host has $ngpu GPU(s); the check needs two or more"
[ "$(id -u)" = 0 ] || skip "not root: the Slurm daemons run as root here"
if ! command -v slurmctld >/dev/null; then
  [ -n "$debs" ] || skip "Slurm is not installed and no --debs DIR was given (fetch them with --fetch-debs on a machine with apt)"
  . /etc/os-release 2>/dev/null
  say "installing Slurm from $debs on ${PRETTY_NAME:-an unknown OS}"
  if ! dpkg -i "$debs"/*.deb >> "$out/dpkg.log" 2>&1; then
    skip "the Debian 12 packages do not install on ${PRETTY_NAME:-this OS} (dpkg: $(grep -m1 -E 'depends on|error' "$out/dpkg.log"))"
  fi
fi
export PATH="$PATH:/usr/local/cuda/bin"
./ptxcts build >> "$out/build.log" 2>&1 || { say "build failed: $out/build.log"; exit 2; }
cluster=$out/slurm
last=$((ngpu - 1))
cd "$root/harness" && python3 -m fleet.tests.slurm_cluster start "$cluster" --gres "/dev/nvidia[0-$last]" | tee -a "$out/summary.txt"
rc=${PIPESTATUS[0]}
cd "$root"
[ "$rc" -eq 0 ] || skip "the Slurm cluster did not start (exit $rc; logs in $cluster)"
trap 'cd "$root/harness" && python3 -m fleet.tests.slurm_cluster stop "$cluster" >/dev/null' EXIT
export SLURM_CONF=$cluster/slurm.conf
json_args=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "${args[@]+"${args[@]}"}")
cat > "$out/plan.toml" <<EOF
version = 1
name = "gpucheck"
results = "$out/fleet"
toolchains = ["${PTXCTS_TOOLCHAIN:-13.0}"]
[tiers.run]
shards = $ngpu
args = $json_args
[devices.gpu]
constraint = "fake-a"
[cpu]
partition = "cpu"
EOF
t0=$(date +%s.%N)
./ptxcts fleet submit --slurm "$out/plan.toml" | tee -a "$out/summary.txt" || { say "submit failed"; exit 2; }
until python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1])).get("collected") else 1)' "$out/fleet/fleet.json"; do
  sleep 2
done
t1=$(date +%s.%N)
./ptxcts fleet status "$out/fleet" | tee -a "$out/summary.txt"
cat "$out/fleet/collect.md" >> "$out/summary.txt"
./ptxcts run --gpus all --out "$out/gpus-all" --toolchain "${PTXCTS_TOOLCHAIN:-13.0}" "${args[@]+"${args[@]}"}" > "$out/gpus-all.log" 2>&1
t2=$(date +%s.%N)
merged=$(ls -d "$out"/fleet/merged/run.* 2>/dev/null | head -1)
[ -n "$merged" ] || merged=$(ls -d "$out"/fleet/runs/run.*/ | head -1)
gpus_all=$out/gpus-all
[ -f "$gpus_all/results.json" ] && gpus_all=$gpus_all/results.json   # the merged document beside its shard folders
./ptxcts diff "$merged" "$gpus_all" > "$out/diff.txt" 2>&1
drc=$?
say "fleet (Slurm array of $ngpu, submit to gated report): $(awk -v a="$t1" -v b="$t0" 'BEGIN{printf "%.1f", a-b}') s;" \
    "run --gpus all: $(awk -v a="$t2" -v b="$t1" 'BEGIN{printf "%.1f", a-b}') s"
if [ $drc -eq 0 ]; then say "SAME CLASSES: the array's merged run and run --gpus all agree on every case"; exit 0; fi
say "DIFFERENT (diff exit $drc): $out/diff.txt"; head -40 "$out/diff.txt" | tee -a "$out/summary.txt"
exit 1
