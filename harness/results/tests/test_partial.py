"""Partial runs (schema `partial`), baselines chosen by tier + toolchain (+ device), the migrated layout, and
gate --update refusing to shrink a baseline from a filtered run."""
import json
import os
import shutil
import unittest

from framework.documents import mark_partial, schema, write_run
from framework.documents.errors import InputError, UsageError

from .common import MANIFEST, RUNS, WAIVERS, TempDirTest, cli
from .test_report import BASELINES_V2, build_report


def compile_doc():
    with open(os.path.join(RUNS, "compile", "results.json"), encoding="utf-8") as f:
        return json.load(f)


def gate(run, *extra, baselines=None):
    """Gate against a copy of the v2 fixture baselines laid out as results/baselines (PTXCTS_ROOT = a temp repo)."""
    return cli("gate", run, "--waivers", os.path.join(WAIVERS, "none.toml"), *extra)


class RepoRoot(TempDirTest):
    """A temporary repository root whose results/baselines is the v2 fixture layout."""

    def setUp(self):
        super().setUp()
        shutil.copytree(BASELINES_V2, os.path.join(self.tmp, "results", "baselines"))
        old = os.environ.get("PTXCTS_ROOT")
        os.environ["PTXCTS_ROOT"] = self.tmp
        self.addCleanup(lambda: os.environ.__setitem__("PTXCTS_ROOT", old) if old else os.environ.pop("PTXCTS_ROOT"))

    def write(self, doc, name="run"):
        return os.path.dirname(write_run(os.path.join(self.tmp, name), doc))


class Partial(RepoRoot):
    def test_schema(self):
        doc = mark_partial(compile_doc(), "interrupted by SIGINT", done=3, total=40)
        doc["version"] = 2
        schema.validate(doc)
        with self.assertRaises(InputError) as e:
            schema.validate(dict(doc, version=1))
        self.assertIn("partial", str(e.exception))
        with self.assertRaises(InputError) as e:
            schema.validate(dict(doc, partial={"reason": "x", "done": 5, "total": 4}))
        self.assertIn("done 5 of total 4", str(e.exception))
        with self.assertRaises(UsageError):
            mark_partial(compile_doc(), "", 1, 2)

    def test_timing(self):
        t = {"load_path": "cubin", "target": "sm_90", "cases": 968, "workers": 12, "batch_s": 40.5, "rerun_alone": 3,
             "rerun_s": 2.0, "traps": 0, "trap_s": 0}
        doc = dict(compile_doc(), version=2, timing=[t])
        schema.validate(doc)
        for bad, field in (([dict(t, cases=-1)], "timing[0].cases"), ([dict(t, extra=1)], "timing[0].extra"),
                           ([{k: v for k, v in t.items() if k != "batch_s"}], "timing[0]"), (t, "timing")):
            with self.assertRaises(InputError) as e:
                schema.validate(dict(doc, timing=bad))
            self.assertIn(field, str(e.exception))
        with self.assertRaises(InputError) as e:
            schema.validate(dict(doc, version=1))
        self.assertIn("timing", str(e.exception))

    def test_timing_of_a_parallel_trap_phase(self):
        t = {"load_path": "jit", "target": "sm_90", "cases": 4403, "workers": 4, "batch_s": 4.8, "rerun_alone": 0,
             "rerun_s": 0, "traps": 38, "trap_s": 2.5, "trap_workers": 8, "trap_rerun_alone": 13, "trap_rerun_s": 1.5}
        doc = dict(compile_doc(), version=2, timing=[t])
        schema.validate(doc)
        for bad, field in ((dict(t, trap_workers=-1), "timing[0].trap_workers"),
                           (dict(t, trap_rerun_s="1"), "timing[0].trap_rerun_s")):
            with self.assertRaises(InputError) as e:
                schema.validate(dict(doc, timing=[bad]))
            self.assertIn(field, str(e.exception))

    def test_timing_of_overlapped_phases(self):
        # The trap phase of the cubin batch began while the calm phases ran (Schedule, harness/run).
        t = {"load_path": "cubin", "target": "sm_90", "cases": 4444, "workers": 8, "batch_s": 2.2, "rerun_alone": 1,
             "rerun_s": 0.4, "traps": 38, "trap_s": 10.4, "trap_workers": 8, "trap_rerun_alone": 6,
             "trap_rerun_s": 1.0, "calm_at_s": 0, "trap_at_s": 0.1}
        doc = dict(compile_doc(), version=2, timing=[t])
        schema.validate(doc)
        for bad, field in ((dict(t, calm_at_s=-0.5), "timing[0].calm_at_s"),
                           (dict(t, trap_at_s="0.1"), "timing[0].trap_at_s"),
                           (dict(t, trap_at_s=True), "timing[0].trap_at_s")):
            with self.assertRaises(InputError) as e:
                schema.validate(dict(doc, timing=[bad]))
            self.assertIn(field, str(e.exception))

    def test_report_and_gate_show_it(self):
        run = self.write(mark_partial(compile_doc(), "interrupted by SIGINT", done=3, total=40))
        out, rep, _ = build_report(self.tmp, run)
        self.assertEqual([(p["reason"], p["done"], p["total"]) for p in rep["partial_runs"]],
                         [("interrupted by SIGINT", 3, 40)])
        with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
            self.assertIn("interrupted by SIGINT (3 of 40 cases)", f.read())
        code, _, err = gate(run)
        self.assertEqual(code, 3, err)
        self.assertIn("is partial: interrupted by SIGINT (3 of 40 cases judged)", err)
        code, out_, err = gate(run, "--partial")
        self.assertIn("WARNING (--partial)", out_)
        self.assertIn(code, (0, 1))


class BaselineSelection(RepoRoot):
    def test_picked_by_toolchain_name(self):
        # no toolchain.name: the name is ptxas's major.minor (13.0.88 -> 13.0): compile/13.0.json
        code, out, err = gate(os.path.join(RUNS, "compile"))
        self.assertEqual(code, 1, err)  # the fixture baseline has one regression
        self.assertIn(os.path.join("baselines", "compile", "13.0.json"), out)
        code, out, err = gate(os.path.join(RUNS, "h100"))
        self.assertIn(os.path.join("baselines", "run", "sm_90", "13.0.json"), out)

    def test_a_toolchain_without_baseline_is_a_usage_error(self):
        doc = compile_doc()
        doc["version"] = 2
        doc["toolchain"].update(name="13.5", ptxas="13.5.37")
        run = self.write(doc)
        code, _, err = gate(run)
        self.assertEqual(code, 2, err)
        self.assertIn(os.path.join("baselines", "compile", "13.5.json"), err)
        self.assertIn("no baseline for the compile tier, toolchain 13.5", err)
        self.assertIn("--update", err)
        code, _, err = gate(run, "--update")  # creating it is the way out
        self.assertEqual(code, 0, err)
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "results", "baselines", "compile", "13.5.json.gz")),
                        "a new baseline is written gzip-compressed")
        self.assertEqual(gate(run)[0], 0)

    def test_migrated_version_1_still_read(self):
        from .common import BASELINES
        code, out, _ = cli("gate", os.path.join(RUNS, "compile"), "--baseline", os.path.join(BASELINES, "compile.json"),
                           "--waivers", os.path.join(WAIVERS, "none.toml"))
        self.assertEqual(code, 1)
        self.assertIn("REGRESSION", out)


class UpdateRefusal(RepoRoot):
    def test_filtered_run_does_not_shrink_the_baseline(self):
        doc = compile_doc()
        doc["cases"] = [c for c in doc["cases"] if c["family"] == "cp.async"]  # like compile --family cp.async
        run = self.write(doc)
        path = os.path.join(self.tmp, "results", "baselines", "compile", "13.0.json")
        with open(path, encoding="utf-8") as f:
            before = f.read()
        code, _, err = gate(run, "--update")
        self.assertEqual(code, 2, err)
        self.assertIn("--update would drop", err)
        self.assertIn("--partial", err)
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), before, "the refused update wrote nothing")
        code, _, err = gate(run, "--update", "--partial")
        self.assertEqual(code, 0, err)
        with open(path, encoding="utf-8") as f:
            after = json.load(f)["cases"]
        self.assertEqual(len(after), len(json.loads(before)["cases"]), "--partial keeps the other cases")


if __name__ == "__main__":
    unittest.main()


class ReportCountsAsTheGate(RepoRoot):
    """The report's regressions against a baseline are the gate's: a missing case is a regression unless the run
    is partial (report --partial RUN_ID, as gate --partial), and --device-columns names the device's column."""

    def filtered_compile(self):
        doc = compile_doc()
        doc["cases"] = doc["cases"][:-1]   # one baseline case not run, as a family filter leaves it
        return self.write(doc, "filtered"), doc["run_id"]

    def regressions(self, rep):
        return next(r for r in rep["regressions"] if r["tier"] == "compile")

    def test_a_missing_case_is_a_regression_in_the_report_as_in_the_gate(self):
        run, _ = self.filtered_compile()
        _, rep, _ = build_report(self.tmp, run)
        verdict = os.path.join(self.tmp, "gate.json")
        code, out, err = gate(run, "--json", verdict)
        self.assertEqual(code, 1, out + err)
        with open(verdict, encoding="utf-8") as f:
            v = json.load(f)
        r = self.regressions(rep)
        self.assertEqual(r["regressions"], len(v["regressions"]))
        self.assertEqual(r["counts"], {k: n for k, n in v["counts"].items() if n})

    def test_a_partial_run_counts_not_run_as_gate_partial_does(self):
        run, run_id = self.filtered_compile()
        _, rep, _ = build_report(self.tmp, run, extra=("--partial", run_id))
        verdict = os.path.join(self.tmp, "gate.json")
        gate(run, "--partial", "--json", verdict)
        with open(verdict, encoding="utf-8") as f:
            v = json.load(f)
        r = self.regressions(rep)
        self.assertTrue(r["partial"])
        self.assertEqual(r["counts"], {k: n for k, n in v["counts"].items() if n})
        self.assertEqual(r["regressions"], len(v["regressions"]))
        self.assertEqual(r["counts"].get("not_run"), 1)

    def test_partial_names_a_run_of_the_report(self):
        run, _ = self.filtered_compile()
        code, _, err = cli("report", run, "--manifest", MANIFEST, "--baselines", BASELINES_V2, "--partial", "no-such-run",
                           "--out", os.path.join(self.tmp, "r"))
        self.assertEqual(code, 2, err)
        self.assertIn("--partial no-such-run", err)

    def test_device_columns_name_the_device_of_a_lone_architecture(self):
        _, rep, _ = build_report(self.tmp, os.path.join(RUNS, "h100"), extra=("--device-columns",))
        run_cols = [c for c in rep["columns"] if c["tier"] == "run"]
        self.assertEqual([c["label"] for c in run_cols], ["run sm_90 [H100 80GB HBM3]"])
