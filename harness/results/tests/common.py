"""Helpers shared by the results tests: fixture paths, the CLI run in-process, raw counting of fixtures."""
import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

from results.__main__ import main

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
RUNS = os.path.join(FIXTURES, "runs")
MANIFEST = os.path.join(FIXTURES, "manifest")
BASELINES = os.path.join(FIXTURES, "baselines")
WAIVERS = os.path.join(FIXTURES, "waivers")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def cli(*argv):
    """Run `python3 -m results ARGV` in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def line_containing(path, needle, nth=1):
    """1-based line of the nth line of a fixture that contains `needle` (so tests do not hard-code lines)."""
    seen = 0
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if needle in line:
                seen += 1
                if seen == nth:
                    return n
    raise AssertionError(f"{path}: no line contains {needle!r}")


def raw_docs(*paths):
    """The fixture documents read with plain json (independent of the package under test)."""
    docs = []
    for p in paths:
        for root, _, files in os.walk(p):
            if "results.json" in files:
                with open(os.path.join(root, "results.json"), encoding="utf-8") as f:
                    docs.append(json.load(f))
    return docs


def raw_counts(docs):
    """{column: {class: n}} counted straight from the documents, with the report's column naming."""
    counts = {}
    for d in docs:
        for c in d["cases"]:
            col = f"compile:{c['target']}" if d["tier"] == "compile" else f"run:{d['device']['sm']}"
            counts.setdefault(col, {})
            counts[col][c["class"]] = counts[col].get(c["class"], 0) + 1
    return counts


class TempDirTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-results-test-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def copy_run(self, name, dest=None):
        dest = os.path.join(self.tmp, dest or name.replace("/", "_"))
        shutil.copytree(os.path.join(RUNS, name), dest)
        return dest

    def edit_json(self, path, fn):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        fn(doc)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1)
        return path
