"""A family's page of the HTML report (families/<slug>.html, templates/family.html.j2): its forms cell by cell, and
every finding with its replay command."""
from .html_page import STYLESHEET_FILE, column_labels, render_template


def family_page(rep, fam):
    rows = [r for r in rep["rows"] if r["family"] == fam["family"]]
    findings = [f for f in rep["findings"] if f["family"] == fam["family"]]
    return render_template("family.html.j2", title=f'{fam["family"]} - {rep["title"]}',
                           stylesheet_href="../" + STYLESHEET_FILE, rep=rep, fam=fam, rows=rows, findings=findings,
                           labels=column_labels(rep))
