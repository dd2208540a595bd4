"""Waivers: results/waivers.toml, the known regressions the gate lets through until each one expires.

    version = 1

    [[waiver]]
    case = "cp.async.bulk.tensor/5d.*"   # required: glob (fnmatch, case-sensitive) over the case ID
    target = "sm_90a"                    # optional: glob over the case's target
    load_path = "jit"                    # optional: glob over the load path (ptxas, cubin, jit)
    classes = ["fail", "timeout"]        # optional: the new classes it covers ("missing" for a case not run)
    device = ">=sm_90, <sm_100"          # optional: range over the device's compute capability (sm_90 = 9.0)
    driver = ">=580, <590"               # optional: range over toolchain.driver
    toolkit = "13.0"                     # optional: range over toolchain.ptxas (else toolchain.cuda_runtime)
    reason = "why this is waived"        # required
    link = "https://bug/123"             # required: the bug or finding it tracks
    expires = 2027-03-31                 # required: a TOML date; the waiver holds through that day

A range is comma-separated clauses `OP VERSION`, OP one of >= > <= < == != (none means ==); `==` and `!=`
compare only the components written (`13.0` matches 13.0.88). A waiver with a device, driver or toolkit range
matches only runs that record that value (the compile tier has no device and no driver).
"""
import datetime
import fnmatch
import re

from . import jsonloc, tomldoc
from .errors import InputError
from .schema import CLASSES

VERSION = 1
REQUIRED = ("case", "reason", "link", "expires")
OPTIONAL = ("target", "load_path", "classes", "device", "driver", "toolkit")
_CLAUSE = re.compile(r"(>=|<=|==|!=|>|<)?\s*(sm_[0-9]+|[0-9]+(?:\.[0-9]+)*)")


def version_of(text):
    """The leading dotted number of a version string as a tuple ("580.65.06" -> (580, 65, 6)); None without one."""
    m = re.match(r"[0-9]+(?:\.[0-9]+)*", str(text or "").strip())
    return tuple(int(x) for x in m.group(0).split(".")) if m else None


def parse_range(text, device):
    clauses = []
    for part in text.split(","):
        m = _CLAUSE.fullmatch(part.strip())
        if not m:
            raise ValueError(f"clause {part.strip()!r} is not 'OP VERSION' (OP: >= > <= < == !=)")
        op, v = m.group(1) or "==", m.group(2)
        if v.startswith("sm_"):
            if not device:
                raise ValueError(f"{v!r}: an sm_NN version is only meaningful in a device range")
            n = int(v[3:])
            v = f"{n // 10}.{n % 10}"
        clauses.append((op, tuple(int(x) for x in v.split("."))))
    return clauses


def in_range(value, clauses):
    if value is None:
        return False
    for op, want in clauses:
        if op in ("==", "!="):
            eq = value[:len(want)] + (0,) * (len(want) - len(value)) == want
            ok = eq if op == "==" else not eq
        else:
            n = max(len(value), len(want))
            a, b = value + (0,) * (n - len(value)), want + (0,) * (n - len(want))
            ok = {">=": a >= b, ">": a > b, "<=": a <= b, "<": a < b}[op]
        if not ok:
            return False
    return True


class Scope:
    """Where an entry of a waiver or findings file applies: its case globs, and the optional target and load-path
    globs and device, driver and toolkit ranges (set as attributes; None = any). The one matching rule of both
    files (results/waivers.toml here, results/expectations/run.toml in known.py)."""

    def in_scope(self, case_globs, key, run):
        case_id, target, _, load_path, _ = key
        if not any(fnmatch.fnmatchcase(case_id, g) for g in case_globs):
            return False
        if self.target is not None and not fnmatch.fnmatchcase(target, self.target):
            return False
        if self.load_path is not None and not fnmatch.fnmatchcase(load_path, self.load_path):
            return False
        device = run.device if run is not None else None
        toolchain = (run.toolchain if run is not None else None) or {}
        if self.device is not None and not in_range(version_of(device["cc"]) if device else None, self.device):
            return False
        if self.driver is not None and not in_range(version_of(toolchain.get("driver")), self.driver):
            return False
        if self.toolkit is not None and not in_range(
                version_of(toolchain.get("ptxas") or toolchain.get("cuda_runtime")), self.toolkit):
            return False
        return True


class Waiver(Scope):
    def __init__(self, index, line, fields):
        self.index, self.line = index, line
        self.__dict__.update(fields)

    def describe(self, file):
        return f"{file}:{self.line} waiver[{self.index}] case {self.case!r} (expires {self.expires}; {self.link})"

    def expired(self, today):
        return self.expires < today

    def matches(self, key, new_class, run):
        if self.classes is not None and new_class not in self.classes:
            return False
        return self.in_scope([self.case], key, run)


def _line_finder(text):
    """Map (waiver index, field) -> line, for waivers written as [[waiver]] tables."""
    lines = text.split("\n")
    headers = [i for i, l in enumerate(lines) if re.match(r"\s*\[\[\s*waiver\s*\]\]\s*(#.*)?$", l)]

    def find(index, field=None):
        if index is None:
            if field is None:
                return None
            for i, l in enumerate(lines[:headers[0]] if headers else lines):
                if re.match(rf'\s*"?{re.escape(field)}"?\s*=', l):
                    return i + 1
            return None
        if index >= len(headers):
            return None
        start = headers[index]
        end = headers[index + 1] if index + 1 < len(headers) else len(lines)
        if field is not None:
            for i in range(start + 1, end):
                if re.match(rf'\s*"?{re.escape(field)}"?\s*=', lines[i]):
                    return i + 1
        return start + 1
    return find


def table_entries(doc, table, version, fail, version_message, top_level_note):
    """The [[table]] entries of a reviewed TOML file (waivers, run-tier findings), once its `version` is the one
    this tool knows (else fail with version_message(the file's version)) and it has no other top-level key."""
    v = doc.get("version")
    if type(v) is not int or v != version:   # `version = true` and `version = 1.0` are not the integer 1
        fail(None, "version", version_message(v))
    extra = sorted(set(doc) - {"version", table})
    if extra:
        fail(None, extra[0], f"unknown top-level key ({top_level_note})")
    entries = doc.get(table, [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        fail(None, table, f"write each {table} as a [[{table}]] table")
    return entries


def glob_problem(pattern):
    """Why `pattern` is not a well-formed fnmatch glob (an unbalanced '[' would match only itself, silently), or
    None."""
    i = 0
    while i < len(pattern):
        if pattern[i] == "[":
            j = i + 1
            if j < len(pattern) and pattern[j] in "!^":
                j += 1
            if j < len(pattern) and pattern[j] == "]":
                j += 1
            close = pattern.find("]", j)
            if close < 0:
                return f"{pattern!r}: '[' at position {i} has no closing ']' (write [[] for a literal '[')"
            i = close
        elif pattern[i] == "]":
            return f"{pattern!r}: ']' at position {i} closes no '['"
        i += 1
    return None


def check_table_fields(entry, index, required, optional, fail):
    """A [[table]] entry of a reviewed TOML file (waivers, run-tier findings) has every required field and no
    unknown one; fail(index, field, what) reports the first that is wrong."""
    for field in required:
        if field not in entry:
            fail(index, None, f"missing field {field!r} (required: {', '.join(required)})")
    unknown = sorted(set(entry) - set(required) - set(optional))
    if unknown:
        fail(index, unknown[0], f"unknown field (known: {', '.join(required + optional)})")


def check_nonempty_strings(entry, index, fields, fail):
    """Each of `fields` the entry has is a string with more than white space."""
    for field in fields:
        if field in entry and (not isinstance(entry[field], str) or not entry[field].strip()):
            fail(index, field, "must be a non-empty string")


def load(path):
    path = str(path)
    text = jsonloc.read_text(path)
    doc = tomldoc.loads(text, path)
    find = _line_finder(text)

    def fail(index, field, what):
        name = field if index is None else (f"waiver[{index}]" + (f".{field}" if field else ""))
        raise InputError(path, find(index, field), name, what)

    entries = table_entries(doc, "waiver", VERSION, fail,
                            lambda v: f"waiver file version {v!r} is not known to this tool "
                                      f"(write 'version = {VERSION}' at the top)",
                            "a waiver file has 'version' and [[waiver]] tables")
    waivers = []
    for i, w in enumerate(entries):
        check_table_fields(w, i, REQUIRED, OPTIONAL, fail)
        fields = {k: w.get(k) for k in REQUIRED + OPTIONAL}
        check_nonempty_strings(w, i, ("case", "reason", "link", "target", "load_path"), fail)
        for field in ("case", "target", "load_path"):
            if field in w and glob_problem(w[field]):
                fail(i, field, f"not a glob: {glob_problem(w[field])}")
        if type(w["expires"]) is not datetime.date:
            fail(i, "expires", "must be a TOML date without quotes or time, e.g. expires = 2027-03-31")
        if "classes" in w:
            cl = w["classes"]
            known = CLASSES + ("missing",)
            if not isinstance(cl, list) or not cl:
                fail(i, "classes", f"must be a non-empty list of classes ({', '.join(known)})")
            unknown = [c for c in cl if c not in known]
            if unknown:
                fail(i, "classes", f"{unknown[0]!r} is not a class (known: {', '.join(known)})")
        for field in ("device", "driver", "toolkit"):
            if field in w:
                if not isinstance(w[field], str):
                    fail(i, field, "must be a string like '>=13.0, <13.1'")
                try:
                    fields[field] = parse_range(w[field], device=(field == "device"))
                except ValueError as e:
                    fail(i, field, str(e))
        waivers.append(Waiver(i, find(i), fields))
    return waivers
