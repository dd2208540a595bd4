"""`./ptxcts fleet` without a Slurm cluster: the plan's bad inputs (exit 2 for a name the suite does not know, 3
for a malformed plan), results folders that cannot take a run (finished, holding a run, not a folder, not
shared), Slurm missing or unreachable, a job ID that is not the plan's -- each a clear error that leaves what is
there untouched; every tier's task command; the Kubernetes recipe, whose Indexed Job pods are run here by hand
(JOB_COMPLETION_INDEX) on the run tier's CPU stand-in device and collected into a gated report."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "harness"))
sys.path.insert(0, os.path.join(ROOT, "generator"))
from fleet import plan as planmod  # noqa: E402
from fleet import slurm as slurmmod  # noqa: E402
from fleet import tasks as taskmod  # noqa: E402
from fleet.errors import FleetError  # noqa: E402

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
        self.assertEqual(taskmod.command(record, groups["compile.13.0"], 0, True),
                         ["compile", "--resume", "/r/runs/compile.13.0/shard-0"])
        # a tier that does not resume starts again
        self.assertEqual(taskmod.command(record, groups["lower.13.0"], 0, True)[:3],
                         ["lower", "--out", "/r/runs/lower.13.0/shard-0"])
        self.assertFalse(groups["compile.13.0"]["gpu"])


class Kubernetes(Base):
    """The second recipe: the manifest's Indexed Jobs, and their pods' command run here by hand, index by index."""

    def test_indexed_jobs_run_by_index_then_collected(self):
        ref = os.path.join(self.tmp, "ref")
        r = ptxcts(["run", "--device", "model", "--device-name", "fake-a (stand-in: model)", "--seed", "1",
                    "--toolchain", "13.0", "--out", ref] + SMALL)
        self.assertEqual(r.returncode, 0, r.stderr)
        base = os.path.join(self.tmp, "base.json.gz")
        self.assertEqual(ptxcts(["gate", ref, "--baseline", base, "--update"]).returncode, 0)
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
        # one device: its column is the architecture's (the report names devices when several share one)
        self.assertIn("| run.13.0.fake-a | run sm_90 | 2 finished | 0: pod-0 @ ", r.stdout)
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

    def test_manifest_needs_an_image(self):
        self.refused(["fleet", "submit", "--kube", os.path.join(self.tmp, "m.json"), self.plan(GOOD)], 2,
                     "kubernetes.image: missing")


if __name__ == "__main__":
    unittest.main(verbosity=2)
