"""Line mapping and judging with real ptxas on small hand-written modules."""
import dataclasses
import os
import stat
import tempfile
import unittest

from framework import toolchains
from compile import backends, classify, judge
from framework import modules
from framework.toolchains import ptxas
from compile.tests import minimanifest

CG4 = "cp.async.cg.shared.global [%r1], [%rd2], 4;"            # error: cp-size must be 16 with .cg
CA4 = "cp.async.ca.shared.global [%r1], [%rd2], 4;"            # fine
CA3 = "cp.async.ca.shared.global [%r1], [%rd2], 3;"            # error: cp-size 3
D6 = ("cp.async.bulk.tensor.6d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
      "[%r1], [%rd2, {%r3, %r3}], [%r2];")                        # fatal: syntax error
MC = ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%r1], [%rd2], 16, [%r2], %rs1;")                         # warning on sm_90 (advisory), accepted
BULK = "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd2], 16, [%r2];"


class JudgeBase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ptxcts-test-")
        self.ptxas = toolchains.resolve().ptxas

    def tearDown(self):
        self.tmp.cleanup()

    def judge(self, entries, target, ptx, ptxas_path=None):
        m = minimanifest.write(os.path.join(self.tmp.name, "m"), "t", entries)
        j = judge.Judge(backends.Ptxas(ptxas_path or self.ptxas), modules.Assembler(m, use_generator=False))
        out = j.chunk(target, target, ptx, m.cases)
        return m, j, out


class NegativeModuleTest(JudgeBase):
    def test_two_invalid_entries_and_a_fatal_one(self):
        """A: error; F: syntax error (fatal: ptxas stops there); B: error after the fatal line; C: an 'invalid'
        case ptxas accepts, after the fatal line. Each must be judged on its own."""
        entries = [("t/a", CG4, "reject", "sm_90", "8.6"),
                   ("t/f", D6, "reject", "sm_90", "8.6"),
                   ("t/b", CA3, "reject", "sm_90", "8.6"),
                   ("t/c", CA4, "reject", "sm_90", "8.6")]
        m, j, out = self.judge(entries, "sm_90", "8.6")
        a, f, b, c = (out[f"t/{x}@sm_90.ptx86"] for x in "afbc")
        self.assertEqual(a.verdict, judge.REJECTED)
        self.assertIn("expected to be 16", " ".join(a.messages))
        self.assertEqual(f.verdict, judge.REJECTED)
        self.assertIn("Parsing error", " ".join(f.messages))
        self.assertEqual(f.diags[0]["where"], "instruction")
        self.assertEqual(b.verdict, judge.REJECTED)
        self.assertNotIn("Parsing error", " ".join(b.messages))
        self.assertEqual(c.verdict, judge.ACCEPTED, "a case after the fatal line must be re-assembled, not guessed")
        # call 1 judges a and f (fatal stops there), call 2 judges b, call 3 shows c is accepted
        self.assertEqual(j.calls, 3)
        for o in (a, f, b):
            self.assertEqual([d["where"] for d in o.diags if d["severity"] != "warning"],
                             ["instruction"] * len(o.messages))
        cases = {x.id: x for x in m.cases}
        self.assertEqual(classify.classify(cases[c.case_id], c, [])[0], classify.FAIL)
        self.assertEqual(classify.classify(cases[a.case_id], a, [])[0], classify.PASS)

    def test_error_in_the_frame_is_a_harness_error(self):
        entries = [("t/ok", CG4, "reject", "sm_90", "8.6"),
                   ("t/frame", CG4, "reject", "sm_90", "8.6", ["mov.u32 %r9, 1;"])]   # %r9 is not declared
        m, _, out = self.judge(entries, "sm_90", "8.6")
        cases = {x.id: x for x in m.cases}
        k, msg, harness = classify.classify(cases["t/frame@sm_90.ptx86"], out["t/frame@sm_90.ptx86"], [])
        self.assertEqual((k, harness), (classify.FAIL, True))
        self.assertIn("mov.u32 %r9, 1;", msg)
        self.assertEqual(classify.classify(cases["t/ok@sm_90.ptx86"], out["t/ok@sm_90.ptx86"], [])[0], classify.PASS)

    def test_companion_line_error_only_beside_a_rejected_instruction(self):
        """A frame line marked `// ptxcts:companion` may fail with the instruction under test, never alone."""
        comp = ["cp.async.commit_group; // ptxcts:companion"]
        entries = [("t/both", CA4, "reject", "sm_75", "7.8", comp),          # cp.async and commit_group need sm_80
                   ("t/alone", "mov.u32 %r3, 1;", "reject", "sm_75", "7.8", comp)]   # only the companion fails
        m, _, out = self.judge(entries, "sm_75", "7.8")
        cases = {x.id: x for x in m.cases}
        both, alone = out["t/both@sm_75.ptx78"], out["t/alone@sm_75.ptx78"]
        self.assertIn("companion", [d["where"] for d in both.diags])
        self.assertEqual(classify.classify(cases[both.case_id], both, [])[0], classify.PASS)
        k, msg, harness = classify.classify(cases[alone.case_id], alone, [])
        self.assertEqual((k, harness), (classify.FAIL, True), msg)

    def test_header_error_judges_no_instruction(self):
        """A refused `.target` line concerns every entry: header_refused, which is not_supported for a case with
        rules about its instruction and the expected rejection for a case whose only rule is the target line."""
        entries = [("t/bulk", BULK, "reject", "sm_90", "7.0"), ("t/ca", CA4, "reject", "sm_90", "7.0")]
        m, _, out = self.judge(entries, "sm_90", "7.0")
        for o in out.values():
            self.assertEqual(o.verdict, judge.HEADER_REFUSED)
            self.assertTrue(any(d["where"] == "header" for d in o.diags))
        case = m.cases[0]
        k, msg, _ = classify.classify(case, out[case.id], [])
        self.assertEqual(k, classify.NOT_SUPPORTED, msg)
        self.assertIn(".target", msg)
        target_only = dataclasses.replace(case, rules=("target.not_at_ptx",))
        self.assertEqual(classify.classify(target_only, out[case.id], [])[0], classify.PASS)


class NvJitLinkTest(JudgeBase):
    """The same modules through the toolchain's libnvJitLink, in process: the same verdicts, lines and messages
    as ptxas (nvJitLink runs ptxas's front end and prints its diagnostics)."""

    def setUp(self):
        super().setUp()
        tc = toolchains.resolve()
        if not tc.nvjitlink:
            self.skipTest(f"toolchain {tc.name} has no nvJitLink library")
        self.lib = tc.nvjitlink

    def test_same_verdicts_as_ptxas(self):
        entries = [("t/a", CG4, "reject", "sm_90", "8.6"), ("t/ok", CA4, "reject", "sm_90", "8.6"),
                   ("t/f", D6, "reject", "sm_90", "8.6"), ("t/b", CA3, "reject", "sm_90", "8.6")]
        m = minimanifest.write(os.path.join(self.tmp.name, "m"), "t", entries)
        asm = modules.Assembler(m, use_generator=False)
        by_ptxas = judge.Judge(backends.Ptxas(self.ptxas), asm).chunk("sm_90", "sm_90", "8.6", m.cases)
        by_jit = judge.Judge(backends.NvJitLink(self.lib), asm).chunk("sm_90", "sm_90", "8.6", m.cases)
        self.assertEqual({k: o.verdict for k, o in by_jit.items()}, {k: o.verdict for k, o in by_ptxas.items()})
        self.assertEqual(by_jit["t/ok@sm_90.ptx86"].verdict, judge.ACCEPTED)
        self.assertEqual(by_jit["t/a@sm_90.ptx86"].verdict, judge.REJECTED)
        self.assertEqual({k: o.messages for k, o in by_jit.items()}, {k: o.messages for k, o in by_ptxas.items()})

    def test_unknown_library_is_a_backend_error(self):
        with self.assertRaises(backends.BackendError):
            backends.NvJitLink(os.path.join(self.tmp.name, "libnope.so"))
        with self.assertRaises(backends.BackendError):
            backends.NvJitLink(None)


class ValidModuleTest(JudgeBase):
    def test_isolates_exactly_the_rejected_valid_cases(self):
        entries = [(f"t/v{i:02d}", CA3 if i in (3, 7) else CA4, "accept", "sm_80", "7.8") for i in range(10)]
        m, j, out = self.judge(entries, "sm_80", "7.8")
        rejected = sorted(k for k, o in out.items() if o.verdict == judge.REJECTED)
        self.assertEqual(rejected, ["t/v03@sm_80.ptx78", "t/v07@sm_80.ptx78"])
        self.assertTrue(all(o.verdict == judge.ACCEPTED for k, o in out.items() if k not in rejected))
        self.assertEqual(j.calls, 2)

    def test_warning_is_recorded_not_a_rejection(self):
        _, _, out = self.judge([("t/mc", MC, "accept", "sm_90", "8.6")], "sm_90", "8.6")
        o = out["t/mc@sm_90.ptx86"]
        self.assertEqual(o.verdict, judge.ACCEPTED)
        self.assertTrue(any(d["severity"] == "warning" and "Advisory" in d["message"] for d in o.diags))

    def test_error_naming_an_entry_but_no_line(self):
        """`Entry function 'k_..' uses too much shared data` has no line: it goes to the entry it names."""
        big = ["{", ".shared .align 8 .b8 big[300000];", "mov.u32 %r3, big;", "st.shared.u32 [%r3], %r3;", "}"]
        entries = [("t/a", CA4, "accept", "sm_90", "8.6"), ("t/big", CA4, "accept", "sm_90", "8.6", big),
                   ("t/c", CA4, "accept", "sm_90", "8.6")]
        _, _, out = self.judge(entries, "sm_90", "8.6")
        self.assertEqual(out["t/big@sm_90.ptx86"].verdict, judge.REJECTED)
        self.assertEqual(out["t/big@sm_90.ptx86"].diags[0]["where"], "entry")
        self.assertEqual(out["t/a@sm_90.ptx86"].verdict, judge.ACCEPTED)
        self.assertEqual(out["t/c@sm_90.ptx86"].verdict, judge.ACCEPTED)

    def test_failure_without_a_line_is_bisected_to_the_case(self):
        """A ptxas that fails naming nothing (here: a wrapper that fails on one marker) is isolated by bisection."""
        wrapper = os.path.join(self.tmp.name, "ptxas-wrapper")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *.ptx) "
                    "if grep -q 'mov.u32 %r4, 77;' \"$a\"; then echo 'ptxas fatal   : internal error' >&2; exit 1; fi;; "
                    f"esac; done\nexec {self.ptxas} \"$@\"\n")
        os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IEXEC)
        entries = [(f"t/v{i}", CA4, "accept", "sm_80", "7.8", ["mov.u32 %r4, 77;"] if i == 5 else [])
                   for i in range(8)]
        _, _, out = self.judge(entries, "sm_80", "7.8", ptxas_path=wrapper)
        self.assertEqual(sorted(k for k, o in out.items() if o.verdict != judge.ACCEPTED), ["t/v5@sm_80.ptx78"])
        self.assertIn("internal error", out["t/v5@sm_80.ptx78"].diags[0]["message"])


class BrokenToolTest(JudgeBase):
    def test_a_ptxas_that_cannot_run_gives_a_harness_error_per_case(self):
        entries = [(f"t/v{i}", CA4, "accept", "sm_80", "7.8") for i in range(3)]
        _, _, out = self.judge(entries, "sm_80", "7.8", ptxas_path=os.path.join(self.tmp.name, "no-ptxas"))
        self.assertEqual({o.verdict for o in out.values()}, {judge.ERROR})
        self.assertTrue(all("FileNotFoundError" in o.note for o in out.values()))


class LineMapTest(JudgeBase):
    def test_spans_and_instruction_lines(self):
        entries = [("t/a", CA4, "accept", "sm_80", "7.8"), ("t/b", "@%p1 " + CG4, "accept", "sm_80", "7.8")]
        m = minimanifest.write(os.path.join(self.tmp.name, "m"), "t", entries)
        mod = modules.build(modules.Assembler(m, use_generator=False), "sm_80", "7.8", m.cases)
        self.assertIsNone(mod.owner(1), "the header belongs to no case")
        a, b = mod.spans
        self.assertTrue(mod.lines[a.first - 1].startswith("// form: t/a"))
        self.assertEqual(b.first, a.last + 1)
        self.assertEqual(len(a.instr_lines), 1)
        self.assertEqual(mod.lines[a.instr_lines[0] - 1].strip(), CA4)
        self.assertEqual(mod.lines[b.instr_lines[0] - 1].strip(), "@%p1 " + CG4)
        self.assertIs(mod.owner(a.last), a)
        self.assertIs(mod.owner(b.first), b)
        self.assertEqual(modules.opcode("@!%p2 " + CG4), "cp.async.cg.shared.global")



class MachineErrors(unittest.TestCase):
    """What the machine lacks stops the run (judge.MachineError); what a case's own call hits stays a harness error."""

    def test_machine_errnos_stop_the_run(self):
        import errno
        for code in (errno.EMFILE, errno.ENFILE, errno.ENOSPC, errno.EFBIG, errno.EROFS):
            e = judge.machine_error(OSError(code, os.strerror(code), "/tmp/x"))
            self.assertIsInstance(e, judge.MachineError)
            self.assertIn(f"/tmp/x: {os.strerror(code)}", str(e))

    def test_other_errors_are_the_cases(self):
        import errno
        self.assertIsNone(judge.machine_error(OSError(errno.ENOENT, "No such file or directory", "/tmp/x")))
        self.assertIsNone(judge.machine_error(ValueError("a bug")))


if __name__ == "__main__":
    unittest.main()
