"""The tier end to end on the fixture manifest (tests/fixtures/manifest, hand-written; each case's outcome is
stated by the fixture's own comments): classes, results.json, junit.xml, exit status, bad findings file."""
import json
import os
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(HERE, "fixtures", "manifest")
FINDINGS = os.path.join(HERE, "fixtures", "ptxas.toml")

# What each fixture case must come out as, and why (see fixtures/manifest/kernels/*.ptx):
EXPECTED = {
    "cp.async/ca.shared.global/cp_size_4@sm_80.ptx70": "pass",                 # valid, accepted
    "cp.async/ca.shared.global/cp_size_4@sm_90.ptx86": "pass",
    "cp.async/ca.shared.global/cp_size_4@sm_90.ptx99": "not_supported",        # ptxas 13.0 knows PTX <= 9.0
    "cp.async/ca.shared.global/cp_size_4@sm_99.ptx86": "not_supported",        # no such -arch
    "cp.async/cg.shared.global/cp_size_4@sm_80.ptx70": "pass",                 # invalid, rejected on its line
    "cp.async/cg.shared.global/cp_size_4@sm_90.ptx86": "pass",
    "cp.async/ca.shared_cta.global/cp_size_8@sm_80.ptx70": "spec_divergence",  # accepted; listed in the findings
    "cp.async/ca.shared_cta.global/cp_size_8@sm_80.ptx78": "pass",
    "cp.async/cg.shared.global/cp_size_8@sm_80.ptx70": "fail",                 # frame line rejected: harness error
    "cp.async/ca.shared.global/cp_size_16/L2_cache_hint@sm_80.ptx78": "compile_error",  # 'valid' but malformed
    "cp.async.bulk/shared_cta.global/mbarrier_complete_tx_bytes@sm_80.ptx86": "pass",
    "cp.async.bulk/shared_cta.global/mbarrier_complete_tx_bytes@sm_90.ptx70": "not_supported",  # .target refused
    "cp.async/ca.shared.global/cp_size_4@sm_90.ptx77": "pass",   # only a target-line rule: the refusal is its pass
    "cp.async.bulk/shared_cta.global/mbarrier_complete_tx_bytes@sm_90.ptx86": "pass",
    "cp.async.bulk.tensor/6d.shared_cluster.global.tile@sm_90.ptx86": "pass",  # fatal syntax error = rejected
}


def load(path):
    with open(path) as f:
        return json.load(f)


def run(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HARNESS, os.path.join(os.path.dirname(HARNESS), "generator")]))
    return subprocess.run([sys.executable, "-m", "compile", "--manifest", FIXTURE, "--no-generator", "--quiet",
                           *args], capture_output=True, text=True, env=env)


def _compiling(sid):
    """Whether a compiler call on the tier's modules runs in session `sid`."""
    ps = subprocess.run(["ps", "-eo", "sid=,args="], capture_output=True, text=True).stdout
    return any(line.split(None, 1)[0] == str(sid) and "ptxcts-compile-" in line for line in ps.splitlines())


class CliTest(unittest.TestCase):
    def test_fixture_run(self):
        with tempfile.TemporaryDirectory() as out:
            r = run("--expectations", FINDINGS, "--out", out, "--module-size", "3")
            self.assertEqual(r.returncode, 1, r.stderr)   # one fail and one compile_error
            doc = load(os.path.join(out, "results.json"))
            # the results layer's own reader (harness/results, ARCHITECTURE.md section 3) must accept it
            from framework.documents import schema
            schema.load(out)
            self.assertEqual((doc["schema"], doc["version"], doc["tier"], doc["device"]),
                             ("ptxcts-results", schema.VERSION, "compile", None))
            got = {c["id"]: c["class"] for c in doc["cases"]}
            self.assertEqual(got, EXPECTED)
            for c in doc["cases"]:
                self.assertEqual(c["load_path"], "ptxas")
                self.assertIn(f"--case '{c['id']}'", c["replay"])
            frame = next(c for c in doc["cases"] if c["id"] == "cp.async/cg.shared.global/cp_size_8@sm_80.ptx70")
            self.assertTrue(frame["details"]["harness_error"])
            self.assertIn("mov.u32 %r9, 1;", frame["message"])
            junit = ET.parse(os.path.join(out, "junit.xml")).getroot()
            self.assertEqual(junit.get("tests"), str(len(EXPECTED)))
            self.assertEqual(junit.get("failures"), "2")
            self.assertIn("spec_divergence", r.stderr)   # the summary table has the column
            self.assertIn("cp.async.bulk", r.stderr)

    def test_without_the_finding_the_case_fails(self):
        with tempfile.TemporaryDirectory() as out:
            empty = os.path.join(out, "none.toml")
            with open(empty, "w") as f:
                f.write("# no findings\n")
            r = run("--expectations", empty, "--out", out, "--case", "cp.async/ca.shared_cta.global/*")
            doc = load(os.path.join(out, "results.json"))
            got = {c["id"]: c["class"] for c in doc["cases"]}
            self.assertEqual(got["cp.async/ca.shared_cta.global/cp_size_8@sm_80.ptx70"], "fail")
            self.assertEqual(r.returncode, 1)

    def test_only_passing_cases_exit_zero(self):
        with tempfile.TemporaryDirectory() as out:
            keep = os.path.join(out, "modules")
            r = run("--expectations", FINDINGS, "--out", out, "--family", "cp.async.bulk", "--keep-modules", keep)
            self.assertEqual(r.returncode, 0, r.stderr)
            logs = [f for f in os.listdir(keep) if f.endswith(".log")]
            self.assertTrue(logs and all(os.path.exists(os.path.join(keep, f[:-4] + ".ptx")) for f in logs))
            with open(os.path.join(keep, sorted(logs)[0])) as f:
                self.assertIn("-arch=sm_", f.read())

    def test_resume_refuses_another_selection(self):
        """--resume finishes the interrupted selection exactly: more cases, fewer cases or other compilers would
        put two selections in one document."""
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run")
            r = run("--expectations", FINDINGS, "--out", out, "--family", "cp.async.bulk")
            self.assertIn(r.returncode, (0, 1), r.stderr)
            path = os.path.join(out, "results.json")
            doc = load(path)
            doc["partial"] = {"reason": "interrupted by SIGTERM", "done": 1, "total": len(doc["cases"])}
            for c in doc["cases"][1:]:
                c.update({"class": "skipped", "message": "interrupted"})
            with open(path, "w") as f:
                json.dump(doc, f)
            with open(path) as f:
                before = f.read()
            for args, said in ((["--family", "cp.async.bulk", "--family", "cp.async"], "that run did not"),
                               (["--family", "cp.async.bulk", "--case", "*@sm_90.*"], "this selection does not"),
                               (["--family", "cp.async.bulk", "--verdicts", "ptxas,nvjitlink"], "--verdicts")):
                r = run("--expectations", FINDINGS, "--resume", out, *args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(said, r.stderr)
                with open(path) as f:
                    self.assertEqual(f.read(), before, "a refused resume changed the document")

    def test_stale_finding_is_reported(self):
        with tempfile.TemporaryDirectory() as out:
            r = run("--expectations", FINDINGS, "--out", os.path.join(out, "a"), "--case",
                    "cp.async/ca.shared_cta.global/*@*.ptx78")
            self.assertNotIn("STALE", r.stderr)
            path = os.path.join(out, "f.toml")
            with open(FINDINGS) as f, open(path, "w") as g:
                g.write(f.read().replace("@sm_80.ptx70", "@sm_80.ptx78"))
            r = run("--expectations", path, "--out", os.path.join(out, "b"), "--case",
                    "cp.async/ca.shared_cta.global/*@*.ptx78")
            self.assertIn("STALE finding cp-async-shared-cta-before-ptx78", r.stderr)

    def test_interrupt_keeps_what_was_judged_and_resume_finishes(self):
        """Ctrl-C: the workers are stopped, the judged cases are written with the rest `skipped` ("interrupted")
        and the document marked partial, exit 130; --resume judges only what is left, under the same run ID."""
        import signal
        import time
        from framework import toolchains
        real = toolchains.resolve("13.0").ptxas
        with tempfile.TemporaryDirectory() as tmp:
            slow = os.path.join(tmp, "ptxas")
            with open(slow, "w") as f:   # slow only on the tier's modules, not on the toolchain probe's
                f.write(f"#!/bin/sh\ncase \"$*\" in *ptxcts-compile-*) sleep 1;; esac\nexec {real} \"$@\"\n")
            os.chmod(slow, 0o755)
            out = os.path.join(tmp, "run")
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([HARNESS, os.path.join(os.path.dirname(HARNESS),
                                                                                      "generator")]),
                       PTXCTS_TOOLCHAIN_CACHE=os.path.join(tmp, "cache"))
            argv = [sys.executable, "-m", "compile", "--manifest", FIXTURE, "--no-generator", "--quiet",
                    "--expectations", FINDINGS, "--toolchain", slow, "--module-size", "1", "-j", "1"]
            p = subprocess.Popen(argv + ["--out", out], env=env, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True)
            # the probe of the new toolchain (its length depends on the machine's load), then a few one-second
            # modules: the signal comes once the slow compiler has run on the tier's modules for a while
            t0 = time.monotonic()
            while not _compiling(p.pid) and p.poll() is None and time.monotonic() - t0 < 300:
                time.sleep(0.1)
            time.sleep(3)
            os.killpg(p.pid, signal.SIGINT)   # as a terminal's Ctrl-C: the whole process group
            err = p.communicate(timeout=60)[1]
            self.assertEqual(p.returncode, 130, err)
            self.assertNotIn("Traceback", err)
            doc = load(os.path.join(out, "results.json"))
            self.assertIn("partial", doc)
            skipped = [c for c in doc["cases"] if c["class"] == "skipped"]
            self.assertTrue(skipped and all(c["message"] == "interrupted" for c in skipped))
            self.assertEqual(doc["partial"]["done"], len(doc["cases"]) - len(skipped))
            self.assertEqual(len(doc["cases"]), len(EXPECTED))
            r = subprocess.run(argv + ["--resume", out], env=env, capture_output=True, text=True, timeout=120)
            self.assertEqual(r.returncode, 1, r.stderr)    # the fixture's one fail and one compile_error
            again = load(os.path.join(out, "results.json"))
            self.assertNotIn("partial", again)
            self.assertEqual(again["run_id"], doc["run_id"])
            self.assertEqual({c["id"]: c["class"] for c in again["cases"]}, EXPECTED)

    def test_findings_file_with_a_syntax_error_is_refused(self):
        with tempfile.TemporaryDirectory() as out:
            bad = os.path.join(out, "ptxas.toml")
            with open(FINDINGS) as f, open(bad, "w") as g:
                text = f.read().replace('verdict = "accepts"', 'verdict = accepts')
                g.write(text)
            line = text.splitlines().index("verdict = accepts") + 1
            r = run("--expectations", bad, "--out", out)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn(f"{bad}:{line}:", r.stderr)
            self.assertFalse(os.path.exists(os.path.join(out, "results.json")), "no run on a broken findings file")

    def test_bad_filter_is_an_error_naming_it(self):
        r = run("--family", "nope", "--out", tempfile.gettempdir())
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--family nope: unknown", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_usage_errors_exit_2_and_name_the_input(self):
        for args, fragment in ((["--jobs", "0"], "--jobs 0"), (["--ptx", "9"], "--ptx 9"),
                               (["--target", "gfx90"], "--target gfx90"), (["--verdicts", "nvcc"], "--verdicts nvcc"),
                               (["--limit", "-3"], "--limit -3"), (["--toolchain", "11.7"], "unknown toolchain '11.7'"),
                               (["--toolchain", "/bin/true"], "not a working ptxas"),
                               (["--expectations", "/nonexistent/ptxas.toml"], "/nonexistent/ptxas.toml"),
                               (["--case", "no/such/*"], "select no case")):
            with self.subTest(args=args), tempfile.TemporaryDirectory() as out:
                r = run(*args, "--out", out)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(fragment, r.stderr)
                self.assertNotIn("Traceback", r.stderr)
                self.assertFalse(os.path.exists(os.path.join(out, "results.json")), "nothing written on a usage error")


if __name__ == "__main__":
    unittest.main()
