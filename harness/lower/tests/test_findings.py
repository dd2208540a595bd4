"""Reviewed lowering findings (results/expectations/lower.toml, lower.findings): a covered fail becomes
spec_divergence, only for the rules, forms, targets and toolchains listed; an unused finding is stale; a malformed
file is refused naming the finding and the key."""
import os
import tempfile
import unittest

from lower import findings
from lower.tests import helpers

FINDING = '''
[[finding]]
id = "noftz"
rules = ["reduce.noftz"]
forms = ["cp.reduce.async.bulk/*/add.noftz.f32"]
targets = ["sm_90*"]
toolchains = ["13.5"]
sentence = "s"
observed = "o"
note = "n"
reviewed = "r"
'''


def rec(form, target, cls, failed=()):
    return {"form": form, "target": target, "class": cls, "message": "m", "details": {"failed": list(failed)}}


class Findings(unittest.TestCase):
    def load(self, text):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "lower.toml")
            with open(p, "w") as f:
                f.write(text)
            return findings.load(p)

    def test_the_committed_file_loads(self):
        got = findings.load(os.path.join(helpers.ROOT, findings.PATH))
        self.assertTrue(got)
        self.assertTrue(all(f.rules and f.toolchains for f in got))

    def test_covers_only_what_it_lists(self):
        fid = "cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f32"
        recs = [rec(fid, "sm_90a", "fail", ["reduce.noftz: no mark"]),
                rec(fid, "sm_100a", "fail", ["reduce.noftz: no mark"]),                         # target not listed
                rec(fid, "sm_90", "fail", ["reduce.noftz: no mark", "bulk.sem: has .STRONG"]),  # another rule too
                rec("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.f32", "sm_90a", "fail",
                    ["reduce.noftz: x"])]                                                       # form not listed
        stale = findings.apply(recs, self.load("version = 1\n" + FINDING), "13.5")
        self.assertEqual([r["class"] for r in recs], ["spec_divergence", "fail", "fail", "fail"])
        self.assertTrue(recs[0]["message"].startswith("finding noftz: "))
        self.assertEqual(recs[0]["details"]["finding"], "noftz")
        self.assertEqual(stale, [])
        other = [rec(fid, "sm_90a", "fail", ["reduce.noftz: no mark"])]
        self.assertEqual(findings.apply(other, self.load("version = 1\n" + FINDING), "13.0"), [])
        self.assertEqual(other[0]["class"], "fail")   # not reviewed for 13.0

    def test_a_finding_that_covers_nothing_is_stale(self):
        fid = "cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f32"
        stale = findings.apply([rec(fid, "sm_90a", "pass")], self.load("version = 1\n" + FINDING), "13.5")
        self.assertEqual([f.id for f in stale], ["noftz"])

    def test_malformed_files_are_refused_naming_what(self):
        for text, words in (("version = 2\n", "version"),
                            ("version = 1\n" + FINDING.replace('note = "n"\n', ""), "missing note"),
                            ("version = 1\n" + FINDING + 'extra = 1\n', "unknown key extra"),
                            ("version = 1\n" + FINDING.replace('"reduce.noftz"', '"no.such.rule"'), "no.such.rule"),
                            ("version = 1\n" + FINDING + FINDING, "not unique"),
                            ("version = 1\n" + FINDING.replace('forms = [', 'forms = "x" #['), "forms"),
                            ("version = [\n", "not TOML")):
            with self.subTest(words=words):
                with self.assertRaises(findings.FindingsError) as e:
                    self.load(text)
                self.assertIn(words, str(e.exception))
                self.assertEqual(e.exception.code, 3)


if __name__ == "__main__":
    unittest.main()
