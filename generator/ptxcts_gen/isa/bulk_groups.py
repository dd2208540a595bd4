"""Bulk async-group completion (9.7.9.25.6): cp.async.bulk.commit_group and cp.async.bulk.wait_group{.read} N,
and fence.proxy.async as the bulk copies use it (9.7.9.25.2), as self-checking kernels. Each completion form copies
chunks k = 0, 1, 2 of `run.chunk_bytes` (64 KB; the run tier passes the size in args.size and may take less where
the device's shared memory is smaller) from window + src_off + k*size to dst + k*size, one
cp.async.bulk.global.shared::cta.bulk_group each; after the wait under test thread 0 checks each chunk the chapter
says is complete: bit k of status word 2 (run.expect_bits). Large chunks keep the copy engine busy for thousands of
cycles, so a wait that returns early is seen (templates/bulk_groups.ptx.j2 says how). The fence.proxy.async forms
copy one 16-byte chunk. Chunks after the last checked one copy 16 bytes (the group an early wait leaves pending is then
the last large one issued)."""

# bytes per chunk of the completion forms (three fit in an sm_90 CTA's 227 KB of shared memory)
CHUNK_BYTES = 65536

from . import seg

FAMILY = "cp.async.bulk.groups"
TEMPLATE = "bulk_groups.ptx.j2"

DEFAULTS = {"instr": "cp.async.bulk.wait_group", "n": 0, "n_operand": "immediate", "flow": "", "space": ""}
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
    # PTX ISA 9.5: .sync_restrict::proxy::async (shared/spec/PTX9x.md), and its combination with .read
    {"instr": "cp.async.bulk.wait_group.sync_restrict::proxy::async", "n": 1, "flow": "groups_3"},
    {"instr": "cp.async.bulk.wait_group.sync_restrict::proxy::async", "n": 0, "flow": "groups_3"},
    {"instr": "cp.async.bulk.wait_group.read.sync_restrict::proxy::async", "n": 0, "flow": "groups_3"},
    # fence.proxy.async as the bulk copies use it (9.7.9.25.2): a generic-proxy write, the fence, then an
    # async-proxy access of the same bytes: the bulk copy must see (read) / land after (write) the generic write
    {"instr": "fence.proxy.async", "flow": "generic_write_then_bulk_read"},
    {"instr": "fence.proxy.async", "space": "shared::cta", "flow": "generic_write_then_bulk_read"},
    {"instr": "fence.proxy.async", "space": "shared::cluster", "flow": "generic_write_then_bulk_read"},
    {"instr": "fence.proxy.async", "space": "global", "flow": "generic_write_then_bulk_write"},
)
# every flow commits and waits (the copies under the groups are cp.async.bulk shared::cta -> global)
REQUIRES = (
    (lambda q: True, "bulk"),
    (lambda q: True, "bulk.commit_group"),
    (lambda q: True, "bulk.wait_group"),
    (lambda q: q["instr"] == "fence.proxy.async", "fence_proxy_async"),
    (lambda q: "sync_restrict::proxy::async" in q["instr"], "bulk.wait_group_sync_restrict"),
)
RULES = ("bulk.wait_group_n_constant", "bulk.wait_group_sync_restrict_not_read")
KEEP_INVALID_PER_RULE = 2


def form_id(q):
    parts = [q["instr"]]
    if q["space"]:
        parts.append(seg(q["space"]))
    if q["instr"].startswith("cp.async.bulk.wait_group"):
        parts[0] = seg(parts[0])
        parts.append(f"N_{q['n']}" if q["n_operand"] == "immediate" else "N_register")
    parts.append(q["flow"])
    return "/".join(parts)


def instr(q):
    if q["instr"].startswith("cp.async.bulk.wait_group"):
        return f"{q['instr']} {q['n'] if q['n_operand'] == 'immediate' else '%r18'};"
    if q["instr"] == "fence.proxy.async":
        return "fence.proxy.async" + (f".{q['space']};" if q["space"] else ";")
    return "cp.async.bulk.commit_group;"


def run(q):
    if q["flow"] == "groups_3":
        n = 3 - q["n"]
        chunks = 3
    else:
        n, chunks = 1, 1
    out = {"chunks": chunks, "chunk_bytes": 16 if q["instr"] == "fence.proxy.async" else CHUNK_BYTES, "checked_after_wait": n, "expect_bits": (1 << n) - 1,
           "flow": q["flow"], "read_only_wait": ".read" in q["instr"]}
    if q["flow"] == "generic_write_then_bulk_read":
        # the kernel overwrites source chunk 0 with its bitwise not before the fence and the copy
        out["expect_window_src_chunk0"] = "not_original"
        out["expect_dst_chunk0"] = "not_original_src"
    elif q["flow"] == "generic_write_then_bulk_write":
        # the kernel writes ~src to dst chunk 0 before the fence; the bulk copy then writes src over it
        out["expect_window_src_chunk0"] = "original"
        out["expect_dst_chunk0"] = "original_src"
    return out


def kernel(q):
    flow = "self_check.fence_proxy_async" if q["instr"] == "fence.proxy.async" else "self_check.bulk_group"
    return {"completion": flow, "cluster": False, "tmap": False, "sm90": True, "policy": False,
            "remote": False}
