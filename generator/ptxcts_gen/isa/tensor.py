"""cp.async.bulk.tensor (9.7.9.25.5.2): .1d-.5d; loads global -> .shared::cta / .shared::cluster with load modes
.tile, .tile::gather4, .im2col, .im2col::w, .im2col::w::128, .multicast::cluster, .cta_group::1/::2; stores
.shared::cta -> global with .tile, .tile::scatter4, .im2col_no_offs; .L2::cache_hint; tensorCoords and
im2colInfo vector lengths. PTX ISA 9.4 (EXT_AXES): .multicast::cluster::16b / ::32b (32-bit ctaMask) and
.report_mechanism, on the forms ext_keep selects; .override::global_address and .override::global_dim /
::global_dim_stride (EXT_AXES ovr_addr, ovr_attr) with their operands inside the tensor-map bracket, and the store
mode .im2col_no_offs::w (VOCAB_VALUES): forms of the whole product only (model.whole_product)."""
from . import (cache_hint, cta_mask_operand, derive_direction, hint_segments, im2col_operand, instruction,
               mbarrier_operand, multicast_qualifier, multicast_segments, override_qualifiers, override_segments,
               policy_operand, report_qualifier, report_segments, seg, tensor_operand, uses_9x_registers,
               uses_override_registers)
from ..rules.common import MULTICAST_WIDTHS, REPORTS
from ..rules.tensor import MODES, OVERRIDE_ATTRIBUTES, STORE_MODES_94, expected_coords, expected_im2col_info

FAMILY = "cp.async.bulk.tensor"
TEMPLATE = "copy.ptx.j2"  # shared with the other copy families

DEFAULTS = {"dir": "shared::cluster.global", "dst": None, "src": None, "dim": 2, "load_mode": "tile",
            "completion": None, "multicast": False, "cta_group": "", "cache_hint": False, "policy": None,
            "coords": None, "im2col_info": None, "mc_width": "", "report": "", "ovr_addr": False, "ovr_attr": ""}
AXES = (
    ("dir", ("shared::cta.global", "shared::cluster.global", "global.shared::cta")),
    ("dim", (1, 2, 3, 4, 5)),
    ("load_mode", MODES),
    ("multicast", (False, True)),
    ("cta_group", ("", "cta_group::1", "cta_group::2")),
    ("cache_hint", (False, True)),
)
EXT_AXES = (("mc_width", ("",) + MULTICAST_WIDTHS), ("report", ("",) + REPORTS), ("ovr_addr", (False, True)),
            ("ovr_attr", ("",) + OVERRIDE_ATTRIBUTES))


def ext_keep(q):
    """The 9.4 forms generated: each mode at one dimension (2d for the tile modes, 3d for im2col), without cache hint
    and .cta_group (the vocabulary, model.vocabulary_forms, knows every combination)."""
    return (q["dim"] == (3 if q["load_mode"].startswith("im2col") else 2) and not q["cache_hint"]
            and not q["cta_group"] and not q["ovr_addr"] and not q["ovr_attr"])


# the vocabulary (model.vocabulary_forms) also spells every form without .load_mode (the default .tile), which the
# product leaves to the EXTRA forms, and the PTX ISA 9.4 store mode .im2col_no_offs::w (whole product only)
VOCAB_VALUES = {"load_mode": ("",) + STORE_MODES_94}
EXTRA = tuple(
    # the default load mode (no .load_mode qualifier: .tile) for every direction and dimension
    [{"dir": d, "dim": n, "load_mode": ""} for d in ("shared::cta.global", "shared::cluster.global",
                                                     "global.shared::cta") for n in (1, 2, 3, 4, 5)]
    + [
        {"dim": 2, "coords": 3}, {"dir": "global.shared::cta", "dim": 3, "coords": 2},        # coords count
        {"dim": 2, "load_mode": "tile::gather4", "coords": 2},
        {"dir": "shared::cta.global", "dim": 3, "load_mode": "im2col"},                      # im2col, 3d: ok
        {"dim": 4, "load_mode": "im2col", "im2col_info": 1},                                  # im2colInfo length
        {"dim": 5, "load_mode": "im2col::w", "im2col_info": 3},
        {"dim": 3, "load_mode": "tile", "im2col_info": 1},                                    # im2colInfo on tile
        {"dir": "global.shared::cta", "dim": 3, "load_mode": "im2col_no_offs", "im2col_info": 1},
        {"dir": "shared::cta.global", "dim": 2, "multicast": True},                           # multicast, ::cta dst
        {"dir": "shared::cta.global", "dim": 3, "multicast": True, "load_mode": "im2col"},
        {"dir": "global.shared::cta", "dim": 2, "cta_group": "cta_group::1"},                 # cta_group on store
        {"dir": "global.shared::cta", "dim": 1, "cta_group": "cta_group::2"},
        {"dir": "shared::cluster.global", "dim": 2, "completion": "bulk_group"},              # completion
        {"dir": "global.shared::cta", "dim": 2, "completion": "mbarrier::complete_tx::bytes"},
        {"dim": 2, "policy": True},                                                           # policy w/o hint
        {"dir": "shared::cluster.shared::cta", "dim": 2},                                     # direction
        {"dir": "shared::cluster.global", "dim": 2, "load_mode": "tile::scatter4"},           # store mode on load
        {"dir": "shared::cta.global", "dim": 3, "load_mode": "im2col_no_offs"},
        {"dir": "global.shared::cta", "dim": 2, "load_mode": "tile::gather4"},                # load mode on store
        {"dir": "global.shared::cta", "dim": 3, "load_mode": "im2col"},
        {"dir": "global.shared::cta", "dim": 4, "load_mode": "im2col::w"},
        {"dir": "shared::cta.global", "dim": 2, "load_mode": "im2col"},                      # im2col below 3d
        {"dir": "shared::cluster.global", "dim": 2, "load_mode": "im2col::w"},
        {"dir": "shared::cta.global", "dim": 3, "load_mode": "tile::gather4"},               # gather4 not 2d
        {"dir": "global.shared::cta", "dim": 3, "load_mode": "tile::scatter4"},              # scatter4 not 2d
    ])


def _cluster_dst(q):
    return q["dst"] == "shared::cluster"


REQUIRES = (
    (lambda q: True, "tensor"),
    (lambda q: q["dst"] == "shared::cta", "tensor.dst_shared_cta"),
    (lambda q: q["load_mode"] == "tile::gather4" and q["dst"] == "shared::cluster", "tensor.gather4.cluster"),
    (lambda q: q["load_mode"] == "tile::gather4" and q["dst"] != "shared::cluster", "tensor.gather4.cta"),
    (lambda q: q["load_mode"] == "im2col::w" and q["dst"] == "shared::cluster", "tensor.im2col_w.cluster"),
    (lambda q: q["load_mode"] == "im2col::w" and q["dst"] != "shared::cluster", "tensor.im2col_w.cta"),
    (lambda q: q["load_mode"] == "tile::scatter4", "tensor.scatter4"),
    (lambda q: q["load_mode"] == "im2col::w::128", "tensor.im2col_w_128"),
    (lambda q: bool(q["cta_group"]), "tensor.cta_group"),
    (lambda q: q["mc_width"] == "16b", "tensor.multicast_16b"),
    (lambda q: q["mc_width"] == "32b", "tensor.multicast_32b"),
    (lambda q: bool(q["report"]), "tensor.report"),
    (lambda q: q["ovr_addr"], "tensor.override_address"),
    (lambda q: bool(q["ovr_attr"]), "tensor.override_attribute"),
    (lambda q: q["load_mode"] in STORE_MODES_94, "tensor.im2col_no_offs_w"),
)
RULES = ("tensor.direction", "common.completion_mechanism", "tensor.load_mode_load", "tensor.load_mode_store",
         "tensor.coords_count", "tensor.im2col_min_3d", "tensor.gather4_scatter4_2d",
         "tensor.im2col_info_only_im2col", "tensor.im2col_info_length", "tensor.multicast_dst_cluster",
         "tensor.cta_group_mbarrier_only", "common.cache_policy_requires_hint", "common.report_global_to_shared",
         "tensor.override_attribute_needs_address", "tensor.override_attribute_tile_only",
         "tensor.override_attribute_multicast_32b", "tensor.override_attribute_dim")
KEEP_INVALID_PER_RULE = 2


def derive(q):
    derive_direction(q)
    if not q["multicast"]:
        q["mc_width"] = ""   # a sub-qualifier of .multicast::cluster
    if q["coords"] is None:
        q["coords"] = expected_coords(q)
    if q["im2col_info"] is None:
        q["im2col_info"] = expected_im2col_info(q) if q["src"] == "global" else 0


def form_id(q):
    head = f"{q['dim']}d.{q['dst']}.{q['src']}" + (f".{q['load_mode']}" if q["load_mode"] else "")
    parts = ["cp.async.bulk.tensor", seg(head)]
    if q["completion"] != ("bulk_group" if q["dst"] == "global" else "mbarrier::complete_tx::bytes"):
        parts.append(seg(q["completion"]))
    parts += multicast_segments(q)
    if q["cta_group"]:
        parts.append(seg(q["cta_group"]))
    parts += hint_segments(q)
    if q["coords"] != expected_coords(q):
        parts.append(f"coords_{q['coords']}")
    if q["im2col_info"] != (expected_im2col_info(q) if q["src"] == "global" else 0):
        parts.append(f"im2col_info_{q['im2col_info']}")
    parts += report_segments(q)
    parts += override_segments(q)
    return "/".join(parts)


def _remote(q):
    return q["dst"] == "shared::cluster" and not q["multicast"]


def instr(q):
    remote = _remote(q)
    tensor = tensor_operand(q["coords"], q)
    dst_src = [tensor, "[%w_src]"] if q["dst"] == "global" else ["[%c_dst]" if remote else "[%w_dst]", tensor]
    return instruction("cp.async.bulk.tensor",
                       [f"{q['dim']}d", q["dst"], q["src"], q["load_mode"], q["completion"], report_qualifier(q),
                        multicast_qualifier(q), q["cta_group"], cache_hint(q)] + override_qualifiers(q),
                       dst_src + [mbarrier_operand(q, remote), q["im2col_info"] and im2col_operand(q["im2col_info"]),
                                  cta_mask_operand(q), policy_operand(q)])


def run(q):
    return {"direction": f"{q['src']}->{q['dst']}", "dims": q["dim"], "load_mode": q["load_mode"] or "tile",
            "completion": q["completion"], "multicast": q["multicast"], "cta_group": q["cta_group"] or "none",
            "cache_hint": q["cache_hint"], "coords": q["coords"], "im2col_info": q["im2col_info"],
            "remote": _remote(q),
            # "Starting co-ordinates for Bounding Box (tensorCoords) must be non-negative." (.global.shared::cta)
            "coords_nonnegative": q["dst"] == "global"}


def kernel(q):
    return {"completion": "mbarrier" if q["completion"].startswith("mbarrier") else "bulk_group",
            "cluster": q["dst"] == "shared::cluster", "tmap": True, "sm90": True, "policy": q["policy"],
            "remote": _remote(q), "regs9x": uses_9x_registers(q),
            **({"override": True} if uses_override_registers(q) else {})}
