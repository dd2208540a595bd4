"""Planted faults: the model with one rule left out (Model(broken=...)) must be caught by the committed labels of
the generated suite or by the Dat3M agreement, the checks CTest runs. The rules implied by another in this
encoding (test_axioms.Implied) are planted in pairs."""
import unittest

from litmodel import catalog, suite
from litmodel.model import Model

PAIRS = {"atomicity": ("atomicity", "sc_per_location"), "fence_sc": ("fence_sc", "base_causality_order", "causality")}


class PlantedFaults(unittest.TestCase):
    def test_every_fault_is_caught_by_the_labels_or_the_agreement(self):
        survivors = []
        for a in catalog.AXIOM_NAMES:
            if a == "weak_copy":
                continue
            model = Model(broken=PAIRS.get(a, (a,)))
            diffs, _, _ = suite.check_suite(model)
            if diffs:
                continue
            if any(not r["agree"] for r in suite.agreement(model)):
                continue
            survivors.append(a)
        self.assertEqual(survivors, [])

    def test_the_unbroken_model_passes_both(self):
        diffs, n, _ = suite.check_suite()
        self.assertEqual(diffs, [])
        self.assertTrue(all(r["agree"] for r in suite.agreement()))


if __name__ == "__main__":
    unittest.main()
