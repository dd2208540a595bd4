"""`./ptxcts modules --frontend triton|cute-dsl|triton=PATH`: the run tier's kernels, with the instruction under
test as the front-end wrote it.

A Triton (Gluon) or CuTe DSL kernel cannot take the run ABI: its shared buffers and mbarriers sit at offsets the
compiler fixes (the run tier's cases move the destination in the window, args.dst_off, and size it at run time),
its thread that issues an asynchronous copy is elected by the compiler, and its waits are unbounded (the run tier's
bounded wait reports a copy that never completes). So these front-ends are run on silicon this way, the chosen
adaptation: the front-end compiles its own whole kernel for the form (the tier's kernel, engines.engine), the
instruction under test is taken from its PTX as written (opcode and qualifiers in its spelling and order, every
immediate), and put in the run tier's hand-written frame (templates/*.ptx.j2, the kernels `./ptxcts modules`
writes) in place of the hand-written instruction, with the frame's registers for its register operands. What runs
is the front-end's selection (the spelling its compiler chose for the form) under the run tier's protocol, judged
by the reference model; the front-end's code around the instruction does not run.

An instruction is spliced only when (splice_problem) it parses to the form (ptxcts_gen.parse, its normalisation
rules), its operands have the hand-written instruction's shapes (memory operands, vectors, registers, the same
immediates), and the spliced line parses to the form again; a form where it does not is listed in not_written
(`check_failed`, with what differs), as are the forms the front-end cannot express (its mapping's reason), the
targets and versions it does not write, and its refusals and crashes (each kernel compiled alone after its batch
failed). The front-end compiles at the module's PTX ISA version when it writes it, else at the nearest later one
it writes (CuTe DSL: 9.4 only): index.json says which (`frontend.compiled_at`), and every entry carries the
front-end's instruction (`entries.E.written`).
"""
import hashlib
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict

from ptxcts_gen import linemap, parse
from ptxcts_gen.render import TEMPLATES, env, kernel_text

from .. import engines, isolate, resolve, tier
from .. import silicon
from ..judge import EMITTED

KINDS = ("triton", "cute-dsl")
_MAPPING = {"triton": "triton.py", "cute-dsl": "cute_dsl.py"}


# ---- the instruction: the front-end's opcode, the frame's operands ---------------------------------------------

def split_instruction(text):
    """(opcode with its qualifiers, [top-level operand texts]) of one instruction, the `;` and a guard dropped."""
    t = re.sub(r"^@!?%\w+\s+", "", " ".join(text.split()).rstrip(";").strip())
    op, _, rest = t.partition(" ")
    return op, parse.split_operands(rest)


_IMM = re.compile(r"^-?(0[xX][0-9a-fA-F]+|\d+)[uU]?$")


def operand_shape(op):
    """The shape of an operand: ('imm', value), 'reg' (a register or a symbol), ('mem', [shapes]) with the address
    first (a register or symbol, with or without an immediate offset: 'addr'), ('vec', [shapes])."""
    op = op.strip()
    if op.startswith("["):
        inner = parse.split_operands(op[1:-1])
        return ("mem", ["addr"] + [operand_shape(o) for o in inner[1:]])
    if op.startswith("{"):
        return ("vec", [operand_shape(o) for o in parse.split_operands(op[1:-1])])
    if _IMM.match(op):
        return ("imm", int(op.rstrip("uU"), 0))
    return "reg"


def splice_problem(form_id, written, hand, index):
    """(spliced instruction, None) when the front-end's instruction `written` is the form and has the shapes of the
    hand-written one, else (None, what differs)."""
    same, _ = index.same_form(form_id, written)
    if not same:
        return None, f"`{written}` does not parse to {form_id}"
    w_op, w_args = split_instruction(written)
    h_op, h_args = split_instruction(hand)
    ws, hs = [operand_shape(a) for a in w_args], [operand_shape(a) for a in h_args]
    if ws != hs:
        return None, (f"the operands of `{written}` ({len(w_args)}) do not have the shapes of the frame's "
                      f"`{hand}` ({len(h_args)}): {ws} vs {hs}")
    spliced = f"{w_op} {', '.join(h_args)};" if h_args else f"{w_op};"
    if not index.same_form(form_id, spliced)[0]:
        return None, f"the spliced `{spliced}` does not parse to {form_id}"
    return spliced, None


class Framed:
    """A form whose instruction under test is another text (the spliced one); everything else the form's."""

    def __init__(self, form, instr):
        self._form, self.instr = form, instr

    def __getattr__(self, name):
        return getattr(self._form, name)


# ---- provenance -------------------------------------------------------------------------------------------------

def _sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def made_from(root, kind):
    """sha256 of what the kernels are made from: the manifest's forms, the run contract, the hand-written frame
    templates, the front-end's mapping, its engine (the kernels it compiles) and this splice."""
    tpl = hashlib.sha256()
    for name in sorted(os.listdir(TEMPLATES)):
        if name.endswith(".ptx.j2"):
            with open(os.path.join(TEMPLATES, name), "rb") as f:
                tpl.update(name.encode() + b"\0" + f.read() + b"\0")
    here = os.path.dirname(os.path.abspath(__file__))
    eng = hashlib.sha256()
    for pkg in (os.path.join(os.path.dirname(here), kind.replace("-", "_")), here):   # its engine, and the splice
        for name in sorted(os.listdir(pkg)):
            if name.endswith(".py"):
                with open(os.path.join(pkg, name), "rb") as f:
                    eng.update(os.path.basename(pkg).encode() + b"/" + name.encode() + b"\0" + f.read() + b"\0")
    return {"forms_jsonl_sha256": _sha256(os.path.join(root, "generated", "manifest", "forms.jsonl")),
            "run_contract_sha256": _sha256(os.path.join(root, "generated", "contract", "run_contract.hpp")),
            "frame_templates_sha256": tpl.hexdigest(),
            "mapping_sha256": _sha256(os.path.join(root, "generator", "ptxcts_gen", "frontends", _MAPPING[kind])),
            "engine_sha256": eng.hexdigest()}


# ---- the verb ---------------------------------------------------------------------------------------------------

def compiled_at(fe, target, ptx):
    """(target, PTX ISA version, None) the front-end compiles the kernels of the run tier's `target` at, or (None,
    None, why none): the target itself, else its arch-specific variant (Triton writes `.target sm_90a` for
    capability 9.0: it adds the `a` itself, and writes no plain sm_90); the module's version, else the nearest
    later one the front-end writes there (CuTe DSL: 9.4 only)."""
    why = None
    for t in (target, target + "a"):
        row = fe.description["targets"].get(t)
        if fe.why_not(t, ptx) is None:
            return t, ptx, None
        why = why or fe.why_not(t, ptx)
        later = sorted((v for v in (row or {}).get("ptx", ()) if float(v) > float(ptx)), key=float)
        if later:
            return t, later[0], None
    return None, None, why


def write_modules(a, forms, info, target, out, write, root, stream=sys.stderr, make_out=None, fe=None):
    """Write the modules and index.json into out (silicon.write_modules's contract, its index format and reasons).
    Returns the exit status."""
    t0 = time.monotonic()
    fe = fe or resolve(a.frontend)
    for n in fe.notes:
        stream.write(f"modules: note: {n}\n")
    eng = engines.engine(fe)
    rc = make_out() if make_out else os.makedirs(out, exist_ok=True)
    if rc:
        return rc
    not_written, todo = {}, defaultdict(list)
    fe_target, fe_ptx, why_target = compiled_at(fe, target, a.ptx)
    for f in forms:
        if info[f.id]:
            silicon._skip(not_written, f, silicon.INVALID, f"invalid at {target} / PTX {a.ptx} (rules "
                                                           f"{', '.join(info[f.id])}): the run tier runs valid forms only")
            continue
        s = eng.spell(f)
        if not hasattr(s, "callee"):
            silicon._skip(not_written, f, silicon.UNEXPRESSIBLE, s.reason)
        elif why_target:
            silicon._skip(not_written, f, silicon.NOT_SUPPORTED, why_target)
        else:
            todo[f.family].append(f)
    n = sum(len(v) for v in todo.values())
    stream.write(f"modules: {fe.name} ({fe.description.get('version_string')}) compiles {n} of {len(forms)} kernels "
                 f"for {fe_target} at PTX {fe_ptx}, framed for {target} at PTX {a.ptx}; {len(not_written)} it cannot write\n")
    pool = isolate.Zygote(eng.compile, jobs=max(1, getattr(a, "jobs", 0) or os.cpu_count() or 1))
    try:
        from framework.progress import Progress
        prog = Progress(n, stream=stream, label="modules", unit="kernels", quiet=getattr(a, "quiet", False))
        written, stats = _compile(eng, pool, todo, fe_target, fe_ptx, prog)
    finally:
        pool.close()
    doc = _index(fe, forms, written, target, a, (fe_target, fe_ptx), not_written, out, write, root)
    doc["frontend"]["stats"] = dict(stats, seconds=round(time.monotonic() - t0, 2))
    write(os.path.join(out, "index.json"), json.dumps(doc, indent=1, sort_keys=True) + "\n")
    silicon.summary(doc, forms, stream)
    return 0


def _compile(eng, pool, todo, target, ptx, prog):
    """{entry: Emission} of every form of todo: batches of the engine's size per family, each kernel of a batch
    that failed compiled alone."""
    size = getattr(eng, "batch_size", None) or 32
    jobs = []
    for fam, ff in sorted(todo.items()):
        for i in range(0, len(ff), size):
            jobs.append([f.entry for f in ff[i:i + size]])
    got, retry, stats = {}, [], Counter(batches=len(jobs))

    def runner(job_list, alone):
        def done(i, outcome):
            entries = job_list[i]
            if not outcome.ok and not alone and len(entries) > 1:
                stats["batches_that_died"] += 1
                retry.extend([e] for e in entries)
                return
            got.update(tier.emissions_from(outcome, entries, eng.extract, alone))
            prog.advance(len(entries))
        pool.run_many([eng.build(target, ptx, es) for es in job_list], done=done)
    runner(jobs, False)
    if retry:
        stats["compiled_alone"] = len(retry)
        again = list(retry)
        retry.clear()
        runner(again, True)
    return got, stats


def _index(fe, forms, got, target, a, fe_at, not_written, out, write, root):
    from ptxcts_gen import load_forms
    index = parse.FormIndex(load_forms())
    doc = {"target": target, "ptx": a.ptx, "modules": {}, "module_headers": {}, "entries": {},
           "made_from": made_from(root, fe.kind)}
    by_fam = defaultdict(list)
    for f in forms:
        em = got.get(f.entry)
        if em is None:
            continue
        if em.status != EMITTED:
            kind = silicon.REFUSED if em.status == "refused" else silicon.CRASHED
            silicon._skip(not_written, f, kind, f"{fe.name} did not write the kernel ({em.status}): {em.message}")
            continue
        spliced, problems = None, []
        for w in em.instructions:
            spliced, why = splice_problem(f.id, w, f.instr, index)
            if spliced:
                break
            problems.append(why)
        if not spliced:
            silicon._skip(not_written, f, silicon.MISCOMPILED,
                          "; ".join(problems) or f"{fe.name} wrote no instruction of the form's family")
            continue
        by_fam[f.family].append((Framed(f, spliced), w))
    chunk = a.max_entries or 0
    for fam, items in sorted(by_fam.items()):
        parts = [items[i:i + chunk] for i in range(0, len(items), chunk)] if chunk else [items]
        for ci, part in enumerate(parts):
            name = f"{fam}.ptx" if len(parts) == 1 else f"{fam}.{ci:03d}.ptx"
            entries = [kernel_text(g) for g, _ in part]
            text = env().get_template("module.ptx.j2").render(target=target, ptx=a.ptx, entries=entries,
                                                             count=len(entries), family=fam)
            text = "\n".join(ln.rstrip() for ln in text.splitlines()) + "\n"
            write(os.path.join(out, name), text)
            lines = text.split("\n")
            mapped = linemap.entries(lines)
            doc["modules"][name] = [g.entry for g, _ in part]
            doc["module_headers"][name] = linemap.header(lines, mapped)
            by_entry = {g.entry: (g, w) for g, w in part}
            for e in mapped:
                g, w = by_entry[e.kernel]
                doc["entries"][e.kernel] = dict({"form": g.id, "family": g.family, "module": name,
                                                 "expect": "accept", "rules": [], "written": w,
                                                 "spliced": g.instr}, **linemap.index_entry(e))
    d = fe.description
    doc["not_written"] = {k: not_written[k] for k in sorted(not_written)}
    doc["frontend"] = {
        "name": fe.name, "kind": fe.kind, "spec": fe.spec, "version_string": d.get("version_string"),
        "library_sha256": d.get("library_sha256"), "paired_ptxas": fe.ptxas_toolchain,
        "compiled_at": {"target": fe_at[0], "ptx": fe_at[1]},
        "frame": "templates/*.ptx.j2 (the run tier's hand-written kernels); the instruction under test is the "
                 "front-end's (entries.E.written), its register operands the frame's (entries.E.spliced)"}
    return doc


def made_from_of(root):
    """check-modules' made_from per front-end kind: this module's for the framed kinds, else silicon's."""
    return lambda kind: made_from(root, kind) if kind in KINDS else silicon.made_from(root)
