"""toolchains/catalog.toml: the named toolchains and the official wheels that carry their ptxas, nvJitLink and
nvdisasm (the disassembler of the lowering tier, from the release of the same name)."""
import os
import re

from framework.boundary import VerbError
from framework.documents import tomldoc

from .errors import MALFORMED, ToolchainError

_NAME = re.compile(r"^\d+\.\d+$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_WHEEL_KEYS = {"package", "version", "member", "sha256"}
PARTS = ("ptxas", "nvjitlink", "nvdisasm")   # nvjitlink and nvdisasm are optional


def path():
    from . import descriptions_dir
    return os.path.join(descriptions_dir(), "catalog.toml")


def read_versioned(file, what, error=ToolchainError):
    """The TOML document in file (a catalog: version = 1); error (exit 3) naming the file when it cannot be read,
    is not TOML or is of another version. what names the catalog in the message."""
    try:
        doc = tomldoc.read(file)   # the file and line named: not TOML, not UTF-8, a FIFO, nested too deeply
    except OSError as e:
        raise error(f"{file}: cannot read the {what}: {e.strerror or e}", MALFORMED) from None
    except VerbError as e:
        raise error(f"{e} (the {what})", MALFORMED) from None
    if type(doc.get("version")) is not int or doc.get("version") != 1:
        raise error(f"{file}: version: expected 1, got {doc.get('version')!r}", MALFORMED)
    return doc


def checked_wheel(w, where, keys, error=ToolchainError):
    """A copy of the wheel entry w (at where in the catalog); error (exit 3) unless it has exactly the fields keys
    and a sha256 hex digest."""
    if not isinstance(w, dict) or set(w) != keys:
        raise error(f"{where}: needs exactly {', '.join(sorted(keys))}", MALFORMED)
    if not _SHA.match(w["sha256"]):
        raise error(f"{where}.sha256: not a sha256 hex digest", MALFORMED)
    return dict(w)


def load(file=None):
    """{name: {"system": bool, "ptxas": wheel, "nvjitlink": wheel or None, "nvdisasm": wheel or None}};
    ToolchainError (exit 3) naming the file and the entry when it is malformed."""
    file = file or path()
    doc = read_versioned(file, "toolchain catalog")
    if not isinstance(doc.get("toolchain") or {}, dict):
        raise ToolchainError(f"{file}: toolchain: a table of [toolchain.\"NAME\"] tables", MALFORMED)
    out = {}
    for name, entry in (doc.get("toolchain") or {}).items():
        where = f"{file}: toolchain.\"{name}\""
        if not isinstance(entry, dict):
            raise ToolchainError(f"{where}: must be a table", MALFORMED)
        if not _NAME.match(name):
            raise ToolchainError(f"{where}: a toolchain name is MAJOR.MINOR, e.g. 13.5", MALFORMED)
        unknown = set(entry) - {"system", "ptxas", "nvjitlink", "nvdisasm"}
        if unknown:
            raise ToolchainError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}", MALFORMED)
        wheels = {}
        for part in PARTS:
            w = entry.get(part)
            if w is None:
                if part == "ptxas":
                    raise ToolchainError(f"{where}: ptxas: missing", MALFORMED)
                wheels[part] = None
                continue
            wheels[part] = checked_wheel(w, f"{where}.{part}", _WHEEL_KEYS)
        out[name] = {"system": bool(entry.get("system", False)), **wheels}
    if not out:
        raise ToolchainError(f"{file}: no [toolchain.\"NAME\"] entry", MALFORMED)
    return out
