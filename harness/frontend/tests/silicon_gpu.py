"""CTest frontend.silicon.gpu: the kernels LLVM wrote whole, run on this GPU by the run tier, judged by the model and
compared with the hand-written kernels' classes (./ptxcts frontend compare against the run-tier baseline).

Where the modules come from: the llvm-22 front-end when it is installed here (./ptxcts run --frontend llvm-22);
else a prebuilt folder (PTXCTS_FRONTEND_MODULES, default build/fe-llvm: one sub-folder per target, written on a
machine with llvm-22 by ./ptxcts modules --frontend llvm-22 --target sm_90 --ptx 9.0 --valid-only --out
build/fe-llvm/sm_90), which the run tier refuses when it was not made from this tree. Exit 77 (CTest: skipped, never
passed) without a GPU or without either source; else compare's exit status (0 every compared case has the
hand-written class, 1 a difference)."""
import os
import shutil
import subprocess
import sys
import time

ROOT = os.environ.get("PTXCTS_ROOT") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
SKIP = 77


def _gpu():
    smi = shutil.which("nvidia-smi")
    return bool(smi) and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def _source():
    import frontend
    if frontend.installed_dir("llvm-22"):
        return ["--frontend", "llvm-22"], "front-end llvm-22 (installed)"
    build = os.environ.get("PTXCTS_BUILD") or os.path.join(ROOT, "build")
    prebuilt = os.environ.get("PTXCTS_FRONTEND_MODULES") or os.path.join(build, "fe-llvm")
    if os.path.isfile(os.path.join(prebuilt, "sm_90", "index.json")):
        return ["--modules", prebuilt], f"prebuilt llvm-22 modules in {prebuilt}"
    return None, (f"llvm-22 is not installed here and there are no prebuilt modules in {prebuilt} (write them where "
                  "llvm-22 is: ./ptxcts modules --frontend llvm-22 --target sm_90 --ptx 9.0 --valid-only --out "
                  f"{prebuilt}/sm_90)")


def main():
    if not _gpu():
        print("frontend.silicon.gpu: no GPU here (nvidia-smi -L): skipped")
        return SKIP
    source, what = _source()
    if source is None:
        print(f"frontend.silicon.gpu: {what}: skipped")
        return SKIP
    out = os.path.join(os.environ.get("PTXCTS_FRONTEND_OUT") or os.path.join(ROOT, "build", "frontend"),
                       time.strftime("silicon-%Y%m%dT%H%M%S"))
    print(f"frontend.silicon.gpu: the run tier over {what}, into {out}", flush=True)
    run = subprocess.run([os.path.join(ROOT, "ptxcts"), "run", *source, "--out", out, "--quiet"], cwd=ROOT)
    if not os.path.isfile(os.path.join(out, "results.json")):
        print(f"frontend.silicon.gpu: the run tier wrote no results (exit {run.returncode})")
        return 1
    return subprocess.run([os.path.join(ROOT, "ptxcts"), "frontend", "compare", out,
                           "--json", os.path.join(out, "compare.json")], cwd=ROOT).returncode


if __name__ == "__main__":
    sys.exit(main())
