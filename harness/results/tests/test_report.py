"""The report: its numbers equal counts taken straight from the fixtures, and the HTML and Markdown show the
same numbers as report.json. (test_html_chromium checks the page as a browser renders it.)"""
import json
import os
import re
import unittest

from . import dom
from .common import MANIFEST, RUNS, TempDirTest, cli, raw_counts, raw_docs

FINDINGS = ("fail", "spec_divergence", "compile_error", "crash", "timeout")
VERDICTS = FINDINGS + ("pass",)


def build_report(tmp, *runs):
    out = os.path.join(tmp, "report")
    code, stdout, stderr = cli("report", *runs, "--manifest", MANIFEST, "--out", out)
    assert code == 0, stderr
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        rep = json.load(f)
    return out, rep, stdout


def forms_in_manifest(valid_only=False):
    with open(os.path.join(MANIFEST, "forms.jsonl"), encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    return [r["form"] for r in rows if not (valid_only and r["invalid_by"])]


class ReportNumbers(TempDirTest):
    runs = (os.path.join(RUNS, "compile"), os.path.join(RUNS, "h100/shard-0"), os.path.join(RUNS, "h100/shard-1"))

    def setUp(self):
        super().setUp()
        self.out, self.rep, self.stdout = build_report(self.tmp, *self.runs)
        self.docs = raw_docs(*self.runs)

    def test_counts_equal_the_fixtures(self):
        want = raw_counts(self.docs)
        got = {col: {k: v for k, v in s.items() if v and k != "total"} for col, s in self.rep["summary"].items()}
        self.assertEqual(got, want)
        for col, s in self.rep["summary"].items():
            self.assertEqual(s["total"], sum(want[col].values()))
        # per-form cells add up to the column totals, and every result is in exactly one cell
        for col in want:
            total = sum(sum(r["cells"].get(col, {}).values()) for r in self.rep["rows"])
            self.assertEqual(total, sum(want[col].values()))

    def test_coverage_follows_its_definition(self):
        forms = forms_in_manifest()
        per = {}
        for d in self.docs:
            for c in d["cases"]:
                col = f"compile:{c['target']}" if d["tier"] == "compile" else f"run:{d['device']['sm']}"
                per.setdefault((col, c["form"]), []).append(c["class"])
        for col, cov in self.rep["coverage"].items():
            exercised = [f for f in forms if any(c in VERDICTS for c in per.get((col, f), []))]
            passing = [f for f in exercised if not any(c in FINDINGS for c in per[(col, f)])]
            self.assertEqual(cov["forms"], len(forms))
            self.assertEqual((cov["exercised"], cov["passing"]), (len(exercised), len(passing)), col)
            self.assertAlmostEqual(cov["passing_pct"], round(100 * len(passing) / len(forms), 1))
            valid = forms_in_manifest(valid_only=True)
            self.assertEqual((cov["valid_forms"], cov["passing_valid"]),
                             (len(valid), len([f for f in passing if f in valid])), col)
        # the prefetch form has no case anywhere: exercised nowhere, and still in the denominator
        self.assertTrue(all(c["exercised"] < c["forms"] for c in self.rep["coverage"].values()))

    def test_findings_listed_with_replay(self):
        want = sorted((c["id"], c["class"], c["replay"]) for d in self.docs for c in d["cases"]
                      if c["class"] in FINDINGS)
        got = sorted((f["id"], f["class"], f["replay"]) for f in self.rep["findings"])
        self.assertEqual(got, want)
        self.assertTrue(want)

    def test_html_as_written_shows_the_json_numbers(self):
        with open(os.path.join(self.out, "report.html"), encoding="utf-8") as f:
            html = f.read()
        shown = dom.numbers(html)
        self.assertEqual(shown, dom.expected_from_json(self.rep))
        self.assertEqual(shown["missing_shards"], ["2026-11-22T18-30-00Z-h100-run/2"])

    def test_html_is_self_contained(self):
        with open(os.path.join(self.out, "report.html"), encoding="utf-8") as f:
            html = f.read()
        self.assertNotRegex(html, r"(?i)<script|<link|<img|<iframe|@import|url\(|src=|https?://")
        self.assertIn("<style>", html)

    def test_markdown_shows_the_json_numbers(self):
        with open(os.path.join(self.out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        section = md.split("## Summary per architecture")[1].split("\n## ")[0]
        rows = [r for r in section.strip().split("\n")[2:]]
        labels = {c["label"]: c["key"] for c in self.rep["columns"]}
        self.assertEqual(len(rows), len(labels))
        for r in rows:
            cells = [c.strip() for c in r.strip("|").split("|")]
            key = labels[cells[0]]
            counts = [int(x) for x in cells[1:1 + len(self.rep["classes"]) + 1]]
            self.assertEqual(counts, [self.rep["summary"][key][c] for c in self.rep["classes"]]
                             + [self.rep["summary"][key]["total"]])
            cov = self.rep["coverage"][key]
            self.assertEqual(cells[-3], f"{cov['exercised']}/{cov['forms']} ({cov['exercised_pct']}%)")
            self.assertEqual(cells[-2], f"{cov['passing']}/{cov['forms']} ({cov['passing_pct']}%)")
            self.assertEqual(cells[-1], f"{cov['passing_valid']}/{cov['valid_forms']} ({cov['passing_valid_pct']}%)")
        self.assertIn("shard index 2 of count 3 is missing", md)

    def test_stdout_summary_table(self):
        for col in self.rep["columns"]:
            line = next(l for l in self.stdout.split("\n") if l.startswith(col["label"] + " "))
            self.assertEqual(int(re.split(r"\s{2,}", line.strip())[-4]), self.rep["summary"][col["key"]]["total"])


class ManifestMissing(TempDirTest):
    def test_report_without_manifest_is_a_usage_error(self):
        code, _, err = cli("report", os.path.join(RUNS, "compile"), "--manifest", self.tmp, "--out",
                           os.path.join(self.tmp, "r"))
        self.assertEqual(code, 2)
        self.assertIn("./ptxcts gen", err)


if __name__ == "__main__":
    unittest.main()
