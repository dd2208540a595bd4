"""Triton writes `.tile::scatter4` TMA stores for sm_120a and sm_121a, where the chapter does not allow it.

    python3 repro.py [--ptxas PATH] [--cc 120 121 100]

Compiles Gluon's blackwell.tma.async_scatter (and async_gather beside it) with triton.compile for
GPUTarget("cuda", CC, 32) at ptx_version 8.8 (no GPU needed), keeps the PTX (Triton's own ptxas step is skipped) and
assembles it with ptxas (Triton's bundled one unless --ptxas). Exit 1 when Triton wrote `.tile::scatter4` for
sm_120a or sm_121a and ptxas rejected it (the finding shows), 0 when Triton refused it there.
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
from triton.experimental.gluon.language.nvidia.blackwell import tma as btma  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma  # noqa: E402


@gluon.jit
def scatter(desc, idx):
    layout: gl.constexpr = gl.SliceLayout(0, gl.BlockedLayout([1, 8], [32, 1], [1, 4], [1, 0]))
    rows = gl.arange(0, 8, layout=layout) + idx
    smem = gl.allocate_shared_memory(desc.dtype, [8, 64], desc.layout)
    btma.async_scatter(desc, rows, 0, smem)
    tma.store_wait(0)


@gluon.jit
def gather(desc, idx):
    layout: gl.constexpr = gl.SliceLayout(0, gl.BlockedLayout([1, 8], [32, 1], [1, 4], [1, 0]))
    rows = gl.arange(0, 8, layout=layout) + idx
    smem = gl.allocate_shared_memory(desc.dtype, [8, 64], desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, 8 * 64 * 2)
    btma.async_gather(desc, rows, 0, bar, smem)
    mbarrier.wait(bar, phase=0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default=os.path.join(os.path.dirname(nvc.__file__), "bin", "ptxas"))
    ap.add_argument("--cc", type=int, nargs="+", default=[120, 121, 100])
    a = ap.parse_args()
    nvc.CUDABackend.make_cubin = lambda self, src, md, opt, cap: b""   # keep the PTX; ptxas runs below
    sig = {"desc": "tensordesc<fp16[1,64],NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)>",
           "idx": "i32"}
    shown = False
    print(f"Triton {triton.__version__}, ptxas {a.ptxas}")
    for cc in a.cc:
        for fn in (scatter, gather):
            try:
                ptx = triton.compile(GluonASTSource(fn, sig, {}), target=GPUTarget("cuda", cc, 32),
                                     options={"ptx_version": 88}).asm["ptx"]
            except Exception as e:
                print(f"{fn.__name__} for {cc}: Triton refused: {str(e).strip().splitlines()[-1]}")
                continue
            target = re.search(r"^\.target (\S+)", ptx, re.M).group(1)
            instr = next(ln.strip() for ln in ptx.splitlines() if "cp.async.bulk.tensor" in ln)
            with tempfile.TemporaryDirectory() as d:
                with open(os.path.join(d, "k.ptx"), "w") as f:
                    f.write(ptx)
                r = subprocess.run([a.ptxas, f"-arch={target}", "k.ptx", "-o", "k.cubin"], cwd=d,
                                   capture_output=True, text=True)
            said = "accepted" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[0]
            print(f"{fn.__name__} for GPUTarget cuda {cc}: .target {target}: {instr}\n  ptxas: {said}")
            shown |= target in ("sm_120a", "sm_121a") and "scatter4" in instr and r.returncode != 0
    return 1 if shown else 0


if __name__ == "__main__":
    sys.exit(main())
