"""The fleet on a real Slurm: a private single-node cluster (slurm_cluster.py: munged, slurmctld, slurmd, two fake
GPUs as GRES, node features fake-a and fake-b) and plans run end to end on the run tier's CPU stand-in device
(`run --device model`), through the fleet's own command line (`./ptxcts fleet submit|status|requeue`).

* PlanEndToEnd: 4 shards x 2 fake devices, submit to gated report: a report column per device, each device
  gated PASS against its own baseline (made here by `gate --update` from the unsharded run of the same cases),
  the merged run equal to the unsharded run (`./ptxcts diff` finds no difference), and the scheduling overhead
  (the wall time from submit to the collector's end, less the work: the tasks' own times packed on the two GPUs,
  and the collector's) at most 30 s.
* Faults: 3 shards on one fake device; one task cancelled mid-run (scancel), one task's GPU taken away mid-run
  (its GRES file removed: the probe fails), one task cancelled before it started. The collector names the two
  partial shards with their reasons and the missing one, and the gate refuses the group; the GPU back, `fleet
  requeue` brings the three back, they resume, and the new collector's gate passes with nothing lost (every case
  judged before the interruptions is in the final shard with the same class). A resubmission over the finished
  results folder is refused, the folder unchanged. A resumed task keeps the plan's options (--jobs 1).

* OneHostGates: the plan of a single-node user (the run tier in 4 shards on a stand-in device, the compile
  tier; toolchain 13.0; family filters) gated as one host gates the same runs (exit, counts and words of each
  gate), the compile tier recording ptxas and nvJitLink as its baseline does; a planted regression (a tampered
  copy of the compile baseline the plan names) FAIL while the collector's Slurm job is COMPLETED; the report's
  counts the gates'; a plan Slurm refuses (a partition it lacks, a constraint sbatch refuses), then corrected
  into the same folder.

Exit 77 (a skip, never a pass) where the cluster cannot start (not root, Slurm not installed), unless
PTXCTS_FLEET_SLURM=required (CI): then that is a failure.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "harness"))
sys.path.insert(0, os.path.join(ROOT, "generator"))
from fleet.tests import slurm_cluster  # noqa: E402
from framework.documents import baseline as baseline_mod  # noqa: E402

PTXCTS = os.path.join(ROOT, "ptxcts")
OVERHEAD_LIMIT_S = 30.0
CLUSTER = {}


def ptxcts(args, env=None, timeout=600, check=True):
    r = subprocess.run([PTXCTS] + args, capture_output=True, text=True, env=env or CLUSTER["env"], timeout=timeout)
    if check and r.returncode != 0:
        raise AssertionError(f"./ptxcts {' '.join(args)}: exit {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def slurm(args):
    return subprocess.run(args, capture_output=True, text=True, env=CLUSTER["env"], timeout=60)


def wait(cond, limit_s, what):
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.1)
    raise AssertionError(f"waited {limit_s} s for {what}\n" + slurm(["squeue"]).stdout)


def text(path):
    with open(path) as f:
        return f.read()


def load(path):
    with open(path) as f:
        return json.load(f)


def device_name(dev):
    return f"{dev} (stand-in: model)"   # what fleet/tasks.py names a stand-in device


def unsharded(tmp, dev, args):
    """The unsharded run of the plan's cases on device `dev`, and its baseline (`gate --update`)."""
    out = os.path.join(tmp, f"unsharded-{dev}")
    r = ptxcts(["run", "--device", "model", "--device-name", device_name(dev), "--seed", "1", "--toolchain", "13.0",
                "--out", out, "--quiet"] + args, check=False)
    assert r.returncode in (0, 1), r.stderr
    base = os.path.join(tmp, f"baseline-{dev}.json.gz")
    ptxcts(["gate", out, "--baseline", base, "--update"])
    return out, base


def write_plan(tmp, name, results, shards, devices, args, extra=""):
    text = [f'version = 1\nname = "{name}"\nresults = "{results}"\ntoolchains = ["13.0"]\nseed = 1\n',
            f'[tiers.run]\nshards = {shards}\nargs = {json.dumps(args)}\n', '[cpu]\npartition = "cpu"\n']
    for dev, base in devices.items():
        text.append(f'[devices.{dev}]\nconstraint = "{dev}"\nstand_in = "model"\nbaseline = "{base}"\n{extra}')
    path = os.path.join(tmp, f"{name}.toml")
    with open(path, "w") as f:
        f.write("\n".join(text))
    return path


def jobs(results):
    return load(os.path.join(results, "fleet.json"))["jobs"]


def collected(results, after=None):
    """collect.json once a collector (other than the one that ended at `after`) has finished."""
    rec = load(os.path.join(results, "fleet.json"))
    c = rec.get("collected")
    return c if c and c["ended"] != after else None


def slurm_state(key):
    r = slurm(["squeue", "-h", "-r", "-o", "%i %T"])
    for line in r.stdout.splitlines():
        k, st = line.split()
        if k == key:
            return st
    r = slurm(["scontrol", "-o", "show", "job", key])
    for part in r.stdout.split():
        if part.startswith("JobState="):
            return part.split("=", 1)[1]
    return None


def progress(log):
    """Cases done so far by the task whose log this is (the run tier's progress line), or 0."""
    try:
        with open(log, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return 0
    import re
    found = re.findall(rb"(\d+)/\d+ cases", data)
    return int(found[-1]) if found else 0


def classes(doc):
    return {(c["id"], c["target"], c["load_path"]): c["class"] for c in doc["cases"] if c["class"] != "skipped"}


def pack(works, slots):
    """The makespan of `works` on `slots` machines, longest first (the work without a scheduler)."""
    loads = [0.0] * slots
    for w in sorted(works, reverse=True):
        loads[loads.index(min(loads))] += w
    return max(loads)


class PlanEndToEnd(unittest.TestCase):
    SHARDS = 4
    DEVICES = ("fake-a", "fake-b")
    # two families, one with tensor maps (3,330 cases): the plan's sharding, merge, report and gate are the same over
    # the whole tier, which made each of the 8 tasks about 22 s of a 2-core machine
    ARGS = ["--family", "cp.async", "--family", "cp.async.bulk.prefetch.tensor", "--quiet"]

    def test_array_of_shards_merged_reported_and_gated(self):
        tmp = tempfile.mkdtemp(prefix="ptxcts-fleet-e2e-")
        refs = {d: unsharded(tmp, d, self.ARGS) for d in self.DEVICES}
        results = os.path.join(tmp, "results")
        plan = write_plan(tmp, "e2e", results, self.SHARDS, {d: refs[d][1] for d in self.DEVICES}, self.ARGS)
        t0 = time.time()
        r = ptxcts(["fleet", "submit", "--slurm", plan])
        self.assertIn("collector", r.stdout)
        done = wait(lambda: collected(results), 600, "the collector")
        t1 = time.time()
        summary = load(os.path.join(results, "collect.json"))
        self.assertEqual(summary["verdict"], "PASS", text(os.path.join(results, "collect.md")))
        self.assertTrue(done["complete"])
        # a report column per device, each named with the tasks that produced it
        report = load(os.path.join(results, "report", "report.json"))
        labels = sorted(c["label"] for c in report["columns"])
        self.assertEqual(labels, sorted(f"run sm_90 [{device_name(d)}]" for d in self.DEVICES))
        self.assertEqual(report["missing_shards"], [])
        self.assertEqual(report["partial_runs"], [])
        for row in summary["groups"]:
            self.assertEqual(row["gate"]["exit"], 0, row)
            self.assertEqual(row["column"], f"run sm_90 [{device_name(row['device'])}]")
            self.assertEqual(len({s["job"] for s in row["shards"]}), self.SHARDS)
            gate = load(row["gate"]["json"])
            self.assertEqual((gate["exit"], gate["regressions"], gate["counts"]["unchanged"]),
                             (0, [], len(classes(load(os.path.join(refs[row["device"]][0], "results.json"))))))
        # the merged run equals the unsharded run of the same cases
        for d in self.DEVICES:
            merged = os.path.join(results, "merged", f"run.13.0.{d}")
            self.assertEqual(classes(load(os.path.join(merged, "results.json"))),
                             classes(load(os.path.join(refs[d][0], "results.json"))))
            r = ptxcts(["diff", merged, refs[d][0]], check=False)
            self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr)
        # status reads the tree and Slurm: every task finished, every case counted
        r = ptxcts(["fleet", "status", results])
        self.assertIn(f"{self.SHARDS * len(self.DEVICES)} task(s): {self.SHARDS * len(self.DEVICES)} finished",
                      r.stdout)
        # scheduling overhead: the wall time less the work packed on the cluster's two GPUs, less the collector
        works = []
        for row in summary["groups"]:
            for s in row["shards"]:
                task = load(os.path.join(os.path.dirname(s["document"]), "task.json"))
                a = task["attempts"][-1]
                works.append(a["t_end"] - a["t_start"])
        ideal = pack(works, slurm_cluster.GPUS) + summary["seconds"]
        wall = t1 - t0
        overhead = wall - ideal
        numbers = {"tasks": len(works), "devices": len(self.DEVICES), "wall_s": round(wall, 1),
                   "work_packed_s": round(pack(works, slurm_cluster.GPUS), 1), "collector_s": summary["seconds"],
                   "task_work_s": [round(w, 2) for w in works], "overhead_s": round(overhead, 1)}
        print("fleet overhead: " + json.dumps(numbers), flush=True)
        if os.environ.get("PTXCTS_FLEET_NUMBERS"):
            with open(os.environ["PTXCTS_FLEET_NUMBERS"], "a") as f:
                f.write(json.dumps(numbers) + "\n")
        self.assertLessEqual(overhead, OVERHEAD_LIMIT_S, numbers)
        shutil.rmtree(tmp, ignore_errors=True)


class Faults(unittest.TestCase):
    SHARDS = 3
    ARGS = ["--jobs", "1"]   # slow enough (several seconds a shard) to be cut mid-run

    def test_cancelled_lost_and_never_run_tasks_resume_with_nothing_lost(self):
        tmp = tempfile.mkdtemp(prefix="ptxcts-fleet-faults-")
        ref, base = unsharded(tmp, "fake-a", ["--quiet"])
        results = os.path.join(tmp, "results")
        gres = os.path.join(CLUSTER["dir"], "gres")
        plan = write_plan(tmp, "faults", results, self.SHARDS, {"fake-a": base}, self.ARGS,
                          extra=f'probe = ["test", "-e", "{gres}/gpu{{gpu}}"]\nprobe_every = 0.3\n')
        ptxcts(["fleet", "submit", "--slurm", plan])
        (array,) = [j["id"] for j in jobs(results) if j["kind"] == "array"]
        logs = os.path.join(results, "logs")
        # tasks 0 and 1 hold the two GPUs; task 2 waits for one
        wait(lambda: all(progress(os.path.join(logs, f"run.13.0.fake-a-{i}.log")) > 0 for i in (0, 1)), 120,
             "tasks 0 and 1 to judge cases")
        self.assertEqual(slurm_state(f"{array}_2"), "PENDING")
        slurm(["scancel", f"{array}_2"])   # never runs
        slurm(["scancel", f"{array}_0"])   # cancelled mid-run
        task1 = load(os.path.join(results, "runs", "run.13.0.fake-a", "shard-1", "task.json"))
        gpu_file = os.path.join(gres, f"gpu{task1['attempts'][-1]['gpu']}")
        os.remove(gpu_file)                # task 1's GPU is gone mid-run
        try:
            first = wait(lambda: collected(results), 300, "the first collector")
        finally:
            os.symlink("/dev/null", gpu_file)
        self.assertFalse(first["complete"])
        self.assertEqual(first["verdict"], "FAIL")
        summary = load(os.path.join(results, "collect.json"))
        (row,) = summary["groups"]
        states = {s["index"]: (s["state"], s["reason"]) for s in row["shards"]}
        self.assertEqual(states[0][0], "partial", states)
        self.assertIn("interrupted by SIGTERM", states[0][1])
        self.assertEqual(states[1][0], "partial", states)
        self.assertIn("GPU lost mid-run", states[1][1])
        self.assertEqual(states[2][0], "missing", states)
        self.assertNotEqual(row["gate"]["exit"], 0)   # never gated PASS with shards missing
        report = load(os.path.join(results, "report", "report.json"))
        self.assertEqual([m["index"] for m in report["missing_shards"]], [2])
        self.assertEqual(len(report["partial_runs"]), 2)
        md = text(os.path.join(results, "collect.md"))
        self.assertIn("shard 2: missing: never ran", md)
        self.assertIn("GPU lost mid-run", md)
        judged = {}
        for i in (0, 1):
            doc = load(os.path.join(results, "runs", "run.13.0.fake-a", f"shard-{i}", "results.json"))
            self.assertGreater(doc["partial"]["done"], 0, doc["partial"])
            judged[i] = classes(doc)
        # the GPU is back: requeue; the three resume and a new collector gates them
        r = ptxcts(["fleet", "requeue", results])
        self.assertIn("requeued", r.stdout)
        final = wait(lambda: collected(results, after=first["ended"]), 300, "the collector after the requeue")
        summary = load(os.path.join(results, "collect.json"))
        self.assertEqual(final["verdict"], "PASS", text(os.path.join(results, "collect.md")))
        (row,) = summary["groups"]
        self.assertEqual({s["state"] for s in row["shards"]}, {"finished"})
        merged = classes(load(os.path.join(results, "merged", "run.13.0.fake-a", "results.json")))
        self.assertEqual(merged, classes(load(os.path.join(ref, "results.json"))))
        for i in (0, 1):
            final_doc = load(os.path.join(results, "runs", "run.13.0.fake-a", f"shard-{i}", "results.json"))
            self.assertNotIn("partial", final_doc)
            now = classes(final_doc)
            self.assertEqual({k: now[k] for k in judged[i]}, judged[i])   # nothing judged was lost or re-judged
            task = load(os.path.join(results, "runs", "run.13.0.fake-a", f"shard-{i}", "task.json"))
            self.assertTrue(task["attempts"][-1]["resume"], task["attempts"])
            self.assertEqual(task["attempts"][-1]["command"][3:], self.ARGS)   # the plan's --jobs 1 kept
        # a finished results folder is never overwritten
        before = {n: os.path.getmtime(os.path.join(results, n)) for n in os.listdir(results)}
        r = ptxcts(["fleet", "submit", "--slurm", plan], check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("holds a finished fleet run", r.stderr)
        self.assertEqual({n: os.path.getmtime(os.path.join(results, n)) for n in os.listdir(results)}, before)
        shutil.rmtree(tmp, ignore_errors=True)


def host_gate(tmp, name, run, partial):
    """One host's gate of `run` (scripts/all.sh: ./ptxcts gate RUN, --partial for a filtered run): (exit, JSON
    or None, its `gate:` lines)."""
    out = os.path.join(tmp, f"host-gate-{name}.json")
    r = ptxcts(["gate", run, "--json", out] + (["--partial"] if partial else []), check=False)
    said = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.startswith("gate:")]
    return r.returncode, (load(out) if os.path.exists(out) else None), said


def same_counts(report_entry, gate):
    """The report's counts of a run against its baseline, as the gate counts them. Until ./ptxcts report takes
    --partial, it calls the cases a partial gate lists as not run `missing`."""
    counts = {k: v for k, v in report_entry["counts"].items() if v}
    if gate["counts"].get("not_run") and "missing" in counts:
        counts["not_run"] = counts.pop("missing")
    return counts == {k: v for k, v in gate["counts"].items() if v}


class OneHostGates(unittest.TestCase):
    """The plan of a single-node 22.05 user (the run tier sharded on a stand-in device, the compile tier, toolchain
    13.0, family filters; nothing beyond fleet/README.md's keys) gated as one host gates the same tiers; a
    planted regression (a copy of the compile baseline the plan names, one case changed) FAIL with the collector
    COMPLETED; the report's counts the gates'; a plan Slurm refuses, then corrected into the same folder."""
    RUN = ["--family", "cp.async.bulk.prefetch", "--quiet"]
    COMPILE = ["--family", "cp.async.bulk.groups", "--target", "sm_90", "--quiet"]
    SHARDS = 4

    def plan(self, tmp, name, results, compile_extra="", cpu='partition = "cpu"', device=""):
        text = (f'version = 1\nname = "{name}"\nresults = "{results}"\ntoolchains = ["13.0"]\n'
                f'[tiers.run]\nshards = {self.SHARDS}\nargs = {json.dumps(self.RUN)}\n'
                f'[tiers.compile]\nargs = {json.dumps(self.COMPILE)}\n{compile_extra}'
                f'[devices.fake-a]\nconstraint = "fake-a"\nstand_in = "model"\n{device}[cpu]\n{cpu}\n')
        path = os.path.join(tmp, f"{name}.toml")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_fleet_gates_agree_with_one_hosts(self):
        tmp = tempfile.mkdtemp(prefix="ptxcts-fleet-gates-")
        # one host: the same tiers and options, gated as scripts/all.sh gates them
        host_run, host_compile = os.path.join(tmp, "host-run"), os.path.join(tmp, "host-compile")
        r = ptxcts(["run", "--device", "model", "--device-name", device_name("fake-a"), "--seed", "1",
                    "--toolchain", "13.0", "--out", host_run] + self.RUN, check=False)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        r = ptxcts(["compile", "--toolchain", "13.0", "--verdicts", "ptxas,nvjitlink", "--out", host_compile] +
                   self.COMPILE, check=False)
        self.assertIn(r.returncode, (0, 1), r.stderr)
        host = {"run.13.0.fake-a": host_gate(tmp, "run", host_run, True),
                "compile.13.0": host_gate(tmp, "compile", host_compile, True)}
        self.assertEqual(host["compile.13.0"][0], 0, host["compile.13.0"][2])
        # the planted regression: the committed compile baseline with one case the run passes recorded as
        # beyond_chapter (a change the gate calls a regression)
        header, cases = baseline_mod.load(host["compile.13.0"][1]["baseline"])
        done = load(os.path.join(host_compile, "results.json"))
        planted = next(k for k in sorted(cases) if cases[k] == "pass" and k[0] in {c["id"] for c in done["cases"]})
        cases[planted] = "beyond_chapter"
        tampered = os.path.join(tmp, "compile-13.0-tampered.json.gz")
        baseline_mod.write(tampered, header["tier"], header["toolchain"], header["sm"], header["source"], cases,
                           header["device"])

        # refused: a partition Slurm does not have (before anything is written), then a constraint sbatch
        # refuses (every job held, the accepted ones cancelled: nothing ran); the corrected plan, same folder
        results = os.path.join(tmp, "results")
        r = ptxcts(["fleet", "submit", "--slurm", self.plan(tmp, "gates", results, cpu='partition = "nope"')],
                   check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cpu.partition: 'nope': Slurm has no such partition", r.stderr)
        self.assertFalse(os.path.exists(results))
        r = ptxcts(["fleet", "submit", "--slurm", self.plan(tmp, "gates", results, cpu='constraint = "fake-a&nope"')],
                   check=False)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("group compile.13.0: Slurm: sbatch refused the job", r.stderr)
        cancelled = load(os.path.join(results, "fleet.json"))["refused"]["cancelled"]
        self.assertEqual(len(cancelled), 1)   # the run array, held, never ran
        self.assertEqual(slurm_state(f"{cancelled[0]}_0"), "CANCELLED")
        ptxcts(["fleet", "submit", "--slurm", self.plan(tmp, "gates", results)])
        planted_results = os.path.join(tmp, "planted")
        ptxcts(["fleet", "submit", "--slurm", self.plan(tmp, "planted", planted_results,
                                                          compile_extra=f'baseline = "{tampered}"\n')])
        wait(lambda: collected(results) and collected(planted_results), 300, "the two collectors")

        summary = load(os.path.join(results, "collect.json"))
        md = text(os.path.join(results, "collect.md"))
        self.assertTrue(summary["complete"] and summary["ran"], md)
        gates = {}
        for row in summary["groups"]:
            code, doc, said = host[row["group"]]
            gate = load(row["gate"]["json"]) if row["gate"]["json"] else None
            gates[row["group"]] = gate
            # the fleet's gate says what one host's says: its exit, its counts, its words in collect.md
            self.assertEqual(row["gate"]["exit"], code, (row, said))
            self.assertEqual((gate or {}).get("counts"), (doc or {}).get("counts"), row["group"])
            self.assertIn("    " + said[-1], md)
        # nothing regressed and no baseline made by hand: PASS, as one host's gates say (the stand-in device has no
        # baseline: ./ptxcts gate judges it against the model and the reviewed record, gate.judge_without_baseline)
        self.assertEqual({g: h[0] for g, h in host.items()}, {g: 0 for g in host}, md)
        self.assertEqual(summary["verdict"], "PASS", md)
        self.assertIn("NO BASELINE of this device", md)
        self.assertEqual(load(os.path.join(results, "fleet.json"))["collected"]["verdict"], summary["verdict"])
        # the compile tier recorded what its baseline holds
        compiled = load(os.path.join(results, "runs", "compile.13.0", "shard-0", "results.json"))
        self.assertEqual({c["load_path"] for c in compiled["cases"]}, {"ptxas", "nvjitlink"})
        # the report classified each run against the baseline its gate used, to the gate's counts
        report = load(os.path.join(results, "report", "report.json"))
        self.assertTrue(all(same_counts(e, gates["compile.13.0"]) for e in report["regressions"] if e.get("found")
                            and e["tier"] == "compile"), report["regressions"])
        self.assertEqual(report["missing_shards"], [])

        planted_summary = load(os.path.join(planted_results, "collect.json"))
        planted_md = text(os.path.join(planted_results, "collect.md"))
        row = next(r for r in planted_summary["groups"] if r["group"] == "compile.13.0")
        self.assertEqual((planted_summary["verdict"], row["gate"]["exit"]), ("FAIL", 1), planted_md)
        gate = load(row["gate"]["json"])
        self.assertEqual([(e["kind"], e["run"]) for e in gate["regressions"]], [("changed", "pass")])
        self.assertIn("gate: FAIL: 1 unwaived regressions (exit 1)", planted_md)
        (entry,) = [e for e in load(os.path.join(planted_results, "report", "report.json"))["regressions"]
                    if e["tier"] == "compile"]
        self.assertEqual(entry["regressions"], 1)
        self.assertTrue(same_counts(entry, gate), (entry["counts"], gate["counts"]))
        # the collector did its work: Slurm says COMPLETED although its verdict is FAIL
        (collector,) = [j["id"] for j in jobs(planted_results) if j["kind"] == "collector"]
        self.assertEqual(slurm_state(collector), "COMPLETED")
        self.assertIn("verdict FAIL", ptxcts(["fleet", "status", planted_results]).stdout)
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    d = tempfile.mkdtemp(prefix="ptxcts-slurm-")
    code = slurm_cluster.main(["start", d])
    if code != 0:
        return code   # 77: cannot start here (a skip); 1: it should have
    CLUSTER.update(dir=d, env=dict(os.environ, SLURM_CONF=os.path.join(d, "slurm.conf")))
    try:
        prog = unittest.main(module=__name__, exit=False, verbosity=2)
        return 0 if prog.result.wasSuccessful() else 1
    finally:
        slurm_cluster.main(["stop", d])
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
