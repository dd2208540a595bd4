"""`./ptxcts fleet submit --slurm PLAN` and `./ptxcts fleet requeue RESULTS`: a plan's tasks handed to Slurm, and
the unfinished ones handed back.

Submit checks everything before it submits anything: the plan (fleet/plan.py), the results folder (writable;
shared when the jobs may run on other nodes; empty of any run -- a finished fleet run there is refused, never
overwritten), Slurm (its commands, its controller). Then it writes RESULTS/fleet.json, submits one array per
group and the collector after them, records every job id, and prints them with the command that follows them.

Requeue brings back the tasks whose shard is not finished (partial, failed, missing): `scontrol requeue` while
Slurm still knows the task (it keeps ended jobs MinJobAge seconds, 300 by default), else a new array of just
those indices; then a new collector, unless the plan's collector has not started yet (it waits for the requeued
tasks: afterany is not satisfied while one is pending again). A requeued task resumes its shard.
"""
import os
import shlex
import socket
import tempfile
import time

from fleet import gating
from fleet import plan as planmod
from fleet import record as rec
from fleet import slurm
from fleet import tasks as taskmod
from fleet.errors import FleetError, MalformedFile
from framework.documents.errors import InputError

# What a results folder may hold before a submission: nothing of a run.
RUN_DOCUMENTS = ("fleet.json", "results.json", "results.json.gz", "explore.json", "selftest.json")


def check_results_folder(results):
    """FleetError when the folder cannot take a new fleet run: not writable, a file, or holding a run. A folder
    whose submission no job came of (Slurm refused it: fleet.json `refused`, or an older record with no jobs; no
    runs/) takes one: -> the refusals its record holds, carried into the new record."""
    if os.path.exists(results) and not os.path.isdir(results):
        raise FleetError(f"results {results}: exists and is not a folder")
    fleet_json = rec.fleet_path(results)
    if os.path.exists(fleet_json):
        try:
            old = rec.load(results)
        except Exception:   # noqa: BLE001 -- a record we cannot read is still a run we must not overwrite
            old = {}
        done = old.get("collected")
        if nothing_submitted(old, results):
            return old.get("refusals", []) + [old.get("refused") or {"what": "the submission", "error":
                                                                      "no job was recorded", "when": ""}]
        if done:
            raise FleetError(f"results {results}: holds a finished fleet run (collected {done.get('ended', '')}); "
                             "it is never overwritten: give the plan another results folder")
        raise FleetError(f"results {results}: holds a fleet run that is not finished; follow it with ./ptxcts "
                         f"fleet status {results}, bring back its unfinished tasks with ./ptxcts fleet requeue "
                         f"{results}, or give the plan another results folder")
    if os.path.isdir(results):
        held = [n for n in RUN_DOCUMENTS if os.path.exists(os.path.join(results, n))]
        if held or os.path.isdir(os.path.join(results, "runs")):
            raise FleetError(f"results {results}: already holds a run ({(held or ['runs/'])[0]}); give the plan an "
                             "empty or new folder")
    parent = results
    while not os.path.exists(parent):
        parent = os.path.dirname(parent) or "."
    if not os.access(parent, os.W_OK | os.X_OK):
        raise FleetError(f"results {results}: not writable ({parent}: permission denied)")
    # access() answers yes to root everywhere, /proc and a read-only mount included: a folder made and removed
    # again is the proof (nothing is left behind, even for --dry-run)
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".ptxcts-fleet-probe-", dir=parent))
    except OSError as e:
        raise FleetError(f"results {results}: cannot be written ({parent}: {e.strerror})") from None
    return []


def nothing_submitted(record, results):
    """True for a Slurm record that holds no job and no task output: its submission was refused."""
    return record.get("scheduler") == "slurm" and isinstance(record.get("jobs"), list) and not record["jobs"] and \
        not os.path.exists(os.path.join(results, "runs"))


def _stamp():
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())


def new_record(p, root, scheduler):
    stamp = _stamp()
    plan = {"name": p.name, "results": p.results, "toolchains": p.toolchains, "seed": p.seed, "tiers": p.tiers,
            "devices": p.devices, "cpu": p.cpu, "slurm": p.slurm, "kubernetes": p.kubernetes}
    groups = taskmod.groups(p, stamp)
    for g in groups:
        if g["tier"] == "compile":   # what its gate's baseline holds (fleet/gating.py)
            try:
                g["verdicts"] = gating.compile_verdicts(root, gating.baseline(plan, g), g["toolchain"])
            except InputError as e:
                raise MalformedFile(f"{e} (the compile tier's baseline, read for the verdicts it holds)") from None
    return {"schema": rec.SCHEMA, "version": rec.VERSION, "plan": plan,
            "plan_file": p.path, "results": p.results, "root": root, "scheduler": scheduler,
            "submitted": rec.now_iso(), "submit_host": socket.gethostname(),
            "groups": groups, "jobs": []}


def check_placement(p):
    """FleetError naming the plan's key when a partition or a (one-word) constraint is none Slurm has: sbatch
    would refuse it."""
    parts, features = slurm.partitions_and_features()
    where = [(f"devices.{n}", d) for n, d in sorted(p.devices.items())] + [("cpu", p.cpu)]
    for key, d in where:
        if d.get("partition") and d["partition"] not in parts:
            raise FleetError(f"{p.path}: {key}.partition: {d['partition']!r}: Slurm has no such partition (its "
                             f"partitions: {', '.join(sorted(parts)) or 'none'})")
        c = d.get("constraint")
        if c and planmod.NAME.match(c) and c not in features:
            raise FleetError(f"{p.path}: {key}.constraint: {c!r}: no node of Slurm offers that feature (features: "
                             f"{', '.join(sorted(features)) or 'none'})")


def submit_slurm(plan_path, root, results=None, assume_shared=False, dry_run=False):
    p = planmod.load(plan_path, root)
    if results:
        p.results = os.path.abspath(results)
    refusals = check_results_folder(p.results)
    record = new_record(p, root, "slurm")
    if dry_run:   # the commands only: nothing written, nothing submitted
        for g in record["groups"]:
            print(" ".join(shlex.quote(a) for a in slurm.array_argv(record, g, range(g["shards"]), write=False)))
        print(" ".join(shlex.quote(a) for a in slurm.collector_argv(record, ["<arrays>"], write=False)))
        return 0
    slurm.check_reachable()
    check_placement(p)
    if not assume_shared:
        parts = {d["partition"] for d in p.devices.values() if d.get("partition")}
        if p.cpu.get("partition"):
            parts.add(p.cpu["partition"])
        probe = p.results if os.path.exists(p.results) else os.path.dirname(p.results)
        slurm.check_shared(probe, slurm.node_hosts(parts), socket.gethostname())
    os.makedirs(p.results, exist_ok=True)
    if not os.access(p.results, os.W_OK):
        raise FleetError(f"results {p.results}: not writable")
    if refusals:
        record["refusals"] = refusals
    _submit_held(record)
    arrays = [j for j in record["jobs"] if j["kind"] == "array"]
    print(f"fleet: {p.name}: {sum(g['shards'] for g in record['groups'])} task(s) in {len(arrays)} array(s), "
          f"results in {p.results}")
    for j in record["jobs"]:
        what = f"array {j['group']} [{slurm._ranges(j['indices'])}]" if j["kind"] == "array" else \
            "collector (afterany: merge, report, gate)"
        print(f"  job {j['id']:>10}  {what}")
    print(f"follow: ./ptxcts fleet status {p.results}")
    return 0


def _submit_held(record):
    """Submit every array and the collector held, then release them: none starts until Slurm has accepted them
    all. A refusal (a partition, account, QOS or limit sbatch refuses) cancels the held jobs -- nothing ran -- and
    records it in fleet.json (`refused`): a corrected plan submitted to the same folder, or `fleet requeue` of it,
    submits again. FleetError naming the group and Slurm's answer."""
    rec.save(record)
    held, arrays, g = [], [], None
    try:
        for g in record["groups"]:
            job = slurm.sbatch(slurm.array_argv(record, g, range(g["shards"]), hold=True))
            held.append(job)
            record["jobs"].append({"id": job, "kind": "array", "group": g["id"], "indices": list(range(g["shards"])),
                                   "submitted": rec.now_iso()})
            arrays.append(job)
        g = None
        job = slurm.sbatch(slurm.collector_argv(record, arrays, hold=True))
        held.append(job)
        record["jobs"].append({"id": job, "kind": "collector", "after": arrays, "submitted": rec.now_iso()})
    except FleetError as e:
        slurm.cancel(held)
        what = f"group {g['id']}" if g else "the collector"
        record["refused"] = {"when": rec.now_iso(), "plan_file": record["plan_file"], "what": what,
                             "error": str(e), "cancelled": held}
        record["jobs"] = []
        rec.save(record)
        raise FleetError(f"{record['plan_file']}: {what}: {e}; nothing ran ({len(held)} held job(s) cancelled): "
                         f"correct the plan and submit it again to {record['results']}, or remove the cause and "
                         f"./ptxcts fleet requeue {record['results']}") from None
    rec.save(record)
    slurm.release(held)


def resubmit_refused(results, record):
    """`fleet requeue` of a submission Slurm refused: its plan file read again (corrected or not) and submitted
    to the same folder."""
    p = planmod.load(record["plan_file"], record["root"])
    p.results = results
    refusals = check_results_folder(results)
    new = new_record(p, record["root"], "slurm")
    new["refusals"] = refusals
    check_placement(p)
    why = (record.get("refused") or {}).get("error", "no job was recorded")
    print(f"fleet requeue: Slurm refused the submission ({why}); submitting {record['plan_file']} again")
    _submit_held(new)
    for j in new["jobs"]:
        print(f"  job {j['id']:>10}  " + (f"array {j['group']} [{slurm._ranges(j['indices'])}]" if j["kind"] == "array"
                                          else "collector (afterany: merge, report, gate)"))
    print(f"follow: ./ptxcts fleet status {results}")
    return 0


def unfinished(record):
    """[(group, index, state, reason)] of the tasks whose shard is not finished."""
    out = []
    for g in record["groups"]:
        for i in range(g["shards"]):
            state, reason, _ = rec.shard_state(record, g, i)
            if state != "finished":
                out.append((g, i, state, reason))
    return out


def array_job_of(record, gid, index):
    """The latest array job that holds task `index` of group `gid`."""
    for j in reversed(record["jobs"]):
        if j["kind"] == "array" and j["group"] == gid and index in j["indices"]:
            return j["id"]
    return None


def check_job_is_plans(record, job):
    """FleetError when `job` (123 or 123_4) is none of the plan's jobs."""
    base = job.split("_")[0]
    ids = {j["id"] for j in record["jobs"]}
    if not base.isdigit() or base not in ids:
        raise FleetError(f"--job {job}: not a job of this plan ({record['results']}; its jobs: "
                         f"{', '.join(sorted(ids)) or 'none'})")


def requeue(results, only_job=None):
    record = rec.load(results)
    if record.get("scheduler") != "slurm":
        raise FleetError(f"{results}: submitted for {record.get('scheduler')}, not Slurm: requeue is Slurm's "
                         "(a Kubernetes Indexed Job retries its own pods)")
    if nothing_submitted(record, results) and not only_job:
        slurm.check_reachable()
        return resubmit_refused(results, record)
    if only_job:
        check_job_is_plans(record, only_job)
    slurm.check_reachable()
    todo = unfinished(record)
    known = slurm.job_states([j["id"] for j in record["jobs"]])
    # task.json says running: the task is running, or it was killed without a word (SIGKILL, a node failure):
    # Slurm tells which
    running = [(g, i) for g, i, s, _ in todo if s == "running" and
               known.get(f"{array_job_of(record, g['id'], i)}_{i}", {}).get("state") not in slurm.ENDED | {None}]
    todo = [(g, i, s, r) for g, i, s, r in todo if (g, i) not in running]
    if only_job:
        todo = [(g, i, s, r) for g, i, s, r in todo
                if array_job_of(record, g["id"], i) == only_job.split("_")[0] and
                ("_" not in only_job or only_job.split("_")[1] == str(i))]
    if not todo:
        print(f"fleet requeue: nothing to requeue ({len(running)} task(s) still running)" if running else
              "fleet requeue: every shard is finished; nothing to requeue")
        return 0
    requeued, fresh = [], {}
    for g, i, state, reason in todo:
        job = array_job_of(record, g["id"], i)
        key = f"{job}_{i}"
        st = known.get(key, {}).get("state")
        if st in ("PENDING", "RUNNING", "REQUEUED", "CONFIGURING", "COMPLETING", "SUSPENDED"):
            print(f"  {g['id']}[{i}]: {key} is {st} in Slurm; left as it is")
            continue
        if st in slurm.ENDED and slurm.requeue(key):
            requeued.append(key)
            print(f"  {g['id']}[{i}]: {state} ({reason}); requeued {key}")
        else:
            fresh.setdefault(g["id"], []).append(i)
    new_arrays, refused = [], []
    for gid, indices in fresh.items():
        g = rec.group(record, gid)
        try:
            job = slurm.sbatch(slurm.array_argv(record, g, indices))
        except FleetError as e:   # the others still go, and a collector after them: nothing done is lost
            refused.append(f"{gid}[{slurm._ranges(indices)}]: {e}")
            continue
        record["jobs"].append({"id": job, "kind": "array", "group": gid, "indices": indices,
                               "submitted": rec.now_iso(), "requeue": True})
        new_arrays.append(job)
        print(f"  {gid}[{slurm._ranges(indices)}]: Slurm no longer knows the task(s); submitted job {job}")
    waiting = requeued + new_arrays
    if waiting:
        # the collector follows every task of the plan still to end: the requeued ones, the new arrays and the
        # tasks still queued or running; a collector still pending is replaced by one that waits for them all
        active = sorted({k.split("_")[0] for k, v in known.items() if v["state"] not in slurm.ENDED} -
                        {j["id"] for j in record["jobs"] if j["kind"] == "collector"})
        pending = [j["id"] for j in record["jobs"] if j["kind"] == "collector" and
                   known.get(j["id"], {}).get("state") == "PENDING"]
        slurm.cancel(pending)
        record.pop("collected", None)
        after = sorted(set(waiting) | set(active))
        job = slurm.sbatch(slurm.collector_argv(record, after))
        record["jobs"].append({"id": job, "kind": "collector", "after": after, "submitted": rec.now_iso(),
                               "replaces": pending})
        print(f"  collector: job {job} (afterany: {', '.join(after)})"
              f"{'; the pending collector ' + ', '.join(pending) + ' is cancelled' if pending else ''}")
    rec.save(record)
    if refused:
        raise FleetError(f"Slurm refused to requeue {'; '.join(refused)} (the rest is requeued and recorded; "
                         f"remove the cause, then ./ptxcts fleet requeue {results} again)")
    print(f"follow: ./ptxcts fleet status {results}")
    return 0
