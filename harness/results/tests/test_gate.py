"""The gate: regressions caught, waivers honoured and expiring, malformed baselines and waivers rejected."""
import json
import os
import shutil
import unittest

from .common import BASELINES, RUNS, WAIVERS, TempDirTest, cli, line_containing

COMPILE_REGRESSION = ("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f16@sm_90a.ptx86"
                      "|sm_90a|8.6|ptxas|-")
COMPILE_FIXED = "cp.async/ca.shared.global/cp_size_4@sm_80.ptx70|sm_80|7.0|ptxas|-"
RUN_REGRESSION = "cp.async.bulk/global.shared_cta.bulk_group/L2_cache_hint#size_256.align_16|sm_90|8.6|jit|sm_90"
BEFORE_EXPIRY, AFTER_EXPIRY = "2026-11-22", "2027-02-01"  # waiver [0] of ok.toml expires 2027-01-31


def gate(run, baseline, waivers="none.toml", *extra):
    return cli("gate", os.path.join(RUNS, run) if not os.path.isabs(run) else run, "--baseline",
               os.path.join(BASELINES, baseline) if not os.path.isabs(baseline) else baseline,
               "--waivers", os.path.join(WAIVERS, waivers), *extra)


def expect_gate(test, waivers, today, code, *lines):
    """Gate the compile fixture run against compile.json with `waivers` on `today`: the exit code `code` and every
    one of `lines` in the output. Returns the output."""
    got, out, err = gate("compile", "compile.json", waivers, "--today", today)
    test.assertEqual(got, code, out + err)
    for line in lines:
        test.assertIn(line, out)
    return out


class Regressions(TempDirTest):
    def test_regression_caught(self):
        expect_gate(self, "none.toml", BEFORE_EXPIRY, 1, f"REGRESSION  pass -> compile_error  {COMPILE_REGRESSION}",
                    "replay:  ./ptxcts compile --case", "gate: FAIL: 1 unwaived regressions")

    def test_fixed_cases_printed(self):
        code, out, _ = gate("compile", "compile.json", "none.toml")
        self.assertIn(f"FIXED       fail -> pass  {COMPILE_FIXED}", out)

    def test_run_tier_crash_is_a_regression(self):
        code, out, _ = gate("h100", "sm_90.json", "none.toml")
        self.assertEqual(code, 1)
        self.assertIn(f"REGRESSION  pass -> crash  {RUN_REGRESSION}", out)

    def test_every_kind_of_change(self):
        """missing, new finding, lost (-> not_supported), changed (fail -> timeout), invalid case now compiles."""
        run = self.copy_run("compile")
        path = os.path.join(run, "results.json")
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        cases = {c["id"]: c for c in doc["cases"]}
        dropped = cases.pop("cp.async.bulk/shared_cluster.global.mbarrier_complete_tx_bytes@sm_90.ptx78")
        cases["cp.async/cg.shared.global/cp_size_16/L2_128B@sm_90a.ptx86"].update(
            {"class": "not_supported", "message": "ptxas too old"})
        cases["cp.async/cg.shared.global/cp_size_8@sm_90.ptx78"].update({"class": "timeout"})
        # an invalid case (cp_size_8 with .cg) that passed (was rejected) at sm_80 now compiles: fail
        cases["cp.async/cg.shared.global/cp_size_8@sm_80.ptx70"].update(
            {"class": "fail", "message": "ptxas accepted an invalid case"})
        new = dict(cases["cp.async/ca.shared.global/cp_size_4@sm_80.ptx70"])
        new.update({"id": "cp.async/ca.shared.global/cp_size_4@sm_80.ptx71", "ptx": "7.1", "class": "compile_error",
                    "message": "x"})
        cases[new["id"]] = new
        doc["cases"] = list(cases.values())
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        json_out = os.path.join(self.tmp, "verdict.json")
        code, out, err = gate(run, "compile.json", "ok.toml", "--today", BEFORE_EXPIRY, "--json", json_out)
        self.assertEqual(code, 1, err)
        with open(json_out, encoding="utf-8") as f:
            verdict = json.load(f)
        kinds = {r["key"].split("|")[0]: (r["kind"], r["baseline"], r["run"]) for r in verdict["regressions"]}
        self.assertEqual(kinds, {
            dropped["id"]: ("missing", "pass", None),
            "cp.async/cg.shared.global/cp_size_16/L2_128B@sm_90a.ptx86": ("lost", "pass", "not_supported"),
            "cp.async/cg.shared.global/cp_size_8@sm_90.ptx78": ("changed", "fail", "timeout"),
            "cp.async/cg.shared.global/cp_size_8@sm_80.ptx70": ("regression", "pass", "fail"),
            new["id"]: ("new_finding", None, "compile_error"),
        })
        # --partial turns the missing case into a listed one, the others stay regressions
        code, out, _ = gate(run, "compile.json", "ok.toml", "--today", BEFORE_EXPIRY, "--partial")
        self.assertEqual(code, 1)
        self.assertIn("not run cases: 1", out)

    def test_no_baseline_is_a_usage_error(self):
        code, _, err = gate("compile", os.path.join(self.tmp, "nope.json"))
        self.assertEqual(code, 2)
        self.assertIn("no baseline for the compile tier, toolchain 13.0, no device", err)
        self.assertIn("--update", err)

    def test_baseline_of_another_architecture_is_a_usage_error(self):
        code, _, err = gate("h100", "compile.json")
        self.assertEqual(code, 2)
        self.assertIn("is the baseline of the compile tier, toolchain 13.0, no device, but the run is of the run "
                      "tier, toolchain 13.0, device sm_90: its baseline is results/baselines/run/sm_90/nvidia-h100-80gb-hbm3-r580/13.0.json.gz", err)

    def test_update_writes_a_baseline_that_then_passes(self):
        path = os.path.join(self.tmp, "baselines", "compile.json")
        code, out, err = gate("compile", path, "none.toml", "--update")
        self.assertEqual(code, 0, err)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        data = json.loads(text)
        self.assertEqual(list(data["cases"]), sorted(data["cases"]))  # sorted, reviewable
        self.assertEqual(data["cases"][COMPILE_REGRESSION], "compile_error")
        code, out, _ = gate("compile", path, "none.toml")
        self.assertEqual(code, 0, out)
        self.assertIn("fixed cases: 0", out)
        gate("compile", path, "none.toml", "--update")  # rewriting an unchanged baseline changes no byte
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), text)


class Waivers(unittest.TestCase):
    def test_waiver_honoured(self):
        expect_gate(self, "ok.toml", BEFORE_EXPIRY, 0, f"WAIVED      pass -> compile_error  {COMPILE_REGRESSION}",
                    "waived by", "gate: PASS: 0 unwaived regressions")

    def test_waiver_expiring(self):
        out = expect_gate(self, "ok.toml", AFTER_EXPIRY, 1, f"REGRESSION  pass -> compile_error  {COMPILE_REGRESSION}",
                          "waiver expired:")
        self.assertRegex(out, r"EXPIRED .*waiver\[0\].*expired 2027-01-31, today is 2027-02-01")
        # the day of expiry itself is still covered
        expect_gate(self, "ok.toml", "2027-01-31", 0)

    def test_unused_and_expired_waivers_listed(self):
        code, out, _ = gate("compile", "compile.json", "ok.toml", "--today", BEFORE_EXPIRY)
        ok = os.path.join(WAIVERS, "ok.toml")
        unused = out.split("unused waivers:")[1].split("expired waivers:")[0]
        expired = out.split("expired waivers:")[1]
        self.assertIn(f"{ok}:{line_containing(ok, '[[waiver]]', 3)} waiver[2]", unused)
        self.assertIn(f"{ok}:{line_containing(ok, '[[waiver]]', 4)} waiver[3]", expired)
        self.assertNotIn("waiver[0]", unused)

    def test_device_and_driver_ranges(self):
        code, out, _ = gate("h100", "sm_90.json", "ok.toml", "--today", BEFORE_EXPIRY)
        self.assertEqual(code, 0, out)
        self.assertIn(f"WAIVED      pass -> crash  {RUN_REGRESSION}", out)


class WaiverRanges(TempDirTest):
    def test_driver_outside_the_range_is_not_waived(self):
        run = os.path.join(self.tmp, "h100")
        shutil.copytree(os.path.join(RUNS, "h100"), run)
        for i in range(3):
            self.edit_json(os.path.join(run, f"shard-{i}", "results.json"),
                           lambda d: d["toolchain"].update(driver="590.10"))
        # a candidate driver gated against the last driver's baseline: --across driver (else refused, below)
        code, out, _ = gate(run, "sm_90.json", "ok.toml", "--today", BEFORE_EXPIRY, "--across", "driver")
        self.assertEqual(code, 1, out)
        self.assertIn(f"REGRESSION  pass -> crash  {RUN_REGRESSION}", out)

    def test_range_semantics(self):
        from framework.documents.waivers import in_range, parse_range
        self.assertTrue(in_range((13, 0, 88), parse_range("13.0", False)))
        self.assertFalse(in_range((13, 1), parse_range("13.0", False)))
        self.assertTrue(in_range((9, 0), parse_range(">=sm_90, <sm_100", True)))
        self.assertFalse(in_range((10, 0), parse_range(">=sm_90, <sm_100", True)))
        self.assertFalse(in_range(None, parse_range(">=1", False)))
        self.assertTrue(in_range((580, 159, 4), parse_range(">580, <=580.159.4", False)))


class Malformed(unittest.TestCase):
    def assertRejected(self, code, err, path, needle, field):
        self.assertEqual(code, 3, err)
        self.assertIn(f"{path}:{line_containing(path, needle)}:", err)
        self.assertIn(field, err)

    def test_baseline_bad_class(self):
        path = os.path.join(BASELINES, "bad_class.json")
        code, _, err = gate("compile", path)
        self.assertRejected(code, err, path, '"passed"', "cases.cp.async/cg.shared.global/cp_size_16/L2_128B@sm_90")
        self.assertIn("'passed' is not a result class", err)

    def test_baseline_bad_syntax(self):
        path = os.path.join(BASELINES, "bad_syntax.json")
        code, _, err = gate("compile", path)
        # the decoder stops on the line after the one missing its comma, and says so
        needle = "cp_size_16/L2_128B@sm_90.ptx78"
        self.assertEqual(code, 3)
        self.assertIn(f"{path}:{line_containing(path, needle) + 1}:", err)
        self.assertIn(f"comma missing at the end of line {line_containing(path, needle)}", err)

    def test_baseline_duplicate_key(self):
        path = os.path.join(BASELINES, "duplicate_key.json")
        code, _, err = gate("compile", path)
        self.assertEqual(code, 3)
        self.assertIn(f"{path}:{line_containing(path, 'cp_size_4@sm_90.ptx78', 2)}:", err)
        self.assertIn("duplicate key", err)

    def test_baseline_bad_key(self):
        path = os.path.join(BASELINES, "bad_key.json")
        code, _, err = gate("compile", path)
        self.assertRejected(code, err, path, "cp_size_8@sm_90.ptx78", "bad case key")

    def test_waiver_missing_field(self):
        path = os.path.join(WAIVERS, "missing_reason.toml")
        code, _, err = gate("compile", "compile.json", "missing_reason.toml")
        self.assertEqual(code, 3)
        self.assertIn(f"{path}:{line_containing(path, '[[waiver]]', 2)}: waiver[1]: missing field 'reason'", err)

    def test_malformed_waivers_are_named_to_the_line(self):
        for name, needle, what in (("bad_expires.toml", "expires =", "waiver[0].expires"),
                                   ("unknown_field.toml", "expiry =", "waiver[0].expiry: unknown field"),
                                   ("bad_range.toml", "driver =", "waiver[0].driver"),
                                   ("bad_syntax.toml", "no closing quote", "not valid TOML")):
            with self.subTest(name):
                code, _, err = gate("compile", "compile.json", name)
                self.assertRejected(code, err, os.path.join(WAIVERS, name), needle, what)


class EntryPoint(unittest.TestCase):
    def test_ptxcts_gate_exit_codes_end_to_end(self):
        """The real entry point (./ptxcts gate, a subprocess) returns the documented codes."""
        import subprocess
        from .common import REPO
        base = [os.path.join(REPO, "ptxcts"), "gate", os.path.join(RUNS, "compile")]
        for baseline, waivers, want in (("compile.json", "none.toml", 1), ("compile.json", "ok.toml", 0),
                                        ("bad_class.json", "ok.toml", 3)):
            p = subprocess.run(base + ["--baseline", os.path.join(BASELINES, baseline), "--waivers",
                                       os.path.join(WAIVERS, waivers), "--today", BEFORE_EXPIRY],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, want, p.stdout + p.stderr)
        p = subprocess.run(base + ["--no-such-flag"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main()


class ClassSets(TempDirTest):
    """A baseline value that is a class set (a finding whose class flips from run to run) is one outcome."""

    def flip(self, base_class, run_class, *extra):
        """Gate the h100 fixture whose RUN_REGRESSION case has run_class against a baseline holding base_class
        for it; -> (exit code, stdout, the baseline file)."""
        self.n = getattr(self, "n", 0) + 1
        run = self.copy_run("h100", f"h100-{self.n}")
        for shard in sorted(os.listdir(run)):
            self.edit_json(os.path.join(run, shard, "results.json"), lambda d: [
                c.update({"class": run_class, "message": "x"}) for c in d["cases"]
                if f"{c['id']}|{c['target']}|{c['ptx']}|{c['load_path']}|sm_90" == RUN_REGRESSION])
        base = os.path.join(self.tmp, f"sm_90-{self.n}.json")
        shutil.copy(os.path.join(BASELINES, "sm_90.json"), base)
        self.edit_json(base, lambda d: d["cases"].update({RUN_REGRESSION: base_class}))
        code, out, err = gate(run, base, "none.toml", *extra)
        return code, out + err, base

    def test_either_class_of_the_set_is_unchanged(self):
        for run_class in ("fail", "timeout"):
            with self.subTest(run_class=run_class):
                code, out, _ = self.flip(["fail", "timeout"], run_class)
                self.assertEqual(code, 0, out)
                self.assertNotIn(RUN_REGRESSION, out)

    def test_a_class_outside_the_set_is_a_change(self):
        code, out, _ = self.flip(["fail", "timeout"], "crash")
        self.assertEqual(code, 1, out)
        self.assertIn(f"fail|timeout -> crash  {RUN_REGRESSION}", out)

    def test_update_keeps_the_set(self):
        code, out, base = self.flip(["fail", "timeout"], "timeout", "--update")
        self.assertEqual(code, 0, out)
        with open(base, encoding="utf-8") as f:
            self.assertEqual(json.load(f)["cases"][RUN_REGRESSION], ["fail", "timeout"])

    def test_malformed_sets_are_refused(self):
        for bad in (["fail"], ["timeout", "fail"], ["fail", "fail"], ["fail", "flaky"]):
            with self.subTest(value=bad):
                code, out, _ = self.flip(bad, "fail")
                self.assertEqual(code, 3, out)
                self.assertIn(f"sm_90-{self.n}.json", out)


class BaselineOfAnotherMachine(TempDirTest):
    """A device baseline names the device and driver it was made on: the gate refuses a run of another one (exit 2,
    naming both), unless --across names what may differ."""
    baseline = os.path.join(BASELINES, "sm_90.json")   # made on the H100, driver 580.159.04

    def test_another_device_is_refused_with_both_names(self):
        code, out, err = gate("h200", self.baseline)
        self.assertEqual(code, 2, out + err)
        self.assertIn("device 'NVIDIA H100 80GB HBM3'", err)
        self.assertIn("device 'NVIDIA H200'", err)
        self.assertIn("--across device", err)

    def test_another_driver_is_refused_with_both_versions(self):
        run = self.copy_run("h100")
        for root, _, files in os.walk(run):
            if "results.json" in files:
                self.edit_json(os.path.join(root, "results.json"),
                               lambda d: d["toolchain"].update(driver="590.10.01"))
        code, out, err = gate(run, self.baseline)
        self.assertEqual(code, 2, out + err)
        self.assertIn("driver '580.159.04'", err)
        self.assertIn("driver '590.10.01'", err)
        code, out, err = gate(run, self.baseline, "none.toml", "--across", "driver")
        self.assertEqual(code, 1, out + err)   # judged: the fixture's regression is there
        self.assertIn("gate: --across driver", out)

    def test_across_device_gates_the_other_device(self):
        code, out, err = gate("h200", self.baseline, "none.toml", "--across", "device")
        self.assertIn(code, (0, 1), out + err)
        self.assertIn("unchanged", out)

    def test_across_takes_only_device_and_driver(self):
        for bad in ("gpu", "device,device", ""):
            with self.subTest(across=bad):
                code, _, err = gate("h200", self.baseline, "none.toml", "--across", bad)
                self.assertEqual(code, 2, err)
                self.assertIn("--across", err)

    def test_the_same_device_and_driver_are_judged(self):
        code, out, err = gate("h100", self.baseline)
        self.assertEqual(code, 1, out + err)
