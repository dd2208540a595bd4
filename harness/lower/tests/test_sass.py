"""Reading real nvdisasm -c -gp output: every line is of a known shape, each kernel's instruction under test is
located at its PTX line, and the lowering key abstracts registers but keeps the lowering."""
import unittest

from framework.lowering import key as keymod
from framework.toolchains import sass
from lower.tests import helpers


class ParsesRealOutput(unittest.TestCase):
    def setUp(self):
        self.low = helpers.fixture_lowering()

    def test_every_form_is_located_at_its_line(self):
        self.assertEqual(len(self.low), 9)
        for fid, (_, instrs) in self.low.items():
            self.assertTrue(instrs, f"{fid}: nothing at its // ptxcts:test line")

    def test_keys_of_the_fixture(self):
        keys = {fid: keymod.reduce(instrs)[0] for fid, (_, instrs) in self.low.items()}
        self.assertEqual(keys["cp.async.bulk.tensor/3d.shared_cluster.global.im2col/multicast_cluster/cta_group_2"],
                         "UTMALDG.3D.IM2COL.MULTICAST.2CTA [UR], [UR], UR")
        self.assertEqual(keys["cp.async.bulk.wait_group/N_1/groups_3"], "DEPBAR.LE SB0, 0x1 ; CCTL.IVALL")
        self.assertEqual(keys["fence.proxy.async/shared_cta/generic_write_then_bulk_read"],
                         "MEMBAR.ALL.CTA ; FENCE.VIEW.ASYNC.S")
        self.assertEqual(keys["cp.reduce.async.bulk/global.shared_cta.bulk_group/min.bf16"],
                         "UBLKRED.G.S.MIN.BF16.RN [UR], [UR], UR")
        self.assertTrue(keys["cp.async/cg.shared.global/cp_size_16/src_size/L2_128B"].startswith(
            "LDGSTS.E.BYPASS.LTC128B.128.ZFILL [R], desc[UR][R.64"))

    def test_frame_marks_the_uniform_loop_and_address_arithmetic(self):
        _, instrs = self.low["cp.async.bulk.tensor/2d.shared_cta.global.tile_gather4"]
        _, frame = keymod.reduce(instrs)
        self.assertIn("loop(", frame)
        self.assertIn("VOTEU.ANY", frame)
        self.assertIn("ELECT", frame)
        self.assertIn("addr(", frame)


class BadOutput(unittest.TestCase):
    def test_a_line_of_no_known_shape_is_an_error_showing_it(self):
        text = helpers.fixture_text("sm_100a.sass.gz").splitlines()
        text.insert(40, "garbage that nvdisasm never writes")
        with self.assertRaises(sass.SassError) as e:
            sass.parse("\n".join(text), "x.sass")
        self.assertIn("x.sass:41", str(e.exception))
        self.assertIn("garbage that nvdisasm never writes", str(e.exception))

    def test_no_function_section_is_an_error(self):
        with self.assertRaises(sass.SassError):
            sass.parse("\t.target sm_100a\n", "empty.sass")

    def test_listing_without_line_info_is_told(self):
        text = "\n".join(l for l in helpers.fixture_text("sm_100a.sass.gz").splitlines() if "//##" not in l)
        self.assertFalse(sass.parse(text).has_line_info)
        self.assertTrue(sass.parse(helpers.fixture_text("sm_100a.sass.gz")).has_line_info)

    def test_operand_abstraction(self):
        self.assertEqual(keymod.abstract_operands("desc[UR16][R14.64+0x40], !P1, `(.L_x_7)"),
                         "desc[UR][R.64+imm], !P, LABEL")


if __name__ == "__main__":
    unittest.main()
