"""rule_messages.tsv for one compile run (results.json and junit.xml are written by harness/results' write_run,
the one writer and JUnit mapping of every tier)."""
import re
from collections import Counter, defaultdict


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
    with open(path, "w") as f:
        f.write("rules\tcases\tptxas messages\texample\n")
        for key in sorted(table):
            for msg, n in table[key].most_common():
                f.write(f"{key}\t{n}\t{msg}\t{example[(key, msg)]}\n")
