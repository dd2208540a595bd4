"""toolchains/catalog.toml: the named toolchains and the official wheels that carry their ptxas, nvJitLink and
nvdisasm (the disassembler of the lowering tier, from the release of the same name)."""
import os
import re

import tomllib

from .errors import MALFORMED, ToolchainError

_NAME = re.compile(r"^\d+\.\d+$")
_SHA = re.compile(r"^[0-9a-f]{64}$")
_WHEEL_KEYS = {"package", "version", "member", "sha256"}
PARTS = ("ptxas", "nvjitlink", "nvdisasm")   # nvjitlink and nvdisasm are optional


def path():
    from . import descriptions_dir
    return os.path.join(descriptions_dir(), "catalog.toml")


def load(file=None):
    """{name: {"system": bool, "ptxas": wheel, "nvjitlink": wheel or None, "nvdisasm": wheel or None}};
    ToolchainError (exit 3) naming the
    file and the entry when it is malformed."""
    file = file or path()
    try:
        with open(file, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise ToolchainError(f"{file}: cannot read the toolchain catalog: {e}", MALFORMED) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ToolchainError(f"{file}: malformed TOML: {e}", MALFORMED) from None
    if type(doc.get("version")) is not int or doc.get("version") != 1:
        raise ToolchainError(f"{file}: version: expected 1, got {doc.get('version')!r}", MALFORMED)
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
            if not isinstance(w, dict) or set(w) != _WHEEL_KEYS:
                raise ToolchainError(f"{where}.{part}: needs exactly {', '.join(sorted(_WHEEL_KEYS))}", MALFORMED)
            if not _SHA.match(w["sha256"]):
                raise ToolchainError(f"{where}.{part}.sha256: not a sha256 hex digest", MALFORMED)
            wheels[part] = dict(w)
        out[name] = {"system": bool(entry.get("system", False)), **wheels}
    if not out:
        raise ToolchainError(f"{file}: no [toolchain.\"NAME\"] entry", MALFORMED)
    return out
