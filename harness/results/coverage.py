"""The report model: merged results counted per (family, form) x column, and the spec coverage per column.

Columns: the compile tier per target ("compile:sm_90a"), the run tier per device architecture ("run:sm_90"),
the model tier as one column ("model").
Spec coverage of a column, over the N forms of the manifest (the denominator, valid and invalid forms alike):
  exercised = forms with at least one case in the column that reached a verdict (a class in EXERCISED);
  passing   = exercised forms none of whose cases in the column is a finding (fail, spec_divergence,
              compile_error, crash, timeout).
Also over the valid forms only (invalid_by empty: the forms the run tier can run at all): passing_valid.
not_supported and skipped cases do not make a form exercised; nothing but pass counts as passing.
"""
from .schema import CLASSES, FINDINGS, key_text, target_sort_key

REPORT_SCHEMA = "ptxcts-report"
REPORT_VERSION = 1
EXERCISED = ("pass", "fail", "spec_divergence", "compile_error", "crash", "timeout")
TIER_ORDER = {"compile": 0, "run": 1, "model": 2}


def column_of(case, run):
    if run.tier == "compile":
        return f"compile:{case['target']}"
    if run.tier == "run":
        return f"run:{run.device['sm'] if run.device else 'none'}"
    return "model"


def _column_sort(key):
    tier, _, arch = key.partition(":")
    return (TIER_ORDER.get(tier, 9), target_sort_key(arch) if arch else (0, 0, ""))


def _pct(n, d):
    return round(100.0 * n / d, 1) if d else 0.0


def build(merged, forms, manifest_path, title):
    cols, rows, findings, reasons = {}, {}, [], {}
    for form in forms:
        rows[form["form"]] = {"family": form["family"], "form": form["form"], "in_manifest": True, "cells": {}}
    for key, (case, run) in merged.results.items():
        col = column_of(case, run)
        c = cols.setdefault(col, {"key": col, "tier": run.tier, "arch": col.partition(":")[2] or col,
                                  "devices": set(), "runs": set()})
        if run.device:
            c["devices"].add(run.device["name"])
        c["runs"].add(run.run_id)
        row = rows.get(case["form"])
        if row is None:
            row = rows[case["form"]] = {"family": case["family"], "form": case["form"], "in_manifest": False,
                                        "cells": {}}
        cell = row["cells"].setdefault(col, {})
        cell[case["class"]] = cell.get(case["class"], 0) + 1
        if case["class"] in FINDINGS:
            findings.append({"column": col, "class": case["class"], "id": case["id"], "family": case["family"],
                             "form": case["form"], "target": key[1], "ptx": key[2], "load_path": key[3],
                             "sm": key[4], "key": key_text(key), "run_id": run.run_id,
                             "message": case.get("message", ""), "replay": case.get("replay", "")})
        elif case["class"] == "not_supported":
            r = (col, case.get("message", ""))
            reasons[r] = reasons.get(r, 0) + 1

    order = sorted(cols, key=_column_sort)
    columns = []
    for k in order:
        c = cols[k]
        label = {"compile": f"compile {c['arch']}", "model": "model",
                 "run": f"run {c['arch']}" if c["arch"] != "none" else "run (no device)"}.get(c["tier"], k)
        columns.append({"key": k, "tier": c["tier"], "arch": c["arch"], "label": label,
                        "devices": sorted(c["devices"]), "runs": sorted(c["runs"])})

    manifest_forms = {f["form"] for f in forms}
    valid_forms = {f["form"] for f in forms if f["valid"]}
    row_list = sorted(rows.values(), key=lambda r: (r["family"], r["form"]))
    summary, coverage = {}, {}
    for k in order:
        counts = {cls: 0 for cls in CLASSES}
        exercised = passing = passing_valid = 0
        for row in row_list:
            cell = row["cells"].get(k)
            if not cell:
                continue
            for cls, n in cell.items():
                counts[cls] += n
            if row["form"] in manifest_forms and any(cell.get(cls) for cls in EXERCISED):
                exercised += 1
                ok = not any(cell.get(cls) for cls in FINDINGS)
                passing += ok
                passing_valid += ok and row["form"] in valid_forms
        counts["total"] = sum(counts[cls] for cls in CLASSES)
        summary[k] = counts
        n = len(manifest_forms)
        coverage[k] = {"forms": n, "exercised": exercised, "passing": passing,
                       "exercised_pct": _pct(exercised, n), "passing_pct": _pct(passing, n),
                       "valid_forms": len(valid_forms), "passing_valid": passing_valid,
                       "passing_valid_pct": _pct(passing_valid, len(valid_forms))}

    families = {}
    for row in row_list:
        fam = families.setdefault(row["family"], {"family": row["family"], "forms": 0, "cells": {}})
        fam["forms"] += 1
        for col, cell in row["cells"].items():
            fc = fam["cells"].setdefault(col, {})
            for cls, n in cell.items():
                fc[cls] = fc.get(cls, 0) + n

    findings.sort(key=lambda f: (_column_sort(f["column"]), f["family"], f["key"]))
    return {
        "schema": REPORT_SCHEMA, "version": REPORT_VERSION, "title": title,
        "manifest": {"path": manifest_path, "forms": len(manifest_forms),
                     "forms_valid": sum(1 for f in forms if f["valid"])},
        "classes": list(CLASSES),
        "runs": [{"run_id": r.run_id, "tier": r.tier, "device": r.device, "toolchain": r.toolchain,
                  "seed": r.seed, "started": r.started, "finished": r.finished,
                  "shards": {"count": r.count, "present": sorted(r.shards), "missing": r.missing},
                  "paths": r.paths, "cases": sum(len(d["cases"]) for _, d in r.shards.values())}
                 for r in merged.runs],
        "missing_shards": [{"run_id": a, "index": i, "count": n} for a, i, n in merged.missing_shards],
        "replaced": [{"key": key_text(k), "earlier_run": a, "later_run": b} for k, a, b in merged.replaced],
        "columns": columns,
        "summary": summary,
        "coverage": coverage,
        "families": [families[f] for f in sorted(families)],
        "rows": row_list,
        "findings": findings,
        "not_supported": [{"column": c, "reason": m, "count": n}
                          for (c, m), n in sorted(reasons.items(), key=lambda x: (_column_sort(x[0][0]), x[0][1]))],
    }
