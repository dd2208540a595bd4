"""The lowering rules as data: what they rest on is in the chapter, every valid form is covered, and the
expectations derived from a form's fields are the ones the chapter's qualifiers name."""
import os
import unittest

from lower.tests import helpers
from ptxcts_gen.lowering import RULES, rules_for


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
        for r in RULES:
            if r.rests_on:
                quote = " ".join(r.rests_on.split())
                self.assertTrue(quote in spec, f"rule {r.name}: {quote!r} is not in the chapter (000_*.txt)")

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
        self.assertEqual(d["tensor.multicast"].lacks, ("MULTICAST",))

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
