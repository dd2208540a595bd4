#!/usr/bin/env python3
"""The exploration tier's tests (CTest explore.*).

cpu: against the model device (no GPU) with a planted fault, exploration must find it and shrink it to the
     minimal case the fault's condition allows; the permanent case it keeps is planned by the run tier; bad
     options are refused naming them; SIGINT keeps what was measured. Every exploration here is bounded by a
     count of draws (--cases), not by time: the model device runs as fast as the CPU share it gets, so a count
     of cases run in a few seconds is a measure of the machine's load (under ctest -j on 2 cores the tensor
     exploration ran 82 of its 5 s), while the same seed and count draw and judge the same cases on any machine.
     The time limits given are bounds against a hang, never reached by a working exploration.
recorded: a recorded device finding (the model device planting its family) is counted apart, never open: exit 0;
     exit 1 once an open finding appears beside it.
gpu: a short exploration on the GPU (exit 77 = skipped without one): cases run, a rate, coverage, and no
     harness error among the results.
"""
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.environ.get("PTXCTS_BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "build"))
EXPLORE = os.path.join(BUILD, "harness", "run", "ptxcts-explore")
RUN = os.path.join(BUILD, "harness", "run", "ptxcts-run")
failures = []
# Bounds against a hang (CTest's TIMEOUT of 600 s is the last one): a working exploration ends long before them,
# by its --cases count or by running out of simpler cases to shrink to, loaded machine or not. --timeout: the
# per-case watchdog, so that a model-device case starved of CPU is not judged a timeout.
BOUNDS = ["--time", "300", "--timeout", "120"]


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def explore(args, env=None, **kw):
    return subprocess.run([EXPLORE] + args, capture_output=True, text=True, env=env, **kw)


def ran_every_draw(doc, draws, what):
    """The exploration stopped at its --cases count, not at a time limit: every draw ran (none skipped)."""
    run = draws - doc["nothing_to_draw"]
    check(doc["cases_drawn"] == draws and doc["cases_run"] == run,
          f"{what}: {doc['cases_drawn']} drawn of {draws}, {doc['cases_run']} run of {run}")


def planted(tmp, fault, family, seed, draws):
    out, cases = os.path.join(tmp, fault), os.path.join(tmp, fault + ".jsonl")
    p = explore(["--device", "model:" + fault, "--family", family, "--cases", str(draws)] + BOUNDS +
                ["--shrink-time", "300", "--jobs", "2", "--seed", str(seed), "--out", out, "--cases-file", cases,
                 "--quiet"])
    check(p.returncode == 1, f"{fault}: exploration reports findings (exit 1, got {p.returncode}) {p.stderr[-300:]}")
    doc = json.load(open(os.path.join(out, "explore.json")))
    ran_every_draw(doc, draws, fault)
    check(doc["findings"] != [], f"{fault}: the planted fault is found")
    for f in doc["findings"]:
        check(f.get("shrink_stop") == "no simpler case reproduces",
              f"{fault}: shrinking ran to its end ({f.get('shrink_stop')})")
    return doc, cases


def resumed(tmp):
    """An exploration in two segments: the first leaves its findings unshrunk (--shrink-time 0), --resume draws on
    with the same seed, adds its cases, and shrinks them."""
    out = os.path.join(tmp, "segments")
    base = ["--device", "model:bulk_tail_4096", "--jobs", "2", "--quiet"] + BOUNDS
    p = explore(base + ["--family", "cp.async.bulk", "--cases", "300", "--shrink-time", "0", "--seed", "3",
                        "--out", out, "--cases-file", "none"])
    first = json.load(open(os.path.join(out, "explore.json")))
    check(p.returncode == 1 and first["findings"], f"resume: the first segment finds the fault (exit {p.returncode})")
    ran_every_draw(first, 300, "resume: the first segment")
    check(all("minimal" not in f for f in first["findings"]), "resume: --shrink-time 0 leaves the findings unshrunk")
    p = explore(base + ["--cases", "200", "--shrink-time", "300", "--resume", out, "--cases-file", "none"])
    doc = json.load(open(os.path.join(out, "explore.json")))
    check(p.returncode == 1 and len(doc["segments"]) == 2, f"resume: two segments (exit {p.returncode}) {p.stderr[-300:]}")
    ran_every_draw(doc, 500, "resume: both segments")
    check(doc["id"] == first["id"] and doc["seed"] == 3, "resume: the same exploration and seed")
    sigs = {f["signature"] for f in first["findings"]}
    check(sigs <= {f["signature"] for f in doc["findings"]}, "resume: every finding of the first segment kept")
    for f in doc["findings"]:
        m = f.get("minimal", {}).get("params", {})
        check(m.get("size") == 4096 and m.get("align") == 128, f"resume: shrunk in the second segment to {m}")


def cpu():
    with tempfile.TemporaryDirectory() as tmp:
        # bulk copies of >= 4096 bytes lose their last 16: minimal is exactly 4096 bytes, 128-byte aligned
        # (draw counts: a few seconds each on an idle 2-core machine; the fault shows in about 1 draw in 5)
        doc, cases = planted(tmp, "bulk_tail_4096", "cp.async.bulk", 3, 2000)
        for f in doc["findings"]:
            m = f["minimal"]["params"]
            check(m["size"] == 4096 and m["align"] == 128,
                  f"bulk_tail_4096: shrunk to size 4096 at 128 from size {f['first']['params']['size']}: {m}")
            check(f["minimal"]["class"] == "fail", "bulk_tail_4096: the minimal case still fails")
        # tensor loads fill OOB elements below dimension 1's start wrongly: the minimal box is one element past
        # the low edge of dimension 1, every other dimension as small as the form allows
        doc, _ = planted(tmp, "oob_low_dim1", "cp.async.bulk.tensor", 5, 400)
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
                           (["--jobs", "0"], "--jobs"), (["--cases", "0"], "--cases"), (["--cases", "x"], "--cases"),
                           (["--cases", "9", "--dry-draw", "9"], "--cases"), (["--bogus"], "--bogus")]:
            p = explore(args + ["--cases-file", "none"])
            check(p.returncode == 2 and word in p.stderr, f"{' '.join(args)}: exit 2 naming {word} ({p.returncode}: {p.stderr.strip()[:120]})")
        resumed(tmp)
        interrupted(tmp)


RECORDED = "h100-explored-im2col-interleave-traps"


def pixel_wider_than_chunk(params):
    """The recorded finding's map, as results/findings/h100-explored-im2col-interleave-traps states it."""
    m = params["map"]
    size = {"UINT8": 1, "UINT16": 2, "FLOAT16": 2, "BFLOAT16": 2, "FLOAT64": 8, "INT64": 8, "UINT64": 8}.get(m["dtype"], 4)
    return m["channels_per_pixel"] * size > {"16B": 16, "32B": 32}[m["interleave"]]


def recorded():
    """A recorded device finding (device_quirks.hpp) is counted by id, never an open finding: the model device
    with im2col_interleave_wide_trap (interleaved im2col accesses whose pixel is wider than the chunk trap: the
    recorded family) exits 0 with the draws under recorded_findings and none open, across --resume too, an
    older explore.json without the field included; with im2col_interleave_trap (every interleaved im2col access
    traps) the accesses whose pixel fits the chunk are open findings: exit 1."""
    with tempfile.TemporaryDirectory() as tmp:
        fam = ["--family", "cp.async.bulk.prefetch.tensor", "--jobs", "2", "--quiet", "--cases-file", "none"] + BOUNDS
        out = os.path.join(tmp, "wide")
        p = explore(["--device", "model:im2col_interleave_wide_trap", "--cases", "1500", "--shrink-time", "60",
                     "--seed", "7", "--out", out] + fam)
        doc = json.load(open(os.path.join(out, "explore.json")))
        rec = doc.get("recorded_findings", {}).get(RECORDED, {})
        check(p.returncode == 0, f"recorded only: exit 0 (got {p.returncode}) {p.stderr[-300:]}")
        check(doc["findings"] == [], f"recorded only: no open finding ({[f['signature'] for f in doc['findings']]})")
        check(rec.get("draws", 0) > 0 and rec.get("classes", {}).get("crash") == rec.get("draws"),
              f"recorded only: its draws counted by class under {RECORDED}: {rec}")
        check(rec and pixel_wider_than_chunk(rec["first"]["params"]), "recorded only: its first case kept, of the family")
        summary = open(os.path.join(out, "summary.txt")).read()
        check(RECORDED in summary, "recorded only: summary.txt names it")
        # --resume reads it back and adds to it; an explore.json written before the field resumes as having none
        p = explore(["--device", "model:im2col_interleave_wide_trap", "--cases", "500", "--shrink-time", "0",
                     "--resume", out] + fam[2:])
        again = json.load(open(os.path.join(out, "explore.json")))
        rec2 = again.get("recorded_findings", {}).get(RECORDED, {})
        check(p.returncode == 0 and rec2.get("draws", 0) >= rec["draws"] and rec2["first"] == rec["first"],
              f"resume: the recorded draws read back and added to ({rec['draws']} -> {rec2.get('draws')}; exit "
              f"{p.returncode}) {p.stderr[-300:]}")
        older = dict(doc)
        del older["recorded_findings"]
        json.dump(older, open(os.path.join(out, "explore.json"), "w"))
        p = explore(["--device", "model:im2col_interleave_wide_trap", "--cases", "50", "--shrink-time", "0", "--resume",
                     out] + fam[2:])
        resumed_doc = json.load(open(os.path.join(out, "explore.json")))
        check(p.returncode == 0, f"resume: an explore.json without recorded_findings resumes (exit {p.returncode}) "
                                 f"{p.stderr[-300:]}")
        check(resumed_doc.get("recorded_findings", {}).get(RECORDED, {}).get("draws", 0) <= 50,
              "resume: an older explore.json counts no recorded draws before its own")
        out = os.path.join(tmp, "any")
        p = explore(["--device", "model:im2col_interleave_trap", "--cases", "1500", "--shrink-time", "60",
                     "--seed", "7", "--out", out] + fam)
        doc = json.load(open(os.path.join(out, "explore.json")))
        check(p.returncode == 1, f"an open one too: exit 1 (got {p.returncode}) {p.stderr[-300:]}")
        check(RECORDED in doc.get("recorded_findings", {}), "an open one too: the recorded draws still counted apart")
        opened = [f["first"]["params"] for f in doc["findings"]]
        check(opened and not any(pixel_wider_than_chunk(q) for q in opened),
              f"an open one too: the open findings are the pixels that fit the chunk ({len(opened)})")


def progress_seen(p, limit_s):
    """Reads p's stderr until its progress line counts a case run ("explore: N cases", N > 0; the first comes
    after the first chunk ran): the point from which an interrupt has something to keep. False at EOF or after
    limit_s seconds."""
    end, text, fd = time.monotonic() + limit_s, "", p.stderr.fileno()
    while time.monotonic() < end:
        if not select.select([fd], [], [], 0.5)[0]:
            continue
        chunk = os.read(fd, 4096)
        if not chunk:
            return False
        text += chunk.decode(errors="replace")
        if any(int(n) > 0 for n in re.findall(r"explore: (\d+) cases,", text)):
            return True
    return False


def interrupted(tmp):
    """SIGINT: what was measured is written, and the exit says so. The signal is sent once a case has run, as
    the progress line says, not after a fixed sleep: under load a sleep can end before the first case did."""
    out = os.path.join(tmp, "interrupted")
    p = subprocess.Popen([EXPLORE, "--device", "model", "--time", "300", "--timeout", "120", "--jobs", "2",
                          "--out", out, "--cases-file", "none"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    seen = progress_seen(p, 300)
    check(seen, "SIGINT: the exploration's progress line counts a case run")
    p.send_signal(signal.SIGINT)
    p.communicate(timeout=300)
    check(p.returncode == 130, f"SIGINT: exit 130 (got {p.returncode})")
    doc = json.load(open(os.path.join(out, "explore.json")))
    check(doc["interrupted"] and doc["cases_run"] > 0, f"SIGINT: {doc['cases_run']} cases kept, interrupted marked")


def gpu():
    with tempfile.TemporaryDirectory() as tmp:
        p = explore(["--time", "20", "--shrink-time", "30", "--out", tmp, "--cases-file", "none", "--quiet"])
        if p.returncode == 77:   # no GPU here: explore says why and skips, never a pass
            if "skipped, no GPU here" not in p.stderr:
                check(False, f"exit 77 says why (no device, the driver failed, CUDA_VISIBLE_DEVICES empty): "
                             f"{p.stderr[-400:]}")
                return 1
            print(p.stderr.strip())
            return 77
        check(p.returncode in (0, 1), f"exploration ran (exit {p.returncode}) {p.stderr[-400:]}")
        doc = json.load(open(os.path.join(tmp, "explore.json")))
        check(doc["cases_run"] > 1000, f"{doc['cases_run']} cases at {doc['cases_per_s']:.0f}/s")
        harness = [f for f in doc["findings"] if "harness:" in f["signature"]]
        check(not harness, f"no harness error among the drawn cases: {[f['signature'] for f in harness]}")
        print(p.stdout)
    return 0


if __name__ == "__main__":
    rc = gpu() if sys.argv[1:] == ["gpu"] else recorded() if sys.argv[1:] == ["recorded"] else cpu()
    if rc == 77:
        sys.exit(77)
    print(f"{len(failures)} failure(s)")
    sys.exit(1 if failures else 0)
