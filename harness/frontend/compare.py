"""The silicon verdict of a front-end: its whole kernels, run by the run tier on a GPU, against the hand-written ones.

`./ptxcts frontend compare FE_RUN [--against RUN|BASELINE] [--json FILE]`. FE_RUN is a run-tier run whose kernels a
front-end wrote (`./ptxcts run --frontend NAME` or `--modules DIR`; its `toolchain.name` is the front-end's name).
Each case must get the class the hand-written kernel gets on the same device: the reference is a hand-written run
(folders, shards combined) or a run-tier baseline; by default the baseline of the device's architecture and the
paired toolchain that claims the run's device (results/baselines/run/<sm>/<device>/<paired toolchain>.json.gz,
baseline.choose). A case the front-end did not write is
`not_supported` in FE_RUN with the front-end's reason and is counted apart, never as agreeing. Every other
difference is a finding, listed with the command that replays it; a reviewed finding whose class flips from run to
run (a class set of the hand-written baseline) agrees with any class of its set. Cases are matched by (id, target, load path,
device architecture); the PTX version is the toolchain's choice for both.

Exit: 0 every compared case has the reference's class, 1 a difference, 2 usage, 3 a malformed input.
"""
import json
import os
from collections import Counter, defaultdict

from framework import boundary, given
from framework.documents import baseline, merge
from framework.documents.errors import ResultsError
from framework.documents.runio import atomic_write, output_over_input
from framework.documents.schema import toolchain_name

from .errors import FrontendError
from framework.progress import family_table
from framework import paths

NOT_WRITTEN = " did not write this kernel"
ROOT = paths.root()
COLUMNS = ("cases", "same", "differ", "not_written", "no_reference")


def _match(key):
    """(id, target, load path, device sm): the PTX version is left out (each side's toolchain chose it)."""
    return (key[0], key[1], key[3], key[4])


def _read(load, what):
    """load(what), a document reader of the framework: its errors keep their message and exit code."""
    try:
        return load(what)
    except ResultsError as e:
        raise FrontendError(str(e), e.exit_code) from e


def _merged(paths):
    """The runs in paths merged (framework.documents.merge)."""
    return _read(merge.load_and_merge, paths)


def _front_end_run(paths):
    group = _merged(paths)
    runs = group.runs
    first = runs[0].first
    if first.get("tier") != "run":
        raise FrontendError(f"{', '.join(paths)}: {runs[0].describe()}: a {first.get('tier')} document; compare takes "
                            "a run-tier run whose "
                            "kernels a front-end wrote (./ptxcts run --frontend NAME)")
    return group, first


def _baseline_path(sm, paired, dev):
    """The hand-written run-tier baseline of (device sm, paired toolchain) that claims the device `dev`
    ({name, cc, driver_branch}) under results/baselines (baseline.choose), or the path where it would be."""
    root = os.path.join(ROOT, "results", "baselines")
    chosen = baseline.choose(root, "run", paired, sm, dev)
    return chosen[0] if chosen else os.path.join(root, baseline.relative_path("run", paired, sm, dev))


def _baseline_cases(path):
    """(header, {key: class or class tuple}) of a baseline file."""
    return _read(baseline.load, path)


def _is_baseline_file(paths):
    """One file that is not a run's own results document (results.json[.gz]): a baseline."""
    return len(paths) == 1 and os.path.isfile(paths[0]) and \
        os.path.basename(paths[0]) not in ("results.json", "results.json.gz")


def _reference(against, sm, paired, dev):
    """{match key: set of classes}, and a description of the reference."""
    if against is None:
        path = _baseline_path(sm, paired, dev)
        if not os.path.isfile(path):
            raise FrontendError(f"no hand-written baseline for {sm}, toolchain {paired} and the device "
                                f"{baseline.describe_device(dev)} ({path}): give --against a hand-written run of the "
                                "same device")
        against = [path]
    if _is_baseline_file(against):
        header, cases = _baseline_cases(against[0])
        if header["tier"] == "run":
            return {_match(k): baseline.outcome(c) for k, c in cases.items()}, f"baseline {against[0]}"
    group = _merged(against)
    if group.runs[0].first.get("tier") != "run":
        raise FrontendError(f"--against {' '.join(against)}: not a run-tier run or baseline")
    ref = {_match(k): {case["class"]} for k, (case, _run) in group.results.items()}
    # A reviewed finding whose class flips from run to run (a class set of the hand-written baseline): the run's
    # class stands for the whole set.
    sets = _class_sets(sm, paired, dev)
    for k, classes in ref.items():
        if k in sets and classes <= sets[k]:
            ref[k] = sets[k]
    return ref, "run " + ", ".join(r.run_id for r in group.runs) + (" (and the baseline's class sets)" if sets else "")


def _class_sets(sm, paired, dev):
    """{match key: class set} of the hand-written baseline of (sm, paired toolchain, device), where it has any."""
    path = _baseline_path(sm, paired, dev)
    if not os.path.isfile(path):
        return {}
    _header, cases = _baseline_cases(path)
    return {_match(k): set(c) for k, c in cases.items() if isinstance(c, tuple)}


def compare(fe_results, reference):
    """Per family counts (COLUMNS) and the differences, each a dict with the replay command."""
    rows = defaultdict(Counter)
    differences, not_written = [], Counter()
    for key, (case, _run) in sorted(fe_results.items()):
        row = rows[case["family"]]
        row["cases"] += 1
        cls = case["class"]
        if cls == "not_supported" and NOT_WRITTEN in case.get("message", ""):
            row["not_written"] += 1
            not_written[case["message"].split(": ", 1)[-1][:160]] += 1
            continue
        ref = reference.get(_match(key))
        if ref is None:
            row["no_reference"] += 1
            continue
        if cls in ref:
            row["same"] += 1
            continue
        row["differ"] += 1
        differences.append({"id": case["id"], "family": case["family"], "load_path": case["load_path"],
                            "target": case["target"], "hand_written": sorted(ref), "front_end": cls,
                            "message": case.get("message", ""), "replay": case.get("replay", "")})
    return rows, differences, not_written


def main(argv, stream):
    p = boundary.ArgumentParser(prog="ptxcts frontend compare", description=__doc__.split("\n\n")[0])
    p.add_argument("run", path=given.INPUT, nargs="+", metavar="FE_RUN", help="the front-end's run (folder, results.json or shards)")
    p.add_argument("--against", nargs="+", metavar="REF", help="a hand-written run of the same device, or a run-tier "
                   "baseline (default: the baseline of the device's sm and the paired toolchain)")
    p.add_argument("--json", path=given.NEW_FILE, metavar="FILE", help="also write the comparison as JSON")
    a = p.parse_args(argv)
    # the comparison written over a run it reads (FE_RUN/results.json) would lose that run
    problem = output_over_input({"--json": a.json}, list(a.run) + list(a.against or ()))
    if problem:
        raise FrontendError(problem)
    group, doc = _front_end_run(a.run)
    name = toolchain_name(doc.get("toolchain"))
    from . import known_names
    from .triton.site import is_named
    if name not in known_names() and not is_named(name):   # a Triton named by path (--frontend triton=PATH)
        raise FrontendError(f"{group.runs[0].describe()}: its kernels are the hand-written ones (toolchain {name}); "
                            f"compare takes a run whose kernels a front-end wrote ({', '.join(sorted(known_names()))})")
    paired = toolchain_name({"ptxas": (doc.get("toolchain") or {}).get("ptxas")})
    sm = (doc.get("device") or {}).get("sm")
    if not sm:
        raise FrontendError(f"{group.runs[0].describe()}: a run without a device judges nothing on silicon")
    reference, described = _reference(a.against, sm, paired, baseline.device_of(doc["device"], doc.get("toolchain")))
    rows, differences, not_written = compare(group.results, reference)
    w = stream.write
    w(f"front-end {name} (paired ptxas {paired}) on {doc['device']['name']} ({sm}) against {described}\n\n")
    table, total = family_table(rows, COLUMNS)
    w(table)
    if not_written:
        w("\nnot written by the front-end (not_supported, its reasons):\n")
        for why, n in not_written.most_common():
            w(f"  {n:6}  {why}\n")
    for d in differences:
        w(f"\ndiffers  {d['id']} [{d['load_path']}]: hand-written {'/'.join(d['hand_written'])}, {name} {d['front_end']}"
          f"\n    {d['message'][:300]}\n    replay: {d['replay']}\n")
    if a.json:
        atomic_write(a.json, json.dumps({"frontend": name, "paired_toolchain": paired, "sm": sm, "reference": described,
                                         "families": {f: dict(r) for f, r in sorted(rows.items())},
                                         "not_written": dict(not_written), "differences": differences},
                                        indent=1, sort_keys=True) + "\n")
    w(f"\n{total['same']} of {total['same'] + total['differ']} compared case(s) get the hand-written class; "
      f"{total['differ']} differ; {total['not_written']} not written; {total['no_reference']} without a reference\n")
    if total["same"] + total["differ"] == 0:
        raise FrontendError("no case was compared (every case not written, or no reference for any)", 1)
    return 1 if differences else 0
