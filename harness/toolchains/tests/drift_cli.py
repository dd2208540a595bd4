"""What the drift detector's tests share: `./ptxcts toolchains drift ARGS` as a process, and a file named ptxas
that is not one (the usage error each way of the detector must give, naming it)."""
import os
import subprocess

from framework import paths

PTXCTS = os.path.join(paths.root(), "ptxcts")


def drift(*args, timeout=600):
    return subprocess.run([PTXCTS, "toolchains", "drift", *args], capture_output=True, text=True, timeout=timeout)


def not_a_ptxas(folder):
    """An executable `ptxas` in folder that is a shell script printing hello; its path."""
    fake = os.path.join(folder, "ptxas")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho hello\n")
    os.chmod(fake, 0o755)
    return fake
