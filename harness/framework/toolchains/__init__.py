"""Toolchains under test: which ptxas / nvJitLink a tier uses, and what each can do.

A toolchain is named (`13.0`, `13.5`, `12.4`: toolchains/catalog.toml says where its files come from) or given as
a path (a ptxas executable, or a folder with bin/ptxas). Its description (schema `ptxcts-toolchain`, probed from
the tool by harness/framework/toolchains/probe.py) is committed as toolchains/<name>.json for named ones and cached by
checksum for paths. Every tier selects one with `--toolchain NAME|PATH` or the environment variable
PTXCTS_TOOLCHAIN (the option wins); without either, the installed CUDA toolkit's ptxas is used.

    from framework.toolchains import resolve
    tc = resolve("13.5")        # installs nothing: ToolchainError when 13.5 is not installed
    tc.ptxas, tc.knows_ptx("9.5"), tc.target_ok("sm_107a", "9.4"), tc.arch("sm_101a")
"""
import ctypes
import functools
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from framework.documents import atomic_write, jsonloc
from framework.documents.errors import ResultsError

from . import catalog, probe
from .errors import ToolchainError, USAGE, MALFORMED, cache_entry  # noqa: F401  (re-exported)

ENV = "PTXCTS_TOOLCHAIN"
# The PTX ISA version of the chapter the ISA model follows (shared/spec/000_*.txt); newer versions are "beyond
# the modelled chapter". The generator writes it into targets.json; this is its one definition.
from ptxcts_gen.targets import CHAPTER_PTX, PTX_VERSIONS  # noqa: E402
from framework import paths


def root():
    return paths.root()


def cache_dir():
    """Where installed toolchains live: $PTXCTS_TOOLCHAIN_CACHE, else ~/.cache/ptxcts/toolchains (outside the
    repository)."""
    from framework import given as given_paths
    try:   # set but blank is never "the default" (nor a folder named ' '); a file, a link to nowhere, a path under
        # a file are refused (framework.given)
        given = given_paths.env("PTXCTS_TOOLCHAIN_CACHE", given_paths.NEW_FOLDER, "where toolchains are installed; "
                                "unset it for ~/.cache/ptxcts/toolchains")
    except given_paths.GivenPathError as e:
        raise ToolchainError(str(e)) from None
    if given:
        return os.path.abspath(given)
    return os.path.abspath(os.path.join(_default_cache_home(), "ptxcts", "toolchains"))


def _default_cache_home():
    """$XDG_CACHE_HOME, else $HOME/.cache: each, when set, an absolute path whose existing part is a folder -- a
    HOME set but empty would put the cache at /.cache, one that is a file would list every toolchain 'not
    installed' (ToolchainError naming the variable)."""
    for var in ("XDG_CACHE_HOME", "HOME"):
        value = os.environ.get(var)
        if value is None or (var == "XDG_CACHE_HOME" and value == ""):   # XDG: empty means unset (its spec)
            continue
        if not value.strip() or not os.path.isabs(value):
            raise ToolchainError(f"{var}={value!r}: not an absolute folder, and the default toolchain cache is under "
                                 "it; set it, or name the cache with PTXCTS_TOOLCHAIN_CACHE")
        from framework import given
        wrong = given.problem(value, given.NEW_FOLDER)   # a file, a link to nowhere, a path under a file
        if wrong:
            raise ToolchainError(f"{var}={value}: {wrong}, and the default toolchain cache is under it; fix it, or "
                                 "name the cache with PTXCTS_TOOLCHAIN_CACHE")
        return value if var == "XDG_CACHE_HOME" else os.path.join(value, ".cache")
    return os.path.join(os.path.expanduser("~"), ".cache")   # HOME unset: the password database's home


def descriptions_dir():
    return os.path.join(root(), "toolchains")


def system_ptxas():
    """The installed CUDA toolkit's ptxas: on PATH, else /usr/local/cuda/bin; None when there is none."""
    found = shutil.which("ptxas")
    if found:
        return os.path.realpath(found)
    for d in ("/usr/local/cuda/bin", "/usr/local/cuda-13.0/bin"):
        p = os.path.join(d, "ptxas")
        if os.access(p, os.X_OK):
            return os.path.realpath(p)
    return None


def system_nvjitlink():
    for d in ("/usr/local/cuda/lib64", "/usr/local/cuda/lib", "/usr/local/cuda-13.0/lib"):
        for n in ("libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so"):
            p = os.path.join(d, n)
            if os.path.exists(p):
                return os.path.realpath(p)
    return None


def nvjitlink_version(lib):
    """'13.0' from the library's own nvJitLinkVersion (major.minor; the library has no patch level)."""
    try:
        dll = ctypes.CDLL(lib)
    except OSError as e:
        raise ToolchainError(f"{lib}: cannot load nvJitLink: {e}", MALFORMED) from None
    major, minor = ctypes.c_uint(), ctypes.c_uint()
    if dll.nvJitLinkVersion(ctypes.byref(major), ctypes.byref(minor)) != 0:
        raise ToolchainError(f"{lib}: nvJitLinkVersion failed", MALFORMED)
    return f"{major.value}.{minor.value}"


def major_minor(version):
    return ".".join(version.split(".")[:2])


@dataclass
class Toolchain:
    name: str
    ptxas: str
    description: dict
    nvjitlink: Optional[str] = None
    notes: list = field(default_factory=list)

    @property
    def ptxas_version(self):
        return self.description["ptxas_version"]

    @property
    def ptx_versions(self):
        return self.description["ptx_versions"]

    @property
    def newest_ptx(self):
        return self.description["newest_ptx"]

    def knows_ptx(self, ptx):
        return ptx in self.description["ptx_versions"]

    def target_row(self, target):
        return self.description["targets"].get(target)

    def target_ok(self, target, ptx):
        """Whether this ptxas accepts `.version ptx / .target target` (measured)."""
        row = self.target_row(target)
        return bool(row) and ptx in row["ptx"]

    def arch(self, target):
        """The -arch a module with `.target target` is assembled with, or None when ptxas has no arch for it."""
        row = self.target_row(target)
        return row["arch"] if row else None

    def why_not(self, target, ptx):
        """None when the toolchain takes (target, ptx); else the reason, naming the toolchain (and, for a version it
        does not know, in ptxas's own words: refusal)."""
        who = f"toolchain {self.name} (ptxas {self.ptxas_version})"
        if not self.knows_ptx(ptx):
            said = refusal(self.ptxas, ptx)
            return (f"{who} does not know PTX ISA {ptx} (it knows {self.ptx_versions[0]}..{self.newest_ptx})"
                    + (f"; ptxas: {said}" if said else ""))
        row = self.target_row(target)
        if not row:
            return f"{who} does not know target {target}"
        if ptx not in row["ptx"]:
            return f"{who} refuses `.target {target}` at PTX ISA {ptx} (it takes it at {_ranges(row['ptx'])})"
        return None

    def record(self):
        """The `toolchain` object of a results document."""
        return {"name": self.name, "ptxas": self.ptxas_version, "ptxas_path": self.ptxas,
                "ptxas_sha256": self.description["ptxas_sha256"],
                "nvjitlink": self.description.get("nvjitlink_version") if self.nvjitlink else None}

    def resolved(self):
        """What `./ptxcts toolchains resolve --json` prints (read by the run tier)."""
        d = self.description
        return {"name": self.name, "ptxas": self.ptxas, "ptxas_version": d["ptxas_version"],
                "ptxas_sha256": d["ptxas_sha256"], "nvjitlink": self.nvjitlink,
                "nvjitlink_version": d.get("nvjitlink_version") if self.nvjitlink else None,
                "ptx_versions": d["ptx_versions"], "newest_ptx": d["newest_ptx"], "chapter_ptx": CHAPTER_PTX,
                "targets": {t: {"min_ptx": r["min_ptx"], "max_ptx": r["max_ptx"], "arch": r["arch"], "ptx": r["ptx"]}
                            for t, r in d["targets"].items()},
                "notes": self.notes,
                # ptxas's own words for each version of the model it does not know (the run tier's not_supported)
                "refusals": {v: said for v in PTX_VERSIONS
                             if v not in d["ptx_versions"] and (said := refusal(self.ptxas, v))}}


@functools.lru_cache(maxsize=None)
def refusal(ptxas, ptx):
    """What ptxas itself says of a one-entry module of PTX ISA version `ptx` at `.target sm_90` (the probe's
    probe._assemble), one line, or "" when it takes it or cannot be run: the tool's own words beside the suite's
    reason."""
    with tempfile.TemporaryDirectory(prefix="ptxcts-refusal-") as d:
        try:
            ok, said = probe._assemble(ptxas, "sm_90", ptx, "sm_90", d, "v")
        except probe.ProbeError:
            return ""
        return "" if ok else " ".join(said.replace(os.path.join(d, "v.ptx"), "<module>").split())


def _ranges(versions):
    return f"{versions[0]}..{versions[-1]}" if versions else "no version"


def read_description(name, what="toolchain description", error=ToolchainError):
    """(path, document) of toolchains/<name>.json, the document None when there is no such file; error (exit 3)
    naming the file (and line) when it is not JSON (what names the kind of description in the message)."""
    p = os.path.join(descriptions_dir(), f"{name}.json")
    if not os.path.exists(p):
        return p, None
    try:
        return p, jsonloc.read(p)
    except ResultsError as e:
        raise error(f"malformed {what}: {e}", MALFORMED) from None


def committed_description(name):
    """toolchains/<name>.json, or None."""
    p, doc = read_description(name)
    if doc is None:
        return None
    if not isinstance(doc, dict) or doc.get("schema") != probe.SCHEMA or doc.get("version") != probe.SCHEMA_VERSION:
        doc = doc if isinstance(doc, dict) else {}
        raise ToolchainError(f"{p}: schema {doc.get('schema')!r} version {doc.get('version')!r} is not "
                             f"{probe.SCHEMA!r} version {probe.SCHEMA_VERSION}", MALFORMED)
    _check_description(doc, p)
    return doc


# The fields every reader of a description uses, with their JSON types.
_DESCRIPTION_FIELDS = {"ptxas_version": str, "ptxas_sha256": str, "ptx_versions": list, "newest_ptx": str,
                       "archs": list, "targets": dict, "probed": dict}
_TARGET_FIELDS = {"arch": str, "min_ptx": str, "max_ptx": str, "ptx": list, "gaps": list}


def _check_description(doc, path):
    """ToolchainError (MALFORMED) naming the file and the field a reader would trip over."""
    for name, kind in _DESCRIPTION_FIELDS.items():
        if not isinstance(doc.get(name), kind):
            raise ToolchainError(f"{path}: field {name!r}: missing or not a JSON {kind.__name__} (a toolchain "
                                 f"description is written by ./ptxcts toolchains probe)", MALFORMED)
    if not doc["ptx_versions"]:
        raise ToolchainError(f"{path}: field 'ptx_versions': empty", MALFORMED)
    for t, row in doc["targets"].items():
        for name, kind in _TARGET_FIELDS.items():
            if not isinstance(row, dict) or not isinstance(row.get(name), kind):
                raise ToolchainError(f"{path}: field 'targets.{t}.{name}': missing or not a JSON {kind.__name__}",
                                     MALFORMED)


def installed_dir(name):
    """The cache folder of an installed catalog toolchain, or None when it is not (completely) installed: a
    toolchain folder exists only once every file in it has been verified (install renames it into place last)."""
    d = cache_entry(cache_dir(), name)
    return d if os.path.exists(os.path.join(d, "INSTALLED.json")) else None


def _described(name, ptxas, nvjitlink, source):
    """The committed description when it is of this very binary; else one probed now (cached by checksum)."""
    sha = probe.sha256_file(ptxas)
    doc = committed_description(name)
    notes = []
    if doc and doc["ptxas_sha256"] == sha:
        return doc, notes
    cached = os.path.join(cache_dir(), "probes", f"{sha}.json")
    if os.path.exists(cached):
        try:
            doc2 = jsonloc.read(cached)
        except ResultsError as e:
            raise ToolchainError(f"a cached probe is malformed ({e}): remove it to probe again", MALFORMED) from None
    else:
        doc2 = probe.describe(ptxas, name, nvjitlink=nvjitlink, source=source)
        os.makedirs(os.path.dirname(cached), exist_ok=True)
        atomic_write(cached, json.dumps(doc2, indent=1, sort_keys=True))
    if doc:
        notes.append(f"ptxas {ptxas} differs from the binary toolchains/{name}.json was probed from "
                     f"(sha256 {sha[:12]} vs {doc['ptxas_sha256'][:12]}): using a description probed from it")
    doc2 = dict(doc2, name=name)
    return doc2, notes


def known_names():
    return sorted(catalog.load().keys(), key=lambda n: tuple(int(x) for x in n.split(".")))


def resolve(spec=None, env=None):
    """The toolchain named or pointed to by spec, else $PTXCTS_TOOLCHAIN, else the installed toolkit.
    Raises ToolchainError (exit code USAGE) for an unknown name, a name not installed, or a path that is not a
    working ptxas."""
    env = os.environ if env is None else env
    if spec is not None and not spec.strip():
        raise ToolchainError("--toolchain '': an empty value (name a toolchain or a ptxas path, or leave the option "
                             "out)", USAGE)
    if spec is None and ENV in env and not env[ENV].strip():
        raise ToolchainError(f"{ENV} is set but empty; unset it for the installed toolkit, or name a toolchain",
                             USAGE)
    if not spec and env.get(ENV):
        try:
            return resolve(env[ENV], env)
        except ToolchainError as e:   # name the variable the toolchain came from
            raise ToolchainError(f"{ENV}={env[ENV]}: {e}", e.code) from None
    spec = spec or None
    cat = catalog.load()
    if spec is None:
        px = system_ptxas()
        if px is None:
            raise ToolchainError("no ptxas on PATH or in /usr/local/cuda/bin, and no --toolchain / "
                                 f"{ENV}: install the CUDA toolkit or name a toolchain ({', '.join(known_names())})")
        return _from_path(px, default=True)
    if os.sep in spec or spec.startswith("."):
        return _from_path(spec)
    if spec not in cat:
        raise ToolchainError(f"unknown toolchain {spec!r}: the known ones are {', '.join(known_names())}; or give "
                             f"the path of a ptxas (--toolchain /path/to/ptxas)")
    entry = cat[spec]
    if entry.get("system"):
        px = system_ptxas()
        if px and major_minor(probe.ptxas_version(px)) == spec:
            lib = system_nvjitlink()
            if lib and nvjitlink_version(lib) != spec:
                lib = None
            doc, notes = _described(spec, px, lib, {"kind": "system", "path": px})
            return Toolchain(spec, px, doc, lib, notes)
    d = installed_dir(spec)
    if d is None:
        raise ToolchainError(f"toolchain {spec} is not installed: run `./ptxcts toolchains install {spec}` "
                             f"(it downloads {entry['ptxas']['package']}=={entry['ptxas']['version']} into "
                             f"{cache_dir()}; needs network)")
    inst_path = os.path.join(d, "INSTALLED.json")
    try:
        inst = jsonloc.read(inst_path)
    except (OSError, ResultsError) as e:
        raise ToolchainError(f"{inst_path}: unreadable or not JSON ({e}): install it again with `./ptxcts "
                             f"toolchains install --force {spec}`", MALFORMED) from None
    bad = [k for k in ("ptxas", "source") if not isinstance(inst, dict) or k not in inst]
    if bad:
        raise ToolchainError(f"{inst_path}: field {bad[0]!r} missing: install it again with `./ptxcts toolchains "
                             f"install --force {spec}`", MALFORMED)
    px = os.path.join(d, inst["ptxas"])
    lib = os.path.join(d, inst["nvjitlink"]) if inst.get("nvjitlink") else None
    doc, notes = _described(spec, px, lib, inst["source"])
    return Toolchain(spec, px, doc, lib, notes)


def resolve_for(prog, spec=None):
    """resolve(spec) for a verb: each note of the toolchain becomes one line "<prog>: toolchain note: ..." on
    standard error."""
    tc = resolve(spec)
    for n in tc.notes:
        sys.stderr.write(f"{prog}: toolchain note: {n}\n")
    return tc


def _from_path(path, default=False):
    p = os.path.abspath(path)
    if os.path.isdir(p):
        for cand in (os.path.join(p, "bin", "ptxas"), os.path.join(p, "ptxas")):
            if os.path.isfile(cand):
                p = cand
                break
        else:
            raise ToolchainError(f"--toolchain {path}: a folder without bin/ptxas or ptxas")
    try:
        version = probe.ptxas_version(p)
    except probe.ProbeError as e:
        raise ToolchainError(f"--toolchain {path}: {e}") from None
    name = major_minor(version)
    lib = None
    for cand in (os.path.join(os.path.dirname(os.path.dirname(p)), "lib64", "libnvJitLink.so"),
                 os.path.join(os.path.dirname(os.path.dirname(p)), "lib", "libnvJitLink.so")):
        if os.path.exists(cand):
            lib = os.path.realpath(cand)
    if default and lib is None:
        lib = system_nvjitlink()
    if lib and nvjitlink_version(lib) != name:
        lib = None
    doc, notes = _described(name, p, lib, {"kind": "system" if default else "path", "path": p})
    return Toolchain(name, p, doc, lib, notes)
