#!/usr/bin/env bash
# Installs what ptx-cts needs, and only what is missing: on a machine that has it all (the CUDA image of a GPU
# runner: GoogleTest, cmake, ninja, Python with jinja2) it installs nothing and needs no network.
#   ./ptxcts setup                      the suite's needs: cmake, g++, GoogleTest, jinja2, Hypothesis, a CUDA toolkit
#   ./ptxcts setup --browser            also chromium, for the report's browser test (optional: it skips without)
#   ./ptxcts setup --toolchains 12.9,13.5 [--wheels DIR]   also these toolchains (official wheels; ./ptxcts toolchains)
#   ./ptxcts setup --frontends llvm-22,... [--wheels DIR]   the front-ends the front-end tier judges (default llvm-22,
#                                       installed when missing; without network and wheels it says how, and goes on).
#                                       llvmlite is a wheel per CPython: DIR holds the one of this python3 (cp311,
#                                       cp312: toolchains/frontends.toml pins each); a wheel whose sha256 is not the
#                                       pin stops setup (exit 3)
set -euo pipefail
root=${PTXCTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
# pip (Hypothesis, the front-ends' and toolchains' wheels) tries a missing network once, not five times with
# back-off: offline, on a GPU runner, the retries were 13 of setup's 17 s. A PIP_RETRIES of the caller's stands.
export PIP_RETRIES=${PIP_RETRIES:-1}
browser=0 toolchains="" wheels=() frontends="" frontends_given=0
source "$(dirname "${BASH_SOURCE[0]}")/lists.sh"
while [ $# -gt 0 ]; do
  case "$1" in
    --browser) browser=1 ;;
    --toolchains) [ $# -ge 2 ] || { echo "setup: --toolchains needs a list, e.g. 12.9,13.5" >&2; exit 2; }
                  check_list setup --toolchains toolchain "$2"   # '' installs nothing: refused, not a silent exit 0
                  toolchains=$2; shift ;;
    --frontends) [ $# -ge 2 ] || { echo "setup: --frontends needs a list, e.g. llvm-22" >&2; exit 2; }
                 [ -z "$2" ] || check_list setup --frontends front-end "$2"   # '' names none: no front-end (see below)
                 frontends=$2; frontends_given=1; shift ;;
    --wheels) [ $# -ge 2 ] || { echo "setup: --wheels needs an existing folder" >&2; exit 2; }
              [ -d "$2" ] || { echo "setup: --wheels '$2': not a folder (it names a folder of wheels)" >&2; exit 2; }
              wheels=(--wheels "$2"); shift ;;
    *) echo "setup: unknown option '$1' (known: --browser, --toolchains LIST, --frontends LIST, --wheels DIR)" >&2; exit 2 ;;
  esac
  shift
done

need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/gtest/gtest.h ] || [ -f /usr/local/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
python3 -c 'import jinja2' 2>/dev/null || need_apt+=(python3-jinja2)
if [ $browser = 1 ] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  need_apt+=(chromium)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: missing: ${need_apt[*]}; installing (apt)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"; }; then
    # jinja2 also comes from PyPI where apt has no network but pip has a mirror
    if [ "${need_apt[*]}" = python3-jinja2 ] && python3 -m pip install -q jinja2; then :; else
      echo "setup: could not install ${need_apt[*]} (no network for apt here?): install them, then run again" >&2
      exit 1
    fi
  fi
fi
if ! command -v ptxas >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin; do [ -x "$d/ptxas" ] && export PATH="$d:$PATH"; done
fi
command -v ptxas >/dev/null || { echo "setup: no ptxas on PATH or in /usr/local/cuda/bin: install the CUDA toolkit" >&2; exit 1; }
browser_state="none (results.html_chromium skips; ./ptxcts setup --browser installs it)"
for b in chromium chromium-browser; do command -v $b >/dev/null && browser_state=$b && break; done
echo "setup: $(ptxas --version | grep -o 'V[0-9][0-9.]*' | head -1) ptxas; cmake $(cmake --version | head -1 | awk '{print $3}');" \
     "python $(python3 -c 'import sys; print(sys.version.split()[0])'); browser: $browser_state"
# Hypothesis (PyPI), for the fuzz tests of the loaders and argument parsers (harness/tests/fuzz, CTest cli.fuzz.*):
# into a cache outside the checkout (the tests add it to their path); offline from --wheels DIR or pip's cache.
pydeps=${PTXCTS_PYDEPS:-${XDG_CACHE_HOME:-$HOME/.cache}/ptxcts/python}
hypothesis_pin="hypothesis==6.170.17"
if ! PYTHONPATH="$pydeps" python3 -c 'import hypothesis' 2>/dev/null; then
  from=()
  [ ${#wheels[@]} -gt 0 ] && from=(--no-index --find-links "${wheels[1]}")
  echo "setup: installing $hypothesis_pin into $pydeps (pip)"
  python3 -m pip install --quiet --disable-pip-version-check --target "$pydeps" "${from[@]}" "$hypothesis_pin" || {
    echo "setup: could not install $hypothesis_pin (no network and no wheel in --wheels DIR?): the fuzz tests" \
         "cli.fuzz.* will skip; install it with: python3 -m pip install --target $pydeps $hypothesis_pin" >&2
  }
fi
export PTXCTS_ROOT=$root
if [ -n "$toolchains" ]; then
  PYTHONPATH="$root/generator:$root/harness" python3 -m toolchains install ${toolchains//,/ } "${wheels[@]}"
fi
# The front-ends (harness/frontend): llvm-22 by default, the CPU part of ./ptxcts all. Named with --frontends, a
# failure to install is an error (the install's exit status); by default one that is missing (no network, no wheel
# for this Python in --wheels DIR: exit 2) is reported with the command that installs it, and setup goes on, but a
# wheel refused for its sha256 or a malformed catalog (exit 3) stops setup.
[ $frontends_given = 1 ] || frontends=llvm-22
if [ -n "$frontends" ]; then
  export PTXCTS_ROOT=$root
  frc=0
  PYTHONPATH="$root/generator:$root/harness" python3 -m frontend install ${frontends//,/ } "${wheels[@]}" || frc=$?
  if [ $frc != 0 ]; then
    { [ $frontends_given = 1 ] || [ $frc = 3 ]; } && exit $frc
    tag=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
    echo "setup: front-end llvm-22 not installed (no network? ./ptxcts frontend install --wheels DIR llvm-22, DIR" \
         "holding the llvmlite wheel of this Python, $tag); the front-end tier skips without it" >&2
  fi
fi
# The lowering tier's disassembler: the nvidia-cuda-nvdisasm wheel of the newest release that has one (a toolchain
# of an older release is read with it; the tier records both releases). Without network and without --wheels it
# cannot be had: the lower tier's tests that need it then skip, saying so.
nvdisasm_release=13.5
if ! PYTHONPATH="$root/generator:$root/harness" python3 -m toolchains install --nvdisasm-only "$nvdisasm_release" \
     "${wheels[@]}"; then
  echo "setup: warning: no nvdisasm $nvdisasm_release installed (./ptxcts toolchains install --nvdisasm-only" \
       "$nvdisasm_release [--wheels DIR]); ./ptxcts lower needs it" >&2
fi
