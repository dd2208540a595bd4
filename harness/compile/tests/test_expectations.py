"""The findings file: parsing, errors naming file and line, matching, staleness."""
import os
import tempfile
import unittest

from framework.documents import expectations as E

GOOD = '''# reviewed findings
[[finding]]
id = "one"
cases = ["cp.async/ca.shared_cta.global/*@sm_80.ptx70"]
verdict = "accepts"
rules = ["cp_async.shared_cta.ptx"]
sentence = "Support for sub-qualifier ::cta introduced in PTX ISA version 7.8."
ptxas = "accepted without a diagnostic"
note = "n"
reviewed = "r"
toolchains = ["13.*"]

[[finding]]
id = "two"
cases = ["x/*"]
verdict = "rejects"
sentence = "s"
ptxas = "requires .target sm_100"
note = "n"
reviewed = "r"
toolchains = ["12.4", "13.0"]
load_paths = ["ptxas"]
'''


class ExpectationsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "ptxas.toml")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, text):
        with open(self.path, "w") as f:
            f.write(text)

    def assertRefusedMatching(self, text, pattern):
        """Loading a findings file of `text` fails with a message matching `pattern`."""
        self.write(text)
        with self.assertRaisesRegex(E.ExpectationsError, pattern):
            E.load(self.path)

    def assertRefusedAt(self, text, line, what):
        """Loading a findings file of `text` fails, naming the file, the line and `what`."""
        self.write(text)
        with self.assertRaises(E.ExpectationsError) as cm:
            E.load(self.path)
        self.assertIn(f"{self.path}:{line}:", str(cm.exception))
        self.assertIn(what, str(cm.exception))

    def test_good_file(self):
        self.write(GOOD)
        fs = E.load(self.path)
        self.assertEqual([(f.id, f.line) for f in fs], [("one", 2), ("two", 13)])
        one, two = fs
        self.assertTrue(one.covers("13.5", "nvjitlink"))
        self.assertFalse(one.covers("12.9", "ptxas"), "a finding applies only to the toolchains it names")
        self.assertTrue(two.covers("12.4", "ptxas"))
        self.assertFalse(two.covers("12.4", "nvjitlink"), "nor to other compilers when it names load_paths")

    def test_missing_file_is_a_usage_error(self):
        with self.assertRaises(E.ExpectationsError) as cm:
            E.load(os.path.join(self.tmp.name, "nope.toml"))
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("nope.toml", str(cm.exception))

    def test_toolchain_names_are_versions(self):
        self.assertRefusedMatching(GOOD.replace('toolchains = ["13.*"]', 'toolchains = ["cuda13"]'),
                                   r":2: finding one: toolchains cuda13: a toolchain name is")

    def test_toolchains_required(self):
        self.assertRefusedMatching(GOOD.replace('toolchains = ["13.*"]\n', ""), r":2: finding one lacks toolchains")

    def test_syntax_error_names_file_and_line(self):
        # line 16: an unterminated string
        self.assertRefusedAt(GOOD.replace('verdict = "rejects"', 'verdict = "rejects'), 16, "not valid TOML")

    def test_missing_key_names_the_finding_line(self):
        self.assertRefusedAt(GOOD.replace('ptxas = "requires .target sm_100"\n', ""), 13, "lacks ptxas")

    def test_bad_verdict_and_duplicate_id(self):
        self.assertRefusedMatching(GOOD.replace('"rejects"', '"maybe"'), r":13: .*verdict 'maybe'")
        self.assertRefusedMatching(GOOD.replace('id = "two"', 'id = "one"'),
                                   r":13: finding id 'one' repeats the one at line 2")

    def test_lookup_checks_direction_and_message(self):
        self.write(GOOD)
        fs = E.load(self.path)
        f, _ = E.lookup(fs, "x/y@sm_90.ptx86", "rejects", ["Feature 'z' requires .target sm_100 or higher"])
        self.assertEqual(f.id, "two")
        f, why = E.lookup(fs, "x/y@sm_90.ptx86", "rejects", ["Arguments mismatch"])
        self.assertIsNone(f, "a finding must not excuse a rejection for another reason")
        self.assertIn("two", why[0])
        f, why = E.lookup(fs, "x/y@sm_90.ptx86", "accepts", [])
        self.assertIsNone(f)
        cid = "cp.async/ca.shared_cta.global/cp_size_8@sm_80.ptx70"
        f, _ = E.lookup(fs, cid, "accepts", [], ("cp_async.shared_cta.ptx",))
        self.assertEqual(f.id, "one")
        f, why = E.lookup(fs, cid, "accepts", [], ("cp_async.shared_cta.ptx", "cp_async.cg_cp_size_16"))
        self.assertIsNone(f, "a finding must not excuse an acceptance that breaks a rule it does not name")
        self.assertIn("cp_async.cg_cp_size_16", why[0])

    def test_accepts_needs_rules(self):
        self.assertRefusedMatching(GOOD.replace('rules = ["cp_async.shared_cta.ptx"]\n', ""),
                                   r":2: finding one: .*must name the rules")

    def test_stale(self):
        self.write(GOOD)
        fs = E.load(self.path)
        fs[1].applied.append("x/y@sm_90.ptx86")
        st = E.stale(fs, [("cp.async/ca.shared_cta.global/cp_size_8@sm_80.ptx70", False)],
                     [("cp.async/ca.shared_cta.global/cp_size_8@sm_80.ptx70", False), ("x/y@sm_90.ptx86", True)])
        self.assertEqual([s["id"] for s in st], ["one"])
        self.assertEqual(E.stale(fs, [("cp.async/ca.shared_cta.global/cp_size_8@sm_80.ptx70", True)],
                                 [("cp.async/ca.shared_cta.global/cp_size_8@sm_80.ptx70", False)]), [],
                         "an 'accepts' finding cannot apply to a valid case (a --valid-only run)")
        self.assertIn("match no invalid case of the manifest", E.stale(fs, [], [("z@sm_90.ptx86", False)])[0]["why"])
        self.assertEqual(E.stale(fs, [], [("cp.async/ca.shared_cta.global/a@sm_80.ptx70", False)]), [],
                         "a finding whose cases this run did not select is not stale")

    def test_empty_file_is_no_findings(self):
        self.write("# no finding yet\n")
        self.assertEqual(E.load(self.path), [])


if __name__ == "__main__":
    unittest.main()
