#!/usr/bin/env python3
"""CTest layout.document_paths: every path a document names exists.

The documents: every Markdown file under docs/, every README.md, and the other Markdown files of a layer (RUNNING.md,
EXPLORING.md ...). A path is a word with a slash in it (`harness/run/src/core/judge.cpp`, `rules/common.py`) or a
bare source file name (`batch.cpp`, `coverage.py`); it exists when it names a tracked file or folder
  - from the repository's root (a path that starts with a top-level folder: harness/, generator/, results/ ...
    must exist from there, and only from there);
  - else from the document's folder, or as the tail of a tracked path (`frontends/llvm.py` in harness/frontend/README.md
    names generator/ptxcts_gen/frontends/llvm.py); a bare file name as the name of a tracked file.
Not paths: a slash between words that is prose (min/max, f16/bf16: no top-level folder first, no file name last); URLs; words with a placeholder (`<run-id>`, `DIR/report.md`, `*.tsv`, `{a,b}`, `$ROOT`); what a verb writes
at run time (`build/...`, absolute paths, `~/...`); a command run from its folder (`./r`).
"""
import os
import re
import subprocess
import sys
import unittest

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TOPS = ("generator", "harness", "results", "scripts", "docs", "templates", "toolchains", "generated", ".ci")
SOURCE = (".py", ".cpp", ".hpp", ".cu", ".j2")   # a bare name of these is a file of the tree (cuda.h is the system's)
FILE_TYPES = SOURCE + (".h", ".md", ".toml", ".json", ".jsonl", ".gz", ".sh", ".tsv", ".txt", ".cmake", ".ll", ".ptx",
                       ".html", ".css", ".xml", ".rules")
# a word of path characters with a slash, or a bare source file name; not glued to a placeholder or a longer word
PATH = re.compile(r"(?<![\w./<>${}*@:-])((?:\./|\.\./)?[\w.+-]+(?:/[\w.+-]+)+/?|[\w+-]+(?:\.py|\.cpp|\.hpp|\.cu|\.j2))"
                  r"(?![\w/<>*{}$@(-])")
PLACEHOLDER = re.compile(r"^([A-Z][A-Z0-9_-]*|(NAME|RUN|DIR|FILE|ID)\.\w+)$")   # DIR, RUN-ID, NAME.json: filled in by the reader


def tracked(root=ROOT):
    out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, check=True).stdout
    return [f for f in out.splitlines() if os.path.exists(os.path.join(root, f))]


def documents(files):
    return sorted(f for f in files if f.endswith(".md") and (f.startswith("docs/") or os.path.basename(f) == "README.md"
                                                             or (f.startswith("harness/") and f.count("/") == 2)))


class Tree:
    """What exists: tracked files and the folders above them."""

    def __init__(self, files):
        # generated/'s large files are committed gzip-compressed, X.gz; every verb reads the copy X that ./ptxcts
        # expands beside it (generator/ptxcts_gen/packed.py): a document names X
        self.files = set(files) | {f[:-3] for f in files if f.startswith("generated/") and f.endswith(".gz")}
        self.folders = {os.path.dirname(f) for f in files}
        for d in list(self.folders):
            while d:
                d = os.path.dirname(d)
                self.folders.add(d)
        self.names = {os.path.basename(f) for f in files}
        self.tails = set()
        for p in self.files | self.folders:
            parts = p.split("/")
            self.tails.update("/".join(parts[i:]) for i in range(1, len(parts)))

    def has(self, rel):
        rel = os.path.normpath(rel).replace(os.sep, "/")
        return rel in self.files or rel in self.folders


def is_path_word(word):
    if "://" in word or word.startswith(("build/", "~", "/", "www.")):
        return False
    parts = [p for p in word.strip("/").split("/") if p not in (".", "..")]
    if any(PLACEHOLDER.match(p) for p in parts):
        return False
    if word.startswith("./") and len(parts) == 1 and "." not in parts[0]:
        return False   # a command run from its folder (./r)
    if not parts:
        return False
    # a slash between words is prose (min/max, f16/bf16) unless the word starts at a top-level folder or ends in a
    # file's name
    return parts[0] in TOPS or os.path.splitext(parts[-1])[1] in FILE_TYPES or len(parts) == 1


def missing_paths(doc, text, tree):
    """The path words of one document that name nothing of the tree."""
    here = os.path.dirname(doc)
    out = []
    for m in PATH.finditer(text):
        word = m.group(1).rstrip(".")
        if not is_path_word(word):
            continue
        clean = word[2:] if word.startswith("./") else word
        if "/" not in clean.rstrip("/"):
            if clean.endswith(SOURCE) and clean not in tree.names:
                out.append(word)
            continue
        if clean.split("/")[0] in TOPS:
            ok = tree.has(clean)
        else:
            ok = tree.has(os.path.join(here, clean)) or clean.rstrip("/") in tree.tails
        if not ok:
            out.append(word)
    return out


class DocumentPaths(unittest.TestCase):
    def test_every_path_a_document_names_exists(self):
        files = tracked()
        tree = Tree(files)
        docs = documents(files)
        self.assertGreater(len(docs), 20, "the scan found almost no documents")
        bad = []
        for d in docs:
            with open(os.path.join(ROOT, d), encoding="utf-8") as f:
                bad += [f"{d}: {p}" for p in missing_paths(d, f.read(), tree)]
        self.assertEqual(bad, [], "paths named by a document that do not exist (name the file as it is now):\n" +
                         "\n".join(bad))

    def test_the_scan_finds_a_missing_path_and_passes_what_exists(self):
        tree = Tree(["harness/run/src/core/judge.cpp", "generator/ptxcts_gen/frontends/llvm.py", "docs/CLI.md"])
        text = ("`harness/run/src/core/judge.cpp`, frontends/llvm.py, judge.cpp; gone: harness/run/src/judge.cpp, "
                "`results/schema.py`, batch.cpp; not paths: DIR/report.md, results/<run-id>/, build/gpus.json, "
                "https://example.org/a/b.py, ./r")
        self.assertEqual(missing_paths("docs/X.md", text, tree),
                         ["harness/run/src/judge.cpp", "results/schema.py", "batch.cpp"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
