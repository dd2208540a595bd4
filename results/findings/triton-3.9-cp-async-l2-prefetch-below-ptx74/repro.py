"""Triton writes cp.async `.L2::{64,128,256}B` under `.version 7.3`; the chapter introduces them in PTX ISA 7.4.

    python3 repro.py [--ptxas PATH] [--ptx 73 74]

Compiles a Gluon kernel whose ampere.async_copy.async_load asks an L2 prefetch size
(CachePolicy(cache_modifier='ca', l2_prefetch_size=64/128/256)) with triton.compile for GPUTarget("cuda", 80, 32)
at each ptx_version (no GPU needed), keeps the PTX (Triton's own ptxas step is skipped) and assembles it with ptxas
(Triton's bundled one unless --ptxas). Exit 1 when Triton wrote the qualifier at 7.3 and ptxas rejected it (the
finding shows), 0 when Triton refused it or wrote none there.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")   # Triton 3.9 warns when it is unset
import triton  # noqa: E402
from triton.backends.compiler import GPUTarget
from triton.backends.nvidia import compiler as nvc
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from triton.experimental.gluon.language.nvidia.ampere import CachePolicy, async_copy


@gluon.jit
def prefetch_64(p, n):
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [1], [0])
    offs = gl.arange(0, 128, layout=layout)
    smem = gl.allocate_shared_memory(gl.float32, [128], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    async_copy.async_load(smem, p + offs, mask=offs < n, cache_policy=CachePolicy(cache_modifier="ca",
                                                                                    l2_prefetch_size=64))
    async_copy.commit_group()
    async_copy.wait_group(0)


@gluon.jit
def prefetch_128(p, n):
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [1], [0])
    offs = gl.arange(0, 128, layout=layout)
    smem = gl.allocate_shared_memory(gl.float32, [128], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    async_copy.async_load(smem, p + offs, mask=offs < n, cache_policy=CachePolicy(cache_modifier="ca",
                                                                                    l2_prefetch_size=128))
    async_copy.commit_group()
    async_copy.wait_group(0)


@gluon.jit
def prefetch_256(p, n):
    layout: gl.constexpr = gl.BlockedLayout([4], [32], [1], [0])
    offs = gl.arange(0, 128, layout=layout)
    smem = gl.allocate_shared_memory(gl.float32, [128], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    async_copy.async_load(smem, p + offs, mask=offs < n, cache_policy=CachePolicy(cache_modifier="ca",
                                                                                    l2_prefetch_size=256))
    async_copy.commit_group()
    async_copy.wait_group(0)


KERNELS = {64: prefetch_64, 128: prefetch_128, 256: prefetch_256}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default=os.path.join(os.path.dirname(nvc.__file__), "bin", "ptxas"))
    ap.add_argument("--ptx", type=int, nargs="+", default=[73, 74])
    a = ap.parse_args()
    nvc.CUDABackend.make_cubin = lambda self, src, md, opt, cap: b""   # keep the PTX; ptxas runs below
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}
    shown = False
    print(f"Triton {triton.__version__}, ptxas {a.ptxas}")
    for v in a.ptx:
        for size in (64, 128, 256):
            fn = KERNELS[size]
            try:
                ptx = triton.compile(GluonASTSource(fn, {"p": "*fp32", "n": "i32"}, {}, attrs),
                                     target=GPUTarget("cuda", 80, 32), options={"ptx_version": v, "num_warps": 1}
                                     ).asm["ptx"]
            except Exception as e:
                print(f"L2::{size}B at ptx_version {v}: Triton refused: {str(e).strip().splitlines()[-1]}")
                continue
            version = re.search(r"^\.version (\S+)", ptx, re.M).group(1)
            instr = next((ln.strip() for ln in ptx.splitlines() if "cp.async.c" in ln), "(no cp.async)")
            with tempfile.TemporaryDirectory() as d:
                p = os.path.join(d, "k.ptx")
                with open(p, "w") as f:
                    f.write(ptx)
                r = subprocess.run([a.ptxas, "-arch=sm_80", "k.ptx", "-o", "k.cubin"], cwd=d,
                                   capture_output=True, text=True)
            said = "accepted" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[0]
            print(f"L2::{size}B at ptx_version {v}: .version {version}: {instr}\n  ptxas: {said}")
            shown |= version == "7.3" and f".L2::{size}B" in instr and r.returncode != 0
    return 1 if shown else 0


if __name__ == "__main__":
    sys.exit(main())
