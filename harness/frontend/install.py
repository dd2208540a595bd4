"""Installing a front-end from its official wheels into the cache (outside the repository).

Each wheel is fetched with `pip download --no-deps` (or taken from a folder of wheels with --wheels DIR, for machines
without network), checked against the catalog's sha256, then installed with `pip install --no-deps --target` into
a temporary folder beside the final one, which is renamed into place last: a half-installed front-end never exists
under its name. Concurrent installs (worktrees share the cache) take a lock.
"""
import os
import subprocess
import sys

from toolchains.install import check_sha256, install_atomically, pip_download

from . import catalog, frontends_dir
from .errors import MALFORMED, USAGE, FrontendError


def _fetch(wheel, into, wheels_dir, log):
    spec, r, found = pip_download(wheel, into, wheels_dir, log, "frontend")
    if r.returncode != 0 or not found:
        tail = " / ".join((r.stderr or r.stdout).strip().splitlines()[-2:])
        how = (f"put {spec} (the .whl for this Python, manylinux x86_64) into {wheels_dir}, e.g. with `pip download "
               f"--no-deps -d {wheels_dir} {spec}` on a machine with network" if wheels_dir else
               f"no network here? fetch it elsewhere with `pip download --no-deps -d DIR {spec}` and install with "
               f"`./ptxcts frontend install --wheels DIR NAME`")
        raise FrontendError(f"cannot get wheel {spec}: pip exited {r.returncode}: {tail}; {how}", USAGE)
    return found[0]


def _fill(work, dl, name, entry, wheels_dir, log):
    """Fetch and check the wheels of entry (the catalog's front-end name) into dl, install them with pip into
    work/site and check the library is there; returns (the INSTALLED.json record, no log note)."""
    tree = os.path.join(work, "site")
    whls = []
    for wheel in entry["wheels"]:
        whl = _fetch(wheel, dl, wheels_dir, log)
        check_sha256(whl, wheel, FrontendError)
        whls.append(whl)
    # one pip call for all the wheels: `pip install --target` into a folder that exists skips what is there
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                        "--target", tree] + whls, capture_output=True, text=True)
    if r.returncode != 0:
        raise FrontendError(f"pip install --target {tree} {' '.join(map(os.path.basename, whls))} exited "
                            f"{r.returncode}: {r.stderr.strip()[-300:]}", MALFORMED)
    if not os.path.isfile(os.path.join(tree, entry["library"])):
        raise FrontendError(f"{name}: the wheels carry no {entry['library']} (the catalog's library)", MALFORMED)
    return ({"name": name, "site": "site", "library": entry["library"], "wheels": entry["wheels"],
             "python": f"{sys.version_info.major}.{sys.version_info.minor}"}, "")


def install(name, wheels_dir=None, force=False, log=print):
    """Install the front-end `name` of the catalog; returns its folder. Already installed: nothing to do."""
    cat = catalog.load()
    if name not in cat:
        raise FrontendError(f"unknown front-end {name!r}: the known ones are {', '.join(sorted(cat))}")
    return install_atomically(frontends_dir(), name, lambda work, dl: _fill(work, dl, name, cat[name], wheels_dir, log),
                              force, log, "frontend")
