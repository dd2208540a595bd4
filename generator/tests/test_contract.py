"""The generator -> harness contract (generator/ptxcts_gen/contract.py): every run field the generator writes is
declared, typed and read by a tier (or says why none needs it); the run tier names fields only through the
contract and never parses a form ID; the frame template takes its word offsets from the contract."""
import glob
import json
import os
import re
import unittest

from ptxcts_gen import contract
from ptxcts_gen.model import all_forms

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# The C++ that reads forms: the core of running a case, the run tier and the exploration tier (its draws build the
# same run fields).
RUN_SRC = [os.path.join(ROOT, "harness", d, "src") for d in ("runcore", "run", "explore")]


def run_sources():
    out = {}
    for p in sorted(p for d in RUN_SRC for p in glob.glob(os.path.join(d, "**", "*.[ch]pp"), recursive=True)):
        with open(p) as fh:
            out[os.path.basename(p)] = fh.read()
    return out


class Fields(unittest.TestCase):
    def test_every_field_read_or_informational(self):
        text = "\n".join(run_sources().values())
        for name, (kind, reader, meaning) in contract.FIELDS.items():
            self.assertTrue(meaning, name)
            if reader == "run":
                self.assertTrue(re.search(r"field::" + name + r"\b", text),
                                 f"run.{name} is declared read by the run tier, but none of harness/runcore/src, "
                                 f"harness/run/src, harness/explore/src names field::{name}; read it, or mark it "
                                 f"'info: <why no tier needs it>'")
            else:
                self.assertTrue(reader.startswith("info: ") and len(reader) > 12,
                                f"run.{name}: reader must be 'run' or 'info: <why no tier needs it>'")

    def test_every_written_field_declared(self):
        seen = set()
        for f in all_forms():
            contract.check_form(f.id, f.abi, f.run)  # raises naming the form and the field
            seen |= set(f.run)
        self.assertEqual(sorted(set(contract.FIELDS) - seen), [], "declared fields no form writes")

    def test_check_names_form_and_field(self):
        run = {"cache_hint": False, "size": "args"}
        with self.assertRaisesRegex(ValueError, r"x/y: run\.size = 'sixteen'"):
            contract.check_form("x/y", "v1.prefetch", dict(run, size="sixteen"))
        with self.assertRaisesRegex(ValueError, r"x/y: run\.bogus is not a field of ABI v1.prefetch"):
            contract.check_form("x/y", "v1.prefetch", dict(run, bogus=1))
        with self.assertRaisesRegex(ValueError, r"x/y: run\.cache_hint is required"):
            contract.check_form("x/y", "v1.prefetch", {"size": 16})
        t = next(f for f in all_forms() if f.run.get("load_mode") == "tile")
        with self.assertRaisesRegex(ValueError, "run.load_mode 'tiles' is not one of"):
            contract.check_form(t.id, t.abi, dict(t.run, load_mode="tiles"))

    def test_run_tier_reads_fields_only_by_contract_name(self):
        for name, text in run_sources().items():
            self.assertIsNone(re.search(r'run_(str|int|bool)\(\s*\w+\s*,\s*"', text),
                              f"{name}: a run field named by a string literal; use field::<name>")
            self.assertIsNone(re.search(r'\.form\.(find|substr|rfind)\(|\.abi\.(find|substr|rfind)\(', text),
                              f"{name}: parses a form ID or an ABI name; the contract carries the fact")


class Words(unittest.TestCase):
    def test_layout(self):
        w = dict(contract.words())
        self.assertEqual(len(w), 27)
        self.assertEqual((w["src"], w["coord0"], w["coord4"], w["im2col2"], w["waiters"]), (0, 14, 18, 21, 24))
        # the words of PTX ISA 9.x qualifiers come after the chapter's, which keep their places
        self.assertEqual((w["ignore_left"], w["ignore_right"]), (25, 26))

    def test_kernels_of_the_chapter_name_only_its_words(self):
        self.assertTrue(contract.words_comment().endswith("24 waiters"), contract.words_comment())

    def test_templates_use_contract_offsets(self):
        for p in glob.glob(os.path.join(ROOT, "templates", "*.j2")):
            with open(p) as fh:
                self.assertNotRegex(fh.read(), r"\[%args\+\d", f"{p}: an args word offset spelled as a number")

    def test_header_lists_every_word(self):
        from ptxcts_gen import contract_cpp
        h = contract_cpp.header()
        for name, k in contract.words():
            self.assertIn(f"W_{name.upper()} = {k},", h)


class Tables(unittest.TestCase):
    def test_load_modes_cover_the_isa(self):
        modes = {f.run["load_mode"] for f in all_forms() if "load_mode" in f.run}
        self.assertEqual(modes - set(contract.LOAD_MODES) - set(contract.UNMODELLED_LOAD_MODES), set())

    def test_unmodelled_load_modes_are_not_run_modes_and_say_why(self):
        # a mode of a later text without a ref::TensorMode: never in LOAD_MODES (the C++ table), always a reason
        self.assertEqual(set(contract.UNMODELLED_LOAD_MODES) & set(contract.LOAD_MODES), set())
        for mode, why in contract.UNMODELLED_LOAD_MODES.items():
            self.assertTrue(why.strip(), mode)

    def test_load_modes_name_the_models_tensor_modes(self):
        # contract.LOAD_MODES derives each ref::TensorMode enumerator from the spelling (ref_tensor_mode); the
        # model's own names are the strings of to_string(TensorMode) in harness/refmodel/src.
        names = set()
        for path in glob.glob(os.path.join(ROOT, "harness", "refmodel", "src", "*.cpp")):
            with open(path) as f:
                names |= set(re.findall(r"case TensorMode::(\w+): return \"(\w+)\";", f.read()))
        self.assertTrue(names, "no to_string(TensorMode) found in harness/refmodel/src")
        self.assertTrue(all(enum == text for enum, text in names))
        self.assertEqual(set(contract.LOAD_MODES.values()), {text for _, text in names})

    def test_type_cells_agree_with_types(self):
        for f in all_forms():
            cells = f.run.get("type_cells")
            if cells is None:
                continue
            self.assertEqual(sorted(t for t, v in cells.items() if v == "allowed"), sorted(f.run["types"]), f.id)


if __name__ == "__main__":
    unittest.main()
