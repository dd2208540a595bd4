#!/usr/bin/env python3
"""The project's structure rules (CTest label `structure`, CPU only, no build needed):

- no two modules of the harness's C++ include each other, directly or around a longer loop (structure.py);
- the run tier's folders are floors: core, testbeds, worker, session, each including only itself and those below;
- no code folder holds more than 20 files or 25 % of the code's lines;
- the Python floor: one version, the one the top-level CMakeLists.txt asks for, which every Python file's syntax
  keeps to and which the standard modules the code imports need.
"""
import ast
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import structure  # noqa: E402

MAX_FILES = 20
MAX_SHARE = 0.25
# Folders over the limits, each with why it is allowed for now. A folder that comes back under them must leave the
# list (the test says so), so the list only shrinks.
OVER_LIMIT = {
    "harness/results": "the results layer's modules (report, gate, diff, merge, bundle, schema, known findings, "
                       "renderers); the renderers move into a package of their own with the report's templates",
}
# Standard modules new in a Python version: the floor must be at least the newest the code imports.
STDLIB_SINCE = {"tomllib": (3, 11), "zoneinfo": (3, 9), "graphlib": (3, 9)}


def python_floor():
    """(major, minor) of find_package(Python3 X.Y ...) in the top-level CMakeLists.txt."""
    text = open(os.path.join(structure.ROOT, "CMakeLists.txt"), encoding="utf-8").read()
    m = re.search(r"find_package\(Python3\s+(\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


class IncludeGraph(unittest.TestCase):
    def test_no_two_modules_include_each_other(self):
        graph, why = structure.include_graph(structure.tracked_files())
        self.assertGreater(len(graph), 50, "the include graph is nearly empty: the scan found no C++ files")
        found = structure.cycles(graph)
        self.assertEqual(found, [], "modules that include each other (move what both need into a lower header):\n" +
                         "\n".join(structure.describe_cycle(c, why) for c in found))

    def test_a_cycle_is_found(self):
        """The scan itself: a pair of modules including each other through a header and a source is a cycle."""
        graph = {("harness/x", "a"): {("harness/x", "b")}, ("harness/x", "b"): {("harness/x", "a")},
                 ("harness/x", "c"): {("harness/x", "a")}}
        self.assertEqual(structure.cycles(graph), [[("harness/x", "a"), ("harness/x", "b")]])


# The run tier's floors, lowest first (harness/run/README.md).
RUN_FLOORS = ["core", "testbeds", "worker", "session"]


class RunTierFloors(unittest.TestCase):
    def test_no_include_runs_up_a_floor(self):
        _, why = structure.include_graph(structure.tracked_files())
        prefix = "harness/run/src/"
        floor = lambda f: RUN_FLOORS.index(f[len(prefix):].split("/")[0])  # noqa: E731
        seen, up = 0, []
        for pairs in why.values():
            for f, t in pairs:
                if f.startswith(prefix) and t.startswith(prefix):
                    seen += 1
                    if floor(t) > floor(f):
                        up.append(f"{f} includes {t}")
        self.assertGreater(seen, 50, "no includes between run-tier files found")
        self.assertEqual(up, [], "includes that run up a floor (move the shared part down):\n" + "\n".join(up))


class Folders(unittest.TestCase):
    def test_no_folder_over_the_limits(self):
        table = structure.folders(structure.tracked_files())
        total = sum(lines for _, lines in table.values())
        over = {d: (n, l) for d, (n, l) in table.items() if n > MAX_FILES or l > MAX_SHARE * total}
        self.assertEqual(sorted(set(over) - set(OVER_LIMIT)), [],
                         f"folders over {MAX_FILES} files or {MAX_SHARE:.0%} of {total} lines: "
                         f"{ {d: over[d] for d in sorted(set(over) - set(OVER_LIMIT))} }; split them by concern")
        self.assertEqual(sorted(set(OVER_LIMIT) - set(over)), [],
                         "these folders are within the limits now: remove them from OVER_LIMIT")


class PythonFloor(unittest.TestCase):
    def setUp(self):
        self.floor = python_floor()
        self.assertIsNotNone(self.floor, "CMakeLists.txt: no find_package(Python3 X.Y ...)")
        self.files = [f for f in structure.tracked_files() if f.endswith(".py") or f == "ptxcts"]

    def test_every_cmake_project_asks_for_the_same_floor(self):
        for f in structure.tracked_files():
            if os.path.basename(f) == "CMakeLists.txt":
                text = open(os.path.join(structure.ROOT, f), encoding="utf-8").read()
                for m in re.finditer(r"find_package\(Python3\s+(\d+)\.(\d+)", text):
                    self.assertEqual((int(m.group(1)), int(m.group(2))), self.floor, f)

    def test_the_entry_point_refuses_an_older_python(self):
        text = open(os.path.join(structure.ROOT, "ptxcts"), encoding="utf-8").read()
        self.assertTrue(f"sys.version_info < {self.floor}" in text, f"./ptxcts does not check sys.version_info < "
                        f"{self.floor} before it starts a verb")

    def test_syntax_keeps_to_the_floor(self):
        for f in self.files:
            src = open(os.path.join(structure.ROOT, f), encoding="utf-8").read()
            try:
                ast.parse(src, filename=f, feature_version=self.floor)
            except SyntaxError as e:
                self.fail(f"{f}:{e.lineno}: not Python {self.floor[0]}.{self.floor[1]} syntax: {e.msg}")

    def test_floor_is_what_the_imports_need(self):
        needed = {}
        for f in self.files:
            tree = ast.parse(open(os.path.join(structure.ROOT, f), encoding="utf-8").read(), filename=f)
            for node in ast.walk(tree):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                for n in names:
                    top = n.split(".")[0]
                    if top in STDLIB_SINCE:
                        needed.setdefault(STDLIB_SINCE[top], set()).add(f"{f} ({top})")
        newest = max(needed, default=(3, 0))
        self.assertEqual(newest, self.floor,
                         f"the code needs Python {newest} ({sorted(needed.get(newest, []))[:3]}), CMakeLists.txt "
                         f"asks for {self.floor}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
