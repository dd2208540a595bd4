"""The front-end tier with the CUTLASS Python DSL (cute-dsl: CuTe DSL 4.8.1, libNVVM, paired with ptxas 13.5): the
engine's own behaviour (a planted wrong spelling is a miscompile, a kernel the DSL refuses costs its own case
only, an uninstalled front-end is exit 2 with the install command), a few cases of known outcome, then every case
it can express, gated against results/baselines/frontend/cute-dsl.json.gz. Exits 77 (CTest: skipped) where the
front-end or toolchain 13.5 is not installed (./ptxcts frontend install cute-dsl; ./ptxcts toolchains install
13.5)."""
import os
import subprocess
import sys
import tempfile
import unittest

import frontend
from framework import toolchains
from framework.toolchains import ptxas
from frontend import isolate, judge
from frontend.cute_dsl import backend as cute_dsl_backend
from frontend.tests.tier_check import ENV, OUT, ROOT, check_every_case, check_known, main
from ptxcts_gen import model, parse
from ptxcts_gen.frontends import Spelling, cute_dsl

NAME = "cute-dsl"
KNOWN = {
    # P.cp_async_shared_global with cp_size= a register: the src-size form, libNVVM selecting it
    "cp.async/ca.shared.global/cp_size_16/src_size@sm_107.ptx94": "pass",
    # a TMA store with a cache hint, in a job whose kernels declare different shared memory
    "cp.async.bulk.tensor/1d.global.shared_cta.tile/L2_cache_hint@sm_107a.ptx94": "pass",
    # .cta_group needs sm_100a / sm_107a ...: libNVVM refuses it for the plain sm_107 ("unsupported operation")
    "cp.async.bulk.tensor/1d.shared_cluster.global.tile/cta_group_1/L2_cache_hint@sm_107.ptx94": "pass",
    # the findings: the DSL refuses .add.noftz.f32 and every .tile::gather4 / .tile::scatter4 call
    "cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f32/L2_cache_hint@sm_100.ptx94": "spec_divergence",
    "cp.async.bulk.tensor/2d.global.shared_cta.tile_scatter4/L2_cache_hint@sm_107a.ptx94": "spec_divergence",
}


def _forms():
    return {f.id: f for f in model.all_forms()}


def _compile(kernels, target):
    """compile_batch in a forked child (as the tier does): the Outcome."""
    return isolate.run_many(cute_dsl_backend.compile_batch, [(kernels, target)], jobs=1, timeout=300)[0]


class CuteDslEngineTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cute_dsl_backend.load(frontend.resolve(NAME))
        cls.forms = _forms()
        cls.index = parse.FormIndex(cls.forms.values())

    def _case(self, form_id, target):
        class Case:   # the fields judge.judge reads
            pass
        c = Case()
        c.id, c.form, c.target, c.ptx, c.valid, c.expect, c.rules = (f"{form_id}@{target}.ptx94", form_id, target,
                                                                      "9.4", True, "accept", ())
        return c

    def test_a_planted_wrong_spelling_is_a_miscompile(self):
        # the cp.async form .ca spelled with .cg: the DSL writes cp.async.cg, which is not the case's form
        fid = "cp.async/ca.shared.global/cp_size_16"
        s = cute_dsl.spell(self.forms[fid])
        self.assertIsInstance(s, Spelling)
        wrong = cute_dsl.call_text(s).replace("LoadCacheModifier.CA", "LoadCacheModifier.CG")
        self.assertNotEqual(wrong, cute_dsl.call_text(s))
        out = _compile([("k_planted", wrong)], "sm_90a")
        self.assertTrue(out.ok, out)
        found = cute_dsl_backend.extract(out.value)["k_planted"]
        self.assertEqual(len(found), 1, found)
        self.assertIn("cp.async.cg", found[0])
        em = judge.Emission(judge.EMITTED, found)
        klass, msg, _ = judge.judge(self._case(fid, "sm_90a"), fid, em, judge.Assembly(True), self.index, [],
                                    NAME, "ptxas 13.5")
        self.assertEqual(klass, "fail", msg)
        self.assertIn("miscompile", msg)
        # and the right spelling passes
        out = _compile([("k_right", cute_dsl.call_text(s))], "sm_90a")
        em = judge.Emission(judge.EMITTED, cute_dsl_backend.extract(out.value)["k_right"])
        self.assertEqual(judge.judge(self._case(fid, "sm_90a"), fid, em, judge.Assembly(True), self.index, [], NAME,
                                     "ptxas 13.5")[0], "pass")

    def test_a_kernel_the_dsl_refuses_costs_its_own_case_only(self):
        good = cute_dsl.spell(self.forms["cp.async.bulk.prefetch/L2.global"])
        refused = cute_dsl.spell(self.forms["cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f32"])
        bulk = cute_dsl.spell(self.forms["cp.async.bulk/global.shared_cta.bulk_group"])
        out = _compile([("k_a", cute_dsl.call_text(good)), ("k_b", cute_dsl.call_text(refused)),
                        ("k_c", cute_dsl.call_text(bulk))], "sm_90a")
        self.assertTrue(out.ok, out)
        got = cute_dsl_backend.extract(out.value)
        self.assertEqual(got["k_b"].status, judge.REFUSED)
        self.assertIn(".noftz is only valid for .f16/.bf16", got["k_b"].message)
        self.assertTrue(got["k_a"][0].startswith("cp.async.bulk.prefetch.L2.global"), got["k_a"])
        self.assertTrue(got["k_c"][0].startswith("cp.async.bulk.global.shared::cta.bulk_group"), got["k_c"])
        # the module of what compiled is one module ptxas 13.5 assembles
        with tempfile.TemporaryDirectory() as d:
            call = ptxas.assemble(toolchains.resolve("13.5").ptxas, "sm_90a", out.value, d)
        self.assertTrue(call.accepted, call.output[:1000])
        # a batch of one refused kernel is a refusal of the child (the tier's REFUSED)
        one = _compile([("k_b", cute_dsl.call_text(refused))], "sm_90a")
        self.assertFalse(one.ok)
        self.assertEqual(one.status, "exception")

    def test_a_dsl_that_dies_costs_its_job_only(self):
        # a planted abort while the DSL traces a kernel (as a segfault of libNVVM would end the child): that job's
        # outcome is the signal, the next job compiles
        good = cute_dsl.call_text(cute_dsl.spell(self.forms["cp.async.bulk.prefetch/L2.global"]))
        outs = isolate.run_many(cute_dsl_backend.compile_batch,
                                [([("k_dies", "__import__('os').abort()")], "sm_90a"), ([("k_good", good)], "sm_90a")],
                                jobs=1, timeout=300)
        self.assertEqual(outs[0].status, "signal SIGABRT", outs[0])
        self.assertTrue(outs[1].ok, outs[1])
        self.assertIn("k_good", cute_dsl_backend.extract(outs[1].value))

    def test_a_malformed_mapping_entry_is_refused_before_the_run(self):
        eng = cute_dsl_backend.CuteDslEngine(frontend.resolve(NAME))
        s = cute_dsl.spell(self.forms["cp.async.bulk.prefetch/L2.global"])
        eng.verify([("k", s)])
        for bad in (Spelling(s.callee, s.args + (("no_such_argument", "True"),)),
                    Spelling("P.no_such_primitive", s.args),
                    Spelling("P.cp_async_shared_global", (("", "%smem"), ("", "%gmem"), ("", "16"),
                                                          ("", "P.LoadCacheModifier.NO_SUCH")))):
            with self.assertRaises((TypeError, AttributeError), msg=bad):
                eng.verify([("k", bad)])

    def test_not_installed_is_exit_2_naming_the_install_command(self):
        with tempfile.TemporaryDirectory() as cache:   # an empty toolchain cache: nothing installed
            r = subprocess.run([sys.executable, "-m", "frontend", "run", "--frontend", NAME, "--limit", "1"],
                               capture_output=True, text=True, env=dict(ENV, PTXCTS_TOOLCHAIN_CACHE=cache), cwd=ROOT)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("./ptxcts frontend install cute-dsl", r.stderr)
        self.assertIn("--wheels DIR", r.stderr)


class CuteDslTargetGuardTest(unittest.TestCase):
    """The manifest's PTX ISA 9.4 cases are at sm_107* (and two per other target): here every expressible form of
    the model is asked of the DSL for sm_90a and sm_100a at the version it writes (9.4), each judged as the tier
    would: valid there (run.form_valid_at) -> the instruction is the form and ptxas 13.5 assembles the module of
    what was written, or a reviewed refuses_valid finding covers it; invalid there -> refused, or ptxas rejects it
    (counted: a front-end finding to review)."""

    def test_every_expressible_form_at_sm_90a_and_sm_100a(self):
        from frontend import findings as fe_findings
        from frontend.run import form_valid_at
        cute_dsl_backend.load(frontend.resolve(NAME))
        forms = _forms()
        index = parse.FormIndex(forms.values())
        reviewed = [f for f in fe_findings.load(fe_findings.default_path(ROOT)) if NAME in f.frontends]
        spelled = [(f, s) for f in forms.values() if f.valid for s in (cute_dsl.spell(f),) if isinstance(s, Spelling)]
        self.assertGreater(len(spelled), 500)
        tc = toolchains.resolve("13.5")
        summary = {}
        for target in ("sm_90a", "sm_100a"):
            jobs = [spelled[i:i + 32] for i in range(0, len(spelled), 32)]
            outs = isolate.run_many(cute_dsl_backend.compile_batch,
                                    [([(f.entry, cute_dsl.call_text(s)) for f, s in job], target) for job in jobs],
                                    jobs=2, timeout=600)
            counts, bad = {}, []
            for job, out in zip(jobs, outs):
                self.assertTrue(out.ok, out)   # no job dies: a refusal is recorded per kernel
                got = cute_dsl_backend.extract(out.value)
                with tempfile.TemporaryDirectory() as d:
                    call = ptxas.assemble(tc.ptxas, target, out.value, d)
                for f, _ in job:
                    valid = form_valid_at(forms, f.id, target, "9.4")
                    em = got.get(f.entry)
                    cid = f"{f.id}@{target}.ptx94"
                    if isinstance(em, judge.Emission):
                        covered = any(r.covers(NAME, cid, "refuses_valid") for r in reviewed)
                        k = ("valid refused, reviewed" if covered else "valid refused") if valid else "invalid refused"
                    elif len(em or ()) == 1 and valid and index.same_form(f.id, em[0])[0]:
                        k = "valid written"
                    elif len(em or ()) == 1 and not valid:
                        k = "invalid written"
                    else:
                        k = "miscompile"
                    counts[k] = counts.get(k, 0) + 1
                    if k in ("valid refused", "miscompile") or (k == "invalid written" and call.accepted):
                        bad.append((cid, k, em))
                if any(form_valid_at(forms, f.id, target, "9.4") for f, _ in job):
                    # invalid forms written there would make ptxas reject the module: only modules of valid
                    # forms must assemble
                    if all(form_valid_at(forms, f.id, target, "9.4") or isinstance(got.get(f.entry), judge.Emission)
                           for f, _ in job):
                        self.assertTrue(call.accepted, f"{target}: {call.output[:800]}")
            summary[target] = counts
            self.assertEqual(bad, [], f"{target}: {counts}")
        print(f"\ncute-dsl at PTX 9.4, every expressible form: {summary}")


class CuteDslTierTest(unittest.TestCase):
    def test_cases_of_known_outcome(self):
        check_known(self, NAME, os.path.join(OUT, "cute-dsl-known"), KNOWN)

    def test_every_expressible_case_against_the_baseline(self):
        check_every_case(self, NAME, os.path.join(OUT, "cute-dsl-all"), "CuTe DSL", 2000)


if __name__ == "__main__":
    missing = [what for what, ok in ((f"front-end {NAME}", frontend.installed_dir(NAME)),
                                     ("toolchain 13.5", toolchains.installed_dir("13.5"))) if not ok]
    main(f"frontend.cute-dsl: SKIPPED: {' and '.join(missing)} not installed (./ptxcts frontend install {NAME}; "
         "./ptxcts toolchains install 13.5)" if missing else None)
