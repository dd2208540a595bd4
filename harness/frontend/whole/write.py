"""`./ptxcts frontend whole-write --frontend triton|triton=PATH --out DIR`: Triton's whole kernels for the forms of
a target (default sm_90a) compiled by that Triton end to end (its own ptxas: the cubin its users would run), each
checked to hold the form's instruction, with the launch and the model's expected bytes, into DIR (index.json, one
.cubin and .ptx per kernel). Needs no GPU; `whole-run DIR` runs the folder on one.

A form gets a kernel when it is valid at the target and PTX version, the mapping spells it for Triton, the
Triton's Gluon has the calls (backend.missing_api) and kernels.py writes its whole kernel; every other form is
listed in `not_written` with its reason. The kernel's case is the form whose instruction the PTX holds (the
instruction under test parsed by ptxcts_gen.parse): a Triton that writes another form for the kernel (Triton 3.6:
a TMA load into .shared::cluster) is judged on that one, and two kernels of one written form keep the first.
"""
import importlib.util
import os
import re
import subprocess
import tempfile
import time

from framework.progress import Progress
from ptxcts_gen import load_forms, parse
from ptxcts_gen.frontends import Spelling

from .. import FrontendError, resolve
from ..errors import MALFORMED, USAGE
from ..triton import backend as tb
from . import expect, kernels
from .folder import FORMAT, TRIVIAL, can_fail, hex_of, save

_ENTRY_PARAMS = re.compile(r"\.entry\s+(\w+)\s*\(([^)]*)\)", re.S)


def api():
    """backend.api() and what differs between Triton releases for the whole kernels: the shared-memory view's name
    (3.6 `_reinterpret`, 3.9 `reinterpret`), the CTA barrier's (3.6 `thread_barrier`, 3.9 `barrier`) and the L2
    hint's spelling."""
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language import _core
    a = dict(tb.api())
    a["reinterpret"] = "reinterpret" if hasattr(_core.shared_memory_descriptor, "reinterpret") else "_reinterpret"
    a["barrier"] = "barrier" if hasattr(gl, "barrier") else "thread_barrier"
    a["hint"] = tb._HINT
    return a


def abi_params(case, ptx_text, entry):
    """The .param count Triton's ABI gives the case's arguments (cudadrv's docstring), checked against the PTX."""
    n = 2   # the global and profile scratch pointers
    for arg in case.args:
        n += 1 + 2 * len(arg["shape"]) if arg["kind"] == "tensordesc" else 1
    m = next((m for m in _ENTRY_PARAMS.finditer(ptx_text) if m.group(1) == entry), None)
    got = len(re.findall(r"\.param\b", m.group(2))) if m else -1
    return n, got


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _ptx_int(ptx):
    return int(ptx.replace(".", ""))


def select(target, ptx, mapping, a):
    """([(form, Case)], {form ID: reason}) of the target's forms."""
    from ..run import form_valid_at
    forms = {f.id: f for f in load_forms()}
    chosen, skipped = [], {}
    for f in forms.values():
        if f.family not in mapping.FAMILIES or not form_valid_at(forms, f.id, target, ptx):
            continue
        s = mapping.spell(f)
        if not isinstance(s, Spelling):
            skipped[f.id] = f"unexpressible: {s.reason}"
            continue
        why = tb.missing_api(s.callee, s.args)
        if why:
            skipped[f.id] = f"not_supported: {why}"
            continue
        try:
            chosen.append((f, kernels.whole_case(f.entry, s.callee, s.args, a)))
        except kernels.NotWritten as e:
            skipped[f.id] = f"not_written: {e}"
    return forms, chosen, skipped


def write(a, root):
    t0 = time.monotonic()
    fe = resolve(a.frontend)
    if fe.kind == "cute-dsl":
        from .cute_write import write as cute_write
        return cute_write(a, root)
    if fe.kind != "triton":
        raise FrontendError(f"--frontend {fe.name}: whole kernels are written for Triton (triton, triton=PATH) and "
                            "the CuTe DSL (cute-dsl) only", USAGE)
    ref = expect.ref_path(root)
    tb.load(fe, disarm=False)
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource
    from ptxcts_gen.frontends import triton as mapping
    cc = int(a.target[3:].rstrip("af"))
    forms, chosen, skipped = select(a.target, a.ptx, mapping, api())
    index = parse.FormIndex(forms.values())
    os.makedirs(a.out, exist_ok=True)
    wd = tempfile.mkdtemp(prefix="ptxcts-whole-")
    path = os.path.join(wd, "whole_kernels_ptxcts.py")
    with open(path, "w") as fh:
        fh.write(tb._PRELUDE + "".join(c.source for _, c in chosen))
    mod = _import(path, f"ptxcts_whole_{os.getpid()}")
    cases, refused, seen = [], {}, {}
    prog = Progress(len(chosen), label="whole-write", unit="kernels", quiet=a.quiet)
    for f, c in chosen:
        prog.advance(1)
        opts = dict(c.options, ptx_version=_ptx_int(a.ptx))
        try:
            k = tb._triton.compile(GluonASTSource(getattr(mod, c.entry), c.signature, {}, c.attrs),
                                   target=GPUTarget("cuda", cc, 32), options=opts)
        except Exception as e:   # Triton's refusal (or its ptxas's) is the case's verdict
            lines = [ln for ln in str(e).splitlines() if ln.strip()]
            refused[f.id] = next((ln for ln in lines if "error" in ln.lower()), lines[-1] if lines else
                                 type(e).__name__).strip()[:400]
            continue
        ptx_text = k.asm["ptx"]
        if not k.asm.get("cubin"):
            raise FrontendError(f"{fe.name}: Triton wrote no cubin for {c.entry} (its ptxas step is replaced in this "
                                "process)", MALFORMED)
        body = ptx_text[ptx_text.find(".entry"):]
        under = [i for i in tb.chapter_instructions(body) if i.startswith(mapping.under_test(f))]
        written = None
        for ins in under:
            p = index.parse(ins)
            if f.id in p.forms:
                written = (f.id, ins)
                break
            if p.forms and written is None:
                written = (p.forms[0], ins)
        if written is None:
            skipped[f.id] = (f"check_failed: the kernel holds no instruction of the form's family that parses "
                             f"({under[:2]})")
            continue
        form_id, instr = written
        if form_id in seen:
            skipped[f.id] = f"same_as: this Triton writes {instr} ({form_id}), judged with {seen[form_id]}"
            continue
        want, got = abi_params(c, ptx_text, c.entry)
        if want != got:
            skipped[f.id] = f"abi: {got} kernel parameters, the launcher knows {want}"
            continue
        md = k.metadata
        meta = {"shared": md.shared, "num_warps": md.num_warps, "num_ctas": md.num_ctas,
                "global_scratch_size": md.global_scratch_size, "profile_scratch_size": md.profile_scratch_size,
                "tensordesc": [dict(x) for x in (getattr(md, "tensordesc_meta", None) or [])]}
        elem_type = meta["tensordesc"][0]["elem_type"] if meta["tensordesc"] else None
        values, rule = expect.expected(ref, c, elem_type)
        if not can_fail(c, values):
            skipped[f.id] = TRIVIAL
            continue
        seen[form_id] = f.id
        for ext, data in (("ptx", ptx_text.encode()), ("cubin", k.asm["cubin"])):
            with open(os.path.join(a.out, f"{c.entry}.{ext}"), "wb") as fh:
                fh.write(data)
        cases.append({"form": form_id, "asked": f.id, "entry": c.entry, "template": c.template, "params": c.params,
                      "instruction": instr, "meta": meta, "args": c.args,
                      "buffers": {b: {"elem": v["elem"], "init": hex_of(v["init"], v["elem"])}
                                  for b, v in c.buffers.items()},
                      "expect": {b: hex_of(v, c.buffers[b]["elem"]) for b, v in values.items()}, "rule": rule,
                      "source": c.source.strip()})
    doc = {"format": FORMAT, "version": 1, "frontend": fe.name, "compiler": f"Triton {tb.version()}",
           "ptxas": _ptxas_version(cc),
           "target": a.target, "ptx": a.ptx, "cases": cases, "refused": refused, "not_written": skipped}
    kinds = save(a.out, doc)
    print(f"whole-write: {fe.name} (Triton {tb.version()}, its ptxas {doc['ptxas']}) {a.target} PTX {a.ptx}: "
          f"{len(cases)} kernels, {len(refused)} refused by Triton, not written: {kinds}; "
          f"{time.monotonic() - t0:.1f} s")
    return 0


def _ptxas_version(cc):
    """The version and path of the ptxas this Triton assembles with for cc (its own, or TRITON_PTXAS_PATH's)."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas
        path = get_ptxas(cc).path
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60).stdout
        m = re.search(r"V(\d+\.\d+\.\d+)", out)
        return f"{m.group(1) if m else '?'} ({path})"
    except Exception as e:
        return f"unknown ({type(e).__name__}: {e})"
