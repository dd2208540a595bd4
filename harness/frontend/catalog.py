"""toolchains/frontends.toml: the front-ends by name, the wheels they come from and the ptxas paired with each."""
import os
import re

from toolchains.catalog import checked_wheel, read_versioned

from .errors import MALFORMED, FrontendError

KINDS = ("llvm", "nvrtc")
_NAME = re.compile(r"^[a-z][a-z0-9.+-]*$")
_WHEEL_KEYS = {"package", "version", "sha256"}
_FIELDS = {"kind", "ptxas", "library", "headers", "wheels"}


def path():
    from toolchains import descriptions_dir
    return os.path.join(descriptions_dir(), "frontends.toml")


def load(file=None):
    """{name: {"kind", "ptxas", "library", "headers" (or None), "wheels": [...]}}; FrontendError (exit 3) naming
    the file and the entry when it is malformed."""
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
        wheels = e.get("wheels")
        if not isinstance(wheels, list) or not wheels:
            raise FrontendError(f"{where}.wheels: a non-empty list of wheels", MALFORMED)
        wheels = [checked_wheel(w, f"{where}.wheels[{i}]", _WHEEL_KEYS, FrontendError) for i, w in enumerate(wheels)]
        out[name] = {"kind": e["kind"], "ptxas": e["ptxas"], "library": e["library"], "headers": e.get("headers"),
                     "wheels": wheels}
    if not out:
        raise FrontendError(f"{file}: no [frontend.\"NAME\"] entry", MALFORMED)
    return out
