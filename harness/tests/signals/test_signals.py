#!/usr/bin/env python3
"""Signals at any moment (CTest cli.signals, docs/CLI.md "Signals"): a compile or an exploration is stopped by
SIGINT or SIGTERM sent where a user or a CI runner sends it -- to ./ptxcts alone (`kill PID`, a runner's timeout),
to the whole process group (Ctrl-C at a terminal), or to the tier's own process -- while its workers are busy.
Each must exit 130 (SIGINT) or 143 (SIGTERM) without a traceback, leave a document marked partial holding every
case judged, leave no process behind 2 s after it ended, and `--resume` must finish that document.

    python3 harness/tests/signals/test_signals.py [-v] [TEST...]       (PTXCTS_BUILD names the build folder)
"""
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from processes import session  # this folder: sys.path[0] of a script

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
PTXCTS = os.path.join(ROOT, "ptxcts")
BUILD = os.path.abspath(os.environ.get("PTXCTS_BUILD") or os.path.join(ROOT, "build"))
CRASH_MARKS = ("Traceback (most recent call last)", "KeyboardInterrupt", "internal error", "terminate called")
# a compile that takes long enough to be interrupted with its workers busy: one compiler call per case, every case
# one (PTX 8.6, which toolchain 13.0 assembles: --limit spreads over the whole family, where the versions past the
# toolchain's are not_supported without a call, and 13 calls of 80 cases ended unseen on a 16-core runner)
COMPILE_CASES = 200
COMPILE = ["compile", "--family", "cp.async.bulk.tensor", "--ptx", "8.6", "--limit", str(COMPILE_CASES), "-j", "2",
           "--module-size", "1", "--quiet"]
EXPLORE = ["explore", "--device", "model", "--family", "cp.async.bulk", "--time", "120", "--jobs", "2",
           "--cases-file", "none", "--shrink-time", "0", "--quiet"]


class Interrupted(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-signals-")
        self.out = os.path.join(self.tmp, "out")
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("PTXCTS_", "GTEST_", "CTEST_RESOURCE"))}
        self.env["PTXCTS_BUILD"] = BUILD

    def tearDown(self):
        for pid, _ in session(getattr(self, "sid", -1)):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _start(self, argv):
        p = subprocess.Popen([PTXCTS] + argv + ["--out", self.out], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, env=self.env, cwd=self.tmp, start_new_session=True)
        self.sid = p.pid
        return p

    def _wait_busy(self, p, marker, timeout=180):
        """Until a process whose command holds `marker` runs in the session (the workers are busy)."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if p.poll() is not None:
                self.fail(f"ended (exit {p.returncode}) before it was busy: {p.stdout.read()[-800:]}")
            if any(marker in cmd for _, cmd in session(self.sid)):
                return
            time.sleep(0.05)
        self.fail(f"no {marker} process within {timeout} s")

    def _signal(self, p, sig, target):
        if target == "wrapper":
            os.kill(p.pid, sig)
        elif target == "group":   # Ctrl-C: the terminal signals its foreground group, which is the wrapper's
            os.killpg(p.pid, sig)
        else:   # the tier's own process: the wrapper's child
            kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
            self.assertTrue(kids, "the wrapper has no child")
            os.kill(int(kids[0]), sig)

    def _ended(self, p, sig):
        out, _ = p.communicate(timeout=300)
        self.assertEqual(p.returncode, 128 + sig, out[-1500:])
        for mark in CRASH_MARKS:
            self.assertNotIn(mark, out)
        time.sleep(2.0)
        self.assertEqual(session(self.sid), [], "processes left 2 s after the wrapper ended")
        return out

    def _resume(self, argv):
        r = subprocess.run([PTXCTS] + argv + ["--resume", self.out], capture_output=True, text=True, env=self.env,
                           cwd=self.tmp, timeout=900)
        self.assertIn(r.returncode, (0, 1), r.stdout[-1000:] + r.stderr[-1500:])
        return r

    def _compile(self, sig, target):
        p = self._start(COMPILE)
        # a compiler call on the tier's modules (its temporary folder): cases are being judged. Not any ptxas: the
        # toolchain's `ptxas --version` at start-up matched too, and a signal then ends the verb before it has
        # judged anything, so it writes nothing (the test failed under a loaded ctest)
        self._wait_busy(p, "ptxcts-compile-")
        self._signal(p, sig, target)
        self._ended(p, sig)
        with open(os.path.join(self.out, "results.json")) as f:
            doc = json.load(f)
        name = signal.Signals(sig).name
        self.assertEqual(doc["partial"]["reason"], f"interrupted by {name}")
        self.assertEqual(len(doc["cases"]), COMPILE_CASES)
        judged = [c for c in doc["cases"] if c["class"] != "skipped"]
        self.assertEqual(doc["partial"]["done"], len(judged))
        self._resume([a for a in COMPILE if a != "--quiet"])
        with open(os.path.join(self.out, "results.json")) as f:
            done = json.load(f)
        self.assertNotIn("partial", done)
        self.assertEqual(doc["run_id"], done["run_id"])
        self.assertEqual(len(done["cases"]), COMPILE_CASES)
        self.assertFalse([c["id"] for c in done["cases"] if c["class"] == "skipped"])
        before = {c["id"]: c["class"] for c in judged}
        self.assertEqual(before, {c["id"]: c["class"] for c in done["cases"] if c["id"] in before},
                         "a case judged before the signal changed on --resume")

    def test_compile_sigterm_to_the_wrapper(self):
        self._compile(signal.SIGTERM, "wrapper")

    def test_compile_sigint_to_the_group(self):
        self._compile(signal.SIGINT, "group")

    def test_compile_sigterm_to_the_tier(self):
        self._compile(signal.SIGTERM, "tier")

    def test_compile_sigint_to_the_wrapper(self):
        self._compile(signal.SIGINT, "wrapper")

    def test_matrix_sigterm_to_the_wrapper(self):
        """A shell verb that runs a tier (matrix): the tier still writes its partial document before the group
        ends, rather than being killed 2 s after the shell."""
        p = self._start(["matrix", "--toolchains", "13.0", "--verdicts", "ptxas", "-j", "2"])
        self._wait_busy(p, "ptxcts-compile-")   # a compiler call on the tier's modules: cases are being judged
        time.sleep(2.0)
        self._signal(p, signal.SIGTERM, "wrapper")
        self._ended(p, signal.SIGTERM)
        with open(os.path.join(self.out, "13.0", "results.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["partial"]["reason"], "interrupted by SIGTERM")
        self.assertGreater(doc["partial"]["done"], 0)

    def test_explore_sigterm_to_the_wrapper(self):
        explore = os.path.join(BUILD, "harness", "run", "ptxcts-explore")
        if not os.path.exists(explore):
            self.skipTest(f"{explore} is not built")
        p = self._start(EXPLORE)
        self._wait_busy(p, "--worker")
        time.sleep(1.0)
        self._signal(p, signal.SIGTERM, "wrapper")
        self._ended(p, signal.SIGTERM)
        with open(os.path.join(self.out, "explore.json")) as f:
            doc = json.load(f)
        self.assertTrue(doc["interrupted"])
        ran = doc["cases_run"]
        self._resume(["explore", "--time", "2", "--shrink-time", "0", "--quiet", "--jobs", "2", "--cases-file",
                      "none", "--device", "model"])
        with open(os.path.join(self.out, "explore.json")) as f:
            later = json.load(f)
        self.assertGreaterEqual(later["cases_run"], ran)
        self.assertEqual(later["id"], doc["id"])


# A signal that reaches a Python verb while a finalizer or an at-fork hook runs: its exception is raised there, where
# Python cannot pass it on. The verb must still stop (exit 128 + signal, its one line), not print "Exception ignored
# in ..." with a traceback and run on to its end (framework/boundary.py, _swallowed).
SWALLOWED = {
    "finalizer": """
import os, signal, time
class Finalized:
    def __del__(self):
        os.kill(os.getpid(), signal.SIG)
        for _ in range(10000):   # the handler runs here, inside the finalizer
            pass
obj = Finalized()
del obj
time.sleep(2)   # the rest of the verb
print("ran on")
""",
    "at-fork hook": """
import os, signal, time
def hook():
    os.kill(os.getpid(), signal.SIG)
    for _ in range(10000):   # the handler runs here, inside the hook
        pass
os.register_at_fork(after_in_parent=hook)
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
time.sleep(2)   # the rest of the verb
print("ran on")
"""}


class SwallowedInterrupt(unittest.TestCase):
    def _verb(self, where, sig):
        with tempfile.TemporaryDirectory(prefix="ptxcts-swallowed-") as tmp:
            with open(os.path.join(tmp, "swallowed_probe.py"), "w") as f:
                f.write(SWALLOWED[where].replace("signal.SIG)", f"signal.{signal.Signals(sig).name})"))
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "harness"),
                                                                os.path.join(ROOT, "generator"), tmp]))
            r = subprocess.run([sys.executable, "-m", "framework", "swallowed_probe"], capture_output=True,
                               text=True, env=env, timeout=120)
        what = f"{where}, {signal.Signals(sig).name}: exit {r.returncode}: {r.stdout[-400:]} {r.stderr[-1200:]}"
        self.assertEqual(r.returncode, 128 + sig, what)
        self.assertNotIn("ran on", r.stdout, what)
        self.assertIn(f"interrupted by {signal.Signals(sig).name}", r.stderr, what)
        for mark in CRASH_MARKS + ("Exception ignored",):
            self.assertNotIn(mark, r.stderr, what)

    def test_sigterm_in_a_finalizer(self):
        self._verb("finalizer", signal.SIGTERM)

    def test_sigint_in_a_finalizer(self):
        self._verb("finalizer", signal.SIGINT)

    def test_sigint_in_an_at_fork_hook(self):
        self._verb("at-fork hook", signal.SIGINT)

    def test_sigterm_in_an_at_fork_hook(self):
        self._verb("at-fork hook", signal.SIGTERM)


class WrapperStart(unittest.TestCase):
    """A signal while ./ptxcts's own interpreter starts, before its first Python line runs: the first line (sh)
    starts Python with SIGINT and SIGTERM held (env --block-signal), and the wrapper records what was held once its
    handlers are in. Each trial must end 130/143 (or by the signal itself, in sh or env before Python started:
    nothing was started) with no KeyboardInterrupt traceback. Started unheld, about one SIGINT in five sent in the
    first 30 ms printed one (the interpreter compiles the wrapper, then imports `signal`, before its handlers exist)."""
    TRIALS = 60
    WINDOW_S = 0.030

    def test_signals_in_the_first_30_ms(self):
        if subprocess.run(["env", "--block-signal=INT", "true"], capture_output=True).returncode != 0:
            self.skipTest("env has no --block-signal (GNU coreutils older than 8.31): ./ptxcts starts Python unheld")
        rng = random.Random(33)
        for k in range(self.TRIALS):
            sig = signal.SIGINT if k % 2 == 0 else signal.SIGTERM
            delay = rng.uniform(0.0, self.WINDOW_S)
            p = subprocess.Popen([PTXCTS, "cases", "--count"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True, start_new_session=True)
            t0 = time.monotonic()
            while time.monotonic() - t0 < delay:   # a sleep this short oversleeps by more than the window
                pass
            os.killpg(p.pid, sig)
            _, err = p.communicate(timeout=120)
            what = f"{signal.Signals(sig).name} {delay * 1000:.1f} ms after the start: exit {p.returncode}: {err[-800:]}"
            self.assertIn(p.returncode, (128 + sig, -sig), what)
            for mark in CRASH_MARKS:
                self.assertNotIn(mark, err, what)


if __name__ == "__main__":
    unittest.main()
