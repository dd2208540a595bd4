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


class PTX94TensorOverrides(unittest.TestCase):
    """The PTX ISA 9.4 .override::* qualifiers and .im2col_no_offs::w (9.7.10.28.5.2-.5.5 of the 9.4 text): each
    rule with a combination that breaks it alone, a valid one beside it, and the requirements' versions/targets."""

    FAMILIES = {m.FAMILY: m for m in isa.families()}

    def classify(self, family, **quals):
        from ptxcts_gen.model import _classify
        mod = self.FAMILIES[family]
        q = dict(mod.DEFAULTS)
        q.update(quals)
        getattr(mod, "derive", lambda q: None)(q)
        return _classify(mod, q)

    def breaks_alone(self, rule, family, **quals):
        violated, _ = self.classify(family, **quals)
        self.assertEqual(violated, (rule,), f"{family} {quals}")

    def valid(self, family, **quals):
        violated, requires = self.classify(family, **quals)
        self.assertEqual(violated, (), f"{family} {quals}")
        return requires

    def test_attribute_needs_the_address_override(self):
        for fam in ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor"):
            self.breaks_alone("tensor.override_attribute_needs_address", fam, dim=2, ovr_attr="global_dim_stride")
            self.valid(fam, dim=2, ovr_addr=True, ovr_attr="global_dim_stride")
            self.valid(fam, dim=2, ovr_addr=True)   # the address alone, any mode

    def test_attribute_takes_tile_mode_only(self):
        self.breaks_alone("tensor.override_attribute_tile_only", "cp.async.bulk.tensor", dim=3, load_mode="im2col",
                          ovr_addr=True, ovr_attr="global_dim_stride")
        self.breaks_alone("tensor.override_attribute_tile_only", "cp.reduce.async.bulk.tensor", dim=3,
                          load_mode="im2col_no_offs", ovr_addr=True, ovr_attr="global_dim_stride")
        self.breaks_alone("tensor.override_attribute_tile_only", "cp.async.bulk.prefetch.tensor", dim=2,
                          load_mode="tile::gather4", ovr_addr=True, ovr_attr="global_dim_stride")
        self.valid("cp.async.bulk.tensor", dim=3, load_mode="", ovr_addr=True, ovr_attr="global_dim_stride")
        # the address override alone is not restricted to tile
        self.valid("cp.async.bulk.tensor", dim=3, load_mode="im2col", ovr_addr=True)

    def test_attribute_multicast_is_32b(self):
        for width in ("", "16b"):
            self.breaks_alone("tensor.override_attribute_multicast_32b", "cp.async.bulk.tensor", dim=2,
                              multicast=True, mc_width=width, ovr_addr=True, ovr_attr="global_dim_stride")
        self.valid("cp.async.bulk.tensor", dim=2, multicast=True, mc_width="32b", ovr_addr=True,
                   ovr_attr="global_dim_stride")
        self.valid("cp.async.bulk.tensor", dim=2, multicast=True, mc_width="16b", ovr_addr=True)

    def test_attribute_value_follows_the_dimension(self):
        for fam in ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor"):
            self.breaks_alone("tensor.override_attribute_dim", fam, dim=1, ovr_addr=True, ovr_attr="global_dim_stride")
            self.breaks_alone("tensor.override_attribute_dim", fam, dim=4, ovr_addr=True, ovr_attr="global_dim")
            self.valid(fam, dim=1, ovr_addr=True, ovr_attr="global_dim")
            self.valid(fam, dim=5, ovr_addr=True, ovr_attr="global_dim_stride")

    def test_override_operands_inside_the_bracket(self):
        mod = self.FAMILIES["cp.async.bulk.tensor"]
        q = dict(mod.DEFAULTS, dir="global.shared::cta", dim=4, ovr_addr=True, ovr_attr="global_dim_stride")
        mod.derive(q)
        self.assertIn(".override::global_address.override::global_dim_stride [%tmap, %ovr_addr, "
                      "{%ovr_sz0, %ovr_sz1, %ovr_sz2, %ovr_sz3}, {%ovr_lo0, %ovr_lo1, %ovr_lo2}, %ovr_up, "
                      "{%c0, %c1, %c2, %c3}], [%w_src]", mod.instr(q))
        q = dict(mod.DEFAULTS, dir="shared::cta.global", dim=1, ovr_addr=True, ovr_attr="global_dim")
        mod.derive(q)
        self.assertIn("[%tmap, %ovr_addr, {%ovr_sz0}, {%c0}]", mod.instr(q))

    def test_im2col_no_offs_w_on_stores_and_reductions(self):
        self.valid("cp.async.bulk.tensor", dir="global.shared::cta", dim=3, load_mode="im2col_no_offs::w")
        self.valid("cp.reduce.async.bulk.tensor", dim=5, redop="min", load_mode="im2col_no_offs::w")
        # a store mode: refused on a load (load_mode_load), below 3d (im2col_min_3d), on a prefetch
        self.breaks_alone("tensor.load_mode_load", "cp.async.bulk.tensor", dir="shared::cta.global", dim=3,
                          load_mode="im2col_no_offs::w")
        self.breaks_alone("tensor.im2col_min_3d", "cp.reduce.async.bulk.tensor", dim=2,
                          load_mode="im2col_no_offs::w")
        self.breaks_alone("prefetch_tensor.load_mode", "cp.async.bulk.prefetch.tensor", dim=3,
                          load_mode="im2col_no_offs::w")

    def test_requirements_are_ptx_94_on_sm_107f(self):
        names = [f"{fam}.{what}" for fam in ("tensor", "reduce_tensor", "prefetch_tensor")
                 for what in ("override_address", "override_attribute")]
        names += ["tensor.im2col_no_offs_w", "reduce_tensor.im2col_no_offs_w"]
        for name in names:
            r = REQUIREMENTS[name]
            self.assertEqual(r.ptx, "9.4", name)
            self.assertTrue(r.target_ok(BY_NAME["sm_107f"], "9.4"), name)
            for t in ("sm_90", "sm_90a", "sm_100f", "sm_103f", "sm_107", "sm_120f"):
                if t in BY_NAME:
                    self.assertFalse(r.target_ok(BY_NAME[t], "9.4"), f"{name} {t}")
        self.assertIn("tensor.im2col_no_offs_w",
                      self.valid("cp.async.bulk.tensor", dir="global.shared::cta", dim=3,
                                 load_mode="im2col_no_offs::w"))


class GenericMbarrierArrive(unittest.TestCase):
    def test_without_state_space_is_the_generic_address(self):
        forms = {f.id: f for f in family_forms(next(m for m in isa.families() if m.FAMILY == "cp.async.groups"))}
        for fid, instr in (("cp.async.mbarrier.arrive/generic/arrive", "cp.async.mbarrier.arrive.b64 [%mbar_gen];"),
                           ("cp.async.mbarrier.arrive.noinc/generic/arrive",
                            "cp.async.mbarrier.arrive.noinc.b64 [%mbar_gen];")):
            self.assertIn(fid, forms)
            self.assertEqual(forms[fid].instr, instr)
            self.assertTrue(forms[fid].valid)
            self.assertEqual(forms[fid].min_ptx, "7.0")
        self.assertEqual(forms["cp.async.mbarrier.arrive.noinc/shared_cta/arrive"].instr,
                         "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%mbar];")
        # the ::cta sub-qualifier of .shared is PTX ISA 7.8's
        self.assertEqual(forms["cp.async.mbarrier.arrive.noinc/shared_cta/arrive"].min_ptx, "7.8")
