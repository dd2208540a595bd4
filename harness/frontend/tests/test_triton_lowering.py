"""The Triton mapping against the lowering of the loaded Triton (harness/frontend/triton/engine.py lowered_spelling),
without a Triton: where the measured facts equal the mapping's (Triton 3.9.0) every spelling is the mapping's; where
a Triton writes a TMA load without multicast into .shared::cluster (3.6.0) that form is spelled with the call and
the .shared::cta one is not written, naming the measurement; a 16-byte .ca copy written .cg is not written; a form
the mapping cannot express for another reason keeps that reason."""
import unittest

from ptxcts_gen import model
from ptxcts_gen.frontends import Spelling, Unexpressible
from ptxcts_gen.frontends import triton as mapping

from frontend.triton.engine import lowered_spelling, lowering_notes

MEASURED = mapping.MEASURED_LOWERING
TMA_INSTR = "cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%r2], [%rd1, {%r3}], [%r1];"
CA_INSTR = "cp.async.cg.shared.global [ %r1 + 0 ], [ %rd1 + 0 ], 0x10, %r2;"
AS_39 = {"tma_load_space": "shared::cta", "cp_async_ca16": "ca"}
AS_36 = {"tma_load_space": "shared::cluster", "tma_load_space_instr": TMA_INSTR, "cp_async_ca16": "cg",
         "cp_async_ca16_instr": CA_INSTR}


class Lowering(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.forms = {f.id: f for f in model.all_forms()}

    def spell(self, form_id, low):
        f = self.forms[form_id]
        return lowered_spelling(f, mapping.spell(f), mapping, low, MEASURED, "X")

    def test_the_mapping_stands_where_the_lowering_is_the_measured_one(self):
        self.assertEqual(MEASURED["triton"], "3.9.0")
        for fid, f in self.forms.items():
            if f.family in ("cp.async", "cp.async.bulk.tensor"):
                self.assertEqual(repr(self.spell(fid, AS_39)), repr(mapping.spell(f)), fid)
        self.assertEqual(lowering_notes(AS_39, MEASURED, "3.9.0"), [])

    def test_tma_load_into_shared_cluster(self):
        cta = mapping.spell(self.forms["cp.async.bulk.tensor/1d.shared_cta.global.tile"])
        self.assertIsInstance(cta, Spelling)
        got = self.spell("cp.async.bulk.tensor/1d.shared_cluster.global.tile", AS_36)
        self.assertEqual(repr(got), repr(cta))   # the same call writes it
        self.assertIsInstance(mapping.spell(self.forms["cp.async.bulk.tensor/1d.shared_cluster.global.tile"]),
                              Unexpressible)
        no = self.spell("cp.async.bulk.tensor/1d.shared_cta.global.tile", AS_36)
        self.assertIsInstance(no, Unexpressible)
        self.assertIn(TMA_INSTR, no.reason)
        # multicast and stores are not this fact's
        mc = "cp.async.bulk.tensor/1d.shared_cluster.global.tile/multicast_cluster"
        self.assertEqual(repr(self.spell(mc, AS_36)), repr(mapping.spell(self.forms[mc])))
        self.assertEqual(len(lowering_notes(AS_36, MEASURED, "3.6.0")), 2)

    def test_ca_16_bytes_written_cg(self):
        no = self.spell("cp.async/ca.shared.global/cp_size_16/src_size", AS_36)
        self.assertIsInstance(no, Unexpressible)
        self.assertIn(CA_INSTR, no.reason)
        eight = "cp.async/ca.shared.global/cp_size_8/src_size"
        self.assertEqual(repr(self.spell(eight, AS_36)), repr(mapping.spell(self.forms[eight])))

    def test_another_reason_kept(self):
        for fid in ("cp.async.bulk.tensor/1d.shared_cta.global.tile/cta_group_1",   # no .cta_group in Triton
                    "cp.async/ca.shared.global/cp_size_16"):                        # no form without src-size
            base = mapping.spell(self.forms[fid])
            self.assertIsInstance(base, Unexpressible)
            self.assertEqual(self.spell(fid, AS_36).reason, base.reason)


if __name__ == "__main__":
    unittest.main()
