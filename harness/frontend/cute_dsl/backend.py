"""The CUTLASS Python DSL (CuTe DSL) as a front-end: a module of DSL kernels, compiled by the DSL (libNVVM) to PTX.

The DSL traces Python functions (it reads their source, so every kernel lives in a file): a batch of spellings
(ptxcts_gen.frontends.cute_dsl) becomes one Python file, one `@cute.kernel` per case named after its entry, and
one `@cute.jit` host function launching them all, so the batch is one PTX module. It is compiled in a forked child
(isolate) with `cute.compile(host, fake_tensor, options="--gpu-arch <target> --keep-ptx --dump-dir <dir>")`,
caching off (CUTE_DSL_NO_CACHE=1); no GPU is needed (cutlass.cute.runtime.make_fake_compact_tensor). A batch the
DSL refuses (a Python exception of its checks, libNVVM's "unsupported operation") fails as a whole, and its
kernels are compiled again one by one (tier.run_cases). The DSL names a kernel `kernel_cutlass_<name>_<argument
types>_<n>`: the child renames each entry (and its parameters) back to the case's entry, the only edit of the PTX.
libNVVM writes one PTX ISA version (CUDA 13.4's libNVVM in 4.8.1: 9.4): the cases at other versions are
not_supported (toolchains/cute-dsl.json).
"""
import importlib.util
import os
import re
import sys
import tempfile

from .. import llvm_backend
from ..errors import MALFORMED, FrontendError

_loaded = {}
DSL_PACKAGES = os.path.join("nvidia_cutlass_dsl", "dsl_packages")

# what every kernel prepares before its one primitive call (the ROLES of the mapping): the values come from the
# Int32 fake tensor g, so libNVVM cannot fold them into immediates
_PRELUDE = """\
import cutlass
import cutlass.cute as cute
from cutlass.experimental.primitives import nvvm_wrapper as P
from cutlass._mlir.dialects import llvm as _L


def _cast(p, space):
    return _L.addrspacecast(_L.PointerType.get(space), P._to_ir(p, None, None))
"""
_KERNEL = """

@cute.kernel
def {entry}(g: cute.Tensor):
    smem = cutlass.utils.SmemAllocator()
    s = smem.allocate_array(cutlass.Int64, 64)
    mb = cutlass.Array(cutlass.Int64, 1, space=cutlass.AddressSpace.smem, alignment=8)
    dsm = _cast(s, cutlass.AddressSpace.dsmem)
    tm = _cast(g.iterator, cutlass.AddressSpace.generic)
    sz = cutlass.Int32(g[0])
    pol = cutlass.Int64(g[1])
    mask = cutlass.Int16(g[2])
    bmask = cutlass.Int16(g[3])
    c = [cutlass.Int32(g[4 + i]) for i in range(5)]
    o = [cutlass.Int16(g[9 + i]) for i in range(3)]
    {call}
"""


def load(fe):
    """Import the DSL from the front-end's installed tree (once); FrontendError (exit 3) when it does not import."""
    if "cute" in _loaded:
        return _loaded
    os.environ["CUTE_DSL_NO_CACHE"] = "1"   # a verdict never comes from the DSL's cache of an earlier compile
    for p in (os.path.join(fe.site, DSL_PACKAGES), fe.site):
        if p not in sys.path:
            sys.path.insert(0, p)
    try:
        import cutlass
        import cutlass.cute as cute
        from cutlass.cute.runtime import make_fake_compact_tensor
        from cutlass.experimental.primitives import nvvm_wrapper  # noqa: F401  (the primitives the kernels call)
    except Exception as e:   # an ImportError, or the DSL's own error while loading its libraries
        raise FrontendError(f"front-end {fe.name}: cannot import the CuTe DSL from {fe.site}: {type(e).__name__}: "
                            f"{e} (install it again with `./ptxcts frontend install --force {fe.name}`)",
                            MALFORMED) from None
    _loaded.update(cutlass=cutlass, cute=cute, fake=make_fake_compact_tensor, fe=fe)
    return _loaded


def module_source(kernels):
    """The Python file of a batch: [(entry, the primitive's call text)] -> source text."""
    body = _PRELUDE + "".join(_KERNEL.format(entry=e, call=call) for e, call in kernels)
    launches = "".join(f"    {e}(g).launch(grid=(1, 1, 1), block=(32, 1, 1))\n" for e, _ in kernels)
    return body + "\n\n@cute.jit\ndef host(g: cute.Tensor):\n" + (launches or "    pass\n")


def rename_entries(ptx, entries):
    """The PTX with each DSL-mangled entry name (kernel_cutlass_<entry>_...) replaced by its entry."""
    for name in re.findall(r"^\.visible \.entry (\w+)\(", ptx, re.M):
        for e in entries:
            if name.startswith(f"kernel_cutlass_{e}_"):
                ptx = re.sub(rf"\b{re.escape(name)}", e, ptx)
                break
    return ptx


def compile_source(arg, fakes=None):
    """PTX of (source, target, entries), compiled in this process; raises the DSL's exception when it refuses.
    fakes(loaded DSL): the fake tensors the source's `host` takes (default: the tier's one Int32 tensor g)."""
    src, target, entries = arg
    d = _loaded
    os.environ["CUTE_DSL_ARCH"] = target
    with tempfile.TemporaryDirectory(prefix="ptxcts-cute-") as wd:
        path = os.path.join(wd, "cases.py")
        with open(path, "w") as f:
            f.write(src)
        spec = importlib.util.spec_from_file_location(f"ptxcts_cute_{os.getpid()}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        args = fakes(d) if fakes else [d["fake"](d["cutlass"].Int32, (64,), assumed_align=16)]
        dump = os.path.join(wd, "dump")
        os.makedirs(dump)   # the DSL needs its dump folder to exist
        compiled = d["cute"].compile(mod.host, *args, options=f"--gpu-arch {target} --keep-ptx --dump-dir {dump}")
        ptx = compiled.__ptx__
    if not ptx:
        raise RuntimeError("the DSL returned no PTX")
    return rename_entries(ptx, entries)


REFUSED = "// ptxcts-refused "


def compile_batch(arg):
    """The PTX of a batch (kernels [(entry, call text)], target) compiled in this process: the whole batch as one
    module; when the DSL refuses it (libNVVM names no kernel in "unsupported operation"), each kernel alone, in
    this process (no new fork, no new import). Returns one module: the header of the first module compiled,
    every entry compiled, and a `// ptxcts-refused <entry>: <the DSL's error>` line per refused kernel (read
    back by extract). A batch of one kernel that is refused raises the DSL's error."""
    kernels, target = arg
    modules, refused = [], {}

    def one(ks):
        try:
            modules.append(compile_source((module_source(ks), target, [e for e, _ in ks])))
            return True
        except Exception as e:
            if len(ks) == 1:
                refused[ks[0][0]] = f"{type(e).__name__}: {_error_line(e)}"
            return False

    if not one(kernels) and len(kernels) > 1:
        for k in kernels:
            one([k])
    if len(kernels) == 1 and refused:
        raise RuntimeError(next(iter(refused.values())))
    # the header: every line of the modules' headers once, in order (the kernels compiled alone declare only what
    # they use, e.g. the dynamic shared memory)
    head, bodies = [], []
    for text in modules:
        first = re.search(r"^\.visible \.entry ", text, re.M)
        if first is None:
            continue
        head += [ln for ln in text[:first.start()].splitlines() if ln not in head or not ln.strip()]
        bodies.append(text[first.start():])
    notes = "".join(f"{REFUSED}{e}: {msg}\n" for e, msg in refused.items())
    return "\n".join(_dedupe_blank(head)) + "\n" + notes + "".join(bodies)


def _dedupe_blank(lines):
    out = []
    for ln in lines:
        if ln.strip() or (out and out[-1].strip()):
            out.append(ln)
    return out


def extract(text):
    """{entry: instruction texts, or a judge.Emission REFUSED for a kernel compile_batch records as refused}."""
    from ..judge import REFUSED as REFUSED_STATUS, Emission
    out = llvm_backend.instructions(text)
    for ln in text.splitlines():
        if ln.startswith(REFUSED):
            entry, _, msg = ln[len(REFUSED):].partition(": ")
            out[entry] = Emission(REFUSED_STATUS, message=msg, alone=True)
    return out


def _error_line(text):
    """The DSL's diagnostic, on one line, without its terminal colours."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(text))
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and "suggestion" not in ln]
    return " | ".join(lines[:4])[:500]


# the exceptions that mean a call the DSL cannot trace as written (a malformed mapping entry), not its verdict
_MALFORMED = ("TypeError", "NameError", "AttributeError", "SyntaxError", "RuntimeError: TypeError",
              "RuntimeError: NameError", "RuntimeError: AttributeError")


class CuteDslEngine:
    load_path = "cute-dsl"
    # the DSL refuses with a Python exception, not by exiting: cases expected to be refused are batched too
    batch_invalid = True
    # kernels per compile job (run.py): each costs about 0.15-0.3 s of tracing and compiling, a module about 1.5 s
    # more (the DSL's host-side JIT); a job refused as a whole compiles its kernels one by one
    batch_size = 32

    def __init__(self, fe):
        from ptxcts_gen.frontends import cute_dsl as mapping
        self.fe, self.mapping = fe, mapping
        load(fe)
        self.by_entry = {}

    def spell(self, form):
        from ptxcts_gen.frontends import Spelling
        s = self.mapping.spell(form)
        if isinstance(s, Spelling):
            self.by_entry[form.entry] = s
        return s

    def verify(self, items):
        """The mapping's calls must be calls the DSL takes, checked without compiling: each callee a function of
        the primitives module (P.) or of cutlass.cute.arch, its arguments bound to its signature
        (inspect.signature: a missing, extra or unknown keyword argument is a TypeError), each literal argument an
        expression the DSL evaluates (an enum member that exists). The DSL's own checks of the values and
        libNVVM's refusals are its verdicts on a form, judged per case by the tier."""
        import inspect
        d = _loaded
        from cutlass.experimental.primitives import nvvm_wrapper
        names = {"P": nvvm_wrapper, "cute": d["cute"], "cutlass": d["cutlass"]}
        for entry, s in items:
            owner, _, fn_name = s.callee.rpartition(".")
            fn = getattr(eval(owner, names), fn_name)   # AttributeError: no such primitive
            pos, kw = [], {}
            for k, v in s.args:
                value = object() if v.startswith("%") else eval(v, names)   # AttributeError: no such member
                if k:
                    kw[k] = value
                else:
                    pos.append(value)
            inspect.signature(fn).bind(*pos, **kw)   # TypeError: the call does not fit the signature

    def build(self, target, ptx, entries):
        return ([(e, self.mapping.call_text(self.by_entry[e])) for e in entries], target)

    @staticmethod
    def compile(arg):
        return compile_batch(arg)

    extract = staticmethod(extract)

    def describe_call(self, s):
        return self.mapping.call_text(s)


_EMPTY = _PRELUDE + """

@cute.kernel
def k_empty(g: cute.Tensor):
    pass


@cute.jit
def host(g: cute.Tensor):
    k_empty(g).launch(grid=(1, 1, 1), block=(32, 1, 1))
"""


def _empty(target):
    text = compile_source((_EMPTY, target, ["k_empty"]))
    return list(llvm_backend.header(text)) + [_nvvm_build(text)]


def _nvvm_build(text):
    """The compiler lines of a PTX header ("Cuda compilation tools, release 13.4, V13.4.59", "Based on NVVM ...";
    the header's first line, "Generated by NVIDIA NVVM Compiler", says it is libNVVM)."""
    keep = [ln[2:].strip() for ln in text.splitlines()[:8] if ln.startswith("//") and
            ("release" in ln or "Based on NVVM" in ln)]
    return "; ".join(keep)


def dsl_version(fe):
    for w in fe.entry["wheels"]:
        if w["package"] == "nvidia-cutlass-dsl":
            return w["version"]
    return "?"


def describe(fe, make_doc, log=print):
    from ptxcts_gen import targets as isa_targets

    from .. import isolate
    load(fe)
    names = [t.name for t in isa_targets.TARGETS]
    log(f"frontend: probing {fe.name}: CuTe DSL {dsl_version(fe)}, an empty kernel per target name of the model "
        "(--gpu-arch)")
    outs = isolate.run_many(_empty, names, jobs=2, timeout=120)
    targets, versions, builds, refused = {}, set(), set(), {}
    for t, o in zip(names, outs):
        if o.ok and o.value[1] == t:
            targets[t] = {"ptx": [o.value[0]], "min_ptx": o.value[0], "max_ptx": o.value[0]}
            versions.add(o.value[0])
            builds.add(o.value[2])
        elif o.ok:
            refused[t] = f"writes `.target {o.value[1]}`"
        else:
            refused[t] = _error_line(o.value if o.status == "exception" else o.stderr or o.status)[:160]
    if not targets:
        raise FrontendError(f"front-end {fe.name}: the DSL compiled an empty kernel for no target of the model "
                            f"(e.g. {next(iter(refused.items()), ('', ''))})", MALFORMED)
    build = "; ".join(sorted(builds))
    return make_doc(fe, f"CuTe DSL {dsl_version(fe)} (libNVVM: {build})", sorted(versions), targets,
                    {"how": "an empty kernel per target name of the ISA model, cute.compile(..., options='--gpu-arch "
                            "<target>') in a forked child; known when the PTX says `.target <target>` (libNVVM "
                            "writes one PTX ISA version)", "refused_targets": refused},
                    {"nvvm": build})
