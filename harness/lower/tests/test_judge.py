"""Judging real lowerings: the fixture's nine forms pass, and each fault of the issue's list, planted into the
SASS text, turns the verdict into fail naming the rule."""
import unittest

from framework.lowering import judge
from framework.toolchains.sass import Instr
from lower.tests import helpers


def plant(instrs, old, new):
    """instrs with the first instruction whose text contains old rewritten (new None: removed)."""
    out, done = [], False
    for i in instrs:
        if not done and old in i.text:
            done = True
            if new is not None:
                out.append(Instr(i.addr, i.text.replace(old, new, 1), i.ptx_line))
            continue
        out.append(i)
    assert done, f"{old!r} is not in the lowering"
    return out


class FixtureLowerings(unittest.TestCase):
    def setUp(self):
        self.low = helpers.fixture_lowering()

    def verdict(self, fid, old=None, new=""):
        form, instrs = self.low[fid]
        if old is not None:
            instrs = plant(instrs, old, new)
        return judge.judge(form, instrs)

    def test_all_pass_as_lowered(self):
        for fid in self.low:
            v = self.verdict(fid)
            self.assertEqual(v.cls, judge.PASS, f"{fid}: {v.message}")

    def assertFails(self, fid, old, new, rule):
        v = self.verdict(fid, old, new)
        self.assertEqual(v.cls, judge.FAIL, f"{fid}: {old!r} -> {new!r} not caught")
        self.assertTrue(any(f.startswith(rule) for f in v.failed), v.failed)

    def test_dropped_multicast(self):
        self.assertFails("cp.async.bulk.tensor/3d.shared_cluster.global.im2col/multicast_cluster/cta_group_2",
                         ".MULTICAST", "", "tensor.multicast")
        self.assertFails("cp.async.bulk/shared_cluster.global.mbarrier_complete_tx_bytes/multicast_cluster",
                         ".MULTICAST", "", "bulk.multicast")

    def test_min_swapped_for_max(self):
        self.assertFails("cp.reduce.async.bulk/global.shared_cta.bulk_group/min.bf16", ".MIN", ".MAX",
                         "reduce.operation")
        self.assertFails("cp.reduce.async.bulk.tensor/3d.global.shared_cta.max.tile", ".MAX", ".MIN",
                         "reduce.operation")

    def test_rank_3d_lowered_as_2d(self):
        self.assertFails("cp.async.bulk.tensor/3d.shared_cluster.global.im2col/multicast_cluster/cta_group_2",
                         ".3D", ".2D", "tensor.rank")

    def test_dropped_zfill(self):
        self.assertFails("cp.async/cg.shared.global/cp_size_16/src_size/L2_128B", ".ZFILL", "", "cp.async.src_size")

    def test_wait_group_without_cctl(self):
        self.assertFails("cp.async.bulk.wait_group/N_1/groups_3", "CCTL.IVALL", None, "bulk.wait_group")

    def test_fence_proxy_async_returned_early(self):
        # the fault the H100 litmus stress does not see
        self.assertFails("fence.proxy.async/shared_cta/generic_write_then_bulk_read", "FENCE.VIEW.ASYNC.S", None,
                         "fence.proxy.async")

    def test_a_further_membar_before_the_fence_is_allowed(self):
        # ptxas 12.4 lowers fence.proxy.async with MEMBAR.ALL.CTA before MEMBAR.ALL.GPU: more ordering, not less
        fid = "fence.proxy.async/shared_cta/generic_write_then_bulk_read"
        form, instrs = self.low[fid]
        first = instrs[[i.opcode for i in instrs].index("MEMBAR")]
        more = instrs[:instrs.index(first)] + [Instr(first.addr, "MEMBAR.ALL.GPU", first.ptx_line)] + \
            instrs[instrs.index(first):]
        self.assertEqual(judge.judge(form, more).cls, judge.PASS)
        self.assertEqual(judge.judge(form, [i for i in more if i.opcode != "FENCE"]).cls, judge.FAIL)

    def test_a_fence_moved_above_its_write_or_past_its_copy_fails(self):
        # the lowering tier records the SASS of the generic write before the fence and of the bulk copy after it
        # (lower.pool._around); a compiler that moves the fence above the one or past the other has dropped it
        # in effect: the litmus tier's mutants that swap a fence with its store or its copy are this fault
        fid = "fence.proxy.async/shared_cta/generic_write_then_bulk_read"
        form, instrs = self.low[fid]
        lo, hi = min(i.addr for i in instrs), max(i.addr for i in instrs)

        def around(write_at, copy_at):
            return {"before": [Instr(write_at, "STS.128 [R20+UR8], R16", 1)],
                    "after": [Instr(copy_at - 16, "UMOV UR9, 0x1", 3),
                              Instr(copy_at, "UBLKCP.G.S [UR6], [UR5], UR9", 3)],
                    "lines": ["st.shared.v4.u32 [%w_src], {...};", "cp.async.bulk.global.shared::cta.bulk_group ..."]}
        self.assertEqual(judge.judge(form, instrs, around=around(lo - 16, hi + 32)).cls, judge.PASS)
        for where, words in ((around(hi + 16, hi + 64), "moved above the write it orders"),
                             (around(lo - 16, lo), "moved past the operation"),
                             (dict(around(lo - 16, hi + 32), before=[]), "no generic write")):
            v = judge.judge(form, instrs, around=where)
            self.assertEqual(v.cls, judge.FAIL, words)
            self.assertTrue(any(f.startswith("fence.proxy.async: ") and words in f for f in v.failed), v.failed)
        # recorded without its neighbours (an older lowered.json): the place is not judged
        self.assertEqual(judge.judge(form, instrs).cls, judge.PASS)

    def test_multicast_elsewhere_takes_the_software_path(self):
        # ptxas 12.9 at sm_120a (nvdisasm 13.5.37), cp.async.bulk.tensor 1d multicast with a cache hint: no
        # .MULTICAST, a ctaMask test and a CALL out; at a target the chapter lists, .MULTICAST is required
        sass_120a = ["ISETP.NE.AND P0, PT, R9, 0x1, PT", "@P0 BRA P1, `(.L_x_1271)", "MOV.64 R10, UR38",
                     "LDC.64 R2, c[0x4][R2]", "LEPC R20, `(.L_x_1272)", "CALL.ABS.NOINC R2", "BRA `(.L_x_1270)",
                     "@P0 ELECT P1, URZ, PT", "UTMALDG.1D [UR40], [UR4], desc[UR38]", "@P0 BRA.U.ANY `(.L_x_1273)"]
        instrs = [Instr(16 * n, t, 7) for n, t in enumerate(sass_120a)]
        form = helpers.forms()["cp.async.bulk.tensor/1d.shared_cluster.global.tile/multicast_cluster/L2_cache_hint"]
        self.assertEqual(judge.judge(form, instrs, target="sm_120a").cls, judge.PASS)
        v = judge.judge(form, instrs, target="sm_100a")
        self.assertEqual(v.cls, judge.FAIL)
        self.assertTrue(any(f.startswith("tensor.multicast:") for f in v.failed), v.failed)
        v = judge.judge(form, [i for i in instrs if i.opcode != "CALL"], target="sm_120a")
        self.assertEqual(v.cls, judge.FAIL)
        self.assertIn("the multicast is dropped", v.message)

    def test_wait_all_without_its_commit(self):
        self.assertFails("cp.async.wait_all/groups_2.uncommitted_1", "LDGDEPBAR", None, "cp.async.wait_all")

    def test_two_cta_dropped_and_gather4_lost(self):
        self.assertFails("cp.async.bulk.tensor/3d.shared_cluster.global.im2col/multicast_cluster/cta_group_2",
                         ".2CTA", "", "tensor.cta_group")
        self.assertFails("cp.async.bulk.tensor/2d.shared_cta.global.tile_gather4", ".GATHER4", "",
                         "tensor.load_mode")

    def test_modifier_meaningful_elsewhere_fails_unknown_one_is_unruled(self):
        fid = "cp.async.bulk.tensor/2d.shared_cta.global.tile_gather4"
        self.assertFails(fid, "UTMALDG.2D.GATHER4", "UTMALDG.2D.GATHER4.ZFILL", "modifiers.meaningful_elsewhere")
        v = self.verdict(fid, "UTMALDG.2D.GATHER4", "UTMALDG.2D.GATHER4.NEWTHING")
        self.assertEqual(v.cls, judge.UNRULED)
        self.assertIn("NEWTHING", v.message)

    def test_not_located_is_fail(self):
        form, _ = self.low["cp.async.bulk.wait_group/N_1/groups_3"]
        v = judge.judge(form, [])
        self.assertEqual(v.cls, judge.FAIL)
        self.assertIn("not located", v.message)


class Ptx9xLowerings(unittest.TestCase):
    """The PTX ISA 9.2-9.5 fixture (sm_107a, ptxas 13.5.37): its forms pass or fail as the text says, and each fault
    of the new qualifiers planted into the SASS text is caught, naming the rule."""
    TARGET = "sm_107a"
    NOFTZ = "cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f32"

    def setUp(self):
        self.low = helpers.fixture_lowering("sm_107a-9x")

    def verdict(self, fid, old=None, new=""):
        form, instrs = self.low[fid]
        if old is not None:
            instrs = plant(instrs, old, new)
        return judge.judge(form, instrs, target=self.TARGET)

    def assertFails(self, fid, old, new, rule):
        v = self.verdict(fid, old, new)
        self.assertEqual(v.cls, judge.FAIL, f"{fid}: {old!r} -> {new!r} not caught")
        self.assertTrue(any(f.startswith(rule + ":") for f in v.failed), v.failed)

    def test_all_pass_as_lowered(self):
        self.assertEqual(len(self.low), 11)
        for fid in self.low:
            v = self.verdict(fid)
            with self.subTest(form=fid):
                self.assertEqual(v.cls, judge.PASS, f"{fid}: {v.message}")

    def test_noftz_with_a_flush_to_zero_fails(self):
        # .add.noftz.f32 is UBLKRED.G.S.ADD.F32.RN, whose add keeps subnormals (H100, H200); a flush would not
        self.assertFails(self.NOFTZ, ".ADD.F32.RN", ".ADD.F32.RN.FTZ", "reduce.noftz")

    def test_relaxed_dropped_or_scope_narrowed(self):
        fid = "cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/L2_cache_hint/ignore_oob/relaxed.gpu"
        self.assertFails(fid, ".STRONG.GPU", "", "bulk.sem")            # .relaxed.gpu dropped: a weak copy
        self.assertFails(fid, ".STRONG.GPU", ".STRONG.SM", "bulk.sem")  # scope .gpu narrowed to .cta
        self.assertEqual(self.verdict(fid, ".STRONG.GPU", ".STRONG.SYS").cls, judge.PASS)   # wider: orders more
        self.assertFails("cp.reduce.async.bulk/global.shared_cta.bulk_group/add.u32/relaxed.sys", ".STRONG.SYS",
                         ".STRONG.GPU", "bulk.sem")
        self.assertFails("cp.async.bulk/global.shared_cta.bulk_group/weak", "UBLKCP.G.S", "UBLKCP.G.S.STRONG.SM",
                         "bulk.sem")

    def test_32b_multicast_dropped_or_narrowed(self):
        fid = "cp.async.bulk/shared_cluster.global.mbarrier_complete_tx_bytes/multicast_cluster_32b"
        self.assertFails(fid, ".MULTICAST32", "", "bulk.multicast.elsewhere")
        self.assertFails(fid, ".MULTICAST32", ".MULTICAST", "bulk.multicast.elsewhere")
        self.assertFails("cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster_16b", ".MULTICAST", "",
                         "tensor.multicast.elsewhere")

    def test_report_dropped_or_another_pattern(self):
        fid = ("cp.async.bulk.tensor/3d.shared_cluster.global.im2col/multicast_cluster/"
               "mbarrier_report_validity_per_16bytes_8000")
        self.assertFails(fid, ".VALIDCHK_XXXX8000", "", "bulk.report")
        self.assertFails(fid, ".VALIDCHK_XXXX8000", ".VALIDCHK_XXXXXX80", "bulk.report")

    def test_evict_last_dropped(self):
        self.assertFails("cp.async.bulk.prefetch/L2.global/L2_evict_last", "UBLKL2CCTL.PM", "UBLKPF.L2",
                         "bulk_prefetch.opcode")
        self.assertFails("cp.async.bulk.prefetch.tensor/3d.L2.global.im2col_w/L2_evict_last", ".PM", "",
                         "bulk_prefetch.eviction_priority")

    def test_sync_restrict_wait_with_the_full_wait(self):
        fid = "cp.async.bulk.wait_group.sync_restrict_proxy_async/N_1/groups_3"
        form, instrs = self.low[fid]
        more = instrs + [Instr(instrs[-1].addr + 16, "CCTL.IVALL", instrs[-1].ptx_line)]
        v = judge.judge(form, more, target=self.TARGET)
        self.assertEqual(v.cls, judge.FAIL)
        self.assertTrue(v.failed[0].startswith("bulk.wait_group.sync_restrict:"), v.failed)


if __name__ == "__main__":
    unittest.main()
