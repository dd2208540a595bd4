"""Self-test scores in the report (`./ptxcts report ... --selftest FILE`): the document `./ptxcts selftest` wrote
(selftest.json, or the committed results/selftest/selftest-<device>.json.gz) read for its device, toolchain and
time, and per fault kind and family the planted faults, those caught, equivalent, holes and not judged."""
import os

from framework.documents.errors import InputError, UsageError

SCHEMA = "ptxcts-selftest"
READS = (1,)   # the versions read: selftest/run_catch.py writes 1
ROW = ("planted", "refused", "caught", "equivalent", "holes", "no_case")


def load_one(path):
    """{file, device, driver, toolchain, seconds, seed, interrupted, rows: [{kind, family, planted, refused, caught,
    equivalent, holes, no_case, caught_pct}], holes, survivors: [{kind, form, equivalent}]}."""
    if not os.path.isfile(path):
        raise UsageError(f"--selftest {path}: no such file (a self-test's selftest.json, e.g. "
                         "results/selftest/selftest-h100.json.gz)")
    from framework.documents.jsonloc import read
    doc = read(path)   # InputError: not gzip, not UTF-8, not JSON, nested too deeply, NaN
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(path, None, "schema", f"must be {SCHEMA!r}")
    if type(doc.get("version")) is not int or doc["version"] not in READS:   # a later one may mean other fields
        raise InputError(path, None, "version", f"{str(doc.get('version'))[:40]}: self-test score version not known "
                         f"to this tool (it reads {', '.join(map(str, READS))}); use the ptx-cts release that wrote it")
    if not isinstance(doc.get("kinds"), dict):
        raise InputError(path, None, "kinds", "missing or not an object")
    rows, survivors = [], []
    for kind, k in doc["kinds"].items():
        if not isinstance(k, dict) or not isinstance(k.get("families"), dict):
            raise InputError(path, None, f"kinds.{kind}.families", "missing or not an object")
        for fam, r in sorted(k["families"].items()):
            if not isinstance(r, dict) or not all(isinstance(r.get(n), int) for n in ROW):
                raise InputError(path, None, f"kinds.{kind}.families.{fam}", f"needs integers {', '.join(ROW)}")
            judged = r["caught"] + r["holes"]
            rows.append(dict({n: r[n] for n in ROW}, kind=kind, family=fam,
                             caught_pct=round(100.0 * r["caught"] / judged, 1) if judged else None))
        for s in k.get("survivors") or []:
            survivors.append({"kind": kind, "form": s.get("form"), "equivalent": s.get("equivalent")})
    return {"file": path, "device": doc.get("device") or "?", "driver": doc.get("driver") or "?",
            "toolchain": doc.get("toolchain") or "?", "seconds": doc.get("seconds"), "seed": doc.get("seed"),
            "interrupted": bool(doc.get("interrupted")), "rows": rows, "holes": sum(r["holes"] for r in rows),
            "survivors": survivors}


def load(paths):
    return [load_one(p) for p in paths]


def totals(s):
    """caught, equivalent and holes over every row."""
    return {"caught": sum(r["caught"] for r in s["rows"]), "equivalent": sum(r["equivalent"] for r in s["rows"]),
            "holes": s["holes"]}
