import sys

import boundary
from compile.cli import main

sys.exit(boundary.run("compile", main, sys.argv[1:]))
