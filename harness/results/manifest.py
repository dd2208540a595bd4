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
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as e:
                raise InputError(path, n, None, f"not a JSON object: {e.msg}") from None
            for field in ("form", "family"):
                if not isinstance(obj, dict) or not isinstance(obj.get(field), str) or not obj.get(field):
                    raise InputError(path, n, field, "missing or not a non-empty string")
            if obj["form"] in seen:
                raise InputError(path, n, "form", f"{obj['form']!r} is also on line {seen[obj['form']]}")
            seen[obj["form"]] = n
            forms.append({"form": obj["form"], "family": obj["family"],
                          "valid": not obj.get("invalid_by")})
    return path, forms
