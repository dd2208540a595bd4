"""Exit 77 (CTest: skipped), saying why, when the toolchain named by the argument is not installed; else 0."""
import sys

from framework import toolchains

name = sys.argv[1]
try:
    toolchains.resolve(name)
except toolchains.ToolchainError as e:
    sys.stderr.write(f"lower: toolchain {name} is not installed ({e}): ./ptxcts toolchains install {name}; skipped\n")
    sys.exit(77)
