"""`./ptxcts fleet collect RESULTS [--wait S]`: what the collector job runs once the plan's tasks have ended
(Slurm: afterany; Kubernetes: --wait, polling the results tree). Through the other tiers' command lines only:

1. each run-tier group whose shards all finished is merged into one document (`./ptxcts merge`, RESULTS/merged/);
2. one report over every group (`./ptxcts report`, RESULTS/report/): a column per device and toolchain, the
   explorations and self-tests in their sections, missing shards and partial shards named in red;
3. each run, compile and lower group gated against its baseline (`./ptxcts gate`, the device's `baseline` and
   `across` from the plan; RESULTS/gates/<group>.json): a group with a shard missing or partial is refused by
   the gate (never passed);
4. RESULTS/collect.json and RESULTS/collect.md: per group its report column, the tasks (job ids, hosts) that
   produced it, each shard's state and reason, the gate's verdict.

Exit 0: every shard finished and every gate passed; 1: a regression, a litmus violation, or a shard not
finished (each named).
"""
import json
import os
import subprocess
import time

from fleet import record as rec
from fleet import tasks as taskmod

GATED = ("run", "compile", "lower")
REPORTED = ("run", "compile", "lower")


def _ptxcts(record, args, log):
    argv = [os.path.join(record["root"], "ptxcts")] + args
    print(f"collect: {' '.join(args)}", flush=True)
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT)
    return r.returncode, time.monotonic() - t0


def wait_for_tasks(record, wait_s):
    """Poll the results tree until no task is running or missing (a scheduler without dependencies), at most
    wait_s seconds; the shards still missing then are named by the collection."""
    deadline = time.monotonic() + wait_s
    while True:
        states = [rec.shard_state(record, g, i)[0] for g in record["groups"] for i in range(g["shards"])]
        left = sum(s in ("running", "missing") for s in states)
        if not left or time.monotonic() >= deadline:
            return
        print(f"collect: waiting for {left} of {len(states)} task(s)", flush=True)
        time.sleep(min(10.0, max(0.5, deadline - time.monotonic())))


def collect(results, wait_s=None):
    t_start = time.monotonic()
    record = rec.load(results)
    if wait_s:
        wait_for_tasks(record, wait_s)
    started = rec.now_iso()
    os.makedirs(os.path.join(results, "logs"), exist_ok=True)
    rows, report_args, steps = [], [], []
    incomplete = False
    with open(os.path.join(results, "logs", "collect-steps.log"), "a") as log:
        for g in record["groups"]:
            shards = []
            for i in range(g["shards"]):
                state, reason, task = rec.shard_state(record, g, i)
                if state == "running" and wait_s:
                    reason = f"still running after the collector's wait of {wait_s:g} s"
                elif state == "running":   # afterany: every task has ended; this one ended without a word
                    state, reason = "failed", ("the task ended without recording how (killed by SIGKILL, a node "
                                               "failure, out of memory?); its log: " + taskmod.log_path(results, g, i))
                shards.append({"index": i, "state": state, "reason": reason,
                               "job": (task or {}).get("job", ""), "host": (task or {}).get("host", ""),
                               "restarts": (task or {}).get("restarts", 0),
                               "exit": (task or {}).get("exit"),
                               "document": rec.shard_document(record, g, i)})
            present = [s for s in shards if s["document"]]
            complete = all(s["state"] == "finished" for s in shards)
            incomplete |= not complete
            row = {"group": g["id"], "tier": g["tier"], "toolchain": g["toolchain"], "device": g["device"],
                   "run_id": None, "column": None, "shards": shards, "complete": complete,
                   "merged": None, "gate": None}
            dirs = [os.path.dirname(s["document"]) for s in present]
            if present and g["tier"] in REPORTED:
                row["run_id"] = _run_id(present[0]["document"])
                report_args += dirs
            elif present and g["tier"] == "explore":
                report_args += ["--explore", dirs[0]]
            elif present and g["tier"] == "selftest":
                report_args += ["--selftest", present[0]["document"]]
            if g["tier"] == "run" and complete and g["shards"] > 1:
                out = os.path.join(results, "merged", g["id"])
                if not os.path.exists(os.path.join(out, "results.json")):
                    code, secs = _ptxcts(record, ["merge"] + dirs + ["--run-id", g["run_id"], "--out", out], log)
                    steps.append({"step": f"merge {g['id']}", "exit": code, "seconds": round(secs, 2)})
                    row["merged"] = out if code == 0 else None
                else:
                    row["merged"] = out
            if g["tier"] == "litmus" and present:
                row["gate"] = {"exit": 0 if all(s["exit"] == 0 for s in shards) else 1, "by": "litmus exit"}
            rows.append(row)
        report_dir = os.path.join(results, "report")
        if report_args:
            code, secs = _ptxcts(record, ["report"] + report_args + ["--out", report_dir, "--title",
                                                                      f"ptx-cts fleet {record['plan']['name']}"], log)
            steps.append({"step": "report", "exit": code, "seconds": round(secs, 2)})
            _columns(report_dir, rows)
        for row in rows:
            g = rec.group(record, row["group"])
            if g["tier"] not in GATED or not any(s["document"] for s in row["shards"]):
                continue
            dev = record["plan"].get("devices", {}).get(g["device"] or "", {})
            dirs = [os.path.dirname(s["document"]) for s in row["shards"] if s["document"]]
            gate_json = os.path.join(results, "gates", f"{g['id']}.json")
            os.makedirs(os.path.dirname(gate_json), exist_ok=True)
            if os.path.exists(gate_json):
                os.remove(gate_json)   # a collector run again after a requeue: this gate's verdict only
            args = ["gate"] + dirs + ["--json", gate_json]
            if dev.get("baseline"):
                args += ["--baseline", dev["baseline"]]
            if dev.get("across"):
                args += ["--across", dev["across"]]
            code, secs = _ptxcts(record, args, log)
            steps.append({"step": f"gate {g['id']}", "exit": code, "seconds": round(secs, 2)})
            row["gate"] = {"exit": code, "json": gate_json if os.path.exists(gate_json) else None,
                           "verdict": {0: "PASS", 1: "REGRESSION"}.get(code, f"not gated (exit {code})")}
    failed = incomplete or any(r["gate"] and r["gate"]["exit"] != 0 for r in rows)
    summary = {"schema": "ptxcts-fleet-collect", "version": 1, "plan": record["plan"]["name"],
               "started": started, "ended": rec.now_iso(), "seconds": round(time.monotonic() - t_start, 2),
               "complete": not incomplete, "verdict": "FAIL" if failed else "PASS", "groups": rows,
               "steps": steps, "report": os.path.join(results, "report") if report_args else None,
               "job": os.environ.get("SLURM_JOB_ID", "")}
    rec.write_json(os.path.join(results, "collect.json"), summary)
    text = markdown(summary)
    with open(os.path.join(results, "collect.md"), "w") as f:
        f.write(text)
    print(text, end="")
    record = rec.load(results)   # a requeue may have recorded jobs meanwhile
    record["collected"] = {"ended": summary["ended"], "complete": summary["complete"],
                           "verdict": summary["verdict"], "job": summary["job"]}
    rec.save(record)
    return 1 if failed else 0


def _run_id(doc):
    if doc.endswith(".gz"):
        return None
    d = rec.read_json(doc, "run document")
    return d.get("run_id") if isinstance(d, dict) else None


def _columns(report_dir, rows):
    """Each group's column label, from report.json (`columns[].runs` names the run ids of a column)."""
    path = os.path.join(report_dir, "report.json")
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        columns = json.load(f).get("columns", [])
    for row in rows:
        labels = [c.get("label") for c in columns if row["run_id"] and row["run_id"] in c.get("runs", [])]
        row["column"] = ", ".join(labels) or None


def markdown(s):
    lines = [f"# Fleet {s['plan']}: {s['verdict']}", "",
             f"Collected {s['ended']} in {s['seconds']} s; every shard finished: {'yes' if s['complete'] else 'NO'}.",
             "", "| group | report column | shards | tasks (job @ host) | gate |", "| --- | --- | --- | --- | --- |"]
    for r in s["groups"]:
        counts = {}
        for sh in r["shards"]:
            counts[sh["state"]] = counts.get(sh["state"], 0) + 1
        tasks = "; ".join(f"{sh['index']}: {sh['job'] or '-'} @ {sh['host'] or '-'}" +
                          (f" (restarts {sh['restarts']})" if sh["restarts"] else "") for sh in r["shards"])
        gate = (r["gate"] or {}).get("verdict") or ("exit %s" % r["gate"]["exit"] if r["gate"] else "-")
        lines.append(f"| {r['group']} | {r['column'] or '-'} | "
                     f"{', '.join(f'{n} {k}' for k, n in sorted(counts.items()))} | {tasks} | {gate} |")
    bad = [(r["group"], sh) for r in s["groups"] for sh in r["shards"] if sh["state"] != "finished"]
    if bad:
        lines += ["", "Shards not finished (the report names them; the gate refuses their group):", ""]
        lines += [f"* {gid} shard {sh['index']}: {sh['state']}: {sh['reason']}" for gid, sh in bad]
    if s["report"]:
        lines += ["", f"Report: {s['report']}/report.html"]
    return "\n".join(lines) + "\n"


def main_collect(a):
    return collect(os.path.abspath(a.results), a.wait)

