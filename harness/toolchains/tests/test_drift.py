"""CTest toolchains.drift: `./ptxcts toolchains drift` on a small candidate set.

With the installed toolkit's ptxas (CUDA 13.0) on cp.async.bulk.prefetch at sm_90: every spelling ptxas accepts is
one the model knows (or a token ptxas ignores everywhere), exit 0. The same run judged as if the model lacked
`.L2::cache_hint` (--forget) must report the hinted spellings as unknown and exit 1: the detector's failing case.
A path that does not exist, or a file that is not a ptxas, is a usage error (exit 2) naming it.
"""
import json
import os
import subprocess
import tempfile
import unittest

from framework import paths
from framework.toolchains import system_ptxas

ROOT = paths.root()
PTXCTS = os.path.join(ROOT, "ptxcts")
SMALL = ["--family", "cp.async.bulk.prefetch", "--target", "sm_90"]


def drift(*args):
    return subprocess.run([PTXCTS, "toolchains", "drift", *args], capture_output=True, text=True, timeout=600)


class UsageErrors(unittest.TestCase):
    def test_missing_path_is_a_usage_error_naming_it(self):
        r = drift("/nonexistent/bin/ptxas")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("/nonexistent/bin/ptxas", r.stderr)

    def test_a_file_that_is_not_ptxas_is_a_usage_error_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "ptxas")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho hello\n")
            os.chmod(fake, 0o755)
            r = drift(fake)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(fake, r.stderr)

    def test_unknown_family_is_a_usage_error(self):
        r = drift("13.0", "--family", "cp.async.nonsense")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cp.async.nonsense", r.stderr)


@unittest.skipUnless(system_ptxas(), "no installed CUDA toolkit ptxas (toolchain 13.0)")
class SmallSet(unittest.TestCase):
    def test_model_knows_what_13_0_accepts_on_the_prefetch(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "drift.json")
            r = drift(system_ptxas(), *SMALL, "--json", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("unknown to the model: none", r.stdout)
            with open(out) as f:
                report = json.load(f)
            verdicts = {s["verdict"] for s in report["spellings"]}
            self.assertIn("modelled", verdicts, "the seeds themselves must be accepted and known")
            self.assertNotIn("unknown", verdicts)

    def test_forgotten_qualifier_is_reported_unknown(self):
        r = drift(system_ptxas(), *SMALL, "--forget", ".L2::cache_hint")
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("unknown to the model and not reviewed", r.stdout)
        self.assertIn("cp.async.bulk.prefetch.L2.global.L2::cache_hint", r.stdout)


if __name__ == "__main__":
    unittest.main()
