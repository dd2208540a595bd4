#!/usr/bin/env bash
# Configures and builds the harness into $PTXCTS_BUILD (default build/).
set -euo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${PTXCTS_BUILD:-$root/build}
export PATH="$PATH:/usr/local/cuda/bin"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
[ -f "$build/CMakeCache.txt" ] || cmake -S "$root" -B "$build" "${gen[@]}" "$@"
cmake --build "$build" -j "$(nproc)"
