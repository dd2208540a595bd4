"""The front-end tier: the compilers that write this chapter's instructions, judged on their PTX.

A front-end (toolchains/frontends.toml) is a compiler library installed from official wheels into the cache:
`llvm-22` (LLVM's NVPTX back-end, from llvmlite) and `nvrtc-13.5+cccl-3.5` (CUDA C++ through NVRTC, with CCCL's
cuda::ptx). What each knows (PTX ISA versions, targets, intrinsic names) is probed from the library into
toolchains/<name>.json. Each is paired with the ptxas toolchain that assembles its output.

    from frontend import resolve
    fe = resolve("llvm-22")          # FrontendError when unknown or not installed
    fe.site, fe.library, fe.description, fe.ptxas_toolchain
"""
import os
from dataclasses import dataclass, field

from . import catalog
from .errors import MALFORMED, USAGE, FrontendError  # noqa: F401  (re-exported)

ENV = "PTXCTS_FRONTEND"
SCHEMA = "ptxcts-frontend"
SCHEMA_VERSION = 1


def frontends_dir():
    """Where installed front-ends live: <toolchain cache>/frontends (outside the repository)."""
    from framework.toolchains import cache_dir
    return os.path.join(cache_dir(), "frontends")


def installed_dir(name):
    """The install folder of front-end `name` when it was installed for this Python (install.installed_here: an
    install made by another interpreter does not load here), else None."""
    from .install import installed_here
    return installed_here(name)


def description_path(name):
    from framework.toolchains import descriptions_dir
    return os.path.join(descriptions_dir(), f"{name}.json")


def load_description(name):
    """toolchains/<name>.json, or None when it was never probed; FrontendError (exit 3) when malformed."""
    from framework.toolchains import read_description
    p, doc = read_description(name, "front-end description", FrontendError)
    if doc is None:
        return None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or doc.get("version") != SCHEMA_VERSION:
        raise FrontendError(f"{p}: not a {SCHEMA} version {SCHEMA_VERSION} document (write it with "
                            f"./ptxcts frontend probe {name})", MALFORMED)
    for k, kind in (("ptx_versions", list), ("targets", dict), ("library_sha256", str), ("emits", dict)):
        if not isinstance(doc.get(k), kind):
            raise FrontendError(f"{p}: field {k!r}: missing or not a JSON {kind.__name__}", MALFORMED)
    for t, row in doc["targets"].items():
        if not isinstance(row, dict) or not isinstance(row.get("ptx"), list):
            raise FrontendError(f"{p}: field 'targets.{t}.ptx': missing or not a JSON list", MALFORMED)
    return doc


@dataclass
class Frontend:
    name: str
    kind: str
    root: str                   # the installed folder
    site: str                   # the pip --target tree
    library: str                # the shared library loaded
    headers: str                # nvrtc: CCCL's include folder; else None
    ptxas_toolchain: str        # the toolchain (catalog.toml) that assembles its output
    entry: dict
    description: dict = None
    notes: list = field(default_factory=list)
    spec: str = None            # what --frontend named, when not the name (triton=PATH)

    def why_not(self, target, ptx):
        """None when the front-end writes `.version ptx / .target target` (as probed); else the reason."""
        d = self.description
        if ptx not in d["ptx_versions"]:
            return (f"front-end {self.name} does not know PTX ISA {ptx} (it knows "
                    f"{', '.join(d['ptx_versions'])})" if d["ptx_versions"] else f"front-end {self.name} knows "
                    "no PTX ISA version")
        row = d["targets"].get(target)
        if row is None:
            return f"front-end {self.name} does not know target {target}"
        if ptx not in row["ptx"]:
            return (f"front-end {self.name} does not write `.target {target}` at PTX ISA {ptx} (it does at "
                    f"{', '.join(row['ptx']) or 'no version'})")
        return None

    def record(self, tc):
        """The `toolchain` object of a results document: the front-end's name, and the paired ptxas."""
        d = self.description
        return {"name": self.name, "ptxas": tc.ptxas_version, "ptxas_path": tc.ptxas,
                "ptxas_sha256": tc.description["ptxas_sha256"], "nvjitlink": None,
                "frontend": f"{self.name}: {d.get('version_string', '?')}", "frontend_kind": self.kind,
                "frontend_library_sha256": d["library_sha256"], "paired_ptxas": tc.name}


def known_names():
    return sorted(catalog.load())


def resolve(spec=None, env=None, need_description=True):
    """The front-end named spec, else $PTXCTS_FRONTEND. FrontendError (USAGE) for a missing or unknown name or
    one not installed."""
    env = os.environ if env is None else env
    how = "--frontend"
    if not spec:
        spec, how = env.get(ENV), ENV
        if spec is not None and not spec.strip():   # set but blank is never "no front-end named"
            raise FrontendError(f"{ENV}={spec!r} is set but empty; unset it and give --frontend NAME, or name one: "
                                f"{', '.join(known_names())}")
        if not spec:
            raise FrontendError(f"name a front-end (--frontend NAME or ${ENV}): {', '.join(known_names())}")
    if spec.startswith("triton="):   # a Triton the user names: a site-packages folder, a checkout, a wheel
        from .triton.site import named_triton
        return named_triton(spec[len("triton="):], need_description)
    cat = catalog.load()
    if spec not in cat:
        raise FrontendError(f"unknown front-end {spec!r} ({how}): the known ones are {', '.join(sorted(cat))} "
                            f"(toolchains/frontends.toml)")
    e = cat[spec]
    d = installed_dir(spec)
    if d is None:
        pkgs = " ".join(f"{w['package']}=={w['version']}" for w in e["wheels"])
        raise FrontendError(f"front-end {spec} is not installed: run `./ptxcts frontend install {spec}` (it "
                            f"downloads {pkgs} into {frontends_dir()}; offline: `./ptxcts frontend install "
                            f"--wheels DIR {spec}` with those wheels in DIR)")
    site = os.path.join(d, "site")
    fe = Frontend(spec, e["kind"], d, site, os.path.join(site, e["library"]),
                  os.path.join(site, e["headers"]) if e.get("headers") else None, e["ptxas"], e)
    if need_description:
        fe.description = load_description(spec)
        if fe.description is None:
            raise FrontendError(f"front-end {spec}: no description toolchains/{spec}.json: run "
                                f"`./ptxcts frontend probe {spec}`")
        from framework.toolchains import probe as tc_probe
        sha = tc_probe.sha256_file(fe.library)
        if sha != fe.description["library_sha256"]:
            fe.notes.append(f"{fe.library} differs from the library toolchains/{spec}.json was probed from (sha256 "
                            f"{sha[:12]} vs {fe.description['library_sha256'][:12]}): probe it again")
    return fe
