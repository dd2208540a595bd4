"""`diff A B`: transitions grouped per family, rule, target and PTX version with examples and both sides'
messages; exit codes; and the report with runs of two toolchains (columns per toolchain, no conflict, a
"differences between toolchains" section)."""
import json
import os
import unittest

from framework.documents import write_run

from .common import MANIFEST, RUNS, TempDirTest, cli
from .test_beyond import INVALID
from .test_report import build_report

DROPPED = "ptxas 13.5.37 does not support .target sm_80"


def two_toolchains(tmp):
    with open(os.path.join(RUNS, "compile", "results.json"), encoding="utf-8") as f:
        a = json.load(f)
    b = json.loads(json.dumps(a))
    b.update(version=2, run_id="2026-11-24T10-00-00.000Z-compile-abcdef")
    b["toolchain"] = {"name": "13.5", "ptxas": "13.5.37", "ptxas_path": "/opt/cuda-13.5/bin/ptxas",
                      "ptxas_sha256": "0" * 64, "nvjitlink": None, "cuda_runtime": None, "driver": None}
    for c in b["cases"]:
        if c["target"] == "sm_80":
            c.update({"class": "not_supported", "message": DROPPED})
        if c["id"] == INVALID:
            c.update({"class": "beyond_chapter", "message": "accepted at PTX 9.2",
                      "details": {"diagnostics": [{"severity": "warning", "where": "instruction",
                                                   "message": "new in 9.2"}]}})
    return (os.path.dirname(write_run(os.path.join(tmp, "a"), a)),
            os.path.dirname(write_run(os.path.join(tmp, "b"), b)), a, b)


class Diff(TempDirTest):
    def setUp(self):
        super().setUp()
        self.a, self.b, self.da, self.db = two_toolchains(self.tmp)
        self.sm80 = [c for c in self.da["cases"] if c["target"] == "sm_80"]

    def test_grouped_transitions_with_examples(self):
        js, md = os.path.join(self.tmp, "d.json"), os.path.join(self.tmp, "d.md")
        code, out, err = cli("diff", self.a, self.b, "--manifest", MANIFEST, "--examples", "2", "--json", js,
                             "--markdown", md)
        self.assertEqual(code, 1, err)
        with open(js, encoding="utf-8") as f:
            d = json.load(f)
        self.assertEqual(d["changed"], len(self.sm80) + 1)
        self.assertEqual(d["transitions"], {"pass -> not_supported": len(self.sm80), "pass -> beyond_chapter": 1})
        fam = {g["group"]: {f"{t['from']} -> {t['to']}": t["count"] for t in g["transitions"]}
               for g in d["groups"]["family"]}
        want = {}
        for c in self.sm80:
            want.setdefault(c["family"], {}).setdefault("pass -> not_supported", 0)
            want[c["family"]]["pass -> not_supported"] += 1
        want["cp.async"]["pass -> beyond_chapter"] = 1
        self.assertEqual(fam, want)
        rules = {g["group"]: g["changed"] for g in d["groups"]["rule"]}
        self.assertEqual(rules["cg_needs_cp_size_16"], 1 + sum(c["form"].endswith("cp_size_8") for c in self.sm80))
        self.assertEqual({g["group"] for g in d["groups"]["target"]}, {"sm_80", "sm_90a"})
        self.assertEqual(d["groups"]["ptx"][0]["group"], "7.0")  # sorted as versions
        tr = next(t for g in d["groups"]["family"] if g["group"] == "cp.async" for t in g["transitions"]
                  if t["to"] == "not_supported")
        self.assertLessEqual(len(tr["examples"]), 2)
        ex = tr["examples"][0]
        self.assertEqual((ex["a"]["class"], ex["b"]["class"], ex["b"]["message"]), ("pass", "not_supported", DROPPED))
        beyond = next(t for g in d["groups"]["family"] for t in g["transitions"] if t["to"] == "beyond_chapter")
        self.assertEqual(beyond["examples"][0]["b"]["diagnostics"], ["warning (instruction): new in 9.2"])
        self.assertIn("== per family ==", out)
        self.assertIn(f"pass -> not_supported: {len(self.sm80)}", out)
        self.assertIn(f"B not_supported: {DROPPED}", out)
        with open(md, encoding="utf-8") as f:
            text = f.read()
        self.assertIn("### Per rule", text)
        self.assertIn("pass → beyond_chapter | 1 |", text)

    def test_family_filter_and_exit_codes(self):
        code, out, _ = cli("diff", self.a, self.b, "--manifest", MANIFEST, "--family", "cp.async.bulk")
        self.assertEqual(code, 1)
        self.assertNotIn("beyond_chapter", out)
        self.assertEqual(cli("diff", self.a, self.a, "--manifest", MANIFEST)[0], 0)
        code, _, err = cli("diff", self.a, self.b, "--manifest", MANIFEST, "--family", "nope")
        self.assertEqual(code, 2)
        self.assertIn("--family nope", err)
        code, _, err = cli("diff", self.a, os.path.join(self.tmp, "missing"), "--manifest", MANIFEST)
        self.assertEqual(code, 2)
        with open(os.path.join(self.b, "results.json"), "a", encoding="utf-8") as f:
            f.write("x")
        code, _, err = cli("diff", self.a, self.b, "--manifest", MANIFEST)
        self.assertEqual(code, 3, err)
        self.assertIn("results.json:", err)


class ReportWithTwoToolchains(TempDirTest):
    def test_columns_per_toolchain_and_differences(self):
        a, b, da, _ = two_toolchains(self.tmp)
        out, rep, _ = build_report(self.tmp, a, b)  # two toolchains: not a key conflict
        labels = [c["label"] for c in rep["columns"]]
        self.assertIn("compile sm_80 [13.0]", labels)
        self.assertIn("compile sm_80 [13.5]", labels)
        self.assertEqual(rep["summary"]["compile:sm_80@13.5"]["not_supported"],
                         sum(c["target"] == "sm_80" for c in da["cases"]))
        self.assertEqual(len(rep["toolchain_diffs"]), 1)
        d = rep["toolchain_diffs"][0]
        self.assertEqual((d["a"]["toolchain"], d["b"]["toolchain"]), ("13.0", "13.5"))
        self.assertIn("pass -> beyond_chapter", d["transitions"])
        with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
            self.assertIn('id="toolchain-diffs"', f.read())
        self.assertEqual(sorted(r["toolchain"] for r in rep["regressions"]), ["13.0", "13.5"])
        # two runs of one toolchain still conflict on their keys
        again = dict(da, run_id="2026-11-25T10-00-00.000Z-compile-123456", version=2)
        again_dir = os.path.dirname(write_run(os.path.join(self.tmp, "again"), again))
        code, _, err = cli("report", a, again_dir, "--manifest", MANIFEST, "--out", os.path.join(self.tmp, "r2"))
        self.assertEqual(code, 3)
        self.assertIn("pass --prefer-later", err)


if __name__ == "__main__":
    unittest.main()
