"""Explorations in the report (`./ptxcts report ... --explore DIR`): the folder an exploration wrote
(`./ptxcts explore`, results/explore/<id>/) read for its headline numbers, the share of each parameter's value
bins it reached, and its coverage picture (coverage.svg, shown inline on the index page)."""
import os
import re

from framework.documents.errors import InputError, UsageError

SCHEMA = "ptxcts-explore"
REQUIRED = {"id": str, "cases_run": int, "explored_s": (int, float), "cases_per_s": (int, float), "seed": int,
            "classes": dict, "findings": list, "coverage": dict, "device": dict, "toolchain": str}


def _read(folder):
    for name in ("explore.json", "explore.json.gz"):
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            from framework.documents.jsonloc import read
            return path, read(path)   # InputError: not gzip, not UTF-8, not JSON, nested too deeply, NaN
    raise UsageError(f"--explore {folder}: no explore.json or explore.json.gz there (an exploration's folder)")


def load_one(folder):
    """One exploration: {id, folder, device, toolchain, seed, cases_run, explored_s, cases_per_s, segments,
    findings, classes, coverage: [{parameter, reached, of, reachable, unreachable}], svg (or None)}."""
    if not os.path.isdir(folder):
        raise UsageError(f"--explore {folder}: no such folder (an exploration's folder, e.g. results/explore/<id>)")
    path, doc = _read(folder)
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise InputError(path, None, "schema", f"must be {SCHEMA!r}")
    for key, kind in REQUIRED.items():
        if not isinstance(doc.get(key), kind) or isinstance(doc.get(key), bool):
            raise InputError(path, None, key, "missing or of the wrong type")
        if kind in (int, (int, float)) and doc[key] < 0:
            raise InputError(path, None, key, f"{doc[key]!r}: a count or a time is never negative")
    for cls, n in doc["classes"].items():
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise InputError(path, None, f"classes.{cls}", f"{n!r}: a count is an integer >= 0")
    coverage = []
    for param, c in sorted(doc["coverage"].items()):
        if not isinstance(c, dict) or not isinstance(c.get("reached"), int) or not isinstance(c.get("of"), int) \
                or not 0 <= c["reached"] <= c["of"]:
            raise InputError(path, None, f"coverage.{param}", "needs integers 0 <= 'reached' <= 'of'")
        # "reachable": the bins some case can reach (ptxcts-explore lists the others with the reason why not).
        reachable = c.get("reachable", c["of"])
        if not isinstance(reachable, int) or isinstance(reachable, bool) or not c["reached"] <= reachable <= c["of"]:
            raise InputError(path, None, f"coverage.{param}.reachable", "needs an integer 'reached' <= 'reachable' <= 'of'")
        coverage.append({"parameter": param, "reached": c["reached"], "of": c["of"], "reachable": reachable,
                         "unreachable": c["of"] - reachable})
    dev = doc["device"]
    svg = None
    svg_path = os.path.join(folder, "coverage.svg")
    if os.path.isfile(svg_path):
        with open(svg_path, encoding="utf-8") as f:
            svg = re.sub(r"^\s*<\?xml[^>]*\?>\s*", "", f.read())
    return {"id": doc["id"], "folder": folder, "toolchain": doc["toolchain"], "seed": doc["seed"],
            "device": f"{dev.get('name', '?')} ({dev.get('sm', '?')}, driver {dev.get('driver', '?')})",
            "cases_run": doc["cases_run"], "explored_s": doc["explored_s"], "cases_per_s": doc["cases_per_s"],
            "segments": len(doc.get("segments") or []) or 1, "findings": len(doc["findings"]),
            "classes": dict(sorted(doc["classes"].items())), "coverage": coverage, "svg": svg}


def load(folders):
    return [load_one(f) for f in folders]


def without_pictures(explorations):
    """report.json's view: the numbers, not the inline SVG."""
    return [{k: v for k, v in e.items() if k != "svg"} for e in explorations]
