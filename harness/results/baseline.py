"""Baselines: results/baselines/<arch>.json, the reviewed class of every case key of one architecture.

Format (schema `ptxcts-baseline`, version 1), written sorted with one case per line so a change reviews as a diff:
{
 "schema": "ptxcts-baseline",
 "version": 1,
 "arch": "sm_90",                   // "compile" for the CPU compile tier, else the device architecture
 "tier": "run",                     // "compile" | "run" | "model"
 "source": {"runs": ["<run_id>", ...], "device": "<device name>" | null, "toolchain": {...}},
 "cases": {
  "<id>|<target>|<ptx>|<load_path>|<device sm or ->": "<class>",
  ...
 }
}
"""
import json
import os

from . import jsonloc
from .errors import InputError
from .schema import CLASSES, parse_key_text

SCHEMA = "ptxcts-baseline"
VERSION = 1
FIELDS = ("schema", "version", "arch", "tier", "source", "cases")


def arch_of(tier, device_sm):
    return "compile" if tier == "compile" else ("model" if tier == "model" else device_sm)


def load(path):
    """{key tuple: class} plus the header; raises InputError with file, line and field."""
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
    if doc.get("version") != VERSION:
        fail(["version"], f"baseline version {doc.get('version')!r} is not known to this tool (it reads {VERSION})")
    for name in FIELDS:
        if name not in doc:
            fail([], f"missing field {name!r}")
    extra = sorted(set(doc) - set(FIELDS))
    if extra:
        fail([extra[0]], f"unknown field (a baseline has: {', '.join(FIELDS)})")
    if doc["tier"] not in ("compile", "run", "model"):
        fail(["tier"], f"{doc['tier']!r} is not one of compile, run, model")
    if not isinstance(doc["arch"], str) or not doc["arch"]:
        fail(["arch"], "must be a non-empty string ('compile' or a device architecture like 'sm_90')")
    if not isinstance(doc["source"], dict):
        fail(["source"], "must be an object")
    if not isinstance(doc["cases"], dict):
        fail(["cases"], "must be an object mapping case key to class")
    cases = {}
    for text_key, cls in doc["cases"].items():
        try:
            key = parse_key_text(text_key)
        except ValueError as e:
            fail(["cases", text_key], f"bad case key {text_key!r}: {e}")
        if cls not in CLASSES:
            fail(["cases", text_key], f"{cls!r} is not a result class ({', '.join(CLASSES)})")
        sm = key[4]
        if doc["tier"] == "run" and sm != doc["arch"]:
            fail(["cases", text_key], f"device {sm or '-'} in the key, but this baseline is for {doc['arch']}")
        if doc["tier"] == "compile" and sm is not None:
            fail(["cases", text_key], "a compile-tier key has no device: its last field is '-'")
        cases[key] = cls
    return doc, cases


def dumps(arch, tier, source, cases):
    """Canonical baseline text; `cases` maps key tuple -> class."""
    from .schema import key_text
    head = json.dumps({"schema": SCHEMA, "version": VERSION, "arch": arch, "tier": tier, "source": source},
                      indent=1, sort_keys=False, ensure_ascii=False)[:-2]
    body = ",".join(f"\n  {json.dumps(key_text(k), ensure_ascii=False)}: {json.dumps(c)}"
                    for k, c in sorted(cases.items(), key=lambda kc: key_text(kc[0])))
    return head + ',\n "cases": {' + body + ("\n }\n}\n" if cases else "}\n}\n")


def write(path, arch, tier, source, cases):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = str(path) + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(dumps(arch, tier, source, cases))
    os.replace(tmp, path)
