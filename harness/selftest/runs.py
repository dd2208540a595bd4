"""The self-test's runs of the run tier (harness/selftest/selftest.py): the tier on the cubin path with a planted
fault in its environment, the confirmation alone of a crash seen beside other workers, and where the time went."""
import collections
import json
import os
import subprocess
import time
from framework import boundary, paths

ROOT = paths.root()


SKIPPED = 77   # the run tier's exit without a usable GPU (docs/CLI.md), CTest's skip


class NoGpu(Exception):
    """The run tier found no usable GPU here; the message is its reason."""


def env_with(**kw):
    e = dict(os.environ, PTXCTS_ROOT=ROOT)
    e.update({k: v for k, v in kw.items() if v is not None})
    return e


def run_tier(out, families, seed, jobs, kind=None, allow=None, cases=(), host=None, timeout=5, deadline=None,
             alone=True, extra=()):
    """The run tier on the cubin path; {(id, load path): case}, and the document less its cases. alone=False: a
    crash or watchdog timeout seen beside other workers keeps its class, marked (confirm_alone runs the ones a
    verdict needs again alone)."""
    exe = os.path.join(os.environ.get("PTXCTS_BUILD", os.path.join(ROOT, "build")), "harness", "run", "ptxcts-run")
    # a planted fault may trap or hang: a short watchdog keeps a hang from costing the whole budget
    argv = [exe, "--load-path", "cubin", "--lower-targets", "none", "--seed", str(seed), "--jobs", str(jobs),
            "--timeout", str(timeout), "--quiet", "--out", out] + ([] if alone else ["--no-rerun-alone"]) + list(extra)
    if deadline is not None:
        argv += ["--deadline", str(int(deadline))]
    for f in families:
        argv += ["--family", f]
    for c in cases:
        argv += ["--case", c]
    env = env_with(PTXCTS_PLANT_FAULT=kind, PTXCTS_PLANT_FAULT_FORMS=allow, PTXCTS_PLANT_HOST_FAULT=host)
    if kind is None:
        env.pop("PTXCTS_PLANT_FAULT", None)
        env.pop("PTXCTS_PLANT_FAULT_FORMS", None)
    if host is None:
        env.pop("PTXCTS_PLANT_HOST_FAULT", None)
    r = subprocess.run(argv, env=env, capture_output=True, text=True)
    path = os.path.join(out, "results.json")
    if r.returncode == SKIPPED:
        # the run tier's line says why (no device, the driver failed, CUDA_VISIBLE_DEVICES empty)
        why = next((ln.split("no GPU here: ", 1)[1] for ln in r.stderr.splitlines() if "no GPU here: " in ln),
                   r.stderr.strip()[-300:])
        raise NoGpu(why.split(": all ", 1)[0])
    if r.returncode in (boundary.EXIT_USAGE, boundary.EXIT_INPUT):
        # the run tier refused an input (an option, a variable, a file): its own message and code, not a failure
        said = [ln for ln in r.stderr.splitlines() if ln.startswith("ptxcts-run:")] or r.stderr.strip().splitlines()
        raise boundary.VerbError(f"the run tier refused its input (exit {r.returncode}): {' / '.join(said[-3:])}",
                                 code=r.returncode)
    if not os.path.isfile(path):
        raise SystemExit(f"selftest: the run tier wrote no results (exit {r.returncode}): {r.stderr[-1500:]}")
    with open(path) as f:
        doc = json.load(f)
    return {(c["id"], c["load_path"]): c for c in doc.pop("cases")}, doc


def tally():
    """A kind's count of forms per family: planted, refused (ptxas, or no legal host perturbation), caught,
    equivalent, holes and no_case (not judged)."""
    return collections.defaultdict(lambda: dict.fromkeys(("planted", "refused", "caught", "equivalent", "holes",
                                                           "no_case"), 0))


def beside_others(case):
    """A crash or watchdog timeout seen while other workers ran: perhaps another kernel's trap, not its own."""
    return bool((case.get("details") or {}).get("beside_other_workers"))


def changed(keys, clean, faulty):
    """The keys whose class differs from the clean run's, those confirmed (not only seen beside other workers)
    first: (confirmed, unconfirmed)."""
    ch = [k for k in keys if k in faulty and faulty[k].get("class") not in (None, "skipped")
          and faulty[k]["class"] != clean[k]["class"]]
    return [k for k in ch if not beside_others(faulty[k])], [k for k in ch if beside_others(faulty[k])]


def confirm_alone(out, keys_of_form, clean, faulty, run):
    """A form whose only class changes were seen beside other workers has its first such case run again alone
    (one worker, nothing beside it); that verdict replaces the first. `run(out, ids)` runs the run tier alone.
    Returns {"cases", "seconds"} of the confirmation run."""
    t0 = time.monotonic()
    need = []
    for keys in keys_of_form.values():
        confirmed, unconfirmed = changed(keys, clean, faulty)
        if unconfirmed and not confirmed:
            need.append(unconfirmed[0])
    if need:
        again, _ = run(out, [k[0] for k in need])
        for k in need:
            if again.get(k, {}).get("class", "skipped") != "skipped":
                first = {"class": faulty[k]["class"], "message": faulty[k].get("message", "")}
                faulty[k] = dict(again[k], details=dict(again[k].get("details") or {}, first_beside_others=first))
    return {"cases": len(need), "seconds": round(time.monotonic() - t0, 1)}


def where_time_went(doc):
    """The run tier's timing summed over its batches: {batch_s, rerun_alone, rerun_s, traps, trap_s}."""
    keys = ("batch_s", "rerun_alone", "rerun_s", "traps", "trap_s")
    return {k: round(sum(t[k] for t in doc.get("timing", [])), 1) for k in keys}


def staged(out, keys_of_form, clean, run):
    """The faulty runs of one kind, one case of each form at a time: stage k runs the k-th case of every form that
    no earlier case caught (on the H100 a trap beside other workers costs every worker a restart: the fewer cases
    run, the less time), keeps each crash seen beside other workers as seen, then confirm_alone. run(out, ids,
    alone) -> (cases, doc); alone: one worker. Returns (faulty cases, where the time went)."""
    faulty = {}
    timing = {"stages": 0, "batch_s": 0.0, "confirm_alone": 0, "confirm_s": 0.0}
    depth = max((len(keys) for keys in keys_of_form.values()), default=0)
    for k in range(depth):
        todo = {f: keys for f, keys in keys_of_form.items()
                if len(keys) > k and not changed(keys[:k], clean, faulty)[0]}
        if not todo:
            break
        got, doc = run(f"{out}-{k + 1}", [keys[k][0] for keys in todo.values()], False)
        faulty.update(got)
        timing["stages"] += 1
        timing["batch_s"] = round(timing["batch_s"] + where_time_went(doc)["batch_s"], 1)
        c = confirm_alone(f"{out}-{k + 1}-alone", {f: keys[:k + 1] for f, keys in todo.items()}, clean, faulty,
                          lambda o, ids: run(o, ids, True))
        timing["confirm_alone"] += c["cases"]
        timing["confirm_s"] = round(timing["confirm_s"] + c["seconds"], 1)
    return faulty, timing
