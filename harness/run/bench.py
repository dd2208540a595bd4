#!/usr/bin/env python3
"""Run-tier benchmark: cases per second after compilation, and where the time goes.

    python3 harness/run/bench.py [ptxcts-run options...]      e.g. --family cp.async --jobs 8

Times module preparation (./ptxcts modules + ptxas; cached afterwards), then each load path's tier run, and
splits the per-case time from results.json: host case building, kernel (launch to completion), and the rest
(tensor-map encode, upload, download, judge). Needs a GPU. Results go under $PTXCTS_BENCH_OUT
(default /tmp/ptxcts-bench)."""
import collections
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


def main(args):
    if not os.path.exists(EXE):
        sys.stderr.write(f"bench: {EXE} is not built (./ptxcts build)\n")
        return 2
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
