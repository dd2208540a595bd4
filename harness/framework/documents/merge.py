"""Merging runs: shards of one run combined, several runs united.

Definitions (results/README.md repeats them for users):
* A run is identified by its run_id. Documents with the same run_id are shards of that run: they must agree on
  shard.count, shard.deal, tier, device.sm and seed, and each shard index may appear once. A shard index in 0..count-1 with
  no document is a missing shard: it is named in the merged result (`missing_shards`), never dropped silently.
* The merged set is the union of all cases keyed by (id, target, ptx, load_path, device.sm). The same key in two
  shards of one run is a conflict. The same key in two runs is a conflict unless prefer_later is set; then the
  result of the later run wins: later = later `finished` time, equal times broken by command-line order.
* Runs of different toolchains (schema.toolchain_name: "13.0", "13.5") never conflict: they are merged apart,
  one Merged per toolchain name (merge_groups); the report shows each toolchain as its own columns. The gate and
  the merge verb take one toolchain at a time (load_and_merge).
* Run-tier runs on devices of different names (device.name: an H100 and an H200, both sm_90) never conflict
  either: they are merged apart, one Merged per (toolchain name, device name), and the report gives each device
  its own columns. A run's device is its first document's (command-line order): the shards of one run stay one
  run even where they name different devices. The gate and the merge verb take one device at a time.
* A shard marked `partial` (it stopped before its end) is kept and named (Merged.partial_lines).
"""
import datetime
import os

from framework import pool

from . import schema
from .errors import MergeConflict, UsageError


class Run:
    """One run: the documents of its shards."""

    def __init__(self, run_id, order):
        self.run_id, self.order = run_id, order
        self.shards = {}  # index -> (path, doc); an index is added once (load_runs refuses it twice)
        self._first = (0, None)   # (shards counted, the lowest index's document): asked once per case

    @property
    def first(self):
        if self._first[0] != len(self.shards):
            self._first = (len(self.shards), self.shards[min(self.shards)][1])
        return self._first[1]

    tier = property(lambda self: self.first["tier"])
    toolchain_name = property(lambda self: schema.toolchain_name(self.first["toolchain"]))
    device = property(lambda self: self.first["device"])
    toolchain = property(lambda self: self.first["toolchain"])
    seed = property(lambda self: self.first["seed"])
    count = property(lambda self: self.first["shard"]["count"])
    started = property(lambda self: min(d["started"] for _, d in self.shards.values()))
    finished = property(lambda self: max(d["finished"] for _, d in self.shards.values()))

    @property
    def missing(self):
        return [i for i in range(self.count) if i not in self.shards]

    @property
    def paths(self):
        return [self.shards[i][0] for i in sorted(self.shards)]

    @property
    def partial(self):
        """[(shard index, the shard's `partial` object)] for the shards that stopped before their end."""
        return [(i, d["partial"]) for i, (_, d) in sorted(self.shards.items()) if d.get("partial")]

    def describe(self):
        where = self.device["sm"] + " " + self.device["name"] if self.device else "no device"
        return f"{self.run_id} ({self.tier}, toolchain {self.toolchain_name or '?'}, {where})"


class Merged:
    def __init__(self, toolchain=None, device_name=None):
        self.toolchain = toolchain  # the toolchain name shared by these runs (schema.toolchain_name)
        self.device_name = device_name  # the run tier's device.name shared by these runs (device_key); else None
        self.runs = []
        self.results = {}  # key -> (case, run)
        self.replaced = []  # (key, earlier run_id, later run_id) under prefer_later
        self.origin = {}  # key -> path of the results.json it came from

    @property
    def missing_shards(self):
        return [(run.run_id, i, run.count) for run in self.runs for i in run.missing]

    def missing_shard_lines(self):
        return [f"run {run_id}: shard index {i} of count {n} is missing (no results.json with that shard given)"
                for run_id, i, n in self.missing_shards]

    @property
    def partial_runs(self):
        """[(run_id, shard index, count, partial)] for every shard marked partial."""
        return [(run.run_id, i, run.count, p) for run in self.runs for i, p in run.partial]

    def partial_lines(self):
        return [f"run {run_id}" + (f" shard {i}/{n}" if n > 1 else "") + f" is partial: {p['reason']} "
                f"({p['done']} of {p['total']} cases judged)" for run_id, i, n, p in self.partial_runs]


DOCUMENT_NAMES = ("results.json", "results.json.gz")


def find_documents(paths):
    """Expand the arguments to results.json paths: a results.json file, a folder holding one (that run: what lies
    below it is not read), or a folder whose subfolders (at any depth) hold them. A committed run holds
    results.json.gz instead."""
    found = []
    for p in paths:
        p = str(p)
        if os.path.isfile(p):
            found.append(p)
        elif os.path.isdir(p):
            own, below = _documents_in(p)
            if own:
                found.append(own)
            elif below:
                found.extend(below)
            else:
                raise UsageError(f"{p}: no results.json in this folder or below it")
        else:
            raise UsageError(f"{p}: no such file or folder")
    return found


def _documents_in(folder):
    """(the document of folder itself or None, [the documents of its subfolders, at any depth]), in one walk that
    refuses a document's name held by something else (a folder, a FIFO, a link to nowhere) wherever it is below
    folder: never passed over for its twin."""
    own, below = None, []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        odd = next((os.path.join(root, n) for n in DOCUMENT_NAMES
                    if n in dirs or (n in files and not os.path.isfile(os.path.join(root, n)))), None)
        if odd:
            raise UsageError(f"{odd}: is {'a folder' if os.path.isdir(odd) else 'not a regular file'}, "
                             "not a run's document (a run folder holds results.json or results.json.gz)")
        name = next((n for n in DOCUMENT_NAMES if n in files), None)
        if name and root == folder:
            own = os.path.join(root, name)
        elif name:
            below.append(os.path.join(root, name))
    return own, below


def _time(text):
    t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)


def merge(documents, prefer_later=False):
    """documents: [(path, validated doc)] in command-line order, all of one toolchain name (and, in the run tier,
    one device name: merge_groups). Returns Merged; raises MergeConflict."""
    merged = Merged(schema.toolchain_name(documents[0][1]["toolchain"]) if documents else None,
                    device_key(documents[0][1]) if documents else None)
    by_id = {}
    for order, (path, doc) in enumerate(documents):
        run = by_id.get(doc["run_id"])
        if run is None:
            run = by_id[doc["run_id"]] = Run(doc["run_id"], order)
            merged.runs.append(run)
        else:
            _check_same_run(run, path, doc)
        index = doc["shard"]["index"]
        if index in run.shards:
            if doc["shard"]["count"] == 1:
                raise MergeConflict(f"run_id {doc['run_id']} is used by two runs: {run.shards[index][0]} and {path};"
                                    " a run_id names one run (only the shards of one run share it)")
            raise MergeConflict(f"run {doc['run_id']}: shard index {index} given twice: "
                                f"{run.shards[index][0]} and {path}")
        run.shards[index] = (path, doc)

    conflicts = []
    for run in sorted(merged.runs, key=lambda r: (_time(r.finished), r.order)):
        in_run = {}
        for index in sorted(run.shards):
            path, doc = run.shards[index]
            for case in doc["cases"]:
                key = schema.result_key(case, doc)
                if key in in_run:
                    raise MergeConflict(f"run {run.run_id}: key {schema.key_text(key)} is in shard {in_run[key]} "
                                        f"({run.shards[in_run[key]][0]}) and in shard {index} ({path}): "
                                        "shards of one run must not overlap")
                in_run[key] = index
                if key in merged.results:
                    earlier = merged.results[key][1]
                    if not prefer_later:
                        conflicts.append((key, earlier, merged.origin[key], run, path))
                        continue
                    merged.replaced.append((key, earlier.run_id, run.run_id))
                merged.results[key] = (case, run)
                merged.origin[key] = path
    if conflicts:
        key, a, a_path, b, b_path = conflicts[0]
        more = f" (and {len(conflicts) - 1} more conflicting keys)" if len(conflicts) > 1 else ""
        raise MergeConflict(f"key {schema.key_text(key)} is in run {a.run_id} ({a_path}) and in run {b.run_id} "
                            f"({b_path}){more}; pass --prefer-later to keep the result of the later run "
                            f"({b.run_id}, finished {b.finished})")
    merged.runs.sort(key=lambda r: r.order)
    return merged


def _check_same_run(run, path, doc):
    first_path, first = run.shards[min(run.shards)]
    deal = lambda d: d["shard"].get("deal", schema.SHARD_DEALS[0])
    for what, a, b in (("shard count", first["shard"]["count"], doc["shard"]["count"]),
                       ("shard deal", deal(first), deal(doc)),
                       ("tier", first["tier"], doc["tier"]),
                       ("device.sm", (first["device"] or {}).get("sm"), (doc["device"] or {}).get("sm")),
                       ("seed", first["seed"], doc["seed"]),
                       ("toolchain name", schema.toolchain_name(first["toolchain"]),
                        schema.toolchain_name(doc["toolchain"]))):
        if a != b:
            raise MergeConflict(f"run {doc['run_id']}: its shards disagree on {what}: {a!r} in {first_path}, "
                                f"{b!r} in {path}")


def device_key(doc):
    """The device name that keeps a run tier's runs apart (two GPUs of one architecture, e.g. an H100 and an H200,
    are two devices); None for the other tiers, whose runs of one toolchain are always united."""
    return (doc.get("device") or {}).get("name") if doc.get("tier") == "run" else None


def merge_groups(documents, prefer_later=False):
    """[Merged], one per toolchain name and device (device_key: two GPUs of one architecture are two devices,
    their runs never conflict), in the order they first appear on the command line. The device of a run is that
    of its first document, so that the shards of one run are never split."""
    groups, names, devices = {}, {}, {}
    for path, doc in documents:
        name = schema.toolchain_name(doc["toolchain"])
        if names.setdefault(doc["run_id"], (name, path))[0] != name:
            raise MergeConflict(f"run {doc['run_id']}: its shards disagree on toolchain name: "
                                f"{names[doc['run_id']][0]!r} in {names[doc['run_id']][1]}, {name!r} in {path}")
        device = devices.setdefault(doc["run_id"], device_key(doc))
        groups.setdefault((name, device), []).append((path, doc))
    return [merge(docs, prefer_later) for docs in groups.values()]


def _load_or_none(path):
    """A document read in a worker of load_all: None when it cannot be read (the caller reads it again, here, for the
    error itself: an exception need not survive the trip back)."""
    try:
        return schema.load(path)
    except Exception:
        return None


def load_all(paths):
    """[(path, document)] of the result documents, read side by side (pool.fork_map): reading and validating a
    document of 100,000s of cases is most of a report's or a diff's time. A document that cannot be read is read
    again here, in order, so that the error is the one a plain read gives."""
    return [(p, d if d is not None else schema.load(p)) for p, d in zip(paths, pool.fork_map(_load_or_none, paths))]


def load_and_merge_groups(paths, prefer_later=False):
    """Read the run folders and merge them per toolchain name and device (report, diff)."""
    return merge_groups(load_all(find_documents(paths)), prefer_later)


def describe_groups(groups):
    """What keeps these groups apart, for a usage error: their toolchains, or their devices when they share one
    toolchain."""
    if len({g.toolchain for g in groups}) == 1:
        return (f"toolchain {groups[0].toolchain} on {len(groups)} devices: " + " and ".join(
            f"{g.device_name or 'no device'} ({', '.join(r.run_id for r in g.runs)})" for g in groups))
    return " and ".join(f"toolchain {g.toolchain}" + (f" on {g.device_name}" if g.device_name else "")
                        + f" ({', '.join(r.run_id for r in g.runs)})" for g in groups)


# Tiers whose case keys are alike (a compile case ID, <form>@<target>.ptx<MM>): their runs can be compared key by
# key. Any other two tiers share no key, so a comparison of them would read every case as absent on one side.
COMPARABLE_TIERS = ({"compile", "frontend"},)


def comparable(tier_a, tier_b):
    return tier_a == tier_b or any({tier_a, tier_b} <= s for s in COMPARABLE_TIERS)


def tiers_of(groups):
    """{tier: [run IDs]} of the merged groups' runs."""
    out = {}
    for g in groups:
        for r in g.runs:
            out.setdefault(r.tier, []).append(r.run_id)
    return out


def one_tier(groups, what="these runs"):
    """UsageError when the groups hold runs of more than one tier (gate, merge, one side of diff): a baseline, a
    merged document and a side of a comparison are each of one tier."""
    tiers = tiers_of(groups)
    if len(tiers) > 1:
        raise UsageError(f"{what} are of {len(tiers)} tiers: " + "; ".join(
            f"{t} ({', '.join(ids)})" for t, ids in sorted(tiers.items())) + ": give the runs of one tier")


def load_and_merge(paths, prefer_later=False):
    """Read the run folders and merge them; they must be of one tier, one toolchain name and one device (gate,
    merge verb: a baseline and a merged document are of one device)."""
    groups = load_and_merge_groups(paths, prefer_later)
    one_tier(groups)
    if len(groups) > 1:
        one_toolchain = len({g.toolchain for g in groups}) == 1
        raise UsageError("these runs are of " + describe_groups(groups) + ": give the runs of one "
                         + ("device" if one_toolchain else "toolchain") + " at a time (./ptxcts diff compares two; "
                         "./ptxcts report shows them side by side)")
    return groups[0]
