"""The tiers' helpers: run IDs unique and sortable, the output-folder lock, atomic writes."""
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from framework.documents import OutputLock, atomic_write, new_run_id, schema
from framework.documents.errors import UsageError

from .common import REPO, TempDirTest

HOLD = ("import sys, time; sys.path.insert(0, sys.argv[2]); from framework.documents import OutputLock; "
        "l = OutputLock(sys.argv[1]).acquire(); print('locked', flush=True); time.sleep(60)")


class LockName(unittest.TestCase):
    def test_the_cpp_tiers_lock_the_same_file(self):
        """runcore's FolderLock and OutputLock must lock one file, or a C++ and a Python run share a folder."""
        from framework.documents.runio import LOCK_NAME
        with open(os.path.join(REPO, "harness", "runcore", "src", "core", "util.hpp"), encoding="utf-8") as f:
            m = re.search(r'kLockName = "([^"]+)";', f.read())
        self.assertIsNotNone(m, "runcore util.hpp no longer states kLockName")
        self.assertEqual(m.group(1), LOCK_NAME)

    def test_the_cpp_tiers_know_the_same_run_files(self):
        """ptxcts/given.hpp's kRunFiles and RUN_FILES must name the same files, or a C++ tier writes into a folder
        holding a run the Python tiers know (or a re-judge replaces one)."""
        from framework.documents.runio import RUN_FILES
        with open(os.path.join(REPO, "harness", "common", "include", "ptxcts", "given.hpp"), encoding="utf-8") as f:
            m = re.search(r"kRunFiles\[\] = \{([^}]*)\}", f.read())
        self.assertIsNotNone(m, "ptxcts/given.hpp no longer states kRunFiles")
        self.assertEqual(tuple(re.findall(r'"([^"]+)"', m.group(1))), RUN_FILES)


class OutputOverInput(unittest.TestCase):
    """framework.documents.runio.output_over_input: what every verb that reads runs and writes beside them refuses."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-over-")
        self.run = os.path.join(self.tmp, "run")
        os.makedirs(os.path.join(self.run, "shard-0"))
        for p in (os.path.join(self.run, "results.json"), os.path.join(self.run, "shard-0", "results.json"),
                  os.path.join(self.tmp, "s0.json")):
            with open(p, "w") as f:
                f.write("{}\n")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_refused(self):
        from framework.documents.runio import output_over_input
        doc = os.path.join(self.run, "results.json")
        os.symlink(self.run, os.path.join(self.tmp, "link"))
        for outputs, inputs, run_output, says in (
                ({"--json": doc}, [doc], None, "is the input " + doc + ";"),
                ({"--json": doc}, [self.run], None, "(a run document in it)"),
                ({"--json": os.path.join(self.run, "shard-0", "results.json")}, [self.run], None, "a run document in it"),
                ({"--json": os.path.join(self.tmp, "link", "results.json.gz")}, [self.run], None, "a run document"),
                ({"--out": os.path.join(self.run, "m")}, [self.run], "--out", "lies inside the input " + self.run + ";"),
                ({"--out": os.path.join(self.run, "m")}, [doc], "--out", f"(the folder of the input {doc})"),
                ({"--out": self.run}, [doc], "--out", "is the input " + self.run),
                ({"--json": os.path.join(self.tmp, "a"), "--markdown": os.path.join(self.tmp, "a")}, [self.run], None,
                 "is also --markdown")):
            with self.subTest(outputs=outputs, inputs=inputs):
                problem = output_over_input(outputs, inputs, run_output)
                self.assertIsNotNone(problem)
                self.assertIn(says, problem)
                self.assertTrue(problem.startswith(next(iter(outputs)) + " "), problem)

    def test_accepted(self):
        from framework.documents.runio import output_over_input
        doc = os.path.join(self.run, "results.json")
        for outputs, inputs, run_output in (
                ({"--json": os.path.join(self.run, "gate.json")}, [self.run], None),   # no run document
                ({"--out": os.path.join(self.run, "rep")}, [self.run], None),          # report's folder: no run
                ({"--out": os.path.join(self.tmp, "m")}, [doc], "--out"),             # beside the run, not in it
                ({"--out": os.path.join(self.tmp, "m")}, [os.path.join(self.tmp, "s0.json")], "--out"),   # any name
                ({"--json": None}, [self.run], None),
                ({"--json": doc}, ["none", os.path.join(self.tmp, "missing")], None)):
            with self.subTest(outputs=outputs, inputs=inputs):
                self.assertIsNone(output_over_input(outputs, inputs, run_output))


class RunIds(unittest.TestCase):
    def test_unique_and_sortable(self):
        ids = [new_run_id("compile") for _ in range(2000)]
        self.assertEqual(len(set(ids)), len(ids), "two runs started in the same millisecond got one ID")
        t0 = datetime.datetime(2026, 11, 22, 19, 31, 31, 123456, tzinfo=datetime.timezone.utc)
        a, b = new_run_id("sm_90-run", t0), new_run_id("sm_90-run", t0 + datetime.timedelta(milliseconds=1))
        self.assertTrue(a.startswith("2026-11-22T19-31-31.123Z-sm_90-run-"), a)
        self.assertLess(a, b, "IDs sort by start time")
        later = new_run_id("compile", t0 + datetime.timedelta(seconds=1))
        self.assertLess(max(new_run_id("compile", t0) for _ in range(50)), later)
        doc = {"run_id": a}
        self.assertRegex(doc["run_id"], r"^[A-Za-z0-9._:+-]+$")  # what the schema accepts

    def test_bad_label(self):
        with self.assertRaises(UsageError):
            new_run_id("a/b")


class Lock(TempDirTest):
    def test_second_holder_is_refused_naming_the_pid(self):
        folder = os.path.join(self.tmp, "out")
        holder = subprocess.Popen([sys.executable, "-c", HOLD, folder, os.path.join(REPO, "harness")],
                                  stdout=subprocess.PIPE, text=True)
        self.addCleanup(holder.wait)
        self.addCleanup(holder.kill)
        self.assertEqual(holder.stdout.readline().strip(), "locked")
        with self.assertRaises(UsageError) as e:
            OutputLock(folder).acquire()
        self.assertEqual(e.exception.exit_code, 2)
        self.assertIn(folder, str(e.exception))
        self.assertIn(f"pid {holder.pid}", str(e.exception))
        holder.kill()
        holder.wait()
        with OutputLock(folder):  # the kernel dropped the dead holder's lock: a stale file blocks nothing
            self.assertTrue(os.path.exists(os.path.join(folder, ".ptxcts.lock")))
        self.assertFalse(os.path.exists(os.path.join(folder, ".ptxcts.lock")))

    def test_new_run_refuses_a_run_written_since(self):
        with OutputLock(self.tmp, new_run=True):   # nothing there yet
            pass
        atomic_write(os.path.join(self.tmp, "results.json"), "{}\n")   # another tier's run, written meanwhile
        with self.assertRaises(UsageError) as e:
            OutputLock(self.tmp, new_run=True).acquire()
        self.assertIn("holds a run already (results.json)", str(e.exception))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, ".ptxcts.lock")), "refused: the lock is released")
        with OutputLock(self.tmp):   # --resume: a folder with a run is its to take
            pass

    def test_in_process_second_lock_refused(self):
        with OutputLock(self.tmp):
            with self.assertRaises(UsageError):
                OutputLock(self.tmp).acquire()
        with OutputLock(self.tmp):  # released: free again
            pass


class Atomic(TempDirTest):
    def test_failed_write_keeps_the_old_file(self):
        path = os.path.join(self.tmp, "results.json")
        atomic_write(path, "old\n")

        from unittest import mock

        def boom(fd):
            raise OSError(28, "No space left on device")
        with mock.patch("framework.documents.runio.os.fsync", boom), self.assertRaises(OSError):
            atomic_write(path, "new, half written\n")
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), "old\n")
        self.assertEqual(sorted(os.listdir(self.tmp)), ["results.json"], "no temporary file left behind")
        atomic_write(path, "new\n")
        with open(path, encoding="utf-8") as f:
            self.assertEqual(f.read(), "new\n")

    def test_write_run_writes_one_case_per_line(self):
        from framework.documents import write_run
        from .common import RUNS
        import json
        with open(os.path.join(RUNS, "compile", "results.json"), encoding="utf-8") as f:
            doc = json.load(f)
        path = write_run(os.path.join(self.tmp, "run"), doc)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        case_lines = [l for l in lines if l.lstrip().startswith('{"class"')]
        self.assertEqual(len(case_lines), len(doc["cases"]))
        for line in case_lines:
            json.loads(line.rstrip(","))
        self.assertEqual(schema.load(path)["version"], schema.VERSION)


if __name__ == "__main__":
    unittest.main()
