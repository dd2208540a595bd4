"""Repro bundles: a complete bundle is accepted and packed deterministically; incomplete ones are rejected."""
import json
import os
import tarfile
import unittest

from .common import TempDirTest, cli

def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


CASE_ID = "cp.async.bulk.tensor/2d.shared_cluster.global.tile.mbarrier_complete_tx_bytes#box_64x8.coords_-3_5"


class Bundles(TempDirTest):
    def make(self, name="case-0001", **changes):
        """A small bundle as the run tier writes it (section 'Repro bundles' of results/README.md)."""
        folder = os.path.join(self.tmp, name)
        os.makedirs(os.path.join(folder, "inputs"))
        case = {"schema": "ptxcts-bundle", "version": 1, "id": CASE_ID,
                "form": CASE_ID.split("#")[0], "family": "cp.async.bulk.tensor", "target": "sm_90a", "ptx": "8.6",
                "load_path": "cubin", "class": "fail", "message": "window byte 70: expected 0x12 got 0xa5",
                "seed": 1234, "replay": f"./ptxcts run --case '{CASE_ID}' --load-path cubin --seed 1234",
                "kernel": "k_0123456789ab", "device": {"name": "NVIDIA H100 80GB HBM3", "sm": "sm_90", "cc": "9.0"},
                "toolchain": {"ptxas": "13.0.88", "driver": "580.159.04"},
                "tensor_map": {"dims": 2, "global_dim": [256, 64], "global_strides": [512], "box_dim": [64, 8],
                               "element_strides": [1, 1], "interleave": "none", "swizzle": "none",
                               "l2_promotion": "none", "oob_fill": "none", "data_type": "uint16"},
                "inputs": ["inputs/src.bin", "inputs/smem_init.bin"]}
        case.update(changes)
        files = {"case.json": json.dumps(case, indent=1),
                 "module.ptx": ".version 8.6\n.target sm_90a\n.address_size 64\n.visible .entry k_0123456789ab("
                               ".param .u64 args)\n{\n ret;\n}\n",
                 "inputs/src.bin": bytes(range(256)) * 4, "inputs/smem_init.bin": b"\xa5" * 1024,
                 "expected.bin": b"\x12" * 1024, "actual.bin": b"\x12" * 70 + b"\xa5" * 954,
                 "README.txt": f"fail: {CASE_ID}\nreplay: {case['replay']}\n"}
        for rel, content in files.items():
            write(os.path.join(folder, rel), content)
        return folder

    def test_complete_bundle_packs_deterministically(self):
        folder = self.make()
        code, out, err = cli("bundle", folder, "--check")
        self.assertEqual(code, 0, err)
        a, b = os.path.join(self.tmp, "a.tar.gz"), os.path.join(self.tmp, "b.tar.gz")
        self.assertEqual(cli("bundle", folder, "--out", a)[0], 0)
        os.utime(os.path.join(folder, "actual.bin"), (1, 1))  # times do not enter the archive
        self.assertEqual(cli("bundle", folder, "--out", b)[0], 0)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())
        with tarfile.open(a) as t:
            names = t.getnames()
        self.assertIn("case-0001/case.json", names)
        self.assertIn("case-0001/inputs/src.bin", names)
        self.assertIn("case-0001/actual.bin", names)

    def test_incomplete_bundles_are_rejected(self):
        cases = {
            "missing actual": (lambda f: os.remove(os.path.join(f, "actual.bin")), "actual.bin: missing"),
            "missing input": (lambda f: os.remove(os.path.join(f, "inputs", "src.bin")), "src.bin: missing"),
            "no readme": (lambda f: os.remove(os.path.join(f, "README.txt")), "README.txt: missing"),
            "same bytes": (lambda f: write(os.path.join(f, "actual.bin"), b"\x12" * 1024), "equals expected.bin"),
            "kernel not in module": (lambda f: write(os.path.join(f, "module.ptx"),
                                                     ".version 8.6\n.target sm_90a\n.visible .entry k_other()\n"
                                                     "{ ret; }\n"), "k_0123456789ab"),
        }
        for n, (label, (damage, needle)) in enumerate(cases.items()):
            with self.subTest(label):
                folder = self.make(f"bundle-{n}")
                damage(folder)
                code, _, err = cli("bundle", folder, "--check")
                self.assertEqual(code, 3, err)
                self.assertIn(needle, err)

    def test_case_json_fields(self):
        for n, (changes, needle) in enumerate((({"tensor_map": None}, "tensor_map"),
                                               ({"replay": "./ptxcts run --seed 1234"}, "does not name the case ID"),
                                               ({"class": "pass"}, "a bundle is for a finding"),
                                               ({"version": 2}, "bundle version 2 is not known"))):
            with self.subTest(needle):
                code, _, err = cli("bundle", self.make(f"c{n}", **changes), "--check")
                self.assertEqual(code, 3, err)
                self.assertIn(needle, err)
                self.assertRegex(err, r"case\.json:\d+: ")

    def test_size_limit(self):
        folder = self.make()
        with open(os.path.join(folder, "inputs", "src.bin"), "wb") as f:
            f.write(os.urandom(64 * 1024))  # incompressible
        out = os.path.join(self.tmp, "big.tar.gz")
        code, _, err = cli("bundle", folder, "--out", out, "--max-bytes", 32 * 1024)
        self.assertEqual(code, 3)
        self.assertIn("over the limit of 32768 bytes", err)
        self.assertIn("inputs/src.bin", err)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
