"""cp.async.bulk.prefetch.L2 (9.7.9.25.4.3): global -> L2, .L2::cache_hint, size operand; PTX ISA 9.4 (EXT_AXES):
.level::eviction_priority = .L2::evict_last."""
from . import cache_hint, hint_segments, instruction, policy_operand, seg, size_operand

FAMILY = "cp.async.bulk.prefetch"
TEMPLATE = "prefetch.ptx.j2"  # shared by both prefetch families

DEFAULTS = {"dst": "L2", "src": "global", "cache_hint": False, "policy": None, "size_imm": None, "eviction": ""}
AXES = (("cache_hint", (False, True)),)
EXT_AXES = (("eviction", ("", "L2::evict_last")),)
EXTRA = (
    {"eviction": "L2::evict_last", "size_imm": 256},
    {"size_imm": 256}, {"size_imm": 24}, {"cache_hint": True, "size_imm": 72},    # common.size_multiple_of_16
    {"policy": True},                                                             # policy without hint
)
REQUIRES = ((lambda q: True, "bulk_prefetch"),
            (lambda q: bool(q["eviction"]), "bulk_prefetch.eviction_priority"))
RULES = ("common.cache_policy_requires_hint", "common.size_multiple_of_16",
         "bulk_prefetch.eviction_priority_or_cache_hint")
KEEP_INVALID_PER_RULE = 2


def derive(q):
    if q["policy"] is None:
        q["policy"] = q["cache_hint"]


def form_id(q):
    parts = ["cp.async.bulk.prefetch", "L2.global"]
    parts += hint_segments(q)
    if q["size_imm"] is not None:
        parts.append(f"size_imm_{q['size_imm']}")
    if q["eviction"]:
        parts.append(seg(q["eviction"]))
    return "/".join(parts)


def instr(q):
    return instruction("cp.async.bulk.prefetch", ["L2", "global", cache_hint(q), q["eviction"]],
                       ["[%g_src]", size_operand(q), policy_operand(q)])


def run(q):
    return {"cache_hint": q["cache_hint"], "size": q["size_imm"] if q["size_imm"] is not None else "args"}


def kernel(q):
    return {"completion": "prefetch", "cluster": False, "tmap": False, "sm90": True, "policy": q["policy"],
            "remote": False}
