"""Merging: shards of one run combined, a missing shard named, key conflicts between runs."""
import json
import os
import unittest

from .common import MANIFEST, RUNS, TempDirTest, cli, raw_counts, raw_docs

RUN_ID = "2026-11-22T18-30-00Z-h100-run"
CONFLICT_KEY = ("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f16#size_4096.align_16"
                "|sm_90a|8.6|jit|sm_90")


class Shards(TempDirTest):
    def report(self, *runs, extra=()):
        out = os.path.join(self.tmp, "report")
        code, stdout, stderr = cli("report", *runs, "--manifest", MANIFEST, "--out", out, *extra)
        rep = None
        if code == 0:
            with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
                rep = json.load(f)
        return code, stdout, stderr, rep, out

    def test_all_shards_merge_into_one_run(self):
        code, _, err, rep, _ = self.report(os.path.join(RUNS, "h100"))
        self.assertEqual(code, 0, err)
        self.assertEqual(len(rep["runs"]), 1)
        self.assertEqual(rep["runs"][0]["shards"], {"count": 3, "present": [0, 1, 2], "missing": []})
        self.assertEqual(rep["missing_shards"], [])
        want = raw_counts(raw_docs(os.path.join(RUNS, "h100")))["run:sm_90"]
        got = {k: v for k, v in rep["summary"]["run:sm_90"].items() if v and k != "total"}
        self.assertEqual(got, want)

    def test_missing_shard_is_named_everywhere(self):
        code, _, err, rep, out = self.report(os.path.join(RUNS, "h100/shard-0"), os.path.join(RUNS, "h100/shard-2"))
        self.assertEqual(code, 0, err)
        self.assertEqual(rep["missing_shards"], [{"run_id": RUN_ID, "index": 1, "count": 3}])
        self.assertIn(f"run {RUN_ID}: shard index 1 of count 3 is missing", err)
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            self.assertIn(f"run `{RUN_ID}`: shard index 1 of count 3 is missing", f.read())
        with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
            self.assertIn(f'data-missing-shard="{RUN_ID}/1"', f.read())
        # the cases of the shards given are all there; none of the missing shard's
        want = raw_counts(raw_docs(os.path.join(RUNS, "h100/shard-0"), os.path.join(RUNS, "h100/shard-2")))
        self.assertEqual(rep["summary"]["run:sm_90"]["total"], sum(want["run:sm_90"].values()))

    def test_gate_refuses_a_run_with_a_missing_shard(self):
        code, _, err = cli("gate", os.path.join(RUNS, "h100/shard-0"), "--baseline",
                           os.path.join(RUNS, "..", "baselines", "sm_90.json"))
        self.assertEqual(code, 3)
        self.assertIn("shard index 1 of count 3 is missing", err)
        self.assertIn("shard index 2 of count 3 is missing", err)

    def test_same_shard_twice_is_a_conflict(self):
        copy = self.copy_run("h100/shard-0", "again")
        code, _, err, _, _ = self.report(os.path.join(RUNS, "h100/shard-0"), copy)
        self.assertEqual(code, 3)
        self.assertIn("shard index 0 given twice", err)

    def test_two_runs_with_one_run_id_are_rejected(self):
        copy = self.copy_run("compile", "again")
        code, _, err, _, _ = self.report(os.path.join(RUNS, "compile"), copy)
        self.assertEqual(code, 3)
        self.assertIn("run_id 2026-11-22T18-00-00Z-compile is used by two runs", err)

    def test_shards_that_disagree_are_rejected(self):
        copy = self.copy_run("h100/shard-1", "other")
        self.edit_json(os.path.join(copy, "results.json"), lambda d: d["shard"].update(count=4))
        code, _, err, _, _ = self.report(os.path.join(RUNS, "h100/shard-0"), copy)
        self.assertEqual(code, 3)
        self.assertIn("disagree on shard count", err)

    def test_overlapping_shards_are_rejected(self):
        copy = self.copy_run("h100/shard-1", "overlap")
        with open(os.path.join(RUNS, "h100/shard-0/results.json"), encoding="utf-8") as f:
            stolen = json.load(f)["cases"][0]
        self.edit_json(os.path.join(copy, "results.json"), lambda d: d["cases"].append(stolen))
        code, _, err, _, _ = self.report(os.path.join(RUNS, "h100/shard-0"), copy, os.path.join(RUNS, "h100/shard-2"))
        self.assertEqual(code, 3)
        self.assertIn("must not overlap", err)


class MergeVerb(TempDirTest):
    def test_merge_writes_one_document_of_all_shards(self):
        out = os.path.join(self.tmp, "merged")
        code, _, err = cli("merge", os.path.join(RUNS, "h100"), "--run-id", "h100-merged", "--out", out)
        self.assertEqual(code, 0, err)
        self.assertEqual(cli("validate", out)[0], 0)
        with open(os.path.join(out, "results.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["shard"], {"index": 0, "count": 1})
        self.assertEqual(raw_counts([doc]), raw_counts(raw_docs(os.path.join(RUNS, "h100"))))
        self.assertTrue(os.path.isfile(os.path.join(out, "junit.xml")))


class Conflicts(TempDirTest):
    def test_same_key_in_two_runs_is_a_conflict_naming_both(self):
        out = os.path.join(self.tmp, "r")
        code, _, err = cli("report", os.path.join(RUNS, "h100"), os.path.join(RUNS, "h100-rerun"),
                           "--manifest", MANIFEST, "--out", out)
        self.assertEqual(code, 3)
        self.assertIn(CONFLICT_KEY, err)
        self.assertIn(RUN_ID, err)
        self.assertIn("2026-11-23T09-00-00Z-h100-rerun", err)
        self.assertIn("--prefer-later", err)
        self.assertFalse(os.path.exists(os.path.join(out, "report.json")))

    def test_prefer_later_takes_the_later_run(self):
        out = os.path.join(self.tmp, "r")
        # the later run is given first: "later" is by finish time, not by argument order
        code, _, err = cli("report", os.path.join(RUNS, "h100-rerun"), os.path.join(RUNS, "h100"),
                           "--manifest", MANIFEST, "--out", out, "--prefer-later")
        self.assertEqual(code, 0, err)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            rep = json.load(f)
        self.assertEqual(rep["replaced"], [{"key": CONFLICT_KEY, "earlier_run": RUN_ID,
                                            "later_run": "2026-11-23T09-00-00Z-h100-rerun"}])
        # the earlier run had it as fail; the rerun's pass replaced it
        before = raw_counts(raw_docs(os.path.join(RUNS, "h100")))["run:sm_90"]
        self.assertEqual(rep["summary"]["run:sm_90"]["fail"], before["fail"] - 1)
        self.assertEqual(rep["summary"]["run:sm_90"]["pass"], before["pass"] + 1)
        self.assertEqual(rep["findings_total"], sum(g["count"] for g in rep["finding_groups"]))
        self.assertNotIn(CONFLICT_KEY, [x["key"] for g in rep["finding_groups"] for x in g["examples"]])


if __name__ == "__main__":
    unittest.main()
