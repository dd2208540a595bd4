"""Installing a front-end offline from a folder of wheels (harness/frontend/install.py): the wheel of the running
Python is chosen among those pinned per CPython tag, its sha256 checked (a wrong one refused, exit 3, naming the file
and both hashes), a folder without a wheel for this Python refused (exit 2, naming the tag and the files there), and
an install made by another Python not taken as installed for this one. Small fake wheels stand in for llvmlite's
(57 MB each): the catalog of a fake repository root pins them. Run by frontend.unit (test_frontend imports it)."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

import frontend
from frontend import catalog, install

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
HERE = install.python_tag()
OTHER = "cp312" if HERE != "cp312" else "cp311"
LIB = "llvmlite/binding/libllvmlite.so"
PLAIN_LIB = "fake_rt/binding/libllvmlite.so"


def _sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def _fake_wheel(folder, package, version, tag):
    """A small installable wheel {package}-{version}-{tag}-none-any.whl whose library file says which tag it is."""
    mod = package.replace("-", "_")
    name = f"{mod}-{version}-{tag}-none-any.whl"
    info = f"{mod}-{version}.dist-info"
    files = {f"{mod}/__init__.py": "", f"{mod}/binding/libllvmlite.so": f"fake library of the {tag} wheel\n",
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n",
             f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: ptxcts-test\nRoot-Is-Purelib: false\n"
                              f"Tag: {tag}-none-any\n"}
    record = "".join(f"{p},,\n" for p in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(os.path.join(folder, name), "w") as z:
        for p, text in files.items():
            z.writestr(p, text)
        z.writestr(f"{info}/RECORD", record)
    return name


def _catalog(root, pins=None, plain=None):
    """Write root/toolchains/frontends.toml: front-end llvm-22 from llvmlite 0.50.0 pinned per Python (pins: {tag:
    (file, sha256)}), and front-end nvrtc-1+cccl-1 from one py3-none wheel of fake-rt 1.0 (plain: sha256) when
    given."""
    os.makedirs(os.path.join(root, "toolchains"), exist_ok=True)
    t = ['version = 1', '[frontend."llvm-22"]', 'kind = "llvm"', 'ptxas = "13.0"', f'library = "{LIB}"',
         '[[frontend."llvm-22".wheels]]', 'package = "llvmlite"', 'version = "0.50.0"']
    for tag, (f, sha) in (pins or {}).items():
        t += [f'[frontend."llvm-22".wheels.python.{tag}]', f'file = "{f}"', f'sha256 = "{sha}"']
    if plain:
        t += ['[frontend."nvrtc-1+cccl-1"]', 'kind = "nvrtc"', 'ptxas = "13.5"', f'library = "{PLAIN_LIB}"',
              'headers = "fake_rt"', f'wheels = [{{ package = "fake-rt", version = "1.0", sha256 = "{plain}" }}]']
    path = os.path.join(root, "toolchains", "frontends.toml")
    with open(path, "w") as f:
        f.write("\n".join(t) + "\n")
    return path


def _cli(argv, root, cache):
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]),
             PTXCTS_ROOT=root, PTXCTS_TOOLCHAIN_CACHE=cache)
    r = subprocess.run([sys.executable, "-m", "frontend"] + argv, capture_output=True, text=True, env=e, cwd=ROOT)
    return r.returncode, r.stdout + r.stderr


class InstallTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-fe-install-")
        self.root, self.cache, self.wheels = (os.path.join(self.tmp, d) for d in ("root", "cache", "wheels"))
        os.makedirs(self.wheels)
        self.files = {t: _fake_wheel(self.wheels, "llvmlite", "0.50.0", t) for t in (HERE, OTHER)}
        self.pins = {t: (f, _sha(os.path.join(self.wheels, f))) for t, f in self.files.items()}
        self.env = {"PTXCTS_TOOLCHAIN_CACHE": self.cache}
        self.saved = {k: os.environ.get(k) for k in self.env}
        os.environ.update(self.env)   # the in-process calls (frontends_dir) use the test's cache

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.tmp)

    def _installed(self):
        d = os.path.join(self.cache, "frontends", "llvm-22")
        with open(os.path.join(d, "site", LIB)) as f:
            lib = f.read()
        with open(os.path.join(d, "INSTALLED.json")) as f:
            return lib, json.load(f)

    # ---- the catalog ------------------------------------------------------------------------------------------
    def test_real_catalog_pins_llvmlite_for_cp311_and_cp312(self):
        (w,) = catalog.load()["llvm-22"]["wheels"]
        self.assertEqual((w["package"], w["version"]), ("llvmlite", "0.50.0"))
        self.assertLessEqual({"cp311", "cp312"}, set(w["python"]))
        self.assertEqual(w["python"]["cp311"]["sha256"],
                         "a6ffde00d4be8772a24e3e8b3af6bf86a79e7cf066d944ef56136b3957d707dc")
        self.assertEqual(w["python"]["cp312"]["sha256"],
                         "d501e5103076b9a14be885d2574dc2f6793171aa54a853d1244e011d476f1399")
        for tag, pin in w["python"].items():
            self.assertEqual(catalog.wheel_python_tags(pin["file"]), {tag})
            self.assertIn("x86_64", pin["file"])
        # the NVRTC and CCCL wheels are py3-none: one sha256 for every Python
        for w in catalog.load()["nvrtc-13.5+cccl-3.5"]["wheels"]:
            self.assertEqual(set(w), {"package", "version", "sha256"})
            self.assertEqual(catalog.pin_for(w, "cp312"), catalog.pin_for(w, "cp311"))

    def test_malformed_per_python_pins(self):
        good = self.pins[HERE]
        for pins, fragment in (({"py312": good}, "not a CPython tag"),
                               ({HERE: (good[0], "abc")}, ".sha256: not a sha256"),
                               ({OTHER: good}, f".file: '{good[0]}' is not a llvmlite-0.50.0-*.whl file name "
                                               f"tagged {OTHER}")):
            path = _catalog(self.root, pins)
            with self.assertRaises(frontend.FrontendError) as e:
                catalog.load(path)
            self.assertEqual(e.exception.code, 3, str(e.exception))
            self.assertIn(fragment, str(e.exception))
        with open(path, "a") as f:
            f.write(f'[frontend."llvm-22".wheels.python.{HERE}]\nfile = "{good[0]}"\n')
        with self.assertRaises(frontend.FrontendError) as e:
            catalog.load(path)
        self.assertEqual(e.exception.code, 3)

    # ---- one install shared by two front-ends ------------------------------------------------------------------
    def test_real_catalog_llvm_triton_shares_triton(self):
        cat = catalog.load()
        self.assertEqual(cat["llvm-triton"]["install"], "triton")
        self.assertEqual(cat["llvm-triton"]["wheels"], cat["triton"]["wheels"])
        self.assertEqual(cat["triton"]["install"], "triton")

    def test_a_sharing_front_end_installs_into_its_owners_folder(self):
        path = _catalog(self.root, self.pins)
        with open(path, "a") as f:
            f.write('[frontend."llvm-twin"]\nkind = "llvm"\nptxas = "13.0"\n'
                    f'library = "{LIB}"\nshares = "llvm-22"\n')
        cat = catalog.load(path)
        self.assertEqual(cat["llvm-twin"]["wheels"], cat["llvm-22"]["wheels"])
        d = install.install("llvm-twin", wheels_dir=self.wheels, log=lambda *a: None, cat=cat)
        self.assertEqual(d, os.path.join(self.cache, "frontends", "llvm-22"))
        self.assertFalse(os.path.exists(os.path.join(self.cache, "frontends", "llvm-twin")))
        self.assertEqual(install.installed_here("llvm-twin", cat=cat), install.installed_here("llvm-22", cat=cat))
        self.assertEqual(self._installed()[1]["name"], "llvm-22")

    def test_malformed_shares(self):
        for extra, fragment in (('shares = "nvrtc-x"', "is not a front-end with wheels of its own"),
                                ('shares = ""', ".shares: the name of the front-end"),
                                ('shares = "llvm-22"\n[[frontend."llvm-twin".wheels]]\npackage = "x"\n'
                                 'version = "1"\nsha256 = "' + "0" * 64 + '"', ".shares: the name of the front-end")):
            path = _catalog(self.root, self.pins)
            with open(path, "a") as f:
                f.write(f'[frontend."llvm-twin"]\nkind = "llvm"\nptxas = "13.0"\nlibrary = "{LIB}"\n{extra}\n')
            with self.assertRaises(frontend.FrontendError) as e:
                catalog.load(path)
            self.assertEqual(e.exception.code, 3, str(e.exception))
            self.assertIn(fragment, str(e.exception))

    # ---- choosing the wheel of a Python -----------------------------------------------------------------------
    def test_chooses_the_wheel_pinned_for_each_python(self):
        (w,) = catalog.load(_catalog(self.root, self.pins))["llvm-22"]["wheels"]
        for tag in (HERE, OTHER):
            into = os.path.join(self.tmp, "dl-" + tag)
            os.makedirs(into)
            got = install._pick_per_python(w, tag, into, self.wheels, lambda s: None)
            self.assertEqual(os.path.basename(got), self.files[tag])
            self.assertEqual(_sha(got), self.pins[tag][1])
        with self.assertRaises(frontend.FrontendError) as e:
            catalog.pin_for(w, "cp399")
        self.assertEqual(e.exception.code, 2)
        self.assertIn("not for this Python (cp399)", str(e.exception))

    def test_installs_the_wheel_of_this_python(self):
        _catalog(self.root, self.pins)
        rc, out = _cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)
        self.assertEqual(rc, 0, out)
        lib, rec = self._installed()
        self.assertEqual(lib, f"fake library of the {HERE} wheel\n")
        self.assertEqual(rec["python_tag"], HERE)
        self.assertEqual(rec["wheels"], [{"package": "llvmlite", "version": "0.50.0", "file": self.files[HERE],
                                          "sha256": self.pins[HERE][1]}])
        # installed for this Python; an install of another Python's is not (the cache has one folder per name)
        cat = catalog.load(os.path.join(self.root, "toolchains", "frontends.toml"))
        self.assertIsNotNone(install.installed_here("llvm-22", HERE, cat))
        self.assertIsNone(install.installed_here("llvm-22", OTHER, cat))
        rc, out = _cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)
        self.assertEqual(rc, 0, out)
        self.assertIn("llvm-22 is installed in", out)

    def test_an_install_of_another_python_is_made_again(self):
        _catalog(self.root, self.pins)
        self.assertEqual(_cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)[0], 0)
        path = os.path.join(self.cache, "frontends", "llvm-22", "INSTALLED.json")
        with open(path) as f:
            rec = json.load(f)
        rec["python_tag"], rec["python"] = OTHER, f"3.{OTHER[3:]}"
        with open(path, "w") as f:
            json.dump(rec, f)
        rc, out = _cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)
        self.assertEqual(rc, 0, out)
        self.assertIn(f"was installed for {OTHER}, not for this Python ({HERE})", out)
        self.assertEqual(self._installed()[1]["python_tag"], HERE)
        # an INSTALLED.json of before the tag was recorded: its "python" says which
        del rec["python_tag"]
        rec["python"] = f"{sys.version_info.major}.{sys.version_info.minor}"
        with open(path, "w") as f:
            json.dump(rec, f)
        cat = catalog.load(os.path.join(self.root, "toolchains", "frontends.toml"))
        self.assertIsNotNone(install.installed_here("llvm-22", HERE, cat))
        self.assertIsNone(install.installed_here("llvm-22", OTHER, cat))

    # ---- refusals ---------------------------------------------------------------------------------------------
    def test_a_wheel_with_the_wrong_sha256_is_refused(self):
        wrong = self.pins[OTHER][1]
        _catalog(self.root, {HERE: (self.files[HERE], wrong), OTHER: self.pins[OTHER]})
        rc, out = _cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)
        self.assertEqual(rc, 3, out)
        self.assertIn(self.files[HERE], out)
        self.assertIn(f"sha256 {self.pins[HERE][1]} is not the sha256 {wrong} pinned for {HERE}", out)
        self.assertIn("refused, nothing installed", out)
        self.assertFalse(os.path.exists(os.path.join(self.cache, "frontends", "llvm-22")))

    def test_another_file_of_this_python_is_taken_only_with_the_pinned_sha256(self):
        # e.g. another platform's build of the same tag: not the pinned file, so exit 2 (no wheel of the pin here)
        _catalog(self.root, {HERE: (self.files[HERE], self.pins[OTHER][1]), OTHER: self.pins[OTHER]})
        renamed = self.files[HERE].replace("-any.whl", "-linux_aarch64.whl").replace("-none-", f"-{HERE}-")
        os.rename(os.path.join(self.wheels, self.files[HERE]), os.path.join(self.wheels, renamed))
        rc, out = _cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)
        self.assertEqual(rc, 2, out)
        self.assertIn(f"holds {renamed} (sha256 {self.pins[HERE][1]}) for this Python ({HERE}), not the pinned "
                      f"{self.files[HERE]} (sha256 {self.pins[OTHER][1]}", out)
        self.assertFalse(os.path.exists(os.path.join(self.cache, "frontends", "llvm-22")))
        # the same file under another name but with the pinned sha256 is the pinned wheel
        (w,) = catalog.load(_catalog(self.root, self.pins))["llvm-22"]["wheels"]
        os.makedirs(os.path.join(self.tmp, "dl"))
        got = install._pick_per_python(w, HERE, os.path.join(self.tmp, "dl"), self.wheels, lambda s: None)
        self.assertEqual((os.path.basename(got), _sha(got)), (renamed, self.pins[HERE][1]))

    def test_a_folder_without_this_pythons_wheel_is_refused(self):
        _catalog(self.root, self.pins)
        os.remove(os.path.join(self.wheels, self.files[HERE]))
        rc, out = _cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)
        self.assertEqual(rc, 2, out)
        self.assertIn(f"no llvmlite==0.50.0 wheel for this Python ({HERE}", out)
        self.assertIn(f"the folder holds {self.files[OTHER]}", out)
        self.assertIn(f"Put {self.files[HERE]} there", out)
        self.assertIn(f"--python-version 3.{HERE[3:]}", out)
        self.assertFalse(os.path.exists(os.path.join(self.cache, "frontends", "llvm-22")))
        os.remove(os.path.join(self.wheels, self.files[OTHER]))
        rc, out = _cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)
        self.assertEqual(rc, 2, out)
        self.assertIn("no llvmlite-0.50.0-*.whl (its .whl files: none)", out)

    def test_a_python_with_no_pin_is_refused_before_any_fetch(self):
        _catalog(self.root, {OTHER: self.pins[OTHER]})
        rc, out = _cli(["install", "--wheels", self.wheels, "llvm-22"], self.root, self.cache)
        self.assertEqual(rc, 2, out)
        self.assertIn(f"pinned for {OTHER} only", out)
        self.assertIn(f"not for this Python ({HERE})", out)
        self.assertNotIn("fetching", out)

    # ---- a wheel of every Python (NVRTC, CCCL): as before -----------------------------------------------------
    def test_a_wheel_of_every_python_is_installed_for_any(self):
        plain = _fake_wheel(self.wheels, "fake-rt", "1.0", "py3")
        _catalog(self.root, self.pins, "0" * 64)
        rc, out = _cli(["install", "--wheels", self.wheels, "nvrtc-1+cccl-1"], self.root, self.cache)
        self.assertEqual(rc, 3, out)
        self.assertIn(f"{plain}: sha256 {_sha(os.path.join(self.wheels, plain))} is not the catalog's {'0' * 64}", out)
        path = _catalog(self.root, self.pins, _sha(os.path.join(self.wheels, plain)))
        rc, out = _cli(["install", "--wheels", self.wheels, "nvrtc-1+cccl-1"], self.root, self.cache)
        self.assertEqual(rc, 0, out)
        with open(os.path.join(self.cache, "frontends", "nvrtc-1+cccl-1", "site", PLAIN_LIB)) as f:
            self.assertEqual(f.read(), "fake library of the py3 wheel\n")
        cat = catalog.load(path)
        for tag in (HERE, OTHER):
            self.assertIsNotNone(install.installed_here("nvrtc-1+cccl-1", tag, cat))


if __name__ == "__main__":
    unittest.main()
