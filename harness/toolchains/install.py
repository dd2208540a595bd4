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

from . import cache_dir, catalog, installed_dir, probe
from .errors import MALFORMED, USAGE, ToolchainError

PLATFORMS = ("manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux2010_x86_64", "manylinux_2_12_x86_64",
             "manylinux_2_27_x86_64", "manylinux_2_28_x86_64")


def _fetch(wheel, into, wheels_dir=None, log=print):
    """The .whl file of wheel (a catalog entry) in folder into; ToolchainError when pip cannot get it."""
    spec = f"{wheel['package']}=={wheel['version']}"
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--python-version", "3.11",
            "--implementation", "py", "-q", "-d", into]
    for p in PLATFORMS:
        argv += ["--platform", p]
    if wheels_dir:
        argv += ["--no-index", "--find-links", os.path.abspath(wheels_dir)]
    log(f"toolchains: fetching {spec}" + (f" from {wheels_dir}" if wheels_dir else " (pip download)"))
    r = subprocess.run(argv + [spec], capture_output=True, text=True)
    found = glob.glob(os.path.join(into, wheel["package"].replace("-", "_") + "-" + wheel["version"] + "-*.whl"))
    if r.returncode != 0 or not found:
        tail = (r.stderr or r.stdout).strip().splitlines()[-3:]
        raise ToolchainError(f"cannot download {spec}: pip exited {r.returncode}: {' / '.join(tail)}"
                             + ("" if wheels_dir else " (no network here? copy the wheels to a folder and use "
                                                      "--wheels DIR)"), USAGE)
    return found[0]


def _extract(whl, wheel, into):
    """Check the wheel's checksum, then unpack its member; returns the member's path under into."""
    got = probe.sha256_file(whl)
    if got != wheel["sha256"]:
        raise ToolchainError(f"{os.path.basename(whl)}: sha256 {got} is not the catalog's {wheel['sha256']}: "
                             f"refused, nothing installed", MALFORMED)
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
    root = cache_dir()
    os.makedirs(root, exist_ok=True)
    final = os.path.join(root, name)
    if not _install_toolchain(name, entry, root, final, wheels_dir, force, log):
        log(f"toolchains: {name} is installed in {final}")
    if entry.get("nvdisasm"):
        install_nvdisasm(name, wheels_dir, force, log)
    return final


def _install_toolchain(name, entry, root, final, wheels_dir, force, log):
    """ptxas and nvJitLink of the catalog entry into final; False when already there (and not force)."""
    with open(os.path.join(root, ".lock"), "w") as lockf:
        fcntl.flock(lockf, fcntl.LOCK_EX)
        if installed_dir(name) and not force:
            return False
        work = tempfile.mkdtemp(prefix=f".{name}-", dir=root)
        try:
            dl = os.path.join(work, "download")
            os.makedirs(dl)
            files = {}
            for part in ("ptxas", "nvjitlink"):
                wheel = entry[part]
                if wheel is None:
                    files[part] = None
                    continue
                files[part] = _extract(_fetch(wheel, dl, wheels_dir, log), wheel, work)
            shutil.rmtree(dl)
            version = probe.ptxas_version(os.path.join(work, files["ptxas"]))
            if version != entry["ptxas"]["version"]:
                raise ToolchainError(f"{entry['ptxas']['package']}=={entry['ptxas']['version']}: its ptxas says "
                                     f"{version}", MALFORMED)
            with open(os.path.join(work, "INSTALLED.json"), "w") as f:
                json.dump({"name": name, "ptxas": files["ptxas"], "nvjitlink": files["nvjitlink"],
                           "source": {"kind": "wheel", "ptxas": entry["ptxas"], "nvjitlink": entry["nvjitlink"]}},
                          f, indent=1, sort_keys=True)
            if os.path.exists(final):
                shutil.rmtree(final)
            os.rename(work, final)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    log(f"toolchains: {name} installed in {final} (ptxas {version})")
    return True


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
    final = nvdisasm_dir(name)
    root = os.path.dirname(final)
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, ".lock"), "w") as lockf:
        fcntl.flock(lockf, fcntl.LOCK_EX)
        if installed_nvdisasm(name) and not force:
            log(f"toolchains: nvdisasm {wheel['version']} is installed in {final}")
            return final
        work = tempfile.mkdtemp(prefix=f".{name}-", dir=root)
        try:
            dl = os.path.join(work, "download")
            os.makedirs(dl)
            member = _extract(_fetch(wheel, dl, wheels_dir, log), wheel, work)
            shutil.rmtree(dl)
            with open(os.path.join(work, "INSTALLED.json"), "w") as f:
                json.dump({"name": name, "nvdisasm": member, "source": {"kind": "wheel", "nvdisasm": wheel}}, f,
                          indent=1, sort_keys=True)
            if os.path.exists(final):
                shutil.rmtree(final)
            os.rename(work, final)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    log(f"toolchains: nvdisasm {wheel['version']} installed in {final}")
    return final
