"""The version and target guard check (`./ptxcts frontend run --guard`): every form the front-end can express, asked
at every (target, PTX ISA version) pair its description says it writes, not only at the manifest's pairs.

The manifest places a form's cases at the edges of its requirements (the newest version below its minimum, the
minimum); a front-end's guard can be wrong at any version it offers. For each kernel the mapping writes (forms
with one spelling share it; the tensor families' dimension is left to the manifest's cases, as no requirement of
the chapter depends on it but im2col's, which the kernel's rank keeps), a case per pair is made up, expecting what
the model says there (valid: accept; else reject, with the requirement rules it breaks), and judged like any
other: a front-end that writes an instruction its `.version` / `.target` does not allow is a fail naming the rule,
one that refuses a valid form is a fail too (a finding). Case IDs are the manifest's (`form@target.ptxNN`).
"""
from dataclasses import dataclass
from typing import Tuple

from ptxcts_gen import model, targets
from ptxcts_gen.frontends import Spelling


@dataclass(frozen=True)
class GuardCase:
    id: str
    family: str
    form: str
    target: str
    ptx: str
    expect: str
    rules: Tuple[str, ...]

    @property
    def valid(self):
        return self.expect == "accept"


def _kernel_key(s):
    return (s.callee, tuple(a for a in s.args if a[0] != "dim"))


def cases(forms, spell, description, skip_ids=()):
    """GuardCase list: one representative form per kernel (forms: model forms, spell: the engine's), at every
    (target, version) of description["targets"] the model's target table has at that version."""
    reps = {}
    for f in forms:
        if not (f.valid or f.valid_from):
            continue
        s = spell(f)
        if isinstance(s, Spelling):
            reps.setdefault(_kernel_key(s), f)
    out = []
    skip = set(skip_ids)
    for f in reps.values():
        for t, row in sorted(description["targets"].items()):
            tobj = targets.BY_NAME.get(t)
            if tobj is None:
                continue
            for v in row["ptx"]:
                cid = f"{f.id}@{t}.ptx{v.replace('.', '')}"
                if cid in skip or not tobj.exists_at(v):
                    continue
                ok = f.valid_at(v) and not model._requirement_violations(f, tobj, v)
                rules = () if ok else tuple(model._requirement_violations(f, tobj, v)) or \
                    (f"valid from PTX ISA {f.valid_from}",)
                out.append(GuardCase(cid, f.family, f.id, t, v, "accept" if ok else "reject", rules))
    return out
