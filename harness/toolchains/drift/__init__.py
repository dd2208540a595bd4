"""`./ptxcts toolchains drift TOOLCHAIN`: what a toolchain's ptxas accepts of the asynchronous copies that the ISA
model does not know, per family, target and PTX version.

Candidates. Per family, seed spellings are a few of the model's valid forms (a greedy cover of every qualifier of
its valid forms). The token pool is the model's whole qualifier vocabulary (every family's, model.vocabulary_forms)
plus the modifier-shaped strings of the ptxas binary itself, and the model's tokens extended by one `::component`
seen in either. One cheap probe per family keeps the tokens ptxas does not call "Unknown modifier" for that instruction;
each kept token is then inserted at every position of every seed and put in place of each of its qualifiers,
and every pair of a seed's qualifiers is swapped. A candidate whose qualifiers the model spells takes the model's operands, any other the seed's; a
candidate ptxas answers "Arguments mismatch" is tried again with one extra operand of each register width at
every position (a qualifier that brings an operand is found too).

Assembly. One module per (target, PTX version) holds every candidate of the run, one line each, and an unknown
modifier as its last line: ptxas then reports every line's errors and generates no code (a line ptxas cannot
parse at all, or one that kills it, is found and set aside). A candidate without an error on its line is
accepted. Targets: those of the toolchain from sm_90 to sm_121 (sm_107 included), each at the newest PTX version
the toolchain takes it at; every candidate goes to the 'a' target of each SM number, in waves: one that a wave
refuses for a reason no target changes (run.refused_everywhere), or that kills ptxas (reported as a crash of the
toolchain), is not tried at the later ones; the other targets get those no 'a' target refused outright; the
spellings the model does not know are then assembled at every older version to give their minimum.

Verdict per accepted spelling (model.case_rules at that target and version): `modelled` (a form of the model,
valid there), `model_rejects` (the model spells it and calls it invalid there: the compile tier's business, listed
with the rules), `ignored_by_ptxas` (unknown tokens that ptxas takes even on cp.async.bulk.commit_group, which has
no qualifier: it ignores them), `reordered` (the model's qualifiers in an order its syntax does not write), `listed` (unknown to
the model, but reviewed in results/expectations/drift.toml for this toolchain, with the reason), `unknown`.
Exit 0 when nothing is unknown, 1 when something is, 2 for a usage error (a toolchain path that does not exist or
is not a ptxas).

`--refused`, the other way (refused.py): every spelling the model calls valid, assembled at each target of the
toolchain where the model calls it valid (the newest PTX version and the spelling's minimum there): a table per
family, target and PTX version, and every spelling ptxas refuses with its message; exit 1 when any is refused.
"""
import collections
import json
import os
import sys

from ptxcts_gen import isa
from ptxcts_gen.targets import BY_NAME

from framework import given
from ptxcts_gen.arguments import ranged
from framework.documents import atomic_write
from framework.toolchains import ToolchainError, resolve

from .candidates import CONTROL
from .power import run_power, summary_power
from .refused import run_refused, summary_refused
from .run import run


VERDICTS = ("modelled", "model_rejects", "ignored_by_ptxas", "reordered_listed", "listed", "reordered", "unknown")


def summary(report, out=sys.stdout):
    """Per family and per target: accepted spellings by verdict; then every unknown one with its minimum PTX."""
    def table(title, key):
        rows = collections.defaultdict(collections.Counter)
        for r in report["spellings"]:
            rows[key(r)][r["verdict"]] += 1
        w = max([len(title)] + [len(k) for k in rows]) + 2
        out.write(f"{title:<{w}}" + "".join(f"{v:>17}" for v in VERDICTS) + "\n")
        tot = collections.Counter()
        for k in sorted(rows, key=lambda k: (BY_NAME[k].sm, k) if k in BY_NAME else (0, k)):
            tot.update(rows[k])
            out.write(f"{k:<{w}}" + "".join(f"{rows[k][v]:>17}" for v in VERDICTS) + "\n")
        out.write(f"{'total':<{w}}" + "".join(f"{tot[v]:>17}" for v in VERDICTS) + "\n\n")
    out.write(f"drift of toolchain {report['toolchain']} (ptxas {report['ptxas_version']}): {report['candidates']} "
              f"candidates over {len(report['targets'])} targets in {report['seconds']} s; accepted (target, PTX) "
              "pairs by verdict\n")
    if report.get("ignored_tokens"):
        out.write(f"tokens ptxas takes even on {CONTROL} (ignored wherever written): "
                  f"{' '.join(report['ignored_tokens'])}\n")
    table("family", lambda r: r["family"])
    table("target", lambda r: r["target"])
    crashes = report.get("crashes", [])
    if crashes:
        per = collections.Counter(c["family"] for c in crashes)
        out.write(f"ptxas {report['ptxas_version']} killed by a signal on {len(crashes)} candidate spellings at "
                  f"{crashes[0]['target']} (set aside on every target; a finding against the toolchain, not a "
                  f"verdict of the model): {', '.join(f'{f} {n}' for f, n in sorted(per.items()))}; e.g. "
                  f"{'  '.join(c['spelling'] for c in crashes[:3])}\n\n")
    unknown = collections.defaultdict(list)
    for r in report["spellings"]:
        if r["verdict"] in ("unknown", "reordered"):
            unknown[(r["family"], r["spelling"])].append(f"{r['target']} (PTX {r['min_ptx']}+)")
    if unknown:
        out.write(f"accepted by {report['toolchain']}, unknown to the model and not reviewed "
                  f"(results/expectations/drift.toml): {len(unknown)} spellings\n")
        for (family, s), where in sorted(unknown.items()):
            out.write(f"  {family}: {s}  at {', '.join(where)}\n")
    else:
        out.write("unknown to the model: none\n")
    return 1 if unknown else 0


def add_parser(sub):
    s = sub.add_parser("drift", help="what a toolchain accepts of the chapter's instructions that the ISA model does "
                       "not know (candidate spellings from the model's vocabulary and the ptxas binary)")
    s.add_argument("toolchain", metavar="NAME|PATH")
    s.add_argument("--family", action="append", metavar="FAMILY", help="only this family (repeatable)")
    s.add_argument("--target", action="append", metavar="TARGET", help="only this target (repeatable)")
    s.add_argument("--forget", action="append", default=[], metavar=".QUALIFIER",
                   help="judge as if the model did not know this qualifier (what the detector says when a release "
                        "adds it)")
    s.add_argument("--max-candidates", type=ranged(int, 1), metavar="N", help="at most N candidates per family (a quick look)")
    s.add_argument("--jobs", type=ranged(int, 1, 1024), metavar="N", help="ptxas processes at once (default: the usable cores)")
    s.add_argument("--json", path=given.NEW_FILE, metavar="FILE", help="also write the whole report (every accepted spelling) here")
    s.add_argument("--refused", action="store_true",
                   help="the other way: every spelling the model calls valid, assembled where the model calls it "
                        "valid; what ptxas refuses, per family, target and PTX version (exit 1 when any)")
    s.add_argument("--power", action="store_true",
                   help="the detector's own power: hide each qualifier of the model in turn and count the spellings "
                        "with it that drift rediscovers (exit 1 when one is missed)")
    s.add_argument("--qualifier", action="append", default=[], metavar=".QUALIFIER",
                   help="with --power: only this qualifier (repeatable; default every qualifier of the model)")
    return s


def cmd_drift(a):
    known = {m.FAMILY for m in isa.families()}
    for f in a.family or ():
        if f not in known:
            raise ToolchainError(f"--family {f}: not a family of the model ({', '.join(sorted(known))})")
    for t in a.target or ():
        if t not in BY_NAME:
            raise ToolchainError(f"--target {t}: not a target of the ISA model")
    for q in a.forget:
        if not q.startswith("."):
            raise ToolchainError(f"--forget {q}: a qualifier as spelled in PTX, with its leading dot (.ignore_oob)")
    if a.max_candidates is not None and a.max_candidates < 1:
        raise ToolchainError(f"--max-candidates {a.max_candidates}: at least 1")
    if a.json and not os.path.isdir(os.path.dirname(os.path.abspath(a.json))):
        raise ToolchainError(f"--json {a.json}: its folder does not exist")
    if a.refused and (a.forget or a.max_candidates is not None):
        raise ToolchainError("--refused assembles the model's own valid spellings: --forget and --max-candidates are "
                             "for the candidates of the other way")
    if (a.power or a.qualifier) and (a.refused or a.forget or a.max_candidates is not None or not a.power):
        raise ToolchainError("--power hides each qualifier itself (--qualifier names which): not with --refused, "
                             "--forget or --max-candidates; --qualifier needs --power")
    for q in a.qualifier:
        if not q.startswith("."):
            raise ToolchainError(f"--qualifier {q}: a qualifier as spelled in PTX, with its leading dot (.ignore_oob)")
    tc = resolve(a.toolchain)
    if a.power:
        report = run_power(tc, a.family, a.target, a.qualifier, a.jobs, log=sys.stderr)
        if a.json:
            atomic_write(a.json, json.dumps(report, indent=1, sort_keys=True) + "\n")
        return summary_power(report, sys.stdout)
    if a.refused:
        report = run_refused(tc, a.family, a.target, a.jobs, log=sys.stderr)
        if a.json:
            atomic_write(a.json, json.dumps(report, indent=1, sort_keys=True) + "\n")
        return summary_refused(report, sys.stdout)
    report = run(tc, a.family, a.target, a.forget, a.jobs, max_candidates=a.max_candidates)
    if a.json:
        atomic_write(a.json, json.dumps(report, indent=1, sort_keys=True) + "\n")
    return summary(report)
