"""The front-ends' own whole kernels on silicon in the report (`./ptxcts report ... --whole RESULTS`): what
`./ptxcts frontend whole-run` wrote (OUT/results.jsonl, or a committed results-<front-end>.jsonl.gz) read for its
front-end, compiler, ptxas, target, PTX version and device, the kernels per template and class, and every kernel
that did not pass with its message. A whole kernel has no baseline: it passes, or it is a finding."""
import os
from collections import Counter, defaultdict

from framework.documents.errors import InputError, UsageError
from framework.documents.schema import WHOLE_CLASSES as CLASSES, WHOLE_NOT_PASSING as NOT_PASSING
from framework.manifest import json_lines

HEAD = ("frontend", "compiler", "ptxas", "target", "ptx")


def _path(given):
    if os.path.isdir(given):
        for name in ("results.jsonl", "results.jsonl.gz"):
            if os.path.isfile(os.path.join(given, name)):
                return os.path.join(given, name)
        raise UsageError(f"--whole {given}: no results.jsonl in this folder (./ptxcts frontend whole-run --out "
                         "writes one)")
    if not os.path.isfile(given):
        raise UsageError(f"--whole {given}: no such file or folder (a whole-run's results.jsonl or its folder)")
    return given


def load_one(given):
    """{file, frontend, compiler, ptxas, target, ptx, device, kernels, classes: {class: n}, templates: [{template,
    counts}], not_written: {reason kind: n}, not_passing: [{class, form, message}], seconds}."""
    path = _path(given)
    head, device, records = None, None, []
    for n, d in json_lines(path, lambda n, e: InputError(path, n, None, f"not a JSON line: {e.msg}")):
        if not isinstance(d, dict):
            raise InputError(path, n, None, "not a JSON object")
        if head is None:
            missing = [k for k in HEAD if k not in d]
            if missing:
                raise InputError(path, n, missing[0], "the first line is the run's head (front-end, compiler, ptxas, "
                                                      "target, ptx: ./ptxcts frontend whole-run writes it)")
            head = d
        elif set(d) == {"device"}:
            device = d["device"]
        elif "class" in d and "form" in d:
            if d["class"] not in CLASSES:
                raise InputError(path, n, "class", f"{str(d['class'])[:40]!r} is not a whole-kernel class "
                                                   f"({', '.join(CLASSES)})")
            records.append(d)
        else:
            raise InputError(path, n, None, "neither a kernel's record (form, class) nor the device line")
    if head is None:
        raise InputError(path, None, None, "empty: no head line")
    per = defaultdict(Counter)
    for r in records:
        per[r.get("template", "?")][r["class"]] += 1
    dev = device if isinstance(device, list) and len(device) == 3 else None
    return {"file": given, "frontend": head["frontend"], "compiler": head["compiler"], "ptxas": head["ptxas"],
            "target": head["target"], "ptx": head["ptx"],
            "device": f"{dev[0]} ({dev[1]}, driver {dev[2]})" if dev else "no GPU",
            "kernels": len(records), "classes": dict(Counter(r["class"] for r in records)),
            "templates": [{"template": t, "counts": dict(per[t])} for t in sorted(per)],
            "not_written": dict(head.get("not_written") or {}),
            "not_passing": [{"class": r["class"], "form": r["form"], "message": str(r.get("message", ""))[:300]}
                            for r in records if r["class"] in NOT_PASSING],
            "seconds": round(sum(r.get("seconds", 0.0) for r in records), 1)}


def load(paths):
    return [load_one(p) for p in paths]


def line(w):
    """One sentence of a whole-kernel run: the front-end, where it ran, and its classes."""
    counts = ", ".join(f"{c} {w['classes'][c]}" for c in CLASSES if w["classes"].get(c))
    return (f"{w['compiler']} ({w['frontend']}), ptxas {w['ptxas']}, {w['target']} PTX {w['ptx']}, on {w['device']}: "
            f"{w['kernels']} whole kernels: {counts or 'none'}; forms without one: "
            f"{', '.join(f'{k} {v}' for k, v in sorted(w['not_written'].items())) or 'none'}")
