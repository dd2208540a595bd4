"""Exit 77 (CTest: skipped), saying why, when this machine has no nvdisasm for the lowering tier; else 0."""
import sys

from lower.tests import helpers

if helpers.installed_nvdisasm() is None:
    sys.stderr.write("lower: no nvdisasm installed: ./ptxcts setup (or ./ptxcts toolchains install --nvdisasm-only "
                     "13.5 [--wheels DIR]) installs the nvidia-cuda-nvdisasm wheel; skipped\n")
    sys.exit(77)
