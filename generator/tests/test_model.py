"""Forms and cases: identity, the version/target strategy, the boundary set."""
import unittest

from ptxcts_gen.model import all_forms, family_cases, form_cases, boundary_cases, form_targets, version_sweep
from ptxcts_gen.targets import PTX_VERSIONS


class Forms(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.forms = all_forms()
        cls.by_id = {f.id: f for f in cls.forms}

    def test_ids_unique_and_well_formed(self):
        ids = [f.id for f in self.forms]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertEqual(ids, sorted(ids))
        for f in self.forms:
            self.assertNotIn("@", f.id)
            self.assertNotIn("::", f.id)
            self.assertNotIn("//", f.id)

    def test_entries_unique(self):
        entries = [f.entry for f in self.forms]
        self.assertEqual(len(entries), len(set(entries)))
        for e in entries:
            self.assertRegex(e, r"^k_[0-9a-f]{12}$")

    def test_every_family_has_valid_and_invalid_forms(self):
        fams = {}
        for f in self.forms:
            fams.setdefault(f.family, [0, 0])[0 if f.valid else 1] += 1
        self.assertEqual(len(fams), 9)
        for fam, (v, i) in fams.items():
            self.assertGreater(v, 0, fam)
            self.assertGreater(i, 0, fam)

    def test_invalid_forms_proportionate(self):
        # at most a handful of negative forms per rule per family and generation (the redOp x type product aside;
        # model.selected_forms and model.whole_product keep KEEP_INVALID_PER_RULE per rule and generation, so a rule
        # that later qualifiers also break, e.g. reduce_tensor.load_mode with .override::global_address at 9.4, has
        # forms at each generation)
        per = {}
        for f in self.forms:
            if f.family == "cp.reduce.async.bulk":
                continue
            for r in f.invalid_by:
                per[(f.family, r, f.generation)] = per.get((f.family, r, f.generation), 0) + 1
        for key, n in per.items():
            self.assertLessEqual(n, 6, key)

    def test_the_forms_the_issue_names(self):
        for fid in ("cp.async/ca.shared.global/cp_size_4/src_size/L2_128B",
                    "cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f16/L2_cache_hint",
                    "cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster/L2_cache_hint",
                    "cp.async.bulk/global.shared_cta.bulk_group/L2_cache_hint/cp_mask",
                    "cp.async.bulk.tensor/2d.global.shared_cta.tile_scatter4",
                    "cp.async.bulk.tensor/3d.shared_cta.global.im2col_w_128/cta_group_2",
                    "cp.async.bulk.prefetch.tensor/4d.L2.global.im2col_w_128",
                    "cp.async.bulk.prefetch/L2.global/L2_cache_hint",
                    "cp.async.bulk.wait_group.read/N_0/read_then_overwrite",
                    "cp.async.wait_group/N_1/groups_3"):
            self.assertIn(fid, self.by_id)
            self.assertTrue(self.by_id[fid].valid, fid)


class Strategy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.by_id = {f.id: f for f in all_forms()}

    def cases(self, fid):
        return {(c.target, c.ptx): c for c in form_cases(self.by_id[fid]).values()}

    def test_cp_async_base(self):
        cs = self.cases("cp.async/ca.shared.global/cp_size_4")
        self.assertEqual(cs[("sm_80", "7.0")].expect, "accept")
        self.assertEqual(cs[("sm_80", "9.0")].expect, "accept")
        self.assertEqual(cs[("sm_75", "7.0")].rules, ("cp_async.target",))
        self.assertNotIn(("sm_90", "7.7"), cs)              # the target does not exist there: not generated

    def test_version_just_below_the_form_minimum(self):
        cs = self.cases("cp.async/ca.shared.global/cp_size_4/ignore_src")
        self.assertEqual(cs[("sm_80", "7.4")].rules, ("cp_async.ignore_src.ptx",))
        self.assertEqual(cs[("sm_80", "7.5")].expect, "accept")
        cs = self.cases("cp.async.bulk/global.shared_cta.bulk_group/cp_mask")
        self.assertEqual(cs[("sm_100", "8.6")].expect, "accept")
        self.assertIn("bulk.cp_mask.target", cs[("sm_90", "8.6")].rules)

    def test_family_specific_near_misses(self):
        f = self.by_id["cp.async.bulk.tensor/2d.global.shared_cta.tile_scatter4"]
        app, near = form_targets(f)
        self.assertIn("sm_103f", [t.name for t in app])
        self.assertIn("sm_110a", [t.name for t in app])
        near = [t.name for t in near]
        for t in ("sm_100", "sm_90a", "sm_120a"):
            self.assertIn(t, near)
        cs = self.cases(f.id)
        self.assertEqual(cs[("sm_100f", "8.8")].expect, "accept")
        self.assertEqual(cs[("sm_100a", "8.5")].rules if ("sm_100a", "8.5") in cs else None, None)

    def test_boundary_set(self):
        f = self.by_id["cp.async/ca.shared.global/cp_size_4"]
        bc = {(c.target, c.ptx): c for c in boundary_cases(f).values()}
        self.assertIn("target.not_at_ptx", bc[("sm_90", "7.7")].rules)
        self.assertIn("target.not_at_ptx", bc[("sm_110", "8.8")].rules)
        self.assertIn("target.renamed", bc[("sm_101a", "9.0")].rules)
        for (t, v), c in bc.items():
            self.assertIn(v, PTX_VERSIONS)
            self.assertEqual(c.expect, "reject")

    def test_version_sweep_reaches_every_version(self):
        f = self.by_id["cp.async/ca.shared.global/cp_size_4"]
        sweep = {(c.target, c.ptx): c for c in version_sweep(f).values()}
        self.assertEqual(sorted(v for (t, v) in sweep), list(PTX_VERSIONS))
        self.assertTrue(all(c.expect == "accept" and t == "sm_80" for (t, _), c in sweep.items()))

    def test_generations_only_add_cases(self):
        """A generation of the table (targets and PTX versions) adds cases and changes none: the cases chosen
        with the first generation alone are all in the full set, with the same expectation."""
        import ptxcts_gen.model as M
        first = M.GENS[:1]
        for fam in ("cp.async", "cp.async.bulk.tensor", "cp.reduce.async.bulk"):
            forms = [f for f in all_forms() if f.family == fam]
            full = {c.id: c.expect for c in family_cases(forms)}
            saved = M.GENS
            try:
                M.GENS = first
                old = {c.id: c.expect for c in family_cases(forms)}
            finally:
                M.GENS = saved
            self.assertTrue(old.items() <= full.items(), f"{fam}: a case of the 9.0 generation changed or vanished")
            self.assertGreater(len(full), len(old))
            self.assertTrue(any(".ptx95" in i for i in full) and not any(".ptx95" in i for i in old))

    def test_sm_107_family_follows_the_family_rules(self):
        """'sm_100f or higher in the same family' reaches sm_107f and sm_107a (SM 107 >= 100, family sm_10x);
        the plain sm_107 does not get family-specific features."""
        cs = {(c.target, c.ptx): c for c in form_cases(self.by_id[
            "cp.async.bulk.tensor/2d.shared_cluster.global.tile_gather4"]).values()}
        self.assertEqual(cs[("sm_107f", "9.4")].expect, "accept")
        self.assertEqual(cs[("sm_107a", "9.5")].expect, "accept")
        self.assertEqual(cs[("sm_107", "9.4")].expect, "reject")

    def test_case_ids(self):
        forms = [f for f in all_forms() if f.family == "cp.async.bulk"]
        cases = family_cases(forms)
        ids = [c.id for c in cases]
        self.assertEqual(ids, sorted(ids))
        self.assertEqual(len(ids), len(set(ids)))
        for c in cases:
            self.assertRegex(c.id, r"^[^@]+@sm_\d+[af]?\.ptx\d\d$")
            self.assertEqual(c.expect == "accept", not c.rules)


if __name__ == "__main__":
    unittest.main()
