"""The disassembler: which nvdisasm judges a toolchain's output, and the ptxas -> nvdisasm pipeline of one module.

nvdisasm comes from the official `nvidia-cuda-nvdisasm` wheel of the toolchain's own release (toolchains/
catalog.toml, installed by `./ptxcts toolchains install --nvdisasm-only NAME` into the cache), else from beside
the toolchain's ptxas or the CUDA toolkit when its release matches. A toolchain whose release has no nvdisasm
(no wheel before 13.2; a toolkit without the nvdisasm component) is read with the newest installed one: the
tier warns and records both releases (every run document names the disassembler's version and path).
"""
import glob
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

from framework.boundary import EXIT_USAGE, VerbError
from framework import toolchains
from framework.toolchains import install as tc_install

from framework.toolchains import sass

WHEEL = "nvidia-cuda-nvdisasm"
ENV = "PTXCTS_NVDISASM"


class DisasmError(VerbError):
    """No nvdisasm to use, or one that is not an nvdisasm (exit 2)."""
    code = EXIT_USAGE


@dataclass
class Disassembler:
    path: str
    version: str           # 13.5.37
    matches: bool          # same release (major.minor) as the toolchain's ptxas
    note: str = ""

    def record(self):
        return {"nvdisasm": self.version, "nvdisasm_path": self.path}


def version_of(path):
    try:
        r = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        raise DisasmError(f"{path}: cannot run nvdisasm: {e.strerror}")
    m = re.search(r"V(\d+\.\d+\.\d+)", r.stdout)
    if r.returncode != 0 or not m:
        raise DisasmError(f"{path}: not an nvdisasm (`{os.path.basename(path)} --version` says "
                          f"{(r.stdout or r.stderr).strip()[:120]!r})")
    return m.group(1)


def _installed():
    """{release name: path} of every nvdisasm installed in the cache."""
    out = {}
    for d in glob.glob(os.path.join(toolchains.cache_dir(), "nvdisasm", "*")):
        p = tc_install.installed_nvdisasm(os.path.basename(d))
        if p:
            out[os.path.basename(d)] = p
    return out


def _release_key(name):
    return tuple(int(x) for x in re.findall(r"\d+", name))


def find(tc, given=None, env=None):
    """The Disassembler for toolchain tc: --nvdisasm (a path or a release name), else $PTXCTS_NVDISASM, else the
    toolchain's own release, else the newest installed (release mismatch noted). DisasmError (exit 2) naming
    the wheel and the install command when there is none."""
    env = os.environ if env is None else env
    want = tc.name
    spec = given or env.get(ENV)
    if spec:
        where = "--nvdisasm" if given else ENV
        if os.sep in spec or spec.startswith("."):
            if not os.path.isfile(spec):
                raise DisasmError(f"{where} {spec}: no such file")
            path = os.path.abspath(spec)
        else:
            path = tc_install.installed_nvdisasm(spec)
            if path is None:
                raise DisasmError(f"{where} {spec}: the nvdisasm of release {spec} is not installed: run "
                                  f"`./ptxcts toolchains install --nvdisasm-only {spec}` (wheel {WHEEL})")
        return _made(path, tc)
    own = tc_install.installed_nvdisasm(want)
    if own:
        return _made(own, tc)
    for cand in (os.path.join(os.path.dirname(tc.ptxas), "nvdisasm"), shutil.which("nvdisasm"),
                 "/usr/local/cuda/bin/nvdisasm"):
        if cand and os.access(cand, os.X_OK):
            d = _made(cand, tc)
            if d.matches:
                return d
    inst = _installed()
    if inst:
        newest = max(inst, key=_release_key)
        return _made(inst[newest], tc)
    raise DisasmError(
        f"no nvdisasm for toolchain {tc.name}: none beside its ptxas, none in the CUDA toolkit, none installed. "
        f"Install the {WHEEL} wheel: `./ptxcts toolchains install --nvdisasm-only 13.5` (offline: add --wheels "
        f"DIR with the .whl in DIR), or give one with --nvdisasm PATH")


def _made(path, tc):
    v = version_of(path)
    same = toolchains.major_minor(v) == toolchains.major_minor(tc.ptxas_version)
    note = "" if same else (f"release mismatch: ptxas {tc.ptxas_version} (toolchain {tc.name}) is read with nvdisasm "
                            f"{v} ({path}); both are recorded in the results")
    return Disassembler(path, v, same, note)


class ToolFailed(Exception):
    """ptxas or nvdisasm refused a module: its message."""


def lower_module(ptxas, nvdisasm, arch, text, keep=None):
    """Assemble the module text with -lineinfo and disassemble it: the parsed Listing. ToolFailed when ptxas or
    nvdisasm exits non-zero; sass.SassError when nvdisasm's output has a line of no known shape."""
    with tempfile.TemporaryDirectory(prefix="ptxcts-lower-") as t:
        ptx, cubin = os.path.join(t, "m.ptx"), os.path.join(t, "m.cubin")
        with open(ptx, "w") as f:
            f.write(text)
        r = subprocess.run([ptxas, f"-arch={arch}", "-lineinfo", ptx, "-o", cubin], capture_output=True,
                           text=True, timeout=600)
        if r.returncode != 0:
            raise ToolFailed(f"ptxas -arch={arch} -lineinfo exited {r.returncode}: {r.stderr.strip()[:2000]}")
        return disassemble(nvdisasm, cubin, keep)


def disassemble(nvdisasm, cubin, keep=None):
    r = subprocess.run([nvdisasm, "-c", "-gp", cubin], capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise ToolFailed(f"nvdisasm -c -gp {cubin} exited {r.returncode}: {r.stderr.strip()[:2000]}")
    if keep:
        with open(keep, "w") as f:
            f.write(r.stdout)
    return sass.parse(r.stdout, f"nvdisasm -c -gp {os.path.basename(cubin)}")
