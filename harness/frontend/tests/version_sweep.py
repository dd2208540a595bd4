"""Every valid form another front-end expresses, asked of a front-end at PTX ISA versions the manifest generates few
cases at: one module per (target, version), compiled, assembled and judged as the tier does (tier.run_cases,
judge.judge), with case IDs of the manifest's shape (FORM@TARGET.ptxNN). Used by the llvm-triton tier test: Triton's
LLVM must write at 8.6-9.3 every form llvm-22 covers at 9.0."""
import os

from framework import boundary, manifest, toolchains
from framework.pool import usable_cpus
from framework.progress import Progress
from ptxcts_gen import model, parse
from ptxcts_gen.frontends import Spelling

from frontend import engines, isolate, judge, resolve, tier
from frontend.coverage import coverage_of
from frontend.run import form_valid_at


def sweep(name, base, target_names, versions, jobs=None):
    """({case ID: (class, message)}, {(target, version): forms asked}) of front-end name over every valid form that
    front-end base expresses, at each target and version where the model says the form is valid."""
    jobs = jobs or usable_cpus()
    all_forms = model.all_forms()
    forms = {f.id: f for f in all_forms}
    not_base = {x["form"] for x in coverage_of(base, all_forms)["unexpressible"]}
    fe = resolve(name)
    tc = toolchains.resolve(fe.ptxas_toolchain)
    eng = engines.engine(fe)
    pool = isolate.Zygote(eng.compile, jobs=jobs)
    batches, counts = [], {}
    try:
        for t in target_names:
            for v in versions:
                kernels = []
                for f in all_forms:
                    if not f.valid or f.id in not_base or not form_valid_at(forms, f.id, t, v):
                        continue
                    s = eng.spell(f)
                    if not isinstance(s, Spelling):   # base expresses it, this one does not: a verdict too
                        kernels.append((None, [manifest.Case(f"{f.id}@{t}.ptx{v.replace('.', '')}", f.family, f.id,
                                                             t, v, "accept")], s.reason))
                        continue
                    kernels.append((f.entry, [manifest.Case(f"{f.id}@{t}.ptx{v.replace('.', '')}", f.family, f.id,
                                                            t, v, "accept")], None))
                counts[(t, v)] = len(kernels)
                batches.append((f"{t}.ptx{v.replace('.', '')}.sweep", t, v, kernels))
        todo = [(key, t, v, [(e, cs) for e, cs, why in ks if why is None], True) for key, t, v, ks in batches]
        answers = tier.run_cases(todo, eng.build, pool, eng.extract, tc, jobs,
                                 Progress(sum(len(b[3]) for b in todo), label="sweep", quiet=True), tier.Stats())
        with boundary.signals_deferred():   # run_cases held the signals for its caller's writing: let them through
            pass
    finally:
        pool.close()
    index = parse.FormIndex(forms.values())
    valid_at = lambda form_id, target, ptx: form_valid_at(forms, form_id, target, ptx)   # noqa: E731
    out = {}
    for key, t, v, kernels in batches:
        for entry, (c,), why in kernels:
            if why is not None:
                out[c.id] = ("unexpressible", why)
                continue
            em, asm = answers[(key, entry)]
            klass, msg, _ = judge.judge(c, c.form, em, asm, index, [], name, f"ptxas {tc.name}", valid_at, ())
            out[c.id] = (klass, msg)
    return out, counts


if __name__ == "__main__":   # python3 -m frontend.tests.version_sweep NAME BASE TARGET,.. VERSION,..
    import sys
    from collections import Counter
    got, n = sweep(sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(","))
    print(dict(Counter(k for k, _ in got.values())), n, file=sys.stderr)
    for cid, (k, m) in sorted(got.items()):
        if k != "pass":
            print(f"{k}: {cid}: {m[:300]}")
    sys.exit(0 if all(k == "pass" for k, _ in got.values()) else 1)
