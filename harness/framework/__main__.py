"""python3 -m framework MODULE ARGS...: run MODULE's __main__ (as python3 -m MODULE would) inside the error boundary.
./ptxcts runs every Python verb this way."""
import runpy
import sys

from framework import boundary


def _run_module(module):
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if len(sys.argv) < 2:
    sys.stderr.write("usage: python3 -m framework MODULE [ARGS...]\n")
    sys.exit(2)
_module = sys.argv[1]
sys.argv = [_module] + sys.argv[2:]
sys.exit(boundary.run(_module.split(".")[0], _run_module, _module))
