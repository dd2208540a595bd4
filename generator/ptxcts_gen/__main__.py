import signal
import sys

from .cli import main

if hasattr(signal, "SIGPIPE"):
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # `./ptxcts cases | head` ends quietly
# ./ptxcts runs this inside the harness's error boundary (python3 -m framework ptxcts_gen ...; docs/CLI.md)
sys.exit(main())
