"""The front-end mappings' decision per qualifier (QUALIFIERS of generator/ptxcts_gen/frontends/llvm.py and
cccl.py): one for every qualifier value of the model's vocabulary, each one what spell() does, and each "the
front-end's files never contain X" reason checked against the installed LLVM library and CCCL headers (those
checks skip where the front-end is not installed)."""
import contextlib
import io
import json
import os
import unittest

from ptxcts_gen import isa, model
from ptxcts_gen.frontends import MappingError, Spelling, Unexpressible, Written
from ptxcts_gen.frontends import cccl as cccl_map
from ptxcts_gen.frontends import cute_dsl as cute_dsl_map
from ptxcts_gen.frontends import llvm as llvm_map
from ptxcts_gen.frontends import table
from ptxcts_gen.frontends import triton as triton_map
from ptxcts_gen.rules import REQUIREMENTS, RULES
from ptxcts_gen.targets import ptx_key

import frontend
from frontend import cli

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
LLVM, NVRTC = "llvm-22", "nvrtc-13.5+cccl-3.5"


def _description(name):
    with open(os.path.join(ROOT, "toolchains", f"{name}.json")) as f:
        return json.load(f)


KNOWN = set(_description(LLVM)["intrinsics"])
MAPPINGS = {"llvm": (llvm_map, lambda f: llvm_map.spell(f, KNOWN)), "cccl": (cccl_map, cccl_map.spell),
            "triton": (triton_map, triton_map.spell),
            "cute-dsl": (cute_dsl_map, cute_dsl_map.spell)}
VOCABULARY = {mod.FAMILY: model.vocabulary_forms(mod) for mod in isa.families()}


class DecisionTableTest(unittest.TestCase):
    def test_every_qualifier_value_of_the_model_has_one_decision_per_frontend(self):
        vocab = table.vocabulary()
        self.assertGreater(len(vocab), 150)
        for name, (mapping, _) in MAPPINGS.items():
            keys = set(mapping.QUALIFIERS)
            self.assertEqual(sorted(vocab - keys, key=repr), [], f"{name}: qualifier values without a decision")
            self.assertEqual(sorted(keys - vocab, key=repr), [], f"{name}: decisions on values the model lacks")
            for key, d in mapping.QUALIFIERS.items():
                self.assertIsInstance(d, (Written, Unexpressible), f"{name}: {key}")
                self.assertTrue(d.how if isinstance(d, Written) else d.reason, f"{name}: {key}: empty")

    def test_the_ptx_9x_qualifiers_are_in_the_vocabulary(self):
        # the extension axes of every family (isa/<family>.py EXT_AXES) are qualifiers each front-end decides on
        for mod in isa.families():
            for axis, values in getattr(mod, "EXT_AXES", ()):
                for v in values:
                    self.assertIn((mod.FAMILY, axis, v), table.vocabulary())

    def test_ruled_out_values_are_carried_only_by_forms_breaking_their_rule(self):
        for (family, axis, value), rule in table.RULED_OUT.items():
            self.assertIn(rule, RULES)
            carriers = [f for f in VOCABULARY[family] if f.quals.get(axis) == value]
            self.assertTrue(carriers, (family, axis, value))
            for f in carriers:
                self.assertIn(rule, f.invalid_by, f.id)
        # and every value no valid form carries is listed
        valid = {k for fs in VOCABULARY.values() for f in fs if f.valid for k in table.qualifiers_of(f.family, f.quals)}
        self.assertEqual(sorted(table.vocabulary() - valid, key=repr), sorted(table.RULED_OUT, key=repr))

    def test_a_refused_value_refuses_every_form_carrying_it_with_its_reason(self):
        for name, (mapping, spell) in MAPPINGS.items():
            refused = 0
            for fs in VOCABULARY.values():
                for f in fs:
                    if not f.valid and f.valid_from is None:
                        continue
                    first = next((mapping.QUALIFIERS[k] for k in table.qualifiers_of(f.family, f.quals)
                                  if isinstance(mapping.QUALIFIERS[k], Unexpressible)), None)
                    if first is not None:
                        refused += 1
                        self.assertEqual(spell(f), first, f"{name}: {f.id}")
            self.assertGreater(refused, 0, name)

    def test_a_written_value_is_written_in_some_valid_form(self):
        for name, (mapping, spell) in MAPPINGS.items():
            written = {k for k, d in mapping.QUALIFIERS.items() if isinstance(d, Written)}
            for fs in VOCABULARY.values():
                for f in fs:
                    if f.valid and isinstance(spell(f), Spelling):
                        written -= set(table.qualifiers_of(f.family, f.quals))
            self.assertEqual(sorted(written, key=repr), [], f"{name}: Written, yet no valid form with it is spelled")

    def test_the_frontends_write_ptx_9x_forms_as_measured(self):
        # LLVM 22 none (no intrinsic, and PTX ISA 9.0 at most); CCCL 3.5 the forms of the qualifiers it has
        # functions for: .ignore_oob, .mbarrier::report::validity::*, .multicast::cluster::32b, .L2::evict_last
        # (bulk and tensor prefetch), wait_group.sync_restrict::proxy::async; in the whole product (every valid
        # combination a form) 283 forms, each judged by the NVRTC tier with ptxas 13.5 on 2026-12-06: 463 cases,
        # 355 pass, 108 spec_divergence under reviewed findings, 0 fail (the selection before had 18 of them)
        later = [f for f in model.all_forms() if ptx_key(f.min_ptx) > ptx_key("9.0") and f.valid]
        self.assertEqual([f.id for f in later if isinstance(MAPPINGS["llvm"][1](f), Spelling)], [])
        cccl = sorted(f.id for f in later if isinstance(cccl_map.spell(f), Spelling))
        self.assertEqual(len(cccl), 283, cccl)
        for needle, n in (("/ignore_oob", 1), ("/mbarrier_report_validity", 225), ("/multicast_cluster_32b", 126),
                          ("L2_evict_last", 12), ("sync_restrict", 2)):
            self.assertEqual(sum(needle in fid for fid in cccl), n, needle)

    def test_a_value_without_a_decision_is_a_malformed_mapping(self):
        key = ("cp.async.bulk", "ignore_oob", True)
        saved = llvm_map.QUALIFIERS.pop(key)
        err = io.StringIO()
        try:
            with self.assertRaisesRegex(MappingError, "no decision for qualifier ignore_oob = True"):
                llvm_map.spell(next(f for f in model.all_forms() if f.quals.get("ignore_oob") and f.valid), KNOWN)
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                rc = cli.main(["coverage", "--frontend", LLVM])
        finally:
            llvm_map.QUALIFIERS[key] = saved
        self.assertEqual(rc, 3)
        self.assertIn("malformed mapping entry", err.getvalue())


class AbsentTextTest(unittest.TestCase):
    """Each Unexpressible decision's `absent` texts are not in the installed front-end's files, and the search
    finds what is there (the same search on a text the files do contain)."""

    def _absent(self, mapping):
        return [(k, text, where) for k, d in mapping.QUALIFIERS.items() if isinstance(d, Unexpressible)
                for text, where in d.absent]

    def test_llvm_library_never_prints_what_its_reasons_say(self):
        site = frontend.installed_dir(LLVM)
        if not site:
            self.skipTest(f"{LLVM} not installed")
        fe = frontend.resolve(LLVM)
        with open(fe.library, "rb") as f:
            lib = f.read()
        self.assertIn(b"cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster", lib)
        checked = self._absent(llvm_map)
        self.assertGreater(len(checked), 20)
        for key, text, where in checked:
            self.assertEqual(where, ("library",), key)
            self.assertNotIn(text.encode(), lib, key)

    def test_llvm_writes_no_ptx_version_of_a_refused_later_qualifier(self):
        newest = max(_description(LLVM)["ptx_versions"], key=ptx_key)
        for key, d in llvm_map.QUALIFIERS.items():
            if isinstance(d, Unexpressible) and "PTX ISA 9.0 at most" in d.reason:
                self.assertEqual(newest, "9.0")
                v = d.reason.split("(PTX ISA ", 1)[1].split(")", 1)[0]
                self.assertIn(v, {r.ptx for r in REQUIREMENTS.values()})
                self.assertGreater(ptx_key(v), ptx_key(newest), key)

    def test_cccl_headers_never_contain_what_its_reasons_say(self):
        if not frontend.installed_dir(NVRTC):
            self.skipTest(f"{NVRTC} not installed")
        gen = os.path.join(frontend.resolve(NVRTC).headers, "cuda", "__ptx", "instructions", "generated")
        text = {}

        def read(h):
            if h not in text:
                with open(os.path.join(gen, h)) as f:
                    text[h] = f.read()
            return text[h]

        self.assertIn("ignore_oob", read("cp_async_bulk.h"))
        self.assertIn("multicast::cluster::32b", read("cp_async_bulk_multicast.h"))
        checked = self._absent(cccl_map)
        self.assertGreater(len(checked), 10)
        for key, needle, where in checked:
            for h in where:
                self.assertNotIn(needle, read(h), (key, h))


if __name__ == "__main__":
    unittest.main()
