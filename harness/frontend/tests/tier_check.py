"""What the tests of the front-end tier itself (test_llvm_tier, test_nvrtc_tier) share: running `./ptxcts
frontend` as a child, the cases of known outcome, every expressible case gated against the committed baseline, and
the CTest skip (exit 77) where a front-end is not installed."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
OUT = os.environ.get("PTXCTS_FRONTEND_OUT") or tempfile.mkdtemp(prefix="ptxcts-frontend-")
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]),
           PTXCTS_ROOT=ROOT)


def run(argv):
    """(the CompletedProcess of `python -m frontend argv`, its wall time in seconds)."""
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "frontend"] + argv, capture_output=True, text=True, env=ENV, cwd=ROOT)
    return r, time.monotonic() - t0


def check_known(test, name, out, known):
    """Runs front-end name over the cases of known (case -> class) into out; the run must exit 0 (every finding
    among them reviewed) and give each case its class. Returns {case id: result} for further checks."""
    argv = ["run", "--frontend", name, "--out", out, "--quiet"]
    for c in known:
        argv += ["--case", c]
    r, _ = run(argv)
    test.assertEqual(r.returncode, 0, r.stderr)
    with open(os.path.join(out, "results.json")) as f:
        got = {c["id"]: c for c in json.load(f)["cases"]}
    for cid, klass in known.items():
        test.assertEqual(got[cid]["class"], klass, f"{cid}: {got[cid]['message']}")
    return got


def sample():
    """The cases of the manifest a tier test judges (PTXCTS_FRONTEND_SAMPLE, from the CMake cache variable of the
    same name: `--limit N`, spread evenly over the manifest), or None for every case. A malformed value is the
    test's error, never a silent whole run."""
    text = os.environ.get("PTXCTS_FRONTEND_SAMPLE", "").strip()
    if not text or text == "0":
        return None
    if not text.isdigit():
        raise ValueError(f"PTXCTS_FRONTEND_SAMPLE={text!r}: a count of cases (0 or empty: every case)")
    return int(text)


def check_every_case(test, name, out, label, tail):
    """Runs front-end name over every case it can express into out, or over the spread sample of sample() (the last
    tail characters of its log and its wall time go to stderr, labelled label), then `results gate` must pass it
    against the baseline (--partial for a sample: a baseline case outside it is not run, one inside it is judged as
    always)."""
    n = sample()
    r, secs = run(["run", "--frontend", name, "--out", out, "--quiet"] + (["--limit", str(n)] if n else []))
    sys.stderr.write(r.stderr[-tail:] + f"\nthe {label} front-end tier took {secs:.0f} s"
                     + (f" over a sample of {n} cases of the manifest (PTXCTS_FRONTEND_SAMPLE)\n" if n else "\n"))
    test.assertIn(r.returncode, (0, 1), r.stderr)
    g = subprocess.run([sys.executable, "-m", "results", "gate", out, "--list", "20"] + (["--partial"] if n else []),
                       capture_output=True, text=True, env=ENV, cwd=ROOT)
    test.assertEqual(g.returncode, 0, g.stdout + g.stderr)


def main(skipped):
    """unittest.main, or exit 77 (CTest: skipped) printing skipped when it is not None."""
    if skipped:
        print(skipped)
        sys.exit(77)
    unittest.main(verbosity=2)
