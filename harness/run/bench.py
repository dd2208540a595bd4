#!/usr/bin/env python3
"""Run-tier benchmark: cases per second after compilation, and where the time goes.

    python3 harness/run/bench.py [ptxcts-run options...]      e.g. --family cp.async --jobs 8
    python3 harness/run/bench.py --traps [--out DIR] [--trap-jobs N] [--repeat R] [ptxcts-run options...]

--traps is the device experiment of the parallel trap phase (RUNNING.md, "Isolation"): the tensor families
(every case the planner expects to trap is one of theirs) with --traps-alone, then R times (default 3) with
--trap-jobs N (default 8), both load paths; the class and message of every case must be the same in every run,
and a table shows each trapping case (its verdict, whether it stood beside other workers or ran again alone,
the kernel's error and where its frame stopped). Then the whole tier (sm_80 JIT included) with --traps-alone,
with the default (each batch's phases in turn) and with --overlap (trap phases beside the calm phases), and
where each spent its time (results.json's timing). Exit 1 when a verdict differs.
The runs' folders go under --out (default $PTXCTS_BENCH_OUT/traps); with $OUT set (the device tool), the table
is also written to $OUT/bench-traps.txt.

Times module preparation (./ptxcts modules + ptxas; cached afterwards), then each load path's tier run, and
splits the per-case time from results.json: host case building, kernel (launch to completion), and the rest
(tensor-map encode, upload, download, judge). Needs a GPU. Results go under $PTXCTS_BENCH_OUT
(default /tmp/ptxcts-bench)."""
import argparse
import collections
import gzip
import json
import os
import shutil
import subprocess
import sys
import time

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PTXCTS_BUILD") or os.path.join(ROOT, "build")
EXE = os.path.join(BUILD, "harness", "run", "ptxcts-run")
OUT = os.environ.get("PTXCTS_BENCH_OUT", "/tmp/ptxcts-bench")


TENSOR_FAMILIES = ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor")


def run_tier(out, args, env):
    """ptxcts-run into `out` (replaced); returns (wall seconds, results document or None)."""
    shutil.rmtree(out, ignore_errors=True)  # ptxcts-run refuses to overwrite a results folder
    os.makedirs(os.path.dirname(out), exist_ok=True)
    t = time.time()
    with open(out + ".log", "w") as log:
        subprocess.run([EXE, "--out", out, "--quiet"] + args, env=env, stdout=log, stderr=subprocess.STDOUT, check=False)
    wall = time.time() - t
    path = os.path.join(out, "results.json")
    if not os.path.exists(path):
        print(f"bench: no results in {out} (see {out}.log)")
        return wall, None
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return wall, json.load(f)


def expected_to_trap(case):
    variant = case.get("details", {}).get("variant")
    return isinstance(variant, dict) and bool(variant.get("traps"))


def timing_line(name, wall, doc):
    parts = []
    for t in doc.get("timing", []):
        parts.append(f"{t['load_path']} {t['target']}: calm {t['cases']} in {t['batch_s']} s, "
                     f"re-run {t['rerun_alone']} in {t['rerun_s']} s, traps {t['traps']} in {t['trap_s']} s "
                     f"({t.get('trap_workers', 1)} at once), trap re-runs {t.get('trap_rerun_alone', 0)} in "
                     f"{t.get('trap_rerun_s', 0)} s" +
                     (f"; began: calm {t['calm_at_s']} s, traps {t['trap_at_s']} s" if "trap_at_s" in t else ""))
    return f"{name}: {len(doc['cases'])} cases in {wall:.1f} s wall\n    " + "\n    ".join(parts)


def traps_experiment(argv):
    ap = argparse.ArgumentParser(prog="bench.py --traps")
    ap.add_argument("--traps", action="store_true")
    ap.add_argument("--out", default=os.path.join(OUT, "traps"), help="the runs' results folders")
    ap.add_argument("--trap-jobs", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    o, rest = ap.parse_known_args(argv)
    lines = []

    def say(text=""):
        print(text, flush=True)
        lines.append(text)

    if o.trap_jobs < 2 or o.repeat < 1:
        ap.error("--trap-jobs needs 2 or more and --repeat 1 or more")
    env = dict(os.environ, PTXCTS_ROOT=ROOT, PTXCTS_BUILD=BUILD)
    t = time.time()
    for target in ("sm_90", "sm_90a", "sm_80"):  # modules cached first, so that no run's wall time holds their preparation
        subprocess.run([EXE, "--prepare-only", target] + rest, env=env, stdout=subprocess.DEVNULL, check=False)
    say(f"bench --traps: module preparation {time.time() - t:.1f} s")
    fams = [a for f in TENSOR_FAMILIES for a in ("--family", f)]
    common = fams + ["--lower-targets", "none"] + rest
    runs = [("traps-alone",) + run_tier(os.path.join(o.out, "traps-alone"), common + ["--traps-alone"], env)]
    for k in range(o.repeat):
        name = f"trap-jobs-{o.trap_jobs}.{k + 1}"
        runs.append((name,) + run_tier(os.path.join(o.out, name), common + ["--trap-jobs", str(o.trap_jobs)], env))
    if any(doc is None for _, _, doc in runs):
        return 2
    key = lambda c: (c["id"], c["load_path"], c["target"])
    base = {key(c): c for c in runs[0][2]["cases"]}
    differ = []
    for name, _, doc in runs[1:]:
        got = {key(c): c for c in doc["cases"]}
        for k in sorted(set(base) | set(got)):
            a, b = base.get(k), got.get(k)
            if not a or not b or (a["class"], a["message"]) != (b["class"], b["message"]):
                phase = "expected to trap" if expected_to_trap(a or b) else "calm"
                differ.append((name, k, a and a["class"], b and b["class"], f"({phase}) " + (b or a)["message"][:160]))
    say(f"bench --traps: the tensor families, both load paths; {len(base)} cases per run, "
          f"{sum(expected_to_trap(c) for c in base.values())} of them expected to trap")
    for name, wall, doc in runs:
        say(timing_line(name, wall, doc))
    say(f"\n{'case (expected to trap)':<88} {'path':<5} {'alone':<16} {'beside (each run)':<40} error / frame stop")
    for k in sorted(k for k, c in base.items() if expected_to_trap(c)):
        cells, notes = [], set()
        for _, _, doc in runs[1:]:
            c = next(x for x in doc["cases"] if key(x) == k)
            d = c.get("details", {})
            how = "beside" if d.get("beside_other_workers") else "again alone" if d.get(
                "first_attempt_with_other_workers") else "alone"  # the only trapping case of its batch
            cells.append(f"{c['class']}/{how}")
            first = d.get("first_attempt_with_other_workers")
            notes.add(f"{d.get('kernel_error', '-')} / {d.get('frame_stop', '-')}" +
                      (f" (first: {first['class']})" if first else ""))
        say(f"{k[0][-88:]:<88} {k[1]:<5} {base[k]['class']:<16} {', '.join(cells):<40} {'; '.join(sorted(notes))}")
    say(f"\nbench --traps: {len(differ)} verdict(s) differ from --traps-alone (class or message)")
    for name, k, a, b, msg in differ[:40]:
        say(f"  {name}: {k[0]} [{k[1]} {k[2]}]: {a} -> {b}: {msg}")
    full = [("whole tier --traps-alone",) + run_tier(os.path.join(o.out, "tier-traps-alone"), rest + ["--traps-alone"], env),
            ("whole tier, default (trap phases after the calm ones)",) + run_tier(os.path.join(o.out, "tier-default"), rest, env),
            ("whole tier --overlap",) + run_tier(os.path.join(o.out, "tier-overlap"), rest + ["--overlap"], env)]
    for name, wall, doc in full:
        if doc:
            say(timing_line(name, wall, doc))
    if full[0][2]:
        a = {key(c): (c["class"], c["message"]) for c in full[0][2]["cases"]}
        for name, _, doc in full[1:]:
            if not doc:
                continue
            b = {key(c): (c["class"], c["message"]) for c in doc["cases"]}
            whole = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            say(f"bench --traps: {name}: {len(whole)} verdict(s) differ from --traps-alone")
            for k in whole[:40]:
                say(f"  {k[0]} [{k[1]} {k[2]}]: {a.get(k)} -> {b.get(k)}")
            differ += whole
    if os.environ.get("OUT"):  # the device tool's folder: the table comes back, the results folders stay
        with open(os.path.join(os.environ["OUT"], "bench-traps.txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    return 1 if differ else 0


def main(args):
    if not os.path.exists(EXE):
        sys.stderr.write(f"bench: {EXE} is not built (./ptxcts build)\n")
        return 2
    if "--traps" in args:
        return traps_experiment(args)
    env = dict(os.environ, PTXCTS_ROOT=ROOT, PTXCTS_BUILD=BUILD)
    t = time.time()
    subprocess.run([EXE, "--prepare-only", "sm_90"] + args, env=env, stdout=subprocess.DEVNULL, check=False)
    print(f"bench: module preparation (./ptxcts modules + ptxas, cached afterwards): {time.time() - t:.1f} s")
    for lp in ("cubin", "jit"):
        out = os.path.join(OUT, lp)
        shutil.rmtree(out, ignore_errors=True)  # ptxcts-run refuses to overwrite a results folder
        t = time.time()
        os.makedirs(OUT, exist_ok=True)
        with open(out + ".log", "w") as log:
            subprocess.run([EXE, "--load-path", lp, "--out", out, "--quiet"] + args, env=env, stdout=log,
                           stderr=subprocess.STDOUT, check=False)
        wall = time.time() - t
        path = os.path.join(out, "results.json")
        if not os.path.exists(path):
            print(f"bench {lp}: no results ({out}.log)")
            continue
        cases = json.load(open(path))["cases"]
        ran = [c for c in cases if c["class"] not in ("not_supported", "skipped", "compile_error")]
        cls = collections.Counter(c["class"] for c in cases)
        print(f"bench {lp}: {len(cases)} cases ({len(ran)} executed) in {wall:.1f} s wall = "
              f"{len(cases) / wall:.0f} cases/s ({len(ran) / wall:.0f} executed/s); {dict(cls)}")
        if ran:
            d = [c.get("details", {}) for c in ran]
            run_ms = sum(c.get("duration_ms", 0) for c in ran)
            kern = sum(x.get("kernel_ms", 0) for x in d)
            build = sum(x.get("build_ms", 0) for x in d)
            n = len(ran)
            print(f"  per executed case: build {build / n:.3f} ms, execute {run_ms / n:.3f} ms "
                  f"(kernel launch-to-completion {kern / n:.3f} ms; encode + upload + download + judge the rest)")
            print(f"  workers busy {(run_ms + build) / 1e3:.1f} s in total over {wall:.1f} s wall; the remainder is "
                  f"process start, context creation, module loading (the driver's JIT on the jit path), the "
                  f"parent's planning and the results writer")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
