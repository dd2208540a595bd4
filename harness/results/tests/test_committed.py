"""The committed baselines and waiver file are well-formed (a malformed one would break every gate run)."""
import glob
import os
import unittest

from results import baseline, waivers

from .common import REPO


class Committed(unittest.TestCase):
    def test_baselines(self):
        paths = sorted(glob.glob(os.path.join(REPO, "results", "baselines", "*.json")))
        for path in paths:
            with self.subTest(path):
                header, cases = baseline.load(path)
                self.assertEqual(os.path.basename(path), f"{header['arch']}.json",
                                 "a baseline is named after its architecture (gate looks it up by that name)")
                self.assertTrue(cases, "an empty baseline gates nothing")

    def test_waivers(self):
        path = os.path.join(REPO, "results", "waivers.toml")
        self.assertTrue(os.path.isfile(path), "results/waivers.toml is committed (it may hold no waiver)")
        for w in waivers.load(path):
            self.assertTrue(w.link.startswith(("http://", "https://")), f"{w.describe(path)}: link is not a URL")


if __name__ == "__main__":
    unittest.main()
