"""./ptxcts selftest: the run tier against planted faults of the instruction under test.

For each fault kind of generator/ptxcts_gen/faults.py: plant it into every valid form it applies to (one module
set per kind: kernels are independent entries), drop the plants ptxas refuses (they would be a compile error, not
a fault the suite must catch), run the run tier on the GPU with the planted modules (PTXCTS_PLANT_FAULT reaches
`./ptxcts modules`, which the run tier calls), and compare every case with a clean run of the same seed. A fault is
caught at form level when at least one case of the form changes class; a fault that survives is equivalent when
the chapter says the difference cannot be observed (faults.KINDS[k].equivalent), else a hole of the suite. Each
kind runs in stages (selftest/runs.py staged): a form's next case runs only while no earlier one caught the fault;
a crash or watchdog timeout seen beside other workers counts only once the case, run again alone, shows it too
(a form never confirmed is "not judged", counted under no_case).

Host kinds (faults.HOST_KINDS, family "tensor"): nothing is planted into the kernels; the run tier's worker perturbs
one field of each tensor map it encodes (PTXCTS_PLANT_HOST_FAULT, harness/run/src/testbeds/host_faults.cpp) and says per
case what it changed. A form is planted when one of its cases ran with a perturbed map the driver encoded; a case
without a legal perturbation, or whose perturbed map the driver refused, counts as refused. A surviving form is
equivalent when the worker found the model's expectation unchanged for every perturbed case (or the form is a
prefetch), else a hole.

    ./ptxcts selftest [--kind K]... [--family F]... [--seed N] [--out DIR] [--clean DIR]
    ./ptxcts selftest --tier lower [--kind K]... [--family F]... [--target T]... [--out DIR]   (no GPU)
    ./ptxcts selftest --repeat N [--kind K]... [--family F]... [--out DIR]   (silicon's catch rate per kind)

--tier lower (selftest/lower_catch.py): the same plants, assembled and disassembled, judged by the lowering rules
of the original form: the catch that does not depend on timing. --repeat N (selftest/rates.py): the kinds
(default the completion kinds on the completion families) N times against one clean run, caught per repetition.

Writes DIR/selftest.json (per kind and family: planted, refused by ptxas, caught, equivalent, holes, and every
survivor with its planted line) and prints the table; exit 0 when every non-equivalent fault was caught, 1 when a
hole is left, 2 on a usage error, 130 when interrupted (what was measured is written).
"""
import collections
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [os.path.join(ROOT, "generator"), os.path.join(ROOT, "harness")]

from ptxcts_gen import faults  # noqa: E402
from ptxcts_gen.model import all_forms  # noqa: E402
from ptxcts_gen.targets import CHAPTER_PTX  # noqa: E402
from selftest.host_kinds import host_kind  # noqa: E402
from selftest.runs import changed, env_with, run_tier, staged, tally, where_time_went  # noqa: E402
import boundary  # noqa: E402

TARGET, PTX = "sm_90", CHAPTER_PTX
FINE = ("pass", "spec_divergence", "not_supported")
ALL_KINDS = {**faults.KINDS, **faults.HOST_KINDS}
DEFAULT_LOWER_TARGETS = ("sm_90", "sm_80")


def parse(argv):
    p = boundary.ArgumentParser(prog="./ptxcts selftest", description=__doc__.split("\n\n")[0])
    p.add_argument("--kind", action="append", default=[],
                   help=f"only these fault kinds ({', '.join(ALL_KINDS)})")
    p.add_argument("--family", action="append", default=[], help="only forms of these families")
    p.add_argument("--seed", type=int, default=1, help="the run tier's seed (default 1)")
    p.add_argument("--out", help="output folder (default results/<stamp>-selftest)")
    p.add_argument("--clean", metavar="DIR", help="reuse this clean run (results.json of the same seed)")
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
    p.add_argument("--repeat", type=int, metavar="N",
                   help="measure silicon's catch rate: the kinds (default the completion kinds, on the completion "
                        "families) N times on the GPU, one clean run; writes DIR/rates.json (selftest/rates.py)")
    p.add_argument("--cases-per-form", type=int, default=2, metavar="N",
                   help="run at most N of each form's clean-passing cases per fault, the largest transfers first "
                        "(default 2; 0: all)")
    p.add_argument("--budget", type=float, default=540, metavar="S",
                   help="start no fault kind after S seconds (default 540: the whole self-test within 10 minutes)")
    a = p.parse_args(argv)
    for name, value in vars(a).items():   # an empty value (an unset shell variable) never means "all"
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and not v.strip():
                p.error(f"--{name.replace('_', '-')} '': an empty value (give one, or leave the option out)")
    lower_only = [o for o in ("target", "toolchain", "nvdisasm") if getattr(a, o)]
    run_only = [o for o, default in (("seed", 1), ("clean", None), ("cases_per_form", 2), ("budget", 540),
                                     ("repeat", None)) if getattr(a, o) != default]
    if a.tier == "run" and lower_only:
        p.error(f"--{lower_only[0]} goes with --tier lower")
    if a.tier == "lower" and run_only:
        p.error(f"--{run_only[0].replace('_', '-')} goes with --tier run (the GPU), not --tier lower")
    if a.jobs is None:
        from compile.pool import usable_cpus   # the lowering tier's own default (./ptxcts lower -j)
        a.jobs = 12 if a.tier == "run" else usable_cpus()
    if a.repeat is not None and not 1 <= a.repeat <= 1000:
        p.error(f"--repeat {a.repeat}: must be 1..1000")
    if a.repeat is not None and a.clean is not None:
        p.error("--repeat makes its own clean run (once, reused by every repetition): leave --clean out")
    if a.tier == "lower":
        from ptxcts_gen.targets import BY_NAME
        bad = [t for t in a.target if t not in BY_NAME]
        if bad:
            p.error(f"--target {', '.join(bad)}: unknown target (known: {', '.join(sorted(BY_NAME))})")
        bad = [k for k in a.kind if k in faults.HOST_KINDS]
        if bad:
            p.error(f"--kind {', '.join(bad)}: a host kind perturbs the tensor map at run time; nothing of it "
                    f"reaches the lowering tier (kernel kinds: {', '.join(faults.KINDS)})")
    bad = [k for k in a.kind if k not in ALL_KINDS]
    if bad:
        p.error(f"--kind {', '.join(bad)}: unknown fault kind (known: {', '.join(ALL_KINDS)})")
    fams = sorted({f.family for f in all_forms()})
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
        from results import refuse_existing_run
        from results.errors import UsageError
        try:
            refuse_existing_run(a.out, "--out")
        except UsageError as e:
            p.error(str(e))
    if a.clean is not None and not os.path.isfile(os.path.join(a.clean, "results.json")):
        p.error(f"--clean {a.clean}: no results.json there (a clean run of the same seed)")
    return a


def modules(kind, allow, out, target=TARGET, families=()):
    """Render the run tier's modules for target into out, with kind planted (None: clean) into the forms the file
    allow names (None: every form it applies to); {form: plant}. families: only these families' modules."""
    env = env_with(PTXCTS_PLANT_FAULT=kind, PTXCTS_PLANT_FAULT_FORMS=allow)
    if kind is None:
        env.pop("PTXCTS_PLANT_FAULT", None)
        env.pop("PTXCTS_PLANT_FAULT_FORMS", None)
    argv = [sys.executable, os.path.join(ROOT, "ptxcts"), "modules", "--target", target, "--ptx", PTX,
            "--valid-only", "--max-entries", "64", "--out", out]
    for fam in families:
        argv += ["--family", fam]
    r = subprocess.run(argv, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"selftest: ./ptxcts modules with fault {kind} failed: {r.stderr.strip()}")
    if kind is None:
        return {}
    with open(os.path.join(out, "faults.json")) as f:
        return json.load(f)["planted"]


def refused_by_ptxas(out, ptxas, target=TARGET, only=None):
    """Forms whose planted kernel ptxas refuses: their entries' line ranges hold an error. only: a set of form IDs
    (the planted ones); a module holding none of them is not assembled (nothing of it can be refused as a plant)."""
    from compile import diagnostics
    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    refused = set()
    for mod in index["modules"]:
        if only is not None and not any(e["module"] == mod and e["form"] in only for e in index["entries"].values()):
            continue
        path = os.path.join(out, mod)
        r = subprocess.run([ptxas, f"-arch={target}", path, "-o", os.devnull], capture_output=True, text=True)
        if r.returncode == 0:
            continue
        lines = [d.line for d in diagnostics.parse(r.stdout + r.stderr) if d.rejects and d.line]
        for entry, e in index["entries"].items():
            if e["module"] == mod and any(e["line_first"] <= ln <= e["line_last"] for ln in lines):
                refused.add(e["form"])
        if not lines:   # refused without a line: every form of the module is suspect
            refused.update(e["form"] for e in index["entries"].values() if e["module"] == mod)
    return refused


def plant_kind(kind, forms, ptxas, tmp, target=TARGET, keep=None, cache=None):
    """Plant kind into the run tier's modules of forms ({form ID: Form}) for target, as the self-test runs them
    (tmp/m, the allow file tmp/forms.txt): plants ptxas refuses are dropped and the modules rendered again until
    ptxas takes every plant left. keep(form ID): whether a plant ptxas takes is kept (default: all). Returns
    (planted, refused, live): {form: plant} of every plant, the form IDs ptxas refused, {form: plant} of the kept
    plants ptxas takes. On return the allow file names the live forms and ptxas takes every plant of the modules in
    tmp/m (with keep=None, they are exactly the live plants). cache: a dict kept across calls in one process (the
    repetitions of selftest/rates.py): a kind planted before for the same forms, target and ptxas is not planted
    and assembled again, and tmp/m is not written (the allow file is)."""
    allow, mdir = os.path.join(tmp, "forms.txt"), os.path.join(tmp, "m")
    key = (kind, target, ptxas, tuple(sorted(forms)))
    if cache is not None and key in cache:
        planted, refused = cache[key]
        live = {fid: p for fid, p in planted.items() if fid not in refused and (keep is None or keep(fid))}
        with open(allow, "w") as f:
            f.write("\n".join(sorted(live)) + "\n")
        return planted, refused, live
    fams = sorted({forms[fid].family for fid in forms})
    with open(allow, "w") as f:
        f.write("\n".join(forms) + "\n")
    planted = {fid: p for fid, p in modules(kind, allow, mdir, target, fams).items() if fid in forms}
    refused, live = set(), {}
    for _ in range(8):   # a fatal error hides the lines after it: check again until ptxas takes all
        new = refused_by_ptxas(mdir, ptxas, target, set(planted)) & set(planted)
        refused |= new
        live = {fid: p for fid, p in planted.items() if fid not in refused and (keep is None or keep(fid))}
        with open(allow, "w") as f:
            f.write("\n".join(sorted(live)) + "\n")
        if not new:
            break
        modules(kind, allow, mdir, target, fams)
    if cache is not None:
        cache[key] = (planted, refused)
    return planted, refused, live


def main(argv, plants=None):
    """plants: selftest/rates.py's cache of plants across its repetitions (plant_kind's cache)."""
    a = parse(argv)
    if a.tier == "lower":
        from selftest import lower_catch
        return lower_catch.main(a)
    if a.repeat is not None:
        from selftest import rates
        return rates.main(a)
    import toolchains
    ptxas = toolchains.resolve().ptxas
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = a.out or os.path.join(ROOT, "results", f"{stamp}-selftest")
    os.makedirs(out, exist_ok=True)
    forms = {f.id: f for f in all_forms() if f.valid and (not a.family or f.family in a.family)}
    kinds = a.kind or list(ALL_KINDS)
    t0 = time.monotonic()
    families = sorted({f.family for f in forms.values()})
    if a.clean:
        import results
        clean_doc = results.load(os.path.join(a.clean, "results.json"))   # InputError (exit 3) names the field
        clean = {(c["id"], c["load_path"]): c for c in clean_doc.pop("cases")}
    else:
        print(f"selftest: clean run of {len(families)} families (cubin, seed {a.seed})", flush=True)
        clean, clean_doc = run_tier(os.path.join(out, "clean"), families, a.seed, a.jobs)
    # A fault is caught when a case that passes clean changes class; only those cases run (no expected traps, which
    # cost a worker restart each), on the cubin path.
    by_form = collections.defaultdict(list)
    for key, c in clean.items():
        if key[1] == "cubin" and c["class"] == "pass":
            by_form[c["form"]].append(key)
    if a.cases_per_form:
        # the largest transfers first: they carry the most data and every edge value (a 16-byte case can hold
        # only values where add.u32 and add.s32, or or and xor, agree); then the rest by ID
        def weight(key):
            m = re.search(r"#.*?size_(\d+)", key[0])
            return (-(int(m.group(1)) if m else 0), key)
        for fid in by_form:
            by_form[fid] = sorted(by_form[fid], key=weight)[:a.cases_per_form]
    # the device, driver and toolchain the score comes from: the clean run's
    tc = clean_doc.get("toolchain") or {}
    report = {"schema": "ptxcts-selftest", "version": 1, "started": stamp, "seed": a.seed, "target": TARGET,
              "ptx": PTX, "kinds": {}, "interrupted": False, "device": (clean_doc.get("device") or {}).get("name"),
              "driver": tc.get("driver"), "toolchain": f"{tc.get('name')} (ptxas {tc.get('ptxas')})",
              "clean_run": {"cases": len(clean), "run_tier": where_time_went(clean_doc)}}
    def save():
        from results import atomic_write
        report["seconds"] = round(time.monotonic() - t0, 1)
        with boundary.signals_deferred():
            atomic_write(os.path.join(out, "selftest.json"), json.dumps(report, indent=1, sort_keys=True) + "\n")

    try:
        for i, kind in enumerate(kinds, 1):
            if time.monotonic() - t0 > a.budget:
                report["skipped_for_budget"] = kinds[i - 1:]
                print(f"selftest: budget of {a.budget:.0f} s spent: kinds not run: {', '.join(kinds[i - 1:])}")
                break
            k0 = time.monotonic()
            if kind in faults.HOST_KINDS:
                # a perturbed map can hang a load (a box that no longer matches the expected transaction bytes):
                # each host kind gets its share of the remaining budget as the run tier's deadline
                share = max(30.0, (a.budget - (time.monotonic() - t0)) / (len(kinds) - i + 1))
                report["kinds"][kind] = host_kind(kind, forms, by_form, clean, out, a, share)
                save()
                print_kind(i, len(kinds), kind, report["kinds"][kind], k0, t0)
                continue
            with tempfile.TemporaryDirectory(prefix=f"ptxcts-selftest-{kind}-") as tmp:
                planted, refused, live = plant_kind(kind, forms, ptxas, tmp, keep=lambda fid: bool(by_form.get(fid)),
                                                    cache=plants)
                allow = os.path.join(tmp, "forms.txt")
                fams = sorted({forms[fid].family for fid in live})
                faulty, timing = staged(os.path.join(out, kind), {f: by_form[f] for f in live}, clean,
                                        lambda o, ids, alone: run_tier(o, fams, a.seed, 1 if alone else a.jobs, kind,
                                                                       allow, ids, alone=alone))
            rows = tally()
            survivors = []
            for fid in planted:
                rows[forms[fid].family]["planted"] += 1
            for fid in refused:
                rows[forms[fid].family]["refused"] += 1
            unconfirmed = []
            for fid, p in sorted(live.items()):
                fam = forms[fid].family
                confirmed, beside = changed(by_form[fid], clean, faulty)
                if confirmed:
                    rows[fam]["caught"] += 1
                    continue
                if beside or any(faulty.get(k, {}).get("class", "skipped") == "skipped" for k in by_form[fid]):
                    rows[fam]["no_case"] += 1   # not judged: a crash not confirmed alone, or a case not run
                    unconfirmed.append(fid)
                    continue
                reason = faults.KINDS[kind].equivalent(forms[fid])
                rows[fam]["equivalent" if reason else "holes"] += 1
                survivors.append({"form": fid, "family": fam, "planted": p["to"], "was": p["from"],
                                  "equivalent": reason, "cases": len(by_form[fid])})
            for fid in set(planted) - set(refused) - set(live):
                rows[forms[fid].family]["no_case"] += 1
            report["kinds"][kind] = {"what": faults.KINDS[kind].what, "families": dict(rows), "survivors": survivors,
                                     "seconds": round(time.monotonic() - k0, 1),
                                     "cases_run": sum(1 for c in faulty.values() if c["class"] != "skipped"),
                                     "run_tier": timing,
                                     "not_judged": unconfirmed}
            save()
            print_kind(i, len(kinds), kind, report["kinds"][kind], k0, t0)
    except KeyboardInterrupt:
        report["interrupted"] = True
        print(f"\nselftest: interrupted after {len(report['kinds'])} of {len(kinds)} kinds; writing what was measured")
    save()
    holes = summary(report)
    print(f"selftest: {out}/selftest.json ({report['seconds']} s)")
    if report["interrupted"]:
        return boundary.interrupt_exit_code()
    return 1 if holes else 0


def print_kind(i, n, kind, k, k0, t0):
    rows = k["families"].values()
    done = time.monotonic() - t0
    print(f"selftest: [{i}/{n}] {kind}: planted {sum(r['planted'] for r in rows)}, refused "
          f"{sum(r['refused'] for r in rows)}, caught {sum(r['caught'] for r in rows)}, equivalent "
          f"{sum(r['equivalent'] for r in rows)}, holes {sum(r['holes'] for r in rows)} "
          f"({time.monotonic() - k0:.0f} s; {done:.0f} s elapsed, ~{done / i * (n - i):.0f} s left)", flush=True)


def summary(report):
    """The table per family and kind; returns the number of holes."""
    print(f"\n{'family':30} {'kind':15} {'planted':>7} {'refused':>7} {'caught':>6} {'equiv':>5} {'holes':>5} "
          f"{'caught %':>8}")
    holes = 0
    for kind, k in report["kinds"].items():
        for fam, r in sorted(k["families"].items()):
            denom = r["caught"] + r["holes"]
            pct = f"{100.0 * r['caught'] / denom:.1f}" if denom else "-"
            print(f"{fam:30} {kind:15} {r['planted']:7} {r['refused']:7} {r['caught']:6} {r['equivalent']:5} "
                  f"{r['holes']:5} {pct:>8}")
            holes += r["holes"]
    for kind, k in report["kinds"].items():
        for s in k["survivors"]:
            tag = "equivalent: " + s["equivalent"] if s["equivalent"] else "HOLE"
            print(f"  {kind}: {s['form']}: {tag}\n      {s['was']}\n   -> {' / '.join(s['planted'])}")
            if s.get("model_change"):
                print(f"      the model expects: {s['model_change']}")
    return holes


if __name__ == "__main__":
    sys.exit(boundary.run("selftest", main, sys.argv[1:]))
