#!/usr/bin/env python3
"""No green without a GPU (docs/CLI.md, "No GPU here"): every GPU verb, with every device hidden
(CUDA_VISIBLE_DEVICES set but empty -- the same on a GPU runner as on a CPU one), must exit 77, say
"VERB: skipped, no GPU here:" and why, and judge nothing (the run tier records the skip: a document with no device
and every case skipped with the reason); what needs no GPU (--list, --device model, a usage error) must keep its
own exit. Run by CTest (cli.no_gpu) with PTXCTS_BUILD naming the build folder."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PTXCTS = os.path.join(ROOT, "ptxcts")
SKIPPED = 77
WHY = "CUDA_VISIBLE_DEVICES is set but empty"


def ptxcts(args, tmp, **env):
    e = {k: v for k, v in os.environ.items() if not k.startswith(("GTEST_", "CTEST_RESOURCE"))}
    e.update(CUDA_VISIBLE_DEVICES="", **env)
    if e.get("PTXCTS_BUILD"):   # the commands run in a folder of their own
        e["PTXCTS_BUILD"] = os.path.abspath(e["PTXCTS_BUILD"])
    return subprocess.run([sys.executable, PTXCTS] + args, cwd=tmp, env=e, capture_output=True, text=True,
                          timeout=600)


class HiddenGpu(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-no-gpu-")
        self.out = os.path.join(self.tmp, "out")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def skipped(self, verb, args, writes=False):
        p = ptxcts(args, self.tmp)
        self.assertEqual(p.returncode, SKIPPED, f"{args}: {p.stdout[-500:]}{p.stderr[-500:]}")
        self.assertIn(f"{verb}: skipped, no GPU here: {WHY}", p.stderr)
        if not writes:
            self.assertFalse(os.path.exists(self.out), f"{args} wrote {self.out}")
        return p

    def only_skips(self):
        """Whatever run document the verb left under --out records skips only."""
        for d, _, files in os.walk(self.out):
            if "results.json" in files:
                with open(os.path.join(d, "results.json")) as f:
                    doc = json.load(f)
                self.assertEqual({c["class"] for c in doc["cases"]} - {"skipped"}, set(), d)

    def test_run_records_the_skip(self):
        p = self.skipped("run", ["run", "--family", "cp.async.bulk.prefetch", "--out", self.out], writes=True)
        self.assertIn(f"recorded in {self.out}/results.json", p.stderr)
        with open(os.path.join(self.out, "results.json")) as f:
            doc = json.load(f)
        self.assertIsNone(doc["device"])
        self.assertTrue(doc["cases"])
        self.assertEqual({c["class"] for c in doc["cases"]}, {"skipped"})
        self.assertTrue(all(c["message"].startswith(WHY) for c in doc["cases"]), doc["cases"][0]["message"])
        v = subprocess.run([sys.executable, PTXCTS, "validate", os.path.join(self.out, "results.json")],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(v.returncode, 0, v.stdout + v.stderr)

    def test_run_over_every_gpu(self):
        self.skipped("run", ["run", "--gpus", "all", "--family", "cp.async.bulk.prefetch", "--out", self.out],
                     writes=True)
        self.only_skips()

    def test_explore(self):
        self.skipped("explore", ["explore", "--time", "5", "--cases-file", "none", "--out", self.out])

    def test_litmus(self):
        self.skipped("litmus", ["litmus", "--iters", "1"])

    def test_selftest(self):
        self.skipped("selftest", ["selftest", "--kind", "wait_count", "--family", "cp.async.bulk.groups", "--out",
                                  self.out], writes=True)
        self.only_skips()

    def test_frontend_whole_run(self):
        kernels = os.path.join(self.tmp, "kernels")
        os.makedirs(kernels)
        case = {"entry": "k", "form": "f", "asked": "f", "template": "cp_async", "instruction": "i", "args": [],
                "buffers": {}, "meta": {"num_warps": 1, "shared": 0, "num_ctas": 1}, "expect": {}, "rule": "r"}
        with open(os.path.join(kernels, "index.json"), "w") as f:
            json.dump({"format": "ptxcts-whole-kernels", "version": 1, "frontend": "triton", "compiler": "Triton 3.9.0",
                       "ptxas": "?", "target": "sm_90a", "ptx": "8.6", "cases": [case], "refused": {},
                       "not_written": {}}, f)
        self.skipped("whole-run", ["frontend", "whole-run", kernels, "--out", self.out], writes=True)
        with open(os.path.join(self.out, "results.jsonl")) as f:
            classes = {json.loads(ln).get("class") for ln in f} - {None}
        self.assertEqual(classes, {"skipped"})

    def test_what_needs_no_gpu_keeps_its_exit(self):
        self.assertEqual(ptxcts(["run", "--family", "cp.async", "--list"], self.tmp).returncode, 0)
        p = ptxcts(["run", "--device", "model", "--family", "cp.async.bulk.prefetch", "--quiet", "--out", self.out],
                   self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr[-500:])
        self.assertTrue(os.path.isfile(os.path.join(self.out, "results.json")))

    def test_a_usage_error_is_not_hidden_by_the_skip(self):
        os.makedirs(self.out)
        open(os.path.join(self.out, "results.json"), "w").write("{}\n")
        for args in (["run", "--family", "cp.async", "--out", self.out], ["explore", "--out", self.out],
                     ["run", "--seed", "-1"], ["litmus", "--iters", "0"]):
            p = ptxcts(args, self.tmp)
            self.assertEqual(p.returncode, 2, f"{args}: {p.stderr[-400:]}")


if __name__ == "__main__":
    unittest.main()
