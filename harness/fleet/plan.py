"""A fleet plan (TOML): which tiers run, with which toolchains, on which devices, into which results tree. Every
key, with an example, is in fleet/README.md ("The plan"); this module checks a plan against those rules. Nothing
in it is Slurm's: a device is a node constraint (a feature; a node label on Kubernetes) and/or a partition, and
the scheduler tables ([slurm], [kubernetes]) only tune their own recipe.
"""
import os
import re

from fleet.errors import FleetError, MalformedFile
from framework.documents import tomldoc
from framework.documents.errors import InputError

VERSION = 1
GPU_TIERS = ("run", "explore", "selftest", "litmus")
CPU_TIERS = ("compile", "lower")
TIERS = GPU_TIERS + CPU_TIERS
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")
MAX_SHARDS = 1000

_TOP = {"version", "name", "results", "toolchains", "seed", "tiers", "devices", "cpu", "slurm", "kubernetes"}
_TIER_KEYS = {"shards", "args", "baseline", "partial"}
_DEVICE_KEYS = {"constraint", "partition", "baseline", "across", "stand_in", "probe", "probe_every"}
_CPU_KEYS = {"constraint", "partition"}
_SLURM_KEYS = {"time", "account", "qos", "extra"}
_KUBE_KEYS = {"image", "namespace", "results_claim", "node_label", "gpu_resource", "checkout"}
STAND_INS = ("model",)
NO_STAND_IN = ("selftest", "litmus")   # tiers with no --device model: they need a GPU
ACROSS = ("driver", "device", "device,driver", "driver,device")


class Plan:
    """A checked plan. `path` the file, `root` the ptx-cts checkout the jobs run (this one)."""

    def __init__(self, path, doc):
        self.path = os.path.abspath(path)
        self.doc = doc
        self.name = doc["name"]
        base = os.path.dirname(self.path)
        self.results = os.path.normpath(os.path.join(base, doc["results"]))
        self.toolchains = list(doc["toolchains"])
        self.seed = doc.get("seed", 1)
        self.tiers = {}
        for t, v in doc["tiers"].items():
            tier = {"shards": v.get("shards", 1), "args": list(v.get("args", []))}
            if "baseline" in v:
                tier["baseline"] = os.path.normpath(os.path.join(base, v["baseline"]))
            if "partial" in v:
                tier["partial"] = v["partial"]
            self.tiers[t] = tier
        self.devices = {}
        for name, d in doc.get("devices", {}).items():
            dev = dict(d)
            if "baseline" in dev:
                dev["baseline"] = os.path.normpath(os.path.join(base, dev["baseline"]))
            self.devices[name] = dev
        self.cpu = dict(doc.get("cpu", {}))
        self.slurm = dict(doc.get("slurm", {}))
        self.kubernetes = dict(doc.get("kubernetes", {}))


def _where(path, key):
    return f"{path}: {key}"


def _expect(path, key, value, kind, what):
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise MalformedFile(f"{_where(path, key)}: expected {what}, found {type(value).__name__} {value!r}")


def _str_list(path, key, value):
    _expect(path, key, value, list, "a list of strings")
    for v in value:
        _expect(path, key, v, str, "a list of strings")
        if not v or "\n" in v:
            raise MalformedFile(f"{_where(path, key)}: {v!r}: expected a non-empty string on one line")


def _unknown_keys(path, where, table, known, kind="key"):
    extra = sorted(set(table) - known)
    if extra:
        raise FleetError(f"{_where(path, where)}: unknown {kind} {extra[0]!r} (known: {', '.join(sorted(known))})")


def known_toolchains(root):
    """The toolchain names of the catalog (toolchains/catalog.toml, read as data)."""
    return sorted(tomldoc.read(os.path.join(root, "toolchains", "catalog.toml")).get("toolchain", {}))


def load(path, root):
    """The plan at `path`, checked: FleetError (exit 2) for a name the suite does not know (a tier, a device
    referenced, a toolchain, a key), MalformedFile (exit 3) for what is not TOML or has a wrong type."""
    try:
        doc = tomldoc.read(path)
    except InputError as e:
        where = f"{e.file}:{e.line}" if e.line else str(e.file)
        raise MalformedFile(f"{where}: not a TOML plan: " + (f"{e.field}: " if e.field else "") + e.what) from None
    except FileNotFoundError:
        raise FleetError(f"{path}: no such plan file") from None
    except IsADirectoryError:
        raise FleetError(f"{path}: is a folder, not a plan file") from None
    _unknown_keys(path, "top level", doc, _TOP)
    for key in ("version", "name", "results", "toolchains", "tiers"):
        if key not in doc:
            raise MalformedFile(f"{_where(path, key)}: missing (every plan names it; fleet/README.md)")
    if doc["version"] != VERSION or isinstance(doc["version"], bool):
        raise MalformedFile(f"{_where(path, 'version')}: {doc['version']!r}: this tool reads plan version {VERSION}")
    _expect(path, "name", doc["name"], str, "a string")
    if not NAME.match(doc["name"]):
        raise MalformedFile(f"{_where(path, 'name')}: {doc['name']!r}: 1 to 64 letters, digits and . _ + - "
                            "(it starts job names and run ids)")
    _expect(path, "results", doc["results"], str, "a folder path")
    if not doc["results"]:
        raise MalformedFile(f"{_where(path, 'results')}: empty: name the shared results folder")
    if "seed" in doc:
        _expect(path, "seed", doc["seed"], int, "an integer")
        if not 0 <= doc["seed"] < 2 ** 64:
            raise MalformedFile(f"{_where(path, 'seed')}: {doc['seed']}: expected 0..2^64-1")
    _str_list(path, "toolchains", doc["toolchains"])
    if not doc["toolchains"]:
        raise MalformedFile(f"{_where(path, 'toolchains')}: empty: name at least one toolchain")
    if len(set(doc["toolchains"])) != len(doc["toolchains"]):
        raise MalformedFile(f"{_where(path, 'toolchains')}: a toolchain is named twice")
    known = known_toolchains(root)
    for t in doc["toolchains"]:
        if "/" in t:
            if not (os.path.isfile(t) and os.access(t, os.X_OK)):
                raise FleetError(f"{_where(path, 'toolchains')}: {t!r}: not an executable ptxas (a path names a "
                                 "toolchain's ptxas, the same on every node)")
        elif t not in known:
            raise FleetError(f"{_where(path, 'toolchains')}: unknown toolchain {t!r} (known: {', '.join(known)}; or "
                             "the path of a ptxas)")
    _expect(path, "tiers", doc["tiers"], dict, "a table of tiers")
    if not doc["tiers"]:
        raise MalformedFile(f"{_where(path, 'tiers')}: empty: name at least one tier ({', '.join(TIERS)})")
    _unknown_keys(path, "tiers", doc["tiers"], set(TIERS), "tier")
    for tier, t in doc["tiers"].items():
        _expect(path, f"tiers.{tier}", t, dict, "a table")
        _unknown_keys(path, f"tiers.{tier}", t, _TIER_KEYS)
        if "shards" in t:
            _expect(path, f"tiers.{tier}.shards", t["shards"], int, "an integer")
            if tier != "run" and t["shards"] != 1:
                raise FleetError(f"{_where(path, f'tiers.{tier}.shards')}: {t['shards']}: only the run tier "
                                 "shards its cases (--shard i/n); the other tiers run as one task")
            if not 1 <= t["shards"] <= MAX_SHARDS:
                raise MalformedFile(f"{_where(path, f'tiers.{tier}.shards')}: {t['shards']}: expected 1..{MAX_SHARDS}")
        if "args" in t:
            _str_list(path, f"tiers.{tier}.args", t["args"])
            for a in t["args"]:
                if a.split("=")[0] in OWNED_OPTIONS:
                    raise FleetError(f"{_where(path, f'tiers.{tier}.args')}: {a!r}: the fleet sets it per task "
                                     f"(owned: {', '.join(OWNED_OPTIONS)})")
        _check_gate_keys(path, tier, t, doc["toolchains"])
    devices = doc.get("devices", {})
    _expect(path, "devices", devices, dict, "a table of devices")
    gpu_tiers = [t for t in doc["tiers"] if t in GPU_TIERS]
    if gpu_tiers and not devices:
        raise FleetError(f"{_where(path, 'devices')}: none, but the GPU tier(s) {', '.join(gpu_tiers)} need one")
    for name, d in devices.items():
        where = f"devices.{name}"
        if not NAME.match(name):
            raise MalformedFile(f"{_where(path, where)}: the name: 1 to 64 letters, digits and . _ + -")
        _expect(path, where, d, dict, "a table")
        _unknown_keys(path, where, d, _DEVICE_KEYS)
        for k in ("constraint", "partition", "baseline", "across", "stand_in"):
            if k in d:
                _expect(path, f"{where}.{k}", d[k], str, "a string")
                if not d[k]:
                    raise MalformedFile(f"{_where(path, f'{where}.{k}')}: empty")
        if "constraint" not in d and "partition" not in d:
            raise FleetError(f"{_where(path, where)}: give a constraint (a node feature) or a partition: where "
                             "its tasks run")
        if d.get("stand_in", "model") not in STAND_INS:
            raise FleetError(f"{_where(path, f'{where}.stand_in')}: unknown device stand-in {d['stand_in']!r} "
                             f"(known: {', '.join(STAND_INS)}: the reference model on the CPU)")
        if d.get("across", "driver") not in ACROSS:
            raise FleetError(f"{_where(path, f'{where}.across')}: {d['across']!r}: expected driver, device or "
                             "device,driver (gate --across)")
        if "probe" in d:
            _str_list(path, f"{where}.probe", d["probe"])
            if not d["probe"]:
                raise MalformedFile(f"{_where(path, f'{where}.probe')}: empty: a command, e.g. [\"nvidia-smi\", \"-L\"]")
        if "probe_every" in d:
            _expect(path, f"{where}.probe_every", d["probe_every"], (int, float), "a number of seconds")
            if not 0.1 <= d["probe_every"] <= 3600:
                raise MalformedFile(f"{_where(path, f'{where}.probe_every')}: {d['probe_every']}: expected 0.1..3600 s")
        if "baseline" in d:
            _check_baseline(path, f"{where}.baseline", d["baseline"], doc["toolchains"])
    for tier in doc["tiers"]:
        if tier in NO_STAND_IN:
            for name, d in devices.items():
                if "stand_in" in d:
                    raise FleetError(f"{_where(path, f'tiers.{tier}')}: device {name} is a stand-in "
                                     f"({d['stand_in']}), and {tier} runs on a GPU only")
    for table, keys in (("cpu", _CPU_KEYS), ("slurm", _SLURM_KEYS), ("kubernetes", _KUBE_KEYS)):
        t = doc.get(table, {})
        _expect(path, table, t, dict, "a table")
        _unknown_keys(path, table, t, keys)
        for k, v in t.items():
            if k == "extra":
                _str_list(path, f"{table}.{k}", v)
            else:
                _expect(path, f"{table}.{k}", v, str, "a string")
    return Plan(path, doc)


def _check_baseline(path, key, value, toolchains):
    """A baseline named by the plan: a file for each toolchain ({toolchain} in the name stands for it; without it
    one file cannot be the baseline of several toolchains)."""
    if len(toolchains) > 1 and "{toolchain}" not in value:
        raise FleetError(f"{_where(path, key)}: {value}: one file for the toolchains {', '.join(toolchains)}: put "
                         "{toolchain} in its name (a baseline is one toolchain's)")
    for tc in toolchains:
        name = value.replace("{toolchain}", tc)
        if not os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(path)), name)):
            raise FleetError(f"{_where(path, key)}: {name}: no such file")


def _check_gate_keys(path, tier, t, toolchains):
    """tiers.<tier>.baseline and .partial: what the collector's gate of the tier is given (fleet/gating.py)."""
    if "partial" in t:
        _expect(path, f"tiers.{tier}.partial", t["partial"], bool, "true or false")
        if tier not in GATED_TIERS:
            raise FleetError(f"{_where(path, f'tiers.{tier}.partial')}: {tier} is not gated (gated: "
                             f"{', '.join(GATED_TIERS)})")
    if "baseline" in t:
        _expect(path, f"tiers.{tier}.baseline", t["baseline"], str, "a string")
        if not t["baseline"]:
            raise MalformedFile(f"{_where(path, f'tiers.{tier}.baseline')}: empty")
        if tier not in CPU_TIERS:
            raise FleetError(f"{_where(path, f'tiers.{tier}.baseline')}: {tier} runs on devices: its baseline is "
                             "each device's (devices.<name>.baseline)" if tier in GATED_TIERS else
                             f"{_where(path, f'tiers.{tier}.baseline')}: {tier} is not gated (gated: "
                             f"{', '.join(GATED_TIERS)})")
        _check_baseline(path, f"tiers.{tier}.baseline", t["baseline"], toolchains)


GATED_TIERS = ("run", "compile", "lower")
# Options the fleet gives each task itself: a plan's args may not set them (--verdicts: the compile tier records
# what its baseline holds, fleet/gating.py).
OWNED_OPTIONS = ("--shard", "--run-id", "--out", "--resume", "--toolchain", "--device", "--device-name", "--seed",
                 "--json", "--gpus", "--verdicts")
