"""CTest toolchains.drift_refused: `./ptxcts toolchains drift NAME --refused`, the other way (drift/refused.py).

With the installed toolkit's ptxas (CUDA 13.0) on cp.async.bulk.prefetch and cp.async.bulk at sm_90 and sm_90a:
every spelling the model calls valid there is assembled and accepted, a table per family, target and PTX version,
exit 0. A test double of the vocabulary with one valid combination spelled as ptxas refuses it must come back
`refused` with ptxas's message and exit 1: the detector's failing case. Bad input: --refused with the other way's
options, a ptxas that is not one (exit 2 naming it)."""
import dataclasses
import io
import json
import os
import tempfile
import unittest
from unittest import mock

from framework.toolchains import resolve, system_ptxas
from ptxcts_gen import isa
from ptxcts_gen.model import vocabulary_forms
from toolchains.drift import refused
from toolchains.drift.run import targets_of
from toolchains.tests.drift_cli import drift, not_a_ptxas

SMALL = ["--family", "cp.async.bulk.prefetch", "--family", "cp.async.bulk", "--target", "sm_90", "--target", "sm_90a"]


class UsageErrors(unittest.TestCase):
    def test_the_other_ways_options_are_refused(self):
        r = drift("13.0", "--refused", "--forget", ".L2::cache_hint")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--refused", r.stderr)

    def test_a_file_that_is_not_ptxas_is_a_usage_error_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            fake = not_a_ptxas(d)
            r = drift(fake, "--refused")
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn(fake, r.stderr)


@unittest.skipUnless(system_ptxas(), "no installed CUDA toolkit ptxas (toolchain 13.0)")
class ModelValidSpellings(unittest.TestCase):
    def test_13_0_accepts_every_valid_spelling_of_the_small_set(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "refused.json")
            r = drift(system_ptxas(), "--refused", *SMALL, "--json", out)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("valid in the model, refused by ptxas: none", r.stdout)
            with open(out) as f:
                report = json.load(f)
        cells = {(x["family"], x["target"], x["ptx"]) for x in report["rows"]}
        # the newest version 13.0 takes and each spelling's own minimum, on both targets
        self.assertIn(("cp.async.bulk", "sm_90", "8.0"), cells)
        self.assertIn(("cp.async.bulk", "sm_90", "9.0"), cells)
        self.assertIn(("cp.async.bulk", "sm_90a", "8.6"), cells)   # .shared::cta destination: 8.6
        self.assertEqual({x["verdict"] for x in report["rows"]}, {"accepted"})
        # .relaxed.scope is the model's from 9.3 (sm_90a): not at 13.0's newest version 9.0
        self.assertFalse([x for x in report["rows"] if ".relaxed." in x["spelling"]])

    def test_a_valid_spelling_ptxas_refuses_is_reported(self):
        real = next(m for m in isa.families() if m.FAMILY == "cp.async.bulk.prefetch")

        def vocabulary(mod):
            forms = vocabulary_forms(mod)
            if mod is real:   # the double: the model's valid hinted form spelled with a qualifier ptxas lacks
                f = next(f for f in forms if f.valid and f.quals.get("cache_hint"))
                forms = forms + [dataclasses.replace(f, instr=f.instr.replace(
                    "L2::cache_hint", "L2::cache_hint.ptxcts_not_a_qualifier"))]
            return forms
        tc = resolve(system_ptxas())
        with mock.patch.object(refused, "vocabulary_forms", vocabulary):
            report = refused.run_refused(tc, ["cp.async.bulk.prefetch"], ["sm_90"], jobs=1)
        bad = [x for x in report["rows"] if x["verdict"] == "refused"]
        self.assertTrue(bad)
        self.assertTrue(all("ptxcts_not_a_qualifier" in x["spelling"] for x in bad), bad)
        self.assertTrue(all(x["error"] for x in bad))
        out = io.StringIO()
        self.assertEqual(refused.summary_refused(report, out), 1)
        self.assertIn("refused by 13.0", out.getvalue())
        self.assertIn("ptxcts_not_a_qualifier", out.getvalue())

    def test_the_plan_follows_the_model(self):
        tgts = [t for t in targets_of(resolve(system_ptxas()), ["sm_90", "sm_90a"])]
        work = refused.plan(tgts, ["cp.async.bulk"])
        lines = {(k[0], k[2], s) for k, v in work.items() for _, s in v}
        cp_mask = [x for x in lines if ".cp_mask" in x[2]]
        self.assertEqual(cp_mask, [])   # .cp_mask: sm_100+, never planned on sm_90/sm_90a


if __name__ == "__main__":
    unittest.main()
