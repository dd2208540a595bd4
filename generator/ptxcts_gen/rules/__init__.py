"""Validity rules. Each rule is defined once, named, and quotes the sentence of the chapter it comes from.

Two sorts:
* form rules: a small predicate over a form's qualifiers (`check(q)` is True when the form breaks the rule);
  target- and version-independent; they end up in forms.jsonl `invalid_by` and in every case of that form.
* requirements: a feature's minimum PTX ISA version and the targets it needs. Each registers two rules,
  `<name>.ptx` (kind `version`) and `<name>.target` (kind `target`), checked per (target, PTX version) case.
Rule kinds: syntax (the chapter's syntax does not allow it), constraint (a stated restriction), version, target,
undefined (the chapter calls the behaviour undefined; the case is classed invalid and the compile tier records
what ptxas answers).
"""
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple

from ..targets import BY_NAME, ptx_key

KINDS = ("syntax", "constraint", "version", "target", "undefined")
RULES = {}
REQUIREMENTS = {}


@dataclass(frozen=True)
class Rule:
    name: str
    kind: str
    section: str
    sentence: str
    check: Optional[Callable] = field(default=None, compare=False)
    # A later PTX ISA version of the chapter that lifts the rule for some forms: (version, predicate(q), sentence).
    # From that version on the rule no longer applies to the forms the predicate selects (the form stays invalid
    # below it). None: the rule holds at every version.
    lifted: Optional[Tuple] = field(default=None, compare=False)

    def violated(self, q):
        return bool(self.check(q))

    def applies(self, q, ptx):
        """Whether the rule holds for a form (that breaks it) at PTX version `ptx`."""
        if self.lifted is None:
            return True
        version, pred, _ = self.lifted
        return not (pred(q) and ptx_key(ptx) >= ptx_key(version))

    def lifted_at(self, q):
        """The PTX version from which the rule stops applying to this form, or None."""
        if self.lifted is None or not self.lifted[1](q):
            return None
        return self.lifted[0]


def _register(r):
    if r.kind not in KINDS:
        raise ValueError(f"rule {r.name}: unknown kind '{r.kind}'")
    if r.name in RULES:
        raise ValueError(f"rule {r.name} defined twice")
    RULES[r.name] = r
    return r


def rule(name, kind, section, sentence, lifted=None):
    """Decorator: register a form rule; the function returns True when the form's qualifiers break it.
    `lifted` = (version, predicate(q), sentence): the chapter lifts the rule for the forms the predicate selects
    from that PTX ISA version on (the sentence quotes the later text that lifts it)."""
    def wrap(fn):
        lift = None if lifted is None else (lifted[0], lifted[1], " ".join(lifted[2].split()))
        _register(Rule(name, kind, section, " ".join(sentence.split()), fn, lift))
        return fn
    return wrap


# Target clauses (declarative): a target satisfies a requirement when any clause matches it.
def min_sm(n):
    """`sm_N` or higher (every variant)."""
    return ("min_sm", n, None, None)


def exact(name, from_ptx=None, to_ptx=None):
    """Exactly this target (an arch-specific 'a' target)."""
    return ("exact", name, from_ptx, to_ptx)


def family(name, from_ptx=None, to_ptx=None):
    """`sm_XYf or higher in the same family`: the a/f targets of name's family with SM number >= XY."""
    return ("family", name, from_ptx, to_ptx)


def _clause_matches(clause, t, ptx):
    kind, arg, lo, hi = clause
    if lo and ptx_key(ptx) < ptx_key(lo):
        return False
    if hi and ptx_key(ptx) > ptx_key(hi):
        return False
    if kind == "min_sm":
        return t.sm >= arg
    if kind == "exact":
        return t.name == arg
    base = BY_NAME[arg]
    return t.family == base.family and t.variant in ("a", "f") and t.sm >= base.sm


def clause_text(clause):
    kind, arg, lo, hi = clause
    text = {"min_sm": f"sm_{arg}+", "exact": arg, "family": f"{arg}+family"}[kind]
    if lo and hi:
        text += f"(ptx{lo}-{hi})"
    elif lo:
        text += f"(ptx{lo}+)"
    elif hi:
        text += f"(..ptx{hi})"
    return text


@dataclass(frozen=True)
class Requirement:
    name: str
    section: str
    ptx: str
    ptx_sentence: str
    targets: Tuple = ()
    target_sentence: str = ""

    def target_ok(self, t, ptx):
        return not self.targets or any(_clause_matches(c, t, ptx) for c in self.targets)

    def target_ever_ok(self, t):
        return not self.targets or any(_clause_matches((c[0], c[1], None, None), t, "9.0") for c in self.targets)

    def violations(self, t, ptx):
        out = []
        if ptx_key(ptx) < ptx_key(self.ptx):
            out.append(self.name + ".ptx")
        if not self.target_ok(t, ptx):
            out.append(self.name + ".target")
        return out

    def summary(self):
        return " | ".join(clause_text(c) for c in self.targets) if self.targets else ""


def requirement(name, section, ptx, ptx_sentence, targets=(), target_sentence=""):
    """Register a feature requirement (minimum PTX ISA version, and targets when the chapter names any)."""
    if name in REQUIREMENTS:
        raise ValueError(f"requirement {name} defined twice")
    req = Requirement(name, section, ptx, " ".join(ptx_sentence.split()), tuple(targets),
                      " ".join(target_sentence.split()))
    REQUIREMENTS[name] = req
    _register(Rule(name + ".ptx", "version", section, req.ptx_sentence))
    if targets:
        _register(Rule(name + ".target", "target", section, req.target_sentence))
    return req


def describe(name):
    """Text for `cases --rule NAME`."""
    r = RULES.get(name)
    if r is None:
        raise KeyError(name)
    lines = [f"rule:     {r.name}", f"kind:     {r.kind}", f"section:  {r.section}", f"sentence: {r.sentence}"]
    if r.lifted:
        lines.append(f"lifted:   from PTX ISA {r.lifted[0]} for some forms: {r.lifted[2]}")
    base = name.rsplit(".", 1)[0]
    req = REQUIREMENTS.get(base)
    if req and name.endswith(".ptx"):
        lines.append(f"minimum:  PTX ISA {req.ptx}")
    if req and name.endswith(".target"):
        lines.append(f"targets:  {req.summary()}")
    return "\n".join(lines)


def load_all():
    """Import every rule module (each registers its rules once)."""
    from . import common, cp_async, groups, bulk, reduce, tensor  # noqa: F401
    return RULES
