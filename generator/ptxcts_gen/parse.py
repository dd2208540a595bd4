"""From the text of a PTX instruction back to the forms of the ISA model that it is.

A front-end (harness/frontend) emits PTX; its instruction under test must be the form the case asked for. The
instruction and every form's rendered instruction (isa/<family>.instr) are reduced to one key: the opcode words,
dimension and state spaces in their order, the other qualifiers as a set, and the shape of the operands (a memory
operand, with the length of a vector inside it; a vector and its length; a register; an immediate and its value).
Spellings the chapter makes equal are made equal first, by the named rules of NORMALISATIONS, each quoting the
chapter; the report names the rules a verdict leaned on.

    index = FormIndex(model.all_forms())
    index.parse("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd1], ...;")
        -> Parsed(forms=("cp.async.bulk.tensor/2d.shared_cluster.global", ...), rules=("load_mode_default_tile",))
"""
import re
from dataclasses import dataclass
from typing import Tuple

# Words of the opcodes of the chapter, and its state spaces and tensor dimensions: their order is part of the form
# (.dst before .src).
OPCODE_WORDS = frozenset({"cp", "async", "bulk", "tensor", "reduce", "prefetch", "commit_group", "wait_group",
                          "wait_all", "read", "mbarrier", "arrive", "noinc", "fence", "proxy", "ca", "cg"})
SPACES = frozenset({"global", "shared", "shared::cta", "shared::cluster", "L2"})
_DIM = re.compile(r"[1-5]d")
TENSOR_OPCODES = (("cp", "async", "bulk", "tensor"), ("cp", "reduce", "async", "bulk", "tensor"),
                  ("cp", "async", "bulk", "prefetch", "tensor"))
LOAD_MODES = frozenset({"tile", "tile::gather4", "tile::scatter4", "im2col", "im2col::w", "im2col::w::128",
                        "im2col_no_offs"})


@dataclass(frozen=True)
class Rule:
    """A normalisation: name, the chapter's words that make the two spellings one form, and the rewrite."""
    name: str
    quote: str
    rewrite: object     # (ordered tokens, qualifier set) -> (ordered tokens, qualifier set)


def _default_tile(ordered, quals):
    if any(tuple(w for w in ordered if w in OPCODE_WORDS)[:len(op)] == op for op in TENSOR_OPCODES) \
            and not quals & LOAD_MODES:
        return ordered, quals | {"tile"}
    return ordered, quals


def _shared_cta(ordered, quals):
    return tuple("shared::cta" if t == "shared" else t for t in ordered), quals


NORMALISATIONS = (
    Rule("load_mode_default_tile",
         "cp.async.bulk.tensor / cp.reduce.async.bulk.tensor / cp.async.bulk.prefetch.tensor: \"If `.load_mode` is "
         "not specified, it defaults to `.tile`.\"", _default_tile),
    Rule("shared_is_shared_cta",
         "the syntax writes the CTA's shared state space `.shared{::cta}` (cp.async.ca.shared{::cta}.global): "
         "`.shared` and `.shared::cta` are one state space", _shared_cta),
)
# Not a rewrite but the shape of the key itself: the qualifiers other than opcode words, state spaces and the
# dimension are compared as a set.
QUALIFIER_ORDER = Rule(
    "qualifier_order",
    "the syntax lists independent optional qualifiers (cp.async.bulk.tensor.dim.dst.src{.load_mode}."
    "completion_mechanism{.multicast}{.cta_group}{.level::cache_hint}); each is one choice, and their order "
    "states nothing the form depends on", None)


def split(text):
    """(mnemonic words, operand texts) of one instruction; a trailing ';' and a guard predicate are dropped."""
    t = text.strip().rstrip(";").strip()
    if t.startswith("@"):
        t = t.split(None, 1)[1]
    head, _, rest = t.partition(" ") if " " in t or "\t" not in t else t.partition("\t")
    return head.strip().split("."), split_operands(rest)


def split_operands(text):
    """The operand texts of an operand list, split at the commas outside [...] and {...} (an address or a vector
    keeps its commas)."""
    operands, depth, cur = [], 0, ""
    for ch in text.strip():
        if ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        if ch == "," and depth == 0:
            operands.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        operands.append(cur.strip())
    return operands


def operand_shape(op):
    """The part of an operand the form fixes: memory ('m', vector length inside or 0), vector ('v', length),
    register ('r',) or immediate ('i', value)."""
    op = op.strip()
    if op.startswith("["):
        inner = op[1:-1]
        vec = re.search(r"\{([^}]*)\}", inner)
        return ("m", len([x for x in vec.group(1).split(",") if x.strip()]) if vec else 0)
    if op.startswith("{"):
        return ("v", len([x for x in op[1:-1].split(",") if x.strip()]))
    if op.startswith("%"):
        return ("r",)
    try:
        return ("i", int(op, 0))
    except ValueError:
        return ("?", op)


@dataclass(frozen=True)
class Key:
    ordered: Tuple[str, ...]
    quals: frozenset
    operands: Tuple[tuple, ...]

    def text(self):
        return ".".join(self.ordered) + "{" + ",".join(sorted(self.quals)) + "} " + " ".join(
            ":".join(str(x) for x in o) for o in self.operands)


def key(text, rules=NORMALISATIONS):
    """The key of an instruction after the normalisation rules; and the names of the rules that changed it."""
    words, operands = split(text)
    ordered = tuple(w for w in words if w in OPCODE_WORDS or w in SPACES or _DIM.fullmatch(w))
    quals = frozenset(w for w in words if w not in ordered)
    used = []
    for r in rules:
        o2, q2 = r.rewrite(ordered, quals)
        if (o2, q2) != (ordered, quals):
            used.append(r.name)
        ordered, quals = o2, q2
    return Key(ordered, quals, tuple(operand_shape(o) for o in operands)), tuple(used)


@dataclass(frozen=True)
class Parsed:
    forms: Tuple[str, ...]          # the model's forms the instruction is (after normalisation); empty: none
    key: Key
    rules: Tuple[str, ...]          # normalisations that rewrote the instruction


class FormIndex:
    """Every form of the model by its key."""

    def __init__(self, forms):
        self.by_key, self.by_literal = {}, {}
        self.form_key, self.form_rules = {}, {}
        for f in forms:
            k, self.form_rules[f.id] = key(f.instr)
            self.by_key.setdefault(k, []).append(f.id)
            self.by_literal.setdefault(key(f.instr, ())[0], []).append(f.id)
            self.form_key[f.id] = k

    def parse(self, text):
        k, used = key(text)
        return Parsed(tuple(sorted(self.by_key.get(k, ()))), k, used)

    def parse_literal(self, text):
        """The forms the instruction is as written: no normalisation but the qualifier order."""
        k, _ = key(text, ())
        return Parsed(tuple(sorted(self.by_literal.get(k, ()))), k, ())

    def rules_between(self, form_id, text):
        """The normalisations that make text form_id's instruction: none when it is the form as written (the
        qualifier order aside), else those that rewrote either side."""
        if form_id in self.parse_literal(text).forms:
            return ()
        return tuple(dict.fromkeys(self.form_rules[form_id] + key(text)[1]))

    def same_form(self, form_id, text):
        """(True when text is form_id's instruction, Parsed)."""
        p = self.parse(text)
        return p.key == self.form_key[form_id], p
