"""The options of ./ptxcts selftest, each checked before anything runs (a usage error exits 2): the tier (run,
on the GPU, or lower, on the CPU), the fault kinds and families, and what each tier alone takes."""
import os

from ptxcts_gen import faults
from ptxcts_gen import load_forms
from framework import given
from framework import boundary

ABOUT = "./ptxcts selftest: the run tier against planted faults of the instruction under test."
ALL_KINDS = {**faults.KINDS, **faults.HOST_KINDS}
DEFAULT_LOWER_TARGETS = ("sm_90", "sm_80")


def parse(argv):
    p = boundary.ArgumentParser(prog="./ptxcts selftest", description=ABOUT)
    p.add_argument("--kind", action="append", default=[],
                   help=f"only these fault kinds ({', '.join(ALL_KINDS)})")
    p.add_argument("--family", action="append", default=[], help="only forms of these families")
    p.add_argument("--seed", type=int, default=1, help="the run tier's seed (default 1)")
    p.add_argument("--out", path=given.NEW_FOLDER, help="output folder (default results/<stamp>-selftest)")
    p.add_argument("--clean", path=given.FOLDER, metavar="DIR", help="reuse this clean run (results.json of the same seed; with "
                   "--repeat, every repetition reuses it: self-tests side by side share one)")
    p.add_argument("--jobs", type=int, default=None,
                   help="run-tier workers (default 12); --tier lower: ptxas/nvdisasm processes (default: the usable "
                        "cores, as ./ptxcts lower)")
    p.add_argument("--tier", choices=("run", "lower"), default="run",
                   help="run: plant into the run tier's kernels and run them on the GPU (default); lower: judge the "
                        "planted kernels' SASS by the lowering rules, no GPU (selftest/lower_catch.py)")
    p.add_argument("--target", action="append", default=[],
                   help=f"--tier lower: the targets to assemble for (default {', '.join(DEFAULT_LOWER_TARGETS)})")
    p.add_argument("--toolchain", metavar="NAME|PATH", help="--tier lower: the toolchain (default $PTXCTS_TOOLCHAIN, "
                   "else the installed CUDA toolkit)")
    p.add_argument("--nvdisasm", metavar="PATH|RELEASE", help="--tier lower: the disassembler (as ./ptxcts lower)")
    p.add_argument("--ptx", metavar="V", help="--tier lower: the PTX ISA version of the planted modules (default the "
                   "chapter's; a later one plants the forms of that version too, e.g. 9.5 with --toolchain 13.5)")
    p.add_argument("--repeat", type=int, metavar="N",
                   help="measure silicon's catch rate: the kinds (default the completion kinds, on the completion "
                        "families) N times on the GPU, one clean run; writes DIR/rates.json (selftest/rates.py)")
    p.add_argument("--cases-per-form", type=int, default=2, metavar="N",
                   help="run at most N of each form's clean-passing cases per fault, the largest transfers first "
                        "(default 2; 0: all)")
    p.add_argument("--budget", type=float, default=540, metavar="S",
                   help="start no fault kind after S seconds (default 540: the whole self-test within 10 minutes)")
    p.add_argument("--resume", path=given.RESUME, metavar="DIR", help="--tier lower: finish the interrupted self-test in DIR (its "
                   "selftest-lower.json): only the targets and kinds not measured yet; give the same selection")
    a = p.parse_args(argv)
    for name, value in vars(a).items():   # an empty value (an unset shell variable) never means "all"
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and not v.strip():
                p.error(f"--{name.replace('_', '-')} '': an empty value (give one, or leave the option out)")
    lower_only = [o for o in ("target", "toolchain", "nvdisasm", "resume", "ptx") if getattr(a, o)]
    if a.resume and a.out:
        p.error("--resume DIR writes into DIR: not with --out")
    run_only = [o for o, default in (("seed", 1), ("clean", None), ("cases_per_form", 2), ("budget", 540),
                                     ("repeat", None)) if getattr(a, o) != default]
    if a.tier == "run" and lower_only:
        p.error(f"--{lower_only[0]} goes with --tier lower")
    if a.tier == "lower" and run_only:
        p.error(f"--{run_only[0].replace('_', '-')} goes with --tier run (the GPU), not --tier lower")
    if a.jobs is None:
        from framework.pool import usable_cpus   # the lowering tier's own default (./ptxcts lower -j)
        a.jobs = 12 if a.tier == "run" else usable_cpus()
    if a.repeat is not None and not 1 <= a.repeat <= 1000:
        p.error(f"--repeat {a.repeat}: must be 1..1000")
    if a.tier == "lower":
        from ptxcts_gen.targets import BY_NAME
        bad = [t for t in a.target if t not in BY_NAME]
        if bad:
            p.error(f"--target {', '.join(bad)}: unknown target (known: {', '.join(sorted(BY_NAME))})")
        from ptxcts_gen.targets import PTX_VERSIONS
        if a.ptx is not None and a.ptx not in PTX_VERSIONS:
            p.error(f"--ptx {a.ptx}: unknown PTX ISA version (known: {', '.join(PTX_VERSIONS)})")
        bad = [k for k in a.kind if k in faults.HOST_KINDS]
        if bad:
            p.error(f"--kind {', '.join(bad)}: a host kind perturbs the tensor map at run time; nothing of it "
                    f"reaches the lowering tier (kernel kinds: {', '.join(faults.KINDS)})")
    bad = [k for k in a.kind if k not in ALL_KINDS]
    if bad:
        p.error(f"--kind {', '.join(bad)}: unknown fault kind (known: {', '.join(ALL_KINDS)})")
    fams = sorted({f.family for f in load_forms()})
    bad = [f for f in a.family if f not in fams]
    if bad:
        p.error(f"--family {', '.join(bad)}: unknown family (known: {', '.join(fams)})")
    if a.seed < 0:
        p.error(f"--seed {a.seed}: must be >= 0")
    if not 1 <= a.jobs <= 256:
        p.error(f"--jobs {a.jobs}: must be 1..256")
    if a.cases_per_form < 0:
        p.error(f"--cases-per-form {a.cases_per_form}: must be >= 0")
    if not 0 < a.budget < float("inf"):   # also NaN
        p.error(f"--budget {a.budget}: must be a number of seconds > 0")
    if a.seed >= 2 ** 64:
        p.error(f"--seed {a.seed}: must be < 2^64")
    if a.out is not None:
        from framework.documents import refuse_existing_run
        from framework.documents.errors import UsageError
        try:
            refuse_existing_run(a.out, "--out")
        except UsageError as e:
            p.error(str(e))
    if a.clean is not None and not os.path.isfile(os.path.join(a.clean, "results.json")):
        p.error(f"--clean {a.clean}: no results.json there (a clean run of the same seed)")
    return a
