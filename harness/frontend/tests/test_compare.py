"""frontend.compare: a front-end's run on silicon against the hand-written classes (a baseline or a run).

The front-end run is made from a committed hand-written run of the H100 (results/2026-11-28-sm_90-h100-run): named
as llvm-22's, a few kernels marked not written, one case's class changed. The comparison must find exactly that
case, count the unwritten ones apart, and agree on every other case."""
import gzip
import io
import json
import os
import shutil
import tempfile
import unittest

from frontend import compare
from frontend.errors import FrontendError

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
HAND = os.path.join(ROOT, "results", "2026-11-28-sm_90-h100-run")
BASELINE = os.path.join(ROOT, "results", "baselines", "run", "sm_90", "13.0.json.gz")


def _hand_doc():
    with gzip.open(os.path.join(HAND, "results.json.gz"), "rt") as f:
        return json.load(f)


def _write_run(folder, doc):
    os.makedirs(folder)
    with open(os.path.join(folder, "results.json"), "w") as f:
        json.dump(doc, f)
    return folder


class Compare(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-compare-")
        doc = _hand_doc()
        doc["run_id"] = "2026-11-25T00-00-00.000Z-sm_90-run-1"
        doc["toolchain"]["name"] = "llvm-22"
        cases = [c for c in doc["cases"] if c["family"] == "cp.async.bulk"]
        self.unwritten = [c for c in cases if c["class"] == "pass"][:3]
        for c in self.unwritten:
            c["class"] = "not_supported"
            c["message"] = "llvm-22 did not write this kernel for sm_90: unexpressible: no intrinsic spells it"
            c.pop("replay", None)
        self.changed = next(c for c in cases if c["class"] == "pass" and c not in self.unwritten)
        self.changed["class"] = "fail"
        self.changed["message"] = "3 byte(s) differ from the model"
        self.changed["replay"] = f"./ptxcts run --case '{self.changed['id']}' --frontend llvm-22"
        doc["cases"] = cases
        self.fe = _write_run(os.path.join(self.tmp, "fe"), doc)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def _run(self, *args):
        out = io.StringIO()
        rc = compare.main([self.fe, *args, "--json", os.path.join(self.tmp, "c.json")], out)
        with open(os.path.join(self.tmp, "c.json")) as f:
            return rc, out.getvalue(), json.load(f)

    def test_finds_the_changed_case_against_the_baseline(self):
        rc, text, doc = self._run()
        self.assertEqual(rc, 1)
        self.assertEqual([d["id"] for d in doc["differences"]], [self.changed["id"]])
        self.assertEqual(doc["differences"][0]["hand_written"], ["pass"])
        self.assertIn("replay: ./ptxcts run --case", text)
        fam = doc["families"]["cp.async.bulk"]
        self.assertEqual(fam["not_written"], 3)
        self.assertEqual(fam["differ"], 1)
        self.assertEqual(fam["same"], fam["cases"] - 4)
        self.assertEqual(doc["paired_toolchain"], "13.0")

    def test_against_a_hand_written_run(self):
        rc, _, doc = self._run("--against", HAND)
        self.assertEqual(rc, 1)
        self.assertEqual(len(doc["differences"]), 1)
        self.assertTrue(doc["reference"].startswith("run "))
        # the run's results document named as a file is a run too, not a baseline
        rc, _, doc = self._run("--against", os.path.join(HAND, "results.json.gz"))
        self.assertEqual(rc, 1)
        self.assertEqual(len(doc["differences"]), 1)
        self.assertTrue(doc["reference"].startswith("run "))

    def test_a_flipping_finding_agrees_with_its_class_set(self):
        doc = _hand_doc()
        doc["toolchain"]["name"] = "llvm-22"
        doc["run_id"] = "2026-11-25T00-00-03.000Z-sm_90-run-4"
        # the interleaved NaN-fill load whose never-completing phase the baseline records as spec_divergence|timeout
        flips = [c for c in doc["cases"] if c["id"].endswith("#explored.0xac96d8382d") and c["load_path"] == "cubin"]
        self.assertTrue(flips, "the committed run lost its flipping interleaved load")
        other = {"spec_divergence": "timeout", "timeout": "spec_divergence"}
        for c in flips:
            c["class"] = other[c["class"]]
        doc["cases"] = flips
        fe = _write_run(os.path.join(self.tmp, "flip"), doc)
        self.assertEqual(compare.main([fe, "--against", HAND], io.StringIO()), 0)

    def test_identical_classes_pass(self):
        doc = _hand_doc()
        doc["toolchain"]["name"] = "llvm-22"
        doc["run_id"] = "2026-11-25T00-00-01.000Z-sm_90-run-2"
        doc["cases"] = [c for c in doc["cases"] if c["family"] == "cp.async"]
        same = _write_run(os.path.join(self.tmp, "same"), doc)
        self.assertEqual(compare.main([same], io.StringIO()), 0)

    def test_nothing_compared_is_not_a_pass(self):
        doc = _hand_doc()
        doc["toolchain"]["name"] = "llvm-22"
        doc["run_id"] = "2026-11-25T00-00-02.000Z-sm_90-run-3"
        doc["cases"] = [dict(c, **{"class": "not_supported", "message": "llvm-22 did not write this kernel for sm_90: x"})
                        for c in doc["cases"] if c["family"] == "cp.async.bulk.prefetch"]
        for c in doc["cases"]:
            c.pop("replay", None)
        none = _write_run(os.path.join(self.tmp, "none"), doc)
        with self.assertRaises(FrontendError) as e:
            compare.main([none], io.StringIO())
        self.assertEqual(e.exception.code, 1)

    def test_a_missing_baseline_is_a_usage_error(self):
        with self.assertRaises(FrontendError) as e:
            compare.main([self.fe, "--against", os.path.join(self.tmp, "nope.json.gz")], io.StringIO())
        self.assertIn(e.exception.code, (2, 3))


if __name__ == "__main__":
    unittest.main()
