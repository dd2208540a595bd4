"""`./ptxcts fleet task RESULTS --group G [--index I]`: one task of a plan, as a scheduler starts it (Slurm array
task, Kubernetes Indexed Job pod). The index comes from --index, else SLURM_ARRAY_TASK_ID, else
JOB_COMPLETION_INDEX.

* A shard folder that holds a finished document: nothing to do (a task started twice runs once).
* One that holds a partial document (the task was cancelled, preempted, out of time, or its GPU was lost) and a
  tier that resumes: `./ptxcts <tier> --resume DIR` judges only what is left. A tier that does not resume moves
  the partial folder aside (`shard-<i>.attempt-<n>`, kept) and starts again.
* A GPU task checks its GPU first (`probe`, default `nvidia-smi -i {gpu}`; a stand-in device has none unless the
  plan gives one) and again every `probe_every` seconds while the tier runs: a GPU gone mid-run stops the tier
  (SIGTERM: it writes what it judged, marked partial) and the task records the shard partial with the reason.
* SIGTERM or SIGINT (scancel, preemption, the time limit, a pod deleted) reaches the tier too, passed on once: the
  task waits for it to write its partial document, then records why.

Every start appends a row to `attempts` in task.json. Exit: 0 the tier finished (its findings are the gate's
business), 3 partial or failed (the scheduler shows the task as failed; the collector names it).
"""
import os
import signal
import socket
import subprocess
import time

from fleet import record as rec
from fleet import tasks as taskmod
from fleet.errors import FleetError

EXIT_NOT_FINISHED = 3
DEFAULT_PROBE = ["nvidia-smi", "-i", "{gpu}"]
DEFAULT_PROBE_EVERY = 10.0


def task_index(given):
    if given is not None:
        return given, "--index"
    for var in ("SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"):
        v = os.environ.get(var)
        if v is not None:
            if not v.isdigit():
                raise FleetError(f"{var}={v!r}: expected a task index (0, 1, ...)")
            return int(v), var
    raise FleetError("no task index: give --index I, or run as a Slurm array task (SLURM_ARRAY_TASK_ID) or a "
                     "Kubernetes Indexed Job pod (JOB_COMPLETION_INDEX)")


def _job_id():
    if os.environ.get("SLURM_ARRAY_JOB_ID"):
        return f"{os.environ['SLURM_ARRAY_JOB_ID']}_{os.environ.get('SLURM_ARRAY_TASK_ID', '')}"
    return os.environ.get("SLURM_JOB_ID") or os.environ.get("HOSTNAME") or ""


def _probe(argv, gpu):
    """None when the GPU answers, else what went wrong."""
    cmd = [a.replace("{gpu}", gpu) for a in argv]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        return f"{' '.join(cmd)}: command not found"
    except subprocess.TimeoutExpired:
        return f"{' '.join(cmd)}: no answer in 60 s"
    if r.returncode != 0:
        last = (r.stderr.strip() or r.stdout.strip()).splitlines()[-1:] or [""]
        return f"{' '.join(cmd)}: exit {r.returncode} {last[0]}".strip()
    return None


def run_task(results, gid, index_arg, ptxcts):
    record = rec.load(results)
    g = rec.group(record, gid)
    index, source = task_index(index_arg)
    if not 0 <= index < g["shards"]:
        raise FleetError(f"{source}={index}: group {gid} has tasks 0..{g['shards'] - 1}")
    out = taskmod.shard_dir(results, g, index)
    task_file = rec.task_path(record, g, index)
    task = rec.read_task(record, g, index) or {"schema": rec.TASK_SCHEMA, "version": rec.VERSION,
                                              "group": gid, "index": index, "attempts": []}
    state, reason, _ = rec.shard_state(record, g, index)
    if state == "finished":
        print(f"fleet task {gid}[{index}]: already finished ({out}); nothing to do")
        return 0
    doc = rec.shard_document(record, g, index)
    resume = doc is not None and taskmod.TIER[g["tier"]]["resume"]
    if doc is not None and not resume or (doc is None and os.path.isdir(out) and not taskmod.TIER[g["tier"]]["resume"]
                                          and any(n != "task.json" for n in os.listdir(out))):
        aside = f"{out}.attempt-{len(task['attempts'])}"
        os.rename(out, aside)
        print(f"fleet task {gid}[{index}]: {g['tier']} does not resume: the interrupted folder is kept as {aside}")
    os.makedirs(out, exist_ok=True)
    device = record["plan"].get("devices", {}).get(g["device"] or "", {})
    gpu = os.environ.get("CUDA_VISIBLE_DEVICES", "")
    probe = None
    if g["gpu"]:
        probe = device.get("probe") or (None if device.get("stand_in") else DEFAULT_PROBE)
    every = float(device.get("probe_every", DEFAULT_PROBE_EVERY))
    attempt = {"started": rec.now_iso(), "host": socket.gethostname(), "job": _job_id(),
               "gpu": gpu if g["gpu"] else None, "resume": resume}
    task.update(state="running", reason="", host=attempt["host"], job=attempt["job"],
                restarts=int(os.environ.get("SLURM_RESTART_COUNT", "0") or 0), started=attempt["started"])
    task.pop("ended", None)
    task.pop("exit", None)
    if probe:
        why = _probe(probe, gpu)
        if why:
            return _end(task, task_file, attempt, "failed", f"no GPU at the start: {why}", None)
    argv = [ptxcts] + taskmod.command(record, g, index, resume)
    attempt["command"] = argv[1:]
    task["attempts"].append(attempt)
    rec.write_json(task_file, task)
    print(f"fleet task {gid}[{index}] on {attempt['host']}{' GPU ' + gpu if gpu else ''}: {' '.join(argv[1:])}",
          flush=True)
    got = []

    def on_signal(signum, _frame):
        got.append(signum)
        if len(got) > 1:
            # the tier is stopping already. A scheduler signals every process of the task once, and this task's
            # own ./ptxcts passes its one on here: a second here is the same cancel. The tier's ./ptxcts, signalled
            # by the scheduler too, kills its group outright at a third: passing this one on would cut off the
            # tier's writing of what it judged
            return
        try:
            child.send_signal(signum)   # the scheduler signals every process of the task; a user's kill only this one
        except (ProcessLookupError, NameError):
            pass

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    lost = None
    try:
        # a session of its own: the tier's ./ptxcts is then a top-level wrapper that forwards a signal sent to it
        # (a GPU lost, a user's kill of this task) to the whole tier; the scheduler's signals reach every process
        env = {k: v for k, v in os.environ.items() if k != "PTXCTS_VERB_GROUP"}
        attempt["t_start"] = time.time()   # the tier's own time (fleet/README.md: the scheduling overhead)
        child = subprocess.Popen(argv, env=env, start_new_session=True)
        next_probe = time.monotonic() + every
        while True:
            try:
                code = child.wait(timeout=0.2)
                break
            except subprocess.TimeoutExpired:
                pass
            if probe and lost is None and not got and time.monotonic() >= next_probe:
                lost = _probe(probe, gpu)
                next_probe = time.monotonic() + every
                if got:   # the scheduler's signal reached the probe too (every process of the task): not an answer
                    lost = None
                if lost:
                    print(f"fleet task {gid}[{index}]: the GPU is gone ({lost}); stopping the tier", flush=True)
                    child.send_signal(signal.SIGTERM)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if lost:
        return _end(task, task_file, attempt, "partial", f"GPU lost mid-run: {lost}", code)
    if got:
        name = signal.Signals(got[0]).name
        return _end(task, task_file, attempt, "partial",
                    f"interrupted by {name} (cancelled, preempted, requeued or out of time)", code)
    if code in (0, 1):
        state, reason, _ = rec.shard_state(record, g, index)
        if rec.shard_document(record, g, index) is None and g["tier"] != "litmus":
            return _end(task, task_file, attempt, "failed", f"{g['tier']} exited {code} and wrote no document", code)
        return _end(task, task_file, attempt, "finished" if state != "partial" else "partial",
                    "" if state != "partial" else reason, code)
    if code in (130, 143):
        return _end(task, task_file, attempt, "partial", f"interrupted (exit {code})", code)
    return _end(task, task_file, attempt, "failed", f"{g['tier']} exited {code} (see the task's log)", code)


def _end(task, task_file, attempt, state, reason, code):
    attempt.update(ended=rec.now_iso(), state=state, exit=code, reason=reason)
    if "t_start" in attempt:
        attempt["t_end"] = time.time()
    if attempt not in task["attempts"]:
        task["attempts"].append(attempt)
    task.update(state=state, reason=reason, exit=code, ended=attempt["ended"])
    rec.write_json(task_file, task)
    print(f"fleet task {task['group']}[{task['index']}]: {state}{': ' + reason if reason else ''}", flush=True)
    return 0 if state == "finished" else EXIT_NOT_FINISHED


def ptxcts_entry(record):
    return os.path.join(record["root"], "ptxcts")


def main_task(a):
    record = rec.load(a.results)
    return run_task(os.path.abspath(a.results), a.group, a.index, ptxcts_entry(record))

