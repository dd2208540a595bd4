"""`./ptxcts diff A B`: what changed between two runs (one tier with two toolchains, or two runs of one toolchain).

Cases are matched by (id, target, ptx, load_path), ignoring the toolchain and the device. Each case whose class
differs (or that is in one run only: class "absent" on the other side) is counted as a transition "A -> B" in
four groupings: per family, per rule (the rules the case breaks, from the manifest's cases/<family>.tsv; a valid
case is under "(valid)"), per target and per PTX version. Each transition of each group keeps up to N example
cases with both sides' class, message and compiler diagnostics (`details.diagnostics`).

Exit codes: 0 no difference, 1 differences (as diff(1)), 2 usage, 3 malformed input.
compare() is also what the report calls for its "differences between toolchains" section.
"""
import json
import sys

from framework import given
from framework import manifest
from framework.documents import merge
from framework.documents.errors import EXIT_OK, EXIT_REGRESSION, UsageError
from framework.documents.runio import atomic_write
from framework.documents.schema import target_sort_key

ABSENT = "absent"
DIMENSIONS = ("family", "rule", "target", "ptx")
VALID_RULE, UNKNOWN_RULE = "(valid)", "(not in the manifest)"


def add_arguments(p):
    p.add_argument("a", path=given.INPUT, metavar="A", help="a run (folder, results.json, or a folder of its shards)")
    p.add_argument("b", path=given.INPUT, metavar="B", help="the run to compare it with")
    p.add_argument("--family", action="append", metavar="F", help="only this family (repeatable)")
    p.add_argument("--examples", type=int, default=3, metavar="N", help="example cases per transition (default 3)")
    p.add_argument("--json", path=given.NEW_FILE, metavar="FILE", help="also write the whole comparison as JSON")
    p.add_argument("--markdown", path=given.NEW_FILE, metavar="FILE", help="also write it as Markdown")
    p.add_argument("--manifest", path=given.FOLDER, metavar="DIR", default=None,
                   help="the generator's manifest folder, for the rules (default: generated/manifest)")
    p.add_argument("--prefer-later", action="store_true", help="as for report, within each side")


def _by_match_key(results, side):
    """Cases matched by (id, target, PTX version, load path), the device aside. In the run tier the PTX version is
    the one the run rendered its modules at (the toolchain's choice, e.g. 8.8 with 12.9, 9.0 with 13.x), not part of
    the case: run cases match on (id, target, load path)."""
    out = {}
    for key, (case, run) in results.items():
        k = key[:4] if run.tier != "run" else (key[0], key[1], "*", key[3])
        if k in out:
            raise UsageError(f"run {side} holds case {'|'.join(k)} twice (devices {out[k][1].device and out[k][1].device['sm']}"
                             f" and {run.device and run.device['sm']}): diff one device at a time")
        out[k] = (case, run)
    return out


def _side(case):
    if case is None:
        return {"class": ABSENT}
    diags = [f"{d.get('severity', '?')} ({d.get('where', '?')}): {d.get('message', '')}"
             for d in (case.get("details") or {}).get("diagnostics", [])[:4] if isinstance(d, dict)]
    return {"class": case["class"], "message": case.get("message", ""), "diagnostics": diags}


def _rules_of(case, cases):
    if cases is None:
        return [UNKNOWN_RULE]
    rules = cases.rules(case["form"], case["target"], case["ptx"])
    if rules is None:
        return [UNKNOWN_RULE]
    return list(rules) or [VALID_RULE]


def _group_sort(dim, name):
    if dim == "target":
        return target_sort_key(name)
    if dim == "ptx":
        return tuple(int(x) for x in name.split(".")) if name.replace(".", "").isdigit() else (999,)
    return (name,)


def compare(a_results, b_results, cases=None, families=None, examples=3):
    """Compare two merged result sets ({key: (case, run)}, as merge.Merged.results). `cases`: manifest.Cases for
    the rules (None: every case under "(not in the manifest)"). Returns the comparison as a dict:
    {matched, only_a, only_b, unchanged, changed, transitions: {"A -> B": n}, groups: {dim: [{group, changed,
    transitions: [{from, to, count, examples: [{id, target, ptx, load_path, a, b}]}]}]}}."""
    a, b = _by_match_key(a_results, "A"), _by_match_key(b_results, "B")
    fams = set(families or ())
    groups = {dim: {} for dim in DIMENSIONS}
    totals, unchanged = {}, 0
    for k in sorted(set(a) | set(b)):
        ca, cb = a.get(k, (None, None))[0], b.get(k, (None, None))[0]
        case = ca or cb
        if fams and case["family"] not in fams:
            continue
        fa, fb = (ca or {}).get("class", ABSENT), (cb or {}).get("class", ABSENT)
        if fa == fb:
            unchanged += 1
            continue
        totals[(fa, fb)] = totals.get((fa, fb), 0) + 1
        names = {"family": [case["family"]], "rule": _rules_of(case, cases), "target": [case["target"]],
                 "ptx": [case["ptx"]]}
        for dim, values in names.items():
            for name in values:
                tr = groups[dim].setdefault(name, {}).setdefault((fa, fb), {"count": 0, "examples": []})
                tr["count"] += 1
                if len(tr["examples"]) < examples:
                    tr["examples"].append({"id": case["id"], "target": case["target"], "ptx": case["ptx"],
                                           "load_path": case["load_path"], "a": _side(ca), "b": _side(cb)})
    out_groups = {}
    for dim in DIMENSIONS:
        rows = []
        for name in sorted(groups[dim], key=lambda n: _group_sort(dim, n)):
            trs = sorted(groups[dim][name].items(), key=lambda kv: (-kv[1]["count"], kv[0]))
            rows.append({"group": name, "changed": sum(t["count"] for _, t in trs),
                         "transitions": [{"from": f, "to": t, **v} for (f, t), v in trs]})
        out_groups[dim] = rows
    in_a = sum(1 for k, (c, _) in a.items() if not fams or c["family"] in fams)
    in_b = sum(1 for k, (c, _) in b.items() if not fams or c["family"] in fams)
    both = sum(1 for k, (c, _) in a.items() if k in b and (not fams or c["family"] in fams))
    return {"matched": both, "only_a": in_a - both, "only_b": in_b - both, "unchanged": unchanged,
            "changed": sum(totals.values()),
            "transitions": {f"{f} -> {t}": n for (f, t), n in sorted(totals.items(), key=lambda kv: -kv[1])},
            "groups": out_groups}


def describe(merged, tier=None):
    runs = [r for r in merged.runs if tier is None or r.tier == tier]
    tiers = sorted({r.tier for r in runs})
    devices = sorted({r.device["sm"] for r in runs if r.device})
    return {"runs": [r.run_id for r in runs], "tiers": tiers, "toolchain": merged.toolchain,
            "devices": devices, "cases": sum(1 for _, run in merged.results.values() if run in runs)}


def _label(side):
    return (f"{', '.join(side['runs'])} ({'/'.join(side['tiers'])}, toolchain {side['toolchain'] or '?'}"
            + (f", {', '.join(side['devices'])}" if side["devices"] else "") + f", {side['cases']} cases)")


def text(result):
    """The comparison as plain text (what `diff` prints)."""
    out = [f"diff: A = {_label(result['a'])}", f"      B = {_label(result['b'])}",
           f"{result['matched']} cases in both, {result['unchanged']} unchanged, {result['changed']} changed "
           f"({result['only_a']} only in A, {result['only_b']} only in B)"]
    if result["transitions"]:
        out.append("transitions: " + ", ".join(f"{t}: {n}" for t, n in result["transitions"].items()))
    for dim in DIMENSIONS:
        rows = result["groups"][dim]
        if not rows:
            continue
        out += ["", f"== per {dim} =="]
        for row in rows:
            out.append(f"{row['group']}  ({row['changed']} changed)")
            for tr in row["transitions"]:
                out.append(f"  {tr['from']} -> {tr['to']}: {tr['count']}")
                for ex in tr["examples"]:
                    out.append(f"    {ex['id']}  [{ex['target']} ptx{ex['ptx']} {ex['load_path']}]")
                    for side in ("a", "b"):
                        s = ex[side]
                        msg = s.get("message") or ""
                        out.append(f"      {side.upper()} {s['class']}" + (f": {msg.splitlines()[0][:300]}" if msg else ""))
                        out += [f"        {d[:300]}" for d in s.get("diagnostics", [])]
    return "\n".join(out) + "\n"


def _md(text_):
    return str(text_).replace("|", "\\|").replace("\n", " ")


def markdown(result, heading="##"):
    """The comparison as Markdown: one table per grouping, examples with both sides' messages."""
    out = [f"{heading} Differences", "", f"* A: {_md(_label(result['a']))}", f"* B: {_md(_label(result['b']))}",
           f"* {result['matched']} cases in both, {result['unchanged']} unchanged, **{result['changed']} changed** "
           f"({result['only_a']} only in A, {result['only_b']} only in B)", ""]
    for dim in DIMENSIONS:
        rows = result["groups"][dim]
        if not rows:
            continue
        out += [f"{heading}# Per {dim}", "", "| " + dim + " | transition | cases | examples (A / B) |", "|---|---|---:|---|"]
        for row in rows:
            for tr in row["transitions"]:
                exs = "<br>".join(
                    f"`{_md(ex['id'])}`: A {_md(ex['a']['class'])}"
                    + (f" ({_md((ex['a'].get('message') or '')[:160])})" if ex['a'].get('message') else "")
                    + f" / B {_md(ex['b']['class'])}"
                    + (f" ({_md((ex['b'].get('message') or '')[:160])})" if ex['b'].get('message') else "")
                    for ex in tr["examples"])
                out.append(f"| {_md(row['group'])} | {tr['from']} → {tr['to']} | {tr['count']} | {exs} |")
        out.append("")
    return "\n".join(out) + "\n"


def _one_toolchain(paths, side, prefer_later):
    groups = merge.load_and_merge_groups([paths], prefer_later)
    merge.one_tier(groups, f"the runs of {side} ({paths})")
    if len(groups) != 1:
        raise UsageError(f"{side} ({paths}) holds runs of {merge.describe_groups(groups)}:"
                         " give one run (or its shards) per side")
    return groups[0]


def main(args):
    if args.examples < 0:
        raise UsageError(f"--examples {args.examples}: must be 0 or more")
    a = _one_toolchain(args.a, "A", args.prefer_later)
    b = _one_toolchain(args.b, "B", args.prefer_later)
    ta, tb = a.runs[0].tier, b.runs[0].tier
    if not merge.comparable(ta, tb):
        raise UsageError(f"A ({args.a}) is a {ta}-tier run and B ({args.b}) a {tb}-tier run: their cases share no key, "
                         "so every case would read as absent on one side; compare two runs of one tier")
    cases = manifest.load_cases(args.manifest or manifest.default_dir())
    known = {c["family"] for m in (a, b) for c, _ in m.results.values()}
    unknown = sorted(set(args.family or ()) - known)
    if unknown:
        raise UsageError(f"--family {unknown[0]}: no case of that family in either run (families: "
                         f"{', '.join(sorted(known))})")
    result = compare(a.results, b.results, cases, args.family, args.examples)
    result = {"schema": "ptxcts-diff", "version": 1, "a": describe(a), "b": describe(b), **result}
    sys.stdout.write(text(result))
    lowering = _lowering_keys(a, b, args.family)
    if lowering is not None:   # two lowering runs: which forms changed their lowering key, per target
        result["lowering"] = lowering
    for option, path, render in (("--json", args.json, lambda: json.dumps(result, indent=1, sort_keys=True,
                                                                          ensure_ascii=False) + "\n"),
                               ("--markdown", args.markdown, lambda: markdown(result))):
        if path:
            try:
                atomic_write(path, render())
            except OSError as e:
                raise UsageError(f"{option} {path}: cannot write: {e.strerror}") from None
    changed_keys = lowering is not None and any(r["changed"] or r["only_a"] or r["only_b"] for r in lowering.values())
    return EXIT_REGRESSION if result["changed"] or changed_keys else EXIT_OK


def _lowering_keys(a, b, families):
    """The lowering tier's comparison of keys (lower.keys.compare) when both sides are lowering runs, else None."""
    if {r.tier for r in a.runs} != {"lower"} or {r.tier for r in b.runs} != {"lower"}:
        return None
    from framework.documents import lowering as keys

    def doc(m):
        return {"run_id": ",".join(r.run_id for r in m.runs), "toolchain": {"name": m.toolchain},
                "cases": [c for c, _ in m.results.values() if not families or c["family"] in families]}
    da, db = doc(a), doc(b)
    cmp = keys.compare(da, db)
    keys.print_compare(da, db, cmp, sys.stdout)
    return cmp
