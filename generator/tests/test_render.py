"""Rendering: every form renders a complete kernel following the run ABI; module_text assembles modules."""
import re
import unittest

import ptxcts_gen
from ptxcts_gen import linemap
from ptxcts_gen.model import all_forms
from ptxcts_gen.render import kernel_text


class Kernels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.forms = all_forms()
        cls.text = {f.id: kernel_text(f) for f in cls.forms}

    def test_provenance_and_signature(self):
        for f in self.forms:
            t = self.text[f.id]
            self.assertTrue(t.startswith(f"// form: {f.id}\n// PTX ISA min {f.min_ptx}; targets: "), f.id)
            self.assertIn(f".visible .entry {f.entry}(", t)
            self.assertEqual(f.kernel_cfg["tmap"], ".param .align 64 .b8 tmap[128]" in t, f.id)
            self.assertIn(f.instr + " // ptxcts:test", t, f.id)
            self.assertEqual(t.count("{"), t.count("}"), f.id)

    def test_run_protocol(self):
        for f in self.forms:
            t = self.text[f.id]
            self.assertIn("$L_dump:", t, f.id)                       # window dump
            self.assertIn("st.global.u32 [%g_st], 1;", t, f.id)      # status word 0
            k = f.kernel_cfg
            if k["completion"] == "mbarrier":
                self.assertIn("mbarrier.init.shared.b64 [%mbar], 1;", t)
                self.assertIn("mbarrier.arrive.expect_tx.shared.b64 %state, [%mbar], %tx;", t)
                self.assertIn("mbarrier.try_wait.parity.shared.b64", t)
                self.assertIn("setp.ge.u32 %p3, %r7, %wait_limit;", t)   # the wait is bounded
            if k["completion"] == "bulk_group":
                self.assertRegex(t, r"ptxcts:test\n\tcp\.async\.bulk\.commit_group; // ptxcts:companion\n"
                           r"\tcp\.async\.bulk\.wait_group 0; // ptxcts:companion")
            if k["cluster"]:
                self.assertIn("mov.u32 %rank, %cluster_ctarank;", t)
                self.assertIn("barrier.cluster.wait.acquire.aligned;", t)
            else:
                self.assertNotIn("%cluster_ctarank", t)
            if k["remote"]:
                self.assertIn("mapa.shared::cluster.u32 %c_dst, %w_dst, %peer;", t)
            if k["sm90"]:
                self.assertIn("fence.proxy.async.shared::cta;", t) if k["completion"] != "prefetch" else None
            else:
                self.assertNotIn("fence.proxy.async", t)              # sm_80 kernels stay sm_80 / PTX 7.0
                self.assertNotIn("try_wait", t)

    def test_labels_unique_per_entry(self):
        for f in self.forms:
            labels = re.findall(r"^(\$L\w+):", self.text[f.id], re.M)
            self.assertEqual(len(labels), len(set(labels)), f.id)

    def test_self_checks_write_result_bits(self):
        for f in self.forms:
            if f.kernel_cfg["completion"].startswith("self_check"):
                self.assertIn("or.b32 %bits, %bits,", self.text[f.id], f.id)
                self.assertGreater(f.run["expect_bits"], 0)


class Modules(unittest.TestCase):
    def test_module_text(self):
        forms = [f for f in all_forms() if f.family == "cp.async.bulk"][:3]
        text = ptxcts_gen.module_text("sm_90a", "8.6", forms)
        self.assertRegex(text, r"\.version 8\.6\n\.target sm_90a\n\.address_size 64\n")
        self.assertIn(".extern .shared .align 1024 .b8 smem[];", text)
        for f in forms:
            self.assertEqual(text.count(f".visible .entry {f.entry}("), 1)
        self.assertEqual(ptxcts_gen.module_text("sm_90a", "8.6", [f.id for f in forms]), text)

    def test_unknown_form_is_named(self):
        with self.assertRaises(KeyError) as cm:
            ptxcts_gen.module_text("sm_90", "8.0", ["cp.async/nope"])
        self.assertIn("cp.async/nope", str(cm.exception))


class LineMap(unittest.TestCase):
    """ptxcts_gen.linemap: the one map from a module's lines back to its entries (compile tier, index.json)."""

    def test_entries_partition_the_module(self):
        forms = [f for f in all_forms() if f.family == "cp.async.bulk"][:3]
        lines = ptxcts_gen.module_text("sm_90a", "8.6", forms).splitlines()
        mapped = linemap.entries(lines)
        self.assertEqual([e.kernel for e in mapped], [f.entry for f in forms])
        self.assertEqual([e.form for e in mapped], [f.id for f in forms])
        head = linemap.header(lines, mapped)
        self.assertTrue(lines[head["target_line"] - 1].startswith(".target sm_90a"))
        self.assertEqual(head["header_last_line"] + 1, mapped[0].first)
        for prev, nxt in zip(mapped, mapped[1:]):
            self.assertEqual(prev.last + 1, nxt.first)
        self.assertEqual(mapped[-1].last, len(lines))
        for e in mapped:
            self.assertTrue(lines[e.first - 1].startswith(linemap.PROVENANCE))
            self.assertIn(f".entry {e.kernel}(", lines[e.entry - 1])
            self.assertEqual(lines[e.close - 1], "}")
            self.assertTrue(e.entry < e.close <= e.last)
            self.assertTrue(e.test_lines and all(e.entry < n < e.close for n in e.test_lines))
            self.assertTrue(all(linemap.TEST_MARK in lines[n - 1] for n in e.test_lines))
            self.assertTrue(all(linemap.COMPANION_MARK in lines[n - 1] for n in e.companion_lines))

    def test_an_entry_named_twice_is_refused(self):
        f = next(f for f in all_forms() if f.family == "cp.async.bulk")
        lines = ptxcts_gen.module_text("sm_90a", "8.6", [f, f]).splitlines()
        with self.assertRaises(linemap.LineMapError) as cm:
            linemap.entries(lines)
        self.assertIn(f.entry, str(cm.exception))


if __name__ == "__main__":
    unittest.main()
