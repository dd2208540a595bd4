"""Reading the manifest (framework.manifest, as the compile tier does): malformed input is an error naming the file and line; the filters."""
import os
import shutil
import tempfile
import unittest

from framework import manifest
from framework.documents.errors import InputError

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "manifest")


class ManifestTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = os.path.join(self.tmp.name, "manifest")
        shutil.copytree(FIXTURE, self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def edit(self, rel, old, new):
        path = os.path.join(self.root, rel)
        with open(path) as f:
            text = f.read()
        self.assertIn(old, text)
        with open(path, "w") as f:
            f.write(text.replace(old, new, 1))
        return path

    def test_fixture_loads(self):
        m = manifest.load(self.root)
        self.assertEqual(m.families, ["cp.async", "cp.async.bulk"])
        self.assertEqual(len(m.cases), 15)
        self.assertEqual(sum(c.valid for c in m.cases), 7)

    def test_bad_expect_names_file_and_line(self):
        path = self.edit("cases/cp.async.tsv", "\taccept\t\n", "\tmaybe\t\n")
        with self.assertRaisesRegex(InputError, rf"{path}:2: case .*expect is 'maybe'"):
            manifest.load(self.root)

    def test_reject_without_rule_is_refused(self):
        path = self.edit("cases/cp.async.tsv", "\treject\tcg_cp_size_16\n", "\treject\t\n")
        with self.assertRaisesRegex(InputError, rf"{path}:\d+: case .* names no rule"):
            manifest.load(self.root)

    def test_unknown_form_and_bad_json(self):
        path = self.edit("cases/cp.async.bulk.tsv", "\tcp.async.bulk/shared_cta", "\tcp.async.bulk/nope")
        with self.assertRaisesRegex(InputError, rf"{path}:\d+: .*form cp.async.bulk/nope\S* is not in forms.jsonl"):
            manifest.load(self.root)
        path = self.edit("forms.jsonl", "{", "{{")
        with self.assertRaisesRegex(InputError, rf"{path}:1: not a JSON object"):
            manifest.load(self.root)

    def test_filters(self):
        m = manifest.load(self.root)
        self.assertEqual({c.target for c in manifest.select(m.cases, targets=["sm_90"])}, {"sm_90"})
        self.assertEqual({c.ptx for c in manifest.select(m.cases, ptx=["7.0"])}, {"7.0"})
        got = manifest.select(m.cases, case_globs=["cp.async/cg.*"])
        self.assertTrue(got and all(c.id.startswith("cp.async/cg.") for c in got))
        lim = manifest.select(m.cases, limit=4)
        self.assertEqual(len(lim), 4)
        self.assertEqual(len({c.id for c in lim}), 4)
        self.assertEqual(lim[0].id, m.cases[0].id)
        self.assertNotEqual(lim[-1].family, lim[0].family, "--limit spreads over the selection")


if __name__ == "__main__":
    unittest.main()
