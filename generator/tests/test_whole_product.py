"""The whole product: every valid combination of the vocabulary (model.vocabulary_forms) is a generated form, each
rule keeps its forms, today's forms and cases keep their IDs and expectations, a new combination's cases lie at its
boundaries (model.combination_cases), and a combination no rule decides stops the generator (model.check_decided)."""
import contextlib
import gzip
import io
import json
import os
import types
import unittest
from unittest import mock

from ptxcts_gen import cli, isa, manifest, model
from ptxcts_gen.targets import BY_NAME, target_order

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# generated/ as it stood before the whole product (43c44d2): every form with its rules and every case with its
# expectation; the forms and cases that must keep their IDs
SELECTION_BEFORE = os.path.join(os.path.dirname(__file__), "data", "selection-43c44d2.tsv.gz")


def _runnable(f):
    return bool(f.valid or f.valid_from)


class EveryValidCombination(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.vocabulary = {mod.FAMILY: model.vocabulary_forms(mod) for mod in isa.families()}
        cls.generated = {mod.FAMILY: model.family_forms(mod) for mod in isa.families()}

    def test_every_valid_combination_is_a_generated_form(self):
        total_voc = total_gen = 0
        for fam, voc in self.vocabulary.items():
            want = {f.id for f in voc if _runnable(f)}
            have = {f.id for f in self.generated[fam] if _runnable(f)}
            self.assertEqual(sorted(want - have), [], f"{fam}: valid combinations without a form")
            self.assertEqual(sorted(have - want), [], f"{fam}: valid forms the vocabulary does not spell")
            total_voc += len(want)
            total_gen += len(have & want)
        self.assertEqual(total_gen, total_voc)
        self.assertGreater(total_voc, 5000)

    def test_the_committed_manifest_holds_them(self):
        # the committed form of forms.jsonl (its .gz): what a fresh clone tests
        with open(os.path.join(ROOT, "generated", "manifest", "forms.jsonl.gz"), "rb") as fh:
            records = [json.loads(ln) for ln in gzip.decompress(fh.read()).decode().splitlines()]
        have = {r["form"] for r in records if not r["invalid_by"] or r.get("valid_from")}
        want = {f.id for voc in self.vocabulary.values() for f in voc if _runnable(f)}
        self.assertEqual(have, want)

    def test_every_rule_broken_alone_in_the_vocabulary_keeps_a_form(self):
        for fam, voc in self.vocabulary.items():
            alone = {f.invalid_by[0] for f in voc if len(f.invalid_by) == 1 and not f.valid_from}
            broken = {r for f in self.generated[fam] for r in f.invalid_by}
            self.assertEqual(sorted(alone - broken), [], fam)

    def test_the_combinations_the_issue_names(self):
        ids = {f.instr.split(" ")[0] for ff in self.generated.values() for f in ff if _runnable(f)}
        for spelling in ("cp.async.bulk.relaxed.gpu.shared::cta.global.mbarrier::complete_tx::bytes.ignore_oob.b128",
                         "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                         ".multicast::cluster::16b",
                         "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                         ".multicast::cluster::16b.cta_group::2",
                         "cp.reduce.async.bulk.relaxed.gpu.global.shared::cta.bulk_group.L2::cache_hint.add.noftz"
                         ".bf16"):
            self.assertIn(spelling, ids)


class TodaysSelection(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.files, _ = manifest.build()
        with open(SELECTION_BEFORE, "rb") as fh:
            rows = [ln.split("\t") for ln in gzip.decompress(fh.read()).decode().splitlines()[1:]]
        cls.forms_before = {r[1]: (r[2], r[3]) for r in rows if r[0] == "form"}
        cls.cases_before = {r[1]: (r[2], r[3]) for r in rows if r[0] == "case"}

    def test_every_form_keeps_its_id_and_rules(self):
        now = {}
        for ln in self.files["manifest/forms.jsonl"].splitlines():
            r = json.loads(ln)
            now[r["form"]] = (",".join(r["invalid_by"]), r.get("valid_from", ""))
            if r["form"] in self.forms_before:
                self.assertNotIn("cases", r, r["form"])   # today's forms keep every case of the strategy
        self.assertEqual(len(self.forms_before), 1273)
        for fid, before in self.forms_before.items():
            self.assertEqual(now.get(fid), before, fid)

    def test_every_case_keeps_its_id_and_expectation(self):
        now = {}
        for rel, text in self.files.items():
            if rel.startswith("manifest/cases/"):
                for ln in text.splitlines()[1:]:
                    c = ln.split("\t")
                    now[c[0]] = (c[4], c[5])
        self.assertEqual(len(self.cases_before), 71652)
        lost = [cid for cid in self.cases_before if cid not in now]
        self.assertEqual(lost, [])
        changed = [cid for cid, before in self.cases_before.items() if now[cid] != before]
        self.assertEqual(changed, [])


class BoundaryCases(unittest.TestCase):
    def test_a_new_combination_is_cased_at_its_boundaries_only(self):
        mod = next(m for m in isa.families() if m.FAMILY == "cp.async.bulk")
        f = next(f for f in model.family_forms(mod) if f.at_boundaries and f.valid
                 and f.instr.startswith("cp.async.bulk.relaxed.gpu.shared::cta.global.mbarrier::complete_tx::bytes"
                                        ".ignore_oob.b128 "))
        cases = {(c.target, c.ptx): c.rules for c in model.form_cases(f).values()}
        # .relaxed.scope: PTX 9.3 on sm_90a (the lowest target of sm_90a, sm_100f+, sm_110f+); sm_90 below it
        self.assertEqual(cases[("sm_90a", "9.3")], ())
        self.assertEqual(cases[("sm_90a", "9.5")], ())
        self.assertEqual(cases[("sm_90a", "9.2")], ("bulk.sem.ptx",))
        self.assertEqual(cases[("sm_90", "9.3")], ("bulk.sem.target",))
        self.assertEqual(len(cases), 4)

    def test_every_new_combination_is_accepted_at_its_lowest_target_and_minimum(self):
        for mod in isa.families():
            for f in model.family_forms(mod):
                if not (f.at_boundaries and f.valid):
                    continue
                cases = model.form_cases(f).values()
                self.assertLessEqual(len(cases), 8, f.id)
                accepted = [c for c in cases if not c.rules]
                self.assertTrue(accepted, f.id)
                low = min(accepted, key=lambda c: target_order(BY_NAME[c.target]))
                self.assertEqual(low.ptx, model.effective_min(f, BY_NAME[low.target]), f.id)


def _double_with_an_undecided_qualifier():
    """A test double of cp.async.bulk: a PTX ISA 9.x axis `.frob` that no requirement and no rule names."""
    real = next(m for m in isa.families() if m.FAMILY == "cp.async.bulk")
    double = types.ModuleType("double_bulk")
    double.__dict__.update({k: v for k, v in vars(real).items() if not k.startswith("__")})
    double.DEFAULTS = dict(real.DEFAULTS, frob=False)
    double.EXT_AXES = tuple(real.EXT_AXES) + (("frob", (False, True)),)
    double.form_id = lambda q: real.form_id(q) + ("/frob" if q["frob"] else "")
    double.instr = lambda q: real.instr(q).replace("cp.async.bulk.", "cp.async.bulk.frob." if q["frob"] else
                                                   "cp.async.bulk.", 1)
    return real, double


class UndecidedCombination(unittest.TestCase):
    def test_the_model_today_decides_every_combination(self):
        for mod in isa.families():
            for f in model.vocabulary_forms(mod):
                self.assertEqual(model.undecided(mod, f), [], f.id)

    def test_a_qualifier_no_rule_decides_stops_the_generator_naming_the_combination(self):
        _, double = _double_with_an_undecided_qualifier()
        with self.assertRaises(model.UndecidedCombination) as e:
            model.family_forms(double)
        self.assertIn("/frob", str(e.exception))
        self.assertIn("frob=True", str(e.exception))
        self.assertIn("cp.async.bulk.frob.", str(e.exception))

    def test_gen_check_exits_3_naming_it(self):
        real, double = _double_with_an_undecided_qualifier()
        fams = [double if m is real else m for m in isa.families()]
        err = io.StringIO()
        with mock.patch.object(isa, "families", lambda: fams), contextlib.redirect_stderr(err), \
                contextlib.redirect_stdout(io.StringIO()):
            rc = cli.main(["gen", "--check", "--quiet"])
        self.assertEqual(rc, 3)
        self.assertIn("valid by no rule's decision", err.getvalue())
        self.assertIn("/frob", err.getvalue())

    def test_a_qualifier_with_a_requirement_is_decided(self):
        real = next(m for m in isa.families() if m.FAMILY == "cp.async.bulk")
        f = next(f for f in model.vocabulary_forms(real) if f.valid and f.quals["ignore_oob"])
        self.assertEqual(model.undecided(real, f), [])
        self.assertIn("bulk.ignore_oob", f.requires)


class CuratedModules(unittest.TestCase):
    def test_modules_curated_holds_no_combination_of_the_whole_product(self):
        def selected(*extra):
            args = cli.parse(["modules", "--target", "sm_107a", "--ptx", "9.5", "--valid-only",
                                                  "--family", "cp.async.bulk", "--out", "unused", *extra])
            _, forms, _ = cli.module_selection(args)
            return forms
        every, curated = selected(), selected("--curated")
        self.assertTrue(curated)
        self.assertFalse([f.id for f in curated if f.at_boundaries])
        self.assertEqual({f.id for f in curated}, {f.id for f in every if not f.at_boundaries})
        self.assertGreater(len(every), len(curated))


if __name__ == "__main__":
    unittest.main()
