"""Lowering keys between runs: the baseline of each toolchain, the gate, and the diff of two runs.

Baseline (results/baselines/lower/<toolchain>.json.gz, schema `ptxcts-lowering-baseline` version 1), one entry
per line, sorted, so that a reviewed change of lowering is a diff:
{
 "schema": "ptxcts-lowering-baseline", "version": 1, "toolchain": "13.0",
 "source": {"run": "<run_id>", "ptxas": "13.0.88", "nvdisasm": "13.5.37"},
 "keys": {
  "<form>@<target>": "<class>\t<lowering key>",
  ...
 }
}
The gate fails (exit 1) on any key or class that differs from the baseline, on a form lowered now that the
baseline does not have, and on a baselined form missing from a run that covered its family and target: each is
an unreviewed change of lowering. With `partial` (a sample: `./ptxcts lower --limit N`, gated with `--partial`) a
baselined form the run did not lower is counted as not run instead. `--update-baseline` writes the run's keys once
they are reviewed (a whole run's: never with `partial`).
"""
import gzip
import json
import os
import sys
from collections import defaultdict

from framework import documents
from framework.boundary import VerbError
from framework.documents import jsonloc, schema
from framework.documents.errors import InputError

SCHEMA, VERSION = "ptxcts-lowering-baseline", 1


class BaselineError(VerbError):
    """A malformed baseline or run document (exit 3)."""


def load_run(path):
    """A lower run's results document (a folder or its results.json[.gz])."""
    if os.path.isdir(path):
        cands = [os.path.join(path, n) for n in ("results.json", "results.json.gz")]
        path = next((c for c in cands if os.path.exists(c)), cands[0])
    if not os.path.exists(path):
        raise documents.errors.UsageError(f"{path}: no such results document (give a lower run's folder)")
    try:
        doc = documents.load(path)
    except documents.errors.InputError as e:
        raise BaselineError(str(e))
    if doc.get("tier") != "lower":
        raise documents.errors.UsageError(f"{path}: a {doc.get('tier')} run, not a lower run")
    return doc


def keys_of(doc):
    """{"form@target": "class\\tkey"} of the forms a run located or failed (not the not_supported ones)."""
    out = {}
    for c in doc["cases"]:
        if c["class"] in ("not_supported", "skipped"):
            continue
        out[f"{c['form']}@{c['target']}"] = f"{c['class']}\t{(c.get('details') or {}).get('key', '')}"
    return out


def dumps(toolchain, source, entries):
    head = json.dumps({"schema": SCHEMA, "version": VERSION, "toolchain": toolchain, "source": source}, indent=1)[:-2]
    body = ",".join(f"\n  {json.dumps(k)}: {json.dumps(v)}" for k, v in sorted(entries.items()))
    return head + ',\n "keys": {' + body + "\n }\n}\n"


def load_baseline(path):
    try:
        doc = jsonloc.read(path)   # the one JSON reader: file and line, no NaN, no duplicate key, no 5000 digits
    except OSError as e:
        raise BaselineError(f"{path}: cannot read the lowering baseline: {e.strerror or e}") from None
    except InputError as e:
        raise BaselineError(f"{e} (not a lowering baseline)") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or doc.get("version") != VERSION:
        raise BaselineError(f"{path}: field 'schema'/'version': not {SCHEMA} version {VERSION}")
    if not isinstance(doc.get("keys"), dict) or not isinstance(doc.get("toolchain"), str):
        raise BaselineError(f"{path}: field 'keys' (an object) or 'toolchain' (a string) missing")
    for k, v in doc["keys"].items():
        if not isinstance(v, str) or "\t" not in v or "@" not in k:
            raise BaselineError(f"{path}: keys.{k}: an entry is \"form@target\": \"class<TAB>key\"")
    return doc


def baseline_path(root, toolchain):
    return os.path.join(root, "results", "baselines", "lower", f"{toolchain}.json.gz")


def gate(run, baseline, update, root, out=sys.stdout, partial=False):
    if partial and update:
        raise documents.errors.UsageError(f"{run}: --partial with an update: a lowering baseline is written from a "
                                          f"whole run, not a sample")
    doc = load_run(run)
    name = schema.toolchain_name(doc["toolchain"])
    path = baseline or baseline_path(root, name)
    now = keys_of(doc)
    if update:
        src = {"run": doc["run_id"], "ptxas": doc["toolchain"].get("ptxas"),
               "nvdisasm": doc["toolchain"].get("nvdisasm")}
        text = dumps(name, src, now)
        documents.atomic_write(path, gzip.compress(text.encode(), mtime=0) if path.endswith(".gz") else text)
        out.write(f"lower gate: wrote {len(now)} lowering keys of toolchain {name} to {path}\n")
        return 0
    if not os.path.exists(path):
        raise documents.errors.UsageError(f"{path}: no lowering baseline for toolchain {name}; review the run and "
                                        f"write one with ./ptxcts lower --gate {run} --update-baseline")
    base = load_baseline(path)
    if base["toolchain"] != name:
        raise documents.errors.UsageError(f"{path} is the baseline of toolchain {base['toolchain']}, the run is of {name}")
    covered = {(c["family"], c["target"]) for c in doc["cases"]}
    fam_of = {c["form"]: c["family"] for c in doc["cases"]}
    changed, new, gone = [], [], []
    for k, v in now.items():
        if k not in base["keys"]:
            new.append((k, v))
        elif base["keys"][k] != v:
            changed.append((k, base["keys"][k], v))
    not_run = 0
    for k, v in base["keys"].items():
        form, target = k.rsplit("@", 1)
        if k in now:
            continue
        if partial:
            not_run += 1
        elif (fam_of.get(form, form.split("/")[0]), target) in covered:
            gone.append((k, v))
    sample = f", {not_run} not run (--partial)" if partial else ""
    out.write(f"lower gate: toolchain {name}, {len(now)} lowered forms against {path} ({len(base['keys'])} keys): "
              f"{len(changed)} changed, {len(new)} new, {len(gone)} missing{sample}\n")
    for k, old, v in changed[:50]:
        out.write(f"  CHANGED {k}\n    was: {old}\n    now: {v}\n")
    for k, v in new[:20]:
        out.write(f"  NEW     {k}: {v}\n")
    for k, v in gone[:20]:
        out.write(f"  MISSING {k}: was {v}\n")
    if changed or new or gone:
        out.write(f"lower gate: FAIL: unreviewed change of lowering; review it, then ./ptxcts lower --gate {run} "
                  f"--update-baseline\n")
        return 1
    out.write("lower gate: PASS\n")
    return 0


def compare(doc_a, doc_b):
    """Which forms changed their lowering key between two lower runs, per target: {target: {"changed": [(form, a,
    b)], "frame_only": n, "same": n, "only_a": n, "only_b": n}}."""
    def index(doc):
        return {(c["form"], c["target"]): c for c in doc["cases"] if c["class"] not in ("not_supported", "skipped")}
    a, b = index(doc_a), index(doc_b)
    per = defaultdict(lambda: {"changed": [], "frame_only": 0, "same": 0, "only_a": 0, "only_b": 0})
    for k in sorted(set(a) | set(b), key=lambda k: (schema.target_sort_key(k[1]), k[0])):
        row = per[k[1]]
        if k not in b:
            row["only_a"] += 1
        elif k not in a:
            row["only_b"] += 1
        else:
            da, db = a[k].get("details") or {}, b[k].get("details") or {}
            ka, kb = (a[k]["class"], da.get("key", "")), (b[k]["class"], db.get("key", ""))
            if ka != kb:
                row["changed"].append({"form": k[0], "a": "\t".join(ka), "b": "\t".join(kb)})
            elif da.get("frame") != db.get("frame"):
                row["frame_only"] += 1
            else:
                row["same"] += 1
    return dict(per)


def print_compare(doc_a, doc_b, cmp, out=sys.stdout, examples=5):
    na, nb = schema.toolchain_name(doc_a["toolchain"]), schema.toolchain_name(doc_b["toolchain"])
    out.write(f"lowering keys, {doc_a['run_id']} (toolchain {na}) -> {doc_b['run_id']} (toolchain {nb})\n")
    head = f"{'target':<10}{'same':>7}{'key changed':>13}{'frame only':>12}{'only A':>8}{'only B':>8}"
    out.write(head + "\n" + "-" * len(head) + "\n")
    for t, r in cmp.items():
        out.write(f"{t:<10}{r['same']:>7}{len(r['changed']):>13}{r['frame_only']:>12}{r['only_a']:>8}{r['only_b']:>8}\n")
    for t, r in cmp.items():
        for c in r["changed"][:examples]:
            out.write(f"  {t} {c['form']}\n    A: {c['a']}\n    B: {c['b']}\n")
    return any(r["changed"] or r["only_a"] or r["only_b"] for r in cmp.values())
