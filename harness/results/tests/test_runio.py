"""The tiers' helpers: run IDs unique and sortable, the output-folder lock, atomic writes."""
import datetime
import os
import re
import subprocess
import sys
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
