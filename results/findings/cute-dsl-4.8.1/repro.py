"""CuTe DSL 4.8.1 refuses two instructions PTX ISA 9.4 allows (no GPU needed).

  python3 repro.py SITE      SITE: a folder with nvidia-cutlass-dsl 4.8.1, -libs-base, -libs-core, -libs-cu13,
                             cuda-bindings 13.5.0, cuda-pathfinder, typing-extensions installed (pip --target)

1. cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.f32 (valid from PTX ISA 9.4):
   P.cp_reduce_async_bulk_global_shared_cta(..., type=F32, noftz=True) raises ValueError.
2. cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4 (sm_100a): the primitive accepts exactly 2
   coordinates, the NVVM op's verifier exactly 5, so no call writes it.
Prints each call and what the DSL said; exits 1 when the DSL refuses all three calls (the finding), 0 otherwise.
"""
import os
import sys
import tempfile

site = os.path.abspath(sys.argv[1])
sys.path[:0] = [os.path.join(site, "nvidia_cutlass_dsl", "dsl_packages"), site]
os.environ["CUTE_DSL_NO_CACHE"] = "1"

KERNELS = '''
import cutlass
import cutlass.cute as cute
from cutlass.experimental.primitives import nvvm_wrapper as P
from cutlass._mlir.dialects import llvm as L


@cute.kernel
def noftz_f32(g: cute.Tensor):
    s = cutlass.utils.SmemAllocator().allocate_array(cutlass.Int64, 64)
    P.cp_reduce_async_bulk_global_shared_cta(g.iterator, s, cutlass.Int32(g[0]), op=P.CpReduceOp.ADD,
                                             type=P.CpReduceType.F32, noftz=True)


def gather4(g, n):
    s = cutlass.utils.SmemAllocator().allocate_array(cutlass.Int64, 64)
    mb = cutlass.Array(cutlass.Int64, 1, space=cutlass.AddressSpace.smem, alignment=8)
    tm = L.addrspacecast(L.PointerType.get(0), P._to_ir(g.iterator, None, None))
    P.cp_async_bulk_tensor_shared_cta_global(s, tm, [cutlass.Int32(g[i]) for i in range(n)], mb, [],
                                             mode=P.TMALoadMode.TILE_GATHER4)


@cute.kernel
def gather4_2(g: cute.Tensor):
    gather4(g, 2)


@cute.kernel
def gather4_5(g: cute.Tensor):
    gather4(g, 5)


@cute.jit
def host_noftz(g: cute.Tensor):
    noftz_f32(g).launch(grid=(1, 1, 1), block=(32, 1, 1))


@cute.jit
def host_gather4_2(g: cute.Tensor):
    gather4_2(g).launch(grid=(1, 1, 1), block=(32, 1, 1))


@cute.jit
def host_gather4_5(g: cute.Tensor):
    gather4_5(g).launch(grid=(1, 1, 1), block=(32, 1, 1))
'''

import importlib.util  # noqa: E402

import cutlass  # noqa: E402
import cutlass.cute as cute  # noqa: E402
from cutlass.cute.runtime import make_fake_compact_tensor  # noqa: E402

with tempfile.TemporaryDirectory() as wd:
    path = os.path.join(wd, "kernels.py")   # the DSL reads the kernels' source
    with open(path, "w") as f:
        f.write(KERNELS)
    spec = importlib.util.spec_from_file_location("kernels", path)
    k = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(k)
    g = make_fake_compact_tensor(cutlass.Int32, (64,), assumed_align=16)
    os.makedirs(os.path.join(wd, "dump"))
    refused = 0
    for what, host, arch in (("add.noftz.f32, sm_90a", k.host_noftz, "sm_90a"),
                             ("tile::gather4 with 2 coordinates, sm_100a", k.host_gather4_2, "sm_100a"),
                             ("tile::gather4 with 5 coordinates, sm_100a", k.host_gather4_5, "sm_100a")):
        try:
            ptx = cute.compile(host, g, options=f"--gpu-arch {arch} --keep-ptx --dump-dir {wd}/dump").__ptx__
            print(f"{what}: compiled: " + " | ".join(ln.strip() for ln in ptx.splitlines() if ln.strip().startswith("cp.")))
        except Exception as e:
            refused += 1
            msg = " ".join(str(e).split())
            print(f"{what}: REFUSED: {type(e).__name__}: {msg[:300]}")
sys.exit(1 if refused == 3 else 0)
