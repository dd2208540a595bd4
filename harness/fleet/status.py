"""`./ptxcts fleet status RESULTS [--job ID]`: the plan's tasks, their state and cases done per shard, from the
results tree (task.json, the shard's document, the progress line of a running task's log) and from Slurm
(`squeue`, then `scontrol show job` for the jobs ended in the last MinJobAge seconds): no accounting database.
Exit 0; 2 when the folder is not a fleet run, Slurm is unreachable, or --job names a job of another plan."""
import os
import re

from fleet import record as rec
from fleet import slurm
from fleet import submit
from fleet import tasks as taskmod

PROGRESS = re.compile(rb"(\d+)/(\d+) cases")


def _progress(log):
    """(done, total) from the last progress line of a task's log (the run tier's `N/M cases`), or None."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, os.path.getsize(log) - 65536))
            tail = f.read()
    except OSError:
        return None
    found = PROGRESS.findall(tail)
    return (int(found[-1][0]), int(found[-1][1])) if found else None


def status(results, only_job=None):
    record = rec.load(results)
    if only_job:
        submit.check_job_is_plans(record, only_job)
    slurm_states = {}
    if record.get("scheduler") == "slurm":
        slurm.check_reachable()
        slurm_states = slurm.job_states([j["id"] for j in record["jobs"]])
    rows = []
    for g in record["groups"]:
        for i in range(g["shards"]):
            state, reason, task = rec.shard_state(record, g, i)
            job = submit.array_job_of(record, g["id"], i)
            key = f"{job}_{i}" if job else ""
            if only_job and only_job not in (job, key):
                continue
            sl = slurm_states.get(key, {})
            doc = rec.shard_document(record, g, i)
            cases = ""
            if state == "running" or (sl.get("state") == "RUNNING"):
                p = _progress(taskmod.log_path(results, g, i))
                cases = f"{p[0]}/{p[1]}" if p else "starting"
            elif doc:
                part = rec.document_partial(doc)
                n = rec.document_cases(doc)
                if part and "done" in part:
                    cases = f"{part['done']}/{part.get('total', '?')}"
                elif n is not None:
                    cases = f"{n}/{n}"
            rows.append((f"{g['id']}[{i}]", key or "-", sl.get("state", "-"), state, cases or "-",
                         (task or {}).get("host", "") or sl.get("node", "") or "-",
                         reason or (sl.get("reason", "") if sl.get("reason") != "None" else "")))
    head = ("task", "job", "slurm", "shard", "cases", "host", "reason")
    widths = [max(len(str(r[k])) for r in rows + [head]) for k in range(6)]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths + [0])).rstrip())
    for r in rows:
        print("  ".join(str(v).ljust(w) for v, w in zip(r, widths + [0])).rstrip())
    collectors = [j for j in record["jobs"] if j["kind"] == "collector"]
    if collectors and not only_job:
        c = collectors[-1]["id"]
        st = slurm_states.get(c, {}).get("state", "-")
        done = record.get("collected")
        # the collector's Slurm state says whether it ran (COMPLETED: it collected); the verdict is its record's
        print(f"collector {c}: {st}" + (f"; collected {done['ended']}: verdict {done['verdict']}"
                                         f"{'' if done['complete'] else ' (incomplete)'}"
                                         f"{'' if done.get('ran', True) else '; a step could not run'}, see "
                                         f"{os.path.join(results, 'collect.md')}" if done else ""))
    if record.get("refused") and not record["jobs"]:
        r = record["refused"]
        print(f"submission refused by Slurm {r['when']} ({r['what']}): {r['error']}; nothing ran: submit the "
              f"corrected plan to {results}, or ./ptxcts fleet requeue {results}")
    counts = {}
    for r in rows:
        counts[r[3]] = counts.get(r[3], 0) + 1
    print(f"{len(rows)} task(s): " + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return 0


def main_status(a):
    return status(os.path.abspath(a.results), a.job)
