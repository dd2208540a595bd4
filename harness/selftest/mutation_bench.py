"""The private build of ./ptxcts selftest-model (model_mutation.py): a snapshot of the model, its tests and ptxcts-ref
built in a folder of its own, one mutated source planted at a time, the model tests run against it with a timeout."""
import os
import re
import shutil
import signal
import subprocess
import time

from framework import paths

from .mutants import sha

ROOT = paths.root()


def write_if_changed(path, data):
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return
    except FileNotFoundError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


# What the private build compiles, snapshot from the checkout when a run starts (a consistent measurement while
# others edit the tree): the model (whose sources get mutated), its headers, its tests, ptxcts-ref and its cases.
SNAPSHOT = ["harness/refmodel", "harness/tools", "harness/common/include",
            "harness/common/src", "docs/POLICIES.md", "harness/selftest/CMakeLists.txt"]


class Bench:
    """The private build: <build>/tree (snapshot of SNAPSHOT; tree/harness/refmodel/src gets one mutated file at a
    time) and <build>/build (CMake project harness/selftest over that tree)."""

    def __init__(self, build_dir, jobs, timeout):
        self.dir = build_dir
        self.tree = os.path.join(build_dir, "tree")
        self.src = os.path.join(self.tree, "harness", "refmodel", "src")
        self.bld = os.path.join(build_dir, "build")
        self.jobs = jobs
        self.timeout = timeout
        self.originals = {}
        self.base_obj = {}

    def sync(self):
        want_files = set()
        for rel in SNAPSHOT:
            top = os.path.join(ROOT, rel)
            walk = [(os.path.dirname(top), [], [os.path.basename(top)])] if os.path.isfile(top) else os.walk(top)
            for dirpath, dirs, files in walk:
                dirs[:] = [d for d in dirs if d != "__pycache__"]
                for fn in files:
                    relf = os.path.relpath(os.path.join(dirpath, fn), ROOT)
                    want_files.add(relf)
                    dst = os.path.join(self.tree, relf)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    with open(os.path.join(ROOT, relf), "rb") as f:
                        data = f.read()
                    write_if_changed(dst, data)
                    if os.path.dirname(relf) == os.path.join("harness", "refmodel", "src") and fn.endswith(".cpp"):
                        self.originals[fn] = data
        for dirpath, _, files in os.walk(self.tree):
            for fn in files:
                if os.path.relpath(os.path.join(dirpath, fn), self.tree) not in want_files:
                    os.remove(os.path.join(dirpath, fn))
        names = sorted(self.originals)
        stamp = os.path.join(self.dir, "configured-for.txt")
        want = f"checkout={ROOT}\ntree={self.tree}\nfiles={' '.join(names)}\n"
        have = open(stamp).read() if os.path.exists(stamp) else ""
        if have != want or not os.path.exists(os.path.join(self.bld, "CMakeCache.txt")):
            gen = ["-G", "Ninja"] if shutil.which("ninja") else []
            launcher = [f"-DCMAKE_CXX_COMPILER_LAUNCHER={shutil.which('ccache')}"] if shutil.which("ccache") else []
            cmd = ["cmake", "-S", os.path.join(self.tree, "harness", "selftest"), "-B", self.bld, *gen, *launcher, f"-DPTXCTS_CHECKOUT={self.tree}",
                   "-DCMAKE_BUILD_TYPE=", "-DCMAKE_CXX_FLAGS=-O2"]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                raise SystemExit(f"selftest-model: configuring {self.bld} failed:\n{p.stdout[-3000:]}")
            with open(stamp, "w") as f:
                f.write(want)

    def env(self):
        env = dict(os.environ)
        env.setdefault("CCACHE_DIR", os.path.join(self.dir, "ccache"))
        env.setdefault("CCACHE_MAXSIZE", "2G")
        return env

    def build(self):
        p = subprocess.run(["cmake", "--build", self.bld, "-j", str(self.jobs)], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, env=self.env())
        return p.returncode == 0, p.stdout

    def object_hash(self, name):
        for dirpath, _, files in os.walk(self.bld):
            if "ptxcts_refmodel.dir" in dirpath.split(os.sep) and name + ".o" in files:
                with open(os.path.join(dirpath, name + ".o"), "rb") as f:
                    return sha(f.read())
        return None

    def run(self, cmd, timeout):
        """(returncode or 'timeout', output); the whole process group is killed on timeout."""
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=self.bld,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=timeout)
            return p.returncode, out
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return "timeout", ""
        except KeyboardInterrupt:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            raise

    def test(self):
        """('killed', by) / ('timeout', by) / ('survived', None)."""
        gtest = os.path.join(self.bld, "refmodel", "tests", "ptxcts-model-tests")
        rc, out = self.run([gtest, "--gtest_brief=1", "--gtest_fail_fast"], self.timeout)
        if rc == "timeout":
            return "timeout", "ptxcts-model-tests"
        if rc != 0:
            failed = re.findall(r"^\[  FAILED  \] (\S+)", out, re.M)
            return "killed", failed[0] if failed else f"ptxcts-model-tests (exit {rc})"
        rc, out = self.run(["ctest", "-L", "model", "-R", r"^ptxcts-ref\.", "--stop-on-failure",
                            "--timeout", str(int(self.timeout))], self.timeout * 2)
        if rc == "timeout":
            return "timeout", "ptxcts-ref cases"
        if rc != 0:
            failed = re.findall(r"\d+ - (ptxcts-ref\.\S+)", out)
            return "killed", failed[0] if failed else f"ctest (exit {rc})"
        return "survived", None

    def baseline(self):
        ok, out = self.build()
        if not ok:
            raise SystemExit(f"selftest-model: the unmutated model and its tests do not build:\n{out[-3000:]}")
        for n in self.originals:
            self.base_obj[n] = self.object_hash(n)
        t0 = time.monotonic()
        verdict, by = self.test()
        elapsed = time.monotonic() - t0
        if verdict != "survived":
            raise SystemExit(f"selftest-model: the model tests fail without any mutant ({by}): fix them first")
        return elapsed

    def plant(self, name, data):
        write_if_changed(os.path.join(self.src, name), data)

    def restore(self):
        for n, data in self.originals.items():
            write_if_changed(os.path.join(self.src, n), data)
