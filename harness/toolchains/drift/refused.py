"""The other way of the drift detector (`./ptxcts toolchains drift NAME --refused`): what the model calls valid that
the toolchain's ptxas refuses, per family, target and PTX version.

Every combination of the model's vocabulary (model.vocabulary_forms), spelled with the model's operands, is
assembled on each target of the toolchain (targets_of: sm_90 to sm_121) where the model calls it valid
(model.case_rules empty), at the newest PTX version the toolchain takes that target at and at the combination's own
minimum there (model.effective_min) when the toolchain takes that version: one module per (target, version), an
error per line (ptxas.assemble). A line with an error is `refused`, with ptxas's first message; the rest `accepted`.
A toolchain's regressions on the model's valid spellings show on its first day, before a compile baseline exists.
"""
import collections
import tempfile
import time
import concurrent.futures as cf

from ptxcts_gen import isa
from ptxcts_gen.model import case_rules, effective_min, vocabulary_forms
from ptxcts_gen.targets import BY_NAME, ptx_key

from framework.pool import usable_cpus
from framework.progress import Progress
from framework.toolchains import ToolchainError

from .ptxas import assemble
from .run import targets_of


def plan(tgts, families=None):
    """{(target, arch, PTX version): [(family, spelling)]}: each valid combination of the vocabulary at each
    target where the model calls it valid, at the target's newest version and at the combination's minimum there."""
    work = collections.defaultdict(list)
    for mod in isa.families():
        if families and mod.FAMILY not in families:
            continue
        for f in vocabulary_forms(mod):
            if not (f.valid or f.valid_from):
                continue
            for name, arch, versions in tgts:
                t = BY_NAME[name]
                low = effective_min(f, t)
                at = {versions[-1]} | ({low} if low in versions else set())
                if f.valid_from and f.valid_from in versions:
                    at.add(f.valid_from)
                for v in sorted(at, key=ptx_key):
                    if not case_rules(f, t, v):
                        work[(name, arch, v)].append((mod.FAMILY, f.instr))
    return work


def run_refused(tc, families=None, only_targets=None, jobs=None, log=None):
    """The report: every (family, spelling, target, PTX version) the model calls valid, `accepted` or `refused`
    (with ptxas's first message)."""
    t0 = time.monotonic()
    tgts = targets_of(tc, only_targets)
    if not tgts:
        raise ToolchainError(f"toolchain {tc.name} knows none of the targets asked for "
                             f"({', '.join(only_targets or ['sm_90..sm_121'])})")
    work = plan(tgts, families)
    jobs = jobs or usable_cpus()
    rows = []
    progress = Progress(len(work), stream=log, label="drift --refused", unit="modules") if log else None
    with tempfile.TemporaryDirectory(prefix="ptxcts-drift-refused-") as tmp, cf.ThreadPoolExecutor(jobs) as ex:
        def one(key):
            name, arch, v = key
            lines = work[key]
            return key, lines, assemble(tc.ptxas, arch, name, v, [s for _, s in lines], tmp)
        for (name, _, v), lines, errs in ex.map(one, sorted(work)):
            for i, (family, spelling) in enumerate(lines):
                e = errs.get(i)
                rows.append({"family": family, "spelling": spelling, "target": name, "ptx": v,
                             "verdict": "refused" if e else "accepted", "error": e[0] if e else ""})
            if progress:
                progress.advance(1)
    return {"toolchain": tc.name, "ptxas": tc.ptxas, "ptxas_version": tc.description.get("ptxas_version"),
            "targets": [t for t, _, _ in tgts], "direction": "model_valid_ptxas_refuses",
            "seconds": round(time.monotonic() - t0, 1), "rows": rows}


def summary_refused(report, out):
    """The table per family, target and PTX version (valid spellings assembled, refused), then every refused
    spelling with ptxas's message; 1 when any is refused."""
    cells = collections.defaultdict(collections.Counter)
    for r in report["rows"]:
        cells[(r["family"], r["target"], r["ptx"])][r["verdict"]] += 1
    out.write(f"drift of toolchain {report['toolchain']} (ptxas {report['ptxas_version']}), the other way: what the "
              f"model calls valid that ptxas refuses; {len(report['rows'])} (spelling, target, PTX) assembled over "
              f"{len(report['targets'])} targets in {report['seconds']} s\n")
    w = max([len("family")] + [len(k[0]) for k in cells]) + 2
    out.write(f"{'family':<{w}}{'target':<10}{'ptx':>5}{'valid':>9}{'refused':>9}\n")
    tot = collections.Counter()
    for (fam, tgt, v) in sorted(cells, key=lambda k: (k[0], BY_NAME[k[1]].sm, k[1], ptx_key(k[2]))):
        c = cells[(fam, tgt, v)]
        tot.update(c)
        out.write(f"{fam:<{w}}{tgt:<10}{v:>5}{c['accepted'] + c['refused']:>9}{c['refused']:>9}\n")
    out.write(f"{'total':<{w}}{'':<10}{'':>5}{tot['accepted'] + tot['refused']:>9}{tot['refused']:>9}\n\n")
    refused = [r for r in report["rows"] if r["verdict"] == "refused"]
    if not refused:
        out.write("valid in the model, refused by ptxas: none\n")
        return 0
    out.write(f"valid in the model, refused by {report['toolchain']}: {len(refused)} (a fail of the compile tier, or a "
              "reviewed finding where the text and ptxas differ)\n")
    for r in sorted(refused, key=lambda r: (r["family"], r["spelling"], BY_NAME[r["target"]].sm, r["target"],
                                            ptx_key(r["ptx"]))):
        out.write(f"  {r['family']}: {r['spelling']}  at {r['target']} PTX {r['ptx']}: {r['error']}\n")
    return 1
