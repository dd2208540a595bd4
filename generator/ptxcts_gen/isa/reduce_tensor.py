"""cp.reduce.async.bulk.tensor (9.7.9.25.5.3): shared::cta -> global, every redOp, .tile / .im2col_no_offs (and
the default), .1d-.5d, .L2::cache_hint; PTX ISA 9.4: .im2col_no_offs::w (VOCAB_VALUES) and .override::global_address
/ .override::global_dim{_stride} (EXT_AXES), forms of the whole product only. The element type comes from the tensor map: run.types lists the types
the chapter's table allows for the redOp (the run tier varies them)."""
from . import (cache_hint, derive_direction, hint_segments, instruction, mbarrier_operand, override_qualifiers,
               override_segments, policy_operand, seg, tensor_operand, uses_override_registers)
from ..rules.reduce import REDOPS, TYPES, TENSOR_CELLS
from ..rules.tensor import IM2COL_LOAD, OVERRIDE_ATTRIBUTES, REDUCE_MODES, REDUCE_MODES_94, STORE_MODES, expected_coords

FAMILY = "cp.reduce.async.bulk.tensor"
TEMPLATE = "copy.ptx.j2"  # shared with the other copy families

DEFAULTS = {"dir": "global.shared::cta", "dst": None, "src": None, "dim": 2, "redop": "add", "load_mode": "tile",
            "completion": None, "cache_hint": False, "policy": None, "coords": None, "ovr_addr": False, "ovr_attr": ""}
AXES = (
    ("dim", (1, 2, 3, 4, 5)),
    ("redop", REDOPS),
    # the reduce's modes, then two it refuses: the first im2col load mode and the other store mode
    ("load_mode", REDUCE_MODES + tuple(m for m in (IM2COL_LOAD[0],) + STORE_MODES if m not in REDUCE_MODES)),
    ("cache_hint", (False, True)),
)
EXT_AXES = (("ovr_addr", (False, True)), ("ovr_attr", ("",) + OVERRIDE_ATTRIBUTES))


def ext_keep(q):
    """The PTX ISA 9.4 overrides enter as forms of the whole product only (model.whole_product), at boundaries."""
    return False


# the vocabulary (model.vocabulary_forms) also spells every form without .load_mode (the default .tile), which the
# product leaves to the EXTRA forms, and the PTX ISA 9.4 mode .im2col_no_offs::w (whole product only)
VOCAB_VALUES = {"load_mode": ("",) + REDUCE_MODES_94}
EXTRA = tuple(
    [{"dim": n, "redop": op, "load_mode": ""} for n in (1, 3, 5) for op in ("add", "xor")]   # default .tile
    + [
        {"dim": 3, "redop": "xor", "load_mode": "im2col"},     # the chapter's own example (.im2col on a reduce)
        {"dim": 4, "redop": "min", "load_mode": "im2col::w"},
        {"dim": 2, "redop": "add", "load_mode": "tile::gather4"},
        {"dim": 2, "redop": "add", "coords": 3}, {"dim": 4, "redop": "max", "coords": 2},      # coords count
        {"dim": 2, "redop": "add", "policy": True},                                            # policy w/o hint
        {"dim": 2, "redop": "add", "completion": "mbarrier::complete_tx::bytes"},              # completion
        {"dir": "shared::cluster.global", "dim": 2, "redop": "add"},                           # direction
    ])
REQUIRES = (
    (lambda q: True, "reduce_tensor"),
    (lambda q: q["ovr_addr"], "reduce_tensor.override_address"),
    (lambda q: bool(q["ovr_attr"]), "reduce_tensor.override_attribute"),
    (lambda q: q["load_mode"] in REDUCE_MODES_94, "reduce_tensor.im2col_no_offs_w"),
)
RULES = ("reduce_tensor.direction", "common.completion_mechanism", "reduce_tensor.load_mode", "tensor.coords_count",
         "tensor.im2col_min_3d", "common.cache_hint_needs_global", "common.cache_policy_requires_hint",
         "tensor.override_attribute_needs_address", "tensor.override_attribute_tile_only",
         "tensor.override_attribute_dim")
KEEP_INVALID_PER_RULE = 2


def derive(q):
    derive_direction(q, completion="bulk_group")
    if q["coords"] is None:
        q["coords"] = expected_coords(q)


def form_id(q):
    head = f"{q['dim']}d.{q['dst']}.{q['src']}.{q['redop']}" + (f".{q['load_mode']}" if q["load_mode"] else "")
    parts = ["cp.reduce.async.bulk.tensor", seg(head)]
    if q["completion"] != "bulk_group":
        parts.append(seg(q["completion"]))
    parts += hint_segments(q)
    if q["coords"] != expected_coords(q):
        parts.append(f"coords_{q['coords']}")
    parts += override_segments(q)
    return "/".join(parts)


def instr(q):
    tensor = tensor_operand(q["coords"], q)
    dst_src = [tensor, "[%w_src]"] if q["dst"] == "global" else ["[%w_dst]", tensor]
    return instruction("cp.reduce.async.bulk.tensor",
                       [f"{q['dim']}d", q["dst"], q["src"], q["redop"], q["load_mode"], q["completion"],
                        cache_hint(q)] + override_qualifiers(q),
                       dst_src + [mbarrier_operand(q, False), policy_operand(q)])


def run(q):
    return {"direction": f"{q['src']}->{q['dst']}", "dims": q["dim"], "redop": q["redop"],
            "types": list(TENSOR_CELLS.get(q["redop"], ())),
            # the element type is the tensor map's, not an instruction qualifier: ptxas cannot see it, so the
            # redOp x type table becomes run-tier cells (one run case per type; empty cells are negative)
            "type_cells": {t: ("allowed" if t in TENSOR_CELLS.get(q["redop"], ()) else "not_in_table")
                           for t in TYPES},
            "load_mode": q["load_mode"] or "tile",
            "completion": q["completion"], "cache_hint": q["cache_hint"], "coords": q["coords"]}


def kernel(q):
    return {"completion": "mbarrier" if q["completion"].startswith("mbarrier") else "bulk_group",
            "cluster": q["dst"] == "shared::cluster", "tmap": True, "sm90": True, "policy": q["policy"],
            "remote": False, **({"override": True} if uses_override_registers(q) else {})}
