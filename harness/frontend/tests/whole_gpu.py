"""CTest frontend.whole.<mode>.gpu: a front-end's whole kernels (harness/frontend/whole) written by that front-end
and run on this GPU, each judged by the bytes it leaves against the reference model's.

    whole_gpu.py pinned      the pinned Triton (`./ptxcts frontend install triton`)
    whole_gpu.py installed   the Triton installed for this Python (a runner's own: `./ptxcts frontend find-triton`)
    whole_gpu.py cute-dsl    the pinned CuTe DSL (`./ptxcts frontend install cute-dsl`)

Exit: whole-run's (0 when every kernel passed); 77 (CTest: skipped, never passed) without a GPU or that front-end."""
import os
import shutil
import subprocess
import sys
import time

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
PTXCTS = os.path.join(ROOT, "ptxcts")
SKIP = 77


def _gpu():
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


PINNED = {"pinned": "triton", "cute-dsl": "cute-dsl"}   # a mode of a pinned front-end: its name
WHAT = {"pinned": "pinned Triton (./ptxcts frontend install triton)", "installed": "Triton for this Python",
        "cute-dsl": "pinned CuTe DSL (./ptxcts frontend install cute-dsl)"}


def _frontend(mode):
    if mode in PINNED:
        sys.path[:0] = [os.path.join(ROOT, "harness"), os.path.join(ROOT, "generator")]
        from frontend import installed_dir
        return PINNED[mode] if installed_dir(PINNED[mode]) else None
    r = subprocess.run([PTXCTS, "frontend", "find-triton", "--path-only"], cwd=ROOT, capture_output=True, text=True)
    return f"triton={r.stdout.strip()}" if r.returncode == 0 and r.stdout.strip() else None


def main(mode):
    name = f"frontend.whole.gpu ({mode})"
    if not _gpu():
        print(f"{name}: no GPU here (nvidia-smi -L): skipped")
        return SKIP
    fe = _frontend(mode)
    if not fe:
        print(f"{name}: no {WHAT[mode]}: skipped")
        return SKIP
    base = os.environ.get("PTXCTS_FRONTEND_OUT") or os.path.join(ROOT, "build", "frontend")
    out = os.path.join(base, time.strftime(f"whole-{mode}-%Y%m%dT%H%M%S"))
    w = subprocess.run([PTXCTS, "frontend", "whole-write", "--frontend", fe, "--quiet", "--out",
                        os.path.join(out, "kernels")], cwd=ROOT)
    if w.returncode:
        return w.returncode
    return subprocess.run([PTXCTS, "frontend", "whole-run", os.path.join(out, "kernels"), "--out",
                           os.path.join(out, "run")], cwd=ROOT).returncode


if __name__ == "__main__":
    if sys.argv[1:] not in [[m] for m in WHAT]:
        print("usage: whole_gpu.py pinned|installed|cute-dsl", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
