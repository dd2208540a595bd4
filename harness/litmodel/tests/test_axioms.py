"""Every axiom of catalog.AXIOMS decides a verdict of a committed test (its case below), and leaving it out of the
model (a planted fault) changes that verdict: test_<axiom>. Where an axiom is implied by another in this encoding
(atomicity by sc_per_location: an RMW is one event; fence_sc by causality and the acyclic base causality order,
which holds the Fence-SC edges), its fault is planted together with the other's, and the pair must be caught."""
import unittest

from litmodel import catalog
from litmodel.tests.common import all_tests, verdict

# axiom: (test, outcome, verdict, verdict with the axiom left out, also left out)
CASES = {
    "program_order": ("Chain.load_then_store.fenced", "T0:r1=0", "forbidden", "undefined", ()),
    "morally_strong": ("MP.peer_cta.release_cta", "T1:r1=1 T1:r2=0", "allowed", "forbidden", ()),
    "synchronizes_with": ("LB.const.acquire_gpu", "T0:r1=1 T1:r2=1", "forbidden", "allowed", ()),
    "fence_sc_order": ("SB.peer_cta.cluster", "T0:r1=0 T1:r2=0", "forbidden", "allowed", ()),
    "barrier_sync": ("CompletionShared.bar_sync0", "T1:r1=0", "forbidden", "undefined", ()),
    "base_causality_order": ("PC-bar-sync-sync-3", "P0:r0=0", "forbidden", "allowed", ()),
    "proxy_preserved_bco": ("ProxyRead.same_thread.none", "T0:r1=0", "allowed", "forbidden", ()),
    "causality_order": ("WRC.relacq", "T1:r1=1 T2:r2=1 T2:r3=0", "forbidden", "allowed", ()),
    "coherence": ("CoRW-R", "P1:r1=1 P1:r2=1", "forbidden", "allowed", ()),
    "causality": ("ProxyRead.same_thread.fence", "T0:r1=0", "forbidden", "allowed", ()),
    "sc_per_location": ("LB+RMW-c", "P0:r0=1 P1:r1=1 P2:r2=2", "forbidden", "allowed", ()),
    "atomicity": ("Atom-plus-location_", "P0:r0=0 P1:r0=0 x=1", "forbidden", "allowed", ("sc_per_location",)),
    "fence_sc": ("SB.peer_cta.gpu", "T0:r1=0 T1:r2=0", "forbidden", "allowed",
                 ("base_causality_order", "causality")),
    "no_thin_air": ("ReduceRace.red_relaxed_gpu_add", "g=0", None, "undefined", ()),
    "initiation": ("Chain.load_then_store.fenced", "T0:r1=0", "forbidden", "allowed", ()),
    "async_proxy": ("ProxyRead.same_thread.none", "T0:r1=0", "allowed", "forbidden", ()),
    "cp_async_weak_unordered": ("CpAsync.same_dst_one_group", "T0:r1=3", "allowed", "forbidden", ()),
    "async_group_commit": ("GroupOrder.wait1.read_g0", "T0:r1=0", "forbidden", "undefined", ()),
    "group_completion_order": ("GroupOrder.wait1.read_g1", "T0:r1=0", "undefined", "forbidden", ()),
    "no_order_within_group": ("GroupNoOrder.groups1", "T0:r1=1 g=1", "allowed", "forbidden", ()),
    "bulk_read_completion": ("MPbulk.unfenced.wait_group_read0.gpu", "T1:r1=1 T1:r2=0", "undefined", "allowed", ()),
    # without the rule the copy's bytes never reach the expected 16: the phase never completes
    "mbarrier_complete_tx": ("TMA.same_cta.expect16.acquire.copies1", "hang=an mbarrier phase never completes", None,
                             "allowed", ()),
    "complete_tx_release": ("TMA.same_cta.expect16.acquire.copies1", "T1:r1=0", "forbidden", "undefined", ()),
    "mbarrier_phase": ("MbarMP.arrive.try_wait", "T1:r1=0", "forbidden", "allowed", ()),
    "completion_proxy_fence": ("Chain.load_then_store.unfenced", "T0:r1=0", "forbidden", "allowed", ()),
    "multicast": ("TMA.multicast.peer_no_expect.both", "T1:r2=0", "undefined", "allowed", ()),
    "reduce_relaxed_gpu": ("ReduceRace.same_thread_after_wait", "T0:r1=11 g=13", "allowed", None, ()),
    "tensormap_proxy": ("TensorMap.fence_proxy_async", "T0:r1=0", "allowed", "forbidden", ()),
    "undefined_before_completion": ("ClusterRead.none", "T1:r1=0", "undefined", "allowed", ()),
}
# weak_copy has no planted fault: the model never lets a copy's access synchronize, and no rule reads its order
# (test_weak_copy checks the events instead)
NO_FAULT = {"weak_copy"}


class Axioms(unittest.TestCase):
    def test_every_axiom_has_a_case(self):
        self.assertEqual(set(catalog.AXIOM_NAMES), set(CASES) | NO_FAULT)

    def test_weak_copy(self):
        from litmodel.events import build
        prog = build(all_tests()["TMA.same_cta.expect16.acquire.copies1"], catalog.default_policies())
        copy_events = [e for e in prog.events if e.copy is not None and e.kind in ("R", "W")]
        self.assertTrue(copy_events)
        self.assertTrue(all(e.sem == "weak" and not e.in_po for e in copy_events))


def _make(axiom):
    test, outcome, want, broken_want, with_ = CASES[axiom]

    def check(self):
        self.assertEqual(verdict(test, outcome), want, f"{test}: {outcome}")
        self.assertEqual(verdict(test, outcome, broken=(axiom,) + with_), broken_want,
                         f"{test}: {outcome} with {axiom} left out")
    check.__doc__ = f"{axiom}: {test} {outcome} is {want}; without the rule, {broken_want}"
    return check


for _a in CASES:
    setattr(Axioms, f"test_{_a}", _make(_a))


class Implied(unittest.TestCase):
    """The two axioms implied in this encoding: alone, their fault changes nothing on these cases."""

    def test_atomicity_is_implied_by_sc_per_location(self):
        self.assertEqual(verdict("Atom-plus-location_", "P0:r0=0 P1:r0=0 x=1", broken=("atomicity",)), "forbidden")

    def test_fence_sc_is_implied_by_acyclic_base_causality(self):
        self.assertEqual(verdict("SB.peer_cta.gpu", "T0:r1=0 T1:r2=0", broken=("fence_sc",)), "forbidden")


class MbarrierPhase(unittest.TestCase):
    """mbarrier_phase: a phase that never completes is the outcome hang, whatever updates the mbarrier has."""

    def verdicts(self, code):
        from litmodel.model import Model
        from litmodel.syntax import parse_text
        [t] = parse_text("test A\nthread T0\nmbarrier m count=1\n" + code, "a.litmus")
        return {" ".join(f"{k}={v}" for k, v in o): v for o, v in Model().run(t).verdicts.items()}

    def test_a_wait_on_an_mbarrier_nothing_updates_hangs(self):
        self.assertEqual(self.verdicts("T0: mbarrier.try_wait m\nT0: ld.weak r1 x\n"),
                         {"hang=an mbarrier phase never completes": "allowed"})

    def test_expect_tx_larger_than_the_bytes_hangs(self):
        v = self.verdicts("T0: mbarrier.arrive.expect_tx m 32\nT0: cp.async.bulk s g mbar=m bytes=16\n"
                          "T0: mbarrier.try_wait m\nT0: ld.weak r1 s\n")
        self.assertEqual({k: x for k, x in v.items() if x != "forbidden"},
                         {"hang=an mbarrier phase never completes": "allowed"})

    def test_a_complete_tx_never_precedes_the_arrive_before_its_copy(self):
        # expect_tx 0: the arrive completes the phase, the copy's complete-tx lands in the next one; an update order
        # with the complete-tx first (tx -16 at the arrive: no completion) contradicts program order, so no hang
        v = self.verdicts("init g=5\nT0: mbarrier.arrive.expect_tx m 0\nT0: cp.async.bulk s g mbar=m bytes=16\n"
                          "T0: mbarrier.try_wait m\nT0: ld.weak r1 s\n")
        self.assertNotIn("hang=an mbarrier phase never completes", v)
        # the same copy issued before the arrive: its complete-tx may come first, and then the phase never completes
        v = self.verdicts("init g=5\nT0: cp.async.bulk s g mbar=m bytes=16\nT0: mbarrier.arrive.expect_tx m 0\n"
                          "T0: mbarrier.try_wait m\nT0: ld.weak r1 s\n")
        self.assertEqual(v.get("hang=an mbarrier phase never completes"), "allowed")

    def test_the_exact_bytes_complete_the_phase(self):
        v = self.verdicts("init g=5\nT0: mbarrier.arrive.expect_tx m 16\nT0: cp.async.bulk s g mbar=m bytes=16\n"
                          "T0: mbarrier.try_wait m\nT0: ld.weak r1 s\n")
        self.assertEqual(v, {"T0:r1=0": "forbidden", "T0:r1=5": "allowed"})


if __name__ == "__main__":
    unittest.main()
