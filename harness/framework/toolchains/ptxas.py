"""One ptxas call on one module (which ptxas, and what it knows, is the toolchain's: harness/toolchains)."""
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from typing import List, Optional

from framework.toolchains import diagnostics

CALL_TIMEOUT_S = 600


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
