"""Installing a front-end from its official wheels into the cache (outside the repository).

Each wheel is fetched with `pip download --no-deps` (or taken from a folder of wheels with --wheels DIR, for machines
without network), checked against the catalog's sha256, then installed with `pip install --no-deps --target` into
a temporary folder beside the final one, which is renamed into place last: a half-installed front-end never exists
under its name. Concurrent installs (worktrees share the cache) take a lock.
"""
import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

from toolchains import probe as tc_probe

from . import catalog, frontends_dir, installed_dir
from .errors import MALFORMED, USAGE, FrontendError


def _fetch(wheel, into, wheels_dir, log):
    spec = f"{wheel['package']}=={wheel['version']}"
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", into]
    if wheels_dir:
        argv += ["--no-index", "--find-links", os.path.abspath(wheels_dir)]
    log(f"frontend: fetching {spec}" + (f" from {wheels_dir}" if wheels_dir else " (pip download)"))
    r = subprocess.run(argv + [spec], capture_output=True, text=True)
    stem = wheel["package"].replace("-", "_") + "-" + wheel["version"] + "-"
    found = [p for p in glob.glob(os.path.join(into, "*.whl")) if os.path.basename(p).startswith(stem)]
    if r.returncode != 0 or not found:
        tail = " / ".join((r.stderr or r.stdout).strip().splitlines()[-2:])
        how = (f"put {spec} (the .whl for this Python, manylinux x86_64) into {wheels_dir}, e.g. with `pip download "
               f"--no-deps -d {wheels_dir} {spec}` on a machine with network" if wheels_dir else
               f"no network here? fetch it elsewhere with `pip download --no-deps -d DIR {spec}` and install with "
               f"`./ptxcts frontend install --wheels DIR NAME`")
        raise FrontendError(f"cannot get wheel {spec}: pip exited {r.returncode}: {tail}; {how}", USAGE)
    return found[0]


def install(name, wheels_dir=None, force=False, log=print):
    """Install the front-end `name` of the catalog; returns its folder. Already installed: nothing to do."""
    cat = catalog.load()
    if name not in cat:
        raise FrontendError(f"unknown front-end {name!r}: the known ones are {', '.join(sorted(cat))}")
    entry = cat[name]
    root = frontends_dir()
    os.makedirs(root, exist_ok=True)
    final = os.path.join(root, name)
    with open(os.path.join(root, ".lock"), "w") as lockf:
        fcntl.flock(lockf, fcntl.LOCK_EX)
        if installed_dir(name) and not force:
            log(f"frontend: {name} is installed in {final}")
            return final
        work = tempfile.mkdtemp(prefix=f".{name}-", dir=root)
        try:
            dl = os.path.join(work, ".download")
            os.makedirs(dl)
            tree = os.path.join(work, "site")
            whls = []
            for wheel in entry["wheels"]:
                whl = _fetch(wheel, dl, wheels_dir, log)
                got = tc_probe.sha256_file(whl)
                if got != wheel["sha256"]:
                    raise FrontendError(f"{os.path.basename(whl)}: sha256 {got} is not the catalog's "
                                        f"{wheel['sha256']}: refused, nothing installed", MALFORMED)
                whls.append(whl)
            # one pip call for all the wheels: `pip install --target` into a folder that exists skips what is there
            r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                                "--target", tree] + whls, capture_output=True, text=True)
            if r.returncode != 0:
                raise FrontendError(f"pip install --target {tree} {' '.join(map(os.path.basename, whls))} exited "
                                    f"{r.returncode}: {r.stderr.strip()[-300:]}", MALFORMED)
            shutil.rmtree(dl)
            lib = os.path.join(tree, entry["library"])
            if not os.path.isfile(lib):
                raise FrontendError(f"{name}: the wheels carry no {entry['library']} (the catalog's library)",
                                    MALFORMED)
            with open(os.path.join(work, "INSTALLED.json"), "w") as f:
                json.dump({"name": name, "site": "site", "library": entry["library"], "wheels": entry["wheels"],
                           "python": f"{sys.version_info.major}.{sys.version_info.minor}"}, f, indent=1,
                          sort_keys=True)
            if os.path.exists(final):
                shutil.rmtree(final)
            os.rename(work, final)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    log(f"frontend: {name} installed in {final}")
    return final
