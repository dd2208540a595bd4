"""`./ptxcts fleet` without a Slurm cluster: the plan's bad inputs (exit 2 for a name the suite does not know, 3
for a malformed plan), results folders that cannot take a run (finished, holding a run, not a folder, not
shared), Slurm missing or unreachable, a job ID that is not the plan's -- each a clear error that leaves what is
there untouched; every tier's task command; the Kubernetes recipe, whose Indexed Job pods are run here by hand
(JOB_COMPLETION_INDEX) on the run tier's CPU stand-in device and collected into a gated report."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "harness"))
sys.path.insert(0, os.path.join(ROOT, "generator"))
from fleet import collect as collectmod  # noqa: E402
from fleet import gating  # noqa: E402
from fleet import plan as planmod  # noqa: E402
from fleet import slurm as slurmmod  # noqa: E402
from fleet import tasks as taskmod  # noqa: E402
from fleet.errors import FleetError  # noqa: E402
from framework.documents import baseline as baseline_mod  # noqa: E402

PTXCTS = os.path.join(ROOT, "ptxcts")
SMALL = ["--family", "cp.async.bulk.prefetch", "--quiet"]
GOOD = """version = 1
name = "t"
results = "res"
toolchains = ["13.0"]
[tiers.run]
shards = 2
args = ["--quiet"]
[devices.fake-a]
constraint = "fake-a"
stand_in = "model"
"""


def ptxcts(args, cwd=None, env=None):
    return subprocess.run([PTXCTS] + args, capture_output=True, text=True, cwd=cwd, env=env, timeout=600)


def snapshot(folder):
    """Every file below `folder` with its bytes: what an error must leave as it was."""
    out = {}
    for d, _, files in os.walk(folder):
        for n in files:
            with open(os.path.join(d, n), "rb") as f:
                out[os.path.relpath(os.path.join(d, n), folder)] = f.read()
    return out


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-fleet-cli-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def plan(self, text, name="plan.toml"):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def refused(self, args, code, fragment, env=None):
        before = snapshot(self.tmp)
        r = ptxcts(args, cwd=self.tmp, env=env)
        self.assertEqual(r.returncode, code, r.stdout + r.stderr)
        self.assertIn(fragment, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertEqual(snapshot(self.tmp), before)   # nothing written, nothing lost
        return r


class PlanErrors(Base):
    # (what the good plan becomes, exit code, fragment of the message)
    TABLE = [
        (GOOD.replace("[tiers.run]", "[tiers.rnu]"), 2, "tiers: unknown tier 'rnu' (known: compile, explore, "),
        (GOOD.replace('"13.0"', '"99.9"'), 2, "toolchains: unknown toolchain '99.9' (known: "),
        (GOOD.replace('"13.0"', '"/nonexistent/ptxas"'), 2, "'/nonexistent/ptxas': not an executable ptxas"),
        (GOOD.replace('stand_in = "model"', 'stand_in = "gpu9"'), 2, "unknown device stand-in 'gpu9'"),
        (GOOD.replace('constraint = "fake-a"\n', 'constrain = "fake-a"\n'), 2, "devices.fake-a: unknown key 'constrain'"),
        (GOOD.split("[devices.")[0], 2, "devices: none, but the GPU tier(s) run need one"),
        (GOOD.replace('args = ["--quiet"]', 'args = ["--shard", "0/2"]'), 2, "'--shard': the fleet sets it per task"),
        (GOOD + "[tiers.litmus]\n", 2, "tiers.litmus: device fake-a is a stand-in (model), and litmus runs on a GPU only"),
        (GOOD.replace("[tiers.run]\nshards = 2", "[tiers.run]\nshards = 2\n[tiers.compile]\nshards = 3\n[tiers.x]"),
         2, "tiers: unknown tier 'x'"),
        (GOOD + "[tiers.compile]\nshards = 3\n", 2, "tiers.compile.shards: 3: only the run tier shards"),
        (GOOD.replace("shards = 2", 'shards = "2"'), 3, "tiers.run.shards: expected an integer, found str '2'"),
        (GOOD.replace("shards = 2", "shards = 0"), 3, "tiers.run.shards: 0: expected 1..1000"),
        (GOOD.replace("version = 1", "version = 2"), 3, "version: 2: this tool reads plan version 1"),
        (GOOD.replace('name = "t"', 'name = "a b"'), 3, "name: 'a b': 1 to 64 letters"),
        (GOOD + "[devices.fake-a]\n", 3, "not a TOML plan"),
        (GOOD.replace('results = "res"\n', ""), 3, "results: missing"),
        (GOOD + '[tiers.compile]\nbaseline = "nope.json.gz"\n', 2, "tiers.compile.baseline: nope.json.gz: no such file"),
        (GOOD.replace("shards = 2", 'shards = 2\nbaseline = "plan0.toml"'), 2,
         "tiers.run.baseline: run runs on devices: its baseline is each device's (devices.<name>.baseline)"),
        (GOOD + "[tiers.explore]\npartial = true\n", 2, "tiers.explore.partial: explore is not gated"),
        (GOOD + '[tiers.compile]\npartial = "yes"\n', 3, "tiers.compile.partial: expected true or false"),
        (GOOD + '[tiers.compile]\nargs = ["--verdicts", "ptxas"]\n', 2, "'--verdicts': the fleet sets it per task"),
        (GOOD.replace('["13.0"]', '["13.0", "13.5"]') + '[tiers.compile]\nbaseline = "plan0.toml"\n', 2,
         "tiers.compile.baseline: plan0.toml: one file for the toolchains 13.0, 13.5: put {toolchain} in its name"),
    ]

    def test_table(self):
        for k, (text, code, fragment) in enumerate(self.TABLE):
            with self.subTest(row=k, fragment=fragment):
                path = self.plan(text, f"plan{k}.toml")
                self.refused(["fleet", "submit", "--slurm", path, "--dry-run"], code, fragment)

    def test_missing_plan_file(self):
        self.refused(["fleet", "submit", "--slurm", "nope.toml", "--dry-run"], 2, "PLAN nope.toml: no such file")

    def test_good_plan_dry_run_writes_nothing(self):
        path = self.plan(GOOD)
        r = ptxcts(["fleet", "submit", "--slurm", path, "--dry-run"], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertEqual(len(lines), 2)
        self.assertIn("--array=0-1 --requeue", lines[0])
        self.assertIn("--gres=gpu:1", lines[0])
        self.assertIn("--constraint=fake-a", lines[0])
        self.assertIn("--dependency=afterany:", lines[1])
        self.assertNotIn("--gres", lines[1])
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "res")))


class ResultsFolder(Base):
    def test_finished_fleet_run_is_never_overwritten(self):
        res = os.path.join(self.tmp, "res")
        os.makedirs(res)
        with open(os.path.join(res, "fleet.json"), "w") as f:
            json.dump({"schema": "ptxcts-fleet", "version": 1, "plan": {}, "groups": [], "jobs": [], "results": res,
                       "root": ROOT, "collected": {"ended": "2026-01-01T00:00:00Z"}}, f)
        self.refused(["fleet", "submit", "--slurm", self.plan(GOOD), "--dry-run"], 2, "holds a finished fleet run")

    def test_unfinished_fleet_run_points_at_requeue(self):
        res = os.path.join(self.tmp, "res")
        os.makedirs(res)
        with open(os.path.join(res, "fleet.json"), "w") as f:
            json.dump({"schema": "ptxcts-fleet", "version": 1, "plan": {}, "groups": [], "jobs": [], "results": res,
                       "root": ROOT}, f)
        self.refused(["fleet", "submit", "--slurm", self.plan(GOOD), "--dry-run"], 2, "./ptxcts fleet requeue")

    def test_folder_holding_a_run(self):
        os.makedirs(os.path.join(self.tmp, "res"))
        with open(os.path.join(self.tmp, "res", "results.json"), "w") as f:
            f.write("{}")
        self.refused(["fleet", "submit", "--slurm", self.plan(GOOD), "--dry-run"], 2, "already holds a run (results.json)")

    def test_results_under_a_file(self):
        with open(os.path.join(self.tmp, "afile"), "w") as f:
            f.write("x")
        self.refused(["fleet", "submit", "--slurm", self.plan(GOOD), "--results", os.path.join(self.tmp, "afile", "r"),
                      "--dry-run"], 2, "is a file, not a folder")

    def test_local_folder_with_other_nodes_is_not_shared(self):
        here = socket.gethostname()
        slurmmod.check_shared(self.tmp, {here}, here)                     # one node, this one: fine
        fs = slurmmod.filesystem(self.tmp)
        if fs in slurmmod.SHARED_FS or fs.startswith("fuse."):
            self.skipTest(f"{self.tmp} is on {fs}, a shared filesystem")
        with self.assertRaises(FleetError) as e:
            slurmmod.check_shared(self.tmp, {here, "gpu-node-17"}, here)
        self.assertIn("not a shared folder", str(e.exception))
        self.assertIn("gpu-node-17", str(e.exception))


class Scheduler(Base):
    def test_slurm_missing(self):
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        # a script, not a link: a virtual environment's python found through a link elsewhere loses its packages
        with open(os.path.join(bin_dir, "python3"), "w") as f:
            f.write(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        os.chmod(os.path.join(bin_dir, "python3"), 0o755)
        env = dict(os.environ, PATH=bin_dir)
        self.refused(["fleet", "submit", "--slurm", self.plan(GOOD)], 2, "Slurm: not installed here: sbatch", env=env)

    def test_slurm_unreachable(self):
        if not shutil.which("scontrol"):
            # no Slurm client here: a stand-in scontrol that cannot reach its controller, as the real one says
            bin_dir = os.path.join(self.tmp, "bin")
            os.makedirs(bin_dir)
            for c in slurmmod.COMMANDS:
                with open(os.path.join(bin_dir, c), "w") as f:
                    f.write("#!/bin/sh\necho 'Slurmctld(primary) at nowhere is DOWN'\nexit 1\n")
                os.chmod(os.path.join(bin_dir, c), 0o755)
            env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
        else:
            conf = os.path.join(self.tmp, "slurm.conf")
            with open(conf, "w") as f:
                f.write("ClusterName=nowhere\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=1\n"
                        "AuthType=auth/none\nMessageTimeout=2\nNodeName=n0 CPUs=1\nPartitionName=p Nodes=n0\n")
            env = dict(os.environ, SLURM_CONF=conf)
        r = self.refused(["fleet", "submit", "--slurm", self.plan(GOOD)], 2, "Slurm: the controller is unreachable",
                         env=env)
        self.assertIn("SLURM_CONF=", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "res")))


STUB_SLURM = {   # a Slurm that answers as 22.05 does, and refuses a job whose options hold $REFUSE
    "scontrol": 'echo "scontrol $*" >> "$LOG"\ncase "$1" in ping) echo "Slurmctld(primary) at here is UP";; '
                'show) exit 1;; esac\n',
    "sinfo": 'case "$*" in *%R*) printf "gpu|fake-a,fake-b\\ncpu|fake-a,fake-b\\n";; *) hostname;; esac\n',
    "sbatch": 'echo "sbatch $*" >> "$LOG"\ncase "$*" in *"$REFUSE"*) echo "sbatch: error: $REFUSAL" >&2; exit 1;; '
              'esac\nn=$(cat "$LOG.n" 2>/dev/null || echo 100); echo $((n + 1)) > "$LOG.n"; echo $((n + 1))\n',
    "scancel": 'echo "scancel $*" >> "$LOG"\n',
    "squeue": "exit 0\n",
}


class RefusedSubmission(Base):
    """A plan Slurm refuses leaves the results folder usable: refused before anything is written where the fleet
    can tell (a partition or feature Slurm does not have), else (sbatch refuses) every job held and cancelled --
    nothing ran -- and fleet.json `refused`, which a corrected submit or `fleet requeue` takes."""

    def setUp(self):
        super().setUp()
        bin_dir = os.path.join(self.tmp, "bin")
        os.makedirs(bin_dir)
        for name, body in STUB_SLURM.items():
            with open(os.path.join(bin_dir, name), "w") as f:
                f.write("#!/bin/sh\n" + body)
            os.chmod(os.path.join(bin_dir, name), 0o755)
        logs = tempfile.mkdtemp(prefix="ptxcts-fleet-stub-")   # outside the folder an error must leave as it was
        self.addCleanup(shutil.rmtree, logs, True)
        self.log = os.path.join(logs, "slurm.log")
        self.env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"], LOG=self.log, REFUSE="--mem=",
                        REFUSAL="Memory specification can not be satisfied")

    def slurm_log(self):
        with open(self.log) as f:
            return f.read()

    def test_a_partition_slurm_does_not_have_is_refused_naming_the_key(self):
        text = GOOD.replace('constraint = "fake-a"', 'constraint = "fake-a"\npartition = "nope"')
        self.refused(["fleet", "submit", "--slurm", self.plan(text)], 2,
                     "devices.fake-a.partition: 'nope': Slurm has no such partition (its partitions: cpu, gpu)",
                     env=self.env)
        self.refused(["fleet", "submit", "--slurm", self.plan(GOOD.replace('"fake-a"\n', '"fake-c"\n'))], 2,
                     "devices.fake-a.constraint: 'fake-c': no node of Slurm offers that feature", env=self.env)

    def test_refused_by_sbatch_then_submitted_corrected_to_the_same_folder(self):
        bad = self.plan(GOOD + '[tiers.compile]\n[slurm]\nextra = ["--mem=999999999"]\n')
        r = ptxcts(["fleet", "submit", "--slurm", bad], cwd=self.tmp, env=self.env)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("group run.13.0.fake-a: Slurm: sbatch refused the job", r.stderr)
        self.assertIn("Memory specification can not be satisfied; nothing ran", r.stderr)
        res = os.path.join(self.tmp, "res")
        with open(os.path.join(res, "fleet.json")) as f:
            record = json.load(f)
        self.assertEqual(record["jobs"], [])
        self.assertEqual(record["refused"]["what"], "group run.13.0.fake-a")
        self.assertFalse(os.path.exists(os.path.join(res, "runs")))
        r = ptxcts(["fleet", "status", res], env=self.env)
        self.assertIn("submission refused by Slurm", r.stdout)
        # corrected: the same folder takes it; every job is held until all are accepted, then released
        os.remove(self.log)
        good = self.plan(GOOD + "[tiers.compile]\n", "fixed.toml")
        r = ptxcts(["fleet", "submit", "--slurm", good], cwd=self.tmp, env=self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(res, "fleet.json")) as f:
            record = json.load(f)
        self.assertEqual([j["kind"] for j in record["jobs"]], ["array", "array", "collector"])
        self.assertEqual(len(record["refusals"]), 1)
        log = self.slurm_log()
        self.assertEqual(log.count("--hold"), 3, log)
        self.assertIn("scontrol release " + ",".join(j["id"] for j in record["jobs"]), log)

    def test_a_folder_an_older_refused_submission_left_takes_the_corrected_plan(self):
        # before refusals were recorded, a refused submission left fleet.json with no job: nothing ran there
        res = os.path.join(self.tmp, "res")
        os.makedirs(res)
        with open(os.path.join(res, "fleet.json"), "w") as f:
            json.dump({"schema": "ptxcts-fleet", "version": 1, "plan": {}, "groups": [], "jobs": [], "results": res,
                       "root": ROOT, "scheduler": "slurm"}, f)
        r = ptxcts(["fleet", "submit", "--slurm", self.plan(GOOD)], cwd=self.tmp, env=self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(res, "fleet.json")) as f:
            self.assertEqual([j["kind"] for j in json.load(f)["jobs"]], ["array", "collector"])

    def test_refused_by_sbatch_then_requeued(self):
        # the CPU partition refuses jobs (a limit, an account): the run array, accepted first, is cancelled
        self.env.update(REFUSE="--partition=cpu", REFUSAL="Batch job submission failed: Invalid account or "
                                                          "account/partition combination specified")
        plan = self.plan(GOOD + '[tiers.compile]\n[cpu]\npartition = "cpu"\n')
        r = ptxcts(["fleet", "submit", "--slurm", plan], cwd=self.tmp, env=self.env)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("group compile.13.0: Slurm: sbatch refused", r.stderr)
        self.assertIn("nothing ran (1 held job(s) cancelled)", r.stderr)
        self.assertIn("scancel 101", self.slurm_log())
        res = os.path.join(self.tmp, "res")
        r = ptxcts(["fleet", "requeue", res], env=self.env)   # the plan still asks too much: refused again
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("nothing ran", r.stderr)
        with open(plan, "w") as f:
            f.write(GOOD)
        r = ptxcts(["fleet", "requeue", res], env=self.env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("submitting " + plan + " again", r.stdout)
        with open(os.path.join(res, "fleet.json")) as f:
            record = json.load(f)
        self.assertEqual([j["kind"] for j in record["jobs"]], ["array", "collector"])
        self.assertEqual(len(record["refusals"]), 2)


class TaskCommands(unittest.TestCase):
    def test_every_tier(self):
        plan = {"name": "n", "seed": 7, "tiers": {t: {"shards": 2 if t == "run" else 1, "args": ["--x"]}
                                                  for t in planmod.TIERS},
                "devices": {"h100": {"constraint": "h100"}, "cpu-model": {"constraint": "c", "stand_in": "model"}}}
        record = {"plan": plan, "results": "/r"}

        class P:
            name, toolchains, tiers, devices = "n", ["13.0"], plan["tiers"], plan["devices"]
        groups = {g["id"]: g for g in taskmod.groups(P, "S")}
        self.assertEqual(sorted(groups), sorted(
            ["run.13.0.h100", "run.13.0.cpu-model", "explore.13.0.h100", "explore.13.0.cpu-model",
             "selftest.13.0.h100", "selftest.13.0.cpu-model", "litmus.h100", "litmus.cpu-model", "compile.13.0",
             "lower.13.0"]))
        g = groups["run.13.0.h100"]
        self.assertEqual(taskmod.command(record, g, 1, False),
                         ["run", "--shard", "1/2", "--run-id", "n-run.13.0.h100-S", "--out",
                          "/r/runs/run.13.0.h100/shard-1", "--toolchain", "13.0", "--seed", "7", "--x"])
        self.assertEqual(taskmod.command(record, g, 1, True), ["run", "--resume", "/r/runs/run.13.0.h100/shard-1"])
        self.assertIn("--device-name", taskmod.command(record, groups["run.13.0.cpu-model"], 0, False))
        self.assertEqual(taskmod.command(record, groups["explore.13.0.cpu-model"], 0, False)[-3:],
                         ["--device", "model", "--x"])
        self.assertEqual(taskmod.command(record, groups["litmus.h100"], 0, False),
                         ["litmus", "--json", "/r/runs/litmus.h100/shard-0/litmus.json", "--seed", "7", "--x"])
        self.assertEqual(taskmod.command(record, groups["compile.13.0"], 0, False),
                         ["compile", "--out", "/r/runs/compile.13.0/shard-0", "--toolchain", "13.0", "--verdicts",
                          "ptxas,nvjitlink", "--x"])
        # a tier that does not resume starts again
        self.assertEqual(taskmod.command(record, groups["lower.13.0"], 0, True)[:3],
                         ["lower", "--out", "/r/runs/lower.13.0/shard-0"])
        self.assertFalse(groups["compile.13.0"]["gpu"])


class ResumedTaskCommands(unittest.TestCase):
    """A task that resumes keeps every option of its plan that its tier takes again (tasks.command)."""

    def setUp(self):
        plan = {"name": "n", "seed": 7,
                "tiers": {"run": {"shards": 2, "args": ["--family", "cp.async", "--jobs", "1", "--timeout=9",
                                                        "--quiet"]},
                          "explore": {"shards": 1, "args": ["--time", "30", "--family", "cp.async", "--unguided",
                                                            "--jobs", "2"]},
                          "compile": {"shards": 1, "args": ["--family", "cp.async", "--target", "sm_90"]}},
                "devices": {"m": {"constraint": "c", "stand_in": "model"}}}
        self.record = {"plan": plan, "results": "/r"}

        class P:
            name, toolchains, tiers, devices = "n", ["13.0"], plan["tiers"], plan["devices"]
        self.groups = {g["id"]: g for g in taskmod.groups(P, "S")}
        self.groups["compile.13.0"]["verdicts"] = "ptxas,nvjitlink"

    def test_run_keeps_how_it_runs(self):
        self.assertEqual(taskmod.command(self.record, self.groups["run.13.0.m"], 1, True),
                         ["run", "--resume", "/r/runs/run.13.0.m/shard-1", "--jobs", "1", "--timeout=9", "--quiet"])

    def test_explore_keeps_its_device_and_budget(self):
        self.assertEqual(taskmod.command(self.record, self.groups["explore.13.0.m"], 0, True),
                         ["explore", "--resume", "/r/runs/explore.13.0.m/shard-0", "--toolchain", "13.0",
                          "--device", "model", "--time", "30", "--jobs", "2"])

    def test_compile_gives_its_selection_again(self):
        self.assertEqual(taskmod.command(self.record, self.groups["compile.13.0"], 0, True),
                         ["compile", "--resume", "/r/runs/compile.13.0/shard-0", "--toolchain", "13.0", "--verdicts",
                          "ptxas,nvjitlink", "--family", "cp.async", "--target", "sm_90"])


class GateChoices(Base):
    """What the collector asks of ./ptxcts gate and report for a group (fleet/gating.py)."""

    def load(self, text):
        p = planmod.load(self.plan(text), ROOT)
        record = {"plan": {"tiers": p.tiers, "devices": p.devices}}

        class P:
            name, toolchains, tiers, devices = p.name, p.toolchains, p.tiers, p.devices
        return record["plan"], {g["id"]: g for g in taskmod.groups(P, "S")}

    def test_a_filter_in_args_makes_the_gate_partial(self):
        self.assertEqual(gating.filtered(["--jobs", "1", "--family=cp.async"]), "--family")
        self.assertIsNone(gating.filtered(["--level", "1", "--quiet"]))     # the default level selects everything
        self.assertEqual(gating.filtered(["--level", "0"]), "--level")
        plan, groups = self.load(GOOD.replace('args = ["--quiet"]', 'args = ["--family", "cp.async"]') +
                                 '[tiers.compile]\nargs = ["--jobs", "1"]\n')
        self.assertIn("--partial", gating.gate_args(plan, groups["run.13.0.fake-a"], ["d"], "j"))
        self.assertNotIn("--partial", gating.gate_args(plan, groups["compile.13.0"], ["d"], "j"))

    def test_partial_and_baseline_named_by_the_plan(self):
        with open(os.path.join(self.tmp, "c-13.0.json.gz"), "w") as f:
            f.write("x")
        plan, groups = self.load(GOOD + '[tiers.compile]\npartial = true\nbaseline = "c-{toolchain}.json.gz"\n')
        self.assertEqual(gating.gate_args(plan, groups["compile.13.0"], ["d"], "j"),
                         ["gate", "d", "--json", "j", "--baseline", os.path.join(self.tmp, "c-13.0.json.gz"),
                          "--partial"])
        # an explicit partial = false: the filtered run is gated against the whole baseline, as asked
        plan, groups = self.load(GOOD.replace("shards = 2", "shards = 2\npartial = false")
                                 .replace('["--quiet"]', '["--case", "x"]'))
        self.assertNotIn("--partial", gating.gate_args(plan, groups["run.13.0.fake-a"], ["d"], "j"))

    def test_compile_records_what_its_baseline_holds(self):
        self.assertEqual(gating.compile_verdicts(ROOT, None, "13.0"), "ptxas,nvjitlink")   # the committed baseline
        self.assertEqual(gating.compile_verdicts(ROOT, None, "no-such-toolchain"), gating.HOST_VERDICTS)
        base = os.path.join(self.tmp, "ptxas-only.json.gz")
        ref = os.path.join(self.tmp, "ref")
        r = ptxcts(["compile", "--toolchain", "13.0", "--family", "cp.async.bulk.groups", "--target", "sm_90",
                    "--quiet", "--out", ref])
        self.assertIn(r.returncode, (0, 1), r.stderr)
        self.assertEqual(ptxcts(["gate", ref, "--baseline", base, "--update"]).returncode, 0)
        self.assertEqual(gating.compile_verdicts(ROOT, base, "13.0"), "ptxas")

    def test_the_report_is_given_the_baselines_the_gates_used(self):
        a, b = os.path.join(self.tmp, "a.json.gz"), os.path.join(self.tmp, "b.json.gz")
        for p in (a, b):
            with open(p, "w") as f:
                f.write("x")
        folder = os.path.join(self.tmp, "mirror")
        notes = gating.report_baselines(folder, [
            ("compile.13.0", {"tier": "compile", "toolchain": "13.0", "sm": None, "baseline": a}),
            ("run.13.0.x", {"tier": "run", "toolchain": "13.0", "sm": "sm_90", "baseline": a}),
            ("run.13.0.y", {"tier": "run", "toolchain": "13.0", "sm": "sm_90", "baseline": b}),
            ("run.13.0.z", {"tier": "run", "toolchain": "13.0", "sm": "sm_100", "baseline": None})])
        self.assertEqual(os.path.realpath(os.path.join(folder, "compile", "13.0.json.gz")), a)
        self.assertFalse(os.path.lexists(os.path.join(folder, "run", "sm_90", "13.0.json.gz")))
        self.assertEqual(len(notes), 1)
        self.assertIn("run.13.0.x, run.13.0.y used different baselines", notes[0])


class Kubernetes(Base):
    """The second recipe: the manifest's Indexed Jobs, and their pods' command run here by hand, index by index."""

    def reference_baseline(self):
        """A run of the stand-in device on SMALL, here, and the baseline written from it: (run folder, baseline)."""
        ref = os.path.join(self.tmp, "ref")
        r = ptxcts(["run", "--device", "model", "--device-name", "fake-a (stand-in: model)", "--seed", "1",
                    "--toolchain", "13.0", "--out", ref] + SMALL)
        self.assertEqual(r.returncode, 0, r.stderr)
        base = os.path.join(self.tmp, "base.json.gz")
        self.assertEqual(ptxcts(["gate", ref, "--baseline", base, "--update"]).returncode, 0)
        return ref, base

    def test_indexed_jobs_run_by_index_then_collected(self):
        _, base = self.reference_baseline()
        text = GOOD.replace('args = ["--quiet"]', json.dumps(SMALL).join(["args = ", ""])) + \
            f'baseline = "{base}"\n[kubernetes]\nimage = "registry.example/ptxcts:1"\n'
        path = self.plan(text)
        manifest = os.path.join(self.tmp, "jobs.json")
        r = ptxcts(["fleet", "submit", "--kube", manifest, path], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("kubectl apply -f", r.stdout)
        with open(manifest) as f:
            doc = json.load(f)
        job, collector = doc["items"]
        self.assertEqual((job["kind"], job["spec"]["completionMode"], job["spec"]["completions"]), ("Job", "Indexed", 2))
        pod = job["spec"]["template"]["spec"]
        self.assertEqual(pod["nodeSelector"], {"ptxcts.dev/device": "fake-a"})
        self.assertEqual(pod["containers"][0]["resources"]["limits"], {"nvidia.com/gpu": 1})
        results = os.path.join(self.tmp, "res")
        self.assertEqual(pod["containers"][0]["volumeMounts"][0]["mountPath"], results)
        command = pod["containers"][0]["command"]
        self.assertEqual(command[1:], ["fleet", "task", results, "--group", "run.13.0.fake-a"])
        self.assertIn("--wait", collector["spec"]["template"]["spec"]["containers"][0]["command"])
        # what each pod runs, with the index Kubernetes gives it
        for index in (1, 0):
            r = subprocess.run(command, capture_output=True, text=True, timeout=600,
                               env=dict(os.environ, JOB_COMPLETION_INDEX=str(index), HOSTNAME=f"pod-{index}"))
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = subprocess.run(command, capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, JOB_COMPLETION_INDEX="0"))
        self.assertIn("already finished", r.stdout)   # a pod started again runs nothing twice
        r = subprocess.run(collector["spec"]["template"]["spec"]["containers"][0]["command"][:-2] + ["--wait", "5"],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # a column per device, named by the device (report --device-columns), also where it is its architecture's only one
        self.assertIn("| run.13.0.fake-a | fake-a | run sm_90 [fake-a (stand-in: model)] | 2 finished | 0: pod-0 @ ",
                      r.stdout)
        self.assertIn("PASS", r.stdout)
        # status without Slurm: the tree alone; a job of another plan is refused
        r = ptxcts(["fleet", "status", results])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 task(s): 2 finished", r.stdout)
        self.refused(["fleet", "status", results, "--job", "4242"], 2, "--job 4242: not a job of this plan")
        self.refused(["fleet", "requeue", results], 2, "submitted for kubernetes, not Slurm")

    def test_a_cancel_that_reaches_the_gpu_probe_is_an_interrupt_not_a_lost_gpu(self):
        # a scheduler's cancel signals every process of the task, the GPU probe in flight too: its death by that
        # signal is no answer about the GPU (fleet.runner.run_task). The probe here passes at the start, then
        # plays the cancel: SIGTERM to the task's runner and to itself.
        count = os.path.join(self.tmp, "probes")
        probe = ["sh", "-c", f'n=$(cat {count} 2>/dev/null || echo 0); echo $((n + 1)) > {count}; '
                             f'[ "$n" -ge 1 ] && {{ kill -TERM $PPID; kill -TERM $$; }}; exit 0']
        text = GOOD.replace('args = ["--quiet"]', json.dumps(SMALL).join(["args = ", ""])) + \
            f'probe = {json.dumps(probe)}\nprobe_every = 0.1\n[kubernetes]\nimage = "registry.example/ptxcts:1"\n'
        manifest = os.path.join(self.tmp, "jobs.json")
        r = ptxcts(["fleet", "submit", "--kube", manifest, self.plan(text)], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(manifest) as f:
            command = json.load(f)["items"][0]["spec"]["template"]["spec"]["containers"][0]["command"]
        r = subprocess.run(command, capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, JOB_COMPLETION_INDEX="0"))
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(os.path.join(self.tmp, "res", "runs", "run.13.0.fake-a", "shard-0", "task.json")) as f:
            task = json.load(f)
        self.assertEqual(task["state"], "partial", task)
        self.assertIn("interrupted by SIGTERM", task["reason"])

    def test_the_runner_passes_a_signal_on_to_the_tier_once(self):
        # Slurm's cancel sends SIGTERM once to every process of the job, and the job's own `./ptxcts fleet task`
        # passes its one on to the runner a moment later: the runner gets two. Were it to pass both on, the
        # tier's `./ptxcts` (signalled by Slurm too) would count three and kill its group outright before the tier
        # wrote what it judged (docs/CLI.md, "Signals"). fleet.runner.run_task passes the first on only. The tier
        # here is a stand-in that counts what reaches it.
        text = GOOD + '[kubernetes]\nimage = "i"\n'
        r = ptxcts(["fleet", "submit", "--kube", os.path.join(self.tmp, "jobs.json"), self.plan(text)], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        got, started = os.path.join(self.tmp, "got"), os.path.join(self.tmp, "started")
        tier = os.path.join(self.tmp, "tier")
        with open(tier, "w") as f:
            f.write(f"#!/bin/sh\ntrap 'echo TERM >> {got}' TERM\ntouch {started}\n"
                    "i=0; while [ $i -lt 30 ]; do sleep 0.1; i=$((i + 1)); done\nexit 143\n")
        os.chmod(tier, 0o755)
        code = ("import sys; from fleet import runner; "
                f"sys.exit(runner.run_task({os.path.join(self.tmp, 'res')!r}, 'run.13.0.fake-a', 0, {tier!r}))")
        task = subprocess.Popen([sys.executable, "-c", code], cwd=self.tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                                    [os.path.join(ROOT, "harness"), os.path.join(ROOT, "generator")])))
        deadline = time.monotonic() + 60
        while not os.path.exists(started) and time.monotonic() < deadline and task.poll() is None:
            time.sleep(0.05)
        for _ in range(2):   # Slurm's, then the outer ./ptxcts's
            task.send_signal(signal.SIGTERM)
            time.sleep(0.5)
        out = task.communicate(timeout=60)[0].decode(errors="replace")
        self.assertEqual(task.returncode, 3, out)
        with open(got) as f:
            self.assertEqual(f.read().split(), ["TERM"], out)
        with open(os.path.join(self.tmp, "res", "runs", "run.13.0.fake-a", "shard-0", "task.json")) as f:
            record = json.load(f)
        self.assertEqual(record["state"], "partial", record)
        self.assertIn("interrupted by SIGTERM", record["reason"])

    def pods_then_collector(self, text):
        """Submit `text` for Kubernetes, run every pod here by index, then the collector: its CompletedProcess."""
        manifest = os.path.join(self.tmp, "jobs.json")
        r = ptxcts(["fleet", "submit", "--kube", manifest, self.plan(text + '[kubernetes]\nimage = "i"\n')],
                   cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(manifest) as f:
            items = json.load(f)["items"]
        for job in items[:-1]:
            for index in range(job["spec"]["completions"]):
                r = subprocess.run(job["spec"]["template"]["spec"]["containers"][0]["command"], capture_output=True,
                                   text=True, timeout=600, env=dict(os.environ, JOB_COMPLETION_INDEX=str(index)))
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return subprocess.run(items[-1]["spec"]["template"]["spec"]["containers"][0]["command"][:-2] + ["--wait", "5"],
                              capture_output=True, text=True, timeout=600)

    def test_a_failing_gate_is_the_verdict_not_the_collectors_exit(self):
        # a baseline that disagrees with the run on one case (beyond_chapter where the run passes: a change)
        _, base = self.reference_baseline()
        header, cases = baseline_mod.load(base)
        planted = sorted(cases)[0]
        cases[planted] = "beyond_chapter"
        baseline_mod.write(base, header["tier"], header["toolchain"], header["sm"], header["source"], cases,
                           header["device"])
        r = self.pods_then_collector(GOOD.replace('args = ["--quiet"]', json.dumps(SMALL).join(["args = ", ""])) +
                                     f'baseline = "{base}"\n')
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)   # it collected: its job COMPLETED
        res = os.path.join(self.tmp, "res")
        with open(os.path.join(res, "collect.json")) as f:
            summary = json.load(f)
        self.assertEqual((summary["verdict"], summary["ran"]), ("FAIL", True))
        (row,) = summary["groups"]
        self.assertEqual((row["gate"]["exit"], row["gate"]["verdict"], row["gate"]["partial"]), (1, "FAIL", True))
        with open(row["gate"]["json"]) as f:
            gate = json.load(f)
        self.assertEqual([e["kind"] for e in gate["regressions"]], ["changed"])
        self.assertIn("gate: FAIL: 1 unwaived regressions (exit 1)", r.stdout)   # the gate's own words
        with open(os.path.join(res, "fleet.json")) as f:
            self.assertEqual(json.load(f)["collected"]["verdict"], "FAIL")
        # the report classified the run against the baseline its gate used, to the same counts
        with open(os.path.join(res, "report", "report.json")) as f:
            (reg,) = json.load(f)["regressions"]
        self.assertEqual(reg["regressions"], 1)
        self.assertEqual({k: v for k, v in reg["counts"].items() if v},
                         {k: v for k, v in gate["counts"].items() if v})

    def test_the_gates_own_words_reach_collect_md(self):
        # no baseline named: the gate's own choice, whatever it says of this stand-in device
        r = self.pods_then_collector(GOOD.replace('args = ["--quiet"]', json.dumps(SMALL).join(["args = ", ""])))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        res = os.path.join(self.tmp, "res")
        with open(os.path.join(res, "gates", "run.13.0.fake-a.txt")) as f:
            said = [ln for ln in f.read().splitlines() if ln.startswith("gate:")]
        self.assertTrue(said)
        with open(os.path.join(res, "collect.md")) as f:
            md = f.read()
        self.assertIn("    " + said[-1], md)
        with open(os.path.join(res, "collect.json")) as f:
            (row,) = json.load(f)["groups"]
        self.assertEqual(row["gate"]["verdict"],
                         {0: "PASS", 1: "FAIL"}.get(row["gate"]["exit"], f"not gated (exit {row['gate']['exit']})"))

    def test_manifest_needs_an_image(self):
        self.refused(["fleet", "submit", "--kube", os.path.join(self.tmp, "m.json"), self.plan(GOOD)], 2,
                     "kubernetes.image: missing")


if __name__ == "__main__":
    unittest.main(verbosity=2)
