"""./ptxcts frontend {list,install,probe,coverage,run}: the compilers that write this chapter's instructions."""
import argparse
import json
import os
import sys
from collections import Counter

from framework import given
from framework import paths
from framework import boundary

from framework.pool import usable_cpus

from . import ENV, FrontendError, catalog, description_path, installed_dir, known_names, resolve
from .coverage import coverage_of
from .errors import MALFORMED

MAX_JOBS = 1024   # children at once; more is a typo, not a machine (as the compile tier's --jobs)


def _root():
    return paths.root()


_ABOUT = ("The front-end tier: LLVM's NVPTX back-end and CUDA C++ through NVRTC with CCCL's cuda::ptx, judged on "
          "the PTX they write for every compile case they can express (same form as the case, assembled by the "
          f"paired ptxas). Front-ends are named in toolchains/frontends.toml; --frontend NAME or ${ENV} selects one.")


def _parser():
    from framework.toolchains.installer import installer_parser
    p, sub, _ = installer_parser("./ptxcts frontend", _ABOUT,
                                 ("list", "install", "probe", "coverage", "check-modules", "run", "compare",
                                  "find-triton", "whole-write", "whole-run"),
                              list_help="the front-ends: installed or not, version, PTX versions, targets, paired "
                              "ptxas", install_help="install front-ends from their official wheels into the cache",
                              every="every front-end of the catalog")
    s = sub.add_parser("probe", help="probe a front-end's library and write toolchains/<name>.json")
    s.add_argument("name", nargs="?", metavar="NAME")
    s.add_argument("--out", metavar="FILE", path=given.NEW_FILE, help="write here instead of toolchains/<name>.json")
    s.add_argument("-j", "--jobs", type=int, default=usable_cpus(),
                   help=f"children probing at once, 1..{MAX_JOBS} (default: the CPUs this process may use, %(default)s "
                        f"here)")
    s = sub.add_parser("coverage", help="forms each front-end can express, per family; every other form with its reason")
    s.add_argument("--frontend", action="append", default=[], metavar="NAME", help="only this front-end (repeatable)")
    s.add_argument("--json", metavar="FILE", path=given.NEW_FILE, help="also write the coverage as JSON here")
    s.add_argument("--reasons", action="store_true", help="list every form that cannot be expressed, with its reason")
    s.add_argument("--qualifiers", action="store_true", help="list the decision on every qualifier value of the "
                   "model: how the front-end writes it, or why it cannot")
    s = sub.add_parser("check-modules", help="whether a folder `./ptxcts modules --frontend NAME` wrote can be run "
                       "as it is here (made from this tree's manifest, contract and templates); no library needed")
    s.add_argument("folder", path=given.FOLDER, metavar="DIR")
    s.add_argument("--target", help="the target its kernels must be for")
    s.add_argument("--ptx", help="the PTX ISA version its kernels must be at")
    s = sub.add_parser("find-triton", help="the Triton installed on this machine for this Python (a runner's own), "
                       "as `triton=SITE`: prints SITE, its version and where it was found; exit 1 when there is none")
    s.add_argument("--path-only", action="store_true", help="print SITE alone (nothing when there is none)")
    s = sub.add_parser("run", help="judge a front-end on every compile case it can express; writes results.json")
    s.add_argument("--frontend", metavar="NAME", help=f"the front-end (default ${ENV})")
    s.add_argument("--toolchain", metavar="NAME|PATH",
                   help="the ptxas that assembles its output (default: the front-end's pairing in frontends.toml)")
    s.add_argument("--family", action="append", default=[], help="only this family (repeat, or comma-separate)")
    s.add_argument("--target", action="append", default=[], help="only this target (repeatable)")
    s.add_argument("--ptx", action="append", default=[], help="only this PTX ISA version (repeatable)")
    s.add_argument("--case", action="append", default=[], metavar="GLOB", help="only case IDs matching GLOB")
    s.add_argument("--limit", type=int, help="at most N cases, spread evenly over the selection")
    s.add_argument("-j", "--jobs", type=int, default=usable_cpus(),
                   help=f"compiling children (and ptxas calls) at once, 1..{MAX_JOBS} (default: the CPUs this process "
                        f"may use, %(default)s here)")
    s.add_argument("--out", path=given.NEW_FOLDER, help="output folder (default results/<run-id>/)")
    s.add_argument("--resume", path=given.RESUME, metavar="DIR", help="finish the interrupted run in DIR (its results.json marked "
                   "partial): the same run ID, only the cases not judged; give the same selection")
    s.add_argument("--expectations", path=given.FILE, help="reviewed ptxas findings (default results/expectations/ptxas.toml)")
    s.add_argument("--findings", path=given.FILE, help="reviewed front-end findings (default results/expectations/frontends.toml)")
    s.add_argument("--quiet", action="store_true", help="no progress lines")
    s.add_argument("--guard", action="store_true", help="the version and target guard check: also every kernel "
                   "the front-end can write at every (target, PTX version) its description lists (run.guard_cases)")
    s = sub.add_parser("whole-write", help="Triton's whole kernels for a target's forms, compiled by that Triton end to "
                       "end, with their launches and the model's expected bytes, into a folder (no GPU needed)")
    s.add_argument("--frontend", metavar="NAME", help="triton, triton=PATH (a Triton of your own) or cute-dsl")
    s.add_argument("--target", default="sm_90a", choices=("sm_90a", "sm_90"), help="default %(default)s")
    s.add_argument("--ptx", default="8.6", help="the PTX ISA version asked of Triton (default %(default)s)")
    s.add_argument("--out", required=True, path=given.NEW_FOLDER, help="the folder to write")
    s.add_argument("--quiet", action="store_true", help="no progress line")
    s = sub.add_parser("whole-run", help="run a folder whole-write wrote on this machine's GPU, judge each kernel's "
                       "buffers against the model's bytes; writes results.jsonl and summary.txt")
    s.add_argument("folder", path=given.FOLDER, metavar="DIR")
    s.add_argument("--out", required=True, path=given.NEW_FOLDER, help="the folder to write")
    s.add_argument("--timeout", type=float, default=20.0, help="seconds a kernel may run before it is a timeout "
                   "(default %(default)s)")
    s.add_argument("--findings", path=given.FILE, help="reviewed front-end findings: a refusal one covers is its "
                   "spec_divergence (default results/expectations/frontends.toml)")
    s = sub.add_parser("compare", add_help=False, help="a front-end's run-tier run on a GPU against the hand-written "
                       "classes of the same device (every difference a finding with its replay command)")
    s.add_argument("args", nargs=argparse.REMAINDER)
    return p


def cmd_list(_):
    cat = catalog.load()
    print(f"{'name':22} {'state':14} {'kind':11} {'paired ptxas':12} {'PTX ISA':10} {'targets':>7}  version")
    for name in sorted(cat):
        e = cat[name]
        state = "installed" if installed_dir(name) else "not installed"
        d = None
        try:
            from . import load_description
            d = load_description(name)
        except FrontendError:
            d = None
        ptx = f"{d['ptx_versions'][0]}..{d['ptx_versions'][-1]}" if d and d["ptx_versions"] else "?"
        print(f"{name:22} {state:14} {e['kind']:11} {e['ptxas']:12} {ptx:10} {len(d['targets']) if d else '?':>7}  "
              f"{d.get('version_string', '?') if d else 'not probed'}")
    return 0


def cmd_install(a):
    from framework.toolchains.installer import install_named
    from .install import install
    return install_named(a, install, known_names, FrontendError, "frontend", "front-end")


def cmd_probe(a):
    from . import probe
    fe = resolve(a.name, need_description=False)
    doc = probe.describe(fe, jobs=a.jobs)
    out = a.out or description_path(fe.name)
    if not os.path.isdir(os.path.dirname(os.path.abspath(out))):
        raise FrontendError(f"--out {out}: its folder does not exist")
    from framework.documents import atomic_write   # never over a device or FIFO; a temporary twin, renamed
    atomic_write(out, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"frontend: {fe.name}: {doc['version_string']}, PTX {', '.join(doc['ptx_versions'])}, "
          f"{len(doc['targets'])} targets -> {out}")
    return 0


def cmd_coverage(a):
    from framework import manifest
    from ptxcts_gen import load_forms
    forms = load_forms()
    m = manifest.load(manifest.default_dir())
    names = a.frontend or known_names()
    for n in names:
        if n not in catalog.load():
            raise FrontendError(f"--frontend {n}: unknown front-end (known: {', '.join(known_names())})")
    docs = [coverage_of(n, forms, m.cases) for n in names]
    for d in docs:
        print(f"front-end {d['frontend']}: {d['expressible_valid_forms']} of {d['valid_forms']} valid forms "
              f"expressible; {d['cases']['expressible']} cases ({d['cases']['valid']} valid, "
              f"{d['cases']['invalid']} invalid for their target or PTX version)")
        print(f"  {'family':32} {'valid forms':>11} {'expressible':>11}")
        for fam, c in d["families"].items():
            print(f"  {fam:32} {c.get('valid', 0):>11} {c.get('expressible', 0):>11}")
        reasons = Counter((x["family"], x["reason"]) for x in d["unexpressible"] if x["valid"])
        print("  valid forms it cannot express, by reason:")
        for (fam, r), n in sorted(reasons.items()):
            print(f"    {n:4} {fam}: {r}")
        if a.reasons:
            for x in d["unexpressible"]:
                print(f"    {x['form']}: {x['reason']}")
        if a.qualifiers:
            print("  qualifier values of the model (family qualifier = value: writes / cannot):")
            for x in d["qualifiers"]:
                verdict = f"writes: {x['writes']}" if "writes" in x else f"cannot: {x['cannot']}"
                print(f"    {x['family']} {x['qualifier']} = {x['value']!r}: {verdict}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(docs, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


def cmd_check_modules(a):
    from .framed.splice import made_from_of
    from .silicon import check_folder
    doc = check_folder(a.folder, _root(), a.target, a.ptx, made_from_of(_root()))
    p = doc["frontend"]
    print(f"frontend: {a.folder}: {len(doc['entries'])} kernels written by {p.get('name')} ({p.get('version_string')}) "
          f"for {doc['target']} PTX {doc['ptx']} from this tree's manifest, contract and templates; "
          f"{len(doc['not_written'])} forms not written (index.json lists why)")
    return 0


def cmd_find_triton(a):
    from .triton import installed
    from .triton.site import _version, named_name
    site, how = installed.find()
    if site is None:
        if not a.path_only:
            print(f"frontend: no Triton installed for this Python (looked in: {how})", file=sys.stderr)
        return 1
    if a.path_only:
        print(site)
    else:
        print(f"{site}\t{named_name(_version(site))}\t{how}")
    return 0


def cmd_run(a):
    from .run import run
    return run(a, _root())


def cmd_whole_write(a):
    from .whole.write import write
    return write(a, _root())


def cmd_whole_run(a):
    from .whole.run import run
    return run(a, _root())


def cmd_compare(a):
    from . import compare
    return compare.main(a.args, sys.stdout)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # compare parses its own options (frontend.compare), --help included
    if argv[:1] == ["compare"]:
        a = argparse.Namespace(cmd="compare", args=argv[1:])
    else:
        p = _parser()
        a = p.parse_args(argv)
        jobs = getattr(a, "jobs", None)   # probe and run
        if jobs is not None and not 1 <= jobs <= MAX_JOBS:
            p.error(f"--jobs {jobs}: must be >= 1 and <= {MAX_JOBS}")
    from ptxcts_gen.frontends import MappingError
    from framework import toolchains
    verb = {"list": cmd_list, "install": cmd_install, "probe": cmd_probe, "coverage": cmd_coverage,
            "check-modules": cmd_check_modules, "run": cmd_run, "compare": cmd_compare,
            "find-triton": cmd_find_triton, "whole-write": cmd_whole_write, "whole-run": cmd_whole_run}
    try:
        # FrontendError, ExpectationsError, the manifest's and results' errors: their own code
        return boundary.reported("ptxcts frontend", lambda: verb[a.cmd](a), (
            (MappingError, "malformed mapping entry: ", MALFORMED), (toolchains.ToolchainError, "--toolchain: ", None),
            (boundary.VerbError, "", None)))
    except KeyboardInterrupt:   # before the first case was judged (frontend run keeps what it judged)
        print(f"ptxcts frontend: interrupted by {boundary.signal_name()}", file=sys.stderr)
        return boundary.interrupt_exit_code()
