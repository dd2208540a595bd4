"""cp.async (9.7.9.25.3.1): .ca/.cg, cp-size, src-size / ignore-src, .L2::cache_hint, .L2::{64,128,256}B,
.shared / .shared::cta."""
from . import cache_hint, instruction, policy_operand, seg

FAMILY = "cp.async"
TEMPLATE = "cp_async.ptx.j2"

DEFAULTS = {"cop": "ca", "space": "shared", "cp_size": 16, "src_op": "", "cache_hint": False,
            "policy": False, "prefetch": ""}
AXES = (
    ("cop", ("ca", "cg")),
    ("space", ("shared", "shared::cta")),
    ("cp_size", (4, 8, 16)),
    ("src_op", ("", "src_size", "ignore_src")),
    ("cache_hint", (False, True)),
    ("prefetch", ("", "L2::64B", "L2::128B", "L2::256B")),
)
# the cache-policy operand goes with the .L2::cache_hint qualifier in the product
AXIS_LINKS = (("policy", "cache_hint"),)

EXTRA = (
    # negative forms, one or two per rule
    {"cp_size": 2}, {"cp_size": 32},                                   # cp_async.cp_size_values
    {"cop": "cg", "cp_size": 8, "src_op": "src_size"},                 # cp_async.cg_cp_size_16
    {"space": "shared::cluster"},                                      # cp_async.dst_shared_cta
    {"src_op": "src_size+ignore_src"},                                 # cp_async.src_size_or_ignore_src
    {"policy": True},                                                  # common.cache_policy_requires_hint
    {"cop": "cg", "policy": True, "src_op": "src_size"},
    {"prefetch": "L2::512B"},                                          # cp_async.prefetch_size_values
)

REQUIRES = (
    (lambda q: True, "cp_async"),
    (lambda q: q["cache_hint"] or q["prefetch"] != "", "cp_async.l2_qualifiers"),
    (lambda q: "ignore_src" in q["src_op"], "cp_async.ignore_src"),
    (lambda q: q["space"] == "shared::cta", "cp_async.shared_cta"),
)
RULES = ("cp_async.cp_size_values", "cp_async.cg_cp_size_16", "cp_async.dst_shared_cta",
         "cp_async.src_size_or_ignore_src", "cp_async.prefetch_size_values", "common.cache_policy_requires_hint")
KEEP_INVALID_PER_RULE = 2


def form_id(q):
    parts = ["cp.async", f"{q['cop']}.{seg(q['space'])}.global", f"cp_size_{q['cp_size']}"]
    if q["src_op"]:
        parts.append(q["src_op"].replace("+", "."))
    if q["cache_hint"]:
        parts.append("L2_cache_hint")
    if q["prefetch"]:
        parts.append(seg(q["prefetch"]))
    if q["policy"] and not q["cache_hint"]:
        parts.append("cache_policy")
    return "/".join(parts)


def instr(q):
    return instruction("cp.async", [q["cop"], q["space"], "global", cache_hint(q), q["prefetch"]],
                       ["[%w_dst]", "[%g_src]", str(q["cp_size"]), "src_size" in q["src_op"] and "%size",
                        "ignore_src" in q["src_op"] and "%ignore", policy_operand(q)])


def run(q):
    return {"cop": q["cop"], "cp_size": q["cp_size"], "src_op": q["src_op"] or "none",
            "cache_hint": q["cache_hint"], "prefetch_size": q["prefetch"] or "none", "space": q["space"]}


def kernel(q):
    return {"completion": "cp_async.wait_group", "cluster": False, "tmap": False, "sm90": False,
            "policy": q["policy"], "remote": False}
