"""What a ptxas can do, asked of the tool itself: its version, the PTX ISA versions it parses, the -arch values it
takes, and for every target name the PTX ISA versions at which it accepts the `.target` line.

Nothing here is a fact of the chapter: the ISA model (generator/ptxcts_gen/targets.py) says which target names
exist and what they were renamed to; this module measures which of them a given ptxas takes, and at which
`.version`. The result is the toolchain description (toolchains/<name>.json, schema `ptxcts-toolchain`).
"""
import concurrent.futures as cf
import datetime
import hashlib
import os
import platform
import re
import subprocess
import tempfile

from ptxcts_gen import targets as isa_targets

SCHEMA = "ptxcts-toolchain"
SCHEMA_VERSION = 1
# PTX ISA versions worth asking a ptxas without --list-version about (12.x): every minor of 6.0 .. 9.9.
_CANDIDATE_PTX = [f"{major}.{minor}" for major in (6, 7, 8, 9) for minor in range(10)]
# The oldest PTX version a description records per target: older ones concern no form of the chapter
# (cp.async starts at PTX 7.0) and only slow the probe down.
OLDEST_PTX = "6.0"


class ProbeError(Exception):
    """The file is not a working ptxas (the message says why)."""


def ptx_key(v):
    major, minor = v.split(".")
    return (int(major), int(minor))


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _run(argv, timeout=60):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ProbeError(f"{argv[0]}: {type(e).__name__}: {e}") from None
    return r.returncode, r.stdout + r.stderr


def ptxas_version(path):
    """'13.0.88' from `Cuda compilation tools, release 13.0, V13.0.88`; ProbeError when path is no ptxas."""
    if not os.path.isfile(path):
        raise ProbeError(f"{path}: no such file")
    if not os.access(path, os.X_OK):
        raise ProbeError(f"{path}: not executable")
    rc, out = _run([path, "--version"])
    m = re.search(r"\bV(\d+\.\d+\.\d+)", out)
    if rc != 0 or "ptxas" not in out.lower() or not m:
        raise ProbeError(f"{path}: not a working ptxas (`--version` exited {rc}: {out.strip()[:200]!r})")
    return m.group(1)


def archs(path):
    """The -arch (--gpu-name) values ptxas's --help lists, sm_* only."""
    _, text = _run([path, "--help"])
    m = re.search(r"--gpu-name.*?Allowed values for this option:(.*?)Default value", text, re.S)
    return sorted(set(re.findall(r"'(sm_\w+)'", m.group(1))) if m else [], key=_target_key)


def _target_key(name):
    body = name[3:]
    variant = body[-1] if body[-1] in "af" else ""
    return (int(body[:-1] if variant else body), {"": 0, "f": 1, "a": 2}[variant])


def _assemble(path, arch, ptx, target, workdir, tag):
    """Whether `.version ptx / .target target` assembles with -arch=arch; and ptxas's first message."""
    src = os.path.join(workdir, f"{tag}.ptx")
    with open(src, "w") as f:
        # an empty module is not checked against its .target: one trivial entry makes ptxas check it
        f.write(f".version {ptx}\n.target {target}\n.address_size 64\n.visible .entry k()\n{{\n  ret;\n}}\n")
    rc, out = _run([path, f"-arch={arch}", src, "-o", os.path.join(workdir, f"{tag}.cubin")])
    first = next((ln.strip() for ln in out.splitlines() if ln.strip()), "")
    return rc == 0, first


def ptx_versions(path, listed=True):
    """PTX ISA versions ptxas parses: `--list-version` where it exists (13.x), else measured: an empty module at
    every candidate version 6.0 .. 9.9 with `.target sm_75` (every ptxas since 10.0 has it); a version is known
    unless ptxas answers "Unsupported .version" (an older version refusing sm_75 still parses)."""
    if listed:
        rc, out = _run([path, "--list-version"])
        found = re.findall(r"^\s*(\d+\.\d+)\s*$", out, re.M)
        if rc == 0 and found:
            return sorted(set(found), key=ptx_key)
    with tempfile.TemporaryDirectory(prefix="ptxcts-probe-") as d:
        def one(v):
            ok, msg = _assemble(path, "sm_75", v, "sm_75", d, "v" + v.replace(".", "_"))
            return v if ok or "Unsupported .version" not in msg else None
        with cf.ThreadPoolExecutor(max_workers=max(2, 2 * (os.cpu_count() or 2))) as ex:
            return sorted((v for v in ex.map(one, _CANDIDATE_PTX) if v), key=ptx_key)


def targets(path, versions, arch_list):
    """For every target name of the ISA model and every sm_* -arch of ptxas: the -arch it is assembled with (the
    name itself where ptxas takes it as -arch, else the name the ISA model says it was renamed to), and the PTX
    versions (>= OLDEST_PTX) at which ptxas accepts its `.target` line."""
    names = {t.name for t in isa_targets.TARGETS} | set(arch_list)
    renames = {t.name: t.rename for t in isa_targets.TARGETS if t.rename}
    jobs = []
    out = {}
    for name in sorted(names, key=_target_key):
        arch = name if name in arch_list else renames.get(name) if renames.get(name) in arch_list else None
        if arch is None:
            continue
        out[name] = {"arch": arch, "ptx": [], "refusal": {}}
        for v in versions:
            if ptx_key(v) >= ptx_key(OLDEST_PTX):
                jobs.append((name, arch, v))
    with tempfile.TemporaryDirectory(prefix="ptxcts-probe-") as d:
        def one(job):
            name, arch, v = job
            return job, _assemble(path, arch, v, name, d, f"{name}_{v.replace('.', '_')}")
        with cf.ThreadPoolExecutor(max_workers=max(2, 2 * (os.cpu_count() or 2))) as ex:
            for (name, arch, v), (ok, msg) in ex.map(one, jobs):
                if ok:
                    out[name]["ptx"].append(v)
                else:
                    out[name]["refusal"][v] = msg
    for name, row in list(out.items()):
        row["ptx"].sort(key=ptx_key)
        if not row["ptx"]:
            del out[name]
            continue
        row["min_ptx"] = row["ptx"][0]
        row["max_ptx"] = row["ptx"][-1]
        # Keep one refusal message per target (the one just below its first version) as evidence.
        below = [v for v in row["refusal"] if ptx_key(v) < ptx_key(row["min_ptx"])]
        row["refusal_below_min"] = row["refusal"][max(below, key=ptx_key)] if below else None
        gaps = [v for v in versions if ptx_key(row["min_ptx"]) <= ptx_key(v) <= ptx_key(row["max_ptx"])
                and v not in row["ptx"]]
        row["gaps"] = gaps
        del row["refusal"]
    return out


def describe(path, name, nvjitlink=None, source=None):
    """The toolchain description of the ptxas at path (and the nvJitLink library, when there is one)."""
    version = ptxas_version(path)
    arch_list = archs(path)
    if not arch_list:
        raise ProbeError(f"{path}: ptxas {version} lists no sm_* value for --gpu-name in --help")
    major_minor = tuple(int(x) for x in version.split(".")[:2])
    versions = ptx_versions(path, listed=major_minor >= (13, 0))
    if not versions:
        raise ProbeError(f"{path}: ptxas {version} parses no PTX ISA version from 6.0 to 9.9")
    doc = {
        "schema": SCHEMA, "version": SCHEMA_VERSION, "name": name,
        "ptxas_version": version, "ptxas_sha256": sha256_file(path),
        "nvjitlink_version": None, "nvjitlink_sha256": None,
        "source": source or {"kind": "path", "path": path},
        "probed": {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "host": platform.node(), "how": ("--list-version" if major_minor >= (13, 0)
                                                     else "assembling `.version V` at every candidate V")
                   + "; -arch values from --help; each target's versions by assembling `.version V / .target T`"},
        "ptx_versions": versions, "newest_ptx": versions[-1],
        "archs": arch_list,
        "targets": targets(path, versions, arch_list),
    }
    if nvjitlink:
        from . import nvjitlink_version
        doc["nvjitlink_version"] = nvjitlink_version(nvjitlink)
        doc["nvjitlink_sha256"] = sha256_file(nvjitlink)
    return doc
