"""./ptxcts selftest (--tier run, the default): the run tier's catch of the planted faults, on the GPU. Each kind is
planted (plants.py), run in stages against a clean run of the same seed (runs.py), tallied per family; the
score is DIR/selftest.json and the table closes the run (the whole story: selftest.py)."""
import collections
import datetime
import json
import os
import re
import tempfile
import time

from ptxcts_gen import faults
from ptxcts_gen import load_forms
from framework import boundary, paths
from selftest.host_kinds import host_kind
from selftest.options import ALL_KINDS
from selftest.plants import PTX, TARGET, plant_kind
from selftest.runs import changed, run_tier, staged, tally, where_time_went


def main(a, plants=None):
    """The run tier's catch of every kind (a: the parsed options, selftest/options.py); plants: selftest/rates.py's
    cache of plants across its repetitions (plant_kind's cache)."""
    from framework import toolchains
    ptxas = toolchains.resolve().ptxas
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = a.out or os.path.join(paths.root(), "results", f"{stamp}-selftest")
    forms = {f.id: f for f in load_forms() if f.valid and (not a.family or f.family in a.family)}
    kinds = a.kind or list(ALL_KINDS)
    t0 = time.monotonic()
    families = sorted({f.family for f in forms.values()})
    if a.clean:
        from framework import documents
        clean_doc = documents.load(os.path.join(a.clean, "results.json"))   # InputError (exit 3) names the field
        clean = {(c["id"], c["load_path"]): c for c in clean_doc.pop("cases")}
    else:
        print(f"selftest: clean run of {len(families)} families (cubin, seed {a.seed})", flush=True)
        clean, clean_doc = run_tier(os.path.join(out, "clean"), families, a.seed, a.jobs)
    # made once the clean run is there: a malformed --clean, or no GPU, leaves no folder behind
    os.makedirs(out, exist_ok=True)
    # A fault is caught when a case that passes clean changes class; only those cases run (no expected traps, which
    # cost a worker restart each), on the cubin path.
    by_form = collections.defaultdict(list)
    for key, c in clean.items():
        if key[1] == "cubin" and c["class"] == "pass":
            by_form[c["form"]].append(key)
    if a.cases_per_form:
        # the largest transfers first: they carry the most data and every edge value (a 16-byte case can hold
        # only values where add.u32 and add.s32, or or and xor, agree); then the rest by ID
        def weight(key):
            m = re.search(r"#.*?size_(\d+)", key[0])
            return (-(int(m.group(1)) if m else 0), key)
        for fid in by_form:
            by_form[fid] = sorted(by_form[fid], key=weight)[:a.cases_per_form]
    # the device, driver and toolchain the score comes from: the clean run's
    tc = clean_doc.get("toolchain") or {}
    report = {"schema": "ptxcts-selftest", "version": 1, "started": stamp, "seed": a.seed, "target": TARGET,
              "ptx": PTX, "kinds": {}, "interrupted": False, "device": (clean_doc.get("device") or {}).get("name"),
              "driver": tc.get("driver"), "toolchain": f"{tc.get('name')} (ptxas {tc.get('ptxas')})",
              "clean_run": {"cases": len(clean), "run_tier": where_time_went(clean_doc)}}
    def save():
        from framework.documents import atomic_write
        report["seconds"] = round(time.monotonic() - t0, 1)
        with boundary.signals_deferred():
            atomic_write(os.path.join(out, "selftest.json"), json.dumps(report, indent=1, sort_keys=True) + "\n")

    try:
        for i, kind in enumerate(kinds, 1):
            if time.monotonic() - t0 > a.budget:
                report["skipped_for_budget"] = kinds[i - 1:]
                print(f"selftest: budget of {a.budget:.0f} s spent: kinds not run: {', '.join(kinds[i - 1:])}")
                break
            k0 = time.monotonic()
            if kind in faults.HOST_KINDS:
                # a perturbed map can hang a load (a box that no longer matches the expected transaction bytes):
                # each host kind gets its share of the remaining budget as the run tier's deadline
                share = max(30.0, (a.budget - (time.monotonic() - t0)) / (len(kinds) - i + 1))
                report["kinds"][kind] = host_kind(kind, forms, by_form, clean, out, a, share)
                save()
                print_kind(i, len(kinds), kind, report["kinds"][kind], k0, t0)
                continue
            with tempfile.TemporaryDirectory(prefix=f"ptxcts-selftest-{kind}-") as tmp:
                planted, refused, live = plant_kind(kind, forms, ptxas, tmp, keep=lambda fid: bool(by_form.get(fid)),
                                                    cache=plants)
                allow = os.path.join(tmp, "forms.txt")
                fams = sorted({forms[fid].family for fid in live})
                faulty, timing = staged(os.path.join(out, kind), {f: by_form[f] for f in live}, clean,
                                        lambda o, ids, alone: run_tier(o, fams, a.seed, 1 if alone else a.jobs, kind,
                                                                       allow, ids, alone=alone))
            rows = tally()
            survivors = []
            for fid in planted:
                rows[forms[fid].family]["planted"] += 1
            for fid in refused:
                rows[forms[fid].family]["refused"] += 1
            unconfirmed = []
            for fid, p in sorted(live.items()):
                fam = forms[fid].family
                confirmed, beside = changed(by_form[fid], clean, faulty)
                if confirmed:
                    rows[fam]["caught"] += 1
                    continue
                if beside or any(faulty.get(k, {}).get("class", "skipped") == "skipped" for k in by_form[fid]):
                    rows[fam]["no_case"] += 1   # not judged: a crash not confirmed alone, or a case not run
                    unconfirmed.append(fid)
                    continue
                reason = faults.KINDS[kind].equivalent(forms[fid])
                rows[fam]["equivalent" if reason else "holes"] += 1
                survivors.append({"form": fid, "family": fam, "planted": p["to"], "was": p["from"],
                                  "equivalent": reason, "cases": len(by_form[fid])})
            for fid in set(planted) - set(refused) - set(live):
                rows[forms[fid].family]["no_case"] += 1
            report["kinds"][kind] = {"what": faults.KINDS[kind].what, "families": dict(rows), "survivors": survivors,
                                     "seconds": round(time.monotonic() - k0, 1),
                                     "cases_run": sum(1 for c in faulty.values() if c["class"] != "skipped"),
                                     "run_tier": timing,
                                     "not_judged": unconfirmed}
            save()
            print_kind(i, len(kinds), kind, report["kinds"][kind], k0, t0)
    except KeyboardInterrupt:
        report["interrupted"] = True
        print(f"\nselftest: interrupted after {len(report['kinds'])} of {len(kinds)} kinds; writing what was measured")
    save()
    holes = summary(report)
    print(f"selftest: {out}/selftest.json ({report['seconds']} s)")
    if report["interrupted"]:
        return boundary.interrupt_exit_code()
    return 1 if holes else 0


def print_kind(i, n, kind, k, k0, t0):
    rows = k["families"].values()
    done = time.monotonic() - t0
    print(f"selftest: [{i}/{n}] {kind}: planted {sum(r['planted'] for r in rows)}, refused "
          f"{sum(r['refused'] for r in rows)}, caught {sum(r['caught'] for r in rows)}, equivalent "
          f"{sum(r['equivalent'] for r in rows)}, holes {sum(r['holes'] for r in rows)} "
          f"({time.monotonic() - k0:.0f} s; {done:.0f} s elapsed, ~{done / i * (n - i):.0f} s left)", flush=True)


def summary(report):
    """The table per family and kind; returns the number of holes."""
    print(f"\n{'family':30} {'kind':15} {'planted':>7} {'refused':>7} {'caught':>6} {'equiv':>5} {'holes':>5} "
          f"{'caught %':>8}")
    holes = 0
    for kind, k in report["kinds"].items():
        for fam, r in sorted(k["families"].items()):
            denom = r["caught"] + r["holes"]
            pct = f"{100.0 * r['caught'] / denom:.1f}" if denom else "-"
            print(f"{fam:30} {kind:15} {r['planted']:7} {r['refused']:7} {r['caught']:6} {r['equivalent']:5} "
                  f"{r['holes']:5} {pct:>8}")
            holes += r["holes"]
    for kind, k in report["kinds"].items():
        for s in k["survivors"]:
            tag = "equivalent: " + s["equivalent"] if s["equivalent"] else "HOLE"
            print(f"  {kind}: {s['form']}: {tag}\n      {s['was']}\n   -> {' / '.join(s['planted'])}")
            if s.get("model_change"):
                print(f"      the model expects: {s['model_change']}")
    return holes
