#!/usr/bin/env python3
"""The project's structure rules (CTest label `structure`, CPU only, no build needed):

- no two modules of the harness's C++ include each other, directly or around a longer loop (structure.py);
- the C++ layers are floors (the table "Floors" of docs/ARCHITECTURE.md, read here): a layer includes only itself
  and the layers below it;
- the folders of harness/runcore (what the run and exploration tiers share) are floors: core, judge, testbeds,
  worker, session, each including only itself and those below;
- the Python packages are floors (the same table): the generator (ptxcts_gen) imports nothing of the harness, the
  framework only the generator, every tier the framework and the generator, never another tier; and no two Python
  modules import each other, directly or around a longer loop;
- no code folder holds more than 20 files or 25 % of the code's lines (no exemptions);
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
ARCHITECTURE = os.path.join(structure.ROOT, "docs", "ARCHITECTURE.md")


def floors_of_architecture(text):
    """(Python floors, C++ floors), lowest first, from the table under "### Floors" of docs/ARCHITECTURE.md: per
    row, the backquoted package names of its Python column and the backquoted harness/<layer> of its C++ column.
    A Python package on no row is a tier: the floor above them all."""
    section = text.split("### Floors", 1)[1].split("\n#", 1)[0]
    py, cxx = [], []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or not cells[0].isdigit():
            continue
        names = re.findall(r"`([^`]+)`", cells[1])
        py.append([n for n in names if "/" not in n])
        cxx.append(re.findall(r"`(harness/[\w-]+)`", cells[2]))
    return [row for row in py if row], [row for row in cxx if row]


with open(ARCHITECTURE, encoding="utf-8") as _fh:
    PY_FLOORS, CXX_FLOORS = floors_of_architecture(_fh.read())
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


# The floors of harness/runcore, lowest first (harness/runcore/README.md).
RUN_FLOORS = ["core", "judge", "testbeds", "worker", "session"]


class RuncoreFloors(unittest.TestCase):
    def test_no_include_runs_up_a_floor(self):
        _, why = structure.include_graph(structure.tracked_files())
        prefix = "harness/runcore/src/"
        floor = lambda f: RUN_FLOORS.index(f[len(prefix):].split("/")[0])  # noqa: E731
        seen, up = 0, []
        for pairs in why.values():
            for f, t in pairs:
                if f.startswith(prefix) and t.startswith(prefix):
                    seen += 1
                    if floor(t) > floor(f):
                        up.append(f"{f} includes {t}")
        self.assertGreater(seen, 50, "no includes between harness/runcore files found")
        self.assertEqual(up, [], "includes that run up a floor (move the shared part down):\n" + "\n".join(up))


def floor_of(floors, name):
    """The index of name's floor; len(floors) (the top: the tiers) for a name on none."""
    return next((i for i, row in enumerate(floors) if name in row), len(floors))


def up_or_across(edges, floors):
    """The edges (a, b) that run up a floor, or across it between two names of one floor."""
    bad = []
    for a, b in edges:
        fa, fb = floor_of(floors, a), floor_of(floors, b)
        if a != b and fa <= fb:
            bad.append((a, b))
    return bad


class ArchitectureFloors(unittest.TestCase):
    def test_the_table_names_every_layer_that_exists(self):
        self.assertEqual(PY_FLOORS[:2], [["ptxcts_gen"], ["framework"]], "docs/ARCHITECTURE.md, Floors: the "
                         "generator, then the framework, at the bottom of the Python packages")
        files = structure.tracked_files()
        layers = {structure.layer_of(f) for f in files if f.startswith("harness/") and f.endswith(structure.CXX)
                  and not structure.is_test(f)}
        named = {n for row in CXX_FLOORS for n in row}
        self.assertEqual(sorted(layers - named), [], "C++ layers on no floor of docs/ARCHITECTURE.md")
        self.assertEqual(sorted(named - layers), [], "floors of docs/ARCHITECTURE.md naming no C++ layer")
        packages = set(structure.python_modules(files)) | {"ptxcts_gen"}
        for row in PY_FLOORS:
            for name in row:
                self.assertIn(name, packages, f"docs/ARCHITECTURE.md, Floors: no Python package {name}")

    def test_the_table_is_read(self):
        py, cxx = floors_of_architecture("### Floors\n\n| floor | Python packages | C++ layers |\n| --- | --- | --- |\n"
                                         "| 1 | `a` (`x/`) | `harness/c` |\n| 2 | the tiers | `harness/d`, `harness/e` |\n"
                                         "\n## Next\n| 3 | `z` | `harness/z` |\n")
        self.assertEqual((py, cxx), ([["a"]], [["harness/c"], ["harness/d", "harness/e"]]))


class CxxLayers(unittest.TestCase):
    def test_no_include_runs_up_or_across_a_floor(self):
        _, why = structure.include_graph(structure.tracked_files())
        edges, seen = {}, 0
        for (a, b), pairs in why.items():
            for f, t in pairs:
                if structure.is_test(f):
                    continue
                seen += 1
                edges.setdefault((a[0], b[0]), f"{f} includes {t}")
        self.assertGreater(seen, 100, "no includes found")
        bad = up_or_across(edges, CXX_FLOORS)
        self.assertEqual(bad, [], "includes up or across a floor of the C++ layers (CXX_FLOORS):\n" +
                         "\n".join(edges[e] for e in bad))


class PythonLayers(unittest.TestCase):
    def setUp(self):
        self.edges = structure.python_imports(structure.tracked_files())
        self.assertGreater(len(self.edges), 200, "the import graph is nearly empty: the scan found no Python files")

    def test_no_package_imports_up_or_across_a_floor(self):
        packages = {}
        for (a, b), where in self.edges.items():
            packages.setdefault((a.split(".")[0], b.split(".")[0]), f"{where}: {a} imports {b}")
        bad = up_or_across(packages, PY_FLOORS)
        self.assertEqual(bad, [], "imports up a floor or between two tiers (a tier imports the framework and the "
                         "generator only; what two tiers share belongs in the framework):\n" +
                         "\n".join(packages[e] for e in bad))

    def test_no_two_modules_import_each_other(self):
        graph = {}
        for a, b in self.edges:
            if not a.startswith(b + "."):   # a module's own package (its __init__) is loaded before it: no loop
                graph.setdefault(a, set()).add(b)
        found = structure.cycles(graph)
        self.assertEqual(found, [], "modules that import each other (move what both need into a module of its "
                         "own):\n" + "\n".join(" <-> ".join(c) for c in found))

    def test_a_tier_importing_another_is_found(self):
        self.assertEqual(up_or_across({("compile", "framework"): "", ("framework", "ptxcts_gen"): "",
                                       ("lower", "compile"): "", ("ptxcts_gen", "framework"): "",
                                       ("framework", "results"): ""}, PY_FLOORS),
                         [("lower", "compile"), ("ptxcts_gen", "framework"), ("framework", "results")])


class Folders(unittest.TestCase):
    def test_no_folder_over_the_limits(self):
        table = structure.folders(structure.tracked_files())
        total = sum(lines for _, lines in table.values())
        over = {d: (n, l) for d, (n, l) in table.items() if n > MAX_FILES or l > MAX_SHARE * total}
        self.assertEqual(over, {}, f"folders over {MAX_FILES} files or {MAX_SHARE:.0%} of {total} lines: {over}; "
                         "split them by concern")


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
