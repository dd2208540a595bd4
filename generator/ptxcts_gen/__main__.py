import signal
import sys

from .cli import main

if hasattr(signal, "SIGPIPE"):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # `./ptxcts cases | head` ends quietly

try:   # the harness's error boundary (docs/CLI.md) when the harness is on the path, as ./ptxcts puts it
    import boundary
except ImportError:
    boundary = None
sys.exit(main() if boundary is None else boundary.run("ptxcts_gen", main))
