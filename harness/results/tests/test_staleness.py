"""The re-judge of a run document (`ptxcts-run --rejudge`, harness/run/src/rejudge.hpp) and the staleness
check of a baseline built on it (harness/results/staleness.py), on the CPU. CTest: run.rejudge (RejudgeTest) and
results.staleness (StalenessTest), both registered by harness/run/CMakeLists.txt (they need ptxcts-run)."""
import contextlib
import gzip
import io
import json
import os
import subprocess
import tempfile
import unittest

from framework.documents import baseline
from results import staleness

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
H200 = os.path.join(REPO, "results", "2026-11-28-sm_90-h200-run", "results.json.gz")
BUILD = os.environ.get("PTXCTS_BUILD") or os.path.join(REPO, "build")
EXE = os.path.join(BUILD, "harness", "run", "ptxcts-run")
STALE_ID = "cp.async.bulk.prefetch.tensor/4d.L2.global.im2col#explored.0x33158d4bbe"
POLICY = "im2col_interleave_box_area=previous_dim"
# A driver-API case the model of this tree judges as the H200 run recorded it.
ENCODE_ID = "tensormap/cuTensorMapEncodeTiled#legal.f32_2d"

_doc = None


def h200():
    global _doc
    if _doc is None:
        with gzip.open(H200, "rt", encoding="utf-8") as f:
            _doc = json.load(f)
    return _doc


def pick(pred):
    return [c for c in h200()["cases"] if pred(c)]


def mini(cases, **header):
    """A run document of the H200 run's header with these cases."""
    d = {k: v for k, v in h200().items() if k != "cases"}
    d.update(header)
    d["cases"] = cases
    return d


def rejudge(path, *extra):
    """(exit code, stdout, stderr, the --json document or None)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        p = subprocess.run([EXE, "--rejudge", path, "--json", out, *extra], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        j = None
        if os.path.isfile(out):
            with open(out, encoding="utf-8") as f:
                j = json.load(f)
        return p.returncode, p.stdout, p.stderr, j


class Base(unittest.TestCase):
    def setUp(self):
        if not os.path.isfile(EXE):
            self.fail(f"{EXE} is not built (./ptxcts build)")
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def write(self, name, doc, gz=False):
        path = os.path.join(self.tmp.name, name)
        data = json.dumps(doc, indent=1).encode()
        with (gzip.open(path, "wb") if gz else open(path, "wb")) as f:
            f.write(data)
        return path


class RejudgeTest(Base):
    def test_h200_run_changes_exactly_the_interleave_box_area_key(self):
        code, out, err, j = rejudge(H200)
        self.assertEqual(code, 1, out + err)
        changed = [c for c in j["cases"] if "today" in c and c["today"] != c["recorded"]]
        self.assertEqual(sorted((c["id"], c["load_path"]) for c in changed),
                         [(STALE_ID, "cubin"), (STALE_ID, "jit")], out)
        for c in changed:
            self.assertEqual((c["recorded"], c["today"], c["rule"], c["matched_policy"]),
                             ("fail", "spec_divergence", "encode", POLICY))
        s = j["summary"]
        self.assertEqual((s["cases"], s["changed"]), (len(h200()["cases"]), 2))
        self.assertEqual(s["rejudged"], s["unchanged"] + s["changed"])
        self.assertEqual(s["cases"], s["rejudged"] + sum(s["not_rejudgeable"].values()))
        # every encode-decided and every trapped case of the document is re-judged, none silently passed
        def by_encode(c):
            d = c["details"]
            return "encode_result" in d and (d["encode_result"] != "CUDA_SUCCESS" or c["family"] == "tensormap.encode")
        encode = pick(by_encode)
        trap = pick(lambda c: "kernel_error" in c["details"] and not by_encode(c))
        self.assertEqual(s["rejudged"], len(encode) + len(trap))
        self.assertIn(f"{STALE_ID} [cubin sm_90]: fail -> spec_divergence (encode, matched_policy {POLICY})", out)

    def test_cases_judged_the_same_are_unchanged(self):
        trap = pick(lambda c: c["class"] == "spec_divergence" and "predicted_trap" in c["details"])[0]
        enc = pick(lambda c: c["id"] == ENCODE_ID)[0]
        refused = pick(lambda c: c["family"] == "tensormap.encode" and c["class"] == "pass" and
                       c["details"]["encode_result"] == "CUDA_ERROR_INVALID_VALUE")[0]
        path = self.write("same.json.gz", mini([trap, enc, refused]), gz=True)
        code, out, err, j = rejudge(path)
        self.assertEqual(code, 0, out + err)
        self.assertEqual([(c["id"], c.get("rule"), c.get("today")) for c in j["cases"]],
                         [(trap["id"], "trap", "spec_divergence"), (enc["id"], "encode", "pass"),
                          (refused["id"], "encode", "pass")])
        self.assertEqual(j["cases"][0]["matched_policy"], trap["details"]["matched_policy"])
        self.assertEqual((j["summary"]["unchanged"], j["summary"]["changed"]), (3, 0))
        # the same cases with other recorded classes: each is reported changed (the comparison can fail)
        wrong = [dict(c, **{"class": "crash"}) for c in (trap, enc, refused)]
        code, out, err, j = rejudge(self.write("wrong.json", mini(wrong)))
        self.assertEqual(code, 1, out + err)
        self.assertEqual(j["summary"]["changed"], 3)
        self.assertIn(f"changed: {trap['id']} [{trap['load_path']} sm_90]: crash -> spec_divergence (trap", out)

    def test_what_cannot_be_rejudged_is_counted_by_reason(self):
        by_bytes = pick(lambda c: c["class"] == "pass" and "encode_result" not in c["details"])[0]
        unsupported = pick(lambda c: c["class"] == "not_supported")[0]
        enc = pick(lambda c: c["id"] == ENCODE_ID)[0]
        moved = json.loads(json.dumps(enc))
        moved["details"]["tensor_map"]["dims"][0] += 1          # not the map today's plan encodes
        gone = json.loads(json.dumps(enc))
        gone["id"] = "tensormap/cuTensorMapEncodeTiled#no_such_variant"
        reseeded = json.loads(json.dumps(enc))
        reseeded["load_path"] = "jit"
        reseeded["details"]["case_seed"] = "0x1"
        code, out, err, j = rejudge(self.write("n.json", mini([by_bytes, unsupported, moved, gone, reseeded])))
        self.assertEqual(code, 0, out + err)
        reasons = [c.get("reason") for c in j["cases"]]
        self.assertEqual(reasons, ["decided by the device's bytes and status words (not kept)",
                                   "not_supported, compile_error or skipped (decided by no judgement)",
                                   "today's plan builds another case (variant, seed or tensor map differ)",
                                   "not in today's plan",
                                   "today's plan builds another case (variant, seed or tensor map differ)"])
        self.assertEqual(j["summary"]["rejudged"], 0)
        self.assertIn("not re-judgeable", out)

    def test_malformed_document_exits_3_naming_the_file(self):
        enc = pick(lambda c: c["id"] == ENCODE_ID)[0]
        full = self.write("full.json.gz", mini([enc]), gz=True)
        with open(full, "rb") as f:
            data = f.read()
        cut = os.path.join(self.tmp.name, "cut.json.gz")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        bad = {
            "cut.json.gz": cut,
            "text.json": self.write("text.json", None),
            "class.json": self.write("class.json", mini([dict(enc, **{"class": "bogus"})])),
            "twice.json": self.write("twice.json", mini([enc, enc])),
            "details.json": self.write("details.json", mini([dict(enc, details=[1])])),
            "cc.json": self.write("cc.json", mini([enc], device={"name": "x", "sm": "sm_90"})),
            "compile.json": self.write("compile.json", mini([enc], tier="compile")),
        }
        with open(bad["text.json"], "w") as f:
            f.write("{not json")
        for name, path in bad.items():
            code, out, err, _ = rejudge(path)
            self.assertEqual(code, 3, f"{name}: {out}{err}")
            self.assertTrue(err.startswith(f"ptxcts-run: {path}: "), f"{name}: {err}")
            self.assertEqual(len(err.strip().splitlines()), 1, err)

    def test_usage(self):
        for argv in ([EXE, "--rejudge"], [EXE, "--rejudge", "/no/such/file"], [EXE, "--rejudge", H200, "--seed", "1"],
                     [EXE, "--rejudge", H200, "--json", H200]):
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
            self.assertEqual(p.returncode, 2, argv)
            self.assertTrue(p.stderr.startswith("ptxcts-run: --rejudge: "), p.stderr)


class StalenessTest(Base):
    def run_check(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = staleness.cli([str(a) for a in argv])
        return code, out.getvalue(), err.getvalue()

    def baseline_with(self, classes):
        """A run baseline (sm_90, 13.0) of the committed one's cases, with these keys' classes."""
        header, cases = baseline.load(os.path.join(REPO, "results", "baselines", "run", "sm_90", "nvidia-h200-r580",
                                                   "13.0.json.gz"))
        cases.update(classes)
        path = os.path.join(self.tmp.name, "13.0.json.gz")
        baseline.write(path, "run", header["toolchain"], header["sm"], header["source"], cases, header["device"])
        return path

    def keys(self, cls):
        return {(STALE_ID, "sm_90", "9.0", lp, "sm_90"): cls for lp in ("cubin", "jit")}

    def test_baseline_with_the_old_class_is_stale(self):
        path = self.baseline_with(self.keys("fail"))
        code, out, err = self.run_check(H200, "--baseline", path, "--json", os.path.join(self.tmp.name, "s.json"))
        self.assertEqual(code, 1, out + err)
        stale = [line for line in out.splitlines() if line.startswith("STALE ")]
        self.assertEqual(stale, [f"STALE {STALE_ID}|sm_90|9.0|{lp}|sm_90: baseline fail, today spec_divergence "
                                 f"(recorded fail; encode, matched_policy {POLICY})" for lp in ("cubin", "jit")])
        with open(os.path.join(self.tmp.name, "s.json")) as f:
            self.assertEqual(json.load(f)["summary"]["stale"], 2)

    def test_baseline_with_todays_class_is_not_stale(self):
        path = self.baseline_with(self.keys("spec_divergence"))
        code, out, err = self.run_check(H200, "--baseline", path)
        self.assertEqual(code, 0, out + err)
        self.assertFalse([line for line in out.splitlines() if line.startswith("STALE ")], out)
        self.assertIn("agree with the baseline            127", out)

    def test_a_run_that_differs_from_the_baseline_is_not_called_stale(self):
        path = self.baseline_with(self.keys("pass"))
        code, out, err = self.run_check(H200, "--baseline", path)
        self.assertEqual(code, 0, out + err)
        self.assertIn(f"run differs from the baseline (not the model): {STALE_ID}|sm_90|9.0|cubin|sm_90", out)

    def test_malformed_run_document_exits_3_naming_it(self):
        path = os.path.join(self.tmp.name, "r.json.gz")
        with open(path, "wb") as f:
            f.write(b"\x1f\x8b\x08\x00garbage")
        code, out, err = self.run_check(path)
        self.assertEqual(code, 3, out + err)
        self.assertIn(path, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)


if __name__ == "__main__":
    unittest.main()
