"""CTest selftest.confirm (CPU): a class change seen only beside other workers is not a catch until the case is run
again alone; the confirmation runs one case per such form and its verdict replaces the first. And the run tier's
refusal of an input reaches the self-test's caller as the run tier's own exit code and message. And the lowering
tier's self-test keeps what it measured when a signal lands after its judging ended."""
import argparse
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

HARNESS = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [HARNESS, os.path.join(os.path.dirname(HARNESS), "generator")]   # framework, ptxcts_gen

from framework import boundary  # noqa: E402
from selftest.runs import changed, confirm_alone, run_tier, staged  # noqa: E402

BESIDE = {"beside_other_workers": True}


def case(cls, **details):
    return {"class": cls, "details": details}


class Confirm(unittest.TestCase):
    def setUp(self):
        self.clean = {(f"{f}#{i}", "cubin"): case("pass") for f in "abcd" for i in (1, 2)}
        self.keys = {f: [(f"{f}#1", "cubin"), (f"{f}#2", "cubin")] for f in "abcd"}
        self.faulty = {
            ("a#1", "cubin"): case("fail"), ("a#2", "cubin"): case("crash", **BESIDE),   # caught by a fail
            ("b#1", "cubin"): case("crash", **BESIDE), ("b#2", "cubin"): case("crash", **BESIDE),
            ("c#1", "cubin"): case("pass"), ("c#2", "cubin"): case("timeout", **BESIDE),
            ("d#1", "cubin"): case("pass"), ("d#2", "cubin"): case("skipped"),
        }

    def test_changed_splits_confirmed_from_beside(self):
        self.assertEqual(changed(self.keys["a"], self.clean, self.faulty), ([("a#1", "cubin")], [("a#2", "cubin")]))
        self.assertEqual(changed(self.keys["b"], self.clean, self.faulty)[0], [])
        self.assertEqual(changed(self.keys["d"], self.clean, self.faulty), ([], []))   # skipped is no change

    def test_confirm_runs_one_case_per_unconfirmed_form(self):
        asked = []

        def run(out, ids):
            asked.append(sorted(ids))
            # alone, b's first case still crashes (its own trap); c's timeout was another kernel's doing
            return {("b#1", "cubin"): case("crash"), ("c#2", "cubin"): case("pass")}, {}

        info = confirm_alone("/nonexistent", self.keys, self.clean, self.faulty, run)
        self.assertEqual(asked, [["b#1", "c#2"]])
        self.assertEqual(info["cases"], 2)
        self.assertEqual(changed(self.keys["b"], self.clean, self.faulty)[0], [("b#1", "cubin")])
        self.assertEqual(changed(self.keys["c"], self.clean, self.faulty), ([], []))
        self.assertEqual(self.faulty[("c#2", "cubin")]["details"]["first_beside_others"]["class"], "timeout")

    def test_nothing_to_confirm_runs_nothing(self):
        def run(out, ids):
            raise AssertionError("nothing needed confirming")
        faulty = {k: case("fail") for k in self.clean}
        self.assertEqual(confirm_alone("/nonexistent", self.keys, self.clean, faulty, run)["cases"], 0)


class Staged(unittest.TestCase):
    def test_second_cases_only_for_forms_not_caught(self):
        clean = {(f"{f}#{i}", "cubin"): case("pass") for f in "abc" for i in (1, 2)}
        keys = {f: [(f"{f}#1", "cubin"), (f"{f}#2", "cubin")] for f in "abc"}
        # a: caught by its first case; b: its first case crashes only beside other workers, alone it passes,
        # its second fails; c: never caught
        device = {"a#1": "fail", "a#2": "fail", "b#1": "crash", "b#2": "fail", "c#1": "pass", "c#2": "pass"}
        calls = []

        def run(out, ids, alone):
            calls.append((sorted(ids), alone))
            got = {}
            for i in ids:
                cls = device[i]
                if i == "b#1":
                    got[(i, "cubin")] = case("pass") if alone else case("crash", **BESIDE)
                else:
                    got[(i, "cubin")] = case(cls)
            return got, {"timing": [{"batch_s": 1.0, "rerun_alone": 0, "rerun_s": 0, "traps": 0, "trap_s": 0}]}

        faulty, timing = staged("/nonexistent/k", keys, clean, run)
        self.assertEqual(calls, [(["a#1", "b#1", "c#1"], False), (["b#1"], True), (["b#2", "c#2"], False)])
        self.assertEqual(timing["stages"], 2)
        self.assertEqual(timing["confirm_alone"], 1)
        self.assertEqual(changed(keys["b"], clean, faulty)[0], [("b#2", "cubin")])
        self.assertEqual(changed(keys["c"], clean, faulty), ([], []))


class RunTierRefuses(unittest.TestCase):
    """run_tier with a stand-in ptxcts-run (PTXCTS_BUILD/harness/run/ptxcts-run) that exits with a given code."""

    def run_tier_exiting(self, code, message):
        with tempfile.TemporaryDirectory() as build:
            exe = os.path.join(build, "harness", "run", "ptxcts-run")
            os.makedirs(os.path.dirname(exe))
            with open(exe, "w") as f:
                f.write(f"#!/bin/sh\necho progress >&2\necho '{message}' >&2\nexit {code}\n")
            os.chmod(exe, 0o755)
            with mock.patch.dict(os.environ, {"PTXCTS_BUILD": build}):
                return run_tier(os.path.join(build, "out"), ["cp.async"], 1, 1)

    def test_usage_error_keeps_exit_2_and_the_message(self):
        with self.assertRaises(boundary.VerbError) as e:
            self.run_tier_exiting(2, "ptxcts-run: --seed x: expected a decimal integer")
        self.assertEqual(e.exception.code, 2)
        self.assertIn("(exit 2): ptxcts-run: --seed x: expected a decimal integer", str(e.exception))

    def test_malformed_file_keeps_exit_3(self):
        with self.assertRaises(boundary.VerbError) as e:
            self.run_tier_exiting(3, "ptxcts-run: m.tsv:3: a case listed twice")
        self.assertEqual(e.exception.code, 3)
        self.assertIn("m.tsv:3: a case listed twice", str(e.exception))

    def test_no_document_after_another_exit_is_a_failure(self):
        with self.assertRaises(SystemExit) as e:
            self.run_tier_exiting(1, "ptxcts-run: something else")
        self.assertIn("the run tier wrote no results (exit 1)", str(e.exception.code))



class LowerTierSignal(unittest.TestCase):
    """selftest --tier lower (lower_catch.main): a signal that lands once the judging has ended (in catch's totals,
    on its return, before the document is opened) still writes what was measured, marked interrupted, and exits
    128 + the signal's number; one that lands before anything was measured writes nothing."""

    def main(self, catch, out):
        from selftest import lower_catch
        a = argparse.Namespace(kind=["redop"], target=["sm_90"], family=[], out=out, jobs=1, toolchain=None,
                               nvdisasm=None, resume=None, ptx=None)
        with mock.patch.object(lower_catch, "catch", catch), \
                mock.patch.object(boundary, "signal_name", return_value="SIGINT"), \
                mock.patch.object(boundary, "interrupt_exit_code", return_value=130):
            return lower_catch.main(a)

    def test_a_signal_after_the_judging_keeps_the_report(self):
        def judged_then_signalled(*args, into, **kw):
            counts = {"planted": 2, "refused": 0, "caught": 2, "equivalent": 0, "not_judged": 0, "unruled": 0,
                      "holes": 0, "plants": []}
            into.update({"schema": "ptxcts-selftest-lower", "toolchain": "13.0 (ptxas 13.0.88)", "nvdisasm": "13.0",
                         "targets": {"sm_90": {"kinds": {"redop": counts}}}, "kinds": {}})
            raise KeyboardInterrupt   # as the signal does, after the judging loop's own handler
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "st")
            self.assertEqual(self.main(judged_then_signalled, out), 130)
            with open(os.path.join(out, "selftest-lower.json")) as f:
                doc = json.load(f)
        self.assertEqual(doc["interrupted"], "interrupted by SIGINT")
        self.assertEqual(doc["kinds"]["redop"]["caught"], 2)
        self.assertNotIn("t0", doc)
        self.assertGreaterEqual(doc["seconds"], 0)

    def test_a_signal_before_anything_was_measured_writes_nothing(self):
        def signalled(*args, into, **kw):
            raise KeyboardInterrupt
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "st")
            with self.assertRaises(KeyboardInterrupt):
                self.main(signalled, out)
            self.assertFalse(os.path.exists(out))

if __name__ == "__main__":
    unittest.main()
