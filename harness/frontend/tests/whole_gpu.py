"""CTest frontend.whole.gpu and frontend.triton.installed.whole: a Triton's whole kernels (harness/frontend/whole)
written by that Triton and run on this GPU, each judged by the bytes it leaves against the reference model's.

    whole_gpu.py pinned      the pinned Triton (`./ptxcts frontend install triton`)
    whole_gpu.py installed   the Triton installed for this Python (a runner's own: `./ptxcts frontend find-triton`)

Exit: whole-run's (0 when every kernel passed); 77 (CTest: skipped, never passed) without a GPU or that Triton."""
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


def _frontend(mode):
    if mode == "pinned":
        sys.path[:0] = [os.path.join(ROOT, "harness"), os.path.join(ROOT, "generator")]
        from frontend import installed_dir
        return "triton" if installed_dir("triton") else None
    r = subprocess.run([PTXCTS, "frontend", "find-triton", "--path-only"], cwd=ROOT, capture_output=True, text=True)
    return f"triton={r.stdout.strip()}" if r.returncode == 0 and r.stdout.strip() else None


def main(mode):
    name = f"frontend.whole.gpu ({mode})"
    if not _gpu():
        print(f"{name}: no GPU here (nvidia-smi -L): skipped")
        return SKIP
    fe = _frontend(mode)
    if not fe:
        what = "pinned Triton (./ptxcts frontend install triton)" if mode == "pinned" else "Triton for this Python"
        print(f"{name}: no {what}: skipped")
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
    if sys.argv[1:] not in (["pinned"], ["installed"]):
        print("usage: whole_gpu.py pinned|installed", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
