"""The report as static HTML: a small index page (report.html) that leads with what matters, and one page per
family (families/<family>.html) with the per-form tables and every finding, loaded only when opened.

Inline CSS and SVG, no script, no external resource. Every number on a page is an element's text, marked with
data-* attributes (data-col, data-class, data-form, data-family, data-group, data-metric) so that a test reading
the rendered DOM can find it and compare it with report.json.
"""
from html import escape

from .schema import FINDINGS

ABBREV = {"pass": "P", "fail": "F", "spec_divergence": "D", "beyond_chapter": "B", "not_supported": "N",
          "compile_error": "CE", "crash": "C", "timeout": "T", "skipped": "S"}
COLOURS = {"pass": "#cdeccd", "fail": "#f5b5b5", "spec_divergence": "#f7d89c", "beyond_chapter": "#a9d6f0",
           "not_supported": "#dde3ee", "compile_error": "#f0a0c8", "crash": "#d46a6a", "timeout": "#c9a0dc",
           "skipped": "#eeeeee"}
KIND_LABEL = {"regression": "REGRESSION", "changed": "CHANGED", "lost": "LOST", "new_finding": "NEW FINDING"}

CSS = """
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


def _e(x):
    return escape(str(x), quote=True)


def _cell(cell, classes):
    """A count cell: one <b class="c-CLASS">N</b> per class present (the class's letter comes from the CSS); its
    column is the header's th[data-col] at the same position (kept out of each cell: the pages stay small)."""
    if not cell:
        return "<td></td>"
    return "<td>" + "".join(f'<b class="c-{c}">{cell[c]}</b>' for c in classes if cell.get(c)) + "</td>"


def _head(columns, first):
    ths = "".join(f'<th data-col="{_e(c["key"])}" title="{_e(", ".join(c["devices"] or c["runs"]))}">'
                  f'{_e(c["label"])}</th>' for c in columns)
    return f'<tr><th class="name">{first}</th>{ths}</tr>'


def _page(title, body):
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width"><title>{_e(title)}</title><style>{CSS}</style></head><body>\n'
            + "\n".join(body) + "\n</body></html>\n")


def _badge(cls):
    return f'<span class="n c-{cls}">{_e(cls)}</span>'


def _legend(classes):
    return " ".join(f'<span class="n c-{c}">{ABBREV[c]}</span> {c}' for c in classes)


def _label_of(rep):
    return {c["key"]: c["label"] for c in rep["columns"]}


def render(rep):
    """{relative path: text}: report.html and families/<slug>.html."""
    files = {"report.html": _index(rep)}
    for fam in rep["families"]:
        files[f"families/{fam['slug']}.html"] = _family_page(rep, fam)
    return files


# ---------------------------------------------------------------------------------------------------------- index

def _index(rep):
    classes = rep["classes"]
    out = [f'<h1 id="title">{_e(rep["title"])}</h1>',
           f'<p class="muted">Forms in the model: <span data-metric="forms">{rep["manifest"]["forms"]}</span> '
           f'({rep["manifest"]["forms_valid"]} valid) from <code>{_e(rep["manifest"]["path"])}</code>; '
           f'toolchains {_e(", ".join(rep["toolchains"]))}. Legend: {_legend(classes)}</p>']
    sections = [("summary-sec", "Summary"), ("regressions", "Regressions against the baseline"),
                ("unexplained", "New and unexplained findings"), ("coverage", "Coverage per architecture"),
                ("pictures", "Pictures: families x columns, findings per kind"),
                ("finding-groups-sec", "Findings, grouped by finding")]
    if rep["toolchain_diffs"]:
        sections.append(("toolchain-diffs", "Differences between toolchains"))
    sections += [("families-sec", "Families (per-family pages)"), ("not-supported-sec", "Not supported, by reason"),
                 ("runs-sec", "Runs"), ("definitions", "Definitions")]
    out.append('<nav id="toc"><strong>Contents</strong><ul>'
               + "".join(f'<li><a href="#{i}">{_e(t)}</a></li>' for i, t in sections) + "</ul></nav>")
    out += _warnings(rep)
    out += _summary(rep)
    out += _regressions(rep)
    out += _unexplained(rep)
    out += _coverage_table(rep)
    out += _pictures(rep)
    out += _groups_table(rep, rep["finding_groups"], "finding-groups-sec", "Findings, grouped by finding",
                         "finding-groups")
    if rep["toolchain_diffs"]:
        out += _toolchain_diffs(rep)
    out += _families_table(rep)
    out += _not_supported(rep)
    out += _runs(rep)
    out.append('<h2 id="definitions">Definitions</h2><p class="muted">A cell counts the cases of that form or family in '
               "that column per result class. Columns: the compile tier per target (ptxas on the CPU), the run tier "
               "per device architecture; with several toolchains of one tier, one column per toolchain "
               "([name]). Exercised: forms with at least one case that reached a verdict there; passing: exercised "
               "with no fail, divergence, compile error, crash or timeout there; valid passing: the passing forms "
               "among those with a case the manifest expects to be accepted at the column's targets (its "
               "denominator; 0 where nothing is expected to assemble, e.g. sm_75). beyond_chapter: an invalid case "
               "a newer toolchain accepts at a PTX version newer than the chapter; counted, not a finding. "
               "Unexplained: fail, compile error, crash or timeout, which no reviewed finding or named policy "
               "covers. not_supported and skipped never count as passed.</p>")
    return _page(rep["title"], out)


def _warnings(rep):
    out = []
    if rep["missing_shards"]:
        out.append('<div class="warn" id="missing-shards"><strong>Missing shards: these results are incomplete.'
                   "</strong><ul>")
        out += [f'<li data-missing-shard="{_e(m["run_id"])}/{m["index"]}">run <code>{_e(m["run_id"])}</code>: '
                f'shard index {m["index"]} of count {m["count"]} is missing</li>' for m in rep["missing_shards"]]
        out.append("</ul></div>")
    if rep["partial_runs"]:
        out.append('<div class="warn" id="partial-runs"><strong>Partial runs: stopped before every case was judged.'
                   "</strong><ul>")
        out += [f'<li data-partial="{_e(p["run_id"])}/{p["index"]}">run <code>{_e(p["run_id"])}</code>'
                + (f' shard {p["index"]}/{p["count"]}' if p["count"] > 1 else "")
                + f': {_e(p["reason"])} ({p["done"]} of {p["total"]} cases)</li>' for p in rep["partial_runs"]]
        out.append("</ul></div>")
    if rep["replaced"]:
        out.append(f'<p class="warn">{len(rep["replaced"])} results were taken from a later run over an earlier '
                   "one (--prefer-later); report.json lists them.</p>")
    return out


def _summary(rep):
    regress = sum(r.get("regressions", 0) for r in rep["regressions"])
    unexplained = sum(g["count"] for g in rep["finding_groups"] if g["unexplained"])
    beyond = sum(s.get("beyond_chapter", 0) for s in rep["summary"].values())
    total = sum(s["total"] for s in rep["summary"].values())
    kpis = [("results", total, "results"), ("regressions", regress, "regressions against the baselines"),
            ("unexplained", unexplained, "unexplained findings (fail, compile error, crash, timeout)"),
            ("findings", rep["findings_total"], f'findings in {len(rep["finding_groups"])} groups'),
            ("beyond_chapter", beyond, "beyond the chapter (newer toolchain)")]
    return ['<h2 id="summary-sec">Summary</h2><div>'
            + "".join(f'<span class="kpi"><span class="big" data-metric="{k}">{v}</span><br>{_e(t)}</span>'
                      for k, v, t in kpis) + "</div>"]


def _regressions(rep):
    out = ['<h2 id="regressions">Regressions against the baseline</h2>']
    if not rep["regressions"]:
        out.append('<p class="muted">No baseline folder was given (--baselines).</p>')
    for r in rep["regressions"]:
        what = f'{r["tier"]} tier, toolchain {r["toolchain"]}, {r["sm"] or "no device"}'
        if not r["found"]:
            out.append(f'<p class="box" data-baseline="{_e(r["baseline"])}">{_e(what)}: no baseline '
                       f'<code>results/baselines/{_e(r["baseline"])}</code> (review the run, then create it with '
                       "<code>./ptxcts gate RUN --update</code>)</p>")
            continue
        cls = "warn" if r["regressions"] else "ok"
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(r["counts"].items()))
        out.append(f'<div class="{cls}" data-baseline="{_e(r["baseline"])}"><strong>{_e(what)}</strong> against '
                   f'<code>results/baselines/{_e(r["baseline"])}</code>: <span data-metric="regressions">'
                   f'{r["regressions"]}</span> regressions; {_e(counts)}'
                   + (f'; {r["missing"]} baseline cases are not in these runs' if r["missing"] else "")
                   + ". Waivers are not applied here: <code>./ptxcts gate</code> gives the verdict.")
        if r["listed"]:
            out.append('<table><tr><th class="name">kind</th><th class="name">baseline &rarr; run</th>'
                       '<th class="name">case key</th><th class="name">replay</th></tr>')
            out += [f'<tr><td class="name">{KIND_LABEL.get(e["kind"], e["kind"])}</td><td class="name">'
                    f'{_e(e["baseline"] or "(new)")} &rarr; {_e(e["run"])}</td><td class="name">{_e(e["key"])}</td>'
                    f'<td class="name"><code>{_e(e["replay"])}</code></td></tr>' for e in r["listed"]]
            out.append("</table>")
            if r["regressions"] > len(r["listed"]):
                out.append(f'<p class="muted">... and {r["regressions"] - len(r["listed"])} more: ./ptxcts gate '
                           "lists them all.</p>")
        out.append("</div>")
    return out


def _unexplained(rep):
    groups = [g for g in rep["finding_groups"] if g["unexplained"]]
    out = ['<h2 id="unexplained">New and unexplained findings</h2>']
    if not groups:
        return out + ['<p class="ok">None: every finding is covered by a reviewed finding or a named policy.</p>']
    out.append(f'<p>{sum(g["count"] for g in groups)} cases in {len(groups)} groups with no reviewed finding or named '
               "policy behind them. Each group's examples replay alone.</p>")
    return out + _group_rows(rep, groups, "unexplained-groups")


def _groups_table(rep, groups, sec_id, title, table_id):
    out = [f'<h2 id="{sec_id}">{_e(title)} (<span data-metric="finding_groups">{len(groups)}</span> groups, '
           f'{rep["findings_total"]} cases)</h2>']
    if not groups:
        return out + ["<p>No fails, divergences, compile errors, crashes or timeouts.</p>"]
    return out + _group_rows(rep, groups, table_id)


def _where(rep, counts):
    labels = _label_of(rep)
    items = sorted(counts.items(), key=lambda kv: -kv[1])
    text = ", ".join(f"{labels.get(k, k)}: {n}" for k, n in items[:6])
    return text + (f", and {len(items) - 6} more columns" if len(items) > 6 else "")


def _group_rows(rep, groups, table_id):
    out = [f'<table id="{table_id}"><tr><th class="name">class</th><th>cases</th><th class="name">where</th>'
           '<th class="name">finding / message, examples</th></tr>']
    for g in groups:
        first = g["message"].strip().split("\n")[0]
        short = first if len(first) <= 240 else first[:240] + "\u2026"
        label = {"finding": "reviewed finding ", "policy": "policy ", "message": ""}[g["kind"]]
        head = f'<strong>{_e(label + g["signature"])}</strong>' if g["kind"] != "message" else _e(short)
        examples = "".join(f'<li><code>{_e(x["id"])}</code> <span class="muted">({_e(_label_of(rep).get(x["column"], x["column"]))})'
                           f'</span><br><code data-replay>{_e(x["replay"])}</code></li>' for x in g["examples"])
        fams = ", ".join(f'<a href="families/{_e(_slug(rep, f))}.html">{_e(f)}</a>' for f in g["families"])
        out.append(f'<tr id="{g["group"]}" data-group="{g["group"]}" data-class="{g["class"]}"><td class="name">'
                   f'{_badge(g["class"])}</td><td><b data-metric="count">{g["count"]}</b></td><td class="name">'
                   f'{_e(_where(rep, g["columns"]))}<br>{fams}</td><td class="msg">{head}<details><summary>message and '
                   f'{len(g["examples"])} of {g["count"]} cases</summary><code>{_e(g["message"])}</code><ul>{examples}'
                   "</ul></details></td></tr>")
    return out + ["</table>"]


def _slug(rep, family):
    for f in rep["families"]:
        if f["family"] == family:
            return f["slug"]
    return family


def _coverage_table(rep):
    classes = rep["classes"]
    out = ['<h2 id="coverage">Coverage per architecture</h2><table id="summary"><tr><th class="name">column</th>'
           + "".join(f'<th title="{c}"><span class="n c-{c}">{ABBREV[c]}</span></th>' for c in classes)
           + "<th>total</th><th>forms exercised</th><th>forms passing</th><th>valid forms passing</th>"
           "<th>coverage</th></tr>"]
    for col in rep["columns"]:
        k = col["key"]
        s, cv = rep["summary"][k], rep["coverage"][k]
        tds = "".join(f'<td data-class="{c}">{s[c]}</td>' for c in classes)
        vpct = "n/a" if cv["passing_valid_pct"] is None else f'{cv["passing_valid_pct"]}%'
        out.append(f'<tr data-col="{_e(k)}"><td class="name" title="{_e(", ".join(col["devices"]))}">'
                   f'{_e(col["label"])}</td>{tds}<td data-class="total">{s["total"]}</td>'
                   f'<td data-metric="exercised">{cv["exercised"]}</td><td data-metric="passing">{cv["passing"]}'
                   f'</td><td><span data-metric="passing_valid">{cv["passing_valid"]}</span>/<span '
                   f'data-metric="valid_forms">{cv["valid_forms"]}</span> ({vpct})</td><td class="name"><span '
                   f'data-metric="passing_pct">{cv["passing_pct"]}</span>% passing, <span data-metric="exercised_pct">'
                   f'{cv["exercised_pct"]}</span>% exercised<span class="track"><span class="bar" style="width:'
                   f'{cv["passing_pct"]}%"></span><span class="bar ex" style="width:'
                   f'{round(cv["exercised_pct"] - cv["passing_pct"], 1)}%"></span></span></td></tr>')
    return out + ["</table>"]


def _heat_colour(cell):
    if not cell:
        return "#ffffff", "no case"
    if any(cell.get(c) for c in ("fail", "compile_error", "crash", "timeout")):
        return "#d9534f", "unexplained findings"
    if cell.get("spec_divergence"):
        return "#f0ad4e", "reviewed divergences"
    if cell.get("beyond_chapter"):
        return "#5bc0de", "beyond the chapter"
    if cell.get("pass"):
        return "#5cb85c", "all verdicts pass"
    return "#d5d5d5", "no verdict (not supported / skipped)"


def _pictures(rep):
    cols, fams = rep["columns"], rep["families"]
    cw, rh, lw, top = 22, 20, 230, 110
    width, height = max(lw + cw * len(cols) + 120, lw + 5 * 130), top + rh * len(fams) + 40
    svg = [f'<svg id="heatmap" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">']
    for j, c in enumerate(cols):
        x = lw + cw * j + cw / 2
        svg.append(f'<text transform="translate({x + 4},{top - 6}) rotate(-60)">{_e(c["label"])}</text>')
    for i, f in enumerate(fams):
        y = top + rh * i
        svg.append(f'<a href="families/{_e(f["slug"])}.html"><text x="{lw - 6}" y="{y + 14}" '
                   f'text-anchor="end">{_e(f["family"])}</text></a>')
        for j, c in enumerate(cols):
            cell = f["cells"].get(c["key"])
            colour, meaning = _heat_colour(cell)
            counts = ", ".join(f"{k} {v}" for k, v in sorted((cell or {}).items()))
            svg.append(f'<rect x="{lw + cw * j}" y="{y}" width="{cw - 2}" height="{rh - 2}" fill="{colour}" '
                       f'stroke="#bbb"><title>{_e(f["family"])} x {_e(c["label"])}: {meaning}'
                       f'{"; " + _e(counts) if counts else ""}</title></rect>')
    ly = top + rh * len(fams) + 14
    for n, (colour, text) in enumerate((("#5cb85c", "pass"), ("#f0ad4e", "reviewed divergence"),
                                        ("#5bc0de", "beyond chapter"), ("#d9534f", "unexplained"),
                                        ("#d5d5d5", "no verdict"))):
        x = lw + n * 130
        svg.append(f'<rect x="{x}" y="{ly}" width="12" height="12" fill="{colour}"/><text x="{x + 16}" y="{ly + 10}">'
                   f"{text}</text>")
    svg.append("</svg>")

    totals = {}
    for s in rep["summary"].values():
        for c in FINDINGS + ("beyond_chapter",):
            totals[c] = totals.get(c, 0) + s.get(c, 0)
    top_n = max(totals.values()) or 1
    bw, bh = 420, 22
    bars = [f'<svg id="findings-chart" width="{150 + bw + 60}" '
            f'height="{bh * len(totals) + 10}" font-family="sans-serif" font-size="12">']
    for i, (c, n) in enumerate(totals.items()):
        w = round(bw * n / top_n, 1)
        bars.append(f'<text x="145" y="{i * bh + 15}" text-anchor="end">{c}</text><rect x="150" y="{i * bh + 3}" '
                    f'width="{w}" height="{bh - 6}" fill="{COLOURS[c]}" stroke="#999"><title>{c}: {n}</title></rect>'
                    f'<text x="{150 + w + 5}" y="{i * bh + 15}" data-class="{c}">{n}</text>')
    bars.append("</svg>")
    return ['<h2 id="pictures">Pictures</h2><p class="muted">Families x columns, coloured by the worst verdict in the '
            "cell (hover for the counts; a family's name opens its page):</p>", "".join(svg),
            '<p class="muted">Findings per kind, all columns:</p>', "".join(bars)]


def _toolchain_diffs(rep):
    out = ['<h2 id="toolchain-diffs">Differences between toolchains</h2>']
    for d in rep["toolchain_diffs"]:
        title = f'{d["tier"]}{" " + d["sm"] if d.get("sm") else ""}: toolchain {d["a"]["toolchain"]} &rarr; {d["b"]["toolchain"]}'
        trs = ", ".join(f"{_e(t)}: {n}" for t, n in d["transitions"].items()) or "none"
        out.append(f'<h3>{title}</h3><p><span data-metric="changed">{d["changed"]}</span> cases changed of '
                   f'{d["matched"]} in both ({d["only_a"]} only in {_e(d["a"]["toolchain"])}, {d["only_b"]} only in '
                   f'{_e(d["b"]["toolchain"])}); transitions: {trs}</p>')
        for dim in ("family", "rule", "target", "ptx"):
            rows = d["groups"][dim]
            if not rows:
                continue
            table = [f'<table class="diff"><tr><th class="name">{dim}</th><th class="name">transition</th><th>cases'
                     '</th><th class="name">examples (A / B)</th></tr>']
            for row in rows:
                for tr in row["transitions"]:
                    exs = "".join(f'<li><code>{_e(x["id"])}</code><br>A {_e(x["a"]["class"])}: '
                                  f'{_e((x["a"].get("message") or "")[:200])}<br>B {_e(x["b"]["class"])}: '
                                  f'{_e((x["b"].get("message") or "")[:200])}</li>' for x in tr["examples"])
                    table.append(f'<tr><td class="name">{_e(row["group"])}</td><td class="name">{_e(tr["from"])} '
                                 f'&rarr; {_e(tr["to"])}</td><td>{tr["count"]}</td><td class="msg"><details><summary>'
                                 f'{len(tr["examples"])} examples</summary><ul>{exs}</ul></details></td></tr>')
            table.append("</table>")
            out.append(f'<details{" open" if dim == "family" else ""}><summary>per {dim} ({len(rows)})</summary>'
                       + "".join(table) + "</details>")
    return out


def _families_table(rep):
    classes, columns = rep["classes"], rep["columns"]
    out = ['<h2 id="families-sec">Families</h2><p class="muted">Each family\'s page has its forms, cell by cell, and '
           'every finding with its replay command.</p><table id="families">' + _head(columns, "family (forms)")]
    for fam in rep["families"]:
        tds = "".join(_cell(fam["cells"].get(c["key"]), classes) for c in columns)
        out.append(f'<tr data-family="{_e(fam["family"])}"><td class="name"><a href="families/{_e(fam["slug"])}.html">'
                   f'{_e(fam["family"])}</a> ({fam["forms"]})</td>{tds}</tr>')
    return out + ["</table>"]


def _not_supported(rep):
    out = ['<h2 id="not-supported-sec">Not supported, by reason</h2>']
    if not rep["not_supported"]:
        return out + ["<p>None.</p>"]
    labels = _label_of(rep)
    out.append('<p class="muted">Reasons with their numbers and targets folded (#).</p><table id="not-supported">'
               '<tr><th class="name">column</th><th class="name">reason</th><th>cases</th></tr>')
    out += [f'<tr><td class="name">{_e(labels.get(n["column"], n["column"]))}</td><td class="msg">{_e(n["reason"])}'
            f'</td><td>{n["count"]}</td></tr>' for n in rep["not_supported"]]
    return out + ["</table>"]


def _runs(rep):
    out = ['<h2 id="runs-sec">Runs</h2><table id="runs"><tr><th class="name">run</th><th class="name">tier</th>'
           '<th class="name">device</th><th class="name">toolchain</th><th>seed</th><th>shards</th><th>cases</th></tr>']
    for r in rep["runs"]:
        dev = f'{r["device"]["sm"]} &middot; {_e(r["device"]["name"])}' if r["device"] else "none"
        tc = f'[{r["toolchain_name"]}] ' + ", ".join(f"{k} {v}" for k, v in sorted(r["toolchain"].items())
                                                   if v not in (None, ""))
        sh = f'{len(r["shards"]["present"])}/{r["shards"]["count"]}' + (" partial" if r["partial"] else "")
        out.append(f'<tr><td class="name">{_e(r["run_id"])}</td><td class="name">{_e(r["tier"])}</td>'
                   f'<td class="name">{dev}</td><td class="name">{_e(tc)}</td><td>'
                   f'{"-" if r["seed"] is None else r["seed"]}</td><td>{sh}</td><td>{r["cases"]}</td></tr>')
    return out + ["</table>"]


# ----------------------------------------------------------------------------------------------------- family page

def _family_page(rep, fam):
    classes, columns = rep["classes"], rep["columns"]
    labels = _label_of(rep)
    rows = [r for r in rep["rows"] if r["family"] == fam["family"]]
    findings = [f for f in rep["findings"] if f["family"] == fam["family"]]
    out = [f'<p><a href="../report.html">&larr; {_e(rep["title"])}</a></p>',
           f'<h1 id="title" data-family-page="{_e(fam["family"])}">{_e(fam["family"])}</h1>',
           f'<p class="muted">{len(rows)} forms; {len(findings)} findings. Legend: {_legend(classes)}</p>',
           '<h2 id="forms">Forms</h2><table class="forms">' + _head(columns, "form")]
    for row in rows:
        tds = "".join(_cell(row["cells"].get(c["key"]), classes) for c in columns)
        note = "" if row["in_manifest"] else ' <span class="nim">(not in the manifest)</span>'
        out.append(f'<tr data-form="{_e(row["form"])}"><td class="name">{_e(row["form"])}{note}</td>{tds}</tr>')
    out.append("</table>")
    out.append(f'<h2 id="findings">Findings ({len(findings)})</h2>')
    if findings:
        out.append('<table id="findings-list"><tr><th class="name">class</th><th class="name">case, column</th>'
                   '<th class="name">group</th><th class="name">replay</th></tr>')
        out += [f'<tr data-key="{_e(f["key"])}"><td class="name">{_badge(f["class"])}</td><td class="name">{_e(f["id"])}'
                f'<br><span class="muted">{_e(labels.get(f["column"], f["column"]))}</span></td><td class="name">'
                f'<a href="../report.html#{f["group"]}">{f["group"]}</a></td><td class="name"><code data-replay>'
                f'{_e(f["replay"])}</code></td></tr>' for f in findings]
        out.append("</table>")
    else:
        out.append("<p>None.</p>")
    return _page(f'{fam["family"]} - {rep["title"]}', out)
