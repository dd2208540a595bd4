"""LLVM's NVPTX back-end through llvmlite: the library loaded, the IR module of a batch of spellings, its PTX.

The parent process loads the library once (load); the compile of a module (compile_module) runs in a forked child
(isolate.run_many), since LLVM exits the process on "Cannot select" and on a PTX version its target lacks.
"""
import re
import sys

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
