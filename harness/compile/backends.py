"""The three compilers whose verdicts the compile tier records, one load path each:

* `ptxas`     the toolchain's ptxas, one process per module (compile.ptxas);
* `nvjitlink` the toolchain's libnvJitLink, PTX to cubin in process (nvJitLinkCreate -arch=..., AddData PTX);
* `driver`    the GPU driver's JIT, cuModuleLoadDataEx on the device present (CUDA_CACHE_DISABLE=1), for the
              targets that device can load.

Each one takes a module's text and an -arch and returns a compile.ptxas.Call: its diagnostics are ptxas's own
lines ("ptxas application ptx input, line N; error : ..."), so one judge maps them back to cases for all three.
"""
import ctypes
import os
import re
import subprocess
import time
import types
from typing import Optional

from framework import given
from framework.toolchains import diagnostics, ptxas

LOAD_PATHS = ("ptxas", "nvjitlink", "driver")


class BackendError(Exception):
    """The backend cannot be used here (no library, no GPU): every case of it is not_supported with this text."""


class Ptxas:
    load_path = "ptxas"

    def __init__(self, path):
        self.path = path

    def assemble(self, arch, text, workdir, name):
        return ptxas.assemble(self.path, arch, text, workdir, name=name)


def _sym(lib, name):
    """nvJitLink exports plain names (nvJitLinkCreate) beside versioned ones (__nvJitLinkCreate_12_4)."""
    try:
        return getattr(lib, name)
    except AttributeError:
        raise BackendError(f"{lib._name}: no symbol {name}") from None


class NvJitLink:
    """PTX to cubin through libnvJitLink, in this process (the library is loaded once per worker)."""
    load_path = "nvjitlink"
    PTX_INPUT = 2          # NVJITLINK_INPUT_PTX

    def __init__(self, lib_path):
        if not lib_path:
            raise BackendError("the toolchain has no nvJitLink library")
        try:
            self.lib = ctypes.CDLL(lib_path)
        except OSError as e:
            raise BackendError(f"cannot load {lib_path}: {e}") from None
        self.path = lib_path
        L = self.lib
        self.create, self.add, self.complete, self.destroy = (
            _sym(L, "nvJitLinkCreate"), _sym(L, "nvJitLinkAddData"), _sym(L, "nvJitLinkComplete"),
            _sym(L, "nvJitLinkDestroy"))
        self.log_size, self.log = _sym(L, "nvJitLinkGetErrorLogSize"), _sym(L, "nvJitLinkGetErrorLog")
        self.info_size, self.info = _sym(L, "nvJitLinkGetInfoLogSize"), _sym(L, "nvJitLinkGetInfoLog")

    def _text(self, handle, size_fn, get_fn):
        n = ctypes.c_size_t()
        if size_fn(handle, ctypes.byref(n)) != 0 or n.value <= 1:
            return ""
        buf = ctypes.create_string_buffer(n.value + 1)
        get_fn(handle, buf)
        return buf.value.decode(errors="replace")

    def assemble(self, arch, text, workdir, name):
        h = ctypes.c_void_p()
        opts = (ctypes.c_char_p * 1)(f"-arch={arch}".encode())
        argv = [f"nvJitLink({self.path})", f"-arch={arch}", name + ".ptx"]
        t0 = time.monotonic()
        rc = self.create(ctypes.byref(h), 1, opts)
        if rc != 0:
            return ptxas.Call(argv, rc, f"nvJitLinkCreate -arch={arch} returned {rc}", time.monotonic() - t0,
                              diagnostics.parse(f"ptxas fatal   : nvJitLinkCreate -arch={arch} returned {rc}"))
        try:
            data = text.encode()
            rc = self.add(h, self.PTX_INPUT, data, len(data), (name + ".ptx").encode())
            if rc == 0:
                rc = self.complete(h)
            out = self._text(h, self.log_size, self.log) + self._text(h, self.info_size, self.info)
        finally:
            self.destroy(ctypes.byref(h))
        return ptxas.Call(argv, rc, out, time.monotonic() - t0, diagnostics.parse(out))


class Driver:
    """The driver's PTX JIT on the first visible GPU (primary context), errors from CU_JIT_ERROR_LOG_BUFFER."""
    load_path = "driver"
    LOG = 1 << 22      # a module of 64 invalid entries can log well over 64 KiB
    CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 3, 4
    CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 5, 6

    def __init__(self):
        os.environ["CUDA_CACHE_DISABLE"] = "1"   # a verdict never comes from the JIT cache
        try:
            self.cu = ctypes.CDLL("libcuda.so.1")
        except OSError as e:
            raise BackendError(f"no GPU driver here (libcuda.so.1: {e})") from None
        cu = self.cu
        if cu.cuInit(0) != 0:
            raise BackendError("cuInit failed: no usable GPU")
        dev = ctypes.c_int()
        n = ctypes.c_int()
        if cu.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value < 1 or cu.cuDeviceGet(ctypes.byref(dev), 0) != 0:
            raise BackendError("no CUDA device")
        major, minor = ctypes.c_int(), ctypes.c_int()
        cu.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)   # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
        cu.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)
        self.cc = (major.value, minor.value)
        ver = ctypes.c_int()
        cu.cuDriverGetVersion(ctypes.byref(ver))
        self.driver_api = f"{ver.value // 1000}.{(ver.value % 1000) // 10}"
        self.ctx = ctypes.c_void_p()
        if cu.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev) != 0 or cu.cuCtxSetCurrent(self.ctx) != 0:
            raise BackendError("cannot make a context on device 0")

    def can_load(self, target: str) -> Optional[str]:
        """None when the device can load PTX written for target, else why not (the a/f rules of FACTS.md)."""
        body = target[3:]
        variant = body[-1] if body[-1] in "af" else ""
        sm = int(body[:-1] if variant else body)
        cc = self.cc[0] * 10 + self.cc[1]
        name = f"sm_{cc}"
        if variant == "a" and sm != cc:
            return f"{target} code runs only on compute capability {sm // 10}.{sm % 10}; the device is {name}"
        if variant == "f" and (sm // 10 != self.cc[0] or sm > cc):
            return f"{target} code runs on compute capability {sm // 10}.x >= {sm // 10}.{sm % 10}; the device is {name}"
        if sm > cc:
            return f"the device ({name}) cannot run {target} code"
        return None

    def assemble(self, arch, text, workdir, name):
        cu = self.cu
        err = ctypes.create_string_buffer(self.LOG)
        info = ctypes.create_string_buffer(self.LOG)
        opts = (ctypes.c_int * 4)(self.CU_JIT_ERROR_LOG_BUFFER, self.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                                  self.CU_JIT_INFO_LOG_BUFFER, self.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES)
        vals = (ctypes.c_void_p * 4)(ctypes.cast(err, ctypes.c_void_p).value, self.LOG,
                                     ctypes.cast(info, ctypes.c_void_p).value, self.LOG)
        mod = ctypes.c_void_p()
        t0 = time.monotonic()
        rc = cu.cuModuleLoadDataEx(ctypes.byref(mod), ctypes.c_char_p(text.encode() + b"\0"), 4, opts, vals)
        secs = time.monotonic() - t0
        if rc == 0:
            cu.cuModuleUnload(mod)
        argv = [f"cuModuleLoadDataEx(sm_{self.cc[0]}{self.cc[1]})", name + ".ptx"]
        if len(err.value) >= self.LOG - 1 or len(info.value) >= self.LOG - 1:
            # a full buffer lost the end of the log: no line of this call can be trusted to be the whole story,
            # so no case is judged on it (the judge splits the module and asks again)
            return ptxas.Call(argv, rc if rc else -1, "", secs, diagnostics.parse(
                f"ptxas fatal   : the JIT's log filled its {self.LOG}-byte buffer; the module is judged in parts"))
        out = err.value.decode(errors="replace").rstrip("\n") + "\n" + info.value.decode(errors="replace")
        if rc != 0 and not out.strip():
            out = f"ptxas fatal   : cuModuleLoadDataEx returned CUresult {rc} without a log"
        return ptxas.Call(argv, rc, out, secs, diagnostics.parse(out))


def driver_support():
    """(a per-target check of the device present, a note) for the driver's verdicts, without touching CUDA in
    this process (the workers make their own contexts): the compute capability from nvidia-smi, which does not read
    CUDA_VISIBLE_DEVICES: set but empty, it hides every device from the driver (as no_device.hpp says)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and not visible.strip():
        why = "CUDA_VISIBLE_DEVICES is set but empty: it hides every device"
        return (lambda t: why), "no usable GPU: " + why, None
    # tests point it elsewhere, as scripts/gpus.sh; set, it must be usable (a missing one is never "no GPU here")
    smi = given.env("PTXCTS_NVIDIA_SMI", given.PROGRAM, "the nvidia-smi that lists this host's GPUs",
                    default="nvidia-smi")
    try:
        r = subprocess.run([smi, "--query-gpu=compute_cap,name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30)
        row = [x.strip() for x in r.stdout.splitlines()[0].split(",")] if r.returncode == 0 and r.stdout.strip() \
            else None
    except (OSError, subprocess.TimeoutExpired):
        row = None
    if not row or len(row) < 3:
        return (lambda t: "no GPU here (nvidia-smi finds none)"), "no GPU", None
    m = re.fullmatch(r"([0-9]+)\.([0-9]+)", row[0])
    if not m:   # `[N/A]` (a driver that does not report it, a GPU in a bad state): the driver cannot be judged
        why = f"nvidia-smi gives no compute capability for {row[1] or 'the GPU'} ({row[0]!r})"
        return (lambda t: why), "no usable GPU: " + why, None
    major, minor = int(m.group(1)), int(m.group(2))
    dev = types.SimpleNamespace(cc=(major, minor))
    device = {"name": row[1], "sm": f"sm_{major}{minor}", "cc": f"{major}.{minor}", "driver": row[2]}
    return (lambda t: Driver.can_load(dev, t)), f"device sm_{major}{minor}", device


def make(load_path, toolchain):
    """The backend of load_path for the toolchain; BackendError when it cannot be used here."""
    if load_path == "ptxas":
        return Ptxas(toolchain.ptxas)
    if load_path == "nvjitlink":
        return NvJitLink(toolchain.nvjitlink)
    if load_path == "driver":
        return Driver()
    raise ValueError(load_path)
