#!/usr/bin/env python3
"""A stand-in for litmus-runner (tests/test_gpu_tier.py): the runner's protocol, and per test name a fault:
'trap' dies after its begin line (exit 4, as a trapped kernel's CUDA error), 'hang' never finishes, 'garbage'
prints a line that is not the protocol, 'weak' shows the forbidden outcome T1:r1=0, 'warmonly' shows it only in an
environment with pattern=3 (the tuning's warm stress), 'slow' sleeps its ms when FAKE_HONOR_MS is set, a
name listed in FAKE_WEAK (commas) shows T1:r1=0; FAKE_NOGPU=1 exits 77 at once. FAKE_TABLE names the --list
table. A tests-file line is a run: `NAME[@TAG] [KEY=VALUE]...`; its result names the run."""
import json
import os
import sys
import time

args = sys.argv[1:]
table = [l.split("\t") for l in open(os.environ["FAKE_TABLE"]).read().splitlines()]
if args == ["--list"]:
    for name, m in table:
        print(f"{name}\t{m}")
    sys.exit(0)
if os.environ.get("FAKE_NOGPU"):
    sys.exit(77)
runs = [l.split() for l in open(args[args.index("--tests-file") + 1]).read().splitlines() if l.split()]
mutant = dict(table)
for words in runs:
    n, env = words[0], dict(w.split("=", 1) for w in words[1:])
    print(json.dumps({"begin": n}), flush=True)
    if "trap" in n:
        sys.stderr.write("litmus-runner: cudaDeviceSynchronize(): unspecified launch failure\n")
        sys.exit(4)
    if "hang" in n:
        time.sleep(3600)
    if "garbage" in n:
        print("Segmentation fault (core dumped) ~~", flush=True)
        continue
    if os.environ.get("FAKE_HONOR_MS") and "slow" in n:   # a run that is silent for its ms, as the runner's
        time.sleep(int(env.get("ms", "0")) / 1000.0)
    weak = ("weak" in n or ("warmonly" in n and env.get("pattern") == "3") or
            n.split("@")[0] in os.environ.get("FAKE_WEAK", "").split(","))
    hist = {"T1:r1=1": 1000} if not weak else {"T1:r1=1": 990, "T1:r1=0": 10}
    m = int(mutant[n.split("@")[0]])
    verdict = ("killed" if weak else "survived") if m else ("fail" if weak else "pass")
    print(json.dumps({"test": n, "mutant": m, "instances": 1000, "seconds": 0.001, "verdict": verdict,
                      "killed_after": int(weak and m), "env": " ".join(words[1:]), "hist": hist}), flush=True)
print(json.dumps({"end": True}), flush=True)
