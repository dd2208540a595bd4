"""Triton writes a TMA load into `.shared::cta` at ptx_version 8.0-8.5; that destination needs PTX ISA 8.6.

    python3 repro.py [--ptxas PATH] [--ptx 80 83 85 86]

Compiles one Gluon TMA load with triton.compile for GPUTarget("cuda", 90, 32) (no GPU needed) at each PTX version,
keeps the PTX (Triton's own ptxas step is skipped so the PTX is not lost), and assembles it with ptxas (Triton's
bundled one unless --ptxas). Exit 1 when Triton wrote the instruction and ptxas rejected the module at any version
below 8.6 (the finding shows), 0 when not.
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
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma


@gluon.jit
def tma_load(desc):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.async_load(desc, [0, 0], bar, smem)
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default=os.path.join(os.path.dirname(nvc.__file__), "bin", "ptxas"))
    ap.add_argument("--ptx", type=int, nargs="+", default=[80, 83, 85, 86])
    a = ap.parse_args()
    nvc.CUDABackend.make_cubin = lambda self, src, md, opt, cap: b""   # keep the PTX; ptxas runs below
    sig = {"desc": "tensordesc<fp16[64,64],NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16, rank=2)>"}
    shown = False
    print(f"Triton {triton.__version__}, ptxas {a.ptxas}")
    for v in a.ptx:
        ptx = triton.compile(GluonASTSource(tma_load, sig, {}), target=GPUTarget("cuda", 90, 32),
                             options={"ptx_version": v}).asm["ptx"]
        head = " ".join(re.findall(r"^\.(?:version|target) \S+", ptx, re.M))
        instr = next(ln.strip() for ln in ptx.splitlines() if "cp.async.bulk.tensor" in ln)
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "k.ptx")
            with open(p, "w") as f:
                f.write(ptx)
            r = subprocess.run([a.ptxas, "-arch=sm_90a", p, "-o", os.path.join(d, "k.cubin")], capture_output=True,
                               text=True)
        said = "accepted" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[0]
        print(f"ptx_version {v}: {head}: {instr}\n  ptxas: {said}")
        shown |= v < 86 and ".shared::cta.global" in instr and r.returncode != 0
    return 1 if shown else 0


if __name__ == "__main__":
    sys.exit(main())
