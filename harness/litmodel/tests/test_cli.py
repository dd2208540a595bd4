"""./ptxcts litmus model|catalog|agreement|suite: output, --json, and the exit status of bad inputs (2 usage, 3 a
malformed litmus file naming file and line)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HARNESS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = os.path.dirname(HARNESS)


def run(*args):
    env = dict(os.environ, PYTHONPATH=HARNESS + os.pathsep + os.path.join(ROOT, "generator"))
    return subprocess.run([sys.executable, "-m", "framework", "litmodel", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT)


class Cli(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def file(self, text):
        p = os.path.join(self.dir.name, "t.litmus")
        with open(p, "w") as f:
            f.write(text)
        return p

    def test_model_prints_every_outcome_and_a_summary(self):
        p = self.file("test MP\nthread T0\nthread T1 cta=1\nT0: st.weak x 1\nT0: st.release.gpu y 1\n"
                      "T1: ld.acquire.gpu r1 y\nT1: ld.weak r2 x\n")
        r = run("model", p)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("forbidden  T1:r1=1 T1:r2=0  [causality]", r.stdout)
        self.assertIn("tests  outcomes  forbidden", r.stdout)

    def test_model_json(self):
        p = self.file("test A\nthread T0\nT0: st.weak s 1\nT0: cp.async.bulk g s bulk_group\n"
                      "T0: cp.async.bulk.commit_group\nT0: cp.async.bulk.wait_group 0\nT0: ld.weak r1 g\n")
        r = run("model", p, "--json", "-")
        self.assertEqual(r.returncode, 0, r.stderr)
        doc = json.loads(r.stdout)
        self.assertEqual({o["verdict"] for o in doc["tests"][0]["outcomes"]}, {"allowed"})
        self.assertEqual(doc["policies"]["ub_extent"], "execution")

    def test_malformed_file_exits_3_naming_file_and_line(self):
        p = self.file("test A\nthread T0\nT0: st.weak x\n")
        r = run("model", p)
        self.assertEqual(r.returncode, 3)
        self.assertIn(f"{p}:3: 'st.weak' takes 2 operand(s), got 1", r.stderr)

    def test_missing_file_exits_2(self):
        r = run("model", os.path.join(self.dir.name, "none.litmus"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("none.litmus", r.stderr)

    def test_unknown_policy_exits_2(self):
        p = self.file("test A\nthread T0\nT0: st.weak x 1\n")
        r = run("model", p, "--policy", "ub_extent=never")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no alternative 'never'", r.stderr)

    def test_unknown_test_exits_2(self):
        p = self.file("test A\nthread T0\nT0: st.weak x 1\n")
        r = run("model", p, "--test", "B")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--test B", r.stderr)

    def test_mutants_check_is_clean(self):
        r = run("mutants", "check")
        self.assertEqual(r.returncode, 0, r.stdout[-2000:])
        self.assertIn("292", r.stdout)

    def test_cuda_writes_kernels_and_labels(self):
        p = self.file("test A\nthread T0\nT0: st.weak x 1\nT0: ld.weak r1 x\n")
        out = os.path.join(self.dir.name, "k")
        r = run("cuda", p, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(out, "labels.tsv")) as f:
            self.assertEqual(f.read(), "A\tT0:r1=0\tforbidden\nA\tT0:r1=1\tallowed\n")
        with open(os.path.join(out, "litmus_kernels.cu")) as f:
            self.assertIn("lit_A(Params p)", f.read())

    def test_catalog_counts(self):
        r = run("catalog")
        self.assertEqual(r.returncode, 0)
        self.assertIn("30 axioms, 8 policies", r.stdout)


if __name__ == "__main__":
    unittest.main()
