"""./ptxcts compile [options]: the compile tier's command line."""
import argparse
import concurrent.futures as cf
import datetime
import json
import multiprocessing
import os
import re
import signal
import socket
import subprocess
import sys
import time
import types
from collections import defaultdict

import results
import results.errors
import toolchains
from compile import backends
from compile import classify as cls
from compile import expectations, judge, manifest, modules, output, progress
from ptxcts_gen.targets import CHAPTER_PTX

# Cases per module. Measured here (ptxas 13.0, valid modules at sm_100a/PTX 9.0, best of 3): one entry alone costs
# ~22-25 ms (process start), 16 entries ~7-9 ms each, 32-128 entries a flat ~5-8 ms each, 192-256 entries 13-16 ms
# each (the non-linear growth). 64 sits in the flat part, and leaves many modules to spread over the cores.
DEFAULT_MODULE_SIZE = 64


def _root():
    return os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def parse_args(argv):
    p = argparse.ArgumentParser(prog="./ptxcts compile", description=(
        "The compile tier: the toolchain's compilers must accept every valid case of the manifest and reject every "
        "invalid one. Writes results.json and junit.xml; exits 1 when a case is fail, compile_error, crash or "
        "timeout, 2 on a usage error, 3 on a malformed input file, 130 when interrupted."))
    p.add_argument("--toolchain", metavar="NAME|PATH",
                   help=f"the toolchain to judge (default ${toolchains.ENV}, else the installed CUDA toolkit)")
    p.add_argument("--verdicts", default="ptxas", metavar="LIST",
                   help="compilers whose verdicts to record, comma-separated: ptxas, nvjitlink, driver (the GPU "
                        "driver's JIT; needs a GPU) (default: %(default)s)")
    p.add_argument("--family", action="append", default=[], help="only this family (repeat, or comma-separate)")
    p.add_argument("--target", action="append", default=[], help="only this target, e.g. sm_90a (repeatable)")
    p.add_argument("--ptx", action="append", default=[], help="only this PTX ISA version, e.g. 8.6 (repeatable)")
    p.add_argument("--case", action="append", default=[], metavar="GLOB", help="only case IDs matching GLOB")
    p.add_argument("--valid-only", action="store_true", help="only the cases expected to be accepted")
    p.add_argument("--limit", type=int, help="at most N cases, spread evenly over the selection")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel compiler calls (default: cpu count)")
    p.add_argument("--module-size", type=int, default=DEFAULT_MODULE_SIZE, help="cases per module (default %(default)s)")
    p.add_argument("--out", help="output folder (default results/<run-id>/)")
    p.add_argument("--resume", metavar="DIR", help="finish the interrupted run in DIR (same selection, same run ID)")
    p.add_argument("--manifest", default=None, help="manifest folder (default generated/manifest)")
    p.add_argument("--expectations", default=None, help="findings file (default results/expectations/ptxas.toml)")
    p.add_argument("--no-generator", action="store_true",
                   help="assemble modules from the manifest's kernel files instead of ptxcts_gen.module_text")
    p.add_argument("--keep-modules", metavar="DIR",
                   help="keep every module the compilers assembled, with the command, output and line map, in DIR")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    a = p.parse_args(argv)
    a.family = [f for x in a.family for f in x.split(",") if f]
    a.target = [t for x in a.target for t in x.split(",") if t]
    a.ptx = [t for x in a.ptx for t in x.split(",") if t]
    a.verdicts = [v for v in a.verdicts.split(",") if v]
    bad = [v for v in a.verdicts if v not in backends.LOAD_PATHS]
    if bad or not a.verdicts:
        p.error(f"--verdicts {','.join(bad) or '(empty)'}: each must be one of {', '.join(backends.LOAD_PATHS)}")
    if a.jobs < 1:
        p.error(f"--jobs {a.jobs}: must be >= 1")
    if a.module_size < 1:
        p.error(f"--module-size {a.module_size}: must be >= 1")
    if a.limit is not None and a.limit < 1:
        p.error(f"--limit {a.limit}: must be >= 1")
    for v in a.ptx:
        if not re.fullmatch(r"\d+\.\d+", v):
            p.error(f"--ptx {v}: a PTX ISA version is MAJOR.MINOR, e.g. 8.6")
    for t in a.target:
        if not re.fullmatch(r"sm_\d+[af]?", t):
            p.error(f"--target {t}: a target is sm_NN, sm_NNa or sm_NNf")
    if a.resume and a.out and os.path.realpath(a.resume) != os.path.realpath(a.out):
        p.error("--resume DIR writes into DIR: give no other --out")
    return a


class Usage(Exception):
    """A usage error found after parsing (exit 2)."""


# ---- worker processes --------------------------------------------------------------------------------------
_JUDGE = None


def _init(manifest_root, backend_spec, use_gen, keep):
    global _JUDGE
    # Ctrl-C goes to the whole process group: the parent stops the workers; a worker does not print a traceback
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    m = manifest.load(manifest_root)
    asm = modules.Assembler(m, use_generator=use_gen)
    load_path, ptxas_path, nvjitlink_path = backend_spec
    tc = types.SimpleNamespace(ptxas=ptxas_path, nvjitlink=nvjitlink_path)
    _JUDGE = judge.Judge(backends.make(load_path, tc), asm, keep_modules=keep)


def _work(arch, target, ptx, cases):
    before = _JUDGE.calls
    try:
        res = _JUDGE.chunk(arch, target, ptx, cases)
    except Exception as e:  # the harness's own failure: every case of the module says so, none is dropped
        res = {c.id: judge.Outcome(c.id, judge.ERROR, note=f"the compile tier failed on this module: "
                                   f"{type(e).__name__}: {e}", module_cases=len(cases)) for c in cases}
    return res, _JUDGE.calls - before


# ---- support: what this toolchain / compiler cannot judge at all ---------------------------------------------
def support(tc, load_path, target, ptx, case, device_check=None):
    """(-arch, note) when the compiler can be asked about the case, else (None, the not_supported reason).
    A toolchain that refuses the `.target` line at this PTX version cannot say anything about the instruction
    under test, except for cases whose only rules concern that line (they are assembled, and a refusal of the
    line is their expected rejection)."""
    if load_path == "driver":
        why = device_check(target) if device_check else None
        return (None, f"driver JIT: {why}") if why else (target, "")
    why = tc.why_not(target, ptx)
    arch = tc.arch(target)
    if why and not (arch and tc.knows_ptx(ptx) and not case.valid and set(case.rules) <= cls.TARGET_LINE_RULES):
        return None, why
    if load_path == "nvjitlink" and not tc.nvjitlink:
        return None, f"toolchain {tc.name} has no nvJitLink library"
    note = f"assembled with -arch={arch} (toolchain {tc.name}: .target {target})" if arch != target else ""
    return arch, note


def judge_all(chosen, m, mroot, tc, load_path, use_gen, jobs_n, module_size, advance=lambda n: None, keep=None,
              device_check=None, sink=None):
    """Judge every chosen case with one compiler: (outcomes by case ID, not_supported reasons by case ID, -arch
    notes by case ID, compiler calls, modules). Cases are grouped by (target, PTX version, validity, -arch) and
    cut into modules of module_size; modules are judged in a pool of jobs_n processes. sink (a dict), when given,
    receives the three maps as they fill, so that what was judged before an interrupt is kept."""
    sink = {} if sink is None else sink
    outcomes, unsupported, arch_note = sink.setdefault("outcomes", {}), sink.setdefault("unsupported", {}), \
        sink.setdefault("arch_note", {})
    groups = defaultdict(list)
    for c in chosen:
        arch, note = support(tc, load_path, c.target, c.ptx, c, device_check)
        if arch is None:
            unsupported[c.id] = note
            continue
        if note:
            arch_note[c.id] = note
        groups[(c.target, c.ptx, c.valid, arch)].append(c)
    jobs = []
    for (t, v, valid, arch), cs in sorted(groups.items()):
        for i in range(0, len(cs), module_size):
            jobs.append((arch, t, v, cs[i:i + module_size]))
    # biggest first keeps every core busy to the end
    jobs.sort(key=lambda j: -len(j[3]))
    advance(len(unsupported))
    calls = 0
    if jobs:
        spec = (load_path, tc.ptxas, tc.nvjitlink)
        # the driver's JIT needs a CUDA context per worker, which must not be inherited through fork
        ctx = multiprocessing.get_context("spawn" if load_path == "driver" else "fork")
        pool = cf.ProcessPoolExecutor(max_workers=jobs_n, mp_context=ctx, initializer=_init,
                                      initargs=(mroot, spec, use_gen, keep))
        try:
            futs = {pool.submit(_work, *j): j for j in jobs}
            for fut in cf.as_completed(futs):
                try:
                    res, n = fut.result()
                except cf.process.BrokenProcessPool as e:
                    # a compiler that kills its worker (nvJitLink in process): the module's cases crash
                    res = {c.id: judge.Outcome(c.id, judge.CRASH, note=f"the {load_path} worker died: {e}",
                                               module_cases=len(futs[fut][3])) for c in futs[fut][3]}
                    n = 0
                except judge.Interrupted:
                    raise KeyboardInterrupt from None
                outcomes.update(res)
                calls += n
                advance(len(res))
        except KeyboardInterrupt:
            # stop now: the workers ignore SIGINT; their compilers got it and die, and nothing more is collected
            for p in list((getattr(pool, "_processes", None) or {}).values()):
                p.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    return outcomes, unsupported, arch_note, calls, len(jobs)


def _result(c, load_path, tc, klass, message, duration_ms=0.0, details=None):
    """One case's result record, with its replay command naming the toolchain and the compiler."""
    return {"id": c.id, "family": c.family, "form": c.form, "target": c.target, "ptx": c.ptx, "load_path": load_path,
            "class": klass, "duration_ms": duration_ms, "message": message,
            "replay": f"./ptxcts compile --toolchain {tc.name} --verdicts {load_path} --case '{c.id}'",
            "details": dict({"expect": c.expect, "rules": list(c.rules)}, **(details or {}))}


def _record(c, load_path, tc, unsupported, outcomes, arch_note, findings, compiler):
    if c.id in unsupported:
        return _result(c, load_path, tc, cls.NOT_SUPPORTED, unsupported[c.id])
    o = outcomes.get(c.id)
    if o is None or not o.verdict:   # cannot happen; if it does, it is reported, not dropped
        o = judge.Outcome(c.id, judge.ERROR, note="the judge returned no verdict for this case")
    klass, msg, harness_err = cls.classify(c, o, findings, CHAPTER_PTX, compiler)
    details = {"ptxas": o.verdict, "diagnostics": o.diags, "ptxas_calls": o.calls, "module_cases": o.module_cases}
    if harness_err:
        details["harness_error"] = True
    if arch_note.get(c.id):
        details["arch"] = arch_note[c.id]
    if o.note:
        details["note"] = o.note
    return _result(c, load_path, tc, klass, msg, round(o.seconds * 1000, 3), details)


COMPILER_NAMES = {"ptxas": "ptxas", "nvjitlink": "nvJitLink", "driver": "the driver's JIT"}


def main(argv):
    a = parse_args(argv)
    try:
        return _main(a)
    except Usage as e:
        sys.stderr.write(f"compile: {e}\n")
        return 2
    except expectations.ExpectationsError as e:
        sys.stderr.write(f"compile: {e}\n")
        return e.code
    except toolchains.ToolchainError as e:
        sys.stderr.write(f"compile: {'--toolchain: ' if a.toolchain else ''}{e}\n")
        return e.code
    except manifest.ManifestError as e:
        sys.stderr.write(f"compile: {e}\n")
        return 3
    except results.errors.UsageError as e:
        sys.stderr.write(f"compile: {e}\n")
        return 2


def _main(a):
    root = _root()
    mroot = a.manifest or manifest.default_root()
    if not os.path.isdir(mroot):
        raise Usage(f"--manifest {mroot}: no such folder")
    tc = toolchains.resolve(a.toolchain)
    for n in tc.notes:
        sys.stderr.write(f"compile: toolchain note: {n}\n")
    exp_path = a.expectations or os.path.join(root, "results", "expectations", "ptxas.toml")
    all_findings = expectations.load(exp_path)
    m = manifest.load(mroot)
    if not m.cases:   # never pass by judging nothing
        raise manifest.ManifestError(f"{mroot}: no case (cases/<family>.tsv has no rows); run ./ptxcts gen")
    all_ids = [(c.id, c.valid) for c in m.cases]
    if a.family:
        unknown = [f for f in a.family if f not in m.families]
        if unknown:
            raise Usage(f"--family {', '.join(unknown)}: unknown (the manifest has: {', '.join(m.families)})")
    known_t = {c.target for c in m.cases}
    for t in a.target:
        if t not in known_t:
            raise Usage(f"--target {t}: no case of the manifest is at this target (it has {', '.join(sorted(known_t))})")
    known_v = {c.ptx for c in m.cases}
    for v in a.ptx:
        if v not in known_v:
            raise Usage(f"--ptx {v}: no case of the manifest is at this PTX version (it has {', '.join(sorted(known_v))})")
    chosen = [c for c in m.cases if (not a.family or c.family in a.family) and (not a.valid_only or c.valid)]
    chosen = manifest.select(chosen, a.target, a.ptx, a.case, a.limit)
    if not chosen:
        raise Usage("the filters select no case" + (f" (--case {' '.join(a.case)})" if a.case else ""))

    device_check, driver_note, device = None, "", None
    if "driver" in a.verdicts:
        device_check, driver_note, device = driver_support()

    started_utc = datetime.datetime.now(datetime.timezone.utc)
    prior = {}
    if a.resume:
        prior_doc = _load_prior(a.resume)
        rid, out_dir = prior_doc["run_id"], a.resume
        prior = {(c["id"], c["load_path"]): c for c in prior_doc["cases"] if c["class"] != cls.SKIPPED}
        if prior_doc["toolchain"].get("name") not in (None, tc.name):
            raise Usage(f"--resume {a.resume}: that run judged toolchain {prior_doc['toolchain'].get('name')}, "
                        f"this one is {tc.name}")
        started = prior_doc["started"]
    else:
        rid = results.new_run_id(f"compile-{tc.name}")
        out_dir = a.out or os.path.join(root, "results", rid)
        started = started_utc.isoformat()
    os.makedirs(out_dir, exist_ok=True)
    lock = results.OutputLock(out_dir)
    lock.acquire()
    try:
        return _judge_and_write(a, root, mroot, m, tc, all_findings, exp_path, all_ids, chosen, prior, rid,
                                out_dir, started, device_check, driver_note, device)
    finally:
        lock.release()


def driver_support():
    """(a per-target check of the device present, a note) for the driver's verdicts, without touching CUDA in
    this process (the workers make their own contexts): the compute capability from nvidia-smi."""
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap,name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        row = [x.strip() for x in r.stdout.splitlines()[0].split(",")] if r.returncode == 0 and r.stdout.strip() \
            else None
    except (OSError, subprocess.TimeoutExpired):
        row = None
    if not row or len(row) < 3:
        return (lambda t: "no GPU here (nvidia-smi finds none)"), "no GPU", None
    major, minor = (int(x) for x in row[0].split("."))
    dev = types.SimpleNamespace(cc=(major, minor))
    device = {"name": row[1], "sm": f"sm_{major}{minor}", "cc": f"{major}.{minor}", "driver": row[2]}
    return (lambda t: backends.Driver.can_load(dev, t)), f"device sm_{major}{minor}", device


def _load_prior(folder):
    path = os.path.join(folder, "results.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise Usage(f"--resume {folder}: no results.json to resume ({e.strerror})")
    except json.JSONDecodeError as e:
        raise manifest.ManifestError(f"{path}:{e.lineno}:{e.colno}: malformed results document: {e.msg}")
    if doc.get("tier") != "compile":
        raise Usage(f"--resume {folder}: not a compile-tier run (tier {doc.get('tier')!r})")
    return doc


def _judge_and_write(a, root, mroot, m, tc, all_findings, exp_path, all_ids, chosen, prior, rid, out_dir, started,
                     device_check, driver_note, device):
    # the generator's own module_text is the one way to assemble modules of generated/ (ARCHITECTURE.md section 2);
    # assembling from the kernel files alone is for manifests that are not the generator's (test fixtures)
    use_gen = not a.no_generator and os.path.realpath(mroot) == os.path.realpath(manifest.default_root())
    try:
        asm = modules.Assembler(m, use_generator=use_gen)
    except modules.AssemblyError as e:
        raise manifest.ManifestError(str(e))
    todo = {lp: [c for c in chosen if (c.id, lp) not in prior] for lp in a.verdicts}
    total = sum(len(v) for v in todo.values())
    active = {lp: [f for f in all_findings if f.covers(tc.name, lp)] for lp in a.verdicts}
    sys.stderr.write(
        f"compile: {len(chosen)} cases ({sum(c.valid for c in chosen)} valid, {sum(not c.valid for c in chosen)} "
        f"invalid) x verdicts {','.join(a.verdicts)} from {mroot}; toolchain {tc.name}: ptxas {tc.ptxas_version} "
        f"({tc.ptxas}), nvJitLink {tc.nvjitlink or 'none'}{'; driver: ' + driver_note if driver_note else ''}; "
        f"modules by {asm.source}; {a.jobs} jobs; findings {exp_path} "
        f"({', '.join(f'{lp} {len(fs)}' for lp, fs in active.items())} of {len(all_findings)} cover this toolchain)"
        + (f"; resuming {len(prior)} judged results" if prior else "") + "\n")

    prog = progress.Progress(total, every_s=1e9 if a.quiet else 2.0)
    t0 = time.monotonic()
    records = list(prior.values())
    interrupted, calls, nmodules = None, 0, 0
    pending = dict(todo)
    try:
        for lp in a.verdicts:
            sink = {}
            try:
                _, _, _, n_calls, n_mods = judge_all(todo[lp], m, mroot, tc, lp, use_gen, a.jobs, a.module_size,
                                                     prog.advance, a.keep_modules, device_check, sink)
            finally:   # also on an interrupt: every case judged so far becomes a record
                judged_now = [c for c in todo[lp] if c.id in sink.get("unsupported", {}) or c.id in sink.get("outcomes", {})]
                records += [_record(c, lp, tc, sink["unsupported"], sink["outcomes"], sink["arch_note"], active[lp],
                                    COMPILER_NAMES[lp]) for c in judged_now]
                done_ids = {c.id for c in judged_now}
                pending[lp] = [c for c in todo[lp] if c.id not in done_ids]
            calls += n_calls
            nmodules += n_mods
            pending.pop(lp)
    except KeyboardInterrupt:
        interrupted = "interrupted by SIGINT"
        sys.stderr.write("\ncompile: interrupted: the workers are stopped; writing what was judged\n")
    wall = time.monotonic() - t0
    judged = len(records)
    for lp, cs in pending.items():
        for c in cs:
            records.append(_result(c, lp, tc, cls.SKIPPED, "interrupted"))

    finished = datetime.datetime.now(datetime.timezone.utc)
    doc = {"schema": "ptxcts-results", "version": results.VERSION, "run_id": rid, "tier": "compile",
           "started": started, "finished": finished.isoformat(), "seed": None, "shard": {"index": 0, "count": 1},
           "host": {"hostname": socket.gethostname(), "cpus": os.cpu_count()},
           "toolchain": dict(tc.record(), cuda_runtime=None, driver=(device or {}).get("driver")),
           # the driver JIT's verdicts belong to the device (and driver) they were given on
           "device": ({k: device[k] for k in ("name", "sm", "cc")} if device and "driver" in a.verdicts else None),
           "cases": records}
    if interrupted:
        results.mark_partial(doc, interrupted, done=judged, total=len(records))
    results.write_run(out_dir, doc)
    output.write_rule_messages(os.path.join(out_dir, "rule_messages.tsv"), records)
    used = [f for f in all_findings if any(f.covers(tc.name, lp) for lp in a.verdicts)]
    # a finding is stale only over cases a covered compiler actually judged (not not_supported, not skipped)
    judged_ids = {r["id"] for r in records if r["class"] not in (cls.NOT_SUPPORTED, cls.SKIPPED)}
    stale = [] if interrupted else expectations.stale(
        used, [(c.id, c.valid) for c in chosen if c.id in judged_ids], all_ids)
    results.atomic_write(os.path.join(out_dir, "expectations.json"), json.dumps({"file": exp_path, "toolchain": tc.name, "findings": [
        {"id": x.id, "line": x.line, "verdict": x.verdict, "toolchains": x.toolchains, "applied": len(x.applied),
         "covers_this_toolchain": x in used,
         "stale": next((s["why"] for s in stale if s["id"] == x.id), None)} for x in all_findings]}, indent=1) + "\n")

    progress.summary(records)
    harness_errors = sum(1 for r in records if r["details"].get("harness_error"))
    sys.stderr.write(f"compile: {len(records)} results in {wall:.1f}s ({total / wall if wall else 0:.0f} cases/s), "
                     f"{calls} compiler calls, {nmodules} modules; toolchain {tc.name} (ptxas {tc.ptxas_version})\n")
    if harness_errors:
        sys.stderr.write(f"compile: {harness_errors} of the fail cases are harness errors (details.harness_error)\n")
    for f in used:
        if f.applied:
            sys.stderr.write(f"compile: finding {f.id} applied to {len(f.applied)} case(s)\n")
    for s in stale:
        sys.stderr.write(f"compile: STALE finding {s['id']} ({exp_path}:{s['line']}): {s['why']}\n")
    bad = [r for r in records if r["class"] in (cls.FAIL, cls.COMPILE_ERROR, cls.CRASH, cls.TIMEOUT)]
    for r in bad[:40]:
        sys.stderr.write(f"  {r['class']} [{r['load_path']}]: {r['id']}: {r['message']}\n")
    if len(bad) > 40:
        sys.stderr.write(f"  ... and {len(bad) - 40} more in {out_dir}/results.json\n")
    if interrupted:
        sys.stderr.write(f"compile: PARTIAL: {judged} of {len(records)} results judged; finish with "
                         f"./ptxcts compile --resume {out_dir} (same options)\n")
        return 130
    sys.stderr.write(f"compile: results in {out_dir}/results.json and junit.xml\n")
    return 1 if bad else 0
