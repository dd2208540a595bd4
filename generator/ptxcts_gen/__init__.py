"""ptx-cts generator: the ISA model of PTX ISA 9.7.9.25 (asynchronous copy), its validity rules, enumeration
of compile cases, and rendering of test kernels into generated/.

Layout: isa/ (one declarative table per instruction family), rules/ (named rules quoting the chapter),
targets.py (target table, PTX versions, strategy), model.py (forms and cases), render.py (jinja2 templates),
manifest.py (generated/ writer and staleness check), cli.py (gen | cases | modules).

Version strategy (also in generated/manifest/targets.json):
  per form and target, m = max(form's minimum PTX ISA version at that target, target's minimum PTX version);
  cases at the known PTX version just below m, at m, and the newest known (9.0); versions at which the target
  does not exist are not generated, except a small explicit boundary set (one representative form per family:
  every target just below its own minimum PTX version, rule target.not_at_ptx; sm_101a/sm_101f at 9.0, rule
  target.renamed). Targets: every target the form applies to, plus near misses (next lower SM number, other
  variants of the applicable SM numbers, and for arch/family-specific forms the next SM number above), the
  near misses at m and 9.0.

Python API: module_text(target, ptx, forms) -> PTX module text; load_forms() -> forms from the ISA model (kept between
processes by formcache).
"""


def load_forms(family=None):
    """model.all_forms(family), the whole model's read back from formcache when it holds them (a process that
    renders modules; `gen` and the model's tests enumerate afresh through model.all_forms)."""
    from . import formcache
    from .model import all_forms
    forms = formcache.load(all_forms)
    return forms if family is None else [f for f in forms if f.family == family]


def module_text(target, ptx, forms):
    """Assemble one module: `.version ptx`, `.target target`, `.address_size 64`, then each form's entry.
    forms: Form objects (load_forms()) or form IDs. An unknown target, PTX version or form ID raises an error
    naming it."""
    from .targets import BY_NAME, PTX_VERSIONS
    if target not in BY_NAME:
        raise ValueError(f"module_text: unknown target '{target}' (known: {', '.join(sorted(BY_NAME))})")
    if ptx not in PTX_VERSIONS:
        raise ValueError(f"module_text: unknown PTX ISA version '{ptx}' (known: {', '.join(PTX_VERSIONS)})")
    if forms and isinstance(forms[0], str):
        by_id = {f.id: f for f in load_forms()}
        missing = [x for x in forms if x not in by_id]
        if missing:
            raise KeyError(f"unknown form ID(s): {', '.join(missing[:5])}")
        forms = [by_id[x] for x in forms]
    from .render import module_text as render   # jinja2 loads here, not in every verb that imports the package
    return render(target, ptx, forms)
