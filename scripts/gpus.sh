#!/usr/bin/env bash
# Writes a CTest resource spec file (JSON, version 1.0) with one "gpus" entry per GPU of this host
# (nvidia-smi --query-gpu=index), slots 1: one run-tier test per GPU at a time. With no GPU (or no nvidia-smi) the
# list is empty and the exit status 0. Usage: scripts/gpus.sh [FILE]   (default: stdout)
#   ctest --test-dir build -L run --resource-spec-file FILE -j N     (N = the number of GPUs)
# scripts/gpus.sh --ids prints the GPUs' numbers alone, one a line (run --gpus all: scripts/run_gpus.sh).
set -euo pipefail
out=${1:-}
ids=()
smi=${PTXCTS_NVIDIA_SMI:-nvidia-smi}   # tests point it elsewhere; set, it must be a program (never "no GPU here")
if [ -n "${PTXCTS_NVIDIA_SMI+set}" ] && ! command -v "$smi" >/dev/null 2>&1; then
  echo "gpus: PTXCTS_NVIDIA_SMI='$PTXCTS_NVIDIA_SMI': not a program (no such file, or not executable; unset it for nvidia-smi on PATH)" >&2
  exit 2
fi
if command -v "$smi" >/dev/null 2>&1; then
  while IFS= read -r line; do
    line=${line//[[:space:]]/}
    [[ $line =~ ^[0-9]+$ ]] && ids+=("$line")
  done < <("$smi" --query-gpu=index --format=csv,noheader 2>/dev/null || true)
fi
if [ "$out" = --ids ]; then
  for i in "${ids[@]+"${ids[@]}"}"; do echo "$i"; done
  exit 0
fi
entries=""
for i in "${ids[@]+"${ids[@]}"}"; do
  entries+="${entries:+,}"$'\n'"        {\"id\": \"$i\", \"slots\": 1}"
done
text="{
  \"version\": {\"major\": 1, \"minor\": 0},
  \"local\": [
    {
      \"gpus\": [${entries:+$entries
      }]
    }
  ]
}"
if [ -n "$out" ]; then
  tmp="$out.tmp.$$"
  printf '%s\n' "$text" > "$tmp" && mv -f "$tmp" "$out"
else
  printf '%s\n' "$text"
fi
echo "gpus.sh: ${#ids[@]} GPU(s)${out:+ -> $out}" >&2
