"""The model's side of the drift detector: the model's spellings per family (qualifier tuple -> forms), the
seed spellings candidates grow from, and the verdict on a spelling a toolchain accepts."""
import collections

from ptxcts_gen import isa
from ptxcts_gen.model import case_rules, selected_forms, vocabulary_forms
from ptxcts_gen.parse import split_operands
from ptxcts_gen.targets import BY_NAME


def split(instr):
    """'cp.async.bulk.a.b [x], y;' -> ('cp.async.bulk', ('a', 'b'), ['[x]', 'y']) by the family's opcode."""
    head, _, ops = instr.rstrip(";").partition(" ")
    opcode = next(o for o in _OPCODES if head == o or head.startswith(o + "."))
    quals = tuple(head[len(opcode) + 1:].split(".")) if head != opcode else ()
    return opcode, _qual_tokens(quals), split_operands(ops)


# the opcodes, longest first (cp.async.bulk.prefetch.tensor before cp.async.bulk)
_OPCODES = ("cp.async.bulk.prefetch.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.tensor",
            "cp.async.bulk.prefetch", "cp.reduce.async.bulk", "cp.async.bulk.commit_group",
            "cp.async.bulk.wait_group", "cp.async.mbarrier.arrive", "cp.async.wait_group", "cp.async.wait_all",
            "cp.async.commit_group", "fence.proxy.async", "cp.async.bulk", "cp.async")


def _qual_tokens(parts):
    """Dot-separated parts -> qualifier tokens: a scope after .relaxed and the parts of a `a::b` stay whole."""
    return tuple("." + p for p in parts if p)


def spell(opcode, quals, operands):
    return opcode + "".join(quals) + (" " + ", ".join(operands) if operands else "") + ";"


class Model:
    """The model's spellings per family: qualifier tuple -> its forms (model.vocabulary_forms), and seeds."""

    def __init__(self, families=None, forget=()):
        self.forget = tuple(forget)
        self.families = {}
        for mod in isa.families():
            if families and mod.FAMILY not in families:
                continue
            spellings = collections.defaultdict(list)
            for f in vocabulary_forms(mod):
                opcode, quals, ops = split(f.instr)
                if any(t in quals for t in self.forget):
                    continue
                spellings[(opcode, quals)].append((f, ops))
            # seeds from the family's selection (model.selected_forms), not the whole product: the candidates stay
            # those the reviewed list (results/expectations/drift.toml) was written against
            selected = [split(f.instr) for _, f in sorted(selected_forms(mod).items()) if f.valid]
            self.families[mod.FAMILY] = {"spellings": spellings, "selected": selected,
                                         "seeds": self._seeds(selected)}

    def hiding(self, tokens, families=None):
        """A test double of this model that has never heard of `tokens` (drift's own power, power.py): its spellings
        and seeds lack every spelling with one of them, and unlike `forget` the tokens are not put back into the
        candidate pool (ptxas.token_pool): a hidden token is found only as a new one would be. `families`: only
        these families (None: all of this model's)."""
        other = object.__new__(Model)
        other.forget = ()
        other.families = {}
        for family, fam in self.families.items():
            if families and family not in families:
                continue
            spellings = {k: v for k, v in fam["spellings"].items() if not any(t in k[1] for t in tokens)}
            selected = [v for v in fam["selected"] if not any(t in v[1] for t in tokens)]
            other.families[family] = {"spellings": spellings, "selected": selected, "seeds": other._seeds(selected)}
        return other

    def _seeds(self, valid):
        """The plainest valid form of each opcode, then a greedy cover of the qualifier tokens of the family's other
        valid forms (valid: their split() spellings)."""
        valid = [v for v in valid if not any(t in v[1] for t in self.forget)]
        need = {(o, t) for o, qs, _ in valid for t in qs}
        seeds = []
        for o in dict.fromkeys(v[0] for v in valid):     # first the plainest valid form of each opcode
            base = min((v for v in valid if v[0] == o), key=lambda v: (len(v[1]), v[1]))
            seeds.append(base)
            need -= {(o, t) for t in base[1]}
        while need:
            best = max(valid, key=lambda v: (len({(v[0], t) for t in v[1]} & need), -len(v[1]), v[1]))
            gain = {(best[0], t) for t in best[1]}
            if not gain & need:
                break
            need -= gain
            seeds.append(best)
        return seeds

    def vocabulary(self):
        return sorted({t for fam in self.families.values() for (_, qs) in fam["spellings"] for t in qs})

    def verdict(self, family, opcode, quals, target, ptx):
        """(verdict, rules): modelled / model_rejects / reordered / unknown for an accepted spelling."""
        fam = self.families[family]
        hits = fam["spellings"].get((opcode, quals))
        if hits:
            t = BY_NAME.get(target)
            if t is None:
                return "unknown", ()
            ruled = [sorted(case_rules(f, t, ptx)) for f, _ in hits]
            if any(not r for r in ruled):
                return "modelled", ()
            return "model_rejects", tuple(min(ruled, key=len))
        key = (opcode, tuple(sorted(quals)))
        if key in self._sorted(family):
            return "reordered", ()
        return "unknown", ()

    def _sorted(self, family):
        fam = self.families[family]
        if "sorted" not in fam:
            fam["sorted"] = {(o, tuple(sorted(q))) for (o, q) in fam["spellings"]}
        return fam["sorted"]

    def operands(self, family, opcode, quals, fallback):
        hits = self.families[family]["spellings"].get((opcode, quals))
        return hits[0][1] if hits else fallback
