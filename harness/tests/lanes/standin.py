"""What the tests of the jobs share (test_all_lanes.py, test_devcheck.py): a scratch folder per test, and the
stand-in scripts (a ./ptxcts, an nvidia-smi) written executable into it."""
import os
import shutil
import stat
import tempfile
import unittest

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


class StandInTest(unittest.TestCase):
    prefix = "ptxcts-jobs-"

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix=self.prefix)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    @staticmethod
    def script(path, text):
        """Write an executable stand-in script."""
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
