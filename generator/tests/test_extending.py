"""CTest generator.add_ptx_version: adding a PTX ISA version touches only what docs/EXTENDING.md names.

In a scratch copy of the tree (generator/, templates/, harness/, docs/), a new generation is appended to
PTX_GENERATIONS in generator/ptxcts_gen/targets.py exactly as EXTENDING.md's "A PTX ISA version" says, and nothing
else is edited. Then `ptxcts_gen gen` must succeed, the generator's tests must pass, and the new version must
appear wherever the version table reaches: the targets document (versions, generations, newest, the strategy's
anchors) and new cases at it in every family, with no case of the checkout's generated/ removed or renamed.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from ptxcts_gen import packed

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COPIED = ("generator", "templates", "harness", "docs")
GENERATOR_TESTS = ("test_rules", "test_model", "test_render", "test_manifest", "test_contract", "test_faults")
EXTENDING = os.path.join(ROOT, "docs", "EXTENDING.md")


def later_version(versions):
    """A version after every known one, in the table's spelling (9.5 -> 9.6, 9.9 -> 10.0)."""
    major, minor = (int(x) for x in versions[-1].split("."))
    return f"{major + 1}.0" if minor == 9 else f"{major}.{minor + 1}"


def case_ids(generated):
    """family -> set of case IDs of generated/manifest/cases/<family>.tsv, as committed (<family>.tsv.gz)."""
    out = {}
    cases = os.path.join(generated, "manifest", "cases")
    for name in sorted(os.listdir(cases)):
        if name.endswith(".tsv.gz"):
            text = packed.read(os.path.join(cases, name), packed=True).decode()
            out[name[:-len(".tsv.gz")]] = {row["case_id"] for row in csv.DictReader(io.StringIO(text), delimiter="\t")}
    return out


def add_generation(targets_py, version):
    """Appends ("V", ("V",)) as the last generation of PTX_GENERATIONS: EXTENDING.md's one edit."""
    with open(targets_py) as f:
        text = f.read()
    table = re.search(r"^PTX_GENERATIONS = \(\n(?:    .*\n)+\)\n", text, re.M)
    assert table, f"{targets_py}: no PTX_GENERATIONS table in the form EXTENDING.md describes"
    new_row = f'    ("{version}", ("{version}",)),\n'
    edited = text[:table.end() - 2] + new_row + text[table.end() - 2:]
    with open(targets_py, "w") as f:
        f.write(edited)


class AddPtxVersion(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        sys.path.insert(0, os.path.join(ROOT, "generator"))
        from ptxcts_gen import targets
        cls.before = targets
        cls.version = later_version(targets.PTX_VERSIONS)
        cls.tag = targets.ptx_tag(cls.version)
        cls.scratch = tempfile.mkdtemp(prefix="ptxcts-add-ptx-")
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        for part in COPIED:
            shutil.copytree(os.path.join(ROOT, part), os.path.join(cls.scratch, part), ignore=ignore)
        add_generation(os.path.join(cls.scratch, "generator", "ptxcts_gen", "targets.py"), cls.version)
        cls.env = dict(os.environ, PTXCTS_ROOT=cls.scratch, PYTHONPATH=os.pathsep.join(
            [os.path.join(cls.scratch, "generator"), os.path.join(cls.scratch, "harness")]))
        cls.gen = subprocess.run([sys.executable, "-m", "ptxcts_gen", "gen", "--quiet"], cwd=cls.scratch, env=cls.env,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def test_extending_names_the_edit_this_test_makes(self):
        with open(EXTENDING) as f:
            doc = f.read()
        section = doc[doc.index("## A PTX ISA version"):doc.index("## A target")]
        self.assertIn("`PTX_GENERATIONS` in `generator/ptxcts_gen/targets.py`", section)
        self.assertIn("new generation", section)

    def test_gen_succeeds(self):
        self.assertEqual(self.gen.returncode, 0, self.gen.stdout[-3000:])

    def test_generator_tests_pass(self):
        self.assertEqual(self.gen.returncode, 0, self.gen.stdout[-3000:])
        r = subprocess.run([sys.executable, "-m", "unittest", *GENERATOR_TESTS],
                           cwd=os.path.join(self.scratch, "generator", "tests"), env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, f"the generator's tests fail with PTX {self.version} added:\n"
                                          f"{r.stdout[-4000:]}")

    def test_targets_document_has_the_version(self):
        self.assertEqual(self.gen.returncode, 0, self.gen.stdout[-3000:])
        with open(os.path.join(self.scratch, "generated", "manifest", "targets.json")) as f:
            doc = json.load(f)
        self.assertEqual(doc["ptx_versions"], list(self.before.PTX_VERSIONS) + [self.version])
        self.assertEqual(doc["generations"][self.version], [self.version])
        self.assertEqual(doc["newest_ptx"], self.version)
        self.assertEqual(doc["chapter_ptx"], self.before.CHAPTER_PTX, "a new version does not move the chapter")
        anchors = ", ".join(list(self.before.ANCHOR_PTX) + [self.version])
        self.assertIn(f"(anchors: {anchors})", doc["strategy"])

    def test_cases_are_only_added(self):
        self.assertEqual(self.gen.returncode, 0, self.gen.stdout[-3000:])
        old = case_ids(os.path.join(ROOT, "generated"))
        new = case_ids(os.path.join(self.scratch, "generated"))
        self.assertEqual(sorted(new), sorted(old))
        for family, ids in old.items():
            with self.subTest(family=family):
                self.assertEqual(sorted(ids - new[family])[:5], [], "cases removed or renamed")
                added = new[family] - ids
                self.assertTrue(added, "no case at the new version")
                self.assertTrue(all(i.endswith("." + self.tag) for i in added), sorted(added)[:5])


if __name__ == "__main__":
    unittest.main()
