"""python3 -m results {report,gate,diff,bundle,validate,merge,known} ... (./ptxcts report / gate / diff / ... call them;
known: the run tier's GoogleTest front calls it)."""
import argparse
import sys

from . import bundle, diff, gate, known, merge, report, schema
from .errors import EXIT_USAGE, ResultsError


def _validate(args):
    for path in merge.find_documents(args.runs):
        doc = schema.load(path)
        print(f"validate: {path}: {doc['tier']} tier, run {doc['run_id']}, shard {doc['shard']['index']}/"
              f"{doc['shard']['count']}, {len(doc['cases'])} cases: valid ({schema.SCHEMA} v{schema.VERSION})")
    return 0


def _merge(args):
    """Merge runs into one result document (union of cases) and write it with write_run."""
    import re
    from .errors import UsageError
    from .writer import write_run
    if not re.fullmatch(r"[A-Za-z0-9._:+-]+", args.run_id):   # the schema's rule for run_id
        raise UsageError(f"--run-id {args.run_id!r}: use letters, digits and . _ : + - only")
    merged = merge.load_and_merge(args.runs, args.prefer_later)
    if merged.missing_shards:
        for line in merged.missing_shard_lines():
            print(f"merge: WARNING: {line}", file=sys.stderr)
    runs = {(r.tier, (r.device or {}).get("sm")) for r in merged.runs}
    if len(runs) != 1:
        raise ResultsError(f"merge writes one document of one tier and device; these runs are {sorted(map(str, runs))}")
    first = merged.runs[0].first
    doc = dict(first, run_id=args.run_id, shard={"index": 0, "count": 1},
               started=min(r.started for r in merged.runs), finished=max(r.finished for r in merged.runs),
               cases=[case for case, _ in merged.results.values()])
    doc.pop("partial", None)
    doc.pop("timing", None)
    timing = [t for r in merged.runs for i in sorted(r.shards) for t in r.shards[i][1].get("timing", [])]
    if timing:
        doc["timing"] = timing
    if merged.partial_runs:  # a partial shard makes the merged document partial: never a short run as whole
        left = sum(p["total"] - p["done"] for _, _, _, p in merged.partial_runs)
        doc["partial"] = {"reason": "; ".join(merged.partial_lines()), "done": len(doc["cases"]),
                          "total": len(doc["cases"]) + left}
    write_run(args.out, doc)
    print(f"merge: wrote {args.out}/results.json and junit.xml ({len(doc['cases'])} cases)")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m results", description="ptx-cts results: report, gate, bundles. "
                                "Exit codes: 0 ok, 1 regression (gate) or differences (diff), 2 usage, "
                                "3 malformed or inconsistent input.")
    sub = p.add_subparsers(dest="verb", required=True)
    report.add_arguments(sub.add_parser("report", help="merge runs into the coverage report (HTML, Markdown, JSON)"))
    gate.add_arguments(sub.add_parser("gate", help="compare a run with its baseline and the waivers"))
    diff.add_arguments(sub.add_parser("diff", help="what changed between two runs (exit 1 when anything did)"))
    bundle.add_arguments(sub.add_parser("bundle", help="check and pack repro bundles"))
    v = sub.add_parser("validate", help="check result documents against the schema")
    v.add_argument("runs", nargs="+", metavar="RUN")
    m = sub.add_parser("merge", help="merge shards/runs of one tier and device into one result folder")
    m.add_argument("runs", nargs="+", metavar="RUN")
    m.add_argument("--out", required=True, metavar="DIR")
    m.add_argument("--run-id", required=True)
    m.add_argument("--prefer-later", action="store_true")
    known.add_arguments(sub.add_parser("known", help="which run-tier findings a reviewed finding or a waiver covers "
                                       "(--check: both files parse; --match: answer a request on stdin)"))
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else 0
    verbs = {"report": report.main, "gate": gate.run_gate, "diff": diff.main, "bundle": bundle.main,
             "validate": _validate,
             "merge": _merge, "known": known.main}
    try:
        return verbs[args.verb](args)
    except ResultsError as e:
        print(f"{args.verb}: error: {e}", file=sys.stderr)
        return e.exit_code
    except OSError as e:
        print(f"{args.verb}: error: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
