"""Installing a front-end from its official wheels into the cache (outside the repository).

Each wheel is fetched with `pip download --no-deps` (or taken from a folder of wheels with --wheels DIR, for machines
without network), checked against the catalog's sha256, then installed with `pip install --no-deps --target` into
a temporary folder beside the final one, which is renamed into place last: a half-installed front-end never exists
under its name. Concurrent installs (worktrees share the cache) take a lock.

A wheel built per CPython (llvmlite: catalog.pin_for) is pinned per Python tag: the install takes the running
interpreter's (python_tag()), refuses a Python with no pin or a folder with no wheel for it (exit 2, naming the
tag and the files there) and a file whose sha256 is not the tag's pin (exit 3, naming the file and both hashes).
Its INSTALLED.json records the tag, and an install made by another Python is not taken as installed for this one
(installed_here): the install runs again, for this Python.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

from framework.toolchains import probe as tc_probe
from framework.toolchains.install import check_sha256, install_atomically, pip_download

from . import catalog, frontends_dir
from .errors import MALFORMED, USAGE, FrontendError


def python_tag(impl=None, version=None):
    """The wheel tag of the running interpreter (CPython 3.12: cp312; another implementation: its own name)."""
    impl = impl or sys.implementation.name
    major, minor = version or sys.version_info[:2]
    short = {"cpython": "cp", "pypy": "pp"}.get(impl, impl)
    return f"{short}{major}{minor}"


def _spec(wheel):
    return f"{wheel['package']}=={wheel['version']}"


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


def _download_how(wheel, tag, file):
    v = tag[2] + "." + tag[3:]
    return (f"`pip download --no-deps --only-binary=:all: --python-version {v} --implementation cp --platform "
            f"manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d DIR "
            f"{_spec(wheel)}` on a machine with network gives {file}")


def _pick_per_python(wheel, tag, into, wheels_dir, log):
    """The .whl file of a wheel built per CPython for the Python tag, checked against its pin, copied into the folder
    into (from wheels_dir, else downloaded by pip for this interpreter). FrontendError: exit 3 when the pinned file
    (by its name) has another sha256; exit 2 when there is no wheel for this Python, or only files of its tag that
    are not the pinned one (another platform's build: neither its name nor its sha256 is the pin)."""
    sha, file = catalog.pin_for(wheel, tag)
    spec = _spec(wheel)
    if not wheels_dir:
        cands = [_fetch(wheel, into, None, log)]
        where = "pip downloaded"
    else:
        log(f"frontend: taking {spec} for this Python ({tag}) from {wheels_dir}")
        stem = wheel["package"].replace("-", "_") + "-" + wheel["version"] + "-"
        found = sorted(os.path.basename(p) for p in glob.glob(os.path.join(wheels_dir, stem + "*.whl")))
        mine = [f for f in found if tag in catalog.wheel_python_tags(f)]
        if not mine:
            others = sorted(os.path.basename(p) for p in glob.glob(os.path.join(wheels_dir, "*.whl")))
            held = (", ".join(found) if found else
                    f"no {stem}*.whl (its .whl files: {', '.join(others[:8]) or 'none'}"
                    f"{f' and {len(others) - 8} more' if len(others) > 8 else ''})")
            raise FrontendError(f"--wheels {wheels_dir}: no {spec} wheel for this Python ({tag}, Python "
                                f"{sys.version.split()[0]}); the folder holds {held}. Put {file} there: "
                                f"{_download_how(wheel, tag, file)}", USAGE)
        # the pinned file alone when it is there; else another file of this tag that has the pinned sha256
        cands = [os.path.join(wheels_dir, f) for f in ([file] if file in mine else mine)]
        where = f"--wheels {wheels_dir} holds"
    got = []
    for c in cands:
        h = tc_probe.sha256_file(c)
        if h == sha:
            dest = os.path.join(into, os.path.basename(c))
            if os.path.abspath(c) != os.path.abspath(dest):
                shutil.copyfile(c, dest)
                if tc_probe.sha256_file(dest) != sha:   # the file that pip installs is the one that was checked
                    raise FrontendError(f"{dest}: changed while it was copied: refused, nothing installed", MALFORMED)
            return dest
        if os.path.basename(c) == file:
            raise FrontendError(f"{c}: sha256 {h} is not the sha256 {sha} pinned for {tag} (toolchains/"
                                f"frontends.toml): refused, nothing installed", MALFORMED)
        got.append(f"{os.path.basename(c)} (sha256 {h})")
    raise FrontendError(f"{where} {', '.join(got)} for this Python ({tag}), not the pinned {file} (sha256 {sha}; "
                        f"another platform's build?): refused, nothing installed. {_download_how(wheel, tag, file)}",
                        USAGE)


def _fill(work, dl, name, entry, wheels_dir, tag, log):
    """Fetch and check the wheels of entry (the catalog's front-end name) into dl, install them with pip into
    work/site and check the library is there; returns (the INSTALLED.json record, no log note)."""
    tree = os.path.join(work, "site")
    whls, used = [], []
    for wheel in entry["wheels"]:
        if "python" in wheel:
            whl = _pick_per_python(wheel, tag, dl, wheels_dir, log)
            sha = catalog.pin_for(wheel, tag)[0]
        else:
            whl = _fetch(wheel, dl, wheels_dir, log)
            check_sha256(whl, wheel, FrontendError)
            sha = wheel["sha256"]
        whls.append(whl)
        used.append({"package": wheel["package"], "version": wheel["version"], "file": os.path.basename(whl),
                     "sha256": sha})
    # one pip call for all the wheels: `pip install --target` into a folder that exists skips what is there
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                        "--target", tree] + whls, capture_output=True, text=True)
    if r.returncode != 0:
        raise FrontendError(f"pip install --target {tree} {' '.join(map(os.path.basename, whls))} exited "
                            f"{r.returncode}: {r.stderr.strip()[-300:]}", MALFORMED)
    if not os.path.isfile(os.path.join(tree, entry["library"])):
        raise FrontendError(f"{name}: the wheels carry no {entry['library']} (the catalog's library)", MALFORMED)
    return ({"name": name, "site": "site", "library": entry["library"], "wheels": used,
             "python": f"{sys.version_info.major}.{sys.version_info.minor}", "python_tag": tag}, "")


def per_python(entry):
    """Whether the front-end's catalog entry has a wheel built per CPython (its install belongs to one Python)."""
    return any("python" in w for w in entry["wheels"])


def installed_tag(folder):
    """The Python tag an installed front-end's folder was made for (INSTALLED.json's python_tag, else its python
    "3.11" read as cp311), or None when it has no readable INSTALLED.json."""
    try:
        with open(os.path.join(folder, "INSTALLED.json")) as f:
            rec = json.load(f)
        if rec.get("python_tag"):
            return rec["python_tag"]
        major, minor = str(rec["python"]).split(".")[:2]
        return python_tag("cpython", (major, minor))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def installed_here(name, tag=None, cat=None):
    """The installed folder of front-end name when it can be used by this Python (tag: by default the running
    interpreter's), else None: a front-end with a wheel per CPython counts as installed only for the tag its
    INSTALLED.json records (an install made by Python 3.11 is not one for 3.12; the cache's folder is one per
    front-end name, <cache>/frontends/<name>, shared by every Python)."""
    from framework.toolchains import cache_entry
    cat = cat or catalog.load()
    d = cache_entry(frontends_dir(), cat[name]["install"] if name in cat else name, "front-end")
    if not os.path.exists(os.path.join(d, "INSTALLED.json")):
        return None
    if name in cat and per_python(cat[name]) and installed_tag(d) != (tag or python_tag()):
        return None
    return d


def install(name, wheels_dir=None, force=False, log=print, cat=None, tag=None):
    """Install the front-end `name` of the catalog (cat: by default toolchains/frontends.toml) for this Python (tag:
    by default the running interpreter's); returns its folder. Already installed for it: nothing to do."""
    cat = cat or catalog.load()
    if name not in cat:
        raise FrontendError(f"unknown front-end {name!r}: the known ones are {', '.join(sorted(cat))}")
    tag = tag or python_tag()
    if cat[name]["install"] != name:   # the same wheels as another front-end: one folder of the cache for both
        owner = cat[name]["install"]
        log(f"frontend: {name} uses the install of {owner} (toolchains/frontends.toml: shares = \"{owner}\")")
        old = os.path.join(frontends_dir(), name)
        if os.path.exists(os.path.join(old, "INSTALLED.json")):
            log(f"frontend: {old} (an install of {name} of its own, from before) is no longer used: remove it to "
                "free its space")
        return install(owner, wheels_dir, force, log, cat, tag)
    for w in cat[name]["wheels"]:   # a Python with no pin is refused before anything is fetched
        catalog.pin_for(w, tag)
    if per_python(cat[name]):
        d = os.path.join(frontends_dir(), name)
        other = installed_tag(d)
        if other and other != tag and not force:
            log(f"frontend: {name} in {d} was installed for {other}, not for this Python ({tag}): installing it again")
    return install_atomically(frontends_dir(), name,
                              lambda work, dl: _fill(work, dl, name, cat[name], wheels_dir, tag, log),
                              force, log, "frontend", installed=lambda: installed_here(name, tag, cat) is not None)
