"""The rules' coverage: per lowering rule, the (form, target) pairs it judged and how they came out, and on sm_90
whether silicon confirms it: the run tier passed every form it covers that the committed H100 run executed."""
import gzip
import json
import os
from collections import Counter, defaultdict

from ptxcts_gen.lowering import MEANINGFUL_ELSEWHERE, RULES

SILICON_RUN = os.path.join("results", "2026-11-23-sm_90-h100-run", "results.json.gz")
BAD = ("fail", "crash", "timeout")


def silicon_forms(root, path=None):
    """{form: "pass" | "fail"} of the committed sm_90 run: pass when the form has a passing case and none failing,
    crashing or timing out; forms the run did not execute are absent. None when the run is not there."""
    path = path or os.path.join(root, SILICON_RUN)
    if not os.path.exists(path):
        return None
    with gzip.open(path, "rt") if path.endswith(".gz") else open(path) as f:
        doc = json.load(f)
    seen = defaultdict(set)
    for c in doc.get("cases", []):
        if c.get("target") == "sm_90":
            seen[c["form"]].add(c["class"])
    return {f: ("fail" if cl & set(BAD) else "pass") for f, cl in seen.items() if "pass" in cl or cl & set(BAD)}


def rules_coverage(records, silicon=None):
    """[{rule, families, judged, pass, fail, unruled, failed_by_it, targets, sm90_run, sm90_run_pass,
    confirmed_by_silicon, rests_on, observed}] in RULES order."""
    every = RULES + (MEANINGFUL_ELSEWHERE,)
    per = {r.name: Counter() for r in every}
    targets = defaultdict(set)
    failed_by = Counter()
    sm90 = defaultdict(lambda: [0, 0])
    for rec in records:
        d = rec.get("details") or {}
        for name in d.get("rules", []):
            per[name]["judged"] += 1
            per[name][rec["class"]] += 1
            targets[name].add(rec["target"])
            if rec["target"] == "sm_90" and silicon is not None and rec["form"] in silicon:
                sm90[name][0] += 1
                sm90[name][1] += silicon[rec["form"]] == "pass"
        for why in d.get("failed", []):
            failed_by[why.split(":", 1)[0]] += 1
    out = []
    for r in every:
        ran, ok = sm90[r.name]
        out.append({"rule": r.name, "families": list(r.families), "fields": list(r.fields),
                    "judged": per[r.name]["judged"], "pass": per[r.name]["pass"], "fail": per[r.name]["fail"],
                    "unruled": per[r.name]["unruled"], "failed_by_it": failed_by[r.name],
                    "targets": len(targets[r.name]), "sm90_run": ran, "sm90_run_pass": ok,
                    "confirmed_by_silicon": bool(ran) and ran == ok and per[r.name]["fail"] == 0,
                    "rests_on": r.rests_on, "observed": r.observed})
    return out


def print_coverage(rows, stream):
    w = max(len(r["rule"]) for r in rows) + 2
    head = f"{'rule':<{w}}{'judged':>8}{'pass':>8}{'fail':>6}{'unruled':>9}{'targets':>9}  sm_90 silicon"
    stream.write("\n" + head + "\n" + "-" * len(head) + "\n")
    for r in rows:
        sil = (f"confirmed ({r['sm90_run_pass']}/{r['sm90_run']} forms pass the run tier)" if r["confirmed_by_silicon"]
               else (f"{r['sm90_run_pass']}/{r['sm90_run']} forms pass the run tier" if r["sm90_run"] else "not run"))
        stream.write(f"{r['rule']:<{w}}{r['judged']:>8}{r['pass']:>8}{r['fail']:>6}{r['unruled']:>9}"
                     f"{r['targets']:>9}  {sil}\n")
