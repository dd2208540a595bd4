"""The Slurm recipe: a plan's groups as job arrays, one collector job after them, and what Slurm says of them --
through its own commands (sbatch, squeue, scontrol, scancel), never its accounting database.

* A GPU group: `sbatch --array=0-(n-1) --gres=gpu:1 [--constraint C] [--partition P] --requeue` (each task gets
  one GPU, on its CUDA_VISIBLE_DEVICES; preemption or a node failure requeues it and it resumes its shard).
* A CPU group: the same without --gres, on the plan's [cpu] partition/constraint.
* The collector: `--dependency=afterany:<every array>` (afterany: it runs however the tasks ended, and names
  the shards that are not finished; afterok would wait for ever after one failed task), on the CPU nodes.

Each job runs a small script written to RESULTS/slurm/<group>.sh (`exec <checkout>/ptxcts fleet task ...`), its
output appended to RESULTS/logs/ (a requeued task adds to its log, never replaces it).
"""
import os
import re
import shlex
import shutil
import subprocess

from fleet.errors import FleetError

COMMANDS = ("sbatch", "squeue", "scontrol", "sinfo", "scancel")
# States of a job that has ended (squeue/scontrol JobState), and the ones a requeue brings back.
ENDED = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY", "BOOT_FAIL",
         "DEADLINE"}
# A filesystem every node sees (`stat -f -c %T`); a local one (ext4, xfs, tmpfs, overlay...) is shared only when
# every node of the plan is this host.
SHARED_FS = {"nfs", "nfs4", "lustre", "gpfs", "cifs", "smb2", "smb3", "ceph", "cephfs", "beegfs", "glusterfs",
             "fuse.glusterfs", "fuse.beegfs", "fuse.ceph", "fuse.sshfs", "panfs", "wekafs", "afs", "9p", "virtiofs",
             "fuse.juicefs", "fuse.s3fs", "fuse.gcsfuse", "nfsd"}


def _run(argv, timeout=30):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise FleetError(f"Slurm: {argv[0]} is not installed (on PATH: {os.environ.get('PATH', '')})") from None
    except subprocess.TimeoutExpired:
        raise FleetError(f"Slurm: `{' '.join(argv)}` gave no answer in {timeout} s (is slurmctld reachable? "
                         f"SLURM_CONF={os.environ.get('SLURM_CONF', '(unset)')})") from None


def check_reachable():
    """FleetError (exit 2) when the Slurm commands are missing or the controller does not answer."""
    missing = [c for c in COMMANDS if not shutil.which(c)]
    if missing:
        raise FleetError(f"Slurm: not installed here: {', '.join(missing)} missing from PATH (the submit host needs "
                         "the Slurm client commands)")
    r = _run(["scontrol", "ping"], timeout=20)
    if r.returncode != 0 or "UP" not in r.stdout:
        what = (r.stderr.strip() or r.stdout.strip()).splitlines()
        raise FleetError(f"Slurm: the controller is unreachable (`scontrol ping`: "
                         f"{what[-1] if what else 'exit ' + str(r.returncode)}; "
                         f"SLURM_CONF={os.environ.get('SLURM_CONF', '(unset)')})")


def node_hosts(partitions):
    """The host names of the nodes the plan's jobs may run on (every node when no partition is named)."""
    argv = ["sinfo", "-h", "-N", "-o", "%n"]
    if partitions:
        argv += ["-p", ",".join(sorted(partitions))]
    r = _run(argv)
    if r.returncode != 0:
        raise FleetError(f"Slurm: `{' '.join(argv)}` failed: {r.stderr.strip()}")
    return {h for h in r.stdout.split() if h}


def partitions_and_features():
    """(the partitions Slurm has, the features its nodes offer): what a plan's placement may name."""
    r = _run(["sinfo", "-h", "-o", "%R|%f"])
    if r.returncode != 0:
        raise FleetError(f"Slurm: `sinfo -h -o %R|%f` failed: {r.stderr.strip()}")
    parts, features = set(), set()
    for line in r.stdout.splitlines():
        part, _, feats = line.strip().partition("|")
        if part:
            parts.add(part)
        features |= {f for f in feats.split(",") if f and f != "(null)"}
    return parts, features


def filesystem(path):
    r = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else "unknown"


def check_shared(results, hosts, this_host):
    """FleetError when the results folder is on a filesystem other nodes cannot see while the plan's jobs may
    run on other nodes. `hosts`: the nodes' host names."""
    others = {h for h in hosts if h.split(".")[0] not in (this_host.split(".")[0], "localhost")}
    if not others:
        return
    fs = filesystem(results)
    if fs not in SHARED_FS and not fs.startswith("fuse."):
        raise FleetError(f"{results}: not a shared folder (a local '{fs}' filesystem) but the plan's jobs run on "
                         f"other nodes too ({', '.join(sorted(others)[:3])}{'...' if len(others) > 3 else ''}): "
                         "put the results tree on a filesystem every node mounts (NFS, Lustre, GPFS, ...), or "
                         "give --assume-shared if it is one this check does not know")


def _common(record, g_or_none, name):
    plan = record["plan"]
    s = plan.get("slurm", {})
    argv = ["sbatch", "--parsable", f"--job-name={name}", "--open-mode=append", "--kill-on-invalid-dep=yes"]
    if s.get("time"):
        argv.append(f"--time={s['time']}")
    for k in ("account", "qos"):
        if s.get(k):
            argv.append(f"--{k}={s[k]}")
    argv += list(s.get("extra", []))
    return argv


def _placement(record, g):
    plan = record["plan"]
    where = plan.get("devices", {}).get(g["device"], {}) if g and g["gpu"] else plan.get("cpu", {})
    out = []
    if where.get("partition"):
        out.append(f"--partition={where['partition']}")
    if where.get("constraint"):
        out.append(f"--constraint={where['constraint']}")
    return out


def script(record, body):
    return "#!/bin/bash\n# written by ./ptxcts fleet submit (harness/fleet); Slurm runs it\n" + body + "\n"


def write_script(record, name, body, write=True):
    path = os.path.join(record["results"], "slurm", f"{name}.sh")
    if not write:
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(script(record, body))
    os.chmod(path, 0o755)
    return path


def entry(record):
    return shlex.quote(os.path.join(record["root"], "ptxcts"))


def array_argv(record, g, indices, write=True, hold=False):
    """The sbatch command of a group's tasks `indices` (all of them at submit; the unfinished ones at a requeue
    Slurm no longer knows)."""
    name = f"ptxcts-{record['plan']['name']}-{g['id']}"
    body = f"exec {entry(record)} fleet task {shlex.quote(record['results'])} --group {shlex.quote(g['id'])}"
    path = write_script(record, g["id"], body, write)
    logs = os.path.join(record["results"], "logs")
    if write:
        os.makedirs(logs, exist_ok=True)
    argv = _common(record, g, name) + _placement(record, g)
    argv += [f"--array={_ranges(indices)}", "--requeue", f"--output={logs}/{g['id']}-%a.log"]
    if g["gpu"]:
        argv.append("--gres=gpu:1")
    return argv + (["--hold"] if hold else []) + [path]


def collector_argv(record, job_ids, write=True, hold=False):
    name = f"ptxcts-{record['plan']['name']}-collect"
    body = f"exec {entry(record)} fleet collect {shlex.quote(record['results'])}"
    path = write_script(record, "collect", body, write)
    argv = _common(record, None, name) + _placement(record, None)
    argv += [f"--dependency=afterany:{':'.join(job_ids)}", f"--output={record['results']}/logs/collect.log"]
    return argv + (["--hold"] if hold else []) + [path]


def _ranges(indices):
    indices = sorted(indices)
    parts, start = [], None
    for k, i in enumerate(indices):
        if start is None:
            start = i
        if k + 1 == len(indices) or indices[k + 1] != i + 1:
            parts.append(str(start) if start == i else f"{start}-{i}")
            start = None
    return ",".join(parts)


def sbatch(argv):
    r = _run(argv, timeout=60)
    if r.returncode != 0:
        raise FleetError(f"Slurm: sbatch refused the job ({' '.join(argv[1:-1])}): {r.stderr.strip()}")
    job = r.stdout.strip().split(";")[0]
    if not job.isdigit():
        raise FleetError(f"Slurm: sbatch answered {r.stdout.strip()!r}, not a job id")
    return job


def job_states(job_ids):
    """{'<job>_<task>' or '<job>': {state, reason, node}} for the jobs Slurm still knows: squeue for the queued
    and running ones, `scontrol show job` for those ended in the last MinJobAge seconds (no accounting)."""
    states = {}
    if not job_ids:
        return states
    r = _run(["squeue", "-h", "-r", "-j", ",".join(job_ids), "-o", "%i|%T|%r|%N"])
    if r.returncode == 0:
        for line in r.stdout.splitlines():
            parts = line.split("|")
            if len(parts) == 4:
                states[parts[0]] = {"state": parts[1], "reason": parts[2], "node": parts[3]}
    for job in job_ids:
        r = _run(["scontrol", "-o", "show", "job", job])
        if r.returncode != 0:
            continue
        for line in r.stdout.splitlines():
            f = dict(kv.split("=", 1) for kv in re.findall(r"(\w+=\S*)", line))
            key = f"{f['ArrayJobId']}_{f['ArrayTaskId']}" if f.get("ArrayTaskId") and "ArrayJobId" in f \
                else f.get("JobId", "")
            if "[" in key or key in states:
                continue   # a pending range squeue listed task by task
            states[key] = {"state": f.get("JobState", "?"), "reason": f.get("Reason", ""),
                           "node": f.get("NodeList", ""), "exit": f.get("ExitCode", "")}
    return states


def requeue(job_task):
    """Requeue an ended task that Slurm still knows and make it eligible now (a requeued job otherwise waits about
    two minutes: Slurm sets its begin time ahead). False when Slurm refuses (it no longer knows the job)."""
    r = _run(["scontrol", "requeue", job_task])
    if r.returncode != 0:
        return False
    _run(["scontrol", "update", f"jobid={job_task}", "StartTime=now"])
    return True


def release(job_ids):
    """Let held jobs start (submit holds every job until Slurm has accepted them all)."""
    if not job_ids:
        return
    r = _run(["scontrol", "release", ",".join(job_ids)])
    if r.returncode != 0:
        raise FleetError(f"Slurm: `scontrol release {','.join(job_ids)}` failed ({r.stderr.strip()}): the plan's jobs "
                         f"are submitted but held; release them with that command")


def cancel(job_ids):
    if job_ids:
        _run(["scancel"] + list(job_ids))

