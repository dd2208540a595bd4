"""A plan as groups of tasks: one group per tier, toolchain and device (a GPU tier) or per tier and toolchain (a
CPU tier); the run tier's group has one task per shard, every other group one task. Each task runs one tier's
command line (`./ptxcts <tier> ...`) into its own folder of the results tree:

    RESULTS/fleet.json                         the submission: the plan, the groups, the jobs (fleet/record.py)
    RESULTS/runs/<group>/shard-<i>/            what task i of the group wrote (results.json, explore.json, ...)
    RESULTS/runs/<group>/shard-<i>/task.json   how the task went: state, reason, exit, times, host, job
    RESULTS/logs/<group>-<i>.log               the task's output (appended across requeues)

A group's id is `<tier>.<toolchain>.<device>` (the parts it has), e.g. `run.13.0.h100`, `compile.13.5`,
`litmus.h100`. The shards of one run-tier group share one run id, so `merge`, `report` and `gate` see them as
one run and name a shard that is missing.
"""
import hashlib
import os

from fleet import gating
from fleet import plan as planmod

# What each tier is: on a GPU or not, per toolchain or not, and whether an interrupted task resumes
# (`--resume DIR`) or starts again in a fresh folder.
TIER = {
    "run":      {"gpu": True,  "toolchain": True,  "resume": True},
    "explore":  {"gpu": True,  "toolchain": True,  "resume": True},
    "selftest": {"gpu": True,  "toolchain": True,  "resume": False},
    "litmus":   {"gpu": True,  "toolchain": False, "resume": False},
    "compile":  {"gpu": False, "toolchain": True,  "resume": True},
    "lower":    {"gpu": False, "toolchain": True,  "resume": False},
}
assert set(TIER) == set(planmod.TIERS)

# The document each tier leaves in its folder (the first that exists decides that the task wrote one).
DOCUMENT = {"run": "results.json", "compile": "results.json", "lower": "results.json",
            "explore": "explore.json", "selftest": "selftest.json", "litmus": "litmus.json"}


def group_id(tier, toolchain, device):
    """`<tier>.<toolchain>.<device>`; a toolchain given as a ptxas path is named by its digest (`tc-1a2b3c4d`)."""
    if toolchain and "/" in toolchain:
        toolchain = "tc-" + hashlib.sha256(toolchain.encode()).hexdigest()[:8]
    return ".".join(p for p in (tier, toolchain, device) if p)


def groups(plan, stamp):
    """The plan's groups, in a stable order: [{id, tier, toolchain, device, shards, gpu, run_id}]. `stamp`
    (UTC, submit time) makes the run ids of one submission unique."""
    out = []
    for tier in planmod.TIERS:
        if tier not in plan.tiers:
            continue
        spec = TIER[tier]
        toolchains = plan.toolchains if spec["toolchain"] else [None]
        devices = sorted(plan.devices) if spec["gpu"] else [None]
        for tc in toolchains:
            for dev in devices:
                gid = group_id(tier, tc, dev)
                out.append({"id": gid, "tier": tier, "toolchain": tc, "device": dev,
                            "shards": plan.tiers[tier]["shards"], "gpu": spec["gpu"],
                            "run_id": f"{plan.name}-{gid}-{stamp}".replace("/", "_")})
    return out


def shard_dir(results, group, index):
    return os.path.join(results, "runs", group["id"], f"shard-{index}")


def log_path(results, group, index):
    return os.path.join(results, "logs", f"{group['id']}-{index}.log")


# What a tier's --resume takes of the plan's args (the rest it keeps from the interrupted run's document, and
# refuses given again): run, only the options of how it runs (harness/run/src/cli_options.cpp, how_option);
# explore, all but the options of what it draws (harness/explore/src/explore_cli.cpp, what_options); compile,
# every option of the selection again (harness/compile/cli.py, _check_same_selection compares them).
RESUME_KEEPS = {"run": ("--jobs", "--timeout", "--deadline", "--quiet", "--no-rerun-alone", "--trap-jobs",
                        "--traps-alone", "--no-overlap", "--overlap", "--trap-prestart", "--no-trap-prestart")}
RESUME_DROPS = {"explore": ("--seed", "--family", "--out", "--unguided")}


def _resumed_args(tier, args):
    kept = []
    for name, tokens in gating.options(args):
        if tier in RESUME_KEEPS and name not in RESUME_KEEPS[tier]:
            continue
        if name in RESUME_DROPS.get(tier, ()):
            continue
        kept += tokens
    return kept


def command(record, group, index, resume):
    """The `./ptxcts` arguments of task `index` of `group`: a fresh start, or (`resume`, a tier that resumes)
    the interrupted run's --resume with every option of the plan that the tier takes again (RESUME_KEEPS)."""
    plan = record["plan"]
    out = shard_dir(record["results"], group, index)
    tier = group["tier"]
    device = plan.get("devices", {}).get(group["device"] or "", {})
    args = list(plan["tiers"][tier].get("args", []))
    if resume and TIER[tier]["resume"]:
        tc = ["--toolchain", group["toolchain"]] if group["toolchain"] else []
        if tier == "run":
            return ["run", "--resume", out] + _resumed_args(tier, args)
        if tier == "explore":
            stand_in = ["--device", device["stand_in"]] if device.get("stand_in") else []
            return ["explore", "--resume", out] + tc + stand_in + _resumed_args(tier, args)
        return [tier, "--resume", out] + tc + _verdicts(group) + args   # compile
    tc = ["--toolchain", group["toolchain"]] if group["toolchain"] else []
    seed = ["--seed", str(plan.get("seed", 1))]
    stand_in = []
    if device.get("stand_in"):
        stand_in = ["--device", device["stand_in"]]
        if tier == "run":
            stand_in += ["--device-name", f"{group['device']} (stand-in: {device['stand_in']})"]
    if tier == "run":
        return ["run", "--shard", f"{index}/{group['shards']}", "--run-id", group["run_id"], "--out", out] + \
            tc + seed + stand_in + args
    if tier == "explore":
        return ["explore", "--out", out] + tc + seed + stand_in + args
    if tier == "selftest":
        return ["selftest", "--out", out] + tc + seed + args
    if tier == "litmus":
        return ["litmus", "--json", os.path.join(out, DOCUMENT["litmus"])] + seed + args
    return [tier, "--out", out] + tc + _verdicts(group) + args   # compile, lower


def _verdicts(group):
    """The compile tier's --verdicts: what its baseline holds (fleet/gating.compile_verdicts, at submit)."""
    if group["tier"] != "compile":
        return []
    return ["--verdicts", group.get("verdicts") or gating.HOST_VERDICTS]
