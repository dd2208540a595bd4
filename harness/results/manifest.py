"""The generator's manifest as the report needs it: the list of forms (the coverage denominator)."""
import json
import os

from .errors import InputError, UsageError


def default_dir():
    root = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return os.path.join(root, "generated", "manifest")


def load_forms(manifest_dir):
    """[{form, family, invalid_by}] from forms.jsonl, in file order (sorted by form ID by the generator)."""
    path = os.path.join(str(manifest_dir), "forms.jsonl")
    if not os.path.isfile(path):
        raise UsageError(f"{path}: no forms.jsonl (the coverage denominator): run './ptxcts gen' first, "
                         "or pass --manifest DIR")
    forms, seen = [], {}
    for n, obj in json_lines(path, lambda n, e: InputError(path, n, None, f"not a JSON object: {e.msg}")):
        for field in ("form", "family"):
            if not isinstance(obj, dict) or not isinstance(obj.get(field), str) or not obj.get(field):
                raise InputError(path, n, field, "missing or not a non-empty string")
        if obj["form"] in seen:
            raise InputError(path, n, "form", f"{obj['form']!r} is also on line {seen[obj['form']]}")
        seen[obj["form"]] = n
        forms.append({"form": obj["form"], "family": obj["family"],
                      "valid": not obj.get("invalid_by")})
    return path, forms


def json_lines(path, bad_line):
    """(line number, value) of every non-blank line of the JSON-lines file at path (forms.jsonl); a line that is
    not JSON raises bad_line(its number, the json.JSONDecodeError); a file that is not UTF-8, or a line nested too
    deeply or holding NaN, InputError."""
    from .jsonloc import load, read_text
    for n, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip():
            continue
        try:
            json.loads(line, parse_constant=lambda c: None)   # a syntax error: the caller's message
        except json.JSONDecodeError as e:
            raise bad_line(n, e) from None
        except RecursionError:
            pass   # load below names it
        yield n, load(line, f"{path}:{n}")


CASE_COLUMNS = ("case_id", "form", "target", "ptx", "expect", "rules")


class Cases:
    """The manifest's cases (`cases/<family>.tsv`: case_id form target ptx expect rules), as the report and diff
    need them: what each (form, target, PTX version) expects and which rules an invalid one breaks."""

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
    folder = os.path.join(str(manifest_dir), "cases")
    names = sorted(n for n in os.listdir(folder) if n.endswith(".tsv")) if os.path.isdir(folder) else []
    if not names:
        raise UsageError(f"{folder}: no cases/*.tsv (the cases each target expects to accept): run './ptxcts gen' "
                         "first, or pass --manifest DIR")
    cases = Cases()
    for name in names:
        path = os.path.join(folder, name)
        from .jsonloc import read_text
        lines = read_text(path).split("\n")
        header = lines[0].split("\t")
        if tuple(header) != CASE_COLUMNS:
            raise InputError(path, 1, None, f"the header must be {' '.join(CASE_COLUMNS)} (tab-separated)")
        seen = {}
        for n, line in enumerate(lines[1:], 2):
            if not line.strip():
                continue
            cols = line.split("\t")
            if len(cols) != len(CASE_COLUMNS):
                raise InputError(path, n, None, f"{len(cols)} columns, expected {len(CASE_COLUMNS)}")
            if cols[4] not in ("accept", "reject"):
                raise InputError(path, n, "expect", f"{cols[4]!r} is not accept or reject")
            if cols[0] in seen:
                raise InputError(path, n, "case_id", f"{cols[0]!r} repeats line {seen[cols[0]]} (each case once)")
            seen[cols[0]] = n
            rules = tuple(r for r in cols[5].split(",") if r)
            cases.by_key[(cols[1], cols[2], cols[3])] = (cols[4], rules)
    return cases
