#!/usr/bin/env bash
# Configures and builds the harness into $PTXCTS_BUILD (default build/).
set -euo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${PTXCTS_BUILD:-$root/build}
export PATH="$PATH:/usr/local/cuda/bin"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# Arguments are cmake configure options, checked before anything runs: a mistyped one would otherwise be ignored
# (an existing build folder is not configured again) or start a long configure that fails.
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    -D?*|-U?*|-G?*|-W*|--fresh) args+=("$1") ;;
    -D|-U|-G) [ $# -ge 2 ] && [ -n "$2" ] || { echo "build: $1 needs a value (e.g. -D NAME=VALUE)" >&2; exit 2; }
              args+=("$1" "$2"); shift ;;
    *) echo "build: unknown option '$1' (build takes cmake configure options only: -DNAME=VALUE, -UNAME, -G GENERATOR)" >&2
       exit 2 ;;
  esac
  shift
done
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${gen[@]}" "${args[@]}"
elif [ ${#args[@]} -gt 0 ]; then   # options given for a configured folder: configure it again with them
  cmake -S "$root" -B "$build" "${args[@]}"
fi
cmake --build "$build" -j "$(nproc)"
