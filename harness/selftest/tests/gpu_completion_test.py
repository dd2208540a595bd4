#!/usr/bin/env python3
"""CTest selftest.gpu_completion: the completion fault kinds of the self-test on the GPU.

Plants every completion fault (a wait that waits for one group less, a bulk wait that waits for the reads only,
the other cp.async.mbarrier.arrive form) into the completion forms and runs the run tier against each. What is
asserted per kind comes from results/selftest/guarantees.toml (selftest/guarantees.py), not from this file:
* a kind whose catch on silicon is guaranteed (the run tier named in guaranteed_by, not timing-dependent): every
  plant must be caught on this GPU;
* a timing-dependent kind (silicon = "timing", or a measured rate below 100 % on some device): silicon's catch on
  this GPU is reported with the recorded rates, not asserted; the lowering tier must catch every plant instead
  (selftest/lower_catch.py at sm_90, the same plants judged by the original form's lowering rules).
The score must name the device, driver and toolchain it came from, and say where the run tier's time went. Exit 77
(skipped) without a GPU.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path[:0] = [os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]

from selftest import guarantees  # noqa: E402
from selftest.rates import COMPLETION_FAMILIES as FAMILIES, COMPLETION_KINDS as KINDS, judged  # noqa: E402


def main():
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    try:
        table = guarantees.load()
    except guarantees.GuaranteesError as e:
        print(f"FAIL {e}")
        return 1
    missing = [k for k in KINDS if k not in table]
    if missing:
        print(f"FAIL {guarantees.PATH}: no entry for {', '.join(missing)}")
        return 1
    with tempfile.TemporaryDirectory(prefix="ptxcts-selftest-gpu-") as tmp:
        argv = [sys.executable, os.path.join(ROOT, "ptxcts"), "selftest", "--out", tmp, "--jobs", "4"]
        for k in KINDS:
            argv += ["--kind", k]
        for f in FAMILIES:
            argv += ["--family", f]
        p = subprocess.run(argv, capture_output=True, text=True)
        print(p.stdout[-4000:], p.stderr[-2000:], sep="\n")
        if p.returncode == 77:   # selftest's skip without a usable GPU, never a pass
            if "skipped, no GPU here" not in p.stderr:
                print(f"FAIL selftest exited 77 without saying why: {p.stderr[-400:]}")
                return 1
            print("skipped: no GPU")
            return 77
        with open(os.path.join(tmp, "selftest.json")) as f:
            doc = json.load(f)
    check(bool(doc.get("device")) and bool(doc.get("driver")) and "ptxas" in (doc.get("toolchain") or ""),
          f"the score names device, driver and toolchain: {doc.get('device')}, {doc.get('driver')}, "
          f"{doc.get('toolchain')}")
    timing = []
    for k in KINDS:
        kd = doc["kinds"].get(k, {})
        n, caught = judged(kd)
        check("batch_s" in kd.get("run_tier", {}), f"{k}: the run tier's timing is kept")
        e = table[k]
        if guarantees.silicon_guaranteed(e):
            check(n > 0 and caught == n, f"{k}: {caught} of {n} planted faults caught on silicon (guaranteed by "
                                         f"the run tier: silicon = {e['silicon']})")
        else:
            timing.append(k)
            print(f"REPORT {k}: silicon caught {caught} of {n} on {doc.get('device')} (timing-dependent: "
                  f"{guarantees.why_timing(e)}; not asserted); recorded: {guarantees.rates_text(e)}")
            check(n > 0, f"{k}: planted and judged on silicon ({n})")
    # the self-test exits 1 when a fault survived: only a timing-dependent kind may have survivors
    survived = sorted(k for k, kd in doc["kinds"].items() if kd.get("survivors"))
    check(p.returncode == 0 or (p.returncode == 1 and set(survived) <= set(timing)),
          f"./ptxcts selftest exits 0, or 1 with survivors of timing-dependent kinds only: exit {p.returncode}, "
          f"survivors in {', '.join(survived) or 'none'}")
    if timing:
        from selftest import lower_catch
        from framework import boundary
        try:
            rep = lower_catch.catch(timing, ("sm_90",), FAMILIES, progress=print)
        except boundary.VerbError as e:   # no nvdisasm, no toolchain: the guarantee cannot be shown here
            check(False, f"the lowering tier's catch of {', '.join(timing)} (the guarantee of the timing-dependent "
                         f"kinds) could not run: {e}")
            return 1
        for k in timing:
            r = rep["targets"]["sm_90"]["kinds"][k]
            bad = [f"{p['form']}: {p['class']} ({p['why'] or p['verdict']})" for p in r["plants"]
                   if p["class"] != "caught" or p["clean_verdict"] != "pass"]
            check("lower" in table[k]["guaranteed_by"] and r["planted"] > 0 and r["caught"] == r["planted"]
                  and not bad, f"{k}: the lowering tier catches {r['caught']} of {r['planted']} plants at sm_90 "
                  f"({rep['toolchain']}, nvdisasm {rep['nvdisasm']}), each unplanted form passing"
                  + (": " + "; ".join(bad) if bad else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
