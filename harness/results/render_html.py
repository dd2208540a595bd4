"""The report as one self-contained static HTML page: inline CSS, no script, no external resource.

Every number on the page is an element's text, marked with data-* attributes (data-col, data-class,
data-form, data-family, data-metric) so that a test reading the rendered DOM can find it and compare it with
report.json.
"""
from html import escape

from .schema import FINDINGS

ABBREV = {"pass": "P", "fail": "F", "spec_divergence": "D", "not_supported": "N", "compile_error": "CE",
          "crash": "C", "timeout": "T", "skipped": "S"}

CSS = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:1.5em;color:#1a1a1a;background:#fff}
h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.2em;margin:1.6em 0 .5em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.4em 0}th,td{border:1px solid #d0d0d0;padding:2px 6px;text-align:right;
vertical-align:top}th{background:#f2f2f2;position:sticky;top:0}td.name,th.name{text-align:left;
font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}td.empty{color:#bbb;text-align:center}
.n{display:inline-block;min-width:1.6em;margin:0 1px;padding:0 3px;border-radius:3px;font-size:12px;
text-align:center}.n i{font-style:normal;font-size:9px;opacity:.7;margin-right:2px}.n b{font-weight:600}
#findings{table-layout:fixed;width:100%}#findings td{word-break:break-all}.c-pass{background:#cdeccd}.c-fail{background:#f5b5b5}.c-spec_divergence{background:#f7d89c}
.c-not_supported{background:#dde3ee}.c-compile_error{background:#f0a0c8}.c-crash{background:#d46a6a;color:#fff}
.c-timeout{background:#c9a0dc}.c-skipped{background:#eeeeee;color:#555}
.nim{color:#c33;font-weight:600}.warn{border:2px solid #c33;background:#fdecec;padding:.5em 1em;margin:1em 0}
.track{display:block;width:180px;height:8px;background:#eee;margin-top:2px;font-size:0}
.bar{display:inline-block;height:8px;background:#5a5}.bar.ex{background:#9bd}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;white-space:pre-wrap;word-break:break-all}
td[data-col],#summary td.name{white-space:nowrap}details{margin:.3em 0}summary{cursor:pointer;font-weight:600}.muted{color:#666}td.msg{text-align:left;max-width:40em}
"""


def _e(x):
    return escape(str(x), quote=True)


def _cell(cell, classes, attrs):
    if not cell:
        return f'<td class="empty" {attrs}>&middot;</td>'
    spans = "".join(f'<span class="n c-{c}" title="{c}: {cell[c]}"><i>{ABBREV[c]}</i>'
                    f'<b data-class="{c}">{cell[c]}</b></span>' for c in classes if cell.get(c))
    return f"<td {attrs}>{spans}</td>"


def _head(columns, first):
    ths = "".join(f'<th title="{_e(", ".join(c["devices"] or c["runs"]))}">{_e(c["label"])}</th>' for c in columns)
    return f'<tr><th class="name">{first}</th>{ths}</tr>'


def render(rep):
    classes, columns = rep["classes"], rep["columns"]
    out = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
           f'<meta name="viewport" content="width=device-width"><title>{_e(rep["title"])}</title>',
           f"<style>{CSS}</style></head><body>", f'<h1 id="title">{_e(rep["title"])}</h1>',
           f'<p class="muted">Forms in the model: <span data-metric="forms">{rep["manifest"]["forms"]}</span> '
           f'({rep["manifest"]["forms_valid"]} valid) from <code>{_e(rep["manifest"]["path"])}</code>. '
           "Legend: " + " ".join(f'<span class="n c-{c}">{ABBREV[c]}</span> {c}' for c in classes) + "</p>"]

    if rep["missing_shards"]:
        out.append('<div class="warn" id="missing-shards"><strong>Missing shards: these results are incomplete.'
                   "</strong><ul>")
        out += [f'<li data-missing-shard="{_e(m["run_id"])}/{m["index"]}">run <code>{_e(m["run_id"])}</code>: '
                f'shard index {m["index"]} of count {m["count"]} is missing</li>' for m in rep["missing_shards"]]
        out.append("</ul></div>")
    if rep["replaced"]:
        out.append(f'<p class="warn">{len(rep["replaced"])} results were taken from a later run over an earlier '
                   "one (--prefer-later); report.json lists them.</p>")

    out.append('<h2>Runs</h2><table id="runs"><tr><th class="name">run</th><th class="name">tier</th>'
               '<th class="name">device</th><th class="name">toolchain</th><th>seed</th><th>shards</th>'
               "<th>cases</th></tr>")
    for r in rep["runs"]:
        dev = f'{r["device"]["sm"]} &middot; {_e(r["device"]["name"])}' if r["device"] else "none"
        tc = ", ".join(f"{k} {v}" for k, v in sorted(r["toolchain"].items()) if v not in (None, ""))
        sh = f'{len(r["shards"]["present"])}/{r["shards"]["count"]}'
        out.append(f'<tr><td class="name">{_e(r["run_id"])}</td><td class="name">{_e(r["tier"])}</td>'
                   f'<td class="name">{dev}</td><td class="name">{_e(tc)}</td><td>{"-" if r["seed"] is None else r["seed"]}</td>'
                   f'<td>{sh}</td><td>{r["cases"]}</td></tr>')
    out.append("</table>")

    out.append('<h2>Summary per architecture</h2><table id="summary"><tr><th class="name">column</th>'
               + "".join(f'<th><span class="n c-{c}">{ABBREV[c]}</span> {c}</th>' for c in classes)
               + "<th>total</th><th>forms exercised</th><th>forms passing</th><th>valid forms passing</th>"
               "<th>coverage</th></tr>")
    for col in columns:
        k = col["key"]
        s, cv = rep["summary"][k], rep["coverage"][k]
        tds = "".join(f'<td data-class="{c}">{s[c]}</td>' for c in classes)
        out.append(f'<tr data-col="{_e(k)}"><td class="name" title="{_e(", ".join(col["devices"]))}">'
                   f'{_e(col["label"])}</td>{tds}<td data-class="total">{s["total"]}</td>'
                   f'<td data-metric="exercised">{cv["exercised"]}</td><td data-metric="passing">{cv["passing"]}'
                   f'</td><td><span data-metric="passing_valid">{cv["passing_valid"]}</span>/{cv["valid_forms"]}'
                   f'</td><td class="name"><span data-metric="passing_pct">{cv["passing_pct"]}</span>% passing, '
                   f'<span data-metric="exercised_pct">{cv["exercised_pct"]}</span>% exercised'
                   f'<span class="track"><span class="bar" style="width:{cv["passing_pct"]}%"></span><span '
                   f'class="bar ex" style="width:{round(cv["exercised_pct"] - cv["passing_pct"], 1)}%"></span>'
                   "</span></td></tr>")
    out.append("</table>")

    out.append('<h2>Families</h2><table id="families">' + _head(columns, "family (forms)"))
    for fam in rep["families"]:
        tds = "".join(_cell(fam["cells"].get(c["key"]), classes, f'data-col="{_e(c["key"])}"') for c in columns)
        out.append(f'<tr data-family="{_e(fam["family"])}"><td class="name">{_e(fam["family"])} '
                   f'({fam["forms"]})</td>{tds}</tr>')
    out.append("</table>")

    out.append("<h2>Forms</h2>")
    by_family = {}
    for row in rep["rows"]:
        by_family.setdefault(row["family"], []).append(row)
    for family, rows in by_family.items():
        bad = any(any(cell.get(c) for c in FINDINGS) for r in rows for cell in r["cells"].values())
        out.append(f'<details{" open" if bad else ""}><summary>{_e(family)} &mdash; {len(rows)} forms'
                   f'{" (with findings)" if bad else ""}</summary><table class="forms">' + _head(columns, "form"))
        for row in rows:
            tds = "".join(_cell(row["cells"].get(c["key"]), classes, f'data-col="{_e(c["key"])}"') for c in columns)
            note = "" if row["in_manifest"] else ' <span class="nim">(not in the manifest)</span>'
            out.append(f'<tr data-form="{_e(row["form"])}"><td class="name">{_e(row["form"])}{note}</td>{tds}</tr>')
        out.append("</table></details>")

    out.append(f'<h2>Findings (<span data-metric="findings">{len(rep["findings"])}</span>)</h2>')
    if rep["findings"]:
        out.append('<table id="findings"><colgroup><col style="width:8em"><col style="width:10.5em"><col style="width:32%">'
                   '<col style="width:22%"><col></colgroup><tr><th class="name">column</th><th class="name">class'
                   '</th><th class="name">case</th><th class="name">message</th><th class="name">replay</th></tr>')
        for f in rep["findings"]:
            out.append(f'<tr data-key="{_e(f["key"])}"><td class="name">{_e(f["column"])}</td><td class="name">'
                       f'<span class="n c-{f["class"]}">{_e(f["class"])}</span></td><td class="name">'
                       f'{_e(f["id"])}<br><span class="muted">{_e(f["load_path"])}, run {_e(f["run_id"])}</span>'
                       f'</td><td class="msg">{_e(f["message"])}</td><td class="name"><code data-replay>'
                       f'{_e(f["replay"])}</code></td></tr>')
        out.append("</table>")
    else:
        out.append("<p>No fails, divergences, compile errors, crashes or timeouts.</p>")

    if rep["not_supported"]:
        out.append('<h2>Not supported, by reason</h2><table id="not-supported"><tr><th class="name">column</th>'
                   '<th class="name">reason</th><th>cases</th></tr>')
        out += [f'<tr><td class="name">{_e(n["column"])}</td><td class="msg">{_e(n["reason"])}</td>'
                f'<td>{n["count"]}</td></tr>' for n in rep["not_supported"]]
        out.append("</table>")

    out.append('<h2>Definitions</h2><p class="muted">A cell counts the cases of that form in that column per result '
               "class. Columns: the compile tier per target (ptxas on the CPU), the run tier per device "
               "architecture. Spec coverage of a column: of all forms in the model, the share with at least one "
               "case that reached a verdict there (exercised) and the share exercised with no fail, divergence, "
               "compile error, crash or timeout there (passing); valid forms passing counts the passing forms "
               "among the valid ones (the only ones the run tier runs). not_supported and skipped never count "
               "as passed.</p></body></html>\n")
    return "\n".join(out)
