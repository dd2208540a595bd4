"""Rules: each is defined once, quotes the chapter, and classifies the chapter's cases as the chapter says."""
import unittest

from ptxcts_gen import isa
from ptxcts_gen.model import all_forms, family_forms
from ptxcts_gen.rules import RULES, REQUIREMENTS, KINDS, describe, load_all
from ptxcts_gen.rules.reduce import CELLS, REDOPS, TYPES
from ptxcts_gen.targets import BY_NAME

load_all()


class RuleTable(unittest.TestCase):
    def test_every_rule_quotes_a_sentence(self):
        for name, r in RULES.items():
            self.assertIn(r.kind, KINDS, name)
            self.assertGreater(len(r.sentence), 15, f"{name} quotes no sentence")
            self.assertTrue(r.section, name)
            self.assertIn(name, describe(name))

    def test_families_name_only_known_rules(self):
        for mod in isa.families():
            for r in mod.RULES:
                self.assertIn(r, RULES, f"{mod.FAMILY}: {r}")
                self.assertIsNotNone(RULES[r].check, f"{mod.FAMILY}: {r} is not a form rule")
            for _, name in mod.REQUIRES:
                self.assertIn(name, REQUIREMENTS, f"{mod.FAMILY}: {name}")

    def test_every_form_rule_is_exercised_by_a_negative_form(self):
        used = {r for f in all_forms() for r in f.invalid_by}
        form_rules = {n for n, r in RULES.items() if r.check is not None}
        self.assertEqual(form_rules - used, set())


class ChapterCases(unittest.TestCase):
    """Spot checks straight from the chapter's sentences."""

    @classmethod
    def setUpClass(cls):
        cls.forms = {f.id: f for f in all_forms()}

    def rules_of(self, fid):
        self.assertIn(fid, self.forms)
        return set(self.forms[fid].invalid_by)

    def test_cg_takes_cp_size_16_only(self):
        self.assertEqual(self.rules_of("cp.async/cg.shared.global/cp_size_4"), {"cp_async.cg_cp_size_16"})
        self.assertEqual(self.rules_of("cp.async/cg.shared.global/cp_size_16"), set())

    def test_add_f16_needs_noftz_and_noftz_only_there(self):
        base = "cp.reduce.async.bulk/global.shared_cta.bulk_group/"
        self.assertEqual(self.rules_of(base + "add.f16"), {"reduce_bulk.add_f16_bf16_requires_noftz"})
        self.assertEqual(self.rules_of(base + "add.noftz.bf16"), set())
        self.assertIn("reduce_bulk.noftz_only_add_f16_bf16", self.rules_of(base + "add.noftz.f32"))

    def test_multicast_needs_cluster_destination(self):
        self.assertIn("bulk.multicast_global_to_cluster",
                      self.rules_of("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/multicast_cluster"))
        self.assertIn("tensor.multicast_dst_cluster",
                      self.rules_of("cp.async.bulk.tensor/2d.shared_cta.global.tile/multicast_cluster"))

    def test_size_not_multiple_of_16_is_undefined_kind(self):
        fid = "cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/size_imm_24"
        self.assertEqual(self.rules_of(fid), {"common.size_multiple_of_16"})
        self.assertEqual(RULES["common.size_multiple_of_16"].kind, "undefined")

    def test_tensor_shapes(self):
        self.assertEqual(self.rules_of("cp.async.bulk.tensor/2d.shared_cta.global.im2col"), {"tensor.im2col_min_3d"})
        self.assertEqual(self.rules_of("cp.async.bulk.tensor/3d.shared_cta.global.tile_gather4"),
                         {"tensor.gather4_scatter4_2d"})
        self.assertEqual(self.rules_of("cp.async.bulk.tensor/2d.shared_cluster.global.tile/coords_3"),
                         {"tensor.coords_count"})
        self.assertEqual(self.rules_of("cp.async.bulk.tensor/2d.global.shared_cta.tile_gather4"),
                         {"tensor.load_mode_store"})
        self.assertEqual(self.rules_of("cp.async.bulk.tensor/2d.global.shared_cta.tile/cta_group_1"),
                         {"tensor.cta_group_mbarrier_only"})
        self.assertEqual(self.rules_of("cp.async.bulk.tensor/5d.shared_cluster.global.im2col"), set())
        self.assertEqual(self.forms["cp.async.bulk.tensor/5d.shared_cluster.global.im2col"].quals["im2col_info"], 3)


class RedopTypeCells(unittest.TestCase):
    """Done-when: every redOp x type cell of both destinations has a case, valid exactly where the table says."""

    def test_full_product_per_destination(self):
        mod = next(m for m in isa.families() if m.FAMILY == "cp.reduce.async.bulk")
        forms = {(f.quals["dst"], f.quals["redop"], f.quals["type"]): f for f in family_forms(mod)
                 if not f.quals["noftz"] and not f.quals["cache_hint"] and f.quals["size_imm"] is None
                 and not f.quals["sem"]
                 and f.quals["src"] == "shared::cta" and f.quals["policy"] is False
                 and f.quals["completion"] == ("bulk_group" if f.quals["dst"] == "global"
                                               else "mbarrier::complete_tx::bytes")}
        for dst in ("shared::cluster", "global"):
            for op in REDOPS:
                for ty in TYPES:
                    f = forms.get((dst, op, ty))
                    self.assertIsNotNone(f, f"{dst} {op} {ty}")
                    allowed = ty in CELLS[dst][op]
                    if allowed and ty in ("f16", "bf16") and op == "add":
                        # the cell is allowed through .add.noftz; plain .add.f16 breaks only the noftz rule
                        self.assertEqual(f.invalid_by, ("reduce_bulk.add_f16_bf16_requires_noftz",))
                        noftz = f.id.replace(f"add.{ty}", f"add.noftz.{ty}")
                        self.assertTrue(any(g.id == noftz and g.valid for g in family_forms(mod)), noftz)
                    else:
                        self.assertEqual(f.valid, allowed, f.id)


class Requirements(unittest.TestCase):
    def test_family_rules(self):
        scatter = REQUIREMENTS["tensor.scatter4"]
        self.assertTrue(scatter.target_ok(BY_NAME["sm_100a"], "8.6"))
        self.assertTrue(scatter.target_ok(BY_NAME["sm_103f"], "8.8"))     # sm_100f or higher in the family
        self.assertTrue(scatter.target_ok(BY_NAME["sm_103a"], "9.0"))
        self.assertFalse(scatter.target_ok(BY_NAME["sm_100"], "9.0"))
        self.assertFalse(scatter.target_ok(BY_NAME["sm_120a"], "9.0"))
        self.assertTrue(scatter.target_ok(BY_NAME["sm_101a"], "8.6"))
        self.assertFalse(scatter.target_ok(BY_NAME["sm_101a"], "9.0"))    # renamed sm_110a from 9.0
        self.assertTrue(scatter.target_ok(BY_NAME["sm_110a"], "9.0"))
        gather_cta = REQUIREMENTS["tensor.gather4.cta"]
        self.assertTrue(gather_cta.target_ok(BY_NAME["sm_120"], "9.0"))   # sm_100 or higher for .shared::cta
        self.assertFalse(REQUIREMENTS["tensor.gather4.cluster"].target_ok(BY_NAME["sm_120a"], "9.0"))

    def test_versions(self):
        self.assertEqual(REQUIREMENTS["cp_async.ignore_src"].ptx, "7.5")
        self.assertEqual(REQUIREMENTS["cp_async.l2_qualifiers"].ptx, "7.4")
        self.assertEqual(REQUIREMENTS["cp_async.shared_cta"].ptx, "7.8")
        self.assertEqual(REQUIREMENTS["bulk.dst_shared_cta"].ptx, "8.6")
        self.assertEqual(REQUIREMENTS["bulk.cp_mask"].ptx, "8.6")
        self.assertIn("bulk.cp_mask.ptx", REQUIREMENTS["bulk.cp_mask"].violations(BY_NAME["sm_100"], "8.5"))
        self.assertIn("bulk.cp_mask.target", REQUIREMENTS["bulk.cp_mask"].violations(BY_NAME["sm_90a"], "9.0"))


if __name__ == "__main__":
    unittest.main()
