"""python3 -m results {report,gate,diff,bundle,validate,merge,known} ... (./ptxcts report / gate / diff / ... call them;
known: the run tier's GoogleTest front calls it)."""
import argparse
import os
import sys

from framework import given
from framework.documents import known, merge, schema
from . import bundle, diff, gate
from .report import report
from framework.documents.errors import EXIT_USAGE, ResultsError
from framework import boundary


def _validate(args):
    for path in merge.find_documents(args.runs):
        doc = schema.load(path)
        print(f"validate: {path}: {doc['tier']} tier, run {doc['run_id']}, shard {doc['shard']['index']}/"
              f"{doc['shard']['count']}, {len(doc['cases'])} cases: valid ({schema.SCHEMA} v{schema.VERSION})")
    return 0


def _merge(args):
    """Merge runs into one result document (union of cases) and write it with write_run."""
    from framework.documents.errors import UsageError
    from framework.documents.runio import rescue_dir
    from framework.documents.writer import write_run
    rescue_dir()   # an unusable $PTXCTS_RESCUE said before the work, as the tiers say it when they lock their folder
    wrong = schema.run_id_problem(args.run_id)
    if wrong:
        shown = args.run_id if len(args.run_id) <= 60 else args.run_id[:40] + "..."
        raise UsageError(f"--run-id {shown!r}: {wrong}")
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


# Per verb: the options naming what it reads, and those naming what it writes.
INPUTS = ("runs", "a", "b", "baseline", "waivers", "manifest", "baselines", "explore", "selftest", "folders")
OUTPUTS = ("out", "json", "markdown")
COUNTS = {"examples": 0, "list": 0, "max_bytes": 1}   # option: its least value


def _empty_value(args):
    """A usage problem with one value: an empty string (an unset shell variable) never means the default, and a
    count below its least value is refused."""
    for name, value in vars(args).items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and not v.strip():
                return f"--{name.replace('_', '-')} '': an empty value (leave the option out for the default)" \
                    if name not in ("runs", "a", "b", "folders") else f"{name.upper()} '': an empty path"
    for name, least in COUNTS.items():
        v = getattr(args, name, None)
        if v is not None and v < least:
            return f"--{name.replace('_', '-')} {v}: must be >= {least}"
    return None


def _unusable_output(path, folder):
    """Why `path` cannot be written (checked before the work, not after it): a file output (folder=False) that is
    a folder, a folder output (folder=True) that is a file, or a file where a folder above it must be (folder=None:
    either kind). None when it may be usable (what the disk then says -- read-only, full -- still reaches the user
    through the OSError handler)."""
    if os.path.isdir(path) and folder is False:
        return "is a folder; name a file"
    if os.path.exists(path) and not os.path.isdir(path) and folder:
        return "exists and is not a folder"
    up = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(up):
        up = os.path.dirname(up)
    if not os.path.isdir(up):
        return f"{up} is a file, not a folder"
    return None


def _output_over_input(args):
    """An output path that is one of the inputs would replace what the verb reads; a merged run inside a folder
    it reads runs from would be read with them (framework.documents.runio.output_over_input); an output that
    cannot be written, or an output folder holding a run, would mix two runs in one folder."""
    from framework.documents.runio import RUN_FILES, output_over_input
    inputs = [v for n in INPUTS for v in (lambda x: x if isinstance(x, list) else [x])(getattr(args, n, None))]
    outputs = {f"--{n}": getattr(args, n, None) for n in OUTPUTS if isinstance(getattr(args, n, None), str)}
    problem = output_over_input(outputs, inputs, run_output="--out" if args.verb == "merge" else None)
    if problem:
        return problem
    for how, out in outputs.items():
        unusable = _unusable_output(out, folder=None if args.verb == "bundle" else how == "--out")
        if unusable:
            return f"{how} {out}: {unusable}"
        if how == "--out" and args.verb in ("report", "merge") and os.path.isdir(out):
            held = [f for f in RUN_FILES if os.path.exists(os.path.join(out, f))]
            if held:
                return f"--out {out}: holds a run ({held[0]}); choose a new folder for the {args.verb}'s output"
    return None


def main(argv=None):
    p = boundary.ArgumentParser(prog="python3 -m results", description="ptx-cts results: report, gate, bundles. "
                                "Exit codes: 0 ok, 1 regression (gate) or differences (diff), 2 usage, "
                                "3 malformed or inconsistent input.")
    sub = p.add_subparsers(dest="verb", required=True)
    report.add_arguments(sub.add_parser("report", help="merge runs into the coverage report (HTML, Markdown, JSON)"))
    gate.add_arguments(sub.add_parser("gate", help="compare a run with its baseline and the waivers"))
    diff.add_arguments(sub.add_parser("diff", help="what changed between two runs (exit 1 when anything did)"))
    bundle.add_arguments(sub.add_parser("bundle", help="check and pack repro bundles"))
    v = sub.add_parser("validate", help="check result documents against the schema")
    v.add_argument("runs", path=given.INPUT, nargs="+", metavar="RUN")
    m = sub.add_parser("merge", help="merge shards/runs of one tier and device into one result folder")
    m.add_argument("runs", path=given.INPUT, nargs="+", metavar="RUN")
    m.add_argument("--out", path=given.NEW_FOLDER, required=True, metavar="DIR")
    m.add_argument("--run-id", required=True)
    m.add_argument("--prefer-later", action="store_true")
    known.add_arguments(sub.add_parser("known", help="which run-tier findings a reviewed finding or a waiver covers "
                                       "(--check: both files parse; --match: answer a request on stdin)"))
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        return EXIT_USAGE if e.code else 0
    problem = _empty_value(args) or _output_over_input(args)
    if problem:
        print(f"{args.verb}: error: {problem}", file=sys.stderr)
        return EXIT_USAGE
    verbs = {"report": report.main, "gate": gate.run_gate, "diff": diff.main, "bundle": bundle.main,
             "validate": _validate,
             "merge": _merge, "known": known.main}
    try:
        return boundary.reported(args.verb, lambda: verbs[args.verb](args), ((ResultsError, "error: ", None),))
    except OSError as e:
        print(f"{args.verb}: error: {_name_the_output(args, e)}", file=sys.stderr)
        return EXIT_USAGE


def _name_the_output(args, e):
    """An OSError as one line: '--json PATH: what happened' when it is that output, '--out DIR: PATH: what
    happened' when it is a file in or a folder above it (the option the user gave, then where and what)."""
    failed = os.path.abspath(os.fsdecode(e.filename)) if e.filename else None
    for n in OUTPUTS:
        out = getattr(args, n, None)
        if failed and isinstance(out, str):
            path = os.path.abspath(out)
            if path == failed:
                return f"--{n} {out}: {e.strerror or e}"
            if path.startswith(failed.rstrip(os.sep) + os.sep) or failed.startswith(path.rstrip(os.sep) + os.sep):
                return f"--{n} {out}: {boundary.describe_os_error(e)}"
    return boundary.describe_os_error(e)


if __name__ == "__main__":
    sys.exit(boundary.run("results", main))
