#!/usr/bin/env python3
"""Fuzz the document loaders (CTest cli.fuzz.loaders): each starts from a valid document of its kind -- a run's
results.json, an exploration's explore.json, a self-test's score, the waivers, the compile findings, the toolchain
catalog, a manifest -- and is handed that document broken by Hypothesis: a field replaced by a hostile value or a
bad JSON literal, a field removed or added, bytes that are not UTF-8, a truncated file. Each loader must load it or
raise its own error naming the file; any other exception (KeyError, TypeError, RecursionError, ...) is a failure.

    python3 harness/tests/fuzz/test_fuzz_loaders.py [-v]      (PTXCTS_FUZZ_SCALE=10: ten times the inputs)
"""
import copy
import gzip
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402
from hostile import ROOT, budget, check_error  # noqa: E402

hostile.require_hypothesis()
from hypothesis import given, strategies as st  # noqa: E402

from framework import documents  # noqa: E402
from results.report import explorations, selftests  # noqa: E402
from framework.documents import waivers  # noqa: E402
from framework import manifest  # noqa: E402
from framework.documents.errors import ResultsError  # noqa: E402
from framework.documents import expectations  # noqa: E402
from framework.toolchains import catalog, ToolchainError  # noqa: E402
from ptxcts_gen import cli as gen_cli  # noqa: E402


def _gz_json(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _first(folder, name):
    return sorted(os.path.join(folder, d, name) for d in os.listdir(folder)
                  if os.path.exists(os.path.join(folder, d, name)))[0]


RUN_DOC = _gz_json(os.path.join(ROOT, "results", "2026-11-25-sm_90-h100-run", "results.json.gz"))
RUN_DOC["cases"] = RUN_DOC["cases"][:12]
EXPLORE_DOC = _gz_json(_first(os.path.join(ROOT, "results", "explore"), "explore.json.gz"))
SELFTEST_DOC = _gz_json(os.path.join(ROOT, "results", "selftest", "selftest-h100.json.gz"))
TEXTS = {name: open(os.path.join(ROOT, *name.split("/")), encoding="utf-8").read()
         for name in ("results/waivers.toml", "results/expectations/ptxas.toml", "toolchains/catalog.toml")}


@st.composite
def broken_json(draw, doc):
    """The text of `doc` with one to three things broken."""
    doc = copy.deepcopy(doc)
    literal = None
    for _ in range(draw(st.integers(1, 3))):
        node, key = _pick(draw, doc)
        if node is None:
            break
        op = draw(st.sampled_from(["replace", "replace", "delete", "add", "literal", "wrap"]))
        if op == "replace":
            node[key] = draw(hostile.HOSTILE_JSON)
        elif op == "delete":
            del node[key]
        elif op == "add" and isinstance(node, dict):
            node[draw(st.text(max_size=6))] = draw(hostile.HOSTILE_JSON)
        elif op == "wrap":
            node[key] = [node[key]] if draw(st.booleans()) else {"x": node[key]}
        else:
            literal = draw(st.sampled_from(hostile.BAD_LITERALS))
            node[key] = "@@LITERAL@@"
    text = json.dumps(doc, indent=1).replace('"@@LITERAL@@"', literal or "null")
    raw = text.encode("utf-8")
    tail = draw(st.sampled_from(["", "truncate", "not utf-8", "bom"]))
    if tail == "truncate":
        raw = raw[:draw(st.integers(0, max(0, len(raw) - 1)))]
    elif tail == "not utf-8":
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + b"\xff\xfe" + raw[at:]
    elif tail == "bom":
        raw = b"\xef\xbb\xbf" + raw
    return raw


def _pick(draw, doc):
    """A container and a key in it, reached by walking down from the top at random."""
    node, key = None, None
    cur = doc
    for _ in range(draw(st.integers(1, 4))):
        if isinstance(cur, dict) and cur:
            k = draw(st.sampled_from(sorted(cur)))
        elif isinstance(cur, list) and cur:
            k = draw(st.integers(0, len(cur) - 1))
        else:
            break
        node, key, cur = cur, k, cur[k]
    return node, key


@st.composite
def broken_toml(draw, text):
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i]
        op = draw(st.sampled_from(["value", "value", "value", "delete", "duplicate", "garbage"]))
        if op == "value" and "=" in line and not line.lstrip().startswith("#"):
            lines[i] = line.split("=", 1)[0] + "= " + draw(hostile.HOSTILE_TOML)
        elif op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, line)
        elif op == "garbage":
            lines.insert(i, draw(st.sampled_from(["[[", "x", "version = 1", "[waiver]", "[[finding]]", "finding = 1",
                                                   "[toolchain.\"x\"]", "\x00", "= 1"])))
    raw = "\n".join(lines).encode("utf-8")
    if draw(st.booleans()) and draw(st.booleans()):
        raw += b"\n# \xff\n"
    return raw


def loader_test(examples, documents, rel, load, allowed, arg=lambda path: path):
    """A fuzz test of one loader: each of `examples` documents drawn from `documents` is written to `rel` in the
    test's folder and handed to `load` (as arg(its path)), which loads it or raises one of `allowed` naming it."""
    @budget(examples)
    @given(documents)
    def test(self, raw):
        path = self._write(rel, raw)
        self._loads(load, arg(path), path, allowed)
    return test


class Loaders(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ptxcts-fuzz-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _write(self, rel, raw):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(raw)
        return path

    def _loads(self, fn, arg, path, allowed):
        try:
            fn(arg)
        except Exception as e:   # noqa: BLE001 -- the property: only the loader's own error, naming the file
            check_error(self, e, allowed, path)
        except RecursionError as e:
            self.fail(f"RecursionError escaped: {e}")

    test_results_document = loader_test(150, broken_json(RUN_DOC), "run/results.json", documents.load, (ResultsError,))
    test_explore_document = loader_test(80, broken_json(EXPLORE_DOC), "explore/explore.json", explorations.load_one,
                                        (ResultsError,), os.path.dirname)
    test_selftest_score = loader_test(80, broken_json(SELFTEST_DOC), "selftest.json", selftests.load_one,
                                      (ResultsError,))
    test_waivers = loader_test(150, broken_toml(TEXTS["results/waivers.toml"]), "waivers.toml", waivers.load,
                               (ResultsError,))
    test_compile_findings = loader_test(120, broken_toml(TEXTS["results/expectations/ptxas.toml"]), "ptxas.toml",
                                        expectations.load, (expectations.ExpectationsError,))
    test_toolchain_catalog = loader_test(100, broken_toml(TEXTS["toolchains/catalog.toml"]), "catalog.toml",
                                         catalog.load, (ToolchainError,))

    @budget(40)
    @given(st.data())
    def test_manifest(self, data):
        """A small manifest (a family file of 15 rows) with a row broken: each of the three readers -- the
        generator's, the compile tier's, the report's -- refuses it naming the file, or reads it."""
        man = os.path.join(self.tmp, "gen", "manifest")
        rows = MANIFEST["rows"][:]
        i = data.draw(st.integers(1, len(rows) - 1))
        op = data.draw(st.sampled_from(["field", "duplicate", "columns", "bytes", "header", "empty"]))
        if op == "field":
            cols = rows[i].split("\t")
            cols[data.draw(st.integers(0, len(cols) - 1))] = data.draw(hostile.HOSTILE_TEXT).replace("\n", "")
            rows[i] = "\t".join(cols)
        elif op == "duplicate":
            rows.append(rows[i])
        elif op == "columns":
            rows[i] = rows[i] + "\textra"
        elif op == "header":
            rows[0] = rows[0].replace("case_id", data.draw(st.sampled_from(["", "id", "case"])))
        elif op == "empty":
            rows = rows[:1]
        raw = ("\n".join(rows) + "\n").encode("utf-8")
        if op == "bytes":
            raw = raw.replace(b"cp.async/", b"cp.async\xff/", 1)
        tsv = self._write("gen/manifest/cases/cp.async.tsv", raw)
        self._write("gen/manifest/forms.jsonl", MANIFEST["forms"].encode("utf-8"))
        self._write("gen/manifest/targets.json", MANIFEST["targets"].encode("utf-8"))
        for fn, arg, allowed in ((manifest.load, man, (ResultsError,)),
                                 (manifest.load_cases, man, (ResultsError,)),
                                 (lambda root: list(gen_cli._read_cases(root)), os.path.dirname(man),
                                  (gen_cli.ManifestError, FileNotFoundError))):
            self._loads(fn, arg, tsv, allowed)

    @budget(200)
    @given(st.text(max_size=40) | st.sampled_from(hostile.BAD_LITERALS))
    def test_json_reader(self, text):
        path = self._write("x.json", text.encode("utf-8", "surrogatepass"))
        self._loads(documents.jsonloc.read, path, path, (ResultsError,))


def _small_manifest():
    src = os.path.join(ROOT, "generated", "manifest")
    with open(os.path.join(src, "cases", "cp.async.tsv"), encoding="utf-8") as f:
        rows = f.read().split("\n")[:16]
    forms_used = {r.split("\t")[1] for r in rows[1:]}
    with open(os.path.join(src, "forms.jsonl"), encoding="utf-8") as f:
        forms = "".join(line for line in f if json.loads(line)["form"] in forms_used)
    with open(os.path.join(src, "targets.json"), encoding="utf-8") as f:
        targets = f.read()
    return {"rows": rows, "forms": forms, "targets": targets}


MANIFEST = _small_manifest()

if __name__ == "__main__":
    unittest.main()
