"""LLVM's NVPTX back-end through llvmlite: the library loaded, the IR module of a batch of spellings, its PTX; and
the same back-end in the LLVM Triton bundles (TritonLlvm, front-end kind "triton-llvm").

The parent process loads the library once (load); the compile of a module (compile_module) runs in a forked child
(isolate.run_many), since LLVM exits the process on "Cannot select" and on a PTX version its target lacks.
"""
import importlib.machinery
import importlib.metadata
import importlib.util
import re
import sys

from . import isolate
from .errors import MALFORMED, FrontendError

_llvm = None


def load(fe):
    """Import llvmlite from the front-end's installed tree and initialise the NVPTX target; FrontendError (exit 3)
    when the library does not load."""
    global _llvm
    if _llvm is not None:
        return _llvm
    if fe.site not in sys.path:
        sys.path.insert(0, fe.site)
    try:
        import llvmlite
        import llvmlite.binding as llvm
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        llvm.Target.from_triple("nvptx64-nvidia-cuda")
    except Exception as e:   # an ImportError, an OSError of the .so, a RuntimeError of the target registry
        raise FrontendError(f"front-end {fe.name}: cannot load {fe.library}: {type(e).__name__}: {e} (install it "
                            f"again with `./ptxcts frontend install --force {fe.name}`)", MALFORMED) from None
    if not llvmlite.__file__.startswith(fe.site):
        raise FrontendError(f"front-end {fe.name}: llvmlite was imported from {llvmlite.__file__}, not from the "
                            f"installed {fe.site}", MALFORMED)
    _llvm = llvm
    return llvm


def version_string():
    import llvmlite
    return f"LLVM {'.'.join(map(str, _llvm.llvm_version_info))} (llvmlite {llvmlite.__version__})"


def library_intrinsics(path):
    """The llvm.nvvm.* names the shared library carries (its intrinsic name table): `strings`, in Python."""
    with open(path, "rb") as f:
        data = f.read()
    return sorted({m.decode() for m in re.findall(rb"llvm\.nvvm\.[A-Za-z0-9_.]+", data)})


def features(ptx):
    return "+ptx" + ptx.replace(".", "")


def emit(ir_text, cpu, ptx):
    """The PTX LLVM writes for ir_text at `cpu` and PTX ISA `ptx` (call in a child: LLVM may exit the process)."""
    mod = _llvm.parse_assembly(ir_text)
    mod.verify()
    tm = _llvm.Target.from_triple("nvptx64-nvidia-cuda").create_target_machine(cpu=cpu, features=features(ptx),
                                                                                opt=0)
    return tm.emit_assembly(mod)


def module_ir(kernels, roles):
    """An IR module with one kernel per (entry, Spelling): each kernel takes every role's parameter and calls the
    spelling's intrinsic once."""
    params = ", ".join(f"{ty} %{name}" for name, ty in roles.items())
    decls, bodies = {}, []
    for entry, s in kernels:
        types = ", ".join(ty for ty, _ in s.args)
        decls[s.callee] = f"declare void @{s.callee}({types})"
        args = ", ".join(f"{ty} {v}" for ty, v in s.args)
        bodies.append(f"define ptx_kernel void @{entry}({params}) {{\n  call void @{s.callee}({args})\n  ret void\n}}")
    return ('target triple = "nvptx64-nvidia-cuda"\n' + "\n".join(decls[k] for k in sorted(decls)) + "\n\n"
            + "\n\n".join(bodies) + "\n")


_ENTRY = re.compile(r"^\.visible \.entry (\w+)\(", re.M)
# the first words of the instructions this chapter is about (and of fence.proxy.async, which the groups test)
UNDER_TEST = ("cp.", "fence.proxy")


def instructions(ptx_text):
    """{entry: [instruction texts of this chapter in its body]} of a PTX module."""
    out = {}
    starts = [(m.group(1), m.start()) for m in _ENTRY.finditer(ptx_text)]
    for n, (entry, at) in enumerate(starts):
        end = starts[n + 1][1] if n + 1 < len(starts) else len(ptx_text)
        lines = []
        for ln in ptx_text[at:end].splitlines():
            t = ln.split("//", 1)[0].strip()   # CCCL's asm strings end in a comment (`fence.proxy.async; // 5.`)
            if t.startswith(UNDER_TEST):
                lines.append(" ".join(t.split()))
        out[entry] = lines
    return out


def header(ptx_text):
    """(.version, .target) of a PTX module."""
    v = re.search(r"^\.version (\S+)", ptx_text, re.M)
    t = re.search(r"^\.target (\S+)", ptx_text, re.M)
    return (v.group(1) if v else None, t.group(1) if t else None)


class TritonLlvm:
    """The LLVM bundled in Triton's libtriton.so, through its binding `triton._C.libtriton.llvm`:
    `translate_to_asm(ir, triple, proc, features, flags, enable_fp_fusion, is_object, canonicalize_gep)` parses the
    IR text, runs LLVM's verifier, then selects and prints PTX. It reports a parse error, a broken module, "Cannot
    select" and a PTX version its target lacks with `LLVM ERROR: ...` and ends the process, and it segfaults when
    called before `init_targets()` (or with a triple it has no target for): every call runs in a forked child,
    after load() initialised the targets in the parent. The IR modules and the reading of the PTX are the functions
    above (module_ir, instructions).

    The extension is loaded from the installed file itself, without the `triton` package (whose __init__ is not
    needed, and which an interpreter with its own Triton installed would otherwise import instead)."""
    TRIPLE = "nvptx64-nvidia-cuda"
    _llvm = None
    # what translate_to_asm prints when the IR itself is wrong (llvm::parseIR, the verifier pass it runs first)
    MALFORMED_IR = ("LLVM ERROR: failed to parse IR", "LLVM ERROR: Broken module found")

    @classmethod
    def load(cls, fe):
        """libtriton's `llvm` submodule, its targets initialised; FrontendError (exit 3) when it does not load."""
        if cls._llvm is not None:
            return cls._llvm
        try:
            loader = importlib.machinery.ExtensionFileLoader("libtriton", fe.library)
            spec = importlib.util.spec_from_file_location("libtriton", fe.library, loader=loader)
            lib = importlib.util.module_from_spec(spec)
            loader.exec_module(lib)
            llvm = lib.llvm
            llvm.init_targets()   # before any translate_to_asm: without it the call segfaults
        except Exception as e:   # an ImportError or OSError of the .so, a missing attribute of another Triton
            raise FrontendError(f"front-end {fe.name}: cannot load {fe.library}: {type(e).__name__}: {e} (install "
                                f"it again with `./ptxcts frontend install --force {fe.name}`)", MALFORMED) from None
        cls._llvm = llvm
        return llvm

    @staticmethod
    def version_string(fe):
        """"LLVM 24.0.0git (Triton 3.9.0)": the LLVM version the library states, the Triton version installed."""
        with open(fe.library, "rb") as f:
            m = re.search(rb"LLVM version (\d+\.\d+\.\d+\w*)", f.read())
        llvm_v = m.group(1).decode() if m else "?"
        tri = next((d.version for d in importlib.metadata.distributions(path=[fe.site])
                    if (d.metadata["Name"] or "").lower() == "triton"), "?")
        return f"LLVM {llvm_v} (Triton {tri})"

    @classmethod
    def emit(cls, ir_text, cpu, ptx):
        """The PTX Triton's LLVM writes for ir_text at `cpu` and PTX ISA `ptx` (call in a child: it may end the
        process). No flags, no fp fusion, text (not an object), no GEP canonicalisation."""
        return cls._llvm.translate_to_asm(ir_text, cls.TRIPLE, cpu, features(ptx), [], False, False, False)

    @classmethod
    def verify(cls, ir_text, cpu, ptx):
        """Raise ValueError with LLVM's own lines when translate_to_asm finds the IR malformed (parse error or a
        verifier error: both before instruction selection). A refusal after verification (Cannot select, a PTX
        version the target lacks) says the module was well formed. Runs in a forked child."""
        (o,) = isolate.run_many(lambda arg: cls.emit(*arg) and True, [(ir_text, cpu, ptx)], jobs=1, timeout=300)
        if o.ok:
            return
        if o.status == "exception":   # a Python exception of the binding
            raise ValueError(str(o.value))
        lines = [ln.strip() for ln in o.stderr.splitlines() if ln.strip()]
        if any(ln.startswith(cls.MALFORMED_IR) for ln in lines):
            raise ValueError("; ".join(ln for ln in lines if not ln.startswith((";", "declare", "define")))[:600])
        if not any(ln.startswith("LLVM ERROR") for ln in lines):
            raise ValueError(f"translate_to_asm died ({o.status}) before it said whether the module is well formed: "
                             + " | ".join(lines[-3:]))
