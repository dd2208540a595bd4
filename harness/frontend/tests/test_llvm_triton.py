"""The llvm-triton front-end (Triton 3.9.0's bundled LLVM) without its install: the catalog's pins, its probed
description against llvm-22's (the coverage bar: at every PTX ISA version 8.6-9.3 it covers every form llvm-22
covers at 9.0), and its bad inputs (not installed: exit 2 naming the install command; a wheel whose sha256 is not
the pin: exit 3 naming the file and both hashes, nothing installed)."""
import hashlib
import os
import subprocess
import sys
import tempfile
import unittest
import zipfile

from frontend import catalog, coverage, load_description
from frontend.install import python_tag
from ptxcts_gen import model, targets

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
NAME, BASE = "llvm-triton", "llvm-22"
# the PTX ISA versions at which llvm-triton must cover what llvm-22 covers at 9.0 (issue: front-ends as parameters)
BAR_VERSIONS = ("8.6", "8.7", "8.8", "9.0", "9.1", "9.2", "9.3")


def _cli(argv, cache):
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]),
             PTXCTS_ROOT=ROOT, PTXCTS_TOOLCHAIN_CACHE=cache)
    r = subprocess.run([sys.executable, "-m", "frontend"] + argv, capture_output=True, text=True, env=e, cwd=ROOT)
    return r.returncode, r.stdout + r.stderr


class CatalogTest(unittest.TestCase):
    def test_triton_390_is_pinned_for_cp311_and_cp312(self):
        e = catalog.load()[NAME]
        self.assertEqual((e["kind"], e["library"]), ("triton-llvm", "triton/_C/libtriton.so"))
        (w,) = e["wheels"]
        self.assertEqual((w["package"], w["version"]), ("triton", "3.9.0"))
        self.assertEqual(w["python"]["cp311"], {
            "file": "triton-3.9.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
            "sha256": "1622118a038b0c6e16fa4a0305da62c8b3c15904ee1cc4d4e65846a25969e41e"})
        self.assertEqual(w["python"]["cp312"], {
            "file": "triton-3.9.0-cp312-abi3-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl",
            "sha256": "5e52ab4e2f1d64f0ac494c9aa723697b793f81a91c4cae4c36608ca0bc4267bf"})

    def test_paired_with_a_ptxas_that_assembles_its_newest_version(self):
        from framework.toolchains import read_description
        e, d = catalog.load()[NAME], load_description(NAME)
        _, tc = read_description(e["ptxas"])
        self.assertIsNotNone(tc, f"toolchains/{e['ptxas']}.json")
        newest = d["ptx_versions"][-1]
        self.assertIn(newest, tc["ptx_versions"], f"ptxas {e['ptxas']} does not take PTX {newest}")


class DescriptionTest(unittest.TestCase):
    def setUp(self):
        self.d, self.base = load_description(NAME), load_description(BASE)

    def test_probed_versions_and_targets(self):
        d = self.d
        self.assertTrue(d["version_string"].startswith("LLVM 24.0.0git (Triton 3.9.0)"), d["version_string"])
        # measured by the probe: 7.0 .. 9.4; 9.5 is "not a recognized feature"
        self.assertEqual(d["ptx_versions"][0], "7.0")
        self.assertEqual(d["ptx_versions"][-1], "9.4")
        self.assertEqual(d["probed"]["unknown_ptx"], ["9.5"])
        for t in ("sm_80", "sm_90", "sm_90a", "sm_100a", "sm_103a", "sm_120a"):
            self.assertIn("9.3", d["targets"][t]["ptx"], t)
        self.assertEqual(d["targets"]["sm_90a"]["min_ptx"], "8.0")
        self.assertEqual(d["targets"]["sm_100a"]["min_ptx"], "8.6")

    def test_the_library_carries_every_intrinsic_llvm22_carries(self):
        self.assertLessEqual(set(self.base["intrinsics"]), set(self.d["intrinsics"]))

    def test_covers_at_86_to_93_every_form_llvm22_covers_at_90(self):
        # forms: every form the LLVM mapping spells with llvm-22's intrinsics is spelled with llvm-triton's
        forms = model.all_forms()
        mine, base = coverage.coverage_of(NAME, forms), coverage.coverage_of(BASE, forms)
        missing = lambda c: {x["form"] for x in c["unexpressible"]}   # noqa: E731
        self.assertLessEqual(missing(mine), missing(base))
        for fam, c in base["families"].items():
            self.assertGreaterEqual(mine["families"][fam].get("expressible", 0), c.get("expressible", 0), fam)
        # (target, version): every target llvm-22 writes at 9.0, llvm-triton writes at each version of the bar
        # where the model's target exists
        for t, row in self.base["targets"].items():
            if "9.0" not in row["ptx"]:
                continue
            for v in BAR_VERSIONS:
                if targets.BY_NAME[t].exists_at(v):
                    self.assertIn(v, self.d["targets"][t]["ptx"], f"{t} at PTX {v}")


class ProtocolTest(unittest.TestCase):
    """kernel_check.same_protocol: LLVM 24 schedules mapa and createpolicy after the frame's stores; their place
    among memory and barrier instructions is no part of the protocol, their count on each side of the test is."""

    def test_value_only_items_may_move_but_not_across_the_test_or_change_count(self):
        from frontend.kernel_check import same_protocol
        hand = ["%cluster_ctarank", "mapa.shared::cluster", "st.global.32", "mbarrier.init.shared.b64", "<test>",
                "bar.sync"]
        moved = ["%cluster_ctarank", "st.global.32", "mbarrier.init.shared.b64", "mapa.shared::cluster", "<test>",
                 "bar.sync"]
        self.assertTrue(same_protocol(moved, hand))
        across = ["%cluster_ctarank", "st.global.32", "mbarrier.init.shared.b64", "<test>", "mapa.shared::cluster",
                  "bar.sync"]
        self.assertFalse(same_protocol(across, hand))
        twice = moved[:3] + ["mapa.shared::cluster"] + moved[3:]
        self.assertFalse(same_protocol(twice, hand))
        # a memory or barrier instruction out of order is still another protocol
        swapped = ["%cluster_ctarank", "mapa.shared::cluster", "mbarrier.init.shared.b64", "st.global.32", "<test>",
                   "bar.sync"]
        self.assertFalse(same_protocol(swapped, hand))


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ptxcts-llvm-triton-")
        self.cache = os.path.join(self.tmp.name, "cache")

    def tearDown(self):
        self.tmp.cleanup()

    def test_not_installed_exits_2_with_the_install_command(self):
        for argv in (["run", "--frontend", NAME], ["probe", NAME]):
            rc, out = _cli(argv, self.cache)
            self.assertEqual(rc, 2, out)
            self.assertIn(f"front-end {NAME} is not installed: run `./ptxcts frontend install {NAME}`", out)
            self.assertIn(f"./ptxcts frontend install --wheels DIR {NAME}", out)
            self.assertIn("triton==3.9.0", out)

    def test_a_wheel_whose_sha256_is_not_the_pin_is_refused_nothing_installed(self):
        tag = python_tag()
        pin = catalog.load()[NAME]["wheels"][0]["python"].get(tag)
        if pin is None:
            self.skipTest(f"triton is not pinned for {tag}")
        wheels = os.path.join(self.tmp.name, "wheels")
        os.makedirs(wheels)
        bad = os.path.join(wheels, pin["file"])   # the pinned name, other bytes
        with zipfile.ZipFile(bad, "w") as z:
            z.writestr("triton/__init__.py", "")
        with open(bad, "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
        rc, out = _cli(["install", "--wheels", wheels, NAME], self.cache)
        self.assertEqual(rc, 3, out)
        self.assertIn(f"{bad}: sha256 {got} is not the sha256 {pin['sha256']} pinned for {tag}", out)
        self.assertIn("nothing installed", out)
        self.assertFalse(os.path.exists(os.path.join(self.cache, "frontends", NAME)))


if __name__ == "__main__":
    unittest.main(verbosity=2)
