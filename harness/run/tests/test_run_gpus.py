#!/usr/bin/env python3
"""`./ptxcts run --gpus` (scripts/run_gpus.sh) on the CPU: a stand-in ptxcts-run in a build folder of its own writes,
for the shard it is given, the cases of a committed fixture run (harness/results/tests/fixtures/runs/h100) whose
index falls to that shard, and records the arguments and CUDA_VISIBLE_DEVICES it saw. The sharded run must give
each GPU one shard under one run id, merge the shards into one document holding every case once, print its closing
table, and exit with the worst shard's code."""
import glob
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
FIXTURE = os.path.join(ROOT, "harness", "results", "tests", "fixtures", "runs", "h100")

# The stand-in: argv as ptxcts-run gets it from run_gpus.sh; PTXCTS_FAKE_EXIT_<shard> sets a shard's exit code.
STAND_IN = r'''#!/usr/bin/env python3
import glob, json, os, sys
a = sys.argv[1:]
opt = {a[i]: a[i + 1] for i in range(len(a) - 1) if a[i].startswith("--")}
k, n = (int(x) for x in opt["--shard"].split("/"))
docs = [json.load(open(p)) for p in sorted(glob.glob(os.path.join(os.environ["FIXTURE"], "shard-*", "results.json")))]
cases = [c for d in docs for c in d["cases"]]
cases.sort(key=lambda c: (c["id"], c["load_path"]))
doc = dict(docs[0], run_id=opt["--run-id"], shard={"index": k, "count": n}, cases=cases[k::n])
os.makedirs(opt["--out"])
json.dump(doc, open(os.path.join(opt["--out"], "results.json"), "w"))
json.dump({"argv": a, "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES")},
          open(os.path.join(opt["--out"], "seen.json"), "w"))
print("stand-in shard %d/%d: %d case(s)" % (k, n, len(doc["cases"])))
sys.exit(int(os.environ.get("PTXCTS_FAKE_EXIT_%d" % k, "0")))
'''


def _load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class RunGpus(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-run-gpus-")
        self.build = os.path.join(self.tmp, "build")
        exe = os.path.join(self.build, "harness", "run", "ptxcts-run")
        os.makedirs(os.path.dirname(exe))
        with open(exe, "w") as f:
            f.write(STAND_IN)
        os.chmod(exe, os.stat(exe).st_mode | stat.S_IXUSR)
        self.all_cases = sorted((c["id"], c["load_path"]) for p in glob.glob(os.path.join(FIXTURE, "shard-*",
                                                                                          "results.json"))
                                for c in _load(p)["cases"])
        self.assertGreaterEqual(len(self.all_cases), 3, "the fixture is too small to spread over GPUs")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def run_gpus(self, gpus, out, **env):
        e = {k: v for k, v in os.environ.items() if not k.startswith(("PTXCTS_", "CUDA_VISIBLE"))}
        e.update(PTXCTS_ROOT=ROOT, PTXCTS_BUILD=self.build, FIXTURE=FIXTURE, **env)
        return subprocess.run([sys.executable, os.path.join(ROOT, "ptxcts"), "run", "--gpus", gpus, "--out", out,
                               "--seed", "7"], env=e, capture_output=True, text=True, timeout=120)

    def test_one_shard_per_gpu_merged(self):
        out = os.path.join(self.tmp, "run")
        p = self.run_gpus("3,5", out)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        seen = [_load(os.path.join(out, f"shard-{k}", "seen.json")) for k in (0, 1)]
        self.assertEqual([s["CUDA_VISIBLE_DEVICES"] for s in seen], ["3", "5"], "each shard pinned to its GPU")
        for k, s in enumerate(seen):
            a = s["argv"]
            self.assertEqual(a[a.index("--shard") + 1], f"{k}/2")
            self.assertIn("--seed", a, "the run tier's own options reach every shard")
        ids = {_load(os.path.join(out, f"shard-{k}", "results.json"))["run_id"] for k in (0, 1)}
        self.assertEqual(len(ids), 1, "one run id for every shard")
        merged = _load(os.path.join(out, "results.json"))
        self.assertEqual(merged["run_id"], ids.pop())
        self.assertEqual(sorted((c["id"], c["load_path"]) for c in merged["cases"]), self.all_cases,
                         "the merged document holds every case once")
        self.assertIn("[gpu 3] stand-in shard 0/2", p.stdout)
        self.assertIn("[gpu 5] stand-in shard 1/2", p.stdout)
        self.assertIn(f"merged: {len(self.all_cases)} cases", p.stdout)

    def test_all_is_every_gpu_the_host_lists(self):
        smi = os.path.join(self.tmp, "nvidia-smi")
        with open(smi, "w") as f:
            f.write('#!/bin/sh\nprintf "0\\n2\\n"\n')   # what scripts/gpus.sh reads: one GPU number a line
        os.chmod(smi, 0o755)
        out = os.path.join(self.tmp, "run")
        p = self.run_gpus("all", out, PTXCTS_NVIDIA_SMI=smi)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual([_load(os.path.join(out, f"shard-{k}", "seen.json"))["CUDA_VISIBLE_DEVICES"] for k in (0, 1)],
                         ["0", "2"])

    def test_the_worst_shard_decides_the_exit(self):
        p = self.run_gpus("0,1", os.path.join(self.tmp, "run"), PTXCTS_FAKE_EXIT_1="1")
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"1/2\s+1\s+\d+\s+[\d.]+\s+1\n", "the table shows the shard's exit")


if __name__ == "__main__":
    unittest.main(verbosity=2)
