"""./ptxcts selftest --repeat N: silicon's catch rate of fault kinds, measured over N repetitions on the GPU.

Whether silicon catches a completion fault can be timing (a weaker wait is seen only while a copy is still in
flight when the kernel probes it): one self-test run says caught or not, a rate needs repetitions. This runs the
run-tier self-test (run_catch.main, unchanged) N times with the same seed against one clean run (the first
repetition's, reused by the others through --clean; or the one --clean names, for every repetition), the plants
planted and checked by ptxas once (the cache of selftest/plants.py plant_kind; the run tier's cubins are cached by
content), and writes per kind: the plants judged in each repetition, the plants caught in each, and the rate over
all repetitions, with the device, driver and toolchain.

The default is the completion kinds (wait_count, wait_read, arrive) on the completion families (cp.async.groups,
cp.async.bulk.groups); --kind and --family choose others. The committed figures live in
results/selftest/guarantees.toml (`[kinds.K.silicon_rates.<device>]`): this prints the lines to put there.

    ./ptxcts selftest --repeat N [--kind K]... [--family F]... [--out DIR] [--jobs J] [--budget S] [--clean DIR]

--budget S bounds the whole measurement: no repetition starts that would end after S seconds at the mean
repetition's pace (default 540). Writes DIR/rates.json after every repetition (DIR/rep-NN/ holds each one's
selftest.json); exit 0 when measured (whatever the rates), 77 without a GPU ("no GPU here"), 130 interrupted
(what was measured is written), 2 on a usage error.
"""
import datetime
import json
import os
import sys
import time

from framework import paths
from selftest import options, run_catch, runs

COMPLETION_KINDS = ("wait_count", "wait_read", "arrive")
COMPLETION_FAMILIES = ("cp.async.groups", "cp.async.bulk.groups")


def judged(kind_doc):
    """(plants judged, plants caught) of one kind in one selftest.json. Judged: the plants silicon must catch,
    planted less refused, not judged (no case) and equivalent (the model expects the same outcome: nothing to
    catch); a rate over equivalents would read low for a kind that catches every fault it can."""
    rows = (kind_doc or {}).get("families", {}).values()
    return (sum(r["planted"] - r["refused"] - r["no_case"] - r.get("equivalent", 0) for r in rows),
            sum(r["caught"] for r in rows))


def equivalent(kind_doc):
    return sum(r.get("equivalent", 0) for r in (kind_doc or {}).get("families", {}).values())


def tally(reps, kinds):
    """{kind: {planted, equivalent_per_repetition, judged_per_repetition, caught_per_repetition, judged, caught,
    rate}} over the repetitions' selftest.json documents (judged: see judged)."""
    out = {}
    for k in kinds:
        docs = [r["kinds"][k] for r in reps if k in r.get("kinds", {})]
        per = [judged(d) for d in docs]
        n = sum(j for j, _ in per)
        c = sum(c for _, c in per)
        out[k] = {"planted": max((j for j, _ in per), default=0),
                  "equivalent_per_repetition": [equivalent(d) for d in docs],
                  "judged_per_repetition": [j for j, _ in per], "caught_per_repetition": [c for _, c in per],
                  "repetitions": len(per), "judged": n, "caught": c,
                  "rate": round(100.0 * c / n, 2) if n else None}
    return out


def toml_lines(doc):
    """The guarantees file's lines for these measurements (results/selftest/guarantees.toml)."""
    dev = doc.get("device") or "device"
    slug = "".join(ch if ch.isalnum() else "_" for ch in dev.replace("NVIDIA ", "").lower()).strip("_")
    command = doc.get("command_line") or f"--repeat {doc['asked']}"
    lines = []
    for k, r in doc["kinds"].items():
        if r["rate"] is None:
            continue
        lines += [f"[kinds.{k}.silicon_rates.{slug}]", f'device = "{dev}"', f'driver = "{doc.get("driver")}"',
                  f'toolchain = "{doc.get("toolchain")}"', f'date = "{doc["date"]}"',
                  f"repetitions = {r['repetitions']}", f"planted = {r['planted']}", f"judged = {r['judged']}",
                  f"caught = {r['caught']}", f"rate = {r['rate']}",
                  f'source = "./ptxcts selftest {command}"', ""]
    return lines


def main(a):
    """a: selftest/options.py parse's namespace with --repeat."""
    from framework.documents import atomic_write
    from framework import boundary
    kinds = a.kind or list(COMPLETION_KINDS)
    families = a.family or (list(COMPLETION_FAMILIES) if set(kinds) <= set(COMPLETION_KINDS) else [])
    stamp = datetime.datetime.now(datetime.timezone.utc)
    out = a.out or os.path.join(paths.root(), "results", stamp.strftime("%Y-%m-%dT%H-%M-%SZ") + "-selftest-rates")
    os.makedirs(out, exist_ok=True)
    doc = {"schema": "ptxcts-selftest-rates", "version": 1, "date": stamp.strftime("%Y-%m-%d"),
           "started": stamp.isoformat(), "asked": a.repeat, "seed": a.seed, "kinds_asked": kinds,
           "families": families, "clean": a.clean, "command_line": " ".join(sys.argv[1:]) or None,
           "device": None, "driver": None, "toolchain": None, "repetition_seconds": [], "kinds": {},
           "interrupted": False}
    reps = []
    plants = {}   # selftest/plants.py plant_kind's cache: each kind planted and checked by ptxas once
    t0 = time.monotonic()

    def save():
        doc["kinds"] = tally(reps, kinds)
        doc["repetitions"] = len(reps)
        doc["seconds"] = round(time.monotonic() - t0, 1)
        with boundary.signals_deferred():
            atomic_write(os.path.join(out, "rates.json"), json.dumps(doc, indent=1, sort_keys=True) + "\n")

    rc = 0
    for i in range(1, a.repeat + 1):
        spent = time.monotonic() - t0
        pace = spent / len(reps) if reps else 0.0
        if reps and spent + pace > a.budget:
            doc["stopped_for_budget"] = f"{len(reps)} of {a.repeat} repetitions within --budget {a.budget:.0f} s"
            print(f"selftest --repeat: budget: {doc['stopped_for_budget']}", flush=True)
            break
        rdir = os.path.join(out, f"rep-{i:02d}")
        argv = ["--out", rdir, "--seed", str(a.seed), "--jobs", str(a.jobs), "--cases-per-form",
                str(a.cases_per_form), "--budget", str(a.budget)]
        for k in kinds:
            argv += ["--kind", k]
        for f in families:
            argv += ["--family", f]
        if a.clean:   # given: every repetition reuses it (rates measured side by side share one clean run)
            argv += ["--clean", a.clean]
        elif reps:
            argv += ["--clean", os.path.join(out, "rep-01", "clean")]
        r0 = time.monotonic()
        try:
            code = run_catch.main(options.parse(argv), plants=plants)
        except runs.NoGpu:
            for d in (os.path.join(rdir, "clean"), rdir, out):   # nothing measured: leave no empty folder
                try:
                    os.rmdir(d)
                except OSError:
                    pass
            raise   # selftest.main says why and exits 77
        path = os.path.join(rdir, "selftest.json")
        if os.path.isfile(path):
            with open(path) as f:
                rep = json.load(f)
            reps.append(rep)
            for field in ("device", "driver", "toolchain"):
                doc[field] = doc[field] or rep.get(field)
            doc["repetition_seconds"].append(round(time.monotonic() - r0, 1))
        if code not in (0, 1):   # 1: a survivor, which is what a rate below 100 % is made of
            doc["interrupted"] = True
            rc = code
            save()
            break
        save()
        line = ", ".join(f"{k} {r['caught_per_repetition'][-1] if r['caught_per_repetition'] else '-'}/"
                         f"{r['judged_per_repetition'][-1] if r['judged_per_repetition'] else '-'}"
                         for k, r in doc["kinds"].items())
        print(f"selftest --repeat: [{i}/{a.repeat}] {line} ({time.monotonic() - r0:.0f} s)", flush=True)
    save()
    print(f"\nselftest --repeat: {len(reps)} repetitions on {doc['device']} (driver {doc['driver']}, toolchain "
          f"{doc['toolchain']}), {doc['seconds']} s")
    print(f"{'kind':15} {'planted':>7} {'judged':>7} {'caught':>7} {'rate %':>7}  caught per repetition")
    for k, r in doc["kinds"].items():
        print(f"{k:15} {r['planted']:7} {r['judged']:7} {r['caught']:7} "
              f"{'-' if r['rate'] is None else r['rate']:>7}  {' '.join(map(str, r['caught_per_repetition']))}")
    print(f"selftest --repeat: {out}/rates.json; for results/selftest/guarantees.toml:\n")
    print("\n".join(toml_lines(doc)))
    return rc
