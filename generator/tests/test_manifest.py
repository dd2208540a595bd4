"""generated/: deterministic, sorted, self-consistent; the CLIs answer and name bad input."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

from ptxcts_gen import manifest, packed
from ptxcts_gen.targets import ptx_key, targets_document

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def cli(*args):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "generator"), PTXCTS_ROOT=ROOT)
    return subprocess.run([sys.executable, "-m", "ptxcts_gen"] + list(args), env=env, capture_output=True, text=True)


class Build(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files, cls.per_family = manifest.build()

    def test_deterministic(self):
        again, _ = manifest.build()
        self.assertEqual(again, self.files)

    def test_size_budget(self):
        # generated/ is committed, its large files gzip-compressed (packed.py): 19.7 MB uncompressed before the whole
        # product, 52.5 MB uncompressed and 1.3 MB committed with it; the budget leaves room for more forms
        committed = sum(len(manifest.pack(t.encode())) if manifest.compressed(rel) else len(t.encode())
                        for rel, t in self.files.items())
        self.assertLess(committed, 3_000_000)

    def test_tsv_and_forms_agree(self):
        forms = [json.loads(line) for line in self.files["manifest/forms.jsonl"].splitlines()]
        self.assertEqual([f["form"] for f in forms], sorted(f["form"] for f in forms))
        by_id = {f["form"]: f for f in forms}
        for rel, text in self.files.items():
            if not rel.startswith("manifest/cases/"):
                continue
            lines = text.splitlines()
            self.assertEqual(lines[0], "case_id\tform\ttarget\tptx\texpect\trules")
            ids = [ln.split("\t")[0] for ln in lines[1:]]
            self.assertEqual(ids, sorted(ids), rel)
            for ln in lines[1:]:
                cid, form, target, ptx, expect, rules = ln.split("\t")
                self.assertEqual(cid, f"{form}@{target}.ptx{ptx.replace('.', '')}")
                self.assertIn(form, by_id)
                self.assertEqual(expect, "reject" if rules else "accept")
                lifted = by_id[form].get("valid_from")
                for r in by_id[form]["invalid_by"]:
                    if lifted and ptx_key(ptx) >= ptx_key(lifted):
                        self.assertNotIn(r, rules.split(","))   # a later PTX ISA text lifted it (Rule.lifted)
                    else:
                        self.assertIn(r, rules.split(","))
        named = {}   # kernel file -> the forms its "// form:" lines name (one scan of each file)
        for f in forms:
            if f["kernel_file"] not in named:
                named[f["kernel_file"]] = set(re.findall(r"^// form: (.*)$", self.files[f["kernel_file"]], re.M))
            self.assertIn(f["form"], named[f["kernel_file"]], f["kernel_file"])

    def test_targets_document(self):
        doc = targets_document()
        names = [t["name"] for t in doc["targets"]]
        for t in ("sm_80", "sm_90a", "sm_100f", "sm_103a", "sm_110a", "sm_120a", "sm_121f", "sm_101a"):
            self.assertIn(t, names)
        self.assertEqual(doc["ptx_versions"][0], "7.0")
        # the newest version is the last of the last generation (not a literal: adding a version touches only
        # PTX_GENERATIONS, docs/EXTENDING.md; test_extending checks it)
        self.assertEqual(doc["ptx_versions"][-1], list(doc["generations"].values())[-1][-1])
        self.assertEqual(doc["newest_ptx"], doc["ptx_versions"][-1])
        self.assertEqual(doc["chapter_ptx"], "9.0")
        self.assertIn(f"(anchors: {', '.join(doc['generations'])})", doc["strategy"])
        for t in ("sm_101", "sm_107", "sm_107a", "sm_107f"):
            self.assertIn(t, names)
        self.assertEqual(next(t for t in doc["targets"] if t["name"] == "sm_88")["min_ptx"], "9.0")
        self.assertIn("just below", doc["strategy"])


class Cli(unittest.TestCase):
    def test_rule_prints_its_sentence(self):
        r = cli("cases", "--rule", "cp_async.cg_cp_size_16", "--count")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("sentence:", r.stdout)

    def test_bad_inputs_are_named(self):
        r = cli("cases", "--rule", "no.such.rule")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no.such.rule", r.stderr)
        r = cli("modules", "--target", "sm_99", "--ptx", "9.0", "--out", tempfile.gettempdir())
        self.assertEqual(r.returncode, 2)
        self.assertIn("sm_99", r.stderr)
        r = cli("modules", "--target", "sm_90", "--ptx", "7.9", "--out", tempfile.gettempdir())
        self.assertIn("7.9", r.stderr)

    def test_modules_writes_index(self):
        with tempfile.TemporaryDirectory() as d:
            r = cli("modules", "--target", "sm_90", "--ptx", "8.0", "--family", "cp.async.bulk", "--out", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(d, "index.json")) as fh:
                idx = json.load(fh)
            self.assertEqual(list(idx["modules"]), ["cp.async.bulk.ptx"])
            with open(os.path.join(d, "cp.async.bulk.ptx")) as fh:
                text = fh.read().split("\n")
            for entry, info in idx["entries"].items():
                self.assertIn(entry, text[info["line_first"] - 1])
                for ln in info["test_lines"]:
                    self.assertIn("// ptxcts:test", text[ln - 1])
                self.assertEqual(info["expect"] == "accept", not info["rules"])


class Packed(unittest.TestCase):
    """generated/'s large files as committed (X.gz, packed.py) and their expanded copies X."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.top = os.path.join(self.tmp.name, "generated")
        os.makedirs(os.path.join(self.top, "manifest", "cases"))
        self.files = {"manifest/cases/f.tsv": "case_id\tform\ttarget\tptx\texpect\trules\n",
                      "manifest/targets.json": "{}\n"}

    def tearDown(self):
        self.tmp.cleanup()

    def write(self):
        with unittest.mock.patch.object(manifest, "GENERATED", self.top):
            return manifest.write(self.files)

    def stale(self):
        with unittest.mock.patch.object(manifest, "GENERATED", self.top):
            return manifest.stale(self.files)

    def test_large_files_are_written_compressed_and_expanded(self):
        self.write()
        self.assertTrue(manifest.compressed("manifest/cases/f.tsv"))
        self.assertFalse(manifest.compressed("manifest/targets.json"))
        gz = os.path.join(self.top, "manifest", "cases", "f.tsv.gz")
        self.assertEqual(packed.read(gz, packed=True).decode(), self.files["manifest/cases/f.tsv"])
        self.assertFalse(os.path.exists(os.path.join(self.top, "manifest", "targets.json.gz")))
        self.assertEqual(self.stale(), [])
        with open(gz, "rb") as fh:
            first = fh.read()
        self.write()
        with open(gz, "rb") as fh:
            self.assertEqual(fh.read(), first)   # byte-identical: no name, no time stamp

    def test_expand_writes_a_missing_or_older_copy_only(self):
        self.write()
        plain = os.path.join(self.top, "manifest", "cases", "f.tsv")
        os.remove(plain)
        self.assertEqual(packed.expand(self.top), 1)
        self.assertEqual(packed.expand(self.top), 0)
        os.utime(plain, (1, 1))   # older than its .gz: a checkout changed the .gz
        self.assertEqual(packed.expand(self.top), 1)

    def test_stale_names_the_committed_file_and_the_copy(self):
        self.write()
        plain = os.path.join(self.top, "manifest", "cases", "f.tsv")
        with open(plain, "a") as fh:
            fh.write("edited\n")
        self.assertEqual(self.stale(), ["stale: generated/manifest/cases/f.tsv (the expanded copy of "
                                        "manifest/cases/f.tsv.gz)"])
        with open(plain + ".gz", "wb") as fh:
            fh.write(b"not gzip")
        self.assertIn("stale: generated/manifest/cases/f.tsv.gz", self.stale())
        os.remove(plain + ".gz")
        self.assertIn("missing: generated/manifest/cases/f.tsv.gz", self.stale())

    def test_a_broken_committed_file_is_named(self):
        with open(os.path.join(self.top, "manifest", "cases", "g.tsv.gz"), "wb") as fh:
            fh.write(b"\x1f\x8b cut")
        with self.assertRaisesRegex(ValueError, "g.tsv.gz: not a gzip file"):
            packed.expand(self.top)

    def test_the_entry_point_refuses_a_broken_committed_file_with_exit_3(self):
        if not os.path.isfile(os.path.join(ROOT, "ptxcts")):
            self.skipTest(f"{ROOT} holds no entry point ./ptxcts (generator.add_ptx_version's copy of the generator)")
        with tempfile.TemporaryDirectory() as tree:
            for name in ("ptxcts",):
                shutil.copy(os.path.join(ROOT, name), tree)
            os.makedirs(os.path.join(tree, "generator", "ptxcts_gen"))
            shutil.copy(os.path.join(ROOT, "generator", "ptxcts_gen", "packed.py"),
                        os.path.join(tree, "generator", "ptxcts_gen"))
            os.makedirs(os.path.join(tree, "generated", "manifest"))
            with open(os.path.join(tree, "generated", "manifest", "forms.jsonl.gz"), "wb") as fh:
                fh.write(b"plain text")
            r = subprocess.run([sys.executable, os.path.join(tree, "ptxcts"), "cases", "--count"],
                               capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                                    if k != "PTXCTS_ROOT"})
            self.assertEqual(r.returncode, 3, r.stderr)
            self.assertIn("forms.jsonl.gz: not a gzip file", r.stderr)


if __name__ == "__main__":
    unittest.main()
