"""The committed baselines and waiver file are well-formed (a malformed one would break every gate run)."""
import glob
import os
import unittest

from results import baseline, waivers

from .common import REPO


class Committed(unittest.TestCase):
    def test_baselines(self):
        root = os.path.join(REPO, "results", "baselines")
        self.assertFalse(glob.glob(os.path.join(root, "**", "*.json"), recursive=True),
                         "committed baselines are gzip-compressed (<toolchain>.json.gz)")
        paths = sorted(glob.glob(os.path.join(root, "**", "*.json.gz"), recursive=True))
        self.assertTrue(paths, "the committed baselines are under results/baselines/<tier>/[<sm>/]<toolchain>.json.gz")
        for path in paths:
            with self.subTest(path):
                header, cases = baseline.load(path)
                self.assertEqual(header["version"], baseline.VERSION, "committed baselines are of the current version")
                self.assertEqual(os.path.relpath(path, root),
                                 baseline.relative_path(header["tier"], header["toolchain"], header["sm"]),
                                 "a baseline lives where gate looks for it: <tier>/[<sm>/]<toolchain>.json.gz")
                self.assertTrue(cases, "an empty baseline gates nothing")

    def test_toolchain_baselines(self):
        """One compile baseline per toolchain of the matrix (ptxas and nvJitLink verdicts of every case of the
        manifest), the H100 run tier's, and the H100 driver JIT's."""
        import gzip
        root = os.path.join(REPO, "results", "baselines")
        with open(os.path.join(REPO, "generated", "manifest", "targets.json"), encoding="utf-8") as f:
            import json
            counts = json.load(f)["counts"]["total"]
        total = counts["cases_accept"] + counts["cases_reject"]
        for name in ("12.4", "12.8", "12.9", "13.0", "13.2", "13.5"):
            with self.subTest(toolchain=name):
                header, cases = baseline.load(os.path.join(root, "compile", f"{name}.json.gz"))
                self.assertEqual((header["tier"], header["toolchain"], header["sm"]), ("compile", name, None))
                self.assertEqual(sorted({k[3] for k in cases}), ["nvjitlink", "ptxas"])
                self.assertEqual(len(cases), 2 * total, "every case of the manifest, both compilers")
        header, cases = baseline.load(os.path.join(root, "run", "sm_90", "13.0.json.gz"))
        self.assertEqual((header["tier"], header["sm"], header["source"]["device"]),
                         ("run", "sm_90", "NVIDIA H100 80GB HBM3"))
        self.assertEqual(len(cases), 14436)
        header, cases = baseline.load(os.path.join(root, "compile", "sm_90", "13.0.json.gz"))
        self.assertEqual(({k[3] for k in cases}, header["sm"]), ({"driver"}, "sm_90"))
        with gzip.open(os.path.join(root, "compile", "13.0.json.gz"), "rt", encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.assertGreater(len(lines), 2 * total, "one case per line")
