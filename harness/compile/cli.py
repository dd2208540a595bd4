"""./ptxcts compile [options]: the compile tier's command line."""
import datetime
import os
import re
import socket
import sys
import tempfile
import time
import types

from framework import given
from framework import boundary
from ptxcts_gen.arguments import comma_list
from framework import documents
from framework import toolchains
from compile import backends
from compile import classify as cls
from framework.documents import expectations
from framework import modules, progress
from compile import judge, output, pool
from framework import manifest
from framework.pool import usable_cpus
from compile import records as record_of
from framework import paths


def _root():
    return paths.root()


MAX_JOBS = 1024           # compiler processes at once; more is a typo, not a machine
MAX_MODULE_SIZE = 100000  # cases per module (the manifest has fewer cases per target and version)


def parse_args(argv):
    p = boundary.ArgumentParser(prog="./ptxcts compile", description=(
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
    p.add_argument("-j", "--jobs", type=int, default=usable_cpus(),
                   help="parallel compiler calls, 1..%d (default: the CPUs this process may use, %%(default)s here)"
                        % MAX_JOBS)
    p.add_argument("--module-size", type=int, default=pool.DEFAULT_MODULE_SIZE, help="cases per module (default %(default)s)")
    p.add_argument("--out", path=given.NEW_FOLDER, help="output folder (default results/<run-id>/)")
    p.add_argument("--resume", path=given.RESUME, metavar="DIR", help="finish the interrupted run in DIR (same selection, same run ID)")
    p.add_argument("--manifest", path=given.FOLDER, default=None, help="manifest folder (default generated/manifest)")
    p.add_argument("--expectations", path=given.FILE, default=None, help="findings file (default results/expectations/ptxas.toml)")
    p.add_argument("--no-generator", action="store_true",
                   help="assemble modules from the manifest's kernel files instead of ptxcts_gen.module_text")
    p.add_argument("--keep-modules", path=given.NEW_FOLDER, metavar="DIR",
                   help="keep every module the compilers assembled, with the command, output and line map, in DIR")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    a = p.parse_args(argv)
    # an empty value never means "everything": `--family ''` (an unset shell variable) is a usage error
    for opt, values in (("--family", a.family), ("--target", a.target), ("--ptx", a.ptx), ("--case", a.case)):
        for v in values:
            if not v.strip() or any(not x.strip() for x in v.split(",")) and opt != "--case":
                p.error(f"{opt} {v!r}: an empty value (each must name something; leave the option out for all)")
    for opt in ("toolchain", "out", "resume", "manifest", "expectations", "keep_modules"):
        v = getattr(a, opt)
        if v is not None and not v.strip():
            p.error(f"--{opt.replace('_', '-')} '': an empty value (leave the option out for the default)")
    for opt in ("out", "keep_modules"):   # folders this run writes into: checked before any work starts
        v = getattr(a, opt)
        if v is not None and (why := _not_a_folder(v)):
            p.error(f"--{opt.replace('_', '-')} {v}: {why}")
    a.family = [f for x in a.family for f in x.split(",") if f]
    a.target = [t for x in a.target for t in x.split(",") if t]
    a.ptx = [t for x in a.ptx for t in x.split(",") if t]
    a.verdicts = comma_list(p, "--verdicts", a.verdicts, backends.LOAD_PATHS)
    if not 1 <= a.jobs <= MAX_JOBS:
        p.error(f"--jobs {a.jobs}: must be 1..{MAX_JOBS}")
    if not 1 <= a.module_size <= MAX_MODULE_SIZE:
        p.error(f"--module-size {a.module_size}: must be 1..{MAX_MODULE_SIZE}")
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


def _not_a_folder(path):
    """Why `path` cannot be a folder this run writes into (it, or a path above it, is a file), else None."""
    up = os.path.abspath(path)
    while not os.path.exists(up):
        up = os.path.dirname(up)
    if os.path.isdir(up):
        return None
    return "exists and is not a folder" if up == os.path.abspath(path) else f"{up} is a file, not a folder"


class Usage(boundary.VerbError):
    """A usage error found after parsing (exit 2)."""
    code = boundary.EXIT_USAGE


def main(argv):
    a = parse_args(argv)
    return boundary.reported("compile", lambda: _main(a), (
        (toolchains.ToolchainError, "--toolchain: " if a.toolchain else "", None),
        (boundary.VerbError, "", None)))   # Usage, ExpectationsError, the manifest's and the results' errors


def _main(a):
    root = _root()
    mroot = manifest.given_root(a.manifest)
    tc = toolchains.resolve_for("compile", a.toolchain)
    # the compilers' files as resolved (and probed): one replaced later in the run stops it (judge.ToolchainChanged)
    tc.identities = {p: judge.binary_identity(p) for p in (tc.ptxas, tc.nvjitlink) if p}
    exp_path = a.expectations or os.path.join(root, "results", "expectations", "ptxas.toml")
    all_findings = expectations.load(exp_path)
    m = manifest.load(mroot)
    if not m.cases:   # never pass by judging nothing
        raise manifest.ManifestError(f"{mroot}: no case (cases/<family>.tsv has no rows); run ./ptxcts gen")
    all_ids = [(c.id, c.valid) for c in m.cases]
    m.check_filters(a.family, a.target, a.ptx)
    chosen = manifest.select(m.cases, a.target, a.ptx, a.case, a.limit, families=a.family, valid_only=a.valid_only)
    if not chosen:
        given = [f"{opt} {','.join(v)}" for opt, v in (("--family", a.family), ("--target", a.target),
                                                       ("--ptx", a.ptx)) if v] + ["--valid-only"] * bool(a.valid_only)
        raise Usage("the filters select no case (0 cases)" + (f": {' '.join(given)}" if given else "")
                    + (f" (--case {' '.join(a.case)})" if a.case else "")
                    + "; ./ptxcts cases with the same filters shows what each one selects")

    device_check, driver_note, device = None, "", None
    if "driver" in a.verdicts:
        device_check, driver_note, device = backends.driver_support()
        if device is None:   # the driver's verdicts name their device: without one no document could hold them
            raise Usage(f"--verdicts {','.join(a.verdicts)}: the driver JIT needs a usable GPU ({driver_note}); "
                        "leave 'driver' out of --verdicts on this machine")

    started_utc = datetime.datetime.now(datetime.timezone.utc)
    prior = {}
    if a.resume:
        out_dir = a.resume
    else:
        rid = documents.new_run_id(f"compile-{tc.name}")
        out_dir = a.out or os.path.join(root, "results", rid)
        documents.refuse_existing_run(out_dir, "--out")
    if a.keep_modules:   # the workers write there: a folder they cannot write would end every case as a crash
        try:
            os.makedirs(a.keep_modules, exist_ok=True)
            tempfile.TemporaryFile(dir=a.keep_modules).close()
        except OSError as e:
            raise Usage(f"--keep-modules {a.keep_modules}: {boundary.describe_os_error(e)}")
    lock = documents.OutputLock(out_dir, new_run=not a.resume)
    lock.acquire()   # before the resume document is read: a second resume of the same folder is refused here
    try:
        if a.resume:
            prior_doc = _load_prior(a.resume)
            rid = prior_doc["run_id"]
            _check_same_selection(a, prior_doc, chosen, tc)
            prior = {(c["id"], c["load_path"]): c for c in prior_doc["cases"] if c["class"] != cls.SKIPPED}
            started = prior_doc["started"]
        else:
            started = started_utc.isoformat()
        return _judge_and_write(a, root, mroot, m, tc, all_findings, exp_path, all_ids, chosen, prior, rid,
                                out_dir, started, device_check, driver_note, device)
    finally:
        lock.release()


def _load_prior(folder):
    """The interrupted run's document (framework.documents.interrupted_run)."""
    return documents.interrupted_run(folder, "compile", "compile-tier", Usage, need_partial=False)


def _check_same_selection(a, doc, chosen, tc):
    """--resume finishes the interrupted selection: a different toolchain, compiler list or set of cases would mix
    two selections in one document."""
    folder = a.resume
    if doc["toolchain"].get("name") not in (None, tc.name):
        raise Usage(f"--resume {folder}: that run judged toolchain {doc['toolchain'].get('name')}, this one is "
                    f"{tc.name}")
    paths = sorted({c["load_path"] for c in doc["cases"]})
    if set(paths) != set(a.verdicts):   # an interrupted run records every compiler's cases (the rest skipped)
        raise Usage(f"--resume {folder}: that run recorded --verdicts {','.join(paths)}, this one asks for "
                    f"{','.join(a.verdicts)}: give the interrupted run's options")
    ids = {c.id for c in chosen}
    other = sorted({c["id"] for c in doc["cases"]} - ids)
    if other:
        fams = sorted({c["family"] for c in doc["cases"] if c["id"] in set(other)})
        raise Usage(f"--resume {folder}: that run holds {len(other)} case(s) this selection does not (e.g. "
                    f"{other[0]}; families {', '.join(fams)}): give the interrupted run's options (--family, --target, "
                    "--ptx, --case, --valid-only, --limit)")
    more = sorted(ids - {c["id"] for c in doc["cases"]})
    if more:   # judging them would add a second selection to the interrupted one
        raise Usage(f"--resume {folder}: this selection has {len(more)} case(s) that run did not (e.g. {more[0]}): "
                    "give the interrupted run's options (--family, --target, --ptx, --case, --valid-only, --limit)")


def _judge_and_write(a, root, mroot, m, tc, all_findings, exp_path, all_ids, chosen, prior, rid, out_dir, started,
                     device_check, driver_note, device):
    # the generator's own module_text is the one way to assemble modules of generated/ (ARCHITECTURE.md section 2);
    # assembling from the kernel files alone is for manifests that are not the generator's (test fixtures)
    use_gen = not a.no_generator and os.path.realpath(mroot) == os.path.realpath(manifest.default_dir())
    try:
        asm = modules.Assembler(m, use_generator=use_gen)
        asm.check_kernel_files(c.form for c in chosen)
    except modules.AssemblyError as e:
        raise manifest.ManifestError(f"{mroot}: {e}")
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
    run = _judge_every_verdict(a, m, mroot, tc, todo, prior, active, use_gen, prog, device_check)
    # From the last verdict to the last file written a signal waits: it can no longer cost what was judged; it
    # ends the verb (exit 130/143) once the documents are whole.
    with boundary.signals_deferred():
        wall = time.monotonic() - t0
        records = run.records

        finished = documents.finished_time(started, time.monotonic() - t0)   # a clock set back loses nothing
        # the driver JIT's verdicts belong to the device (and driver) they were given on
        on = {k: device[k] for k in ("name", "sm", "cc")} if device and "driver" in a.verdicts else None
        doc = {"schema": "ptxcts-results", "version": documents.VERSION, "run_id": rid, "tier": "compile",
               "started": started, "finished": finished.isoformat(), "seed": None,
               "shard": {"index": 0, "count": 1}, "host": {"hostname": socket.gethostname(), "cpus": os.cpu_count()},
               "toolchain": dict(tc.record(), cuda_runtime=None, driver=(device or {}).get("driver")),
               "device": on, "cases": records}
        if run.interrupted:
            documents.mark_partial(doc, run.interrupted, done=run.judged, total=len(records))
        documents.write_run(out_dir, doc)
        output.write_rule_messages(os.path.join(out_dir, "rule_messages.tsv"), records)
        used = [f for f in all_findings if any(f.covers(tc.name, lp) for lp in a.verdicts)]
        # a finding is stale only over cases a covered compiler actually judged (not not_supported, not skipped)
        judged_ids = {r["id"] for r in records if r["class"] not in (cls.NOT_SUPPORTED, cls.SKIPPED)}
        stale = [] if run.interrupted else expectations.stale(
            used, [(c.id, c.valid) for c in chosen if c.id in judged_ids], all_ids)
        output.write_expectations(os.path.join(out_dir, "expectations.json"), exp_path, tc.name, all_findings, used,
                                  stale)
    output.print_summary(records, wall, total, run.calls, run.modules, tc, used, stale, exp_path)
    bad = output.print_bad(records, out_dir)
    if run.toolchain_changed:
        raise Usage(f"--toolchain {tc.name}: {run.toolchain_changed}: the {run.judged} results judged before are kept "
                    f"in {out_dir}/results.json (partial); put the toolchain back and finish with ./ptxcts compile "
                    f"--resume {out_dir} (a resume with another toolchain is refused)")
    if run.machine:
        raise Usage(f"{run.machine}: the machine refused the compile tier this (not a compiler's verdict); the "
                    f"{run.judged} results judged before are kept in {out_dir}/results.json (partial); raise the limit "
                    f"or free the space and finish with ./ptxcts compile --resume {out_dir}")
    if run.interrupted:
        sys.stderr.write(f"compile: PARTIAL: {run.judged} of {len(records)} results judged; finish with "
                         f"./ptxcts compile --resume {out_dir} (same options)\n")
        return boundary.interrupt_exit_code()
    sys.stderr.write(f"compile: results in {out_dir}/results.json and junit.xml\n")
    return 1 if bad else 0


def _judge_every_verdict(a, m, mroot, tc, todo, prior, active, use_gen, prog, device_check):
    """Judge the cases of todo with each compiler of --verdicts in turn. On an interrupt, every case judged so far
    becomes a record and the rest are recorded skipped ("interrupted")."""
    records = list(prior.values())
    interrupted, calls, nmodules, changed, machine = None, 0, 0, None, None
    pending = dict(todo)
    try:
        for lp in a.verdicts:
            sink = {}
            try:
                _, _, _, n_calls, n_mods = pool.judge_all(todo[lp], m, mroot, tc, lp, use_gen, a.jobs,
                                                          a.module_size, prog.advance, a.keep_modules, device_check,
                                                          sink)
            finally:   # also on an interrupt: every case judged so far becomes a record
                judged_now = [c for c in todo[lp]
                              if c.id in sink.get("unsupported", {}) or c.id in sink.get("outcomes", {})]
                records += [record_of.record(c, lp, tc, sink["unsupported"], sink["outcomes"], sink["arch_note"],
                                             active[lp], record_of.COMPILER_NAMES[lp]) for c in judged_now]
                done_ids = {c.id for c in judged_now}
                pending[lp] = [c for c in todo[lp] if c.id not in done_ids]
            calls += n_calls
            nmodules += n_mods
            pending.pop(lp)
    except KeyboardInterrupt:
        interrupted = f"interrupted by {boundary.signal_name()}"
        sys.stderr.write("\ncompile: interrupted: the workers are stopped; writing what was judged\n")
    except judge.ToolchainChanged as e:   # kept as a partial run of the toolchain it began with; exit 2
        interrupted = f"toolchain changed: {e}"
        changed = str(e)
        sys.stderr.write(f"\ncompile: {e}: the workers are stopped; writing what was judged before\n")
    except judge.MachineError as e:   # the machine refused a resource: kept as a partial run; exit 2
        interrupted = f"stopped by the machine: {e}"
        machine = str(e)
        sys.stderr.write(f"\ncompile: {e}: the workers are stopped; writing what was judged before\n")
    judged = len(records)
    for lp, cs in pending.items():
        for c in cs:
            records.append(record_of.result(c, lp, tc, cls.SKIPPED, "interrupted"))
    return types.SimpleNamespace(records=records, interrupted=interrupted, judged=judged, calls=calls,
                                 modules=nmodules, toolchain_changed=changed, machine=machine)
