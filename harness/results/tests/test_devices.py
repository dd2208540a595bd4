"""Two devices of one architecture (runs/h100: an H100 in 3 shards, runs/h200: an H200, both sm_90, toolchain
13.0): the report gives each device its columns and lists the cases whose class differs between them; shards of one
run stay one run; two runs of one device still conflict; gate and merge take one device at a time; diff compares
two. The expected numbers are counted from the fixtures with plain json."""
import json
import os
import re

from . import dom
from .common import FIXTURES, MANIFEST, RUNS, TempDirTest, cli, raw_docs
from .test_report import build_report, read_pages

BASELINES_V2 = os.path.join(FIXTURES, "baselines-v2")
H100, H200 = os.path.join(RUNS, "h100"), os.path.join(RUNS, "h200")
H100_NAME, H200_NAME = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
H100_COL, H200_COL = f"run:sm_90#{H100_NAME}", f"run:sm_90#{H200_NAME}"
FINDINGS = ("fail", "spec_divergence", "compile_error", "crash", "timeout")


def by_device(docs):
    """{device name: {(id, target, load_path): case}} straight from the documents."""
    out = {}
    for d in docs:
        for c in d["cases"]:
            out.setdefault(d["device"]["name"], {})[(c["id"], c["target"], c["load_path"])] = c
    return out


def raw_device_diffs(docs):
    """{(id, target, load_path): (H100 class, H200 class)} of the keys both ran with different classes, and the
    keys only one device ran, per device name."""
    dev = by_device(docs)
    a, b = dev[H100_NAME], dev[H200_NAME]
    differ = {k: (a[k]["class"], b[k]["class"]) for k in a if k in b and a[k]["class"] != b[k]["class"]}
    return differ, {H100_NAME: len(set(a) - set(b)), H200_NAME: len(set(b) - set(a))}


class TwoDevices(TempDirTest):
    def setUp(self):
        super().setUp()
        self.out, self.rep, self.stdout = build_report(self.tmp, H100, H200)
        self.docs = raw_docs(H100, H200)
        self.cols = {c["key"]: c for c in self.rep["columns"]}

    def test_each_device_is_a_column(self):
        self.assertEqual([c["key"] for c in self.rep["columns"]], [H100_COL, H200_COL])
        self.assertEqual([c["label"] for c in self.rep["columns"]], ["run sm_90 [H100 80GB HBM3]", "run sm_90 [H200]"])
        self.assertEqual([c["device"] for c in self.rep["columns"]], [H100_NAME, H200_NAME])
        self.assertEqual(self.cols[H200_COL]["devices"], [H200_NAME])
        want = {}
        for d in self.docs:
            col = f"run:sm_90#{d['device']['name']}"
            for c in d["cases"]:
                want.setdefault(col, {})[c["class"]] = want.get(col, {}).get(c["class"], 0) + 1
        got = {col: {k: v for k, v in s.items() if v and k != "total"} for col, s in self.rep["summary"].items()}
        self.assertEqual(got, want)
        self.assertEqual(set(self.rep["coverage"]), {H100_COL, H200_COL})
        # the three shards of the H100 stay one run, none missing
        self.assertEqual(self.rep["missing_shards"], [])
        self.assertEqual(sorted(r["run_id"] for r in self.rep["runs"]),
                         ["2026-11-22T18-30-00Z-h100-run", "2026-11-24T10-00-00Z-h200-run"])

    def test_findings_and_families_per_device(self):
        want = {}
        for d in self.docs:
            for c in d["cases"]:
                if c["class"] in FINDINGS:
                    col = f"run:sm_90#{d['device']['name']}"
                    want[col] = want.get(col, 0) + 1
        got = {}
        for g in self.rep["finding_groups"]:
            for col, n in g["columns"].items():
                got[col] = got.get(col, 0) + n
        self.assertEqual(got, want)
        for fam in self.rep["families"]:
            raw = {}
            for d in self.docs:
                for c in d["cases"]:
                    if c["family"] == fam["family"]:
                        cell = raw.setdefault(f"run:sm_90#{d['device']['name']}", {})
                        cell[c["class"]] = cell.get(c["class"], 0) + 1
            self.assertEqual(fam["cells"], raw, fam["family"])
        index, pages = read_pages(self.out)
        shown = dom.numbers(index, pages)
        expected = dom.expected_from_json(self.rep)
        for what in ("summary", "coverage", "families", "groups"):
            self.assertEqual(shown[what], expected[what], what)
        for page in pages:   # every family page has a column per device
            heads = [th.attrs["data-col"] for th in dom.parse(page).find_all("th", "data-col")]
            self.assertEqual(heads, [H100_COL, H200_COL])

    def test_cases_whose_class_differs_are_listed(self):
        differ, only = raw_device_diffs(self.docs)
        self.assertTrue(differ, "the fixtures must hold a difference between the devices")
        [d] = self.rep["device_diffs"]
        self.assertEqual((d["sm"], d["toolchain"], d["devices"], d["labels"]),
                         ("sm_90", "13.0", [H100_NAME, H200_NAME], ["H100 80GB HBM3", "H200"]))
        self.assertEqual(d["columns"], [H100_COL, H200_COL])
        self.assertEqual(d["differing"], len(differ))
        got = {(x["id"], x["target"], x["load_path"]): (x["classes"][H100_COL], x["classes"][H200_COL])
               for x in d["cases"]}
        self.assertEqual(got, differ)
        self.assertEqual(d["only"], {H100_COL: only[H100_NAME], H200_COL: only[H200_NAME]})
        both = len(set(by_device(self.docs)[H100_NAME]) & set(by_device(self.docs)[H200_NAME]))
        self.assertEqual(d["compared"], both)
        replays = {(c["id"], c["target"], c["load_path"]): c["replay"] for c in self.docs[-1]["cases"]}
        for x in d["cases"]:
            self.assertEqual(x["replay"], replays[(x["id"], x["target"], x["load_path"])])
            self.assertEqual(set(x["messages"]), {H100_COL, H200_COL})
            # the fixture baseline (the H100's classes) holds neither H200 class: outside it
            self.assertIsNotNone(x["baseline"])
            self.assertFalse(x["within_baseline"])

    def test_differences_shown_in_html_markdown_and_stdout(self):
        [d] = self.rep["device_diffs"]
        index, _ = read_pages(self.out)
        root = dom.parse(index)
        kpi = [n for n in root.find_all("span", "data-metric") if n.attrs["data-metric"] == "device_differences"]
        self.assertEqual([int(n.text()) for n in kpi], [d["differing"]])
        self.assertEqual(len(root.find_all("p", "data-device-warning")), 1, "a warning in the summary")
        section = [n for n in root.find_all("h2") if n.attrs.get("id") == "device-diffs"]
        self.assertEqual(len(section), 1)
        table = next(t for t in root.find_all("table") if t.attrs.get("class") == "device-diffs")
        shown = {}
        for tr in table.find_all("tr", "data-key"):
            cells = {td.attrs["data-col"]: td.find_all("span")[0].text() for td in tr.find_all("td", "data-col")}
            shown[tr.attrs["data-key"]] = (cells, tr.find_all("code", "data-replay")[0].text())
        self.assertEqual(shown, {x["key"]: (x["classes"], x["replay"]) for x in d["cases"]})
        with open(os.path.join(self.out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        self.assertIn("## Differences between devices of one architecture", md)
        for x in d["cases"]:
            self.assertIn(f"`{x['replay']}`", md)
        printed = [line for line in self.stdout.splitlines() if "DEVICES DIFFER" in line]
        self.assertEqual(len(printed), d["differing"])
        for x in d["cases"]:
            line = next(line for line in printed if f"{x['id']} [{x['target']} {x['load_path']}]" in line)
            self.assertIn(f"H100 80GB HBM3 {x['classes'][H100_COL]}, H200 {x['classes'][H200_COL]}", line)
            self.assertIn(x["replay"], line)
        self.assertIn("run sm_90 [H200]", self.stdout)

    def test_regressions_per_device(self):
        """Each device is classified apart against the baseline that claims it (baseline.choose), as `gate`
        classifies it alone: the fixture baseline claims the H100, so the H200 has none (the gate then judges it by
        the model and the record) and the H100's counts are the gate's."""
        runs = [r for r in self.rep["regressions"] if r["tier"] == "run"]
        self.assertEqual(sorted(r["device"] for r in runs), [H100_NAME, H200_NAME])
        self.assertEqual(sorted(r["device_label"] for r in runs), ["H100 80GB HBM3", "H200"])
        h200 = next(r for r in runs if r["device"] == H200_NAME)
        self.assertFalse(h200["found"])
        self.assertEqual(h200["claims"], {"name": H200_NAME, "cc": "9.0", "driver_branch": "580"})
        verdict = os.path.join(self.tmp, "gate.json")
        cli("gate", H100, "--baseline", os.path.join(BASELINES_V2, "run", "sm_90", "13.0.json"),
            "--waivers", os.path.join(FIXTURES, "waivers", "none.toml"), "--json", verdict)
        with open(verdict, encoding="utf-8") as f:
            counts = {k: v for k, v in json.load(f)["counts"].items() if v}
        self.assertEqual(next(r for r in runs if r["device"] == H100_NAME)["counts"], counts)
        index, _ = read_pages(self.out)
        self.assertIn("run tier, toolchain 13.0, sm_90 [H100 80GB HBM3]", index)
        with open(os.path.join(self.out, "report.md"), encoding="utf-8") as f:
            self.assertIn("no baseline of this device (NVIDIA H200, driver branch 580)", f.read())


class OneDevice(TempDirTest):
    def test_one_device_keeps_its_labels(self):
        _, rep, stdout = build_report(self.tmp, os.path.join(RUNS, "compile"), H100)
        run_cols = [c for c in rep["columns"] if c["tier"] == "run"]
        self.assertEqual([(c["key"], c["label"], c["device"]) for c in run_cols], [("run:sm_90", "run sm_90", None)])
        self.assertEqual(rep["device_diffs"], [])
        self.assertNotIn("DEVICES DIFFER", stdout)
        self.assertEqual([r["device_label"] for r in rep["regressions"] if r["tier"] == "run"], [None])


class MergeRules(TempDirTest):
    def test_two_runs_of_one_device_still_conflict(self):
        again = self.copy_run("h200", "h200-again")
        self.edit_json(os.path.join(again, "results.json"),
                       lambda d: d.update(run_id="2026-11-24T12-00-00Z-h200-run", finished="2026-11-24T12:09:00Z"))
        code, _, err = cli("report", H200, again, "--manifest", MANIFEST, "--baselines", "none",
                           "--out", os.path.join(self.tmp, "out"))
        self.assertEqual(code, 3, err)
        self.assertIn("2026-11-24T12-00-00Z-h200-run", err)

    def test_shards_naming_two_devices_stay_one_run(self):
        run = self.copy_run("h100")
        self.edit_json(os.path.join(run, "shard-2", "results.json"),
                       lambda d: d["device"].update(name="NVIDIA H100 PCIe"))
        _, rep, _ = build_report(self.tmp, run)
        self.assertEqual(rep["missing_shards"], [])
        self.assertEqual([r["shards"]["present"] for r in rep["runs"]], [[0, 1, 2]])
        self.assertEqual([c["key"] for c in rep["columns"]], ["run:sm_90"])

    def test_gate_and_merge_take_one_device_at_a_time(self):
        baseline = os.path.join(BASELINES_V2, "run", "sm_90", "13.0.json")
        for argv in (("gate", H100, H200, "--baseline", baseline, "--waivers", os.path.join(FIXTURES, "waivers",
                                                                                              "none.toml")),
                     ("merge", H100, H200, "--run-id", "x", "--out", os.path.join(self.tmp, "merged"))):
            code, _, err = cli(*argv)
            self.assertEqual(code, 2, (argv[0], err))
            self.assertIn(H100_NAME, err)
            self.assertIn(H200_NAME, err)
            self.assertIn("one device at a time", err)
            self.assertFalse(re.search(r"toolchain 13\.0 \(.*\) and toolchain 13\.0", err), err)

    def test_diff_compares_two_devices(self):
        code, out, err = cli("diff", H100, H200, "--manifest", MANIFEST)
        self.assertEqual(code, 1, err)
        differ, _ = raw_device_diffs(raw_docs(H100, H200))
        self.assertIn(f"{len(differ)} changed", out)

    def test_toolchain_diffs_compare_one_device(self):
        newer = self.copy_run("h200", "h200-13.5")
        self.edit_json(os.path.join(newer, "results.json"),
                       lambda d: (d.update(run_id="2026-11-24T11-00-00Z-h200-run"),
                                  d["toolchain"].update(ptxas="13.5.20", cuda_runtime="13.5")))
        _, rep, _ = build_report(self.tmp, H100, H200, newer)
        labels = [c["label"] for c in rep["columns"]]
        self.assertEqual(labels, ["run sm_90 [H100 80GB HBM3] [13.0]", "run sm_90 [H200] [13.0]",
                                  "run sm_90 [H200] [13.5]"])
        # the H200's 13.0 run against its 13.5 run (identical cases), not the H100's results mixed in
        [d] = rep["toolchain_diffs"]
        self.assertEqual((d["device"], d["device_label"]), (H200_NAME, "H200"))
        self.assertEqual((d["changed"], d["only_a"], d["only_b"]), (0, 0, 0))
        self.assertEqual([(x["toolchain"], x["differing"] > 0) for x in rep["device_diffs"]], [("13.0", True)])


if __name__ == "__main__":
    import unittest
    unittest.main()
