"""What a front-end can express: per family, the forms its mapping spells and the reason for every other form
(`./ptxcts frontend coverage`, and the coverage.json of `./ptxcts frontend run`)."""
from collections import Counter, defaultdict

from . import FrontendError, catalog


def qualifier_decisions(mapping):
    """The mapping's QUALIFIERS as records, in vocabulary order: [{family, qualifier, value, writes | cannot}]."""
    from ptxcts_gen.frontends import Written
    out = []
    for (fam, q, v), d in sorted(mapping.QUALIFIERS.items(), key=lambda kv: (kv[0][0], kv[0][1], repr(kv[0][2]))):
        rec = {"family": fam, "qualifier": q, "value": v}
        rec.update({"writes": d.how} if isinstance(d, Written) else {"cannot": d.reason})
        out.append(rec)
    return out


def coverage_of(name, forms, manifest_cases=None):
    """{"frontend", "families": {family: {"valid", "expressible", "invalid", "invalid_expressible"}},
    "unexpressible": [{form, family, valid, reason}], "qualifiers": qualifier_decisions, "cases": {...}} of one
    front-end."""
    from . import load_description
    kind = "triton" if name.endswith("+named") else catalog.load()[name]["kind"]   # a Triton named by path
    d = None if kind == "triton" else load_description(name)
    if kind in ("llvm", "triton-llvm"):   # Triton's bundled LLVM takes the LLVM mapping
        from ptxcts_gen.frontends import llvm as mapping
        if d is None:
            raise FrontendError(f"front-end {name}: no toolchains/{name}.json (./ptxcts frontend probe {name})")
        spell = lambda f: mapping.spell(f, set(d.get("intrinsics") or ()))   # noqa: E731
    elif kind == "triton":
        from ptxcts_gen.frontends import triton as mapping
        spell = mapping.spell
    elif kind == "cute-dsl":
        from ptxcts_gen.frontends import cute_dsl as mapping
        spell = mapping.spell
    else:
        from ptxcts_gen.frontends import cccl as mapping
        spell = mapping.spell
    from ptxcts_gen.frontends import Spelling
    fam = defaultdict(Counter)
    missing, expressible = [], set()
    for f in forms:
        s = spell(f)
        ok = isinstance(s, Spelling)
        fam[f.family]["valid" if f.valid else "invalid"] += 1
        if ok:
            fam[f.family]["expressible" if f.valid else "invalid_expressible"] += 1
            expressible.add(f.id)
        else:
            missing.append({"form": f.id, "family": f.family, "valid": f.valid, "reason": s.reason})
    out = {"frontend": name, "kind": kind, "families": {k: dict(v) for k, v in sorted(fam.items())},
           "forms": len(forms), "valid_forms": sum(f.valid for f in forms),
           "expressible_valid_forms": sum(1 for f in forms if f.valid and f.id in expressible),
           "unexpressible": missing, "qualifiers": qualifier_decisions(mapping)}
    if manifest_cases is not None:
        cs = [c for c in manifest_cases if c.form in expressible]
        out["cases"] = {"expressible": len(cs), "valid": sum(c.valid for c in cs),
                        "invalid": sum(not c.valid for c in cs)}
    return out
