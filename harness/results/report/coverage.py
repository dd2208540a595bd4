"""The report model (report.json, schema `ptxcts-report` version 2): merged results counted per (family, form) x
column, spec coverage per column, findings grouped by finding, regressions against the baselines, and the
differences between toolchains.

Columns: the compile tier per target ("compile:sm_90a"), beside it the lowering tier per target ("lower:sm_90a",
label "lowered sm_90a": lowered as expected, the SASS judged by the lowering rules; a form whose lowering no rule
decides, class unruled, is exercised but not passing), the run tier per device architecture ("run:sm_90"),
the model tier as one column ("model"); when a tier has runs of several toolchains, each toolchain gets its own
columns ("compile:sm_90a@13.5", label "compile sm_90a [13.5]"). When the run tier has runs on devices of
different names of one architecture (an H100 and an H200, both sm_90), each device gets its own columns
("run:sm_90#NVIDIA H200", label "run sm_90 [H200]": device_label); with one device name per architecture the
column and its label are as above.

Differences between devices (device_diffs): for each architecture and toolchain with runs on several devices, the
cases (keys) whose class differs from one device to another, each with every device's class and message and the
replay command. A difference between two devices of one architecture is a finding of its own: the report shows it
next to the regressions.
Spec coverage of a column, over the N forms of the manifest (the denominator, valid and invalid forms alike):
  exercised = forms with at least one case in the column that reached a verdict (a class in EXERCISED);
  passing   = exercised forms none of whose cases in the column is a finding (fail, spec_divergence,
              compile_error, crash, timeout).
valid passing: over the forms with at least one case the manifest expects to be accepted at one of the column's
targets (a compile column: its target; nothing is accepted at sm_75, so its denominator is 0), the passing ones.
not_supported and skipped cases do not make a form exercised; beyond_chapter does, and is not a finding.

Findings are grouped: the same class and the same finding (a compile finding's ID, a run divergence's matched
policy) or, failing that, the same message with its numbers folded, make one group with a count per column and
a few examples. A group of class fail, compile_error, crash or timeout is unexplained (no reviewed finding or
named policy covers it).
"""
import hashlib
import os
import re

from framework import paths
from framework.documents import baseline as baseline_mod
from framework.documents.schema import CLASSES, FINDINGS, key_text, target_sort_key
from .. import diff as diff_mod
from ..gate import REGRESSION_KINDS, classify

REPORT_SCHEMA = "ptxcts-report"
REPORT_VERSION = 2
EXERCISED = ("pass", "fail", "spec_divergence", "beyond_chapter", "unruled", "compile_error", "crash", "timeout")
NOT_PASSING = FINDINGS + ("unruled",)
UNEXPLAINED = ("fail", "compile_error", "crash", "timeout")
TIER_ORDER = {"compile": 0, "lower": 1, "run": 2, "model": 3, "frontend": 4}
# Columns are grouped, then ordered by target within a group: the lowering column of a target stands beside its
# compile column.
TIER_GROUP = {"compile": 0, "lower": 0, "run": 1, "model": 2, "frontend": 3}
EXAMPLES = 3
REGRESSIONS_LISTED = 50
DEVICE_DIFFS_LISTED = 200   # differing cases listed per architecture and toolchain (all are counted)


def device_label(name):
    """The short, stable name of a device in a column label: device.name without the vendor's prefix
    ("NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3"), blanks folded; the whole name when nothing else is left."""
    short = " ".join(re.sub(r"^\s*NVIDIA\b", "", name or "").split())
    return short or " ".join((name or "?").split())


def _column(tier, run, case, multi, multi_device=frozenset()):
    """The column key: tier:arch[@toolchain] (the toolchain where a tier has several), and for a run on a device
    whose architecture several devices of the report share, the device's name after a '#'."""
    if tier in ("compile", "lower"):
        arch = case["target"]
    elif tier == "run":
        arch = run.device["sm"] if run.device else "none"
    elif tier == "frontend":   # one column per front-end (its name is the run's toolchain name)
        return f"frontend:{run.toolchain_name}"
    else:
        arch = ""
    key = f"{tier}:{arch}" if arch else tier
    if tier == "run" and run.device and run.device["sm"] in multi_device:
        key += "#" + run.device["name"]
    return key + (f"@{run.toolchain_name}" if multi else "")


def _column_sort(key):
    """Tier group, target, tier, toolchain, then device: the columns of one toolchain's devices stand side by
    side."""
    base, _, toolchain = key.partition("@")
    base, _, device = base.partition("#")
    tier, _, arch = base.partition(":")
    return (TIER_GROUP.get(tier, 9), target_sort_key(arch) if arch else (0, 0, ""), TIER_ORDER.get(tier, 9),
            _version_key(toolchain), device_label(device) if device else "")


def _version_key(name):
    return tuple(int(x) if x.isdigit() else 0 for x in re.findall(r"[0-9]+|[^0-9.]+", name or ""))


def _pct(n, d):
    return round(100.0 * n / d, 1) if d else None


def fold(message):
    """A message with what varies from case to case folded: numbers, hex values, targets; first line, 200 chars."""
    first = (message or "").strip().split("\n")[0]
    first = re.sub(r"0x[0-9a-fA-F]+", "0x#", first)
    first = re.sub(r"sm_[0-9]+[af]?", "sm_#", first)
    first = re.sub(r"[0-9]+", "#", first)
    return first[:200]


def signature(case, known=None):
    """What makes two findings the same finding: (kind, text). known: the reviewed run-tier finding that covers
    this case (results/expectations/run.toml), if any."""
    if known:
        return ("finding", known)
    message = case.get("message") or ""
    m = re.match(r"finding ([A-Za-z0-9_.:-]+):", message)
    if m:
        return ("finding", m.group(1))
    policy = (case.get("details") or {}).get("matched_policy")
    if isinstance(policy, str) and policy:
        return ("policy", policy)
    return ("message", fold(message))


def group_id(cls, sig):
    return "g-" + hashlib.sha1(f"{cls}\0{sig[0]}\0{sig[1]}".encode()).hexdigest()[:10]


def family_slug(family):
    return re.sub(r"[^A-Za-z0-9_.-]", "_", family)


def build(groups, forms, cases, manifest_path, title, baselines_dir=None, partial_ids=frozenset(),
          device_columns=False):
    """groups: [merge.Merged], one per toolchain name. forms: manifest.load_forms; cases: manifest.Cases.
    partial_ids: runs that cover part of their baseline (report --partial); device_columns: a column per device
    for every architecture, not only where several devices share one (report --device-columns)."""
    tiers_toolchains = {}
    for g in groups:
        for run in g.runs:
            tiers_toolchains.setdefault(run.tier, set()).add(g.toolchain)
    multi = {t for t, names in tiers_toolchains.items() if len(names) > 1}
    sm_devices = {}
    for g in groups:
        for run in g.runs:
            if run.tier == "run" and run.device:
                sm_devices.setdefault(run.device["sm"], set()).add(run.device["name"])
    multi_device = {sm for sm, names in sm_devices.items() if len(names) > 1 or device_columns}

    cols, rows, instances, reasons, col_targets = {}, {}, [], {}, {}
    for form in forms:
        rows[form["form"]] = {"family": form["family"], "form": form["form"], "in_manifest": True, "cells": {}}
    for g in groups:
        for key, (case, run) in g.results.items():
            col = _column(run.tier, run, case, run.tier in multi, multi_device)
            c = cols.setdefault(col, {"key": col, "tier": run.tier, "toolchain": g.toolchain,
                                      "arch": col.partition("@")[0].partition("#")[0].partition(":")[2] or run.tier,
                                      "devices": set(), "runs": set()})
            if run.device:
                c["devices"].add(run.device["name"])
            c["runs"].add(run.run_id)
            col_targets.setdefault(col, set()).add(case["target"])
            row = rows.get(case["form"])
            if row is None:
                row = rows[case["form"]] = {"family": case["family"], "form": case["form"], "in_manifest": False,
                                            "cells": {}}
            cell = row["cells"].setdefault(col, {})
            cell[case["class"]] = cell.get(case["class"], 0) + 1
            if case["class"] in FINDINGS:
                instances.append((col, key, case, run))
            elif case["class"] == "not_supported":
                r = (col, fold(case.get("message", "")))
                reasons[r] = reasons.get(r, 0) + 1

    order = sorted(cols, key=_column_sort)
    columns = []
    for k in order:
        c = cols[k]
        label = {"compile": f"compile {c['arch']}", "lower": f"lowered {c['arch']}", "model": "model",
                 "frontend": f"front-end {c['arch']}",
                 "run": f"run {c['arch']}" if c["arch"] != "none" else "run (no device)"}.get(c["tier"], k)
        device = k.partition("#")[2].partition("@")[0] if "#" in k else None
        if device is not None:   # several devices of this architecture: name the device
            label += f" [{device_label(device)}]"
        if c["tier"] in multi:
            label += f" [{c['toolchain']}]"
        columns.append({"key": k, "tier": c["tier"], "arch": c["arch"], "toolchain": c["toolchain"], "label": label,
                        "device": device,
                        "devices": sorted(c["devices"]), "runs": sorted(c["runs"]),
                        "targets": sorted(col_targets[k], key=target_sort_key)})

    manifest_forms = {f["form"] for f in forms}
    row_list = sorted(rows.values(), key=lambda r: (r["family"], r["form"]))
    summary, coverage = {}, {}
    for col in columns:
        k = col["key"]
        counts = {cls: 0 for cls in CLASSES}
        accept = cases.accept_forms(col["targets"]) & manifest_forms
        exercised = passing = passing_valid = 0
        for row in row_list:
            cell = row["cells"].get(k)
            if not cell:
                continue
            for cls, n in cell.items():
                counts[cls] += n
            if row["form"] in manifest_forms and any(cell.get(cls) for cls in EXERCISED):
                exercised += 1
                ok = not any(cell.get(cls) for cls in NOT_PASSING)
                passing += ok
                passing_valid += ok and row["form"] in accept
        counts["total"] = sum(counts[cls] for cls in CLASSES)
        summary[k] = counts
        n = len(manifest_forms)
        coverage[k] = {"forms": n, "exercised": exercised, "passing": passing,
                       "exercised_pct": _pct(exercised, n) or 0.0, "passing_pct": _pct(passing, n) or 0.0,
                       "valid_forms": len(accept), "passing_valid": passing_valid,
                       "passing_valid_pct": _pct(passing_valid, len(accept))}

    families = {}
    for row in row_list:
        fam = families.setdefault(row["family"], {"family": row["family"], "slug": family_slug(row["family"]),
                                                  "forms": 0, "cells": {}, "findings": 0})
        fam["forms"] += 1
        for col, cell in row["cells"].items():
            fc = fam["cells"].setdefault(col, {})
            for cls, n in cell.items():
                fc[cls] = fc.get(cls, 0) + n
                if cls in FINDINGS:
                    fam["findings"] += n

    finding_groups, finding_list = _group_findings(instances, _known_run_findings(instances))
    return {
        "schema": REPORT_SCHEMA, "version": REPORT_VERSION, "title": title,
        "manifest": {"path": manifest_path, "forms": len(manifest_forms),
                     "forms_valid": sum(1 for f in forms if f["valid"])},
        "classes": list(CLASSES),
        "toolchains": sorted({g.toolchain or "?" for g in groups}, key=_version_key),
        "runs": [{"run_id": r.run_id, "tier": r.tier, "device": r.device, "toolchain": r.toolchain,
                  "toolchain_name": g.toolchain, "seed": r.seed, "started": r.started, "finished": r.finished,
                  "shards": {"count": r.count, "present": sorted(r.shards), "missing": r.missing},
                  "partial": [dict(p, shard=i) for i, p in r.partial],
                  "paths": r.paths, "cases": sum(len(d["cases"]) for _, d in r.shards.values())}
                 for g in groups for r in g.runs],
        "missing_shards": [{"run_id": a, "index": i, "count": n} for g in groups for a, i, n in g.missing_shards],
        "partial_runs": [{"run_id": a, "index": i, "count": n, **p} for g in groups for a, i, n, p in g.partial_runs],
        "replaced": [{"key": key_text(k), "earlier_run": a, "later_run": b}
                     for g in groups for k, a, b in g.replaced],
        "columns": columns,
        "summary": summary,
        "coverage": coverage,
        "families": [families[f] for f in sorted(families)],
        "rows": row_list,
        "findings_total": len(instances),
        "finding_groups": finding_groups,
        "findings": finding_list,
        "regressions": _regressions(groups, baselines_dir, multi_device, partial_ids),
        "toolchain_diffs": _toolchain_diffs(groups, cases, multi_device),
        "device_diffs": _device_diffs(groups, multi, multi_device, baselines_dir),
        "not_supported": [{"column": c, "reason": m, "count": n}
                          for (c, m), n in sorted(reasons.items(), key=lambda x: (_column_sort(x[0][0]), x[0][1]))],
    }


def _known_run_findings(instances):
    """{(column, key): finding id} for the run-tier fails, crashes and timeouts that a reviewed, unexpired finding of
    results/expectations/run.toml covers: the same judgement the run tier's CTest front makes (known.py, one
    implementation), so the report does not call a reviewed finding unexplained."""
    runs = {}
    for col, key, case, run in instances:
        if run.tier == "run" and case["class"] in UNEXPLAINED:
            runs.setdefault(id(run), (run, []))[1].append((col, key, case))
    expectations = os.path.join(paths.root(), "results", "expectations", "run.toml")
    if not runs or not os.path.isfile(expectations):
        return {}
    import datetime
    from framework.documents import known
    findings = known.load_findings(expectations)
    today = datetime.datetime.now(datetime.timezone.utc).date()
    out = {}
    for run, items in runs.values():
        answers = known.judge([c for _, _, c in items], known.Run(run.device, run.toolchain), findings, [], today,
                              (expectations, ""))
        for (col, key, _), a in zip(items, answers):
            if a["verdict"] == "known":
                out[(col, key)] = a["name"]
    return out


def _group_findings(instances, known=None):
    """(groups, compact list): groups sorted unexplained first, then by count; the list has one entry per
    finding (key, class, group, replay) for the per-family pages. known: {(column, key): reviewed finding id}."""
    known = known or {}
    by = {}
    for col, key, case, run in sorted(instances, key=lambda x: (_column_sort(x[0]), key_text(x[1]))):
        sig = signature(case, known.get((col, key)))
        gid = group_id(case["class"], sig)
        g = by.get(gid)
        if g is None:
            g = by[gid] = {"group": gid, "class": case["class"], "kind": sig[0], "signature": sig[1],
                           "message": case.get("message", ""),
                           "unexplained": case["class"] in UNEXPLAINED and (col, key) not in known,
                           "count": 0, "columns": {}, "families": set(), "examples": []}
        g["count"] += 1
        g["columns"][col] = g["columns"].get(col, 0) + 1
        g["families"].add(case["family"])
        if len(g["examples"]) < EXAMPLES:
            g["examples"].append({"id": case["id"], "key": key_text(key), "column": col, "run_id": run.run_id,
                                  "replay": case.get("replay", ""), "message": case.get("message", "")})
    groups = sorted(by.values(), key=lambda g: (not g["unexplained"], -g["count"], g["class"], g["signature"]))
    for g in groups:
        g["families"] = sorted(g["families"])
    listing = [{"key": key_text(key), "id": case["id"], "family": case["family"], "form": case["form"],
                "column": col, "class": case["class"], "group": group_id(case["class"], signature(case)),
                "replay": case.get("replay", "")}
               for col, key, case, run in sorted(instances, key=lambda x: (x[2]["family"], key_text(x[1])))]
    return groups, listing


def _device_of(g, sm, multi_device):
    """(device name, device label) of a group's runs on sm: the label only where sm has several devices in the
    report (the columns name the device there, and so do the sections that follow them)."""
    if not g.device_name:
        return None, None
    return g.device_name, device_label(g.device_name) if sm in multi_device else None


def _baseline_of(baselines_dir, tier, toolchain, sm, dev):
    """(path, cases) of the baseline the gate would judge this tier, toolchain and device by (baseline.choose), or
    (the path --update would write, None) where none claims the device."""
    chosen = baseline_mod.choose(baselines_dir, tier, toolchain, sm, dev)
    if chosen:
        return chosen[0], chosen[2]
    return os.path.join(baselines_dir, baseline_mod.relative_path(tier, toolchain, sm, dev)), None


def _regressions(groups, baselines_dir, multi_device=frozenset(), partial_ids=frozenset()):
    """The gate's classification of each (tier, toolchain, device) of the report against the baseline the gate
    chooses for it (baseline.choose: the one that claims the device), where baselines_dir has one (waivers are not
    applied: ./ptxcts gate gives the verdict). Each device is classified apart, as the gate does one device at a
    time, and counted as the gate counts: every kind of REGRESSION_KINDS, missing cases included unless the run is
    marked partial, has a shard missing or is named in partial_ids (then they are not run, as under gate
    --partial)."""
    out = []
    if not baselines_dir:
        return out
    for g in groups:
        parts = {}
        for key, (case, run) in g.results.items():
            sm = run.device["sm"] if run.device else None
            dev = baseline_mod.device_of(run.device, run.toolchain)
            parts.setdefault((run.tier, sm, tuple(sorted(dev.items())) if dev else None), {})[key] = (case, run)
        partial = bool(g.partial_runs or g.missing_shards or {r.run_id for r in g.runs} & partial_ids)
        for (tier, sm, dev), results in sorted(parts.items(), key=lambda x: (TIER_ORDER.get(x[0][0], 9),
                                                                             x[0][1] or "", str(x[0][2]))):
            if (tier == "run" and sm is None) or tier == "lower":   # the lowering tier gates keys: ./ptxcts lower --gate
                continue
            dev = dict(dev) if dev else None
            path, base = _baseline_of(baselines_dir, tier, g.toolchain, sm, dev)
            rel = os.path.relpath(path, baselines_dir)
            device, label = _device_of(g, sm, multi_device)
            entry = {"tier": tier, "toolchain": g.toolchain, "sm": sm, "device": device, "device_label": label,
                     "baseline": rel, "claims": dev}
            if base is None:
                out.append(dict(entry, found=False))
                continue
            entries = classify(base, results, partial=partial)
            counts = {}
            for e in entries:
                counts[e["kind"]] = counts.get(e["kind"], 0) + 1
            listed = []
            for e in entries:
                if e["kind"] in REGRESSION_KINDS and e["kind"] != "missing" and len(listed) < REGRESSIONS_LISTED:
                    case = results.get(e["key"], ({}, None))[0]
                    listed.append({"key": key_text(e["key"]), "kind": e["kind"], "baseline": e["baseline"],
                                   "run": e["run"], "message": case.get("message", ""),
                                   "replay": case.get("replay", "")})
            regress = sum(counts.get(k, 0) for k in REGRESSION_KINDS)
            out.append(dict(entry, found=True, counts=counts, regressions=regress, partial=partial,
                            missing=counts.get("missing", 0), listed=listed))
    return out


def _toolchain_diffs(groups, cases, multi_device=frozenset()):
    """For each tier and device with runs of several toolchains: the lowest toolchain compared with each other.
    Devices of one architecture are compared apart (one device's toolchains with each other)."""
    parts = {}
    for g in groups:
        for key, (case, run) in g.results.items():
            where = (run.tier, run.device["sm"] if run.device else None, g.device_name or "")
            parts.setdefault(where, {}).setdefault(g.toolchain, (g, {}))[1][key] = (case, run)
    out = []
    for (tier, sm, _), by_name in sorted(parts.items(),
                                         key=lambda x: (TIER_ORDER.get(x[0][0], 9), x[0][1] or "", x[0][2])):
        names = sorted(by_name, key=_version_key)
        if len(names) < 2:
            continue
        first, a = by_name[names[0]]
        for name in names[1:]:
            other, b = by_name[name]
            result = diff_mod.compare(a, b, cases, examples=EXAMPLES)
            device, label = _device_of(first, sm, multi_device)
            out.append({"tier": tier, "sm": sm, "device": device, "device_label": label,
                        "a": diff_mod.describe(first, tier), "b": diff_mod.describe(other, tier), **result})
    return out


def _first_line(message, limit=300):
    first = (message or "").strip().split("\n")[0]
    return first if len(first) <= limit else first[:limit] + "\u2026"


def _device_diffs(groups, multi, multi_device, baselines_dir=None):
    """For each architecture and toolchain of the run tier with runs on several devices: the keys whose class
    differs between the devices that ran them (all counted, DEVICE_DIFFS_LISTED listed, each with every device's
    class and message, the replay command and, where --baselines has the architecture's baseline, its value and
    whether every device's class is within it: a case whose class flips from run to run, recorded as a class set,
    is within it on both devices). Keys that only some devices ran are counted per column (`only`), not listed."""
    parts = {}
    for g in groups:
        for key, (case, run) in g.results.items():
            if run.tier != "run" or not run.device or run.device["sm"] not in multi_device:
                continue
            col = _column("run", run, case, "run" in multi, multi_device)
            where = parts.setdefault((run.device["sm"], g.toolchain), {})
            where.setdefault(col, (g.device_name, {}))[1][key] = (case, run)
    out = []
    for (sm, toolchain), by_col in sorted(parts.items(), key=lambda x: (x[0][0], _version_key(x[0][1]))):
        cols = sorted(by_col, key=_column_sort)
        if len(cols) < 2:
            continue
        base = None
        if baselines_dir:   # the reference device's baseline: the first column's device that has one
            for c in cols:
                run = next(iter(by_col[c][1].values()))[1]
                base = _baseline_of(baselines_dir, "run", toolchain, sm,
                                    baseline_mod.device_of(run.device, run.toolchain))[1]
                if base is not None:
                    break
        keys = set().union(*(set(by_col[c][1]) for c in cols))
        differing, only, compared = [], {c: 0 for c in cols}, 0
        for key in sorted(keys, key=key_text):
            present = [c for c in cols if key in by_col[c][1]]
            if len(present) < len(cols):
                for c in present:
                    only[c] += 1
            if len(present) < 2:
                continue
            compared += 1
            classes = {c: by_col[c][1][key][0]["class"] for c in present}
            if len(set(classes.values())) > 1:
                differing.append((key, present, classes))
        transitions = {}
        for _, present, classes in differing:
            t = " / ".join(classes[c] for c in present)
            transitions[t] = transitions.get(t, 0) + 1
        listed = []
        for key, present, classes in differing[:DEVICE_DIFFS_LISTED]:
            case = by_col[present[0]][1][key][0]
            entry = {"key": key_text(key), "id": case["id"], "family": case["family"], "form": case["form"],
                     "target": case["target"], "load_path": case["load_path"], "classes": classes,
                     "messages": {c: _first_line(by_col[c][1][key][0].get("message")) for c in present},
                     "replay": case.get("replay", ""), "baseline": None, "within_baseline": None}
            if base is not None and key in base:
                b = base[key]
                entry["baseline"] = "|".join(sorted(b)) if isinstance(b, tuple) else b
                entry["within_baseline"] = all(cls in baseline_mod.outcome(b) for cls in classes.values())
            listed.append(entry)
        out.append({"sm": sm, "toolchain": toolchain, "columns": cols,
                    "devices": [by_col[c][0] for c in cols], "labels": [device_label(by_col[c][0]) for c in cols],
                    "compared": compared, "differing": len(differing), "only": only,
                    "transitions": dict(sorted(transitions.items(), key=lambda kv: (-kv[1], kv[0]))),
                    "cases": listed})
    return out
