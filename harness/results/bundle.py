"""Repro bundles: one folder per failing case, checked complete and packed into a .tar.gz small enough to attach.

The run tier writes the folders (harness/runcore/src/worker/repro.cpp, into results/<run-id>/repro/<case>.<load_path>/);
this module checks and packs them. Layout, schema `ptxcts-repro` version 1 (results/README.md for users):
  case.json               id, form, family, kernel, target, ptx, load_path (cubin|jit), class (a finding),
                          message, seed (integer), replay (one line that names the case ID), files (name -> size
                          in bytes, or a description), tensor_map (the encode parameters; required for tensor
                          families), args (the ABI words); other fields are kept as written
  module.ptx              the PTX module that was loaded (.version, .target, the kernel's .entry)
  <input>.bin             inputs: gsrc.bin (global source), <region>.init.bin (initial images), at least one
  <region>.expected.bin   what the reference model expects, per region (gdst: global destination,
                          smem: the CTA windows), at least one
  <region>.actual.bin     what the device produced, same size; required for fail and spec_divergence (a fail
                          differs from expected in at least one region); a crash or timeout may have none
  README.txt              optional in the folder: the packed archive gets one made from case.json if absent
  replay.sh               optional: the replay line as a script
"""
import gzip
import io
import json
import os
import tarfile

from framework import given
from framework.documents import jsonloc
from framework.documents.errors import InputError, UsageError
from framework.documents.schema import FINDINGS, LOAD_PATHS

SCHEMA = "ptxcts-repro"
VERSION = 1
MAX_BYTES = 10 * 1024 * 1024  # 10 MiB packed: within the attachment limits of common bug trackers
REQUIRED = {"schema": str, "version": int, "id": str, "form": str, "family": str, "kernel": str, "target": str,
            "ptx": str, "load_path": str, "class": str, "message": str, "seed": int, "replay": str, "files": dict}
TENSOR_FAMILIES = ("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor")
INPUT_SUFFIX, EXPECTED_SUFFIX, ACTUAL_SUFFIX = ".init.bin", ".expected.bin", ".actual.bin"
INPUT_NAMES = ("gsrc.bin",)


def find_bundles(paths):
    """Each argument is a bundle folder (holding case.json) or a folder of them (e.g. results/<run>/repro)."""
    found = []
    for p in paths:
        p = str(p)
        if os.path.isfile(os.path.join(p, "case.json")):
            found.append(p)
        elif os.path.isdir(p):
            inside = sorted(os.path.join(p, d) for d in os.listdir(p)
                            if os.path.isfile(os.path.join(p, d, "case.json")))
            if not inside:
                raise InputError(os.path.join(p, "case.json"), None, None,
                                 "missing: a bundle folder holds case.json (and no subfolder here holds one)")
            found += inside
        else:
            raise UsageError(f"{p}: no such folder")
    return found


def check(folder):
    """Raise InputError naming the file and field of the first thing missing or wrong; return case.json."""
    folder = str(folder)
    cj = os.path.join(folder, "case.json")
    if not os.path.isfile(cj):
        raise InputError(cj, None, None, "missing: every bundle has a case.json")
    text = jsonloc.read_text(cj)
    case = jsonloc.load(text, cj)

    def fail(field, what):
        raise InputError(cj, jsonloc.line_of(text, [field]) if field else None, field, what)

    if not isinstance(case, dict):
        fail(None, "case.json must be a JSON object")
    if case.get("schema") != SCHEMA:
        fail("schema", f"must be {SCHEMA!r}, found {case.get('schema')!r}")
    if case.get("version") != VERSION:
        fail("version", f"bundle version {case.get('version')!r} is not known to this tool (it reads {VERSION})")
    for name, kind in REQUIRED.items():
        if name not in case:
            fail(None, f"missing field {name!r}")
        if not isinstance(case[name], kind) or isinstance(case[name], bool):
            fail(name, f"must be of type {kind.__name__}")
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
    for name, size in case["files"].items():
        if not isinstance(name, str) or os.path.isabs(name) or ".." in name.split("/"):
            fail("files", f"{name!r} must be a path inside the bundle folder")
        _file(os.path.join(folder, name), "listed in case.json files")
        if isinstance(size, int) and os.path.getsize(os.path.join(folder, name)) != size:
            raise InputError(os.path.join(folder, name), None, None, f"is {os.path.getsize(os.path.join(folder, name))}"
                             f" bytes, case.json files says {size}")
    names = set(os.listdir(folder))
    if not [n for n in names if n in INPUT_NAMES or n.endswith(INPUT_SUFFIX)]:
        raise InputError(folder, None, None, f"no input image (gsrc.bin or <region>{INPUT_SUFFIX})")
    regions = sorted(n[:-len(EXPECTED_SUFFIX)] for n in names if n.endswith(EXPECTED_SUFFIX))
    if not regions:
        raise InputError(folder, None, None, f"no expected bytes (<region>{EXPECTED_SUFFIX})")
    differs = False
    for region in regions:
        expected = os.path.join(folder, region + EXPECTED_SUFFIX)
        actual = os.path.join(folder, region + ACTUAL_SUFFIX)
        if case["class"] in ("fail", "spec_divergence"):
            _file(actual, f"the bytes the device produced, beside {region}{EXPECTED_SUFFIX}")
        if os.path.isfile(actual):
            if os.path.getsize(actual) != os.path.getsize(expected):
                raise InputError(actual, None, None, f"{os.path.getsize(actual)} bytes, but {region}{EXPECTED_SUFFIX}"
                                 f" has {os.path.getsize(expected)}")
            with open(expected, "rb") as a, open(actual, "rb") as b:
                differs |= a.read() != b.read()
    if case["class"] == "fail" and not differs:
        raise InputError(folder, None, None, "every <region>.actual.bin equals its expected bytes, yet the class "
                                             "is fail: the bundle does not show the failure")
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            if os.path.islink(p):
                raise InputError(p, None, None, "a bundle holds plain files only (no links)")
    return case


def readme(case, names):
    """README.txt for a bundle that has none, made from case.json."""
    lines = [f"ptx-cts repro bundle: {case['class']} of {case['id']}", "",
             f"message:   {case['message']}", f"replay:    {case['replay']}   (from the ptx-cts repository root)",
             f"target:    {case['target']}, PTX ISA {case['ptx']}, load path {case['load_path']}, seed {case['seed']}",
             f"device:    {json.dumps(case.get('device'))}" if case.get("device") else None,
             f"kernel:    {case['kernel']} in module.ptx", "", "files:"]
    meaning = {"case.json": "everything about the case (tensor_map: the encode parameters; args: the ABI words)",
               "module.ptx": "the PTX module that was loaded", "gsrc.bin": "global source buffer",
               "replay.sh": "the replay line as a script"}
    for n in sorted(names):
        what = meaning.get(n) or ("initial image of " + n[:-len(INPUT_SUFFIX)] if n.endswith(INPUT_SUFFIX) else
                                  "expected bytes of " + n[:-len(EXPECTED_SUFFIX)] if n.endswith(EXPECTED_SUFFIX) else
                                  "bytes the device produced in " + n[:-len(ACTUAL_SUFFIX)]
                                  if n.endswith(ACTUAL_SUFFIX) else "")
        lines.append(f"  {n:<22} {what}")
    return "\n".join(l for l in lines if l is not None) + "\n"


def _file(path, what):
    if not os.path.isfile(path):
        raise InputError(path, None, None, f"missing ({what})")
    if os.path.getsize(path) == 0:
        raise InputError(path, None, None, f"empty ({what})")


def pack(folder, out, max_bytes=MAX_BYTES):
    """Check, then write a deterministic .tar.gz (sorted members, zero times and owners). Returns its size."""
    case = check(folder)
    folder = os.path.abspath(str(folder))
    base = os.path.basename(folder.rstrip("/"))
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            paths = [folder]
            for root, dirs, files in os.walk(folder):
                dirs.sort()
                paths += [os.path.join(root, d) for d in dirs] + [os.path.join(root, f) for f in sorted(files)]
            members = [(os.path.join(base, os.path.relpath(p, folder)).rstrip("/."), p) for p in paths]
            if not os.path.exists(os.path.join(folder, "README.txt")):
                members.append((f"{base}/README.txt", readme(case, os.listdir(folder)).encode()))
            for arcname, p in sorted(members):
                if isinstance(p, bytes):
                    info = tarfile.TarInfo(arcname)
                    info.size = len(p)
                else:
                    info = tar.gettarinfo(p, arcname=arcname)
                info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
                info.mode = 0o755 if info.isdir() else 0o644
                if isinstance(p, bytes):
                    tar.addfile(info, io.BytesIO(p))
                elif info.isdir():
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
    p.add_argument("folders", path=given.FOLDER, nargs="+", metavar="BUNDLE",
                   help="bundle folder(s) written by the run tier, or a folder of them (results/<run-id>/repro)")
    p.add_argument("--check", action="store_true", help="only check that each bundle is complete")
    p.add_argument("--out", path=given.NEW_ANY, metavar="PATH", help="the .tar.gz (one bundle) or a folder for them (default: beside "
                                                 "each bundle folder, <folder>.tar.gz)")
    p.add_argument("--max-bytes", type=int, default=MAX_BYTES, help=f"size limit of a packed bundle "
                                                                     f"(default {MAX_BYTES} = 10 MiB)")


def main(args):
    import sys
    if args.max_bytes < 1:
        raise UsageError(f"--max-bytes {args.max_bytes}: must be 1 or more")
    folders = find_bundles(args.folders)
    if args.out and len(folders) > 1 and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out}: with several bundles, --out must be an existing folder")
    bad = []
    for n, folder in enumerate(folders, 1):
        try:
            if args.check:
                case = check(folder)
                print(f"bundle [{n}/{len(folders)}]: {folder}: complete ({case['class']} {case['id']})")
                continue
            name = os.path.basename(os.path.abspath(folder)) + ".tar.gz"
            out = args.out if args.out and not os.path.isdir(args.out) else os.path.join(
                args.out or os.path.dirname(os.path.abspath(folder)), name)
            size = pack(folder, out, args.max_bytes)
            print(f"bundle [{n}/{len(folders)}]: {folder}: wrote {out} ({size} bytes, limit {args.max_bytes})")
        except InputError as e:
            bad.append(folder)
            print(f"bundle [{n}/{len(folders)}]: error: {e}", file=sys.stderr)
    print(f"bundle: {len(folders) - len(bad)} of {len(folders)} bundles {'complete' if args.check else 'packed'}"
          + (f", {len(bad)} incomplete (listed above)" if bad else ""))
    if bad:
        raise InputError(bad[0], None, None, f"{len(bad)} of {len(folders)} bundles are incomplete or too large")
    return 0
