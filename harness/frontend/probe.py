"""What a front-end can do, asked of its library: the PTX ISA versions and targets it writes, and (LLVM) the
intrinsic names it knows. The result is the front-end description toolchains/<name>.json (schema
`ptxcts-frontend`).

LLVM: for every target name of the ISA model and every PTX ISA version of the model, an empty kernel is compiled
with cpu=<target>, features=+ptx<NN> in a forked child; the pair is known when the child returns PTX whose
`.version` and `.target` are the ones asked for and LLVM printed no "is not a recognized processor/feature" (it
ignores an unknown processor or feature and writes its default instead) and did not exit ("PTX version V does not
support target T"). NVRTC: its version, nvrtcGetSupportedArchs, and the `.version` of the PTX it writes for each
architecture.
"""
import datetime
import functools
import platform
import re

from ptxcts_gen import targets as isa_targets
from framework.toolchains import probe as tc_probe

from . import SCHEMA, SCHEMA_VERSION, isolate, llvm_backend
from .errors import MALFORMED, FrontendError

# the intrinsic names a description keeps: the ones this chapter's forms and their kernels can use
INTRINSIC_PREFIXES = ("llvm.nvvm.cp.", "llvm.nvvm.fence.proxy", "llvm.nvvm.mbarrier", "llvm.nvvm.prefetch",
                      "llvm.nvvm.fence.mbarrier", "llvm.nvvm.barrier", "llvm.nvvm.read.ptx.sreg",
                      "llvm.nvvm.mapa", "llvm.nvvm.elect", "llvm.nvvm.isspacep", "llvm.nvvm.nanosleep")

_EMPTY = 'target triple = "nvptx64-nvidia-cuda"\ndefine ptx_kernel void @k() {\n  ret void\n}\n'


def _empty_module(backend, arg):
    cpu, ptx = arg
    return list(llvm_backend.header(backend.emit(_EMPTY, cpu, ptx)))


def describe_llvm(fe, jobs=2, log=print, backend=llvm_backend):
    """backend: llvm_backend (llvmlite) or llvm_backend.TritonLlvm (Triton's bundled LLVM): load, emit, version_string;
    both print LLVM's own messages for an unknown processor or feature and for a PTX version a target lacks."""
    backend.load(fe)
    names = [t.name for t in isa_targets.TARGETS]
    pairs = [(t, v) for t in names for v in isa_targets.PTX_VERSIONS]
    log(f"frontend: probing {fe.name}: {len(pairs)} (target, PTX version) pairs, each an empty kernel in a child")
    outs = isolate.run_many(functools.partial(_empty_module, backend), pairs, jobs=jobs, timeout=60)
    known_ptx, unknown_ptx, unknown_cpu = set(), set(), set()
    targets = {}
    for (t, v), o in zip(pairs, outs):
        if f"'{llvm_backend.features(v)}' is not a recognized feature" in o.stderr:
            unknown_ptx.add(v)
            continue
        if f"'{t}' is not a recognized processor" in o.stderr:
            unknown_cpu.add(t)
            continue
        known_ptx.add(v)
        row = targets.setdefault(t, {"ptx": [], "refusal_below_min": None})
        if o.ok and o.value == [v, t]:
            row["ptx"].append(v)
        elif not o.ok:
            msg = next((ln for ln in o.stderr.splitlines() if "LLVM ERROR" in ln), o.status)
            if not row["ptx"]:
                row["refusal_below_min"] = msg.strip()
    for t, row in list(targets.items()):
        row["ptx"].sort(key=tc_probe.ptx_key)
        if not row["ptx"]:
            del targets[t]
            continue
        row["min_ptx"], row["max_ptx"] = row["ptx"][0], row["ptx"][-1]
    intrinsics = llvm_backend.library_intrinsics(fe.library)
    version = backend.version_string(fe) if backend is not llvm_backend else llvm_backend.version_string()
    return _doc(fe, version, sorted(known_ptx, key=tc_probe.ptx_key), targets,
                {"how": "an empty kernel per (cpu=<target>, +ptx<NN>) pair, compiled in a forked child; known when "
                        "the PTX has that .version and .target and LLVM neither ignored the processor or feature "
                        "nor exited",
                 "unknown_targets": sorted(unknown_cpu, key=_tkey), "unknown_ptx": sorted(unknown_ptx,
                                                                                          key=tc_probe.ptx_key),
                 "intrinsics_in_library": len(intrinsics)},
                {"intrinsics": [n for n in intrinsics if n.startswith(INTRINSIC_PREFIXES)],
                 "intrinsic_prefixes": list(INTRINSIC_PREFIXES)})


def _tkey(t):
    return tc_probe._target_key(t) if re.fullmatch(r"sm_\d+[af]?", t) else (0, 0)


def _doc(fe, version_string, ptx_versions, targets, probed, extra):
    doc = {"schema": SCHEMA, "version": SCHEMA_VERSION, "name": fe.name, "kind": fe.kind,
           "version_string": version_string, "library": fe.entry["library"],
           "library_sha256": tc_probe.sha256_file(fe.library),
           "wheels": fe.entry["wheels"], "paired_ptxas": fe.ptxas_toolchain,
           "probed": dict(probed, date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                          host=platform.node()),
           "ptx_versions": ptx_versions, "targets": targets, "emits": {}}
    doc.update(extra)
    return doc


def describe(fe, jobs=2, log=print):
    if fe.kind == "llvm":
        return describe_llvm(fe, jobs, log)
    if fe.kind == "triton-llvm":
        return describe_llvm(fe, jobs, log, llvm_backend.TritonLlvm)
    if fe.kind == "nvrtc":
        from . import nvrtc_backend
        return nvrtc_backend.describe(fe, _doc, log)
    if fe.kind == "triton":
        from .triton import backend as triton_backend
        return triton_backend.describe(fe, _doc, log, jobs)
    if fe.kind == "cute-dsl":
        from .cute_dsl import backend as cute_dsl_backend
        return cute_dsl_backend.describe(fe, _doc, log)
    raise FrontendError(f"front-end {fe.name}: kind {fe.kind!r} has no probe", MALFORMED)
