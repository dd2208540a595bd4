#!/usr/bin/env python3
"""CTest selftest.lower_9x (CPU): the lowering tier's catch of the fault kinds of the PTX ISA 9.2-9.5 qualifiers.

The kinds (ptxcts_gen.faults: scope, relaxed, multicast, report, sync_restrict, evict_last, and the ones the lowering
cannot or need not catch: ignore_oob, mc_width, ignore_bytes, noftz) are planted into the run tier's kernels of the curated
forms (not the whole product's combinations: lower_catch.catch whole_product=False) at PTX ISA 9.5 exactly as the run-tier self-test plants them (selftest/plants.py plant_kind), assembled with ptxas 13.5 for
sm_90a (the H200's) and sm_107a (where .mbarrier::report, ::32b and .L2::evict_last exist), and judged by the
original form's lowering rules (selftest/lower_catch.py). Required:
* scope, relaxed, multicast, sync_restrict at both targets, report and evict_last at sm_107a: every plant caught
  (verdict fail), none refused, each unplanted form passing and the planted SASS differing from it;
* ignore_oob and mc_width: every plant equivalent by the chapter, and its SASS the unplanted one's (the claim holds);
* ignore_bytes: out of the rules' reach (an operand value), and the SASS the unplanted one's: ptxas 13.5 drops the
  ignore counts (results/findings/toolchains.md);
* noftz: not judged: .add.f32 lowers to the very instruction of .add.noftz.f32 (ptxas 13.5), whose add keeps
  subnormals on the H100 and the H200, so the planted SASS is the unplanted one's (results/findings/toolchains.md).
Exit 77 (skipped) without nvdisasm or toolchain 13.5 (./ptxcts toolchains install 13.5).
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]

from selftest import lower_catch  # noqa: E402

TOOLCHAIN, PTX, TARGETS = "13.5", "9.5", ("sm_90a", "sm_107a")
CAUGHT = {"scope": TARGETS, "relaxed": TARGETS, "multicast": TARGETS, "sync_restrict": TARGETS,
          "report": ("sm_107a",), "evict_last": ("sm_107a",)}
EQUIVALENT = ("ignore_oob", "mc_width")
SAME_SASS = ("ignore_bytes", "noftz")
KINDS = tuple(CAUGHT) + EQUIVALENT + SAME_SASS
FAMILIES = ("cp.async.bulk", "cp.reduce.async.bulk", "cp.async.bulk.tensor", "cp.async.bulk.prefetch",
            "cp.async.bulk.prefetch.tensor", "cp.async.bulk.groups")
REPORT = None


class Lower9x(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        global REPORT
        if REPORT is None:
            REPORT = lower_catch.catch(KINDS, TARGETS, FAMILIES, toolchain=TOOLCHAIN, ptx=PTX, whole_product=False,
                                       progress=lambda line: print(line, flush=True))
        cls.r = REPORT
        print(f"toolchain {cls.r['toolchain']}, nvdisasm {cls.r['nvdisasm']}, PTX {cls.r['ptx']}, "
              f"{cls.r['seconds']} s", flush=True)

    def kind(self, target, kind):
        return self.r["targets"][target]["kinds"][kind]

    def test_caught_kinds_are_caught_every_time(self):
        for k, targets in CAUGHT.items():
            for t in targets:
                r = self.kind(t, k)
                with self.subTest(kind=k, target=t):
                    self.assertGreater(r["planted"], 0, f"{k}: nothing planted at {t}")
                    self.assertEqual((r["refused"], r["caught"]), (0, r["planted"]),
                                     f"{k} at {t}: {r['caught']} of {r['planted']} caught: "
                                     + "; ".join(f"{p['form']}: {p['class']} ({p['why']})" for p in r["plants"]
                                                 if p["class"] != "caught"))
                    for p in r["plants"]:
                        self.assertEqual(p["clean_verdict"], "pass", p["form"])
                        self.assertNotEqual(p["key"], p["clean_key"], f"{p['form']}: the plant must change the SASS")
                        self.assertTrue(p["message"], "a fail names the rule it contradicts")

    def test_sm_107_only_kinds_plant_nothing_at_sm_90a(self):
        for k in ("report", "evict_last"):
            self.assertEqual(self.kind("sm_90a", k)["planted"], 0, f"{k} forms need sm_107f+")

    def test_equivalent_kinds_leave_the_sass_as_it_was(self):
        for k in EQUIVALENT:
            for t in TARGETS:
                r = self.kind(t, k)
                with self.subTest(kind=k, target=t):
                    self.assertGreater(r["planted"], 0)
                    self.assertEqual(r["equivalent"], r["planted"], [p["why"] for p in r["plants"]])
                    for p in r["plants"]:
                        self.assertEqual((p["clean_verdict"], p["key"]), ("pass", p["clean_key"]), p["form"])

    def test_ignore_bytes_and_noftz_cannot_reach_the_sass(self):
        for t in TARGETS:
            for k, why in (("ignore_bytes", "an operand value"), ("noftz", "the lowering key is the unplanted one's")):
                r = self.kind(t, k)
                with self.subTest(kind=k, target=t):
                    self.assertGreater(r["planted"], 0)
                    self.assertEqual(r["not_judged"], r["planted"])
                    for p in r["plants"]:
                        self.assertIn(why, p["why"])
                        self.assertEqual(p["key"], p["clean_key"], p["form"])
                        self.assertEqual((p["clean_verdict"], p["verdict"]), ("pass", "pass"), p["form"])


def main():
    from framework import toolchains
    from framework.toolchains import nvdisasm as disasm
    try:
        lower_catch._tools(TOOLCHAIN)
    except (disasm.DisasmError, toolchains.ToolchainError) as e:
        print(f"skipped: {e}")
        return 77
    return 0 if unittest.main(module=__name__, verbosity=2, exit=False).result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
