"""python3 -m framework MODULE ARGS...: run MODULE's __main__ (as python3 -m MODULE would) inside the error boundary.
./ptxcts runs every Python verb this way."""
import signal

# First of all, before the imports: a signal from here on is recorded (never a KeyboardInterrupt traceback from an
# import); boundary.run acts on it once its own handlers are in place.
_early = []
for _s in (signal.SIGINT, signal.SIGTERM):
    signal.signal(_s, lambda s, _f: _early.append(s))
# ./ptxcts starts a Python verb with both blocked (held until here: pending, not lost)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})

import runpy  # noqa: E402
import sys  # noqa: E402

from framework import boundary  # noqa: E402


def _run_module(module):
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    return 0


if len(sys.argv) < 2:
    sys.stderr.write("usage: python3 -m framework MODULE [ARGS...]\n")
    sys.exit(2)
_module = sys.argv[1]
sys.argv = [_module] + sys.argv[2:]
sys.exit(boundary.run(_module.split(".")[0], _run_module, _module, early=_early))
