"""The report as Markdown (for PR comments, issue notes) and the plain-text summary table printed to stdout.

Markdown keeps what a reader needs first (regressions, unexplained findings, coverage, findings grouped, the
differences between toolchains, families); the per-form tables are on the HTML family pages."""
from .. import diff as diff_mod
from . import selftests, wholes
from .html_page import ABBREV


def _cell(cell, classes):
    if not cell:
        return "·"
    return " ".join(f"{ABBREV[c]}{cell[c]}" for c in classes if cell.get(c))


def _md(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def _pct(value):
    return "n/a" if value is None else f"{value}%"


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
                    f'{cv["passing_valid"]}/{cv["valid_forms"]} ({_pct(cv["passing_valid_pct"])})'])
    return header, rows


def text_table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(r, widths)))
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def _table(header, rows):
    out = ["| " + " | ".join(_md(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_md(v) for v in r) + " |" for r in rows]
    return "\n".join(out)


def _groups(rep, groups):
    labels = {c["key"]: c["label"] for c in rep["columns"]}
    rows = []
    for g in groups:
        what = (f"{g['kind']} {g['signature']}" if g["kind"] != "message"
                else g["message"].strip().split("\n")[0][:200])
        where = ", ".join(f"{labels.get(k, k)}: {n}" for k, n in sorted(g["columns"].items(), key=lambda kv: -kv[1])[:4])
        ex = g["examples"][0] if g["examples"] else {"id": "", "replay": ""}
        rows.append([g["class"], str(g["count"]), where, what, f"`{ex['id']}` `{ex['replay']}`"])
    return _table(["class", "cases", "where", "finding / message", "example (replay)"], rows)


def device_diffs(rep):
    """The section of the cases whose class differs between devices of one architecture (lines)."""
    if not rep.get("device_diffs"):
        return []
    labels = {c["key"]: c["label"] for c in rep["columns"]}
    out = ["## Differences between devices of one architecture", ""]
    for d in rep["device_diffs"]:
        only = "".join(f"; {n} only in {labels.get(c, c)}" for c, n in d["only"].items() if n)
        transitions = ", ".join(f"{t}: {n}" for t, n in d["transitions"].items())
        out += [f"**{d['sm']}, toolchain {d['toolchain']}: {' / '.join(d['labels'])}: {d['differing']} of "
                f"{d['compared']} cases that more than one of these devices ran differ**"
                + (f" ({transitions})" if transitions else "") + only + ".", ""]
        if d["cases"]:
            out += [_table(["case"] + [labels.get(c, c) for c in d["columns"]] + ["baseline", "replay"], [
                [f"`{x['id']}` {x['target']} {x['load_path']}"]
                + [f"{x['classes'][c]}: {x['messages'][c][:160]}" if c in x["classes"] else "not run"
                   for c in d["columns"]]
                + [(x["baseline"] or "-") + {True: " (within)", False: " (outside)", None: ""}[x["within_baseline"]],
                   f"`{x['replay']}`"] for x in d["cases"]]), ""]
        if d["differing"] > len(d["cases"]):
            out += [f"... and {d['differing'] - len(d['cases'])} more: `./ptxcts diff RUN-A RUN-B` lists them all.", ""]
    return out


def device_diff_lines(rep):
    """The differing cases as the lines `report` prints after its summary table."""
    lines = []
    for d in rep.get("device_diffs", []):
        lines.append(f"report: {d['differing']} of {d['compared']} cases differ between the devices of {d['sm']} "
                     f"(toolchain {d['toolchain']}: {' / '.join(d['labels'])})")
        for x in d["cases"]:
            classes = ", ".join(f"{name} {x['classes'][c]}" for c, name in zip(d["columns"], d["labels"])
                                if c in x["classes"])
            base = (f"; baseline {x['baseline']}" + (" (within)" if x["within_baseline"] else " (outside)")
                    if x["baseline"] else "")
            lines.append(f"  DEVICES DIFFER {x['id']} [{x['target']} {x['load_path']}]: {classes}{base}; replay: "
                         f"{x['replay']}")
        if d["differing"] > len(d["cases"]):
            lines.append(f"  ... and {d['differing'] - len(d['cases'])} more")
    return lines


def render(rep):
    classes, columns = rep["classes"], rep["columns"]
    out = [f"# {rep['title']}", "",
           f"Forms in the model: {rep['manifest']['forms']} ({rep['manifest']['forms_valid']} valid), "
           f"from `{rep['manifest']['path']}`; toolchains {', '.join(rep['toolchains'])}.", "",
           "Cells: " + ", ".join(f"{ABBREV[c]} = {c}" for c in classes) + ".", ""]
    if rep["missing_shards"]:
        out += ["**Missing shards: these results are incomplete.**", ""]
        out += [f"* run `{m['run_id']}`: shard index {m['index']} of count {m['count']} is missing"
                for m in rep["missing_shards"]]
        out.append("")
    if rep["partial_runs"]:
        out += ["**Partial runs: stopped before every case was judged.**", ""]
        out += [f"* run `{p['run_id']}` shard {p['index']}/{p['count']}: {p['reason']} ({p['done']} of {p['total']} "
                "cases)" for p in rep["partial_runs"]]
        out.append("")
    if rep["replaced"]:
        out += [f"{len(rep['replaced'])} results were taken from a later run over an earlier one (--prefer-later).", ""]
    unexplained = [g for g in rep["finding_groups"] if g["unexplained"]]
    out += ["## Summary", "",
            f"* results: {sum(s['total'] for s in rep['summary'].values())}",
            f"* regressions against the baselines: {sum(r.get('regressions', 0) for r in rep['regressions'])}",
            *([f"* **cases whose class differs between devices of one architecture: "
               f"{sum(d['differing'] for d in rep['device_diffs'])}**"] if rep.get("device_diffs") else []),
            f"* unexplained findings: {sum(g['count'] for g in unexplained)} in {len(unexplained)} groups",
            f"* findings: {rep['findings_total']} in {len(rep['finding_groups'])} groups",
            f"* beyond the chapter: {sum(s.get('beyond_chapter', 0) for s in rep['summary'].values())}", ""]
    out += ["## Regressions against the baseline", ""]
    for r in rep["regressions"]:
        what = (f"{r['tier']} tier, toolchain {r['toolchain']}, {r['sm'] or 'no device'}"
                + (f" [{r['device_label']}]" if r.get("device_label") else ""))
        if not r["found"]:
            out.append(f"* {what}: no baseline of this device"
                       + (f" ({r['claims']['name']}, driver branch {r['claims']['driver_branch']})" if r.get("claims") else "")
                       + f": `./ptxcts gate RUN` judges it by the model and the record; `./ptxcts gate RUN --update` "
                       f"writes `{rep.get('baselines_dir') or 'results/baselines'}/{r['baseline']}`")
            continue
        counts = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(r["counts"].items()))
        out.append(f"* {what} against `{rep.get('baselines_dir') or 'results/baselines'}/{r['baseline']}`"
                   f"{' (partial)' if r.get('partial') else ''}: **{r['regressions']} regressions**; {counts}")
        out += [f"  * {e['kind']}: {e['baseline'] or '(new)'} -> {e['run']} `{e['key']}` `{e['replay']}`"
                for e in r["listed"]]
    if not rep["regressions"]:
        out.append("No baseline folder was given.")
    out.append("")
    out += device_diffs(rep)
    out += ["## New and unexplained findings", ""]
    out += [_groups(rep, unexplained) if unexplained else "None.", ""]
    header, rows = summary_rows(rep)
    out += ["## Coverage per architecture", "", _table(header, rows), ""]
    out += [f"## Findings, grouped ({len(rep['finding_groups'])} groups, {rep['findings_total']} cases)", ""]
    out += [_groups(rep, rep["finding_groups"]) if rep["finding_groups"] else
            "No fails, divergences, compile errors, crashes or timeouts.", ""]
    if rep["toolchain_diffs"]:
        out += ["## Differences between toolchains", ""]
        for d in rep["toolchain_diffs"]:
            body = diff_mod.markdown(d, heading="###").split("\n", 1)[1]
            out += [f"### {d['tier']}{' ' + d['sm'] if d.get('sm') else ''}"
                    f"{' [' + d['device_label'] + ']' if d.get('device_label') else ''}: toolchain {d['a']['toolchain']} -> "
                    f"{d['b']['toolchain']}", body]
    labels = [c["label"] for c in columns]
    for e in rep.get("explorations", []):
        out += [f"## Exploration {e['id']}", "",
                f"{e['device']}, toolchain {e['toolchain']}, seed {e['seed']}: {e['cases_run']} cases in "
                f"{e['explored_s']:.0f} s ({e['cases_per_s']:.0f} cases/s), {e['findings']} findings; "
                + ", ".join(f"{k} {v}" for k, v in e["classes"].items()) + f". Folder: `{e['folder']}`.", "",
                _table(["parameter", "bins reached", "of"], [[c["parameter"], c["reached"], c["of"]]
                                                             for c in e["coverage"]]), ""]
    for lr in rep.get("lowering_rules", []):
        out += [f"## Lowering rules (toolchain {lr['toolchain']}, nvdisasm {lr['nvdisasm']})", "",
                "Each rule's (form, target) pairs judged; on sm_90 a rule is confirmed by silicon when the run tier "
                "passes every form it covers that the committed H100 run executed.", "",
                _table(["rule", "judged", "pass", "fail", "unruled", "targets", "sm_90 silicon"],
                       [[r["rule"], r["judged"], r["pass"], r["fail"], r["unruled"], r["targets"],
                         "confirmed" if r["confirmed_by_silicon"] else
                         (f"{r['sm90_run_pass']}/{r['sm90_run']} pass" if r["sm90_run"] else "not run")]
                        for r in lr["rules"]]), ""]
    for st in rep.get("selftests", []):
        t = selftests.totals(st)
        out += [f"## Self-test: faults planted and caught ({st['device']})", "",
                f"{st['device']}, driver {st['driver']}, toolchain {st['toolchain']}, seed {st['seed']}: "
                f"{t['caught']} of {t['caught'] + t['holes']} non-equivalent planted faults caught at form level, "
                f"{t['equivalent']} equivalent, {t['holes']} holes, in {st['seconds']} s"
                + (" (interrupted)" if st["interrupted"] else "") + f". File: `{st['file']}`.", "",
                _table(["kind", "family", "planted", "refused", "caught", "equivalent", "holes", "not judged",
                        "caught %"],
                       [[r["kind"], r["family"], r["planted"], r["refused"], r["caught"], r["equivalent"], r["holes"],
                         r["no_case"], "-" if r["caught_pct"] is None else r["caught_pct"]] for r in st["rows"]]), ""]
    for w in rep.get("wholes", []):
        out += [f"## The front-ends' whole kernels on silicon: {w['compiler']} on {w['device']}", "",
                wholes.line(w) + f". File: `{w['file']}`.", "",
                _table(["template"] + list(wholes.CLASSES),
                       [[t["template"]] + [str(t["counts"].get(c, 0)) for c in wholes.CLASSES]
                        for t in w["templates"]]), ""]
        out += [f"* {k['class']}: `{k['form']}`: {k['message']}" for k in w["not_passing"]]
        out += [""] if w["not_passing"] else []
    out += ["## Families", "", _table(["family (forms)"] + labels, [
        [f"{f['family']} ({f['forms']})"] + [_cell(f["cells"].get(c["key"]), classes) for c in columns]
        for f in rep["families"]]), ""]
    if rep["not_supported"]:
        col_labels = {c["key"]: c["label"] for c in columns}
        out += ["## Not supported, by reason", "", _table(["column", "reason", "cases"], [
            [col_labels.get(n["column"], n["column"]), n["reason"], str(n["count"])] for n in rep["not_supported"]]), ""]
    out += ["## Runs", "", _table(["run", "tier", "device", "toolchain", "seed", "shards", "cases"], [
        [r["run_id"], r["tier"], f"{r['device']['sm']} {r['device']['name']}" if r["device"] else "none",
         f"[{r['toolchain_name']}] " + ", ".join(f"{k} {v}" for k, v in sorted(r["toolchain"].items())
                                                if v not in (None, "")),
         "-" if r["seed"] is None else str(r["seed"]),
         f"{len(r['shards']['present'])}/{r['shards']['count']}" + (" partial" if r["partial"] else ""),
         str(r["cases"])] for r in rep["runs"]]), ""]
    return "\n".join(out)
