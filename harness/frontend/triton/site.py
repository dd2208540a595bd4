"""`--frontend triton=PATH`: a Triton the user names, judged as the pinned one is.

PATH is a folder holding `triton/` (a site-packages folder, a `pip install --target` tree), a source checkout
(its `python/` folder holds the built `triton/`), or a Triton wheel (unpacked once into the cache, by its sha256).
Its description (the PTX versions and targets it writes) is probed on first use and kept in the cache beside it,
keyed by the sha256 of its libtriton.so; the results name the front-end `triton=PATH` and its version.
"""
import json
import os
import zipfile

from .. import Frontend, catalog, frontends_dir
from ..errors import USAGE, FrontendError


def _site_of(path, spec):
    if not os.path.exists(path):
        raise FrontendError(f"--frontend {spec}: {path}: no such file or folder", USAGE)
    if os.path.isfile(path):
        if not path.endswith(".whl"):
            raise FrontendError(f"--frontend {spec}: {path} is a file but not a wheel (.whl): give a triton wheel, a "
                                "folder holding triton/, or a source checkout", USAGE)
        from framework.toolchains import probe as tc_probe
        sha = tc_probe.sha256_file(path)
        site = os.path.join(frontends_dir(), f"triton-wheel-{sha[:16]}", "site")
        if not os.path.isdir(os.path.join(site, "triton")):
            try:
                with zipfile.ZipFile(path) as z:
                    if not any(n.startswith("triton/") for n in z.namelist()):
                        raise FrontendError(f"--frontend {spec}: {path} is a wheel without triton/ (not a Triton "
                                            "wheel)", USAGE)
                    tmp = site + f".tmp{os.getpid()}"
                    z.extractall(tmp)
            except zipfile.BadZipFile:
                raise FrontendError(f"--frontend {spec}: {path} is not a zip file (a wheel is one)", USAGE) from None
            for root, _dirs, files in os.walk(tmp):   # zip members lose their execute bit
                for n in files:
                    if n.endswith(".so") or "/bin/" in os.path.join(root, n):
                        os.chmod(os.path.join(root, n), 0o755)
            os.makedirs(os.path.dirname(site), exist_ok=True)
            os.rename(tmp, site)
        return site
    for cand in (path, os.path.join(path, "python")):
        if os.path.isfile(os.path.join(cand, "triton", "__init__.py")):
            return cand
    raise FrontendError(f"--frontend {spec}: {path} is not a Triton: it has no triton/__init__.py (nor "
                        "python/triton/__init__.py, as a source checkout has)", USAGE)


def _version(site):
    """The __version__ its triton/__init__.py states (read, not imported: the name is made before the import)."""
    import re
    with open(os.path.join(site, "triton", "__init__.py"), errors="replace") as f:
        m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", f.read(), re.M)
    return re.sub(r"[^A-Za-z0-9.+-]", "-", m.group(1)) if m else "unknown"


def named_name(version):
    """The front-end name of a Triton named by path (results, compare): `triton-<its __version__>+named`."""
    return f"triton-{version}+named"


def is_named(name):
    """Whether a front-end name is one named_name gives."""
    return name.startswith("triton-") and name.endswith("+named")


def named_triton(path, need_description=True):
    spec = f"triton={path}"
    site = os.path.abspath(_site_of(path, spec))
    from . import backend as tb
    tb.check_site(site, f"--frontend {spec}")
    cat = catalog.load()
    base = cat.get("triton") or {"kind": "triton", "ptxas": "13.5", "library": "triton/_C/libtriton.so",
                                 "headers": None, "wheels": []}
    entry = dict(base, library="triton/_C/libtriton.so")
    fe = Frontend(named_name(_version(site)), "triton", site, site,
                  os.path.join(site, "triton", "_C", "libtriton.so"), None, base["ptxas"], entry, spec=spec)
    if need_description:
        fe.description = description(fe)
    return fe


def description(fe):
    """The probed description of a named Triton, from the cache when its libtriton.so was probed before."""
    from framework.toolchains import probe as tc_probe
    import sys
    sha = tc_probe.sha256_file(fe.library)
    cache = os.path.join(frontends_dir(), "triton-named", f"{sha[:24]}.json")
    if os.path.isfile(cache):
        with open(cache) as f:
            doc = json.load(f)
        if doc.get("library_sha256") == sha:
            return doc
    from .. import probe
    doc = probe.describe(fe, log=lambda m: sys.stderr.write(m + "\n"))
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    tmp = cache + f".tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
    os.rename(tmp, cache)
    return doc
