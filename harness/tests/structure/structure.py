#!/usr/bin/env python3
"""The project's structure, measured from its files: source folders (files and lines each) and the include graph
of the C++ under harness/.

    python3 harness/tests/structure/structure.py            # the folder table and any include cycle
    python3 harness/tests/structure/test_structure.py       # the rules, as CTest runs them (structure.*)

Code is every tracked .cpp/.hpp/.h/.cu/.py file outside generated/ and outside test folders (a folder named
`tests`, or one below it); lines are physical lines (as `wc -l` counts them).

A module is a file name without its extension within one layer (harness/<layer>): `session.hpp` and `session.cpp`
are one module. Module A depends on module B when a file of A includes a file of B; the include graph must have no
cycle, so that every layer reads as floors, each using only the floors below it.

The Python import graph is read the same way (python_imports): a module is a dotted name under generator/ or
harness/ (ptxcts_gen.cli, framework.documents.schema, compile.pool), its package the first part of the name; every
import counts, at the top of a file or inside a function.
"""
import ast
import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
CODE = (".cpp", ".hpp", ".h", ".cu", ".py")
CXX = (".cpp", ".hpp", ".h", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def tracked_files(root=ROOT):
    """Every file git tracks or would track (not ignored), else every file under root."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, check=True).stdout
        files = [f for f in out.splitlines() if os.path.exists(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        files = [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs
                 if ".git" not in d.split(os.sep)]
    return sorted(f.replace(os.sep, "/") for f in files)


def is_test(path):
    return "tests" in path.split("/")[:-1]


def code_files(files):
    return [f for f in files if f.endswith(CODE) and not f.startswith(("generated/", "build/")) and not is_test(f)]


def lines_of(path, root=ROOT):
    with open(os.path.join(root, path), "rb") as fh:
        return fh.read().count(b"\n")


def folders(files, root=ROOT):
    """folder -> (files, lines) over the code files directly in it."""
    table = collections.defaultdict(lambda: [0, 0])
    for f in code_files(files):
        row = table[os.path.dirname(f)]
        row[0] += 1
        row[1] += lines_of(f, root)
    return {k: tuple(v) for k, v in sorted(table.items())}


def layer_of(path):
    """harness/<layer>/... -> harness/<layer>; anything else -> its first folder."""
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "harness" and len(parts) > 2 else parts[0]


def module_of(path):
    return (layer_of(path), os.path.splitext(os.path.basename(path))[0])


def include_graph(files, root=ROOT):
    """(module -> set of modules it includes, (module, module) -> [(file, included file)]) over the C++ files of
    harness/, test folders included. An include resolves to the file beside the includer, else to the one file
    whose path ends with the included name (the same layer's first when several do); system headers are not
    files of the tree and resolve to nothing."""
    cxx = [f for f in files if f.startswith("harness/") and f.endswith(CXX)]
    by_name = collections.defaultdict(list)
    for f in cxx:
        parts = f.split("/")
        for i in range(len(parts)):
            by_name["/".join(parts[i:])].append(f)
    graph, why = collections.defaultdict(set), collections.defaultdict(list)
    for f in cxx:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for name in INCLUDE.findall(text):
            beside = os.path.normpath(os.path.join(os.path.dirname(f), name)).replace(os.sep, "/")
            cands = [beside] if beside in cxx else by_name.get(name, [])
            if not cands:
                continue
            same = [c for c in cands if layer_of(c) == layer_of(f)]
            target = (same or cands)[0]
            a, b = module_of(f), module_of(target)
            if a != b:
                graph[a].add(b)
                why[(a, b)].append((f, target))
    return graph, why


PY_ROOTS = ("generator", "harness")


def python_modules(files):
    """{dotted module name: path} of the Python code under generator/ and harness/ (tests left out)."""
    out = {}
    for f in code_files(files):
        parts = f.split("/")
        if not f.endswith(".py") or parts[0] not in PY_ROOTS or len(parts) < 3:
            continue
        name = [p for p in parts[1:-1]] + ([] if parts[-1] == "__init__.py" else [parts[-1][:-3]])
        out[".".join(name)] = f
    return out


def python_imports(files, root=ROOT):
    """{(importer, imported): line} over the modules of python_modules: absolute and relative imports, a name
    imported from a package counted as its module where it is one."""
    mods = python_modules(files)
    edges = {}
    for name, path in mods.items():
        with open(os.path.join(root, path), encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), filename=path)
        pkg = name.split(".") if path.endswith("__init__.py") else name.split(".")[:-1]
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg[:len(pkg) - (node.level - 1)]
                    base = ".".join(up + ([base] if base else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                while t and t not in mods:   # a name of a module (compile.pool.usable_cpus): the module
                    t = t.rpartition(".")[0]
                if t and t != name:
                    edges.setdefault((name, t), f"{path}:{node.lineno}")
    return edges


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    nodes = set(graph) | {b for bs in graph.values() for b in bs}

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out)


def describe_cycle(comp, why):
    members = set(comp)
    lines = [f"  {' <-> '.join(m[1] for m in comp)} ({comp[0][0]}):"]
    for a in comp:
        for b in comp:
            for f, t in why.get((a, b), []) if b in members else []:
                lines.append(f"    {f} includes {t}")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--under", default="", metavar="PREFIX", help="only folders under this path (e.g. harness/run)")
    a = ap.parse_args(argv)
    files = tracked_files()
    table = folders(files)
    total = sum(l for _, l in table.values())
    print(f"{'folder':44} {'files':>5} {'lines':>6} {'share':>6}")
    for d, (n, l) in table.items():
        if d.startswith(a.under):
            print(f"{d:44} {n:5d} {l:6d} {100.0 * l / total:5.1f}%")
    print(f"{'all code (outside tests and generated/)':44} {sum(n for n, _ in table.values()):5d} {total:6d}")
    graph, why = include_graph(files)
    found = cycles(graph)
    print(f"include cycles between modules: {len(found)}")
    for comp in found:
        print(describe_cycle(comp, why))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
