"""The committed baselines and waiver file are well-formed (a malformed one would break every gate run); the
committed report is in the form `./ptxcts report --gzip` writes."""
import glob
import gzip
import json
import os
import re
import unittest

from framework.documents import baseline, waivers
from results.report.html_page import STYLESHEET

from .common import REPO


class Committed(unittest.TestCase):
    def test_baselines(self):
        root = os.path.join(REPO, "results", "baselines")
        self.assertFalse(glob.glob(os.path.join(root, "**", "*.json"), recursive=True),
                         "committed baselines are gzip-compressed (<toolchain>.json.gz)")
        paths = sorted(glob.glob(os.path.join(root, "**", "*.json.gz"), recursive=True))
        self.assertTrue(paths, "the committed baselines are under results/baselines/<tier>/[<sm>/]<toolchain>.json.gz")
        for path in paths:
            with self.subTest(path):
                if os.path.relpath(path, root).startswith("lower" + os.sep):
                    # the lowering tier's baselines hold lowering keys (harness/framework/documents/lowering.py), not classes
                    from framework.documents import lowering as keys
                    doc = keys.load_baseline(path)
                    self.assertEqual(os.path.basename(path), f"{doc['toolchain']}.json.gz")
                    self.assertTrue(doc["keys"], "an empty baseline gates nothing")
                    continue
                header, cases = baseline.load(path)
                self.assertEqual(header["version"], baseline.VERSION, "committed baselines are of the current version")
                self.assertEqual(os.path.relpath(path, root),
                                 baseline.relative_path(header["tier"], header["toolchain"], header["sm"]),
                                 "a baseline lives where gate looks for it: <tier>/[<sm>/]<toolchain>.json.gz")
                self.assertTrue(cases, "an empty baseline gates nothing")

    def test_toolchain_baselines(self):
        """One compile baseline per toolchain of the matrix (ptxas and nvJitLink verdicts of every case of the
        manifest), and the run tier's and the driver JIT's of the reference device, the H200."""
        import gzip
        root = os.path.join(REPO, "results", "baselines")
        with open(os.path.join(REPO, "generated", "manifest", "targets.json"), encoding="utf-8") as f:
            import json
            counts = json.load(f)["counts"]["total"]
        total = counts["cases_accept"] + counts["cases_reject"]
        for name in ("12.4", "12.8", "12.9", "13.0", "13.2", "13.5"):
            with self.subTest(toolchain=name):
                header, cases = baseline.load(os.path.join(root, "compile", f"{name}.json.gz"))
                self.assertEqual((header["tier"], header["toolchain"], header["sm"]), ("compile", name, None))
                self.assertEqual(sorted({k[3] for k in cases}), ["nvjitlink", "ptxas"])
                self.assertEqual(len(cases), 2 * total, "every case of the manifest, both compilers")
        with open(os.path.join(REPO, "results", "explore", "explored.jsonl"), encoding="utf-8") as f:
            explored = {json.loads(line)["id"] for line in f if line.strip()}
        # the run tier's baselines on the H200, each written from a committed run (13.0: 25,477 keys on 2026-11-29, the
        # chapter's 19,631, the PTX 9.x forms not_supported and every driver-API enum value; 13.5: the 9.x forms run)
        for name, folder in (("13.0", "2026-11-29-sm_90-h200-run-3"), ("13.5", "2026-11-29-sm_90-h200-run-13.5")):
            with self.subTest(run_baseline=name):
                header, cases = baseline.load(os.path.join(root, "run", "sm_90", f"{name}.json.gz"))
                self.assertEqual((header["tier"], header["sm"], header["toolchain"], header["source"]["device"]),
                                 ("run", "sm_90", name, "NVIDIA H200"))
                with gzip.open(os.path.join(REPO, "results", folder, "results.json.gz"), "rt", encoding="utf-8") as f:
                    run = json.load(f)
                self.assertEqual(header["source"]["runs"], [run["run_id"]])
                run_keys = {(c["id"], c["target"], c["ptx"], c["load_path"], run["device"]["sm"]) for c in run["cases"]}
                self.assertLessEqual(run_keys, set(cases), "a case of the run the baseline lacks")
                self.assertEqual({k[0] for k in set(cases) - run_keys} - explored, set(),
                                 "beyond the run, the baseline holds explored cases only")
        header, cases = baseline.load(os.path.join(root, "compile", "sm_90", "13.0.json.gz"))
        self.assertEqual(({k[3] for k in cases}, header["sm"], header["source"]["device"]),
                         ({"driver"}, "sm_90", "NVIDIA H200"))
        with gzip.open(os.path.join(root, "compile", "13.0.json.gz"), "rt", encoding="utf-8") as f:
            lines = f.read().split("\n")
        self.assertGreater(len(lines), 2 * total, "one case per line")


class CommittedReport(unittest.TestCase):
    """results/report/ as `./ptxcts report ... --out results/report --gzip` writes it: the pages and the stylesheet
    gzip-compressed (`gunzip -rk results/report` gives the browsable pages), report.md and report.json plain."""
    root = os.path.join(REPO, "results", "report")

    def test_pages_are_compressed(self):
        plain = [p for p in glob.glob(os.path.join(self.root, "**", "*"), recursive=True)
                 if p.endswith((".html", ".css"))]
        self.assertEqual(plain, [], "the committed pages are gzip-compressed (NAME.gz); an unpacked copy is ignored")
        with gzip.open(os.path.join(self.root, "report.css.gz"), "rt", encoding="utf-8") as f:
            self.assertEqual(f.read(), STYLESHEET, "the stylesheet is html_page.py's, written by the report")

    def test_every_family_page_is_there_and_linked(self):
        with open(os.path.join(self.root, "report.json"), encoding="utf-8") as f:
            slugs = sorted(fam["slug"] for fam in json.load(f)["families"])
        with gzip.open(os.path.join(self.root, "report.html.gz"), "rt", encoding="utf-8") as f:
            index = f.read()
        self.assertIn('<link rel="stylesheet" href="report.css">', index)
        self.assertEqual(sorted(set(re.findall(r'href="families/([^"]+)\.html"', index))), slugs)
        pages = sorted(os.path.basename(p)[:-len(".html.gz")]
                       for p in glob.glob(os.path.join(self.root, "families", "*.html.gz")))
        self.assertEqual(pages, slugs)
        for slug in slugs:
            with gzip.open(os.path.join(self.root, "families", f"{slug}.html.gz"), "rt", encoding="utf-8") as f:
                page = f.read()
            self.assertIn('<link rel="stylesheet" href="../report.css">', page, slug)
            self.assertIn('href="../report.html"', page, slug)
