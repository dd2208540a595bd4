"""Baselines: the reviewed class of every case key of one tier, toolchain and device.

Layout (results/baselines/README.md): one gzip-compressed file per tier and toolchain name; a run on a device has
one per device, under the device's architecture and a folder named after the device and its driver branch:
    results/baselines/<tier>/<toolchain>.json.gz                  a run without a device (compile: ptxas, nvjitlink)
    results/baselines/<tier>/<sm>/<device>/<toolchain>.json.gz    a run on a device (run tier; compile tier, load
                                                                  path driver), e.g. run/sm_90/nvidia-h100-80gb-hbm3-r580/13.0.json.gz
(`zcat` shows the text; a plain .json is read as well). The toolchain name is schema.toolchain_name
(`toolchain.name`, else major.minor of `toolchain.ptxas`). A device baseline is chosen by what it claims, its
`device` field, not by its folder (choose): the one whose name, compute capability and driver branch are the run's.

Format (schema `ptxcts-baseline`, version 3), written sorted with one case per line so a change reviews as a diff:
{
 "schema": "ptxcts-baseline",
 "version": 3,
 "tier": "run",                     // "compile" | "run" | "model" | "frontend"
 "toolchain": "13.0",               // the toolchain name
 "sm": "sm_90",                     // the device architecture, or null for a run without a device
 "device": {"name": "NVIDIA H200", "cc": "9.0", "driver_branch": "580"},   // the device it claims (driver_branch
                                    // null where its runs record no driver: a stand-in); null without a device
 "source": {"runs": ["<run_id>", ...], "device": "<device name>" | null, "toolchain": {...}},
 "cases": {
  "<id>|<target>|<ptx>|<load_path>|<device sm or ->": "<class>",
  "<key of a case whose class flips from run to run>": ["fail", "timeout"],
  ...
 }
}
A list is a class set: a reviewed finding whose class flips between runs of the same tree (the H100's
interleaved loads: fail or timeout). The gate treats the set as one outcome: any class of it is unchanged.
Version 1 (one file per architecture, `arch` = "compile" or the device sm, toolchain only in source) and version 2
(no `device`: the claim is read from source.device, source.toolchain.driver and sm) are still read; the gate
writes version 3.
"""
import glob
import gzip
import json
import os
import re

from . import jsonloc
from .errors import InputError, ResultsError, UsageError
from .runio import atomic_write
from .schema import CLASSES, parse_key_text, toolchain_name

SCHEMA = "ptxcts-baseline"
VERSION = 3
READS = (1, 2, 3)
FIELDS = {1: ("schema", "version", "arch", "tier", "source", "cases"),
          2: ("schema", "version", "tier", "toolchain", "sm", "source", "cases"),
          3: ("schema", "version", "tier", "toolchain", "sm", "device", "source", "cases")}
TIERS = ("compile", "run", "model", "frontend")
DEVICE_FIELDS = ("name", "cc", "driver_branch")
_CC = re.compile(r"[0-9]+\.[0-9]+")
_BRANCH = re.compile(r"[0-9]+")


def driver_branch(driver):
    """The branch of a driver version ('580.159.04' -> '580'), or None where none is recorded."""
    head = str(driver or "").split(".")[0]
    return head if _BRANCH.fullmatch(head) else None


def cc_of_sm(sm):
    """The compute capability an architecture names ('sm_90' -> '9.0', 'sm_100' -> '10.0'), or None."""
    m = re.fullmatch(r"sm_([0-9]+)([0-9])[a-z]?", sm or "")
    return f"{m.group(1)}.{m.group(2)}" if m else None


def identity(name, cc, driver):
    """A device as a baseline claims it: {name, cc, driver_branch}."""
    return {"name": name, "cc": cc, "driver_branch": driver_branch(driver)}


def device_of(device, toolchain):
    """The identity of the device a run is of, from a results document's `device` and `toolchain` objects (or a
    merged run's), or None for a run without a device."""
    if not device:
        return None
    return identity(device.get("name"), device.get("cc"), (toolchain or {}).get("driver"))


def describe_device(dev):
    return f"{dev['name']} (cc {dev['cc']}, driver branch {dev['driver_branch'] or '?'})"


def device_folder(dev):
    """The folder a device's baselines are written to: its name in lower case, '-' for the rest, and the branch
    ('NVIDIA H100 80GB HBM3', 580 -> nvidia-h100-80gb-hbm3-r580)."""
    slug = re.sub(r"[^a-z0-9]+", "-", dev["name"].lower()).strip("-") or "device"
    return f"{slug}-r{dev['driver_branch']}" if dev.get("driver_branch") else slug


def relative_path(tier, toolchain, sm, device=None):
    """Where the baseline of (tier, toolchain name, device sm or None[, device identity]) is written, relative to
    results/baselines/: a device's own folder when `device` is given."""
    return os.path.join(tier, *([sm] if sm else []), *([device_folder(device)] if sm and device else []),
                        f"{toolchain}.json.gz")


def locate(baselines_dir, tier, toolchain, sm):
    """The baseline file of (tier, toolchain, sm) under baselines_dir: the .json.gz where it lives, a plain .json
    beside it where only that exists (hand-made or older trees), else the .json.gz to create."""
    path = os.path.join(baselines_dir, relative_path(tier, toolchain, sm))
    plain = path[:-len(".gz")]
    return plain if not os.path.isfile(path) and os.path.isfile(plain) else path


def describe(tier, toolchain, sm):
    return f"{tier} tier, toolchain {toolchain}, " + (f"device {sm}" if sm else "no device")


def load(path):
    """(header, {key tuple: class}); header has tier, toolchain, sm (normalised from version 1 too).
    Raises InputError with file, line and field."""
    path = str(path)
    text = jsonloc.read_text(path)
    doc = jsonloc.load(text, path)

    def fail(at, what):
        field = ".".join(str(p) for p in at)
        raise InputError(path, jsonloc.line_of(text, at), field or None, what)

    if not isinstance(doc, dict):
        fail([], "a baseline is a JSON object")
    if doc.get("schema") != SCHEMA:
        fail(["schema"], f"must be {SCHEMA!r}, found {doc.get('schema')!r}")
    version = doc.get("version")
    if version not in READS or isinstance(version, bool):
        fail(["version"], f"baseline version {version!r} is not known to this tool "
                          f"(it reads {', '.join(map(str, READS))})")
    fields = FIELDS[version]
    for name in fields:
        if name not in doc:
            fail([], f"missing field {name!r}")
    extra = sorted(set(doc) - set(fields))
    if extra:
        fail([extra[0]], f"unknown field (a version {version} baseline has: {', '.join(fields)})")
    if doc["tier"] not in TIERS:
        fail(["tier"], f"{doc['tier']!r} is not one of {', '.join(TIERS)}")
    if not isinstance(doc["source"], dict):
        fail(["source"], "must be an object")
    if not isinstance(doc["cases"], dict):
        fail(["cases"], "must be an object mapping case key to class")
    if version == 1:
        if not isinstance(doc["arch"], str) or not doc["arch"]:
            fail(["arch"], "must be a non-empty string ('compile' or a device architecture like 'sm_90')")
        sm = None if doc["arch"] in ("compile", "model") else doc["arch"]
        name = toolchain_name(doc["source"].get("toolchain"))
    else:
        sm, name = doc["sm"], doc["toolchain"]
        if sm is not None and (not isinstance(sm, str) or not sm.startswith("sm_")):
            fail(["sm"], "must be a device architecture like 'sm_90', or null for a run without a device")
        if not isinstance(name, str) or not name:
            fail(["toolchain"], "must be the toolchain name, e.g. '13.0'")
    device = _claimed_device(doc, version, sm, fail)
    cases = {}
    for text_key, cls in doc["cases"].items():
        try:
            key = parse_key_text(text_key)
        except ValueError as e:
            fail(["cases", text_key], f"bad case key {text_key!r}: {e}")
        if isinstance(cls, list):
            if len(cls) < 2 or len(set(map(str, cls))) != len(cls) or cls != sorted(cls, key=str):
                fail(["cases", text_key], f"a class set is a sorted list of two or more distinct classes, not {cls!r}")
            for c in cls:
                if c not in CLASSES:
                    fail(["cases", text_key], f"{c!r} is not a result class ({', '.join(CLASSES)})")
            cls = tuple(cls)
        elif cls not in CLASSES:
            fail(["cases", text_key], f"{cls!r} is not a result class ({', '.join(CLASSES)})")
        if key[4] != sm:
            fail(["cases", text_key], f"device {key[4] or '-'} in the key, but this baseline is for "
                                      f"{'device ' + sm if sm else 'runs without a device (last field -)'}")
        cases[key] = cls
    header = {"version": version, "tier": doc["tier"], "toolchain": name, "sm": sm, "device": device,
              "source": doc["source"]}
    return header, cases


def _claimed_device(doc, version, sm, fail):
    """The device a baseline claims ({name, cc, driver_branch}), None for a baseline without a device. Version 3
    states it (`device`); older versions are read from source.device, source.toolchain.driver and the sm."""
    if version < 3:
        if sm is None:
            return None
        source = doc["source"]
        name = source.get("device")
        if not isinstance(name, str) or not name:
            fail(["source", "device"], "missing or not a device name: a device baseline names the device it was "
                                       "made on")
        return identity(name, cc_of_sm(sm), (source.get("toolchain") or {}).get("driver"))
    dev = doc["device"]
    if sm is None:
        if dev is not None:
            fail(["device"], "must be null for a baseline without a device (sm is null)")
        return None
    if not isinstance(dev, dict):
        fail(["device"], "must be an object {name, cc, driver_branch}: the device this baseline claims")
    for field in DEVICE_FIELDS:
        if field not in dev:
            fail(["device"], f"missing field {field!r} (a device is {', '.join(DEVICE_FIELDS)})")
    extra = sorted(set(dev) - set(DEVICE_FIELDS))
    if extra:
        fail(["device", extra[0]], f"unknown field (a device is {', '.join(DEVICE_FIELDS)})")
    if not isinstance(dev["name"], str) or not dev["name"].strip():
        fail(["device", "name"], f"must be the device's name as the driver reports it, not {dev['name']!r}")
    if not isinstance(dev["cc"], str) or not _CC.fullmatch(dev["cc"]):
        fail(["device", "cc"], f"must be a compute capability like '9.0', not {dev['cc']!r}")
    if dev["cc"] != cc_of_sm(sm):
        fail(["device", "cc"], f"{dev['cc']!r} is not the compute capability of {sm} ({cc_of_sm(sm)!r})")
    if dev["driver_branch"] is not None and (not isinstance(dev["driver_branch"], str)
                                             or not _BRANCH.fullmatch(dev["driver_branch"])):
        fail(["device", "driver_branch"], f"must be a driver branch like '580' (null for a device whose runs record "
                                          f"no driver: a stand-in), not {dev['driver_branch']!r}")
    return {f: dev[f] for f in DEVICE_FIELDS}


class TwoClaims(ResultsError):
    """Two baselines claim the same device: which one judges it is not for the gate to guess (exit 3)."""


def candidates(baselines_dir, tier, toolchain, sm):
    """[(path, header, cases)] of every baseline of (tier, toolchain, sm) under baselines_dir: for a device, the
    files <tier>/<sm>/*/<toolchain>.json[.gz] (and <tier>/<sm>/<toolchain>.json[.gz], the layout of version 2),
    sorted by path; a .json beside a .json.gz of the same name is not read."""
    base = os.path.join(baselines_dir, tier, sm)
    found = []
    for pattern in (os.path.join(base, f"{toolchain}.json.gz"), os.path.join(base, "*", f"{toolchain}.json.gz"),
                    os.path.join(base, f"{toolchain}.json"), os.path.join(base, "*", f"{toolchain}.json")):
        for path in glob.glob(pattern):
            if path.endswith(".json") and os.path.isfile(path + ".gz"):
                continue
            if os.path.isfile(path):
                found.append(path)
    return [(path, *load(path)) for path in sorted(set(found))]


def claims(dev, run_dev, across=frozenset()):
    """Whether a baseline's device stands for a run's: the same compute capability always, and the same name and
    driver branch unless `across` names 'device' or 'driver'."""
    if dev is None or dev["cc"] != run_dev["cc"]:
        return False
    if "device" not in across and dev["name"] != run_dev["name"]:
        return False
    return "driver" in across or dev["driver_branch"] == run_dev["driver_branch"]


def choose(baselines_dir, tier, toolchain, sm, run_dev, across=frozenset()):
    """The baseline that judges a run of (tier, toolchain, sm) on the device run_dev ({name, cc, driver_branch}):
    (path, header, cases), or None when no baseline claims the device. Without a device (sm None) the one file of
    the tier and toolchain. Two that claim it: TwoClaims (exit 3, both named). With `across`, a baseline of another
    device or driver stands in where the run's own device has none, when exactly one does (else a UsageError
    naming them)."""
    if sm is None:
        path = locate(baselines_dir, tier, toolchain, None)
        return (path, *load(path)) if os.path.isfile(path) else None
    found = candidates(baselines_dir, tier, toolchain, sm)
    for what in (frozenset(), across) if across else (frozenset(),):
        own = [c for c in found if claims(c[1]["device"], run_dev, what)]
        if len(own) > 1 and not what:
            raise TwoClaims(f"two baselines claim the device {describe_device(run_dev)} for the "
                            f"{describe(tier, toolchain, sm)}: {own[0][0]} and {own[1][0]}: keep one (the device, "
                            "compute capability and driver branch a baseline claims are its `device` field)")
        if len(own) > 1:
            raise UsageError(f"--across {','.join(sorted(what))}: {len(own)} baselines could judge this run of "
                             f"{describe_device(run_dev)}: {', '.join(c[0] for c in own)}; give one with --baseline FILE")
        if own:
            return own[0]
    return None


def dumps(tier, toolchain, sm, source, cases, device=None):
    """Canonical baseline text (version 3); `cases` maps key tuple -> class, or a tuple of classes (a set);
    `device` the identity it claims (None without a device)."""
    from .schema import key_text
    head = json.dumps({"schema": SCHEMA, "version": VERSION, "tier": tier, "toolchain": toolchain, "sm": sm,
                       "device": device, "source": source}, indent=1, sort_keys=False, ensure_ascii=False)[:-2]
    body = ",".join(f"\n  {json.dumps(key_text(k), ensure_ascii=False)}: "
                    f"{json.dumps(sorted(c) if isinstance(c, tuple) else c)}"
                    for k, c in sorted(cases.items(), key=lambda kc: key_text(kc[0])))
    return head + ',\n "cases": {' + body + ("\n }\n}\n" if cases else "}\n}\n")


def outcome(cls):
    """The classes a baseline value stands for: a class, or a class set (tuple)."""
    return set(cls) if isinstance(cls, tuple) else {cls}


def write(path, tier, toolchain, sm, source, cases, device=None):
    text = dumps(tier, toolchain, sm, source, cases, device)
    # gzip without a timestamp: the same baseline is the same bytes
    atomic_write(path, gzip.compress(text.encode("utf-8"), mtime=0) if str(path).endswith(".gz") else text)
