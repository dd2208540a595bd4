"""The front-end tier with the Triton language (`triton`, paired with ptxas 13.5).

Planted faults, no Triton needed (a stand-in package, fake_triton.py, named with --frontend triton=PATH): a Triton
that writes the wrong `.version` or `.target`, another form, or dies or hangs on a kernel must be caught, and the
stand-in writing the right PTX must pass (the control). Bad --frontend triton=PATH inputs exit 2 naming the path.
With Triton 3.9.0 installed: cases of known outcome (the two reviewed findings among them), the mapping's kernels
against the installed Gluon API, and every expressible case gated against results/baselines/frontend/triton.json.gz.
Exits 77 (CTest: skipped) where toolchain 13.5 is not installed; the Triton tests skip alone without Triton."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import frontend
from framework import toolchains
from frontend.tests import fake_triton
from frontend.tests.tier_check import ENV, OUT, ROOT, check_every_case, check_known, main, run

NAME = "triton"
CASE = "cp.async.bulk.tensor/2d.shared_cta.global@sm_90a.ptx86"
KNOWN = {
    CASE: "pass",
    # a TMA store with a cache hint, a multicast load into the cluster, an im2col load, a reduction, a gather4 where
    # it exists, cp.async with src-size and a prefetch size, cp.async.mbarrier.arrive.noinc
    "cp.async.bulk.tensor/3d.global.shared_cta.tile/L2_cache_hint@sm_90a.ptx80": "pass",
    "cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster/L2_cache_hint@sm_90a.ptx80": "pass",
    "cp.async.bulk.tensor/3d.shared_cta.global.im2col/L2_cache_hint@sm_90a.ptx86": "pass",
    "cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_90a.ptx80": "pass",
    "cp.async.bulk.tensor/2d.shared_cta.global.tile_gather4@sm_100a.ptx86": "pass",
    "cp.async/ca.shared.global/cp_size_16/src_size/L2_128B@sm_80.ptx74": "pass",
    "cp.async.mbarrier.arrive.noinc/arrive@sm_80.ptx90": "pass",
    # the reviewed findings, each found by the tier: triton-tma-shared-cta-below-ptx86,
    # triton-gather4-scatter4-written-for-sm90a, triton-scatter4-written-for-sm120a,
    # triton-cp-async-l2-prefetch-below-ptx74, triton-mbarrier-shared-cta-below-ptx78
    "cp.async.bulk.tensor/2d.shared_cta.global@sm_90a.ptx85": "spec_divergence",
    "cp.async.bulk.tensor/2d.shared_cta.global.tile_gather4@sm_90a.ptx86": "spec_divergence",
    "cp.async.bulk.tensor/2d.global.shared_cta.tile_scatter4@sm_90a.ptx86": "spec_divergence",
    "cp.async.bulk.tensor/2d.global.shared_cta.tile_scatter4@sm_120a.ptx87": "spec_divergence",
    "cp.async/ca.shared.global/cp_size_16/src_size/L2_128B@sm_80.ptx73": "spec_divergence",
    "cp.async.mbarrier.arrive.noinc/arrive@sm_80.ptx70": "spec_divergence",
    # Triton writes sm_90a for capability 90, never plain sm_90
    "cp.async.bulk.tensor/2d.shared_cta.global@sm_90.ptx86": "not_supported",
}


def _fake_run(test, mode, cases, out):
    """Runs the tier over cases with the stand-in Triton in mode; returns (exit code, {case: record}, stderr)."""
    site = fake_triton.write(tempfile.mkdtemp(prefix="ptxcts-fake-triton-"))
    argv = [sys.executable, "-m", "frontend", "run", "--frontend", f"triton={site}", "--out", out, "--quiet"]
    for c in cases:
        argv += ["--case", c]
    r = subprocess.run(argv, capture_output=True, text=True, env=dict(ENV, PTXCTS_FAKE_TRITON=mode), cwd=ROOT)
    got = {}
    if os.path.isfile(os.path.join(out, "results.json")):
        with open(os.path.join(out, "results.json")) as f:
            got = {c["id"]: c for c in json.load(f)["cases"]}
    return r.returncode, got, r.stderr


class PlantedFaults(unittest.TestCase):
    def _check(self, mode, klass, words):
        rc, got, err = _fake_run(self, mode, [CASE], os.path.join(OUT, f"triton-fake-{mode}"))
        self.assertIn(CASE, got, err[-2000:])
        c = got[CASE]
        self.assertEqual(c["class"], klass, c["message"])
        for w in words:
            self.assertIn(w, c["message"])
        self.assertEqual(rc, 0 if klass == "pass" else 1, err[-2000:])
        return c

    def test_the_stand_in_writing_the_right_ptx_passes(self):
        c = self._check("ok", "pass", ["same form"])
        self.assertEqual(c["details"]["claims"], {"version": "8.6", "target": "sm_90a"})
        self.assertIn("--frontend triton=", c["replay"])

    def test_a_wrong_version_line_is_caught(self):
        self._check("version", "fail", ["asked for ptx_version 8.6", "`.version 8.7`"])

    def test_a_wrong_target_line_is_caught(self):
        self._check("target", "fail", ["`.target sm_100a`"])

    def test_another_state_space_is_a_miscompile(self):
        self._check("form", "fail", ["miscompile"])

    def test_an_abort_is_that_case_crash(self):
        self._check("abort", "crash", ["died"])


class GuardCases(unittest.TestCase):
    def test_every_kernel_is_asked_at_every_pair_the_description_lists(self):
        from frontend.run import guard_cases
        from ptxcts_gen import model
        from ptxcts_gen.frontends import triton as mapping
        with open(os.path.join(ROOT, "toolchains", "triton.json")) as f:
            desc = json.load(f)
        cs = {c.id: c for c in guard_cases(model.all_forms(), mapping.spell, desc)}
        # the PTX 8.6 finding's edge and below it, by the model's rule; sm_90a's lowest version Triton writes
        c = cs["cp.async.bulk.tensor/1d.shared_cta.global@sm_90a.ptx80"]
        self.assertEqual((c.expect, c.rules), ("reject", ("tensor.dst_shared_cta.ptx",)))
        self.assertEqual(cs["cp.async.bulk.tensor/1d.shared_cta.global@sm_90a.ptx86"].expect, "accept")
        pairs = sum(len(r["ptx"]) for r in desc["targets"].values())
        kernels = {c.form for c in cs.values()}
        self.assertGreater(len(kernels), 40)
        self.assertLessEqual(len(cs), pairs * len(kernels))
        self.assertGreater(len(cs), pairs * len(kernels) // 2)


class BadInput(unittest.TestCase):
    def test_a_folder_that_is_not_a_triton(self):
        d = tempfile.mkdtemp(prefix="ptxcts-not-triton-")
        r, _ = run(["run", "--frontend", f"triton={d}", "--case", CASE, "--quiet"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(d, r.stderr)
        self.assertIn("triton/__init__.py", r.stderr)

    def test_a_triton_without_its_library(self):
        d = fake_triton.write(tempfile.mkdtemp(prefix="ptxcts-broken-triton-"))
        os.unlink(os.path.join(d, "triton", "_C", "libtriton.so"))
        r, _ = run(["run", "--frontend", f"triton={d}", "--case", CASE, "--quiet"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("libtriton.so", r.stderr)

    def test_a_file_that_is_not_a_wheel(self):
        with tempfile.NamedTemporaryFile(suffix=".txt") as f:
            r, _ = run(["run", "--frontend", f"triton={f.name}", "--case", CASE, "--quiet"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(f.name, r.stderr)

    def test_a_path_that_does_not_exist(self):
        r, _ = run(["run", "--frontend", "triton=/nonexistent/triton-site", "--case", CASE, "--quiet"])
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("/nonexistent/triton-site", r.stderr)


@unittest.skipUnless(frontend.installed_dir(NAME), f"front-end {NAME} not installed (./ptxcts frontend install "
                     f"{NAME}): run as `tier`, which exits 77 then")
class TritonTier(unittest.TestCase):
    def test_cases_of_known_outcome(self):
        got = check_known(self, NAME, os.path.join(OUT, "triton-known"), KNOWN)
        self.assertIn("triton-tma-shared-cta-below-ptx86", got["cp.async.bulk.tensor/2d.shared_cta.global@sm_90a.ptx85"]
                      ["message"])

    def test_every_expressible_case_against_the_baseline(self):
        check_every_case(self, NAME, os.path.join(OUT, "triton-all"), "Triton", 2000)


if __name__ == "__main__":
    # `tier`: the Triton tier itself (CTest frontend.triton: skipped without Triton); otherwise the planted faults
    # and bad inputs, which need toolchain 13.5 only (CTest frontend.triton.faults)
    tier = sys.argv[1:2] == ["tier"]
    if tier:
        del sys.argv[1]
        sys.argv[1:1] = ["TritonTier"]
    missing = [what for what, ok in (("toolchain 13.5", toolchains.installed_dir("13.5")),
                                     (f"front-end {NAME}", frontend.installed_dir(NAME) or not tier)) if not ok]
    main(f"frontend.triton: SKIPPED: {' and '.join(missing)} not installed (./ptxcts toolchains install 13.5; "
         f"./ptxcts frontend install {NAME})" if missing else None)
