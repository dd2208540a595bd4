"""./ptxcts lower end to end on a small selection, and its bad inputs: each gets a clear message, exit 2 or 3,
and no results document. Tests that need the real nvdisasm skip when none is installed."""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from lower.tests import helpers

SELECT = ["--family", "cp.async.bulk.groups", "--target", "sm_90a", "--quiet"]


def lower(*args, env=None):
    e = dict(os.environ, PTXCTS_ROOT=helpers.ROOT,
             PYTHONPATH=os.pathsep.join([os.path.join(helpers.ROOT, "generator"), os.path.join(helpers.ROOT, "harness")]))
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "lower", *args], capture_output=True, text=True, env=e,
                          cwd=helpers.ROOT)


def fake_nvdisasm(folder, listing):
    """An executable that says it is nvdisasm 13.0.88 and prints listing for any cubin."""
    data = os.path.join(folder, "listing.txt")
    with open(data, "w") as f:
        f.write(listing)
    path = os.path.join(folder, "nvdisasm")
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Cuda compilation tools, release 13.0, V13.0.88';"
                f" exit 0; fi\ncat {data}\n")
    os.chmod(path, 0o755)
    return path


class BadInputs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-lower-test-")
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def assertNothingWritten(self):
        self.assertFalse(os.path.exists(os.path.join(self.out, "results.json")))

    def test_missing_nvdisasm_names_the_wheel(self):
        if shutil.which("nvdisasm") or os.path.exists("/usr/local/cuda/bin/nvdisasm"):
            self.skipTest("this machine has an nvdisasm of its own")
        empty = os.path.join(self.tmp, "cache")
        os.makedirs(empty)
        r = lower(*SELECT, "--out", self.out, env={"PTXCTS_TOOLCHAIN_CACHE": empty})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("nvidia-cuda-nvdisasm", r.stderr)
        self.assertIn("toolchains install --nvdisasm-only", r.stderr)
        self.assertNothingWritten()

    def test_nvdisasm_path_that_does_not_exist(self):
        r = lower(*SELECT, "--out", self.out, "--nvdisasm", os.path.join(self.tmp, "no", "nvdisasm"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--nvdisasm", r.stderr)

    def test_unparseable_nvdisasm_output_shows_the_line(self):
        text = helpers.fixture_text("sm_100a.sass.gz").splitlines()
        text.insert(30, "@@ a line nvdisasm never writes @@")
        nd = fake_nvdisasm(self.tmp, "\n".join(text))
        r = lower(*SELECT, "--out", self.out, "--nvdisasm", nd)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("@@ a line nvdisasm never writes @@", r.stderr)
        self.assertNothingWritten()

    def test_listing_without_line_info(self):
        text = "\n".join(l for l in helpers.fixture_text("sm_100a.sass.gz").splitlines() if "//##" not in l)
        r = lower(*SELECT, "--out", self.out, "--nvdisasm", fake_nvdisasm(self.tmp, text))
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("no line info", r.stderr)
        self.assertIn("-lineinfo", r.stderr)
        self.assertNothingWritten()

    def test_unknown_family_and_gate_without_run(self):
        r = lower("--family", "cp.nothing", "--quiet")
        self.assertEqual(r.returncode, 2)
        self.assertIn("cp.nothing", r.stderr)
        r = lower("--gate", os.path.join(self.tmp, "no-run"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no-run", r.stderr)
        for args, said in ((("--limit", "0"), "--limit 0"), (("--partial",), "--partial"),
                           (("--gate", self.tmp, "--partial", "--update-baseline"), "a sample")):
            with self.subTest(args=args):
                r = lower(*args)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(said, r.stderr)


class WithRealNvdisasm(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dis = helpers.installed_nvdisasm()
        if cls.dis is None:
            raise unittest.SkipTest("no nvdisasm installed (./ptxcts toolchains install --nvdisasm-only 13.5)")
        cls.tmp = tempfile.mkdtemp(prefix="ptxcts-lower-test-")
        cls.out = os.path.join(cls.tmp, "run")
        cls.proc = lower(*SELECT, "--out", cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_run_judges_every_form_and_records_both_releases(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        with open(os.path.join(self.out, "results.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["tier"], "lower")
        self.assertEqual(doc["toolchain"]["nvdisasm"], self.dis.version)
        self.assertTrue(doc["toolchain"]["ptxas"])
        # a form newer than the toolchain (cp.async.bulk.wait_group.sync_restrict::proxy::async is PTX ISA 9.5; the
        # default toolchain may know 9.0 at most) is not_supported with the toolchain's reason; every other one passes
        newer = [c for c in doc["cases"] if c["class"] == "not_supported"]
        self.assertTrue(all("does not know PTX ISA" in c["message"] for c in newer),
                        [c["message"] for c in newer])
        lowered = [c for c in doc["cases"] if c["class"] != "not_supported"]
        self.assertTrue(lowered)
        self.assertEqual({c["class"] for c in lowered}, {"pass"})
        self.assertTrue(all(c["details"]["located"] for c in lowered))
        if not self.dis.matches:
            self.assertIn("release mismatch", self.proc.stderr)
        self.assertIn("fence.proxy.async", self.proc.stderr)        # the rules' coverage table

    def test_gate_passes_on_its_own_baseline_and_fails_on_a_changed_key(self):
        base = os.path.join(self.tmp, "base.json.gz")
        r = lower("--gate", self.out, "--baseline", base, "--update-baseline")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = lower("--gate", self.out, "--baseline", base)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with gzip.open(base, "rt") as f:
            text = f.read()
        changed = text.replace("CCTL.IVALL", "CCTL.IV", 1)
        self.assertNotEqual(changed, text)
        bad = os.path.join(self.tmp, "changed.json")
        with open(bad, "w") as f:
            f.write(changed)
        r = lower("--gate", self.out, "--baseline", bad)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("CHANGED", r.stdout)
        with open(bad, "w") as f:
            f.write('{"schema": "ptxcts-lowering-baseline", "version": 1, "toolchain": "13.0", "keys": {"x": 1}}')
        r = lower("--gate", self.out, "--baseline", bad)
        self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
        self.assertIn("keys.x", r.stderr)
        # read by the one JSON reader: a version of 5000 digits, a key twice, NaN are the file's faults (exit 3),
        # named with its line, never a traceback
        for text, said in (('{"schema": "ptxcts-lowering-baseline",\n "version": ' + "9" * 5000 + "}", ":2: version"),
                           ('{"version": 1, "version": 1}', "duplicate key"),
                           ('{"version": NaN}', "not a finite number")):
            with self.subTest(said=said):
                with open(bad, "w") as f:
                    f.write(text)
                r = lower("--gate", self.out, "--baseline", bad)
                self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
                self.assertIn(bad, r.stderr)
                self.assertIn(said, r.stderr)

    def test_explain_refuses_a_cubin_without_line_info(self):
        ptx = os.path.join(self.tmp, "m.ptx")
        with open(ptx, "w") as f:
            f.write(helpers.fixture_text("sm_100a.ptx.gz"))
        from framework import toolchains
        tc = toolchains.resolve(None)
        cubin = os.path.join(self.tmp, "m.cubin")
        subprocess.run([tc.ptxas, "-arch=sm_100a", ptx, "-o", cubin], check=True)
        r = lower("--explain", cubin, ptx)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("ptxas -lineinfo", r.stderr)
        subprocess.run([tc.ptxas, "-arch=sm_100a", "-lineinfo", ptx, "-o", cubin], check=True)
        r = lower("--explain", cubin, ptx)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("UTMALDG.3D.IM2COL.MULTICAST.2CTA", r.stdout)
        self.assertEqual(r.stdout.count("\tpass\t"), 9, r.stdout)


if __name__ == "__main__":
    unittest.main()
