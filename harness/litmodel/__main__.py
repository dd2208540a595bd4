"""./ptxcts litmus model|catalog|agreement|suite ... (python3 -m framework litmodel ...).

  model FILE... [--json FILE|-] [--policy NAME=VALUE]... [--test NAME]...   every outcome's verdict
  catalog [--markdown]                                                      the axioms and policies
  agreement [--json FILE|-]                                                 the model against Dat3M's verdicts
  suite check|write                                                         the generated tests and their labels
  mutants list|check|write                                                  graded mutants and their killing outcomes
  cuda FILE... --out DIR [--mutants]                                        CUDA kernels + labels for the GPU runner
  gpu --out DIR [--mutants] [--time-budget S] [--runner PATH --labels PATH]  run them on the GPU, judged (gpu_tier.py)
  unseen RUN_DIR [--baseline FILE] [--update] [--strict]                    allowed outcomes never seen vs the baseline
  triage RUN_DIR                                                            RUN_DIR/triage.tsv: the survivors and why
  table RUN_DIR --out FILE                                                  its environment table ranked by every kill
Exit: 0 done; 1 suite check found a difference or agreement a disagreement; 2 usage; 3 a malformed litmus file
(file:line: what is wrong) or a test the model cannot judge."""
import argparse
import json
import sys
import time

from . import catalog, suite
from .events import ModelError
from .model import Model, outcome_text
from .syntax import LitmusSyntaxError, parse_file


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        sys.stderr.write(f"ptxcts litmus: {message}\n")
        sys.exit(2)


def _policies(items):
    out = {}
    for it in items or []:
        name, _, value = it.partition("=")
        why = catalog.check_policy(name, value)
        if why:
            sys.stderr.write(f"ptxcts litmus: --policy {it}: {why}\n")
            sys.exit(2)
        out[name] = value
    return out


def _json_path_problem(where):
    """Why --json WHERE cannot be written, checked before any work ("" when it can)."""
    import os
    if not where or where == "-":
        return ""
    if os.path.isdir(where):
        return f"--json {where}: is a folder; --json names the file the verdicts are written to"
    folder = os.path.dirname(where) or "."
    if not os.path.isdir(folder):
        return f"--json {where}: its folder {folder} does not exist"
    if not os.access(folder, os.W_OK):
        return f"--json {where}: its folder {folder} cannot be written"
    return ""


def _write_json(where, doc):
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if where == "-":
        sys.stdout.write(text)
    else:
        with open(where, "w", encoding="utf-8") as f:
            f.write(text)


def _parse_files(paths):
    """(the tests of every file, 0), or ([], 2) for a file that cannot be read, ([], 3) for a malformed one: the
    message names the file (and the line) on standard error."""
    tests = []
    for path in paths:
        try:
            tests += parse_file(path)
        except OSError as e:
            sys.stderr.write(f"ptxcts litmus: {path}: {e.strerror}\n")
            return [], 2
        except LitmusSyntaxError as e:
            sys.stderr.write(f"ptxcts litmus: {e}\n")
            return [], 3
    return tests, 0


def result_doc(res, seconds):
    t = res.test
    return {"test": t.name, "file": t.path, "line": t.line, "candidates": res.candidates,
            "consistent": res.consistent, "seconds": round(seconds, 4),
            "outcomes": [{"outcome": dict(o), "verdict": v, **({"refused_by": res.why_forbidden[o]}
                                                                if o in res.why_forbidden else {})}
                         for o, v in sorted(res.verdicts.items())],
            **({"condition": {"kind": t.condition[0], "text": t.condition[2], "value": res.condition}}
               if t.condition else {})}


def cmd_model(a):
    model = Model(_policies(a.policy))
    why = _json_path_problem(a.json)
    if why:
        sys.stderr.write(f"ptxcts litmus: {why}\n")
        return 2
    tests, rc = _parse_files(a.files)
    if rc:
        return rc
    if a.test:
        missing = [n for n in a.test if n not in {t.name for t in tests}]
        if missing:
            sys.stderr.write(f"ptxcts litmus: --test {missing[0]}: no such test in the files given\n")
            return 2
        tests = [t for t in tests if t.name in a.test]
    docs, start = [], time.monotonic()
    for i, t in enumerate(tests, 1):
        t0 = time.monotonic()
        try:
            res = model.run(t)
        except ModelError as e:
            sys.stderr.write(f"ptxcts litmus: {e}\n")
            return 3
        dt = time.monotonic() - t0
        docs.append(result_doc(res, dt))
        if a.json != "-":
            print(f"{t.name}  ({t.path}:{t.line}; {res.candidates} candidates, {dt:.3f} s)")
            for o, v in sorted(res.verdicts.items()):
                why = f"  [{res.why_forbidden[o]}]" if o in res.why_forbidden else ""
                print(f"  {v:9s}  {outcome_text(o)}{why}")
            if t.condition:
                print(f"  condition {t.condition[0]} {t.condition[2]}: {res.condition}")
            if len(tests) > 10 and i % 25 == 0:
                el = time.monotonic() - start
                sys.stderr.write(f"litmus model: {i}/{len(tests)} tests, {i / el:.1f}/s, "
                                 f"{(len(tests) - i) * el / i:.1f} s left\n")
    total = time.monotonic() - start
    counts = {}
    for d in docs:
        for o in d["outcomes"]:
            counts[o["verdict"]] = counts.get(o["verdict"], 0) + 1
    if a.json:
        _write_json(a.json, {"policies": model.policies, "tests": docs, "seconds": round(total, 3)})
    if a.json != "-":
        print(f"\n{'tests':>8} {'outcomes':>9} {'forbidden':>10} {'allowed':>8} {'undefined':>10} {'seconds':>8}")
        print(f"{len(docs):>8} {sum(counts.values()):>9} {counts.get('forbidden', 0):>10} "
              f"{counts.get('allowed', 0):>8} {counts.get('undefined', 0):>10} {total:>8.2f}")
    return 0


def cmd_catalog(a):
    if a.markdown:
        sys.stdout.write(catalog.markdown())
    else:
        for x in catalog.AXIOMS:
            print(f"axiom  {x.name}: {x.rule}")
        for p in catalog.POLICIES:
            print(f"policy {p.name} (default {p.default}): {p.question}")
        print(f"{len(catalog.AXIOMS)} axioms, {len(catalog.POLICIES)} policies")
    return 0


def cmd_agreement(a):
    why = _json_path_problem(a.json)
    if why:
        sys.stderr.write(f"ptxcts litmus: {why}\n")
        return 2
    rows = suite.agreement()
    agree = sum(r["agree"] for r in rows)
    for r in rows:
        mark = "agree" if r["agree"] else "DISAGREE"
        print(f"{mark:9s} {r['test']:40s} dat3m {r['dat3m']}  model {r['model']}  ({r['kind']})")
    print(f"\n{agree} of {len(rows)} agree")
    if a.json:
        _write_json(a.json, {"rows": rows, "agree": agree, "total": len(rows)})
    return 0 if agree == len(rows) else 1


def cmd_suite(a):
    if a.action == "write":
        n = suite.write_suite()
        print(f"wrote {n} tests: {suite.SUITE_DIR}")
        return 0
    diffs, n, secs = suite.check_suite()
    for d in diffs:
        print(d)
    print(f"{n} tests, {len(diffs)} differences from the committed labels, {secs:.2f} s")
    return 1 if diffs else 0


def cmd_mutants(a):
    import collections
    import os
    from . import mutants
    from .syntax import parse_file as _pf
    tests = [t for f in suite.suite_files() for t in _pf(f)]
    start = time.monotonic()
    rows = mutants.all_mutants(tests)
    secs = time.monotonic() - start
    path = os.path.join(suite.SUITE_DIR, "mutants.jsonl.gz")
    if a.action == "write":
        mutants.write(path, rows)
    if a.json:
        why = _json_path_problem(a.json)
        if why:
            sys.stderr.write(f"ptxcts litmus: {why}\n")
            return 2
        _write_json(a.json, {"mutants": [{k: v for k, v in r.items() if k != "text"} for r in rows],
                             "killable": sum(bool(r["killing"]) for r in rows), "total": len(rows)})
    by = collections.OrderedDict()
    for r in rows:
        k = by.setdefault(r["operator"], [0, 0])
        k[0] += 1
        k[1] += bool(r["killing"])
    print(f"{'operator':22s} {'mutants':>8} {'killable':>9} {'equivalent':>11}")
    for op, (n, k) in sorted(by.items()):
        print(f"{op:22s} {n:>8} {k:>9} {n - k:>11}")
    kill = sum(bool(r["killing"]) for r in rows)
    print(f"{'all':22s} {len(rows):>8} {kill:>9} {len(rows) - kill:>11}   ({len(tests)} tests, {secs:.2f} s)")
    if a.action == "check":
        want = {r["mutant"]: r for r in mutants.read(path)}
        got = {r["mutant"]: r for r in rows if r["killing"]}
        diff = sorted(set(want) ^ set(got)) + sorted(n for n in set(want) & set(got) if want[n] != got[n])
        for n in diff:
            print(f"differs from {path}: {n}")
        return 1 if diff else 0
    return 0


def cmd_cuda(a):
    import os
    from . import cuda, mutants
    model = Model(_policies(a.policy))
    judge_as = {}
    tests, rc = _parse_files(a.files)
    if rc:
        return rc
    if a.mutants:
        from .syntax import parse_text
        originals = suite.suite_tests()
        for r in mutants.read(os.path.join(suite.SUITE_DIR, "mutants.jsonl.gz")):
            [mt] = parse_text(r["text"], r["mutant"])
            tests.append(mt)
            judge_as[mt.name] = originals[r["test"]]
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        sys.stderr.write(f"ptxcts litmus: --out {a.out}: not a folder\n")
        return 2
    skipped = cuda.write(tests, a.out, model, judge_as)
    for name, why in skipped:
        print(f"not_supported  {name}: {why}")
    print(f"{len(tests) - len(skipped)} kernels, {len(skipped)} not supported: {a.out}/litmus_kernels.cu, "
          f"{a.out}/labels.tsv; build: nvcc -gencode arch=compute_90a,code=sm_90a -std=c++17 -I {cuda.RUNNER_DIR} "
          f"{a.out}/litmus_kernels.cu {cuda.RUNNER_DIR}/litmus_runner.cu -o {a.out}/litmus-runner")
    return 0


def main(argv):
    p = _Parser(prog="ptxcts litmus", description="the litmus model (harness/litmodel/README.md)")
    sub = p.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    m = sub.add_parser("model", help="every outcome's verdict for the tests of FILE...")
    m.add_argument("files", nargs="+", metavar="FILE")
    m.add_argument("--json", metavar="FILE", help="the verdicts as JSON (- for stdout)")
    m.add_argument("--policy", action="append", metavar="NAME=VALUE")
    m.add_argument("--test", action="append", metavar="NAME", help="only these tests")
    c = sub.add_parser("catalog", help="the axioms and policies")
    c.add_argument("--markdown", action="store_true")
    g = sub.add_parser("agreement", help="the model's verdicts against Dat3M's PTX 7.5 expected results")
    g.add_argument("--json", metavar="FILE")
    s = sub.add_parser("suite", help="the generated tests: check their committed labels, or write them")
    s.add_argument("action", choices=("check", "write"))
    u = sub.add_parser("mutants", help="graded mutants of the generated tests, judged by the model")
    u.add_argument("action", choices=("list", "check", "write"))
    u.add_argument("--json", metavar="FILE", help="every mutant (equivalent ones too) and its killing outcomes")
    k = sub.add_parser("cuda", help="the tests (and with --mutants the graded mutants) as CUDA kernels for the runner")
    k.add_argument("files", nargs="*", metavar="FILE")
    k.add_argument("--out", required=True, metavar="DIR")
    k.add_argument("--mutants", action="store_true", help="add the committed graded mutants, judged by their originals")
    k.add_argument("--policy", action="append", metavar="NAME=VALUE")
    if argv and argv[0] == "gpu":   # the GPU tier: its own options (gpu_tier.py)
        from . import gpu_tier
        return gpu_tier.main(argv[1:])
    if argv and argv[0] in ("unseen", "triage", "table"):   # a GPU run's output read on the CPU (observed.py)
        from . import observed
        return observed.main(argv)
    a = p.parse_args(argv)
    return {"cuda": cmd_cuda, "model": cmd_model, "catalog": cmd_catalog, "agreement": cmd_agreement, "suite": cmd_suite,
            "mutants": cmd_mutants}[a.verb](a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
