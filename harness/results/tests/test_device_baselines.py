"""Baselines per device: the gate picks the baseline that claims the run's device (name, compute capability, driver
branch: baseline.choose), judges a device that none claims against the model and the record
(gate.judge_without_baseline), and refuses two claims or a malformed claim naming file and field (exit 3)."""
import gzip
import json
import os
import shutil
from unittest import mock

from .common import FIXTURES, RUNS, TempDirTest, cli

H100_NAME, H200_NAME = "NVIDIA H100 80GB HBM3", "NVIDIA H200"
H100_DIR, H200_DIR = "nvidia-h100-80gb-hbm3-r580", "nvidia-h200-r580"
NO_WAIVERS = os.path.join(FIXTURES, "waivers", "none.toml")
UNEXPLAINED_FAIL = "cp.async.bulk.tensor/2d.shared_cluster.global.tile.mbarrier_complete_tx_bytes#box_64x8.coords_0_0"
# every finding class of the H200 fixture run, on record for devices of compute capability 9.0 and driver 580
RECORD = """version = 1
[[finding]]
id = "fixture-tensor-fail"
cases = ["cp.async.bulk.tensor/2d.shared_cluster.global.tile.mbarrier_complete_tx_bytes#*"]
class = "fail"
device = "==9.0"
driver = ">=580, <581"
note = "the fixture's tensor fail"
reviewed = "test"
[[finding]]
id = "fixture-bulk-crash"
cases = ["cp.async.bulk/global.shared_cta.bulk_group/L2_cache_hint#*"]
class = "crash"
device = "==9.0"
driver = ">=580, <581"
note = "the fixture's crashes"
reviewed = "test"
[[finding]]
id = "fixture-reduce-fail"
cases = ["cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f16#*"]
class = "fail"
device = "==9.0"
driver = ">=580, <581"
note = "the fixture's reduce fail"
reviewed = "test"
"""


class DeviceBaselines(TempDirTest):
    def setUp(self):
        super().setUp()
        self.root = os.path.join(self.tmp, "root")
        self.baselines = os.path.join(self.root, "results", "baselines", "run", "sm_90")
        os.makedirs(os.path.join(self.root, "results", "expectations"))
        with open(os.path.join(self.root, "results", "expectations", "run.toml"), "w", encoding="utf-8") as f:
            f.write(RECORD)
        env = mock.patch.dict(os.environ, {"PTXCTS_ROOT": self.root})
        env.start()
        self.addCleanup(env.stop)

    def gate(self, run, *extra):
        return cli("gate", run, "--waivers", NO_WAIVERS, *extra)

    def device_run(self, name, source="h200", driver=None):
        """A copy of a fixture run renamed to device `name` (and driver), as PTXCTS_RUN_FAKE_DEVICE would name it."""
        run = self.copy_run(source, f"{source}-{name.replace(' ', '_')}-{driver}")
        for folder, _, files in os.walk(run):
            if "results.json" in files:
                def rename(d):
                    d["device"]["name"] = name
                    if driver:
                        d["toolchain"]["driver"] = driver
                self.edit_json(os.path.join(folder, "results.json"), rename)
        return run

    def make_both(self):
        for run in (os.path.join(RUNS, "h100"), os.path.join(RUNS, "h200")):
            code, out, err = self.gate(run, "--update")
            self.assertEqual(code, 0, out + err)
        return (os.path.join(self.baselines, H100_DIR, "13.0.json.gz"),
                os.path.join(self.baselines, H200_DIR, "13.0.json.gz"))

    def test_update_writes_each_device_its_own_baseline_claiming_it(self):
        h100, h200 = self.make_both()
        for path, name in ((h100, H100_NAME), (h200, H200_NAME)):
            with gzip.open(path, "rt", encoding="utf-8") as f:
                doc = json.load(f)
            self.assertEqual(doc["version"], 3)
            self.assertEqual(doc["device"], {"name": name, "cc": "9.0", "driver_branch": "580"})

    def test_each_device_is_gated_against_its_own_baseline(self):
        self.make_both()
        for run, folder in ((os.path.join(RUNS, "h100"), H100_DIR), (os.path.join(RUNS, "h200"), H200_DIR)):
            code, out, err = self.gate(run)
            self.assertEqual(code, 0, out + err)
            self.assertIn(os.path.join(folder, "13.0.json.gz"), out)
            self.assertIn("gate: PASS", out)
        # a regression of the H200 is judged against the H200's baseline, and the H100's stays green
        run = self.copy_run("h200", "h200-regressed")
        self.edit_json(os.path.join(run, "results.json"), lambda d: d["cases"][0].update({"class": "fail"}))
        code, out, err = self.gate(run)
        self.assertEqual(code, 1, out + err)
        self.assertIn(H200_DIR, out)
        self.assertIn("REGRESSION", out)

    def test_another_driver_in_the_branch_takes_the_branchs_baseline(self):
        self.make_both()
        code, out, err = self.gate(self.device_run(H200_NAME, driver="580.200.01"))
        self.assertEqual(code, 0, out + err)
        self.assertIn(H200_DIR, out)

    def test_a_device_without_baseline_passes_when_its_findings_are_on_record(self):
        self.make_both()
        verdict = os.path.join(self.tmp, "gate.json")
        code, out, err = self.gate(self.device_run("NVIDIA H800"), "--json", verdict)
        self.assertEqual(code, 0, out + err)
        self.assertIn("NO BASELINE of this device, NVIDIA H800 (cc 9.0, driver branch 580)", out)
        self.assertIn("--update", out)
        self.assertIn(os.path.join("nvidia-h800-r580", "13.0.json.gz"), out)
        self.assertIn(H100_DIR, out)   # the baselines that do exist are named
        self.assertIn("unexplained: 0", out)
        self.assertIn("ON-RECORD", out)
        with open(verdict, encoding="utf-8") as f:
            v = json.load(f)
        self.assertEqual((v["baseline"], v["judged_by"], v["exit"]), (None, "model and record", 0))
        self.assertEqual(v["counts"]["on_record"], 4)

    def test_a_device_without_baseline_fails_on_an_unexplained_finding(self):
        run = self.device_run("NVIDIA H800")
        planted = []

        def plant(d):
            case = next(c for c in d["cases"] if c["class"] == "pass" and
                        not c["id"].startswith(("cp.async.bulk.tensor/2d.shared_cluster", "cp.async.bulk/global",
                                                "cp.reduce.async.bulk/global")))
            case["class"] = "fail"
            planted.append(case["id"])
        self.edit_json(os.path.join(run, "results.json"), plant)
        code, out, err = self.gate(run)
        self.assertEqual(code, 1, out + err)
        self.assertIn(f"UNEXPLAINED fail  {planted[0]}", out)
        self.assertIn("unexplained: 1", out)

    def test_a_finding_not_on_record_for_a_new_driver_branch_is_unexplained(self):
        code, out, err = self.gate(self.device_run(H200_NAME, driver="590.10.01"))
        self.assertEqual(code, 1, out + err)
        self.assertIn("driver branch 590", out)
        self.assertIn(f"UNEXPLAINED fail  {UNEXPLAINED_FAIL}", out)

    def test_update_then_gate_makes_the_new_device_green_against_its_baseline(self):
        run = self.device_run("NVIDIA H800")
        code, out, err = self.gate(run, "--update")
        self.assertEqual(code, 0, out + err)
        self.assertTrue(os.path.isfile(os.path.join(self.baselines, "nvidia-h800-r580", "13.0.json.gz")))
        code, out, err = self.gate(run)
        self.assertEqual(code, 0, out + err)
        self.assertIn("the baseline of this device, NVIDIA H800", out)

    def test_two_baselines_claiming_the_device_are_refused_naming_both(self):
        h100, _ = self.make_both()
        twin = os.path.join(self.baselines, "copy", "13.0.json.gz")
        os.makedirs(os.path.dirname(twin))
        shutil.copy(h100, twin)
        code, out, err = self.gate(os.path.join(RUNS, "h100"))
        self.assertEqual(code, 3, out + err)
        self.assertIn(h100, err)
        self.assertIn(twin, err)

    def test_a_malformed_device_claim_is_refused_naming_file_and_field(self):
        _, h200 = self.make_both()
        with gzip.open(h200, "rt", encoding="utf-8") as f:
            doc = json.load(f)
        for field, value, named in (("cc", "nine", "device.cc"), ("cc", "10.0", "device.cc"),
                                    ("driver_branch", 580, "device.driver_branch"), ("name", "", "device.name"),
                                    (None, None, "device")):
            with self.subTest(field=field, value=value):
                bad = json.loads(json.dumps(doc))
                if field is None:
                    del bad["device"]
                else:
                    bad["device"][field] = value
                with gzip.open(h200, "wt", encoding="utf-8") as f:
                    json.dump(bad, f, indent=1)
                code, out, err = self.gate(os.path.join(RUNS, "h100"))
                self.assertEqual(code, 3, out + err)
                self.assertIn(h200, err)
                self.assertIn(named, err)

    def test_across_device_gates_against_the_one_other_devices_baseline(self):
        code, out, err = self.gate(os.path.join(RUNS, "h100"), "--update")
        self.assertEqual(code, 0, out + err)
        code, out, err = self.gate(os.path.join(RUNS, "h200"), "--across", "device")
        self.assertIn(code, (0, 1), out + err)
        self.assertIn(f"it is of {H100_NAME}", out)
        self.assertIn("unchanged", out)
        # two other devices' baselines: which one is not for the gate to guess
        code, out, err = self.gate(self.device_run("NVIDIA H800"), "--update")
        self.assertEqual(code, 0, out + err)
        code, out, err = self.gate(self.device_run("NVIDIA H20"), "--across", "device")
        self.assertEqual(code, 2, out + err)
        self.assertIn("--baseline FILE", err)
