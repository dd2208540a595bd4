"""The fleet's own records in the results tree, each written atomically (a temporary file in the same folder, then
a rename: a reader on another node sees the old file or the whole new one):

* `RESULTS/fleet.json` -- the submission: schema `ptxcts-fleet` version 1, the plan (as loaded), the checkout
  the jobs run, the groups (fleet/tasks.py), the scheduler and every job submitted for them (`jobs`, in order:
  the first submission, then each requeue), and `collected` once a collector has finished.
* `RESULTS/runs/<group>/shard-<i>/task.json` -- schema `ptxcts-fleet-task` version 1, written by the task itself:
  `state` (running, finished, partial, failed), `reason` (why it is not finished), `exit`, `started`, `ended`,
  `host`, `job` (the scheduler's id of the task), `restarts`, `attempts` (one row per start: what it ran, how it
  ended).

The shard's own document (results.json, explore.json, ...) is the truth about its cases; task.json says why a
shard is partial or missing where the document cannot (a task that never started, a GPU lost, a tier that
crashed before writing).
"""
import json
import os
import tempfile
import time

from fleet import tasks as taskmod
from fleet.errors import FleetError, MalformedFile
from framework.documents import jsonloc
from framework.documents.errors import InputError

SCHEMA = "ptxcts-fleet"
TASK_SCHEMA = "ptxcts-fleet-task"
VERSION = 1
STATES = ("running", "finished", "partial", "failed")


def now_iso():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def write_json(path, doc):
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def read_json(path, what):
    """The JSON document at path, read by the one JSON reader (framework/documents/jsonloc: no NaN, no duplicate
    key, nesting it cannot follow refused naming the file); MalformedFile (exit 3) naming path and line."""
    try:
        return jsonloc.load(jsonloc.read_text(path), path)
    except InputError as e:
        raise MalformedFile(f"{e} (not a {what})") from None


def fleet_path(results):
    return os.path.join(results, "fleet.json")


def load(results):
    """The submission record of a results tree; FleetError when the folder holds none."""
    path = fleet_path(results)
    if not os.path.isdir(results):
        raise FleetError(f"{results}: no such folder (a results tree written by ./ptxcts fleet submit)")
    if not os.path.exists(path):
        raise FleetError(f"{results}: holds no fleet.json (not a results tree of ./ptxcts fleet submit)")
    doc = read_json(path, "fleet record")
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise MalformedFile(f"{path}: schema: expected {SCHEMA!r}")
    if doc.get("version") != VERSION:
        raise MalformedFile(f"{path}: version: {doc.get('version')!r}: this tool reads version {VERSION}")
    for key, kind in (("plan", dict), ("groups", list), ("jobs", list), ("results", str), ("root", str)):
        if not isinstance(doc.get(key), kind):
            raise MalformedFile(f"{path}: {key}: missing or not a {kind.__name__}")
    return doc


def save(record):
    write_json(fleet_path(record["results"]), record)


def group(record, gid):
    for g in record["groups"]:
        if g["id"] == gid:
            return g
    raise FleetError(f"{gid!r}: not a group of this plan (its groups: {', '.join(g['id'] for g in record['groups'])})")


def task_path(record, g, index):
    return os.path.join(taskmod.shard_dir(record["results"], g, index), "task.json")


def read_task(record, g, index):
    path = task_path(record, g, index)
    if not os.path.exists(path):
        return None
    doc = read_json(path, "task record")
    if not isinstance(doc, dict) or doc.get("schema") != TASK_SCHEMA or doc.get("state") not in STATES:
        raise MalformedFile(f"{path}: not a {TASK_SCHEMA} record (schema, state)")
    return doc


def shard_document(record, g, index):
    """The path of the document task `index` wrote, or None."""
    d = taskmod.shard_dir(record["results"], g, index)
    name = taskmod.DOCUMENT[g["tier"]]
    for candidate in (name, name + ".gz"):
        if os.path.exists(os.path.join(d, candidate)):
            return os.path.join(d, candidate)
    return None


def document_partial(path):
    """A run, compile or lower document's `partial` field ({reason, done, total}) or None; an exploration's
    `interrupted`. Reads only the head of the document (results.json keeps one case per line after it)."""
    if path is None or path.endswith(".gz"):
        return None
    doc = read_json(path, "run document")
    if not isinstance(doc, dict):
        raise MalformedFile(f"{path}: not a JSON object")
    p = doc.get("partial")
    if isinstance(p, dict):
        return p
    if doc.get("interrupted") is True:
        return {"reason": "interrupted"}
    return None


def document_cases(path):
    """How many cases a run-tier style document holds (len(cases)), or None for other documents."""
    if path is None or path.endswith(".gz"):
        return None
    doc = read_json(path, "run document")
    cases = doc.get("cases") if isinstance(doc, dict) else None
    return len(cases) if isinstance(cases, list) else None


def shard_state(record, g, index):
    """What the results tree says of one task: (state, reason, task record or None) with state one of
    finished, partial, failed, running, missing (no document and no task record: it never ran)."""
    task = read_task(record, g, index)
    doc = shard_document(record, g, index)
    partial = document_partial(doc) if g["tier"] in ("run", "compile", "lower", "explore") else None
    if task is not None and task["state"] == "running":
        return "running", task.get("reason", ""), task
    if doc is None:
        if task is None:
            return "missing", "never ran (no document, no task record)", None
        return task["state"] if task["state"] != "finished" else "failed", \
            task.get("reason") or "the tier wrote no document", task
    if partial is not None:
        reason = task.get("reason") if task and task.get("reason") else partial.get("reason", "partial")
        return "partial", reason, task
    if task is not None and task["state"] in ("partial", "failed"):
        return task["state"], task.get("reason", ""), task
    return "finished", "", task
