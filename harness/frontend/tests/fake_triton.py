"""A stand-in Triton package for the tier's planted faults (test_triton_tier): the modules the tier imports, and a
`triton.compile` that writes one TMA load's PTX with a fault chosen by $PTXCTS_FAKE_TRITON:

  ok        the right `.version` / `.target`, the case's instruction (the control: it must pass)
  version   `.version` one step above the one asked for (ptxas still takes it: only the claim check sees it)
  target    `.target sm_100a` whatever was asked
  form      a `.shared::cluster` destination instead of `.shared::cta` (a miscompile)
  abort     the process aborts (SIGABRT) compiling the kernel
  hang      the compile never returns

The empty kernel of the probe always gets the right header, so the description is the same in every mode.
"""
import os

_PACKAGE = {
    "triton/__init__.py": '''
import os, re
__version__ = "0.0.1+fake"

class _Compiled:
    def __init__(self, ptx):
        self.asm = {"ptx": ptx}

_TARGETS = {75: "sm_75", 80: "sm_80", 86: "sm_86", 87: "sm_87", 89: "sm_89", 90: "sm_90a", 100: "sm_100a",
            103: "sm_103a", 120: "sm_120a"}

def compile(src, target=None, options=None):
    v = options["ptx_version"]
    cc = target.arch
    if cc not in _TARGETS or v < 70 or v > 95:
        raise RuntimeError(f"fake triton: no {cc} at {v}")
    name = src.fn.__name__
    mode = os.environ.get("PTXCTS_FAKE_TRITON", "ok")
    tgt, ver = _TARGETS[cc], f"{v // 10}.{v % 10}"
    space = "shared::cta"
    if name != "ptxcts_empty":
        if mode == "version":
            ver = f"{(v + 1) // 10}.{(v + 1) % 10}"
        elif mode == "target":
            tgt = "sm_100a"
        elif mode == "form":
            space = "shared::cluster"
        elif mode == "abort":
            os.abort()
        elif mode == "hang":
            import time
            while True:
                time.sleep(1)
    body = "" if name == "ptxcts_empty" else (
        "\\t.reg .b32 %r<4>;\\n\\t.reg .b64 %rd<2>;\\n\\tld.param.u64 %rd1, [" + name + "_param_0];\\n"
        "\\tmov.b32 %r1, 0;\\n\\tmov.b32 %r2, 0;\\n\\tmov.b32 %r3, 0;\\n"
        "\\tcp.async.bulk.tensor.2d." + space + ".global.mbarrier::complete_tx::bytes "
        "[%r2], [%rd1, {%r3, %r3}], [%r1];\\n")
    ptx = ("//\\n// fake\\n//\\n\\n.version " + ver + "\\n.target " + tgt + "\\n.address_size 64\\n\\n"
           ".visible .entry " + name + "(\\n\\t.param .u64 " + name + "_param_0\\n)\\n{\\n" + body + "\\tret;\\n}\\n")
    return _Compiled(ptx)
''',
    "triton/_C/libtriton.so": "not a library: the stand-in Triton of harness/frontend/tests/fake_triton.py\n",
    "triton/backends/__init__.py": "",
    "triton/backends/compiler.py": '''
class GPUTarget:
    def __init__(self, backend, arch, warp_size):
        self.backend, self.arch, self.warp_size = backend, arch, warp_size
''',
    "triton/backends/nvidia/__init__.py": "",
    "triton/backends/nvidia/compiler.py": '''
class CUDABackend:
    def make_cubin(self, *a):
        raise RuntimeError("the fake has no ptxas")
''',
    "triton/experimental/__init__.py": "",
    "triton/experimental/gluon/__init__.py": '''
def jit(fn):
    return fn
''',
    "triton/experimental/gluon/_runtime.py": '''
class GluonASTSource:
    def __init__(self, fn, signature, constexprs=None, attrs=None):
        self.fn, self.signature = fn, signature
''',
    "triton/experimental/gluon/language/__init__.py": '''
def __getattr__(name):
    return None
''',
    "triton/experimental/gluon/language/nvidia/__init__.py": "",
}
# the Gluon calls the back-end reads (frontend/triton/backend.py, api): Triton 3.9's names and arguments, doing nothing
_GLUON = "triton/experimental/gluon/language/nvidia/"
_PACKAGE.update({
    _GLUON + "ampere/__init__.py": '''
from . import async_copy, mbarrier
class CachePolicy:
    def __init__(self, cache_modifier=None, l1=None, l2=None, l2_prefetch_size=None):
        pass
class FractionalEvictionPolicy:
    def __init__(self, primary, fraction, secondary="evict_unchanged"):
        pass
''',
    _GLUON + "ampere/async_copy.py": '''
def async_load(smem, pointer, mask=None, cache_modifier=None, eviction_policy=None, volatile=False, cache_policy=None):
    pass
def mbarrier_arrive(mbarrier, increment_count=True):
    pass
def commit_group():
    pass
def wait_group(num_outstanding=0):
    pass
''',
    _GLUON + "ampere/mbarrier.py": '''
class MBarrierLayout:
    @staticmethod
    def multicta(num_ctas, two_cta=False):
        return None
''',
    _GLUON + "hopper/__init__.py": '''
from . import tma
from ..ampere import mbarrier
def fence_async_shared(cluster=False):
    pass
''',
    _GLUON + "hopper/tma.py": '''
def async_load(tensor_desc, coord, barrier, result, pred=True, multicast=False, cache_policy=None):
    pass
def async_load_im2col(tensor_desc, coord, offsets, barrier, result, pred=True, multicast=False, cache_policy=None):
    pass
def async_store(tensor_desc, coord, src, cache_policy=None):
    pass
def async_atomic_add(tensor_desc, coord, src):
    pass
def store_wait(pendings, read_only=True):
    pass
''',
    _GLUON + "blackwell/__init__.py": "from . import tma\n",
    _GLUON + "blackwell/tma.py": '''
def async_gather(tensor_desc, x_offsets, y_offset, barrier, result, pred=True, multicast=False, cache_policy=None):
    pass
def async_scatter(tensor_desc, x_offsets, y_offset, src, cache_policy=None):
    pass
''',
})


def write(folder):
    """Writes the stand-in package into folder (a site-packages folder holding triton/); returns folder."""
    for rel, text in _PACKAGE.items():
        p = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    return folder
