#!/usr/bin/env bash
# Installs what ptx-cts needs on a fresh Debian machine (CI included) and checks the CUDA toolkit.
set -euo pipefail
need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v g++ >/dev/null || need_apt+=(g++)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
# The results tests render the coverage report in a real headless browser (ctest -L results).
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || need_apt+=(chromium)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]} (apt)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi
if ! python3 -c 'import jinja2' 2>/dev/null; then
  echo "setup: installing jinja2 (pip)"
  python3 -m pip install -q jinja2 || { apt-get update -qq && apt-get install -y -qq python3-jinja2; }
fi
if ! command -v ptxas >/dev/null; then
  for d in /usr/local/cuda/bin /usr/local/cuda-13.0/bin; do [ -x "$d/ptxas" ] && export PATH="$d:$PATH"; done
fi
command -v ptxas >/dev/null || { echo "setup: no ptxas on PATH or in /usr/local/cuda/bin: install the CUDA toolkit (13.0)" >&2; exit 1; }
echo "setup: $(ptxas --version | tail -1); cmake $(cmake --version | head -1 | awk '{print $3}'); python $(python3 -c 'import sys; print(sys.version.split()[0])')"
