"""CTest selftest.rates (CPU): silicon's catch rate is taken over the plants silicon must catch; a plant the model
calls equivalent (the same bytes, count and outcome) is not a miss, and one refused or without a case is not judged."""
import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path[:0] = [os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]

from selftest.rates import tally  # noqa: E402


def rep(caught, equivalent, holes, refused=0, no_case=0):
    row = {"planted": caught + equivalent + holes + refused + no_case, "caught": caught, "equivalent": equivalent,
           "holes": holes, "refused": refused, "no_case": no_case}
    return {"kinds": {"tmap_dtype": {"families": {"tensor": row}}}}


class Rates(unittest.TestCase):
    def test_equivalent_plants_are_not_misses(self):
        r = tally([rep(51, 151, 0, refused=32)] * 3, ["tmap_dtype"])["tmap_dtype"]
        self.assertEqual((r["judged"], r["caught"], r["rate"]), (153, 153, 100.0))
        self.assertEqual(r["equivalent_per_repetition"], [151, 151, 151])

    def test_a_hole_lowers_the_rate(self):
        r = tally([rep(51, 151, 0), rep(50, 151, 1)], ["tmap_dtype"])["tmap_dtype"]
        self.assertEqual((r["judged"], r["caught"], r["rate"]), (102, 101, 99.02))

    def test_a_kind_not_run_has_no_rate(self):
        r = tally([rep(1, 0, 0)], ["wait_read"])["wait_read"]
        self.assertEqual((r["repetitions"], r["rate"]), (0, None))


if __name__ == "__main__":
    unittest.main()
