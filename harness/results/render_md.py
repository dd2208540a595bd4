"""The report as Markdown (for PR comments, issue notes) and the plain-text summary table printed to stdout."""
from .render_html import ABBREV


def _cell(cell, classes):
    if not cell:
        return "·"
    return " ".join(f"{ABBREV[c]}{cell[c]}" for c in classes if cell.get(c))


def _md(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_rows(rep):
    """(header, rows) of the summary table: one row per column of the report."""
    classes = rep["classes"]
    header = ["column"] + classes + ["total", "exercised", "passing", "valid passing"]
    rows = []
    for col in rep["columns"]:
        s, cv = rep["summary"][col["key"]], rep["coverage"][col["key"]]
        rows.append([col["label"]] + [str(s[c]) for c in classes] + [str(s["total"]),
                    f'{cv["exercised"]}/{cv["forms"]} ({cv["exercised_pct"]}%)',
                    f'{cv["passing"]}/{cv["forms"]} ({cv["passing_pct"]}%)',
                    f'{cv["passing_valid"]}/{cv["valid_forms"]} ({cv["passing_valid_pct"]}%)'])
    return header, rows


def text_table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def _table(header, rows):
    out = ["| " + " | ".join(_md(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_md(v) for v in r) + " |" for r in rows]
    return "\n".join(out)


def render(rep):
    classes, columns = rep["classes"], rep["columns"]
    out = [f"# {rep['title']}", "",
           f"Forms in the model: {rep['manifest']['forms']} ({rep['manifest']['forms_valid']} valid), "
           f"from `{rep['manifest']['path']}`.", "",
           "Cells: " + ", ".join(f"{ABBREV[c]} = {c}" for c in classes) + ".", ""]
    if rep["missing_shards"]:
        out += ["**Missing shards: these results are incomplete.**", ""]
        out += [f"* run `{m['run_id']}`: shard index {m['index']} of count {m['count']} is missing"
                for m in rep["missing_shards"]]
        out.append("")
    if rep["replaced"]:
        out += [f"{len(rep['replaced'])} results were taken from a later run over an earlier one (--prefer-later).", ""]
    out += ["## Runs", "", _table(["run", "tier", "device", "toolchain", "seed", "shards", "cases"], [
        [r["run_id"], r["tier"], f"{r['device']['sm']} {r['device']['name']}" if r["device"] else "none",
         ", ".join(f"{k} {v}" for k, v in sorted(r["toolchain"].items()) if v not in (None, "")),
         "-" if r["seed"] is None else str(r["seed"]),
         f"{len(r['shards']['present'])}/{r['shards']['count']}", str(r["cases"])] for r in rep["runs"]]), ""]
    header, rows = summary_rows(rep)
    out += ["## Summary per architecture", "", _table(header, rows), ""]
    labels = [c["label"] for c in columns]
    out += ["## Families", "", _table(["family (forms)"] + labels, [
        [f"{f['family']} ({f['forms']})"] + [_cell(f["cells"].get(c["key"]), classes) for c in columns]
        for f in rep["families"]]), ""]
    out += ["## Forms", "", _table(["family", "form"] + labels, [
        [r["family"], f"`{r['form']}`" + ("" if r["in_manifest"] else " (not in the manifest)")]
        + [_cell(r["cells"].get(c["key"]), classes) for c in columns] for r in rep["rows"]]), ""]
    out += [f"## Findings ({len(rep['findings'])})", ""]
    if rep["findings"]:
        out += [_table(["column", "class", "case", "load path", "message", "replay"], [
            [f["column"], f["class"], f"`{f['id']}`", f["load_path"], f["message"], f"`{f['replay']}`"]
            for f in rep["findings"]]), ""]
    else:
        out += ["No fails, divergences, compile errors, crashes or timeouts.", ""]
    if rep["not_supported"]:
        out += ["## Not supported, by reason", "", _table(["column", "reason", "cases"], [
            [n["column"], n["reason"], str(n["count"])] for n in rep["not_supported"]]), ""]
    return "\n".join(out)
