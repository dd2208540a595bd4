"""Triton writes `.tile::gather4` / `.tile::scatter4` TMA copies for sm_90a, where the chapter allows neither.

    python3 repro.py [--ptxas PATH] [--cc 90 100]

Compiles Gluon's blackwell.tma.async_gather and async_scatter with triton.compile for GPUTarget("cuda", CC, 32)
(no GPU needed; ptx_version 8.6, 8.7 from capability 120), keeps the PTX (Triton's own ptxas step is skipped) and
assembles it with ptxas (Triton's bundled one unless --ptxas). Exit 1 when Triton wrote either for sm_90a and ptxas
rejected it (the finding shows), 0 when Triton refused them there.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import triton
from triton.backends.compiler import GPUTarget
from triton.backends.nvidia import compiler as nvc
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon.language.nvidia.blackwell import tma as btma
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma


@gluon.jit
def gather(desc, idx):
    layout: gl.constexpr = gl.SliceLayout(0, gl.BlockedLayout([1, 8], [32, 1], [1, 4], [1, 0]))
    x = gl.arange(0, 8, layout=layout) + idx
    smem = gl.allocate_shared_memory(desc.dtype, [8, 64], desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, 8 * 64 * 2)
    btma.async_gather(desc, x, 0, bar, smem)
    mbarrier.wait(bar, phase=0)


@gluon.jit
def scatter(desc, idx):
    layout: gl.constexpr = gl.SliceLayout(0, gl.BlockedLayout([1, 8], [32, 1], [1, 4], [1, 0]))
    x = gl.arange(0, 8, layout=layout) + idx
    smem = gl.allocate_shared_memory(desc.dtype, [8, 64], desc.layout)
    btma.async_scatter(desc, x, 0, smem)
    tma.store_wait(0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default=os.path.join(os.path.dirname(nvc.__file__), "bin", "ptxas"))
    ap.add_argument("--cc", type=int, nargs="+", default=[90, 100])
    a = ap.parse_args()
    nvc.CUDABackend.make_cubin = lambda self, src, md, opt, cap: b""   # keep the PTX; ptxas runs below
    sig = {"desc": "tensordesc<fp16[1,64],NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)>",
           "idx": "i32"}
    shown = False
    print(f"Triton {triton.__version__}, ptxas {a.ptxas}")
    for cc in a.cc:
        for fn in (gather, scatter):
            try:
                ptx = triton.compile(GluonASTSource(fn, sig, {}), target=GPUTarget("cuda", cc, 32),
                                     options={"ptx_version": 87 if cc >= 120 else 86}).asm["ptx"]
            except Exception as e:
                print(f"{fn.__name__} for {cc}: Triton refused: {str(e).strip().splitlines()[-1]}")
                continue
            target = re.search(r"^\.target (\S+)", ptx, re.M).group(1)
            instr = next(ln.strip() for ln in ptx.splitlines() if "cp.async.bulk.tensor" in ln)
            with tempfile.TemporaryDirectory() as d:
                p = os.path.join(d, "k.ptx")
                with open(p, "w") as f:
                    f.write(ptx)
                r = subprocess.run([a.ptxas, f"-arch={target}", p, "-o", os.path.join(d, "k.cubin")],
                                   capture_output=True, text=True)
            said = "accepted" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[0]
            print(f"{fn.__name__} for GPUTarget cuda {cc}: .target {target}: {instr}\n  ptxas: {said}")
            shown |= target == "sm_90a" and r.returncode != 0
    return 1 if shown else 0


if __name__ == "__main__":
    sys.exit(main())
