"""CTest frontend.triton.installed and frontend.triton.installed.gpu: the Triton installed on this machine (a GPU
runner's own, found by `./ptxcts frontend find-triton`: harness/frontend/triton/installed.py), judged as
`--frontend triton=SITE`, its results naming its version (`triton-<version>+named`).

    triton_installed.py tier   every case it can express (`./ptxcts frontend run --frontend triton=SITE`): exit 0
                               when every judged case passes or is a reviewed finding; paired with ptxas 13.5 where
                               that toolchain is installed, else with this machine's default toolchain (the cases
                               above its PTX ISA are then not_supported, with that reason)
    triton_installed.py gpu    its instruction under test in the run tier's frame (`./ptxcts modules --frontend
                               triton=SITE`, harness/frontend/framed/splice.py) for sm_90, sm_90a, sm_80, run on this
                               GPU and compared with the hand-written classes (`./ptxcts frontend compare`)

Exit 77 (CTest: skipped, never passed) where no Triton is installed for this Python, and for `gpu` without a GPU."""
import os
import shutil
import subprocess
import sys
import time

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
PTXCTS = os.path.join(ROOT, "ptxcts")
SKIP = 77


def _found():
    r = subprocess.run([PTXCTS, "frontend", "find-triton"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode == 1:
        print(f"frontend.triton.installed: {r.stderr.strip()}: skipped")
        return None
    if r.returncode != 0:
        print(r.stderr, end="")
        sys.exit(r.returncode)
    site, name, how = r.stdout.strip().split("\t")
    print(f"frontend.triton.installed: {name} at {site} ({how})", flush=True)
    return site, name


def _default_toolchain():
    """(name, PTX ISA version) of this machine's default toolchain (the run tier's)."""
    r = subprocess.run([PTXCTS, "toolchains", "resolve", "--json"], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"frontend.triton.installed: no toolchain to assemble its PTX: {r.stderr.strip()}")
        sys.exit(2)
    import json
    doc = json.loads(r.stdout)
    return doc["name"], doc["chapter_ptx"]


def _toolchain():
    """[] where the pairing (ptxas 13.5) is installed, else this machine's default toolchain."""
    if subprocess.run([PTXCTS, "toolchains", "resolve", "13.5"], cwd=ROOT, capture_output=True).returncode == 0:
        return []
    name, _ = _default_toolchain()
    print(f"frontend.triton.installed: toolchain 13.5 is not installed: paired with {name} instead")
    return ["--toolchain", name]


def _out(what):
    base = os.environ.get("PTXCTS_FRONTEND_OUT") or os.path.join(ROOT, "build", "frontend")
    return os.path.join(base, time.strftime(f"triton-installed-{what}-%Y%m%dT%H%M%S"))


def tier():
    found = _found()
    if not found:
        return SKIP
    site, name = found
    out = _out("tier")
    r = subprocess.run([PTXCTS, "frontend", "run", "--frontend", f"triton={site}", *_toolchain(), "--quiet",
                        "--out", out], cwd=ROOT)
    import json
    with open(os.path.join(out, "results.json")) as f:
        got = json.load(f)["toolchain"]["name"]
    if got != name:
        print(f"frontend.triton.installed: the results name {got!r}, not {name!r}")
        return 1
    return r.returncode


def _gpu():
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def gpu():
    if not _gpu():
        print("frontend.triton.installed.gpu: no GPU here (nvidia-smi -L): skipped")
        return SKIP
    found = _found()
    if not found:
        return SKIP
    site, _name = found
    out = _out("gpu")
    modules = os.path.join(out, "modules")
    tc, ptx = _default_toolchain()   # the run tier's: the modules are written at its PTX ISA version
    script = os.path.join(ROOT, "scripts", "frontend_silicon.sh")
    w = subprocess.run(["bash", script, "write", modules, "--ptx", ptx, f"triton={site}"], cwd=ROOT)
    if w.returncode != 0:
        return w.returncode
    return subprocess.run(["bash", script, "run", modules, os.path.join(out, "runs"), "--toolchain", tc],
                          cwd=ROOT).returncode


if __name__ == "__main__":
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    if mode not in ("tier", "gpu"):
        print("usage: triton_installed.py tier|gpu", file=sys.stderr)
        sys.exit(2)
    sys.exit(tier() if mode == "tier" else gpu())
