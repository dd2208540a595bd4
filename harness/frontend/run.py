"""./ptxcts frontend run: judge one front-end on every compile case of the manifest it can express."""
import datetime
import fnmatch
import json
import os
import socket
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Tuple

from framework import boundary
from framework import documents
from framework import toolchains
from framework.documents import expectations
from framework import manifest
from framework.progress import Progress
from ptxcts_gen import load_forms, model, parse, targets
from ptxcts_gen.frontends import Spelling

from . import FrontendError, engines, isolate, judge, resolve, tier
from . import findings as fe_findings_mod
from .coverage import coverage_of
from framework.progress import family_table

FINDING_CLASSES = ("fail", "crash", "timeout", "compile_error")


class Usage(FrontendError):
    pass


def form_valid_at(forms, form_id, target, ptx):
    """Whether the model's form form_id is valid at this target and PTX ISA version: valid there (Form.valid_at: a
    form valid from a later version, such as .add.noftz.f32 from PTX 9.4, counts from that version on), the target
    existing at that version and meeting the form's requirements. What an invalid case's spelling is judged by."""
    f, t = forms.get(form_id), targets.BY_NAME.get(target)
    return bool(f and t and f.valid_at(ptx) and t.exists_at(ptx) and not model._requirement_violations(f, t, ptx))


def _select(a, m):
    fams = [f for x in a.family for f in x.split(",") if f]
    targets = [t for x in a.target for t in x.split(",") if t]
    ptx = [v for x in a.ptx for v in x.split(",") if v]
    m.check_filters(fams, targets, ptx)
    if a.limit is not None and a.limit < 1:
        raise Usage(f"--limit {a.limit}: must be >= 1")
    if a.jobs < 1:
        raise Usage(f"--jobs {a.jobs}: must be >= 1")
    return manifest.select(m.cases, targets, ptx, a.case, a.limit, families=fams)


def record(c, fe, klass, message, details=None, seconds=0.0):
    return {"id": c.id, "family": c.family, "form": c.form, "target": c.target, "ptx": c.ptx,
            "load_path": engines.LOAD_PATHS.get(fe.kind, fe.kind), "class": klass,
            "duration_ms": round(seconds * 1000, 3), "message": message,
            "replay": f"./ptxcts frontend run --frontend {fe.spec or fe.name} --case '{c.id}'",
            "details": dict({"expect": c.expect, "rules": list(c.rules)}, **(details or {}))}


def run(a, root):
    # The files named on the command line are read first: a bad option is named before a missing front-end.
    all_fe_findings = fe_findings_mod.load(a.findings or fe_findings_mod.default_path(root))
    fe = resolve(a.frontend)
    for n in fe.notes:
        sys.stderr.write(f"frontend: note: {n}\n")
    tc = toolchains.resolve(a.toolchain or fe.ptxas_toolchain)
    exp_path = a.expectations or os.path.join(root, "results", "expectations", "ptxas.toml")
    findings = [f for f in expectations.load(exp_path) if f.covers(tc.name, "ptxas")]
    fe_findings = [f for f in all_fe_findings if any(fnmatch.fnmatchcase(fe.name, p) for p in f.frontends)]
    eng = engines.engine(fe)
    # the children that compile are forked by a zygote started now, while this process is small
    pool = isolate.Zygote(eng.compile, jobs=a.jobs)
    try:
        return _run(a, root, fe, tc, findings, eng, pool, fe_findings)
    finally:
        pool.close()


def unapplied_findings(name, fe_findings, full):
    """(stale, unseen): the findings that covered no case of a full run of front-end `name`. Stale where the finding
    names `name` itself (it was reviewed on this front-end: the behaviour is gone, or the finding's cases moved);
    unseen where only a pattern matched (`triton-*`: a Triton the user named, another build than the one reviewed,
    which need not show it). A partial run judges neither."""
    if not full:
        return [], []
    quiet = [f for f in fe_findings if not f.applied]
    stale = [f.id for f in quiet if name in f.frontends]
    return stale, [f.id for f in quiet if name not in f.frontends]


def _run(a, root, fe, tc, findings, eng, pool, fe_findings):
    m = manifest.load(manifest.default_dir())
    chosen = _select(a, m)
    if not chosen:
        raise Usage("the filters select no case" + (f" (--case {' '.join(a.case)})" if a.case else ""))
    forms = {f.id: f for f in load_forms()}
    if getattr(a, "guard", False):   # every expressible kernel at every (target, PTX version) it writes
        chosen = chosen + _guard_cases(a, forms, eng, fe, chosen)
    missing = sorted({c.form for c in chosen} - set(forms))
    if missing:
        raise manifest.ManifestError(f"the manifest names form {missing[0]}, which the ISA model does not have: "
                                     "run ./ptxcts gen")
    index = parse.FormIndex(forms.values())
    t0 = time.monotonic()
    started = datetime.datetime.now(datetime.timezone.utc).isoformat()
    rid = documents.new_run_id(f"frontend-{fe.name}")
    out_dir = a.out or os.path.join(root, "results", rid)
    prior = {}
    if getattr(a, "resume", None):
        if a.out:
            raise Usage(f"--resume {a.resume} writes into {a.resume}: not with --out")
        rid, started, prior = _resumed(a.resume, fe)
        out_dir = a.resume

    records, groups = [], defaultdict(list)
    unexpressible = Counter()
    spellings = {}
    recorded = set()   # the cases this selection records (every expressible one): --resume's check
    for c in chosen:
        f = forms[c.form]
        s = eng.spell(f)
        if not isinstance(s, Spelling):
            unexpressible[c.family] += 1
            continue
        spellings[f.id] = s
        recorded.add(c.id)
        if c.id in prior:   # judged before the interruption
            records.append(prior[c.id])
            continue
        why = fe.why_not(c.target, c.ptx)
        if why is None and tc.why_not(c.target, c.ptx):
            why = f"the paired ptxas cannot check its output: {tc.why_not(c.target, c.ptx)}"
        if why:
            records.append(record(c, fe, "not_supported", why))
            continue
        groups[(c.target, c.ptx, c.valid)].append((f, c))
    if getattr(a, "resume", None):
        _check_same_selection(a.resume, recorded, prior)
    tier.check_spellings(spellings, eng.verify)
    todo = sum(len(v) for v in groups.values())
    sys.stderr.write(
        f"frontend: {fe.name} ({fe.description.get('version_string')}) paired with ptxas {tc.name} "
        f"({tc.ptxas_version}, {tc.ptxas}): {len(chosen)} cases selected, {sum(unexpressible.values())} of forms it "
        f"cannot express, {len(records)} at a target or PTX version it or the paired ptxas does not take, {todo} to "
        f"judge in {len(groups)} groups; {a.jobs} jobs\n")
    batches = []
    # an engine may cap the kernels of one compile job (batch_size: the CuTe DSL traces each kernel in Python, so
    # a group of hundreds is minutes in one child); each chunk is a group of its own (key suffix .N)
    size = getattr(eng, "batch_size", None)
    for (target, ptx, valid), items in sorted(groups.items()):
        key = f"{target}.ptx{ptx.replace('.', '')}.{'valid' if valid else 'invalid'}"
        chunks = [items[i:i + size] for i in range(0, len(items), size)] if size else [items]
        for n, chunk in enumerate(chunks):
            batches.append((key + (f".{n}" if len(chunks) > 1 else ""), target, ptx,
                            [(f.entry, [c]) for f, c in chunk], valid or eng.batch_invalid))
    stats = tier.Stats()
    prog = Progress(todo, label="frontend", quiet=a.quiet)
    answers = tier.run_cases(batches, eng.build, pool, eng.extract, tc, a.jobs, prog, stats)
    # From the last case compiled to the last file written a signal waits: it can no longer cost what was judged;
    # it ends the verb (exit 130/143) once the documents are whole.
    with boundary.signals_deferred():
        valid_at = lambda form_id, target, ptx: form_valid_at(forms, form_id, target, ptx)
        frontend_label = f"{fe.name}"
        ptxas_label = f"ptxas {tc.name}"
        for key, target, ptx, kernels, _valid in batches:
            for entry, cases in kernels:
                if (key, entry) not in answers:   # not compiled: the run was interrupted
                    records += [record(c, fe, "skipped", "interrupted before the front-end compiled it") for c in cases]
                    continue
                em, asm = answers[(key, entry)]
                for c in cases:
                    klass, msg, details = judge.judge(c, c.form, em, asm, index, findings, frontend_label, ptxas_label,
                                                      valid_at, fe_findings)
                    if hasattr(eng, "claim_verdict"):   # the .version / .target it wrote, judged as claims
                        klass, msg, details = eng.claim_verdict(c, klass, msg, details, em, index, valid_at)
                    details["call"] = eng.describe_call(spellings[c.form])
                    records.append(record(c, fe, klass, msg, details))
        wall = time.monotonic() - t0
        finished = documents.finished_time(started, time.monotonic() - t0)   # a clock set back loses nothing
        doc = {"schema": "ptxcts-results", "version": documents.VERSION, "run_id": rid, "tier": "frontend",
               "started": started, "finished": finished.isoformat(), "seed": None,
               "shard": {"index": 0, "count": 1}, "host": {"hostname": socket.gethostname(), "cpus": os.cpu_count()},
               "toolchain": dict(fe.record(tc), cuda_runtime=None, driver=None), "device": None, "cases": records}
        if stats.interrupted:
            documents.mark_partial(doc, f"interrupted by {boundary.signal_name()}",
                                   done=sum(r["class"] != "skipped" for r in records), total=len(records))
        os.makedirs(out_dir, exist_ok=True)
        documents.write_run(out_dir, doc)
        cov = coverage_of(fe.name, list(forms.values()), m.cases)
        cov["run"] = {"selected": len(chosen), "unexpressible_cases": dict(unexpressible), "judged": todo,
                      "wall_s": round(wall, 2), "frontend_s": round(stats.seconds["frontend"], 2),
                      "ptxas_s": round(stats.seconds["ptxas"], 2), "batches": stats.batches,
                      "batches_that_died": stats.batch_failures, "compiled_alone": stats.alone,
                      "ptxas_calls": stats.ptxas_calls, "jobs": a.jobs}
        full = not (a.family or a.target or a.ptx or a.case or a.limit) and not stats.interrupted
        cov["findings"] = {f.id: len(f.applied) for f in fe_findings}
        stale, unseen = unapplied_findings(fe.name, fe_findings, full)
        for fid in stale:
            sys.stderr.write(f"frontend: finding {fid} covered no case of this full run: stale (review it, or remove "
                             f"it from results/expectations/frontends.toml)\n")
        for fid in unseen:
            sys.stderr.write(f"frontend: note: finding {fid} (reviewed on another build of this front-end) shows in no "
                             f"case of {fe.name}\n")
        with open(os.path.join(out_dir, "coverage.json"), "w") as f:
            json.dump(cov, f, indent=1, sort_keys=True)
            f.write("\n")
        _summary(records, wall, stats, fe, tc)
        bad = [r for r in records if r["class"] in FINDING_CLASSES]
        for r in bad[:10]:
            sys.stderr.write(f"  {r['class']}: {r['id']}: {r['message'][:300]}\n    replay: {r['replay']}\n")
        if len(bad) > 10:
            sys.stderr.write(f"  ... and {len(bad) - 10} more in {out_dir}/results.json\n")
        sys.stderr.write(f"frontend: results in {out_dir}/results.json, junit.xml and coverage.json\n")
        if stats.interrupted:
            sys.stderr.write(f"frontend: PARTIAL: the run was interrupted; the cases not compiled are recorded "
                             f"skipped; finish with ./ptxcts frontend run --resume {out_dir} (same options)\n")
            return boundary.interrupt_exit_code()
        return 1 if bad else 0


# ---- the version and target guard check (--guard) ----
# Every form the front-end can express, asked at every (target, PTX ISA version) pair its description says it
# writes, not only at the manifest's pairs (the manifest places a form's cases at the edges of its requirements; a
# front-end's guard can be wrong at any version it offers). One form per kernel the mapping writes (forms with one
# spelling share it; the tensor families' dimension is left to the manifest's cases: no requirement of the chapter
# depends on it but im2col's, which the kernel's rank keeps); a case per pair expecting what the model says there
# (valid: accept; else reject, with the requirement rules it breaks), judged like any other. Case IDs are the
# manifest's (form@target.ptxNN).

@dataclass(frozen=True)
class GuardCase:
    id: str
    family: str
    form: str
    target: str
    ptx: str
    expect: str
    rules: Tuple[str, ...]

    @property
    def valid(self):
        return self.expect == "accept"


def _kernel_key(s):
    return (s.callee, tuple(a for a in s.args if a[0] != "dim"))


def guard_cases(forms, spell, description, skip_ids=()):
    """GuardCase list: one representative form per kernel (forms: model forms, spell: the engine's), at every
    (target, version) of description["targets"] the model's target table has at that version."""
    reps = {}
    for f in forms:
        if not (f.valid or f.valid_from):
            continue
        s = spell(f)
        if isinstance(s, Spelling):
            reps.setdefault(_kernel_key(s), f)
    out = []
    skip = set(skip_ids)
    for f in reps.values():
        for t, row in sorted(description["targets"].items()):
            tobj = targets.BY_NAME.get(t)
            if tobj is None:
                continue
            for v in row["ptx"]:
                cid = f"{f.id}@{t}.ptx{v.replace('.', '')}"
                if cid in skip or not tobj.exists_at(v):
                    continue
                ok = f.valid_at(v) and not model._requirement_violations(f, tobj, v)
                rules = () if ok else tuple(model._requirement_violations(f, tobj, v)) or \
                    (f"valid from PTX ISA {f.valid_from}",)
                out.append(GuardCase(cid, f.family, f.id, t, v, "accept" if ok else "reject", rules))
    return out


def _guard_cases(a, forms, eng, fe, chosen):
    """The guard check's made-up cases within the run's filters, less the manifest's own."""
    fams = {f for x in a.family for f in x.split(",") if f}
    tgts = {t for x in a.target for t in x.split(",") if t}
    ptxs = {v for x in a.ptx for v in x.split(",") if v}
    out = [c for c in guard_cases(forms.values(), eng.spell, fe.description, {c.id for c in chosen})
           if (not fams or c.family in fams) and (not tgts or c.target in tgts) and (not ptxs or c.ptx in ptxs)
           and (not a.case or any(fnmatch.fnmatchcase(c.id, g) for g in a.case))]
    sys.stderr.write(f"frontend: guard check: {len(out)} cases of every expressible kernel at every (target, PTX "
                     f"version) {fe.name} writes\n")
    return out


def _resumed(folder, fe):
    """(run ID, started, {case ID: record judged}) of the interrupted run in `folder`."""
    doc = documents.interrupted_run(folder, "frontend", "front-end tier", Usage)
    if doc["toolchain"].get("name") != fe.name:
        raise Usage(f"--resume {folder}: that run judged front-end {doc['toolchain'].get('name')}, this one is "
                    f"{fe.name}")
    judged = {c["id"]: c for c in doc["cases"] if c["class"] != "skipped"}
    judged[None] = {c["id"] for c in doc["cases"]}   # every case it recorded: the selection's check
    return doc["run_id"], doc["started"], judged


def _check_same_selection(folder, recorded, prior):
    theirs = prior.pop(None)
    if theirs != recorded:
        raise Usage(f"--resume {folder}: that run recorded {len(theirs)} case(s), this selection {len(recorded)} "
                    f"({len(theirs - recorded)} of its not in this one): give the interrupted run's options "
                    f"(--family, --target, --ptx, --case, --limit)")


def _summary(records, wall, stats, fe, tc):
    classes = ("pass", "fail", "spec_divergence", "beyond_chapter", "not_supported", "crash", "timeout", "skipped")
    by = defaultdict(Counter)
    for r in records:
        by[r["family"]][r["class"]] += 1
    w = sys.stderr.write
    w(f"\nfrontend {fe.name} + ptxas {tc.name}: {len(records)} results in {wall:.1f} s (front-end {stats.seconds['frontend']:.1f} s"
      f" in {stats.batches} batches, {stats.batch_failures} of them died, {stats.alone} kernels compiled alone; "
      f"ptxas {stats.seconds['ptxas']:.1f} s, {stats.ptxas_calls} calls)\n")
    table, total = family_table(by, classes, width=14, total="total")
    w(table)
