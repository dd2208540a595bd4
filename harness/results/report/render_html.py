"""The report as static HTML: a small index page (report.html) that leads with what matters, and one page per
family (families/<family>.html, render_family.py) with the per-form tables and every finding, loaded only when
opened.

The markup is in jinja2 templates (templates/*.html.j2, autoescaped: html_page.ENV); this module hands them the
report's data and the few texts derived from it. One stylesheet for every page (report.css, html_page.py), inline
SVG (html_pictures.py), no script, nothing from outside the report's folder. Every number on a page is an element's
text, marked with data-* attributes (data-col, data-class, data-form, data-family, data-group, data-metric) so that
a test reading the rendered DOM can find it and compare it with report.json.
"""
from framework import pool

from . import selftests, wholes
from .html_page import STYLESHEET, STYLESHEET_FILE, column_labels, render_template
from .html_pictures import picture_data
from .render_family import family_page

KIND_LABEL = {"regression": "REGRESSION", "changed": "CHANGED", "lost": "LOST", "new_finding": "NEW FINDING"}
GROUP_LABEL = {"finding": "reviewed finding ", "policy": "policy ", "message": ""}


def render(rep):
    """{relative path: text}: report.html, report.css and families/<slug>.html. The family pages are rendered
    side by side (pool.fork_map), beside the index."""
    pages = pool.fork_map(lambda fam: family_page(rep, fam) if fam is not None else _index(rep),
                          [None] + rep["families"])
    files = {"report.html": pages[0], STYLESHEET_FILE: STYLESHEET}
    for fam, text in zip(rep["families"], pages[1:]):
        files[f"families/{fam['slug']}.html"] = text
    return files


def _index(rep):
    labels = column_labels(rep)
    slugs = {f["family"]: f["slug"] for f in rep["families"]}
    return render_template(
        "report.html.j2", title=rep["title"], stylesheet_href=STYLESHEET_FILE, rep=rep, sections=_sections(rep),
        kpis=_kpis(rep), unexplained=[g for g in rep["finding_groups"] if g["unexplained"]],
        pictures=picture_data(rep), labels=labels, kind_label=KIND_LABEL, group_label=GROUP_LABEL,
        where=lambda counts: _where(labels, counts), slug=lambda family: slugs.get(family, family),
        first_line=_first_line, counted=_counted, toolchain_text=_toolchain_text, selftest_totals=selftests.totals,
        whole_line=wholes.line, whole_classes=wholes.CLASSES,
        round=round)


def _sections(rep):
    """The table of contents: (anchor, title) of each section the page has."""
    sections = [("summary-sec", "Summary"), ("regressions", "Regressions against the baseline")]
    if rep.get("device_diffs"):
        sections.append(("device-diffs", "Differences between devices of one architecture"))
    sections += [("unexplained", "New and unexplained findings"), ("coverage", "Coverage per architecture"),
                ("pictures", "Pictures: families x columns, findings per kind"),
                ("finding-groups-sec", "Findings, grouped by finding")]
    if rep["toolchain_diffs"]:
        sections.append(("toolchain-diffs", "Differences between toolchains"))
    if rep.get("explorations"):
        sections.append(("explorations", "Explorations: the parameter space covered"))
    if rep.get("selftests"):
        sections.append(("selftests", "Self-test: faults planted and caught"))
    if rep.get("wholes"):
        sections.append(("wholes", "The front-ends' whole kernels on silicon"))
    return sections + [("families-sec", "Families (per-family pages)"),
                       ("not-supported-sec", "Not supported, by reason"), ("runs-sec", "Runs"),
                       ("definitions", "Definitions")]


def _kpis(rep):
    """The summary's headline numbers: (data-metric, value, text)."""
    regress = sum(r.get("regressions", 0) for r in rep["regressions"])
    unexplained = sum(g["count"] for g in rep["finding_groups"] if g["unexplained"])
    beyond = sum(s.get("beyond_chapter", 0) for s in rep["summary"].values())
    total = sum(s["total"] for s in rep["summary"].values())
    devices = ([("device_differences", sum(d["differing"] for d in rep.get("device_diffs", [])),
                 "cases whose class differs between devices of one architecture")] if rep.get("device_diffs") else [])
    return [("results", total, "results"), ("regressions", regress, "regressions against the baselines")] + devices + [
            ("unexplained", unexplained, "unexplained findings (fail, compile error, crash, timeout)"),
            ("findings", rep["findings_total"], f'findings in {len(rep["finding_groups"])} groups'),
            ("beyond_chapter", beyond, "beyond the chapter (newer toolchain)")]


def _where(labels, counts):
    """The columns a finding group is in, most cases first (six of them)."""
    items = sorted(counts.items(), key=lambda kv: -kv[1])
    text = ", ".join(f"{labels.get(k, k)}: {n}" for k, n in items[:6])
    return text + (f", and {len(items) - 6} more columns" if len(items) > 6 else "")


def _first_line(message):
    first = message.strip().split("\n")[0]
    return first if len(first) <= 240 else first[:240] + "\u2026"


def _counted(counts):
    """A baseline comparison's counts as 'new finding 2', sorted by kind."""
    return [f"{k.replace('_', ' ')} {v}" for k, v in sorted(counts.items())]


def _toolchain_text(run):
    return f'[{run["toolchain_name"]}] ' + ", ".join(f"{k} {v}" for k, v in sorted(run["toolchain"].items())
                                                     if v not in (None, ""))
