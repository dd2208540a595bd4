"""cp.async.bulk.prefetch.tensor (9.7.9.25.5.4): global -> L2, every load mode and dimension, im2colInfo forms,
.L2::cache_hint; PTX ISA 9.4 (EXT_AXES): .level::eviction_priority = .L2::evict_last, and .override::global_address
/ .override::global_dim{_stride} with their operands (forms of the whole product only)."""
from . import (cache_hint, hint_segments, im2col_operand, instruction, override_qualifiers, override_segments,
               policy_operand, seg, tensor_operand, uses_override_registers)
from ..rules.tensor import LOAD_MODES, MODES, OVERRIDE_ATTRIBUTES, WIDE_MODES, expected_coords, expected_im2col_info

FAMILY = "cp.async.bulk.prefetch.tensor"
TEMPLATE = "prefetch.ptx.j2"  # shared by both prefetch families

DEFAULTS = {"dst": "L2", "src": "global", "dim": 2, "load_mode": "tile", "cache_hint": False, "policy": None,
            "coords": None, "im2col_info": None, "eviction": "", "ovr_addr": False, "ovr_attr": ""}
AXES = (
    ("dim", (1, 2, 3, 4, 5)),
    ("load_mode", LOAD_MODES + tuple(m for m in MODES if m not in LOAD_MODES)),   # the load modes, then the others
    ("cache_hint", (False, True)),
)
EXT_AXES = (("eviction", ("", "L2::evict_last")), ("ovr_addr", (False, True)),
            ("ovr_attr", ("",) + OVERRIDE_ATTRIBUTES))


def ext_keep(q):
    """The 9.4 forms generated: the load modes at 2d (tile modes) and 3d (im2col modes)."""
    return q["dim"] == (3 if q["load_mode"].startswith("im2col") else 2) and not q["ovr_addr"] and not q["ovr_attr"]


# the vocabulary (model.vocabulary_forms) also spells every form without .load_mode (the default .tile), which the
# product leaves to the EXTRA forms
VOCAB_VALUES = {"load_mode": ("",)}
EXTRA = tuple(
    [{"dim": n, "load_mode": ""} for n in (1, 2, 3, 4, 5)]                           # default .tile
    + [
        {"dim": 3, "coords": 2}, {"dim": 2, "load_mode": "tile::gather4", "coords": 2},   # coords count
        {"dim": 5, "load_mode": "im2col", "im2col_info": 2},                               # im2colInfo length
        {"dim": 4, "load_mode": "im2col::w::128", "im2col_info": 1},
        {"dim": 3, "load_mode": "tile", "im2col_info": 1},                                 # im2colInfo on tile
        {"dim": 2, "policy": True},                                                        # policy w/o hint
    ])
REQUIRES = (
    (lambda q: True, "prefetch_tensor"),
    (lambda q: q["load_mode"] == "tile::gather4", "prefetch_tensor.gather4"),
    (lambda q: q["load_mode"] in WIDE_MODES, "prefetch_tensor.im2col_w"),
    (lambda q: bool(q["eviction"]), "prefetch_tensor.eviction_priority"),
    (lambda q: q["ovr_addr"], "prefetch_tensor.override_address"),
    (lambda q: bool(q["ovr_attr"]), "prefetch_tensor.override_attribute"),
)
RULES = ("prefetch_tensor.load_mode", "tensor.coords_count", "tensor.im2col_min_3d", "tensor.gather4_scatter4_2d",
         "tensor.im2col_info_only_im2col", "tensor.im2col_info_length", "common.cache_policy_requires_hint",
         "prefetch_tensor.eviction_priority_or_cache_hint", "tensor.override_attribute_needs_address",
         "tensor.override_attribute_tile_only", "tensor.override_attribute_dim")
KEEP_INVALID_PER_RULE = 2


def derive(q):
    if q["policy"] is None:
        q["policy"] = q["cache_hint"]
    if q["coords"] is None:
        q["coords"] = expected_coords(q)
    if q["im2col_info"] is None:
        q["im2col_info"] = expected_im2col_info(q)


def form_id(q):
    head = f"{q['dim']}d.L2.global" + (f".{q['load_mode']}" if q["load_mode"] else "")
    parts = ["cp.async.bulk.prefetch.tensor", seg(head)]
    parts += hint_segments(q)
    if q["coords"] != expected_coords(q):
        parts.append(f"coords_{q['coords']}")
    if q["im2col_info"] != expected_im2col_info(q):
        parts.append(f"im2col_info_{q['im2col_info']}")
    if q["eviction"]:
        parts.append(seg(q["eviction"]))
    parts += override_segments(q)
    return "/".join(parts)


def instr(q):
    return instruction("cp.async.bulk.prefetch.tensor", [f"{q['dim']}d", "L2", "global", q["load_mode"], cache_hint(q),
                                                        q["eviction"]] + override_qualifiers(q),
                       [tensor_operand(q["coords"], q), q["im2col_info"] and im2col_operand(q["im2col_info"]),
                        policy_operand(q)])


def run(q):
    return {"dims": q["dim"], "load_mode": q["load_mode"] or "tile", "cache_hint": q["cache_hint"],
            "coords": q["coords"], "im2col_info": q["im2col_info"]}


def kernel(q):
    return {"completion": "prefetch", "cluster": False, "tmap": True, "sm90": True, "policy": q["policy"],
            "remote": False, **({"override": True} if uses_override_registers(q) else {})}
