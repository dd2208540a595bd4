"""`./ptxcts gate RUN...`: compare a run with its committed baseline and the waivers; exit 1 on a regression.

Per case key, baseline class B and run class R:
  R == B                       unchanged
  R == pass, B != pass         fixed            (printed; --update records it)
  B == pass, R a finding       regression       (fail, spec_divergence, compile_error, crash, timeout: a case
                                                 that passed and now fails/diverges/crashes/times out, a valid
                                                 case that no longer compiles, an invalid one that now compiles)
  R not_supported or skipped   regression: lost (the case no longer reaches a verdict)
  B, R other non-pass classes  regression: changed (e.g. spec_divergence -> fail, fail -> crash)
  key only in the baseline     regression: missing (not run), unless --partial
  key only in the run          new: a regression if R is a finding, else listed
  beyond_chapter (an invalid case a newer toolchain accepts beyond the chapter's PTX version) is gated like
  spec_divergence: pass -> beyond_chapter is a regression, beyond_chapter -> pass is changed (within one
  toolchain name either flip is a change of the toolchain's behaviour), beyond_chapter -> beyond_chapter is
  unchanged.
A baseline value may be a class set (baseline.py: a finding whose class flips from run to run): R in the set is
unchanged, and --update keeps the set when R is in it; otherwise B is read as the set's classes above.
A regression matched by a waiver that has not expired is waived. Exit codes: see errors.py / results/README.md.

The baseline is chosen by the run's tier, toolchain name and device (baseline.choose: for a run on a device, the
one baseline that claims its name, compute capability and driver branch); a run marked partial, or with a shard
missing, is refused unless --partial; --update refuses to drop baseline cases the run did not cover unless
--partial (which keeps them).

A run of a device that no baseline claims (a GPU the suite has never seen, a new driver branch) is not red for
that: judge_without_baseline judges it against the model and the record. The classes are already the model's
verdicts (pass, or a spec_divergence naming an alternative); every fail, compile_error, crash and timeout must be a
reviewed finding on record (results/expectations/run.toml, known.py) or waived; one that is not is UNEXPLAINED
(exit 1). The gate says that no baseline of the device exists and how to make one (--update from that run).
"""
import argparse
import datetime
import json
import os
import sys

from framework import given
from framework.documents.runio import atomic_write
from framework.documents import baseline as baseline_mod
from framework.documents import known, merge, waivers as waivers_mod
from framework.documents.errors import EXIT_OK, EXIT_REGRESSION, IncompleteRun, UsageError
from framework.documents.schema import FINDINGS, key_text
from framework import paths


def _root():
    return paths.root()


def _date(text):
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD") from None


ACROSS = ("device", "driver")


def _across(text):
    items = text.split(",")
    bad = [i for i in items if i not in ACROSS]
    if bad or len(set(items)) != len(items):
        raise argparse.ArgumentTypeError(f"{text!r}: a comma-separated list of {', '.join(ACROSS)}, each once")
    return frozenset(items)


def run_device(merged):
    """The device identity a run on a device is of ({name, cc, driver_branch}: baseline.identity); UsageError when
    its documents name two (a baseline judges one device at a time)."""
    devs = {tuple(baseline_mod.device_of(r.device, r.toolchain).items()) for r in merged.runs if r.device}
    if len(devs) != 1:
        raise UsageError(f"gate one device at a time; these runs are of {len(devs)} devices: "
                         + ", ".join(baseline_mod.describe_device(dict(d)) for d in sorted(devs, key=str)))
    return dict(devs.pop())


def source_mismatch(header, merged, base_path, across):
    """A device baseline records the device and driver it was made on (its `device` claim; source.toolchain.driver
    for the version); a run of another device or driver branch is not judged against it unless `across` names what
    may differ: a red gate must mean the run changed, not the machine. -> the UsageError to raise, or None. Runs
    without a device are not checked (the compile tier's ptxas and nvJitLink verdicts belong to no device or
    driver)."""
    if header["sm"] is None:
        return None
    source = header["source"] or {}
    claim = header.get("device") or {}
    was = {"device": claim.get("name") or source.get("device"),
           "driver": (source.get("toolchain") or {}).get("driver") or claim.get("driver_branch")}
    now = {"device": sorted({r.device["name"] for r in merged.runs if r.device}),
           "driver": sorted({(r.toolchain or {}).get("driver") or "?" for r in merged.runs})}
    same = {"device": lambda: now["device"] == [was["device"]],
            "driver": lambda: {baseline_mod.driver_branch(d) for d in now["driver"]}
            == {baseline_mod.driver_branch(was["driver"])}}
    for what in ACROSS:
        if what in across or not was[what] or same[what]():
            continue
        return UsageError(f"{base_path} was made on {what} {was[what]!r}, but the run is of {what} "
                          f"{', '.join(map(repr, now[what]))}: give the baseline of this {what} with --baseline "
                          f"FILE, or pass --across {what} to gate across the change on purpose")
    return None


def add_arguments(p):
    p.add_argument("runs", path=given.INPUT, nargs="+", metavar="RUN", help="run folder(s) of one architecture (shards are combined)")
    p.add_argument("--baseline", path=given.NEW_FILE, metavar="FILE",
                   help="default: results/baselines/<tier>/<toolchain>.json.gz for a run without a device; for a run "
                        "on a device, the baseline under results/baselines/<tier>/<sm>/ that claims its device (name, "
                        "compute capability, driver branch); none claims it: the run is judged against the model and "
                        "the record")
    p.add_argument("--waivers", path=given.FILE, metavar="FILE", help="default: results/waivers.toml")
    p.add_argument("--update", action="store_true", help="write the run's classes as the new baseline (exit 0); "
                   "refused when the run lacks cases of the baseline, unless --partial")
    p.add_argument("--partial", action="store_true",
                   help="the run covers part of the baseline (a filtered or partial run): baseline cases not run "
                        "are listed, not regressions (with --update they are kept in the baseline)")
    p.add_argument("--prefer-later", action="store_true", help="as for report: the later run wins a key conflict")
    p.add_argument("--today", metavar="YYYY-MM-DD", type=_date,
                   help="the date waivers expire against (default: today, UTC)")
    p.add_argument("--json", path=given.NEW_FILE, metavar="FILE", help="also write the verdict as JSON")
    p.add_argument("--across", metavar="WHAT", type=_across, default=frozenset(),
                   help="gate against a baseline made on another device and/or driver on purpose (a candidate "
                        "driver against the last release's baseline): 'driver', 'device' or 'device,driver'; "
                        "without it such a baseline is refused (exit 2)")
    p.add_argument("--list", type=int, default=100, metavar="N",
                   help="list at most N fixed / new / missing cases (regressions are always listed in full)")


def classify(base, results, partial):
    """-> list of entries {key, baseline, run, kind}; kind in unchanged fixed regression lost changed missing
    new new_finding not_run."""
    out = []
    for key in sorted(set(base) | set(results), key=key_text):
        b = base.get(key)
        r = results[key][0]["class"] if key in results else None
        if r is None:
            kind = "not_run" if partial else "missing"
        elif b is None:
            kind = "new_finding" if r in FINDINGS else "new"
        elif r in baseline_mod.outcome(b):
            kind = "unchanged"
        elif b == "beyond_chapter" and r == "pass":
            kind = "changed"
        elif r == "pass":
            kind = "fixed"
        elif r in ("not_supported", "skipped"):
            kind = "lost"
        elif "pass" in baseline_mod.outcome(b):
            kind = "regression"
        else:
            kind = "changed"
        out.append({"key": key, "baseline": "|".join(sorted(b)) if isinstance(b, tuple) else b, "run": r, "kind": kind})
    return out


REGRESSION_KINDS = ("regression", "changed", "lost", "missing", "new_finding")


def select(merged):
    """(tier, device sm or None, toolchain name) of a merged run: what picks its baseline. UsageError when the
    runs mix tiers or devices, or no toolchain name can be told."""
    tiers = {r.tier for r in merged.runs}
    sms = {r.device["sm"] if r.device else None for r in merged.runs}
    if len(tiers) != 1 or len(sms) != 1:
        raise UsageError(f"gate one tier on one device at a time; these runs are {sorted(tiers)} on "
                         f"{sorted(s or 'no device' for s in sms)}")
    tier, sm = tiers.pop(), sms.pop()
    if tier == "run" and sm is None:
        raise UsageError("the run tier ran without a device (every case skipped): there is nothing to gate")
    if not merged.toolchain:
        raise UsageError(f"{merged.runs[0].paths[0]}: the run records no toolchain name (toolchain.name, or a "
                         "ptxas version to take major.minor from): its baseline cannot be chosen")
    return tier, sm, merged.toolchain


def run_gate(args, out=None):
    out = out or sys.stdout
    if args.list < 0:
        raise UsageError(f"--list {args.list}: must be 0 or more (cases listed per section)")
    today = args.today or datetime.datetime.now(datetime.timezone.utc).date()
    merged = merge.load_and_merge(args.runs, args.prefer_later)
    if merged.missing_shards and (not args.partial or args.update):
        raise IncompleteRun("; ".join(merged.missing_shard_lines())
                            + ("" if args.update else " (pass --partial to gate what is there)"))
    if merged.partial_runs and not args.partial:
        raise IncompleteRun("; ".join(merged.partial_lines()) + " (pass --partial to gate what is there)")
    tier, sm, toolchain = select(merged)
    root = _root()
    if tier == "lower":   # its baseline holds lowering keys, not classes: the lowering tier's own gate judges it
        from framework.documents import lowering as keys
        if len(args.runs) != 1:
            raise UsageError("gate one lowering run at a time")
        return keys.gate(args.runs[0], args.baseline, args.update, root, out, partial=args.partial)
    baselines_dir = os.path.join(root, "results", "baselines")
    run_dev = run_device(merged) if sm else None
    waiver_path = args.waivers or os.path.join(root, "results", "waivers.toml")
    if args.waivers and not os.path.isfile(waiver_path):
        raise UsageError(f"{waiver_path}: no such waiver file")
    waivers = waivers_mod.load(waiver_path) if os.path.isfile(waiver_path) else []
    stand_in = None   # the device whose baseline judges this run under --across, where it is not the run's own
    if args.baseline:
        base_path = args.baseline
        chosen = (base_path, *baseline_mod.load(base_path)) if os.path.isfile(base_path) else None
    else:
        chosen = baseline_mod.choose(baselines_dir, tier, toolchain, sm, run_dev, args.across)
        if chosen and sm and not baseline_mod.claims(chosen[1]["device"], run_dev):
            stand_in = chosen[1]["device"]
            if args.update:   # --update writes this device's own baseline, never another device's
                chosen = None
        base_path = chosen[0] if chosen else os.path.join(
            baselines_dir, baseline_mod.relative_path(tier, toolchain, sm, run_dev))
    if chosen:
        _, header, base = chosen
        if (header["tier"], header["toolchain"], header["sm"]) != (tier, toolchain, sm):
            raise UsageError(f"{base_path} is the baseline of the "
                             f"{baseline_mod.describe(header['tier'], header['toolchain'], header['sm'])}, but the run "
                             f"is of the {baseline_mod.describe(tier, toolchain, sm)}: its baseline is "
                             f"results/baselines/{baseline_mod.relative_path(tier, toolchain, sm, run_dev)}")
        refused = source_mismatch(header, merged, base_path, args.across)
        if refused:
            raise refused
    elif args.update:
        base = {}
    elif sm and not args.baseline:
        return judge_without_baseline(args, merged, (tier, toolchain, sm), run_dev, base_path, baselines_dir,
                                      (waivers, waiver_path), today, out)
    else:
        raise UsageError(f"{base_path}: no baseline for the {baseline_mod.describe(tier, toolchain, sm)}; review "
                         f"this run, then create it with: ./ptxcts gate {' '.join(args.runs)} --update")
    if args.update and not args.partial:
        dropped = sorted(set(base) - set(merged.results), key=key_text)
        if dropped:
            raise UsageError(f"--update would drop {len(dropped)} of the {len(base)} cases of {base_path} that this "
                             f"run did not cover (a filtered or partial run; e.g. {key_text(dropped[0])}): pass "
                             "--partial to update only the cases the run covers and keep the others, or delete "
                             "the baseline first to shrink it on purpose")

    entries = classify(base, merged.results, args.partial)
    used = set()
    for e in entries:
        if e["kind"] not in REGRESSION_KINDS:
            continue
        run = merged.results[e["key"]][1] if e["key"] in merged.results else None
        new_class = e["run"] or "missing"
        for w in waivers:
            if w.matches(e["key"], new_class, run):
                if w.expired(today):
                    e.setdefault("expired_waivers", []).append(w.index)
                    continue
                e["waived_by"] = w.index
                used.add(w.index)
                break

    regressions = [e for e in entries if e["kind"] in REGRESSION_KINDS and "waived_by" not in e]
    waived = [e for e in entries if "waived_by" in e]
    by_kind = {}
    for e in entries:
        by_kind.setdefault(e["kind"], []).append(e)
    expired = [w for w in waivers if w.expired(today)]
    unused = [w for w in waivers if w.index not in used and not w.expired(today)]

    def say(text=""):
        print(text, file=out)

    def show(e, label):
        case = merged.results[e["key"]][0] if e["key"] in merged.results else {}
        say(f"  {label:<11} {e['baseline'] or '(new)'} -> {e['run'] or '(not run)'}  {key_text(e['key'])}")
        if case.get("message"):
            say(f"              message: {case['message']}")
        if case.get("replay"):
            say(f"              replay:  {case['replay']}")
        for i in e.get("expired_waivers", []):
            say(f"              waiver expired: {waivers[i].describe(waiver_path)}")
        if "waived_by" in e:
            w = waivers[e["waived_by"]]
            say(f"              waived by {w.describe(waiver_path)}: {w.reason}")

    say(f"gate: {', '.join(r.describe() for r in merged.runs)} against {base_path} ({len(base)} cases); "
        f"waivers {waiver_path if waivers else '(none)'}; today {today}")
    if sm and not stand_in:
        say(f"gate: the baseline of this device, {baseline_mod.describe_device(run_dev)}")
    for what in sorted(args.across):
        say(f"gate: --across {what}: the baseline's {what} may differ from the run's"
            + (f" (it is of {baseline_mod.describe_device(stand_in)})" if stand_in else ""))
    for line in merged.missing_shard_lines() + merged.partial_lines():
        say(f"gate: WARNING (--partial): {line}")
    say(f"\nregressions: {len(regressions)}")
    for e in regressions:
        show(e, {"regression": "REGRESSION", "changed": "CHANGED", "lost": "LOST", "missing": "MISSING",
                 "new_finding": "NEW-FINDING"}[e["kind"]])
    say(f"\nwaived regressions: {len(waived)}")
    for e in waived:
        show(e, "WAIVED")
    for kind, label in (("fixed", "FIXED"), ("new", "NEW"), ("not_run", "NOT-RUN")):
        items = by_kind.get(kind, [])
        say(f"\n{kind.replace('_', ' ')} cases: {len(items)}")
        for e in items[:args.list]:
            show(e, label)
        if len(items) > args.list:
            say(f"  ... and {len(items) - args.list} more (--list N, or --json FILE for all)")
    say(f"\nunused waivers: {len(unused)}")
    for w in unused:
        say(f"  UNUSED      {w.describe(waiver_path)}")
    say(f"\nexpired waivers: {len(expired)}")
    for w in expired:
        say(f"  EXPIRED     {w.describe(waiver_path)}: expired {w.expires}, today is {today}")

    counts = {k: len(by_kind.get(k, [])) for k in ("unchanged", "fixed", "regression", "changed", "lost",
                                                     "missing", "new_finding", "new", "not_run")}
    say("\n" + "  ".join(f"{k} {v}" for k, v in counts.items()) + f"  waived {len(waived)}")
    verdict = {"schema": "ptxcts-gate", "version": 2, "tier": tier, "toolchain": toolchain, "sm": sm,
               "device": run_dev, "baseline": base_path, "judged_by": "baseline",
               "waivers": waiver_path if waivers else None, "today": str(today), "counts": counts,
               "regressions": [_entry_json(e) for e in regressions], "waived": [_entry_json(e) for e in waived],
               "fixed": [_entry_json(e) for e in by_kind.get("fixed", [])],
               "new": [_entry_json(e) for e in by_kind.get("new", [])],
               "not_run": [_entry_json(e) for e in by_kind.get("not_run", [])],
               "unused_waivers": [w.line for w in unused], "expired_waivers": [w.line for w in expired],
               "missing_shards": [{"run_id": a, "index": i, "count": n} for a, i, n in merged.missing_shards]}
    if args.update:
        cases = {k: e[0]["class"] for k, e in merged.results.items()}
        # a class set stays while the run's class is one of it (the finding flips; this run took one side)
        cases = {k: (base[k] if isinstance(base.get(k), tuple) and c in base[k] else c) for k, c in cases.items()}
        if args.partial:
            cases = {**{k: c for k, c in base.items() if k not in cases}, **cases}
        dev = {r.device["name"] for r in merged.runs if r.device}
        source = {"runs": sorted(r.run_id for r in merged.runs), "device": sorted(dev)[0] if dev else None,
                  "toolchain": merged.runs[0].toolchain}
        baseline_mod.write(base_path, tier, toolchain, sm, source, cases, run_dev)
        say(f"gate: --update: wrote {base_path} ({len(cases)} cases); review and commit it")
        code = EXIT_OK
    else:
        code = EXIT_REGRESSION if regressions else EXIT_OK
        say(f"gate: {'FAIL' if regressions else 'PASS'}: {len(regressions)} unwaived regressions"
            f" (exit {code})")
    verdict["exit"] = code
    if args.json:
        atomic_write(args.json, json.dumps(verdict, indent=1, sort_keys=True) + "\n")
    return code


def _entry_json(e):
    d = {"key": key_text(e["key"]), "baseline": e["baseline"], "run": e["run"], "kind": e["kind"]}
    if "waived_by" in e:
        d["waived_by"] = e["waived_by"]
    return d


RECORD_CLASSES = known.FINDING_CLASSES   # fail, compile_error, crash, timeout: each must be on record


def judge_without_baseline(args, merged, what, run_dev, would_be, baselines_dir, waived, today, out):
    """The gate of a run on a device no baseline claims: every result whose class is a finding the model does not
    explain (RECORD_CLASSES) must be covered by a reviewed finding (results/expectations/run.toml, or
    PTXCTS_RUN_EXPECTATIONS) or an unexpired waiver, as the run tier's CTest front judges it (known.judge); the
    rest is UNEXPLAINED (exit 1). Says which baselines exist and how to make this device's. -> exit code."""
    tier, toolchain, sm = what
    waivers, waiver_path = waived
    root = _root()
    exp_path = given.env("PTXCTS_RUN_EXPECTATIONS", given.FILE,
                         default=os.path.join(root, "results", "expectations", "run.toml"))
    findings = known.load_findings(exp_path) if tier == "run" and os.path.isfile(exp_path) else []
    files = (os.path.relpath(exp_path, root), os.path.relpath(waiver_path, root) if waivers else "no waiver file")
    classes, on_record, unexplained, by_record = {}, [], [], {}
    for key in sorted(merged.results, key=key_text):
        case, run = merged.results[key]
        cls = case["class"]
        classes[cls] = classes.get(cls, 0) + 1
        if cls not in RECORD_CLASSES:
            continue
        answer = known.judge([case], known.Run(run.device, run.toolchain), findings, waivers, today, files)[0]
        entry = {"key": key, "baseline": None, "run": cls, "kind": "unexplained", "case": case, "answer": answer}
        if answer["verdict"] == "known":
            entry["kind"] = "on_record"
            on_record.append(entry)
            by_record[answer["name"]] = by_record.get(answer["name"], 0) + 1
        else:
            unexplained.append(entry)
    others = [(path, header["device"]) for path, header, _ in baseline_mod.candidates(baselines_dir, tier, toolchain, sm)]

    def say(text=""):
        print(text, file=out)

    say(f"gate: {', '.join(r.describe() for r in merged.runs)}: NO BASELINE of this device, "
        f"{baseline_mod.describe_device(run_dev)}, for the {baseline_mod.describe(tier, toolchain, sm)}")
    for path, dev in others:
        say(f"gate:   {os.path.relpath(path, root)} claims {baseline_mod.describe_device(dev)}")
    record = (f"a reviewed finding ({files[0]})" if tier == "run" else
              "waived (the compile tier's reviewed findings, results/expectations/ptxas.toml, are applied as it runs: "
              "a case they cover is a spec_divergence already)")
    say(f"gate: judged against the model and the record instead: every {', '.join(RECORD_CLASSES)} must be {record} or "
        f"waived ({files[1]}); today {today}")
    say(f"gate: to make this device's baseline once the run is reviewed: ./ptxcts gate {' '.join(args.runs)} --update "
        f"(writes {os.path.relpath(would_be, root)})")
    for line in merged.missing_shard_lines() + merged.partial_lines():
        say(f"gate: WARNING (--partial): {line}")
    say(f"\nunexplained: {len(unexplained)}")
    for e in unexplained:
        say(f"  UNEXPLAINED {e['run']}  {key_text(e['key'])}")
        if e["case"].get("message"):
            say(f"              message: {e['case']['message']}")
        if e["case"].get("replay"):
            say(f"              replay:  {e['case']['replay']}")
        if e["answer"]["text"]:
            say(f"              {e['answer']['text']}")
    say(f"\non record: {len(on_record)}")
    for name, n in sorted(by_record.items()):
        say(f"  ON-RECORD   {n:>6}  {name}")
    say("\nclasses: " + "  ".join(f"{k} {v}" for k, v in sorted(classes.items())))
    counts = {"judged": len(merged.results), "on_record": len(on_record), "unexplained": len(unexplained)}
    code = EXIT_REGRESSION if unexplained else EXIT_OK
    say(f"gate: {'FAIL' if unexplained else 'PASS'} (no baseline of this device: judged by the model and the record): "
        f"{len(unexplained)} unexplained (exit {code})")
    if args.json:
        verdict = {"schema": "ptxcts-gate", "version": 2, "tier": tier, "toolchain": toolchain, "sm": sm,
                   "device": run_dev, "baseline": None, "judged_by": "model and record", "would_write": would_be,
                   "expectations": exp_path, "waivers": waiver_path if waivers else None, "today": str(today),
                   "counts": counts, "classes": classes, "on_record_by": by_record,
                   "regressions": [{"key": key_text(e["key"]), "baseline": None, "run": e["run"], "kind": e["kind"],
                                    "why": e["answer"]["text"]} for e in unexplained],
                   "waived": [], "fixed": [], "new": [], "not_run": [], "unused_waivers": [], "expired_waivers": [],
                   "missing_shards": [{"run_id": a, "index": i, "count": n} for a, i, n in merged.missing_shards],
                   "exit": code}
        atomic_write(args.json, json.dumps(verdict, indent=1, sort_keys=True) + "\n")
    return code
