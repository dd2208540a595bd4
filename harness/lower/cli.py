"""./ptxcts lower [options]: the lowering tier's command line (run, --selftest, --gate, --explain)."""
import datetime
import gzip
import json
import os
import socket
import sys
import time

from framework import given
from ptxcts_gen.arguments import ranged
from framework import boundary
from framework import documents
from framework import toolchains
from framework import manifest
from framework.documents.errors import ResultsError
from framework import pool as framework_pool
from framework.progress import Progress
from lower import coverage, pool, records
from framework.toolchains import nvdisasm as disasm
from framework.documents import jsonloc
from framework.documents import lowering as keys
from lower import plan as planmod
from lower import selftest as selftestmod
from framework import paths

TIER = "lower"
MAX_JOBS = 1024   # as the compile tier's --jobs


def _root():
    return paths.root()


def parse_args(argv):
    p = boundary.ArgumentParser(prog="./ptxcts lower", description=(
        "The lowering tier: every valid form at every target the toolchain assembles, its instruction under test "
        "assembled (ptxas -lineinfo), disassembled (nvdisasm -c -gp), reduced to a lowering key and judged by the "
        "named lowering rules (generator/ptxcts_gen/lowering). Exit codes: 0 every form pass, 1 a fail or "
        "compile_error (or, with --selftest, a kill rate under --min-kill; with --gate, an unreviewed change of "
        "key), 2 usage, 3 malformed input (nvdisasm output, manifest, baseline), 130/143 interrupted by "
        "SIGINT/SIGTERM (what was lowered is written, marked partial; --resume DIR finishes it)."))
    p.add_argument("--toolchain", metavar="NAME|PATH",
                   help=f"the toolchain to judge (default ${toolchains.ENV}, else the installed CUDA toolkit)")
    p.add_argument("--nvdisasm", metavar="PATH|RELEASE",
                   help=f"the disassembler (default ${disasm.ENV}, else the toolchain's release, else the newest "
                        f"installed)")
    p.add_argument("--family", action="append", default=[], help="only this family (repeat, or comma-separate)")
    p.add_argument("--target", action="append", default=[], help="only this target, e.g. sm_100a (repeatable)")
    p.add_argument("--form", action="append", default=[], metavar="GLOB", help="only form IDs matching GLOB")
    p.add_argument("--limit", type=int, metavar="N", help="at most N (form, target) pairs, spread evenly over the "
                   "selection (sorted by family, form, target); a sample, gated with --gate RUN --partial")
    p.add_argument("-j", "--jobs", type=int, default=framework_pool.usable_cpus(),
                   help=f"worker processes, each running ptxas then nvdisasm on one module, 1..{MAX_JOBS} (default: "
                        f"the CPUs this process may use, %(default)s here)")
    p.add_argument("--module-size", type=int, default=planmod.DEFAULT_MODULE_SIZE,
                   help="forms per module (default %(default)s)")
    p.add_argument("--out", path=given.NEW_FOLDER, help="output folder (default results/<run-id>/)")
    p.add_argument("--resume", path=given.RESUME, metavar="DIR", help="finish the interrupted run in DIR (its results.json marked "
                   "partial and lowered.json.gz): the same run ID, only the forms not lowered yet; give the same "
                   "selection (--family, --target, --form, --limit, --toolchain)")
    p.add_argument("--manifest", path=given.FOLDER, default=None, help="manifest folder (default generated/manifest)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.add_argument("--from-lowered", path=given.FOLDER, metavar="DIR",
                   help="judge the SASS a previous run saved (DIR/lowered.json.gz) instead of running ptxas and "
                        "nvdisasm again (same toolchain; after a change of the rules)")
    p.add_argument("--selftest", action="store_true",
                   help="also plant faults into the SASS each form lowered to and report the kill rate per kind")
    p.add_argument("--min-kill", type=ranged(float, 0, 100), default=99.0, metavar="PCT",
                   help="with --selftest: exit 1 below this kill rate (default %(default)s)")
    p.add_argument("--gate", path=given.INPUT, metavar="RUN", help="compare the lowering keys of RUN (a lower run's folder or "
                   "results.json) with the toolchain's baseline; run nothing else")
    p.add_argument("--baseline", path=given.NEW_FILE, metavar="FILE", help="with --gate: default results/baselines/lower/<toolchain>.json.gz")
    p.add_argument("--update-baseline", action="store_true", help="with --gate: write RUN's keys as the baseline")
    p.add_argument("--partial", action="store_true",
                   help="with --gate: RUN is a sample (--limit): a baseline key it did not lower is counted as not "
                        "run, never missing; a key it lowered is judged as always")
    p.add_argument("--explain", nargs=2, metavar=("CUBIN", "PTX"),
                   help="print the lowering key of every `// ptxcts:test` line of PTX in CUBIN (assembled from PTX "
                        "with ptxas -lineinfo); run nothing else")
    a = p.parse_args(argv)
    a.family = [f for x in a.family for f in x.split(",") if f]
    a.target = [t for x in a.target for t in x.split(",") if t]
    if a.jobs < 1:
        p.error(f"--jobs {a.jobs}: must be >= 1")
    if a.limit is not None and a.limit < 1:
        p.error(f"--limit {a.limit}: must be >= 1")
    if a.jobs > MAX_JOBS:
        p.error(f"--jobs {a.jobs}: must be <= {MAX_JOBS} (worker processes at once; more is a typo, not a machine)")
    if a.module_size < 1:
        p.error(f"--module-size {a.module_size}: must be >= 1")
    if a.resume is not None and (a.out is not None or a.from_lowered):
        p.error("--resume DIR writes into DIR from what it lowered: not with --out or --from-lowered")
    if (a.baseline or a.update_baseline or a.partial) and not a.gate:
        p.error("--baseline, --update-baseline and --partial go with --gate RUN")
    return a


class Usage(boundary.VerbError):
    code = boundary.EXIT_USAGE


class Malformed(boundary.VerbError):
    code = boundary.EXIT_INPUT


def _verb(a):
    if a.gate:
        return keys.gate(a.gate, a.baseline, a.update_baseline, _root(), partial=a.partial)
    if a.explain:
        return _explain(a)
    return _run(a)


def main(argv):
    a = parse_args(argv)
    try:
        return boundary.reported("lower", lambda: _verb(a), (
            (toolchains.ToolchainError, "--toolchain: " if a.toolchain else "", None),
            (boundary.VerbError, "", None)))   # Usage, Malformed, nvdisasm's, the manifest's, results', baselines'
    except KeyboardInterrupt:   # before the first form was lowered (the toolchain, the manifest): nothing to keep
        sys.stderr.write(f"\nlower: {boundary.signal_name()} before any form was lowered: nothing written; the same "
                         f"command starts the run afresh\n")
        return boundary.interrupt_exit_code()


def _disassembler(a, tc):
    d = disasm.find(tc, a.nvdisasm)
    if d.note:
        sys.stderr.write(f"lower: warning: {d.note}\n")
    return d


def _run(a):
    root = _root()
    mroot = manifest.given_root(a.manifest)
    tc = toolchains.resolve_for("lower", a.toolchain)
    dis = _disassembler(a, tc)
    m = manifest.load(mroot)
    m.check_filters(a.family, a.target)
    items = planmod.plan(m, tc, a.family, a.target, a.form)
    if not items:
        raise Usage("the filters select no valid form")
    selected = len(items)
    items = manifest.spread(items, a.limit)   # sorted by family, form, target: a sample crosses all three
    jobs = planmod.modules(items, a.module_size)
    use_gen = os.path.realpath(mroot) == os.path.realpath(manifest.default_dir())
    n_ok = sum(1 for it in items if it.arch)
    sample = f" (a sample of {len(items)} of {selected}: --limit)" if len(items) < selected else ""
    sys.stderr.write(f"lower: {len(items)} (form, target) pairs{sample} from {mroot} ({n_ok} assembled, "
                     f"{len(items) - n_ok} not supported by toolchain {tc.name}) in {len(jobs)} modules; ptxas "
                     f"{tc.ptxas_version} ({tc.ptxas}); nvdisasm {dis.version} ({dis.path}); {a.jobs} workers\n")
    started = datetime.datetime.now(datetime.timezone.utc).isoformat()
    rid = documents.new_run_id(f"lower-{tc.name}")
    out_dir = a.out or os.path.join(root, "results", rid)
    lowered, interrupted = {}, None
    if a.resume:
        rid, started, lowered = _resumed(a.resume, items, tc, dis)
        out_dir = a.resume
    else:
        documents.refuse_existing_run(out_dir)   # a file there, or a run: refused now, not after every form is lowered
    prog = Progress(n_ok - len(lowered), label="lower", unit="forms", quiet=a.quiet)
    t0 = time.monotonic()
    if a.from_lowered:
        lowered = _load_lowered(a.from_lowered, tc, dis)
        missing = [f"{it.case.form}@{it.case.target}" for it in items
                   if it.arch and (it.case.form, it.case.target) not in lowered]
        if missing:
            raise Usage(f"--from-lowered {a.from_lowered}: it has no SASS of {len(missing)} selected forms "
                        f"(e.g. {missing[0]}): select what that run lowered")
    else:
        todo = [it for it in items if (it.case.form, it.case.target) not in lowered]
        try:
            pool.run(planmod.modules(todo, a.module_size), m, use_gen, tc.ptxas, dis.path, a.jobs, prog.advance,
                     lowered)
        except KeyboardInterrupt:   # the workers are stopped (pool.run); what was lowered is kept
            interrupted = f"interrupted by {boundary.signal_name()}"
            sys.stderr.write("\nlower: interrupted: the workers are stopped; writing what was lowered\n")
    # From here to the last file written a signal waits: it can no longer cost what was lowered; it ends the verb
    # (exit 130/143) once the documents are whole.
    with boundary.signals_deferred():
        return _judge_and_write(a, root, m, items, tc, dis, lowered, interrupted, rid, started, out_dir,
                                time.monotonic() - t0, n_ok)


def _resumed(folder, items, tc, dis):
    """(run ID, started, lowered) of the interrupted run in `folder`, refused unless it is a partial lowering run
    of this selection, toolchain and disassembler."""
    doc = documents.interrupted_run(folder, TIER, "lowering-tier", Usage, unit="form")
    if doc["toolchain"].get("name") != tc.name:
        raise Usage(f"--resume {folder}: that run lowered with toolchain {doc['toolchain'].get('name')}, this one is "
                    f"{tc.name}")
    mine = {records.compile_case_id(it.case.form, it.case.target, it.case.ptx) for it in items}
    theirs = {c["id"] for c in doc["cases"]}
    if mine != theirs:
        raise Usage(f"--resume {folder}: that run selected {len(theirs)} (form, target) pair(s), this one "
                    f"{len(mine)} ({len(theirs - mine)} of its not in this selection): give the interrupted run's "
                    f"options (--family, --target, --form, --limit)")
    lowered = _load_lowered(folder, tc, dis) if os.path.exists(os.path.join(folder, "lowered.json.gz")) else {}
    return doc["run_id"], doc["started"], lowered


def _judge_and_write(a, root, m, items, tc, dis, lowered, interrupted, rid, started, out_dir, wall, n_ok):
    # the SASS of every instruction under test lowered so far, saved first (for review, for --from-lowered should
    # anything after this point fail, and for --resume); not a results document
    if not a.from_lowered:
        with documents.OutputLock(out_dir, new_run=not a.resume):
            documents.atomic_write(os.path.join(out_dir, "lowered.json.gz"), gzip.compress(json.dumps(
                {"toolchain": tc.name, "ptxas": tc.ptxas_version, "nvdisasm": dis.version,
                 "lowered": {f"{f}@{t}": r for (f, t), r in sorted(lowered.items())}}).encode(), mtime=0))
    recs, verdicts, raw_by = [], {}, {}
    for it in items:
        form = m.form(it.case.form)
        if not it.arch:
            recs.append(records.record(form, it.case, "not_supported", it.reason))
            continue
        if (it.case.form, it.case.target) not in lowered:   # interrupted before it was lowered
            recs.append(records.record(form, it.case, "skipped", "interrupted"))
            continue
        raw = lowered[(it.case.form, it.case.target)]
        rec, v = records.judged(form, it.case, raw, tc.name)
        recs.append(rec)
        if v is not None:
            verdicts[(it.case.form, it.case.target)] = v
            raw_by[(it.case.form, it.case.target)] = (form, raw)
    finished = documents.finished_time(started, wall)   # a clock set back loses nothing
    tcrec = dict(tc.record(), cuda_runtime=None, driver=None, **dis.record())
    doc = {"schema": "ptxcts-results", "version": documents.VERSION, "run_id": rid, "tier": TIER,
           "started": started, "finished": finished.isoformat(), "seed": None,
           "shard": {"index": 0, "count": 1}, "host": {"hostname": socket.gethostname(), "cpus": os.cpu_count()},
           "toolchain": tcrec, "device": None, "cases": recs}
    if interrupted:
        documents.mark_partial(doc, interrupted, done=sum(r["class"] != "skipped" for r in recs), total=len(recs))
    sil = coverage.silicon_forms(root)
    cov = coverage.rules_coverage(recs, sil)
    st = selftestmod.run(raw_by, a.jobs) if a.selftest and not interrupted else None
    with documents.OutputLock(out_dir, new_run=not a.resume):
        documents.write_run(out_dir, doc)
        documents.atomic_write(os.path.join(out_dir, "rules.json"), json.dumps(
            {"toolchain": tc.name, "nvdisasm": dis.version, "release_match": dis.matches, "rules": cov},
            indent=1) + "\n")
        if st is not None:
            documents.atomic_write(os.path.join(out_dir, "selftest.json"), json.dumps(st, indent=1) + "\n")
    total = records.summary(recs, wall)
    coverage.print_coverage(cov, sys.stderr)
    if dis.note:
        sys.stderr.write(f"lower: warning: {dis.note}\n")
    bad = [r for r in recs if r["class"] in ("fail", "compile_error")]
    for r in bad[:20]:
        sys.stderr.write(f"lower: {r['class'].upper()} {r['form']} @ {r['target']}: {r.get('message', '')}\n")
    if len(bad) > 20:
        sys.stderr.write(f"lower: ... and {len(bad) - 20} more (results.json)\n")
    sys.stderr.write(f"lower: {total['located']} of {n_ok} assembled forms located at their line; "
                     f"results in {out_dir}/results.json, rules.json\n")
    if interrupted:
        sys.stderr.write(f"lower: PARTIAL: {doc['partial']['done']} of {len(recs)} judged; finish with "
                         f"./ptxcts lower --resume {out_dir} (same options)\n")
        return boundary.interrupt_exit_code()
    rc = 1 if bad else 0
    if st is not None:
        selftestmod.print_table(st, sys.stderr)
        if st["kill_rate"] < a.min_kill:
            sys.stderr.write(f"lower: self-test kill rate {st['kill_rate']:.2f}% is under --min-kill {a.min_kill}\n")
            rc = 1
    return rc


def _load_lowered(folder, tc, dis):
    path = os.path.join(folder, "lowered.json.gz")
    try:   # the one JSON reader: a truncated or damaged gzip, not JSON, not UTF-8 -> InputError naming the file
        doc = jsonloc.read(path)
        got = {tuple(k.rsplit("@", 1)): v for k, v in doc["lowered"].items()}
    except OSError as e:
        raise Usage(f"--from-lowered {folder}: cannot read {path}: {e.strerror or e}")
    except ResultsError as e:
        raise Malformed(str(e)) from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise Malformed(f"{path}: not a lowering tier's lowered.json.gz ({type(e).__name__}: {e})")
    if (doc.get("ptxas"), doc.get("nvdisasm")) != (tc.ptxas_version, dis.version):
        raise Usage(f"--from-lowered {folder}: lowered by ptxas {doc.get('ptxas')} / nvdisasm {doc.get('nvdisasm')}, "
                    f"not by this run's ptxas {tc.ptxas_version} / nvdisasm {dis.version}")
    return got


def _explain(a):
    from framework.lowering import judge as judgemod
    from ptxcts_gen import linemap
    cubin, ptx = a.explain
    for p in (cubin, ptx):
        if not os.path.isfile(p):
            raise Usage(f"--explain {p}: no such file")
    tc = toolchains.resolve(a.toolchain)
    dis = _disassembler(a, tc)
    with open(ptx) as f:
        lines = f.read().splitlines()
    try:
        ents = linemap.entries(lines)
    except linemap.LineMapError as e:
        raise Malformed(f"{ptx}: {e}")
    try:
        listing = disasm.disassemble(dis.path, cubin)
    except disasm.ToolFailed as e:
        raise Malformed(f"{cubin}: {e}")
    if not listing.has_line_info:
        raise Malformed(f"{cubin}: no line info (nvdisasm -c -gp prints no `//## File \".nv_debug_ptx_txt\"` "
                        f"line): assemble it with ptxas -lineinfo")
    forms = {}
    try:
        m = manifest.load(a.manifest or manifest.default_dir())
        forms = m.forms
    except ResultsError:   # no manifest to name the forms: the keys alone
        pass
    for e in ents:
        if not e.test_lines:
            continue
        got = listing.at_lines(e.kernel, e.test_lines)
        form = forms.get(e.form)
        if form:
            v = judgemod.judge(form, got, target=listing.target or None)
            print(f"{e.form or e.kernel}\t{v.cls}\t{v.key}\t{v.frame}\t{v.message}")
        else:
            from framework.lowering import key as keymod
            k, fr = keymod.reduce(got)
            print(f"{e.form or e.kernel}\t-\t{k}\t{fr}")
    return 0
