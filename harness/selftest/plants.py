"""Faults planted into the run tier's modules, as every self-test plants them: `./ptxcts modules` with
PTXCTS_PLANT_FAULT (generator/ptxcts_gen/faults.py plants), the plants ptxas refuses dropped (they would be a
compile error, not a fault the suite must catch). The run tier's catch (run_catch.py) runs them on the GPU, the
lowering tier's (lower_catch.py) judges their SASS."""
import json
import os
import subprocess
import sys

from ptxcts_gen.targets import CHAPTER_PTX
from framework import paths
from selftest.runs import env_with

TARGET, PTX = "sm_90", CHAPTER_PTX
ROOT = paths.root()


def modules(kind, allow, out, target=TARGET, families=(), ptx=PTX, curated=False):
    """Render the run tier's modules for target at PTX ISA version ptx into out, with kind planted (None: clean)
    into the forms the file allow names (None: every form it applies to); {form: plant}. families: only these
    families' modules. curated: only the curated forms (`modules --curated`)."""
    env = env_with(PTXCTS_PLANT_FAULT=kind, PTXCTS_PLANT_FAULT_FORMS=allow)
    if kind is None:
        env.pop("PTXCTS_PLANT_FAULT", None)
        env.pop("PTXCTS_PLANT_FAULT_FORMS", None)
    argv = [sys.executable, os.path.join(ROOT, "ptxcts"), "modules", "--target", target, "--ptx", ptx,
            "--valid-only", "--max-entries", "64", "--out", out]
    for fam in families:
        argv += ["--family", fam]
    if curated:
        argv.append("--curated")
    r = subprocess.run(argv, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"selftest: ./ptxcts modules with fault {kind} failed: {r.stderr.strip()}")
    if kind is None:
        return {}
    with open(os.path.join(out, "faults.json")) as f:
        return json.load(f)["planted"]


def refused_by_ptxas(out, ptxas, target=TARGET, only=None):
    """Forms whose planted kernel ptxas refuses: their entries' line ranges hold an error. only: a set of form IDs
    (the planted ones); a module holding none of them is not assembled (nothing of it can be refused as a plant)."""
    from framework.toolchains import diagnostics
    with open(os.path.join(out, "index.json")) as f:
        index = json.load(f)
    refused = set()
    for mod in index["modules"]:
        if only is not None and not any(e["module"] == mod and e["form"] in only for e in index["entries"].values()):
            continue
        path = os.path.join(out, mod)
        r = subprocess.run([ptxas, f"-arch={target}", path, "-o", os.devnull], capture_output=True, text=True)
        if r.returncode == 0:
            continue
        lines = [d.line for d in diagnostics.parse(r.stdout + r.stderr) if d.rejects and d.line]
        for entry, e in index["entries"].items():
            if e["module"] == mod and any(e["line_first"] <= ln <= e["line_last"] for ln in lines):
                refused.add(e["form"])
        if not lines:   # refused without a line: every form of the module is suspect
            refused.update(e["form"] for e in index["entries"].values() if e["module"] == mod)
    return refused


def plant_kind(kind, forms, ptxas, tmp, target=TARGET, keep=None, cache=None, ptx=PTX, curated=False):
    """Plant kind into the run tier's modules of forms ({form ID: Form}) for target, as the self-test runs them
    (tmp/m, the allow file tmp/forms.txt): plants ptxas refuses are dropped and the modules rendered again until
    ptxas takes every plant left. keep(form ID): whether a plant ptxas takes is kept (default: all). Returns
    (planted, refused, live): {form: plant} of every plant, the form IDs ptxas refused, {form: plant} of the kept
    plants ptxas takes. On return the allow file names the live forms and ptxas takes every plant of the modules in
    tmp/m (with keep=None, they are exactly the live plants). cache: a dict kept across calls in one process (the
    repetitions of selftest/rates.py): a kind planted before for the same forms, target and ptxas is not planted
    and assembled again, and tmp/m is not written (the allow file is). curated: the modules hold the curated forms
    only (`modules --curated`; every form of `forms` must be one)."""
    allow, mdir = os.path.join(tmp, "forms.txt"), os.path.join(tmp, "m")
    key = (kind, target, ptx, ptxas, tuple(sorted(forms)))
    if cache is not None and key in cache:
        planted, refused = cache[key]
        live = {fid: p for fid, p in planted.items() if fid not in refused and (keep is None or keep(fid))}
        with open(allow, "w") as f:
            f.write("\n".join(sorted(live)) + "\n")
        return planted, refused, live
    fams = sorted({forms[fid].family for fid in forms})
    with open(allow, "w") as f:
        f.write("\n".join(forms) + "\n")
    planted = {fid: p for fid, p in modules(kind, allow, mdir, target, fams, ptx, curated).items() if fid in forms}
    refused, live = set(), {}
    for _ in range(8):   # a fatal error hides the lines after it: check again until ptxas takes all
        new = refused_by_ptxas(mdir, ptxas, target, set(planted)) & set(planted)
        refused |= new
        live = {fid: p for fid, p in planted.items() if fid not in refused and (keep is None or keep(fid))}
        with open(allow, "w") as f:
            f.write("\n".join(sorted(live)) + "\n")
        if not new:
            break
        modules(kind, allow, mdir, target, fams, ptx, curated)
    if cache is not None:
        cache[key] = (planted, refused)
    return planted, refused, live
