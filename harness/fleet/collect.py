"""`./ptxcts fleet collect RESULTS [--wait S]`: what the collector job runs once the plan's tasks have ended
(Slurm: afterany; Kubernetes: --wait, polling the results tree). Through the other tiers' command lines only:

1. each run-tier group whose shards all finished is merged into one document (`./ptxcts merge`, RESULTS/merged/);
2. each run, compile and lower group gated as one host gates it (`./ptxcts gate`, with what fleet/gating.py
   chooses: the plan's baseline, `across`, `--partial`; RESULTS/gates/<group>.json, its words in
   RESULTS/gates/<group>.txt): a group with a shard missing or partial is refused by the gate (never passed);
3. one report over every group (`./ptxcts report`, RESULTS/report/): a column per device and toolchain, the
   explorations and self-tests in their sections, missing shards and partial shards named in red; its
   regressions classified against the baselines the gates used (RESULTS/gates/baselines/);
4. RESULTS/collect.json and RESULTS/collect.md: per group its report column, the tasks (job ids, hosts) that
   produced it, each shard's state and reason, the gate's verdict and its own words.

The verdict -- PASS when every shard finished and every gate passed, else FAIL -- is in collect.json, collect.md
and fleet.json (`collected`, which `fleet status` shows), never in the exit status, which says whether the
collector did its work: 0 it merged, reported and gated everything it could and wrote its verdict; 1 a step
could not run (a merge or the report failed, a gate ended without an answer: killed, crashed), each named in
collect.md; 2 and 3 as every verb (the results tree is not a fleet's, a record is malformed). So the collector's
Slurm job is COMPLETED when a gate fails, and FAILED only when it could not collect.
"""
import json
import os
import shutil
import subprocess
import time

from fleet import gating
from fleet import record as rec
from fleet import tasks as taskmod

EXIT_NOT_COLLECTED = 1

REPORTED = ("run", "compile", "lower")
GATE_ANSWERS = (0, 1, 2, 3)   # PASS, FAIL, refused (usage: a shard missing, no baseline it may use), a malformed input
WORDS_PER_GATE = 6


def _ptxcts(record, args, log):
    argv = [os.path.join(record["root"], "ptxcts")] + args
    print(f"collect: {' '.join(args)}", flush=True)
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT)
    return r.returncode, time.monotonic() - t0


def gate_words(text):
    """What a gate said of its verdict, in its own words: its `gate:` lines (the baseline it judged by, a
    warning, the verdict, the refusal), the last WORDS_PER_GATE of them; else its last line."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    said = [ln for ln in lines if ln.startswith("gate:")]
    return said[-WORDS_PER_GATE:] or lines[-1:]


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
    plan = record["plan"]
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
                    steps.append({"step": f"merge {g['id']}", "exit": code, "seconds": round(secs, 2),
                                  "ran": code == 0})
                    row["merged"] = out if code == 0 else None
                else:
                    row["merged"] = out
            if g["tier"] == "litmus" and present:
                row["gate"] = {"exit": 0 if all(s["exit"] == 0 for s in shards) else 1, "by": "litmus exit",
                               "verdict": "PASS" if all(s["exit"] == 0 for s in shards) else "FAIL", "words": []}
            rows.append(row)
        gates = []
        for row in rows:
            g = rec.group(record, row["group"])
            if g["tier"] not in gating.GATED or not any(s["document"] for s in row["shards"]):
                continue
            dirs = [os.path.dirname(s["document"]) for s in row["shards"] if s["document"]]
            gate_json = os.path.join(results, "gates", f"{g['id']}.json")
            gate_txt = os.path.join(results, "gates", f"{g['id']}.txt")
            os.makedirs(os.path.dirname(gate_json), exist_ok=True)
            if os.path.exists(gate_json):
                os.remove(gate_json)   # a collector run again after a requeue: this gate's verdict only
            args = gating.gate_args(plan, g, dirs, gate_json)
            with open(gate_txt, "w") as out:
                code, secs = _ptxcts(record, args, out)
            with open(gate_txt, errors="replace") as f:
                said = f.read()
            log.write(f"collect: {' '.join(args)}\n{said}")
            log.flush()
            steps.append({"step": f"gate {g['id']}", "exit": code, "seconds": round(secs, 2),
                          "ran": code in GATE_ANSWERS})
            doc = rec.read_json(gate_json, "gate verdict") if os.path.exists(gate_json) else None
            if doc is not None:
                gates.append((g["id"], doc))
            row["gate"] = {"exit": code, "json": gate_json if doc is not None else None, "text": gate_txt,
                           "partial": "--partial" in args, "baseline": (doc or {}).get("baseline"),
                           "counts": (doc or {}).get("counts"), "words": gate_words(said),
                           "verdict": {0: "PASS", 1: "FAIL"}.get(code, f"not gated (exit {code})")}
        report_dir = os.path.join(results, "report")
        notes = []
        if report_args:
            base_dir = os.path.join(results, "gates", "baselines")
            shutil.rmtree(base_dir, ignore_errors=True)
            notes = gating.report_baselines(base_dir, gates)
            # as the gates judged them: a run gated --partial is partial in the report; a column per device
            partial = [a for r in rows if r["gate"] and r["gate"].get("partial") and r["run_id"]
                       for a in ("--partial", r["run_id"])]
            code, secs = _ptxcts(record, ["report"] + report_args + partial + [
                "--out", report_dir, "--title", f"ptx-cts fleet {plan['name']}", "--baselines", base_dir,
                "--device-columns"], log)
            steps.append({"step": "report", "exit": code, "seconds": round(secs, 2), "ran": code == 0})
            _columns(report_dir, rows)
    failed = incomplete or any(r["gate"] and r["gate"]["exit"] != 0 for r in rows) or \
        any(r["tier"] in gating.GATED and r["gate"] is None for r in rows)
    not_run = [s["step"] for s in steps if not s["ran"]]
    summary = {"schema": "ptxcts-fleet-collect", "version": 2, "plan": plan["name"],
               "started": started, "ended": rec.now_iso(), "seconds": round(time.monotonic() - t_start, 2),
               "complete": not incomplete, "verdict": "FAIL" if failed else "PASS", "ran": not not_run,
               "steps_failed": not_run, "groups": rows, "steps": steps, "report_notes": notes,
               "report": report_dir if report_args else None, "job": os.environ.get("SLURM_JOB_ID", "")}
    rec.write_json(os.path.join(results, "collect.json"), summary)
    text = markdown(summary)
    with open(os.path.join(results, "collect.md"), "w") as f:
        f.write(text)
    print(text, end="")
    record = rec.load(results)   # a requeue may have recorded jobs meanwhile
    record["collected"] = {"ended": summary["ended"], "complete": summary["complete"],
                           "verdict": summary["verdict"], "ran": summary["ran"], "job": summary["job"]}
    rec.save(record)
    return 0 if summary["ran"] else EXIT_NOT_COLLECTED


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
    ran = "yes" if s["ran"] else "NO: " + "; ".join(s["steps_failed"]) + " (see logs/collect-steps.log)"
    lines = [f"# Fleet {s['plan']}: {s['verdict']}", "",
             f"Collected {s['ended']} in {s['seconds']} s; every shard finished: {'yes' if s['complete'] else 'NO'}; "
             f"every step ran: {ran}.",
             "", "| group | device | report column | shards | tasks (job @ host) | gate |",
             "| --- | --- | --- | --- | --- | --- |"]
    for r in s["groups"]:
        counts = {}
        for sh in r["shards"]:
            counts[sh["state"]] = counts.get(sh["state"], 0) + 1
        tasks = "; ".join(f"{sh['index']}: {sh['job'] or '-'} @ {sh['host'] or '-'}" +
                          (f" (restarts {sh['restarts']})" if sh["restarts"] else "") for sh in r["shards"])
        gate = (r["gate"] or {}).get("verdict") or "-"
        if r["gate"] and r["gate"].get("partial"):
            gate += ", gate --partial"
        lines.append(f"| {r['group']} | {r['device'] or '-'} | {r['column'] or '-'} | "
                     f"{', '.join(f'{n} {k}' for k, n in sorted(counts.items()))} | {tasks} | {gate} |")
    said = [r for r in s["groups"] if r["gate"] and r["gate"].get("words")]
    if said:
        lines += ["", "What each gate said (its whole output: gates/<group>.txt):"]
        for r in said:
            lines += ["", f"{r['group']}:", ""] + [f"    {w}" for w in r["gate"]["words"]]
            if r["gate"].get("counts"):
                lines.append("    counts: " + ", ".join(f"{k} {n}" for k, n in r["gate"]["counts"].items() if n))
    bad = [(r["group"], sh) for r in s["groups"] for sh in r["shards"] if sh["state"] != "finished"]
    if bad:
        lines += ["", "Shards not finished (the report names them; the gate refuses their group):", ""]
        lines += [f"* {gid} shard {sh['index']}: {sh['state']}: {sh['reason']}" for gid, sh in bad]
    if s.get("report_notes"):
        lines += ["", "Report:", ""] + [f"* {n}" for n in s["report_notes"]]
    if s["report"]:
        lines += ["", f"Report: {s['report']}/report.html (regressions against the baselines the gates used)"]
    return "\n".join(lines) + "\n"


def main_collect(a):
    return collect(os.path.abspath(a.results), a.wait)

