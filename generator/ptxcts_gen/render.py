"""Rendering: family templates (templates/*.ptx.j2, each isa module's TEMPLATE) -> one test kernel per form."""
import os

import jinja2

from .contract import WORDS, words_comment
from .pathcheck import FOLDER, problem

_CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROOT = os.environ.get("PTXCTS_ROOT") or _CHECKOUT


def root_problem():
    """Why $PTXCTS_ROOT cannot be the source tree (blank, missing, not a folder), or None: the generator's entry
    (cli.main) refuses it, as ./ptxcts and the harness (framework.paths) do, also when it runs alone (python3 -m
    ptxcts_gen) -- never a tree named ' ' under the working folder, never the checkout in place of a blank value."""
    value = os.environ.get("PTXCTS_ROOT")
    if value is None:
        return None
    if not value.strip():
        return f"PTXCTS_ROOT={value!r} is set but empty; unset it for the default ({_CHECKOUT}), or name a folder"
    wrong = problem(value, FOLDER)
    return wrong and f"PTXCTS_ROOT={value}: {wrong} (the source tree the verbs read)"


TEMPLATES = os.path.join(ROOT, "templates")

_env = None


def env():
    global _env
    if _env is None:
        _env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                                  trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False,
                                  autoescape=False)
        # the run-ABI word offsets come from the contract (contract.py), never spelled in a template
        _env.globals.update(W=WORDS, words_comment=words_comment())
    return _env


def kernel_config(form):
    k = dict(form.kernel_cfg)
    k.update(name=form.entry, form=form.id, min_ptx=form.min_ptx, targets=form.targets_summary or "any")
    return k


def _tidy(text):
    lines = [ln.rstrip() for ln in text.splitlines()]
    out = []
    for ln in lines:
        if ln == "" and (not out or out[-1] == ""):
            continue
        out.append(ln)
    while out and out[-1] == "":
        out.pop()
    return "\n".join(out) + "\n"


def kernel_text(form):
    """The form's complete .entry, with its provenance comment."""
    text = env().get_template(form.template).render(f=form, q=form.quals, r=form.run, k=kernel_config(form))
    text = _tidy(text)
    if text.count("// ptxcts:test") < 1:
        raise ValueError(f"{form.id}: template {form.template} did not mark the instruction under test")
    return text


def module_text(target, ptx, forms, family=None):
    """A module: .version/.target/.address_size header (templates/module.ptx.j2) + the forms' entries."""
    entries = [kernel_text(f) for f in forms]
    text = env().get_template("module.ptx.j2").render(target=target, ptx=ptx, entries=entries,
                                                      count=len(entries), family=family)
    return _tidy(text)
