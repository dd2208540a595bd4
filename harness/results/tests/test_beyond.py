"""beyond_chapter: schema v2 accepts it (v1 does not), JUnit passes it with a note, the report counts it in its
own column and not as a finding, the gate treats pass <-> beyond_chapter as a change within one toolchain name."""
import json
import os
import unittest
import xml.etree.ElementTree as ET

from framework.documents import schema, write_run
from framework.documents.errors import InputError
from results.gate import classify

from .common import BASELINES, RUNS, WAIVERS, TempDirTest, cli
from .test_report import build_report

INVALID = "cp.async/cg.shared.global/cp_size_8@sm_90a.ptx86"  # invalid (cg needs cp_size 16), rejected: pass
MSG = "accepted by ptxas 13.5.37 at PTX 9.2: beyond the chapter (PTX 9.0)"


def beyond_doc():
    with open(os.path.join(RUNS, "compile", "results.json"), encoding="utf-8") as f:
        doc = json.load(f)
    doc["version"] = 2
    case = next(c for c in doc["cases"] if c["id"] == INVALID)
    case.update({"class": "beyond_chapter", "message": MSG})
    return doc


class Schema(TempDirTest):
    def test_v2_accepts_v1_rejects(self):
        doc = beyond_doc()
        schema.validate(doc)
        with self.assertRaises(InputError) as e:
            schema.validate(dict(doc, version=1))
        self.assertIn("'beyond_chapter' exists from version 2", str(e.exception))

    def test_load_paths_of_version_2(self):
        doc = beyond_doc()
        doc["cases"][0]["load_path"] = "nvjitlink"
        schema.validate(doc)
        doc["cases"][0]["load_path"] = "driver"
        with self.assertRaises(InputError) as e:  # the driver's verdict names its device
            schema.validate(doc)
        self.assertIn("device", str(e.exception))
        doc["device"] = {"name": "NVIDIA H100 80GB HBM3", "sm": "sm_90", "cc": "9.0"}
        schema.validate(doc)
        doc["cases"][0]["load_path"] = "cubin"
        with self.assertRaises(InputError):
            schema.validate(doc)

    def test_junit_passes_it_with_a_note(self):
        out = os.path.join(self.tmp, "run")
        write_run(out, beyond_doc())
        root = ET.parse(os.path.join(out, "junit.xml")).getroot()
        tc = next(t for t in root.iter("testcase") if t.get("name").startswith(INVALID))
        self.assertIsNone(tc.find("failure"))
        self.assertIsNone(tc.find("skipped"))
        self.assertTrue(tc.find("system-out").text.startswith(f"beyond_chapter: {MSG}"))


class Report(TempDirTest):
    def test_counted_apart_not_a_finding(self):
        run = os.path.join(self.tmp, "run")
        write_run(run, beyond_doc())
        out, rep, _ = build_report(self.tmp, run)
        self.assertEqual(rep["summary"]["compile:sm_90a"]["beyond_chapter"], 1)
        self.assertNotIn("beyond_chapter", [g["class"] for g in rep["finding_groups"]])
        with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
            html = f.read()
        self.assertIn('data-metric="beyond_chapter">1<', html)
        self.assertIn('<td data-class="beyond_chapter">1</td>', html)
        with open(os.path.join(out, "report.css"), encoding="utf-8") as f:
            self.assertIn(".c-beyond_chapter{background:", f.read())   # the stylesheet every page links
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            self.assertIn("* beyond the chapter: 1", f.read())


class Gate(TempDirTest):
    def test_classification(self):
        k = ("x@sm_90.ptx90", "sm_90", "9.0", "ptxas", None)
        for b, r, kind in (("pass", "beyond_chapter", "regression"), ("beyond_chapter", "pass", "changed"),
                           ("beyond_chapter", "beyond_chapter", "unchanged"), ("beyond_chapter", "fail", "changed"),
                           (None, "beyond_chapter", "new"), ("spec_divergence", "pass", "fixed")):
            with self.subTest(f"{b} -> {r}"):
                got = classify({k: b} if b else {}, {k: ({"class": r}, None)}, False)
                self.assertEqual(got[0]["kind"], kind)

    def test_gate_fails_on_pass_to_beyond_chapter(self):
        run = os.path.join(self.tmp, "run")
        write_run(run, beyond_doc())
        code, out, err = cli("gate", run, "--baseline", os.path.join(BASELINES, "compile.json"), "--waivers",
                             os.path.join(WAIVERS, "none.toml"))
        self.assertEqual(code, 1, err)
        self.assertIn(f"REGRESSION  pass -> beyond_chapter  {INVALID}", out)


if __name__ == "__main__":
    unittest.main()
