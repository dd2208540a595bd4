import sys

from framework import boundary
from toolchains.cli import main

sys.exit(boundary.run("ptxcts toolchains", main))
