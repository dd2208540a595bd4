"""The self-test's power on real lowerings: the faults derived from the rules are all killed, and the kinds the
issue names are among them."""
import unittest

from lower import selftest
from lower.tests import helpers


class KillRate(unittest.TestCase):
    def test_fixture_faults_killed(self):
        low = helpers.fixture_lowering()
        raw_by = {(fid, "sm_100a"): (form, {"instrs": [[i.addr, i.text, i.ptx_line] for i in instrs]})
                  for fid, (form, instrs) in low.items()}
        st = selftest.run(raw_by)
        self.assertGreater(st["planted"], 100)
        kinds = st["kinds"]
        for k in ("drop tensor.multicast", "swap reduce.operation", "swap tensor.rank", "drop cp.async.src_size",
                  "drop instruction", "wait count", "elide", "duplicate", "opcode swap"):
            self.assertIn(k, kinds)
            self.assertEqual(kinds[k]["killed"], kinds[k]["planted"], k)
        self.assertGreaterEqual(st["kill_rate"], 99.0, st["survivors"][:3])
        self.assertEqual(st["detected_rate"], 100.0)

    def test_ptx9x_fixture_faults_killed(self):
        # the 9.x qualifiers' rules attacked on real sm_107a lowerings (ptxas 13.5.37)
        low = helpers.fixture_lowering("sm_107a-9x")
        raw_by = {(fid, "sm_107a"): (form, {"instrs": [[i.addr, i.text, i.ptx_line] for i in instrs]})
                  for fid, (form, instrs) in low.items()}
        st = selftest.run(raw_by)
        kinds = st["kinds"]
        for k in ("drop bulk.sem", "swap bulk.sem", "add bulk.sem", "drop bulk.report", "swap bulk.report",
                  "add bulk.report", "drop bulk_prefetch.eviction_priority", "add tensor.multicast.elsewhere",
                  "add reduce.noftz", "drop bulk.multicast.elsewhere", "drop tensor.multicast.elsewhere",
                  "drop instruction", "elide", "duplicate"):
            with self.subTest(kind=k):
                self.assertIn(k, kinds)
                self.assertEqual(kinds[k]["killed"], kinds[k]["planted"], st["survivors"][:3])
        self.assertGreaterEqual(st["kill_rate"], 99.0, st["survivors"][:3])
        self.assertEqual(st["detected_rate"], 100.0)

    def test_mutants_of_a_sequence_remove_each_instruction(self):
        low = helpers.fixture_lowering()
        form, instrs = low["cp.async.bulk.wait_group/N_1/groups_3"]
        muts = selftest.mutants(form, instrs)
        dropped = [m for k, m in muts if k == "drop instruction"]
        self.assertEqual(len(dropped), 2)
        self.assertTrue(any(not any("CCTL" in i.text for i in m) for m in dropped))


if __name__ == "__main__":
    unittest.main()
