"""Repro bundles (the layout harness/runcore/src/worker/repro.cpp writes): a complete bundle is accepted and packed
deterministically with a README.txt; incomplete or inconsistent ones are rejected naming the file."""
import json
import os
import tarfile
import unittest

from .common import TempDirTest, cli

CASE_ID = "cp.async.bulk.tensor/2d.shared_cluster.global.tile.mbarrier_complete_tx_bytes#box_64x8.coords_-3_5"
EXPECTED = b"\x12" * 1024
ACTUAL = b"\x12" * 70 + b"\xa5" * 954


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


def replace_file(folder, name, data):
    """Rewrite one file and its size in case.json, so only the check under test can object."""
    write(os.path.join(folder, name), data)
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    case["files"][name] = len(data)
    write(os.path.join(folder, "case.json"), json.dumps(case, indent=2))


class Bundles(TempDirTest):
    def make(self, name="cp.async.bulk.tensor__2d--box.cubin", **changes):
        folder = os.path.join(self.tmp, "repro", name)
        os.makedirs(folder)
        files = {"gsrc.bin": bytes(range(256)) * 4, "smem.init.bin": b"\xa5" * 1024,
                 "smem.expected.bin": EXPECTED, "smem.actual.bin": ACTUAL}
        case = {"schema": "ptxcts-repro", "version": 1, "id": CASE_ID, "form": CASE_ID.split("#")[0],
                "family": "cp.async.bulk.tensor", "kernel": "k_0123456789ab", "abi": "v1.tensor",
                "target": "sm_90a", "ptx": "8.6", "load_path": "cubin", "seed": 1234, "case_seed": 99,
                "class": "fail", "message": "smem byte 70: expected 0x12 got 0xa5",
                "replay": f"./ptxcts run --case '{CASE_ID}' --load-path cubin --seed 1234 --target sm_90a",
                "args": ["0x7f0000001000", "0x0"],
                "tensor_map": {"rank": 2, "global_dim": [256, 64], "global_strides": [512], "box_dim": [64, 8],
                               "element_strides": [1, 1], "interleave": "none", "swizzle": "none"},
                "files": {**{n: len(b) for n, b in files.items()}, "module.ptx": "the PTX module"}}
        case.update(changes)
        files["case.json"] = json.dumps(case, indent=2)
        files["module.ptx"] = (".version 8.6\n.target sm_90a\n.address_size 64\n"
                               ".visible .entry k_0123456789ab(.param .u64 args)\n{\n ret;\n}\n")
        files["replay.sh"] = f"#!/bin/sh\n{case['replay']}\n"
        for rel, content in files.items():
            write(os.path.join(folder, rel), content)
        return folder

    def test_complete_bundle_packs_deterministically(self):
        folder = self.make()
        code, out, err = cli("bundle", folder, "--check")
        self.assertEqual(code, 0, err)
        a, b = os.path.join(self.tmp, "a.tar.gz"), os.path.join(self.tmp, "b.tar.gz")
        self.assertEqual(cli("bundle", folder, "--out", a)[0], 0)
        os.utime(os.path.join(folder, "smem.actual.bin"), (1, 1))  # times do not enter the archive
        self.assertEqual(cli("bundle", folder, "--out", b)[0], 0)
        with open(a, "rb") as fa, open(b, "rb") as fb:
            self.assertEqual(fa.read(), fb.read())
        base = os.path.basename(folder)
        with tarfile.open(a) as t:
            names = t.getnames()
            readme = t.extractfile(f"{base}/README.txt").read().decode()
        for n in ("case.json", "module.ptx", "gsrc.bin", "smem.expected.bin", "smem.actual.bin"):
            self.assertIn(f"{base}/{n}", names)
        # the README made at pack time carries the replay line and says what each file is
        self.assertIn("./ptxcts run --case", readme)
        self.assertIn("smem.actual.bin", readme)

    def test_folder_of_bundles(self):
        self.make("one.cubin")
        self.make("two.jit", load_path="jit")
        out = os.path.join(self.tmp, "packed")
        os.makedirs(out)
        code, stdout, err = cli("bundle", os.path.join(self.tmp, "repro"), "--out", out)
        self.assertEqual(code, 0, err)
        self.assertEqual(sorted(os.listdir(out)), ["one.cubin.tar.gz", "two.jit.tar.gz"])
        # one incomplete bundle among them: the others are still packed, the bad one named, exit 3
        os.remove(os.path.join(self.make("three.cubin"), "module.ptx"))
        code, stdout, err = cli("bundle", os.path.join(self.tmp, "repro"), "--out", out)
        self.assertEqual(code, 3)
        self.assertIn("three.cubin/module.ptx: missing", err)
        self.assertIn("2 of 3 bundles packed, 1 incomplete", stdout)

    def test_incomplete_bundles_are_rejected(self):
        cases = {
            "missing actual": (lambda f: os.remove(os.path.join(f, "smem.actual.bin")), "smem.actual.bin: missing"),
            "missing module": (lambda f: os.remove(os.path.join(f, "module.ptx")), "module.ptx: missing"),
            "size differs from case.json": (lambda f: write(os.path.join(f, "gsrc.bin"), b"\x00" * 10),
                                            "case.json files says 1024"),
            "actual size differs": (lambda f: replace_file(f, "smem.actual.bin", ACTUAL[:-1]),
                                    "1023 bytes, but smem.expected.bin has 1024"),
            "no difference": (lambda f: replace_file(f, "smem.actual.bin", EXPECTED),
                              "does not show the failure"),
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
                                               ({"seed": "1234"}, "seed: must be of type int"),
                                               ({"version": 2}, "bundle version 2 is not known"))):
            with self.subTest(needle):
                code, _, err = cli("bundle", self.make(f"c{n}", **changes), "--check")
                self.assertEqual(code, 3, err)
                self.assertIn(needle, err)
                self.assertRegex(err, r"case\.json:\d+: ")

    def test_size_limit(self):
        folder = self.make()
        replace_file(folder, "gsrc.bin", os.urandom(64 * 1024))  # incompressible
        out = os.path.join(self.tmp, "big.tar.gz")
        code, _, err = cli("bundle", folder, "--out", out, "--max-bytes", 32 * 1024)
        self.assertEqual(code, 3)
        self.assertIn("over the limit of 32768 bytes", err)
        self.assertIn("gsrc.bin", err)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
