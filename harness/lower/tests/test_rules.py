"""The lowering rules as data: what they rest on is in the chapter, every valid form is covered, and the
expectations derived from a form's fields are the ones the chapter's qualifiers name."""
import os
import unittest

from lower.tests import helpers
from ptxcts_gen.lowering import NOT_LOWERED, RULES, rules_for


def _spec():
    d = os.path.join(os.path.dirname(helpers.ROOT), "shared", "spec")
    if not os.path.isdir(d):
        d = "/work/shared/spec"
    for n in sorted(os.listdir(d)):
        if n.startswith("000_"):
            with open(os.path.join(d, n), encoding="utf-8") as f:
                return " ".join(f.read().split())
    raise FileNotFoundError(d)


def demands(form_id):
    return {r.name: d for r, d in rules_for(helpers.forms()[form_id])}


class RulesRestOnTheChapter(unittest.TestCase):
    def test_every_quote_is_verbatim_in_the_chapter(self):
        try:
            spec = _spec()
        except FileNotFoundError:
            self.skipTest("shared/spec is not beside this checkout")
        from ptxcts_gen import rules as model_rules
        model = {m.sentence for m in model_rules.load_all().values()}
        for r in RULES:
            if r.rests_on:
                # the 9.x text is not in shared/spec: a rule on a 9.x qualifier rests on the sentence the ISA
                # model quotes for it (ptxcts_gen.rules), word for word
                quote = " ".join(r.rests_on.split())
                self.assertTrue(quote in spec or quote in model,
                                f"rule {r.name}: {quote!r} is neither in the chapter (000_*.txt) nor a sentence the "
                                f"ISA model quotes")

    def test_every_rule_says_what_it_observed_and_names_are_unique(self):
        names = [r.name for r in RULES]
        self.assertEqual(len(names), len(set(names)))
        for r in RULES:
            self.assertTrue(r.observed.startswith("observed:"), r.name)
            self.assertTrue(r.fields, r.name)


class RulesCoverEveryValidForm(unittest.TestCase):
    def test_each_valid_form_has_its_opcode_or_sequence_rule(self):
        bare = []
        for fid, rec in helpers.forms().items():
            if rec["invalid_by"]:
                continue
            ds = [d for _, d in rules_for(rec)]
            if not any(d.sequence is not None or d.count == 1 for d in ds):
                bare.append(fid)
        # the register-operand wait_group forms are invalid (N is an integer constant); nothing else may be bare
        self.assertEqual(bare, [])


class EveryQualifierHasALoweringDecision(unittest.TestCase):
    def test_each_field_of_a_valid_form_is_read_by_a_rule_or_named_unlowered(self):
        # a qualifier added to the model (an EXT_AXES value, a new axis) needs a lowering rule that reads it, or a
        # reason in NOT_LOWERED why the SASS shows nothing of it
        read = {f for r in RULES for f in r.fields}
        undecided = sorted({(rec["family"], k) for rec in helpers.forms().values()
                            if not rec["invalid_by"] or rec.get("valid_from") for k in rec["quals"]
                            if k not in read and k not in NOT_LOWERED})
        self.assertEqual(undecided, [], "fields of the model no lowering rule reads and NOT_LOWERED does not name")
        self.assertEqual(sorted(read & set(NOT_LOWERED)), [], "a field both read by a rule and named unlowered")


class DerivedFromTheForm(unittest.TestCase):
    def assertHas(self, d, expected):
        """Each rule of `expected` demands exactly these modifiers of the form's instruction."""
        self.assertEqual({rule: d[rule].has for rule in expected}, expected)

    def test_tensor_load_rank_mode_multicast_cta_group(self):
        d = demands("cp.async.bulk.tensor/3d.shared_cluster.global.im2col/multicast_cluster/cta_group_2")
        self.assertHas(d, {"tensor.rank": ("3D",), "tensor.load_mode": ("IM2COL",), "tensor.multicast": ("MULTICAST",),
                           "tensor.cta_group": ("2CTA",)})
        self.assertIn("2D", d["tensor.rank"].lacks)
        self.assertEqual(d["tensor.opcode"].opcode, "UTMALDG")

    def test_tensor_store_without_multicast_lacks_it(self):
        d = demands("cp.async.bulk.tensor/2d.global.shared_cta.tile_scatter4")
        self.assertEqual(d["tensor.opcode"].opcode, "UTMASTG")
        self.assertHas(d, {"tensor.load_mode": ("SCATTER4",)})
        self.assertEqual(d["tensor.multicast"].lacks, ("MULTICAST", "MULTICAST32"))

    def test_relaxed_scope_at_least_the_forms(self):
        d = demands("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/L2_cache_hint/ignore_oob/relaxed.gpu")
        self.assertEqual((d["bulk.sem"].has, d["bulk.sem"].one_of, d["bulk.sem"].lacks),
                         (("STRONG",), ("GPU", "SYS"), ("SM",)))
        d = demands("cp.reduce.async.bulk/shared_cluster.shared_cta.mbarrier_complete_tx_bytes/add.u32/relaxed.cta")
        self.assertEqual((d["bulk.sem"].opcode, d["bulk.sem"].one_of), ("UBLKRED", ("SM", "GPU", "SYS")))
        for weak in ("cp.async.bulk/global.shared_cta.bulk_group/weak", "cp.async.bulk/global.shared_cta.bulk_group"):
            self.assertEqual(demands(weak)["bulk.sem"].lacks, ("STRONG", "SM", "GPU", "SYS"))

    def test_report_pattern_multicast_width_and_eviction(self):
        d = demands("cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster/"
                    "mbarrier_report_validity_per_16bytes_80")
        self.assertEqual(d["bulk.report"].has, ("VALIDCHK_XXXXXX80",))
        d = demands("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/"
                    "mbarrier_report_validity_per_element_ff")
        self.assertEqual(d["bulk.report"].has, ("VALIDCHK_EVERY_FF",))
        d = demands("cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/mbarrier_report_disabled")
        self.assertEqual((d["bulk.report"].has, len(d["bulk.report"].lacks)), ((), 5))
        d = demands("cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster_32b")
        self.assertEqual((d["tensor.multicast"].has, d["tensor.multicast"].lacks), (("MULTICAST32",), ("MULTICAST",)))
        d = demands("cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster_16b")
        self.assertEqual(d["tensor.multicast"].has, ("MULTICAST",))
        d = demands("cp.async.bulk.prefetch.tensor/2d.L2.global.tile/L2_evict_last")
        self.assertEqual((d["prefetch_tensor.opcode"].opcode, d["bulk_prefetch.eviction_priority"].has),
                         ("UTMAL2CCTL", ("PM",)))
        self.assertNotIn("bulk_prefetch.level", d)
        d = demands("cp.async.bulk.prefetch/L2.global")
        self.assertEqual((d["bulk_prefetch.opcode"].opcode, d["bulk_prefetch.eviction_priority"].lacks),
                         ("UBLKPF", ("PF", "PM")))
        # at sm_107* every prefetch is the L2 cache-control instruction, .PF without .L2::evict_last
        d = {r.name: dm for r, dm in rules_for(helpers.forms()["cp.async.bulk.prefetch/L2.global"], "sm_107a")}
        self.assertEqual((d["bulk_prefetch.opcode"].opcode, d["bulk_prefetch.eviction_priority"].has),
                         ("UBLKL2CCTL", ("PF",)))
        self.assertNotIn("bulk_prefetch.level", d)

    def test_override_and_im2col_no_offs_w(self):
        # PTX ISA 9.4: .override::global_address .TENSOR_GADDR, .override::global_dim{_stride} .TENSOR_STRIDE_SIZE_MAX256
        # (both attributes alike), .im2col_no_offs::w .W; without them, neither
        d = demands("cp.async.bulk.tensor/2d.global.shared_cta.tile/L2_cache_hint/override_global_address/"
                    "override_global_dim_stride")
        self.assertEqual((d["tensor.opcode"].opcode, d["tensor.override_address"].has,
                          d["tensor.override_attribute"].has), ("UTMASTG", ("TENSOR_GADDR",),
                                                                ("TENSOR_STRIDE_SIZE_MAX256",)))
        d = demands("cp.async.bulk.prefetch.tensor/1d.L2.global.tile/L2_cache_hint/override_global_address/"
                    "override_global_dim")
        self.assertEqual(d["tensor.override_attribute"].has, ("TENSOR_STRIDE_SIZE_MAX256",))
        d = demands("cp.reduce.async.bulk.tensor/3d.global.shared_cta.add.im2col_no_offs_w/override_global_address")
        self.assertEqual((d["tensor.load_mode"].has, d["tensor.override_address"].has,
                          d["tensor.override_attribute"].lacks), (("W",), ("TENSOR_GADDR",),
                                                                  ("TENSOR_STRIDE_SIZE_MAX256",)))
        d = demands("cp.async.bulk.tensor/2d.global.shared_cta.tile_scatter4")
        self.assertEqual((d["tensor.override_address"].lacks, d["tensor.override_attribute"].lacks),
                         (("TENSOR_GADDR",), ("TENSOR_STRIDE_SIZE_MAX256",)))

    def test_noftz_forbids_a_flush_to_zero(self):
        for t in ("f32", "f16", "bf16"):
            d = demands(f"cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.{t}")
            self.assertEqual((d["reduce.noftz"].opcode, d["reduce.noftz"].lacks), ("UBLKRED", ("FTZ",)))
        self.assertNotIn("reduce.noftz", demands("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.f32"))

    def test_reduction_operation_type_and_rounding(self):
        d = demands("cp.reduce.async.bulk/global.shared_cta.bulk_group/min.bf16")
        self.assertHas(d, {"reduce.operation": ("MIN",), "reduce.type": ("BF16",), "reduce.float_rounding": ("RN",),
                           "bulk.direction": ("G.S",)})
        self.assertIn("MAX", d["reduce.operation"].lacks)

    def test_cp_async_size_cache_operator_prefetch_zfill(self):
        self.assertHas(demands("cp.async/cg.shared.global/cp_size_16/src_size/L2_128B"),
                       {"cp.async.cp_size": ("128",), "cp.async.cache_operator": ("BYPASS",),
                        "cp.async.prefetch_size": ("LTC128B",), "cp.async.src_size": ("ZFILL",)})
        d = demands("cp.async/ca.shared.global/cp_size_4")
        self.assertHas(d, {"cp.async.cp_size": ()})
        self.assertEqual(d["cp.async.src_size"].lacks, ("ZFILL",))

    def test_group_and_fence_sequences(self):
        self.assertEqual(demands("cp.async.bulk.wait_group/N_1/groups_3")["bulk.wait_group"].sequence,
                         ("DEPBAR.LE SB0, 0x1", "CCTL.IVALL"))
        self.assertEqual(demands("cp.async.bulk.wait_group.read/N_0/read_then_overwrite")["bulk.wait_group"].sequence,
                         ("DEPBAR.LE SB0, 0x0",))
        self.assertEqual(demands("fence.proxy.async/global/generic_write_then_bulk_write")["fence.proxy.async"].sequence,
                         ("FENCE.VIEW.ASYNC.G",))
        self.assertEqual(demands("cp.async.wait_all/groups_2.uncommitted_1")["cp.async.wait_all"].sequence,
                         ("LDGDEPBAR", "DEPBAR.LE SB0, 0x0"))

    def test_cache_hint_decides_the_policy_operand(self):
        self.assertEqual(demands("cp.async.bulk/global.shared_cta.bulk_group/L2_cache_hint")["bulk.cache_hint"].tail,
                         "desc")
        self.assertEqual(demands("cp.async.bulk/global.shared_cta.bulk_group")["bulk.cache_hint"].tail, "nodesc")


if __name__ == "__main__":
    unittest.main()
