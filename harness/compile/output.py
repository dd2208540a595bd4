"""What one compile run writes beside results.json and prints at its end: rule_messages.tsv, expectations.json
and the summary on stderr (results.json and junit.xml are written by the framework's write_run (harness/framework/documents/writer.py), the one writer
and JUnit mapping of every tier)."""
import json
import re
import sys
from collections import Counter, defaultdict

from framework import documents
from compile import classify as cls
from framework import progress


def write_rule_messages(path, cases):
    """For review: per set of rules an invalid case breaks, the distinct messages ptxas rejected it with (numbers
    and target names folded), with a count and one example case. A rule rejected for an unrelated reason stands
    out here."""
    table, example = defaultdict(Counter), {}
    for c in cases:
        d = c.get("details", {})
        if d.get("expect") != "reject" or d.get("ptxas") != "rejected":
            continue
        msgs = sorted({re.sub(r"sm_\d+[af]?", "sm_X", re.sub(r"\b\d+\.\d+\b", "V", g["message"]))
                       for g in d.get("diagnostics", []) if g["severity"] in ("error", "fatal")
                       and g["where"] in ("instruction", "header", "call")})
        key, msg = ",".join(d.get("rules", [])), " | ".join(msgs)
        table[key][msg] += 1
        example.setdefault((key, msg), c["id"])
    lines = ["rules\tcases\tptxas messages\texample\n"]
    for key in sorted(table):
        for msg, n in table[key].most_common():
            lines.append(f"{key}\t{n}\t{msg}\t{example[(key, msg)]}\n")
    documents.atomic_write(path, "".join(lines))


def write_expectations(path, exp_path, toolchain_name, all_findings, used, stale):
    """expectations.json: every finding of the findings file, whether it covers this toolchain, how many cases it
    was applied to, and why it is stale (None when it is not)."""
    documents.atomic_write(path, json.dumps({"file": exp_path, "toolchain": toolchain_name, "findings": [
        {"id": x.id, "line": x.line, "verdict": x.verdict, "toolchains": x.toolchains, "applied": len(x.applied),
         "covers_this_toolchain": x in used,
         "stale": next((s["why"] for s in stale if s["id"] == x.id), None)} for x in all_findings]}, indent=1) + "\n")


def print_summary(records, wall, total, calls, nmodules, tc, used, stale, exp_path):
    """The classes counted, the speed, the harness errors, the findings applied and the stale ones."""
    progress.summary(records)
    harness_errors = sum(1 for r in records if r["details"].get("harness_error"))
    sys.stderr.write(f"compile: {len(records)} results in {wall:.1f}s ({total / wall if wall else 0:.0f} cases/s), "
                     f"{calls} compiler calls, {nmodules} modules; toolchain {tc.name} (ptxas {tc.ptxas_version})\n")
    if harness_errors:
        sys.stderr.write(f"compile: {harness_errors} of the fail cases are harness errors (details.harness_error)\n")
    for f in used:
        if f.applied:
            sys.stderr.write(f"compile: finding {f.id} applied to {len(f.applied)} case(s)\n")
    for s in stale:
        sys.stderr.write(f"compile: STALE finding {s['id']} ({exp_path}:{s['line']}): {s['why']}\n")


def print_bad(records, out_dir, most=40):
    """The records that fail the tier (fail, compile_error, crash, timeout), the first `most` of them printed."""
    bad = [r for r in records if r["class"] in (cls.FAIL, cls.COMPILE_ERROR, cls.CRASH, cls.TIMEOUT)]
    for r in bad[:most]:
        sys.stderr.write(f"  {r['class']} [{r['load_path']}]: {r['id']}: {r['message']}\n")
    if len(bad) > most:
        sys.stderr.write(f"  ... and {len(bad) - most} more in {out_dir}/results.json\n")
    return bad
