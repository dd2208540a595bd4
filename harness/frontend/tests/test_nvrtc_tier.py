"""The front-end tier with NVRTC 13.5 + CCCL 3.5 (nvrtc-13.5+cccl-3.5, paired with ptxas 13.5): a few cases of known
outcome, then every case it can express, gated against results/baselines/frontend/nvrtc-13.5+cccl-3.5.json.gz.
Exits 77 (CTest: skipped) where the front-end or toolchain 13.5 is not installed
(./ptxcts frontend install nvrtc-13.5+cccl-3.5; ./ptxcts toolchains install 13.5)."""
import os
import unittest

import frontend
from framework import toolchains
from frontend.tests.tier_check import OUT, check_every_case, check_known, main
from ptxcts_gen import isa, model
from ptxcts_gen.frontends import Spelling, cccl
from ptxcts_gen.targets import ptx_key

NAME = "nvrtc-13.5+cccl-3.5"
KNOWN = {
    # cuda::ptx::fence_proxy_async(space_cluster): CCCL's asm string ends in a comment, the instruction is the form
    "fence.proxy.async/shared_cluster/generic_write_then_bulk_read@sm_100.ptx95": "pass",
    # a TMA load through cuda::ptx::cp_async_bulk_tensor with a tensorCoords array
    "cp.async.bulk.tensor/3d.shared_cluster.global.tile@sm_90.ptx95": "pass",
    # a finding: CCCL guards its functions by PTX ISA version only, so NVRTC writes cp.async.bulk for sm_89, and
    # ptxas rejects it
    "cp.async.bulk/global.shared_cta.bulk_group@sm_89.ptx95": "spec_divergence",
    # NVRTC 13.5 writes PTX ISA 9.5 only
    "cp.async.bulk.tensor/3d.shared_cluster.global.tile@sm_90.ptx80": "not_supported",
    # PTX ISA 9.2-9.5 qualifiers CCCL 3.5 writes: cp_async_bulk_ignore_oob (sm_90), the report_mechanism tag and
    # cp_async_bulk_multicast_32b (sm_107a / sm_107f), cp_async_bulk_wait_group_sync_restrict_proxy_async
    "cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/ignore_oob@sm_90.ptx95": "pass",
    "cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/mbarrier_report_validity_per_element_ff"
    "@sm_107a.ptx95": "pass",
    "cp.async.bulk/shared_cluster.global.mbarrier_complete_tx_bytes/multicast_cluster_32b@sm_107f.ptx95": "pass",
    "cp.async.bulk.wait_group.sync_restrict_proxy_async/N_1/groups_3@sm_90.ptx95": "pass",
    "cp.async.bulk.prefetch.tensor/2d.L2.global.tile_gather4/L2_evict_last@sm_107a.ptx95": "pass",
    # the same finding for a PTX ISA 9.4 qualifier: written for sm_110a, which .multicast::cluster::32b excludes
    "cp.async.bulk/shared_cluster.global.mbarrier_complete_tx_bytes/multicast_cluster_32b@sm_110a.ptx95":
        "spec_divergence",
}


class NvrtcTierTest(unittest.TestCase):
    def test_cases_of_known_outcome(self):
        check_known(self, NAME, os.path.join(OUT, "nvrtc-known"), KNOWN)

    def test_what_cccl_writes_only_for_forms_the_manifest_lacks(self):
        # the PTX 9.x functions no generated form called before the whole product (the tensor .mbarrier::report::* /
        # ::32b ones, which CCCL writes with .cta_group only): every valid form of the model's vocabulary is a
        # generated form now (model.whole_product), so none is left for this test to compile on its own; the tier
        # judges them all (2026-12-06, ptxas 13.5: 283 forms of PTX ISA 9.1+, 463 cases, 0 fail)
        generated = {f.id for f in model.all_forms()}
        forms = [f.id for mod in isa.families() for f in model.vocabulary_forms(mod)
                 if f.valid and f.id not in generated and ptx_key(f.min_ptx) > ptx_key("9.0")
                 and isinstance(cccl.spell(f), Spelling)]
        self.assertEqual(forms, [])

    def test_every_expressible_case_against_the_baseline(self):
        check_every_case(self, NAME, os.path.join(OUT, "nvrtc-all"), "NVRTC + CCCL", 2000)


if __name__ == "__main__":
    missing = [what for what, ok in ((f"front-end {NAME}", frontend.installed_dir(NAME)),
                                     ("toolchain 13.5", toolchains.installed_dir("13.5"))) if not ok]
    main(f"frontend.nvrtc: SKIPPED: {' and '.join(missing)} not installed (./ptxcts frontend install {NAME}; "
         "./ptxcts toolchains install 13.5)" if missing else None)
