"""./ptxcts selftest --tier lower: the lowering tier's catch of the self-test's planted faults, without a GPU.

Whether silicon sees some faults is timing (a `cp.async.bulk.wait_group.read` where the form waits for the writes
too is caught only when a write is still in flight as the kernel probes it). The lowering tier sees them whatever
the timing: the faulty PTX lowers to other SASS. For each fault kind of the run tier's self-test
(ptxcts_gen.faults.KINDS) and each target, the run tier's own modules are planted exactly as the run-tier
self-test plants them (selftest/plants.py plant_kind: `./ptxcts modules` with PTXCTS_PLANT_FAULT, plants ptxas refuses
dropped), assembled with ptxas -lineinfo for the target and disassembled (lower.disasm.lower_module); the SASS at
the planted lines (the `// ptxcts:test` line and the `// ptxcts:fault` lines a plant adds before it) is judged
against the lowering rules of the ORIGINAL form (lower.judge.judge, rules of ptxcts_gen.lowering). The same modules
unplanted are lowered and judged too: a plant counts only where the unplanted form passes (a fault in a lowering
that already fails proves nothing).

Per planted form:
* caught: the verdict is fail;
* equivalent: not fail, and the chapter says the fault cannot be observed (faults.KINDS[k].equivalent);
* not_judged: not fail, and out of the lowering rules' reach: no rule that concerns the form reads a form field
  the fault changes (PLANT_FIELDS: an address, a size, a coordinate, a ctaMask are no rule's subject), or the
  lowering key is the unplanted one's (what differs is abstracted by the key); or the unplanted form does not
  pass;
* unruled: in reach, the key changed and no rule decides the difference (detected, not caught);
* hole: in reach, the key changed and the verdict is pass: a lowering rule misses a fault it should decide.

    ./ptxcts selftest --tier lower [--kind K]... [--family F]... [--target T]... [--ptx V] [--toolchain T]
                                   [--out DIR] [--jobs N]

--ptx V (default the chapter's version, 9.0) renders the modules at that PTX ISA version: the forms of a later
version (the 9.x qualifiers) are planted only at a version that has them (e.g. --ptx 9.5 --toolchain 13.5).

Writes DIR/selftest-lower.json (per target and kind: planted, refused, caught, equivalent, not_judged, unruled,
holes, and every plant with its lines, verdicts and keys) and prints the table; exit 0 without a hole, 1 with one,
2 on a usage error.
"""
import collections
import concurrent.futures as cf
import datetime
import json
import os
import sys
import tempfile
import time

from ptxcts_gen import faults, linemap
from ptxcts_gen import load_forms
from selftest import plants as planting
from selftest.options import DEFAULT_LOWER_TARGETS

COUNTS = ("planted", "refused", "caught", "equivalent", "not_judged", "unruled", "holes")
# The form fields (forms.jsonl quals, as a lowering rule's `fields` names them) each fault kind of
# ptxcts_gen.faults.KINDS changes; () for a kind that changes an operand's value, which no lowering rule reads.
PLANT_FIELDS = {
    "redop": ("redop",), "signedness": ("type",), "type": ("type",), "width": ("type",),
    "address": (), "size": (), "coords": (), "im2col_offsets": (), "cta_mask": (),
    "wait_count": ("instr", "n"), "wait_read": ("instr",), "arrive": ("instr",),
    "cp_size": ("cp_size",), "cache_hint": ("cache_hint",),
    # PTX ISA 9.2-9.5: ignoreBytesLeft/Right are operand values (no rule reads them; .ignore_oob itself has no
    # lowering rule: the copy without it is the same copy when nothing is ignored)
    "ignore_oob": ("ignore_oob",), "ignore_bytes": (), "scope": ("sem",), "relaxed": ("sem",), "noftz": ("noftz",),
    "multicast": ("multicast",), "mc_width": ("mc_width",), "report": ("report",), "sync_restrict": ("instr",),
    "evict_last": ("eviction",),
}


def _tools(toolchain=None, nvdisasm=None):
    from framework import toolchains
    from framework.toolchains import nvdisasm as disasm
    tc = toolchains.resolve_for("selftest", toolchain)
    dis = disasm.find(tc, nvdisasm)
    if dis.note:
        sys.stderr.write(f"selftest: warning: {dis.note}\n")
    return tc, dis


def lowered(mdir, forms, ptxas, nvdisasm, arch, jobs=2, done=None):
    """{form ID: {"instrs": [Instr], "test_lines": [PTX line], "line": text}} of the given forms in the modules of
    mdir (`./ptxcts modules` output): each module holding one of them assembled with ptxas -lineinfo for arch and
    disassembled (lower.disasm.lower_module); the SASS nvdisasm attributes to the entry's `// ptxcts:test` line and
    the `// ptxcts:fault` lines a plant adds; {form ID: {"error": message}} for a module ptxas or nvdisasm
    refuses. done: {module: its result, every entry} kept across calls on the same mdir (a module is lowered
    once)."""
    from framework.toolchains import nvdisasm as disasm
    done = {} if done is None else done
    with open(os.path.join(mdir, "index.json")) as f:
        index = json.load(f)
    mods = sorted({e["module"] for e in index["entries"].values() if e["form"] in forms} - set(done))

    def one(mod):
        with open(os.path.join(mdir, mod)) as f:
            text = f.read()
        lines = text.split("\n")
        ents = [e for e in linemap.entries(lines) if e.form]
        try:
            listing = disasm.lower_module(ptxas, nvdisasm, arch, text)
        except disasm.ToolFailed as e:
            return mod, {w.form: {"error": str(e)} for w in ents}
        out = {}
        for w in ents:
            at = sorted(set(w.test_lines) | {n for n in range(w.entry, w.last + 1)
                                             if faults.FAULT_MARK in lines[n - 1]})
            out[w.form] = {"instrs": listing.at_lines(w.kernel, at), "test_lines": list(w.test_lines),
                           "line": " ".join(lines[n - 1].strip() for n in at)}
        return mod, out
    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:   # ptxas and nvdisasm are processes
        for mod, res in pool.map(one, mods):
            done[mod] = res
    return {fid: r for res in done.values() for fid, r in res.items() if fid in forms}


def verdict(form, got, target):
    """(class of lower.judge, lowering key, message) of one form's lowered SASS at target."""
    from framework.lowering import judge as judgemod
    if "error" in got:
        return "compile_error", "", got["error"].splitlines()[0][:300]
    v = judgemod.judge(form, got["instrs"], got["line"], target)
    return v.cls, v.key, v.message


def in_reach(kind, form, target):
    """The lowering rules concerning the form at target that read a field the kind's plant changes."""
    from ptxcts_gen.lowering import rules_for
    return sorted({r.name for r, _ in rules_for(form, target) if set(r.fields) & set(PLANT_FIELDS[kind])})


def classify(kind, form_obj, form, target, clean, planted):
    """The class of one plant and why: caught, equivalent, not_judged, unruled or holes (the module's docstring).
    form_obj: the model's Form; form: its manifest record."""
    c_cls, c_key, _ = clean
    p_cls, p_key, _ = planted
    if c_cls != "pass":
        return "not_judged", f"the unplanted form's lowering is {c_cls}, not pass"
    if p_cls == "fail":
        return "caught", ""
    reason = faults.KINDS[kind].equivalent(form_obj)
    if reason:
        return "equivalent", reason
    if not in_reach(kind, form, target):
        return "not_judged", (f"no lowering rule of the form reads what the fault changes "
                              f"({', '.join(PLANT_FIELDS[kind]) or 'an operand value'})")
    if p_key == c_key:
        return "not_judged", "the lowering key is the unplanted one's: what differs is abstracted by the key"
    if p_cls == "unruled":
        return "unruled", "the key changed and no lowering rule decides the difference"
    return "holes", "the key changed and the verdict is pass"


def catch(kinds, targets, families=(), toolchain=None, nvdisasm=None, jobs=2, progress=None, prior=None,
          ptx=planting.PTX, whole_product=True, into=None):
    """The lowering tier's catch of the kinds' plants at each target: the report (a dict, schema
    ptxcts-selftest-lower). progress(line): one line per target and kind. prior: an interrupted report of the same
    selection (--resume): what it measured is kept, the rest measured. whole_product=False: the curated forms only,
    not the combinations the whole product adds (Form.at_boundaries), whose plants are the curated forms' fields
    crossed (at sm_107a, 5,760 plants of .mbarrier::report instead of a few dozen), and the modules they are planted
    into hold the curated forms alone (`modules --curated`)."""
    from framework import manifest
    unknown = [k for k in kinds if k not in PLANT_FIELDS]
    if unknown:   # a new kind of ptxcts_gen.faults: say which form fields it changes before judging it here
        raise ValueError(f"fault kind {', '.join(unknown)}: not in lower_catch.PLANT_FIELDS")
    tc, dis = _tools(toolchain, nvdisasm)
    m = manifest.load(manifest.default_dir())
    t0 = time.monotonic()
    report = into if into is not None else {}   # into: the caller's dict, filled in place (main keeps what a
    report.update({"schema": "ptxcts-selftest-lower", "version": 1,   # signal after judging would lose)
                   "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "ptx": ptx, "toolchain": f"{tc.name} (ptxas {tc.ptxas_version})", "nvdisasm": dis.version,
                   "nvdisasm_release_match": dis.matches, "targets": {}, "kinds": {}})
    if prior is not None:
        if (prior.get("toolchain"), prior.get("nvdisasm")) != (report["toolchain"], report["nvdisasm"]):
            raise ValueError(f"that self-test measured {prior.get('toolchain')} with nvdisasm {prior.get('nvdisasm')}, "
                             f"this one is {report['toolchain']} with nvdisasm {report['nvdisasm']}")
        report["started"], report["targets"] = prior["started"], prior["targets"]
    forms = {f.id: f for f in load_forms() if f.valid_at(ptx) and (not families or f.family in families)
             and (whole_product or not f.at_boundaries)}
    try:
        _catch_targets(report, kinds, targets, forms, m, tc, dis, jobs, progress, ptx, whole_product)
    except KeyboardInterrupt:   # what was measured is kept: every (target, kind) whose plants were all judged
        from framework import boundary
        report["interrupted"] = f"interrupted by {boundary.signal_name()}"
        if progress:
            progress(f"selftest --tier lower: {report['interrupted']}; writing what was measured")
    return totals(report, kinds, t0)


def totals(report, kinds, t0):
    """report with its per-kind counts over the targets and its seconds since t0 (time.monotonic)."""
    for kind in kinds:
        tot = collections.Counter()
        for t in report["targets"].values():
            for c in COUNTS:
                tot[c] += t.get("kinds", {}).get(kind, {}).get(c, 0)
        report["kinds"][kind] = {c: tot[c] for c in COUNTS}
    report["seconds"] = round(time.monotonic() - t0, 1)
    return report


def _catch_targets(report, kinds, targets, forms, m, tc, dis, jobs, progress, ptx, whole_product):
    for target in targets:
        arch = tc.arch(target)
        if not arch:
            report["targets"][target] = {"not_supported": tc.why_not(target, ptx) or "no -arch"}
            continue
        tk0 = time.monotonic()
        per = report["targets"].setdefault(target, {"kinds": {}})   # --resume: the kinds measured are kept
        with tempfile.TemporaryDirectory(prefix=f"ptxcts-selftest-lower-{target}-") as tmp:
            cdir, clean_done = os.path.join(tmp, "clean"), {}
            planting.modules(None, None, cdir, target, sorted({f.family for f in forms.values()}), ptx,
                             curated=not whole_product)
            for kind in kinds:
                if kind in per["kinds"]:   # measured before the interruption (--resume)
                    continue
                k0 = time.monotonic()
                kt = os.path.join(tmp, kind)
                os.makedirs(kt)
                planted, refused, live = planting.plant_kind(kind, forms, tc.ptxas, kt, target=target, ptx=ptx,
                                                             curated=not whole_product)
                got = lowered(os.path.join(kt, "m"), set(live), tc.ptxas, dis.path, arch, jobs) if live else {}
                clean = lowered(cdir, set(live), tc.ptxas, dis.path, arch, jobs, clean_done) if live else {}
                rows = collections.Counter(planted=len(planted), refused=len(refused))
                plants = []
                for fid in sorted(live):
                    rec = m.form(fid)
                    cv = verdict(rec, clean.get(fid, {"error": "not in the unplanted modules"}), target)
                    pv = verdict(rec, got.get(fid, {"error": "not in the planted modules"}), target)
                    cls, why = classify(kind, forms[fid], rec, target, cv, pv)
                    rows[cls] += 1
                    g = got.get(fid, {})
                    plants.append({"form": fid, "family": forms[fid].family, "was": live[fid]["from"],
                                   "planted": live[fid]["to"], "class": cls, "why": why, "verdict": pv[0],
                                   "message": pv[2], "key": pv[1], "clean_verdict": cv[0], "clean_key": cv[1],
                                   "sass": [i.text for i in g.get("instrs", [])],
                                   "sass_test_line": [i.text for i in g.get("instrs", [])
                                                      if i.ptx_line in g.get("test_lines", ())]})
                secs = time.monotonic() - k0
                per["kinds"][kind] = dict({c: rows[c] for c in COUNTS}, seconds=round(secs, 1), plants=plants,
                                          what=faults.KINDS[kind].what)
                if progress:
                    progress(f"selftest --tier lower: {target} {kind}: planted {rows['planted']} (refused "
                             f"{rows['refused']}), caught {rows['caught']}, equivalent {rows['equivalent']}, not "
                             f"judged {rows['not_judged']}, unruled {rows['unruled']}, holes {rows['holes']} "
                             f"({secs:.1f} s)")
        per["seconds"] = round(time.monotonic() - tk0, 1)


def rate(row):
    """Caught over the plants this tier judges (caught, unruled, holes): 100.0 when every one is caught, None
    when there is none."""
    denom = row["caught"] + row["unruled"] + row["holes"]
    return round(100.0 * row["caught"] / denom, 1) if denom else None


def print_table(report, stream=sys.stdout):
    stream.write(f"\n{'target':8} {'kind':15} " + " ".join(f"{c:>10}" for c in COUNTS) + f" {'caught %':>8}\n")
    for target, t in report["targets"].items():
        if "not_supported" in t:
            stream.write(f"{target:8} not supported: {t['not_supported']}\n")
            continue
        for kind, r in t["kinds"].items():
            pct = rate(r)
            stream.write(f"{target:8} {kind:15} " + " ".join(f"{r[c]:>10}" for c in COUNTS)
                         + f" {'-' if pct is None else pct:>8}\n")
    for target, t in report["targets"].items():
        for kind, r in t.get("kinds", {}).items():
            for p in r["plants"]:
                if p["class"] in ("holes", "unruled"):
                    stream.write(f"  {target} {kind}: {p['form']}: {p['class'].upper()} ({p['verdict']}): {p['was']}"
                                 f" -> {' / '.join(p['planted'])}\n      SASS: {' ; '.join(p['sass'])}\n")


def _resumed(folder, kinds, targets, families, ptx):
    """The interrupted report in `folder`; exit 2 (SystemExit) when there is none to finish, or another
    selection's."""
    path = os.path.join(folder, "selftest-lower.json")

    def refuse(why):
        sys.stderr.write(f"selftest: --resume {folder}: {why}\n")
        raise SystemExit(2)
    if not os.path.isfile(path):
        refuse("no selftest-lower.json there: nothing was measured there (a self-test stopped before its first "
               "kind writes none), or it is not a self-test's folder; start it afresh with the same options and "
               f"--out {folder}")
    from framework.documents import jsonloc
    doc = jsonloc.load(jsonloc.read_text(path), path)
    if not doc.get("interrupted"):
        refuse("that self-test is complete: nothing to finish")
    chosen = dict({"ptx": planting.PTX}, **(doc.get("selection") or {}))   # written before --ptx: the chapter's
    if chosen != {"kinds": kinds, "targets": targets, "families": sorted(families), "ptx": ptx}:
        refuse(f"that self-test selected {doc.get('selection')}: give its options (--kind, --target, --family, "
               f"--ptx)")
    return doc


def _write(report, kinds, targets, families, ptx, out):
    """out/selftest-lower.json, whole (atomic_write) and with signals deferred until it is written."""
    from framework import boundary
    from framework.documents import atomic_write
    report["selection"] = {"kinds": kinds, "targets": targets, "families": sorted(families), "ptx": ptx}
    with boundary.signals_deferred():
        os.makedirs(out, exist_ok=True)
        atomic_write(os.path.join(out, "selftest-lower.json"), json.dumps(report, indent=1, sort_keys=True) + "\n")


def main(a):
    """a: selftest/options.py parse's namespace with tier lower (kind, family, target, out, jobs, toolchain, nvdisasm)."""
    kinds = a.kind or list(faults.KINDS)
    targets = a.target or list(DEFAULT_LOWER_TARGETS)
    ptx = getattr(a, "ptx", None) or planting.PTX
    prior = _resumed(a.resume, kinds, targets, a.family, ptx) if getattr(a, "resume", None) else None
    if prior is not None:
        a.out = a.resume
    out = a.out or os.path.join(planting.ROOT, "results",
                                datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
                                + "-selftest-lower")
    from framework import boundary
    report, t0 = {}, time.monotonic()
    try:
        catch(kinds, targets, a.family, a.toolchain, a.nvdisasm, a.jobs, progress=lambda line: print(line, flush=True),
              prior=prior, ptx=ptx, into=report)
        _write(report, kinds, targets, a.family, ptx, out)
    except ValueError as e:
        if prior is None:
            raise
        sys.stderr.write(f"selftest: --resume {a.resume}: {e}\n")
        return 2
    except KeyboardInterrupt:   # after catch's own handler (its totals, its return) or while writing: keep it all
        if not report.get("targets"):
            raise   # nothing measured yet: nothing to write
        report.setdefault("interrupted", f"interrupted by {boundary.signal_name()}")
        # the totals again (the signal may have cut catch's short); seconds from this call of catch
        _write(totals(report, kinds, t0), kinds, targets, a.family, ptx, out)
    print_table(report)
    holes = sum(r["holes"] for r in report["kinds"].values())
    print(f"selftest --tier lower: {out}/selftest-lower.json ({report['seconds']} s; toolchain {report['toolchain']},"
          f" nvdisasm {report['nvdisasm']})")
    if report.get("interrupted"):
        print(f"selftest --tier lower: PARTIAL ({report['interrupted']}): the targets and kinds measured are in "
              f"{out}/selftest-lower.json")
        return boundary.interrupt_exit_code()
    return 1 if holes else 0

