"""Text from a results document reaches the HTML report escaped (html_page.esc, the templates' autoescape): a
device name, the toolchain's description (its ptxas version and path: the toolchain's name itself is checked by the
schema, letters, digits, . _ + -) and messages holding <, &, quotes and control characters show as that text and
never as markup, on the index page and on every family page."""
import html.parser
import json
import os
import re
import unittest

from results.report.html_page import esc

from .common import FIXTURES, TempDirTest, cli

MANIFEST = os.path.join(FIXTURES, "manifest")
# A closing quote of an attribute, a tag, an entity, both quotes and control characters (BEL, ESC, DEL, C1 NEL).
NASTY = "x\" onmouseover=\"alert(1)\" <injected>&amp; 'q' \x07\x1b\x7f\x85"
SHOWN = "x\" onmouseover=\"alert(1)\" <injected>&amp; 'q' \\x07\\x1b\\x7f\\x85"   # as a reader sees it
CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


class Elements(html.parser.HTMLParser):
    """Every start tag and attribute, and the text."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data):
        self.text.append(data)


def parsed(page):
    p = Elements()
    p.feed(page)
    p.close()
    return p


class Escaping(TempDirTest):
    def test_esc(self):
        self.assertEqual(esc("<a href=\"x\">&'\x01\x1b\x7f\x85\t\n"),
                         "&lt;a href=&quot;x&quot;&gt;&amp;&#x27;\\x01\\x1b\\x7f\\x85\t\n")

    def write_run(self, name, device, toolchain, message):
        path = self.copy_run(name, dest=os.path.basename(name) + "-" + toolchain["name"])
        doc_path = os.path.join(path, "results.json")

        def edit(doc):
            doc["version"] = 2
            doc["run_id"] += "-" + toolchain["name"]
            doc["toolchain"] = dict(doc["toolchain"], **toolchain)
            if device is not None:
                doc["device"] = dict(doc["device"], name=device)
            for case in doc["cases"]:
                if case.get("message"):
                    case["message"] = message
        self.edit_json(doc_path, edit)
        return path

    def test_names_and_messages_are_text_not_markup(self):
        runs = [self.write_run("compile", None, {"name": "13.0"}, "plain"),
                self.write_run("compile", None, {"name": "13.5", "ptxas": "13.5 " + NASTY, "ptxas_path": NASTY},
                               "m " + NASTY),
                self.write_run("h100/shard-0", NASTY, {"name": "13.0"}, "m " + NASTY)]
        out = os.path.join(self.tmp, "report")
        code, _, err = cli("report", *runs, "--manifest", MANIFEST, "--baselines", "none", "--out", out)
        self.assertEqual(code, 0, err)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            rep = json.load(f)
        self.assertTrue(rep["toolchain_diffs"], "two compile toolchains: the diff section names both")
        pages = {"report.html": None}
        pages.update({f"families/{n}": None for n in os.listdir(os.path.join(out, "families"))})
        shown = 0
        for name in pages:
            with open(os.path.join(out, name), encoding="utf-8") as f:
                page = f.read()
            with self.subTest(page=name):
                self.assertIsNone(CONTROL.search(page), "a control character reached the page")
                self.assertNotIn("<injected>", page)
                self.assertNotIn(NASTY, page)
                p = parsed(page)
                self.assertNotIn("injected", p.tags)
                self.assertNotIn("onmouseover", [a for a, _ in p.attrs])
                text = "".join(p.text) + "".join(v or "" for _, v in p.attrs)
                shown += text.count(SHOWN)   # once escaped: what a reader sees is the text itself
        with open(os.path.join(out, "report.html"), encoding="utf-8") as f:
            index = parsed(f.read())
        self.assertIn(SHOWN, "".join(index.text), "the device name and the toolchain are shown as text")
        self.assertTrue(any(SHOWN in (v or "") for _, v in index.attrs), "and in attributes (column titles)")
        self.assertGreaterEqual(shown, 4)


if __name__ == "__main__":
    unittest.main()
