"""Reviewed lowering findings (results/expectations/lower.toml): where a toolchain's SASS contradicts a lowering rule
and the contradiction was reviewed as the toolchain's, not the rule's.

Each finding is one `[[finding]]` table:

    [[finding]]
    id = "short-name"                  # unique; letters, digits, . _ -
    rules = ["reduce.noftz"]           # the lowering rules the SASS contradicts; a fail is covered only when every
                                       # rule it fails is listed (another contradiction is never hidden)
    forms = ["<form ID or glob>", ...] # fnmatch over the form ID
    targets = ["sm_*"]                 # optional, globs over the target (default every target)
    toolchains = ["13.5"]              # the toolchains (names or globs) it was reviewed for
    sentence = "..."                   # the chapter's sentence the rule rests on
    observed = "..."                   # what the toolchain emits, and how it was checked
    note = "..."                       # why this is the toolchain's divergence
    reviewed = "who, date"

A finding turns the `fail` of a form it covers into `spec_divergence` (the message names the finding): reported,
kept in the baseline, not a failure of the run. A finding of this toolchain that covers no fail of the forms the run
selected is stale, and the run says so.
"""
import fnmatch
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import List

from framework import boundary
from framework.boundary import VerbError

PATH = os.path.join("results", "expectations", "lower.toml")
REQUIRED = ("id", "rules", "forms", "toolchains", "sentence", "observed", "note", "reviewed")
OPTIONAL = ("targets",)
ID = re.compile(r"[A-Za-z0-9._-]+")


class FindingsError(VerbError):
    """A findings file that breaks its format (exit 3)."""
    code = boundary.EXIT_INPUT


@dataclass
class Finding:
    id: str
    rules: List[str]
    forms: List[str]
    toolchains: List[str]
    sentence: str
    observed: str
    note: str
    reviewed: str
    targets: List[str] = field(default_factory=lambda: ["*"])
    applied: int = 0     # fails it turned into spec_divergence this run
    selected: int = 0    # forms@targets of this run it matches

    def matches(self, toolchain, form, target):
        return (any(fnmatch.fnmatchcase(toolchain, p) for p in self.toolchains)
                and any(fnmatch.fnmatchcase(form, p) for p in self.forms)
                and any(fnmatch.fnmatchcase(target, p) for p in self.targets))


def load(path):
    """[Finding] of the file (none when it does not exist); FindingsError naming the file, the finding and the key
    on a malformed one."""
    if not os.path.exists(path):
        return []
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise FindingsError(f"{path}: not TOML: {e}")
    if doc.get("version") != 1:
        raise FindingsError(f"{path}: version = {doc.get('version')!r}, expected 1")
    from ptxcts_gen.lowering import RULES
    known = {r.name for r in RULES}
    out, seen = [], set()
    for n, t in enumerate(doc.get("finding", [])):
        where = f"{path}: finding {n + 1} ({t.get('id', 'no id')})"
        missing = [k for k in REQUIRED if k not in t]
        unknown = [k for k in t if k not in REQUIRED + OPTIONAL]
        if missing or unknown:
            raise FindingsError(f"{where}: " + "; ".join(
                ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown key {', '.join(unknown)}"]
                                                                          if unknown else [])))
        for k in ("rules", "forms", "toolchains") + (("targets",) if "targets" in t else ()):
            if not (isinstance(t[k], list) and t[k] and all(isinstance(x, str) and x for x in t[k])):
                raise FindingsError(f"{where}: {k} must be a non-empty list of strings")
        for k in ("id", "sentence", "observed", "note", "reviewed"):
            if not (isinstance(t[k], str) and t[k].strip()):
                raise FindingsError(f"{where}: {k} must be a non-empty string")
        if not ID.fullmatch(t["id"]) or t["id"] in seen:
            raise FindingsError(f"{where}: id {t['id']!r} is not unique letters, digits, . _ -")
        seen.add(t["id"])
        bad = [r for r in t["rules"] if r not in known]
        if bad:
            raise FindingsError(f"{where}: rules {', '.join(bad)}: not a lowering rule (ptxcts_gen.lowering)")
        out.append(Finding(**t))
    return out


def apply(records, findings, toolchain):
    """Turn each covered fail into spec_divergence (in place); [Finding] that matched forms of this run and covered
    no fail of them (stale)."""
    for r in records:
        mine = [f for f in findings if f.matches(toolchain, r["form"], r["target"])]
        for f in mine:
            f.selected += 1
        if r["class"] != "fail":
            continue
        failed = {w.split(":", 1)[0] for w in (r.get("details") or {}).get("failed", [])}
        for f in mine:
            if failed and failed <= set(f.rules):
                r["class"] = "spec_divergence"
                r["message"] = f"finding {f.id}: {r.get('message', '')}"
                r.setdefault("details", {})["finding"] = f.id
                f.applied += 1
                break
    return [f for f in findings if f.selected and not f.applied]
