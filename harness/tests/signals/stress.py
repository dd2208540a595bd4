#!/usr/bin/env python3
"""Signals at chosen moments of every verb that judges, on a loaded machine (docs/CLI.md, "Signals").

For each verb (compile, run, explore, lower, frontend, selftest, matrix, all) on a small selection, one uninterrupted
run first (the reference: its classes and its wall time), then N trials: the verb is started through ./ptxcts, and
at a moment drawn against the wall time of an uninterrupted run now (the reference's, then the median of the last
three runs that ended before their signal: moment_scale) (start-up, the first cases, many in flight, the document
being written, or already ended) SIGINT or SIGTERM is sent to the wrapper (`kill PID`), to the wrapper's group
(Ctrl-C at a terminal) or to the verb's own process (the wrapper's child), in turn. `--moments random` draws each
moment from 0 to 1.1 x that time; `--moments phases` draws the trials of a verb in turn from its three phases
(PHASES: start-up, in flight, and the teardown window around its end, where the signal meets the documents being
written and the session closing), so that three trials reach each phase once; each verb starts at another phase,
and every third verb at another target (target_index), so that one trial per verb still pairs the phases with
each target across the verbs. Each trial must end in one of the two outcomes the contract
allows:

  (a) a valid document marked partial, whose judged cases have the reference's classes, and which `--resume`
      completes to exactly the reference's classes;
  (b) no document, because nothing was judged yet (the verb's log has not announced its judging), and `--resume`
      then refuses the folder (exit 2) saying how to start the run afresh;

or, when the signal came after the verb had ended, the complete document with the reference's classes. In every
trial: exit 128 + signal (130, 143) when the signal reached a running verb, within BOUND_S of the signal; no process
of the wrapper's session left once it exited; no output folder's lock held; no traceback or internal error.

    python3 harness/tests/signals/stress.py [--trials N] [--verbs LIST] [--hogs K]
                                            [--parallel P] [--moments random|phases] [--seed S] [--json F] [--md F]

--parallel P runs P verbs side by side (each its reference, then its trials, in turn), each the other's load.
CTest: cli.signals.stress (label cli): one trial per verb, its phase and target in turn across the verbs (`all`:
in flight, where its lanes and their tiers run), two verbs side by side and no hog (the two verbs, and the tests
ctest runs beside it, are the load); bench.signals.stress (label benchmark): 50 per verb at random moments beside
2 hogs, one verb at a time, which runs only with PTXCTS_SIGNAL_STRESS_FULL=1 (else exit 77, a skip). A verb that cannot run here
(its binary not built, its front-end not installed) is reported skipped with the reason, never passed; the short
test fails when every verb is skipped. Exit 0 when no trial broke the contract, 1 otherwise.
"""
import argparse
import collections
import fcntl
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path[:0] = [os.path.join(ROOT, "harness"), os.path.join(ROOT, "generator")]
from framework import documents  # noqa: E402
from framework.documents.errors import ResultsError  # noqa: E402
from processes import session  # noqa: E402  (this folder: sys.path[0] of a script)

BUILD = os.path.abspath(os.environ.get("PTXCTS_BUILD") or os.path.join(ROOT, "build"))
BOUND_S = 30.0   # signal to exit: a few seconds to stop, plus the write, on a loaded 2-core machine
CRASH_MARKS = ("Traceback (most recent call last)", "internal error", "terminate called", "Segmentation fault")
TARGETS = ("wrapper", "group", "tier")
LOCKS = (".ptxcts.lock",)   # the lock every tier takes (framework/documents/runio.py, runcore FolderLock)
# --moments phases: each phase's range, in units of moment_scale. The teardown window straddles the end: a SIGTERM
# there once found ptxcts-explore exiting 0 after its last check (runcore exit_after_stop).
PHASES = (("start-up", 0.0, 0.15), ("in flight", 0.15, 0.85), ("teardown", 0.85, 1.05))
FAMILY = "cp.async.bulk"
SMALL = "cp.async.bulk.prefetch"


class Verb:
    """How one verb is run, read back and resumed. docs(out) -> {name: path of a document it may write};
    resume(name, out, doc) -> argv that finishes it (None: the verb has no --resume); started: text its log
    prints once it judges (a run that printed it and wrote nothing lost what it judged); finished: the exits of a
    run that ended by itself (0 or 1, a verdict; `all` also 77, its CPU part passed on a host without a GPU)."""

    def __init__(self, name, argv, docs, resume, started, needs=None, tree=False, finished=(0, 1)):
        self.name, self.argv, self.docs, self.resume, self.started = name, argv, docs, resume, started
        self.needs, self.tree, self.finished = needs, tree, finished


def _results(out):
    return {"results": os.path.join(out, "results.json")}


def _built(name):
    path = os.path.join(BUILD, "harness", "run", name)
    return None if os.path.exists(path) else f"{path} is not built"


def _llvm():
    try:
        import frontend
        return None if frontend.installed_dir("llvm-22") else "the front-end llvm-22 is not installed"
    except Exception as e:   # noqa: BLE001 -- a front-end that cannot even be looked up is not here
        return f"the front-end llvm-22 cannot be looked up ({type(e).__name__}: {e})"


COMPILE = ["compile", "--family", FAMILY, "--limit", "400", "-j", "2", "--module-size", "4", "--quiet"]
RUN = ["run", "--device", "model", "--family", "cp.async.bulk.tensor", "--jobs", "2", "--quiet"]
EXPLORE_N = 30000
# --time far above what the cases take: the case count alone ends the exploration (under a load heavier than the
# reference's, the default 60 s budget ended a resumed run with cases still pending, fewer than the reference ran)
EXPLORE_TIME = ["--time", "3600"]
EXPLORE = ["explore", "--device", "model", "--family", FAMILY, "--seed", "7", "--jobs", "2", "--cases-file", "none",
           "--shrink-time", "0", "--quiet"] + EXPLORE_TIME
LOWER = ["lower", "--family", "cp.async.bulk.tensor", "--target", "sm_90", "-j", "2", "--module-size", "16", "--quiet"]
FRONTEND = ["frontend", "run", "--frontend", "llvm-22", "--family", FAMILY, "-j", "2", "--quiet"]
SELFTEST = ["selftest", "--tier", "lower", "--family", FAMILY, "--target", "sm_90"]


def _installed_second_toolchain():
    """A toolchain beside the installed toolkit's 13.0 for the matrix's two columns: the first of these that is
    installed (a GPU runner without network has none of the wheels; the matrix then runs 13.0 alone, never a download
    that cannot succeed)."""
    from framework import toolchains
    for name in ("12.9", "13.5", "13.2", "12.8", "12.4"):
        if toolchains.installed_dir(name):
            return (name,)
    return ()


MATRIX_TC = ("13.0",) + _installed_second_toolchain()
MATRIX = ["matrix", "--toolchains", ",".join(MATRIX_TC), "--verdicts", "ptxas", "--family", SMALL, "-j", "2"]
ALL = ["all", "--family", SMALL]
ALL_TIERS = {"compile": ["compile", "--verdicts", "ptxas,nvjitlink", "--family", SMALL, "--quiet"],
             "lower": ["lower", "--family", SMALL, "--quiet"],
             "frontend-llvm-22": ["frontend", "run", "--frontend", "llvm-22", "--family", SMALL, "--quiet"]}


def _all_docs(tree):
    """The run folders an `all` in `tree` wrote, by tier (the stamp is its own)."""
    res = os.path.join(tree, "results")
    found = {}
    for d in sorted(os.listdir(res)) if os.path.isdir(res) else ():
        for tier in ALL_TIERS:
            if d.endswith("-" + tier) and os.path.isdir(os.path.join(res, d)):
                found[tier] = os.path.join(res, d, "results.json")
    return found


# An uninterrupted run of each verb beside the others, seconds (results/bench/2026-11-29-signal-stress-2.md): the
# order --parallel starts them in, the longest first.
REFERENCE_S = {"all": 150, "selftest": 76, "matrix": 69, "run": 55, "lower": 32, "frontend": 26, "compile": 24,
               "explore": 11}

VERBS = {
    "compile": Verb("compile", COMPILE, _results, lambda n, out, doc: COMPILE + ["--resume", out], " x verdicts "),
    "run": Verb("run", RUN, _results, lambda n, out, doc: ["run", "--jobs", "2", "--quiet", "--resume", out],
                "case(s) x", needs=lambda: _built("ptxcts-run")),
    "explore": Verb("explore", EXPLORE + ["--cases", str(EXPLORE_N)],
                    lambda out: {"explore": os.path.join(out, "explore.json")},
                    lambda n, out, doc: ["explore", "--resume", out, "--device", "model", "--jobs", "2",
                                         "--cases-file", "none", "--shrink-time", "0", "--quiet", "--cases",
                                         str(EXPLORE_N - doc.get("cases_drawn", 0))]   # 0: only the pending
                                        + EXPLORE_TIME,
                    "form(s), seed", needs=lambda: _built("ptxcts-explore") or _built("ptxcts-run")),
    "lower": Verb("lower", LOWER, _results, lambda n, out, doc: LOWER + ["--resume", out], "pairs from"),
    "frontend": Verb("frontend", FRONTEND, _results, lambda n, out, doc: FRONTEND + ["--resume", out],
                     "to judge in", needs=_llvm),
    # the self-test measures kinds: its partial report keeps every kind measured, --resume measures the rest
    "selftest": Verb("selftest", SELFTEST, lambda out: {"selftest": os.path.join(out, "selftest-lower.json")},
                     lambda n, out, doc: SELFTEST + ["--resume", out], "selftest --tier lower: sm_90 "),
    "matrix": Verb("matrix", MATRIX, lambda out: {t: os.path.join(out, t, "results.json") for t in MATRIX_TC},
                   lambda n, out, doc: ["compile", "--toolchain", n, "--verdicts", "ptxas", "--family", SMALL, "-j",
                                        "2", "--quiet", "--resume", os.path.dirname(doc["_path"])],
                   " x verdicts "),   # in the compile tier's own log, out/<toolchain>.log
    "all": Verb("all", ALL, None, lambda n, out, doc: ALL_TIERS[n] + ["--resume", os.path.dirname(doc["_path"])],
                {"compile": " x verdicts ", "lower": "pairs from", "frontend-llvm-22": "to judge in"},
                needs=_llvm, tree=True, finished=(0, 1, 77)),
}


# ---- reading what a trial left ----------------------------------------------------------------------------------
def read_doc(kind, path):
    """(the document, its classes {key: class}) or raises ResultsError / ValueError for an invalid one."""
    if kind == "explore":
        with open(path) as f:
            doc = json.load(f)
        return doc, {("explore", k): v for k, v in doc["classes"].items()} | {("explore", "#run"): doc["cases_run"]}
    if kind == "selftest":
        with open(path) as f:
            doc = json.load(f)
        return doc, {(t, k): {c: r[c] for c in r if c not in ("plants", "seconds", "what")}
                     for t, tv in doc["targets"].items() for k, r in tv.get("kinds", {}).items()}
    doc = documents.load(path)
    return doc, {(c["id"], c["load_path"], c["target"]): c["class"] for c in doc["cases"]}


def is_partial(kind, doc):
    if kind == "explore":
        return bool(doc.get("interrupted"))
    if kind == "selftest":
        return bool(doc.get("interrupted"))
    return "partial" in doc


def judged(kind, classes):
    """The results a partial document holds as judged (the rest were not attempted)."""
    if kind in ("explore", "selftest"):
        return classes
    return {k: v for k, v in classes.items() if v != "skipped"}


def held_locks(folder):
    held = []
    for dirpath, _, files in os.walk(folder):
        for f in files:
            if f in LOCKS:
                path = os.path.join(dirpath, f)
                with open(path, "a+") as fd:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        fcntl.flock(fd, fcntl.LOCK_UN)
                    except OSError:
                        held.append(path)
    return held


# ---- one run of a verb -----------------------------------------------------------------------------------------
class Runner:
    def __init__(self, work, env):
        self.work, self.env = work, env
        self.tree = None

    def tree_copy(self):
        """A copy of the source tree for `all`, which writes into results/ and generated/ of the tree it runs in."""
        if self.tree is None:
            self.tree = os.path.join(self.work, "tree")
            files = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard"], capture_output=True,
                                   text=True, check=True).stdout.splitlines()
            for f in files:
                src = os.path.join(ROOT, f)
                if os.path.isfile(src):
                    dst = os.path.join(self.tree, f)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copy2(src, dst)
        return self.tree

    def start(self, verb, out):
        exe = os.path.join(self.tree_copy(), "ptxcts") if verb.tree else os.path.join(ROOT, "ptxcts")
        argv = [exe] + verb.argv + ([] if verb.tree else ["--out", out])
        log = open(os.path.join(os.path.dirname(out), os.path.basename(out) + ".log"), "w+")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=self.work,
                             start_new_session=True)
        return p, log

    def docs(self, verb, out):
        return _all_docs(self.tree_copy()) if verb.tree else verb.docs(out)

    def resume(self, verb, name, out, doc):
        argv = verb.resume(name, out, doc)
        if argv is None:
            return None
        exe = os.path.join(self.tree_copy(), "ptxcts") if verb.tree else os.path.join(ROOT, "ptxcts")
        return subprocess.run([exe] + argv, capture_output=True, text=True, env=self.env, cwd=self.work,
                              timeout=900)


def kind_of(verb, name):
    if verb.name in ("explore", "selftest"):
        return verb.name
    return "results"


def reference(runner, verb):
    """(wall seconds, {doc name: classes}) of an uninterrupted run."""
    out = os.path.join(runner.work, f"{verb.name}-reference")
    if verb.tree:
        _restore_results(runner)
    t0 = time.monotonic()
    p, log = runner.start(verb, out)
    code = p.wait(timeout=1800)
    wall = time.monotonic() - t0
    log.seek(0)
    text = log.read()
    log.close()
    if code not in verb.finished:
        raise RuntimeError(f"{verb.name}: the uninterrupted reference run exited {code}: {text[-1500:]}")
    classes = {}
    for name, path in runner.docs(verb, out).items():
        if os.path.exists(path):
            classes[name] = read_doc(kind_of(verb, name), path)[1]
    if not classes:
        raise RuntimeError(f"{verb.name}: the reference run wrote no document: {text[-800:]}")
    return wall, classes


def _restore_results(runner):
    """`all` in the tree copy: its results/ back to the committed one (each trial finds its own run folders)."""
    tree = runner.tree_copy()
    shutil.rmtree(os.path.join(tree, "results"), ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "results"), os.path.join(tree, "results"),
                    ignore=shutil.ignore_patterns("*-all.tsv"))


def _signal(p, target, sig):
    """Send; the target actually reached ('wrapper', 'group', 'tier'), or None when the verb had ended."""
    if p.poll() is not None:
        return None
    if target == "tier":
        t0 = time.monotonic()
        while time.monotonic() - t0 < 2.0 and p.poll() is None:
            kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
            if kids:
                try:
                    os.kill(int(kids[0]), sig)
                    return "tier"
                except ProcessLookupError:
                    pass
            time.sleep(0.02)
        target = "wrapper"   # the verb not started yet, or already gone: the wrapper is what is there
    try:
        if target == "group":
            os.killpg(p.pid, sig)
        else:
            os.kill(p.pid, sig)
    except ProcessLookupError:
        return None
    return target


def _sleep_watching(p, delay):
    """Sleep `delay` seconds from now, watching the verb: the seconds it ran when it ended meanwhile, else None."""
    t0 = time.monotonic()
    while True:
        left = delay - (time.monotonic() - t0)
        if p.poll() is not None:
            return time.monotonic() - t0
        if left <= 0:
            return None
        time.sleep(min(left, 0.05))


def moment_scale(walls):
    """The wall time the next moment is drawn against: the median of the last three uninterrupted runs (the
    reference, then each trial that ended before its signal). The load changes during a benchmark (its reference
    ran beside the other processes' references): against the reference alone, half the moments of a verb came after
    its end once the load eased."""
    return statistics.median(walls[-3:])


def moment(rng, ref_wall, k, moments, first_phase=0):
    """The seconds from the start to the signal of trial k: at random over 0 to 1.1 x ref_wall, or in the phase
    (first_phase + k) mod 3 of PHASES."""
    if moments == "random":
        return rng.uniform(0.0, 1.1 * ref_wall)
    _, lo, hi = PHASES[(first_phase + k) % len(PHASES)]
    return rng.uniform(lo * ref_wall, hi * ref_wall)


def target_index(k, first_phase=0):
    """The index in TARGETS of trial k's target: in turn over a verb's trials, from a start that moves every
    len(PHASES) verbs, so that one trial per verb (CTest) still pairs each phase with each target across the verbs."""
    return (k + first_phase // len(PHASES)) % len(TARGETS)


def trial(runner, verb, ref_wall, ref, k, rng, moments="random", first_phase=0):
    out = os.path.join(runner.work, f"{verb.name}-{k}")
    if verb.tree:
        _restore_results(runner)
    target, sig = TARGETS[target_index(k, first_phase)], rng.choice((signal.SIGINT, signal.SIGTERM))
    delay = moment(rng, ref_wall, k, moments, first_phase)
    rec = {"verb": verb.name, "trial": k, "signal": signal.Signals(sig).name, "asked": target,
           "delay_s": round(delay, 2), "scale_s": round(ref_wall, 2),
           "at": round(delay / ref_wall, 3) if ref_wall else None, "problems": []}
    p, log = runner.start(verb, out)
    ran = _sleep_watching(p, delay)
    if ran is not None:   # it ended before the moment: how long an uninterrupted run takes now (the next moments')
        rec["ran_s"] = round(ran, 2)
    reached = _signal(p, target, sig)
    t_sig = time.monotonic()
    rec["target"] = reached
    try:
        code = p.wait(timeout=BOUND_S + 600)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        code = p.wait()
        rec["problems"].append("did not exit within 600 s of the signal")
    rec["exit"], rec["exit_s"] = code, round(time.monotonic() - t_sig, 2)
    left = session(p.pid)
    log.seek(0)
    text = log.read()
    log.close()
    if left:
        rec["problems"].append(f"{len(left)} process(es) left: {left[:3]}")
        for pid, _ in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    for mark in CRASH_MARKS:
        if mark in text:   # the lines before the mark and the trace itself, not the summary table that follows
            at = text.index(mark)
            rec["problems"].append(f"'{mark}' in its output: {text[max(0, at - 300):at + 1500]}")
    # -sig: killed by the signal's own default action before the interpreter ran a line (nothing started); its
    # shell, a CI runner, reads 128 + sig all the same
    if reached is not None and code not in (128 + sig, -sig):
        rec["problems"].append(f"exit {code} after {rec['signal']} reached the {reached}, not {128 + sig}: "
                               f"{text[-600:]}")
    if reached is not None and rec["exit_s"] > BOUND_S:
        rec["problems"].append(f"exit {rec['exit_s']} s after the signal (bound {BOUND_S} s)")
    if reached is None and code not in verb.finished:
        rec["problems"].append(f"ended before the signal with exit {code}: {text[-600:]}")
    locks = held_locks(out if not verb.tree else os.path.join(runner.tree_copy(), "results"))
    if locks:
        rec["problems"].append(f"lock(s) still held: {locks}")
    _documents(runner, verb, out, ref, text, rec)
    return rec


def _documents(runner, verb, out, ref, text, rec):
    """The outcome: 'ended' (complete document), 'partial resumed' (a), 'nothing judged' (b); problems else."""
    docs = runner.docs(verb, out)
    outcomes = []
    for name, want in ref.items():
        path = docs.get(name)
        kind = kind_of(verb, name)
        if not path or not os.path.exists(path):
            if _had_started(verb, name, out, text):
                rec["problems"].append(f"{name}: no document, but the log shows judging had started (lost)")
                continue
            outcomes.append("nothing judged")
            if verb.name in ("matrix", "all"):
                continue   # a later tier of a verb that runs several, never started: nothing to resume
            r = runner.resume(verb, name, out, {"_path": os.path.join(out, "x")})
            if r is not None and (r.returncode != 2 or "afresh" not in (r.stdout + r.stderr)):
                rec["problems"].append(f"{name}: no document, and --resume exited {r.returncode} without saying how "
                                       f"to start afresh: {(r.stdout + r.stderr)[-400:]}")
            continue
        try:
            doc, got = read_doc(kind, path)
        except (ResultsError, ValueError, KeyError, OSError) as e:
            rec["problems"].append(f"{name}: an invalid document: {e}")
            continue
        doc["_path"] = path
        changed = [k for k, v in judged(kind, got).items() if k in want and want[k] != v]
        if kind == "explore":   # explored so far: the counts can only be lower than the reference's
            changed = [k for k, v in got.items() if k in want and isinstance(v, int) and v > want[k]]
        if changed:
            rec["problems"].append(f"{name}: {len(changed)} judged result(s) differ from the uninterrupted run's "
                                   f"(e.g. {changed[0]})")
        if not is_partial(kind, doc):
            if got != want:
                rec["problems"].append(f"{name}: a complete document whose classes differ from the reference's")
            outcomes.append("complete")
            continue
        r = runner.resume(verb, name, out, doc)
        if r is None:
            outcomes.append("partial (no --resume)")
            continue
        if r.returncode not in (0, 1):
            rec["problems"].append(f"{name}: --resume exited {r.returncode}: {(r.stdout + r.stderr)[-600:]}")
            continue
        done, got2 = read_doc(kind, path)
        if is_partial(kind, done) or got2 != want:
            diff = [k for k in set(want) | set(got2) if want.get(k) != got2.get(k)]
            rec["problems"].append(f"{name}: --resume left {'a partial document' if is_partial(kind, done) else ''}"
                                   f" {len(diff)} result(s) unlike the uninterrupted run's (e.g. {diff[:1]})")
            continue
        outcomes.append("partial, resumed")
    rec["outcome"] = ", ".join(sorted(set(outcomes))) or "-"


def _had_started(verb, name, out, text):
    """Whether the verb's log (for matrix, the compile tier's own log of that toolchain) announced that judging
    had begun, for the document `name`."""
    if verb.name == "matrix":
        try:
            with open(os.path.join(out, f"{name}.log")) as f:
                text = f.read()
        except OSError:
            return False
    if verb.name == "all":   # the tiers' lines, prefixed with their lane
        return any(verb.started[name] in line for line in text.splitlines() if line.startswith("[cpu]"))
    return verb.started in text


# ---- the load, the trials, the report ---------------------------------------------------------------------------
def hogs(n):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


def phase(at):
    if at is None:
        return "-"
    return ("start-up" if at < 0.15 else "first cases" if at < 0.5 else "many in flight" if at < 0.9
            else "writing / end" if at < 1.0 else "after the end")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--trials", type=int, default=3, help="moments per verb (default 3)")
    p.add_argument("--verbs", default=",".join(VERBS), help="comma-separated (default: every judging verb)")
    p.add_argument("--hogs", type=int, default=2, help="CPU hogs beside the runs (default 2: a loaded 2-core host)")
    p.add_argument("--parallel", type=int, default=1, metavar="P",
                   help="verbs run side by side, each the other's load (default 1)")
    p.add_argument("--moments", choices=("random", "phases"), default="random",
                   help="random: each moment from 0 to 1.1 x the verb's wall time; phases: the trials of a verb in "
                        "turn in start-up, in flight and the teardown window around its end (default random)")
    p.add_argument("--seed", type=int, default=None, help="the random moments' seed (default: from the clock)")
    p.add_argument("--json", help="write every trial here")
    p.add_argument("--md", help="write the summary table here (Markdown)")
    a = p.parse_args(argv)
    verbs = [v for v in a.verbs.split(",") if v]
    for v in verbs:
        if v not in VERBS:
            p.error(f"--verbs: '{v}' is not a judging verb ({', '.join(VERBS)})")
    if a.parallel < 1:
        p.error(f"--parallel {a.parallel}: at least 1")
    seed = a.seed if a.seed is not None else int(time.time())
    work = tempfile.mkdtemp(prefix="ptxcts-signal-stress-")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PTXCTS_", "GTEST_", "CTEST_RESOURCE"))}
    env["PTXCTS_BUILD"] = BUILD
    runner = Runner(work, env)
    trials, skipped, refs = [], {}, {}
    lock = threading.Lock()   # trials, skipped, refs and the JSON file, shared by the verbs run side by side
    errors = []
    load = hogs(a.hogs)
    t_all = time.monotonic()

    def one_verb(v, name):
        # a verb's own random stream (the seed and its place in VERBS): the same moments whichever verb runs first
        rng = random.Random(seed * 1000 + list(VERBS).index(name))
        verb = VERBS[name]
        why = verb.needs() if verb.needs else None
        if why:
            with lock:
                skipped[name] = why
            print(f"stress: {name}: SKIPPED: {why}", flush=True)
            return
        t0 = time.monotonic()
        wall, ref = reference(runner, verb)
        with lock:
            refs[name] = round(wall, 1)
        print(f"stress: {name}: reference run {wall:.1f} s under {a.hogs} hog(s); {a.trials} trials", flush=True)
        walls = [wall]
        for k in range(a.trials):
            rec = trial(runner, verb, moment_scale(walls), ref, k, rng, a.moments, v)
            with lock:
                trials.append(rec)
                if a.json:   # after every trial: a benchmark cut short keeps what it measured
                    _write_json(a.json, seed, trials, skipped, refs)
            if "ran_s" in rec:
                walls.append(rec["ran_s"])
            status = "ok" if not rec["problems"] else "BROKEN: " + "; ".join(rec["problems"])
            print(f"stress: {name} #{k} {rec['signal']} -> {rec['target'] or 'nothing (ended)'} at "
                  f"{rec['delay_s']} s ({phase(rec['at'])}): exit {rec['exit']} in {rec['exit_s']} s, "
                  f"{rec['outcome']}: {status}", flush=True)
            if not verb.tree:
                shutil.rmtree(os.path.join(work, f"{name}-{k}"), ignore_errors=True)
        print(f"stress: {name}: {time.monotonic() - t0:.0f} s", flush=True)

    def worker(queue):
        while True:
            with lock:
                if not queue or errors:
                    return
                v, name = queue.pop(0)
            try:
                one_verb(v, name)
            except BaseException as e:   # noqa: BLE001 -- raised again in the main thread, after the others end
                with lock:
                    errors.append(e)

    try:
        # the longest verbs first (their reference runs in results/bench/), so that side by side they end together
        queue = sorted(enumerate(verbs), key=lambda vn: -REFERENCE_S.get(vn[1], 0))
        threads = [threading.Thread(target=worker, args=(queue,)) for _ in range(max(1, min(a.parallel, len(verbs))))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
    finally:
        for h in load:
            h.kill()
            h.wait()
        shutil.rmtree(work, ignore_errors=True)
    trials.sort(key=lambda t: (verbs.index(t["verb"]), t["trial"]))
    summary = _summary(trials, skipped, refs, seed, a, time.monotonic() - t_all)
    print(summary)
    if a.json:
        _write_json(a.json, seed, trials, skipped, refs)
    if a.md:
        with open(a.md, "w") as f:
            f.write(summary)
    broken = [t for t in trials if t["problems"]]
    if not trials:
        print("stress: no verb could run here: nothing was measured", file=sys.stderr)
        return 1
    return 1 if broken else 0


def _write_json(path, seed, trials, skipped, refs):
    with open(path + ".part", "w") as f:
        json.dump({"seed": seed, "trials": trials, "skipped": skipped, "reference_s": refs}, f, indent=1)
    os.replace(path + ".part", path)


def _summary(trials, skipped, refs, seed, a, secs):
    lines = [f"signal stress: {len(trials)} trials, seed {seed}, {a.hogs} CPU hog(s), {secs:.0f} s\n",
             "| verb | reference s | signals (wrapper/group/tier/ended) | SIGINT/SIGTERM | moments (start-up/first/"
             "many/writing/after) | outcomes | exit s (median/max) | broken |",
             "| --- | ---: | --- | --- | --- | --- | --- | ---: |"]
    by = collections.defaultdict(list)
    for t in trials:
        by[t["verb"]].append(t)
    for verb, ts in by.items():
        tg = collections.Counter(t["target"] or "ended" for t in ts)
        sg = collections.Counter(t["signal"] for t in ts)
        ph = collections.Counter(phase(t["at"]) for t in ts)
        oc = collections.Counter(t["outcome"] for t in ts)
        ex = [t["exit_s"] for t in ts if t["target"]]
        lines.append(f"| {verb} | {refs.get(verb, '-')} | {tg['wrapper']}/{tg['group']}/{tg['tier']}/{tg['ended']} | "
                     f"{sg['SIGINT']}/{sg['SIGTERM']} | {ph['start-up']}/{ph['first cases']}/{ph['many in flight']}/"
                     f"{ph['writing / end']}/{ph['after the end']} | "
                     f"{'; '.join(f'{k}: {n}' for k, n in sorted(oc.items()))} | "
                     f"{(statistics.median(ex) if ex else 0):.2f}/{(max(ex) if ex else 0):.2f} | "
                     f"{sum(1 for t in ts if t['problems'])} |")
    for verb, why in skipped.items():
        lines.append(f"| {verb} | - | SKIPPED: {why} | | | | | |")
    broken = [t for t in trials if t["problems"]]
    lines.append(f"\nbroken trials: {len(broken)} (judged results lost or changed, a wrong exit, a process or lock "
                 f"left, a traceback)")
    for t in broken[:30]:
        lines.append(f"- {t['verb']} #{t['trial']} {t['signal']} -> {t['target']} at {t['delay_s']} s: "
                     + "; ".join(t["problems"])[:1500])
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if os.environ.get("PTXCTS_SIGNAL_STRESS_REQUIRE_FULL") and not os.environ.get("PTXCTS_SIGNAL_STRESS_FULL"):
        print("stress: the full benchmark runs only with PTXCTS_SIGNAL_STRESS_FULL=1 (about an hour): skipped")
        sys.exit(77)
    sys.exit(main())
