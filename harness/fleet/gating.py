"""What the fleet asks of `./ptxcts gate` and `./ptxcts report` for a group: the same as one host asks for the same
run (scripts/all.sh, .ci/run), so that a fleet's verdict is the verdict one host would give.

* The baseline: a GPU tier's is its device's `baseline` (devices.<name>.baseline), a CPU tier's its tier's
  (tiers.<tier>.baseline); `{toolchain}` in either is the group's toolchain. None: the gate's own choice (by tier,
  toolchain and device), as on one host.
* Partial: `tiers.<tier>.partial`, else true when the tier's args select part of the cases (a filter: --family,
  --case, ...): such a run covers part of any baseline, and `gate --partial` lists the cases it did not run
  instead of calling them missing.
* The compile tier records the verdicts its baseline holds (the load paths of its keys: ptxas, nvjitlink), or
  without a baseline what one host records (`./ptxcts compile --verdicts ptxas,nvjitlink`).
* The report's regression section is given the baselines the gates used (a folder laid out as results/baselines,
  built from each gate's JSON), so the report classifies each run against what its gate judged it by.
"""
import os

from framework.documents import baseline as baseline_mod

GATED = ("run", "compile", "lower")
HOST_VERDICTS = "ptxas,nvjitlink"   # what one host records (scripts/all.sh, .ci/run)
# Options of a tier's args that select part of the cases: a run given one covers part of its baseline.
FILTERS = ("--family", "--case", "--filter", "--target", "--ptx", "--valid-only", "--limit", "--form", "--load-path",
           "--lower-targets", "--level")
DEFAULT_LEVEL = "1"


def options(args):
    """A tier's args as [(option, [tokens])]: an option (`--x` or `--x=v`) with the values that follow it."""
    out = []
    for a in args:
        if a.startswith("-") or not out:
            out.append((a.split("=", 1)[0], [a]))
        else:
            out[-1][1].append(a)
    return out


def filtered(args):
    """The first option of `args` that selects part of the cases, or None (`--level 1` is the default level)."""
    for name, tokens in options(args):
        if name not in FILTERS:
            continue
        value = tokens[0].split("=", 1)[1] if "=" in tokens[0] else (tokens[1] if len(tokens) > 1 else "")
        if name == "--level" and value == DEFAULT_LEVEL:
            continue
        return name
    return None


def expand(template, toolchain):
    return template.replace("{toolchain}", toolchain or "") if template else None


def baseline(plan, g):
    """The baseline file the plan names for group `g`, or None (the gate's own choice)."""
    if g["gpu"]:
        template = plan.get("devices", {}).get(g["device"] or "", {}).get("baseline")
    else:
        template = plan["tiers"][g["tier"]].get("baseline")
    return expand(template, g["toolchain"])


def partial(plan, g):
    tier = plan["tiers"][g["tier"]]
    if "partial" in tier:
        return bool(tier["partial"])
    return filtered(tier.get("args", [])) is not None


def gate_args(plan, g, dirs, json_path):
    """`./ptxcts gate ...` for group `g` whose run documents are in `dirs`."""
    dev = plan.get("devices", {}).get(g["device"] or "", {})
    args = ["gate"] + list(dirs) + ["--json", json_path]
    base = baseline(plan, g)
    if base:
        args += ["--baseline", base]
    if dev.get("across") and g["gpu"]:
        args += ["--across", dev["across"]]
    if partial(plan, g):
        args.append("--partial")
    return args


def compile_verdicts(root, base, toolchain):
    """The compilers whose verdicts the compile tier must record for its gate: the load paths of the baseline
    (`base`, else results/baselines/compile/<toolchain>.json.gz of this checkout), else HOST_VERDICTS.
    InputError when the baseline cannot be read."""
    path = base
    if not path and toolchain and "/" not in toolchain:
        path = baseline_mod.locate(os.path.join(root, "results", "baselines"), "compile", toolchain, None)
    if not path or not os.path.isfile(path):
        return HOST_VERDICTS
    _, cases = baseline_mod.load(path)
    order = HOST_VERDICTS.split(",")
    paths = sorted({key[3] for key in cases}, key=lambda p: (order.index(p) if p in order else len(order), p))
    return ",".join(paths) if paths else HOST_VERDICTS


def report_baselines(folder, gates):
    """Lay out the baselines the gates used as results/baselines is laid out, in `folder` (links), for
    `./ptxcts report --baselines`. gates: [(group id, gate JSON document)]. -> [what could not be laid out]: two
    gates of one tier, toolchain and architecture that used different baselines, or one a baseline and the other
    none (the report takes one per place: none is laid out, and the report shows no regressions for it)."""
    places, notes = {}, []
    for gid, doc in gates:
        if doc.get("tier") in (None, "lower") or not doc.get("toolchain"):
            continue
        base = doc.get("baseline")
        used = os.path.realpath(base) if base and os.path.isfile(base) else None
        # a device's own folder (the device the gate judged): two devices of one architecture keep a baseline each,
        # and the report chooses each by its claim as the gate did (baseline.choose)
        rel = baseline_mod.relative_path(doc["tier"], doc["toolchain"], doc.get("sm"), doc.get("device"))
        places.setdefault(rel, []).append((gid, used))
    os.makedirs(folder, exist_ok=True)
    for rel, used in sorted(places.items()):
        if len({b for _, b in used}) > 1:
            notes.append(f"{rel}: the gates of {', '.join(g for g, _ in used)} used different baselines "
                         f"({', '.join(sorted(b or 'none' for b in {b for _, b in used}))}); the report "
                         "classifies against none of them")
            continue
        if used[0][1] is None:
            continue
        link = os.path.join(folder, rel if used[0][1].endswith(".gz") else rel[:-len(".gz")])
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if os.path.lexists(link):
            os.remove(link)
        os.symlink(used[0][1], link)
    return notes

