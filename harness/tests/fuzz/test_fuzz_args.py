#!/usr/bin/env python3
"""Fuzz the argument parsers (CTest cli.fuzz.python_args, cli.fuzz.cxx_args): every verb is called with options of
its own, each given a hostile value by Hypothesis (empty, blank, past every bound, NaN, a path that cannot be used,
text that is not what the option reads), in any order and number. Property (docs/CLI.md): the verb exits 0, 2 or 3
(ptxcts-litmus also 77: no GPU), prints no traceback, no internal error and no C++ terminate, and an exit 2 or 3
names one of the arguments it was given.

A fence keeps every call short and harmless: the last arguments point the verb at a small manifest and at an
output folder that already holds a run, so that a call whose options all pass is refused before any work
(`--out ... holds a run`), or only lists (`ptxcts-run --list`). Options that would reach the network or write
into the checkout (toolchains install/probe) are not fuzzed.

    python3 harness/tests/fuzz/test_fuzz_args.py [-v] [Python|Cxx]     (PTXCTS_BUILD names the build folder)
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile  # noqa: E402
from hostile import CRASH_MARKS, ROOT, budget  # noqa: E402

hostile.require_hypothesis()
from hypothesis import given, strategies as st  # noqa: E402

from framework import boundary  # noqa: E402

BUILD = os.path.abspath(os.environ.get("PTXCTS_BUILD") or os.path.join(ROOT, "build"))
FENCE = tempfile.mkdtemp(prefix="ptxcts-fuzz-fence-")


def _fence():
    """FENCE/run: a folder holding a (tiny, valid) compile run; FENCE/gen/manifest: a manifest of 6 cases."""
    run = os.path.join(FENCE, "run")
    os.makedirs(run)
    doc = {"schema": "ptxcts-results", "version": 2, "run_id": "fence", "tier": "compile",
           "started": "2026-01-01T00:00:00+00:00", "finished": "2026-01-01T00:00:01+00:00", "seed": None,
           "shard": {"index": 0, "count": 1}, "host": {}, "toolchain": {"name": "13.0"}, "device": None,
           "cases": []}
    with open(os.path.join(run, "results.json"), "w") as f:
        json.dump(doc, f)
    src = os.path.join(ROOT, "generated", "manifest")
    man = os.path.join(FENCE, "gen", "manifest")
    os.makedirs(os.path.join(man, "cases"))
    with open(os.path.join(src, "cases", "cp.async.tsv"), encoding="utf-8") as f:
        rows = f.read().split("\n")[:7]
    with open(os.path.join(man, "cases", "cp.async.tsv"), "w") as f:
        f.write("\n".join(rows) + "\n")
    used = {r.split("\t")[1] for r in rows[1:]}
    with open(os.path.join(src, "forms.jsonl"), encoding="utf-8") as f, \
            open(os.path.join(man, "forms.jsonl"), "w") as out:
        out.write("".join(line for line in f if json.loads(line)["form"] in used))
    shutil.copy(os.path.join(src, "targets.json"), man)
    with open(os.path.join(FENCE, "afile"), "w") as f:
        f.write("not a folder\n")
    return run, man


RUN, MAN = _fence()
PATHS = st.sampled_from([RUN, os.path.join(RUN, "results.json"), os.path.join(FENCE, "afile"),
                         os.path.join(FENCE, "afile", "sub"), os.path.join(FENCE, "missing"), "/proc/1/mem",
                         "/dev/null", "/", ""])

# verb -> (how to call it, its options: name -> values; flags; the fence appended last)
PYTHON_VERBS = {
    "compile": ("compile.cli", ["--toolchain", "--verdicts", "--family", "--target", "--ptx", "--case", "--limit",
                                "-j", "--jobs", "--module-size", "--expectations", "--keep-modules"],
                ["--valid-only", "--no-generator", "--quiet"],
                ["--manifest", MAN, "--no-generator", "--quiet", "--out", RUN]),
    "cases": ("ptxcts_gen.cli", ["--family", "--target", "--ptx", "--rule", "--form"],
              ["--valid", "--invalid", "--count", "--ids", "--rules"], ["--root", os.path.dirname(MAN)]),
    "modules": ("ptxcts_gen.cli", ["--target", "--ptx", "--family", "--form", "--max-entries"], ["--valid-only"],
                ["--out", os.path.join(FENCE, "afile")]),
    "report": ("results.__main__", ["--manifest", "--baselines", "--explore", "--selftest", "--title"],
               ["--prefer-later", "--gzip"], ["--out", RUN]),
    "gate": ("results.__main__", ["--baseline", "--waivers", "--today", "--json", "--list"],
             ["--update", "--partial", "--prefer-later"], []),
    "diff": ("results.__main__", ["--family", "--examples", "--json", "--markdown", "--manifest"],
             ["--prefer-later"], []),
    "merge": ("results.__main__", ["--run-id"], ["--prefer-later"], ["--out", RUN]),
    "validate": ("results.__main__", [], [], []),
    "bundle": ("results.__main__", ["--max-bytes"], ["--check"], ["--out", os.path.join(FENCE, "afile", "x")]),
    "toolchains describe": ("toolchains.cli", [], ["--json"], []),
    "toolchains resolve": ("toolchains.cli", [], ["--json"], []),
    "selftest": ("selftest.selftest", ["--kind", "--family", "--seed", "--clean", "--jobs", "--cases-per-form",
                                       "--budget"], [], ["--out", RUN]),
}


def _main_of(module):
    mod = __import__(module, fromlist=["main"])
    return mod.main


@st.composite
def hostile_argv(draw, options, flags, positional):
    argv = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["option", "option", "option", "flag", "stray"]))
        if kind == "option" and options:
            opt = draw(st.sampled_from(options))
            value = draw(PATHS) if draw(st.integers(0, 4)) == 0 else draw(hostile.HOSTILE_TEXT)
            argv += [opt, value] if draw(st.integers(0, 9)) else [opt]   # sometimes the value is missing
        elif kind == "flag" and flags:
            argv.append(draw(st.sampled_from(flags)))
        else:
            argv.append(draw(hostile.HOSTILE_TEXT | st.sampled_from(["--" + "x", "-", "--help=1", "-j"])))
    pos = [draw(PATHS | hostile.HOSTILE_TEXT) for _ in range(positional)]
    return pos + argv


def _names_an_argument(text, argv):
    """Whether an error message names one of the arguments (an empty one by its quotes or the word 'empty')."""
    tokens = [t for t in argv if t.strip()]
    blank = any(not t.strip() for t in argv)
    return any(t in text or repr(t)[1:-1] in text for t in tokens) or "usage:" in text or \
        (blank and ("''" in text or "empty" in text or any(f"'{t}'" in text for t in argv if not t.strip())))


class Python(unittest.TestCase):
    """The Python verbs, called in this process inside the error boundary, as ./ptxcts calls them."""

    def _check(self, verb, argv):
        module, _, _, fence = PYTHON_VERBS[verb]
        main = _main_of(module)
        # compile and selftest take their options only; the others their subcommand first
        head = {"compile.cli": [], "selftest.selftest": [], "toolchains.cli": verb.split()[1:]}.get(module, [verb])
        full = head + argv + fence
        out, err = io.StringIO(), io.StringIO()
        cwd = os.getcwd()
        os.chdir(FENCE)   # a relative path the fuzz draws lands in the fence, never in the checkout
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = boundary.run(verb, main, full)
        finally:
            os.chdir(cwd)
        text = out.getvalue() + err.getvalue()
        # gate and diff exit 1 on a regression or a difference: a verdict on the input, not an error
        codes = (0, 1, 2, 3) if verb in ("gate", "diff") else (0, 2, 3)
        self.assertIn(code, codes, f"{verb} {full!r}: exit {code}: {text[-600:]}")
        for mark in CRASH_MARKS:
            self.assertNotIn(mark, text, f"{verb} {full!r}: {text[-600:]}")
        if code in (2, 3):
            self.assertTrue(_names_an_argument(err.getvalue(), full),
                            f"{verb} {full!r}: exit {code} names none of its arguments: {err.getvalue()[-400:]}")


def _python_test(verb, examples):
    _, options, flags, _ = PYTHON_VERBS[verb]
    positional = {"report": 1, "gate": 1, "diff": 2, "merge": 1, "validate": 1, "bundle": 1,
                  "toolchains describe": 1, "toolchains resolve": 1}.get(verb, 0)

    @budget(examples)
    @given(hostile_argv(options, flags, positional))
    def test(self, argv):
        self._check(verb, argv)
    test.__name__ = "test_" + verb.replace(" ", "_")
    test.__doc__ = f"./ptxcts {verb} with hostile options and values"
    return test


for _verb, _n in (("compile", 40), ("cases", 30), ("modules", 25), ("report", 25), ("gate", 25), ("diff", 25),
                  ("merge", 25), ("validate", 25), ("bundle", 20), ("toolchains describe", 20),
                  ("toolchains resolve", 20), ("selftest", 25)):
    setattr(Python, "test_" + _verb.replace(" ", "_"), _python_test(_verb, _n))


CXX = {
    "ptxcts-run": (os.path.join(BUILD, "harness", "run", "ptxcts-run"),
                   ["--case", "--family", "--filter", "--load-path", "--target", "--lower-targets", "--toolchain",
                    "--seed", "--shard", "--jobs", "--timeout", "--deadline", "--level", "--smem-guard", "--run-id"],
                   ["--quiet", "--no-rerun-alone"], ["--list"], (0, 2, 3)),
    "ptxcts-explore": (os.path.join(BUILD, "harness", "run", "ptxcts-explore"),
                       ["--time", "--cases", "--seed", "--family", "--shrink-time", "--jobs", "--timeout", "--toolchain",
                        "--cases-file", "--device"], ["--quiet"], ["--device", "model", "--out", RUN], (0, 2, 3)),
    "ptxcts-litmus": (os.path.join(BUILD, "harness", "litmus", "ptxcts-litmus"),
                      ["--case", "--seed", "--iters", "--cold-mib", "--json"], ["--fault"], [], (0, 2, 3, 77)),
}


class Cxx(unittest.TestCase):
    """The C++ commands, each a process of its own."""

    def _check(self, name, argv):
        path, _, _, fence, codes = CXX[name]
        if not os.path.exists(path):
            self.skipTest(f"{path} is not built")
        full = [a.replace("\x00", "") for a in argv] + fence   # a process argument cannot hold a NUL byte
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GTEST_", "CTEST_RESOURCE"))}
        env.update(PTXCTS_ROOT=ROOT)
        if name == "ptxcts-litmus":
            # the fence of litmus: no device visible, so a call whose options all pass stops at "no GPU" (77)
            # instead of running the stress (a GPU runner: minutes, and exit 1 for the planted fault it misses)
            env["CUDA_VISIBLE_DEVICES"] = ""
        r = subprocess.run([path] + full, capture_output=True, text=True, errors="replace", env=env, cwd=FENCE,
                           timeout=120, stdin=subprocess.DEVNULL)
        text = r.stdout + r.stderr
        self.assertIn(r.returncode, codes, f"{name} {full!r}: exit {r.returncode}: {text[-600:]}")
        for mark in CRASH_MARKS:
            self.assertNotIn(mark, text, f"{name} {full!r}: {text[-600:]}")
        if r.returncode in (2, 3):
            self.assertTrue(_names_an_argument(r.stderr, full),
                            f"{name} {full!r}: exit {r.returncode} names none of its arguments: {r.stderr[-400:]}")


def _cxx_test(name, examples):
    _, options, flags, _, _ = CXX[name]

    @budget(examples)
    @given(hostile_argv(options, flags, 0))
    def test(self, argv):
        self._check(name, argv)
    test.__doc__ = f"{name} with hostile options and values"
    return test


for _name, _n in (("ptxcts-run", 30), ("ptxcts-explore", 20), ("ptxcts-litmus", 30)):
    setattr(Cxx, "test_" + _name.replace("-", "_"), _cxx_test(_name, _n))


if __name__ == "__main__":
    try:
        unittest.main()
    finally:
        shutil.rmtree(FENCE, ignore_errors=True)
