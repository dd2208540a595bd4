"""What every page of the HTML report shares: the stylesheet, stated once and written as report.css beside
report.html (each page links it), the template environment (templates/: the page frame, and the macros of count
cells, column headers, class badges and the legend), and those macros as functions."""
import os
import re
from html import escape

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

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


# The templates of the HTML pages (templates/*.html.j2), autoescaped: every {{ value }} is written through esc()
# (html.escape with quote=True, as the report always spelled it: &quot; and &#x27;), except markup a macro made or
# that a caller marks safe (Markup: the exploration's coverage picture).
TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


# C0 and C1 control characters other than tab, newline, form feed and carriage return: not allowed in an HTML
# page, as text or as a character reference; esc() writes them as a visible \xNN.
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")


def esc(x):
    """Text for an HTML page: &, <, >, " and ' as character references (html.escape), control characters as
    \\xNN."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", escape(str(x), quote=True))


def _escaped(value):
    return value if isinstance(value, Markup) else Markup(esc(value))


ENV = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, finalize=_escaped, trim_blocks=True,
                  lstrip_blocks=True, keep_trailing_newline=True, undefined=StrictUndefined)
ENV.globals["abbrev"] = ABBREV


def render_template(name, **context):
    return ENV.get_template(name).render(**context)


def _macro(name):
    return getattr(ENV.get_template("macros.html.j2").module, name)


def count_cell(cell, classes):
    """A count cell: one <b class="c-CLASS">N</b> per class present (the class's letter comes from the CSS); its
    column is the header's th[data-col] at the same position (kept out of each cell: the pages stay small)."""
    return str(_macro("count_cell")(cell, classes))


def header_row(columns, first):
    return str(_macro("header_row")(columns, first))


def page(title, body, stylesheet_href):
    """A page of the report from lines of markup: the shared stylesheet linked from stylesheet_href (relative to the
    page). The report's own pages extend templates/page.html.j2 instead."""
    return render_template("page.html.j2", title=title, stylesheet_href=stylesheet_href,
                           lines=[Markup(line) for line in body])


def badge(cls):
    return str(_macro("badge")(cls))


def legend(classes):
    return str(_macro("legend")(classes))


def column_labels(rep):
    return {c["key"]: c["label"] for c in rep["columns"]}
