#!/usr/bin/env python3
"""CTest layout.docs_name_everything: a new verb or a new layer forces a line of documentation.

Fails when
  - a verb of the `VERBS` table of ./ptxcts is not named in README.md (the front page's table of verbs) or in
    docs/ARCHITECTURE.md (its table of verbs): named means written `verb` in backquotes, or as `./ptxcts verb`;
  - a folder directly under harness/ is not named in docs/ARCHITECTURE.md as harness/<folder>.

The verbs are read from the script's source (ast), so the test never runs ./ptxcts.
"""
import ast
import os
import re
import sys
import unittest

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
NOT_LAYERS = {"__pycache__"}


def verbs_of(script_text):
    """The keys of the module-level dict VERBS in the ./ptxcts script's text, in order."""
    for node in ast.parse(script_text).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "VERBS" for t in node.targets):
            if not isinstance(node.value, ast.Dict):
                raise ValueError("./ptxcts: VERBS is not a dict literal")
            return [k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    raise ValueError("./ptxcts: no module-level VERBS table")


def names_verb(doc_text, verb):
    """Whether a document names the verb: `verb` in backquotes, or ./ptxcts verb."""
    return bool(re.search(r"`" + re.escape(verb) + r"`", doc_text)
                or re.search(r"\./ptxcts " + re.escape(verb) + r"(?![\w-])", doc_text))


def names_folder(doc_text, folder):
    """Whether a document names harness/<folder> (harness/tools is not named by harness/toolchains)."""
    return bool(re.search(r"harness/" + re.escape(folder) + r"(?![\w-])", doc_text))


def missing_verbs(verbs, docs):
    """[(document, verb)] for every verb a document does not name; docs: {name: text}."""
    return [(name, v) for name, text in docs.items() for v in verbs if not names_verb(text, v)]


def harness_layers(root):
    path = os.path.join(root, "harness")
    return sorted(d for d in os.listdir(path)
                  if os.path.isdir(os.path.join(path, d)) and not d.startswith(".") and d not in NOT_LAYERS)


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


class DocsNameEverything(unittest.TestCase):
    def test_every_verb_is_named_on_the_front_page_and_in_the_architecture(self):
        verbs = verbs_of(read("ptxcts"))
        self.assertGreater(len(verbs), 10, "the VERBS table of ./ptxcts was not read")
        bad = missing_verbs(verbs, {"README.md": read("README.md"),
                                    "docs/ARCHITECTURE.md": read("docs/ARCHITECTURE.md")})
        self.assertEqual(bad, [], "name each verb (in backquotes) in its document's table of verbs:\n"
                         + "\n".join(f"{doc}: `{v}`" for doc, v in bad))

    def test_every_folder_of_harness_is_named_in_the_architecture(self):
        layers = harness_layers(ROOT)
        self.assertIn("run", layers)
        arch = read("docs/ARCHITECTURE.md")
        bad = [d for d in layers if not names_folder(arch, d)]
        self.assertEqual(bad, [], "add a row to the table of layers of docs/ARCHITECTURE.md for:\n"
                         + "\n".join(f"harness/{d}/" for d in bad))

    # The checks themselves: each must see what is missing, or the two tests above could not fail.
    def test_a_verb_missing_from_a_document_is_reported(self):
        script = 'VERBS = {\n    "gen": ("..", None),\n    "newverb": ("..", None),\n}\n'
        self.assertEqual(verbs_of(script), ["gen", "newverb"])
        docs = {"README.md": "| `gen` | ... |\n", "docs/ARCHITECTURE.md": "run `./ptxcts newverb`; `gen`"}
        self.assertEqual(missing_verbs(verbs_of(script), docs), [("README.md", "newverb")])

    def test_a_bare_word_does_not_name_a_verb(self):
        self.assertFalse(names_verb("the run tier runs cases", "run"))
        self.assertFalse(names_verb("`selftest-model`", "selftest"))
        self.assertFalse(names_verb("./ptxcts selftest-model", "selftest"))
        self.assertTrue(names_verb("| `selftest` |", "selftest"))

    def test_a_folder_is_not_named_by_a_longer_one(self):
        self.assertFalse(names_folder("harness/toolchains/ and harness/toolsets", "tools"))
        self.assertTrue(names_folder("`harness/tools/`", "tools"))
        self.assertTrue(names_folder("harness/run, its workers", "run"))


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
