"""The committed baselines and waiver file are well-formed (a malformed one would break every gate run)."""
import glob
import os
import unittest

from results import baseline, waivers

from .common import REPO


class Committed(unittest.TestCase):
    def test_baselines(self):
        root = os.path.join(REPO, "results", "baselines")
        paths = sorted(glob.glob(os.path.join(root, "**", "*.json"), recursive=True))
        self.assertTrue(paths, "the committed baselines are under results/baselines/<tier>/[<sm>/]<toolchain>.json")
        for path in paths:
            with self.subTest(path):
                header, cases = baseline.load(path)
                self.assertEqual(header["version"], baseline.VERSION, "committed baselines are of the current version")
                self.assertEqual(os.path.relpath(path, root),
                                 baseline.relative_path(header["tier"], header["toolchain"], header["sm"]),
                                 "a baseline lives where gate looks for it: <tier>/[<sm>/]<toolchain>.json")
                self.assertTrue(cases, "an empty baseline gates nothing")

    def test_migrated_baselines(self):
        """The two baselines of before issue 8: compile.json (ptxas 13.0) and sm_90.json (H100, 13.0)."""
        root = os.path.join(REPO, "results", "baselines")
        self.assertFalse(os.path.exists(os.path.join(root, "compile.json")))
        self.assertFalse(os.path.exists(os.path.join(root, "sm_90.json")))
        header, cases = baseline.load(os.path.join(root, "compile", "13.0.json"))
        self.assertEqual((header["tier"], header["sm"], header["source"]["toolchain"]["ptxas"]),
                         ("compile", None, "13.0.88"))
        self.assertEqual(len(cases), 36887)
        header, cases = baseline.load(os.path.join(root, "run", "sm_90", "13.0.json"))
        self.assertEqual((header["tier"], header["sm"], header["source"]["device"]),
                         ("run", "sm_90", "NVIDIA H100 80GB HBM3"))
        self.assertEqual(len(cases), 14436)
        with open(os.path.join(root, "compile", "13.0.json"), encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.assertGreater(len(lines), len(cases), "one case per line")

    def test_waivers(self):
        path = os.path.join(REPO, "results", "waivers.toml")
        self.assertTrue(os.path.isfile(path), "results/waivers.toml is committed (it may hold no waiver)")
        for w in waivers.load(path):
            self.assertTrue(w.link.startswith(("http://", "https://")), f"{w.describe(path)}: link is not a URL")


if __name__ == "__main__":
    unittest.main()
