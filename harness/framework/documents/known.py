"""Known findings of the run tier: which non-passing results are covered by a reviewed finding
(results/expectations/run.toml) or an unexpired waiver (results/waivers.toml).

A finding's scope is a waiver's (waivers.Scope: the same globs and ranges the gate uses). One implementation,
used by the coverage report (coverage.py) and, as a process, by the run tier's GoogleTest front
(harness/run/tests/run_tests.cpp), with harness/ on PYTHONPATH:

    python3 -m results known [--root ROOT] [--expectations FILE] [--waivers FILE] [--today YYYY-MM-DD] --check
    python3 -m results known ... --match < request.json > answer.json

request: {"device": {"name", "sm", "cc"} | null, "toolchain": {...results.json's toolchain...},
          "cases": [{"id", "target", "ptx", "load_path", "class"}, ...]}
answer:  {"cases": [{"verdict": "known" | "expired" | "class_differs" | "new", "by": "finding" | "waiver" | null,
                     "name": finding id or waiver file:line, "text": what to print}, ...]}  (same order)
Verdicts: known = covered (the test does not fail); expired = it would be covered by an expired finding or
waiver; class_differs = a finding covers the case for another class; new = nothing covers it.
Files: --expectations / --waivers, else PTXCTS_RUN_EXPECTATIONS / PTXCTS_WAIVERS, else ROOT/results/...
Exit: 0, 2 usage, 3 a malformed findings or waiver file (FILE:LINE: FIELD: what is wrong).
"""
import datetime
import json
import os
import re
import sys

from . import tomldoc, waivers
from .errors import InputError, ResultsError, UsageError
from framework import given
from framework import paths

VERSION = 1
REQUIRED = ("id", "cases", "class", "note", "reviewed")
OPTIONAL = ("load_path", "target", "device", "driver", "toolkit", "seen", "expires")
FINDING_CLASSES = ("fail", "compile_error", "crash", "timeout")


class Finding(waivers.Scope):
    def __init__(self, fields, line):
        self.__dict__.update(fields)
        self.cls = fields["class"]
        self.line = line

    def covers_case(self, key, run):
        return self.in_scope(self.cases, key, run)


def load_findings(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    doc = tomldoc.loads(text, path)
    lines = text.split("\n")
    heads = [i for i, l in enumerate(lines) if re.match(r"\s*\[\[\s*finding\s*\]\]\s*(#.*)?$", l)]

    def line_of(index, field=None):
        if index is None or index >= len(heads):
            return None
        end = heads[index + 1] if index + 1 < len(heads) else len(lines)
        if field:
            for i in range(heads[index] + 1, end):
                if re.match(rf'\s*{re.escape(field)}\s*=', lines[i]):
                    return i + 1
        return heads[index] + 1

    def fail(index, field, what):
        name = field if index is None else f"finding[{index}]" + (f".{field}" if field else "")
        raise InputError(path, line_of(index, field) if index is not None else 1, name, what)

    entries = waivers.table_entries(doc, "finding", VERSION, fail,
                                    lambda v: f"findings file version {v!r} is not known (write 'version = {VERSION}')",
                                    "the file has 'version' and [[finding]] tables")
    out, ids = [], set()
    for i, f in enumerate(entries):
        waivers.check_table_fields(f, i, REQUIRED, OPTIONAL, fail)
        if not isinstance(f["id"], str) or not re.fullmatch(r"[A-Za-z0-9._-]+", f["id"]):
            fail(i, "id", "must be a name of letters, digits and . _ -")
        if f["id"] in ids:
            fail(i, "id", f"{f['id']!r} is used twice")
        ids.add(f["id"])
        cases = f["cases"]
        if not isinstance(cases, list) or not cases or any(not isinstance(c, str) or not c for c in cases):
            fail(i, "cases", "must be a non-empty list of case IDs or globs")
        if f["class"] not in FINDING_CLASSES:
            fail(i, "class", f"{f['class']!r} is not a class a finding can cover ({', '.join(FINDING_CLASSES)})")
        waivers.check_nonempty_strings(f, i, ("note", "reviewed", "load_path", "target"), fail)
        if "seen" in f and not isinstance(f["seen"], dict):
            fail(i, "seen", "must be a table {device, driver, toolchain, run}")
        if "expires" in f and type(f["expires"]) is not datetime.date:
            fail(i, "expires", "must be a TOML date without quotes or time, e.g. expires = 2027-03-31")
        fields = {k: f.get(k) for k in REQUIRED + OPTIONAL}
        for field in ("device", "driver", "toolkit"):
            if field in f:
                if not isinstance(f[field], str):
                    fail(i, field, "must be a string like '>=580, <581'")
                try:
                    fields[field] = waivers.parse_range(f[field], device=(field == "device"))
                except ValueError as e:
                    fail(i, field, str(e))
        out.append(Finding(fields, line_of(i)))
    return out


class Run:
    def __init__(self, device, toolchain):
        self.device, self.toolchain = device, toolchain or {}


def judge(cases, run, findings, waiver_list, today, files):
    answers = []
    for c in cases:
        key = (c["id"], c["target"], c["ptx"], c["load_path"], run.device["sm"] if run.device else None)
        cls = c["class"]
        answer = {"verdict": "new", "by": None, "name": None, "text": ""}
        for f in findings:
            if not f.covers_case(key, run):
                continue
            if f.cls != cls:
                answer = {"verdict": "class_differs", "by": "finding", "name": f.id,
                          "text": f"finding {f.id} ({files[0]}:{f.line}) covers this case as class {f.cls}, "
                                  f"but it is now {cls}: not covered"}
                continue
            if f.expires is not None and f.expires < today:
                answer = {"verdict": "expired", "by": "finding", "name": f.id,
                          "text": f"finding {f.id} ({files[0]}:{f.line}) expired on {f.expires}: review it again"}
                continue
            answer = {"verdict": "known", "by": "finding", "name": f.id,
                      "text": f"known finding {f.id} ({files[0]}:{f.line}, reviewed {f.reviewed})"}
            break
        if answer["verdict"] != "known":
            for w in waiver_list:
                if not w.matches(key, cls, run):
                    continue
                name = f"{files[1]}:{w.line}"
                if w.expired(today):
                    if answer["verdict"] == "new":
                        answer = {"verdict": "expired", "by": "waiver", "name": name,
                                  "text": f"waiver {w.describe(files[1])} expired: review it again"}
                    continue
                answer = {"verdict": "known", "by": "waiver", "name": name,
                          "text": f"waived by {w.describe(files[1])}: {w.reason}"}
                break
        answers.append(answer)
    return answers


def add_arguments(ap):
    ap.add_argument("--root", path=given.FOLDER, help="the source tree (default: framework.paths.root())")
    ap.add_argument("--expectations", path=given.FILE, help="default ROOT/results/expectations/run.toml")
    ap.add_argument("--waivers", path=given.FILE, help="default ROOT/results/waivers.toml")
    ap.add_argument("--today", help="YYYY-MM-DD (default: today, UTC)")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="only check that both files are well-formed")
    mode.add_argument("--match", action="store_true", help="answer a request on stdin")


def main(a):
    """python3 -m results known: exit 0, 2 usage, 3 a malformed findings or waiver file or request."""
    a.root = a.root or paths.root()
    # PTXCTS_RUN_EXPECTATIONS / PTXCTS_WAIVERS: other files (tests; a reviewer trying a change before committing).
    def chosen(option, value, var, default):   # the file and how it was named, for a message
        if value:
            return value, f"{option} "
        if os.environ.get(var) is not None:   # blank, a folder, a FIFO, a link to nowhere: framework.given
            return given.env(var, given.FILE, default=default), f"{var}="
        return default, ""
    exp, exp_how = chosen("--expectations", a.expectations, "PTXCTS_RUN_EXPECTATIONS",
                          os.path.join(a.root, "results", "expectations", "run.toml"))
    wai, wai_how = chosen("--waivers", a.waivers, "PTXCTS_WAIVERS", os.path.join(a.root, "results", "waivers.toml"))
    try:
        today = datetime.date.fromisoformat(a.today) if a.today else datetime.datetime.now(datetime.timezone.utc).date()
    except ValueError:
        raise UsageError(f"--today {a.today!r}: expected YYYY-MM-DD") from None
    for p, how in ((exp, exp_how), (wai, wai_how)):
        if os.path.isdir(p):
            raise UsageError(f"{how}{p}: is a folder, not a file")
        if not os.path.isfile(p):
            raise UsageError(f"{how}{p}: no such file")
    findings = load_findings(exp)
    waiver_list = waivers.load(wai)
    if a.check:
        print(json.dumps({"findings": len(findings), "waivers": len(waiver_list)}))
        return 0
    try:
        req = json.load(sys.stdin)
        cases = req["cases"]
        run = Run(req.get("device"), req.get("toolchain"))
        for c in cases:
            for k in ("id", "target", "ptx", "load_path", "class"):
                if not isinstance(c.get(k), str):
                    raise ValueError(f"a case lacks {k!r}")
    except (ValueError, KeyError, TypeError) as e:
        raise ResultsError(f"the request on stdin is malformed: {e}") from None
    rel = lambda p: os.path.relpath(p, a.root) if p.startswith(a.root) else p  # noqa: E731
    print(json.dumps({"cases": judge(cases, run, findings, waiver_list, today, (rel(exp), rel(wai)))}))
    return 0
