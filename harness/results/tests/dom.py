"""Reads the report's numbers back out of an HTML text (the page as written, or the DOM chromium rendered).

The numbers are taken from the text a reader sees; the data-* attributes only say which number is which.
"""
from html.parser import HTMLParser

VOID = {"meta", "br", "col", "img", "hr", "input", "link"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.walk()

    def find_all(self, tag=None, attr=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and (attr is None or attr in n.attrs)]


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#root", {}, None)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(text):
    b = _Builder()
    b.feed(text)
    b.close()
    return b.root


def _cells(tr):
    cells = {}
    for td in tr.find_all("td", "data-col"):
        counts = {b.attrs["data-class"]: int(b.text().strip()) for b in td.find_all("b", "data-class")}
        if counts:
            cells[td.attrs["data-col"]] = counts
    return cells


def numbers(text):
    """{title, summary, coverage, rows, families, findings, missing_shards, forms} as the page shows them."""
    root = parse(text)
    out = {"title": root.find_all("h1")[0].text().strip(), "summary": {}, "coverage": {}, "rows": {},
           "families": {}, "findings": [], "missing_shards": []}
    out["forms"] = int(next(n for n in root.find_all("span", "data-metric")
                            if n.attrs["data-metric"] == "forms").text())
    table = next(t for t in root.find_all("table") if t.attrs.get("id") == "summary")
    for tr in table.find_all("tr", "data-col"):
        col = tr.attrs["data-col"]
        out["summary"][col] = {td.attrs["data-class"]: int(td.text()) for td in tr.find_all("td", "data-class")}
        metrics = {n.attrs["data-metric"]: n.text() for n in tr.find_all(None, "data-metric")}
        out["coverage"][col] = {"exercised": int(metrics["exercised"]), "passing": int(metrics["passing"]),
                                "exercised_pct": float(metrics["exercised_pct"]),
                                "passing_pct": float(metrics["passing_pct"]),
                                "passing_valid": int(metrics["passing_valid"])}
    for tr in root.find_all("tr", "data-form"):
        out["rows"][tr.attrs["data-form"]] = _cells(tr)
    for tr in root.find_all("tr", "data-family"):
        out["families"][tr.attrs["data-family"]] = _cells(tr)
    for tr in root.find_all("tr", "data-key"):
        cls = tr.find_all("span")[0].text().strip()
        replay = tr.find_all("code", "data-replay")[0].text()
        out["findings"].append((tr.attrs["data-key"], cls, replay))
    out["missing_shards"] = [n.attrs["data-missing-shard"] for n in root.find_all("li", "data-missing-shard")]
    return out


def expected_from_json(rep):
    """The same structure taken from report.json."""
    return {
        "title": rep["title"],
        "forms": rep["manifest"]["forms"],
        "summary": rep["summary"],
        "coverage": {k: {m: v[m] for m in ("exercised", "passing", "exercised_pct", "passing_pct", "passing_valid")}
                     for k, v in rep["coverage"].items()},
        "rows": {r["form"]: r["cells"] for r in rep["rows"]},
        "families": {f["family"]: f["cells"] for f in rep["families"]},
        "findings": [(f["key"], f["class"], f["replay"]) for f in rep["findings"]],
        "missing_shards": [f"{m['run_id']}/{m['index']}" for m in rep["missing_shards"]],
    }
