"""Benchmark (not a test): cases per second of the batched compile tier against one ptxas call per case, on the
same sample of cases, with the same number of parallel ptxas processes. Both runs must reach the same verdict
for every case; a difference is printed and makes the script exit 1.

    PYTHONPATH=generator:harness python3 harness/compile/bench.py [-n 400] [--family F] [-j N] [--module-size M]
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), os.path.join(os.path.dirname(os.path.dirname(HERE)), "generator")]

from framework import toolchains  # noqa: E402
from compile import pool  # noqa: E402
from framework import manifest  # noqa: E402


def main(argv):
    p = argparse.ArgumentParser(prog="bench.py", description=__doc__.split("\n\n")[0])
    p.add_argument("-n", type=int, default=400, help="sample size: N cases spread evenly over the selection")
    p.add_argument("--family", action="append", default=[])
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--module-size", type=int, default=pool.DEFAULT_MODULE_SIZE)
    p.add_argument("--manifest", default=None)
    p.add_argument("--toolchain", metavar="NAME|PATH", help="default $PTXCTS_TOOLCHAIN, else the CUDA toolkit")
    p.add_argument("--verdict", choices=("ptxas", "nvjitlink"), default="ptxas", help="the compiler to time")
    p.add_argument("--sample", choices=("block", "spread"), default="block",
                   help="block: N consecutive cases in (target, PTX, validity) order from the middle of the "
                        "selection, i.e. the modules the tier really builds; spread: N cases evenly spread")
    a = p.parse_args(argv)
    mroot = a.manifest or manifest.default_dir()
    m = manifest.load(mroot)
    chosen = [c for c in m.cases if not a.family or c.family in a.family]
    if a.sample == "spread":
        sample = manifest.select(chosen, limit=a.n)
    else:
        ordered = sorted(chosen, key=lambda c: (c.family, c.target, c.ptx, not c.valid, c.id))
        start = max(0, (len(ordered) - a.n) // 2)
        sample = ordered[start:start + a.n]
    tc = toolchains.resolve(a.toolchain)
    use_gen = os.path.realpath(mroot) == os.path.realpath(manifest.default_dir())
    print(f"bench: {len(sample)} cases ({sum(c.valid for c in sample)} valid, {sum(not c.valid for c in sample)} "
          f"invalid) of {len(chosen)}; toolchain {tc.name} ({a.verdict}, ptxas {tc.ptxas_version}); {a.jobs} parallel processes; "
          f"{os.cpu_count()} cpus; sample: {a.sample}, "
          f"{len(set((c.target, c.ptx, c.valid) for c in sample))} (target, PTX, validity) groups", flush=True)
    runs = {}
    for name, size in (("batched", a.module_size), ("one call per case", 1)):
        t0 = time.monotonic()
        outcomes, unsupported, _, calls, nmod = pool.judge_all(sample, m, mroot, tc, a.verdict, use_gen, a.jobs, size)
        secs = time.monotonic() - t0
        runs[name] = {c: (o.verdict, tuple(o.messages)) for c, o in outcomes.items()}
        runs[name].update({c: ("not_supported", ()) for c in unsupported})
        print(f"bench: {name:18s} {len(sample) / secs:8.1f} cases/s  ({len(sample)} cases in {secs:.1f}s, "
              f"{calls} ptxas calls, {nmod} modules of <= {size})", flush=True)
    b, s = runs["batched"], runs["one call per case"]
    diff = [c.id for c in sample if b.get(c.id, ("?",))[0] != s.get(c.id, ("?",))[0]]
    if diff:
        print(f"bench: {len(diff)} case(s) judged differently by the two ways, e.g.:")
        for cid in diff[:10]:
            print(f"  {cid}: batched {b.get(cid)} / one per case {s.get(cid)}")
        return 1
    same_msg = sum(1 for c in sample if b[c.id][1] == s[c.id][1])
    print(f"bench: both ways give the same verdict for all {len(sample)} cases "
          f"(and the same messages for {same_msg})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
