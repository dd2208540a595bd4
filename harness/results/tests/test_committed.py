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

# the Hopper devices every device-dependent baseline exists for (results/baselines/README.md)
DEVICES = ("NVIDIA H100 80GB HBM3", "NVIDIA H200")


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
                                 baseline.relative_path(header["tier"], header["toolchain"], header["sm"],
                                                        header["device"]),
                                 "a baseline lives where gate --update writes it: <tier>/<toolchain>.json.gz, or "
                                 "<tier>/<sm>/<device>-r<driver branch>/<toolchain>.json.gz for a device")
                self.assertTrue(cases, "an empty baseline gates nothing")

    def test_toolchain_baselines(self):
        """One compile baseline per toolchain of the matrix (ptxas and nvJitLink verdicts of every case of the
        manifest), and the run tier's (13.0, 13.5, LLVM 22's kernels) and the driver JIT's of each device of DEVICES."""
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
        # every device-dependent baseline exists for each Hopper the suite is gated on, chosen by the device's claim
        # (baseline.choose), each written from a committed run of that device (staleness.committed_pairs finds it)
        from results.staleness import committed_pairs
        sources = dict(committed_pairs(root, os.path.join(REPO, "results")))
        for name in DEVICES:
            dev = {"name": name, "cc": "9.0", "driver_branch": "580"}
            for toolchain in ("13.0", "13.5", "llvm-22"):
                with self.subTest(device=name, run_baseline=toolchain):
                    path, header, cases = baseline.choose(root, "run", toolchain, "sm_90", dev)
                    self.assertEqual((header["tier"], header["toolchain"], header["source"]["device"]),
                                     ("run", toolchain, name))
                    with gzip.open(sources[path], "rt", encoding="utf-8") as f:
                        run = json.load(f)
                    self.assertEqual(run["device"]["name"], name, sources[path])
                    self.assertEqual(header["source"]["runs"], [run["run_id"]])
                    run_keys = {(c["id"], c["target"], c["ptx"], c["load_path"], run["device"]["sm"])
                                for c in run["cases"]}
                    self.assertLessEqual(run_keys, set(cases), "a case of the run the baseline lacks")
                    self.assertEqual({k[0] for k in set(cases) - run_keys} - explored, set(),
                                     "beyond the run, the baseline holds explored cases only")
            with self.subTest(device=name, driver_jit="13.0"):
                path, header, cases = baseline.choose(root, "compile", "13.0", "sm_90", dev)
                self.assertEqual(({k[3] for k in cases}, header["source"]["device"]), ({"driver"}, name))
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
