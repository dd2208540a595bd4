"""The GPU half, prepared: the generated tests (and graded mutants) become CUDA kernels and a runner that
compile for sm_90a (not run here); tests it cannot run yet are reported not_supported with the reason; the
runner's labels are the model's (a mutant's are its original's)."""
import os
import shutil
import subprocess
import tempfile
import unittest

from litmodel import cuda, mutants, suite
from litmodel.model import Model
from litmodel.syntax import parse_file, parse_text

NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)


def suite_tests():
    return [t for f in suite.suite_files() for t in parse_file(f)]


class Cuda(unittest.TestCase):
    def test_every_generated_test_is_supported(self):
        _, skipped = cuda.translate(suite_tests())
        self.assertEqual(skipped, [])

    def test_an_unsupported_test_says_why(self):
        [t] = parse_text("test A\nthread T0\nthread T1 cta=1 cluster=1\nloc s shared cta=0\n"
                         "T1: st.weak s 1\n", "a.litmus")
        _, skipped = cuda.translate([t])
        self.assertEqual(skipped, [("A", "'s' is the shared memory of a CTA of another cluster")])

    def test_the_tensor_map_and_its_proxy_fence(self):
        src, _ = cuda.translate([t for t in suite_tests() if t.name == "TensorMap.fence_proxy_tensormap"])
        self.assertIn("tmap_store(", src)
        self.assertIn("fence.proxy.tensormap::generic.release.gpu", src)
        self.assertIn("cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", src)

    def test_labels_are_the_model_and_a_mutant_is_judged_by_its_original(self):
        tests = suite_tests()
        orig = {t.name: t for t in tests}
        row = mutants.read(os.path.join(suite.SUITE_DIR, "mutants.jsonl.gz"))[0]
        [mt] = parse_text(row["text"], "mutant")
        with tempfile.TemporaryDirectory() as d:
            cuda.write([orig[row["test"]], mt], d, Model(), {mt.name: orig[row["test"]]})
            with open(os.path.join(d, "labels.tsv")) as f:
                lines = [l.rstrip("\n").split("\t") for l in f if l.strip()]
        mine = {(o, v) for n, o, v in lines if n == mt.name}
        theirs = {(o, v) for n, o, v in lines if n == row["test"]}
        self.assertEqual(mine, theirs)
        forbidden = {o for o, v in theirs if v == "forbidden"}
        self.assertTrue(set(row["killing"]) <= forbidden | {"hang=an mbarrier phase never completes"})

    def test_the_proxy_fence_is_in_the_kernel(self):
        src, _ = cuda.translate([t for t in suite_tests() if t.name == "ProxyRead.same_thread.fence"])
        self.assertIn("fence.proxy.async;", src)
        self.assertIn("cp.async.bulk.global.shared::cta.bulk_group", src)

    def test_every_test_thread_meets_the_instances_other_test_threads(self):
        # prestress(p, group, cta, n): n is the number of test threads the meeting waits for (gpu meet=1)
        src, _ = cuda.translate([t for t in suite_tests() if t.name in ("SB.peer_cta.gpu", "IRIW.fence_sc")])
        sb = src[src.index("lit_SB_peer_cta_gpu("):]
        iriw = src[src.index("lit_IRIW_fence_sc("):]
        self.assertEqual(sb[:sb.index("stress(p, group, cta, gp")].count("prestress(p, group, cta, 2u);"), 2)
        self.assertEqual(iriw[:iriw.index("stress(p, group, cta, gp")].count("prestress(p, group, cta, 4u);"), 4)

    def test_the_prewarm_loads_come_before_the_first_barrier_and_spare_tensor_maps(self):
        # prewarm(): before cluster.sync, so before every test instruction (a copy's issue included)
        src, _ = cuda.translate([t for t in suite_tests() if t.name in ("MPbulk.fenced.wait_group0.gpu",
                                                                          "TensorMap.fence_proxy_tensormap")])
        for kernel in ("lit_MPbulk_fenced_wait_group0_gpu(", "lit_TensorMap_fence_proxy_tensormap("):
            body = src[src.index(kernel):]
            self.assertLess(body.index("prewarm(p, group, gp, kPlain"), body.index("cluster.sync();"))
            self.assertLess(body.index("cluster.sync();"), body.index("switch (role)"))
        # the map test's only global location is its tensor map: nothing to load (the list is a placeholder)
        self.assertIn("prewarm(p, group, gp, kPlain, 0);", src[src.index("lit_TensorMap_fence_proxy_tensormap("):])
        body = src[src.index("lit_MPbulk_fenced_wait_group0_gpu("):]
        em = cuda._Emitter(next(t for t in suite_tests() if t.name == "MPbulk.fenced.wait_group0.gpu"))
        self.assertIn(f"prewarm(p, group, gp, kPlain, {len(em.globals)});", body)

    def test_the_near_stress_spares_tensor_maps_and_copies_longer_than_half_a_line(self):
        # kStressNear stores from word 16 of a slot: a location there (a tensor map's 128 bytes, a copy of more
        # than 64 bytes) must not be offered to it
        [t] = parse_text("test N\nthread T0\nloc s shared cta=0\n"
                         "T0: st.weak x 1\nT0: cp.async.bulk g s bulk_group\n", "n.litmus")
        [big] = parse_text("test B\nthread T0\nloc s shared cta=0\n"
                           "T0: st.weak x 1\nT0: cp.async.bulk g s bulk_group bytes=128\n", "b.litmus")
        em = cuda._Emitter(t)
        self.assertEqual(sorted(em.globals[k] for k in em.near()), ["g", "x"])
        self.assertEqual(cuda._Emitter(big).near(), [])
        tm = cuda._Emitter([x for x in suite_tests() if x.name == "TensorMap.fence_proxy_tensormap"][0])
        self.assertTrue(tm.tmaps)
        self.assertFalse({tm.globals[k] for k in tm.near()} & set(tm.tmaps))

    @unittest.skipUnless(NVCC, "no nvcc")
    def test_kernels_and_runner_compile_for_sm_90a(self):
        with tempfile.TemporaryDirectory() as d:
            cuda.write(suite_tests(), d, Model())
            r = subprocess.run([NVCC, "-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-I", cuda.RUNNER_DIR,
                                os.path.join(d, "litmus_kernels.cu"), os.path.join(cuda.RUNNER_DIR, "litmus_runner.cu"),
                                "-o", os.path.join(d, "litmus-runner"), "-diag-suppress", "177"],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr[-3000:])


if __name__ == "__main__":
    unittest.main()
