#!/usr/bin/env python3
"""CPU tests of the run tier's parent (ptxcts-run) and GoogleTest front (ptxcts-run-tests), no GPU:
option and environment validation (a table of bad inputs: exit code and message), the --out lock, the toolchain's
not_supported reason, a copied build folder, an interrupted run (SIGINT/SIGTERM) and its --resume through a
pretend device and the fake worker, and known findings (results/expectations/run.toml, results/waivers.toml).
Run by CTest (run.cli) in <build>/harness/run; by hand: PTXCTS_BUILD_DIR=build python3 harness/run/tests/test_cli.py"""
import collections
import fcntl
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
# CTest runs this in <build>/harness/run; by hand, name the build folder with PTXCTS_BUILD_DIR.
BUILD = os.environ.get("PTXCTS_BUILD_DIR") or os.path.dirname(os.path.dirname(os.getcwd()))
RUN = os.path.join(BUILD, "harness", "run", "ptxcts-run")
TESTS = os.path.join(BUILD, "harness", "run", "ptxcts-run-tests")
FAKE = os.path.join(BUILD, "harness", "run", "ptxcts-run-fake-worker")
STANDIN = f"{sys.executable} {os.path.join(HERE, 'toolchain_standin.py')}"
H100_GZ = os.path.join(ROOT, "results", "2026-11-25-sm_90-h100-run", "results.json.gz")


def _h100_results():
    """The committed H100 run (gzip-compressed in the tree), as a plain results.json the C++ front reads."""
    import gzip
    path = os.path.join(tempfile.gettempdir(), f"ptxcts-h100-results-{os.getpid()}.json")
    if not os.path.exists(path):
        with gzip.open(H100_GZ, "rb") as f, open(path, "wb") as g:
            g.write(f.read())
    return path


H100 = _h100_results()
SMALL = ["--family", "cp.async.bulk.prefetch", "--lower-targets", "none"]


def env(**kw):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("PTXCTS_", "GTEST_", "CTEST_RESOURCE"))}
    e["PTXCTS_TOOLCHAIN_RESOLVER"] = STANDIN
    e.update({k: v for k, v in kw.items() if v is not None})
    return e


def run(args, exe=RUN, **kw):
    return subprocess.run([exe] + args, capture_output=True, text=True, env=env(**kw), timeout=600)


def fake_env(pids=None, delay=None):
    return dict(PTXCTS_RUN_FAKE_DEVICE="sm_90", PTXCTS_RUN_WORKER=FAKE, FAKE_WORKER_PIDS=pids,
                FAKE_WORKER_DELAY_MS=delay)


class Options(unittest.TestCase):
    # (arguments, environment, exit code, fragment of the message)
    TABLE = [
        (["--seed", "-1"], {}, 2, "--seed '-1': expected a decimal integer"),
        (["--seed", "12abc"], {}, 2, "--seed '12abc'"),
        (["--seed", "18446744073709551616"], {}, 2, "--seed"),
        (["--jobs", "0"], {}, 2, "--jobs '0': expected an integer from 1 to 256"),
        (["--jobs", "4x"], {}, 2, "--jobs '4x'"),
        (["--trap-jobs", "0"], {}, 2, "--trap-jobs '0': expected an integer from 1 to 256"),
        (["--trap-jobs", "8x"], {}, 2, "--trap-jobs '8x'"),
        (["--level", "7"], {}, 2, "--level '7': expected an integer from 0 to 2"),
        (["--timeout", "-1"], {}, 2, "--timeout '-1': expected seconds"),
        (["--timeout", "nan"], {}, 2, "--timeout 'nan'"),
        (["--deadline", "0"], {}, 2, "--deadline '0'"),
        (["--family", "nope"], {}, 2, "--family 'nope': no such family in the manifest"),
        (["--lower-targets", "sm_999"], {}, 2, "--lower-targets sm_999: toolchain 13.0"),
        (["--lower-targets", "80"], {}, 2, "'80' is not a target like sm_80"),
        (["--target", "sm_80,sm_86"], {}, 2, "--target 'sm_80,sm_86': expected one target"),
        (["--load-path", "ptx"], {}, 2, "--load-path 'ptx': expected cubin, jit or both"),
        (["--shard", "2/2"], {}, 2, "--shard '2/2': expected i/n with 0 <= i < n"),
        (["--shard", "a/b"], {}, 2, "--shard 'a/b'"),
        (["--run-id", "x/y"], {}, 2, "--run-id 'x/y'"),
        (["--case", "no/such#case"], {}, 2, "--case 'no/such#case': no such run case"),
        (["--filter", ""], {}, 2, "--filter ''"),
        (["--out"], {}, 2, "--out needs a value"),
        (["--bogus"], {}, 2, "unknown option '--bogus'"),
        (["--bogus=1"], {}, 2, "unknown option '--bogus=1'"),
        (["--seed=-1"], {}, 2, "--seed '-1': expected a decimal integer"),
        (["--seed=1", "--seed", "2"], {}, 2, "--seed given twice with different values: '1' and '2'"),
        (["--quiet=1"], {}, 2, "--quiet takes no value (given '--quiet=1')"),
        (["--device", "gpu0"], {}, 2, "--device 'gpu0': expected gpu, model, or model:FAULT"),
        (["--device-name", "X"], {}, 2, "--device-name X: names the model device only"),
        (["--device", "model", "--device-name", ""], {}, 2, "--device-name '': expected a name of 1 to 200"),
        (["--toolchain", "nope"], {}, 2, "unknown toolchain 'nope' (known:"),
        (["--toolchain", "/bin/true"], {}, 2, "not a working ptxas"),
        (["--resume", "/nonexistent/run"], {}, 2, "--resume /nonexistent/run: no results.json"),
        ([], {"PTXCTS_TOOLCHAIN": "nope"}, 2, "unknown toolchain 'nope'"),
        ([], {"GTEST_SHARD_INDEX": "5", "GTEST_TOTAL_SHARDS": "2"}, 2, "GTEST_SHARD_INDEX=5 with GTEST_TOTAL_SHARDS=2"),
        ([], {"GTEST_SHARD_INDEX": "-1", "GTEST_TOTAL_SHARDS": "2"}, 2, "GTEST_SHARD_INDEX='-1'"),
        ([], {"GTEST_SHARD_INDEX": "0"}, 2, "set both or neither"),
        ([], {"CTEST_RESOURCE_GROUP_COUNT": "1"}, 2, "CTEST_RESOURCE_GROUP_0_GPUS is not set"),
        ([], {"CTEST_RESOURCE_GROUP_0_GPUS": "id:x,slots:1"}, 2, "CTEST_RESOURCE_GROUP_0_GPUS='id:x,slots:1'"),
        ([], {"CTEST_RESOURCE_GROUP_0_GPUS": "id:0,slots:1;id:1,slots:1"}, 2, "one GPU per test"),
        ([], {"CTEST_RESOURCE_GROUP_COUNT": "2", "CTEST_RESOURCE_GROUP_0_GPUS": "id:0,slots:1"}, 2, "must be 1"),
        ([], {"PTXCTS_RUN_INJECT": "boom"}, 2, "PTXCTS_RUN_INJECT='boom'"),
        ([], {"PTXCTS_RUN_INJECT": "crash:"}, 2, "PTXCTS_RUN_INJECT='crash:'"),
        ([], {"PTXCTS_RUN_FAKE_DEVICE": "sm_90a", "PTXCTS_RUN_WORKER": FAKE}, 2, "PTXCTS_RUN_FAKE_DEVICE='sm_90a'"),
        ([], {"PTXCTS_BUILD": "/tmp"}, 2, "PTXCTS_BUILD=/tmp is not the build folder"),
        ([], {"PTXCTS_ROOT": "/tmp"}, 2, "PTXCTS_ROOT=/tmp is not the source tree"),
    ]

    def test_table(self):
        for args, e, code, fragment in self.TABLE:
            with self.subTest(args=args, env=e):
                r = run(args + ["--list"] if "--out" not in args else args, **e)
                self.assertEqual(r.returncode, code, r.stderr)
                self.assertIn(fragment, r.stderr)
                self.assertNotIn("terminate called", r.stderr)

    def test_good_values_pass(self):
        r = run(["--seed", "18446744073709551615", "--jobs", "3", "--level", "0", "--timeout", "2.5",
                 "--trap-jobs", "16", "--traps-alone", "--shard", "1/3", "--family", "cp.async.bulk", "--list"],
                GTEST_SHARD_INDEX="0", GTEST_TOTAL_SHARDS="1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.strip())

    def test_equals_spelling_selects_the_same(self):
        spaced = run(["--seed", "7", "--family", "cp.async.bulk", "--family", "cp.async", "--shard", "1/3", "--list"])
        joined = run(["--seed=7", "--family=cp.async.bulk", "--family=cp.async", "--shard=1/3", "--seed=7", "--list"])
        self.assertEqual((spaced.returncode, joined.returncode), (0, 0), joined.stderr)
        self.assertTrue(spaced.stdout.strip())
        self.assertEqual(joined.stdout, spaced.stdout)

    def test_no_resource_group_asked(self):
        # CTest with a resource spec file gives a test that asks for no resource group CTEST_RESOURCE_GROUP_COUNT=0
        r = run(["--family", "cp.async.bulk", "--list"], CTEST_RESOURCE_GROUP_COUNT="0")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.strip())
        r = run(["--family", "cp.async.bulk", "--list"], CTEST_RESOURCE_GROUP_COUNT="0",
                CTEST_RESOURCE_GROUP_0_GPUS="id:0,slots:1")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("must be 1", r.stderr)

    def test_ptxcts_ptxas_is_a_deprecated_alias(self):
        r = run(SMALL + ["--list"], PTXCTS_PTXAS="/bin/true")
        self.assertEqual(r.returncode, 2)
        self.assertIn("PTXCTS_PTXAS is deprecated", r.stderr)
        self.assertIn("not a working ptxas", r.stderr)

    def test_front_validates_too(self):
        for args, e, fragment in ((["--seed", "x"], {}, "--seed 'x'"), (["--jobs", "0"], {}, "--jobs '0'"),
                                  (["--load-path", "x"], {}, "--load-path 'x'"),
                                  ([], {"GTEST_SHARD_INDEX": "3", "GTEST_TOTAL_SHARDS": "2"}, "GTEST_SHARD_INDEX=3"),
                                  ([], {"PTXCTS_RUN_ID": "a b"}, "PTXCTS_RUN_ID 'a b'")):
            with self.subTest(args=args, env=e):
                r = run(args + ["--family", "cp.async.bulk"], exe=TESTS, **e)
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn(fragment, r.stderr)


class Toolchain(unittest.TestCase):
    def test_not_supported_names_the_toolchain(self):
        r = run(["--family", "cp.async.bulk.tensor", "--dry-build", "--toolchain", "12.4", "--lower-targets", "none"])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stdout.splitlines() if l.startswith("not_supported:")]
        self.assertTrue(lines)
        self.assertTrue(any("toolchain 12.4 (ptxas 12.4.131) knows PTX ISA up to 8.4; the form needs 8.6" in l
                            for l in lines), lines[:3])
        self.assertNotIn("compile_error", r.stdout)
        # the same forms are runnable with the installed toolchain (9.0)
        r = run(["--family", "cp.async.bulk.tensor", "--dry-build", "--lower-targets", "none"])
        self.assertNotIn("knows PTX ISA up to", r.stdout)

    def test_lower_target_the_toolchain_lacks(self):
        r = run(SMALL[:2] + ["--lower-targets", "sm_100a", "--toolchain", "12.4", "--list"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("toolchain 12.4 (ptxas 12.4.131)", r.stderr)


class BeyondTheChapter(unittest.TestCase):
    """A form of a later PTX ISA version than the chapter's (PTX 9.x) runs from modules rendered at the newest
    version the toolchain knows (render_ptx); a toolchain that knows none is not_supported, naming it."""

    def real_env(self):
        e = env()
        del e["PTXCTS_TOOLCHAIN_RESOLVER"]   # the real resolver: ./ptxcts toolchains resolve
        return e

    def test_ignore_oob_runs_at_the_newest_version_and_leaves_its_ignored_bytes_unjudged(self):
        e = self.real_env()
        probe = subprocess.run([os.path.join(ROOT, "ptxcts"), "toolchains", "resolve", "--json", "13.5"],
                               capture_output=True, text=True, env=e)
        if probe.returncode != 0:
            self.skipTest("toolchain 13.5 is not installed (./ptxcts setup --toolchains 13.5)")
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "run")
            r = subprocess.run([RUN, "--device", "model", "--toolchain", "13.5", "--filter", "ignore_oob",
                                "--load-path", "cubin", "--quiet", "--out", out], capture_output=True, text=True,
                               env=e, timeout=600)
            self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])
            self.assertIn("result(s) of later forms at 9.5", r.stdout)
            with open(os.path.join(out, "results.json")) as f:
                cases = json.load(f)["cases"]
        self.assertTrue(cases)
        self.assertEqual({c["ptx"] for c in cases}, {"9.5"})
        self.assertEqual({c["class"] for c in cases}, {"pass"})
        ignoring = [c for c in cases if ".ignore_" in c["id"]]
        self.assertTrue(ignoring)
        for c in ignoring:   # the ignored bytes are reported, never judged
            self.assertIn("byte(s)", c["details"]["indeterminate_bytes"])
            self.assertIn(c["details"]["variant"]["ignore_left"], (0, 3, 15))
        # the chapter's toolchain knows no 9.2: the same cases are not_supported, naming it and the version
        r = subprocess.run([RUN, "--filter", "ignore_oob", "--dry-build", "--lower-targets", "none"],
                           capture_output=True, text=True, env=e, timeout=600)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = [l for l in r.stdout.splitlines() if l.startswith("not_supported:")]
        self.assertTrue(lines)
        # ... and in ptxas's own words (the resolver's refusals)
        self.assertTrue(all(re.search(r"knows PTX ISA up to 9\.0; the form needs (9\.[2-5]); ptxas: .*"
                                      r"Unsupported \.version \1", l) for l in lines), lines[:2])


class Tree(unittest.TestCase):
    def test_copied_build_folder_refuses(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "harness", "run"))
            shutil.copy2(RUN, os.path.join(d, "harness", "run", "ptxcts-run"))
            shutil.copy2(os.path.join(BUILD, "ptxcts-build.txt"), d)
            r = subprocess.run([os.path.join(d, "harness", "run", "ptxcts-run"), "--list"], capture_output=True,
                               text=True, env=env())
            self.assertEqual(r.returncode, 2, r.stdout)
            self.assertIn("has since been copied or moved", r.stderr)
            self.assertIn(d, r.stderr)
            os.remove(os.path.join(d, "ptxcts-build.txt"))
            r = subprocess.run([os.path.join(d, "harness", "run", "ptxcts-run"), "--list"], capture_output=True,
                               text=True, env=env())
            self.assertEqual(r.returncode, 2)
            self.assertIn("not inside a configured ptx-cts build folder", r.stderr)


class Runs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-cli-")
        self.pids = os.path.join(self.tmp, "pids")
        os.makedirs(self.pids)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def doc(self, out):
        with open(os.path.join(out, "results.json")) as f:
            text = f.read()
        d = json.loads(text)
        # one case per line
        self.assertGreaterEqual(text.count("\n"), len(d["cases"]))
        return d

    def test_lock(self):
        out = os.path.join(self.tmp, "out")
        os.makedirs(out)
        with open(os.path.join(out, ".ptxcts.lock"), "w") as f:   # the file every tier locks (Python's too)
            f.write("4242\n")
            f.flush()
            fcntl.flock(f, fcntl.LOCK_EX)
            r = run(SMALL + ["--out", out], **fake_env())
        self.assertEqual(r.returncode, 2)
        self.assertIn(f"--out {out}: another run (pid 4242)", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "results.json")))

    def test_complete_run_then_refuses_to_overwrite(self):
        out = os.path.join(self.tmp, "out")
        r = run(SMALL + ["--out", out, "--quiet"], **fake_env())
        self.assertEqual(r.returncode, 0, r.stderr)
        d = self.doc(out)
        self.assertNotIn("partial", d)
        self.assertEqual(d["toolchain"]["name"], "13.0")
        self.assertEqual(len(d["toolchain"]["ptxas_sha256"]), 64)
        self.assertTrue(all("--toolchain '13.0'" in c["replay"] for c in d["cases"]))
        self.assertRegex(d["run_id"], r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z-sm_90-run-\d+$")
        self.assertEqual([n for n in os.listdir(out) if ".tmp" in n or n.startswith(".results")], [])
        self.assertFalse(os.path.exists(os.path.join(out, ".ptxcts.lock")))
        before = open(os.path.join(out, "results.json")).read()
        r = run(SMALL + ["--out", out], **fake_env())
        self.assertEqual(r.returncode, 2)
        self.assertIn("already holds a run (results.json)", r.stderr)
        self.assertEqual(open(os.path.join(out, "results.json")).read(), before)

    def test_model_device_stands_in_for_a_gpu(self):
        """--device model: no GPU, every case judged against the model itself, the name given kept in the document
        and the device saved with the selection (a --resume runs on it again)."""
        out = os.path.join(self.tmp, "model")
        r = run(SMALL + ["--device", "model", "--device-name", "stand-in A", "--out", out, "--quiet"])
        self.assertEqual(r.returncode, 0, r.stderr)
        d = self.doc(out)
        self.assertEqual((d["device"]["name"], d["device"]["sm"]), ("stand-in A", "sm_90"))
        self.assertTrue(d["cases"])
        self.assertEqual({c["class"] for c in d["cases"]} - {"pass", "not_supported"}, set())
        with open(os.path.join(out, "run-args.json")) as f:
            self.assertIn("model", json.load(f)["args"])

    def test_shard_deal_traps_puts_the_expected_traps_on_shard_0(self):
        """--shard-deal traps: shard 0 holds exactly the cases the planner expects to trap (details.variant.traps),
        the other shards the rest; the shards merge to the unsharded run's keys and classes; the deal is kept in
        the document, and shards dealt two ways are not merged as one run."""
        sel = ["--family", "cp.async.bulk.prefetch.tensor", "--lower-targets", "none", "--device", "model", "--quiet"]
        whole = os.path.join(self.tmp, "whole")
        self.assertEqual(run(sel + ["--out", whole]).returncode, 0)
        expected = {(c["id"], c["load_path"]): c["class"] for c in self.doc(whole)["cases"]}
        shards = []
        for i in range(3):
            out = os.path.join(self.tmp, f"shard-{i}")
            r = run(sel + ["--shard", f"{i}/3", "--shard-deal", "traps", "--run-id", "dealt", "--out", out])
            self.assertEqual(r.returncode, 0, r.stderr)
            shards.append(out)
        docs = [self.doc(o) for o in shards]
        traps = [[bool(c["details"].get("variant", {}).get("traps")) for c in d["cases"]] for d in docs]
        self.assertTrue(traps[0] and all(traps[0]), "shard 0: the expected traps, and only they")
        self.assertTrue(traps[1] and traps[2] and not any(traps[1] + traps[2]), "shards 1 and 2: the calm cases")
        self.assertEqual([d["shard"] for d in docs], [{"index": i, "count": 3, "deal": "traps"} for i in range(3)])
        merged = os.path.join(self.tmp, "merged")
        py = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "generator") + os.pathsep + os.path.join(ROOT, "harness"))
        m = subprocess.run([sys.executable, "-m", "results", "merge", "--out", merged, "--run-id", "dealt"] + shards,
                           capture_output=True, text=True, env=py)
        self.assertEqual(m.returncode, 0, m.stderr)
        self.assertEqual({(c["id"], c["load_path"]): c["class"] for c in self.doc(merged)["cases"]}, expected)
        # a shard of the same run dealt round-robin: its cases are another set, so the merge refuses it
        rr = os.path.join(self.tmp, "rr")
        self.assertEqual(run(sel + ["--shard", "1/3", "--run-id", "dealt", "--out", rr]).returncode, 0)
        self.assertEqual(self.doc(rr)["shard"], {"index": 1, "count": 3})
        m = subprocess.run([sys.executable, "-m", "results", "merge", "--out", os.path.join(self.tmp, "mixed"),
                            "--run-id", "dealt", shards[0], rr, shards[2]], capture_output=True, text=True, env=py)
        self.assertNotEqual(m.returncode, 0)
        self.assertIn("disagree on shard deal", m.stderr)
        bad = run(sel + ["--shard", "0/2", "--shard-deal", "by-size", "--out", os.path.join(self.tmp, "bad")])
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--shard-deal 'by-size': expected round-robin or traps", bad.stderr)

    def timed_run(self, name, args, env):
        """A run of one batch into tmp/name that exits 0 and writes a valid document: (its timing, doc, process)."""
        sys.path[:0] = [os.path.join(ROOT, "harness"), os.path.join(ROOT, "generator")]
        from framework.documents import schema
        out = os.path.join(self.tmp, name)
        r = run(args + ["--out", out], **env)
        self.assertEqual(r.returncode, 0, r.stderr)
        d = self.doc(out)
        schema.validate(d)
        (t,) = d["timing"]
        return t, d, r

    def test_trap_phase_beside_and_alone(self):
        # The fake worker passes every case: beside other trapping workers a pass stands (no neighbour's trap can
        # make a kernel end cleanly with the model's bytes), marked as seen beside them; --traps-alone runs them
        # one after another and marks nothing.
        sel = ["--family", "cp.reduce.async.bulk.tensor", "--filter", "misaligned", "--lower-targets", "none",
               "--load-path", "cubin"]
        seen = {}
        for name, extra in (("beside", ["--trap-jobs", "3"]), ("alone", ["--traps-alone"])):
            t, d, r = self.timed_run(name, sel + extra, fake_env())
            self.assertGreater(t["traps"], 1)
            self.assertEqual(t["cases"], 0)
            seen[name] = (t, d["cases"], r.stderr)
        t, cases, err = seen["beside"]
        self.assertEqual((t["trap_workers"], t["trap_rerun_alone"]), (3, 0))
        self.assertIn(f"{t['traps']} expected trap(s) in", err)
        self.assertIn("3 at once; 0 of them re-run alone in", err)
        for c in cases:
            self.assertEqual(c["class"], "pass")
            self.assertTrue(c["details"]["beside_other_workers"])
            self.assertNotIn("first_attempt_with_other_workers", c["details"])
        t, cases, err = seen["alone"]
        self.assertEqual((t["trap_workers"], t["trap_rerun_alone"]), (1, 0))
        self.assertIn("1 at once; 0 of them re-run alone", err)
        for c in cases:
            self.assertNotIn("first_attempt_with_other_workers", c["details"])
            self.assertNotIn("beside_other_workers", c["details"])

    def test_trap_phase_overlaps_the_calm_phase_when_told(self):
        # A family with calm cases and cases expected to trap: with --overlap its trap phase begins while its calm
        # phase runs (timing's trap_at_s, the "overlapped" line); by default it runs after, with the same verdicts.
        sel = ["--family", "cp.reduce.async.bulk.tensor", "--lower-targets", "none", "--load-path", "cubin",
               "--jobs", "2", "--trap-jobs", "2"]
        seen = {}
        for name, extra in (("overlap", ["--overlap"]), ("in turn", [])):
            t, d, r = self.timed_run(name.replace(" ", "-"), sel + extra, fake_env(delay="2"))
            self.assertGreater(t["cases"], 0)
            self.assertGreater(t["traps"], 0)
            seen[name] = (t, r.stderr, {(c["id"], c["class"]) for c in d["cases"]})
        t, err, verdicts = seen["overlap"]
        self.assertLess(t["trap_at_s"], t["calm_at_s"] + t["batch_s"])
        self.assertIn("run: overlapped: 1 calm phase(s)", err)
        t, err, verdicts_in_turn = seen["in turn"]
        self.assertGreaterEqual(t["trap_at_s"] + 0.15, t["calm_at_s"] + t["batch_s"])
        self.assertNotIn("run: overlapped:", err)
        self.assertEqual(verdicts, verdicts_in_turn)

    def interrupt(self, sig, code, reason):
        out = os.path.join(self.tmp, "out")
        p = subprocess.Popen([RUN] + SMALL + ["--out", out, "--jobs", "2", "--quiet", "--seed", "7"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env(**fake_env(self.pids, "150")))
        t0 = time.time()
        while not os.listdir(self.pids) and time.time() - t0 < 120:
            time.sleep(0.05)
        time.sleep(0.6)
        p.send_signal(sig)
        so, se = p.communicate(timeout=120)
        self.assertEqual(p.returncode, code, se)
        for pid in os.listdir(self.pids):
            self.assertFalse(os.path.exists(f"/proc/{pid}") and "Z" not in open(f"/proc/{pid}/stat").read().split()[2],
                             f"worker {pid} outlived the parent")
        d = self.doc(out)
        self.assertEqual(d["partial"]["reason"], reason)
        cls = collections.Counter(c["class"] for c in d["cases"])
        skipped = [c for c in d["cases"] if c["class"] == "skipped"]
        self.assertTrue(skipped)
        self.assertTrue(all(c["message"] == "interrupted" for c in skipped))
        self.assertEqual(d["partial"]["total"], len(d["cases"]))
        self.assertEqual(d["partial"]["done"], len(d["cases"]) - len(skipped))
        self.assertGreater(cls["pass"], 0)
        return out, d

    def test_sigterm(self):
        self.interrupt(signal.SIGTERM, 143, "interrupted by SIGTERM")

    def test_sigint_then_resume(self):
        out, first = self.interrupt(signal.SIGINT, 130, "interrupted by SIGINT")
        judged = {(c["id"], c["load_path"]): c for c in first["cases"] if c["class"] != "skipped"}
        r = run(["--resume", out, "--family", "x"], **fake_env())
        self.assertEqual(r.returncode, 2)
        self.assertIn("only --jobs, --trap-jobs, --traps-alone, --trap-prestart, --no-trap-prestart, --overlap, --no-overlap, --timeout, --deadline, --quiet and --no-rerun-alone", r.stderr)
        r = run(["--resume", out, "--jobs", "2", "--quiet"], **fake_env(self.pids))
        self.assertEqual(r.returncode, 0, r.stderr)
        d = self.doc(out)
        self.assertNotIn("partial", d)
        self.assertEqual(d["run_id"], first["run_id"])
        self.assertEqual(d["seed"], 7)
        self.assertEqual(d["started"], first["started"])
        self.assertEqual(len(d["cases"]), len(first["cases"]))
        # the family's PTX ISA 9.4 forms (.L2::evict_last, sm_107f only) are not_supported: beyond the toolchain's
        # versions, or rendered beyond the chapter (render_ptx) and then not for this device's target
        newer = [c for c in d["cases"] if c["class"] == "not_supported"]
        self.assertTrue(newer)
        self.assertTrue(all("the form needs" in c["message"] or "sm_107f" in c["message"] for c in newer),
                        [c["message"] for c in newer])
        self.assertEqual(collections.Counter(c["class"] for c in d["cases"] if c["class"] != "not_supported"),
                         {"pass": len(d["cases"]) - len(newer)})
        for c in d["cases"]:  # the judged ones are kept as they were, not run again
            if (c["id"], c["load_path"]) in judged:
                self.assertEqual(c["message"], judged[(c["id"], c["load_path"])]["message"])


class GpusSpec(unittest.TestCase):
    def spec(self, smi):
        with tempfile.TemporaryDirectory() as d:
            if smi is not None:
                with open(os.path.join(d, "nvidia-smi"), "w") as f:
                    f.write("#!/bin/sh\n" + smi)
                os.chmod(os.path.join(d, "nvidia-smi"), 0o755)
            path = d + ":/usr/bin:/bin"
            out = os.path.join(d, "gpus.json")
            env = {"PATH": path}
            if smi is None:   # an nvidia-smi that finds no driver, whatever this machine has in /usr/bin (one the
                # variable names but that is no program is refused: test_a_variable_naming_no_program_is_refused)
                with open(os.path.join(d, "failing-nvidia-smi"), "w") as f:
                    f.write("#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
                os.chmod(os.path.join(d, "failing-nvidia-smi"), 0o755)
                env["PTXCTS_NVIDIA_SMI"] = os.path.join(d, "failing-nvidia-smi")
            r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "gpus.sh"), out], capture_output=True, text=True,
                               env=env)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                return json.load(f)

    def test_a_variable_naming_no_program_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            missing = os.path.join(d, "no-nvidia-smi")
            r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "gpus.sh")], capture_output=True, text=True,
                               env={"PATH": "/usr/bin:/bin", "PTXCTS_NVIDIA_SMI": missing})
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(f"PTXCTS_NVIDIA_SMI='{missing}': not a program", r.stderr)

    def test_one_entry_per_gpu(self):
        d = self.spec('printf "0\\n1\\n"\n')
        self.assertEqual(d["version"], {"major": 1, "minor": 0})
        self.assertEqual(d["local"][0]["gpus"], [{"id": "0", "slots": 1}, {"id": "1", "slots": 1}])

    def test_no_gpu_is_an_empty_list(self):
        self.assertEqual(self.spec("exit 9\n")["local"][0]["gpus"], [])
        self.assertEqual(self.spec(None)["local"][0]["gpus"], [])


class KnownFindings(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-known-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def front(self, doc_path, **e):
        return run(["--from-results", doc_path, "--family", "cp.async.bulk.tensor", "--load-path", "cubin"],
                   exe=TESTS, PTXCTS_RESULTS_TMP=None, **e)

    def mutated(self, change):
        d = json.load(open(H100))
        d["cases"] = [c for c in d["cases"] if c["family"] == "cp.async.bulk.tensor" and c["load_path"] == "cubin"]
        change(d)
        p = os.path.join(self.tmp, "results.json")
        json.dump(d, open(p, "w"))
        return p

    def findings(self):
        """The committed run's cp.async.bulk.tensor cubin cases that are findings (fail, crash, timeout)."""
        d = json.load(open(H100))
        return sum(1 for c in d["cases"] if c["family"] == "cp.async.bulk.tensor" and c["load_path"] == "cubin"
                   and c["class"] in ("fail", "crash", "timeout"))

    def test_h100_run_is_green_with_its_known_findings(self):
        r = self.front(H100)
        self.assertEqual(r.returncode, 0, r.stdout[-3000:] + r.stderr)
        n = self.findings()
        self.assertGreaterEqual(n, 4)  # the committed run: an interleaved store and loads outside chunk_rows, a trap
        for text in (f"run: known findings: {n} (",
                     "known finding h100-interleaved-tile-copy-outside-measured-domain: fail",
                     "known finding h100-interleaved-tile-copy-outside-measured-domain-timeout: timeout",
                     "replay: ./ptxcts run --case 'cp.async.bulk.tensor/"):
            self.assertTrue(text in r.stdout, text + "\n" + r.stdout[-2000:])
        self.assertTrue("--toolchain '13.0'" in r.stdout, r.stdout[-2000:])

    def test_new_divergence_fails(self):
        def change(d):
            c = next(c for c in d["cases"] if c["class"] == "pass")
            c["class"], c["message"], c["replay"] = "crash", "new trap", "./ptxcts run --case x"
        r = self.front(self.mutated(change))
        self.assertEqual(r.returncode, 1)
        self.assertTrue(f"known findings: {self.findings()}" in r.stdout, r.stdout[-2000:])

    def test_other_class_fails(self):
        def change(d):
            c = next(c for c in d["cases"] if c["class"] == "crash")
            c["class"] = "timeout"
        r = self.front(self.mutated(change))
        self.assertEqual(r.returncode, 1)
        self.assertTrue("covers this case as class crash, but it is now timeout" in r.stdout, r.stdout[-2000:])

    def test_expired_finding_fails(self):
        exp = os.path.join(self.tmp, "run.toml")
        text = open(os.path.join(ROOT, "results", "expectations", "run.toml")).read()
        open(exp, "w").write(text.replace("expires = 2027-02-28", "expires = 2020-01-01"))
        r = self.front(H100, PTXCTS_RUN_EXPECTATIONS=exp)
        self.assertEqual(r.returncode, 1)
        self.assertTrue("expired on 2020-01-01" in r.stdout, r.stdout[-2000:])

    def test_waiver_covers_and_expires(self):
        exp = os.path.join(self.tmp, "empty.toml")
        open(exp, "w").write("version = 1\n")
        for expires, code in (("2999-01-01", 0), ("2020-01-01", 1)):
            w = os.path.join(self.tmp, "waivers.toml")
            open(w, "w").write(f'version = 1\n\n[[waiver]]\ncase = "cp.async.bulk.tensor/*"\n'
                               f'classes = ["crash", "fail", "timeout"]\ndevice = ">=sm_90, <sm_100"\nreason = "r"\nlink = "l"\n'
                               f'expires = {expires}\n')
            r = self.front(H100, PTXCTS_RUN_EXPECTATIONS=exp, PTXCTS_WAIVERS=w)
            self.assertEqual(r.returncode, code, r.stdout[-2000:])
            if code == 0:
                self.assertTrue("waived by" in r.stdout, r.stdout[-2000:])
            else:
                self.assertTrue("expired: review it again" in r.stdout, r.stdout[-2000:])

    def test_malformed_findings_file_exit_3(self):
        exp = os.path.join(self.tmp, "bad.toml")
        open(exp, "w").write('version = 1\n\n[[finding]]\nid = "x"\ncases = ["a"]\nclass = "crashed"\nnote = "n"\n'
                             'reviewed = "r"\n')
        r = self.front(H100, PTXCTS_RUN_EXPECTATIONS=exp)
        self.assertEqual(r.returncode, 3)
        self.assertIn("bad.toml:6: finding[0].class: 'crashed' is not a class", r.stderr)

    def test_committed_files_parse(self):
        r = subprocess.run([sys.executable, "-m", "results", "known", "--check"], cwd=os.path.join(ROOT, "harness"),
                           capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "generator")))
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
