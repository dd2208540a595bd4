"""The GPU tier's testing environments and their tuning per shape (`./ptxcts litmus gpu --tune S`, then
`--env-table FILE`).

MC Mutants (Levine et al., ASPLOS 2023) found that one litmus instance at a time kills few mutants on NVIDIA
devices, many parallel instances with stress kill them all, and that the stress parameters that kill best differ
per device and per test (GPUHarbor tunes them per device). An environment here is the runner's knobs
(gpu/litmus_runner.cu, `Env`): how many hot stress lines (`lines`), how many stress iterations per stress thread
(`siters`), its pattern (`pattern`: load/store, store, load, warm: the instance's own plain global locations
loaded into the SM's L1 while the test runs, or near: stores into the second half of the lines that hold the
instance's own global locations, so that a test access to one queues behind them), how many lanes of a CTA stress (`sthreads`), blocks per SM (`bps`,
through dynamic shared memory), where the test threads sit (`shuffle`: random lanes, one warp each, or lanes
0.. of one warp), a random start delay of each test thread (`pre`, up to that many SM clock cycles: the threads
of an instance meet at every offset), a random delay between two instructions of a test thread (`gap`, up to that
many cycles: a window between two of one thread's accesses that another thread's accesses can fall into), the
words between two global locations (`stride`: 16 puts two in one 128-byte line) and whether the test threads of
an instance meet before their start delay (`meet`: a spin on a per-instance count, MC Mutants' testing barrier,
so that the start delay is measured from one moment, not from when each thread's warp or CTA came to it), and
whether each CTA loads the instance's global locations into its L1 before the test starts (`prewarm`).

The sweep runs every test and every graded mutant of a shape in each environment of GRID (a mutant stops at its
first killing launch) and ranks the environments of each shape by the rate of weak outcomes observed: the killing
outcomes of the shape's mutants (the weak behaviours the mutations expose). First by rare kills (rare_kills: each
killed mutant's one unit shared among the environments that killed it, so that the environment that alone killed a
hard mutant outranks many that killed the same easy ones), then as the share of the mutants killed, then kills per
second; ties by the share of the tests' instances outside their most frequent outcome. A campaign's table counts
the kills of its focus rounds too (where the hard mutants die); `./ptxcts litmus table RUN_DIR` ranks a past run's
table again from every kill it recorded (retable). The table (JSON, with the
device and driver it was measured on) gives each shape its ranking; a run with `--env-table` follows it."""
import glob
import gzip
import json
import os

from framework.documents import baseline

from . import suite
from .syntax import parse_file

# knob -> (default, the runner's range): the defaults are the environment of the first H100 runs (2026-12-06)
KNOBS = {"lines": (64, 0, 4096), "siters": (2, 0, 100000), "pattern": (0, 0, 4), "sthreads": (256, 0, 256),
         "bps": (0, 0, 32), "shuffle": (0, 0, 2), "pre": (0, 0, 100000), "gap": (0, 0, 100000),
         "stride": (64, 16, 256), "meet": (0, 0, 1),
         "prewarm": (0, 0, 1)}

# The sweep's environments: each moves a few knobs away from the first one (`base`), towards a known cause of
# weak behaviour: stale L1 lines (warm), the test threads' relative timing (jitter), store contention, load
# traffic, few stressing lanes with the test threads in separate warps, one block per SM (fewer co-resident instances, others' SMs busy), two locations per line,
# no stress at all (the most instances per second), and delays between a thread's instructions (gaps: a reversed pair
# of accesses, back to back, leaves another thread no window to observe the order; a membar between two stores
# leaves one of about a thousand cycles that only a reader slowed as much can straddle).
# The meeting environments (meet) start an instance's test threads together, then apart by at most `pre` cycles: the
# windows a reversed pair or a missing fence opens are a few hundred cycles, the spread of unsynchronised starts
# (a warp running its stress lanes first, a CTA placed later) many thousand. The near environments contend the lines
# of the test's own locations, so that a store or a copy's write to one is slow to land while the thread goes on.
# The prewarm environments put the instance's global locations, copy destinations included, in each CTA's L1 before
# the test starts: where a mutation's only machine-code effect is a missing L1 invalidation (CCTL.IVALL: a
# wait_group.read for a full wait, an acquire made relaxed), only a stale line there tells the two apart.
# Light stress throughout: on the H100 (2026-12-06) 32 stress iterations per stress thread ran 24 times fewer
# instances per second than 2 and killed less.
GRID = {
    "base": {},
    "warm": {"pattern": 3, "siters": 4},
    "warm_warps": {"pattern": 3, "siters": 4, "shuffle": 1, "pre": 512},
    "jitter": {"pre": 256},
    "store_hot": {"pattern": 1, "siters": 4, "lines": 8},
    "load_wide": {"pattern": 2, "siters": 4, "lines": 256},
    "sparse_warps": {"sthreads": 64, "siters": 8, "shuffle": 1, "pre": 2048},
    "one_block": {"bps": 1, "shuffle": 2, "siters": 2},
    "false_share": {"stride": 16, "pattern": 3, "siters": 2},
    "quiet": {"lines": 0},
    "gaps": {"gap": 1024, "pre": 1024},
    "gaps_wide": {"gap": 8192, "pre": 8192},
    "gaps_warm": {"gap": 2048, "pre": 1024, "pattern": 3, "siters": 4},
    "meet": {"meet": 1, "pre": 128},
    "meet_gaps": {"meet": 1, "pre": 512, "gap": 256},
    "near": {"pattern": 4, "siters": 8},
    "meet_near": {"meet": 1, "pre": 256, "pattern": 4, "siters": 8, "shuffle": 1},
    "prewarm": {"prewarm": 1},
    "prewarm_meet": {"prewarm": 1, "meet": 1, "pre": 128},
}

SCHEMA = "ptxcts-litmus-envs"
ENVS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "envs")   # the committed tables


class TableError(Exception):
    """A malformed environment table (exit 3), naming the file and what is wrong."""


def env(tag_or_knobs):
    """The full environment {knob: value} of a GRID tag or of a partial {knob: value}."""
    knobs = GRID[tag_or_knobs] if isinstance(tag_or_knobs, str) else tag_or_knobs
    return {k: knobs.get(k, d) for k, (d, _, _) in KNOBS.items()}


def env_text(e, **extra):
    """The runner's `KEY=VALUE ...` of an environment (and of per-run extras: ms, iters, stop)."""
    return " ".join(f"{k}={v}" for k, v in list(e.items()) + list(extra.items()))


def shapes():
    """{test name: shape}: the shape is the generated file (cases/<shape>.litmus) that holds the test."""
    out = {}
    for f in suite.suite_files():
        shape = os.path.basename(f)[:-len(".litmus")]
        for t in parse_file(f):
            out[t.name] = shape
    return out


def shape_of(name, by_test):
    """A test's or a mutant's (`ORIGINAL+operator.k`) shape; `?` for a name the suite does not hold."""
    return by_test.get(name.split("+")[0], "?")


def score(runs, by_test, is_mutant):
    """{shape: {tag: {"mutants", "killed", "seconds", "instances", "off_mode"}}} from the sweep's runs
    [(test, tag, record)] (records with a histogram; `verdict` killed for a killed mutant)."""
    out = {}
    for name, tag, rec in runs:
        if "hist" not in rec:
            continue
        s = out.setdefault(shape_of(name, by_test), {}).setdefault(
            tag, {"mutants": 0, "killed": 0, "seconds": 0.0, "instances": 0, "off_mode": 0})
        if is_mutant(name):
            s["mutants"] += 1
            s["killed"] += rec.get("verdict") == "killed"
            s["seconds"] += rec.get("seconds", 0.0)
        else:
            hist = rec["hist"]
            s["instances"] += int(rec.get("instances", 0))
            s["off_mode"] += sum(hist.values()) - max(hist.values(), default=0)
    return out


def rare_kills(kills, by_test):
    """{shape: {tag: weight}} of killing runs [(mutant, tag)] of any phase: each killed mutant's one unit shared
    equally among the environments that killed it (1 for the only one, 1/19 each for the 19 of a mutant every
    environment kills)."""
    envs = {}
    for name, tag in kills:
        envs.setdefault(name, set()).add(tag)
    out = {}
    for name, tags in sorted(envs.items()):
        row = out.setdefault(shape_of(name, by_test), {})
        for t in sorted(tags):
            row[t] = row.get(t, 0.0) + 1.0 / len(tags)
    return out


def rank(scores):
    """The tags of one shape's scores, best first: rare kills (`rare`, rare_kills; 0 where none), the share of the
    shape's mutants it ran that it killed, kills per second, then the tests' share of instances outside their most
    frequent outcome; then the environments of the grid it has no score for (the sweep's time ran out before
    them), in grid order."""
    def key(tag):
        s = scores[tag]
        return (-round(s.get("rare", 0.0), 9), -s["killed"] / max(s["mutants"], 1), -s["killed"] / max(s["seconds"], 1e-3),
                -s["off_mode"] / max(s["instances"], 1), list(GRID).index(tag) if tag in GRID else 99)
    return sorted(scores, key=key) + [t for t in GRID if t not in scores]


def with_rare(scores, kills, by_test):
    """The scores (score()) with each environment's rare kills (rare_kills) of the killing runs [(mutant, tag)]
    as `rare`; an environment that killed in a focus round but has no sweep score gets one of zeros beside it."""
    out = {sh: {t: {k: v for k, v in row.items() if k != "rare"} for t, row in sc.items()}
           for sh, sc in scores.items()}
    for sh, row in rare_kills(kills, by_test).items():
        for t, w in row.items():
            out.setdefault(sh, {}).setdefault(
                t, {"mutants": 0, "killed": 0, "seconds": 0.0, "instances": 0, "off_mode": 0})["rare"] = round(w, 6)
    return out


def _shapes(scores):
    return {sh: {"ranking": rank(sc), "scores": {t: sc[t] for t in rank(sc) if t in sc}}
            for sh, sc in sorted(scores.items())}


def make_table(scores, device, driver, measured, runner_args):
    return {"schema": SCHEMA, "version": 1, "device": device, "driver": driver, "measured": measured,
            "runner": runner_args, "grid": {t: env(t) for t in GRID}, "shapes": _shapes(scores)}


def retable(table, kills, by_test, source):
    """A table (read_table's second value) ranked again with the rare kills of every killing run [(mutant, tag)]
    of the campaign that wrote it (`ranked_from`: where the kills were read, how many); its grid, device and
    sweep scores kept. A kill in an environment the table's grid lacks is a TableError."""
    for name, tag in kills:
        if tag not in table["grid"]:
            raise TableError(f"{source}: {name} was killed in '{tag}', an environment the table's grid lacks")
    scores = {sh: row.get("scores") or {} for sh, row in table["shapes"].items()}
    out = dict(table, shapes=_shapes(with_rare(scores, kills, by_test)))
    out["ranked_from"] = {"source": source, "killing_runs": len(kills), "mutants_killed": len({n for n, _ in kills})}
    return out


def write_table(path, table):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")


def find_table(device_name, driver):
    """The committed table (ENVS_DIR) measured on this device name and driver branch (the driver's major
    version), or None."""
    branch = baseline.driver_branch(driver)
    for path in sorted(glob.glob(os.path.join(ENVS_DIR, "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                t = json.load(f)
        except (OSError, ValueError):
            continue
        if (t.get("device") or {}).get("name") == device_name and baseline.driver_branch(t.get("driver")) == branch:
            return path
    return None


def read_table(path):
    """{shape: [full environment, best first]} and the table (a run folder keeps it gzip-compressed: PATH.gz is
    read as such); TableError naming the file and the fault."""
    try:
        with (gzip.open if path.endswith(".gz") else open)(path, "rt", encoding="utf-8") as f:
            t = json.load(f)
    except (ValueError, EOFError, gzip.BadGzipFile) as e:
        raise TableError(f"{path}: not JSON: {e}")
    if not isinstance(t, dict) or t.get("schema") != SCHEMA:
        raise TableError(f"{path}: not an environment table (schema {SCHEMA!r} expected)")
    grid = t.get("grid")
    if not isinstance(grid, dict) or not grid:
        raise TableError(f"{path}: no 'grid' of environments")
    for tag, e in grid.items():
        if not isinstance(e, dict):
            raise TableError(f"{path}: grid '{tag}': not an object")
        for k, v in e.items():
            if k not in KNOBS:
                raise TableError(f"{path}: grid '{tag}': unknown knob '{k}' (one of {', '.join(KNOBS)})")
            _, lo, hi = KNOBS[k]
            if not isinstance(v, int) or not lo <= v <= hi or (k == "stride" and v % 16):
                raise TableError(f"{path}: grid '{tag}': {k}={v!r} out of range {lo}..{hi}")
    out = {}
    for sh, row in (t.get("shapes") or {}).items():
        ranking = row.get("ranking") if isinstance(row, dict) else None
        if not isinstance(ranking, list) or not ranking:
            raise TableError(f"{path}: shape '{sh}': no ranking")
        for tag in ranking:
            if tag not in grid:
                raise TableError(f"{path}: shape '{sh}': environment '{tag}' is not in the grid")
        out[sh] = [(tag, env(grid[tag])) for tag in ranking]
    return out, t
