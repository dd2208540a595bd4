"""Every policy of catalog.POLICIES decides a verdict of a committed test: its default gives one verdict, each
alternative another (test_<policy>_<alternative>); and bad settings are refused."""
import unittest

from litmodel import catalog
from litmodel.model import Model
from litmodel.tests.common import verdict

HANG = "hang=an mbarrier phase never completes"

# (policy, alternative): (test, outcome, verdict by default, verdict under the alternative)
CASES = {
    ("ub_extent", "program"): ("MPbulk.fenced.wait_group0.gpu", "T1:r1=1 T1:r2=1", "allowed", "undefined"),
    ("mbarrier_wait_scope", "strict_scope"): ("TMA.peer_cta.consumer_expects.wait_cta", "T1:r1=0", "forbidden",
                                              "undefined"),
    ("mbarrier_wait_scope", "object_local"): ("MbarRemote.arrive_cluster.wait_cta", "T1:r1=0", "allowed",
                                              "forbidden"),
    ("read_completion_proxy_fence", "unfenced"): ("WAR.source.wait_group_read0", "T0:r1=2", "forbidden", "allowed"),
    ("group_write_order", "commit_order"): ("GroupNoOrder.groups2", "T0:r1=1 g=1", "allowed", "forbidden"),
    ("cross_proxy_atomicity", "atomic"): ("ReduceRace.red_relaxed_gpu_add", "g=11", "undefined", "forbidden"),
    ("reduce_destination_race", "atomic"): ("ReduceRace.red_relaxed_gpu_add", "g=11", "undefined", "allowed"),
    ("initiation_order", "unordered"): ("Chain.load_then_store.fenced", "T0:r1=0", "forbidden", "allowed"),
    ("complete_tx_updates", "merged"): ("TMA.same_cta.expect16.acquire.copies2", HANG, None, "allowed"),
}


class Policies(unittest.TestCase):
    def test_every_alternative_has_a_case(self):
        want = {(p.name, v) for p in catalog.POLICIES for v, _ in p.alternatives if v != p.default}
        self.assertEqual(want, set(CASES))

    def test_defaults_are_alternatives(self):
        for p in catalog.POLICIES:
            self.assertIn(p.default, [v for v, _ in p.alternatives], p.name)

    def test_the_two_readings_of_a_hang_differ_on_one_copy(self):
        # expect_tx 0 and one 16-byte copy: only a complete-tx applied before its thread's earlier arrive leaves the
        # phase incomplete; merging needs two complete-tx updates (the test that tells the readings apart)
        t = "TMA.same_cta.expect0.acquire.copies1"
        self.assertIsNone(verdict(t, HANG, policies={"complete_tx_updates": "merged"}))
        self.assertEqual(verdict(t, HANG, policies={"initiation_order": "unordered"}), "allowed")

    def test_unknown_policy_and_value_are_refused(self):
        self.assertIn("no policy", catalog.check_policy("nope", "x"))
        self.assertIn("no alternative", catalog.check_policy("ub_extent", "sometimes"))
        self.assertEqual(catalog.check_policy("ub_extent", "program"), "")

    def test_unknown_axiom_to_break_is_refused(self):
        with self.assertRaises(ValueError):
            Model(broken=("no_such_axiom",))


def _make(key):
    test, outcome, default, alt = CASES[key]

    def check(self):
        self.assertEqual(verdict(test, outcome), default)
        self.assertEqual(verdict(test, outcome, policies={key[0]: key[1]}), alt)
    check.__doc__ = f"{key[0]}={key[1]}: {test} {outcome}: {default} -> {alt}"
    return check


for _k in CASES:
    setattr(Policies, f"test_{_k[0]}_{_k[1]}", _make(_k))

if __name__ == "__main__":
    unittest.main()
