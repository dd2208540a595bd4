"""Lowering the planned modules in a pool of worker processes: each assembles its module with the generator's
module_text, runs ptxas -lineinfo and nvdisasm -c -gp, and returns, per form, the SASS instructions nvdisasm
attributes to the form's `// ptxcts:test` line(s)."""
import concurrent.futures as cf
import multiprocessing

from framework import modules
from framework import pool as framework_pool
from framework.toolchains import nvdisasm as disasm, sass
from ptxcts_gen.lowering import rules_for
from ptxcts_gen.lowering.rules import PLACE_PTX

# What the workers share, set before the pool forks them (the manifest and the generator's model are loaded once,
# in the parent, and inherited).
_W = {}


def lower_cases(asm, ptxas, nvdisasm, arch, target, ptx, cases):
    """{form ID: {"instrs": [[addr, text, line]], "line": PTX text of the test line}} or {form ID: {"error": ...}}.
    A module ptxas refuses is lowered again one form at a time, so that one refusal costs one form only."""
    mod = modules.build(asm, target, ptx, cases)
    try:
        listing = disasm.lower_module(ptxas, nvdisasm, arch, mod.text)
    except disasm.ToolFailed as e:
        if len(cases) > 1:
            out = {}
            for c in cases:
                out.update(lower_cases(asm, ptxas, nvdisasm, arch, target, ptx, [c]))
            return out
        return {cases[0].form: {"error": str(e)}}
    if not listing.has_line_info:
        raise sass.SassError(f"the cubin of the {target} module has no line info (no `//## File "
                             f"\".nv_debug_ptx_txt\"` line in nvdisasm -c -gp's output): was it assembled with "
                             f"ptxas -lineinfo?")
    out = {}
    for sp in mod.spans:
        got = listing.at_lines(sp.kernel, sp.instr_lines)
        out[sp.case.form] = {"instrs": [[i.addr, i.text, i.ptx_line] for i in got],
                             "line": " ".join(mod.line_text(n) for n in sp.instr_lines)}
        if _wants_place(asm, sp.case.form, target):
            out[sp.case.form]["around"] = _around(mod, sp, listing)
    return out


def _wants_place(asm, form_id, target):
    form = asm.manifest.forms.get(form_id)
    return bool(form) and any(d.between for _, d in rules_for(form, target))


def _around(mod, sp, listing):
    """The SASS of the lines a Demand's `between` speaks of (rules.PLACE_PTX): the nearest line of the entry before
    the test line that is a generic write, the nearest after it that is an async-proxy operation:
    {"before": [[addr, text, line]], "after": [...], "lines": [PTX before, PTX after]} (a line not in the entry:
    no instructions, its text "")."""
    starts, ops, groups = PLACE_PTX

    def op(n):
        return modules.opcode(mod.line_text(n))
    first, last = min(sp.instr_lines), max(sp.instr_lines)
    before = next((n for n in range(first - 1, sp.first - 1, -1) if op(n).startswith(starts)), None)
    after = next((n for n in range(last + 1, sp.last + 1)
                  if op(n).startswith(ops) and not op(n).startswith(groups)), None)
    return {"before": [[i.addr, i.text, i.ptx_line] for i in listing.at_lines(sp.kernel, [before])],
            "after": [[i.addr, i.text, i.ptx_line] for i in listing.at_lines(sp.kernel, [after])],
            "lines": [mod.line_text(before), mod.line_text(after)]}


def _work(arch, target, ptx, cases):
    return lower_cases(_W["asm"], _W["ptxas"], _W["nvdisasm"], arch, target, ptx, cases)


def run(jobs, manifest, use_gen, ptxas, nvdisasm, workers, advance, results=None):
    """{(form, target): result} for every job; advance(n) after each module. `results` (a dict), when given, is
    filled as the modules come back: what was lowered before an interrupt is kept there."""
    results = {} if results is None else results
    _W.update(asm=modules.Assembler(manifest, use_generator=use_gen), ptxas=ptxas, nvdisasm=nvdisasm)
    pool = cf.ProcessPoolExecutor(max_workers=framework_pool.fit_descriptors(workers, "lower"),
                                  initializer=framework_pool.worker_signals,
                                  mp_context=multiprocessing.get_context("fork"))
    try:
        futs = framework_pool.submit_all(pool, _work, jobs)
        for fut in cf.as_completed(futs):
            arch, target, ptx, cases = futs[fut]
            res = fut.result()
            for form, r in res.items():
                results[(form, target)] = r
            advance(len(cases))
    except BaseException:
        framework_pool.stop(pool)
        raise
    pool.shutdown(wait=True)
    return results
