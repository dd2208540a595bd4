"""Baselines: the reviewed class of every case key of one tier, toolchain and device.

Layout (results/baselines/README.md): one gzip-compressed file per tier and toolchain name, under the device's
architecture for runs on a device:
    results/baselines/<tier>/<toolchain>.json.gz         a run without a device (compile tier: ptxas, nvjitlink)
    results/baselines/<tier>/<sm>/<toolchain>.json.gz    a run on a device (run tier; compile tier, load path driver)
e.g. compile/13.0.json.gz, run/sm_90/13.0.json.gz (`zcat` shows the text; a plain .json given with --baseline is
read as well). The toolchain name is schema.toolchain_name (`toolchain.name`,
else major.minor of `toolchain.ptxas`).

Format (schema `ptxcts-baseline`, version 2), written sorted with one case per line so a change reviews as a diff:
{
 "schema": "ptxcts-baseline",
 "version": 2,
 "tier": "run",                     // "compile" | "run" | "model" | "frontend"
 "toolchain": "13.0",               // the toolchain name
 "sm": "sm_90",                     // the device architecture, or null for a run without a device
 "source": {"runs": ["<run_id>", ...], "device": "<device name>" | null, "toolchain": {...}},
 "cases": {
  "<id>|<target>|<ptx>|<load_path>|<device sm or ->": "<class>",
  "<key of a case whose class flips from run to run>": ["fail", "timeout"],
  ...
 }
}
A list is a class set: a reviewed finding whose class flips between runs of the same tree (the H100's
interleaved loads: fail or timeout). The gate treats the set as one outcome: any class of it is unchanged.
Version 1 (one file per architecture, `arch` = "compile" or the device sm, toolchain only in source) is still
read; the gate writes version 2.
"""
import gzip
import json
import os

from . import jsonloc
from .errors import InputError
from .runio import atomic_write
from .schema import CLASSES, parse_key_text, toolchain_name

SCHEMA = "ptxcts-baseline"
VERSION = 2
READS = (1, 2)
FIELDS = {1: ("schema", "version", "arch", "tier", "source", "cases"),
          2: ("schema", "version", "tier", "toolchain", "sm", "source", "cases")}
TIERS = ("compile", "run", "model", "frontend")


def relative_path(tier, toolchain, sm):
    """Where the baseline of (tier, toolchain name, device sm or None) lives, relative to results/baselines/."""
    return os.path.join(tier, *([sm] if sm else []), f"{toolchain}.json.gz")


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
    header = {"version": version, "tier": doc["tier"], "toolchain": name, "sm": sm, "source": doc["source"]}
    return header, cases


def dumps(tier, toolchain, sm, source, cases):
    """Canonical baseline text (version 2); `cases` maps key tuple -> class, or a tuple of classes (a set)."""
    from .schema import key_text
    head = json.dumps({"schema": SCHEMA, "version": VERSION, "tier": tier, "toolchain": toolchain, "sm": sm,
                       "source": source}, indent=1, sort_keys=False, ensure_ascii=False)[:-2]
    body = ",".join(f"\n  {json.dumps(key_text(k), ensure_ascii=False)}: "
                    f"{json.dumps(sorted(c) if isinstance(c, tuple) else c)}"
                    for k, c in sorted(cases.items(), key=lambda kc: key_text(kc[0])))
    return head + ',\n "cases": {' + body + ("\n }\n}\n" if cases else "}\n}\n")


def outcome(cls):
    """The classes a baseline value stands for: a class, or a class set (tuple)."""
    return set(cls) if isinstance(cls, tuple) else {cls}


def write(path, tier, toolchain, sm, source, cases):
    text = dumps(tier, toolchain, sm, source, cases)
    # gzip without a timestamp: the same baseline is the same bytes
    atomic_write(path, gzip.compress(text.encode("utf-8"), mtime=0) if str(path).endswith(".gz") else text)
