"""The front-end tier's own tests: the PTX parser against the ISA model, the LLVM mapping against the library's
intrinsic list, the judge's classes, isolation of a dying child, and every bad input (exit 2 / 3, a clear message).
The tier itself over a few cases of known outcome runs in test_llvm_tier (skipped where llvm-22 is not installed)."""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import unittest.mock

from ptxcts_gen import model, parse
from ptxcts_gen.frontends import MappingError, Spelling, Unexpressible
from ptxcts_gen.frontends import llvm as llvm_map

import frontend
from frontend import catalog, cli, install, isolate, judge
from frontend.tests.test_install import InstallTest  # noqa: F401  (run with these: install from a folder of wheels)

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
FORMS = {f.id: f for f in model.all_forms()}
INDEX = parse.FormIndex(FORMS.values())


def _desc():
    with open(os.path.join(ROOT, "toolchains", "llvm-22.json")) as f:
        return json.load(f)


class ParseTest(unittest.TestCase):
    def test_every_form_parses_back_to_itself(self):
        for f in FORMS.values():
            same, p = INDEX.same_form(f.id, f.instr)
            self.assertTrue(same, f.id)
            self.assertIn(f.id, p.forms)

    def test_default_load_mode_is_tile(self):
        same, p = INDEX.same_form("cp.async.bulk.tensor/2d.shared_cluster.global",
                                  "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                                  "[%rd1], [%rd2, {%r1, %r2}], [%rd3];")
        self.assertTrue(same)
        self.assertEqual(INDEX.rules_between("cp.async.bulk.tensor/2d.shared_cluster.global",
                                             "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                                             "complete_tx::bytes [%rd1], [%rd2, {%r1, %r2}], [%rd3];"),
                         ("load_mode_default_tile",))
        self.assertEqual(INDEX.rules_between("cp.async.bulk.tensor/2d.shared_cluster.global.tile",
                                             "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::"
                                             "complete_tx::bytes [%rd1], [%rd2, {%r1, %r2}], [%rd3];"), ())
        self.assertIn("load_mode_default_tile", parse.key("cp.async.bulk.tensor.2d.shared::cluster.global."
                                                          "mbarrier::complete_tx::bytes [a], [b, {c, d}], [e];")[1])

    def test_shared_is_shared_cta_and_order_is_free(self):
        same, p = INDEX.same_form("cp.async/ca.shared_cta.global/cp_size_16", "cp.async.ca.shared.global [%rd1], [%rd2], 16;")
        self.assertTrue(same)
        self.assertIn("shared_is_shared_cta", p.rules)
        same, _ = INDEX.same_form(
            "cp.async.bulk.tensor/2d.shared_cluster.global.tile/cta_group_2/L2_cache_hint",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint."
            "cta_group::2 [%rd1], [%rd2, {%r1, %r2}], [%rd3], %rd4;")
        self.assertTrue(same)

    def test_a_different_form_is_not_the_same(self):
        # a dropped .multicast::cluster, a wrong direction, a wrong vector length, a wrong immediate
        cases = [("cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster",
                  "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd1], "
                  "[%rd2, {%r1, %r2}], [%rd3];"),
                 ("cp.async.bulk/global.shared_cta.bulk_group",
                  "cp.async.bulk.shared::cta.global.bulk_group [%rd1], [%rd2], %r1;"),
                 ("cp.async.bulk.tensor/2d.shared_cluster.global.tile",
                  "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd1], "
                  "[%rd2, {%r1, %r2, %r3}], [%rd3];"),
                 ("cp.async.wait_group/N_1/groups_3", "cp.async.wait_group 2;")]
        for fid, text in cases:
            same, _ = INDEX.same_form(fid, text)
            self.assertFalse(same, text)


class LlvmMappingTest(unittest.TestCase):
    def test_every_spelling_names_an_intrinsic_the_library_carries(self):
        known = set(_desc()["intrinsics"])
        spelled = 0
        for f in FORMS.values():
            s = llvm_map.spell(f, known)
            if isinstance(s, Spelling):
                spelled += 1
                self.assertIn(s.callee, known)
            else:
                self.assertIsInstance(s, Unexpressible)
                self.assertTrue(s.reason)
        self.assertGreaterEqual(spelled, 456)   # the count of LLVM-expressible forms

    def test_an_unknown_intrinsic_is_an_error_not_an_external_call(self):
        f = FORMS["cp.async.bulk.commit_group/empty_group"]
        with self.assertRaisesRegex(MappingError, "not an intrinsic LLVM knows"):
            llvm_map.spell(f, {"llvm.nvvm.something.else"})

    def test_a_malformed_entry_is_named(self):
        with self.assertRaisesRegex(MappingError, "role 'nosuch' is unknown"):
            llvm_map.check("x", Spelling("llvm.nvvm.cp.async.commit.group", (("i32", "%nosuch"),)))
        with self.assertRaisesRegex(MappingError, "not an integer"):
            llvm_map.check("x", Spelling("llvm.nvvm.cp.async.wait.group", (("i32", "two"),)))


class JudgeTest(unittest.TestCase):
    def case(self, fid, valid, target="sm_90a", ptx="8.0", rules=()):
        from framework.manifest import Case
        return Case(f"{fid}@{target}.ptx{ptx.replace('.', '')}", FORMS[fid].family, fid, target, ptx,
                    "accept" if valid else "reject", tuple(rules))

    def klass(self, c, em, asm=judge.Assembly(True)):
        return judge.judge(c, c.form, em, asm, INDEX, [], "fe", "ptxas")[0]

    def test_classes(self):
        fid = "cp.async.bulk.tensor/2d.shared_cluster.global.tile"
        good = judge.Emission(judge.EMITTED, [FORMS[fid].instr])
        other = judge.Emission(judge.EMITTED, [FORMS["cp.async.bulk.tensor/3d.shared_cluster.global.tile"].instr])
        refused = judge.Emission(judge.REFUSED, message="LLVM ERROR: Cannot select")
        valid, invalid = self.case(fid, True), self.case(fid, False, "sm_80", "8.0", ("tensor.target",))
        self.assertEqual(self.klass(valid, good), "pass")
        self.assertEqual(self.klass(valid, other), "fail")                                  # a miscompile
        self.assertEqual(self.klass(valid, refused), "fail")                                # a refusal
        self.assertEqual(self.klass(valid, good, judge.Assembly(False, "x")), "fail")       # ptxas rejects it
        self.assertEqual(self.klass(valid, judge.Emission(judge.EMITTED, [])), "fail")      # nothing written
        self.assertEqual(self.klass(valid, judge.Emission(judge.CRASHED, message="signal SIGSEGV")), "crash")
        self.assertEqual(self.klass(invalid, refused), "pass")
        self.assertEqual(self.klass(invalid, good, judge.Assembly(False, "needs sm_90")), "fail")
        self.assertEqual(self.klass(invalid, good), "fail")                                 # both accept
        from frontend.findings import Finding
        reviewed = Finding("x", ["fe"], [invalid.id], "emits_invalid_ptx", "s", "e", "n", "r")
        self.assertEqual(judge.judge(invalid, fid, good, judge.Assembly(False, "needs sm_90"), INDEX, [], "fe",
                                     "ptxas", None, [reviewed])[0], "spec_divergence")
        self.assertEqual(reviewed.applied, [invalid.id])
        self.assertEqual(judge.judge(invalid, fid, good, judge.Assembly(True), INDEX, [], "fe", "ptxas", None,
                                     [reviewed])[0], "fail")   # another behaviour: not covered

    def test_a_form_valid_from_a_later_version_is_valid_from_that_version_on(self):
        """form_valid_at, what an invalid case's spelling is judged by, reads the model's Form.valid_at: .add.noftz.f32
        of cp.reduce.async.bulk is valid from PTX 9.4 (valid_from), not before."""
        from frontend.run import form_valid_at
        fid = "cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f32"
        self.assertFalse(FORMS[fid].valid)
        self.assertEqual(FORMS[fid].valid_from, "9.4")
        self.assertFalse(form_valid_at(FORMS, fid, "sm_90", "9.3"))
        self.assertTrue(form_valid_at(FORMS, fid, "sm_90", "9.4"))
        self.assertFalse(form_valid_at(FORMS, fid, "sm_80", "9.4"))   # cp.reduce.async.bulk needs sm_90
        self.assertFalse(form_valid_at(FORMS, "no/such/form", "sm_90", "9.4"))


def _abort_on_odd(n):
    if n % 2:
        os.abort()
    return n * 10


class UnappliedFindingsTest(unittest.TestCase):
    """run.unapplied_findings: a finding reviewed on this front-end that covers nothing is stale; one that reached a
    user-named build only through a pattern is unseen there, not stale."""

    class F:
        def __init__(self, fid, frontends, applied):
            self.id, self.frontends, self.applied = fid, frontends, applied

    def test_stale_only_where_the_finding_names_the_frontend(self):
        from frontend import run
        fs = [self.F("a", ["triton", "triton-*"], []), self.F("b", ["triton", "triton-*"], ["case"]),
              self.F("c", ["triton-3.6.0+named"], [])]
        # each run passes the findings whose front-ends match its name (run.main)
        self.assertEqual(run.unapplied_findings("triton", fs[:2], True), (["a"], []))
        self.assertEqual(run.unapplied_findings("triton-3.6.0+named", fs, True), (["c"], ["a"]))
        self.assertEqual(run.unapplied_findings("triton", fs[:2], False), ([], []))


class IsolateTest(unittest.TestCase):
    def test_a_dying_child_costs_its_job_only(self):
        outs = isolate.run_many(_abort_on_odd, [0, 1, 2, 3, 4], jobs=2, timeout=30)
        self.assertEqual([o.ok for o in outs], [True, False, True, False, True])
        self.assertEqual([o.value for o in outs if o.ok], [0, 20, 40])
        self.assertEqual(outs[1].status, "signal SIGABRT")

    def test_zygote(self):
        z = isolate.Zygote(_abort_on_odd, jobs=2)
        try:
            outs = z.run_many([5, 6])
        finally:
            z.close()
        self.assertEqual([o.ok for o in outs], [False, True])
        self.assertEqual(outs[1].value, 60)


def _cli(argv, env=None):
    """(exit code, stderr) of ./ptxcts frontend in a child (each bad input on its own)."""
    e = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]),
             PTXCTS_ROOT=ROOT, **(env or {}))
    r = subprocess.run([sys.executable, "-m", "frontend"] + argv, capture_output=True, text=True, env=e, cwd=ROOT)
    return r.returncode, r.stderr


class TierSampleTest(unittest.TestCase):
    """tier_check.sample: the cases a CTest tier test judges (PTXCTS_FRONTEND_SAMPLE, from the CMake cache)."""

    def sample_of(self, value):
        from frontend.tests import tier_check
        env = {k: v for k, v in os.environ.items() if k != "PTXCTS_FRONTEND_SAMPLE"}
        if value is not None:
            env["PTXCTS_FRONTEND_SAMPLE"] = value
        with unittest.mock.patch.dict(os.environ, env, clear=True):
            return tier_check.sample()

    def test_unset_empty_or_zero_is_every_case(self):
        for value in (None, "", "0", " "):
            self.assertIsNone(self.sample_of(value), repr(value))

    def test_a_count_is_the_sample(self):
        self.assertEqual(self.sample_of("35000"), 35000)

    def test_a_malformed_count_is_an_error_naming_it(self):
        for value in ("abc", "-5", "3.5"):
            with self.assertRaisesRegex(ValueError, "PTXCTS_FRONTEND_SAMPLE=.*a count of cases"):
                self.sample_of(value)


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-fe-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_unknown_frontend_name(self):
        rc, err = _cli(["run", "--frontend", "gcc-1"])
        self.assertEqual(rc, 2)
        self.assertIn("unknown front-end 'gcc-1'", err)
        self.assertIn("llvm-22", err)

    def test_missing_wheel_offline_names_package_and_command(self):
        wheels = os.path.join(self.tmp, "wheels")
        os.makedirs(wheels)
        rc, err = _cli(["install", "--wheels", wheels, "llvm-22"], {"PTXCTS_TOOLCHAIN_CACHE": self.tmp})
        self.assertEqual(rc, 2)
        self.assertIn("llvmlite==0.50.0", err)
        self.assertIn("pip download --no-deps", err)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "frontends", "llvm-22")))   # nothing half-installed

    def test_not_installed_names_the_install_command(self):
        rc, err = _cli(["run", "--frontend", "llvm-22"], {"PTXCTS_TOOLCHAIN_CACHE": self.tmp})
        self.assertEqual(rc, 2)
        self.assertIn("./ptxcts frontend install llvm-22", err)

    def test_library_that_fails_to_load(self):
        site = os.path.join(self.tmp, "frontends", "llvm-22", "site")
        os.makedirs(os.path.join(site, "llvmlite", "binding"))
        with open(os.path.join(site, "llvmlite", "__init__.py"), "w") as f:
            f.write("raise OSError('libllvmlite.so: invalid ELF header')\n")
        with open(os.path.join(site, "llvmlite", "binding", "libllvmlite.so"), "wb") as f:
            f.write(b"not a shared object")
        with open(os.path.join(self.tmp, "frontends", "llvm-22", "INSTALLED.json"), "w") as f:
            json.dump({"name": "llvm-22", "python_tag": install.python_tag()}, f)
        rc, err = _cli(["run", "--frontend", "llvm-22", "--case", "cp.async.bulk.commit_group/*"],
                       {"PTXCTS_TOOLCHAIN_CACHE": self.tmp})
        self.assertEqual(rc, 3, err)
        self.assertIn("cannot load", err)
        self.assertIn("invalid ELF header", err)

    def test_malformed_findings_file(self):
        from frontend import findings
        bad = os.path.join(self.tmp, "frontends.toml")
        with open(bad, "w") as f:
            f.write('[[finding]]\nid = "x"\nfrontends = ["llvm-22"]\ncases = ["*"]\nbehaviour = "lenient"\n'
                    'sentence = "s"\nevidence = "e"\nnote = "n"\nreviewed = "r"\n')
        with self.assertRaises(frontend.FrontendError) as e:
            findings.load(bad)
        self.assertEqual(e.exception.code, 3)
        self.assertIn("behaviour 'lenient'", str(e.exception))
        rc, err = _cli(["run", "--frontend", "llvm-22", "--findings", os.path.join(self.tmp, "none.toml")])
        self.assertEqual(rc, 2)
        self.assertIn("no such file", err)

    def test_malformed_catalog(self):
        bad = os.path.join(self.tmp, "frontends.toml")
        with open(bad, "w") as f:
            f.write('version = 1\n[frontend."llvm-22"]\nkind = "gcc"\nptxas = "13.0"\nlibrary = "x"\nwheels = []\n')
        with self.assertRaises(frontend.FrontendError) as e:
            catalog.load(bad)
        self.assertEqual(e.exception.code, 3)
        self.assertIn("kind", str(e.exception))

    def test_malformed_mapping_entry(self):
        saved = llvm_map.FAMILIES["cp.async.bulk"]
        llvm_map.FAMILIES["cp.async.bulk"] = lambda q: Spelling("llvm.nvvm.cp.async.bulk.commit.group",
                                                               (("i64", "%size"),))
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = cli.main(["coverage", "--frontend", "llvm-22"])
        finally:
            llvm_map.FAMILIES["cp.async.bulk"] = saved
        self.assertEqual(rc, 3)
        self.assertIn("malformed mapping entry", err.getvalue())
        self.assertIn("role 'size' has type i32", err.getvalue())


if __name__ == "__main__":
    unittest.main()
