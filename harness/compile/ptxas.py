"""The installed ptxas: where it is, its version, which targets and PTX versions it knows, and one call."""
import functools
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from typing import List, Optional

from compile import diagnostics

CALL_TIMEOUT_S = 600


def find() -> str:
    """ptxas on PATH, else the CUDA toolkit's usual places; PTXAS overrides both."""
    explicit = os.environ.get("PTXAS")
    if explicit:
        if not os.access(explicit, os.X_OK):
            raise SystemExit(f"compile: PTXAS={explicit} is not an executable")
        return explicit
    found = shutil.which("ptxas")
    if found:
        return found
    for d in ("/usr/local/cuda/bin", "/usr/local/cuda-13.0/bin"):
        p = os.path.join(d, "ptxas")
        if os.access(p, os.X_OK):
            return p
    raise SystemExit("compile: no ptxas on PATH, in /usr/local/cuda/bin or in $PTXAS: install the CUDA toolkit")


@functools.lru_cache(maxsize=None)
def version(path: str) -> str:
    """`13.0.88` from `Cuda compilation tools, release 13.0, V13.0.88`."""
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"\bV(\d+\.\d+\.\d+)", out)
    return m.group(1) if m else out.strip().splitlines()[-1] if out.strip() else "unknown"


@functools.lru_cache(maxsize=None)
def known_archs(path: str) -> frozenset:
    """The sm_* values ptxas's --help lists as allowed for --gpu-name."""
    text = subprocess.run([path, "--help"], capture_output=True, text=True).stdout
    m = re.search(r"--gpu-name.*?Allowed values for this option:(.*?)Default value", text, re.S)
    if not m:
        return frozenset()
    return frozenset(re.findall(r"'(sm_\w+)'", m.group(1)))


@functools.lru_cache(maxsize=None)
def knows_ptx(path: str, ptx: str) -> Optional[str]:
    """None when ptxas parses `.version <ptx>`, else its message (e.g. `Unsupported .version 9.1; current
    version is '9.0'`). Probed with a target every version since 7.0 allows, and parsing only."""
    text = f".version {ptx}\n.target sm_80\n.address_size 64\n"
    with tempfile.TemporaryDirectory(prefix="ptxcts-probe-") as d:
        src = os.path.join(d, "probe.ptx")
        with open(src, "w") as f:
            f.write(text)
        r = subprocess.run([path, "-arch=sm_80", src, "-o", os.path.join(d, "probe.cubin")],
                           capture_output=True, text=True)
    for d in diagnostics.parse(r.stdout + r.stderr):
        if d.rejects and ".version" in d.message:
            return d.message
    return None


@dataclass
class Call:
    """One ptxas run on one module."""
    argv: List[str]
    returncode: Optional[int]
    output: str
    seconds: float
    diags: List[diagnostics.Diagnostic] = field(default_factory=list)
    timed_out: bool = False
    signal: Optional[str] = None

    @property
    def accepted(self) -> bool:
        return self.returncode == 0 and not any(d.rejects and not diagnostics.is_abort_notice(d) for d in self.diags)


def assemble(path: str, arch: str, module_text: str, workdir: str, name: str = "mod",
             timeout: float = CALL_TIMEOUT_S) -> Call:
    """`ptxas -arch=<arch> <name>.ptx -o <name>.cubin` in workdir."""
    src = os.path.join(workdir, name + ".ptx")
    out = os.path.join(workdir, name + ".cubin")
    with open(src, "w") as f:
        f.write(module_text)
    argv = [path, f"-arch={arch}", src, "-o", out]
    t0 = time.monotonic()
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return Call(argv, None, text, time.monotonic() - t0, diagnostics.parse(text), timed_out=True)
    secs = time.monotonic() - t0
    text = r.stdout + r.stderr
    sig = None
    if r.returncode < 0:
        try:
            sig = signal.Signals(-r.returncode).name
        except ValueError:
            sig = str(-r.returncode)
    try:
        os.unlink(out)
    except FileNotFoundError:
        pass
    return Call(argv, r.returncode, text, secs, diagnostics.parse(text), signal=sig)
