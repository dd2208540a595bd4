"""toolchains/frontends.toml: the front-ends by name, the wheels they come from and the ptxas paired with each."""
import os
import re

from framework.toolchains.catalog import checked_wheel, read_versioned

from .errors import MALFORMED, USAGE, FrontendError

KINDS = ("llvm", "nvrtc", "triton-llvm", "triton", "cute-dsl")
_NAME = re.compile(r"^[a-z][a-z0-9.+-]*$")
_WHEEL_KEYS = {"package", "version", "sha256"}        # one file for every Python (a py3-none wheel)
_PER_PYTHON_KEYS = {"package", "version", "python"}   # one file per CPython: python.<tag> = {file, sha256}
_PIN_KEYS = {"file", "sha256"}
_TAG = re.compile(r"^cp3\d+$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = {"kind", "ptxas", "library", "headers", "wheels", "shares"}


def path():
    from framework.toolchains import descriptions_dir
    return os.path.join(descriptions_dir(), "frontends.toml")


def load(file=None):
    """{name: {"kind", "ptxas", "library", "headers" (or None), "wheels": [...], "install": the front-end whose
    install it is (its own name, or the one it `shares`: the same wheels, one folder of the cache)}}; FrontendError
    (exit 3) naming the file and the entry when it is malformed."""
    file = file or path()
    doc = read_versioned(file, "front-end catalog", FrontendError)
    out = {}
    for name, e in (doc.get("frontend") or {}).items():
        where = f"{file}: frontend.\"{name}\""
        if not _NAME.match(name):
            raise FrontendError(f"{where}: a front-end name is lower-case letters, digits and . + -", MALFORMED)
        if not isinstance(e, dict):
            raise FrontendError(f"{where}: not a table", MALFORMED)
        unknown = set(e) - _FIELDS
        if unknown:
            raise FrontendError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}", MALFORMED)
        if e.get("kind") not in KINDS:
            raise FrontendError(f"{where}.kind: {e.get('kind')!r} is not one of {', '.join(KINDS)}", MALFORMED)
        for k in ("ptxas", "library"):
            if not isinstance(e.get(k), str) or not e[k]:
                raise FrontendError(f"{where}.{k}: missing or not a string", MALFORMED)
        if e["kind"] == "nvrtc" and not isinstance(e.get("headers"), str):
            raise FrontendError(f"{where}.headers: an nvrtc front-end names its CCCL include folder", MALFORMED)
        wheels, shares = e.get("wheels"), e.get("shares")
        if shares is not None:   # another front-end's install: its wheels, stated there once
            if wheels is not None or not isinstance(shares, str) or not shares:
                raise FrontendError(f"{where}.shares: the name of the front-end whose install it uses, in place of "
                                    "wheels of its own", MALFORMED)
            wheels = []
        elif not isinstance(wheels, list) or not wheels:
            raise FrontendError(f"{where}.wheels: a non-empty list of wheels", MALFORMED)
        wheels = [_checked(w, f"{where}.wheels[{i}]") for i, w in enumerate(wheels)]
        out[name] = {"kind": e["kind"], "ptxas": e["ptxas"], "library": e["library"], "headers": e.get("headers"),
                     "wheels": wheels, "install": shares or name}
    if not out:
        raise FrontendError(f"{file}: no [frontend.\"NAME\"] entry", MALFORMED)
    for name, e in out.items():
        owner = out.get(e["install"])
        if owner is None or owner["install"] != e["install"]:
            raise FrontendError(f"{file}: frontend.\"{name}\".shares: {e['install']!r} is not a front-end with wheels "
                                f"of its own (one of {', '.join(n for n, x in sorted(out.items()) if x['install'] == n)})",
                                MALFORMED)
        e["wheels"] = owner["wheels"]
    return out


def _checked(w, where):
    """A copy of one wheel entry: {package, version, sha256} (the same file for every Python), or {package,
    version, python: {tag: {file, sha256}}} (a wheel built per CPython: the file pip downloads for each tag it is
    pinned for, e.g. cp311, cp312, and that file's sha256). FrontendError (exit 3) otherwise."""
    if not (isinstance(w, dict) and "python" in w):
        return checked_wheel(w, where, _WHEEL_KEYS, FrontendError)
    if set(w) != _PER_PYTHON_KEYS:
        raise FrontendError(f"{where}: a wheel per Python needs exactly {', '.join(sorted(_PER_PYTHON_KEYS))}",
                            MALFORMED)
    for k in ("package", "version"):
        if not isinstance(w[k], str) or not w[k]:
            raise FrontendError(f"{where}.{k}: missing or not a string", MALFORMED)
    pins = w["python"]
    if not isinstance(pins, dict) or not pins:
        raise FrontendError(f"{where}.python: a table of CPython tags (cp311 = {{file, sha256}}, ...)", MALFORMED)
    stem = f"{w['package'].replace('-', '_')}-{w['version']}-"
    out = {}
    for tag, pin in pins.items():
        at = f"{where}.python.{tag}"
        if not _TAG.match(tag):
            raise FrontendError(f"{at}: not a CPython tag (cp311, cp312, ...)", MALFORMED)
        if not isinstance(pin, dict) or set(pin) != _PIN_KEYS:
            raise FrontendError(f"{at}: needs exactly {', '.join(sorted(_PIN_KEYS))}", MALFORMED)
        if not isinstance(pin["sha256"], str) or not _SHA.match(pin["sha256"]):
            raise FrontendError(f"{at}.sha256: not a sha256 hex digest", MALFORMED)
        f = pin["file"]
        if not isinstance(f, str) or not f.startswith(stem) or not f.endswith(".whl") or "/" in f or \
                tag not in wheel_python_tags(f):
            raise FrontendError(f"{at}.file: {f!r} is not a {stem}*.whl file name tagged {tag}", MALFORMED)
        out[tag] = {"file": f, "sha256": pin["sha256"]}
    return {"package": w["package"], "version": w["version"], "python": out}


def wheel_python_tags(filename):
    """The Python tags of a wheel's file name (name-version[-build]-PY-ABI-PLATFORM.whl): {"cp312"}, {"py3"}; empty
    for a name that is not a wheel's."""
    parts = filename[:-len(".whl")].split("-") if filename.endswith(".whl") else []
    return set(parts[-3].split(".")) if len(parts) in (5, 6) else set()


def pin_for(wheel, tag):
    """(sha256, file name or None) that wheel (a checked entry) must have for the Python tag (cp312): its one
    sha256 for a wheel of every Python; for a wheel per Python, the tag's pin, else FrontendError (exit 2) naming
    the tags it is pinned for."""
    if "python" not in wheel:
        return wheel["sha256"], None
    pin = wheel["python"].get(tag)
    if pin is None:
        tags = ", ".join(sorted(wheel["python"]))
        raise FrontendError(f"{wheel['package']}=={wheel['version']} is pinned for {tags} only (toolchains/"
                            f"frontends.toml), not for this Python ({tag}): add the file and sha256 of its {tag} wheel "
                            f"there, or run with one of those", USAGE)
    return pin["sha256"], pin["file"]
