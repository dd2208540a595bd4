"""The front-end tier with Triton 3.9.0's bundled LLVM (llvm-triton): a few cases of known outcome, every case it
can express gated against results/baselines/frontend/llvm-triton.json.gz, and the PTX ISA versions the manifest
barely asks (8.6-9.3): every valid form llvm-22 expresses, at sm_90a and sm_100a, at each of them, must be written
as its form and assembled by the paired ptxas. Exits 77 (CTest: skipped) where llvm-triton is not installed:
`./ptxcts frontend install llvm-triton` (or `./ptxcts setup --frontends llvm-triton`)."""
import os
import unittest

import frontend
from frontend.tests.tier_check import OUT, check_every_case, check_known, main, run

NAME = "llvm-triton"
# case -> the class Triton 3.9.0's LLVM with ptxas 13.5 gets, and why
KNOWN = {
    # a valid TMA load with every optional qualifier: the intrinsic selects the same form (qualifier order aside)
    "cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster/cta_group_2/L2_cache_hint@sm_100a.ptx86":
        "pass",
    # .shared::cta written .shared (rule shared_is_shared_cta)
    "cp.async/ca.shared_cta.global/cp_size_16@sm_90.ptx78": "pass",
    # cta_group on sm_100 (not sm_100a): LLVM refuses ("Cannot select"), which ends the child; the case passes
    "cp.async.bulk.tensor/3d.shared_cluster.global.tile/cta_group_1@sm_100.ptx86": "pass",
    # the reviewed finding: the tensor reductions are selected for sm_89; ptxas rejects what LLVM writes
    "cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_89.ptx80": "spec_divergence",
    # PTX 9.4 and sm_107a, which llvm-22 does not write: Triton's LLVM does
    "cp.async.bulk.tensor/2d.global.shared_cta.tile@sm_107a.ptx94": "pass",
    # PTX 9.5 is newer than Triton's LLVM knows ("'+ptx95' is not a recognized feature")
    "cp.async.bulk.tensor/2d.shared_cluster.global.tile@sm_100a.ptx95": "not_supported",
}
SWEEP_TARGETS = ("sm_90a", "sm_100a")


def _translate(arg):
    """translate_to_asm of (ir, triple, cpu) at PTX 8.6, in a zygote's child."""
    from frontend.llvm_backend import TritonLlvm
    ir, triple, cpu = arg
    return TritonLlvm._llvm.translate_to_asm(ir, triple, cpu, "+ptx86", [], False, False, False)
SWEEP_VERSIONS = ("8.6", "8.7", "8.8", "9.0", "9.1", "9.2", "9.3")


class LlvmTritonTierTest(unittest.TestCase):
    def test_cases_of_known_outcome(self):
        out = os.path.join(OUT, "triton-known")
        got = check_known(self, NAME, out, KNOWN)
        self.assertIn("Cannot select", got["cp.async.bulk.tensor/3d.shared_cluster.global.tile/cta_group_1@sm_100.ptx86"]
                      ["message"])
        self.assertIn("llvm-triton-tensor-reduce-selected-below-sm90-ptx80",
                      got["cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_89.ptx80"]["message"])
        self.assertIn("does not know PTX ISA 9.5",
                      got["cp.async.bulk.tensor/2d.shared_cluster.global.tile@sm_100a.ptx95"]["message"])
        # without the reviewed findings the same case is a fail
        empty = os.path.join(OUT, "triton-no-findings.toml")
        with open(empty, "w") as f:
            f.write("# no finding\n")
        r, _ = run(["run", "--frontend", NAME, "--out", out + "-raw", "--quiet", "--findings", empty, "--case",
                    "cp.reduce.async.bulk.tensor/1d.global.shared_cta.add.tile@sm_89.ptx80"])
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("the front-end emitted invalid PTX", r.stderr)

    def test_every_llvm22_form_at_every_version_86_to_93(self):
        from frontend.tests.version_sweep import sweep
        classes, counts = sweep(NAME, "llvm-22", SWEEP_TARGETS, SWEEP_VERSIONS)
        bad = {k: v for k, v in classes.items() if v[0] != "pass"}
        self.assertEqual(bad, {}, f"{len(bad)} of {len(classes)} not pass, e.g. {list(bad.items())[:3]}")
        for t in SWEEP_TARGETS:
            for v in SWEEP_VERSIONS:
                self.assertGreater(counts[(t, v)], 200, (t, v))   # sm_90a: 276 forms, sm_100a: 456 (measured)

    def test_whole_kernels_for_sm90a(self):
        """`./ptxcts modules --frontend llvm-triton --target sm_90a --ptx 9.0 --valid-only`: every form the mapping
        expresses written (382, as llvm-22), none refused, crashed or failing its check (run ABI, the hand-written
        protocol, the form once); check-modules takes the folder; the paired ptxas assembles every module."""
        import json
        import subprocess
        import sys
        from framework import toolchains
        from frontend.tests.tier_check import ENV, ROOT
        out = os.path.join(OUT, "triton-modules-sm_90a")
        r = subprocess.run([sys.executable, os.path.join(ROOT, "ptxcts"), "modules", "--frontend", NAME, "--target",
                            "sm_90a", "--ptx", "9.0", "--valid-only", "--max-entries", "16", "--quiet", "--out", out],
                           capture_output=True, text=True, cwd=ROOT, env=ENV)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "index.json")) as f:
            index = json.load(f)
        self.assertEqual(len(index["entries"]), 382, r.stderr[-2000:])
        kinds = {v["kind"] for v in index["not_written"].values()}
        self.assertEqual(kinds, {"unexpressible"}, r.stderr[-2000:])
        c, _ = run(["check-modules", out, "--target", "sm_90a", "--ptx", "9.0"])
        self.assertEqual(c.returncode, 0, c.stderr)
        tc = toolchains.resolve(frontend.resolve(NAME).ptxas_toolchain)
        for m in index["modules"]:
            p = subprocess.run([tc.ptxas, "-arch=sm_90a", os.path.join(out, m), "-o", os.devnull],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, f"{m}: {p.stderr}")

    def test_the_library_never_prints_what_the_mappings_reasons_say(self):
        """The LLVM mapping's `absent` texts (what LLVM 22's back-end never prints) in libtriton.so: none, but for
        `multicast::cluster::32b`, which it holds only as a string of its own (`.multicast::cluster::32b`, NUL on
        either side) among Triton's inline PTX pieces (TritonNVIDIAGPUToLLVM), never inside an instruction string of
        the NVPTX back-end."""
        import re
        from ptxcts_gen.frontends import Unexpressible
        from ptxcts_gen.frontends import llvm as mapping
        with open(frontend.resolve(NAME).library, "rb") as f:
            lib = f.read()
        texts = {a for d in mapping.QUALIFIERS.values() if isinstance(d, Unexpressible) for a, _ in d.absent}
        self.assertGreater(len(texts), 10)
        self.assertEqual({t for t in texts if t.encode() in lib}, {"multicast::cluster::32b"})
        at = [m.start() for m in re.finditer(rb"multicast::cluster::32b", lib)]
        self.assertTrue(at)
        for i in at:
            self.assertEqual(lib[i - 2:i + len("multicast::cluster::32b") + 1],
                             b"\x00.multicast::cluster::32b\x00", i)

    def test_a_segfault_or_an_abort_of_the_library_costs_its_job_only(self):
        """libtriton's translate_to_asm segfaults on a triple it has no target for (as before init_targets) and
        aborts on "Cannot select": in the zygote's children each is its job's crash or refusal, the others compile."""
        from frontend import isolate, judge, llvm_backend, tier
        triton = llvm_backend.TritonLlvm
        triton.load(frontend.resolve(NAME))
        empty = 'target triple = "nvptx64-nvidia-cuda"\ndefine ptx_kernel void @k() {\n  ret void\n}\n'
        select = ('target triple = "nvptx64-nvidia-cuda"\ndeclare void @llvm.nvvm.cp.async.bulk.commit.group()\n'
                  'define ptx_kernel void @k() {\n  call void @llvm.nvvm.cp.async.bulk.commit.group()\n  ret void\n}\n')
        pool = isolate.Zygote(_translate, jobs=2)
        try:
            outs = pool.run_many([(empty, triton.TRIPLE, "sm_90a"), (empty, "bogus-triple", "sm_90a"),
                                  (select, triton.TRIPLE, "sm_80"), (empty, triton.TRIPLE,
                                                                                    "sm_100a")])
        finally:
            pool.close()
        got = [tier.emissions_from(o, ["k"], llvm_backend.instructions, True)["k"].status for o in outs]
        self.assertEqual(got, [judge.EMITTED, judge.CRASHED, judge.REFUSED, judge.EMITTED])
        self.assertEqual(outs[1].status, "signal SIGSEGV")
        self.assertIn("LLVM ERROR: Cannot select", tier.refusal(outs[2]))

    def test_the_spellings_check_tells_a_malformed_module_from_a_refusal(self):
        """TritonLlvm.verify (tier.check_spellings' verifier for this front-end): a wrong intrinsic signature and a
        parse error are malformed; "Cannot select" at a target that lacks the instruction is a verified module."""
        from frontend.llvm_backend import TritonLlvm
        TritonLlvm.load(frontend.resolve(NAME))
        head = 'target triple = "nvptx64-nvidia-cuda"\n'
        call = ("declare void @llvm.nvvm.cp.async.bulk.commit.group({t})\ndefine ptx_kernel void @k() {{\n"
                "  call void @llvm.nvvm.cp.async.bulk.commit.group({a})\n  ret void\n}}\n")
        with self.assertRaises(ValueError) as e:
            TritonLlvm.verify(head + call.format(t="i32", a="i32 1"), "sm_100a", "8.6")
        self.assertIn("Broken module found", str(e.exception))
        self.assertIn("incorrect number of args", str(e.exception))
        with self.assertRaises(ValueError) as e:
            TritonLlvm.verify(head + "define ptx_kernel void @k() {\n  call void @f(\n", "sm_100a", "8.6")
        self.assertIn("failed to parse IR", str(e.exception))
        TritonLlvm.verify(head + call.format(t="", a=""), "sm_80", "8.0")     # Cannot select: verified
        TritonLlvm.verify(head + call.format(t="", a=""), "sm_100a", "8.6")   # compiles

    def test_every_expressible_case_against_the_baseline(self):
        check_every_case(self, NAME, os.path.join(OUT, "llvm-triton-all"), "Triton LLVM", 3000)


if __name__ == "__main__":
    main(None if frontend.installed_dir(NAME) else
         f"frontend.llvm-triton: SKIPPED: the {NAME} front-end is not installed (./ptxcts frontend install {NAME}, "
         f"offline: ./ptxcts frontend install --wheels DIR {NAME})")
