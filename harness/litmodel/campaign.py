"""The GPU time of one `./ptxcts litmus gpu --tune S | --env-table FILE` call, spent where it kills.

With --tune: the sweep runs every test and every graded mutant in each environment of tuning.GRID (a mutant stops
launching at its first killing launch, `stop=1`: a killed mutant costs about two launches), within S seconds;
its runs rank the environments per shape (tuning.rank). With --env-table the ranking is read, and each test runs
in its shape's best --test-envs environments. Then the focus rounds, until --time-budget: round r runs every
mutant still alive (not killed, not crashed, not hung, supported) in the r-th environment of its shape's ranking
(cyclically), with the remaining time shared among them (half of it per round for the first rounds, all of it
in the last): a mutant killed early costs nothing more; the hard ones get the time. A mutant whose kernel ptxas
compiles to its original's SASS (build/static.tsv) gets no run after its first.

Every run is one runner line `TEST@TAG KEY=VALUE ...` (gpu/litmus_runner.cu); the runs of one test or mutant
merge into one result (merged()): the histograms summed, and `runs` lists each run's environment, instances,
seconds and verdict."""
import random
import sys
import time
from collections import Counter

from . import tuning

FOCUS_ROUNDS = 8          # the last of them gets all the time left
RUN_OVERHEAD_S = 0.03     # a run's cost beyond its ms (the launch in flight, the runner's bookkeeping)
MAX_ITERS = 1000000       # launches: a run is bounded by its ms
PROGRESS_EVERY = 50       # runs between two progress lines
SWEEP_INSTANCES = 16384   # instances per launch in the sweep: shorter launches, a finer ms


class Campaign:
    def __init__(self, a, runner, labels, names, is_mutant, env_rows, t0, budget_end, log, supervise, same_sass=()):
        self.a, self.runner, self.labels, self.log = a, runner, labels, log
        self.supervise = supervise         # gpu_tier.supervise: runs the lines, isolating traps and hangs
        self.is_mutant = is_mutant
        self.tests = [n for n in names if not is_mutant[n]]
        self.muts = [n for n in names if is_mutant[n]]
        self.env_rows = env_rows
        self.t0, self.budget_end = t0, budget_end
        self.by_test = tuning.shapes()
        self.runs = []                     # (name, tag, record), in the order they finished
        self.instances_done = [0.0, 0.0]
        self.sweep_ms = 0
        self._killed = set()
        self._ran = set()                  # names with a run that has a histogram
        self.same_sass = set(same_sass)   # a mutant whose kernel is its original's SASS: no focus round after one
        self.base = ["--instances", str(a.instances), "--seed", str(a.seed), "--hang-us", str(a.hang_us)]

    # -- bookkeeping --------------------------------------------------------------------------------------------
    def killed(self):
        return set(self._killed)

    def finished(self):
        """Names that are not run again: a crash, a hang or not supported (a finding or a reason, once)."""
        return {n for n, _, r in self.runs if r.get("class") in ("crash", "timeout") or "not_supported" in r}

    def alive(self):
        gone = self.killed() | self.finished()
        return [m for m in self.muts if m not in gone]

    def shape(self, name):
        return tuning.shape_of(name, self.by_test)

    def scores(self):
        """The sweep's scores per shape and environment (tuning.score), with the rare kills of every killing run
        so far (tuning.with_rare: after the sweep its own; at the end the focus rounds' too)."""
        sweep = [(n, t, r) for n, t, r in self.runs if t in tuning.GRID and r.get("phase") == "sweep"]
        kills = [(n, t) for n, t, r in self.runs if t in tuning.GRID and r.get("verdict") == "killed"]
        return tuning.with_rare(tuning.score(sweep, self.by_test, lambda n: self.is_mutant[n]), kills, self.by_test)

    # -- running ------------------------------------------------------------------------------------------------
    def _phase(self, label, lines, deadline, instances=None):
        """Run [(name, tag, runner line text)] through gpu_tier.supervise; every result recorded with its phase."""
        if not lines:
            return 0
        total, start = len(lines), time.monotonic()
        done = [0]
        kind = label.split()[0]

        def on_result(run_id, rec):
            name, _, tag = run_id.partition("@")
            rec = dict(rec, phase=kind)
            self.runs.append((name, tag, rec))
            first_kill = rec.get("verdict") == "killed" and name not in self._killed
            if first_kill:
                self._killed.add(name)
            if "hist" in rec:
                self._ran.add(name)
                self.instances_done[0] += rec.get("instances", 0)
                self.instances_done[1] += rec.get("seconds", 0)
            done[0] += 1
            el = time.monotonic() - start
            rate = done[0] / el if el > 0 else 0
            verdict = rec.get("verdict") or rec.get("class") or ("not_supported" if "not_supported" in rec else "?")
            # a line per finding or kill, and every PROGRESS_EVERY runs (thousands of runs: the log keeps them all)
            if first_kill or verdict not in ("pass", "survived", "skipped", "killed") or \
                    done[0] % PROGRESS_EVERY == 0 or done[0] == total:
                sys.stderr.write(f"litmus gpu [{label}]: {done[0]}/{total} ({rate:.1f}/s, ETA "
                                 f"{(total - done[0]) / rate if rate else 0:.0f}s; "
                                 f"{self.budget_end - time.monotonic():.0f}s of the budget left; "
                                 f"{len(self._killed)} of {len(self.muts)} mutants killed) {run_id}: {verdict}\n")
                sys.stderr.flush()
        text = [f"{n}@{tag} {line}" for n, tag, line in lines]
        base = list(self.base)
        if instances:
            base[1] = str(instances)
        # a run is silent for its ms: the hang limit is --hang-s beyond the longest run of the phase
        longest = max(int(line.split("ms=")[1].split()[0]) for _, _, line in lines) / 1000.0
        return self.supervise(self.runner, self.labels, text, base, self.a.hang_s + longest, deadline, on_result,
                              self.log)

    def _line(self, e, ms, stop):
        return tuning.env_text(e, ms=ms, iters=MAX_ITERS, stop=int(stop))

    def run(self):
        a = self.a
        if a.tune:
            tune_end = min(self.t0 + a.tune, self.budget_end)
            n_runs = len(tuning.GRID) * (len(self.tests) + len(self.muts))   # overhead: RUN_OVERHEAD_S a run
            self.sweep_ms = a.sweep_ms or int(max(15, min(500, 1000 * a.tune / max(1, n_runs) - 1000 * RUN_OVERHEAD_S)))
            start = time.monotonic()
            for k, tag in enumerate(tuning.GRID):
                # each environment its slice of the sweep, its runs in an order of their own (a slice cut short
                # misses runs of every shape alike)
                e = tuning.env(tag)
                gone = self.finished()
                lines = [(n, tag, self._line(e, self.sweep_ms, False)) for n in self.tests if n not in gone]
                lines += [(m, tag, self._line(e, self.sweep_ms, True)) for m in self.muts if m not in gone]
                random.Random(f"{a.seed}:{tag}").shuffle(lines)
                slice_end = min(tune_end, start + (tune_end - start) * (k + 1) / len(tuning.GRID))
                if time.monotonic() >= tune_end:
                    break
                rc = self._phase(f"sweep {k + 1}/{len(tuning.GRID)} {tag}", lines, slice_end,
                                 min(a.instances, SWEEP_INSTANCES))
                if rc == 77:
                    return rc
            sc = self.scores()
            ranking = {sh: [(t, tuning.env(t)) for t in tuning.rank(s)] for sh, s in sc.items()}
            # a test the sweep's slices never reached: once, in its shape's best environment
            gone = self.finished()
            missed = [n for n in self.tests if n not in self._ran and n not in gone]
            rows = [(n, (ranking.get(self.shape(n)) or [("base", tuning.env("base"))])[0]) for n in missed]
            rc = self._phase("tests missed", [(n, tag, self._line(e, a.test_ms or 150, False)) for n, (tag, e) in rows],
                             self.budget_end)
            if rc == 77:
                return rc
        else:
            ranking = self.env_rows
            ms = a.test_ms or 150
            lines = []
            for n in self.tests:
                for tag, e in (ranking.get(self.shape(n)) or [("base", tuning.env("base"))])[:a.test_envs]:
                    lines.append((n, tag, self._line(e, ms, False)))
            rc = self._phase("tests", lines, self.budget_end)
            if rc == 77:
                return rc
        self.ranking = ranking
        for r in range(FOCUS_ROUNDS):
            alive = self.alive()
            # the machine code of the original: one run is the empirical check, more is waste
            alive = [m for m in alive if m not in self.same_sass or m not in self._ran]
            left = self.budget_end - time.monotonic() - 2.0
            if not alive or left < 1.0:
                break
            share = 1.0 if r == FOCUS_ROUNDS - 1 else 0.5
            ms = int(max(40, min(60000, 1000 * (left * share / len(alive) - RUN_OVERHEAD_S))))
            lines = []
            for m in alive:
                row = ranking.get(self.shape(m)) or [("base", tuning.env("base"))]
                tag, e = row[r % len(row)]
                lines.append((m, tag, self._line(e, ms, True)))
            rc = self._phase(f"focus {r + 1}/{FOCUS_ROUNDS} {ms}ms", lines, self.budget_end)
            if rc == 77:
                return rc
        return 0

    # -- results ------------------------------------------------------------------------------------------------
    def merged(self):
        """{name: one record}: the histograms of its runs summed, `runs` the list of them; a crash or a hang in
        any run is the record's `finding` (with its message); else not_supported, else skipped."""
        by = {}
        for n, tag, rec in self.runs:
            by.setdefault(n, []).append((tag, rec))
        out = {}
        for n in self.tests + self.muts:
            recs = by.get(n, [])
            hists = [(t, r) for t, r in recs if "hist" in r]
            findings = [r for _, r in recs if r.get("class") in ("crash", "timeout")]
            runs = [{"env": t, "phase": r.get("phase"), "instances": r.get("instances", 0),
                     "seconds": round(r.get("seconds", 0.0), 4),
                     "verdict": r.get("verdict") or r.get("class") or "not_supported",
                     "killed_after": r.get("killed_after", 0)} for t, r in recs if r.get("class") != "skipped"]
            if hists:
                h = Counter()
                for _, r in hists:
                    h.update(r["hist"])
                m = {"hist": dict(h), "instances": sum(r["instances"] for _, r in hists),
                     "seconds": sum(r["seconds"] for _, r in hists), "runs": runs}
                if findings:
                    m["finding"], m["message"] = findings[0]["class"], findings[0]["message"]
            elif findings:
                m = dict(findings[0], runs=runs)
            elif any("not_supported" in r for _, r in recs):
                m = next(r for _, r in recs if "not_supported" in r)
            else:
                m = {"class": "skipped", "message": "the time budget ran out before it"}
            out[n] = m
        return out
