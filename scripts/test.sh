#!/usr/bin/env bash
# The tests: build, then every CTest tier. Without a GPU the run tier's cases are reported as skipped. With GPUs,
# a CTest resource spec of the GPUs present (scripts/gpus.sh) spreads the run tests over them (one run test per
# GPU at a time, CUDA_VISIBLE_DEVICES from CTest's resource group), each test writes its own results shard under
# build/ctest-results/<stamp>/, and the shards are merged into one run and one report at the end.
set -uo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
build=${PTXCTS_BUILD:-$root/build}
# The arguments go to ctest, which ignores an option it does not know (`--lable cli` would run every test): they
# are checked here, before the build, against the ctest options the suite documents.
# A value ctest reads as a number must be one (ctest takes `-j abc` as "as many as it likes" and `--timeout xyz`
# as none), and no value may be empty (`-L ''` selects every test).
value() {   # value OPTION VALUE
  local o=$1 v=$2
  [ -n "$v" ] || { echo "test: ctest option '$o' '': an empty value" >&2; exit 2; }
  case "$o" in
    -j|--parallel|--repeat-until-fail)
      [[ "$v" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "test: $o '$v': expected a whole number from 1 to 9999" >&2; exit 2; } ;;
    --timeout|--test-load)
      [[ "$v" =~ ^[0-9]{1,7}(\.[0-9]+)?$ ]] || { echo "test: $o '$v': expected a number of seconds (or a load)" >&2; exit 2; } ;;
    --repeat)
      [[ "$v" =~ ^(until-fail|until-pass|after-timeout):[1-9][0-9]{0,3}$ ]] || {
        echo "test: --repeat '$v': expected until-fail:N, until-pass:N or after-timeout:N" >&2; exit 2; } ;;
  esac
}
check=("$@") sel=()   # sel: the options that select tests (-L, -R, -E, ...), checked to select at least one
# A selection that matches no test is a usage error (docs/CLI.md), never a green run of nothing: `test -L
# no-such-label` in a CI job must fail. Checked against the configured tree before the build (when there is one)
# and after it.
selects_nothing() {
  [ ${#sel[@]} -gt 0 ] && [ -f "$build/CTestTestfile.cmake" ] || return 1
  local n
  n=$(ctest --test-dir "$build" -N "${sel[@]}" 2>/dev/null | sed -n 's/^Total Tests: \([0-9]*\)$/\1/p')
  [ "$n" = 0 ] || return 1
  echo "test: ${sel[*]}: selects no test of $build (ctest --test-dir $build --print-labels lists the labels," \
       "ctest --test-dir $build -N the tests)" >&2
}
# the CPUs this process may use (scripts/build.sh says why OMP_NUM_THREADS is left out): ctest's -j unless given
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) jobs_given=0
while [ ${#check[@]} -gt 0 ]; do
  a=${check[0]}
  case "$a" in
    -L|-LE|-R|-E|-I|-j|--parallel|--timeout|--repeat|-FA|-FS|-FC|-C|--label-regex|--label-exclude|--tests-regex|\
    --exclude-regex|--output-junit|--resource-spec-file|--stop-time|--test-load|--repeat-until-fail)
      [ ${#check[@]} -ge 2 ] || { echo "test: ctest option '$a' needs a value" >&2; exit 2; }
      value "$a" "${check[1]}"
      case "$a" in -j|--parallel) jobs=${check[1]} jobs_given=1 ;;
        -L|-LE|-R|-E|-I|--label-regex|--label-exclude|--tests-regex|--exclude-regex) sel+=("$a" "${check[1]}") ;; esac
      check=("${check[@]:2}"); continue ;;
    -j[0-9]*) value -j "${a#-j}"; jobs=${a#-j} jobs_given=1 ;;
    --timeout=*|--repeat=*|--parallel=*|--label-regex=*|--tests-regex=*|--exclude-regex=*)
      value "${a%%=*}" "${a#*=}"
      case "$a" in --parallel=*) jobs=${a#*=} jobs_given=1 ;; --parallel*|--timeout*|--repeat*) ;; *) sel+=("$a") ;; esac ;;
    -N|-V|-VV|-Q|--quiet|--output-on-failure|--stop-on-failure|--schedule-random|--rerun-failed|\
    --progress|--no-tests=*|\
    --show-only|--show-only=*|--print-labels|--extra-verbose|--verbose|--debug|--no-label-summary|--no-subproject-summary) ;;
    *) echo "test: unknown option '$a' for ctest (test passes ctest's options: -L LABEL, -LE LABEL, -R REGEX," \
            "-E REGEX, -j N, -N, -V, --output-on-failure, --stop-on-failure, --timeout S, --repeat MODE:N, ...)" >&2
       exit 2 ;;
  esac
  check=("${check[@]:1}")
done
selects_nothing && exit 2
bash "$root/scripts/build.sh" -j "$jobs" || exit $?   # a -j given to test limits the build too
selects_nothing && exit 2
spec=$build/gpus.json
bash "$root/scripts/gpus.sh" "$spec" || exit $?
ngpu=$(grep -c '"id"' "$spec" || true)
stamp=$(date -u +%Y-%m-%dT%H-%M-%SZ)
export PTXCTS_RUN_RESULTS=${PTXCTS_RUN_RESULTS:-$build/ctest-results/$stamp}
export PTXCTS_RUN_ID=${PTXCTS_RUN_ID:-$stamp-ctest}
args=(--output-on-failure)
[ $jobs_given = 1 ] || args+=(-j "$jobs")   # else the -j given, among "$@"
[ "$ngpu" -gt 0 ] && args+=(--resource-spec-file "$spec")
echo "test: $ngpu GPU(s); run-tier shards under $PTXCTS_RUN_RESULTS"
ctest --test-dir "$build" "${args[@]}" "$@"
rc=$?
if [ "$ngpu" -gt 0 ] && compgen -G "$PTXCTS_RUN_RESULTS/*/results.json" >/dev/null; then
  export PYTHONPATH="$root/generator:$root/harness" PTXCTS_ROOT=$root
  python3 -m results report "$PTXCTS_RUN_RESULTS"/*/ --out "$PTXCTS_RUN_RESULTS/report" --baselines none \
    >/dev/null && echo "test: the run tests' shards in one report: $PTXCTS_RUN_RESULTS/report/report.html"
fi
exit $rc
