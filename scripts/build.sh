#!/usr/bin/env bash
# Configures and builds the harness into $PTXCTS_BUILD (default build/).
#   ./ptxcts build [-j N] [--target T]... [cmake configure options]
#     -j N        N compile jobs at once (default: the CPUs this process may use)
#     --target T  build only target T (repeatable; default: everything), e.g. ptxcts-run for the run tier alone
set -euo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${PTXCTS_BUILD:-$root/build}
export PATH="$PATH:/usr/local/cuda/bin"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
# Arguments are cmake configure options, checked before anything runs: a mistyped one would otherwise be ignored
# (an existing build folder is not configured again) or start a long configure that fails.
args=() targets=()
# The CPUs this process may use (its affinity: taskset, a cgroup cpuset). `nproc` alone also obeys OMP_NUM_THREADS,
# which images with an ML stack set (often to 1) for their own math libraries, not for the suite's builds.
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    -j|--jobs) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]{0,3}$ ]] || {
                 echo "build: $1 '${2-}': expected a number of compile jobs from 1 to 9999" >&2; exit 2; }
               jobs=$2; shift ;;
    -j*) [[ "${1#-j}" =~ ^[1-9][0-9]{0,3}$ ]] || {
           echo "build: -j '${1#-j}': expected a number of compile jobs from 1 to 9999" >&2; exit 2; }
         jobs=${1#-j} ;;
    --target) [ $# -ge 2 ] && [[ "$2" =~ ^[A-Za-z0-9_.+-]+$ ]] || {
                echo "build: --target '${2-}': expected a CMake target name (e.g. ptxcts-run)" >&2; exit 2; }
              targets+=("$2"); shift ;;
    -D?*|-U?*|-G?*|-W*|--fresh) args+=("$1") ;;
    -D|-U|-G) [ $# -ge 2 ] && [ -n "$2" ] || { echo "build: $1 needs a value (e.g. -D NAME=VALUE)" >&2; exit 2; }
              args+=("$1" "$2"); shift ;;
    *) echo "build: unknown option '$1' (build takes -j N, --target T and cmake configure options: -DNAME=VALUE," \
            "-UNAME, -G GENERATOR)" >&2
       exit 2 ;;
  esac
  shift
done
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" "${gen[@]}" "${args[@]}"
elif [ ${#args[@]} -gt 0 ]; then   # options given for a configured folder: configure it again with them
  cmake -S "$root" -B "$build" "${args[@]}"
fi
if [ ${#targets[@]} -gt 0 ]; then
  # a target this tree does not define: say which, before cmake's own message
  known=$(cmake --build "$build" --target help 2>/dev/null)   # whole, not piped into grep -q: pipefail and SIGPIPE
  for t in "${targets[@]}"; do
    grep -Eq "(^|[ .:])$t(:| |$)" <<< "$known" || {
      echo "build: --target '$t': no such target in $build (cmake --build $build --target help lists them)" >&2
      exit 2; }
  done
  exec cmake --build "$build" -j "$jobs" --target "${targets[@]}"
fi
cmake --build "$build" -j "$jobs"
