"""generated/: the manifest (targets.json, forms.jsonl, cases/<family>.tsv) and kernels/<family>.ptx.
Everything is built in memory first, sorted, without timestamps, so a rerun is byte-identical.

The large files (COMPRESSED: forms.jsonl, cases/*.tsv, kernels/*.ptx) are committed gzip-compressed, `X.gz`
beside the expanded copy `X` that every reader opens (git ignores it): `gen` writes both, `./ptxcts` expands `X.gz`
into `X` before every verb where `X` is missing or older (packed.expand), and `gen --check` compares the
content of `X.gz`, and of `X` where it is there, with a fresh build."""
import json
import os

from . import contract, contract_cpp
from .packed import compressed, expand, pack, read as _read
from .model import all_forms, family_cases, form_targets
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
        if f.valid or f.valid_from:
            # where it is valid (model.form_targets): the run tier and exploration run such a form only on a device
            # of these targets, one case of it (runcore plan_cases, explore drawable)
            rec["valid_on"] = [t.name for t in form_targets(f)[0]]
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
    """Names of files under generated/ that differ from, are missing from, or are not in the fresh build: for a
    compressed file, the content of the committed X.gz, and of the expanded copy X where it is there."""
    have = _existing()
    out = []
    for rel, text in sorted(files.items()):
        data = text.encode()
        if compressed(rel):
            p = have.get(rel + ".gz")
            if p is None:
                out.append(f"missing: generated/{rel}.gz")
            elif _read(p, packed=True) != data:
                out.append(f"stale: generated/{rel}.gz")
            if rel in have and _read(have[rel]) != data:
                out.append(f"stale: generated/{rel} (the expanded copy of {rel}.gz)")
            continue
        p = have.get(rel)
        if p is None:
            out.append(f"missing: generated/{rel}")
        elif _read(p) != data:
            out.append(f"stale: generated/{rel}")
    for rel in sorted(set(have) - _names(files)):
        if not rel.endswith(".gitkeep"):
            out.append(f"extra: generated/{rel}")
    return out


def _names(files):
    """Every file name under generated/ a build writes: X, and X.gz for a compressed X."""
    return set(files) | {rel + ".gz" for rel in files if compressed(rel)}


def _put(path, data, packed=False):
    """Write data (gzip-compressed when packed) unless the file holds it already; whether it was written."""
    if os.path.exists(path) and _read(path, packed) == data:
        return False
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "wb") as fh:
        fh.write(pack(data) if packed else data)
    os.replace(path + ".tmp", path)
    return True


def write(files):
    have = _existing()
    changed = 0
    for rel, text in sorted(files.items()):
        path = os.path.join(GENERATED, rel)
        data = text.encode()
        if compressed(rel):
            changed += _put(path + ".gz", data, packed=True)
            # the expanded copy after its .gz: never older than it (packed.expand)
            if _put(path, data) or os.path.getmtime(path) < os.path.getmtime(path + ".gz"):
                os.utime(path)
            continue
        changed += _put(path, data)
    removed = 0
    for rel in sorted(set(have) - _names(files)):
        if not rel.endswith(".gitkeep"):
            os.remove(have[rel])
            removed += 1
    return changed, removed
