#!/usr/bin/env python3
"""The exploration tier's tests (CTest explore.*).

cpu: against the model device (no GPU) with a planted fault, exploration must find it and shrink it to the
     minimal case the fault's condition allows; the permanent case it keeps is planned by the run tier; bad
     options are refused naming them; SIGINT keeps what was measured.
gpu: a short exploration on the GPU (exit 77 = skipped without one): cases run, a rate, coverage, and no
     harness error among the results.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("PTXCTS_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "build"))
EXPLORE = os.path.join(BUILD, "harness", "run", "ptxcts-explore")
RUN = os.path.join(BUILD, "harness", "run", "ptxcts-run")
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def explore(args, env=None, **kw):
    return subprocess.run([EXPLORE] + args, capture_output=True, text=True, env=env, **kw)


def planted(tmp, fault, family, seed):
    out, cases = os.path.join(tmp, fault), os.path.join(tmp, fault + ".jsonl")
    p = explore(["--device", "model:" + fault, "--family", family, "--time", "5", "--shrink-time", "90",
                 "--jobs", "2", "--seed", str(seed), "--out", out, "--cases-file", cases, "--quiet"])
    check(p.returncode == 1, f"{fault}: exploration reports findings (exit 1, got {p.returncode}) {p.stderr[-300:]}")
    doc = json.load(open(os.path.join(out, "explore.json")))
    # a real exploration, not a handful of draws (about 1,000 in 5 s on an idle 2-core machine; 250 seen under load)
    check(doc["cases_run"] > 150, f"{fault}: {doc['cases_run']} cases run")
    check(doc["findings"] != [], f"{fault}: the planted fault is found")
    return doc, cases


def resumed(tmp):
    """An exploration in two segments: the first leaves its findings unshrunk (--shrink-time 0), --resume draws on
    with the same seed, adds its cases, and shrinks them."""
    out = os.path.join(tmp, "segments")
    base = ["--device", "model:bulk_tail_4096", "--jobs", "2", "--quiet"]
    p = explore(base + ["--family", "cp.async.bulk", "--time", "3", "--shrink-time", "0", "--seed", "3",
                        "--out", out, "--cases-file", "none"])
    first = json.load(open(os.path.join(out, "explore.json")))
    check(p.returncode == 1 and first["findings"], f"resume: the first segment finds the fault (exit {p.returncode})")
    check(all("minimal" not in f for f in first["findings"]), "resume: --shrink-time 0 leaves the findings unshrunk")
    p = explore(base + ["--time", "2", "--shrink-time", "60", "--resume", out, "--cases-file", "none"])
    doc = json.load(open(os.path.join(out, "explore.json")))
    check(p.returncode == 1 and len(doc["segments"]) == 2, f"resume: two segments (exit {p.returncode}) {p.stderr[-300:]}")
    check(doc["cases_run"] > first["cases_run"] and doc["id"] == first["id"] and doc["seed"] == 3,
          f"resume: cases {first['cases_run']} -> {doc['cases_run']}, same exploration and seed")
    sigs = {f["signature"] for f in first["findings"]}
    check(sigs <= {f["signature"] for f in doc["findings"]}, "resume: every finding of the first segment kept")
    for f in doc["findings"]:
        m = f.get("minimal", {}).get("params", {})
        check(m.get("size") == 4096 and m.get("align") == 128, f"resume: shrunk in the second segment to {m}")


def cpu():
    with tempfile.TemporaryDirectory() as tmp:
        # bulk copies of >= 4096 bytes lose their last 16: minimal is exactly 4096 bytes, 128-byte aligned
        doc, cases = planted(tmp, "bulk_tail_4096", "cp.async.bulk", 3)
        for f in doc["findings"]:
            m = f["minimal"]["params"]
            check(m["size"] == 4096 and m["align"] == 128,
                  f"bulk_tail_4096: shrunk to size 4096 at 128 from size {f['first']['params']['size']}: {m}")
            check(f["minimal"]["class"] == "fail", "bulk_tail_4096: the minimal case still fails")
        # tensor loads fill OOB elements below dimension 1's start wrongly: the minimal box is one element past
        # the low edge of dimension 1, every other dimension as small as the form allows
        doc, _ = planted(tmp, "oob_low_dim1", "cp.async.bulk.tensor", 5)
        for f in doc["findings"]:
            m, first = f["minimal"]["params"], f["first"]["params"]
            vol = lambda p: eval("*".join(str(d) for d in p["map"]["dims"]))
            check(vol(m) <= vol(first) and vol(m) <= 4, f"oob_low_dim1: dims shrunk {first['map']['dims']} -> {m['map']['dims']}")
            low = m["access"]["coords"][1] < 0 or min(m["map"].get("lower_corner", [0])) < 0
            check(low, f"oob_low_dim1: the minimal box still crosses dimension 1's low edge: {m['access']}")
        # the permanent cases are planned by the regular run tier
        env = dict(os.environ, PTXCTS_EXPLORED_CASES=cases)
        rows = [json.loads(l) for l in open(cases)]
        p = subprocess.run([RUN, "--list", "--family", "cp.async.bulk"], capture_output=True, text=True, env=env)
        listed = p.stdout.split()
        missing = [r["id"] for r in rows if r["id"] not in listed]
        check(p.returncode == 0 and rows and not missing,
              f"{len(rows)} permanent case(s) planned by ptxcts-run --list (exit {p.returncode}, {len(listed)} listed, "
              f"missing {missing}) {p.stderr[-300:]}")
        # bad input: refused with exit 2, naming the option
        for args, word in [(["--time", "0"], "--time"), (["--time", "abc"], "--time"), (["--seed", "-1"], "--seed"),
                           (["--family", "nope"], "nope"), (["--device", "model:nope"], "model:nope"),
                           (["--jobs", "0"], "--jobs"), (["--bogus"], "--bogus")]:
            p = explore(args + ["--cases-file", "none"])
            check(p.returncode == 2 and word in p.stderr, f"{' '.join(args)}: exit 2 naming {word} ({p.returncode}: {p.stderr.strip()[:120]})")
        resumed(tmp)
        # SIGINT: what was measured is written, and the exit says so
        out = os.path.join(tmp, "interrupted")
        p = subprocess.Popen([EXPLORE, "--device", "model", "--time", "120", "--jobs", "2", "--out", out,
                              "--cases-file", "none", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(4)
        p.send_signal(signal.SIGINT)
        so, se = p.communicate(timeout=120)
        check(p.returncode == 130, f"SIGINT: exit 130 (got {p.returncode})")
        doc = json.load(open(os.path.join(out, "explore.json")))
        check(doc["interrupted"] and doc["cases_run"] > 0, f"SIGINT: {doc['cases_run']} cases kept, interrupted marked")


def gpu():
    with tempfile.TemporaryDirectory() as tmp:
        p = explore(["--time", "20", "--shrink-time", "30", "--out", tmp, "--cases-file", "none", "--quiet"])
        if "no GPU" in p.stdout:
            print(p.stdout.strip())
            return 77
        check(p.returncode in (0, 1), f"exploration ran (exit {p.returncode}) {p.stderr[-400:]}")
        doc = json.load(open(os.path.join(tmp, "explore.json")))
        check(doc["cases_run"] > 1000, f"{doc['cases_run']} cases at {doc['cases_per_s']:.0f}/s")
        harness = [f for f in doc["findings"] if "harness:" in f["signature"]]
        check(not harness, f"no harness error among the drawn cases: {[f['signature'] for f in harness]}")
        print(p.stdout)
    return 0


if __name__ == "__main__":
    rc = gpu() if sys.argv[1:] == ["gpu"] else cpu()
    if rc == 77:
        sys.exit(77)
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
