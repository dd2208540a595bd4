"""One path for a qualifier (docs/EXTENDING.md, "A qualifier: every place it touches"): every qualifier value of the
ISA model has a decision of every front-end mapping (generator/ptxcts_gen/frontends/) and a lowering rule
(generator/ptxcts_gen/lowering/rules.py). CTest generator.qualifier_path.

The qualifiers of a family are its axes (AXES, EXT_AXES) and, for a family of explicit forms only, each EXTRA key
whose value the mnemonic spells (`instr`, fence.proxy.async's `space`); their values are those of the family's
valid forms (model.family_forms, with the forms a later version makes valid: Form.valid_from). A form's partners
for a qualifier are the valid forms that differ from it in that qualifier and in no other (the values it implies,
such as `dst` of `dir`, may differ too). A value that is the same instruction as a partner's
(ptxcts_gen.parse.key: `.shared` and `.shared::cta`) is not a qualifier of its own and is skipped.

Front-end mapping decision, per front-end module (every module of ptxcts_gen.frontends with `spell` and its
decisions, QUALIFIERS) and per valid form carrying the value: QUALIFIERS holds the value (Written: how the
front-end writes it; Unexpressible: why it cannot; frontends/table.py), the form's answer is no MappingError, and a
Spelling differs from every partner's (the same spelling for two instructions drops the qualifier silently).
Lowering rule, per valid form carrying the value (but a boolean qualifier that is off, and a field the lowering
states it cannot see: NOT_LOWERED, NOT_LOWERED_IN): a rule of lowering.rules_for(form) reads the qualifier, or a
value it implies (Rule.fields), and makes a demand.

A failure names family, qualifier = value, front-end or lowering, what is missing and one form (with the count).
"""
import collections
import importlib
import pkgutil
import types
import unittest

from ptxcts_gen import frontends, isa, parse
from ptxcts_gen.frontends import MappingError, Spelling
from ptxcts_gen.frontends.table import NOT_QUALIFIERS, spell_form
from ptxcts_gen.lowering import rules_for
from ptxcts_gen.lowering.rules import NOT_LOWERED, NOT_LOWERED_IN
from ptxcts_gen.model import family_forms


def qualifier_keys(mod, forms):
    """The family's qualifiers: its axes and, for a family of explicit forms only, the EXTRA keys whose value every
    valid form that sets it spells in its mnemonic (the instruction, a state space at its end)."""
    keys = [a for a, _ in tuple(mod.AXES) + tuple(getattr(mod, "EXT_AXES", ()))]
    if keys:
        return keys
    def spelled(f, v):
        head = f.instr.split(" ", 1)[0].rstrip(";")
        return head == v or head.startswith(v + ".") or head.endswith("." + v)
    keys = dict.fromkeys(k for e in mod.EXTRA for k in e)
    return [k for k in keys
            if any(isinstance(f.quals.get(k), str) and f.quals.get(k) for f in forms)
            and all(spelled(f, f.quals[k]) for f in forms if isinstance(f.quals.get(k), str) and f.quals.get(k))]


def valid_forms(mod):
    """The family's forms valid at some PTX version: valid, or valid from a later version (a lifted rule)."""
    return [f for f in family_forms(mod) if f.valid or f.valid_from]


def family_plan(mod):
    """[(qualifier, value, form, partners, implied, same_instruction)] for every valid form and qualifier of the
    family, but the default of an extension axis or of an EXTRA key (spelled as nothing: the form without the
    qualifier, judged as such). `implied`: the qualifier and the form fields that change with it between every
    pair of partners of the family (`dst` with `dir`)."""
    forms = valid_forms(mod)
    keys = qualifier_keys(mod, forms)
    optional = {a for a, _ in getattr(mod, "EXT_AXES", ())} | (set() if mod.AXES else set(keys))
    plan = []
    for k in keys:
        others = [j for j in keys if j != k]
        groups = collections.defaultdict(list)
        for f in forms:
            groups[tuple(repr(f.quals.get(j)) for j in others)].append(f)
        implied = None
        rows = []
        for f in forms:
            v = f.quals.get(k)
            group = groups[tuple(repr(f.quals.get(j)) for j in others)]
            partners = [g for g in group if g.quals.get(k) != v]
            for g in partners:
                changed = {j for j in set(f.quals) | set(g.quals) if f.quals.get(j) != g.quals.get(j)}
                implied = changed if implied is None else implied & changed
            if (k in optional and v == mod.DEFAULTS.get(k)) or v is False:
                continue   # the qualifier absent: the form without it, judged as such
            fk = parse.key(f.instr)[0]
            rows.append((k, v, f, partners, any(parse.key(g.instr)[0] == fk for g in partners)))
        implied = frozenset((implied or set()) | {k})
        plan += [(k, v, f, partners, implied, same) for k, v, f, partners, same in rows]
    return plan


def mapping_modules():
    """Every front-end mapping of ptxcts_gen.frontends: a module with spell() and its decisions (QUALIFIERS)."""
    out = []
    for info in pkgutil.iter_modules(frontends.__path__):
        m = importlib.import_module(f"{frontends.__name__}.{info.name}")
        if callable(getattr(m, "spell", None)) and isinstance(getattr(m, "QUALIFIERS", None), dict):
            out.append(m)
    return out


class Missing:
    """What lacks what, by (family, qualifier, value, where, what): the number of forms and the first one."""

    def __init__(self):
        self.found = {}

    def add(self, family, k, v, where, what, form_id, n=1):
        key = (family, k, repr(v), where, what)
        m, first = self.found.get(key, (0, form_id))
        self.found[key] = (m + n, first)

    def report(self):
        """One paragraph per (where, what), one line per qualifier value under it."""
        by = collections.OrderedDict()
        for (family, k, v, where, what), (n, first) in self.found.items():
            by.setdefault((where, what), []).append(f"    {family}: {k} = {v} ({n} form(s), e.g. {first})")
        return "\n".join(f"  {where}: {what}\n" + "\n".join(lines) for (where, what), lines in by.items())


def names(reason, k, v):
    """Whether a reason names the qualifier value: its spelling (`relaxed.cta`, `L2::evict_last`, `16b`), or for
    an on/off qualifier its name (`ignore_oob`)."""
    if isinstance(v, bool) or v is None:
        return bool(v) and k in reason
    return str(v) in reason


def frontend_gaps(plans, mappings):
    """Missing front-end decisions: every qualifier value a valid form carries has an entry in each mapping's
    QUALIFIERS (frontends/table.py: Written, how it writes it, or Unexpressible, why it cannot); a form's answer
    that is a MappingError, or a Spelling equal to a partner's (the qualifier dropped), is reported too."""
    missing = Missing()
    for m in mappings:
        answers = {}

        def answer(f):
            if f.id not in answers:
                try:
                    answers[f.id] = m.spell(f)
                except MappingError as e:
                    answers[f.id] = e
            return answers[f.id]
        where = f"front-end {m.NAME} ({m.__name__})"
        for family, plan in plans.items():
            for k, v, f, partners, _, same in plan:
                if same or k in NOT_QUALIFIERS:
                    continue
                if (family, k, v) not in m.QUALIFIERS:
                    missing.add(family, k, v, where, "no decision in its QUALIFIERS (Written or Unexpressible)",
                                f.id)
                    continue
                a = answer(f)
                if isinstance(a, MappingError):
                    missing.add(family, k, v, where, f"MappingError: {a}", f.id)
                elif isinstance(a, Spelling) and any(answer(g) == a for g in partners):
                    g = next(g for g in partners if answer(g) == a)
                    missing.add(family, k, v, where, f"dropped: spelled {a.callee} like the form with {k} = "
                                f"{g.quals.get(k)!r} ({g.id}), another instruction", f.id)
    return missing


def lowering_gaps(plans, rules_of=rules_for):
    """Missing lowering rules: on every valid form carrying the value, a rule of rules_of(form record) reads the
    qualifier or a field it implies (Rule.fields; `instr` for a rule of group instructions, Rule.instrs), unless the
    lowering states why none can (NOT_LOWERED for every family, NOT_LOWERED_IN for one)."""
    missing = Missing()
    for family, plan in plans.items():
        for k, v, f, _, implied, same in plan:
            if same or k in NOT_LOWERED or (family, k) in NOT_LOWERED_IN:
                continue
            record = {"family": f.family, "quals": f.quals_record}
            reads = [set(r.fields) | ({"instr"} if r.instrs else set()) for r, _ in rules_of(record)]
            if not any(implied & fields for fields in reads):
                missing.add(family, k, v, "lowering", "no lowering rule (generator/ptxcts_gen/lowering/rules.py) "
                            "reads " + " or ".join(sorted(implied)), f.id)
    return missing


def standin_mapping(base, family=None, fn=None, without=None):
    """A mapping module like `base` whose function for `family` is fn, or whose QUALIFIERS lack the decision
    `without` (the checks' own test)."""
    m = types.ModuleType(f"standin_of_{base.NAME}")
    m.NAME = f"standin-{base.NAME}"
    m.FAMILIES = dict(base.FAMILIES, **({family: fn} if family else {}))
    m.QUALIFIERS = {k: d for k, d in base.QUALIFIERS.items() if k != without}
    m.spell = lambda form: spell_form(form, m.FAMILIES, m.QUALIFIERS, m.NAME, m.NAME, lambda form_id, s: None)
    return m


class QualifierPath(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.plans = {mod.FAMILY: family_plan(mod) for mod in isa.families()}
        cls.mappings = mapping_modules()

    def test_the_front_end_mappings_are_found(self):
        self.assertTrue({"llvm", "cccl"} <= {m.NAME for m in self.mappings}, [m.NAME for m in self.mappings])

    def test_every_qualifier_value_has_a_mapping_decision_of_every_front_end(self):
        missing = frontend_gaps(self.plans, self.mappings)
        if missing.found:
            self.fail("qualifier values without a front-end mapping decision:\n" + missing.report())

    def test_every_qualifier_value_has_a_lowering_rule(self):
        missing = lowering_gaps(self.plans)
        if missing.found:
            self.fail("qualifier values without a lowering rule:\n" + missing.report())


class TheChecksFail(unittest.TestCase):
    """The two checks on stand-ins that lack one decision each: they name the qualifier, the value and what lacks."""

    @classmethod
    def setUpClass(cls):
        mod = next(m for m in isa.families() if m.FAMILY == "cp.async.bulk.prefetch")
        cls.plans = {mod.FAMILY: family_plan(mod)}

    def test_a_front_end_that_drops_the_cache_hint_is_named(self):
        from ptxcts_gen.frontends import llvm
        real = llvm.FAMILIES["cp.async.bulk.prefetch"]
        m = standin_mapping(llvm, "cp.async.bulk.prefetch", lambda q: real(dict(q, cache_hint=False)))
        missing = frontend_gaps(self.plans, [m])
        dropped = [key for key in missing.found if key[1:3] == ("cache_hint", "True") and key[4].startswith("dropped")]
        self.assertTrue(dropped, missing.report())

    def test_a_front_end_without_the_family_is_named(self):
        from ptxcts_gen.frontends import llvm

        def broken(q):
            raise MappingError("no entry")
        missing = frontend_gaps(self.plans, [standin_mapping(llvm, "cp.async.bulk.prefetch", broken)])
        self.assertTrue([key for key in missing.found if key[1] == "cache_hint" and "MappingError" in key[4]],
                        missing.report())

    def test_a_front_end_without_a_decision_is_named(self):
        from ptxcts_gen.frontends import cccl
        key = ("cp.async.bulk.prefetch", "cache_hint", True)
        self.assertIn(key, cccl.QUALIFIERS)
        missing = frontend_gaps(self.plans, [standin_mapping(cccl, without=key)])
        self.assertTrue([k for k in missing.found if k[1:3] == ("cache_hint", "True") and "no decision" in k[4]],
                        missing.report())

    def test_a_missing_lowering_rule_is_named(self):
        without = lambda record: [(r, d) for r, d in rules_for(record) if r.name != "bulk.cache_hint"]  # noqa: E731
        missing = lowering_gaps(self.plans, without)
        self.assertIn(("cp.async.bulk.prefetch", "cache_hint", "True", "lowering",
                       "no lowering rule (generator/ptxcts_gen/lowering/rules.py) reads cache_hint or policy"),
                      missing.found, missing.report())


if __name__ == "__main__":
    unittest.main()
