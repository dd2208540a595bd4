"""The generator's manifest (docs/ARCHITECTURE.md section 2), read-only, for every Python layer: targets.json,
forms.jsonl and cases/<family>.tsv.

    load(root)           the whole manifest (compile, lower, front-end tiers): Manifest with its Case list
    load_forms(root)     forms.jsonl alone (the report's coverage denominator)
    load_cases(root)     every case as Cases, keyed by (form, target, PTX version) (report, diff)
    select(cases, ...)   the cases a run's --family/--target/--ptx/--case/--limit choose

Every file is read once here: a line that breaks its format is an InputError naming the file, the line and what is
wrong (exit 3); a manifest without its parts is a ManifestError (exit 3) or, for the report's --manifest, a
UsageError (exit 2). The C++ reader of the run tier is harness/runcore/src/core/manifest.cpp.
"""
import fnmatch
import json
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .documents.errors import EXIT_INPUT, InputError, ResultsError, UsageError
from .documents.jsonloc import load as _json_load, read as _json_read, read_text
from framework import paths

CASE_COLUMNS = ("case_id", "form", "target", "ptx", "expect", "rules")
FORM_FIELDS = ("form", "family")            # what every reader of forms.jsonl needs
ASSEMBLY_FIELDS = ("kernel", "instr")       # what the tiers that assemble a form need besides


class ManifestError(ResultsError):
    """A manifest without one of its parts, or whose parts disagree (exit 3)."""
    exit_code = EXIT_INPUT


@dataclass(frozen=True)
class Case:
    id: str
    family: str
    form: str
    target: str
    ptx: str
    expect: str                 # accept | reject
    rules: tuple = ()

    @property
    def valid(self) -> bool:
        return self.expect == "accept"


@dataclass
class Manifest:
    root: str
    targets: dict
    forms: Dict[str, dict]
    cases: List[Case]
    families: List[str] = field(default_factory=list)

    def form(self, form_id: str) -> dict:
        return self.forms[form_id]

    def target_row(self, target: str) -> Optional[dict]:
        rows = self.targets.get("targets", [])
        if isinstance(rows, dict):
            row = rows.get(target)
            return dict(row, name=target) if isinstance(row, dict) else None
        for row in rows:
            if isinstance(row, dict) and row.get("name") == target:
                return row
        return None

    def check_filters(self, families=(), targets=(), ptx=()):
        """UsageError naming the first --family, --target or --ptx value no case of this manifest has."""
        unknown = [f for f in families if f not in self.families]
        if unknown:
            raise UsageError(f"--family {', '.join(unknown)}: unknown (the manifest has: {', '.join(self.families)})")
        for option, values, what, known in (("--target", targets, "target", {c.target for c in self.cases}),
                                            ("--ptx", ptx, "PTX version", {c.ptx for c in self.cases})):
            for v in values:
                if v not in known:
                    raise UsageError(f"{option} {v}: no case of the manifest is at this {what} (it has "
                                     f"{', '.join(sorted(known))})")


def default_dir():
    root = paths.root()
    return os.path.join(root, "generated", "manifest")


def given_root(option):
    """The manifest folder a verb's --manifest OPTION names, the generator's when it is not given; UsageError when
    it is not a folder."""
    root = option or default_dir()
    if not os.path.isdir(root):
        raise UsageError(f"--manifest {root}: no such folder")
    return root


def json_lines(path, bad_line):
    """(line number, value) of every non-blank line of the JSON-lines file at path (forms.jsonl); a line that is
    not JSON raises bad_line(its number, the json.JSONDecodeError); a file that is not UTF-8, or a line nested too
    deeply or holding NaN, InputError."""
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            json.loads(line, parse_constant=lambda c: None)   # a syntax error: the caller's message
        except json.JSONDecodeError as e:
            raise bad_line(n, e) from None
        except RecursionError:
            pass   # load below names it
        yield n, _json_load(line, f"{path}:{n}")


def read_forms(path, fields=FORM_FIELDS):
    """[form record] of forms.jsonl in file order, each a JSON object whose `fields` are non-empty strings, each
    form once."""
    forms, seen = [], {}
    for n, obj in json_lines(path, lambda n, e: InputError(path, n, None, f"not a JSON object: {e.msg}")):
        for name in fields:
            if not isinstance(obj, dict) or not isinstance(obj.get(name), str) or not obj.get(name):
                raise InputError(path, n, name, "missing or not a non-empty string")
        if obj["form"] in seen:   # a form listed twice: which record holds is not for the reader to guess
            raise InputError(path, n, "form", f"{obj['form']!r} is also on line {seen[obj['form']]}")
        seen[obj["form"]] = n
        forms.append(obj)
    return forms


def read_cases(path, family):
    """[(line number, Case)] of one cases/<family>.tsv: the header CASE_COLUMNS, then one case a line, each case
    once; an expected rejection names the rules it breaks."""
    lines = read_text(path).splitlines()
    if not lines or tuple(lines[0].split("\t")) != CASE_COLUMNS:
        raise InputError(path, 1, None, f"the header must be {' '.join(CASE_COLUMNS)} (tab-separated)")
    cases, seen = [], {}
    for n, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        cols = line.split("\t")
        if len(cols) != len(CASE_COLUMNS):
            raise InputError(path, n, None, f"{len(cols)} columns, expected {len(CASE_COLUMNS)}")
        cid, form, target, ptx, expect, rules = cols
        if expect not in ("accept", "reject"):
            raise InputError(path, n, None, f"case {cid}: expect is '{expect}', not accept|reject")
        rules = tuple(r for r in rules.split(",") if r)
        if expect == "reject" and not rules:
            raise InputError(path, n, None, f"case {cid} is expected rejected but names no rule")
        if cid in seen:
            raise InputError(path, n, "case_id", f"{cid!r} repeats line {seen[cid]} (each case once)")
        seen[cid] = n
        cases.append((n, Case(cid, family, form, target, ptx, expect, rules)))
    return cases


def _case_files(root):
    """{family: path} of cases/*.tsv, sorted by family."""
    folder = os.path.join(str(root), "cases")
    names = [n for n in os.listdir(folder) if n.endswith(".tsv")] if os.path.isdir(folder) else []
    return {n[:-4]: os.path.join(folder, n) for n in sorted(names, key=lambda n: n[:-4])}


def load(root: str, families: Optional[List[str]] = None) -> Manifest:
    """The whole manifest; only the cases of `families` where given. Every case's form is in forms.jsonl, and
    every form record names its kernel and instruction."""
    if not os.path.isdir(root):
        raise ManifestError(f"no manifest at {root}: run './ptxcts gen' first")
    targets_path = os.path.join(root, "targets.json")
    if not os.path.isfile(targets_path):
        raise ManifestError(f"{targets_path} is missing")
    targets = _json_read(targets_path)
    forms_path = os.path.join(root, "forms.jsonl")
    if not os.path.isfile(forms_path):
        raise ManifestError(f"{forms_path} is missing")
    forms = {f["form"]: f for f in read_forms(forms_path, FORM_FIELDS + ASSEMBLY_FIELDS)}
    if not os.path.isdir(os.path.join(root, "cases")):
        raise ManifestError(f"{os.path.join(root, 'cases')} is missing")
    files = _case_files(root)
    unknown = [f for f in families or () if f not in files]
    if unknown:
        raise ManifestError(f"unknown family {', '.join(unknown)} (manifest has: {', '.join(files)})")
    cases, seen = [], {}
    for fam, path in files.items():
        if families and fam not in families:
            continue
        for n, c in read_cases(path, fam):
            if c.form not in forms:
                raise InputError(path, n, None, f"case {c.id}: form {c.form} is not in forms.jsonl")
            if c.id in seen:
                raise ManifestError(f"case {c.id} appears in cases/{seen[c.id]}.tsv and cases/{fam}.tsv")
            seen[c.id] = fam
            cases.append(c)
    return Manifest(root, targets, forms, cases, list(files))


def select(cases: List[Case], targets=None, ptx=None, case_globs=None, limit=None, families=None, form_globs=None,
           valid_only=False) -> List[Case]:
    """The cases every filter given keeps (a filter left out or empty keeps all), in their order; with `limit`, at
    most that many of them."""
    def _matches(text, globs):
        return not globs or any(fnmatch.fnmatchcase(text, g) for g in globs)

    out = [c for c in cases if (not targets or c.target in targets) and (not ptx or c.ptx in ptx)
           and (not families or c.family in families) and (c.valid or not valid_only)
           and _matches(c.id, case_globs) and _matches(c.form, form_globs)]
    # spread evenly over the selection (it is sorted by family, then case ID), so a small sample still crosses
    # targets, PTX versions and validity
    return spread(out, limit)


def spread(items, limit):
    """At most `limit` of the items, spread evenly over their order; deterministic (the same items and
    limit, the same sample). None: all of them."""
    if limit is None or limit >= len(items):
        return items
    step = len(items) / max(limit, 1)
    return [items[int(i * step)] for i in range(limit)]


def load_forms(manifest_dir):
    """(path, [{form, family, valid}]) of forms.jsonl, in file order (sorted by form ID by the generator)."""
    path = os.path.join(str(manifest_dir), "forms.jsonl")
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no forms.jsonl (the coverage denominator): run './ptxcts gen' first, "
                         "or pass --manifest DIR")
    return path, [{"form": f["form"], "family": f["family"], "valid": not f.get("invalid_by")}
                  for f in read_forms(path)]


class Cases:
    """The manifest's cases as the report and diff need them: what each (form, target, PTX version) expects and
    which rules an invalid one breaks."""

    def __init__(self):
        self.by_key = {}  # (form, target, ptx) -> (expect, rules tuple)

    def accept_forms(self, targets):
        """The forms with at least one case expected to be accepted at one of `targets`."""
        targets = set(targets)
        return {form for (form, target, _), (expect, _) in self.by_key.items()
                if expect == "accept" and target in targets}

    def rules(self, form, target, ptx):
        """The rules the case (form, target, ptx) breaks: () for a valid one, None when not in the manifest."""
        found = self.by_key.get((form, target, ptx))
        return None if found is None else found[1]


def load_cases(manifest_dir):
    """Cases of every cases/*.tsv under the manifest folder; UsageError when there is none."""
    files = _case_files(manifest_dir)
    if not files:
        raise UsageError(f"{os.path.join(str(manifest_dir), 'cases')}: no cases/*.tsv (the cases each target "
                         "expects to accept): run './ptxcts gen' first, or pass --manifest DIR")
    cases = Cases()
    for fam, path in files.items():
        for _, c in read_cases(path, fam):
            cases.by_key[(c.form, c.target, c.ptx)] = (c.expect, c.rules)
    return cases
