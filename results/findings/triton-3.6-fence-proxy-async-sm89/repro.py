"""Triton 3.6.0 writes `fence.proxy.async.shared::cta` for `.target sm_89`; the chapter's fence.proxy.async needs
sm_90 (PTX ISA 8.0).

    python3 repro.py [--ptxas PATH] [--cc 89 90]

Compiles a Gluon kernel calling hopper.fence_async_shared() with triton.compile for GPUTarget("cuda", CC, 32) at
ptx_version 8.0 (no GPU needed), keeps the PTX (Triton's own ptxas step is skipped) and assembles it with ptxas
(Triton's bundled one unless --ptxas). Exit 1 when Triton wrote the fence for sm_89 and ptxas rejected it (the
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
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.backends.nvidia import compiler as nvc  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared  # noqa: E402


@gluon.jit
def fence(p):
    fence_async_shared()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", default=os.path.join(os.path.dirname(nvc.__file__), "bin", "ptxas"))
    ap.add_argument("--cc", type=int, nargs="+", default=[89, 90])
    a = ap.parse_args()
    nvc.CUDABackend.make_cubin = lambda self, src, md, opt, cap: b""   # keep the PTX; ptxas runs below
    shown = False
    print(f"Triton {triton.__version__}, ptxas {a.ptxas}")
    for cc in a.cc:
        try:
            ptx = triton.compile(GluonASTSource(fence, {"p": "*fp32"}, {}), target=GPUTarget("cuda", cc, 32),
                                 options={"ptx_version": 80, "num_warps": 1}).asm["ptx"]
        except Exception as e:
            print(f"fence for {cc}: Triton refused: {str(e).strip().splitlines()[-1]}")
            continue
        target = re.search(r"^\.target (\S+)", ptx, re.M).group(1)
        instr = next((ln.strip() for ln in ptx.splitlines() if "fence.proxy.async" in ln), "(no fence.proxy.async)")
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "k.ptx"), "w") as f:
                f.write(ptx)
            r = subprocess.run([a.ptxas, f"-arch={target}", "k.ptx", "-o", "k.cubin"], cwd=d,
                               capture_output=True, text=True)
        said = "accepted" if r.returncode == 0 else (r.stderr.strip().splitlines() or ["?"])[0]
        print(f"fence for GPUTarget cuda {cc}: .target {target}: {instr}\n  ptxas: {said}")
        shown |= target == "sm_89" and "fence.proxy.async" in instr and r.returncode != 0
    return 1 if shown else 0


if __name__ == "__main__":
    sys.exit(main())
