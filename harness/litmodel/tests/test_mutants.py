"""The graded mutants: every operator yields mutants, at least 60 of them killable by the model's verdicts (an
outcome the original test forbids and the mutant allows, leaves undefined or a hang), and the committed file is
what today's model and suite give."""
import os
import unittest

from litmodel import mutants, suite
from litmodel.syntax import parse_file, parse_text

OPERATORS = ("drop_fence", "narrow_scope", "wait_n_plus_1", "wait_read_for_full", "acquire_to_relaxed",
             "release_to_relaxed", "drop_barrier", "shrink_expect_tx", "clear_cta_mask_bit", "reverse_accesses")


class Mutants(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = mutants.all_mutants([t for f in suite.suite_files() for t in parse_file(f)])

    def test_every_operator_has_a_killable_mutant(self):
        killable = {r["operator"] for r in self.rows if r["killing"]}
        self.assertEqual(set(OPERATORS), killable)

    def test_at_least_60_killable(self):
        self.assertGreaterEqual(sum(bool(r["killing"]) for r in self.rows), 60)

    def test_committed_mutants_are_todays(self):
        want = mutants.read(os.path.join(suite.SUITE_DIR, "mutants.jsonl.gz"))
        self.assertEqual(want, [r for r in self.rows if r["killing"]])

    def test_dropping_the_proxy_fence_is_killable(self):
        r = [r for r in self.rows if r["mutant"].startswith("ProxyRead.same_thread.fence+drop_fence")]
        self.assertEqual(r[0]["killing"], ["T0:r1=0"])

    def test_a_mutant_is_a_test_of_the_format(self):
        for r in self.rows[:50]:
            if "text" in r:
                [t] = parse_text(r["text"], "mutant")
                self.assertEqual(t.name, r["mutant"])


if __name__ == "__main__":
    unittest.main()
