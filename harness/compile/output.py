"""results.json (schema ptxcts-results v1, docs/ARCHITECTURE.md section 3) and junit.xml for one compile run."""
import json
import os
import socket
import xml.etree.ElementTree as ET
from collections import Counter


def run_id(started_utc) -> str:
    return started_utc.strftime("%Y-%m-%dT%H-%M-%SZ") + "-compile"


def write_results(path, *, run_id, started, finished, ptxas_version, shard, cases, extra_files=None):
    doc = {
        "schema": "ptxcts-results", "version": 1, "run_id": run_id, "tier": "compile",
        "started": started, "finished": finished, "seed": None,
        "shard": shard,
        "host": {"hostname": socket.gethostname(), "cpus": os.cpu_count()},
        "toolchain": {"ptxas": ptxas_version, "cuda_runtime": None, "driver": None},
        "device": None,
        "cases": cases,
    }
    # one case per line: small enough for 40k cases, and greppable by case ID
    head = json.dumps(dict(doc, cases=[]), indent=1)
    assert head.endswith('"cases": []\n}')
    body = ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(head[:-len("[]\n}")] + "[\n" + body + "\n]\n}\n")
    os.replace(tmp, path)


def write_junit(path, cases, *, run_id, seconds):
    """One <testsuite> per family, one <testcase> per case. fail and compile_error are failures, crash and
    timeout errors, not_supported and skipped are skipped; spec_divergence passes and says why in system-out."""
    by_family = {}
    for c in cases:
        by_family.setdefault(c["family"], []).append(c)
    root = ET.Element("testsuites", name=f"ptxcts compile {run_id}", tests=str(len(cases)),
                      time=f"{seconds:.3f}")
    tot = Counter()
    for fam in sorted(by_family):
        group = by_family[fam]
        k = Counter(c["class"] for c in group)
        failures = k["fail"] + k["compile_error"]
        errors = k["crash"] + k["timeout"]
        skipped = k["not_supported"] + k["skipped"]
        tot.update(failures=failures, errors=errors, skipped=skipped)
        suite = ET.SubElement(root, "testsuite", name=f"compile.{fam}", tests=str(len(group)),
                              failures=str(failures), errors=str(errors), skipped=str(skipped),
                              time=f"{sum(c['duration_ms'] for c in group) / 1000:.3f}")
        for c in group:
            tc = ET.SubElement(suite, "testcase", classname=f"compile.{fam}", name=c["id"],
                               time=f"{c['duration_ms'] / 1000:.4f}")
            cls, msg = c["class"], c["message"]
            if cls in ("fail", "compile_error"):
                ET.SubElement(tc, "failure", type=cls, message=msg[:2000]).text = _details(c)
            elif cls in ("crash", "timeout"):
                ET.SubElement(tc, "error", type=cls, message=msg[:2000]).text = _details(c)
            elif cls in ("not_supported", "skipped"):
                ET.SubElement(tc, "skipped", message=f"{cls}: {msg}"[:2000])
            elif cls == "spec_divergence":
                ET.SubElement(tc, "system-out").text = f"spec_divergence: {msg}"
    root.set("failures", str(tot["failures"]))
    root.set("errors", str(tot["errors"]))
    root.set("skipped", str(tot["skipped"]))
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)


def _details(c):
    d = c.get("details", {})
    lines = [f"replay: {c['replay']}"]
    for diag in d.get("diagnostics", []):
        lines.append(f"{diag['severity']} ({diag['where']}, entry line {diag['entry_line']}): {diag['message']}"
                     + (f"  `{diag['text']}`" if diag.get("text") else ""))
    return "\n".join(lines)


def write_rule_messages(path, cases):
    """For review: per set of rules an invalid case breaks, the distinct messages ptxas rejected it with (numbers
    and target names folded), with a count and one example case. A rule rejected for an unrelated reason stands
    out here."""
    import re
    from collections import Counter, defaultdict
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
