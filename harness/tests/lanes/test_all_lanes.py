#!/usr/bin/env python3
"""`./ptxcts all` (scripts/all.sh) on the CPU, over a stand-in ptxcts: every verb the job calls is a short script
that records when it ran and writes a results.json where the real tier would. With a stand-in GPU (a fake
nvidia-smi on PATH) the device lane (driver JIT compile, run tier, LLVM's kernels) must run beside the CPU lane
(compile, front-end, lowering), the driver JIT beside the build, the run tier as soon as ptxcts-run alone is built,
every run must be reported and gated (the gates beside the report), the steps and gates recorded in
results/<stamp>-all.tsv, and the exit must be 0 only when every gate passed: a regression (gate exit 1) or a run
the gate could not judge (exit 2) makes it 1. Without a GPU only the CPU lane runs, and all exits 77 (skipped,
recorded in the step table), never 0."""
import csv
import glob
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standin import ROOT, StandInTest  # noqa: E402


# The stand-in ./ptxcts: each verb appends "verb start end" to $LOG; tiers that take --out write results.json there.
# FAKE_GATE_<tier word> sets the gate's exit for runs whose folder name ends in that word.
STAND_IN = r'''#!/usr/bin/env python3
import json, os, sys, time
verb, args = sys.argv[1], sys.argv[2:]
t0 = time.time()
if verb == "frontend" and args[:1] == ["find-triton"]:   # FAKE_TRITON: the Triton installed on this machine
    if not os.environ.get("FAKE_TRITON"):
        sys.exit(1)
    print(os.environ["FAKE_TRITON"] + "\ttriton-3.6.0+named\tthe environment /fake")
    sys.exit(0)
slow = {"compile": 0.3, "frontend": 0.3, "lower": 3.0, "run": 2.0, "build": 0.5, "report": 0.5}
if verb == "build" and "--target" in args:   # ./ptxcts build --target ptxcts-run: the run tier's binary alone
    verb = "build-" + args[args.index("--target") + 1]
    slow[verb] = float(os.environ.get("FAKE_BUILD_RUN_S", "1.0"))
if verb == "frontend" and args[:1] == ["compare"]:
    verb = "frontend-compare"
    args = args[1:]
out_name = os.path.basename(args[args.index("--out") + 1]) if "--out" in args else verb
open(os.environ["LOG"] + ".started-" + out_name, "w").close()   # its start, for a step or a test that waits for it
time.sleep(slow.get(verb, 0.05))
# FAKE_WAITS "step=suffix,suffix;...": the step (a verb, or an --out folder's name, ending in it) ends only once
# steps whose names end in each suffix have started, or after 20 s. A job that runs them beside it passes
# however loaded the machine is; one that runs them after it waits the 20 s and still starts them late.
for rule in filter(None, os.environ.get("FAKE_WAITS", "").split(";")):
    step, suffixes = rule.split("=")
    if out_name.endswith(step):
        import glob
        deadline = time.time() + 20
        while time.time() < deadline and not all(glob.glob(os.environ["LOG"] + ".started-*" + suffix)
                                                 for suffix in suffixes.split(",")):
            time.sleep(0.05)
if verb == "run" and os.environ.get("FAKE_RUN_EXIT"):   # the run tier without a usable device: no document
    sys.exit(int(os.environ["FAKE_RUN_EXIT"]))
name = verb
if "--out" in args and verb != "report":
    out = args[args.index("--out") + 1]
    os.makedirs(out, exist_ok=True)
    json.dump({"tier": verb}, open(os.path.join(out, "results.json"), "w"))
    name = os.path.basename(out)
if verb == "gate":
    name = os.path.basename(args[0])
    json.dump({"exit": 0}, open(args[args.index("--json") + 1], "w"))
if verb == "frontend-compare":
    open(args[args.index("--json") + 1], "w").write("{}")
with open(os.environ["LOG"], "a") as f:
    f.write(f"{verb} {name} {t0:.3f} {time.time():.3f}\n")
if verb == "gate":
    # FAKE_GATE_PARTIAL 1 / 0: the gate fails unless it was / was not given --partial (a filtered run's gate)
    if os.environ.get("FAKE_GATE_PARTIAL") and ("--partial" in args) != (os.environ["FAKE_GATE_PARTIAL"] == "1"):
        sys.exit(1)
    sys.exit(int(os.environ.get("FAKE_GATE_" + name.rsplit("-", 1)[-1].replace(".", "_"), "0")))
if name.endswith("-frontend-triton-installed"):
    sys.exit(int(os.environ.get("FAKE_TRITON_RUN_EXIT", "0")))
if "-whole-" in name:   # FAKE_WHOLE_EXIT_<front-end's run, - as _>: a whole-run's exit (1: a kernel did not pass)
    sys.exit(int(os.environ.get("FAKE_WHOLE_EXIT_" + name.split("-whole-")[1].replace("-", "_"), "0")))
'''
FRONTEND = '''import os
def installed_dir(name):
    on = os.environ.get("FAKE_FRONTENDS", "llvm-22").split(",")
    return "/fake" if os.environ.get("FAKE_LLVM") == "1" and name in on else None
'''
SMI = '#!/bin/sh\necho 0\n'   # as nvidia-smi --query-gpu=index --format=csv,noheader answers
NO_DRIVER_SMI = "#!/bin/sh\necho 'NVIDIA-SMI has failed: no driver' >&2\nexit 9\n"   # a host without a GPU


class AllLanes(StandInTest):
    prefix = "ptxcts-all-lanes-"

    def setUp(self):
        super().setUp()
        self.root = os.path.join(self.tmp, "root")
        os.makedirs(os.path.join(self.root, "scripts"))
        os.makedirs(os.path.join(self.root, "harness", "frontend"))
        os.makedirs(os.path.join(self.root, "generator"))
        for script in ("all.sh", "gpus.sh", "lists.sh", "stopping.sh"):
            shutil.copy(os.path.join(ROOT, "scripts", script), os.path.join(self.root, "scripts"))
        self.script(os.path.join(self.root, "ptxcts"), STAND_IN)
        with open(os.path.join(self.root, "harness", "frontend", "__init__.py"), "w") as f:
            f.write(FRONTEND)
        self.bin = os.path.join(self.tmp, "bin")
        os.makedirs(self.bin)
        self.log = os.path.join(self.tmp, "log")

    def all(self, gpu, llvm=True, extra_env=None, args=(), **gates):
        smi = os.path.join(self.bin, "nvidia-smi")   # failing without a GPU, whatever the host has (a variable
        self.script(smi, SMI if gpu else NO_DRIVER_SMI)   # that names no program is refused: scripts/gpus.sh)
        env = dict(os.environ, LOG=self.log, FAKE_LLVM="1" if llvm else "0", PTXCTS_ROOT=self.root,
                   PTXCTS_NVIDIA_SMI=smi, PATH=self.bin + os.pathsep + "/usr/bin:/bin")
        env.pop("PTXCTS_WHEELS", None)
        env.pop("CUDA_VISIBLE_DEVICES", None)
        env.update(extra_env or {})
        env.update({f"FAKE_GATE_{k}": str(v) for k, v in gates.items()})
        p = subprocess.run(["bash", os.path.join(self.root, "scripts", "all.sh"), *args], env=env, capture_output=True,
                           text=True, timeout=120)
        gate_starts = self.gate_starts = []
        with open(self.log) as f:
            steps = {}
            for line in f:
                verb, name, s, e = line.split()
                if verb == "gate":
                    gate_starts.append(float(s))
                else:
                    steps[name if not verb.startswith(("setup", "gen", "build", "report")) else verb] = (float(s),
                                                                                                          float(e))
        tsv = glob.glob(os.path.join(self.root, "results", "*-all.tsv"))
        self.assertEqual(len(tsv), 1, p.stdout + p.stderr)
        with open(tsv[0]) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        return p, steps, rows

    def test_the_device_lane_runs_beside_the_cpu_lane(self):
        # each step that must overlap another lasts until that one has started: the build until the CPU lane's
        # compile and the driver JIT, the compile until the lowering tier, the lowering tier until the run tier,
        # the report until a gate (a step that ended by its clock alone was outrun on a loaded machine)
        p, steps, rows = self.all(gpu=True, extra_env={"FAKE_WAITS": "build-ptxcts-run=-compile,-compile-driver;"
                                                                     "-compile=-lower;-lower=-run;-report=gate"})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        stamp = lambda suffix: next(k for k in steps if k.endswith(suffix) and k[:4].isdigit())
        lower, run = steps[stamp("-lower")], steps[stamp("-run")]
        self.assertLess(max(lower[0], run[0]), min(lower[1], run[1]), "the lowering tier and the run tier overlap")
        compile_, driver = steps[stamp("-compile")], steps[stamp("-compile-driver")]
        self.assertLess(lower[0], compile_[1], "the lowering tier does not wait for the compile tier")
        build_run = steps["build-ptxcts-run"]
        self.assertLess(compile_[0], build_run[1], "the CPU lane starts before the build ends")
        self.assertLess(driver[0], build_run[1], "the driver JIT starts before the build ends")
        self.assertGreaterEqual(run[0], build_run[1], "the run tier waits for ptxcts-run")
        self.assertGreater(steps["report"][0], max(lower[1], run[1]), "the report follows both lanes")
        self.assertLess(min(self.gate_starts), steps["report"][1], "the gates run beside the report")
        gated = sorted(r["name"].rsplit("-", 1)[-1] for r in rows if r["kind"] == "gate")
        self.assertEqual(gated, ["22", "22", "compile", "driver", "lower", "run"])
        self.assertTrue(all(r["exit"] == "0" for r in rows), rows)
        self.assertEqual({r["name"] for r in rows if r["kind"] == "step"},
                         {"setup", "gen", "build-run", "compile", "frontend", "lower", "compile-driver",
                          "run", "run-llvm-22", "report"})
        self.assertTrue(all(r["start"] for r in rows if r["kind"] == "step"), "each step's start is recorded")
        self.assertIn("[cpu] all:", p.stdout)
        self.assertIn("[low] all:", p.stdout)
        self.assertIn("[gpu] all:", p.stdout)

    def test_only_the_run_tiers_binary_is_built(self):
        """No tier of all runs the test binaries (./ptxcts test builds them): all builds ptxcts-run alone."""
        self.all(gpu=True, llvm=False)
        with open(self.log) as f:
            builds = [line.split()[0] for line in f if line.startswith("build")]
        self.assertEqual(builds, ["build-ptxcts-run"])

    def test_without_a_gpu_only_the_cpu_lane_runs_and_it_is_not_green(self):
        p, steps, rows = self.all(gpu=False, llvm=False, extra_env={"FAKE_GATE_PARTIAL": "0"})
        self.assertEqual(p.returncode, 77, p.stdout + p.stderr)
        gated = sorted(r["name"].rsplit("-", 1)[-1] for r in rows if r["kind"] == "gate")
        self.assertEqual(gated, ["compile", "lower"])
        self.assertIn("no GPU here", p.stdout)
        self.assertIn("exit 77, not a pass", p.stdout)
        self.assertEqual([r["exit"] for r in rows if r["name"] == "device-lane"], ["77"], "the skip is recorded")

    def test_a_run_of_some_families_is_gated_against_part_of_each_baseline(self):
        # all --family: each run holds those families' cases only; its gate is --partial (a baseline case outside
        # them is not run, never a regression), where a whole run's gate is not (the test above)
        p, steps, rows = self.all(gpu=False, llvm=False, args=("--family", "cp.async"),
                                  extra_env={"FAKE_GATE_PARTIAL": "1"})
        self.assertEqual(p.returncode, 77, p.stdout + p.stderr)
        self.assertEqual(sorted(r["exit"] for r in rows if r["kind"] == "gate"), ["0", "0"], rows)

    def test_every_installed_frontend_is_run_and_gated_beside_llvm_22(self):
        p, steps, rows = self.all(gpu=False, extra_env={"FAKE_FRONTENDS": "llvm-22,llvm-triton,triton,cute-dsl"})
        self.assertEqual(p.returncode, 77, p.stdout + p.stderr)
        for fe in ("llvm-22", "llvm-triton", "triton", "cute-dsl"):
            self.assertTrue(any(k.endswith("-frontend-" + fe) for k in steps), (fe, steps))
        gated = sorted(r["name"].split("-frontend-")[-1] if "-frontend-" in r["name"] else r["name"].rsplit("-", 1)[-1]
                       for r in rows if r["kind"] == "gate")
        self.assertEqual(gated, ["compile", "cute-dsl", "llvm-22", "llvm-triton", "lower", "triton"])
        # every front-end tier is one step "frontend" of the table, a tier step the device check allows exit 1 for
        self.assertEqual(sum(1 for r in rows if r["kind"] == "step" and r["name"] == "frontend"), 4)

    def test_an_uninstalled_frontend_is_not_run(self):
        p, steps, rows = self.all(gpu=False, extra_env={"FAKE_FRONTENDS": "llvm-22,cute-dsl"})
        self.assertEqual(p.returncode, 77, p.stdout + p.stderr)
        self.assertFalse(any(k.endswith("-frontend-triton") or k.endswith("-frontend-llvm-triton") for k in steps),
                         steps)
        self.assertTrue(any(k.endswith("-frontend-cute-dsl") for k in steps), steps)

    def test_the_installed_triton_is_judged_by_its_own_exit(self):
        p, steps, rows = self.all(gpu=False, extra_env={"FAKE_TRITON": "/fake/site"})
        self.assertTrue(any(k.endswith("-frontend-triton-installed") for k in steps), steps)
        self.assertIn("triton-3.6.0+named (the Triton installed here)", p.stdout)
        self.assertTrue(any(r["kind"] == "step" and r["name"] == "frontend-triton-installed" for r in rows), rows)
        # no baseline for a named Triton: not gated, its run's exit decides (0 here; no GPU: 77 as always)
        self.assertFalse(any(r["kind"] == "gate" and r["name"].endswith("triton-installed") for r in rows), rows)
        self.assertEqual(p.returncode, 77, p.stdout + p.stderr)

    def write_triton_baseline(self, paired_ptxas):
        """results/baselines/frontend/triton-3.6.0+named.json.gz of a run paired with paired_ptxas."""
        folder = os.path.join(self.root, "results", "baselines", "frontend")
        os.makedirs(folder, exist_ok=True)
        with gzip.open(os.path.join(folder, "triton-3.6.0+named.json.gz"), "wt") as f:
            json.dump({"source": {"toolchain": {"paired_ptxas": paired_ptxas}}, "cases": {}}, f)

    def test_the_installed_triton_is_gated_by_a_baseline_of_its_pairing(self):
        self.write_triton_baseline("13.5")   # the stand-in resolves toolchain 13.5: the run is paired with it
        p, _steps, rows = self.all(gpu=False, extra_env={"FAKE_TRITON": "/fake/site"}, installed=1)
        gated = [r for r in rows if r["kind"] == "gate" and r["name"].endswith("triton-installed")]
        self.assertEqual(len(gated), 1, rows)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)   # its gate's regression (FAKE_GATE_installed=1)

    def test_a_baseline_of_another_pairing_does_not_gate_the_installed_triton(self):
        self.write_triton_baseline("13.0")
        p, _steps, rows = self.all(gpu=False, extra_env={"FAKE_TRITON": "/fake/site"}, installed=1)
        self.assertFalse(any(r["kind"] == "gate" and r["name"].endswith("triton-installed") for r in rows), rows)
        self.assertIn("triton-3.6.0+named (the Triton installed here): every judged case passes", p.stdout)
        self.assertEqual(p.returncode, 77, p.stdout + p.stderr)

    def test_a_failing_installed_triton_makes_it_red(self):
        p, _steps, _rows = self.all(gpu=False, extra_env={"FAKE_TRITON": "/fake/site", "FAKE_TRITON_RUN_EXIT": "1"})
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("triton-3.6.0+named (the Triton installed here): exit 1", p.stdout)

    def test_no_installed_triton_no_step(self):
        p, steps, rows = self.all(gpu=False)
        self.assertFalse(any(k.endswith("-frontend-triton-installed") for k in steps), steps)
        self.assertIn("no Triton installed for this Python", p.stdout)

    def test_the_pinned_cute_dsls_whole_kernels_are_written_and_run_on_the_gpu(self):
        p, steps, rows = self.all(gpu=True, extra_env={"FAKE_FRONTENDS": "llvm-22,cute-dsl"})
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertTrue(any(k.endswith("-whole-cute-dsl-pinned") for k in steps), steps)
        self.assertFalse(any("-whole-triton" in k for k in steps), steps)   # no Triton here, pinned or installed
        self.assertIn("cute-dsl-pinned's whole kernels: every kernel passed on this GPU", p.stdout)

    def test_a_cute_dsl_whole_kernel_that_does_not_pass_makes_it_red(self):
        p, _steps, _rows = self.all(gpu=True, extra_env={"FAKE_FRONTENDS": "llvm-22,cute-dsl",
                                                         "FAKE_WHOLE_EXIT_cute_dsl_pinned": "1"})
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("cute-dsl-pinned's whole kernels: exit 1", p.stdout)

    def test_without_a_gpu_a_regression_is_still_red(self):
        p, _, _ = self.all(gpu=False, llvm=False, compile=1)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)

    def test_cuda_visible_devices_empty_skips_the_device_lane(self):
        p, steps, rows = self.all(gpu=True, llvm=False, extra_env={"CUDA_VISIBLE_DEVICES": ""})
        self.assertEqual(p.returncode, 77, p.stdout + p.stderr)
        self.assertIn("CUDA_VISIBLE_DEVICES is set but empty", p.stdout)
        self.assertNotIn("run", {r["name"] for r in rows if r["kind"] == "step"})

    def test_a_run_tier_without_a_usable_device_is_not_green(self):
        """nvidia-smi lists a GPU but the run tier cannot use it (the driver failed): its exit 77 makes all's."""
        p, _, rows = self.all(gpu=True, llvm=False, extra_env={"FAKE_RUN_EXIT": "77"})
        self.assertEqual(p.returncode, 77, p.stdout + p.stderr)
        self.assertIn("a part was skipped (run", p.stdout)
        self.assertEqual([r["exit"] for r in rows if r["name"] == "run"], ["77"])

    def test_a_regression_makes_it_red(self):
        p, _, rows = self.all(gpu=True, run=1)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("the gate found regressions in results/", p.stdout)

    def test_a_run_the_gate_cannot_judge_makes_it_red(self):
        p, _, rows = self.all(gpu=True, driver=2)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("the gate could not judge", p.stdout)
        self.assertIn("2", [r["exit"] for r in rows if r["kind"] == "gate" and r["name"].endswith("driver")])

    def test_an_interrupt_while_ptxcts_run_builds_ends_both_lanes(self):
        """SIGINT to all.sh while ptxcts-run is being built: the device lane, waiting for that build, is told it
        will not come and ends; all exits 130 within a bounded time, with no lane left waiting."""
        smi = os.path.join(self.bin, "nvidia-smi")
        self.script(smi, SMI)
        env = dict(os.environ, LOG=self.log, FAKE_LLVM="0", PTXCTS_ROOT=self.root, PTXCTS_NVIDIA_SMI=smi,
                   PATH=self.bin + os.pathsep + "/usr/bin:/bin", FAKE_BUILD_RUN_S="3")
        env.pop("PTXCTS_WHEELS", None)
        p = subprocess.Popen(["bash", os.path.join(self.root, "scripts", "all.sh")], env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        started = self.log + ".started-build-ptxcts-run"
        for _ in range(300):
            if os.path.exists(started) or p.poll() is not None:
                break
            time.sleep(0.1)
        self.assertTrue(os.path.exists(started), "ptxcts-run's build began")
        os.kill(p.pid, signal.SIGINT)   # all.sh alone, as a signal to the verb's process, not its group
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            self.fail("all did not end within 30 s of SIGINT: a lane waits for a build that will not come")
        self.assertEqual(p.returncode, 130, out + err)
        self.assertIn("interrupted by SIGINT", err)
        with open(self.log) as f:
            self.assertNotIn(" run ", " ".join(line.split()[0] + " " for line in f), "no run tier after the stop")

    def test_a_missing_wheels_folder_is_refused_before_anything_runs(self):
        env = dict(os.environ, LOG=self.log, PTXCTS_ROOT=self.root)
        p = subprocess.run(["bash", os.path.join(self.root, "scripts", "all.sh"), "--wheels",
                            os.path.join(self.tmp, "no-such")], env=env, capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("no-such", p.stderr)
        self.assertFalse(os.path.exists(self.log), "nothing ran")


if __name__ == "__main__":
    unittest.main()
