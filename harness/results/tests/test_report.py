"""The report: its numbers equal counts taken straight from the fixtures, and the HTML and Markdown show the
same numbers as report.json. (test_html_chromium checks the page as a browser renders it.)"""
import collections
import gzip
import json
import os
import re
import unittest

from . import dom
from .common import FIXTURES, MANIFEST, REPO, RUNS, TempDirTest, cli, raw_counts, raw_docs

BASELINES_V2 = os.path.join(FIXTURES, "baselines-v2")

FINDINGS = ("fail", "spec_divergence", "compile_error", "crash", "timeout")
VERDICTS = FINDINGS + ("pass",)


def build_report(tmp, *runs, extra=()):
    out = os.path.join(tmp, "report")
    code, stdout, stderr = cli("report", *runs, "--manifest", MANIFEST, "--baselines", BASELINES_V2, "--out", out,
                               *extra)
    assert code == 0, stderr
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        rep = json.load(f)
    return out, rep, stdout


def read_pages(out):
    """(index text, [family page texts])."""
    with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
        index = f.read()
    pages = []
    for name in sorted(os.listdir(os.path.join(out, "families"))):
        with open(os.path.join(out, "families", name), encoding="utf-8") as f:
            pages.append(f.read())
    return index, pages


def raw_rows(docs):
    """{form: {column: {class: n}}} and [(key, class, replay)] of the findings, straight from the documents."""
    rows, findings = {}, []
    for d in docs:
        for c in d["cases"]:
            col = f"compile:{c['target']}" if d["tier"] == "compile" else f"run:{d['device']['sm']}"
            cell = rows.setdefault(c["form"], {}).setdefault(col, {})
            cell[c["class"]] = cell.get(c["class"], 0) + 1
            if c["class"] in FINDINGS:
                sm = d["device"]["sm"] if d["device"] else "-"
                findings.append((f"{c['id']}|{c['target']}|{c['ptx']}|{c['load_path']}|{sm}", c["class"], c["replay"]))
    return rows, sorted(findings)


def accepted_forms_by_target():
    """{target: forms with a case expected to be accepted there}, read from the fixture manifest's cases/."""
    out = {}
    for name in os.listdir(os.path.join(MANIFEST, "cases")):
        with open(os.path.join(MANIFEST, "cases", name), encoding="utf-8") as f:
            for line in list(f)[1:]:
                _, form, target, _, expect, _ = line.rstrip("\n").split("\t")
                if expect == "accept":
                    out.setdefault(target, set()).add(form)
    return out


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
        # per-family cells add up to the column totals, and every result is in exactly one cell
        for col in want:
            total = sum(sum(f["cells"].get(col, {}).values()) for f in self.rep["families"])
            self.assertEqual(total, sum(want[col].values()))

    def test_coverage_follows_its_definition(self):
        forms = forms_in_manifest()
        accepted = accepted_forms_by_target()
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
            targets = next(c["targets"] for c in self.rep["columns"] if c["key"] == col)
            valid = set().union(*(accepted.get(t, set()) for t in targets))
            self.assertEqual((cov["valid_forms"], cov["passing_valid"]),
                             (len(valid), len([f for f in passing if f in valid])), col)
        # the prefetch form has no case anywhere: exercised nowhere, and still in the denominator
        self.assertTrue(all(c["exercised"] < c["forms"] for c in self.rep["coverage"].values()))

    def test_findings_grouped_with_replay(self):
        """One group per finding; the counts add up to every finding of the fixtures; each group's examples
        carry their replay commands; the family pages list every finding with its replay."""
        _, want = raw_rows(self.docs)
        self.assertEqual(sum(g["count"] for g in self.rep["finding_groups"]), len(want))
        self.assertEqual(self.rep["findings_total"], len(want))
        replays = {r for _, _, r in want}
        for g in self.rep["finding_groups"]:
            self.assertTrue(g["examples"])
            self.assertTrue(all(x["replay"] in replays for x in g["examples"]))
            self.assertEqual(sum(g["columns"].values()), g["count"])
        index, pages = read_pages(self.out)
        self.assertEqual(dom.numbers(index, pages)["findings"], want)

    def test_html_as_written_shows_the_json_numbers(self):
        index, pages = read_pages(self.out)
        shown = dom.numbers(index, pages)
        rows, findings = raw_rows(self.docs)
        self.assertEqual(shown, dom.expected_from_json(self.rep, rows, findings))
        self.assertEqual(shown["missing_shards"], ["2026-11-22T18-30-00Z-h100-run/2"])

    def test_html_is_self_contained(self):
        """Nothing from outside the report's folder: the one resource a page loads is the report's own stylesheet."""
        index, pages = read_pages(self.out)
        with open(os.path.join(self.out, "report.css"), encoding="utf-8") as f:
            css = f.read()
        self.assertIn(".c-pass{", css)
        self.assertNotRegex(css, r"(?i)@import|url\(|https?://")
        for html, href in [(index, "report.css")] + [(p, "../report.css") for p in pages]:
            self.assertEqual(re.findall(r"(?i)<link[^>]*>", html), [f'<link rel="stylesheet" href="{href}">'])
            self.assertNotRegex(html, r"(?i)<script|<img|<iframe|<style|@import|url\(|src=|https?://")

    def test_markdown_shows_the_json_numbers(self):
        with open(os.path.join(self.out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        section = md.split("## Coverage per architecture")[1].split("\n## ")[0]
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
            pct = "n/a" if cov["passing_valid_pct"] is None else f"{cov['passing_valid_pct']}%"
            self.assertEqual(cells[-1], f"{cov['passing_valid']}/{cov['valid_forms']} ({pct})")
        self.assertIn("shard index 2 of count 3 is missing", md)

    def test_stdout_summary_table(self):
        for col in self.rep["columns"]:
            line = next(l for l in self.stdout.split("\n") if l.startswith(col["label"] + " "))
            self.assertEqual(int(re.split(r"\s{2,}", line.strip())[-4]), self.rep["summary"][col["key"]]["total"])


class Denominator(TempDirTest):
    def test_sm75_counts_only_cases_expected_to_assemble(self):
        """Nothing is expected to be accepted at sm_75: its valid-passing denominator is 0, though the forms'
        cases there pass (ptxas rejects them, as it should)."""
        from framework.documents import write_run
        with open(os.path.join(RUNS, "compile", "results.json"), encoding="utf-8") as f:
            doc = json.load(f)
        forms = {c["form"]: c for c in doc["cases"]}
        doc["cases"] = [dict(c, id=f"{form}@sm_75.ptx70", target="sm_75", ptx="7.0", **{"class": "pass"})
                        for form, c in forms.items()]
        run = os.path.dirname(write_run(os.path.join(self.tmp, "sm75"), doc))
        out, rep, stdout = build_report(self.tmp, run)
        cov = rep["coverage"]["compile:sm_75"]
        self.assertEqual(cov["passing"], len(forms))
        self.assertEqual((cov["valid_forms"], cov["passing_valid"], cov["passing_valid_pct"]), (0, 0, None))
        line = next(l for l in stdout.split("\n") if l.startswith("compile sm_75 "))
        self.assertTrue(line.rstrip().endswith("0/0 (n/a)"), line)


class GroupedAndSmall(TempDirTest):
    """Thousands of findings with a few causes: one row per cause, and the index page stays small."""

    def test_grouped_findings_and_page_size(self):
        from framework.documents import write_run
        with open(os.path.join(RUNS, "h100", "shard-0", "results.json"), encoding="utf-8") as f:
            doc = json.load(f)
        base = doc["cases"][0]
        note = "a long reviewed note that repeats on every case of its finding. " * 20
        cases = []
        for i in range(3000):
            cls, msg, details = ("crash", f"kernel trapped at 0x{i:x}: illegal address (block {i})", {})
            if i % 3 == 1:
                cls, msg, details = "spec_divergence", f"matches policy p=alt on element {i}; {note}", {"matched_policy": "p=alt"}
            elif i % 3 == 2:
                cls, msg = "fail", f"element {i} expected 0x{i:x}, got 0x0"
            cases.append(dict(base, id=f"{base['form']}#v{i}", **{"class": cls}, message=msg, details=details,
                              replay=f"./ptxcts run --case '{base['form']}#v{i}' --load-path cubin --seed 1"))
        doc.update(cases=cases, shard={"index": 0, "count": 1}, run_id="big-run")
        run = os.path.dirname(write_run(os.path.join(self.tmp, "big"), doc))
        out, rep, _ = build_report(self.tmp, run)
        groups = {(g["class"], g["count"]) for g in rep["finding_groups"]}
        self.assertEqual(groups, {("crash", 1000), ("spec_divergence", 1000), ("fail", 1000)})
        self.assertEqual([g["unexplained"] for g in rep["finding_groups"]], [True, True, False])
        self.assertTrue(all(len(g["examples"]) == 3 for g in rep["finding_groups"]))
        size = os.path.getsize(os.path.join(out, "report.html"))
        self.assertLess(size, 100_000, "the index page lists groups, not every finding")
        with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
            html = f.read()
        self.assertEqual(html.count("matches policy p=alt on element"), 1, "a long message appears once, in its group")
        self.assertLess(html.index('id="unexplained"'), html.index('id="coverage"'), "the summary leads")
        for anchor in ("regressions", "unexplained", "coverage", "pictures", "finding-groups-sec", "families-sec"):
            self.assertIn(f'href="#{anchor}"', html)
        self.assertIn('<svg id="heatmap"', html)
        self.assertIn('<svg id="findings-chart"', html)
        fam = next(f["slug"] for f in rep["families"] if f["family"] == base["family"])
        self.assertIn(f'href="families/{fam}.html"', html)
        with open(os.path.join(out, "families", f"{fam}.html"), encoding="utf-8") as f:
            self.assertEqual(f.read().count("data-key="), 3000, "the family page lists every finding")


class Compressed(TempDirTest):
    """--gzip, the committed report's form: the same pages and stylesheet gzip-compressed (NAME.gz), report.md and
    report.json plain, and one form of each page in the folder (a report of the other form leaves none behind)."""
    def files(self, out):
        return sorted(os.path.relpath(os.path.join(d, n), out) for d, _, names in os.walk(out) for n in names)

    def test_gzip_writes_the_same_pages_compressed(self):
        runs = (os.path.join(RUNS, "compile"), os.path.join(RUNS, "h100/shard-0"), os.path.join(RUNS, "h100/shard-1"))
        plain, _, _ = build_report(self.tmp, *runs)
        packed = os.path.join(self.tmp, "packed")
        code, stdout, err = cli("report", *runs, "--manifest", MANIFEST, "--baselines", BASELINES_V2, "--out",
                                packed, "--gzip")
        self.assertEqual(code, 0, err)
        self.assertIn("report.html.gz", stdout)
        names = self.files(plain)
        self.assertIn("report.css", names)
        self.assertEqual(self.files(packed),
                         sorted(n + ".gz" if n.endswith((".html", ".css")) else n for n in names))
        for name in names:
            with open(os.path.join(plain, name), "rb") as f:
                want = f.read()
            if name.endswith((".html", ".css")):
                with open(os.path.join(packed, name + ".gz"), "rb") as f:
                    raw = f.read()
                self.assertEqual(raw[4:8], b"\0\0\0\0", f"{name}.gz: no timestamp in the gzip header")
                self.assertEqual(gzip.decompress(raw), want, name)
            else:
                with open(os.path.join(packed, name), "rb") as f:
                    self.assertEqual(f.read(), want, name)
        # the other form over the same folder: one form of each page remains
        code, _, err = cli("report", *runs, "--manifest", MANIFEST, "--baselines", BASELINES_V2, "--out", plain,
                           "--gzip")
        self.assertEqual(code, 0, err)
        self.assertEqual(self.files(plain), self.files(packed))
        code, _, err = cli("report", *runs, "--manifest", MANIFEST, "--baselines", BASELINES_V2, "--out", packed)
        self.assertEqual(code, 0, err)
        self.assertEqual(self.files(packed), names)


EXPLORATION = os.path.join(REPO, "results", "explore", "2026-11-23T16-02-56.738Z-sm_90-explore-1247")


def report_of_compile_fixture(tmp, *extra):
    """./ptxcts report of the compile fixture into tmp/r with these extra options: (exit code, stdout, stderr)."""
    return cli("report", os.path.join(RUNS, "compile"), "--manifest", MANIFEST, "--out", os.path.join(tmp, "r"),
               *extra)


def check_bad_inputs(test, option, missing, bad_arg, bad_file, text, fragment):
    """option naming a path that does not exist: exit 2 naming the option; naming bad_arg, where bad_file holds
    text (a malformed document): exit 3 naming fragment (the field at fault)."""
    code, _, err = report_of_compile_fixture(test.tmp, option, missing)
    test.assertEqual(code, 2)
    test.assertIn(option, err)
    os.makedirs(os.path.dirname(bad_file), exist_ok=True)
    with open(bad_file, "w", encoding="utf-8") as f:
        f.write(text)
    code, _, err = report_of_compile_fixture(test.tmp, option, bad_arg)
    test.assertEqual(code, 3)
    test.assertIn(fragment, err)


class Explorations(TempDirTest):
    """--explore DIR: the exploration's numbers and coverage as its explore.json states them, its picture inline;
    a folder that is not an exploration is refused (2), a malformed explore.json is an input error (3)."""
    def test_exploration_section(self):
        with gzip.open(os.path.join(EXPLORATION, "explore.json.gz"), "rt", encoding="utf-8") as f:
            doc = json.load(f)
        out, rep, _ = build_report(self.tmp, os.path.join(RUNS, "compile"), extra=("--explore", EXPLORATION))
        (e,) = rep["explorations"]
        self.assertEqual((e["id"], e["cases_run"], e["findings"]), (doc["id"], doc["cases_run"], len(doc["findings"])))
        self.assertNotIn("svg", e, "report.json keeps the numbers, not the picture")
        index, _ = read_pages(out)
        self.assertIn('href="#explorations"', index)
        self.assertIn(f'<span data-metric="explore-cases">{doc["cases_run"]}</span>', index)
        for param, c in doc["coverage"].items():
            self.assertIn(f'data-explore-param="{param}">{c["reached"]}</td><td>{c["of"]}</td>', index)
        with open(os.path.join(EXPLORATION, "coverage.svg"), encoding="utf-8") as f:
            svg = f.read()
        self.assertIn(svg[svg.index("<svg"):][:200], index, "the coverage picture inline")
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            self.assertIn(f"## Exploration {doc['id']}", f.read())

    def test_bad_folders(self):
        bad = os.path.join(self.tmp, "bad")
        check_bad_inputs(self, "--explore", os.path.join(self.tmp, "nowhere"), bad, os.path.join(bad, "explore.json"),
                         '{"schema": "ptxcts-explore", "id": "x"}', "explore.json: cases_run:")


SELFTEST = os.path.join(REPO, "results", "selftest", "selftest-h100.json.gz")


class SelfTests(TempDirTest):
    """--selftest FILE: the score per fault kind and family as selftest.json states it, with the device it came
    from; a missing file is refused (2), a document that is not a self-test's is an input error (3)."""
    def test_selftest_section(self):
        with gzip.open(SELFTEST, "rt", encoding="utf-8") as f:
            doc = json.load(f)
        out, rep, _ = build_report(self.tmp, os.path.join(RUNS, "compile"), extra=("--selftest", SELFTEST))
        (st,) = rep["selftests"]
        self.assertEqual(st["device"], doc["device"])
        self.assertEqual(len(st["rows"]), sum(len(k["families"]) for k in doc["kinds"].values()))
        index, _ = read_pages(out)
        self.assertIn('href="#selftests"', index)
        for kind, k in doc["kinds"].items():
            for fam, r in k["families"].items():
                self.assertIn(f'data-selftest="{kind}/{fam}">{r["caught"]}</td>', index)
        holes = sum(r["holes"] for k in doc["kinds"].values() for r in k["families"].values())
        self.assertIn(f'<span data-metric="selftest-holes">{holes}</span>', index)
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            self.assertIn(f"## Self-test: faults planted and caught ({doc['device']})", f.read())

    def test_bad_files(self):
        bad = os.path.join(self.tmp, "selftest.json")
        check_bad_inputs(self, "--selftest", os.path.join(self.tmp, "nowhere.json"), bad, bad,
                         '{"schema": "ptxcts-selftest", "version": 1, "kinds": {"redop": {"families": {"x": {"planted": 1}}}}}',
                         "kinds.redop.families.x")


WHOLE = os.path.join(REPO, "results", "2026-12-07-sm_90-h100-frontend-whole")


class WholeKernels(TempDirTest):
    """--whole RESULTS: a front-end's whole kernels on silicon as whole-run recorded them (head, records, device),
    per template and class, every kernel that did not pass named; a missing path is refused (2), a file that is not
    a whole-run's is an input error (3)."""
    def test_whole_kernel_section(self):
        dsl = os.path.join(WHOLE, "results-cute-dsl-4.8.1.jsonl.gz")
        out, rep, _ = build_report(self.tmp, os.path.join(RUNS, "compile"),
                                   extra=("--whole", os.path.join(WHOLE, "results-triton-3.9.0.jsonl.gz"),
                                          "--whole", dsl))
        triton, cute = rep["wholes"]
        self.assertEqual((triton["kernels"], triton["classes"]), (176, {"pass": 176}))
        self.assertEqual(triton["not_passing"], [])
        self.assertIn("H100", triton["device"])
        with gzip.open(dsl, "rt", encoding="utf-8") as f:
            records = [json.loads(x) for x in f if '"class"' in x]
        self.assertEqual(cute["classes"], dict(collections.Counter(r["class"] for r in records)))
        self.assertEqual(cute["classes"].get("spec_divergence"), 2)   # two refusals a reviewed finding covers
        self.assertEqual(cute["not_passing"], [])
        index, _ = read_pages(out)
        self.assertIn('href="#wholes"', index)
        self.assertIn('data-whole-cell="triton/tma_load/pass">40</td>', index)
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("## The front-ends' whole kernels on silicon: Triton 3.9.0 on NVIDIA H100", md)

    def test_every_kernel_that_did_not_pass_is_named(self):
        # the committed DSL record with one kernel turned into a crash, as the first H100 run had 133
        with gzip.open(os.path.join(WHOLE, "results-cute-dsl-4.8.1.jsonl.gz"), "rt", encoding="utf-8") as f:
            lines = [json.loads(x) for x in f]
        crashed = next(r for r in lines if r.get("class") == "pass" and r.get("template") == "tensor_load")
        crashed.update({"class": "crash", "message": "cuCtxSynchronize: CUDA_ERROR_ILLEGAL_INSTRUCTION"})
        path = os.path.join(self.tmp, "whole-crash.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(json.dumps(r) + "\n" for r in lines))
        out, rep, _ = build_report(self.tmp, os.path.join(RUNS, "compile"), extra=("--whole", path))
        (cute,) = rep["wholes"]
        self.assertEqual(cute["classes"]["crash"], 1)
        self.assertEqual([(n["class"], n["form"]) for n in cute["not_passing"]], [("crash", crashed["form"])])
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn(f"* crash: `{crashed['form']}`", md)

    def test_bad_files(self):
        bad = os.path.join(self.tmp, "whole", "results.jsonl")
        check_bad_inputs(self, "--whole", os.path.join(self.tmp, "nowhere"), os.path.dirname(bad), bad,
                         '{"frontend": "triton", "compiler": "T", "ptxas": "1", "target": "sm_90a", "ptx": "8.6"}\n'
                         '{"form": "f", "class": "fine"}\n', "results.jsonl:2: class:")


class ManifestMissing(TempDirTest):
    def test_report_without_manifest_is_a_usage_error(self):
        code, _, err = cli("report", os.path.join(RUNS, "compile"), "--manifest", self.tmp, "--out",
                           os.path.join(self.tmp, "r"))
        self.assertEqual(code, 2)
        self.assertIn("./ptxcts gen", err)


if __name__ == "__main__":
    unittest.main()
