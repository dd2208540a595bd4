"""The report as static HTML: a small index page (report.html) that leads with what matters, and one page per
family (families/<family>.html, render_family.py) with the per-form tables and every finding, loaded only when
opened.

One stylesheet for every page (report.css, html_page.py), inline SVG (html_pictures.py), no script, nothing
from outside the report's folder. Every number on a page is an element's text, marked with
data-* attributes (data-col, data-class, data-form, data-family, data-group, data-metric) so that a test reading
the rendered DOM can find it and compare it with report.json.
"""
from . import selftests
from .html_page import (ABBREV, STYLESHEET, STYLESHEET_FILE, badge, column_labels, count_cell, esc,
                        header_row, legend, page)
from .html_pictures import pictures
from .render_family import family_page

KIND_LABEL = {"regression": "REGRESSION", "changed": "CHANGED", "lost": "LOST", "new_finding": "NEW FINDING"}


def render(rep):
    """{relative path: text}: report.html, report.css and families/<slug>.html."""
    files = {"report.html": _index(rep), STYLESHEET_FILE: STYLESHEET}
    for fam in rep["families"]:
        files[f"families/{fam['slug']}.html"] = family_page(rep, fam)
    return files


# ---------------------------------------------------------------------------------------------------------- index

def _index(rep):
    classes = rep["classes"]
    out = [f'<h1 id="title">{esc(rep["title"])}</h1>',
           f'<p class="muted">Forms in the model: <span data-metric="forms">{rep["manifest"]["forms"]}</span> '
           f'({rep["manifest"]["forms_valid"]} valid) from <code>{esc(rep["manifest"]["path"])}</code>; '
           f'toolchains {esc(", ".join(rep["toolchains"]))}. Legend: {legend(classes)}</p>']
    sections = [("summary-sec", "Summary"), ("regressions", "Regressions against the baseline"),
                ("unexplained", "New and unexplained findings"), ("coverage", "Coverage per architecture"),
                ("pictures", "Pictures: families x columns, findings per kind"),
                ("finding-groups-sec", "Findings, grouped by finding")]
    if rep["toolchain_diffs"]:
        sections.append(("toolchain-diffs", "Differences between toolchains"))
    if rep.get("explorations"):
        sections.append(("explorations", "Explorations: the parameter space covered"))
    if rep.get("selftests"):
        sections.append(("selftests", "Self-test: faults planted and caught"))
    sections += [("families-sec", "Families (per-family pages)"), ("not-supported-sec", "Not supported, by reason"),
                 ("runs-sec", "Runs"), ("definitions", "Definitions")]
    out.append('<nav id="toc"><strong>Contents</strong><ul>'
               + "".join(f'<li><a href="#{i}">{esc(t)}</a></li>' for i, t in sections) + "</ul></nav>")
    out += _warnings(rep)
    out += _summary(rep)
    out += _regressions(rep)
    out += _unexplained(rep)
    out += _coverage_table(rep)
    out += pictures(rep)
    out += _groups_table(rep, rep["finding_groups"], "finding-groups-sec", "Findings, grouped by finding",
                         "finding-groups")
    if rep["toolchain_diffs"]:
        out += _toolchain_diffs(rep)
    if rep.get("explorations"):
        out += _explorations(rep)
    if rep.get("selftests"):
        out += _selftests(rep)
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
    return page(rep["title"], out, STYLESHEET_FILE)


def _warnings(rep):
    out = []
    if rep["missing_shards"]:
        out.append('<div class="warn" id="missing-shards"><strong>Missing shards: these results are incomplete.'
                   "</strong><ul>")
        out += [f'<li data-missing-shard="{esc(m["run_id"])}/{m["index"]}">run <code>{esc(m["run_id"])}</code>: '
                f'shard index {m["index"]} of count {m["count"]} is missing</li>' for m in rep["missing_shards"]]
        out.append("</ul></div>")
    if rep["partial_runs"]:
        out.append('<div class="warn" id="partial-runs"><strong>Partial runs: stopped before every case was judged.'
                   "</strong><ul>")
        out += [f'<li data-partial="{esc(p["run_id"])}/{p["index"]}">run <code>{esc(p["run_id"])}</code>'
                + (f' shard {p["index"]}/{p["count"]}' if p["count"] > 1 else "")
                + f': {esc(p["reason"])} ({p["done"]} of {p["total"]} cases)</li>' for p in rep["partial_runs"]]
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
            + "".join(f'<span class="kpi"><span class="big" data-metric="{k}">{v}</span><br>{esc(t)}</span>'
                      for k, v, t in kpis) + "</div>"]


def _regressions(rep):
    out = ['<h2 id="regressions">Regressions against the baseline</h2>']
    if not rep["regressions"]:
        out.append('<p class="muted">No baseline folder was given (--baselines).</p>')
    for r in rep["regressions"]:
        what = f'{r["tier"]} tier, toolchain {r["toolchain"]}, {r["sm"] or "no device"}'
        if not r["found"]:
            out.append(f'<p class="box" data-baseline="{esc(r["baseline"])}">{esc(what)}: no baseline '
                       f'<code>results/baselines/{esc(r["baseline"])}</code> (review the run, then create it with '
                       "<code>./ptxcts gate RUN --update</code>)</p>")
            continue
        cls = "warn" if r["regressions"] else "ok"
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(r["counts"].items()))
        out.append(f'<div class="{cls}" data-baseline="{esc(r["baseline"])}"><strong>{esc(what)}</strong> against '
                   f'<code>results/baselines/{esc(r["baseline"])}</code>: <span data-metric="regressions">'
                   f'{r["regressions"]}</span> regressions; {esc(counts)}'
                   + (f'; {r["missing"]} baseline cases are not in these runs' if r["missing"] else "")
                   + ". Waivers are not applied here: <code>./ptxcts gate</code> gives the verdict.")
        if r["listed"]:
            out.append('<table><tr><th class="name">kind</th><th class="name">baseline &rarr; run</th>'
                       '<th class="name">case key</th><th class="name">replay</th></tr>')
            out += [f'<tr><td class="name">{KIND_LABEL.get(e["kind"], e["kind"])}</td><td class="name">'
                    f'{esc(e["baseline"] or "(new)")} &rarr; {esc(e["run"])}</td><td class="name">{esc(e["key"])}</td>'
                    f'<td class="name"><code>{esc(e["replay"])}</code></td></tr>' for e in r["listed"]]
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
    out = [f'<h2 id="{sec_id}">{esc(title)} (<span data-metric="finding_groups">{len(groups)}</span> groups, '
           f'{rep["findings_total"]} cases)</h2>']
    if not groups:
        return out + ["<p>No fails, divergences, compile errors, crashes or timeouts.</p>"]
    return out + _group_rows(rep, groups, table_id)


def _where(rep, counts):
    labels = column_labels(rep)
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
        head = f'<strong>{esc(label + g["signature"])}</strong>' if g["kind"] != "message" else esc(short)
        examples = "".join(f'<li><code>{esc(x["id"])}</code> <span class="muted">({esc(column_labels(rep).get(x["column"], x["column"]))})'
                           f'</span><br><code data-replay>{esc(x["replay"])}</code></li>' for x in g["examples"])
        fams = ", ".join(f'<a href="families/{esc(_slug(rep, f))}.html">{esc(f)}</a>' for f in g["families"])
        out.append(f'<tr id="{g["group"]}" data-group="{g["group"]}" data-class="{g["class"]}"><td class="name">'
                   f'{badge(g["class"])}</td><td><b data-metric="count">{g["count"]}</b></td><td class="name">'
                   f'{esc(_where(rep, g["columns"]))}<br>{fams}</td><td class="msg">{head}<details><summary>message and '
                   f'{len(g["examples"])} of {g["count"]} cases</summary><code>{esc(g["message"])}</code><ul>{examples}'
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
        out.append(f'<tr data-col="{esc(k)}"><td class="name" title="{esc(", ".join(col["devices"]))}">'
                   f'{esc(col["label"])}</td>{tds}<td data-class="total">{s["total"]}</td>'
                   f'<td data-metric="exercised">{cv["exercised"]}</td><td data-metric="passing">{cv["passing"]}'
                   f'</td><td><span data-metric="passing_valid">{cv["passing_valid"]}</span>/<span '
                   f'data-metric="valid_forms">{cv["valid_forms"]}</span> ({vpct})</td><td class="name"><span '
                   f'data-metric="passing_pct">{cv["passing_pct"]}</span>% passing, <span data-metric="exercised_pct">'
                   f'{cv["exercised_pct"]}</span>% exercised<span class="track"><span class="bar" style="width:'
                   f'{cv["passing_pct"]}%"></span><span class="bar ex" style="width:'
                   f'{round(cv["exercised_pct"] - cv["passing_pct"], 1)}%"></span></span></td></tr>')
    return out + ["</table>"]


def _toolchain_diffs(rep):
    out = ['<h2 id="toolchain-diffs">Differences between toolchains</h2>']
    for d in rep["toolchain_diffs"]:
        title = f'{d["tier"]}{" " + d["sm"] if d.get("sm") else ""}: toolchain {d["a"]["toolchain"]} &rarr; {d["b"]["toolchain"]}'
        trs = ", ".join(f"{esc(t)}: {n}" for t, n in d["transitions"].items()) or "none"
        out.append(f'<h3>{title}</h3><p><span data-metric="changed">{d["changed"]}</span> cases changed of '
                   f'{d["matched"]} in both ({d["only_a"]} only in {esc(d["a"]["toolchain"])}, {d["only_b"]} only in '
                   f'{esc(d["b"]["toolchain"])}); transitions: {trs}</p>')
        for dim in ("family", "rule", "target", "ptx"):
            rows = d["groups"][dim]
            if not rows:
                continue
            table = [f'<table class="diff"><tr><th class="name">{dim}</th><th class="name">transition</th><th>cases'
                     '</th><th class="name">examples (A / B)</th></tr>']
            for row in rows:
                for tr in row["transitions"]:
                    exs = "".join(f'<li><code>{esc(x["id"])}</code><br>A {esc(x["a"]["class"])}: '
                                  f'{esc((x["a"].get("message") or "")[:200])}<br>B {esc(x["b"]["class"])}: '
                                  f'{esc((x["b"].get("message") or "")[:200])}</li>' for x in tr["examples"])
                    table.append(f'<tr><td class="name">{esc(row["group"])}</td><td class="name">{esc(tr["from"])} '
                                 f'&rarr; {esc(tr["to"])}</td><td>{tr["count"]}</td><td class="msg"><details><summary>'
                                 f'{len(tr["examples"])} examples</summary><ul>{exs}</ul></details></td></tr>')
            table.append("</table>")
            out.append(f'<details{" open" if dim == "family" else ""}><summary>per {dim} ({len(rows)})</summary>'
                       + "".join(table) + "</details>")
    return out


def _families_table(rep):
    classes, columns = rep["classes"], rep["columns"]
    out = ['<h2 id="families-sec">Families</h2><p class="muted">Each family\'s page has its forms, cell by cell, and '
           'every finding with its replay command.</p><table id="families">' + header_row(columns, "family (forms)")]
    for fam in rep["families"]:
        tds = "".join(count_cell(fam["cells"].get(c["key"]), classes) for c in columns)
        out.append(f'<tr data-family="{esc(fam["family"])}"><td class="name"><a href="families/{esc(fam["slug"])}.html">'
                   f'{esc(fam["family"])}</a> ({fam["forms"]})</td>{tds}</tr>')
    return out + ["</table>"]


def _not_supported(rep):
    out = ['<h2 id="not-supported-sec">Not supported, by reason</h2>']
    if not rep["not_supported"]:
        return out + ["<p>None.</p>"]
    labels = column_labels(rep)
    out.append('<p class="muted">Reasons with their numbers and targets folded (#).</p><table id="not-supported">'
               '<tr><th class="name">column</th><th class="name">reason</th><th>cases</th></tr>')
    out += [f'<tr><td class="name">{esc(labels.get(n["column"], n["column"]))}</td><td class="msg">{esc(n["reason"])}'
            f'</td><td>{n["count"]}</td></tr>' for n in rep["not_supported"]]
    return out + ["</table>"]


def _runs(rep):
    out = ['<h2 id="runs-sec">Runs</h2><table id="runs"><tr><th class="name">run</th><th class="name">tier</th>'
           '<th class="name">device</th><th class="name">toolchain</th><th>seed</th><th>shards</th><th>cases</th></tr>']
    for r in rep["runs"]:
        dev = f'{r["device"]["sm"]} &middot; {esc(r["device"]["name"])}' if r["device"] else "none"
        tc = f'[{r["toolchain_name"]}] ' + ", ".join(f"{k} {v}" for k, v in sorted(r["toolchain"].items())
                                                   if v not in (None, ""))
        sh = f'{len(r["shards"]["present"])}/{r["shards"]["count"]}' + (" partial" if r["partial"] else "")
        out.append(f'<tr><td class="name">{esc(r["run_id"])}</td><td class="name">{esc(r["tier"])}</td>'
                   f'<td class="name">{dev}</td><td class="name">{esc(tc)}</td><td>'
                   f'{"-" if r["seed"] is None else r["seed"]}</td><td>{sh}</td><td>{r["cases"]}</td></tr>')
    return out + ["</table>"]


def _explorations(rep):
    out = ['<h2 id="explorations">Explorations: the parameter space covered</h2>'
           '<p class="muted">Randomly drawn cases judged by the model (<code>./ptxcts explore</code>); a finding no '
           "named alternative explains is shrunk and kept as a permanent case of the run tier. Coverage: the share "
           "of each parameter's value bins the exploration reached.</p>"]
    for e in rep["explorations"]:
        out.append(f'<h3>{esc(e["id"])}</h3><p>{esc(e["device"])}, toolchain {esc(e["toolchain"])}, seed {e["seed"]}: '
                   f'<span data-metric="explore-cases">{e["cases_run"]}</span> cases in {e["explored_s"]:.0f} s '
                   f'(<span data-metric="explore-rate">{e["cases_per_s"]:.0f}</span> cases/s, {e["segments"]} '
                   f'segment(s)), <span data-metric="explore-findings">{e["findings"]}</span> findings; '
                   + ", ".join(f'{esc(k)} {v}' for k, v in e["classes"].items())
                   + f'. Folder: <code>{esc(e["folder"])}</code>.</p>')
        if e["svg"]:
            out.append(f'<figure class="explore-coverage">{e["svg"]}</figure>')
        out.append('<table class="explore-coverage-table"><tr><th class="name">parameter</th><th>bins reached</th>'
                   "<th>of</th></tr>")
        out += [f'<tr><td class="name">{esc(c["parameter"])}</td><td data-explore-param="{esc(c["parameter"])}">'
                f'{c["reached"]}</td><td>{c["of"]}</td></tr>' for c in e["coverage"]]
        out.append("</table>")
    return out


def _selftests(rep):
    out = ['<h2 id="selftests">Self-test: faults planted and caught</h2>'
           '<p class="muted">Faults planted into the instruction under test and into the host\'s tensor maps '
           "(<code>./ptxcts selftest</code>); a fault is caught at form level when a case that passes clean changes "
           "class; equivalent: the chapter or the model shows no observable difference; a hole is a fault no case "
           "caught.</p>"]
    for st in rep["selftests"]:
        t = selftests.totals(st)
        out.append(f'<p>{esc(st["device"])}, driver {esc(st["driver"])}, toolchain {esc(st["toolchain"])}, seed '
                   f'{st["seed"]}: <span data-metric="selftest-caught">{t["caught"]}</span> of '
                   f'{t["caught"] + t["holes"]} non-equivalent faults caught, {t["equivalent"]} equivalent, '
                   f'<span data-metric="selftest-holes">{t["holes"]}</span> holes, in {st["seconds"]} s'
                   + (" (interrupted)" if st["interrupted"] else "") + f'. File: <code>{esc(st["file"])}</code>.</p>')
        out.append('<table class="selftest-table"><tr><th class="name">kind</th><th class="name">family</th>'
                   "<th>planted</th><th>refused</th><th>caught</th><th>equivalent</th><th>holes</th>"
                   "<th>not judged</th><th>caught %</th></tr>")
        out += [f'<tr><td class="name">{esc(r["kind"])}</td><td class="name">{esc(r["family"])}</td>'
                f'<td>{r["planted"]}</td><td>{r["refused"]}</td>'
                f'<td data-selftest="{esc(r["kind"])}/{esc(r["family"])}">{r["caught"]}</td>'
                f'<td>{r["equivalent"]}</td><td>{r["holes"]}</td><td>{r["no_case"]}</td>'
                f'<td>{"-" if r["caught_pct"] is None else r["caught_pct"]}</td></tr>' for r in st["rows"]]
        out.append("</table>")
    return out
