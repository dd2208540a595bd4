"""Stale baselines: a committed run-tier baseline checked against today's model, on a machine without a GPU.

    python3 -m results.staleness RUNDOC [--baseline FILE] [--json OUT]
    (through ./ptxcts: python3 -m boundary results.staleness ...; results/baselines/README.md, "Stale baselines")

RUNDOC is a committed run document (results.json[.gz] or its folder) whose device outcomes the baseline reviewed.
The run tier judges its recorded outcomes again with this tree's model and plan (`ptxcts-run --rejudge RUNDOC
--json`, harness/run/src/rejudge.hpp: every refused encode or driver-API encode through judge_encode, every
kernel trap through judge_trap; the rest is not re-judgeable, counted by reason). Each re-judged case is then looked
up in the baseline of the document's tier, toolchain and device (baseline.locate, or --baseline):

  stale            the baseline holds the class the run recorded and today's model gives another for the same
                   device outcome: the baseline was made before a model change and must be written again
                   (./ptxcts gate RUN --update from a run of this tree), or the change reviewed;
  run differs      the run's recorded class is already not the baseline's (another device or run than the
                   baseline's source): the model cannot be blamed, the gate judges such a run; listed, not stale;
  not in baseline  the key has no class in the baseline (listed, not stale).

Exit: 0 nothing stale, 1 stale keys (listed), 2 usage (no ptxcts-run built, no baseline for the document),
3 a malformed run document or baseline (named).
"""
import argparse
import glob
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

from framework import given
from framework import paths
from framework import boundary
from framework.documents import baseline
from framework.documents.runio import output_over_input
from framework.documents.errors import EXIT_OK, EXIT_REGRESSION, InputError, ResultsError, UsageError
from framework.documents.schema import key_text, toolchain_name

RUN_ID = re.compile(r'"run_id":\s*"([^"]*)"')
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def build_dir():
    value = os.environ.get("PTXCTS_BUILD")
    if value is not None and not value.strip():
        raise UsageError("PTXCTS_BUILD is set but empty; unset it to use build/, or name a folder")
    return value or os.path.join(paths.root(), "build")


def run_rejudge(rundoc, exe=None):
    """The re-judge's JSON document (schema ptxcts-rejudge) of rundoc, from `ptxcts-run --rejudge`."""
    exe = exe or os.path.join(build_dir(), "harness", "run", "ptxcts-run")
    if not os.path.isfile(exe):
        raise UsageError(f"{exe} is not built; run './ptxcts build' first")
    with tempfile.TemporaryDirectory(prefix="ptxcts-stale-") as tmp:
        out = os.path.join(tmp, "rejudge.json")
        proc = subprocess.run([exe, "--rejudge", rundoc, "--json", out, "--quiet"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        err = proc.stderr.strip()
        if proc.returncode == 3:   # the C++ reader named the file and what is wrong
            raise InputError(rundoc, None, None, err.split(": ", 2)[-1] if err else "malformed run document")
        if proc.returncode == 2:
            raise UsageError(err.split("ptxcts-run: ", 1)[-1] if err else f"{exe} --rejudge: usage error")
        if proc.returncode not in (0, 1) or not os.path.isfile(out):
            raise ResultsError(f"{exe} --rejudge {rundoc} ended with exit {proc.returncode}: {err[-400:]}")
        with open(out, encoding="utf-8") as f:
            doc = json.load(f)
    doc["stdout"] = proc.stdout
    return doc


def check(rejudged, base_cases, sm):
    """(stale, run_differs, not_in_baseline, agree) lists of rows over the re-judged cases of a ptxcts-rejudge
    document against a baseline's {key: class or class set}."""
    stale, differs, missing, agree = [], [], [], []
    for c in rejudged["cases"]:
        if "today" not in c:
            continue
        key = (c["id"], c["target"], c["ptx"], c["load_path"], sm)
        base = base_cases.get(key)
        row = dict(c, key=key_text(key), baseline=base)
        if base is None:
            missing.append(row)
            continue
        classes = base if isinstance(base, tuple) else (base,)
        if c["today"] in classes:
            agree.append(row)
        elif c["recorded"] in classes:
            stale.append(row)
        else:
            differs.append(row)
    return stale, differs, missing, agree


def _baseline_text(base):
    return "|".join(base) if isinstance(base, tuple) else str(base)


def main(argv=None):
    p = boundary.ArgumentParser(prog="staleness", description=__doc__.split("\n\n")[0])
    p.add_argument("rundoc", path=given.INPUT, nargs="?", help="a committed run document: results.json[.gz] or its folder (default: "
                   "every committed run-tier baseline, each against the committed run it was written from)")
    p.add_argument("--baseline", path=given.FILE, help="the baseline to check (default: results/baselines/<tier>/<sm>/<toolchain>)")
    p.add_argument("--baselines", path=given.FOLDER, default=os.path.join(ROOT, "results", "baselines"), help=argparse.SUPPRESS)
    p.add_argument("--json", path=given.NEW_FILE, help="also write the verdict per key as JSON")
    p.add_argument("--ptxcts-run", dest="exe", help=argparse.SUPPRESS)   # tests: another build's binary
    args = p.parse_args(argv)
    for name in ("rundoc", "baseline", "json"):
        if getattr(args, name) == "":
            raise UsageError(f"--{name} '': expected a path")
    if args.rundoc is None:
        if args.baseline or args.json:
            raise UsageError("--baseline and --json go with a RUNDOC; without one every committed baseline is checked")
        pairs = committed_pairs(args.baselines, os.path.dirname(args.baselines))
        codes = [check_one(rundoc, path, args.exe, None) for path, rundoc in pairs]
        print(f"staleness: {len(pairs)} committed run-tier baseline(s) checked against their source runs: "
              + ("STALE" if any(codes) else "fresh"))
        return max(codes, default=EXIT_OK)
    if not os.path.exists(args.rundoc):
        raise UsageError(f"{args.rundoc}: no such file or folder")
    problem = output_over_input({"--json": args.json}, [args.rundoc, args.baseline])   # the verdict over what it reads
    if problem:
        raise UsageError(problem)
    return check_one(args.rundoc, args.baseline, args.exe, args.json, args.baselines)


def committed_pairs(baselines_dir, results_dir):
    """[(baseline path, the committed run document it was written from)] for every run-tier baseline under
    baselines_dir/run/: the document under results_dir/*/ whose run_id is the baseline's source.runs[0]. A baseline
    whose source run is not committed is a usage error naming it: its staleness could not be checked."""
    docs = {}
    for path in sorted(glob.glob(os.path.join(results_dir, "*", "results.json.gz"))
                       + glob.glob(os.path.join(results_dir, "*", "results.json"))):
        # the run id is in the document's header, written before its cases (write_run): the first 4 KiB hold it
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            found = RUN_ID.search(f.read(4096))
        if found:
            docs.setdefault(found.group(1), path)
    pairs = []
    for path in sorted(glob.glob(os.path.join(baselines_dir, "run", "*", "*.json.gz"))
                       + glob.glob(os.path.join(baselines_dir, "run", "*", "*", "*.json.gz"))):
        header, _ = baseline.load(path)
        runs = (header["source"] or {}).get("runs") or []
        found = [docs[r] for r in runs if r in docs]
        if not found:
            raise UsageError(f"{path}: its source run ({', '.join(runs) or 'none named'}) is not committed under "
                             f"{results_dir}/: commit its results.json.gz beside the baseline, or its staleness "
                             "cannot be checked")
        pairs.append((path, found[0]))
    return pairs


def check_one(rundoc, baseline_path, exe, json_out, baselines_dir=os.path.join(ROOT, "results", "baselines")):
    """Check one run document against its baseline (baseline_path, or the one of its tier, toolchain and device);
    prints the verdict; -> exit code."""
    rj = run_rejudge(rundoc, exe)
    sm = (rj.get("device") or {}).get("sm")
    name = toolchain_name(rj.get("toolchain"))
    dev = rj.get("device") or {}
    chosen = None if baseline_path or not sm else baseline.choose(
        baselines_dir, "run", name, sm, baseline.device_of(dev, rj.get("toolchain")))
    path = baseline_path or (chosen[0] if chosen else None)
    if not path or not os.path.isfile(path):
        raise UsageError(f"no baseline for the {baseline.describe('run', name, sm)} on "
                         f"{dev.get('name') or 'no device'} ({path or 'none under ' + baselines_dir + ' claims it'})")
    header, base_cases = baseline.load(path)
    if header["tier"] != "run" or header["sm"] != sm:
        raise UsageError(f"{path} is the baseline of the {baseline.describe(header['tier'], header['toolchain'], header['sm'])}; "
                         f"{rundoc} is a run on {sm}")
    stale, differs, missing, agree = check(rj, base_cases, sm)
    s = rj["summary"]
    print(f"staleness: {rundoc} (run {rj.get('run_id')}) against {os.path.relpath(path)}")
    for row in stale:
        print(f"STALE {row['key']}: baseline {_baseline_text(row['baseline'])}, today {row['today']} "
              f"(recorded {row['recorded']}; {row['rule']}"
              + (f", matched_policy {row['matched_policy']}" if row.get("matched_policy") else "") + ")")
    for row in differs:
        print(f"run differs from the baseline (not the model): {row['key']}: baseline "
              f"{_baseline_text(row['baseline'])}, recorded {row['recorded']}, today {row['today']}")
    for row in missing:
        print(f"not in the baseline: {row['key']}: today {row['today']}")
    print(f"  cases in the run document        {s['cases']:7d}")
    print(f"  re-judged                        {s['rejudged']:7d}  (today's model changes {s['changed']})")
    print(f"    agree with the baseline        {len(agree):7d}")
    print(f"    STALE                          {len(stale):7d}")
    print(f"    run differs from the baseline  {len(differs):7d}")
    print(f"    not in the baseline            {len(missing):7d}")
    print(f"  not re-judgeable                 {s['cases'] - s['rejudged']:7d}")
    for reason, n in sorted(s["not_rejudgeable"].items()):
        print(f"    {reason}: {n}")
    if json_out:
        out = {"schema": "ptxcts-staleness", "version": 1, "run_document": rundoc, "baseline": path,
               "summary": dict(s, stale=len(stale), run_differs=len(differs), not_in_baseline=len(missing),
                               agree=len(agree)),
               "stale": [{k: r.get(k) for k in ("key", "recorded", "today", "rule", "matched_policy", "message")}
                         | {"baseline": _baseline_text(r["baseline"])} for r in stale],
               "run_differs": [{"key": r["key"], "baseline": _baseline_text(r["baseline"]), "recorded": r["recorded"],
                                "today": r["today"]} for r in differs]}
        from framework.documents import atomic_write   # never over a device or FIFO; a temporary twin, renamed
        atomic_write(json_out, json.dumps(out, indent=1, sort_keys=True) + "\n")
    return EXIT_REGRESSION if stale else EXIT_OK


def cli(argv=None):
    return boundary.reported("staleness", lambda: main(argv), ((ResultsError, "error: ", None),))


if __name__ == "__main__":
    sys.exit(boundary.run("results", cli))
