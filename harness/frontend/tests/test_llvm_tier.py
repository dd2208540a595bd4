"""The front-end tier with LLVM 22 (llvm-22): a few cases of known outcome, then every case it can express, gated
against results/baselines/frontend/llvm-22.json.gz. Exits 77 (CTest: skipped) where llvm-22 is not installed:
`./ptxcts setup` installs it."""
import os
import unittest

import frontend
from frontend.tests.tier_check import OUT, check_every_case, check_known, main, run

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


class LlvmTierTest(unittest.TestCase):
    def test_cases_of_known_outcome(self):
        out = os.path.join(OUT, "known")
        got = check_known(self, "llvm-22", out, KNOWN)   # the reduce-tensor finding is reviewed
        self.assertIn("Cannot select", got["cp.async.bulk.tensor/3d.shared_cluster.global.tile/cta_group_1@sm_100.ptx86"]
                      ["message"])
        self.assertIn("shared_is_shared_cta", got["cp.async/ca.shared_cta.global/cp_size_16@sm_90.ptx78"]["message"])
        self.assertIn("llvm22-tensor-reduce-selected-below-sm90-ptx80",
                      got["cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_89.ptx80"]["message"])
        # without the reviewed findings the same case is a fail
        empty = os.path.join(OUT, "no-findings.toml")
        with open(empty, "w") as f:
            f.write("# no finding\n")
        r, _ = run(["run", "--frontend", "llvm-22", "--out", out + "-raw", "--quiet", "--findings", empty, "--case",
                    "cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_89.ptx80"])
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("the front-end emitted invalid PTX", r.stderr)

    def test_every_expressible_case_against_the_baseline(self):
        check_every_case(self, "llvm-22", os.path.join(OUT, "all"), "LLVM", 3000)


if __name__ == "__main__":
    main(None if frontend.installed_dir("llvm-22") else
         "frontend.llvm: SKIPPED: the llvm-22 front-end is not installed (./ptxcts frontend install llvm-22, or "
         "./ptxcts setup)")
