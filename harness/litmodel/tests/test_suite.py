"""The generated suite and the agreement: the committed files are what shapes.py writes, every outcome carries the
model's label, the numbers the issue asks for hold, and the README's tables are the catalog."""
import os
import unittest

from litmodel import catalog, shapes, suite


class Suite(unittest.TestCase):
    def test_labels_are_the_model(self):
        diffs, n, _ = suite.check_suite()
        self.assertEqual(diffs, [])

    def test_at_least_24_shapes_and_100_tests(self):
        self.assertGreaterEqual(len(shapes.SHAPES), 24)
        self.assertGreaterEqual(len(suite.committed_labels()), 100)

    def test_every_outcome_labelled_with_one_verdict(self):
        for name, row in suite.committed_labels().items():
            self.assertTrue(row["outcomes"], name)
            self.assertLessEqual(set(row["outcomes"].values()), {"forbidden", "allowed", "undefined"}, name)

    def test_the_issue_shapes_are_there(self):
        names = set(suite.committed_labels())
        for prefix in ("MPbulk.", "TMA.same_cta.", "TMA.peer_cta.", "TMA.multicast.", "ProxyRead.same_thread.fence",
                       "ProxyRead.same_thread.none", "ProxyRead.bar_sync.", "WAR.source.wait_group_read0",
                       "GroupOrder.", "GroupNoOrder.", "ReduceRace.", "TensorMap.fence_proxy_tensormap"):
            self.assertTrue(any(n.startswith(prefix) for n in names), prefix)

    def test_dat3m_agreement(self):
        rows = suite.agreement()
        self.assertEqual(len(rows), 95)
        self.assertEqual([r["test"] for r in rows if not r["agree"]], [])

    def test_readme_tables_are_the_catalog(self):
        with open(os.path.join(suite.HERE, "README.md"), encoding="utf-8") as f:
            self.assertIn(catalog.markdown(), f.read())


if __name__ == "__main__":
    unittest.main()
