#!/usr/bin/env python3
"""The run tier's module cache under runs at once (manifest.cpp: prepare_modules, content_folder): the shards of
`run --gpus`, the self-test beside the run tier and a planted fault's modules beside the clean ones prepare
modules of one toolchain, target and tag at the same time. Each must get a whole folder of its own modules (kept
under their digest), none may remove what another loads, and nothing half-written (a stage folder, a cubin's
part file) may stay. On the CPU: ptxcts-run --prepare-only, several at once, in a build folder of the test's."""
import glob
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
BUILD = os.environ.get("PTXCTS_BUILD") or os.path.join(ROOT, "build")
EXE = os.path.join(BUILD, "harness", "run", "ptxcts-run")


class ModuleCache(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-modcache-")
        # a build folder of its own: the binary, so that build_root() (beside the binary) is the test's
        os.makedirs(os.path.join(self.tmp, "harness", "run"))
        shutil.copy(EXE, os.path.join(self.tmp, "harness", "run", "ptxcts-run"))
        with open(os.path.join(self.tmp, "ptxcts-build.txt"), "w") as f:   # as ./ptxcts build records a folder
            f.write(f"build={self.tmp}\nsource={ROOT}\n")
        self.exe = os.path.join(self.tmp, "harness", "run", "ptxcts-run")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def prepare_at_once(self, selections):
        env = dict(os.environ, PTXCTS_ROOT=ROOT, PTXCTS_BUILD=self.tmp)
        procs = [subprocess.Popen([self.exe, "--prepare-only", "sm_90", *[x for f in fams for x in ("--family", f)]],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                 for fams in selections]
        outs = []
        for p in procs:
            with p.stdout:
                text = p.stdout.read()
            outs.append((p.wait(timeout=300), text))
        return outs

    def test_runs_at_once_each_get_their_whole_modules(self):
        same = ("cp.async.bulk", "cp.async.groups")
        other = ("cp.async.bulk", "cp.async.bulk.groups")
        outs = self.prepare_at_once([same, same, other, same])
        for code, text in outs:
            self.assertEqual(code, 0, text)
        folders = {line.split(" under ")[1].split(",")[0] for _, text in outs for line in text.splitlines()
                   if " under " in line}
        self.assertEqual(len(folders), 2, "one folder per distinct set of modules")
        for d in folders:
            names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(d, "*")))
            ptx = [n for n in names if n.endswith(".ptx")]
            self.assertTrue(ptx and "index.json" in names, names)
            self.assertEqual(len([n for n in names if n.endswith(".cubin")]), len(ptx), names)
        cache = glob.glob(os.path.join(self.tmp, "harness", "run", "modules", "*", "*"))
        left = [p for c in cache for p in glob.glob(os.path.join(c, "**", "*"), recursive=True)
                if ".stage-" in p or ".part-" in p]
        self.assertEqual(left, [], "nothing half-written stays")

    def test_an_earlier_set_of_modules_is_not_read_again(self):
        first = self.prepare_at_once([("cp.async.bulk",)])[0][1]
        second = self.prepare_at_once([("cp.async.bulk",)])[0][1]
        where = lambda text: [line.split(" under ")[1].split(",")[0] for line in text.splitlines() if " under " in line]
        self.assertEqual(where(first), where(second), "the same modules: the same folder, reused")


if __name__ == "__main__":
    unittest.main()
