"""Triton writes `mbarrier.init.shared::cta` beside `cp.async.mbarrier.arrive` under `.version` 7.0-7.7; the chapter
introduces mbarrier's `.shared::cta` in PTX ISA 7.8 (cp.async.mbarrier.arrive itself is PTX ISA 7.0).

    python3 repro.py [--ptxas PATH] [--ptx 70 77 78]

Compiles a Gluon kernel that inits an mbarrier (hopper.mbarrier.init) and arrives on it with
ampere.async_copy.mbarrier_arrive, with triton.compile for GPUTarget("cuda", 80, 32) at each ptx_version (no GPU
needed), keeps the PTX (Triton's own ptxas step is skipped) and assembles it with ptxas (Triton's bundled one unless
--ptxas). Exit 1 when Triton wrote `::cta` below 7.8 and ptxas rejected it (the finding shows), else 0.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")   # Triton 3.9 warns when it is unset
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.backends.nvidia import compiler as nvc  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402
from triton.experimental.gluon.language.nvidia.ampere import async_copy  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import mbarrier  # noqa: E402


@gluon.jit
def arrive(p):
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    async_copy.mbarrier_arrive(bar, increment_count=True)


@gluon.jit
def arrive_noinc(p):
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    async_copy.mbarrier_arrive(bar, increment_count=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default=os.path.join(os.path.dirname(nvc.__file__), "bin", "ptxas"))
    ap.add_argument("--ptx", type=int, nargs="+", default=[70, 77, 78])
    a = ap.parse_args()
    nvc.CUDABackend.make_cubin = lambda self, src, md, opt, cap: b""   # keep the PTX; ptxas runs below
    shown = False
    print(f"Triton {triton.__version__}, ptxas {a.ptxas}")
    for v in a.ptx:
        for fn in (arrive, arrive_noinc):
            try:
                ptx = triton.compile(GluonASTSource(fn, {"p": "*fp32"}, {}), target=GPUTarget("cuda", 80, 32),
                                     options={"ptx_version": v, "num_warps": 1}).asm["ptx"]
            except Exception as e:
                print(f"{fn.__name__} at ptx_version {v}: Triton refused: {str(e).strip().splitlines()[-1]}")
                continue
            version = re.search(r"^\.version (\S+)", ptx, re.M).group(1)
            lines = [ln.strip() for ln in ptx.splitlines() if "mbarrier.init" in ln or "mbarrier.arrive" in ln]
            with tempfile.TemporaryDirectory() as d:
                with open(os.path.join(d, "k.ptx"), "w") as f:
                    f.write(ptx)
                r = subprocess.run([a.ptxas, "-arch=sm_80", "k.ptx", "-o", "k.cubin"], cwd=d,
                                   capture_output=True, text=True)
            said = "accepted" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[0]
            print(f"{fn.__name__} at ptx_version {v}: .version {version}:\n    " + "\n    ".join(lines) +
                  f"\n  ptxas: {said}")
            shown |= float(version) < 7.8 and any("shared::cta" in ln for ln in lines) and r.returncode != 0
    return 1 if shown else 0


if __name__ == "__main__":
    sys.exit(main())
