#!/usr/bin/env bash
# The tests: build, then every CTest tier. Without a GPU the run tier's cases are reported as skipped.
set -euo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${PTXCTS_BUILD:-$root/build}
bash "$root/scripts/build.sh"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" "$@"
