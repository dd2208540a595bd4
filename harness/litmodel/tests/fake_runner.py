#!/usr/bin/env python3
"""A stand-in for litmus-runner (tests/test_gpu_tier.py): the runner's protocol, and per test name a fault:
'trap' dies after its begin line (exit 4, as a trapped kernel's CUDA error), 'hang' never finishes, 'garbage'
prints a line that is not the protocol; FAKE_NOGPU=1 exits 77 at once. FAKE_TABLE names the --list table."""
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
names = open(args[args.index("--tests-file") + 1]).read().split()
mutant = dict(table)
for n in names:
    print(json.dumps({"begin": n}), flush=True)
    if "trap" in n:
        sys.stderr.write("litmus-runner: cudaDeviceSynchronize(): unspecified launch failure\n")
        sys.exit(4)
    if "hang" in n:
        time.sleep(3600)
    if "garbage" in n:
        print("Segmentation fault (core dumped) ~~", flush=True)
        continue
    hist = {"T1:r1=1": 1000} if "weak" not in n else {"T1:r1=1": 990, "T1:r1=0": 10}
    print(json.dumps({"test": n, "mutant": int(mutant[n]), "instances": 1000, "seconds": 0.001,
                      "verdict": "pass", "hist": hist}), flush=True)
print(json.dumps({"end": True}), flush=True)
