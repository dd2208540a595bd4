"""The front-end's instruction in the run tier's frame (harness/frontend/framed/splice.py), without a front-end: the
splice keeps the front-end's opcode and takes the frame's operands only where the shapes agree; a wrong form, an
immediate where the frame has a register, or another operand count is refused with what differs; the framed kernel
is the hand-written one with that line; the folder's provenance is per front-end kind and check-modules refuses a
stale one."""
import json
import os
import tempfile
import unittest

from ptxcts_gen import model, parse
from ptxcts_gen.render import ROOT, kernel_text

from frontend import FrontendError, silicon
from frontend.framed import splice

CP_ASYNC = "cp.async/ca.shared.global/cp_size_8/src_size/L2_256B"
TENSOR = "cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile"


class Splice(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.forms = {f.id: f for f in model.all_forms()}
        cls.index = parse.FormIndex(cls.forms.values())

    def test_operand_shapes(self):
        self.assertEqual(splice.operand_shape("0x10"), ("imm", 16))
        self.assertEqual(splice.operand_shape("16"), ("imm", 16))
        self.assertEqual(splice.operand_shape("%r2"), "reg")
        self.assertEqual(splice.operand_shape("[ %r1 + 0 ]"), ("mem", ["addr"]))
        self.assertEqual(splice.operand_shape("[%rd1, {%r1, %r2}]"), ("mem", ["addr", ("vec", ["reg", "reg"])]))
        self.assertEqual(splice.split_instruction("@%p1 cp.async.bulk.commit_group;"), ("cp.async.bulk.commit_group", []))

    def test_written_opcode_framed_operands(self):
        f = self.forms[CP_ASYNC]
        written = "cp.async.ca.shared.global.L2::256B [ %r1 + 0 ], [ %rd1 + 0 ], 0x8, %r2;"
        spliced, why = splice.splice_problem(f.id, written, f.instr, self.index)
        self.assertIsNone(why)
        self.assertEqual(spliced.split()[0], "cp.async.ca.shared.global.L2::256B")
        self.assertEqual(splice.split_instruction(spliced)[1], splice.split_instruction(f.instr)[1])
        # the framed kernel: the hand-written one, its test line the spliced instruction
        text = kernel_text(splice.Framed(f, spliced))
        self.assertIn(spliced + " // ptxcts:test", text)
        self.assertEqual(text.replace(spliced, f.instr), kernel_text(f))

    def test_qualifier_order_kept(self):
        f = self.forms[TENSOR]
        written = "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group [%rd1, {%r1}], [%r2];"
        spliced, why = splice.splice_problem(f.id, written, f.instr, self.index)
        self.assertIsNone(why, why)
        self.assertTrue(spliced.startswith("cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.bulk_group ["))

    def test_refusals(self):
        f = self.forms[CP_ASYNC]
        # another form (the prefetch size dropped)
        _, why = splice.splice_problem(f.id, "cp.async.ca.shared.global [%r1], [%rd1], 8, %r2;", f.instr, self.index)
        self.assertIn("does not parse to", why)
        # the src-size an immediate where the frame has a register: not the form either (parse reads the shapes)
        _, why = splice.splice_problem(f.id, "cp.async.ca.shared.global.L2::256B [%r1], [%rd1], 8, 8;", f.instr,
                                       self.index)
        self.assertIsNotNone(why)


class Provenance(unittest.TestCase):
    def test_made_from_per_kind(self):
        t, c = splice.made_from(ROOT, "triton"), splice.made_from(ROOT, "cute-dsl")
        self.assertEqual(t["frame_templates_sha256"], c["frame_templates_sha256"])
        self.assertNotEqual(t["mapping_sha256"], c["mapping_sha256"])
        self.assertNotEqual(t["engine_sha256"], c["engine_sha256"])
        self.assertNotIn("llvm_templates_sha256", t)

    def test_check_modules_takes_fresh_refuses_stale(self):
        with tempfile.TemporaryDirectory() as d:
            doc = {"target": "sm_90", "ptx": "9.0", "modules": {"m.ptx": ["k"]}, "entries": {}, "not_written": {},
                   "frontend": {"name": "triton", "kind": "triton"}, "made_from": splice.made_from(ROOT, "triton")}
            with open(os.path.join(d, "m.ptx"), "w") as f:
                f.write("//\n")
            with open(os.path.join(d, "index.json"), "w") as f:
                json.dump(doc, f)
            self.assertEqual(silicon.check_folder(d, ROOT, "sm_90", "9.0", splice.made_from_of(ROOT))["frontend"]["name"], "triton")
            doc["made_from"]["mapping_sha256"] = "0" * 64
            with open(os.path.join(d, "index.json"), "w") as f:
                json.dump(doc, f)
            with self.assertRaises(FrontendError) as e:
                silicon.check_folder(d, ROOT, "sm_90", "9.0", splice.made_from_of(ROOT))
            self.assertIn("mapping_sha256", str(e.exception))
            self.assertEqual(e.exception.code, 3)


if __name__ == "__main__":
    unittest.main()
