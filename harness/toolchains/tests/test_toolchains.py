"""Toolchains: the catalog's errors, resolving names and paths, the probe on the installed ptxas, and installing
from a folder of wheels (a wheel that fails its checksum is refused and nothing is left behind)."""
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

from framework import toolchains
from framework.toolchains import catalog, install, probe

HARNESS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REPO = os.path.dirname(HARNESS)

FAKE_PTXAS = """#!/bin/sh
case "$1" in
  --version) printf 'ptxas: NVIDIA (R) Ptx optimizing assembler\\nCuda compilation tools, release 13.9, V13.9.7\\n';;
  *) exit 1;;
esac
"""


def wheel_bytes(package, version, member, content):
    """A minimal wheel pip accepts (dist-info with METADATA, WHEEL and RECORD) carrying one member."""
    dist = f"{package.replace('-', '_')}-{version}.dist-info"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(member, content)
        z.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n")
        z.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: ptxcts-test\nRoot-Is-Purelib: false\n"
                                    "Tag: py3-none-manylinux2014_x86_64\n")
        z.writestr(f"{dist}/RECORD", "")
    return buf.getvalue()


class Tree(unittest.TestCase):
    """A temporary repository root (PTXCTS_ROOT) with its own toolchains/catalog.toml and an empty cache."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-tc-test-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        os.makedirs(os.path.join(self.tmp, "toolchains"))
        self.env = {k: os.environ.get(k) for k in ("PTXCTS_ROOT", "PTXCTS_TOOLCHAIN_CACHE", "PTXCTS_TOOLCHAIN")}
        os.environ["PTXCTS_ROOT"] = self.tmp
        os.environ["PTXCTS_TOOLCHAIN_CACHE"] = os.path.join(self.tmp, "cache")
        os.environ.pop("PTXCTS_TOOLCHAIN", None)
        self.addCleanup(self.restore)

    def restore(self):
        for k, v in self.env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v

    def catalog(self, text):
        with open(os.path.join(self.tmp, "toolchains", "catalog.toml"), "w") as f:
            f.write(text)

    def cli(self, *args):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([HARNESS, os.path.join(REPO, "generator")]))
        return subprocess.run([sys.executable, "-m", "toolchains", *args], capture_output=True, text=True, env=env)


class CatalogTest(Tree):
    def test_repository_catalog_is_well_formed(self):
        cat = catalog.load(os.path.join(REPO, "toolchains", "catalog.toml"))
        self.assertTrue({"12.4", "12.8", "12.9", "13.0", "13.2", "13.5"} <= set(cat))
        self.assertTrue(cat["13.0"]["system"])

    def test_errors_name_the_file_and_entry(self):
        for text, fragment in (('version = 2\n', "version: expected 1"),
                               ('version = 1\n[toolchain."13"]\n', 'toolchain."13"'),
                               ('version = 1\n[toolchain."13.9"]\nptxas = { package = "p", version = "1" }\n',
                                "needs exactly"),
                               ('version = 1\n[toolchain."13.9"]\nptxas = { package = "p", version = "1", member = "m", '
                                'sha256 = "xyz" }\n', "sha256"),
                               ('version = 1\n[toolchain "x"\n', "not valid TOML")):
            with self.subTest(fragment=fragment):
                self.catalog(text)
                with self.assertRaises(toolchains.ToolchainError) as cm:
                    catalog.load()
                self.assertEqual(cm.exception.code, 3)
                self.assertIn(fragment, str(cm.exception))
                self.assertIn("catalog.toml", str(cm.exception))


class ResolveTest(Tree):
    def test_unknown_name_lists_the_known_ones(self):
        shutil.copy(os.path.join(REPO, "toolchains", "catalog.toml"), os.path.join(self.tmp, "toolchains"))
        r = self.cli("resolve", "11.7")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("unknown toolchain '11.7'", r.stderr)
        self.assertIn("12.4, 12.8, 12.9, 13.0, 13.2, 13.5", r.stderr)
        self.assertNotIn("Traceback", r.stderr)

    def test_not_installed_says_how(self):
        shutil.copy(os.path.join(REPO, "toolchains", "catalog.toml"), os.path.join(self.tmp, "toolchains"))
        with self.assertRaises(toolchains.ToolchainError) as cm:
            toolchains.resolve("12.4")
        self.assertIn("./ptxcts toolchains install 12.4", str(cm.exception))

    def test_a_path_that_is_not_a_ptxas(self):
        shutil.copy(os.path.join(REPO, "toolchains", "catalog.toml"), os.path.join(self.tmp, "toolchains"))
        for path, fragment in (("/bin/true", "not a working ptxas"), (os.path.join(self.tmp, "nope"), "no such"),
                               (self.tmp, "without bin/ptxas")):
            with self.subTest(path=path):
                r = self.cli("resolve", path)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(fragment, r.stderr)

    def test_installed_toolkit_is_probed_and_judges_targets(self):
        """The CUDA toolkit here (13.0) against its committed description: the same binary gives the same facts."""
        os.environ["PTXCTS_ROOT"] = REPO
        tc = toolchains.resolve()
        self.assertEqual(tc.name, "13.0")
        self.assertTrue(tc.knows_ptx("9.0") and not tc.knows_ptx("9.5"))
        self.assertTrue(tc.target_ok("sm_90", "7.8") and not tc.target_ok("sm_90", "7.7"))
        self.assertIn("does not know PTX ISA 9.5", tc.why_not("sm_90", "9.5"))
        self.assertIn("refuses `.target sm_90` at PTX ISA 7.7", tc.why_not("sm_90", "7.7"))
        self.assertIsNone(tc.why_not("sm_100a", "8.6"))
        self.assertEqual(tc.arch("sm_101a"), "sm_110a")   # 13.0 has no -arch=sm_101a: the ISA's new name
        record = tc.record()
        self.assertEqual((record["name"], record["ptxas"]), ("13.0", tc.ptxas_version))


class ProbeTest(unittest.TestCase):
    def test_probe_measures_target_starts(self):
        """A live probe of the installed ptxas: sm_90 from PTX 7.8, sm_90a from 8.0 (what ptxas 13.0 says)."""
        tc = toolchains.resolve(None, env={})
        versions = [v for v in tc.ptx_versions if probe.ptx_key(v) >= (7, 6)][:6]
        rows = probe.targets(tc.ptxas, versions, ["sm_90", "sm_90a"])
        self.assertEqual(rows["sm_90"]["min_ptx"], "7.8")
        self.assertEqual(rows["sm_90a"]["min_ptx"], "8.0")
        self.assertIn("does not support .target sm_90", rows["sm_90"]["refusal_below_min"])


class InstallTest(Tree):
    def make_wheel(self, folder, package, version, member, content):
        name = f"{package.replace('-', '_')}-{version}-py3-none-manylinux2014_x86_64.whl"
        data = wheel_bytes(package, version, member, content)
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
        return hashlib.sha256(data).hexdigest()

    def test_checksum_mismatch_is_refused_and_nothing_is_left(self):
        wheels = os.path.join(self.tmp, "wheels")
        self.make_wheel(wheels, "fake-nvcc", "13.9.7", "fake/bin/ptxas", FAKE_PTXAS)
        self.catalog('version = 1\n[toolchain."13.9"]\nptxas = { package = "fake-nvcc", version = "13.9.7", '
                     f'member = "fake/bin/ptxas", sha256 = "{"0" * 64}" }}\n')
        r = self.cli("install", "13.9", "--wheels", wheels)
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertIn("is not the catalog's", r.stderr)
        self.assertIn("refused", r.stderr)
        cache = os.path.join(self.tmp, "cache")
        self.assertEqual([n for n in os.listdir(cache) if not n.startswith(".lock")], [],
                         "a refused wheel leaves no (half-)installed toolchain")
        with self.assertRaises(toolchains.ToolchainError):
            toolchains.resolve("13.9")

    def test_good_wheel_installs_atomically(self):
        wheels = os.path.join(self.tmp, "wheels")
        sha = self.make_wheel(wheels, "fake-nvcc", "13.9.7", "fake/bin/ptxas", FAKE_PTXAS)
        self.catalog('version = 1\n[toolchain."13.9"]\nptxas = { package = "fake-nvcc", version = "13.9.7", '
                     f'member = "fake/bin/ptxas", sha256 = "{sha}" }}\n')
        folder = install.install("13.9", wheels_dir=wheels, log=lambda *a: None)
        self.assertTrue(os.path.isfile(os.path.join(folder, "INSTALLED.json")))
        self.assertEqual(toolchains.installed_dir("13.9"), folder)
        with open(os.path.join(folder, "INSTALLED.json")) as f:
            self.assertEqual(json.load(f)["ptxas"], "fake/bin/ptxas")
        self.assertTrue(os.access(os.path.join(folder, "fake/bin/ptxas"), os.X_OK))
        leftovers = [n for n in os.listdir(os.path.dirname(folder)) if n.startswith(".13.9-")]
        self.assertEqual(leftovers, [], "the temporary folder was renamed into place")

    def test_nvdisasm_member_installs_beside_and_alone(self):
        wheels = os.path.join(self.tmp, "wheels")
        sha = self.make_wheel(wheels, "fake-nvcc", "13.9.7", "fake/bin/ptxas", FAKE_PTXAS)
        dsha = self.make_wheel(wheels, "fake-nvdisasm", "13.9.7", "fake/bin/nvdisasm", "#!/bin/sh\n")
        self.catalog('version = 1\n[toolchain."13.9"]\nptxas = { package = "fake-nvcc", version = "13.9.7", '
                     f'member = "fake/bin/ptxas", sha256 = "{sha}" }}\n'
                     'nvdisasm = { package = "fake-nvdisasm", version = "13.9.7", member = "fake/bin/nvdisasm", '
                     f'sha256 = "{dsha}" }}\n[toolchain."13.8"]\nptxas = {{ package = "fake-nvcc", '
                     f'version = "13.9.7", member = "fake/bin/ptxas", sha256 = "{sha}" }}\n')
        self.assertEqual(catalog.load()["13.8"]["nvdisasm"], None)
        install.install("13.9", wheels_dir=wheels, log=lambda *a: None)
        path = install.installed_nvdisasm("13.9")
        self.assertTrue(path and path.endswith("fake/bin/nvdisasm") and os.access(path, os.X_OK))
        shutil.rmtree(install.nvdisasm_dir("13.9"))
        r = self.cli("install", "--nvdisasm-only", "13.9", "--wheels", wheels)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIsNotNone(install.installed_nvdisasm("13.9"))
        r = self.cli("install", "--nvdisasm-only", "13.8", "--wheels", wheels)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("names no nvidia-cuda-nvdisasm wheel", r.stderr)

    def test_offline_without_wheels_says_so(self):
        self.catalog('version = 1\n[toolchain."13.9"]\nptxas = { package = "no-such-package-ptxcts", version = "1.0", '
                     f'member = "x", sha256 = "{"0" * 64}" }}\n')
        os.makedirs(os.path.join(self.tmp, "empty"))   # a folder of wheels without the one asked for
        r = self.cli("install", "13.9", "--wheels", os.path.join(self.tmp, "empty"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("cannot download no-such-package-ptxcts==1.0", r.stderr)


if __name__ == "__main__":
    unittest.main()
