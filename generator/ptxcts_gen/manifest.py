"""generated/: the manifest (targets.json, forms.jsonl, cases/<family>.tsv) and kernels/<family>.ptx.
Everything is built in memory first, sorted, without timestamps, so a rerun is byte-identical."""
import json
import os

from . import contract, contract_cpp
from .model import all_forms, family_cases
from .render import kernel_text, ROOT
from .targets import targets_document

GENERATED = os.path.join(ROOT, "generated")
TSV_HEADER = "case_id\tform\ttarget\tptx\texpect\trules\n"


def form_record(f):
    rec = {"form": f.id, "family": f.family, "instr": f.instr, "quals": f.quals_record, "min_ptx": f.min_ptx,
            "targets": f.targets_summary or "any", "requires": list(f.requires), "kernel": f.entry,
            "kernel_file": f"kernels/{f.family}.ptx", "abi": f.abi, "run": f.run, "invalid_by": list(f.invalid_by)}
    if f.valid_from:
        rec["valid_from"] = f.valid_from   # invalid below this PTX version only (a rule a later text lifts)
    if f.at_boundaries:
        rec["cases"] = "boundaries"   # a whole-product combination: cases at its boundaries (model.combination_cases)
    return rec


def build(progress=None):
    """{relative path under generated/: text} plus per-family (forms, cases) for the count table."""
    files = {}
    forms = all_forms()
    for f in forms:
        contract.check_form(f.id, f.abi, f.run)
    files["contract/run_contract.hpp"] = contract_cpp.header()
    families = sorted({f.family for f in forms})
    files["manifest/forms.jsonl"] = "".join(json.dumps(form_record(f), sort_keys=True) + "\n" for f in forms)
    per_family = {}
    for i, fam in enumerate(families):
        ff = [f for f in forms if f.family == fam]
        cases = family_cases(ff)
        per_family[fam] = (ff, cases)
        rows = [TSV_HEADER] + [f"{c.id}\t{c.form.id}\t{c.target}\t{c.ptx}\t{c.expect}\t{','.join(c.rules)}\n"
                               for c in cases]
        files[f"manifest/cases/{fam}.tsv"] = "".join(rows)
        header = (f"// ptx-cts kernels of family {fam}: {len(ff)} forms, one .entry each (no .version/.target;\n"
                  f"// assemble with ptxcts_gen.module_text or ./ptxcts modules). Generated; do not edit.\n\n")
        files[f"kernels/{fam}.ptx"] = header + "\n".join(kernel_text(f) for f in ff)
        if progress:
            progress(i + 1, len(families), fam, len(ff), len(cases))
    doc = targets_document()
    doc["counts"] = counts(per_family)
    files["manifest/targets.json"] = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    return files, per_family


def counts(per_family):
    """What the strategy yields: forms valid/invalid and cases accept/reject, per family and per target."""
    fam, tgt = {}, {}
    for name, (ff, cases) in sorted(per_family.items()):
        fam[name] = {"forms_valid": sum(1 for f in ff if f.valid), "forms_invalid": sum(1 for f in ff if not f.valid),
                     "cases_accept": sum(1 for c in cases if not c.rules),
                     "cases_reject": sum(1 for c in cases if c.rules)}
        for c in cases:
            t = tgt.setdefault(c.target, {"accept": 0, "reject": 0})
            t[c.expect] += 1
    total = {k: sum(v[k] for v in fam.values()) for k in ("forms_valid", "forms_invalid", "cases_accept",
                                                            "cases_reject")}
    return {"per_family": fam, "per_target": tgt, "total": total}


def _existing():
    out = {}
    for base, _, names in os.walk(GENERATED):
        for n in names:
            p = os.path.join(base, n)
            out[os.path.relpath(p, GENERATED).replace(os.sep, "/")] = p
    return out


def stale(files):
    """Names of files under generated/ that differ from, are missing from, or are not in the fresh build."""
    have = _existing()
    out = []
    for rel, text in sorted(files.items()):
        p = have.get(rel)
        if p is None:
            out.append(f"missing: generated/{rel}")
            continue
        with open(p, "rb") as fh:
            if fh.read() != text.encode():
                out.append(f"stale: generated/{rel}")
    for rel in sorted(set(have) - set(files)):
        if not rel.endswith(".gitkeep"):
            out.append(f"extra: generated/{rel}")
    return out


def write(files):
    have = _existing()
    changed = 0
    for rel, text in sorted(files.items()):
        path = os.path.join(GENERATED, rel)
        data = text.encode()
        if rel in have:
            with open(path, "rb") as fh:
                if fh.read() == data:
                    continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".tmp", "wb") as fh:
            fh.write(data)
        os.replace(path + ".tmp", path)
        changed += 1
    removed = 0
    for rel in sorted(set(have) - set(files)):
        if not rel.endswith(".gitkeep"):
            os.remove(have[rel])
            removed += 1
    return changed, removed
