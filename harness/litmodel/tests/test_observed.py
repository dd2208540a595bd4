"""`litmus unseen` and `litmus triage` (observed.py) on the committed H100 run of 2026-12-06 (tuned stress): the
baseline of allowed outcomes never observed is that run's; a run that loses one is reported (exit 1 only with
--strict), one that gains one says so; the triage file has a line per survivor, and `--again` triages them by
today's rules with the evidence of the run's tests; `table` ranks a run's environment table again from every kill
it recorded; malformed input exits 3."""
import glob
import gzip
import json
import os
import shutil
import tempfile
import unittest

from litmodel import observed

RUN = os.path.join(observed.ROOT, "results", "2026-12-06-sm_90-h100-litmus-tuned")
GAPS = os.path.join(observed.ROOT, "results", "2026-12-07-sm_90-h100-litmus-gaps")
MEET = os.path.join(observed.ROOT, "results", "2026-12-07-sm_90-h100-litmus-meet")


def copy_run(case, files):
    """A scratch folder holding the committed run's files (glob `files`), removed after the test."""
    case.dir = tempfile.mkdtemp(prefix="litobs-")
    case.addCleanup(shutil.rmtree, case.dir, True)
    for f in glob.glob(files):
        shutil.copy(f, case.dir)


class Unseen(unittest.TestCase):
    def setUp(self):
        copy_run(self, os.path.join(RUN, "*-tuned.*"))

    def rewrite_hist(self, test, add=None, drop=None):
        path = glob.glob(os.path.join(self.dir, "histograms*.jsonl.gz"))[0]
        with gzip.open(path, "rt") as f:
            rows = [json.loads(l) for l in f]
        for h in rows:
            if h["test"] == test:
                if add:
                    h["outcomes"][add] = [1, "allowed"]
                    h["unseen_allowed"].remove(add)
                if drop:
                    del h["outcomes"][drop]
                    h["unseen_allowed"].append(drop)
        with gzip.open(path, "wt") as f:
            f.write("".join(json.dumps(h) + "\n" for h in rows))

    def run_verb(self, *args):
        from contextlib import redirect_stdout
        import io
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = observed.main(list(args))
        return rc, buf.getvalue()

    def test_the_committed_baseline_is_that_run(self):
        rc, out = self.run_verb("unseen", self.dir)
        self.assertEqual(rc, 0, out)
        self.assertIn("19 in this run, 19 in the baseline", out)
        self.assertNotIn("no longer observed", out)

    def test_an_outcome_lost_is_reported_and_strict_fails(self):
        self.rewrite_hist("MP.same_cta.release_cta", drop="T1:r1=1 T1:r2=1")
        self.rewrite_hist("MP.same_cta.weak", add="T1:r1=1 T1:r2=0")
        rc, out = self.run_verb("unseen", self.dir)
        self.assertEqual(rc, 0)
        self.assertIn("no longer observed: MP.same_cta.release_cta: T1:r1=1 T1:r2=1", out)
        self.assertIn("now observed: MP.same_cta.weak: T1:r1=1 T1:r2=0", out)
        self.assertEqual(self.run_verb("unseen", self.dir, "--strict")[0], 1)

    def test_update_writes_the_same_bytes_for_the_same_run(self):
        a, b = os.path.join(self.dir, "a.json.gz"), os.path.join(self.dir, "b.json.gz")
        self.run_verb("unseen", self.dir, "--baseline", a, "--update")
        self.run_verb("unseen", self.dir, "--baseline", b, "--update")
        self.assertEqual(open(a, "rb").read(), open(b, "rb").read())
        path = observed.baseline_path({"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "driver_branch": "580"})
        self.assertEqual(open(a, "rb").read(), open(path, "rb").read())

    def test_triage_writes_a_line_per_survivor(self):
        rc, out = self.run_verb("triage", self.dir)
        self.assertEqual(rc, 0)
        with open(os.path.join(self.dir, "triage.tsv")) as f:
            rows = f.read().splitlines()
        with gzip.open(glob.glob(os.path.join(self.dir, "mutants*.jsonl.gz"))[0], "rt") as f:
            survivors = sum(json.loads(l)["fate"] == "survived" for l in f)
        self.assertEqual(len(rows) - 1, survivors)
        self.assertTrue(rows[0].startswith("mutant\toperator\ttriage"))

    def test_malformed_is_3_and_missing_is_2(self):
        path = glob.glob(os.path.join(self.dir, "histograms*.jsonl.gz"))[0]
        with gzip.open(path, "wt") as f:
            f.write("{not json\n")
        self.assertEqual(self.run_verb("unseen", self.dir)[0], 3)
        self.assertEqual(self.run_verb("unseen", os.path.join(self.dir, "nope"))[0], 2)


class TriageAgain(unittest.TestCase):
    """`litmus triage --again` on the committed H100 run of 2026-12-07 (the gap environments)."""

    def setUp(self):
        copy_run(self, os.path.join(GAPS, "*.gz"))

    run_verb = Unseen.run_verb

    def survivors(self):
        with open(os.path.join(self.dir, "triage.tsv")) as f:
            rows = [r.split("\t") for r in f.read().splitlines()]
        head = rows[0]
        return {r[0]: dict(zip(head, r)) for r in rows[1:]}

    def test_triage_again_says_which_test_showed_a_stress_gaps_killing_outcome(self):
        # SB.peer_cta.gpu with T0's fence dropped is killed by T0:r1=0 T1:r2=0, which SB.peer_cta.none (same
        # placement, fence-free: allowed there) showed on the H100 on 2026-12-07; the MP.same_cta mutants' killing
        # outcome T1:r1=1 T1:r2=0 no same-CTA test showed (only reversed mutants give it, as a plain interleaving)
        rc, out = self.run_verb("triage", self.dir, "--again")
        self.assertEqual(rc, 0, out)
        self.assertIn("stress gaps whose killing outcome the device showed in a test placed as their original", out)
        rows = self.survivors()
        sb = rows["SB.peer_cta.gpu+drop_fence.1"]
        self.assertEqual(sb["triage"], "stress_gap")
        self.assertIn("SB.peer_cta.none", sb["device_showed"].split(","))
        same = [r for n, r in rows.items() if n.startswith("MP.same_cta.") and r["triage"] == "stress_gap"]
        self.assertTrue(same)
        self.assertTrue(all(r["device_showed"] == "-" for r in same))
        # without --again the recorded triage is written as it was: no evidence column computed
        self.run_verb("triage", self.dir)
        self.assertEqual(self.survivors()["SB.peer_cta.gpu+drop_fence.1"]["device_showed"], "")

    def test_triage_again_keeps_a_survivor_the_suite_no_longer_holds(self):
        path = glob.glob(os.path.join(self.dir, "mutants*.jsonl.gz"))[0]
        with gzip.open(path, "rt") as f:
            rows = [json.loads(l) for l in f]
        gone = next(m for m in rows if m["fate"] == "survived" and m.get("triage") == "stress_gap")
        gone["mutant"] = "Gone.test+drop_fence.0"
        with gzip.open(path, "wt") as f:
            f.write("".join(json.dumps(m) + "\n" for m in rows))
        rc, out = self.run_verb("triage", self.dir, "--again")
        self.assertEqual(rc, 0, out)
        self.assertIn("1 survivors the suite no longer holds kept their recorded triage: Gone.test+drop_fence.0", out)
        self.assertEqual(self.survivors()["Gone.test+drop_fence.0"]["triage"], "stress_gap")


if __name__ == "__main__":
    unittest.main()


class TableAgain(unittest.TestCase):
    """`litmus table` on the committed H100 run of 2026-12-07 evening (19 environments, --tune 280): its focus
    rounds killed 10 SB.peer_cta mutants in `one_block` alone, and one LB mutant in `meet_gaps` alone."""

    def setUp(self):
        copy_run(self, os.path.join(MEET, "*.gz"))

    run_verb = Unseen.run_verb

    def test_the_environment_that_alone_killed_hard_mutants_ranks_first(self):
        from litmodel import tuning
        out_path = os.path.join(self.dir, "ranked.json")
        rc, out = self.run_verb("table", self.dir, "--out", out_path)
        self.assertEqual(rc, 0, out)
        self.assertIn("185 mutants", out)          # the run's 185 killed; its original_diverges one is no kill
        rows, table = tuning.read_table(out_path)
        self.assertEqual(rows["sb"][0][0], "one_block")
        self.assertEqual(table["shapes"]["sb"]["scores"]["one_block"]["rare"], 10.0)
        self.assertEqual(rows["lb"][0][0], "meet_gaps")
        self.assertEqual(table["ranked_from"]["mutants_killed"], 185)
        # the run's sweep scores are kept beside the rare kills
        with gzip.open(glob.glob(os.path.join(self.dir, "env-table*.json.gz"))[0], "rt") as f:
            old = json.load(f)
        self.assertEqual(table["shapes"]["sb"]["scores"]["base"]["killed"], old["shapes"]["sb"]["scores"]["base"]["killed"])
        self.assertEqual(table["grid"], old["grid"])

    def test_a_run_without_a_table_is_3_and_without_mutants_is_2(self):
        os.remove(glob.glob(os.path.join(self.dir, "env-table*.json.gz"))[0])
        rc, _ = self.run_verb("table", self.dir, "--out", os.path.join(self.dir, "t.json"))
        self.assertEqual(rc, 3)
        copy_run(self, os.path.join(MEET, "*.gz"))
        os.remove(glob.glob(os.path.join(self.dir, "mutants*.jsonl.gz"))[0])
        rc, _ = self.run_verb("table", self.dir, "--out", os.path.join(self.dir, "t.json"))
        self.assertEqual(rc, 2)

    def test_a_kill_in_an_environment_the_grid_lacks_is_3_naming_it(self):
        path = glob.glob(os.path.join(self.dir, "mutants*.jsonl.gz"))[0]
        with gzip.open(path, "rt") as f:
            rows = [json.loads(l) for l in f]
        m = next(m for m in rows if m["fate"] == "killed")
        next(r for r in m["runs"] if r["verdict"] == "killed")["env"] = "nowhere"
        with gzip.open(path, "wt") as f:
            f.write("".join(json.dumps(m) + "\n" for m in rows))
        from contextlib import redirect_stderr
        import io
        err = io.StringIO()
        with redirect_stderr(err):
            rc, _ = self.run_verb("table", self.dir, "--out", os.path.join(self.dir, "t.json"))
        self.assertEqual(rc, 3)
        self.assertIn("'nowhere'", err.getvalue())
        self.assertIn(m["mutant"], err.getvalue())


class RareKills(unittest.TestCase):
    def test_a_kill_is_one_unit_shared_among_the_environments_that_made_it(self):
        from litmodel import tuning
        by_test = {"A": "s"}
        kills = [("A+x.0", "e1"), ("A+x.0", "e2"), ("A+x.1", "e2"), ("A+x.0", "e1")]
        self.assertEqual(tuning.rare_kills(kills, by_test), {"s": {"e1": 0.5, "e2": 1.5}})

    def test_rare_kills_outrank_a_larger_share_of_easy_kills(self):
        from litmodel import tuning
        scores = {"easy": {"mutants": 10, "killed": 9, "seconds": 1.0, "instances": 1, "off_mode": 0, "rare": 0.5},
                  "hard": {"mutants": 10, "killed": 3, "seconds": 1.0, "instances": 1, "off_mode": 0, "rare": 2.0}}
        self.assertEqual(tuning.rank(scores)[:2], ["hard", "easy"])
        for row in scores.values():
            del row["rare"]
        self.assertEqual(tuning.rank(scores)[:2], ["easy", "hard"])
