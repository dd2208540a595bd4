"""The generator's manifest (docs/ARCHITECTURE.md section 2), read-only: targets.json, forms.jsonl, cases/*.tsv."""
import csv
import fnmatch
import io
import os
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from results import jsonloc, manifest as results_manifest
from results.errors import InputError

CASE_COLUMNS = ["case_id", "form", "target", "ptx", "expect", "rules"]


class ManifestError(Exception):
    pass


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


def default_root() -> str:
    return results_manifest.default_dir()


def load(root: str, families: Optional[List[str]] = None) -> Manifest:
    if not os.path.isdir(root):
        raise ManifestError(f"compile: no manifest at {root}: run './ptxcts gen' first")
    targets = _json(os.path.join(root, "targets.json"))
    forms = {}
    path = os.path.join(root, "forms.jsonl")
    for n, obj in results_manifest.json_lines(path, lambda n, e: ManifestError(f"compile: {path}:{n}: not JSON: {e}")):
        for key in ("form", "family", "kernel", "instr"):
            if key not in obj:
                raise ManifestError(f"compile: {path}:{n}: form record has no '{key}'")
        if obj["form"] in forms:   # a form listed twice: which record holds is not for the reader to guess
            raise ManifestError(f"compile: {path}:{n}: form {obj['form']} is listed a second time")
        forms[obj["form"]] = obj
    cases_dir = os.path.join(root, "cases")
    if not os.path.isdir(cases_dir):
        raise ManifestError(f"compile: {cases_dir} is missing")
    all_families = sorted(f[:-4] for f in os.listdir(cases_dir) if f.endswith(".tsv"))
    if families:
        unknown = [f for f in families if f not in all_families]
        if unknown:
            raise ManifestError(f"compile: unknown family {', '.join(unknown)} (manifest has: {', '.join(all_families)})")
    cases = []
    for fam in all_families:
        if families and fam not in families:
            continue
        cases.extend(_cases(os.path.join(cases_dir, fam + ".tsv"), fam, forms))
    seen = {}
    for c in cases:
        if c.id in seen:
            raise ManifestError(f"compile: case {c.id} appears in cases/{seen[c.id]}.tsv and cases/{c.family}.tsv"
                                if seen[c.id] != c.family else f"compile: case {c.id} appears twice in cases/{c.family}.tsv")
        seen[c.id] = c.family
    return Manifest(root, targets, forms, cases, all_families)


def _json(path):
    if not os.path.isfile(path):
        raise ManifestError(f"compile: {path} is missing")
    try:
        return jsonloc.read(path)
    except InputError as e:
        raise ManifestError(f"compile: {e}") from None


def _cases(path, family, forms):
    out = []
    try:
        text = jsonloc.read_text(path)
    except InputError as e:
        raise ManifestError(f"compile: {e}") from None
    with io.StringIO(text, newline="") as f:
        reader = csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None or header[:len(CASE_COLUMNS)] != CASE_COLUMNS:
            raise ManifestError(f"compile: {path}:1: header is {header}, expected {CASE_COLUMNS}")
        for n, row in enumerate(reader, 2):
            if not row:
                continue
            row = row + [""] * (len(CASE_COLUMNS) - len(row))
            cid, form, target, ptx, expect, rules = row[:6]
            if expect not in ("accept", "reject"):
                raise ManifestError(f"compile: {path}:{n}: case {cid}: expect is '{expect}', not accept|reject")
            if form not in forms:
                raise ManifestError(f"compile: {path}:{n}: case {cid}: form {form} is not in forms.jsonl")
            if expect == "reject" and not rules:
                raise ManifestError(f"compile: {path}:{n}: case {cid} is expected rejected but names no rule")
            out.append(Case(cid, family, form, target, ptx, expect,
                            tuple(r for r in rules.split(",") if r)))
    return out


def select(cases: List[Case], targets=None, ptx=None, case_globs=None, limit=None) -> List[Case]:
    out = []
    for c in cases:
        if targets and c.target not in targets:
            continue
        if ptx and c.ptx not in ptx:
            continue
        if case_globs and not any(fnmatch.fnmatchcase(c.id, g) for g in case_globs):
            continue
        out.append(c)
    if limit is not None and limit < len(out):
        # spread evenly over the selection (it is sorted by family, then case ID), so a small sample still
        # crosses targets, PTX versions and validity; deterministic
        step = len(out) / max(limit, 1)
        out = [out[int(i * step)] for i in range(limit)]
    return out
