"""./ptxcts toolchains {list,install,describe,probe,resolve,drift}: the toolchains under test."""
import json
import os
import sys

from ptxcts_gen import targets as isa

from framework import given
from framework import boundary
from framework.toolchains import (ENV, ToolchainError, cache_dir, catalog, committed_description, descriptions_dir,
                                  installed_dir, known_names, probe, resolve, system_ptxas, major_minor)
from framework.toolchains.errors import USAGE
from framework.toolchains.install import install, install_nvdisasm
from framework.toolchains.installer import install_named, installer_parser

from . import drift


def _parser():
    p, sub, s = installer_parser(
        "./ptxcts toolchains", "List, install, describe and probe the toolchains (ptxas + nvJitLink) the tiers can "
        f"judge. Every tier takes --toolchain NAME|PATH or ${ENV}.",
        ("list", "install", "describe", "probe", "resolve", "drift"),
        "the named toolchains: installed or not, version, PTX range, targets",
        "install named toolchains from the official wheels into the cache", "every toolchain of the catalog",
        boundary.ArgumentParser)
    s.add_argument("--nvdisasm-only", action="store_true",
                   help="install only the release's nvdisasm (the lowering tier's disassembler), not its ptxas")
    s = sub.add_parser("describe", help="what a toolchain knows: PTX versions, targets and where each starts")
    s.add_argument("toolchain", nargs="?", metavar="NAME|PATH")
    s.add_argument("--json", action="store_true", help="the whole description as JSON")
    s = sub.add_parser("probe", help="probe a toolchain and write its description toolchains/<name>.json")
    s.add_argument("toolchain", nargs="?", metavar="NAME|PATH")
    s.add_argument("--out", metavar="FILE", path=given.NEW_FILE, help="write here instead of toolchains/<name>.json")
    s = sub.add_parser("resolve", help="the resolved toolchain (paths, versions, targets) for another tier")
    s.add_argument("toolchain", nargs="?", metavar="NAME|PATH")
    s.add_argument("--json", action="store_true", help="one JSON object (the only format)")
    drift.add_parser(sub)
    return p


def cmd_list(_):
    cat = catalog.load()
    sys_px = system_ptxas()
    sys_v = None
    if sys_px:
        try:
            sys_v = probe.ptxas_version(sys_px)
        except probe.ProbeError:
            sys_v = None
    print(f"{'name':6} {'state':26} {'ptxas':10} {'PTX ISA':10} {'targets':>7} {'nvJitLink':10}")
    for name in known_names():
        entry = cat[name]
        if entry["system"] and sys_v and major_minor(sys_v) == name:
            state = "system (CUDA toolkit)"
        elif installed_dir(name):
            state = "installed"
        else:
            state = "not installed"
        d = committed_description(name)
        ptx = f"{d['ptx_versions'][0]}..{d['newest_ptx']}" if d else "?"
        ntargets = str(len(d["targets"])) if d else "?"
        jit = (entry["nvjitlink"] or {}).get("version", "-")
        print(f"{name:6} {state:26} {entry['ptxas']['version']:10} {ptx:10} {ntargets:>7} {jit:10}")
    print(f"cache: {cache_dir()}; descriptions: {descriptions_dir()}/<name>.json")
    return 0


def cmd_install(a):
    return install_named(a, install_nvdisasm if a.nvdisasm_only else install, known_names)


def _isa_min(target):
    t = isa.BY_NAME.get(target)
    return t.min_ptx if t else None


def cmd_describe(a):
    tc = resolve(a.toolchain)
    if a.json:
        json.dump(tc.description, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    d = tc.description
    print(f"toolchain {tc.name}: ptxas {d['ptxas_version']} at {tc.ptxas}")
    print(f"  sha256 {d['ptxas_sha256']}; nvJitLink: {tc.nvjitlink or 'none'}"
          f"{' (' + d['nvjitlink_version'] + ')' if tc.nvjitlink and d.get('nvjitlink_version') else ''}")
    print(f"  probed {d['probed']['date']} on {d['probed']['host']}")
    print(f"  PTX ISA versions: {', '.join(d['ptx_versions'])}")
    print(f"  -arch values: {' '.join(d['archs'])}")
    print(f"  {'target':9} {'-arch':8} {'PTX from':8} {'to':5} {'ISA model from':14} note")
    for t in sorted(d["targets"], key=probe._target_key):
        row = d["targets"][t]
        m = _isa_min(t)
        note = []
        if m is None:
            note.append("not in the ISA model")
        elif probe.ptx_key(row["min_ptx"]) < probe.ptx_key(m):
            note.append(f"accepted below the ISA's {m}")
        elif probe.ptx_key(row["min_ptx"]) > probe.ptx_key(m):
            note.append(f"refused from the ISA's {m} to {row['ptx'][0]}")
        it = isa.BY_NAME.get(t)
        if it and it.max_ptx and probe.ptx_key(row["max_ptx"]) > probe.ptx_key(it.max_ptx):
            note.append(f"accepted after the ISA's rename to {it.rename} (last {it.max_ptx})")
        if row["gaps"]:
            note.append("gaps " + ",".join(row["gaps"]))
        if row["arch"] != t:
            note.append(f"assembled as -arch={row['arch']}")
        print(f"  {t:9} {row['arch']:8} {row['min_ptx']:8} {row['max_ptx']:5} {m or '-':14} {'; '.join(note)}")
    missing = [t.name for t in isa.TARGETS if t.name not in d["targets"]]
    if missing:
        print(f"  targets of the ISA model this toolchain does not know: {' '.join(missing)}")
    for n in tc.notes:
        print(f"  note: {n}")
    return 0


def cmd_probe(a):
    if a.out and not os.path.isdir(os.path.dirname(os.path.abspath(a.out))):
        raise ToolchainError(f"--out {a.out}: its folder does not exist")
    tc = resolve(a.toolchain)
    source = tc.description.get("source")
    doc = probe.describe(tc.ptxas, tc.name, nvjitlink=tc.nvjitlink, source=source)
    out = a.out or os.path.join(descriptions_dir(), f"{tc.name}.json")
    from framework.documents import atomic_write   # never over a device or FIFO; a temporary twin, renamed
    try:
        atomic_write(out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    except OSError as e:
        raise ToolchainError(f"--out {out}: cannot write the description: {e.strerror}") from None
    print(f"toolchains: {tc.name}: ptxas {doc['ptxas_version']}, PTX {doc['ptx_versions'][0]}..{doc['newest_ptx']}, "
          f"{len(doc['targets'])} targets -> {out}")
    return 0


def cmd_resolve(a):
    tc = resolve(a.toolchain)
    json.dump(tc.resolved(), sys.stdout, sort_keys=True)
    print()
    return 0


def main(argv=None):
    p = _parser()
    a = p.parse_args(argv)
    # an empty value (an unset shell variable) never means the default: `--wheels ''` would fetch from the network
    for name, value in vars(a).items():
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str) and not v.strip():
                p.error(f"{'--' + name if name in ('wheels', 'out', 'json') else name.upper()} {v!r}: an empty value "
                        "(leave it out for the default)")
    verb = {"list": cmd_list, "install": cmd_install, "describe": cmd_describe, "probe": cmd_probe,
            "resolve": cmd_resolve, "drift": drift.cmd_drift}[a.cmd]
    try:
        return boundary.reported("ptxcts toolchains", lambda: verb(a),
                                 ((ToolchainError, "", None), (probe.ProbeError, "", USAGE)))
    except KeyboardInterrupt:
        print(f"ptxcts toolchains: interrupted by {boundary.signal_name()}", file=sys.stderr)
        return boundary.interrupt_exit_code()
