"""Repro bundles: one folder per failing case, checked complete and packed into a .tar.gz small enough to attach.

Layout (the run tier writes it; results/README.md documents it for users):
  <folder>/case.json     schema "ptxcts-bundle" version 1 (fields below)
  <folder>/module.ptx    the PTX module that was loaded (.version, .target, the kernel's .entry)
  <folder>/inputs/...    every input image the case was run with (global source, window images, ...)
  <folder>/expected.bin  the bytes the reference model expects (all compared regions, in the run tier's order)
  <folder>/actual.bin    the bytes the device produced, same layout (required for fail and spec_divergence)
  <folder>/README.txt    what failed, how to replay it, what each file is
case.json fields: schema, version, id, form, family, target, ptx, load_path, class (a finding class), message,
seed (integer), replay (one line that replays this case alone, naming its ID), kernel (entry name), device,
toolchain, tensor_map (the encode parameters; required, non-null, for tensor families), args (the ABI words by
name, optional), inputs (paths relative to the folder, at least one).
"""
import gzip
import io
import json
import os
import tarfile

from .errors import InputError, UsageError
from .schema import FINDINGS, LOAD_PATHS

SCHEMA = "ptxcts-bundle"
VERSION = 1
MAX_BYTES = 10 * 1024 * 1024  # 10 MiB packed: within the attachment limits of common bug trackers
REQUIRED = {"schema": str, "version": int, "id": str, "form": str, "family": str, "target": str, "ptx": str,
            "load_path": str, "class": str, "message": str, "seed": int, "replay": str, "kernel": str,
            "device": dict, "toolchain": dict, "inputs": list}
OPTIONAL = {"tensor_map": (dict, type(None)), "args": dict}
TENSOR_FAMILIES = ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor")


def check(folder):
    """Raise InputError naming the file and field of the first thing missing or wrong; return case.json."""
    folder = str(folder)
    if not os.path.isdir(folder):
        raise UsageError(f"{folder}: not a folder")
    cj = os.path.join(folder, "case.json")
    if not os.path.isfile(cj):
        raise InputError(cj, None, None, "missing: every bundle has a case.json")
    from . import jsonloc
    with open(cj, encoding="utf-8") as f:
        text = f.read()
    case = jsonloc.load(text, cj)

    def fail(field, what, file=cj):
        raise InputError(file, jsonloc.line_of(text, [field]) if file == cj and field else None, field, what)

    if not isinstance(case, dict):
        fail(None, "case.json must be a JSON object")
    if case.get("schema") != SCHEMA:
        fail("schema", f"must be {SCHEMA!r}")
    if case.get("version") != VERSION:
        fail("version", f"bundle version {case.get('version')!r} is not known to this tool (it reads {VERSION})")
    for name, kind in REQUIRED.items():
        if name not in case:
            fail(None, f"missing field {name!r}")
        if not isinstance(case[name], kind) or isinstance(case[name], bool):
            fail(name, f"must be of type {kind.__name__}")
    for name, kind in OPTIONAL.items():
        if name in case and not isinstance(case[name], kind):
            fail(name, "has the wrong type")
    if case["class"] not in FINDINGS:
        fail("class", f"{case['class']!r}: a bundle is for a finding ({', '.join(FINDINGS)})")
    if case["load_path"] not in LOAD_PATHS["run"]:
        fail("load_path", f"{case['load_path']!r} is not cubin or jit")
    replay = case["replay"].strip()
    if not replay or "\n" in replay:
        fail("replay", "must be one non-empty line")
    if case["id"] not in replay:
        fail("replay", f"does not name the case ID {case['id']!r}: it must replay this case alone")
    if case["form"].startswith(TENSOR_FAMILIES) and not case.get("tensor_map"):
        fail("tensor_map", "a tensor-family case needs its tensor-map parameters")

    module = os.path.join(folder, "module.ptx")
    _file(module, "the PTX module")
    with open(module, encoding="utf-8", errors="replace") as f:
        ptx = f.read()
    for needle in (".version", ".target", ".entry", case["kernel"]):
        if needle not in ptx:
            raise InputError(module, None, None, f"does not contain {needle!r}")
    if not case["inputs"]:
        fail("inputs", "lists no input file")
    for rel in case["inputs"]:
        if not isinstance(rel, str) or os.path.isabs(rel) or ".." in rel.split("/"):
            fail("inputs", f"{rel!r} must be a path inside the bundle folder")
        _file(os.path.join(folder, rel), "an input named in case.json inputs")
    expected, actual = os.path.join(folder, "expected.bin"), os.path.join(folder, "actual.bin")
    if case["class"] in ("fail", "spec_divergence"):
        _file(expected, "the bytes the reference model expects")
        _file(actual, "the bytes the device produced")
        with open(expected, "rb") as a, open(actual, "rb") as b:
            if a.read() == b.read():
                raise InputError(actual, None, None, f"equals expected.bin, yet the class is {case['class']}")
    _file(os.path.join(folder, "README.txt"), "the bundle's README")
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            if os.path.islink(p):
                raise InputError(p, None, None, "a bundle holds plain files only (no links)")
    return case


def _file(path, what):
    if not os.path.isfile(path):
        raise InputError(path, None, None, f"missing ({what})")
    if os.path.getsize(path) == 0:
        raise InputError(path, None, None, f"empty ({what})")


def pack(folder, out, max_bytes=MAX_BYTES):
    """Check, then write a deterministic .tar.gz (sorted members, zero times and owners). Returns its size."""
    check(folder)
    folder = os.path.abspath(str(folder))
    base = os.path.basename(folder.rstrip("/"))
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            paths = [folder]
            for root, dirs, files in os.walk(folder):
                dirs.sort()
                paths += [os.path.join(root, d) for d in dirs] + [os.path.join(root, f) for f in sorted(files)]
            for p in sorted(paths):
                info = tar.gettarinfo(p, arcname=os.path.join(base, os.path.relpath(p, folder)).rstrip("/."))
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                info.mode = 0o755 if info.isdir() else 0o644
                if info.isdir():
                    tar.addfile(info)
                else:
                    with open(p, "rb") as f:
                        tar.addfile(info, f)
    data = buf.getvalue()
    if len(data) > max_bytes:
        sizes = sorted(((os.path.getsize(os.path.join(r, f)), os.path.relpath(os.path.join(r, f), folder))
                        for r, _, fs in os.walk(folder) for f in fs), reverse=True)[:3]
        raise InputError(folder, None, None, f"packed bundle is {len(data)} bytes, over the limit of {max_bytes} "
                         f"bytes; largest files: {', '.join(f'{n} ({s} bytes)' for s, n in sizes)}")
    with open(out, "wb") as f:
        f.write(data)
    return len(data)


def add_arguments(p):
    p.add_argument("folders", nargs="+", metavar="BUNDLE", help="bundle folder(s) written by the run tier")
    p.add_argument("--check", action="store_true", help="only check that each bundle is complete")
    p.add_argument("--out", metavar="PATH", help="the .tar.gz (one bundle) or a folder for them (default: beside "
                                                 "each bundle folder, <folder>.tar.gz)")
    p.add_argument("--max-bytes", type=int, default=MAX_BYTES, help=f"size limit of a packed bundle "
                                                                     f"(default {MAX_BYTES} = 10 MiB)")


def main(args):
    if args.out and len(args.folders) > 1 and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out}: with several bundles, --out must be an existing folder")
    for folder in args.folders:
        if args.check:
            case = check(folder)
            print(f"bundle: {folder}: complete ({case['class']} {case['id']})")
            continue
        name = os.path.basename(os.path.abspath(folder)) + ".tar.gz"
        out = args.out if args.out and not os.path.isdir(args.out) else os.path.join(
            args.out or os.path.dirname(os.path.abspath(folder)), name)
        size = pack(folder, out, args.max_bytes)
        print(f"bundle: {folder}: wrote {out} ({size} bytes, limit {args.max_bytes})")
    return 0
