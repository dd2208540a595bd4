"""The front-end tier with LLVM 22 (llvm-22): a few cases of known outcome, then every case it can express, gated
against results/baselines/frontend/llvm-22.json.gz. Exits 77 (CTest: skipped) where llvm-22 is not installed:
`./ptxcts setup` installs it."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

import frontend

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
OUT = os.environ.get("PTXCTS_FRONTEND_OUT") or tempfile.mkdtemp(prefix="ptxcts-frontend-")
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]),
           PTXCTS_ROOT=ROOT)
# case -> the class LLVM 22.1.0 with ptxas 13.0 gets, and why
KNOWN = {
    # a valid TMA load with every optional qualifier: the intrinsic selects the same form (qualifier order aside)
    "cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster/cta_group_2/L2_cache_hint@sm_100a.ptx86":
        "pass",
    # the default load mode: LLVM prints .tile (rule load_mode_default_tile)
    "cp.async.bulk.tensor/3d.shared_cta.global@sm_100.ptx86": "pass",
    # .shared::cta written .shared (rule shared_is_shared_cta)
    "cp.async/ca.shared_cta.global/cp_size_16@sm_90.ptx78": "pass",
    # cta_group on sm_100 (not sm_100a): LLVM refuses ("Cannot select"), as it must
    "cp.async.bulk.tensor/3d.shared_cluster.global.tile/cta_group_1@sm_100.ptx86": "pass",
    # a reviewed finding (results/expectations/frontends.toml): the tensor reductions are selected for sm_89, and
    # ptxas rejects what LLVM writes
    "cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_89.ptx80": "spec_divergence",
    # PTX 9.5 is newer than LLVM 22 knows
    "cp.async.bulk.tensor/2d.shared_cluster.global.tile@sm_100a.ptx95": "not_supported",
}


def _run(argv):
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "frontend"] + argv, capture_output=True, text=True, env=ENV, cwd=ROOT)
    return r, time.monotonic() - t0


class LlvmTierTest(unittest.TestCase):
    def test_cases_of_known_outcome(self):
        out = os.path.join(OUT, "known")
        argv = ["run", "--frontend", "llvm-22", "--out", out, "--quiet"]
        for c in KNOWN:
            argv += ["--case", c]
        r, _ = _run(argv)
        self.assertEqual(r.returncode, 0, r.stderr)   # the reduce-tensor finding is reviewed
        with open(os.path.join(out, "results.json")) as f:
            got = {c["id"]: c for c in json.load(f)["cases"]}
        for cid, klass in KNOWN.items():
            self.assertEqual(got[cid]["class"], klass, f"{cid}: {got[cid]['message']}")
        self.assertIn("Cannot select", got["cp.async.bulk.tensor/3d.shared_cluster.global.tile/cta_group_1@sm_100.ptx86"]
                      ["message"])
        self.assertIn("shared_is_shared_cta", got["cp.async/ca.shared_cta.global/cp_size_16@sm_90.ptx78"]["message"])
        self.assertIn("llvm22-tensor-reduce-selected-below-sm90-ptx80",
                      got["cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_89.ptx80"]["message"])
        # without the reviewed findings the same case is a fail
        empty = os.path.join(OUT, "no-findings.toml")
        with open(empty, "w") as f:
            f.write("# no finding\n")
        r, _ = _run(["run", "--frontend", "llvm-22", "--out", out + "-raw", "--quiet", "--findings", empty, "--case",
                     "cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_89.ptx80"])
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("the front-end emitted invalid PTX", r.stderr)

    def test_every_expressible_case_against_the_baseline(self):
        out = os.path.join(OUT, "all")
        r, secs = _run(["run", "--frontend", "llvm-22", "--out", out, "--quiet"])
        sys.stderr.write(r.stderr[-3000:] + f"\nthe LLVM front-end tier took {secs:.0f} s\n")
        self.assertIn(r.returncode, (0, 1), r.stderr)
        g = subprocess.run([sys.executable, "-m", "results", "gate", out, "--list", "20"], capture_output=True,
                           text=True, env=ENV, cwd=ROOT)
        self.assertEqual(g.returncode, 0, g.stdout + g.stderr)


if __name__ == "__main__":
    if not frontend.installed_dir("llvm-22"):
        print("frontend.llvm: SKIPPED: the llvm-22 front-end is not installed (./ptxcts frontend install llvm-22, "
              "or ./ptxcts setup)")
        sys.exit(77)
    unittest.main(verbosity=2)
