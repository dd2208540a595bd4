#!/usr/bin/env python3
"""CTest layout.pointers: tests are filed by what they test, and comments point at functions and rules.

Fails when
  - a file of a test folder is named after how a test was found rather than what it tests: a mutation seed
    ("..._seed5.cpp"), an issue ("..._issue12.py") or the mutation tool's holes ("test_mutation_holes_...");
  - a line of code, a comment or a template of the repository carries a pointer that drifts: a line number after
    a file name (FILE.cpp:NN, FILE.py:NN-MM) or an issue number of a tracker that is not in the repository.

The mutation seeds and their samples belong to results/selftest/, which is not scanned (a committed result may
name the tree it measured), nor are generated/ (written by the generator from the scanned templates) and docs.
"""
import os
import re
import sys
import unittest

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
SCANNED = ["harness", "generator", "templates", "scripts", "toolchains", ".ci", "CMakeLists.txt", "ptxcts"]
SKIP_DIRS = {"__pycache__", "fixtures", ".git"}
TEXT_SUFFIXES = (".py", ".cpp", ".hpp", ".h", ".cu", ".cuh", ".j2", ".cmake", ".txt", ".sh", ".toml", ".in", ".md")

# Spelled in pieces so that this file does not match itself.
# Source files only: a message that names a line of a user's input file (bad.toml:6: ...) is output, not a pointer.
EXT = r"(?:cpp|hpp|h|cu|cuh|py|j2|cmake|sh)"
LINE_POINTER = re.compile(r"\b[\w./-]+\." + EXT + r":\d+")
ISSUE_POINTER = re.compile(r"\b" + "iss" + r"ues?\s+#?\d+|\(#\d+\)", re.IGNORECASE)
FOUND_BY_NAME = re.compile(r"(?:seed|iss" + r"ue)[_-]?\d+|mutation_holes", re.IGNORECASE)


def files():
    for top in SCANNED:
        path = os.path.join(ROOT, top)
        if os.path.isfile(path):
            yield path
            continue
        for dirpath, dirs, names in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(names):
                yield os.path.join(dirpath, name)


def pointers(text):
    """(line number, matched text) of each drifting pointer in text."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        for rx in (LINE_POINTER, ISSUE_POINTER):
            out += [(n, m.group(0)) for m in rx.finditer(line)]
    return out


def in_test_folder(path):
    rel = os.path.relpath(path, ROOT).split(os.sep)
    return "tests" in rel[:-1] or rel[-1].startswith("test_")


class Pointers(unittest.TestCase):
    def test_the_patterns_catch_what_they_should(self):
        self.assertEqual([p for _, p in pointers("// Kills tensormap.cpp" ":205 'p.rank > 5'")],
                         ["tensormap.cpp" ":205"])
        self.assertEqual(len(pointers("# see waivers.py" ":87-91")), 1)
        self.assertEqual(len(pointers('"""The run tier (iss' 'ue 10 part 3)."""')), 1)
        self.assertEqual(pointers("// swizzle line 3: chunk 1 ^ 3 = 2; host_faults.hpp names the kind"), [])
        self.assertEqual(pointers('"bad.toml:6: unknown key"'), [])
        self.assertTrue(FOUND_BY_NAME.search("test_mutation_holes_seed5.cpp"))
        self.assertFalse(FOUND_BY_NAME.search("test_tensor_tile.cpp"))

    def test_no_test_file_is_named_after_a_seed_or_an_issue(self):
        bad = [os.path.relpath(p, ROOT) for p in files()
               if in_test_folder(p) and FOUND_BY_NAME.search(os.path.basename(p))]
        self.assertEqual(bad, [], "name the file after the behaviour its tests check")

    def test_no_line_or_issue_pointers(self):
        bad = []
        for path in files():
            if not path.endswith(TEXT_SUFFIXES) and os.path.basename(path) != "ptxcts":
                continue
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except UnicodeDecodeError:
                continue
            bad += [f"{os.path.relpath(path, ROOT)}:{n}: {p}" for n, p in pointers(text)]
        self.assertEqual(bad, [], "point at the function or rule instead:\n" + "\n".join(bad))


if __name__ == "__main__":
    sys.exit(unittest.main())
