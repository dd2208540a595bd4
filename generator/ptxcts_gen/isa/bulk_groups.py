"""Bulk async-group completion (9.7.9.25.6): cp.async.bulk.commit_group and cp.async.bulk.wait_group{.read} N,
as self-checking kernels. Each form copies 16-byte chunks k = 0, 1, 2 from window + src_off + 16k to
dst + 16k with cp.async.bulk.global.shared::cta.bulk_group; after the wait under test thread 0 compares each chunk
the chapter says is complete with its source bytes: bit k of status word 2 (run.expect_bits)."""

FAMILY = "cp.async.bulk.groups"
TEMPLATE = "bulk_groups.ptx.j2"

DEFAULTS = {"instr": "cp.async.bulk.wait_group", "n": 0, "n_operand": "immediate", "flow": ""}
AXES = ()
EXTRA = (
    # three committed bulk groups; wait_group 1 completes the first two, wait_group 0 all three
    {"instr": "cp.async.bulk.wait_group", "n": 1, "flow": "groups_3"},
    {"instr": "cp.async.bulk.wait_group", "n": 0, "flow": "groups_3"},
    # .read: after it the source may be overwritten; the destination must still receive the original bytes
    {"instr": "cp.async.bulk.wait_group.read", "n": 0, "flow": "read_then_overwrite"},
    {"instr": "cp.async.bulk.wait_group.read", "n": 1, "flow": "groups_3"},
    # an empty bulk group counts as a group: commit (1 copy), commit (empty), wait_group 1 completes the first
    {"instr": "cp.async.bulk.commit_group", "flow": "empty_group"},
    # negative: N is not an integer constant
    {"instr": "cp.async.bulk.wait_group", "n": 0, "n_operand": "register", "flow": "groups_3"},
)
# every flow commits and waits (the copies under the groups are cp.async.bulk shared::cta -> global)
REQUIRES = (
    (lambda q: True, "bulk"),
    (lambda q: True, "bulk.commit_group"),
    (lambda q: True, "bulk.wait_group"),
)
RULES = ("bulk.wait_group_n_constant",)
KEEP_INVALID_PER_RULE = 2


def form_id(q):
    parts = [q["instr"]]
    if q["instr"].startswith("cp.async.bulk.wait_group"):
        parts.append(f"N_{q['n']}" if q["n_operand"] == "immediate" else "N_register")
    parts.append(q["flow"])
    return "/".join(parts)


def instr(q):
    if q["instr"].startswith("cp.async.bulk.wait_group"):
        return f"{q['instr']} {q['n'] if q['n_operand'] == 'immediate' else '%r18'};"
    return "cp.async.bulk.commit_group;"


def run(q):
    if q["flow"] == "groups_3":
        n = 3 - q["n"]
        chunks = 3
    else:
        n, chunks = 1, 1
    return {"chunks": chunks, "chunk_bytes": 16, "checked_after_wait": n, "expect_bits": (1 << n) - 1,
            "flow": q["flow"], "read_only_wait": q["instr"].endswith(".read")}


def kernel(q):
    return {"completion": "self_check.bulk_group", "cluster": False, "tmap": False, "sm90": True, "policy": False,
            "remote": False}
