"""./ptxcts selftest-model: how many faults planted in the reference model (harness/refmodel/src/*.cpp) the model
tests catch (README: "The reference model and ptxcts-ref").

Mutants come from universalmutator (PyPI `universalmutator`, its `mutate` command, C++ rules). They are sampled
deterministically by seed, stratified per file and per mutation operator, and each is judged in a private build
folder (default build-mutation/ of the checkout): the model is compiled from a copy of harness/refmodel/src that
receives one mutated file at a time; headers, the model tests and ptxcts-ref come from the checkout, whose sources are
never written (an interrupt cannot leave a mutant behind). One mutant costs one recompile of that file (ccache when
installed), two relinks and one run of the model tests:

  killed        the GoogleTest binary ptxcts-model-tests or a ptxcts-ref end-to-end case (CTest label `model`) fails
  timeout       the tests ran past the timeout (counted as caught: CTest fails a test that never ends)
  survived      every test passes
  equivalent    survived, and the triage file says no observable difference is possible (one-line reason), or the
                compiled object is byte-identical to the unmutated one (trivial compiler equivalence, "tce")
  build_failed  does not compile: not counted

score = (killed + timeout) / (killed + timeout + survived), survivors triaged equivalent excluded from survived.
Every judged mutant is appended to <build>/model-mutation.log.jsonl as it is judged; Ctrl-C writes the summary of
what was measured (marked partial) and exits 130.
"""
import datetime
import fnmatch
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import time

from .mutants import MODEL_SRC, generate, sample_order, sha
from .mutation_bench import Bench, write_if_changed
from framework import boundary
from framework import paths

ROOT = paths.root()
DEFAULT_OUT = os.path.join(ROOT, "results", "selftest", "model-mutation.json")
DEFAULT_TRIAGE = os.path.join(ROOT, "results", "selftest", "model-equivalent.json")
TOOL = "universalmutator"
TOOL_PIN = "universalmutator==1.14.1"

class Interrupted(Exception):
    pass


def log(msg):
    sys.stderr.write(msg + "\n")
    sys.stderr.flush()


def tool_version():
    try:
        from importlib import metadata
        return metadata.version(TOOL)
    except Exception:
        return None


def load_triage(path):
    if not path or not os.path.exists(path):
        return {}
    with open(path) as f:
        doc = json.load(f)
    return {sig: entry for sig, entry in doc.get("mutants", {}).items()}


def summarize(records, triage, meta):
    rows = {}
    def bump(key, field):
        row = rows.setdefault(key, {"sampled": 0, "compiled": 0, "killed": 0, "timeout": 0, "survived": 0,
                                    "equivalent": 0, "holes": 0})
        row[field] += 1
    survivors = []
    for r in records:
        keys = [("file", r["file"]), ("operator", r["operator"]), ("total", "all")]
        v = r["verdict"]
        for k in keys:
            bump(k, "sampled")
            if v != "build_failed":
                bump(k, "compiled")
            if v in ("killed", "timeout", "survived"):
                bump(k, v)
        if v == "survived":
            entry = triage.get(r["signature"])
            eq = r.get("tce") or (entry is not None and entry.get("verdict") == "equivalent")
            for k in keys:
                bump(k, "equivalent" if eq else "holes")
            survivors.append({"signature": r["signature"], "line": r["line"], "operator": r["operator"],
                              "triage": "equivalent" if eq else (entry or {}).get("verdict", "untriaged"),
                              "reason": "identical object code (TCE)" if r.get("tce")
                              else (entry or {}).get("reason", "")})
    for row in rows.values():
        caught = row["killed"] + row["timeout"]
        denom = caught + row["survived"] - row["equivalent"]
        row["score"] = round(caught / denom, 4) if denom else None
    doc = dict(meta)
    doc["totals"] = rows.get(("total", "all"))
    doc["per_file"] = {k[1]: v for k, v in sorted(rows.items()) if k[0] == "file"}
    doc["per_operator"] = {k[1]: v for k, v in sorted(rows.items()) if k[0] == "operator"}
    doc["survivors"] = survivors
    return doc


def table(title, rows):
    lines = [f"{title:18s} sampled compiled killed timeout survived equiv holes  score"]
    for k, r in rows.items():
        s = f"{100 * r['score']:5.1f}%" if r["score"] is not None else "    -"
        lines.append(f"{k:18s} {r['sampled']:7d} {r['compiled']:8d} {r['killed']:6d} {r['timeout']:7d} "
                     f"{r['survived']:8d} {r['equivalent']:5d} {r['holes']:5d} {s}")
    return "\n".join(lines)


def main(argv=None):
    ap = boundary.ArgumentParser(prog="ptxcts selftest-model", description=__doc__.split("\n\n")[0])
    ap.add_argument("--budget", type=float, default=1800, help="seconds of judging (default 1800); the run stops "
                    "after the mutant in progress")
    ap.add_argument("--files", default="*.cpp", help="glob over harness/refmodel/src/*.cpp names (default *.cpp)")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (default 1)")
    ap.add_argument("--max-mutants", type=int, default=None, help="judge at most N sampled mutants")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build-mutation"),
                    help="private build folder (default build-mutation/ of the checkout)")
    ap.add_argument("--jobs", type=int, default=2, help="build jobs (default 2)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds per mutant's test run (default max(30, 10 x the unmutated run))")
    ap.add_argument("--triage", default=DEFAULT_TRIAGE, help="equivalent-mutant triage (signature -> reason)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="summary document ('-': none; default "
                    "results/selftest/model-mutation.json)")
    ap.add_argument("--expect-killed", action="append", default=[], metavar="SIGNATURE",
                    help="judge this mutant first and fail (exit 1) unless the tests kill it")
    ap.add_argument("--min-score", type=float, default=None, help="exit 1 when the score is below this (0..1)")
    ap.add_argument("--install", action="store_true", help=f"pip install {TOOL_PIN} when it is missing")
    ap.add_argument("--list", action="store_true", help="print the sampled mutants' signatures and stop")
    ap.add_argument("--rejudge", metavar="LOG", default=None,
                    help="judge again only the survivors of an earlier run's log (<build>/model-mutation.log.jsonl, "
                         "e.g. after adding tests); the summary merges them with that log's other verdicts")
    a = ap.parse_args(argv)
    # every option's value first: a bad one is named before a missing tool or a long build
    for name, value in vars(a).items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and not v.strip():
                ap.error(f"--{name.replace('_', '-')} '': an empty value (give one, or leave the option out)")
    import math
    for name, lo, hi in (("budget", 0, math.inf), ("timeout", 0, math.inf), ("min_score", -1e-9, 1)):
        v = getattr(a, name)
        if v is not None and not (lo < v <= hi and math.isfinite(v)):
            ap.error(f"--{name.replace('_', '-')} {v}: must be a finite number in ({max(lo, 0):g}, {hi:g}]")
    if not 1 <= a.jobs <= 256:
        ap.error(f"--jobs {a.jobs}: must be 1..256")
    if a.seed < 0:
        ap.error(f"--seed {a.seed}: must be >= 0")
    if a.max_mutants is not None and a.max_mutants < 1:
        ap.error(f"--max-mutants {a.max_mutants}: must be >= 1")
    if a.rejudge is not None and not os.path.isfile(a.rejudge):
        ap.error(f"--rejudge {a.rejudge}: no such file (an earlier run's model-mutation.log.jsonl)")

    version = tool_version()
    if version is None or not shutil.which("mutate"):
        if a.install:
            subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", TOOL_PIN])
            version = tool_version()
        if version is None or not shutil.which("mutate"):
            log(f"selftest-model: {TOOL} is not installed (its `mutate` command generates the mutants): run "
                f"`python3 -m pip install {TOOL_PIN}` (PyPI; the GPU machine has no network: run this verb on the "
                "CPU machine or in CI), or add --install")
            return 3
    names = sorted(n for n in os.listdir(MODEL_SRC) if n.endswith(".cpp") and fnmatch.fnmatch(n, a.files))
    if not names:
        log(f"selftest-model: --files '{a.files}' matches no file of harness/refmodel/src "
            f"(there: {', '.join(sorted(n for n in os.listdir(MODEL_SRC) if n.endswith('.cpp')))})")
        return 2
    os.makedirs(a.build_dir, exist_ok=True)
    lock = open(os.path.join(a.build_dir, "lock"), "w")
    import fcntl
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        log(f"selftest-model: another selftest-model is using {a.build_dir}; wait for it or pass --build-dir")
        return 2

    mutants = []
    for n in names:
        mutants += generate(n, a.build_dir, version)
    order = sample_order(mutants, a.seed)
    by_sig = {m["signature"]: m for m in mutants}
    expect = []
    for want in a.expect_killed:  # a signature, or a part of exactly one signature
        hits = [want] if want in by_sig else [s for s in by_sig if want in s]
        if len(hits) != 1:
            log(f"selftest-model: --expect-killed '{want}' names {len(hits)} mutants of {', '.join(names)} "
                "(give a whole signature or a part of exactly one; --list prints them)")
            return 2
        expect.append(hits[0])
    for sig in reversed(expect):
        order = [by_sig[sig]] + [m for m in order if m["signature"] != sig]
    earlier = []
    if a.rejudge:
        with open(a.rejudge) as f:
            earlier = [json.loads(line) for line in f if line.strip()]
        again = {r["signature"] for r in earlier if r["verdict"] == "survived" and not r.get("tce")}
        missing = again - set(by_sig)
        if missing:
            log(f"selftest-model: --rejudge: {len(missing)} survivor(s) of {a.rejudge} are no longer generated "
                f"(source changed?), e.g. {sorted(missing)[0]}")
            return 2
        order = [m for m in order if m["signature"] in again]
        earlier = [r for r in earlier if r["signature"] not in again]
    if a.max_mutants is not None:
        order = order[:max(a.max_mutants, len(expect))]
    if a.list:
        for m in order:
            print(f"{m['operator']:16s} {m['file']}:{m['line']}  {m['signature']}")
        return 0

    # Run in windows of 24, each grouped by file: fewer switches between files, every prefix still stratified.
    window = 24
    order = [m for i in range(0, len(order), window)
             for m in sorted(order[i:i + window], key=lambda m: names.index(m["file"]))]

    bench = Bench(a.build_dir, a.jobs, 0)
    t_start = time.monotonic()
    bench.sync()
    log(f"selftest-model: {len(mutants)} mutants of {len(names)} file(s) ({TOOL} {version}); building the unmutated "
        f"model and its tests in {bench.bld}")
    bench.timeout = 600
    base = bench.baseline()
    bench.timeout = a.timeout or max(30.0, 10 * base)
    log(f"selftest-model: model tests pass unmutated in {base:.1f} s; timeout per mutant {bench.timeout:.0f} s; "
        f"judging up to {len(order)} mutants in {a.budget:.0f} s (seed {a.seed})")

    triage = load_triage(a.triage)
    log_path = os.path.join(a.build_dir, "model-mutation.log.jsonl")
    logf = open(log_path, "w")
    for r in earlier:  # --rejudge: the kept verdicts first, so the log stays the whole sample
        logf.write(json.dumps(r) + "\n")
    records, partial, t_judge = [], None, time.monotonic()
    tty = sys.stderr.isatty()
    cr, nl = ("\r", "") if tty else ("", "\n")

    def on_term(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, on_term)
    try:
        for i, m in enumerate(order):
            if time.monotonic() - t_judge > a.budget:
                partial = f"budget of {a.budget:.0f} s spent after {i} of {len(order)} mutants"
                break
            t0 = time.monotonic()
            with open(os.path.join(a.build_dir, "mutants", f"{m['file']}-"
                                   f"{sha(bench.originals[m['file']].decode())[:12]}-um{version}", m["path"]),
                      "rb") as f:
                for n, data in bench.originals.items():
                    if n != m["file"]:
                        write_if_changed(os.path.join(bench.src, n), data)
                bench.plant(m["file"], f.read())
            ok, _ = bench.build()
            rec = {k: m[k] for k in ("signature", "file", "line", "operator", "rule")}
            if not ok:
                rec["verdict"] = "build_failed"
            elif bench.object_hash(m["file"]) == bench.base_obj[m["file"]]:
                rec["verdict"], rec["tce"] = "survived", True
            else:
                rec["verdict"], by = bench.test()
                if by:
                    rec["by"] = by
            rec["seconds"] = round(time.monotonic() - t0, 2)
            records.append(rec)
            logf.write(json.dumps(rec) + "\n")
            logf.flush()
            done = i + 1
            el = time.monotonic() - t_judge
            rate = done / el
            left = min((len(order) - done) / rate, max(0.0, a.budget - el))
            caught = sum(r["verdict"] in ("killed", "timeout") for r in records)
            surv = sum(r["verdict"] == "survived" for r in records)
            if tty or done % 25 == 0 or done == len(order):
                sys.stderr.write(f"{cr}[{done}/{len(order)}] {rate * 60:.1f} mutants/min, ~{left / 60:.1f} min left;"
                                 f" caught {caught}, survived {surv}, build failed {done - caught - surv}   {nl}")
                sys.stderr.flush()
    except KeyboardInterrupt:
        partial = f"interrupted after {len(records)} of {len(order)} mutants"
    finally:
        bench.restore()
        logf.close()
    if tty:
        sys.stderr.write("\n")

    meta = {
        "what": "mutation score of the model tests over harness/refmodel/src (./ptxcts selftest-model)",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpu, {platform.platform()}",
        "tool": f"{TOOL} {version}", "files": names, "seed": a.seed, "budget_s": a.budget,
        "max_mutants": a.max_mutants, "mutants_generated": len(mutants),
        "timeout_s": round(bench.timeout, 1), "baseline_test_s": round(base, 2),
        "wall_s": round(time.monotonic() - t_start, 1),
        "seconds_per_mutant": round(sum(r["seconds"] for r in records) / len(records), 2) if records else None,
        "partial": partial,
        "score_rule": "(killed + timeout) / (killed + timeout + survived - equivalent); build_failed not counted; "
                      "equivalent = triaged in results/selftest/model-equivalent.json or identical object code",
    }
    if a.rejudge:
        meta["rejudged"] = f"{len(records)} survivor(s) of {a.rejudge} judged again; {len(earlier)} verdicts kept"
        meta["seconds_per_mutant"] = round(sum(r["seconds"] for r in earlier + records) / len(earlier + records), 2)
        records = earlier + records
    doc = summarize(records, triage, meta)
    print(table("file", doc["per_file"]))
    print()
    print(table("operator", doc["per_operator"]))
    t = doc["totals"] or {}
    print()
    if t:
        print(f"score {100 * t['score']:.1f}% = {t['killed'] + t['timeout']} caught / "
              f"({t['killed'] + t['timeout']} + {t['survived']} survived - {t['equivalent']} equivalent); "
              f"{t['compiled']} compiled of {t['sampled']} sampled; {doc['seconds_per_mutant']} s per mutant"
              if t.get("score") is not None else "score: nothing compiled")
    holes = [s for s in doc["survivors"] if s["triage"] != "equivalent"]
    for s in holes:
        print(f"  survivor ({s['triage']}): {s['signature']}  [line {s['line']}, {s['operator']}]")
    if partial:
        log(f"selftest-model: partial: {partial}; what was measured is in {log_path}"
            + (f" and {a.out}" if a.out != "-" else ""))
    if a.out != "-":
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=False)
            f.write("\n")
    rc = 0
    for sig in expect:
        r = next((r for r in records if r["signature"] == sig), None)
        if r is None or r["verdict"] not in ("killed", "timeout"):
            log(f"selftest-model: expected mutant not killed: {sig} -> {r['verdict'] if r else 'not judged'}")
            rc = 1
    if a.min_score is not None and (t.get("score") is None or t["score"] < a.min_score):
        log(f"selftest-model: score below --min-score {a.min_score}")
        rc = 1
    if partial and partial.startswith("interrupted"):
        return 130
    return rc


if __name__ == "__main__":
    sys.exit(boundary.run("selftest-model", main))
