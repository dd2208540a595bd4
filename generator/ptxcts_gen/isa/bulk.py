"""cp.async.bulk (9.7.9.25.4.1): four directions, .multicast::cluster + ctaMask, .L2::cache_hint,
.cp_mask + byteMask, size operand (register; immediate forms for the multiple-of-16 rule)."""
from . import cache_hint, derive_direction, instruction, mbarrier_operand, policy_operand, seg, size_operand

FAMILY = "cp.async.bulk"
TEMPLATE = "copy.ptx.j2"  # shared with the other copy families

DEFAULTS = {"dir": "shared::cta.global", "dst": None, "src": None, "completion": None, "multicast": False,
            "cache_hint": False, "policy": None, "cp_mask": False, "byte_mask": None, "size_imm": None,
            "mbar_operand": True}
AXES = (
    ("dir", ("shared::cta.global", "shared::cluster.global", "shared::cluster.shared::cta", "global.shared::cta")),
    ("multicast", (False, True)),
    ("cache_hint", (False, True)),
    ("cp_mask", (False, True)),
)
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
)
REQUIRES = (
    (lambda q: True, "bulk"),
    (lambda q: q["dst"] == "shared::cta", "bulk.dst_shared_cta"),
    (lambda q: q["cp_mask"], "bulk.cp_mask"),
)
RULES = ("bulk.direction", "common.completion_mechanism", "bulk.multicast_global_to_cluster",
         "bulk.cp_mask_shared_to_global", "bulk.cp_mask_requires_byte_mask", "common.cache_hint_needs_global",
         "common.cache_policy_requires_hint", "common.size_multiple_of_16", "bulk.mbarrier_operand_required")
KEEP_INVALID_PER_RULE = 2


def derive(q):
    derive_direction(q)
    if q["byte_mask"] is None:
        q["byte_mask"] = q["cp_mask"]


def form_id(q):
    parts = ["cp.async.bulk", seg(f"{q['dst']}.{q['src']}.{q['completion']}")]
    for flag, name in (("multicast", "multicast_cluster"), ("cache_hint", "L2_cache_hint"), ("cp_mask", "cp_mask")):
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
    return instruction("cp.async.bulk",
                       [q["dst"], q["src"], q["completion"], q["multicast"] and "multicast::cluster", cache_hint(q),
                        q["cp_mask"] and "cp_mask"],
                       [operand(q["dst"], "dst", q), operand(q["src"], "src", q), size_operand(q),
                        q["mbar_operand"] and mbarrier_operand(q, _remote(q)), q["multicast"] and "%cta_mask",
                        policy_operand(q), q["byte_mask"] and "%byte_mask"])


def run(q):
    return {"direction": f"{q['src']}->{q['dst']}", "completion": q["completion"], "multicast": q["multicast"],
            "cache_hint": q["cache_hint"], "cp_mask": q["cp_mask"], "remote": _remote(q),
            "size": q["size_imm"] if q["size_imm"] is not None else "args",
            # "the destination has to be in the shared memory of a different CTA within the cluster"
            "peer_must_differ": (q["dst"], q["src"]) == ("shared::cluster", "shared::cta")}


def kernel(q):
    return {"completion": "mbarrier" if q["completion"].startswith("mbarrier") else "bulk_group",
            "cluster": "shared::cluster" in (q["dst"], q["src"]), "tmap": False, "sm90": True,
            "policy": q["policy"], "remote": _remote(q)}
