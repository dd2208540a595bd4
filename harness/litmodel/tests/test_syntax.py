"""The litmus format: what it reads, and every malformed line named by file, line and what is wrong."""
import unittest

from litmodel.syntax import LitmusSyntaxError, parse_text

GOOD = """# a comment
test MP
doc message passing
thread T0 cta=0
thread T1 cta=1 cluster=0 gpu=0
loc s shared cta=0
mbarrier m cta=0 count=2
init x=0 g=5
T0: st.weak x 1
T0: st.release.gpu y, 1     # a comma after an operand is optional
T1: ld.acquire.gpu r1 y
T1: ld r2 x
T0: cp.async.bulk.multicast s,t g mbar=m,m bytes=32
T0: mbarrier.arrive.expect_tx m 32
observe x
exists (T1:r1 == 1 /\\ T1:r2 != 1 \\/ ~(x = 0))
"""


class Syntax(unittest.TestCase):
    def test_a_test_and_its_statements(self):
        [t] = parse_text(GOOD, "good.litmus")
        self.assertEqual(t.name, "MP")
        self.assertEqual(t.threads["T1"].cta, 1)
        self.assertEqual(t.locs["s"], ("shared", 0))
        self.assertEqual(t.mbarriers["m"], (0, 2))
        self.assertEqual(t.init, {"x": 0, "g": 5})
        st = t.code["T0"][1]
        self.assertEqual((st.op, st.sem, st.scope, st.loc, st.value), ("st", "release", "gpu", "y", 1))
        ld = t.code["T1"][1]
        self.assertEqual((ld.sem, ld.scope), ("weak", "sys"))
        mc = t.code["T0"][2]
        self.assertEqual((mc.dsts, mc.mbars, mc.bytes, mc.completion), (("s", "t"), ("m", "m"), 32, "mbar"))
        self.assertEqual(t.condition[0], "exists")

    def test_a_family_of_tests_in_one_file(self):
        text = "test A\nthread T0\nT0: st.weak x 1\n\ntest B\nthread T0\nT0: ld.weak r1 x\n"
        self.assertEqual([t.name for t in parse_text(text)], ["A", "B"])

    def bad(self, text, line, words):
        with self.assertRaises(LitmusSyntaxError) as e:
            parse_text(text, "bad.litmus")
        self.assertEqual(e.exception.line, line, str(e.exception))
        self.assertIn(words, e.exception.what)
        self.assertTrue(str(e.exception).startswith(f"bad.litmus:{line}: "))

    def test_unknown_instruction(self):
        self.bad("test A\nthread T0\nT0: frobnicate x\n", 3, "unknown instruction 'frobnicate'")

    def test_undeclared_thread(self):
        self.bad("test A\nthread T0\nT1: st.weak x 1\n", 3, "thread 'T1' is not declared")

    def test_statement_before_the_first_test(self):
        self.bad("thread T0\n", 1, "before the first 'test NAME'")

    def test_store_with_acquire(self):
        self.bad("test A\nthread T0\nT0: st.acquire.gpu x 1\n", 3, "weak, relaxed or release")

    def test_operand_count(self):
        self.bad("test A\nthread T0\nT0: ld.weak r1\n", 3, "takes 2 operand(s)")

    def test_bulk_bytes_multiple_of_16(self):
        self.bad("test A\nthread T0\nmbarrier m\nT0: cp.async.bulk s g mbar=m bytes=20\n", 4, "multiple of 16")

    def test_copy_without_completion(self):
        self.bad("test A\nthread T0\nT0: cp.async.bulk g s\n", 3, "a completion")

    def test_multicast_lists_disagree(self):
        self.bad("test A\nthread T0\nmbarrier m\nT0: cp.async.bulk.multicast a,b g mbar=m\n", 4, "2 destination(s)")

    def test_undeclared_mbarrier(self):
        self.bad("test A\nthread T0\nT0: mbarrier.try_wait m\n", 3, "mbarrier 'm' is not declared")

    def test_condition_unreadable(self):
        self.bad("test A\nthread T0\nT0: ld.weak r1 x\nexists (T0:r1 == )\n", 4, "condition")

    def test_condition_names_an_unknown_register(self):
        self.bad("test A\nthread T0\nT0: ld.weak r1 x\nexists (T0:r9 == 1)\n", 1, "T0:r9")

    def test_duplicate_test_name(self):
        self.bad("test A\nthread T0\ntest A\n", 3, "twice")

    def test_empty_file(self):
        self.bad("# nothing\n", 1, "no test")

    def test_unknown_key(self):
        self.bad("test A\nthread T0 sm=3\n", 2, "unknown key 'sm'")


if __name__ == "__main__":
    unittest.main()
