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


def _table_cells(table):
    """{row attr value: {column: {class: n}}} of a count table: the header's th[data-col] name the columns in
    order, each cell holds one <b class="c-CLASS">N</b> per class present."""
    cols = [th.attrs["data-col"] for th in table.find_all("th", "data-col")]
    rows = {}
    for tr in table.find_all("tr"):
        name = tr.attrs.get("data-form") or tr.attrs.get("data-family")
        if not name:
            continue
        tds = tr.find_all("td")[1:]
        assert len(tds) == len(cols), f"row {name}: {len(tds)} cells for {len(cols)} columns"
        cells = {}
        for col, td in zip(cols, tds):
            counts = {b.attrs["class"][2:]: int(b.text().strip()) for b in td.find_all("b")
                      if b.attrs.get("class", "").startswith("c-")}
            if counts:
                cells[col] = counts
        rows[name] = cells
    return rows


def numbers(text, family_pages=()):
    """{title, summary, coverage, families, groups, missing_shards, partial, forms, rows, findings} as the pages
    show them: the index (text) and the family pages (their texts)."""
    root = parse(text)
    out = {"title": root.find_all("h1")[0].text().strip(), "summary": {}, "coverage": {}, "rows": {},
           "families": {}, "groups": {}, "findings": [], "missing_shards": [], "partial": []}
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
                                "passing_valid": int(metrics["passing_valid"]),
                                "valid_forms": int(metrics["valid_forms"])}
    families = next(t for t in root.find_all("table") if t.attrs.get("id") == "families")
    out["families"] = _table_cells(families)
    table = next((t for t in root.find_all("table") if t.attrs.get("id") == "finding-groups"), None)
    for tr in (table.find_all("tr", "data-group") if table else []):
        count = next(b for b in tr.find_all("b", "data-metric") if b.attrs["data-metric"] == "count")
        replays = [c.text() for c in tr.find_all("code", "data-replay")]
        out["groups"][tr.attrs["data-group"]] = (tr.attrs["data-class"], int(count.text()), replays)
    out["missing_shards"] = [n.attrs["data-missing-shard"] for n in root.find_all("li", "data-missing-shard")]
    out["partial"] = [n.attrs["data-partial"] for n in root.find_all("li", "data-partial")]
    for page in family_pages:
        proot = parse(page)
        for t in proot.find_all("table"):
            if "forms" in t.attrs.get("class", ""):
                out["rows"].update({form: cells for form, cells in _table_cells(t).items() if cells})
        for tr in proot.find_all("tr", "data-key"):
            cls = tr.find_all("span")[0].text().strip()
            replay = tr.find_all("code", "data-replay")[0].text()
            out["findings"].append((tr.attrs["data-key"], cls, replay))
    out["findings"].sort()
    return out


def expected_from_json(rep, rows=None, findings=None):
    """The same structure taken from report.json (rows and findings, which report.json leaves to the family
    pages, are given by the caller: counted from the results)."""
    return {
        "title": rep["title"],
        "forms": rep["manifest"]["forms"],
        "summary": rep["summary"],
        "coverage": {k: {m: v[m] for m in ("exercised", "passing", "exercised_pct", "passing_pct", "passing_valid",
                                            "valid_forms")}
                     for k, v in rep["coverage"].items()},
        "rows": rows if rows is not None else {},
        "families": {f["family"]: f["cells"] for f in rep["families"]},
        "groups": {g["group"]: (g["class"], g["count"], [x["replay"] for x in g["examples"]])
                   for g in rep["finding_groups"]},
        "findings": sorted(findings or []),
        "missing_shards": [f"{m['run_id']}/{m['index']}" for m in rep["missing_shards"]],
        "partial": [f"{p['run_id']}/{p['index']}" for p in rep["partial_runs"]],
    }
