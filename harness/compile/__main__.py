import sys

from framework import boundary
from compile.cli import main

sys.exit(boundary.run("compile", main, sys.argv[1:]))
