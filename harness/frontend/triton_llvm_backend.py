"""The LLVM bundled in Triton's libtriton.so (front-end kind "triton-llvm"): the library loaded, the PTX it writes.

Triton's Python binding `triton._C.libtriton.llvm` exposes its LLVM's NVPTX back-end through
`translate_to_asm(ir, triple, proc, features, flags, enable_fp_fusion, is_object, canonicalize_gep)`, which parses
the IR text, runs LLVM's verifier, then selects and prints PTX. It reports a parse error, a broken module, "Cannot
select" and a PTX version its target lacks with `LLVM ERROR: ...` and ends the process, and it segfaults when
called before `init_targets()`: every call runs in a forked child (isolate), after load() initialised the targets
in the parent. The IR modules and the reading of the PTX are LLVM's (llvm_backend.module_ir, instructions).

The extension is loaded from the installed file itself, without the `triton` package (whose __init__ is not
needed, and which an interpreter with its own Triton installed would otherwise import instead).
"""
import importlib.machinery
import importlib.metadata
import importlib.util
import re

from . import isolate
from .errors import MALFORMED, FrontendError
from .llvm_backend import features, library_intrinsics   # noqa: F401  (the same +ptxNN and intrinsic table)

TRIPLE = "nvptx64-nvidia-cuda"
_llvm = None
# what translate_to_asm prints when the IR itself is wrong (llvm::parseIR, the verifier pass it runs first)
_MALFORMED_IR = ("LLVM ERROR: failed to parse IR", "LLVM ERROR: Broken module found")


def load(fe):
    """libtriton's `llvm` submodule, its targets initialised; FrontendError (exit 3) when it does not load."""
    global _llvm
    if _llvm is not None:
        return _llvm
    try:
        loader = importlib.machinery.ExtensionFileLoader("libtriton", fe.library)
        spec = importlib.util.spec_from_file_location("libtriton", fe.library, loader=loader)
        lib = importlib.util.module_from_spec(spec)
        loader.exec_module(lib)
        llvm = lib.llvm
        llvm.init_targets()   # before any translate_to_asm: without it the call segfaults
    except Exception as e:   # an ImportError or OSError of the .so, a missing attribute of another Triton
        raise FrontendError(f"front-end {fe.name}: cannot load {fe.library}: {type(e).__name__}: {e} (install it "
                            f"again with `./ptxcts frontend install --force {fe.name}`)", MALFORMED) from None
    _llvm = llvm
    return llvm


def version_string(fe):
    """"LLVM 24.0.0git (Triton 3.9.0)": the LLVM version the library states, the Triton version of its install."""
    with open(fe.library, "rb") as f:
        m = re.search(rb"LLVM version (\d+\.\d+\.\d+\w*)", f.read())
    llvm_v = m.group(1).decode() if m else "?"
    tri = next((d.version for d in importlib.metadata.distributions(path=[fe.site])
                if (d.metadata["Name"] or "").lower() == "triton"), "?")
    return f"LLVM {llvm_v} (Triton {tri})"


def emit(ir_text, cpu, ptx):
    """The PTX Triton's LLVM writes for ir_text at `cpu` and PTX ISA `ptx` (call in a child: it may end the
    process). No flags, no fp fusion, text (not an object), no GEP canonicalisation."""
    return _llvm.translate_to_asm(ir_text, TRIPLE, cpu, features(ptx), [], False, False, False)


def _verify_child(arg):
    ir_text, cpu, ptx = arg
    emit(ir_text, cpu, ptx)
    return True


def verify(ir_text, cpu, ptx):
    """Raise ValueError with LLVM's own lines when translate_to_asm finds the IR malformed (parse error or a
    verifier error: both before instruction selection). A refusal after verification (Cannot select, a PTX version
    the target lacks) says the module was well formed. Runs in a forked child."""
    (o,) = isolate.run_many(_verify_child, [(ir_text, cpu, ptx)], jobs=1, timeout=300)
    if o.ok:
        return
    if o.status == "exception":   # a Python exception of the binding
        raise ValueError(str(o.value))
    lines = [ln.strip() for ln in o.stderr.splitlines() if ln.strip()]
    if any(ln.startswith(_MALFORMED_IR) for ln in lines):
        raise ValueError("; ".join(ln for ln in lines if not ln.startswith((";", "declare", "define")))[:600])
    if not any(ln.startswith("LLVM ERROR") for ln in lines):
        raise ValueError(f"translate_to_asm died ({o.status}) before it said whether the module is well formed: "
                         + " | ".join(lines[-3:]))
