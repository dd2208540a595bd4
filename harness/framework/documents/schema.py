"""The result document of one run (docs/ARCHITECTURE.md section 3): schema `ptxcts-results`, version 2.

Reading validates every field and names the file, line and field of the first one that is wrong; an unknown
schema version is rejected. A change to the document's fields bumps VERSION; the reader keeps accepting each
older version it knows (READS).

Version 2 adds, over version 1 (a version-1 document is a valid version-2 document, so nothing is converted):
* the class `beyond_chapter` (an invalid case a newer toolchain accepts at a PTX ISA version newer than the
  chapter the suite models: not a failure, not a finding);
* the compile-tier load paths `nvjitlink` and `driver` (the driver JIT's verdict on a GPU: the document then
  names that device);
* in `toolchain`, the optional fields `name` ("13.0", the toolchain's name; baselines are keyed by it), `ptxas`
  (version), `ptxas_path`, `ptxas_sha256`, `nvjitlink` (version or null), beside `cuda_runtime` and `driver`;
* the optional top-level `partial`: {"reason", "done", "total"} for a run that stopped before its end;
* the optional top-level `timing`: where the run's time went, one object per batch (load path and target): its
  cases and workers, the seconds of the batch itself, of the crashes and timeouts run again alone, and of the
  cases expected to trap (how many at once, and those run again alone), and when its calm and trap phases
  began (`calm_at_s`, `trap_at_s`: overlapped, trap phases run beside calm ones); see TIMING_FIELDS and
  TIMING_OPTIONAL_FIELDS.
* the tier `frontend` (harness/frontend: a compiler front-end's PTX for each compile case, judged by the ISA model
  and assembled by its paired ptxas), with load paths `llvm` and `nvrtc` (the front-end's kind; `toolchain.name`
  is the front-end's name, e.g. "llvm-22"); its case IDs are compile case IDs;
A version-1 document using any of these is rejected, naming the field and the version that has it.

The lowering tier (`lower`, harness/lower) writes version-2 documents with load path `sass`, the toolchain's
disassembler in `toolchain.nvdisasm` / `nvdisasm_path`, and one class of its own, `unruled` (the SASS contradicts
no lowering rule, but a part of it is decided by none): valid in a `lower` document only, never a pass.
"""
import datetime
import json
import os
import re

from . import jsonloc
from .errors import InputError

SCHEMA = "ptxcts-results"
VERSION = 2
READS = (1, 2)  # versions this reader accepts; write_run writes VERSION

# A run ID names folders (results/<run ID>/, $PTXCTS_RESCUE/<run ID>/): a file name's characters, and short enough
# to be one (NAME_MAX is 255 bytes; a stamp and a label need far fewer)
RUN_ID_MAX = 200


def run_id_problem(value):
    """None for a run ID this schema takes, else what is wrong with it (the document's field, merge --run-id)."""
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z0-9._:+-]+", value):
        return "must be a non-empty string of letters, digits and . _ : + -"
    if len(value) > RUN_ID_MAX:
        return f"{len(value)} characters: a run ID names a folder, at most {RUN_ID_MAX}"
    return None


# The closed set of result classes, in the order reports show them.
CLASSES = ("pass", "fail", "spec_divergence", "beyond_chapter", "unruled", "not_supported", "compile_error", "crash",
           "timeout", "skipped")
# Classes only one tier writes: {class: tier}.
TIER_CLASSES = {"unruled": "lower"}
# Classes that are findings: listed with their replay command, and a case in one of them never counts as passed.
FINDINGS = ("fail", "spec_divergence", "compile_error", "crash", "timeout")
# A front-end's whole kernel on silicon (`./ptxcts frontend whole-run`'s results.jsonl, the report's --whole): its
# classes in the order the tables show them, and those that are not a pass (a kernel of them is named).
WHOLE_CLASSES = ("pass", "fail", "crash", "timeout", "compile_error", "spec_divergence", "skipped")
WHOLE_NOT_PASSING = ("fail", "crash", "timeout", "compile_error")
TIERS = ("compile", "run", "model", "frontend", "lower")
LOAD_PATHS = {"compile": ("ptxas", "nvjitlink", "driver"), "run": ("cubin", "jit"), "lower": ("sass",),
              "model": ("ptxas", "nvjitlink", "driver", "cubin", "jit", "host"),
              "frontend": ("llvm", "nvrtc", "triton", "cute-dsl")}
# What version 2 added (rejected in a version-1 document).
V2_CLASSES = ("beyond_chapter",)
V2_LOAD_PATHS = ("nvjitlink", "driver", "llvm", "nvrtc", "triton", "cute-dsl")
TOOLCHAIN_FIELDS = {"name": str, "ptxas": str, "ptxas_path": str, "ptxas_sha256": str, "nvjitlink": str,
                    "cuda_runtime": str, "driver": str, "nvdisasm": str, "nvdisasm_path": str}

_TARGET = re.compile(r"sm_[0-9]{2,3}[af]?")
_DEVICE_SM = re.compile(r"sm_[0-9]{2,3}")
_PTX = re.compile(r"[0-9]+\.[0-9]")
_CC = re.compile(r"[0-9]+\.[0-9]+")
_TOOLCHAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")

CASE_REQUIRED = {"id": str, "family": str, "form": str, "target": str, "ptx": str, "load_path": str, "class": str}
MAX_DURATION_MS = 31 * 86400 * 1000.0   # a case's duration: no run of any tier lasts a month
CASE_OPTIONAL = {"duration_ms": (int, float), "message": str, "replay": str, "details": dict}
# how a run's cases are dealt to its shards (ptxcts-run --shard-deal; absent: the first)
SHARD_DEALS = ("round-robin", "traps")
TOP_FIELDS = ("schema", "version", "run_id", "tier", "started", "finished", "seed", "shard", "host", "toolchain",
              "device", "cases")
OPTIONAL_TOP = ("partial", "timing")  # version 2
PARTIAL_FIELDS = {"reason": str, "done": int, "total": int}
TIMING_FIELDS = {"load_path": str, "target": str, "cases": int, "workers": int, "batch_s": (int, float),
                 "rerun_alone": int, "rerun_s": (int, float), "traps": int, "trap_s": (int, float)}
# Written since the trap phase runs its cases beside each other (harness/run --trap-jobs); older runs lack them.
TIMING_OPTIONAL_FIELDS = {"trap_workers": int, "trap_rerun_alone": int, "trap_rerun_s": (int, float),
                          "calm_at_s": (int, float), "trap_at_s": (int, float)}


def result_key(case, doc):
    """The merge key of a result: (id, target, ptx, load_path, device.sm); device.sm is None without a device."""
    device = doc.get("device")
    return (case["id"], case["target"], case["ptx"], case["load_path"], device["sm"] if device else None)


def key_text(key):
    """The key as one string, as baselines store it: id|target|ptx|load_path|sm ('-' for no device)."""
    return "|".join(k if k is not None else "-" for k in key)


def parse_key_text(text):
    parts = text.split("|")
    if len(parts) != 5 or not all(parts):
        raise ValueError("a case key is 'id|target|ptx|load_path|sm' (sm '-' without a device)")
    return tuple(parts[:4]) + (None if parts[4] == "-" else parts[4],)


def compile_case_id(form, target, ptx):
    return f"{form}@{target}.ptx{ptx.replace('.', '')}"


def target_sort_key(target):
    """sm_90 < sm_90a < sm_90f < sm_100 ...; anything unparsable sorts last, by name."""
    m = re.fullmatch(r"sm_([0-9]+)([af]?)", target or "")
    if not m:
        return (1 << 30, 9, target or "")
    return (int(m.group(1)), "_af".index(m.group(2) or "_"), target)


def _when(value):
    """An ISO-8601 time as a comparable UTC datetime (a time without a zone is taken as UTC)."""
    t = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return t if t.tzinfo else t.replace(tzinfo=datetime.timezone.utc)


def _iso(value):
    if not isinstance(value, str):
        return False
    try:
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return True
    except ValueError:
        return False


MAX_SEED = 2 ** 64 - 1   # the tiers' --seed: an unsigned 64-bit integer


def _shown(value):
    """A value for a message: a number of hundreds of digits shown by its size, not in full."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:12]}...({len(text)} digits)"


class _Checker:
    def __init__(self, text, file):
        self.text, self.file = text, file

    def fail(self, path, what):
        field = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else p) for i, p in enumerate(path))
        raise InputError(self.file, jsonloc.line_of(self.text, path) if self.text is not None else None, field, what)


def validate(doc, file="results.json", text=None):
    """Check a result document; raise InputError naming file, line and field of the first problem."""
    c = _Checker(text, file)
    if not isinstance(doc, dict):
        c.fail([], "the document must be a JSON object")
    if doc.get("schema") != SCHEMA:
        c.fail(["schema"], f"must be {SCHEMA!r}, found {doc.get('schema')!r}")
    version = doc.get("version")
    if version not in READS or isinstance(version, bool):
        c.fail(["version"], f"schema {SCHEMA} version {version!r} is not known to this tool "
                            f"(it reads versions {', '.join(map(str, READS))}); use the ptx-cts release that wrote it")
    for name in TOP_FIELDS:
        if name not in doc:
            c.fail([], f"missing field {name!r}")
    extra = sorted(set(doc) - set(TOP_FIELDS) - set(OPTIONAL_TOP))
    if extra:
        c.fail([extra[0]], f"unknown field (version {VERSION} has: {', '.join(TOP_FIELDS + OPTIONAL_TOP)})")
    if "partial" in doc:
        if version < 2:
            c.fail(["partial"], "a field of version 2 documents; this one says version 1")
        _validate_partial(c, doc["partial"])
    if "timing" in doc:
        if version < 2:
            c.fail(["timing"], "a field of version 2 documents; this one says version 1")
        _validate_timing(c, doc["timing"])
    if wrong := run_id_problem(doc["run_id"]):
        c.fail(["run_id"], wrong)
    tier = doc["tier"]
    if tier not in TIERS:
        c.fail(["tier"], f"{tier!r} is not one of {', '.join(TIERS)}")
    for name in ("started", "finished"):
        if not _iso(doc[name]):
            c.fail([name], f"{doc[name]!r} is not an ISO-8601 date and time")
    if _when(doc["finished"]) < _when(doc["started"]):
        c.fail(["finished"], f"{doc['finished']} is before started ({doc['started']}): a run finishes after it starts")
    if doc["seed"] is not None and (not isinstance(doc["seed"], int) or isinstance(doc["seed"], bool)):
        c.fail(["seed"], "must be an integer or null")
    if doc["seed"] is not None and not 0 <= doc["seed"] <= MAX_SEED:
        c.fail(["seed"], f"{_shown(doc['seed'])}: out of range (a seed is from 0 to 2^64-1 = {MAX_SEED}, as the "
                         "tiers' --seed takes it)")
    shard = doc["shard"]
    if not isinstance(shard, dict) or not {"index", "count"} <= set(shard) <= {"index", "count", "deal"}:
        c.fail(["shard"], 'must be {"index": i, "count": n} or {"index": i, "count": n, "deal": d}')
    if shard.get("deal", SHARD_DEALS[0]) not in SHARD_DEALS:
        c.fail(["shard", "deal"], f"{shard['deal']!r} is not one of {', '.join(SHARD_DEALS)} (ptxcts-run --shard-deal)")
    for name in ("index", "count"):
        if not isinstance(shard[name], int) or isinstance(shard[name], bool):
            c.fail(["shard", name], "must be an integer")
    if shard["count"] < 1 or not 0 <= shard["index"] < shard["count"]:
        c.fail(["shard"], f"index {shard['index']} of count {shard['count']}: need 0 <= index < count")
    for name in ("host", "toolchain"):
        if not isinstance(doc[name], dict):
            c.fail([name], "must be an object")
    cpus = doc["host"].get("cpus")
    if cpus is not None and (not isinstance(cpus, int) or isinstance(cpus, bool) or cpus < 1):
        c.fail(["host", "cpus"], f"{cpus!r}: must be a whole number of CPUs >= 1, or null")
    for name, kind in TOOLCHAIN_FIELDS.items():
        value = doc["toolchain"].get(name)
        if value is not None and (not isinstance(value, kind) or not value):
            c.fail(["toolchain", name], "must be a non-empty string or null")
    name = doc["toolchain"].get("name")
    if name is not None and not _TOOLCHAIN_NAME.fullmatch(name):
        c.fail(["toolchain", "name"], f"{name!r} is not a toolchain name like '13.0' (letters, digits, . _ + -; "
                                      "baseline files are named after it)")
    device = doc["device"]
    driver_cases = tier == "compile" and isinstance(doc["cases"], list) and any(
        isinstance(x, dict) and x.get("load_path") == "driver" for x in doc["cases"])
    if tier == "run" and device is None:
        pass  # a run tier on a machine without a GPU: allowed, but then every case is skipped (checked below)
    elif tier == "compile" and device is not None and not driver_cases:
        c.fail(["device"], "must be null for the compile tier, unless it holds driver JIT verdicts (load path "
                           "'driver'), which name their device")
    elif tier == "run" or (tier == "compile" and driver_cases):
        # the compile tier names a device only for the driver JIT's verdicts (load path `driver`)
        if not isinstance(device, dict):
            c.fail(["device"], "the run tier, and a compile run with load path 'driver', need a device object "
                               "{name, sm, cc} (the run tier may say null: nothing attempted)")
        for name in ("name", "sm", "cc"):
            if not isinstance(device.get(name), str) or not device.get(name):
                c.fail(["device", name], "missing or not a non-empty string")
        if not _DEVICE_SM.fullmatch(device["sm"]):
            c.fail(["device", "sm"], f"{device['sm']!r} is not a device architecture like 'sm_90'")
        if not _CC.fullmatch(device["cc"]):
            c.fail(["device", "cc"], f"{device['cc']!r} is not a compute capability like '9.0'")
    elif device is not None:
        c.fail(["device"], f"must be null for the {tier} tier")
    cases = doc["cases"]
    if not isinstance(cases, list):
        c.fail(["cases"], "must be an array")
    seen = {}
    paths = LOAD_PATHS[tier]
    for i, case in enumerate(cases):
        _validate_case(c, i, case, tier, paths)
        if version < 2 and (case["class"] in V2_CLASSES or case["load_path"] in V2_LOAD_PATHS):
            what = "class" if case["class"] in V2_CLASSES else "load_path"
            c.fail(["cases", i, what], f"{case[what]!r} exists from version 2 of {SCHEMA}; this document says "
                                       "version 1 (write it with results.write_run, which writes the current version)")
        key = result_key(case, doc)
        if key in seen:
            c.fail(["cases", i], f"the key {key_text(key)} is also cases[{seen[key]}]: a run has each key once")
        seen[key] = i
        if tier == "run" and device is None and case["class"] != "skipped":
            c.fail(["cases", i, "class"], f"{case['class']!r} in a run without a device (device is null): "
                                          "only 'skipped' is possible there")
    return doc


def _validate_partial(c, partial):
    if not isinstance(partial, dict):
        c.fail(["partial"], 'must be {"reason": "...", "done": N, "total": M}')
    for name, kind in PARTIAL_FIELDS.items():
        value = partial.get(name)
        if not isinstance(value, kind) or isinstance(value, bool) or (kind is str and not value):
            c.fail(["partial", name] if name in partial else ["partial"],
                   f"missing or not a {'non-empty string' if kind is str else 'integer'}: {name!r}")
    extra = sorted(set(partial) - set(PARTIAL_FIELDS))
    if extra:
        c.fail(["partial", extra[0]], f"unknown field (partial has: {', '.join(PARTIAL_FIELDS)})")
    if not 0 <= partial["done"] <= partial["total"]:
        c.fail(["partial"], f"done {partial['done']} of total {partial['total']}: need 0 <= done <= total")


def _validate_timing(c, timing):
    if not isinstance(timing, list):
        c.fail(["timing"], "must be a list of batch timings")
    for i, t in enumerate(timing):
        if not isinstance(t, dict):
            c.fail(["timing", i], "must be an object")
        for name, kind in {**TIMING_FIELDS, **{k: v for k, v in TIMING_OPTIONAL_FIELDS.items() if k in t}}.items():
            value = t.get(name)
            if not isinstance(value, kind) or isinstance(value, bool) or (
                    not isinstance(value, str) and not 0 <= value < float("inf")):
                c.fail(["timing", i, name] if name in t else ["timing", i],
                       f"missing, of the wrong type or negative: {name!r}")
        extra = sorted(set(t) - set(TIMING_FIELDS) - set(TIMING_OPTIONAL_FIELDS))
        if extra:
            c.fail(["timing", i, extra[0]],
                   f"unknown field (a batch timing has: {', '.join([*TIMING_FIELDS, *TIMING_OPTIONAL_FIELDS])})")


def toolchain_name(toolchain):
    """The toolchain's name: `toolchain.name` when the document records it, else the major.minor of
    `toolchain.ptxas` ("13.0.88" -> "13.0"), else of `toolchain.cuda_runtime`; None when none is recorded.
    Documents written before version 2 carry no name: this is how they are keyed (baselines, report columns)."""
    toolchain = toolchain or {}
    if toolchain.get("name"):
        return toolchain["name"]
    for field in ("ptxas", "cuda_runtime"):
        m = re.match(r"([0-9]+)\.([0-9]+)", str(toolchain.get(field) or ""))
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return None


def _validate_case(c, i, case, tier, paths):
    at = ["cases", i]
    if not isinstance(case, dict):
        c.fail(at, "must be an object")
    for name, kind in CASE_REQUIRED.items():
        if not isinstance(case.get(name), kind) or not case.get(name):
            c.fail(at + [name] if name in case else at, f"missing or not a non-empty string: {name!r}")
    for name, kind in CASE_OPTIONAL.items():
        if name in case and (not isinstance(case[name], kind) or isinstance(case[name], bool)):
            c.fail(at + [name], f"must be of type {kind.__name__ if isinstance(kind, type) else 'number'}")
    extra = sorted(set(case) - set(CASE_REQUIRED) - set(CASE_OPTIONAL))
    if extra:
        c.fail(at + [extra[0]], "unknown field (put run-specific data under 'details')")
    cls = case["class"]
    if cls not in CLASSES:
        c.fail(at + ["class"], f"{cls!r} is not a result class ({', '.join(CLASSES)})")
    if cls in TIER_CLASSES and tier != TIER_CLASSES[cls]:
        c.fail(at + ["class"], f"{cls!r} is a class of the {TIER_CLASSES[cls]} tier only; this is a {tier} document")
    if not _TARGET.fullmatch(case["target"]):
        c.fail(at + ["target"], f"{case['target']!r} is not a target like 'sm_90a'")
    if not _PTX.fullmatch(case["ptx"]):
        c.fail(at + ["ptx"], f"{case['ptx']!r} is not a PTX ISA version like '8.6'")
    if case["load_path"] not in paths:
        c.fail(at + ["load_path"], f"{case['load_path']!r} is not a load path of the {tier} tier ({', '.join(paths)})")
    if "@" in case["form"]:
        c.fail(at + ["form"], "a form ID never contains '@'")
    if tier in ("compile", "frontend"):
        want = compile_case_id(case["form"], case["target"], case["ptx"])
        if case["id"] != want:
            c.fail(at + ["id"], f"a compile case ID is <form>@<target>.ptx<MM>: expected {want!r}")
    elif tier == "run" and not case["id"].startswith(case["form"] + "#"):
        c.fail(at + ["id"], f"a run case ID is <form>#<variant>; it does not start with {case['form'] + '#'!r}")
    if "duration_ms" in case and not 0 <= case["duration_ms"] <= MAX_DURATION_MS:
        c.fail(at + ["duration_ms"], f"{_shown(case['duration_ms'])}: must be a number of milliseconds from 0 to "
                                     f"{MAX_DURATION_MS:.0f} (31 days: no run lasts longer)")
    if cls in FINDINGS and not case.get("replay"):
        c.fail(at, f"a {cls} result needs a 'replay' command that replays this case alone")
    if cls == "not_supported" and not case.get("message"):
        c.fail(at, "a not_supported result needs a 'message' giving the reason")


def load(path):
    """Read and validate a results.json (or a folder holding one)."""
    path = str(path)
    if os.path.isdir(path):
        path = os.path.join(path, "results.json")
        if not os.path.isfile(path) and os.path.isfile(path + ".gz"):
            path += ".gz"
    text = jsonloc.read_text(path)
    doc = jsonloc.load(text, path)
    validate(doc, path, text)
    twin = path[:-3] if path.endswith(".gz") else path + ".gz"
    if os.path.isfile(twin):   # results.json beside results.json.gz: two copies of one run must say the same
        twin_doc = jsonloc.load(jsonloc.read_text(twin), twin)
        if twin_doc != doc:
            raise InputError(twin, None, None, f"differs from {path} (the same run twice, with different contents: "
                                               "remove the stale one)")
    return doc


def dumps(doc):
    """Canonical text: header fields indented, one case per line, cases sorted by key (diffable, deterministic)."""
    head = {k: doc[k] for k in TOP_FIELDS + OPTIONAL_TOP if k != "cases" and k in doc}
    cases = sorted(doc["cases"], key=lambda case: tuple(x or "" for x in result_key(case, doc)))
    lines = json.dumps(head, indent=1, ensure_ascii=False)[:-2].split("\n")
    out = "\n".join(lines) + ',\n "cases": ['
    out += ",".join("\n  " + json.dumps(case, sort_keys=True, ensure_ascii=False) for case in cases)
    return out + ("\n ]\n}\n" if cases else "]\n}\n")
