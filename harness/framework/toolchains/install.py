"""Installing a named toolchain from the official NVIDIA wheels into the cache (outside the repository).

Each wheel is fetched with `pip download --no-deps` (or taken from a local folder of wheels with --wheels DIR, for
machines without network), checked against the catalog's sha256 before anything is extracted, and only the
members the suite needs (ptxas, libnvJitLink) are unpacked. A release's nvdisasm (the lowering tier's
disassembler) is installed apart, into <cache>/nvdisasm/<name>/ (install_nvdisasm), by `install NAME` after the
toolchain or alone (`./ptxcts toolchains install --nvdisasm-only NAME`), so that the system toolchain can use the
disassembler of a release that has a wheel. Everything happens in a temporary folder beside the
final one, which is renamed into place last: a half-installed toolchain never exists under its name.
"""
import fcntl
import glob
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import zipfile

from . import cache_dir, catalog, probe
from .errors import MALFORMED, USAGE, ToolchainError, cache_entry

PLATFORMS = ("manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux2010_x86_64", "manylinux_2_12_x86_64",
             "manylinux_2_27_x86_64", "manylinux_2_28_x86_64")


def pip_download(wheel, into, wheels_dir, log, who, extra=()):
    """`pip download --no-deps` of wheel (a catalog entry: package, version) into the folder into, from the folder
    wheels_dir only when it is given; extra: more pip arguments. Returns (the pip spec, pip's CompletedProcess,
    the .whl files of that package and version now in into); the caller says what a failure means."""
    spec = f"{wheel['package']}=={wheel['version']}"
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", *extra, "-q", "-d", into]
    if wheels_dir:
        argv += ["--no-index", "--find-links", os.path.abspath(wheels_dir)]
    log(f"{who}: fetching {spec}" + (f" from {wheels_dir}" if wheels_dir else " (pip download)"))
    r = subprocess.run(argv + [spec], capture_output=True, text=True)
    stem = wheel["package"].replace("-", "_") + "-" + wheel["version"] + "-"
    return spec, r, glob.glob(os.path.join(into, stem + "*.whl"))


def check_sha256(whl, wheel, error=ToolchainError):
    """error (exit 3) unless the file whl has the sha256 of wheel (a catalog entry)."""
    got = probe.sha256_file(whl)
    if got != wheel["sha256"]:
        raise error(f"{os.path.basename(whl)}: sha256 {got} is not the catalog's {wheel['sha256']}: refused, nothing "
                    f"installed", MALFORMED)


def install_atomically(root, name, build, force=False, log=print, who="toolchains", label=None, installed=None):
    """root/name, built under a lock on root (installs of several worktrees share the cache): unless it is already
    installed (installed(), by default its INSTALLED.json exists) and not force, build(work, download) fills a
    temporary folder work beside it (download: an empty folder in it for the wheels, removed afterwards) and returns
    (the record to write as its INSTALLED.json, a note for the last log line); the folder is renamed into place
    last, so a half-installed one never exists under its name. The log lines name it label (default name).
    Returns the folder."""
    os.makedirs(root, exist_ok=True)
    final = cache_entry(root, name, who.rstrip("s").replace("frontend", "front-end"))
    label = label or name
    with open(os.path.join(root, ".lock"), "w") as lockf:
        fcntl.flock(lockf, fcntl.LOCK_EX)
        done = installed() if installed else os.path.exists(os.path.join(final, "INSTALLED.json"))
        if done and not force:
            log(f"{who}: {label} is installed in {final}")
            return final
        work = tempfile.mkdtemp(prefix=f".{name}-", dir=root)
        try:
            download = os.path.join(work, ".download")
            os.makedirs(download)
            record, note = build(work, download)
            shutil.rmtree(download, ignore_errors=True)
            with open(os.path.join(work, "INSTALLED.json"), "w") as f:
                json.dump(record, f, indent=1, sort_keys=True)
            if os.path.exists(final):
                shutil.rmtree(final)
            os.rename(work, final)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    log(f"{who}: {label} installed in {final}{note}")
    return final


def _fetch(wheel, into, wheels_dir=None, log=print):
    """The .whl file of wheel (a catalog entry) in folder into; ToolchainError when pip cannot get it."""
    extra = ["--python-version", "3.11", "--implementation", "py"]
    for p in PLATFORMS:
        extra += ["--platform", p]
    spec, r, found = pip_download(wheel, into, wheels_dir, log, "toolchains", extra)
    if r.returncode != 0 or not found:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise ToolchainError(f"cannot download {spec}: pip exited {r.returncode}: {' / '.join(tail)}"
                             + ("" if wheels_dir else " (no network here? copy the wheels to a folder and use "
                                                      "--wheels DIR)"), USAGE)
    return found[0]


def _extract(whl, wheel, into):
    """Check the wheel's checksum, then unpack its member; returns the member's path under into."""
    check_sha256(whl, wheel)
    try:
        with zipfile.ZipFile(whl) as z:
            z.extract(wheel["member"], into)
    except (zipfile.BadZipFile, KeyError) as e:
        raise ToolchainError(f"{os.path.basename(whl)}: no member {wheel['member']}: {e}", MALFORMED) from None
    out = os.path.join(into, wheel["member"])
    os.chmod(out, os.stat(out).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return wheel["member"]


def install(name, wheels_dir=None, force=False, log=print):
    """Install the catalog toolchain name; returns its folder. Already installed: nothing to do (unless force)."""
    cat = catalog.load()
    if name not in cat:
        from . import known_names
        raise ToolchainError(f"unknown toolchain {name!r}: the known ones are {', '.join(known_names())}")
    entry = cat[name]

    def build(work, dl):
        files = {}
        for part in ("ptxas", "nvjitlink"):
            wheel = entry[part]
            if wheel is None:
                files[part] = None
                continue
            files[part] = _extract(_fetch(wheel, dl, wheels_dir, log), wheel, work)
        version = probe.ptxas_version(os.path.join(work, files["ptxas"]))
        if version != entry["ptxas"]["version"]:
            raise ToolchainError(f"{entry['ptxas']['package']}=={entry['ptxas']['version']}: its ptxas says "
                                 f"{version}", MALFORMED)
        return ({"name": name, "ptxas": files["ptxas"], "nvjitlink": files["nvjitlink"],
                 "source": {"kind": "wheel", "ptxas": entry["ptxas"], "nvjitlink": entry["nvjitlink"]}},
                f" (ptxas {version})")
    final = install_atomically(cache_dir(), name, build, force, log, "toolchains")
    if entry.get("nvdisasm"):
        install_nvdisasm(name, wheels_dir, force, log)
    return final


def nvdisasm_dir(name):
    """Where the nvdisasm of release name is installed (whether it is or not)."""
    return os.path.join(cache_dir(), "nvdisasm", name)


def installed_nvdisasm(name):
    """The path of release name's installed nvdisasm, or None."""
    d = nvdisasm_dir(name)
    try:
        with open(os.path.join(d, "INSTALLED.json")) as f:
            inst = json.load(f)
        path = os.path.join(d, inst["nvdisasm"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return path if os.access(path, os.X_OK) else None


def install_nvdisasm(name, wheels_dir=None, force=False, log=print):
    """Install the nvdisasm of catalog release name into nvdisasm_dir(name) (checksum first, renamed into place
    last); ToolchainError when the catalog has no nvdisasm wheel for it."""
    cat = catalog.load()
    if name not in cat:
        from . import known_names
        raise ToolchainError(f"unknown toolchain {name!r}: the known ones are {', '.join(known_names())}")
    wheel = cat[name].get("nvdisasm")
    if wheel is None:
        have = [n for n, e in cat.items() if e.get("nvdisasm")]
        raise ToolchainError(f"toolchain {name}: the catalog names no nvidia-cuda-nvdisasm wheel for it (there is "
                             f"none before 13.2); releases with one: {', '.join(have) or 'none'}")

    def build(work, dl):
        member = _extract(_fetch(wheel, dl, wheels_dir, log), wheel, work)
        return {"name": name, "nvdisasm": member, "source": {"kind": "wheel", "nvdisasm": wheel}}, ""
    return install_atomically(os.path.dirname(nvdisasm_dir(name)), name, build, force, log, "toolchains",
                              f"nvdisasm {wheel['version']}", lambda: installed_nvdisasm(name))
