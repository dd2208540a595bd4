"""Lowering keys between runs: which forms changed their key, per target (./ptxcts diff, lower.matrix)."""
import gzip
import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from framework.documents import lowering as keys

from lower import matrix
from framework import documents
from framework import manifest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def case(form, target, key, frame="loop(ELECT)", cls="pass"):
    c = {"id": f"{form}@{target}.ptx90", "family": form.split("/")[0], "form": form, "target": target,
         "ptx": "9.0", "load_path": "sass", "class": cls, "details": {"key": key, "frame": frame}}
    if cls == "fail":
        c["replay"] = f"./ptxcts lower --form '{form}' --target {target}"
    return c


def doc(name, cases):
    return {"schema": "ptxcts-results", "version": 2, "run_id": f"2026-11-25T00-00-00.000Z-lower-{name}-abcdef",
            "tier": "lower", "started": "2026-11-25T00:00:00+00:00", "finished": "2026-11-25T00:00:01+00:00",
            "seed": None, "shard": {"index": 0, "count": 1}, "host": {"hostname": "h", "cpus": 2},
            "toolchain": {"name": name, "ptxas": name + ".1", "nvdisasm": "13.5.37"}, "device": None,
            "cases": cases}


A = doc("13.0", [case("cp.async.bulk.tensor/3d.x", "sm_100a", "UTMALDG.3D [UR], [UR]"),
                 case("cp.async.bulk.tensor/2d.x", "sm_100a", "UTMALDG.2D [UR], [UR]"),
                 case("cp.async.bulk.tensor/2d.x", "sm_90a", "UTMALDG.2D [UR], [UR]")])
B = doc("13.5", [case("cp.async.bulk.tensor/3d.x", "sm_100a", "UTMALDG.2D [UR], [UR]", cls="fail"),
                 case("cp.async.bulk.tensor/2d.x", "sm_100a", "UTMALDG.2D [UR], [UR]", frame="loop(VOTEU.ANY)"),
                 case("cp.async.bulk.tensor/2d.x", "sm_90a", "UTMALDG.2D [UR], [UR]")])


class GateOfASample(unittest.TestCase):
    """keys.gate with partial: a sample (lower --limit) judges the keys it lowered; the baseline's other keys are not
    run, where a whole run of the same family and target would have them missing."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.base = os.path.join(self.tmp, "base.json.gz")
        whole = os.path.join(self.tmp, "whole.json")
        documents.atomic_write(whole, json.dumps(A))
        self.assertEqual(keys.gate(whole, self.base, True, self.tmp, out=io.StringIO()), 0)

    def gate(self, cases, partial):
        path = os.path.join(self.tmp, "run.json")
        documents.atomic_write(path, json.dumps(doc("13.0", cases)))
        out = io.StringIO()
        return keys.gate(path, self.base, False, self.tmp, out=out, partial=partial), out.getvalue()

    def test_a_sample_passes_partial_and_fails_whole(self):
        sample = A["cases"][1:2]            # 2d.x at sm_100a; 3d.x at sm_100a is in the baseline, not the sample
        rc, text = self.gate(sample, partial=False)
        self.assertEqual(rc, 1, text)
        self.assertIn("MISSING cp.async.bulk.tensor/3d.x@sm_100a", text)
        rc, text = self.gate(sample, partial=True)
        self.assertEqual(rc, 0, text)
        self.assertIn("2 not run", text)

    def test_ptxcts_gate_hands_partial_to_the_lowering_gate(self):
        path = os.path.join(self.tmp, "run.json")
        documents.atomic_write(path, json.dumps(doc("13.0", A["cases"][1:2])))
        gate = [os.path.join(ROOT, "ptxcts"), "gate", path, "--baseline", self.base]
        r = subprocess.run(gate, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        r = subprocess.run(gate + ["--partial"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("2 not run", r.stdout)
        r = subprocess.run(gate + ["--partial", "--update"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("whole run", r.stderr)

    def test_a_changed_key_in_the_sample_still_fails(self):
        rc, text = self.gate([case("cp.async.bulk.tensor/2d.x", "sm_100a", "UTMALDG.3D [UR], [UR]")], partial=True)
        self.assertEqual(rc, 1, text)
        self.assertIn("CHANGED cp.async.bulk.tensor/2d.x@sm_100a", text)


class Sample(unittest.TestCase):
    def test_spread_evenly_and_deterministic(self):
        items = list(range(100))
        self.assertEqual(manifest.spread(items, 4), [0, 25, 50, 75])
        self.assertEqual(manifest.spread(items, 4), manifest.spread(items, 4))
        self.assertIs(manifest.spread(items, None), items)
        self.assertIs(manifest.spread(items, 100), items)
        self.assertEqual(len(manifest.spread(items, 33)), 33)


class Compare(unittest.TestCase):
    def test_changed_key_frame_only_and_same_per_target(self):
        cmp = keys.compare(A, B)
        self.assertEqual([c["form"] for c in cmp["sm_100a"]["changed"]], ["cp.async.bulk.tensor/3d.x"])
        self.assertEqual(cmp["sm_100a"]["frame_only"], 1)
        self.assertEqual(cmp["sm_90a"]["same"], 1)
        self.assertEqual(list(cmp), ["sm_90a", "sm_100a"])

    def test_matrix_writes_summary_and_changes(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        for name, d in (("a", B), ("b", A)):    # given out of release order
            documents.write_run(os.path.join(tmp, name), d)
        out = os.path.join(tmp, "m")
        self.assertEqual(matrix.main([os.path.join(tmp, "b"), os.path.join(tmp, "a"), "--out", out]), 0)
        with open(os.path.join(out, "summary.md")) as f:
            text = f.read()
        self.assertIn("## 13.0 -> 13.5", text)
        self.assertIn("| sm_100a | 0 | 1 | 1 | 0 | 0 |", text)
        with gzip.open(os.path.join(out, "changes.tsv.gz"), "rt") as f:
            rows = f.read().splitlines()
        self.assertEqual(len(rows), 2)
        self.assertIn("UTMALDG.3D", rows[1])
        self.assertIn("fail\tUTMALDG.2D", rows[1])


if __name__ == "__main__":
    unittest.main()
