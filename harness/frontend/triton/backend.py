"""The Triton language as a front-end: Gluon kernels compiled by `triton.compile` for a GPUTarget with no GPU.

Triton is imported once in the tier's process (and warmed by one compile) before the zygote forks the children
that compile, so each child starts from a loaded, initialised library. A child writes its kernels into a file of a
temporary folder (Triton reads the source through `inspect`), imports it and compiles each kernel with
`triton.compile(GluonASTSource(fn, signature, constexprs, attrs), target=GPUTarget("cuda", CC, 32),
options={"ptx_version": N})`. Triton's own ptxas step (CUDABackend.make_cubin) is replaced for the call: the PTX
is kept even where Triton's ptxas would reject it, and the paired ptxas judges it. The kernels of a batch become
one module when Triton wrote the same header for each (else the batch fails and each kernel is compiled alone).

Claims: the `.version` and `.target` lines Triton writes are judged (claim_verdict): they must be the ones asked
for (the PTX ISA version asked; the target the probe found Triton writes for the compute capability), and every
instruction of this chapter in the kernel must be valid there by the model.
"""
import importlib.util
import os
import re
import sys
import tempfile

from ..errors import MALFORMED, USAGE, FrontendError

# the compute capabilities asked of Triton by the probe (GPUTarget("cuda", CC, 32)); what it writes for each is
# measured, never assumed
PROBE_CCS = (75, 80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121)
# the chapter's instructions in a Triton kernel: a predicate guard (@%p1) dropped
_CHAPTER = ("cp.async", "cp.reduce.async", "fence.proxy.async")
_PRED = re.compile(r"^@!?%\w+\s+")
_ENTRY = re.compile(r"^\.visible \.entry (\w+)\(", re.M)

_triton = None      # the imported module
_site = None


_armed = None   # Triton's own make_cubin, kept when the tier replaces it


def _disarm_ptxas(disarm=True):
    """Triton's own ptxas step replaced: the PTX is what is judged, by the paired ptxas (disarm=False: restored)."""
    global _armed
    from triton.backends.nvidia import compiler as nvc
    if _armed is None:
        _armed = nvc.CUDABackend.make_cubin
    nvc.CUDABackend.make_cubin = (lambda self, src, metadata, opt, capability: b"") if disarm else _armed


def load(fe, disarm=True):
    """Import the Triton at fe.site (a folder holding triton/) once; FrontendError when it is not a Triton.
    disarm: Triton's own ptxas step replaced (the tier); the whole kernels keep it (Triton's cubin is what runs)."""
    global _triton, _site
    if _triton is not None:
        _disarm_ptxas(disarm)
        return _triton
    check_site(fe.site, fe.name)
    os.environ.setdefault("TRITON_DISABLE_LINE_INFO", "1")     # no .file/.loc/debug sections: modules merge
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")     # Triton 3.9 warns when it is unset
    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp(prefix="ptxcts-triton-cache-")   # never a stale kernel
    sys.path.insert(0, fe.site)
    try:
        import triton
        from triton.backends.compiler import GPUTarget  # noqa: F401
        from triton.experimental.gluon._runtime import GluonASTSource  # noqa: F401
    except Exception as e:   # an import error of the named tree is its own fault, named
        raise FrontendError(f"front-end {fe.name}: cannot import triton from {fe.site}: {type(e).__name__}: {e}",
                            USAGE if fe.name.startswith("triton=") else MALFORMED) from None
    if not os.path.realpath(triton.__file__).startswith(os.path.realpath(fe.site)):
        raise FrontendError(f"front-end {fe.name}: `import triton` found {triton.__file__}, not the one in "
                            f"{fe.site} (another Triton is installed in this Python)", USAGE)
    _disarm_ptxas(disarm)
    _triton, _site = triton, fe.site
    return triton


def check_site(site, name):
    """FrontendError (exit 2) naming site and what it lacks when it is not a Triton's package folder."""
    need = [os.path.join("triton", "__init__.py"), os.path.join("triton", "_C", "libtriton.so"),
            os.path.join("triton", "backends", "nvidia", "compiler.py"),
            os.path.join("triton", "experimental", "gluon", "_runtime.py")]
    missing = [n for n in need if not os.path.exists(os.path.join(site, n))]
    if missing:
        raise FrontendError(f"{name}: {site} is not a Triton: it has no {', '.join(missing)} (give a site-packages "
                            "folder holding triton/, a built source checkout's python/ folder, or a triton .whl)",
                            USAGE)


def version():
    return getattr(_triton, "__version__", "?")


_api = None


def api():
    """What the loaded Triton's Gluon offers, read from its modules (names and arguments differ between releases:
    Triton 3.6 has async_copy_global_to_shared without a CachePolicy, no multicast, im2col or TMA reductions):
    {feature: a call's name, or whether it is there}."""
    global _api
    if _api is not None:
        return _api
    import inspect
    from triton.experimental.gluon.language.nvidia import ampere
    from triton.experimental.gluon.language.nvidia.ampere import async_copy, mbarrier
    from triton.experimental.gluon.language.nvidia.blackwell import tma as btma
    from triton.experimental.gluon.language.nvidia.hopper import tma

    def params(fn):
        try:
            return set(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            return set()
    cp = getattr(async_copy, "async_load", None) or getattr(async_copy, "async_copy_global_to_shared", None)
    ld = getattr(tma, "async_load", None) or getattr(tma, "async_copy_global_to_shared", None)
    st = getattr(tma, "async_store", None) or getattr(tma, "async_copy_shared_to_global", None)
    gather = getattr(btma, "async_gather", None)
    _api = {"cp_async": getattr(cp, "__name__", None), "tma_load": getattr(ld, "__name__", None),
            "tma_store": getattr(st, "__name__", None),
            "cache_policy": hasattr(ampere, "CachePolicy") and "cache_policy" in params(cp),
            "tma_cache_policy": "cache_policy" in params(ld), "multicast": "multicast" in params(ld),
            "multicta": hasattr(mbarrier.MBarrierLayout, "multicta"), "im2col": hasattr(tma, "async_load_im2col"),
            "atomics": hasattr(tma, "async_atomic_add"), "read_only": "read_only" in params(tma.store_wait),
            "gather": gather is not None, "gather_cache_policy": "cache_policy" in params(gather)}
    return _api


def missing_api(template, params):
    """Why the loaded Triton cannot compile the kernel (a feature its Gluon lacks), or None."""
    a, p = api(), dict(params)
    need = []
    if template in ("cp_async", "cp_async_wait_group") and p.get("prefetch") and not a["cache_policy"]:
        need.append("CachePolicy(l2_prefetch_size=...) on async_copy loads")
    if template in ("tma_load", "tma_load_im2col") and p.get("multicast") == "1" and not (a["multicast"] and
                                                                                          a["multicta"]):
        need.append("multicast TMA loads (multicast=, MBarrierLayout.multicta)")
    if template in ("tma_load", "tma_load_im2col", "tma_store") and p.get("hint") == "1" and not a["tma_cache_policy"]:
        need.append("a cache_policy on TMA copies")
    if template in ("tma_gather", "tma_scatter") and not a["gather"]:
        need.append("blackwell.tma.async_gather / async_scatter")
    if template in ("tma_gather", "tma_scatter") and p.get("hint") == "1" and not a["gather_cache_policy"]:
        need.append("a cache_policy on gather / scatter")
    if template == "tma_load_im2col" and not a["im2col"]:
        need.append("tma.async_load_im2col")
    if template == "tma_reduce" and not a["atomics"]:
        need.append("tma.async_atomic_<op> (TMA reductions)")
    if template == "bulk_wait_group" and p.get("read") == "0" and not a["read_only"]:
        need.append("store_wait(..., read_only=False)")
    if None in (a["cp_async"], a["tma_load"], a["tma_store"]):
        need.append("async_copy / TMA load and store calls")
    return f"Triton {version()}'s Gluon has no {'; no '.join(need)}" if need else None


# ---- the kernels ---------------------------------------------------------------------------------------------

_PRELUDE = """\
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia import ampere
from triton.experimental.gluon.language.nvidia.ampere import async_copy
CachePolicy = getattr(ampere, "CachePolicy", None)                      # Triton 3.9 (not 3.6)
FractionalEvictionPolicy = getattr(ampere, "FractionalEvictionPolicy", None)
from triton.experimental.gluon.language.nvidia.hopper import tma, mbarrier, fence_async_shared
from triton.experimental.gluon.language.nvidia.blackwell import tma as btma
"""
_HINT = "CachePolicy(l2=FractionalEvictionPolicy('evict_last', 1.0))"
_LAYOUT = "NVMMASharedLayout(swizzle_byte_width={sw}, element_bitwidth={bits}, rank={rank}{cga})"
_DIV16 = [["tt.divisibility", 16]]


def _block(dim):
    """The TMA block of a descriptor of rank dim: 64 elements of 2 bytes innermost, 2 along the others."""
    return [2] * (dim - 1) + [64]


def desc_signature(dtype, block, bits, sw=0, im2col_rank=None, ctas=1):
    """The signature of a tensor descriptor; ctas=2: its block replicated in both CTAs of the cluster (multicast)."""
    cga = f", cga_layout=[{[0] * len(block)}]" if ctas == 2 else ""
    lay = _LAYOUT.format(sw=sw, bits=bits, rank=len(block), cga=cga)
    if im2col_rank:
        return f"tensordesc_im2col<{dtype}[{','.join(map(str, block))}],input_rank={im2col_rank},{lay}>"
    return f"tensordesc<{dtype}[{','.join(map(str, block))}],{lay}>"


def async_copy_policy(p, has_cache_policy):
    """The keyword argument of an async_copy load for the spelling's cache operator (`cop`) and L2 prefetch size
    (`prefetch`): CachePolicy(...) in Triton 3.9; a cache modifier string, no prefetch size, where the Gluon has no
    CachePolicy (3.6); "" for neither."""
    if not has_cache_policy:
        return f"cache_modifier='.{p['cop']}'" if p.get("cop") else ""
    pol = [f"cache_modifier='{p['cop']}'"] if p.get("cop") else []
    if p.get("prefetch"):
        pol.append(f"l2_prefetch_size={p['prefetch']}")
    return f"cache_policy=CachePolicy({', '.join(pol)})" if pol else ""


def kernel(entry, template, params):
    """(source text, signature, constexprs, attrs, options) of one kernel; template and params: a Spelling of
    ptxcts_gen.frontends.triton."""
    p = dict(params)
    opts = {}
    if template in ("cp_async", "cp_async_wait_group"):
        size = int(p.get("cp_size", "4"))
        v = size // 4
        policy = async_copy_policy(p, api()["cache_policy"])
        wait = p.get("n", "0")
        src = f"""
@gluon.jit
def {entry}(p, n):
    layout: gl.constexpr = gl.BlockedLayout([{v}], [32], [1], [0])
    offs = gl.arange(0, {32 * v}, layout=layout)
    smem = gl.allocate_shared_memory(gl.float32, [{32 * v}], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    async_copy.{api()["cp_async"]}(smem, p + offs, mask=offs < n{", " + policy if policy else ""})
    async_copy.commit_group()
    async_copy.wait_group({wait})
"""
        return src, {"p": "*fp32", "n": "i32"}, {}, {(0,): _DIV16, (1,): _DIV16}, {"num_warps": 1}
    if template == "cp_async_mbarrier_arrive":
        src = f"""
@gluon.jit
def {entry}(p):
    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    async_copy.mbarrier_arrive(bar, increment_count={p['noinc'] != '1'})
"""
        return src, {"p": "*fp32"}, {}, None, {"num_warps": 1}
    if template == "tma_load":
        dim, mc = int(p["dim"]), p["multicast"] == "1"
        block = _block(dim)
        hint = f", cache_policy={_HINT}" if p["hint"] == "1" else ""
        if mc:
            opts["num_ctas"] = 2
        src = f"""
@gluon.jit
def {entry}(desc):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)
    bar = {load_barrier(2 if mc else 1, _bar_layout(1))}
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.{api()["tma_load"]}(desc, {[0] * dim}, bar, smem{', multicast=True' if mc else ''}{hint})
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
"""
        return src, {"desc": desc_signature("fp16", block, 16, ctas=2 if mc else 1)}, {}, None, dict(opts, num_warps=4)
    if template == "tma_load_im2col":
        dim, mc = int(p["dim"]), p["multicast"] == "1"
        hint = f", cache_policy={_HINT}" if p["hint"] == "1" else ""
        if mc:
            opts["num_ctas"] = 2
        src = f"""
@gluon.jit
def {entry}(desc):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)
    bar = {load_barrier(2 if mc else 1, _bar_layout(1))}
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, desc.block_type.nbytes)
    tma.async_load_im2col(desc, {[0] * dim}, {[0] * (dim - 2)}, bar, smem{', multicast=True' if mc else ''}{hint})
    mbarrier.wait(bar, phase=0)
    mbarrier.invalidate(bar)
"""
        return src, {"desc": desc_signature("fp16", [32, 64], 16, im2col_rank=dim, ctas=2 if mc else 1)}, {}, None, \
            dict(opts, num_warps=4)
    if template in ("tma_gather", "tma_scatter"):
        hint = f", cache_policy={_HINT}" if p["hint"] == "1" else ""
        if template == "tma_gather":
            body = f"""    bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    mbarrier.init(bar, count=1)
    mbarrier.expect(bar, 8 * 64 * 2)
    btma.async_gather(desc, x, 0, bar, smem{hint})
    mbarrier.wait(bar, phase=0)
"""
        else:
            body = f"""    btma.async_scatter(desc, x, 0, smem{hint})
    tma.store_wait(0)
"""
        src = f"""
@gluon.jit
def {entry}(desc, idx):
    layout: gl.constexpr = gl.SliceLayout(0, gl.BlockedLayout([1, 8], [32, 1], [1, 4], [1, 0]))
    x = gl.arange(0, 8, layout=layout) + idx
    smem = gl.allocate_shared_memory(desc.dtype, [8, 64], desc.layout)
{body}"""
        return src, {"desc": desc_signature("fp16", [1, 64], 16, sw=128), "idx": "i32"}, {}, None, {"num_warps": 4}
    if template in ("tma_store", "bulk_commit_group", "bulk_wait_group"):
        dim = int(p.get("dim", "2"))
        hint = f", cache_policy={_HINT}" if p.get("hint") == "1" else ""
        wait = f"tma.store_wait({p.get('n', '0')}{', read_only=False' if p.get('read') == '0' else ''})"
        src = f"""
@gluon.jit
def {entry}(desc):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)
    tma.{api()["tma_store"]}(desc, {[0] * dim}, smem{hint})
    {wait}
"""
        return src, {"desc": desc_signature("fp16", _block(dim), 16)}, {}, None, {"num_warps": 4}
    if template == "tma_reduce":
        dim = int(p["dim"])
        block = [2] * (dim - 1) + [32]
        src = f"""
@gluon.jit
def {entry}(desc):
    smem = gl.allocate_shared_memory(desc.dtype, desc.block_type.shape, desc.layout)
    tma.async_atomic_{p['redop']}(desc, {[0] * dim}, smem)
    tma.store_wait(0)
"""
        return src, {"desc": desc_signature("i32", block, 32)}, {}, None, {"num_warps": 4}
    if template == "fence_proxy_async":
        cluster = p["cluster"] == "1"
        src = f"""
@gluon.jit
def {entry}(p):
    fence_async_shared(cluster={cluster})
"""
        return src, {"p": "*fp32"}, {}, None, dict({"num_ctas": 2} if cluster else {}, num_warps=4)
    raise FrontendError(f"no Triton kernel template {template!r}", MALFORMED)


def _bar_layout(ctas):
    return f"mbarrier.MBarrierLayout.multicta({ctas})" if api()["multicta"] else "mbarrier.MBarrierLayout()"


def load_barrier(ctas, layout="mbarrier.MBarrierLayout()"):
    """A TMA load's mbarrier in Gluon. A multicast's (ctas 2): one per CTA (mbarrier.allocate_mbarrier: shape
    [num_ctas], one element in each CTA), as the copy signals the mbarrier at the same offset in every destination
    CTA. A [1]-shaped barrier with the layout multicta(2) is taken by Triton 3.9.0 as one barrier in CTA 0 that both
    CTAs expect the bytes on, which the CTA 0 copy alone never completes (a whole kernel hung on the H100,
    2026-12-07). One CTA's: [1] of `layout`."""
    if ctas == 2:
        return "mbarrier.allocate_mbarrier()"
    return f"gl.allocate_shared_memory(gl.int64, [1], {layout})"


def describe_call(s):
    return f"{s.callee}({', '.join(f'{k}={v}' for k, v in s.args)})"


# ---- compiling (in a child) ----------------------------------------------------------------------------------

def _import_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def compile_kernels(cc, ptx, kernels):
    """{entry: PTX text} of kernels [(entry, template, params)], compiled for GPUTarget("cuda", cc, 32) at
    ptx_version ptx ("8.6" -> 86). Raises with Triton's last error line when it refuses one."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    parts = [kernel(e, t, p) for e, t, p in kernels]
    wd = tempfile.mkdtemp(prefix="ptxcts-triton-k-")
    path = os.path.join(wd, "kernels_ptxcts.py")
    with open(path, "w") as f:
        f.write(_PRELUDE + "".join(src for src, *_ in parts))
    mod = _import_file(path, f"ptxcts_triton_{os.getpid()}")
    out = {}
    for (entry, _t, _p), (_src, sig, cx, attrs, opts) in zip(kernels, parts):
        options = dict(opts, ptx_version=int(ptx.replace(".", "")))
        try:
            k = _triton.compile(GluonASTSource(getattr(mod, entry), sig, cx, attrs), target=GPUTarget("cuda", cc, 32),
                                options=options)
        except Exception as e:
            lines = [ln for ln in str(e).splitlines() if ln.strip()]
            err = next((ln for ln in lines if "error:" in ln), lines[-1] if lines else type(e).__name__)
            raise RuntimeError(f"Triton refused {entry}: {err.strip()[:300]}") from None
        out[entry] = k.asm["ptx"]
    return out


def _split(text):
    m = _ENTRY.search(text)
    if not m:
        return text, ""
    head = text[:m.start()]
    return head, text[m.start():]


def _norm_head(head):
    """The header without its comments (Triton names the kernel in them)."""
    return "\n".join(t for t in (ln.split("//", 1)[0].strip() for ln in head.splitlines()) if t)


_CLAIM_LINES = (".version", ".target", ".address_size")
_DECL_NAME = re.compile(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?:=.*)?;$")


def merge(ptx_by_entry):
    """One PTX module of several kernels: Triton's claims (.version, .target, .address_size) must be the same for
    each, and its module-scope declarations (global_smem, which a kernel without shared memory lacks) are united;
    ValueError when they differ (the batch is compiled again kernel by kernel)."""
    entries = list(ptx_by_entry)
    claims, decls, names, bodies = None, [], {}, []
    for e in entries:
        head, body = _split(ptx_by_entry[e])
        lines = _norm_head(head).splitlines()
        mine = [ln for ln in lines if ln.startswith(_CLAIM_LINES)]
        if claims is None:
            claims = mine
        elif mine != claims:
            raise ValueError(f"Triton wrote {mine} for {e}, {claims} for {entries[0]}: compiled alone")
        for ln in lines:
            if ln.startswith(_CLAIM_LINES) or ln in decls:
                continue
            m = _DECL_NAME.search(ln)
            if m and m.group(1) in names:
                raise ValueError(f"{e} declares {m.group(1)} as `{ln}`, another kernel as `{names[m.group(1)]}`")
            if m:
                names[m.group(1)] = ln
            decls.append(ln)
        bodies.append(body)
    return "//\n// Triton's modules, one kernel each, in one module (ptxcts)\n//\n\n" + "\n".join(claims + decls) + \
        "\n\n" + "".join(bodies)


def compile_job(arg):
    """The child's job: PTX text of one module from (cc, ptx, [(entry, template, params)])."""
    cc, ptx, kernels = arg
    return merge(compile_kernels(cc, ptx, kernels))


class Instructions(list):
    """The instructions of the case's family a kernel wrote, with the `.version` / `.target` of its module
    (claims) and every chapter instruction of the kernel (all)."""
    claims = None
    all = ()


def header(text):
    v = re.search(r"^\.version (\S+)", text, re.M)
    t = re.search(r"^\.target (\S+)", text, re.M)
    return (v.group(1) if v else None, t.group(1) if t else None)


def chapter_instructions(body):
    out = []
    for ln in body.splitlines():
        t = _PRED.sub("", ln.split("//", 1)[0].strip())
        if t.startswith(_CHAPTER):
            out.append(" ".join(t.split()))
    return out


def shape(instr):
    """An instruction with its registers and immediates masked: two copies of one form are one instruction."""
    return re.sub(r"%\w+|\b0x[0-9a-f]+\b|\b\d+\b", "#", instr)


def extract(text, prefixes_of):
    """{entry: Instructions} of a module; prefixes_of(entry): the instruction under test's opcode prefixes. The
    kernel's instructions starting with them, copies of one instruction (same text but its operands) counted
    once."""
    claims = header(text)
    out = {}
    starts = [(m.group(1), m.start()) for m in _ENTRY.finditer(text)]
    for n, (entry, at) in enumerate(starts):
        end = starts[n + 1][1] if n + 1 < len(starts) else len(text)
        every = chapter_instructions(text[at:end])
        prefixes = prefixes_of(entry)
        picked, seen = Instructions(), set()
        for i in every:
            if i.startswith(prefixes) and shape(i) not in seen:
                seen.add(shape(i))
                picked.append(i)
        picked.claims, picked.all = claims, tuple(every)
        out[entry] = picked
    return out


# ---- the probe -----------------------------------------------------------------------------------------------

_EMPTY = """
@gluon.jit
def ptxcts_empty(p):
    pass
"""


def _probe_cc(arg):
    cc, versions = arg
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    wd = tempfile.mkdtemp(prefix="ptxcts-triton-probe-")
    path = os.path.join(wd, "probe_ptxcts.py")
    with open(path, "w") as f:
        f.write(_PRELUDE + _EMPTY)
    mod = _import_file(path, "ptxcts_triton_probe")
    out = {}
    for v in versions:
        try:
            k = _triton.compile(GluonASTSource(mod.ptxcts_empty, {"p": "*fp32"}, {}), target=GPUTarget("cuda", cc, 32),
                                options={"ptx_version": int(v.replace(".", ""))})
            out[v] = list(header(k.asm["ptx"]))
        except Exception as e:
            out[v] = f"{type(e).__name__}: {str(e).strip().splitlines()[-1][:200] if str(e).strip() else ''}"
    return out


def warm_up():
    """One compile in this process, so the children forked after it start initialised."""
    _probe_cc((90, ["8.6"]))


_lowering = None
# the kernels lowering() compiles: a TMA load without multicast, and a 16-byte async copy asked `.ca`
_LOWERING_KERNELS = [("ptxcts_tma_plain", "tma_load", (("dim", "1"), ("multicast", "0"), ("hint", "0"))),
                     ("ptxcts_ca16", "cp_async", (("cp_size", "16"), ("cop", "ca"), ("prefetch", "")))]


def _lowering_kernel(kernel):
    entry, template, params = kernel
    return compile_kernels(90, "8.6", [(entry, template, params)])[entry]


def lowering():
    """What the loaded Triton writes where releases differ and its Gluon calls do not say, measured once here by
    compiling two kernels (capability 9.0, PTX 8.6), each in a forked child (one that dies or refuses costs its
    fact only): {"tma_load_space": the destination state space of a TMA load without multicast (Triton 3.9.0:
    shared::cta; 3.6.0: shared::cluster), "cp_async_ca16": the cache operator of a 16-byte async copy asked
    cache_modifier `.ca` (3.9.0: ca; 3.6.0: cg, it picks the operator by the copy's width), and for each
    "<key>_instr": the instruction it wrote}; a value is None when the kernel did not compile (the mapping's
    spelling then stands, and the tier judges what the Triton writes for each form)."""
    global _lowering
    if _lowering is not None:
        return _lowering
    from .. import isolate
    out = {"tma_load_space": None, "cp_async_ca16": None}
    answers = isolate.run_many(_lowering_kernel, _LOWERING_KERNELS, jobs=2, timeout=120)
    for (entry, template, params), o in zip(_LOWERING_KERNELS, answers):
        if not o.ok:
            continue
        text = o.value
        for ins in chapter_instructions(text):
            m = re.match(r"cp\.async\.bulk\.tensor\.1d\.(shared::\w+)\.global", ins)
            if m and template == "tma_load":
                out["tma_load_space"], out["tma_load_space_instr"] = m.group(1), ins
            m = re.match(r"cp\.async\.(ca|cg)\.", ins)
            if m and template == "cp_async":
                out["cp_async_ca16"], out["cp_async_ca16_instr"] = m.group(1), ins
    _lowering = out
    return out


def describe(fe, make_doc, log=print, jobs=2):
    from ptxcts_gen import targets as isa_targets
    from framework.toolchains import probe as tc_probe

    from .. import isolate
    load(fe)
    versions = list(isa_targets.PTX_VERSIONS)
    log(f"frontend: probing {fe.name}: Triton {version()}, an empty Gluon kernel per (compute capability, "
        f"ptx_version): {len(PROBE_CCS)} x {len(versions)}")
    warm_up()
    # one child per pair: Triton's LLVM ends the process on a PTX version its target does not take (LLVM ERROR)
    pairs = [(cc, v) for cc in PROBE_CCS for v in versions]
    outs = isolate.run_many(_probe_cc, [(cc, [v]) for cc, v in pairs], jobs=jobs, timeout=120)
    targets, known, refused = {}, set(), {}
    for (cc, v), o in zip(pairs, outs):
        if not o.ok:
            err = next((ln.strip() for ln in o.stderr.splitlines() if "LLVM ERROR" in ln), o.status)
            refused.setdefault(str(cc), {})[v] = err
            continue
        for v, got in o.value.items():
            if isinstance(got, str):
                refused.setdefault(str(cc), {})[v] = got
                continue
            wv, wt = got
            if wv != v or wt is None:
                continue
            row = targets.setdefault(wt, {"ptx": [], "cc": cc})
            if row["cc"] != cc:   # two capabilities writing one target: keep the first, note the other
                row.setdefault("also_cc", []).append(cc)
                continue
            row["ptx"].append(v)
            known.add(v)
    for row in targets.values():
        row["ptx"].sort(key=tc_probe.ptx_key)
        row["min_ptx"], row["max_ptx"] = row["ptx"][0], row["ptx"][-1]
    return make_doc(fe, f"Triton {version()}", sorted(known, key=tc_probe.ptx_key), targets,
                    {"how": "an empty Gluon kernel per (GPUTarget('cuda', CC, 32), ptx_version) in a forked child; "
                            "known when the PTX has that .version; the .target written is the one recorded (Triton "
                            "adds the 'a' suffix itself)", "ccs": list(PROBE_CCS), "refused": refused},
                    {"triton_version": version(), "site": fe.site})
