"""cp.reduce.async.bulk (9.7.9.25.4.2): both destinations x the full 8 redOp x 10 type product (the chapter's
table decides valid / invalid per cell), .noftz for f16/bf16 add (and f32 from PTX ISA 9.4), .L2::cache_hint
(global destination); PTX ISA 9.3 (EXT_AXES): .relaxed.scope, on the add row of the table (ext_keep)."""
from . import (cache_hint, derive_direction, hint_segments, instruction, mbarrier_operand, policy_operand, seg,
               size_operand)
from ..rules.common import SCOPES
from ..rules.reduce import REDOPS, TYPES, CELLS

FAMILY = "cp.reduce.async.bulk"
TEMPLATE = "copy.ptx.j2"  # shared with the other copy families

DEFAULTS = {"dir": "global.shared::cta", "dst": None, "src": None, "completion": None, "redop": "add",
            "type": "u32", "noftz": False, "cache_hint": False, "policy": None, "size_imm": None, "sem": ""}
AXES = (
    ("dir", ("shared::cluster.shared::cta", "global.shared::cta")),
    ("redop", REDOPS),
    ("type", TYPES),
    ("noftz", (False, True)),
    ("cache_hint", (False, True)),
)
# the qualifiers of PTX ISA 9.3 on the product's forms that ext_keep selects (model.family_forms)
EXT_AXES = (("sem", ("",) + tuple(f"relaxed.{s}" for s in SCOPES)),)


def ext_keep(q):
    """The .sem.scope forms generated: the .add row's u32, f16 and f32 cells (every destination, .noftz, hint)."""
    return q["redop"] == "add" and q["type"] in ("u32", "f16", "f32")


EXTRA = (
    {"redop": "add", "type": "f32", "noftz": True},                                  # .noftz off f16/bf16 add
    {"redop": "min", "type": "f16", "noftz": True},
    {"dir": "shared::cluster.shared::cta", "redop": "add", "type": "u32", "cache_hint": True},   # hint on S->S
    {"redop": "add", "type": "u32", "policy": True},                                 # policy without hint
    {"redop": "add", "type": "u32", "size_imm": 256},                                # immediate size
    {"redop": "add", "type": "u32", "size_imm": 24},                                 # not a multiple of 16
    {"dir": "shared::cluster.shared::cta", "redop": "add", "type": "u32", "size_imm": 8},
    {"redop": "add", "type": "u32", "completion": "mbarrier::complete_tx::bytes"},    # wrong completion
    {"dir": "shared::cluster.shared::cta", "redop": "add", "type": "u32", "completion": "bulk_group"},
    {"dir": "shared::cluster.global", "redop": "add", "type": "u32"},                # direction not in syntax
    {"redop": "add", "type": "b4x16"}, {"redop": "min", "type": "b6x16_p32"},       # packed tensor types
)
REQUIRES = ((lambda q: True, "reduce_bulk"), (lambda q: bool(q["sem"]), "reduce_bulk.sem"))
RULES = ("reduce_bulk.direction", "common.completion_mechanism", "reduce_bulk.redop_type_shared_cluster",
         "reduce_bulk.redop_type_global", "reduce_bulk.add_f16_bf16_requires_noftz",
         "reduce_bulk.noftz_only_add_f16_bf16", "common.cache_hint_needs_global",
         "common.cache_policy_requires_hint", "common.size_multiple_of_16", "reduce_bulk.no_packed_types",
         "reduce_bulk.relaxed_scope_shared_cluster")
KEEP_INVALID_PER_RULE = 2


def keep_invalid(q):
    """Every redOp x type cell of both destinations, plain (no .noftz, no hint): valid cells are valid forms,
    empty cells negative ones."""
    return not q["noftz"] and not q["cache_hint"]


def derive(q):
    derive_direction(q)


def form_id(q):
    op = q["redop"] + (".noftz" if q["noftz"] else "") + "." + q["type"]
    parts = ["cp.reduce.async.bulk", seg(f"{q['dst']}.{q['src']}.{q['completion']}"), op]
    parts += hint_segments(q)
    if q["size_imm"] is not None:
        parts.append(f"size_imm_{q['size_imm']}")
    if q["sem"]:
        parts.append(q["sem"])
    return "/".join(parts)


def _remote(q):
    return q["dst"] == "shared::cluster"


def instr(q):
    dst = {"global": "[%g_dst]", "shared::cluster": "[%c_dst]"}.get(q["dst"], "[%w_dst]")
    src = "[%g_src]" if q["src"] == "global" else "[%w_src]"
    return instruction("cp.reduce.async.bulk",
                       [q["sem"], q["dst"], q["src"], q["completion"], cache_hint(q), q["redop"], q["noftz"] and "noftz",
                        q["type"]],
                       [dst, src, size_operand(q), mbarrier_operand(q, _remote(q)), policy_operand(q)])


def run(q):
    return {"direction": f"{q['src']}->{q['dst']}", "completion": q["completion"], "redop": q["redop"],
            "type": q["type"], "noftz": q["noftz"], "cache_hint": q["cache_hint"], "remote": _remote(q),
            "size": q["size_imm"] if q["size_imm"] is not None else "args",
            "cell_allowed": q["type"] in CELLS.get(q["dst"], {}).get(q["redop"], ())}


def kernel(q):
    return {"completion": "mbarrier" if q["completion"].startswith("mbarrier") else "bulk_group",
            "cluster": q["dst"] == "shared::cluster", "tmap": False, "sm90": True, "policy": q["policy"],
            "remote": _remote(q)}
