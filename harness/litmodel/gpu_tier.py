"""`./ptxcts litmus gpu`: the generated litmus tests (and with --mutants the graded mutants) run on the GPU by
gpu/litmus_runner.cu, judged by the model's labels, written as a results document.

A kernel that traps poisons the CUDA context of its process and a deadlock never returns, so the runner is
supervised: it prints one JSON line per test (`{"begin": NAME}`, then the result), and when it dies before a
test's result (a trap: `crash`) or prints nothing for --hang-s seconds (`timeout`, the process group killed), that
test is recorded and a new runner starts from the next one. Every test and mutant gets exactly one result. A
line that is not the runner's protocol stops the tier with exit 3 (what was judged is written first).

Judging (from labels.tsv, the model's verdict of every outcome; a mutant carries its original's labels): an
observed outcome the model forbids, or one it never produces, is `fail` for a test and kills a mutant; an
undefined one is counted and judges nothing; an allowed outcome never observed is listed (the environment cannot
show it yet). Every surviving mutant is triaged (`triage`).

Files under --out: results.json + junit.xml (schema ptxcts-results, tier `run`, load path `cubin`, one case per
test: `litmus.<test>#h100-stress`), mutants.jsonl.gz (one line per mutant: fate, operator, triage),
histograms.jsonl.gz (one line per test and mutant: every outcome, its count and verdict), summary.txt (the tables
printed at the end), log.txt (the runner's stderr)."""
import argparse
import datetime
import gzip
import hashlib
import json
import os
import platform
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

from . import cuda, mutants, static, suite, tuning
from .campaign import Campaign
from .model import Model
from .syntax import parse_file, parse_text

NVCC_FLAGS = ["-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-O2"]
SKIP = 77


class _Stopped(Exception):
    """SIGTERM or SIGINT: stop the runner and write what was judged."""


class ProtocolError(Exception):
    """The runner printed something that is not its protocol (exit 3)."""


def read_labels(path):
    """{test: {outcome: verdict}} from labels.tsv; ProtocolError naming file and line when malformed."""
    out = defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 3 or parts[2] not in ("forbidden", "allowed", "undefined"):
                raise ProtocolError(f"{path}:{no}: expected TEST<TAB>OUTCOME<TAB>forbidden|allowed|undefined")
            out[parts[0]][parts[1]] = parts[2]
    return out


def judge(hist, labels):
    """(forbidden count, undefined count, [forbidden outcomes seen], [allowed outcomes never seen]) of one test's
    histogram {outcome: count} by its labels {outcome: verdict}; an outcome the model never produces is forbidden."""
    forbidden = undefined = 0
    seen_forbidden = []
    for o, c in hist.items():
        v = labels.get(o, "forbidden")
        if v == "forbidden":
            forbidden += c
            seen_forbidden.append(o)
        elif v == "undefined":
            undefined += c
    unseen = sorted(o for o, v in labels.items() if v == "allowed" and o not in hist)
    return forbidden, undefined, sorted(seen_forbidden), unseen


def placement_siblings(originals):
    """{test: [the tests of its shape whose threads sit as its threads do (same names, CTAs and clusters)]}: the
    tests whose outcomes name the same registers in the same placement, so that one's outcome is evidence of what
    the device can show for another."""
    by_test = tuning.shapes()
    groups = defaultdict(list)
    for name, t in originals.items():
        place = tuple(sorted((th, v.cta, v.cluster) for th, v in t.threads.items()))
        groups[(tuning.shape_of(name, by_test), place)].append(name)
    return {n: g for g in groups.values() for n in g}


def device_showed(mutant, hists, siblings):
    """The tests of this run (by name) whose histogram holds one of the mutant's killing outcomes, among the tests
    placed as its original (placement_siblings): the device shows the behaviour that would kill the mutant, under
    a program of the suite that allows it. Mutants are not evidence: a reversed pair can give the outcome in a
    plain interleaving, which says nothing of what the device reorders."""
    kin = set(siblings.get(mutant["test"], [mutant["test"]]))
    killing = set(mutant.get("killing") or [])
    return sorted(n for n, h in hists.items() if n in kin and killing & set(h))


def triage(mutant, hist, runs=None, static_row=None, model=None, originals=None, showed=None):
    """Why a mutant survived, in this order: `equivalent` (the model, run again on the mutant's text, gives it the
    verdicts of its original: no outcome can tell them apart); `lowering` when ptxas gives the mutant's kernel the
    SASS of its original (static.tsv: the mutation never reaches the machine code) or when a rule of the lowering
    tier demands the instruction the mutation removed, weakened or moved (static.lowering_rule: a compiler that
    dropped or moved it fails there); else `stress_gap`: the killing outcomes need a behaviour the environments tried never showed
    (`tried`: each run's environment, instances and seconds). A stress gap says whether the same run showed a
    killing outcome elsewhere (`device_showed`, device_showed(): the tests placed as its original whose histogram
    holds one), so the behaviour is within the device's reach and the environment is what is missing, or nowhere
    (`[]`): the device may not show it at all."""
    tried = {"instances": sum(hist.values()), "environments": sorted({r["env"] for r in runs or []}),
             "runs": len(runs or []), "seconds": round(sum(r["seconds"] for r in runs or []), 3)}
    if model is not None and mutant.get("text") and mutant.get("test") in (originals or {}):
        try:
            [mt] = parse_text(mutant["text"], mutant["mutant"])
            if model.run(mt).verdicts == model.run(originals[mutant["test"]]).verdicts:
                return {"triage": "equivalent", "why": "the model gives the mutant its original's verdict of every "
                                                       "outcome", "tried": tried}
        except Exception as e:   # a mutant the model cannot read again is not equivalent; say why
            tried["model_error"] = str(e)[:200]
    if static_row and static_row[0]:
        return {"triage": "lowering", "rule": "same_sass",
                "why": f"ptxas compiles the mutant's kernel to the SASS of its original ({static_row[1]}): the "
                       f"mutation ({mutant['what']}) does not reach the machine code; no device can kill it",
                "tried": tried}
    if static_row:
        tried["sass_diff"] = static_row[2]   # what the mutation changed in the machine code
        if static_row[2] and all(p == "-CCTL.IVALL" for p in static_row[2].split()):
            tried["note"] = ("the machine code differs only by an L1 invalidation (CCTL.IVALL): only a weak load "
                             "that hits a line this SM's L1 kept from before another agent's write can tell them "
                             "apart (the warm environments load the test's plain locations; a copy's destination "
                             "loaded before its completion is undefined by the chapter)")
    rule = static.lowering_rule(mutant["operator"], mutant["what"])
    if rule:
        return {"triage": "lowering", "rule": rule,
                "why": f"the lowering tier's rule `{rule}` demands the SASS of the instruction the mutation "
                       f"touches ({mutant['what']}): a compiler that drops, weakens or moves it fails there; the "
                       f"stress did not show its absence", "tried": tried}
    hungry = [o for o in mutant["killing"] if o.startswith("hang")]
    out = {"triage": "stress_gap",
           "why": ("the killing outcomes (" + "; ".join(mutant["killing"]) + ") were not observed in "
                   f"{sum(hist.values())} instances" + (" (a hang needs the copy never to complete)" if hungry else "")),
           "distinct_outcomes_seen": len(hist), "tried": tried}
    if showed is not None:
        out["device_showed"] = showed
        out["why"] += (f"; the device showed one in {len(showed)} test(s) placed as its original ({', '.join(showed[:3])}"
                       f"{', ...' if len(showed) > 3 else ''})" if showed else
                       "; no test placed as its original showed one on this device")
    return out


def build(out_dir, with_mutants, nvcc=None, log=sys.stderr):
    """Write the kernels and labels into out_dir/build and compile the runner there (skipped when the sources
    have not changed since the last build). Returns (runner, labels)."""
    bdir = os.path.join(out_dir, "build")
    os.makedirs(bdir, exist_ok=True)
    model = Model()
    tests = [t for f in suite.suite_files() for t in parse_file(f)]
    judge_as = {}
    pairs = []
    if with_mutants:
        originals = {t.name: t for t in tests}
        for r in mutants.read(os.path.join(suite.SUITE_DIR, "mutants.jsonl.gz")):
            [mt] = parse_text(r["text"], r["mutant"])
            tests.append(mt)
            judge_as[mt.name] = originals[r["test"]]
            pairs.append((mt.name, r["test"]))
    skipped = cuda.write(tests, bdir, model, judge_as)
    for name, why in skipped:
        log.write(f"litmus gpu: not_supported {name}: {why}\n")
    runner = os.path.join(bdir, "litmus-runner")
    srcs = [os.path.join(bdir, "litmus_kernels.cu")] + [os.path.join(cuda.RUNNER_DIR, n) for n in
                                                         ("litmus_runner.cu", "litmus_runner.hpp", "litmus_device.hpp")]
    # the digest covers what static.tsv is computed by (static.py): a change of the comparison rebuilds
    digest = hashlib.sha256(b"".join(open(s, "rb").read() for s in srcs + [static.__file__]) +
                            " ".join(NVCC_FLAGS).encode()).hexdigest()
    stamp = runner + ".sha256"
    if os.path.exists(runner) and os.path.exists(stamp) and open(stamp).read().strip() == digest:
        return runner, os.path.join(bdir, "labels.tsv"), skipped
    nvcc = nvcc or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    log.write(f"litmus gpu: compiling {len(tests) - len(skipped)} kernels and the runner ({nvcc}) ...\n")
    log.flush()
    t0 = time.monotonic()
    keep = os.path.join(bdir, "keep")   # the intermediates: the kernels' cubin for static.tsv, then removed
    shutil.rmtree(keep, ignore_errors=True)
    os.makedirs(keep)
    r = subprocess.run([nvcc] + NVCC_FLAGS + ["-keep", "-keep-dir", keep, "-I", cuda.RUNNER_DIR, srcs[0], srcs[1],
                        "-o", runner], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        shutil.rmtree(keep, ignore_errors=True)
        raise RuntimeError(f"nvcc failed ({r.returncode}):\n{r.stdout[-4000:]}")
    _write_static(bdir, keep, pairs, log, nvcc)
    shutil.rmtree(keep, ignore_errors=True)
    with open(stamp, "w") as f:
        f.write(digest + "\n")
    log.write(f"litmus gpu: built {runner} in {time.monotonic() - t0:.0f}s\n")
    return runner, os.path.join(bdir, "labels.tsv"), skipped


def _write_static(bdir, keep, pairs, log, nvcc):
    """build/static.tsv: which mutants ptxas gives the SASS of their original (static.same_sass); none written
    (and said) without nvdisasm or the cubin."""
    path = os.path.join(bdir, "static.tsv")
    if os.path.exists(path):
        os.unlink(path)
    if not pairs:
        return
    cubins = [c for c in os.listdir(keep) if c.startswith("litmus_kernels") and c.endswith(".cubin")]
    dis = static.find_nvdisasm()
    if not cubins or not dis:
        log.write(f"litmus gpu: no static.tsv ({'no nvdisasm' if not dis else 'no cubin kept'}): survivors are "
                  f"triaged without the SASS comparison\n")
        return
    same = static.same_sass(os.path.join(keep, cubins[0]), pairs, dis)
    v = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    release = re.search(r"release (\d+\.\d+)", v)
    static.write_static(path, same, f"ptxas {release.group(1) if release else 'unknown'} sm_90a, "
                                    f"nvdisasm {static.nvdisasm_version(dis)}")
    log.write(f"litmus gpu: static.tsv: {sum(eq for eq, _ in same.values())} of {len(same)} mutants have their "
              f"original's SASS\n")


def list_tests(runner):
    """[(name, is_mutant)] in the runner's table order (`litmus-runner --list`: needs no GPU)."""
    r = subprocess.run([runner, "--list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    if r.returncode != 0:
        raise ProtocolError(f"{runner} --list: exit {r.returncode}: {r.stderr.strip()[:300]}")
    out = []
    for no, line in enumerate(r.stdout.splitlines(), 1):
        parts = line.split("\t")
        if len(parts) != 2 or parts[1] not in ("0", "1"):
            raise ProtocolError(f"{runner} --list, line {no}: expected NAME<TAB>0|1, got {line[:80]!r}")
        out.append((parts[0], parts[1] == "1"))
    return out


def supervise(runner, labels_path, names, runner_args, hang_s, deadline, on_result, log):
    """Run `names` through the runner, restarting it after a crash or a hang. A name is a run: `TEST[@TAG]`,
    optionally followed by its environment (`KEY=VALUE ...`, the runner's tests-file line). on_result(run id,
    record) is called once per run: record is the runner's result object, or {"class": "crash"|"timeout"|"skipped",
    "message"}. Returns 77 when the runner finds no usable GPU (nothing run), else 0."""
    line_of = {n.split()[0]: n for n in names}
    names = list(line_of)
    todo = list(names)
    while todo:
        if time.monotonic() >= deadline:
            for n in todo:
                on_result(n, {"class": "skipped", "message": "the time budget ran out before it"})
            return 0
        with tempfile.NamedTemporaryFile("w", suffix=".tests", delete=False) as tf:
            tf.write("\n".join(line_of[n] for n in todo) + "\n")
        cmd = [runner, labels_path, "--tests-file", tf.name] + runner_args
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, start_new_session=True)
        current, last = None, time.monotonic()
        buf = b""
        ended = False
        why = None
        try:
            while True:
                limit = last + hang_s
                wait = max(0.0, limit - time.monotonic())
                ready, _, _ = select.select([proc.stdout], [], [], min(wait, 1.0))
                if not ready:
                    if time.monotonic() >= limit:
                        why = "timeout"
                        break
                    continue
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    last = time.monotonic()
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        rec = None
                    if not isinstance(rec, dict):
                        raise ProtocolError(f"{runner}: not a line of the runner's protocol: {line[:120]!r}")
                    if "begin" in rec:
                        if rec["begin"] not in todo:
                            raise ProtocolError(f"{runner}: began {rec['begin']!r}, not a test it was given")
                        current = rec["begin"]
                    elif "test" in rec:
                        if rec["test"] != current or not ("hist" in rec or "not_supported" in rec):
                            raise ProtocolError(f"{runner}: a result for {rec.get('test')!r} that was not begun "
                                                f"or has no histogram: {line[:120]!r}")
                        todo.remove(current)
                        on_result(current, rec)
                        current = None
                        if time.monotonic() >= deadline and todo:
                            why = "budget"
                            break
                    elif rec.get("end") is True:
                        ended = True
                    else:
                        raise ProtocolError(f"{runner}: not a line of the runner's protocol: {line[:120]!r}")
                if why:
                    break
        finally:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            proc.wait()
            proc.stdout.close()
            os.unlink(tf.name)
        rc = proc.returncode
        if why == "budget":
            continue   # the loop's head marks the rest skipped
        if why is None and rc == SKIP and current is None and len(todo) == len(names):
            return SKIP
        if why is None and ended and not todo:
            return 0
        if why is None and rc in (2, 3):
            raise ProtocolError(f"{runner}: exit {rc} (usage or a malformed labels file); see the log")
        victim = current or todo[0]
        if why == "timeout":
            msg = f"no result within {hang_s:.0f}s (a deadlock of the kernel); the runner was killed"
        else:
            msg = f"the runner died (exit {rc}) during this test (a trap poisons the CUDA context)"
        todo.remove(victim)
        on_result(victim, {"class": why or "crash", "message": msg})
    return 0


def _has_gpu():
    try:
        r = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           timeout=30)
        return r.returncode == 0 and "GPU" in r.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False


def _device():
    try:
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, timeout=20)
        name, cc, drv = [x.strip() for x in r.stdout.splitlines()[0].split(",")]
        return {"name": name, "sm": "sm_" + cc.replace(".", ""), "cc": cc}, drv
    except Exception:   # no nvidia-smi: the runner still judged; the device is unnamed
        return {"name": "unknown", "sm": "sm_90", "cc": "9.0"}, None


def main(argv):
    p = argparse.ArgumentParser(prog="ptxcts litmus gpu", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--mutants", action="store_true", help="run the graded mutants too (after the tests)")
    p.add_argument("--runner", metavar="PATH", help="a prebuilt litmus-runner (with --labels): no build")
    p.add_argument("--labels", metavar="PATH", help="the labels.tsv written with the prebuilt runner's kernels")
    p.add_argument("--time-budget", type=float, default=0, metavar="S", help="stop starting tests after S seconds")
    p.add_argument("--iters", type=int, default=16)
    p.add_argument("--instances", type=int, default=65536)
    p.add_argument("--stress-lines", type=int, default=64)
    # measured on an H100 (2026-12-06, results/2026-12-06-sm_90-h100-litmus-gpu/): 32 stress iterations per stress
    # thread ran 8.5e4 instances/s and killed 0 of the 2 mutants its 160 s reached; 2 ran 2.0e6/s and killed 122 of
    # 297 in 80 s: the instances, not the stress per instance, are what kills
    p.add_argument("--stress-iters", type=int, default=2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--test-ms", type=int, default=0, help="no new launch of a test after this (0: all --iters)")
    p.add_argument("--hang-us", type=int, default=1000, help="an mbarrier wait gives up after this (outcome hang)")
    p.add_argument("--hang-s", type=float, default=15.0, help="no runner output for this long: timeout")
    p.add_argument("--test", action="append", metavar="NAME", help="only these tests/mutants")
    p.add_argument("--tune", type=float, default=0, metavar="S",
                   help="sweep the environments of tuning.GRID for S seconds (every test and mutant in each; a "
                        "mutant stops at its first kill), rank them per shape into OUT/env-table.json, then spend "
                        "the rest of --time-budget on the surviving mutants in their shape's best environments")
    p.add_argument("--env-table", metavar="FILE|auto",
                   help="a table written by --tune: each test in its shape's best --test-envs environments, the "
                        "mutants in rounds over their shape's ranking until --time-budget; auto: the table of "
                        "harness/litmodel/envs/ that claims this device and driver branch, else the default run")
    p.add_argument("--test-envs", type=int, default=2, help="with --env-table: environments per test (default 2)")
    p.add_argument("--sweep-ms", type=int, default=0,
                   help="with --tune: ms per run of the sweep (0: what fits S seconds)")
    p.add_argument("--build-only", action="store_true",
                   help="only write and compile the kernels and the runner into OUT/build (no GPU needed): carry "
                        "OUT/build/litmus-runner and OUT/build/labels.tsv to a GPU machine, then --runner/--labels")
    p.add_argument("--skip-without-gpu", action="store_true",
                   help="with --build-only: exit 77 without building where nvidia-smi lists no GPU (the build as "
                        "its own CTest step, off the GPU's queue, skipped where the run that needs it would be)")
    a = p.parse_args(argv)
    if a.skip_without_gpu and not a.build_only:
        p.error("--skip-without-gpu goes with --build-only")
    if bool(a.runner) != bool(a.labels):
        p.error("--runner and --labels go together")
    for what, v in (("--tune", a.tune), ("--sweep-ms", a.sweep_ms), ("--time-budget", a.time_budget)):
        if v < 0 or v != v:   # negative or nan
            p.error(f"{what} {v}: must be a number >= 0")
    if a.tune and a.env_table:
        p.error("--tune writes an environment table; --env-table reads one: one of them")
    if (a.tune or a.env_table) and a.time_budget <= a.tune:
        p.error(f"--tune/--env-table need a --time-budget (more than --tune {a.tune:g}s)")
    if a.test_envs <= 0:
        p.error(f"--test-envs {a.test_envs}: must be positive")
    a.env_rows = None
    if a.env_table and a.env_table != "auto":   # read before the device and the build: a bad table costs nothing
        try:
            a.env_rows, _ = tuning.read_table(a.env_table)
        except OSError as e:
            sys.stderr.write(f"ptxcts litmus gpu: --env-table {a.env_table}: {e.strerror}\n")
            return 2
        except tuning.TableError as e:
            sys.stderr.write(f"ptxcts litmus gpu: --env-table {e}\n")
            return 3
    for what, v in (("--iters", a.iters), ("--instances", a.instances), ("--hang-us", a.hang_us)):
        if v <= 0:
            p.error(f"{what} {v}: must be positive")
    if a.build_only:
        if a.runner:
            p.error("--build-only builds a runner; --runner names a prebuilt one")
        if a.skip_without_gpu and not _has_gpu():
            sys.stderr.write("ptxcts litmus gpu: --skip-without-gpu: no GPU (nvidia-smi lists none): no build (exit 77)\n")
            return SKIP
        try:
            runner, labels_path, _ = build(a.out, a.mutants, log=sys.stderr)
        except RuntimeError as e:
            sys.stderr.write(f"ptxcts litmus gpu: {e}\n")
            return 2
        print(f"{runner}\n{labels_path}")
        return 0
    if not a.runner and not _has_gpu():
        # checked before the build (a minute of nvcc): a machine without a GPU skips at once
        sys.stderr.write("ptxcts litmus gpu: no GPU (nvidia-smi lists none): nothing run (exit 77)\n")
        return SKIP
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "log.txt"), "a", encoding="utf-8") as log:
        return _run(a, p, log)


def _run(a, p, log):
    started = datetime.datetime.now(datetime.timezone.utc)
    t0 = time.monotonic()
    if a.runner:
        for path in (a.runner, a.labels):
            if not os.path.isfile(path):
                sys.stderr.write(f"ptxcts litmus gpu: {path}: no such file\n")
                return 2
        runner, labels_path = a.runner, a.labels
    else:
        try:
            runner, labels_path, _ = build(a.out, a.mutants, log=sys.stderr)
        except RuntimeError as e:
            sys.stderr.write(f"ptxcts litmus gpu: {e}\n")
            return 2
    try:
        labels = read_labels(labels_path)
        table = list_tests(runner)
    except ProtocolError as e:
        sys.stderr.write(f"ptxcts litmus gpu: {e}\n")
        return 3
    except OSError as e:
        sys.stderr.write(f"ptxcts litmus gpu: {labels_path}: {e.strerror}\n")
        return 2
    names = [n for n, m in table if (a.mutants or not m) and (not a.test or n in a.test)]
    env_rows = a.env_rows
    if a.env_table == "auto":   # the committed table of this device and driver branch, else the default environment
        dev, drv = _device()
        path = tuning.find_table(dev.get("name"), drv)
        if path is None:
            sys.stderr.write(f"litmus gpu: --env-table auto: no table in {tuning.ENVS_DIR} for {dev.get('name')} "
                             f"(driver {drv}): the default environment, one run each\n")
        else:
            try:
                env_rows, _ = tuning.read_table(path)
            except tuning.TableError as e:
                sys.stderr.write(f"ptxcts litmus gpu: --env-table auto: {e}\n")
                return 3
            sys.stderr.write(f"litmus gpu: --env-table auto: {path}\n")
    try:   # written beside labels.tsv by the build (static.py); none: the triage goes without it
        static_rows = static.read_static(os.path.join(os.path.dirname(os.path.abspath(labels_path)), "static.tsv"))
    except ValueError as e:
        sys.stderr.write(f"ptxcts litmus gpu: {e}\n")
        return 3
    if a.test:
        unknown = sorted(set(a.test) - {n for n, _ in table})
        if unknown:
            sys.stderr.write(f"ptxcts litmus gpu: --test {unknown[0]}: not in the runner's table\n")
            return 2
    is_mutant = dict(table)
    mut_info = {r["mutant"]: r for r in mutants.read(os.path.join(suite.SUITE_DIR, "mutants.jsonl.gz"))}
    results = {}
    total = len(names)
    budget_end = t0 + a.time_budget if a.time_budget > 0 else float("inf")
    instances_done = [0.0, 0.0]

    def on_result(name, rec):
        results[name] = rec
        if "hist" in rec:
            instances_done[0] += rec.get("instances", 0)
            instances_done[1] += rec.get("seconds", 0)
        done = len(results)
        el = time.monotonic() - t0
        rate = done / el if el > 0 else 0
        tag = rec.get("verdict") or rec.get("class") or ("not_supported" if "not_supported" in rec else "?")
        sys.stderr.write(f"litmus gpu: {done}/{total} ({rate:.1f}/s, ETA {(total - done) / rate if rate else 0:.0f}s)"
                         f" {name}: {tag}\n")
        sys.stderr.flush()

    runner_args = ["--iters", str(a.iters), "--instances", str(a.instances), "--stress-lines", str(a.stress_lines),
                   "--stress-iters", str(a.stress_iters), "--seed", str(a.seed), "--hang-us", str(a.hang_us),
                   "--test-ms", str(a.test_ms)]
    rc = 0
    protocol_error = stopped = None
    campaign = None

    def on_term(signum, frame):
        raise _Stopped(signal.Signals(signum).name)
    old = {sig: signal.signal(sig, on_term) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        if a.tune or env_rows is not None:
            campaign = Campaign(a, runner, labels_path, names, is_mutant, env_rows, t0, budget_end, log, supervise,
                                [m for m, row in static_rows.items() if row[0]])
            rc = campaign.run()
            results.update(campaign.merged())
            instances_done[:] = campaign.instances_done
        else:
            rc = supervise(runner, labels_path, names, runner_args, a.hang_s, budget_end, on_result, log)
    except ProtocolError as e:
        protocol_error = str(e)
    except _Stopped as e:   # the runner is killed (supervise's finally); what was judged is written
        stopped = f"stopped by {e}"
    finally:
        if campaign is not None and not results:
            results.update(campaign.merged())
            instances_done[:] = campaign.instances_done
        for sig, h in old.items():
            signal.signal(sig, h)
    if rc == SKIP:
        sys.stderr.write("ptxcts litmus gpu: no sm_90 GPU: nothing run (exit 77)\n")
        return SKIP
    device, driver = _device()
    if campaign is not None and a.tune:
        table = tuning.make_table(campaign.scores(), device, driver,
                                  datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                                  {"instances": a.instances, "seed": a.seed, "hang_us": a.hang_us,
                                   "sweep_ms": campaign.sweep_ms})
        tuning.write_table(os.path.join(a.out, "env-table.json"), table)
    doc, hist_lines, mut_lines, summary = report(names, results, labels, is_mutant, mut_info, a, device, driver,
                                                 started, runner, instances_done, static_rows)
    if protocol_error or stopped:
        doc["partial"] = {"reason": (protocol_error or stopped)[:500], "done": len(results), "total": total}
    write(a.out, doc, hist_lines, mut_lines, summary)
    sys.stderr.write(summary)
    if protocol_error:
        sys.stderr.write(f"ptxcts litmus gpu: {protocol_error}\n")
        return 3
    if stopped:
        sys.stderr.write(f"ptxcts litmus gpu: {stopped}: {len(results)} of {total} judged, written\n")
        return 130
    return 1 if any(c["class"] in ("fail", "crash", "timeout") for c in doc["cases"]) else 0


_ALT_MODELS = {}


def divergence(test, outcomes):
    """Every single policy deviation (catalog.POLICIES, `NAME=VALUE`, joined by " or ") under which the model allows
    or leaves undefined every one of `outcomes` of `test` (the forbidden outcomes a device showed), else None: the
    run tier's rule, a device that matches an alternative reading is `spec_divergence` naming it; where two
    readings explain it, both are named (the tests that tell them apart decide)."""
    from . import catalog
    if test is None:
        return None
    found = []
    for pol in catalog.POLICIES:
        for value, _ in pol.alternatives:
            if value == pol.default:
                continue
            key = f"{pol.name}={value}"
            model = _ALT_MODELS.setdefault(key, Model({pol.name: value}))
            verdicts = {" ".join(f"{k}={x}" for k, x in o): v for o, v in model.run(test).verdicts.items()}
            if all(verdicts.get(o) in ("allowed", "undefined") for o in outcomes):
                found.append(key)
    return " or ".join(found) or None


def report(names, results, labels, is_mutant, mut_info, a, device, driver, started, runner, instances_done,
           static_rows=None):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    cases, hist_lines, mut_lines = [], [], []
    replay = f"./ptxcts litmus gpu --out OUT --test {{}} --iters {a.iters} --instances {a.instances} --seed {a.seed}"
    static_rows = static_rows or {}
    model = Model()
    originals = suite.suite_tests()
    siblings = placement_siblings(originals)
    hists = {n: r["hist"] for n, r in results.items() if "hist" in r}
    classes = Counter()
    per_op = defaultdict(Counter)
    for n in names:
        rec = results.get(n, {"class": "skipped", "message": "not reached (the runner's protocol broke)"})
        lab = labels.get(n, {})
        entry = {"test": n, "mutant": is_mutant[n]}
        if "hist" in rec:
            hist = rec["hist"]
            forb, undef, seen_forb, unseen = judge(hist, lab)
            entry.update(instances=rec["instances"], seconds=rec["seconds"],
                         outcomes={o: [c, lab.get(o, "forbidden")] for o, c in sorted(hist.items())},
                         unseen_allowed=unseen)
            if "runs" in rec:
                entry["runs"] = rec["runs"]
            hist_lines.append(entry)
            cls = "fail" if forb else rec.get("finding", "pass")
            details = {"instances": rec["instances"], "seconds": rec["seconds"], "forbidden_observed": forb,
                       "undefined_observed": undef, "unseen_allowed": unseen, "forbidden_outcomes": seen_forb}
            if "runs" in rec:
                details["environments"] = sorted({r["env"] for r in rec["runs"]})
            msg = (f"forbidden outcomes observed: {'; '.join(seen_forb)}" if forb else rec.get("message", ""))
            matched = divergence(originals.get(n), seen_forb) if forb and not is_mutant[n] else None
            if matched:   # the device matched an alternative reading of the chapter (catalog.POLICIES)
                cls = "spec_divergence"
                details["policy"] = matched
                msg = f"device matched {matched}: {msg}"
        elif "not_supported" in rec:
            cls, details, msg, hist = "not_supported", {}, rec["not_supported"], None
        else:
            cls, details, msg, hist = rec["class"], {}, rec["message"], None
        if is_mutant[n]:
            info = mut_info.get(n, {"operator": "unknown", "what": "", "killing": [], "test": n.split("+")[0]})
            fate = {"fail": "killed", "pass": "survived"}.get(cls, cls)
            # a kill counts only by an outcome its original did not show on this device in this run (else the
            # original diverges, and the mutant is told apart from nothing)
            shared = []
            if fate == "killed":
                orig_seen = (results.get(info["test"]) or {}).get("hist") or {}
                shared = [o for o in seen_forb if o in orig_seen]
                if len(shared) == len(seen_forb):
                    fate = "survived"
            m = {"mutant": n, "original": info["test"], "operator": info["operator"], "what": info["what"],
                 "fate": fate, "message": msg}
            if shared:
                m["original_showed"] = shared
            if n in static_rows:   # what the mutation changed in the machine code (static.sass_diff)
                m["sass_diff"] = static_rows[n][2] or "same"
            if "runs" in rec:
                m["runs"] = rec["runs"]
                k = [r for r in rec["runs"] if r["verdict"] == "killed"]
                if k and fate == "killed":
                    m["killed_in"] = k[0]["env"]
            if fate == "survived" and shared:
                m.update({"triage": "original_diverges", "why": "its killing outcomes observed ("
                          + "; ".join(shared) + ") were observed in its original too on this device: "
                          "the original's class says why (spec_divergence or fail)"})
            elif fate == "survived":
                m.update(triage(info, hist or {}, rec.get("runs"), static_rows.get(n), model, originals,
                                device_showed(info, hists, siblings)))
            mut_lines.append(m)
            per_op[info["operator"]][fate] += 1
            continue
        classes[cls] += 1
        case = {"id": f"litmus.{n}#stress", "family": "litmus." + n.split(".")[0], "form": f"litmus.{n}",
                "target": "sm_90a", "ptx": "9.0", "load_path": "cubin", "class": cls, "details": details}
        if msg:
            case["message"] = msg
        if cls in ("fail", "spec_divergence", "crash", "timeout"):
            case["replay"] = replay.format(n)
        cases.append(case)
    finished = datetime.datetime.now(datetime.timezone.utc)
    doc = {"schema": "ptxcts-results", "version": 2,
           "run_id": started.strftime("%Y-%m-%dT%H%M%SZ") + "-litmus-gpu", "tier": "run",
           "started": started.isoformat(), "finished": finished.isoformat(), "seed": a.seed, "shard": {"index": 0, "count": 1},
           "host": {"name": platform.node() or "unknown", "cpus": os.cpu_count()}, "toolchain": {"driver": driver} if driver else {},
           "device": device, "cases": cases}
    # the summary
    lines = ["", "litmus gpu: tests", f"{'class':<16}{'tests':>8}", "-" * 24]
    for c in ("pass", "fail", "spec_divergence", "not_supported", "crash", "timeout", "skipped"):
        lines.append(f"{c:<16}{classes[c]:>8}")
    lines.append(f"{'total':<16}{sum(classes.values()):>8}")
    unseen_total = sum(len(h["unseen_allowed"]) for h in hist_lines if not h["mutant"])
    lines.append(f"allowed outcomes never observed (tests): {unseen_total}")
    inst, secs = instances_done
    lines.append(f"instances: {inst:.0f} in {secs:.1f}s of launches: {inst / secs if secs else 0:.3g} instances/s")
    rates = sorted((h["instances"] / h["seconds"], h["test"]) for h in hist_lines if h["seconds"] > 0)
    if rates:
        mid = rates[len(rates) // 2][0]
        lines.append(f"instances/s per test and mutant: median {mid:.3g}, slowest: " +
                     ", ".join(f"{n} {r:.3g}" for r, n in rates[:5]))
    if mut_lines:
        lines += ["", "litmus gpu: mutants (killable by the model)",
                  f"{'operator':<22}{'mutants':>8}{'killed':>8}{'survived':>9}{'other':>7}{'kill %':>8}", "-" * 62]
        tot = Counter()
        for op in sorted(per_op):
            c = per_op[op]
            tot.update(c)
            k, s = c["killed"], c["survived"]
            other = sum(c.values()) - k - s
            lines.append(f"{op:<22}{sum(c.values()):>8}{k:>8}{s:>9}{other:>7}{100.0 * k / max(1, sum(c.values())):>7.1f}%")
        k, s = tot["killed"], tot["survived"]
        lines.append(f"{'all':<22}{sum(tot.values()):>8}{k:>8}{s:>9}{sum(tot.values()) - k - s:>7}"
                     f"{100.0 * k / max(1, sum(tot.values())):>7.1f}%")
        same = {n for n, row in static_rows.items() if row[0]}
        if same:
            ran = [m for m in mut_lines if m["mutant"] not in same]
            kk = sum(m["fate"] == "killed" for m in ran)
            lines.append(f"without the {len(same)} whose kernel is their original's SASS (static.tsv): {kk} of "
                         f"{len(ran)} killed ({100.0 * kk / max(1, len(ran)):.1f}%)")
        lines += triage_lines(mut_lines)
        by_env = Counter(m["killed_in"] for m in mut_lines if m.get("killed_in"))
        if by_env:
            lines.append("killed first in: " + ", ".join(f"{e} {c}" for e, c in by_env.most_common()))
        lines += ["", "mutants of a fence.proxy.async (drop_fence: dropped; reverse_accesses: moved), with their fate:"]
        for m in mut_lines:
            if "fence.proxy.async" in m["what"]:
                lines.append(f"  {m['mutant']:<56} {m['fate']:<9} {m.get('triage', '')} {m.get('rule', '')}".rstrip())
    return doc, hist_lines, mut_lines, "\n".join(lines) + "\n"


def triage_lines(mut_lines):
    """The survivors' triage counts, and of the stress gaps how many the device showed elsewhere in the run."""
    surv = [m for m in mut_lines if m["fate"] == "survived"]
    tri = Counter(m.get("triage") for m in surv)
    if not tri:
        return []
    out = ["survivors by triage: " + ", ".join(f"{t} {c}" for t, c in sorted(tri.items()))]
    gaps = [m for m in surv if m.get("triage") == "stress_gap" and "device_showed" in m]
    if gaps:
        shown = sum(bool(m["device_showed"]) for m in gaps)
        out.append(f"stress gaps whose killing outcome the device showed in a test placed as their original: {shown} of "
                   f"{len(gaps)} (within its reach: the environment is what is missing); shown by no test: "
                   f"{len(gaps) - shown}")
    return out


def write(out, doc, hist_lines, mut_lines, summary):
    try:
        from framework.documents.writer import write_run
    except ImportError as e:   # a GPU machine without the generator's jinja2: the same document, unvalidated
        sys.stderr.write(f"litmus gpu: results.json written unvalidated (framework not importable: {e})\n")
        head = {k: v for k, v in doc.items() if k != "cases"}
        text = json.dumps(head, indent=1, sort_keys=True)[:-2] + ',\n "cases": [\n' + ",\n".join(
            json.dumps(c, sort_keys=True) for c in doc["cases"]) + "\n ]\n}\n"
        with open(os.path.join(out, "results.json"), "w", encoding="utf-8") as f:
            f.write(text)
    else:
        write_run(out, doc)
    with gzip.open(os.path.join(out, "histograms.jsonl.gz"), "wt", encoding="utf-8") as f:
        for h in hist_lines:
            f.write(json.dumps(h, sort_keys=True) + "\n")
    if mut_lines:
        with gzip.open(os.path.join(out, "mutants.jsonl.gz"), "wt", encoding="utf-8") as f:
            for m in mut_lines:
                f.write(json.dumps(m, sort_keys=True) + "\n")
    with open(os.path.join(out, "summary.txt"), "w", encoding="utf-8") as f:
        f.write(summary)
