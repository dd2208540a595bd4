"""The Triton installed on this machine (a GPU runner's own, e.g. beside PyTorch), found for `./ptxcts frontend
find-triton`, `./ptxcts all` and CTest frontend.triton.installed, which judge it as `--frontend triton=SITE`.

Where it looks, in order (the first found is the one): $PTXCTS_TRITON (a folder, checkout or wheel as triton=PATH
takes; `none` looks nowhere); the running Python's own (importlib's find_spec: its sys.path, a virtual
environment it runs in); then the prefixes of $VIRTUAL_ENV and $CONDA_PREFIX, /opt/*/.venv, /opt/*/venv,
/opt/conda and ~/.venv, each PREFIX/lib/pythonX.Y/site-packages for this Python's X.Y only (libtriton.so is built
for one CPython: another's would not load here). The front-end cache's own installs (the pinned `triton`,
`llvm-triton`) are not the machine's and are never found.
"""
import glob
import importlib.util
import os
import sys

from ..errors import USAGE, FrontendError

ENV = "PTXCTS_TRITON"


def _prefixes(env):
    out = [env.get("VIRTUAL_ENV"), env.get("CONDA_PREFIX")]
    out += sorted(glob.glob("/opt/*/.venv")) + sorted(glob.glob("/opt/*/venv")) + ["/opt/conda",
                                                                                     os.path.expanduser("~/.venv")]
    return [p for p in out if p]


def _in_cache(site):
    from .. import frontends_dir
    cache = os.path.realpath(frontends_dir())
    return os.path.realpath(site).startswith(cache + os.sep)


def find(env=None):
    """(site folder, how it was found) of the Triton installed here for this Python, or (None, where it looked)."""
    env = os.environ if env is None else env
    given = env.get(ENV)
    if given is not None:
        if not given.strip():
            raise FrontendError(f"{ENV}={given!r} is set but empty: unset it to look for an installed Triton, or "
                                "give a folder holding triton/ (or `none`)", USAGE)
        if given.strip().lower() == "none":
            return None, f"{ENV}=none"
        from .site import _site_of
        return _site_of(given, f"triton={given} ({ENV})"), f"${ENV}"
    looked = []
    spec = importlib.util.find_spec("triton")
    if spec and spec.origin:
        site = os.path.dirname(os.path.dirname(spec.origin))
        if not _in_cache(site):
            return site, f"this Python's own ({sys.executable})"
    looked.append(f"{sys.executable}'s sys.path")
    tag = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for p in _prefixes(env):
        site = os.path.join(p, "lib", tag, "site-packages")
        looked.append(site)
        if os.path.isfile(os.path.join(site, "triton", "__init__.py")) and not _in_cache(site):
            return site, f"the environment {p}"
    return None, "; ".join(looked)
