"""What every page of the HTML report shares: the stylesheet, stated once and written as report.css beside
report.html (each page links it), the page frame, and the markup of count cells, column headers, class badges and
the legend."""
from html import escape

STYLESHEET_FILE = "report.css"

ABBREV = {"pass": "P", "fail": "F", "spec_divergence": "D", "beyond_chapter": "B", "unruled": "U",
          "not_supported": "N",
          "compile_error": "CE", "crash": "C", "timeout": "T", "skipped": "S"}
COLOURS = {"pass": "#cdeccd", "fail": "#f5b5b5", "spec_divergence": "#f7d89c", "beyond_chapter": "#a9d6f0",
           "unruled": "#f3ecb0",
           "not_supported": "#dde3ee", "compile_error": "#f0a0c8", "crash": "#d46a6a", "timeout": "#c9a0dc",
           "skipped": "#eeeeee"}

STYLESHEET = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em;color:#1a1a1a;background:#fff;
max-width:1500px}h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid #ccc}
h3{font-size:1.05em;margin:1.2em 0 .4em}table{border-collapse:collapse;margin:.4em 0}th,td{border:1px solid #d0d0d0;
padding:2px 6px;text-align:right;vertical-align:top}th{background:#f2f2f2}td.name,th.name{text-align:left;
font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}td.empty{color:#bbb;text-align:center}
.n{display:inline-block;min-width:1.6em;margin:0 1px;padding:0 3px;border-radius:3px;font-size:12px;text-align:center}
.n i{font-style:normal;font-size:9px;opacity:.7;margin-right:2px}.n b{font-weight:600}
td>b{display:inline-block;min-width:1.6em;margin:0 1px;padding:0 3px;border-radius:3px;font-size:12px;
text-align:center}td>b::before{font-size:9px;font-weight:400;opacity:.7;margin-right:2px}td:empty::after{content:"\\b7";
color:#bbb}
""" + "".join(f".c-{c}{{background:{v}}}td>b.c-{c}::before{{content:\"{ABBREV[c]}\"}}" for c, v in COLOURS.items()) + """.c-crash{color:#fff}
.nim{color:#c33;font-weight:600}.warn{border:2px solid #c33;background:#fdecec;padding:.5em 1em;margin:1em 0}
.ok{border:2px solid #5a5;background:#eef8ee;padding:.5em 1em;margin:1em 0}.box{border:1px solid #ccc;padding:.5em 1em;
margin:1em 0}.track{display:block;width:160px;height:8px;background:#eee;margin-top:2px;font-size:0}
.bar{display:inline-block;height:8px;background:#5a5}.bar.ex{background:#9bd}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;white-space:pre-wrap;word-break:break-all}
td.msg{text-align:left;max-width:46em}details{margin:.2em 0}summary{cursor:pointer}.muted{color:#666}
nav ul{columns:2;margin:.3em 0}.big{font-size:1.6em;font-weight:600}.kpi{display:inline-block;margin:0 2em .5em 0}
"""


def esc(x):
    return escape(str(x), quote=True)


def count_cell(cell, classes):
    """A count cell: one <b class="c-CLASS">N</b> per class present (the class's letter comes from the CSS); its
    column is the header's th[data-col] at the same position (kept out of each cell: the pages stay small)."""
    if not cell:
        return "<td></td>"
    return "<td>" + "".join(f'<b class="c-{c}">{cell[c]}</b>' for c in classes if cell.get(c)) + "</td>"


def header_row(columns, first):
    ths = "".join(f'<th data-col="{esc(c["key"])}" title="{esc(", ".join(c["devices"] or c["runs"]))}">'
                  f'{esc(c["label"])}</th>' for c in columns)
    return f'<tr><th class="name">{first}</th>{ths}</tr>'


def page(title, body, stylesheet_href):
    """A page of the report: the shared stylesheet linked from stylesheet_href (relative to the page)."""
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width"><title>{esc(title)}</title><link rel="stylesheet" '
            f'href="{esc(stylesheet_href)}"></head><body>\n' + "\n".join(body) + "\n</body></html>\n")


def badge(cls):
    return f'<span class="n c-{cls}">{esc(cls)}</span>'


def legend(classes):
    return " ".join(f'<span class="n c-{c}">{ABBREV[c]}</span> {c}' for c in classes)


def column_labels(rep):
    return {c["key"]: c["label"] for c in rep["columns"]}
