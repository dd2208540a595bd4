#!/usr/bin/env python3
"""CTest selftest.lower_completion (CPU): the lowering tier catches every completion fault, whatever the timing.

The completion kinds (wait_count, wait_read, arrive) are planted into the run tier's kernels exactly as the run-tier
self-test plants them (selftest/plants.py plant_kind), assembled for sm_90 and sm_80 and judged by the original form's
lowering rules (selftest/lower_catch.py). Required, with the toolchain under test (13.0 here):
* every plant caught (verdict fail) at sm_90, and at sm_80 for the cp.async forms (no bulk forms there);
* the catch is not an artefact: each form unplanted passes the same judge, the planted SASS differs from the
  unplanted, and the planted SASS at the test line passes the rules of the form the planted instruction is (the
  judge tells the two forms apart, it does not fail everything);
* every kind results/selftest/guarantees.toml says the lowering tier guarantees is caught 100 % here.
Exit 77 (skipped) without nvdisasm.
"""
import os
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]

from selftest import guarantees, lower_catch  # noqa: E402
from selftest.rates import COMPLETION_FAMILIES, COMPLETION_KINDS  # noqa: E402

REPORT = None


def counterpart(form, planted_line):
    """The manifest record of the form the planted test line is (instr and N read from the planted PTX; wait_all
    planted as commit_group + wait_group 1 is, at its test line, a wait_group 1), or None."""
    text = planted_line.split("//")[0].strip()
    m = re.match(r"(cp\.async(?:\.bulk)?\.wait_group(?:\.read)?) (\d+);", text)
    q = dict(form["quals"])
    if m:
        q.update(instr=m.group(1), n=int(m.group(2)))
    elif text.startswith("cp.async.mbarrier.arrive.noinc."):
        q.update(instr="cp.async.mbarrier.arrive.noinc")
    elif text.startswith("cp.async.mbarrier.arrive."):
        q.update(instr="cp.async.mbarrier.arrive")
    else:
        return None
    return dict(form, quals=q)


class LowerCompletion(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        global REPORT
        if REPORT is None:
            REPORT = lower_catch.catch(COMPLETION_KINDS, ("sm_90", "sm_80"), COMPLETION_FAMILIES,
                                       progress=lambda line: print(line, flush=True))
        cls.r = REPORT
        print(f"toolchain {cls.r['toolchain']}, nvdisasm {cls.r['nvdisasm']}, {cls.r['seconds']} s", flush=True)

    def kind(self, target, kind):
        return self.r["targets"][target]["kinds"][kind]

    def test_every_completion_plant_caught_at_sm_90(self):
        for k in COMPLETION_KINDS:
            r = self.kind("sm_90", k)
            with self.subTest(kind=k):
                self.assertGreater(r["planted"], 0, f"{k}: nothing planted at sm_90")
                self.assertEqual((r["refused"], r["caught"]), (0, r["planted"]),
                                 f"{k} at sm_90: {r['caught']} of {r['planted']} caught: "
                                 + "; ".join(f"{p['form']}: {p['class']} ({p['why']})" for p in r["plants"]
                                             if p["class"] != "caught"))
                self.assertEqual(lower_catch.rate(r), 100.0)

    def test_cp_async_plants_caught_at_sm_80(self):
        self.assertEqual(self.kind("sm_80", "wait_read")["planted"], 0, "no bulk wait at sm_80")
        for k in ("wait_count", "arrive"):
            r = self.kind("sm_80", k)
            with self.subTest(kind=k):
                self.assertGreater(r["planted"], 0)
                self.assertTrue(all(p["family"] == "cp.async.groups" for p in r["plants"]))
                self.assertEqual(r["caught"], r["planted"], [p["form"] for p in r["plants"] if p["class"] != "caught"])

    def test_unplanted_forms_pass_and_the_plant_changes_the_sass(self):
        for target, t in self.r["targets"].items():
            for k, r in t["kinds"].items():
                for p in r["plants"]:
                    with self.subTest(target=target, kind=k, form=p["form"]):
                        self.assertEqual(p["clean_verdict"], "pass", "the unplanted form must pass the same judge")
                        self.assertNotEqual(p["key"], p["clean_key"], "the plant must change the SASS")
                        self.assertNotEqual([p["was"]], p["planted"])
                        self.assertTrue(p["message"], "a fail names the rule it contradicts")

    def test_planted_sass_is_the_planted_form(self):
        # the planted SASS at the test line passes the rules of the instruction the plant wrote: the judge tells
        # the forms apart (a .read wait is DEPBAR alone, a plain one DEPBAR then CCTL.IVALL, ...)
        from framework.lowering import judge as judgemod
        from framework.toolchains.sass import Instr
        from framework import manifest
        m = manifest.load(manifest.default_dir())
        checked, plants = 0, 0
        for target, t in self.r["targets"].items():
            for k, r in t["kinds"].items():
                for p in r["plants"]:
                    plants += 1
                    other = counterpart(m.form(p["form"]), p["planted"][-1])
                    if other is None:
                        continue
                    instrs = [Instr(0, text, 1) for text in p["sass_test_line"]]
                    with self.subTest(target=target, kind=k, form=p["form"]):
                        v = judgemod.judge(other, instrs, target=target)
                        self.assertEqual(v.cls, "pass", f"{p['planted'][-1]} at {target}: {v.message}")
                        checked += 1
        self.assertEqual(checked, plants, "every completion plant is judged against the form it planted")

    def test_guarantees_file_agrees(self):
        kinds = guarantees.load()
        for k in COMPLETION_KINDS:
            self.assertIn(k, kinds, f"results/selftest/guarantees.toml has no entry for {k}")
        for k, e in kinds.items():
            with self.subTest(kind=k):
                if guarantees.timing_dependent(e):
                    self.assertIn("lower", e["guaranteed_by"], f"{k} is timing-dependent on silicon")
                if "lower" in e["guaranteed_by"]:
                    self.assertIn(k, COMPLETION_KINDS, "this test measures the completion kinds only")
                    r = self.kind("sm_90", k)
                    self.assertEqual(r["caught"], r["planted"], f"{k}: the file says the lowering tier guarantees it")


def main():
    from framework.toolchains import nvdisasm as disasm
    try:
        lower_catch._tools()
    except disasm.DisasmError as e:
        print(f"skipped: {e}")
        return 77
    return 0 if unittest.main(module=__name__, verbosity=2, exit=False).result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
