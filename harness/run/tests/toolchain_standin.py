#!/usr/bin/env python3
"""A stand-in for `./ptxcts toolchains resolve --json [NAME|PATH]` (the lead engineer's resolver), for the run
tier's tests and for trees where that verb does not exist yet. The run tier calls it through
PTXCTS_TOOLCHAIN_RESOLVER="python3 harness/run/tests/toolchain_standin.py".

Known names: the installed toolkit's (its ptxas's major.minor, e.g. 13.0; the default), and "12.4", a pretend
older toolchain that knows PTX ISA only up to 8.4 and no target newer than sm_90a (it names the installed ptxas
binary, so it still assembles: only for tests of not_supported). A PATH must be a working ptxas. Prints one JSON
object on stdout and exits 0; else a message on stderr and exit 2."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "generator"))
from ptxcts_gen.targets import CHAPTER_PTX as CHAPTER  # noqa: E402  (the one definition)


def installed_ptxas():
    return shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"


def version_of(ptxas):
    try:
        out = subprocess.run([ptxas, "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"V(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else None


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def key(v):
    return tuple(int(x) for x in v.split("."))


def describe(name, ptxas, version, newest=None, max_sm=None):
    t = json.load(open(os.path.join(ROOT, "generated", "manifest", "targets.json")))
    versions = sorted(set(t["ptx_versions"]) | {"6.3"}, key=key)
    if newest:
        versions = [v for v in versions if key(v) <= key(newest)]
    targets = {}
    for x in t["targets"]:
        if max_sm and x["sm"] > max_sm:
            continue
        if newest and key(x["min_ptx"]) > key(newest):
            continue
        targets[x["name"]] = {"min_ptx": x["min_ptx"]}
    return {"name": name, "ptxas": ptxas, "ptxas_version": version, "ptxas_sha256": sha256(ptxas),
            "nvjitlink": None, "nvjitlink_version": None, "ptx_versions": versions, "newest_ptx": versions[-1],
            "chapter_ptx": CHAPTER, "targets": targets}


def main(argv):
    args = [a for a in argv if a not in ("--json", "toolchains", "resolve")]
    spec = (args[0] if args else "") or os.environ.get("PTXCTS_TOOLCHAIN", "")
    ptxas = installed_ptxas()
    if "/" in spec:
        v = version_of(spec) if os.access(spec, os.X_OK) else None
        if not v:
            sys.stderr.write(f"toolchain '{spec}': not a working ptxas (`{spec} --version` gave no version)\n")
            return 2
        name = ".".join(v.split(".")[:2])
        print(json.dumps(describe(name, os.path.abspath(spec), v)))
        return 0
    v = version_of(ptxas)
    if not v:
        sys.stderr.write(f"no installed ptxas ({ptxas}): install the CUDA toolkit or name a toolchain\n")
        return 2
    here = ".".join(v.split(".")[:2])
    if spec in ("", here):
        print(json.dumps(describe(here, ptxas, v)))
        return 0
    if spec == "12.4":
        print(json.dumps(describe("12.4", ptxas, "12.4.131", newest="8.4", max_sm=90)))
        return 0
    sys.stderr.write(f"unknown toolchain '{spec}' (known: {here}, 12.4)\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
