"""The self-test's planted faults (ptxcts_gen.faults): each kind rewrites the instruction under test of every form
it applies to, only that line, the way its description says, and names the cases the chapter makes equivalent."""
import unittest

from ptxcts_gen import faults
from ptxcts_gen.model import all_forms
from ptxcts_gen.render import kernel_text


def test_line(form):
    return next(ln.strip() for ln in kernel_text(form).split("\n") if faults.TEST_MARK in ln)


class Kinds(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.forms = [f for f in all_forms() if f.valid]
        cls.by_id = {f.id: f for f in all_forms()}

    def form(self, family, pred):
        return next(f for f in self.forms if f.family == family and pred(f, test_line(f)))

    def plant(self, kind, form):
        return faults.KINDS[kind].apply(test_line(form), form)

    def test_type_keeps_the_width(self):
        f = self.form("cp.reduce.async.bulk", lambda f, ln: ".add.noftz.f16 " in ln)
        (new,) = self.plant("type", f)
        self.assertEqual(new, test_line(f).replace(".add.noftz.f16 ", ".add.noftz.bf16 "))
        u = self.form("cp.reduce.async.bulk", lambda f, ln: ".add.u32 " in ln)
        self.assertIn(".add.f32 ", self.plant("type", u)[0])
        self.assertIsNone(faults.KINDS["type"].equivalent(u))

    def test_width_doubles_or_halves(self):
        u = self.form("cp.reduce.async.bulk", lambda f, ln: ".min.u64 " in ln)
        self.assertIn(".min.u32 ", self.plant("width", u)[0])
        b = self.form("cp.reduce.async.bulk", lambda f, ln: ".and.b32 " in ln)
        self.assertIn(".and.b64 ", self.plant("width", b)[0])
        self.assertIn("bitwise", faults.KINDS["width"].equivalent(b))

    def test_type_and_width_leave_tensor_reductions_alone(self):
        t = self.form("cp.reduce.async.bulk.tensor", lambda f, ln: True)
        self.assertIsNone(self.plant("type", t))
        self.assertIsNone(self.plant("width", t))

    def test_plant_changes_only_the_test_line(self):
        forms = [f for f in self.forms if f.family == "cp.reduce.async.bulk"]
        text = "\n".join(kernel_text(f) for f in forms)
        for kind in ("type", "width", "redop", "signedness"):
            new, planted = faults.plant(kind, text, forms)
            self.assertTrue(planted, kind)
            before, after = text.split("\n"), new.split("\n")
            self.assertEqual(len(before), len(after), kind)   # these kinds replace one line with one line
            changed = [(b, a) for b, a in zip(before, after) if b != a]
            self.assertEqual(len(changed), len(planted), kind)
            self.assertTrue(all(faults.TEST_MARK in b and faults.TEST_MARK in a for b, a in changed), kind)

    def test_wait_count_waits_for_one_group_less(self):
        f = self.form("cp.async.groups", lambda f, ln: ln.startswith("cp.async.wait_group 1;"))
        self.assertTrue(self.plant("wait_count", f)[0].startswith("cp.async.wait_group 2;"))


    def test_ptx9x_kinds_rewrite_only_their_qualifier(self):
        ign = self.by_id["cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/L2_cache_hint/ignore_oob/"
                         "relaxed.gpu"]
        line = test_line(ign)
        (new,) = self.plant("ignore_oob", ign)
        self.assertNotIn("ignore_oob", new)
        self.assertNotIn("%ign_l", new)
        self.assertIn("no byte is ignored", faults.KINDS["ignore_oob"].equivalent(ign))
        self.assertEqual(self.plant("ignore_bytes", ign), [f"add.u32 %ign_l, %ign_l, 8; {faults.FAULT_MARK}", line])
        self.assertEqual(self.plant("scope", ign), [line.replace(".relaxed.gpu.", ".relaxed.cta.")])
        (weak,) = self.plant("relaxed", ign)
        self.assertNotIn(".relaxed", weak)
        self.assertNotIn(".b128", weak)
        cta = self.by_id["cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/relaxed.cta"]
        self.assertIsNone(self.plant("scope", cta))   # nothing narrower than .cta
        noftz = self.by_id["cp.reduce.async.bulk/global.shared_cta.bulk_group/add.noftz.f32"]
        self.assertEqual(self.plant("noftz", noftz), [test_line(noftz).replace(".add.noftz.f32", ".add.f32")])
        self.assertIsNone(self.plant("noftz", self.by_id["cp.reduce.async.bulk/global.shared_cta.bulk_group/"
                                                          "add.noftz.f16"]))
        m32 = self.by_id["cp.async.bulk/shared_cluster.global.mbarrier_complete_tx_bytes/multicast_cluster_32b"]
        (uni,) = self.plant("multicast", m32)
        self.assertNotIn("multicast", uni)
        self.assertNotIn("%cta_mask", uni)
        m16 = self.by_id["cp.async.bulk.tensor/2d.shared_cluster.global.tile/multicast_cluster_16b"]
        self.assertEqual(self.plant("mc_width", m16), [test_line(m16).replace("::cluster::16b", "::cluster")])
        self.assertIn("16-bit", faults.KINDS["mc_width"].equivalent(m16))
        rep = self.by_id["cp.async.bulk/shared_cta.global.mbarrier_complete_tx_bytes/"
                         "mbarrier_report_validity_per_16bytes_8000"]
        self.assertEqual(self.plant("report", rep), [test_line(rep).replace("per_16bytes::8000", "per_16bytes::80")])
        sync = self.by_id["cp.async.bulk.wait_group.sync_restrict_proxy_async/N_1/groups_3"]
        self.assertEqual(self.plant("sync_restrict", sync), ["cp.async.bulk.wait_group 1;" + test_line(sync)[
            len("cp.async.bulk.wait_group.sync_restrict::proxy::async 1;"):]])
        pf = self.by_id["cp.async.bulk.prefetch/L2.global/L2_evict_last"]
        self.assertNotIn("evict_last", self.plant("evict_last", pf)[0])
        self.assertIn("prefetch", faults.KINDS["evict_last"].equivalent(pf))


if __name__ == "__main__":
    unittest.main()
