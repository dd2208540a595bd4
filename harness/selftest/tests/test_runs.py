"""CTest selftest.confirm (CPU): a class change seen only beside other workers is not a catch until the case is run
again alone; the confirmation runs one case per such form and its verdict replaces the first."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from selftest.runs import changed, confirm_alone, staged  # noqa: E402

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


if __name__ == "__main__":
    unittest.main()
