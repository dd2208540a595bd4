"""Whole run-tier kernels written by a front-end: `./ptxcts modules --frontend llvm-22 ...`.

The run tier loads, for every form it runs, a kernel whose ABI (args words, tensor map by value, dynamic shared
window) and protocol (window set-up, mbarrier, fences, syncs, bounded wait, self-checks, dump) templates/frame.ptx.j2
and the family templates write by hand. Here the same kernels are written as LLVM IR (templates/llvm/*.ll.j2, one
per family template) around the form's spelling (ptxcts_gen.frontends.llvm: the instruction under test is the
mapping's intrinsic call, never inline asm) and compiled by LLVM's NVPTX back-end, one LLVM module per output file,
in a forked child (isolate.Zygote); when a module's child dies, each of its kernels is compiled alone and the
module is written again from those that compile. Every kernel is checked before it is listed (check_entry): its
parameters are the run ABI's, its protocol (the ordered mbarrier, fence, barrier, mapa, createpolicy, cp.* and
store instructions: the frame's group commits and waits among them) is the hand-written kernel's, and where the
hand-written kernel has the instruction under test it has an instruction that parses (ptxcts_gen.parse) to its
form. A form that is not written is listed in the index with its reason.

The folder holds the modules and index.json in the format `./ptxcts modules` writes (the run tier's scan_modules
reads `modules`: file -> entry names), plus `not_written`, `frontend` (provenance: front-end, library version and
sha256, paired ptxas, PTX features, inline asm companions) and `made_from` (sha256 of the manifest, the run
contract, the templates and the mapping, so that a prebuilt folder made from another tree is refused:
check_folder, `./ptxcts frontend check-modules`).
"""
import glob
import hashlib
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict

from ptxcts_gen import linemap, parse
from ptxcts_gen.frontends import MappingError, Spelling
from ptxcts_gen.render import TEMPLATES, env, kernel_config, kernel_text

from . import FrontendError, isolate, llvm_backend, resolve, tier
from .kernel_check import check_entry
from .errors import MALFORMED

LLVM_TEMPLATES = os.path.join(TEMPLATES, "llvm")
# why a form has no kernel (the `kind` of a not_written entry)
UNEXPRESSIBLE, NOT_SUPPORTED, NO_FRAME, INVALID, REFUSED, CRASHED, MISCOMPILED = (
    "unexpressible", "not_supported", "frame_not_written", "invalid_here", "refused", "crashed", "check_failed")
INLINE_ASM_MARK = "; ptxcts:inline-asm-companion "
_DECL_CALL = re.compile(r"call (\S+) @(llvm\.nvvm\.[\w.]+)\((.*)\)")


def template_of(form):
    """The LLVM IR template of a form's family template (copy.ptx.j2 -> llvm/copy.ll.j2), or None when none is
    written yet."""
    name = os.path.join("llvm", form.template.replace(".ptx.j2", ".ll.j2"))
    return name if os.path.exists(os.path.join(TEMPLATES, name)) else None


def call_text(s):
    """The IR call of a Spelling: its operands name the frame's values of their roles."""
    return f"call void @{s.callee}({', '.join(f'{ty} {v}' for ty, v in s.args)})"


def kernel_ir(form, s):
    """The IR text of the form's whole kernel around the spelling s."""
    text = env().get_template(template_of(form)).render(k=kernel_config(form), call=call_text(s), q=form.quals,
                                                        r=form.run, f=form)
    return "\n".join(ln.rstrip() for ln in text.splitlines() if ln.strip()) + "\n"


def declarations(texts, known):
    """The `declare` lines of every llvm.nvvm.* intrinsic the kernels call, from the calls themselves; MappingError
    for a name the library does not carry (a call to it would silently become an external function call)."""
    decls = {}
    for text in texts:
        for ret, name, args in _DECL_CALL.findall(text):
            if name not in known:
                raise MappingError(f"templates/llvm: {name} is not an intrinsic LLVM knows (the library's list, "
                                   "toolchains/<front-end>.json, does not have it)")
            types = ", ".join(a.rsplit(" ", 1)[0] for a in args.split(", ")) if args else ""
            decls[name] = f"declare {ret} @{name}({types})"
    return [decls[n] for n in sorted(decls)]


def module_ir(items, family, known):
    """One IR module of [(form, spelling)]."""
    texts = [kernel_ir(f, s) for f, s in items]
    return env().get_template("llvm/module.ll.j2").render(
        kernels=texts, mbars=[f.entry for f, _ in items], declarations=declarations(texts, known), family=family)


def inline_asm(ir_text):
    """[(instruction, entry)] of the marked inline asm companions of a module's IR; MappingError for an inline asm
    statement without the mark (only a frame companion LLVM has no intrinsic for may be inline asm)."""
    out, entry, marked = [], None, None
    for ln in ir_text.splitlines():
        m = re.match(r"define ptx_kernel void @(\w+)\(", ln)
        if m:
            entry = m.group(1)
        s = ln.strip()
        if s.startswith(INLINE_ASM_MARK):
            marked = s[len(INLINE_ASM_MARK):]
            continue
        if " asm " in s:
            if marked is None:
                raise MappingError(f"templates/llvm: {entry}: inline asm without the `{INLINE_ASM_MARK.strip()}` "
                                   f"mark: {s}")
            out.append((marked, entry))
        marked = None
    return out


# ---- provenance -------------------------------------------------------------------------------------------------

def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def made_from(root):
    """sha256 of what the kernels are made from: the manifest's forms, the run contract, the LLVM templates and the
    LLVM mapping (the instruction under test)."""
    tpl = hashlib.sha256()
    for p in sorted(glob.glob(os.path.join(LLVM_TEMPLATES, "*.ll.j2"))):
        with open(p, "rb") as f:
            tpl.update(os.path.basename(p).encode() + b"\0" + f.read() + b"\0")
    return {"forms_jsonl_sha256": _sha256(os.path.join(root, "generated", "manifest", "forms.jsonl")),
            "run_contract_sha256": _sha256(os.path.join(root, "generated", "contract", "run_contract.hpp")),
            "llvm_templates_sha256": tpl.hexdigest(),
            "llvm_mapping_sha256": _sha256(os.path.join(root, "generator", "ptxcts_gen", "frontends", "llvm.py"))}


def check_folder(folder, root, target=None, ptx=None, made_from_of=None):
    """The index of a folder `modules --frontend` wrote, when it can be used as it is: made from the manifest, run
    contract and templates of this tree (made_from), for target / ptx when given, every module present. A
    FrontendError (exit 3) naming what differs otherwise (a prebuilt folder of another tree is refused, never run).
    Needs no front-end library: the GPU runner checks a folder written elsewhere. made_from_of(kind): the made_from
    of this tree for the front-end kind that wrote the folder (default: this module's, the LLVM kernels')."""
    path = os.path.join(folder, "index.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise FrontendError(f"{path}: {e.strerror} (write the folder with ./ptxcts modules --frontend NAME)",
                            MALFORMED) from None
    except ValueError as e:
        raise FrontendError(f"{path}: not JSON: {e}", MALFORMED) from None
    for k, kind in (("modules", dict), ("entries", dict), ("not_written", dict), ("frontend", dict),
                    ("made_from", dict), ("target", str), ("ptx", str)):
        if not isinstance(doc.get(k), kind):
            raise FrontendError(f"{path}: field {k!r}: missing or not a JSON {'object' if kind is dict else 'string'}"
                                " (not a folder `./ptxcts modules --frontend` wrote)", MALFORMED)
    redo = (f"write it again: ./ptxcts modules --frontend {doc['frontend'].get('name')} --target {doc['target']} "
            f"--ptx {doc['ptx']} --valid-only --out DIR")
    here = (made_from_of or (lambda _kind: made_from(root)))(doc["frontend"].get("kind"))
    for k, v in sorted(here.items()):
        if doc["made_from"].get(k) != v:
            raise FrontendError(f"{folder} is stale: {k} is {str(doc['made_from'].get(k))[:12]} there, "
                                f"{v[:12]} in this tree; {redo}", MALFORMED)
    for k, want in (("target", target), ("ptx", ptx)):
        if want is not None and doc[k] != want:
            raise FrontendError(f"{folder} holds kernels for {k} {doc[k]}, not {want}; {redo}", MALFORMED)
    for name, entries in doc["modules"].items():
        if not os.path.exists(os.path.join(folder, name)):
            raise FrontendError(f"{path}: module {name} is not in {folder}", MALFORMED)
        if not isinstance(entries, list) or not all(isinstance(e, str) for e in entries):
            raise FrontendError(f"{path}: modules.{name}: not a list of entry names", MALFORMED)
    return doc


# ---- the verb ---------------------------------------------------------------------------------------------------

class _Job:
    """One output module: its file name, family and [(form, spelling)]; ir and ptx once rendered and compiled."""

    def __init__(self, name, family, items):
        self.name, self.family, self.items = name, family, items
        self.ir = self.ptx = None


def write_modules(a, forms, info, target, out, write, root, stream=sys.stderr, make_out=None, fe=None):
    """Write the front-end's modules and index.json into out (fe: the front-end, resolved from a.frontend when None). forms: the forms selected (model.Form); info: {form
    ID: rules it breaks at target/ptx}; write(path, text): the writer of the modules folder; make_out(): creates
    out once the front-end is known to load (None or an exit status). Returns the exit status."""
    t0 = time.monotonic()
    fe = fe or resolve(a.frontend)
    if fe.kind not in ("llvm", "triton-llvm"):
        raise FrontendError(f"--frontend {fe.name}: whole kernels are written for LLVM front-ends only (this one "
                            f"is {fe.kind})")
    for n in fe.notes:
        stream.write(f"modules: note: {n}\n")
    known = set(fe.description.get("intrinsics") or ())
    if not known:
        raise FrontendError(f"toolchains/{fe.name}.json lists no intrinsic names: probe it again (./ptxcts frontend "
                            f"probe {fe.name})", MALFORMED)
    from .engines import LlvmEngine, TritonLlvmEngine
    if fe.kind == "triton-llvm":   # the LLVM inside Triton: the same IR, compiled by libtriton's translate_to_asm
        llvm_backend.TritonLlvm.load(fe)
        compile_fn = TritonLlvmEngine.compile
    else:
        llvm_backend.load(fe)
        compile_fn = LlvmEngine.compile
    rc = make_out() if make_out else os.makedirs(out, exist_ok=True)
    if rc:
        return rc
    pool = isolate.Zygote(compile_fn, jobs=max(1, getattr(a, "jobs", 0) or os.cpu_count() or 1))
    try:
        not_written = {}
        jobs = _jobs(a, fe, known, forms, info, target, not_written)
        n = sum(len(j.items) for j in jobs)
        stream.write(f"modules: {fe.name} ({fe.description.get('version_string')}) compiles {n} of {len(forms)} "
                     f"kernels for {target} PTX {a.ptx} in {len(jobs)} modules; {len(not_written)} it cannot write\n")
        from framework.progress import Progress
        prog = Progress(n, stream=stream, label="modules", unit="kernels", quiet=getattr(a, "quiet", False))
        stats = _compile(pool, jobs, fe, known, target, a.ptx, not_written, prog)
    finally:
        pool.close()
    doc = _index(jobs, fe, target, a.ptx, not_written, out, write, root)
    doc["frontend"]["stats"] = dict(stats, seconds=round(time.monotonic() - t0, 2))
    write(os.path.join(out, "index.json"), json.dumps(doc, indent=1, sort_keys=True) + "\n")
    summary(doc, forms, stream)
    return 0


def _skip(not_written, f, kind, reason):
    not_written[f.id] = {"kernel": f.entry, "family": f.family, "kind": kind, "reason": reason}


def _jobs(a, fe, known, forms, info, target, not_written):
    """The output modules of the forms that have a spelling and a frame, chunked per family as the hand-written
    modules are (--max-entries); every other form into not_written with its reason."""
    from ptxcts_gen.frontends import llvm as mapping
    why_target = fe.why_not(target, a.ptx)
    by_fam = defaultdict(list)
    for f in forms:
        if info[f.id]:
            _skip(not_written, f, INVALID, f"invalid at {target} / PTX {a.ptx} (rules {', '.join(info[f.id])}): the "
                                           "run tier runs valid forms only")
            continue
        s = mapping.spell(f, known)
        if not isinstance(s, Spelling):
            _skip(not_written, f, UNEXPRESSIBLE, s.reason)
        elif why_target:
            _skip(not_written, f, NOT_SUPPORTED, why_target)
        elif template_of(f) is None:
            _skip(not_written, f, NO_FRAME, f"frame not written for LLVM yet (no templates/llvm/"
                                            f"{f.template.replace('.ptx.j2', '.ll.j2')})")
        else:
            by_fam[f.family].append((f, s))
    jobs = []
    for fam, items in sorted(by_fam.items()):
        n = a.max_entries or len(items)
        chunks = [items[i:i + n] for i in range(0, len(items), n)]
        for ci, chunk in enumerate(chunks):
            jobs.append(_Job(f"{fam}.ptx" if len(chunks) == 1 else f"{fam}.{ci:03d}.ptx", fam, chunk))
    for j in jobs:
        j.ir = module_ir(j.items, j.family, known)
    return jobs


def _compile(pool, jobs, fe, known, target, ptx, not_written, prog):
    """Each job's PTX (job.ptx), one child per module; a module whose child died: each kernel alone, then the module
    again from those that compiled (a refusal or crash costs its own kernel, listed in not_written)."""
    stats, died = Counter(), []

    def done(i, o):
        if o.ok:
            jobs[i].ptx = o.value
            prog.advance(len(jobs[i].items))
        else:
            stats["modules_that_died"] += 1
            died.append(jobs[i])
    pool.run_many([(j.ir, target, ptx) for j in jobs], done=done)
    singles = [(j, f, s) for j in died for f, s in j.items]
    stats["compiled_alone"] = len(singles)
    answers = pool.run_many([(module_ir([(f, s)], j.family, known), target, ptx) for j, f, s in singles]) \
        if singles else []
    survivors = defaultdict(list)
    for (j, f, s), o in zip(singles, answers):
        if o.ok:
            survivors[j.name].append((f, s))
        elif tier.refusal(o):   # the front-end's own diagnostic (LLVM ERROR ..., a verifier error)
            _skip(not_written, f, REFUSED, f"{fe.name} refused the whole kernel: {tier.refusal(o)}")
        else:
            tail = " | ".join(ln.strip() for ln in o.stderr.strip().splitlines()[-3:])
            _skip(not_written, f, CRASHED, f"{fe.name} died compiling the whole kernel ({o.status}): {tail}")
        prog.advance(1)
    for j in died:
        j.items = survivors[j.name]
        if not j.items:
            continue
        j.ir = module_ir(j.items, j.family, known)
        (again,) = pool.run_many([(j.ir, target, ptx)])
        if again.ok:
            j.ptx = again.value
        else:
            for f, _ in j.items:
                _skip(not_written, f, CRASHED, f"{fe.name} compiled the kernel alone but not in a module with the "
                                               f"others ({again.status})")
    return stats


def _index(jobs, fe, target, ptx, not_written, out, write, root):
    """Check every compiled entry (check_entry), write the modules that hold a checked one, and return the index."""
    from ptxcts_gen import load_forms
    index = parse.FormIndex(load_forms())
    doc = {"target": target, "ptx": ptx, "modules": {}, "module_headers": {}, "entries": {}, "made_from":
           made_from(root)}
    asm = defaultdict(list)
    for j in jobs:
        if j.ptx is None or not j.items:
            continue
        lines = j.ptx.split("\n")
        mapped = {e.kernel: e for e in linemap.entries(lines)}
        listed = []
        for f, _ in j.items:
            e = mapped.get(f.entry)
            if e is None:
                _skip(not_written, f, MISCOMPILED, f"{fe.name}'s module has no entry {f.entry}")
                continue
            problem, test = check_entry(f, "\n".join(lines[e.entry - 1:e.last]), index, kernel_text(f))
            if problem:
                _skip(not_written, f, MISCOMPILED, problem)
                continue
            listed.append(f.entry)
            doc["entries"][f.entry] = {"form": f.id, "family": f.family, "module": j.name, "expect": "accept",
                                       "rules": [], "line_first": e.entry, "line_last": e.close,
                                       "test_lines": [e.entry + test]}
        for instr, entry in inline_asm(j.ir):
            if entry in listed:
                asm[instr].append(entry)
        if listed:
            write(os.path.join(out, j.name), j.ptx)
            doc["modules"][j.name] = listed
            doc["module_headers"][j.name] = linemap.header(lines, list(mapped.values()))
    d = fe.description
    doc["not_written"] = {k: not_written[k] for k in sorted(not_written)}
    doc["frontend"] = {
        "name": fe.name, "kind": fe.kind, "version_string": d.get("version_string"),
        "library_sha256": d.get("library_sha256"), "paired_ptxas": fe.ptxas_toolchain, "cpu": target,
        "features": llvm_backend.features(ptx), "templates": "templates/llvm",
        "inline_asm_companions": {k: {"reason": INLINE_ASM_REASONS.get(k, "no llvm.nvvm intrinsic writes it"),
                                      "entries": sorted(v)} for k, v in sorted(asm.items())}}
    return doc


# the inline asm companions of templates/llvm/frame.ll.j2 and why each is not an intrinsic call
INLINE_ASM_REASONS = {
    "createpolicy.fractional.L2::evict_last.b64": "LLVM 22 has no llvm.nvvm intrinsic for createpolicy (the cache "
                                                  "policy operand of the .L2::cache_hint forms)",
    "ld.global.cg.v4.u32": "LLVM 22 has no llvm.nvvm intrinsic or IR load that writes the .cg cache operator (the "
                           "self-check frames probe a destination's last bytes from L2, no stale L1 line)",
}


def summary(doc, forms, stream):
    """Forms written / selected per family, and the reasons for the rest (counted)."""
    sel = Counter(f.family for f in forms)
    wrote = Counter(e["family"] for e in doc["entries"].values())
    kinds = defaultdict(Counter)
    for v in doc["not_written"].values():
        kinds[v["family"]][v["kind"]] += 1
    cols = (UNEXPRESSIBLE, NOT_SUPPORTED, NO_FRAME, INVALID, REFUSED, CRASHED, MISCOMPILED)
    w = stream.write
    w(f"\n  {'family':30} {'selected':>8} {'written':>7}" + "".join(f" {c:>{len(c)}}" for c in cols) + "\n")
    tot = Counter()
    for fam in sorted(sel):
        row = Counter({"selected": sel[fam], "written": wrote[fam], **kinds[fam]})
        tot.update(row)
        w(f"  {fam:30} {row['selected']:>8} {row['written']:>7}" + "".join(f" {row[c]:>{len(c)}}" for c in cols) + "\n")
    w(f"  {'total':30} {tot['selected']:>8} {tot['written']:>7}" + "".join(f" {tot[c]:>{len(c)}}" for c in cols) + "\n")
    reasons = Counter(v["reason"] for v in doc["not_written"].values())
    for r, n in reasons.most_common():
        w(f"  {n:5d} x {r}\n")
    w(f"{len(doc['modules'])} modules, {len(doc['entries'])} entries written by {doc['frontend']['name']} for "
      f"{doc['target']} PTX {doc['ptx']} ({doc['frontend']['stats']['seconds']} s)\n")
