"""A family's page of the HTML report (families/<slug>.html): its forms cell by cell, and every finding with its
replay command."""
from .html_page import STYLESHEET_FILE, badge, column_labels, count_cell, esc, header_row, legend, page


def family_page(rep, fam):
    classes, columns = rep["classes"], rep["columns"]
    labels = column_labels(rep)
    rows = [r for r in rep["rows"] if r["family"] == fam["family"]]
    findings = [f for f in rep["findings"] if f["family"] == fam["family"]]
    out = [f'<p><a href="../report.html">&larr; {esc(rep["title"])}</a></p>',
           f'<h1 id="title" data-family-page="{esc(fam["family"])}">{esc(fam["family"])}</h1>',
           f'<p class="muted">{len(rows)} forms; {len(findings)} findings. Legend: {legend(classes)}</p>',
           '<h2 id="forms">Forms</h2><table class="forms">' + header_row(columns, "form")]
    for row in rows:
        tds = "".join(count_cell(row["cells"].get(c["key"]), classes) for c in columns)
        note = "" if row["in_manifest"] else ' <span class="nim">(not in the manifest)</span>'
        out.append(f'<tr data-form="{esc(row["form"])}"><td class="name">{esc(row["form"])}{note}</td>{tds}</tr>')
    out.append("</table>")
    out.append(f'<h2 id="findings">Findings ({len(findings)})</h2>')
    if findings:
        out.append('<table id="findings-list"><tr><th class="name">class</th><th class="name">case, column</th>'
                   '<th class="name">group</th><th class="name">replay</th></tr>')
        out += [f'<tr data-key="{esc(f["key"])}"><td class="name">{badge(f["class"])}</td><td class="name">{esc(f["id"])}'
                f'<br><span class="muted">{esc(labels.get(f["column"], f["column"]))}</span></td><td class="name">'
                f'<a href="../report.html#{f["group"]}">{f["group"]}</a></td><td class="name"><code data-replay>'
                f'{esc(f["replay"])}</code></td></tr>' for f in findings]
        out.append("</table>")
    else:
        out.append("<p>None.</p>")
    return page(f'{fam["family"]} - {rep["title"]}', out, "../" + STYLESHEET_FILE)
