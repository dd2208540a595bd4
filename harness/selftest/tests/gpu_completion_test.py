#!/usr/bin/env python3
"""CTest selftest.gpu_completion: the completion fault kinds of the self-test on the GPU.

Plants every completion fault (a wait that waits for one group less, a bulk wait that waits for the reads only,
the other cp.async.mbarrier.arrive form) into the completion forms and runs the run tier against each: every one
must be caught (exit 0, no hole), the score must name the device, driver and toolchain it came from, and say where
the run tier's time went. Exit 77 (skipped) without a GPU.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
KINDS = ("wait_count", "wait_read", "arrive")
FAMILIES = ("cp.async.groups", "cp.async.bulk.groups")


def main():
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="ptxcts-selftest-gpu-") as tmp:
        argv = [sys.executable, os.path.join(ROOT, "ptxcts"), "selftest", "--out", tmp, "--jobs", "4"]
        for k in KINDS:
            argv += ["--kind", k]
        for f in FAMILIES:
            argv += ["--family", f]
        p = subprocess.run(argv, capture_output=True, text=True)
        print(p.stdout[-4000:], p.stderr[-2000:], sep="\n")
        if "no GPU here" in p.stderr + p.stdout:
            print("skipped: no GPU")
            return 77
        check(p.returncode == 0, f"./ptxcts selftest exits 0 (every completion fault caught), got {p.returncode}")
        with open(os.path.join(tmp, "selftest.json")) as f:
            doc = json.load(f)
        check(bool(doc.get("device")) and bool(doc.get("driver")) and "ptxas" in (doc.get("toolchain") or ""),
              f"the score names device, driver and toolchain: {doc.get('device')}, {doc.get('driver')}, "
              f"{doc.get('toolchain')}")
        for k in KINDS:
            rows = doc["kinds"].get(k, {}).get("families", {})
            planted = sum(r["planted"] - r["refused"] - r["no_case"] for r in rows.values())
            caught = sum(r["caught"] for r in rows.values())
            check(planted > 0 and caught == planted, f"{k}: {caught} of {planted} planted faults caught")
            check("batch_s" in doc["kinds"].get(k, {}).get("run_tier", {}), f"{k}: the run tier's timing is kept")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
