"""cp.async.bulk (9.7.9.25.4.1): four directions, .multicast::cluster + ctaMask, .L2::cache_hint,
.cp_mask + byteMask, size operand (register; immediate forms for the multiple-of-16 rule).
PTX ISA 9.2-9.4 (EXT_AXES): .ignore_oob + ignoreBytesLeft/Right, .weak / .relaxed.scope with .b128,
.multicast::cluster::16b / ::32b (32-bit ctaMask), .report_mechanism."""
from . import (cache_hint, cta_mask_operand, derive_direction, instruction, mbarrier_operand, multicast_qualifier,
               multicast_segments, policy_operand, report_qualifier, report_segments, seg, size_operand,
               uses_9x_registers)
from ..rules.common import MULTICAST_WIDTHS, REPORTS, SCOPES

FAMILY = "cp.async.bulk"
TEMPLATE = "copy.ptx.j2"  # shared with the other copy families

DEFAULTS = {"dir": "shared::cta.global", "dst": None, "src": None, "completion": None, "multicast": False,
            "cache_hint": False, "policy": None, "cp_mask": False, "byte_mask": None, "size_imm": None,
            "mbar_operand": True, "ignore_oob": False, "sem": "", "b128": None, "mc_width": "", "report": ""}
AXES = (
    ("dir", ("shared::cta.global", "shared::cluster.global", "shared::cluster.shared::cta", "global.shared::cta")),
    ("multicast", (False, True)),
    ("cache_hint", (False, True)),
    ("cp_mask", (False, True)),
)
# the qualifiers of PTX ISA 9.2-9.4, each on every form of the product (model.family_forms)
EXT_AXES = (
    ("ignore_oob", (False, True)),
    ("sem", ("", "weak") + tuple(f"relaxed.{s}" for s in SCOPES)),
    ("mc_width", ("",) + MULTICAST_WIDTHS),
    ("report", ("",) + REPORTS),
)
EXT_QUALS = ("b128",)   # derived from .sem (derive)
EXTRA = (
    {"size_imm": 256}, {"dir": "global.shared::cta", "size_imm": 256},              # immediate size, valid
    {"size_imm": 24}, {"dir": "global.shared::cta", "size_imm": 40},                # common.size_multiple_of_16
    {"dir": "shared::cta.global", "completion": "bulk_group"},                      # common.completion_mechanism
    {"dir": "global.shared::cta", "completion": "mbarrier::complete_tx::bytes"},
    {"dir": "global.shared::cta", "cp_mask": True, "byte_mask": False},             # bulk.cp_mask_requires_byte_mask
    {"dir": "shared::cluster.global", "policy": True},                              # common.cache_policy_requires_hint
    {"dir": "global.global", "completion": "bulk_group"},                           # bulk.direction
    {"dir": "shared::cta.global", "multicast": True},                               # multicast, ::cta destination
    {"dir": "shared::cluster.shared::cta", "multicast": True},
    {"dir": "shared::cta.global", "mbar_operand": False},                           # no [mbar] operand
    # PTX ISA 9.2-9.4: combinations of the new qualifiers, and the spellings their syntax rules out
    {"ignore_oob": True, "cache_hint": True, "sem": "weak"},
    {"ignore_oob": True, "sem": "relaxed.gpu", "cache_hint": True},
    {"ignore_oob": True, "report": "mbarrier::report::disabled"},
    {"ignore_oob": True, "report": "mbarrier::report::validity::per_16bytes::8000"},  # report must be disabled
    {"dir": "shared::cluster.global", "multicast": True, "mc_width": "32b", "report": "mbarrier::report::validity::per_element::ff"},
    {"dir": "shared::cluster.global", "multicast": True, "mc_width": "16b", "sem": "relaxed.cluster"},
    {"sem": "relaxed.cta", "b128": False},                                          # .relaxed without .b128
    {"sem": "weak", "b128": True},                                                  # .b128 without .relaxed
    {"sem": "", "b128": True},
    {"dir": "global.shared::cta", "cp_mask": True, "sem": "relaxed.sys"},
)
REQUIRES = (
    (lambda q: True, "bulk"),
    (lambda q: q["dst"] == "shared::cta", "bulk.dst_shared_cta"),
    (lambda q: q["cp_mask"], "bulk.cp_mask"),
    (lambda q: q["ignore_oob"], "bulk.ignore_oob"),
    (lambda q: bool(q["sem"] or q["b128"]), "bulk.sem"),
    (lambda q: q["mc_width"] == "16b", "bulk.multicast_16b"),
    (lambda q: q["mc_width"] == "32b", "bulk.multicast_32b"),
    (lambda q: bool(q["report"]), "bulk.report"),
)
RULES = ("bulk.direction", "common.completion_mechanism", "bulk.multicast_global_to_cluster",
         "bulk.cp_mask_shared_to_global", "bulk.cp_mask_requires_byte_mask", "common.cache_hint_needs_global",
         "common.cache_policy_requires_hint", "common.size_multiple_of_16", "bulk.mbarrier_operand_required",
         "bulk.ignore_oob_global_to_shared_cta", "bulk.ignore_oob_report_disabled", "bulk.sem_type",
         "bulk.relaxed_scope_shared_to_cluster", "common.report_global_to_shared")
KEEP_INVALID_PER_RULE = 2


def derive(q):
    derive_direction(q)
    if q["byte_mask"] is None:
        q["byte_mask"] = q["cp_mask"]
    if q["b128"] is None:
        q["b128"] = q["sem"].startswith("relaxed")
    if not q["multicast"]:
        q["mc_width"] = ""   # a sub-qualifier of .multicast::cluster: nothing to spell without it


def form_id(q):
    parts = ["cp.async.bulk", seg(f"{q['dst']}.{q['src']}.{q['completion']}")]
    parts += multicast_segments(q)
    for flag, name in (("cache_hint", "L2_cache_hint"), ("cp_mask", "cp_mask")):
        if q[flag]:
            parts.append(name)
    if q["policy"] and not q["cache_hint"]:
        parts.append("cache_policy")
    if q["cp_mask"] and not q["byte_mask"]:
        parts.append("no_byte_mask")
    if q["size_imm"] is not None:
        parts.append(f"size_imm_{q['size_imm']}")
    if not q["mbar_operand"]:
        parts.append("no_mbar")
    parts += report_segments(q)
    if q["ignore_oob"]:
        parts.append("ignore_oob")
    if q["sem"]:
        parts.append(q["sem"])
    if q["b128"] != q["sem"].startswith("relaxed"):
        parts.append("b128" if q["b128"] else "no_b128")
    return "/".join(parts)


def _remote(q):
    return q["dst"] == "shared::cluster" and not q["multicast"]


def operand(space, role, q):
    if space == "global":
        return "[%g_src]" if role == "src" else "[%g_dst]"
    if role == "src":
        return "[%w_src]"
    return "[%c_dst]" if _remote(q) else "[%w_dst]"


def instr(q):
    # cp.async.bulk{.sem}{.scope}.dst.src.completion_mechanism{.report_mechanism}{.multicast}{.level::cache_hint}
    # {.ignore_oob}{.cp_mask}{.type}  (PTX ISA 9.4 syntax)
    return instruction("cp.async.bulk",
                       [q["sem"], q["dst"], q["src"], q["completion"], report_qualifier(q), multicast_qualifier(q),
                        cache_hint(q), q["ignore_oob"] and "ignore_oob", q["cp_mask"] and "cp_mask",
                        q["b128"] and "b128"],
                       [operand(q["dst"], "dst", q), operand(q["src"], "src", q), size_operand(q),
                        q["ignore_oob"] and "%ign_l", q["ignore_oob"] and "%ign_r",
                        q["mbar_operand"] and mbarrier_operand(q, _remote(q)), cta_mask_operand(q),
                        policy_operand(q), q["byte_mask"] and "%byte_mask"])


def run(q):
    r = {"direction": f"{q['src']}->{q['dst']}", "completion": q["completion"], "multicast": q["multicast"],
         "cache_hint": q["cache_hint"], "cp_mask": q["cp_mask"], "remote": _remote(q),
         "size": q["size_imm"] if q["size_imm"] is not None else "args",
         # "the destination has to be in the shared memory of a different CTA within the cluster"
         "peer_must_differ": (q["dst"], q["src"]) == ("shared::cluster", "shared::cta")}
    if q["ignore_oob"]:   # recorded only where set: the forms of PTX ISA <= 9.0 keep their run objects
        r["ignore_oob"] = True
    return r


def kernel(q):
    return {"completion": "mbarrier" if q["completion"].startswith("mbarrier") else "bulk_group",
            "cluster": "shared::cluster" in (q["dst"], q["src"]), "tmap": False, "sm90": True,
            "policy": q["policy"], "remote": _remote(q), "regs9x": uses_9x_registers(q)}
