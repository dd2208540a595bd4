"""What a GPU run of the litmus tier observed, against what it is owed: `./ptxcts litmus unseen RUN_DIR` (the
allowed outcomes never observed, against the device's baseline of them) and `./ptxcts litmus triage RUN_DIR`
(the surviving mutants and why, one line each, into RUN_DIR/triage.tsv for review), and `./ptxcts litmus table
RUN_DIR --out FILE` (the run's environment table ranked again from every kill it recorded, its focus rounds' too:
tuning.retable; the file to commit under harness/litmodel/envs/).

An allowed outcome never observed is not a failure (the model allows it; the device need not show it), so it is
reported, not failed: `unseen` lists the outcomes the baseline's run observed that this run did not (`no longer
observed`: the environment lost power, or the device changed), and those the baseline never saw that this run did
(`now observed`). `--strict` exits 1 on a `no longer observed` one (a gate that wants the stress not to weaken).
`--update` writes the baseline from the run (review the diff). A baseline claims its device like the other tiers'
(results/baselines/README.md): the device name, compute capability and driver branch.

Baseline file: results/baselines/litmus/<sm>/<device slug>-r<branch>/unseen-allowed.jsonl.gz, schema
`ptxcts-litmus-unseen`, one test a line: {"test": [outcome never observed, ...]}."""
import argparse
import glob
import gzip
import json
import os
import sys

from framework.documents import baseline

SCHEMA = "ptxcts-litmus-unseen"
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE_DIR = os.path.join(ROOT, "results", "baselines", "litmus")


class Malformed(Exception):
    """A run folder or baseline that cannot be read (exit 3), naming the file and what is wrong."""


def _gz_or_plain(path):
    for p in (path, path + ".gz", path[:-3] if path.endswith(".gz") else None):
        if p and os.path.isfile(p):
            return p
    raise FileNotFoundError(path)


def _open(path):
    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def read_run(run_dir):
    """(device claim, run id, {test: {"seen": set, "unseen": set}}, [mutant records]) of a run folder (results.json,
    histograms.jsonl.gz, mutants.jsonl.gz; a results folder may keep them under a suffix: *-SUFFIX.*)."""
    def one(pattern):
        found = sorted(glob.glob(os.path.join(run_dir, pattern)))
        if len(found) > 1:
            raise Malformed(f"{run_dir}: more than one {pattern}: {', '.join(os.path.basename(f) for f in found)}")
        return found[0] if found else None
    res = one("results*.json") or one("results*.json.gz")
    hist = one("histograms*.jsonl.gz")
    if not res or not hist:
        raise Malformed(f"{run_dir}: no results.json and histograms.jsonl.gz of a litmus gpu run")
    try:
        with _open(res) as f:
            doc = json.load(f)
        claim = baseline.device_of(doc.get("device") or {"name": None}, doc.get("toolchain"))
        tests = {}
        with _open(hist) as f:
            for no, line in enumerate(f, 1):
                h = json.loads(line)
                if h.get("mutant"):
                    continue
                tests[h["test"]] = {"seen": {o for o, (c, v) in h["outcomes"].items() if v == "allowed"},
                                    "unseen": set(h["unseen_allowed"])}
        muts = []
        mpath = one("mutants*.jsonl.gz")
        if mpath:
            with _open(mpath) as f:
                muts = [json.loads(l) for l in f]
    except (ValueError, KeyError, TypeError, AttributeError, OSError, EOFError) as e:   # gzip's errors are OSError
        raise Malformed(f"{run_dir}: not a litmus gpu run's output: {type(e).__name__}: {e}")
    return claim, doc.get("run_id"), tests, muts


def baseline_path(claim):
    """Where the device's baseline is: the other tiers' device folder (framework.documents.baseline.device_folder)."""
    sm = "sm_" + str(claim.get("cc") or "0").replace(".", "")
    return os.path.join(BASE_DIR, sm, baseline.device_folder(dict(claim, name=claim.get("name") or "unknown")),
                        "unseen-allowed.jsonl.gz")


def write_baseline(path, claim, run_id, tests):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    head = {"schema": SCHEMA, "version": 1, "device": claim, "source": {"runs": [run_id]}}
    lines = [json.dumps({t: sorted(tests[t]["unseen"])}, sort_keys=True) for t in sorted(tests)]
    text = json.dumps(head, sort_keys=True) + "\n" + "\n".join(lines) + "\n"
    with open(path, "wb") as f:   # no timestamp in the gzip header: the same content, the same bytes
        with gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as g:
            g.write(text.encode())


def read_baseline(path):
    try:
        with _open(path) as f:
            head = json.loads(f.readline())
            if head.get("schema") != SCHEMA:
                raise Malformed(f"{path}:1: not a baseline of allowed outcomes never observed (schema {SCHEMA!r})")
            out = {}
            for no, line in enumerate(f, 2):
                row = json.loads(line)
                if not isinstance(row, dict) or len(row) != 1:
                    raise Malformed(f"{path}:{no}: expected {{TEST: [OUTCOME, ...]}}")
                [(t, unseen)] = row.items()
                out[t] = set(unseen)
    except (ValueError, AttributeError, OSError, EOFError) as e:
        raise Malformed(f"{path}: not a baseline's JSON lines: {type(e).__name__}: {e}")
    return head, out


def compare(tests, base):
    """(no longer observed, now observed, tests only in the run, tests only in the baseline): lists of
    (test, outcome) / test names."""
    gone, new = [], []
    for t, r in sorted(tests.items()):
        if t not in base:
            continue
        gone += [(t, o) for o in sorted(r["unseen"] - base[t])]
        new += [(t, o) for o in sorted(base[t] & r["seen"])]
    return gone, new, sorted(set(tests) - set(base)), sorted(set(base) - set(tests))


def triage_rows(muts):
    """One line per surviving mutant: mutant, operator, triage, rule, environments tried, instances, what the
    mutation changed in the SASS (static.sass_diff), the tests that showed a killing outcome of a stress gap
    (gpu_tier.device_showed: `-` none; empty where not computed), why."""
    rows = ["mutant\toperator\ttriage\trule\tenvironments\tinstances\tsass_diff\tdevice_showed\twhy"]
    for m in sorted((m for m in muts if m.get("fate") == "survived"), key=lambda m: (m.get("triage", ""), m["mutant"])):
        tried = m.get("tried") or {}
        showed = m.get("device_showed")
        rows.append("\t".join([m["mutant"], m["operator"], m.get("triage", "?"), m.get("rule", ""),
                               ",".join(tried.get("environments", [])), str(tried.get("instances", "")),
                               tried.get("sass_diff", ""), "" if showed is None else ",".join(showed) or "-",
                               " ".join(x for x in (m.get("why", ""), tried.get("note", "")) if x).replace("\t", " ")]))
    return rows


def triage_again(run_dir, muts):
    """The run's surviving mutants triaged again by today's rules (gpu_tier.triage: the model, the lowering rules,
    the placement siblings' evidence) from what the run recorded: each mutant's runs and SASS difference, every
    histogram. A survivor the suite no longer holds keeps its recorded triage (`kept`). Returns the new records
    (the run's mutants.jsonl.gz is its record and is not rewritten) and the names kept."""
    from . import gpu_tier, mutants, suite
    from .model import Model
    hpath = sorted(glob.glob(os.path.join(run_dir, "histograms*.jsonl.gz")))[0]
    try:
        with _open(hpath) as f:
            hists = {h["test"]: {o: c for o, (c, _) in h["outcomes"].items()} for h in map(json.loads, f)}
    except (ValueError, KeyError, TypeError, OSError, EOFError) as e:
        raise Malformed(f"{hpath}: not a litmus gpu run's histograms: {type(e).__name__}: {e}")
    info = {r["mutant"]: r for r in mutants.read(os.path.join(suite.SUITE_DIR, "mutants.jsonl.gz"))}
    originals = suite.suite_tests()
    siblings, model = gpu_tier.placement_siblings(originals), Model()
    out, kept = [], []
    for m in muts:
        if m.get("fate") != "survived" or m.get("triage") == "original_diverges":
            out.append(m)
            continue
        if m["mutant"] not in info:
            kept.append(m["mutant"])
            out.append(m)
            continue
        diff = m.get("sass_diff")
        row = None if diff is None else ((True, "the run's record", "") if diff == "same" else (False, "", diff))
        again = {k: v for k, v in m.items() if k not in ("triage", "rule", "why", "tried", "device_showed",
                                                          "distinct_outcomes_seen")}
        again.update(gpu_tier.triage(info[m["mutant"]], hists.get(m["mutant"], {}), m.get("runs"), row, model,
                                     originals, gpu_tier.device_showed(info[m["mutant"]], hists, siblings)))
        out.append(again)
    return out, kept


def table_again(run_dir, muts, out):
    """(the run's environment table ranked again from every killing run in its mutants' records, the old table):
    tuning.retable. Malformed naming the file where the table is missing, is not one, or lacks an environment a
    kill was in. `out`, where the new table goes, is not read as the run's (it may be in the run's folder)."""
    from . import tuning
    found = [f for f in sorted(glob.glob(os.path.join(run_dir, "env-table*.json")) +
                               glob.glob(os.path.join(run_dir, "env-table*.json.gz")))
             if os.path.abspath(f) != os.path.abspath(out)]
    if len(found) != 1:
        raise Malformed(f"{run_dir}: {'no' if not found else 'more than one'} env-table.json[.gz] of a --tune run")
    try:
        _, table = tuning.read_table(found[0])
    except OSError as e:
        raise Malformed(f"{found[0]}: not an environment table: {type(e).__name__}: {e}")
    except tuning.TableError as e:
        raise Malformed(str(e))
    try:
        # a killing run of a mutant the run did not count as killed (its original showed the outcome too) is no kill
        kills = [(m["mutant"], r["env"]) for m in muts if m.get("fate") == "killed"
                 for r in m.get("runs", []) if r.get("verdict") == "killed"]
        return tuning.retable(table, kills, tuning.shapes(), os.path.relpath(run_dir, ROOT)), table
    except (KeyError, TypeError, AttributeError) as e:
        raise Malformed(f"{run_dir}: a mutant record without its runs' env and verdict: {type(e).__name__}: {e}")
    except tuning.TableError as e:
        raise Malformed(str(e))


def main(argv):
    p = argparse.ArgumentParser(prog="ptxcts litmus unseen|triage|table", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="verb", required=True)
    u = sub.add_parser("unseen", help="allowed outcomes never observed, against the device's baseline")
    u.add_argument("run", metavar="RUN_DIR")
    u.add_argument("--baseline", metavar="FILE", help="this baseline (default: the one the run's device claims)")
    u.add_argument("--update", action="store_true", help="write the baseline from the run")
    u.add_argument("--strict", action="store_true", help="exit 1 on an outcome no longer observed")
    t = sub.add_parser("triage", help="RUN_DIR/triage.tsv: every surviving mutant and why")
    t.add_argument("run", metavar="RUN_DIR")
    t.add_argument("--again", action="store_true",
                   help="triage the survivors again by today's rules from what the run recorded (triage_again)")
    r = sub.add_parser("table", help="the run's environment table ranked again from every kill it recorded")
    r.add_argument("run", metavar="RUN_DIR")
    r.add_argument("--out", required=True, metavar="FILE", help="where to write it (harness/litmodel/envs/... to "
                   "commit it for the device)")
    a = p.parse_args(argv)
    if not os.path.isdir(a.run):
        sys.stderr.write(f"ptxcts litmus {a.verb}: {a.run}: no such folder\n")
        return 2
    try:
        claim, run_id, tests, muts = read_run(a.run)
        if a.verb == "table":
            if not muts:
                sys.stderr.write(f"ptxcts litmus table: {a.run}: no mutants*.jsonl.gz (a run without --mutants)\n")
                return 2
            new, old = table_again(a.run, muts, a.out)
            from . import tuning
            tuning.write_table(a.out, new)
            was = {sh: row["ranking"][0] for sh, row in old["shapes"].items()}
            moved = [(sh, was.get(sh, "-"), row["ranking"][0]) for sh, row in new["shapes"].items()
                     if was.get(sh, "-") != row["ranking"][0]]
            rf = new["ranked_from"]
            print(f"{a.out}: {len(new['shapes'])} shapes ranked from {rf['killing_runs']} killing runs of "
                  f"{rf['mutants_killed']} mutants; first environment changed in {len(moved)}:")
            for sh, was, now in moved:
                print(f"  {sh}: {was} -> {now}")
            return 0
        if a.verb == "triage":
            if not muts:
                sys.stderr.write(f"ptxcts litmus triage: {a.run}: no mutants*.jsonl.gz (a run without --mutants)\n")
                return 2
            kept = []
            if a.again:
                muts, kept = triage_again(a.run, muts)
            rows = triage_rows(muts)
            with open(os.path.join(a.run, "triage.tsv"), "w", encoding="utf-8") as f:
                f.write("\n".join(rows) + "\n")
            from collections import Counter
            from .gpu_tier import triage_lines
            c = Counter(r.split("\t")[2] for r in rows[1:])
            print(f"{len(rows) - 1} survivors: " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())) +
                  f" -> {os.path.join(a.run, 'triage.tsv')}")
            for line in triage_lines(muts)[1:]:
                print(line)
            if kept:
                print(f"{len(kept)} survivors the suite no longer holds kept their recorded triage: "
                      + ", ".join(kept[:5]) + (", ..." if len(kept) > 5 else ""))
            return 0
        path = a.baseline or baseline_path(claim)
        if a.update:
            write_baseline(path, claim, run_id, tests)
            n = sum(len(r["unseen"]) for r in tests.values())
            print(f"{path}: {n} allowed outcomes never observed in {len(tests)} tests (run {run_id})")
            return 0
        if not os.path.isfile(path):
            print(f"no baseline of allowed outcomes never observed for {claim['name']} (driver branch "
                  f"{claim['driver_branch']}): {path}; write one with --update once the run is reviewed")
            for t, r in sorted(tests.items()):
                for o in sorted(r["unseen"]):
                    print(f"  never observed: {t}: {o}")
            return 0
        head, base = read_baseline(path)
        if a.baseline is None and head.get("device") != claim:
            sys.stderr.write(f"ptxcts litmus unseen: {path} claims {head.get('device')}, the run is {claim}\n")
            return 2
        gone, new, only_run, only_base = compare(tests, base)
        still = sum(len(r["unseen"] & base.get(t, set())) for t, r in tests.items())
        print(f"allowed outcomes never observed: {sum(len(r['unseen']) for r in tests.values())} in this run, "
              f"{sum(len(v) for v in base.values())} in the baseline ({path}); {still} in both")
        for t, o in gone:
            print(f"  no longer observed: {t}: {o}")
        for t, o in new:
            print(f"  now observed: {t}: {o}")
        for t in only_run:
            print(f"  not in the baseline: {t}")
        for t in only_base:
            print(f"  not in the run: {t}")
        return 1 if a.strict and gone else 0
    except Malformed as e:
        sys.stderr.write(f"ptxcts litmus {a.verb}: {e}\n")
        return 3
