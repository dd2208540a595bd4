"""Enumeration and classification: forms from the ISA tables, compile cases from forms x targets x PTX."""
import hashlib
import itertools
from dataclasses import dataclass, field

from . import isa
from .rules import RULES, REQUIREMENTS, load_all
from .targets import TARGETS, PTX_GENERATIONS, GENERATIONS, BY_NAME, ptx_key, ptx_tag, target_order

load_all()


@dataclass
class Form:
    id: str
    family: str
    quals: dict
    instr: str
    requires: tuple
    invalid_by: tuple
    run: dict
    kernel_cfg: dict
    template: str
    explicit: bool = False
    ext_quals: tuple = ()   # the family's qualifiers of later PTX ISA versions (EXT_AXES, EXT_QUALS)
    # a combination of the vocabulary beyond the family's selection (whole_product): its cases only at its
    # boundaries (combination_cases), not at every target and version
    at_boundaries: bool = False

    @property
    def quals_record(self):
        """The qualifiers as the manifest records them: a later version's qualifier only where the form sets it,
        so the record of every older form stays what it was."""
        return {k: v for k, v in self.quals.items() if k not in self.ext_quals or v}

    @property
    def entry(self):
        return "k_" + hashlib.sha1(self.id.encode()).hexdigest()[:12]

    @property
    def valid(self):
        return not self.invalid_by

    @property
    def min_ptx(self):
        return max((REQUIREMENTS[r].ptx for r in self.requires), key=ptx_key)

    @property
    def generation(self):
        """The generation of the table (targets.PTX_GENERATIONS) the form belongs to: the first whose versions
        reach its minimum PTX version. A qualifier of a later PTX ISA version carries a requirement of that
        version, so its forms join the later generation and leave every older one's selection untouched."""
        return _generation_of(self.min_ptx)

    @property
    def valid_from(self):
        """For a form invalid only by rules a later PTX ISA version lifts for it (Rule.lifted): the version from
        which it is valid; otherwise None."""
        if not self.invalid_by:
            return None
        at = [RULES[r].lifted_at(self.quals) for r in self.invalid_by]
        return None if None in at else max(at, key=ptx_key)

    def valid_at(self, ptx):
        """Whether the form is valid at PTX ISA version ptx: valid, or valid from a version no later (valid_from)."""
        return self.valid or (self.valid_from is not None and ptx_key(self.valid_from) <= ptx_key(ptx))

    @property
    def targets_summary(self):
        parts = [REQUIREMENTS[r].summary() for r in self.requires if REQUIREMENTS[r].targets]
        return " & ".join(dict.fromkeys(p if " | " not in p else f"({p})" for p in parts))

    @property
    def abi(self):
        k = self.kernel_cfg
        return "v1." + k["completion"] + (".cluster" if k["cluster"] else "") + (".tmap" if k["tmap"] else "")


@dataclass(frozen=True)
class Case:
    form: Form = field(compare=False)
    target: str
    ptx: str
    rules: tuple

    @property
    def id(self):
        return f"{self.form.id}@{self.target}.{ptx_tag(self.ptx)}"

    @property
    def expect(self):
        return "reject" if self.rules else "accept"


def _generation_of(v):
    for g, vs in PTX_GENERATIONS:
        if ptx_key(v) <= ptx_key(vs[-1]):
            return g
    return GENERATIONS[-1]


def _classify(mod, q):
    """(the form rules q breaks, the requirements it uses): what decides a combination, without rendering it."""
    for r in mod.RULES:
        if r not in RULES:
            raise KeyError(f"family {mod.FAMILY}: unknown rule {r}")
    violated = tuple(r for r in mod.RULES if RULES[r].violated(q))
    requires = tuple(name for pred, name in mod.REQUIRES if pred(q))
    for name in requires:
        if name not in REQUIREMENTS:
            raise KeyError(f"family {mod.FAMILY}: unknown requirement {name}")
    return violated, requires


def _form(mod, q, explicit):
    violated, requires = _classify(mod, q)
    ext = tuple(name for name, _ in getattr(mod, "EXT_AXES", ())) + tuple(getattr(mod, "EXT_QUALS", ()))
    return Form(mod.form_id(q), mod.FAMILY, q, mod.instr(q), requires, violated, mod.run(q), mod.kernel(q),
                mod.TEMPLATE, explicit, ext)


def _product(mod, axes):
    names = [a for a, _ in axes]
    links = getattr(mod, "AXIS_LINKS", ())
    derive = getattr(mod, "derive", lambda q: None)
    for values in (itertools.product(*[v for _, v in axes]) if axes else ()):
        q = dict(mod.DEFAULTS)
        q.update(zip(names, values))
        for dst, src in links:
            q[dst] = q[src]
        derive(q)
        yield q


def _extension_products(mod):
    """The product of AXES once per value of each extension axis (EXT_AXES: the qualifiers of later PTX ISA
    versions), that value set and every other extension axis at its default: each new qualifier on every form of
    the base product, one at a time (their combinations are EXTRA forms, or known to the vocabulary only), where
    the family's ext_keep(q) selects the form."""
    keep = getattr(mod, "ext_keep", lambda q: True)
    for name, values in getattr(mod, "EXT_AXES", ()):
        for v in values:
            if v == mod.DEFAULTS[name]:
                continue
            yield from (q for q in _product(mod, tuple(mod.AXES) + ((name, (v,)),)) if keep(q))


def selected_forms(mod):
    """The family's selection, each form with every case of the version/target strategy: every valid form of the
    product (and of the extension products), the explicit forms, and a proportionate set of invalid product forms:
    at most KEEP_INVALID_PER_RULE per rule and generation among those breaking exactly one rule (plus
    keep_invalid(q))."""
    keep_all = getattr(mod, "keep_invalid", lambda q: False)
    derive = getattr(mod, "derive", lambda q: None)
    product = [_form(mod, q, False) for q in _product(mod, mod.AXES)]
    # an extension value that derive() drops (e.g. ::16b without .multicast::cluster) gives a form of the base
    # product again: it is not a second candidate for the invalid forms kept per rule
    seen = {f.id for f in product}
    for q in _extension_products(mod):
        f = _form(mod, q, False)
        if f.id not in seen:
            seen.add(f.id)
            product.append(f)
    explicit = []
    for extra in mod.EXTRA:
        q = dict(mod.DEFAULTS)
        q.update(extra)
        derive(q)
        explicit.append(_form(mod, q, True))
    out = {}
    kept_per_rule = {}
    for f in sorted(product, key=lambda f: f.id) + sorted(explicit, key=lambda f: f.id):
        if not f.valid and not f.explicit and not keep_all(f.quals):
            if len(f.invalid_by) != 1:
                continue
            key = (f.generation, f.invalid_by[0])
            n = kept_per_rule.get(key, 0)
            if n >= mod.KEEP_INVALID_PER_RULE:
                continue
            kept_per_rule[key] = n + 1
        if f.id in out:
            if out[f.id].quals != f.quals and not f.explicit:
                raise ValueError(f"form ID {f.id} names two different forms: {out[f.id].quals} / {f.quals}")
            continue
        if "@" in f.id:
            raise ValueError(f"form ID {f.id} contains '@'")
        out[f.id] = f
    return out



class UndecidedCombination(ValueError):
    """A combination of the vocabulary that the model calls valid without any rule deciding it (undecided)."""


def undecided(mod, f):
    """The qualifiers of a valid combination that no rule decides: a value of a later version's axis (EXT_AXES) that
    brings no requirement of its own (REQUIRES: the PTX ISA version and targets that introduced it) and breaks no
    form rule, compared with the same combination without it (its derived qualifiers, EXT_QUALS, derived again).
    Such a value would be silently valid from the family's first version on every target: [(axis, value)]."""
    if not (f.valid or f.valid_from):
        return []
    derive = getattr(mod, "derive", lambda q: None)
    out = []
    for axis, _ in getattr(mod, "EXT_AXES", ()):
        if f.quals.get(axis) == mod.DEFAULTS[axis]:
            continue
        q = dict(f.quals)
        q[axis] = mod.DEFAULTS[axis]
        for name in getattr(mod, "EXT_QUALS", ()):
            q[name] = mod.DEFAULTS[name]
        derive(q)
        without = _form(mod, q, f.explicit)
        if set(f.requires) <= set(without.requires) and set(f.invalid_by) <= set(without.invalid_by):
            out.append((axis, f.quals[axis]))
    return out


def check_decided(mod, forms):
    """UndecidedCombination naming the first valid combination of forms that has a qualifier no rule decides."""
    for f in forms:
        bad = undecided(mod, f)
        if bad:
            what = ", ".join(f"{a}={v!r}" for a, v in bad)
            raise UndecidedCombination(
                f"family {mod.FAMILY}: the combination `{f.instr}` (form {f.id}) is valid by no rule's decision: "
                f"{what} brings no requirement (REQUIRES) and breaks no form rule (RULES); give it the requirement of "
                f"the PTX ISA version and targets that introduced it, or the rule that rules it out")


def whole_product(mod, selected):
    """The vocabulary's combinations beyond the selection (selected_forms) that the generator makes forms of: every
    combination valid at some PTX ISA version (Form.valid, or Form.valid_from), and, for a rule that the selection
    gives fewer than KEEP_INVALID_PER_RULE forms at a generation, the first combinations (by form ID) that break
    that rule alone. Each is marked at_boundaries (its cases: combination_cases). UndecidedCombination when a
    valid combination of the vocabulary (the selection's or these) is valid by no rule's decision (check_decided).
    A combination is classified before it is rendered: only the kept ones become forms."""
    have = {}
    for f in selected.values():
        for r in f.invalid_by:
            have[(f.generation, r)] = have.get((f.generation, r), 0) + 1
    first = {}   # form ID -> (q, explicit, violated, requires): the vocabulary's first spelling of each ID
    for q, explicit in _vocabulary_quals(mod):
        fid = mod.form_id(q)
        if fid not in selected and fid not in first:
            first[fid] = (q, explicit) + _classify(mod, q)
    out = {}
    for fid in sorted(first):
        q, explicit, violated, requires = first[fid]
        lifted = [RULES[r].lifted_at(q) for r in violated]
        if violated and None in lifted:   # invalid at every version
            if len(violated) != 1:
                continue
            gen = _generation_of(max((REQUIREMENTS[r].ptx for r in requires), key=ptx_key))
            key = (gen, violated[0])
            if have.get(key, 0) >= mod.KEEP_INVALID_PER_RULE:
                continue
            have[key] = have.get(key, 0) + 1
        f = _form(mod, q, explicit)
        f.at_boundaries = True
        out[fid] = f
    check_decided(mod, list(selected.values()) + list(out.values()))
    return out


def family_forms(mod):
    """The family's forms: its selection (selected_forms) and the rest of the vocabulary's valid combinations, with
    the invalid ones that give every rule its forms (whole_product), sorted by form ID."""
    out = selected_forms(mod)
    out.update(whole_product(mod, out))
    return [out[k] for k in sorted(out)]


def _vocabulary_quals(mod):
    """(q, explicit) of every combination of vocabulary_forms, in its order: the product, then the EXTRA forms."""
    more = getattr(mod, "VOCAB_VALUES", {})
    axes = tuple((a, tuple(vs) + tuple(v for v in more.get(a, ()) if v not in vs)) for a, vs in mod.AXES)
    axes += tuple(getattr(mod, "EXT_AXES", ()))
    for q in _product(mod, axes):
        yield q, False
    derive = getattr(mod, "derive", lambda q: None)
    for extra in mod.EXTRA:
        q = dict(mod.DEFAULTS)
        q.update(extra)
        derive(q)
        yield q, True


def vocabulary_forms(mod):
    """Every combination of the family's qualifiers the model can spell: the product of AXES and all EXT_AXES
    together (and the values VOCAB_VALUES adds to a base axis for the vocabulary only, e.g. the absent .load_mode
    the product leaves to EXTRA forms), plus the explicit forms (not all generated as cases). The drift detector
    (harness/toolchains/drift/spelling.py) classifies a spelling a toolchain accepts by these forms and their rules.
    Two combinations of one form ID: the first."""
    forms = {}
    for q, explicit in _vocabulary_quals(mod):
        fid = mod.form_id(q)
        if fid not in forms:
            forms[fid] = _form(mod, q, explicit)
    return list(forms.values())


def all_forms(family=None):
    forms = []
    for mod in isa.families():
        if family is None or mod.FAMILY == family:
            forms.extend(family_forms(mod))
    return sorted(forms, key=lambda f: f.id)


# ---- cases ---------------------------------------------------------------------------------------------

def _requirement_violations(form, t, ptx):
    out = []
    for name in form.requires:
        out.extend(REQUIREMENTS[name].violations(t, ptx))
    return out


class Generation:
    """The target table and PTX versions as they stood at one generation (targets.PTX_GENERATIONS). Every
    selection below is made per generation and the results united: what an older generation generated stays."""

    def __init__(self, gen):
        i = GENERATIONS.index(gen)
        self.name = gen
        self.versions = tuple(v for _, vs in PTX_GENERATIONS[:i + 1] for v in vs)
        self.targets = tuple(t for t in TARGETS if ptx_key(t.added) <= ptx_key(gen))
        self.by_name = {t.name: t for t in self.targets}
        self._min = {}   # (requirements, target) -> effective_min: forms share requirement sets, so it is asked often

    def below(self, v):
        i = self.versions.index(v)
        return self.versions[i - 1] if i > 0 else None

    def newest_at(self, t):
        return [v for v in self.versions if t.exists_at(v)][-1]

    def effective_min(self, form, t):
        """Lowest PTX version of this generation at which the target exists and meets every requirement."""
        key = (form.requires, t)
        if key not in self._min:
            self._min[key] = next((v for v in self.versions
                                   if t.exists_at(v) and not _requirement_violations(form, t, v)), None)
        return self._min[key]


GENS = tuple(Generation(g) for g in GENERATIONS)


def effective_min(form, t):
    """Lowest known PTX version at which the target exists and meets every requirement of the form."""
    return GENS[-1].effective_min(form, t)


def _arch_specific(form):
    return any(c[0] in ("exact", "family") for r in form.requires for c in REQUIREMENTS[r].targets)


def _form_targets_at(form, g):
    app = [t for t in g.targets if g.effective_min(form, t)]
    app_names = {t.name for t in app}
    sms = sorted({t.sm for t in g.targets})
    near = set()
    if app:
        lo, hi = min(t.sm for t in app), max(t.sm for t in app)
        lower = [s for s in sms if s < lo]
        if lower:
            near.update(t.name for t in g.targets if t.sm == lower[-1])
        near.update(t.name for t in g.targets if t.sm in {a.sm for a in app})
        if _arch_specific(form):
            higher = [s for s in sms if s > hi]
            if higher:
                near.update(t.name for t in g.targets if t.sm == higher[0])
            # the SM number just above each applicable run of SM numbers (e.g. sm_120 after the sm_10x family)
            for a in app:
                nxt = [s for s in sms if s > a.sm]
                if nxt and not any(b.sm == nxt[0] for b in app):
                    near.update(t.name for t in g.targets if t.sm == nxt[0])
    near -= app_names
    return app, [g.by_name[n] for n in near]


def form_targets(form):
    """(applicable targets, near-miss targets) per the strategy in targets.STRATEGY, united over generations."""
    app, near = {}, {}
    for g in GENS:
        a, n = _form_targets_at(form, g)
        app.update((t.name, t) for t in a)
        near.update((t.name, t) for t in n)
    for name in app:
        near.pop(name, None)
    return (sorted(app.values(), key=target_order), sorted(near.values(), key=target_order))


def case_rules(form, t, v):
    """The rules a form breaks at target t and PTX version v: its form rules that hold at v (Rule.applies) and its
    requirements' version/target rules."""
    rules = {r for r in form.invalid_by if RULES[r].applies(form.quals, v)}
    return rules | set(_requirement_violations(form, t, v))


def _case(form, t, v, extra=()):
    rules = case_rules(form, t, v) | set(extra)
    return Case(form, t.name, v, tuple(sorted(rules)))


def _form_cases_at(form, g, cases):
    app, near = _form_targets_at(form, g)
    for t in app:
        m = g.effective_min(form, t)
        for v in (g.below(m), m, g.newest_at(t)):
            if v and t.exists_at(v):
                c = _case(form, t, v)
                cases[c.id] = c
    for t in near:
        m = max(form.min_ptx, t.min_ptx, key=ptx_key)
        if m not in g.versions:
            continue
        for v in (m, g.newest_at(t)):
            if t.exists_at(v):
                c = _case(form, t, v)
                cases[c.id] = c


def _lifted_cases_at(form, g, cases):
    """A form a later PTX ISA version makes valid (Form.valid_from): on each applicable target, the version below
    and the version the rule is lifted at, in the generation that knows that version."""
    v = form.valid_from
    if v is None or v not in g.versions or g.name != _generation_of(v):
        return
    app, _ = _form_targets_at(form, g)
    for t in app:
        for x in (g.below(v), v):
            if x and t.exists_at(x) and g.effective_min(form, t) and ptx_key(x) >= ptx_key(g.effective_min(form, t)):
                c = _case(form, t, x)
                cases[c.id] = c


def _combination_cases_at(form, g, cases):
    """A whole-product combination's cases at generation g (combination_cases)."""
    app, _ = _form_targets_at(form, g)
    if not app:
        return
    low = min(app, key=target_order)
    m = g.effective_min(form, low)
    for v in (g.below(m), m, g.newest_at(low)):
        if v and low.exists_at(v):
            c = _case(form, low, v)
            cases[c.id] = c
    below = [t for t in g.targets if target_order(t) < target_order(low)]
    if below:
        t = max(below, key=target_order)
        v = max(form.min_ptx, t.min_ptx, key=ptx_key)
        if v in g.versions and t.exists_at(v):
            c = _case(form, t, v)
            cases[c.id] = c
    v = form.valid_from
    if v is not None and v in g.versions and g.name == _generation_of(v):
        for x in (g.below(v), v):
            if x and low.exists_at(x) and ptx_key(x) >= ptx_key(m):
                c = _case(form, low, x)
                cases[c.id] = c


def combination_cases(form):
    """The cases of a combination the whole product adds (Form.at_boundaries), only at its boundaries, per
    generation and united: on its lowest applicable target (target_order) at the PTX version just below its
    minimum there, at that minimum and at the generation's newest version; on the target just below that one
    (target_order: sm_89 below sm_90, sm_90 below sm_90a, sm_107 below sm_107f) at the lowest version both exist
    at; for a form a later version makes valid (Form.valid_from), on the lowest target at that version and the one
    below."""
    cases = {}
    for g in GENS:
        _combination_cases_at(form, g, cases)
    return cases


def form_cases(form):
    if form.at_boundaries:
        return combination_cases(form)
    cases = {}
    for g in GENS:
        _form_cases_at(form, g, cases)
        _lifted_cases_at(form, g, cases)
    return cases


def boundary_cases(form):
    """Target/version boundary set for a representative form: each target just below its minimum PTX version,
    and each renamed target at the version its new name starts (the chapter: sm_101a/sm_101f renamed
    sm_110a/sm_110f from PTX ISA 9.0)."""
    cases = {}
    for g in GENS:
        for t in g.targets:
            v = g.below(t.min_ptx) if t.min_ptx in g.versions else None
            if v:
                c = _case(form, t, v, ("target.not_at_ptx",))
                cases[c.id] = c
            if t.rename:
                after = g.versions[g.versions.index(t.max_ptx) + 1]
                c = _case(form, t, after, ("target.renamed",))
                cases[c.id] = c
    return cases


def version_sweep(form):
    """The form at every PTX version from its minimum, on its lowest applicable target: each version of the model
    (9.1 .. 9.5 included) is assembled at least once per family."""
    cases = {}
    for g in GENS:
        app, _ = _form_targets_at(form, g)
        if app:
            lowest = min(app, key=target_order)
            m = g.effective_min(form, lowest)
            for v in g.versions[g.versions.index(m):]:
                if lowest.exists_at(v):
                    c = _case(form, lowest, v)
                    cases[c.id] = c
    return cases


def representative(forms):
    valid = [f for f in forms if f.valid and not f.at_boundaries]
    return min(valid, key=lambda f: (len(f.requires), len(f.id), f.id)) if valid else None


def family_cases(forms):
    cases = {}
    for f in forms:
        cases.update(form_cases(f))
    rep = representative(forms)
    if rep:
        cases.update(boundary_cases(rep))
        cases.update(version_sweep(rep))
    return [cases[k] for k in sorted(cases)]
