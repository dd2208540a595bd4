"""./ptxcts compile [options]: the compile tier's command line."""
import argparse
import concurrent.futures as cf
import datetime
import json
import os
import sys
import time
from collections import defaultdict

from compile import classify as cls
from compile import expectations, judge, manifest, modules, output, progress, ptxas

# Cases per module. Measured here (ptxas 13.0, valid modules at sm_100a/PTX 9.0, best of 3): one entry alone costs
# ~22-25 ms (process start), 16 entries ~7-9 ms each, 32-128 entries a flat ~5-8 ms each, 192-256 entries 13-16 ms
# each (the non-linear growth). 64 sits in the flat part, and leaves many modules to spread over the cores.
DEFAULT_MODULE_SIZE = 64


def _root():
    return os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_args(argv):
    p = argparse.ArgumentParser(prog="./ptxcts compile", description=(
        "The compile tier: ptxas must accept every valid case of the manifest and reject every invalid one. "
        "Writes results.json and junit.xml, exits 1 when a case is fail, compile_error, crash or timeout."))
    p.add_argument("--family", action="append", default=[], help="only this family (repeat, or comma-separate)")
    p.add_argument("--target", action="append", default=[], help="only this target, e.g. sm_90a (repeatable)")
    p.add_argument("--ptx", action="append", default=[], help="only this PTX ISA version, e.g. 8.6 (repeatable)")
    p.add_argument("--case", action="append", default=[], metavar="GLOB", help="only case IDs matching GLOB")
    p.add_argument("--limit", type=int, help="at most N cases, spread evenly over the selection")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel ptxas calls (default: cpu count)")
    p.add_argument("--module-size", type=int, default=DEFAULT_MODULE_SIZE, help="cases per module (default %(default)s)")
    p.add_argument("--out", help="output folder (default results/<run-id>/)")
    p.add_argument("--manifest", default=None, help="manifest folder (default generated/manifest)")
    p.add_argument("--expectations", default=None, help="findings file (default results/expectations/ptxas.toml)")
    p.add_argument("--no-generator", action="store_true",
                   help="assemble modules from the manifest's kernel files instead of ptxcts_gen.module_text")
    p.add_argument("--keep-modules", metavar="DIR",
                   help="keep every module ptxas assembled, with its command, output and line map, in DIR")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    a = p.parse_args(argv)
    a.family = [f for x in a.family for f in x.split(",") if f]
    a.target = [t for x in a.target for t in x.split(",") if t]
    a.ptx = [t for x in a.ptx for t in x.split(",") if t]
    if a.jobs < 1 or a.module_size < 1 or (a.limit is not None and a.limit < 0):
        p.error("--jobs, --module-size must be >= 1 and --limit >= 0")
    return a


# ---- worker processes --------------------------------------------------------------------------------------
_JUDGE = None


def _init(manifest_root, ptxas_path, use_gen, keep):
    global _JUDGE
    m = manifest.load(manifest_root)
    asm = modules.Assembler(m, use_generator=use_gen)
    _JUDGE = judge.Judge(ptxas_path, asm, keep_modules=keep)


def _work(arch, target, ptx, cases):
    before = _JUDGE.calls
    try:
        res = _JUDGE.chunk(arch, target, ptx, cases)
    except Exception as e:  # the harness's own failure: every case of the module says so, none is dropped
        res = {c.id: judge.Outcome(c.id, judge.ERROR, note=f"the compile tier failed on this module: "
                                   f"{type(e).__name__}: {e}", module_cases=len(cases)) for c in cases}
    return res, _JUDGE.calls - before


# ---- support: what the installed ptxas cannot judge at all ---------------------------------------------------
def resolve_arch(target, m, ptxas_path):
    """(-arch value, note) or (None, reason)."""
    known = ptxas.known_archs(ptxas_path)
    row = m.target_row(target) or {}
    arch = row.get("ptxas_arch")
    if isinstance(arch, str) and arch and arch != target:
        if known and arch not in known:
            return None, f"ptxas {ptxas.version(ptxas_path)} does not know -arch={arch} (targets.json's ptxas_arch of {target})"
        return arch, f"assembled with -arch={arch} (targets.json: ptxas_arch of {target})"
    if not known or target in known:
        return target, ""
    for k, v in row.items():
        if "rename" in k and isinstance(v, str) and v in known:
            return v, f"assembled with -arch={v}: ptxas has no {target} ({k} {v} in targets.json)"
        if "rename" in k and isinstance(v, dict):
            to = v.get("to") or v.get("name") or v.get("target")
            if isinstance(to, str) and to in known:
                return to, f"assembled with -arch={to}: ptxas has no {target} (renamed {to} in targets.json)"
    return None, f"ptxas {ptxas.version(ptxas_path)} does not know target {target} (not an allowed -arch)"


def judge_all(chosen, m, mroot, px, use_gen, jobs_n, module_size, advance=lambda n: None, keep=None):
    """Judge every chosen case: (outcomes by case ID, not_supported reasons by case ID, -arch notes by case ID,
    ptxas calls, modules). Cases are grouped by (target, PTX version, validity) and cut into modules of
    module_size; modules are judged in a pool of jobs_n processes."""
    pv = ptxas.version(px)
    outcomes, unsupported, arch_note = {}, {}, {}
    groups = defaultdict(list)
    for c in chosen:
        groups[(c.target, c.ptx, c.valid)].append(c)
    support = {}
    for (t, v, _) in groups:
        if (t, v) in support:
            continue
        arch, note = resolve_arch(t, m, px)
        if arch is None:
            support[(t, v)] = (None, note)
            continue
        bad = ptxas.knows_ptx(px, v)
        support[(t, v)] = (None, f"ptxas {pv} does not know PTX ISA {v}: {bad}") if bad else (arch, note)
    jobs = []
    for (t, v, valid), cs in sorted(groups.items()):
        arch, note = support[(t, v)]
        if arch is None:
            for c in cs:
                unsupported[c.id] = note
            continue
        for c in cs:
            arch_note[c.id] = note
        for i in range(0, len(cs), module_size):
            jobs.append((arch, t, v, cs[i:i + module_size]))
    # biggest first keeps every core busy to the end
    jobs.sort(key=lambda j: -len(j[3]))
    advance(len(unsupported))
    calls = 0
    if jobs:
        with cf.ProcessPoolExecutor(max_workers=jobs_n, initializer=_init, initargs=(mroot, px, use_gen, keep)) as pool:
            futs = [pool.submit(_work, *j) for j in jobs]
            for fut in cf.as_completed(futs):
                res, n = fut.result()
                outcomes.update(res)
                calls += n
                advance(len(res))
    return outcomes, unsupported, arch_note, calls, len(jobs)


def main(argv):
    a = parse_args(argv)
    root = _root()
    mroot = a.manifest or manifest.default_root()
    exp_path = a.expectations or os.path.join(root, "results", "expectations", "ptxas.toml")
    findings = expectations.load(exp_path)
    m = manifest.load(mroot)
    all_ids = [c.id for c in m.cases]
    if a.family:
        unknown = [f for f in a.family if f not in m.families]
        if unknown:
            raise SystemExit(f"compile: unknown family {', '.join(unknown)} (manifest has: {', '.join(m.families)})")
    chosen = [c for c in m.cases if not a.family or c.family in a.family]
    chosen = manifest.select(chosen, a.target, a.ptx, a.case, a.limit)
    if not chosen:
        raise SystemExit("compile: the filters select no case")
    px = ptxas.find()
    pv = ptxas.version(px)
    started_utc = datetime.datetime.now(datetime.timezone.utc)
    rid = output.run_id(started_utc)
    out_dir = a.out or os.path.join(root, "results", rid)
    os.makedirs(out_dir, exist_ok=True)
    # the generator's own module_text is the one way to assemble modules of generated/ (ARCHITECTURE.md section 2);
    # assembling from the kernel files alone is for manifests that are not the generator's (test fixtures)
    use_gen = not a.no_generator and os.path.realpath(mroot) == os.path.realpath(manifest.default_root())
    try:
        asm = modules.Assembler(m, use_generator=use_gen)
    except modules.AssemblyError as e:
        raise SystemExit(f"compile: {e}")
    sys.stderr.write(f"compile: {len(chosen)} cases ({sum(c.valid for c in chosen)} valid, "
                     f"{sum(not c.valid for c in chosen)} invalid) from {mroot}; ptxas {pv} ({px}); "
                     f"modules by {asm.source}; {a.jobs} jobs; findings {exp_path} ({len(findings)})\n")

    prog = progress.Progress(len(chosen), every_s=1e9 if a.quiet else 2.0)
    t0 = time.monotonic()
    outcomes, unsupported, arch_note, calls, nmodules = judge_all(chosen, m, mroot, px, use_gen, a.jobs,
                                                                  a.module_size, prog.advance,
                                                                  a.keep_modules)
    wall = time.monotonic() - t0

    records = []
    for c in chosen:
        base = {"id": c.id, "family": c.family, "form": c.form, "target": c.target, "ptx": c.ptx,
                "load_path": "ptxas"}
        details = {"expect": c.expect, "rules": list(c.rules)}
        if c.id in unsupported:
            rec = dict(base, **{"class": cls.NOT_SUPPORTED, "duration_ms": 0.0, "message": unsupported[c.id]})
        else:
            o = outcomes.get(c.id)
            if o is None or not o.verdict:   # cannot happen; if it does, it is reported, not dropped
                o = judge.Outcome(c.id, judge.ERROR, note="the judge returned no verdict for this case")
            klass, msg, harness_err = cls.classify(c, o, findings)
            details.update({"ptxas": o.verdict, "diagnostics": o.diags, "ptxas_calls": o.calls,
                            "module_cases": o.module_cases})
            if harness_err:
                details["harness_error"] = True
            if arch_note.get(c.id):
                details["arch"] = arch_note[c.id]
            if o.note:
                details["note"] = o.note
            rec = dict(base, **{"class": klass, "duration_ms": round(o.seconds * 1000, 3), "message": msg})
        rec["replay"] = f"./ptxcts compile --case '{c.id}'"
        rec["details"] = details
        records.append(rec)

    finished = datetime.datetime.now(datetime.timezone.utc)
    output.write_results(os.path.join(out_dir, "results.json"), run_id=rid, started=started_utc.isoformat(),
                         finished=finished.isoformat(), ptxas_version=pv, shard={"index": 0, "count": 1},
                         cases=records)
    output.write_junit(os.path.join(out_dir, "junit.xml"), records, run_id=rid, seconds=wall)
    output.write_rule_messages(os.path.join(out_dir, "rule_messages.tsv"), records)
    stale = expectations.stale(findings, [c.id for c in chosen], all_ids)
    with open(os.path.join(out_dir, "expectations.json"), "w") as f:
        json.dump({"file": exp_path, "findings": [
            {"id": x.id, "line": x.line, "verdict": x.verdict, "applied": len(x.applied),
             "stale": next((s["why"] for s in stale if s["id"] == x.id), None)} for x in findings]}, f, indent=1)
        f.write("\n")

    total = progress.summary(records)
    harness_errors = sum(1 for r in records if r["details"].get("harness_error"))
    sys.stderr.write(f"compile: {len(records)} cases in {wall:.1f}s ({len(records) / wall if wall else 0:.0f} cases/s), "
                     f"{calls} ptxas calls, {nmodules} modules\n")
    if harness_errors:
        sys.stderr.write(f"compile: {harness_errors} of the fail cases are harness errors (details.harness_error)\n")
    for f in findings:
        if f.applied:
            sys.stderr.write(f"compile: finding {f.id} applied to {len(f.applied)} case(s)\n")
    for s in stale:
        sys.stderr.write(f"compile: STALE finding {s['id']} ({exp_path}:{s['line']}): {s['why']}\n")
    bad = [r for r in records if r["class"] in (cls.FAIL, cls.COMPILE_ERROR, cls.CRASH, cls.TIMEOUT)]
    for r in bad[:40]:
        sys.stderr.write(f"  {r['class']}: {r['id']}: {r['message']}\n")
    if len(bad) > 40:
        sys.stderr.write(f"  ... and {len(bad) - 40} more in {out_dir}/results.json\n")
    sys.stderr.write(f"compile: results in {out_dir}/results.json and junit.xml\n")
    return 1 if bad else 0
