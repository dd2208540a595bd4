"""./ptxcts devcheck [--wheels DIR] [--out DIR] [--worktree] [--keep] [--part all|test]
./ptxcts devcheck --join DIR DIR [--out DIR]

On a GPU runner: a fresh copy of the tree (copy.fresh_copy), `./ptxcts all` then `./ptxcts test` in it, and one
verdict line: GREEN when all exited 0 with every run gated PASS (the run tier among them) and every test passed or
skipped; RED otherwise, with the reasons. The steps' output streams through, prefixed; everything lands in OUT
(default results/<stamp>-devcheck/ of this tree): devcheck.json, devcheck.txt (the table and the verdict line, for
a closing note), all.log, test.log, ctest.xml. Exit 0 green, 1 red, 2 usage (no GPU here, a bad option), 130/143
interrupted (the steps write what they judged; the verdict so far is kept, marked interrupted).

A runner whose jobs end sooner than the whole check takes runs it in two parts, each in a fresh copy of the same
tree: --part all, then --part test (each judged alone, its verdict marked as a part), and joins the two records
anywhere, no GPU needed: --join DIR DIR gives the whole verdict when both name the same tree (its git tree id) and
the same device and driver; else exit 2 saying what differs (3: a folder without a device check's record)."""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from framework import boundary, given, paths

from . import copy as copymod
from . import verdict as vmod

ROOT = paths.root()
PARTS = ("all", "test")


def parse(argv):
    p = boundary.ArgumentParser(prog="ptxcts devcheck", description=__doc__.split("\n\n", 1)[1],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--wheels", metavar="DIR", help="a folder of wheels for an offline setup (./ptxcts all --wheels; "
                   "default $PTXCTS_WHEELS)")
    p.add_argument("--out", metavar="DIR", help="where the verdict and the logs go (default results/<stamp>-devcheck)")
    p.add_argument("--worktree", action="store_true",
                   help="check the work tree as it is (tracked and untracked files), not a clone of HEAD")
    p.add_argument("--keep", action="store_true", help="keep the fresh copy (its results/ hold every run)")
    p.add_argument("--part", choices=PARTS, help="run one step only (join the two parts' folders with --join)")
    p.add_argument("--join", nargs=2, metavar="DIR", help="the whole verdict of two parts' folders (no GPU needed)")
    a = p.parse_args(argv)
    if a.join and (a.part or a.worktree or a.keep or a.wheels):
        p.error("--join reads two parts' records: it takes --out only")
    try:
        if a.wheels is not None:
            given.path("--wheels ", a.wheels, given.FOLDER, "a folder of wheels")
        else:
            a.wheels = given.env("PTXCTS_WHEELS", given.FOLDER, "a folder of wheels")
        if a.out is not None:
            given.path("--out ", a.out, given.NEW_FOLDER, "where the device check writes")
    except given.GivenPathError as e:
        p.error(str(e))
    if a.wheels is not None:
        a.wheels = os.path.abspath(a.wheels)
    if a.out is not None and os.path.exists(a.out) and (not os.path.isdir(a.out) or os.listdir(a.out)):
        p.error(f"--out {a.out!r}: exists and is not an empty folder (a device check writes a folder of its own)")
    return a


def gpus():
    """[(index, name, driver)] of this host's GPUs (nvidia-smi; PTXCTS_NVIDIA_SMI as scripts/gpus.sh honours it)."""
    smi = given.env("PTXCTS_NVIDIA_SMI", given.PROGRAM, "the nvidia-smi that lists this host's GPUs",
                    default="nvidia-smi")   # set, it must be usable: a missing one is never "no GPU here"
    if not shutil.which(smi):
        return []
    r = subprocess.run([smi, "--query-gpu=index,name,driver_version", "--format=csv,noheader"], capture_output=True,
                       text=True)
    rows = [[x.strip() for x in line.split(",")] for line in r.stdout.splitlines() if line.strip()]
    return [tuple(row[:3]) for row in rows if len(row) >= 3 and row[0].isdigit()] if r.returncode == 0 else []


def step_env():
    """The environment of the copy's steps: this tree's PTXCTS_ROOT and PTXCTS_BUILD (which ./ptxcts sets for its
    verbs) removed, so that the copy builds into its own build/ from its own files, as a fresh clone would, and never
    reconfigures the checked tree's build folder for a source that is gone when the check ends."""
    env = dict(os.environ)
    for name in ("PTXCTS_ROOT", "PTXCTS_BUILD"):
        env.pop(name, None)
    return env


def stream(argv, cwd, log_path, prefix):
    """Run argv in cwd, its lines to stdout (prefixed) and to log_path; -> (exit, seconds)."""
    t0 = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as log:
        p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             errors="replace", bufsize=1, env=step_env())
        try:
            for line in p.stdout:
                log.write(line)
                sys.stdout.write(f"{prefix} {line}")
                sys.stdout.flush()
        except KeyboardInterrupt:
            # the signal reached the step too (one process group): it writes what it judged; wait for that
            for line in p.stdout:
                log.write(line)
            p.wait()
            raise
        return p.wait(), round(time.monotonic() - t0, 1)


def table(result):
    """The text of devcheck.txt: what ran where, the steps' times, each run's classes and gate, the tests."""
    d = result["device"]
    lines = [f"# ./ptxcts devcheck {result['started']}: {d['gpus']} x {d['name']}, driver {d['driver']}, "
             f"{d['cores']} cores; {result['source']}",
             "; ".join(f"./ptxcts {part}: exit {result[part]['exit']} in {result[part]['seconds']} s"
                       + ("" if part in result["parts"] else " (not this part)") for part in PARTS), "",
             "step              seconds  exit   from     to"]
    for s in sorted(result["all"]["steps"], key=lambda s: (s.get("start") is None, s.get("start") or 0)):
        span = (f"  {s['start']:>5.1f}  {s['start'] + s['seconds']:>5.1f}" if s.get("start") is not None else "")
        lines.append(f"{s['name']:<17} {s['seconds']:>7.1f}  {s['exit']:>4}{span}")
    lines += ["", f"{'run':<44} {'toolchain':<10} {'gate':<5} classes"]
    for r in result["runs"]:
        g = r["gate"] or {}
        verdict = {0: "PASS", 1: "FAIL"}.get(g.get("exit"), "-")
        classes = ", ".join(f"{k} {v:,}" for k, v in r["classes"].items())
        lines.append(f"{os.path.basename(r['run']):<44} {str(r['toolchain']):<10} {verdict:<5} {classes}")
        if g.get("counts"):
            lines.append(f"{'':<44} {'':<10} {'':<5} gate: " + ", ".join(f"{k} {v:,}" for k, v in g["counts"].items()))
    t = result["test"]["tests"]
    if t:
        lines += ["", f"tests: {t['passed']} passed, {len(t['failed'])} failed, {len(t['skipped'])} skipped of "
                      f"{t['total']}" + (f"; skipped: {', '.join(t['skipped'])}" if t["skipped"] else "")]
        if t["failed"]:
            lines.append("failed: " + ", ".join(t["failed"]))
    lines += ["", result["verdict_line"]]
    return "\n".join(lines) + "\n"


def verdict_line(result):
    d, t = result["device"], result["test"]["tests"]
    gated = [r for r in result["runs"] if r["gate"]]
    passed = sum(1 for r in gated if r["gate"]["exit"] == 0)
    word = "GREEN" if result["green"] else ("INTERRUPTED" if result.get("interrupted") else "RED")
    if tuple(result["parts"]) != PARTS:   # one part alone: never the whole verdict
        word = f"{word} (part {result['parts'][0]} only: --join it with the other part's folder)"
    tests = f"test {t['passed']}/{t['total'] - len(t['skipped'])} passed ({len(t['skipped'])} skipped)" if t else \
        "test: no result"
    said = {"all": f"all {result['all']['seconds']} s exit {result['all']['exit']}, {passed}/{len(gated)} gates PASS",
            "test": f"{tests} in {result['test']['seconds']} s"}
    line = (f"devcheck: {word}  {d['gpus']} x {d['name']}, driver {d['driver']}, {d['cores']} cores; "
            + "; ".join(said[part] for part in PARTS if part in result["parts"]))
    return line + ("" if result["green"] else "  -- " + "; ".join(result["reasons"]))


def main(argv):
    return boundary.run("devcheck", _main, argv)


def _main(argv):
    a = parse(argv)
    if a.join:
        return join(a.join, a.out)
    found = gpus()
    if not found:
        sys.stderr.write("devcheck: no GPU here (nvidia-smi lists none): the device check runs ./ptxcts all and "
                         "./ptxcts test on a GPU runner, and judges them there; run it on one\n")
        return 2
    started = datetime.datetime.now(datetime.timezone.utc)
    stamp = started.strftime("%Y-%m-%dT%H-%M-%SZ")
    out = os.path.abspath(a.out or os.path.join(ROOT, "results", f"{stamp}-devcheck"))
    os.makedirs(out, exist_ok=True)
    tree = tempfile.mkdtemp(prefix="ptxcts-devcheck-")
    names = sorted({n for _, n, _ in found})
    drivers = sorted({d for _, _, d in found})
    result = {"schema": "ptxcts-devcheck", "version": 1, "started": started.isoformat(timespec="seconds"),
              "device": {"gpus": len(found), "name": ", ".join(names), "driver": ", ".join(drivers),
                         "cores": len(os.sched_getaffinity(0))},
              "all": {"exit": None, "seconds": None, "steps": []}, "test": {"exit": None, "seconds": None,
                                                                           "tests": None},
              "runs": [], "green": False, "reasons": [], "parts": [a.part] if a.part else list(PARTS)}
    code = None
    try:
        os.rmdir(tree)
        result["source"] = copymod.fresh_copy(ROOT, tree, a.worktree)
        result["tree_id"] = copymod.tree_id(tree)
        print(f"devcheck: {result['source']} -> {tree}", flush=True)
        env_args = ["--wheels", a.wheels] if a.wheels else []
        if "all" in result["parts"]:
            result["all"]["exit"], result["all"]["seconds"] = stream(
                [os.path.join(tree, "ptxcts"), "all", *env_args], tree, os.path.join(out, "all.log"), "[all]")
        junit = os.path.join(out, "ctest.xml")
        if "test" in result["parts"]:
            result["test"]["exit"], result["test"]["seconds"] = stream(
                [os.path.join(tree, "ptxcts"), "test", "--output-junit", junit], tree, os.path.join(out, "test.log"),
                "[test]")
    except KeyboardInterrupt:
        result["interrupted"] = boundary.signal_name()
        code = boundary.interrupt_exit_code()
    finally:
        steps, gates = vmod.all_table(tree)
        result["all"]["steps"] = steps
        result["runs"] = [vmod.run_summary(tree, g["run"], g["exit"]) for g in gates]
        result["test"]["tests"] = vmod.ctest_junit(os.path.join(out, "ctest.xml"))
        result["tree"] = tree if a.keep or result.get("interrupted") else None
        text = write(result, out)
        if result["tree"] is None:
            shutil.rmtree(tree, ignore_errors=True)
    print()
    print(text, end="")
    print(f"devcheck: the verdict and the logs are in {out}")
    return code if code is not None else (0 if result["green"] else 1)


def write(result, out):
    """Judge result (its parts), write out/devcheck.json and devcheck.txt; -> the text."""
    result["green"], result["reasons"] = vmod.judge(result["all"]["exit"], result["all"]["steps"],
                                                    [{"run": r["run"], "exit": r["gate"]["exit"]}
                                                     for r in result["runs"] if r["gate"]],
                                                    result["runs"], result["test"]["tests"], result["test"]["exit"],
                                                    parts=result["parts"])
    if result.get("interrupted"):
        result["green"] = False
        result["reasons"].insert(0, f"interrupted by {result['interrupted']}")
    result["verdict_line"] = verdict_line(result)
    text = table(result)
    with boundary.signals_deferred():
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "devcheck.json"), "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
        with open(os.path.join(out, "devcheck.txt"), "w", encoding="utf-8") as f:
            f.write(text)
    return text


def _part_record(folder):
    """The devcheck.json of one part's folder; exit 3 (boundary.VerbError) naming what is wrong."""
    path = os.path.join(folder, "devcheck.json")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise boundary.VerbError(f"--join {folder}: no devcheck.json there (not a device check's folder)")
    except (OSError, ValueError) as e:
        raise boundary.VerbError(f"--join {path}: not a device check's record: {e}")
    if not isinstance(doc, dict) or doc.get("schema") != "ptxcts-devcheck":
        raise boundary.VerbError(f"--join {path}: not a device check's record (schema ptxcts-devcheck)")
    for key in ("parts", "tree_id", "device", "all", "test", "runs"):
        if key not in doc:
            raise boundary.VerbError(f"--join {path}: no {key!r} (a record of a device check older than parts)")
    return doc


DEVICE_KEYS = ("gpus", "name", "driver")   # what --join asks of the two parts' devices to be one


def join(folders, out):
    """The whole verdict of an all part and a test part of one tree on one device and driver."""
    docs = [_part_record(f) for f in folders]
    parts = [tuple(d["parts"]) for d in docs]
    if sorted(parts) != [("all",), ("test",)]:
        sys.stderr.write(f"devcheck --join: {folders[0]} holds part(s) {'+'.join(parts[0])}, {folders[1]} "
                         f"{'+'.join(parts[1])}: give one all part and one test part\n")
        return 2
    # one tree, and one device and driver: the GPUs' count, name and driver (the host's cores may differ: two jobs
    # of one runner kind can land on hosts of another size; the record keeps the all part's)
    def gpu(d):
        return {k: d["device"].get(k) for k in DEVICE_KEYS}
    for what, of in (("git tree", lambda d: d["tree_id"]), ("device", gpu)):
        if of(docs[0]) != of(docs[1]):
            sys.stderr.write(f"devcheck --join: the parts differ in their {what}: {of(docs[0])} ({folders[0]}) "
                             f"and {of(docs[1])} ({folders[1]}); both parts must check one tree on one device\n")
            return 2
    whole, test = (docs[0], docs[1]) if parts[0] == ("all",) else (docs[1], docs[0])
    whole = dict(whole, parts=list(PARTS), test=test["test"], joined=[os.path.abspath(f) for f in folders],
                 started=min(whole["started"], test["started"]))
    if test.get("interrupted"):
        whole["interrupted"] = test["interrupted"]
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = os.path.abspath(out or os.path.join(ROOT, "results", f"{stamp}-devcheck"))
    text = write(whole, out)
    print(text, end="")
    print(f"devcheck: the joined verdict is in {out}")
    return 0 if whole["green"] else 1
