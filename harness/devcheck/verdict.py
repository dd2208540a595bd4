"""What the device check's steps left, read into one verdict: ./ptxcts all's step table (results/<stamp>-all.tsv),
each gated run's classes and gate verdict (<run>/results.json, <run>/gate.json), and ctest's JUnit file."""
import collections
import csv
import glob
import json
import os
import xml.etree.ElementTree as ET

# the steps of all.tsv that run a tier (exit 1: findings, judged by the gate)
TIER_STEPS = ("compile", "compile-driver", "matrix", "frontend", "lower", "run", "run-llvm-22")
CLASS_ORDER = ("pass", "fail", "spec_divergence", "beyond_chapter", "unruled", "not_supported", "compile_error",
               "crash", "timeout", "skipped")


def all_table(tree):
    """(steps [{name, seconds, exit, start}], gates [{run, exit}]) of the newest all.tsv under tree/results, or
    ([], []). start: seconds after all's own start (None in a table written before the column)."""
    found = sorted(glob.glob(os.path.join(tree, "results", "*-all.tsv")))
    if not found:
        return [], []
    steps, gates = [], []
    with open(found[-1], encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row["kind"] == "step":
                start = row.get("start")
                steps.append({"name": row["name"], "seconds": float(row["seconds"]), "exit": int(row["exit"]),
                              "start": float(start) if start else None})
            elif row["kind"] == "gate":
                gates.append({"run": row["name"], "exit": int(row["exit"])})
    return steps, gates


def run_summary(tree, run, gate_exit=None):
    """A gated run's tier, device, toolchain, class counts and gate verdict (its exit from all.tsv, its counts from
    <run>/gate.json where the gate wrote one: the lowering tier's gate writes none)."""
    out = {"run": run, "tier": None, "device": None, "toolchain": None, "classes": {},
           "gate": None if gate_exit is None else {"exit": gate_exit, "counts": {}, "baseline": None}}
    path = os.path.join(tree, run, "results.json")
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        out["tier"] = doc.get("tier")
        out["device"] = (doc.get("device") or {}).get("name")
        out["toolchain"] = (doc.get("toolchain") or {}).get("name") or (doc.get("toolchain") or {}).get("ptxas")
        counts = collections.Counter(c.get("class") for c in doc.get("cases", []))
        out["classes"] = {k: counts[k] for k in CLASS_ORDER if counts.get(k)}
    gate = os.path.join(tree, run, "gate.json")
    if os.path.isfile(gate):
        with open(gate, encoding="utf-8") as f:
            g = json.load(f)
        out["gate"] = {"exit": g.get("exit") if gate_exit is None else gate_exit,
                       "counts": {k: v for k, v in (g.get("counts") or {}).items() if v}, "baseline": g.get("baseline")}
    return out


def ctest_junit(path):
    """{total, passed, failed: [names], skipped: [names]} from ctest --output-junit, or None when absent."""
    if not os.path.isfile(path):
        return None
    root = ET.parse(path).getroot()
    failed, skipped, total = [], [], 0
    for case in root.iter("testcase"):
        total += 1
        name = case.get("name")
        if case.find("failure") is not None or case.find("error") is not None or case.get("status") == "fail":
            failed.append(name)
        elif case.find("skipped") is not None or case.get("status") in ("notrun", "disabled"):
            skipped.append(name)
    return {"total": total, "passed": total - len(failed) - len(skipped), "failed": failed, "skipped": skipped}


def judge(all_exit, steps, gates, runs, tests, test_exit, device_lane_expected=True, parts=("all", "test")):
    """(green, reasons): green only when all exited 0, every run was gated and passed, the run tier was among them,
    and every CTest test passed or skipped. parts: the steps that ran (a device check in parts judges its own)."""
    reasons = []
    if "all" in parts:
        _judge_all(reasons, all_exit, steps, gates, runs, device_lane_expected)
    if "test" in parts:
        _judge_test(reasons, tests, test_exit)
    return not reasons, reasons


def _judge_all(reasons, all_exit, steps, gates, runs, device_lane_expected):
    if all_exit != 0:
        reasons.append(f"./ptxcts all exited {all_exit}")
    for s in steps:
        # a tier exits 1 when it judged findings (fail, crash, ...): its gate decides whether they are new; any
        # other step, and a tier that did not finish (2 and above), must exit 0
        allowed = (0, 1) if s["name"] in TIER_STEPS else (0,)
        if s["exit"] not in allowed and s["name"] != "report":
            reasons.append(f"step {s['name']} exited {s['exit']}")
    for g in gates:
        if g["exit"] != 0:
            reasons.append(f"gate of {g['run']} exited {g['exit']}"
                           + (" (regressions)" if g["exit"] == 1 else " (could not judge)"))
    if not gates:
        reasons.append("no run was gated")
    if device_lane_expected and not any(r["tier"] == "run" for r in runs):
        reasons.append("no run-tier run: the device lane did not run")


def _judge_test(reasons, tests, test_exit):
    if tests is None:
        reasons.append(f"./ptxcts test left no JUnit file (exit {test_exit})")
    else:
        if tests["failed"]:
            reasons.append(f"{len(tests['failed'])} test(s) failed: {', '.join(tests['failed'][:8])}")
        if test_exit != 0 and not tests["failed"]:
            reasons.append(f"./ptxcts test exited {test_exit}")
