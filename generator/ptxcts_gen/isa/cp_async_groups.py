"""cp.async completion (9.7.9.25.3.2 commit_group, 9.7.9.25.3.3 wait_group / wait_all, and the mbarrier
mechanism of 9.7.9.25.1.2 through cp.async.mbarrier.arrive{.noinc}): self-checking kernels.

Each form copies chunks k = 0, 1, 2 of `run.chunk_bytes` (16 KB; the run tier passes the size in args.size and
may take less where the device's shared memory is smaller) from src + k*size to window + dst_off + k*size, 16 bytes
per cp.async, and, after the wait under test, thread 0 compares each chunk the chapter says is complete with the
source: bit k of status word 2 is set when chunk k holds the source bytes (the run tier expects
`run.expect_bits`). The chunks are large so that a wait returning early is seen: the last cp.async of a chunk is
issued thousands of cycles after its first, and the kernel probes the last bytes of every checked chunk right
after the wait. Chunks after the last checked one copy 16 bytes (the group an early wait leaves pending is then the
last large one issued, its bytes still in flight). The group forms run `ROUNDS` rounds of issue, wait and checks,
each chunk's bit the AND of every round's (the first round runs code the SM has not fetched yet: a cold instruction
fetch between the wait and the probe once gave an early wait's last bytes the time to land on the H100).

The cp.async.mbarrier.arrive{.noinc} forms (flow `arrive`) run two phases of their mbarrier with the instruction
once in each: phase 0 checks the data of chunk 0 when the phase completes (bit 0), phase 1 that the phase is still
pending once its copy has landed and the asynchronous arrive-on has happened but a thread arrival is missing (bit 1:
the pending-count increment of the form without .noinc, whatever the timing) and that it completes after that
arrival (bit 2)."""

# bytes per chunk: large enough that a group is still in flight long after the previous one completed
CHUNK_BYTES = 16384
# rounds of issue, wait and checks in the group flows (the first runs cold code: see the template)
ROUNDS = 8

FAMILY = "cp.async.groups"
TEMPLATE = "cp_async_groups.ptx.j2"

DEFAULTS = {"instr": "cp.async.wait_group", "n": 0, "n_operand": "immediate", "flow": "", "state": "shared"}
AXES = ()
EXTRA = (
    # three committed groups, wait_group 1: the first two groups are complete
    {"instr": "cp.async.wait_group", "n": 1, "flow": "groups_3"},
    # wait_group 0 after three groups: all complete
    {"instr": "cp.async.wait_group", "n": 0, "flow": "groups_3"},
    # one group then two empty groups: wait_group 2 completes the first (empty groups count as groups)
    {"instr": "cp.async.wait_group", "n": 2, "flow": "empty_groups_2"},
    # two committed groups and one uncommitted cp.async: wait_all = commit_group + wait_group 0
    {"instr": "cp.async.wait_all", "flow": "groups_2.uncommitted_1"},
    # mbarrier completion: cp.async.mbarrier.arrive (pending count incremented) / .noinc (init count covers it)
    {"instr": "cp.async.mbarrier.arrive", "flow": "arrive"},
    {"instr": "cp.async.mbarrier.arrive.noinc", "flow": "arrive"},
    # the other spellings of its syntax, cp.async.mbarrier.arrive{.noinc}{.state}.b64 [addr] with .state = { .shared,
    # .shared::cta }: .shared::cta, and no state space, where addr is a generic address of the mbarrier (LLVM's
    # NVPTX back-end and CCCL's cuda::ptx write this spelling)
    {"instr": "cp.async.mbarrier.arrive", "flow": "arrive", "state": "shared::cta"},
    {"instr": "cp.async.mbarrier.arrive.noinc", "flow": "arrive", "state": "shared::cta"},
    {"instr": "cp.async.mbarrier.arrive", "flow": "arrive", "state": ""},
    {"instr": "cp.async.mbarrier.arrive.noinc", "flow": "arrive", "state": ""},
    # negative: N is not an integer constant
    {"instr": "cp.async.wait_group", "n": 0, "n_operand": "register", "flow": "groups_3"},
)
REQUIRES = (
    (lambda q: True, "cp_async"),
    (lambda q: q["instr"] in ("cp.async.wait_group", "cp.async.wait_all") or q["flow"] != "arrive",
     "cp_async.commit_group"),
    (lambda q: q["instr"] in ("cp.async.wait_group", "cp.async.wait_all"), "cp_async.wait_group"),
    (lambda q: q["instr"].startswith("cp.async.mbarrier.arrive"), "cp_async.mbarrier_arrive"),
    (lambda q: q["state"] == "shared::cta", "cp_async.mbarrier_arrive.shared_cta"),
)
RULES = ("cp_async.wait_group_n_constant",)
KEEP_INVALID_PER_RULE = 2


def form_id(q):
    parts = [q["instr"]]
    if q["instr"] == "cp.async.wait_group":
        parts.append(f"N_{q['n']}" if q["n_operand"] == "immediate" else "N_register")
    if q["instr"].startswith("cp.async.mbarrier.arrive") and q["state"] != "shared":
        parts.append(q["state"].replace("::", "_") or "generic")
    parts.append(q["flow"])
    return "/".join(parts)


def instr(q):
    if q["instr"] == "cp.async.wait_group":
        return f"cp.async.wait_group {q['n'] if q['n_operand'] == 'immediate' else '%r18'};"
    if q["instr"] == "cp.async.wait_all":
        return "cp.async.wait_all;"
    if not q["state"]:
        return f"{q['instr']}.b64 [%mbar_gen];"   # the generic address of mbar (templates/cp_async_groups.ptx.j2)
    return f"{q['instr']}.{q['state']}.b64 [%mbar];"


def _chunks_after_wait(q):
    if q["flow"] == "groups_3":
        return 3 - q["n"]
    if q["flow"] == "empty_groups_2":
        return 1
    return 3 if q["flow"].startswith("groups_2") else 1


# The arrive flow's phase checks after its chunk bit (bit 0), in templates/cp_async_groups.ptx.j2: bit 1, phase 1
# still pending after its copy landed (cp.async.wait_all, then 64 polls) and before the thread's last own arrival;
# bit 2, phase 1 complete after that arrival. harness/runcore/src/testbeds/abi_cp_async.cpp names them in a failure.
ARRIVE_PHASE_BITS = 0b110
# mbarrier.init count of the arrive flow: two arrivals of thread 0 per phase, plus the asynchronous arrive-on
# with .noinc (without .noinc the instruction increments the pending count first: the pair counts for nothing).
THREAD_ARRIVALS = 2


def run(q):
    n = _chunks_after_wait(q)
    arrive = q["flow"] == "arrive"
    return {"chunks": 3 if q["flow"].startswith("groups") else 1, "chunk_bytes": CHUNK_BYTES,
            "checked_after_wait": n, "expect_bits": ((1 << n) - 1) | (ARRIVE_PHASE_BITS if arrive else 0),
            "flow": q["flow"], "completion": "mbarrier" if arrive else "cp_async.group",
            "mbarrier_count": THREAD_ARRIVALS + (1 if q["instr"].endswith(".noinc") else 0)}


def kernel(q):
    return {"completion": "self_check.cp_async", "cluster": False, "tmap": False, "sm90": False,
            "policy": False, "remote": False, "rounds": 1 if q["flow"] == "arrive" else ROUNDS,
            **({"generic_mbar": True} if q["flow"] == "arrive" and not q["state"] else {})}
