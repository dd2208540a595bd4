"""CUDA C++ through NVRTC (ctypes on the wheel's libnvrtc), with CCCL's cuda::ptx headers from the wheel.

The kernels of a batch are one translation unit; NVRTC compiles it for `-arch=compute_XX[a|f]` (PTX only) in a
forked child (isolate). A translation unit NVRTC refuses (a cuda::ptx overload that does not exist for the target,
an error of the asm) fails as a whole, and its kernels are compiled again one by one. NVRTC writes one PTX ISA
version (its newest): the cases at other versions are not_supported.
"""
import ctypes
import os
import re

from ptxcts_gen.frontends import Spelling

from . import llvm_backend
from .errors import MALFORMED, FrontendError

_lib = None
_headers = None


def load(fe):
    global _lib, _headers
    if _lib is not None:
        return _lib
    try:
        lib = ctypes.CDLL(fe.library)
        major, minor = ctypes.c_int(), ctypes.c_int()
        if lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)) != 0:
            raise OSError("nvrtcVersion failed")
    except (OSError, AttributeError) as e:
        raise FrontendError(f"front-end {fe.name}: cannot load {fe.library}: {e} (install it again with "
                            f"`./ptxcts frontend install --force {fe.name}`)", MALFORMED) from None
    if not os.path.isdir(os.path.join(fe.headers, "cuda", "__ptx")):
        raise FrontendError(f"front-end {fe.name}: {fe.headers} has no cuda/__ptx headers (CCCL)", MALFORMED)
    _lib, _headers = lib, fe.headers
    return lib


def version():
    major, minor = ctypes.c_int(), ctypes.c_int()
    _lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def cccl_version():
    with open(os.path.join(_headers, "cuda", "std", "__cccl", "version.h")) as f:
        v = int(re.search(r"#define CCCL_VERSION (\d+)", f.read()).group(1))
    return f"{v // 1000000}.{v // 1000 % 1000}.{v % 1000}"


def supported_archs():
    n = ctypes.c_int()
    _lib.nvrtcGetNumSupportedArchs(ctypes.byref(n))
    arr = (ctypes.c_int * n.value)()
    _lib.nvrtcGetSupportedArchs(arr)
    return list(arr)


def compile_source(arg):
    """PTX of (source, target); raises RuntimeError with NVRTC's log when it refuses."""
    src, target = arg
    prog = ctypes.c_void_p()
    if _lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"cases.cu", 0, None, None) != 0:
        raise RuntimeError("nvrtcCreateProgram failed")
    opts = [f"-arch=compute_{target[3:]}".encode(), b"-I" + _headers.encode(), b"-std=c++17"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = _lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    _lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    _lib.nvrtcGetProgramLog(prog, log)
    if rc != 0:
        errors = [ln for ln in log.value.decode(errors="replace").splitlines() if "error" in ln]
        _lib.nvrtcDestroyProgram(ctypes.byref(prog))
        raise RuntimeError("NVRTC error: " + (" | ".join(errors[:2]) or f"nvrtcCompileProgram returned {rc}"))
    _lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(size.value)
    _lib.nvrtcGetPTX(prog, buf)
    _lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return buf.value.decode()


def kernel_source(entry, s, roles):
    params = ", ".join(f"{ty} {name}" for name, ty in roles.items())
    args = []
    ncoords = 0
    for ty, v in s.args:
        if v == "&coords":
            ncoords = int(re.search(r"\[(\d+)\]", ty).group(1))
            args.append("coords")
        elif v.startswith("%"):
            name = v[1:]
            args.append(name if ty == roles.get(name) or ty == "tag" else f"({ty}){name}")
        else:
            args.append(v)
    body = ""
    if ncoords:
        body += "  int32_t coords[%d] = {%s};\n" % (ncoords, ", ".join(f"c{i}" for i in range(ncoords)))
    body += f"  {s.callee}({', '.join(args)});\n"
    return f'extern "C" __global__ void {entry}({params}) {{\n{body}}}\n'


def source(kernels, roles, headers):
    inc = "".join(f"#include <cuda/__ptx/instructions/{h}.h>\n" for h in headers)
    return inc + "\n" + "\n".join(
        kernel_source(e, s, roles) for e, s in kernels)


class NvrtcEngine:
    load_path = "nvrtc"
    # NVRTC refuses with an error, not by exiting: cases expected to be refused are batched too (a batch NVRTC
    # refuses is compiled again kernel by kernel)
    batch_invalid = True

    def __init__(self, fe):
        from ptxcts_gen.frontends import cccl as mapping
        self.fe, self.mapping = fe, mapping
        load(fe)
        self.by_entry = {}

    def spell(self, form):
        s = self.mapping.spell(form)
        if isinstance(s, Spelling):
            self.by_entry[form.entry] = s
        return s

    def verify(self, items):
        """The mapping's calls must compile for the newest target NVRTC knows (a malformed entry does not)."""
        compile_source((source(items, self.mapping.ROLES, self.mapping.HEADERS), "sm_100a"))

    def build(self, target, ptx, entries):
        return (source([(e, self.by_entry[e]) for e in entries], self.mapping.ROLES, self.mapping.HEADERS), target)

    compile = staticmethod(compile_source)
    extract = staticmethod(llvm_backend.instructions)

    def describe_call(self, s):
        return f"{s.callee}({', '.join(v for _, v in s.args)})"


_EMPTY = 'extern "C" __global__ void k() {}\n'


def _probe_one(target):
    text = compile_source((_EMPTY, target))
    return list(llvm_backend.header(text))


def describe(fe, make_doc, log=print):
    from ptxcts_gen import targets as isa_targets

    from . import isolate
    load(fe)
    names = [t.name for t in isa_targets.TARGETS]
    log(f"frontend: probing {fe.name}: NVRTC {version()}, an empty kernel per target name of the model")
    outs = isolate.run_many(_probe_one, names, jobs=2, timeout=60)
    targets, versions = {}, set()
    for t, o in zip(names, outs):
        if o.ok and o.value[1] == t:
            targets[t] = {"ptx": [o.value[0]], "min_ptx": o.value[0], "max_ptx": o.value[0]}
            versions.add(o.value[0])
    return make_doc(fe, f"NVRTC {version()} with CCCL {cccl_version()}", sorted(versions), targets,
                    {"how": "an empty kernel per target name of the ISA model, -arch=compute_<target>, in a forked "
                            "child; known when NVRTC compiles it and the PTX says `.target <target>` (NVRTC writes "
                            "one PTX ISA version)", "nvrtc_supported_archs": supported_archs()},
                    {"cccl_version": cccl_version()})
