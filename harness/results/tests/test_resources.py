"""The example CTest resource spec (harness/results/resources/gpus.json) as real CTest reads it: tests that ask for
RESOURCE_GROUPS "gpus:1" each get one distinct GPU id through CTEST_RESOURCE_GROUP_0_GPUS, as the run tier's
shard tests will."""
import json
import os
import re
import shutil
import subprocess
import unittest

from .common import REPO, TempDirTest

SPEC = os.path.join(REPO, "harness", "results", "resources", "gpus.json")
SHARDS = 4


class ResourceSpec(TempDirTest):
    def test_spec_shape(self):
        with open(SPEC, encoding="utf-8") as f:
            spec = json.load(f)
        self.assertEqual(spec["version"], {"major": 1, "minor": 0})
        gpus = spec["local"][0]["gpus"]
        self.assertEqual(len({g["id"] for g in gpus}), len(gpus))
        self.assertTrue(all(isinstance(g["slots"], int) and g["slots"] >= 1 for g in gpus))

    def test_ctest_hands_each_shard_its_own_gpu(self):
        ctest, cmake = shutil.which("ctest"), shutil.which("cmake")
        if not (ctest and cmake):
            self.fail("cmake/ctest not found: run ./ptxcts setup")
        src, build = os.path.join(self.tmp, "src"), os.path.join(self.tmp, "build")
        os.makedirs(src)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.16)\nproject(spec NONE)\nenable_testing()\n"
                    f"foreach(i RANGE {SHARDS - 1})\n"
                    "  add_test(NAME shard_${i} COMMAND ${CMAKE_COMMAND} -E environment)\n"
                    '  set_tests_properties(shard_${i} PROPERTIES RESOURCE_GROUPS "gpus:1")\n'
                    "endforeach()\n")
        subprocess.run([cmake, "-S", src, "-B", build], check=True, capture_output=True)
        p = subprocess.run([ctest, "--test-dir", build, "-V", "-j", str(SHARDS), "--resource-spec-file", SPEC],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        got = re.findall(r"CTEST_RESOURCE_GROUP_0_GPUS=id:(\d+),slots:1", p.stdout)
        self.assertEqual(len(got), SHARDS, p.stdout)
        with open(SPEC, encoding="utf-8") as f:
            ids = {g["id"] for g in json.load(f)["local"][0]["gpus"]}
        self.assertTrue(set(got) <= ids)


if __name__ == "__main__":
    unittest.main()
