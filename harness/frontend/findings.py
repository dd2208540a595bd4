"""Reviewed findings of the front-end tier (results/expectations/frontends.toml): a front-end's divergence from
the chapter, reviewed once, turns the cases it covers from fail into spec_divergence with the finding's text."""
import fnmatch
import os
import re
from dataclasses import dataclass, field
from typing import List

from framework.boundary import VerbError
from framework.documents import tomldoc

from .errors import MALFORMED, USAGE, FrontendError

BEHAVIOURS = ("emits_invalid_ptx", "both_accept", "refuses_valid")
REQUIRED = ("id", "frontends", "cases", "behaviour", "sentence", "evidence", "note", "reviewed")


@dataclass
class Finding:
    id: str
    frontends: List[str]
    cases: List[str]
    behaviour: str
    sentence: str
    evidence: str
    note: str
    reviewed: str
    applied: List[str] = field(default_factory=list)

    def covers(self, frontend, case_id, behaviour):
        return (behaviour == self.behaviour and any(fnmatch.fnmatchcase(frontend, p) for p in self.frontends)
                and any(fnmatch.fnmatchcase(case_id, p) for p in self.cases))

    def text(self):
        return (f"finding {self.id}: {self.behaviour.replace('_', ' ')}; chapter: \"{self.sentence}\"; evidence: "
                f"{self.evidence}")


def reviewed(fe_findings, frontend, case_id, behaviour):
    """The text of the reviewed front-end finding covering the case (recorded as applied), or None."""
    for f in fe_findings:
        if f.covers(frontend, case_id, behaviour):
            f.applied.append(case_id)
            return f.text()
    return None


def default_path(root):
    return os.path.join(root, "results", "expectations", "frontends.toml")


def load(path):
    """The findings of the file; FrontendError (2: no such file, 3: malformed) naming the file and the finding."""
    if not os.path.isfile(path):
        raise FrontendError(f"--findings {path}: no such file (the reviewed front-end findings would silently be "
                            "lost; the default is results/expectations/frontends.toml)", USAGE)
    try:
        doc = tomldoc.read(path)   # the file and line named: not TOML, not UTF-8, a FIFO, nested too deeply
    except VerbError as e:
        raise FrontendError(str(e), USAGE if e.code == USAGE else MALFORMED) from None
    if set(doc) - {"finding"}:
        raise FrontendError(f"{path}: unknown top-level key {sorted(set(doc) - {'finding'})[0]!r} (only "
                            "[[finding]] tables)", MALFORMED)
    out, seen = [], set()
    for n, e in enumerate(doc.get("finding", []), 1):
        where = f"{path}: finding #{n} ({e.get('id', '?')})"
        missing = [k for k in REQUIRED if k not in e]
        if missing:
            raise FrontendError(f"{where}: lacks {', '.join(missing)}", MALFORMED)
        extra = [k for k in e if k not in REQUIRED]
        if extra:
            raise FrontendError(f"{where}: unknown key {', '.join(extra)} (keys: {', '.join(REQUIRED)})", MALFORMED)
        for k in ("frontends", "cases"):
            if not isinstance(e[k], list) or not e[k] or not all(isinstance(x, str) and x for x in e[k]):
                raise FrontendError(f"{where}: {k!r} must be a non-empty list of names or globs", MALFORMED)
        for k in ("id", "sentence", "evidence", "note", "reviewed"):
            if not isinstance(e[k], str) or not e[k].strip():
                raise FrontendError(f"{where}: {k!r} must be a non-empty string", MALFORMED)
        if e["behaviour"] not in BEHAVIOURS:
            raise FrontendError(f"{where}: behaviour {e['behaviour']!r} is not one of {', '.join(BEHAVIOURS)}",
                                MALFORMED)
        if not re.fullmatch(r"[a-z0-9][a-z0-9.+-]*", e["id"]) or e["id"] in seen:
            raise FrontendError(f"{where}: id must be unique, lower-case letters, digits and . + -", MALFORMED)
        seen.add(e["id"])
        out.append(Finding(e["id"], list(e["frontends"]), list(e["cases"]), e["behaviour"], e["sentence"].strip(),
                           e["evidence"].strip(), e["note"].strip(), e["reviewed"].strip()))
    return out
